//! The active controller's one writer (Kafka's `QuorumController` event
//! queue with its timeline snapshots).
//!
//! Every append of the active controller goes through it: the handlers'
//! writes, the activation records ([`Controller::activate`]) and the idle
//! NoOpRecord ([`Controller::write_no_op`]). So the writer always knows
//! where its next batch starts, and every batch is appended there (the raft
//! layer refuses it otherwise; only a control record the raft layer appends
//! itself, such as a voter change, can move the log end under it).
//!
//! Every write runs under one lock, against [`ActiveState`]: the committed
//! image plus every record this leader has appended and not yet seen
//! committed. A write generates its records from that state and **replays
//! them into the state before it appends them**, as Kafka replays before
//! `schedulePreparedAppend`: a record the state refuses is never appended
//! (the write fails with UNKNOWN_SERVER_ERROR and the reason, the state is
//! reverted to the committed image and the controller resigns, as Kafka's
//! controller renounces). Once appended, the lock is released; the answer
//! goes out only once the records are committed and applied to the shared
//! image. So two heartbeats cannot both unfence a broker and two
//! registrations cannot both win, while writes still pipeline. A write that
//! generates no record answers once everything appended before it is
//! applied.
//!
//! The state belongs to one leader epoch: it is taken from the committed
//! image when this node activates in a new epoch (its uncommitted records
//! then belong to a lost epoch and are discarded, as Kafka reverts its
//! timeline snapshots), together with the broker sessions. A refused append
//! reverts it to the committed image once that holds everything this leader
//! appended.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use kraft_protocol::{ErrorCode, MetadataRecordBody};
use tokio::sync::MutexGuard;

use super::heartbeats::BrokerHeartbeats;
use super::{append_error, not_controller, ApiError, AppendError, Controller, PendingCommit};
use crate::image::{MetadataImage, MetadataRecord};

/// How often a write retries when the log end moved under it (a control
/// record the raft layer appended itself, such as a voter change).
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

    /// Replays `records` into the state's image as if appended at
    /// `base_offset` onwards, before they are appended. The broker control
    /// changes they imply are returned, to be applied once they are
    /// appended ([`ActiveState::appended`]). On an error the image holds
    /// part of them: the caller reverts the state.
    fn replay_all(
        &mut self,
        records: &[MetadataRecord],
        base_offset: i64,
    ) -> Result<Vec<BrokerChange>, ReplayFailure> {
        let mut changes = Vec::new();
        for (i, record) in records.iter().enumerate() {
            let offset = base_offset + i as i64;
            self.replay(record, offset, &mut changes)
                .map_err(|reason| ReplayFailure {
                    record_type: record.record_type().name(),
                    version: record.version,
                    offset,
                    base_offset,
                    reason,
                })?;
        }
        Ok(changes)
    }

    /// Takes in a batch of `count` replayed records appended up to
    /// `last_offset`: moves the expected log end past it and applies the
    /// broker control changes its records imply.
    fn appended(&mut self, count: usize, last_offset: i64, changes: Vec<BrokerChange>) {
        for change in changes {
            match change {
                BrokerChange::Removed(id) => self.heartbeats.remove(id),
                BrokerChange::Registered { id, fenced } => self.heartbeats.register(id, fenced),
            }
        }
        self.next_offset = last_offset + 1;
        self.last_appended = Some(last_offset);
        self.records_since_rebase += count as u64;
    }

    /// Applies one of this leader's records at `offset`, noting the broker
    /// state hooks of Kafka's `ClusterControlManager.replay`.
    fn replay(
        &mut self,
        record: &MetadataRecord,
        offset: i64,
        changes: &mut Vec<BrokerChange>,
    ) -> Result<(), String> {
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
                    changes.push(BrokerChange::Removed(r.broker_id));
                }
                changes.push(BrokerChange::Registered {
                    id: r.broker_id,
                    fenced: r.fenced,
                });
            }
            MetadataRecordBody::BrokerRegistrationChange(r) => {
                if let Some(b) = self.image.cluster().broker(r.broker_id) {
                    changes.push(BrokerChange::Registered {
                        id: r.broker_id,
                        fenced: b.fenced(),
                    });
                }
            }
            MetadataRecordBody::UnregisterBroker(r) => {
                changes.push(BrokerChange::Removed(r.broker_id))
            }
            _ => {}
        }
        Ok(())
    }
}

/// A change of a broker's control state that a replayed record implies.
#[derive(Debug, Clone, Copy)]
enum BrokerChange {
    /// The broker's registration is gone (or replaced).
    Removed(i32),
    /// The broker is registered, fenced or not.
    Registered { id: i32, fenced: bool },
}

/// A record this controller generated that its state refuses: Kafka's
/// `Unable to apply ... record at offset ... on active controller`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "Unable to apply {record_type} record at offset {offset} (version {version}) on active controller, from the batch with baseOffset {base_offset}: {reason}"
)]
pub(crate) struct ReplayFailure {
    record_type: &'static str,
    version: i16,
    offset: i64,
    base_offset: i64,
    reason: String,
}

/// What the writer has done since the controller started, for tests and
/// metrics.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct WriteStats {
    /// Write states taken from the committed image: one per epoch this node
    /// activated in, plus one per revert that could not rebase.
    pub states_built: u64,
    /// Batches the raft layer refused because the log end had moved.
    pub offset_mismatches: u64,
    /// Batches appended.
    pub batches_appended: u64,
}

/// The counters behind [`WriteStats`].
#[derive(Debug, Default)]
pub(crate) struct WriteCounters {
    states_built: AtomicU64,
    offset_mismatches: AtomicU64,
    batches_appended: AtomicU64,
}

impl WriteCounters {
    fn bump(counter: &AtomicU64) {
        counter.fetch_add(1, Ordering::Relaxed);
    }

    fn read(&self) -> WriteStats {
        WriteStats {
            states_built: self.states_built.load(Ordering::Relaxed),
            offset_mismatches: self.offset_mismatches.load(Ordering::Relaxed),
            batches_appended: self.batches_appended.load(Ordering::Relaxed),
        }
    }
}

/// Why [`Controller::replay_and_append`] appended nothing or not all.
enum AppendFailure {
    /// The log end moved before anything was appended: the state now
    /// expects the new end; generate the records again.
    Moved,
    /// The write fails with this answer (the state is reverted).
    Failed(ApiError),
}

/// A hook run under the writer lock once a write's records are appended,
/// with the offset of the batch's last record (Kafka's
/// `processBatchEndOffset`).
pub(crate) type AfterAppend = Box<dyn FnOnce(&mut ActiveState, i64) + Send>;

/// The records a write generated and its answer.
pub(crate) struct Generated<R> {
    /// The records, appended in one batch at [`ActiveState::next_offset`]
    /// (or in batches of at most [`MAX_RECORDS_PER_BATCH`] from there).
    pub(crate) records: Vec<MetadataRecord>,
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
            result,
            after_append: None,
        }
    }
}

/// A write of one RemoveTopicRecord for `topic_id`: a record the state
/// refuses when no such topic exists (no handler generates one; tests of
/// the writer's refusal do).
#[cfg(test)]
pub(crate) fn remove_topic(topic_id: kraft_protocol::Uuid) -> Generated<()> {
    Generated::new(
        vec![MetadataRecord::new(
            kraft_protocol::messages::remove_topic_record::RemoveTopicRecord {
                topic_id,
                ..Default::default()
            },
            0,
        )],
        (),
    )
}

/// The writer lock, held for the write (Kafka's controller event) `name`;
/// dropping it reports how long it was held (Kafka's
/// `EventQueueProcessingTimeMs`, and the event performance monitor).
pub(crate) struct WriterGuard<'a> {
    guard: MutexGuard<'a, Option<ActiveState>>,
    acquired: Instant,
    name: EventName,
    controller: &'a Controller,
}

/// A write's name, as Kafka names its controller event (`createTopics`,
/// `processBrokerHeartbeat`, `completeActivation[7]`, ...).
pub(crate) type EventName = std::borrow::Cow<'static, str>;

impl std::ops::Deref for WriterGuard<'_> {
    type Target = Option<ActiveState>;

    fn deref(&self) -> &Self::Target {
        &self.guard
    }
}

impl std::ops::DerefMut for WriterGuard<'_> {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.guard
    }
}

impl Drop for WriterGuard<'_> {
    fn drop(&mut self) {
        let held = self.acquired.elapsed();
        self.controller
            .stats
            .operation_finished(i64::try_from(held.as_millis()).unwrap_or(i64::MAX));
        tracing::debug!("Processed {} in {} us", self.name, held.as_micros());
        let slow = self
            .controller
            .lock_performance()
            .observe(std::mem::take(&mut self.name), held);
        if let Some(line) = slow {
            tracing::error!("{line}");
        }
    }
}

impl Controller {
    /// `controller.performance.sample.period.ms`.
    pub(crate) fn performance_period(&self) -> std::time::Duration {
        self.lock_performance().period()
    }

    /// The summary of the writes of the period just ended (Kafka's
    /// periodic performance message); a new period starts.
    pub(crate) fn take_performance_message(&self) -> String {
        self.lock_performance().take_periodic_message()
    }

    fn lock_performance(
        &self,
    ) -> std::sync::MutexGuard<'_, super::performance::PerformanceMonitor> {
        self.performance.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// What the writer has done since this controller started.
    pub fn write_stats(&self) -> WriteStats {
        self.write_stats.read()
    }

    /// A new write state for `epoch` from the committed image, once that
    /// holds every batch this writer appended in `epoch` (a state dropped
    /// mid-epoch must not forget records still being committed).
    async fn new_state(&self, epoch: i32) -> Result<ActiveState, ApiError> {
        let pending = self
            .last_append
            .lock()
            .ok()
            .and_then(|l| *l)
            .filter(|(e, _)| *e == epoch);
        if let Some((_, offset)) = pending {
            self.quorum
                .wait_applied(offset)
                .await
                .map_err(append_error)?;
        }
        let image = self.image.snapshot();
        if let Ok(mut sessions) = self.sessions.lock() {
            sessions.activate(epoch, image.cluster(), Instant::now());
        }
        self.stats
            .brokers_activated(image.cluster().brokers().map(|b| b.id()));
        tracing::info!(
            epoch,
            brokers = image.cluster().brokers().count(),
            "started the active controller's write state and broker sessions"
        );
        WriteCounters::bump(&self.write_stats.states_built);
        Ok(ActiveState::new(epoch, image))
    }

    /// Takes the writer lock, counting the wait (Kafka's
    /// `EventQueueTimeMs`) and the operation started.
    async fn lock_timed(&self, name: EventName) -> WriterGuard<'_> {
        let asked = Instant::now();
        let guard = self.writer.lock().await;
        let waited = asked.elapsed().as_millis();
        self.stats
            .operation_started(i64::try_from(waited).unwrap_or(i64::MAX));
        WriterGuard {
            guard,
            acquired: Instant::now(),
            name,
            controller: self,
        }
    }

    /// Takes the writer lock as the active controller (by `deadline`, if
    /// given: Kafka's event deadline), with the state of the current epoch.
    async fn lock_writer(
        &self,
        name: EventName,
        deadline: Option<tokio::time::Instant>,
    ) -> Result<(WriterGuard<'_>, i32), ApiError> {
        let mut guard = match deadline {
            Some(d) => match tokio::time::timeout_at(d, self.lock_timed(name)).await {
                Ok(guard) => guard,
                Err(_) => {
                    self.stats.operation_timed_out();
                    return Err(ApiError {
                        code: ErrorCode::RequestTimedOut,
                        message: None,
                    });
                }
            },
            None => self.lock_timed(name).await,
        };
        let facts = self.quorum.facts();
        if !facts.is_active_controller || !self.image.is_loaded() {
            *guard = None;
            return Err(not_controller(facts.leader_id));
        }
        if guard.as_ref().map(|s| s.epoch) != Some(facts.epoch) {
            *guard = Some(self.new_state(facts.epoch).await?);
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

    /// Becomes the active controller of `epoch` (Kafka's
    /// `claim`/activation): takes the write state from the committed image
    /// (which holds everything written before `epoch`), appends the
    /// activation `records` through the writer and waits until they are
    /// applied. Handlers write only once the caller publishes the
    /// activation.
    pub(crate) async fn activate(
        &self,
        epoch: i32,
        records: Vec<MetadataRecord>,
    ) -> Result<(), ApiError> {
        let mut guard = self
            .lock_timed(format!("completeActivation[{epoch}]").into())
            .await;
        if guard.as_ref().map(|s| s.epoch) != Some(epoch) {
            *guard = Some(self.new_state(epoch).await?);
        }
        if records.is_empty() {
            return Ok(());
        }
        for _ in 0..MAX_OFFSET_RETRIES {
            match self.replay_and_append(&mut guard, epoch, &records).await {
                Ok(pending) => {
                    drop(guard);
                    pending.applied.await.map_err(append_error)?;
                    return Ok(());
                }
                Err(AppendFailure::Moved) => {}
                Err(AppendFailure::Failed(e)) => return Err(e),
            }
        }
        Err(ApiError {
            code: ErrorCode::UnknownServerError,
            message: Some("the metadata log end kept moving".into()),
        })
    }

    /// Appends a NoOpRecord as the active controller (Kafka's periodic
    /// `writeNoOpRecord`), through the writer like every other append.
    pub(crate) async fn write_no_op(&self) -> Result<(), ApiError> {
        self.write("writeNoOpRecord", None, |_| {
            Ok(Generated::new(vec![MetadataRecord::no_op()], ()))
        })
        .await
    }

    /// Runs one write: `op` generates records and an answer from the
    /// active state (again, if the log end moved under it); they are
    /// replayed into the state, appended, and the answer is returned once
    /// they are committed and applied.
    pub(crate) async fn write<R>(
        &self,
        name: &'static str,
        deadline: Option<tokio::time::Instant>,
        mut op: impl FnMut(&mut ActiveState) -> Result<Generated<R>, ApiError> + Send,
    ) -> Result<R, ApiError>
    where
        R: Send,
    {
        let (mut guard, epoch) = self.lock_writer(name.into(), deadline).await?;
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
            match self
                .replay_and_append(&mut guard, epoch, &generated.records)
                .await
            {
                Ok(pending) => {
                    if let (Some(after), Some(state)) = (generated.after_append, guard.as_mut()) {
                        after(state, pending.last_offset);
                    }
                    drop(guard);
                    pending.applied.await.map_err(append_error)?;
                    return Ok(generated.result);
                }
                Err(AppendFailure::Moved) => {}
                Err(AppendFailure::Failed(e)) => return Err(e),
            }
        }
        Err(ApiError {
            code: ErrorCode::UnknownServerError,
            message: Some("the metadata log end kept moving".into()),
        })
    }

    /// Replays `records` into the state at the log end it expects, then
    /// appends them there: in one batch, or in batches of at most
    /// [`MAX_RECORDS_PER_BATCH`] when there are more (Kafka's non-atomic
    /// `ControllerResult`). Returns the last batch's commit. A record the
    /// state refuses appends nothing, reverts the state and resigns
    /// leadership; a refused append reverts the state.
    async fn replay_and_append(
        &self,
        guard: &mut WriterGuard<'_>,
        epoch: i32,
        records: &[MetadataRecord],
    ) -> Result<PendingCommit, AppendFailure> {
        let Some(state) = guard.as_mut() else {
            return Err(AppendFailure::Failed(not_controller(None)));
        };
        let base = state.next_offset;
        let changes = match state.replay_all(records, base) {
            Ok(changes) => changes,
            Err(failure) => {
                tracing::error!(
                    epoch,
                    "{failure}; appending nothing, resigning leadership and reverting to the last committed offset"
                );
                self.revert(guard).await;
                self.quorum.resign(epoch).await;
                return Err(AppendFailure::Failed(ApiError::new(
                    ErrorCode::UnknownServerError,
                    failure.to_string(),
                )));
            }
        };
        let mut changes = Some(changes);
        let mut last: Option<PendingCommit> = None;
        let mut next = base;
        for chunk in records.chunks(MAX_RECORDS_PER_BATCH) {
            match self.quorum.append(epoch, Some(next), chunk.to_vec()).await {
                Ok(pending) => {
                    WriteCounters::bump(&self.write_stats.batches_appended);
                    if let Ok(mut l) = self.last_append.lock() {
                        *l = Some((epoch, pending.last_offset));
                    }
                    next = pending.last_offset + 1;
                    if let Some(state) = guard.as_mut() {
                        // The broker changes of the whole write take effect
                        // with its first batch (the state holds them all).
                        let changes = changes.take().unwrap_or_default();
                        state.appended(chunk.len(), pending.last_offset, changes);
                    }
                    last = Some(pending);
                }
                Err(e) => {
                    let moved = matches!(e, AppendError::OffsetMismatch { .. }) && last.is_none();
                    if let AppendError::OffsetMismatch { end_offset } = e {
                        WriteCounters::bump(&self.write_stats.offset_mismatches);
                        tracing::debug!(
                            epoch,
                            expected = next,
                            end_offset,
                            "the metadata log end moved under the writer"
                        );
                    }
                    let end_offset = match e {
                        AppendError::OffsetMismatch { end_offset } => Some(end_offset),
                        _ => None,
                    };
                    self.revert(guard).await;
                    if let (Some(end), Some(state)) = (end_offset, guard.as_mut()) {
                        state.next_offset = state.next_offset.max(end);
                    }
                    return Err(if moved {
                        AppendFailure::Moved
                    } else {
                        AppendFailure::Failed(append_error(e))
                    });
                }
            }
        }
        last.ok_or_else(|| AppendFailure::Failed(not_controller(None)))
    }

    /// Takes the state back to the committed image after records were
    /// replayed into it that are not (all) in the log: once the image has
    /// applied everything this leader appended, the state is taken from it
    /// again (keeping the broker control states); if it cannot be, the
    /// state is dropped and the next write takes a new one.
    async fn revert(&self, guard: &mut WriterGuard<'_>) {
        let Some(state) = guard.as_mut() else {
            return;
        };
        if let Some(last) = state.last_appended {
            if self.quorum.wait_applied(last).await.is_err() {
                **guard = None;
                return;
            }
        }
        if !state.rebase(&self.image.read()) {
            **guard = None;
        }
    }

    /// Takes the writer lock for a write validated against the committed
    /// image: waits until everything this leader appended is applied, so
    /// the committed image is the whole state. Append with
    /// [`Controller::append_locked`] while holding it.
    pub(crate) async fn lock_committed(
        &self,
        name: &'static str,
    ) -> Result<(WriterGuard<'_>, i32), ApiError> {
        let (guard, epoch) = self.lock_writer(name.into(), None).await?;
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
        for _ in 0..MAX_OFFSET_RETRIES {
            match self.replay_and_append(guard, epoch, &records).await {
                Ok(pending) => return pending.applied.await.map_err(append_error),
                Err(AppendFailure::Moved) => {}
                Err(AppendFailure::Failed(e)) => return Err(e),
            }
        }
        Err(ApiError {
            code: ErrorCode::UnknownServerError,
            message: Some("the metadata log end kept moving".into()),
        })
    }
}
