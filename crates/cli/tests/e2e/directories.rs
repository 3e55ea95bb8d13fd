//! Replica directories (KIP-858) through three real `kraft server`
//! processes, over raw Kafka frames: two stand-in brokers with two log
//! directories each register and heartbeat as Java brokers do, put their
//! replicas in directories with AssignReplicasToDirs, and one reports a
//! failed directory in a heartbeat: the partition whose replica was in it
//! gets a new leader, the other keeps its own.

use std::time::Duration;

use kraft_protocol::messages::*;
use kraft_protocol::{ErrorCode, List, RequestBody, ResponseBody, StrBytes, Uuid};

use super::protocol_sweep::sweep::leader_and_follower;
use super::reassignments::{call, finalized_features, register_with_dirs};
use super::{kraft, start_three, Cluster};

const TOPIC: &str = "jbod";

fn s(v: &str) -> StrBytes {
    StrBytes::from(v)
}

/// Directory `n` of broker `id`.
fn dir(id: i32, n: u64) -> Uuid {
    Uuid::from_u64_pair(0xd1_0000 + id as u64, n)
}

/// Registers broker `id` with two log directories; returns its epoch.
fn register(addr: &str, cluster_id: &str, id: i32, features: &[(String, i16)]) -> i64 {
    register_with_dirs(addr, cluster_id, id, features, vec![dir(id, 1), dir(id, 2)])
}

/// A heartbeat (v2) of a caught-up broker reporting `offline`
/// directories; returns whether it is fenced.
fn heartbeat(addr: &str, id: i32, epoch: i64, offline: &[Uuid]) -> bool {
    let request = broker_heartbeat_request::BrokerHeartbeatRequest {
        broker_id: id,
        broker_epoch: epoch,
        current_metadata_offset: 1 << 40,
        offline_log_dirs: offline.to_vec(),
        ..Default::default()
    };
    let ResponseBody::BrokerHeartbeat(r) = call(addr, 2, RequestBody::BrokerHeartbeat(request))
    else {
        panic!("not a BrokerHeartbeat response")
    };
    assert_eq!(r.error_code, 0, "broker {id} heartbeats");
    r.is_fenced
}

/// AssignReplicasToDirs from broker `id`: (directory, topic, partitions);
/// returns the top-level code and (partition, code) of each answer.
fn assign(
    addr: &str,
    id: i32,
    epoch: i64,
    assignment: &[(Uuid, Uuid, &[i32])],
) -> (i16, Vec<(i32, i16)>) {
    use assign_replicas_to_dirs_request as q;
    let request = q::AssignReplicasToDirsRequest {
        broker_id: id,
        broker_epoch: epoch,
        directories: assignment
            .iter()
            .map(|(dir, topic, partitions)| q::DirectoryData {
                id: *dir,
                topics: List::from([q::TopicData {
                    topic_id: *topic,
                    partitions: partitions
                        .iter()
                        .map(|&partition_index| q::PartitionData {
                            partition_index,
                            ..Default::default()
                        })
                        .collect(),
                    ..Default::default()
                }]),
                ..Default::default()
            })
            .collect(),
        ..Default::default()
    };
    let ResponseBody::AssignReplicasToDirs(r) =
        call(addr, 0, RequestBody::AssignReplicasToDirs(request))
    else {
        panic!("not an AssignReplicasToDirs response")
    };
    let answers = r
        .directories
        .iter()
        .flat_map(|d| {
            d.topics
                .iter()
                .flat_map(|t| {
                    t.partitions
                        .iter()
                        .map(|p| (p.partition_index, p.error_code))
                        .collect::<Vec<_>>()
                })
                .collect::<Vec<_>>()
        })
        .collect();
    (r.error_code, answers)
}

/// The code of an AlterPartition from `broker` for partition `index` at
/// `leader_epoch` with partition epoch 0 and an unchanged-looking ISR of
/// both brokers. Kafka's checks make the answer tell who leads at which
/// epoch: FENCED_LEADER_EPOCH when the leader epoch moved past the
/// request's, INVALID_REQUEST when `broker` does not lead at it,
/// INVALID_UPDATE_VERSION when it does (the partition epoch 0 is stale
/// once any change was recorded).
fn alter_partition_code(
    addr: &str,
    topic_id: Uuid,
    index: i32,
    broker: i32,
    leader_epoch: i32,
    epochs: &[(i32, i64)],
) -> i16 {
    let alter = alter_partition_request::AlterPartitionRequest {
        broker_id: broker,
        broker_epoch: epochs
            .iter()
            .find(|(b, _)| *b == broker)
            .map_or(-1, |(_, e)| *e),
        topics: List::from([alter_partition_request::TopicData {
            topic_id,
            partitions: List::from([alter_partition_request::PartitionData {
                partition_index: index,
                leader_epoch,
                partition_epoch: 0,
                new_isr_with_epochs: epochs
                    .iter()
                    .map(|&(b, e)| alter_partition_request::BrokerState {
                        broker_id: b,
                        broker_epoch: e,
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
    r.topics
        .first()
        .and_then(|t| t.partitions.first().map(|p| p.error_code))
        .expect("one partition answered")
}

#[test]
fn a_failed_directory_reported_in_a_heartbeat_moves_leadership_off_its_replicas() {
    let mut c = Cluster::new("jbod", 3);
    let cluster_id = kraft(&["storage", "random-uuid"]).1.trim().to_string();
    start_three(&mut c, &cluster_id, "", "4.4-IV2");
    let nodes: Vec<(i32, String)> = (1..=3).map(|id| (id as i32, c.controller(id))).collect();
    let (leader, _) = leader_and_follower(&nodes, Duration::from_secs(60));
    let addr = leader.addr.as_str();

    let features = finalized_features(addr);
    let epochs: Vec<(i32, i64)> = [1001, 1002]
        .iter()
        .map(|&id| (id, register(addr, &cluster_id, id, &features)))
        .collect();
    for _ in 0..2 {
        for &(id, epoch) in &epochs {
            heartbeat(addr, id, epoch, &[]);
        }
    }
    for &(id, epoch) in &epochs {
        assert!(!heartbeat(addr, id, epoch, &[]), "broker {id} unfenced");
    }
    let (e1, e2) = (epochs[0].1, epochs[1].1);

    // Two partitions on 1001 and 1002, both led by 1001.
    let create = create_topics_request::CreateTopicsRequest {
        topics: List::from([create_topics_request::CreatableTopic {
            name: s(TOPIC),
            num_partitions: -1,
            replication_factor: -1,
            assignments: (0..2)
                .map(|i| create_topics_request::CreatableReplicaAssignment {
                    partition_index: i,
                    broker_ids: vec![1001, 1002],
                    ..Default::default()
                })
                .collect(),
            ..Default::default()
        }]),
        timeout_ms: 10_000,
        ..Default::default()
    };
    let ResponseBody::CreateTopics(r) = call(addr, 7, RequestBody::CreateTopics(create)) else {
        panic!("not a CreateTopics response")
    };
    let created = r.topics.first().expect("one topic").into_owned();
    assert_eq!(created.error_code, 0, "{:?}", created.error_message);
    let topic = created.topic_id;

    // A stale epoch fails the whole request; an unknown topic and partition
    // are answered one by one.
    let unknown = Uuid::from_u64_pair(0xdead, 1);
    assert_eq!(
        assign(addr, 1001, e1 + 1, &[(dir(1001, 1), topic, &[0])]),
        (ErrorCode::StaleBrokerEpoch.code(), vec![])
    );
    assert_eq!(
        assign(
            addr,
            1001,
            e1,
            &[
                (dir(1001, 1), topic, &[0, 7]),
                (dir(1001, 2), topic, &[1]),
                (dir(1001, 2), unknown, &[0]),
            ]
        ),
        (
            0,
            vec![
                (0, 0),
                (7, ErrorCode::UnknownTopicOrPartition.code()),
                (1, 0),
                (0, ErrorCode::UnknownTopicId.code()),
            ]
        )
    );
    assert_eq!(
        assign(addr, 1002, e2, &[(dir(1002, 1), topic, &[0, 1])]),
        (0, vec![(0, 0), (1, 0)])
    );
    // 1001 leads both at leader epoch 0; the assignments changed the
    // partitions (partition epoch 0 is stale).
    for index in [0, 1] {
        assert_eq!(
            alter_partition_code(addr, topic, index, 1001, 0, &epochs),
            ErrorCode::InvalidUpdateVersion.code(),
            "partition {index} led by 1001"
        );
    }

    // 1001's first directory fails: partition 0's replica was in it.
    heartbeat(addr, 1001, e1, &[dir(1001, 1)]);
    assert_eq!(
        alter_partition_code(addr, topic, 0, 1001, 0, &epochs),
        ErrorCode::FencedLeaderEpoch.code(),
        "partition 0 has a new leader epoch"
    );
    assert_eq!(
        alter_partition_code(addr, topic, 0, 1001, 1, &epochs),
        ErrorCode::InvalidRequest.code(),
        "1001 does not lead partition 0"
    );
    assert_eq!(
        alter_partition_code(addr, topic, 0, 1002, 1, &epochs),
        ErrorCode::InvalidUpdateVersion.code(),
        "1002 leads partition 0 at leader epoch 1"
    );
    assert_eq!(
        alter_partition_code(addr, topic, 1, 1001, 0, &epochs),
        ErrorCode::InvalidUpdateVersion.code(),
        "partition 1, in the directory still online, is still led by 1001"
    );
    // The failed directory is no longer registered: a replica assigned to
    // it now moves leadership off at once.
    assert_eq!(
        assign(addr, 1001, e1, &[(dir(1001, 1), topic, &[1])]),
        (0, vec![(1, 0)])
    );
    assert_eq!(
        alter_partition_code(addr, topic, 1, 1002, 1, &epochs),
        ErrorCode::InvalidUpdateVersion.code(),
        "1002 leads partition 1 at leader epoch 1"
    );
}
