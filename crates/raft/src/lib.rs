//! Kafka's KRaft consensus (the `__cluster_metadata` quorum of Kafka 4.4)
//! as a library: a deterministic sans-IO raft core, the on-disk log,
//! snapshots and `quorum-state` file in Kafka's formats, and a tokio driver
//! that talks to its peers, Java or Rust, over Kafka's own RPCs.
//!
//! # Layers
//!
//! 1. **The sans-IO core**, [`RaftCore`]: a state machine implementing
//!    KRaft's pre-vote and vote elections (KIP-996), pull replication over
//!    Fetch with divergence truncation and snapshot download, the high
//!    watermark, check-quorum and resignation, and dynamic voters (KIP-853
//!    AddRaftVoter with `AckWhenCommitted` (KIP-1186), RemoveRaftVoter,
//!    UpdateRaftVoter, auto-join). It does no I/O and reads no clock: time
//!    (`now`, in ms) and randomness ([`RaftRng`]) are injected, so it runs
//!    the same under a driver, a simulator or a model checker. Its messages
//!    are plain values ([`message`]); [`wire`] maps them to
//!    `kraft-protocol`'s Kafka RPC bodies and [`codec`] maps [`Batch`]es to
//!    RecordBatch v2.
//! 2. **Storage**, plain `std`: the core reads and writes its log through
//!    [`RaftLog`]. [`DiskLog`] is the log in Kafka's on-disk layout (with
//!    [`LogConfig`], [`Retention`]); [`QuorumStateStore`] keeps the election
//!    state; [`MemoryLog`] is an in-memory log for tests. [`DurableLog`] and
//!    [`ElectionStore`] are what a driver needs on top (flushes, snapshots,
//!    the durable vote); every failure is a [`StorageError`]. The file
//!    layer below `DiskLog` is in [`storage`].
//! 3. **The driver** (feature `runtime`): [`start_driver`] runs a core on a
//!    tokio task and returns a [`RaftHandle`] (inbound requests, proposals,
//!    DescribeQuorum, snapshots, shutdown) and a stream of [`RaftEvent`]s
//!    (committed batches, snapshots to load, leader changes, and a
//!    [`FatalError`] when storage fails). Outbound requests go through
//!    [`Transport`].
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
//! Error codes are [`ErrorCode`] (Kafka's numeric values).
//!
//! Durability is explicit: after appending, the core emits
//! [`Action::Flush`]; whoever drives it makes the log durable and reports it
//! with [`RaftCore::flushed`]. Until then the data does not count: a leader
//! counts only its flushed offset towards the high watermark, and a follower
//! acknowledges (sends its next Fetch) only once its log is flushed. Data
//! re-appended after a truncation is not covered by a flush requested
//! before that truncation.
//!
//! A single voter elects itself, commits a record and delivers it, driven by
//! hand (the loop a driver runs, minus the network):
//!
//! ```
//! use bytes::Bytes;
//! use kraft_raft::{
//!     Action, Endpoints, KRaftVersionRange, MemoryLog, RaftConfig, RaftCore, Record, ReplicaKey,
//!     Role, SplitMix64, Uuid, VoterNode, VoterSet,
//! };
//!
//! let directory_id = Uuid::from_u64_pair(1, 1);
//! let listener = Endpoints::single("CONTROLLER", "localhost", 9093);
//! let mut cfg = RaftConfig::new(1, directory_id, "cluster", listener.clone(), "CONTROLLER");
//! cfg.static_voters = VoterSet::new([VoterNode::new(
//!     ReplicaKey::of(1, directory_id),
//!     listener,
//!     KRaftVersionRange::new(0, 1),
//! )]);
//! let mut core = RaftCore::new(cfg, MemoryLog::new(), None, Box::new(SplitMix64::new(7)), 0)?;
//!
//! let mut now = 0;
//! let mut proposed = None;
//! let mut committed = Vec::new();
//! while committed.is_empty() && now < 60_000 {
//!     now = core.next_deadline().max(now + 1);
//!     core.tick(now);
//!     if core.role() == Role::Leader && proposed.is_none() {
//!         proposed = Some(core.propose(vec![Bytes::from_static(b"hello")], now)?);
//!     }
//!     for action in core.take_actions() {
//!         match action {
//!             // A real driver writes `quorum-state` here, before anything else.
//!             Action::PersistElectionState { .. } => {}
//!             Action::Flush { up_to } => {
//!                 let ticket = core.log_mut().issue_flush(); // fsync, for a DiskLog
//!                 core.log_mut().complete_flush(ticket);
//!                 core.flushed(up_to, now);
//!             }
//!             Action::Committed { batches } => {
//!                 for batch in batches {
//!                     for record in batch.records {
//!                         if let Record::Data(data) = record {
//!                             committed.push(data);
//!                         }
//!                     }
//!                 }
//!             }
//!             // Sends, responses, leader changes, proposal completions.
//!             _ => {}
//!         }
//!     }
//! }
//! let last_offset = proposed.ok_or("never became leader")?;
//! assert_eq!(committed, vec![Bytes::from_static(b"hello")]);
//! assert!(core.high_watermark().is_some_and(|hw| hw > last_offset));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Voters
//!
//! The voter set is derived from the log only ([`ControlState`]): the
//! latest `VotersRecord` (possibly uncommitted) is the current set, the one
//! in effect at `HW - 1` is the committed set ([`RaftCore::committed_voters`]),
//! and the static `controller.quorum.voters` apply while no record exists.
//!
//! # Failures
//!
//! Nothing in the crate exits the process. A failed fsync of the log or a
//! failed write of `quorum-state` leaves durability unknown: the driver
//! stops at once (no further votes, acknowledgements or responses; pending
//! calls fail with [`DriverError::Stopped`]) and sends
//! [`RaftEvent::Fatal`] as its last event. The application decides how to
//! exit; `kraft server` logs the error and exits non-zero, as Kafka halts.
//! A [`DiskLog`] that saw an I/O failure refuses every later change
//! ([`StorageError::Failed`]); a failed fsync is never retried.
//!
//! # Threading model
//!
//! The core and its log are owned by one driver task; the rest of the
//! application talks to it through the [`RaftHandle`]'s channels, so the
//! core stays single-threaded and deterministic. `kraft server` runs the
//! whole controller on one current-thread tokio runtime.
//!
//! Log fsyncs run on a dedicated I/O thread by default
//! ([`FlushMode::IoThread`]): [`DurableLog::begin_flush`] detaches the
//! fsync of the appends so far as a [`FlushJob`], the driver keeps serving
//! reads, Fetch responses and other requests while it runs, and flushes
//! requested meanwhile are covered by the next single fsync. A node that
//! does not lead flushes a small step (at most 64 records) inline even
//! then (when no job runs): its next Fetch, which reports the offset,
//! waits for the fsync anyway, and the hand-off would add two thread
//! wake-ups to every commit's path; a replica catching up hands its large
//! flushes to the thread and applies records meanwhile. With
//! [`FlushMode::Inline`] the fsync runs on the driver task and stalls every
//! socket of a current-thread runtime for its whole duration. Snapshot
//! writes, truncations and `quorum-state` writes stay inline: they are
//! rare, and a vote must be durable before the next action.
//!
//! The default was measured (`cargo bench -p kraft-raft --bench
//! commit_latency`): three voters on loopback, each on its own
//! current-thread runtime over real files, one writer committing 100-byte
//! records one at a time, one client sending ApiVersions to the leader back
//! to back. Against a floor of one fsync of a 4 KiB append plus a loopback
//! round trip (sampled during the run), the I/O thread committed at
//! p50 1.4× / p99 12× the floor and inline fsync at p50 2.1× / p99 34×;
//! the leader's slowest ApiVersions answer took 5 ms with the I/O thread
//! and 27 ms inline. The numbers per run are in the crate README.
//!
//! # Features
//!
//! * `runtime` (default): the tokio driver ([`start_driver`],
//!   [`RaftHandle`], ...) and the TCP [`Transport`]. Without it
//!   (`default-features = false`) the crate is the sans-IO core, the
//!   codecs and the std-only storage, for an application that brings its
//!   own runtime or event loop.
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
//! * `kraft.version` upgrades (0 → 1) are started by the layer above
//!   ([`RaftCore::upgrade_kraft_version`]).

mod core;
mod disk_log;
#[cfg(feature = "runtime")]
mod driver;
#[cfg(feature = "runtime")]
mod transport;

#[cfg(feature = "runtime")]
pub mod metrics;

pub mod codec;
pub mod storage;
pub mod wire;

pub use crate::core::message;

pub use crate::core::{
    epoch_cache_lookup, Action, Address, Batch, ControlRecord, ControlState, CoreStats,
    ElectionState, EncodedBatch, Endpoint, Endpoints, ErrorCode, FetchPosition, FlushTicket,
    History, InboundId, KRaftVersionRange, LeaderAndEpoch, LeaderChangeMessage, LogError,
    MemSnapshot, MemoryLog, NodeId, OffsetAndEpoch, RaftConfig, RaftCore, RaftError, RaftLog,
    RaftRng, Record, ReplicaKey, Role, SnapshotControl, SnapshotId, SnapshotInfo, SplitMix64,
    UpgradeError, Uuid, VoterNode, VoterSet, BOOTSTRAP_SNAPSHOT_ID, KRAFT_VERSION_FEATURE,
};

pub use crate::disk_log::{DiskLog, Retention};
pub use crate::storage::durable::{DurableLog, ElectionStore, FlushJob, FlushOutcome};
pub use crate::storage::error::StorageError;
pub use crate::storage::log::LogConfig;
pub use crate::storage::quorum_state::QuorumStateStore;

#[cfg(feature = "runtime")]
pub use crate::driver::{
    start_driver, AppendCondition, ControllerRegistrations, DriverError, DriverOptions, FatalError,
    FlushMode, Inspection, PendingAppend, RaftEvent, RaftHandle, RaftStatus, StartError,
};
#[cfg(feature = "runtime")]
pub use crate::metrics::{ChannelTotals, RaftMetrics, RaftMetricsSnapshot};
#[cfg(feature = "runtime")]
pub use crate::transport::{Transport, TransportResult};
