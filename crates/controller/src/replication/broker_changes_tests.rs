//! Broker state changes over an image, replayed back onto it: the cases of
//! Kafka's `ReplicationControlManagerTest` that fence, unfence, shut down
//! and unregister brokers (expected states are Kafka's), and the config,
//! directory and scale behaviour around them.

use kraft_protocol::messages::broker_registration_change_record::BrokerRegistrationChangeRecord;
use kraft_protocol::messages::partition_change_record::PartitionChangeRecord;
use kraft_protocol::messages::unregister_broker_record::UnregisterBrokerRecord;
use kraft_protocol::Uuid;

use super::*;
use crate::image::LeaderRecoveryState;
use crate::replication::test_support::{broker_dir, change, partition, ImageBuilder, TestBroker};

fn settings() -> ReplicationSettings {
    ReplicationSettings::new(0, 1)
}

fn foo_id() -> Uuid {
    Uuid::from_u64_pair(0xf00, 1)
}

/// Replays `records`; each partition change must leave the partition as
/// [`PartitionState::merge`] predicts.
fn apply(image: &mut MetadataImage, records: &[MetadataRecord]) {
    for r in records {
        let predicted = match &r.body {
            kraft_protocol::MetadataRecordBody::PartitionChange(c) => {
                Some((c, part(image, c.topic_id, c.partition_id).merge(c)))
            }
            _ => None,
        };
        image.replay(r).expect("replays");
        if let Some((c, want)) = predicted {
            assert_eq!(part(image, c.topic_id, c.partition_id), want);
        }
    }
}

fn registration_change(broker: i32, fenced: i8) -> MetadataRecord {
    MetadataRecord::new(
        BrokerRegistrationChangeRecord {
            broker_id: broker,
            broker_epoch: 100 + i64::from(broker),
            fenced,
            ..Default::default()
        },
        0,
    )
}

/// Kafka's `handleBrokerFenced` then its fencing record, applied.
fn fence(image: &mut MetadataImage, broker: i32) -> Vec<MetadataRecord> {
    let mut records = fence_broker(image, broker, &settings());
    records.push(registration_change(broker, 1));
    apply(image, &records);
    records
}

/// Kafka's `handleBrokerUnfenced`: its unfencing record, then the
/// elections, applied.
fn unfence(image: &mut MetadataImage, broker: i32) -> Vec<MetadataRecord> {
    let mut records = vec![registration_change(broker, -1)];
    records.extend(unfence_broker(image, broker, &settings()));
    apply(image, &records);
    records
}

fn shutdown(image: &mut MetadataImage, broker: i32, clean: bool) {
    let records = broker_shutdown(image, broker, clean, &settings());
    apply(image, &records);
}

fn part(image: &MetadataImage, topic: Uuid, id: i32) -> PartitionState {
    PartitionState::of(image.topics().partition(&topic, id).expect("the partition"))
}

fn elr_image(brokers: &[i32], replicas: &[i32], min_isr: &str) -> MetadataImage {
    ImageBuilder::new(34, true)
        .brokers(brokers)
        .topic("foo", foo_id(), &[replicas])
        .topic_config("foo", "min.insync.replicas", min_isr)
        .build()
}

#[test]
fn fencing_a_leader_moves_its_leaderships() {
    // Kafka's testRemoveLeaderships.
    let mut image = ImageBuilder::new(34, false)
        .brokers(&[0, 1, 2, 3])
        .topic(
            "foo",
            foo_id(),
            &[&[0, 1, 2], &[1, 2, 3], &[2, 3, 0], &[0, 2, 1]],
        )
        .build();
    assert!(has_leaderships(&image, 0));
    let records = fence(&mut image, 0);
    // Partitions 0, 2 and 3 had 0 in their ISR.
    assert_eq!(records.len(), 4);
    assert!(!has_leaderships(&image, 0));
    assert_eq!(part(&image, foo_id(), 0).leader, 1);
    assert_eq!(part(&image, foo_id(), 3).leader, 2);
    assert_eq!(part(&image, foo_id(), 2).isr, vec![2, 3]);
}

#[test]
fn fencing_two_brokers_shrinks_every_isr() {
    // Kafka's testFenceMultipleBrokers.
    let mut image = ImageBuilder::new(34, false)
        .brokers(&[0, 1, 2, 3, 4])
        .topic("foo", foo_id(), &[&[1, 2, 3], &[2, 3, 4], &[0, 2, 1]])
        .build();
    fence(&mut image, 2);
    fence(&mut image, 3);
    let p0 = part(&image, foo_id(), 0);
    assert_eq!(
        (p0.replicas, p0.isr, p0.leader),
        (vec![1, 2, 3], vec![1], 1)
    );
    let p1 = part(&image, foo_id(), 1);
    assert_eq!(
        (p1.replicas, p1.isr, p1.leader),
        (vec![2, 3, 4], vec![4], 4)
    );
    let p2 = part(&image, foo_id(), 2);
    assert_eq!((p2.replicas, p2.isr), (vec![0, 2, 1], vec![0, 1]));
    assert_ne!(p2.leader, 2);
}

#[test]
fn a_fenced_leader_is_replaced_with_kafkas_record_and_epochs() {
    let mut image = ImageBuilder::new(34, false)
        .brokers(&[0, 1, 2])
        .topic("foo", foo_id(), &[&[0, 1, 2]])
        .build();
    let records = fence_broker(&image, 0, &settings());
    assert_eq!(
        records,
        vec![MetadataRecord::new(
            PartitionChangeRecord {
                topic_id: foo_id(),
                partition_id: 0,
                isr: Some(vec![1, 2]),
                leader: 1,
                ..Default::default()
            },
            2
        )]
    );
    apply(&mut image, &records);
    let p = part(&image, foo_id(), 0);
    assert_eq!((p.leader, p.leader_epoch, p.partition_epoch), (1, 1, 1));
}

#[test]
fn controlled_shutdown_moves_leadership_at_the_minimum_version() {
    // Kafka's testProcessBrokerHeartbeatInControlledShutdown (the partition
    // record that follows the in-controlled-shutdown change).
    let image = ImageBuilder::new(7, false)
        .brokers(&[0, 1, 2])
        .topic("foo", foo_id(), &[&[0, 1, 2]])
        .build();
    assert_eq!(
        controlled_shutdown_broker(&image, 0, &settings()),
        vec![MetadataRecord::new(
            PartitionChangeRecord {
                topic_id: foo_id(),
                partition_id: 0,
                isr: Some(vec![1, 2]),
                leader: 1,
                ..Default::default()
            },
            0
        )]
    );
}

#[test]
fn fencing_below_min_isr_fills_the_elr() {
    // Kafka's testEligibleLeaderReplicas_BrokerFence.
    let mut image = elr_image(&[0, 1, 2, 3], &[0, 1, 2, 3], "3");
    fence(&mut image, 2);
    fence(&mut image, 3);
    let p = part(&image, foo_id(), 0);
    assert_eq!((p.elr, p.last_known_elr), (vec![3], vec![]));
    fence(&mut image, 1);
    let p = part(&image, foo_id(), 0);
    assert_eq!((p.elr, p.last_known_elr), (vec![1, 3], vec![]));
    for b in [1, 2, 3] {
        unfence(&mut image, b);
    }
    let p = part(&image, foo_id(), 0);
    assert_eq!((p.elr, p.last_known_elr), (vec![1, 3], vec![]));
}

#[test]
fn an_elr_member_takes_over_cleanly() {
    // Kafka's testEligibleLeaderReplicas_CleanElection.
    let mut image = elr_image(&[0, 1, 2, 3], &[0, 1, 2, 3], "3");
    for b in [1, 2, 3] {
        fence(&mut image, b);
    }
    let p = part(&image, foo_id(), 0);
    assert_eq!((p.elr, p.last_known_elr), (vec![2, 3], vec![]));
    unfence(&mut image, 2);
    unfence(&mut image, 3);
    fence(&mut image, 0);
    let p = part(&image, foo_id(), 0);
    assert_eq!(p.elr, vec![0, 3]);
    assert_eq!(p.isr, vec![2]);
    assert_eq!(p.leader, 2);
    assert!(p.last_known_elr.is_empty());
}

#[test]
fn a_clean_shutdown_of_the_last_isr_member_empties_the_isr() {
    // Kafka's testEligibleLeaderReplicas_ShrinkToEmptyIsr.
    let mut image = elr_image(&[0, 1, 2], &[0, 1, 2], "3");
    fence(&mut image, 1);
    fence(&mut image, 2);
    let p = part(&image, foo_id(), 0);
    assert_eq!((p.elr, p.last_known_elr), (vec![1, 2], vec![]));
    shutdown(&mut image, 0, true);
    let p = part(&image, foo_id(), 0);
    assert_eq!((p.elr, p.last_known_elr), (vec![0, 1, 2], vec![0]));
    assert!(p.isr.is_empty());
    assert_eq!(p.leader, NO_LEADER);
}

#[test]
fn an_unclean_shutdown_leaves_the_elr() {
    // Kafka's testEligibleLeaderReplicas_UncleanShutdown.
    let mut image = elr_image(&[0, 1, 2, 3], &[0, 1, 2, 3], "3");
    for b in [1, 2, 3] {
        fence(&mut image, b);
    }
    let p = part(&image, foo_id(), 0);
    assert_eq!((p.elr, p.last_known_elr), (vec![2, 3], vec![]));
    shutdown(&mut image, 3, false);
    let p = part(&image, foo_id(), 0);
    assert_eq!((p.elr, p.last_known_elr), (vec![2], vec![]));
    shutdown(&mut image, 0, false);
    let p = part(&image, foo_id(), 0);
    assert_eq!((p.elr, p.last_known_elr), (vec![2], vec![0]));
    assert_eq!(p.leader, NO_LEADER);
}

#[test]
fn a_leaderless_partition_comes_back_through_its_last_known_leader() {
    // The elr2 topic of tests/interop/topics.sh step 3c (the same states
    // as Java controllers give there): replicas 4 and 5,
    // min.insync.replicas 2, both brokers killed and restarted in turn.
    let mut image = elr_image(&[4, 5, 6], &[4, 5], "2");
    let state = |image: &MetadataImage| {
        let p = part(image, foo_id(), 0);
        (p.leader, p.isr, p.elr, p.last_known_elr)
    };
    fence(&mut image, 4);
    assert_eq!(state(&image), (5, vec![5], vec![4], vec![]));
    // The ISR empties: both are eligible, neither may lead, and the last
    // leader is remembered.
    fence(&mut image, 5);
    assert_eq!(state(&image), (NO_LEADER, vec![], vec![4, 5], vec![5]));
    // 4 registers again after an unclean shutdown: no longer eligible.
    shutdown(&mut image, 4, false);
    assert_eq!(state(&image), (NO_LEADER, vec![], vec![5], vec![5]));
    assert_eq!(unfence(&mut image, 4).len(), 1, "only 4's unfencing record");
    assert_eq!(state(&image), (NO_LEADER, vec![], vec![5], vec![5]));
    // 5 too: the ELR empties, the last known leader stays.
    shutdown(&mut image, 5, false);
    assert_eq!(state(&image), (NO_LEADER, vec![], vec![], vec![5]));
    // Unfenced, the last known leader leads again, uncleanly.
    unfence(&mut image, 5);
    assert_eq!(state(&image), (5, vec![5], vec![], vec![]));
    let p = part(&image, foo_id(), 0);
    assert_eq!(p.leader_recovery_state, LeaderRecoveryState::Recovering);
}

#[test]
fn without_elr_an_unclean_shutdown_is_a_fencing() {
    let image = ImageBuilder::new(34, false)
        .brokers(&[0, 1, 2])
        .topic("foo", foo_id(), &[&[0, 1, 2]])
        .build();
    assert_eq!(
        broker_shutdown(&image, 0, false, &settings()),
        fence_broker(&image, 0, &settings())
    );
    assert_eq!(broker_shutdown(&image, 0, false, &settings()).len(), 1);
}

#[test]
fn the_effective_min_isr_is_capped_by_the_replication_factor() {
    // Kafka's testEligibleLeaderReplicas_EffectiveMinIsr.
    let image = elr_image(&[0, 1, 2], &[0, 1, 2], "5");
    let topic = image.topics().topic(&foo_id()).expect("foo");
    assert_eq!(topic_facts(&image, topic, 3, &settings()).min_isr, 3);
}

#[test]
fn min_isr_and_unclean_election_fall_back_through_broker_configs() {
    let build = |configs: &[(i8, &str, &str, &str)]| {
        let mut b = ImageBuilder::new(34, true).brokers(&[0, 1, 2, 3]).topic(
            "foo",
            foo_id(),
            &[&[0, 1, 2, 3]],
        );
        for (t, r, k, v) in configs {
            b = b.config(*t, r, k, v);
        }
        b.build()
    };
    let facts = |image: &MetadataImage, s: &ReplicationSettings| {
        let topic = image.topics().topic(&foo_id()).expect("foo");
        topic_facts(image, topic, 4, s)
    };
    let s = ReplicationSettings {
        node_id: 3000,
        min_insync_replicas: 2,
        unclean_leader_election_enable: true,
    };
    let image = build(&[]);
    assert_eq!(
        facts(&image, &s),
        TopicFacts {
            min_isr: 2,
            unclean_leader_election: true
        }
    );
    let broker = ConfigResource::BROKER;
    let topic = ConfigResource::TOPIC;
    let image = build(&[
        (broker, "", "min.insync.replicas", "3"),
        (broker, "", "unclean.leader.election.enable", "false"),
    ]);
    assert_eq!(
        facts(&image, &s),
        TopicFacts {
            min_isr: 3,
            unclean_leader_election: false
        }
    );
    // This controller's own BROKER config comes before the cluster default;
    // another node's does not count.
    let image = build(&[
        (broker, "", "min.insync.replicas", "3"),
        (broker, "3000", "min.insync.replicas", "1"),
        (broker, "1", "min.insync.replicas", "4"),
        (broker, "3000", "unclean.leader.election.enable", "TRUE"),
    ]);
    assert_eq!(
        facts(&image, &s),
        TopicFacts {
            min_isr: 1,
            unclean_leader_election: true
        }
    );
    let image = build(&[
        (broker, "3000", "min.insync.replicas", "1"),
        (topic, "foo", "min.insync.replicas", "4"),
        (topic, "foo", "unclean.leader.election.enable", ""),
    ]);
    assert_eq!(
        facts(&image, &s),
        TopicFacts {
            min_isr: 4,
            unclean_leader_election: false
        }
    );
}

#[test]
fn an_unclean_election_needs_the_topic_config() {
    let mut p = partition(&[0, 1], vec![broker_dir(0), broker_dir(1)], &[0], 0, 5, 7);
    p.leader_recovery_state = LeaderRecoveryState::Recovered;
    let base = || {
        ImageBuilder::new(34, false)
            .brokers(&[0, 1])
            .topic_with("foo", foo_id(), vec![p.clone()])
    };
    // Clean only: no leader, and without ELR the ISR keeps its last member.
    let image = base().build();
    let records = fence_broker(&image, 0, &settings());
    let c = change(&records[0]);
    assert_eq!((c.leader, c.isr.as_deref()), (NO_LEADER, None));
    // Unclean: broker 1 leads, alone in the ISR, recovering.
    let mut image = base()
        .topic_config("foo", "unclean.leader.election.enable", "true")
        .build();
    let records = fence_broker(&image, 0, &settings());
    assert_eq!(
        records,
        vec![MetadataRecord::new(
            PartitionChangeRecord {
                topic_id: foo_id(),
                partition_id: 0,
                isr: Some(vec![1]),
                leader: 1,
                leader_recovery_state: LeaderRecoveryState::Recovering.value(),
                ..Default::default()
            },
            2
        )]
    );
    apply(&mut image, &records);
    let after = part(&image, foo_id(), 0);
    assert_eq!(after.leader_recovery_state, LeaderRecoveryState::Recovering);
    assert_eq!((after.leader_epoch, after.partition_epoch), (6, 8));
}

#[test]
fn unfencing_elects_leaders_for_leaderless_partitions_it_can_lead() {
    let mut image = ImageBuilder::new(34, false)
        .brokers(&[0, 1, 2])
        .topic("foo", foo_id(), &[&[0, 1], &[2, 0]])
        .build();
    fence(&mut image, 0);
    fence(&mut image, 1);
    fence(&mut image, 2);
    let p = part(&image, foo_id(), 0);
    assert_eq!((p.leader, p.isr.as_slice()), (NO_LEADER, &[1][..]));
    // Broker 0 is in no leaderless ISR; the registration still says fenced
    // when the elections are generated.
    assert!(unfence_broker(&image, 0, &settings()).is_empty());
    let records = unfence_broker(&image, 1, &settings());
    assert_eq!(records.len(), 1);
    assert_eq!(change(&records[0]).leader, 1);
    assert_eq!(change(&records[0]).partition_id, 0);
    unfence(&mut image, 1);
    assert_eq!(part(&image, foo_id(), 0).leader, 1);
    assert_eq!(part(&image, foo_id(), 1).leader, NO_LEADER);
    unfence(&mut image, 2);
    assert_eq!(part(&image, foo_id(), 1).leader, 2);
}

#[test]
fn a_replica_in_an_offline_directory_may_not_lead() {
    let (d1, d2) = (Uuid::from_u64_pair(7, 1), Uuid::from_u64_pair(7, 2));
    let image = ImageBuilder::new(34, false)
        .brokers(&[0])
        .broker(TestBroker {
            directories: vec![d2],
            ..TestBroker::new(1)
        })
        .topic_with(
            "foo",
            foo_id(),
            vec![partition(
                &[0, 1],
                vec![broker_dir(0), d1],
                &[1],
                NO_LEADER,
                0,
                0,
            )],
        )
        .build();
    assert!(unfence_broker(&image, 1, &settings()).is_empty());
    assert!(has_online_dir(&image, 1, d2));
    assert!(!has_online_dir(&image, 1, d1));
    assert!(has_online_dir(&image, 1, UNASSIGNED));
    assert!(has_online_dir(&image, 1, MIGRATING));
    assert!(!has_online_dir(&image, 1, LOST));
    assert!(!has_online_dir(&image, 9, UNASSIGNED), "not registered");
}

#[test]
fn offline_directories_remove_their_replicas() {
    let (d1, d2) = (Uuid::from_u64_pair(7, 1), Uuid::from_u64_pair(7, 2));
    let image = ImageBuilder::new(34, false)
        .brokers(&[0])
        .broker(TestBroker {
            directories: vec![d1, d2],
            ..TestBroker::new(1)
        })
        .topic_with(
            "foo",
            foo_id(),
            vec![
                partition(&[0, 1], vec![broker_dir(0), d1], &[0, 1], 1, 0, 0),
                partition(&[1, 0], vec![d2, broker_dir(0)], &[1, 0], 1, 0, 0),
            ],
        )
        .build();
    let records = directories_offline(&image, 1, &[d1, Uuid::from_u64_pair(7, 9)], &settings());
    assert_eq!(
        records,
        vec![MetadataRecord::new(
            PartitionChangeRecord {
                topic_id: foo_id(),
                partition_id: 0,
                isr: Some(vec![0]),
                leader: 0,
                ..Default::default()
            },
            2
        )]
    );
    assert!(directories_offline(&image, 1, &[], &settings()).is_empty());
    assert!(directories_offline(&image, 7, &[d1], &settings()).is_empty());
}

#[test]
fn unregistering_walks_isrs_then_elrs() {
    let mut image = elr_image(&[0, 1, 2], &[0, 1, 2], "3");
    fence(&mut image, 1);
    let p = part(&image, foo_id(), 0);
    assert_eq!(
        (p.isr.as_slice(), p.elr.as_slice()),
        (&[0, 2][..], &[1][..])
    );
    // Broker 1 is only in the ELR: Kafka's builder keeps it there (the
    // broker to remove is not filtered out of the ELR), so nothing changes.
    assert!(unregister_broker(&image, 1, &settings()).is_empty());
    // Broker 0 leads: it leaves the ISR for the ELR, 2 takes over.
    let records = unregister_broker(&image, 0, &settings());
    assert_eq!(
        records,
        vec![MetadataRecord::new(
            PartitionChangeRecord {
                topic_id: foo_id(),
                partition_id: 0,
                isr: Some(vec![2]),
                leader: 2,
                eligible_leader_replicas: Some(vec![0, 1]),
                ..Default::default()
            },
            2
        )]
    );
    apply(&mut image, &records);
    image
        .replay(&MetadataRecord::new(
            UnregisterBrokerRecord {
                broker_id: 0,
                broker_epoch: 100,
                ..Default::default()
            },
            0,
        ))
        .expect("unregisters");
    let p = part(&image, foo_id(), 0);
    assert_eq!((p.leader, p.isr, p.elr), (2, vec![2], vec![0, 1]));
}

#[test]
fn leaderships_need_the_leader_in_the_isr() {
    let image = ImageBuilder::new(34, false)
        .brokers(&[0, 1])
        .topic_with(
            "foo",
            foo_id(),
            vec![partition(
                &[0, 1],
                vec![broker_dir(0), broker_dir(1)],
                &[1],
                0,
                0,
                0,
            )],
        )
        .build();
    assert!(!has_leaderships(&image, 0), "leader outside the ISR");
    assert!(!has_leaderships(&image, 1));
    assert!(!has_leaderships(&MetadataImage::new(), 0));
}

#[test]
fn no_metadata_version_changes_nothing() {
    let image = MetadataImage::new();
    assert!(fence_broker(&image, 0, &settings()).is_empty());
    assert!(unfence_broker(&image, 0, &settings()).is_empty());
}

#[test]
fn a_hundred_thousand_partitions_are_scanned_without_touching_the_others() {
    // 1,000 topics of 100 partitions; broker 9 is in one partition of every
    // tenth topic.
    let brokers: Vec<i32> = (0..10).collect();
    let mut b = ImageBuilder::new(34, true).brokers(&brokers);
    for t in 0..1000u64 {
        let parts: Vec<PartitionState> = (0..100)
            .map(|i| {
                let replicas: [i32; 3] = if t % 10 == 0 && i == 0 {
                    [9, 1, 2]
                } else {
                    [i % 3, 3 + i % 3, 6 + i % 3]
                };
                let dirs = replicas.iter().map(|r| broker_dir(*r)).collect();
                partition(&replicas, dirs, &replicas, replicas[0], 0, 0)
            })
            .collect();
        b = b.topic_with(&format!("t{t}"), Uuid::from_u64_pair(1, t), parts);
    }
    let image = b.build();
    let start = std::time::Instant::now();
    assert_eq!(fence_broker(&image, 9, &settings()).len(), 100);
    assert!(has_leaderships(&image, 9));
    assert!(unfence_broker(&image, 9, &settings()).is_empty());
    assert!(!has_leaderships(&image, 8));
    assert!(
        start.elapsed() < std::time::Duration::from_secs(5),
        "{:?}",
        start.elapsed()
    );
}

#[test]
fn a_partition_change_over_the_image_answers_with_the_merged_state() {
    use crate::replication::partition_change::{
        min_isr_for_topic, unclean_election_enabled, PartitionChange,
    };
    let mut image = ImageBuilder::new(34, true)
        .brokers(&[0, 1, 2])
        .topic("foo", foo_id(), &[&[0, 1, 2]])
        .topic_config("foo", "min.insync.replicas", "2")
        .topic_config("foo", "unclean.leader.election.enable", "true")
        .build();
    let s = settings();
    assert_eq!(min_isr_for_topic(&image, "foo", &s), 2);
    assert_eq!(min_isr_for_topic(&image, "bar", &s), 1);
    assert!(unclean_election_enabled(&image, "foo", &s));
    assert!(!unclean_election_enabled(&image, "bar", &s));
    let view = image.topics().partition(&foo_id(), 0).expect("partition");
    let before = PartitionState::of(view);
    // Nothing asked, nothing changes.
    let same = PartitionChange::new(&image, foo_id(), 0, view, 2).build();
    assert_eq!((same.record, &same.after), (None, &before));
    // An ISR below the minimum moves the others to the ELR.
    let outcome = PartitionChange::new(&image, foo_id(), 0, view, 2)
        .target_isr(vec![0])
        .build();
    let record = outcome.record.clone().expect("a change");
    assert_eq!(
        change(&record),
        &PartitionChangeRecord {
            topic_id: foo_id(),
            partition_id: 0,
            isr: Some(vec![0]),
            eligible_leader_replicas: Some(vec![1, 2]),
            ..Default::default()
        }
    );
    assert_eq!(
        (outcome.after.isr.as_slice(), outcome.after.elr.as_slice()),
        (&[0][..], &[1, 2][..])
    );
    assert_eq!(
        (outcome.after.leader_epoch, outcome.after.partition_epoch),
        (0, 1)
    );
    apply(&mut image, &[record]);
    assert_eq!(part(&image, foo_id(), 0), outcome.after);
    // A fenced broker may not lead: without 0, broker 2 takes over.
    image
        .replay(&registration_change(1, 1))
        .expect("fences broker 1");
    let view = image.topics().partition(&foo_id(), 0).expect("partition");
    let outcome = PartitionChange::new(&image, foo_id(), 0, view, 2)
        .target_isr(vec![1, 2])
        .build();
    assert_eq!(outcome.after.leader, 2);
    assert_eq!(outcome.after.leader_epoch, 1);
    // No metadata.version: nothing changes.
    let empty = MetadataImage::new();
    let outcome = PartitionChange::new(&empty, foo_id(), 0, view, 2)
        .target_isr(vec![2])
        .build();
    assert_eq!(outcome.record, None);
}
