//! [`DiskLog`]: the core's [`RaftLog`] over the real on-disk storage.

use std::collections::VecDeque;
use std::convert::Infallible;
use std::fs::File;
use std::io::Read;
use std::path::Path;

use bytes::{Bytes, BytesMut};
use kraft_protocol::records::{batches, RecordBatch, RecordBatchHeader, LOG_OVERHEAD};
use kraft_protocol::DecodeError;

use crate::codec::{decode_batch, encode_batch};
use crate::core::log::{epoch_cache_lookup, LogError, RaftLog, SnapshotControl, SnapshotInfo};
use crate::core::record::{Batch, ControlRecord, EncodedBatch, Record};
use crate::core::types::{OffsetAndEpoch, SnapshotId};
use crate::storage::durable::{DurableLog, FlushJob, FlushOutcome};
use crate::storage::log::{DetachedFlush, FlushReceipt};
use crate::storage::{FileLog, LogConfig, RecoveryReport, SnapshotWriter, StorageError};

/// Default bound of the in-memory cache of recently appended batches, in
/// bytes of memory held (records and their allocations). The cache holds
/// this much only while replicas still need the batches (see
/// [`RaftLog::release_reads_below`]); otherwise at most
/// [`DEFAULT_TAIL_CACHE_RETAINED_BYTES`].
pub const DEFAULT_TAIL_CACHE_BYTES: usize = 32 * 1024 * 1024;

/// Bytes of the newest batches the tail cache keeps even when every voter
/// and the listener have read them (for observers, such as brokers, that
/// fetch a little behind).
pub const DEFAULT_TAIL_CACHE_RETAINED_BYTES: usize = 2 * 1024 * 1024;

/// Bytes of memory one allocation costs beyond its contents (glibc's chunk
/// header and alignment, on average).
const ALLOCATION_OVERHEAD: usize = 16;

/// The memory a cached batch holds: its record vector and each data
/// record's own allocation, not just its encoded size (small metadata
/// records cost about twice their length), and its cached encoding (counted
/// apart even when the records are slices of it).
fn cached_bytes(batch: &Batch) -> usize {
    let records = batch.records.capacity() * std::mem::size_of::<Record>();
    let data: usize = batch
        .records
        .iter()
        .map(|r| match r {
            Record::Data(b) => b.len() + ALLOCATION_OVERHEAD,
            Record::Control(_) => r.size_estimate(),
        })
        .sum();
    let encoded = batch.encoded.bytes().map_or(0, Bytes::len);
    std::mem::size_of::<Batch>() + records + data + encoded
}

/// Largest chunk read from the segments at once.
const READ_CHUNK: usize = 1024 * 1024;

/// Largest batch accepted when reading a snapshot file's control records.
const MAX_SNAPSHOT_BATCH: usize = 64 * 1024 * 1024;

/// Upper bound of the per-record framing overhead of a data record (length,
/// attributes, timestamp and offset deltas, key, value length, headers).
const RECORD_OVERHEAD: usize = 24;

/// How long the metadata log keeps old snapshots and the segments below
/// them (`metadata.max.retention.bytes`, `metadata.max.retention.ms`; a
/// negative value disables the limit). See [`DiskLog::maybe_clean`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Retention {
    /// Largest total size of the segments and snapshots, in bytes.
    pub max_bytes: i64,
    /// Largest age of an old snapshot, in milliseconds.
    pub max_ms: i64,
}

impl Default for Retention {
    /// Kafka's defaults: 100 MiB and 7 days.
    fn default() -> Self {
        Retention {
            max_bytes: 100 * 1024 * 1024,
            max_ms: 7 * 24 * 60 * 60 * 1000,
        }
    }
}

/// The decoded content of a snapshot file (see [`DiskLog::load_snapshot`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SnapshotContents {
    /// The `KRaftVersionRecord` and `VotersRecord` of the snapshot, if any.
    pub control: SnapshotControl,
    /// `lastContainedLogTimestamp` of the `SnapshotHeaderRecord`.
    pub last_contained_log_timestamp: i64,
    /// The data records (e.g. the controller's metadata records), in order.
    pub records: Vec<Bytes>,
}

/// Decodes a whole snapshot file: every batch must be complete and CRC-valid,
/// the first record a `SnapshotHeaderRecord` and the last a
/// `SnapshotFooterRecord`.
pub fn decode_snapshot(bytes: Bytes) -> Result<SnapshotContents, DecodeError> {
    let invalid = |m: &str| DecodeError::InvalidRecords(format!("snapshot: {m}"));
    let mut contents = SnapshotContents::default();
    let mut header = false;
    let mut footer = false;
    let mut iter = batches(bytes);
    for raw in iter.by_ref() {
        let batch = decode_batch(&raw?)?;
        for record in batch.records {
            if footer {
                return Err(invalid("records after the SnapshotFooterRecord"));
            }
            match record {
                Record::Control(ControlRecord::SnapshotHeader {
                    last_contained_log_timestamp,
                }) if !header => {
                    header = true;
                    contents.last_contained_log_timestamp = last_contained_log_timestamp;
                    continue;
                }
                _ if !header => {
                    return Err(invalid("the first record is not a SnapshotHeaderRecord"))
                }
                Record::Data(value) => contents.records.push(value),
                Record::Control(ControlRecord::KRaftVersion(k)) => {
                    contents.control.kraft_version = Some(k)
                }
                Record::Control(ControlRecord::Voters(v)) => contents.control.voters = Some(v),
                Record::Control(ControlRecord::SnapshotFooter) => footer = true,
                Record::Control(
                    ControlRecord::SnapshotHeader { .. } | ControlRecord::LeaderChange(_),
                ) => {}
            }
        }
    }
    if iter.partial_tail().is_some() {
        return Err(invalid("incomplete batch at the end"));
    }
    if !footer {
        return Err(invalid("the last record is not a SnapshotFooterRecord"));
    }
    Ok(contents)
}

/// Recently appended batches, contiguous and ending at the log end offset.
#[derive(Debug)]
struct TailCache {
    batches: VecDeque<Batch>,
    bytes: usize,
    /// The most memory held.
    capacity: usize,
    /// Memory kept of batches below `released_below`.
    retained: usize,
    /// Batches ending at or below this offset are no longer expected to be
    /// read soon.
    released_below: i64,
}

impl TailCache {
    fn new(capacity: usize, retained: usize) -> Self {
        TailCache {
            batches: VecDeque::new(),
            bytes: 0,
            capacity,
            retained,
            released_below: 0,
        }
    }

    fn first_offset(&self) -> Option<i64> {
        self.batches.front().map(|b| b.base_offset)
    }

    fn clear(&mut self) {
        self.batches.clear();
        self.bytes = 0;
    }

    fn evict(&mut self) {
        let keep = self.retained.min(self.capacity);
        while let Some(front) = self.batches.front() {
            let released = front.next_offset() <= self.released_below;
            if self.bytes <= self.capacity && !(released && self.bytes > keep) {
                break;
            }
            self.bytes -= cached_bytes(front);
            self.batches.pop_front();
        }
    }

    fn release_below(&mut self, offset: i64) {
        self.released_below = offset;
        self.evict();
    }

    fn push(&mut self, batch: Batch) {
        if self
            .batches
            .back()
            .is_some_and(|b| b.next_offset() != batch.base_offset)
        {
            self.clear();
        }
        self.bytes += cached_bytes(&batch);
        self.batches.push_back(batch);
        self.evict();
    }

    /// Keeps the cache consistent with a log that now ends at `end`.
    fn truncate(&mut self, end: i64) {
        while self.batches.back().is_some_and(|b| b.next_offset() > end) {
            if let Some(b) = self.batches.pop_back() {
                self.bytes -= cached_bytes(&b);
            }
        }
        if self.batches.back().is_some_and(|b| b.next_offset() != end) {
            self.clear();
        }
    }

    /// Drops batches below a new log start offset.
    fn drop_below(&mut self, start: i64) {
        while self.batches.front().is_some_and(|b| b.base_offset < start) {
            if let Some(b) = self.batches.pop_front() {
                self.bytes -= cached_bytes(&b);
            }
        }
    }

    /// Cached batches starting with the one that contains `offset`.
    fn from(&self, offset: i64) -> impl Iterator<Item = &Batch> {
        let idx = self.batches.partition_point(|b| b.next_offset() <= offset);
        self.batches.range(idx..)
    }
}

/// The replicated log and snapshots of a replica, on disk: the core's
/// [`RaftLog`] over a [`FileLog`].
///
/// [`DiskLog`] adapts a [`FileLog`] (RecordBatch v2 segments, the epoch cache
/// and the `<20-digit offset>-<10-digit epoch>.checkpoint` snapshot files) to
/// the sans-IO core. It is the production counterpart of
/// [`MemoryLog`](crate::MemoryLog) and answers every [`RaftLog`] method
/// the same way (see "Differences" below for the few accepted exceptions).
///
/// # Writes and durability
///
/// [`RaftLog::append`] encodes the core's [`Batch`] as a RecordBatch v2 and
/// writes it to the active segment; nothing is fsynced. The driver makes the
/// log durable when the core emits [`Action::Flush`](crate::Action::Flush)
/// by calling [`DiskLog::flush`] (which returns the durable end offset) and
/// then reports it with [`RaftCore::flushed`](crate::RaftCore::flushed);
/// a flush costs nothing when no append is pending. The fsync can also run
/// on another thread while the log keeps serving reads and appends:
/// [`DurableLog::begin_flush`] detaches it as a [`FlushJob`] and
/// [`DurableLog::finish_flush`] records its outcome. Truncations, snapshot
/// creation and snapshot installation are durable when they return (as in
/// `MemoryLog`).
///
/// # Reads
///
/// Reads decode batches from the segments. The batches appended most recently
/// (up to [`DEFAULT_TAIL_CACHE_BYTES`] of memory by default) are also
/// kept decoded in memory, so that the leader's hot Fetch path near the log
/// end does not touch the disk. `max_bytes` is measured with
/// [`Batch::size_estimate`], exactly as `MemoryLog` does.
///
/// # Snapshots
///
/// Snapshots are Kafka snapshot files: a control batch with a
/// `SnapshotHeaderRecord`, then the `KRaftVersionRecord` and `VotersRecord` of
/// the [`SnapshotControl`] when present, then the data records
/// ([`DiskLog::create_snapshot`]), then a control batch with a
/// `SnapshotFooterRecord`. The bootstrap checkpoint written by
/// `kraft storage format` has this shape; its control state is exposed by
/// [`RaftLog::latest_snapshot_control`] like `MemoryLog::with_bootstrap`.
/// Downloads go to a `.checkpoint.part` file that is validated, fsynced and
/// renamed into place on completion.
///
/// # Errors
///
/// Methods that can return an error ([`RaftLog::append`], the snapshot
/// download methods, [`DiskLog::flush`], [`DiskLog::create_snapshot`], ...)
/// return it. The trait methods that cannot never panic; they log with
/// `tracing::error!` and:
///
/// * [`RaftLog::read`] returns the batches read before the failure (possibly
///   none; the core treats that like a momentarily empty answer);
/// * [`RaftLog::read_snapshot`] returns `None` (the leader answers
///   `SNAPSHOT_NOT_FOUND`);
/// * [`RaftLog::truncate_to`] returns the end offset the log is left with.
///
/// An I/O failure while the log is being modified (append, truncate, flush,
/// snapshot install) leaves the on-disk state unknown, so the log is marked
/// *failed* ([`DiskLog::failure`]): from then on every mutation and every
/// flush fails with [`StorageError::Failed`], which stops the driver and,
/// through its fatal event, the process, as Kafka halts on a log directory
/// failure. A failed fsync is never retried.
///
/// # Differences from `MemoryLog`
///
/// * Snapshot bytes are Kafka's format, not `MemoryLog`'s private encoding,
///   so snapshot sizes and download sizes differ; contents are equivalent.
/// * `MemoryLog` orders snapshots by `(offset, epoch)`, the files by
///   `(epoch, offset)` (Kafka's `OffsetAndEpoch` order). The two agree for
///   snapshots of one consistent log.
/// * [`DiskLog::create_snapshot`] of an id that already exists keeps the
///   existing file (`MemoryLog` replaces its content) and returns the id.
/// * The log start offset follows [`FileLog`]: the larger of the first
///   segment's base and the *oldest* snapshot. With a bootstrap checkpoint
///   (always written by `kraft storage format`) that is the same as
///   `MemoryLog`; a log without any snapshot moves its start to the first
///   snapshot it creates, while `MemoryLog` waits for
///   [`DiskLog::delete_before_latest_snapshot`].
/// * Appends of batches that mix data and control records, that exceed
///   [`LogConfig::max_batch_size`] or that carry a negative epoch are refused
///   with [`LogError::Storage`] (the core never produces them).
pub struct DiskLog {
    file: FileLog,
    tail: TailCache,
    downloading: Option<SnapshotWriter>,
    /// Control state of the latest snapshot, keyed by its id.
    latest_control: Option<(SnapshotId, SnapshotControl)>,
    /// Set after an I/O failure that left the on-disk state unknown.
    failure: Option<String>,
    /// Detached flushes not finished yet, by ticket, oldest first.
    detached: VecDeque<(u64, FlushReceipt)>,
    next_ticket: u64,
}

impl std::fmt::Debug for DiskLog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DiskLog")
            .field("file", &self.file)
            .field("cached_batches", &self.tail.batches.len())
            .field(
                "downloading",
                &self.downloading.as_ref().map(SnapshotWriter::id),
            )
            .field("latest_control", &self.latest_control)
            .field("failure", &self.failure)
            .field("detached_flushes", &self.detached.len())
            .finish()
    }
}

/// Whether a storage error leaves the on-disk state unknown.
fn is_fatal(e: &StorageError) -> bool {
    matches!(
        e,
        StorageError::Io { .. } | StorageError::Corrupt { .. } | StorageError::Failed { .. }
    )
}

fn to_log_error(e: &StorageError) -> LogError {
    match e {
        StorageError::OffsetMismatch { base, end } => LogError::OffsetMismatch {
            base: *base,
            end: *end,
        },
        StorageError::EpochRegression { epoch, last } => LogError::EpochRegression {
            epoch: *epoch,
            last: *last,
        },
        StorageError::BatchTooLarge { size, max } => LogError::BatchTooLarge {
            size: *size,
            max: *max,
        },
        StorageError::Snapshot { .. } => LogError::Snapshot(e.to_string()),
        other => LogError::Storage(other.to_string()),
    }
}

/// Reads until `buf` is full or the end of the file; returns the bytes read.
fn read_up_to(file: &mut File, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut filled = 0;
    while filled < buf.len() {
        match file.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(filled)
}

/// Reads the control state of the snapshot file at `path` from its leading
/// control batches (Kafka writes the `KRaftVersionRecord` and `VotersRecord`
/// in the header batch), without reading the data records.
fn read_snapshot_control(path: &Path) -> Result<SnapshotControl, StorageError> {
    read_snapshot_head(path).map(|(control, _)| control)
}

/// Like [`read_snapshot_control`], also returning the
/// `lastContainedLogTimestamp` of the `SnapshotHeaderRecord`.
fn read_snapshot_head(path: &Path) -> Result<(SnapshotControl, i64), StorageError> {
    let io = |source| StorageError::Io {
        path: path.to_path_buf(),
        source,
    };
    let corrupt = |reason: String| StorageError::Corrupt {
        path: path.to_path_buf(),
        reason,
    };
    let mut file = File::open(path).map_err(io)?;
    let mut control = SnapshotControl::default();
    let mut timestamp = -1i64;
    let mut position = 0u64;
    loop {
        let mut prefix = [0u8; LOG_OVERHEAD];
        let n = read_up_to(&mut file, &mut prefix).map_err(io)?;
        if n == 0 && position > 0 {
            return Ok((control, timestamp));
        }
        if n < LOG_OVERHEAD {
            return Err(corrupt(format!("incomplete batch at position {position}")));
        }
        let size = match RecordBatchHeader::size_from_prefix(&prefix) {
            Ok(Some(size)) if size <= MAX_SNAPSHOT_BATCH => size,
            Ok(_) => {
                return Err(corrupt(format!(
                    "invalid batch size at position {position}"
                )))
            }
            Err(e) => return Err(corrupt(format!("batch at position {position}: {e}"))),
        };
        let mut buf = vec![0u8; size];
        buf[..LOG_OVERHEAD].copy_from_slice(&prefix);
        if read_up_to(&mut file, &mut buf[LOG_OVERHEAD..]).map_err(io)? != size - LOG_OVERHEAD {
            return Err(corrupt(format!("incomplete batch at position {position}")));
        }
        let raw = RecordBatch::parse(Bytes::from(buf))
            .map_err(|e| corrupt(format!("batch at position {position}: {e}")))?;
        if !raw.is_control() {
            if position == 0 {
                return Err(corrupt(
                    "the first record is not a SnapshotHeaderRecord".into(),
                ));
            }
            return Ok((control, timestamp));
        }
        let batch = decode_batch(&raw)
            .map_err(|e| corrupt(format!("batch at position {position}: {e}")))?;
        for (i, record) in batch.records.iter().enumerate() {
            match record {
                Record::Control(ControlRecord::SnapshotHeader {
                    last_contained_log_timestamp,
                }) => timestamp = *last_contained_log_timestamp,
                _ if position == 0 && i == 0 => {
                    return Err(corrupt(
                        "the first record is not a SnapshotHeaderRecord".into(),
                    ));
                }
                Record::Control(ControlRecord::KRaftVersion(k)) => control.kraft_version = Some(*k),
                Record::Control(ControlRecord::Voters(v)) => control.voters = Some(v.clone()),
                Record::Control(ControlRecord::SnapshotFooter) => return Ok((control, timestamp)),
                Record::Control(ControlRecord::LeaderChange(_)) | Record::Data(_) => {}
            }
        }
        position += size as u64;
    }
}

/// Writes a whole snapshot (header batch with the control state, data
/// batches of at most `max_batch` bytes, footer batch) through `sink`.
fn write_snapshot<I, E>(
    sink: &mut dyn FnMut(&[u8]) -> Result<(), E>,
    epoch: i32,
    timestamp: i64,
    control: &SnapshotControl,
    data_records: I,
    max_batch: usize,
) -> Result<(), E>
where
    I: IntoIterator,
    I::Item: Into<Bytes>,
{
    let mut buf = BytesMut::new();
    let mut emit = |records: Vec<Record>, base_offset: &mut i64| -> Result<(), E> {
        let batch = Batch {
            base_offset: *base_offset,
            epoch,
            append_time: timestamp,
            records,
            encoded: Default::default(),
        };
        *base_offset = batch.next_offset();
        buf.clear();
        encode_batch(&batch, &mut buf);
        sink(&buf)
    };
    let mut next = 0i64;
    let mut header = vec![Record::Control(ControlRecord::SnapshotHeader {
        last_contained_log_timestamp: timestamp,
    })];
    if let Some(k) = control.kraft_version {
        header.push(Record::Control(ControlRecord::KRaftVersion(k)));
    }
    if let Some(v) = &control.voters {
        header.push(Record::Control(ControlRecord::Voters(v.clone())));
    }
    emit(header, &mut next)?;
    let mut pending = Vec::new();
    let mut pending_bytes = 0usize;
    for record in data_records {
        let value: Bytes = record.into();
        let size = value.len() + RECORD_OVERHEAD;
        if !pending.is_empty() && pending_bytes + size > max_batch {
            emit(std::mem::take(&mut pending), &mut next)?;
            pending_bytes = 0;
        }
        pending_bytes += size;
        pending.push(Record::Data(value));
    }
    if !pending.is_empty() {
        emit(pending, &mut next)?;
    }
    emit(
        vec![Record::Control(ControlRecord::SnapshotFooter)],
        &mut next,
    )
}

/// The bytes of a whole snapshot file, the inverse of [`decode_snapshot`]: a
/// control batch with the `SnapshotHeaderRecord` (its
/// `lastContainedLogTimestamp` is `timestamp`) followed by the
/// `KRaftVersionRecord` and `VotersRecord` of `control` when set; the data
/// records in batches of at most `max_batch` bytes; a control batch with the
/// `SnapshotFooterRecord`. Every batch carries the leader epoch `epoch` and
/// the append time `timestamp`, as Kafka's `RecordsSnapshotWriter` writes
/// them. `kraft storage format` writes its bootstrap checkpoint with it.
pub fn encode_snapshot<I>(
    epoch: i32,
    timestamp: i64,
    control: &SnapshotControl,
    data_records: I,
    max_batch: usize,
) -> Vec<u8>
where
    I: IntoIterator,
    I::Item: Into<Bytes>,
{
    let mut out = Vec::new();
    let mut sink = |bytes: &[u8]| -> Result<(), Infallible> {
        out.extend_from_slice(bytes);
        Ok(())
    };
    let Ok(()) = write_snapshot(
        &mut sink,
        epoch,
        timestamp,
        control,
        data_records,
        max_batch,
    );
    out
}

/// Whether a batch would still fit a read that has `size` estimated bytes in
/// `count` batches so far.
fn fits(count: usize, size: usize, batch: &Batch, max_bytes: usize) -> bool {
    count == 0 || size.saturating_add(batch.size_estimate()) <= max_bytes
}

impl DiskLog {
    /// Opens (or creates) the log in the partition directory `dir`
    /// (`<metadata.log.dir>/__cluster_metadata-0`), recovering from a crash
    /// as [`FileLog::open`] does, then fsyncs the active segment: data a
    /// crashed process left in the page cache must be durable before the core
    /// counts it as flushed. Fails if the latest snapshot cannot be read.
    pub fn open(dir: &Path, config: LogConfig) -> Result<(DiskLog, RecoveryReport), StorageError> {
        let (file, report) = FileLog::open(dir, config)?;
        if let Some(base) = file.segment_base_offsets().last() {
            let path = file.dir().join(format!("{base:020}.log"));
            File::open(&path)
                .and_then(|f| f.sync_all())
                .map_err(|source| StorageError::Io { path, source })?;
        }
        let mut log = DiskLog {
            file,
            tail: TailCache::new(DEFAULT_TAIL_CACHE_BYTES, DEFAULT_TAIL_CACHE_RETAINED_BYTES),
            downloading: None,
            latest_control: None,
            failure: None,
            detached: VecDeque::new(),
            next_ticket: 0,
        };
        log.refresh_latest_control()?;
        Ok((log, report))
    }

    /// The underlying file log (segments, epoch cache, snapshot store).
    pub fn file_log(&self) -> &FileLog {
        &self.file
    }

    /// The partition directory.
    pub fn dir(&self) -> &Path {
        self.file.dir()
    }

    /// Sets the size of the cache of recently appended batches (in bytes
    /// of memory held; 0 disables it).
    pub fn set_tail_cache_bytes(&mut self, bytes: usize) {
        self.tail.capacity = bytes;
        self.tail.evict();
    }

    /// Why the log refuses further changes, after an I/O failure that left
    /// its on-disk state unknown.
    pub fn failure(&self) -> Option<&str> {
        self.failure.as_deref()
    }

    /// Everything below this offset is durable.
    pub fn flushed_offset(&self) -> i64 {
        self.file.flushed_offset()
    }

    /// Makes every append so far durable (fsync) and returns the durable end
    /// offset. The driver calls it to execute an
    /// [`Action::Flush`](crate::Action::Flush) `{ up_to }` (the result
    /// is then at least `up_to` unless the log was truncated since) and
    /// reports the completion with
    /// [`RaftCore::flushed`](crate::RaftCore::flushed). Returns at once
    /// when nothing is pending. A failed fsync marks the log failed: it is
    /// never retried, since the kernel may have dropped the dirty pages.
    pub fn flush(&mut self) -> Result<i64, StorageError> {
        self.check_healthy()?;
        let end = self.file.log_end_offset();
        if self.file.flushed_offset() >= end {
            return Ok(end);
        }
        if let Err(e) = self.file.flush() {
            self.fail("flush", &e);
            return Err(e);
        }
        Ok(self.file.flushed_offset())
    }

    /// Writes a snapshot of the log prefix ending at `end_offset` — the
    /// controller's image as of that offset — and returns its id, or `None`
    /// when `end_offset` is not the end of a batch above the log start (as
    /// `MemoryLog::create_snapshot`). The snapshot's epoch is that of the
    /// batch ending at `end_offset`, its `lastContainedLogTimestamp` that
    /// batch's append time. The file holds a header batch with `control`'s
    /// `KRaftVersionRecord` and `VotersRecord` (each when present), the
    /// `data_records` in batches of at most [`LogConfig::max_batch_size`],
    /// and a footer batch; it is fsynced and renamed into place. The caller
    /// must only snapshot committed offsets. An existing snapshot with the
    /// same id is kept as it is.
    pub fn create_snapshot<I>(
        &mut self,
        end_offset: i64,
        control: &SnapshotControl,
        data_records: I,
    ) -> Result<Option<SnapshotId>, StorageError>
    where
        I: IntoIterator,
        I::Item: Into<Bytes>,
    {
        self.check_healthy()?;
        if end_offset <= self.start_offset() || end_offset > self.end_offset() {
            return Ok(None);
        }
        let mut found = Vec::new();
        self.read_into(end_offset - 1, 0, &mut found)?;
        let Some(last) = found.first() else {
            return Ok(None);
        };
        if last.next_offset() != end_offset {
            return Ok(None);
        }
        let id = OffsetAndEpoch::new(end_offset, last.epoch);
        if self.file.snapshots().contains(id) {
            return Ok(Some(id));
        }
        let mut writer = self.file.create_snapshot(id)?;
        let max_batch = self.file.config().max_batch_size;
        let mut sink = |bytes: &[u8]| writer.append(bytes).map(|_| ());
        write_snapshot(
            &mut sink,
            id.epoch,
            last.append_time,
            control,
            data_records,
            max_batch,
        )?;
        if let Err(e) = self.file.freeze_snapshot(writer) {
            if is_fatal(&e) {
                self.fail("snapshot creation", &e);
            }
            return Err(e);
        }
        self.set_control(id, control.clone())?;
        self.tail.drop_below(self.start_offset());
        tracing::info!(offset = id.offset, epoch = id.epoch, "created snapshot");
        Ok(Some(id))
    }

    /// Moves the log start up to the latest snapshot, deleting older
    /// snapshots and the segments wholly below it (`MemoryLog`'s method of
    /// the same name; Kafka's `deleteBeforeSnapshot`). Returns whether
    /// anything changed.
    pub fn delete_before_latest_snapshot(&mut self) -> Result<bool, StorageError> {
        self.check_healthy()?;
        let Some(latest) = self.file.snapshots().latest() else {
            return Ok(false);
        };
        self.delete_before_snapshot(latest)
    }

    /// Applies the metadata log retention (Kafka's `KafkaRaftLog.maybeClean`):
    /// while the segments plus all snapshots exceed
    /// [`Retention::max_bytes`], or the oldest snapshot's
    /// `lastContainedLogTimestamp` is more than [`Retention::max_ms`] before
    /// `now_ms`, the oldest snapshot is deleted and the log start moves up to
    /// the next snapshot, deleting the segments wholly below it. The latest
    /// snapshot is always kept, so the log start never passes it. Returns
    /// whether anything was deleted.
    pub fn maybe_clean(&mut self, retention: Retention, now_ms: i64) -> Result<bool, StorageError> {
        self.check_healthy()?;
        let mut cleaned = false;
        if retention.max_bytes >= 0 {
            let ids: Vec<SnapshotId> = self.file.snapshots().ids().collect();
            let mut total: u64 = ids
                .iter()
                .filter_map(|id| self.file.snapshots().size(*id))
                .sum();
            for pair in ids.windows(2) {
                let Some(size) = self.file.snapshots().size(pair[0]) else {
                    break;
                };
                let log_size = self.file.size();
                if log_size + total <= retention.max_bytes as u64 {
                    break;
                }
                tracing::info!(
                    offset = pair[0].offset,
                    epoch = pair[0].epoch,
                    log_size,
                    snapshots_size = total,
                    retention_bytes = retention.max_bytes,
                    "deleting a snapshot: the log and snapshots exceed the retention size"
                );
                total -= size;
                if !self.delete_before_snapshot(pair[1])? {
                    break;
                }
                cleaned = true;
            }
        }
        if retention.max_ms >= 0 {
            let ids: Vec<SnapshotId> = self.file.snapshots().ids().collect();
            for pair in ids.windows(2) {
                let (_, timestamp) = read_snapshot_head(&self.file.snapshots().path(pair[0]))?;
                if now_ms - timestamp <= retention.max_ms {
                    break;
                }
                tracing::info!(
                    offset = pair[0].offset,
                    epoch = pair[0].epoch,
                    timestamp,
                    retention_ms = retention.max_ms,
                    "deleting a snapshot older than the retention time"
                );
                if !self.delete_before_snapshot(pair[1])? {
                    break;
                }
                cleaned = true;
            }
        }
        Ok(cleaned)
    }

    /// Moves the log start up to snapshot `id` ([`FileLog::delete_before_snapshot`]).
    fn delete_before_snapshot(&mut self, id: SnapshotId) -> Result<bool, StorageError> {
        match self.file.delete_before_snapshot(id) {
            Ok(changed) => {
                self.tail.drop_below(self.start_offset());
                Ok(changed)
            }
            Err(e) => {
                if is_fatal(&e) {
                    self.fail("log start advance", &e);
                }
                Err(e)
            }
        }
    }

    /// Reads and decodes snapshot `id` (e.g. for
    /// [`Action::LoadSnapshot`](crate::Action::LoadSnapshot)), checking
    /// every batch's CRC and the header and footer records.
    pub fn load_snapshot(&self, id: SnapshotId) -> Result<SnapshotContents, StorageError> {
        let bytes = self.file.snapshots().load(id)?;
        decode_snapshot(bytes).map_err(|e| StorageError::Corrupt {
            path: self.file.snapshots().path(id),
            reason: e.to_string(),
        })
    }

    fn check_healthy(&self) -> Result<(), StorageError> {
        match &self.failure {
            None => Ok(()),
            Some(reason) => Err(StorageError::Failed {
                path: self.file.dir().to_path_buf(),
                reason: reason.clone(),
            }),
        }
    }

    /// Marks the log failed after `e` happened during `what`.
    fn fail(&mut self, what: &str, e: &StorageError) {
        tracing::error!(error = %e, "metadata log {what} failed; the log refuses further changes");
        if self.failure.is_none() {
            self.failure = Some(format!("{what}: {e}"));
        }
    }

    /// Remembers the control state of snapshot `id` if it is the latest;
    /// otherwise re-reads the latest one.
    fn set_control(
        &mut self,
        id: SnapshotId,
        control: SnapshotControl,
    ) -> Result<(), StorageError> {
        if self.file.snapshots().latest() == Some(id) {
            self.latest_control = Some((id, control));
            Ok(())
        } else {
            self.refresh_latest_control()
        }
    }

    fn refresh_latest_control(&mut self) -> Result<(), StorageError> {
        let Some(latest) = self.file.snapshots().latest() else {
            self.latest_control = None;
            return Ok(());
        };
        if self
            .latest_control
            .as_ref()
            .is_some_and(|(id, _)| *id == latest)
        {
            return Ok(());
        }
        let control = read_snapshot_control(&self.file.snapshots().path(latest))?;
        self.latest_control = Some((latest, control));
        Ok(())
    }

    /// Decodes whole batches from `start` (clamped to the log start) into
    /// `out` until `max_bytes` of [`Batch::size_estimate`] (at least one
    /// batch), from the segments and then from the tail cache.
    fn read_into(
        &self,
        start: i64,
        max_bytes: usize,
        out: &mut Vec<Batch>,
    ) -> Result<(), StorageError> {
        let end = self.end_offset();
        let mut next = start.max(self.start_offset());
        let mut size = 0usize;
        let cached_from = self.tail.first_offset().unwrap_or(end);
        while next < cached_from {
            let budget = max_bytes.saturating_sub(size).min(READ_CHUNK);
            let data = self.file.read(next, budget)?;
            let before = next;
            for raw in batches(data) {
                let batch = decode_batch(&raw?)?;
                if batch.next_offset() <= next {
                    continue;
                }
                if !fits(out.len(), size, &batch, max_bytes) {
                    return Ok(());
                }
                next = batch.next_offset();
                size += batch.size_estimate();
                out.push(batch);
                if next >= cached_from {
                    break;
                }
            }
            if next == before {
                return Err(StorageError::Corrupt {
                    path: self.file.dir().to_path_buf(),
                    reason: format!("no batch found at offset {next} below the log end {end}"),
                });
            }
        }
        for batch in self.tail.from(next) {
            if !fits(out.len(), size, batch, max_bytes) {
                break;
            }
            size += batch.size_estimate();
            out.push(batch.clone());
        }
        Ok(())
    }

    /// After a downloaded snapshot `id` was frozen: makes sure the log is
    /// empty, starts at `id.offset` and no older snapshot is left
    /// (`FileLog::freeze_snapshot` already does it when the snapshot is
    /// ahead of the log, the usual case).
    fn reset_to_snapshot(&mut self, id: SnapshotId) -> Result<(), StorageError> {
        let store = self.file.snapshots();
        let has_older = store.earliest() != Some(id);
        let is_latest = store.latest() == Some(id);
        let log_reset =
            self.file.log_start_offset() == id.offset && self.file.log_end_offset() == id.offset;
        if !log_reset || has_older {
            // Snapshot first, then the log (Kafka's order): a crash in
            // between leaves a valid snapshot and a prefix of the old log.
            self.file.truncate_fully_and_start_at(id.offset)?;
            if has_older && is_latest && id.epoch > 0 {
                // The log is now empty, so the snapshot is ahead of it:
                // this deletes the older snapshots.
                self.file.truncate_to_latest_snapshot()?;
            }
        }
        if self.file.snapshots().earliest() != Some(id) || self.file.log_start_offset() != id.offset
        {
            tracing::warn!(
                offset = id.offset,
                epoch = id.epoch,
                earliest = ?self.file.snapshots().earliest(),
                log_start_offset = self.file.log_start_offset(),
                "installed snapshot is not the oldest one"
            );
        }
        Ok(())
    }
}

impl RaftLog for DiskLog {
    fn start_offset(&self) -> i64 {
        self.file.log_start_offset()
    }

    fn end_offset(&self) -> i64 {
        self.file.log_end_offset()
    }

    fn last_fetched_epoch(&self) -> i32 {
        if self.end_offset() > self.start_offset() {
            return self.file.epoch_cache().latest_epoch().unwrap_or(0);
        }
        match self.file.snapshots().latest() {
            Some(s) if s.offset == self.start_offset() => s.epoch,
            _ => 0,
        }
    }

    fn end_offset_for_epoch(&self, epoch: i32) -> OffsetAndEpoch {
        epoch_cache_lookup(
            self.file.epoch_cache().entries(),
            epoch,
            self.end_offset(),
            self.last_fetched_epoch(),
            self.earliest_snapshot_id(),
        )
    }

    fn read(&self, start: i64, max_bytes: usize) -> Vec<Batch> {
        let mut out = Vec::new();
        if let Err(e) = self.read_into(start, max_bytes, &mut out) {
            tracing::error!(
                error = %e,
                start,
                returned = out.len(),
                "cannot read the metadata log"
            );
        }
        out
    }

    fn append(&mut self, batch: Batch) -> Result<(), LogError> {
        let end = self.end_offset();
        if batch.base_offset != end || batch.records.is_empty() {
            return Err(LogError::OffsetMismatch {
                base: batch.base_offset,
                end,
            });
        }
        let last = self.last_fetched_epoch();
        if batch.epoch < last {
            return Err(LogError::EpochRegression {
                epoch: batch.epoch,
                last,
            });
        }
        self.check_healthy().map_err(|e| to_log_error(&e))?;
        let control = batch.is_control();
        if batch
            .records
            .iter()
            .any(|r| matches!(r, Record::Control(_)) != control)
        {
            return Err(LogError::Storage(
                "a batch cannot mix data and control records".into(),
            ));
        }
        let bytes = match batch.encoded.bytes() {
            Some(bytes) => bytes.clone(),
            None => {
                let mut buf = BytesMut::with_capacity(batch.size_estimate());
                encode_batch(&batch, &mut buf);
                buf.freeze()
            }
        };
        let raw = RecordBatch::parse(bytes.clone())
            .map_err(|e| LogError::Storage(format!("cannot encode batch: {e}")))?;
        if let Err(e) = self.file.append(&raw) {
            if is_fatal(&e) {
                self.fail("append", &e);
                self.tail.clear();
            }
            return Err(to_log_error(&e));
        }
        let mut batch = batch;
        batch.encoded = EncodedBatch::of(bytes);
        self.tail.push(batch);
        Ok(())
    }

    fn release_reads_below(&mut self, offset: i64) {
        self.tail.release_below(offset);
    }

    fn truncate_to(&mut self, offset: i64) -> i64 {
        let end = self.end_offset();
        if offset >= end {
            return end;
        }
        if let Some(reason) = &self.failure {
            tracing::error!(offset, reason = %reason, "not truncating the failed metadata log");
            return end;
        }
        match self.file.truncate_to(offset.max(self.start_offset())) {
            Ok(new_end) => {
                self.tail.truncate(new_end);
                new_end
            }
            Err(e) => {
                self.fail("truncation", &e);
                self.tail.clear();
                self.end_offset()
            }
        }
    }

    fn latest_snapshot(&self) -> Option<SnapshotInfo> {
        let store = self.file.snapshots();
        store.latest().map(|id| SnapshotInfo {
            id,
            size: store.size(id).unwrap_or(0),
        })
    }

    fn earliest_snapshot_id(&self) -> Option<SnapshotId> {
        self.file.snapshots().earliest()
    }

    fn latest_snapshot_control(&self) -> Option<SnapshotControl> {
        let latest = self.file.snapshots().latest()?;
        match &self.latest_control {
            Some((id, control)) if *id == latest => Some(control.clone()),
            _ => {
                tracing::error!(
                    offset = latest.offset,
                    epoch = latest.epoch,
                    "control state of the latest snapshot unknown"
                );
                None
            }
        }
    }

    fn read_snapshot(
        &self,
        id: SnapshotId,
        position: u64,
        max_bytes: usize,
    ) -> Option<(Bytes, u64)> {
        let store = self.file.snapshots();
        let size = store.size(id)?;
        let start = position.min(size);
        let len = (size - start).min(max_bytes as u64) as usize;
        if len == 0 {
            return Some((Bytes::new(), size));
        }
        match store.read_chunk(id, start, len) {
            Ok(bytes) => Some((bytes, size)),
            Err(e) => {
                tracing::error!(
                    error = %e,
                    offset = id.offset,
                    epoch = id.epoch,
                    position,
                    "cannot read snapshot"
                );
                None
            }
        }
    }

    fn begin_snapshot_download(&mut self, id: SnapshotId) -> Result<bool, LogError> {
        if self.file.snapshots().contains(id) {
            return Ok(false);
        }
        self.check_healthy().map_err(|e| to_log_error(&e))?;
        // Replaces (and deletes) any previous partial download.
        self.downloading = None;
        let writer = self
            .file
            .begin_snapshot_download(id)
            .map_err(|e| to_log_error(&e))?;
        self.downloading = Some(writer);
        Ok(true)
    }

    fn snapshot_download_size(&self, id: SnapshotId) -> Option<u64> {
        self.downloading
            .as_ref()
            .filter(|w| w.id() == id)
            .map(SnapshotWriter::size)
    }

    fn append_snapshot_chunk(&mut self, id: SnapshotId, bytes: &[u8]) -> Result<u64, LogError> {
        match &mut self.downloading {
            Some(w) if w.id() == id => w.append(bytes).map_err(|e| to_log_error(&e)),
            _ => Err(LogError::Snapshot(format!(
                "no download of {id:?} in progress"
            ))),
        }
    }

    fn complete_snapshot_download(&mut self, id: SnapshotId) -> Result<(), LogError> {
        let writer = self
            .downloading
            .take()
            .ok_or_else(|| LogError::Snapshot("no download in progress".into()))?;
        if writer.id() != id {
            return Err(LogError::Snapshot(format!(
                "downloading {:?}, not {id:?}",
                writer.id()
            )));
        }
        self.check_healthy().map_err(|e| to_log_error(&e))?;
        // Validate the control records before anything is changed.
        let control = read_snapshot_control(writer.temp_path())
            .map_err(|e| LogError::Snapshot(format!("corrupt snapshot: {e}")))?;
        if self.file.snapshots().contains(id) {
            drop(writer);
        } else if let Err(e) = self.file.freeze_snapshot(writer) {
            if is_fatal(&e) {
                self.fail("snapshot install", &e);
            }
            return Err(to_log_error(&e));
        }
        let installed = self
            .reset_to_snapshot(id)
            .and_then(|()| self.set_control(id, control));
        self.tail.clear();
        if let Err(e) = installed {
            self.fail("snapshot install", &e);
            return Err(to_log_error(&e));
        }
        tracing::info!(offset = id.offset, epoch = id.epoch, "installed snapshot");
        Ok(())
    }

    fn abort_snapshot_download(&mut self, id: SnapshotId) {
        if self.downloading.as_ref().is_some_and(|w| w.id() == id) {
            // Dropping the writer deletes its temporary file.
            self.downloading = None;
        }
    }
}

impl DurableLog for DiskLog {
    fn flush_to(&mut self, _up_to: i64) -> Result<i64, StorageError> {
        self.flush()
    }

    fn begin_flush(&mut self) -> Result<Option<FlushJob>, StorageError> {
        self.check_healthy()?;
        let DetachedFlush { sync, receipt } = self.file.detach_flush();
        let ticket = self.next_ticket;
        self.next_ticket += 1;
        self.detached.push_back((ticket, receipt));
        Ok(Some(match sync {
            Some(sync) => FlushJob::new(receipt.end_offset, ticket, move || sync.run()),
            None => FlushJob::done(receipt.end_offset, ticket),
        }))
    }

    fn finish_flush(&mut self, outcome: FlushOutcome) -> Result<i64, StorageError> {
        let position = self.detached.iter().position(|(t, _)| *t == outcome.ticket);
        let Some(receipt) = position
            .and_then(|i| self.detached.remove(i))
            .map(|(_, r)| r)
        else {
            return Err(StorageError::InvalidArgument(format!(
                "no detached flush with ticket {}",
                outcome.ticket
            )));
        };
        if let Err(e) = outcome.result {
            self.fail("flush", &e);
            return Err(e);
        }
        self.check_healthy()?;
        self.file.complete_flush(receipt);
        Ok(self.file.flushed_offset())
    }

    fn create_snapshot(
        &mut self,
        end_offset: i64,
        control: &SnapshotControl,
        records: Vec<Bytes>,
    ) -> Result<Option<SnapshotId>, StorageError> {
        DiskLog::create_snapshot(self, end_offset, control, records)
    }

    fn maybe_clean(&mut self, retention: Retention, now_ms: i64) -> Result<bool, StorageError> {
        DiskLog::maybe_clean(self, retention, now_ms)
    }
}

#[cfg(test)]
mod tests;
