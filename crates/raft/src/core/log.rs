//! The replicated log as seen by the core.
//!
//! The core reads and writes the log through [`RaftLog`]. Writes (appends,
//! truncations) may be buffered by the implementation; durability is
//! requested by the core with [`Action::Flush`](super::Action::Flush) and
//! confirmed by the driver with [`RaftCore::flushed`](super::RaftCore::flushed).
//! Snapshots are opaque byte strings to the core; the implementation tells the
//! core which control state (voters, `kraft.version`) a snapshot carries.

use bytes::Bytes;

use super::record::Batch;
use super::types::{OffsetAndEpoch, SnapshotId, BOOTSTRAP_SNAPSHOT_ID};
use super::voters::VoterSet;

/// Errors a log implementation may report.
#[derive(Debug, Clone, thiserror::Error, PartialEq, Eq)]
pub enum LogError {
    /// The batch does not start at the log end offset.
    #[error("batch base offset {base} does not match the log end offset {end}")]
    OffsetMismatch {
        /// Base offset of the rejected batch.
        base: i64,
        /// Log end offset.
        end: i64,
    },
    /// The batch epoch is lower than the last epoch in the log.
    #[error("batch epoch {epoch} is below the last epoch {last}")]
    EpochRegression {
        /// Epoch of the rejected batch.
        epoch: i32,
        /// Last epoch of the log.
        last: i32,
    },
    /// The batch is larger than the log takes (nothing was appended).
    #[error("The total record(s) size of {size} exceeds the maximum allowed batch size of {max}")]
    BatchTooLarge {
        /// Size of the batch in bytes.
        size: usize,
        /// The log's limit.
        max: usize,
    },
    /// Snapshot operation on an unknown or wrong snapshot.
    #[error("snapshot error: {0}")]
    Snapshot(String),
    /// I/O or other storage failure.
    #[error("storage error: {0}")]
    Storage(String),
}

/// Size and id of a stored snapshot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SnapshotInfo {
    /// Snapshot id (end offset, epoch).
    pub id: SnapshotId,
    /// Total size in bytes.
    pub size: u64,
}

/// The KRaft control state carried by a snapshot: the `VotersRecord` and the
/// `KRaftVersionRecord` it contains, if any.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SnapshotControl {
    /// The voter set in the snapshot.
    pub voters: Option<VoterSet>,
    /// The `kraft.version` in the snapshot.
    pub kraft_version: Option<i16>,
}

/// The log and snapshot store used by the core.
pub trait RaftLog {
    /// Log start offset (the end offset of the snapshot the log starts after,
    /// or 0).
    fn start_offset(&self) -> i64;
    /// Log end offset (next offset to append), including unflushed data.
    fn end_offset(&self) -> i64;
    /// Epoch of the last batch; when the log is empty, the epoch of the latest
    /// snapshot; else 0.
    fn last_fetched_epoch(&self) -> i32;
    /// The epoch-cache lookup Kafka uses for divergence: for `epoch` equal to
    /// the latest epoch, `(epoch, LEO)`; otherwise the largest epoch `e <=
    /// epoch` and the start offset of the first epoch after it; when no epoch
    /// is `<= epoch`, `(epoch, start of the first epoch)`; when `epoch` is
    /// newer than every epoch (or the log is empty), `(LEO, last fetched
    /// epoch)`. When the result's offset equals the earliest snapshot's end
    /// offset and its epoch is `epoch`, the earliest snapshot id is returned.
    /// See [`epoch_cache_lookup`] for a ready-made implementation.
    fn end_offset_for_epoch(&self, epoch: i32) -> OffsetAndEpoch;
    /// Whole batches starting at `start` (a batch boundary), at least one
    /// batch when any exists, then up to `max_bytes` in total.
    fn read(&self, start: i64, max_bytes: usize) -> Vec<Batch>;
    /// A hint: the listener and every voter have read the batches below
    /// `offset`, so a log that caches recent batches for reads may drop
    /// them. Reads below `offset` must still answer. The default ignores it.
    fn release_reads_below(&mut self, _offset: i64) {}
    /// Appends a batch at the log end (buffered; see [`super::Action::Flush`]).
    fn append(&mut self, batch: Batch) -> Result<(), LogError>;
    /// Removes every batch that is not entirely below `offset`; returns the
    /// new end offset.
    fn truncate_to(&mut self, offset: i64) -> i64;

    /// The newest snapshot.
    fn latest_snapshot(&self) -> Option<SnapshotInfo>;
    /// The oldest snapshot id.
    fn earliest_snapshot_id(&self) -> Option<SnapshotId>;
    /// Control state of the newest snapshot.
    fn latest_snapshot_control(&self) -> Option<SnapshotControl>;
    /// Up to `max_bytes` of snapshot `id` from `position`, and its total size.
    fn read_snapshot(
        &self,
        id: SnapshotId,
        position: u64,
        max_bytes: usize,
    ) -> Option<(Bytes, u64)>;
    /// Starts downloading snapshot `id`; returns false when it is already
    /// stored (nothing to download).
    fn begin_snapshot_download(&mut self, id: SnapshotId) -> Result<bool, LogError>;
    /// Bytes of the partial download of `id` so far.
    fn snapshot_download_size(&self, id: SnapshotId) -> Option<u64>;
    /// Appends a chunk to the partial download; returns the new size.
    fn append_snapshot_chunk(&mut self, id: SnapshotId, bytes: &[u8]) -> Result<u64, LogError>;
    /// Freezes a complete download (durably) and truncates the log fully so
    /// it starts at the snapshot's end offset.
    fn complete_snapshot_download(&mut self, id: SnapshotId) -> Result<(), LogError>;
    /// Abandons a partial download.
    fn abort_snapshot_download(&mut self, id: SnapshotId);
}

/// What the leader answers for a fetch position (Kafka's `ValidOffsetAndEpoch`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FetchPosition {
    /// The position is consistent with the leader's log.
    Valid,
    /// The fetcher must truncate to this offset and epoch.
    Diverging(OffsetAndEpoch),
    /// The fetcher must download this snapshot.
    Snapshot(SnapshotId),
}

/// Kafka's offset validation for a fetch at `offset` whose previous entry has
/// `epoch` (`RaftLog.validateOffsetAndEpoch`).
pub fn validate_offset_and_epoch<L: RaftLog + ?Sized>(
    log: &L,
    offset: i64,
    epoch: i32,
) -> FetchPosition {
    if log.start_offset() == 0 && offset == 0 {
        return FetchPosition::Valid;
    }
    if let Some(earliest) = log.earliest_snapshot_id() {
        if offset < log.start_offset()
            || (offset == log.start_offset() && epoch != earliest.epoch)
            || epoch < earliest.epoch
        {
            if let Some(latest) = log.latest_snapshot() {
                return FetchPosition::Snapshot(latest.id);
            }
        }
    }
    let end = log.end_offset_for_epoch(epoch);
    let epoch_differs = end.epoch != epoch && !cfg!(kraft_mutant = "divergence-offset-only");
    if epoch_differs || end.offset < offset {
        FetchPosition::Diverging(end)
    } else {
        FetchPosition::Valid
    }
}

/// The leader's choice of fetch answer, including the "empty fetcher and a
/// real snapshot" shortcut.
pub fn fetch_position<L: RaftLog + ?Sized>(log: &L, offset: i64, epoch: i32) -> FetchPosition {
    if offset == 0 {
        if let Some(latest) = log.latest_snapshot() {
            if latest.id != BOOTSTRAP_SNAPSHOT_ID {
                return FetchPosition::Snapshot(latest.id);
            }
        }
    }
    validate_offset_and_epoch(log, offset, epoch)
}

/// Implements [`RaftLog::end_offset_for_epoch`] from an epoch cache given as
/// `(epoch, start offset)` pairs in increasing order.
pub fn epoch_cache_lookup(
    cache: &[(i32, i64)],
    requested: i32,
    log_end_offset: i64,
    last_fetched_epoch: i32,
    earliest_snapshot: Option<SnapshotId>,
) -> OffsetAndEpoch {
    let found: Option<OffsetAndEpoch> = if requested < 0 {
        None
    } else if cache.last().map(|(e, _)| *e) == Some(requested) {
        Some(OffsetAndEpoch::new(log_end_offset, requested))
    } else {
        let higher = cache.iter().find(|(e, _)| *e > requested);
        match higher {
            None => None,
            Some((_, higher_start)) => {
                let floor = cache.iter().rev().find(|(e, _)| *e <= requested);
                match floor {
                    None => Some(OffsetAndEpoch::new(*higher_start, requested)),
                    Some((floor_epoch, _)) => {
                        Some(OffsetAndEpoch::new(*higher_start, *floor_epoch))
                    }
                }
            }
        }
    };
    match found {
        Some(found) => {
            if let Some(snap) = earliest_snapshot {
                if found.offset == snap.offset && found.epoch == requested {
                    return snap;
                }
            }
            found
        }
        None => OffsetAndEpoch::new(log_end_offset, last_fetched_epoch),
    }
}
