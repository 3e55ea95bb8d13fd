//! The raft layer as the controller sees it: the [`RaftQuorum`] port (the
//! part of Kafka's `RaftClient` that `QuorumController` uses: leadership,
//! appends answered after commit, `upgradeKRaftVersion`, the raft RPCs) and
//! the [`QuorumFacts`] it reports, plus [`ApiError`], the error a handler
//! answers with (Kafka's `ApiError`).

use std::fmt;
use std::future::Future;
use std::pin::Pin;

use async_trait::async_trait;
use kraft_protocol::{ErrorCode, RequestBody, ResponseBody};

use crate::image::MetadataRecord;
use crate::server::{ApiRange, CloseConnection, RequestContext};

/// An error code with the message Kafka would put next to it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiError {
    /// The error.
    pub code: ErrorCode,
    /// The message (`None` = no message / null).
    pub message: Option<String>,
}

impl ApiError {
    /// An error with a specific message.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        ApiError {
            code,
            message: Some(message.into()),
        }
    }

    /// An error without a message (Kafka answers null; clients show the
    /// code's default text).
    pub fn bare(code: ErrorCode) -> Self {
        ApiError {
            code,
            message: None,
        }
    }

    /// The message, or the error's default text.
    pub fn message_or_default(&self) -> &str {
        self.message
            .as_deref()
            .unwrap_or(self.code.default_message())
    }
}

impl fmt::Display for ApiError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code.name(), self.message_or_default())
    }
}

impl std::error::Error for ApiError {}

/// A replica: node id plus the directory id of its metadata log directory
/// (`None` when unknown, i.e. UUID0 on the wire); the raft layer's key.
pub use kraft_raft::ReplicaKey;

/// One endpoint of a voter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VoterEndpoint {
    /// Listener name.
    pub name: String,
    /// Host.
    pub host: String,
    /// Port.
    pub port: u16,
}

/// A member of the (latest) voter set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QuorumVoter {
    /// Its replica key.
    pub key: ReplicaKey,
    /// Its endpoints.
    pub endpoints: Vec<VoterEndpoint>,
}

/// What the controller needs to know about the raft quorum right now.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct QuorumFacts {
    /// The current raft leader, if known.
    pub leader_id: Option<i32>,
    /// The current raft epoch.
    pub epoch: i32,
    /// Whether this node is the active controller: the raft leader that has
    /// replayed the whole log and accepts writes.
    pub is_active_controller: bool,
    /// The latest (possibly uncommitted) voter set.
    pub voters: Vec<QuorumVoter>,
    /// The finalized kraft.version.
    pub kraft_version: i16,
}

/// Why an append did not commit.
#[derive(Debug, Clone, thiserror::Error)]
pub enum AppendError {
    /// This node is not (or no longer) the active controller of that epoch.
    #[error("not the active controller")]
    NotController {
        /// The leader, if known.
        leader_id: Option<i32>,
    },
    /// The operation timed out.
    #[error("timed out")]
    Timeout,
    /// The batch would not start at the offset it was computed for.
    #[error("the log ends at offset {end_offset}")]
    OffsetMismatch {
        /// Where the next batch starts.
        end_offset: i64,
    },
    /// The log refused the batch as larger than its limit (Kafka's
    /// `RecordBatchTooLargeException`); nothing was appended.
    #[error("The total record(s) size of {size} exceeds the maximum allowed batch size of {max}")]
    BatchTooLarge {
        /// The batch's size in bytes.
        size: usize,
        /// The log's limit.
        max: usize,
    },
    /// The raft layer failed the append for another reason (e.g. its
    /// storage failed: the node is stopping).
    #[error("the metadata log refused the append: {0}")]
    Log(#[source] std::sync::Arc<kraft_raft::DriverError>),
    /// Anything else.
    #[error("{0}")]
    Failed(String),
}

/// Records in the leader's log whose commit is awaited.
pub struct PendingCommit {
    /// Offset of the first record.
    pub base_offset: i64,
    /// Offset of the last record.
    pub last_offset: i64,
    /// Resolves once the records are committed **and applied to the shared
    /// image**, with the last offset.
    pub applied: Pin<Box<dyn Future<Output = Result<i64, AppendError>> + Send>>,
}

impl fmt::Debug for PendingCommit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PendingCommit")
            .field("base_offset", &self.base_offset)
            .field("last_offset", &self.last_offset)
            .finish_non_exhaustive()
    }
}

/// The raft layer as seen by the controller. The tokio raft driver
/// implements it.
#[async_trait]
pub trait RaftQuorum: Send + Sync + 'static {
    /// Current leadership, voters, observers and kraft.version.
    fn facts(&self) -> QuorumFacts;

    /// Appends `records` atomically (in one batch) as the active controller
    /// of `epoch`, starting at `base_offset` if given, and returns once they
    /// are in the leader's log. Fails with [`AppendError::NotController`] if
    /// this node is not the active controller of `epoch`, and with
    /// [`AppendError::OffsetMismatch`] (appending nothing) if the batch
    /// would start elsewhere.
    async fn append(
        &self,
        epoch: i32,
        base_offset: Option<i64>,
        records: Vec<MetadataRecord>,
    ) -> Result<PendingCommit, AppendError>;

    /// Resigns leadership of `epoch` if this node still holds it (Kafka's
    /// `renounce`): the active controller could not apply a record it
    /// generated. A layer without leadership does nothing.
    async fn resign(&self, epoch: i32) {
        let _ = epoch;
    }

    /// Resolves once every record up to `offset` is committed and applied
    /// to the shared image.
    async fn wait_applied(&self, offset: i64) -> Result<(), AppendError>;

    /// [`append`](Self::append), then waits until the records are applied;
    /// returns the offset of the last record.
    async fn append_and_commit(
        &self,
        epoch: i32,
        records: Vec<MetadataRecord>,
    ) -> Result<i64, AppendError> {
        self.append(epoch, None, records).await?.applied.await
    }

    /// The ids of the latest (possibly uncommitted) voter set, read now
    /// rather than from the cached [`facts`](Self::facts).
    async fn latest_voter_ids(&self) -> Vec<i32> {
        self.facts().voters.iter().map(|v| v.key.id).collect()
    }

    /// Upgrades (or, with `validate_only`, checks an upgrade of)
    /// kraft.version (Kafka's `KafkaRaftClient.upgradeKRaftVersion`).
    async fn upgrade_kraft_version(
        &self,
        epoch: i32,
        version: i16,
        validate_only: bool,
    ) -> Result<(), ApiError>;

    /// The raft RPCs this layer serves and their versions (Vote,
    /// BeginQuorumEpoch, EndQuorumEpoch, Fetch, FetchSnapshot,
    /// DescribeQuorum, AddRaftVoter, RemoveRaftVoter, UpdateRaftVoter).
    /// Only these are advertised and dispatched to
    /// [`handle_raft_request`](Self::handle_raft_request).
    fn raft_apis(&self) -> Vec<ApiRange> {
        Vec::new()
    }

    /// Handles a raft RPC.
    async fn handle_raft_request(
        &self,
        ctx: &RequestContext,
        request: RequestBody,
    ) -> Result<ResponseBody, CloseConnection> {
        let _ = request;
        Err(CloseConnection(format!(
            "{} is not served by this raft layer",
            ctx.api_key.kafka_name()
        )))
    }
}
