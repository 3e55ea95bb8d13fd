//! The segmented, file-backed replicated log.

use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

use bytes::Bytes;
use kraft_protocol::records::{self, Compression, RecordBatch, RecordBatchHeader};

use super::epoch_cache::EpochCache;
use super::fs::{sync_dir, IoContext};
use super::segment::{parse_segment_file_name, DetachedSync, ScanStop, Segment};
use super::snapshot::{SnapshotStore, SnapshotWriter};
use super::{SnapshotId, StorageError};
use crate::core::types::OffsetAndEpoch;

/// Tunables of a [`FileLog`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogConfig {
    /// Roll to a new segment when the active one would exceed this size
    /// (Kafka's `metadata.log.segment.bytes`, default 1 GiB; at most
    /// `i32::MAX`).
    pub segment_bytes: u64,
    /// Bytes between two entries of the sparse offset index (Kafka's
    /// `index.interval.bytes`, default 4096).
    pub index_interval_bytes: u64,
    /// Largest batch accepted (KRaft's maximum batch size, 8 MiB).
    pub max_batch_size: usize,
}

impl Default for LogConfig {
    fn default() -> Self {
        LogConfig {
            segment_bytes: 1024 * 1024 * 1024,
            index_interval_bytes: 4096,
            max_batch_size: 8 * 1024 * 1024,
        }
    }
}

/// How the tail of the last segment was damaged.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TailDamage {
    /// The file ends inside a batch (a write cut short by a crash).
    Torn {
        /// Bytes of the incomplete batch present.
        available: u64,
        /// Its declared size, if the 12-byte prefix was present.
        declared_size: Option<u64>,
    },
    /// A batch is malformed: bad length or magic, CRC mismatch, offsets or
    /// epochs out of order.
    Corrupt(String),
}

/// What start-up recovery cut off the end of the log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TruncatedTail {
    /// The segment file.
    pub segment: PathBuf,
    /// Position of the first dropped byte (end of the last good batch).
    pub position: u64,
    /// Bytes dropped.
    pub dropped_bytes: u64,
    /// Why.
    pub damage: TailDamage,
}

/// What [`FileLog::open`] found and repaired.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RecoveryReport {
    /// Number of segments loaded.
    pub segments: usize,
    /// Log start offset after recovery.
    pub log_start_offset: i64,
    /// Log end offset after recovery.
    pub log_end_offset: i64,
    /// The damaged tail that was truncated, if any.
    pub truncated_tail: Option<TruncatedTail>,
    /// Zeros written ahead of the data of the last segment that were cut
    /// off (not damage: a log that was not closed keeps them).
    pub zero_tail_bytes: u64,
    /// Leftover files that were deleted: partial or marked-for-deletion
    /// snapshots, snapshots below the log start.
    pub removed_files: Vec<PathBuf>,
    /// Set when the newest snapshot was ahead of the log (a follower crashed
    /// after downloading it) and the log was reset to start at its end.
    pub truncated_to_snapshot: Option<SnapshotId>,
}

/// The replicated log: RecordBatch v2 segments, an epoch cache and the
/// snapshots of one partition directory.
///
/// Invariants: segments are contiguous (each starts where the previous one
/// ends), batches have consecutive offsets and non-decreasing epochs. The
/// log start offset is the larger of the first segment's base offset and the
/// oldest snapshot's end offset (snapshots are only taken of committed
/// data, so anything below the oldest snapshot is never needed again).
/// Appends are buffered by the OS until [`FileLog::flush`].
pub struct FileLog {
    dir: PathBuf,
    config: LogConfig,
    /// Never empty; the last one is the active segment.
    segments: Vec<Segment>,
    epochs: EpochCache,
    snapshots: SnapshotStore,
    log_start_offset: i64,
    flushed_offset: i64,
    /// Truncations so far: a detached flush begun before one no longer
    /// describes the log.
    truncations: u64,
}

/// A flush of a [`FileLog`] whose fsync runs away from the log (see
/// [`FileLog::detach_flush`]).
#[derive(Debug)]
pub(crate) struct DetachedFlush {
    /// The fsync to run; `None` when the appends were durable already.
    pub sync: Option<DetachedSync>,
    /// What the log needs back once the fsync succeeded.
    pub receipt: FlushReceipt,
}

/// What a [`FileLog`] records once a detached fsync succeeded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct FlushReceipt {
    /// Log end offset when the flush was detached.
    pub end_offset: i64,
    segment_base: i64,
    writes: u64,
    truncations: u64,
}

impl std::fmt::Debug for FileLog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FileLog")
            .field("dir", &self.dir)
            .field("segments", &self.segments.len())
            .field("log_start_offset", &self.log_start_offset)
            .field("log_end_offset", &self.log_end_offset())
            .field("epochs", &self.epochs)
            .finish()
    }
}

fn corrupt(path: &Path, reason: impl Into<String>) -> StorageError {
    StorageError::Corrupt {
        path: path.to_path_buf(),
        reason: reason.into(),
    }
}

/// Closing the log cuts the zero tail off the active segment, so the files
/// of a stopped controller hold batches only (Kafka's tools read them).
impl Drop for FileLog {
    fn drop(&mut self) {
        if let Some(active) = self.segments.last_mut() {
            if let Err(e) = active.trim_zero_tail() {
                tracing::warn!(error = %e, "cannot cut the zero tail of the metadata log");
            }
        }
    }
}

impl FileLog {
    /// Opens (or creates) the log in `dir`, recovering from a crash:
    ///
    /// * leftover partial / deleted snapshot files are removed;
    /// * every segment is scanned (the last one with full CRC checks) to
    ///   rebuild the offset indexes and the epoch cache;
    /// * a torn or corrupt tail of the last segment is truncated to the last
    ///   good batch (logged with `tracing::warn!` and reported);
    /// * damage anywhere else is an error ([`StorageError::Corrupt`]);
    /// * if the newest snapshot is ahead of the log, the log is reset to
    ///   start at its end offset, as Kafka does.
    pub fn open(dir: &Path, config: LogConfig) -> Result<(FileLog, RecoveryReport), StorageError> {
        if config.segment_bytes == 0 || config.segment_bytes > i32::MAX as u64 {
            return Err(StorageError::InvalidArgument(format!(
                "segment_bytes {} must be in 1..={}",
                config.segment_bytes,
                i32::MAX
            )));
        }
        std::fs::create_dir_all(dir).at(dir)?;
        let (snapshots, removed_files) = SnapshotStore::open(dir)?;
        let mut report = RecoveryReport {
            removed_files,
            ..RecoveryReport::default()
        };

        let mut bases = Vec::new();
        for entry in std::fs::read_dir(dir).at(dir)? {
            let entry = entry.at(dir)?;
            if let Some(base) = entry.file_name().to_str().and_then(parse_segment_file_name) {
                bases.push(base);
            }
        }
        bases.sort_unstable();

        let mut segments = Vec::with_capacity(bases.len().max(1));
        if bases.is_empty() {
            segments.push(Segment::create(dir, 0)?);
            sync_dir(dir)?;
        } else {
            for base in &bases {
                segments.push(Segment::open(dir, *base)?);
            }
        }

        let first_base = segments[0].base_offset();
        if first_base > 0 && snapshots.latest().is_none_or(|s| s.offset < first_base) {
            return Err(corrupt(
                dir,
                format!(
                    "the log starts at offset {first_base} but no snapshot covers the offsets below it"
                ),
            ));
        }
        let log_start = first_base.max(snapshots.earliest().map_or(first_base, |s| s.offset));

        let mut log = FileLog {
            dir: dir.to_path_buf(),
            config,
            segments,
            epochs: EpochCache::new(),
            snapshots,
            log_start_offset: log_start,
            flushed_offset: 0,
            truncations: 0,
        };
        (report.truncated_tail, report.zero_tail_bytes) = log.recover_segments(log_start)?;

        let end = log.log_end_offset();
        log.flushed_offset = end;
        if let Some(id) = log.truncate_to_latest_snapshot()? {
            report.truncated_to_snapshot = Some(id);
        }
        // Snapshots that end below the log start can never be used.
        let stale: Vec<SnapshotId> = log
            .snapshots
            .ids()
            .filter(|s| s.offset < log.log_start_offset)
            .collect();
        for id in stale {
            let path = log.snapshots.path(id);
            log.snapshots.delete(id)?;
            report.removed_files.push(path);
        }

        report.segments = log.segments.len();
        report.log_start_offset = log.log_start_offset;
        report.log_end_offset = log.log_end_offset();
        tracing::info!(
            dir = %log.dir.display(),
            segments = report.segments,
            log_start_offset = report.log_start_offset,
            log_end_offset = report.log_end_offset,
            snapshots = log.snapshots.ids().count(),
            "opened metadata log"
        );
        Ok((log, report))
    }

    /// Scans all segments, rebuilding indexes and the epoch cache; truncates
    /// a damaged tail of the last segment.
    fn recover_segments(
        &mut self,
        log_start: i64,
    ) -> Result<(Option<TruncatedTail>, u64), StorageError> {
        let count = self.segments.len();
        let mut zero_tail = 0;
        let mut expected = self.segments[0].base_offset();
        let mut last_epoch = -1;
        let mut truncated = None;
        let epochs = &mut self.epochs;
        for (i, segment) in self.segments.iter_mut().enumerate() {
            let is_last = i + 1 == count;
            if segment.base_offset() != expected {
                return Err(corrupt(
                    segment.log_path(),
                    format!(
                        "segment starts at offset {} but the previous one ends at {expected}",
                        segment.base_offset()
                    ),
                ));
            }
            let end = segment.scan(
                is_last,
                self.config.max_batch_size,
                self.config.index_interval_bytes,
                |b| {
                    let h = &b.header;
                    if h.base_offset != expected {
                        return ControlFlow::Break(format!(
                            "batch at position {} has base offset {}, expected {expected}",
                            b.position, h.base_offset
                        ));
                    }
                    if h.last_offset_delta < 0 {
                        return ControlFlow::Break(format!(
                            "batch at position {} has a negative last offset delta",
                            b.position
                        ));
                    }
                    if h.partition_leader_epoch < last_epoch {
                        return ControlFlow::Break(format!(
                            "batch at position {} has epoch {} after epoch {last_epoch}",
                            b.position, h.partition_leader_epoch
                        ));
                    }
                    last_epoch = h.partition_leader_epoch;
                    expected = h.next_offset();
                    if h.last_offset() >= log_start {
                        epochs.assign(h.partition_leader_epoch, h.base_offset.max(log_start));
                    }
                    ControlFlow::Continue(())
                },
            )?;
            if end.zero_tail > 0 {
                if !is_last {
                    return Err(corrupt(
                        segment.log_path(),
                        format!(
                            "{} zero bytes after position {} in a non-active segment",
                            end.zero_tail, end.valid_bytes
                        ),
                    ));
                }
                tracing::info!(
                    segment = %segment.log_path().display(),
                    position = end.valid_bytes,
                    bytes = end.zero_tail,
                    "dropping the zero tail written ahead of the end of the metadata log"
                );
                zero_tail = end.zero_tail;
            }
            if let Some((position, stop)) = end.stop {
                if !is_last {
                    return Err(corrupt(
                        segment.log_path(),
                        format!("damaged batch at position {position} in a non-active segment: {stop:?}"),
                    ));
                }
                let file_size = std::fs::metadata(segment.log_path())
                    .at(segment.log_path())?
                    .len();
                let damage = match stop {
                    ScanStop::Torn {
                        available,
                        declared,
                    } => TailDamage::Torn {
                        available,
                        declared_size: declared,
                    },
                    ScanStop::Corrupt(reason) => TailDamage::Corrupt(reason),
                };
                let tail = TruncatedTail {
                    segment: segment.log_path().to_path_buf(),
                    position,
                    dropped_bytes: file_size - position,
                    damage,
                };
                tracing::warn!(
                    segment = %tail.segment.display(),
                    position = tail.position,
                    dropped_bytes = tail.dropped_bytes,
                    damage = ?tail.damage,
                    "truncating damaged tail of the metadata log"
                );
                truncated = Some(tail);
            }
            segment.finish_scan(end.valid_bytes)?;
        }
        Ok((truncated, zero_tail))
    }

    /// The partition directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The configuration.
    pub fn config(&self) -> &LogConfig {
        &self.config
    }

    /// First offset still readable from the log.
    pub fn log_start_offset(&self) -> i64 {
        self.log_start_offset
    }

    /// Offset the next appended batch must start at.
    pub fn log_end_offset(&self) -> i64 {
        self.active().next_offset()
    }

    /// Log end offset as of the last [`FileLog::flush`] (everything below is
    /// durable).
    pub fn flushed_offset(&self) -> i64 {
        self.flushed_offset
    }

    /// Epoch of the last batch; when the log is empty, the epoch of the
    /// latest snapshot ending at the log end; otherwise 0 (Kafka's
    /// `lastFetchedEpoch`).
    pub fn last_fetched_epoch(&self) -> i32 {
        if let Some(epoch) = self.epochs.latest_epoch() {
            return epoch;
        }
        match self.snapshots.latest() {
            Some(s) if s.offset == self.log_end_offset() => s.epoch,
            _ => 0,
        }
    }

    /// The epoch cache (leader epoch → first offset).
    pub fn epoch_cache(&self) -> &EpochCache {
        &self.epochs
    }

    /// Kafka's `endOffsetForEpoch` for diverging-epoch truncation: the end
    /// offset of `epoch` in this log and the epoch it belongs to (see
    /// [`EpochCache::end_offset_for`]); when the answer is the start of the
    /// log, the oldest snapshot id; when `epoch` is unknown and newer than
    /// the log, `(log end offset, last fetched epoch)`.
    pub fn end_offset_for_epoch(&self, epoch: i32) -> OffsetAndEpoch {
        match self.epochs.end_offset_for(epoch, self.log_end_offset()) {
            Some(found) => {
                if let Some(earliest) = self.snapshots.earliest() {
                    if found.offset == earliest.offset && found.epoch == epoch {
                        return earliest;
                    }
                }
                found
            }
            None => OffsetAndEpoch::new(self.log_end_offset(), self.last_fetched_epoch()),
        }
    }

    fn active(&self) -> &Segment {
        // `segments` is never empty (see the struct invariant).
        &self.segments[self.segments.len() - 1]
    }

    fn active_mut(&mut self) -> &mut Segment {
        let last = self.segments.len() - 1;
        &mut self.segments[last]
    }

    /// Checks that `batch` may follow a log ending at `end` whose last epoch
    /// is `last_epoch`.
    fn check_batch(
        &self,
        batch: &RecordBatch,
        end: i64,
        last_epoch: Option<i32>,
    ) -> Result<(), StorageError> {
        if batch.size_in_bytes() > self.config.max_batch_size {
            return Err(StorageError::BatchTooLarge {
                size: batch.size_in_bytes(),
                max: self.config.max_batch_size,
            });
        }
        if batch.base_offset() != end {
            return Err(StorageError::OffsetMismatch {
                base: batch.base_offset(),
                end,
            });
        }
        let epoch = batch.partition_leader_epoch();
        if epoch < 0 {
            return Err(StorageError::InvalidBatch(
                kraft_protocol::DecodeError::InvalidRecords(format!(
                    "negative partition leader epoch {epoch}"
                )),
            ));
        }
        if let Some(last) = last_epoch {
            if epoch < last {
                return Err(StorageError::EpochRegression { epoch, last });
            }
        }
        let count = batch.records_count();
        if count <= 0 || batch.last_offset_delta() != count - 1 {
            return Err(StorageError::InvalidBatch(
                kraft_protocol::DecodeError::InvalidRecords(format!(
                    "a batch needs consecutive offsets: {count} records, last offset delta {}",
                    batch.last_offset_delta()
                )),
            ));
        }
        if batch.compression() == Compression::None {
            batch.validate_records()?;
        }
        Ok(())
    }

    /// Appends one validated batch at the log end (buffered until
    /// [`FileLog::flush`]). The batch must start at the log end offset, have
    /// consecutive offsets, an epoch no lower than the last one, well-formed
    /// records and fit [`LogConfig::max_batch_size`]. Rolls to a new segment
    /// (fsyncing the old one and the directory) when the active segment is
    /// full.
    pub fn append(&mut self, batch: &RecordBatch) -> Result<(), StorageError> {
        self.check_batch(batch, self.log_end_offset(), self.epochs.latest_epoch())?;
        self.append_checked(batch)
    }

    fn append_checked(&mut self, batch: &RecordBatch) -> Result<(), StorageError> {
        let active = self.active();
        let too_big = active.size() + batch.size_in_bytes() as u64 > self.config.segment_bytes;
        let offsets_overflow = batch.last_offset() - active.base_offset() > i64::from(i32::MAX);
        if !active.is_empty() && (too_big || offsets_overflow) {
            self.roll()?;
        }
        let interval = self.config.index_interval_bytes;
        let segment_bytes = self.config.segment_bytes;
        self.active_mut().append(batch, interval, segment_bytes)?;
        self.epochs
            .assign(batch.partition_leader_epoch(), batch.base_offset());
        Ok(())
    }

    /// Validates every complete batch of `records` (e.g. a Fetch response's
    /// `Records`) before appending any, then appends them all. A partial
    /// batch at the end is ignored, as Kafka does. Returns the offsets of the
    /// first and last appended records, or `None` if there were no batches.
    pub fn append_records(&mut self, records: Bytes) -> Result<Option<(i64, i64)>, StorageError> {
        let mut parsed = Vec::new();
        let mut end = self.log_end_offset();
        let mut last_epoch = self.epochs.latest_epoch();
        for batch in records::batches(records) {
            let batch = batch?;
            self.check_batch(&batch, end, last_epoch)?;
            end = batch.next_offset();
            last_epoch = Some(batch.partition_leader_epoch());
            parsed.push(batch);
        }
        let (Some(first), Some(last)) = (parsed.first(), parsed.last()) else {
            return Ok(None);
        };
        let range = (first.base_offset(), last.last_offset());
        for batch in &parsed {
            self.append_checked(batch)?;
        }
        Ok(Some(range))
    }

    /// Starts a new segment at the log end: fsyncs the active one, cuts its
    /// zero tail, creates the new files and fsyncs the directory.
    fn roll(&mut self) -> Result<(), StorageError> {
        let active = self.active_mut();
        active.sync()?;
        // Only the last segment may end in zeros (recovery).
        active.trim_zero_tail()?;
        let base = self.log_end_offset();
        let segment = Segment::create(&self.dir, base)?;
        sync_dir(&self.dir)?;
        tracing::debug!(base_offset = base, "rolled a new log segment");
        self.segments.push(segment);
        Ok(())
    }

    /// Makes every append so far durable (fsync of the active segment;
    /// older segments were fsynced when they were rolled).
    pub fn flush(&mut self) -> Result<(), StorageError> {
        self.active_mut().sync()?;
        self.flushed_offset = self.log_end_offset();
        Ok(())
    }

    /// Starts a flush whose fsync runs elsewhere (another thread): the
    /// appends so far become durable once the returned fsync succeeds and
    /// its receipt is handed to [`FileLog::complete_flush`]. Appends,
    /// reads and truncations may go on meanwhile.
    pub(crate) fn detach_flush(&mut self) -> DetachedFlush {
        let end_offset = self.log_end_offset();
        let truncations = self.truncations;
        let active = self.active_mut();
        DetachedFlush {
            sync: active.detach_sync(),
            receipt: FlushReceipt {
                end_offset,
                segment_base: active.base_offset(),
                writes: active.writes(),
                truncations,
            },
        }
    }

    /// Records a detached flush whose fsync succeeded. A flush detached
    /// before a later truncation records nothing: the log it covered is
    /// gone. A segment roll since then fsynced the covered appends already.
    pub(crate) fn complete_flush(&mut self, receipt: FlushReceipt) {
        if receipt.truncations != self.truncations {
            return;
        }
        let active = self.active_mut();
        if active.base_offset() == receipt.segment_base {
            active.synced(receipt.writes);
        }
        self.flushed_offset = self.flushed_offset.max(receipt.end_offset);
    }

    /// Whole batches starting with the one that contains `from` (normally a
    /// batch boundary): at least one batch when `from` is below the log end,
    /// then more while the total stays within `max_bytes`, continuing into
    /// the following segments. Empty at the log end. Offsets outside
    /// `[log start, log end]` are an error.
    pub fn read(&self, from: i64, max_bytes: usize) -> Result<Bytes, StorageError> {
        let end = self.log_end_offset();
        if from < self.log_start_offset || from > end {
            return Err(StorageError::OffsetOutOfRange {
                offset: from,
                start: self.log_start_offset,
                end,
            });
        }
        let mut out: Vec<u8> = Vec::new();
        let mut i = self
            .segments
            .partition_point(|s| s.base_offset() <= from)
            .saturating_sub(1);
        let mut offset = from;
        while i < self.segments.len() {
            let segment = &self.segments[i];
            i += 1;
            let Some((position, header)) = segment.find(offset)? else {
                continue;
            };
            let first = header.size_in_bytes();
            let budget = max_bytes.saturating_sub(out.len());
            if !out.is_empty() && first > budget {
                break;
            }
            let available = (segment.size() - position) as usize;
            let want = budget
                .max(if out.is_empty() { first } else { 0 })
                .min(available);
            let chunk = segment.read(position, want)?;
            let whole = whole_batches_prefix(&chunk, segment.log_path(), position)?;
            out.extend_from_slice(&chunk[..whole]);
            if position + whole as u64 != segment.size() || out.len() >= max_bytes {
                break;
            }
            offset = segment.next_offset();
        }
        Ok(Bytes::from(out))
    }

    /// Removes every batch that is not entirely below `offset` and returns
    /// the new log end offset (the base of the first removed batch when
    /// `offset` falls inside a batch). Emptied segments are deleted, except
    /// the first; the change is fsynced. Truncating below the log start is
    /// an error.
    pub fn truncate_to(&mut self, offset: i64) -> Result<i64, StorageError> {
        if offset < self.log_start_offset {
            return Err(StorageError::InvalidArgument(format!(
                "cannot truncate to offset {offset}, below the log start offset {}",
                self.log_start_offset
            )));
        }
        if offset >= self.log_end_offset() {
            return Ok(self.log_end_offset());
        }
        let mut deleted = false;
        while self.segments.len() > 1 && self.active().base_offset() >= offset {
            if let Some(segment) = self.segments.pop() {
                segment.delete()?;
                deleted = true;
            }
        }
        if deleted {
            sync_dir(&self.dir)?;
        }
        if let Some((position, header)) = self.active().find(offset)? {
            self.active_mut()
                .truncate_at(position, header.base_offset)?;
        }
        let end = self.log_end_offset();
        self.epochs.truncate_from_end(end);
        self.flushed_offset = self.flushed_offset.min(end);
        self.truncations += 1;
        tracing::info!(offset, log_end_offset = end, "truncated the metadata log");
        Ok(end)
    }

    /// Deletes every segment and starts an empty log at `offset` (after
    /// installing a snapshot that ends there).
    pub fn truncate_fully_and_start_at(&mut self, offset: i64) -> Result<(), StorageError> {
        if offset < 0 {
            return Err(StorageError::InvalidArgument(format!(
                "negative log start offset {offset}"
            )));
        }
        // Delete from the newest segment down, so that a crash part-way
        // leaves a contiguous prefix of the old log.
        while let Some(segment) = self.segments.pop() {
            segment.delete()?;
        }
        sync_dir(&self.dir)?;
        self.segments.push(Segment::create(&self.dir, offset)?);
        sync_dir(&self.dir)?;
        self.epochs.clear();
        self.flushed_offset = offset;
        self.truncations += 1;
        self.recompute_log_start();
        tracing::info!(offset, "reset the metadata log to start at a new offset");
        Ok(())
    }

    /// If the newest snapshot is ahead of the log (newer epoch, or same epoch
    /// and beyond the log end), resets the log to start at its end and
    /// forgets older snapshots (Kafka's `truncateToLatestSnapshot`). Returns
    /// the snapshot id when it did.
    pub fn truncate_to_latest_snapshot(&mut self) -> Result<Option<SnapshotId>, StorageError> {
        let Some(latest) = self.snapshots.latest() else {
            return Ok(None);
        };
        let log_epoch = self.epochs.latest_epoch().unwrap_or(0);
        if latest.epoch > log_epoch
            || (latest.epoch == log_epoch && latest.offset > self.log_end_offset())
        {
            self.snapshots.delete_before(latest)?;
            self.truncate_fully_and_start_at(latest.offset)?;
            return Ok(Some(latest));
        }
        Ok(None)
    }

    fn recompute_log_start(&mut self) {
        let first_base = self.segments.first().map_or(0, Segment::base_offset);
        self.log_start_offset =
            first_base.max(self.snapshots.earliest().map_or(first_base, |s| s.offset));
        self.epochs.truncate_from_start(self.log_start_offset);
    }

    /// The snapshots of this log.
    pub fn snapshots(&self) -> &SnapshotStore {
        &self.snapshots
    }

    /// Whether `offset` is the base offset of a batch or the log end.
    pub fn is_batch_boundary(&self, offset: i64) -> Result<bool, StorageError> {
        if offset == self.log_end_offset() {
            return Ok(true);
        }
        if offset < self.log_start_offset || offset > self.log_end_offset() {
            return Ok(false);
        }
        let i = self
            .segments
            .partition_point(|s| s.base_offset() <= offset)
            .saturating_sub(1);
        Ok(match self.segments[i].find(offset)? {
            Some((_, header)) => header.base_offset == offset,
            None => false,
        })
    }

    /// Starts a snapshot of this log's state up to (excluding) `id.offset`,
    /// which must be a batch boundary within `[log start, log end]` whose
    /// epoch agrees with the log (the caller guarantees it is committed).
    /// Fails if it already exists.
    pub fn create_snapshot(&self, id: SnapshotId) -> Result<SnapshotWriter, StorageError> {
        if id.offset < self.log_start_offset || id.offset > self.log_end_offset() {
            return Err(StorageError::snapshot(
                id,
                format!(
                    "end offset outside the log range [{}, {}]",
                    self.log_start_offset,
                    self.log_end_offset()
                ),
            ));
        }
        if !self.is_batch_boundary(id.offset)? {
            return Err(StorageError::snapshot(
                id,
                "end offset is not batch aligned",
            ));
        }
        // Kafka's validateOffsetAndEpoch: the log must hold `id.epoch` up
        // to at least `id.offset`.
        let end = self.end_offset_for_epoch(id.epoch);
        if end.epoch != id.epoch || end.offset < id.offset {
            return Err(StorageError::snapshot(
                id,
                format!(
                    "epoch is not consistent with the log (epoch {} ends at offset {})",
                    end.epoch, end.offset
                ),
            ));
        }
        self.snapshots.create_writer(id)
    }

    /// Starts receiving snapshot `id` from the leader (FetchSnapshot).
    pub fn begin_snapshot_download(&self, id: SnapshotId) -> Result<SnapshotWriter, StorageError> {
        self.snapshots.create_writer(id)
    }

    /// Freezes a written or downloaded snapshot (validate, fsync, rename,
    /// fsync dir). A snapshot ahead of the log then replaces it: the log is
    /// reset to start at the snapshot's end and older snapshots are deleted.
    /// The log start offset is recomputed.
    pub fn freeze_snapshot(&mut self, writer: SnapshotWriter) -> Result<u64, StorageError> {
        let size = self.snapshots.freeze(writer)?;
        self.truncate_to_latest_snapshot()?;
        self.recompute_log_start();
        Ok(size)
    }

    /// Moves the log start to snapshot `id` (Kafka's
    /// `deleteBeforeSnapshot`): deletes older snapshots, then every segment
    /// wholly below `id.offset` (never the active one). Requires that `id`
    /// exists, is above the current log start, at or below the latest
    /// snapshot and the log end. Returns whether anything was deleted.
    pub fn delete_before_snapshot(&mut self, id: SnapshotId) -> Result<bool, StorageError> {
        let Some(latest) = self.snapshots.latest() else {
            return Ok(false);
        };
        if !self.snapshots.contains(id)
            || id.offset <= self.log_start_offset
            || id.offset > latest.offset
            || id.offset > self.log_end_offset()
        {
            return Ok(false);
        }
        let forgotten = self.snapshots.delete_before(id)?;
        self.recompute_log_start();
        let mut deleted_segments = 0;
        while self.segments.len() > 1 && self.segments[1].base_offset() <= self.log_start_offset {
            let segment = self.segments.remove(0);
            segment.delete()?;
            deleted_segments += 1;
        }
        if deleted_segments > 0 {
            sync_dir(&self.dir)?;
        }
        tracing::info!(
            log_start_offset = self.log_start_offset,
            deleted_segments,
            deleted_snapshots = forgotten.len(),
            "advanced the log start offset"
        );
        Ok(deleted_segments > 0 || !forgotten.is_empty())
    }

    /// Deletes snapshot `id` unless it is the oldest one (which defines the
    /// log start). Returns whether it was deleted.
    pub fn delete_snapshot(&mut self, id: SnapshotId) -> Result<bool, StorageError> {
        if self.snapshots.earliest() == Some(id) {
            return Ok(false);
        }
        self.snapshots.delete(id)
    }

    /// Total size of the segments in bytes (Kafka's `UnifiedLog.size`).
    pub fn size(&self) -> u64 {
        self.segments.iter().map(Segment::size).sum()
    }

    /// Base offsets of the segments, oldest first.
    pub fn segment_base_offsets(&self) -> Vec<i64> {
        self.segments.iter().map(Segment::base_offset).collect()
    }
}

/// Length of the longest prefix of `chunk` made of whole batches (by their
/// declared sizes). `chunk` starts at a batch boundary of a scanned segment.
fn whole_batches_prefix(chunk: &[u8], path: &Path, position: u64) -> Result<usize, StorageError> {
    let mut at = 0usize;
    while at < chunk.len() {
        match RecordBatchHeader::size_from_prefix(&chunk[at..]) {
            Ok(Some(size)) if at + size <= chunk.len() => at += size,
            Ok(_) => break,
            Err(e) => {
                return Err(corrupt(
                    path,
                    format!("batch at position {}: {e}", position + at as u64),
                ))
            }
        }
    }
    Ok(at)
}
