//! `authorizeByResourceType` (Kafka's interface default, and
//! StandardAuthorizerTest's CIDR case), `authorizedOperations`, and how
//! super users are compared.

use kraft_protocol::acl::AclOperation::{self, *};
use kraft_protocol::acl::AclPermissionType::{Allow, Deny};
use kraft_protocol::acl::PatternType::{Literal, Prefixed};
use kraft_protocol::acl::{KafkaPrincipal, ResourceType};

use super::tests::{acl, ip, Fixture, CLUSTER, GROUP, LOCAL_HOST, TOPIC};
use super::AuthorizationResult::{Allowed, Denied};
use super::*;

fn by_resource_type(
    f: &Fixture,
    user: &str,
    host: &str,
    op: AclOperation,
    rt: ResourceType,
) -> Result<AuthorizationResult, ByResourceTypeError> {
    let principal = KafkaPrincipal::user(user.to_owned());
    let who = RequestIdentity {
        principal: &principal,
        host: ip(host),
    };
    f.authorizer
        .authorize_by_resource_type(&f.acls, f.loaded, &who, op, rt)
}

#[test]
fn test_authorize_by_resource_type_with_cidr_host() {
    let mut f = Fixture::new();
    f.add(acl(
        TOPIC,
        "test-topic",
        Literal,
        "User:bob",
        "192.168.1.0/24",
        Write,
        Allow,
    ));
    assert_eq!(
        by_resource_type(&f, "bob", "192.168.1.50", Write, TOPIC),
        Ok(Allowed)
    );
    assert_eq!(
        by_resource_type(&f, "bob", "10.0.0.1", Write, TOPIC),
        Ok(Denied)
    );
}

/// The rest of Kafka's default `authorizeByResourceType`: the argument
/// checks, super users, wildcard DENY and ALLOW, and dominating denies.
#[test]
fn authorize_by_resource_type_follows_kafkas_default() {
    let mut f = Fixture::new();
    let error = |e: &'static str| Err(ByResourceTypeError::InvalidArgument(e));
    assert_eq!(
        by_resource_type(&f, "bob", LOCAL_HOST, Read, ResourceType::Any),
        error("Must specify a non-filter resource type for authorizeByResourceType")
    );
    assert_eq!(
        by_resource_type(&f, "bob", LOCAL_HOST, Read, ResourceType::Unknown),
        error("Unknown resource type")
    );
    assert_eq!(
        by_resource_type(&f, "bob", LOCAL_HOST, AclOperation::Any, TOPIC),
        error("Must specify a non-filter operation type for authorizeByResourceType")
    );
    assert_eq!(
        by_resource_type(&f, "bob", LOCAL_HOST, AclOperation::Unknown, TOPIC),
        error("Unknown operation type")
    );
    assert_eq!(
        by_resource_type(&f, "bob", LOCAL_HOST, Read, TOPIC),
        Ok(Denied)
    );
    assert_eq!(
        by_resource_type(&f, "superman", LOCAL_HOST, Read, TOPIC),
        Ok(Allowed)
    );
    f.add(acl(TOPIC, "abc", Prefixed, "User:bob", "*", Read, Allow));
    f.add(acl(TOPIC, "a", Prefixed, "User:*", "*", Read, Deny));
    // The allowed prefix is under a denied prefix.
    assert_eq!(
        by_resource_type(&f, "bob", LOCAL_HOST, Read, TOPIC),
        Ok(Denied)
    );
    f.add(acl(TOPIC, "xyz", Literal, "User:bob", "*", All, Allow));
    assert_eq!(
        by_resource_type(&f, "bob", LOCAL_HOST, Read, TOPIC),
        Ok(Allowed)
    );
    f.add(acl(TOPIC, "xyz", Literal, "User:bob", "*", Read, Deny));
    assert_eq!(
        by_resource_type(&f, "bob", LOCAL_HOST, Read, TOPIC),
        Ok(Denied)
    );
    // The ALL allow on xyz counts for DESCRIBE, the READ deny does not.
    assert_eq!(
        by_resource_type(&f, "bob", LOCAL_HOST, Describe, TOPIC),
        Ok(Allowed)
    );
    f.add(acl(TOPIC, "*", Literal, "User:bob", "*", Read, Allow));
    assert_eq!(
        by_resource_type(&f, "bob", LOCAL_HOST, Read, TOPIC),
        Ok(Allowed)
    );
    f.add(acl(TOPIC, "*", Literal, "User:*", "*", Read, Deny));
    assert_eq!(
        by_resource_type(&f, "bob", LOCAL_HOST, Read, TOPIC),
        Ok(Denied)
    );
    f.loaded = false;
    assert_eq!(
        by_resource_type(&f, "bob", LOCAL_HOST, Read, TOPIC),
        Err(ByResourceTypeError::NotReady(AuthorizerNotReady))
    );
    // No implied operations here: a WRITE allow does not count for
    // DESCRIBE, though `authorize` would allow DESCRIBE on that topic.
    let mut f = Fixture::new();
    f.add(acl(TOPIC, "w", Literal, "User:bob", "*", Write, Allow));
    assert_eq!(
        by_resource_type(&f, "bob", LOCAL_HOST, Describe, TOPIC),
        Ok(Denied)
    );
    assert_eq!(f.authorize("bob", &[(Describe, TOPIC, "w")]), [Allowed]);
}

/// `AuthHelper.authorizedOperations` over `AclEntry.supportedOperations`:
/// CLUSTER's are CREATE 5, ALTER 7, DESCRIBE 8, CLUSTER_ACTION 9,
/// DESCRIBE_CONFIGS 10, ALTER_CONFIGS 11, IDEMPOTENT_WRITE 12.
#[test]
fn authorized_operations_is_kafkas_bitfield() {
    let all_cluster = (1 << 5) | (1 << 7) | (1 << 8) | (1 << 9) | (1 << 10) | (1 << 11) | (1 << 12);
    let mut f = Fixture::new();
    let ops = |f: &Fixture, authorizer: Option<&StandardAuthorizer>, user: &str| {
        let principal = KafkaPrincipal::user(user.to_owned());
        let who = RequestIdentity {
            principal: &principal,
            host: ip(LOCAL_HOST),
        };
        authorized_operations(authorizer, &f.acls, f.loaded, &who, CLUSTER, CLUSTER_NAME)
    };
    assert_eq!(ops(&f, None, "bob"), all_cluster);
    assert_eq!(ops(&f, Some(&f.authorizer), "superman"), all_cluster);
    assert_eq!(ops(&f, Some(&f.authorizer), "bob"), 0);
    f.add(acl(
        CLUSTER,
        CLUSTER_NAME,
        Literal,
        "User:bob",
        "*",
        Alter,
        Allow,
    ));
    f.add(acl(
        CLUSTER,
        CLUSTER_NAME,
        Literal,
        "User:*",
        "*",
        AlterConfigs,
        Allow,
    ));
    // ALTER implies DESCRIBE; ALTER_CONFIGS implies DESCRIBE_CONFIGS.
    assert_eq!(
        ops(&f, Some(&f.authorizer), "bob"),
        (1 << 7) | (1 << 8) | (1 << 10) | (1 << 11)
    );
    f.add(acl(
        CLUSTER,
        CLUSTER_NAME,
        Literal,
        "User:bob",
        "*",
        Describe,
        Deny,
    ));
    assert_eq!(
        ops(&f, Some(&f.authorizer), "bob"),
        (1 << 7) | (1 << 10) | (1 << 11)
    );
    assert_eq!(supported_operations(TOPIC).len(), 8);
    assert_eq!(supported_operations(GROUP).len(), 5);
    assert_eq!(
        supported_operations(ResourceType::TransactionalId),
        [Describe, Write, TwoPhaseCommit]
    );
    assert!(supported_operations(ResourceType::Any).is_empty());
}

/// Super users are compared as configured `type:name` strings.
#[test]
fn super_users_compare_as_text() {
    let f = Fixture::configured(Some("User:superman;Group:admins"), None);
    assert!(f
        .authorizer
        .is_super_user(&KafkaPrincipal::user("superman")));
    assert!(f
        .authorizer
        .is_super_user(&KafkaPrincipal::new("Group", "admins")));
    assert!(!f
        .authorizer
        .is_super_user(&KafkaPrincipal::new("User", "admins")));
    assert!(!f
        .authorizer
        .is_super_user(&KafkaPrincipal::user("Superman")));
}
