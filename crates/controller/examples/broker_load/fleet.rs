//! The fake brokers' heartbeats, each on its own task and connection, and
//! the round trips they record.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use kraft_protocol::messages::broker_heartbeat_request::BrokerHeartbeatRequest;
use kraft_protocol::messages::broker_heartbeat_response::BrokerHeartbeatResponse;
use kraft_protocol::{ApiKey, ErrorCode};
use tokio::sync::watch;
use tokio::time::MissedTickBehavior;

use crate::broker::{Registered, HEARTBEAT_VERSION};
use crate::conn::Conn;
use crate::Result;

/// How far ahead of its registration record a fake broker claims to be.
const METADATA_OFFSET_LEAD: i64 = 1_000_000;
/// No phase is being timed.
pub(crate) const NOT_MEASURING: usize = usize::MAX;

/// The timed samples of one phase.
#[derive(Default)]
pub(crate) struct PhaseSamples {
    pub(crate) rtts_us: Vec<u64>,
    pub(crate) errors: HashMap<&'static str, u64>,
    pub(crate) fenced_answers: u64,
}

/// Shared between the heartbeat tasks and the driver.
pub(crate) struct Recorder {
    /// The phase being timed, or [`NOT_MEASURING`].
    pub(crate) phase: AtomicUsize,
    pub(crate) phases: Mutex<Vec<PhaseSamples>>,
}

impl Recorder {
    fn record(&self, phase: usize, outcome: std::result::Result<(Duration, bool), &'static str>) {
        if phase == NOT_MEASURING {
            return;
        }
        if let Ok(mut phases) = self.phases.lock() {
            if let Some(p) = phases.get_mut(phase) {
                match outcome {
                    Ok((rtt, fenced)) => {
                        p.rtts_us
                            .push(u64::try_from(rtt.as_micros()).unwrap_or(u64::MAX));
                        if fenced {
                            p.fenced_answers += 1;
                        }
                    }
                    Err(e) => *p.errors.entry(e).or_default() += 1,
                }
            }
        }
    }
}

/// The fake brokers started so far, each heartbeating on its own task.
pub(crate) struct Fleet {
    interval: Duration,
    recorder: Arc<Recorder>,
    stop: watch::Receiver<bool>,
    pub(crate) ids: Vec<i32>,
    unfenced: Vec<Arc<AtomicBool>>,
    pub(crate) tasks: Vec<tokio::task::JoinHandle<()>>,
}

impl Fleet {
    pub(crate) fn new(
        interval: Duration,
        recorder: Arc<Recorder>,
        stop: watch::Receiver<bool>,
    ) -> Self {
        Fleet {
            interval,
            recorder,
            stop,
            ids: Vec::new(),
            unfenced: Vec::new(),
            tasks: Vec::new(),
        }
    }

    /// Starts `broker`'s heartbeats on `conn`; the n-th broker's first one
    /// is offset into the interval by n times the golden ratio, so the
    /// brokers do not queue behind each other.
    pub(crate) fn launch(&mut self, conn: Conn, broker: Registered) {
        let golden = (5f64.sqrt() - 1.0) / 2.0;
        let offset = self
            .interval
            .mul_f64((self.ids.len() as f64 * golden).fract());
        self.ids.push(broker.id);
        let flag = Arc::new(AtomicBool::new(false));
        self.unfenced.push(flag.clone());
        self.tasks.push(tokio::spawn(heartbeat_loop(
            conn,
            broker,
            tokio::time::Instant::now() + offset,
            self.interval,
            self.recorder.clone(),
            flag,
            self.stop.clone(),
        )));
    }

    pub(crate) fn all_unfenced(&self) -> bool {
        self.unfenced.iter().all(|f| f.load(Ordering::Acquire))
    }

    /// Waits for every heartbeat task (after the stop was sent); the ids.
    pub(crate) async fn stopped(self) -> Vec<i32> {
        for t in self.tasks {
            let _ = t.await;
        }
        self.ids
    }
}

/// Heartbeats every `interval` from `first` until `stop` turns true.
async fn heartbeat_loop(
    mut conn: Conn,
    broker: Registered,
    first: tokio::time::Instant,
    interval: Duration,
    recorder: Arc<Recorder>,
    unfenced: Arc<AtomicBool>,
    mut stop: watch::Receiver<bool>,
) {
    let mut ticks = tokio::time::interval_at(first, interval);
    ticks.set_missed_tick_behavior(MissedTickBehavior::Delay);
    let mut caught_up = false;
    loop {
        tokio::select! {
            _ = stop.changed() => return,
            _ = ticks.tick() => {}
        }
        let request = BrokerHeartbeatRequest {
            broker_id: broker.id,
            broker_epoch: broker.epoch,
            current_metadata_offset: broker.epoch.saturating_add(METADATA_OFFSET_LEAD),
            want_fence: false,
            want_shut_down: false,
            offline_log_dirs: Vec::new(),
            cordoned_log_dirs: caught_up.then(Vec::new),
            ..Default::default()
        };
        let phase = recorder.phase.load(Ordering::Acquire);
        let result: Result<(BrokerHeartbeatResponse, Duration)> = conn
            .call(ApiKey::BrokerHeartbeat, HEARTBEAT_VERSION, &request)
            .await;
        match result {
            Ok((response, rtt)) => match ErrorCode::from_code(response.error_code) {
                ErrorCode::None => {
                    caught_up |= response.is_caught_up;
                    if !response.is_fenced {
                        unfenced.store(true, Ordering::Release);
                    }
                    recorder.record(phase, Ok((rtt, response.is_fenced)));
                }
                other => recorder.record(phase, Err(other.name())),
            },
            Err(e) => {
                eprintln!(
                    "broker_load: broker {}: {e}; its heartbeats stop",
                    broker.id
                );
                recorder.record(phase, Err("IO_ERROR"));
                return;
            }
        }
    }
}
