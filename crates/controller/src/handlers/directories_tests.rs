//! Replica directories (KIP-858, KIP-1066): the directory cases of Kafka
//! 4.4's `ReplicationControlManagerTest` (assignment, offline and cordoned
//! directories) re-expressed over test images and through the handlers,
//! with the answers, records and states Kafka's tests assert.

use std::time::Duration;

use kraft_protocol::messages::assign_replicas_to_dirs_request::{
    AssignReplicasToDirsRequest, DirectoryData, PartitionData, TopicData,
};
use kraft_protocol::messages::assign_replicas_to_dirs_response::AssignReplicasToDirsResponse;
use kraft_protocol::messages::broker_registration_change_record::BrokerRegistrationChangeRecord;
use kraft_protocol::messages::create_topics_request::{
    CreatableReplicaAssignment, CreatableTopic, CreateTopicsRequest,
};
use kraft_protocol::messages::partition_change_record::PartitionChangeRecord;
use kraft_protocol::{ErrorCode, MetadataRecordBody, Uuid};

use super::broker_tests::{heartbeat, registration, setup, GatedQuorum};
use super::directories::assign_replicas_to_dirs;
use super::topic_admin_tests::create_request;
use super::Controller;
use crate::image::{MetadataImage, MetadataRecord};
use crate::replication::broker_changes::ReplicationSettings;
use crate::replication::test_support::{mv_named, uuid, ImageBuilder, TestBroker};
use crate::replication::{PartitionState, LOST, MIGRATING, UNASSIGNED};

/// The PartitionChangeRecord version from metadata.version 3.7-IV2 on
/// (Kafka's `partitionChangeRecordVersion` once directories are assigned).
const CHANGE_VERSION: i16 = 2;

fn settings() -> ReplicationSettings {
    ReplicationSettings::new(1, 1)
}

/// Kafka's `defaultBrokerEpoch` in its tests, which the test images use.
fn epoch_of(broker: i32) -> i64 {
    100 + i64::from(broker)
}

/// Directory -> topic -> partitions, in request order.
type Assignment = Vec<(Uuid, Vec<(Uuid, Vec<i32>)>)>;

fn request(broker: i32, epoch: i64, assignment: Assignment) -> AssignReplicasToDirsRequest {
    AssignReplicasToDirsRequest {
        broker_id: broker,
        broker_epoch: epoch,
        directories: assignment
            .into_iter()
            .map(|(id, topics)| DirectoryData {
                id,
                topics: topics
                    .into_iter()
                    .map(|(topic_id, partitions)| TopicData {
                        topic_id,
                        partitions: partitions
                            .into_iter()
                            .map(|partition_index| PartitionData {
                                partition_index,
                                ..Default::default()
                            })
                            .collect(),
                        ..Default::default()
                    })
                    .collect(),
                ..Default::default()
            })
            .collect(),
        ..Default::default()
    }
}

/// (directory, topic, partition, error code) of each answer, in order.
fn answers(r: &AssignReplicasToDirsResponse) -> Vec<(Uuid, Uuid, i32, i16)> {
    let mut out = Vec::new();
    for d in r.directories.iter() {
        for t in d.topics.iter() {
            for p in t.partitions.iter() {
                out.push((d.id, t.topic_id, p.partition_index, p.error_code));
            }
        }
    }
    out
}

fn change(r: &MetadataRecord) -> PartitionChangeRecord {
    match &r.body {
        MetadataRecordBody::PartitionChange(c) => c.clone(),
        other => panic!("not a PartitionChangeRecord: {other:?}"),
    }
}

fn directories_change(topic_id: Uuid, partition_id: i32, dirs: &[Uuid]) -> MetadataRecord {
    MetadataRecord::new(
        PartitionChangeRecord {
            topic_id,
            partition_id,
            directories: Some(dirs.to_vec()),
            ..Default::default()
        },
        CHANGE_VERSION,
    )
}

fn leader_change(topic_id: Uuid, partition_id: i32, leader: i32, isr: &[i32]) -> MetadataRecord {
    MetadataRecord::new(
        PartitionChangeRecord {
            topic_id,
            partition_id,
            leader,
            isr: Some(isr.to_vec()),
            ..Default::default()
        },
        CHANGE_VERSION,
    )
}

/// Kafka's `sortPartitionChangeRecords`: a stable sort by topic and
/// partition, so records of one partition keep their order.
fn sorted(mut records: Vec<MetadataRecord>) -> Vec<MetadataRecord> {
    records.sort_by_key(|r| {
        let c = change(r);
        (c.topic_id, c.partition_id)
    });
    records
}

fn part(image: &MetadataImage, topic: Uuid, partition: i32) -> PartitionState {
    PartitionState::of(
        image
            .topics()
            .partition(&topic, partition)
            .expect("the partition"),
    )
}

const DIR1B1: &str = "hO2YI5bgRUmByNPHiHxjNQ";
const DIR2B1: &str = "R3Gb1HLoTzuKMgAkH5Vtpw";
const DIR1B2: &str = "TBGa8UayQi6KguqF5nC0sw";
const OFFLINE_DIR: &str = "zvAf9BKZRyyrEWz4FX2nLA";

fn topic_a() -> Uuid {
    Uuid::from_u64_pair(0xa, 1)
}
fn topic_b() -> Uuid {
    Uuid::from_u64_pair(0xb, 1)
}
fn topic_c() -> Uuid {
    Uuid::from_u64_pair(0xc, 1)
}

/// Kafka's setting of `testHandleAssignReplicasToDirs`: broker 1 with two
/// directories, broker 2 with one, both unfenced; topics `a` (3 partitions
/// on 1, 2), `b` (2 partitions on 1, 2) and `c` (1 partition on 2), created
/// with broker 1's replicas UNASSIGNED and broker 2's in its directory.
fn two_dir_image(level: i16) -> MetadataImage {
    let one = [1, 2];
    ImageBuilder::new(level, false)
        .broker(TestBroker {
            directories: vec![uuid(DIR1B1), uuid(DIR2B1)],
            ..TestBroker::new(1)
        })
        .broker(TestBroker {
            directories: vec![uuid(DIR1B2)],
            ..TestBroker::new(2)
        })
        .topic("a", topic_a(), &[&one, &one, &one])
        .topic("b", topic_b(), &[&one, &one])
        .topic("c", topic_c(), &[&[2]])
        .build()
}

#[test]
fn the_image_places_multi_directory_replicas_unassigned() {
    // The premise of the cases below, as Kafka's default directory gives it.
    let image = two_dir_image(33);
    assert_eq!(
        part(&image, topic_a(), 0).directories,
        [UNASSIGNED, uuid(DIR1B2)]
    );
}

#[test]
fn assignments_answer_each_partition_and_move_leaders_off_directories_not_online() {
    let mut image = two_dir_image(33);
    let (d1, d2, d1b2, offline) = (uuid(DIR1B1), uuid(DIR2B1), uuid(DIR1B2), uuid(OFFLINE_DIR));
    let unknown_topic = uuid("nLU9hKNXSZuMe5PO2A4dVQ");
    let (a, b, c) = (topic_a(), topic_b(), topic_c());
    let req = request(
        1,
        epoch_of(1),
        vec![
            (d1, vec![(a, vec![0, 137]), (b, vec![0]), (c, vec![0])]),
            (d2, vec![(a, vec![1]), (unknown_topic, vec![1])]),
            (offline, vec![(a, vec![2])]),
            (LOST, vec![(b, vec![1])]),
        ],
    );
    let generated = assign_replicas_to_dirs(&image, &settings(), &req).expect("answered");
    assert_eq!(generated.result.error_code, 0);
    let none = ErrorCode::None.code();
    assert_eq!(
        answers(&generated.result),
        [
            (d1, a, 0, none),
            (d1, a, 137, ErrorCode::UnknownTopicOrPartition.code()),
            (d1, b, 0, none),
            (d1, c, 0, ErrorCode::NotLeaderOrFollower.code()),
            (d2, a, 1, none),
            (d2, unknown_topic, 1, ErrorCode::UnknownTopicId.code()),
            (offline, a, 2, none),
            (LOST, b, 1, none),
        ]
    );
    assert_eq!(
        sorted(generated.records.clone()),
        sorted(vec![
            directories_change(a, 0, &[d1, d1b2]),
            directories_change(a, 1, &[d2, d1b2]),
            directories_change(a, 2, &[offline, d1b2]),
            directories_change(b, 0, &[d1, d1b2]),
            directories_change(b, 1, &[LOST, d1b2]),
            // The replicas put in a directory that is not online (unknown
            // to the broker, or LOST) give up their ISR place and lead.
            leader_change(a, 2, 2, &[2]),
            leader_change(b, 1, 2, &[2]),
        ])
    );
    for r in &generated.records {
        image.replay(r).expect("replays");
    }
    for (topic, partition, leader) in [
        (a, 0, 1),
        (a, 1, 1),
        (b, 0, 1),
        (a, 2, 2),
        (b, 1, 2),
        (c, 0, 2),
    ] {
        assert_eq!(
            part(&image, topic, partition).leader,
            leader,
            "{topic}-{partition}"
        );
    }
    assert_eq!(part(&image, a, 2).directories, [offline, d1b2]);
    assert_eq!(part(&image, a, 2).isr, [2]);
}

#[test]
fn a_replica_already_in_the_directory_writes_nothing_and_unassigned_or_migrating_stay_online() {
    let mut image = two_dir_image(33);
    let (d1, d1b2, a) = (uuid(DIR1B1), uuid(DIR1B2), topic_a());
    let assign = |image: &MetadataImage, dir: Uuid| {
        let g = assign_replicas_to_dirs(
            image,
            &settings(),
            &request(1, epoch_of(1), vec![(dir, vec![(a, vec![0])])]),
        )
        .expect("answered");
        assert_eq!(answers(&g.result), [(dir, a, 0, 0)]);
        g.records
    };
    let records = assign(&image, d1);
    assert_eq!(records, [directories_change(a, 0, &[d1, d1b2])]);
    image.replay(&records[0]).expect("replays");
    assert!(assign(&image, d1).is_empty(), "already there");
    // UNASSIGNED and MIGRATING are online: no leadership moves.
    for dir in [UNASSIGNED, MIGRATING] {
        assert_eq!(
            assign(&image, dir),
            [directories_change(a, 0, &[dir, d1b2])]
        );
    }
}

#[test]
fn requests_fail_as_a_whole_below_directory_assignment_and_for_a_stale_broker() {
    let old = two_dir_image(mv_named("3.7-IV1").feature_level());
    let req = request(
        1,
        epoch_of(1),
        vec![(uuid(DIR1B1), vec![(topic_a(), vec![0])])],
    );
    let e = assign_replicas_to_dirs(&old, &settings(), &req)
        .err()
        .expect("refused");
    assert_eq!(e.code, ErrorCode::UnsupportedVersion);
    assert_eq!(
        e.message.as_deref(),
        Some("Directory assignment is not supported yet.")
    );

    let image = two_dir_image(33);
    let e = assign_replicas_to_dirs(&image, &settings(), &request(1, 7, vec![]))
        .err()
        .expect("refused");
    assert_eq!(e.code, ErrorCode::StaleBrokerEpoch);
    assert_eq!(
        e.message.as_deref(),
        Some("Expected broker epoch 101, but got broker epoch 7")
    );
    let e = assign_replicas_to_dirs(&image, &settings(), &request(9, 109, vec![]))
        .err()
        .expect("refused");
    assert_eq!(e.code, ErrorCode::StaleBrokerEpoch);
    assert_eq!(
        e.message.as_deref(),
        Some("No broker registration found for broker id 9")
    );
}

// ---- through the handlers

/// Registers `broker` with `dirs` and unfences it; returns its epoch.
async fn register(c: &Controller, broker: i32, dirs: &[Uuid]) -> i64 {
    let mut r = registration(broker, 1);
    r.log_dirs = dirs.to_vec();
    let answer = c.broker_registration(4, &r).await;
    assert_eq!(answer.error_code, 0, "broker {broker}");
    let hb = c
        .broker_heartbeat(&heartbeat(broker, answer.broker_epoch, 100_000))
        .await;
    assert_eq!((hb.error_code, hb.is_fenced), (0, false), "broker {broker}");
    answer.broker_epoch
}

/// Creates `name` with the given replicas per partition; returns its id.
async fn create(c: &Controller, name: &str, assignment: &[&[i32]]) -> Uuid {
    let r = c
        .create_topics(&CreateTopicsRequest {
            topics: vec![CreatableTopic {
                name: name.into(),
                num_partitions: -1,
                replication_factor: -1,
                assignments: assignment
                    .iter()
                    .enumerate()
                    .map(|(i, replicas)| CreatableReplicaAssignment {
                        partition_index: i as i32,
                        broker_ids: replicas.to_vec(),
                        ..Default::default()
                    })
                    .collect(),
                ..Default::default()
            }]
            .into(),
            timeout_ms: 5000,
            ..Default::default()
        })
        .await;
    assert_eq!(r.topics.single().map(|t| t.error_code), Some(0), "{r:?}");
    c.image().read().topics().topic_id(name).expect("created")
}

fn written_since(q: &GatedQuorum, mark: usize) -> Vec<MetadataRecord> {
    q.records()[mark..].to_vec()
}

fn registration_changes(records: &[MetadataRecord]) -> Vec<(BrokerRegistrationChangeRecord, i16)> {
    records
        .iter()
        .filter_map(|r| match &r.body {
            MetadataRecordBody::BrokerRegistrationChange(c) => Some((c.clone(), r.version)),
            _ => None,
        })
        .collect()
}

fn partition_changes(records: &[MetadataRecord]) -> Vec<MetadataRecord> {
    records
        .iter()
        .filter(|r| matches!(r.body, MetadataRecordBody::PartitionChange(_)))
        .cloned()
        .collect()
}

/// Kafka's `testHandleDirectoriesOffline`, with the offline directories
/// reported in a heartbeat: the replicas in the failed directory leave
/// their ISR and leadership, and the broker's registration keeps only the
/// directories still online. A directory of another broker is ignored.
#[tokio::test]
async fn a_heartbeats_offline_directory_moves_leaders_off_its_replicas() {
    let (c, q) = setup(Duration::from_secs(9));
    let (b1, b2) = (101, 102);
    let dir1b1 = uuid("suitdzfTTdqoWcy8VqmkUg");
    let dir2b1 = uuid("yh3acnzGSeurSTj8aIhOjw");
    let dir1b2 = uuid("OmpmJ8RjQliQlEFht56DwQ");
    let dir2b2 = uuid("w05baLpsT5Oz0LvKTKXoDw");
    let e1 = register(&c, b1, &[dir1b1, dir2b1]).await;
    let e2 = register(&c, b2, &[dir1b2, dir2b2]).await;
    let a = create(&c, "a", &[&[b1, b2], &[b1, b2]]).await;
    let b = create(&c, "b", &[&[b1, b2], &[b1, b2]]).await;
    for (broker, epoch, first, second) in [(b1, e1, dir1b1, dir2b1), (b2, e2, dir1b2, dir2b2)] {
        let r = c
            .assign_replicas_to_dirs(&request(
                broker,
                epoch,
                vec![
                    (first, vec![(a, vec![0]), (b, vec![0])]),
                    (second, vec![(a, vec![1]), (b, vec![1])]),
                ],
            ))
            .await;
        assert_eq!(r.error_code, 0);
        assert!(
            answers(&r).iter().all(|(_, _, _, code)| *code == 0),
            "{r:?}"
        );
    }
    assert_eq!(part(&c.image().read(), a, 0).directories, [dir1b1, dir1b2]);

    let mark = q.records().len();
    let mut hb = heartbeat(b1, e1, 100_000);
    hb.offline_log_dirs = vec![dir1b1, dir1b2];
    let r = c.broker_heartbeat(&hb).await;
    assert_eq!((r.error_code, r.is_fenced), (0, false));
    let written = written_since(&q, mark);
    assert_eq!(written.len(), 3, "{written:?}");
    assert_eq!(
        registration_changes(&written),
        [(
            BrokerRegistrationChangeRecord {
                broker_id: b1,
                broker_epoch: e1,
                log_dirs: vec![dir2b1],
                ..Default::default()
            },
            2
        )]
    );
    assert_eq!(
        sorted(partition_changes(&written)),
        sorted(vec![
            leader_change(a, 0, b2, &[b2]),
            leader_change(b, 0, b2, &[b2]),
        ])
    );
    {
        let image = c.image().read();
        assert_eq!(
            image.cluster().broker(b1).expect("b1").directories(),
            [dir2b1]
        );
        assert_eq!(
            part(&image, a, 1).leader,
            b1,
            "the other directory keeps its leaders"
        );
    }

    // The directory is no longer registered: reporting it again changes nothing.
    let mark = q.records().len();
    assert_eq!(c.broker_heartbeat(&hb).await.error_code, 0);
    assert!(written_since(&q, mark).is_empty());
}

/// Kafka's `testHandleDirectoriesCordoned`, through heartbeats: null
/// cordoned directories change nothing, a changed set is recorded (version
/// 3), the same set again is not.
#[tokio::test]
async fn heartbeats_record_cordoned_directories_when_they_change() {
    let (c, q) = setup(Duration::from_secs(9));
    let b1 = 101;
    let dir1b1 = uuid("suitdzfTTdqoWcy8VqmkUg");
    let dir2b1 = uuid("yh3acnzGSeurSTj8aIhOjw");
    let e1 = register(&c, b1, &[dir1b1, dir2b1]).await;
    let cordoned = |c: &Controller| {
        c.image()
            .read()
            .cluster()
            .broker(b1)
            .expect("b1")
            .cordoned_directories()
            .map(<[Uuid]>::to_vec)
    };
    assert_eq!(cordoned(&c), None);
    let beat = |dirs: Option<Vec<Uuid>>| {
        let mut hb = heartbeat(b1, e1, 100_000);
        hb.cordoned_log_dirs = dirs;
        hb
    };
    let record = |dirs: Vec<Uuid>| {
        (
            BrokerRegistrationChangeRecord {
                broker_id: b1,
                broker_epoch: e1,
                cordoned_log_dirs: Some(dirs),
                ..Default::default()
            },
            3,
        )
    };
    // (cordoned directories sent, the record's cordoned directories)
    type Step = (Option<Vec<Uuid>>, Option<Vec<Uuid>>);
    let steps: [Step; 5] = [
        (None, None),
        (Some(vec![dir1b1]), Some(vec![dir1b1])),
        (Some(vec![dir1b1]), None),
        (Some(vec![dir2b1, dir1b1]), Some(vec![dir2b1, dir1b1])),
        (Some(vec![]), Some(vec![])),
    ];
    let mut expected_state = None;
    for (sent, recorded) in steps {
        let mark = q.records().len();
        assert_eq!(c.broker_heartbeat(&beat(sent.clone())).await.error_code, 0);
        let written = written_since(&q, mark);
        match recorded {
            None => assert!(written.is_empty(), "{sent:?}: {written:?}"),
            Some(dirs) => {
                assert_eq!(written.len(), 1, "{sent:?}");
                assert_eq!(registration_changes(&written), [record(dirs.clone())]);
                expected_state = Some(dirs);
            }
        }
        assert_eq!(cordoned(&c), expected_state, "{sent:?}");
    }
}

/// KIP-1066: a broker whose directories are all cordoned gets no new
/// replicas; one with an uncordoned directory still does.
#[tokio::test]
async fn placement_skips_a_broker_whose_directories_are_all_cordoned() {
    let (c, _q) = setup(Duration::from_secs(9));
    let dirs1 = [Uuid::from_u64_pair(5, 1), Uuid::from_u64_pair(5, 2)];
    let dirs2 = [Uuid::from_u64_pair(6, 1), Uuid::from_u64_pair(6, 2)];
    let e1 = register(&c, 1, &dirs1).await;
    let e2 = register(&c, 2, &dirs2).await;
    let mut hb = heartbeat(1, e1, 100_000);
    hb.cordoned_log_dirs = Some(dirs1.to_vec());
    assert_eq!(c.broker_heartbeat(&hb).await.error_code, 0);
    let mut hb = heartbeat(2, e2, 100_000);
    hb.cordoned_log_dirs = Some(vec![dirs2[0]]);
    assert_eq!(c.broker_heartbeat(&hb).await.error_code, 0);

    let create =
        |name: &str, replication_factor: i16| create_request(name, 4, replication_factor, &[]);
    let r = c.create_topics(&create("two", 2)).await;
    let t = r.topics.single().expect("one topic");
    assert_eq!(t.error_code, ErrorCode::InvalidReplicationFactor.code());
    assert_eq!(
        t.error_message.as_ref().map(|m| m.as_str()),
        Some("Unable to replicate the partition 2 time(s): The target replication factor of 2 cannot be reached because only 1 broker(s) are registered or some brokers have all their log directories cordoned.")
    );
    let r = c.create_topics(&create("one", 1)).await;
    assert_eq!(r.topics.single().map(|t| t.error_code), Some(0), "{r:?}");
    let image = c.image().read();
    let topic = image.topics().topic_by_name("one").expect("created");
    assert!(topic.partitions().all(|(_, p)| p.replicas().eq([2])));
}

/// The request fails as a whole with only the top-level code, as Kafka's
/// `getErrorResponse` answers: a stale epoch, and NOT_CONTROLLER when the
/// write is refused because leadership moved.
#[tokio::test]
async fn whole_request_failures_carry_only_the_top_level_code() {
    let (c, q) = setup(Duration::from_secs(9));
    let dirs = [Uuid::from_u64_pair(5, 1), Uuid::from_u64_pair(5, 2)];
    let epoch = register(&c, 1, &dirs).await;
    let t = create(&c, "t", &[&[1]]).await;
    let req = |epoch| request(1, epoch, vec![(dirs[1], vec![(t, vec![0])])]);
    let r = c.assign_replicas_to_dirs(&req(epoch + 1)).await;
    assert_eq!(
        r,
        AssignReplicasToDirsResponse {
            error_code: ErrorCode::StaleBrokerEpoch.code(),
            ..Default::default()
        }
    );
    q.refuse_appends(true);
    let r = c.assign_replicas_to_dirs(&req(epoch)).await;
    assert_eq!(r.error_code, ErrorCode::NotController.code());
    assert!(r.directories.is_empty());
    q.refuse_appends(false);
    let r = c.assign_replicas_to_dirs(&req(epoch)).await;
    assert_eq!(answers(&r), [(dirs[1], t, 0, 0)]);
    assert_eq!(part(&c.image().read(), t, 0).directories, [dirs[1]]);
}
