//! A partition reassignment through three real `kraft server` processes,
//! over raw Kafka frames: four stand-in brokers register and heartbeat as
//! Java brokers do, a topic is created on three of them, its partition is
//! moved to the fourth (the leader leaves), listed, completed by the
//! leader's AlterPartition and no longer listed; a cancel of nothing and a
//! move to an unregistered broker get Kafka's answers.

use std::time::Duration;

use kraft_protocol::messages::*;
use kraft_protocol::{ErrorCode, List, RequestBody, ResponseBody, StrBytes, Uuid};

use super::protocol_sweep::sweep::{exchange, leader_and_follower};
use super::{kraft, start_three, Cluster};

const BROKERS: [i32; 4] = [1001, 1002, 1003, 1004];
const TOPIC: &str = "moving";

fn s(v: &str) -> StrBytes {
    StrBytes::from(v)
}

/// One request to `addr` at `version`; panics on a transport failure.
pub(super) fn call(addr: &str, version: i16, body: RequestBody) -> ResponseBody {
    let api = body.api_key();
    exchange(addr, api, version, 7, &body).unwrap_or_else(|e| panic!("{}: {e}", api.kafka_name()))
}

/// CreateTopics (v7) of `name` with one partition on `brokers` (led by the
/// first); the topic's result.
pub(super) fn create_assigned_topic(
    addr: &str,
    name: &str,
    brokers: &[i32],
) -> create_topics_response::CreatableTopicResult {
    let create = create_topics_request::CreateTopicsRequest {
        topics: List::from([create_topics_request::CreatableTopic {
            name: s(name),
            num_partitions: -1,
            replication_factor: -1,
            assignments: List::from([create_topics_request::CreatableReplicaAssignment {
                partition_index: 0,
                broker_ids: brokers.to_vec(),
                ..Default::default()
            }]),
            ..Default::default()
        }]),
        timeout_ms: 10_000,
        ..Default::default()
    };
    let ResponseBody::CreateTopics(r) = call(addr, 7, RequestBody::CreateTopics(create)) else {
        panic!("not a CreateTopics response")
    };
    r.topics.first().expect("one topic").into_owned()
}

/// The finalized features, which a registering broker must support.
pub(super) fn finalized_features(addr: &str) -> Vec<(String, i16)> {
    let request = RequestBody::ApiVersions(api_versions_request::ApiVersionsRequest {
        client_software_name: s("kraft-e2e"),
        client_software_version: s("1.0"),
        ..Default::default()
    });
    let ResponseBody::ApiVersions(r) = call(addr, 3, request) else {
        panic!("not an ApiVersions response")
    };
    r.finalized_features
        .iter()
        .map(|f| (f.name.as_str().to_owned(), f.max_version_level))
        .collect()
}

/// Registers broker `id` as a 4.4 broker would; returns its epoch.
pub(super) fn register(addr: &str, cluster_id: &str, id: i32, features: &[(String, i16)]) -> i64 {
    let dirs = vec![Uuid::from_u64_pair(0xd1, id as u64)];
    register_with_dirs(addr, cluster_id, id, features, dirs)
}

/// Registers broker `id` with the log directories `log_dirs` as a 4.4
/// broker would; returns its epoch.
pub(super) fn register_with_dirs(
    addr: &str,
    cluster_id: &str,
    id: i32,
    features: &[(String, i16)],
    log_dirs: Vec<Uuid>,
) -> i64 {
    use broker_registration_request as q;
    let request = q::BrokerRegistrationRequest {
        broker_id: id,
        cluster_id: s(cluster_id),
        incarnation_id: Uuid::from_u64_pair(0xe2e, id as u64),
        listeners: List::from([q::Listener {
            name: s("PLAINTEXT"),
            host: s("localhost"),
            port: 9092,
            security_protocol: 0,
            ..Default::default()
        }]),
        features: features
            .iter()
            .map(|(name, level)| q::Feature {
                name: s(name),
                min_supported_version: if name == "metadata.version" { 7 } else { 0 },
                max_supported_version: *level,
                ..Default::default()
            })
            .collect(),
        log_dirs,
        previous_broker_epoch: -1,
        ..Default::default()
    };
    let ResponseBody::BrokerRegistration(r) =
        call(addr, 4, RequestBody::BrokerRegistration(request))
    else {
        panic!("not a BrokerRegistration response")
    };
    assert_eq!(r.error_code, 0, "broker {id} registers");
    r.broker_epoch
}

/// A heartbeat of a caught-up broker; returns whether it is fenced.
pub(super) fn heartbeat(addr: &str, id: i32, epoch: i64) -> bool {
    let request = broker_heartbeat_request::BrokerHeartbeatRequest {
        broker_id: id,
        broker_epoch: epoch,
        current_metadata_offset: 1 << 40,
        ..Default::default()
    };
    let ResponseBody::BrokerHeartbeat(r) = call(addr, 1, RequestBody::BrokerHeartbeat(request))
    else {
        panic!("not a BrokerHeartbeat response")
    };
    assert_eq!(r.error_code, 0, "broker {id} heartbeats");
    r.is_fenced
}

fn reassign(addr: &str, replicas: Option<Vec<i32>>) -> (i16, Option<String>) {
    use alter_partition_reassignments_request as q;
    let request = q::AlterPartitionReassignmentsRequest {
        timeout_ms: 10_000,
        topics: List::from([q::ReassignableTopic {
            name: s(TOPIC),
            partitions: List::from([q::ReassignablePartition {
                partition_index: 0,
                replicas,
                ..Default::default()
            }]),
            ..Default::default()
        }]),
        ..Default::default()
    };
    let ResponseBody::AlterPartitionReassignments(r) =
        call(addr, 1, RequestBody::AlterPartitionReassignments(request))
    else {
        panic!("not an AlterPartitionReassignments response")
    };
    assert_eq!(r.error_code, 0);
    let p = r
        .responses
        .first()
        .and_then(|t| t.partitions.first().map(|p| p.into_owned()))
        .expect("one partition answered");
    (p.error_code, p.error_message.map(|m| m.as_str().to_owned()))
}

/// One listed reassignment: (topic, partition, replicas, adding, removing).
type Listed = (String, i32, Vec<i32>, Vec<i32>, Vec<i32>);

/// Every listed reassignment.
fn listed(addr: &str) -> Vec<Listed> {
    let request = list_partition_reassignments_request::ListPartitionReassignmentsRequest {
        timeout_ms: 10_000,
        topics: None,
        ..Default::default()
    };
    let ResponseBody::ListPartitionReassignments(r) =
        call(addr, 0, RequestBody::ListPartitionReassignments(request))
    else {
        panic!("not a ListPartitionReassignments response")
    };
    assert_eq!(r.error_code, 0);
    r.topics
        .iter()
        .flat_map(|t| {
            t.partitions
                .iter()
                .map(|p| {
                    (
                        t.name.as_str().to_owned(),
                        p.partition_index,
                        p.replicas.clone(),
                        p.adding_replicas.clone(),
                        p.removing_replicas.clone(),
                    )
                })
                .collect::<Vec<_>>()
        })
        .collect()
}

#[test]
fn a_reassignment_moves_a_partition_between_registered_brokers() {
    let mut c = Cluster::new("reassign", 3);
    let cluster_id = kraft(&["storage", "random-uuid"]).1.trim().to_string();
    start_three(&mut c, &cluster_id, "", "4.4-IV2");
    let nodes: Vec<(i32, String)> = (1..=3).map(|id| (id as i32, c.controller(id))).collect();
    let (leader, _) = leader_and_follower(&nodes, Duration::from_secs(60));
    let addr = leader.addr.as_str();

    let features = finalized_features(addr);
    let epochs: Vec<(i32, i64)> = BROKERS
        .iter()
        .map(|&id| (id, register(addr, &cluster_id, id, &features)))
        .collect();
    let beat = || {
        for &(id, epoch) in &epochs {
            heartbeat(addr, id, epoch);
        }
    };
    beat();
    for &(id, epoch) in &epochs {
        assert!(!heartbeat(addr, id, epoch), "broker {id} unfenced");
    }

    // The topic on 1001-1003, led by 1001.
    let created = create_assigned_topic(addr, TOPIC, &[1001, 1002, 1003]);
    assert_eq!(created.error_code, 0, "{:?}", created.error_message);
    let topic_id = created.topic_id;

    assert_eq!(listed(addr), []);
    assert_eq!(
        reassign(addr, Some(vec![1004, 1002, 1005])),
        (
            ErrorCode::InvalidReplicaAssignment.code(),
            Some("The manual partition assignment includes broker 1005, but no such broker is registered.".to_owned())
        )
    );
    assert_eq!(reassign(addr, Some(vec![1004, 1002, 1003])), (0, None));
    assert_eq!(
        listed(addr),
        [(
            TOPIC.to_owned(),
            0,
            vec![1004, 1002, 1003, 1001],
            vec![1004],
            vec![1001]
        )]
    );

    // 1001 still leads (leader epoch 0); the reassignment record was the
    // partition's first change. Its AlterPartition puts 1004 in sync, which
    // completes the move: 1001 leaves and 1004 leads.
    beat();
    let epoch_of = |id: i32| {
        epochs
            .iter()
            .find(|(b, _)| *b == id)
            .map_or(-1, |(_, e)| *e)
    };
    let alter = alter_partition_request::AlterPartitionRequest {
        broker_id: 1001,
        broker_epoch: epoch_of(1001),
        topics: List::from([alter_partition_request::TopicData {
            topic_id,
            partitions: List::from([alter_partition_request::PartitionData {
                partition_index: 0,
                leader_epoch: 0,
                partition_epoch: 1,
                new_isr_with_epochs: [1001, 1002, 1003, 1004]
                    .iter()
                    .map(|&b| alter_partition_request::BrokerState {
                        broker_id: b,
                        broker_epoch: epoch_of(b),
                        ..Default::default()
                    })
                    .collect(),
                ..Default::default()
            }]),
            ..Default::default()
        }]),
        ..Default::default()
    };
    let ResponseBody::AlterPartition(r) = call(addr, 3, RequestBody::AlterPartition(alter)) else {
        panic!("not an AlterPartition response")
    };
    assert_eq!(r.error_code, 0);
    let answered = r
        .topics
        .first()
        .and_then(|t| t.partitions.first().map(|p| p.into_owned()))
        .expect("one partition answered");
    assert_eq!(answered.error_code, ErrorCode::NewLeaderElected.code());
    assert_eq!(listed(addr), []);
    assert_eq!(
        reassign(addr, None),
        (ErrorCode::NoReassignmentInProgress.code(), None)
    );
}
