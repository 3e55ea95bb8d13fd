//! Partition reassignments: the reassignment cases of Kafka 4.4's
//! `ReplicationControlManagerTest` over test images (the expected answers,
//! records and partition states are the ones Kafka's tests assert), more
//! refusals Kafka makes, and the whole course of a reassignment through the
//! handlers over a gated in-memory quorum.

use kraft_protocol::messages::alter_partition_reassignments_request::{
    AlterPartitionReassignmentsRequest, ReassignablePartition, ReassignableTopic,
};
use kraft_protocol::messages::alter_partition_reassignments_response::AlterPartitionReassignmentsResponse;
use kraft_protocol::messages::alter_partition_request::{
    AlterPartitionRequest, BrokerState, PartitionData, TopicData,
};
use kraft_protocol::messages::list_partition_reassignments_request::{
    ListPartitionReassignmentsRequest, ListPartitionReassignmentsTopics,
};
use kraft_protocol::messages::list_partition_reassignments_response::ListPartitionReassignmentsResponse;
use kraft_protocol::messages::partition_change_record::PartitionChangeRecord;
use kraft_protocol::{ErrorCode, MetadataRecordBody, Uuid};

use super::broker_tests::{heartbeat, registration};
use super::configs_tests::{cluster, create_topic};
use super::reassignments::{alter_partition_reassignments, list_partition_reassignments};
use crate::image::{MetadataImage, MetadataRecord};
use crate::replication::broker_changes::ReplicationSettings;
use crate::replication::partition_change::{Election, PartitionChange};
use crate::replication::test_support::{broker_dir, partition, uuid, ImageBuilder, TestBroker};
use crate::replication::PartitionState;

const LEVEL: i16 = 33;

fn settings() -> ReplicationSettings {
    ReplicationSettings::new(1, 1)
}

/// A request; `None` replicas cancel.
/// A topic's partitions and their target replicas (`None`: cancel).
type Targets<'a> = (&'a str, Vec<(i32, Option<Vec<i32>>)>);

fn request(
    topics: Vec<Targets<'_>>,
    allow_replication_factor_change: bool,
) -> AlterPartitionReassignmentsRequest {
    AlterPartitionReassignmentsRequest {
        timeout_ms: 5000,
        allow_replication_factor_change,
        topics: topics
            .into_iter()
            .map(|(name, partitions)| ReassignableTopic {
                name: name.into(),
                partitions: partitions
                    .into_iter()
                    .map(|(partition_index, replicas)| ReassignablePartition {
                        partition_index,
                        replicas,
                        ..Default::default()
                    })
                    .collect(),
                ..Default::default()
            })
            .collect(),
        ..Default::default()
    }
}

type Outcome = (String, i32, i16, Option<String>);

/// (topic, partition, error code, message) of each answer, in order.
fn outcomes(r: &AlterPartitionReassignmentsResponse) -> Vec<Outcome> {
    r.responses
        .iter()
        .flat_map(|t| {
            t.partitions
                .iter()
                .map(|p| {
                    (
                        t.name.as_str().to_owned(),
                        p.partition_index,
                        p.error_code,
                        p.error_message.as_ref().map(|m| m.as_str().to_owned()),
                    )
                })
                .collect::<Vec<_>>()
        })
        .collect()
}

fn ok(topic: &str, partition: i32) -> Outcome {
    (topic.to_owned(), partition, 0, None)
}

fn failed(topic: &str, partition: i32, code: ErrorCode, message: Option<&str>) -> Outcome {
    (
        topic.to_owned(),
        partition,
        code.code(),
        message.map(str::to_owned),
    )
}

/// Runs the request against `image` and applies its records; returns the
/// records' bodies and the answer.
fn alter(
    image: &mut MetadataImage,
    request: &AlterPartitionReassignmentsRequest,
) -> (
    Vec<PartitionChangeRecord>,
    AlterPartitionReassignmentsResponse,
) {
    let generated = alter_partition_reassignments(image, &settings(), request);
    let bodies = generated.records.iter().map(change).collect();
    for r in &generated.records {
        image.replay(r).expect("replays");
    }
    assert!(
        generated.result.error_message.is_none(),
        "the top-level message is null"
    );
    assert_eq!(generated.result.error_code, 0);
    (bodies, generated.result)
}

fn change(r: &MetadataRecord) -> PartitionChangeRecord {
    match &r.body {
        MetadataRecordBody::PartitionChange(c) => c.clone(),
        other => panic!("unexpected {other:?}"),
    }
}

/// (topic, partition, replicas, adding, removing) of each listed
/// reassignment.
type Listed = (String, i32, Vec<i32>, Vec<i32>, Vec<i32>);

fn listed(image: &MetadataImage, topics: Option<Vec<(&str, Vec<i32>)>>) -> Vec<Listed> {
    let request = ListPartitionReassignmentsRequest {
        timeout_ms: 5000,
        topics: topics.map(|topics| {
            topics
                .into_iter()
                .map(
                    |(name, partition_indexes)| ListPartitionReassignmentsTopics {
                        name: name.into(),
                        partition_indexes,
                        ..Default::default()
                    },
                )
                .collect()
        }),
        ..Default::default()
    };
    let r = list_partition_reassignments(image, &request);
    assert_eq!((r.error_code, &r.error_message), (0, &None));
    flatten(&r)
}

fn flatten(r: &ListPartitionReassignmentsResponse) -> Vec<Listed> {
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

fn reassigning(
    topic: &str,
    index: i32,
    replicas: &[i32],
    adding: &[i32],
    removing: &[i32],
) -> Listed {
    (
        topic.to_owned(),
        index,
        replicas.to_vec(),
        adding.to_vec(),
        removing.to_vec(),
    )
}

fn state(image: &MetadataImage, topic: &str, index: i32) -> PartitionState {
    PartitionState::of(
        image
            .topics()
            .topic_by_name(topic)
            .and_then(|t| t.partition(index))
            .expect("partition"),
    )
}

fn dirs(replicas: &[i32]) -> Vec<Uuid> {
    replicas.iter().map(|r| broker_dir(*r)).collect()
}

const FOO: &str = "foo";
const BAR: &str = "bar";

fn foo_id() -> Uuid {
    uuid("Tx4tPEtaaXiHlqW0w9Lh8A")
}

fn bar_id() -> Uuid {
    uuid("emtcTT4vEAGejXxrWkk4Jw")
}

/// `testReassignPartitions`: a reordering completes at once, a move waits
/// for its new replica, unknown partitions and empty topics are answered,
/// and cancelling puts the original replicas back.
#[test]
fn reassign_then_cancel() {
    let mut image = ImageBuilder::new(LEVEL, false)
        .brokers(&[0, 1, 2, 3])
        .topic(FOO, foo_id(), &[&[1, 2, 3], &[3, 2, 1]])
        .topic(BAR, bar_id(), &[&[1, 2, 3]])
        .build();
    assert_eq!(listed(&image, None), []);
    let (records, r) = alter(
        &mut image,
        &request(
            vec![
                (
                    FOO,
                    vec![
                        (0, Some(vec![3, 2, 1])),
                        (1, Some(vec![0, 2, 1])),
                        (2, Some(vec![0, 2, 1])),
                    ],
                ),
                (BAR, vec![]),
            ],
            true,
        ),
    );
    assert!(r.allow_replication_factor_change);
    assert_eq!(
        outcomes(&r),
        [
            ok(FOO, 0),
            ok(FOO, 1),
            failed(
                FOO,
                2,
                ErrorCode::UnknownTopicOrPartition,
                Some("Unable to find partition foo:2.")
            ),
        ]
    );
    let names: Vec<String> = r
        .responses
        .iter()
        .map(|t| t.name.as_str().to_owned())
        .collect();
    assert_eq!(names, [FOO, BAR], "a topic without partitions is answered");
    assert_eq!(records.len(), 2);
    // The reordering: new replicas, nothing moving.
    assert_eq!(state(&image, FOO, 0).replicas, [3, 2, 1]);
    assert_eq!(state(&image, FOO, 0).directories, dirs(&[3, 2, 1]));
    let moving = reassigning(FOO, 1, &[0, 2, 1, 3], &[0], &[3]);
    assert_eq!(listed(&image, None), std::slice::from_ref(&moving));
    assert_eq!(listed(&image, Some(vec![(BAR, vec![0, 1, 2])])), []);
    assert_eq!(listed(&image, Some(vec![(FOO, vec![0, 1, 2])])), [moving]);

    let (records, r) = alter(
        &mut image,
        &request(
            vec![
                (FOO, vec![(0, None), (1, None), (2, None)]),
                (BAR, vec![(0, None)]),
            ],
            true,
        ),
    );
    assert_eq!(
        outcomes(&r),
        [
            failed(FOO, 0, ErrorCode::NoReassignmentInProgress, None),
            ok(FOO, 1),
            failed(
                FOO,
                2,
                ErrorCode::UnknownTopicOrPartition,
                Some("Unable to find partition foo:2.")
            ),
            failed(BAR, 0, ErrorCode::NoReassignmentInProgress, None),
        ]
    );
    assert_eq!(
        records,
        [PartitionChangeRecord {
            topic_id: foo_id(),
            partition_id: 1,
            replicas: Some(vec![2, 1, 3]),
            directories: Some(dirs(&[2, 1, 3])),
            leader: 3,
            removing_replicas: Some(vec![]),
            adding_replicas: Some(vec![]),
            ..Default::default()
        }]
    );
    assert_eq!(listed(&image, None), []);
}

/// `testAlterPartitionDisallowReplicationFactorChange` (KIP-860).
#[test]
fn replication_factor_changes_are_refused_when_the_request_says_so() {
    let mut image = ImageBuilder::new(LEVEL, false)
        .brokers(&[0, 1, 2, 3])
        .topic(FOO, foo_id(), &[&[0, 1, 2], &[0, 1, 2], &[0, 1, 2]])
        .build();
    let (_, r) = alter(
        &mut image,
        &request(
            vec![(
                FOO,
                vec![
                    (0, Some(vec![1, 2, 3])),
                    (1, Some(vec![0, 1])),
                    (2, Some(vec![0, 1, 2, 3])),
                ],
            )],
            false,
        ),
    );
    assert!(!r.allow_replication_factor_change);
    assert_eq!(
        outcomes(&r),
        [
            ok(FOO, 0),
            failed(
                FOO,
                1,
                ErrorCode::InvalidReplicationFactor,
                Some("The replication factor is changed from 3 to 2")
            ),
            failed(
                FOO,
                2,
                ErrorCode::InvalidReplicationFactor,
                Some("The replication factor is changed from 3 to 4")
            ),
        ]
    );
    assert_eq!(
        listed(&image, Some(vec![(FOO, vec![0, 1, 2])])),
        [reassigning(FOO, 0, &[1, 2, 3, 0], &[3], &[0])]
    );
    // While reassigning, the factor is the target's.
    let (records, r) = alter(
        &mut image,
        &request(vec![(FOO, vec![(0, Some(vec![0, 1]))])], false),
    );
    assert_eq!(records, []);
    assert_eq!(
        outcomes(&r),
        [failed(
            FOO,
            0,
            ErrorCode::InvalidReplicationFactor,
            Some("The replication factor is changed from 3 to 2")
        )]
    );
    let (_, r) = alter(
        &mut image,
        &request(vec![(FOO, vec![(0, Some(vec![0, 2, 3]))])], false),
    );
    assert_eq!(outcomes(&r), [ok(FOO, 0)]);
}

/// `testDisallowReplicationFactorChangeNoEffectWhenCancelAlterPartition`.
#[test]
fn cancelling_ignores_the_replication_factor_check() {
    let mut image = ImageBuilder::new(LEVEL, false)
        .brokers(&[0, 1, 2, 3])
        .topic(FOO, foo_id(), &[&[0, 1, 2]])
        .build();
    let (_, r) = alter(
        &mut image,
        &request(vec![(FOO, vec![(0, Some(vec![1, 2, 3]))])], true),
    );
    assert_eq!(outcomes(&r), [ok(FOO, 0)]);
    assert_eq!(
        listed(&image, Some(vec![(FOO, vec![0, 1, 2])])),
        [reassigning(FOO, 0, &[1, 2, 3, 0], &[3], &[0])]
    );
    let (_, r) = alter(&mut image, &request(vec![(FOO, vec![(0, None)])], false));
    assert_eq!(outcomes(&r), [ok(FOO, 0)]);
    assert_eq!(listed(&image, None), []);
    // Back to the original replicas in the order the reassignment kept
    // them (its list without the adding ones), as Kafka's revert does.
    assert_eq!(state(&image, FOO, 0).replicas, [1, 2, 0]);
}

/// `testCancelReassignPartitions`, from the state after broker 3 was
/// fenced (out of every ISR; bar-0 and foo-0 at partition epoch 1).
#[test]
fn shrinks_complete_at_once_and_cancelling_drops_the_adding_replicas() {
    let led = |replicas: &[i32], isr: &[i32], leader: i32| {
        partition(replicas, dirs(replicas), isr, leader, 0, 1)
    };
    let fenced = TestBroker {
        fenced: true,
        ..TestBroker::new(3)
    };
    let mut image = ImageBuilder::new(LEVEL, false)
        .brokers(&[0, 1, 2])
        .broker(fenced)
        .brokers(&[4])
        .topic_with(
            FOO,
            foo_id(),
            vec![
                led(&[1, 2, 3, 4], &[1, 2, 4], 1),
                led(&[0, 1, 2, 3], &[0, 1, 2], 0),
                led(&[4, 3, 1, 0], &[4, 1, 0], 4),
                led(&[2, 3, 4, 1], &[2, 4, 1], 2),
            ],
        )
        .topic_with(BAR, bar_id(), vec![led(&[4, 3, 2], &[4, 2], 4)])
        .build();
    let (_, r) = alter(
        &mut image,
        &request(
            vec![
                (
                    FOO,
                    vec![
                        (0, Some(vec![1, 2, 4])),
                        (1, Some(vec![1, 2, 3, 0])),
                        (2, Some(vec![5, 6, 7])),
                        (3, Some(vec![])),
                    ],
                ),
                (BAR, vec![(0, Some(vec![1, 2, 3, 4, 0]))]),
            ],
            true,
        ),
    );
    assert_eq!(
        outcomes(&r),
        [
            ok(FOO, 0),
            ok(FOO, 1),
            failed(
                FOO,
                2,
                ErrorCode::InvalidReplicaAssignment,
                Some("The manual partition assignment includes broker 5, but no such broker is registered.")
            ),
            failed(
                FOO,
                3,
                ErrorCode::InvalidReplicaAssignment,
                Some("The manual partition assignment includes an empty replica list.")
            ),
            ok(BAR, 0),
        ]
    );
    // Removing the fenced replica completes at once, with an epoch bump.
    let foo0 = state(&image, FOO, 0);
    assert_eq!(
        (
            &foo0.replicas,
            &foo0.isr,
            foo0.leader,
            foo0.leader_epoch,
            foo0.partition_epoch
        ),
        (&vec![1, 2, 4], &vec![1, 2, 4], 1, 1, 2)
    );
    assert_eq!(foo0.directories, dirs(&[1, 2, 4]));
    let foo1 = state(&image, FOO, 1);
    assert_eq!(
        (
            &foo1.replicas,
            &foo1.isr,
            foo1.leader,
            foo1.leader_epoch,
            foo1.partition_epoch
        ),
        (&vec![1, 2, 3, 0], &vec![0, 1, 2], 0, 0, 2)
    );
    let bar0 = state(&image, BAR, 0);
    assert_eq!(
        (
            &bar0.replicas,
            &bar0.isr,
            &bar0.adding_replicas,
            bar0.leader,
            bar0.leader_epoch,
            bar0.partition_epoch
        ),
        (&vec![1, 2, 3, 4, 0], &vec![4, 2], &vec![0, 1], 4, 0, 2)
    );
    assert_eq!(bar0.directories, dirs(&[1, 2, 3, 4, 0]));
    let moving = reassigning(BAR, 0, &[1, 2, 3, 4, 0], &[0, 1], &[]);
    assert_eq!(listed(&image, None), std::slice::from_ref(&moving));
    assert_eq!(listed(&image, Some(vec![(FOO, vec![0, 1, 2])])), []);
    assert_eq!(listed(&image, Some(vec![(BAR, vec![0, 1, 2])])), [moving]);

    let (records, r) = alter(
        &mut image,
        &request(vec![(FOO, vec![(0, None)]), (BAR, vec![(0, None)])], true),
    );
    assert_eq!(
        outcomes(&r),
        [
            failed(FOO, 0, ErrorCode::NoReassignmentInProgress, None),
            ok(BAR, 0)
        ]
    );
    assert_eq!(
        records,
        [PartitionChangeRecord {
            topic_id: bar_id(),
            partition_id: 0,
            leader: 4,
            replicas: Some(vec![2, 3, 4]),
            directories: Some(dirs(&[2, 3, 4])),
            removing_replicas: None,
            adding_replicas: Some(vec![]),
            ..Default::default()
        }]
    );
    assert_eq!(listed(&image, None), []);
    let bar0 = state(&image, BAR, 0);
    assert_eq!(
        (
            &bar0.replicas,
            &bar0.isr,
            bar0.leader,
            bar0.leader_epoch,
            bar0.partition_epoch
        ),
        (&vec![2, 3, 4], &vec![4, 2], 4, 1, 3)
    );
}

/// The partition change AlterPartition or ElectLeaders would write: the
/// ISR `isr`, or a preferred election.
fn apply_change(image: &mut MetadataImage, topic: &str, isr: Option<Vec<i32>>) {
    let t = image.topics().topic_by_name(topic).expect("topic");
    let p = t.partition(0).expect("partition");
    let change = PartitionChange::new(image, t.id(), 0, p, 1);
    let change = match isr {
        Some(isr) => change.target_isr(isr),
        None => change.election(Election::Preferred),
    };
    let record = change.build().record.expect("a change");
    image.replay(&record).expect("replays");
}

/// `testReassignPartitionsHandlesNewReassignmentThatRemovesPreviouslyAddingReplicas`.
#[test]
fn a_new_reassignment_may_remove_replicas_the_previous_one_was_adding() {
    let topic = "topic-1";
    let mut image = ImageBuilder::new(LEVEL, false)
        .brokers(&[0, 1, 2, 3, 4, 5])
        .topic(topic, foo_id(), &[&[0, 1]])
        .build();
    let (_, r) = alter(
        &mut image,
        &request(vec![(topic, vec![(0, Some(vec![2, 3]))])], true),
    );
    assert_eq!(outcomes(&r), [ok(topic, 0)]);
    assert_eq!(
        listed(&image, None),
        [reassigning(topic, 0, &[2, 3, 0, 1], &[2, 3], &[0, 1])]
    );
    // Replica 2 joins the ISR and is elected, as the preferred replica.
    apply_change(&mut image, topic, Some(vec![0, 1, 2]));
    apply_change(&mut image, topic, None);
    assert_eq!(state(&image, topic, 0).leader, 2);

    let (_, r) = alter(
        &mut image,
        &request(vec![(topic, vec![(0, Some(vec![4, 5]))])], true),
    );
    assert_eq!(outcomes(&r), [ok(topic, 0)]);
    assert_eq!(
        listed(&image, None),
        [reassigning(
            topic,
            0,
            &[4, 5, 0, 1, 2, 3],
            &[4, 5],
            &[0, 1, 2, 3]
        )]
    );
    assert_eq!(
        state(&image, topic, 0).leader,
        2,
        "the leader stays a replica"
    );
    // Every replica in the ISR: the reassignment completes, 4 leads.
    apply_change(&mut image, topic, Some(vec![0, 1, 2, 3, 4, 5]));
    let done = state(&image, topic, 0);
    assert_eq!(
        (done.leader, &done.replicas, &done.isr),
        (4, &vec![4, 5], &vec![4, 5])
    );
    assert_eq!(listed(&image, None), []);
}

/// Kafka's manual-assignment refusals (checked in ascending broker order);
/// fenced brokers are accepted.
#[test]
fn invalid_assignments_are_refused_with_kafkas_texts() {
    let fenced = TestBroker {
        fenced: true,
        ..TestBroker::new(3)
    };
    let cordoned = TestBroker {
        cordoned: Some(vec![broker_dir(4)]),
        ..TestBroker::new(4)
    };
    let mut image = ImageBuilder::new(LEVEL, false)
        .brokers(&[0, 1, 2])
        .broker(fenced)
        .broker(cordoned)
        .topic(FOO, foo_id(), &[&[0, 1, 2], &[0, 1, 2]])
        .build();
    let (records, r) = alter(
        &mut image,
        &request(
            vec![
                (
                    FOO,
                    vec![
                        (0, Some(vec![1, 1, 2])),
                        (0, Some(vec![2, -1, 0])),
                        (0, Some(vec![0, 9, 9])),
                        (0, Some(vec![0, 4])),
                        (1, Some(vec![0, 1, 3])),
                    ],
                ),
                ("missing", vec![(0, Some(vec![0]))]),
            ],
            true,
        ),
    );
    let invalid = |m: &str| (ErrorCode::InvalidReplicaAssignment, Some(m.to_owned()));
    let got: Vec<(ErrorCode, Option<String>)> = outcomes(&r)
        .into_iter()
        .map(|(_, _, code, message)| (ErrorCode::from_code(code), message))
        .collect();
    assert_eq!(
        got,
        [
            invalid("The manual partition assignment includes the broker 1 more than once."),
            invalid("The manual partition assignment includes broker -1, but no such broker is registered."),
            invalid("The manual partition assignment includes broker 9, but no such broker is registered."),
            invalid("The manual partition assignment includes broker 4, but all its log directories are cordoned."),
            (ErrorCode::None, None),
            (
                ErrorCode::UnknownTopicOrPartition,
                Some("Unable to find a topic named missing.".to_owned())
            ),
        ]
    );
    assert_eq!(records.len(), 1);
    assert_eq!(
        listed(&image, None),
        [reassigning(FOO, 1, &[0, 1, 3, 2], &[3], &[2])]
    );
}

/// A leader the target drops hands over once the move completes; a move
/// the ISR covers completes in the same record.
#[test]
fn a_leaving_leader_is_replaced_when_the_shrink_completes() {
    let mut image = ImageBuilder::new(LEVEL, false)
        .brokers(&[0, 1, 2])
        .topic(FOO, foo_id(), &[&[0, 1, 2]])
        .build();
    let (records, r) = alter(
        &mut image,
        &request(vec![(FOO, vec![(0, Some(vec![2, 1]))])], true),
    );
    assert_eq!(outcomes(&r), [ok(FOO, 0)]);
    assert_eq!(
        records,
        [PartitionChangeRecord {
            topic_id: foo_id(),
            partition_id: 0,
            isr: Some(vec![1, 2]),
            leader: 2,
            replicas: Some(vec![2, 1]),
            directories: Some(dirs(&[2, 1])),
            ..Default::default()
        }]
    );
    let p = state(&image, FOO, 0);
    assert_eq!((p.leader, p.leader_epoch), (2, 1));
}

/// Cancelling when only adding replicas are in sync is an unclean
/// election: refused unless the topic allows one.
#[test]
fn an_unclean_revert_needs_unclean_leader_election() {
    let mut moving = partition(&[3, 0], dirs(&[3, 0]), &[3], 3, 4, 6);
    moving.adding_replicas = vec![3];
    moving.removing_replicas = vec![0];
    let mut only_adding = partition(&[3, 4], dirs(&[3, 4]), &[3, 4], 3, 0, 1);
    only_adding.adding_replicas = vec![3, 4];
    let build = |unclean: bool| {
        let builder = ImageBuilder::new(LEVEL, false)
            .brokers(&[0, 1, 2, 3, 4])
            .topic_with(FOO, foo_id(), vec![moving.clone(), only_adding.clone()]);
        let builder = if unclean {
            builder.topic_config(FOO, "unclean.leader.election.enable", "true")
        } else {
            builder
        };
        builder.build()
    };
    let cancel = request(vec![(FOO, vec![(0, None), (1, None)])], true);
    let mut image = build(false);
    let (records, r) = alter(&mut image, &cancel);
    assert_eq!(records, []);
    assert_eq!(
        outcomes(&r),
        [
            failed(
                FOO,
                0,
                ErrorCode::InvalidReplicaAssignment,
                Some("Unable to revert partition assignment for foo:0 because it would require an unclean leader election.")
            ),
            failed(
                FOO,
                1,
                ErrorCode::InvalidReplicaAssignment,
                Some("Invalid replica assignment: addingReplicas contains all replicas.")
            ),
        ]
    );
    let mut image = build(true);
    let (records, r) = alter(&mut image, &cancel);
    assert_eq!(outcomes(&r)[0], ok(FOO, 0));
    assert_eq!(records.len(), 1);
    let p = state(&image, FOO, 0);
    assert_eq!(
        (
            &p.replicas,
            &p.isr,
            p.leader,
            &p.adding_replicas,
            &p.removing_replicas
        ),
        (&vec![0], &vec![0], 0, &vec![], &vec![])
    );
}

/// The whole course through the handlers: the move is written, listed,
/// completed by the leader's AlterPartition (the new replica leads), and
/// a cancel of nothing is refused.
#[tokio::test]
async fn a_reassignment_runs_its_course_through_the_handlers() {
    let (c, q, mut epochs) = cluster(false).await;
    // Placed on brokers 4, 5 and 6; broker 7 comes after.
    create_topic(&c, "t", 1, 3).await;
    let r = c.broker_registration(4, &registration(7, 1)).await;
    assert_eq!(r.error_code, 0);
    let hb = c.broker_heartbeat(&heartbeat(7, r.broker_epoch, 100)).await;
    assert_eq!((hb.error_code, hb.is_fenced), (0, false));
    epochs.push((7, r.broker_epoch));
    let epoch_of = |id: i32| {
        epochs
            .iter()
            .find(|(b, _)| *b == id)
            .map_or(-1, |(_, e)| *e)
    };
    let before = state(&c.image().read(), "t", 0);
    let old_leader = before.leader;
    let mut target = before.replicas.clone();
    assert_eq!(before.leader, target[0]);
    target[0] = 7;
    assert_eq!(target.len(), 3);

    let mark = q.records().len();
    let r = c
        .alter_partition_reassignments(&request(vec![("t", vec![(0, Some(target.clone()))])], true))
        .await;
    assert_eq!((r.error_code, &r.error_message), (0, &None));
    assert_eq!(outcomes(&r), [ok("t", 0)]);
    let written: Vec<PartitionChangeRecord> = q.records()[mark..].iter().map(change).collect();
    assert_eq!(written.len(), 1);
    assert_eq!(written[0].adding_replicas, Some(vec![7]));
    assert_eq!(written[0].removing_replicas, Some(vec![old_leader]));
    let mut during = target.clone();
    during.push(old_leader);
    let moving = reassigning("t", 0, &during, &[7], &[old_leader]);
    assert_eq!(
        flatten(
            &c.list_partition_reassignments(&ListPartitionReassignmentsRequest {
                topics: None,
                ..Default::default()
            })
        ),
        std::slice::from_ref(&moving)
    );
    assert_eq!(
        flatten(
            &c.list_partition_reassignments(&ListPartitionReassignmentsRequest {
                topics: Some(
                    vec![ListPartitionReassignmentsTopics {
                        name: "t".into(),
                        partition_indexes: vec![1, 0],
                        ..Default::default()
                    }]
                    .into()
                ),
                ..Default::default()
            })
        ),
        [moving]
    );

    // The leader reports 7 in sync: the move completes and 7, first in
    // the target, takes over from the leader that left.
    let now = state(&c.image().read(), "t", 0);
    let alter = AlterPartitionRequest {
        broker_id: old_leader,
        broker_epoch: epoch_of(old_leader),
        topics: vec![TopicData {
            topic_id: c.image().read().topics().topic_id("t").expect("topic"),
            partitions: vec![PartitionData {
                partition_index: 0,
                leader_epoch: now.leader_epoch,
                partition_epoch: now.partition_epoch,
                new_isr_with_epochs: during
                    .iter()
                    .map(|b| BrokerState {
                        broker_id: *b,
                        broker_epoch: epoch_of(*b),
                        ..Default::default()
                    })
                    .collect::<Vec<_>>()
                    .into(),
                ..Default::default()
            }]
            .into(),
            ..Default::default()
        }]
        .into(),
        ..Default::default()
    };
    let r = c.alter_partition(3, &alter).await;
    assert_eq!(r.error_code, 0);
    let after = state(&c.image().read(), "t", 0);
    assert_eq!(after.replicas, target);
    assert_eq!(after.leader, 7);
    assert!(!after.isr.contains(&old_leader));
    assert!(after.adding_replicas.is_empty() && after.removing_replicas.is_empty());
    assert!(c
        .list_partition_reassignments(&ListPartitionReassignmentsRequest::default())
        .topics
        .is_empty());

    let r = c
        .alter_partition_reassignments(&request(vec![("t", vec![(0, None)])], true))
        .await;
    assert_eq!(
        outcomes(&r),
        [failed("t", 0, ErrorCode::NoReassignmentInProgress, None)]
    );
    // Nothing requested: nothing written, Kafka's empty answer.
    let mark = q.records().len();
    let r = c
        .alter_partition_reassignments(&request(vec![], true))
        .await;
    assert_eq!(r, AlterPartitionReassignmentsResponse::default());
    assert_eq!(q.records().len(), mark);
    let r = c.list_partition_reassignments(&ListPartitionReassignmentsRequest {
        topics: Some(Default::default()),
        ..Default::default()
    });
    assert_eq!((r.error_message, r.topics.len()), (None, 0));
}

/// Brokers forward both APIs (Kafka's `ApiKeys.forwardable`): the envelope
/// carries the answer at the forwarded version.
#[tokio::test]
async fn both_apis_answer_through_envelopes() {
    use super::broker_tests::{alice, envelope_at, server_context};
    use kraft_protocol::header::decode_response;
    use kraft_protocol::{ApiKey, RequestBody, ResponseBody};

    let (c, _q, _) = cluster(false).await;
    create_topic(&c, "t", 1, 3).await;
    let forward = |api: ApiKey, version: i16, body: RequestBody| {
        let c = c.clone();
        async move {
            let r = c
                .envelope(
                    &super::Access::everything(),
                    &server_context(),
                    envelope_at(api, version, &body, Some(alice()), &[10, 0, 0, 7]),
                )
                .await;
            assert_eq!(r.error_code, 0);
            let (correlation, inner) =
                decode_response(r.response_data.expect("an answer"), api, version)
                    .expect("decodes");
            assert_eq!(correlation, 42);
            inner
        }
    };
    let alter = request(vec![("t", vec![(0, Some(vec![9]))])], false);
    let ResponseBody::AlterPartitionReassignments(r) = forward(
        ApiKey::AlterPartitionReassignments,
        1,
        RequestBody::AlterPartitionReassignments(alter),
    )
    .await
    else {
        panic!("not an AlterPartitionReassignments answer")
    };
    assert!(!r.allow_replication_factor_change);
    assert_eq!(
        outcomes(&r),
        [failed(
            "t",
            0,
            ErrorCode::InvalidReplicaAssignment,
            Some("The manual partition assignment includes broker 9, but no such broker is registered.")
        )]
    );
    let ResponseBody::ListPartitionReassignments(r) = forward(
        ApiKey::ListPartitionReassignments,
        0,
        RequestBody::ListPartitionReassignments(ListPartitionReassignmentsRequest::default()),
    )
    .await
    else {
        panic!("not a ListPartitionReassignments answer")
    };
    assert_eq!((r.error_code, r.topics.len()), (0, 0));
}

/// Kafka bounds a request's records at 10,000 (`MAX_RECORDS_PER_USER_OP`):
/// a partition whose record does not fit fails with UNKNOWN_SERVER_ERROR,
/// without a message; the others are written.
#[test]
fn a_record_past_ten_thousand_fails_its_partition() {
    let assignments: Vec<&[i32]> = vec![&[0]; 10_001];
    let image = ImageBuilder::new(LEVEL, false)
        .brokers(&[0, 1])
        .topic(FOO, foo_id(), &assignments)
        .build();
    let moves = (0..10_001).map(|i| (i, Some(vec![1]))).collect();
    let generated =
        alter_partition_reassignments(&image, &settings(), &request(vec![(FOO, moves)], true));
    assert_eq!(generated.records.len(), 10_000);
    let answers = outcomes(&generated.result);
    assert!(answers[..10_000].iter().all(|a| a.2 == 0));
    assert_eq!(
        answers[10_000],
        failed(FOO, 10_000, ErrorCode::UnknownServerError, None)
    );
}
