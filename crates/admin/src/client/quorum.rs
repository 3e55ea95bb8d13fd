//! DescribeQuorum of the metadata log (`__cluster_metadata-0`) and its
//! answer as a [`QuorumInfo`].

use std::time::Duration;

use kraft_protocol::messages::describe_quorum_request::{
    DescribeQuorumRequest, PartitionData as RequestPartition, TopicData as RequestTopic,
};
use kraft_protocol::messages::describe_quorum_response::{self, DescribeQuorumResponse};
use kraft_protocol::{ApiKey, ErrorCode, List, StrBytes};

use super::retry::{Attempt, Failure};
use super::{Admin, CLUSTER_METADATA_TOPIC};
use crate::error::{AdminError, ApiError, Result};
use crate::types::{QuorumInfo, QuorumNode, RaftVoterEndpoint, ReplicaState};

impl Admin {
    /// Describes the metadata quorum (DescribeQuorum for `__cluster_metadata-0`).
    pub async fn describe_metadata_quorum(&self) -> Result<QuorumInfo> {
        self.describe_metadata_quorum_within(None).await
    }

    pub(super) async fn describe_metadata_quorum_within(
        &self,
        timeout: Option<Duration>,
    ) -> Result<QuorumInfo> {
        let mut retry = self.retry("describeMetadataQuorum", timeout);
        loop {
            let attempt = async {
                let conn = self.target(&retry).await?;
                let version = conn.version_for(ApiKey::DescribeQuorum)?;
                let request = DescribeQuorumRequest {
                    topics: vec![RequestTopic {
                        topic_name: StrBytes::from_static(CLUSTER_METADATA_TOPIC),
                        partitions: List::from([RequestPartition {
                            partition_index: 0,
                            ..Default::default()
                        }]),
                        ..Default::default()
                    }]
                    .into(),
                    ..Default::default()
                };
                let response = conn
                    .send(&request, version, retry.request_timeout(&self.inner.config))
                    .await?;
                self.quorum_info(&response, version)
            }
            .await;
            if let Some(done) = self.next_step(&mut retry, attempt).await {
                return done;
            }
        }
    }

    fn quorum_info(&self, response: &DescribeQuorumResponse, version: i16) -> Attempt<QuorumInfo> {
        // NOT_CONTROLLER anywhere (or NOT_LEADER_OR_FOLLOWER with bootstrap
        // controllers) means "ask the active controller again".
        let codes = std::iter::once(response.error_code).chain(
            response
                .topics
                .iter()
                .flat_map(|t| t.into_owned().partitions.into_iter().map(|p| p.error_code)),
        );
        for code in codes {
            let e = ErrorCode::from_code(code);
            if e == ErrorCode::NotController
                || (self.using_controllers() && e == ErrorCode::NotLeaderOrFollower)
            {
                return Err(Failure::retry(
                    ApiError::new(e, response.error_message.as_ref().map(|m| m.to_string())).into(),
                ));
            }
        }
        if response.error_code != 0 {
            let e: AdminError =
                ApiError::from_wire(response.error_code, response.error_message.as_deref()).into();
            return Err(e.into());
        }
        let unexpected = |msg: String| Err(Failure::fatal(AdminError::UnexpectedResponse(msg)));
        let Some(topic) = response.topics.single() else {
            return unexpected(format!(
                "DescribeMetadataQuorum received {} topics when 1 was expected",
                response.topics.len()
            ));
        };
        if topic.topic_name.as_str() != CLUSTER_METADATA_TOPIC {
            return unexpected(format!(
                "DescribeMetadataQuorum received a topic with name {} when {CLUSTER_METADATA_TOPIC} was expected",
                topic.topic_name
            ));
        }
        let Some(partition) = topic.partitions.single() else {
            return unexpected(format!(
                "DescribeMetadataQuorum received a topic {} with {} partitions when 1 was expected",
                topic.topic_name,
                topic.partitions.len()
            ));
        };
        if partition.partition_index != 0 {
            return unexpected(format!(
                "DescribeMetadataQuorum received a single partition with index {} when 0 was expected",
                partition.partition_index
            ));
        }
        if partition.error_code != 0 {
            let e: AdminError =
                ApiError::from_wire(partition.error_code, partition.error_message.as_deref())
                    .into();
            return Err(e.into());
        }
        let nodes = response
            .nodes
            .iter()
            .map(|n| {
                (
                    n.node_id,
                    QuorumNode {
                        node_id: n.node_id,
                        endpoints: n
                            .listeners
                            .iter()
                            .map(|l| RaftVoterEndpoint {
                                listener: l.name.to_string(),
                                host: l.host.to_string(),
                                port: l.port,
                            })
                            .collect(),
                    },
                )
            })
            .collect();
        Ok(QuorumInfo {
            leader_id: partition.leader_id,
            leader_epoch: i64::from(partition.leader_epoch),
            high_watermark: partition.high_watermark,
            voters: partition
                .current_voters
                .iter()
                .map(|r| replica_state(&r))
                .collect(),
            committed_voters: (version >= 3).then(|| {
                partition
                    .committed_voters
                    .iter()
                    .map(|r| replica_state(&r))
                    .collect()
            }),
            observers: partition
                .observers
                .iter()
                .map(|r| replica_state(&r))
                .collect(),
            nodes,
        })
    }
}

fn replica_state(r: &describe_quorum_response::ReplicaState) -> ReplicaState {
    ReplicaState {
        replica_id: r.replica_id,
        replica_directory_id: r.replica_directory_id,
        log_end_offset: r.log_end_offset,
        last_fetch_timestamp: (r.last_fetch_timestamp != -1).then_some(r.last_fetch_timestamp),
        last_caught_up_timestamp: (r.last_caught_up_timestamp != -1)
            .then_some(r.last_caught_up_timestamp),
    }
}
