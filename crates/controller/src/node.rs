//! A running controller node: the raft driver over the on-disk log, the
//! metadata image fed from committed records, the request server, and the
//! registration of this controller with the active controller.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use bytes::Bytes;
use kraft_protocol::messages::controller_registration_request::ControllerRegistrationRequest;
use kraft_protocol::messages::controller_registration_response::ControllerRegistrationResponse;
use kraft_protocol::{ApiKey, RequestBody, ResponseBody, Uuid};
use kraft_raft::{
    start_driver, Address, AppendCondition, ControlRecord, ControllerRegistrations, DiskLog,
    DriverOptions, DurableLog, ElectionState, Endpoint, Endpoints, FatalError, KRaftVersionRange,
    LogConfig, QuorumStateStore, RaftConfig, RaftEvent, RaftHandle, RaftStatus, Record, SnapshotId,
    Transport, VoterNode, VoterSet, BOOTSTRAP_SNAPSHOT_ID,
};
use tokio::sync::watch;

use crate::activation::{
    append_records, spawn_activation, spawn_no_op_writer, wait_until_applied, ActivationSettings,
    ActiveEpoch, BootstrapMetadata,
};
use crate::config::ControllerConfig;
use crate::format::MetaProperties;
use crate::handlers::{
    ApiError, AppendError, Controller, ControllerSettings, PendingCommit, QuorumFacts, QuorumVoter,
    RaftQuorum, ReplicaKey, VoterEndpoint,
};
use crate::image::{MetadataRecord, SharedImage};
use crate::metrics::{MetricsServer, NodeMetrics};
use crate::server::{ApiRange, CloseConnection, ControllerServer, RequestContext, ServerConfig};
use crate::snapshots::{SnapshotPolicy, SnapshotTrigger};

/// Why a node could not start.
#[derive(Debug, thiserror::Error)]
pub enum NodeError {
    /// The metadata log directory is not formatted or its identity is unusable.
    #[error("{0}")]
    Storage(String),
    /// The raft layer refused the configuration.
    #[error("raft: {0}")]
    Raft(String),
    /// The server could not bind its listeners.
    #[error("server: {0}")]
    Server(String),
}

/// Applies committed records and snapshots to the image, in log order,
/// publishes the last applied offset, triggers periodic snapshots and
/// publishes the driver's fatal error if it stops on one.
/// The bootstrap checkpoint (`0-0`) is not replayed: its records are kept
/// as the bootstrap metadata the first active controller appends (Kafka's
/// `handleLoadBootstrap`).
fn driver_apply_events(
    mut events: tokio::sync::mpsc::UnboundedReceiver<RaftEvent>,
    image: SharedImage,
    applied: watch::Sender<i64>,
    fatal: watch::Sender<Option<Arc<FatalError>>>,
    bootstrap: watch::Sender<Option<Arc<BootstrapMetadata>>>,
    log_dir: PathBuf,
    mut snapshots: SnapshotTrigger,
) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        while let Some(event) = events.recv().await {
            match event {
                RaftEvent::Committed(batches) => {
                    let mut last = None;
                    let mut kraft_version = None;
                    let mut data = Vec::new();
                    let mut bytes = 0u64;
                    for batch in batches {
                        bytes += batch.size_estimate() as u64;
                        for (i, record) in batch.records.into_iter().enumerate() {
                            let offset = batch.base_offset + i as i64;
                            match record {
                                Record::Data(bytes) => data.push((offset, bytes)),
                                Record::Control(ControlRecord::KRaftVersion(level)) => {
                                    kraft_version = Some(level)
                                }
                                Record::Control(_) => {}
                            }
                            last = Some(offset);
                        }
                    }
                    if let Err(e) = image.apply_committed(data) {
                        tracing::error!(error = %e, "cannot replay a committed metadata record");
                    }
                    image.update(|i| {
                        if let Some(level) = kraft_version {
                            i.set_kraft_version(level);
                        }
                        if let Some(last) = last {
                            i.set_last_offset(last);
                        }
                    });
                    if let Some(last) = last {
                        applied.send_replace(last);
                        snapshots.on_committed(bytes, last, &image.read());
                    }
                }
                RaftEvent::LoadSnapshot(id) if id == BOOTSTRAP_SNAPSHOT_ID => {
                    match load_snapshot_records(&log_dir, id) {
                        Ok((values, kraft_version)) => {
                            match values
                                .into_iter()
                                .map(MetadataRecord::decode)
                                .collect::<Result<Vec<_>, _>>()
                            {
                                Ok(records) => {
                                    tracing::info!(
                                        records = records.len(),
                                        "read the bootstrap metadata from the bootstrap checkpoint"
                                    );
                                    bootstrap.send_replace(Some(Arc::new(
                                        BootstrapMetadata::from_checkpoint(records),
                                    )));
                                }
                                Err(e) => {
                                    tracing::error!(error = %e, "cannot read the bootstrap checkpoint")
                                }
                            }
                            image.update(|i| i.set_kraft_version(kraft_version));
                            applied.send_replace(-1);
                        }
                        Err(e) => {
                            tracing::error!(error = %e, "cannot read the bootstrap checkpoint")
                        }
                    }
                }
                RaftEvent::LoadSnapshot(id) => match load_snapshot_records(&log_dir, id) {
                    Ok((records, kraft_version)) => {
                        let count = records.len();
                        if let Err(e) = image.load_snapshot(records, id.offset - 1, kraft_version) {
                            tracing::error!(error = %e, "cannot load snapshot");
                        }
                        tracing::info!(
                            offset = id.offset,
                            epoch = id.epoch,
                            records = count,
                            "loaded the image from a snapshot"
                        );
                        snapshots.on_snapshot_loaded(&image.read());
                        applied.send_replace(id.offset - 1);
                    }
                    Err(e) => tracing::error!(error = %e, "cannot read snapshot {id:?}"),
                },
                RaftEvent::LeaderChange(leader) => {
                    tracing::info!(leader = ?leader.leader_id, epoch = leader.epoch, "leader change");
                }
                // The driver logged it; the owner of the node decides.
                RaftEvent::Fatal(error) => {
                    fatal.send_replace(Some(Arc::new(error)));
                }
                // Events this controller does not act on.
                _ => {}
            }
        }
    })
}

/// Marks the image loaded once it holds everything committed up to the
/// first high watermark the raft layer learns after start-up (from the
/// leader's Fetch response, or as the leader from its own commit): the
/// latest snapshot and the local log below it, as the raft core delivers
/// them. Until then the handlers answer nothing from the image, so a
/// restarted controller never presents an empty or stale image as final.
/// A high watermark of 0 commits nothing (a new replica that has not
/// fetched yet) and is not a target.
fn mark_image_loaded(
    raft: RaftHandle,
    mut applied: watch::Receiver<i64>,
    image: SharedImage,
) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let mut status = raft.watch_status();
        let target = loop {
            let hw = status.borrow_and_update().high_watermark;
            if let Some(hw) = hw.filter(|hw| *hw > 0) {
                break hw;
            }
            tokio::select! {
                changed = status.changed() => if changed.is_err() { return },
                _ = tokio::time::sleep(Duration::from_millis(100)) => {}
            }
        };
        if applied.wait_for(|a| *a + 1 >= target).await.is_err() {
            return;
        }
        image.mark_loaded();
        tracing::info!(
            high_watermark = target,
            "the metadata image is loaded; serving requests that read it"
        );
    })
}

fn load_snapshot_records(
    log_dir: &std::path::Path,
    id: SnapshotId,
) -> Result<(Vec<Bytes>, i16), String> {
    // Read by name: opening a `SnapshotStore` here would delete the
    // temporary files of snapshots the driver is writing or downloading.
    let path = log_dir.join(kraft_raft::storage::snapshot_file_name(id));
    let bytes = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let contents =
        kraft_raft::storage::decode_snapshot(Bytes::from(bytes)).map_err(|e| e.to_string())?;
    Ok((
        contents.records,
        contents.control.kraft_version.unwrap_or(0),
    ))
}

/// The raft layer as the controller's handlers see it.
struct RaftBridge {
    handle: RaftHandle,
    image: SharedImage,
    applied: watch::Receiver<i64>,
    /// The epoch this node is the active controller of (after activation).
    active: ActiveEpoch,
    facts: Arc<Mutex<QuorumFacts>>,
}

fn quorum_voter(id: i32, dir: Option<Uuid>, eps: &Endpoints) -> QuorumVoter {
    QuorumVoter {
        key: ReplicaKey {
            id,
            directory_id: dir,
        },
        endpoints: eps
            .iter()
            .map(|e| VoterEndpoint {
                name: e.name.clone(),
                host: e.host.clone(),
                port: e.port,
            })
            .collect(),
    }
}

impl RaftBridge {
    /// Keeps the cached facts fresh: on every status change and periodically.
    fn spawn_refresher(&self) {
        let handle = self.handle.clone();
        let facts = self.facts.clone();
        let image = self.image.clone();
        let mut active = self.active.clone();
        tokio::spawn(async move {
            let mut status = handle.watch_status();
            loop {
                let Ok(inspection) = handle.inspect().await else {
                    return;
                };
                let s = &inspection.status;
                let activated = *active.borrow_and_update() == Some(s.leader.epoch);
                let new = QuorumFacts {
                    leader_id: s.leader.leader_id,
                    epoch: s.leader.epoch,
                    // A resigning leader takes no more writes: they are
                    // answered NOT_CONTROLLER without touching the write
                    // state.
                    is_active_controller: s.takes_records() && activated,
                    voters: inspection
                        .voters
                        .iter()
                        .map(|(id, dir, eps)| quorum_voter(*id, *dir, eps))
                        .collect(),
                    kraft_version: s.kraft_version.max(image.read().kraft_version()),
                };
                if let Ok(mut f) = facts.lock() {
                    *f = new;
                }
                tokio::select! {
                    changed = status.changed() => if changed.is_err() { return },
                    changed = active.changed() => if changed.is_err() { return },
                    _ = tokio::time::sleep(Duration::from_millis(200)) => {}
                }
            }
        });
    }
}

#[async_trait]
impl RaftQuorum for RaftBridge {
    fn facts(&self) -> QuorumFacts {
        self.facts.lock().map(|f| f.clone()).unwrap_or_default()
    }

    async fn append(
        &self,
        epoch: i32,
        base_offset: Option<i64>,
        records: Vec<MetadataRecord>,
    ) -> Result<PendingCommit, AppendError> {
        let status = self.handle.status();
        if !status.takes_records()
            || status.leader.epoch != epoch
            || *self.active.borrow() != Some(epoch)
        {
            return Err(AppendError::NotController {
                leader_id: status.leader.leader_id,
            });
        }
        let condition = AppendCondition {
            epoch: Some(epoch),
            base_offset,
        };
        // Resolved once the image has replayed the records.
        append_records(&self.handle, &self.applied, condition, &records).await
    }

    async fn wait_applied(&self, offset: i64) -> Result<(), AppendError> {
        wait_until_applied(&mut self.applied.clone(), offset).await
    }

    async fn latest_voter_ids(&self) -> Vec<i32> {
        match self.handle.inspect().await {
            Ok(inspection) => inspection.voters.iter().map(|(id, _, _)| *id).collect(),
            Err(_) => self.facts().voters.iter().map(|v| v.key.id).collect(),
        }
    }

    async fn upgrade_kraft_version(
        &self,
        epoch: i32,
        version: i16,
        validate_only: bool,
    ) -> Result<(), ApiError> {
        match self
            .handle
            .upgrade_kraft_version(epoch, version, validate_only)
            .await
        {
            Ok(Ok(_)) => Ok(()),
            Ok(Err(e)) => Err(ApiError::new(e.code, e.message)),
            Err(e) => Err(ApiError::new(
                kraft_protocol::ErrorCode::NotController,
                e.to_string(),
            )),
        }
    }

    fn raft_apis(&self) -> Vec<ApiRange> {
        [
            ApiKey::Vote,
            ApiKey::BeginQuorumEpoch,
            ApiKey::EndQuorumEpoch,
            ApiKey::Fetch,
            ApiKey::FetchSnapshot,
            ApiKey::DescribeQuorum,
            ApiKey::AddRaftVoter,
            ApiKey::RemoveRaftVoter,
            ApiKey::UpdateRaftVoter,
        ]
        .into_iter()
        .map(|k| {
            let (lo, hi) = k.versions();
            // Fetch: KRaft replication speaks the versions 4.4 peers use.
            ApiRange {
                api_key: k,
                min_version: lo,
                max_version: hi,
            }
        })
        .collect()
    }

    async fn handle_raft_request(
        &self,
        ctx: &RequestContext,
        request: RequestBody,
    ) -> Result<ResponseBody, CloseConnection> {
        self.handle
            .handle_request(request, ctx.api_version)
            .await
            .map_err(|e| CloseConnection(e.to_string()))
    }
}

impl ControllerRegistrations for SharedImage {
    fn registered_endpoints(&self, id: i32) -> Option<Endpoints> {
        let image = self.read();
        let registration = image.controller(id)?;
        Some(Endpoints::new(registration.endpoints.iter().map(|e| {
            Endpoint::new(e.name.clone(), e.host.clone(), e.port)
        })))
    }
}

/// A started controller node.
pub struct ControllerNode {
    server: ControllerServer,
    metrics: Option<MetricsServer>,
    raft: RaftHandle,
    image: SharedImage,
    fatal: watch::Receiver<Option<Arc<FatalError>>>,
    tasks: Vec<tokio::task::JoinHandle<()>>,
    /// How long a resigning leader waits at shutdown for another voter to
    /// lead: twice the election timeout (the hand-off waits at most one for
    /// a voter to fetch the whole log, then the election).
    handoff_wait: Duration,
}

fn raft_config(config: &ControllerConfig, meta: &MetaProperties) -> Result<RaftConfig, NodeError> {
    let cluster_id = meta
        .cluster_id
        .clone()
        .ok_or_else(|| NodeError::Storage("meta.properties has no cluster.id".into()))?;
    let directory_id = meta
        .directory_id
        .ok_or_else(|| NodeError::Storage("meta.properties has no directory.id".into()))?;
    let listeners = Endpoints::new(
        config
            .effective_advertised_controller_listeners()
            .into_iter()
            .map(|l| {
                Endpoint::new(
                    l.name.as_str(),
                    l.host.clone().unwrap_or_else(|| "localhost".to_string()),
                    l.port,
                )
            }),
    );
    let mut cfg = RaftConfig::new(
        config.node_id,
        directory_id,
        cluster_id,
        listeners,
        config.default_listener_name(),
    );
    let q = &config.quorum;
    cfg.auto_join = q.auto_join_enable;
    cfg.election_timeout_ms = i64::from(q.election_timeout_ms);
    cfg.fetch_timeout_ms = i64::from(q.fetch_timeout_ms);
    cfg.election_backoff_max_ms = i64::from(q.election_backoff_max_ms);
    cfg.request_timeout_ms = i64::from(q.request_timeout_ms);
    cfg.retry_backoff_ms = i64::from(q.retry_backoff_ms);
    cfg.fetch_max_bytes = q.fetch_max_bytes;
    cfg.fetch_snapshot_max_bytes = q.fetch_snapshot_max_bytes;
    cfg.supported_kraft_version = KRaftVersionRange { min: 0, max: 1 };
    cfg.bootstrap_servers = q
        .bootstrap_servers
        .iter()
        .map(|h| Address::new(h.host.as_str(), h.port))
        .collect();
    cfg.static_voters = VoterSet::new(q.voters.iter().map(|v| {
        VoterNode::new(
            ReplicaKey::without_directory(v.id),
            Endpoints::single(
                config.default_listener_name(),
                v.address.host.as_str(),
                v.address.port,
            ),
            // Kafka assumes 0-0 for `controller.quorum.voters` entries until
            // each voter reports its range with UpdateRaftVoter.
            KRaftVersionRange { min: 0, max: 0 },
        )
    }));
    Ok(cfg)
}

impl ControllerNode {
    /// Starts a controller from its configuration: the log directory must
    /// have been formatted (`kraft storage format`).
    pub async fn start(config: ControllerConfig) -> Result<ControllerNode, NodeError> {
        let dir = config.metadata_log_dir().to_path_buf();
        let meta = MetaProperties::read(&dir)
            .map_err(NodeError::Storage)?
            .ok_or_else(|| {
                NodeError::Storage(format!(
                    "{} is not formatted (no meta.properties); run `kraft storage format` first",
                    dir.display()
                ))
            })?;
        if meta.node_id != Some(config.node_id) {
            return Err(NodeError::Storage(format!(
                "node.id {} in the configuration does not match node.id {:?} in {}/meta.properties",
                config.node_id,
                meta.node_id,
                dir.display()
            )));
        }
        let cfg = raft_config(&config, &meta)?;
        let cluster_id = cfg.cluster_id.clone();
        let log_dir = dir.join("__cluster_metadata-0");
        std::fs::create_dir_all(&log_dir)
            .map_err(|e| NodeError::Storage(format!("{}: {e}", log_dir.display())))?;
        let log_config = LogConfig {
            segment_bytes: config.metadata_log.effective_segment_bytes() as u64,
            ..LogConfig::default()
        };
        let (log, report) = DiskLog::open(&log_dir, log_config)
            .map_err(|e| NodeError::Storage(format!("{}: {e}", log_dir.display())))?;
        if report.truncated_tail.is_some() {
            tracing::warn!(?report, "recovered the metadata log");
        }
        let store = QuorumStateStore::new(&log_dir);
        let persisted = store
            .read_election_state()
            .map_err(|e| NodeError::Storage(format!("quorum-state: {e}")))?;
        Self::start_with_log(config, cluster_id, cfg, log, persisted, store, log_dir).await
    }

    async fn start_with_log<L: DurableLog>(
        config: ControllerConfig,
        cluster_id: String,
        cfg: RaftConfig,
        log: L,
        persisted: Option<ElectionState>,
        store: QuorumStateStore,
        log_dir: PathBuf,
    ) -> Result<ControllerNode, NodeError> {
        let node_id = config.node_id;
        let handoff_wait =
            Duration::from_millis(u64::try_from(cfg.election_timeout_ms).unwrap_or(0))
                .saturating_mul(2);
        let options = DriverOptions::new(format!("raft-client-{node_id}"));
        let (raft, events) = start_driver(cfg, log, persisted, store, options)
            .map_err(|e| NodeError::Raft(e.to_string()))?;
        // Not loaded until the committed snapshot and log are replayed.
        let image = SharedImage::unloaded();
        raft.set_controller_registrations(Arc::new(image.clone()));
        let (applied_tx, applied_rx) = watch::channel(-1i64);
        let (fatal_tx, fatal_rx) = watch::channel(None);
        let (bootstrap_tx, bootstrap_rx) = watch::channel(None);
        let (active_tx, active_rx) = watch::channel(None);
        let (trigger, snapshot_task) = SnapshotTrigger::start(
            SnapshotPolicy::from_config(&config.metadata_log),
            raft.clone(),
        );
        let node_metrics = NodeMetrics::new(
            raft.clone(),
            image.clone(),
            applied_rx.clone(),
            active_rx.clone(),
            trigger.log_hold(),
        );
        let mut tasks = vec![
            driver_apply_events(
                events,
                image.clone(),
                applied_tx,
                fatal_tx,
                bootstrap_tx,
                log_dir,
                trigger,
            ),
            snapshot_task,
            mark_image_loaded(raft.clone(), applied_rx.clone(), image.clone()),
            spawn_activation(
                raft.clone(),
                applied_rx.clone(),
                image.clone(),
                bootstrap_rx,
                ActivationSettings::from_config(&config),
                active_tx,
            ),
        ];
        if let Some(interval) = ActivationSettings::from_config(&config).max_idle_interval {
            tasks.push(spawn_no_op_writer(
                raft.clone(),
                active_rx.clone(),
                interval,
            ));
        }
        let bridge = RaftBridge {
            handle: raft.clone(),
            image: image.clone(),
            applied: applied_rx,
            active: active_rx,
            facts: Arc::new(Mutex::new(QuorumFacts::default())),
        };
        bridge.spawn_refresher();
        let quorum: Arc<dyn RaftQuorum> = Arc::new(bridge);
        let controller = Arc::new(Controller::new(
            ControllerSettings::from_config(&config, cluster_id),
            image.clone(),
            quorum.clone(),
        ));
        let server = ControllerServer::start(
            ServerConfig::from_controller_config(&config),
            controller.clone(),
        )
        .await
        .map_err(|e| NodeError::Server(e.to_string()))?;
        let metrics = match &config.metrics_listener {
            Some(address) => Some(
                MetricsServer::start(address, Arc::new(node_metrics))
                    .await
                    .map_err(|e| NodeError::Server(e.to_string()))?,
            ),
            None => None,
        };
        let endpoints = config
            .effective_advertised_controller_listeners()
            .into_iter()
            .map(|l| {
                (
                    l.name.clone(),
                    l.host.clone().unwrap_or_else(|| "localhost".to_string()),
                    l.port,
                    l.security_protocol,
                )
            })
            .collect();
        let listener = config.default_listener_name().to_string();
        tasks.push(spawn_session_checker(controller.clone()));
        if let Some(period) = controller.leader_imbalance_check_interval() {
            tasks.push(spawn_election_task(
                controller.clone(),
                period,
                Election::Preferred,
            ));
        }
        tasks.push(spawn_election_task(
            controller.clone(),
            controller.unclean_election_check_interval(),
            Election::Unclean,
        ));
        tasks.push(spawn_registration(
            controller,
            quorum,
            image.clone(),
            node_id,
            listener,
            endpoints,
        ));
        Ok(ControllerNode {
            server,
            metrics,
            raft,
            image,
            fatal: fatal_rx,
            tasks,
            handoff_wait,
        })
    }

    /// The bound address of a listener.
    pub fn local_addr(&self, listener: &str) -> Option<std::net::SocketAddr> {
        self.server.local_addr(listener)
    }

    /// The bound address of the metrics listener, when
    /// `kraft.metrics.listener` is set.
    pub fn metrics_addr(&self) -> Option<std::net::SocketAddr> {
        self.metrics.as_ref().map(MetricsServer::local_addr)
    }

    /// The raft handle.
    pub fn raft(&self) -> &RaftHandle {
        &self.raft
    }

    /// The metadata image this node applies committed records to.
    pub fn image(&self) -> &SharedImage {
        &self.image
    }

    /// Resolves when the raft layer stopped on a storage failure (a failed
    /// fsync of the metadata log or write of `quorum-state`); never
    /// otherwise. The node then answers nothing that needs the quorum: the
    /// process should shut it down and exit with an error.
    pub async fn fatal_error(&self) -> Arc<FatalError> {
        let mut fatal = self.fatal.clone();
        if let Ok(error) = fatal.wait_for(Option::is_some).await {
            if let Some(error) = error.as_ref() {
                return error.clone();
            }
        }
        std::future::pending().await
    }

    /// Resigns leadership if held (unless storage failed), stops serving,
    /// flushes the log.
    ///
    /// As Kafka's graceful shutdown, a resigning leader of a quorum with
    /// other voters keeps running until another voter leads (here at most
    /// twice the election timeout; Kafka waits up to 5 s): its successor
    /// needs its pre-vote to win at once.
    pub async fn shutdown(self) {
        let failed = self.fatal.borrow().is_some();
        let status = self.raft.status();
        if status.is_leader && !failed {
            let others = match self.raft.inspect().await {
                Ok(i) => i
                    .voters
                    .iter()
                    .any(|(id, _, _)| Some(*id) != status.node_id),
                Err(_) => false,
            };
            let mut watch = self.raft.watch_status();
            match self.raft.resign().await {
                Err(e) => tracing::warn!(error = %e, "resign failed"),
                Ok(()) if others => {
                    let epoch = status.leader.epoch;
                    let handed_off = |s: &RaftStatus| {
                        s.leader.epoch > epoch
                            && s.leader.leader_id.is_some_and(|id| Some(id) != s.node_id)
                    };
                    let waited =
                        tokio::time::timeout(self.handoff_wait, watch.wait_for(handed_off)).await;
                    match waited {
                        Ok(Ok(s)) => tracing::info!(
                            leader = ?s.leader.leader_id,
                            epoch = s.leader.epoch,
                            "leadership handed off"
                        ),
                        _ => tracing::warn!("no other voter took over leadership in time"),
                    }
                }
                Ok(()) => {}
            }
        }
        self.server.shutdown().await;
        if let Some(metrics) = self.metrics {
            metrics.shutdown().await;
        }
        self.raft.shutdown().await;
        for t in self.tasks {
            t.abort();
        }
    }
}

/// Fences brokers whose session expired, while this node is the active
/// controller: just after the first session expires, and at least every
/// eighth of the session timeout.
fn spawn_session_checker(controller: Arc<Controller>) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        loop {
            let now = std::time::Instant::now();
            let wait = controller
                .next_session_check(now)
                .saturating_duration_since(now)
                .max(Duration::from_millis(1));
            tokio::time::sleep(wait).await;
            controller.fence_stale_brokers().await;
        }
    })
}

/// Which periodic election a task runs.
#[derive(Debug, Clone, Copy)]
enum Election {
    /// Leadership back to preferred replicas (`leader.imbalance.check.interval.seconds`).
    Preferred,
    /// Leaders for leaderless partitions of topics with unclean election on.
    Unclean,
}

/// Runs one periodic election every `period` while this node is the
/// active controller, again after 10 ms while a round left work (Kafka's
/// cadence).
fn spawn_election_task(
    controller: Arc<Controller>,
    period: Duration,
    election: Election,
) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let mut delay = period;
        loop {
            tokio::time::sleep(delay).await;
            let more = match election {
                Election::Preferred => controller.balance_partition_leaders().await,
                Election::Unclean => controller.elect_unclean_leaders().await,
            };
            delay = Controller::periodic_election_delay(more, period);
        }
    })
}

/// Registers this controller with the active controller, and again whenever
/// its registration disappears from the image (KIP-1312's safety net).
fn spawn_registration(
    controller: Arc<Controller>,
    quorum: Arc<dyn RaftQuorum>,
    image: SharedImage,
    node_id: i32,
    listener: String,
    endpoints: Vec<(String, String, u16, crate::config::SecurityProtocol)>,
) -> tokio::task::JoinHandle<()> {
    let incarnation = Uuid::new_v4();
    let transport = Transport::new("controller-registration".into(), Duration::from_secs(5));
    tokio::spawn(async move {
        let mut backoff = Duration::from_millis(200);
        loop {
            tokio::time::sleep(backoff).await;
            let registered = image
                .read()
                .controller(node_id)
                .is_some_and(|r| r.incarnation_id == incarnation);
            if registered {
                backoff = Duration::from_millis(500);
                continue;
            }
            let facts = quorum.facts();
            let Some(leader) = facts.leader_id else {
                continue;
            };
            let Some(voter) = facts.voters.iter().find(|v| v.key.id == leader) else {
                continue;
            };
            let Some(ep) = voter.endpoints.iter().find(|e| e.name == listener) else {
                continue;
            };
            let request = controller.registration_request(incarnation, &endpoints);
            let address = Address::new(ep.host.as_str(), ep.port);
            match send_registration(&transport, &address, request).await {
                Ok(r) if r.error_code == 0 => {
                    tracing::info!(leader, "registered with the active controller");
                    backoff = Duration::from_millis(500);
                }
                Ok(r) => {
                    tracing::debug!(code = r.error_code, "registration refused; retrying");
                    backoff = Duration::from_millis(1000);
                }
                Err(e) => {
                    tracing::debug!(error = %e, "registration failed; retrying");
                    backoff = Duration::from_millis(1000);
                }
            }
        }
    })
}

async fn send_registration(
    transport: &Transport,
    address: &Address,
    request: ControllerRegistrationRequest,
) -> Result<ControllerRegistrationResponse, String> {
    let response = transport
        .send_wire(address, ApiKey::ControllerRegistration, |_| {
            RequestBody::ControllerRegistration(request)
        })
        .await?;
    match response {
        ResponseBody::ControllerRegistration(r) => Ok(r),
        other => Err(format!("unexpected answer {:?}", other.api_key())),
    }
}
