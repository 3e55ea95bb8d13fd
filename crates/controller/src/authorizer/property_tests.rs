//! Property tests, seeded and deterministic.
//!
//! * Kafka's StandardAuthorizerPropertyTest: random topics and random
//!   PREFIXED ACLs around them; a matching DENY always wins, a matching
//!   ALLOW with no matching DENY always allows.
//! * Against a brute-force reference written from the documented
//!   semantics (every ACL examined for every action): random ACL sets,
//!   changed by random adds, replacements and removals, and random
//!   requests.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use kraft_protocol::acl::{
    AclOperation, AclPermissionType, KafkaPrincipal, PatternType, ResourceType,
};
use kraft_protocol::Uuid;

use super::AuthorizationResult::{Allowed, Denied};
use super::*;
use crate::image::StandardAcl;

/// xorshift64*.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A number below `n` (`n > 0`).
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }

    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
}

const VALID_TOPIC_CHARS: &[u8] =
    b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.";

fn random_topic_string(rng: &mut Rng, max_len: usize) -> String {
    let len = rng.below(max_len) + 1;
    (0..len)
        .map(|_| char::from(rng.pick(VALID_TOPIC_CHARS)))
        .collect()
}

/// A valid topic name (Kafka's `Topic.isValid` for these characters).
fn random_topic(rng: &mut Rng) -> String {
    loop {
        let topic = random_topic_string(rng, 249);
        if topic != "." && topic != ".." {
            return topic;
        }
    }
}

fn random_suffixes(rng: &mut Rng) -> Vec<String> {
    let mut suffixes: Vec<String> = (0..rng.below(11))
        .map(|_| random_topic_string(rng, 10))
        .collect();
    suffixes.sort();
    suffixes.dedup();
    suffixes
}

fn topic_write_acl(name: &str, pattern: PatternType, permission: AclPermissionType) -> StandardAcl {
    StandardAcl {
        resource_type: ResourceType::Topic.code(),
        resource_name: name.into(),
        pattern_type: pattern.code(),
        principal: "User:*".into(),
        host: "*".into(),
        operation: AclOperation::Write.code(),
        permission_type: permission.code(),
    }
}

/// Kafka's `addRandomPrefixRules`: a PREFIXED ACL for each prefix of the
/// topic (shorter than it) followed by each suffix, where `keep` says so.
fn add_random_prefix_rules(
    index: &mut AclIndex,
    rng: &mut Rng,
    topic: &str,
    suffixes: &[String],
    permission: AclPermissionType,
    keep: impl Fn(&str) -> bool,
) {
    let mut patterns: Vec<String> = (0..topic.len())
        .flat_map(|i| suffixes.iter().map(move |s| format!("{}{s}", &topic[..i])))
        .filter(|p| keep(p))
        .collect();
    patterns.sort();
    patterns.dedup();
    for pattern in patterns {
        index.add(
            random_id(rng),
            topic_write_acl(&pattern, PatternType::Prefixed, permission),
        );
    }
}

fn random_id(rng: &mut Rng) -> Uuid {
    Uuid::from_u64_pair(rng.next(), rng.next())
}

/// Kafka's `assertAuthorizationResult`: WRITE on the topic by `User:user`,
/// with a loaded image and no configuration.
fn write_result(index: &AclIndex, topic: &str) -> AuthorizationResult {
    let principal = KafkaPrincipal::user("user");
    let who = RequestIdentity {
        principal: &principal,
        host: IpAddr::V4(Ipv4Addr::LOCALHOST),
    };
    StandardAuthorizer::default()
        .authorize(
            index,
            true,
            &who,
            &Action::new(AclOperation::Write, ResourceType::Topic, topic),
        )
        .expect("loaded")
}

/// Kafka's `forTopicSuffixesRandom` (Kafka runs 5,000 random seeds; this
/// runs fixed ones).
fn for_topic_suffixes(seed: u64, check: impl Fn(&str, &[String], &mut Rng)) {
    for run in 0..300 {
        let mut rng = Rng::new(seed * 1_000_003 + run);
        let topic = random_topic(&mut rng);
        let suffixes = random_suffixes(&mut rng);
        check(&topic, &suffixes, &mut rng);
    }
}

#[test]
fn matching_prefix_deny_overrides_all_allow_rules() {
    for_topic_suffixes(1, |topic, suffixes, rng| {
        let mut index = AclIndex::new();
        let prefix = &topic[..rng.below(topic.len())];
        let deny = topic_write_acl(prefix, PatternType::Prefixed, AclPermissionType::Deny);
        index.add(random_id(rng), deny);
        add_random_prefix_rules(
            &mut index,
            rng,
            topic,
            suffixes,
            AclPermissionType::Allow,
            |p| !p.is_empty(),
        );
        assert_eq!(
            write_result(&index, topic),
            Denied,
            "{topic} {prefix} {suffixes:?}"
        );
    });
}

#[test]
fn matching_literal_deny_overrides_all_allow_rules() {
    for_topic_suffixes(2, |topic, suffixes, rng| {
        let mut index = AclIndex::new();
        let deny = topic_write_acl(topic, PatternType::Literal, AclPermissionType::Deny);
        index.add(random_id(rng), deny);
        add_random_prefix_rules(
            &mut index,
            rng,
            topic,
            suffixes,
            AclPermissionType::Allow,
            |p| !p.is_empty(),
        );
        assert_eq!(write_result(&index, topic), Denied, "{topic} {suffixes:?}");
    });
}

#[test]
fn matching_prefix_allow_with_no_matching_deny_rules() {
    for_topic_suffixes(3, |topic, suffixes, rng| {
        let mut index = AclIndex::new();
        let prefix = &topic[..rng.below(topic.len())];
        let allow = topic_write_acl(prefix, PatternType::Prefixed, AclPermissionType::Allow);
        index.add(random_id(rng), allow);
        add_random_prefix_rules(
            &mut index,
            rng,
            topic,
            suffixes,
            AclPermissionType::Deny,
            |p| !p.is_empty() && !topic.starts_with(p),
        );
        assert_eq!(
            write_result(&index, topic),
            Allowed,
            "{topic} {prefix} {suffixes:?}"
        );
    });
}

#[test]
fn matching_literal_allow_with_no_matching_deny_rules() {
    for_topic_suffixes(4, |topic, suffixes, rng| {
        let mut index = AclIndex::new();
        let allow = topic_write_acl(topic, PatternType::Literal, AclPermissionType::Allow);
        index.add(random_id(rng), allow);
        add_random_prefix_rules(
            &mut index,
            rng,
            topic,
            suffixes,
            AclPermissionType::Deny,
            |p| !p.is_empty() && !topic.starts_with(p),
        );
        assert_eq!(write_result(&index, topic), Allowed, "{topic} {suffixes:?}");
    });
}

// ---- The brute-force reference ----

/// The documented decision, examining every ACL: `None` is "not ready".
fn reference(
    acls: &[(Uuid, StandardAcl)],
    config: &AuthorizerConfig,
    loaded: bool,
    principal: &KafkaPrincipal,
    client: IpAddr,
    action: &Action<'_>,
) -> Option<AuthorizationResult> {
    let text = format!("{}:{}", principal.principal_type, principal.name);
    if config.super_users.contains(&text) {
        return Some(Allowed);
    }
    if !loaded {
        return None;
    }
    let on_resource: Vec<&StandardAcl> = acls
        .iter()
        .map(|(_, acl)| acl)
        .filter(|acl| ResourceType::from_code(acl.resource_type) == action.resource_type)
        .filter(|acl| reference_name_matches(acl, action.name))
        .collect();
    let applying: Vec<&&StandardAcl> = on_resource
        .iter()
        .filter(|acl| reference_principal_matches(&acl.principal, principal))
        .filter(|acl| reference_host_matches(&acl.host, client))
        .filter(|acl| reference_operation_matches(acl, action.operation))
        .collect();
    let allows = |acl: &&&StandardAcl| acl.permission_type == AclPermissionType::Allow.code();
    Some(if applying.iter().any(|a| !allows(a)) {
        Denied
    } else if applying.iter().any(allows) {
        Allowed
    } else if !on_resource.is_empty() || !config.allow_everyone_if_no_acl_found {
        Denied
    } else {
        Allowed
    })
}

/// LITERAL: the same name, or `*` for names not starting with `*` (and
/// `*` itself); anything else: the ACL's name is a prefix.
fn reference_name_matches(acl: &StandardAcl, name: &str) -> bool {
    if acl.pattern_type == PatternType::Literal.code() {
        acl.resource_name == name || (acl.resource_name == "*" && !name.starts_with('*'))
    } else {
        name.starts_with(&acl.resource_name)
    }
}

fn reference_principal_matches(acl_principal: &str, principal: &KafkaPrincipal) -> bool {
    match acl_principal.split_once(':') {
        Some((t, n)) => {
            (t == principal.principal_type && n == principal.name) || (t == "User" && n == "*")
        }
        None => false,
    }
}

fn reference_operation_matches(acl: &StandardAcl, wanted: AclOperation) -> bool {
    use AclOperation::*;
    let granted = AclOperation::from_code(acl.operation);
    if granted == All {
        return true;
    }
    if acl.permission_type != AclPermissionType::Allow.code() {
        return granted == wanted;
    }
    match wanted {
        Describe => [Describe, Read, Write, Delete, Alter].contains(&granted),
        DescribeConfigs => [DescribeConfigs, AlterConfigs].contains(&granted),
        _ => granted == wanted,
    }
}

/// `*`; the client's Java text; or a CIDR range of the simple forms the
/// generator writes (`a.b.c.d/n`, `<ipv6>/n`) holding the client.
fn reference_host_matches(host: &str, client: IpAddr) -> bool {
    let client = match client {
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => IpAddr::V6(v6),
        },
        v4 => v4,
    };
    let text = match client {
        IpAddr::V4(v4) => v4.to_string(),
        IpAddr::V6(v6) => {
            let groups: Vec<String> = v6.segments().iter().map(|g| format!("{g:x}")).collect();
            groups.join(":")
        }
    };
    if host == "*" || host == text {
        return true;
    }
    let Some((address, bits)) = host.split_once('/') else {
        return false;
    };
    let Ok(bits) = bits.parse::<u32>() else {
        return false;
    };
    let same_prefix = |a: u128, b: u128, width: u32| bits == 0 || (a ^ b) >> (width - bits) == 0;
    match client {
        IpAddr::V4(c) if !host.contains(':') => match address.parse::<Ipv4Addr>() {
            Ok(a) if bits <= 32 => {
                u32::from(c) != 0 && same_prefix(u32::from(a).into(), u32::from(c).into(), 32)
            }
            _ => false,
        },
        IpAddr::V6(c) if host.contains(':') => match address.parse::<Ipv6Addr>() {
            Ok(a) if bits <= 128 && a.to_ipv4_mapped().is_none() => {
                same_prefix(u128::from(a), u128::from(c), 128)
            }
            _ => false,
        },
        _ => false,
    }
}

// ---- Random ACLs and requests ----

const NAMES: &[&str] = &[
    "",
    "*",
    "*a",
    "a",
    "ab",
    "abc",
    "b",
    "ba",
    "é",
    "éa",
    "è",
    "èa",
    "kafka-cluster",
];
const PRINCIPALS: &[&str] = &[
    "User:alice",
    "User:bob",
    "User:*",
    "Group:x",
    "User:",
    "nocolon",
];
const HOSTS: &[&str] = &[
    "*",
    "10.0.0.1",
    "10.0.1.2",
    "0:0:0:0:0:0:0:1",
    "::1",
    "10.0.0.0/8",
    "10.0.1.0/24",
    "0.0.0.0/0",
    "10.0.0.1/32",
    "2001:db8::/32",
    "::/0",
    "::ffff:10.0.0.0/104",
    "10.0.0.0/33",
    "bad/8",
    "",
];
const CLIENTS: &[&str] = &[
    "10.0.0.1",
    "10.0.1.2",
    "192.168.0.1",
    "0.0.0.0",
    "::1",
    "2001:db8::5",
    "2001:db9::5",
    "::ffff:10.0.1.2",
];
const TYPES: &[ResourceType] = &[
    ResourceType::Topic,
    ResourceType::Group,
    ResourceType::Cluster,
    ResourceType::Unknown,
];

fn random_acl(rng: &mut Rng) -> StandardAcl {
    let resource_type = if rng.chance(3) {
        42
    } else {
        rng.pick(TYPES).code()
    };
    let pattern_type = match rng.below(20) {
        0 => 0,
        1 => 9,
        n if n < 11 => PatternType::Literal.code(),
        _ => PatternType::Prefixed.code(),
    };
    let permission_type = match rng.below(20) {
        0 => AclPermissionType::Unknown.code(),
        n if n < 8 => AclPermissionType::Deny.code(),
        _ => AclPermissionType::Allow.code(),
    };
    StandardAcl {
        resource_type,
        resource_name: rng.pick(NAMES).into(),
        pattern_type,
        principal: rng.pick(PRINCIPALS).into(),
        host: rng.pick(HOSTS).into(),
        operation: rng.below(17) as i8,
        permission_type,
    }
}

/// Random ACL sets, random changes, random requests: the index decides as
/// the reference does.
#[test]
fn index_decides_as_the_brute_force_reference() {
    for run in 0..150u64 {
        let mut rng = Rng::new(run + 77);
        let mut acls: Vec<(Uuid, StandardAcl)> = Vec::new();
        let mut index = AclIndex::new();
        let ids: Vec<Uuid> = (0..40).map(|i| Uuid::from_u64_pair(run, i)).collect();
        for _ in 0..rng.below(60) {
            let id = rng.pick(&ids);
            if rng.chance(20) {
                acls.retain(|(i, _)| *i != id);
                index.remove(&id);
            } else {
                let acl = random_acl(&mut rng);
                acls.retain(|(i, _)| *i != id);
                acls.push((id, acl.clone()));
                index.add(id, acl);
            }
        }
        assert_eq!(index.len(), acls.len());
        assert_eq!(index, AclIndex::from_acls(acls.clone()));
        let config = AuthorizerConfig {
            super_users: if rng.chance(30) {
                ["User:alice".to_owned()].into()
            } else {
                Default::default()
            },
            allow_everyone_if_no_acl_found: rng.chance(50),
        };
        let authorizer = StandardAuthorizer::new(config.clone());
        let loaded = !rng.chance(5);
        for _ in 0..60 {
            let principal = match KafkaPrincipal::parse(rng.pick(&PRINCIPALS[..5])) {
                Ok(p) => p,
                Err(e) => panic!("{e}"),
            };
            let client: IpAddr = rng.pick(CLIENTS).parse().expect("client");
            let name = rng.pick(NAMES);
            let action = Action::new(
                AclOperation::from_code(rng.below(17) as i8),
                rng.pick(TYPES),
                name,
            );
            let who = RequestIdentity {
                principal: &principal,
                host: client,
            };
            let got = authorizer.authorize(&index, loaded, &who, &action).ok();
            let expected = reference(&acls, &config, loaded, &principal, client, &action);
            assert_eq!(
                got, expected,
                "run {run}: {principal} at {client}: {action:?}\n{acls:#?}"
            );
        }
    }
}

/// `matches_acl` agrees with `matches` on the binding, and `matching`
/// lists exactly the matching ACLs, in Kafka's order.
#[test]
fn matching_agrees_with_binding_filters() {
    let pattern_types = [
        PatternType::Any,
        PatternType::Match,
        PatternType::Literal,
        PatternType::Prefixed,
    ];
    let permissions = [
        AclPermissionType::Any,
        AclPermissionType::Allow,
        AclPermissionType::Deny,
    ];
    for run in 0..100u64 {
        let mut rng = Rng::new(run + 991);
        let acls: Vec<(Uuid, StandardAcl)> = (0..rng.below(30))
            .map(|i| (Uuid::from_u64_pair(run, i as u64), random_acl(&mut rng)))
            .collect();
        let index = AclIndex::from_acls(acls.clone());
        for _ in 0..20 {
            let name = if rng.chance(30) {
                None
            } else {
                Some(rng.pick(NAMES))
            };
            let principal = if rng.chance(50) {
                None
            } else {
                Some(rng.pick(PRINCIPALS))
            };
            let host = if rng.chance(70) {
                None
            } else {
                Some(rng.pick(HOSTS))
            };
            let operation = if rng.chance(50) {
                AclOperation::Any
            } else {
                AclOperation::from_code(rng.below(16) as i8)
            };
            let rt = if rng.chance(30) {
                ResourceType::Any
            } else {
                rng.pick(TYPES)
            };
            let filter = AclBindingFilter::new(
                ResourcePatternFilter::new(rt, name, rng.pick(&pattern_types)),
                AccessControlEntryFilter::new(principal, host, operation, rng.pick(&permissions)),
            );
            let mut expected: Vec<(Uuid, &StandardAcl)> = acls
                .iter()
                .filter(|(_, acl)| acl.to_binding().is_ok_and(|b| filter.matches(&b)))
                .map(|(id, acl)| (*id, acl))
                .collect();
            for (_, acl) in &acls {
                let by_binding = acl.to_binding().is_ok_and(|b| filter.matches(&b));
                assert_eq!(filter.matches_acl(acl), by_binding);
            }
            expected.sort_by(|(ai, a), (bi, b)| a.kafka_cmp(b).then(ai.cmp(bi)));
            assert_eq!(index.matching(&filter), expected);
        }
    }
}
