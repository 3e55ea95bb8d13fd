//! What a driver needs from storage beyond [`RaftLog`]: making the log
//! durable ([`DurableLog`]) and keeping the election state
//! ([`ElectionStore`]).

use bytes::Bytes;

use super::{QuorumStateStore, StorageError};
use crate::core::log::{RaftLog, SnapshotControl};
use crate::core::memlog::MemoryLog;
use crate::core::types::{NodeId, SnapshotId};
use crate::core::ElectionState;
use crate::disk_log::Retention;

/// A log a driver can make durable.
///
/// An error from any method means the log's on-disk state is unknown: the
/// driver must stop at once (no more votes, acknowledgements or responses),
/// as Kafka halts on a log directory failure. A failed fsync is never
/// retried, since the kernel may have dropped the dirty pages.
pub trait DurableLog: RaftLog + Send + 'static {
    /// Makes the log durable at least up to `up_to` (exclusive) and returns
    /// the durable end offset.
    fn flush_to(&mut self, up_to: i64) -> Result<i64, StorageError>;

    /// Starts a flush of every append so far whose blocking part (the
    /// fsync) is returned as a [`FlushJob`] that may run on another thread
    /// while the log keeps serving reads, appends and truncations. Hand its
    /// [`FlushOutcome`] to [`DurableLog::finish_flush`]. `Ok(None)` when the
    /// log cannot split a flush: call [`DurableLog::flush_to`] instead (the
    /// default).
    fn begin_flush(&mut self) -> Result<Option<FlushJob>, StorageError> {
        Ok(None)
    }

    /// Completes a flush begun with [`DurableLog::begin_flush`] once its job
    /// ran; returns the durable end offset. A failed job fails the log.
    fn finish_flush(&mut self, outcome: FlushOutcome) -> Result<i64, StorageError> {
        outcome.result.map(|()| outcome.end_offset)
    }

    /// Writes a snapshot of the committed log prefix ending at `end_offset`
    /// made of `control` and the state machine's `records` (see
    /// [`DiskLog::create_snapshot`](crate::DiskLog::create_snapshot)).
    /// Returns `None` when `end_offset` is not a batch end above the log
    /// start. Logs that cannot hold state-machine snapshots refuse with
    /// [`StorageError::Unsupported`] (the default).
    fn create_snapshot(
        &mut self,
        end_offset: i64,
        control: &SnapshotControl,
        records: Vec<Bytes>,
    ) -> Result<Option<SnapshotId>, StorageError> {
        let _ = (end_offset, control, records);
        Err(StorageError::Unsupported(
            "this log does not take snapshots",
        ))
    }

    /// Applies the retention policy (see
    /// [`DiskLog::maybe_clean`](crate::DiskLog::maybe_clean)); returns
    /// whether anything was deleted. Does nothing by default.
    fn maybe_clean(&mut self, retention: Retention, now_ms: i64) -> Result<bool, StorageError> {
        let _ = (retention, now_ms);
        Ok(false)
    }
}

impl DurableLog for MemoryLog {
    fn flush_to(&mut self, _up_to: i64) -> Result<i64, StorageError> {
        let ticket = self.issue_flush();
        self.complete_flush(ticket);
        Ok(self.durable_end())
    }
}

/// The fsync of a flush begun with [`DurableLog::begin_flush`], detached
/// from its log: [`FlushJob::run`] it on any thread, then give the outcome
/// back to the log with [`DurableLog::finish_flush`].
pub struct FlushJob {
    end_offset: i64,
    ticket: u64,
    sync: Option<Box<dyn FnOnce() -> Result<(), StorageError> + Send>>,
}

impl FlushJob {
    /// A job that makes everything below `end_offset` durable by running
    /// `sync`; `ticket` identifies the flush to the log that made it.
    pub fn new(
        end_offset: i64,
        ticket: u64,
        sync: impl FnOnce() -> Result<(), StorageError> + Send + 'static,
    ) -> Self {
        FlushJob {
            end_offset,
            ticket,
            sync: Some(Box::new(sync)),
        }
    }

    /// A job with nothing to do: everything below `end_offset` is durable
    /// already.
    pub fn done(end_offset: i64, ticket: u64) -> Self {
        FlushJob {
            end_offset,
            ticket,
            sync: None,
        }
    }

    /// Everything below this offset is durable once the job succeeded.
    pub fn end_offset(&self) -> i64 {
        self.end_offset
    }

    /// Whether running the job does any I/O.
    pub fn is_noop(&self) -> bool {
        self.sync.is_none()
    }

    /// Runs the fsync (blocking).
    pub fn run(self) -> FlushOutcome {
        let result = match self.sync {
            Some(sync) => sync(),
            None => Ok(()),
        };
        FlushOutcome {
            end_offset: self.end_offset,
            ticket: self.ticket,
            result,
        }
    }
}

impl std::fmt::Debug for FlushJob {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FlushJob")
            .field("end_offset", &self.end_offset)
            .field("ticket", &self.ticket)
            .field("noop", &self.sync.is_none())
            .finish()
    }
}

/// The result of a [`FlushJob`] that ran.
#[derive(Debug)]
pub struct FlushOutcome {
    /// The job's [`FlushJob::end_offset`].
    pub end_offset: i64,
    /// The ticket the log gave the job.
    pub ticket: u64,
    /// Whether the fsync succeeded.
    pub result: Result<(), StorageError>,
}

/// Where the election state is kept.
pub trait ElectionStore: Send + 'static {
    /// Durably replaces the election state (`voters` fills the v0 file's
    /// `currentVoters`). An error means the vote may not be durable: the
    /// driver must stop before it answers or sends anything else.
    fn persist(
        &mut self,
        state: &ElectionState,
        kraft_version: i16,
        voters: &[NodeId],
    ) -> Result<(), StorageError>;
}

impl ElectionStore for QuorumStateStore {
    fn persist(
        &mut self,
        state: &ElectionState,
        kraft_version: i16,
        voters: &[NodeId],
    ) -> Result<(), StorageError> {
        self.write_election_state(state, kraft_version, voters)
    }
}
