//! Kafka's StandardAclTest, StandardAclWithIdTest, AclBindingTest,
//! ResourcePatternFilterTest and AclControlManagerTest's validation cases,
//! ported with Kafka's expected values.

use std::cmp::Ordering;

use kraft_protocol::acl::AclOperation::{self, *};
use kraft_protocol::acl::AclPermissionType::{self, Allow, Deny};
use kraft_protocol::acl::PatternType::{self, Literal, Match, Prefixed};
use kraft_protocol::acl::ResourceType::{self, Cluster, Group, Topic};
use kraft_protocol::ErrorCode;

use super::tests::acl;
use super::*;
use crate::image::StandardAcl;
use crate::java::uuid_from_text;

/// Kafka's StandardAclFixtures.TEST_ACLS.
fn test_acls() -> Vec<StandardAcl> {
    vec![
        acl(
            Cluster,
            "kafka-cluster",
            Literal,
            "User:*",
            "*",
            Alter,
            Allow,
        ),
        acl(Topic, "foo_", Prefixed, "User:*", "*", Read, Allow),
        acl(Group, "mygroup", Literal, "User:foo", "*", Read, Deny),
        acl(Group, "mygroup", Prefixed, "User:foo", "*", Read, Deny),
        acl(Group, "foo", Prefixed, "User:foo", "*", Read, Deny),
    ]
}

/// Kafka's StandardAclTest.testCompareTo.
#[test]
fn test_compare_to() {
    let acls = test_acls();
    assert_eq!(acls[0].kafka_cmp(&acls[1]), Ordering::Greater);
    assert_eq!(acls[1].kafka_cmp(&acls[0]), Ordering::Less);
    assert_eq!(acls[2].kafka_cmp(&acls[3]), Ordering::Less);
    assert_eq!(acls[4].kafka_cmp(&acls[3]), Ordering::Greater);
    assert_eq!(acls[3].kafka_cmp(&acls[4]), Ordering::Less);
}

/// Kafka's StandardAclTest.testToBindingRoundTrips.
#[test]
fn test_to_binding_round_trips() {
    for acl in test_acls() {
        let binding = acl.to_binding().expect("binding");
        assert_eq!(StandardAcl::from_binding(&binding), acl);
    }
}

/// Kafka's StandardAclTest.testEquals and StandardAclWithIdTest.testEquals.
#[test]
fn test_equals() {
    let acls = test_acls();
    for (i, a) in acls.iter().enumerate() {
        for (j, b) in acls.iter().enumerate() {
            assert_eq!(i == j, a == b, "{i} {j}");
        }
    }
}

/// Kafka's StandardAclWithIdTest.testToRecordRoundTrips, over
/// StandardAclWithIdFixtures.TEST_ACLS.
#[test]
fn test_to_record_round_trips() {
    let ids = [
        "QZDDv-R7SyaPgetDPGd0Mw",
        "SdDjEdlbRmy2__WFKe3RMg",
        "wQzt5gkSTwuQNXZF5gIw7A",
        "ab_5xjJXSbS1o5jGfhgQXg",
        "wP_cCK0LTEGSX9oDRInJHQ",
    ];
    for (text, acl) in ids.iter().zip(test_acls()) {
        let id = uuid_from_text(text).expect("uuid");
        let record = acl.to_record(id);
        assert_eq!(record.id, id);
        assert_eq!(StandardAcl::from_record(&record), acl);
    }
}

/// Kafka's `kafkaPrincipal` and its IllegalStateException message.
#[test]
fn kafka_principal_of_an_acl() {
    let acls = test_acls();
    assert_eq!(acls[2].kafka_principal(), Ok(KafkaPrincipal::user("foo")));
    let mut odd = acls[2].clone();
    odd.principal = "foo".into();
    assert_eq!(
        odd.kafka_principal(),
        Err(
            "Could not parse principal from `foo` (no colon is present separating the principal \
             type from the principal name)"
                .into()
        )
    );
}

/// Codes Kafka does not know are UNKNOWN in a binding; ANY and MATCH have
/// no binding (Kafka's constructors throw).
#[test]
fn bindings_of_odd_codes() {
    let mut odd = test_acls().remove(1);
    odd.operation = 99;
    odd.resource_type = 42;
    let binding = odd.to_binding().expect("binding");
    assert_eq!(binding.entry.operation, AclOperation::Unknown);
    assert_eq!(binding.pattern.resource_type, ResourceType::Unknown);
    let refused = |f: fn(&mut StandardAcl)| {
        let mut a = test_acls().remove(1);
        f(&mut a);
        a.to_binding().map_err(|e| e.to_string())
    };
    assert_eq!(
        refused(|a| a.resource_type = 1),
        Err("resourceType must not be ANY".into())
    );
    assert_eq!(
        refused(|a| a.pattern_type = 2),
        Err("patternType must not be MATCH".into())
    );
    assert_eq!(
        refused(|a| a.pattern_type = 1),
        Err("patternType must not be ANY".into())
    );
    assert_eq!(
        refused(|a| a.operation = 1),
        Err("operation must not be ANY".into())
    );
    assert_eq!(
        refused(|a| a.permission_type = 1),
        Err("permissionType must not be ANY".into())
    );
    let mut any_op = test_acls().remove(1);
    any_op.operation = 1;
    assert!(!AclBindingFilter::ANY.matches_acl(&any_op));
}

fn binding(
    name: &str,
    principal: &str,
    host: &str,
    op: AclOperation,
    perm: AclPermissionType,
) -> AclBinding {
    AclBinding::new(
        ResourcePattern::new(Topic, name, Literal),
        AccessControlEntry::new(principal, host, op, perm),
    )
}

fn entry_filter(principal: Option<&str>, perm: AclPermissionType) -> AclBindingFilter {
    AclBindingFilter::new(
        ResourcePatternFilter::ANY,
        AccessControlEntryFilter::new(principal, None, AclOperation::Any, perm),
    )
}

/// Kafka's AclBindingTest.testMatching and testUnknowns.
#[test]
fn acl_binding_test_matching_and_unknowns() {
    let acl1 = binding("mytopic", "User:ANONYMOUS", "", All, Allow);
    let acl2 = binding("mytopic", "User:*", "", Read, Allow);
    let acl3 = binding("mytopic2", "User:ANONYMOUS", "127.0.0.1", Read, Deny);
    let unknown = binding(
        "mytopic2",
        "User:ANONYMOUS",
        "127.0.0.1",
        AclOperation::Unknown,
        Deny,
    );
    let any_anonymous = entry_filter(Some("User:ANONYMOUS"), AclPermissionType::Any);
    let any_deny = entry_filter(None, Deny);
    let any_mytopic = AclBindingFilter::new(
        ResourcePatternFilter::new(Topic, Some("mytopic"), Literal),
        AccessControlEntryFilter::ANY,
    );
    assert_eq!(acl1, binding("mytopic", "User:ANONYMOUS", "", All, Allow));
    assert_ne!(acl1, acl2);
    for b in [&acl1, &acl2, &acl3] {
        assert!(AclBindingFilter::ANY.matches(b));
    }
    assert!(any_anonymous.matches(&acl1));
    assert!(!any_anonymous.matches(&acl2));
    assert!(any_anonymous.matches(&acl3));
    assert!(!any_deny.matches(&acl1));
    assert!(!any_deny.matches(&acl2));
    assert!(any_deny.matches(&acl3));
    assert!(any_mytopic.matches(&acl1));
    assert!(any_mytopic.matches(&acl2));
    assert!(!any_mytopic.matches(&acl3));
    assert!(any_anonymous.matches(&unknown));
    assert!(any_deny.matches(&unknown));
    assert!(!any_mytopic.matches(&unknown));
    for b in [&acl1, &acl2, &acl3] {
        assert!(!b.is_unknown());
    }
    for f in [&any_anonymous, &any_deny, &any_mytopic] {
        assert!(!f.is_unknown());
    }
    assert!(unknown.is_unknown());
    assert!(acl1.to_filter().matches(&acl1));
    assert_eq!(
        acl3.to_string(),
        "(pattern=ResourcePattern(resourceType=TOPIC, name=mytopic2, patternType=LITERAL), \
         entry=(principal=User:ANONYMOUS, host=127.0.0.1, operation=READ, permissionType=DENY))"
    );
}

/// A filter's resource type, name and pattern type.
type FilterParts<'a> = (ResourceType, Option<&'a str>, PatternType);
/// A pattern's resource type, name and pattern type.
type PatternParts<'a> = (ResourceType, &'a str, PatternType);

fn pattern_matches(filter: FilterParts<'_>, pattern: PatternParts<'_>) -> bool {
    ResourcePatternFilter::new(filter.0, filter.1, filter.2)
        .matches(&ResourcePattern::new(pattern.0, pattern.1, pattern.2))
}

/// Kafka's ResourcePatternFilterTest, case by case.
#[test]
fn resource_pattern_filter_test() {
    use PatternType::Any as AnyP;
    assert!(ResourcePatternFilter::new(ResourceType::Unknown, None, Literal).is_unknown());
    assert!(ResourcePatternFilter::new(Group, None, PatternType::Unknown).is_unknown());
    let cases: &[(FilterParts<'_>, PatternParts<'_>, bool)] = &[
        (
            (Topic, Some("Name"), Literal),
            (Group, "Name", Literal),
            false,
        ),
        (
            (Topic, Some("Different"), Prefixed),
            (Topic, "Name", Prefixed),
            false,
        ),
        (
            (Topic, Some("NAME"), Literal),
            (Topic, "Name", Literal),
            false,
        ),
        (
            (Topic, Some("Name"), Literal),
            (Topic, "Name", Prefixed),
            false,
        ),
        (
            (ResourceType::Any, Some("Name"), Prefixed),
            (Topic, "Name", Prefixed),
            true,
        ),
        ((Topic, None, Prefixed), (Topic, "Name", Prefixed), true),
        ((Topic, None, AnyP), (Topic, "Name", Prefixed), true),
        ((Topic, None, Match), (Topic, "Name", Prefixed), true),
        (
            (Topic, Some("Name"), Literal),
            (Topic, "Name", Literal),
            true,
        ),
        ((Topic, Some("Name"), AnyP), (Topic, "Name", Literal), true),
        ((Topic, Some("Name"), Match), (Topic, "Name", Literal), true),
        (
            (Topic, Some("Name-something"), Match),
            (Topic, "Name", Literal),
            false,
        ),
        ((Topic, Some("*"), Literal), (Topic, "*", Literal), true),
        ((Topic, Some("Name"), Literal), (Topic, "*", Literal), false),
        ((Topic, Some("*"), Literal), (Topic, "Name", Literal), false),
        ((Topic, Some("Name"), AnyP), (Topic, "*", Literal), false),
        ((Topic, Some("Name"), Match), (Topic, "*", Literal), true),
        (
            (Topic, Some("Name"), Prefixed),
            (Topic, "Name", Prefixed),
            true,
        ),
        (
            (Topic, Some("Name"), Prefixed),
            (Topic, "Name-something", Prefixed),
            false,
        ),
        (
            (Topic, Some("Name-something"), Prefixed),
            (Topic, "Name", Prefixed),
            false,
        ),
        (
            (Topic, Some("Name-something"), AnyP),
            (Topic, "Name", Prefixed),
            false,
        ),
        (
            (Topic, Some("Name-something"), Match),
            (Topic, "Name", Prefixed),
            true,
        ),
    ];
    for (i, (filter, pattern, expected)) in cases.iter().enumerate() {
        assert_eq!(pattern_matches(*filter, *pattern), *expected, "case {i}");
    }
}

fn new_acl(
    rt: ResourceType,
    pattern: PatternType,
    principal: &str,
    host: &str,
    op: AclOperation,
    perm: AclPermissionType,
) -> AclBinding {
    AclBinding::new(
        ResourcePattern::new(rt, "*", pattern),
        AccessControlEntry::new(principal, host, op, perm),
    )
}

fn invalid(message: &str) -> Result<(), AclError> {
    Err(AclError {
        code: ErrorCode::InvalidRequest,
        message: message.into(),
    })
}

/// Kafka's AclControlManagerTest.testValidateNewAcl,
/// testValidateAclWithBadPrincipal and testValidateAclWithEmptyPrincipal.
#[test]
fn test_validate_new_acl() {
    let ok = new_acl(Topic, Literal, "User:*", "*", Alter, Allow);
    assert_eq!(validate_new_acl(&ok, false), Ok(()));
    let cases = [
        (
            new_acl(Topic, PatternType::Unknown, "User:*", "*", Alter, Allow),
            "Invalid patternType UNKNOWN",
        ),
        (
            new_acl(ResourceType::Unknown, Literal, "User:*", "*", Alter, Allow),
            "Invalid resourceType UNKNOWN",
        ),
        (
            new_acl(Topic, Literal, "User:*", "*", AclOperation::Unknown, Allow),
            "Invalid operation UNKNOWN",
        ),
        (
            new_acl(
                Topic,
                Literal,
                "User:*",
                "*",
                Alter,
                AclPermissionType::Unknown,
            ),
            "Invalid permissionType UNKNOWN",
        ),
        (
            new_acl(Topic, Literal, "invalid", "*", Alter, Allow),
            "Could not parse principal from `invalid` (no colon is present separating the \
             principal type from the principal name)",
        ),
        (
            new_acl(Topic, Literal, "", "*", Alter, Allow),
            "Could not parse principal from `` (no colon is present separating the principal \
             type from the principal name)",
        ),
        // What Kafka's binding constructors would refuse earlier.
        (
            new_acl(ResourceType::Any, Literal, "User:*", "*", Alter, Allow),
            "Invalid resourceType ANY",
        ),
        (
            new_acl(Topic, Match, "User:*", "*", Alter, Allow),
            "Invalid patternType MATCH",
        ),
        (
            new_acl(Topic, Literal, "User:*", "*", AclOperation::Any, Allow),
            "Invalid operation ANY",
        ),
        (
            new_acl(Topic, Literal, "User:*", "*", Alter, AclPermissionType::Any),
            "Invalid permissionType ANY",
        ),
    ];
    for (binding, message) in cases {
        assert_eq!(
            validate_new_acl(&binding, false),
            invalid(message),
            "{message}"
        );
    }
    let mut empty = ok.clone();
    empty.pattern.name.clear();
    assert_eq!(
        validate_new_acl(&empty, true),
        invalid("Resource name should not be empty")
    );
}

/// Kafka's AclControlManagerTest.testValidateHostPatternValid / Invalid /
/// CidrNotSupported and testCreateAclWithCidrHosts.
#[test]
fn test_validate_host_pattern() {
    for host in [
        "*",
        "192.168.1.1",
        "2001:db8::1",
        "::1",
        "example.com",
        "127.0.0.1",
    ] {
        assert_eq!(validate_host_pattern(host, false), Ok(()), "{host}");
        assert_eq!(validate_host_pattern(host, true), Ok(()), "{host}");
    }
    assert_eq!(
        validate_host_pattern("", true),
        invalid("Host pattern cannot be null or empty")
    );
    assert_eq!(
        validate_host_pattern("192.168.0.0/33", true),
        invalid("Invalid CIDR notation '192.168.0.0/33': Value [33] not in range [0,32]")
    );
    assert_eq!(
        validate_host_pattern("example.com/test", true),
        invalid("Invalid CIDR notation 'example.com/test': Could not parse [example.com/test]")
    );
    for host in ["192.168.0.0/24", "2001:db8::/32"] {
        assert_eq!(
            validate_host_pattern(host, false),
            Err(AclError {
                code: ErrorCode::UnsupportedVersion,
                message: "CIDR-based ACL host patterns require metadata version 4.4-IV1 or higher."
                    .into(),
            })
        );
        assert_eq!(validate_host_pattern(host, true), Ok(()));
    }
    let with_host = |host: &str| {
        AclBinding::new(
            ResourcePattern::new(Topic, format!("topic-{host}"), Literal),
            AccessControlEntry::new("User:test", host, Alter, Allow),
        )
    };
    assert_eq!(validate_new_acl(&with_host("192.168.0.0/24"), true), Ok(()));
    assert_eq!(
        validate_new_acl(&with_host("192.168.0.0/24"), false).map_err(|e| e.code),
        Err(ErrorCode::UnsupportedVersion)
    );
}

/// Kafka's AclControlManagerTest.testValidateFilter, and the UNKNOWN
/// resource type filter of testCreateAclDeleteAcl.
#[test]
fn test_validate_filter() {
    let filter = |pattern: PatternType, rt: ResourceType, perm: AclPermissionType| {
        AclBindingFilter::new(
            ResourcePatternFilter::new(rt, Some("*"), pattern),
            AccessControlEntryFilter::new(Some("User:*"), Some("*"), AclOperation::Any, perm),
        )
    };
    let any = ResourceType::Any;
    assert_eq!(
        validate_filter(&filter(Literal, any, AclPermissionType::Any)),
        Ok(())
    );
    assert_eq!(
        validate_filter(&filter(PatternType::Unknown, any, AclPermissionType::Any)),
        invalid("Unknown patternFilter.")
    );
    assert_eq!(
        validate_filter(&filter(Match, any, AclPermissionType::Unknown)),
        invalid("Unknown entryFilter.")
    );
    assert_eq!(
        validate_filter(&filter(
            Literal,
            ResourceType::Unknown,
            AclPermissionType::Any
        )),
        invalid("Unknown patternFilter.")
    );
}

/// AclControlManagerTest.testCreateAclDeleteAcl: the filter (ANY, any name,
/// LITERAL) selects the LITERAL ACLs among TEST_ACLS 0..3.
#[test]
fn delete_filter_selects_literal_acls() {
    let acls = test_acls();
    let index = AclIndex::from_acls(
        acls[..3]
            .iter()
            .enumerate()
            .map(|(i, a)| (kraft_protocol::Uuid::from_u64_pair(9, i as u64), a.clone())),
    );
    let filter = AclBindingFilter::new(
        ResourcePatternFilter::new(ResourceType::Any, None, Literal),
        AccessControlEntryFilter::ANY,
    );
    let found: Vec<StandardAcl> = index
        .matching(&filter)
        .into_iter()
        .map(|(_, a)| a.clone())
        .collect();
    let mut expected = vec![acls[0].clone(), acls[2].clone()];
    expected.sort_by(|a, b| a.kafka_cmp(b));
    assert_eq!(found, expected);
}

/// AclApis.handleCreateAcls's own checks.
#[test]
fn creation_checks_of_acl_apis() {
    let cluster = |name: &str| {
        AclBinding::new(
            ResourcePattern::new(Cluster, name, Literal),
            AccessControlEntry::new("User:a", "*", Alter, Allow),
        )
    };
    assert_eq!(validate_creation(&cluster("kafka-cluster")), Ok(()));
    assert_eq!(
        validate_creation(&cluster("other")),
        invalid("The only valid name for the CLUSTER resource is kafka-cluster")
    );
    let mut empty = binding("x", "User:a", "*", Read, Allow);
    empty.pattern.name.clear();
    assert_eq!(
        validate_creation(&empty),
        invalid("Invalid empty resource name")
    );
}
