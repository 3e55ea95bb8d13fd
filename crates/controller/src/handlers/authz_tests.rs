//! Authorization of the controller APIs through `RequestHandler::handle`,
//! with the StandardAuthorizer over ACLs committed to the image. Expected
//! codes and messages are those of Kafka 4.4's `ControllerApis` and
//! `AuthHelper` (and `Errors` default texts).

#![allow(clippy::unwrap_used)]

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use kraft_protocol::acl::{AclOperation, KafkaPrincipal, PatternType, ResourceType};
use kraft_protocol::messages::access_control_entry_record::AccessControlEntryRecord;
use kraft_protocol::messages::broker_registration_request::Feature;
use kraft_protocol::messages::create_partitions_request::{
    CreatePartitionsRequest, CreatePartitionsTopic,
};
use kraft_protocol::messages::create_topics_request::{CreatableTopic, CreateTopicsRequest};
use kraft_protocol::messages::delete_topics_request::DeleteTopicsRequest;
use kraft_protocol::messages::describe_cluster_request::DescribeClusterRequest;
use kraft_protocol::messages::describe_quorum_request::DescribeQuorumRequest;
use kraft_protocol::messages::incremental_alter_configs_request::{
    AlterConfigsResource, AlterableConfig, IncrementalAlterConfigsRequest,
};
use kraft_protocol::messages::update_features_request::{FeatureUpdateKey, UpdateFeaturesRequest};
use kraft_protocol::{ApiKey, ErrorCode, RequestBody, ResponseBody, Uuid};

use super::broker_tests::{heartbeat, registration, setup_authorized, GatedQuorum};
use super::Controller;
use crate::authorizer::AuthorizerConfig;
use crate::image::MetadataRecord;
use crate::server::{RequestContext, RequestHandler};

const ALLOW: i8 = 3;
const DENY: i8 = 2;

/// Brokers 4, 5 and 6 registered and unfenced, with the authorizer on and
/// `User:admin` a super user.
async fn cluster() -> (Arc<Controller>, Arc<GatedQuorum>) {
    let config = AuthorizerConfig::from_kafka(Some("User:admin"), None).unwrap();
    let (c, q) = setup_authorized(Duration::from_secs(9), Some(config));
    let mut epochs = Vec::new();
    for id in [4, 5, 6] {
        let mut request = registration(id, 1);
        request.features.push(Feature {
            name: "eligible.leader.replicas.version".into(),
            min_supported_version: 0,
            max_supported_version: 1,
            ..Default::default()
        });
        let r = c.broker_registration(4, &request).await;
        assert_eq!(r.error_code, 0, "broker {id}");
        epochs.push((id, r.broker_epoch));
    }
    for (id, epoch) in &epochs {
        let hb = c.broker_heartbeat(&heartbeat(*id, *epoch, 100)).await;
        assert_eq!((hb.error_code, hb.is_fenced), (0, false), "broker {id}");
    }
    (c, q)
}

/// Commits an ACL (as CreateAcls would have written it).
fn grant(
    q: &GatedQuorum,
    id: u64,
    resource: (ResourceType, &str, PatternType),
    principal: &str,
    operation: AclOperation,
    permission: i8,
) {
    let record = AccessControlEntryRecord {
        id: Uuid::from_u64_pair(0xac1, id),
        resource_type: resource.0.code(),
        resource_name: resource.1.into(),
        pattern_type: resource.2.code(),
        principal: principal.into(),
        host: "*".into(),
        operation: operation.code(),
        permission_type: permission,
        ..Default::default()
    };
    q.log.lock().unwrap().push(MetadataRecord::new(record, 0));
    q.release();
}

fn context(api: ApiKey, version: i16, principal: &str) -> RequestContext {
    RequestContext {
        header: Default::default(),
        api_key: api,
        api_version: version,
        listener_name: "CONTROLLER".into(),
        peer_addr: Some(SocketAddr::new(
            IpAddr::V4(Ipv4Addr::new(10, 0, 0, 7)),
            5000,
        )),
        principal: KafkaPrincipal::parse(principal).unwrap(),
        forwarded: false,
        token_authenticated: false,
        security_protocol: crate::config::SecurityProtocol::Plaintext,
    }
}

async fn send(c: &Controller, principal: &str, version: i16, body: RequestBody) -> ResponseBody {
    let api = body.api_key();
    c.handle(context(api, version, principal), body)
        .await
        .expect("answered")
}

fn create(names: &[&str]) -> RequestBody {
    RequestBody::CreateTopics(CreateTopicsRequest {
        topics: names
            .iter()
            .map(|n| CreatableTopic {
                name: (*n).into(),
                num_partitions: 1,
                replication_factor: 1,
                ..Default::default()
            })
            .collect(),
        timeout_ms: 5000,
        ..Default::default()
    })
}

/// (name, code, message) of each CreateTopics result, sorted by name.
async fn create_results(c: &Controller, who: &str, names: &[&str]) -> Vec<(String, i16, String)> {
    let ResponseBody::CreateTopics(r) = send(c, who, 7, create(names)).await else {
        panic!("not a CreateTopics response")
    };
    let mut out: Vec<_> = r
        .topics
        .iter()
        .map(|t| {
            (
                t.name.as_str().to_owned(),
                t.error_code,
                t.error_message
                    .as_ref()
                    .map_or("null".into(), |m| m.as_str().to_owned()),
            )
        })
        .collect();
    out.sort();
    out
}

#[tokio::test]
async fn a_user_without_acls_is_refused_topic_creation_and_nothing_is_written() {
    let (c, q) = cluster().await;
    let before = q.log.lock().unwrap().len();
    assert_eq!(
        create_results(&c, "User:alice", &["orders"]).await,
        [("orders".into(), 29, "Authorization failed.".into())]
    );
    assert_eq!(q.log.lock().unwrap().len(), before, "nothing written");
    assert!(c.image().read().topics().topic_id("orders").is_none());
    // A super user may.
    assert_eq!(
        create_results(&c, "User:admin", &["orders"]).await,
        [("orders".into(), 0, "null".into())]
    );
}

#[tokio::test]
async fn create_on_a_prefix_allows_exactly_those_topics_and_hides_configs_without_describe_configs()
{
    let (c, q) = cluster().await;
    grant(
        &q,
        1,
        (ResourceType::Topic, "alice-", PatternType::Prefixed),
        "User:alice",
        AclOperation::Create,
        ALLOW,
    );
    let ResponseBody::CreateTopics(r) =
        send(&c, "User:alice", 7, create(&["alice-1", "bob-1"])).await
    else {
        panic!()
    };
    let mut by_name: Vec<_> = r.topics.iter().collect();
    by_name.sort_by_key(|t| t.name.as_str().to_owned());
    assert_eq!(by_name[0].name.as_str(), "alice-1");
    assert_eq!(by_name[0].error_code, 0);
    // No DESCRIBE_CONFIGS: Kafka answers TopicConfigErrorCode 29, no configs,
    // and the -1 defaults for the counts.
    assert_eq!(by_name[0].topic_config_error_code, 29);
    assert_eq!(by_name[0].configs.as_ref().map(|c| c.len()), Some(0));
    assert_eq!(
        (by_name[0].num_partitions, by_name[0].replication_factor),
        (-1, -1)
    );
    assert_eq!(
        (by_name[1].name.as_str(), by_name[1].error_code),
        ("bob-1", 29)
    );
    assert!(c.image().read().topics().topic_id("alice-1").is_some());
    assert!(c.image().read().topics().topic_id("bob-1").is_none());
    // ALTER_CONFIGS implies DESCRIBE_CONFIGS: now the configs come back.
    grant(
        &q,
        2,
        (ResourceType::Topic, "alice-", PatternType::Prefixed),
        "User:alice",
        AclOperation::AlterConfigs,
        ALLOW,
    );
    let ResponseBody::CreateTopics(r) = send(&c, "User:alice", 7, create(&["alice-2"])).await
    else {
        panic!()
    };
    assert_eq!(r.topics.to_vec()[0].topic_config_error_code, 0);
    assert!(!r.topics.to_vec()[0].configs.as_ref().unwrap().is_empty());
    assert_eq!(r.topics.to_vec()[0].num_partitions, 1);
}

#[tokio::test]
async fn create_on_the_cluster_allows_every_topic_and_deny_wins_over_allow() {
    let (c, q) = cluster().await;
    grant(
        &q,
        1,
        (ResourceType::Cluster, "kafka-cluster", PatternType::Literal),
        "User:*",
        AclOperation::Create,
        ALLOW,
    );
    assert_eq!(
        create_results(&c, "User:bob", &["t1"]).await,
        [("t1".into(), 0, "null".into())]
    );
    // A DENY on the cluster beats the wildcard ALLOW for carol only.
    grant(
        &q,
        2,
        (ResourceType::Cluster, "kafka-cluster", PatternType::Literal),
        "User:carol",
        AclOperation::Create,
        DENY,
    );
    assert_eq!(
        create_results(&c, "User:carol", &["t2"]).await,
        [("t2".into(), 29, "Authorization failed.".into())]
    );
}

#[tokio::test]
async fn delete_hides_names_the_caller_may_not_describe_and_keeps_the_topic() {
    let (c, q) = cluster().await;
    assert_eq!(
        create_results(&c, "User:admin", &["payments"]).await[0].1,
        0
    );
    let id = c.image().read().topics().topic_id("payments").unwrap();
    let delete = |by_id: bool| {
        let mut r = DeleteTopicsRequest {
            timeout_ms: 5000,
            ..Default::default()
        };
        if by_id {
            r.topics = vec![
                kraft_protocol::messages::delete_topics_request::DeleteTopicState {
                    name: None,
                    topic_id: id,
                    ..Default::default()
                },
            ]
            .into();
        } else {
            r.topic_names = vec!["payments".into()];
        }
        RequestBody::DeleteTopics(r)
    };
    let answer = |r: ResponseBody| {
        let ResponseBody::DeleteTopics(r) = r else {
            panic!()
        };
        let t = r.responses.to_vec()[0].clone();
        (
            t.name.as_ref().map(|n| n.as_str().to_owned()),
            t.topic_id,
            t.error_code,
            t.error_message.as_ref().map(|m| m.as_str().to_owned()),
        )
    };
    let denied = Some("Topic authorization failed.".to_owned());
    // By name, without DESCRIBE: refused before existence is checked.
    assert_eq!(
        answer(send(&c, "User:alice", 6, delete(false)).await),
        (Some("payments".into()), Uuid::nil(), 29, denied.clone())
    );
    // By id, without DESCRIBE: the name is not revealed.
    assert_eq!(
        answer(send(&c, "User:alice", 6, delete(true)).await),
        (None, id, 29, denied.clone())
    );
    // With DESCRIBE but not DELETE: the name is shown.
    grant(
        &q,
        1,
        (ResourceType::Topic, "payments", PatternType::Literal),
        "User:alice",
        AclOperation::Describe,
        ALLOW,
    );
    assert_eq!(
        answer(send(&c, "User:alice", 6, delete(true)).await),
        (Some("payments".into()), id, 29, denied)
    );
    assert!(c.image().read().topics().topic_id("payments").is_some());
    // DELETE implies DESCRIBE: deleted.
    grant(
        &q,
        2,
        (ResourceType::Topic, "pay", PatternType::Prefixed),
        "User:alice",
        AclOperation::Delete,
        ALLOW,
    );
    assert_eq!(answer(send(&c, "User:alice", 6, delete(false)).await).2, 0);
    assert!(c.image().read().topics().topic_id("payments").is_none());
}

#[tokio::test]
async fn partitions_and_configs_need_alter_and_alter_configs_on_the_topic() {
    let (c, q) = cluster().await;
    assert_eq!(create_results(&c, "User:admin", &["logs"]).await[0].1, 0);
    let partitions = RequestBody::CreatePartitions(CreatePartitionsRequest {
        topics: vec![CreatePartitionsTopic {
            name: "logs".into(),
            count: 2,
            assignments: None,
            ..Default::default()
        }]
        .into(),
        timeout_ms: 5000,
        ..Default::default()
    });
    let ResponseBody::CreatePartitions(r) = send(&c, "User:alice", 3, partitions.clone()).await
    else {
        panic!()
    };
    assert_eq!(
        (
            r.results.to_vec()[0].error_code,
            r.results.to_vec()[0].error_message.as_ref()
        ),
        (29, None),
        "Kafka sets no message"
    );
    let alter = |name: &str| {
        RequestBody::IncrementalAlterConfigs(IncrementalAlterConfigsRequest {
            resources: vec![AlterConfigsResource {
                resource_type: 2,
                resource_name: name.into(),
                configs: vec![AlterableConfig {
                    name: "retention.ms".into(),
                    config_operation: 0,
                    value: Some("1000".into()),
                    ..Default::default()
                }]
                .into(),
                ..Default::default()
            }]
            .into(),
            ..Default::default()
        })
    };
    let ResponseBody::IncrementalAlterConfigs(r) = send(&c, "User:alice", 1, alter("logs")).await
    else {
        panic!()
    };
    assert_eq!(r.responses.to_vec()[0].error_code, 29);
    assert_eq!(
        r.responses.to_vec()[0]
            .error_message
            .as_ref()
            .map(|m| m.as_str()),
        Some("Topic authorization failed.")
    );
    grant(
        &q,
        1,
        (ResourceType::Topic, "logs", PatternType::Literal),
        "User:alice",
        AclOperation::Alter,
        ALLOW,
    );
    grant(
        &q,
        2,
        (ResourceType::Topic, "logs", PatternType::Literal),
        "User:alice",
        AclOperation::AlterConfigs,
        ALLOW,
    );
    let ResponseBody::CreatePartitions(r) = send(&c, "User:alice", 3, partitions).await else {
        panic!()
    };
    assert_eq!(r.results.to_vec()[0].error_code, 0);
    let ResponseBody::IncrementalAlterConfigs(r) = send(&c, "User:alice", 1, alter("logs")).await
    else {
        panic!()
    };
    assert_eq!(r.responses.to_vec()[0].error_code, 0);
}

#[tokio::test]
async fn cluster_apis_need_their_operation_on_the_cluster() {
    let (c, q) = cluster().await;
    let features = || {
        RequestBody::UpdateFeatures(UpdateFeaturesRequest {
            feature_updates: vec![FeatureUpdateKey {
                feature: "group.version".into(),
                max_version_level: 0,
                upgrade_type: 2,
                ..Default::default()
            }]
            .into(),
            timeout_ms: 5000,
            ..Default::default()
        })
    };
    let ResponseBody::UpdateFeatures(r) = send(&c, "User:alice", 1, features()).await else {
        panic!()
    };
    assert_eq!(r.error_code, ErrorCode::ClusterAuthorizationFailed.code());
    assert!(
        r.error_message
            .as_ref()
            .is_some_and(|m| m.as_str().ends_with("needs ALTER permission.")),
        "{:?}",
        r.error_message
    );
    // DescribeQuorum needs DESCRIBE: refused before the raft layer sees it.
    let ResponseBody::DescribeQuorum(r) = send(
        &c,
        "User:alice",
        2,
        RequestBody::DescribeQuorum(DescribeQuorumRequest::default()),
    )
    .await
    else {
        panic!()
    };
    assert_eq!(r.error_code, ErrorCode::ClusterAuthorizationFailed.code());
    // DescribeCluster needs ALTER on a controller; once allowed, the
    // operations reported are the ones the ACLs give.
    let describe = || {
        RequestBody::DescribeCluster(DescribeClusterRequest {
            include_cluster_authorized_operations: true,
            endpoint_type: 2,
            ..Default::default()
        })
    };
    let ResponseBody::DescribeCluster(r) = send(&c, "User:alice", 1, describe()).await else {
        panic!()
    };
    assert_eq!(r.error_code, ErrorCode::ClusterAuthorizationFailed.code());
    grant(
        &q,
        1,
        (ResourceType::Cluster, "kafka-cluster", PatternType::Literal),
        "User:alice",
        AclOperation::Alter,
        ALLOW,
    );
    let ResponseBody::DescribeCluster(r) = send(&c, "User:alice", 1, describe()).await else {
        panic!()
    };
    assert_eq!(r.error_code, 0);
    // ALTER, and DESCRIBE which ALTER implies.
    assert_eq!(
        r.cluster_authorized_operations,
        (1 << AclOperation::Alter.code()) | (1 << AclOperation::Describe.code())
    );
    let ResponseBody::DescribeCluster(r) = send(&c, "User:admin", 1, describe()).await else {
        panic!()
    };
    assert_eq!(
        r.cluster_authorized_operations,
        super::ALL_CLUSTER_OPERATIONS
    );
}

#[tokio::test]
async fn envelopes_need_cluster_action_and_carry_the_clients_principal() {
    let (c, _q) = cluster().await;
    let forwarded = create(&["forwarded"]);
    let envelope = |principal: &[u8]| {
        let header = kraft_protocol::messages::request_header::RequestHeader {
            request_api_key: ApiKey::CreateTopics.id(),
            request_api_version: 7,
            correlation_id: 42,
            client_id: Some("adminclient-1".into()),
            ..Default::default()
        };
        let mut frame = Vec::new();
        kraft_protocol::header::encode_request_frame(&mut frame, &header, &forwarded).unwrap();
        RequestBody::Envelope(
            kraft_protocol::messages::envelope_request::EnvelopeRequest {
                request_data: bytes::Bytes::from(frame).slice(4..),
                request_principal: Some(bytes::Bytes::copy_from_slice(principal)),
                client_host_address: bytes::Bytes::from_static(&[10, 0, 0, 9]),
                ..Default::default()
            },
        )
    };
    let alice = {
        let mut p = vec![0, 0, 5];
        p.extend(b"User");
        p.push(6);
        p.extend(b"alice");
        p.extend([0, 0]);
        p
    };
    // A sender without CLUSTER_ACTION.
    let ResponseBody::Envelope(r) = send(&c, "User:mallory", 0, envelope(&alice)).await else {
        panic!()
    };
    assert_eq!(r.error_code, ErrorCode::ClusterAuthorizationFailed.code());
    assert!(r.response_data.is_none());
    // A broker (super user) forwarding alice's request: authorized as alice.
    let ResponseBody::Envelope(r) = send(&c, "User:admin", 0, envelope(&alice)).await else {
        panic!()
    };
    assert_eq!(r.error_code, 0);
    let (_, inner) =
        kraft_protocol::header::decode_response(r.response_data.unwrap(), ApiKey::CreateTopics, 7)
            .unwrap();
    let ResponseBody::CreateTopics(inner) = inner else {
        panic!()
    };
    assert_eq!(inner.topics.to_vec()[0].error_code, 29);
    assert!(c.image().read().topics().topic_id("forwarded").is_none());
    // A garbled principal from a broker allowed to forward: Kafka's
    // PRINCIPAL_DESERIALIZATION_FAILURE, nothing runs, and the next
    // envelope is served.
    for garbled in [&b"\0\0\x05Us"[..], &[0, 9, 1, 2][..], &[][..]] {
        let ResponseBody::Envelope(r) = send(&c, "User:admin", 0, envelope(garbled)).await else {
            panic!()
        };
        assert_eq!(
            r.error_code,
            ErrorCode::PrincipalDeserializationFailure.code(),
            "{garbled:?}"
        );
        assert!(r.response_data.is_none());
    }
    assert!(c.image().read().topics().topic_id("forwarded").is_none());
    let ResponseBody::Envelope(r) = send(&c, "User:admin", 0, envelope(&alice)).await else {
        panic!()
    };
    assert_eq!(r.error_code, 0);
}

#[tokio::test]
async fn before_the_acls_are_loaded_only_super_users_are_served() {
    let (c, _q) = cluster().await;
    c.image().set_unloaded_for_test();
    let ResponseBody::CreateTopics(r) = send(&c, "User:alice", 7, create(&["x"])).await else {
        panic!()
    };
    // Kafka's AuthorizerNotReadyException: UNKNOWN_SERVER_ERROR, no message.
    assert_eq!(
        r.topics.to_vec()[0].error_code,
        ErrorCode::UnknownServerError.code()
    );
    assert_eq!(r.topics.to_vec()[0].error_message, None);
    let ResponseBody::UpdateFeatures(r) = send(
        &c,
        "User:alice",
        1,
        RequestBody::UpdateFeatures(UpdateFeaturesRequest::default()),
    )
    .await
    else {
        panic!()
    };
    assert_eq!(r.error_code, ErrorCode::UnknownServerError.code());
}

#[tokio::test]
async fn partition_reassignments_need_alter_or_describe_on_the_cluster() {
    use kraft_protocol::messages::alter_partition_reassignments_request::{
        AlterPartitionReassignmentsRequest, ReassignablePartition, ReassignableTopic,
    };
    use kraft_protocol::messages::list_partition_reassignments_request::ListPartitionReassignmentsRequest;
    let (c, q) = cluster().await;
    let alter = || {
        RequestBody::AlterPartitionReassignments(AlterPartitionReassignmentsRequest {
            topics: vec![ReassignableTopic {
                name: "missing".into(),
                partitions: vec![ReassignablePartition {
                    partition_index: 0,
                    replicas: Some(vec![4]),
                    ..Default::default()
                }]
                .into(),
                ..Default::default()
            }]
            .into(),
            ..Default::default()
        })
    };
    let list =
        || RequestBody::ListPartitionReassignments(ListPartitionReassignmentsRequest::default());
    let alter_codes = |r: ResponseBody| match r {
        ResponseBody::AlterPartitionReassignments(r) => (
            r.error_code,
            r.error_message.map(|m| m.as_str().to_owned()),
            r.responses.to_vec()[0].partitions.to_vec()[0].error_code,
        ),
        other => panic!("{other:?}"),
    };
    let list_codes = |r: ResponseBody| match r {
        ResponseBody::ListPartitionReassignments(r) => {
            (r.error_code, r.error_message.map(|m| m.as_str().to_owned()))
        }
        other => panic!("{other:?}"),
    };
    let denied = ErrorCode::ClusterAuthorizationFailed.code();
    let (code, message, partition) = alter_codes(send(&c, "User:alice", 1, alter()).await);
    assert_eq!((code, partition), (denied, denied));
    assert!(
        message
            .as_deref()
            .is_some_and(|m| m.ends_with("needs ALTER permission.")),
        "{message:?}"
    );
    let (code, message) = list_codes(send(&c, "User:alice", 0, list()).await);
    assert_eq!(code, denied);
    assert!(
        message
            .as_deref()
            .is_some_and(|m| m.ends_with("needs DESCRIBE permission.")),
        "{message:?}"
    );
    // DESCRIBE lets alice list, not alter.
    grant(
        &q,
        1,
        (ResourceType::Cluster, "kafka-cluster", PatternType::Literal),
        "User:alice",
        AclOperation::Describe,
        ALLOW,
    );
    assert_eq!(
        list_codes(send(&c, "User:alice", 0, list()).await),
        (0, None)
    );
    assert_eq!(
        alter_codes(send(&c, "User:alice", 1, alter()).await).0,
        denied
    );
    // ALTER (which implies DESCRIBE) lets her through to the topic check.
    grant(
        &q,
        2,
        (ResourceType::Cluster, "kafka-cluster", PatternType::Literal),
        "User:alice",
        AclOperation::Alter,
        ALLOW,
    );
    assert_eq!(
        alter_codes(send(&c, "User:alice", 1, alter()).await),
        (0, None, ErrorCode::UnknownTopicOrPartition.code())
    );
}

/// `ControllerApis.handleAssignReplicasToDirs` wants CLUSTER_ACTION on the
/// cluster; past it the request reaches the broker epoch check.
#[tokio::test]
async fn assign_replicas_to_dirs_needs_cluster_action() {
    use kraft_protocol::messages::assign_replicas_to_dirs_request::AssignReplicasToDirsRequest;
    let (c, q) = cluster().await;
    let assign = || {
        RequestBody::AssignReplicasToDirs(AssignReplicasToDirsRequest {
            broker_id: 9,
            broker_epoch: 1,
            ..Default::default()
        })
    };
    let code = |r: ResponseBody| match r {
        ResponseBody::AssignReplicasToDirs(r) => {
            assert!(r.directories.is_empty(), "{r:?}");
            r.error_code
        }
        other => panic!("{other:?}"),
    };
    assert_eq!(
        code(send(&c, "User:alice", 0, assign()).await),
        ErrorCode::ClusterAuthorizationFailed.code()
    );
    // ALTER does not imply CLUSTER_ACTION.
    grant(
        &q,
        1,
        (ResourceType::Cluster, "kafka-cluster", PatternType::Literal),
        "User:alice",
        AclOperation::Alter,
        ALLOW,
    );
    assert_eq!(
        code(send(&c, "User:alice", 0, assign()).await),
        ErrorCode::ClusterAuthorizationFailed.code()
    );
    grant(
        &q,
        2,
        (ResourceType::Cluster, "kafka-cluster", PatternType::Literal),
        "User:alice",
        AclOperation::ClusterAction,
        ALLOW,
    );
    assert_eq!(
        code(send(&c, "User:alice", 0, assign()).await),
        ErrorCode::StaleBrokerEpoch.code()
    );
}

#[tokio::test]
async fn describe_configs_and_legacy_alter_configs_are_authorized_per_resource() {
    use kraft_protocol::messages::alter_configs_request as legacy;
    use kraft_protocol::messages::describe_configs_request as describe;
    let (c, q) = cluster().await;
    assert_eq!(create_results(&c, "User:admin", &["logs"]).await[0].1, 0);
    let describe_request = RequestBody::DescribeConfigs(describe::DescribeConfigsRequest {
        resources: vec![
            describe::DescribeConfigsResource {
                resource_type: 4,
                resource_name: "1".into(),
                configuration_keys: Some(vec!["node.id".into()]),
                ..Default::default()
            },
            describe::DescribeConfigsResource {
                resource_type: 2,
                resource_name: "logs".into(),
                configuration_keys: Some(vec!["retention.ms".into()]),
                ..Default::default()
            },
            describe::DescribeConfigsResource {
                resource_type: 32,
                resource_name: "g".into(),
                configuration_keys: None,
                ..Default::default()
            },
        ]
        .into(),
        ..Default::default()
    });
    let outcomes = |r: &ResponseBody| -> Vec<(i8, i16, Option<String>)> {
        let ResponseBody::DescribeConfigs(r) = r else {
            panic!("{r:?}")
        };
        r.results
            .iter()
            .map(|x| {
                (
                    x.resource_type,
                    x.error_code,
                    x.error_message.as_ref().map(|m| m.as_str().to_owned()),
                )
            })
            .collect()
    };
    let r = send(&c, "User:alice", 4, describe_request.clone()).await;
    assert_eq!(
        outcomes(&r),
        [
            (
                4,
                ErrorCode::ClusterAuthorizationFailed.code(),
                Some(
                    ErrorCode::ClusterAuthorizationFailed
                        .default_message()
                        .into()
                )
            ),
            (
                2,
                ErrorCode::TopicAuthorizationFailed.code(),
                Some("Topic authorization failed.".into())
            ),
            (
                32,
                ErrorCode::GroupAuthorizationFailed.code(),
                Some(ErrorCode::GroupAuthorizationFailed.default_message().into())
            ),
        ]
    );
    // DESCRIBE_CONFIGS on the topic only: the topic is answered first, the
    // refused resources after it.
    grant(
        &q,
        1,
        (ResourceType::Topic, "logs", PatternType::Literal),
        "User:alice",
        AclOperation::DescribeConfigs,
        ALLOW,
    );
    let r = send(&c, "User:alice", 4, describe_request).await;
    let seen: Vec<(i8, i16)> = outcomes(&r).into_iter().map(|(t, e, _)| (t, e)).collect();
    assert_eq!(
        seen,
        [
            (2, 0),
            (4, ErrorCode::ClusterAuthorizationFailed.code()),
            (32, ErrorCode::GroupAuthorizationFailed.code()),
        ]
    );
    // The legacy AlterConfigs wants ALTER_CONFIGS, which DESCRIBE_CONFIGS
    // does not imply.
    let alter = RequestBody::AlterConfigs(legacy::AlterConfigsRequest {
        resources: vec![legacy::AlterConfigsResource {
            resource_type: 2,
            resource_name: "logs".into(),
            configs: vec![legacy::AlterableConfig {
                name: "retention.ms".into(),
                value: Some("1000".into()),
                ..Default::default()
            }]
            .into(),
            ..Default::default()
        }]
        .into(),
        ..Default::default()
    });
    let ResponseBody::AlterConfigs(r) = send(&c, "User:alice", 1, alter.clone()).await else {
        panic!()
    };
    let first = r.responses.to_vec()[0].clone();
    assert_eq!(
        (
            first.error_code,
            first.error_message.as_ref().map(|m| m.as_str())
        ),
        (
            ErrorCode::TopicAuthorizationFailed.code(),
            Some("Topic authorization failed.")
        )
    );
    grant(
        &q,
        2,
        (ResourceType::Topic, "logs", PatternType::Literal),
        "User:alice",
        AclOperation::AlterConfigs,
        ALLOW,
    );
    let ResponseBody::AlterConfigs(r) = send(&c, "User:alice", 1, alter).await else {
        panic!()
    };
    assert_eq!(r.responses.to_vec()[0].error_code, 0);
}
