//! Every setting kraft-rs reads, declared once: key, type, default, bound and
//! documentation. [`SETTINGS`] lists them in documentation order; the typed
//! readers ([`Int::read`], [`OptionalInt::read`], [`Long::read`],
//! [`Bool::read`], [`Text::read`])
//! apply Kafka's parsing, default and lower bound with Kafka's messages.
//!
//! The keys, defaults and bounds are Kafka 4.4's (`KRaftConfigs`,
//! `QuorumConfig`, `MetadataLogConfig`, `SocketServerConfigs`,
//! `ServerLogConfigs`), except the `kraft.*` keys, which are kraft-rs's own
//! extensions and say so in their documentation.

use std::collections::BTreeSet;

use kraft_protocol::text::Properties;

use super::{security, ConfigError};

/// A setting of Kafka type INT with a default.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Int {
    /// The key.
    pub key: &'static str,
    /// The value when the key is absent.
    pub default: i32,
    /// The smallest accepted value.
    pub min: Option<i32>,
    /// The largest accepted value.
    pub max: Option<i32>,
    /// What it configures.
    pub doc: &'static str,
}

/// A setting of Kafka type INT without a default.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OptionalInt {
    /// The key.
    pub key: &'static str,
    /// Whether the key must be present.
    pub required: bool,
    /// The smallest accepted value.
    pub min: Option<i32>,
    /// What it configures.
    pub doc: &'static str,
}

/// A setting of Kafka type LONG.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Long {
    /// The key.
    pub key: &'static str,
    /// The value when the key is absent.
    pub default: i64,
    /// The smallest accepted value.
    pub min: Option<i64>,
    /// What it configures.
    pub doc: &'static str,
}

/// A setting of Kafka type BOOLEAN (`true` / `false` in any case).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bool {
    /// The key.
    pub key: &'static str,
    /// The value when the key is absent.
    pub default: bool,
    /// What it configures.
    pub doc: &'static str,
}

/// A setting of Kafka type STRING or LIST whose syntax the configuration
/// checks itself (listeners, voters, directories).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Text {
    /// The key.
    pub key: &'static str,
    /// Whether the value is a comma-separated list (Kafka's LIST).
    pub list: bool,
    /// The value when the key is absent; `None` means "not set".
    pub default: Option<&'static str>,
    /// Whether the key must be present.
    pub required: bool,
    /// What it configures and its syntax.
    pub doc: &'static str,
}

/// One entry of the settings table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Setting {
    /// An INT setting with a default.
    Int(&'static Int),
    /// An INT setting without a default.
    OptionalInt(&'static OptionalInt),
    /// A LONG setting.
    Long(&'static Long),
    /// A BOOLEAN setting.
    Bool(&'static Bool),
    /// A STRING or LIST setting.
    Text(&'static Text),
}

impl Setting {
    /// The key.
    pub fn key(&self) -> &'static str {
        match self {
            Setting::Int(s) => s.key,
            Setting::OptionalInt(s) => s.key,
            Setting::Long(s) => s.key,
            Setting::Bool(s) => s.key,
            Setting::Text(s) => s.key,
        }
    }

    /// Kafka's name of the value type.
    pub fn type_name(&self) -> &'static str {
        match self {
            Setting::Int(_) | Setting::OptionalInt(_) => "int",
            Setting::Long(_) => "long",
            Setting::Bool(_) => "boolean",
            Setting::Text(s) if s.list => "list",
            Setting::Text(_) => "string",
        }
    }

    /// The default as Kafka's documentation prints it (`null` for none).
    pub fn default_text(&self) -> String {
        match self {
            Setting::Int(s) => s.default.to_string(),
            Setting::OptionalInt(_) => "null".to_owned(),
            Setting::Long(s) => s.default.to_string(),
            Setting::Bool(s) => s.default.to_string(),
            Setting::Text(s) => s
                .default
                .map_or_else(|| "null".to_owned(), |d| format!("\"{d}\"")),
        }
    }

    /// The accepted values, as Kafka's documentation states them.
    pub fn valid_values(&self) -> String {
        match self {
            Setting::Int(Int {
                min: Some(m),
                max: Some(x),
                ..
            }) => format!("[{m},...,{x}]"),
            Setting::Int(Int { min: Some(m), .. })
            | Setting::OptionalInt(OptionalInt { min: Some(m), .. }) => format!("[{m},...]"),
            Setting::Long(Long { min: Some(m), .. }) => format!("[{m},...]"),
            Setting::Bool(_) => "true, false".to_owned(),
            _ => String::new(),
        }
    }

    /// Whether the key must be present.
    pub fn is_required(&self) -> bool {
        match self {
            Setting::OptionalInt(s) => s.required,
            Setting::Text(s) => s.required,
            Setting::Int(_) | Setting::Long(_) | Setting::Bool(_) => false,
        }
    }

    /// What it configures.
    pub fn doc(&self) -> &'static str {
        match self {
            Setting::Int(s) => s.doc,
            Setting::OptionalInt(s) => s.doc,
            Setting::Long(s) => s.doc,
            Setting::Bool(s) => s.doc,
            Setting::Text(s) => s.doc,
        }
    }
}

impl Int {
    /// The value or its default.
    pub fn read(&self, props: &Properties) -> Result<i32, ConfigError> {
        let value = read_int(props, self.key, self.min)?;
        if let (Some(v), Some(max)) = (value, self.max) {
            if v > max {
                let raw = raw(props, self.key).unwrap_or_default();
                return Err(invalid(
                    self.key,
                    raw,
                    &format!("Value must be no more than {max}"),
                ));
            }
        }
        Ok(value.unwrap_or(self.default))
    }
}

impl OptionalInt {
    /// The value if the key is present; [`ConfigError::Missing`] when a
    /// required key is absent.
    pub fn read(&self, props: &Properties) -> Result<Option<i32>, ConfigError> {
        match read_int(props, self.key, self.min)? {
            None if self.required => Err(ConfigError::Missing { key: self.key }),
            value => Ok(value),
        }
    }
}

fn read_int(props: &Properties, key: &str, min: Option<i32>) -> Result<Option<i32>, ConfigError> {
    let Some(raw) = raw(props, key) else {
        return Ok(None);
    };
    let v = raw
        .trim()
        .parse::<i32>()
        .map_err(|_| invalid(key, raw, "Not a number of type INT"))?;
    at_least(key, raw, i64::from(v), min.map(i64::from))?;
    Ok(Some(v))
}

impl Long {
    /// The value or its default.
    pub fn read(&self, props: &Properties) -> Result<i64, ConfigError> {
        let Some(raw) = raw(props, self.key) else {
            return Ok(self.default);
        };
        let v = raw
            .trim()
            .parse::<i64>()
            .map_err(|_| invalid(self.key, raw, "Not a number of type LONG"))?;
        at_least(self.key, raw, v, self.min)?;
        Ok(v)
    }
}

impl Bool {
    /// The value or its default.
    pub fn read(&self, props: &Properties) -> Result<bool, ConfigError> {
        let Some(raw) = raw(props, self.key) else {
            return Ok(self.default);
        };
        match raw.trim().to_ascii_lowercase().as_str() {
            "true" => Ok(true),
            "false" => Ok(false),
            _ => Err(invalid(
                self.key,
                raw,
                "Expected value to be either true or false",
            )),
        }
    }
}

impl Text {
    /// The raw value, its default, or [`ConfigError::Missing`] for a
    /// required key; `None` when absent without default.
    pub fn read<'a>(&self, props: &'a Properties) -> Result<Option<&'a str>, ConfigError> {
        match raw(props, self.key).or(self.default) {
            None if self.required => Err(ConfigError::Missing { key: self.key }),
            value => Ok(value),
        }
    }
}

/// `node.id`
pub const NODE_ID: OptionalInt = OptionalInt {
    key: "node.id",
    required: true,
    min: Some(0),
    doc: "The node id of this controller; must appear in `controller.quorum.voters` when that is set.",
};
/// `broker.id`
pub const BROKER_ID: OptionalInt = OptionalInt {
    key: "broker.id",
    required: false,
    min: Some(0),
    doc: "Legacy alias of `node.id`; when both are set they must be equal.",
};
/// `process.roles`
pub const PROCESS_ROLES: Text = Text {
    key: "process.roles",
    list: true,
    default: None,
    required: true,
    doc: "The roles of this node; kraft-rs runs only `controller`.",
};
/// `controller.listener.names`
pub const CONTROLLER_LISTENER_NAMES: Text = Text {
    key: "controller.listener.names",
    list: true,
    default: None,
    required: true,
    doc: "The controller listeners; the first is the default listener used for all KRaft traffic.",
};
/// `listeners`
pub const LISTENERS: Text = Text {
    key: "listeners",
    list: true,
    default: Some("PLAINTEXT://:9092"),
    required: false,
    doc: "The listeners to bind, `NAME://host:port`; an empty host binds every interface, port 0 an ephemeral port.",
};
/// `advertised.listeners`
pub const ADVERTISED_LISTENERS: Text = Text {
    key: "advertised.listeners",
    list: true,
    default: None,
    required: false,
    doc: "The listener addresses published in the controller's registration, when they differ from `listeners`.",
};
/// `listener.security.protocol.map`
pub const LISTENER_SECURITY_PROTOCOL_MAP: Text = Text {
    key: "listener.security.protocol.map",
    list: true,
    default: None,
    required: false,
    doc: "`LISTENER_NAME:SECURITY_PROTOCOL` pairs; when unset every protocol maps to itself and the controller listeners to PLAINTEXT.",
};
/// `metadata.log.dir`
pub const METADATA_LOG_DIR: Text = Text {
    key: "metadata.log.dir",
    list: false,
    default: None,
    required: false,
    doc: "The directory of the metadata log; when unset, the first of `log.dirs`.",
};
/// `log.dirs`
pub const LOG_DIRS: Text = Text {
    key: "log.dirs",
    list: true,
    default: None,
    required: false,
    doc: "The log directories; when unset, `log.dir`.",
};
/// `log.dir`
pub const LOG_DIR: Text = Text {
    key: "log.dir",
    list: false,
    default: Some("/tmp/kafka-logs"),
    required: false,
    doc: "The log directory used when `log.dirs` is unset.",
};
/// `controller.quorum.voters`
pub const QUORUM_VOTERS: Text = Text {
    key: "controller.quorum.voters",
    list: true,
    default: None,
    required: false,
    doc: "The static voters, `id@host:port`; leave unset for a dynamic quorum (KIP-853).",
};
/// `controller.quorum.bootstrap.servers`
pub const QUORUM_BOOTSTRAP_SERVERS: Text = Text {
    key: "controller.quorum.bootstrap.servers",
    list: true,
    default: None,
    required: false,
    doc: "`host:port` addresses used to discover the leader of a dynamic quorum.",
};
/// `controller.quorum.election.timeout.ms`
pub const QUORUM_ELECTION_TIMEOUT_MS: Int = Int {
    key: "controller.quorum.election.timeout.ms",
    default: 1_000,
    min: Some(0),
    max: None,
    doc:
        "How long without a leader before a voter starts an election (randomised up to twice this).",
};
/// `controller.quorum.fetch.timeout.ms`
pub const QUORUM_FETCH_TIMEOUT_MS: Int = Int {
    key: "controller.quorum.fetch.timeout.ms",
    default: 2_000,
    min: Some(0),
    max: None,
    doc: "How long a follower waits for a successful fetch before it becomes a candidate; the leader's check-quorum basis.",
};
/// `controller.quorum.election.backoff.max.ms`
pub const QUORUM_ELECTION_BACKOFF_MAX_MS: Int = Int {
    key: "controller.quorum.election.backoff.max.ms",
    default: 1_000,
    min: Some(0),
    max: None,
    doc: "The largest backoff before a new election after a lost one.",
};
/// `controller.quorum.append.linger.ms`
pub const QUORUM_APPEND_LINGER_MS: Int = Int {
    key: "controller.quorum.append.linger.ms",
    default: 25,
    min: Some(0),
    max: None,
    doc: "Accepted for Kafka compatibility; kraft-rs does not linger: the leader flushes what was appended as soon as the previous flush completes (group commit).",
};
/// `controller.quorum.request.timeout.ms`
pub const QUORUM_REQUEST_TIMEOUT_MS: Int = Int {
    key: "controller.quorum.request.timeout.ms",
    default: 2_000,
    min: Some(0),
    max: None,
    doc: "The timeout of KRaft RPCs; also the time a voter change may take.",
};
/// `controller.quorum.retry.backoff.ms`
pub const QUORUM_RETRY_BACKOFF_MS: Int = Int {
    key: "controller.quorum.retry.backoff.ms",
    default: 20,
    min: Some(0),
    max: None,
    doc: "The backoff before retrying a failed KRaft RPC.",
};
/// `controller.quorum.auto.join.enable`
pub const QUORUM_AUTO_JOIN_ENABLE: Bool = Bool {
    key: "controller.quorum.auto.join.enable",
    default: false,
    doc: "Whether a controller that is an observer adds itself to the voters (KIP-1186).",
};
/// `controller.quorum.fetch.snapshot.max.bytes`
pub const QUORUM_FETCH_SNAPSHOT_MAX_BYTES: Int = Int {
    key: "controller.quorum.fetch.snapshot.max.bytes",
    default: 1_048_576,
    min: Some(1),
    max: None,
    doc: "The most snapshot bytes asked for in one FetchSnapshot.",
};
/// `controller.quorum.fetch.max.bytes`
pub const QUORUM_FETCH_MAX_BYTES: Int = Int {
    key: "controller.quorum.fetch.max.bytes",
    default: 1_048_576,
    min: Some(1),
    max: None,
    doc: "The most log bytes asked for in one Fetch.",
};
/// `metadata.log.segment.bytes`
pub const METADATA_LOG_SEGMENT_BYTES: Int = Int {
    key: "metadata.log.segment.bytes",
    default: 1024 * 1024 * 1024,
    min: Some(8 * 1024 * 1024),
    max: None,
    doc: "The size at which a metadata log segment is rolled.",
};
/// `internal.metadata.log.segment.bytes`
pub const INTERNAL_METADATA_LOG_SEGMENT_BYTES: OptionalInt = OptionalInt {
    key: "internal.metadata.log.segment.bytes",
    required: false,
    min: Some(1),
    doc: "For tests: a segment size below the 8 MiB bound; replaces `metadata.log.segment.bytes` when set.",
};
/// `metadata.log.segment.ms`
pub const METADATA_LOG_SEGMENT_MS: Long = Long {
    key: "metadata.log.segment.ms",
    default: 7 * 24 * 60 * 60 * 1000,
    min: None,
    doc: "The age at which a metadata log segment is rolled.",
};
/// `metadata.max.retention.bytes`
pub const METADATA_MAX_RETENTION_BYTES: Long = Long {
    key: "metadata.max.retention.bytes",
    default: 100 * 1024 * 1024,
    min: None,
    doc: "The log and snapshot bytes kept before old segments are deleted below the latest snapshot (-1: unlimited).",
};
/// `metadata.max.retention.ms`
pub const METADATA_MAX_RETENTION_MS: Long = Long {
    key: "metadata.max.retention.ms",
    default: 7 * 24 * 60 * 60 * 1000,
    min: None,
    doc: "The age after which segments below the latest snapshot are deleted (-1: unlimited).",
};
/// `metadata.log.max.record.bytes.between.snapshots`
pub const METADATA_SNAPSHOT_MAX_NEW_RECORD_BYTES: Long = Long {
    key: "metadata.log.max.record.bytes.between.snapshots",
    default: 20 * 1024 * 1024,
    min: Some(1),
    doc: "The committed record bytes after which a new snapshot is written.",
};
/// `metadata.log.max.snapshot.interval.ms`
pub const METADATA_SNAPSHOT_MAX_INTERVAL_MS: Long = Long {
    key: "metadata.log.max.snapshot.interval.ms",
    default: 60 * 60 * 1000,
    min: Some(0),
    doc: "The time after which a new snapshot is written if records were committed (0: never by time).",
};
/// `metadata.max.idle.interval.ms`
pub const METADATA_MAX_IDLE_INTERVAL_MS: Int = Int {
    key: "metadata.max.idle.interval.ms",
    default: 500,
    min: Some(0),
    max: None,
    doc: "How often the active controller appends a NoOpRecord to the metadata log (0: never).",
};
/// `min.insync.replicas`
pub const MIN_INSYNC_REPLICAS: Int = Int {
    key: "min.insync.replicas",
    default: 1,
    min: Some(1),
    max: None,
    doc: "The cluster-wide min.insync.replicas a new cluster's first active controller records when eligible leader replicas are enabled.",
};
/// `num.partitions`
pub const NUM_PARTITIONS: Int = Int {
    key: "num.partitions",
    default: 1,
    min: Some(1),
    max: None,
    doc: "The partition count of a topic created without one (CreateTopics with NumPartitions -1, brokers' automatic creation).",
};
/// `default.replication.factor`
pub const DEFAULT_REPLICATION_FACTOR: Int = Int {
    key: "default.replication.factor",
    default: 1,
    min: None,
    max: None,
    doc: "The replication factor of a topic created without one (CreateTopics with ReplicationFactor -1).",
};
/// `auto.leader.rebalance.enable`
pub const AUTO_LEADER_REBALANCE_ENABLE: Bool = Bool {
    key: "auto.leader.rebalance.enable",
    default: true,
    doc: "Whether the active controller periodically moves partition leadership back to the preferred replica.",
};
/// `delete.topic.enable`
pub const DELETE_TOPIC_ENABLE: Bool = Bool {
    key: "delete.topic.enable",
    default: true,
    doc: "Whether topics may be deleted: when false, every DeleteTopics is refused (TOPIC_DELETION_DISABLED; INVALID_REQUEST below version 3) and nothing is deleted, as on a Kafka controller.",
};
/// `remote.log.storage.system.enable`
pub const REMOTE_LOG_STORAGE_SYSTEM_ENABLE: Bool = Bool {
    key: "remote.log.storage.system.enable",
    default: false,
    doc: "Whether topics may use tiered storage: CreateTopics and config changes setting `remote.storage.enable=true` are refused with Kafka's message while it is false. As on a Kafka controller, set it on the controllers as well as on the brokers (it cannot be changed at run time).",
};
/// `unclean.leader.election.enable`
pub const UNCLEAN_LEADER_ELECTION_ENABLE: Bool = Bool {
    key: "unclean.leader.election.enable",
    default: false,
    doc: "Whether a replica outside the ISR may be elected leader as a last resort: the value topics fall back to when neither the topic, this controller's dynamic BROKER config nor the cluster default sets it (Kafka's static config).",
};
/// `unclean.leader.election.interval.ms`
pub const UNCLEAN_LEADER_ELECTION_INTERVAL_MS: Long = Long {
    key: "unclean.leader.election.interval.ms",
    default: 300_000,
    min: Some(1),
    doc: "How often the active controller looks for leaderless partitions whose topic allows an unclean leader election.",
};
/// `leader.imbalance.check.interval.seconds`
pub const LEADER_IMBALANCE_CHECK_INTERVAL_SECONDS: Long = Long {
    key: "leader.imbalance.check.interval.seconds",
    default: 300,
    min: Some(1),
    doc: "How often the active controller looks for partitions not led by their preferred replica.",
};
/// `broker.session.timeout.ms`
pub const BROKER_SESSION_TIMEOUT_MS: Int = Int {
    key: "broker.session.timeout.ms",
    default: 9000,
    min: Some(1),
    max: None,
    doc: "How long a broker may go without a heartbeat before the active controller fences it.",
};
/// `broker.heartbeat.interval.ms`
pub const BROKER_HEARTBEAT_INTERVAL_MS: Int = Int {
    key: "broker.heartbeat.interval.ms",
    default: 2000,
    min: Some(1),
    max: None,
    doc: "The brokers' heartbeat interval; a heartbeat not processed within half of it is answered REQUEST_TIMED_OUT.",
};
/// `controller.performance.sample.period.ms`
pub const CONTROLLER_PERFORMANCE_SAMPLE_PERIOD_MS: Long = Long {
    key: "controller.performance.sample.period.ms",
    default: 60_000,
    min: Some(100),
    doc: "How often the active controller logs (at INFO) how many writes it completed in the period, their average time and the slowest, in Kafka's words (\"In the last 60000 ms period, ...\").",
};
/// `controller.performance.always.log.threshold.ms`
pub const CONTROLLER_PERFORMANCE_ALWAYS_LOG_THRESHOLD_MS: Long = Long {
    key: "controller.performance.always.log.threshold.ms",
    default: 2000,
    min: Some(0),
    doc: "A write that holds the active controller's writer this long or longer is logged at once as an ERROR (\"Exceptionally slow controller event createTopics took 2500 ms.\").",
};
/// `controller.quota.window.num`
pub const CONTROLLER_QUOTA_WINDOW_NUM: Int = Int {
    key: "controller.quota.window.num",
    default: 11,
    min: Some(1),
    max: None,
    doc: "With `controller.quota.window.size.seconds`, the burst of the controller mutation quota (KIP-599): a principal and client id with a `controller_mutation_rate` quota R may create or delete up to R x window.num x window.size.seconds partitions at once before CreateTopics, CreatePartitions and DeleteTopics are throttled.",
};
/// `controller.quota.window.size.seconds`
pub const CONTROLLER_QUOTA_WINDOW_SIZE_SECONDS: Int = Int {
    key: "controller.quota.window.size.seconds",
    default: 1,
    min: Some(1),
    max: None,
    doc: "The time span of each sample of the controller mutation quota; see `controller.quota.window.num`.",
};
/// `unstable.feature.versions.enable`
pub const UNSTABLE_FEATURE_VERSIONS_ENABLE: Bool = Bool {
    key: "unstable.feature.versions.enable",
    default: false,
    doc: "Whether feature levels not yet production-ready may be finalized.",
};
/// `unstable.api.versions.enable`
pub const UNSTABLE_API_VERSIONS_ENABLE: Bool = Bool {
    key: "unstable.api.versions.enable",
    default: false,
    doc: "Whether API versions not yet production-ready are advertised.",
};
/// `socket.request.max.bytes`
pub const SOCKET_REQUEST_MAX_BYTES: Int = Int {
    key: "socket.request.max.bytes",
    default: 100 * 1024 * 1024,
    min: Some(1),
    max: None,
    doc: "The largest request frame accepted.",
};
/// `socket.send.buffer.bytes`
pub const SOCKET_SEND_BUFFER_BYTES: Int = Int {
    key: "socket.send.buffer.bytes",
    default: 102400,
    min: None,
    max: None,
    doc: "SO_SNDBUF of the controller listeners' connections (-1: the operating system's default).",
};
/// `socket.receive.buffer.bytes`
pub const SOCKET_RECEIVE_BUFFER_BYTES: Int = Int {
    key: "socket.receive.buffer.bytes",
    default: 102400,
    min: None,
    max: None,
    doc: "SO_RCVBUF of the controller listeners' connections (-1: the operating system's default).",
};
/// `socket.listen.backlog.size`
pub const SOCKET_LISTEN_BACKLOG_SIZE: Int = Int {
    key: "socket.listen.backlog.size",
    default: 50,
    min: Some(1),
    max: None,
    doc: "The most connections a listener keeps pending before they are accepted (Linux also caps it with `somaxconn`).",
};
/// `connection.failed.authentication.delay.ms`
pub const CONNECTION_FAILED_AUTHENTICATION_DELAY_MS: Int = Int {
    key: "connection.failed.authentication.delay.ms",
    default: 100,
    min: Some(0),
    max: None,
    doc: "How long a connection whose SASL authentication failed is kept open (answered, then closed after this delay), slowing down password guessing; a failed TLS handshake closes at once.",
};
/// `connections.max.idle.ms`
pub const CONNECTIONS_MAX_IDLE_MS: Long = Long {
    key: "connections.max.idle.ms",
    default: 10 * 60 * 1000,
    min: None,
    doc: "How long a connection may stay idle while it authenticates (TLS handshake, SASL) before the controller closes it; kraft-rs closes it after 30 s in any case, or after this when shorter (negative: 30 s). Kafka closes every idle connection after this; kraft-rs keeps authenticated connections open.",
};
/// `kraft.metrics.listener`
pub const KRAFT_METRICS_LISTENER: Text = Text {
    key: "kraft.metrics.listener",
    list: false,
    default: None,
    required: false,
    doc: "kraft-rs's own extension (Kafka has no such key): `HOST:PORT` of a plain HTTP listener that answers `GET /metrics` in the Prometheus text format; `0.0.0.0` binds every interface, port 0 an ephemeral port (the bound address is logged). Unset: no metrics endpoint.",
};
/// `kraft.metrics.naming`
pub const KRAFT_METRICS_NAMING: Text = Text {
    key: "kraft.metrics.naming",
    list: false,
    default: Some("strimzi"),
    required: false,
    doc: "kraft-rs's own extension (Kafka has no such key): which Prometheus JMX exporter rules the Kafka-named metrics of `kraft.metrics.listener` follow, so the dashboards built on them work unchanged. `strimzi`: Strimzi's `kafka-metrics.yaml` (`kafka_server_raftmetrics_*`, `kafka_server_raftchannelmetrics_*`, histograms as `_count` and `quantile` series, meters as `_total`). `confluent`: Confluent's jmx-monitoring-stacks `kafka_controller.yml` (`kafka_server_raft_metrics_*`, histograms and meters as their count under the bare name).",
};

/// Every setting kraft-rs reads, in documentation order.
pub const SETTINGS: &[Setting] = &[
    Setting::Text(&PROCESS_ROLES),
    Setting::OptionalInt(&NODE_ID),
    Setting::OptionalInt(&BROKER_ID),
    Setting::Text(&CONTROLLER_LISTENER_NAMES),
    Setting::Text(&LISTENERS),
    Setting::Text(&ADVERTISED_LISTENERS),
    Setting::Text(&LISTENER_SECURITY_PROTOCOL_MAP),
    Setting::Text(&METADATA_LOG_DIR),
    Setting::Text(&LOG_DIRS),
    Setting::Text(&LOG_DIR),
    Setting::Text(&QUORUM_VOTERS),
    Setting::Text(&QUORUM_BOOTSTRAP_SERVERS),
    Setting::Int(&QUORUM_ELECTION_TIMEOUT_MS),
    Setting::Int(&QUORUM_FETCH_TIMEOUT_MS),
    Setting::Int(&QUORUM_ELECTION_BACKOFF_MAX_MS),
    Setting::Int(&QUORUM_APPEND_LINGER_MS),
    Setting::Int(&QUORUM_REQUEST_TIMEOUT_MS),
    Setting::Int(&QUORUM_RETRY_BACKOFF_MS),
    Setting::Bool(&QUORUM_AUTO_JOIN_ENABLE),
    Setting::Int(&QUORUM_FETCH_SNAPSHOT_MAX_BYTES),
    Setting::Int(&QUORUM_FETCH_MAX_BYTES),
    Setting::Int(&METADATA_LOG_SEGMENT_BYTES),
    Setting::OptionalInt(&INTERNAL_METADATA_LOG_SEGMENT_BYTES),
    Setting::Long(&METADATA_LOG_SEGMENT_MS),
    Setting::Long(&METADATA_MAX_RETENTION_BYTES),
    Setting::Long(&METADATA_MAX_RETENTION_MS),
    Setting::Long(&METADATA_SNAPSHOT_MAX_NEW_RECORD_BYTES),
    Setting::Long(&METADATA_SNAPSHOT_MAX_INTERVAL_MS),
    Setting::Int(&METADATA_MAX_IDLE_INTERVAL_MS),
    Setting::Int(&MIN_INSYNC_REPLICAS),
    Setting::Int(&NUM_PARTITIONS),
    Setting::Int(&DEFAULT_REPLICATION_FACTOR),
    Setting::Bool(&AUTO_LEADER_REBALANCE_ENABLE),
    Setting::Bool(&DELETE_TOPIC_ENABLE),
    Setting::Bool(&REMOTE_LOG_STORAGE_SYSTEM_ENABLE),
    Setting::Long(&LEADER_IMBALANCE_CHECK_INTERVAL_SECONDS),
    Setting::Bool(&UNCLEAN_LEADER_ELECTION_ENABLE),
    Setting::Long(&UNCLEAN_LEADER_ELECTION_INTERVAL_MS),
    Setting::Int(&BROKER_SESSION_TIMEOUT_MS),
    Setting::Int(&BROKER_HEARTBEAT_INTERVAL_MS),
    Setting::Int(&CONTROLLER_QUOTA_WINDOW_NUM),
    Setting::Long(&CONTROLLER_PERFORMANCE_SAMPLE_PERIOD_MS),
    Setting::Long(&CONTROLLER_PERFORMANCE_ALWAYS_LOG_THRESHOLD_MS),
    Setting::Int(&CONTROLLER_QUOTA_WINDOW_SIZE_SECONDS),
    Setting::Bool(&UNSTABLE_FEATURE_VERSIONS_ENABLE),
    Setting::Bool(&UNSTABLE_API_VERSIONS_ENABLE),
    Setting::Int(&SOCKET_REQUEST_MAX_BYTES),
    Setting::Int(&SOCKET_SEND_BUFFER_BYTES),
    Setting::Int(&SOCKET_RECEIVE_BUFFER_BYTES),
    Setting::Int(&SOCKET_LISTEN_BACKLOG_SIZE),
    Setting::Int(&CONNECTION_FAILED_AUTHENTICATION_DELAY_MS),
    Setting::Long(&CONNECTIONS_MAX_IDLE_MS),
    Setting::Int(&super::connections::MAX_CONNECTIONS),
    Setting::Int(&super::connections::MAX_CONNECTIONS_PER_IP),
    Setting::Text(&super::connections::MAX_CONNECTIONS_PER_IP_OVERRIDES),
    Setting::Int(&super::connections::MAX_CONNECTION_CREATION_RATE),
    Setting::Int(&super::connections::QUOTA_WINDOW_NUM),
    Setting::Int(&super::connections::QUOTA_WINDOW_SIZE_SECONDS),
    Setting::Text(&KRAFT_METRICS_LISTENER),
    Setting::Text(&super::logging::KRAFT_LOG_LEVEL),
    Setting::Text(&super::logging::KRAFT_LOG_FORMAT),
    Setting::Text(&super::logging::KRAFT_LOG_FILE),
    Setting::Long(&super::logging::KRAFT_LOG_FILE_MAX_BYTES),
    Setting::Int(&super::logging::KRAFT_LOG_FILE_MAX_FILES),
    Setting::Text(&KRAFT_METRICS_NAMING),
    Setting::Text(&security::AUTHORIZER_CLASS_NAME),
    Setting::Text(&security::SUPER_USERS),
    Setting::Bool(&security::ALLOW_EVERYONE_IF_NO_ACL_FOUND),
    Setting::Text(&security::EARLY_START_LISTENERS),
    Setting::Text(&security::PRINCIPAL_BUILDER_CLASS),
    Setting::Text(&security::DELEGATION_TOKEN_SECRET_KEY),
    Setting::Long(&security::DELEGATION_TOKEN_MAX_LIFETIME_MS),
    Setting::Long(&security::DELEGATION_TOKEN_EXPIRY_TIME_MS),
    Setting::Long(&security::DELEGATION_TOKEN_EXPIRY_CHECK_INTERVAL_MS),
    // The group coordinator's bounds (`super::groups`).Setting] = &[
    Setting::Int(&super::groups::CONSUMER_SESSION_TIMEOUT_MS),
    Setting::Int(&super::groups::CONSUMER_MIN_SESSION_TIMEOUT_MS),
    Setting::Int(&super::groups::CONSUMER_MAX_SESSION_TIMEOUT_MS),
    Setting::Int(&super::groups::CONSUMER_HEARTBEAT_INTERVAL_MS),
    Setting::Int(&super::groups::CONSUMER_MIN_HEARTBEAT_INTERVAL_MS),
    Setting::Int(&super::groups::CONSUMER_MAX_HEARTBEAT_INTERVAL_MS),
    Setting::Int(&super::groups::CONSUMER_ASSIGNMENT_INTERVAL_MS),
    Setting::Int(&super::groups::CONSUMER_MIN_ASSIGNMENT_INTERVAL_MS),
    Setting::Int(&super::groups::CONSUMER_MAX_ASSIGNMENT_INTERVAL_MS),
    Setting::Int(&super::groups::SHARE_SESSION_TIMEOUT_MS),
    Setting::Int(&super::groups::SHARE_MIN_SESSION_TIMEOUT_MS),
    Setting::Int(&super::groups::SHARE_MAX_SESSION_TIMEOUT_MS),
    Setting::Int(&super::groups::SHARE_HEARTBEAT_INTERVAL_MS),
    Setting::Int(&super::groups::SHARE_MIN_HEARTBEAT_INTERVAL_MS),
    Setting::Int(&super::groups::SHARE_MAX_HEARTBEAT_INTERVAL_MS),
    Setting::Int(&super::groups::SHARE_ASSIGNMENT_INTERVAL_MS),
    Setting::Int(&super::groups::SHARE_MIN_ASSIGNMENT_INTERVAL_MS),
    Setting::Int(&super::groups::SHARE_MAX_ASSIGNMENT_INTERVAL_MS),
    Setting::Int(&super::groups::STREAMS_SESSION_TIMEOUT_MS),
    Setting::Int(&super::groups::STREAMS_MIN_SESSION_TIMEOUT_MS),
    Setting::Int(&super::groups::STREAMS_MAX_SESSION_TIMEOUT_MS),
    Setting::Int(&super::groups::STREAMS_HEARTBEAT_INTERVAL_MS),
    Setting::Int(&super::groups::STREAMS_MIN_HEARTBEAT_INTERVAL_MS),
    Setting::Int(&super::groups::STREAMS_MAX_HEARTBEAT_INTERVAL_MS),
    Setting::Int(&super::groups::STREAMS_NUM_STANDBY_REPLICAS),
    Setting::Int(&super::groups::STREAMS_MAX_STANDBY_REPLICAS),
    Setting::Int(&super::groups::STREAMS_ASSIGNMENT_INTERVAL_MS),
    Setting::Int(&super::groups::STREAMS_MIN_ASSIGNMENT_INTERVAL_MS),
    Setting::Int(&super::groups::STREAMS_MAX_ASSIGNMENT_INTERVAL_MS),
    Setting::Text(&super::groups::STREAMS_ASSIGNORS),
    Setting::Int(&super::groups::STREAMS_TASK_OFFSET_INTERVAL_MS),
    Setting::Int(&super::groups::STREAMS_MIN_TASK_OFFSET_INTERVAL_MS),
    Setting::Int(&super::groups::STREAMS_NUM_WARMUP_REPLICAS),
    Setting::Int(&super::groups::STREAMS_MAX_WARMUP_REPLICAS),
    Setting::Int(&super::groups::SHARE_DELIVERY_COUNT_LIMIT),
    Setting::Int(&super::groups::SHARE_MAX_DELIVERY_COUNT_LIMIT),
    Setting::Int(&super::groups::SHARE_MIN_DELIVERY_COUNT_LIMIT),
    Setting::Int(&super::groups::SHARE_RECORD_LOCK_DURATION_MS),
    Setting::Int(&super::groups::SHARE_MIN_RECORD_LOCK_DURATION_MS),
    Setting::Int(&super::groups::SHARE_MAX_RECORD_LOCK_DURATION_MS),
    Setting::Int(&super::groups::SHARE_PARTITION_MAX_RECORD_LOCKS),
    Setting::Int(&super::groups::SHARE_MAX_PARTITION_MAX_RECORD_LOCKS),
    Setting::Int(&super::groups::SHARE_MIN_PARTITION_MAX_RECORD_LOCKS),
];

/// The settings table as a Markdown reference (`docs/configuration.md`).
pub fn reference_markdown() -> String {
    let mut out = String::from(
        "# Controller configuration\n\n\
         The keys a `kraft server` reads from its `.properties` file, with Kafka 4.4's \
         types, defaults and bounds. Unknown keys are logged and ignored, except the keys \
         that decide who may do what, which are served or refused (see the end of this page), \
         and unknown `kraft.log.*` keys, which are refused (a misspelled logging key would \
         leave the log somewhere else than intended). \
         Generated from `crates/controller/src/config/settings.rs` and `security.rs`; \
         `cargo test -p kraft-controller` fails when this file is stale \
         (`KRAFT_WRITE_CONFIG_DOC=1` rewrites it).\n\n\
         | key | type | default | valid values | description |\n\
         | --- | --- | --- | --- | --- |\n",
    );
    for s in SETTINGS {
        let default = if s.is_required() {
            "required".to_owned()
        } else {
            format!("`{}`", s.default_text())
        };
        let valid = s.valid_values();
        let valid = if valid.is_empty() {
            String::new()
        } else {
            format!("`{valid}`")
        };
        out.push_str(&format!(
            "| `{}` | {} | {} | {} | {} |\n",
            s.key(),
            s.type_name(),
            default,
            valid,
            s.doc()
        ));
    }
    out.push_str(&security::reference_markdown());
    out.push_str(&super::transport::reference_markdown());
    out.push_str(DYNAMIC_CONFIGS_MARKDOWN);
    out.push_str(&super::kafka_keys::reference_markdown());
    out
}

/// What happens to configs changed at run time (IncrementalAlterConfigs,
/// the legacy AlterConfigs) that address this controller.
const DYNAMIC_CONFIGS_MARKDOWN: &str = "
## Configs changed at run time

A BROKER config set for this controller's own id (or as the cluster-wide default, the BROKER resource `\"\"`) is stored in the metadata log as on a Kafka controller. kraft-rs applies these keys to its own behaviour, at once and wherever they are set:

| key | where it acts |
| --- | --- |
| `min.insync.replicas`, `unclean.leader.election.enable` | partition leadership of topics without their own value: the minimum ISR (and the ELR when eligible leader replicas are on) and unclean elections, as Kafka's controller reads them |
| the broker synonyms of topic configs (`log.retention.ms`, `log.cleanup.policy`...) | the effective configs of new topics (CreateTopics) and the values DescribeConfigs shows for topics |
| `group.*` broker synonyms of group configs | the values DescribeConfigs shows for groups without their own |

DescribeConfigs (BROKER, this node's id) lists every config of Kafka 4.4's broker definition with the value this node runs with: its dynamic config if Kafka's `DynamicBrokerConfig` would accept it (a dynamic key, not a keystore or truststore key without a listener prefix), else the cluster-wide default, else the configuration file, else Kafka's default; `\"\"` lists the cluster-wide defaults. Other dynamic keys are recorded and described but change nothing in kraft-rs (it has no log cleaner, no network threads to resize, no quotas to enforce).

BROKER_LOGGER (`kafka-configs --bootstrap-controller ... --alter --entity-type broker-loggers --entity-name <node id> --add-config <logger>=DEBUG`) changes this process's log levels at once: a logger is a `tracing` target (`root`, the crates `kraft_controller`, `kraft_raft`, `kraft_protocol`, `kraft_security`, `kraft_admin`, `kraft_cli`, `kraft`, and every target the starting filter names: `KRAFT_LOG`, else `kraft.log.level`), its level one of Kafka's (`TRACE`, `DEBUG`, `INFO`, `WARN`, `ERROR`, `FATAL`, the last filtering as `error`); `--delete-config` gives a logger its parent's level again. Changes last until the process ends (the starting filter applies at the next start).
";

/// The value of `key`, untrimmed.
fn raw<'a>(props: &'a Properties, key: &str) -> Option<&'a str> {
    props.get(key)
}

/// An [`ConfigError::Invalid`] for `key`.
pub(super) fn invalid(key: &str, value: &str, reason: &str) -> ConfigError {
    ConfigError::Invalid {
        key: key.to_string(),
        value: value.to_string(),
        reason: reason.to_string(),
    }
}

fn at_least(key: &str, value: &str, v: i64, min: Option<i64>) -> Result<(), ConfigError> {
    match min {
        Some(min) if v < min => Err(invalid(
            key,
            value,
            &format!("Value must be at least {min}"),
        )),
        _ => Ok(()),
    }
}

/// Kafka's LIST type: comma-separated, entries trimmed; an empty value is an empty list.
pub(super) fn parse_list(value: &str) -> Vec<String> {
    let t = value.trim();
    if t.is_empty() {
        return Vec::new();
    }
    t.split(',').map(|s| s.trim().to_string()).collect()
}

/// Fails when a list names an item twice.
pub(super) fn no_duplicates(key: &str, value: &str, items: &[String]) -> Result<(), ConfigError> {
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
