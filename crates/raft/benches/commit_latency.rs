//! Commit latency of a three-voter quorum over real files, inline fsync
//! against fsync on the driver's I/O thread ([`FlushMode`]).
//!
//! Each voter runs as `kraft server` does: its own OS thread with one
//! current-thread tokio runtime holding the driver, a [`DiskLog`] and
//! `quorum-state` in its own directory (fsynced for real), and a TCP
//! listener on loopback that answers ApiVersions itself and hands KRaft
//! requests to the driver. A writer proposes one 100-byte record at a time
//! to the leader and waits for it to commit; meanwhile a prober sends
//! ApiVersions to the leader's listener back to back, so a runtime blocked
//! in an fsync shows as a stalled socket.
//!
//! The floor is sampled on the same filesystem while each round runs (so it
//! sees the same disk): the p50 of writing and fsyncing a 4 KiB append,
//! plus the p50 loopback round trip of a small message. A commit cannot
//! beat it by much: a follower must receive the record, fsync it and
//! acknowledge it. The fsync of an append the size of one committed batch
//! is shown too ("rec fsync"). Results are p50/p99 commit latencies and
//! their ratios to the floor, per round (the modes alternate) and pooled.
//!
//! `cargo bench -p kraft-raft --bench commit_latency`. Environment:
//! `KRAFT_BENCH_DIR` (where the logs go; default the system temp dir),
//! `KRAFT_BENCH_COMMITS` (per round, default 2000), `KRAFT_BENCH_ROUNDS`
//! (rounds per mode, alternating, default 2).

#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener as StdListener, TcpStream as StdStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::{Bytes, BytesMut};
use kraft_protocol::frame::{FrameDecoder, DEFAULT_MAX_FRAME_SIZE};
use kraft_protocol::header::{decode_response, encode_request_frame};
use kraft_protocol::messages::api_versions_request::ApiVersionsRequest;
use kraft_protocol::messages::request_header::RequestHeader;
use kraft_protocol::{ApiKey, RequestBody, StrBytes};
use kraft_raft::{Endpoints, FlushMode, KRaftVersionRange, ReplicaKey, Uuid, VoterNode, VoterSet};

#[path = "support/voter.rs"]
mod voter;
use voter::{start_voter, Voter, VoterSpec};

const VOTERS: usize = 3;
const RECORD_BYTES: usize = 100;
const WARMUP_COMMITS: usize = 100;

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Latencies in microseconds, sorted.
struct Samples(Vec<f64>);

impl Samples {
    fn new(mut values: Vec<f64>) -> Self {
        values.sort_by(f64::total_cmp);
        Samples(values)
    }

    fn quantile(&self, q: f64) -> f64 {
        if self.0.is_empty() {
            return f64::NAN;
        }
        let i = ((self.0.len() - 1) as f64 * q).round() as usize;
        self.0[i]
    }

    fn max(&self) -> f64 {
        self.0.last().copied().unwrap_or(f64::NAN)
    }
}

fn micros(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

/// fsync latencies sampled while a round runs, on the same filesystem.
struct FsyncSamples {
    /// Write and fsync of a 4 KiB append.
    block: Vec<f64>,
    /// Write and fsync of an append the size of one committed batch.
    record: Vec<f64>,
}

/// Samples the fsync floor every few milliseconds until `stop`, so that the
/// floor sees the same disk as the commits it is compared with.
fn sample_fsync(dir: &Path, stop: Arc<AtomicBool>) -> FsyncSamples {
    let open = |name: &str| {
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(dir.join(name))
            .expect("probe file")
    };
    let mut block_file = open("fsync-probe-block");
    let mut record_file = open("fsync-probe-record");
    let block = [0x5au8; 4096];
    let record = [0x5au8; RECORD_BYTES + 70];
    let timed = |file: &mut std::fs::File, data: &[u8]| {
        let start = Instant::now();
        file.write_all(data).expect("write");
        file.sync_data().expect("fsync");
        micros(start.elapsed())
    };
    let mut samples = FsyncSamples {
        block: Vec::new(),
        record: Vec::new(),
    };
    while !stop.load(Ordering::Relaxed) || samples.block.len() < 50 {
        samples.block.push(timed(&mut block_file, &block));
        samples.record.push(timed(&mut record_file, &record));
        std::thread::sleep(Duration::from_millis(5));
    }
    let _ = std::fs::remove_file(dir.join("fsync-probe-block"));
    let _ = std::fs::remove_file(dir.join("fsync-probe-record"));
    samples
}

/// Round trip of a 64-byte message over loopback TCP.
fn loopback_rtt() -> Samples {
    let listener = StdListener::bind("127.0.0.1:0").expect("bind");
    let addr = listener.local_addr().expect("addr");
    let echo = std::thread::spawn(move || {
        let (mut stream, _) = listener.accept().expect("accept");
        stream.set_nodelay(true).expect("nodelay");
        let mut buf = [0u8; 64];
        while stream.read_exact(&mut buf).is_ok() {
            if stream.write_all(&buf).is_err() {
                return;
            }
        }
    });
    let mut stream = StdStream::connect(addr).expect("connect");
    stream.set_nodelay(true).expect("nodelay");
    let mut buf = [7u8; 64];
    let samples = (0..2000)
        .map(|_| {
            let start = Instant::now();
            stream.write_all(&buf).expect("send");
            stream.read_exact(&mut buf).expect("receive");
            micros(start.elapsed())
        })
        .collect();
    drop(stream);
    let _ = echo.join();
    Samples::new(samples)
}

/// Sends ApiVersions back to back to `address` until `stop`; returns the
/// round trips.
fn probe(address: SocketAddr, stop: Arc<AtomicBool>) -> Samples {
    let mut stream = StdStream::connect(address).expect("connect the prober");
    stream.set_nodelay(true).expect("nodelay");
    let mut decoder = FrameDecoder::new(DEFAULT_MAX_FRAME_SIZE);
    let mut buf = BytesMut::new();
    let mut chunk = vec![0u8; 64 * 1024];
    let mut samples = Vec::new();
    let mut correlation_id = 0;
    while !stop.load(Ordering::Relaxed) {
        correlation_id += 1;
        let header = RequestHeader {
            request_api_key: ApiKey::ApiVersions.id(),
            request_api_version: 3,
            correlation_id,
            client_id: Some(StrBytes::from_static("prober")),
            ..Default::default()
        };
        let body = RequestBody::ApiVersions(ApiVersionsRequest {
            client_software_name: StrBytes::from_static("prober"),
            client_software_version: StrBytes::from_static("1"),
            ..Default::default()
        });
        let mut out = Vec::new();
        encode_request_frame(&mut out, &header, &body).expect("encode");
        let start = Instant::now();
        stream.write_all(&out).expect("send a probe");
        let frame: Bytes = loop {
            if let Some(frame) = decoder.decode(&mut buf).expect("frame") {
                break frame;
            }
            let n = stream.read(&mut chunk).expect("read a probe answer");
            assert!(n > 0, "the leader closed the probe connection");
            buf.extend_from_slice(&chunk[..n]);
        };
        samples.push(micros(start.elapsed()));
        let (answered, _) = decode_response(frame, ApiKey::ApiVersions, 3).expect("decode");
        assert_eq!(answered, correlation_id);
    }
    Samples::new(samples)
}

struct RoundResult {
    commits: Samples,
    probes: Samples,
    fsync: FsyncSamples,
}

fn run_round(base: &Path, mode: FlushMode, commits: usize) -> RoundResult {
    let dir = base.join(format!("{mode:?}-{}", kraft_now_nanos()));
    let listeners: Vec<StdListener> = (0..VOTERS)
        .map(|_| StdListener::bind("127.0.0.1:0").expect("bind"))
        .collect();
    let voters = VoterSet::new(listeners.iter().enumerate().map(|(i, l)| {
        VoterNode::new(
            ReplicaKey::without_directory(i as i32 + 1),
            Endpoints::single(
                "CONTROLLER",
                "127.0.0.1",
                l.local_addr().expect("addr").port(),
            ),
            KRaftVersionRange { min: 0, max: 1 },
        )
    }));
    let nodes: Vec<Voter> = listeners
        .into_iter()
        .enumerate()
        .map(|(i, l)| {
            let id = i as i32 + 1;
            start_voter(VoterSpec {
                id,
                directory_id: Uuid::nil(),
                cluster_id: "bench-cluster-id-000000".into(),
                log_dir: dir.join(format!("node-{id}")).join("__cluster_metadata-0"),
                listener: l,
                voters: voters.clone(),
                mode,
            })
            .expect("voter")
        })
        .collect();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("client runtime");
    let result = runtime.block_on(async {
        let leader = tokio::time::timeout(Duration::from_secs(30), async {
            loop {
                let ready = nodes.iter().find(|n| {
                    let s = n.handle.status();
                    s.is_leader && s.high_watermark.is_some()
                });
                if let Some(node) = ready {
                    return node;
                }
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        })
        .await
        .expect("a leader is elected");
        let record = Bytes::from(vec![0x42u8; RECORD_BYTES]);
        for _ in 0..WARMUP_COMMITS {
            leader
                .handle
                .propose(vec![record.clone()])
                .await
                .expect("warm-up commit");
        }
        let stop = Arc::new(AtomicBool::new(false));
        let prober = {
            let stop = stop.clone();
            let address = leader.address;
            std::thread::spawn(move || probe(address, stop))
        };
        let sampler = {
            let stop = stop.clone();
            let dir = dir.clone();
            std::thread::spawn(move || sample_fsync(&dir, stop))
        };
        let mut latencies = Vec::with_capacity(commits);
        for _ in 0..commits {
            let start = Instant::now();
            leader
                .handle
                .propose(vec![record.clone()])
                .await
                .expect("commit");
            latencies.push(micros(start.elapsed()));
        }
        stop.store(true, Ordering::Relaxed);
        let probes = prober.join().expect("prober");
        let fsync = sampler.join().expect("fsync sampler");
        RoundResult {
            commits: Samples::new(latencies),
            probes,
            fsync,
        }
    });
    drop(nodes);
    let _ = std::fs::remove_dir_all(&dir);
    result
}

fn kraft_now_nanos() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos())
}

fn main() {
    // `cargo test --benches` runs bench targets without `--bench`: nothing
    // to do there.
    if !std::env::args().any(|a| a == "--bench") {
        println!("commit_latency: run with `cargo bench -p kraft-raft --bench commit_latency`");
        return;
    }
    let base = std::env::var_os("KRAFT_BENCH_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(std::env::temp_dir)
        .join(format!("kraft-commit-latency-{}", std::process::id()));
    std::fs::create_dir_all(&base).expect("bench directory");
    let commits = env_usize("KRAFT_BENCH_COMMITS", 2000);
    let rounds = env_usize("KRAFT_BENCH_ROUNDS", 4);
    let rtt = loopback_rtt();
    println!(
        "logs in {}; loopback RTT p50 {:.0} µs; floor = fsync of a 4 KiB append (p50, sampled during the round) + RTT",
        base.display(),
        rtt.quantile(0.5)
    );
    println!(
        "{:<11} {:>5} {:>9} {:>9} {:>8} {:>8} {:>9} {:>10} {:>10} {:>10}",
        "round",
        "n",
        "p50 µs",
        "p99 µs",
        "p50/fl",
        "p99/fl",
        "floor µs",
        "rec fsync",
        "probe p99",
        "probe max"
    );
    let modes = [FlushMode::Inline, FlushMode::IoThread];
    let mut pooled: Vec<Pooled> = modes.iter().map(|_| Pooled::default()).collect();
    for round in 0..rounds {
        // Alternate which mode goes first, so drift hits both alike.
        let order = if round % 2 == 0 { [0, 1] } else { [1, 0] };
        for i in order {
            let mode = modes[i];
            let r = run_round(&base, mode, commits);
            let block = Samples::new(r.fsync.block.clone());
            let record = Samples::new(r.fsync.record.clone());
            print_row(
                &format!("{mode:?}#{round}"),
                &r.commits,
                &r.probes,
                block.quantile(0.5) + rtt.quantile(0.5),
                record.quantile(0.5),
            );
            let p = &mut pooled[i];
            p.commits.extend_from_slice(&r.commits.0);
            p.probes.extend_from_slice(&r.probes.0);
            p.block_fsync.extend_from_slice(&block.0);
            p.record_fsync.extend_from_slice(&record.0);
        }
    }
    println!("all rounds:");
    for (mode, p) in modes.iter().zip(pooled) {
        let block = Samples::new(p.block_fsync);
        let record = Samples::new(p.record_fsync);
        print_row(
            &format!("{mode:?}"),
            &Samples::new(p.commits),
            &Samples::new(p.probes),
            block.quantile(0.5) + rtt.quantile(0.5),
            record.quantile(0.5),
        );
    }
    let _ = std::fs::remove_dir_all(&base);
}

/// Every round's samples of one mode.
#[derive(Default)]
struct Pooled {
    commits: Vec<f64>,
    probes: Vec<f64>,
    block_fsync: Vec<f64>,
    record_fsync: Vec<f64>,
}

fn print_row(label: &str, commits: &Samples, probes: &Samples, floor: f64, record_fsync: f64) {
    println!(
        "{:<11} {:>5} {:>9.0} {:>9.0} {:>8.2} {:>8.2} {:>9.0} {:>10.0} {:>10.0} {:>10.0}",
        label,
        commits.0.len(),
        commits.quantile(0.5),
        commits.quantile(0.99),
        commits.quantile(0.5) / floor,
        commits.quantile(0.99) / floor,
        floor,
        record_fsync,
        probes.quantile(0.99),
        probes.max()
    );
}
