#![allow(clippy::unwrap_used)]

use std::fs::OpenOptions;
use std::io::Write;
use std::path::{Path, PathBuf};

use bytes::Bytes;
use kraft_protocol::records::{
    batches, ControlRecordType, NewRecord, RecordBatch, RecordBatchBuilder,
};
use uuid::Uuid;

use super::segment::{ZERO_TAIL_CHUNK, ZERO_TAIL_MARK};
use super::*;
use crate::core::types::{OffsetAndEpoch, ReplicaKey};
use crate::core::ElectionState;

const T: i64 = 1_700_000_000_000;

use kraft_testkit::TempDir;

fn small_config() -> LogConfig {
    LogConfig {
        segment_bytes: 1000,
        index_interval_bytes: 200,
        max_batch_size: 64 * 1024,
    }
}

fn data_batch(base: i64, epoch: i32, records: usize, value_len: usize) -> RecordBatch {
    let values: Vec<Vec<u8>> = (0..records)
        .map(|i| vec![(base as u8).wrapping_add(i as u8); value_len])
        .collect();
    let mut b = RecordBatchBuilder::new(base, epoch, T);
    for v in &values {
        b.push(NewRecord::value(v));
    }
    RecordBatch::parse(b.build()).unwrap()
}

/// Appends `count` batches of 2 records each, epochs from `epoch_of`.
fn fill(log: &mut FileLog, count: usize, epoch_of: impl Fn(usize) -> i32) -> Vec<RecordBatch> {
    (0..count)
        .map(|i| {
            let b = data_batch(log.log_end_offset(), epoch_of(i), 2, 40);
            log.append(&b).unwrap();
            b
        })
        .collect()
}

fn open(dir: &Path, config: LogConfig) -> (FileLog, RecoveryReport) {
    FileLog::open(dir, config).unwrap()
}

fn read_all(log: &FileLog) -> Vec<RecordBatch> {
    let bytes = log.read(log.log_start_offset(), usize::MAX).unwrap();
    batches(bytes).map(Result::unwrap).collect()
}

fn active_segment_path(log: &FileLog) -> PathBuf {
    let base = *log.segment_base_offsets().last().unwrap();
    log.dir().join(format!("{base:020}.log"))
}

/// A snapshot: header batch, one data batch, footer batch.
fn snapshot_bytes(epoch: i32) -> Vec<u8> {
    let mut header_value = vec![0, 0];
    header_value.extend_from_slice(&T.to_be_bytes());
    header_value.push(0);
    let mut out = Vec::new();
    let mut h = RecordBatchBuilder::new_control(0, epoch, T);
    h.push(NewRecord::control(
        ControlRecordType::SnapshotHeader,
        &header_value,
    ));
    h.write_to(&mut out);
    let mut d = RecordBatchBuilder::new(1, epoch, T);
    d.push(NewRecord::value(b"state"));
    d.write_to(&mut out);
    let mut f = RecordBatchBuilder::new_control(2, epoch, T);
    f.push(NewRecord::control(
        ControlRecordType::SnapshotFooter,
        &[0, 0, 0],
    ));
    f.write_to(&mut out);
    out
}

fn write_snapshot(log: &mut FileLog, id: SnapshotId) {
    let mut w = log.create_snapshot(id).unwrap();
    w.append(&snapshot_bytes(id.epoch)).unwrap();
    log.freeze_snapshot(w).unwrap();
}

#[test]
fn append_read_flush_reopen() {
    let dir = TempDir::new("storage-basic");
    let (mut log, report) = open(dir.path(), LogConfig::default());
    assert_eq!(report.truncated_tail, None);
    assert_eq!((log.log_start_offset(), log.log_end_offset()), (0, 0));
    assert_eq!(log.last_fetched_epoch(), 0);
    let written = fill(&mut log, 10, |i| 1 + (i as i32) / 3);
    assert_eq!(log.log_end_offset(), 20);
    assert_eq!(log.flushed_offset(), 0);
    log.flush().unwrap();
    assert_eq!(log.flushed_offset(), 20);
    assert_eq!(log.last_fetched_epoch(), 4);
    assert_eq!(
        log.epoch_cache().entries(),
        &[(1, 0), (2, 6), (3, 12), (4, 18)]
    );
    assert_eq!(read_all(&log), written);
    assert!(dir.path().join("00000000000000000000.log").exists());
    assert!(dir.path().join("00000000000000000000.index").exists());
    drop(log);

    let (log, report) = open(dir.path(), LogConfig::default());
    assert_eq!(report.truncated_tail, None);
    assert_eq!(report.log_end_offset, 20);
    assert_eq!(
        log.epoch_cache().entries(),
        &[(1, 0), (2, 6), (3, 12), (4, 18)]
    );
    assert_eq!(read_all(&log), written);
    // reads from every offset start with the batch containing it
    for offset in 0..20 {
        let first = batches(log.read(offset, 1).unwrap())
            .next()
            .unwrap()
            .unwrap();
        assert_eq!(first.base_offset(), offset - offset % 2);
    }
    assert_eq!(log.read(20, 100).unwrap().len(), 0);
    assert!(matches!(
        log.read(21, 100),
        Err(StorageError::OffsetOutOfRange { .. })
    ));
}

#[test]
fn read_returns_whole_batches_within_the_limit() {
    let dir = TempDir::new("storage-read");
    let (mut log, _) = open(dir.path(), LogConfig::default());
    let written = fill(&mut log, 5, |_| 1);
    let size = written[0].size_in_bytes();
    // at least one batch even when it exceeds the limit
    assert_eq!(log.read(0, 1).unwrap().len(), size);
    assert_eq!(log.read(0, 2 * size - 1).unwrap().len(), size);
    assert_eq!(log.read(0, 2 * size).unwrap().len(), 2 * size);
    assert_eq!(log.read(4, 3 * size + 5).unwrap().len(), 3 * size);
    assert_eq!(log.read(8, usize::MAX).unwrap().len(), size);
}

#[test]
fn append_validation() {
    let dir = TempDir::new("storage-validate");
    let (mut log, _) = open(dir.path(), small_config());
    fill(&mut log, 2, |_| 5);
    assert!(matches!(
        log.append(&data_batch(3, 5, 1, 1)),
        Err(StorageError::OffsetMismatch { base: 3, end: 4 })
    ));
    assert!(matches!(
        log.append(&data_batch(4, 4, 1, 1)),
        Err(StorageError::EpochRegression { epoch: 4, last: 5 })
    ));
    assert!(matches!(
        log.append(&data_batch(4, 5, 1, 70 * 1024)),
        Err(StorageError::BatchTooLarge { .. })
    ));
    // a header-only batch (no records) is refused
    let empty = RecordBatch::parse(RecordBatchBuilder::new(4, 5, T).build()).unwrap();
    assert!(matches!(
        log.append(&empty),
        Err(StorageError::InvalidBatch(_))
    ));
    assert_eq!(log.log_end_offset(), 4);
    // append_records checks every batch before appending any
    let mut buf = Vec::new();
    buf.extend_from_slice(data_batch(4, 5, 2, 3).as_bytes());
    buf.extend_from_slice(data_batch(7, 5, 2, 3).as_bytes()); // gap
    assert!(log.append_records(Bytes::from(buf)).is_err());
    assert_eq!(log.log_end_offset(), 4);
    // a partial trailing batch is ignored
    let mut buf = Vec::new();
    buf.extend_from_slice(data_batch(4, 5, 2, 3).as_bytes());
    let next = data_batch(6, 6, 2, 3);
    buf.extend_from_slice(next.as_bytes());
    buf.extend_from_slice(&data_batch(8, 6, 2, 3).as_bytes()[..30]);
    assert_eq!(log.append_records(Bytes::from(buf)).unwrap(), Some((4, 7)));
    assert_eq!(log.log_end_offset(), 8);
    assert_eq!(log.append_records(Bytes::new()).unwrap(), None);
}

#[test]
fn torn_tail_is_truncated_at_start_up() {
    let dir = TempDir::new("storage-torn");
    let (mut log, _) = open(dir.path(), LogConfig::default());
    let written = fill(&mut log, 5, |_| 2);
    log.flush().unwrap();
    let path = active_segment_path(&log);
    drop(log);
    let half = data_batch(10, 2, 2, 40);
    let cut = half.size_in_bytes() / 2;
    OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap()
        .write_all(&half.as_bytes()[..cut])
        .unwrap();

    let (mut log, report) = open(dir.path(), LogConfig::default());
    let tail = report.truncated_tail.unwrap();
    assert_eq!(tail.segment, path);
    assert_eq!(tail.dropped_bytes, cut as u64);
    assert_eq!(
        tail.damage,
        TailDamage::Torn {
            available: cut as u64,
            declared_size: Some(half.size_in_bytes() as u64)
        }
    );
    assert_eq!(log.log_end_offset(), 10);
    assert_eq!(read_all(&log), written);
    // the log continues where the good data ended
    log.append(&half).unwrap();
    log.flush().unwrap();
    drop(log);
    let (log, report) = open(dir.path(), LogConfig::default());
    assert_eq!(report.truncated_tail, None);
    assert_eq!(log.log_end_offset(), 12);
}

#[test]
fn torn_tail_at_every_length() {
    let dir = TempDir::new("storage-torn-every");
    let (mut log, _) = open(dir.path(), LogConfig::default());
    fill(&mut log, 2, |_| 1);
    let last = data_batch(4, 1, 2, 10);
    log.append(&last).unwrap();
    log.flush().unwrap();
    let path = active_segment_path(&log);
    drop(log);
    let full = std::fs::read(&path).unwrap();
    let good = full.len() - last.size_in_bytes();
    for cut in good..full.len() {
        std::fs::write(&path, &full[..cut]).unwrap();
        let (log, report) = open(dir.path(), LogConfig::default());
        assert_eq!(log.log_end_offset(), 4, "cut {cut}");
        // A torn batch whose bytes so far are zeros (the high bytes of its
        // base offset) reads as a zero tail: dropped too, not reported.
        let zeros = full[good..cut].iter().all(|&b| b == 0);
        let expected = if zeros {
            None
        } else {
            Some((cut - good) as u64)
        };
        assert_eq!(
            report.truncated_tail.map(|t| t.dropped_bytes),
            expected,
            "cut {cut}"
        );
        let expected_zeros = if zeros { (cut - good) as u64 } else { 0 };
        assert_eq!(report.zero_tail_bytes, expected_zeros, "cut {cut}");
        assert_eq!(std::fs::metadata(&path).unwrap().len(), good as u64);
    }
}

#[test]
fn crc_corruption_in_the_tail_is_truncated() {
    let dir = TempDir::new("storage-crc");
    let (mut log, _) = open(dir.path(), LogConfig::default());
    let written = fill(&mut log, 5, |_| 3);
    log.flush().unwrap();
    let path = active_segment_path(&log);
    drop(log);
    let mut bytes = std::fs::read(&path).unwrap();
    let size = written[0].size_in_bytes();
    bytes[2 * size + 70] ^= 0x40; // inside the third batch's records
    std::fs::write(&path, &bytes).unwrap();

    let (log, report) = open(dir.path(), LogConfig::default());
    let tail = report.truncated_tail.unwrap();
    assert_eq!(tail.position, 2 * size as u64);
    assert_eq!(tail.dropped_bytes, 3 * size as u64);
    assert!(matches!(tail.damage, TailDamage::Corrupt(ref r) if r.contains("CRC")));
    assert_eq!(log.log_end_offset(), 4);
    assert_eq!(read_all(&log), written[..2].to_vec());
}

#[test]
fn small_appends_write_a_zero_tail_ahead_that_recovery_and_closing_remove() {
    let dir = TempDir::new("storage-zeros");
    let config = LogConfig {
        segment_bytes: 1024 * 1024,
        ..LogConfig::default()
    };
    let (mut log, _) = open(dir.path(), config.clone());
    let path = active_segment_path(&log);
    let file_len = || std::fs::metadata(&path).unwrap().len();
    // The first small append writes zeros up to the chunk; the next ones
    // overwrite them: the file does not grow.
    let mut written = fill(&mut log, 1, |_| 1);
    assert_eq!(file_len(), ZERO_TAIL_CHUNK);
    written.extend(fill(&mut log, 40, |_| 1));
    log.flush().unwrap();
    let data: u64 = written.iter().map(|b| b.size_in_bytes() as u64).sum();
    assert!(data < ZERO_TAIL_CHUNK, "{data}");
    assert_eq!(file_len(), ZERO_TAIL_CHUNK);
    // Past the chunk: zeros up to the next multiple of it.
    while written
        .iter()
        .map(|b| b.size_in_bytes() as u64)
        .sum::<u64>()
        <= ZERO_TAIL_CHUNK
    {
        written.extend(fill(&mut log, 1, |_| 1));
    }
    log.flush().unwrap();
    assert_eq!(file_len(), 2 * ZERO_TAIL_CHUNK);
    assert_eq!(read_all(&log), written);
    // The data, the mark a batch reader stops at, zeros.
    let bytes = std::fs::read(&path).unwrap();
    let data = written.iter().map(|b| b.size_in_bytes()).sum::<usize>();
    let batches_bytes: Vec<u8> = written.iter().flat_map(|b| b.as_bytes().to_vec()).collect();
    assert_eq!(bytes[..data], batches_bytes[..]);
    assert_eq!(bytes[data..data + 12], ZERO_TAIL_MARK);
    assert!(bytes[data + 12..].iter().all(|&b| b == 0));

    // A controller that stops without closing its log (kill -9) leaves the
    // zeros: recovery drops them without calling them damage.
    std::mem::forget(log);
    let (mut log, report) = open(dir.path(), config.clone());
    let data: u64 = written.iter().map(|b| b.size_in_bytes() as u64).sum();
    assert_eq!(report.truncated_tail, None);
    assert_eq!(report.zero_tail_bytes, 2 * ZERO_TAIL_CHUNK - data);
    assert_eq!(file_len(), data);
    assert_eq!(read_all(&log), written);

    // Closing the log cuts the zero tail.
    written.extend(fill(&mut log, 3, |_| 2));
    log.flush().unwrap();
    assert!(file_len() > data);
    drop(log);
    let data: u64 = written.iter().map(|b| b.size_in_bytes() as u64).sum();
    assert_eq!(file_len(), data);
    let (log, report) = open(dir.path(), config);
    assert_eq!((report.truncated_tail, report.zero_tail_bytes), (None, 0));
    assert_eq!(read_all(&log), written);
}

#[test]
fn a_zero_tail_stays_within_segment_bytes_and_is_cut_when_the_segment_rolls() {
    let dir = TempDir::new("storage-zeros-roll");
    let (mut log, _) = open(dir.path(), small_config());
    let written = fill(&mut log, 20, |_| 1);
    let bases = log.segment_base_offsets();
    assert!(bases.len() > 2, "{bases:?}");
    let len = |base: &i64| {
        std::fs::metadata(dir.path().join(format!("{base:020}.log")))
            .unwrap()
            .len()
    };
    // Rolled segments hold their batches only; the active one is zero
    // filled up to segment_bytes.
    let per_segment = (1000 / written[0].size_in_bytes()) as u64;
    for base in &bases[..bases.len() - 1] {
        assert_eq!(len(base), per_segment * written[0].size_in_bytes() as u64);
    }
    assert_eq!(len(bases.last().unwrap()), 1000);
    drop(log);
    assert!(len(bases.last().unwrap()) < 1000);
}

#[test]
fn zeros_after_the_data_of_an_older_segment_are_an_error() {
    let dir = TempDir::new("storage-zeros-old");
    let (mut log, _) = open(dir.path(), small_config());
    fill(&mut log, 20, |_| 1);
    drop(log);
    let first = dir.path().join("00000000000000000000.log");
    OpenOptions::new()
        .append(true)
        .open(&first)
        .unwrap()
        .write_all(&[0u8; 4096])
        .unwrap();
    let err = FileLog::open(dir.path(), small_config()).unwrap_err();
    assert!(
        matches!(&err, StorageError::Corrupt { reason, .. } if reason.contains("zero bytes")),
        "{err}"
    );
}

#[test]
fn damage_in_an_older_segment_is_an_error() {
    let dir = TempDir::new("storage-old-damage");
    let (mut log, _) = open(dir.path(), small_config());
    fill(&mut log, 20, |_| 1);
    log.flush().unwrap();
    assert!(log.segment_base_offsets().len() > 2);
    drop(log);
    let first = dir.path().join("00000000000000000000.log");
    let mut bytes = std::fs::read(&first).unwrap();
    bytes[8..12].copy_from_slice(&7i32.to_be_bytes()); // impossible batch length
    std::fs::write(&first, &bytes).unwrap();
    let err = FileLog::open(dir.path(), small_config()).unwrap_err();
    assert!(matches!(err, StorageError::Corrupt { .. }), "{err}");
}

#[test]
fn truncate_then_append() {
    let dir = TempDir::new("storage-truncate");
    let (mut log, _) = open(dir.path(), LogConfig::default());
    let written = fill(&mut log, 10, |i| if i < 5 { 1 } else { 2 });
    log.flush().unwrap();
    assert_eq!(log.epoch_cache().entries(), &[(1, 0), (2, 10)]);
    // an offset inside a batch truncates the whole batch
    assert_eq!(log.truncate_to(13).unwrap(), 12);
    assert_eq!(log.epoch_cache().entries(), &[(1, 0), (2, 10)]);
    assert_eq!(log.truncate_to(10).unwrap(), 10);
    assert_eq!(log.epoch_cache().entries(), &[(1, 0)]);
    assert_eq!(log.flushed_offset(), 10);
    assert_eq!(log.truncate_to(50).unwrap(), 10);
    let b = data_batch(10, 3, 2, 40);
    log.append(&b).unwrap();
    log.flush().unwrap();
    assert_eq!(log.epoch_cache().entries(), &[(1, 0), (3, 10)]);
    let mut expected = written[..5].to_vec();
    expected.push(b);
    assert_eq!(read_all(&log), expected);
    drop(log);
    let (log, report) = open(dir.path(), LogConfig::default());
    assert_eq!(report.truncated_tail, None);
    assert_eq!(read_all(&log), expected);
    assert_eq!(log.epoch_cache().entries(), &[(1, 0), (3, 10)]);
    assert_eq!(log.end_offset_for_epoch(2), OffsetAndEpoch::new(10, 1));
    let mut log = log;
    assert_eq!(log.truncate_to(0).unwrap(), 0);
    assert_eq!(log.last_fetched_epoch(), 0);
}

#[test]
fn segments_roll_at_segment_bytes() {
    let dir = TempDir::new("storage-roll");
    let (mut log, _) = open(dir.path(), small_config());
    let written = fill(&mut log, 20, |i| 1 + i as i32 / 7);
    let size = written[0].size_in_bytes() as u64;
    let per_segment = 1000 / size;
    let bases = log.segment_base_offsets();
    assert_eq!(bases.len() as u64, 20_u64.div_ceil(per_segment));
    for (i, base) in bases.iter().enumerate() {
        assert_eq!(*base, (i as u64 * per_segment * 2) as i64);
        let path = dir.path().join(format!("{base:020}.log"));
        assert!(std::fs::metadata(&path).unwrap().len() <= 1000);
    }
    // reads cross segment boundaries
    assert_eq!(read_all(&log), written);
    log.flush().unwrap();
    drop(log);
    let (mut log, report) = open(dir.path(), small_config());
    assert_eq!(report.segments, bases.len());
    assert_eq!(read_all(&log), written);
    // truncation deletes whole segments
    let cut = bases[1] + 2;
    assert_eq!(log.truncate_to(cut).unwrap(), cut);
    assert_eq!(log.segment_base_offsets(), bases[..2].to_vec());
    assert!(!dir.path().join(format!("{:020}.log", bases[2])).exists());
    assert!(!dir.path().join(format!("{:020}.index", bases[2])).exists());
    // truncating exactly at a segment base removes that segment
    assert_eq!(log.truncate_to(bases[1]).unwrap(), bases[1]);
    assert_eq!(log.segment_base_offsets(), bases[..1].to_vec());
    log.append(&data_batch(bases[1], 9, 2, 40)).unwrap();
    assert_eq!(log.segment_base_offsets(), bases[..2].to_vec());
}

#[test]
fn index_file_uses_kafka_layout_and_survives_reopen() {
    let dir = TempDir::new("storage-index");
    let config = LogConfig {
        index_interval_bytes: 1,
        ..LogConfig::default()
    };
    let (mut log, _) = open(dir.path(), config.clone());
    let written = fill(&mut log, 6, |_| 1);
    log.flush().unwrap();
    let index_path = dir.path().join("00000000000000000000.index");
    let index = std::fs::read(&index_path).unwrap();
    // one entry per batch: (last offset - base, position)
    assert_eq!(index.len(), 6 * 8);
    let size = written[0].size_in_bytes() as u32;
    for i in 0..6u32 {
        let e = &index[i as usize * 8..i as usize * 8 + 8];
        assert_eq!(&e[..4], &(2 * i + 1).to_be_bytes());
        assert_eq!(&e[4..], &(i * size).to_be_bytes());
    }
    // a damaged index is rebuilt from the segment at start-up
    std::fs::write(&index_path, b"garbage").unwrap();
    drop(log);
    let (log, _) = open(dir.path(), config);
    assert_eq!(std::fs::read(&index_path).unwrap(), index);
    for offset in 0..12 {
        let first = batches(log.read(offset, 1).unwrap())
            .next()
            .unwrap()
            .unwrap();
        assert_eq!(first.base_offset(), offset - offset % 2);
    }
}

#[test]
fn snapshots_and_log_start_advancement() {
    let dir = TempDir::new("storage-snapshots");
    let (mut log, _) = open(dir.path(), small_config());
    fill(&mut log, 20, |i| 1 + i as i32 / 5);
    log.flush().unwrap();
    let bases = log.segment_base_offsets();
    // the bootstrap-style snapshot at (0, 0) keeps the log start at 0
    write_snapshot(&mut log, SnapshotId::new(0, 0));
    let id = SnapshotId::new(24, 3);
    write_snapshot(&mut log, id);
    assert!(dir
        .path()
        .join("00000000000000000024-0000000003.checkpoint")
        .exists());
    assert_eq!(log.log_start_offset(), 0);
    assert_eq!(log.snapshots().latest(), Some(id));
    assert_eq!(log.snapshots().earliest(), Some(SnapshotId::new(0, 0)));
    let loaded = log.snapshots().load(id).unwrap();
    assert_eq!(&loaded[..], &snapshot_bytes(3)[..]);
    let size = log.snapshots().size(id).unwrap();
    assert_eq!(size, loaded.len() as u64);
    let chunk = log.snapshots().read_chunk(id, 10, 20).unwrap();
    assert_eq!(&chunk[..], &loaded[10..30]);
    assert_eq!(log.snapshots().read_chunk(id, size, 20).unwrap().len(), 0);
    assert!(log.snapshots().read_chunk(id, size + 1, 20).is_err());

    // misaligned, out-of-range and duplicate snapshot ids are refused
    assert!(log.create_snapshot(SnapshotId::new(25, 3)).is_err());
    assert!(log.create_snapshot(SnapshotId::new(41, 3)).is_err());
    assert!(log.create_snapshot(id).is_err());
    // an epoch that ended before that offset (Kafka's validateOffsetAndEpoch)
    assert!(log.create_snapshot(SnapshotId::new(24, 2)).is_err());

    assert!(log.delete_before_snapshot(id).unwrap());
    assert_eq!(log.log_start_offset(), 24);
    assert_eq!(log.snapshots().ids().collect::<Vec<_>>(), vec![id]);
    let remaining = log.segment_base_offsets();
    assert!(remaining.len() < bases.len());
    assert!(remaining[0] <= 24);
    assert!(remaining.get(1).is_none_or(|b| *b > 24));
    for base in &bases {
        let exists = dir.path().join(format!("{base:020}.log")).exists();
        assert_eq!(exists, remaining.contains(base));
    }
    assert!(matches!(
        log.read(22, 100),
        Err(StorageError::OffsetOutOfRange { .. })
    ));
    assert_eq!(
        batches(log.read(24, 1).unwrap())
            .next()
            .unwrap()
            .unwrap()
            .base_offset(),
        24
    );
    assert_eq!(log.epoch_cache().entries()[0], (3, 24));
    // the epoch of the log start answers with the snapshot id
    assert_eq!(log.end_offset_for_epoch(2), id);
    assert_eq!(log.end_offset_for_epoch(3), OffsetAndEpoch::new(30, 3));
    assert!(log.truncate_to(20).is_err());
    assert!(!log.delete_before_snapshot(id).unwrap());

    drop(log);
    let (log, report) = open(dir.path(), small_config());
    assert_eq!(report.log_start_offset, 24);
    assert_eq!(report.log_end_offset, 40);
    assert_eq!(log.snapshots().ids().collect::<Vec<_>>(), vec![id]);
    assert_eq!(log.epoch_cache().entries()[0], (3, 24));
    let rest = read_all(&log);
    assert_eq!(rest.len(), 8);
    assert_eq!(rest[0].base_offset(), 24);
}

#[test]
fn invalid_snapshots_are_refused_and_partials_cleaned() {
    let dir = TempDir::new("storage-bad-snapshot");
    let (mut log, _) = open(dir.path(), LogConfig::default());
    fill(&mut log, 3, |_| 1);
    let id = SnapshotId::new(4, 1);
    // no footer
    let mut w = log.create_snapshot(id).unwrap();
    let bytes = snapshot_bytes(1);
    let cut = bytes.len() - data_batch(0, 0, 0, 0).size_in_bytes() - 8;
    w.append(&bytes[..cut]).unwrap();
    let tmp = w.temp_path().to_path_buf();
    assert!(tmp.exists());
    assert!(log.freeze_snapshot(w).is_err());
    assert!(!tmp.exists());
    assert!(!log.snapshots().contains(id));
    // a writer dropped without freezing leaves nothing behind
    let w = log.create_snapshot(id).unwrap();
    let tmp = w.temp_path().to_path_buf();
    drop(w);
    assert!(!tmp.exists());
    // leftover .part / .deleted files are removed at start-up
    let part = dir
        .path()
        .join("00000000000000000004-0000000001-99.checkpoint.part");
    let deleted = dir
        .path()
        .join("00000000000000000002-0000000001.checkpoint.deleted");
    std::fs::write(&part, b"partial").unwrap();
    std::fs::write(&deleted, b"old").unwrap();
    drop(log);
    let (_, report) = open(dir.path(), LogConfig::default());
    assert!(report.removed_files.contains(&part));
    assert!(report.removed_files.contains(&deleted));
    assert!(!part.exists() && !deleted.exists());
}

#[test]
fn downloaded_snapshot_ahead_of_the_log_replaces_it() {
    let dir = TempDir::new("storage-download");
    let (mut log, _) = open(dir.path(), small_config());
    fill(&mut log, 4, |_| 1);
    write_snapshot(&mut log, SnapshotId::new(0, 0));
    let id = SnapshotId::new(100, 7);
    let mut w = log.begin_snapshot_download(id).unwrap();
    let bytes = snapshot_bytes(7);
    for chunk in bytes.chunks(17) {
        w.append(chunk).unwrap();
    }
    assert_eq!(w.size(), bytes.len() as u64);
    log.freeze_snapshot(w).unwrap();
    assert_eq!(log.log_start_offset(), 100);
    assert_eq!(log.log_end_offset(), 100);
    assert_eq!(log.last_fetched_epoch(), 7);
    assert_eq!(log.snapshots().ids().collect::<Vec<_>>(), vec![id]);
    assert_eq!(log.segment_base_offsets(), vec![100]);
    assert!(!dir.path().join("00000000000000000000.log").exists());
    assert_eq!(log.end_offset_for_epoch(7), OffsetAndEpoch::new(100, 7));
    log.append(&data_batch(100, 8, 2, 10)).unwrap();
    log.flush().unwrap();
    drop(log);
    let (log, report) = open(dir.path(), small_config());
    assert_eq!(report.truncated_to_snapshot, None);
    assert_eq!((log.log_start_offset(), log.log_end_offset()), (100, 102));
}

#[test]
fn crash_after_download_truncates_at_start_up() {
    let dir = TempDir::new("storage-download-crash");
    let (mut log, _) = open(dir.path(), LogConfig::default());
    fill(&mut log, 4, |_| 1);
    log.flush().unwrap();
    drop(log);
    // a complete snapshot file ahead of the log, as if the crash happened
    // between freezing it and resetting the log
    std::fs::write(
        dir.path()
            .join("00000000000000000050-0000000004.checkpoint"),
        snapshot_bytes(4),
    )
    .unwrap();
    let (log, report) = open(dir.path(), LogConfig::default());
    assert_eq!(report.truncated_to_snapshot, Some(SnapshotId::new(50, 4)));
    assert_eq!((log.log_start_offset(), log.log_end_offset()), (50, 50));
    assert_eq!(log.last_fetched_epoch(), 4);
}

#[test]
fn log_without_covering_snapshot_is_refused() {
    let dir = TempDir::new("storage-uncovered");
    let (mut log, _) = open(dir.path(), LogConfig::default());
    log.truncate_fully_and_start_at(30).unwrap();
    log.append(&data_batch(30, 1, 2, 10)).unwrap();
    log.flush().unwrap();
    drop(log);
    assert!(matches!(
        FileLog::open(dir.path(), LogConfig::default()),
        Err(StorageError::Corrupt { .. })
    ));
}

#[test]
fn end_offset_for_epoch_matches_the_core_lookup() {
    let dir = TempDir::new("storage-epochs");
    let (mut log, _) = open(dir.path(), LogConfig::default());
    fill(&mut log, 9, |i| [1, 1, 3, 3, 3, 6, 8, 8, 8][i]);
    for epoch in -1..10 {
        let expected = crate::core::log::epoch_cache_lookup(
            log.epoch_cache().entries(),
            epoch,
            log.log_end_offset(),
            log.last_fetched_epoch(),
            log.snapshots().earliest(),
        );
        assert_eq!(log.end_offset_for_epoch(epoch), expected, "epoch {epoch}");
    }
    assert_eq!(log.end_offset_for_epoch(3), OffsetAndEpoch::new(10, 3));
    assert_eq!(log.end_offset_for_epoch(5), OffsetAndEpoch::new(10, 3));
    assert_eq!(log.end_offset_for_epoch(0), OffsetAndEpoch::new(0, 0));
    assert_eq!(log.end_offset_for_epoch(9), OffsetAndEpoch::new(18, 8));
}

// ------------------------------------------------------------ quorum-state

/// Written by Kafka 4.4.0's `FileQuorumStateStore.writeElectionState` (a
/// throw-away Java program on the kafka-raft 4.4.0 classpath printed the
/// file contents; no trailing newline).
const KAFKA_QUORUM_STATE: &[(&str, &str)] = &[
    (
        "v1_voted",
        r#"{"leaderId":-1,"leaderEpoch":2,"votedId":1,"votedDirectoryId":"J8aAPcfLQt2bqs1JT_rMgQ","data_version":1}"#,
    ),
    (
        "v1_leader",
        r#"{"leaderId":3,"leaderEpoch":5,"votedId":-1,"votedDirectoryId":"AAAAAAAAAAAAAAAAAAAAAA","data_version":1}"#,
    ),
    (
        "v0_leader",
        r#"{"clusterId":"","leaderId":1,"leaderEpoch":7,"votedId":-1,"appliedOffset":0,"currentVoters":[{"voterId":1},{"voterId":2},{"voterId":3}],"data_version":0}"#,
    ),
    (
        "v0_unknown",
        r#"{"clusterId":"","leaderId":-1,"leaderEpoch":0,"votedId":-1,"appliedOffset":0,"currentVoters":[],"data_version":0}"#,
    ),
];

fn kafka_quorum_state(name: &str) -> &'static str {
    KAFKA_QUORUM_STATE
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, j)| *j)
        .unwrap()
}

#[test]
fn quorum_state_matches_kafka_byte_for_byte() {
    let dir = Uuid::from_bytes([
        0x27, 0xc6, 0x80, 0x3d, 0xc7, 0xcb, 0x42, 0xdd, 0x9b, 0xaa, 0xcd, 0x49, 0x4f, 0xfa, 0xcc,
        0x81,
    ]);
    let cases = [
        (
            "v1_voted",
            ElectionState {
                epoch: 2,
                leader_id: None,
                voted_key: Some(ReplicaKey::of(1, dir)),
            },
            1,
            vec![],
        ),
        (
            "v1_leader",
            ElectionState {
                epoch: 5,
                leader_id: Some(3),
                voted_key: None,
            },
            1,
            vec![],
        ),
        (
            "v0_leader",
            ElectionState {
                epoch: 7,
                leader_id: Some(1),
                voted_key: None,
            },
            0,
            vec![1, 2, 3],
        ),
        ("v0_unknown", ElectionState::initial(), 0, vec![]),
    ];
    let tmp = TempDir::new("storage-quorum-state");
    let store = QuorumStateStore::new(tmp.path());
    assert_eq!(store.read().unwrap(), None);
    for (name, election, kraft_version, voters) in cases {
        let data = QuorumStateData::from_election_state(&election, kraft_version, &voters);
        assert_eq!(data.to_json(), kafka_quorum_state(name), "{name}");
        store
            .write_election_state(&election, kraft_version, &voters)
            .unwrap();
        let on_disk = std::fs::read_to_string(store.path()).unwrap();
        assert_eq!(on_disk, kafka_quorum_state(name));
        assert!(!tmp.path().join("quorum-state.tmp").exists());
        assert_eq!(store.read().unwrap(), Some(data));
        assert_eq!(store.read_election_state().unwrap(), Some(election));
    }
    store.clear().unwrap();
    assert_eq!(store.read().unwrap(), None);
}

#[test]
fn quorum_state_parses_kafka_files() {
    let d = QuorumStateData::from_json(kafka_quorum_state("v1_voted")).unwrap();
    assert_eq!(d.data_version, 1);
    assert_eq!((d.leader_id, d.leader_epoch, d.voted_id), (-1, 2, 1));
    assert_eq!(
        d.voted_directory_id.to_string(),
        "27c6803d-c7cb-42dd-9baa-cd494ffacc81"
    );
    let d = QuorumStateData::from_json(kafka_quorum_state("v0_leader")).unwrap();
    assert_eq!(d.current_voters, Some(vec![1, 2, 3]));
    assert_eq!(d.to_election_state().leader_id, Some(1));
    // Kafka's own test file (extra whitespace, unknown fields are fine)
    let d = QuorumStateData::from_json(
        "{\"clusterId\":\"\",\"leaderId\":9990,\"leaderEpoch\":3012,\"votedId\":-1,\
         \"appliedOffset\": 0,\"currentVoters\":[{\"voterId\":9990}],\"extra\":1,\"data_version\":0}\n",
    )
    .unwrap();
    assert_eq!(d.leader_epoch, 3012);
    // a voted key with the nil directory id has no directory
    let d = QuorumStateData::from_json(
        r#"{"leaderId":2,"leaderEpoch":6,"votedId":2,"votedDirectoryId":"AAAAAAAAAAAAAAAAAAAAAA","data_version":1}"#,
    )
    .unwrap();
    assert_eq!(
        d.to_election_state().voted_key,
        Some(ReplicaKey::without_directory(2))
    );
}

#[test]
fn corrupt_quorum_state_is_refused_not_reset() {
    let tmp = TempDir::new("storage-quorum-state-bad");
    let store = QuorumStateStore::new(tmp.path());
    let bad: &[&[u8]] = &[
        b"",
        b"\n",
        b"{\"leaderId\":-1,\"leaderEpoch\":2",
        b"[1,2,3]",
        b"{\"leaderId\":-1,\"leaderEpoch\":2,\"votedId\":1,\"votedDirectoryId\":\"J8aAPcfLQt2bqs1JT_rMgQ\"}",
        b"{\"leaderId\":-1,\"leaderEpoch\":2,\"votedId\":1,\"votedDirectoryId\":\"J8aAPcfLQt2bqs1JT_rMgQ\",\"data_version\":2}",
        b"{\"leaderId\":-1,\"leaderEpoch\":2,\"votedId\":1,\"data_version\":1}",
        b"{\"leaderId\":-1,\"leaderEpoch\":2,\"votedId\":1,\"votedDirectoryId\":\"not-a-uuid\",\"data_version\":1}",
        b"{\"leaderId\":\"x\",\"leaderEpoch\":2,\"votedId\":1,\"votedDirectoryId\":\"J8aAPcfLQt2bqs1JT_rMgQ\",\"data_version\":1}",
        b"{\"leaderId\":-1,\"leaderEpoch\":4294967296,\"votedId\":1,\"votedDirectoryId\":\"J8aAPcfLQt2bqs1JT_rMgQ\",\"data_version\":1}",
        b"{\"clusterId\":\"\",\"leaderId\":1,\"leaderEpoch\":7,\"votedId\":-1,\"appliedOffset\":0,\"data_version\":0}",
        b"\xff\xfe",
    ];
    for contents in bad {
        std::fs::write(store.path(), contents).unwrap();
        let err = store.read().unwrap_err();
        assert!(
            matches!(err, StorageError::QuorumState { .. }),
            "{:?}: {err}",
            String::from_utf8_lossy(contents)
        );
        // the file is left as it was for an operator to inspect
        assert_eq!(&std::fs::read(store.path()).unwrap()[..], *contents);
    }
}

/// Bytes of `path` resident in the page cache, as util-linux's `fincore`
/// reports them.
fn resident_bytes(path: &Path) -> u64 {
    let out = std::process::Command::new("fincore")
        .args(["--bytes", "--noheadings", "--output", "RES"])
        .arg(path)
        .output()
        .expect("fincore (util-linux) must be installed");
    assert!(out.status.success(), "fincore failed: {out:?}");
    String::from_utf8_lossy(&out.stdout).trim().parse().unwrap()
}

/// `count` batches of 16 records of 2000 bytes (about 32 KiB each).
fn fill_large(log: &mut FileLog, count: usize) -> Vec<RecordBatch> {
    (0..count)
        .map(|_| {
            let b = data_batch(log.log_end_offset(), 1, 16, 2000);
            log.append(&b).unwrap();
            b
        })
        .collect()
}

#[test]
fn durable_segment_data_leaves_the_page_cache() {
    // Under the build directory, on the disk: the pages of a tmpfs (where
    // `temp_dir` may live) are the file itself and cannot be dropped.
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../target/test-page-cache")
        .join(std::process::id().to_string());
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let config = LogConfig {
        segment_bytes: 64 * 1024 * 1024,
        ..LogConfig::default()
    };
    let (mut log, _) = open(&dir, config.clone());
    let segment = active_segment_path(&log);
    let mut written = fill_large(&mut log, 64);
    let appended = resident_bytes(&segment);
    assert!(
        appended >= 1024 * 1024,
        "appended data is cached: {appended}"
    );
    log.flush().unwrap();
    let flushed = resident_bytes(&segment);
    assert!(
        flushed <= 4096,
        "an inline flush leaves the partial last page at most: {flushed}"
    );

    // The fsync on another thread drops what it made durable, not what was
    // appended after it was detached.
    written.extend(fill_large(&mut log, 64));
    let flush = log.detach_flush();
    written.extend(fill_large(&mut log, 8));
    let after_detach = resident_bytes(&segment);
    std::thread::spawn(move || flush.sync.unwrap().run())
        .join()
        .unwrap()
        .unwrap();
    log.complete_flush(flush.receipt);
    let detached = resident_bytes(&segment);
    assert!(after_detach >= 1024 * 1024, "{after_detach}");
    assert!(
        (200_000..=300_000).contains(&detached),
        "the 8 batches appended after the detach stay cached: {detached}"
    );
    log.flush().unwrap();
    assert!(resident_bytes(&segment) <= 4096);

    // Nothing is lost: the log reads back from the disk, and after a reopen.
    assert_eq!(read_all(&log), written);
    drop(log);
    let (log, report) = open(&dir, config);
    assert_eq!(report.truncated_tail, None);
    assert_eq!(read_all(&log), written);
    drop(log);
    std::fs::remove_dir_all(&dir).unwrap();
}
