//! The one error type of the storage layer.

use std::path::PathBuf;

use kraft_protocol::DecodeError;

use crate::core::types::SnapshotId;

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
    /// A batch handed to [`FileLog::append`](super::FileLog::append) is malformed.
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
    /// A batch is larger than [`LogConfig::max_batch_size`](crate::LogConfig::max_batch_size).
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
    /// An earlier failure left the log's on-disk state unknown; it refuses
    /// every change and flush from then on (see
    /// [`DiskLog::failure`](crate::DiskLog::failure)).
    #[error("the metadata log in {path} refuses changes after an earlier failure: {reason}")]
    Failed {
        /// The partition directory.
        path: PathBuf,
        /// The earlier failure.
        reason: String,
    },
    /// The storage does not offer this operation.
    #[error("unsupported: {0}")]
    Unsupported(&'static str),
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
