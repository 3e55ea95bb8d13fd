//! What the controller counts and times for Kafka's metrics: the events a
//! scrape cannot read from live state (operations through the writer,
//! leader changes, unclean elections, the last applied batch's time,
//! snapshots loaded and generated).

use std::collections::{BTreeMap, VecDeque};
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard};
use std::time::{SystemTime, UNIX_EPOCH};

use kraft_raft::metrics::Windowed;

/// The values a histogram keeps (Yammer's reservoir size).
const RESERVOIR: usize = 1028;

/// The percentiles Yammer's histograms publish, as (JMX attribute digits,
/// quantile): `50thPercentile` ... `999thPercentile`.
pub const PERCENTILES: [(&str, f64); 6] = [
    ("50", 0.5),
    ("75", 0.75),
    ("95", 0.95),
    ("98", 0.98),
    ("99", 0.99),
    ("999", 0.999),
];

/// A Yammer-style histogram: a count of every update, percentiles over the
/// latest [`RESERVOIR`] values.
#[derive(Debug, Clone, Default)]
pub struct Histogram {
    count: u64,
    values: VecDeque<i64>,
}

impl Histogram {
    /// Records `value`.
    pub fn update(&mut self, value: i64) {
        self.count += 1;
        if self.values.len() == RESERVOIR {
            self.values.pop_front();
        }
        self.values.push_back(value);
    }

    /// Updates since the process started (the `Count` attribute).
    pub fn count(&self) -> u64 {
        self.count
    }

    /// The `quantile` of the kept values, as Yammer's `Snapshot.getValue`
    /// interpolates it; 0 when empty.
    pub fn quantile(&self, quantile: f64) -> f64 {
        let mut sorted: Vec<i64> = self.values.iter().copied().collect();
        sorted.sort_unstable();
        let n = sorted.len();
        if n == 0 {
            return 0.0;
        }
        let pos = quantile * (n as f64 + 1.0);
        if pos < 1.0 {
            return sorted[0] as f64;
        }
        if pos >= n as f64 {
            return sorted[n - 1] as f64;
        }
        let lower = sorted[pos as usize - 1] as f64;
        let upper = sorted[pos as usize] as f64;
        lower + (pos - pos.floor()) * (upper - lower)
    }
}

/// A histogram's values for one scrape.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct HistogramValues {
    /// The `Count` attribute.
    pub count: u64,
    /// The [`PERCENTILES`], in order.
    pub percentiles: Vec<f64>,
}

impl HistogramValues {
    fn of(histogram: &Histogram) -> HistogramValues {
        HistogramValues {
            count: histogram.count(),
            percentiles: PERCENTILES
                .iter()
                .map(|(_, q)| histogram.quantile(*q))
                .collect(),
        }
    }
}

/// Milliseconds since the Unix epoch.
pub fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

#[derive(Debug, Default)]
struct Timings {
    queue_time: Histogram,
    processing_time: Histogram,
    /// Milliseconds the writer was held, per window.
    busy_ms: Windowed,
    /// Milliseconds the loader spent applying, per window.
    loader_busy_ms: Windowed,
}

/// The controller's counters, shared by the writer, the loader, the
/// snapshot writer and the metrics endpoint.
#[derive(Debug)]
pub struct ControllerStats {
    timings: Mutex<Timings>,
    operations_started: AtomicU64,
    operations_timed_out: AtomicU64,
    timed_out_heartbeats: AtomicU64,
    new_active_controllers: AtomicU64,
    unclean_elections: AtomicU64,
    elr_elections: AtomicU64,
    last_applied_timestamp: AtomicI64,
    snapshots_loaded: AtomicU64,
    snapshot_bytes: AtomicU64,
    snapshot_time_ms: AtomicI64,
    /// When each broker was last heard from by this active controller (ms
    /// since the epoch): Kafka's `brokerContactTimesMs`.
    broker_contacts: Mutex<BTreeMap<i32, i64>>,
    /// `broker.session.timeout.ms`, the cap of `TimeSinceLastHeartbeatReceivedMs`.
    session_timeout_ms: AtomicI64,
}

impl Default for ControllerStats {
    fn default() -> Self {
        ControllerStats {
            timings: Mutex::default(),
            operations_started: AtomicU64::new(0),
            operations_timed_out: AtomicU64::new(0),
            timed_out_heartbeats: AtomicU64::new(0),
            new_active_controllers: AtomicU64::new(0),
            unclean_elections: AtomicU64::new(0),
            elr_elections: AtomicU64::new(0),
            last_applied_timestamp: AtomicI64::new(0),
            snapshots_loaded: AtomicU64::new(0),
            snapshot_bytes: AtomicU64::new(0),
            // Kafka's SnapshotEmitterMetrics start the age at creation.
            snapshot_time_ms: AtomicI64::new(now_ms()),
            broker_contacts: Mutex::default(),
            // Kafka's default `broker.session.timeout.ms`.
            session_timeout_ms: AtomicI64::new(9_000),
        }
    }
}

/// The counters' values for one scrape.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct StatsValues {
    /// `EventQueueTimeMs`: waits for the writer.
    pub event_queue_time_ms: HistogramValues,
    /// `EventQueueProcessingTimeMs`: time the writer was held.
    pub event_queue_processing_time_ms: HistogramValues,
    /// `AvgIdleRatio` of the writer: the share of time it was free.
    pub avg_idle_ratio: f64,
    /// The loader's `AvgIdleRatio`: the share of time it was not applying.
    pub loader_avg_idle_ratio: f64,
    /// `EventQueueOperationsStartedCount`.
    pub operations_started: u64,
    /// `EventQueueOperationsTimedOutCount`.
    pub operations_timed_out: u64,
    /// `TimedOutBrokerHeartbeatCount`.
    pub timed_out_heartbeats: u64,
    /// `NewActiveControllersCount`.
    pub new_active_controllers: u64,
    /// `UncleanLeaderElectionsPerSec` (the meter's count).
    pub unclean_elections: u64,
    /// `ElectionFromEligibleLeaderReplicasPerSec` (the meter's count).
    pub elr_elections: u64,
    /// `LastAppliedRecordTimestamp`: the append time of the last applied
    /// batch, 0 before any.
    pub last_applied_timestamp: i64,
    /// `HandleLoadSnapshotCount`.
    pub snapshots_loaded: u64,
    /// `LatestSnapshotGeneratedBytes`.
    pub snapshot_bytes: u64,
    /// When the latest snapshot was generated (ms since the epoch; the
    /// process start before any).
    pub snapshot_time_ms: i64,
    /// When each broker was last heard from while this controller was
    /// active (ms since the epoch), for `TimeSinceLastHeartbeatReceivedMs`.
    pub broker_contacts: BTreeMap<i32, i64>,
    /// `broker.session.timeout.ms`.
    pub session_timeout_ms: i64,
}

impl ControllerStats {
    fn timings(&self) -> MutexGuard<'_, Timings> {
        self.timings
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// An operation got the writer after waiting `waited_ms`.
    pub fn operation_started(&self, waited_ms: i64) {
        self.operations_started.fetch_add(1, Ordering::Relaxed);
        self.timings().queue_time.update(waited_ms);
    }

    /// An operation released the writer after `held_ms`.
    pub fn operation_finished(&self, held_ms: i64) {
        let mut t = self.timings();
        t.processing_time.update(held_ms);
        t.busy_ms.record(held_ms as f64, now_ms());
    }

    /// The loader spent `busy_ms` applying records or a snapshot.
    pub fn loader_worked(&self, busy_ms: f64) {
        self.timings().loader_busy_ms.record(busy_ms, now_ms());
    }

    /// An operation timed out waiting for the writer.
    pub fn operation_timed_out(&self) {
        self.operations_timed_out.fetch_add(1, Ordering::Relaxed);
    }

    fn contacts(&self) -> MutexGuard<'_, BTreeMap<i32, i64>> {
        self.broker_contacts
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// This controller became active with `brokers` registered: each is
    /// taken as heard from now (Kafka's `ClusterControlManager.activate`).
    pub fn brokers_activated(&self, brokers: impl Iterator<Item = i32>) {
        let now = now_ms();
        let mut contacts = self.contacts();
        contacts.clear();
        contacts.extend(brokers.map(|id| (id, now)));
    }

    /// Sets `broker.session.timeout.ms`.
    pub fn set_broker_session_timeout(&self, timeout: std::time::Duration) {
        let ms = i64::try_from(timeout.as_millis()).unwrap_or(i64::MAX);
        self.session_timeout_ms.store(ms, Ordering::Relaxed);
    }

    /// Broker `id` was heard from now: a heartbeat reached the active
    /// controller, or a first registration.
    pub fn broker_contact(&self, id: i32) {
        self.contacts().insert(id, now_ms());
    }

    /// A broker heartbeat timed out waiting for the writer.
    pub fn heartbeat_timed_out(&self) {
        self.timed_out_heartbeats.fetch_add(1, Ordering::Relaxed);
    }

    /// The raft layer named a new leader.
    pub fn new_active_controller(&self) {
        self.new_active_controllers.fetch_add(1, Ordering::Relaxed);
    }

    /// Applied partition changes electing `unclean` leaders uncleanly and
    /// `elr` from the eligible leader replicas.
    pub fn elections(&self, unclean: u64, elr: u64) {
        self.unclean_elections.fetch_add(unclean, Ordering::Relaxed);
        self.elr_elections.fetch_add(elr, Ordering::Relaxed);
    }

    /// A batch appended at `append_time_ms` was applied.
    pub fn applied_batch(&self, append_time_ms: i64) {
        self.last_applied_timestamp
            .store(append_time_ms, Ordering::Relaxed);
    }

    /// A snapshot was loaded into the image.
    pub fn snapshot_loaded(&self) {
        self.snapshots_loaded.fetch_add(1, Ordering::Relaxed);
    }

    /// This node wrote a snapshot of `bytes` record bytes.
    pub fn snapshot_generated(&self, bytes: u64) {
        self.snapshot_bytes.store(bytes, Ordering::Relaxed);
        self.snapshot_time_ms.store(now_ms(), Ordering::Relaxed);
    }

    /// The values as of now.
    pub fn values(&self) -> StatsValues {
        let t = self.timings();
        let busy_per_second = t.busy_ms.rate(now_ms());
        StatsValues {
            event_queue_time_ms: HistogramValues::of(&t.queue_time),
            event_queue_processing_time_ms: HistogramValues::of(&t.processing_time),
            avg_idle_ratio: (1.0 - busy_per_second / 1000.0).clamp(0.0, 1.0),
            loader_avg_idle_ratio: (1.0 - t.loader_busy_ms.rate(now_ms()) / 1000.0).clamp(0.0, 1.0),
            operations_started: self.operations_started.load(Ordering::Relaxed),
            operations_timed_out: self.operations_timed_out.load(Ordering::Relaxed),
            timed_out_heartbeats: self.timed_out_heartbeats.load(Ordering::Relaxed),
            new_active_controllers: self.new_active_controllers.load(Ordering::Relaxed),
            unclean_elections: self.unclean_elections.load(Ordering::Relaxed),
            elr_elections: self.elr_elections.load(Ordering::Relaxed),
            last_applied_timestamp: self.last_applied_timestamp.load(Ordering::Relaxed),
            snapshots_loaded: self.snapshots_loaded.load(Ordering::Relaxed),
            snapshot_bytes: self.snapshot_bytes.load(Ordering::Relaxed),
            snapshot_time_ms: self.snapshot_time_ms.load(Ordering::Relaxed),
            broker_contacts: self.contacts().clone(),
            session_timeout_ms: self.session_timeout_ms.load(Ordering::Relaxed),
        }
    }
}
