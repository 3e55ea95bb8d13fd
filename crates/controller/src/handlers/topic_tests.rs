//! CreateTopics, AllocateProducerIds, AlterPartition and the partition
//! leadership that follows broker fencing, through the handlers over a
//! gated in-memory quorum and a real image.

use std::sync::Arc;

use kraft_protocol::messages::allocate_producer_ids_request::AllocateProducerIdsRequest;
use kraft_protocol::messages::alter_partition_request::{
    AlterPartitionRequest, BrokerState, PartitionData, TopicData,
};
use kraft_protocol::messages::create_topics_request::{
    CreatableTopic, CreatableTopicConfig, CreateTopicsRequest,
};
use kraft_protocol::messages::create_topics_response::CreateTopicsResponse;
use kraft_protocol::{ErrorCode, MetadataRecordBody, Uuid};

use super::broker_tests::{heartbeat, GatedQuorum};
use super::Controller;

/// Brokers 4, 5 and 6 registered and unfenced, eligible leader replicas on.
async fn cluster() -> (Arc<Controller>, Arc<GatedQuorum>, Vec<(i32, i64)>) {
    super::configs_tests::cluster(true).await
}

fn topic(name: &str, partitions: i32, replication_factor: i16) -> CreatableTopic {
    CreatableTopic {
        name: name.into(),
        num_partitions: partitions,
        replication_factor,
        ..Default::default()
    }
}

fn create(topics: Vec<CreatableTopic>, validate_only: bool) -> CreateTopicsRequest {
    CreateTopicsRequest {
        topics: topics.into(),
        timeout_ms: 5000,
        validate_only,
        ..Default::default()
    }
}

fn results(r: &CreateTopicsResponse) -> Vec<(String, i16, String)> {
    r.topics
        .iter()
        .map(|t| {
            (
                t.name.as_str().to_owned(),
                t.error_code,
                t.error_message
                    .as_ref()
                    .map_or("null".to_owned(), |m| m.as_str().to_owned()),
            )
        })
        .collect()
}

#[tokio::test]
async fn create_topics_places_replicas_and_writes_kafka_records() {
    let (c, q, _) = cluster().await;
    let before = q.records().len();
    let mut t = topic("orders", 6, 3);
    t.configs = vec![CreatableTopicConfig {
        name: "min.insync.replicas".into(),
        value: Some("2".into()),
        ..Default::default()
    }]
    .into();
    let r = c.create_topics(&create(vec![t], false)).await;
    let result = r.topics.single().expect("one result").clone();
    assert_eq!(result.error_code, 0, "{:?}", result.error_message);
    assert_eq!(result.error_message, None);
    assert_eq!((result.num_partitions, result.replication_factor), (6, 3));
    let configs = result.configs.expect("configs");
    let min_isr = configs
        .iter()
        .find(|e| e.name.as_str() == "min.insync.replicas")
        .expect("min.insync.replicas listed");
    assert_eq!(min_isr.value.as_deref(), Some("2"));
    assert_eq!(min_isr.config_source, 1, "DYNAMIC_TOPIC_CONFIG");
    assert!(configs.iter().any(|e| e.name.as_str() == "cleanup.policy"));

    // TopicRecord, ConfigRecord, ClearElrRecord, then partitions 0-5.
    let written = &q.records()[before..];
    let kinds: Vec<&str> = written
        .iter()
        .map(|r| match &r.body {
            MetadataRecordBody::Topic(_) => "topic",
            MetadataRecordBody::Config(_) => "config",
            MetadataRecordBody::ClearElr(_) => "clear-elr",
            MetadataRecordBody::Partition(_) => "partition",
            _ => "other",
        })
        .collect();
    assert_eq!(
        kinds,
        [
            "topic",
            "config",
            "clear-elr",
            "partition",
            "partition",
            "partition",
            "partition",
            "partition",
            "partition"
        ]
    );
    let image = c.image().read();
    let t = image.topics().topic_by_name("orders").expect("created");
    assert_eq!(t.id(), result.topic_id);
    assert_eq!(t.partition_count(), 6);
    let mut leaders = Vec::new();
    for (index, p) in t.partitions() {
        let replicas: Vec<i32> = p.replicas().collect();
        let mut sorted = replicas.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, [4, 5, 6], "partition {index}");
        assert_eq!(
            p.isr().collect::<Vec<_>>(),
            replicas,
            "every replica is active"
        );
        assert_eq!(p.leader(), replicas[0]);
        assert_eq!((p.leader_epoch(), p.partition_epoch()), (0, 0));
        for r in &replicas {
            assert_eq!(p.directory(*r), Some(Uuid::from_u64_pair(77, *r as u64)));
        }
        leaders.push(p.leader());
    }
    // Striping spreads the leaders: each broker leads two of six.
    for b in [4, 5, 6] {
        assert_eq!(
            leaders.iter().filter(|l| **l == b).count(),
            2,
            "{leaders:?}"
        );
    }
    assert_eq!(
        image.configs().value(
            &crate::image::ConfigResource::new(2, "orders"),
            "min.insync.replicas"
        ),
        Some("2")
    );
}

#[tokio::test]
async fn create_topics_refuses_as_kafka_does() {
    let (c, q, _) = cluster().await;
    let ok = c
        .create_topics(&create(vec![topic("taken", 1, 1)], false))
        .await;
    assert_eq!(ok.topics.single().map(|t| t.error_code), Some(0));
    let before = q.records().len();
    let mut null_config = topic("nulls", 1, 1);
    null_config.configs = vec![CreatableTopicConfig {
        name: "retention.ms".into(),
        value: None,
        ..Default::default()
    }]
    .into();
    let mut unknown_config = topic("unknown-config", 1, 1);
    unknown_config.configs = vec![CreatableTopicConfig {
        name: "no.such.config".into(),
        value: Some("1".into()),
        ..Default::default()
    }]
    .into();
    let r = c
        .create_topics(&create(
            vec![
                topic("twice", 1, 1),
                topic("taken", 1, 1),
                topic("bad name", 1, 1),
                topic("twice", 1, 1),
                topic("__cluster_metadata", 1, 1),
                topic("too-many-replicas", 1, 4),
                topic("no-partitions", 0, 1),
                topic("zero-rf", 1, 0),
                null_config,
                unknown_config,
            ],
            false,
        ))
        .await;
    let invalid_config = ErrorCode::InvalidConfig.code();
    assert_eq!(
        results(&r),
        [
            ("taken".to_owned(), ErrorCode::TopicAlreadyExists.code(), "Topic 'taken' already exists.".to_owned()),
            ("bad name".to_owned(), ErrorCode::InvalidTopicException.code(), "Topic name is invalid: 'bad name' contains one or more characters other than ASCII alphanumerics, '.', '_' and '-'".to_owned()),
            ("too-many-replicas".to_owned(), ErrorCode::InvalidReplicationFactor.code(), "Unable to replicate the partition 4 time(s): The target replication factor of 4 cannot be reached because only 3 broker(s) are registered or some brokers have all their log directories cordoned.".to_owned()),
            ("no-partitions".to_owned(), ErrorCode::InvalidPartitions.code(), "Number of partitions was set to an invalid non-positive value.".to_owned()),
            ("zero-rf".to_owned(), ErrorCode::InvalidReplicationFactor.code(), "Replication factor must be larger than 0, or -1 to use the default value.".to_owned()),
            ("nulls".to_owned(), invalid_config, "Null value not supported for topic configs: retention.ms".to_owned()),
            ("unknown-config".to_owned(), invalid_config, "Unknown topic config name: no.such.config".to_owned()),
            ("twice".to_owned(), ErrorCode::InvalidRequest.code(), "Duplicate topic name.".to_owned()),
            ("__cluster_metadata".to_owned(), ErrorCode::InvalidRequest.code(), "Creation of internal topic __cluster_metadata is prohibited.".to_owned()),
        ]
    );
    assert_eq!(q.records().len(), before, "nothing written");

    // Validate-only answers as a creation would and writes nothing.
    let r = c
        .create_topics(&create(vec![topic("checked", 3, 2)], true))
        .await;
    let result = r.topics.single().expect("one").clone();
    assert_eq!(
        (
            result.error_code,
            result.num_partitions,
            result.replication_factor
        ),
        (0, 3, 2)
    );
    assert_eq!(q.records().len(), before);
    assert!(c.image().read().topics().topic_by_name("checked").is_none());
}

#[tokio::test]
async fn producer_id_blocks_follow_each_other_and_need_the_broker_epoch() {
    let (c, q, epochs) = cluster().await;
    let (id, epoch) = epochs[0];
    let stale = c
        .allocate_producer_ids(&AllocateProducerIdsRequest {
            broker_id: id,
            broker_epoch: epoch + 1,
            ..Default::default()
        })
        .await;
    assert_eq!(stale.error_code, ErrorCode::StaleBrokerEpoch.code());
    let mut blocks = Vec::new();
    for (id, epoch) in [epochs[0], epochs[1]] {
        let r = c
            .allocate_producer_ids(&AllocateProducerIdsRequest {
                broker_id: id,
                broker_epoch: epoch,
                ..Default::default()
            })
            .await;
        assert_eq!(r.error_code, 0);
        blocks.push((r.producer_id_start, r.producer_id_len));
    }
    assert_eq!(blocks, [(0, 1000), (1000, 1000)]);
    let next: Vec<i64> = q
        .records()
        .iter()
        .filter_map(|r| match &r.body {
            MetadataRecordBody::ProducerIds(p) => Some(p.next_producer_id),
            _ => None,
        })
        .collect();
    assert_eq!(next, [1000, 2000]);
    assert_eq!(c.image().read().producer_ids().next_producer_id(), 2000);
}

#[tokio::test]
async fn a_fenced_leader_loses_its_partitions_and_alter_partition_brings_it_back() {
    let (c, _q, epochs) = cluster().await;
    let r = c
        .create_topics(&create(vec![topic("t", 3, 3)], false))
        .await;
    let topic_id = r.topics.single().expect("one").topic_id;
    let p0 = |c: &Controller| {
        let image = c.image().read();
        let p = image.topics().partition(&topic_id, 0).expect("partition 0");
        (
            p.leader(),
            p.isr().collect::<Vec<_>>(),
            p.leader_epoch(),
            p.partition_epoch(),
        )
    };
    let (old_leader, isr, _, _) = p0(&c);
    let epoch_of = |id: i32| {
        epochs
            .iter()
            .find(|(b, _)| *b == id)
            .map(|(_, e)| *e)
            .unwrap_or(-1)
    };

    // The leader asks to be fenced: it leaves every ISR, a new leader is
    // elected with a new leader epoch.
    let mut fence = heartbeat(old_leader, epoch_of(old_leader), 1000);
    fence.want_fence = true;
    let hb = c.broker_heartbeat(&fence).await;
    assert_eq!((hb.error_code, hb.is_fenced), (0, true));
    let (leader, shrunk, leader_epoch, partition_epoch) = p0(&c);
    assert_ne!(leader, old_leader);
    let expected: Vec<i32> = isr.iter().copied().filter(|r| *r != old_leader).collect();
    assert_eq!(shrunk, expected);
    assert_eq!((leader_epoch, partition_epoch), (1, 1));

    let alter = |isr: Vec<i32>, leader_epoch: i32, partition_epoch: i32| AlterPartitionRequest {
        broker_id: leader,
        broker_epoch: epoch_of(leader),
        topics: vec![TopicData {
            topic_id,
            partitions: vec![PartitionData {
                partition_index: 0,
                leader_epoch,
                new_isr_with_epochs: isr
                    .into_iter()
                    .map(|b| BrokerState {
                        broker_id: b,
                        broker_epoch: epoch_of(b),
                        ..Default::default()
                    })
                    .collect::<Vec<_>>()
                    .into(),
                partition_epoch,
                ..Default::default()
            }]
            .into(),
            ..Default::default()
        }]
        .into(),
        ..Default::default()
    };
    let code = |r: &kraft_protocol::messages::alter_partition_response::AlterPartitionResponse| {
        (
            r.error_code,
            r.topics
                .iter()
                .flat_map(|t| {
                    t.partitions
                        .iter()
                        .map(|p| p.error_code)
                        .collect::<Vec<_>>()
                })
                .collect::<Vec<_>>(),
        )
    };
    // A fenced broker may not rejoin the ISR.
    let mut back = shrunk.clone();
    back.push(old_leader);
    let r = c.alter_partition(3, &alter(back.clone(), 1, 1)).await;
    assert_eq!(code(&r), (0, vec![ErrorCode::IneligibleReplica.code()]));
    // An older leader epoch is fenced.
    let r = c.alter_partition(3, &alter(back.clone(), 0, 1)).await;
    assert_eq!(code(&r), (0, vec![ErrorCode::FencedLeaderEpoch.code()]));
    // A stale broker epoch refuses the whole request.
    let mut stale = alter(back.clone(), 1, 1);
    stale.broker_epoch += 1;
    let r = c.alter_partition(3, &stale).await;
    assert_eq!(r.error_code, ErrorCode::StaleBrokerEpoch.code());

    // Unfenced again, the old leader rejoins the ISR through the leader.
    let hb = c
        .broker_heartbeat(&heartbeat(old_leader, epoch_of(old_leader), 1000))
        .await;
    assert_eq!((hb.error_code, hb.is_fenced), (0, false));
    let r = c.alter_partition(3, &alter(back.clone(), 1, 1)).await;
    assert_eq!(code(&r), (0, vec![0]));
    let answered = r
        .topics
        .single()
        .and_then(|t| t.partitions.single().cloned())
        .expect("one");
    assert_eq!(
        (
            answered.leader_id,
            answered.isr.clone(),
            answered.leader_epoch,
            answered.partition_epoch
        ),
        (leader, back.clone(), 1, 2)
    );
    assert_eq!(p0(&c), (leader, back, 1, 2));
}
