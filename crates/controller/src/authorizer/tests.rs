//! Kafka's StandardAuthorizerTest, ported: the expected results are
//! Kafka's. `superman` is the super user of Kafka's fixture; the default
//! client address of Kafka's mock request context (the local host) is
//! 127.0.0.1 here.

use std::net::IpAddr;

use kraft_protocol::acl::AclOperation::{self, *};
use kraft_protocol::acl::AclPermissionType::{self, Allow, Deny};
use kraft_protocol::acl::PatternType::{self, Literal, Prefixed};
use kraft_protocol::acl::{KafkaPrincipal, ResourceType};
use kraft_protocol::Uuid;

use super::AuthorizationResult::{Allowed, Denied};
use super::*;
use crate::image::StandardAcl;

pub(super) const TOPIC: ResourceType = ResourceType::Topic;
pub(super) const GROUP: ResourceType = ResourceType::Group;
pub(super) const CLUSTER: ResourceType = ResourceType::Cluster;
pub(super) const LOCAL_HOST: &str = "127.0.0.1";

pub(super) fn acl(
    resource_type: ResourceType,
    name: &str,
    pattern: PatternType,
    principal: &str,
    host: &str,
    operation: AclOperation,
    permission: AclPermissionType,
) -> StandardAcl {
    StandardAcl {
        resource_type: resource_type.code(),
        resource_name: name.into(),
        pattern_type: pattern.code(),
        principal: principal.into(),
        host: host.into(),
        operation: operation.code(),
        permission_type: permission.code(),
    }
}

pub(super) fn ip(text: &str) -> IpAddr {
    text.parse().expect("ip")
}

/// Kafka's `createAndInitializeStandardAuthorizer`: configured, loaded.
pub(super) struct Fixture {
    pub(super) authorizer: StandardAuthorizer,
    pub(super) acls: AclIndex,
    pub(super) loaded: bool,
    next_id: u64,
}

impl Fixture {
    pub(super) fn new() -> Self {
        Fixture::configured(Some("User:superman"), None)
    }

    pub(super) fn configured(super_users: Option<&str>, allow_everyone: Option<&str>) -> Self {
        let config = AuthorizerConfig::from_kafka(super_users, allow_everyone).expect("config");
        Fixture {
            authorizer: StandardAuthorizer::new(config),
            acls: AclIndex::new(),
            loaded: true,
            next_id: 1,
        }
    }

    pub(super) fn add(&mut self, acl: StandardAcl) -> Uuid {
        let id = Uuid::from_u64_pair(self.next_id, self.next_id);
        self.next_id += 1;
        self.acls.add(id, acl);
        id
    }

    pub(super) fn add_all(&mut self, acls: Vec<StandardAcl>) {
        for acl in acls {
            self.add(acl);
        }
    }

    pub(super) fn try_authorize(
        &self,
        user: &str,
        host: &str,
        actions: &[(AclOperation, ResourceType, &str)],
    ) -> Result<Vec<AuthorizationResult>, AuthorizerNotReady> {
        let principal = KafkaPrincipal::user(user.to_owned());
        let who = RequestIdentity {
            principal: &principal,
            host: ip(host),
        };
        let actions: Vec<Action<'_>> = actions
            .iter()
            .map(|(op, rt, name)| Action::new(*op, *rt, name))
            .collect();
        self.authorizer
            .authorize_all(&self.acls, self.loaded, &who, &actions)
    }

    pub(super) fn authorize_from(
        &self,
        user: &str,
        host: &str,
        actions: &[(AclOperation, ResourceType, &str)],
    ) -> Vec<AuthorizationResult> {
        self.try_authorize(user, host, actions).expect("loaded")
    }

    pub(super) fn authorize(
        &self,
        user: &str,
        actions: &[(AclOperation, ResourceType, &str)],
    ) -> Vec<AuthorizationResult> {
        self.authorize_from(user, LOCAL_HOST, actions)
    }
}

/// Kafka's static `findResult` for one ACL: `None` when it does not apply.
fn find_result(
    operation: AclOperation,
    resource_type: ResourceType,
    name: &str,
    user: &str,
    acl: StandardAcl,
) -> Option<AuthorizationResult> {
    let index = AclIndex::from_acls([(Uuid::from_u64_pair(1, 1), acl)]);
    let principal = KafkaPrincipal::user(user.to_owned());
    let finding = index.check(&principal, ip(LOCAL_HOST), operation, resource_type, name);
    assert!(finding.resource_has_acls, "the ACL names the resource");
    if finding.deny {
        Some(Denied)
    } else if finding.allow {
        Some(Allowed)
    } else {
        None
    }
}

fn new_foo_acl(op: AclOperation, permission: AclPermissionType) -> StandardAcl {
    acl(TOPIC, "foo_", Prefixed, "User:bob", "*", op, permission)
}

fn new_bar_acl(op: AclOperation, permission: AclPermissionType) -> StandardAcl {
    acl(GROUP, "bar", Literal, "User:*", "*", op, permission)
}

fn set(users: &[&str]) -> std::collections::BTreeSet<String> {
    users.iter().map(|u| (*u).to_owned()).collect()
}

#[test]
fn test_get_configured_super_users() {
    let users = |v: Option<&str>| AuthorizerConfig::from_kafka(v, None).map(|c| c.super_users);
    assert_eq!(users(None), Ok(set(&[])));
    assert_eq!(users(Some(" ")), Ok(set(&[])));
    assert_eq!(
        users(Some("User:bob;User:alice ")),
        Ok(set(&["User:bob", "User:alice"]))
    );
    assert_eq!(
        users(Some(";  User:bob  ;  User:alice ")),
        Ok(set(&["User:bob", "User:alice"]))
    );
    assert_eq!(
        users(Some("bob;:alice")),
        Err("expected a string in format principalType:principalName but got bob".into())
    );
}

#[test]
fn test_get_default_result() {
    let allow = |v: Option<&str>| {
        AuthorizerConfig::from_kafka(None, v)
            .expect("config")
            .allow_everyone_if_no_acl_found
    };
    assert!(!allow(None));
    assert!(allow(Some("true")));
    assert!(!allow(Some("false")));
    // Boolean.parseBoolean of the trimmed value.
    assert!(allow(Some(" TRUE ")));
    assert!(!allow(Some("yes")));
}

#[test]
fn test_allow_everyone_if_no_acl_found_config_enabled() {
    let mut f = Fixture::configured(Some("User:alice;User:chris"), Some("true"));
    f.add(acl(
        TOPIC,
        "topic1",
        Literal,
        "User:Alice",
        "*",
        Read,
        Allow,
    ));
    assert_eq!(f.authorize("Bob", &[(Read, TOPIC, "topic1")]), [Denied]);
    assert_eq!(f.authorize("Bob", &[(Read, TOPIC, "topic2")]), [Allowed]);
}

#[test]
fn test_allow_everyone_if_no_acl_found_config_disabled() {
    let mut f = Fixture::configured(Some("User:alice;User:chris"), Some("false"));
    f.add(acl(
        TOPIC,
        "topic1",
        Literal,
        "User:Alice",
        "*",
        Read,
        Allow,
    ));
    assert_eq!(f.authorize("Bob", &[(Read, TOPIC, "topic1")]), [Denied]);
    assert_eq!(f.authorize("Bob", &[(Read, TOPIC, "topic2")]), [Denied]);
}

#[test]
fn test_configure() {
    let f = Fixture::configured(Some("User:alice;User:chris"), Some("true"));
    assert_eq!(
        f.authorizer.config().super_users,
        set(&["User:alice", "User:chris"])
    );
    assert!(f.authorizer.config().allow_everyone_if_no_acl_found);
}

#[test]
fn test_find_result_implication() {
    // These permissions all imply DESCRIBE.
    for op in [Describe, Read, Write, Delete, Alter] {
        assert_eq!(
            find_result(Describe, TOPIC, "foo_bar", "bob", new_foo_acl(op, Allow)),
            Some(Allowed),
            "{op}"
        );
    }
    // CREATE does not imply DESCRIBE.
    assert_eq!(
        find_result(
            Describe,
            TOPIC,
            "foo_bar",
            "bob",
            new_foo_acl(Create, Allow)
        ),
        None
    );
    // Deny ACLs don't do "implication".
    for op in [Read, Write, Delete, Alter] {
        assert_eq!(
            find_result(Describe, TOPIC, "foo_bar", "bob", new_foo_acl(op, Deny)),
            None,
            "{op}"
        );
    }
    // Exact match.
    assert_eq!(
        find_result(
            Describe,
            TOPIC,
            "foo_bar",
            "bob",
            new_foo_acl(Describe, Deny)
        ),
        Some(Denied)
    );
    // These permissions all imply DESCRIBE_CONFIGS.
    for op in [DescribeConfigs, AlterConfigs] {
        assert_eq!(
            find_result(
                DescribeConfigs,
                TOPIC,
                "foo_bar",
                "bob",
                new_foo_acl(op, Allow)
            ),
            Some(Allowed)
        );
    }
    assert_eq!(
        find_result(
            DescribeConfigs,
            TOPIC,
            "foo_bar",
            "bob",
            new_foo_acl(AlterConfigs, Deny)
        ),
        None
    );
    assert_eq!(
        find_result(
            AlterConfigs,
            TOPIC,
            "foo_bar",
            "bob",
            new_foo_acl(AlterConfigs, Deny)
        ),
        Some(Denied)
    );
}

#[test]
fn test_find_result_principal_matching() {
    assert_eq!(
        find_result(Read, TOPIC, "foo_bar", "bob", new_foo_acl(Read, Allow)),
        Some(Allowed)
    );
    // Principal does not match.
    assert_eq!(
        find_result(Read, TOPIC, "foo_bar", "alice", new_foo_acl(Read, Allow)),
        None
    );
    // Wildcard principal matches anything.
    assert_eq!(
        find_result(Read, GROUP, "bar", "alice", new_bar_acl(Read, Deny)),
        Some(Denied)
    );
}

#[test]
fn test_list_acls() {
    let mut f = Fixture::new();
    let foo0 = f.add(new_foo_acl(Read, Allow));
    let foo1 = f.add(new_foo_acl(Write, Allow));
    let bar0 = f.add(new_bar_acl(DescribeConfigs, Deny));
    let bar1 = f.add(new_bar_acl(AlterConfigs, Deny));
    let ids = |acls: &AclIndex, filter: &AclBindingFilter| -> Vec<Uuid> {
        acls.matching(filter)
            .into_iter()
            .map(|(id, _)| id)
            .collect()
    };
    assert_eq!(
        ids(&f.acls, &AclBindingFilter::ANY),
        [foo0, foo1, bar0, bar1]
    );
    f.acls.remove(&foo1);
    assert_eq!(ids(&f.acls, &AclBindingFilter::ANY), [foo0, bar0, bar1]);
    let topics = AclBindingFilter::new(
        ResourcePatternFilter::new(TOPIC, None, PatternType::Any),
        AccessControlEntryFilter::ANY,
    );
    assert_eq!(ids(&f.acls, &topics), [foo0]);
    let bindings: Vec<AclBinding> = f
        .acls
        .matching(&topics)
        .into_iter()
        .map(|(_, a)| a.to_binding().expect("binding"))
        .collect();
    assert_eq!(
        bindings,
        [new_foo_acl(Read, Allow).to_binding().expect("binding")]
    );
}

#[test]
fn test_simple_authorizations() {
    let mut f = Fixture::new();
    f.add_all(vec![
        new_foo_acl(Read, Allow),
        new_foo_acl(Write, Allow),
        new_bar_acl(DescribeConfigs, Allow),
        new_bar_acl(AlterConfigs, Allow),
    ]);
    assert_eq!(f.authorize("bob", &[(Read, TOPIC, "foo_")]), [Allowed]);
    assert_eq!(
        f.authorize("fred", &[(AlterConfigs, GROUP, "bar")]),
        [Allowed]
    );
}

#[test]
fn test_deny_precedence_with_operation_all() {
    let mut f = Fixture::new();
    f.add_all(vec![
        acl(TOPIC, "foo", Literal, "User:alice", "*", All, Deny),
        acl(TOPIC, "foo", Prefixed, "User:alice", "*", Read, Allow),
        acl(TOPIC, "foo", Literal, "User:*", "*", All, Deny),
        acl(TOPIC, "foo", Prefixed, "User:*", "*", Describe, Allow),
    ]);
    assert_eq!(
        f.authorize(
            "alice",
            &[
                (Write, TOPIC, "foo"),
                (Read, TOPIC, "foo"),
                (Describe, TOPIC, "foo"),
                (Read, TOPIC, "foobar"),
            ]
        ),
        [Denied, Denied, Denied, Allowed]
    );
    assert_eq!(
        f.authorize(
            "bob",
            &[
                (Describe, TOPIC, "foo"),
                (Read, TOPIC, "foo"),
                (Write, TOPIC, "foo"),
                (Describe, TOPIC, "foobaz"),
                (Read, TOPIC, "foobaz"),
            ]
        ),
        [Denied, Denied, Denied, Allowed, Denied]
    );
}

#[test]
fn test_topic_acl_with_operation_all() {
    let mut f = Fixture::new();
    f.add_all(vec![
        acl(TOPIC, "foo", Literal, "User:*", "*", All, Allow),
        acl(TOPIC, "bar", Prefixed, "User:alice", "*", All, Allow),
        acl(TOPIC, "baz", Literal, "User:bob", "*", All, Allow),
    ]);
    assert_eq!(
        f.authorize(
            "alice",
            &[
                (Write, TOPIC, "foo"),
                (DescribeConfigs, TOPIC, "bar"),
                (Describe, TOPIC, "baz")
            ]
        ),
        [Allowed, Allowed, Denied]
    );
    assert_eq!(
        f.authorize(
            "bob",
            &[
                (Write, TOPIC, "foo"),
                (Read, TOPIC, "bar"),
                (Describe, TOPIC, "baz")
            ]
        ),
        [Allowed, Denied, Allowed]
    );
    assert_eq!(
        f.authorize(
            "malory",
            &[
                (Describe, TOPIC, "foo"),
                (Write, TOPIC, "bar"),
                (Read, TOPIC, "baz")
            ]
        ),
        [Allowed, Denied, Denied]
    );
}

#[test]
fn test_host_address_acl_validation() {
    let (host1, host2) = ("192.168.1.1", "192.168.1.2");
    let mut f = Fixture::new();
    f.add_all(vec![
        acl(TOPIC, "foo", Literal, "User:alice", host1, Read, Deny),
        acl(TOPIC, "foo", Literal, "User:alice", "*", Read, Allow),
        acl(TOPIC, "bar", Literal, "User:bob", host2, Read, Allow),
        acl(TOPIC, "bar", Literal, "User:*", LOCAL_HOST, Describe, Allow),
    ]);
    let actions = [
        (Read, TOPIC, "foo"),
        (Read, TOPIC, "bar"),
        (Describe, TOPIC, "bar"),
    ];
    assert_eq!(
        f.authorize_from("alice", LOCAL_HOST, &actions),
        [Allowed, Denied, Allowed]
    );
    assert_eq!(
        f.authorize_from("alice", host1, &actions),
        [Denied, Denied, Denied]
    );
    assert_eq!(
        f.authorize_from("alice", host2, &actions),
        [Allowed, Denied, Denied]
    );
    assert_eq!(
        f.authorize_from("bob", LOCAL_HOST, &actions),
        [Denied, Denied, Allowed]
    );
    assert_eq!(
        f.authorize_from("bob", host1, &actions),
        [Denied, Denied, Denied]
    );
    assert_eq!(
        f.authorize_from("bob", host2, &actions),
        [Denied, Allowed, Allowed]
    );
}

fn add_many_acls(f: &mut Fixture) {
    f.add_all(vec![
        acl(TOPIC, "green2", Literal, "User:*", "*", Read, Allow),
        acl(TOPIC, "green", Prefixed, "User:bob", "*", Read, Allow),
        acl(TOPIC, "betamax4", Literal, "User:bob", "*", Read, Allow),
        acl(TOPIC, "betamax", Literal, "User:bob", "*", Read, Allow),
        acl(TOPIC, "beta", Prefixed, "User:*", "*", Read, Allow),
        acl(TOPIC, "alpha", Prefixed, "User:*", "*", Read, Allow),
        acl(TOPIC, "alp", Prefixed, "User:bob", "*", Read, Deny),
        acl(GROUP, "*", Literal, "User:bob", "*", Write, Allow),
        acl(GROUP, "wheel", Literal, "User:*", "*", Write, Deny),
    ]);
}

#[test]
fn test_authorization_with_many_acls() {
    let mut f = Fixture::new();
    add_many_acls(&mut f);
    assert_eq!(
        f.authorize("bob", &[(Read, TOPIC, "green1"), (Write, GROUP, "wheel")]),
        [Allowed, Denied]
    );
    assert_eq!(
        f.authorize(
            "bob",
            &[
                (Read, TOPIC, "alpha"),
                (Write, GROUP, "arbitrary"),
                (Read, TOPIC, "ala")
            ]
        ),
        [Denied, Allowed, Denied]
    );
}

/// The decisions of Kafka's testDenyAuditLogging / testAllowAuditLogging
/// (their audit log lines are not reproduced).
#[test]
fn test_audit_logging_decisions() {
    let mut f = Fixture::new();
    add_many_acls(&mut f);
    assert_eq!(f.authorize("bob", &[(Read, TOPIC, "alpha")]), [Denied]);
    assert_eq!(f.authorize("bob", &[(Read, TOPIC, "green1")]), [Allowed]);
}

/// Before the initial load only super users are authorized; anyone else gets
/// AuthorizerNotReady for the whole batch.
#[test]
fn test_authorization_prior_to_complete_initial_load() {
    let mut f = Fixture::new();
    f.loaded = false;
    assert_eq!(
        f.try_authorize(
            "bob",
            LOCAL_HOST,
            &[(Read, TOPIC, "green1"), (Read, TOPIC, "green2")]
        ),
        Err(AuthorizerNotReady)
    );
    assert_eq!(
        f.try_authorize(
            "superman",
            LOCAL_HOST,
            &[(Read, TOPIC, "green1"), (Write, GROUP, "wheel")]
        ),
        Ok(vec![Allowed, Allowed])
    );
    let bob = KafkaPrincipal::user("bob");
    let who = RequestIdentity {
        principal: &bob,
        host: ip(LOCAL_HOST),
    };
    assert_eq!(
        f.authorizer
            .authorize(&f.acls, false, &who, &Action::new(Read, TOPIC, "x")),
        Err(AuthorizerNotReady)
    );
    // An empty batch asks nothing.
    assert_eq!(f.try_authorize("bob", LOCAL_HOST, &[]), Ok(vec![]));
    assert_eq!(AuthorizerNotReady::ERROR_CODE.code(), -1);
}

#[test]
fn test_prefix_acls() {
    let mut f = Fixture::new();
    f.add_all(vec![
        acl(TOPIC, "fooa", Prefixed, "User:alice", "*", All, Allow),
        acl(TOPIC, "foobar", Literal, "User:bob", "*", All, Allow),
        acl(TOPIC, "f", Prefixed, "User:bob", "*", All, Allow),
    ]);
    assert_eq!(
        f.authorize(
            "bob",
            &[
                (Write, TOPIC, "foobarr"),
                (Read, TOPIC, "goobar"),
                (Read, TOPIC, "fooa")
            ]
        ),
        [Allowed, Denied, Allowed]
    );
    assert_eq!(
        f.authorize(
            "alice",
            &[
                (Describe, TOPIC, "fooa"),
                (Write, TOPIC, "bar"),
                (Read, TOPIC, "baz")
            ]
        ),
        [Allowed, Denied, Denied]
    );
}
