//! The sans-IO KRaft consensus core: [`RaftCore`], its inputs and
//! outputs, the [`RaftLog`] it runs on and the in-memory [`MemoryLog`].
//! The crate root re-exports what is public; see the crate docs for how to
//! drive it.

pub mod action;
pub mod config;
pub mod error;
mod leader;
pub mod log;
pub mod memlog;
pub mod message;
mod raft;
pub mod record;
mod request_manager;
pub mod rng;
mod state;
pub mod types;
pub mod voters;

pub use action::{Action, ElectionState, InboundId};
pub use config::RaftConfig;
pub use error::{ErrorCode, RaftError, UpgradeError};
pub use log::{
    epoch_cache_lookup, FetchPosition, LogError, RaftLog, SnapshotControl, SnapshotInfo,
};
pub use memlog::{FlushTicket, MemSnapshot, MemoryLog};
pub use raft::{CoreStats, RaftCore};
pub use record::{Batch, ControlRecord, EncodedBatch, LeaderChangeMessage, Record};
pub use rng::{RaftRng, SplitMix64};
pub use state::Role;
pub use types::{
    Address, Endpoint, Endpoints, KRaftVersionRange, LeaderAndEpoch, NodeId, OffsetAndEpoch,
    ReplicaKey, SnapshotId, Uuid, BOOTSTRAP_SNAPSHOT_ID, KRAFT_VERSION_FEATURE,
};
pub use voters::{ControlState, History, VoterNode, VoterSet};
