//! The sans-IO KRaft consensus core.
//!
//! [`RaftCore`] is a deterministic state machine implementing Kafka 4.4's
//! KRaft protocol for the `__cluster_metadata` partition: pre-vote and vote
//! elections, pull replication over Fetch with divergence truncation and
//! snapshot download, the high watermark, check-quorum and resignation, and
//! dynamic voters (KIP-853: AddRaftVoter with `AckWhenCommitted` (KIP-1186),
//! RemoveRaftVoter, UpdateRaftVoter, auto-join), plus the committed voter set
//! of the DescribeQuorum v3 draft.
//!
//! Inputs: [`RaftCore::handle_request`], [`RaftCore::handle_response`],
//! [`RaftCore::handle_send_failure`], [`RaftCore::tick`],
//! [`RaftCore::propose`], [`RaftCore::flushed`], [`RaftCore::resign`].
//! Outputs: [`Action`]s from [`RaftCore::take_actions`], executed in order.
//! Messages are plain values ([`message`]); a wire adapter maps them to
//! `kraft-protocol`'s generated types. The log is reached through
//! [`RaftLog`]; [`MemoryLog`] is an in-memory implementation with a
//! durability model for tests and simulation.

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
pub use error::{ErrorCode, RaftError};
pub use log::{FetchPosition, LogError, RaftLog, SnapshotControl, SnapshotInfo};
pub use memlog::{FlushTicket, MemSnapshot, MemoryLog};
pub use message::{Api, Request, Response};
pub use raft::{CoreStats, RaftCore};
pub use record::{Batch, ControlRecord, LeaderChangeMessage, Record};
pub use rng::{RaftRng, SplitMix64};
pub use state::Role;
pub use types::{
    Address, Endpoint, Endpoints, KRaftVersionRange, LeaderAndEpoch, NodeId, OffsetAndEpoch, ReplicaKey,
    SnapshotId, Uuid, BOOTSTRAP_SNAPSHOT_ID,
};
pub use voters::{ControlState, History, VoterNode, VoterSet};
