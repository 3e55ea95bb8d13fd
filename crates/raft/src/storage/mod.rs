//! The file layer under [`DiskLog`]: durable storage of a
//! KRaft replica in Kafka's on-disk layout (`KafkaRaftLog`, `Snapshots`).
//!
//! Most users need only the crate-root types built on it: [`DiskLog`]
//! (the core's log), [`LogConfig`], [`QuorumStateStore`], [`StorageError`].
//! This module holds the lower layer for tools that read or repair a log
//! directory: the segmented [`FileLog`], the [`SnapshotStore`], the
//! `quorum-state` contents and the snapshot file format.
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
//!
//! [`DiskLog`]: crate::DiskLog
//! [`LogConfig`]: crate::LogConfig
//! [`QuorumStateStore`]: crate::QuorumStateStore
//! [`StorageError`]: crate::StorageError

pub(crate) mod durable;
mod epoch_cache;
pub(crate) mod error;
mod fs;
pub(crate) mod log;
pub mod page_cache;
pub(crate) mod quorum_state;
mod segment;
mod snapshot;

#[cfg(test)]
mod tests;

pub use epoch_cache::EpochCache;
pub use fs::write_file_atomically;
pub use log::{FileLog, RecoveryReport, TailDamage, TruncatedTail};
pub use quorum_state::{QuorumStateData, QUORUM_STATE_FILE};
pub use snapshot::{
    snapshot_file_name, SnapshotStore, SnapshotWriter, PARTIAL_SUFFIX, SNAPSHOT_DELETE_SUFFIX,
    SNAPSHOT_SUFFIX,
};

pub use crate::disk_log::{
    decode_snapshot, encode_snapshot, SnapshotContents, DEFAULT_TAIL_CACHE_BYTES,
};

pub(crate) use self::log::LogConfig;
pub(crate) use error::StorageError;
pub(crate) use quorum_state::QuorumStateStore;

use crate::core::types::SnapshotId;
