//! The wire adapter: Kafka's generated KRaft messages to and from the core's
//! plain values ([`crate::core::message`]).
//!
//! The adapter owns the topic/partition framing: KRaft requests name exactly
//! one topic, `__cluster_metadata` (by id `AAAAAAAAAAAAAAAAAAAAAQ` in Fetch
//! v13+), with one partition 0. A request that does not is answered here, in
//! Kafka's order: a cluster id mismatch first (top-level
//! `INCONSISTENT_CLUSTER_ID`), then the framing (top-level `INVALID_REQUEST`,
//! or partition-level `UNKNOWN_TOPIC_OR_PARTITION` for DescribeQuorum and
//! FetchSnapshot).

use bytes::Bytes;
use kraft_protocol::messages::*;
use kraft_protocol::{ApiKey, Element, List, RequestBody, ResponseBody, StrBytes, Uuid};

use crate::codec::{decode_batches, encode_batches};
use crate::core::error::ErrorCode;
use crate::core::message::{self as m, NodeEndpoint};
use crate::core::types::{
    Address, Endpoint, Endpoints, KRaftVersionRange, OffsetAndEpoch, ReplicaKey,
};

pub use kraft_protocol::records::{METADATA_TOPIC, METADATA_TOPIC_ID};

/// The APIs the raft layer answers itself (Kafka's `ApiMessageType`s of
/// listener `CONTROLLER` that `KafkaRaftClient` handles), plus ApiVersions.
pub const RAFT_APIS: [ApiKey; 10] = [
    ApiKey::Fetch,
    ApiKey::ApiVersions,
    ApiKey::Vote,
    ApiKey::BeginQuorumEpoch,
    ApiKey::EndQuorumEpoch,
    ApiKey::DescribeQuorum,
    ApiKey::FetchSnapshot,
    ApiKey::AddRaftVoter,
    ApiKey::RemoveRaftVoter,
    ApiKey::UpdateRaftVoter,
];

/// The ApiVersions answer of a listener that serves the raft layer alone
/// (an embedding without a controller state machine, a test peer): every
/// API of [`RAFT_APIS`] at the versions this implementation speaks, and the
/// `kraft.version` feature at 0-1.
pub fn raft_api_versions_response() -> ResponseBody {
    ResponseBody::ApiVersions(api_versions_response::ApiVersionsResponse {
        api_keys: RAFT_APIS
            .iter()
            .map(|k| api_versions_response::ApiVersion {
                api_key: k.id(),
                min_version: k.versions().0,
                max_version: k.versions().1,
                ..Default::default()
            })
            .collect(),
        supported_features: vec![api_versions_response::SupportedFeatureKey {
            name: s(crate::core::KRAFT_VERSION_FEATURE),
            min_version: 0,
            max_version: 1,
            ..Default::default()
        }]
        .into(),
        ..Default::default()
    })
}

fn s(v: &str) -> StrBytes {
    StrBytes::from(v)
}

fn opt_s(v: &Option<String>) -> Option<StrBytes> {
    v.as_deref().map(StrBytes::from)
}

fn opt_string(v: &Option<StrBytes>) -> Option<String> {
    v.as_ref().map(|x| x.to_string())
}

fn code(e: ErrorCode) -> i16 {
    e.code()
}

fn err(c: i16) -> ErrorCode {
    ErrorCode::from_code(c)
}

fn cluster_id_mismatch(request: &Option<StrBytes>, local: &str) -> bool {
    request.as_ref().is_some_and(|c| c.as_str() != local)
}

fn endpoints_of<'a, L: Element + 'a>(
    listeners: &'a List<L>,
    fields: impl Fn(&L) -> (&StrBytes, &StrBytes, u16),
) -> Endpoints {
    Endpoints::new(listeners.iter().map(|l| {
        let (n, h, p) = fields(&l);
        Endpoint::new(n.as_str(), h.as_str(), p)
    }))
}

fn key_of(id: i32, dir: Uuid) -> ReplicaKey {
    if dir.is_nil() {
        ReplicaKey::without_directory(id)
    } else {
        ReplicaKey::of(id, dir)
    }
}

/// Framing check result: the single partition, or the adapter's own answer.
type Inbound = Result<m::Request, ResponseBody>;

/// Converts an inbound KRaft request to the core's form, or answers it here
/// when its cluster id or framing is wrong. `local_cluster_id` is this node's.
pub fn inbound_request(
    body: &RequestBody,
    version: i16,
    local_cluster_id: &str,
) -> Option<Inbound> {
    Some(match body {
        RequestBody::Vote(r) => {
            if cluster_id_mismatch(&r.cluster_id, local_cluster_id) {
                return Some(Err(ResponseBody::Vote(vote_response::VoteResponse {
                    error_code: code(ErrorCode::InconsistentClusterId),
                    ..Default::default()
                })));
            }
            match single(
                &r.topics,
                |t| (t.topic_name.as_str(), &t.partitions),
                |p| p.partition_index,
            ) {
                Some(p) => Ok(m::Request::Vote(m::VoteRequest {
                    cluster_id: opt_string(&r.cluster_id),
                    voter_id: r.voter_id,
                    voter_directory_id: p.voter_directory_id,
                    replica_epoch: p.replica_epoch,
                    replica_id: p.replica_id,
                    replica_directory_id: p.replica_directory_id,
                    last_offset_epoch: p.last_offset_epoch,
                    last_offset: p.last_offset,
                    pre_vote: p.pre_vote,
                })),
                None => Err(ResponseBody::Vote(vote_response::VoteResponse {
                    error_code: code(ErrorCode::InvalidRequest),
                    ..Default::default()
                })),
            }
        }
        RequestBody::BeginQuorumEpoch(r) => {
            if cluster_id_mismatch(&r.cluster_id, local_cluster_id) {
                return Some(Err(ResponseBody::BeginQuorumEpoch(
                    begin_quorum_epoch_response::BeginQuorumEpochResponse {
                        error_code: code(ErrorCode::InconsistentClusterId),
                        ..Default::default()
                    },
                )));
            }
            match single(
                &r.topics,
                |t| (t.topic_name.as_str(), &t.partitions),
                |p| p.partition_index,
            ) {
                Some(p) => Ok(m::Request::BeginQuorumEpoch(m::BeginQuorumEpochRequest {
                    cluster_id: opt_string(&r.cluster_id),
                    voter_id: r.voter_id,
                    voter_directory_id: p.voter_directory_id,
                    leader_id: p.leader_id,
                    leader_epoch: p.leader_epoch,
                    leader_endpoints: endpoints_of(&r.leader_endpoints, |e| {
                        (&e.name, &e.host, e.port)
                    }),
                })),
                None => Err(ResponseBody::BeginQuorumEpoch(
                    begin_quorum_epoch_response::BeginQuorumEpochResponse {
                        error_code: code(ErrorCode::InvalidRequest),
                        ..Default::default()
                    },
                )),
            }
        }
        RequestBody::EndQuorumEpoch(r) => {
            if cluster_id_mismatch(&r.cluster_id, local_cluster_id) {
                return Some(Err(ResponseBody::EndQuorumEpoch(
                    end_quorum_epoch_response::EndQuorumEpochResponse {
                        error_code: code(ErrorCode::InconsistentClusterId),
                        ..Default::default()
                    },
                )));
            }
            match single(
                &r.topics,
                |t| (t.topic_name.as_str(), &t.partitions),
                |p| p.partition_index,
            ) {
                Some(p) => {
                    let preferred_candidates = if version >= 1 {
                        p.preferred_candidates
                            .iter()
                            .map(|c| key_of(c.candidate_id, c.candidate_directory_id))
                            .collect()
                    } else {
                        p.preferred_successors
                            .iter()
                            .map(|&id| ReplicaKey::without_directory(id))
                            .collect()
                    };
                    Ok(m::Request::EndQuorumEpoch(m::EndQuorumEpochRequest {
                        cluster_id: opt_string(&r.cluster_id),
                        leader_id: p.leader_id,
                        leader_epoch: p.leader_epoch,
                        preferred_candidates,
                        leader_endpoints: endpoints_of(&r.leader_endpoints, |e| {
                            (&e.name, &e.host, e.port)
                        }),
                    }))
                }
                None => Err(ResponseBody::EndQuorumEpoch(
                    end_quorum_epoch_response::EndQuorumEpochResponse {
                        error_code: code(ErrorCode::InvalidRequest),
                        ..Default::default()
                    },
                )),
            }
        }
        RequestBody::Fetch(r) => {
            if cluster_id_mismatch(&r.cluster_id, local_cluster_id) {
                return Some(Err(ResponseBody::Fetch(fetch_response::FetchResponse {
                    error_code: code(ErrorCode::InconsistentClusterId),
                    ..Default::default()
                })));
            }
            // Kafka matches the metadata partition by topic id only, which
            // Fetch has from v13: older versions get INVALID_REQUEST.
            let topic_ok =
                |t: &fetch_request::FetchTopic| version >= 13 && t.topic_id == METADATA_TOPIC_ID;
            let partition = r
                .topics
                .single()
                .filter(|t| topic_ok(t))
                .and_then(|t| t.partitions.single())
                .filter(|p| p.partition == 0);
            match partition {
                Some(p) => Ok(m::Request::Fetch(m::FetchRequest {
                    cluster_id: opt_string(&r.cluster_id),
                    replica_id: if version >= 15 {
                        r.replica_state.replica_id
                    } else {
                        r.replica_id
                    },
                    replica_directory_id: p.replica_directory_id,
                    max_wait_ms: r.max_wait_ms,
                    max_bytes: r.max_bytes,
                    current_leader_epoch: p.current_leader_epoch,
                    fetch_offset: p.fetch_offset,
                    last_fetched_epoch: p.last_fetched_epoch,
                    high_watermark: p.high_watermark,
                })),
                None => Err(ResponseBody::Fetch(fetch_response::FetchResponse {
                    error_code: code(ErrorCode::InvalidRequest),
                    ..Default::default()
                })),
            }
        }
        RequestBody::FetchSnapshot(r) => {
            if cluster_id_mismatch(&r.cluster_id, local_cluster_id) {
                return Some(Err(ResponseBody::FetchSnapshot(
                    fetch_snapshot_response::FetchSnapshotResponse {
                        error_code: code(ErrorCode::InconsistentClusterId),
                        ..Default::default()
                    },
                )));
            }
            let Some((t, p)) = r
                .topics
                .single()
                .and_then(|t| Some((t, t.partitions.single()?)))
            else {
                return Some(Err(fetch_snapshot_error(ErrorCode::InvalidRequest)));
            };
            if t.name.as_str() != METADATA_TOPIC || p.partition != 0 {
                return Some(Err(ResponseBody::FetchSnapshot(
                    fetch_snapshot_response::FetchSnapshotResponse {
                        topics: vec![fetch_snapshot_response::TopicSnapshot {
                            name: t.name.clone(),
                            partitions: List::from([fetch_snapshot_response::PartitionSnapshot {
                                index: p.partition,
                                error_code: code(ErrorCode::UnknownTopicOrPartition),
                                ..Default::default()
                            }]),
                            ..Default::default()
                        }]
                        .into(),
                        ..Default::default()
                    },
                )));
            }
            Ok(m::Request::FetchSnapshot(m::FetchSnapshotRequest {
                cluster_id: opt_string(&r.cluster_id),
                replica_id: r.replica_id,
                replica_directory_id: p.replica_directory_id,
                max_bytes: r.max_bytes,
                current_leader_epoch: p.current_leader_epoch,
                snapshot_id: OffsetAndEpoch::new(p.snapshot_id.end_offset, p.snapshot_id.epoch),
                position: p.position,
            }))
        }
        RequestBody::AddRaftVoter(r) => Ok(m::Request::AddRaftVoter(m::AddRaftVoterRequest {
            cluster_id: opt_string(&r.cluster_id),
            timeout_ms: r.timeout_ms,
            voter_id: r.voter_id,
            voter_directory_id: r.voter_directory_id,
            listeners: endpoints_of(&r.listeners, |e| (&e.name, &e.host, e.port)),
            ack_when_committed: r.ack_when_committed,
            // KIP-1141: the version alone switches derivation on.
            derivation: (version >= 2).then(m::AddVoterDerivation::default),
        })),
        RequestBody::RemoveRaftVoter(r) => {
            Ok(m::Request::RemoveRaftVoter(m::RemoveRaftVoterRequest {
                cluster_id: opt_string(&r.cluster_id),
                voter_id: r.voter_id,
                voter_directory_id: r.voter_directory_id,
                derive_directory_id: version >= 1,
            }))
        }
        RequestBody::UpdateRaftVoter(r) => {
            Ok(m::Request::UpdateRaftVoter(m::UpdateRaftVoterRequest {
                cluster_id: opt_string(&r.cluster_id),
                current_leader_epoch: r.current_leader_epoch,
                voter_id: r.voter_id,
                voter_directory_id: r.voter_directory_id,
                listeners: endpoints_of(&r.listeners, |e| (&e.name, &e.host, e.port)),
                kraft_version_feature: KRaftVersionRange {
                    min: r.k_raft_version_feature.min_supported_version,
                    max: r.k_raft_version_feature.max_supported_version,
                },
            }))
        }
        RequestBody::DescribeQuorum(r) => {
            let ok = r.topics.single().is_some_and(|t| {
                t.topic_name.as_str() == METADATA_TOPIC
                    && t.partitions
                        .single()
                        .is_some_and(|p| p.partition_index == 0)
            });
            if ok {
                Ok(m::Request::DescribeQuorum)
            } else {
                Err(ResponseBody::DescribeQuorum(
                    describe_quorum_unknown_partitions(r),
                ))
            }
        }
        _ => return None,
    })
}

fn fetch_snapshot_error(e: ErrorCode) -> ResponseBody {
    ResponseBody::FetchSnapshot(fetch_snapshot_response::FetchSnapshotResponse {
        error_code: code(e),
        ..Default::default()
    })
}

/// DescribeQuorum for anything but `__cluster_metadata-0`: every requested
/// partition echoed with `UNKNOWN_TOPIC_OR_PARTITION` (Kafka's `KafkaRaftClient.handleDescribeQuorumRequest`).
fn describe_quorum_unknown_partitions(
    r: &describe_quorum_request::DescribeQuorumRequest,
) -> describe_quorum_response::DescribeQuorumResponse {
    describe_quorum_response::DescribeQuorumResponse {
        topics: r
            .topics
            .iter()
            .map(|t| describe_quorum_response::TopicData {
                topic_name: t.topic_name.clone(),
                partitions: t
                    .partitions
                    .iter()
                    .map(|p| describe_quorum_response::PartitionData {
                        partition_index: p.partition_index,
                        error_code: code(ErrorCode::UnknownTopicOrPartition),
                        error_message: Some(
                            s(ErrorCode::UnknownTopicOrPartition.default_message()),
                        ),
                        ..Default::default()
                    })
                    .collect(),
                ..Default::default()
            })
            .collect(),
        ..Default::default()
    }
}

/// Finds the single `__cluster_metadata` partition 0 of a request.
fn single<'a, T: Element, P: Element>(
    topics: &'a List<T>,
    parts: impl Fn(&'a T) -> (&'a str, &'a List<P>),
    index: impl Fn(&P) -> i32,
) -> Option<&'a P> {
    let (name, partitions) = parts(topics.single()?);
    partitions
        .single()
        .filter(|p| name == METADATA_TOPIC && index(p) == 0)
}

fn vote_endpoints(e: Option<&NodeEndpoint>) -> Vec<vote_response::NodeEndpoint> {
    e.iter()
        .map(|e| vote_response::NodeEndpoint {
            node_id: e.node_id,
            host: s(&e.address.host),
            port: e.address.port,
            ..Default::default()
        })
        .collect()
}

fn address_endpoints<T>(
    e: Option<&NodeEndpoint>,
    make: impl Fn(i32, StrBytes, u16) -> T,
) -> Vec<T> {
    e.iter()
        .map(|e| make(e.node_id, s(&e.address.host), e.address.port))
        .collect()
}

/// `ReplicaState`s for a DescribeQuorum response at `version`: the
/// directory id only from v2, which has it (as Kafka fills it).
fn replica_states(
    list: &[m::ReplicaDescription],
    version: i16,
) -> Vec<describe_quorum_response::ReplicaState> {
    list.iter()
        .map(|r| describe_quorum_response::ReplicaState {
            replica_id: r.replica_id,
            replica_directory_id: if version >= 2 {
                r.replica_directory_id
            } else {
                Uuid::nil()
            },
            log_end_offset: r.log_end_offset,
            last_fetch_timestamp: r.last_fetch_timestamp,
            last_caught_up_timestamp: r.last_caught_up_timestamp,
            ..Default::default()
        })
        .collect()
}

/// Converts the core's response to the wire message for `version`.
pub fn outbound_response(resp: &m::Response, version: i16) -> ResponseBody {
    let topic = || s(METADATA_TOPIC);
    match resp {
        m::Response::Vote(r) => ResponseBody::Vote(vote_response::VoteResponse {
            error_code: code(r.error_code),
            topics: vec![vote_response::TopicData {
                topic_name: topic(),
                partitions: List::from([vote_response::PartitionData {
                    partition_index: 0,
                    error_code: code(r.partition_error),
                    leader_id: r.leader_id,
                    leader_epoch: r.leader_epoch,
                    vote_granted: r.vote_granted,
                    ..Default::default()
                }]),
                ..Default::default()
            }]
            .into(),
            node_endpoints: vote_endpoints(r.leader_endpoint.as_ref().filter(|_| version >= 1))
                .into(),
            ..Default::default()
        }),
        m::Response::BeginQuorumEpoch(r) => {
            ResponseBody::BeginQuorumEpoch(begin_quorum_epoch_response::BeginQuorumEpochResponse {
                error_code: code(r.error_code),
                topics: vec![begin_quorum_epoch_response::TopicData {
                    topic_name: topic(),
                    partitions: List::from([begin_quorum_epoch_response::PartitionData {
                        partition_index: 0,
                        error_code: code(r.partition_error),
                        leader_id: r.leader_id,
                        leader_epoch: r.leader_epoch,
                        ..Default::default()
                    }]),
                    ..Default::default()
                }]
                .into(),
                node_endpoints: address_endpoints(
                    r.leader_endpoint.as_ref().filter(|_| version >= 1),
                    |node_id, host, port| begin_quorum_epoch_response::NodeEndpoint {
                        node_id,
                        host,
                        port,
                        ..Default::default()
                    },
                )
                .into(),
                ..Default::default()
            })
        }
        m::Response::EndQuorumEpoch(r) => {
            ResponseBody::EndQuorumEpoch(end_quorum_epoch_response::EndQuorumEpochResponse {
                error_code: code(r.error_code),
                topics: vec![end_quorum_epoch_response::TopicData {
                    topic_name: topic(),
                    partitions: List::from([end_quorum_epoch_response::PartitionData {
                        partition_index: 0,
                        error_code: code(r.partition_error),
                        leader_id: r.leader_id,
                        leader_epoch: r.leader_epoch,
                        ..Default::default()
                    }]),
                    ..Default::default()
                }]
                .into(),
                node_endpoints: address_endpoints(
                    r.leader_endpoint.as_ref().filter(|_| version >= 1),
                    |node_id, host, port| end_quorum_epoch_response::NodeEndpoint {
                        node_id,
                        host,
                        port,
                        ..Default::default()
                    },
                )
                .into(),
                ..Default::default()
            })
        }
        m::Response::Fetch(r) => ResponseBody::Fetch(fetch_response::FetchResponse {
            error_code: code(r.error_code),
            responses: if r.error_code == ErrorCode::None {
                vec![fetch_response::FetchableTopicResponse {
                    topic: topic(),
                    topic_id: METADATA_TOPIC_ID,
                    partitions: List::from([fetch_response::PartitionData {
                        partition_index: 0,
                        error_code: code(r.partition_error),
                        high_watermark: r.high_watermark,
                        log_start_offset: r.log_start_offset,
                        diverging_epoch: r
                            .diverging_epoch
                            .map(|d| fetch_response::EpochEndOffset {
                                epoch: d.epoch,
                                end_offset: d.offset,
                                ..Default::default()
                            })
                            .unwrap_or_default(),
                        current_leader: fetch_response::LeaderIdAndEpoch {
                            leader_id: r.leader_id,
                            leader_epoch: r.leader_epoch,
                            ..Default::default()
                        },
                        snapshot_id: r
                            .snapshot_id
                            .map(|d| fetch_response::SnapshotId {
                                end_offset: d.offset,
                                epoch: d.epoch,
                                ..Default::default()
                            })
                            .unwrap_or_default(),
                        records: Some(encode_batches(&r.records)),
                        ..Default::default()
                    }]),
                    ..Default::default()
                }]
                .into()
            } else {
                Vec::new().into()
            },
            node_endpoints: if version >= 17 {
                r.leader_endpoint
                    .iter()
                    .map(|e| fetch_response::NodeEndpoint {
                        node_id: e.node_id,
                        host: s(&e.address.host),
                        port: i32::from(e.address.port),
                        ..Default::default()
                    })
                    .collect()
            } else {
                Vec::new().into()
            },
            ..Default::default()
        }),
        m::Response::FetchSnapshot(r) => {
            ResponseBody::FetchSnapshot(fetch_snapshot_response::FetchSnapshotResponse {
                error_code: code(r.error_code),
                topics: if r.error_code == ErrorCode::None {
                    vec![fetch_snapshot_response::TopicSnapshot {
                        name: topic(),
                        partitions: List::from([fetch_snapshot_response::PartitionSnapshot {
                            index: 0,
                            error_code: code(r.partition_error),
                            snapshot_id: fetch_snapshot_response::SnapshotId {
                                end_offset: r.snapshot_id.offset,
                                epoch: r.snapshot_id.epoch,
                                ..Default::default()
                            },
                            current_leader: fetch_snapshot_response::LeaderIdAndEpoch {
                                leader_id: r.leader_id,
                                leader_epoch: r.leader_epoch,
                                ..Default::default()
                            },
                            size: r.size,
                            position: r.position,
                            unaligned_records: r.unaligned_records.clone(),
                            ..Default::default()
                        }]),
                        ..Default::default()
                    }]
                    .into()
                } else {
                    Vec::new().into()
                },
                node_endpoints: address_endpoints(
                    r.leader_endpoint.as_ref().filter(|_| version >= 1),
                    |node_id, host, port| fetch_snapshot_response::NodeEndpoint {
                        node_id,
                        host,
                        port,
                        ..Default::default()
                    },
                )
                .into(),
                ..Default::default()
            })
        }
        m::Response::AddRaftVoter(r) => {
            ResponseBody::AddRaftVoter(add_raft_voter_response::AddRaftVoterResponse {
                error_code: code(r.error_code),
                error_message: opt_s(&r.error_message),
                ..Default::default()
            })
        }
        m::Response::RemoveRaftVoter(r) => {
            ResponseBody::RemoveRaftVoter(remove_raft_voter_response::RemoveRaftVoterResponse {
                error_code: code(r.error_code),
                error_message: opt_s(&r.error_message),
                ..Default::default()
            })
        }
        m::Response::UpdateRaftVoter(r) => {
            ResponseBody::UpdateRaftVoter(update_raft_voter_response::UpdateRaftVoterResponse {
                error_code: code(r.error_code),
                current_leader: update_raft_voter_response::CurrentLeader {
                    leader_id: r.leader_id,
                    leader_epoch: r.leader_epoch,
                    host: r
                        .leader_address
                        .as_ref()
                        .map(|a| s(&a.host))
                        .unwrap_or_default(),
                    port: r
                        .leader_address
                        .as_ref()
                        .map(|a| i32::from(a.port))
                        .unwrap_or_default(),
                    ..Default::default()
                },
                ..Default::default()
            })
        }
        m::Response::DescribeQuorum(r) => {
            // Nodes exists from v2 (and is not ignorable): Kafka fills it
            // only there.
            let ok = r.partition_error == ErrorCode::None && version >= 2;
            ResponseBody::DescribeQuorum(describe_quorum_response::DescribeQuorumResponse {
                topics: vec![describe_quorum_response::TopicData {
                    topic_name: topic(),
                    partitions: List::from(vec![describe_quorum_response::PartitionData {
                        partition_index: 0,
                        error_code: code(r.partition_error),
                        error_message: Some(s(r.error_message.as_deref().unwrap_or(""))),
                        leader_id: r.leader_id,
                        leader_epoch: r.leader_epoch,
                        high_watermark: r.high_watermark,
                        current_voters: List::from(replica_states(&r.current_voters, version)),
                        committed_voters: List::from(replica_states(&r.committed_voters, version)),
                        observers: List::from(replica_states(&r.observers, version)),
                        ..Default::default()
                    }]),
                    ..Default::default()
                }]
                .into(),
                nodes: if ok {
                    r.nodes
                        .iter()
                        .map(|(id, eps)| describe_quorum_response::Node {
                            node_id: *id,
                            listeners: eps
                                .iter()
                                .map(|e| describe_quorum_response::Listener {
                                    name: s(&e.name),
                                    host: s(&e.host),
                                    port: e.port,
                                    ..Default::default()
                                })
                                .collect(),
                            ..Default::default()
                        })
                        .collect()
                } else {
                    Vec::new().into()
                },
                ..Default::default()
            })
        }
        m::Response::ApiVersions(r) => {
            ResponseBody::ApiVersions(api_versions_response::ApiVersionsResponse {
                error_code: code(r.error_code),
                ..Default::default()
            })
        }
    }
}

fn wire_endpoints<T>(eps: &Endpoints, make: impl Fn(StrBytes, StrBytes, u16) -> T) -> Vec<T> {
    eps.iter()
        .map(|e| make(s(&e.name), s(&e.host), e.port))
        .collect()
}

/// Converts an outbound core request to the wire message for `version`.
pub fn outbound_request(req: &m::Request, version: i16) -> RequestBody {
    let topic = || s(METADATA_TOPIC);
    match req {
        m::Request::Vote(r) => RequestBody::Vote(vote_request::VoteRequest {
            cluster_id: opt_s(&r.cluster_id),
            voter_id: r.voter_id,
            topics: vec![vote_request::TopicData {
                topic_name: topic(),
                partitions: List::from([vote_request::PartitionData {
                    partition_index: 0,
                    replica_epoch: r.replica_epoch,
                    replica_id: r.replica_id,
                    replica_directory_id: r.replica_directory_id,
                    voter_directory_id: r.voter_directory_id,
                    last_offset_epoch: r.last_offset_epoch,
                    last_offset: r.last_offset,
                    pre_vote: r.pre_vote,
                    ..Default::default()
                }]),
                ..Default::default()
            }]
            .into(),
            ..Default::default()
        }),
        m::Request::BeginQuorumEpoch(r) => {
            RequestBody::BeginQuorumEpoch(begin_quorum_epoch_request::BeginQuorumEpochRequest {
                cluster_id: opt_s(&r.cluster_id),
                voter_id: r.voter_id,
                topics: vec![begin_quorum_epoch_request::TopicData {
                    topic_name: topic(),
                    partitions: List::from([begin_quorum_epoch_request::PartitionData {
                        partition_index: 0,
                        voter_directory_id: r.voter_directory_id,
                        leader_id: r.leader_id,
                        leader_epoch: r.leader_epoch,
                        ..Default::default()
                    }]),
                    ..Default::default()
                }]
                .into(),
                leader_endpoints: wire_endpoints(&r.leader_endpoints, |name, host, port| {
                    begin_quorum_epoch_request::LeaderEndpoint {
                        name,
                        host,
                        port,
                        ..Default::default()
                    }
                })
                .into(),
                ..Default::default()
            })
        }
        m::Request::EndQuorumEpoch(r) => {
            RequestBody::EndQuorumEpoch(end_quorum_epoch_request::EndQuorumEpochRequest {
                cluster_id: opt_s(&r.cluster_id),
                topics: vec![end_quorum_epoch_request::TopicData {
                    topic_name: topic(),
                    partitions: List::from([end_quorum_epoch_request::PartitionData {
                        partition_index: 0,
                        leader_id: r.leader_id,
                        leader_epoch: r.leader_epoch,
                        // Kafka fills both; the version picks which reaches the wire.
                        preferred_successors: if version == 0 {
                            r.preferred_candidates.iter().map(|k| k.id).collect()
                        } else {
                            Vec::new()
                        },
                        preferred_candidates: r
                            .preferred_candidates
                            .iter()
                            .map(|k| end_quorum_epoch_request::ReplicaInfo {
                                candidate_id: k.id,
                                candidate_directory_id: k.directory_id.unwrap_or_default(),
                                ..Default::default()
                            })
                            .collect(),
                        ..Default::default()
                    }]),
                    ..Default::default()
                }]
                .into(),
                leader_endpoints: wire_endpoints(&r.leader_endpoints, |name, host, port| {
                    end_quorum_epoch_request::LeaderEndpoint {
                        name,
                        host,
                        port,
                        ..Default::default()
                    }
                })
                .into(),
                ..Default::default()
            })
        }
        m::Request::Fetch(r) => RequestBody::Fetch(fetch_request::FetchRequest {
            cluster_id: opt_s(&r.cluster_id),
            replica_id: if version < 15 { r.replica_id } else { -1 },
            replica_state: fetch_request::ReplicaState {
                replica_id: if version >= 15 { r.replica_id } else { -1 },
                replica_epoch: -1,
                ..Default::default()
            },
            max_wait_ms: r.max_wait_ms,
            min_bytes: 0,
            max_bytes: r.max_bytes,
            topics: vec![fetch_request::FetchTopic {
                topic: if version < 13 {
                    topic()
                } else {
                    StrBytes::new()
                },
                topic_id: if version >= 13 {
                    METADATA_TOPIC_ID
                } else {
                    Uuid::nil()
                },
                partitions: List::from([fetch_request::FetchPartition {
                    partition: 0,
                    current_leader_epoch: r.current_leader_epoch,
                    fetch_offset: r.fetch_offset,
                    last_fetched_epoch: r.last_fetched_epoch,
                    log_start_offset: -1,
                    partition_max_bytes: 0,
                    replica_directory_id: if version >= 17 {
                        r.replica_directory_id
                    } else {
                        Uuid::nil()
                    },
                    high_watermark: if version >= 18 {
                        r.high_watermark
                    } else {
                        i64::MAX
                    },
                    ..Default::default()
                }]),
                ..Default::default()
            }]
            .into(),
            ..Default::default()
        }),
        m::Request::FetchSnapshot(r) => {
            RequestBody::FetchSnapshot(fetch_snapshot_request::FetchSnapshotRequest {
                cluster_id: opt_s(&r.cluster_id),
                replica_id: r.replica_id,
                max_bytes: r.max_bytes,
                topics: vec![fetch_snapshot_request::TopicSnapshot {
                    name: topic(),
                    partitions: List::from([fetch_snapshot_request::PartitionSnapshot {
                        partition: 0,
                        current_leader_epoch: r.current_leader_epoch,
                        snapshot_id: fetch_snapshot_request::SnapshotId {
                            end_offset: r.snapshot_id.offset,
                            epoch: r.snapshot_id.epoch,
                            ..Default::default()
                        },
                        position: r.position,
                        replica_directory_id: if version >= 1 {
                            r.replica_directory_id
                        } else {
                            Uuid::nil()
                        },
                        ..Default::default()
                    }]),
                    ..Default::default()
                }]
                .into(),
                ..Default::default()
            })
        }
        m::Request::AddRaftVoter(r) => {
            RequestBody::AddRaftVoter(add_raft_voter_request::AddRaftVoterRequest {
                cluster_id: opt_s(&r.cluster_id),
                timeout_ms: r.timeout_ms,
                voter_id: r.voter_id,
                voter_directory_id: r.voter_directory_id,
                listeners: wire_endpoints(&r.listeners, |name, host, port| {
                    add_raft_voter_request::Listener {
                        name,
                        host,
                        port,
                        ..Default::default()
                    }
                })
                .into(),
                ack_when_committed: r.ack_when_committed,
                ..Default::default()
            })
        }
        m::Request::RemoveRaftVoter(r) => {
            RequestBody::RemoveRaftVoter(remove_raft_voter_request::RemoveRaftVoterRequest {
                cluster_id: opt_s(&r.cluster_id),
                voter_id: r.voter_id,
                voter_directory_id: r.voter_directory_id,
                ..Default::default()
            })
        }
        m::Request::UpdateRaftVoter(r) => {
            RequestBody::UpdateRaftVoter(update_raft_voter_request::UpdateRaftVoterRequest {
                cluster_id: opt_s(&r.cluster_id),
                current_leader_epoch: r.current_leader_epoch,
                voter_id: r.voter_id,
                voter_directory_id: r.voter_directory_id,
                listeners: wire_endpoints(&r.listeners, |name, host, port| {
                    update_raft_voter_request::Listener {
                        name,
                        host,
                        port,
                        ..Default::default()
                    }
                })
                .into(),
                k_raft_version_feature: update_raft_voter_request::KRaftVersionFeature {
                    min_supported_version: r.kraft_version_feature.min,
                    max_supported_version: r.kraft_version_feature.max,
                    ..Default::default()
                },
                ..Default::default()
            })
        }
        m::Request::DescribeQuorum => {
            RequestBody::DescribeQuorum(describe_quorum_request::DescribeQuorumRequest {
                topics: vec![describe_quorum_request::TopicData {
                    topic_name: topic(),
                    partitions: List::from([describe_quorum_request::PartitionData {
                        partition_index: 0,
                        ..Default::default()
                    }]),
                    ..Default::default()
                }]
                .into(),
                ..Default::default()
            })
        }
        m::Request::ApiVersions => {
            RequestBody::ApiVersions(api_versions_request::ApiVersionsRequest {
                client_software_name: s("kraft-rs"),
                client_software_version: s(env!("CARGO_PKG_VERSION")),
                ..Default::default()
            })
        }
    }
}

fn endpoint_from(node_id: i32, host: &StrBytes, port: u16) -> NodeEndpoint {
    NodeEndpoint {
        node_id,
        address: Address::new(host.as_str(), port),
    }
}

/// Why an inbound response could not be used.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ResponseError {
    /// The records of a Fetch response did not decode.
    #[error("bad records in fetch response: {0}")]
    Records(#[from] kraft_protocol::DecodeError),
    /// The response does not answer a KRaft request.
    #[error("unexpected response type")]
    Unexpected,
}

/// The first partition of the first topic of a response, moved out of it.
fn first_partition<T: Element, P: Element>(
    topics: List<T>,
    partitions: impl FnOnce(T) -> List<P>,
) -> Option<P> {
    topics
        .into_iter()
        .next()
        .and_then(|t| partitions(t).into_iter().next())
}

/// The shared shape of BeginQuorumEpoch and EndQuorumEpoch responses (two
/// generated types with the same fields).
macro_rules! quorum_epoch_response {
    ($r:expr) => {{
        let r = $r;
        let p = first_partition(r.topics, |t| t.partitions).unwrap_or_default();
        m::QuorumEpochResponse {
            error_code: err(r.error_code),
            partition_error: err(p.error_code),
            leader_id: p.leader_id,
            leader_epoch: p.leader_epoch,
            leader_endpoint: r
                .node_endpoints
                .iter()
                .find(|e| e.node_id == p.leader_id)
                .map(|e| endpoint_from(e.node_id, &e.host, e.port)),
        }
    }};
}

/// Converts an inbound wire response to the core's form. A response whose
/// partition is missing carries its top-level error with defaults.
pub fn inbound_response(body: ResponseBody) -> Result<m::Response, ResponseError> {
    Ok(match body {
        ResponseBody::Vote(r) => {
            let p = first_partition(r.topics, |t| t.partitions).unwrap_or_default();
            m::Response::Vote(m::VoteResponse {
                error_code: err(r.error_code),
                partition_error: err(p.error_code),
                leader_id: p.leader_id,
                leader_epoch: p.leader_epoch,
                vote_granted: p.vote_granted,
                leader_endpoint: r
                    .node_endpoints
                    .iter()
                    .find(|e| e.node_id == p.leader_id)
                    .map(|e| endpoint_from(e.node_id, &e.host, e.port)),
            })
        }
        ResponseBody::BeginQuorumEpoch(r) => {
            m::Response::BeginQuorumEpoch(quorum_epoch_response!(r))
        }
        ResponseBody::EndQuorumEpoch(r) => m::Response::EndQuorumEpoch(quorum_epoch_response!(r)),
        ResponseBody::Fetch(r) => {
            let p = first_partition(r.responses, |t| t.partitions);
            let Some(p) = p else {
                return Ok(m::Response::error(m::Api::Fetch, err(r.error_code)));
            };
            let records = match p.records.clone() {
                Some(b) if !b.is_empty() => decode_batches(b)?,
                _ => Vec::new(),
            };
            let leader_endpoint = r
                .node_endpoints
                .iter()
                .find(|e| e.node_id == p.current_leader.leader_id)
                .and_then(|e| {
                    u16::try_from(e.port)
                        .ok()
                        .map(|port| endpoint_from(e.node_id, &e.host, port))
                });
            m::Response::Fetch(m::FetchResponse {
                error_code: err(r.error_code),
                partition_error: err(p.error_code),
                high_watermark: p.high_watermark,
                log_start_offset: p.log_start_offset,
                diverging_epoch: (p.diverging_epoch.epoch >= 0
                    || p.diverging_epoch.end_offset >= 0)
                    .then(|| {
                        OffsetAndEpoch::new(p.diverging_epoch.end_offset, p.diverging_epoch.epoch)
                    }),
                leader_id: p.current_leader.leader_id,
                leader_epoch: p.current_leader.leader_epoch,
                snapshot_id: (p.snapshot_id.epoch >= 0 || p.snapshot_id.end_offset >= 0)
                    .then(|| OffsetAndEpoch::new(p.snapshot_id.end_offset, p.snapshot_id.epoch)),
                records,
                leader_endpoint,
            })
        }
        ResponseBody::FetchSnapshot(r) => {
            let p = first_partition(r.topics, |t| t.partitions);
            let Some(p) = p else {
                return Ok(m::Response::error(m::Api::FetchSnapshot, err(r.error_code)));
            };
            m::Response::FetchSnapshot(m::FetchSnapshotResponse {
                error_code: err(r.error_code),
                partition_error: err(p.error_code),
                snapshot_id: OffsetAndEpoch::new(p.snapshot_id.end_offset, p.snapshot_id.epoch),
                leader_id: p.current_leader.leader_id,
                leader_epoch: p.current_leader.leader_epoch,
                size: p.size,
                position: p.position,
                unaligned_records: p.unaligned_records.clone(),
                leader_endpoint: r
                    .node_endpoints
                    .iter()
                    .find(|e| e.node_id == p.current_leader.leader_id)
                    .map(|e| endpoint_from(e.node_id, &e.host, e.port)),
            })
        }
        ResponseBody::AddRaftVoter(r) => m::Response::AddRaftVoter(m::VoterChangeResponse {
            error_code: err(r.error_code),
            error_message: opt_string(&r.error_message),
        }),
        ResponseBody::RemoveRaftVoter(r) => m::Response::RemoveRaftVoter(m::VoterChangeResponse {
            error_code: err(r.error_code),
            error_message: opt_string(&r.error_message),
        }),
        ResponseBody::UpdateRaftVoter(r) => {
            m::Response::UpdateRaftVoter(m::UpdateRaftVoterResponse {
                error_code: err(r.error_code),
                leader_id: r.current_leader.leader_id,
                leader_epoch: r.current_leader.leader_epoch,
                leader_address: (!r.current_leader.host.is_empty())
                    .then(|| {
                        u16::try_from(r.current_leader.port)
                            .ok()
                            .map(|p| Address::new(r.current_leader.host.as_str(), p))
                    })
                    .flatten(),
            })
        }
        ResponseBody::ApiVersions(r) => m::Response::ApiVersions(m::ApiVersionsResponse {
            error_code: err(r.error_code),
            kraft_version: r
                .supported_features
                .iter()
                .find(|f| f.name.as_str() == "kraft.version")
                .map(|f| KRaftVersionRange {
                    min: f.min_version,
                    max: f.max_version,
                }),
        }),
        _ => return Err(ResponseError::Unexpected),
    })
}

/// The request bytes' records are only carried by Fetch responses; this
/// returns the raw records of a response for callers that store them as-is.
pub fn fetch_records(body: &ResponseBody) -> Option<Bytes> {
    match body {
        ResponseBody::Fetch(r) => r.responses.first()?.partitions.first()?.records.clone(),
        _ => None,
    }
}

#[cfg(test)]
mod describe_quorum_tests {
    use bytes::Bytes;
    use kraft_protocol::messages::describe_quorum_response::DescribeQuorumResponse;
    use kraft_protocol::{ApiKey, Decodable, ResponseBody, Uuid};

    use super::outbound_response;
    use crate::core::error::ErrorCode;
    use crate::core::message as m;
    use crate::core::types::{Endpoint, Endpoints};

    fn replica(id: i32) -> m::ReplicaDescription {
        m::ReplicaDescription {
            replica_id: id,
            replica_directory_id: Uuid::from_u64_pair(7, id as u64),
            log_end_offset: 42,
            last_fetch_timestamp: 1_700_000_000_000,
            last_caught_up_timestamp: 1_700_000_000_001,
        }
    }

    fn leader_answer() -> m::Response {
        m::Response::DescribeQuorum(m::DescribeQuorumResponse {
            partition_error: ErrorCode::None,
            error_message: None,
            leader_id: 1,
            leader_epoch: 3,
            high_watermark: 42,
            current_voters: vec![replica(1), replica(2)],
            committed_voters: vec![replica(1)],
            observers: vec![replica(9)],
            nodes: vec![
                (
                    1,
                    Endpoints::new([Endpoint::new("CONTROLLER", "127.0.0.1", 9093)]),
                ),
                (
                    2,
                    Endpoints::new([Endpoint::new("CONTROLLER", "127.0.0.1", 9094)]),
                ),
            ],
        })
    }

    fn encode_decode(resp: &m::Response, version: i16) -> DescribeQuorumResponse {
        let body = outbound_response(resp, version);
        let mut out = Vec::new();
        body.encode(&mut out, version)
            .unwrap_or_else(|e| panic!("DescribeQuorum v{version} does not encode: {e}"));
        let mut buf = Bytes::from(out);
        DescribeQuorumResponse::decode(&mut buf, version)
            .unwrap_or_else(|e| panic!("DescribeQuorum v{version} does not decode: {e}"))
    }

    /// Every version the API has encodes, with the fields of that version
    /// only (Kafka sets ReplicaDirectoryId and Nodes from v2).
    #[test]
    fn the_leader_answer_encodes_at_every_version() {
        let (lo, hi) = ApiKey::DescribeQuorum.versions();
        for version in lo..=hi {
            let r = encode_decode(&leader_answer(), version);
            let p = r.topics.first().expect("one topic");
            let p = p.partitions.first().expect("one partition").into_owned();
            assert_eq!((p.leader_id, p.leader_epoch, p.high_watermark), (1, 3, 42));
            let voters: Vec<_> = p.current_voters.iter().map(|v| v.into_owned()).collect();
            assert_eq!(voters.len(), 2, "v{version}");
            assert_eq!(p.observers.len(), 1, "v{version}");
            for v in &voters {
                assert_eq!(v.log_end_offset, 42);
                let dir = if version >= 2 {
                    Uuid::from_u64_pair(7, v.replica_id as u64)
                } else {
                    Uuid::nil()
                };
                assert_eq!(v.replica_directory_id, dir, "v{version}");
                let ts = if version >= 1 { 1_700_000_000_000 } else { -1 };
                assert_eq!(v.last_fetch_timestamp, ts, "v{version}");
            }
            assert_eq!(
                r.nodes.len(),
                if version >= 2 { 2 } else { 0 },
                "v{version}"
            );
            assert_eq!(
                p.committed_voters.len(),
                if version >= 3 { 1 } else { 0 },
                "v{version}"
            );
        }
    }

    /// A follower's answer (no voters, an error) encodes at every version too.
    #[test]
    fn the_not_leader_answer_encodes_at_every_version() {
        let resp = m::Response::DescribeQuorum(m::DescribeQuorumResponse {
            partition_error: ErrorCode::NotLeaderOrFollower,
            error_message: Some(ErrorCode::NotLeaderOrFollower.default_message().into()),
            leader_id: 1,
            leader_epoch: 3,
            high_watermark: -1,
            current_voters: Vec::new(),
            committed_voters: Vec::new(),
            observers: Vec::new(),
            nodes: Vec::new(),
        });
        let (lo, hi) = ApiKey::DescribeQuorum.versions();
        for version in lo..=hi {
            let r = encode_decode(&resp, version);
            let p = r.topics.first().expect("one topic");
            let p = p.partitions.first().expect("one partition").into_owned();
            assert_eq!(p.error_code, ErrorCode::NotLeaderOrFollower.code());
        }
    }

    /// The adapter's own answer for a wrong partition encodes at every version.
    #[test]
    fn the_unknown_partition_answer_encodes_at_every_version() {
        use kraft_protocol::messages::describe_quorum_request as q;
        let request = q::DescribeQuorumRequest {
            topics: vec![q::TopicData {
                topic_name: "other".into(),
                partitions: vec![q::PartitionData {
                    partition_index: 3,
                    ..Default::default()
                }]
                .into(),
                ..Default::default()
            }]
            .into(),
            ..Default::default()
        };
        let (lo, hi) = ApiKey::DescribeQuorum.versions();
        for version in lo..=hi {
            let body =
                ResponseBody::DescribeQuorum(super::describe_quorum_unknown_partitions(&request));
            let mut out = Vec::new();
            body.encode(&mut out, version)
                .unwrap_or_else(|e| panic!("v{version} does not encode: {e}"));
        }
    }
}
