//! The tokio driver: runs a [`RaftCore`] on a task, executes its actions
//! (durable election state, log flushes, outbound requests over real Kafka
//! frames, responses, commit notifications) and offers an async API to the
//! layer above.
//!
//! One task owns the core and the log; everything else talks to it through
//! channels, so the core stays single-threaded and deterministic.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use bytes::Bytes;
use kraft_protocol::{ApiKey, RequestBody, ResponseBody};
use tokio::sync::{mpsc, oneshot, watch};

use crate::core::log::SnapshotControl;
use crate::core::memlog::MemoryLog;
use crate::core::message::{self as m, Api};
use crate::core::record::Batch;
use crate::core::rng::SplitMix64;
use crate::core::types::{Endpoints, LeaderAndEpoch, NodeId, SnapshotId};
use crate::core::{
    Action, ElectionState, ErrorCode, RaftConfig, RaftCore, RaftError, RaftLog, UpgradeError,
};
use crate::disk_log::Retention;
use crate::storage::QuorumStateStore;
use crate::transport::{Transport, TransportResult};
use crate::wire;

/// Milliseconds since the Unix epoch (the clock Kafka's timestamps use).
pub fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

/// A log the driver can make durable.
pub trait DurableLog: RaftLog + Send + 'static {
    /// Makes the log durable at least up to `up_to` (exclusive) and returns
    /// the durable end offset.
    fn flush_to(&mut self, up_to: i64) -> Result<i64, String>;

    /// Writes a snapshot of the committed log prefix ending at `end_offset`
    /// made of `control` and the state machine's `records` (see
    /// [`DiskLog::create_snapshot`](crate::disk_log::DiskLog::create_snapshot)).
    /// Returns `None` when `end_offset` is not a batch end above the log
    /// start. Logs that cannot hold state-machine snapshots refuse.
    fn create_snapshot(
        &mut self,
        end_offset: i64,
        control: &SnapshotControl,
        records: Vec<Bytes>,
    ) -> Result<Option<SnapshotId>, String> {
        let _ = (end_offset, control, records);
        Err("this log does not take snapshots".to_string())
    }

    /// Applies the retention policy (see
    /// [`DiskLog::maybe_clean`](crate::disk_log::DiskLog::maybe_clean));
    /// returns whether anything was deleted. Does nothing by default.
    fn maybe_clean(&mut self, retention: Retention, now_ms: i64) -> Result<bool, String> {
        let _ = (retention, now_ms);
        Ok(false)
    }
}

impl DurableLog for MemoryLog {
    fn flush_to(&mut self, _up_to: i64) -> Result<i64, String> {
        let ticket = self.issue_flush();
        self.complete_flush(ticket);
        Ok(self.durable_end())
    }
}

/// Where the election state is kept.
pub trait ElectionStore: Send + 'static {
    /// Durably replaces the election state.
    fn persist(
        &mut self,
        state: &ElectionState,
        kraft_version: i16,
        voters: &[NodeId],
    ) -> Result<(), String>;
}

impl ElectionStore for QuorumStateStore {
    fn persist(
        &mut self,
        state: &ElectionState,
        kraft_version: i16,
        voters: &[NodeId],
    ) -> Result<(), String> {
        self.write_election_state(state, kraft_version, voters)
            .map_err(|e| e.to_string())
    }
}

/// An election store that keeps nothing (tests of the driver itself).
#[derive(Debug, Default)]
pub struct NoElectionStore;

impl ElectionStore for NoElectionStore {
    fn persist(&mut self, _: &ElectionState, _: i16, _: &[NodeId]) -> Result<(), String> {
        Ok(())
    }
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
#[derive(Debug, Clone, PartialEq)]
pub enum RaftEvent {
    /// Batches newly committed, in order.
    Committed(Vec<Batch>),
    /// Reload state from this snapshot before applying later batches.
    LoadSnapshot(SnapshotId),
    /// The leader or epoch changed.
    LeaderChange(LeaderAndEpoch),
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
    /// Whether this replica is a voter.
    pub is_voter: bool,
    /// `kraft.version` in effect.
    pub kraft_version: i16,
}

/// Why a driver call failed.
#[derive(Debug, thiserror::Error, Clone, PartialEq)]
pub enum DriverError {
    /// The driver task has stopped.
    #[error("the raft driver has stopped")]
    Stopped,
    /// The core refused the call.
    #[error("{0}")]
    Raft(String),
    /// The proposal was not committed (leadership lost).
    #[error("proposal failed: {0:?}")]
    NotCommitted(ErrorCode),
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
        reply: oneshot::Sender<Result<oneshot::Receiver<Result<i64, ErrorCode>>, DriverError>>,
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
    pub voters: Vec<(NodeId, Option<uuid::Uuid>, crate::core::types::Endpoints)>,
    /// Status.
    pub status: RaftStatus,
}

/// A cheap handle to a running raft driver.
#[derive(Clone)]
pub struct RaftHandle {
    commands: mpsc::UnboundedSender<Command>,
    status: watch::Receiver<RaftStatus>,
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
        let committed = self
            .call(|reply| Command::Propose { records, reply })
            .await??;
        match committed.await {
            Ok(Ok(offset)) => Ok(offset),
            Ok(Err(code)) => Err(DriverError::NotCommitted(code)),
            Err(_) => Err(DriverError::Stopped),
        }
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
}

/// Starts a driver for `core` and returns its handle and the event stream.
pub fn start<L: DurableLog, S: ElectionStore>(
    cfg: RaftConfig,
    log: L,
    persisted: Option<ElectionState>,
    store: S,
    client_id: String,
) -> Result<(RaftHandle, mpsc::UnboundedReceiver<RaftEvent>), RaftError> {
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
    let (commands_tx, commands_rx) = mpsc::unbounded_channel();
    let (events_tx, events_rx) = mpsc::unbounded_channel();
    let (outcomes_tx, outcomes_rx) = mpsc::unbounded_channel();
    let status = status_of(&core);
    let (status_tx, status_rx) = watch::channel(status);
    let driver = Driver {
        core,
        store,
        transport: Transport::new(client_id, request_timeout + fetch_wait),
        cluster_id,
        inbound_next: 1,
        inbound: HashMap::new(),
        proposals: HashMap::new(),
        events: events_tx,
        status: status_tx,
        outcomes_tx,
        registrations: None,
    };
    tokio::spawn(driver.run(commands_rx, outcomes_rx));
    Ok((
        RaftHandle {
            commands: commands_tx,
            status: status_rx,
        },
        events_rx,
    ))
}

fn status_of<L: RaftLog>(core: &RaftCore<L>) -> RaftStatus {
    RaftStatus {
        node_id: core.config().node_id,
        leader: LeaderAndEpoch {
            leader_id: core.leader(),
            epoch: core.epoch(),
        },
        high_watermark: core.high_watermark(),
        is_leader: core.config().node_id.is_some() && core.leader() == core.config().node_id,
        is_voter: core.is_voter(),
        kraft_version: core.kraft_version(),
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
    async fn run(
        mut self,
        mut commands: mpsc::UnboundedReceiver<Command>,
        mut outcomes: mpsc::UnboundedReceiver<Outcome>,
    ) {
        self.execute_actions();
        loop {
            let deadline = self.core.next_deadline();
            let wait = (deadline - now_ms()).clamp(0, 60_000) as u64;
            tokio::select! {
                command = commands.recv() => {
                    let Some(command) = command else { break };
                    if let Some(reply) = self.handle_command(command) {
                        self.shutdown_flush();
                        let _ = reply.send(());
                        break;
                    }
                }
                Some(outcome) = outcomes.recv() => self.handle_outcome(outcome),
                _ = tokio::time::sleep(Duration::from_millis(wait)) => {
                    self.core.tick(now_ms());
                }
            }
            self.execute_actions();
        }
        tracing::info!("raft driver stopped");
    }

    fn shutdown_flush(&mut self) {
        let end = self.core.log().end_offset();
        if let Err(e) = self.core.log_mut().flush_to(end) {
            tracing::error!(error = %e, "flush at shutdown failed");
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
            Command::Propose { records, reply } => {
                let result = self
                    .core
                    .propose(records, now)
                    .map_err(|e| DriverError::Raft(e.to_string()));
                let _ = reply.send(result.map(|last| {
                    let (tx, rx) = oneshot::channel();
                    self.proposals.insert(last, tx);
                    rx
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
                let result = self
                    .core
                    .resign(epoch, now)
                    .map_err(|e| DriverError::Raft(e.to_string()));
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
                    .map_err(DriverError::Raft);
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
            return Err(DriverError::Raft(format!(
                "cannot snapshot up to offset {end_offset} above the high watermark {hw}"
            )));
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
            .map_err(DriverError::Raft)
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

    fn execute_actions(&mut self) {
        loop {
            let actions = self.core.take_actions();
            if actions.is_empty() {
                break;
            }
            for action in actions {
                self.execute(action);
            }
        }
        let status = status_of(&self.core);
        self.status.send_if_modified(|s| {
            if *s == status {
                false
            } else {
                *s = status;
                true
            }
        });
    }

    fn execute(&mut self, action: Action) {
        match action {
            Action::PersistElectionState {
                state,
                kraft_version,
            } => {
                let voters: Vec<NodeId> = self.core.voters().ids().collect();
                if let Err(e) = self.store.persist(&state, kraft_version, &voters) {
                    // Continuing could vote twice in one epoch after a restart.
                    tracing::error!(error = %e, "cannot persist quorum-state; stopping the process");
                    std::process::exit(1);
                }
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
                    return;
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
            Action::Flush { up_to } => match self.core.log_mut().flush_to(up_to) {
                Ok(_durable) => self.core.flushed(up_to, now_ms()),
                Err(e) => {
                    tracing::error!(error = %e, "log flush failed; stopping the process");
                    std::process::exit(1);
                }
            },
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
                if let Some(tx) = self.proposals.remove(&last_offset) {
                    let _ = tx.send(if result == ErrorCode::None {
                        Ok(last_offset)
                    } else {
                        Err(result)
                    });
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::types::{Endpoints, KRaftVersionRange, ReplicaKey};
    use crate::core::voters::{VoterNode, VoterSet};
    use kraft_protocol::frame::{encode_frame_with, FrameDecoder};
    use kraft_protocol::header::{decode_request, encode_response_frame};
    use kraft_protocol::messages::api_versions_response::{
        ApiVersion, ApiVersionsResponse, SupportedFeatureKey,
    };
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    use tokio::net::TcpListener;

    /// A minimal KRaft listener for driver tests: answers ApiVersions itself
    /// and hands every other request to the driver.
    async fn serve(listener: TcpListener, handle: RaftHandle) {
        loop {
            let Ok((mut stream, _)) = listener.accept().await else {
                return;
            };
            let handle = handle.clone();
            tokio::spawn(async move {
                let mut decoder = FrameDecoder::new(1 << 24);
                let mut buf = BytesMut::new();
                loop {
                    let frame = match decoder.decode(&mut buf) {
                        Ok(Some(f)) => f,
                        Ok(None) => {
                            if stream.read_buf(&mut buf).await.unwrap_or(0) == 0 {
                                return;
                            }
                            continue;
                        }
                        Err(_) => return,
                    };
                    let Ok(req) = decode_request(frame) else {
                        return;
                    };
                    let version = req.header.request_api_version;
                    let api = req.body.api_key();
                    let body = if api == ApiKey::ApiVersions {
                        ResponseBody::ApiVersions(ApiVersionsResponse {
                            api_keys: ApiKey::ALL
                                .iter()
                                .map(|k| ApiVersion {
                                    api_key: k.id(),
                                    min_version: k.versions().0,
                                    max_version: k.versions().1,
                                    ..Default::default()
                                })
                                .collect(),
                            supported_features: vec![SupportedFeatureKey {
                                name: "kraft.version".into(),
                                min_version: 0,
                                max_version: 1,
                                ..Default::default()
                            }]
                            .into(),
                            ..Default::default()
                        })
                    } else {
                        match handle.handle_request(req.body, version).await {
                            Ok(b) => b,
                            Err(_) => return,
                        }
                    };
                    let mut out = BytesMut::new();
                    let written = encode_frame_with(&mut out, |b| {
                        encode_response_frame_body(
                            b,
                            api,
                            version,
                            req.header.correlation_id,
                            &body,
                        )
                    });
                    if written.is_err() || stream.write_all(&out).await.is_err() {
                        return;
                    }
                }
            });
        }
    }

    fn encode_response_frame_body(
        b: &mut BytesMut,
        api: ApiKey,
        version: i16,
        correlation: i32,
        body: &ResponseBody,
    ) -> Result<(), kraft_protocol::EncodeError> {
        let mut framed = Vec::new();
        encode_response_frame(&mut framed, api, version, correlation, body)?;
        b.extend_from_slice(&framed[4..]);
        Ok(())
    }

    use bytes::BytesMut;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn three_drivers_elect_a_leader_and_commit_over_tcp() {
        let mut listeners = Vec::new();
        for _ in 0..3 {
            listeners.push(TcpListener::bind("127.0.0.1:0").await.expect("bind"));
        }
        let ports: Vec<u16> = listeners
            .iter()
            .map(|l| l.local_addr().expect("addr").port())
            .collect();
        let voters = VoterSet::new((0..3).map(|i| {
            VoterNode::new(
                ReplicaKey::without_directory(i + 1),
                Endpoints::single("CONTROLLER", "127.0.0.1", ports[i as usize]),
                KRaftVersionRange { min: 0, max: 1 },
            )
        }));
        let mut handles = Vec::new();
        let mut events = Vec::new();
        for (i, listener) in listeners.into_iter().enumerate() {
            let id = i as i32 + 1;
            let mut cfg = RaftConfig::new(
                id,
                uuid::Uuid::nil(),
                "test-cluster-id-0000000",
                Endpoints::single("CONTROLLER", "127.0.0.1", ports[i]),
                "CONTROLLER",
            );
            cfg.static_voters = voters.clone();
            let (handle, ev) = start(
                cfg,
                MemoryLog::new(),
                None,
                NoElectionStore,
                format!("raft-{id}"),
            )
            .expect("driver starts");
            tokio::spawn(serve(listener, handle.clone()));
            handles.push(handle);
            events.push(ev);
        }
        // A leader is elected within a few election timeouts.
        let leader = tokio::time::timeout(Duration::from_secs(20), async {
            loop {
                if let Some(h) = handles.iter().find(|h| h.status().is_leader) {
                    return h.clone();
                }
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        })
        .await
        .expect("a leader is elected");
        let offset = tokio::time::timeout(
            Duration::from_secs(10),
            leader.propose(vec![
                Bytes::from_static(b"hello"),
                Bytes::from_static(b"world"),
            ]),
        )
        .await
        .expect("commits in time")
        .expect("proposal commits");
        assert!(offset >= 1);
        // Every replica delivers the records, in order.
        for ev in events.iter_mut() {
            let seen = tokio::time::timeout(Duration::from_secs(10), async {
                let mut data = Vec::new();
                while let Some(e) = ev.recv().await {
                    if let RaftEvent::Committed(batches) = e {
                        for b in batches {
                            for r in b.records {
                                if let crate::core::record::Record::Data(d) = r {
                                    data.push(d);
                                }
                            }
                        }
                    }
                    if data.len() >= 2 {
                        return data;
                    }
                }
                data
            })
            .await
            .expect("replica commits in time");
            assert_eq!(
                seen,
                vec![Bytes::from_static(b"hello"), Bytes::from_static(b"world")]
            );
        }
        let describe = leader.describe_quorum().await.expect("describe");
        assert_eq!(describe.current_voters.len(), 3);
        for h in &handles {
            h.shutdown().await;
        }
    }
}
