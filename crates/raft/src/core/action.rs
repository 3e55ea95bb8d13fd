//! Outputs of the core, drained by the driver in order.

use super::error::ErrorCode;
use super::message::{Request, Response};
use super::record::Batch;
use super::types::{Address, LeaderAndEpoch, NodeId, ReplicaKey, SnapshotId};

/// The durable election state (`quorum-state` file).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ElectionState {
    /// Current epoch.
    pub epoch: i32,
    /// Leader of the epoch, if known.
    pub leader_id: Option<NodeId>,
    /// The candidate voted for in this epoch, if any.
    pub voted_key: Option<ReplicaKey>,
}

impl ElectionState {
    /// Epoch 0, nothing known.
    pub fn initial() -> Self {
        ElectionState {
            epoch: 0,
            leader_id: None,
            voted_key: None,
        }
    }
}

/// Token identifying an inbound request until its response is emitted.
pub type InboundId = u64;

/// An output of the core. Actions must be executed in order: in particular
/// [`Action::PersistElectionState`] must be durable before any later action
/// (e.g. a vote response) is executed.
#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    /// Durably replace the `quorum-state` file (write, fsync, rename, fsync
    /// dir) before executing any later action.
    PersistElectionState {
        /// The state to persist.
        state: ElectionState,
        /// `kraft.version` (selects the file's `data_version`).
        kraft_version: i16,
    },
    /// Send a request; report the answer with
    /// [`super::RaftCore::handle_response`] or a transport failure with
    /// [`super::RaftCore::handle_send_failure`].
    Send {
        /// Correlation id to quote back.
        correlation_id: u64,
        /// Destination node id (negative for bootstrap servers).
        destination: NodeId,
        /// Destination address on the default listener, when known.
        address: Option<Address>,
        /// The request.
        request: Request,
    },
    /// Answer an inbound request.
    Respond {
        /// The token given to [`super::RaftCore::handle_request`].
        inbound: InboundId,
        /// The response.
        response: Response,
    },
    /// Make the log durable up to `up_to` (exclusive), then call
    /// [`super::RaftCore::flushed`] with it. Report completions in the order
    /// the flushes were requested, each once (a synchronous fsync per action
    /// does this naturally).
    Flush {
        /// Log end offset to make durable.
        up_to: i64,
    },
    /// The listener must (re)load the latest snapshot before applying further
    /// committed batches.
    LoadSnapshot {
        /// Snapshot to load.
        id: SnapshotId,
    },
    /// Batches newly committed (below the high watermark), in order, each
    /// delivered once per process lifetime.
    Committed {
        /// The batches.
        batches: Vec<Batch>,
    },
    /// The known leader or the epoch changed.
    LeaderChange(LeaderAndEpoch),
    /// A proposal ([`super::RaftCore::propose`]) finished: committed, or
    /// failed because leadership was lost.
    ProposalCompleted {
        /// Epoch the proposal was appended in.
        epoch: i32,
        /// Offset of its last record.
        last_offset: i64,
        /// `ErrorCode::None` when committed.
        result: ErrorCode,
    },
}
