//! The [`Admin`] client: node selection, retries, and the admin calls.
//!
//! * `retry`: a call's deadline, the backoff between its attempts and
//!   which failures it retries;
//! * `connection`: the pool of negotiated connections and the node a call
//!   goes to;
//! * `discovery`: finding the active controller (bootstrap controllers);
//! * `negotiation`: the API versions agreed with the target node;
//! * the calls by area: `cluster` (DescribeCluster, UnregisterBroker,
//!   UnregisterController), `quorum` (DescribeQuorum), `voters`
//!   (AddRaftVoter, RemoveRaftVoter), `features` (DescribeFeatures,
//!   UpdateFeatures).

use std::collections::HashMap;
use std::sync::Arc;

use tokio::sync::Mutex;

use crate::config::{AdminConfig, HostPort};
use crate::connection::Connection;
use crate::error::Result;
use crate::types::ClusterNode;

mod cluster;
mod connection;
mod discovery;
mod features;
mod metadata_log;
pub use metadata_log::MetadataLogCopy;
mod negotiation;
mod quorum;
mod retry;
mod voters;

/// The metadata log's topic name.
pub const CLUSTER_METADATA_TOPIC: &str = "__cluster_metadata";

/// An async admin client for a KRaft metadata quorum, modelled on Kafka's
/// `Admin` (`KafkaAdminClient`).
///
/// * With [`Bootstrap::Controllers`] every call goes to the **active
///   controller**, learned from DescribeCluster (EndpointType 2) sent to the
///   bootstrap controllers; `NOT_CONTROLLER` (and `NOT_LEADER_OR_FOLLOWER`)
///   answers make the client forget it, rediscover and retry. A bootstrap
///   controller that cannot answer yet (unreachable, a retriable error, or
///   a restarted one without a loaded image) makes discovery ask the next
///   one; an error ends the call only when every controller that answered
///   refused for good.
/// * With [`Bootstrap::Servers`] calls go to a reachable bootstrap broker,
///   which forwards controller requests to the active controller.
///
/// Each connection negotiates API versions first and every request uses the
/// highest version both sides know. A call retries retriable failures
/// (connection errors, request timeouts, retriable error codes) with
/// exponential backoff (`retry.backoff.ms` doubling up to
/// `retry.backoff.max.ms`, ±20 % jitter) until its deadline (the call's
/// `timeout` option or `default.api.timeout.ms`); a single request waits at
/// most `request.timeout.ms`.
///
/// Cloning is cheap and clones share connections.
///
/// [`Bootstrap::Controllers`]: crate::Bootstrap::Controllers
/// [`Bootstrap::Servers`]: crate::Bootstrap::Servers
#[derive(Clone)]
pub struct Admin {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for Admin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Admin")
            .field("bootstrap", &self.inner.config.bootstrap)
            .finish_non_exhaustive()
    }
}

struct Inner {
    config: AdminConfig,
    connections: Mutex<HashMap<HostPort, Arc<Connection>>>,
    meta: std::sync::Mutex<MetaState>,
}

#[derive(Default)]
struct MetaState {
    /// Bootstrap controllers: the active controller (id, address).
    active: Option<(i32, HostPort)>,
    /// Bootstrap controllers: controllers from the last DescribeCluster.
    controllers: Vec<ClusterNode>,
    /// Index of the next bootstrap address to try.
    next_bootstrap: usize,
    /// Backoff jitter state.
    rng: u64,
}

impl Admin {
    /// A client for `config`, without any I/O yet (connections are opened by the first call).
    pub fn new(config: AdminConfig) -> Admin {
        let seed = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(0x9e37_79b9_7f4a_7c15)
            | 1;
        Admin {
            inner: Arc::new(Inner {
                config,
                connections: Mutex::new(HashMap::new()),
                meta: std::sync::Mutex::new(MetaState {
                    rng: seed,
                    ..Default::default()
                }),
            }),
        }
    }

    /// Creates a client and bootstraps it: with bootstrap controllers, finds
    /// the active controller (DescribeCluster, EndpointType 2); with bootstrap
    /// servers, connects to a broker. Retries until `default.api.timeout.ms`.
    pub async fn connect(config: AdminConfig) -> Result<Admin> {
        let admin = Admin::new(config);
        let mut retry = admin.retry("bootstrap", None);
        loop {
            let attempt = admin.target(&retry).await.map(|_| ());
            if let Some(done) = admin.next_step(&mut retry, attempt).await {
                return done.map(|()| admin);
            }
        }
    }

    /// The configuration.
    pub fn config(&self) -> &AdminConfig {
        &self.inner.config
    }

    /// Closes every connection.
    pub async fn close(&self) {
        self.inner.connections.lock().await.clear();
    }

    fn using_controllers(&self) -> bool {
        self.inner.config.bootstrap.is_controllers()
    }

    fn meta(&self) -> std::sync::MutexGuard<'_, MetaState> {
        self.inner
            .meta
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}
