//! DeleteTopics and CreatePartitions through the handlers, over the gated
//! in-memory quorum of `broker_tests` and a real image.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use bytes::Bytes;
use kraft_protocol::messages::create_partitions_request::{
    CreatePartitionsAssignment, CreatePartitionsRequest, CreatePartitionsTopic,
};
use kraft_protocol::messages::create_partitions_response::CreatePartitionsResponse;
use kraft_protocol::messages::create_topics_request::{
    CreatableTopic, CreatableTopicConfig, CreateTopicsRequest,
};
use kraft_protocol::messages::delete_topics_request::{DeleteTopicState, DeleteTopicsRequest};
use kraft_protocol::messages::delete_topics_response::DeleteTopicsResponse;
use kraft_protocol::messages::partition_record::PartitionRecord;
use kraft_protocol::messages::topic_record::TopicRecord;
use kraft_protocol::{Encodable, ErrorCode, MetadataRecordBody, Uuid};

use super::broker_tests::{heartbeat, registration, setup, GatedQuorum, CLUSTER_ID};
use super::{
    ApiError, AppendError, Controller, ControllerSettings, PendingCommit, QuorumFacts, RaftQuorum,
};
use crate::image::{ConfigResource, MetadataRecord, SharedImage};

/// The directory broker `id` registers (`broker_tests::registration`).
fn dir(id: i32) -> Uuid {
    Uuid::from_u64_pair(77, id as u64)
}

/// A controller with brokers `unfenced` registered and unfenced and
/// brokers `fenced` registered only.
async fn cluster(unfenced: &[i32], fenced: &[i32]) -> (Arc<Controller>, Arc<GatedQuorum>) {
    let (c, q) = setup(Duration::from_secs(9));
    register(&c, unfenced, fenced).await;
    (c, q)
}

async fn register(c: &Controller, unfenced: &[i32], fenced: &[i32]) {
    for id in unfenced.iter().chain(fenced) {
        let r = c.broker_registration(4, &registration(*id, 1)).await;
        assert_eq!(r.error_code, 0, "broker {id}");
        if unfenced.contains(id) {
            let hb = c
                .broker_heartbeat(&heartbeat(*id, r.broker_epoch, 100))
                .await;
            assert_eq!((hb.error_code, hb.is_fenced), (0, false), "broker {id}");
        }
    }
}

/// A CreateTopics request for one topic.
pub(super) fn create_request(
    name: &str,
    partitions: i32,
    replication_factor: i16,
    configs: &[(&str, &str)],
) -> CreateTopicsRequest {
    CreateTopicsRequest {
        topics: vec![CreatableTopic {
            name: name.into(),
            num_partitions: partitions,
            replication_factor,
            configs: configs
                .iter()
                .map(|(k, v)| CreatableTopicConfig {
                    name: (*k).into(),
                    value: Some((*v).into()),
                    ..Default::default()
                })
                .collect(),
            ..Default::default()
        }]
        .into(),
        timeout_ms: 5000,
        ..Default::default()
    }
}

/// Creates `name` through CreateTopics; returns its id.
async fn create_topic(
    c: &Controller,
    name: &str,
    partitions: i32,
    replication_factor: i16,
    configs: &[(&str, &str)],
) -> Uuid {
    let r = c
        .create_topics(&create_request(
            name,
            partitions,
            replication_factor,
            configs,
        ))
        .await;
    let t = r.topics.first().expect("one result").into_owned();
    assert_eq!(
        (t.error_code, t.error_message.as_ref().map(|m| m.as_str())),
        (0, None),
        "create {name}"
    );
    t.topic_id
}

/// Replays a topic with one partition per replica list straight into the
/// log (before any write, so the writer's state starts from it).
fn replay_topic(q: &GatedQuorum, name: &str, id: Uuid, partitions: &[&[i32]]) {
    let mut log = q.log.lock().unwrap();
    log.push(MetadataRecord::new(
        TopicRecord {
            name: name.into(),
            topic_id: id,
            ..Default::default()
        },
        0,
    ));
    for (i, replicas) in partitions.iter().enumerate() {
        log.push(MetadataRecord::new(
            PartitionRecord {
                partition_id: i as i32,
                topic_id: id,
                replicas: replicas.to_vec(),
                isr: replicas.to_vec(),
                leader: replicas[0],
                directories: replicas.iter().map(|r| dir(*r)).collect(),
                ..Default::default()
            },
            2,
        ));
    }
    drop(log);
    q.release();
}

fn by_names(names: &[&str]) -> DeleteTopicsRequest {
    DeleteTopicsRequest {
        topic_names: names.iter().map(|n| (*n).into()).collect(),
        timeout_ms: 5000,
        ..Default::default()
    }
}

fn by_states(states: &[(Option<&str>, Uuid)]) -> DeleteTopicsRequest {
    DeleteTopicsRequest {
        topics: states
            .iter()
            .map(|(name, id)| DeleteTopicState {
                name: name.map(Into::into),
                topic_id: *id,
                ..Default::default()
            })
            .collect(),
        timeout_ms: 5000,
        ..Default::default()
    }
}

type Deleted = (Option<String>, Uuid, i16, Option<String>);

/// The answers, sorted (Kafka shuffles them).
fn deleted(r: &DeleteTopicsResponse) -> Vec<Deleted> {
    let mut out: Vec<Deleted> = r
        .responses
        .iter()
        .map(|t| {
            (
                t.name.as_ref().map(|n| n.as_str().to_owned()),
                t.topic_id,
                t.error_code,
                t.error_message.as_ref().map(|m| m.as_str().to_owned()),
            )
        })
        .collect();
    out.sort();
    out
}

fn row(name: Option<&str>, id: Uuid, code: ErrorCode, message: Option<&str>) -> Deleted {
    (
        name.map(str::to_owned),
        id,
        code.code(),
        message.map(str::to_owned),
    )
}

fn removed(records: &[MetadataRecord]) -> Vec<Uuid> {
    records
        .iter()
        .filter_map(|r| match &r.body {
            MetadataRecordBody::RemoveTopic(t) => {
                assert_eq!(r.version, 0, "RemoveTopicRecord v0");
                Some(t.topic_id)
            }
            _ => None,
        })
        .collect()
}

fn encodes(r: &DeleteTopicsResponse, version: i16) {
    let mut buf = Vec::new();
    r.encode(&mut buf, version)
        .unwrap_or_else(|e| panic!("v{version}: {e}"));
}

#[tokio::test]
async fn delete_by_name_removes_the_topic_and_replays() {
    let (c, q) = cluster(&[1, 2, 3], &[]).await;
    let id = create_topic(&c, "orders", 3, 2, &[("retention.ms", "1000")]).await;
    let keep = create_topic(&c, "keep", 1, 1, &[]).await;
    let resource = ConfigResource::new(ConfigResource::TOPIC, "orders");
    assert!(c.image().read().configs().config(&resource).is_some());
    let before = q.records().len();
    let r = c.delete_topics(5, &by_names(&["orders"])).await;
    assert_eq!(
        deleted(&r),
        [row(Some("orders"), id, ErrorCode::None, None)]
    );
    encodes(&r, 5);
    encodes(&r, 1);
    let records = q.records();
    assert_eq!(records.len(), before + 1, "one record");
    assert_eq!(removed(&records[before..]), [id]);
    {
        let image = c.image().read();
        assert!(image.topics().topic_by_name("orders").is_none());
        assert!(image.topics().topic(&id).is_none());
        assert!(
            image.configs().config(&resource).is_none(),
            "configs go too"
        );
        assert!(image.topics().topic(&keep).is_some());
    }
    // The whole log replays from its bytes into a fresh image.
    let fresh = SharedImage::new();
    fresh
        .apply_committed(
            records
                .iter()
                .enumerate()
                .map(|(i, r)| (i as i64, Bytes::from(r.encode().unwrap()))),
        )
        .expect("replays");
    {
        let image = fresh.read();
        assert!(image.topics().topic(&id).is_none());
        assert_eq!(image.topics().len(), 1);
        assert!(image.configs().config(&resource).is_none());
    }
    // Deleting it again: it is gone.
    let r = c.delete_topics(5, &by_names(&["orders"])).await;
    assert_eq!(
        deleted(&r),
        [row(
            Some("orders"),
            Uuid::nil(),
            ErrorCode::UnknownTopicOrPartition,
            Some("This server does not host this topic-partition.")
        )]
    );
    assert_eq!(q.records().len(), before + 1, "no write");
}

/// `delete.topic.enable=false`: Kafka's `ControllerApis.deleteTopics`
/// refuses the whole request (TOPIC_DELETION_DISABLED from v3, an
/// INVALID_REQUEST below), every topic carries the code, nothing is written.
#[tokio::test]
async fn deletion_disabled_refuses_every_topic_and_writes_nothing() {
    let (c, q) = cluster(&[1, 2, 3], &[]).await;
    let id = create_topic(&c, "orders", 1, 1, &[]).await;
    let mut settings = c.settings().clone();
    settings.topics.delete_enable = false;
    let disabled = Controller::new(settings, c.image().clone(), q.clone());
    let before = q.records().len();
    let r = disabled
        .delete_topics(6, &by_states(&[(None, id), (Some("nope"), Uuid::nil())]))
        .await;
    assert_eq!(
        deleted(&r),
        [
            row(None, id, ErrorCode::TopicDeletionDisabled, None),
            row(
                Some("nope"),
                Uuid::nil(),
                ErrorCode::TopicDeletionDisabled,
                None
            ),
        ]
    );
    encodes(&r, 6);
    for version in [3, 5] {
        let r = disabled
            .delete_topics(version, &by_names(&["orders"]))
            .await;
        assert_eq!(
            deleted(&r),
            [row(
                Some("orders"),
                Uuid::nil(),
                ErrorCode::TopicDeletionDisabled,
                None
            )],
            "v{version}"
        );
    }
    for version in [1, 2] {
        let r = disabled
            .delete_topics(version, &by_names(&["orders"]))
            .await;
        assert_eq!(
            deleted(&r),
            [row(
                Some("orders"),
                Uuid::nil(),
                ErrorCode::InvalidRequest,
                None
            )],
            "v{version}"
        );
        encodes(&r, version);
    }
    assert_eq!(q.records().len(), before, "no write");
    assert!(
        c.image().read().topics().topic(&id).is_some(),
        "the topic stays"
    );
    // The same request on the default settings deletes it.
    let r = c.delete_topics(6, &by_states(&[(None, id)])).await;
    assert_eq!(
        deleted(&r),
        [row(Some("orders"), id, ErrorCode::None, None)]
    );
}

#[tokio::test]
async fn delete_by_id_at_v6() {
    let (c, q) = cluster(&[1, 2, 3], &[]).await;
    let id = create_topic(&c, "orders", 2, 3, &[]).await;
    let by_name = create_topic(&c, "named", 1, 1, &[]).await;
    let before = q.records().len();
    let r = c
        .delete_topics(6, &by_states(&[(None, id), (Some("named"), Uuid::nil())]))
        .await;
    assert_eq!(
        deleted(&r),
        [
            row(Some("named"), by_name, ErrorCode::None, None),
            row(Some("orders"), id, ErrorCode::None, None),
        ]
    );
    encodes(&r, 6);
    let mut gone = removed(&q.records()[before..]);
    gone.sort();
    let mut expected = vec![id, by_name];
    expected.sort();
    assert_eq!(gone, expected);
    assert!(c.image().read().topics().is_empty());
}

#[tokio::test]
async fn unknown_names_and_ids_are_refused_without_a_write() {
    let (c, q) = cluster(&[1], &[]).await;
    create_topic(&c, "orders", 1, 1, &[]).await;
    let before = q.records().len();
    let stranger = Uuid::from_u64_pair(5, 5);
    let r = c
        .delete_topics(
            6,
            &by_states(&[(Some("nope"), Uuid::nil()), (None, stranger)]),
        )
        .await;
    assert_eq!(
        deleted(&r),
        [
            row(
                None,
                stranger,
                ErrorCode::UnknownTopicId,
                Some("This server does not host this topic ID.")
            ),
            row(
                Some("nope"),
                Uuid::nil(),
                ErrorCode::UnknownTopicOrPartition,
                Some("This server does not host this topic-partition.")
            ),
        ]
    );
    encodes(&r, 6);
    assert_eq!(q.records().len(), before);
    assert!(c.image().read().topics().topic_by_name("orders").is_some());
}

#[tokio::test]
async fn duplicates_and_malformed_entries_are_refused() {
    let (c, q) = cluster(&[1], &[]).await;
    let a = create_topic(&c, "a", 1, 1, &[]).await;
    let b = create_topic(&c, "b", 1, 1, &[]).await;
    let cc = create_topic(&c, "c", 1, 1, &[]).await;
    let d = create_topic(&c, "d", 1, 1, &[]).await;
    let e = create_topic(&c, "e", 1, 1, &[]).await;
    let before = q.records().len();
    let invalid = ErrorCode::InvalidRequest;
    let r = c
        .delete_topics(
            6,
            &by_states(&[
                (Some("a"), Uuid::nil()),
                (Some("a"), Uuid::nil()),
                (None, b),
                (None, b),
                (Some("c"), cc),
                (None, Uuid::nil()),
                (None, d),
                (Some("d"), Uuid::nil()),
                (Some("e"), Uuid::nil()),
            ]),
        )
        .await;
    // Topic d, given by id and by name: the name is refused and the id
    // gets no answer (Kafka drops it).
    assert_eq!(
        deleted(&r),
        [
            row(
                None,
                Uuid::nil(),
                invalid,
                Some("Neither topic name nor id were specified.")
            ),
            row(None, b, invalid, Some("Duplicate topic id.")),
            row(
                Some("a"),
                Uuid::nil(),
                invalid,
                Some("Duplicate topic name.")
            ),
            row(
                Some("c"),
                cc,
                invalid,
                Some("You may not specify both topic name and topic id.")
            ),
            row(
                Some("d"),
                d,
                invalid,
                Some("The provided topic name maps to an ID that was already supplied.")
            ),
            row(Some("e"), e, ErrorCode::None, None),
        ]
    );
    encodes(&r, 6);
    assert_eq!(removed(&q.records()[before..]), [e]);
    {
        let image = c.image().read();
        for id in [a, b, cc, d] {
            assert!(image.topics().topic(&id).is_some());
        }
    }
    // Below v6, by names.
    let r = c.delete_topics(4, &by_names(&["a", "b", "a"])).await;
    assert_eq!(
        deleted(&r),
        [
            row(
                Some("a"),
                Uuid::nil(),
                invalid,
                Some("Duplicate topic name.")
            ),
            row(Some("b"), b, ErrorCode::None, None),
        ]
    );
    encodes(&r, 4);
}

#[tokio::test]
async fn remove_topic_records_follow_java_hash_map_order_of_ids() {
    let (c, q) = setup(Duration::from_secs(9));
    // Uuid(0, n) hashes to n: buckets 5, 3 and 4 of a 16-slot table.
    let ids: Vec<Uuid> = [21, 3, 36]
        .iter()
        .map(|n| Uuid::from_u64_pair(0, *n))
        .collect();
    for (i, id) in ids.iter().enumerate() {
        replay_topic(&q, &format!("t{i}"), *id, &[&[1]]);
    }
    let before = q.records().len();
    let r = c.delete_topics(5, &by_names(&["t0", "t1", "t2"])).await;
    assert!(r.responses.iter().all(|t| t.error_code == 0), "{r:?}");
    assert_eq!(removed(&q.records()[before..]), [ids[1], ids[2], ids[0]]);
}

fn grow(name: &str, count: i32, assignments: Option<Vec<Vec<i32>>>) -> CreatePartitionsTopic {
    CreatePartitionsTopic {
        name: name.into(),
        count,
        assignments: assignments.map(|a| {
            a.into_iter()
                .map(|broker_ids| CreatePartitionsAssignment {
                    broker_ids,
                    ..Default::default()
                })
                .collect()
        }),
        ..Default::default()
    }
}

fn grow_request(
    topics: Vec<CreatePartitionsTopic>,
    validate_only: bool,
) -> CreatePartitionsRequest {
    CreatePartitionsRequest {
        topics: topics.into(),
        timeout_ms: 5000,
        validate_only,
        ..Default::default()
    }
}

fn grown(r: &CreatePartitionsResponse) -> Vec<(String, i16, Option<String>)> {
    r.results
        .iter()
        .map(|t| {
            (
                t.name.as_str().to_owned(),
                t.error_code,
                t.error_message.as_ref().map(|m| m.as_str().to_owned()),
            )
        })
        .collect()
}

fn result(name: &str, code: ErrorCode, message: Option<&str>) -> (String, i16, Option<String>) {
    (name.to_owned(), code.code(), message.map(str::to_owned))
}

fn partition_records(records: &[MetadataRecord]) -> Vec<(PartitionRecord, i16)> {
    records
        .iter()
        .filter_map(|r| match &r.body {
            MetadataRecordBody::Partition(p) => Some((p.clone(), r.version)),
            _ => None,
        })
        .collect()
}

async fn grow_one(c: &Controller, topic: CreatePartitionsTopic) -> (String, i16, Option<String>) {
    let r = c.create_partitions(&grow_request(vec![topic], false)).await;
    assert_eq!(r.results.len(), 1, "{r:?}");
    grown(&r).remove(0)
}

#[tokio::test]
async fn create_partitions_grows_three_to_six_over_the_unfenced_brokers() {
    let (c, q) = cluster(&[1, 2, 3], &[4]).await;
    // Four replicas over three unfenced brokers and a fenced one: every
    // partition has broker 4 as a follower outside the ISR.
    let id = create_topic(&c, "orders", 3, 4, &[]).await;
    let before = q.records().len();
    assert_eq!(
        grow_one(&c, grow("orders", 6, None)).await,
        result("orders", ErrorCode::None, None)
    );
    let records = q.records();
    assert_eq!(records.len(), before + 3);
    let parts = partition_records(&records[before..]);
    assert_eq!(parts.len(), 3);
    for (i, (p, version)) in parts.iter().enumerate() {
        assert_eq!(*version, 2, "PartitionRecord v2 at 4.4-IV2");
        assert_eq!((p.partition_id, p.topic_id), (3 + i as i32, id));
        let mut sorted = p.replicas.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, [1, 2, 3, 4], "{p:?}");
        let isr: Vec<i32> = p.replicas.iter().copied().filter(|r| *r != 4).collect();
        assert_eq!(p.isr, isr, "the active replicas, in replica order");
        assert_eq!(p.leader, isr[0]);
        assert_eq!((p.leader_epoch, p.partition_epoch), (0, 0));
        let dirs: Vec<Uuid> = p.replicas.iter().map(|r| dir(*r)).collect();
        assert_eq!(p.directories, dirs);
        assert!(p.removing_replicas.is_empty() && p.adding_replicas.is_empty());
        assert!(p.eligible_leader_replicas.is_none() && p.last_known_elr.is_none());
    }
    let image = c.image().read();
    let topic = image.topics().topic(&id).unwrap();
    assert_eq!(topic.partition_count(), 6);
    let p5 = topic.partition(5).unwrap();
    assert_eq!(p5.leader(), parts[2].0.leader);
    assert_eq!(p5.isr().collect::<Vec<_>>(), parts[2].0.isr);
}

#[tokio::test]
async fn placement_failures_carry_the_placer_message() {
    let (c, q) = setup(Duration::from_secs(9));
    let id = Uuid::from_u64_pair(8, 8);
    replay_topic(&q, "wide", id, &[&[1, 2, 3]]);
    register(&c, &[1, 2], &[]).await;
    let before = q.records().len();
    assert_eq!(
        grow_one(&c, grow("wide", 2, None)).await,
        result(
            "wide",
            ErrorCode::InvalidReplicationFactor,
            Some("The target replication factor of 3 cannot be reached because only 2 broker(s) are registered or some brokers have all their log directories cordoned.")
        )
    );
    assert_eq!(q.records().len(), before);
}

#[tokio::test]
async fn partition_counts_that_do_not_grow_are_refused() {
    let (c, q) = cluster(&[1, 2, 3], &[]).await;
    create_topic(&c, "orders", 3, 2, &[]).await;
    let before = q.records().len();
    assert_eq!(
        grow_one(&c, grow("orders", 3, None)).await,
        result(
            "orders",
            ErrorCode::InvalidPartitions,
            Some("Topic already has 3 partition(s).")
        )
    );
    assert_eq!(
        grow_one(&c, grow("orders", 2, None)).await,
        result(
            "orders",
            ErrorCode::InvalidPartitions,
            Some("The topic orders currently has 3 partition(s); 2 would not be an increase.")
        )
    );
    assert_eq!(
        grow_one(&c, grow("nope", 4, None)).await,
        result("nope", ErrorCode::UnknownTopicOrPartition, None)
    );
    // A topic named twice is refused and answered first.
    let r = c
        .create_partitions(&grow_request(
            vec![
                grow("nope", 4, None),
                grow("orders", 4, None),
                grow("orders", 5, None),
            ],
            false,
        ))
        .await;
    assert_eq!(
        grown(&r),
        [
            result(
                "orders",
                ErrorCode::InvalidRequest,
                Some("Duplicate topic name.")
            ),
            result("nope", ErrorCode::UnknownTopicOrPartition, None),
        ]
    );
    assert_eq!(q.records().len(), before, "nothing written");
    assert_eq!(
        c.image()
            .read()
            .topics()
            .topic_by_name("orders")
            .unwrap()
            .partition_count(),
        3
    );
}

#[tokio::test]
async fn manual_assignments_are_checked_as_kafka_does() {
    let (c, q) = cluster(&[1, 2, 3], &[4, 5]).await;
    let id = create_topic(&c, "orders", 3, 2, &[]).await;
    let before = q.records().len();
    let refused = |m: &str| result("orders", ErrorCode::InvalidReplicaAssignment, Some(m));
    let cases: Vec<(i32, Vec<Vec<i32>>, &str)> = vec![
        (
            5,
            vec![vec![1, 2]],
            "Attempted to add 2 additional partition(s), but only 1 assignment(s) were specified.",
        ),
        (
            4,
            vec![],
            "Attempted to add 1 additional partition(s), but only 0 assignment(s) were specified.",
        ),
        (
            4,
            vec![vec![1]],
            "The manual partition assignment includes a partition with 1 replica(s), but this is not consistent with previous partitions, which have 2 replica(s).",
        ),
        (
            4,
            vec![vec![1, 9]],
            "The manual partition assignment includes broker 9, but no such broker is registered.",
        ),
        (
            4,
            vec![vec![2, 2]],
            "The manual partition assignment includes the broker 2 more than once.",
        ),
        (
            4,
            vec![vec![]],
            "The manual partition assignment includes an empty replica list.",
        ),
        (
            5,
            vec![vec![1, 2], vec![5, 4]],
            "All brokers specified in the manual partition assignment for partition 4 are fenced or in controlled shutdown.",
        ),
    ];
    for (count, assignments, message) in cases {
        assert_eq!(
            grow_one(&c, grow("orders", count, Some(assignments))).await,
            refused(message)
        );
    }
    assert_eq!(q.records().len(), before, "nothing written");
    assert_eq!(
        grow_one(&c, grow("orders", 5, Some(vec![vec![2, 4], vec![3, 1]]))).await,
        result("orders", ErrorCode::None, None)
    );
    type Built = (i32, Vec<i32>, Vec<i32>, i32, Vec<Uuid>);
    let parts: Vec<Built> = partition_records(&q.records()[before..])
        .into_iter()
        .map(|(p, _)| {
            assert_eq!(p.topic_id, id);
            (p.partition_id, p.replicas, p.isr, p.leader, p.directories)
        })
        .collect();
    assert_eq!(
        parts,
        [
            (3, vec![2, 4], vec![2], 2, vec![dir(2), dir(4)]),
            (4, vec![3, 1], vec![3, 1], 3, vec![dir(3), dir(1)]),
        ]
    );
}

#[tokio::test]
async fn validate_only_checks_and_writes_nothing() {
    let (c, q) = cluster(&[1, 2, 3], &[]).await;
    let id = create_topic(&c, "orders", 3, 2, &[]).await;
    let before = q.records().len();
    let r = c
        .create_partitions(&grow_request(
            vec![grow("orders", 6, None), grow("nope", 2, None)],
            true,
        ))
        .await;
    let mut answers = grown(&r);
    answers.sort();
    assert_eq!(
        answers,
        [
            result("nope", ErrorCode::UnknownTopicOrPartition, None),
            result("orders", ErrorCode::None, None),
        ]
    );
    let r = c
        .create_partitions(&grow_request(vec![grow("orders", 2, None)], true))
        .await;
    assert_eq!(
        grown(&r),
        [result(
            "orders",
            ErrorCode::InvalidPartitions,
            Some("The topic orders currently has 3 partition(s); 2 would not be an increase.")
        )]
    );
    assert_eq!(q.records().len(), before);
    assert_eq!(
        c.image()
            .read()
            .topics()
            .topic(&id)
            .unwrap()
            .partition_count(),
        3
    );
}

/// A quorum whose leader is node 2: this controller is a standby.
struct Standby;

#[async_trait]
impl RaftQuorum for Standby {
    fn facts(&self) -> QuorumFacts {
        QuorumFacts {
            leader_id: Some(2),
            epoch: 5,
            is_active_controller: false,
            kraft_version: 1,
            ..Default::default()
        }
    }

    async fn append(
        &self,
        _epoch: i32,
        _base_offset: Option<i64>,
        _records: Vec<MetadataRecord>,
    ) -> Result<PendingCommit, AppendError> {
        Err(AppendError::NotController { leader_id: Some(2) })
    }

    async fn wait_applied(&self, _offset: i64) -> Result<(), AppendError> {
        Ok(())
    }

    async fn upgrade_kraft_version(&self, _: i32, _: i16, _: bool) -> Result<(), ApiError> {
        Ok(())
    }
}

fn standby(image: SharedImage) -> Controller {
    Controller::new(
        ControllerSettings {
            node_id: 1,
            cluster_id: CLUSTER_ID.to_string(),
            static_voter_ids: Vec::new(),
            unstable_feature_versions: false,
            unstable_api_versions: false,
            broker_session_timeout: Duration::from_secs(9),
            broker_heartbeat_interval: Duration::from_millis(2000),
            topics: Default::default(),
            authorizer: None,
            delegation_tokens: Default::default(),
            groups: Default::default(),
            static_configs: Default::default(),
            mutation_quota_window: Default::default(),
            performance: Default::default(),
        },
        image,
        Arc::new(Standby),
    )
}

#[tokio::test]
async fn a_standby_answers_not_controller_for_every_topic() {
    let image = SharedImage::new();
    let id = Uuid::from_u64_pair(3, 4);
    let records = [
        MetadataRecord::feature_level("metadata.version", 33),
        MetadataRecord::new(
            TopicRecord {
                name: "orders".into(),
                topic_id: id,
                ..Default::default()
            },
            0,
        ),
    ];
    image
        .apply_committed(
            records
                .iter()
                .enumerate()
                .map(|(i, r)| (i as i64, Bytes::from(r.encode().unwrap()))),
        )
        .unwrap();
    let c = standby(image);
    let not_controller = ErrorCode::NotController;
    // The write fails: every topic of the request, without a message.
    let r = c
        .delete_topics(6, &by_states(&[(None, id), (Some("x"), Uuid::nil())]))
        .await;
    assert_eq!(
        deleted(&r),
        [
            row(None, id, not_controller, None),
            row(Some("x"), Uuid::nil(), not_controller, None),
        ]
    );
    encodes(&r, 6);
    // Nothing to delete: Kafka answers from its committed state alone.
    let r = c.delete_topics(5, &by_names(&["x"])).await;
    assert_eq!(deleted(&r)[0].2, ErrorCode::UnknownTopicOrPartition.code());
    let r = c
        .create_partitions(&grow_request(
            vec![grow("orders", 2, None), grow("other", 3, None)],
            false,
        ))
        .await;
    let message = Some("The active controller appears to be node 2.");
    assert_eq!(
        grown(&r),
        [
            result("orders", not_controller, message),
            result("other", not_controller, message),
        ]
    );
    // Not loaded yet: NOT_CONTROLLER before anything is read.
    let c = standby(SharedImage::unloaded());
    let r = c.delete_topics(5, &by_names(&["x"])).await;
    assert_eq!(
        deleted(&r),
        [row(Some("x"), Uuid::nil(), not_controller, None)]
    );
}

/// CreateTopics and IncrementalAlterConfigs check `remote.storage.enable`
/// against the controller's own `remote.log.storage.system.enable`, read
/// from its configuration file as Kafka's `ControllerConfigurationValidator`
/// reads its `KafkaConfig`; the file's `log.retention.ms` stands in for the
/// topic's unset `retention.ms` in the local-retention check.
#[tokio::test]
async fn tiered_storage_follows_the_controllers_static_config() {
    let (c, q) = cluster(&[1, 2, 3], &[]).await;
    let remote = [("remote.storage.enable", "true")];
    let refused = c
        .create_topics(&create_request("tiered", 1, 1, &remote))
        .await;
    let t = refused.topics.first().expect("one result");
    assert_eq!(
        (t.error_code, t.error_message.as_ref().map(|m| m.as_str())),
        (
            ErrorCode::InvalidConfig.code(),
            Some("Tiered Storage functionality is disabled in the broker. Topic cannot be configured with remote log storage.")
        )
    );
    let mut settings = c.settings().clone();
    settings.static_configs = crate::config::StaticProperties(vec![
        ("remote.log.storage.system.enable".into(), "true".into()),
        ("log.retention.ms".into(), "60000".into()),
    ]);
    let tiered = Controller::new(settings, c.image().clone(), q.clone());
    create_topic(&tiered, "tiered", 1, 1, &remote).await;
    // local.retention.ms above the file's log.retention.ms is refused.
    let err = tiered
        .create_topics(&create_request(
            "local",
            1,
            1,
            &[
                ("remote.storage.enable", "true"),
                ("local.retention.ms", "60001"),
            ],
        ))
        .await;
    let t = err.topics.first().expect("one result");
    assert_eq!(
        t.error_message.as_ref().map(|m| m.as_str()),
        Some("Invalid value 60001 for configuration local.retention.ms: Value must not be more than retention.ms property value: 60000")
    );
}
