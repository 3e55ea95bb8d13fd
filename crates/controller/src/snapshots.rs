//! Periodic snapshots of the controller's image (Kafka's `SnapshotGenerator`
//! and the raft client's log cleaner).
//!
//! Every controller, leader or not, counts the bytes of the committed
//! batches it applies. Once they reach
//! `metadata.log.max.record.bytes.between.snapshots`, or once
//! `metadata.log.max.snapshot.interval.ms` has passed since the last
//! snapshot and new batches arrive, the apply loop hands the image's records
//! as of the last applied offset to a separate task, which asks the raft
//! driver to write `<offset>-<epoch>.checkpoint` (temporary file, fsync,
//! rename) and then to apply the retention policy
//! (`metadata.max.retention.bytes` / `metadata.max.retention.ms`), which
//! deletes older snapshots and the segments wholly below the new log start.
//! The retention policy is also applied once a minute, as Kafka's raft
//! client does.
//!
//! The apply loop never waits for the disk: while a snapshot request is
//! still waiting for the writer, a new trigger is skipped (Kafka skips while
//! its snapshot event queue is not empty) and the counters keep running.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use kraft_raft::{DriverError, RaftHandle, Retention};
use tokio::sync::mpsc;

use crate::config::MetadataLogConfig;
use crate::image::MetadataImage;
use crate::metrics::ControllerStats;

/// How often the retention policy is applied even without new snapshots
/// (Kafka's `RaftMetadataLogCleanerManager` interval).
const CLEAN_INTERVAL: Duration = Duration::from_secs(60);

/// When to take snapshots and how long to keep them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SnapshotPolicy {
    /// `metadata.log.max.record.bytes.between.snapshots`
    pub max_bytes_between: u64,
    /// `metadata.log.max.snapshot.interval.ms` (`None` when 0: no
    /// time-based snapshots).
    pub max_interval: Option<Duration>,
    /// `metadata.max.retention.bytes` and `metadata.max.retention.ms`.
    pub retention: Retention,
}

impl SnapshotPolicy {
    /// The policy of a controller configuration.
    pub fn from_config(config: &MetadataLogConfig) -> Self {
        SnapshotPolicy {
            max_bytes_between: config.snapshot_max_new_record_bytes.max(1) as u64,
            max_interval: (config.snapshot_max_interval_ms > 0)
                .then(|| Duration::from_millis(config.snapshot_max_interval_ms as u64)),
            retention: Retention {
                max_bytes: config.max_retention_bytes,
                max_ms: config.max_retention_ms,
            },
        }
    }
}

/// A snapshot the writer task should take.
#[derive(Debug)]
struct SnapshotRequest {
    /// Exclusive end offset: the last applied offset + 1.
    end_offset: i64,
    /// The image's records, encoded.
    records: Vec<Bytes>,
    /// Why (for the log).
    reason: String,
}

/// A read-only view of whether this node holds its metadata log: set while
/// the image holds records it does not understand, when the node takes no
/// snapshot and applies no log retention. Cloning shares the flag.
#[derive(Debug, Clone)]
pub struct LogHold(Arc<AtomicBool>);

impl LogHold {
    /// Whether snapshots and the log retention are suspended now.
    pub fn is_held(&self) -> bool {
        self.0.load(Ordering::Acquire)
    }
}

/// The apply loop's side: counts applied bytes and hands snapshots to the
/// writer task.
#[derive(Debug)]
pub struct SnapshotTrigger {
    policy: SnapshotPolicy,
    bytes_since_last: u64,
    last_snapshot: Instant,
    requests: mpsc::Sender<SnapshotRequest>,
    /// Set while the image holds records it does not understand: the writer
    /// then applies no retention, so nothing below the last snapshot that
    /// held everything is deleted either.
    log_held: Arc<AtomicBool>,
    /// Why the image could not be written last time, to log each new
    /// reason once.
    last_refusal: Option<String>,
    /// Where snapshots written and loaded are counted.
    stats: Arc<ControllerStats>,
}

impl SnapshotTrigger {
    /// Starts the writer task over `raft` and returns the trigger the apply
    /// loop feeds.
    pub fn start(policy: SnapshotPolicy, raft: RaftHandle) -> (Self, tokio::task::JoinHandle<()>) {
        let (trigger, rx) = Self::new(policy);
        let held = Arc::clone(&trigger.log_held);
        let stats = Arc::clone(&trigger.stats);
        let task = tokio::spawn(run_writer(rx, raft, policy.retention, held, stats));
        (trigger, task)
    }

    fn new(policy: SnapshotPolicy) -> (Self, mpsc::Receiver<SnapshotRequest>) {
        // Capacity 1: at most one request waits behind the one being
        // written (Kafka's generator only schedules into an empty queue).
        let (tx, rx) = mpsc::channel(1);
        (
            SnapshotTrigger {
                policy,
                bytes_since_last: 0,
                last_snapshot: Instant::now(),
                requests: tx,
                log_held: Arc::new(AtomicBool::new(false)),
                last_refusal: None,
                stats: Arc::default(),
            },
            rx,
        )
    }

    /// The controller's counters this trigger's writer reports snapshots
    /// to.
    pub fn stats(&self) -> Arc<ControllerStats> {
        Arc::clone(&self.stats)
    }

    /// The image was just replaced by a snapshot: counting starts again.
    pub fn on_snapshot_loaded(&mut self, image: &MetadataImage) {
        self.stats.snapshot_loaded();
        self.bytes_since_last = 0;
        self.last_snapshot = Instant::now();
        self.hold_log_if_not_understood(image);
    }

    /// Whether the metadata log retention is suspended because the image
    /// holds records it does not understand.
    #[cfg(test)]
    pub fn is_log_held(&self) -> bool {
        self.log_held.load(Ordering::Acquire)
    }

    /// A view of [`SnapshotTrigger::is_log_held`] that stays readable after
    /// the trigger moved into the apply loop (for the metrics endpoint).
    pub fn log_hold(&self) -> LogHold {
        LogHold(Arc::clone(&self.log_held))
    }

    fn hold_log_if_not_understood(&mut self, image: &MetadataImage) {
        let held = image.not_understood().next().is_some();
        if self.log_held.swap(held, Ordering::AcqRel) != held && held {
            tracing::error!(
                "the metadata image holds records this build does not understand: \
                 snapshots and the metadata log retention are suspended on this node"
            );
        }
    }

    /// Committed batches of `bytes` bytes were applied; `image` now reflects
    /// every record up to and including `last_offset`, which ends a batch.
    /// Schedules a snapshot if a threshold is reached.
    pub fn on_committed(&mut self, bytes: u64, last_offset: i64, image: &MetadataImage) {
        self.bytes_since_last = self.bytes_since_last.saturating_add(bytes);
        self.hold_log_if_not_understood(image);
        let reason = if self.bytes_since_last >= self.policy.max_bytes_between {
            format!(
                "{} bytes were applied since the last snapshot (at least {})",
                self.bytes_since_last, self.policy.max_bytes_between
            )
        } else if let Some(interval) = self
            .policy
            .max_interval
            .filter(|i| self.last_snapshot.elapsed() >= *i)
        {
            format!(
                "at least {} ms passed since the last snapshot",
                interval.as_millis()
            )
        } else {
            return;
        };
        if self.requests.capacity() == 0 {
            tracing::trace!("a snapshot request is still waiting; not scheduling another");
            return;
        }
        if image.metadata_version().is_none() {
            tracing::debug!("no metadata.version yet; not taking a snapshot");
            return;
        }
        let records = match image.to_values() {
            Ok(records) => {
                self.last_refusal = None;
                records
            }
            Err(e) => {
                let reason = e.to_string();
                if self.last_refusal.as_ref() != Some(&reason) {
                    tracing::error!(error = %reason, "not taking a metadata snapshot");
                    self.last_refusal = Some(reason);
                }
                return;
            }
        };
        let request = SnapshotRequest {
            end_offset: last_offset + 1,
            records,
            reason,
        };
        if self.requests.try_send(request).is_ok() {
            self.bytes_since_last = 0;
            self.last_snapshot = Instant::now();
        }
    }
}

async fn run_writer(
    mut requests: mpsc::Receiver<SnapshotRequest>,
    raft: RaftHandle,
    retention: Retention,
    log_held: Arc<AtomicBool>,
    stats: Arc<ControllerStats>,
) {
    let mut clean_timer = tokio::time::interval(CLEAN_INTERVAL);
    clean_timer.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            request = requests.recv() => {
                let Some(request) = request else { return };
                let started = Instant::now();
                // SnapshotGenerator's and SnapshotEmitter's wording, which
                // operators grep for.
                tracing::info!(
                    end_offset = request.end_offset,
                    "Creating new KRaft snapshot file at end offset {} because {}.",
                    request.end_offset,
                    request.reason
                );
                let bytes: u64 = request.records.iter().map(|r| r.len() as u64).sum();
                match raft.create_snapshot(request.end_offset, request.records).await {
                    Ok(Some(id)) => {
                        stats.snapshot_generated(bytes);
                        tracing::info!(
                        offset = id.offset,
                        epoch = id.epoch,
                        elapsed_ms = started.elapsed().as_millis() as u64,
                        reason = %request.reason,
                        "Successfully wrote snapshot {:020}-{:010}",
                        id.offset,
                        id.epoch
                        )
                    }
                    Ok(None) => tracing::debug!(
                        end_offset = request.end_offset,
                        "no snapshot taken: the offset is not a batch end above the log start"
                    ),
                    Err(DriverError::Stopped) => return,
                    Err(e) => {
                        tracing::warn!(error = %e, end_offset = request.end_offset, "cannot write a metadata snapshot");
                        continue;
                    }
                }
                // The snapshot's encoded records (the size of the image) are
                // freed by now.
                crate::memory::release_free_memory();
                clean(&raft, retention, &log_held).await;
            }
            _ = clean_timer.tick() => clean(&raft, retention, &log_held).await,
        }
    }
}

async fn clean(raft: &RaftHandle, retention: Retention, log_held: &AtomicBool) {
    if log_held.load(Ordering::Acquire) {
        tracing::debug!("the metadata log retention is suspended: the image holds records it does not understand");
        return;
    }
    match raft.maybe_clean(retention).await {
        Ok(true) => {
            tracing::info!("old snapshots and log segments deleted by the retention policy")
        }
        Ok(false) | Err(DriverError::Stopped) => {}
        Err(e) => tracing::warn!(error = %e, "cannot apply the metadata log retention"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::image::MetadataRecord;

    fn policy(bytes: u64, interval_ms: Option<u64>) -> SnapshotPolicy {
        SnapshotPolicy {
            max_bytes_between: bytes,
            max_interval: interval_ms.map(Duration::from_millis),
            retention: Retention::default(),
        }
    }

    fn image() -> MetadataImage {
        let mut image = MetadataImage::new();
        image
            .replay(&MetadataRecord::feature_level("metadata.version", 33))
            .expect("replays");
        image
            .replay(&MetadataRecord::feature_level("group.version", 1))
            .expect("replays");
        image
    }

    #[test]
    fn the_byte_threshold_schedules_one_snapshot_at_a_time() {
        let (mut trigger, mut rx) = SnapshotTrigger::new(policy(1000, None));
        let image = image();
        trigger.on_committed(600, 10, &image);
        assert!(rx.try_recv().is_err(), "below the threshold");
        trigger.on_committed(400, 20, &image);
        let request = rx.try_recv().expect("a snapshot at 1000 bytes");
        assert_eq!(request.end_offset, 21);
        let records: Vec<MetadataRecord> = request
            .records
            .into_iter()
            .map(|r| MetadataRecord::decode(r).expect("decodes"))
            .collect();
        assert_eq!(MetadataImage::from_records(&records).expect("replays"), {
            let mut i = image.clone();
            i.set_last_offset(-1);
            i
        });
        // Counting starts again.
        trigger.on_committed(999, 30, &image);
        assert!(rx.try_recv().is_err());
        // While one is queued (being written), another trigger is skipped
        // and the bytes keep counting.
        trigger.on_committed(1, 31, &image);
        trigger.on_committed(5000, 40, &image);
        assert_eq!(rx.try_recv().expect("one").end_offset, 32);
        assert!(rx.try_recv().is_err(), "the second trigger was skipped");
        trigger.on_committed(1, 41, &image);
        assert_eq!(rx.try_recv().expect("the skipped one").end_offset, 42);
    }

    #[test]
    fn the_interval_schedules_a_snapshot_when_new_records_arrive() {
        let (mut trigger, mut rx) = SnapshotTrigger::new(policy(1 << 30, Some(30)));
        let image = image();
        trigger.on_committed(10, 5, &image);
        assert!(rx.try_recv().is_err(), "too early");
        std::thread::sleep(Duration::from_millis(40));
        trigger.on_committed(10, 6, &image);
        assert_eq!(rx.try_recv().expect("the interval passed").end_offset, 7);
        trigger.on_committed(10, 8, &image);
        assert!(rx.try_recv().is_err(), "the interval starts again");
    }

    #[test]
    fn no_snapshot_without_metadata_version_or_after_a_loaded_snapshot() {
        let (mut trigger, mut rx) = SnapshotTrigger::new(policy(100, None));
        trigger.on_committed(500, 3, &MetadataImage::new());
        assert!(rx.try_recv().is_err(), "an empty image is not snapshotted");
        let (mut trigger, mut rx) = SnapshotTrigger::new(policy(100, None));
        trigger.on_committed(60, 3, &image());
        trigger.on_snapshot_loaded(&image());
        trigger.on_committed(60, 4, &image());
        assert!(rx.try_recv().is_err(), "a loaded snapshot resets the count");
    }

    #[test]
    fn policy_from_config() {
        let config = MetadataLogConfig {
            snapshot_max_new_record_bytes: 20 << 20,
            snapshot_max_interval_ms: 0,
            max_retention_bytes: -1,
            max_retention_ms: 1000,
            ..MetadataLogConfig::default()
        };
        assert_eq!(
            SnapshotPolicy::from_config(&config),
            SnapshotPolicy {
                max_bytes_between: 20 << 20,
                max_interval: None,
                retention: Retention {
                    max_bytes: -1,
                    max_ms: 1000
                },
            }
        );
    }

    #[test]
    fn records_not_understood_stop_snapshots_and_hold_the_log() {
        let (mut trigger, mut rx) = SnapshotTrigger::new(policy(100, None));
        let mut image = image();
        // A record type no Kafka release defines yet.
        image
            .replay_value(Bytes::from_static(&[0x01, 0xac, 0x02, 0x00, 0x00]), 5)
            .expect("noted");
        trigger.on_committed(500, 5, &image);
        assert!(rx.try_recv().is_err(), "no snapshot without the record");
        assert!(trigger.is_log_held());
        let hold = trigger.log_hold();
        assert!(hold.is_held(), "the view sees the trigger's flag");
        // A snapshot that understands everything releases the log.
        trigger.on_snapshot_loaded(&self::image());
        assert!(!trigger.is_log_held());
        assert!(!hold.is_held());
        trigger.on_committed(500, 6, &self::image());
        assert_eq!(rx.try_recv().map(|r| r.end_offset).ok(), Some(7));
    }
}
