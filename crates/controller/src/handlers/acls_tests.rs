//! CreateAcls, DescribeAcls and DeleteAcls through `RequestHandler::handle`.
//! Expected codes and messages: Kafka 4.4's `AclApis`, `AclControlManager`
//! and `Errors`.

#![allow(clippy::unwrap_used)]

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::time::Duration;

use kraft_protocol::acl::KafkaPrincipal;
use kraft_protocol::messages::create_acls_request::{AclCreation, CreateAclsRequest};
use kraft_protocol::messages::create_topics_request::{CreatableTopic, CreateTopicsRequest};
use kraft_protocol::messages::delete_acls_request::{DeleteAclsFilter, DeleteAclsRequest};
use kraft_protocol::messages::describe_acls_request::DescribeAclsRequest;
use kraft_protocol::{ApiKey, MetadataRecordBody, RequestBody, ResponseBody};

use super::broker_tests::{setup_authorized, GatedQuorum};
use super::Controller;
use crate::authorizer::AuthorizerConfig;
use crate::server::{CloseConnection, RequestContext, RequestHandler};

fn context(api: ApiKey, principal: &str) -> RequestContext {
    RequestContext {
        header: Default::default(),
        api_key: api,
        api_version: 3,
        listener_name: "CONTROLLER".into(),
        peer_addr: Some(SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), 5000)),
        principal: KafkaPrincipal::parse(principal).unwrap(),
        forwarded: false,
        token_authenticated: false,
        security_protocol: crate::config::SecurityProtocol::Plaintext,
    }
}

async fn send(
    c: &Controller,
    who: &str,
    body: RequestBody,
) -> Result<ResponseBody, CloseConnection> {
    let api = body.api_key();
    c.handle(context(api, who), body).await
}

fn creation(resource_type: i8, name: &str, pattern: i8, principal: &str, op: i8) -> AclCreation {
    AclCreation {
        resource_type,
        resource_name: name.into(),
        resource_pattern_type: pattern,
        principal: principal.into(),
        host: "*".into(),
        operation: op,
        permission_type: 3,
        ..Default::default()
    }
}

fn create_acls(creations: Vec<AclCreation>) -> RequestBody {
    RequestBody::CreateAcls(CreateAclsRequest {
        creations: creations.into(),
        ..Default::default()
    })
}

/// (code, message) of each CreateAcls result.
async fn created(
    c: &Controller,
    who: &str,
    creations: Vec<AclCreation>,
) -> Vec<(i16, Option<String>)> {
    let Ok(ResponseBody::CreateAcls(r)) = send(c, who, create_acls(creations)).await else {
        panic!("no CreateAcls answer")
    };
    r.results
        .iter()
        .map(|r| {
            (
                r.error_code,
                r.error_message.as_ref().map(|m| m.as_str().to_owned()),
            )
        })
        .collect()
}

fn acl_records(q: &GatedQuorum) -> (usize, usize) {
    let log = q.log.lock().unwrap();
    let adds = log
        .iter()
        .filter(|r| matches!(&r.body, MetadataRecordBody::AccessControlEntry(_)))
        .count();
    let removes = log
        .iter()
        .filter(|r| matches!(&r.body, MetadataRecordBody::RemoveAccessControlEntry(_)))
        .count();
    (adds, removes)
}

async fn may_create_topic(c: &Controller, who: &str, name: &str) -> bool {
    let body = RequestBody::CreateTopics(CreateTopicsRequest {
        topics: vec![CreatableTopic {
            name: name.into(),
            num_partitions: 1,
            replication_factor: 1,
            ..Default::default()
        }]
        .into(),
        validate_only: true,
        timeout_ms: 5000,
        ..Default::default()
    });
    let Ok(ResponseBody::CreateTopics(r)) = send(c, who, body).await else {
        panic!()
    };
    r.topics.iter().next().unwrap().error_code != 29
}

#[tokio::test]
async fn without_an_authorizer_the_acl_apis_answer_security_disabled() {
    let (c, _q) = setup_authorized(Duration::from_secs(9), None);
    let r = created(&c, "User:admin", vec![creation(2, "t", 3, "User:alice", 3)]).await;
    assert_eq!(r, [(54, Some("No Authorizer is configured.".into()))]);
    let Ok(ResponseBody::DescribeAcls(r)) = send(
        &c,
        "User:admin",
        RequestBody::DescribeAcls(DescribeAclsRequest {
            resource_type_filter: 1,
            resource_name_filter: None,
            pattern_type_filter: 1,
            principal_filter: None,
            host_filter: None,
            operation: 1,
            permission_type: 1,
            ..Default::default()
        }),
    )
    .await
    else {
        panic!()
    };
    assert_eq!(r.error_code, 54);
    assert_eq!(
        r.error_message.as_ref().map(|m| m.as_str()),
        Some("No Authorizer is configured on the broker")
    );
}

#[tokio::test]
async fn acls_are_created_described_used_and_deleted() {
    let config = AuthorizerConfig::from_kafka(Some("User:admin"), None).unwrap();
    let (c, q) = setup_authorized(Duration::from_secs(9), Some(config));
    // alice may not write ACLs herself: CLUSTER_AUTHORIZATION_FAILED.
    let r = created(
        &c,
        "User:alice",
        vec![creation(2, "a-", 4, "User:alice", 5)],
    )
    .await;
    assert_eq!(r[0].0, 31);
    assert!(!may_create_topic(&c, "User:alice", "a-1").await);
    let grant = creation(2, "a-", 4, "User:alice", 5);
    let r = created(
        &c,
        "User:admin",
        vec![
            grant.clone(),
            creation(4, "my-cluster", 3, "User:alice", 7),
            creation(2, "t", 3, "alice", 3),
            creation(2, "", 3, "User:alice", 3),
            creation(1, "t", 3, "User:alice", 3),
            grant.clone(),
        ],
    )
    .await;
    assert_eq!(
        r,
        [
            (0, None),
            (
                42,
                Some("The only valid name for the CLUSTER resource is kafka-cluster".into())
            ),
            (
                42,
                Some(
                    "Could not parse principal from `alice` (no colon is present separating \
                     the principal type from the principal name)"
                        .into()
                )
            ),
            (42, Some("Invalid empty resource name".into())),
            (42, Some("Invalid resourceType ANY".into())),
            (0, None),
        ]
    );
    assert_eq!(acl_records(&q), (1, 0), "the duplicate is written once");
    assert!(may_create_topic(&c, "User:alice", "a-1").await);
    assert!(!may_create_topic(&c, "User:alice", "b-1").await);
    // Creating it again succeeds and writes nothing.
    assert_eq!(created(&c, "User:admin", vec![grant]).await, [(0, None)]);
    assert_eq!(acl_records(&q), (1, 0));
    // DescribeAcls: one resource with its entry.
    let Ok(ResponseBody::DescribeAcls(r)) = send(
        &c,
        "User:admin",
        RequestBody::DescribeAcls(DescribeAclsRequest {
            resource_type_filter: 1,
            resource_name_filter: None,
            pattern_type_filter: 1,
            principal_filter: None,
            host_filter: None,
            operation: 1,
            permission_type: 1,
            ..Default::default()
        }),
    )
    .await
    else {
        panic!()
    };
    assert_eq!(r.error_code, 0);
    let resources: Vec<_> = r.resources.iter().collect();
    assert_eq!(resources.len(), 1);
    assert_eq!(
        (
            resources[0].resource_type,
            resources[0].resource_name.as_str(),
            resources[0].pattern_type
        ),
        (2, "a-", 4)
    );
    let acl = resources[0].acls.iter().next().unwrap();
    assert_eq!(
        (
            acl.principal.as_str(),
            acl.host.as_str(),
            acl.operation,
            acl.permission_type
        ),
        ("User:alice", "*", 5, 3)
    );
    // DeleteAcls: a filter matching it and one matching nothing.
    let filter = |principal: &str| DeleteAclsFilter {
        resource_type_filter: 2,
        resource_name_filter: None,
        pattern_type_filter: 1,
        principal_filter: Some(principal.into()),
        host_filter: None,
        operation: 1,
        permission_type: 1,
        ..Default::default()
    };
    let Ok(ResponseBody::DeleteAcls(r)) = send(
        &c,
        "User:admin",
        RequestBody::DeleteAcls(DeleteAclsRequest {
            filters: vec![filter("User:alice"), filter("User:bob")].into(),
            ..Default::default()
        }),
    )
    .await
    else {
        panic!()
    };
    let results: Vec<_> = r.filter_results.iter().collect();
    assert_eq!(results[0].error_code, 0);
    assert_eq!(results[0].matching_acls.len(), 1);
    assert_eq!(
        results[0]
            .matching_acls
            .iter()
            .next()
            .unwrap()
            .resource_name
            .as_str(),
        "a-"
    );
    assert_eq!(results[1].matching_acls.len(), 0);
    assert_eq!(acl_records(&q), (1, 1));
    assert!(c.image().read().acls().is_empty());
    assert!(!may_create_topic(&c, "User:alice", "a-1").await);
}

#[tokio::test]
async fn unknown_codes_close_the_connection_as_kafkas_parser_does() {
    let config = AuthorizerConfig::from_kafka(Some("User:admin"), None).unwrap();
    let (c, q) = setup_authorized(Duration::from_secs(9), Some(config));
    for bad in [
        creation(0, "t", 3, "User:alice", 3),
        creation(2, "t", 0, "User:alice", 3),
        creation(2, "t", 3, "User:alice", 0),
        creation(42, "t", 3, "User:alice", 3),
    ] {
        assert!(send(&c, "User:admin", create_acls(vec![bad]))
            .await
            .is_err());
    }
    assert_eq!(acl_records(&q), (0, 0));
}

#[tokio::test]
async fn at_most_10000_new_acls_in_one_request() {
    // AclControlManager bounds the records of one CreateAcls at
    // MAX_RECORDS_PER_USER_OP; past it the controller's event handler
    // answers BoundedListTooLongException as a POLICY_VIOLATION.
    let config = AuthorizerConfig::from_kafka(Some("User:admin"), None).unwrap();
    let (c, q) = setup_authorized(Duration::from_secs(9), Some(config));
    let many = |n: usize, prefix: &str| -> Vec<AclCreation> {
        (0..n)
            .map(|i| creation(2, &format!("{prefix}-{i}"), 3, "User:alice", 3))
            .collect()
    };
    // 10,001 new ACLs plus one refused by AclApis first: nothing written,
    // every binding that reached the controller fails alike.
    let mut creations = many(10_001, "over");
    creations.insert(3, creation(2, "", 3, "User:alice", 3));
    let r = created(&c, "User:admin", creations).await;
    assert_eq!(r.len(), 10_002);
    assert_eq!(r[3], (42, Some("Invalid empty resource name".into())));
    let policy = (
        44,
        Some("Unable to perform excessively large batch operation.".into()),
    );
    assert!(r.iter().enumerate().all(|(i, x)| i == 3 || *x == policy));
    assert_eq!(acl_records(&q), (0, 0));
    // Exactly 10,000 new ones (plus a duplicate, which adds no record) fit.
    let mut creations = many(10_000, "fits");
    creations.push(creation(2, "fits-0", 3, "User:alice", 3));
    let r = created(&c, "User:admin", creations).await;
    assert_eq!(r.len(), 10_001);
    assert!(r.iter().all(|x| *x == (0, None)));
    assert_eq!(acl_records(&q), (10_000, 0));
    // The handler still answers: an existing ACL again is a success.
    let r = created(
        &c,
        "User:admin",
        vec![creation(2, "fits-1", 3, "User:alice", 3)],
    )
    .await;
    assert_eq!(r, [(0, None)]);
    assert_eq!(acl_records(&q), (10_000, 0));
    // Deleting them all at once is refused as a whole (over 10,000 would
    // be; exactly 10,000 is not).
    let body = RequestBody::DeleteAcls(DeleteAclsRequest {
        filters: vec![DeleteAclsFilter {
            resource_type_filter: 1,
            resource_name_filter: None,
            pattern_type_filter: 1,
            principal_filter: None,
            host_filter: None,
            operation: 1,
            permission_type: 1,
            ..Default::default()
        }]
        .into(),
        ..Default::default()
    });
    let Ok(ResponseBody::DeleteAcls(r)) = send(&c, "User:admin", body).await else {
        panic!()
    };
    assert_eq!(r.filter_results.len(), 1);
    assert_eq!(r.filter_results.iter().next().unwrap().error_code, 0);
    assert_eq!(acl_records(&q), (10_000, 10_000));
}
