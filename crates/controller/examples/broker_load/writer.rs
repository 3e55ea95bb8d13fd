//! `--writer`: one-topic CreateTopics back to back across leader changes,
//! each committed call timed.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::args::{Args, TopicsJob, WriterJob};
use crate::conn::Conn;
use crate::topics::topics_call;
use crate::{epoch_us, percentile, Result};

/// `--writer`: `--concurrency` connections, each sending one-topic
/// CreateTopics (1 partition, RF 3) back to back, for `--for-secs` or until
/// `--count` topics, SIGTERM or SIGINT. A connection whose controller
/// answers NOT_CONTROLLER, fails or closes is replaced at once by one to the
/// next bootstrap server (no pause: the measure is the servers' failover,
/// not a client backoff); a failed call moves on to the next topic name.
/// With a `--gap-us`, a connection pauses that long after each committed
/// call (outside the measured latency).
/// Each committed call is one line of `--samples-out`: `END_US LATENCY_US
/// TASK ADDRESS` (END_US: the answer's arrival, microseconds since the
/// epoch). Prints `writer commits=N errors=E seconds=S topics_per_s=R
/// p50_us=.. p99_us=.. max_us=..`.
pub(crate) async fn writer(args: &Args, job: &WriterJob) -> Result<()> {
    use std::io::Write as _;
    use tokio::signal::unix::{signal, SignalKind};
    let started = Instant::now();
    let deadline = started + job.limit;
    let out = match &job.samples_out {
        Some(path) => Some(Arc::new(Mutex::new(
            std::fs::File::create(path).map_err(|e| format!("{path}: {e}"))?,
        ))),
        None => None,
    };
    let issued = Arc::new(AtomicUsize::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    let latencies = Arc::new(Mutex::new(Vec::<u64>::new()));
    let errors = Arc::new(AtomicUsize::new(0));
    let one = |prefix: String| TopicsJob {
        create: true,
        prefix,
        count: 1,
        partitions: 1,
        batch: 1,
    };
    let mut tasks = Vec::new();
    for task in 0..job.concurrency {
        let bootstrap = args.bootstrap.clone();
        let prefix = format!("{}{task}-", job.prefix);
        let job_one = one(prefix.clone());
        let (out, issued, stop, latencies, errors) = (
            out.clone(),
            issued.clone(),
            stop.clone(),
            latencies.clone(),
            errors.clone(),
        );
        let count = job.count;
        let gap = job.gap;
        tasks.push(tokio::spawn(async move {
            let mut conn: Option<Conn> = None;
            let mut next = task;
            let mut i = 0u64;
            while Instant::now() < deadline && !stop.load(Ordering::Acquire) {
                if count.is_some_and(|c| issued.load(Ordering::Acquire) >= c) {
                    break;
                }
                let mut c = match conn.take() {
                    Some(c) => c,
                    None => {
                        let address = &bootstrap[next % bootstrap.len()];
                        next += 1;
                        match Conn::connect_plain(address, "bench-writer").await {
                            Ok(c) => c,
                            Err(_) => {
                                if next % bootstrap.len() == 0 {
                                    tokio::time::sleep(Duration::from_millis(1)).await;
                                }
                                continue;
                            }
                        }
                    }
                };
                let name = [format!("{prefix}{i}")];
                let t0 = Instant::now();
                match topics_call(&mut c, &job_one, &name).await {
                    Ok(true) => {
                        let us = u64::try_from(t0.elapsed().as_micros()).unwrap_or(u64::MAX);
                        let end = epoch_us();
                        issued.fetch_add(1, Ordering::AcqRel);
                        if let Some(out) = &out {
                            let line = format!("{end} {us} {task} {}\n", c.address);
                            if let Ok(mut f) = out.lock() {
                                let _ = f.write_all(line.as_bytes());
                            }
                        }
                        if let Ok(mut l) = latencies.lock() {
                            l.push(us);
                        }
                        i += 1;
                        conn = Some(c);
                        if !gap.is_zero() {
                            tokio::time::sleep(gap).await;
                        }
                    }
                    Ok(false) => {}
                    Err(_) => {
                        errors.fetch_add(1, Ordering::AcqRel);
                        i += 1;
                    }
                }
            }
        }));
    }
    let mut term = signal(SignalKind::terminate()).map_err(|e| format!("SIGTERM handler: {e}"))?;
    let mut int = signal(SignalKind::interrupt()).map_err(|e| format!("SIGINT handler: {e}"))?;
    let all = futures_join(tasks);
    tokio::pin!(all);
    tokio::select! {
        _ = &mut all => {}
        _ = term.recv() => stop.store(true, Ordering::Release),
        _ = int.recv() => stop.store(true, Ordering::Release),
    }
    if stop.load(Ordering::Acquire) {
        let _ = tokio::time::timeout(Duration::from_secs(70), all).await;
    }
    let seconds = started.elapsed().as_secs_f64();
    let mut sorted = latencies
        .lock()
        .map_err(|_| "latencies poisoned".to_string())?
        .clone();
    sorted.sort_unstable();
    println!(
        "writer concurrency={} commits={} errors={} seconds={seconds:.3} topics_per_s={:.1} p50_us={} p99_us={} max_us={}",
        job.concurrency,
        sorted.len(),
        errors.load(Ordering::Acquire),
        sorted.len() as f64 / seconds.max(1e-6),
        percentile(&sorted, 0.5),
        percentile(&sorted, 0.99),
        sorted.last().copied().unwrap_or(0)
    );
    if sorted.is_empty() {
        return Err("no CreateTopics call was committed".into());
    }
    Ok(())
}

/// Waits for every task (a panicked task is ignored: its samples stand).
async fn futures_join(tasks: Vec<tokio::task::JoinHandle<()>>) {
    for t in tasks {
        let _ = t.await;
    }
}
