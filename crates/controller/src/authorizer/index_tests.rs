//! The index itself: what a check costs, index maintenance, and the
//! corners of Kafka's scan (`StandardAuthorizerData.checkSection`).

use std::net::{IpAddr, Ipv4Addr};

use kraft_protocol::acl::AclOperation::*;
use kraft_protocol::acl::AclPermissionType::{Allow, Deny};
use kraft_protocol::acl::PatternType::{Literal, Prefixed};
use kraft_protocol::acl::{AclOperation, KafkaPrincipal, ResourceType};
use kraft_protocol::Uuid;

use super::index::Finding;
use super::tests::acl;
use super::*;

const TOPIC: ResourceType = ResourceType::Topic;
const LOCAL: IpAddr = IpAddr::V4(Ipv4Addr::LOCALHOST);

fn id(n: u64) -> Uuid {
    Uuid::from_u64_pair(7, n)
}

fn check(index: &AclIndex, user: &str, op: AclOperation, rt: ResourceType, name: &str) -> Finding {
    index.check(&KafkaPrincipal::user(user.to_owned()), LOCAL, op, rt, name)
}

/// With thousands of ACLs a check visits only the names that are prefixes
/// of the resource name, plus at most one name per jump.
#[test]
fn a_check_visits_a_few_names_whatever_the_number_of_acls() {
    let mut index = AclIndex::new();
    for i in 0..1000u64 {
        index.add(
            id(i),
            acl(
                TOPIC,
                &format!("topic-{i}"),
                Literal,
                "User:a",
                "*",
                Read,
                Allow,
            ),
        );
        let prefix = format!("p{i}-");
        index.add(
            id(10_000 + i),
            acl(TOPIC, &prefix, Prefixed, "User:a", "*", Read, Allow),
        );
        let principal = format!("User:u{i}");
        index.add(
            id(20_000 + i),
            acl(
                ResourceType::Cluster,
                CLUSTER_NAME,
                Literal,
                &principal,
                "*",
                Alter,
                Allow,
            ),
        );
    }
    assert_eq!(index.len(), 3000);
    let f = check(&index, "a", Read, TOPIC, "topic-500");
    assert!(f.allow && f.resource_has_acls);
    assert!(f.names_visited <= 12, "{f:?}");
    let f = check(&index, "a", Read, TOPIC, "p999-suffix");
    assert!(f.allow);
    assert!(f.names_visited <= 12, "{f:?}");
    let f = check(&index, "a", Read, TOPIC, "unrelated");
    assert!(!f.resource_has_acls);
    assert!(f.names_visited <= 4, "{f:?}");
    let f = check(&index, "u999", Alter, ResourceType::Cluster, CLUSTER_NAME);
    assert!(f.allow);
    assert_eq!(f.names_visited, 1);
    assert!(!check(&index, "nobody", Alter, ResourceType::Cluster, CLUSTER_NAME).allow);
}

/// Kafka's scan meets the literal `*` while walking down from a name that
/// starts with `*` and skips it as a literal that is only a prefix; the
/// wildcard section's scan skips it again. So `*` (LITERAL) applies to
/// every name except the longer ones starting with `*`.
#[test]
fn the_literal_wildcard_skips_longer_names_starting_with_a_star() {
    let index =
        AclIndex::from_acls([(id(1), acl(TOPIC, "*", Literal, "User:*", "*", Read, Allow))]);
    for name in ["abc", "", "*", "a*"] {
        assert!(check(&index, "x", Read, TOPIC, name).allow, "{name}");
    }
    for name in ["*abc", "**"] {
        let f = check(&index, "x", Read, TOPIC, name);
        assert!(!f.allow && !f.resource_has_acls, "{name}");
    }
    // A PREFIXED `*` is a plain prefix.
    let index =
        AclIndex::from_acls([(id(1), acl(TOPIC, "*", Prefixed, "User:*", "*", Read, Allow))]);
    assert!(check(&index, "x", Read, TOPIC, "*abc").allow);
    assert!(!check(&index, "x", Read, TOPIC, "abc").resource_has_acls);
}

/// A pattern code Kafka does not know (UNKNOWN) matches as a prefix; a
/// permission that is not ALLOW denies.
#[test]
fn unknown_pattern_codes_match_as_prefixes_and_non_allow_denies() {
    let mut odd = acl(TOPIC, "ab", Literal, "User:*", "*", Read, Allow);
    odd.pattern_type = 42;
    let index = AclIndex::from_acls([(id(1), odd)]);
    assert!(check(&index, "x", Read, TOPIC, "abc").allow);
    let mut unknown_permission = acl(TOPIC, "ab", Literal, "User:*", "*", Read, Allow);
    unknown_permission.permission_type = 0;
    let index = AclIndex::from_acls([(id(1), unknown_permission)]);
    assert!(check(&index, "x", Read, TOPIC, "ab").deny);
}

/// Kafka throws on an ACL whose principal has no colon; here it applies to
/// no one but still names its resource.
#[test]
fn a_principal_without_colon_applies_to_no_one() {
    let index = AclIndex::from_acls([(id(1), acl(TOPIC, "t", Literal, "alice", "*", Read, Allow))]);
    let f = check(&index, "alice", Read, TOPIC, "t");
    assert!(!f.allow && !f.deny && f.resource_has_acls);
}

#[test]
fn replacing_and_removing_keep_the_index_in_step() {
    let mut index = AclIndex::new();
    let before = acl(TOPIC, "foo", Literal, "User:a", "*", Read, Allow);
    let after = acl(TOPIC, "bar", Prefixed, "User:a", "*", Write, Deny);
    assert_eq!(index.add(id(1), before.clone()), None);
    assert_eq!(index.add(id(1), after.clone()), Some(before));
    assert_eq!(index.len(), 1);
    assert!(!check(&index, "a", Read, TOPIC, "foo").resource_has_acls);
    assert!(check(&index, "a", Write, TOPIC, "barn").deny);
    assert_eq!(index.remove(&id(1)), Some(after));
    assert_eq!(index.remove(&id(1)), None);
    assert!(!check(&index, "a", Write, TOPIC, "barn").resource_has_acls);
    assert_eq!(index, AclIndex::new());
    // Two ids holding the same ACL: removing one leaves the other.
    let same = acl(TOPIC, "foo", Literal, "User:a", "*", Read, Allow);
    index.add(id(1), same.clone());
    index.add(id(2), same);
    index.remove(&id(1));
    assert!(check(&index, "a", Read, TOPIC, "foo").allow);
}

/// Names that share only part of a multi-byte character.
#[test]
fn names_sharing_part_of_a_character() {
    let index = AclIndex::from_acls([
        (id(1), acl(TOPIC, "é", Prefixed, "User:*", "*", Read, Allow)),
        (id(2), acl(TOPIC, "è", Prefixed, "User:*", "*", Read, Deny)),
        (
            id(3),
            acl(TOPIC, "", Prefixed, "User:*", "*", Describe, Allow),
        ),
    ]);
    assert!(check(&index, "x", Read, TOPIC, "éa").allow);
    assert!(check(&index, "x", Read, TOPIC, "èa").deny);
    assert!(check(&index, "x", Describe, TOPIC, "ê").allow);
}
