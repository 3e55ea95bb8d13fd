//! Partition reassignments (KIP-455): AlterPartitionReassignments (45) and
//! ListPartitionReassignments (46), as Kafka 4.4's
//! `ReplicationControlManager.alterPartitionReassignments` and
//! `listPartitionReassignments` answer them through `QuorumController`.
//!
//! AlterPartitionReassignments answers every requested partition:
//!
//! * `UNKNOWN_TOPIC_OR_PARTITION` for a topic (`Unable to find a topic
//!   named t.`) or partition (`Unable to find partition t:9.`) that does
//!   not exist;
//! * a null replica list cancels: `NO_REASSIGNMENT_IN_PROGRESS` when
//!   nothing is moving, else the partition goes back to its original
//!   replicas, with the adding ones out of the ISR. When no original
//!   replica is in the ISR that is an unclean election, refused with
//!   `INVALID_REPLICA_ASSIGNMENT` unless the topic enables
//!   `unclean.leader.election.enable`;
//! * a replica list is checked as a manual assignment
//!   (`INVALID_REPLICA_ASSIGNMENT`: empty, an unregistered broker, a broker
//!   whose log directories are all cordoned, a broker twice; fenced brokers
//!   are accepted, as in Kafka) and, when the request (v1, KIP-860) sets
//!   `AllowReplicationFactorChange` to false, must keep the replication
//!   factor (`INVALID_REPLICATION_FACTOR`, `The replication factor is
//!   changed from 3 to 2`). The partition then records the target followed
//!   by the replicas it drops, with the removing and adding replicas; a
//!   leader that leaves is replaced by the builder's election; a move the
//!   ISR already covers (a reordering, a shrink) completes at once.
//!
//! The reassignment completes later, when the ISR covers it, in the
//! partition change builder (AlterPartition, broker changes). All records
//! are computed against the same state and written in one atomic batch;
//! the answer goes out once they are committed. A failed write answers
//! every partition and the top level with the error.
//!
//! ListPartitionReassignments reads the committed image: every partition
//! being reassigned (topics by name, partitions by index: Kafka's order
//! comes from its timeline hash table and the order reassignments began,
//! which the image does not keep), or the requested partitions that are
//! reassigning, in request order; unknown topics and partitions are left
//! out.

use std::time::Duration;

use kraft_protocol::messages::alter_partition_reassignments_request::{
    AlterPartitionReassignmentsRequest, ReassignablePartition,
};
use kraft_protocol::messages::alter_partition_reassignments_response::{
    AlterPartitionReassignmentsResponse, ReassignablePartitionResponse, ReassignableTopicResponse,
};
use kraft_protocol::messages::list_partition_reassignments_request::ListPartitionReassignmentsRequest;
use kraft_protocol::messages::list_partition_reassignments_response::{
    ListPartitionReassignmentsResponse, OngoingPartitionReassignment, OngoingTopicReassignment,
};
use kraft_protocol::{ErrorCode, List, StrBytes};

use super::error_response::{self, Failure};
use super::topics::validate_manual_assignment;
use super::writer::Generated;
use super::{error, not_controller, ApiError, Controller, MAX_RECORDS_PER_USER_OP};
use crate::image::{MetadataImage, MetadataRecord, PartitionRegistration};
use crate::replication::broker_changes::ReplicationSettings;
use crate::replication::partition_change::{
    min_isr_for_topic, unclean_election_enabled, PartitionChange,
};
use crate::replication::reassignment::{ReassignmentReplicas, ReassignmentRevert, RevertError};
use crate::replication::PartitionState;

/// Whether a partition has a reassignment in progress.
fn is_reassigning(p: PartitionRegistration<'_>) -> bool {
    p.removing_replicas().next().is_some() || p.adding_replicas().next().is_some()
}

/// Kafka's `validatePartitionReplicationFactorUnchanged`: the replication
/// factor the partition has (while reassigning, the target's: replicas and
/// adding ones, without the removing ones) must be the target's length.
fn check_replication_factor_unchanged(
    partition: &PartitionState,
    target: &[i32],
) -> Result<(), ApiError> {
    let current = if partition.removing_replicas.is_empty() && partition.adding_replicas.is_empty()
    {
        partition.replicas.len()
    } else {
        let mut set: Vec<i32> = partition
            .replicas
            .iter()
            .chain(&partition.adding_replicas)
            .copied()
            .filter(|r| !partition.removing_replicas.contains(r))
            .collect();
        set.sort_unstable();
        set.dedup();
        set.len()
    };
    if current != target.len() {
        return Err(error(
            ErrorCode::InvalidReplicationFactor,
            format!(
                "The replication factor is changed from {current} to {}",
                target.len()
            ),
        ));
    }
    Ok(())
}

/// Kafka's `alterPartitionReassignment` for partition `target` of topic
/// `topic`: the PartitionChangeRecord to write, if anything changes.
pub(crate) fn alter_partition_reassignment(
    image: &MetadataImage,
    settings: &ReplicationSettings,
    topic: &str,
    target: &ReassignablePartition,
    allow_replication_factor_change: bool,
) -> Result<Option<MetadataRecord>, ApiError> {
    let Some(t) = image.topics().topic_by_name(topic) else {
        return Err(error(
            ErrorCode::UnknownTopicOrPartition,
            format!("Unable to find a topic named {topic}."),
        ));
    };
    let index = target.partition_index;
    let Some(partition) = t.partition(index) else {
        return Err(error(
            ErrorCode::UnknownTopicOrPartition,
            format!("Unable to find partition {topic}:{index}."),
        ));
    };
    let min_isr = min_isr_for_topic(image, topic, settings);
    let change = PartitionChange::new(image, t.id(), index, partition, min_isr);
    match &target.replicas {
        None => cancel(image, settings, topic, index, change),
        Some(replicas) => reassign(image, replicas, allow_replication_factor_change, change),
    }
}

/// Kafka's `cancelPartitionReassignment`.
fn cancel(
    image: &MetadataImage,
    settings: &ReplicationSettings,
    topic: &str,
    index: i32,
    change: PartitionChange<'_>,
) -> Result<Option<MetadataRecord>, ApiError> {
    if !ReassignmentReplicas::of(change.state()).in_progress() {
        return Err(ApiError::bare(ErrorCode::NoReassignmentInProgress));
    }
    let revert = ReassignmentRevert::of(change.state())
        .map_err(|RevertError| error(ErrorCode::InvalidReplicaAssignment, RevertError::MESSAGE))?;
    let unclean_allowed = unclean_election_enabled(image, topic, settings);
    if revert.unclean && !unclean_allowed {
        return Err(error(
            ErrorCode::InvalidReplicaAssignment,
            format!("Unable to revert partition assignment for {topic}:{index} because it would require an unclean leader election."),
        ));
    }
    let change = if unclean_allowed {
        change.unclean_election()
    } else {
        change
    };
    Ok(change
        .target_isr(revert.isr)
        .target_replicas(revert.replicas)
        .target_removing(Vec::new())
        .target_adding(Vec::new())
        .build()
        .record)
}

/// Kafka's `changePartitionReassignment`.
fn reassign(
    image: &MetadataImage,
    replicas: &[i32],
    allow_replication_factor_change: bool,
    mut change: PartitionChange<'_>,
) -> Result<Option<MetadataRecord>, ApiError> {
    validate_manual_assignment(image, replicas, None)?;
    if !allow_replication_factor_change {
        check_replication_factor_unchanged(change.state(), replicas)?;
    }
    let reassignment = ReassignmentReplicas::between(&change.state().replicas, replicas);
    if reassignment.replicas != change.state().replicas {
        change = change.target_replicas(reassignment.replicas);
    }
    if !reassignment.removing.is_empty() {
        change = change.target_removing(reassignment.removing);
    }
    if !reassignment.adding.is_empty() {
        change = change.target_adding(reassignment.adding);
    }
    Ok(change.build().record)
}

/// Kafka's `alterPartitionReassignments` over `image`: the records (at
/// most 10000) and each partition's answer, in request order.
pub(crate) fn alter_partition_reassignments(
    image: &MetadataImage,
    settings: &ReplicationSettings,
    request: &AlterPartitionReassignmentsRequest,
) -> Generated<AlterPartitionReassignmentsResponse> {
    let allow = request.allow_replication_factor_change;
    let mut records = Vec::new();
    let mut responses = Vec::with_capacity(request.topics.len());
    let (mut succeeded, mut total) = (0usize, 0usize);
    for topic in request.topics.iter() {
        let name = topic.name.as_str();
        let mut partitions = Vec::with_capacity(topic.partitions.len());
        for target in topic.partitions.iter() {
            total += 1;
            let outcome = alter_partition_reassignment(image, settings, name, &target, allow)
                .and_then(|record| {
                    if record.is_some() && records.len() >= MAX_RECORDS_PER_USER_OP {
                        // Kafka's bounded record list refuses the record;
                        // the exception is not one with an error code.
                        return Err(ApiError::bare(ErrorCode::UnknownServerError));
                    }
                    records.extend(record);
                    Ok(())
                });
            let (code, message) = match outcome {
                Ok(()) => {
                    succeeded += 1;
                    (ErrorCode::None, None)
                }
                Err(e) => {
                    tracing::info!(
                        "Unable to alter partition reassignment for {name}:{} because of an {} error: {}",
                        target.partition_index,
                        e.code.name(),
                        e.message_or_default()
                    );
                    (e.code, e.message)
                }
            };
            partitions.push(ReassignablePartitionResponse {
                partition_index: target.partition_index,
                error_code: code.code(),
                error_message: message.map(StrBytes::from),
                ..Default::default()
            });
        }
        responses.push(ReassignableTopicResponse {
            name: topic.name.clone(),
            partitions: partitions.into(),
            ..Default::default()
        });
    }
    tracing::info!("Successfully altered {succeeded} out of {total} partition reassignment(s).");
    Generated::new(
        records,
        AlterPartitionReassignmentsResponse {
            allow_replication_factor_change: allow,
            error_message: None,
            responses: responses.into(),
            ..Default::default()
        },
    )
}

/// The ongoing reassignment of partition `index` of `p`.
fn ongoing(index: i32, p: PartitionRegistration<'_>) -> OngoingPartitionReassignment {
    OngoingPartitionReassignment {
        partition_index: index,
        replicas: p.replicas().collect(),
        adding_replicas: p.adding_replicas().collect(),
        removing_replicas: p.removing_replicas().collect(),
        ..Default::default()
    }
}

/// Kafka's `listPartitionReassignments` over `image`.
pub(crate) fn list_partition_reassignments(
    image: &MetadataImage,
    request: &ListPartitionReassignmentsRequest,
) -> ListPartitionReassignmentsResponse {
    let mut topics = Vec::new();
    match &request.topics {
        None => {
            let mut names: Vec<&str> = image.topics().topics().map(|t| t.name()).collect();
            names.sort_unstable();
            for name in names {
                let Some(t) = image.topics().topic_by_name(name) else {
                    continue;
                };
                let mut partitions: Vec<OngoingPartitionReassignment> = t
                    .partitions()
                    .filter(|(_, p)| is_reassigning(*p))
                    .map(|(index, p)| ongoing(index, p))
                    .collect();
                partitions.sort_by_key(|p| p.partition_index);
                if !partitions.is_empty() {
                    topics.push(OngoingTopicReassignment {
                        name: name.into(),
                        partitions: partitions.into(),
                        ..Default::default()
                    });
                }
            }
        }
        Some(requested) => {
            for topic in requested.iter() {
                let Some(t) = image.topics().topic_by_name(topic.name.as_str()) else {
                    continue;
                };
                let partitions: Vec<OngoingPartitionReassignment> = topic
                    .partition_indexes
                    .iter()
                    .filter_map(|&index| {
                        let p = t.partition(index)?;
                        is_reassigning(p).then(|| ongoing(index, p))
                    })
                    .collect();
                if !partitions.is_empty() {
                    topics.push(OngoingTopicReassignment {
                        name: topic.name.clone(),
                        partitions: partitions.into(),
                        ..Default::default()
                    });
                }
            }
        }
    }
    ListPartitionReassignmentsResponse {
        error_message: None,
        topics: List::from(topics),
        ..Default::default()
    }
}

impl Controller {
    /// AlterPartitionReassignments (v0-1): see the module docs. Answered
    /// once its records are committed.
    pub async fn alter_partition_reassignments(
        &self,
        request: &AlterPartitionReassignmentsRequest,
    ) -> AlterPartitionReassignmentsResponse {
        if request.topics.is_empty() {
            return AlterPartitionReassignmentsResponse::default();
        }
        let deadline = tokio::time::Instant::now()
            + Duration::from_millis(u64::try_from(request.timeout_ms).unwrap_or(0));
        let settings = self.replication_settings();
        let outcome = self
            .write("alterPartitionReassignments", Some(deadline), |state| {
                Ok(alter_partition_reassignments(
                    &state.image,
                    &settings,
                    request,
                ))
            })
            .await;
        match outcome {
            Ok(response) => response,
            Err(e) => error_response::alter_partition_reassignments(
                request,
                Failure::new(e.code, e.message.as_deref()),
            ),
        }
    }

    /// ListPartitionReassignments (v0): see the module docs. Before the
    /// image is loaded the request fails with the retriable
    /// `NOT_CONTROLLER`.
    pub fn list_partition_reassignments(
        &self,
        request: &ListPartitionReassignmentsRequest,
    ) -> ListPartitionReassignmentsResponse {
        if request.topics.as_ref().is_some_and(|t| t.is_empty()) {
            return ListPartitionReassignmentsResponse {
                error_message: None,
                ..Default::default()
            };
        }
        if !self.image.is_loaded() {
            let e = not_controller(self.quorum.facts().leader_id);
            return error_response::list_partition_reassignments(
                request,
                Failure::new(e.code, e.message.as_deref()),
            );
        }
        list_partition_reassignments(&self.image.read(), request)
    }
}
