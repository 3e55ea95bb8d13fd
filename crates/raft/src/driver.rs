//! The tokio driver: runs a [`RaftCore`] on a task, executes its actions
//! (durable election state, log flushes, outbound requests over real Kafka
//! frames, responses, commit notifications) and offers an async API to the
//! layer above.
//!
//! One task owns the core and the log; everything else talks to it through
//! channels, so the core stays single-threaded and deterministic. Log
//! fsyncs run on a dedicated I/O thread or inline, as [`FlushMode`] says.
//! A failed fsync or election-state write stops the driver at once (see
//! [`FatalError`]).

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use bytes::Bytes;
use kraft_protocol::{ApiKey, RequestBody, ResponseBody};
use tokio::sync::{mpsc, oneshot, watch};

use crate::core::log::{LogError, SnapshotControl};
use crate::core::message::{self as m, Api};
use crate::core::record::Batch;
use crate::core::rng::SplitMix64;
use crate::core::types::{Endpoints, LeaderAndEpoch, NodeId, SnapshotId};
use crate::core::{
    Action, ElectionState, ErrorCode, RaftConfig, RaftCore, RaftError, RaftLog, UpgradeError,
};
use crate::disk_log::Retention;
use crate::metrics::RaftMetrics;
use crate::storage::durable::{DurableLog, ElectionStore, FlushJob, FlushOutcome};
use crate::storage::StorageError;
use crate::transport::{Transport, TransportResult};
use crate::wire;

/// Milliseconds since the Unix epoch (the clock Kafka's timestamps use).
pub(crate) fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

/// Where the driver runs the fsync that makes appends durable.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum FlushMode {
    /// The leader's on a dedicated I/O thread (`raft-io`): the driver keeps
    /// serving requests, replicating and answering its peers while the
    /// fsync runs, and flushes requested meanwhile are covered by one next
    /// fsync. A node that does not lead flushes a small step (at most 64
    /// records) inline when no job is running: its next Fetch waits for
    /// the fsync anyway, and the hand-off to the thread and back would add
    /// two thread wake-ups to every commit's replication path. Larger
    /// flushes (catching up) go to the thread, so the application applies
    /// the records before them while the fsync runs. Logs that cannot
    /// detach a flush ([`DurableLog::begin_flush`] returns `None`) are
    /// flushed inline.
    #[default]
    IoThread,
    /// On the driver's task, between two actions: the runtime thread is
    /// blocked for the whole fsync, and with it every task of a
    /// current-thread runtime.
    Inline,
}

/// Settings of a driver beyond the core's [`RaftConfig`].
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct DriverOptions {
    /// `client.id` of the driver's outbound requests.
    pub client_id: String,
    /// Where log fsyncs run.
    pub flush_mode: FlushMode,
    /// TLS and SASL of outbound connections (the controller listener's).
    pub security: kraft_security::client::ClientSecurity,
}

impl DriverOptions {
    /// Default options with this `client.id`.
    pub fn new(client_id: impl Into<String>) -> Self {
        DriverOptions {
            client_id: client_id.into(),
            flush_mode: FlushMode::default(),
            security: kraft_security::client::ClientSecurity::plaintext(),
        }
    }

    /// The same options with outbound connections secured as `security`
    /// says.
    pub fn with_security(mut self, security: kraft_security::client::ClientSecurity) -> Self {
        self.security = security;
        self
    }

    /// The same options with another flush mode.
    pub fn with_flush_mode(mut self, flush_mode: FlushMode) -> Self {
        self.flush_mode = flush_mode;
        self
    }
}

/// Why the driver stopped on its own. Durability is unknown after any of
/// these, so the driver answers, votes and acknowledges nothing more; the
/// process should exit (Kafka halts in the same situations).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FatalError {
    /// The election state (`quorum-state`) could not be made durable:
    /// continuing could vote twice in one epoch after a restart.
    #[error("cannot persist the election state: {0}")]
    PersistElectionState(#[source] StorageError),
    /// The log could not be made durable (a failed fsync is never retried).
    #[error("cannot flush the metadata log: {0}")]
    FlushLog(#[source] StorageError),
    /// The I/O thread that runs the fsyncs is gone.
    #[error("the raft I/O thread stopped")]
    IoThreadStopped,
    /// The leader's log could not take a batch for a storage reason.
    #[error("cannot append to the metadata log: {0}")]
    AppendLog(#[source] LogError),
}

/// Why a driver could not start.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StartError {
    /// The core refused the configuration or the persisted state.
    #[error(transparent)]
    Config(#[from] RaftError),
    /// The I/O thread could not be started.
    #[error("cannot start the raft I/O thread: {0}")]
    IoThread(#[source] std::io::Error),
}

/// Read access to the controller registrations the layer above keeps in its
/// metadata image: a KIP-1141 AddRaftVoter (v2+) without listeners takes the
/// voter's registered endpoints (name, host, port).
pub trait ControllerRegistrations: Send + Sync + 'static {
    /// The registered endpoints of controller `id`, or `None` when it is not
    /// registered.
    fn registered_endpoints(&self, id: NodeId) -> Option<Endpoints>;
}

/// Something the layer above learns from the quorum, in log order.
#[derive(Debug)]
#[non_exhaustive]
pub enum RaftEvent {
    /// Batches newly committed, in order.
    Committed(Vec<Batch>),
    /// Reload state from this snapshot before applying later batches.
    LoadSnapshot(SnapshotId),
    /// The leader or epoch changed.
    LeaderChange(LeaderAndEpoch),
    /// The driver stopped because storage failed; the last event. Every
    /// pending and later call on the handle fails with
    /// [`DriverError::Stopped`]. The process should exit.
    Fatal(FatalError),
}

/// A snapshot of the replica's status, published on every change.
#[derive(Debug, Clone, PartialEq)]
pub struct RaftStatus {
    /// This node's id.
    pub node_id: Option<NodeId>,
    /// Known leader and epoch.
    pub leader: LeaderAndEpoch,
    /// High watermark, when known.
    pub high_watermark: Option<i64>,
    /// Whether this replica is currently the leader.
    pub is_leader: bool,
    /// Whether this leader was asked to resign: it takes no more records
    /// and hands leadership off ([`RaftHandle::resign`]).
    pub resigning: bool,
    /// Whether this replica is a voter.
    pub is_voter: bool,
    /// `kraft.version` in effect.
    pub kraft_version: i16,
    /// As the leader, the offset of the record that starts its epoch (see
    /// [`RaftCore::epoch_start_offset`]).
    pub epoch_start_offset: Option<i64>,
}

impl RaftStatus {
    /// Whether this node leads and takes records: the leader, not resigning.
    pub fn takes_records(&self) -> bool {
        self.is_leader && !self.resigning
    }
}

/// What must hold for [`RaftHandle::append`] to append (Kafka's
/// `scheduleAtomicAppend` takes the epoch the records were computed for).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct AppendCondition {
    /// The leader epoch the records were computed for.
    pub epoch: Option<i32>,
    /// The offset the batch must start at (the records name it, e.g. a
    /// broker epoch).
    pub base_offset: Option<i64>,
}

/// Records in the leader's log, not yet committed.
#[derive(Debug)]
pub struct PendingAppend {
    /// Offset of the first record.
    pub base_offset: i64,
    /// Offset of the last record.
    pub last_offset: i64,
    committed: oneshot::Receiver<Result<i64, ErrorCode>>,
}

impl PendingAppend {
    /// Waits until the records are committed; returns the last offset.
    pub async fn committed(self) -> Result<i64, DriverError> {
        match self.committed.await {
            Ok(Ok(offset)) => Ok(offset),
            Ok(Err(code)) => Err(DriverError::NotCommitted(code)),
            Err(_) => Err(DriverError::Stopped),
        }
    }
}

struct Appended {
    base_offset: i64,
    last_offset: i64,
    committed: oneshot::Receiver<Result<i64, ErrorCode>>,
}

/// Why a driver call failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DriverError {
    /// The driver task has stopped.
    #[error("the raft driver has stopped")]
    Stopped,
    /// The core refused the call.
    #[error("{0}")]
    Raft(#[source] RaftError),
    /// A snapshot was asked for above the high watermark.
    #[error("cannot snapshot up to offset {end_offset} above the high watermark {high_watermark}")]
    SnapshotAboveHighWatermark {
        /// The requested end offset.
        end_offset: i64,
        /// The high watermark.
        high_watermark: i64,
    },
    /// The proposal was not committed (leadership lost).
    #[error("proposal failed: {0:?}")]
    NotCommitted(ErrorCode),
    /// [`AppendCondition::epoch`] is not the current epoch.
    #[error("the current epoch is {epoch}")]
    EpochMismatch {
        /// The current epoch.
        epoch: i32,
    },
    /// [`AppendCondition::base_offset`] is not the log end offset.
    #[error("the log ends at offset {end_offset}")]
    OffsetMismatch {
        /// The log end offset: where the next batch would start.
        end_offset: i64,
    },
    /// The log refused a snapshot or retention request.
    #[error(transparent)]
    Storage(#[from] StorageError),
}

// Message bodies hold their single-element arrays inline.
#[allow(clippy::large_enum_variant)]
enum Command {
    Request {
        body: RequestBody,
        version: i16,
        reply: oneshot::Sender<ResponseBody>,
    },
    Propose {
        records: Vec<Bytes>,
        condition: AppendCondition,
        reply: oneshot::Sender<Result<Appended, DriverError>>,
    },
    Describe {
        reply: oneshot::Sender<m::DescribeQuorumResponse>,
    },
    Inspect {
        reply: oneshot::Sender<Inspection>,
    },
    Resign {
        reply: oneshot::Sender<Result<(), DriverError>>,
    },
    UpgradeKraftVersion {
        epoch: i32,
        version: i16,
        validate_only: bool,
        reply: oneshot::Sender<Result<bool, UpgradeError>>,
    },
    Snapshot {
        end_offset: i64,
        records: Vec<Bytes>,
        reply: oneshot::Sender<Result<Option<SnapshotId>, DriverError>>,
    },
    Clean {
        retention: Retention,
        reply: oneshot::Sender<Result<bool, DriverError>>,
    },
    Shutdown {
        reply: oneshot::Sender<()>,
    },
    SetRegistrations {
        registrations: Arc<dyn ControllerRegistrations>,
    },
}

/// Facts about the quorum read from the core for the layer above (the
/// controller's voter checks and DescribeCluster).
#[derive(Debug, Clone, PartialEq)]
pub struct Inspection {
    /// The latest voter set: (id, directory id, endpoints).
    pub voters: Vec<(NodeId, Option<uuid::Uuid>, Endpoints)>,
    /// Status.
    pub status: RaftStatus,
}

/// A cheap handle to a running raft driver.
#[derive(Clone)]
pub struct RaftHandle {
    commands: mpsc::UnboundedSender<Command>,
    status: watch::Receiver<RaftStatus>,
    metrics: RaftMetrics,
}

impl RaftHandle {
    /// Sends the command `make` builds around a reply channel and waits for
    /// the driver's answer.
    async fn call<T>(
        &self,
        make: impl FnOnce(oneshot::Sender<T>) -> Command,
    ) -> Result<T, DriverError> {
        let (reply, rx) = oneshot::channel();
        self.commands
            .send(make(reply))
            .map_err(|_| DriverError::Stopped)?;
        rx.await.map_err(|_| DriverError::Stopped)
    }

    /// Handles an inbound KRaft request (Vote, BeginQuorumEpoch,
    /// EndQuorumEpoch, Fetch, FetchSnapshot, AddRaftVoter, RemoveRaftVoter,
    /// UpdateRaftVoter, DescribeQuorum) and returns the response to send.
    pub async fn handle_request(
        &self,
        body: RequestBody,
        version: i16,
    ) -> Result<ResponseBody, DriverError> {
        self.call(|reply| Command::Request {
            body,
            version,
            reply,
        })
        .await
    }

    /// Appends data records as one batch (leader only) and waits until they
    /// are committed; returns the offset of the last record.
    pub async fn propose(&self, records: Vec<Bytes>) -> Result<i64, DriverError> {
        self.append(records, AppendCondition::default())
            .await?
            .committed()
            .await
    }

    /// Appends data records as one batch if `condition` holds, and returns
    /// once they are in the leader's log: the [`PendingAppend`] says where
    /// and resolves when they are committed. A failed condition is
    /// [`DriverError::EpochMismatch`] or [`DriverError::OffsetMismatch`];
    /// nothing is appended then.
    pub async fn append(
        &self,
        records: Vec<Bytes>,
        condition: AppendCondition,
    ) -> Result<PendingAppend, DriverError> {
        let appended = self
            .call(|reply| Command::Propose {
                records,
                condition,
                reply,
            })
            .await??;
        Ok(PendingAppend {
            base_offset: appended.base_offset,
            last_offset: appended.last_offset,
            committed: appended.committed,
        })
    }

    /// The DescribeQuorum answer (v3 semantics).
    pub async fn describe_quorum(&self) -> Result<m::DescribeQuorumResponse, DriverError> {
        self.call(|reply| Command::Describe { reply }).await
    }

    /// Voters, observers and status.
    pub async fn inspect(&self) -> Result<Inspection, DriverError> {
        self.call(|reply| Command::Inspect { reply }).await
    }

    /// Resigns leadership of the current epoch (graceful shutdown).
    pub async fn resign(&self) -> Result<(), DriverError> {
        self.call(|reply| Command::Resign { reply }).await?
    }

    /// Upgrades `kraft.version` as the leader of `epoch` (see
    /// [`RaftCore::upgrade_kraft_version`]): `Ok(Ok(true))` once the upgrade
    /// is appended (or would be, with `validate_only`), `Ok(Ok(false))` when
    /// `version` is already in effect, `Ok(Err(_))` when it is refused.
    pub async fn upgrade_kraft_version(
        &self,
        epoch: i32,
        version: i16,
        validate_only: bool,
    ) -> Result<Result<bool, UpgradeError>, DriverError> {
        self.call(|reply| Command::UpgradeKraftVersion {
            epoch,
            version,
            validate_only,
            reply,
        })
        .await
    }

    /// Writes a snapshot of the committed log prefix ending at `end_offset`
    /// (exclusive; a batch end at or below the high watermark) holding the
    /// state machine's `records`. The snapshot's `KRaftVersionRecord` and
    /// `VotersRecord` are the ones in effect at `end_offset - 1`, written
    /// when kraft.version is at least 1 (as Kafka's
    /// `RecordsSnapshotWriter`). Returns the snapshot id, or `None` when
    /// `end_offset` is not a batch end above the log start. An existing
    /// snapshot with the same id is kept.
    pub async fn create_snapshot(
        &self,
        end_offset: i64,
        records: Vec<Bytes>,
    ) -> Result<Option<SnapshotId>, DriverError> {
        self.call(|reply| Command::Snapshot {
            end_offset,
            records,
            reply,
        })
        .await?
    }

    /// Deletes old snapshots and the log segments below them as `retention`
    /// allows, moving the log start offset up; returns whether anything
    /// was deleted.
    pub async fn maybe_clean(&self, retention: Retention) -> Result<bool, DriverError> {
        self.call(|reply| Command::Clean { retention, reply })
            .await?
    }

    /// Gives the driver read access to the controller registrations, so the
    /// leader can derive a new voter's endpoints (KIP-1141). Without it such
    /// a request is refused as not registered.
    pub fn set_controller_registrations(&self, registrations: Arc<dyn ControllerRegistrations>) {
        let _ = self
            .commands
            .send(Command::SetRegistrations { registrations });
    }

    /// Stops the driver after flushing the log.
    pub async fn shutdown(&self) {
        let _ = self.call(|reply| Command::Shutdown { reply }).await;
    }

    /// The latest status.
    pub fn status(&self) -> RaftStatus {
        self.status.borrow().clone()
    }

    /// Kafka's raft metrics of this node.
    pub fn metrics(&self) -> &RaftMetrics {
        &self.metrics
    }

    /// A receiver that sees every status change.
    pub fn watch_status(&self) -> watch::Receiver<RaftStatus> {
        self.status.clone()
    }
}

/// Events from outbound requests back to the loop.
struct Outcome {
    correlation_id: u64,
    destination: NodeId,
    result: TransportResult,
}

struct Driver<L: DurableLog, S: ElectionStore> {
    core: RaftCore<L>,
    store: S,
    transport: Transport,
    cluster_id: String,
    inbound_next: u64,
    inbound: HashMap<u64, (oneshot::Sender<ResponseBody>, i16)>,
    proposals: HashMap<i64, oneshot::Sender<Result<i64, ErrorCode>>>,
    events: mpsc::UnboundedSender<RaftEvent>,
    status: watch::Sender<RaftStatus>,
    outcomes_tx: mpsc::UnboundedSender<Outcome>,
    registrations: Option<Arc<dyn ControllerRegistrations>>,
    /// A failure found while handling a command; the loop stops on it.
    failed: Option<FatalError>,
    flushes: Flushes,
    metrics: RaftMetrics,
}

/// The most unflushed records a node that does not lead syncs inline with
/// [`FlushMode::IoThread`]: a live quorum's replication step. Larger
/// flushes (a replica catching up) go to the I/O thread, so the records
/// fetched before them are applied while the fsync runs.
const INLINE_FLUSH_MAX_RECORDS: i64 = 64;

/// The flushes the core asked for and where they run.
struct Flushes {
    /// Jobs for the I/O thread; `None` flushes inline.
    io_thread: Option<std::sync::mpsc::Sender<FlushJob>>,
    /// `up_to` of the flushes the job on the I/O thread covers, in request
    /// order; empty when no job runs.
    running: Vec<i64>,
    /// `up_to` of the flushes requested while a job runs, in request order.
    waiting: Vec<i64>,
}

/// Runs flush jobs in order on a dedicated thread until the driver drops
/// the job channel.
fn spawn_io_thread(
    done: mpsc::UnboundedSender<FlushOutcome>,
) -> std::io::Result<std::sync::mpsc::Sender<FlushJob>> {
    let (jobs, queue) = std::sync::mpsc::channel::<FlushJob>();
    std::thread::Builder::new()
        .name("raft-io".into())
        .spawn(move || {
            while let Ok(job) = queue.recv() {
                if done.send(job.run()).is_err() {
                    return;
                }
            }
        })?;
    Ok(jobs)
}

/// Starts a driver for a core over `log` on the current tokio runtime and
/// returns its handle and the event stream. `persisted` is the election
/// state read back from `store`.
///
/// The driver runs until [`RaftHandle::shutdown`], until every handle is
/// dropped, or until storage fails: then it stops at once and sends
/// [`RaftEvent::Fatal`] as its last event.
pub fn start_driver<L: DurableLog, S: ElectionStore>(
    cfg: RaftConfig,
    log: L,
    persisted: Option<ElectionState>,
    store: S,
    options: DriverOptions,
) -> Result<(RaftHandle, mpsc::UnboundedReceiver<RaftEvent>), StartError> {
    let seed = now_ms() as u64 ^ u64::from(std::process::id()).rotate_left(32);
    let cluster_id = cfg.cluster_id.clone();
    let request_timeout = Duration::from_millis(cfg.request_timeout_ms.max(1) as u64);
    let fetch_wait = Duration::from_millis(cfg.fetch_max_wait_ms.max(0) as u64);
    let core = RaftCore::new(
        cfg,
        log,
        persisted,
        Box::new(SplitMix64::new(seed)),
        now_ms(),
    )?;
    let (flush_done_tx, flush_done_rx) = mpsc::unbounded_channel();
    let io_thread = match options.flush_mode {
        FlushMode::IoThread => Some(spawn_io_thread(flush_done_tx).map_err(StartError::IoThread)?),
        FlushMode::Inline => None,
    };
    let (commands_tx, commands_rx) = mpsc::unbounded_channel();
    let (events_tx, events_rx) = mpsc::unbounded_channel();
    let (outcomes_tx, outcomes_rx) = mpsc::unbounded_channel();
    let status = status_of(&core);
    let (status_tx, status_rx) = watch::channel(status);
    let metrics = RaftMetrics::new(&core);
    let driver = Driver {
        core,
        store,
        transport: Transport::new(options.client_id, request_timeout + fetch_wait)
            .with_security(options.security)
            .counting(metrics.channel.clone()),
        cluster_id,
        inbound_next: 1,
        inbound: HashMap::new(),
        proposals: HashMap::new(),
        events: events_tx.clone(),
        status: status_tx,
        outcomes_tx,
        registrations: None,
        failed: None,
        flushes: Flushes {
            io_thread,
            running: Vec::new(),
            waiting: Vec::new(),
        },
        metrics: metrics.clone(),
    };
    tokio::spawn(async move {
        match driver.run(commands_rx, outcomes_rx, flush_done_rx).await {
            Ok(()) => tracing::info!("raft driver stopped"),
            Err(fatal) => {
                tracing::error!(error = %fatal, "raft driver stopped: storage failed");
                let _ = events_tx.send(RaftEvent::Fatal(fatal));
            }
        }
    });
    Ok((
        RaftHandle {
            commands: commands_tx,
            status: status_rx,
            metrics,
        },
        events_rx,
    ))
}

/// Whether the core's node is the leader.
fn leads<L: RaftLog>(core: &RaftCore<L>) -> bool {
    core.config().node_id.is_some() && core.leader() == core.config().node_id
}

fn status_of<L: RaftLog>(core: &RaftCore<L>) -> RaftStatus {
    RaftStatus {
        node_id: core.config().node_id,
        leader: LeaderAndEpoch {
            leader_id: core.leader(),
            epoch: core.epoch(),
        },
        high_watermark: core.high_watermark(),
        is_leader: leads(core),
        resigning: core.is_resigning(),
        is_voter: core.is_voter(),
        kraft_version: core.kraft_version(),
        epoch_start_offset: core.epoch_start_offset(),
    }
}

fn api_key_of(api: Api) -> ApiKey {
    match api {
        Api::Vote => ApiKey::Vote,
        Api::BeginQuorumEpoch => ApiKey::BeginQuorumEpoch,
        Api::EndQuorumEpoch => ApiKey::EndQuorumEpoch,
        Api::Fetch => ApiKey::Fetch,
        Api::FetchSnapshot => ApiKey::FetchSnapshot,
        Api::AddRaftVoter => ApiKey::AddRaftVoter,
        Api::RemoveRaftVoter => ApiKey::RemoveRaftVoter,
        Api::UpdateRaftVoter => ApiKey::UpdateRaftVoter,
        Api::DescribeQuorum => ApiKey::DescribeQuorum,
        Api::ApiVersions => ApiKey::ApiVersions,
    }
}

impl<L: DurableLog, S: ElectionStore> Driver<L, S> {
    /// The event loop. Returns when asked to stop (or every handle is
    /// gone), or with the first storage failure: the driver is dropped at
    /// once, with every pending reply, so nothing is answered after it.
    async fn run(
        mut self,
        mut commands: mpsc::UnboundedReceiver<Command>,
        mut outcomes: mpsc::UnboundedReceiver<Outcome>,
        mut flush_done: mpsc::UnboundedReceiver<FlushOutcome>,
    ) -> Result<(), FatalError> {
        self.execute_actions()?;
        loop {
            let idle_from = std::time::Instant::now();
            let deadline = self.core.next_deadline();
            let wait = (deadline - now_ms()).clamp(0, 60_000) as u64;
            let io_thread = self.flushes.io_thread.is_some();
            tokio::select! {
                command = commands.recv() => {
                    let Some(command) = command else { return Ok(()) };
                    if let Some(reply) = self.handle_command(command) {
                        self.shutdown_flush();
                        let _ = reply.send(());
                        return Ok(());
                    }
                    if let Some(fatal) = self.failed.take() {
                        return Err(fatal);
                    }
                }
                Some(outcome) = outcomes.recv() => self.handle_outcome(outcome),
                done = flush_done.recv(), if io_thread => match done {
                    Some(done) => self.flush_finished(done)?,
                    None => return Err(FatalError::IoThreadStopped),
                },
                _ = tokio::time::sleep(Duration::from_millis(wait)) => {
                    self.core.tick(now_ms());
                }
            }
            let busy_from = std::time::Instant::now();
            self.execute_actions()?;
            self.metrics.polled(
                (busy_from - idle_from).as_secs_f64() * 1000.0,
                busy_from.elapsed().as_secs_f64() * 1000.0,
                now_ms(),
            );
        }
    }

    fn shutdown_flush(&mut self) {
        let end = self.core.log().end_offset();
        if let Err(e) = self.core.log_mut().flush_to(end) {
            tracing::error!(error = %e, "flush at shutdown failed");
        }
    }

    /// Executes a flush the core asked for: inline, or as a job for the I/O
    /// thread (at most one runs; flushes asked for meanwhile wait for the
    /// next). See [`FlushMode::IoThread`] for who flushes inline.
    fn flush(&mut self, up_to: i64) -> Result<(), FatalError> {
        let small = up_to - self.core.flushed_offset() <= INLINE_FLUSH_MAX_RECORDS;
        let follower_step = !leads(&self.core) && small && self.flushes.running.is_empty();
        let inline = self.flushes.io_thread.is_none() || follower_step;
        if inline {
            self.core
                .log_mut()
                .flush_to(up_to)
                .map_err(FatalError::FlushLog)?;
            self.core.flushed(up_to, now_ms());
            return Ok(());
        }
        self.flushes.waiting.push(up_to);
        if self.flushes.running.is_empty() {
            self.start_flush_job()?;
        }
        Ok(())
    }

    /// Starts one job covering every waiting flush.
    fn start_flush_job(&mut self) -> Result<(), FatalError> {
        let covered = std::mem::take(&mut self.flushes.waiting);
        let Some(&last) = covered.last() else {
            return Ok(());
        };
        let log = self.core.log_mut();
        let Some(job) = log.begin_flush().map_err(FatalError::FlushLog)? else {
            log.flush_to(last).map_err(FatalError::FlushLog)?;
            self.report_flushed(&covered);
            return Ok(());
        };
        if job.is_noop() {
            log.finish_flush(job.run()).map_err(FatalError::FlushLog)?;
            self.report_flushed(&covered);
            return Ok(());
        }
        let Some(io_thread) = &self.flushes.io_thread else {
            return Err(FatalError::IoThreadStopped);
        };
        io_thread
            .send(job)
            .map_err(|_| FatalError::IoThreadStopped)?;
        self.flushes.running = covered;
        Ok(())
    }

    /// The I/O thread finished the running job.
    fn flush_finished(&mut self, outcome: FlushOutcome) -> Result<(), FatalError> {
        self.core
            .log_mut()
            .finish_flush(outcome)
            .map_err(FatalError::FlushLog)?;
        let covered = std::mem::take(&mut self.flushes.running);
        self.report_flushed(&covered);
        self.start_flush_job()
    }

    /// Reports completed flushes to the core, in request order.
    fn report_flushed(&mut self, covered: &[i64]) {
        let now = now_ms();
        for &up_to in covered {
            self.core.flushed(up_to, now);
        }
    }

    /// Handles a command; returns the reply channel when it asks to stop.
    fn handle_command(&mut self, command: Command) -> Option<oneshot::Sender<()>> {
        let now = now_ms();
        match command {
            Command::Request {
                body,
                version,
                reply,
            } => match wire::inbound_request(&body, version, &self.cluster_id) {
                Some(Ok(mut request)) => {
                    self.attach_registration(&mut request);
                    let id = self.inbound_next;
                    self.inbound_next += 1;
                    self.inbound.insert(id, (reply, version));
                    self.core.handle_request(id, request, now);
                }
                Some(Err(answer)) => {
                    let _ = reply.send(answer);
                }
                None => tracing::warn!(api = ?body.api_key(), "not a KRaft request; dropped"),
            },
            Command::Propose {
                records,
                condition,
                reply,
            } => {
                let count = records.len() as i64;
                let epoch = self.core.epoch();
                let end = self.core.log_end_offset();
                let result = if condition.epoch.is_some_and(|e| e != epoch) {
                    Err(DriverError::EpochMismatch { epoch })
                } else if condition.base_offset.is_some_and(|o| o != end) {
                    Err(DriverError::OffsetMismatch { end_offset: end })
                } else {
                    self.core.propose(records, now).map_err(DriverError::Raft)
                };
                // A leader whose log cannot take a batch for a storage
                // reason stops, as Kafka's raft client halts on an I/O
                // failure; a batch refused for its size fails alone.
                if let Err(DriverError::Raft(RaftError::Log(e @ LogError::Storage(_)))) = &result {
                    self.failed = Some(FatalError::AppendLog(e.clone()));
                }
                if let Ok(last) = &result {
                    self.metrics.appended(count as usize, *last, now);
                }
                let _ = reply.send(result.map(|last| {
                    let (tx, rx) = oneshot::channel();
                    self.proposals.insert(last, tx);
                    Appended {
                        base_offset: last - count + 1,
                        last_offset: last,
                        committed: rx,
                    }
                }));
            }
            Command::Describe { reply } => {
                let _ = reply.send(self.core.describe_quorum(now));
            }
            Command::Inspect { reply } => {
                let voters = self
                    .core
                    .voters()
                    .nodes()
                    .map(|v| (v.key.id, v.key.directory_id, v.endpoints.clone()))
                    .collect();
                let _ = reply.send(Inspection {
                    voters,
                    status: status_of(&self.core),
                });
            }
            Command::Resign { reply } => {
                let epoch = self.core.epoch();
                let result = self.core.resign(epoch, now).map_err(DriverError::Raft);
                let _ = reply.send(result);
            }
            Command::UpgradeKraftVersion {
                epoch,
                version,
                validate_only,
                reply,
            } => {
                let result = self
                    .core
                    .upgrade_kraft_version(epoch, version, validate_only, now);
                let _ = reply.send(result);
            }
            Command::Snapshot {
                end_offset,
                records,
                reply,
            } => {
                let _ = reply.send(self.create_snapshot(end_offset, records));
            }
            Command::Clean { retention, reply } => {
                let result = self
                    .core
                    .log_mut()
                    .maybe_clean(retention, now)
                    .map_err(DriverError::Storage);
                let _ = reply.send(result);
            }
            Command::Shutdown { reply } => return Some(reply),
            Command::SetRegistrations { registrations } => {
                self.registrations = Some(registrations);
            }
        }
        None
    }

    /// Looks up the registration a KIP-1141 AddRaftVoter may derive its
    /// listeners from; the core decides whether and when to use it.
    fn attach_registration(&self, request: &mut m::Request) {
        if let m::Request::AddRaftVoter(r) = request {
            if let (Some(derivation), Some(registrations)) =
                (&mut r.derivation, &self.registrations)
            {
                if r.listeners.is_empty() {
                    derivation.registered_listeners =
                        registrations.registered_endpoints(r.voter_id);
                }
            }
        }
    }

    fn create_snapshot(
        &mut self,
        end_offset: i64,
        records: Vec<Bytes>,
    ) -> Result<Option<SnapshotId>, DriverError> {
        let hw = self.core.high_watermark().unwrap_or(0);
        if end_offset > hw {
            return Err(DriverError::SnapshotAboveHighWatermark {
                end_offset,
                high_watermark: hw,
            });
        }
        let control_state = self.core.control_state();
        let kraft_version = control_state.kraft_version_at(end_offset - 1);
        let control = if kraft_version >= 1 {
            SnapshotControl {
                kraft_version: Some(kraft_version),
                voters: control_state.voter_set_at(end_offset - 1).cloned(),
            }
        } else {
            SnapshotControl::default()
        };
        self.core
            .log_mut()
            .create_snapshot(end_offset, &control, records)
            .map_err(DriverError::Storage)
    }

    fn handle_outcome(&mut self, outcome: Outcome) {
        let now = now_ms();
        match outcome.result {
            TransportResult::Response(body) => match wire::inbound_response(body) {
                Ok(response) => self.core.handle_response(
                    outcome.correlation_id,
                    outcome.destination,
                    response,
                    now,
                ),
                Err(e) => {
                    tracing::warn!(error = %e, destination = outcome.destination, "unusable response");
                    self.core.handle_send_failure(
                        outcome.correlation_id,
                        outcome.destination,
                        ErrorCode::UnknownServerError,
                        now,
                    );
                }
            },
            TransportResult::Failed(code) => self.core.handle_send_failure(
                outcome.correlation_id,
                outcome.destination,
                code,
                now,
            ),
        }
    }

    /// Executes the core's actions in order until it has none left, then
    /// publishes the status. Stops at the first storage failure: the
    /// actions after it (votes, acknowledgements, responses) are dropped.
    fn execute_actions(&mut self) -> Result<(), FatalError> {
        loop {
            let actions = self.core.take_actions();
            if actions.is_empty() {
                break;
            }
            for action in actions {
                self.execute(action)?;
            }
        }
        self.metrics.observe(&self.core, now_ms());
        let status = status_of(&self.core);
        self.status.send_if_modified(|s| {
            if *s == status {
                false
            } else {
                *s = status;
                true
            }
        });
        Ok(())
    }

    fn execute(&mut self, action: Action) -> Result<(), FatalError> {
        match action {
            Action::PersistElectionState {
                state,
                kraft_version,
            } => {
                let voters: Vec<NodeId> = self.core.voters().ids().collect();
                self.store
                    .persist(&state, kraft_version, &voters)
                    .map_err(FatalError::PersistElectionState)?;
            }
            Action::Send {
                correlation_id,
                destination,
                address,
                request,
            } => {
                let Some(address) = address else {
                    self.core.handle_send_failure(
                        correlation_id,
                        destination,
                        ErrorCode::BrokerNotAvailable,
                        now_ms(),
                    );
                    return Ok(());
                };
                let api = api_key_of(request.api());
                let transport = self.transport.clone();
                let outcomes = self.outcomes_tx.clone();
                tokio::spawn(async move {
                    let result = transport.send(&address, api, &request).await;
                    let _ = outcomes.send(Outcome {
                        correlation_id,
                        destination,
                        result,
                    });
                });
            }
            Action::Respond { inbound, response } => {
                if let Some((reply, version)) = self.inbound.remove(&inbound) {
                    let _ = reply.send(wire::outbound_response(&response, version));
                }
            }
            Action::Flush { up_to } => self.flush(up_to)?,
            Action::LoadSnapshot { id } => {
                let _ = self.events.send(RaftEvent::LoadSnapshot(id));
            }
            Action::Committed { batches } => {
                let _ = self.events.send(RaftEvent::Committed(batches));
            }
            Action::LeaderChange(leader) => {
                let _ = self.events.send(RaftEvent::LeaderChange(leader));
            }
            Action::ProposalCompleted {
                last_offset,
                result,
                ..
            } => {
                if result == ErrorCode::None {
                    self.metrics.committed(last_offset, now_ms());
                }
                if let Some(tx) = self.proposals.remove(&last_offset) {
                    let _ = tx.send(if result == ErrorCode::None {
                        Ok(last_offset)
                    } else {
                        Err(result)
                    });
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
