#![allow(clippy::unwrap_used)]

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use bytes::Bytes;
use kraft_protocol::messages::k_raft_version_record::KRaftVersionRecord;
use kraft_protocol::messages::snapshot_footer_record::SnapshotFooterRecord;
use kraft_protocol::messages::snapshot_header_record::SnapshotHeaderRecord;
use kraft_protocol::records::{ControlRecordType, NewRecord, RecordBatchBuilder};
use kraft_protocol::Message;

use super::*;
use crate::codec::voters_record_of;
use crate::core::log::{fetch_position, validate_offset_and_epoch};
use crate::core::record::LeaderChangeMessage;
use crate::core::rng::RaftRng;
use crate::core::types::{Endpoints, KRaftVersionRange, ReplicaKey, Uuid};
use crate::core::voters::{VoterNode, VoterSet};
use crate::core::{Action, MemoryLog, RaftConfig, RaftCore, Role, SplitMix64};
use crate::storage::snapshot_file_name;

const T: i64 = 1_700_000_000_000;

use kraft_testkit::TempDir;

fn small_config() -> LogConfig {
    LogConfig {
        segment_bytes: 1500,
        index_interval_bytes: 200,
        max_batch_size: 64 * 1024,
    }
}

fn voters(ids: &[i32]) -> VoterSet {
    VoterSet::new(ids.iter().map(|&id| {
        VoterNode::new(
            ReplicaKey::of(id, Uuid::from_u64_pair(id as u64, 7)),
            Endpoints::single("CONTROLLER", format!("node{id}"), 9000 + id as u16),
            KRaftVersionRange::new(0, 1),
        )
    }))
}

fn data(values: &[&[u8]]) -> Vec<Record> {
    values
        .iter()
        .map(|v| Record::Data(Bytes::copy_from_slice(v)))
        .collect()
}

fn batch(base_offset: i64, epoch: i32, records: Vec<Record>) -> Batch {
    Batch {
        base_offset,
        epoch,
        append_time: T + base_offset,
        records,
        encoded: Default::default(),
    }
}

fn open(dir: &Path) -> DiskLog {
    DiskLog::open(dir, small_config()).unwrap().0
}

/// The bytes of a snapshot file as [`DiskLog::create_snapshot`] writes it.
fn snapshot_file_bytes(epoch: i32, control: &SnapshotControl, records: &[Bytes]) -> Vec<u8> {
    encode_snapshot(epoch, T, control, records.iter().cloned(), 1000)
}

fn data_records_of(batches: &[Batch]) -> Vec<Bytes> {
    batches
        .iter()
        .flat_map(|b| b.records.iter())
        .filter_map(|r| match r {
            Record::Data(d) => Some(d.clone()),
            Record::Control(_) => None,
        })
        .collect()
}

/// Simulates a power failure: everything not flushed is lost. Segments that
/// start above `flushed` disappear, the one holding it is cut there.
fn lose_unflushed(dir: &Path, flushed: i64) {
    let mut segments: Vec<(i64, PathBuf)> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| {
            let path = e.unwrap().path();
            let name = path.file_name()?.to_str()?.to_string();
            let base = name.strip_suffix(".log")?.parse().ok()?;
            Some((base, path))
        })
        .collect();
    segments.sort();
    for (base, path) in segments {
        if base > flushed {
            std::fs::remove_file(&path).unwrap();
            let _ = std::fs::remove_file(path.with_extension("index"));
            continue;
        }
        let bytes = Bytes::from(std::fs::read(&path).unwrap());
        let mut keep = 0usize;
        for raw in batches(bytes) {
            let raw = raw.unwrap();
            if raw.base_offset() >= flushed {
                break;
            }
            keep += raw.size_in_bytes();
        }
        let f = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
        f.set_len(keep as u64).unwrap();
    }
}

// ---------------------------------------------------------------------------
// Conformance: MemoryLog and DiskLog driven by the same random operations.

/// How often each interesting outcome happened (to prove coverage).
#[derive(Debug, Default)]
struct Coverage {
    truncations: usize,
    snapshots: usize,
    compactions: usize,
    downloads: usize,
    aborted_downloads: usize,
    corrupt_downloads: usize,
    crashes_losing_data: usize,
    partial_reads: usize,
    rolled_segments: usize,
}

struct Harness {
    cov: Coverage,
    rng: SplitMix64,
    dir: TempDir,
    mem: MemoryLog,
    disk: DiskLog,
    bootstrap: bool,
    cache_bytes: usize,
    max_epoch: i32,
    step: usize,
    seed: u64,
}

impl Harness {
    fn new(seed: u64, bootstrap: bool) -> Harness {
        let mut rng = SplitMix64::new(seed);
        let dir = TempDir::new("disklog-conformance");
        let mem = if bootstrap {
            let control = SnapshotControl {
                voters: Some(voters(&[1, 2, 3])),
                kraft_version: Some(1),
            };
            let bytes =
                snapshot_file_bytes(0, &control, &[Bytes::from_static(b"bootstrap-feature")]);
            std::fs::write(
                dir.path()
                    .join(snapshot_file_name(OffsetAndEpoch::new(0, 0))),
                bytes,
            )
            .unwrap();
            MemoryLog::with_bootstrap(control)
        } else {
            MemoryLog::new()
        };
        let cache_bytes = [0, 300, 2000, DEFAULT_TAIL_CACHE_BYTES][rng.below(4) as usize];
        let mut disk = open(dir.path());
        disk.set_tail_cache_bytes(cache_bytes);
        Harness {
            cov: Coverage::default(),
            rng,
            dir,
            mem,
            disk,
            bootstrap,
            cache_bytes,
            max_epoch: 1,
            step: 0,
            seed,
        }
    }

    fn below(&mut self, n: i64) -> i64 {
        self.rng.below(n)
    }

    fn ctx(&self, what: &str) -> String {
        format!("seed {} step {} ({what})", self.seed, self.step)
    }

    fn random_control(&mut self) -> SnapshotControl {
        let voters = match self.below(3) {
            0 => None,
            1 => Some(voters(&[1, 2, 3])),
            _ => Some(voters(&[1, 4])),
        };
        let kraft_version = match self.below(3) {
            0 => None,
            n => Some(n as i16 - 1),
        };
        SnapshotControl {
            voters,
            kraft_version,
        }
    }

    fn random_records(&mut self, max: i64) -> Vec<Record> {
        let n = 1 + self.below(max);
        (0..n)
            .map(|_| {
                let len = self.below(120) as usize;
                let byte = self.below(256) as u8;
                Record::Data(Bytes::from(vec![byte; len]))
            })
            .collect()
    }

    fn next_epoch(&mut self) -> i32 {
        if self.below(8) == 0 {
            self.max_epoch += 1;
        }
        self.max_epoch.max(self.mem.last_fetched_epoch())
    }

    fn append_data(&mut self) {
        let epoch = self.next_epoch();
        let records = self.random_records(5);
        let b = batch(self.mem.end_offset(), epoch, records);
        let ctx = self.ctx("append data");
        assert_eq!(self.mem.append(b.clone()), Ok(()), "{ctx}");
        assert_eq!(self.disk.append(b), Ok(()), "{ctx}");
    }

    fn append_control(&mut self) {
        let epoch = self.next_epoch();
        let n = 1 + self.below(3);
        let records = (0..n)
            .map(|_| {
                Record::Control(match self.below(3) {
                    0 => ControlRecord::LeaderChange(LeaderChangeMessage {
                        leader_id: self.below(4) as i32,
                        voters: vec![1, 2, 3],
                        granting_voters: vec![1, 2],
                    }),
                    1 => ControlRecord::KRaftVersion(1),
                    _ => ControlRecord::Voters(voters(&[1, 2, 3 + self.below(3) as i32])),
                })
            })
            .collect();
        let b = batch(self.mem.end_offset(), epoch, records);
        let ctx = self.ctx("append control");
        assert_eq!(self.mem.append(b.clone()), Ok(()), "{ctx}");
        assert_eq!(self.disk.append(b), Ok(()), "{ctx}");
    }

    fn append_bad(&mut self) {
        let end = self.mem.end_offset();
        let last = self.mem.last_fetched_epoch();
        let b = match self.below(4) {
            0 => batch(end + 1, last, data(&[b"x"])),
            1 => batch(end - 1, last, data(&[b"x"])),
            2 => batch(end, last, Vec::new()),
            _ => batch(end, last - 1, data(&[b"x"])),
        };
        let m = self.mem.append(b.clone());
        let d = self.disk.append(b);
        assert_eq!(m, d, "{}", self.ctx("bad append"));
    }

    fn truncate(&mut self) {
        let start = self.mem.start_offset();
        let end = self.mem.end_offset();
        // The core never truncates below its high watermark, so never below
        // a snapshot (snapshots are taken at or below it).
        let lower = self
            .mem
            .latest_snapshot()
            .map_or(0, |s| s.id.offset)
            .max(start);
        let mut target = lower - 2 + self.below(end - lower + 5);
        if target < lower && lower > start {
            target = lower;
        }
        let m = self.mem.truncate_to(target);
        let d = self.disk.truncate_to(target);
        self.cov.truncations += usize::from(m < end);
        assert_eq!(m, d, "{}", self.ctx(&format!("truncate to {target}")));
    }

    fn flush(&mut self) {
        let ticket = self.mem.issue_flush();
        self.mem.complete_flush(ticket);
        let d = self.disk.flush().unwrap();
        assert_eq!(d, self.mem.durable_end(), "{}", self.ctx("flush"));
    }

    fn snapshot(&mut self) {
        // Snapshots are of committed (here: locally flushed) data.
        self.flush();
        let boundaries: Vec<(i64, i32)> = self
            .mem
            .batches()
            .iter()
            .map(|b| (b.next_offset(), b.epoch))
            .collect();
        let (start, end) = (self.mem.start_offset(), self.mem.end_offset());
        let target = if boundaries.is_empty() || self.below(5) == 0 {
            start - 1 + self.below(end - start + 3)
        } else {
            boundaries[self.below(boundaries.len() as i64) as usize].0
        };
        let existing = boundaries
            .iter()
            .find(|(o, _)| *o == target)
            .and_then(|(o, e)| {
                self.mem
                    .snapshots()
                    .find(|(id, _)| *id == OffsetAndEpoch::new(*o, *e))
            })
            .map(|(_, s)| s.control.clone());
        let control = match &existing {
            Some(c) => c.clone(),
            None => self.random_control(),
        };
        let m = self.mem.create_snapshot(target, control.clone());
        let records = m
            .and_then(|id| {
                self.mem
                    .snapshots()
                    .find(|(s, _)| *s == id)
                    .map(|(_, s)| data_records_of(&s.batches))
            })
            .unwrap_or_default();
        let d = self
            .disk
            .create_snapshot(target, &control, records.clone())
            .unwrap();
        let ctx = self.ctx(&format!("snapshot at {target}"));
        assert_eq!(m, d, "{ctx}");
        if let (Some(id), None) = (d, &existing) {
            let contents = self.disk.load_snapshot(id).unwrap();
            assert_eq!(contents.control, control, "{ctx}");
            assert_eq!(contents.records, records, "{ctx}");
        }
        self.cov.snapshots += usize::from(d.is_some() && existing.is_none());
        if d.is_some() && (!self.bootstrap || self.below(2) == 0) {
            self.mem.delete_before_latest_snapshot();
            self.cov.compactions += usize::from(self.disk.delete_before_latest_snapshot().unwrap());
        }
    }

    fn download(&mut self) {
        let end = self.mem.end_offset();
        let latest = self.mem.latest_snapshot().map_or(0, |s| s.id.offset);
        let epoch = self.mem.last_fetched_epoch().max(1) + self.below(2) as i32;
        self.max_epoch = self.max_epoch.max(epoch);
        let offset = if end > latest + 1 && self.below(4) == 0 {
            latest + 1 + self.below(end - latest)
        } else {
            end + 1 + self.below(40)
        };
        let control = self.random_control();
        // The leader's snapshot, in each log's own format.
        let mut leader = MemoryLog::new();
        let records = self.random_records(offset);
        let records: Vec<Record> = records.into_iter().take(offset as usize).collect();
        let mut all = records.clone();
        while (all.len() as i64) < offset {
            all.push(Record::Data(Bytes::from_static(b"pad")));
        }
        leader.append(batch(0, epoch, all.clone())).unwrap();
        let id = leader.create_snapshot(offset, control.clone()).unwrap();
        let mut mem_src = leader.read_snapshot(id, 0, usize::MAX).unwrap().0.to_vec();
        let values = data_records_of(&[batch(0, epoch, all)]);
        let mut disk_src = snapshot_file_bytes(epoch, &control, &values);
        let corrupt = self.below(8) == 0;
        if corrupt {
            mem_src.pop();
            disk_src.pop();
        }
        let ctx = self.ctx(&format!("download {id:?}"));
        let m = self.mem.begin_snapshot_download(id);
        let d = self.disk.begin_snapshot_download(id);
        assert_eq!(m, d, "{ctx}");
        if m != Ok(true) {
            return;
        }
        let abort_at = (self.below(6) == 0).then(|| self.below(3));
        let (mut mp, mut dp) = (0usize, 0usize);
        let mut round = 0;
        while mp < mem_src.len() || dp < disk_src.len() {
            if abort_at == Some(round) {
                self.mem.abort_snapshot_download(id);
                self.disk.abort_snapshot_download(id);
                assert_eq!(self.mem.snapshot_download_size(id), None, "{ctx}");
                assert_eq!(self.disk.snapshot_download_size(id), None, "{ctx}");
                assert!(self.mem.append_snapshot_chunk(id, b"x").is_err(), "{ctx}");
                assert!(self.disk.append_snapshot_chunk(id, b"x").is_err(), "{ctx}");
                self.cov.aborted_downloads += 1;
                return;
            }
            round += 1;
            let chunk = 1 + self.below(400) as usize;
            let mn = chunk.min(mem_src.len() - mp);
            let dn = chunk.min(disk_src.len() - dp);
            assert_eq!(
                self.mem.append_snapshot_chunk(id, &mem_src[mp..mp + mn]),
                Ok((mp + mn) as u64),
                "{ctx}"
            );
            assert_eq!(
                self.disk.append_snapshot_chunk(id, &disk_src[dp..dp + dn]),
                Ok((dp + dn) as u64),
                "{ctx}"
            );
            mp += mn;
            dp += dn;
            assert_eq!(
                self.disk.snapshot_download_size(id),
                Some(dp as u64),
                "{ctx}"
            );
            assert_eq!(
                self.disk
                    .snapshot_download_size(OffsetAndEpoch::new(offset + 1, epoch)),
                None
            );
        }
        let m = self.mem.complete_snapshot_download(id);
        let d = self.disk.complete_snapshot_download(id);
        assert_eq!(m.is_ok(), d.is_ok(), "{ctx}: {m:?} vs {d:?}");
        assert_eq!(m.is_ok(), !corrupt, "{ctx}");
        self.cov.downloads += usize::from(!corrupt);
        self.cov.corrupt_downloads += usize::from(corrupt);
        if m.is_ok() {
            let contents = self.disk.load_snapshot(id).unwrap();
            assert_eq!(contents.control, control, "{ctx}");
            assert_eq!(contents.records, values, "{ctx}");
        }
    }

    fn crash(&mut self) {
        self.cov.crashes_losing_data += usize::from(self.mem.durable_end() < self.mem.end_offset());
        self.mem.crash();
        let flushed = self.disk.flushed_offset();
        let dir = self.dir.path().to_path_buf();
        // A fresh log replaces the crashed one (dropping it writes nothing).
        let placeholder = TempDir::new("disklog-placeholder");
        let old = std::mem::replace(&mut self.disk, open(placeholder.path()));
        drop(old);
        lose_unflushed(&dir, flushed);
        let (disk, report) = DiskLog::open(&dir, small_config()).unwrap();
        assert_eq!(report.log_end_offset, flushed, "{}", self.ctx("crash"));
        self.disk = disk;
        self.disk.set_tail_cache_bytes(self.cache_bytes);
    }

    fn random_reads(&mut self) {
        let (start, end) = (self.mem.start_offset(), self.mem.end_offset());
        for _ in 0..4 {
            let from = start - 2 + self.below(end - start + 5);
            let max = [0, 1, 70, 200, 700, 3000, usize::MAX][self.below(7) as usize];
            let m = self.mem.read(from, max);
            let d = self.disk.read(from, max);
            self.cov.partial_reads +=
                usize::from(m.last().is_some_and(|b| b.next_offset() < end) && m.len() > 1);
            assert_eq!(m, d, "{}", self.ctx(&format!("read({from}, {max})")));
        }
    }

    fn check(&mut self) {
        let ctx = self.ctx("check");
        let (mem, disk) = (&self.mem, &self.disk);
        assert_eq!(mem.start_offset(), disk.start_offset(), "{ctx}: start");
        assert_eq!(mem.end_offset(), disk.end_offset(), "{ctx}: end");
        assert_eq!(
            mem.last_fetched_epoch(),
            disk.last_fetched_epoch(),
            "{ctx}: last epoch"
        );
        assert_eq!(
            mem.durable_end(),
            disk.flushed_offset(),
            "{ctx}: durable end"
        );
        assert_eq!(
            mem.latest_snapshot().map(|s| s.id),
            disk.latest_snapshot().map(|s| s.id),
            "{ctx}: latest snapshot"
        );
        assert_eq!(
            mem.earliest_snapshot_id(),
            disk.earliest_snapshot_id(),
            "{ctx}: earliest"
        );
        assert_eq!(
            mem.latest_snapshot_control(),
            disk.latest_snapshot_control(),
            "{ctx}: control"
        );
        for epoch in -1..=self.max_epoch + 1 {
            assert_eq!(
                mem.end_offset_for_epoch(epoch),
                disk.end_offset_for_epoch(epoch),
                "{ctx}: end offset for epoch {epoch}"
            );
        }
        assert_eq!(
            mem.read(mem.start_offset(), usize::MAX),
            disk.read(disk.start_offset(), usize::MAX),
            "{ctx}: whole log"
        );
        let (start, end) = (mem.start_offset(), mem.end_offset());
        for _ in 0..3 {
            let offset = (start - 1 + self.rng.below(end - start + 3)).max(0);
            let epoch = self.rng.below(i64::from(self.max_epoch) + 2) as i32;
            assert_eq!(
                validate_offset_and_epoch(&self.mem, offset, epoch),
                validate_offset_and_epoch(&self.disk, offset, epoch),
                "{ctx}: validate({offset}, {epoch})"
            );
            assert_eq!(
                fetch_position(&self.mem, offset, epoch),
                fetch_position(&self.disk, offset, epoch),
                "{ctx}: fetch_position({offset}, {epoch})"
            );
        }
        if let Some(info) = self.disk.latest_snapshot() {
            let (all, size) = self.disk.read_snapshot(info.id, 0, usize::MAX).unwrap();
            assert_eq!(size, info.size);
            assert_eq!(all.len() as u64, size);
            let pos = self.rng.below(size as i64 + 2) as u64;
            let max = self.rng.below(300) as usize;
            let (chunk, _) = self.disk.read_snapshot(info.id, pos, max).unwrap();
            let from = pos.min(size) as usize;
            assert_eq!(
                chunk,
                all.slice(from..(from + max).min(size as usize)),
                "{ctx}"
            );
            assert!(self.mem.read_snapshot(info.id, 0, 0).is_some(), "{ctx}");
        }
        let missing = OffsetAndEpoch::new(end + 1000, 99);
        assert_eq!(self.disk.read_snapshot(missing, 0, 10), None);
    }

    fn run(&mut self, steps: usize) -> &Coverage {
        for step in 0..steps {
            self.step = step;
            match self.below(100) {
                0..=34 => self.append_data(),
                35..=44 => self.append_control(),
                45..=49 => self.append_bad(),
                50..=57 => self.truncate(),
                58..=63 => self.flush(),
                64..=69 => self.snapshot(),
                70..=73 => self.download(),
                74..=76 => self.crash(),
                _ => self.random_reads(),
            }
            self.check();
            let segments = self.disk.file_log().segment_base_offsets().len();
            self.cov.rolled_segments = self.cov.rolled_segments.max(segments);
        }
        &self.cov
    }
}

fn conformance(seeds: std::ops::Range<u64>, bootstrap: bool) {
    let mut total = Coverage::default();
    for seed in seeds {
        let mut h = Harness::new(seed, bootstrap);
        let c = h.run(300);
        total.truncations += c.truncations;
        total.snapshots += c.snapshots;
        total.compactions += c.compactions;
        total.downloads += c.downloads;
        total.aborted_downloads += c.aborted_downloads;
        total.corrupt_downloads += c.corrupt_downloads;
        total.crashes_losing_data += c.crashes_losing_data;
        total.partial_reads += c.partial_reads;
        total.rolled_segments = total.rolled_segments.max(c.rolled_segments);
    }
    let c = &total;
    let covered = [
        c.truncations,
        c.snapshots,
        c.compactions,
        c.downloads,
        c.aborted_downloads,
        c.corrupt_downloads,
        c.crashes_losing_data,
        c.partial_reads,
        c.rolled_segments.saturating_sub(2),
    ];
    assert!(covered.iter().all(|n| *n > 0), "{total:?}");
}

#[test]
fn conformance_with_bootstrap_checkpoint() {
    conformance(0..6, true);
}

#[test]
fn conformance_without_snapshots() {
    conformance(100..106, false);
}

// ---------------------------------------------------------------------------
// Crash recovery

#[test]
fn reopen_after_crash_keeps_only_flushed_batches() {
    let dir = TempDir::new("disklog-crash");
    let mut log = open(dir.path());
    log.append(batch(0, 1, data(&[b"a", b"b"]))).unwrap();
    log.append(batch(2, 1, data(&[b"c"]))).unwrap();
    assert_eq!(log.flushed_offset(), 0);
    assert_eq!(log.flush().unwrap(), 3);
    // Nothing pending: flushing again is free and answers the same.
    assert_eq!(log.flush().unwrap(), 3);
    log.append(batch(3, 2, data(&[b"d", b"e"]))).unwrap();
    log.append(batch(5, 2, data(&[b"f"]))).unwrap();
    assert_eq!(log.end_offset(), 6);
    let flushed = log.flushed_offset();
    assert_eq!(flushed, 3);
    let expected = log.read(0, usize::MAX)[..2].to_vec();
    drop(log);
    lose_unflushed(dir.path(), flushed);

    let (log, report) = DiskLog::open(dir.path(), small_config()).unwrap();
    assert_eq!(report.log_end_offset, 3);
    assert_eq!(log.end_offset(), 3);
    assert_eq!(log.flushed_offset(), 3);
    assert_eq!(log.last_fetched_epoch(), 1);
    assert_eq!(log.end_offset_for_epoch(2), OffsetAndEpoch::new(3, 1));
    assert_eq!(log.read(0, usize::MAX), expected);
}

/// A batch another writer encoded (a producer id and a max timestamp that
/// kraft-rs's own encoder does not write), as a follower gets it in a Fetch
/// response.
fn foreign_batch_bytes(base_offset: i64) -> Bytes {
    let mut builder = RecordBatchBuilder::new(base_offset, 3, T)
        .with_max_timestamp(T + 42)
        .with_producer(7, 1, 0);
    builder.push(NewRecord::value(b"first"));
    builder.push(NewRecord::value(b"second"));
    let mut buf = BytesMut::new();
    builder.write_to(&mut buf);
    buf.freeze()
}

#[test]
fn batches_from_the_wire_are_stored_and_served_byte_for_byte() {
    let dir = TempDir::new("disklog-verbatim");
    let mut log = open(dir.path());
    let wire = foreign_batch_bytes(0);
    let decoded = crate::codec::decode_batches(wire.clone()).unwrap();
    assert_eq!(decoded.len(), 1);
    // Re-encoding the decoded values gives other bytes: what is kept must be
    // the original.
    let mut stripped = decoded[0].clone();
    stripped.encoded = EncodedBatch::default();
    assert_eq!(
        stripped, decoded[0],
        "the cached encoding is not part of the value"
    );
    assert_ne!(crate::codec::encode_batches(&[stripped]), wire);
    assert_eq!(crate::codec::encode_batches(&decoded), wire);

    log.append(decoded[0].clone()).unwrap();
    log.flush().unwrap();
    let segment = dir.path().join(format!("{:020}.log", 0));
    // Served from the tail cache, then from the file after a reopen.
    assert_eq!(crate::codec::encode_batches(&log.read(0, usize::MAX)), wire);
    drop(log);
    assert_eq!(std::fs::read(&segment).unwrap(), wire.to_vec());
    let log = open(dir.path());
    assert_eq!(crate::codec::encode_batches(&log.read(0, usize::MAX)), wire);
}

#[test]
fn reopen_truncates_a_torn_tail() {
    let dir = TempDir::new("disklog-torn");
    let mut log = open(dir.path());
    log.append(batch(0, 1, data(&[b"a"]))).unwrap();
    log.append(batch(1, 1, data(&[b"b", b"c"]))).unwrap();
    log.flush().unwrap();
    let segment = dir.path().join(format!("{:020}.log", 0));
    // Half of a third batch reached the disk.
    let mut buf = BytesMut::new();
    encode_batch(&batch(3, 1, data(&[b"torn record"])), &mut buf);
    drop(log);
    let good = std::fs::metadata(&segment).unwrap().len();
    let mut bytes = std::fs::read(&segment).unwrap();
    bytes.extend_from_slice(&buf[..buf.len() / 2]);
    std::fs::write(&segment, bytes).unwrap();

    let (log, report) = DiskLog::open(dir.path(), small_config()).unwrap();
    let tail = report.truncated_tail.unwrap();
    assert_eq!(tail.position, good);
    assert_eq!(log.end_offset(), 3);
    assert_eq!(log.read(0, usize::MAX).len(), 2);
}

#[test]
fn crash_during_snapshot_download_leaves_no_partial_file() {
    let dir = TempDir::new("disklog-partial");
    let mut log = open(dir.path());
    log.append(batch(0, 1, data(&[b"a"]))).unwrap();
    log.flush().unwrap();
    let id = OffsetAndEpoch::new(50, 3);
    assert_eq!(log.begin_snapshot_download(id), Ok(true));
    let bytes = snapshot_file_bytes(3, &SnapshotControl::default(), &[Bytes::from_static(b"x")]);
    log.append_snapshot_chunk(id, &bytes[..10]).unwrap();
    // A crash runs no destructors: the partial file stays behind.
    std::mem::forget(log);
    let (log, report) = DiskLog::open(dir.path(), small_config()).unwrap();
    assert_eq!(report.removed_files.len(), 1);
    assert!(report.removed_files[0]
        .to_string_lossy()
        .ends_with(".checkpoint.part"));
    assert_eq!(log.end_offset(), 1);
    assert_eq!(log.latest_snapshot(), None);
    assert_eq!(log.snapshot_download_size(id), None);
}

#[test]
fn installed_snapshot_survives_reopen() {
    let dir = TempDir::new("disklog-install");
    let mut log = open(dir.path());
    log.append(batch(0, 1, data(&[b"old"]))).unwrap();
    let id = OffsetAndEpoch::new(20, 4);
    let control = SnapshotControl {
        voters: Some(voters(&[1, 2])),
        kraft_version: Some(1),
    };
    let values: Vec<Bytes> = (0..30)
        .map(|i| Bytes::from(format!("record {i}")))
        .collect();
    let bytes = snapshot_file_bytes(4, &control, &values);
    assert_eq!(log.begin_snapshot_download(id), Ok(true));
    for chunk in bytes.chunks(37) {
        log.append_snapshot_chunk(id, chunk).unwrap();
    }
    assert_eq!(log.snapshot_download_size(id), Some(bytes.len() as u64));
    log.complete_snapshot_download(id).unwrap();
    assert_eq!(log.begin_snapshot_download(id), Ok(false));
    assert_eq!((log.start_offset(), log.end_offset()), (20, 20));
    assert_eq!(log.flushed_offset(), 20);
    assert_eq!(log.last_fetched_epoch(), 4);
    log.append(batch(20, 5, data(&[b"new"]))).unwrap();
    drop(log);

    // A process restart (no power loss) keeps even the unflushed append.
    let log = open(dir.path());
    assert_eq!((log.start_offset(), log.end_offset()), (20, 21));
    assert_eq!(log.flushed_offset(), 21);
    assert_eq!(log.latest_snapshot().map(|s| s.id), Some(id));
    assert_eq!(log.latest_snapshot_control(), Some(control.clone()));
    let contents = log.load_snapshot(id).unwrap();
    assert_eq!(contents.records, values);
    assert_eq!(contents.control, control);
}

// ---------------------------------------------------------------------------
// Bootstrap checkpoint

/// The bootstrap checkpoint exactly as `kraft storage format` (and Kafka's
/// `Formatter`) lays it out, built independently of `write_snapshot`.
fn format_checkpoint(
    kraft_version: i16,
    voter_set: Option<&VoterSet>,
    records: &[&[u8]],
) -> Vec<u8> {
    let header = SnapshotHeaderRecord {
        version: 0,
        last_contained_log_timestamp: T,
        ..Default::default()
    }
    .encode_to_vec(0)
    .unwrap();
    let kraft = KRaftVersionRecord {
        version: 0,
        k_raft_version: kraft_version,
        ..Default::default()
    }
    .encode_to_vec(0)
    .unwrap();
    let voters_value = voter_set.map(|v| voters_record_of(v).encode_to_vec(0).unwrap());
    let footer = SnapshotFooterRecord {
        version: 0,
        ..Default::default()
    }
    .encode_to_vec(0)
    .unwrap();
    let mut out = Vec::new();
    let mut control = RecordBatchBuilder::new_control(0, 0, T);
    control.push(NewRecord::control(
        ControlRecordType::SnapshotHeader,
        &header,
    ));
    if kraft_version >= 1 {
        control.push(NewRecord::control(ControlRecordType::KRaftVersion, &kraft));
        if let Some(v) = &voters_value {
            control.push(NewRecord::control(ControlRecordType::KRaftVoters, v));
        }
    }
    control.write_to(&mut out);
    let mut data = RecordBatchBuilder::new(control.next_offset(), 0, T);
    for r in records {
        data.push(NewRecord::value(r));
    }
    data.write_to(&mut out);
    let mut f = RecordBatchBuilder::new_control(data.next_offset(), 0, T);
    f.push(NewRecord::control(
        ControlRecordType::SnapshotFooter,
        &footer,
    ));
    f.write_to(&mut out);
    out
}

fn write_bootstrap(dir: &Path, bytes: &[u8]) {
    let path = dir.join("00000000000000000000-0000000000.checkpoint");
    std::fs::write(&path, bytes).unwrap();
    let mut perms = std::fs::metadata(&path).unwrap().permissions();
    perms.set_readonly(true);
    std::fs::set_permissions(&path, perms).unwrap();
}

fn assert_same_answers(mem: &MemoryLog, disk: &DiskLog) {
    assert_eq!(mem.start_offset(), disk.start_offset());
    assert_eq!(mem.end_offset(), disk.end_offset());
    assert_eq!(mem.last_fetched_epoch(), disk.last_fetched_epoch());
    assert_eq!(
        mem.latest_snapshot().map(|s| s.id),
        disk.latest_snapshot().map(|s| s.id)
    );
    assert_eq!(mem.earliest_snapshot_id(), disk.earliest_snapshot_id());
    assert_eq!(
        mem.latest_snapshot_control(),
        disk.latest_snapshot_control()
    );
    for epoch in -1..4 {
        assert_eq!(
            mem.end_offset_for_epoch(epoch),
            disk.end_offset_for_epoch(epoch)
        );
    }
    assert_eq!(mem.read(0, usize::MAX), disk.read(0, usize::MAX));
}

#[test]
fn bootstrap_checkpoint_with_voters() {
    let dir = TempDir::new("disklog-bootstrap");
    let set = voters(&[1, 2, 3]);
    write_bootstrap(
        dir.path(),
        &format_checkpoint(1, Some(&set), &[b"metadata.version", b"feature"]),
    );
    let (mut disk, report) = DiskLog::open(dir.path(), small_config()).unwrap();
    assert!(report.removed_files.is_empty());
    let control = SnapshotControl {
        voters: Some(set),
        kraft_version: Some(1),
    };
    let mut mem = MemoryLog::with_bootstrap(control.clone());
    assert_same_answers(&mem, &disk);
    assert_eq!(
        disk.latest_snapshot().map(|s| s.id),
        Some(OffsetAndEpoch::new(0, 0))
    );
    let contents = disk.load_snapshot(OffsetAndEpoch::new(0, 0)).unwrap();
    assert_eq!(contents.control, control);
    assert_eq!(contents.last_contained_log_timestamp, T);
    assert_eq!(
        contents.records,
        vec![
            Bytes::from_static(b"metadata.version"),
            Bytes::from_static(b"feature")
        ]
    );
    // The leader never serves the bootstrap snapshot; an empty fetcher is valid.
    assert_eq!(fetch_position(&disk, 0, 0), fetch_position(&mem, 0, 0));

    // A real snapshot replaces it; the read-only checkpoint is deleted.
    for log in [&mut mem as &mut dyn RaftLog, &mut disk] {
        log.append(batch(0, 1, data(&[b"a", b"b"]))).unwrap();
        log.append(batch(2, 1, data(&[b"c"]))).unwrap();
    }
    disk.flush().unwrap();
    let id = mem.create_snapshot(3, control.clone());
    assert_eq!(
        disk.create_snapshot(3, &control, [Bytes::from_static(b"image")])
            .unwrap(),
        id
    );
    mem.delete_before_latest_snapshot();
    assert!(disk.delete_before_latest_snapshot().unwrap());
    assert_same_answers(&mem, &disk);
    assert!(!dir
        .path()
        .join("00000000000000000000-0000000000.checkpoint")
        .exists());
    drop(disk);
    let disk = open(dir.path());
    assert_same_answers(&mem, &disk);
}

#[test]
fn bootstrap_checkpoint_without_kraft_version() {
    let dir = TempDir::new("disklog-bootstrap0");
    write_bootstrap(
        dir.path(),
        &format_checkpoint(0, None, &[b"metadata.version"]),
    );
    let disk = open(dir.path());
    assert_eq!(
        disk.latest_snapshot_control(),
        Some(SnapshotControl::default())
    );
    assert_same_answers(
        &MemoryLog::with_bootstrap(SnapshotControl::default()),
        &disk,
    );
}

#[test]
fn bootstrap_checkpoint_without_voters() {
    let dir = TempDir::new("disklog-bootstrap-observer");
    write_bootstrap(
        dir.path(),
        &format_checkpoint(1, None, &[b"metadata.version"]),
    );
    let disk = open(dir.path());
    let control = SnapshotControl {
        voters: None,
        kraft_version: Some(1),
    };
    assert_same_answers(&MemoryLog::with_bootstrap(control), &disk);
}

#[test]
fn unreadable_latest_snapshot_fails_open() {
    let dir = TempDir::new("disklog-bad-snapshot");
    // A data batch where the header should be.
    let mut b = RecordBatchBuilder::new(0, 0, T);
    b.push(NewRecord::value(b"x"));
    write_bootstrap(dir.path(), &b.build());
    let err = DiskLog::open(dir.path(), small_config()).unwrap_err();
    assert!(matches!(err, StorageError::Corrupt { .. }), "{err}");
}

// ---------------------------------------------------------------------------
// Other behaviour

#[test]
fn snapshot_transfer_between_disk_logs() {
    let leader_dir = TempDir::new("disklog-leader");
    let follower_dir = TempDir::new("disklog-follower");
    let mut leader = open(leader_dir.path());
    let mut next = 0;
    for i in 0..40 {
        let b = batch(
            next,
            1 + i / 10,
            data(&[format!("value {i}").as_bytes(), b"more"]),
        );
        next = b.next_offset();
        leader.append(b).unwrap();
    }
    leader.flush().unwrap();
    let control = SnapshotControl {
        voters: Some(voters(&[1, 2, 3])),
        kraft_version: Some(1),
    };
    let image: Vec<Bytes> = (0..500).map(|i| Bytes::from(vec![i as u8; 40])).collect();
    // Without a bootstrap checkpoint the first snapshot becomes the log start.
    let first = leader.create_snapshot(40, &control, image.clone()).unwrap();
    assert_eq!(first, Some(OffsetAndEpoch::new(40, 2)));
    assert_eq!(leader.start_offset(), 40);
    let id = leader
        .create_snapshot(60, &control, image.clone())
        .unwrap()
        .unwrap();
    assert_eq!(id, OffsetAndEpoch::new(60, 3));
    assert_eq!(
        leader.create_snapshot(61, &control, image.clone()).unwrap(),
        None,
        "not a batch end"
    );
    assert_eq!(
        leader.create_snapshot(60, &control, image.clone()).unwrap(),
        Some(id),
        "idempotent"
    );
    assert!(leader.delete_before_latest_snapshot().unwrap());
    assert_eq!(leader.start_offset(), 60);
    assert!(leader
        .read(0, usize::MAX)
        .first()
        .is_some_and(|b| b.base_offset == 60));

    let mut follower = open(follower_dir.path());
    follower.append(batch(0, 1, data(&[b"stale"]))).unwrap();
    assert_eq!(follower.begin_snapshot_download(id), Ok(true));
    let mut position = 0;
    loop {
        let (chunk, size) = leader.read_snapshot(id, position, 777).unwrap();
        let new = follower.append_snapshot_chunk(id, &chunk).unwrap();
        position += chunk.len() as u64;
        assert_eq!(new, position);
        if position >= size {
            break;
        }
    }
    follower.complete_snapshot_download(id).unwrap();
    assert_eq!(follower.start_offset(), 60);
    assert_eq!(follower.end_offset(), 60);
    assert_eq!(follower.latest_snapshot_control(), Some(control));
    assert_eq!(follower.load_snapshot(id).unwrap().records, image);
    // Followers continue from the snapshot.
    for b in leader.read(60, usize::MAX) {
        follower.append(b).unwrap();
    }
    assert_eq!(follower.read(0, usize::MAX), leader.read(0, usize::MAX));
}

#[test]
fn corrupt_download_is_rejected_and_changes_nothing() {
    let dir = TempDir::new("disklog-corrupt-download");
    let mut log = open(dir.path());
    log.append(batch(0, 1, data(&[b"keep"]))).unwrap();
    let id = OffsetAndEpoch::new(10, 2);
    let mut bytes =
        snapshot_file_bytes(2, &SnapshotControl::default(), &[Bytes::from_static(b"x")]);
    let n = bytes.len();
    bytes[n - 5] ^= 0xff; // breaks the footer batch's CRC
    assert_eq!(log.begin_snapshot_download(id), Ok(true));
    log.append_snapshot_chunk(id, &bytes).unwrap();
    assert!(matches!(
        log.complete_snapshot_download(id),
        Err(LogError::Snapshot(_))
    ));
    assert_eq!(log.snapshot_download_size(id), None);
    assert_eq!(log.end_offset(), 1);
    assert_eq!(log.latest_snapshot(), None);
    assert!(log.failure().is_none());
    // Completing without a download, or the wrong id, is an error.
    assert!(log.complete_snapshot_download(id).is_err());
    assert_eq!(log.begin_snapshot_download(id), Ok(true));
    assert!(log
        .complete_snapshot_download(OffsetAndEpoch::new(11, 2))
        .is_err());
    let leftovers: BTreeSet<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("checkpoint"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn reads_span_segments_and_the_tail_cache() {
    let dir = TempDir::new("disklog-reads");
    let mut log = open(dir.path());
    log.set_tail_cache_bytes(600);
    let mut mem = MemoryLog::new();
    let mut next = 0;
    for i in 0..60 {
        let records = data(&[vec![i as u8; 30 + i % 50].as_slice(), b"x"]);
        let b = batch(next, 1 + i as i32 / 20, records);
        next = b.next_offset();
        mem.append(b.clone()).unwrap();
        log.append(b).unwrap();
    }
    assert!(
        log.file_log().segment_base_offsets().len() > 2,
        "several segments"
    );
    for from in 0..=next + 1 {
        for max in [0, 100, 250, 1000, 5000, usize::MAX] {
            assert_eq!(
                mem.read(from, max),
                log.read(from, max),
                "read({from}, {max})"
            );
        }
    }
}

#[test]
fn the_tail_cache_keeps_what_readers_still_need_and_drops_what_they_released() {
    let dir = TempDir::new("disklog-release");
    let mut log = open(dir.path());
    let mut mem = MemoryLog::new();
    let mut bases = Vec::new();
    let mut next = 0;
    for i in 0..60u8 {
        let b = batch(next, 1, data(&[vec![i; 40].as_slice(), b"y"]));
        bases.push(next);
        next = b.next_offset();
        mem.append(b.clone()).unwrap();
        log.append(b).unwrap();
    }
    // Nothing released: every batch is still cached (far below the bound).
    assert_eq!(log.tail.batches.len(), 60);
    // Keep the newest five batches' worth once released.
    let newest_five: usize = log.tail.from(bases[55]).map(cached_bytes).sum();
    log.tail.retained = newest_five + 10;
    // Readers are past batch 40: the batches below it go, as the newer
    // ones alone hold more than the `retained` bytes.
    log.release_reads_below(bases[40]);
    assert_eq!(log.tail.first_offset(), Some(bases[40]));
    // Readers are past batch 58: of the released batches, the newest stay
    // as long as the cache holds at most `retained` bytes.
    log.release_reads_below(bases[58]);
    assert_eq!(log.tail.first_offset(), Some(bases[55]));
    assert_eq!(log.tail.bytes, newest_five);
    // A lower hint (a slower voter came back) evicts nothing more.
    log.release_reads_below(bases[10]);
    assert_eq!(log.tail.first_offset(), Some(bases[55]));
    // Every read answers as before, from the cache or from the segments.
    for from in 0..=next {
        for max in [0, 100, 1000, usize::MAX] {
            assert_eq!(
                mem.read(from, max),
                log.read(from, max),
                "read({from}, {max})"
            );
        }
    }
}

#[test]
fn mixed_and_oversized_batches_are_refused() {
    let dir = TempDir::new("disklog-refused");
    let mut log = open(dir.path());
    let mut records = data(&[b"a"]);
    records.push(Record::Control(ControlRecord::KRaftVersion(1)));
    assert!(matches!(
        log.append(batch(0, 1, records)),
        Err(LogError::Storage(_))
    ));
    let huge = vec![0u8; 70 * 1024];
    assert!(matches!(
        log.append(batch(0, 1, data(&[&huge]))),
        Err(LogError::BatchTooLarge { size, max }) if size > 70 * 1024 && max == 64 * 1024
    ));
    assert_eq!(log.end_offset(), 0);
    assert!(log.failure().is_none());
    log.append(batch(0, 1, data(&[b"ok"]))).unwrap();
}

/// A single voter elects itself and commits proposals over a DiskLog, then
/// restarts from the same directory.
#[test]
fn raft_core_runs_over_disk_log() {
    let dir = TempDir::new("disklog-core");
    let dir_id = Uuid::from_u64_pair(1, 1);
    let mut cfg = RaftConfig::new(
        1,
        dir_id,
        "cluster",
        Endpoints::single("CONTROLLER", "localhost", 9093),
        "CONTROLLER",
    );
    cfg.static_voters = VoterSet::new([VoterNode::new(
        ReplicaKey::of(1, dir_id),
        Endpoints::single("CONTROLLER", "localhost", 9093),
        KRaftVersionRange::new(0, 1),
    )]);
    let mut election = None;
    for life in 0..2u64 {
        let mut core = RaftCore::new(
            cfg.clone(),
            open(dir.path()),
            election.clone(),
            Box::new(SplitMix64::new(life)),
            0,
        )
        .unwrap();
        let mut committed: Vec<Bytes> = Vec::new();
        let mut now = 0;
        let mut proposed = false;
        for _ in 0..2000 {
            now += 10;
            core.tick(now);
            if core.role() == Role::Leader && !proposed {
                core.propose(vec![Bytes::from(format!("life {life}"))], now)
                    .unwrap();
                proposed = true;
            }
            for action in core.take_actions() {
                match action {
                    Action::PersistElectionState { state, .. } => election = Some(state),
                    Action::Flush { up_to } => {
                        let durable = core.log_mut().flush().unwrap();
                        assert!(durable >= up_to);
                        core.flushed(up_to, now);
                    }
                    Action::Committed { batches } => committed.extend(data_records_of(&batches)),
                    _ => {}
                }
            }
            if committed.len() == life as usize + 1 {
                break;
            }
        }
        // Each life replays what the previous ones committed, then its own.
        let expected: Vec<Bytes> = (0..=life)
            .map(|l| Bytes::from(format!("life {l}")))
            .collect();
        assert_eq!(committed, expected, "life {life}");
        assert!(core.violations().is_empty(), "{:?}", core.violations());
        assert_eq!(core.log().flushed_offset(), core.log().end_offset());
    }
}

/// A log of 60 batches over several segments with snapshots at offsets
/// 40, 80 and 120 (each a batch end).
fn log_with_three_snapshots(dir: &Path) -> (DiskLog, Vec<SnapshotId>) {
    let mut log = open(dir);
    let mut next = 0;
    for i in 0..60 {
        let b = batch(next, 1, data(&[vec![i as u8; 40].as_slice(), b"y"]));
        next = b.next_offset();
        log.append(b).unwrap();
    }
    log.flush().unwrap();
    let control = SnapshotControl {
        kraft_version: Some(1),
        voters: Some(voters(&[1, 2, 3])),
    };
    let ids = [40, 80, 120]
        .iter()
        .map(|end| {
            log.create_snapshot(*end, &control, [Bytes::from_static(b"state")])
                .unwrap()
                .unwrap()
        })
        .collect();
    (log, ids)
}

#[test]
fn retention_by_size_keeps_the_latest_snapshot_and_moves_the_log_start() {
    let dir = TempDir::new("disklog-retention-size");
    let (mut log, ids) = log_with_three_snapshots(dir.path());
    let segments_before = log.file_log().segment_base_offsets();
    assert!(segments_before.len() > 3, "{segments_before:?}");
    // Without a bootstrap checkpoint the oldest snapshot is the log start.
    assert_eq!(log.start_offset(), 40);

    // Unlimited, or large enough: nothing changes.
    let unlimited = Retention {
        max_bytes: -1,
        max_ms: -1,
    };
    assert!(!log.maybe_clean(unlimited, T).unwrap());
    let roomy = Retention {
        max_bytes: 1 << 30,
        max_ms: -1,
    };
    assert!(!log.maybe_clean(roomy, T).unwrap());
    assert_eq!(log.start_offset(), 40);
    assert_eq!(log.earliest_snapshot_id(), Some(ids[0]));

    // 0 bytes: every snapshot but the latest goes, the log starts at it and
    // only the segments wholly below it are deleted.
    let tight = Retention {
        max_bytes: 0,
        max_ms: -1,
    };
    assert!(log.maybe_clean(tight, T).unwrap());
    assert_eq!(log.earliest_snapshot_id(), Some(ids[2]));
    assert_eq!(log.latest_snapshot().map(|s| s.id), Some(ids[2]));
    assert_eq!(log.start_offset(), 120);
    let segments = log.file_log().segment_base_offsets();
    assert!(segments[0] > 0 && segments[0] <= 120, "{segments:?}");
    assert!(segments.len() < segments_before.len());
    assert!(log.read(0, usize::MAX).is_empty());
    assert_eq!(log.end_offset(), 120);
    // Nothing left to delete.
    assert!(!log.maybe_clean(tight, T).unwrap());

    // The state survives a reopen.
    drop(log);
    let log = open(dir.path());
    assert_eq!(log.start_offset(), 120);
    assert_eq!(log.latest_snapshot().map(|s| s.id), Some(ids[2]));
}

#[test]
fn retention_by_time_deletes_only_snapshots_older_than_the_limit() {
    let dir = TempDir::new("disklog-retention-time");
    let (mut log, ids) = log_with_three_snapshots(dir.path());
    // Snapshot timestamps are the append times of their last batches:
    // T + 38, T + 78 and T + 118. At T + 100 with 50 ms, only the first is
    // too old.
    let retention = Retention {
        max_bytes: -1,
        max_ms: 50,
    };
    assert!(log.maybe_clean(retention, T + 100).unwrap());
    assert_eq!(log.earliest_snapshot_id(), Some(ids[1]));
    assert_eq!(log.start_offset(), 80);
    // Much later, every older snapshot goes but the latest stays.
    assert!(log.maybe_clean(retention, T + 10_000).unwrap());
    assert_eq!(log.earliest_snapshot_id(), Some(ids[2]));
    assert_eq!(log.start_offset(), 120);
}

/// Appends `count` one-record batches of epoch 1 at the log end.
fn append_batches(log: &mut DiskLog, count: usize) {
    for _ in 0..count {
        let base = log.end_offset();
        log.append(batch(base, 1, data(&[b"value"]))).unwrap();
    }
}

#[test]
fn a_detached_flush_makes_the_appends_before_it_durable() {
    let dir = TempDir::new("disklog-detached-flush");
    let mut log = open(dir.path());
    append_batches(&mut log, 3);
    let job = log
        .begin_flush()
        .unwrap()
        .expect("DiskLog detaches flushes");
    assert!(!job.is_noop());
    assert_eq!(job.end_offset(), 3);
    // Appends made while the fsync runs are not covered by it.
    append_batches(&mut log, 2);
    let outcome = std::thread::spawn(move || job.run()).join().unwrap();
    assert_eq!(log.flushed_offset(), 0);
    assert_eq!(log.finish_flush(outcome).unwrap(), 3);
    assert_eq!(log.flushed_offset(), 3);
    // The later appends are still pending: the next flush does real work.
    let next = log.begin_flush().unwrap().unwrap();
    assert!(!next.is_noop());
    assert_eq!(log.finish_flush(next.run()).unwrap(), 5);
    let idle = log.begin_flush().unwrap().unwrap();
    assert!(idle.is_noop());
    assert_eq!(log.finish_flush(idle.run()).unwrap(), 5);
}

#[test]
fn an_inline_flush_during_a_detached_one_still_fsyncs() {
    let dir = TempDir::new("disklog-detached-then-inline");
    let mut log = open(dir.path());
    append_batches(&mut log, 2);
    let job = log.begin_flush().unwrap().unwrap();
    // The detached fsync has not run: an inline flush must not skip its own.
    assert_eq!(log.flush().unwrap(), 2);
    assert_eq!(log.finish_flush(job.run()).unwrap(), 2);
}

#[test]
fn a_detached_flush_begun_before_a_truncation_covers_nothing_after_it() {
    let dir = TempDir::new("disklog-detached-truncated");
    let mut log = open(dir.path());
    append_batches(&mut log, 4);
    log.flush().unwrap();
    append_batches(&mut log, 4);
    let job = log.begin_flush().unwrap().unwrap();
    assert_eq!(job.end_offset(), 8);
    assert_eq!(log.truncate_to(6), 6);
    let base = log.end_offset();
    log.append(batch(base, 2, data(&[b"new"]))).unwrap();
    log.append(batch(base + 1, 2, data(&[b"new"]))).unwrap();
    log.finish_flush(job.run()).unwrap();
    // The re-appended offsets 6 and 7 were written after the fsync began.
    assert!(log.flushed_offset() <= 6, "{}", log.flushed_offset());
    assert_eq!(log.flush().unwrap(), 8);
}

#[test]
fn a_failed_detached_fsync_fails_the_log() {
    let dir = TempDir::new("disklog-detached-failed");
    let mut log = open(dir.path());
    append_batches(&mut log, 2);
    let job = log.begin_flush().unwrap().unwrap();
    let mut outcome = job.run();
    outcome.result = Err(StorageError::Io {
        path: dir.path().to_path_buf(),
        source: std::io::Error::other("injected fsync failure"),
    });
    assert!(matches!(
        log.finish_flush(outcome),
        Err(StorageError::Io { .. })
    ));
    assert!(log.failure().is_some());
    assert_eq!(log.flushed_offset(), 0);
    // Never retried: every later flush and change is refused.
    assert!(matches!(log.flush(), Err(StorageError::Failed { .. })));
    assert!(matches!(
        log.begin_flush(),
        Err(StorageError::Failed { .. })
    ));
    let base = log.end_offset();
    assert!(log.append(batch(base, 1, data(&[b"x"]))).is_err());
}
