//! The metrics endpoint (`kraft.metrics.listener`, kraft-rs's own setting):
//! a minimal HTTP/1.1 listener that answers `GET /metrics` with the node's
//! gauges in the Prometheus text exposition format (version 0.0.4).
//!
//! Every scrape reads the node's live state ([`MetricsSource::gather`]); no
//! value is cached or counted beside the state it describes:
//!
//! | metric | labels | meaning |
//! | --- | --- | --- |
//! | `kraft_active_controller_count` | | 1 while this node is the active controller (Kafka's `ActiveControllerCount`), else 0 |
//! | `kraft_raft_leader_id` | | the raft leader's node id, -1 when none is known |
//! | `kraft_raft_epoch` | | the raft epoch this node is in |
//! | `kraft_raft_high_watermark` | | the high watermark, -1 when unknown |
//! | `kraft_metadata_last_applied_offset` | | the offset of the last record applied to the image, -1 when none |
//! | `kraft_metadata_image_loaded` | | 1 once the image holds everything committed when the node started |
//! | `kraft_metadata_brokers` | `state` | registered brokers by state: `fenced`, `unfenced`, `controlled_shutdown` (an unfenced broker shutting down) |
//! | `kraft_metadata_topics` | | topics in the image |
//! | `kraft_metadata_partitions` | | partitions in the image |
//! | `kraft_metadata_offline_partitions` | | partitions without a leader (Kafka's `OfflinePartitionsCount`) |
//! | `kraft_metadata_records_not_understood` | `record_type`, `version`, `reason` | records of a type or version this build does not understand, kept in the image; `reason` is `unknown type` or `unknown version` |
//! | `kraft_metadata_snapshots_suspended` | | 1 while this node takes no snapshot and applies no log retention because of such records |
//!
//! Beside them, Kafka 4.4's own metrics, named as the Prometheus JMX
//! exporter renders them with Strimzi's or Confluent's rules
//! ([`MetricNaming`], `kraft.metrics.naming`; the rendering rules are in
//! the `kafka` module):
//!
//! | Kafka source | metrics (Strimzi naming) |
//! | --- | --- |
//! | `QuorumControllerMetrics` | `kafka_controller_kafkacontroller_` `activecontrollercount`, `timesincelastheartbeatreceivedms{broker}` (active only), `lastappliedrecordoffset`, `lastcommittedrecordoffset`, `lastappliedrecordtimestamp`, `lastappliedrecordlagms`, `timedoutbrokerheartbeatcount`, `eventqueueoperationsstartedcount`, `eventqueueoperationstimedoutcount`, `newactivecontrollerscount`; `kafka_controller_controllereventmanager_` `eventqueuetimems` and `eventqueueprocessingtimems` (`_count` and `quantile` 0.50 ... 0.999), `avgidleratio` |
//! | `ControllerMetadataMetrics` | `kafka_controller_kafkacontroller_` `activebrokercount` (unfenced, controlled shutdown included), `fencedbrokercount`, `controlledshutdownbrokercount`, `brokerregistrationstate{broker}`, `globaltopiccount`, `globalpartitioncount`, `offlinepartitionscount`, `preferredreplicaimbalancecount`, `metadataerrorcount`, `ignoredstaticvoters`; `kafka_controller_controllerstats_` `uncleanleaderelections_total`, `electionfromeligibleleaderreplicas_total` |
//! | `KafkaRaftMetrics` | `kafka_server_raftmetrics_` `current_state{current_state}`, `current_leader`, `current_vote`, `current_epoch`, `high_watermark`, `log_end_offset`, `log_end_epoch`, `number_unknown_voter_connections`, `number_of_voters`, `number_of_observers` and `uncommitted_voter_change` (leader only), `commit_latency_avg`/`_max`, `election_latency_avg`/`_max`, `fetch_records_rate`, `append_records_rate`, `poll_idle_ratio_avg` |
//! | raft channel | `kafka_server_raftchannelmetrics_` `incoming_byte_total`, `outgoing_byte_total`, `request_total`, `response_total` |
//! | `MetadataLoaderMetrics` | `kafka_server_metadataloader_` `currentmetadataversion`, `currentcontrollerid`, `handleloadsnapshotcount`, `avgidleratio`, `finalizedlevel{featureName}` |
//! | `SnapshotEmitterMetrics` | `kafka_server_snapshotemitter_` `latestsnapshotgeneratedbytes`, `latestsnapshotgeneratedagems` |
//! | process | `process_cpu_seconds_total`, `process_resident_memory_bytes`, `process_virtual_memory_bytes`, `process_start_time_seconds`, `process_open_fds`, `process_max_fds` (from `/proc`) |
//!
//! The HTTP side is deliberately small: one request per connection, the
//! request line parsed and the headers skipped, at most
//! [`MAX_REQUEST_BYTES`] read within [`REQUEST_TIMEOUT`]; the answer is
//! `200` for `GET /metrics`, `404` for another path, `405` for another
//! method, `400` for a request that does not parse, `408` / `431` for one
//! that is too slow / too large, and the connection is closed after it.

use std::fmt::Write as _;
use std::io;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use kraft_protocol::text::HostPort;
use kraft_raft::RaftHandle;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;
use tokio::task::JoinSet;

use kraft_raft::RaftMetricsSnapshot;

pub use self::process::ProcessValues;
pub use self::stats::{ControllerStats, StatsValues};

use crate::activation::ActiveEpoch;
use crate::image::{MetadataImage, NotUnderstood, NotUnderstoodReason, SharedImage};
use crate::snapshots::LogHold;

/// The `Content-Type` of a metrics answer: Prometheus text format 0.0.4.
pub const CONTENT_TYPE: &str = "text/plain; version=0.0.4";

/// The largest request head (request line and headers) read; a longer one
/// is answered `431`.
pub const MAX_REQUEST_BYTES: usize = 8 * 1024;

/// How long a client may take to send its request head; a slower one is
/// answered `408`.
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);

/// Connections served at once; more are closed unanswered.
const MAX_CONNECTIONS: usize = 32;

/// How long writing an answer may take.
const WRITE_TIMEOUT: Duration = Duration::from_secs(10);

/// After answering, how long (and how many bytes) unread request bytes are
/// discarded before closing, so the client reads the answer instead of a
/// connection reset.
const DRAIN_TIMEOUT: Duration = Duration::from_secs(1);
const DRAIN_MAX_BYTES: usize = 1 << 20;

mod kafka;
mod process;
pub mod stats;

/// Which exporter rules the Kafka-named metrics follow
/// (`kraft.metrics.naming`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum MetricNaming {
    /// Strimzi's `kafka-metrics.yaml` (`kafka_server_raftmetrics_*`,
    /// histograms as `_count` and quantiles, meters as `_total`).
    #[default]
    Strimzi,
    /// Confluent's jmx-monitoring-stacks `kafka_controller.yml`
    /// (`kafka_server_raft_metrics_*`, histograms and meters as their
    /// count under the bare name).
    Confluent,
}

impl MetricNaming {
    /// The setting's value for this naming.
    pub fn as_str(self) -> &'static str {
        match self {
            MetricNaming::Strimzi => "strimzi",
            MetricNaming::Confluent => "confluent",
        }
    }

    /// Parses a `kraft.metrics.naming` value.
    pub fn parse(value: &str) -> Option<MetricNaming> {
        match value {
            "strimzi" => Some(MetricNaming::Strimzi),
            "confluent" => Some(MetricNaming::Confluent),
            _ => None,
        }
    }
}

/// Registered brokers as Kafka's `ControllerMetadataMetrics` count them:
/// a broker in controlled shutdown is active (unfenced) too.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct KafkaBrokerCounts {
    /// Unfenced brokers (`ActiveBrokerCount`).
    pub active: u64,
    /// Fenced brokers (`FencedBrokerCount`).
    pub fenced: u64,
    /// Brokers in controlled shutdown (`ControlledShutdownBrokerCount`).
    pub controlled_shutdown: u64,
}

/// Kafka's `BrokerRegistrationState` of a fenced broker.
pub const REGISTRATION_FENCED: i32 = 10;
/// Kafka's `BrokerRegistrationState` of a broker in controlled shutdown.
pub const REGISTRATION_CONTROLLED_SHUTDOWN: i32 = 20;
/// Kafka's `BrokerRegistrationState` of an active broker.
pub const REGISTRATION_ACTIVE: i32 = 30;

/// Registered brokers by state.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BrokerCounts {
    /// Fenced brokers.
    pub fenced: u64,
    /// Unfenced brokers not in controlled shutdown.
    pub unfenced: u64,
    /// Unfenced brokers in controlled shutdown.
    pub controlled_shutdown: u64,
}

/// The gauges read from a metadata image.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ImageGauges {
    /// Registered brokers by state.
    pub brokers: BrokerCounts,
    /// Topics.
    pub topics: u64,
    /// Partitions of all topics.
    pub partitions: u64,
    /// Partitions without a leader.
    pub offline_partitions: u64,
    /// Records not understood, one entry per type and version.
    pub not_understood: Vec<NotUnderstood>,
    /// Brokers as Kafka counts them.
    pub kafka_brokers: KafkaBrokerCounts,
    /// Each registered broker's Kafka `BrokerRegistrationState`, by id.
    pub registrations: Vec<(i32, i32)>,
    /// Partitions whose leader is not their first replica.
    pub preferred_replica_imbalance: u64,
    /// The metadata.version feature level, 0 before one is finalized.
    pub metadata_version: i16,
    /// Finalized feature levels: metadata.version (once set),
    /// kraft.version and every other finalized feature.
    pub finalized_levels: Vec<(String, i16)>,
}

impl ImageGauges {
    /// Counts what `image` holds.
    pub fn read(image: &MetadataImage) -> ImageGauges {
        let mut brokers = BrokerCounts::default();
        let mut kafka_brokers = KafkaBrokerCounts::default();
        let mut registrations = Vec::new();
        for broker in image.cluster().brokers() {
            let state = if broker.fenced() {
                kafka_brokers.fenced += 1;
                REGISTRATION_FENCED
            } else {
                kafka_brokers.active += 1;
                if broker.in_controlled_shutdown() {
                    REGISTRATION_CONTROLLED_SHUTDOWN
                } else {
                    REGISTRATION_ACTIVE
                }
            };
            if broker.in_controlled_shutdown() {
                kafka_brokers.controlled_shutdown += 1;
            }
            registrations.push((broker.id(), state));
            if broker.fenced() {
                brokers.fenced += 1;
            } else if broker.in_controlled_shutdown() {
                brokers.controlled_shutdown += 1;
            } else {
                brokers.unfenced += 1;
            }
        }
        let mut partitions = 0u64;
        let mut offline_partitions = 0u64;
        let mut preferred_replica_imbalance = 0u64;
        for topic in image.topics().topics() {
            for (_, partition) in topic.partitions() {
                partitions += 1;
                if !partition.has_leader() {
                    offline_partitions += 1;
                }
                // Kafka's hasPreferredLeader: leader == replicas[0] (-1
                // without replicas).
                let preferred = partition.replicas().next().unwrap_or(-1);
                if partition.leader() != preferred {
                    preferred_replica_imbalance += 1;
                }
            }
        }
        let metadata_version = image.metadata_version().map_or(0, |v| v.feature_level());
        let mut finalized_levels = Vec::new();
        if metadata_version > 0 {
            finalized_levels.push(("metadata.version".to_owned(), metadata_version));
        }
        finalized_levels.push(("kraft.version".to_owned(), image.kraft_version()));
        finalized_levels.extend(image.finalized_features().iter().cloned());
        ImageGauges {
            brokers,
            topics: image.topics().len() as u64,
            partitions,
            offline_partitions,
            not_understood: image.not_understood().cloned().collect(),
            kafka_brokers,
            registrations,
            preferred_replica_imbalance,
            metadata_version,
            finalized_levels,
        }
    }
}

/// Everything one scrape reports.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ControllerMetrics {
    /// Whether this node is the active controller.
    pub active_controller: bool,
    /// The raft leader, if known.
    pub leader_id: Option<i32>,
    /// The raft epoch.
    pub epoch: i32,
    /// The high watermark, if known.
    pub high_watermark: Option<i64>,
    /// The offset of the last record applied to the image (-1 if none).
    pub last_applied_offset: i64,
    /// Whether the image holds everything committed when the node started.
    pub image_loaded: bool,
    /// Whether snapshots and the log retention are suspended.
    pub snapshots_suspended: bool,
    /// What the image holds.
    pub image: ImageGauges,
    /// The exporter rules the Kafka-named metrics follow.
    pub naming: MetricNaming,
    /// When the scrape was taken (ms since the Unix epoch).
    pub now_ms: i64,
    /// Kafka's raft metrics, when a raft node is behind the scrape.
    pub raft: Option<RaftMetricsSnapshot>,
    /// The controller's counters.
    pub stats: StatsValues,
    /// Whether `controller.quorum.voters` is set but ignored.
    pub ignored_static_voters: bool,
    /// This process's resource use, where `/proc` can be read.
    pub process: Option<ProcessValues>,
}

impl ControllerMetrics {
    /// The metrics in the Prometheus text exposition format.
    pub fn render(&self) -> String {
        let mut out = Exposition::default();
        out.single(
            "kraft_active_controller_count",
            "1 if this node is the active controller, else 0 (Kafka's ActiveControllerCount).",
            i64::from(self.active_controller),
        );
        out.single(
            "kraft_raft_leader_id",
            "The node id of the raft leader, -1 when none is known.",
            i64::from(self.leader_id.unwrap_or(-1)),
        );
        out.single(
            "kraft_raft_epoch",
            "The raft epoch this node is in.",
            i64::from(self.epoch),
        );
        out.single(
            "kraft_raft_high_watermark",
            "The high watermark of the metadata log, -1 when unknown.",
            self.high_watermark.unwrap_or(-1),
        );
        out.single(
            "kraft_metadata_last_applied_offset",
            "The offset of the last metadata record applied to the image, -1 when none.",
            self.last_applied_offset,
        );
        out.single(
            "kraft_metadata_image_loaded",
            "1 once the image holds everything committed when this node started, else 0.",
            i64::from(self.image_loaded),
        );
        let brokers = &self.image.brokers;
        out.gauge(
            "kraft_metadata_brokers",
            "Registered brokers by state.",
            &[
                Sample::labelled(&[("state", "fenced")], count(brokers.fenced)),
                Sample::labelled(&[("state", "unfenced")], count(brokers.unfenced)),
                Sample::labelled(
                    &[("state", "controlled_shutdown")],
                    count(brokers.controlled_shutdown),
                ),
            ],
        );
        out.single(
            "kraft_metadata_topics",
            "Topics in the metadata image.",
            count(self.image.topics),
        );
        out.single(
            "kraft_metadata_partitions",
            "Partitions in the metadata image.",
            count(self.image.partitions),
        );
        out.single(
            "kraft_metadata_offline_partitions",
            "Partitions without a leader (Kafka's OfflinePartitionsCount).",
            count(self.image.offline_partitions),
        );
        let not_understood: Vec<Sample> = self
            .image
            .not_understood
            .iter()
            .map(|n| {
                Sample::labelled(
                    &[
                        ("record_type", &n.record_type.to_string()),
                        ("version", &n.version.to_string()),
                        ("reason", reason_label(n.reason)),
                    ],
                    count(n.count),
                )
            })
            .collect();
        out.gauge(
            "kraft_metadata_records_not_understood",
            "Metadata records of a type or version this build does not understand, kept in the image.",
            &not_understood,
        );
        out.single(
            "kraft_metadata_snapshots_suspended",
            "1 while this node takes no snapshot and applies no metadata log retention because it holds records it does not understand, else 0.",
            i64::from(self.snapshots_suspended),
        );
        kafka::render(&mut out.text, self);
        out.text
    }
}

/// The `reason` label of a record not understood.
fn reason_label(reason: NotUnderstoodReason) -> &'static str {
    match reason {
        NotUnderstoodReason::UnknownType => "unknown type",
        NotUnderstoodReason::UnknownVersion => "unknown version",
    }
}

/// A count as a sample value (saturating; no real count comes near).
fn count(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

/// One sample of a metric family: its label pairs and its value.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Sample {
    labels: Vec<(&'static str, String)>,
    value: i64,
}

impl Sample {
    fn labelled(labels: &[(&'static str, &str)], value: i64) -> Sample {
        Sample {
            labels: labels.iter().map(|(k, v)| (*k, (*v).to_owned())).collect(),
            value,
        }
    }
}

/// A writer of the Prometheus text exposition format.
#[derive(Debug, Default)]
struct Exposition {
    text: String,
}

impl Exposition {
    /// A gauge family of one sample without labels.
    fn single(&mut self, name: &str, help: &str, value: i64) {
        self.gauge(name, help, &[Sample::labelled(&[], value)]);
    }

    /// One gauge family: its `# HELP` and `# TYPE` lines, then one line per
    /// sample. A family without samples keeps its `# HELP` and `# TYPE`
    /// lines.
    fn gauge(&mut self, name: &str, help: &str, samples: &[Sample]) {
        let _ = writeln!(self.text, "# HELP {name} {}", escape_help(help));
        let _ = writeln!(self.text, "# TYPE {name} gauge");
        for sample in samples {
            self.text.push_str(name);
            if !sample.labels.is_empty() {
                self.text.push('{');
                for (i, (label, value)) in sample.labels.iter().enumerate() {
                    if i > 0 {
                        self.text.push(',');
                    }
                    let _ = write!(self.text, "{label}=\"{}\"", escape_label_value(value));
                }
                self.text.push('}');
            }
            let _ = writeln!(self.text, " {}", sample.value);
        }
    }
}

/// A `# HELP` text: backslash and line feed escaped.
fn escape_help(text: &str) -> String {
    text.replace('\\', "\\\\").replace('\n', "\\n")
}

/// A label value: backslash, double quote and line feed escaped.
fn escape_label_value(text: &str) -> String {
    text.replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

/// Where a scrape reads its values.
pub trait MetricsSource: Send + Sync + 'static {
    /// The metrics as of now.
    fn gather(&self) -> ControllerMetrics;
}

/// The live state of a controller node, read at every scrape.
#[derive(Clone)]
pub struct NodeMetrics {
    raft: RaftHandle,
    image: SharedImage,
    applied: watch::Receiver<i64>,
    active: ActiveEpoch,
    log_hold: LogHold,
    stats: Arc<ControllerStats>,
    naming: MetricNaming,
    static_voters: bool,
}

impl NodeMetrics {
    /// Reads `raft`'s status, the image, the last applied offset, the
    /// epoch this node is the active controller of, and the log hold.
    pub fn new(
        raft: RaftHandle,
        image: SharedImage,
        applied: watch::Receiver<i64>,
        active: ActiveEpoch,
        log_hold: LogHold,
    ) -> NodeMetrics {
        NodeMetrics {
            raft,
            image,
            applied,
            active,
            log_hold,
            stats: Arc::default(),
            naming: MetricNaming::default(),
            static_voters: false,
        }
    }

    /// Reads the controller's counters from `stats`, names the Kafka
    /// metrics after `naming`, and knows whether `controller.quorum.voters`
    /// is set (`static_voters`).
    pub fn with_kafka(
        self,
        stats: Arc<ControllerStats>,
        naming: MetricNaming,
        static_voters: bool,
    ) -> NodeMetrics {
        NodeMetrics {
            stats,
            naming,
            static_voters,
            ..self
        }
    }
}

impl MetricsSource for NodeMetrics {
    fn gather(&self) -> ControllerMetrics {
        let status = self.raft.status();
        // As the request handlers see it: the leader that finished its
        // activation in this epoch.
        let active_controller =
            status.takes_records() && *self.active.borrow() == Some(status.leader.epoch);
        let image = ImageGauges::read(&self.image.read());
        let now_ms = stats::now_ms();
        ControllerMetrics {
            naming: self.naming,
            now_ms,
            raft: Some(self.raft.metrics().snapshot(now_ms)),
            stats: self.stats.values(),
            ignored_static_voters: self.static_voters && status.kraft_version >= 1,
            process: ProcessValues::read(),
            active_controller,
            leader_id: status.leader.leader_id,
            epoch: status.leader.epoch,
            high_watermark: status.high_watermark,
            last_applied_offset: *self.applied.borrow(),
            image_loaded: self.image.is_loaded(),
            snapshots_suspended: self.log_hold.is_held(),
            image,
        }
    }
}

/// A running metrics listener.
#[derive(Debug)]
pub struct MetricsServer {
    local_addr: SocketAddr,
    shutdown: watch::Sender<bool>,
    task: tokio::task::JoinHandle<()>,
}

impl MetricsServer {
    /// Binds `address` and serves scrapes of `source` until
    /// [`MetricsServer::shutdown`].
    pub async fn start(
        address: &HostPort,
        source: Arc<dyn MetricsSource>,
    ) -> io::Result<MetricsServer> {
        Self::start_with_timeout(address, source, REQUEST_TIMEOUT).await
    }

    /// [`MetricsServer::start`] with another request timeout (for tests).
    async fn start_with_timeout(
        address: &HostPort,
        source: Arc<dyn MetricsSource>,
        request_timeout: Duration,
    ) -> io::Result<MetricsServer> {
        let listener = TcpListener::bind((address.host.as_str(), address.port))
            .await
            .map_err(|e| {
                io::Error::new(
                    e.kind(),
                    format!("cannot bind the metrics listener to {address}: {e}"),
                )
            })?;
        let local_addr = listener.local_addr()?;
        tracing::info!(addr = %local_addr, "metrics listener bound");
        let (shutdown, stop) = watch::channel(false);
        let task = tokio::spawn(accept_loop(listener, source, stop, request_timeout));
        Ok(MetricsServer {
            local_addr,
            shutdown,
            task,
        })
    }

    /// The bound address.
    pub fn local_addr(&self) -> SocketAddr {
        self.local_addr
    }

    /// Stops accepting and closes the open connections.
    pub async fn shutdown(self) {
        self.shutdown.send_replace(true);
        let _ = self.task.await;
    }
}

async fn accept_loop(
    listener: TcpListener,
    source: Arc<dyn MetricsSource>,
    mut stop: watch::Receiver<bool>,
    request_timeout: Duration,
) {
    let mut connections = JoinSet::new();
    loop {
        tokio::select! {
            _ = until_stopped(&mut stop) => break,
            accepted = listener.accept() => match accepted {
                Ok((stream, peer)) => {
                    if connections.len() >= MAX_CONNECTIONS {
                        tracing::debug!(%peer, "too many metrics connections; closing this one");
                        continue;
                    }
                    connections.spawn(serve_connection(stream, source.clone(), request_timeout));
                }
                Err(e) => {
                    tracing::warn!(error = %e, "metrics listener: accept failed");
                    tokio::time::sleep(Duration::from_millis(10)).await;
                }
            },
            Some(_) = connections.join_next(), if !connections.is_empty() => {}
        }
    }
    connections.shutdown().await;
}

/// Resolves once a stop was signalled (or the server is gone).
async fn until_stopped(stop: &mut watch::Receiver<bool>) {
    let _ = stop.wait_for(|s| *s).await;
}

/// Reads one request, writes its answer and closes the connection.
async fn serve_connection(
    mut stream: TcpStream,
    source: Arc<dyn MetricsSource>,
    request_timeout: Duration,
) {
    let response = match tokio::time::timeout(request_timeout, read_request_head(&mut stream)).await
    {
        Ok(Ok(head)) => answer(&head, || source.gather().render()),
        Ok(Err(HeadError::TooLarge)) => Response::error(431, "Request Header Fields Too Large"),
        Ok(Err(HeadError::Incomplete)) => Response::error(400, "Bad Request"),
        Ok(Err(HeadError::Closed)) => return,
        Ok(Err(HeadError::Io(e))) => {
            tracing::debug!(error = %e, "metrics connection: read failed");
            return;
        }
        Err(_) => Response::error(408, "Request Timeout"),
    };
    let written = tokio::time::timeout(WRITE_TIMEOUT, async {
        stream.write_all(&response.to_bytes()).await?;
        stream.shutdown().await
    })
    .await;
    if !matches!(written, Ok(Ok(()))) {
        return;
    }
    // Discard what the client still sends, so closing does not reset the
    // connection before it read the answer.
    let _ = tokio::time::timeout(DRAIN_TIMEOUT, async {
        let mut discarded = 0usize;
        let mut buf = [0u8; 4096];
        while discarded < DRAIN_MAX_BYTES {
            match stream.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => discarded += n,
            }
        }
    })
    .await;
}

/// Why no complete request head was read.
#[derive(Debug)]
enum HeadError {
    /// More than [`MAX_REQUEST_BYTES`] without the blank line ending it.
    TooLarge,
    /// The client closed its side after part of a head.
    Incomplete,
    /// The client closed without sending anything.
    Closed,
    /// The socket failed.
    Io(io::Error),
}

/// Reads until the blank line that ends the request head; returns the
/// head (the bytes before that line). Bytes after it are not read.
async fn read_request_head<R: AsyncRead + Unpin>(reader: &mut R) -> Result<Vec<u8>, HeadError> {
    let mut head = Vec::with_capacity(1024);
    let mut buf = [0u8; 1024];
    loop {
        let searched_from = head.len().saturating_sub(3);
        let n = reader.read(&mut buf).await.map_err(HeadError::Io)?;
        if n == 0 {
            return Err(if head.is_empty() {
                HeadError::Closed
            } else {
                HeadError::Incomplete
            });
        }
        head.extend_from_slice(&buf[..n]);
        if let Some(end) = find_head_end(&head, searched_from) {
            head.truncate(end);
            return Ok(head);
        }
        if head.len() > MAX_REQUEST_BYTES {
            return Err(HeadError::TooLarge);
        }
    }
}

/// Where the head ends: the offset of the first `\r\n\r\n` (or `\n\n`) at
/// or after `from`.
fn find_head_end(bytes: &[u8], from: usize) -> Option<usize> {
    let tail = bytes.get(from..)?;
    let crlf = tail.windows(4).position(|w| w == b"\r\n\r\n");
    let lf = tail.windows(2).position(|w| w == b"\n\n");
    let end = match (crlf, lf) {
        (Some(a), Some(b)) => a.min(b),
        (a, b) => a.or(b)?,
    };
    Some(from + end)
}

/// An HTTP answer.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Response {
    status: u16,
    reason: &'static str,
    content_type: &'static str,
    /// Extra header lines, each ending in `\r\n`.
    headers: &'static str,
    body: String,
}

impl Response {
    fn error(status: u16, reason: &'static str) -> Response {
        Response {
            status,
            reason,
            content_type: "text/plain; charset=utf-8",
            headers: "",
            body: format!("{status} {reason}\n"),
        }
    }

    fn to_bytes(&self) -> Vec<u8> {
        format!(
            "HTTP/1.1 {} {}\r\nContent-Type: {}\r\nContent-Length: {}\r\nConnection: close\r\n{}\r\n{}",
            self.status,
            self.reason,
            self.content_type,
            self.body.len(),
            self.headers,
            self.body
        )
        .into_bytes()
    }
}

/// The answer to a request head: its request line decides; the headers are
/// not looked at. `metrics` is only called for `GET /metrics`.
fn answer(head: &[u8], metrics: impl FnOnce() -> String) -> Response {
    let line_end = head.iter().position(|b| *b == b'\n').unwrap_or(head.len());
    let line = &head[..line_end];
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let Ok(line) = std::str::from_utf8(line) else {
        return Response::error(400, "Bad Request");
    };
    let mut parts = line.split(' ');
    let (Some(method), Some(target), Some(version), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Response::error(400, "Bad Request");
    };
    if method.is_empty() || !target.starts_with('/') || !version.starts_with("HTTP/") {
        return Response::error(400, "Bad Request");
    }
    if version != "HTTP/1.1" && version != "HTTP/1.0" {
        return Response::error(505, "HTTP Version Not Supported");
    }
    if method != "GET" {
        return Response {
            headers: "Allow: GET\r\n",
            ..Response::error(405, "Method Not Allowed")
        };
    }
    let path = target.split_once('?').map_or(target, |(path, _)| path);
    if path != "/metrics" {
        return Response::error(404, "Not Found");
    }
    Response {
        status: 200,
        reason: "OK",
        content_type: CONTENT_TYPE,
        headers: "",
        body: metrics(),
    }
}

#[cfg(test)]
mod tests;
