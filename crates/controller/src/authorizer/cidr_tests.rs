//! Kafka's StandardAuthorizerTest cases for CIDR hosts (KIP-1276), ported
//! with Kafka's expected results.

use kraft_protocol::acl::AclOperation::Read;
use kraft_protocol::acl::AclPermissionType::{Allow, Deny};
use kraft_protocol::acl::PatternType::Literal;

use super::tests::{acl, Fixture, TOPIC};
use super::AuthorizationResult::{Allowed, Denied};

#[test]
fn test_acl_with_cidr_host() {
    let mut f = Fixture::new();
    f.add(acl(
        TOPIC,
        "test-topic",
        Literal,
        "User:bob",
        "192.168.1.0/24",
        Read,
        Allow,
    ));
    for host in [
        "192.168.1.0",
        "192.168.1.1",
        "192.168.1.128",
        "192.168.1.255",
    ] {
        assert_eq!(
            f.authorize_from("bob", host, &[(Read, TOPIC, "test-topic")]),
            [Allowed],
            "{host}"
        );
    }
    for host in ["192.168.0.255", "192.168.2.0"] {
        assert_eq!(
            f.authorize_from("bob", host, &[(Read, TOPIC, "test-topic")]),
            [Denied],
            "{host}"
        );
    }
}

#[test]
fn test_acl_with_ipv6_cidr_host() {
    let mut f = Fixture::new();
    f.add(acl(
        TOPIC,
        "test-topic",
        Literal,
        "User:bob",
        "2001:db8::/120",
        Read,
        Allow,
    ));
    for host in ["2001:db8::0", "2001:db8::1", "2001:db8::80", "2001:db8::ff"] {
        assert_eq!(
            f.authorize_from("bob", host, &[(Read, TOPIC, "test-topic")]),
            [Allowed],
            "{host}"
        );
    }
    for host in ["2001:db8::100", "2001:db7::1"] {
        assert_eq!(
            f.authorize_from("bob", host, &[(Read, TOPIC, "test-topic")]),
            [Denied],
            "{host}"
        );
    }
}

#[test]
fn test_overlapping_cidr_deny_narrow_allow_wide() {
    let mut f = Fixture::new();
    f.add(acl(
        TOPIC,
        "foo",
        Literal,
        "User:alice",
        "10.0.0.0/8",
        Read,
        Allow,
    ));
    f.add(acl(
        TOPIC,
        "foo",
        Literal,
        "User:alice",
        "10.0.1.0/24",
        Read,
        Deny,
    ));
    assert_eq!(
        f.authorize_from("alice", "10.0.1.5", &[(Read, TOPIC, "foo")]),
        [Denied]
    );
    assert_eq!(
        f.authorize_from("alice", "10.0.2.1", &[(Read, TOPIC, "foo")]),
        [Allowed]
    );
}

#[test]
fn test_overlapping_cidr_allow_narrow_deny_wide() {
    let mut f = Fixture::new();
    f.add(acl(
        TOPIC,
        "foo",
        Literal,
        "User:alice",
        "10.0.0.0/8",
        Read,
        Deny,
    ));
    f.add(acl(
        TOPIC,
        "foo",
        Literal,
        "User:alice",
        "10.0.1.0/24",
        Read,
        Allow,
    ));
    assert_eq!(
        f.authorize_from("alice", "10.0.1.5", &[(Read, TOPIC, "foo")]),
        [Denied]
    );
    assert_eq!(
        f.authorize_from("alice", "10.0.2.1", &[(Read, TOPIC, "foo")]),
        [Denied]
    );
}

#[test]
fn test_overlapping_cidr_with_wildcard_allow() {
    let mut f = Fixture::new();
    f.add(acl(TOPIC, "foo", Literal, "User:alice", "*", Read, Allow));
    f.add(acl(
        TOPIC,
        "foo",
        Literal,
        "User:alice",
        "10.0.1.0/24",
        Read,
        Deny,
    ));
    assert_eq!(
        f.authorize_from("alice", "10.0.1.100", &[(Read, TOPIC, "foo")]),
        [Denied]
    );
    assert_eq!(
        f.authorize_from("alice", "10.0.2.100", &[(Read, TOPIC, "foo")]),
        [Allowed]
    );
}

#[test]
fn test_overlapping_cidr_same_permission_both_allow() {
    let mut f = Fixture::new();
    f.add(acl(
        TOPIC,
        "foo",
        Literal,
        "User:alice",
        "10.0.0.0/8",
        Read,
        Allow,
    ));
    f.add(acl(
        TOPIC,
        "foo",
        Literal,
        "User:alice",
        "10.0.1.0/24",
        Read,
        Allow,
    ));
    assert_eq!(
        f.authorize_from("alice", "10.0.1.5", &[(Read, TOPIC, "foo")]),
        [Allowed]
    );
    assert_eq!(
        f.authorize_from("alice", "10.0.2.1", &[(Read, TOPIC, "foo")]),
        [Allowed]
    );
}
