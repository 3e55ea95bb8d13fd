//! Controller configuration read from a Kafka-style `.properties` file.
//!
//! The keys, defaults, value syntax and cross-key validation follow Kafka
//! 4.4's `KafkaConfig` for a controller-only node (`process.roles=controller`,
//! the only role kraft-rs runs). Values are trimmed; numbers are base-10;
//! booleans are `true`/`false` in any case; lists are comma-separated.
//!
//! Keys kraft-rs does not know are not errors: [`ControllerConfig::parse`]
//! returns them as [`ConfigWarning`]s (and logs them). Invalid values are
//! [`ConfigError`]s that name the key and what is allowed.

use std::collections::BTreeSet;
use std::fmt;
use std::path::{Path, PathBuf};

use crate::properties::{Properties, PropertiesError};

/// `node.id`
pub const NODE_ID: &str = "node.id";
/// `broker.id`, accepted as a synonym of `node.id` (as Kafka 4.4 does).
pub const BROKER_ID: &str = "broker.id";
/// `process.roles`
pub const PROCESS_ROLES: &str = "process.roles";
/// `controller.listener.names`
pub const CONTROLLER_LISTENER_NAMES: &str = "controller.listener.names";
/// `listeners`
pub const LISTENERS: &str = "listeners";
/// `advertised.listeners`
pub const ADVERTISED_LISTENERS: &str = "advertised.listeners";
/// `listener.security.protocol.map`
pub const LISTENER_SECURITY_PROTOCOL_MAP: &str = "listener.security.protocol.map";
/// `metadata.log.dir`
pub const METADATA_LOG_DIR: &str = "metadata.log.dir";
/// `log.dirs`
pub const LOG_DIRS: &str = "log.dirs";
/// `log.dir`
pub const LOG_DIR: &str = "log.dir";
/// `controller.quorum.voters`
pub const QUORUM_VOTERS: &str = "controller.quorum.voters";
/// `controller.quorum.bootstrap.servers`
pub const QUORUM_BOOTSTRAP_SERVERS: &str = "controller.quorum.bootstrap.servers";
/// `controller.quorum.election.timeout.ms`
pub const QUORUM_ELECTION_TIMEOUT_MS: &str = "controller.quorum.election.timeout.ms";
/// `controller.quorum.fetch.timeout.ms`
pub const QUORUM_FETCH_TIMEOUT_MS: &str = "controller.quorum.fetch.timeout.ms";
/// `controller.quorum.election.backoff.max.ms`
pub const QUORUM_ELECTION_BACKOFF_MAX_MS: &str = "controller.quorum.election.backoff.max.ms";
/// `controller.quorum.append.linger.ms`
pub const QUORUM_APPEND_LINGER_MS: &str = "controller.quorum.append.linger.ms";
/// `controller.quorum.request.timeout.ms`
pub const QUORUM_REQUEST_TIMEOUT_MS: &str = "controller.quorum.request.timeout.ms";
/// `controller.quorum.retry.backoff.ms`
pub const QUORUM_RETRY_BACKOFF_MS: &str = "controller.quorum.retry.backoff.ms";
/// `controller.quorum.auto.join.enable`
pub const QUORUM_AUTO_JOIN_ENABLE: &str = "controller.quorum.auto.join.enable";
/// `controller.quorum.fetch.snapshot.max.bytes`
pub const QUORUM_FETCH_SNAPSHOT_MAX_BYTES: &str = "controller.quorum.fetch.snapshot.max.bytes";
/// `controller.quorum.fetch.max.bytes`
pub const QUORUM_FETCH_MAX_BYTES: &str = "controller.quorum.fetch.max.bytes";
/// `metadata.log.segment.bytes`
pub const METADATA_LOG_SEGMENT_BYTES: &str = "metadata.log.segment.bytes";
/// `internal.metadata.log.segment.bytes` (Kafka's testing-only override of
/// `metadata.log.segment.bytes`, without its 8 MiB lower bound)
pub const INTERNAL_METADATA_LOG_SEGMENT_BYTES: &str = "internal.metadata.log.segment.bytes";
/// `metadata.log.segment.ms`
pub const METADATA_LOG_SEGMENT_MS: &str = "metadata.log.segment.ms";
/// `metadata.max.retention.bytes`
pub const METADATA_MAX_RETENTION_BYTES: &str = "metadata.max.retention.bytes";
/// `metadata.max.retention.ms`
pub const METADATA_MAX_RETENTION_MS: &str = "metadata.max.retention.ms";
/// `metadata.log.max.record.bytes.between.snapshots`
pub const METADATA_SNAPSHOT_MAX_NEW_RECORD_BYTES: &str =
    "metadata.log.max.record.bytes.between.snapshots";
/// `metadata.log.max.snapshot.interval.ms`
pub const METADATA_SNAPSHOT_MAX_INTERVAL_MS: &str = "metadata.log.max.snapshot.interval.ms";
/// `unstable.feature.versions.enable`
pub const UNSTABLE_FEATURE_VERSIONS_ENABLE: &str = "unstable.feature.versions.enable";
/// `unstable.api.versions.enable`
pub const UNSTABLE_API_VERSIONS_ENABLE: &str = "unstable.api.versions.enable";
/// `socket.request.max.bytes`
pub const SOCKET_REQUEST_MAX_BYTES: &str = "socket.request.max.bytes";

/// Every key kraft-rs reads.
pub const KNOWN_KEYS: &[&str] = &[
    NODE_ID,
    BROKER_ID,
    PROCESS_ROLES,
    CONTROLLER_LISTENER_NAMES,
    LISTENERS,
    ADVERTISED_LISTENERS,
    LISTENER_SECURITY_PROTOCOL_MAP,
    METADATA_LOG_DIR,
    LOG_DIRS,
    LOG_DIR,
    QUORUM_VOTERS,
    QUORUM_BOOTSTRAP_SERVERS,
    QUORUM_ELECTION_TIMEOUT_MS,
    QUORUM_FETCH_TIMEOUT_MS,
    QUORUM_ELECTION_BACKOFF_MAX_MS,
    QUORUM_APPEND_LINGER_MS,
    QUORUM_REQUEST_TIMEOUT_MS,
    QUORUM_RETRY_BACKOFF_MS,
    QUORUM_AUTO_JOIN_ENABLE,
    QUORUM_FETCH_SNAPSHOT_MAX_BYTES,
    QUORUM_FETCH_MAX_BYTES,
    METADATA_LOG_SEGMENT_BYTES,
    METADATA_LOG_SEGMENT_MS,
    METADATA_MAX_RETENTION_BYTES,
    METADATA_MAX_RETENTION_MS,
    METADATA_SNAPSHOT_MAX_NEW_RECORD_BYTES,
    METADATA_SNAPSHOT_MAX_INTERVAL_MS,
    INTERNAL_METADATA_LOG_SEGMENT_BYTES,
    UNSTABLE_FEATURE_VERSIONS_ENABLE,
    UNSTABLE_API_VERSIONS_ENABLE,
    SOCKET_REQUEST_MAX_BYTES,
];

/// Kafka server settings found in Kafka's sample `controller.properties`
/// that have no meaning for a kraft-rs controller. They are accepted with a
/// gentler warning than unknown keys.
const KAFKA_KEYS_NOT_USED: &[&str] = &[
    "num.network.threads",
    "num.io.threads",
    "socket.send.buffer.bytes",
    "socket.receive.buffer.bytes",
    "num.partitions",
    "num.recovery.threads.per.data.dir",
    "offsets.topic.replication.factor",
    "transaction.state.log.replication.factor",
    "transaction.state.log.min.isr",
    "share.coordinator.state.topic.replication.factor",
    "share.coordinator.state.topic.min.isr",
    "log.retention.hours",
    "log.segment.bytes",
    "log.retention.check.interval.ms",
    "group.initial.rebalance.delay.ms",
    "inter.broker.listener.name",
    "sasl.mechanism.controller.protocol",
];

/// Kafka 4.4 defaults (spec §6.2 and `QuorumConfig`, `MetadataLogConfig`).
pub mod defaults {
    /// `listeners`
    pub const LISTENERS: &str = "PLAINTEXT://:9092";
    /// `log.dir`
    pub const LOG_DIR: &str = "/tmp/kafka-logs";
    /// `controller.quorum.election.timeout.ms`
    pub const ELECTION_TIMEOUT_MS: i32 = 1_000;
    /// `controller.quorum.fetch.timeout.ms`
    pub const FETCH_TIMEOUT_MS: i32 = 2_000;
    /// `controller.quorum.election.backoff.max.ms`
    pub const ELECTION_BACKOFF_MAX_MS: i32 = 1_000;
    /// `controller.quorum.append.linger.ms`
    pub const APPEND_LINGER_MS: i32 = 25;
    /// `controller.quorum.request.timeout.ms`
    pub const REQUEST_TIMEOUT_MS: i32 = 2_000;
    /// `controller.quorum.retry.backoff.ms`
    pub const RETRY_BACKOFF_MS: i32 = 20;
    /// `controller.quorum.auto.join.enable`
    pub const AUTO_JOIN_ENABLE: bool = false;
    /// `controller.quorum.fetch.snapshot.max.bytes`
    pub const FETCH_SNAPSHOT_MAX_BYTES: i32 = 1_048_576;
    /// `controller.quorum.fetch.max.bytes`
    pub const FETCH_MAX_BYTES: i32 = 1_048_576;
    /// `metadata.log.segment.bytes` (1 GiB)
    pub const METADATA_LOG_SEGMENT_BYTES: i32 = 1024 * 1024 * 1024;
    /// Lower bound of `metadata.log.segment.bytes` (8 MiB).
    pub const METADATA_LOG_SEGMENT_BYTES_MIN: i32 = 8 * 1024 * 1024;
    /// `metadata.log.segment.ms` (7 days)
    pub const METADATA_LOG_SEGMENT_MS: i64 = 7 * 24 * 60 * 60 * 1000;
    /// `metadata.max.retention.bytes` (100 MiB)
    pub const METADATA_MAX_RETENTION_BYTES: i64 = 100 * 1024 * 1024;
    /// `metadata.max.retention.ms` (7 days)
    pub const METADATA_MAX_RETENTION_MS: i64 = 7 * 24 * 60 * 60 * 1000;
    /// `metadata.log.max.record.bytes.between.snapshots` (20 MiB)
    pub const SNAPSHOT_MAX_NEW_RECORD_BYTES: i64 = 20 * 1024 * 1024;
    /// `metadata.log.max.snapshot.interval.ms` (1 hour)
    pub const SNAPSHOT_MAX_INTERVAL_MS: i64 = 60 * 60 * 1000;
    /// `socket.request.max.bytes` (100 MiB)
    pub const SOCKET_REQUEST_MAX_BYTES: i32 = 100 * 1024 * 1024;
}

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

/// A listener security protocol (Kafka's `SecurityProtocol`, with its wire id).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SecurityProtocol {
    /// `PLAINTEXT` (0)
    Plaintext,
    /// `SSL` (1)
    Ssl,
    /// `SASL_PLAINTEXT` (2)
    SaslPlaintext,
    /// `SASL_SSL` (3)
    SaslSsl,
}

impl SecurityProtocol {
    /// All protocols in id order.
    pub const ALL: [SecurityProtocol; 4] = [
        SecurityProtocol::Plaintext,
        SecurityProtocol::Ssl,
        SecurityProtocol::SaslPlaintext,
        SecurityProtocol::SaslSsl,
    ];

    /// The wire id (RegisterControllerRecord / ControllerRegistration `SecurityProtocol`).
    pub fn id(self) -> i16 {
        match self {
            SecurityProtocol::Plaintext => 0,
            SecurityProtocol::Ssl => 1,
            SecurityProtocol::SaslPlaintext => 2,
            SecurityProtocol::SaslSsl => 3,
        }
    }

    /// The protocol with wire id `id`.
    pub fn from_id(id: i16) -> Option<SecurityProtocol> {
        Self::ALL.into_iter().find(|p| p.id() == id)
    }

    /// Kafka's name, e.g. `SASL_SSL`.
    pub fn name(self) -> &'static str {
        match self {
            SecurityProtocol::Plaintext => "PLAINTEXT",
            SecurityProtocol::Ssl => "SSL",
            SecurityProtocol::SaslPlaintext => "SASL_PLAINTEXT",
            SecurityProtocol::SaslSsl => "SASL_SSL",
        }
    }

    /// Parses a name, case-insensitively.
    pub fn from_name(name: &str) -> Option<SecurityProtocol> {
        let upper = name.to_ascii_uppercase();
        Self::ALL.into_iter().find(|p| p.name() == upper)
    }
}

impl fmt::Display for SecurityProtocol {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A listener endpoint (`NAME://host:port`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ListenerEndpoint {
    /// The listener name, upper-cased as Kafka normalises it.
    pub name: String,
    /// The host; `None` for an empty host (bind to all interfaces, or
    /// advertise the canonical host name).
    pub host: Option<String>,
    /// The port (0 = pick an ephemeral port when binding).
    pub port: u16,
    /// The listener's security protocol.
    pub security_protocol: SecurityProtocol,
}

impl fmt::Display for ListenerEndpoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let host = self.host.as_deref().unwrap_or("");
        if host.contains(':') {
            write!(f, "{}://[{host}]:{}", self.name, self.port)
        } else {
            write!(f, "{}://{host}:{}", self.name, self.port)
        }
    }
}

/// A `host:port` pair.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct HostPort {
    /// Host name or IP literal (without IPv6 brackets).
    pub host: String,
    /// Port.
    pub port: u16,
}

impl fmt::Display for HostPort {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.host.contains(':') {
            write!(f, "[{}]:{}", self.host, self.port)
        } else {
            write!(f, "{}:{}", self.host, self.port)
        }
    }
}

/// A voter of a static quorum (`controller.quorum.voters` entry `id@host:port`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct StaticVoter {
    /// The voter's node id.
    pub id: i32,
    /// Its address on the default controller listener.
    pub address: HostPort,
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
            election_timeout_ms: defaults::ELECTION_TIMEOUT_MS,
            fetch_timeout_ms: defaults::FETCH_TIMEOUT_MS,
            election_backoff_max_ms: defaults::ELECTION_BACKOFF_MAX_MS,
            append_linger_ms: defaults::APPEND_LINGER_MS,
            request_timeout_ms: defaults::REQUEST_TIMEOUT_MS,
            retry_backoff_ms: defaults::RETRY_BACKOFF_MS,
            auto_join_enable: defaults::AUTO_JOIN_ENABLE,
            fetch_snapshot_max_bytes: defaults::FETCH_SNAPSHOT_MAX_BYTES,
            fetch_max_bytes: defaults::FETCH_MAX_BYTES,
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
            segment_bytes: defaults::METADATA_LOG_SEGMENT_BYTES,
            internal_segment_bytes: None,
            segment_ms: defaults::METADATA_LOG_SEGMENT_MS,
            max_retention_bytes: defaults::METADATA_MAX_RETENTION_BYTES,
            max_retention_ms: defaults::METADATA_MAX_RETENTION_MS,
            snapshot_max_new_record_bytes: defaults::SNAPSHOT_MAX_NEW_RECORD_BYTES,
            snapshot_max_interval_ms: defaults::SNAPSHOT_MAX_INTERVAL_MS,
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
}

impl ControllerConfig {
    /// Reads and validates a properties file.
    pub fn load(path: &Path) -> Result<(ControllerConfig, Vec<ConfigWarning>), ConfigError> {
        let bytes = std::fs::read(path).map_err(|e| ConfigError::Io {
            path: path.to_path_buf(),
            message: e.to_string(),
        })?;
        let props = Properties::parse_bytes(&bytes).map_err(|source| ConfigError::Syntax {
            path: path.to_path_buf(),
            source,
        })?;
        Self::parse(&props)
    }

    /// Validates parsed properties. Unknown keys are returned as warnings
    /// (and logged at WARN).
    pub fn parse(
        props: &Properties,
    ) -> Result<(ControllerConfig, Vec<ConfigWarning>), ConfigError> {
        let warnings = collect_warnings(props);
        for w in &warnings {
            tracing::warn!(key = %w.key, "{}", w.message);
        }
        let config = Self::parse_values(props)?;
        config.validate()?;
        Ok((config, warnings))
    }

    fn parse_values(props: &Properties) -> Result<ControllerConfig, ConfigError> {
        let roles = match get(props, PROCESS_ROLES) {
            Some(v) => parse_roles(v)?,
            None => return Err(ConfigError::Missing { key: PROCESS_ROLES }),
        };
        let node_id = match get(props, NODE_ID).or_else(|| get(props, BROKER_ID)) {
            Some(v) => {
                let key = if get(props, NODE_ID).is_some() {
                    NODE_ID
                } else {
                    BROKER_ID
                };
                let id = parse_i32(key, v)?;
                at_least(key, v, i64::from(id), 0)?;
                id
            }
            None => return Err(ConfigError::Missing { key: NODE_ID }),
        };
        if let (Some(n), Some(b)) = (get(props, NODE_ID), get(props, BROKER_ID)) {
            if n.trim() != b.trim() {
                return Err(ConfigError::Inconsistent(format!(
                    "If both {NODE_ID} and {BROKER_ID} are set, they must have the same value (found {} and {}).",
                    n.trim(),
                    b.trim()
                )));
            }
        }
        let controller_listener_names = match get(props, CONTROLLER_LISTENER_NAMES) {
            Some(v) => {
                let names: Vec<String> = parse_list(v)
                    .iter()
                    .map(|n| n.to_ascii_uppercase())
                    .collect();
                if names.is_empty() {
                    return Err(invalid(
                        CONTROLLER_LISTENER_NAMES,
                        v,
                        "the list must contain at least one listener name, e.g. CONTROLLER",
                    ));
                }
                no_duplicates(CONTROLLER_LISTENER_NAMES, v, &names)?;
                names
            }
            None => {
                return Err(ConfigError::Missing {
                    key: CONTROLLER_LISTENER_NAMES,
                })
            }
        };
        let map_explicit = get(props, LISTENER_SECURITY_PROTOCOL_MAP);
        let listeners_raw = get(props, LISTENERS).unwrap_or(defaults::LISTENERS);
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
        let listeners = parse_listeners(LISTENERS, listeners_raw, &security_protocol_map)?;
        if listeners.is_empty() {
            return Err(invalid(
                LISTENERS,
                listeners_raw,
                "the list must not be empty",
            ));
        }
        distinct_ports(LISTENERS, listeners_raw, &listeners)?;
        let advertised_listeners = match get(props, ADVERTISED_LISTENERS) {
            Some(v) => Some(parse_listeners(
                ADVERTISED_LISTENERS,
                v,
                &security_protocol_map,
            )?),
            None => None,
        };
        let metadata_log_dir = get(props, METADATA_LOG_DIR)
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(PathBuf::from);
        let (dirs_key, dirs_raw) = match get(props, LOG_DIRS) {
            Some(v) => (LOG_DIRS, v),
            None => (LOG_DIR, get(props, LOG_DIR).unwrap_or(defaults::LOG_DIR)),
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
            voters: match get(props, QUORUM_VOTERS) {
                Some(v) => parse_voters(v)?,
                None => Vec::new(),
            },
            bootstrap_servers: match get(props, QUORUM_BOOTSTRAP_SERVERS) {
                Some(v) => parse_bootstrap_servers(v)?,
                None => Vec::new(),
            },
            election_timeout_ms: int_at_least(
                props,
                QUORUM_ELECTION_TIMEOUT_MS,
                defaults::ELECTION_TIMEOUT_MS,
                0,
            )?,
            fetch_timeout_ms: int_at_least(
                props,
                QUORUM_FETCH_TIMEOUT_MS,
                defaults::FETCH_TIMEOUT_MS,
                0,
            )?,
            election_backoff_max_ms: int_at_least(
                props,
                QUORUM_ELECTION_BACKOFF_MAX_MS,
                defaults::ELECTION_BACKOFF_MAX_MS,
                0,
            )?,
            append_linger_ms: int_at_least(
                props,
                QUORUM_APPEND_LINGER_MS,
                defaults::APPEND_LINGER_MS,
                0,
            )?,
            request_timeout_ms: int_at_least(
                props,
                QUORUM_REQUEST_TIMEOUT_MS,
                defaults::REQUEST_TIMEOUT_MS,
                0,
            )?,
            retry_backoff_ms: int_at_least(
                props,
                QUORUM_RETRY_BACKOFF_MS,
                defaults::RETRY_BACKOFF_MS,
                0,
            )?,
            auto_join_enable: boolean(props, QUORUM_AUTO_JOIN_ENABLE, defaults::AUTO_JOIN_ENABLE)?,
            fetch_snapshot_max_bytes: int_at_least(
                props,
                QUORUM_FETCH_SNAPSHOT_MAX_BYTES,
                defaults::FETCH_SNAPSHOT_MAX_BYTES,
                1,
            )?,
            fetch_max_bytes: int_at_least(
                props,
                QUORUM_FETCH_MAX_BYTES,
                defaults::FETCH_MAX_BYTES,
                1,
            )?,
        };
        let metadata_log = MetadataLogConfig {
            segment_bytes: int_at_least(
                props,
                METADATA_LOG_SEGMENT_BYTES,
                defaults::METADATA_LOG_SEGMENT_BYTES,
                defaults::METADATA_LOG_SEGMENT_BYTES_MIN,
            )?,
            internal_segment_bytes: match get(props, INTERNAL_METADATA_LOG_SEGMENT_BYTES) {
                None => None,
                Some(raw) => {
                    let v = parse_i32(INTERNAL_METADATA_LOG_SEGMENT_BYTES, raw)?;
                    at_least(INTERNAL_METADATA_LOG_SEGMENT_BYTES, raw, i64::from(v), 1)?;
                    Some(v)
                }
            },
            segment_ms: long_at_least(
                props,
                METADATA_LOG_SEGMENT_MS,
                defaults::METADATA_LOG_SEGMENT_MS,
                None,
            )?,
            max_retention_bytes: long_at_least(
                props,
                METADATA_MAX_RETENTION_BYTES,
                defaults::METADATA_MAX_RETENTION_BYTES,
                None,
            )?,
            max_retention_ms: long_at_least(
                props,
                METADATA_MAX_RETENTION_MS,
                defaults::METADATA_MAX_RETENTION_MS,
                None,
            )?,
            snapshot_max_new_record_bytes: long_at_least(
                props,
                METADATA_SNAPSHOT_MAX_NEW_RECORD_BYTES,
                defaults::SNAPSHOT_MAX_NEW_RECORD_BYTES,
                Some(1),
            )?,
            snapshot_max_interval_ms: long_at_least(
                props,
                METADATA_SNAPSHOT_MAX_INTERVAL_MS,
                defaults::SNAPSHOT_MAX_INTERVAL_MS,
                Some(0),
            )?,
        };
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
            unstable_feature_versions_enable: boolean(
                props,
                UNSTABLE_FEATURE_VERSIONS_ENABLE,
                false,
            )?,
            unstable_api_versions_enable: boolean(props, UNSTABLE_API_VERSIONS_ENABLE, false)?,
            socket_request_max_bytes: int_at_least(
                props,
                SOCKET_REQUEST_MAX_BYTES,
                defaults::SOCKET_REQUEST_MAX_BYTES,
                1,
            )?,
        })
    }

    /// Kafka's cross-key checks for a controller-only node, in Kafka's order.
    fn validate(&self) -> Result<(), ConfigError> {
        if self.quorum.voters.is_empty() && self.quorum.bootstrap_servers.is_empty() {
            return Err(ConfigError::Inconsistent(format!(
                "If using {PROCESS_ROLES}, either {QUORUM_BOOTSTRAP_SERVERS} must contain the set of \
                 bootstrap controllers or {QUORUM_VOTERS} must contain a parseable set of controllers."
            )));
        }
        let advertised = self.effective_advertised_controller_listeners();
        if advertised.len() != self.listeners.len() {
            return Err(ConfigError::Inconsistent(format!(
                "The {LISTENERS} config must only contain KRaft controller listeners from \
                 {CONTROLLER_LISTENER_NAMES} when {PROCESS_ROLES}=controller"
            )));
        }
        if !self.quorum.voters.is_empty()
            && !self.quorum.voters.iter().any(|v| v.id == self.node_id)
        {
            let ids: BTreeSet<i32> = self.quorum.voters.iter().map(|v| v.id).collect();
            let ids: Vec<String> = ids.iter().map(i32::to_string).collect();
            return Err(ConfigError::Inconsistent(format!(
                "If {PROCESS_ROLES} contains the 'controller' role, the node id {} must be included in \
                 the set of voters {QUORUM_VOTERS}=Set({})",
                self.node_id,
                ids.join(", ")
            )));
        }
        if advertised.is_empty() {
            return Err(ConfigError::Inconsistent(format!(
                "{CONTROLLER_LISTENER_NAMES} must contain at least one value appearing in the \
                 '{LISTENERS}' configuration when running the KRaft controller role"
            )));
        }
        if !self
            .controller_listener_names
            .iter()
            .all(|n| self.listeners.iter().any(|l| &l.name == n))
        {
            return Err(ConfigError::Inconsistent(format!(
                "{CONTROLLER_LISTENER_NAMES} must only contain values appearing in the '{LISTENERS}' \
                 configuration when running the KRaft controller role"
            )));
        }
        if advertised
            .iter()
            .any(|e| e.host.as_deref() == Some("0.0.0.0"))
        {
            return Err(ConfigError::Inconsistent(format!(
                "{ADVERTISED_LISTENERS} cannot use the nonroutable meta-address 0.0.0.0. Use a routable IP address."
            )));
        }
        if let Some(l) = self
            .listeners
            .iter()
            .find(|l| l.security_protocol != SecurityProtocol::Plaintext)
        {
            return Err(invalid(
                LISTENERS,
                &l.to_string(),
                &format!(
                    "listener {} uses security protocol {}; kraft-rs supports only PLAINTEXT listeners",
                    l.name, l.security_protocol
                ),
            ));
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
            None => self
                .log_dirs
                .first()
                .map_or(Path::new(defaults::LOG_DIR), PathBuf::as_path),
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
    let mut out = Vec::new();
    for (key, _) in props.iter() {
        if KNOWN_KEYS.contains(&key) {
            continue;
        }
        let message = if KAFKA_KEYS_NOT_USED.contains(&key) {
            format!("Ignoring configuration {key}: it is a Kafka setting kraft-rs does not use.")
        } else {
            format!("Ignoring unknown configuration {key}.")
        };
        out.push(ConfigWarning {
            key: key.to_string(),
            message,
        });
    }
    out
}

fn get<'a>(props: &'a Properties, key: &str) -> Option<&'a str> {
    props.get(key)
}

fn invalid(key: &str, value: &str, reason: &str) -> ConfigError {
    ConfigError::Invalid {
        key: key.to_string(),
        value: value.to_string(),
        reason: reason.to_string(),
    }
}

/// Kafka's LIST type: comma-separated, entries trimmed; an empty value is an empty list.
fn parse_list(value: &str) -> Vec<String> {
    let t = value.trim();
    if t.is_empty() {
        return Vec::new();
    }
    t.split(',').map(|s| s.trim().to_string()).collect()
}

fn no_duplicates(key: &str, value: &str, items: &[String]) -> Result<(), ConfigError> {
    let mut seen = BTreeSet::new();
    for i in items {
        if !seen.insert(i) {
            return Err(invalid(
                key,
                value,
                &format!("values must not be duplicated; {i} appears more than once"),
            ));
        }
    }
    Ok(())
}

fn parse_i32(key: &str, value: &str) -> Result<i32, ConfigError> {
    value
        .trim()
        .parse::<i32>()
        .map_err(|_| invalid(key, value, "Not a number of type INT"))
}

fn parse_i64(key: &str, value: &str) -> Result<i64, ConfigError> {
    value
        .trim()
        .parse::<i64>()
        .map_err(|_| invalid(key, value, "Not a number of type LONG"))
}

fn at_least(key: &str, value: &str, v: i64, min: i64) -> Result<(), ConfigError> {
    if v < min {
        Err(invalid(
            key,
            value,
            &format!("Value must be at least {min}"),
        ))
    } else {
        Ok(())
    }
}

fn int_at_least(props: &Properties, key: &str, default: i32, min: i32) -> Result<i32, ConfigError> {
    match get(props, key) {
        None => Ok(default),
        Some(raw) => {
            let v = parse_i32(key, raw)?;
            at_least(key, raw, i64::from(v), i64::from(min))?;
            Ok(v)
        }
    }
}

fn long_at_least(
    props: &Properties,
    key: &str,
    default: i64,
    min: Option<i64>,
) -> Result<i64, ConfigError> {
    match get(props, key) {
        None => Ok(default),
        Some(raw) => {
            let v = parse_i64(key, raw)?;
            if let Some(min) = min {
                at_least(key, raw, v, min)?;
            }
            Ok(v)
        }
    }
}

fn boolean(props: &Properties, key: &str, default: bool) -> Result<bool, ConfigError> {
    match get(props, key) {
        None => Ok(default),
        Some(raw) => match raw.trim().to_ascii_lowercase().as_str() {
            "true" => Ok(true),
            "false" => Ok(false),
            _ => Err(invalid(
                key,
                raw,
                "Expected value to be either true or false",
            )),
        },
    }
}

fn parse_roles(value: &str) -> Result<Vec<ProcessRole>, ConfigError> {
    let roles = parse_list(value);
    if roles.is_empty() {
        return Err(invalid(
            PROCESS_ROLES,
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
                        PROCESS_ROLES,
                        value,
                        "Duplicate role names found in `process.roles`",
                    ));
                }
                out.push(ProcessRole::Controller);
            }
            "broker" => {
                return Err(invalid(
                    PROCESS_ROLES,
                    value,
                    "the broker role is not supported: kraft-rs runs only KRaft controllers; \
                     use process.roles=controller and run brokers with Apache Kafka",
                ))
            }
            other => {
                return Err(invalid(
                    PROCESS_ROLES,
                    value,
                    &format!("Unknown process role '{other}' (String values must be one of: broker, controller; kraft-rs supports only controller)"),
                ))
            }
        }
    }
    Ok(out)
}

fn parse_security_map(value: &str) -> Result<Vec<(String, SecurityProtocol)>, ConfigError> {
    let mut out: Vec<(String, SecurityProtocol)> = Vec::new();
    for entry in parse_list(value) {
        let Some((name, proto)) = entry.split_once(':') else {
            return Err(invalid(
                LISTENER_SECURITY_PROTOCOL_MAP,
                value,
                &format!("entry '{entry}' is not of the form LISTENER_NAME:SECURITY_PROTOCOL"),
            ));
        };
        let name = name.trim().to_ascii_uppercase();
        let proto = SecurityProtocol::from_name(proto.trim()).ok_or_else(|| {
            invalid(
                LISTENER_SECURITY_PROTOCOL_MAP,
                value,
                &format!(
                    "unknown security protocol '{}' (allowed: PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL)",
                    proto.trim()
                ),
            )
        })?;
        match out.iter_mut().find(|(n, _)| *n == name) {
            Some(e) => e.1 = proto,
            None => out.push((name, proto)),
        }
    }
    Ok(out)
}

/// Parses `NAME://host:port` entries (Kafka's `^(.*)://\[?([0-9a-zA-Z\-%._:]*)\]?:(-?[0-9]+)`).
fn parse_listeners(
    key: &str,
    value: &str,
    map: &[(String, SecurityProtocol)],
) -> Result<Vec<ListenerEndpoint>, ConfigError> {
    let mut out: Vec<ListenerEndpoint> = Vec::new();
    for entry in parse_list(value) {
        let bad = || {
            invalid(
                key,
                value,
                &format!("Unable to parse {entry} to a broker endpoint; expected NAME://host:port, e.g. CONTROLLER://localhost:9093"),
            )
        };
        let (name, rest) = entry.rsplit_once("://").ok_or_else(bad)?;
        let (host_part, port_str) = rest.rsplit_once(':').ok_or_else(bad)?;
        let host = host_part
            .strip_prefix('[')
            .map_or(host_part, |h| h.strip_suffix(']').unwrap_or(h));
        let host_ok = host
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-%._:".contains(c));
        let port_ok = !port_str.is_empty()
            && port_str
                .trim_start_matches('-')
                .chars()
                .all(|c| c.is_ascii_digit());
        if !host_ok || !port_ok {
            return Err(bad());
        }
        let port: u16 = port_str.parse().map_err(|_| {
            invalid(
                key,
                value,
                &format!("port {port_str} of {entry} is not between 0 and 65535"),
            )
        })?;
        let name = name.to_ascii_uppercase();
        let security_protocol = map
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, p)| *p)
            .ok_or_else(|| {
                invalid(
                    key,
                    value,
                    &format!(
                        "No security protocol defined for listener {name}; add it to {LISTENER_SECURITY_PROTOCOL_MAP}, e.g. {name}:PLAINTEXT"
                    ),
                )
            })?;
        if out.iter().any(|e| e.name == name) {
            return Err(invalid(
                key,
                value,
                &format!("Each listener must have a different name; {name} appears more than once"),
            ));
        }
        out.push(ListenerEndpoint {
            name,
            host: (!host.is_empty()).then(|| host.to_string()),
            port,
            security_protocol,
        });
    }
    Ok(out)
}

fn distinct_ports(
    key: &str,
    value: &str,
    listeners: &[ListenerEndpoint],
) -> Result<(), ConfigError> {
    let mut seen = BTreeSet::new();
    for l in listeners.iter().filter(|l| l.port != 0) {
        if !seen.insert(l.port) {
            return Err(invalid(
                key,
                value,
                &format!(
                    "Each listener must have a different port; port {} is used twice",
                    l.port
                ),
            ));
        }
    }
    Ok(())
}

/// Kafka's `Utils.getHost` / `getPort` on `host:port` (IPv6 in brackets).
fn split_host_port(s: &str) -> Option<(String, u16)> {
    let (host, port) = s.rsplit_once(':')?;
    let host = host
        .strip_prefix('[')
        .and_then(|h| h.strip_suffix(']'))
        .unwrap_or(host);
    if host.is_empty()
        || !host
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-%._:".contains(c))
    {
        return None;
    }
    let port: u16 = port.parse().ok()?;
    Some((host.to_string(), port))
}

fn parse_voters(value: &str) -> Result<Vec<StaticVoter>, ConfigError> {
    let form = "Each entry should be in the form `{id}@{host}:{port}`.";
    let mut out: Vec<StaticVoter> = Vec::new();
    for entry in parse_list(value) {
        let parts: Vec<&str> = entry.split('@').collect();
        if parts.len() != 2 {
            return Err(invalid(QUORUM_VOTERS, value, form));
        }
        let id: i32 = parts[0].trim().parse().map_err(|_| {
            invalid(
                QUORUM_VOTERS,
                value,
                &format!("Failed to parse voter ID as an integer from {}", parts[0]),
            )
        })?;
        let (host, port) = split_host_port(parts[1]).ok_or_else(|| {
            invalid(
                QUORUM_VOTERS,
                value,
                &format!("Failed to parse host name and port from entry {entry}. {form}"),
            )
        })?;
        if host == "0.0.0.0" {
            return Err(invalid(
                QUORUM_VOTERS,
                value,
                &format!("Host string ({host}) is not routeable"),
            ));
        }
        if out.iter().any(|v| v.id == id) {
            return Err(invalid(
                QUORUM_VOTERS,
                value,
                &format!("voter id {id} appears more than once"),
            ));
        }
        out.push(StaticVoter {
            id,
            address: HostPort { host, port },
        });
    }
    Ok(out)
}

fn parse_bootstrap_servers(value: &str) -> Result<Vec<HostPort>, ConfigError> {
    parse_list(value)
        .into_iter()
        .map(|entry| {
            split_host_port(&entry)
                .map(|(host, port)| HostPort { host, port })
                .ok_or_else(|| {
                    invalid(
                        QUORUM_BOOTSTRAP_SERVERS,
                        value,
                        &format!(
                            "Failed to parse host name and port from {entry}. Each entry should be in the form \"{{host}}:{{port}}\""
                        ),
                    )
                })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<(ControllerConfig, Vec<ConfigWarning>), ConfigError> {
        ControllerConfig::parse(&Properties::parse(text).expect("syntax"))
    }

    const MINIMAL: &str = "process.roles=controller\nnode.id=1\ncontroller.listener.names=CONTROLLER\n\
                           listeners=CONTROLLER://:9093\ncontroller.quorum.bootstrap.servers=localhost:9093\n";

    #[test]
    fn defaults_are_kafkas() {
        let (c, w) = parse(MINIMAL).expect("valid");
        assert!(w.is_empty());
        assert_eq!(c.node_id, 1);
        assert_eq!(c.quorum.election_timeout_ms, 1000);
        assert_eq!(c.quorum.fetch_timeout_ms, 2000);
        assert_eq!(c.quorum.election_backoff_max_ms, 1000);
        assert_eq!(c.quorum.append_linger_ms, 25);
        assert_eq!(c.quorum.request_timeout_ms, 2000);
        assert_eq!(c.quorum.retry_backoff_ms, 20);
        assert!(!c.quorum.auto_join_enable);
        assert_eq!(c.quorum.fetch_max_bytes, 1_048_576);
        assert_eq!(c.quorum.fetch_snapshot_max_bytes, 1_048_576);
        assert_eq!(c.metadata_log.segment_bytes, 1_073_741_824);
        assert_eq!(c.metadata_log.max_retention_bytes, 104_857_600);
        assert_eq!(c.metadata_log.snapshot_max_new_record_bytes, 20_971_520);
        assert_eq!(c.metadata_log.snapshot_max_interval_ms, 3_600_000);
        assert_eq!(c.socket_request_max_bytes, 104_857_600);
        assert!(!c.unstable_feature_versions_enable);
        assert_eq!(c.log_dirs, [PathBuf::from("/tmp/kafka-logs")]);
        assert_eq!(c.metadata_log_dir(), Path::new("/tmp/kafka-logs"));
        assert!(c.is_dynamic_quorum());
        assert_eq!(c.default_listener_name(), "CONTROLLER");
        assert_eq!(c.listeners[0].host, None);
        assert_eq!(
            c.listeners[0].security_protocol,
            SecurityProtocol::Plaintext
        );
    }

    #[test]
    fn every_key_is_read() {
        let text = format!(
            "{MINIMAL}controller.quorum.election.timeout.ms=1500\ncontroller.quorum.fetch.timeout.ms = 3000\n\
             controller.quorum.election.backoff.max.ms: 900\ncontroller.quorum.request.timeout.ms=2500\n\
             controller.quorum.retry.backoff.ms=30\ncontroller.quorum.auto.join.enable=TRUE\n\
             metadata.log.segment.bytes=8388608\nmetadata.max.retention.bytes=-1\n\
             metadata.log.max.record.bytes.between.snapshots=1024\nmetadata.log.max.snapshot.interval.ms=0\n\
             unstable.feature.versions.enable=true\nmetadata.log.dir=/m\nlog.dirs=/a, /b\n\
             advertised.listeners=CONTROLLER://ctl-1:9093\nlistener.security.protocol.map=CONTROLLER:PLAINTEXT\n"
        );
        let (c, _) = parse(&text).expect("valid");
        assert_eq!(c.quorum.election_timeout_ms, 1500);
        assert_eq!(c.quorum.fetch_timeout_ms, 3000);
        assert_eq!(c.quorum.election_backoff_max_ms, 900);
        assert_eq!(c.quorum.request_timeout_ms, 2500);
        assert_eq!(c.quorum.retry_backoff_ms, 30);
        assert!(c.quorum.auto_join_enable);
        assert_eq!(c.metadata_log.segment_bytes, 8_388_608);
        assert_eq!(c.metadata_log.max_retention_bytes, -1);
        assert_eq!(c.metadata_log.snapshot_max_new_record_bytes, 1024);
        assert_eq!(c.metadata_log.snapshot_max_interval_ms, 0);
        assert!(c.unstable_feature_versions_enable);
        assert_eq!(c.metadata_log_dir(), Path::new("/m"));
        assert_eq!(
            c.all_log_dirs(),
            [
                PathBuf::from("/a"),
                PathBuf::from("/b"),
                PathBuf::from("/m")
            ]
        );
        let adv = c.effective_advertised_controller_listeners();
        assert_eq!(adv[0].host.as_deref(), Some("ctl-1"));
        assert_eq!(c.quorum.bootstrap_servers[0].to_string(), "localhost:9093");
    }

    #[test]
    fn static_voters_and_advertised_override() {
        let text = "process.roles=controller\nnode.id=2\ncontroller.listener.names=CONTROLLER\n\
                    listeners=CONTROLLER://0.0.0.0:9093\n\
                    controller.quorum.voters=1@h1:9093,2@h2:9094,3@[::1]:9095\n";
        let (c, _) = parse(text).expect("valid");
        assert!(!c.is_dynamic_quorum());
        assert_eq!(c.static_voter_ids(), [1, 2, 3]);
        assert_eq!(c.quorum.voters[2].address.host, "::1");
        // the default listener has a wildcard host: the voter entry wins
        let adv = c.effective_advertised_controller_listeners();
        assert_eq!(adv[0].host.as_deref(), Some("h2"));
        assert_eq!(adv[0].port, 9094);
    }

    #[test]
    fn unknown_keys_are_warnings() {
        let (_, w) = parse(&format!("{MINIMAL}num.io.threads=8\nfoo.bar=1\n")).expect("valid");
        assert_eq!(w.len(), 2);
        assert_eq!(w[0].key, "num.io.threads");
        assert!(w[0].message.contains("does not use"));
        assert_eq!(w[1].message, "Ignoring unknown configuration foo.bar.");
    }

    fn err(text: &str) -> String {
        parse(text).expect_err("invalid").to_string()
    }

    #[test]
    fn broker_role_is_a_clear_error() {
        let e = err(&MINIMAL.replace(
            "process.roles=controller",
            "process.roles=broker,controller",
        ));
        assert!(
            e.starts_with("Invalid value broker,controller for configuration process.roles:"),
            "{e}"
        );
        assert!(e.contains("broker role is not supported"), "{e}");
        let e = err(&MINIMAL.replace("process.roles=controller", "process.roles=observer"));
        assert!(e.contains("Unknown process role 'observer'"), "{e}");
    }

    #[test]
    fn missing_required_keys() {
        assert_eq!(
            err("node.id=1"),
            "Missing required configuration \"process.roles\" which has no default value."
        );
        assert_eq!(
            err("process.roles=controller"),
            "Missing required configuration \"node.id\" which has no default value."
        );
        assert_eq!(
            err("process.roles=controller\nnode.id=1"),
            "Missing required configuration \"controller.listener.names\" which has no default value."
        );
        // broker.id is a synonym
        let (c, _) = parse(&MINIMAL.replace("node.id", "broker.id")).expect("valid");
        assert_eq!(c.node_id, 1);
    }

    #[test]
    fn invalid_values_name_key_and_rule() {
        assert_eq!(
            err(&MINIMAL.replace("node.id=1", "node.id=x")),
            "Invalid value x for configuration node.id: Not a number of type INT"
        );
        assert_eq!(
            err(&MINIMAL.replace("node.id=1", "node.id=-1")),
            "Invalid value -1 for configuration node.id: Value must be at least 0"
        );
        assert_eq!(
            err(&format!("{MINIMAL}controller.quorum.auto.join.enable=yes")),
            "Invalid value yes for configuration controller.quorum.auto.join.enable: Expected value to be either true or false"
        );
        assert_eq!(
            err(&format!("{MINIMAL}metadata.log.segment.bytes=1024")),
            "Invalid value 1024 for configuration metadata.log.segment.bytes: Value must be at least 8388608"
        );
        assert_eq!(
            err(&format!("{MINIMAL}metadata.log.max.snapshot.interval.ms=abc")),
            "Invalid value abc for configuration metadata.log.max.snapshot.interval.ms: Not a number of type LONG"
        );
        assert!(err(&format!("{MINIMAL}controller.quorum.voters=1@host"))
            .contains("controller.quorum.voters"));
        assert!(
            err(&format!("{MINIMAL}controller.quorum.voters=1@0.0.0.0:9093"))
                .contains("not routeable")
        );
        assert!(err(&format!("{MINIMAL}controller.quorum.voters=x@h:1"))
            .contains("Failed to parse voter ID"));
        assert!(err(&MINIMAL.replace("localhost:9093", "localhost"))
            .contains("controller.quorum.bootstrap.servers"));
        assert!(
            err(&MINIMAL.replace("CONTROLLER://:9093", "CONTROLLER//:9093"))
                .contains("Unable to parse")
        );
        assert!(
            err(&MINIMAL.replace("CONTROLLER://:9093", "CONTROLLER://:99999"))
                .contains("between 0 and 65535")
        );
        assert!(err(&format!(
            "{MINIMAL}listener.security.protocol.map=CONTROLLER:TLS"
        ))
        .contains("unknown security protocol"));
    }

    #[test]
    fn cross_key_checks_in_kafkas_order() {
        let no_quorum = MINIMAL.replace("controller.quorum.bootstrap.servers=localhost:9093\n", "");
        assert!(err(&no_quorum)
            .starts_with("If using process.roles, either controller.quorum.bootstrap.servers"));
        let extra_listener =
            MINIMAL.replace("CONTROLLER://:9093", "CONTROLLER://:9093,PLAINTEXT://:9092");
        assert_eq!(
            err(&extra_listener),
            "The listeners config must only contain KRaft controller listeners from controller.listener.names when process.roles=controller"
        );
        let not_a_voter = format!("{MINIMAL}controller.quorum.voters=2@h:9093,3@h:9094");
        assert_eq!(
            err(&not_a_voter),
            "If process.roles contains the 'controller' role, the node id 1 must be included in the set of voters controller.quorum.voters=Set(2, 3)"
        );
        let missing_name = MINIMAL.replace(
            "controller.listener.names=CONTROLLER",
            "controller.listener.names=CONTROLLER,OTHER",
        );
        assert_eq!(
            err(&missing_name),
            "controller.listener.names must only contain values appearing in the 'listeners' configuration when running the KRaft controller role"
        );
        let wildcard = format!("{MINIMAL}advertised.listeners=CONTROLLER://0.0.0.0:9093");
        assert!(err(&wildcard).contains("nonroutable meta-address 0.0.0.0"));
        let ssl = format!("{MINIMAL}listener.security.protocol.map=CONTROLLER:SSL");
        assert!(err(&ssl).contains("supports only PLAINTEXT"));
        let dup = MINIMAL.replace(
            "CONTROLLER://:9093",
            "CONTROLLER://:9093,CONTROLLER://:9094",
        );
        assert!(err(&dup).contains("different name"));
    }
}
