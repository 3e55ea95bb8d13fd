//! The answer to a request that fails as a whole: Kafka 4.4's
//! `AbstractRequest.getErrorResponse`, which `RequestHandlerHelper` sends
//! when a handler throws before producing its own response (for instance
//! `CLUSTER_AUTHORIZATION_FAILED` from an authorization check, or
//! `AUTHORIZER_NOT_READY`).
//!
//! Each API puts the code where its own `XRequest.getErrorResponse` does:
//!
//! | API | where the code goes | message |
//! |---|---|---|
//! | Fetch | top level (v7+); below v13 also every requested partition (high watermark -1, empty records); the session id is echoed | none |
//! | ApiVersions | top level; for `UNSUPPORTED_VERSION` the ApiVersions range is listed (KIP-511) | none |
//! | CreateTopics | every requested topic, by name | ApiError |
//! | DeleteTopics | every requested topic: by name and id from v6, by name below | none |
//! | CreatePartitions | every requested topic, by name | ApiError |
//! | ElectLeaders | top level from v1; every requested partition (none when all partitions were asked for) | ApiError, per partition |
//! | AlterPartitionReassignments | top level and every requested partition | ApiError, at both levels |
//! | ListPartitionReassignments | top level; every requested partition is listed, with no replicas | ApiError |
//! | IncrementalAlterConfigs, AlterConfigs | every requested resource, by type and name | ApiError |
//! | DescribeConfigs | every requested resource, by type and name, no configs | the code's own text |
//! | Vote, BeginQuorumEpoch, EndQuorumEpoch, Envelope | top level | none |
//! | DescribeQuorum | top level | the code's own text (v2+) |
//! | FetchSnapshot, UpdateRaftVoter, AlterPartition, BrokerRegistration, BrokerHeartbeat, AllocateProducerIds, AssignReplicasToDirs | top level | none |
//! | AddRaftVoter, RemoveRaftVoter, ControllerRegistration | top level | the code's own text |
//! | UpdateFeatures, DescribeCluster | top level | ApiError |
//! | UnregisterBroker, UnregisterController | top level | the caller's message, as given |
//!
//! "ApiError" is Kafka's `ApiError.fromThrowable(e).message()`: the caller's
//! message, except that none is sent for `UNKNOWN_SERVER_ERROR` (so internal
//! details do not leak) or when it only repeats the code's default text. "The
//! code's own text" is `Errors.message()`, whatever the caller said. Every
//! other field keeps Kafka's default (throttle time 0, empty results), and
//! fields a version lacks are left at their defaults so that every response
//! encodes at every version of its API.

mod access;

use kraft_protocol::messages::add_raft_voter_response::AddRaftVoterResponse;
use kraft_protocol::messages::allocate_producer_ids_response::AllocateProducerIdsResponse;
use kraft_protocol::messages::alter_partition_reassignments_request::AlterPartitionReassignmentsRequest;
use kraft_protocol::messages::alter_partition_reassignments_response::{
    AlterPartitionReassignmentsResponse, ReassignablePartitionResponse, ReassignableTopicResponse,
};
use kraft_protocol::messages::alter_partition_response::AlterPartitionResponse;
use kraft_protocol::messages::api_versions_response::{ApiVersion, ApiVersionsResponse};
use kraft_protocol::messages::assign_replicas_to_dirs_response::AssignReplicasToDirsResponse;
use kraft_protocol::messages::begin_quorum_epoch_response::BeginQuorumEpochResponse;
use kraft_protocol::messages::broker_heartbeat_response::BrokerHeartbeatResponse;
use kraft_protocol::messages::broker_registration_response::BrokerRegistrationResponse;
use kraft_protocol::messages::controller_registration_response::ControllerRegistrationResponse;
use kraft_protocol::messages::create_partitions_request::CreatePartitionsRequest;
use kraft_protocol::messages::create_partitions_response::{
    CreatePartitionsResponse, CreatePartitionsTopicResult,
};
use kraft_protocol::messages::create_topics_request::CreateTopicsRequest;
use kraft_protocol::messages::create_topics_response::{
    CreatableTopicResult, CreateTopicsResponse,
};
use kraft_protocol::messages::delete_topics_request::DeleteTopicsRequest;
use kraft_protocol::messages::delete_topics_response::{
    DeletableTopicResult, DeleteTopicsResponse,
};
use kraft_protocol::messages::describe_cluster_response::DescribeClusterResponse;
use kraft_protocol::messages::describe_quorum_response::DescribeQuorumResponse;
use kraft_protocol::messages::elect_leaders_request::ElectLeadersRequest;
use kraft_protocol::messages::elect_leaders_response::{
    ElectLeadersResponse, PartitionResult, ReplicaElectionResult,
};
use kraft_protocol::messages::end_quorum_epoch_response::EndQuorumEpochResponse;
use kraft_protocol::messages::envelope_response::EnvelopeResponse;
use kraft_protocol::messages::fetch_request::FetchRequest;
use kraft_protocol::messages::fetch_response::{self, FetchResponse, FetchableTopicResponse};
use kraft_protocol::messages::fetch_snapshot_response::FetchSnapshotResponse;
use kraft_protocol::messages::incremental_alter_configs_request::IncrementalAlterConfigsRequest;
use kraft_protocol::messages::incremental_alter_configs_response::{
    AlterConfigsResourceResponse, IncrementalAlterConfigsResponse,
};
use kraft_protocol::messages::list_partition_reassignments_request::ListPartitionReassignmentsRequest;
use kraft_protocol::messages::list_partition_reassignments_response::{
    ListPartitionReassignmentsResponse, OngoingPartitionReassignment, OngoingTopicReassignment,
};
use kraft_protocol::messages::remove_raft_voter_response::RemoveRaftVoterResponse;
use kraft_protocol::messages::unregister_broker_response::UnregisterBrokerResponse;
use kraft_protocol::messages::unregister_controller_response::UnregisterControllerResponse;
use kraft_protocol::messages::update_features_response::UpdateFeaturesResponse;
use kraft_protocol::messages::update_raft_voter_response::UpdateRaftVoterResponse;
use kraft_protocol::messages::vote_response::VoteResponse;
use kraft_protocol::{ApiKey, ErrorCode, List, RequestBody, ResponseBody, StrBytes};

/// Kafka's `AbstractRequest.getErrorResponse`: the response Kafka sends when
/// a request fails as a whole with `code` (e.g. CLUSTER_AUTHORIZATION_FAILED
/// from an authorization check, AuthorizerNotReady), at the request's
/// version.
///
/// `message` is the failure's own message (Kafka's exception message); each
/// API words it as the [module docs](self) describe. The throttle time is 0.
///
/// `None` when no response can be sent, which Kafka answers by closing the
/// connection: that is the case only when `version` is not a version of the
/// request's API (a parsed request always has a valid one). Every API here,
/// ApiVersions included, otherwise has an answer.
pub(crate) fn error_response(
    request: &RequestBody,
    version: i16,
    code: ErrorCode,
    message: Option<&str>,
) -> Option<ResponseBody> {
    if !request.api_key().is_valid_version(version) {
        return None;
    }
    let failure = Failure { code, message };
    let error_code = code.code();
    Some(match request {
        RequestBody::Fetch(r) => ResponseBody::Fetch(fetch(r, version, error_code)),
        RequestBody::ApiVersions(_) => ResponseBody::ApiVersions(api_versions(code)),
        RequestBody::CreateTopics(r) => ResponseBody::CreateTopics(create_topics(r, failure)),
        RequestBody::DeleteTopics(r) => {
            ResponseBody::DeleteTopics(delete_topics(r, version, error_code))
        }
        RequestBody::CreatePartitions(r) => {
            ResponseBody::CreatePartitions(create_partitions(r, failure))
        }
        RequestBody::ElectLeaders(r) => {
            ResponseBody::ElectLeaders(elect_leaders(r, version, failure))
        }
        RequestBody::IncrementalAlterConfigs(r) => {
            ResponseBody::IncrementalAlterConfigs(incremental_alter_configs(r, failure))
        }
        RequestBody::DescribeConfigs(r) => {
            ResponseBody::DescribeConfigs(super::configs::describe_configs_error_response(r, code))
        }
        RequestBody::AlterConfigs(r) => {
            ResponseBody::AlterConfigs(super::configs::alter_configs_error_response(
                r,
                &super::ApiError {
                    code,
                    message: message.map(str::to_owned),
                },
            ))
        }
        RequestBody::AlterPartitionReassignments(r) => {
            ResponseBody::AlterPartitionReassignments(alter_partition_reassignments(r, failure))
        }
        RequestBody::ListPartitionReassignments(r) => {
            ResponseBody::ListPartitionReassignments(list_partition_reassignments(r, failure))
        }
        RequestBody::Vote(_) => ResponseBody::Vote(VoteResponse {
            error_code,
            ..Default::default()
        }),
        RequestBody::BeginQuorumEpoch(_) => {
            ResponseBody::BeginQuorumEpoch(BeginQuorumEpochResponse {
                error_code,
                ..Default::default()
            })
        }
        RequestBody::EndQuorumEpoch(_) => ResponseBody::EndQuorumEpoch(EndQuorumEpochResponse {
            error_code,
            ..Default::default()
        }),
        RequestBody::DescribeQuorum(_) => ResponseBody::DescribeQuorum(DescribeQuorumResponse {
            error_code,
            error_message: failure.code_text(),
            ..Default::default()
        }),
        RequestBody::AlterPartition(_) => ResponseBody::AlterPartition(AlterPartitionResponse {
            throttle_time_ms: 0,
            error_code,
            ..Default::default()
        }),
        RequestBody::UpdateFeatures(_) => ResponseBody::UpdateFeatures(UpdateFeaturesResponse {
            throttle_time_ms: 0,
            error_code,
            error_message: failure.api_error_message(),
            results: List::new(),
            ..Default::default()
        }),
        RequestBody::Envelope(_) => ResponseBody::Envelope(EnvelopeResponse {
            response_data: None,
            error_code,
            ..Default::default()
        }),
        RequestBody::FetchSnapshot(_) => ResponseBody::FetchSnapshot(FetchSnapshotResponse {
            throttle_time_ms: 0,
            error_code,
            ..Default::default()
        }),
        RequestBody::DescribeCluster(_) => ResponseBody::DescribeCluster(DescribeClusterResponse {
            throttle_time_ms: 0,
            error_code,
            error_message: failure.api_error_message(),
            ..Default::default()
        }),
        RequestBody::BrokerRegistration(_) => {
            ResponseBody::BrokerRegistration(BrokerRegistrationResponse {
                throttle_time_ms: 0,
                error_code,
                ..Default::default()
            })
        }
        RequestBody::BrokerHeartbeat(_) => ResponseBody::BrokerHeartbeat(BrokerHeartbeatResponse {
            throttle_time_ms: 0,
            error_code,
            ..Default::default()
        }),
        RequestBody::UnregisterBroker(_) => {
            ResponseBody::UnregisterBroker(UnregisterBrokerResponse {
                throttle_time_ms: 0,
                error_code,
                error_message: failure.own_message(),
                ..Default::default()
            })
        }
        RequestBody::AllocateProducerIds(_) => {
            ResponseBody::AllocateProducerIds(AllocateProducerIdsResponse {
                throttle_time_ms: 0,
                error_code,
                ..Default::default()
            })
        }
        RequestBody::AssignReplicasToDirs(_) => {
            ResponseBody::AssignReplicasToDirs(AssignReplicasToDirsResponse {
                throttle_time_ms: 0,
                error_code,
                ..Default::default()
            })
        }
        RequestBody::ControllerRegistration(_) => {
            ResponseBody::ControllerRegistration(ControllerRegistrationResponse {
                throttle_time_ms: 0,
                error_code,
                error_message: failure.code_text(),
                ..Default::default()
            })
        }
        RequestBody::AddRaftVoter(_) => ResponseBody::AddRaftVoter(AddRaftVoterResponse {
            throttle_time_ms: 0,
            error_code,
            error_message: failure.code_text(),
            ..Default::default()
        }),
        RequestBody::RemoveRaftVoter(_) => ResponseBody::RemoveRaftVoter(RemoveRaftVoterResponse {
            throttle_time_ms: 0,
            error_code,
            error_message: failure.code_text(),
            ..Default::default()
        }),
        RequestBody::UpdateRaftVoter(_) => ResponseBody::UpdateRaftVoter(UpdateRaftVoterResponse {
            throttle_time_ms: 0,
            error_code,
            ..Default::default()
        }),
        RequestBody::UnregisterController(_) => {
            ResponseBody::UnregisterController(UnregisterControllerResponse {
                throttle_time_ms: 0,
                error_code,
                error_message: failure.own_message(),
                ..Default::default()
            })
        }
        other => access::error_response(other, version, failure)?,
    })
}

/// The failure being answered, and the three ways Kafka's request classes
/// turn it into a message.
#[derive(Debug, Clone, Copy)]
pub(super) struct Failure<'a> {
    pub(super) code: ErrorCode,
    pub(super) message: Option<&'a str>,
}

impl<'a> Failure<'a> {
    /// A failure with `code` and `message`.
    pub(super) fn new(code: ErrorCode, message: Option<&'a str>) -> Self {
        Failure { code, message }
    }

    /// `ApiError.fromThrowable(e).message()`: the failure's message, but
    /// none for UNKNOWN_SERVER_ERROR (or a code Kafka would map to it) and
    /// none when it only repeats the code's default text.
    pub(super) fn api_error_message(self) -> Option<StrBytes> {
        if matches!(
            self.code,
            ErrorCode::UnknownServerError | ErrorCode::Unknown(_)
        ) {
            return None;
        }
        self.message
            .filter(|m| *m != self.code.default_message())
            .map(StrBytes::from)
    }

    /// `e.getMessage()`: the failure's message as given, whatever the code.
    fn own_message(self) -> Option<StrBytes> {
        self.message.map(StrBytes::from)
    }

    /// `Errors.forException(e).message()`: the code's default text, whatever
    /// the failure said (none for NONE, which is not a failure).
    pub(super) fn code_text(self) -> Option<StrBytes> {
        self.code
            .is_err()
            .then(|| StrBytes::from(self.code.default_message()))
    }
}

/// `FetchRequest.getErrorResponse`: the code at the top level (a field from
/// v7); below v13, where clients may not read the top-level code, also in
/// every requested partition, with an invalid high watermark and no records.
fn fetch(request: &FetchRequest, version: i16, error_code: i16) -> FetchResponse {
    let responses = if version < 13 {
        request
            .topics
            .iter()
            .map(|topic| FetchableTopicResponse {
                topic: topic.topic.clone(),
                topic_id: topic.topic_id,
                partitions: topic
                    .partitions
                    .iter()
                    .map(|p| fetch_response::PartitionData {
                        partition_index: p.partition,
                        error_code,
                        high_watermark: -1,
                        records: Some(bytes::Bytes::new()),
                        ..Default::default()
                    })
                    .collect(),
                ..Default::default()
            })
            .collect()
    } else {
        List::new()
    };
    FetchResponse {
        throttle_time_ms: 0,
        error_code,
        // Kafka echoes the request's session id; it is a field from v7, and
        // a request below v7 (which cannot carry one) answers 0.
        session_id: if version >= 7 { request.session_id } else { 0 },
        responses,
        ..Default::default()
    }
}

/// `ApiVersionsRequest.getErrorResponse`: the code; for UNSUPPORTED_VERSION
/// also the versions of ApiVersions itself, so the client can retry at one
/// (KIP-511).
fn api_versions(code: ErrorCode) -> ApiVersionsResponse {
    let api_keys = if code == ErrorCode::UnsupportedVersion {
        let (min_version, max_version) = ApiKey::ApiVersions.versions();
        List::from(vec![ApiVersion {
            api_key: ApiKey::ApiVersions.id(),
            min_version,
            max_version,
            ..Default::default()
        }])
    } else {
        List::new()
    };
    ApiVersionsResponse {
        error_code: code.code(),
        api_keys,
        throttle_time_ms: 0,
        ..Default::default()
    }
}

/// `CreateTopicsRequest.getErrorResponse`: every requested topic, by name,
/// with the code and message.
fn create_topics(request: &CreateTopicsRequest, failure: Failure<'_>) -> CreateTopicsResponse {
    CreateTopicsResponse {
        throttle_time_ms: 0,
        topics: request
            .topics
            .iter()
            .map(|t| CreatableTopicResult {
                name: t.name.clone(),
                error_code: failure.code.code(),
                error_message: failure.api_error_message(),
                ..Default::default()
            })
            .collect(),
        ..Default::default()
    }
}

/// `DeleteTopicsRequest.getErrorResponse`: every requested topic with the
/// code and no message; from v6 each as requested (name or id), below v6 by
/// name.
fn delete_topics(
    request: &DeleteTopicsRequest,
    version: i16,
    error_code: i16,
) -> DeleteTopicsResponse {
    let responses: List<DeletableTopicResult> = if version >= 6 {
        request
            .topics
            .iter()
            .map(|t| DeletableTopicResult {
                name: t.name.clone(),
                topic_id: t.topic_id,
                error_code,
                error_message: None,
                ..Default::default()
            })
            .collect()
    } else {
        request
            .topic_names
            .iter()
            .map(|name| DeletableTopicResult {
                name: Some(name.clone()),
                error_code,
                error_message: None,
                ..Default::default()
            })
            .collect()
    };
    DeleteTopicsResponse {
        throttle_time_ms: 0,
        responses,
        ..Default::default()
    }
}

/// `CreatePartitionsRequest.getErrorResponse`: every requested topic, by
/// name, with the code and message.
fn create_partitions(
    request: &CreatePartitionsRequest,
    failure: Failure<'_>,
) -> CreatePartitionsResponse {
    CreatePartitionsResponse {
        throttle_time_ms: 0,
        results: request
            .topics
            .iter()
            .map(|t| CreatePartitionsTopicResult {
                name: t.name.clone(),
                error_code: failure.code.code(),
                error_message: failure.api_error_message(),
                ..Default::default()
            })
            .collect(),
        ..Default::default()
    }
}

/// `ElectLeadersRequest.getErrorResponse`: the code at the top level from
/// v1 (v0 has no such field), and in every requested partition with the
/// message; a request for all partitions (null) lists none.
fn elect_leaders(
    request: &ElectLeadersRequest,
    version: i16,
    failure: Failure<'_>,
) -> ElectLeadersResponse {
    let replica_election_results = request
        .topic_partitions
        .as_ref()
        .map(|topics| {
            topics
                .iter()
                .map(|t| ReplicaElectionResult {
                    topic: t.topic.clone(),
                    partition_result: t
                        .partitions
                        .iter()
                        .map(|&partition_id| PartitionResult {
                            partition_id,
                            error_code: failure.code.code(),
                            error_message: failure.api_error_message(),
                            ..Default::default()
                        })
                        .collect(),
                    ..Default::default()
                })
                .collect()
        })
        .unwrap_or_default();
    ElectLeadersResponse {
        throttle_time_ms: 0,
        error_code: if version >= 1 { failure.code.code() } else { 0 },
        replica_election_results,
        ..Default::default()
    }
}

/// `IncrementalAlterConfigsRequest.getErrorResponse`: every requested
/// resource, by type and name, with the code and message.
fn incremental_alter_configs(
    request: &IncrementalAlterConfigsRequest,
    failure: Failure<'_>,
) -> IncrementalAlterConfigsResponse {
    IncrementalAlterConfigsResponse {
        throttle_time_ms: 0,
        responses: request
            .resources
            .iter()
            .map(|r| AlterConfigsResourceResponse {
                error_code: failure.code.code(),
                error_message: failure.api_error_message(),
                resource_type: r.resource_type,
                resource_name: r.resource_name.clone(),
                ..Default::default()
            })
            .collect(),
        ..Default::default()
    }
}

/// `AlterPartitionReassignmentsRequest.getErrorResponse`: the code and
/// message at the top level and in every requested partition, by topic
/// name and partition index.
pub(super) fn alter_partition_reassignments(
    request: &AlterPartitionReassignmentsRequest,
    failure: Failure<'_>,
) -> AlterPartitionReassignmentsResponse {
    AlterPartitionReassignmentsResponse {
        throttle_time_ms: 0,
        error_code: failure.code.code(),
        error_message: failure.api_error_message(),
        responses: request
            .topics
            .iter()
            .map(|t| ReassignableTopicResponse {
                name: t.name.clone(),
                partitions: t
                    .partitions
                    .iter()
                    .map(|p| ReassignablePartitionResponse {
                        partition_index: p.partition_index,
                        error_code: failure.code.code(),
                        error_message: failure.api_error_message(),
                        ..Default::default()
                    })
                    .collect(),
                ..Default::default()
            })
            .collect(),
        ..Default::default()
    }
}

/// `ListPartitionReassignmentsRequest.getErrorResponse`: the code and
/// message at the top level; each requested partition is listed under its
/// topic with empty replica lists (none when every reassignment was asked
/// for).
pub(super) fn list_partition_reassignments(
    request: &ListPartitionReassignmentsRequest,
    failure: Failure<'_>,
) -> ListPartitionReassignmentsResponse {
    let topics = request
        .topics
        .as_ref()
        .map(|topics| {
            topics
                .iter()
                .map(|t| OngoingTopicReassignment {
                    name: t.name.clone(),
                    partitions: t
                        .partition_indexes
                        .iter()
                        .map(|&partition_index| OngoingPartitionReassignment {
                            partition_index,
                            ..Default::default()
                        })
                        .collect(),
                    ..Default::default()
                })
                .collect()
        })
        .unwrap_or_default();
    ListPartitionReassignmentsResponse {
        throttle_time_ms: 0,
        error_code: failure.code.code(),
        error_message: failure.api_error_message(),
        topics,
        ..Default::default()
    }
}
