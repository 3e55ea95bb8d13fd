//! [`error_response`] against Kafka 4.4's `XRequest.getErrorResponse`
//! classes and their tests (`RequestResponseTest`,
//! `UpdateFeaturesRequestTest`): the expected responses below are written
//! from those sources, with Kafka's error numbers and default texts
//! (`Errors.java`) and its schema defaults spelled out, and one test encodes
//! every answer at every version of its API.

use bytes::Bytes;
use kraft_protocol::messages::add_raft_voter_request::AddRaftVoterRequest;
use kraft_protocol::messages::add_raft_voter_response::AddRaftVoterResponse;
use kraft_protocol::messages::allocate_producer_ids_request::AllocateProducerIdsRequest;
use kraft_protocol::messages::allocate_producer_ids_response::AllocateProducerIdsResponse;
use kraft_protocol::messages::alter_partition_reassignments_request::AlterPartitionReassignmentsRequest;
use kraft_protocol::messages::alter_partition_reassignments_response::AlterPartitionReassignmentsResponse;
use kraft_protocol::messages::alter_partition_request::{self, AlterPartitionRequest};
use kraft_protocol::messages::alter_partition_response::AlterPartitionResponse;
use kraft_protocol::messages::api_versions_request::ApiVersionsRequest;
use kraft_protocol::messages::api_versions_response::{ApiVersion, ApiVersionsResponse};
use kraft_protocol::messages::begin_quorum_epoch_request::{self, BeginQuorumEpochRequest};
use kraft_protocol::messages::begin_quorum_epoch_response::BeginQuorumEpochResponse;
use kraft_protocol::messages::broker_heartbeat_request::BrokerHeartbeatRequest;
use kraft_protocol::messages::broker_heartbeat_response::BrokerHeartbeatResponse;
use kraft_protocol::messages::broker_registration_request::BrokerRegistrationRequest;
use kraft_protocol::messages::broker_registration_response::BrokerRegistrationResponse;
use kraft_protocol::messages::controller_registration_request::ControllerRegistrationRequest;
use kraft_protocol::messages::controller_registration_response::ControllerRegistrationResponse;
use kraft_protocol::messages::create_partitions_request::{
    CreatePartitionsRequest, CreatePartitionsTopic,
};
use kraft_protocol::messages::create_partitions_response::{
    CreatePartitionsResponse, CreatePartitionsTopicResult,
};
use kraft_protocol::messages::create_topics_request::{CreatableTopic, CreateTopicsRequest};
use kraft_protocol::messages::create_topics_response::{
    CreatableTopicResult, CreateTopicsResponse,
};
use kraft_protocol::messages::delete_topics_request::{DeleteTopicState, DeleteTopicsRequest};
use kraft_protocol::messages::delete_topics_response::{
    DeletableTopicResult, DeleteTopicsResponse,
};
use kraft_protocol::messages::describe_cluster_request::DescribeClusterRequest;
use kraft_protocol::messages::describe_cluster_response::DescribeClusterResponse;
use kraft_protocol::messages::describe_quorum_request::{self, DescribeQuorumRequest};
use kraft_protocol::messages::describe_quorum_response::DescribeQuorumResponse;
use kraft_protocol::messages::elect_leaders_request::{ElectLeadersRequest, TopicPartitions};
use kraft_protocol::messages::elect_leaders_response::{
    ElectLeadersResponse, PartitionResult, ReplicaElectionResult,
};
use kraft_protocol::messages::end_quorum_epoch_request::{self, EndQuorumEpochRequest};
use kraft_protocol::messages::end_quorum_epoch_response::EndQuorumEpochResponse;
use kraft_protocol::messages::envelope_request::EnvelopeRequest;
use kraft_protocol::messages::envelope_response::EnvelopeResponse;
use kraft_protocol::messages::fetch_request::{FetchPartition, FetchRequest, FetchTopic};
use kraft_protocol::messages::fetch_response::{self, FetchResponse, FetchableTopicResponse};
use kraft_protocol::messages::fetch_snapshot_request::{self, FetchSnapshotRequest};
use kraft_protocol::messages::fetch_snapshot_response::FetchSnapshotResponse;
use kraft_protocol::messages::incremental_alter_configs_request::{
    AlterConfigsResource, IncrementalAlterConfigsRequest,
};
use kraft_protocol::messages::incremental_alter_configs_response::{
    AlterConfigsResourceResponse, IncrementalAlterConfigsResponse,
};
use kraft_protocol::messages::list_partition_reassignments_request::ListPartitionReassignmentsRequest;
use kraft_protocol::messages::list_partition_reassignments_response::ListPartitionReassignmentsResponse;
use kraft_protocol::messages::remove_raft_voter_request::RemoveRaftVoterRequest;
use kraft_protocol::messages::remove_raft_voter_response::RemoveRaftVoterResponse;
use kraft_protocol::messages::unregister_broker_request::UnregisterBrokerRequest;
use kraft_protocol::messages::unregister_broker_response::UnregisterBrokerResponse;
use kraft_protocol::messages::unregister_controller_request::UnregisterControllerRequest;
use kraft_protocol::messages::unregister_controller_response::UnregisterControllerResponse;
use kraft_protocol::messages::update_features_request::{FeatureUpdateKey, UpdateFeaturesRequest};
use kraft_protocol::messages::update_features_response::UpdateFeaturesResponse;
use kraft_protocol::messages::update_raft_voter_request::UpdateRaftVoterRequest;
use kraft_protocol::messages::update_raft_voter_response::{
    CurrentLeader, UpdateRaftVoterResponse,
};
use kraft_protocol::messages::vote_request::{self, VoteRequest};
use kraft_protocol::messages::vote_response::VoteResponse;
use kraft_protocol::{ApiKey, ErrorCode, List, RequestBody, ResponseBody, StrBytes, Uuid};

use super::error_response;

/// `Errors.UNKNOWN_SERVER_ERROR.code()`.
const UNKNOWN_SERVER_ERROR: i16 = -1;
/// `Errors.CLUSTER_AUTHORIZATION_FAILED.code()`.
const CLUSTER_AUTHORIZATION_FAILED: i16 = 31;
/// `Errors.UNSUPPORTED_VERSION.code()`.
const UNSUPPORTED_VERSION: i16 = 35;
/// `Errors.INVALID_REQUEST.code()`.
const INVALID_REQUEST: i16 = 42;
/// `Errors.CLUSTER_AUTHORIZATION_FAILED.message()`.
const CLUSTER_AUTHORIZATION_TEXT: &str = "Cluster authorization failed.";
/// A message like the one `AuthHelper.authorizeClusterOperation` throws.
const DENIED: &str = "Request needs ALTER permission.";

/// The answer to `request` at `version` failing with
/// CLUSTER_AUTHORIZATION_FAILED and `message`.
fn denied(request: RequestBody, version: i16, message: Option<&str>) -> ResponseBody {
    error_response(
        &request,
        version,
        ErrorCode::ClusterAuthorizationFailed,
        message,
    )
    .expect("a valid version has an answer")
}

/// Every version of `api`.
fn versions(api: ApiKey) -> std::ops::RangeInclusive<i16> {
    let (lo, hi) = api.versions();
    lo..=hi
}

fn fetch_topic(name: &str, id: Uuid, partitions: &[i32]) -> FetchTopic {
    FetchTopic {
        topic: name.into(),
        topic_id: id,
        partitions: partitions
            .iter()
            .map(|&partition| FetchPartition {
                partition,
                fetch_offset: 100,
                ..Default::default()
            })
            .collect(),
        ..Default::default()
    }
}

/// Kafka's `FetchResponse.partitionResponse(partition, error)`: the schema
/// defaults of PartitionData except the index, the error and an invalid
/// high watermark, with `MemoryRecords.EMPTY`.
fn failed_fetch_partition(partition_index: i32, error_code: i16) -> fetch_response::PartitionData {
    fetch_response::PartitionData {
        partition_index,
        error_code,
        high_watermark: -1,
        last_stable_offset: -1,
        log_start_offset: -1,
        diverging_epoch: fetch_response::EpochEndOffset {
            epoch: -1,
            end_offset: -1,
            ..Default::default()
        },
        current_leader: fetch_response::LeaderIdAndEpoch {
            leader_id: -1,
            leader_epoch: -1,
            ..Default::default()
        },
        snapshot_id: fetch_response::SnapshotId {
            end_offset: -1,
            epoch: -1,
            ..Default::default()
        },
        aborted_transactions: Some(List::new()),
        preferred_read_replica: -1,
        records: Some(Bytes::new()),
        ..Default::default()
    }
}

#[test]
fn fetch_from_v13_fails_only_at_the_top_level() {
    let id = Uuid::from_u128(0x1234);
    for version in 13..=18 {
        let request = FetchRequest {
            session_id: 77,
            session_epoch: 3,
            topics: vec![fetch_topic("", id, &[0, 1])].into(),
            ..Default::default()
        };
        assert_eq!(
            denied(RequestBody::Fetch(request), version, Some(DENIED)),
            ResponseBody::Fetch(FetchResponse {
                throttle_time_ms: 0,
                error_code: CLUSTER_AUTHORIZATION_FAILED,
                session_id: 77,
                responses: List::new(),
                node_endpoints: List::new(),
                ..Default::default()
            }),
            "v{version}"
        );
    }
}

#[test]
fn fetch_below_v13_also_fails_every_requested_partition() {
    for version in 4..=12 {
        // A fetch session id is a field from v7.
        let session_id = if version >= 7 { 77 } else { 0 };
        let request = FetchRequest {
            session_id,
            topics: vec![
                fetch_topic("foo", Uuid::nil(), &[0, 2]),
                fetch_topic("bar", Uuid::nil(), &[1]),
            ]
            .into(),
            ..Default::default()
        };
        let topic = |name: &str, partitions: &[i32]| FetchableTopicResponse {
            topic: name.into(),
            topic_id: Uuid::nil(),
            partitions: partitions
                .iter()
                .map(|&p| failed_fetch_partition(p, CLUSTER_AUTHORIZATION_FAILED))
                .collect(),
            ..Default::default()
        };
        assert_eq!(
            denied(RequestBody::Fetch(request), version, Some(DENIED)),
            ResponseBody::Fetch(FetchResponse {
                throttle_time_ms: 0,
                error_code: CLUSTER_AUTHORIZATION_FAILED,
                session_id,
                responses: vec![topic("foo", &[0, 2]), topic("bar", &[1])].into(),
                node_endpoints: List::new(),
                ..Default::default()
            }),
            "v{version}"
        );
    }
}

/// `RequestResponseTest.testApiVersionResponseWithUnsupportedError` and
/// `testApiVersionResponseWithNotUnsupportedError`.
#[test]
fn api_versions_lists_its_own_range_only_for_unsupported_version() {
    for version in 0..=5 {
        let request = RequestBody::ApiVersions(ApiVersionsRequest::default());
        assert_eq!(
            error_response(&request, version, ErrorCode::UnsupportedVersion, None),
            Some(ResponseBody::ApiVersions(ApiVersionsResponse {
                error_code: UNSUPPORTED_VERSION,
                // ApiVersionsRequest.json: "validVersions": "0-5".
                api_keys: vec![ApiVersion {
                    api_key: 18,
                    min_version: 0,
                    max_version: 5,
                    ..Default::default()
                }]
                .into(),
                throttle_time_ms: 0,
                supported_features: List::new(),
                finalized_features_epoch: -1,
                finalized_features: List::new(),
                zk_migration_ready: false,
                ..Default::default()
            })),
            "v{version}"
        );
        assert_eq!(
            error_response(&request, version, ErrorCode::InvalidRequest, Some("bad")),
            Some(ResponseBody::ApiVersions(ApiVersionsResponse {
                error_code: INVALID_REQUEST,
                api_keys: List::new(),
                throttle_time_ms: 0,
                finalized_features_epoch: -1,
                ..Default::default()
            })),
            "v{version}"
        );
    }
}

#[test]
fn create_topics_fails_every_requested_topic_by_name() {
    let request = CreateTopicsRequest {
        topics: vec![
            CreatableTopic {
                name: "foo".into(),
                num_partitions: 3,
                ..Default::default()
            },
            CreatableTopic {
                name: "bar".into(),
                ..Default::default()
            },
        ]
        .into(),
        ..Default::default()
    };
    let result = |name: &str| CreatableTopicResult {
        name: name.into(),
        topic_id: Uuid::nil(),
        error_code: CLUSTER_AUTHORIZATION_FAILED,
        error_message: Some(DENIED.into()),
        topic_config_error_code: 0,
        num_partitions: -1,
        replication_factor: -1,
        configs: Some(List::new()),
        ..Default::default()
    };
    for version in 2..=7 {
        assert_eq!(
            denied(
                RequestBody::CreateTopics(request.clone()),
                version,
                Some(DENIED)
            ),
            ResponseBody::CreateTopics(CreateTopicsResponse {
                throttle_time_ms: 0,
                topics: vec![result("foo"), result("bar")].into(),
                ..Default::default()
            }),
            "v{version}"
        );
    }
}

#[test]
fn delete_topics_from_v6_fails_each_topic_as_it_was_named() {
    let id = Uuid::from_u128(0xabcd);
    let request = DeleteTopicsRequest {
        topics: vec![
            DeleteTopicState {
                name: Some("foo".into()),
                topic_id: Uuid::nil(),
                ..Default::default()
            },
            DeleteTopicState {
                name: None,
                topic_id: id,
                ..Default::default()
            },
        ]
        .into(),
        ..Default::default()
    };
    // No message: DeleteTopicsRequest.getErrorResponse sets only the code.
    assert_eq!(
        denied(RequestBody::DeleteTopics(request), 6, Some(DENIED)),
        ResponseBody::DeleteTopics(DeleteTopicsResponse {
            throttle_time_ms: 0,
            responses: vec![
                DeletableTopicResult {
                    name: Some("foo".into()),
                    topic_id: Uuid::nil(),
                    error_code: CLUSTER_AUTHORIZATION_FAILED,
                    error_message: None,
                    ..Default::default()
                },
                DeletableTopicResult {
                    name: None,
                    topic_id: id,
                    error_code: CLUSTER_AUTHORIZATION_FAILED,
                    error_message: None,
                    ..Default::default()
                },
            ]
            .into(),
            ..Default::default()
        })
    );
}

#[test]
fn delete_topics_below_v6_fails_each_topic_by_name() {
    let request = DeleteTopicsRequest {
        topic_names: vec!["foo".into(), "bar".into()],
        ..Default::default()
    };
    let result = |name: &str| DeletableTopicResult {
        name: Some(name.into()),
        topic_id: Uuid::nil(),
        error_code: CLUSTER_AUTHORIZATION_FAILED,
        error_message: None,
        ..Default::default()
    };
    for version in 1..=5 {
        assert_eq!(
            denied(
                RequestBody::DeleteTopics(request.clone()),
                version,
                Some(DENIED)
            ),
            ResponseBody::DeleteTopics(DeleteTopicsResponse {
                throttle_time_ms: 0,
                responses: vec![result("foo"), result("bar")].into(),
                ..Default::default()
            }),
            "v{version}"
        );
    }
}

#[test]
fn create_partitions_fails_every_requested_topic_by_name() {
    let request = CreatePartitionsRequest {
        topics: vec![
            CreatePartitionsTopic {
                name: "foo".into(),
                count: 4,
                ..Default::default()
            },
            CreatePartitionsTopic {
                name: "bar".into(),
                count: 2,
                assignments: None,
                ..Default::default()
            },
        ]
        .into(),
        ..Default::default()
    };
    let result = |name: &str| CreatePartitionsTopicResult {
        name: name.into(),
        error_code: CLUSTER_AUTHORIZATION_FAILED,
        error_message: Some(DENIED.into()),
        ..Default::default()
    };
    for version in 0..=3 {
        assert_eq!(
            denied(
                RequestBody::CreatePartitions(request.clone()),
                version,
                Some(DENIED)
            ),
            ResponseBody::CreatePartitions(CreatePartitionsResponse {
                throttle_time_ms: 0,
                results: vec![result("foo"), result("bar")].into(),
                ..Default::default()
            }),
            "v{version}"
        );
    }
}

/// `ElectLeadersResponse`'s constructor sets the top-level code only from
/// v1 (`RequestResponseTest` skips v0: "ElectLeaders v0 does not have a top
/// level error field").
#[test]
fn elect_leaders_fails_every_partition_and_the_top_level_from_v1() {
    let request = ElectLeadersRequest {
        election_type: 0,
        topic_partitions: Some(
            vec![
                TopicPartitions {
                    topic: "foo".into(),
                    partitions: vec![0, 2],
                    ..Default::default()
                },
                TopicPartitions {
                    topic: "bar".into(),
                    partitions: vec![1],
                    ..Default::default()
                },
            ]
            .into(),
        ),
        ..Default::default()
    };
    let partition = |partition_id: i32| PartitionResult {
        partition_id,
        error_code: CLUSTER_AUTHORIZATION_FAILED,
        error_message: Some(DENIED.into()),
        ..Default::default()
    };
    let results: List<ReplicaElectionResult> = vec![
        ReplicaElectionResult {
            topic: "foo".into(),
            partition_result: vec![partition(0), partition(2)].into(),
            ..Default::default()
        },
        ReplicaElectionResult {
            topic: "bar".into(),
            partition_result: vec![partition(1)].into(),
            ..Default::default()
        },
    ]
    .into();
    for (version, top_level) in [
        (0, 0),
        (1, CLUSTER_AUTHORIZATION_FAILED),
        (2, CLUSTER_AUTHORIZATION_FAILED),
    ] {
        assert_eq!(
            denied(
                RequestBody::ElectLeaders(request.clone()),
                version,
                Some(DENIED)
            ),
            ResponseBody::ElectLeaders(ElectLeadersResponse {
                throttle_time_ms: 0,
                error_code: top_level,
                replica_election_results: results.clone(),
                ..Default::default()
            }),
            "v{version}"
        );
    }
}

#[test]
fn elect_leaders_for_every_partition_lists_no_partition() {
    let request = ElectLeadersRequest {
        election_type: 1,
        topic_partitions: None,
        ..Default::default()
    };
    for (version, top_level) in [
        (0, 0),
        (1, CLUSTER_AUTHORIZATION_FAILED),
        (2, CLUSTER_AUTHORIZATION_FAILED),
    ] {
        assert_eq!(
            denied(
                RequestBody::ElectLeaders(request.clone()),
                version,
                Some(DENIED)
            ),
            ResponseBody::ElectLeaders(ElectLeadersResponse {
                throttle_time_ms: 0,
                error_code: top_level,
                replica_election_results: List::new(),
                ..Default::default()
            }),
            "v{version}"
        );
    }
}

/// Moves foo-0, cancels foo-1's reassignment and moves bar-2.
fn reassign_request() -> AlterPartitionReassignmentsRequest {
    use kraft_protocol::messages::alter_partition_reassignments_request::{
        ReassignablePartition, ReassignableTopic,
    };
    let partition = |partition_index: i32, replicas: Option<Vec<i32>>| ReassignablePartition {
        partition_index,
        replicas,
        ..Default::default()
    };
    AlterPartitionReassignmentsRequest {
        timeout_ms: 30000,
        allow_replication_factor_change: false,
        topics: vec![
            ReassignableTopic {
                name: "foo".into(),
                partitions: vec![partition(0, Some(vec![4, 5, 6])), partition(1, None)].into(),
                ..Default::default()
            },
            ReassignableTopic {
                name: "bar".into(),
                partitions: vec![partition(2, Some(vec![6]))].into(),
                ..Default::default()
            },
        ]
        .into(),
        ..Default::default()
    }
}

fn list_reassignments_request(
    topics: Option<Vec<(&str, Vec<i32>)>>,
) -> ListPartitionReassignmentsRequest {
    use kraft_protocol::messages::list_partition_reassignments_request::ListPartitionReassignmentsTopics;
    ListPartitionReassignmentsRequest {
        timeout_ms: 30000,
        topics: topics.map(|topics| {
            topics
                .into_iter()
                .map(
                    |(name, partition_indexes)| ListPartitionReassignmentsTopics {
                        name: name.into(),
                        partition_indexes,
                        ..Default::default()
                    },
                )
                .collect()
        }),
        ..Default::default()
    }
}

#[test]
fn alter_partition_reassignments_fails_the_top_level_and_every_partition() {
    use kraft_protocol::messages::alter_partition_reassignments_response::{
        ReassignablePartitionResponse, ReassignableTopicResponse,
    };
    let partition = |partition_index: i32| ReassignablePartitionResponse {
        partition_index,
        error_code: CLUSTER_AUTHORIZATION_FAILED,
        error_message: Some(DENIED.into()),
        ..Default::default()
    };
    for version in [0, 1] {
        assert_eq!(
            denied(
                RequestBody::AlterPartitionReassignments(reassign_request()),
                version,
                Some(DENIED)
            ),
            ResponseBody::AlterPartitionReassignments(AlterPartitionReassignmentsResponse {
                throttle_time_ms: 0,
                // Not set by Kafka's error response: the schema default.
                allow_replication_factor_change: true,
                error_code: CLUSTER_AUTHORIZATION_FAILED,
                error_message: Some(DENIED.into()),
                responses: vec![
                    ReassignableTopicResponse {
                        name: "foo".into(),
                        partitions: vec![partition(0), partition(1)].into(),
                        ..Default::default()
                    },
                    ReassignableTopicResponse {
                        name: "bar".into(),
                        partitions: vec![partition(2)].into(),
                        ..Default::default()
                    },
                ]
                .into(),
                ..Default::default()
            }),
            "v{version}"
        );
    }
    // An unknown server error carries no message, at either level.
    let r = error_response(
        &RequestBody::AlterPartitionReassignments(reassign_request()),
        0,
        ErrorCode::UnknownServerError,
        Some("secret"),
    );
    let Some(ResponseBody::AlterPartitionReassignments(r)) = r else {
        panic!("{r:?}");
    };
    assert_eq!(
        (r.error_code, &r.error_message),
        (UNKNOWN_SERVER_ERROR, &None)
    );
    assert!(r.responses.iter().all(|t| t
        .partitions
        .iter()
        .all(|p| p.error_code == UNKNOWN_SERVER_ERROR && p.error_message.is_none())));
}

#[test]
fn list_partition_reassignments_lists_each_requested_partition_empty() {
    use kraft_protocol::messages::list_partition_reassignments_response::{
        OngoingPartitionReassignment, OngoingTopicReassignment,
    };
    let request = list_reassignments_request(Some(vec![("foo", vec![0, 1]), ("bar", vec![])]));
    let empty = |partition_index: i32| OngoingPartitionReassignment {
        partition_index,
        replicas: vec![],
        adding_replicas: vec![],
        removing_replicas: vec![],
        ..Default::default()
    };
    assert_eq!(
        denied(
            RequestBody::ListPartitionReassignments(request),
            0,
            Some(DENIED)
        ),
        ResponseBody::ListPartitionReassignments(ListPartitionReassignmentsResponse {
            throttle_time_ms: 0,
            error_code: CLUSTER_AUTHORIZATION_FAILED,
            error_message: Some(DENIED.into()),
            topics: vec![
                OngoingTopicReassignment {
                    name: "foo".into(),
                    partitions: vec![empty(0), empty(1)].into(),
                    ..Default::default()
                },
                OngoingTopicReassignment {
                    name: "bar".into(),
                    partitions: List::new(),
                    ..Default::default()
                },
            ]
            .into(),
            ..Default::default()
        })
    );
    // Listing everything: no topic in the answer.
    let r = denied(
        RequestBody::ListPartitionReassignments(list_reassignments_request(None)),
        0,
        Some(CLUSTER_AUTHORIZATION_TEXT),
    );
    assert_eq!(
        r,
        ResponseBody::ListPartitionReassignments(ListPartitionReassignmentsResponse {
            throttle_time_ms: 0,
            error_code: CLUSTER_AUTHORIZATION_FAILED,
            // The code's own text is not repeated.
            error_message: None,
            topics: List::new(),
            ..Default::default()
        })
    );
}

#[test]
fn incremental_alter_configs_fails_every_requested_resource() {
    let request = IncrementalAlterConfigsRequest {
        resources: vec![
            AlterConfigsResource {
                resource_type: 2,
                resource_name: "foo".into(),
                ..Default::default()
            },
            AlterConfigsResource {
                resource_type: 4,
                resource_name: "".into(),
                ..Default::default()
            },
        ]
        .into(),
        ..Default::default()
    };
    let response = |resource_type: i8, name: &str| AlterConfigsResourceResponse {
        error_code: CLUSTER_AUTHORIZATION_FAILED,
        error_message: Some(DENIED.into()),
        resource_type,
        resource_name: name.into(),
        ..Default::default()
    };
    for version in 0..=1 {
        assert_eq!(
            denied(
                RequestBody::IncrementalAlterConfigs(request.clone()),
                version,
                Some(DENIED)
            ),
            ResponseBody::IncrementalAlterConfigs(IncrementalAlterConfigsResponse {
                throttle_time_ms: 0,
                responses: vec![response(2, "foo"), response(4, "")].into(),
                ..Default::default()
            }),
            "v{version}"
        );
    }
}

/// Vote, BeginQuorumEpoch and EndQuorumEpoch: only the top-level code, no
/// topic or partition echoed (and no throttle time, a field they lack).
#[test]
fn raft_election_requests_fail_at_the_top_level_only() {
    let vote = VoteRequest {
        topics: vec![vote_request::TopicData {
            topic_name: "__cluster_metadata".into(),
            partitions: vec![vote_request::PartitionData::default()].into(),
            ..Default::default()
        }]
        .into(),
        ..Default::default()
    };
    for version in 0..=2 {
        assert_eq!(
            denied(RequestBody::Vote(vote.clone()), version, Some(DENIED)),
            ResponseBody::Vote(VoteResponse {
                error_code: CLUSTER_AUTHORIZATION_FAILED,
                topics: List::new(),
                node_endpoints: List::new(),
                ..Default::default()
            }),
            "Vote v{version}"
        );
    }
    let begin = BeginQuorumEpochRequest {
        topics: vec![begin_quorum_epoch_request::TopicData {
            topic_name: "__cluster_metadata".into(),
            partitions: vec![begin_quorum_epoch_request::PartitionData::default()].into(),
            ..Default::default()
        }]
        .into(),
        ..Default::default()
    };
    let end = EndQuorumEpochRequest {
        topics: vec![end_quorum_epoch_request::TopicData {
            topic_name: "__cluster_metadata".into(),
            partitions: vec![end_quorum_epoch_request::PartitionData::default()].into(),
            ..Default::default()
        }]
        .into(),
        ..Default::default()
    };
    for version in 0..=1 {
        assert_eq!(
            denied(
                RequestBody::BeginQuorumEpoch(begin.clone()),
                version,
                Some(DENIED)
            ),
            ResponseBody::BeginQuorumEpoch(BeginQuorumEpochResponse {
                error_code: CLUSTER_AUTHORIZATION_FAILED,
                topics: List::new(),
                node_endpoints: List::new(),
                ..Default::default()
            }),
            "BeginQuorumEpoch v{version}"
        );
        assert_eq!(
            denied(
                RequestBody::EndQuorumEpoch(end.clone()),
                version,
                Some(DENIED)
            ),
            ResponseBody::EndQuorumEpoch(EndQuorumEpochResponse {
                error_code: CLUSTER_AUTHORIZATION_FAILED,
                topics: List::new(),
                node_endpoints: List::new(),
                ..Default::default()
            }),
            "EndQuorumEpoch v{version}"
        );
    }
}

#[test]
fn fetch_snapshot_and_update_raft_voter_fail_at_the_top_level_only() {
    let fetch_snapshot = FetchSnapshotRequest {
        topics: vec![fetch_snapshot_request::TopicSnapshot {
            name: "__cluster_metadata".into(),
            partitions: vec![fetch_snapshot_request::PartitionSnapshot::default()].into(),
            ..Default::default()
        }]
        .into(),
        ..Default::default()
    };
    for version in 0..=1 {
        assert_eq!(
            denied(
                RequestBody::FetchSnapshot(fetch_snapshot.clone()),
                version,
                Some(DENIED)
            ),
            ResponseBody::FetchSnapshot(FetchSnapshotResponse {
                throttle_time_ms: 0,
                error_code: CLUSTER_AUTHORIZATION_FAILED,
                topics: List::new(),
                node_endpoints: List::new(),
                ..Default::default()
            }),
            "FetchSnapshot v{version}"
        );
    }
    let update = UpdateRaftVoterRequest {
        voter_id: 3,
        ..Default::default()
    };
    assert_eq!(
        denied(RequestBody::UpdateRaftVoter(update), 0, Some(DENIED)),
        ResponseBody::UpdateRaftVoter(UpdateRaftVoterResponse {
            throttle_time_ms: 0,
            error_code: CLUSTER_AUTHORIZATION_FAILED,
            current_leader: CurrentLeader {
                leader_id: -1,
                leader_epoch: -1,
                host: StrBytes::new(),
                port: 0,
                ..Default::default()
            },
            ..Default::default()
        })
    );
}

/// `DescribeQuorumRequest.getTopLevelErrorResponse`: the code's own text,
/// not the failure's message.
#[test]
fn describe_quorum_fails_at_the_top_level_with_the_codes_text() {
    let request = DescribeQuorumRequest {
        topics: vec![describe_quorum_request::TopicData {
            topic_name: "__cluster_metadata".into(),
            partitions: vec![describe_quorum_request::PartitionData::default()].into(),
            ..Default::default()
        }]
        .into(),
        ..Default::default()
    };
    for version in 0..=3 {
        assert_eq!(
            denied(
                RequestBody::DescribeQuorum(request.clone()),
                version,
                Some(DENIED)
            ),
            ResponseBody::DescribeQuorum(DescribeQuorumResponse {
                error_code: CLUSTER_AUTHORIZATION_FAILED,
                error_message: Some(CLUSTER_AUTHORIZATION_TEXT.into()),
                topics: List::new(),
                nodes: List::new(),
                ..Default::default()
            }),
            "v{version}"
        );
    }
}

/// AddRaftVoter, RemoveRaftVoter and ControllerRegistration set
/// `Errors.message()`: the code's own text, whatever the failure said.
#[test]
fn voter_changes_and_controller_registration_carry_the_codes_text() {
    for message in [Some(DENIED), None] {
        for version in 0..=2 {
            assert_eq!(
                denied(
                    RequestBody::AddRaftVoter(AddRaftVoterRequest::default()),
                    version,
                    message
                ),
                ResponseBody::AddRaftVoter(AddRaftVoterResponse {
                    throttle_time_ms: 0,
                    error_code: CLUSTER_AUTHORIZATION_FAILED,
                    error_message: Some(CLUSTER_AUTHORIZATION_TEXT.into()),
                    ..Default::default()
                }),
                "AddRaftVoter v{version}"
            );
        }
        for version in 0..=1 {
            assert_eq!(
                denied(
                    RequestBody::RemoveRaftVoter(RemoveRaftVoterRequest::default()),
                    version,
                    message
                ),
                ResponseBody::RemoveRaftVoter(RemoveRaftVoterResponse {
                    throttle_time_ms: 0,
                    error_code: CLUSTER_AUTHORIZATION_FAILED,
                    error_message: Some(CLUSTER_AUTHORIZATION_TEXT.into()),
                    ..Default::default()
                }),
                "RemoveRaftVoter v{version}"
            );
        }
        assert_eq!(
            denied(
                RequestBody::ControllerRegistration(ControllerRegistrationRequest::default()),
                0,
                message
            ),
            ResponseBody::ControllerRegistration(ControllerRegistrationResponse {
                throttle_time_ms: 0,
                error_code: CLUSTER_AUTHORIZATION_FAILED,
                error_message: Some(CLUSTER_AUTHORIZATION_TEXT.into()),
                ..Default::default()
            })
        );
    }
}

/// `RequestResponseTest.testUnregisterBrokerResponseWithUnknownServerError`
/// and `testUnregisterControllerResponseWithUnknownServerError`: the
/// exception's own message, even for UNKNOWN_SERVER_ERROR.
#[test]
fn unregistrations_carry_the_failures_own_message() {
    let custom = "custom error message";
    let broker = RequestBody::UnregisterBroker(UnregisterBrokerRequest::default());
    let controller = RequestBody::UnregisterController(UnregisterControllerRequest::default());
    assert_eq!(
        error_response(&broker, 0, ErrorCode::UnknownServerError, Some(custom)),
        Some(ResponseBody::UnregisterBroker(UnregisterBrokerResponse {
            throttle_time_ms: 0,
            error_code: UNKNOWN_SERVER_ERROR,
            error_message: Some(custom.into()),
            ..Default::default()
        }))
    );
    assert_eq!(
        error_response(&controller, 0, ErrorCode::UnknownServerError, Some(custom)),
        Some(ResponseBody::UnregisterController(
            UnregisterControllerResponse {
                throttle_time_ms: 0,
                error_code: UNKNOWN_SERVER_ERROR,
                error_message: Some(custom.into()),
                ..Default::default()
            }
        ))
    );
    // A message equal to the code's text is kept too, and none stays none.
    assert_eq!(
        denied(broker, 0, Some(CLUSTER_AUTHORIZATION_TEXT)),
        ResponseBody::UnregisterBroker(UnregisterBrokerResponse {
            throttle_time_ms: 0,
            error_code: CLUSTER_AUTHORIZATION_FAILED,
            error_message: Some(CLUSTER_AUTHORIZATION_TEXT.into()),
            ..Default::default()
        })
    );
    assert_eq!(
        denied(controller, 0, None),
        ResponseBody::UnregisterController(UnregisterControllerResponse {
            throttle_time_ms: 0,
            error_code: CLUSTER_AUTHORIZATION_FAILED,
            error_message: None,
            ..Default::default()
        })
    );
}

/// UpdateFeatures (`UpdateFeaturesResponse.createWithErrors` with no
/// updates; `UpdateFeaturesRequestTest.testGetErrorResponse`: no results)
/// and DescribeCluster: the code and message at the top level.
#[test]
fn update_features_and_describe_cluster_fail_at_the_top_level_with_the_message() {
    let update = UpdateFeaturesRequest {
        feature_updates: vec![
            FeatureUpdateKey {
                feature: "foo".into(),
                max_version_level: 2,
                ..Default::default()
            },
            FeatureUpdateKey {
                feature: "bar".into(),
                max_version_level: 3,
                ..Default::default()
            },
        ]
        .into(),
        ..Default::default()
    };
    for version in 0..=2 {
        assert_eq!(
            denied(
                RequestBody::UpdateFeatures(update.clone()),
                version,
                Some(DENIED)
            ),
            ResponseBody::UpdateFeatures(UpdateFeaturesResponse {
                throttle_time_ms: 0,
                error_code: CLUSTER_AUTHORIZATION_FAILED,
                error_message: Some(DENIED.into()),
                results: List::new(),
                ..Default::default()
            }),
            "UpdateFeatures v{version}"
        );
    }
    let describe = DescribeClusterRequest {
        include_cluster_authorized_operations: true,
        endpoint_type: 2,
        ..Default::default()
    };
    for version in 0..=2 {
        assert_eq!(
            denied(
                RequestBody::DescribeCluster(describe.clone()),
                version,
                Some(DENIED)
            ),
            ResponseBody::DescribeCluster(DescribeClusterResponse {
                throttle_time_ms: 0,
                error_code: CLUSTER_AUTHORIZATION_FAILED,
                error_message: Some(DENIED.into()),
                // The schema defaults: the error response does not echo
                // the requested endpoint type.
                endpoint_type: 1,
                cluster_id: StrBytes::new(),
                controller_id: -1,
                brokers: List::new(),
                cluster_authorized_operations: i32::MIN,
                ..Default::default()
            }),
            "DescribeCluster v{version}"
        );
    }
}

/// The broker-to-controller APIs, AlterPartition and Envelope: the code at
/// the top level, every other field at its schema default.
#[test]
fn controller_apis_without_a_message_fail_at_the_top_level() {
    let alter = AlterPartitionRequest {
        broker_id: 1,
        broker_epoch: 5,
        topics: vec![alter_partition_request::TopicData {
            topic_id: Uuid::from_u128(9),
            partitions: vec![alter_partition_request::PartitionData::default()].into(),
            ..Default::default()
        }]
        .into(),
        ..Default::default()
    };
    for version in 2..=3 {
        assert_eq!(
            denied(
                RequestBody::AlterPartition(alter.clone()),
                version,
                Some(DENIED)
            ),
            ResponseBody::AlterPartition(AlterPartitionResponse {
                throttle_time_ms: 0,
                error_code: CLUSTER_AUTHORIZATION_FAILED,
                topics: List::new(),
                ..Default::default()
            }),
            "AlterPartition v{version}"
        );
    }
    for version in 0..=4 {
        assert_eq!(
            denied(
                RequestBody::BrokerRegistration(BrokerRegistrationRequest::default()),
                version,
                Some(DENIED)
            ),
            ResponseBody::BrokerRegistration(BrokerRegistrationResponse {
                throttle_time_ms: 0,
                error_code: CLUSTER_AUTHORIZATION_FAILED,
                broker_epoch: -1,
                ..Default::default()
            }),
            "BrokerRegistration v{version}"
        );
    }
    for version in 0..=2 {
        assert_eq!(
            denied(
                RequestBody::BrokerHeartbeat(BrokerHeartbeatRequest::default()),
                version,
                Some(DENIED)
            ),
            ResponseBody::BrokerHeartbeat(BrokerHeartbeatResponse {
                throttle_time_ms: 0,
                error_code: CLUSTER_AUTHORIZATION_FAILED,
                is_caught_up: false,
                // BrokerHeartbeatResponse.json: IsFenced defaults to true.
                is_fenced: true,
                should_shut_down: false,
                ..Default::default()
            }),
            "BrokerHeartbeat v{version}"
        );
    }
    assert_eq!(
        denied(
            RequestBody::AllocateProducerIds(AllocateProducerIdsRequest::default()),
            0,
            Some(DENIED)
        ),
        ResponseBody::AllocateProducerIds(AllocateProducerIdsResponse {
            throttle_time_ms: 0,
            error_code: CLUSTER_AUTHORIZATION_FAILED,
            producer_id_start: 0,
            producer_id_len: 0,
            ..Default::default()
        })
    );
    assert_eq!(
        denied(
            RequestBody::Envelope(EnvelopeRequest {
                request_data: Bytes::from_static(b"\x00\x13"),
                ..Default::default()
            }),
            0,
            Some(DENIED)
        ),
        ResponseBody::Envelope(EnvelopeResponse {
            response_data: None,
            error_code: CLUSTER_AUTHORIZATION_FAILED,
            ..Default::default()
        })
    );
}

/// `ApiError.fromThrowable`: no message for UNKNOWN_SERVER_ERROR
/// (`RequestResponseTest.checkErrorResponse`: "secret" must not appear) or
/// when it repeats the code's default text; the message otherwise.
#[test]
fn api_error_messages_are_withheld_for_unknown_errors_and_default_texts() {
    let create_topics = RequestBody::CreateTopics(CreateTopicsRequest {
        topics: vec![CreatableTopic {
            name: "foo".into(),
            ..Default::default()
        }]
        .into(),
        ..Default::default()
    });
    let create_partitions = RequestBody::CreatePartitions(CreatePartitionsRequest {
        topics: vec![CreatePartitionsTopic {
            name: "foo".into(),
            ..Default::default()
        }]
        .into(),
        ..Default::default()
    });
    let elect = RequestBody::ElectLeaders(ElectLeadersRequest {
        topic_partitions: Some(
            vec![TopicPartitions {
                topic: "foo".into(),
                partitions: vec![0],
                ..Default::default()
            }]
            .into(),
        ),
        ..Default::default()
    });
    let configs = RequestBody::IncrementalAlterConfigs(IncrementalAlterConfigsRequest {
        resources: vec![AlterConfigsResource {
            resource_type: 2,
            resource_name: "foo".into(),
            ..Default::default()
        }]
        .into(),
        ..Default::default()
    });
    let features = RequestBody::UpdateFeatures(UpdateFeaturesRequest::default());
    let cluster = RequestBody::DescribeCluster(DescribeClusterRequest::default());

    /// The message each of these answers carries.
    fn message_of(response: &ResponseBody) -> Option<String> {
        let text = |m: &Option<StrBytes>| m.as_ref().map(|m| m.to_string());
        match response {
            ResponseBody::CreateTopics(r) => text(&r.topics.iter().next()?.error_message),
            ResponseBody::CreatePartitions(r) => text(&r.results.iter().next()?.error_message),
            ResponseBody::ElectLeaders(r) => text(
                &r.replica_election_results
                    .iter()
                    .next()?
                    .partition_result
                    .iter()
                    .next()?
                    .error_message,
            ),
            ResponseBody::IncrementalAlterConfigs(r) => {
                text(&r.responses.iter().next()?.error_message)
            }
            ResponseBody::UpdateFeatures(r) => text(&r.error_message),
            ResponseBody::DescribeCluster(r) => text(&r.error_message),
            other => panic!("not an ApiError answer: {other:?}"),
        }
    }

    for request in [
        create_topics,
        create_partitions,
        elect,
        configs,
        features,
        cluster,
    ] {
        let api = request.api_key().kafka_name();
        let version = request.api_key().versions().1;
        let answer = |code, message| {
            let response = error_response(&request, version, code, message)
                .expect("a valid version has an answer");
            message_of(&response)
        };
        assert_eq!(
            answer(ErrorCode::UnknownServerError, Some("secret")),
            None,
            "{api}"
        );
        assert_eq!(
            answer(
                ErrorCode::ClusterAuthorizationFailed,
                Some(CLUSTER_AUTHORIZATION_TEXT)
            ),
            None,
            "{api}"
        );
        assert_eq!(
            answer(ErrorCode::ClusterAuthorizationFailed, None),
            None,
            "{api}"
        );
        assert_eq!(
            answer(ErrorCode::ClusterAuthorizationFailed, Some(DENIED)),
            Some(DENIED.to_string()),
            "{api}"
        );
    }
}

#[test]
fn a_version_the_api_lacks_has_no_answer() {
    let cases = [
        (RequestBody::CreateTopics(CreateTopicsRequest::default()), 1),
        (RequestBody::CreateTopics(CreateTopicsRequest::default()), 8),
        (RequestBody::Fetch(FetchRequest::default()), 3),
        (RequestBody::Fetch(FetchRequest::default()), 19),
        (RequestBody::ApiVersions(ApiVersionsRequest::default()), -1),
        (RequestBody::ApiVersions(ApiVersionsRequest::default()), 6),
        (RequestBody::Envelope(EnvelopeRequest::default()), 1),
    ];
    for (request, version) in cases {
        assert_eq!(
            error_response(
                &request,
                version,
                ErrorCode::ClusterAuthorizationFailed,
                None
            ),
            None,
            "{} v{version}",
            request.api_key().kafka_name()
        );
    }
}

/// A request of `api` with entries in every list the error response
/// mirrors, including fields some versions lack (a session id, topic names
/// and ids, both forms of DeleteTopics): whatever the request holds, the
/// answer must encode.
fn full_request(api: ApiKey) -> RequestBody {
    let id = Uuid::from_u128(0x0123_4567_89ab_cdef);
    match api {
        ApiKey::Fetch => RequestBody::Fetch(FetchRequest {
            session_id: 12,
            session_epoch: 1,
            topics: vec![
                fetch_topic("foo", id, &[0, 1]),
                fetch_topic("bar", id, &[2]),
            ]
            .into(),
            ..Default::default()
        }),
        ApiKey::ApiVersions => RequestBody::ApiVersions(ApiVersionsRequest {
            client_software_name: "apache-kafka-java".into(),
            client_software_version: "4.4.0".into(),
            ..Default::default()
        }),
        ApiKey::CreateTopics => RequestBody::CreateTopics(CreateTopicsRequest {
            topics: vec![
                CreatableTopic {
                    name: "foo".into(),
                    ..Default::default()
                },
                CreatableTopic {
                    name: "bar".into(),
                    ..Default::default()
                },
            ]
            .into(),
            ..Default::default()
        }),
        ApiKey::DeleteTopics => RequestBody::DeleteTopics(DeleteTopicsRequest {
            topics: vec![
                DeleteTopicState {
                    name: None,
                    topic_id: id,
                    ..Default::default()
                },
                DeleteTopicState {
                    name: Some("foo".into()),
                    ..Default::default()
                },
            ]
            .into(),
            topic_names: vec!["foo".into(), "bar".into()],
            ..Default::default()
        }),
        ApiKey::CreatePartitions => RequestBody::CreatePartitions(CreatePartitionsRequest {
            topics: vec![CreatePartitionsTopic {
                name: "foo".into(),
                count: 3,
                ..Default::default()
            }]
            .into(),
            ..Default::default()
        }),
        ApiKey::ElectLeaders => RequestBody::ElectLeaders(ElectLeadersRequest {
            topic_partitions: Some(
                vec![TopicPartitions {
                    topic: "foo".into(),
                    partitions: vec![0, 1],
                    ..Default::default()
                }]
                .into(),
            ),
            ..Default::default()
        }),
        ApiKey::DescribeConfigs => RequestBody::DescribeConfigs(
            kraft_protocol::messages::describe_configs_request::DescribeConfigsRequest {
                resources: vec![
                    kraft_protocol::messages::describe_configs_request::DescribeConfigsResource {
                        resource_type: 2,
                        resource_name: "foo".into(),
                        ..Default::default()
                    },
                ]
                .into(),
                ..Default::default()
            },
        ),
        ApiKey::AlterConfigs => RequestBody::AlterConfigs(
            kraft_protocol::messages::alter_configs_request::AlterConfigsRequest {
                resources: vec![
                    kraft_protocol::messages::alter_configs_request::AlterConfigsResource {
                        resource_type: 2,
                        resource_name: "foo".into(),
                        ..Default::default()
                    },
                ]
                .into(),
                ..Default::default()
            },
        ),
        ApiKey::IncrementalAlterConfigs => {
            RequestBody::IncrementalAlterConfigs(IncrementalAlterConfigsRequest {
                resources: vec![AlterConfigsResource {
                    resource_type: 2,
                    resource_name: "foo".into(),
                    ..Default::default()
                }]
                .into(),
                ..Default::default()
            })
        }
        ApiKey::Vote => RequestBody::Vote(VoteRequest {
            topics: vec![vote_request::TopicData {
                topic_name: "__cluster_metadata".into(),
                partitions: vec![vote_request::PartitionData::default()].into(),
                ..Default::default()
            }]
            .into(),
            ..Default::default()
        }),
        ApiKey::BeginQuorumEpoch => RequestBody::BeginQuorumEpoch(BeginQuorumEpochRequest {
            topics: vec![begin_quorum_epoch_request::TopicData {
                topic_name: "__cluster_metadata".into(),
                partitions: vec![begin_quorum_epoch_request::PartitionData::default()].into(),
                ..Default::default()
            }]
            .into(),
            ..Default::default()
        }),
        ApiKey::EndQuorumEpoch => RequestBody::EndQuorumEpoch(EndQuorumEpochRequest {
            topics: vec![end_quorum_epoch_request::TopicData {
                topic_name: "__cluster_metadata".into(),
                partitions: vec![end_quorum_epoch_request::PartitionData::default()].into(),
                ..Default::default()
            }]
            .into(),
            ..Default::default()
        }),
        ApiKey::DescribeQuorum => RequestBody::DescribeQuorum(DescribeQuorumRequest {
            topics: vec![describe_quorum_request::TopicData {
                topic_name: "__cluster_metadata".into(),
                partitions: vec![describe_quorum_request::PartitionData::default()].into(),
                ..Default::default()
            }]
            .into(),
            ..Default::default()
        }),
        ApiKey::AlterPartition => RequestBody::AlterPartition(AlterPartitionRequest {
            topics: vec![alter_partition_request::TopicData {
                topic_id: id,
                partitions: vec![alter_partition_request::PartitionData::default()].into(),
                ..Default::default()
            }]
            .into(),
            ..Default::default()
        }),
        ApiKey::UpdateFeatures => RequestBody::UpdateFeatures(UpdateFeaturesRequest {
            feature_updates: vec![FeatureUpdateKey {
                feature: "foo".into(),
                max_version_level: 1,
                ..Default::default()
            }]
            .into(),
            ..Default::default()
        }),
        ApiKey::Envelope => RequestBody::Envelope(EnvelopeRequest {
            request_data: Bytes::from_static(b"\x00\x13\x00\x05"),
            ..Default::default()
        }),
        ApiKey::FetchSnapshot => RequestBody::FetchSnapshot(FetchSnapshotRequest {
            topics: vec![fetch_snapshot_request::TopicSnapshot {
                name: "__cluster_metadata".into(),
                partitions: vec![fetch_snapshot_request::PartitionSnapshot::default()].into(),
                ..Default::default()
            }]
            .into(),
            ..Default::default()
        }),
        ApiKey::DescribeCluster => RequestBody::DescribeCluster(DescribeClusterRequest {
            endpoint_type: 2,
            ..Default::default()
        }),
        ApiKey::BrokerRegistration => {
            RequestBody::BrokerRegistration(BrokerRegistrationRequest::default())
        }
        ApiKey::BrokerHeartbeat => RequestBody::BrokerHeartbeat(BrokerHeartbeatRequest::default()),
        ApiKey::UnregisterBroker => {
            RequestBody::UnregisterBroker(UnregisterBrokerRequest::default())
        }
        ApiKey::AllocateProducerIds => {
            RequestBody::AllocateProducerIds(AllocateProducerIdsRequest::default())
        }
        ApiKey::ControllerRegistration => {
            RequestBody::ControllerRegistration(ControllerRegistrationRequest::default())
        }
        ApiKey::AddRaftVoter => RequestBody::AddRaftVoter(AddRaftVoterRequest::default()),
        ApiKey::RemoveRaftVoter => RequestBody::RemoveRaftVoter(RemoveRaftVoterRequest::default()),
        ApiKey::UpdateRaftVoter => RequestBody::UpdateRaftVoter(UpdateRaftVoterRequest::default()),
        ApiKey::UnregisterController => {
            RequestBody::UnregisterController(UnregisterControllerRequest::default())
        }
        ApiKey::AlterPartitionReassignments => {
            RequestBody::AlterPartitionReassignments(reassign_request())
        }
        ApiKey::ListPartitionReassignments => RequestBody::ListPartitionReassignments(
            list_reassignments_request(Some(vec![("foo", vec![0, 1])])),
        ),
        ApiKey::AssignReplicasToDirs => {
            use kraft_protocol::messages::assign_replicas_to_dirs_request as dirs;
            RequestBody::AssignReplicasToDirs(dirs::AssignReplicasToDirsRequest {
                broker_id: 4,
                broker_epoch: 7,
                directories: vec![dirs::DirectoryData {
                    id,
                    topics: vec![dirs::TopicData {
                        topic_id: id,
                        partitions: vec![dirs::PartitionData::default(); 2].into(),
                        ..Default::default()
                    }]
                    .into(),
                    ..Default::default()
                }]
                .into(),
                ..Default::default()
            })
        }
        other => access_request(other),
    }
}

/// [`full_request`] for the access-control and SASL APIs.
fn access_request(api: ApiKey) -> RequestBody {
    use kraft_protocol::messages as m;
    use kraft_protocol::messages::{
        alter_client_quotas_request as quotas, alter_user_scram_credentials_request as scram,
        create_acls_request as create_acls, delete_acls_request as delete_acls,
        describe_user_scram_credentials_request as describe_scram,
    };
    let mut body = match api {
        ApiKey::SaslHandshake => RequestBody::SaslHandshake(Default::default()),
        ApiKey::SaslAuthenticate => RequestBody::SaslAuthenticate(Default::default()),
        ApiKey::DescribeAcls => RequestBody::DescribeAcls(Default::default()),
        ApiKey::CreateAcls => RequestBody::CreateAcls(Default::default()),
        ApiKey::DeleteAcls => RequestBody::DeleteAcls(Default::default()),
        ApiKey::CreateDelegationToken => RequestBody::CreateDelegationToken(Default::default()),
        ApiKey::RenewDelegationToken => RequestBody::RenewDelegationToken(Default::default()),
        ApiKey::ExpireDelegationToken => RequestBody::ExpireDelegationToken(Default::default()),
        ApiKey::DescribeDelegationToken => RequestBody::DescribeDelegationToken(
            m::describe_delegation_token_request::DescribeDelegationTokenRequest::default(),
        ),
        ApiKey::DescribeClientQuotas => RequestBody::DescribeClientQuotas(Default::default()),
        ApiKey::AlterClientQuotas => RequestBody::AlterClientQuotas(Default::default()),
        ApiKey::DescribeUserScramCredentials => {
            RequestBody::DescribeUserScramCredentials(Default::default())
        }
        ApiKey::AlterUserScramCredentials => {
            RequestBody::AlterUserScramCredentials(Default::default())
        }
        other => panic!("no request for {}", other.kafka_name()),
    };
    match &mut body {
        RequestBody::CreateAcls(r) => {
            r.creations = vec![create_acls::AclCreation::default(); 2].into();
        }
        RequestBody::DeleteAcls(r) => {
            r.filters = vec![delete_acls::DeleteAclsFilter::default(); 3].into();
        }
        RequestBody::AlterClientQuotas(r) => {
            r.entries = vec![quotas::EntryData {
                entity: vec![quotas::EntityData {
                    entity_type: "user".into(),
                    entity_name: None,
                    ..Default::default()
                }]
                .into(),
                ..Default::default()
            }]
            .into();
        }
        RequestBody::DescribeUserScramCredentials(r) => {
            r.users = Some(vec![describe_scram::UserName::default(); 2].into());
        }
        RequestBody::AlterUserScramCredentials(r) => {
            r.deletions = vec![scram::ScramCredentialDeletion {
                name: "bob".into(),
                ..Default::default()
            }]
            .into();
            r.upsertions = vec![scram::ScramCredentialUpsertion {
                name: "alice".into(),
                ..Default::default()
            }]
            .into();
        }
        _ => {}
    }
    body
}

/// Kafka's `AlterUserScramCredentialsRequest.getErrorResponse`: one result
/// per user, sorted; `CreateAclsRequest`: one result per creation;
/// `AlterClientQuotasRequest`: each entity echoed with the code's text.
#[test]
fn access_control_requests_answer_per_entry() {
    let msg = Some("Request AlterUserScramCredentials needs ALTER permission.");
    let Some(ResponseBody::AlterUserScramCredentials(r)) = error_response(
        &access_request(ApiKey::AlterUserScramCredentials),
        0,
        ErrorCode::ClusterAuthorizationFailed,
        msg,
    ) else {
        panic!()
    };
    let users: Vec<_> = r
        .results
        .iter()
        .map(|u| u.user.as_str().to_owned())
        .collect();
    assert_eq!(users, ["alice", "bob"]);
    assert!(r
        .results
        .iter()
        .all(|u| u.error_code == 31 && u.error_message.as_ref().map(|m| m.as_str()) == msg));
    let Some(ResponseBody::CreateAcls(r)) = error_response(
        &access_request(ApiKey::CreateAcls),
        3,
        ErrorCode::ClusterAuthorizationFailed,
        Some("Cluster authorization failed."),
    ) else {
        panic!()
    };
    assert_eq!(r.results.len(), 2);
    assert!(r
        .results
        .iter()
        .all(|c| c.error_code == 31 && c.error_message.is_none()));
    let Some(ResponseBody::AlterClientQuotas(r)) = error_response(
        &access_request(ApiKey::AlterClientQuotas),
        1,
        ErrorCode::ClusterAuthorizationFailed,
        Some("anything"),
    ) else {
        panic!()
    };
    let entry = r.entries.iter().next().unwrap();
    assert_eq!(
        entry.error_message.as_ref().map(|m| m.as_str()),
        Some("Cluster authorization failed.")
    );
    assert_eq!(
        entry.entity.iter().next().unwrap().entity_type.as_str(),
        "user"
    );
}

/// Kafka's `RequestResponseTest.testSerialization` serializes every error
/// response at every version; here every answer, for several failures, is
/// encoded at every version of its API (no field a version lacks may hold
/// a value the encoder refuses) and decodes back from exactly those bytes.
#[test]
fn every_answer_encodes_at_every_version_of_its_api() {
    let failures = [
        (ErrorCode::ClusterAuthorizationFailed, Some(DENIED)),
        (ErrorCode::UnsupportedVersion, None),
        (ErrorCode::UnknownServerError, Some("secret")),
        (ErrorCode::NotController, Some("")),
    ];
    for &api in ApiKey::ALL {
        let request = full_request(api);
        assert_eq!(request.api_key(), api);
        for version in versions(api) {
            for (code, message) in failures {
                let what = format!("{} v{version} {code}", api.kafka_name());
                let response = error_response(&request, version, code, message)
                    .unwrap_or_else(|| panic!("{what}: no answer"));
                assert_eq!(response.api_key(), api, "{what}");
                let mut bytes = Vec::new();
                if let Err(e) = response.encode(&mut bytes, version) {
                    panic!("{what}: {e}");
                }
                assert_eq!(bytes.len(), response.encoded_len(version), "{what}");
                let mut wire = Bytes::from(bytes);
                if let Err(e) = ResponseBody::decode(api, version, &mut wire) {
                    panic!("{what}: does not decode: {e}");
                }
                assert!(wire.is_empty(), "{what}: {} bytes left", wire.len());
            }
        }
    }
}
