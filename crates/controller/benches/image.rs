//! Replay and snapshot cost of the metadata image, for an image of 10
//! brokers, 10,000 topics x 10 partitions (replication factor 3) and 1,000
//! ACLs, reported as ratios against a baseline measured in the same run:
//!
//! * `decode_only`: decoding every framed record value (the codec floor
//!   replay cannot beat);
//! * `replay`: decoding and applying every value to an empty image (Kafka's
//!   `MetadataDelta.replay` + `apply`), in records/s;
//! * `snapshot_write`: the image to framed values in snapshot order and a
//!   snapshot file (`to_values` + `encode_snapshot`);
//! * `snapshot_load`: a snapshot file back to an image (`decode_snapshot` +
//!   `from_snapshot_values`).
//!
//! It also prints the image's live heap bytes per partition, measured by a
//! counting allocator (the figure to set against a JVM's heap after GC): the
//! bytes the image asked the allocator for and still holds, capacity slack
//! included. Next to it, the same allocations as glibc's malloc would hold
//! them (each rounded up to its chunk: 8 bytes of header, 16-byte
//! granules, 32 bytes at least), and the process's RSS growth per
//! partition.
//!
//! After the criterion groups (only under `cargo bench`, not in the
//! `cargo test` smoke run) it prints one machine-readable line from the
//! medians of a few timed runs of each operation:
//!
//! ```text
//! kraft-rs records=... partitions=... replay_records_per_s=... replay_ms=... snapshot_write_ms=... snapshot_load_ms=... heap_bytes_per_partition=... heap_chunk_bytes_per_partition=... heap_allocations=... rss_bytes_per_partition=... snapshot_bytes=...
//! ```
//!
//! With `KRAFT_IMAGE_BENCH_DIR` set, it also writes the workload to
//! `$KRAFT_IMAGE_BENCH_DIR/records.bin` (each framed record value as a
//! big-endian `i32` length and the bytes, in log order) and that line to
//! `$KRAFT_IMAGE_BENCH_DIR/kraft-rs.txt`: `cargo xtask bench-image` has
//! Kafka's own classes (`tests/interop/.../ImageBench.java`) measure the same
//! records.

#![allow(missing_docs, clippy::unwrap_used)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::hint::black_box;
use std::sync::atomic::{AtomicIsize, Ordering};
use std::time::{Duration, Instant};

use bytes::Bytes;
use criterion::{BatchSize, Criterion, Throughput};
use kraft_controller::image::{MetadataImage, MetadataRecord};
use kraft_protocol::messages::access_control_entry_record::AccessControlEntryRecord;
use kraft_protocol::messages::config_record::ConfigRecord;
use kraft_protocol::messages::partition_record::PartitionRecord;
use kraft_protocol::messages::register_broker_record::{
    BrokerEndpoint, BrokerFeature, RegisterBrokerRecord,
};
use kraft_protocol::messages::topic_record::TopicRecord;
use kraft_protocol::Uuid;
use kraft_raft::storage::{decode_snapshot, encode_snapshot};
use kraft_raft::SnapshotControl;

/// Counts the bytes currently allocated.
struct Counting;

/// Bytes currently allocated, as the callers' layouts ask.
static LIVE: AtomicIsize = AtomicIsize::new(0);
/// The same allocations as glibc malloc chunks ([`chunk`]).
static CHUNKS: AtomicIsize = AtomicIsize::new(0);
/// How many allocations are live.
static ALLOCATIONS: AtomicIsize = AtomicIsize::new(0);

/// The size of the glibc malloc chunk (64-bit) that serves a request of
/// `size` bytes: the request and an 8-byte size header, rounded up to 16,
/// at least 32. (Requests past the mmap threshold are page-rounded instead;
/// the image makes none.)
fn chunk(size: usize) -> isize {
    ((size + 8 + 15) & !15).max(32) as isize
}

// SAFETY: every call is forwarded to the system allocator unchanged; the
// counter is only bookkeeping.
#[allow(unsafe_code)]
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LIVE.fetch_add(layout.size() as isize, Ordering::Relaxed);
        CHUNKS.fetch_add(chunk(layout.size()), Ordering::Relaxed);
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: same layout as the caller's.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size() as isize, Ordering::Relaxed);
        CHUNKS.fetch_sub(chunk(layout.size()), Ordering::Relaxed);
        ALLOCATIONS.fetch_sub(1, Ordering::Relaxed);
        // SAFETY: `ptr` came from `alloc` with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        LIVE.fetch_add(
            new_size as isize - layout.size() as isize,
            Ordering::Relaxed,
        );
        CHUNKS.fetch_add(chunk(new_size) - chunk(layout.size()), Ordering::Relaxed);
        // SAFETY: same contract as the caller's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

const BROKERS: i32 = 10;
const TOPICS: u64 = 10_000;
const PARTITIONS: i32 = 10;
const ACLS: u64 = 1_000;

fn value(record: MetadataRecord) -> Bytes {
    Bytes::from(record.encode().unwrap())
}

/// The framed records of the image, in the order a log would hold them.
fn workload() -> Vec<Bytes> {
    let mut out = vec![value(MetadataRecord::feature_level("metadata.version", 33))];
    for id in 0..BROKERS {
        out.push(value(MetadataRecord::new(
            RegisterBrokerRecord {
                broker_id: id,
                incarnation_id: Uuid::from_u64_pair(1, id as u64),
                broker_epoch: 100 + i64::from(id),
                end_points: vec![BrokerEndpoint {
                    name: "PLAINTEXT".into(),
                    host: format!("broker-{id}.example").into(),
                    port: 9092,
                    security_protocol: 0,
                    ..Default::default()
                }]
                .into(),
                features: vec![BrokerFeature {
                    name: "metadata.version".into(),
                    min_supported_version: 7,
                    max_supported_version: 33,
                    ..Default::default()
                }]
                .into(),
                rack: Some(format!("rack-{}", id % 3).into()),
                log_dirs: vec![Uuid::from_u64_pair(2, id as u64)],
                ..Default::default()
            },
            4,
        )));
    }
    for t in 0..TOPICS {
        let topic_id = Uuid::from_u64_pair(3, t + 1);
        out.push(value(MetadataRecord::new(
            TopicRecord {
                name: format!("topic-{t:05}").into(),
                topic_id,
                ..Default::default()
            },
            0,
        )));
        for p in 0..PARTITIONS {
            let replicas: Vec<i32> = (0..3).map(|r| (t as i32 + p + r) % BROKERS).collect();
            out.push(value(MetadataRecord::new(
                PartitionRecord {
                    partition_id: p,
                    topic_id,
                    directories: replicas
                        .iter()
                        .map(|b| Uuid::from_u64_pair(2, *b as u64))
                        .collect(),
                    isr: replicas.clone(),
                    leader: replicas[0],
                    replicas,
                    leader_epoch: 1,
                    partition_epoch: 1,
                    eligible_leader_replicas: Some(Vec::new()),
                    last_known_elr: Some(Vec::new()),
                    ..Default::default()
                },
                2,
            )));
        }
        if t % 10 == 0 {
            out.push(value(MetadataRecord::new(
                ConfigRecord {
                    resource_type: 2,
                    resource_name: format!("topic-{t:05}").into(),
                    name: "retention.ms".into(),
                    value: Some("86400000".into()),
                    ..Default::default()
                },
                0,
            )));
        }
    }
    for a in 0..ACLS {
        out.push(value(MetadataRecord::new(
            AccessControlEntryRecord {
                id: Uuid::from_u64_pair(4, a + 1),
                resource_type: 2,
                resource_name: format!("topic-{:05}", a % TOPICS).into(),
                pattern_type: 3,
                principal: format!("User:user-{a}").into(),
                host: "*".into(),
                operation: 3,
                permission_type: 3,
                ..Default::default()
            },
            0,
        )));
    }
    out
}

fn replay(values: &[Bytes]) -> MetadataImage {
    let mut image = MetadataImage::new();
    for (offset, v) in values.iter().enumerate() {
        image.replay_value(v.clone(), offset as i64).unwrap();
    }
    image
}

fn snapshot_file(image: &MetadataImage) -> Vec<u8> {
    let control = SnapshotControl {
        voters: None,
        kraft_version: Some(1),
    };
    encode_snapshot(1, 0, &control, image.to_values().unwrap(), 8 * 1024 * 1024)
}

fn load(file: &Bytes) -> MetadataImage {
    let contents = decode_snapshot(file.clone()).unwrap();
    MetadataImage::from_snapshot_values(contents.records, 0).unwrap()
}

/// The resident set size in bytes, from `/proc/self/statm` (0 elsewhere).
fn rss() -> i64 {
    let page = 4096;
    std::fs::read_to_string("/proc/self/statm")
        .ok()
        .and_then(|s| s.split_whitespace().nth(1)?.parse::<i64>().ok())
        .map_or(0, |pages| pages * page)
}

/// What the image costs in memory.
struct Memory {
    /// Live heap bytes per partition, as requested.
    heap: i64,
    /// The same as glibc malloc chunks, per partition.
    chunks: i64,
    /// Live allocations (all of the image).
    allocations: i64,
    /// RSS growth per partition.
    rss: i64,
}

/// What the image costs in memory. The heap figures replay fresh copies of
/// the values, so any slices of them the image keeps are counted; the
/// copies themselves are freed before the count.
fn memory(values: &[Bytes]) -> Memory {
    let partitions = i64::from(PARTITIONS) * TOPICS as i64;
    // The first clone of a `Bytes` made from a `Vec` moves it to a shared
    // buffer (a 24-byte allocation the value keeps): have every value pay
    // that here, not during the replay measured (one clone at a time, so
    // that no large buffer is freed for the replay to reuse).
    for v in values {
        drop(black_box(v.clone()));
    }
    let rss_before = rss();
    let image = replay(values);
    let rss_growth = rss() - rss_before;
    drop(image);

    let counters = || [&LIVE, &CHUNKS, &ALLOCATIONS].map(|c| c.load(Ordering::Relaxed) as i64);
    let before = counters();
    let copies: Vec<Bytes> = values.iter().map(|v| Bytes::copy_from_slice(v)).collect();
    let mut image = MetadataImage::new();
    for (offset, v) in copies.into_iter().enumerate() {
        image.replay_value(v, offset as i64).unwrap();
    }
    let after = counters();
    black_box(&image);
    drop(image);
    Memory {
        heap: (after[0] - before[0]) / partitions,
        chunks: (after[1] - before[1]) / partitions,
        allocations: after[2] - before[2],
        rss: rss_growth / partitions,
    }
}

/// The median of `runs` timed runs of `f` (after one untimed run).
fn median<T>(runs: usize, mut f: impl FnMut() -> T) -> Duration {
    black_box(f());
    let mut times: Vec<Duration> = (0..runs)
        .map(|_| {
            let start = Instant::now();
            let out = f();
            let elapsed = start.elapsed();
            drop(black_box(out));
            elapsed
        })
        .collect();
    times.sort();
    times[times.len() / 2]
}

/// The machine-readable line set against Kafka's (`cargo xtask bench-image`).
fn summary(values: &[Bytes], image: &MetadataImage, file: &Bytes, mem: &Memory) -> String {
    const RUNS: usize = 7;
    let records = values.len();
    let partitions = i64::from(PARTITIONS) * TOPICS as i64;
    let replay_t = median(RUNS, || replay(values));
    let write_t = median(RUNS, || snapshot_file(image));
    let load_t = median(RUNS, || load(file));
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    format!(
        "kraft-rs records={records} partitions={partitions} replay_records_per_s={:.0} replay_ms={:.2} \
         snapshot_write_ms={:.2} snapshot_load_ms={:.2} heap_bytes_per_partition={} \
         heap_chunk_bytes_per_partition={} heap_allocations={} rss_bytes_per_partition={} \
         snapshot_bytes={} runs={RUNS}",
        records as f64 / replay_t.as_secs_f64(),
        ms(replay_t),
        ms(write_t),
        ms(load_t),
        mem.heap,
        mem.chunks,
        mem.allocations,
        mem.rss,
        file.len()
    )
}

/// `records.bin`: every value as a big-endian `i32` length and its bytes.
fn write_records(dir: &std::path::Path, values: &[Bytes]) {
    std::fs::create_dir_all(dir).unwrap();
    let mut out = Vec::with_capacity(values.iter().map(|v| v.len() + 4).sum());
    for v in values {
        out.extend_from_slice(&i32::try_from(v.len()).unwrap().to_be_bytes());
        out.extend_from_slice(v);
    }
    std::fs::write(dir.join("records.bin"), out).unwrap();
}

fn benches(c: &mut Criterion) {
    let values = workload();
    let records = values.len() as u64;
    // First, while the allocator has not yet freed (and kept) any images
    // or other large buffers.
    let mem = memory(&values);
    let dir = std::env::var_os("KRAFT_IMAGE_BENCH_DIR").map(std::path::PathBuf::from);
    if let Some(dir) = &dir {
        write_records(dir, &values);
        eprintln!("image: wrote {}", dir.join("records.bin").display());
    }

    let before = LIVE.load(Ordering::Relaxed);
    let image = replay(&values);
    let live = LIVE.load(Ordering::Relaxed) - before;
    let partitions = i64::from(PARTITIONS) * TOPICS as i64;
    eprintln!(
        "image: {records} records, {partitions} partitions, {live} live heap bytes = {} bytes per partition \
         ({} as glibc malloc chunks; {} allocations)",
        live as i64 / partitions,
        mem.chunks,
        mem.allocations
    );
    let file = Bytes::from(snapshot_file(&image));
    eprintln!("snapshot: {} bytes", file.len());

    let mut group = c.benchmark_group("image");
    group.sample_size(10);
    group.throughput(Throughput::Elements(records));
    group.bench_function("decode_only", |b| {
        b.iter(|| {
            for v in &values {
                black_box(MetadataRecord::decode(v.clone()).unwrap());
            }
        })
    });
    group.bench_function("replay", |b| b.iter(|| black_box(replay(&values))));
    group.bench_function("snapshot_write", |b| {
        b.iter(|| black_box(snapshot_file(&image)))
    });
    group.bench_function("snapshot_load", |b| {
        b.iter_batched(
            || file.clone(),
            |f| black_box(load(&f)),
            BatchSize::LargeInput,
        )
    });
    group.finish();

    // The summary only under `cargo bench` (criterion's `--bench`), not in
    // the one-iteration `cargo test --benches` run.
    if std::env::args().any(|a| a == "--bench") {
        let line = summary(&values, &image, &file, &mem);
        println!("{line}");
        if let Some(dir) = &dir {
            std::fs::write(dir.join("kraft-rs.txt"), format!("{line}\n")).unwrap();
        }
    }
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    benches(&mut c);
    c.final_summary();
}
