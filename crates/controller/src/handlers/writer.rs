//! The active controller's one writer (Kafka's `QuorumController` event
//! queue with its timeline snapshots).
//!
//! Every write runs under one lock, against [`ActiveState`]: the committed
//! image plus every record this leader has appended and not yet seen
//! committed. A write generates its records from that state, appends them
//! (the raft layer checks the leader epoch, and for writes whose records
//! name their own offset, such as a broker epoch, the base offset), applies
//! them to the state at once and releases the lock; its answer goes out only
//! once the records are committed and applied to the shared image. So two
//! heartbeats cannot both unfence a broker and two registrations cannot
//! both win, while writes still pipeline. A write that generates no record
//! answers once everything appended before it is applied.
//!
//! The state belongs to one leader epoch: it is rebuilt from the committed
//! image when this node becomes the active controller of a new epoch (its
//! uncommitted records then belong to a lost epoch and are discarded, as
//! Kafka reverts its timeline snapshots), together with the broker
//! sessions.

use std::time::Instant;

use kraft_protocol::{ErrorCode, MetadataRecordBody};
use tokio::sync::MutexGuard;

use super::heartbeats::BrokerHeartbeats;
use super::{append_error, not_controller, ApiError, AppendError, Controller, PendingCommit};
use crate::image::{MetadataImage, MetadataRecord};

/// How often a write retries when the log end moved under it (a control
/// record or a NoOpRecord appended concurrently).
const MAX_OFFSET_RETRIES: usize = 16;

/// The most records in one appended batch (Kafka's `MAX_RECORDS_PER_BATCH`,
/// the controller's `maxRecordsPerBatch`): a write with more records that
/// do not name their offset is appended in batches of this many, as Kafka
/// appends a non-atomic `ControllerResult` (e.g. fencing a broker that
/// holds hundreds of thousands of partitions; as one batch it would pass
/// the log's batch size limit and never commit).
pub(crate) const MAX_RECORDS_PER_BATCH: usize = 10_000;

/// The fewest records this leader applies to its state before the state is
/// taken again from the committed image (see [`ActiveState::rebase`]).
const MIN_RECORDS_BEFORE_REBASE: u64 = 1024;

/// The active controller's speculative state for one leader epoch.
#[derive(Debug)]
pub(crate) struct ActiveState {
    /// The leader epoch.
    pub(crate) epoch: i32,
    /// The committed image plus this leader's appended records.
    pub(crate) image: MetadataImage,
    /// Where the next batch is expected to start.
    pub(crate) next_offset: i64,
    /// The last offset this leader appended, if any.
    pub(crate) last_appended: Option<i64>,
    /// Broker control states.
    pub(crate) heartbeats: BrokerHeartbeats,
    /// Records applied since the image was last taken from the committed
    /// image.
    records_since_rebase: u64,
}

impl ActiveState {
    fn new(epoch: i32, image: MetadataImage) -> Self {
        let heartbeats = BrokerHeartbeats::activate(image.cluster());
        ActiveState {
            epoch,
            next_offset: image.last_offset() + 1,
            image,
            last_appended: None,
            heartbeats,
            records_since_rebase: 0,
        }
    }

    /// Whether this state has applied enough records of its own since it
    /// was taken from the committed image to be worth taking again: the
    /// two images share every topic neither changed (copy on write), and
    /// each record this leader applies may have unshared one.
    fn wants_rebase(&self) -> bool {
        let topics = self.image.topics().len() as u64;
        self.records_since_rebase >= MIN_RECORDS_BEFORE_REBASE.max(topics / 8)
    }

    /// Takes the image again from `committed` if it holds everything this
    /// leader appended: then it holds what this state holds (the same
    /// records replayed in the same order onto the image this state started
    /// from), and the copy shares every topic with it. Returns whether it
    /// did. Broker control states are kept.
    fn rebase(&mut self, committed: &MetadataImage) -> bool {
        let caught_up = self
            .last_appended
            .is_none_or(|last| committed.last_offset() >= last);
        if !caught_up
            || committed.open_transaction().is_some()
            || self.image.open_transaction().is_some()
        {
            return false;
        }
        self.image = committed.clone();
        self.next_offset = self.next_offset.max(committed.last_offset() + 1);
        self.records_since_rebase = 0;
        true
    }

    /// The last offset written to the log as far as this state knows.
    pub(crate) fn last_written_offset(&self) -> i64 {
        self.next_offset - 1
    }

    /// Takes in a batch this leader appended: applies its records at their
    /// offsets and moves the expected log end past it. An error (a record
    /// this controller generated does not apply) means the state must be
    /// dropped.
    fn appended(
        &mut self,
        records: &[MetadataRecord],
        pending: &PendingCommit,
    ) -> Result<(), ApiError> {
        for (i, record) in records.iter().enumerate() {
            if let Err(e) = self.replay(record, pending.base_offset + i as i64) {
                tracing::error!(
                    error = %e,
                    "cannot apply a record this controller generated; dropping the write state"
                );
                return Err(ApiError {
                    code: ErrorCode::UnknownServerError,
                    message: None,
                });
            }
        }
        self.next_offset = pending.last_offset + 1;
        self.last_appended = Some(pending.last_offset);
        self.records_since_rebase += records.len() as u64;
        Ok(())
    }

    /// Applies one of this leader's records at `offset`, with the broker
    /// state hooks of Kafka's `ClusterControlManager.replay`.
    fn replay(&mut self, record: &MetadataRecord, offset: i64) -> Result<(), String> {
        let had = |s: &Self, id| s.image.cluster().broker(id).is_some();
        let previously_registered = match &record.body {
            MetadataRecordBody::RegisterBroker(r) => had(self, r.broker_id),
            _ => false,
        };
        self.image
            .replay_at(record, offset)
            .map_err(|e| e.to_string())?;
        match &record.body {
            MetadataRecordBody::RegisterBroker(r) => {
                if previously_registered {
                    self.heartbeats.remove(r.broker_id);
                }
                self.heartbeats.register(r.broker_id, r.fenced);
            }
            MetadataRecordBody::BrokerRegistrationChange(r) => {
                if let Some(b) = self.image.cluster().broker(r.broker_id) {
                    let fenced = b.fenced();
                    self.heartbeats.register(r.broker_id, fenced);
                }
            }
            MetadataRecordBody::UnregisterBroker(r) => self.heartbeats.remove(r.broker_id),
            _ => {}
        }
        Ok(())
    }
}

/// A hook run under the writer lock once a write's records are appended,
/// with the offset of the batch's last record (Kafka's
/// `processBatchEndOffset`).
pub(crate) type AfterAppend = Box<dyn FnOnce(&mut ActiveState, i64) + Send>;

/// The records a write generated and its answer.
pub(crate) struct Generated<R> {
    /// The records, appended in one batch.
    pub(crate) records: Vec<MetadataRecord>,
    /// Whether the records name the offset they are computed for
    /// ([`ActiveState::next_offset`]): the batch must start there.
    pub(crate) at_next_offset: bool,
    /// The answer, sent once the records are committed.
    pub(crate) result: R,
    /// Run once appended.
    pub(crate) after_append: Option<AfterAppend>,
}

impl<R> Generated<R> {
    /// `records` and `result`.
    pub(crate) fn new(records: Vec<MetadataRecord>, result: R) -> Self {
        Generated {
            records,
            at_next_offset: false,
            result,
            after_append: None,
        }
    }
}

/// The writer lock, held.
pub(crate) type WriterGuard<'a> = MutexGuard<'a, Option<ActiveState>>;

impl Controller {
    /// Takes the writer lock as the active controller (by `deadline`, if
    /// given: Kafka's event deadline), with the state of the current epoch.
    async fn lock_writer(
        &self,
        deadline: Option<tokio::time::Instant>,
    ) -> Result<(WriterGuard<'_>, i32), ApiError> {
        let mut guard = match deadline {
            Some(d) => tokio::time::timeout_at(d, self.writer.lock())
                .await
                .map_err(|_| ApiError {
                    code: ErrorCode::RequestTimedOut,
                    message: None,
                })?,
            None => self.writer.lock().await,
        };
        let facts = self.quorum.facts();
        if !facts.is_active_controller || !self.image.is_loaded() {
            *guard = None;
            return Err(not_controller(facts.leader_id));
        }
        if guard.as_ref().map(|s| s.epoch) != Some(facts.epoch) {
            let image = self.image.snapshot();
            if let Ok(mut sessions) = self.sessions.lock() {
                sessions.activate(facts.epoch, image.cluster(), Instant::now());
            }
            tracing::info!(
                epoch = facts.epoch,
                brokers = image.cluster().brokers().count(),
                "started the active controller's write state and broker sessions"
            );
            *guard = Some(ActiveState::new(facts.epoch, image));
        } else if let Some(state) = guard.as_mut().filter(|s| s.wants_rebase()) {
            let rebased = state.rebase(&self.image.read());
            if rebased {
                tracing::debug!(
                    epoch = facts.epoch,
                    "took the write state's image again from the committed image"
                );
                crate::memory::release_free_memory();
            }
        }
        Ok((guard, facts.epoch))
    }

    /// Runs one write: `op` generates records and an answer from the
    /// active state (again, if the log end moved under a write whose
    /// records name their offset); they are appended, applied to the state,
    /// and the answer is returned once they are committed and applied.
    pub(crate) async fn write<R>(
        &self,
        deadline: Option<tokio::time::Instant>,
        mut op: impl FnMut(&mut ActiveState) -> Result<Generated<R>, ApiError> + Send,
    ) -> Result<R, ApiError>
    where
        R: Send,
    {
        let (mut guard, epoch) = self.lock_writer(deadline).await?;
        for _ in 0..MAX_OFFSET_RETRIES {
            let Some(state) = guard.as_mut() else {
                return Err(not_controller(None));
            };
            let generated = op(state)?;
            if generated.records.is_empty() {
                if let Some(after) = generated.after_append {
                    let last = state.last_written_offset();
                    after(state, last);
                }
                let wait = state.last_appended;
                drop(guard);
                if let Some(offset) = wait {
                    self.quorum
                        .wait_applied(offset)
                        .await
                        .map_err(append_error)?;
                }
                return Ok(generated.result);
            }
            let base = generated.at_next_offset.then_some(state.next_offset);
            if base.is_none() && generated.records.len() > MAX_RECORDS_PER_BATCH {
                let mut last: Option<PendingCommit> = None;
                for chunk in generated.records.chunks(MAX_RECORDS_PER_BATCH) {
                    let appended = self.quorum.append(epoch, None, chunk.to_vec()).await;
                    let applied = match appended {
                        Ok(pending) => state.appended(chunk, &pending).map(|()| pending),
                        Err(e) => Err(append_error(e)),
                    };
                    match applied {
                        Ok(pending) => last = Some(pending),
                        Err(e) => {
                            // Some batches may be in the log: take the
                            // state again from what commits.
                            *guard = None;
                            return Err(e);
                        }
                    }
                }
                let Some(last) = last else {
                    return Err(not_controller(None));
                };
                if let Some(after) = generated.after_append {
                    after(state, last.last_offset);
                }
                drop(guard);
                last.applied.await.map_err(append_error)?;
                return Ok(generated.result);
            }
            match self
                .quorum
                .append(epoch, base, generated.records.clone())
                .await
            {
                Ok(pending) => {
                    if let Err(e) = state.appended(&generated.records, &pending) {
                        *guard = None;
                        return Err(e);
                    }
                    if let Some(after) = generated.after_append {
                        after(state, pending.last_offset);
                    }
                    drop(guard);
                    pending.applied.await.map_err(append_error)?;
                    return Ok(generated.result);
                }
                Err(AppendError::OffsetMismatch { end_offset }) => {
                    state.next_offset = end_offset;
                }
                // Nothing was appended, so the state still matches the
                // log: a refused append (this leader resigning or gone)
                // keeps it. Another epoch takes a new one (`lock_writer`);
                // taking it again here would copy the whole image on the
                // runtime a resigning leader hands off from.
                Err(e) => return Err(append_error(e)),
            }
        }
        Err(ApiError {
            code: ErrorCode::UnknownServerError,
            message: Some("the metadata log end kept moving".into()),
        })
    }

    /// Takes the writer lock for a write validated against the committed
    /// image: waits until everything this leader appended is applied, so
    /// the committed image is the whole state. Append with
    /// [`Controller::append_locked`] while holding it.
    pub(crate) async fn lock_committed(&self) -> Result<(WriterGuard<'_>, i32), ApiError> {
        let (guard, epoch) = self.lock_writer(None).await?;
        if let Some(offset) = guard.as_ref().and_then(|s| s.last_appended) {
            self.quorum
                .wait_applied(offset)
                .await
                .map_err(append_error)?;
        }
        Ok((guard, epoch))
    }

    /// Appends `records` under a held writer lock (see
    /// [`Controller::lock_committed`]) and waits until they are applied.
    pub(crate) async fn append_locked(
        &self,
        guard: &mut WriterGuard<'_>,
        epoch: i32,
        records: Vec<MetadataRecord>,
    ) -> Result<i64, ApiError> {
        let Some(state) = guard.as_mut() else {
            return Err(not_controller(None));
        };
        // A refused append keeps the state, as in `write`.
        let pending = self
            .quorum
            .append(epoch, None, records.clone())
            .await
            .map_err(append_error)?;
        if let Err(e) = state.appended(&records, &pending) {
            **guard = None;
            return Err(e);
        }
        pending.applied.await.map_err(append_error)
    }
}
