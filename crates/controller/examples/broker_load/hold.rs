//! `--hold N`: fake brokers kept registered and heartbeating while a script
//! creates topics on them.

use std::sync::atomic::AtomicUsize;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::sync::watch;

use crate::args::Args;
use crate::broker::{first_registration, register, unregister};
use crate::conn::Conn;
use crate::fleet::{Fleet, Recorder, NOT_MEASURING};
use crate::Result;

/// Resolves once standard input reaches end of file (or fails), or on
/// SIGTERM or SIGINT; says which.
async fn hold_until_released() -> Result<&'static str> {
    use tokio::signal::unix::{signal, SignalKind};
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    // A plain thread: a blocking read on tokio's stdin would keep the
    // runtime from shutting down after a signal.
    std::thread::spawn(move || {
        let mut sink = [0u8; 256];
        let mut stdin = std::io::stdin();
        while matches!(std::io::Read::read(&mut stdin, &mut sink), Ok(n) if n > 0) {}
        let _ = tx.send(());
    });
    let mut term = signal(SignalKind::terminate()).map_err(|e| format!("SIGTERM handler: {e}"))?;
    let mut int = signal(SignalKind::interrupt()).map_err(|e| format!("SIGINT handler: {e}"))?;
    Ok(tokio::select! {
        _ = rx => "stdin_closed",
        _ = term.recv() => "SIGTERM",
        _ = int.recv() => "SIGINT",
    })
}

/// `--hold N`: N fake brokers registered, unfenced and heartbeating until
/// [`hold_until_released`], then unregistered.
pub(crate) async fn hold(args: &Args, count: usize) -> Result<()> {
    let recorder = Arc::new(Recorder {
        phase: AtomicUsize::new(NOT_MEASURING),
        phases: Mutex::new(Vec::new()),
    });
    let (stop_tx, stop_rx) = watch::channel(false);
    let mut fleet = Fleet::new(args.interval, recorder, stop_rx);
    let registering = Instant::now();
    let (first_conn, first) = first_registration(args, args.first_id).await?;
    let leader = first_conn.address.clone();
    println!("leader address={leader}");
    let mut admin = Conn::connect(&leader, "broker-load-admin").await?;
    for id in &args.unregister {
        unregister(&mut admin, *id).await?;
    }
    let mut pending = Some((first_conn, first));
    // Registered brokers are unregistered even when a later step fails.
    let mut outcome: Result<()> = Ok(());
    for index in 0..count {
        let (conn, broker) = match pending.take() {
            Some(p) => p,
            None => {
                let id = match i32::try_from(index) {
                    Ok(i) => args.first_id.saturating_add(i),
                    Err(e) => {
                        outcome = Err(e.to_string());
                        break;
                    }
                };
                let registered = async {
                    let mut conn =
                        Conn::connect(&leader, &format!("broker-{id}-heartbeat")).await?;
                    let broker = register(&mut conn, args, id, index)
                        .await?
                        .ok_or_else(|| format!("{leader} is no longer the active controller"))?;
                    Ok::<_, String>((conn, broker))
                }
                .await;
                match registered {
                    Ok(r) => r,
                    Err(e) => {
                        outcome = Err(e);
                        break;
                    }
                }
            }
        };
        fleet.launch(conn, broker);
    }
    let registered_in = registering.elapsed();
    if outcome.is_ok() {
        let deadline = Instant::now() + Duration::from_secs(60);
        while !fleet.all_unfenced() {
            if Instant::now() > deadline {
                outcome = Err("not every fake broker was unfenced within 60 s".into());
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
    if outcome.is_ok() {
        println!(
            "ready brokers={count} first_id={} interval_ms={} register_ms={} all_unfenced_ms={}",
            args.first_id,
            args.interval.as_millis(),
            registered_in.as_millis(),
            registering.elapsed().as_millis()
        );
        // The script waits for that line on a pipe.
        use std::io::Write;
        let _ = std::io::stdout().flush();
        match hold_until_released().await {
            Ok(why) => eprintln!("broker_load: released ({why})"),
            Err(e) => outcome = Err(e),
        }
    }
    // A task that ended before the stop lost its connection (counted
    // before the stop, which ends them all).
    let stopped_early = fleet.tasks.iter().filter(|t| t.is_finished()).count();
    let _ = stop_tx.send(true);
    let ids = fleet.stopped().await;
    let unregistering = Instant::now();
    let mut errors = Vec::new();
    for id in &ids {
        if let Err(e) = unregister(&mut admin, *id).await {
            errors.push(e);
        }
    }
    println!(
        "unregistered count={} errors={} ms={} heartbeats_stopped_early={stopped_early}",
        ids.len(),
        errors.len(),
        unregistering.elapsed().as_millis()
    );
    outcome?;
    if !errors.is_empty() {
        return Err(errors.join("; "));
    }
    if stopped_early > 0 {
        return Err(format!(
            "{stopped_early} fake brokers stopped heartbeating before the end"
        ));
    }
    Ok(())
}
