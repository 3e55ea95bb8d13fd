//! The phases: heartbeat round trips of a growing number of fake brokers,
//! and the controllers' `/proc` figures meanwhile.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::sync::watch;

use crate::args::Args;
use crate::broker::{first_registration, register, unregister};
use crate::conn::Conn;
use crate::fleet::{Fleet, PhaseSamples, Recorder, NOT_MEASURING};
use crate::procfs::{spawn_sampler, ProcSample, CLOCK_TICKS_PER_SECOND};
use crate::{percentile, Result};

/// `--phases`: the fake brokers grow to each phase's count, and every
/// phase is timed once they are all unfenced and warmed up; then they are
/// unregistered.
pub(crate) async fn measure(args: Args) -> Result<()> {
    let recorder = Arc::new(Recorder {
        phase: AtomicUsize::new(NOT_MEASURING),
        phases: Mutex::new(
            (0..args.phases.len())
                .map(|_| PhaseSamples::default())
                .collect(),
        ),
    });
    let sampler_stop = Arc::new(AtomicBool::new(false));
    let sampler = spawn_sampler(args.pids.clone(), sampler_stop.clone());
    let (stop_tx, stop_rx) = watch::channel(false);
    let mut fleet = Fleet::new(args.interval, recorder.clone(), stop_rx);
    let mut windows = Vec::new();

    let (first_conn, first) = first_registration(&args, args.first_id).await?;
    let leader = first_conn.address.clone();
    println!("leader address={leader}");
    let mut admin = Conn::connect(&leader, "broker-load-admin").await?;
    for id in &args.unregister {
        unregister(&mut admin, *id).await?;
    }
    let mut pending = Some((first_conn, first));
    for (phase, &count) in args.phases.iter().enumerate() {
        let registering = Instant::now();
        while fleet.ids.len() < count {
            let index = fleet.ids.len();
            let (conn, broker) = match pending.take() {
                Some(p) => p,
                None => {
                    let id = args.first_id + i32::try_from(index).map_err(|e| e.to_string())?;
                    let mut conn =
                        Conn::connect(&leader, &format!("broker-{id}-heartbeat")).await?;
                    let broker = register(&mut conn, &args, id, index)
                        .await?
                        .ok_or_else(|| format!("{leader} is no longer the active controller"))?;
                    (conn, broker)
                }
            };
            fleet.launch(conn, broker);
        }
        let registered_in = registering.elapsed();
        let deadline = Instant::now() + Duration::from_secs(30);
        while !fleet.all_unfenced() {
            if Instant::now() > deadline {
                return Err(format!(
                    "phase {phase}: not every fake broker was unfenced within 30 s"
                ));
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        let all_unfenced_in = registering.elapsed();
        tokio::time::sleep(args.warmup).await;
        let start = Instant::now();
        recorder.phase.store(phase, Ordering::Release);
        tokio::time::sleep(Duration::from_secs(args.seconds[phase])).await;
        recorder.phase.store(NOT_MEASURING, Ordering::Release);
        let end = Instant::now();
        windows.push((start, end, registered_in, all_unfenced_in));
    }
    let _ = stop_tx.send(true);
    let ids = fleet.stopped().await;
    let mut unregister_errors = Vec::new();
    let unregistering = Instant::now();
    for id in &ids {
        if let Err(e) = unregister(&mut admin, *id).await {
            unregister_errors.push(e);
        }
    }
    let unregister_ms = unregistering.elapsed().as_millis();
    sampler_stop.store(true, Ordering::Release);
    let proc_samples = sampler.join().map_err(|_| "the /proc sampler panicked")?;

    let phases = recorder
        .phases
        .lock()
        .map_err(|_| "recorder poisoned".to_string())?;
    for (i, p) in phases.iter().enumerate() {
        let mut sorted = p.rtts_us.clone();
        sorted.sort_unstable();
        let mean = if sorted.is_empty() {
            0
        } else {
            sorted.iter().sum::<u64>() / sorted.len() as u64
        };
        let errors: u64 = p.errors.values().sum();
        let mut kinds: Vec<String> = p.errors.iter().map(|(k, v)| format!("{k}:{v}")).collect();
        kinds.sort();
        let (_, _, registered_in, unfenced_in) = windows[i];
        println!(
            "phase brokers={} interval_ms={} warmup_s={} seconds={} samples={} errors={errors} error_kinds={} fenced_answers={} p50_us={} p90_us={} p99_us={} p999_us={} max_us={} mean_us={mean} register_ms={} all_unfenced_ms={}",
            args.phases[i],
            args.interval.as_millis(),
            args.warmup.as_secs_f64(),
            args.seconds[i],
            sorted.len(),
            if kinds.is_empty() { "-".to_string() } else { kinds.join(",") },
            p.fenced_answers,
            percentile(&sorted, 0.50),
            percentile(&sorted, 0.90),
            percentile(&sorted, 0.99),
            percentile(&sorted, 0.999),
            sorted.last().copied().unwrap_or(0),
            registered_in.as_millis(),
            unfenced_in.as_millis(),
        );
        for (j, (name, pid)) in args.pids.iter().enumerate() {
            let (start, end, _, _) = windows[i];
            let inside: Vec<ProcSample> = proc_samples[j]
                .iter()
                .filter(|s| s.at >= start && s.at <= end)
                .copied()
                .collect();
            let (Some(first), Some(last)) = (inside.first(), inside.last()) else {
                println!(
                    "proc brokers={} name={name} pid={pid} samples=0",
                    args.phases[i]
                );
                continue;
            };
            let mut rss: Vec<u64> = inside.iter().map(|s| s.rss_kb).collect();
            rss.sort_unstable();
            let secs = last.at.duration_since(first.at).as_secs_f64().max(1e-3);
            let cpu_ms = (last.cpu_ticks - first.cpu_ticks.min(last.cpu_ticks)) * 1000
                / CLOCK_TICKS_PER_SECOND;
            println!(
                "proc brokers={} name={name} pid={pid} samples={} rss_kb={} rss_max_kb={} threads={} cpu_ms={cpu_ms} cpu_pct={:.1}",
                args.phases[i],
                rss.len(),
                percentile(&rss, 0.5),
                rss.last().copied().unwrap_or(0),
                last.threads,
                cpu_ms as f64 / 10.0 / secs,
            );
        }
    }
    println!(
        "unregistered count={} errors={} ms={unregister_ms}",
        ids.len(),
        unregister_errors.len()
    );
    if !unregister_errors.is_empty() {
        return Err(unregister_errors.join("; "));
    }
    Ok(())
}
