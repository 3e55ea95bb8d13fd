//! The controller's request handlers (Kafka's `ControllerApis` and
//! `QuorumController`) over the [`MetadataImage`](crate::image::MetadataImage),
//! and the [`RaftQuorum`] trait through which they reach the raft layer.
//!
//! The handlers follow Kafka 4.4's `ControllerApis` / `QuorumController`:
//!
//! * **ApiVersions** (KIP-511, `ControllerApis.handleApiVersionsRequest`): the served APIs, supported features (at
//!   versions below 4 the features whose minimum is 0 are omitted, KAFKA-17492)
//!   and finalized features (non-zero levels, as point ranges; kraft.version
//!   from the raft layer), in the order Kafka's hash maps produce them;
//!   `INVALID_REQUEST` for v3+ requests with malformed client software
//!   name/version or a v5 request setting only one of ClusterId/NodeId.
//! * **DescribeCluster** (KIP-919, `ControllerApis.handleDescribeCluster`): the registered controllers with an endpoint
//!   on the request's listener; the raft leader as ControllerId (or -1 when
//!   it is not in the list).
//! * Until the image is loaded (a starting controller has not replayed its
//!   committed snapshot and log, [`SharedImage::is_loaded`]) nothing is
//!   answered from it: DescribeCluster and the writes answer the retriable
//!   `NOT_CONTROLLER`, ApiVersions finalizes no feature.
//! * **ControllerRegistration** (KIP-919) and **UnregisterController** (KIP-1312):
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
//!
//! The handlers are split along Kafka's control-manager seams:
//!
//! * `quorum`: the [`RaftQuorum`] port and the facts it reports;
//! * `cluster`: ApiVersions and DescribeCluster (`ControllerApis`);
//! * `registration`: ControllerRegistration and UnregisterController
//!   (`ClusterControlManager`);
//! * `features`: UpdateFeatures (`FeatureControlManager`);
//! * `brokers`, `heartbeats`: broker registrations, heartbeats, sessions
//!   (`ClusterControlManager`, `BrokerHeartbeatManager`);
//! * `topics`, `topic_admin`, `partitions`, `elections`: CreateTopics,
//!   DeleteTopics, CreatePartitions, AlterPartition, ElectLeaders and the
//!   periodic elections (`ReplicationControlManager`);
//! * `reassignments`: AlterPartitionReassignments and
//!   ListPartitionReassignments (`ReplicationControlManager`);
//! * `directories`: AssignReplicasToDirs (`ReplicationControlManager`);
//! * `configs`: DescribeConfigs (`ConfigHelper`), AlterConfigs and
//!   IncrementalAlterConfigs (`ConfigurationControlManager`);
//! * `producer_ids`: AllocateProducerIds (`ProducerIdControlManager`);
//! * `acls`, `scram`, `quotas`, `tokens`: ACLs, SCRAM credentials, client
//!   quotas and delegation tokens (`AclControlManager`,
//!   `ScramControlManager`, `ClientQuotaControlManager`,
//!   `DelegationTokenControlManager`);
//! * `mutation_quota`: the controller mutation quota (KIP-599) charged by
//!   CreateTopics, DeleteTopics and CreatePartitions
//!   (`ControllerMutationQuotaManager`);
//! * `envelope`: requests brokers forward;
//! * `error_response`: the answer to a request that fails as a whole
//!   (Kafka's `AbstractRequest.getErrorResponse`), for every API.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use kraft_protocol::{ApiKey, ErrorCode, RequestBody, ResponseBody};
use tokio::sync::Mutex;

use crate::config::ControllerConfig;
use crate::features::{supported_features, VersionRange};
use crate::image::{MetadataImage, SharedImage};
use crate::server::{ApiRange, CloseConnection, RequestContext, RequestHandler};

mod acls;
mod authz;
mod brokers;
mod cluster;
mod configs;
mod directories;
mod elections;
mod envelope;
mod error_response;
mod features;
mod heartbeats;
pub mod mutation_quota;
mod partitions;
mod performance;
mod producer_ids;
mod quorum;
mod quotas;
mod reassignments;
mod registration;
pub(crate) mod scram;
pub(crate) mod tokens;
mod topic_admin;
mod topics;
pub(crate) mod writer;
pub use mutation_quota::MutationQuotaWindow;
pub use writer::WriteStats;

pub use authz::{cluster_operation, Access, Caller, CLUSTER_NAME};
pub use cluster::ALL_CLUSTER_OPERATIONS;
pub use envelope::FORWARDABLE_API_KEYS;
pub(crate) use error_response::error_response;
pub use quorum::{
    ApiError, AppendError, PendingCommit, QuorumFacts, QuorumVoter, RaftQuorum, ReplicaKey,
    VoterEndpoint,
};

/// Kafka's `QuorumController.MAX_RECORDS_PER_USER_OP`: the most records
/// (and results) one user operation may produce.
pub(crate) const MAX_RECORDS_PER_USER_OP: usize = 10_000;

/// An [`ApiError`] with Kafka's message.
pub(crate) fn error(code: ErrorCode, message: impl Into<String>) -> ApiError {
    ApiError::new(code, message)
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
    /// `broker.session.timeout.ms`
    pub broker_session_timeout: Duration,
    /// `broker.heartbeat.interval.ms`
    pub broker_heartbeat_interval: Duration,
    /// Topic and partition defaults.
    pub topics: TopicDefaults,
    /// The StandardAuthorizer's settings (`authorizer.class.name`), or
    /// `None`: no authorization.
    pub authorizer: Option<crate::authorizer::AuthorizerConfig>,
    /// The delegation token settings (`delegation.token.*`).
    pub delegation_tokens: crate::config::security::DelegationTokenSettings,
    /// The group coordinator's bounds that GROUP configs are checked against.
    pub groups: crate::config::groups::GroupSettings,
    /// The configuration file's properties as written: the static configs
    /// DescribeConfigs lists for this node.
    pub static_configs: crate::config::StaticProperties,
    /// The controller mutation quota's windows (`controller.quota.window.*`).
    pub mutation_quota_window: MutationQuotaWindow,
    /// When writes are logged for their time (`controller.performance.*`).
    pub performance: PerformanceSettings,
}

/// `controller.performance.sample.period.ms` and
/// `controller.performance.always.log.threshold.ms`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PerformanceSettings {
    /// How often the active controller logs its writes' times.
    pub sample_period: Duration,
    /// A write taking this long or longer is logged at once.
    pub always_log_threshold: Duration,
}

impl Default for PerformanceSettings {
    /// Kafka's defaults: 60 s and 2 s.
    fn default() -> Self {
        PerformanceSettings {
            sample_period: Duration::from_secs(60),
            always_log_threshold: Duration::from_secs(2),
        }
    }
}

/// The static settings that shape topics and partition leadership.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TopicDefaults {
    /// `num.partitions`
    pub num_partitions: i32,
    /// `default.replication.factor`
    pub replication_factor: i16,
    /// `min.insync.replicas`: the last fallback of a topic's minimum ISR.
    pub min_insync_replicas: i32,
    /// `leader.imbalance.check.interval.seconds`, when
    /// `auto.leader.rebalance.enable` is set.
    pub leader_imbalance_check_interval: Option<Duration>,
    /// `delete.topic.enable`: whether DeleteTopics may delete.
    pub delete_enable: bool,
    /// The static `unclean.leader.election.enable`: the last fallback of a
    /// topic's setting.
    pub unclean_leader_election_enable: bool,
    /// `unclean.leader.election.interval.ms`: how often leaderless
    /// partitions are looked at for an unclean election.
    pub unclean_leader_election_interval: Duration,
}

impl Default for TopicDefaults {
    /// Kafka 4.4's defaults.
    fn default() -> Self {
        TopicDefaults {
            num_partitions: 1,
            replication_factor: 1,
            min_insync_replicas: 1,
            leader_imbalance_check_interval: Some(Duration::from_secs(300)),
            delete_enable: true,
            unclean_leader_election_enable: false,
            unclean_leader_election_interval: Duration::from_secs(300),
        }
    }
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
            broker_session_timeout: duration_ms(config.broker_session_timeout_ms),
            broker_heartbeat_interval: duration_ms(config.broker_heartbeat_interval_ms),
            topics: TopicDefaults {
                num_partitions: config.num_partitions,
                replication_factor: i16::try_from(config.default_replication_factor)
                    .unwrap_or(i16::MAX),
                min_insync_replicas: config.min_insync_replicas,
                leader_imbalance_check_interval: config.auto_leader_rebalance_enable.then(|| {
                    Duration::from_secs(
                        u64::try_from(config.leader_imbalance_check_interval_seconds).unwrap_or(1),
                    )
                }),
                delete_enable: config.delete_topic_enable,
                unclean_leader_election_enable: config.unclean_leader_election_enable,
                unclean_leader_election_interval: Duration::from_millis(
                    u64::try_from(config.unclean_leader_election_interval_ms).unwrap_or(1),
                ),
            },
            authorizer: config.security.authorizer.as_ref().map(|a| {
                crate::authorizer::AuthorizerConfig {
                    super_users: a.super_users.iter().cloned().collect(),
                    allow_everyone_if_no_acl_found: a.allow_everyone_if_no_acl_found,
                }
            }),
            delegation_tokens: config.security.delegation_tokens.clone(),
            groups: config.groups.clone(),
            static_configs: config.static_properties.clone(),
            mutation_quota_window: MutationQuotaWindow {
                samples: u32::try_from(config.controller_quota_window_num).unwrap_or(1),
                size_seconds: u32::try_from(config.controller_quota_window_size_seconds)
                    .unwrap_or(1),
            },
            performance: PerformanceSettings {
                sample_period: Duration::from_millis(
                    u64::try_from(config.controller_performance_sample_period_ms).unwrap_or(100),
                ),
                always_log_threshold: Duration::from_millis(
                    u64::try_from(config.controller_performance_always_log_threshold_ms)
                        .unwrap_or(0),
                ),
            },
        }
    }

    /// How long a heartbeat may wait for the writer: half the heartbeat
    /// interval (Kafka's `ControllerApis` deadline).
    pub fn heartbeat_deadline(&self) -> Duration {
        self.broker_heartbeat_interval / 2
    }
}

fn duration_ms(ms: i32) -> Duration {
    Duration::from_millis(u64::try_from(ms).unwrap_or(0))
}

/// The CreateTopics version from which the controller mutation quota is
/// strict (Kafka's `ControllerApis.handleCreateTopics`).
pub const CREATE_TOPICS_STRICT_SINCE: i16 = 6;
/// The DeleteTopics version from which the controller mutation quota is
/// strict.
pub const DELETE_TOPICS_STRICT_SINCE: i16 = 5;
/// The CreatePartitions version from which the controller mutation quota is
/// strict.
pub const CREATE_PARTITIONS_STRICT_SINCE: i16 = 3;

/// The controller APIs served by [`Controller`] itself.
pub const CONTROLLER_APIS: &[ApiKey] = &[
    ApiKey::ApiVersions,
    ApiKey::UpdateFeatures,
    ApiKey::DescribeCluster,
    ApiKey::ControllerRegistration,
    ApiKey::UnregisterController,
    ApiKey::BrokerRegistration,
    ApiKey::BrokerHeartbeat,
    ApiKey::UnregisterBroker,
    ApiKey::Envelope,
    ApiKey::CreateTopics,
    ApiKey::AlterPartition,
    ApiKey::AllocateProducerIds,
    ApiKey::DeleteTopics,
    ApiKey::CreatePartitions,
    ApiKey::ElectLeaders,
    ApiKey::AlterPartitionReassignments,
    ApiKey::ListPartitionReassignments,
    ApiKey::AssignReplicasToDirs,
    ApiKey::DescribeConfigs,
    ApiKey::AlterConfigs,
    ApiKey::IncrementalAlterConfigs,
    ApiKey::DescribeAcls,
    ApiKey::CreateAcls,
    ApiKey::DeleteAcls,
    ApiKey::AlterClientQuotas,
    ApiKey::AlterUserScramCredentials,
    ApiKey::CreateDelegationToken,
    ApiKey::RenewDelegationToken,
    ApiKey::ExpireDelegationToken,
    ApiKey::SaslHandshake,
    ApiKey::SaslAuthenticate,
];
/// The controller: request handlers over the shared image and the quorum.
pub struct Controller {
    settings: ControllerSettings,
    image: SharedImage,
    quorum: Arc<dyn RaftQuorum>,
    /// The one writer's lock and the active state it guards.
    writer: Mutex<Option<writer::ActiveState>>,
    /// The last batch the writer appended, `(epoch, last offset)`: a write
    /// state taken again in that epoch waits until the image has applied it.
    last_append: std::sync::Mutex<Option<(i32, i64)>>,
    /// What the writer counts (see [`WriteStats`]).
    write_stats: writer::WriteCounters,
    /// Kafka's controller counters (the writer's waits and holds).
    stats: Arc<crate::metrics::ControllerStats>,
    /// Broker session contact times, touched outside the writer.
    sessions: std::sync::Mutex<heartbeats::SessionTracker>,
    /// The authorizer, when `authorizer.class.name` names one.
    authorizer: Option<crate::authorizer::StandardAuthorizer>,
    /// This process's loggers (BROKER_LOGGER resources).
    loggers: Arc<crate::loggers::Loggers>,
    /// The controller mutation quota's buckets.
    mutation_quotas: Arc<mutation_quota::MutationQuotas>,
    /// The writes' times since the last periodic performance message.
    performance: std::sync::Mutex<performance::PerformanceMonitor>,
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

/// Adds `item` to `list` in order, replacing in place an entry `same` as it
/// (Kafka keys registration listeners by name: a repeated name replaces the
/// earlier entry).
fn put_by_name<T>(list: &mut Vec<T>, item: T, same: impl Fn(&T, &T) -> bool) {
    match list.iter_mut().find(|x| same(x, &item)) {
        Some(x) => *x = item,
        None => list.push(item),
    }
}

/// Kafka's `ClusterControlManager.checkBrokerEpoch`: STALE_BROKER_EPOCH
/// unless broker `id` is registered at `epoch`.
fn check_broker_epoch(image: &MetadataImage, id: i32, epoch: i64) -> Result<(), ApiError> {
    let Some(registration) = image.cluster().broker(id) else {
        return Err(ApiError::new(
            ErrorCode::StaleBrokerEpoch,
            format!("No broker registration found for broker id {id}"),
        ));
    };
    if registration.epoch() != epoch {
        return Err(ApiError::new(
            ErrorCode::StaleBrokerEpoch,
            format!(
                "Expected broker epoch {}, but got broker epoch {epoch}",
                registration.epoch()
            ),
        ));
    }
    Ok(())
}

fn append_error(e: AppendError) -> ApiError {
    match e {
        AppendError::NotController { leader_id } => not_controller(leader_id),
        AppendError::Timeout => ApiError {
            code: ErrorCode::RequestTimedOut,
            message: None,
        },
        AppendError::OffsetMismatch { end_offset } => {
            tracing::error!("metadata append refused: the log ends at offset {end_offset}");
            ApiError {
                code: ErrorCode::UnknownServerError,
                message: None,
            }
        }
        e @ AppendError::BatchTooLarge { .. } => {
            ApiError::new(ErrorCode::RecordListTooLarge, e.to_string())
        }
        AppendError::Log(e) => {
            tracing::error!(error = %e, "metadata append failed");
            ApiError {
                code: ErrorCode::UnknownServerError,
                message: None,
            }
        }
        AppendError::Failed(m) => {
            tracing::error!("metadata append failed: {m}");
            ApiError {
                code: ErrorCode::UnknownServerError,
                message: None,
            }
        }
    }
}
impl Controller {
    /// A controller over `image` and `quorum`.
    pub fn new(
        settings: ControllerSettings,
        image: SharedImage,
        quorum: Arc<dyn RaftQuorum>,
    ) -> Self {
        let sessions = heartbeats::SessionTracker::new(settings.broker_session_timeout);
        let stats = Arc::new(crate::metrics::ControllerStats::default());
        stats.set_broker_session_timeout(settings.broker_session_timeout);
        let authorizer = settings
            .authorizer
            .clone()
            .map(crate::authorizer::StandardAuthorizer::new);
        let mutation_quotas = Arc::new(mutation_quota::MutationQuotas::new(
            settings.mutation_quota_window,
        ));
        let performance = std::sync::Mutex::new(performance::PerformanceMonitor::new(
            settings.performance.sample_period,
            settings.performance.always_log_threshold,
        ));
        Controller {
            authorizer,
            mutation_quotas,
            performance,
            settings,
            image,
            quorum,
            writer: Mutex::new(None),
            last_append: std::sync::Mutex::new(None),
            write_stats: writer::WriteCounters::default(),
            stats,
            sessions: std::sync::Mutex::new(sessions),
            loggers: crate::loggers::process(),
        }
    }

    /// This controller counting its writer's operations in `stats` (shared
    /// with the metrics endpoint).
    pub fn with_stats(self, stats: Arc<crate::metrics::ControllerStats>) -> Self {
        stats.set_broker_session_timeout(self.settings.broker_session_timeout);
        Controller { stats, ..self }
    }

    /// This controller with its own `loggers` in place of the process's
    /// ([`crate::loggers::process`]).
    pub fn with_loggers(mut self, loggers: Arc<crate::loggers::Loggers>) -> Self {
        self.loggers = loggers;
        self
    }

    /// Reads the controller mutation quota's buckets against `clock`
    /// (milliseconds since the epoch) in place of the system clock.
    pub fn set_mutation_quota_clock(&self, clock: mutation_quota::MillisClock) {
        self.mutation_quotas.set_clock(clock);
    }

    /// The controller mutation quota of a request from `ctx` at `version`,
    /// strict from `strict_since` (Kafka's `newQuotaFor`).
    pub(crate) fn mutation_quota(
        &self,
        ctx: &RequestContext,
        strict_since: i16,
    ) -> mutation_quota::RequestQuota {
        let (user, client_id) = mutation_quota::request_identity(ctx);
        self.mutation_quota_for(&user, &client_id, ctx.api_version, strict_since)
    }

    /// The controller mutation quota of a request from `user` with
    /// `client_id` at `version`, strict from `strict_since`.
    pub(crate) fn mutation_quota_for(
        &self,
        user: &str,
        client_id: &str,
        version: i16,
        strict_since: i16,
    ) -> mutation_quota::RequestQuota {
        let mode = mutation_quota::QuotaMode::for_version(version, strict_since);
        self.mutation_quotas
            .quota_for(self.image.read().client_quotas(), user, client_id, mode)
    }

    /// The settings.
    pub fn settings(&self) -> &ControllerSettings {
        &self.settings
    }

    /// What partition changes fall back to for topic configs.
    pub(crate) fn replication_settings(
        &self,
    ) -> crate::replication::broker_changes::ReplicationSettings {
        crate::replication::broker_changes::ReplicationSettings {
            unclean_leader_election_enable: self.settings.topics.unclean_leader_election_enable,
            ..crate::replication::broker_changes::ReplicationSettings::new(
                self.settings.node_id,
                self.settings.topics.min_insync_replicas,
            )
        }
    }

    /// What the raft layer reports now (cached).
    #[cfg(test)]
    pub(crate) fn quorum_facts(&self) -> QuorumFacts {
        self.quorum.facts()
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
        let caller = ctx.caller();
        if let Err(refusal) = self.authorize_request(&caller, ctx.api_key) {
            let e = refusal.api_error();
            tracing::debug!(api = ctx.api_key.kafka_name(), %caller, code = e.code.name(), "request refused by the authorizer");
            return error_response(&request, v, e.code, e.message.as_deref())
                .ok_or_else(|| CloseConnection(format!("{} refused", ctx.api_key.kafka_name())));
        }
        let access = self.access(&caller);
        Ok(match request {
            RequestBody::ApiVersions(r) => ResponseBody::ApiVersions(self.api_versions(v, &r)),
            RequestBody::DescribeCluster(r) => ResponseBody::DescribeCluster(
                self.describe_cluster_with(&access, v, &ctx.listener_name, &r),
            ),
            RequestBody::ControllerRegistration(r) => {
                ResponseBody::ControllerRegistration(self.controller_registration(&r).await)
            }
            RequestBody::UnregisterController(r) => {
                ResponseBody::UnregisterController(self.unregister_controller(&r).await)
            }
            RequestBody::UpdateFeatures(r) => {
                ResponseBody::UpdateFeatures(self.update_features(v, &r).await)
            }
            RequestBody::BrokerRegistration(r) => {
                ResponseBody::BrokerRegistration(self.broker_registration(v, &r).await)
            }
            RequestBody::BrokerHeartbeat(r) => {
                ResponseBody::BrokerHeartbeat(self.broker_heartbeat(&r).await)
            }
            RequestBody::UnregisterBroker(r) => {
                ResponseBody::UnregisterBroker(self.unregister_broker(&r).await)
            }
            RequestBody::Envelope(r) => {
                ResponseBody::Envelope(self.envelope(&access, &ctx, r).await)
            }
            RequestBody::CreateTopics(r) => {
                let quota = self.mutation_quota(&ctx, CREATE_TOPICS_STRICT_SINCE);
                let mut response = self.create_topics_with(&access, &quota, &r).await;
                response.throttle_time_ms = quota.throttle_time_ms();
                ResponseBody::CreateTopics(response)
            }
            RequestBody::AlterPartition(r) => {
                ResponseBody::AlterPartition(self.alter_partition(v, &r).await)
            }
            RequestBody::DeleteTopics(r) => {
                let quota = self.mutation_quota(&ctx, DELETE_TOPICS_STRICT_SINCE);
                let mut response = self.delete_topics_with(&access, &quota, v, &r).await;
                response.throttle_time_ms = quota.throttle_time_ms();
                ResponseBody::DeleteTopics(response)
            }
            RequestBody::CreatePartitions(r) => {
                let quota = self.mutation_quota(&ctx, CREATE_PARTITIONS_STRICT_SINCE);
                let mut response = self.create_partitions_with(&access, &quota, &r).await;
                response.throttle_time_ms = quota.throttle_time_ms();
                ResponseBody::CreatePartitions(response)
            }
            RequestBody::ElectLeaders(r) => {
                ResponseBody::ElectLeaders(self.elect_leaders(v, &r).await)
            }
            RequestBody::AlterPartitionReassignments(r) => {
                ResponseBody::AlterPartitionReassignments(
                    self.alter_partition_reassignments(&r).await,
                )
            }
            RequestBody::ListPartitionReassignments(r) => {
                ResponseBody::ListPartitionReassignments(self.list_partition_reassignments(&r))
            }
            RequestBody::AssignReplicasToDirs(r) => {
                ResponseBody::AssignReplicasToDirs(self.assign_replicas_to_dirs(&r).await)
            }
            RequestBody::DescribeConfigs(r) => {
                ResponseBody::DescribeConfigs(self.describe_configs_with(&access, &r))
            }
            RequestBody::AlterConfigs(r) => ResponseBody::AlterConfigs(
                self.alter_configs_with(&access, &r, ctx.forwarded).await,
            ),
            RequestBody::IncrementalAlterConfigs(r) => ResponseBody::IncrementalAlterConfigs(
                self.incremental_alter_configs_with(&access, &r, ctx.forwarded)
                    .await,
            ),
            RequestBody::AllocateProducerIds(r) => {
                ResponseBody::AllocateProducerIds(self.allocate_producer_ids(&r).await)
            }
            RequestBody::DescribeAcls(r) => ResponseBody::DescribeAcls(self.describe_acls(&r)?),
            RequestBody::CreateAcls(r) => ResponseBody::CreateAcls(self.create_acls(v, &r).await?),
            RequestBody::DeleteAcls(r) => ResponseBody::DeleteAcls(self.delete_acls(v, &r).await?),
            RequestBody::AlterClientQuotas(r) => {
                ResponseBody::AlterClientQuotas(self.alter_client_quotas(&r).await)
            }
            RequestBody::AlterUserScramCredentials(r) => {
                ResponseBody::AlterUserScramCredentials(self.alter_user_scram_credentials(&r).await)
            }
            RequestBody::CreateDelegationToken(r) => ResponseBody::CreateDelegationToken(
                self.create_delegation_token(&access, &ctx, &r).await,
            ),
            RequestBody::RenewDelegationToken(r) => {
                ResponseBody::RenewDelegationToken(self.renew_delegation_token(&ctx, &r).await)
            }
            RequestBody::ExpireDelegationToken(r) => {
                ResponseBody::ExpireDelegationToken(self.expire_delegation_token(&ctx, &r).await)
            }
            // Authentication happens in the server before any request gets
            // here: on an authenticated (or PLAINTEXT/SSL) connection these
            // are out of place, as `ControllerApis` answers them.
            sasl @ (RequestBody::SaslHandshake(_) | RequestBody::SaslAuthenticate(_)) => {
                return error_response(
                    &sasl,
                    v,
                    ErrorCode::IllegalSaslState,
                    Some("SaslAuthenticate request received after successful authentication"),
                )
                .ok_or_else(|| CloseConnection("unexpected SASL request".to_string()));
            }
            other => return self.quorum.handle_raft_request(&ctx, other).await,
        })
    }

    /// Ready once the image (and so the committed ACLs) is loaded: Kafka's
    /// authorizer completes its initial load then.
    async fn wait_until_ready(&self) {
        self.image.wait_until_loaded().await;
    }
}

#[cfg(test)]
mod acls_tests;
#[cfg(test)]
mod authz_tests;
#[cfg(test)]
mod broker_tests;
#[cfg(test)]
mod configs_describe_tests;
#[cfg(test)]
mod configs_tests;
#[cfg(test)]
mod directories_tests;
#[cfg(test)]
mod elections_tests;
#[cfg(test)]
mod error_response_tests;
#[cfg(test)]
mod mutation_quota_handler_tests;
#[cfg(test)]
mod quotas_tests;
#[cfg(test)]
mod reassignments_tests;
#[cfg(test)]
mod scram_tests;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tokens_tests;
#[cfg(test)]
mod topic_admin_tests;
#[cfg(test)]
mod topic_tests;
#[cfg(test)]
mod writer_tests;
