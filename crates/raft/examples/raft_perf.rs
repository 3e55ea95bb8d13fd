//! kraft-rs's counterpart of Kafka 4.4's `kafka.tools.TestRaftServer`: one
//! KRaft voter of a static quorum, driven directly (no controller on top),
//! whose leader writes records as fast as a throttle allows and reports the
//! committed throughput and the commit latency of its own records.
//!
//! ```text
//! raft_perf --config FILE --replica-directory-id ID [--throughput RECORDS_PER_S]
//!           [--record-size BYTES] [--max-batch-bytes BYTES] [--max-in-flight-bytes BYTES]
//!           [--flush-mode io-thread|inline]
//! ```
//!
//! The flags and the config file are TestRaftServer's: `node.id`,
//! `listeners` (`CONTROLLER://host:port`), `controller.quorum.voters`
//! (`id@host:port,...`) and `metadata.log.dir` (else the first of
//! `log.dirs`), where the log goes in `__raft_performance_test-0`; no
//! format step. One process per node: the voter runs as `kraft server` runs
//! it (its own thread and current-thread runtime, a real log fsynced with
//! the default [`FlushMode::IoThread`], a TCP listener), shared with
//! `benches/commit_latency.rs`.
//!
//! The workload is TestRaftServer's: while this node is the leader, the
//! records due by the throttle (`--throughput` records/s from the moment
//! leadership is claimed, default 5000; a huge value is unthrottled) are
//! appended without waiting for their commit. Kafka's leader gathers
//! records in its accumulator and writes a batch when the linger expires;
//! here every record due while the previous append call runs goes into the
//! next call, one batch of at most `--max-batch-bytes` (default 1 MiB, the
//! core's fetch size), so batches form under load as they do for Kafka with
//! a linger of 0. At most `--max-in-flight-bytes` of records (default
//! 4 MiB) are appended and not yet committed: past it the leader waits for
//! commits, as a state machine on top must (Kafka's accumulator refuses
//! appends past its batch limit, which ends TestRaftServer's workload);
//! without it an offered rate above what the quorum commits only makes the
//! leader's appends take the CPU its followers need. The default keeps the
//! followers within the leader's tail cache (32 MiB of memory holds about
//! 14 MiB of 256-byte records with their encoding); with 16 MiB in flight
//! an overloaded leader reads its segments for them and commits about a
//! fifth less. A record's latency
//! runs from its append call to its commit. Every 5 s the leader prints TestRaftServer's line, with the
//! figures defined as Kafka's metrics define them (a rate over two 30 s
//! samples, latency percentiles over the same samples in 1 ms buckets
//! capped at 249 ms), so that one parser reads both:
//!
//! ```text
//! Throughput (bytes/second): 123.45, Latency (ms): 1.0 p75 2.0 p99 3.0 p999
//! ```
//!
//! The moment this node claims leadership is logged on stderr
//! (`leader epoch=E claimed_unix_ms=T`). SIGTERM or SIGINT stops it.

use std::collections::HashMap;
use std::net::TcpListener as StdListener;
use std::path::PathBuf;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use base64::Engine;
use bytes::Bytes;
use kraft_raft::{
    AppendCondition, DriverError, Endpoints, FlushMode, KRaftVersionRange, PendingAppend,
    RaftHandle, ReplicaKey, Uuid, VoterNode, VoterSet,
};
use std::sync::Arc;
use tokio::sync::{mpsc, OwnedSemaphorePermit, Semaphore};

#[path = "../benches/support/voter.rs"]
mod voter;
use voter::{start_voter, VoterSpec};

/// TestRaftServer's cluster id (`Uuid.ZERO_UUID`).
const CLUSTER_ID: &str = "AAAAAAAAAAAAAAAAAAAAAA";
/// TestRaftServer's partition directory.
const LOG_DIR_NAME: &str = "__raft_performance_test-0";
/// How often the leader prints its line (TestRaftServer's `printIntervalMs`).
const PRINT_INTERVAL_MS: i64 = 5000;

/// Milliseconds since the Unix epoch.
fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

/// The command line.
struct Args {
    config: PathBuf,
    directory_id: Uuid,
    throughput: u64,
    record_size: usize,
    max_batch_bytes: usize,
    max_in_flight_bytes: usize,
    flush_mode: FlushMode,
}

const USAGE: &str = "usage: raft_perf --config FILE --replica-directory-id ID [--throughput RECORDS_PER_S] [--record-size BYTES] [--max-batch-bytes BYTES] [--max-in-flight-bytes BYTES] [--flush-mode io-thread|inline]";

/// Parses a directory id in Kafka's text form (unpadded base64url of 16
/// bytes) or as a hyphenated UUID.
fn parse_directory_id(text: &str) -> Result<Uuid, String> {
    if let Ok(id) = Uuid::parse_str(text) {
        return Ok(id);
    }
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(text)
        .map_err(|e| format!("--replica-directory-id {text}: {e}"))?;
    let bytes: [u8; 16] = bytes
        .try_into()
        .map_err(|_| format!("--replica-directory-id {text}: not 16 bytes"))?;
    Ok(Uuid::from_bytes(bytes))
}

fn parse_args() -> Result<Args, String> {
    let mut config = None;
    let mut directory_id = None;
    let mut throughput = 5000u64;
    let mut record_size = 256usize;
    let mut max_batch_bytes = 1024 * 1024usize;
    let mut max_in_flight_bytes = 4 * 1024 * 1024usize;
    let mut flush_mode = FlushMode::IoThread;
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        if flag == "--help" || flag == "-h" {
            return Err(USAGE.to_string());
        }
        let value = args
            .next()
            .ok_or_else(|| format!("{flag} needs a value\n{USAGE}"))?;
        let number = |v: &str| {
            v.parse::<u64>()
                .ok()
                .filter(|n| *n > 0)
                .ok_or_else(|| format!("{flag} {v}: not a positive number"))
        };
        match flag.as_str() {
            "--config" => config = Some(PathBuf::from(value)),
            "--replica-directory-id" => directory_id = Some(parse_directory_id(&value)?),
            "--throughput" => throughput = number(&value)?,
            "--record-size" => record_size = number(&value)? as usize,
            "--max-batch-bytes" => max_batch_bytes = number(&value)? as usize,
            "--max-in-flight-bytes" => max_in_flight_bytes = number(&value)? as usize,
            "--flush-mode" => {
                flush_mode = match value.as_str() {
                    "io-thread" => FlushMode::IoThread,
                    "inline" => FlushMode::Inline,
                    other => return Err(format!("--flush-mode {other}: io-thread or inline")),
                }
            }
            other => return Err(format!("unknown flag {other}\n{USAGE}")),
        }
    }
    Ok(Args {
        config: config.ok_or_else(|| format!("--config is required\n{USAGE}"))?,
        directory_id: directory_id
            .ok_or_else(|| format!("--replica-directory-id is required\n{USAGE}"))?,
        throughput,
        record_size,
        max_batch_bytes,
        max_in_flight_bytes,
        flush_mode,
    })
}

/// What the node takes from the properties file.
struct NodeConfig {
    node_id: i32,
    host: String,
    port: u16,
    voters: VoterSet,
    log_dir: PathBuf,
}

/// Splits `host:port` (a bracketed IPv6 host allowed).
fn host_port(text: &str) -> Result<(String, u16), String> {
    let (host, port) = text
        .rsplit_once(':')
        .ok_or_else(|| format!("{text}: not host:port"))?;
    let port = port
        .parse::<u16>()
        .map_err(|_| format!("{text}: bad port"))?;
    let host = host.trim_start_matches('[').trim_end_matches(']');
    Ok((host.to_string(), port))
}

fn read_config(path: &PathBuf) -> Result<NodeConfig, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let props: HashMap<&str, &str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#') && !l.starts_with('!'))
        .filter_map(|l| l.split_once('='))
        .map(|(k, v)| (k.trim(), v.trim()))
        .collect();
    let get = |key: &str| {
        props
            .get(key)
            .copied()
            .ok_or_else(|| format!("{}: {key} is missing", path.display()))
    };
    let node_id = get("node.id")?
        .parse::<i32>()
        .map_err(|_| "node.id: not a number".to_string())?;
    let listener = get("listeners")?
        .split(',')
        .next()
        .unwrap_or_default()
        .trim();
    let (_, address) = listener
        .split_once("://")
        .ok_or_else(|| format!("listeners={listener}: not NAME://host:port"))?;
    let (host, port) = host_port(address)?;
    let mut nodes = Vec::new();
    for voter in get("controller.quorum.voters")?.split(',') {
        let (id, address) = voter
            .trim()
            .split_once('@')
            .ok_or_else(|| format!("controller.quorum.voters: {voter}: not id@host:port"))?;
        let id = id
            .parse::<i32>()
            .map_err(|_| format!("controller.quorum.voters: {voter}: bad id"))?;
        let (voter_host, voter_port) = host_port(address)?;
        nodes.push(VoterNode::new(
            ReplicaKey::without_directory(id),
            Endpoints::single("CONTROLLER", voter_host, voter_port),
            KRaftVersionRange { min: 0, max: 1 },
        ));
    }
    let dir = match props.get("metadata.log.dir") {
        Some(dir) => *dir,
        None => get("log.dirs")?.split(',').next().unwrap_or_default(),
    };
    if dir.is_empty() {
        return Err("metadata.log.dir / log.dirs: empty".into());
    }
    Ok(NodeConfig {
        node_id,
        host,
        port,
        voters: VoterSet::new(nodes),
        log_dir: PathBuf::from(dir).join(LOG_DIR_NAME),
    })
}

/// One sample of Kafka's `SampledStat`: the bytes (`Meter`'s windowed sum)
/// and the latency histogram (`Percentiles`, 250 buckets of 1 ms) recorded
/// while it was current.
#[derive(Clone)]
struct Sample {
    start_ms: i64,
    last_event_ms: i64,
    events: u64,
    bytes: f64,
    histogram: Vec<u64>,
}

/// Buckets of TestRaftServer's latency histogram (`new Percentiles(1000,
/// 250.0, CONSTANT, ...)`: 1000 bytes of 4-byte buckets over 0..250 ms).
const BUCKETS: usize = 250;
/// Kafka's `MetricConfig` defaults: two samples of 30 s.
const WINDOW_MS: i64 = 30_000;
const SAMPLES: usize = 2;

impl Sample {
    fn new(now: i64) -> Self {
        Sample {
            start_ms: now,
            last_event_ms: now,
            events: 0,
            bytes: 0.0,
            histogram: vec![0; BUCKETS],
        }
    }
}

/// TestRaftServer's `WriteStats`, with the arithmetic of Kafka's `Rate`
/// and `Percentiles` over `SampledStat` (default `MetricConfig`).
struct WriteStats {
    samples: Vec<Sample>,
    current: usize,
    last_report_ms: i64,
}

impl WriteStats {
    fn new(now: i64) -> Self {
        WriteStats {
            samples: Vec::new(),
            current: 0,
            last_report_ms: now,
        }
    }

    /// Records `records` records of `bytes` bytes each committed `latency_ms`
    /// after their append, and prints the line when it is due.
    fn record(&mut self, latency_ms: i64, records: u64, bytes: usize, now: i64) {
        if self.samples.is_empty() {
            self.samples.push(Sample::new(now));
            self.current = 0;
        }
        if now - self.samples[self.current].start_ms >= WINDOW_MS {
            self.current = (self.current + 1) % (SAMPLES + 1);
            if self.current >= self.samples.len() {
                self.samples.push(Sample::new(now));
            } else {
                self.samples[self.current] = Sample::new(now);
            }
        }
        let sample = &mut self.samples[self.current];
        sample.bytes += (records as f64) * bytes as f64;
        let bucket = (latency_ms.max(0) as usize).min(BUCKETS - 1);
        sample.histogram[bucket] += records;
        sample.events += records;
        sample.last_event_ms = now;
        if now - self.last_report_ms >= PRINT_INTERVAL_MS {
            let rate = self.rate(now);
            let (p75, p99, p999) = (
                self.percentile(now, 0.75),
                self.percentile(now, 0.99),
                self.percentile(now, 0.999),
            );
            println!(
                "Throughput (bytes/second): {rate:.2}, Latency (ms): {p75:.1} p75 {p99:.1} p99 {p999:.1} p999"
            );
            self.last_report_ms = now;
        }
    }

    /// Kafka's `purgeObsoleteSamples`.
    fn purge(&mut self, now: i64) {
        for sample in &mut self.samples {
            if now - sample.last_event_ms >= SAMPLES as i64 * WINDOW_MS {
                *sample = Sample::new(now);
            }
        }
    }

    /// Kafka's `Rate.measure`: the retained bytes over the window size.
    fn rate(&mut self, now: i64) -> f64 {
        self.purge(now);
        let oldest = self.samples.iter().map(|s| s.start_ms).min().unwrap_or(now);
        let mut elapsed = now - oldest;
        let full = elapsed / WINDOW_MS;
        let min_full = SAMPLES as i64 - 1;
        if full < min_full {
            elapsed += (min_full - full) * WINDOW_MS;
        }
        let bytes: f64 = self.samples.iter().map(|s| s.bytes).sum();
        bytes / (elapsed.max(1) as f64 / 1000.0)
    }

    /// Kafka's `Percentiles.value`: the first bucket (in ms) past `q`.
    fn percentile(&mut self, now: i64, q: f64) -> f64 {
        self.purge(now);
        let count: u64 = self.samples.iter().map(|s| s.events).sum();
        if count == 0 {
            return f64::NAN;
        }
        let mut sum = 0u64;
        for bucket in 0..BUCKETS {
            for sample in &self.samples {
                sum += sample.histogram[bucket];
                if sum as f64 / count as f64 > q {
                    return bucket as f64;
                }
            }
        }
        f64::INFINITY
    }
}

/// Records appended in one call, waiting for their commit.
struct InFlight {
    pending: PendingAppend,
    appended_ms: i64,
    records: u64,
    /// The records' share of `--max-in-flight-bytes`, given back once they
    /// are committed (or lost).
    _window: OwnedSemaphorePermit,
}

/// Waits for the commits in append order and feeds the stats.
async fn committer(mut appends: mpsc::UnboundedReceiver<InFlight>, record_size: usize) {
    let mut stats = WriteStats::new(now_ms());
    while let Some(append) = appends.recv().await {
        // A batch of a lost epoch fails (TestRaftServer counts only the
        // batches of the epoch it claimed).
        if append.pending.committed().await.is_ok() {
            let now = now_ms();
            stats.record(now - append.appended_ms, append.records, record_size, now);
        }
    }
}

/// TestRaftServer's throttle: the number of records due `elapsed_ms` after
/// the start (record n is due once `round(n / rate * 1000) <= elapsed`).
fn records_due(throughput: u64, elapsed_ms: i64) -> u64 {
    let due = (elapsed_ms.max(0) as f64 + 0.5) * throughput as f64 / 1000.0;
    if due >= u64::MAX as f64 {
        u64::MAX
    } else {
        due as u64
    }
}

/// Leads while this node is the leader of `epoch`: appends the records due,
/// hands each append to the committer.
async fn lead(
    handle: &RaftHandle,
    epoch: i32,
    args: &Args,
    appends: &mpsc::UnboundedSender<InFlight>,
) -> Result<(), DriverError> {
    let mut status = handle.watch_status();
    let payload = Bytes::from(vec![0u8; args.record_size]);
    let max_records = (args.max_batch_bytes / (args.record_size + 16)).max(1) as u64;
    let window_records = (args.max_in_flight_bytes / args.record_size.max(1)).max(1);
    let window_records = u32::try_from(window_records).unwrap_or(u32::MAX);
    let max_records = max_records.min(u64::from(window_records));
    let window = Arc::new(Semaphore::new(window_records as usize));
    let start = now_ms();
    let mut count = 0u64;
    loop {
        {
            let s = status.borrow_and_update();
            if !s.is_leader || s.leader.epoch != epoch {
                return Ok(());
            }
        }
        let now = now_ms();
        let due = records_due(args.throughput, now - start).saturating_sub(count);
        if due == 0 {
            let next_ms = ((count + 1) as f64 * 1000.0 / args.throughput as f64).round() as i64;
            let wait = (start + next_ms - now).max(1) as u64;
            tokio::select! {
                _ = tokio::time::sleep(Duration::from_millis(wait)) => {}
                changed = status.changed() => if changed.is_err() { return Err(DriverError::Stopped) },
            }
            continue;
        }
        let n = due.min(max_records);
        // `n` fits the window: max_records is at most its size.
        let permits = u32::try_from(n).unwrap_or(u32::MAX);
        let permit = tokio::select! {
            p = window.clone().acquire_many_owned(permits) => match p {
                Ok(p) => p,
                Err(_) => return Err(DriverError::Stopped),
            },
            changed = status.changed() => {
                if changed.is_err() {
                    return Err(DriverError::Stopped);
                }
                continue;
            }
        };
        let now = now_ms();
        let records = vec![payload.clone(); n as usize];
        let condition = AppendCondition {
            epoch: Some(epoch),
            base_offset: None,
        };
        match handle.append(records, condition).await {
            Ok(pending) => {
                count += n;
                let in_flight = InFlight {
                    pending,
                    appended_ms: now,
                    records: n,
                    _window: permit,
                };
                if appends.send(in_flight).is_err() {
                    return Err(DriverError::Stopped);
                }
            }
            Err(DriverError::Stopped) => return Err(DriverError::Stopped),
            // Not the leader of this epoch any more: TestRaftServer sleeps 10 ms.
            Err(_) => tokio::time::sleep(Duration::from_millis(10)).await,
        }
    }
}

/// Follows the node's status; leads whenever it is the leader.
async fn workload(handle: RaftHandle, args: Args, node_id: i32) -> Result<(), DriverError> {
    let (tx, rx) = mpsc::unbounded_channel();
    tokio::spawn(committer(rx, args.record_size));
    let mut status = handle.watch_status();
    loop {
        let claim = {
            let s = status.borrow_and_update();
            (s.is_leader && s.high_watermark.is_some()).then_some(s.leader.epoch)
        };
        if let Some(epoch) = claim {
            eprintln!(
                "raft_perf: node {node_id} leader epoch={epoch} claimed_unix_ms={}",
                now_ms()
            );
            lead(&handle, epoch, &args, &tx).await?;
            continue;
        }
        if status.changed().await.is_err() {
            return Err(DriverError::Stopped);
        }
    }
}

fn run() -> Result<(), String> {
    let args = parse_args()?;
    let config = read_config(&args.config)?;
    let listener = StdListener::bind((config.host.as_str(), config.port))
        .map_err(|e| format!("bind {}:{}: {e}", config.host, config.port))?;
    let node = start_voter(VoterSpec {
        id: config.node_id,
        directory_id: args.directory_id,
        cluster_id: CLUSTER_ID.into(),
        log_dir: config.log_dir.clone(),
        listener,
        voters: config.voters.clone(),
        mode: args.flush_mode,
    })
    .map_err(|e| format!("start the voter: {e}"))?;
    eprintln!(
        "raft_perf: node {} on {} ({:?}), log in {}, throughput {} records/s of {} bytes",
        config.node_id,
        node.address,
        args.flush_mode,
        config.log_dir.display(),
        args.throughput,
        args.record_size
    );
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("runtime: {e}"))?;
    let handle = node.handle.clone();
    let result = runtime.block_on(async move {
        use tokio::signal::unix::{signal, SignalKind};
        let mut term = signal(SignalKind::terminate()).map_err(|e| e.to_string())?;
        let mut int = signal(SignalKind::interrupt()).map_err(|e| e.to_string())?;
        tokio::select! {
            _ = term.recv() => Ok(()),
            _ = int.recv() => Ok(()),
            r = workload(handle, args, config.node_id) => r.map_err(|e| e.to_string()),
        }
    });
    drop(runtime);
    drop(node);
    result
}

fn main() {
    if let Err(e) = run() {
        eprintln!("raft_perf: {e}");
        std::process::exit(if e.starts_with("usage") { 0 } else { 2 });
    }
}
