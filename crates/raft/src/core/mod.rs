//! The sans-IO KRaft consensus core.
//!
//! [`RaftCore`] is a deterministic state machine implementing Kafka 4.4's
//! KRaft protocol for the `__cluster_metadata` partition: pre-vote and vote
//! elections (KIP-996), pull replication over Fetch with divergence
//! truncation and snapshot download, the high watermark, check-quorum and
//! resignation, and dynamic voters (KIP-853: AddRaftVoter with
//! `AckWhenCommitted` (KIP-1186), RemoveRaftVoter, UpdateRaftVoter,
//! auto-join), plus the committed voter set of the DescribeQuorum v3 draft.
//!
//! # Driving the core
//!
//! Inputs: [`RaftCore::handle_request`], [`RaftCore::handle_response`],
//! [`RaftCore::handle_send_failure`], [`RaftCore::tick`] (at
//! [`RaftCore::next_deadline`]), [`RaftCore::propose`],
//! [`RaftCore::flushed`], [`RaftCore::resign`]. Outputs: [`Action`]s from
//! [`RaftCore::take_actions`], to be executed **in order**; in particular
//! [`Action::PersistElectionState`] must be durable before a later
//! [`Action::Respond`] (a granted vote) or [`Action::Send`] is executed.
//! Time (`now`, ms) and randomness ([`RaftRng`]) are injected.
//!
//! Messages are plain values ([`message`]) carrying what the wire messages
//! carry; a wire adapter maps them to `kraft-protocol`'s generated types and
//! handles topic/partition framing. Error codes are [`ErrorCode`] (Kafka's
//! numeric values).
//!
//! # The log and durability
//!
//! The log is reached through [`RaftLog`]: the core reads it and applies
//! appends and truncations through it (an implementation may buffer them).
//! Durability is explicit: after appending, the core emits
//! [`Action::Flush`]; the driver makes the log durable and reports it with
//! [`RaftCore::flushed`]. Until then the data does not count: a leader
//! counts only its flushed offset towards the high watermark, and a follower
//! sends its next Fetch (which acknowledges its log end offset) only once its
//! log is flushed. Data re-appended after a truncation is not covered by a
//! flush requested before that truncation. [`MemoryLog`] is an in-memory
//! implementation with this durability model, used by tests and the
//! simulator (a crash drops what was not flushed).
//!
//! # Voters
//!
//! The voter set is derived from the log only ([`ControlState`]): the
//! latest `VotersRecord` (possibly uncommitted) is the current set, the one
//! in effect at `HW - 1` is the committed set ([`RaftCore::committed_voters`]),
//! and the static `controller.quorum.voters` apply while no record exists.
//!
//! # Deliberate differences from Kafka
//!
//! * Proposals are appended at once (no linger/batch accumulator).
//! * Situations Kafka treats as fatal internal errors (inconsistent leader
//!   in a message, truncation below the high watermark) are ignored and
//!   recorded in [`RaftCore::violations`] instead of panicking. A message
//!   naming this node id as the leader of an epoch it does not lead (a
//!   previous incarnation, e.g. before a disk replacement) is treated as an
//!   epoch without a leader.
//! * `kraft.version` upgrades (0 → 1) and graceful shutdown are left to the
//!   layer above / driver.

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
pub use log::{FetchPosition, LogError, RaftLog, SnapshotControl, SnapshotInfo};
pub use memlog::{FlushTicket, MemSnapshot, MemoryLog};
pub use message::{Api, Request, Response};
pub use raft::{CoreStats, RaftCore};
pub use record::{Batch, ControlRecord, LeaderChangeMessage, Record};
pub use rng::{RaftRng, SplitMix64};
pub use state::Role;
pub use types::{
    Address, Endpoint, Endpoints, KRaftVersionRange, LeaderAndEpoch, NodeId, OffsetAndEpoch,
    ReplicaKey, SnapshotId, Uuid, BOOTSTRAP_SNAPSHOT_ID,
};
pub use voters::{ControlState, History, VoterNode, VoterSet};
