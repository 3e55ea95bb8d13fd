//! The [`Admin`] client: node selection, retries, and the admin calls.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;
use std::time::Duration;

use kraft_protocol::messages::add_raft_voter_request::{AddRaftVoterRequest, Listener};
use kraft_protocol::messages::api_versions_request::ApiVersionsRequest;
use kraft_protocol::messages::describe_cluster_request::DescribeClusterRequest;
use kraft_protocol::messages::describe_cluster_response::DescribeClusterResponse;
use kraft_protocol::messages::describe_quorum_request::{
    DescribeQuorumRequest, PartitionData as RequestPartition, TopicData as RequestTopic,
};
use kraft_protocol::messages::describe_quorum_response::{self, DescribeQuorumResponse};
use kraft_protocol::messages::remove_raft_voter_request::RemoveRaftVoterRequest;
use kraft_protocol::messages::unregister_broker_request::UnregisterBrokerRequest;
use kraft_protocol::messages::unregister_controller_request::UnregisterControllerRequest;
use kraft_protocol::messages::update_features_request::{FeatureUpdateKey, UpdateFeaturesRequest};
use kraft_protocol::{ApiKey, ErrorCode, List, Request, StrBytes};
use tokio::sync::Mutex;
use uuid::Uuid;

use crate::config::{AdminConfig, HostPort};
use crate::connection::Connection;
use crate::error::{AdminError, ApiError, Result};
use crate::features::{
    FeatureMetadata, FeatureUpdate, FinalizedVersionRange, SupportedVersionRange, UpgradeType,
};
use crate::kafka_uuid;
use crate::types::{
    AddRaftVoterOptions, AddRaftVoterResult, ClusterDescription, ClusterNode,
    DescribeClusterOptions, DescribeFeaturesOptions, EndpointType, QuorumInfo, QuorumNode,
    RaftVoterEndpoint, RemoveRaftVoterOptions, RemoveRaftVoterResult, ReplicaState,
    UpdateFeaturesOptions, VoterKeySource,
};
use discovery::not_ready_yet;
use retry::{Attempt, Failure, Retry};

mod connection;
mod discovery;
mod retry;

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

    async fn send_describe_cluster(
        &self,
        conn: &Connection,
        retry: &Retry,
        include_fenced_brokers: bool,
    ) -> Result<DescribeClusterResponse> {
        let version = conn.version_for(ApiKey::DescribeCluster)?;
        let controllers = self.using_controllers();
        if controllers && version < 1 {
            return Err(AdminError::unsupported(
                ApiKey::DescribeCluster,
                &conn.addr().to_string(),
                " v1 or later, which bootstrap controllers need",
            ));
        }
        if include_fenced_brokers && version < 2 {
            return Err(AdminError::unsupported(
                ApiKey::DescribeCluster,
                &conn.addr().to_string(),
                " v2 or later, which listing fenced brokers needs",
            ));
        }
        let request = DescribeClusterRequest {
            endpoint_type: if controllers { 2 } else { 1 },
            include_fenced_brokers,
            ..Default::default()
        };
        let response = conn
            .send(&request, version, retry.request_timeout(&self.inner.config))
            .await?;
        if response.error_code != 0 {
            return Err(ApiError::from_wire(
                response.error_code,
                response.error_message.as_deref(),
            )
            .into());
        }
        Ok(response)
    }

    // ----------------------------------------------------------------------
    // Calls
    // ----------------------------------------------------------------------

    /// Describes the cluster: its id, the active controller and the
    /// registered controllers (bootstrap controllers) or the brokers.
    pub async fn describe_cluster(&self) -> Result<ClusterDescription> {
        self.describe_cluster_with(DescribeClusterOptions::default())
            .await
    }

    /// [`Admin::describe_cluster`] with options (fenced brokers, timeout).
    pub async fn describe_cluster_with(
        &self,
        options: DescribeClusterOptions,
    ) -> Result<ClusterDescription> {
        if options.include_fenced_brokers && self.using_controllers() {
            return Err(AdminError::InvalidArgument(
                "Cannot request fenced brokers from controller endpoint".into(),
            ));
        }
        let mut retry = self.retry("listNodes", options.timeout);
        loop {
            let attempt = async {
                let conn = self.target(&retry).await?;
                let response = self
                    .send_describe_cluster(&conn, &retry, options.include_fenced_brokers)
                    .await
                    .map_err(|e| match e {
                        // A controller that cannot answer yet (restarting):
                        // ask the active one again, or another.
                        AdminError::Api(_) if self.using_controllers() && not_ready_yet(&e) => {
                            Failure::retry(e)
                        }
                        // Kafka fails the call on any other error code in the response.
                        AdminError::Api(_) => Failure::fatal(e),
                        other => other.into(),
                    })?;
                let description = cluster_description(&response);
                if self.using_controllers() {
                    self.meta().controllers = description.nodes.clone();
                }
                Ok(description)
            }
            .await;
            if let Some(done) = self.next_step(&mut retry, attempt).await {
                return done;
            }
        }
    }

    /// Describes the metadata quorum (DescribeQuorum for `__cluster_metadata-0`).
    pub async fn describe_metadata_quorum(&self) -> Result<QuorumInfo> {
        self.describe_metadata_quorum_within(None).await
    }

    async fn describe_metadata_quorum_within(
        &self,
        timeout: Option<Duration>,
    ) -> Result<QuorumInfo> {
        let mut retry = self.retry("describeMetadataQuorum", timeout);
        loop {
            let attempt = async {
                let conn = self.target(&retry).await?;
                let version = conn.version_for(ApiKey::DescribeQuorum)?;
                let request = DescribeQuorumRequest {
                    topics: vec![RequestTopic {
                        topic_name: StrBytes::from_static(CLUSTER_METADATA_TOPIC),
                        partitions: List::from([RequestPartition {
                            partition_index: 0,
                            ..Default::default()
                        }]),
                        ..Default::default()
                    }]
                    .into(),
                    ..Default::default()
                };
                let response = conn
                    .send(&request, version, retry.request_timeout(&self.inner.config))
                    .await?;
                self.quorum_info(&response, version)
            }
            .await;
            if let Some(done) = self.next_step(&mut retry, attempt).await {
                return done;
            }
        }
    }

    fn quorum_info(&self, response: &DescribeQuorumResponse, version: i16) -> Attempt<QuorumInfo> {
        // NOT_CONTROLLER anywhere (or NOT_LEADER_OR_FOLLOWER with bootstrap
        // controllers) means "ask the active controller again".
        let codes = std::iter::once(response.error_code).chain(
            response
                .topics
                .iter()
                .flat_map(|t| t.into_owned().partitions.into_iter().map(|p| p.error_code)),
        );
        for code in codes {
            let e = ErrorCode::from_code(code);
            if e == ErrorCode::NotController
                || (self.using_controllers() && e == ErrorCode::NotLeaderOrFollower)
            {
                return Err(Failure::retry(
                    ApiError::new(e, response.error_message.as_ref().map(|m| m.to_string())).into(),
                ));
            }
        }
        if response.error_code != 0 {
            let e: AdminError =
                ApiError::from_wire(response.error_code, response.error_message.as_deref()).into();
            return Err(e.into());
        }
        let unexpected = |msg: String| Err(Failure::fatal(AdminError::UnexpectedResponse(msg)));
        let Some(topic) = response.topics.single() else {
            return unexpected(format!(
                "DescribeMetadataQuorum received {} topics when 1 was expected",
                response.topics.len()
            ));
        };
        if topic.topic_name.as_str() != CLUSTER_METADATA_TOPIC {
            return unexpected(format!(
                "DescribeMetadataQuorum received a topic with name {} when {CLUSTER_METADATA_TOPIC} was expected",
                topic.topic_name
            ));
        }
        let Some(partition) = topic.partitions.single() else {
            return unexpected(format!(
                "DescribeMetadataQuorum received a topic {} with {} partitions when 1 was expected",
                topic.topic_name,
                topic.partitions.len()
            ));
        };
        if partition.partition_index != 0 {
            return unexpected(format!(
                "DescribeMetadataQuorum received a single partition with index {} when 0 was expected",
                partition.partition_index
            ));
        }
        if partition.error_code != 0 {
            let e: AdminError =
                ApiError::from_wire(partition.error_code, partition.error_message.as_deref())
                    .into();
            return Err(e.into());
        }
        let nodes = response
            .nodes
            .iter()
            .map(|n| {
                (
                    n.node_id,
                    QuorumNode {
                        node_id: n.node_id,
                        endpoints: n
                            .listeners
                            .iter()
                            .map(|l| RaftVoterEndpoint {
                                listener: l.name.to_string(),
                                host: l.host.to_string(),
                                port: l.port,
                            })
                            .collect(),
                    },
                )
            })
            .collect();
        Ok(QuorumInfo {
            leader_id: partition.leader_id,
            leader_epoch: i64::from(partition.leader_epoch),
            high_watermark: partition.high_watermark,
            voters: partition
                .current_voters
                .iter()
                .map(|r| replica_state(&r))
                .collect(),
            committed_voters: (version >= 3).then(|| {
                partition
                    .committed_voters
                    .iter()
                    .map(|r| replica_state(&r))
                    .collect()
            }),
            observers: partition
                .observers
                .iter()
                .map(|r| replica_state(&r))
                .collect(),
            nodes,
        })
    }

    /// Adds a voter to the metadata quorum (KIP-853, with KIP-1141's options).
    ///
    /// Directory id and endpoints left empty in `options` are derived:
    /// * by the active controller, when it knows AddRaftVoter v2 (KIP-1141:
    ///   the zero UUID and an empty listener list mean "derive");
    /// * otherwise (a Kafka 4.4 controller knows only v0-v1 and would reject
    ///   such a request) by this client, which then sends a complete request:
    ///   the directory id of the one observer with `voter_id` that
    ///   DescribeQuorum lists, and the endpoint of the voter's controller
    ///   registration that DescribeCluster lists (the endpoint on the
    ///   listener this client is connected through, named after the
    ///   matching listener of the leader). When that is impossible (no or
    ///   several such observers, no registration, bootstrap servers) the call
    ///   fails with [`AdminError::CannotDerive`], which says what to pass.
    ///
    /// `AckWhenCommitted` is left at its default (`true`): the call returns
    /// once the new voter set is committed.
    pub async fn add_raft_voter(
        &self,
        voter_id: i32,
        options: AddRaftVoterOptions,
    ) -> Result<AddRaftVoterResult> {
        let complete = options.voter_directory_id.is_some() && !options.endpoints.is_empty();
        let mut key: Option<(Uuid, Vec<RaftVoterEndpoint>)> = if complete {
            Some((
                options.voter_directory_id.unwrap_or_default(),
                options.endpoints.clone(),
            ))
        } else {
            None
        };
        let mut source = if complete {
            VoterKeySource::Caller
        } else {
            VoterKeySource::Server
        };
        let mut retry = self.retry("addRaftVoter", options.timeout);
        loop {
            let attempt = async {
                let conn = self.target(&retry).await?;
                let version = conn.version_for(ApiKey::AddRaftVoter)?;
                if key.is_none() && version < 2 {
                    tracing::info!(
                        voter_id,
                        version,
                        "the active controller cannot derive the voter's directory id and endpoints (AddRaftVoter < v2); deriving them on the client"
                    );
                    let derived = self
                        .derive_raft_voter_within(voter_id, &options, Some(retry.remaining()))
                        .await
                        .map_err(Failure::fatal)?;
                    key = Some(derived);
                    source = VoterKeySource::Client;
                }
                let (directory_id, endpoints) = match &key {
                    Some((d, e)) => (*d, e.clone()),
                    None => (
                        options.voter_directory_id.unwrap_or_default(),
                        options.endpoints.clone(),
                    ),
                };
                let request = AddRaftVoterRequest {
                    cluster_id: options.cluster_id.as_deref().map(StrBytes::from),
                    timeout_ms: retry.remaining_ms_i32(),
                    voter_id,
                    voter_directory_id: directory_id,
                    listeners: endpoints
                        .iter()
                        .map(|e| Listener {
                            name: StrBytes::from(e.listener.as_str()),
                            host: StrBytes::from(e.host.as_str()),
                            port: e.port,
                            ..Default::default()
                        })
                        .collect(),
                    ..Default::default()
                };
                let response = conn
                    .send(&request, version, retry.request_timeout(&self.inner.config))
                    .await?;
                self.check_code(response.error_code, response.error_message.as_ref(), &[])?;
                Ok(AddRaftVoterResult {
                    voter_directory_id: (!directory_id.is_nil()).then_some(directory_id),
                    endpoints,
                    source,
                    version,
                })
            }
            .await;
            if let Some(done) = self.next_step(&mut retry, attempt).await {
                return done;
            }
        }
    }

    /// The deprecated positional form of [`Admin::add_raft_voter`]: the
    /// positional directory id and endpoints win over those in `options`
    /// (whose cluster id and timeout still apply).
    #[deprecated(note = "use `add_raft_voter(voter_id, AddRaftVoterOptions { .. })` (KIP-1141)")]
    pub async fn add_raft_voter_positional(
        &self,
        voter_id: i32,
        voter_directory_id: Uuid,
        endpoints: Vec<RaftVoterEndpoint>,
        options: AddRaftVoterOptions,
    ) -> Result<AddRaftVoterResult> {
        self.add_raft_voter(
            voter_id,
            AddRaftVoterOptions {
                cluster_id: options.cluster_id,
                voter_directory_id: Some(voter_directory_id),
                endpoints,
                timeout: options.timeout,
            },
        )
        .await
    }

    /// Works out on the client what a KIP-1141 controller would derive for
    /// an AddRaftVoter request of `voter_id`: the values given in `options`
    /// are kept; a missing directory id comes from the single observer with
    /// that id in DescribeQuorum (or the voter's own entry when it already
    /// votes, so the controller can answer `DUPLICATE_VOTER`); missing
    /// endpoints come from the voter's controller registration as
    /// DescribeCluster shows it (bootstrap controllers only). Read-only.
    pub async fn derive_raft_voter(
        &self,
        voter_id: i32,
        options: &AddRaftVoterOptions,
    ) -> Result<(Uuid, Vec<RaftVoterEndpoint>)> {
        self.derive_raft_voter_within(voter_id, options, options.timeout)
            .await
    }

    async fn derive_raft_voter_within(
        &self,
        voter_id: i32,
        options: &AddRaftVoterOptions,
        timeout: Option<Duration>,
    ) -> Result<(Uuid, Vec<RaftVoterEndpoint>)> {
        let quorum = self.describe_metadata_quorum_within(timeout).await?;
        let voter = quorum.voters.iter().find(|v| v.replica_id == voter_id);
        let directory_id = match options.voter_directory_id {
            Some(d) => d,
            None => derive_directory_id(voter_id, &quorum)?,
        };
        if !options.endpoints.is_empty() {
            return Ok((directory_id, options.endpoints.clone()));
        }
        if voter.is_some() {
            if let Some(node) = quorum.nodes.get(&voter_id) {
                if !node.endpoints.is_empty() {
                    return Ok((directory_id, node.endpoints.clone()));
                }
            }
        }
        let cannot = |reason: String| AdminError::CannotDerive {
            voter_id,
            what: "endpoints",
            reason,
        };
        if !self.using_controllers() {
            return Err(cannot(
                "brokers do not report controller registrations; connect with bootstrap controllers or pass the endpoints explicitly".into(),
            ));
        }
        let cluster = self.describe_cluster().await?;
        let Some(node) = cluster.nodes.iter().find(|n| n.id == voter_id) else {
            let ids: Vec<String> = cluster.nodes.iter().map(|n| n.id.to_string()).collect();
            return Err(cannot(format!(
                "it is not a registered controller (registered: [{}]); start it and wait until it registers, or pass the endpoints explicitly",
                ids.join(", ")
            )));
        };
        let port = u16::try_from(node.port)
            .map_err(|_| cannot(format!("its registered port {} is invalid", node.port)))?;
        let listener = listener_of_connection(&cluster, &quorum).ok_or_else(|| {
            cannot("the name of the listener this client is connected through cannot be matched to the leader's endpoints; pass the endpoints explicitly".into())
        })?;
        Ok((
            directory_id,
            vec![RaftVoterEndpoint {
                listener,
                host: node.host.clone(),
                port,
            }],
        ))
    }

    /// Removes a voter from the metadata quorum (KIP-853, with KIP-1141's options).
    ///
    /// Without a directory id the active controller takes it from the
    /// current voter set when it knows RemoveRaftVoter v1 (KIP-1141);
    /// against an older controller (Kafka 4.4 knows only v0, which would
    /// reject the zero UUID) this client reads it from DescribeQuorum's
    /// current voters and sends a complete v0 request. A `voter_id` that is
    /// not a voter then fails with `VOTER_NOT_FOUND`, as the controller would.
    pub async fn remove_raft_voter(
        &self,
        voter_id: i32,
        options: RemoveRaftVoterOptions,
    ) -> Result<RemoveRaftVoterResult> {
        let mut directory = options.voter_directory_id;
        let mut source = if directory.is_some() {
            VoterKeySource::Caller
        } else {
            VoterKeySource::Server
        };
        let mut retry = self.retry("removeRaftVoter", options.timeout);
        loop {
            let attempt = async {
                let conn = self.target(&retry).await?;
                let version = conn.version_for(ApiKey::RemoveRaftVoter)?;
                if directory.is_none() && version < 1 {
                    tracing::info!(
                        voter_id,
                        "the active controller cannot derive the voter's directory id (RemoveRaftVoter v0); reading it from DescribeQuorum"
                    );
                    let quorum = self
                        .describe_metadata_quorum_within(Some(retry.remaining()))
                        .await
                        .map_err(Failure::fatal)?;
                    directory = Some(voter_directory_id(voter_id, &quorum).map_err(Failure::fatal)?);
                    source = VoterKeySource::Client;
                }
                let directory_id = directory.unwrap_or_default();
                let request = RemoveRaftVoterRequest {
                    cluster_id: options.cluster_id.as_deref().map(StrBytes::from),
                    voter_id,
                    voter_directory_id: directory_id,
                    ..Default::default()
                };
                let response = conn
                    .send(&request, version, retry.request_timeout(&self.inner.config))
                    .await?;
                self.check_code(response.error_code, response.error_message.as_ref(), &[])?;
                Ok(RemoveRaftVoterResult {
                    voter_directory_id: (!directory_id.is_nil()).then_some(directory_id),
                    source,
                    version,
                })
            }
            .await;
            if let Some(done) = self.next_step(&mut retry, attempt).await {
                return done;
            }
        }
    }

    /// The deprecated positional form of [`Admin::remove_raft_voter`]: the
    /// positional directory id wins over the one in `options`.
    #[deprecated(
        note = "use `remove_raft_voter(voter_id, RemoveRaftVoterOptions { .. })` (KIP-1141)"
    )]
    pub async fn remove_raft_voter_positional(
        &self,
        voter_id: i32,
        voter_directory_id: Uuid,
        options: RemoveRaftVoterOptions,
    ) -> Result<RemoveRaftVoterResult> {
        self.remove_raft_voter(
            voter_id,
            RemoveRaftVoterOptions {
                cluster_id: options.cluster_id,
                voter_directory_id: Some(voter_directory_id),
                timeout: options.timeout,
            },
        )
        .await
    }

    /// Removes a broker's registration (UnregisterBroker), as Kafka's
    /// `Admin.unregisterBroker`.
    ///
    /// With bootstrap servers the request goes to a bootstrap broker, which
    /// forwards it to the active controller; with bootstrap controllers it
    /// goes to the active controller. `REQUEST_TIMED_OUT` is retried until
    /// the deadline, as in Kafka; `NOT_CONTROLLER` is retried too (after
    /// rediscovering the active controller; a request refused that way was
    /// not applied). Every other error fails the call, e.g.
    /// `BROKER_ID_NOT_REGISTERED` for an id without a registration. A node
    /// without the API fails with [`AdminError::UnsupportedVersion`].
    pub async fn unregister_broker(&self, broker_id: i32) -> Result<()> {
        let request = UnregisterBrokerRequest {
            broker_id,
            ..Default::default()
        };
        self.unregister("unregisterBroker", request, |r| {
            (r.error_code, r.error_message.clone())
        })
        .await
    }

    /// Removes a controller's registration (KIP-1312, UnregisterController).
    ///
    /// `REQUEST_TIMED_OUT` is retried until the deadline, as in Kafka;
    /// `NOT_CONTROLLER` is retried too (after rediscovering the active
    /// controller; a request refused that way was not applied). Every other
    /// error fails the call. A node without the API fails with
    /// [`AdminError::UnsupportedVersion`].
    pub async fn unregister_controller(&self, controller_id: i32) -> Result<()> {
        let request = UnregisterControllerRequest {
            controller_id,
            ..Default::default()
        };
        self.unregister("unregisterController", request, |r| {
            (r.error_code, r.error_message.clone())
        })
        .await
    }

    /// Sends an unregistration to the target until it succeeds, fails for
    /// good or the deadline passes (`REQUEST_TIMED_OUT` and `NOT_CONTROLLER`
    /// are retried).
    async fn unregister<R: Request>(
        &self,
        call: &'static str,
        request: R,
        error_of: impl Fn(&R::Response) -> (i16, Option<StrBytes>),
    ) -> Result<()> {
        let mut retry = self.retry(call, None);
        loop {
            let attempt = async {
                let conn = self.target(&retry).await?;
                let version = conn.version_for(R::API_KEY).map_err(Failure::fatal)?;
                let response = conn
                    .send(&request, version, retry.request_timeout(&self.inner.config))
                    .await?;
                let (code, message) = error_of(&response);
                self.check_code(code, message.as_ref(), &[ErrorCode::RequestTimedOut])
            }
            .await;
            if let Some(done) = self.next_step(&mut retry, attempt).await {
                return done;
            }
        }
    }

    /// Describes the feature flags the active controller (bootstrap
    /// controllers) or a broker supports, and the finalized levels (an
    /// ApiVersions request, as Kafka's `describeFeatures`).
    pub async fn describe_features(&self) -> Result<FeatureMetadata> {
        self.describe_features_with(DescribeFeaturesOptions::default())
            .await
    }

    /// [`Admin::describe_features`] with options (a specific node, timeout).
    pub async fn describe_features_with(
        &self,
        options: DescribeFeaturesOptions,
    ) -> Result<FeatureMetadata> {
        let target_addr = match options.node_id {
            None => None,
            Some(id) => {
                let cluster = self.describe_cluster().await?;
                let node = cluster.nodes.iter().find(|n| n.id == id).ok_or_else(|| {
                    AdminError::InvalidArgument(format!(
                        "node {id} is not among the {} the cluster reports",
                        if self.using_controllers() {
                            "controllers"
                        } else {
                            "brokers"
                        }
                    ))
                })?;
                let port = u16::try_from(node.port).map_err(|_| {
                    AdminError::UnexpectedResponse(format!(
                        "node {id} has an invalid port {}",
                        node.port
                    ))
                })?;
                Some(HostPort {
                    host: node.host.clone(),
                    port,
                })
            }
        };
        let mut retry = self.retry("describeFeatures", options.timeout);
        loop {
            let attempt = async {
                let conn = match &target_addr {
                    Some(addr) => self.connection(addr, &retry).await?,
                    None => self.target(&retry).await?,
                };
                let version = conn.version_for(ApiKey::ApiVersions)?;
                let request = ApiVersionsRequest {
                    client_software_name: StrBytes::from_static("kraft-admin"),
                    client_software_version: StrBytes::from_static(env!("CARGO_PKG_VERSION")),
                    ..Default::default()
                };
                let response = conn
                    .send(&request, version, retry.request_timeout(&self.inner.config))
                    .await?;
                if response.error_code != 0 {
                    let e: AdminError = ApiError::from_wire(response.error_code, None).into();
                    return Err(e.into());
                }
                Ok(FeatureMetadata {
                    finalized_features: response
                        .finalized_features
                        .iter()
                        .map(|f| {
                            (
                                f.name.to_string(),
                                FinalizedVersionRange {
                                    min_version_level: f.min_version_level,
                                    max_version_level: f.max_version_level,
                                },
                            )
                        })
                        .collect(),
                    finalized_features_epoch: (response.finalized_features_epoch >= 0)
                        .then_some(response.finalized_features_epoch),
                    supported_features: response
                        .supported_features
                        .iter()
                        .map(|f| {
                            (
                                f.name.to_string(),
                                SupportedVersionRange {
                                    min_version: f.min_version,
                                    max_version: f.max_version,
                                },
                            )
                        })
                        .collect(),
                })
            }
            .await;
            if let Some(done) = self.next_step(&mut retry, attempt).await {
                return done;
            }
        }
    }

    /// Changes feature levels (UpdateFeatures). Returns one result per
    /// requested feature; a top-level error other than `NOT_CONTROLLER`
    /// (which is retried) is reported for every feature, as Kafka does.
    pub async fn update_features(
        &self,
        updates: &BTreeMap<String, FeatureUpdate>,
        options: UpdateFeaturesOptions,
    ) -> Result<BTreeMap<String, std::result::Result<(), ApiError>>> {
        if updates.is_empty() {
            return Err(AdminError::InvalidArgument(
                "Feature updates can not be null or empty.".into(),
            ));
        }
        if updates.keys().any(|k| k.trim().is_empty()) {
            return Err(AdminError::InvalidArgument(
                "Provided feature can not be empty.".into(),
            ));
        }
        let mut retry = self.retry("updateFeatures", options.timeout);
        loop {
            let attempt = async {
                let conn = self.target(&retry).await?;
                let version = conn.version_for(ApiKey::UpdateFeatures)?;
                if version < 1 && options.validate_only {
                    return Err(Failure::fatal(AdminError::unsupported(
                        ApiKey::UpdateFeatures,
                        &conn.addr().to_string(),
                        " v1 or later, which validate-only (dry run) needs",
                    )));
                }
                let request_timeout = retry.request_timeout(&self.inner.config);
                let request = UpdateFeaturesRequest {
                    timeout_ms: i32::try_from(request_timeout.as_millis()).unwrap_or(i32::MAX),
                    feature_updates: updates
                        .iter()
                        .map(|(name, u)| FeatureUpdateKey {
                            feature: StrBytes::from(name.as_str()),
                            max_version_level: u.max_version_level,
                            allow_downgrade: version == 0 && u.upgrade_type != UpgradeType::Upgrade,
                            upgrade_type: if version == 0 { 1 } else { u.upgrade_type.code() },
                            ..Default::default()
                        })
                        .collect(),
                    validate_only: options.validate_only,
                    ..Default::default()
                };
                let response = conn.send(&request, version, request_timeout).await?;
                let top = ErrorCode::from_code(response.error_code);
                if top == ErrorCode::NotController {
                    self.check_code(response.error_code, response.error_message.as_ref(), &[])?;
                }
                let mut results = BTreeMap::new();
                if top.is_err() {
                    let e = ApiError::from_wire(response.error_code, response.error_message.as_deref());
                    for name in updates.keys() {
                        results.insert(name.clone(), Err(e.clone()));
                    }
                    return Ok(results);
                }
                if response.results.is_empty() {
                    for name in updates.keys() {
                        results.insert(name.clone(), Ok(()));
                    }
                    return Ok(results);
                }
                for r in &response.results {
                    if !updates.contains_key(r.feature.as_str()) {
                        tracing::warn!(feature = %r.feature, "server response mentioned unknown feature");
                        continue;
                    }
                    let outcome = if r.error_code == 0 {
                        Ok(())
                    } else {
                        Err(ApiError::from_wire(r.error_code, r.error_message.as_deref()))
                    };
                    results.insert(r.feature.to_string(), outcome);
                }
                for name in updates.keys() {
                    results.entry(name.clone()).or_insert_with(|| {
                        Err(ApiError::new(
                            ErrorCode::UnknownServerError,
                            Some(format!(
                                "The controller response did not contain a result for feature {name}"
                            )),
                        ))
                    });
                }
                Ok(results)
            }
            .await;
            if let Some(done) = self.next_step(&mut retry, attempt).await {
                return done;
            }
        }
    }

    /// The highest version of `api` the call's target node and this client
    /// both know (negotiated with ApiVersions on connect).
    pub async fn negotiated_version(&self, api: ApiKey) -> Result<i16> {
        let mut retry = self.retry("apiVersions", None);
        loop {
            let attempt = async {
                let conn = self.target(&retry).await?;
                conn.version_for(api).map_err(Failure::fatal)
            }
            .await;
            if let Some(done) = self.next_step(&mut retry, attempt).await {
                return done;
            }
        }
    }

    /// The highest version of `api` the call's target node advertises
    /// (`None` if it does not list the API).
    pub async fn server_max_version(&self, api: ApiKey) -> Result<Option<i16>> {
        let mut retry = self.retry("apiVersions", None);
        loop {
            let attempt = async { Ok(self.target(&retry).await?.server_max_version(api)) }.await;
            if let Some(done) = self.next_step(&mut retry, attempt).await {
                return done;
            }
        }
    }
}

fn replica_state(r: &describe_quorum_response::ReplicaState) -> ReplicaState {
    ReplicaState {
        replica_id: r.replica_id,
        replica_directory_id: r.replica_directory_id,
        log_end_offset: r.log_end_offset,
        last_fetch_timestamp: (r.last_fetch_timestamp != -1).then_some(r.last_fetch_timestamp),
        last_caught_up_timestamp: (r.last_caught_up_timestamp != -1)
            .then_some(r.last_caught_up_timestamp),
    }
}

fn cluster_description(response: &DescribeClusterResponse) -> ClusterDescription {
    let nodes: Vec<ClusterNode> = response
        .brokers
        .iter()
        .map(|b| ClusterNode {
            id: b.broker_id,
            host: b.host.to_string(),
            port: b.port,
            rack: b.rack.as_ref().map(|r| r.to_string()),
            is_fenced: b.is_fenced,
        })
        .collect();
    let controller = nodes
        .iter()
        .find(|n| n.id == response.controller_id)
        .cloned();
    ClusterDescription {
        cluster_id: response.cluster_id.to_string(),
        controller,
        nodes,
        endpoint_type: EndpointType::from_i8(response.endpoint_type),
    }
}

/// The directory id a KIP-1141 controller would derive for a new voter:
/// the single observer with `voter_id` and a known directory id. When the
/// id already votes (and no observer has it), the voter's own directory id,
/// so the controller answers DUPLICATE_VOTER as it would for v2.
fn derive_directory_id(voter_id: i32, quorum: &QuorumInfo) -> Result<Uuid> {
    let found: BTreeSet<Uuid> = quorum
        .observers
        .iter()
        .filter(|o| o.replica_id == voter_id && !o.replica_directory_id.is_nil())
        .map(|o| o.replica_directory_id)
        .collect();
    let cannot = |reason: String| AdminError::CannotDerive {
        voter_id,
        what: "directory id",
        reason,
    };
    match found.len() {
        1 => Ok(found.into_iter().next().unwrap_or_default()),
        0 => {
            if let Some(v) = quorum.voters.iter().find(|v| v.replica_id == voter_id) {
                if !v.replica_directory_id.is_nil() {
                    return Ok(v.replica_directory_id);
                }
            }
            let observers: Vec<String> = quorum
                .observers
                .iter()
                .map(|o| o.replica_id.to_string())
                .collect();
            Err(cannot(format!(
                "no observer with node id {voter_id} is replicating from the leader (observers: [{}]); start the controller so that it fetches as an observer, or pass its directory id explicitly",
                observers.join(", ")
            )))
        }
        _ => {
            let ids: Vec<String> = found.iter().map(kafka_uuid::to_string).collect();
            Err(cannot(format!(
                "several observers use node id {voter_id} (directory ids {}); stop the duplicate or pass the directory id of the one to add",
                ids.join(", ")
            )))
        }
    }
}

/// The directory id of voter `voter_id` in the current voter set.
fn voter_directory_id(voter_id: i32, quorum: &QuorumInfo) -> Result<Uuid> {
    match quorum.voters.iter().find(|v| v.replica_id == voter_id) {
        Some(v) if !v.replica_directory_id.is_nil() => Ok(v.replica_directory_id),
        Some(_) => Err(AdminError::CannotDerive {
            voter_id,
            what: "directory id",
            reason: "the voter set does not record its directory id (static quorum?); pass it explicitly".into(),
        }),
        None => {
            let voters: Vec<String> = quorum.voters.iter().map(|v| v.replica_id.to_string()).collect();
            Err(ApiError::new(
                ErrorCode::VoterNotFound,
                Some(format!(
                    "Controller {voter_id} is not in the set of voters [{}]",
                    voters.join(", ")
                )),
            )
            .into())
        }
    }
}

/// The name of the listener a DescribeCluster request arrived on: the
/// leader's endpoint in DescribeQuorum's Nodes that matches the leader's
/// registered endpoint (host and port, else port), else the leader's only
/// endpoint.
fn listener_of_connection(cluster: &ClusterDescription, quorum: &QuorumInfo) -> Option<String> {
    let leader = cluster.controller.clone().or_else(|| {
        cluster
            .nodes
            .iter()
            .find(|n| n.id == quorum.leader_id)
            .cloned()
    })?;
    let endpoints = &quorum.nodes.get(&leader.id)?.endpoints;
    let names = |pred: &dyn Fn(&RaftVoterEndpoint) -> bool| -> BTreeSet<String> {
        endpoints
            .iter()
            .filter(|e| pred(e))
            .map(|e| e.listener.clone())
            .collect()
    };
    let exact = names(&|e| e.host == leader.host && i32::from(e.port) == leader.port);
    if exact.len() == 1 {
        return exact.into_iter().next();
    }
    let by_port = names(&|e| i32::from(e.port) == leader.port);
    if by_port.len() == 1 {
        return by_port.into_iter().next();
    }
    let all = names(&|_| true);
    if all.len() == 1 {
        return all.into_iter().next();
    }
    None
}
