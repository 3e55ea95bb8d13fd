//! Kafka 4.4's `PartitionReassignmentReplicasTest` and
//! `PartitionReassignmentRevertTest`, case by case (the expected lists are
//! the ones Kafka's tests assert).

use super::*;
use crate::replication::test_support::{broker_dir, partition};

fn between(current: &[i32], target: &[i32]) -> ReassignmentReplicas {
    ReassignmentReplicas::between(current, target)
}

/// (removing, adding, replicas).
fn lists(r: &ReassignmentReplicas) -> (Vec<i32>, Vec<i32>, Vec<i32>) {
    (r.removing.clone(), r.adding.clone(), r.replicas.clone())
}

fn completed(replicas: &[i32], isr: &[i32]) -> Option<CompletedReassignment> {
    Some(CompletedReassignment {
        replicas: replicas.to_vec(),
        isr: isr.to_vec(),
    })
}

#[test]
fn none_added_or_removed() {
    let r = between(&[3, 2, 1], &[3, 2, 1]);
    assert_eq!(lists(&r), (vec![], vec![], vec![3, 2, 1]));
    assert!(!r.in_progress());
}

#[test]
fn additions() {
    let r = between(&[3, 2, 1], &[3, 6, 2, 1, 5]);
    assert_eq!(lists(&r), (vec![], vec![5, 6], vec![3, 6, 2, 1, 5]));
}

#[test]
fn removals() {
    let r = between(&[3, 2, 1, 0], &[3, 1]);
    assert_eq!(lists(&r), (vec![0, 2], vec![], vec![3, 1, 0, 2]));
}

#[test]
fn additions_and_removals() {
    let r = between(&[3, 2, 1, 0], &[7, 3, 1, 9]);
    assert_eq!(lists(&r), (vec![0, 2], vec![7, 9], vec![7, 3, 1, 9, 0, 2]));
}

#[test]
fn rearrangement() {
    let r = between(&[3, 2, 1, 0], &[0, 1, 3, 2]);
    assert_eq!(lists(&r), (vec![], vec![], vec![0, 1, 3, 2]));
}

#[test]
fn does_not_complete_while_adding_replicas_are_out_of_the_isr() {
    let r = between(&[0, 1, 2], &[3, 4, 5]);
    assert!(r.in_progress());
    assert_eq!(r.maybe_complete(&[0, 1, 2, 3, 4]), None);
}

#[test]
fn does_not_complete_when_none_is_ongoing() {
    let r = ReassignmentReplicas {
        removing: vec![],
        adding: vec![],
        replicas: vec![0, 1, 2],
    };
    assert!(!r.in_progress());
    assert_eq!(r.maybe_complete(&[0, 1, 2]), None);
}

#[test]
fn completes_with_all_new_replicas() {
    let r = between(&[0, 1, 2], &[3, 4, 5]);
    assert_eq!(
        r.maybe_complete(&[0, 1, 2, 3, 4, 5]),
        completed(&[3, 4, 5], &[3, 4, 5])
    );
}

#[test]
fn completes_with_some_new_replicas() {
    let r = between(&[0, 1, 2], &[0, 1, 3]);
    assert_eq!(
        r.maybe_complete(&[0, 1, 2, 3]),
        completed(&[0, 1, 3], &[0, 1, 3])
    );
}

#[test]
fn completes_when_a_kept_replica_is_out_of_the_isr() {
    let r = between(&[0, 1, 2], &[0, 1, 3]);
    assert_eq!(r.maybe_complete(&[0, 2, 3]), completed(&[0, 1, 3], &[0, 3]));
}

#[test]
fn completes_when_every_kept_replica_is_out_of_the_isr() {
    let r = between(&[0, 1, 2], &[0, 1, 3]);
    assert_eq!(r.maybe_complete(&[2, 3]), completed(&[0, 1, 3], &[3]));
}

#[test]
fn does_not_complete_when_an_adding_replica_is_out_of_the_isr() {
    let r = between(&[0, 1, 2], &[0, 1, 3]);
    assert_eq!(r.maybe_complete(&[0, 1, 2]), None);
}

#[test]
fn growing_completes_without_a_kept_replica_in_the_isr() {
    let r = between(&[0, 1, 2, 3], &[1, 2, 3, 4, 5]);
    assert!(r.in_progress());
    assert_eq!(
        r.maybe_complete(&[0, 1, 2, 4, 5]),
        completed(&[1, 2, 3, 4, 5], &[1, 2, 4, 5])
    );
}

#[test]
fn growing_waits_for_every_adding_replica() {
    let r = between(&[0, 1, 2, 3], &[1, 2, 3, 4, 5]);
    assert_eq!(r.maybe_complete(&[0, 1, 2, 3, 5]), None);
}

#[test]
fn shrinking_waits_for_every_kept_replica() {
    let r = between(&[0, 1, 2, 3, 4], &[2, 3, 4, 5]);
    assert_eq!(r.maybe_complete(&[0, 1, 2, 3, 5]), None);
}

#[test]
fn shrinking_waits_for_every_adding_replica() {
    let r = between(&[0, 1, 2, 3, 4], &[2, 3, 4, 5]);
    assert_eq!(r.maybe_complete(&[0, 1, 2, 3, 4]), None);
}

#[test]
fn original_replicas_leave_out_the_adding_ones() {
    let r = between(&[0, 1, 2], &[0, 1, 3]);
    assert_eq!(r.original_replicas(), vec![0, 1, 2]);
}

#[test]
fn a_partition_reassigns_while_it_removes_or_adds() {
    let base = partition(
        &[0, 1, 3, 2],
        (0..4).map(broker_dir).collect(),
        &[0, 1, 3, 2],
        0,
        0,
        0,
    );
    let with = |removing: &[i32], adding: &[i32]| {
        let mut p = base.clone();
        p.removing_replicas = removing.to_vec();
        p.adding_replicas = adding.to_vec();
        ReassignmentReplicas::of(&p).in_progress()
    };
    assert!(with(&[2], &[3]));
    assert!(with(&[2], &[]));
    assert!(with(&[], &[3]));
    assert!(!with(&[], &[]));
}

/// A partition led by 3 at leader epoch 100, partition epoch 200.
fn reassigning(replicas: &[i32], isr: &[i32], removing: &[i32], adding: &[i32]) -> PartitionState {
    let mut p = partition(
        replicas,
        replicas.iter().map(|r| broker_dir(*r)).collect(),
        isr,
        3,
        100,
        200,
    );
    p.removing_replicas = removing.to_vec();
    p.adding_replicas = adding.to_vec();
    p
}

fn revert(replicas: &[i32], isr: &[i32], unclean: bool) -> Result<ReassignmentRevert, RevertError> {
    Ok(ReassignmentRevert {
        replicas: replicas.to_vec(),
        isr: isr.to_vec(),
        unclean,
    })
}

#[test]
fn revert_with_nothing_added_or_removed() {
    let p = reassigning(&[3, 2, 1], &[3, 2], &[], &[]);
    assert_eq!(
        ReassignmentRevert::of(&p),
        revert(&[3, 2, 1], &[3, 2], false)
    );
}

#[test]
fn revert_keeps_the_removing_replicas() {
    let p = reassigning(&[3, 2, 1], &[3, 2], &[2, 1], &[]);
    assert_eq!(
        ReassignmentRevert::of(&p),
        revert(&[3, 2, 1], &[3, 2], false)
    );
}

#[test]
fn revert_drops_the_adding_replicas() {
    let p = reassigning(&[4, 5, 3, 2, 1], &[4, 5, 2], &[], &[4, 5]);
    assert_eq!(ReassignmentRevert::of(&p), revert(&[3, 2, 1], &[2], false));
}

#[test]
fn revert_with_some_removing_and_some_adding() {
    let p = reassigning(&[4, 5, 3, 2, 1], &[4, 5, 2], &[2], &[4, 5]);
    assert_eq!(ReassignmentRevert::of(&p), revert(&[3, 2, 1], &[2], false));
}

#[test]
fn revert_of_an_isr_of_adding_replicas_only_is_unclean() {
    let p = reassigning(&[4, 5, 3, 2, 1], &[4, 5], &[2], &[4, 5]);
    assert_eq!(ReassignmentRevert::of(&p), revert(&[3, 2, 1], &[3], true));
}

#[test]
fn revert_of_adding_replicas_only_is_impossible() {
    let p = reassigning(&[4, 5], &[4, 5], &[], &[4, 5]);
    assert_eq!(ReassignmentRevert::of(&p), Err(RevertError));
}
