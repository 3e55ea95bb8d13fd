//! Configuration of one KRaft replica (`controller.quorum.*` and identity).

use super::types::{Address, Endpoints, KRaftVersionRange, NodeId, Uuid};
use super::voters::VoterSet;

/// Static configuration of a [`super::RaftCore`].
#[derive(Clone, Debug)]
pub struct RaftConfig {
    /// `node.id`; `None` for replicas without an id (they only observe).
    pub node_id: Option<NodeId>,
    /// `directory.id` of the metadata log directory.
    pub directory_id: Uuid,
    /// The cluster id every KRaft RPC is checked against.
    pub cluster_id: String,
    /// The local controller listeners (advertised), used as voter endpoints.
    pub listeners: Endpoints,
    /// The default controller listener name (first of
    /// `controller.listener.names`): all KRaft traffic uses it.
    pub default_listener: String,
    /// Supported `kraft.version` range of this node (0-1 for 4.4).
    pub supported_kraft_version: KRaftVersionRange,
    /// `process.roles` contains `controller`.
    pub can_become_voter: bool,
    /// `controller.quorum.auto.join.enable`.
    pub auto_join: bool,
    /// Static voters (`controller.quorum.voters`), empty for dynamic quorums.
    pub static_voters: VoterSet,
    /// `controller.quorum.bootstrap.servers` (used when `static_voters` is empty).
    pub bootstrap_servers: Vec<Address>,
    /// `controller.quorum.election.timeout.ms`.
    pub election_timeout_ms: i64,
    /// `controller.quorum.fetch.timeout.ms`.
    pub fetch_timeout_ms: i64,
    /// `controller.quorum.election.backoff.max.ms`.
    pub election_backoff_max_ms: i64,
    /// `controller.quorum.request.timeout.ms`.
    pub request_timeout_ms: i64,
    /// `controller.quorum.retry.backoff.ms`.
    pub retry_backoff_ms: i64,
    /// Fetch `MaxWaitMs` (fixed at 500 in Kafka).
    pub fetch_max_wait_ms: i32,
    /// `controller.quorum.fetch.max.bytes`.
    pub fetch_max_bytes: i32,
    /// `controller.quorum.fetch.snapshot.max.bytes`.
    pub fetch_snapshot_max_bytes: i32,
}

impl RaftConfig {
    /// Kafka's defaults for a controller with the given identity.
    pub fn new(
        node_id: NodeId,
        directory_id: Uuid,
        cluster_id: impl Into<String>,
        listeners: Endpoints,
        default_listener: impl Into<String>,
    ) -> Self {
        RaftConfig {
            node_id: Some(node_id),
            directory_id,
            cluster_id: cluster_id.into(),
            listeners,
            default_listener: default_listener.into(),
            supported_kraft_version: KRaftVersionRange::new(0, 1),
            can_become_voter: true,
            auto_join: false,
            static_voters: VoterSet::empty(),
            bootstrap_servers: Vec::new(),
            election_timeout_ms: 1000,
            fetch_timeout_ms: 2000,
            election_backoff_max_ms: 1000,
            request_timeout_ms: 2000,
            retry_backoff_ms: 20,
            fetch_max_wait_ms: 500,
            fetch_max_bytes: 1024 * 1024,
            fetch_snapshot_max_bytes: 1024 * 1024,
        }
    }
}
