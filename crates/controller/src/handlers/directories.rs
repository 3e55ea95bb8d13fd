//! AssignReplicasToDirs (73, KIP-858): a broker with several log
//! directories tells the controller which directory holds each of its
//! replicas, as Kafka 4.4's `ReplicationControlManager.handleAssignReplicasToDirs`
//! answers it through `QuorumController`.
//!
//! The request as a whole fails (top-level code, no directories, Kafka's
//! `getErrorResponse`) with `UNSUPPORTED_VERSION` below metadata.version
//! 3.7-IV2 (directory assignment), `STALE_BROKER_EPOCH` when the broker is
//! not registered at the request's epoch, and `NOT_CONTROLLER` away from
//! the active controller. Otherwise every requested partition is answered,
//! in request order:
//!
//! * `UNKNOWN_TOPIC_ID` for a topic id the image does not hold;
//! * `UNKNOWN_TOPIC_OR_PARTITION` for a partition the topic does not have;
//! * `NOT_LEADER_OR_FOLLOWER` when the broker holds no replica of it;
//! * else `NONE`, and a PartitionChangeRecord with the partition's new
//!   `Directories` when the broker's replica moves. A directory that is not
//!   online on the broker (unknown to its registration, offline, or
//!   `LOST`) is accepted as Kafka accepts it, and the broker then leaves
//!   the ISR and leadership of the partition (a second record, computed
//!   from the same state; `UNASSIGNED` and `MIGRATING` count as online).
//!
//! Every record is computed against the same state and written in one
//! batch; the answer goes out once it is committed.

use std::collections::BTreeSet;

use kraft_protocol::messages::assign_replicas_to_dirs_request::AssignReplicasToDirsRequest;
use kraft_protocol::messages::assign_replicas_to_dirs_response::{
    AssignReplicasToDirsResponse, DirectoryData, PartitionData, TopicData,
};
use kraft_protocol::{ErrorCode, Uuid};

use super::writer::Generated;
use super::{check_broker_epoch, ApiError, Controller};
use crate::image::MetadataImage;
use crate::java::uuid_to_text;
use crate::replication::broker_changes::{
    has_online_dir, offline_directory_assignments, ReplicationSettings,
};
use crate::replication::partition_change::{min_isr_for_topic, PartitionChange};

/// Kafka's `handleAssignReplicasToDirs` over `image`: the records and the
/// answer (see the module docs), or the error that fails the request.
pub(crate) fn assign_replicas_to_dirs(
    image: &MetadataImage,
    settings: &ReplicationSettings,
    request: &AssignReplicasToDirsRequest,
) -> Result<Generated<AssignReplicasToDirsResponse>, ApiError> {
    if !image
        .metadata_version()
        .is_some_and(|mv| mv.is_directory_assignment_supported())
    {
        return Err(ApiError::new(
            ErrorCode::UnsupportedVersion,
            "Directory assignment is not supported yet.",
        ));
    }
    let broker = request.broker_id;
    check_broker_epoch(image, broker, request.broker_epoch)?;
    let mut records = Vec::new();
    let mut leaving: BTreeSet<(Uuid, i32)> = BTreeSet::new();
    let mut directories = Vec::with_capacity(request.directories.len());
    for dir in request.directories.iter() {
        let online = has_online_dir(image, broker, dir.id);
        let mut topics = Vec::with_capacity(dir.topics.len());
        for requested in dir.topics.iter() {
            let topic_id = requested.topic_id;
            let topic = image.topics().topic(&topic_id);
            if topic.is_none() {
                tracing::warn!(
                    "AssignReplicasToDirsRequest from broker {broker} references unknown topic ID {}",
                    uuid_to_text(&topic_id)
                );
            }
            let mut partitions = Vec::with_capacity(requested.partitions.len());
            for p in requested.partitions.iter() {
                let index = p.partition_index;
                let code = match topic {
                    None => ErrorCode::UnknownTopicId,
                    Some(t) => match t.partition(index) {
                        None => {
                            tracing::warn!(
                                "AssignReplicasToDirsRequest from broker {broker} references unknown partition {}-{index}",
                                t.name()
                            );
                            ErrorCode::UnknownTopicOrPartition
                        }
                        Some(registration) if !registration.replicas().any(|r| r == broker) => {
                            tracing::warn!(
                                "AssignReplicasToDirsRequest from broker {broker} references non assigned partition {}-{index}",
                                t.name()
                            );
                            ErrorCode::NotLeaderOrFollower
                        }
                        Some(registration) => {
                            let min_isr = min_isr_for_topic(image, t.name(), settings);
                            let change =
                                PartitionChange::new(image, topic_id, index, registration, min_isr)
                                    .directory(broker, dir.id)
                                    .build();
                            records.extend(change.record);
                            if !online {
                                leaving.insert((topic_id, index));
                            }
                            tracing::debug!(
                                "Broker {broker} assigned partition {}:{index} to {} dir {}",
                                t.name(),
                                if online { "ONLINE" } else { "OFFLINE" },
                                uuid_to_text(&dir.id)
                            );
                            ErrorCode::None
                        }
                    },
                };
                partitions.push(PartitionData {
                    partition_index: index,
                    error_code: code.code(),
                    ..Default::default()
                });
            }
            topics.push(TopicData {
                topic_id,
                partitions: partitions.into(),
                ..Default::default()
            });
        }
        directories.push(DirectoryData {
            id: dir.id,
            topics: topics.into(),
            ..Default::default()
        });
    }
    records.extend(offline_directory_assignments(
        image, broker, &leaving, settings,
    ));
    Ok(Generated::new(
        records,
        AssignReplicasToDirsResponse {
            throttle_time_ms: 0,
            error_code: 0,
            directories: directories.into(),
            ..Default::default()
        },
    ))
}

impl Controller {
    /// AssignReplicasToDirs (v0): see the module docs. Answered once its
    /// records are committed; a request that fails as a whole gets only
    /// the top-level error code, as Kafka's `getErrorResponse` builds it.
    pub async fn assign_replicas_to_dirs(
        &self,
        request: &AssignReplicasToDirsRequest,
    ) -> AssignReplicasToDirsResponse {
        let settings = self.replication_settings();
        let outcome = self
            .write("assignReplicasToDirs", None, |state| {
                assign_replicas_to_dirs(&state.image, &settings, request)
            })
            .await;
        match outcome {
            Ok(response) => response,
            Err(e) => {
                tracing::debug!(broker_id = request.broker_id, error = %e, "directory assignment refused");
                AssignReplicasToDirsResponse {
                    throttle_time_ms: 0,
                    error_code: e.code.code(),
                    ..Default::default()
                }
            }
        }
    }
}
