//! Controller configuration read from a Kafka-style `.properties` file.
//!
//! The keys, defaults, value syntax and cross-key validation follow Kafka
//! 4.4's `KafkaConfig` for a controller-only node (`process.roles=controller`,
//! the only role kraft-rs runs). Values are trimmed; numbers are base-10;
//! booleans are `true`/`false` in any case; lists are comma-separated.
//!
//! Every key is declared once in [`settings`] (key, type, default, bound,
//! documentation; `docs/configuration.md` is generated from it); the
//! listener, address and voter syntax lives in [`listeners`].
//!
//! Keys kraft-rs does not know are not errors: [`ControllerConfig::parse`]
//! returns them as [`ConfigWarning`]s (and logs them). Invalid values are
//! [`ConfigError`]s that name the key and what is allowed.

pub mod connections;
pub mod groups;
pub mod kafka_keys;
pub mod listeners;
pub mod logging;
pub mod security;
#[cfg(test)]
mod security_tests;
pub mod settings;
#[cfg(test)]
mod tests;
pub mod transport;

use std::collections::BTreeSet;
use std::fmt;
use std::path::{Path, PathBuf};

use kraft_protocol::text::{LoadError, Properties, PropertiesError};

use listeners::{
    distinct_ports, parse_bootstrap_servers, parse_listeners, parse_security_map, parse_voters,
};
pub use listeners::{HostPort, ListenerEndpoint, SecurityProtocol, StaticVoter};
pub use security::SecurityConfig;
use settings::*;
pub use transport::TransportSecurity;

/// Why a configuration could not be loaded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    /// The file could not be read.
    #[error("cannot read {path}: {message}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The OS error.
        message: String,
    },
    /// The file is not valid properties syntax.
    #[error("{path}: {source}")]
    Syntax {
        /// The file.
        path: PathBuf,
        /// The syntax error.
        source: PropertiesError,
    },
    /// A required key has no value.
    #[error("Missing required configuration \"{key}\" which has no default value.")]
    Missing {
        /// The key.
        key: &'static str,
    },
    /// A value is malformed or out of range.
    #[error("Invalid value {value} for configuration {key}: {reason}")]
    Invalid {
        /// The key.
        key: String,
        /// The offending value.
        value: String,
        /// What is allowed.
        reason: String,
    },
    /// The values are individually valid but inconsistent with each other.
    #[error("{0}")]
    Inconsistent(String),
}

/// A configuration key that was ignored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigWarning {
    /// The key.
    pub key: String,
    /// Why it is ignored.
    pub message: String,
}

impl fmt::Display for ConfigWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

/// A node role from `process.roles`. kraft-rs runs only the controller role.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ProcessRole {
    /// `controller`
    Controller,
}

/// The `controller.quorum.*` settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QuorumConfig {
    /// Static voters; empty for a dynamic quorum.
    pub voters: Vec<StaticVoter>,
    /// Addresses used to discover the leader of a dynamic quorum.
    pub bootstrap_servers: Vec<HostPort>,
    /// Base election timeout.
    pub election_timeout_ms: i32,
    /// Fetch timeout (follower) / check-quorum basis (leader).
    pub fetch_timeout_ms: i32,
    /// Maximum election backoff.
    pub election_backoff_max_ms: i32,
    /// Leader append linger.
    pub append_linger_ms: i32,
    /// KRaft RPC timeout; also the voter-change operation timeout.
    pub request_timeout_ms: i32,
    /// Backoff between retries.
    pub retry_backoff_ms: i32,
    /// Whether an observer controller adds itself to the voters.
    pub auto_join_enable: bool,
    /// FetchSnapshot MaxBytes.
    pub fetch_snapshot_max_bytes: i32,
    /// Fetch MaxBytes.
    pub fetch_max_bytes: i32,
}

impl Default for QuorumConfig {
    fn default() -> Self {
        QuorumConfig {
            voters: Vec::new(),
            bootstrap_servers: Vec::new(),
            election_timeout_ms: QUORUM_ELECTION_TIMEOUT_MS.default,
            fetch_timeout_ms: QUORUM_FETCH_TIMEOUT_MS.default,
            election_backoff_max_ms: QUORUM_ELECTION_BACKOFF_MAX_MS.default,
            append_linger_ms: QUORUM_APPEND_LINGER_MS.default,
            request_timeout_ms: QUORUM_REQUEST_TIMEOUT_MS.default,
            retry_backoff_ms: QUORUM_RETRY_BACKOFF_MS.default,
            auto_join_enable: QUORUM_AUTO_JOIN_ENABLE.default,
            fetch_snapshot_max_bytes: QUORUM_FETCH_SNAPSHOT_MAX_BYTES.default,
            fetch_max_bytes: QUORUM_FETCH_MAX_BYTES.default,
        }
    }
}

/// Metadata log retention and snapshot triggers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MetadataLogConfig {
    /// `metadata.log.segment.bytes`
    pub segment_bytes: i32,
    /// `internal.metadata.log.segment.bytes` (testing only; replaces
    /// `segment_bytes` when set)
    pub internal_segment_bytes: Option<i32>,
    /// `metadata.log.segment.ms`
    pub segment_ms: i64,
    /// `metadata.max.retention.bytes` (-1 = unlimited)
    pub max_retention_bytes: i64,
    /// `metadata.max.retention.ms` (-1 = unlimited)
    pub max_retention_ms: i64,
    /// `metadata.log.max.record.bytes.between.snapshots`
    pub snapshot_max_new_record_bytes: i64,
    /// `metadata.log.max.snapshot.interval.ms` (0 = no time-based snapshots)
    pub snapshot_max_interval_ms: i64,
}

impl MetadataLogConfig {
    /// The segment size in effect: `internal.metadata.log.segment.bytes`
    /// when set, else `metadata.log.segment.bytes` (Kafka's `KafkaRaftLog`).
    pub fn effective_segment_bytes(&self) -> i32 {
        self.internal_segment_bytes.unwrap_or(self.segment_bytes)
    }
}

impl Default for MetadataLogConfig {
    fn default() -> Self {
        MetadataLogConfig {
            segment_bytes: METADATA_LOG_SEGMENT_BYTES.default,
            internal_segment_bytes: None,
            segment_ms: METADATA_LOG_SEGMENT_MS.default,
            max_retention_bytes: METADATA_MAX_RETENTION_BYTES.default,
            max_retention_ms: METADATA_MAX_RETENTION_MS.default,
            snapshot_max_new_record_bytes: METADATA_SNAPSHOT_MAX_NEW_RECORD_BYTES.default,
            snapshot_max_interval_ms: METADATA_SNAPSHOT_MAX_INTERVAL_MS.default,
        }
    }
}

/// A validated controller configuration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ControllerConfig {
    /// `node.id`
    pub node_id: i32,
    /// `process.roles` (always `[Controller]`).
    pub process_roles: Vec<ProcessRole>,
    /// `controller.listener.names`, normalised; the first is the default
    /// listener used for all KRaft traffic.
    pub controller_listener_names: Vec<String>,
    /// `listeners`
    pub listeners: Vec<ListenerEndpoint>,
    /// `advertised.listeners`, if set.
    pub advertised_listeners: Option<Vec<ListenerEndpoint>>,
    /// The effective listener-name → security-protocol map.
    pub security_protocol_map: Vec<(String, SecurityProtocol)>,
    /// `metadata.log.dir`, if set.
    pub metadata_log_dir: Option<PathBuf>,
    /// `log.dirs` (or `log.dir`).
    pub log_dirs: Vec<PathBuf>,
    /// `controller.quorum.*`
    pub quorum: QuorumConfig,
    /// Metadata log and snapshot settings.
    pub metadata_log: MetadataLogConfig,
    /// `unstable.feature.versions.enable`
    pub unstable_feature_versions_enable: bool,
    /// `unstable.api.versions.enable`
    pub unstable_api_versions_enable: bool,
    /// `socket.request.max.bytes`: the largest request frame accepted.
    pub socket_request_max_bytes: i32,
    /// `socket.send.buffer.bytes` (-1: the operating system's default).
    pub socket_send_buffer_bytes: i32,
    /// `socket.receive.buffer.bytes` (-1: the operating system's default).
    pub socket_receive_buffer_bytes: i32,
    /// `socket.listen.backlog.size`.
    pub socket_listen_backlog_size: i32,
    /// `connection.failed.authentication.delay.ms`.
    pub connection_failed_authentication_delay_ms: i32,
    /// `connections.max.idle.ms`: how long an unauthenticated connection
    /// may stay idle (negative: no limit besides the 30 s authentication
    /// timeout).
    pub connections_max_idle_ms: i64,
    /// `metadata.max.idle.interval.ms` (0: no NoOpRecords).
    pub metadata_max_idle_interval_ms: i32,
    /// `min.insync.replicas`
    pub min_insync_replicas: i32,
    /// `num.partitions`
    pub num_partitions: i32,
    /// `default.replication.factor`
    pub default_replication_factor: i32,
    /// `auto.leader.rebalance.enable`
    pub auto_leader_rebalance_enable: bool,
    /// `delete.topic.enable`
    pub delete_topic_enable: bool,
    /// `leader.imbalance.check.interval.seconds`
    pub leader_imbalance_check_interval_seconds: i64,
    /// The group coordinator's bounds for GROUP configs (`group.*`).
    pub groups: groups::GroupSettings,
    /// `max.connections`, `max.connections.per.ip` and their overrides.
    pub connection_limits: connections::ConnectionLimits,
    /// `unclean.leader.election.enable` (the static fallback of topics)
    pub unclean_leader_election_enable: bool,
    /// `unclean.leader.election.interval.ms`
    pub unclean_leader_election_interval_ms: i64,
    /// `broker.session.timeout.ms`
    pub broker_session_timeout_ms: i32,
    /// `broker.heartbeat.interval.ms`
    pub broker_heartbeat_interval_ms: i32,
    /// `controller.quota.window.num`
    pub controller_quota_window_num: i32,
    /// `controller.quota.window.size.seconds`
    pub controller_quota_window_size_seconds: i32,
    /// `controller.performance.sample.period.ms`
    pub controller_performance_sample_period_ms: i64,
    /// `controller.performance.always.log.threshold.ms`
    pub controller_performance_always_log_threshold_ms: i64,
    /// `kraft.metrics.listener` (kraft-rs's own): where to serve
    /// `GET /metrics`; `None` serves no metrics.
    pub metrics_listener: Option<HostPort>,
    /// `kraft.log.*` (kraft-rs's own): the `kraft server` log's level,
    /// format and file.
    pub logging: logging::LogSettings,
    /// `kraft.metrics.naming` (kraft-rs's own): the exporter rules the
    /// Kafka-named metrics follow.
    pub metrics_naming: crate::metrics::MetricNaming,
    /// The authorizer, early-start listeners and delegation tokens.
    pub security: SecurityConfig,
    /// TLS and SASL of the controller listeners and of this node's own
    /// connections to other controllers.
    pub transport: TransportSecurity,
    /// Every property of the file as written: the static configs
    /// DescribeConfigs lists.
    pub static_properties: StaticProperties,
}

/// A configuration file's properties as written (key, value), in file
/// order. Values may be secrets: the `Debug` output shows the keys only.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct StaticProperties(pub Vec<(String, String)>);

impl StaticProperties {
    /// The properties, in file order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.0.iter().map(|(k, v)| (k.as_str(), v.as_str()))
    }
}

impl fmt::Debug for StaticProperties {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list()
            .entries(self.0.iter().map(|(k, _)| format!("{k}=[hidden]")))
            .finish()
    }
}

impl ControllerConfig {
    /// Reads and validates a properties file.
    pub fn load(path: &Path) -> Result<(ControllerConfig, Vec<ConfigWarning>), ConfigError> {
        let props = Properties::load(path).map_err(|e| match e {
            LoadError::Syntax { path, source } => ConfigError::Syntax { path, source },
            LoadError::Io { path, source } => ConfigError::Io {
                path,
                message: source.to_string(),
            },
            other => ConfigError::Io {
                path: path.to_path_buf(),
                message: other.to_string(),
            },
        })?;
        Self::parse(&props)
    }

    /// Validates parsed properties. Unknown keys are returned as warnings
    /// (and logged at WARN).
    pub fn parse(
        props: &Properties,
    ) -> Result<(ControllerConfig, Vec<ConfigWarning>), ConfigError> {
        let mut warnings = collect_warnings(props);
        let config = Self::parse_values(props)?;
        config.validate()?;
        warnings.extend(
            security::ineffective_keys(props, &config.security)
                .into_iter()
                .map(|(key, message)| ConfigWarning { key, message }),
        );
        for w in &warnings {
            tracing::warn!(key = %w.key, "{}", w.message);
        }
        Ok((config, warnings))
    }

    fn parse_values(props: &Properties) -> Result<ControllerConfig, ConfigError> {
        let roles = match PROCESS_ROLES.read(props)? {
            Some(v) => parse_roles(v)?,
            None => {
                return Err(ConfigError::Missing {
                    key: PROCESS_ROLES.key,
                })
            }
        };
        let node_id = if props.contains_key(NODE_ID.key) {
            NODE_ID.read(props)?
        } else {
            BROKER_ID.read(props)?
        }
        .ok_or(ConfigError::Missing { key: NODE_ID.key })?;
        if let (Some(n), Some(b)) = (props.get(NODE_ID.key), props.get(BROKER_ID.key)) {
            if n.trim() != b.trim() {
                return Err(ConfigError::Inconsistent(format!(
                    "If both {} and {} are set, they must have the same value (found {} and {}).",
                    NODE_ID.key,
                    BROKER_ID.key,
                    n.trim(),
                    b.trim()
                )));
            }
        }
        let controller_listener_names = match CONTROLLER_LISTENER_NAMES.read(props)? {
            Some(v) => {
                let names: Vec<String> = parse_list(v)
                    .iter()
                    .map(|n| n.to_ascii_uppercase())
                    .collect();
                if names.is_empty() {
                    return Err(invalid(
                        CONTROLLER_LISTENER_NAMES.key,
                        v,
                        "the list must contain at least one listener name, e.g. CONTROLLER",
                    ));
                }
                no_duplicates(CONTROLLER_LISTENER_NAMES.key, v, &names)?;
                names
            }
            None => {
                return Err(ConfigError::Missing {
                    key: CONTROLLER_LISTENER_NAMES.key,
                })
            }
        };
        let map_explicit = LISTENER_SECURITY_PROTOCOL_MAP.read(props)?;
        let listeners_raw = LISTENERS.read(props)?.unwrap_or_default();
        let mut security_protocol_map = match map_explicit {
            Some(v) => parse_security_map(v)?,
            None => SecurityProtocol::ALL
                .iter()
                .map(|p| (p.name().to_string(), *p))
                .collect(),
        };
        if map_explicit.is_none() {
            // Kafka adds PLAINTEXT mappings for the controller listeners when the
            // map is not explicit and no SSL/SASL listener is in use.
            let listener_names: Vec<String> = parse_list(listeners_raw)
                .iter()
                .filter_map(|l| l.split_once("://").map(|(n, _)| n.to_ascii_uppercase()))
                .collect();
            let secure = |n: &String| {
                SecurityProtocol::from_name(n).is_some_and(|p| p != SecurityProtocol::Plaintext)
            };
            if !controller_listener_names.iter().any(secure) && !listener_names.iter().any(secure) {
                for name in &controller_listener_names {
                    if !security_protocol_map.iter().any(|(n, _)| n == name) {
                        security_protocol_map.push((name.clone(), SecurityProtocol::Plaintext));
                    }
                }
            }
        }
        let listeners = parse_listeners(LISTENERS.key, listeners_raw, &security_protocol_map)?;
        if listeners.is_empty() {
            return Err(invalid(
                LISTENERS.key,
                listeners_raw,
                "the list must not be empty",
            ));
        }
        distinct_ports(LISTENERS.key, listeners_raw, &listeners)?;
        let advertised_listeners = match ADVERTISED_LISTENERS.read(props)? {
            Some(v) => Some(parse_listeners(
                ADVERTISED_LISTENERS.key,
                v,
                &security_protocol_map,
            )?),
            None => None,
        };
        let metadata_log_dir = METADATA_LOG_DIR
            .read(props)?
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(PathBuf::from);
        let (dirs_key, dirs_raw) = match LOG_DIRS.read(props)? {
            Some(v) => (LOG_DIRS.key, v),
            None => (LOG_DIR.key, LOG_DIR.read(props)?.unwrap_or_default()),
        };
        let log_dirs: Vec<PathBuf> = parse_list(dirs_raw)
            .into_iter()
            .map(PathBuf::from)
            .collect();
        if log_dirs.is_empty() {
            return Err(invalid(
                dirs_key,
                dirs_raw,
                "At least one log directory must be defined via log.dirs or log.dir.",
            ));
        }
        let quorum = QuorumConfig {
            voters: match QUORUM_VOTERS.read(props)? {
                Some(v) => parse_voters(v)?,
                None => Vec::new(),
            },
            bootstrap_servers: match QUORUM_BOOTSTRAP_SERVERS.read(props)? {
                Some(v) => parse_bootstrap_servers(v)?,
                None => Vec::new(),
            },
            election_timeout_ms: QUORUM_ELECTION_TIMEOUT_MS.read(props)?,
            fetch_timeout_ms: QUORUM_FETCH_TIMEOUT_MS.read(props)?,
            election_backoff_max_ms: QUORUM_ELECTION_BACKOFF_MAX_MS.read(props)?,
            append_linger_ms: QUORUM_APPEND_LINGER_MS.read(props)?,
            request_timeout_ms: QUORUM_REQUEST_TIMEOUT_MS.read(props)?,
            retry_backoff_ms: QUORUM_RETRY_BACKOFF_MS.read(props)?,
            auto_join_enable: QUORUM_AUTO_JOIN_ENABLE.read(props)?,
            fetch_snapshot_max_bytes: QUORUM_FETCH_SNAPSHOT_MAX_BYTES.read(props)?,
            fetch_max_bytes: QUORUM_FETCH_MAX_BYTES.read(props)?,
        };
        // Read where topic configs are validated (the static file); checked here.
        REMOTE_LOG_STORAGE_SYSTEM_ENABLE.read(props)?;
        let metrics_listener = parse_metrics_listener(props)?;
        let logging = logging::LogSettings::parse(props)?;
        let metrics_naming = parse_metrics_naming(props)?;
        let mut listener_names: Vec<String> = listeners.iter().map(|l| l.name.clone()).collect();
        listener_names.extend(controller_listener_names.iter().cloned());
        let security = SecurityConfig::parse(props, &listener_names)?;
        let controller_endpoints: Vec<ListenerEndpoint> = controller_listener_names
            .iter()
            .filter_map(|n| listeners.iter().find(|l| &l.name == n).cloned())
            .collect();
        let transport = TransportSecurity::parse(props, &controller_endpoints)?;
        let metadata_log = MetadataLogConfig {
            segment_bytes: METADATA_LOG_SEGMENT_BYTES.read(props)?,
            internal_segment_bytes: INTERNAL_METADATA_LOG_SEGMENT_BYTES.read(props)?,
            segment_ms: METADATA_LOG_SEGMENT_MS.read(props)?,
            max_retention_bytes: METADATA_MAX_RETENTION_BYTES.read(props)?,
            max_retention_ms: METADATA_MAX_RETENTION_MS.read(props)?,
            snapshot_max_new_record_bytes: METADATA_SNAPSHOT_MAX_NEW_RECORD_BYTES.read(props)?,
            snapshot_max_interval_ms: METADATA_SNAPSHOT_MAX_INTERVAL_MS.read(props)?,
        };
        let connection_limits =
            connections::ConnectionLimits::read(props, &controller_listener_names)?;
        Ok(ControllerConfig {
            node_id,
            process_roles: roles,
            controller_listener_names,
            listeners,
            advertised_listeners,
            security_protocol_map,
            metadata_log_dir,
            log_dirs,
            quorum,
            metadata_log,
            unstable_feature_versions_enable: UNSTABLE_FEATURE_VERSIONS_ENABLE.read(props)?,
            unstable_api_versions_enable: UNSTABLE_API_VERSIONS_ENABLE.read(props)?,
            socket_request_max_bytes: SOCKET_REQUEST_MAX_BYTES.read(props)?,
            socket_send_buffer_bytes: SOCKET_SEND_BUFFER_BYTES.read(props)?,
            socket_receive_buffer_bytes: SOCKET_RECEIVE_BUFFER_BYTES.read(props)?,
            socket_listen_backlog_size: SOCKET_LISTEN_BACKLOG_SIZE.read(props)?,
            connection_failed_authentication_delay_ms: CONNECTION_FAILED_AUTHENTICATION_DELAY_MS
                .read(props)?,
            connections_max_idle_ms: CONNECTIONS_MAX_IDLE_MS.read(props)?,
            metadata_max_idle_interval_ms: METADATA_MAX_IDLE_INTERVAL_MS.read(props)?,
            min_insync_replicas: MIN_INSYNC_REPLICAS.read(props)?,
            num_partitions: NUM_PARTITIONS.read(props)?,
            default_replication_factor: DEFAULT_REPLICATION_FACTOR.read(props)?,
            auto_leader_rebalance_enable: AUTO_LEADER_REBALANCE_ENABLE.read(props)?,
            delete_topic_enable: DELETE_TOPIC_ENABLE.read(props)?,
            leader_imbalance_check_interval_seconds: LEADER_IMBALANCE_CHECK_INTERVAL_SECONDS
                .read(props)?,
            groups: groups::GroupSettings::read(props)?,
            connection_limits,
            unclean_leader_election_enable: UNCLEAN_LEADER_ELECTION_ENABLE.read(props)?,
            unclean_leader_election_interval_ms: UNCLEAN_LEADER_ELECTION_INTERVAL_MS.read(props)?,
            broker_session_timeout_ms: BROKER_SESSION_TIMEOUT_MS.read(props)?,
            broker_heartbeat_interval_ms: BROKER_HEARTBEAT_INTERVAL_MS.read(props)?,
            controller_quota_window_num: CONTROLLER_QUOTA_WINDOW_NUM.read(props)?,
            controller_quota_window_size_seconds: CONTROLLER_QUOTA_WINDOW_SIZE_SECONDS
                .read(props)?,
            controller_performance_sample_period_ms: CONTROLLER_PERFORMANCE_SAMPLE_PERIOD_MS
                .read(props)?,
            controller_performance_always_log_threshold_ms:
                CONTROLLER_PERFORMANCE_ALWAYS_LOG_THRESHOLD_MS.read(props)?,
            metrics_listener,
            logging,
            metrics_naming,
            security,
            transport,
            static_properties: StaticProperties(
                props
                    .iter()
                    .map(|(k, v)| (k.to_owned(), v.to_owned()))
                    .collect(),
            ),
        })
    }

    /// Kafka's cross-key checks for a controller-only node, in Kafka's order.
    fn validate(&self) -> Result<(), ConfigError> {
        let (roles, voters, bootstrap) = (
            PROCESS_ROLES.key,
            QUORUM_VOTERS.key,
            QUORUM_BOOTSTRAP_SERVERS.key,
        );
        let (listeners, advertised_listeners, names) = (
            LISTENERS.key,
            ADVERTISED_LISTENERS.key,
            CONTROLLER_LISTENER_NAMES.key,
        );
        if self.quorum.voters.is_empty() && self.quorum.bootstrap_servers.is_empty() {
            return Err(ConfigError::Inconsistent(format!(
                "If using {roles}, either {bootstrap} must contain the set of \
                 bootstrap controllers or {voters} must contain a parseable set of controllers."
            )));
        }
        let advertised = self.effective_advertised_controller_listeners();
        if advertised.len() != self.listeners.len() {
            return Err(ConfigError::Inconsistent(format!(
                "The {listeners} config must only contain KRaft controller listeners from \
                 {names} when {roles}=controller"
            )));
        }
        if !self.quorum.voters.is_empty()
            && !self.quorum.voters.iter().any(|v| v.id == self.node_id)
        {
            let ids: BTreeSet<i32> = self.quorum.voters.iter().map(|v| v.id).collect();
            let ids: Vec<String> = ids.iter().map(i32::to_string).collect();
            return Err(ConfigError::Inconsistent(format!(
                "If {roles} contains the 'controller' role, the node id {} must be included in \
                 the set of voters {voters}=Set({})",
                self.node_id,
                ids.join(", ")
            )));
        }
        if advertised.is_empty() {
            return Err(ConfigError::Inconsistent(format!(
                "{names} must contain at least one value appearing in the \
                 '{listeners}' configuration when running the KRaft controller role"
            )));
        }
        if !self
            .controller_listener_names
            .iter()
            .all(|n| self.listeners.iter().any(|l| &l.name == n))
        {
            return Err(ConfigError::Inconsistent(format!(
                "{names} must only contain values appearing in the '{listeners}' \
                 configuration when running the KRaft controller role"
            )));
        }
        if advertised
            .iter()
            .any(|e| e.host.as_deref() == Some("0.0.0.0"))
        {
            return Err(ConfigError::Inconsistent(format!(
                "{advertised_listeners} cannot use the nonroutable meta-address 0.0.0.0. Use a routable IP address."
            )));
        }
        Ok(())
    }

    /// Whether the quorum is dynamic (KIP-853): no static voters configured.
    pub fn is_dynamic_quorum(&self) -> bool {
        self.quorum.voters.is_empty()
    }

    /// The default controller listener (the first of `controller.listener.names`).
    pub fn default_listener_name(&self) -> &str {
        self.controller_listener_names
            .first()
            .map_or("CONTROLLER", String::as_str)
    }

    /// The metadata log directory: `metadata.log.dir`, else the first log dir.
    pub fn metadata_log_dir(&self) -> &Path {
        match &self.metadata_log_dir {
            Some(d) => d,
            None => self.log_dirs.first().map_or(
                Path::new(LOG_DIR.default.unwrap_or_default()),
                PathBuf::as_path,
            ),
        }
    }

    /// Every directory to format: the log dirs plus the metadata log dir,
    /// deduplicated and sorted as strings (Kafka uses a `TreeSet<String>`).
    pub fn all_log_dirs(&self) -> Vec<PathBuf> {
        let mut set: BTreeSet<String> = self
            .log_dirs
            .iter()
            .map(|p| p.to_string_lossy().into_owned())
            .collect();
        if let Some(d) = &self.metadata_log_dir {
            set.insert(d.to_string_lossy().into_owned());
        }
        set.into_iter().map(PathBuf::from).collect()
    }

    /// The ids of the static voters (empty for a dynamic quorum).
    pub fn static_voter_ids(&self) -> Vec<i32> {
        self.quorum.voters.iter().map(|v| v.id).collect()
    }

    /// The controller listeners this node binds (`listeners` entries named
    /// in `controller.listener.names`).
    pub fn controller_listeners(&self) -> Vec<&ListenerEndpoint> {
        self.listeners
            .iter()
            .filter(|l| self.controller_listener_names.contains(&l.name))
            .collect()
    }

    /// Kafka's `effectiveAdvertisedControllerListeners`: for each controller
    /// listener name in order, the `advertised.listeners` entry of that name,
    /// else the `listeners` entry; for the default listener with no host (or
    /// `0.0.0.0`) the address from `controller.quorum.voters` for this node
    /// is used when there is one; `0.0.0.0` becomes "no host".
    pub fn effective_advertised_controller_listeners(&self) -> Vec<ListenerEndpoint> {
        let mut out = Vec::new();
        for (i, name) in self.controller_listener_names.iter().enumerate() {
            let advertised = self
                .advertised_listeners
                .as_ref()
                .and_then(|a| a.iter().find(|e| &e.name == name));
            if let Some(e) = advertised {
                out.push(e.clone());
                continue;
            }
            let Some(e) = self.listeners.iter().find(|e| &e.name == name) else {
                continue;
            };
            let wildcard = e.host.as_deref().is_none_or(|h| h == "0.0.0.0");
            if i == 0 && wildcard {
                if let Some(v) = self.quorum.voters.iter().find(|v| v.id == self.node_id) {
                    out.push(ListenerEndpoint {
                        host: Some(v.address.host.clone()),
                        port: v.address.port,
                        ..e.clone()
                    });
                    continue;
                }
            }
            let mut e = e.clone();
            if e.host.as_deref() == Some("0.0.0.0") {
                e.host = None;
            }
            out.push(e);
        }
        out
    }
}

fn collect_warnings(props: &Properties) -> Vec<ConfigWarning> {
    props
        .iter()
        .filter_map(|(key, _)| {
            kafka_keys::warning(key).map(|message| ConfigWarning {
                key: key.to_string(),
                message,
            })
        })
        .collect()
}

/// `kraft.metrics.listener`: `HOST:PORT`; an empty value is "not set".
fn parse_metrics_listener(props: &Properties) -> Result<Option<HostPort>, ConfigError> {
    let Some(raw) = KRAFT_METRICS_LISTENER.read(props)? else {
        return Ok(None);
    };
    if raw.trim().is_empty() {
        return Ok(None);
    }
    HostPort::parse(raw).map(Some).ok_or_else(|| {
        invalid(
            KRAFT_METRICS_LISTENER.key,
            raw,
            "Expected HOST:PORT, e.g. 127.0.0.1:9308 (port 0: an ephemeral port)",
        )
    })
}

/// `kraft.metrics.naming`: `strimzi` (the default) or `confluent`.
fn parse_metrics_naming(props: &Properties) -> Result<crate::metrics::MetricNaming, ConfigError> {
    let raw = KRAFT_METRICS_NAMING.read(props)?.unwrap_or("strimzi");
    crate::metrics::MetricNaming::parse(raw.trim()).ok_or_else(|| {
        invalid(
            KRAFT_METRICS_NAMING.key,
            raw,
            "Expected strimzi or confluent",
        )
    })
}

fn parse_roles(value: &str) -> Result<Vec<ProcessRole>, ConfigError> {
    let roles = parse_list(value);
    if roles.is_empty() {
        return Err(invalid(
            PROCESS_ROLES.key,
            value,
            "the list must not be empty; kraft-rs requires process.roles=controller",
        ));
    }
    let mut out = Vec::new();
    for r in &roles {
        match r.as_str() {
            "controller" => {
                if out.contains(&ProcessRole::Controller) {
                    return Err(invalid(
                        PROCESS_ROLES.key,
                        value,
                        "Duplicate role names found in `process.roles`",
                    ));
                }
                out.push(ProcessRole::Controller);
            }
            "broker" => {
                return Err(invalid(
                    PROCESS_ROLES.key,
                    value,
                    "the broker role is not supported: kraft-rs runs only KRaft controllers; \
                     use process.roles=controller and run brokers with Apache Kafka",
                ))
            }
            other => {
                return Err(invalid(
                    PROCESS_ROLES.key,
                    value,
                    &format!("Unknown process role '{other}' (String values must be one of: broker, controller; kraft-rs supports only controller)"),
                ))
            }
        }
    }
    Ok(out)
}
