//! Controller request handlers over the [`ClusterImage`], and the
//! [`RaftQuorum`] trait through which they reach the raft layer.
//!
//! The handlers follow Kafka 4.4's `ControllerApis` / `QuorumController`:
//!
//! * **ApiVersions** (spec §2.1): the served APIs, supported features (at
//!   versions below 4 the features whose minimum is 0 are omitted, KAFKA-17492)
//!   and finalized features (non-zero levels, as point ranges; kraft.version
//!   from the raft layer), in the order Kafka's hash maps produce them;
//!   `INVALID_REQUEST` for v3+ requests with malformed client software
//!   name/version or a v5 request setting only one of ClusterId/NodeId.
//! * **DescribeCluster** (§2.8): the registered controllers with an endpoint
//!   on the request's listener; the raft leader as ControllerId (or -1 when
//!   it is not in the list).
//! * Until the image is loaded (a starting controller has not replayed its
//!   committed snapshot and log, [`SharedImage::is_loaded`]) nothing is
//!   answered from it: DescribeCluster and the writes answer the retriable
//!   `NOT_CONTROLLER`, ApiVersions finalizes no feature.
//! * **ControllerRegistration** (§2.9) and **UnregisterController** (§7.4):
//!   write one record and answer after it commits.
//! * **UpdateFeatures**: metadata.version and the other features (via
//!   FeatureLevelRecord), kraft.version (via the raft layer); refused while a
//!   registered controller does not support the target level (KIP-1312's
//!   stale-registration case) or a static voter has not registered.
//! * the raft RPCs are passed to [`RaftQuorum::handle_raft_request`]; the
//!   raft layer answers AddRaftVoter v2 / RemoveRaftVoter v1 (KIP-1141) in
//!   Kafka's check order, reading controller registrations from the image.
//!
//! Write operations are serialised: each holds a lock from validation until
//! its records are committed and applied, so every validation sees the
//! effect of the previous write (Kafka validates against its uncommitted
//! in-memory state instead; the observable results are the same).

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

use async_trait::async_trait;
use kraft_protocol::messages::api_versions_request::ApiVersionsRequest;
use kraft_protocol::messages::api_versions_response::{
    ApiVersion, ApiVersionsResponse, FinalizedFeatureKey, SupportedFeatureKey,
};
use kraft_protocol::messages::controller_registration_request::ControllerRegistrationRequest;
use kraft_protocol::messages::controller_registration_response::ControllerRegistrationResponse;
use kraft_protocol::messages::describe_cluster_request::DescribeClusterRequest;
use kraft_protocol::messages::describe_cluster_response::{
    DescribeClusterBroker, DescribeClusterResponse,
};
use kraft_protocol::messages::register_controller_record::{
    ControllerEndpoint, ControllerFeature, RegisterControllerRecord,
};
use kraft_protocol::messages::unregister_controller_record::UnregisterControllerRecord;
use kraft_protocol::messages::unregister_controller_request::UnregisterControllerRequest;
use kraft_protocol::messages::unregister_controller_response::UnregisterControllerResponse;
use kraft_protocol::messages::update_features_request::UpdateFeaturesRequest;
use kraft_protocol::messages::update_features_response::{
    UpdatableFeatureResult, UpdateFeaturesResponse,
};
use kraft_protocol::{ApiKey, ErrorCode, RequestBody, ResponseBody, StrBytes, Uuid};
use tokio::sync::Mutex;

use crate::config::{ControllerConfig, SecurityProtocol};
use crate::features::{
    supported_features, validate_feature_dependencies, FeatureSpec, MetadataVersion, VersionRange,
    KRAFT_VERSION, METADATA_VERSION,
};
use crate::image::{ClusterImage, MetadataRecord, SharedImage};
use crate::java::JavaHashMap;
use crate::server::{ApiRange, CloseConnection, RequestContext, RequestHandler};

/// An error code with the message Kafka would put next to it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiError {
    /// The error.
    pub code: ErrorCode,
    /// The message (`None` = no message / null).
    pub message: Option<String>,
}

impl ApiError {
    /// An error with a specific message.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        ApiError {
            code,
            message: Some(message.into()),
        }
    }

    /// The message, or the error's default text.
    pub fn message_or_default(&self) -> &str {
        self.message
            .as_deref()
            .unwrap_or(self.code.default_message())
    }
}

impl fmt::Display for ApiError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code.name(), self.message_or_default())
    }
}

impl std::error::Error for ApiError {}

/// A replica: node id plus the directory id of its metadata log directory
/// (`None` when unknown, i.e. UUID0 on the wire); the raft layer's key.
pub use kraft_raft::core::ReplicaKey;

/// One endpoint of a voter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VoterEndpoint {
    /// Listener name.
    pub name: String,
    /// Host.
    pub host: String,
    /// Port.
    pub port: u16,
}

/// A member of the (latest) voter set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QuorumVoter {
    /// Its replica key.
    pub key: ReplicaKey,
    /// Its endpoints.
    pub endpoints: Vec<VoterEndpoint>,
}

/// What the controller needs to know about the raft quorum right now.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct QuorumFacts {
    /// The current raft leader, if known.
    pub leader_id: Option<i32>,
    /// The current raft epoch.
    pub epoch: i32,
    /// Whether this node is the active controller: the raft leader that has
    /// replayed the whole log and accepts writes.
    pub is_active_controller: bool,
    /// The latest (possibly uncommitted) voter set.
    pub voters: Vec<QuorumVoter>,
    /// Observers the leader currently sees replicating (the DescribeQuorum
    /// `Observers` table, after its expiry), with their directory ids.
    pub observers: Vec<ReplicaKey>,
    /// The finalized kraft.version.
    pub kraft_version: i16,
}

/// Why an append did not commit.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AppendError {
    /// This node is not (or no longer) the active controller of that epoch.
    #[error("not the active controller")]
    NotController {
        /// The leader, if known.
        leader_id: Option<i32>,
    },
    /// The operation timed out.
    #[error("timed out")]
    Timeout,
    /// Anything else.
    #[error("{0}")]
    Failed(String),
}

/// The raft layer as seen by the controller. The tokio raft driver
/// implements it.
#[async_trait]
pub trait RaftQuorum: Send + Sync + 'static {
    /// Current leadership, voters, observers and kraft.version.
    fn facts(&self) -> QuorumFacts;

    /// Appends `records` atomically (in one batch) as the active controller
    /// of `epoch` and resolves once they are committed **and applied to the
    /// shared image**, with the offset of the last record. Fails with
    /// [`AppendError::NotController`] if this node is not the active
    /// controller of `epoch` or loses leadership before the commit.
    async fn append_and_commit(
        &self,
        epoch: i32,
        records: Vec<MetadataRecord>,
    ) -> Result<i64, AppendError>;

    /// The ids of the latest (possibly uncommitted) voter set, read now
    /// rather than from the cached [`facts`](Self::facts).
    async fn latest_voter_ids(&self) -> Vec<i32> {
        self.facts().voters.iter().map(|v| v.key.id).collect()
    }

    /// Upgrades (or, with `validate_only`, checks an upgrade of)
    /// kraft.version (Kafka's `KafkaRaftClient.upgradeKRaftVersion`).
    async fn upgrade_kraft_version(
        &self,
        epoch: i32,
        version: i16,
        validate_only: bool,
    ) -> Result<(), ApiError>;

    /// The raft RPCs this layer serves and their versions (Vote,
    /// BeginQuorumEpoch, EndQuorumEpoch, Fetch, FetchSnapshot,
    /// DescribeQuorum, AddRaftVoter, RemoveRaftVoter, UpdateRaftVoter).
    /// Only these are advertised and dispatched to
    /// [`handle_raft_request`](Self::handle_raft_request).
    fn raft_apis(&self) -> Vec<ApiRange> {
        Vec::new()
    }

    /// Handles a raft RPC.
    async fn handle_raft_request(
        &self,
        ctx: &RequestContext,
        request: RequestBody,
    ) -> Result<ResponseBody, CloseConnection> {
        let _ = request;
        Err(CloseConnection(format!(
            "{} is not served by this raft layer",
            ctx.api_key.kafka_name()
        )))
    }
}

/// The facts the handlers need from the configuration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ControllerSettings {
    /// This node's id.
    pub node_id: i32,
    /// The cluster id (from meta.properties).
    pub cluster_id: String,
    /// Ids of the static voters (`controller.quorum.voters`); every one must
    /// be registered before a feature can be upgraded.
    pub static_voter_ids: Vec<i32>,
    /// `unstable.feature.versions.enable`
    pub unstable_feature_versions: bool,
    /// `unstable.api.versions.enable`
    pub unstable_api_versions: bool,
}

impl ControllerSettings {
    /// Settings from a configuration and the cluster id.
    pub fn from_config(config: &ControllerConfig, cluster_id: impl Into<String>) -> Self {
        ControllerSettings {
            node_id: config.node_id,
            cluster_id: cluster_id.into(),
            static_voter_ids: config.static_voter_ids(),
            unstable_feature_versions: config.unstable_feature_versions_enable,
            unstable_api_versions: config.unstable_api_versions_enable,
        }
    }
}

/// The controller APIs served by [`Controller`] itself.
pub const CONTROLLER_APIS: &[ApiKey] = &[
    ApiKey::ApiVersions,
    ApiKey::UpdateFeatures,
    ApiKey::DescribeCluster,
    ApiKey::ControllerRegistration,
    ApiKey::UnregisterController,
];

/// `CLUSTER` operations a request may perform without an authorizer
/// (CREATE, ALTER, DESCRIBE, CLUSTER_ACTION, DESCRIBE_CONFIGS, ALTER_CONFIGS,
/// IDEMPOTENT_WRITE as a bit field).
pub const ALL_CLUSTER_OPERATIONS: i32 =
    (1 << 5) | (1 << 7) | (1 << 8) | (1 << 9) | (1 << 10) | (1 << 11) | (1 << 12);

/// UpdateFeatures upgrade types: 1 upgrade, 2 safe downgrade, 3 unsafe downgrade.
const UPGRADE: i8 = 1;
const UNSAFE_DOWNGRADE: i8 = 3;

/// The controller: request handlers over the shared image and the quorum.
pub struct Controller {
    settings: ControllerSettings,
    image: SharedImage,
    quorum: Arc<dyn RaftQuorum>,
    write_lock: Mutex<()>,
}

impl fmt::Debug for Controller {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Controller")
            .field("settings", &self.settings)
            .finish_non_exhaustive()
    }
}

fn not_controller(leader_id: Option<i32>) -> ApiError {
    match leader_id {
        Some(id) => ApiError::new(
            ErrorCode::NotController,
            format!("The active controller appears to be node {id}."),
        ),
        None => ApiError::new(
            ErrorCode::NotController,
            "No controller appears to be active.",
        ),
    }
}

fn append_error(e: AppendError) -> ApiError {
    match e {
        AppendError::NotController { leader_id } => not_controller(leader_id),
        AppendError::Timeout => ApiError {
            code: ErrorCode::RequestTimedOut,
            message: None,
        },
        AppendError::Failed(m) => {
            tracing::error!("metadata append failed: {m}");
            ApiError {
                code: ErrorCode::UnknownServerError,
                message: None,
            }
        }
    }
}

/// `[a-zA-Z0-9](?:[a-zA-Z0-9\-.]*[a-zA-Z0-9])?`
fn valid_software_token(s: &str) -> bool {
    let b = s.as_bytes();
    let alnum = |c: &u8| c.is_ascii_alphanumeric();
    match b {
        [] => false,
        [only] => alnum(only),
        [first, middle @ .., last] => {
            alnum(first)
                && alnum(last)
                && middle.iter().all(|c| alnum(c) || *c == b'-' || *c == b'.')
        }
    }
}

fn invalid_update_version(feature: &str, version: i16, message: &str) -> ApiError {
    let text = format!("Invalid update version {version} for feature {feature}. {message}");
    tracing::warn!("{text}");
    ApiError::new(ErrorCode::InvalidUpdateVersion, text)
}

fn reason_not_supported(what: &str, range: VersionRange, version: i16) -> Option<String> {
    if range.contains(version) {
        None
    } else if range.max == 0 {
        Some(format!("{what} does not support this feature."))
    } else {
        Some(format!("{what} only supports versions {range}"))
    }
}

impl Controller {
    /// A controller over `image` and `quorum`.
    pub fn new(
        settings: ControllerSettings,
        image: SharedImage,
        quorum: Arc<dyn RaftQuorum>,
    ) -> Self {
        Controller {
            settings,
            image,
            quorum,
            write_lock: Mutex::new(()),
        }
    }

    /// The settings.
    pub fn settings(&self) -> &ControllerSettings {
        &self.settings
    }

    /// The shared image.
    pub fn image(&self) -> &SharedImage {
        &self.image
    }

    /// The features this controller supports (what it registers and
    /// advertises): Kafka 4.4.0's `QuorumFeatures.defaultSupportedFeatureMap`.
    pub fn supported_features(&self) -> Vec<(&'static str, VersionRange)> {
        supported_features(self.settings.unstable_feature_versions)
    }

    fn local_range(&self, feature: &str) -> VersionRange {
        self.supported_features()
            .into_iter()
            .find(|(n, _)| *n == feature)
            .map_or(VersionRange::DISABLED, |(_, r)| r)
    }

    /// The APIs served, in key order: this controller's own plus the raft
    /// layer's.
    pub fn served_apis(&self) -> Vec<ApiRange> {
        let mut out: Vec<ApiRange> = CONTROLLER_APIS
            .iter()
            .map(|k| {
                let (min, mut max) = k.versions();
                if k.latest_version_unstable() && !self.settings.unstable_api_versions {
                    max -= 1;
                }
                ApiRange {
                    api_key: *k,
                    min_version: min,
                    max_version: max,
                }
            })
            .collect();
        for r in self.quorum.raft_apis() {
            if !out.iter().any(|o| o.api_key == r.api_key) {
                out.push(r);
            }
        }
        out.sort_by_key(|r| r.api_key.id());
        out
    }

    /// ApiVersions (any known version; the server answers unknown versions itself).
    pub fn api_versions(&self, version: i16, request: &ApiVersionsRequest) -> ApiVersionsResponse {
        let valid = {
            let v5_ok = version < 5 || (request.cluster_id.is_none() == (request.node_id == -1));
            let v3_ok = version < 3
                || (valid_software_token(&request.client_software_name)
                    && valid_software_token(&request.client_software_version));
            v5_ok && v3_ok
        };
        if !valid {
            return ApiVersionsResponse {
                error_code: ErrorCode::InvalidRequest.code(),
                ..Default::default()
            };
        }
        let api_keys = self
            .served_apis()
            .into_iter()
            .map(|r| ApiVersion {
                api_key: r.api_key.id(),
                min_version: r.min_version,
                max_version: r.max_version,
                ..Default::default()
            })
            .collect();
        // BrokerFeatures.defaultSupportedFeatures: a HashMap filled in declaration order.
        let supported = self.supported_features();
        let order = JavaHashMap::from_keys(supported.iter().map(|(n, _)| n.to_string()));
        let supported_features = order
            .iter()
            .filter_map(|name| supported.iter().find(|(n, _)| *n == name.as_str()))
            .filter(|(_, r)| !(version < 4 && r.min == 0))
            .map(|(n, r)| SupportedFeatureKey {
                name: (*n).into(),
                min_version: r.min,
                max_version: r.max,
                ..Default::default()
            })
            .collect();
        // Read the quorum before taking the image lock (the raft driver may
        // hold its own state while it writes the image).
        let kraft = self.quorum.facts().kraft_version;
        let image = self.image.read();
        // An image that is not loaded yet finalizes nothing (Kafka: the
        // features are unknown until the MetadataLoader publishes).
        let mv = image.metadata_version().filter(|_| self.image.is_loaded());
        let (finalized_features, epoch) = match mv {
            None => (Vec::new(), -1),
            Some(mv) => {
                let levels = finalized_feature_order(&image, mv, kraft);
                let keys = levels
                    .into_iter()
                    .filter(|(_, l)| *l != 0)
                    .map(|(n, l)| FinalizedFeatureKey {
                        name: n.into(),
                        max_version_level: l,
                        min_version_level: l,
                        ..Default::default()
                    })
                    .collect();
                (keys, image.last_offset())
            }
        };
        ApiVersionsResponse {
            error_code: 0,
            api_keys,
            throttle_time_ms: 0,
            supported_features,
            finalized_features_epoch: epoch,
            finalized_features: finalized_features.into(),
            zk_migration_ready: false,
            ..Default::default()
        }
    }

    /// DescribeCluster on a controller listener.
    pub fn describe_cluster(
        &self,
        version: i16,
        listener_name: &str,
        request: &DescribeClusterRequest,
    ) -> DescribeClusterResponse {
        let leader = self.quorum.facts().leader_id.unwrap_or(-1);
        let image = self.image.read();
        let error = |code: ErrorCode, message: String| DescribeClusterResponse {
            error_code: code.code(),
            error_message: Some(message.into()),
            ..Default::default()
        };
        if !self.image.is_loaded() {
            // A starting controller has not replayed its committed snapshot
            // and log yet: a retriable answer, so that the client asks
            // another controller or again, rather than Kafka's final
            // "no finalized MetadataVersion" below.
            return error(
                ErrorCode::NotController,
                format!(
                    "Controller {} has not loaded the committed metadata yet.",
                    self.settings.node_id
                ),
            );
        }
        match image.metadata_version() {
            None => {
                return error(
                    ErrorCode::UnsupportedVersion,
                    "There is no finalized MetadataVersion, so direct-to-controller communication is not supported."
                        .to_string(),
                )
            }
            Some(mv) if !mv.is_controller_registration_supported() => {
                return error(
                    ErrorCode::UnsupportedVersion,
                    "Direct-to-controller communication is not supported with the current MetadataVersion."
                        .to_string(),
                )
            }
            Some(_) => {}
        }
        match request.endpoint_type {
            1 => {
                return error(
                    if version == 0 {
                        ErrorCode::InvalidRequest
                    } else {
                        ErrorCode::MismatchedEndpointType
                    },
                    "The request was sent to an endpoint of type CONTROLLER, but we wanted an endpoint of type BROKER"
                        .to_string(),
                )
            }
            2 => {}
            other => {
                return error(
                    if version == 0 {
                        ErrorCode::InvalidRequest
                    } else {
                        ErrorCode::UnsupportedEndpointType
                    },
                    format!("Unsupported endpoint type {other}"),
                )
            }
        }
        let order = JavaHashMap::from_keys(image.controllers().map(|c| c.id));
        let brokers: Vec<DescribeClusterBroker> = order
            .iter()
            .filter_map(|id| image.controller(*id))
            .filter_map(|c| {
                c.endpoint(listener_name).map(|e| DescribeClusterBroker {
                    broker_id: c.id,
                    host: e.host.as_str().into(),
                    port: i32::from(e.port),
                    rack: None,
                    ..Default::default()
                })
            })
            .collect();
        let controller_id = if brokers.iter().any(|b| b.broker_id == leader) {
            leader
        } else {
            -1
        };
        DescribeClusterResponse {
            cluster_id: self.settings.cluster_id.as_str().into(),
            controller_id,
            cluster_authorized_operations: if request.include_cluster_authorized_operations {
                ALL_CLUSTER_OPERATIONS
            } else {
                i32::MIN
            },
            brokers: brokers.into(),
            endpoint_type: 2,
            ..Default::default()
        }
    }

    /// The ControllerRegistration a controller sends for itself (what its
    /// registration manager puts in the request).
    pub fn registration_request(
        &self,
        incarnation_id: Uuid,
        endpoints: &[(String, String, u16, SecurityProtocol)],
    ) -> ControllerRegistrationRequest {
        use kraft_protocol::messages::controller_registration_request::{Feature, Listener};
        ControllerRegistrationRequest {
            controller_id: self.settings.node_id,
            incarnation_id,
            zk_migration_ready: false,
            listeners: endpoints
                .iter()
                .map(|(name, host, port, proto)| Listener {
                    name: name.as_str().into(),
                    host: host.as_str().into(),
                    port: *port,
                    security_protocol: proto.id(),
                    ..Default::default()
                })
                .collect(),
            features: self
                .supported_features()
                .into_iter()
                .map(|(n, r)| Feature {
                    name: n.into(),
                    min_supported_version: r.min,
                    max_supported_version: r.max,
                    ..Default::default()
                })
                .collect(),
            ..Default::default()
        }
    }

    /// ControllerRegistration: writes a RegisterControllerRecord and answers
    /// after it commits.
    pub async fn controller_registration(
        &self,
        request: &ControllerRegistrationRequest,
    ) -> ControllerRegistrationResponse {
        match self.register_controller(request).await {
            Ok(()) => ControllerRegistrationResponse::default(),
            // ControllerRegistrationRequest.getErrorResponse uses the error's default text.
            Err(e) => ControllerRegistrationResponse {
                error_code: e.code.code(),
                error_message: Some(e.code.default_message().into()),
                ..Default::default()
            },
        }
    }

    async fn register_controller(
        &self,
        request: &ControllerRegistrationRequest,
    ) -> Result<(), ApiError> {
        let _guard = self.write_lock.lock().await;
        let facts = self.quorum.facts();
        if !facts.is_active_controller || !self.image.is_loaded() {
            return Err(not_controller(facts.leader_id));
        }
        let mv = self.image.read().metadata_version();
        if !mv.is_some_and(MetadataVersion::is_controller_registration_supported) {
            return Err(ApiError::new(
                ErrorCode::UnsupportedVersion,
                "The current MetadataVersion is too old to support controller registrations.",
            ));
        }
        let mut end_points: Vec<ControllerEndpoint> = Vec::new();
        for l in &request.listeners {
            if SecurityProtocol::from_id(l.security_protocol).is_none() {
                tracing::error!(
                    "Unknown security protocol {} in listener {}",
                    l.security_protocol,
                    l.name
                );
                return Err(ApiError {
                    code: ErrorCode::UnknownServerError,
                    message: None,
                });
            }
            let e = ControllerEndpoint {
                name: l.name.clone(),
                host: l.host.clone(),
                port: l.port,
                security_protocol: l.security_protocol,
                ..Default::default()
            };
            // Kafka keys listeners by name (a later duplicate replaces the earlier one in place).
            match end_points.iter_mut().find(|x| x.name == l.name) {
                Some(x) => *x = e,
                None => end_points.push(e),
            }
        }
        let record = RegisterControllerRecord {
            controller_id: request.controller_id,
            incarnation_id: request.incarnation_id,
            zk_migration_ready: false,
            end_points: end_points.into(),
            features: request
                .features
                .iter()
                .map(|f| ControllerFeature {
                    name: f.name.clone(),
                    min_supported_version: f.min_supported_version,
                    max_supported_version: f.max_supported_version,
                    ..Default::default()
                })
                .collect(),
            ..Default::default()
        };
        self.quorum
            .append_and_commit(
                facts.epoch,
                vec![MetadataRecord::RegisterController(record)],
            )
            .await
            .map_err(append_error)?;
        Ok(())
    }

    /// UnregisterController (KIP-1312), checks in Kafka 4.4's order:
    /// NOT_CONTROLLER, INVALID_REQUEST for the active controller itself,
    /// UNSUPPORTED_VERSION below metadata.version 4.4-IV2,
    /// CONTROLLER_ID_NOT_REGISTERED; then an UnregisterControllerRecord,
    /// answered after it commits.
    pub async fn unregister_controller(
        &self,
        request: &UnregisterControllerRequest,
    ) -> UnregisterControllerResponse {
        match self.unregister(request.controller_id).await {
            Ok(()) => UnregisterControllerResponse::default(),
            // UnregisterControllerRequest.getErrorResponse uses the exception's own message.
            Err(e) => UnregisterControllerResponse {
                error_code: e.code.code(),
                error_message: e.message.map(StrBytes::from),
                ..Default::default()
            },
        }
    }

    async fn unregister(&self, controller_id: i32) -> Result<(), ApiError> {
        let _guard = self.write_lock.lock().await;
        let facts = self.quorum.facts();
        if !facts.is_active_controller || !self.image.is_loaded() {
            return Err(not_controller(facts.leader_id));
        }
        if controller_id == self.settings.node_id {
            return Err(ApiError::new(
                ErrorCode::InvalidRequest,
                "Controller cannot unregister itself while it is active.",
            ));
        }
        // Kafka trunk (KAFKA-20865): a voter of the latest set, committed or
        // not, keeps its registration (it would re-register anyway).
        if self
            .quorum
            .latest_voter_ids()
            .await
            .contains(&controller_id)
        {
            return Err(ApiError::new(
                ErrorCode::InvalidRequest,
                format!("Cannot unregister controller {controller_id} because it is part of the voter set."),
            ));
        }
        {
            let image = self.image.read();
            if !image
                .metadata_version()
                .is_some_and(MetadataVersion::is_controller_unregistration_supported)
            {
                return Err(ApiError::new(
                    ErrorCode::UnsupportedVersion,
                    "The current MetadataVersion is too old to support controller unregistration.",
                ));
            }
            if image.controller(controller_id).is_none() {
                return Err(ApiError::new(
                    ErrorCode::ControllerIdNotRegistered,
                    format!("Controller ID {controller_id} is not currently registered."),
                ));
            }
        }
        let record = UnregisterControllerRecord {
            controller_id,
            ..Default::default()
        };
        self.quorum
            .append_and_commit(
                facts.epoch,
                vec![MetadataRecord::UnregisterController(record)],
            )
            .await
            .map_err(append_error)?;
        Ok(())
    }

    /// UpdateFeatures (`QuorumController.updateFeatures` +
    /// `FeatureControlManager.updateFeatures`).
    pub async fn update_features(
        &self,
        version: i16,
        request: &UpdateFeaturesRequest,
    ) -> UpdateFeaturesResponse {
        match self.apply_feature_updates(request).await {
            Ok(()) => UpdateFeaturesResponse {
                error_code: 0,
                error_message: None,
                results: if version <= 1 {
                    request
                        .feature_updates
                        .iter()
                        .map(|u| UpdatableFeatureResult {
                            feature: u.feature.clone(),
                            error_code: 0,
                            // Errors.NONE.message() is "NONE" in Kafka.
                            error_message: Some(StrBytes::from_static("NONE")),
                            ..Default::default()
                        })
                        .collect()
                } else {
                    Vec::new().into()
                },
                ..Default::default()
            },
            Err(UpdateFailure::Feature(e)) => UpdateFeaturesResponse {
                error_code: e.code.code(),
                error_message: Some(
                    format!(
                        "The update failed for all features since the following feature had an error: {}",
                        e.message.as_deref().unwrap_or("null")
                    )
                    .into(),
                ),
                ..Default::default()
            },
            // UpdateFeaturesRequest.getErrorResponse: ApiError.fromThrowable keeps
            // the message only if it differs from the default text.
            Err(UpdateFailure::Request(e)) => UpdateFeaturesResponse {
                error_code: e.code.code(),
                error_message: e
                    .message
                    .filter(|m| m != e.code.default_message())
                    .map(StrBytes::from),
                ..Default::default()
            },
        }
    }

    async fn apply_feature_updates(
        &self,
        request: &UpdateFeaturesRequest,
    ) -> Result<(), UpdateFailure> {
        let _guard = self.write_lock.lock().await;
        let facts = self.quorum.facts();
        if !facts.is_active_controller || !self.image.is_loaded() {
            return Err(UpdateFailure::Request(not_controller(facts.leader_id)));
        }
        let image = self.image.snapshot();
        let Some(mv) = image.metadata_version() else {
            return Err(UpdateFailure::Request(ApiError {
                code: ErrorCode::UnknownServerError,
                message: None,
            }));
        };
        // Kafka collects the updates in a HashMap (a later duplicate replaces
        // the level and upgrade type) and processes them in its order.
        let mut updates: BTreeMap<String, (i16, i8)> = BTreeMap::new();
        let mut names: Vec<String> = Vec::new();
        for u in &request.feature_updates {
            let name = u.feature.to_string();
            if !names.contains(&name) {
                names.push(name.clone());
            }
            updates.insert(name, (u.max_version_level, u.upgrade_type));
        }
        let mut proposed: BTreeMap<String, i16> = image
            .finalized_features()
            .iter()
            .map(|(n, l)| (n.clone(), *l))
            .collect();
        proposed.insert(METADATA_VERSION.to_string(), mv.feature_level());
        for (n, (l, _)) in &updates {
            proposed.insert(n.clone(), *l);
        }
        let mut records = Vec::new();
        for name in JavaHashMap::from_keys(names).iter() {
            let Some(&(level, upgrade_type)) = updates.get(name) else {
                continue;
            };
            self.update_feature(
                &image,
                &facts,
                mv,
                name,
                level,
                upgrade_type,
                &proposed,
                request.validate_only,
                &mut records,
            )
            .await
            .map_err(UpdateFailure::Feature)?;
        }
        if request.validate_only || records.is_empty() {
            return Ok(());
        }
        self.quorum
            .append_and_commit(facts.epoch, records)
            .await
            .map_err(|e| UpdateFailure::Request(append_error(e)))?;
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    async fn update_feature(
        &self,
        image: &ClusterImage,
        facts: &QuorumFacts,
        mv: MetadataVersion,
        name: &str,
        level: i16,
        upgrade_type: i8,
        proposed: &BTreeMap<String, i16>,
        validate_only: bool,
        records: &mut Vec<MetadataRecord>,
    ) -> Result<(), ApiError> {
        if !(UPGRADE..=UNSAFE_DOWNGRADE).contains(&upgrade_type) {
            return Err(invalid_update_version(
                name,
                level,
                "The controller does not support the given upgrade type.",
            ));
        }
        let current = match name {
            METADATA_VERSION => mv.feature_level(),
            KRAFT_VERSION => facts.kraft_version,
            _ => image.feature_level(name),
        };
        if level < 0 {
            return Err(invalid_update_version(
                name,
                level,
                "A feature version cannot be less than 0.",
            ));
        }
        if let Some(reason) = self.reason_not_supported(image, facts, mv, name, level) {
            return Err(invalid_update_version(name, level, &reason));
        }
        if level < current {
            if upgrade_type == UPGRADE {
                return Err(invalid_update_version(
                    name,
                    level,
                    "Can't downgrade the version of this feature without setting the upgrade type to either safe or unsafe downgrade.",
                ));
            }
        } else if level > current && upgrade_type != UPGRADE {
            return Err(invalid_update_version(
                name,
                level,
                "Can't downgrade to a newer version.",
            ));
        }
        match name {
            METADATA_VERSION => {
                let Some(new_mv) = MetadataVersion::from_feature_level(level) else {
                    let text = format!(
                        "Invalid metadata.version {level}. Valid versions are from {} to {}.",
                        MetadataVersion::MINIMUM.feature_level(),
                        MetadataVersion::LATEST_TESTING.feature_level()
                    );
                    return Err(ApiError::new(ErrorCode::InvalidUpdateVersion, text));
                };
                if new_mv < mv {
                    if !MetadataVersion::metadata_changed_between(mv, new_mv) {
                        tracing::warn!("Downgrading metadata.version from {mv} to {new_mv}.");
                    } else {
                        let why = if upgrade_type == UNSAFE_DOWNGRADE {
                            "Unsafe metadata downgrade is not supported in this version."
                        } else {
                            "Refusing to perform the requested downgrade because it might delete metadata information."
                        };
                        return Err(ApiError::new(
                            ErrorCode::InvalidUpdateVersion,
                            format!(
                                "Unsupported metadata.version downgrade from {} to {}. {why}",
                                mv.feature_level(),
                                level
                            ),
                        ));
                    }
                } else {
                    tracing::warn!("Upgrading metadata.version from {mv} to {new_mv}.");
                }
                records.push(MetadataRecord::feature_level(METADATA_VERSION, level));
                Ok(())
            }
            KRAFT_VERSION => {
                if upgrade_type == UPGRADE {
                    self.quorum
                        .upgrade_kraft_version(facts.epoch, level, validate_only)
                        .await?;
                    // A record so that there is an offset to wait on.
                    records.push(MetadataRecord::NoOp);
                    Ok(())
                } else if level != current {
                    Err(invalid_update_version(
                        name,
                        level,
                        "Can't downgrade the version of this feature.",
                    ))
                } else {
                    Ok(())
                }
            }
            _ => {
                let Some(spec) = FeatureSpec::find(name) else {
                    return Err(invalid_update_version(
                        name,
                        level,
                        &format!("Feature {name} not found."),
                    ));
                };
                let fl = spec
                    .level(level, true)
                    .map_err(|m| invalid_update_version(name, level, &m))?;
                validate_feature_dependencies(name, fl, proposed)
                    .map_err(|m| invalid_update_version(name, level, &m))?;
                records.push(MetadataRecord::feature_level(name, level));
                Ok(())
            }
        }
    }

    /// `FeatureControlManager.reasonNotSupported`: the local controller,
    /// then every other registered controller (when metadata.version has
    /// registrations), then every voter must be registered — the static
    /// voters, and (as on Kafka trunk, KAFKA-20865) every id of the latest
    /// voter set.
    fn reason_not_supported(
        &self,
        image: &ClusterImage,
        facts: &QuorumFacts,
        mv: MetadataVersion,
        name: &str,
        level: i16,
    ) -> Option<String> {
        let node = self.settings.node_id;
        if let Some(r) = reason_not_supported(
            &format!("Local controller {node}"),
            self.local_range(name),
            level,
        ) {
            return Some(r);
        }
        if mv.is_controller_registration_supported() {
            let order = JavaHashMap::from_keys(image.controllers().map(|c| c.id));
            let mut found = vec![node];
            for id in order.iter() {
                if *id == node {
                    continue;
                }
                let Some(c) = image.controller(*id) else {
                    continue;
                };
                if let Some(r) = reason_not_supported(
                    &format!("Controller {id}"),
                    c.supported_range(name),
                    level,
                ) {
                    return Some(r);
                }
                found.push(*id);
            }
            let voters = facts.voters.iter().map(|v| &v.key.id);
            for id in self.settings.static_voter_ids.iter().chain(voters) {
                if !found.contains(id) {
                    return Some(format!(
                        "controller {id} has not registered, and may not support this feature"
                    ));
                }
            }
        }
        None
    }
}

enum UpdateFailure {
    /// A feature update was refused (wrapped in "The update failed for all features ...").
    Feature(ApiError),
    /// The request as a whole failed (not the controller, ...).
    Request(ApiError),
}

/// The finalized features in the order Kafka's ApiVersions lists them: the
/// iteration order of the `HashMap` that `FinalizedFeatures` builds from the
/// image's feature map (modelled as filled in one metadata delta, in the
/// order the features were first set), then metadata.version and
/// kraft.version added.
fn finalized_feature_order(
    image: &ClusterImage,
    mv: MetadataVersion,
    kraft_version: i16,
) -> Vec<(String, i16)> {
    let features = image.finalized_features();
    let changes = JavaHashMap::from_keys(features.iter().map(|(n, _)| n.clone()));
    let mut image_map = JavaHashMap::with_capacity(0);
    for n in changes.iter() {
        image_map.put(n.clone());
    }
    let mut map = JavaHashMap::copy_of(&image_map);
    map.put(METADATA_VERSION.to_string());
    if kraft_version != 0 {
        let mut with_kraft = JavaHashMap::copy_of(&map);
        with_kraft.put(KRAFT_VERSION.to_string());
        map = JavaHashMap::copy_of(&with_kraft);
        map.put(METADATA_VERSION.to_string());
    }
    map.iter()
        .map(|n| {
            let level = match n.as_str() {
                METADATA_VERSION => mv.feature_level(),
                KRAFT_VERSION => kraft_version,
                _ => image.feature_level(n),
            };
            (n.clone(), level)
        })
        .collect()
}

#[async_trait]
impl RequestHandler for Controller {
    fn supported_apis(&self) -> Vec<ApiRange> {
        self.served_apis()
    }

    async fn handle(
        &self,
        ctx: RequestContext,
        request: RequestBody,
    ) -> Result<ResponseBody, CloseConnection> {
        let v = ctx.api_version;
        Ok(match request {
            RequestBody::ApiVersions(r) => ResponseBody::ApiVersions(self.api_versions(v, &r)),
            RequestBody::DescribeCluster(r) => {
                ResponseBody::DescribeCluster(self.describe_cluster(v, &ctx.listener_name, &r))
            }
            RequestBody::ControllerRegistration(r) => {
                ResponseBody::ControllerRegistration(self.controller_registration(&r).await)
            }
            RequestBody::UnregisterController(r) => {
                ResponseBody::UnregisterController(self.unregister_controller(&r).await)
            }
            RequestBody::UpdateFeatures(r) => {
                ResponseBody::UpdateFeatures(self.update_features(v, &r).await)
            }
            other => return self.quorum.handle_raft_request(&ctx, other).await,
        })
    }
}

#[cfg(test)]
#[path = "handlers_tests.rs"]
mod tests;
