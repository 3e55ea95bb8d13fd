//! Durable storage of a KRaft replica, in Kafka's on-disk layout (spec §3.6).
//!
//! Everything here is synchronous `std::fs` code; the driver decides on
//! which thread it runs. The layout of a partition directory
//! (`<metadata.log.dir>/__cluster_metadata-0/`):
//!
//! * `<20-digit base offset>.log` — log segments of RecordBatch v2 data, each
//!   with a sparse offset index `<base>.index` in Kafka's format (8-byte
//!   entries: relative last offset, position). See [`FileLog`].
//! * `<20-digit end offset>-<10-digit epoch>.checkpoint` — snapshots; in
//!   progress `….checkpoint.part`, pending delete `….checkpoint.deleted`. See
//!   [`SnapshotStore`].
//! * `quorum-state` — the election state as Kafka's JSON. See
//!   [`QuorumStateStore`].
//!
//! Durability rules: an append is durable once [`FileLog::flush`] returns;
//! segment creation and deletion fsync the directory; snapshots and
//! `quorum-state` are written to a temporary file, fsynced, renamed into
//! place and the directory fsynced. At start-up [`FileLog::open`] truncates a
//! torn or corrupt tail of the last segment to the last batch whose CRC checks
//! and reports what it dropped ([`RecoveryReport`]).

mod epoch_cache;
mod fs;
mod log;
mod quorum_state;
mod segment;
mod snapshot;

#[cfg(test)]
mod tests;

use std::path::PathBuf;

use kraft_protocol::DecodeError;

pub use epoch_cache::EpochCache;
pub use log::{FileLog, LogConfig, RecoveryReport, TailDamage, TruncatedTail};
pub use quorum_state::{QuorumStateData, QuorumStateStore, QUORUM_STATE_FILE};
pub use snapshot::{
    snapshot_file_name, SnapshotStore, SnapshotWriter, PARTIAL_SUFFIX, SNAPSHOT_DELETE_SUFFIX,
    SNAPSHOT_SUFFIX,
};

pub use crate::core::types::SnapshotId;

/// Why a storage operation failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StorageError {
    /// An operating-system I/O error on a file or directory.
    #[error("I/O error on {path}: {source}")]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// A batch handed to [`FileLog::append`] is malformed.
    #[error("invalid batch: {0}")]
    InvalidBatch(#[from] DecodeError),
    /// A batch does not start at the log end offset.
    #[error("batch base offset {base} does not match the log end offset {end}")]
    OffsetMismatch {
        /// Base offset of the rejected batch.
        base: i64,
        /// Log end offset.
        end: i64,
    },
    /// A batch's epoch is lower than the last epoch in the log.
    #[error("batch epoch {epoch} is below the last epoch {last}")]
    EpochRegression {
        /// Epoch of the rejected batch.
        epoch: i32,
        /// Last epoch of the log.
        last: i32,
    },
    /// A batch is larger than [`LogConfig::max_batch_size`].
    #[error("batch of {size} bytes exceeds the maximum of {max}")]
    BatchTooLarge {
        /// Size of the batch.
        size: usize,
        /// The configured maximum.
        max: usize,
    },
    /// An offset outside `[log start, log end]`.
    #[error("offset {offset} is outside the log range [{start}, {end}]")]
    OffsetOutOfRange {
        /// The requested offset.
        offset: i64,
        /// Log start offset.
        start: i64,
        /// Log end offset.
        end: i64,
    },
    /// A file's contents are inconsistent in a way recovery must not repair
    /// silently (e.g. a damaged segment that is not the last one).
    #[error("corrupt {path}: {reason}")]
    Corrupt {
        /// The file or directory.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// A snapshot operation was refused (unknown id, already exists, invalid
    /// contents, ...).
    #[error("snapshot {offset}-{epoch}: {reason}")]
    Snapshot {
        /// Snapshot end offset.
        offset: i64,
        /// Snapshot epoch.
        epoch: i32,
        /// What is wrong.
        reason: String,
    },
    /// The `quorum-state` file exists but cannot be used. It is never
    /// silently reset: an operator must look at it.
    #[error("unreadable quorum-state file {path}: {reason}")]
    QuorumState {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// A request that contradicts the log's state (e.g. truncating below the
    /// log start offset).
    #[error("invalid argument: {0}")]
    InvalidArgument(String),
}

impl StorageError {
    pub(crate) fn snapshot(id: SnapshotId, reason: impl Into<String>) -> Self {
        StorageError::Snapshot {
            offset: id.offset,
            epoch: id.epoch,
            reason: reason.into(),
        }
    }
}
