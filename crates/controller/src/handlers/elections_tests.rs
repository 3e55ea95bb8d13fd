//! ElectLeaders and the periodic preferred-leader balancing through the
//! handlers, over a gated in-memory quorum and a real image.

use kraft_protocol::messages::alter_partition_request::{
    AlterPartitionRequest, BrokerState, PartitionData, TopicData,
};
use kraft_protocol::messages::elect_leaders_request::{ElectLeadersRequest, TopicPartitions};
use kraft_protocol::messages::elect_leaders_response::ElectLeadersResponse;
use kraft_protocol::messages::partition_change_record::PartitionChangeRecord;
use kraft_protocol::{ErrorCode, MetadataRecordBody, Uuid};

use super::broker_tests::heartbeat;
use super::configs_tests::{cluster, create_topic};
use super::writer::Generated;
use super::Controller;
use crate::image::MetadataRecord;

/// Partition `index` of `topic`: (leader, replicas, isr, leader epoch,
/// partition epoch).
fn partition(c: &Controller, topic: &str, index: i32) -> (i32, Vec<i32>, Vec<i32>, i32, i32) {
    let image = c.image().read();
    let p = image
        .topics()
        .topic_by_name(topic)
        .and_then(|t| t.partition(index))
        .expect("partition");
    (
        p.leader(),
        p.replicas().collect(),
        p.isr().collect(),
        p.leader_epoch(),
        p.partition_epoch(),
    )
}

fn topic_id(c: &Controller, topic: &str) -> Uuid {
    c.image().read().topics().topic_id(topic).expect("topic")
}

fn elect(election_type: i8, topics: Option<Vec<(&str, Vec<i32>)>>) -> ElectLeadersRequest {
    ElectLeadersRequest {
        election_type,
        topic_partitions: topics.map(|topics| {
            topics
                .into_iter()
                .map(|(topic, partitions)| TopicPartitions {
                    topic: topic.into(),
                    partitions,
                    ..Default::default()
                })
                .collect()
        }),
        timeout_ms: 5000,
        ..Default::default()
    }
}

/// (topic, partition, error code, message) of each result, in order.
fn results(r: &ElectLeadersResponse) -> Vec<(String, i32, i16, Option<String>)> {
    r.replica_election_results
        .iter()
        .flat_map(|t| {
            t.partition_result
                .iter()
                .map(|p| {
                    (
                        t.topic.as_str().to_owned(),
                        p.partition_id,
                        p.error_code,
                        p.error_message.as_ref().map(|m| m.as_str().to_owned()),
                    )
                })
                .collect::<Vec<_>>()
        })
        .collect()
}

fn result(
    topic: &str,
    partition: i32,
    code: ErrorCode,
    message: Option<&str>,
) -> (String, i32, i16, Option<String>) {
    (
        topic.to_owned(),
        partition,
        code.code(),
        message.map(str::to_owned),
    )
}

/// Moves the leadership of `topic`-`index` to `leader` (ISR unchanged),
/// as a leader change the controller wrote.
async fn move_leader(c: &Controller, topic: &str, index: i32, leader: i32) {
    let id = topic_id(c, topic);
    let version = c
        .image()
        .read()
        .metadata_version()
        .expect("metadata.version")
        .partition_change_record_version();
    c.write("test", None, |_| {
        Ok(Generated::new(
            vec![MetadataRecord::new(
                PartitionChangeRecord {
                    topic_id: id,
                    partition_id: index,
                    leader,
                    ..Default::default()
                },
                version,
            )],
            (),
        ))
    })
    .await
    .expect("written");
}

#[tokio::test]
async fn elect_leaders_elects_the_preferred_replica_once_it_is_back_in_the_isr() {
    let (c, q, epochs) = cluster(false).await;
    create_topic(&c, "t", 1, 3).await;
    let (preferred, replicas, isr, _, _) = partition(&c, "t", 0);
    assert_eq!(preferred, replicas[0]);
    assert_eq!(isr.len(), 3);
    let epoch_of = |id: i32| {
        epochs
            .iter()
            .find(|(b, _)| *b == id)
            .map_or(-1, |(_, e)| *e)
    };

    // Already led by its preferred replica.
    let r = c
        .elect_leaders(2, &elect(0, Some(vec![("t", vec![0])])))
        .await;
    assert_eq!(r.error_code, 0);
    assert_eq!(
        results(&r),
        [result(
            "t",
            0,
            ErrorCode::ElectionNotNeeded,
            Some("Leader election not needed for topic partition.")
        )]
    );

    // The preferred leader is fenced: another replica leads, and while the
    // preferred one is out of the ISR it cannot be elected.
    let mut fence = heartbeat(preferred, epoch_of(preferred), 1000);
    fence.want_fence = true;
    assert_eq!(c.broker_heartbeat(&fence).await.error_code, 0);
    let (leader, _, shrunk, leader_epoch, partition_epoch) = partition(&c, "t", 0);
    assert_ne!(leader, preferred);
    assert!(!shrunk.contains(&preferred));
    let r = c
        .elect_leaders(2, &elect(0, Some(vec![("t", vec![0])])))
        .await;
    assert_eq!(
        results(&r),
        [result(
            "t",
            0,
            ErrorCode::PreferredLeaderNotAvailable,
            Some("The preferred leader was not available.")
        )]
    );

    // Unfenced and back in the ISR through the leader's AlterPartition.
    let hb = c
        .broker_heartbeat(&heartbeat(preferred, epoch_of(preferred), 1000))
        .await;
    assert_eq!((hb.error_code, hb.is_fenced), (0, false));
    let alter = AlterPartitionRequest {
        broker_id: leader,
        broker_epoch: epoch_of(leader),
        topics: vec![TopicData {
            topic_id: topic_id(&c, "t"),
            partitions: vec![PartitionData {
                partition_index: 0,
                leader_epoch,
                partition_epoch,
                new_isr_with_epochs: replicas
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
    assert_eq!(
        r.topics
            .single()
            .and_then(|t| t.partitions.single().map(|p| p.error_code)),
        Some(0)
    );

    let mark = q.records().len();
    let r = c
        .elect_leaders(
            2,
            &elect(0, Some(vec![("t", vec![0, 7]), ("missing", vec![0])])),
        )
        .await;
    assert_eq!(
        results(&r),
        [
            result("t", 0, ErrorCode::None, None),
            result(
                "t",
                7,
                ErrorCode::UnknownTopicOrPartition,
                Some("No such partition as t-7")
            ),
            result(
                "missing",
                0,
                ErrorCode::UnknownTopicOrPartition,
                Some("No such topic as missing")
            ),
        ]
    );
    let (leader, _, isr, new_leader_epoch, _) = partition(&c, "t", 0);
    assert_eq!(leader, preferred, "answered after the commit");
    assert_eq!(isr.len(), 3);
    assert_eq!(new_leader_epoch, leader_epoch + 1);
    let changes: Vec<_> = q.records()[mark..]
        .iter()
        .map(|r| match &r.body {
            MetadataRecordBody::PartitionChange(p) => (p.partition_id, p.leader, p.isr.clone()),
            other => panic!("unexpected {other:?}"),
        })
        .collect();
    assert_eq!(changes, [(0, preferred, None)]);

    // Electing for every partition leaves out those needing none.
    let r = c.elect_leaders(2, &elect(0, None)).await;
    assert_eq!(results(&r), []);
    assert_eq!(
        r.replica_election_results
            .iter()
            .map(|t| t.topic.as_str().to_owned())
            .collect::<Vec<_>>(),
        ["t"]
    );
}

#[tokio::test]
async fn elect_leaders_refuses_what_kafka_refuses() {
    let (c, _q, _) = cluster(false).await;
    create_topic(&c, "t", 2, 3).await;
    // A partition with a leader needs no unclean election.
    let r = c
        .elect_leaders(2, &elect(1, Some(vec![("t", vec![1])])))
        .await;
    assert_eq!(
        results(&r),
        [result(
            "t",
            1,
            ErrorCode::ElectionNotNeeded,
            Some("Leader election not needed for topic partition.")
        )]
    );
    // An unknown election type fails every partition, and the request
    // from version 1.
    let r = c
        .elect_leaders(2, &elect(5, Some(vec![("t", vec![0, 1])])))
        .await;
    assert_eq!(r.error_code, ErrorCode::InvalidRequest.code());
    assert_eq!(
        results(&r),
        [
            result(
                "t",
                0,
                ErrorCode::InvalidRequest,
                Some("Unknown election type 5")
            ),
            result(
                "t",
                1,
                ErrorCode::InvalidRequest,
                Some("Unknown election type 5")
            ),
        ]
    );
    // Version 0 has no election type: preferred.
    let r = c
        .elect_leaders(0, &elect(5, Some(vec![("t", vec![0])])))
        .await;
    assert_eq!(r.error_code, 0);
    assert_eq!(results(&r)[0].2, ErrorCode::ElectionNotNeeded.code());
    // No partitions: nothing to do.
    let r = c.elect_leaders(2, &elect(0, Some(vec![]))).await;
    assert_eq!((r.error_code, results(&r)), (0, vec![]));
}

#[tokio::test]
async fn balance_partition_leaders_moves_leadership_back_to_the_preferred_replicas() {
    let (c, q, _) = cluster(false).await;
    create_topic(&c, "t", 3, 3).await;
    for index in 0..3 {
        let (leader, replicas, ..) = partition(&c, "t", index);
        assert_eq!(leader, replicas[0]);
    }
    // Partitions 0 and 2 are led by another in-sync replica.
    for index in [0, 2] {
        let (_, replicas, ..) = partition(&c, "t", index);
        move_leader(&c, "t", index, replicas[1]).await;
        assert_eq!(partition(&c, "t", index).0, replicas[1]);
    }
    let mark = q.records().len();
    assert!(
        !c.balance_partition_leaders().await,
        "all done in one round"
    );
    for index in 0..3 {
        let (leader, replicas, ..) = partition(&c, "t", index);
        assert_eq!(leader, replicas[0], "partition {index}");
    }
    let changed: Vec<i32> = q.records()[mark..]
        .iter()
        .map(|r| match &r.body {
            MetadataRecordBody::PartitionChange(p) => p.partition_id,
            other => panic!("unexpected {other:?}"),
        })
        .collect();
    assert_eq!(changed, [0, 2]);
    // Balanced: the next round writes nothing.
    let mark = q.records().len();
    assert!(!c.balance_partition_leaders().await);
    assert_eq!(q.records().len(), mark);
    assert_eq!(
        c.leader_imbalance_check_interval(),
        Some(std::time::Duration::from_secs(300))
    );
}

/// The static `unclean.leader.election.enable` is what a topic without a
/// setting of its own falls back to (Kafka's `ConfigurationControlManager`
/// static config): the periodic unclean election leaves a leaderless
/// partition alone while it is off and elects the live out-of-sync replica
/// once it is on.
#[tokio::test]
async fn the_static_unclean_setting_decides_for_a_topic_without_one() {
    let (c, q, epochs) = cluster(false).await;
    create_topic(&c, "t", 1, 2).await;
    let (leader, replicas, _, _, _) = partition(&c, "t", 0);
    let other = replicas
        .iter()
        .copied()
        .find(|b| *b != leader)
        .expect("two replicas");
    let epoch_of = |id: i32| {
        epochs
            .iter()
            .find(|(b, _)| *b == id)
            .map_or(-1, |(_, e)| *e)
    };
    for broker in [other, leader] {
        let mut fence = heartbeat(broker, epoch_of(broker), 1000);
        fence.want_fence = true;
        assert_eq!(c.broker_heartbeat(&fence).await.error_code, 0);
    }
    let hb = c
        .broker_heartbeat(&heartbeat(other, epoch_of(other), 1000))
        .await;
    assert_eq!((hb.error_code, hb.is_fenced), (0, false));
    let (now, _, isr, _, _) = partition(&c, "t", 0);
    assert_eq!((now, isr), (-1, vec![leader]));

    assert!(!c.settings().topics.unclean_leader_election_enable);
    c.elect_unclean_leaders().await;
    assert_eq!(partition(&c, "t", 0).0, -1, "unclean election off");

    let mut settings = c.settings().clone();
    settings.topics.unclean_leader_election_enable = true;
    let on = Controller::new(settings, c.image().clone(), q.clone());
    on.elect_unclean_leaders().await;
    let (now, _, isr, _, _) = partition(&c, "t", 0);
    assert_eq!((now, isr), (other, vec![other]), "unclean election on");
}
