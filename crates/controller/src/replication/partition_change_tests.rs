//! Kafka's `PartitionChangeBuilderTest`, case by case (expected records are
//! Kafka's), plus the JVM `HashSet` order of new ELRs.

use kraft_protocol::messages::partition_change_record::PartitionChangeRecord;
use kraft_protocol::Uuid;

use super::*;
use crate::replication::test_support::{change, merged, mv, mv_named, partition, uuid};
use crate::replication::{LOST, MIGRATING, NO_LEADER, NO_LEADER_CHANGE, UNASSIGNED};

/// The metadata.version Kafka's test pairs with each PartitionChangeRecord
/// version: 3.7-IV0, 3.7-IV2, 4.0-IV1.
fn mv_for_version(version: i16) -> MetadataVersion {
    match version {
        0 => mv(15),
        1 => mv(17),
        _ => mv(23),
    }
}

const VERSIONS: [i16; 3] = [0, 1, 2];

fn unassigned(_: i32) -> Uuid {
    UNASSIGNED
}

/// Builds with `f` applied to a fresh builder.
fn build(
    p: &PartitionState,
    topic: Uuid,
    accept: &dyn Fn(i32) -> bool,
    metadata_version: MetadataVersion,
    min_isr: i32,
    elr_enabled: bool,
    f: impl FnOnce(PartitionChangeBuilder<'_>) -> PartitionChangeBuilder<'_>,
) -> Option<MetadataRecord> {
    let context = ChangeContext {
        metadata_version,
        min_isr,
        elr_enabled,
        is_acceptable_leader: accept,
        default_directory: &unassigned,
    };
    f(PartitionChangeBuilder::new(p, topic, 0, context)).build()
}

/// The election result with `f` applied to a fresh builder.
fn elect(
    p: &PartitionState,
    accept: &dyn Fn(i32) -> bool,
    version: i16,
    f: impl FnOnce(PartitionChangeBuilder<'_>) -> PartitionChangeBuilder<'_>,
) -> (i32, bool) {
    let metadata_version = mv_for_version(version);
    let context = ChangeContext {
        metadata_version,
        min_isr: 2,
        elr_enabled: metadata_version.is_elr_supported(),
        is_acceptable_leader: accept,
        default_directory: &unassigned,
    };
    let r = f(PartitionChangeBuilder::new(p, Uuid::nil(), 0, context)).elect_leader();
    (r.node, r.unclean)
}

fn record(topic: Uuid, f: impl FnOnce(&mut PartitionChangeRecord)) -> PartitionChangeRecord {
    let mut r = PartitionChangeRecord {
        topic_id: topic,
        partition_id: 0,
        ..Default::default()
    };
    f(&mut r);
    r
}

fn at(r: PartitionChangeRecord, version: i16) -> Option<MetadataRecord> {
    Some(MetadataRecord::new(r, version))
}

fn foo_id() -> Uuid {
    uuid("FbrrdcfiR-KC2CPSTHaJrg")
}

fn foo() -> PartitionState {
    partition(
        &[2, 1, 3],
        vec![
            uuid("dpdvA5AZSWySmnPFTnu5Kw"),
            uuid("V60B3cglScq3Xk8BX1NxAQ"),
            UNASSIGNED,
        ],
        &[2, 1, 3],
        1,
        100,
        200,
    )
}

fn not_3(r: i32) -> bool {
    r != 3
}

fn build_foo(
    version_mv: MetadataVersion,
    f: impl FnOnce(PartitionChangeBuilder<'_>) -> PartitionChangeBuilder<'_>,
) -> Option<MetadataRecord> {
    build(
        &foo(),
        foo_id(),
        &not_3,
        version_mv,
        2,
        version_mv.is_elr_supported(),
        f,
    )
}

fn bar_id() -> Uuid {
    uuid("LKfUsCBnQKekvL9O5dY9nw")
}

fn bar() -> PartitionState {
    let mut p = partition(
        &[1, 2, 3, 4],
        vec![
            UNASSIGNED,
            uuid("X5FnAcIgTheWgTMzeO5WHw"),
            uuid("GtrcdoSOTm2vFMGFeZq0eg"),
            uuid("YcOqPw5ARmeKr1y9W3AkFw"),
        ],
        &[1, 2, 3],
        1,
        100,
        200,
    );
    p.removing_replicas = vec![1];
    p.adding_replicas = vec![4];
    p
}

fn build_bar(
    version: i16,
    f: impl FnOnce(PartitionChangeBuilder<'_>) -> PartitionChangeBuilder<'_>,
) -> Option<MetadataRecord> {
    build(
        &bar(),
        bar_id(),
        &not_3,
        mv_for_version(version),
        2,
        version >= 2,
        f,
    )
}

fn baz() -> PartitionState {
    partition(
        &[2, 1, 3],
        vec![
            uuid("ywnfFpTBTbOsFdZ6uAdOmw"),
            uuid("Th0x70ecRbWvZNNV33jyRA"),
            uuid("j216tuSoQsC9JFd1Z5ZP6w"),
        ],
        &[1, 3],
        3,
        100,
        200,
    )
}

fn offline_without_elr() -> PartitionState {
    partition(
        &[2, 1, 3],
        vec![
            uuid("iYGgiDV5Sb2EtH6hbgYnCA"),
            uuid("XI2t4qAUSkGlLZSKeEVf8g"),
            uuid("eqRW24kIRlitzQFzmovE0Q"),
        ],
        &[3],
        NO_LEADER,
        100,
        200,
    )
}

fn offline_with_elr() -> PartitionState {
    let mut p = partition(
        &[2, 1, 3],
        vec![
            uuid("CQEqt7trRrmqyNxUT1CY0g"),
            uuid("59Mb9smoSsC0bGUP2FYV8A"),
            uuid("LBTmsCVJREqJuIEtwqxRDg"),
        ],
        &[],
        NO_LEADER,
        100,
        200,
    );
    p.elr = vec![3];
    p.last_known_elr = vec![2];
    p
}

fn build_offline(
    version: i16,
    f: impl FnOnce(PartitionChangeBuilder<'_>) -> PartitionChangeBuilder<'_>,
) -> Option<MetadataRecord> {
    let metadata_version = mv_for_version(version);
    let only_1 = |r: i32| r == 1;
    if metadata_version.is_elr_supported() {
        build(
            &offline_with_elr(),
            bar_id(),
            &only_1,
            metadata_version,
            2,
            true,
            f,
        )
    } else {
        build(
            &offline_without_elr(),
            bar_id(),
            &only_1,
            metadata_version,
            2,
            false,
            f,
        )
    }
}

#[test]
fn change_record_no_op_checks_every_changeable_field() {
    // Kafka's testChangeRecordIsNoOp.
    assert!(change_record_is_no_op(&PartitionChangeRecord::default()));
    let changed: [fn(&mut PartitionChangeRecord); 9] = [
        |r| r.leader = 1,
        |r| r.isr = Some(vec![1, 2, 3]),
        |r| r.removing_replicas = Some(vec![1]),
        |r| r.adding_replicas = Some(vec![4]),
        |r| r.eligible_leader_replicas = Some(vec![5]),
        |r| r.last_known_elr = Some(vec![6]),
        |r| r.leader_recovery_state = LeaderRecoveryState::Recovered.value(),
        |r| {
            r.directories = Some(vec![
                uuid("5JwD0VNXRV2Wr9CCON38Tw"),
                uuid("zpL1bRzTQXmmgdxlLHOWuw"),
                uuid("6iGUpAkHQXC6bY0FTcPRDw"),
            ])
        },
        |r| r.replicas = Some(vec![1]),
    ];
    for set in changed {
        let mut r = PartitionChangeRecord::default();
        set(&mut r);
        assert!(!change_record_is_no_op(&r), "{r:?}");
    }
}

#[test]
fn elect_leader_follows_the_election_type() {
    // Kafka's testElectLeader.
    for v in VERSIONS {
        let (foo, baz) = (foo(), baz());
        let all = |_: i32| true;
        let e = |f: fn(PartitionChangeBuilder<'_>) -> PartitionChangeBuilder<'_>| {
            elect(&foo, &not_3, v, f)
        };
        assert_eq!(e(|b| b.set_election(Election::Preferred)), (2, false));
        assert_eq!(e(|b| b), (1, false));
        assert_eq!(e(|b| b.set_election(Election::Unclean)), (1, false));
        assert_eq!(e(|b| b.set_target_isr(vec![1, 3])), (1, false));
        assert_eq!(
            e(|b| b.set_election(Election::Unclean).set_target_isr(vec![1, 3])),
            (1, false)
        );
        assert_eq!(e(|b| b.set_target_isr(vec![3])), (NO_LEADER, false));
        assert_eq!(
            e(|b| b.set_election(Election::Unclean).set_target_isr(vec![3])),
            (2, true)
        );
        assert_eq!(
            e(|b| b
                .set_election(Election::Unclean)
                .set_target_isr(vec![4])
                .set_target_replicas(vec![2, 1, 3, 4])),
            (4, false)
        );
        assert_eq!(
            elect(&baz, &all, v, |b| b.set_election(Election::Preferred)),
            (3, false)
        );
        assert_eq!(elect(&baz, &all, v, |b| b), (3, false));
        assert_eq!(
            elect(&baz, &all, v, |b| b.set_election(Election::Unclean)),
            (3, false)
        );
    }
}

/// Kafka's `testTriggerLeaderEpochBumpIfNeeded`: the leader after the two
/// epoch-bump triggers on an empty record whose ISR is the target ISR.
fn leader_after_bumps(
    metadata_version: MetadataVersion,
    f: impl FnOnce(PartitionChangeBuilder<'_>) -> PartitionChangeBuilder<'_>,
) -> i32 {
    let p = foo();
    let context = ChangeContext {
        metadata_version,
        min_isr: 2,
        elr_enabled: metadata_version.is_elr_supported(),
        is_acceptable_leader: &not_3,
        default_directory: &unassigned,
    };
    let b = f(PartitionChangeBuilder::new(&p, foo_id(), 0, context));
    let mut r = PartitionChangeRecord::default();
    b.trigger_leader_epoch_bump_for_replica_reassignment(&mut r);
    r.isr = Some(b.target_isr().to_vec());
    b.trigger_leader_epoch_bump_for_isr_shrink(&mut r);
    r.leader
}

#[test]
fn leader_epoch_bumps_only_where_kafka_bumps_it() {
    // Kafka's testNoLeaderEpochBumpIfNothingChanged.
    for v in VERSIONS {
        assert_eq!(
            leader_after_bumps(mv_for_version(v), |b| b),
            NO_LEADER_CHANGE
        );
    }
    // testNoLeaderEpochBumpOnIsrShrink / testLeaderEpochBumpOnIsrShrink.
    for name in ["3.6-IV0", "3.7-IV2", "4.0-IV0"] {
        assert_eq!(
            leader_after_bumps(mv_named(name), |b| b.set_target_isr(vec![2, 1])),
            NO_LEADER_CHANGE,
            "{name}"
        );
    }
    for name in ["3.4-IV0", "3.5-IV2"] {
        assert_eq!(
            leader_after_bumps(mv_named(name), |b| b.set_target_isr(vec![2, 1])),
            1,
            "{name}"
        );
    }
    let all = ["3.4-IV0", "3.5-IV2", "3.6-IV0", "3.7-IV2", "4.0-IV0"];
    // testNoLeaderEpochBumpOnIsrExpansion.
    for name in all {
        assert_eq!(
            leader_after_bumps(mv_named(name), |b| b.set_target_isr(vec![2, 1, 3, 4])),
            NO_LEADER_CHANGE,
            "{name}"
        );
    }
    // testLeaderEpochBumpOnNewReplicaSetDisjoint.
    for name in all {
        assert_eq!(
            leader_after_bumps(mv_named(name), |b| b.set_target_replicas(vec![2, 1, 4])),
            1,
            "{name}"
        );
    }
}

#[test]
fn no_leader_epoch_bump_on_an_empty_target_isr() {
    // Kafka's testNoLeaderEpochBumpOnEmptyTargetIsr (KAFKA-16624).
    let p = partition(
        &[2],
        vec![uuid("dpdvA5AZSWySmnPFTnu5Kw")],
        &[2],
        2,
        100,
        200,
    );
    for name in ["3.4-IV0", "3.5-IV2", "3.6-IV0", "3.7-IV2"] {
        let metadata_version = mv_named(name);
        let all = |_: i32| true;
        let context = ChangeContext {
            metadata_version,
            min_isr: 2,
            elr_enabled: metadata_version.is_elr_supported(),
            is_acceptable_leader: &all,
            default_directory: &unassigned,
        };
        let b = PartitionChangeBuilder::new(&p, foo_id(), 0, context).set_target_replicas(vec![]);
        let mut r = PartitionChangeRecord::default();
        b.trigger_leader_epoch_bump_for_isr_shrink(&mut r);
        assert_eq!(r.leader, NO_LEADER_CHANGE, "{name}");
    }
}

#[test]
fn nothing_to_change_builds_nothing() {
    // Kafka's testNoChange.
    for v in VERSIONS {
        let mv = mv_for_version(v);
        assert_eq!(build_foo(mv, |b| b), None);
        assert_eq!(build_foo(mv, |b| b.set_election(Election::Unclean)), None);
        assert_eq!(build_bar(v, |b| b), None);
        assert_eq!(build_bar(v, |b| b.set_election(Election::Unclean)), None);
        let all = |_: i32| true;
        assert_eq!(
            build(
                &baz(),
                uuid("wQzt5gkSTwuQNXZF5gIw7A"),
                &all,
                mv,
                2,
                v >= 2,
                |b| b.set_election(Election::Preferred)
            ),
            None
        );
    }
}

#[test]
fn an_isr_change_alone_keeps_the_leader() {
    // Kafka's testIsrChangeDoesntBumpLeaderEpoch.
    for v in VERSIONS {
        assert_eq!(
            build_foo(mv_for_version(v), |b| b.set_target_isr(vec![2, 1])),
            at(record(foo_id(), |r| r.isr = Some(vec![2, 1])), v)
        );
    }
}

#[test]
fn an_isr_without_the_leader_elects_another() {
    // Kafka's testIsrChangeAndLeaderChange.
    for v in VERSIONS {
        assert_eq!(
            build_foo(mv_for_version(v), |b| b.set_target_isr(vec![2, 3])),
            at(
                record(foo_id(), |r| {
                    r.isr = Some(vec![2, 3]);
                    r.leader = 2;
                }),
                v
            )
        );
    }
}

/// FOO's directory of each replica.
fn foo_dir(replica: i32) -> Uuid {
    foo().directory(replica).expect("a replica of FOO")
}

fn bar_dir(replica: i32) -> Uuid {
    bar().directory(replica).expect("a replica of BAR")
}

#[test]
fn reordering_replicas_moves_their_directories() {
    // Kafka's testReassignmentRearrangesReplicas.
    for v in VERSIONS {
        let want = record(foo_id(), |r| {
            r.replicas = Some(vec![3, 2, 1]);
            if v >= 1 {
                r.directories = Some(vec![foo_dir(3), foo_dir(2), foo_dir(1)]);
            }
        });
        assert_eq!(
            build_foo(mv_for_version(v), |b| b.set_target_replicas(vec![3, 2, 1])),
            at(want, v)
        );
    }
}

#[test]
fn isr_enlargement_completes_a_reassignment() {
    // Kafka's testIsrEnlargementCompletesReassignment.
    for v in VERSIONS {
        let want = record(bar_id(), |r| {
            r.replicas = Some(vec![2, 3, 4]);
            r.isr = Some(vec![2, 3, 4]);
            r.leader = 2;
            r.removing_replicas = Some(vec![]);
            r.adding_replicas = Some(vec![]);
            if v >= 1 {
                r.directories = Some(vec![bar_dir(2), bar_dir(3), bar_dir(4)]);
            }
        });
        assert_eq!(
            build_bar(v, |b| b.set_target_isr(vec![1, 2, 3, 4])),
            at(want, v)
        );
    }
}

#[test]
fn reverting_a_reassignment_bumps_the_leader_epoch() {
    // Kafka's testRevertReassignment (the revert of BAR is replicas and ISR
    // [1, 2, 3]).
    for v in VERSIONS {
        let want = record(bar_id(), |r| {
            r.replicas = Some(vec![1, 2, 3]);
            r.leader = 1;
            r.removing_replicas = Some(vec![]);
            r.adding_replicas = Some(vec![]);
            if v >= 1 {
                r.directories = Some(vec![bar_dir(1), bar_dir(2), bar_dir(3)]);
            }
        });
        assert_eq!(
            build_bar(v, |b| b
                .set_target_replicas(vec![1, 2, 3])
                .set_target_isr(vec![1, 2, 3])
                .set_target_removing(vec![])
                .set_target_adding(vec![])),
            at(want, v)
        );
    }
}

#[test]
fn a_removing_reassignment_completes_at_once_when_in_sync() {
    // Kafka's testRemovingReplicaReassignment: [2, 1, 3] -> [1, 2] is
    // replicas [1, 2, 3] removing [3].
    for v in VERSIONS {
        let want = record(foo_id(), |r| {
            r.replicas = Some(vec![1, 2]);
            r.isr = Some(vec![2, 1]);
            r.leader = 1;
            if v >= 1 {
                r.directories = Some(vec![foo_dir(1), foo_dir(2)]);
            }
        });
        assert_eq!(
            build_foo(mv_for_version(v), |b| b
                .set_target_replicas(vec![1, 2, 3])
                .set_target_removing(vec![3])),
            at(want, v)
        );
    }
}

#[test]
fn an_adding_reassignment_waits_for_the_new_replica() {
    // Kafka's testAddingReplicaReassignment: [2, 1, 3] -> [1, 2, 3, 4].
    for v in VERSIONS {
        let want = record(foo_id(), |r| {
            r.replicas = Some(vec![1, 2, 3, 4]);
            r.adding_replicas = Some(vec![4]);
            if v >= 1 {
                r.directories = Some(vec![foo_dir(1), foo_dir(2), foo_dir(3), UNASSIGNED]);
            }
        });
        assert_eq!(
            build_foo(mv_for_version(v), |b| b
                .set_target_replicas(vec![1, 2, 3, 4])
                .set_target_adding(vec![4])),
            at(want, v)
        );
    }
}

#[test]
fn unclean_elections_recover_the_leader_and_clear_the_elr() {
    // Kafka's testUncleanLeaderElection.
    for v in VERSIONS {
        assert_eq!(
            build_foo(mv_for_version(v), |b| b
                .set_election(Election::Unclean)
                .set_target_isr(vec![3])),
            at(
                record(foo_id(), |r| {
                    r.isr = Some(vec![2]);
                    r.leader = 2;
                    r.leader_recovery_state = LeaderRecoveryState::Recovering.value();
                }),
                v
            )
        );
        let want = at(
            record(bar_id(), |r| {
                r.isr = Some(vec![1]);
                r.leader = 1;
                r.leader_recovery_state = LeaderRecoveryState::Recovering.value();
                if v >= 2 {
                    r.eligible_leader_replicas = Some(vec![]);
                    r.last_known_elr = Some(vec![]);
                }
            }),
            v,
        );
        assert_eq!(
            build_offline(v, |b| b.set_election(Election::Unclean)),
            want
        );
        assert_eq!(
            build_offline(v, |b| b
                .set_election(Election::Unclean)
                .set_target_isr(vec![2])),
            want
        );
    }
}

#[test]
fn a_change_of_leadership_keeps_the_recovery_state() {
    // Kafka's testChangeInLeadershipDoesNotChangeRecoveryState.
    let mut p = partition(
        &[1, 2, 3],
        vec![
            uuid("1sF6XXLkSN2LtDums7CJ8Q"),
            uuid("iaBBVsoHQR6NDKXwliKMqw"),
            uuid("sHaBwjdrR2S3bL4E1RKC8Q"),
        ],
        &[1],
        1,
        100,
        200,
    );
    p.leader_recovery_state = LeaderRecoveryState::Recovering;
    let minimum = MetadataVersion::MINIMUM;
    let none = |_: i32| false;
    let offline = build(&p, foo_id(), &none, minimum, 2, false, |b| {
        b.set_target_isr(vec![])
    })
    .expect("a change");
    assert_eq!(offline.version, 0);
    assert_eq!(change(&offline).leader_recovery_state, -1);
    assert_eq!(change(&offline).leader, NO_LEADER);
    let p = merged(&p, &offline);
    assert_eq!(
        (p.leader, p.isr.as_slice(), p.leader_recovery_state),
        (NO_LEADER, &[1][..], LeaderRecoveryState::Recovering)
    );
    let all = |_: i32| true;
    let online = build(&p, foo_id(), &all, minimum, 2, false, |b| b).expect("a change");
    assert_eq!(change(&online).leader_recovery_state, -1);
    let p = merged(&p, &online);
    assert_eq!(
        (p.leader, p.isr.as_slice(), p.leader_recovery_state),
        (1, &[1][..], LeaderRecoveryState::Recovering)
    );
}

#[test]
fn an_unclean_election_makes_the_leader_recovering() {
    // Kafka's testUncleanSetsLeaderRecoveringState.
    let p = partition(
        &[1, 2, 3],
        vec![
            uuid("uYpxts0pS4K4bk5XOoXB4g"),
            uuid("kS6fHEqwRYucduWkmvsevw"),
            uuid("De9RqRThQRGjKg3i3yzUxA"),
        ],
        &[2, 3],
        NO_LEADER,
        100,
        200,
    );
    let only_1 = |r: i32| r == 1;
    let r = build(
        &p,
        foo_id(),
        &only_1,
        MetadataVersion::MINIMUM,
        2,
        false,
        |b| b.set_election(Election::Unclean),
    )
    .expect("a change");
    let c = change(&r);
    assert_eq!(
        c.leader_recovery_state,
        LeaderRecoveryState::Recovering.value()
    );
    assert_eq!((c.leader, c.isr.as_deref()), (1, Some(&[1][..])));
    let p = merged(&p, &r);
    assert_eq!(
        (p.leader, p.isr.as_slice(), p.leader_recovery_state),
        (1, &[1][..], LeaderRecoveryState::Recovering)
    );
    assert_eq!((p.leader_epoch, p.partition_epoch), (101, 201));
}

#[test]
fn a_removed_leader_is_demoted_when_the_reassignment_completes() {
    // Kafka's
    // testStoppedLeaderIsDemotedAfterReassignmentCompletesEvenIfNoNewEligibleLeaders.
    let mut p = partition(
        &[2, 3, 0, 1],
        vec![
            uuid("XCBQClkBSZyphD87QUXzDA"),
            uuid("Or2Rp9tTQOSVuy12hsfmTA"),
            uuid("pThsodMNSwGvljTfc1RNVQ"),
            uuid("d8CGoNJmS5mJdF20tc8P7g"),
        ],
        &[0, 1],
        0,
        0,
        0,
    );
    p.removing_replicas = vec![0, 1];
    p.adding_replicas = vec![2, 3];
    let topic = uuid("ONlQ7DDzQtGESsG499UDQg");
    let none = |_: i32| false;
    assert_eq!(
        build(&p, topic, &none, MetadataVersion::MINIMUM, 2, false, |b| b
            .set_target_isr(vec![0, 1, 2, 3])),
        at(
            record(topic, |r| {
                r.replicas = Some(vec![2, 3]);
                r.isr = Some(vec![2, 3]);
                r.removing_replicas = Some(vec![]);
                r.adding_replicas = Some(vec![]);
                r.leader = NO_LEADER;
            }),
            0
        )
    );
}

#[test]
fn an_isr_below_min_isr_moves_its_members_to_the_elr() {
    // Kafka's testEligibleLeaderReplicas_IsrShrinkBelowMinISR.
    for v in VERSIONS {
        let p = partition(
            &[1, 2, 3, 4],
            vec![
                uuid("NeQeLdHhSXi4tQGaFcszKA"),
                uuid("LsVrQZ73RSSuEWA8hhqQhg"),
                uuid("0IaY4zXKRR6sROgE8yHfnw"),
                uuid("1WxphfLCSZqMHKK4JMppuw"),
            ],
            &[1, 2, 3, 4],
            1,
            100,
            200,
        );
        let r = build(&p, foo_id(), &not_3, mv_for_version(v), 3, v >= 2, |b| {
            b.set_election(Election::Preferred)
                .set_use_last_known_leader_in_balanced_recovery(false)
                .set_target_isr(vec![1, 2])
        });
        let want = record(foo_id(), |r| {
            r.isr = Some(vec![1, 2]);
            if v >= 2 {
                r.eligible_leader_replicas = Some(vec![3, 4]);
            }
        });
        assert_eq!(r, at(want, v));
        let p = merged(&p, &r.expect("a change"));
        if v >= 2 {
            assert_eq!((p.elr, p.last_known_elr), (vec![3, 4], vec![]));
        } else {
            assert!(p.elr.is_empty() && p.last_known_elr.is_empty());
        }
    }
}

#[test]
fn a_leaderless_partition_remembers_its_last_leader() {
    // Kafka's testEligibleLeaderReplicas_lastKnownElrShouldBePopulatedWhenNoLeader.
    let mut p = partition(&[1, 2, 3], vec![UNASSIGNED; 3], &[1], 1, 100, 200);
    p.elr = vec![2];
    let none = |_: i32| false;
    let r = build(&p, foo_id(), &none, mv_for_version(2), 3, true, |b| {
        b.set_election(Election::Preferred)
            .set_use_last_known_leader_in_balanced_recovery(true)
    })
    .expect("a change");
    let c = change(&r);
    assert_eq!(c.leader, NO_LEADER);
    assert_eq!(c.isr, None, "{c:?}");
    assert_eq!(c.last_known_elr.as_deref(), Some(&[1][..]));
    assert_eq!(merged(&p, &r).last_known_elr, vec![1]);
}

#[test]
fn an_isr_back_at_min_isr_clears_both_elr_lists() {
    // Kafka's testEligibleLeaderReplicas_IsrExpandAboveMinISR.
    for v in VERSIONS {
        let mut p = partition(
            &[1, 2, 3, 4],
            vec![
                uuid("CWgRKBKkToGn1HKzNb2qqQ"),
                uuid("SCnk7zfSQSmlKqvV702d3A"),
                uuid("9tO0QHlJRhimjKfH8m9d8A"),
                uuid("JaaqVOxNT2OGVNCCIFA2JQ"),
            ],
            &[1, 2],
            1,
            100,
            200,
        );
        p.elr = vec![3];
        p.last_known_elr = vec![4];
        let r = build(&p, foo_id(), &not_3, mv_for_version(v), 3, v >= 2, |b| {
            b.set_election(Election::Preferred)
                .set_use_last_known_leader_in_balanced_recovery(false)
                .set_target_isr(vec![1, 2, 3])
        });
        let want = record(foo_id(), |r| {
            r.isr = Some(vec![1, 2, 3]);
            r.eligible_leader_replicas = Some(vec![]);
            r.last_known_elr = Some(vec![]);
        });
        assert_eq!(r, at(want, v));
        let p = merged(&p, &r.expect("a change"));
        assert!(p.elr.is_empty() && p.last_known_elr.is_empty());
    }
}

#[test]
fn a_new_isr_member_outside_the_elr_leaves_the_elr_alone() {
    // Kafka's testEligibleLeaderReplicas_IsrAddNewMemberNotInELR.
    for v in VERSIONS {
        let mut p = partition(
            &[1, 2, 3, 4],
            vec![
                uuid("gPcIwlldQXikdUB3F4GB6w"),
                uuid("gFs7V8mKR66z8e5qwtjIMA"),
                uuid("zKHU2fwrRkuypqTgITl46g"),
                uuid("zEgmBBh8QJGqbBIvzvH7JA"),
            ],
            &[1],
            1,
            100,
            200,
        );
        p.elr = vec![3];
        p.last_known_elr = vec![2];
        let r = build(&p, foo_id(), &not_3, mv_for_version(v), 3, v >= 2, |b| {
            b.set_election(Election::Preferred)
                .set_use_last_known_leader_in_balanced_recovery(false)
                .set_target_isr(vec![1, 4])
        });
        let want = record(foo_id(), |r| {
            r.isr = Some(vec![1, 4]);
            if v < 2 {
                r.eligible_leader_replicas = Some(vec![]);
                r.last_known_elr = Some(vec![]);
            }
        });
        assert_eq!(r, at(want, v));
        let p = merged(&p, &r.expect("a change"));
        if v >= 2 {
            assert_eq!((p.elr, p.last_known_elr), (vec![3], vec![2]));
        } else {
            assert!(p.elr.is_empty() && p.last_known_elr.is_empty());
        }
    }
}

#[test]
fn unclean_shutdown_replicas_leave_the_elr() {
    // Kafka's testEligibleLeaderReplicas_RemoveUncleanShutdownReplicasFromElr.
    for v in VERSIONS {
        let mut p = partition(
            &[1, 2, 3, 4],
            vec![
                uuid("keB9ssIPRlibyVJT5FcBVA"),
                uuid("FhezfoReTSmHoKxi8wOIOg"),
                uuid("QHtFxu8LShm6RiyAP6PxYg"),
                uuid("tUJOMtvMQkGga30ydluvbQ"),
            ],
            &[1],
            1,
            100,
            200,
        );
        p.elr = vec![2, 3];
        let r = build(&p, foo_id(), &not_3, mv_for_version(v), 3, v >= 2, |b| {
            b.set_election(Election::Preferred)
                .set_use_last_known_leader_in_balanced_recovery(false)
                .set_unclean_shutdown_replicas(vec![3])
        });
        let want = record(foo_id(), |r| {
            if v >= 2 {
                r.eligible_leader_replicas = Some(vec![2]);
                r.last_known_elr = Some(vec![3]);
            } else {
                r.eligible_leader_replicas = Some(vec![]);
            }
        });
        assert_eq!(r, at(want, v));
        let p = merged(&p, &r.expect("a change"));
        if v >= 2 {
            assert_eq!((p.elr, p.last_known_elr), (vec![2], vec![3]));
        } else {
            assert!(p.elr.is_empty() && p.last_known_elr.is_empty());
        }
    }
}

#[test]
fn directories_follow_their_replicas_through_a_reassignment() {
    // Kafka's testKeepsDirectoriesAfterReassignment.
    let p = partition(
        &[2, 1, 3],
        vec![
            uuid("v1PVrX6uS5m8CByXlLfmWg"),
            uuid("iU2znv45Q9yQkOpkTSy3jA"),
            uuid("fM5NKyWTQHqEihjIkUl99Q"),
        ],
        &[2, 1, 3],
        1,
        100,
        200,
    );
    let all = |_: i32| true;
    assert_eq!(
        build(&p, foo_id(), &all, mv(17), 2, false, |b| b
            .set_target_replicas(vec![3, 1, 5, 4])
            .set_directory(5, uuid("RNJ5oFjjSSWMMFRwqdCfJg"))),
        at(
            record(foo_id(), |r| {
                r.leader = 1;
                r.replicas = Some(vec![3, 1, 5, 4]);
                r.directories = Some(vec![
                    uuid("fM5NKyWTQHqEihjIkUl99Q"),
                    uuid("iU2znv45Q9yQkOpkTSy3jA"),
                    uuid("RNJ5oFjjSSWMMFRwqdCfJg"),
                    UNASSIGNED,
                ]);
            }),
            1
        )
    );
}

#[test]
fn directories_change_alone() {
    // Kafka's testUpdateDirectories.
    let p = partition(
        &[2, 1, 3],
        vec![
            uuid("S1zMYZczRjWmucidLqGA5g"),
            uuid("9eRNXTvFTsWUJObvW51V5A"),
            uuid("UpePYVBgRAi3c4ujQrf3Kg"),
        ],
        &[2, 1, 3],
        2,
        100,
        200,
    );
    let all = |_: i32| true;
    let latest = MetadataVersion::LATEST_TESTING;
    assert_eq!(
        build(
            &p,
            foo_id(),
            &all,
            latest,
            2,
            latest.is_elr_supported(),
            |b| b
                .set_directory(3, uuid("pN1VKs9zRzK4APflpegAVg"))
                .set_directory(1, LOST)
        ),
        at(
            record(foo_id(), |r| {
                r.directories = Some(vec![
                    uuid("S1zMYZczRjWmucidLqGA5g"),
                    LOST,
                    uuid("pN1VKs9zRzK4APflpegAVg"),
                ]);
            }),
            2
        )
    );
}

#[test]
fn an_elr_member_is_elected_when_the_isr_empties() {
    // Kafka's testEligibleLeaderReplicas_ElrCanBeElected.
    for last_known_leader in [true, false] {
        let mut p = partition(&[1, 2, 3, 4], vec![MIGRATING; 4], &[1], 1, 100, 200);
        p.elr = vec![3];
        p.last_known_elr = if last_known_leader { vec![] } else { vec![2] };
        let not_1 = |r: i32| r != 1;
        let r = build(&p, foo_id(), &not_1, mv_for_version(2), 3, true, |b| {
            b.set_election(Election::Preferred)
                .set_use_last_known_leader_in_balanced_recovery(last_known_leader)
                .set_target_isr(vec![])
        });
        assert_eq!(
            r,
            at(
                record(foo_id(), |r| {
                    r.isr = Some(vec![3]);
                    r.eligible_leader_replicas = Some(vec![1]);
                    r.leader = 3;
                }),
                2
            )
        );
        let p2 = merged(&p, &r.expect("a change"));
        assert_eq!(p2.elr, vec![1]);
        assert_eq!(p2.last_known_elr, p.last_known_elr);
        assert_eq!(p2.isr, vec![3]);
    }
}

#[test]
fn an_isr_may_shrink_to_nothing_with_elr() {
    // Kafka's testEligibleLeaderReplicas_IsrCanShrinkToZero.
    for last_known_leader in [true, false] {
        let p = partition(
            &[1, 2, 3, 4],
            vec![
                uuid("MrTKKPEpRv66ZpWv4V7EBQ"),
                uuid("CkvgdEcWTVmdhfNuJXL0xA"),
                uuid("4a2coMsPRkSCsiTVWSksSw"),
                uuid("tmPdVjzASZ2ZqiS0cVJvtQ"),
            ],
            &[1, 2, 3, 4],
            1,
            100,
            200,
        );
        let none = |_: i32| false;
        let r = build(&p, foo_id(), &none, mv_for_version(2), 3, true, |b| {
            b.set_election(Election::Preferred)
                .set_use_last_known_leader_in_balanced_recovery(last_known_leader)
                .set_target_isr(vec![])
        });
        assert_eq!(
            r,
            at(
                record(foo_id(), |r| {
                    r.isr = Some(vec![]);
                    r.leader = NO_LEADER;
                    r.eligible_leader_replicas = Some(vec![1, 2, 3, 4]);
                    if last_known_leader {
                        r.last_known_elr = Some(vec![1]);
                    }
                }),
                2
            )
        );
        let p = merged(&p, &r.expect("a change"));
        assert_eq!(p.elr, vec![1, 2, 3, 4]);
        assert!(p.isr.is_empty());
        if last_known_leader {
            assert_eq!(p.last_known_elr, vec![1]);
            let again = build(&p, foo_id(), &none, mv_for_version(2), 3, true, |b| {
                b.set_election(Election::Preferred)
                    .set_unclean_shutdown_replicas(vec![2])
                    .set_use_last_known_leader_in_balanced_recovery(true)
            })
            .expect("a change");
            assert_eq!(change(&again).last_known_elr, None);
        } else {
            assert!(p.last_known_elr.is_empty());
        }
    }
}

#[test]
fn the_last_known_leader_is_elected_uncleanly() {
    // Kafka's testEligibleLeaderReplicas_ElectLastKnownLeader.
    let mut p = partition(&[1, 2, 3, 4], vec![MIGRATING; 4], &[], NO_LEADER, 100, 200);
    p.last_known_elr = vec![1];
    let all = |_: i32| true;
    let r = build(&p, foo_id(), &all, mv_for_version(2), 3, true, |b| {
        b.set_election(Election::Preferred)
            .set_use_last_known_leader_in_balanced_recovery(true)
            .set_target_isr(vec![])
    });
    assert_eq!(
        r,
        at(
            record(foo_id(), |r| {
                r.isr = Some(vec![1]);
                r.leader = 1;
                r.leader_recovery_state = LeaderRecoveryState::Recovering.value();
                r.last_known_elr = Some(vec![]);
            }),
            2
        )
    );
    let p = merged(&p, &r.expect("a change"));
    assert!(p.elr.is_empty() && p.last_known_elr.is_empty());
    assert_eq!(p.isr, vec![1]);
}

#[test]
fn the_last_known_leader_waits_while_the_elr_has_members() {
    // Kafka's testEligibleLeaderReplicas_ElectLastKnownLeaderShouldFail.
    let mut p = partition(
        &[1, 2, 3, 4],
        vec![
            uuid("zANDdMukTEqefOvHpmniMg"),
            uuid("Ui2Eq8rbRiuW7m7uiPTRyg"),
            uuid("MhgJOZrrTsKNcGM0XKK4aA"),
            uuid("Y25PaCAmRfyGIKxAThhBAw"),
        ],
        &[],
        NO_LEADER,
        100,
        200,
    );
    p.elr = vec![3];
    p.last_known_elr = vec![1];
    assert_eq!(
        build(&p, foo_id(), &not_3, mv_for_version(2), 3, true, |b| b
            .set_election(Election::Preferred)
            .set_use_last_known_leader_in_balanced_recovery(true)
            .set_target_isr(vec![])),
        None
    );
    // Kafka's testEligibleLeaderReplicas_NotEligibleLastKnownLeader.
    p.elr = vec![];
    let none = |_: i32| false;
    for election in [Election::Preferred, Election::Online, Election::Unclean] {
        assert_eq!(
            build(&p, foo_id(), &none, mv_for_version(2), 3, true, |b| b
                .set_election(election)
                .set_use_last_known_leader_in_balanced_recovery(true)
                .set_target_isr(vec![])),
            None,
            "{election:?}"
        );
    }
}

#[test]
fn new_elr_members_come_in_jvm_hash_set_order() {
    // A HashSet<Integer> of 16 buckets iterates 20 (bucket 4), 5, 10, 30
    // (bucket 14): the ELR Kafka writes is [20, 10, 30], not sorted and not
    // in ISR order.
    let p = partition(
        &[30, 10, 20, 5],
        vec![MIGRATING; 4],
        &[30, 10, 20, 5],
        5,
        0,
        0,
    );
    let all = |_: i32| true;
    let r = build(&p, foo_id(), &all, mv(23), 2, true, |b| {
        b.set_target_isr(vec![5])
    })
    .expect("a change");
    assert_eq!(
        change(&r).eligible_leader_replicas.as_deref(),
        Some(&[20, 10, 30][..])
    );
    // Past 12 members the set doubles to 32 buckets: 33 (bucket 1) comes
    // before 2, and 17 after 16.
    let replicas: Vec<i32> = vec![16, 17, 33, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 1];
    let p = partition(&replicas, vec![MIGRATING; 15], &replicas, 1, 0, 0);
    let r = build(&p, foo_id(), &all, mv(23), 15, true, |b| {
        b.set_target_isr(vec![1])
    })
    .expect("a change");
    assert_eq!(
        change(&r).eligible_leader_replicas.as_deref(),
        Some(&[33, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 16, 17][..])
    );
}

#[test]
fn records_follow_the_metadata_version_and_encode() {
    for (level, version) in [(7, 0), (16, 0), (17, 1), (22, 1), (23, 2), (34, 2)] {
        let r = build_foo(mv(level), |b| b.set_target_isr(vec![2, 3])).expect("a change");
        assert_eq!(r.version, version, "level {level}");
        r.encode().expect("encodes");
    }
}
