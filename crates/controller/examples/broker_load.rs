//! `broker_load`: fake Kafka brokers against a controller quorum, for
//! `cargo xtask bench-brokers` (`tests/interop/bench-brokers.sh`).
//!
//! Each fake broker registers with the active controller on its own TCP
//! connection (ApiVersions first, then BrokerRegistration v4 as a Java 4.4
//! broker sends it: cluster id, a fresh incarnation id, one PLAINTEXT
//! listener, the features of `BrokerFeatures.createDefault(false)`, one log
//! directory, no rack, previous broker epoch -1) and then sends
//! BrokerHeartbeat v2 on that connection every `--interval-ms`
//! (`WantFence=false`, `CurrentMetadataOffset` ahead of its registration
//! record, `CordonedLogDirs` empty once the controller says it caught up,
//! as a Java broker does after its recovery). Every heartbeat's round trip
//! (request written to response frame read) is one sample; nothing is
//! retried inside a sample: an error answer is counted, not timed.
//!
//! The brokers' first heartbeats are spread over the interval (golden
//! ratio offsets), so they do not queue behind each other by construction.
//!
//! Phases (`--phases 3,50`): the number of registered fake brokers grows to
//! each count in turn; after every new broker is unfenced and `--warmup-secs`
//! more, heartbeats are timed for `--seconds` while every broker keeps
//! heartbeating. With `--pids`, the resident set, thread count and CPU time
//! of those processes (the controllers) are sampled from `/proc` twice a
//! second. At the end every fake broker is unregistered (UnregisterBroker).
//! `--phases none` only unregisters the `--unregister` ids (the active
//! controller is the one that does not answer NOT_CONTROLLER).
//!
//! `--hold N` registers N fake brokers (ids `--first-id` on), waits until
//! every one is unfenced, prints `ready ...` and keeps them heartbeating
//! every `--interval-ms`, untimed, until its standard input reaches end of
//! file or it receives SIGTERM or SIGINT; it then unregisters them and
//! prints `unregistered ...`. The script that runs it creates topics on
//! those brokers meanwhile (their replicas need registered, unfenced
//! brokers).
//!
//! `--create-topics PREFIX:COUNT:PARTITIONS:BATCH` sends CreateTopics (RF 3)
//! for PREFIX0..PREFIX(COUNT-1) straight to the active controller, BATCH
//! topics a call, sequentially, and prints `create_batch ...`;
//! `--delete-topics PREFIX:COUNT:BATCH` deletes them the same way
//! (`delete_batch ...`). Kafka's Admin client cannot do that: with
//! `bootstrap.controllers` it fails CreateTopics and DeleteTopics itself
//! (`UnsupportedEndpointTypeException`) without sending them.
//!
//! `--writer PREFIX` (for `cargo xtask bench`, `tests/interop/bench.sh`)
//! sends one-topic CreateTopics (1 partition, RF 3) back to back on
//! `--concurrency` connections for `--for-secs` (default 60) or until
//! `--count` topics are committed, following leader changes with no pause,
//! and writes one line per committed call to `--samples-out`; with
//! `--gap-us N` a connection pauses N µs after each committed call (so
//! every call starts on a quorum done with the previous one's fsyncs);
//! `--wait-leader SECONDS` polls DescribeQuorum with no pause until a
//! leader is named and prints the time since `--since-us`. Neither needs
//! `--cluster-id`.
//!
//! ```text
//! broker_load --bootstrap 127.0.0.1:9093,127.0.0.1:9094 --cluster-id ID
//!     [--phases 3,50] [--seconds 30,20] [--warmup-secs 5] [--interval-ms 100]
//!     [--first-id 100] [--pids 1=PID,2=PID,3=PID] [--unregister 4,5,6]
//! broker_load --bootstrap ... --cluster-id ID --phases none --unregister 4,5,6
//! broker_load --bootstrap ... --cluster-id ID --hold 3 [--first-id 200] [--interval-ms 2000]
//! broker_load --bootstrap ... --cluster-id ID --create-topics big-:10000:10:100
//! broker_load --bootstrap ... --cluster-id ID --delete-topics big-:10000:100
//! broker_load --bootstrap ... --writer lat- [--concurrency 1] [--count N] [--for-secs 60] [--samples-out FILE] [--gap-us N]
//! broker_load --bootstrap ... --wait-leader 120 [--since-us EPOCH_MICROS]
//! ```
//!
//! Prints `key=value` lines: `leader ...`, one `phase ...` per phase (round
//! trip percentiles in microseconds), one `proc ...` per phase and process,
//! and `unregistered ...` (with `--hold`: `leader ...`, `ready ...` and
//! `unregistered ...`). Exits non-zero when a setup step fails.

use std::collections::HashMap;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bytes::BytesMut;
use kraft_controller::java::{random_directory_id, random_uuid};
use kraft_protocol::features::supported_features;
use kraft_protocol::frame::{FrameDecoder, DEFAULT_MAX_FRAME_SIZE};
use kraft_protocol::header::{decode_response_as, encode_request_frame};
use kraft_protocol::messages::api_versions_request::ApiVersionsRequest;
use kraft_protocol::messages::api_versions_response::ApiVersionsResponse;
use kraft_protocol::messages::broker_heartbeat_request::BrokerHeartbeatRequest;
use kraft_protocol::messages::broker_heartbeat_response::BrokerHeartbeatResponse;
use kraft_protocol::messages::broker_registration_request::{
    BrokerRegistrationRequest, Feature, Listener,
};
use kraft_protocol::messages::broker_registration_response::BrokerRegistrationResponse;
use kraft_protocol::messages::request_header::RequestHeader;
use kraft_protocol::messages::response_header::ResponseHeader;
use kraft_protocol::messages::unregister_broker_request::UnregisterBrokerRequest;
use kraft_protocol::messages::unregister_broker_response::UnregisterBrokerResponse;
use kraft_protocol::{ApiKey, Decodable, Encodable, ErrorCode, Message, StrBytes};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::sync::watch;
use tokio::time::MissedTickBehavior;

/// BrokerRegistration version a Java 4.4 broker sends.
const REGISTRATION_VERSION: i16 = 4;
/// BrokerHeartbeat version a Java 4.4 broker sends.
const HEARTBEAT_VERSION: i16 = 2;
/// UnregisterBroker version Kafka's admin client sends.
const UNREGISTER_VERSION: i16 = 0;
/// How far ahead of its registration record a fake broker claims to be.
const METADATA_OFFSET_LEAD: i64 = 1_000_000;
/// No phase is being timed.
const NOT_MEASURING: usize = usize::MAX;
/// Linux `USER_HZ`: the unit of `utime`/`stime` in `/proc/PID/stat`.
const CLOCK_TICKS_PER_SECOND: u64 = 100;

type Result<T> = std::result::Result<T, String>;

/// The command line.
struct Args {
    bootstrap: Vec<String>,
    cluster_id: String,
    phases: Vec<usize>,
    seconds: Vec<u64>,
    warmup: Duration,
    interval: Duration,
    first_id: i32,
    pids: Vec<(String, u32)>,
    unregister: Vec<i32>,
    /// `--hold N`: register N brokers and keep them until stdin closes.
    hold: Option<usize>,
    /// `--create-topics` / `--delete-topics`.
    topics: Option<TopicsJob>,
    /// `--writer PREFIX`: one-topic CreateTopics, across leader changes.
    writer: Option<WriterJob>,
    /// `--wait-leader SECONDS`: poll DescribeQuorum until a leader is known.
    wait_leader: Option<Duration>,
    /// `--since-us`: the epoch microsecond `--wait-leader` counts from.
    since_us: Option<u64>,
}

/// `--writer PREFIX [--concurrency C] [--count N] [--for-secs S] [--samples-out FILE] [--gap-us N]`.
struct WriterJob {
    prefix: String,
    concurrency: usize,
    count: Option<usize>,
    limit: Duration,
    samples_out: Option<String>,
    /// Pause on a connection after each committed call before the next.
    gap: Duration,
}

/// Topics created or deleted by one run.
struct TopicsJob {
    create: bool,
    prefix: String,
    count: usize,
    partitions: i32,
    batch: usize,
}

fn parse_topics_job(flag: &str, value: &str) -> Result<TopicsJob> {
    let create = flag == "--create-topics";
    let parts: Vec<&str> = value.split(':').collect();
    let want = if create { 4 } else { 3 };
    if parts.len() != want {
        return Err(format!(
            "{flag} wants {}, not {value:?}",
            if create {
                "PREFIX:COUNT:PARTITIONS:BATCH"
            } else {
                "PREFIX:COUNT:BATCH"
            }
        ));
    }
    let num =
        |s: &str| -> Result<usize> { s.parse().map_err(|_| format!("{flag}: cannot parse {s:?}")) };
    let job = TopicsJob {
        create,
        prefix: parts[0].to_string(),
        count: num(parts[1])?,
        partitions: if create {
            i32::try_from(num(parts[2])?).map_err(|e| format!("{flag}: {e}"))?
        } else {
            0
        },
        batch: num(parts[want - 1])?,
    };
    if job.batch == 0 || (create && job.partitions == 0) {
        return Err(format!("{flag}: partitions and batch must be positive"));
    }
    Ok(job)
}

fn parse_list<T: std::str::FromStr>(what: &str, s: &str) -> Result<Vec<T>> {
    s.split(',')
        .filter(|p| !p.is_empty())
        .map(|p| {
            p.trim()
                .parse()
                .map_err(|_| format!("{what}: cannot parse {p:?}"))
        })
        .collect()
}

fn parse_args() -> Result<Args> {
    let mut args = Args {
        bootstrap: Vec::new(),
        cluster_id: String::new(),
        phases: vec![3, 50],
        seconds: vec![30, 20],
        warmup: Duration::from_secs(5),
        interval: Duration::from_millis(100),
        first_id: 100,
        pids: Vec::new(),
        unregister: Vec::new(),
        hold: None,
        topics: None,
        writer: None,
        wait_leader: None,
        since_us: None,
    };
    let mut writer = WriterJob {
        prefix: String::new(),
        concurrency: 1,
        count: None,
        limit: Duration::from_secs(60),
        samples_out: None,
        gap: Duration::ZERO,
    };
    let mut writing = false;
    let number = |flag: &str, value: &str| -> Result<u64> {
        value
            .parse()
            .map_err(|_| format!("{flag}: cannot parse {value:?}"))
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let value = it.next().ok_or_else(|| format!("{flag} needs a value"))?;
        match flag.as_str() {
            "--bootstrap" => args.bootstrap = parse_list(&flag, &value)?,
            "--cluster-id" => args.cluster_id = value,
            "--phases" if value == "none" => args.phases.clear(),
            "--phases" => args.phases = parse_list(&flag, &value)?,
            "--seconds" => args.seconds = parse_list(&flag, &value)?,
            "--warmup-secs" => {
                args.warmup = Duration::from_secs_f64(
                    value
                        .parse()
                        .map_err(|_| format!("{flag}: cannot parse {value:?}"))?,
                )
            }
            "--interval-ms" => {
                args.interval = Duration::from_millis(
                    value
                        .parse()
                        .map_err(|_| format!("{flag}: cannot parse {value:?}"))?,
                )
            }
            "--first-id" => {
                args.first_id = value
                    .parse()
                    .map_err(|_| format!("{flag}: cannot parse {value:?}"))?
            }
            "--pids" => {
                for part in value.split(',').filter(|p| !p.is_empty()) {
                    let (name, pid) = part
                        .split_once('=')
                        .ok_or_else(|| format!("--pids wants NAME=PID, not {part:?}"))?;
                    let pid = pid
                        .parse()
                        .map_err(|_| format!("--pids: cannot parse {pid:?}"))?;
                    args.pids.push((name.to_string(), pid));
                }
            }
            "--unregister" => args.unregister = parse_list(&flag, &value)?,
            "--hold" => {
                let n: usize = value
                    .parse()
                    .map_err(|_| format!("{flag}: cannot parse {value:?}"))?;
                if n == 0 {
                    return Err("--hold wants a positive broker count".into());
                }
                args.hold = Some(n);
            }
            "--create-topics" | "--delete-topics" => {
                args.topics = Some(parse_topics_job(&flag, &value)?)
            }
            "--writer" => {
                writing = true;
                writer.prefix = value;
            }
            "--concurrency" => {
                writer.concurrency =
                    usize::try_from(number(&flag, &value)?.max(1)).map_err(|e| e.to_string())?
            }
            "--count" => {
                writer.count =
                    Some(usize::try_from(number(&flag, &value)?).map_err(|e| e.to_string())?)
            }
            "--for-secs" => writer.limit = Duration::from_secs(number(&flag, &value)?),
            "--samples-out" => writer.samples_out = Some(value),
            "--gap-us" => writer.gap = Duration::from_micros(number(&flag, &value)?),
            "--wait-leader" => args.wait_leader = Some(Duration::from_secs(number(&flag, &value)?)),
            "--since-us" => args.since_us = Some(number(&flag, &value)?),
            other => return Err(format!("unknown flag {other}")),
        }
    }
    if writing {
        args.writer = Some(writer);
    }
    if args.bootstrap.is_empty()
        || (args.cluster_id.is_empty() && args.wait_leader.is_none() && args.writer.is_none())
    {
        return Err("--bootstrap and --cluster-id are required".into());
    }
    if !args.phases.is_empty()
        && (args.phases.windows(2).any(|w| w[0] > w[1]) || args.phases[0] == 0)
    {
        return Err("--phases wants growing positive broker counts, e.g. 3,50".into());
    }
    if args.phases.is_empty() || args.hold.is_some() || args.topics.is_some() {
        args.phases.clear();
        args.seconds.clear();
    }
    if args.seconds.len() != args.phases.len() {
        return Err("--seconds needs one duration per phase".into());
    }
    if args.interval.is_zero() {
        return Err("--interval-ms must be positive".into());
    }
    Ok(args)
}

/// One connection to a controller, one request in flight at a time.
struct Conn {
    address: String,
    stream: TcpStream,
    decoder: FrameDecoder,
    read_buf: BytesMut,
    correlation_id: i32,
    client_id: StrBytes,
    versions: HashMap<i16, (i16, i16)>,
}

impl Conn {
    /// Connects and exchanges ApiVersions (at our latest version, or at the
    /// server's latest when it answers UNSUPPORTED_VERSION), as Kafka's
    /// `NetworkClient` does before its first request.
    async fn connect(address: &str, client_id: &str) -> Result<Conn> {
        Self::open(address, client_id, true).await
    }

    /// [`Conn::connect`] without requiring the broker-facing APIs, with a
    /// 1 s limit on the connection and the ApiVersions exchange.
    async fn connect_plain(address: &str, client_id: &str) -> Result<Conn> {
        tokio::time::timeout(
            Duration::from_secs(1),
            Self::open(address, client_id, false),
        )
        .await
        .map_err(|_| format!("{address}: no ApiVersions answer within 1 s"))?
    }

    async fn open(address: &str, client_id: &str, broker_apis: bool) -> Result<Conn> {
        let stream = TcpStream::connect(address)
            .await
            .map_err(|e| format!("connect {address}: {e}"))?;
        stream
            .set_nodelay(true)
            .map_err(|e| format!("{address}: {e}"))?;
        let mut conn = Conn {
            address: address.to_string(),
            stream,
            decoder: FrameDecoder::new(DEFAULT_MAX_FRAME_SIZE),
            read_buf: BytesMut::with_capacity(16 * 1024),
            correlation_id: 0,
            client_id: StrBytes::from(client_id),
            versions: HashMap::new(),
        };
        let (_, ours) = ApiKey::ApiVersions.versions();
        let mut version = ours;
        for _ in 0..2 {
            let request = ApiVersionsRequest {
                client_software_name: StrBytes::from_static("kraft-rs-broker-load"),
                client_software_version: StrBytes::from_static(env!("CARGO_PKG_VERSION")),
                ..Default::default()
            };
            let (frame, _) = conn
                .exchange(ApiKey::ApiVersions, version, &request)
                .await?;
            let response = match decode_response_as::<ApiVersionsResponse>(
                frame.clone(),
                ApiKey::ApiVersions,
                version,
            ) {
                Ok((_, r)) => r,
                Err(_) => {
                    // An UNSUPPORTED_VERSION answer carries a v0 body.
                    let mut buf = frame;
                    ResponseHeader::decode(&mut buf, 0)
                        .and_then(|_| ApiVersionsResponse::decode(&mut buf, 0))
                        .map_err(|e| format!("{address}: bad ApiVersions answer: {e}"))?
                }
            };
            if response.error_code == ErrorCode::UnsupportedVersion.code() {
                version = response
                    .api_keys
                    .iter()
                    .find(|k| k.api_key == ApiKey::ApiVersions.id())
                    .map_or(0, |k| k.max_version.min(ours));
                continue;
            }
            if response.error_code != 0 {
                return Err(format!(
                    "{address}: ApiVersions error {}",
                    ErrorCode::from_code(response.error_code).name()
                ));
            }
            conn.versions = response
                .api_keys
                .iter()
                .map(|k| (k.api_key, (k.min_version, k.max_version)))
                .collect();
            if !broker_apis {
                return Ok(conn);
            }
            for (api, v) in [
                (ApiKey::BrokerRegistration, REGISTRATION_VERSION),
                (ApiKey::BrokerHeartbeat, HEARTBEAT_VERSION),
                (ApiKey::UnregisterBroker, UNREGISTER_VERSION),
            ] {
                match conn.versions.get(&api.id()) {
                    Some((lo, hi)) if (*lo..=*hi).contains(&v) => {}
                    _ => return Err(format!("{address} does not serve {api:?} v{v}")),
                }
            }
            return Ok(conn);
        }
        Err(format!("{address}: no common ApiVersions version"))
    }

    /// Writes one request and reads its response frame; the duration runs
    /// from just before the write to the last byte of the response frame.
    async fn exchange<M: Encodable>(
        &mut self,
        api: ApiKey,
        version: i16,
        body: &M,
    ) -> Result<(bytes::Bytes, Duration)> {
        self.correlation_id = self.correlation_id.wrapping_add(1);
        let header = RequestHeader {
            request_api_key: api.id(),
            request_api_version: version,
            correlation_id: self.correlation_id,
            client_id: Some(self.client_id.clone()),
            ..Default::default()
        };
        let mut out = Vec::with_capacity(64 + body.encoded_len(version));
        encode_request_frame(&mut out, &header, body)
            .map_err(|e| format!("encode {api:?}: {e}"))?;
        let start = Instant::now();
        self.stream
            .write_all(&out)
            .await
            .map_err(|e| format!("{}: write: {e}", self.address))?;
        loop {
            match self.decoder.decode(&mut self.read_buf) {
                Ok(Some(frame)) => return Ok((frame, start.elapsed())),
                Ok(None) => {}
                Err(e) => return Err(format!("{}: bad frame: {e}", self.address)),
            }
            if self.read_buf.capacity() - self.read_buf.len() < 4096 {
                self.read_buf.reserve(16 * 1024);
            }
            match self.stream.read_buf(&mut self.read_buf).await {
                Ok(0) => return Err(format!("{}: connection closed", self.address)),
                Ok(_) => {}
                Err(e) => return Err(format!("{}: read: {e}", self.address)),
            }
        }
    }

    /// [`Conn::exchange`], with the response decoded as `R` and its
    /// correlation id checked.
    async fn call<M: Encodable, R: Message>(
        &mut self,
        api: ApiKey,
        version: i16,
        body: &M,
    ) -> Result<(R, Duration)> {
        let (frame, rtt) = self.exchange(api, version, body).await?;
        let (correlation, response) = decode_response_as::<R>(frame, api, version)
            .map_err(|e| format!("{}: bad {api:?} answer: {e}", self.address))?;
        if correlation != self.correlation_id {
            return Err(format!("{}: correlation id mismatch", self.address));
        }
        Ok((response, rtt))
    }
}

/// What a fake broker registered as.
struct Registered {
    id: i32,
    epoch: i64,
}

/// BrokerRegistration v4 with the fields a Java 4.4 broker fills in.
fn registration(
    args: &Args,
    id: i32,
    index: usize,
    log_dir: kraft_protocol::Uuid,
) -> BrokerRegistrationRequest {
    let features: Vec<Feature> = supported_features(false)
        .into_iter()
        .map(|(name, range)| Feature {
            name: StrBytes::from_static(name),
            min_supported_version: range.min,
            max_supported_version: range.max,
            ..Default::default()
        })
        .collect();
    BrokerRegistrationRequest {
        broker_id: id,
        cluster_id: StrBytes::from(args.cluster_id.as_str()),
        incarnation_id: random_uuid(),
        listeners: vec![Listener {
            name: StrBytes::from_static("PLAINTEXT"),
            host: StrBytes::from_static("127.0.0.1"),
            // Nothing listens there: controllers never connect to brokers.
            port: 40000u16.saturating_add(u16::try_from(index).unwrap_or(u16::MAX - 40000)),
            security_protocol: 0,
            ..Default::default()
        }]
        .into(),
        features: features.into(),
        rack: None,
        is_migrating_zk_broker: false,
        log_dirs: vec![log_dir],
        previous_broker_epoch: -1,
        ..Default::default()
    }
}

/// Registers broker `id` on `conn`; `Ok(None)` when that controller is not
/// the active one.
async fn register(
    conn: &mut Conn,
    args: &Args,
    id: i32,
    index: usize,
) -> Result<Option<Registered>> {
    let request = registration(args, id, index, random_directory_id());
    let (response, _): (BrokerRegistrationResponse, _) = conn
        .call(ApiKey::BrokerRegistration, REGISTRATION_VERSION, &request)
        .await?;
    match ErrorCode::from_code(response.error_code) {
        ErrorCode::None => Ok(Some(Registered {
            id,
            epoch: response.broker_epoch,
        })),
        ErrorCode::NotController => Ok(None),
        other => Err(format!(
            "{}: registration of broker {id} refused: {}",
            conn.address,
            other.name()
        )),
    }
}

/// The timed samples of one phase.
#[derive(Default)]
struct PhaseSamples {
    rtts_us: Vec<u64>,
    errors: HashMap<&'static str, u64>,
    fenced_answers: u64,
}

/// Shared between the heartbeat tasks and the driver.
struct Recorder {
    /// The phase being timed, or [`NOT_MEASURING`].
    phase: AtomicUsize,
    phases: Mutex<Vec<PhaseSamples>>,
}

impl Recorder {
    fn record(&self, phase: usize, outcome: std::result::Result<(Duration, bool), &'static str>) {
        if phase == NOT_MEASURING {
            return;
        }
        if let Ok(mut phases) = self.phases.lock() {
            if let Some(p) = phases.get_mut(phase) {
                match outcome {
                    Ok((rtt, fenced)) => {
                        p.rtts_us
                            .push(u64::try_from(rtt.as_micros()).unwrap_or(u64::MAX));
                        if fenced {
                            p.fenced_answers += 1;
                        }
                    }
                    Err(e) => *p.errors.entry(e).or_default() += 1,
                }
            }
        }
    }
}

/// The fake brokers started so far, each heartbeating on its own task.
struct Fleet {
    interval: Duration,
    recorder: Arc<Recorder>,
    stop: watch::Receiver<bool>,
    ids: Vec<i32>,
    unfenced: Vec<Arc<AtomicBool>>,
    tasks: Vec<tokio::task::JoinHandle<()>>,
}

impl Fleet {
    fn new(interval: Duration, recorder: Arc<Recorder>, stop: watch::Receiver<bool>) -> Self {
        Fleet {
            interval,
            recorder,
            stop,
            ids: Vec::new(),
            unfenced: Vec::new(),
            tasks: Vec::new(),
        }
    }

    /// Starts `broker`'s heartbeats on `conn`; the n-th broker's first one
    /// is offset into the interval by n times the golden ratio, so the
    /// brokers do not queue behind each other.
    fn launch(&mut self, conn: Conn, broker: Registered) {
        let golden = (5f64.sqrt() - 1.0) / 2.0;
        let offset = self
            .interval
            .mul_f64((self.ids.len() as f64 * golden).fract());
        self.ids.push(broker.id);
        let flag = Arc::new(AtomicBool::new(false));
        self.unfenced.push(flag.clone());
        self.tasks.push(tokio::spawn(heartbeat_loop(
            conn,
            broker,
            tokio::time::Instant::now() + offset,
            self.interval,
            self.recorder.clone(),
            flag,
            self.stop.clone(),
        )));
    }

    fn all_unfenced(&self) -> bool {
        self.unfenced.iter().all(|f| f.load(Ordering::Acquire))
    }

    /// Waits for every heartbeat task (after the stop was sent); the ids.
    async fn stopped(self) -> Vec<i32> {
        for t in self.tasks {
            let _ = t.await;
        }
        self.ids
    }
}

/// Heartbeats every `interval` from `first` until `stop` turns true.
async fn heartbeat_loop(
    mut conn: Conn,
    broker: Registered,
    first: tokio::time::Instant,
    interval: Duration,
    recorder: Arc<Recorder>,
    unfenced: Arc<AtomicBool>,
    mut stop: watch::Receiver<bool>,
) {
    let mut ticks = tokio::time::interval_at(first, interval);
    ticks.set_missed_tick_behavior(MissedTickBehavior::Delay);
    let mut caught_up = false;
    loop {
        tokio::select! {
            _ = stop.changed() => return,
            _ = ticks.tick() => {}
        }
        let request = BrokerHeartbeatRequest {
            broker_id: broker.id,
            broker_epoch: broker.epoch,
            current_metadata_offset: broker.epoch.saturating_add(METADATA_OFFSET_LEAD),
            want_fence: false,
            want_shut_down: false,
            offline_log_dirs: Vec::new(),
            cordoned_log_dirs: caught_up.then(Vec::new),
            ..Default::default()
        };
        let phase = recorder.phase.load(Ordering::Acquire);
        let result: Result<(BrokerHeartbeatResponse, Duration)> = conn
            .call(ApiKey::BrokerHeartbeat, HEARTBEAT_VERSION, &request)
            .await;
        match result {
            Ok((response, rtt)) => match ErrorCode::from_code(response.error_code) {
                ErrorCode::None => {
                    caught_up |= response.is_caught_up;
                    if !response.is_fenced {
                        unfenced.store(true, Ordering::Release);
                    }
                    recorder.record(phase, Ok((rtt, response.is_fenced)));
                }
                other => recorder.record(phase, Err(other.name())),
            },
            Err(e) => {
                eprintln!(
                    "broker_load: broker {}: {e}; its heartbeats stop",
                    broker.id
                );
                recorder.record(phase, Err("IO_ERROR"));
                return;
            }
        }
    }
}

/// One `/proc` reading of a process.
#[derive(Clone, Copy)]
struct ProcSample {
    at: Instant,
    rss_kb: u64,
    threads: u64,
    cpu_ticks: u64,
}

fn read_proc(pid: u32) -> Option<(u64, u64, u64)> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let field = |name: &str| -> Option<u64> {
        status
            .lines()
            .find(|l| l.starts_with(name))?
            .split_whitespace()
            .nth(1)?
            .parse()
            .ok()
    };
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // Fields after the parenthesised command name; utime and stime are
    // fields 14 and 15 of the whole line.
    let rest = &stat[stat.rfind(')')? + 2..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    let utime: u64 = f.get(11)?.parse().ok()?;
    let stime: u64 = f.get(12)?.parse().ok()?;
    Some((field("VmRSS:")?, field("Threads:")?, utime + stime))
}

/// Samples every process in `pids` twice a second until `stop`.
fn spawn_sampler(
    pids: Vec<(String, u32)>,
    stop: Arc<AtomicBool>,
) -> std::thread::JoinHandle<Vec<Vec<ProcSample>>> {
    std::thread::spawn(move || {
        let mut out: Vec<Vec<ProcSample>> = vec![Vec::new(); pids.len()];
        while !stop.load(Ordering::Acquire) {
            for (i, (_, pid)) in pids.iter().enumerate() {
                if let Some((rss_kb, threads, cpu_ticks)) = read_proc(*pid) {
                    out[i].push(ProcSample {
                        at: Instant::now(),
                        rss_kb,
                        threads,
                        cpu_ticks,
                    });
                }
            }
            std::thread::sleep(Duration::from_millis(500));
        }
        out
    })
}

/// Nearest-rank percentile of sorted values.
fn percentile(sorted: &[u64], p: f64) -> u64 {
    if sorted.is_empty() {
        return 0;
    }
    let rank = (p * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

/// Finds the active controller by registering broker `id` with each
/// bootstrap server in turn (NOT_CONTROLLER: try the next), for up to 30 s.
async fn first_registration(args: &Args, id: i32) -> Result<(Conn, Registered)> {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        for address in &args.bootstrap {
            let client_id = format!("broker-{id}-heartbeat");
            let mut conn = match Conn::connect(address, &client_id).await {
                Ok(c) => c,
                Err(e) => {
                    eprintln!("broker_load: {e}");
                    continue;
                }
            };
            if let Some(r) = register(&mut conn, args, id, 0).await? {
                return Ok((conn, r));
            }
        }
        if Instant::now() > deadline {
            return Err("no controller accepted a registration within 30 s".into());
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}

async fn unregister(conn: &mut Conn, id: i32) -> Result<()> {
    let request = UnregisterBrokerRequest {
        broker_id: id,
        ..Default::default()
    };
    let (response, _): (UnregisterBrokerResponse, _) = conn
        .call(ApiKey::UnregisterBroker, UNREGISTER_VERSION, &request)
        .await?;
    match ErrorCode::from_code(response.error_code) {
        ErrorCode::None | ErrorCode::BrokerIdNotRegistered => Ok(()),
        other => Err(format!("unregister broker {id}: {}", other.name())),
    }
}

/// Unregisters `ids` through the active controller: the first bootstrap
/// server that does not answer NOT_CONTROLLER, for up to 30 s.
async fn unregister_only(args: &Args) -> Result<()> {
    let Some(&first) = args.unregister.first() else {
        return Ok(());
    };
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        for address in &args.bootstrap {
            let mut conn = match Conn::connect(address, "broker-load-admin").await {
                Ok(c) => c,
                Err(e) => {
                    eprintln!("broker_load: {e}");
                    continue;
                }
            };
            let request = UnregisterBrokerRequest {
                broker_id: first,
                ..Default::default()
            };
            let (response, _): (UnregisterBrokerResponse, _) = conn
                .call(ApiKey::UnregisterBroker, UNREGISTER_VERSION, &request)
                .await?;
            match ErrorCode::from_code(response.error_code) {
                ErrorCode::NotController => continue,
                ErrorCode::None | ErrorCode::BrokerIdNotRegistered => {}
                other => return Err(format!("unregister broker {first}: {}", other.name())),
            }
            for id in &args.unregister[1..] {
                unregister(&mut conn, *id).await?;
            }
            println!(
                "unregistered count={} errors=0 leader={address}",
                args.unregister.len()
            );
            return Ok(());
        }
        if Instant::now() > deadline {
            return Err("no controller took an UnregisterBroker within 30 s".into());
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}

/// Resolves once standard input reaches end of file (or fails), or on
/// SIGTERM or SIGINT; says which.
async fn hold_until_released() -> Result<&'static str> {
    use tokio::signal::unix::{signal, SignalKind};
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    // A plain thread: a blocking read on tokio's stdin would keep the
    // runtime from shutting down after a signal.
    std::thread::spawn(move || {
        let mut sink = [0u8; 256];
        let mut stdin = std::io::stdin();
        while matches!(std::io::Read::read(&mut stdin, &mut sink), Ok(n) if n > 0) {}
        let _ = tx.send(());
    });
    let mut term = signal(SignalKind::terminate()).map_err(|e| format!("SIGTERM handler: {e}"))?;
    let mut int = signal(SignalKind::interrupt()).map_err(|e| format!("SIGINT handler: {e}"))?;
    Ok(tokio::select! {
        _ = rx => "stdin_closed",
        _ = term.recv() => "SIGTERM",
        _ = int.recv() => "SIGINT",
    })
}

/// `--hold N`: N fake brokers registered, unfenced and heartbeating until
/// [`hold_until_released`], then unregistered.
async fn hold(args: &Args, count: usize) -> Result<()> {
    let recorder = Arc::new(Recorder {
        phase: AtomicUsize::new(NOT_MEASURING),
        phases: Mutex::new(Vec::new()),
    });
    let (stop_tx, stop_rx) = watch::channel(false);
    let mut fleet = Fleet::new(args.interval, recorder, stop_rx);
    let registering = Instant::now();
    let (first_conn, first) = first_registration(args, args.first_id).await?;
    let leader = first_conn.address.clone();
    println!("leader address={leader}");
    let mut admin = Conn::connect(&leader, "broker-load-admin").await?;
    for id in &args.unregister {
        unregister(&mut admin, *id).await?;
    }
    let mut pending = Some((first_conn, first));
    // Registered brokers are unregistered even when a later step fails.
    let mut outcome: Result<()> = Ok(());
    for index in 0..count {
        let (conn, broker) = match pending.take() {
            Some(p) => p,
            None => {
                let id = match i32::try_from(index) {
                    Ok(i) => args.first_id.saturating_add(i),
                    Err(e) => {
                        outcome = Err(e.to_string());
                        break;
                    }
                };
                let registered = async {
                    let mut conn =
                        Conn::connect(&leader, &format!("broker-{id}-heartbeat")).await?;
                    let broker = register(&mut conn, args, id, index)
                        .await?
                        .ok_or_else(|| format!("{leader} is no longer the active controller"))?;
                    Ok::<_, String>((conn, broker))
                }
                .await;
                match registered {
                    Ok(r) => r,
                    Err(e) => {
                        outcome = Err(e);
                        break;
                    }
                }
            }
        };
        fleet.launch(conn, broker);
    }
    let registered_in = registering.elapsed();
    if outcome.is_ok() {
        let deadline = Instant::now() + Duration::from_secs(60);
        while !fleet.all_unfenced() {
            if Instant::now() > deadline {
                outcome = Err("not every fake broker was unfenced within 60 s".into());
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
    if outcome.is_ok() {
        println!(
            "ready brokers={count} first_id={} interval_ms={} register_ms={} all_unfenced_ms={}",
            args.first_id,
            args.interval.as_millis(),
            registered_in.as_millis(),
            registering.elapsed().as_millis()
        );
        // The script waits for that line on a pipe.
        use std::io::Write;
        let _ = std::io::stdout().flush();
        match hold_until_released().await {
            Ok(why) => eprintln!("broker_load: released ({why})"),
            Err(e) => outcome = Err(e),
        }
    }
    // A task that ended before the stop lost its connection (counted
    // before the stop, which ends them all).
    let stopped_early = fleet.tasks.iter().filter(|t| t.is_finished()).count();
    let _ = stop_tx.send(true);
    let ids = fleet.stopped().await;
    let unregistering = Instant::now();
    let mut errors = Vec::new();
    for id in &ids {
        if let Err(e) = unregister(&mut admin, *id).await {
            errors.push(e);
        }
    }
    println!(
        "unregistered count={} errors={} ms={} heartbeats_stopped_early={stopped_early}",
        ids.len(),
        errors.len(),
        unregistering.elapsed().as_millis()
    );
    outcome?;
    if !errors.is_empty() {
        return Err(errors.join("; "));
    }
    if stopped_early > 0 {
        return Err(format!(
            "{stopped_early} fake brokers stopped heartbeating before the end"
        ));
    }
    Ok(())
}

/// CreateTopics version Kafka 4.4's clients send.
const CREATE_TOPICS_VERSION: i16 = 7;
/// DeleteTopics version Kafka 4.4's clients send.
const DELETE_TOPICS_VERSION: i16 = 6;
/// The controllers' own time limit for one CreateTopics/DeleteTopics call.
const TOPICS_TIMEOUT_MS: i32 = 60_000;

/// One CreateTopics or DeleteTopics call of `names`; `Ok(false)` when this
/// controller is not the active one.
async fn topics_call(conn: &mut Conn, job: &TopicsJob, names: &[String]) -> Result<bool> {
    use kraft_protocol::messages::create_topics_request::{CreatableTopic, CreateTopicsRequest};
    use kraft_protocol::messages::create_topics_response::CreateTopicsResponse;
    use kraft_protocol::messages::delete_topics_request::{DeleteTopicState, DeleteTopicsRequest};
    use kraft_protocol::messages::delete_topics_response::DeleteTopicsResponse;
    let mut errors: Vec<(String, i16)> = Vec::new();
    if job.create {
        let request = CreateTopicsRequest {
            topics: names
                .iter()
                .map(|n| CreatableTopic {
                    name: StrBytes::from(n.as_str()),
                    num_partitions: job.partitions,
                    replication_factor: 3,
                    ..Default::default()
                })
                .collect::<Vec<_>>()
                .into(),
            timeout_ms: TOPICS_TIMEOUT_MS,
            validate_only: false,
            ..Default::default()
        };
        let (response, _): (CreateTopicsResponse, _) = conn
            .call(ApiKey::CreateTopics, CREATE_TOPICS_VERSION, &request)
            .await?;
        for t in response.topics.iter() {
            if t.error_code != 0 {
                errors.push((t.name.to_string(), t.error_code));
            }
        }
        if response.topics.len() != names.len() && errors.is_empty() {
            return Err(format!(
                "{}: CreateTopics answered {} of {} topics",
                conn.address,
                response.topics.len(),
                names.len()
            ));
        }
    } else {
        let request = DeleteTopicsRequest {
            topics: names
                .iter()
                .map(|n| DeleteTopicState {
                    name: Some(StrBytes::from(n.as_str())),
                    ..Default::default()
                })
                .collect::<Vec<_>>()
                .into(),
            timeout_ms: TOPICS_TIMEOUT_MS,
            ..Default::default()
        };
        let (response, _): (DeleteTopicsResponse, _) = conn
            .call(ApiKey::DeleteTopics, DELETE_TOPICS_VERSION, &request)
            .await?;
        for t in response.responses.iter() {
            if t.error_code != 0 {
                let name = t.name.as_ref().map_or("?".to_string(), |n| n.to_string());
                errors.push((name, t.error_code));
            }
        }
    }
    if !errors.is_empty()
        && errors
            .iter()
            .all(|(_, e)| *e == ErrorCode::NotController.code())
    {
        return Ok(false);
    }
    if let Some((name, code)) = errors.first() {
        return Err(format!(
            "{}: {} of {} topics failed, e.g. {name}: {}",
            conn.address,
            errors.len(),
            names.len(),
            ErrorCode::from_code(*code).name()
        ));
    }
    Ok(true)
}

/// `--create-topics` / `--delete-topics`: sequential calls of `batch`
/// topics to the active controller (the first bootstrap server whose first
/// call does not answer NOT_CONTROLLER, for up to 30 s).
async fn topics_only(args: &Args, job: &TopicsJob) -> Result<()> {
    let names: Vec<String> = (0..job.count)
        .map(|i| format!("{}{i}", job.prefix))
        .collect();
    let mut chunks = names.chunks(job.batch);
    let Some(first) = chunks.next() else {
        return Ok(());
    };
    let deadline = Instant::now() + Duration::from_secs(30);
    let (mut conn, started, first_call) = 'found: loop {
        for address in &args.bootstrap {
            let mut conn = match Conn::connect(address, "broker-load-admin").await {
                Ok(c) => c,
                Err(e) => {
                    eprintln!("broker_load: {e}");
                    continue;
                }
            };
            let started = Instant::now();
            if topics_call(&mut conn, job, first).await? {
                break 'found (conn, started, started.elapsed());
            }
        }
        if Instant::now() > deadline {
            return Err("no controller took a topics request within 30 s".into());
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    // Each call's round trip: request written to answer read, the answer
    // sent once the records are committed and applied.
    let mut call_times = vec![first_call];
    for chunk in chunks {
        let t0 = Instant::now();
        if !topics_call(&mut conn, job, chunk).await? {
            return Err(format!(
                "{} is no longer the active controller",
                conn.address
            ));
        }
        call_times.push(t0.elapsed());
    }
    let calls = call_times.len();
    let total = started.elapsed().as_secs_f64();
    call_times.sort_unstable();
    let call_ms = |q: f64| {
        let i = ((q * calls as f64).ceil() as usize).clamp(1, calls) - 1;
        call_times[i].as_secs_f64() * 1000.0
    };
    let latencies = format!(
        "call_p50_ms={:.2} call_p99_ms={:.2} call_max_ms={:.2}",
        call_ms(0.5),
        call_ms(0.99),
        call_ms(1.0)
    );
    if job.create {
        println!(
            "create_batch via=controller client=broker_load topics={} partitions={} rf=3 batch={} calls={calls} total_s={total:.3} {latencies} leader={}",
            job.count, job.partitions, job.batch, conn.address
        );
    } else {
        println!(
            "delete_batch via=controller client=broker_load topics={} batch={} calls={calls} total_s={total:.3} {latencies} leader={}",
            job.count, job.batch, conn.address
        );
    }
    Ok(())
}

async fn run(args: Args) -> Result<()> {
    if let Some(limit) = args.wait_leader {
        return wait_leader(&args, limit).await;
    }
    if let Some(job) = &args.writer {
        return writer(&args, job).await;
    }
    if let Some(job) = &args.topics {
        return topics_only(&args, job).await;
    }
    if let Some(count) = args.hold {
        return hold(&args, count).await;
    }
    if args.phases.is_empty() {
        return unregister_only(&args).await;
    }
    let recorder = Arc::new(Recorder {
        phase: AtomicUsize::new(NOT_MEASURING),
        phases: Mutex::new(
            (0..args.phases.len())
                .map(|_| PhaseSamples::default())
                .collect(),
        ),
    });
    let sampler_stop = Arc::new(AtomicBool::new(false));
    let sampler = spawn_sampler(args.pids.clone(), sampler_stop.clone());
    let (stop_tx, stop_rx) = watch::channel(false);
    let mut fleet = Fleet::new(args.interval, recorder.clone(), stop_rx);
    let mut windows = Vec::new();

    let (first_conn, first) = first_registration(&args, args.first_id).await?;
    let leader = first_conn.address.clone();
    println!("leader address={leader}");
    let mut admin = Conn::connect(&leader, "broker-load-admin").await?;
    for id in &args.unregister {
        unregister(&mut admin, *id).await?;
    }
    let mut pending = Some((first_conn, first));
    for (phase, &count) in args.phases.iter().enumerate() {
        let registering = Instant::now();
        while fleet.ids.len() < count {
            let index = fleet.ids.len();
            let (conn, broker) = match pending.take() {
                Some(p) => p,
                None => {
                    let id = args.first_id + i32::try_from(index).map_err(|e| e.to_string())?;
                    let mut conn =
                        Conn::connect(&leader, &format!("broker-{id}-heartbeat")).await?;
                    let broker = register(&mut conn, &args, id, index)
                        .await?
                        .ok_or_else(|| format!("{leader} is no longer the active controller"))?;
                    (conn, broker)
                }
            };
            fleet.launch(conn, broker);
        }
        let registered_in = registering.elapsed();
        let deadline = Instant::now() + Duration::from_secs(30);
        while !fleet.all_unfenced() {
            if Instant::now() > deadline {
                return Err(format!(
                    "phase {phase}: not every fake broker was unfenced within 30 s"
                ));
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        let all_unfenced_in = registering.elapsed();
        tokio::time::sleep(args.warmup).await;
        let start = Instant::now();
        recorder.phase.store(phase, Ordering::Release);
        tokio::time::sleep(Duration::from_secs(args.seconds[phase])).await;
        recorder.phase.store(NOT_MEASURING, Ordering::Release);
        let end = Instant::now();
        windows.push((start, end, registered_in, all_unfenced_in));
    }
    let _ = stop_tx.send(true);
    let ids = fleet.stopped().await;
    let mut unregister_errors = Vec::new();
    let unregistering = Instant::now();
    for id in &ids {
        if let Err(e) = unregister(&mut admin, *id).await {
            unregister_errors.push(e);
        }
    }
    let unregister_ms = unregistering.elapsed().as_millis();
    sampler_stop.store(true, Ordering::Release);
    let proc_samples = sampler.join().map_err(|_| "the /proc sampler panicked")?;

    let phases = recorder
        .phases
        .lock()
        .map_err(|_| "recorder poisoned".to_string())?;
    for (i, p) in phases.iter().enumerate() {
        let mut sorted = p.rtts_us.clone();
        sorted.sort_unstable();
        let mean = if sorted.is_empty() {
            0
        } else {
            sorted.iter().sum::<u64>() / sorted.len() as u64
        };
        let errors: u64 = p.errors.values().sum();
        let mut kinds: Vec<String> = p.errors.iter().map(|(k, v)| format!("{k}:{v}")).collect();
        kinds.sort();
        let (_, _, registered_in, unfenced_in) = windows[i];
        println!(
            "phase brokers={} interval_ms={} warmup_s={} seconds={} samples={} errors={errors} error_kinds={} fenced_answers={} p50_us={} p90_us={} p99_us={} p999_us={} max_us={} mean_us={mean} register_ms={} all_unfenced_ms={}",
            args.phases[i],
            args.interval.as_millis(),
            args.warmup.as_secs_f64(),
            args.seconds[i],
            sorted.len(),
            if kinds.is_empty() { "-".to_string() } else { kinds.join(",") },
            p.fenced_answers,
            percentile(&sorted, 0.50),
            percentile(&sorted, 0.90),
            percentile(&sorted, 0.99),
            percentile(&sorted, 0.999),
            sorted.last().copied().unwrap_or(0),
            registered_in.as_millis(),
            unfenced_in.as_millis(),
        );
        for (j, (name, pid)) in args.pids.iter().enumerate() {
            let (start, end, _, _) = windows[i];
            let inside: Vec<ProcSample> = proc_samples[j]
                .iter()
                .filter(|s| s.at >= start && s.at <= end)
                .copied()
                .collect();
            let (Some(first), Some(last)) = (inside.first(), inside.last()) else {
                println!(
                    "proc brokers={} name={name} pid={pid} samples=0",
                    args.phases[i]
                );
                continue;
            };
            let mut rss: Vec<u64> = inside.iter().map(|s| s.rss_kb).collect();
            rss.sort_unstable();
            let secs = last.at.duration_since(first.at).as_secs_f64().max(1e-3);
            let cpu_ms = (last.cpu_ticks - first.cpu_ticks.min(last.cpu_ticks)) * 1000
                / CLOCK_TICKS_PER_SECOND;
            println!(
                "proc brokers={} name={name} pid={pid} samples={} rss_kb={} rss_max_kb={} threads={} cpu_ms={cpu_ms} cpu_pct={:.1}",
                args.phases[i],
                rss.len(),
                percentile(&rss, 0.5),
                rss.last().copied().unwrap_or(0),
                last.threads,
                cpu_ms as f64 / 10.0 / secs,
            );
        }
    }
    println!(
        "unregistered count={} errors={} ms={unregister_ms}",
        ids.len(),
        unregister_errors.len()
    );
    if !unregister_errors.is_empty() {
        return Err(unregister_errors.join("; "));
    }
    Ok(())
}

/// Microseconds since the Unix epoch (the clock bash's `$EPOCHREALTIME` reads).
fn epoch_us() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_micros()).unwrap_or(u64::MAX))
}

/// `--wait-leader`: DescribeQuorum to the bootstrap servers in turn, with
/// no pause between answers, until one names a leader; prints `leader
/// id=N ms=M polls=P` with M counted from `--since-us` (the spawn of the
/// server, taken by the caller) or from this program's start. A refused
/// connection (the server not listening yet) is retried after 1 ms.
async fn wait_leader(args: &Args, limit: Duration) -> Result<()> {
    use kraft_protocol::messages::describe_quorum_request::{
        DescribeQuorumRequest, PartitionData, TopicData,
    };
    use kraft_protocol::messages::describe_quorum_response::DescribeQuorumResponse;
    let since = args.since_us.unwrap_or_else(epoch_us);
    let deadline = Instant::now() + limit;
    let mut polls = 0u64;
    let request = DescribeQuorumRequest {
        topics: vec![TopicData {
            topic_name: StrBytes::from_static("__cluster_metadata"),
            partitions: vec![PartitionData {
                partition_index: 0,
                ..Default::default()
            }]
            .into(),
            ..Default::default()
        }]
        .into(),
        ..Default::default()
    };
    let (_, ours) = ApiKey::DescribeQuorum.versions();
    while Instant::now() < deadline {
        for address in &args.bootstrap {
            let Ok(Ok(stream)) =
                tokio::time::timeout(Duration::from_secs(1), TcpStream::connect(address)).await
            else {
                tokio::time::sleep(Duration::from_millis(1)).await;
                continue;
            };
            drop(stream);
            let mut conn = match Conn::connect_plain(address, "bench-wait-leader").await {
                Ok(c) => c,
                Err(_) => continue,
            };
            let version = conn
                .versions
                .get(&ApiKey::DescribeQuorum.id())
                .map_or(0, |(_, hi)| (*hi).min(ours));
            while Instant::now() < deadline {
                polls += 1;
                let Ok((response, _)) = conn
                    .call::<_, DescribeQuorumResponse>(ApiKey::DescribeQuorum, version, &request)
                    .await
                else {
                    break;
                };
                let mut leader = None;
                for t in response.topics.iter() {
                    for p in t.partitions.iter() {
                        if p.leader_id >= 0 {
                            leader = Some(p.leader_id);
                        }
                    }
                }
                if let Some(id) = leader {
                    let ms = epoch_us().saturating_sub(since) as f64 / 1000.0;
                    println!("leader id={id} ms={ms:.1} polls={polls} address={address}");
                    return Ok(());
                }
                if response.error_code != 0 {
                    break;
                }
            }
        }
    }
    Err(format!(
        "no leader within {} s ({polls} polls)",
        limit.as_secs()
    ))
}

/// `--writer`: `--concurrency` connections, each sending one-topic
/// CreateTopics (1 partition, RF 3) back to back, for `--for-secs` or until
/// `--count` topics, SIGTERM or SIGINT. A connection whose controller
/// answers NOT_CONTROLLER, fails or closes is replaced at once by one to the
/// next bootstrap server (no pause: the measure is the servers' failover,
/// not a client backoff); a failed call moves on to the next topic name.
/// With a `--gap-us`, a connection pauses that long after each committed
/// call (outside the measured latency).
/// Each committed call is one line of `--samples-out`: `END_US LATENCY_US
/// TASK ADDRESS` (END_US: the answer's arrival, microseconds since the
/// epoch). Prints `writer commits=N errors=E seconds=S topics_per_s=R
/// p50_us=.. p99_us=.. max_us=..`.
async fn writer(args: &Args, job: &WriterJob) -> Result<()> {
    use std::io::Write as _;
    use tokio::signal::unix::{signal, SignalKind};
    let started = Instant::now();
    let deadline = started + job.limit;
    let out = match &job.samples_out {
        Some(path) => Some(Arc::new(Mutex::new(
            std::fs::File::create(path).map_err(|e| format!("{path}: {e}"))?,
        ))),
        None => None,
    };
    let issued = Arc::new(AtomicUsize::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    let latencies = Arc::new(Mutex::new(Vec::<u64>::new()));
    let errors = Arc::new(AtomicUsize::new(0));
    let one = |prefix: String| TopicsJob {
        create: true,
        prefix,
        count: 1,
        partitions: 1,
        batch: 1,
    };
    let mut tasks = Vec::new();
    for task in 0..job.concurrency {
        let bootstrap = args.bootstrap.clone();
        let prefix = format!("{}{task}-", job.prefix);
        let job_one = one(prefix.clone());
        let (out, issued, stop, latencies, errors) = (
            out.clone(),
            issued.clone(),
            stop.clone(),
            latencies.clone(),
            errors.clone(),
        );
        let count = job.count;
        let gap = job.gap;
        tasks.push(tokio::spawn(async move {
            let mut conn: Option<Conn> = None;
            let mut next = task;
            let mut i = 0u64;
            while Instant::now() < deadline && !stop.load(Ordering::Acquire) {
                if count.is_some_and(|c| issued.load(Ordering::Acquire) >= c) {
                    break;
                }
                let mut c = match conn.take() {
                    Some(c) => c,
                    None => {
                        let address = &bootstrap[next % bootstrap.len()];
                        next += 1;
                        match Conn::connect_plain(address, "bench-writer").await {
                            Ok(c) => c,
                            Err(_) => {
                                if next % bootstrap.len() == 0 {
                                    tokio::time::sleep(Duration::from_millis(1)).await;
                                }
                                continue;
                            }
                        }
                    }
                };
                let name = [format!("{prefix}{i}")];
                let t0 = Instant::now();
                match topics_call(&mut c, &job_one, &name).await {
                    Ok(true) => {
                        let us = u64::try_from(t0.elapsed().as_micros()).unwrap_or(u64::MAX);
                        let end = epoch_us();
                        issued.fetch_add(1, Ordering::AcqRel);
                        if let Some(out) = &out {
                            let line = format!("{end} {us} {task} {}\n", c.address);
                            if let Ok(mut f) = out.lock() {
                                let _ = f.write_all(line.as_bytes());
                            }
                        }
                        if let Ok(mut l) = latencies.lock() {
                            l.push(us);
                        }
                        i += 1;
                        conn = Some(c);
                        if !gap.is_zero() {
                            tokio::time::sleep(gap).await;
                        }
                    }
                    Ok(false) => {}
                    Err(_) => {
                        errors.fetch_add(1, Ordering::AcqRel);
                        i += 1;
                    }
                }
            }
        }));
    }
    let mut term = signal(SignalKind::terminate()).map_err(|e| format!("SIGTERM handler: {e}"))?;
    let mut int = signal(SignalKind::interrupt()).map_err(|e| format!("SIGINT handler: {e}"))?;
    let all = futures_join(tasks);
    tokio::pin!(all);
    tokio::select! {
        _ = &mut all => {}
        _ = term.recv() => stop.store(true, Ordering::Release),
        _ = int.recv() => stop.store(true, Ordering::Release),
    }
    if stop.load(Ordering::Acquire) {
        let _ = tokio::time::timeout(Duration::from_secs(70), all).await;
    }
    let seconds = started.elapsed().as_secs_f64();
    let mut sorted = latencies
        .lock()
        .map_err(|_| "latencies poisoned".to_string())?
        .clone();
    sorted.sort_unstable();
    println!(
        "writer concurrency={} commits={} errors={} seconds={seconds:.3} topics_per_s={:.1} p50_us={} p99_us={} max_us={}",
        job.concurrency,
        sorted.len(),
        errors.load(Ordering::Acquire),
        sorted.len() as f64 / seconds.max(1e-6),
        percentile(&sorted, 0.5),
        percentile(&sorted, 0.99),
        sorted.last().copied().unwrap_or(0)
    );
    if sorted.is_empty() {
        return Err("no CreateTopics call was committed".into());
    }
    Ok(())
}

/// Waits for every task (a panicked task is ignored: its samples stand).
async fn futures_join(tasks: Vec<tokio::task::JoinHandle<()>>) {
    for t in tasks {
        let _ = t.await;
    }
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("broker_load: {e}");
            return ExitCode::from(2);
        }
    };
    // One thread: the generator shares the machine with the controllers.
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            eprintln!("broker_load: {e}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(run(args)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("broker_load: {e}");
            ExitCode::FAILURE
        }
    }
}
