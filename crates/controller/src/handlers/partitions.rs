//! AlterPartition (56): a partition leader's ISR and leader recovery state
//! changes (Kafka's `ReplicationControlManager.alterPartition`, reached
//! through `QuorumController`).
//!
//! STALE_BROKER_EPOCH for the whole request unless the sender is
//! registered at its epoch; per partition, Kafka's checks in Kafka's order
//! (unknown topic id or partition, a newer leader or partition epoch than
//! ours, an older leader epoch, a sender that does not lead, an older
//! partition epoch, an ISR outside the replicas or without the leader, the
//! recovery state, ISR members that are not registered, fenced, shutting
//! down or of another broker epoch), then a PartitionChangeRecord from the
//! partition change builder. Partitions are answered with their state after
//! the change, once it is committed.

use kraft_protocol::messages::alter_partition_request::{
    AlterPartitionRequest, BrokerState, PartitionData,
};
use kraft_protocol::messages::alter_partition_response::{
    AlterPartitionResponse, PartitionData as PartitionResult, TopicData as TopicResult,
};
use kraft_protocol::{ErrorCode, Uuid};

use super::writer::{ActiveState, Generated};
use super::{check_broker_epoch, Controller};
use crate::image::{LeaderRecoveryState, MetadataImage, MetadataRecord, PartitionRegistration};
use crate::replication::partition_change::{
    min_isr_for_topic, unclean_election_enabled, PartitionChange,
};

fn partition_error(index: i32, code: ErrorCode) -> PartitionResult {
    PartitionResult {
        partition_index: index,
        error_code: code.code(),
        ..Default::default()
    }
}

/// Why a member of a proposed ISR may not be in it (Kafka's
/// `ineligibleReplicasForIsr`).
fn ineligible(image: &MetadataImage, member: &BrokerState) -> Option<String> {
    let Some(b) = image.cluster().broker(member.broker_id) else {
        return Some("not registered".to_owned());
    };
    if b.in_controlled_shutdown() {
        Some("shutting down".to_owned())
    } else if b.fenced() {
        Some("fenced".to_owned())
    } else if member.broker_epoch != -1 && b.epoch() != member.broker_epoch {
        Some(format!(
            "broker epoch mismatch: requested={} VS expected={}",
            member.broker_epoch,
            b.epoch()
        ))
    } else {
        None
    }
}

/// Kafka's `validateAlterPartitionData`.
fn validate(
    image: &MetadataImage,
    sender: i32,
    topic: &str,
    partition: Option<PartitionRegistration<'_>>,
    data: &PartitionData,
    new_isr: &[BrokerState],
) -> ErrorCode {
    let index = data.partition_index;
    let Some(p) = partition else {
        tracing::info!("Rejecting AlterPartition request for unknown partition {topic}-{index}.");
        return ErrorCode::UnknownTopicOrPartition;
    };
    if data.leader_epoch > p.leader_epoch() || data.partition_epoch > p.partition_epoch() {
        return ErrorCode::NotController;
    }
    if data.leader_epoch < p.leader_epoch() {
        return ErrorCode::FencedLeaderEpoch;
    }
    if sender != p.leader() {
        tracing::info!(
            "Rejecting AlterPartition request from node {sender} for {topic}-{index} because the current leader is {}.",
            p.leader()
        );
        return ErrorCode::InvalidRequest;
    }
    if data.partition_epoch < p.partition_epoch() {
        tracing::info!(
            "Rejecting AlterPartition request from node {sender} for {topic}-{index} because the current partition epoch is {}, not {}.",
            p.partition_epoch(),
            data.partition_epoch
        );
        return ErrorCode::InvalidUpdateVersion;
    }
    let isr: Vec<i32> = new_isr.iter().map(|b| b.broker_id).collect();
    // Kafka's Replicas.validateIsr: every member a replica, none twice.
    let mut sorted = isr.clone();
    sorted.sort_unstable();
    let valid = sorted.windows(2).all(|w| w[0] != w[1])
        && isr.iter().all(|m| p.replicas().any(|r| r == *m));
    if !valid {
        tracing::error!(
            "Rejecting AlterPartition request from node {sender} for {topic}-{index} because it specified an invalid ISR."
        );
        return ErrorCode::InvalidRequest;
    }
    if !isr.contains(&p.leader()) {
        tracing::error!(
            "Rejecting AlterPartition request from node {sender} for {topic}-{index} because it specified an invalid ISR that doesn't include itself."
        );
        return ErrorCode::InvalidRequest;
    }
    let requested = LeaderRecoveryState::of(data.leader_recovery_state);
    if requested == Ok(LeaderRecoveryState::Recovering) && isr.len() > 1 {
        tracing::info!(
            "Rejecting AlterPartition request from node {sender} for {topic}-{index} because the ISR had more than one replica while the leader was still recovering from an unclean leader election."
        );
        return ErrorCode::InvalidRequest;
    }
    if p.leader_recovery_state() == LeaderRecoveryState::Recovered
        && requested == Ok(LeaderRecoveryState::Recovering)
    {
        tracing::info!(
            "Rejecting AlterPartition request from node {sender} for {topic}-{index} because the leader recovery state cannot change from RECOVERED to RECOVERING."
        );
        return ErrorCode::InvalidRequest;
    }
    let refused: Vec<String> = new_isr
        .iter()
        .filter_map(|m| ineligible(image, m).map(|why| format!("{} ({why})", m.broker_id)))
        .collect();
    if !refused.is_empty() {
        tracing::info!(
            "Rejecting AlterPartition request from node {sender} for {topic}-{index} because it specified ineligible replicas [{}] in the new ISR.",
            refused.join(", ")
        );
        return ErrorCode::IneligibleReplica;
    }
    ErrorCode::None
}

impl Controller {
    /// AlterPartition, answered once its records are committed (an empty
    /// one at once).
    pub async fn alter_partition(
        &self,
        version: i16,
        request: &AlterPartitionRequest,
    ) -> AlterPartitionResponse {
        // Kafka answers an empty request at once, on any controller.
        if request.topics.is_empty() {
            return AlterPartitionResponse::default();
        }
        let result = self
            .write("alterPartition", None, |state| {
                self.generate_alter_partition(state, version, request)
            })
            .await;
        match result {
            Ok(response) => response,
            Err(e) => AlterPartitionResponse {
                error_code: e.code.code(),
                ..Default::default()
            },
        }
    }

    fn generate_alter_partition(
        &self,
        state: &mut ActiveState,
        version: i16,
        request: &AlterPartitionRequest,
    ) -> Result<Generated<AlterPartitionResponse>, super::ApiError> {
        let sender = request.broker_id;
        check_broker_epoch(&state.image, sender, request.broker_epoch)?;
        let image = &state.image;
        let settings = self.replication_settings();
        let mut records: Vec<MetadataRecord> = Vec::new();
        let mut topics = Vec::with_capacity(request.topics.len());
        for topic_data in request.topics.to_vec() {
            let topic_id: Uuid = topic_data.topic_id;
            let mut partitions = Vec::with_capacity(topic_data.partitions.len());
            let topic = (!topic_id.is_nil())
                .then(|| image.topics().topic(&topic_id))
                .flatten();
            let Some(topic) = topic else {
                tracing::info!(
                    "Rejecting AlterPartition request for unknown topic ID {}.",
                    crate::java::uuid_to_text(&topic_id)
                );
                for p in topic_data.partitions.to_vec() {
                    partitions.push(partition_error(
                        p.partition_index,
                        ErrorCode::UnknownTopicId,
                    ));
                }
                topics.push(TopicResult {
                    topic_id,
                    partitions: partitions.into(),
                    ..Default::default()
                });
                continue;
            };
            for data in topic_data.partitions.to_vec() {
                let new_isr: Vec<BrokerState> = if version < 3 {
                    data.new_isr
                        .iter()
                        .map(|id| BrokerState {
                            broker_id: *id,
                            broker_epoch: -1,
                            ..Default::default()
                        })
                        .collect()
                } else {
                    data.new_isr_with_epochs.to_vec()
                };
                let index = data.partition_index;
                let partition = topic.partition(index);
                let code = validate(image, sender, topic.name(), partition, &data, &new_isr);
                let Some(partition) = partition.filter(|_| code == ErrorCode::None) else {
                    partitions.push(partition_error(index, code));
                    continue;
                };
                let recovery = LeaderRecoveryState::of(data.leader_recovery_state)
                    .unwrap_or(LeaderRecoveryState::Recovered);
                let mut change = PartitionChange::new(
                    image,
                    topic_id,
                    index,
                    partition,
                    min_isr_for_topic(image, topic.name(), &settings),
                );
                if unclean_election_enabled(image, topic.name(), &settings) {
                    change = change.unclean_election();
                }
                let outcome = change
                    .target_isr(new_isr.iter().map(|b| b.broker_id).collect())
                    .target_leader_recovery_state(recovery)
                    .build();
                // The partition's state after the change (Kafka merges the
                // record into the registration).
                let after = outcome.after.clone();
                if let Some(record) = outcome.record {
                    let leader_changed = after.leader != sender;
                    records.push(record);
                    if leader_changed {
                        tracing::info!(
                            "AlterPartition request from node {sender} for {}-{index} completed the ongoing partition reassignment and triggered a leadership change. Returning NEW_LEADER_ELECTED.",
                            topic.name()
                        );
                        partitions.push(partition_error(index, ErrorCode::NewLeaderElected));
                        continue;
                    }
                }
                partitions.push(PartitionResult {
                    partition_index: index,
                    error_code: 0,
                    leader_id: after.leader,
                    leader_epoch: after.leader_epoch,
                    isr: after.isr.clone(),
                    leader_recovery_state: after.leader_recovery_state.value(),
                    partition_epoch: after.partition_epoch,
                    ..Default::default()
                });
            }
            topics.push(TopicResult {
                topic_id,
                partitions: partitions.into(),
                ..Default::default()
            });
        }
        Ok(Generated::new(
            records,
            AlterPartitionResponse {
                topics: topics.into(),
                ..Default::default()
            },
        ))
    }
}
