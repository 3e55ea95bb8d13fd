//! A running controller node: start-up and shutdown. It wires the raft
//! driver over the on-disk log, the loader that feeds the metadata image
//! (`loader`), the controller and its request server, activation, the
//! periodic tasks (`periodic`) and the registration manager.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use kraft_raft::{
    start_driver, Address, DiskLog, DriverOptions, DurableLog, ElectionState, Endpoint, Endpoints,
    KRaftVersionRange, LogConfig, QuorumStateStore, RaftConfig, RaftHandle, RaftStatus, VoterNode,
    VoterSet,
};
use tokio::sync::watch;

use crate::activation::{spawn_activation, ActivationSettings};
use crate::bridge::RaftBridge;
use crate::config::ControllerConfig;
use crate::format::MetaProperties;
use crate::handlers::{
    Controller, ControllerSettings, QuorumFacts, RaftQuorum, ReplicaKey, WriteStats,
};
use crate::image::SharedImage;
use crate::loader::{mark_image_loaded, spawn_loader, LoaderOutputs};
pub use crate::loader::{LoadError, NodeFailure};
use crate::metrics::{MetricsServer, NodeMetrics};
use crate::periodic::{
    spawn_no_op_writer, spawn_performance_reporter, spawn_periodic_task, spawn_session_checker,
    Task,
};
use crate::registration_manager::spawn_registration;
use crate::server::{ControllerServer, ServerConfig};
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

/// A started controller node.
pub struct ControllerNode {
    server: ControllerServer,
    metrics: Option<MetricsServer>,
    raft: RaftHandle,
    image: SharedImage,
    controller: Arc<Controller>,
    fatal: watch::Receiver<Option<Arc<NodeFailure>>>,
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
        let client_security = config
            .transport
            .client_security()
            .map_err(|e| NodeError::Server(e.to_string()))?;
        let options = DriverOptions::new(format!("raft-client-{node_id}"))
            .with_security(client_security.clone());
        // The raft layer hands snapshots and records to the loader only once
        // it knows what is committed, which takes a leader: SCRAM logins
        // among the controllers need credentials before, read from the
        // local snapshot and log (see `crate::credentials`).
        let local_scram = if config.transport.serves_scram() {
            crate::loader::read_local_scram(&log_dir, &log)
        } else {
            crate::image::ScramImage::default()
        };
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
        let stats = trigger.stats();
        let node_metrics = NodeMetrics::new(
            raft.clone(),
            image.clone(),
            applied_rx.clone(),
            active_rx.clone(),
            trigger.log_hold(),
        )
        .with_kafka(
            stats.clone(),
            config.metrics_naming,
            !config.quorum.voters.is_empty(),
        );
        let mut tasks = vec![
            spawn_loader(
                events,
                image.clone(),
                LoaderOutputs {
                    applied: applied_tx,
                    failure: fatal_tx,
                    bootstrap: bootstrap_tx,
                    stats: stats.clone(),
                },
                active_rx.clone(),
                log_dir,
                trigger,
            ),
            snapshot_task,
            mark_image_loaded(raft.clone(), applied_rx.clone(), image.clone()),
        ];
        let bridge = RaftBridge {
            handle: raft.clone(),
            image: image.clone(),
            applied: applied_rx.clone(),
            active: active_rx.clone(),
            facts: Arc::new(Mutex::new(QuorumFacts::default())),
        };
        bridge.spawn_refresher();
        let quorum: Arc<dyn RaftQuorum> = Arc::new(bridge);
        let controller = Arc::new(
            Controller::new(
                ControllerSettings::from_config(&config, cluster_id),
                image.clone(),
                quorum.clone(),
            )
            .with_stats(stats),
        );
        let activation = ActivationSettings::from_config(&config);
        tasks.push(spawn_activation(
            raft.clone(),
            applied_rx,
            controller.clone(),
            bootstrap_rx,
            activation,
            active_tx,
        ));
        tasks.push(spawn_performance_reporter(
            controller.clone(),
            active_rx.clone(),
        ));
        if let Some(interval) = activation.max_idle_interval {
            tasks.push(spawn_no_op_writer(
                controller.clone(),
                active_rx.clone(),
                interval,
            ));
        }
        let credentials = Arc::new(
            crate::credentials::ImageCredentials::new(
                image.clone(),
                config.security.delegation_tokens.secret_key.clone(),
            )
            .with_local(local_scram),
        );
        let server = ControllerServer::start(
            ServerConfig::from_controller_config(&config)
                .with_credentials(credentials)
                .with_ip_connection_rates(image.clone()),
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
            tasks.push(spawn_periodic_task(
                controller.clone(),
                period,
                Task::PreferredElection,
            ));
        }
        tasks.push(spawn_periodic_task(
            controller.clone(),
            controller.unclean_election_check_interval(),
            Task::UncleanElection,
        ));
        tasks.push(spawn_periodic_task(
            controller.clone(),
            controller.token_expiry_check_interval(),
            Task::ExpireDelegationTokens,
        ));
        tasks.push(spawn_registration(
            controller.clone(),
            quorum,
            image.clone(),
            node_id,
            listener,
            endpoints,
            client_security,
        ));
        Ok(ControllerNode {
            server,
            metrics,
            raft,
            image,
            controller,
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

    /// What the controller's writer has done since start-up.
    pub fn write_stats(&self) -> WriteStats {
        self.controller.write_stats()
    }

    /// Resolves when the node stopped on its own; never otherwise: the raft
    /// layer failed on storage (a failed fsync of the metadata log or write
    /// of `quorum-state`), or a committed record or a snapshot could not be
    /// applied to the image ([`NodeFailure`]). The node then applies and
    /// answers nothing that needs the quorum: the process should shut it
    /// down and exit with an error.
    pub async fn fatal_error(&self) -> Arc<NodeFailure> {
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

#[cfg(test)]
#[path = "node_tests.rs"]
mod tests;
