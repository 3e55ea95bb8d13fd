//! KRaft RPCs as plain values, carrying exactly the information of the wire
//! messages the core needs (Kafka 4.4 field names in the docs).
//!
//! Topic/partition framing (`__cluster_metadata`, partition 0, the metadata
//! topic id) is the adapter's job: it answers malformed framing itself
//! (top-level `INVALID_REQUEST`, or `UNKNOWN_TOPIC_OR_PARTITION` for
//! DescribeQuorum/FetchSnapshot) and passes the single partition here.

use bytes::Bytes;

use super::error::ErrorCode;
use super::record::Batch;
use super::types::{
    Address, Endpoints, KRaftVersionRange, NodeId, OffsetAndEpoch, ReplicaKey, Uuid,
};

/// The leader endpoint attached to responses (`NodeEndpoints`): the leader's
/// address on the default (request) listener.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeEndpoint {
    /// Leader id.
    pub node_id: NodeId,
    /// Leader address.
    pub address: Address,
}

/// Vote (52), one partition.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VoteRequest {
    /// `ClusterId` (null skips the check).
    pub cluster_id: Option<String>,
    /// `VoterId`: id of the receiver, -1 when absent.
    pub voter_id: NodeId,
    /// `VoterDirectoryId`: receiver directory id (UUID0 when absent).
    pub voter_directory_id: Uuid,
    /// `ReplicaEpoch`.
    pub replica_epoch: i32,
    /// `ReplicaId` (the sender).
    pub replica_id: NodeId,
    /// `ReplicaDirectoryId` (the sender).
    pub replica_directory_id: Uuid,
    /// `LastOffsetEpoch`.
    pub last_offset_epoch: i32,
    /// `LastOffset` (the sender's log end offset).
    pub last_offset: i64,
    /// `PreVote` (KIP-996).
    pub pre_vote: bool,
}

/// Vote response.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VoteResponse {
    /// Top-level `ErrorCode`.
    pub error_code: ErrorCode,
    /// Partition `ErrorCode`.
    pub partition_error: ErrorCode,
    /// `LeaderId` (-1 unknown).
    pub leader_id: NodeId,
    /// `LeaderEpoch`.
    pub leader_epoch: i32,
    /// `VoteGranted`.
    pub vote_granted: bool,
    /// `NodeEndpoints`.
    pub leader_endpoint: Option<NodeEndpoint>,
}

/// BeginQuorumEpoch (53).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BeginQuorumEpochRequest {
    /// `ClusterId`.
    pub cluster_id: Option<String>,
    /// `VoterId` (receiver, -1 when absent).
    pub voter_id: NodeId,
    /// `VoterDirectoryId` (receiver).
    pub voter_directory_id: Uuid,
    /// `LeaderId`.
    pub leader_id: NodeId,
    /// `LeaderEpoch`.
    pub leader_epoch: i32,
    /// `LeaderEndpoints` (all of the leader's controller listeners).
    pub leader_endpoints: Endpoints,
}

/// Response shape shared by BeginQuorumEpoch and EndQuorumEpoch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QuorumEpochResponse {
    /// Top-level `ErrorCode`.
    pub error_code: ErrorCode,
    /// Partition `ErrorCode`.
    pub partition_error: ErrorCode,
    /// `LeaderId`.
    pub leader_id: NodeId,
    /// `LeaderEpoch`.
    pub leader_epoch: i32,
    /// `NodeEndpoints`.
    pub leader_endpoint: Option<NodeEndpoint>,
}

/// EndQuorumEpoch (54).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EndQuorumEpochRequest {
    /// `ClusterId`.
    pub cluster_id: Option<String>,
    /// `LeaderId` (the resigning leader).
    pub leader_id: NodeId,
    /// `LeaderEpoch`.
    pub leader_epoch: i32,
    /// `PreferredCandidates` (v1+; v0's `PreferredSuccessors` are their ids),
    /// best first.
    pub preferred_candidates: Vec<ReplicaKey>,
    /// `LeaderEndpoints`.
    pub leader_endpoints: Endpoints,
}

/// Fetch (1), KRaft subset.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FetchRequest {
    /// `ClusterId`.
    pub cluster_id: Option<String>,
    /// `ReplicaState.ReplicaId` (-1 for non-replicas).
    pub replica_id: NodeId,
    /// `ReplicaDirectoryId`.
    pub replica_directory_id: Uuid,
    /// `MaxWaitMs`.
    pub max_wait_ms: i32,
    /// `MaxBytes`.
    pub max_bytes: i32,
    /// `CurrentLeaderEpoch`.
    pub current_leader_epoch: i32,
    /// `FetchOffset`.
    pub fetch_offset: i64,
    /// `LastFetchedEpoch`.
    pub last_fetched_epoch: i32,
    /// `HighWatermark` (v18): the fetcher's HW, -1 unknown, `i64::MAX` when
    /// the version does not carry it.
    pub high_watermark: i64,
}

/// Fetch response, one partition.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FetchResponse {
    /// Top-level `ErrorCode`.
    pub error_code: ErrorCode,
    /// Partition `ErrorCode`.
    pub partition_error: ErrorCode,
    /// `HighWatermark` (-1 unknown).
    pub high_watermark: i64,
    /// `LogStartOffset`.
    pub log_start_offset: i64,
    /// `DivergingEpoch` when set (epoch, end offset).
    pub diverging_epoch: Option<OffsetAndEpoch>,
    /// `CurrentLeader.LeaderId`.
    pub leader_id: NodeId,
    /// `CurrentLeader.LeaderEpoch`.
    pub leader_epoch: i32,
    /// `SnapshotId` when set (end offset, epoch).
    pub snapshot_id: Option<OffsetAndEpoch>,
    /// `Records`.
    pub records: Vec<Batch>,
    /// `NodeEndpoints`.
    pub leader_endpoint: Option<NodeEndpoint>,
}

/// FetchSnapshot (59).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FetchSnapshotRequest {
    /// `ClusterId`.
    pub cluster_id: Option<String>,
    /// `ReplicaId`.
    pub replica_id: NodeId,
    /// `ReplicaDirectoryId`.
    pub replica_directory_id: Uuid,
    /// `MaxBytes`.
    pub max_bytes: i32,
    /// `CurrentLeaderEpoch`.
    pub current_leader_epoch: i32,
    /// `SnapshotId`.
    pub snapshot_id: OffsetAndEpoch,
    /// `Position`.
    pub position: i64,
}

/// FetchSnapshot response.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FetchSnapshotResponse {
    /// Top-level `ErrorCode`.
    pub error_code: ErrorCode,
    /// Partition `ErrorCode`.
    pub partition_error: ErrorCode,
    /// `SnapshotId` (-1/-1 when unset).
    pub snapshot_id: OffsetAndEpoch,
    /// `CurrentLeader.LeaderId`.
    pub leader_id: NodeId,
    /// `CurrentLeader.LeaderEpoch`.
    pub leader_epoch: i32,
    /// `Size`.
    pub size: i64,
    /// `Position`.
    pub position: i64,
    /// `UnalignedRecords`.
    pub unaligned_records: Bytes,
    /// `NodeEndpoints`.
    pub leader_endpoint: Option<NodeEndpoint>,
}

/// AddRaftVoter (80).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AddRaftVoterRequest {
    /// `ClusterId`.
    pub cluster_id: Option<String>,
    /// `TimeoutMs` (ignored by the 4.4 leader).
    pub timeout_ms: i32,
    /// `VoterId`.
    pub voter_id: NodeId,
    /// `VoterDirectoryId`.
    pub voter_directory_id: Uuid,
    /// `Listeners`.
    pub listeners: Endpoints,
    /// `AckWhenCommitted` (v1+, default true).
    pub ack_when_committed: bool,
    /// KIP-1141 (v2+): what the leader may derive; `None` for v0-v1, whose
    /// zero directory id or missing default listener is refused as in 4.4.
    pub derivation: Option<AddVoterDerivation>,
}

/// What an AddRaftVoter v2+ request lets the leader derive (KIP-1141), after
/// every 4.4 check up to `DUPLICATE_VOTER`: a zero `VoterDirectoryId` from
/// the one observer with that id, empty `Listeners` from the voter's
/// controller registration.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AddVoterDerivation {
    /// The endpoints of `VoterId`'s controller registration in the metadata
    /// image (name, host, port), looked up when the request was received;
    /// `None` when it is not registered or the listeners were given.
    pub registered_listeners: Option<Endpoints>,
}

/// Response shape shared by AddRaftVoter and RemoveRaftVoter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VoterChangeResponse {
    /// `ErrorCode`.
    pub error_code: ErrorCode,
    /// `ErrorMessage` (`None` = null).
    pub error_message: Option<String>,
}

impl VoterChangeResponse {
    /// A response with a message.
    pub fn new(error_code: ErrorCode, message: impl Into<String>) -> Self {
        VoterChangeResponse {
            error_code,
            error_message: Some(message.into()),
        }
    }

    /// A response with a null message.
    pub fn code(error_code: ErrorCode) -> Self {
        VoterChangeResponse {
            error_code,
            error_message: None,
        }
    }
}

/// RemoveRaftVoter (81).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RemoveRaftVoterRequest {
    /// `ClusterId`.
    pub cluster_id: Option<String>,
    /// `VoterId`.
    pub voter_id: NodeId,
    /// `VoterDirectoryId`.
    pub voter_directory_id: Uuid,
    /// KIP-1141 (v1+): a zero directory id means the directory id of the
    /// voter with `VoterId` in the latest voter set.
    pub derive_directory_id: bool,
}

/// UpdateRaftVoter (82).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UpdateRaftVoterRequest {
    /// `ClusterId`.
    pub cluster_id: Option<String>,
    /// `CurrentLeaderEpoch`.
    pub current_leader_epoch: i32,
    /// `VoterId`.
    pub voter_id: NodeId,
    /// `VoterDirectoryId`.
    pub voter_directory_id: Uuid,
    /// `Listeners`.
    pub listeners: Endpoints,
    /// `KRaftVersionFeature`.
    pub kraft_version_feature: KRaftVersionRange,
}

/// UpdateRaftVoter response.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UpdateRaftVoterResponse {
    /// `ErrorCode`.
    pub error_code: ErrorCode,
    /// `CurrentLeader.LeaderId`.
    pub leader_id: NodeId,
    /// `CurrentLeader.LeaderEpoch`.
    pub leader_epoch: i32,
    /// `CurrentLeader.Host`/`Port` when known.
    pub leader_address: Option<Address>,
}

/// One `ReplicaState` of DescribeQuorum.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReplicaDescription {
    /// `ReplicaId`.
    pub replica_id: NodeId,
    /// `ReplicaDirectoryId` (UUID0 when unknown).
    pub replica_directory_id: Uuid,
    /// `LogEndOffset` (-1 unknown).
    pub log_end_offset: i64,
    /// `LastFetchTimestamp` (-1 unknown).
    pub last_fetch_timestamp: i64,
    /// `LastCaughtUpTimestamp` (-1 unknown).
    pub last_caught_up_timestamp: i64,
}

/// DescribeQuorum (55) response for the metadata partition.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DescribeQuorumResponse {
    /// Partition `ErrorCode`.
    pub partition_error: ErrorCode,
    /// Partition `ErrorMessage` (Kafka's default text for errors).
    pub error_message: Option<String>,
    /// `LeaderId`.
    pub leader_id: NodeId,
    /// `LeaderEpoch`.
    pub leader_epoch: i32,
    /// `HighWatermark` (-1 unknown).
    pub high_watermark: i64,
    /// `CurrentVoters` (latest voter set, leader included).
    pub current_voters: Vec<ReplicaDescription>,
    /// `CommittedVoters` (DescribeQuorum v3 draft, docs/compatibility.md).
    pub committed_voters: Vec<ReplicaDescription>,
    /// `Observers`.
    pub observers: Vec<ReplicaDescription>,
    /// `Nodes`: every voter with its endpoints.
    pub nodes: Vec<(NodeId, Endpoints)>,
}

/// ApiVersions as used by the add-voter probe: the driver sends a default
/// ApiVersions request to the new voter and reports the `kraft.version`
/// range it advertises.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ApiVersionsResponse {
    /// `ErrorCode` (or the transport failure mapped to a code).
    pub error_code: ErrorCode,
    /// `SupportedFeatures["kraft.version"]`, if present.
    pub kraft_version: Option<KRaftVersionRange>,
}

/// An inbound or outbound KRaft request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Request {
    /// Vote.
    Vote(VoteRequest),
    /// BeginQuorumEpoch.
    BeginQuorumEpoch(BeginQuorumEpochRequest),
    /// EndQuorumEpoch.
    EndQuorumEpoch(EndQuorumEpochRequest),
    /// Fetch.
    Fetch(FetchRequest),
    /// FetchSnapshot.
    FetchSnapshot(FetchSnapshotRequest),
    /// AddRaftVoter.
    AddRaftVoter(AddRaftVoterRequest),
    /// RemoveRaftVoter.
    RemoveRaftVoter(RemoveRaftVoterRequest),
    /// UpdateRaftVoter.
    UpdateRaftVoter(UpdateRaftVoterRequest),
    /// DescribeQuorum.
    DescribeQuorum,
    /// ApiVersions (outbound only: the add-voter probe).
    ApiVersions,
}

impl Request {
    /// The API of the request.
    pub fn api(&self) -> Api {
        match self {
            Request::Vote(_) => Api::Vote,
            Request::BeginQuorumEpoch(_) => Api::BeginQuorumEpoch,
            Request::EndQuorumEpoch(_) => Api::EndQuorumEpoch,
            Request::Fetch(_) => Api::Fetch,
            Request::FetchSnapshot(_) => Api::FetchSnapshot,
            Request::AddRaftVoter(_) => Api::AddRaftVoter,
            Request::RemoveRaftVoter(_) => Api::RemoveRaftVoter,
            Request::UpdateRaftVoter(_) => Api::UpdateRaftVoter,
            Request::DescribeQuorum => Api::DescribeQuorum,
            Request::ApiVersions => Api::ApiVersions,
        }
    }
}

/// A response to a [`Request`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Response {
    /// Vote.
    Vote(VoteResponse),
    /// BeginQuorumEpoch.
    BeginQuorumEpoch(QuorumEpochResponse),
    /// EndQuorumEpoch.
    EndQuorumEpoch(QuorumEpochResponse),
    /// Fetch.
    Fetch(FetchResponse),
    /// FetchSnapshot.
    FetchSnapshot(FetchSnapshotResponse),
    /// AddRaftVoter.
    AddRaftVoter(VoterChangeResponse),
    /// RemoveRaftVoter.
    RemoveRaftVoter(VoterChangeResponse),
    /// UpdateRaftVoter.
    UpdateRaftVoter(UpdateRaftVoterResponse),
    /// DescribeQuorum.
    DescribeQuorum(DescribeQuorumResponse),
    /// ApiVersions.
    ApiVersions(ApiVersionsResponse),
}

impl Response {
    /// The API of the response.
    pub fn api(&self) -> Api {
        match self {
            Response::Vote(_) => Api::Vote,
            Response::BeginQuorumEpoch(_) => Api::BeginQuorumEpoch,
            Response::EndQuorumEpoch(_) => Api::EndQuorumEpoch,
            Response::Fetch(_) => Api::Fetch,
            Response::FetchSnapshot(_) => Api::FetchSnapshot,
            Response::AddRaftVoter(_) => Api::AddRaftVoter,
            Response::RemoveRaftVoter(_) => Api::RemoveRaftVoter,
            Response::UpdateRaftVoter(_) => Api::UpdateRaftVoter,
            Response::DescribeQuorum(_) => Api::DescribeQuorum,
            Response::ApiVersions(_) => Api::ApiVersions,
        }
    }

    /// A response of kind `api` carrying only a top-level error (used when a
    /// transport failure is reported for an outbound request).
    pub fn error(api: Api, error: ErrorCode) -> Response {
        let qe = QuorumEpochResponse {
            error_code: error,
            partition_error: ErrorCode::None,
            leader_id: -1,
            leader_epoch: -1,
            leader_endpoint: None,
        };
        match api {
            Api::Vote => Response::Vote(VoteResponse {
                error_code: error,
                partition_error: ErrorCode::None,
                leader_id: -1,
                leader_epoch: -1,
                vote_granted: false,
                leader_endpoint: None,
            }),
            Api::BeginQuorumEpoch => Response::BeginQuorumEpoch(qe),
            Api::EndQuorumEpoch => Response::EndQuorumEpoch(qe),
            Api::Fetch => Response::Fetch(FetchResponse {
                error_code: error,
                partition_error: ErrorCode::None,
                high_watermark: -1,
                log_start_offset: -1,
                diverging_epoch: None,
                leader_id: -1,
                leader_epoch: -1,
                snapshot_id: None,
                records: Vec::new(),
                leader_endpoint: None,
            }),
            Api::FetchSnapshot => Response::FetchSnapshot(FetchSnapshotResponse {
                error_code: error,
                partition_error: ErrorCode::None,
                snapshot_id: OffsetAndEpoch::new(-1, -1),
                leader_id: -1,
                leader_epoch: -1,
                size: -1,
                position: -1,
                unaligned_records: Bytes::new(),
                leader_endpoint: None,
            }),
            Api::AddRaftVoter => Response::AddRaftVoter(VoterChangeResponse::code(error)),
            Api::RemoveRaftVoter => Response::RemoveRaftVoter(VoterChangeResponse::code(error)),
            Api::UpdateRaftVoter => Response::UpdateRaftVoter(UpdateRaftVoterResponse {
                error_code: error,
                leader_id: -1,
                leader_epoch: -1,
                leader_address: None,
            }),
            Api::DescribeQuorum => Response::DescribeQuorum(DescribeQuorumResponse {
                partition_error: error,
                error_message: None,
                leader_id: 0,
                leader_epoch: 0,
                high_watermark: 0,
                current_voters: Vec::new(),
                committed_voters: Vec::new(),
                observers: Vec::new(),
                nodes: Vec::new(),
            }),
            Api::ApiVersions => Response::ApiVersions(ApiVersionsResponse {
                error_code: error,
                kraft_version: None,
            }),
        }
    }
}

/// The KRaft APIs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Api {
    /// Vote (52).
    Vote,
    /// BeginQuorumEpoch (53).
    BeginQuorumEpoch,
    /// EndQuorumEpoch (54).
    EndQuorumEpoch,
    /// Fetch (1).
    Fetch,
    /// FetchSnapshot (59).
    FetchSnapshot,
    /// AddRaftVoter (80).
    AddRaftVoter,
    /// RemoveRaftVoter (81).
    RemoveRaftVoter,
    /// UpdateRaftVoter (82).
    UpdateRaftVoter,
    /// DescribeQuorum (55).
    DescribeQuorum,
    /// ApiVersions (18).
    ApiVersions,
}
