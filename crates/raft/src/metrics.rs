//! Kafka's `raft-metrics` (`KafkaRaftMetrics`) and `raft-channel-metrics`
//! (the raft client's network channel), recorded by the driver and the
//! transport, read by a metrics endpoint through [`RaftMetrics::snapshot`].
//!
//! Averages, maxima and rates follow Kafka's windowed statistics with its
//! defaults (`metrics.sample.window.ms` 30000, `metrics.num.samples` 2):
//! samples older than two windows are forgotten, an average or maximum of
//! nothing is NaN, a rate divides by at least one full window.

use std::collections::{BTreeMap, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use crate::core::{RaftCore, RaftLog};

/// Kafka's `metrics.sample.window.ms` default.
const WINDOW_MS: i64 = 30_000;
/// Kafka's `metrics.num.samples` default.
const SAMPLES: usize = 2;

/// One window's sample.
#[derive(Debug, Clone, Copy)]
struct Sample {
    start_ms: i64,
    count: u64,
    sum: f64,
    max: f64,
}

/// A statistic over Kafka's sample windows.
#[derive(Debug, Clone, Default)]
pub struct Windowed {
    samples: VecDeque<Sample>,
}

impl Windowed {
    /// Records `value` at `now_ms`.
    pub fn record(&mut self, value: f64, now_ms: i64) {
        self.purge(now_ms);
        let current = match self.samples.back_mut() {
            Some(s) if now_ms - s.start_ms < WINDOW_MS => s,
            _ => {
                if self.samples.len() == SAMPLES {
                    self.samples.pop_front();
                }
                self.samples.push_back(Sample {
                    start_ms: now_ms,
                    count: 0,
                    sum: 0.0,
                    max: f64::NEG_INFINITY,
                });
                match self.samples.back_mut() {
                    Some(s) => s,
                    None => return,
                }
            }
        };
        current.count += 1;
        current.sum += value;
        current.max = current.max.max(value);
    }

    fn purge(&mut self, now_ms: i64) {
        self.samples
            .retain(|s| now_ms - s.start_ms < WINDOW_MS * SAMPLES as i64);
    }

    fn live(&self, now_ms: i64) -> impl Iterator<Item = &Sample> {
        self.samples
            .iter()
            .filter(move |s| now_ms - s.start_ms < WINDOW_MS * SAMPLES as i64)
    }

    /// The mean of the values recorded in the live windows; NaN if none.
    pub fn avg(&self, now_ms: i64) -> f64 {
        let (count, sum) = self
            .live(now_ms)
            .fold((0u64, 0.0), |(c, s), x| (c + x.count, s + x.sum));
        if count == 0 {
            f64::NAN
        } else {
            sum / count as f64
        }
    }

    /// The largest value recorded in the live windows; NaN if none.
    pub fn max(&self, now_ms: i64) -> f64 {
        self.live(now_ms)
            .filter(|s| s.count > 0)
            .map(|s| s.max)
            .fold(f64::NAN, f64::max)
    }

    /// The sum of the live windows' values per second (Kafka's `Rate`):
    /// divided by the time since the oldest window started, at least one
    /// full window.
    pub fn rate(&self, now_ms: i64) -> f64 {
        let mut live = self.live(now_ms).peekable();
        let Some(oldest) = live.peek().map(|s| s.start_ms) else {
            return 0.0;
        };
        let sum: f64 = live.map(|s| s.sum).sum();
        let elapsed = (now_ms - oldest).max(0);
        let min_elapsed = WINDOW_MS * (SAMPLES as i64 - 1);
        sum / (elapsed.max(min_elapsed) as f64 / 1000.0)
    }

    /// The sum of the live windows' values.
    pub fn sum(&self, now_ms: i64) -> f64 {
        self.live(now_ms).map(|s| s.sum).sum()
    }
}

/// The raft client channel's totals since the process started (Kafka's
/// selector metrics of the `raft` channel).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ChannelTotals {
    /// Requests sent (`request-total`).
    pub request_total: u64,
    /// Responses received (`response-total`).
    pub response_total: u64,
    /// Bytes sent (`outgoing-byte-total`).
    pub outgoing_byte_total: u64,
    /// Bytes received (`incoming-byte-total`).
    pub incoming_byte_total: u64,
}

/// The transport's counters behind [`ChannelTotals`].
#[derive(Debug, Default)]
pub(crate) struct ChannelCounters {
    requests: AtomicU64,
    responses: AtomicU64,
    outgoing_bytes: AtomicU64,
    incoming_bytes: AtomicU64,
}

impl ChannelCounters {
    /// A request of `bytes` (size prefix included) was written.
    pub(crate) fn sent(&self, bytes: usize) {
        self.requests.fetch_add(1, Ordering::Relaxed);
        self.outgoing_bytes
            .fetch_add(bytes as u64, Ordering::Relaxed);
    }

    /// A response of `bytes` (size prefix included) was read.
    pub(crate) fn received(&self, bytes: usize) {
        self.responses.fetch_add(1, Ordering::Relaxed);
        self.incoming_bytes
            .fetch_add(bytes as u64, Ordering::Relaxed);
    }

    fn totals(&self) -> ChannelTotals {
        ChannelTotals {
            request_total: self.requests.load(Ordering::Relaxed),
            response_total: self.responses.load(Ordering::Relaxed),
            outgoing_byte_total: self.outgoing_bytes.load(Ordering::Relaxed),
            incoming_byte_total: self.incoming_bytes.load(Ordering::Relaxed),
        }
    }
}

/// Kafka's raft metrics as of one moment.
#[derive(Debug, Clone, PartialEq)]
pub struct RaftMetricsSnapshot {
    /// `current-state`: leader, prospective, prospective-voted, candidate,
    /// unattached-voted, follower, observer or unattached.
    pub current_state: &'static str,
    /// `current-leader`: the leader's id, -1 when unknown.
    pub current_leader: i32,
    /// `current-vote`: the id voted for in this epoch (self as leader or
    /// candidate), -1 when none.
    pub current_vote: i32,
    /// `current-epoch`.
    pub current_epoch: i32,
    /// `high-watermark`, -1 when unknown.
    pub high_watermark: i64,
    /// `log-end-offset`.
    pub log_end_offset: i64,
    /// `log-end-epoch`: the epoch of the last batch in the log.
    pub log_end_epoch: i32,
    /// `number-unknown-voter-connections`: 0, as Kafka 4.4 reports it (the
    /// voters' endpoints come from the voter set).
    pub number_unknown_voter_connections: i64,
    /// `number-of-voters`: voters in the latest voter set.
    pub number_of_voters: i64,
    /// `number-of-observers`: observers the leader tracks; `None` unless
    /// this node leads (Kafka registers it on the leader only).
    pub number_of_observers: Option<i64>,
    /// `uncommitted-voter-change`; `None` unless this node leads.
    pub uncommitted_voter_change: Option<bool>,
    /// `commit-latency-avg` in ms: append to commit on the leader.
    pub commit_latency_avg: f64,
    /// `commit-latency-max` in ms.
    pub commit_latency_max: f64,
    /// `election-latency-avg` in ms: election start to a known leader.
    pub election_latency_avg: f64,
    /// `election-latency-max` in ms.
    pub election_latency_max: f64,
    /// `fetch-records-rate`: records fetched from the leader per second.
    pub fetch_records_rate: f64,
    /// `append-records-rate`: records appended by this leader per second.
    pub append_records_rate: f64,
    /// `poll-idle-ratio-avg`: the share of time the driver waited for work.
    pub poll_idle_ratio_avg: f64,
    /// The raft channel's totals.
    pub channel: ChannelTotals,
}

/// What the driver records.
#[derive(Debug)]
struct Recorder {
    gauges: Gauges,
    commit_latency: Windowed,
    election_latency: Windowed,
    fetch_records: Windowed,
    append_records: Windowed,
    poll_idle_ms: Windowed,
    poll_busy_ms: Windowed,
    /// When the running election started.
    election_start_ms: Option<i64>,
    /// Leader appends waiting for their commit: last offset -> append time.
    pending_commits: BTreeMap<i64, i64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Gauges {
    current_state: &'static str,
    current_leader: i32,
    current_vote: i32,
    current_epoch: i32,
    high_watermark: i64,
    log_end_offset: i64,
    log_end_epoch: i32,
    number_of_voters: i64,
    number_of_observers: Option<i64>,
    uncommitted_voter_change: Option<bool>,
}

/// A shared view of one raft node's metrics; cheap to clone.
#[derive(Debug, Clone)]
pub struct RaftMetrics {
    recorder: Arc<Mutex<Recorder>>,
    pub(crate) channel: Arc<ChannelCounters>,
}

impl RaftMetrics {
    /// Metrics of a node in `core`'s state.
    pub(crate) fn new<L: RaftLog>(core: &RaftCore<L>) -> RaftMetrics {
        RaftMetrics {
            recorder: Arc::new(Mutex::new(Recorder {
                gauges: gauges_of(core),
                commit_latency: Windowed::default(),
                election_latency: Windowed::default(),
                fetch_records: Windowed::default(),
                append_records: Windowed::default(),
                poll_idle_ms: Windowed::default(),
                poll_busy_ms: Windowed::default(),
                election_start_ms: None,
                pending_commits: BTreeMap::new(),
            })),
            channel: Arc::new(ChannelCounters::default()),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Recorder> {
        // A panic while recording leaves consistent numbers behind.
        self.recorder
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// After the driver handled an input: the gauges, the records fetched
    /// as a follower (the log end's growth) and the election latency.
    pub(crate) fn observe<L: RaftLog>(&self, core: &RaftCore<L>, now_ms: i64) {
        let next = gauges_of(core);
        let mut r = self.lock();
        let previous = r.gauges;
        let leads = next.current_state == "leader";
        if !leads
            && previous.current_state != "leader"
            && next.log_end_offset > previous.log_end_offset
        {
            let fetched = next.log_end_offset - previous.log_end_offset;
            r.fetch_records.record(fetched as f64, now_ms);
        }
        if !leads {
            r.pending_commits.clear();
        }
        let campaigning = matches!(
            next.current_state,
            "prospective" | "prospective-voted" | "candidate"
        );
        if campaigning && r.election_start_ms.is_none() {
            r.election_start_ms = Some(now_ms);
        } else if next.current_leader >= 0 {
            if let Some(start) = r.election_start_ms.take() {
                r.election_latency.record((now_ms - start) as f64, now_ms);
            }
        }
        r.gauges = next;
    }

    /// The leader appended `records` records ending at `last_offset`.
    pub(crate) fn appended(&self, records: usize, last_offset: i64, now_ms: i64) {
        let mut r = self.lock();
        r.append_records.record(records as f64, now_ms);
        r.pending_commits.insert(last_offset, now_ms);
    }

    /// The leader's append ending at `last_offset` committed.
    pub(crate) fn committed(&self, last_offset: i64, now_ms: i64) {
        let mut r = self.lock();
        let done: Vec<i64> = r
            .pending_commits
            .range(..=last_offset)
            .map(|(o, _)| *o)
            .collect();
        for offset in done {
            if let Some(start) = r.pending_commits.remove(&offset) {
                r.commit_latency.record((now_ms - start) as f64, now_ms);
            }
        }
    }

    /// The driver waited `idle_ms` for work, then worked `busy_ms`.
    pub(crate) fn polled(&self, idle_ms: f64, busy_ms: f64, now_ms: i64) {
        let mut r = self.lock();
        r.poll_idle_ms.record(idle_ms, now_ms);
        r.poll_busy_ms.record(busy_ms, now_ms);
    }

    /// The metrics as of `now_ms` (milliseconds since the Unix epoch).
    pub fn snapshot(&self, now_ms: i64) -> RaftMetricsSnapshot {
        let r = self.lock();
        let g = r.gauges;
        let idle = r.poll_idle_ms.sum(now_ms);
        let busy = r.poll_busy_ms.sum(now_ms);
        RaftMetricsSnapshot {
            current_state: g.current_state,
            current_leader: g.current_leader,
            current_vote: g.current_vote,
            current_epoch: g.current_epoch,
            high_watermark: g.high_watermark,
            log_end_offset: g.log_end_offset,
            log_end_epoch: g.log_end_epoch,
            number_unknown_voter_connections: 0,
            number_of_voters: g.number_of_voters,
            number_of_observers: g.number_of_observers,
            uncommitted_voter_change: g.uncommitted_voter_change,
            commit_latency_avg: r.commit_latency.avg(now_ms),
            commit_latency_max: r.commit_latency.max(now_ms),
            election_latency_avg: r.election_latency.avg(now_ms),
            election_latency_max: r.election_latency.max(now_ms),
            fetch_records_rate: r.fetch_records.rate(now_ms),
            append_records_rate: r.append_records.rate(now_ms),
            // Kafka's TimeRatio(1.0): idle until something is recorded.
            poll_idle_ratio_avg: if idle + busy > 0.0 {
                idle / (idle + busy)
            } else {
                1.0
            },
            channel: self.channel.totals(),
        }
    }
}

fn gauges_of<L: RaftLog>(core: &RaftCore<L>) -> Gauges {
    Gauges {
        current_state: core.state_name(),
        current_leader: core.leader().unwrap_or(-1),
        current_vote: core.current_vote().unwrap_or(-1),
        current_epoch: core.epoch(),
        high_watermark: core.high_watermark().unwrap_or(-1),
        log_end_offset: core.log_end_offset(),
        log_end_epoch: core.log().last_fetched_epoch(),
        number_of_voters: core.voters().len() as i64,
        number_of_observers: core.observer_count().map(|n| n as i64),
        uncommitted_voter_change: core.uncommitted_voter_change(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windowed_statistics_follow_kafkas_samples() {
        let mut w = Windowed::default();
        assert!(w.avg(0).is_nan());
        assert!(w.max(0).is_nan());
        assert_eq!(w.rate(0), 0.0);
        w.record(10.0, 1_000);
        w.record(30.0, 2_000);
        assert_eq!(w.avg(2_000), 20.0);
        assert_eq!(w.max(2_000), 30.0);
        // 40 over at least one full window of 30 s.
        assert!((w.rate(2_000) - 40.0 / 30.0).abs() < 1e-9);
        w.record(5.0, 40_000);
        assert_eq!(w.max(40_000), 30.0);
        assert!((w.rate(40_000) - 45.0 / 39.0).abs() < 1e-9);
        // Two windows later the first sample is forgotten.
        assert_eq!(w.max(61_000), 5.0);
        assert!(w.avg(200_000).is_nan());
    }
}
