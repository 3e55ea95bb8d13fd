//! The deterministic cluster simulator (the crate's only integration test
//! binary). `SIM_SEEDS=N` runs N seeds (default 500), `SIM_SEED=S` replays
//! one seed, `SIM_SEED_BASE=B` shifts the seed range. The conformance
//! cases (ports of Kafka's reconfiguration unit tests) live in the same
//! binary.

#![allow(clippy::unwrap_used)]

mod conformance;
mod sim;

use std::time::Instant;

use sim::{Figures, Sim, SimOptions};

fn env_u64(name: &str) -> Option<u64> {
    std::env::var(name).ok().and_then(|v| v.trim().parse().ok())
}

fn run_one(seed: u64) -> sim::SeedReport {
    Sim::new(SimOptions::new(seed)).run()
}

#[test]
fn simulation() {
    let started = Instant::now();
    let single = env_u64("SIM_SEED").is_some();
    let seeds: Vec<u64> = match env_u64("SIM_SEED") {
        Some(s) => vec![s],
        None => {
            let n = env_u64("SIM_SEEDS").unwrap_or(500);
            let base = env_u64("SIM_SEED_BASE").unwrap_or(1);
            (base..base + n).collect()
        }
    };
    let mut figures = Figures::default();
    for seed in seeds {
        let report = run_one(seed);
        if single {
            println!(
                "seed {seed}: {} voters, {} observers, kraft.version {}",
                report.shape.0, report.shape.1, report.shape.2
            );
        }
        figures.add(&report);
        if let Some((invariant, msg)) = &report.failure {
            println!("SIMULATION FAILURE seed={seed} invariant={invariant}: {msg}");
            println!(
                "shape: {} voters, {} observers, kraft.version {}",
                report.shape.0, report.shape.1, report.shape.2
            );
            println!(
                "replay: SIM_SEED={seed} cargo test -p kraft-raft --test simulation -- --nocapture"
            );
            panic!("invariant {invariant} violated with seed {seed}: {msg}");
        }
    }
    println!(
        "simulation figures ({:.1}s wall):",
        started.elapsed().as_secs_f64()
    );
    println!("  seeds run:               {}", figures.seeds);
    println!("  static-quorum runs:      {}", figures.static_quorum_runs);
    println!(
        "  simulated time:          {:.1} s",
        figures.sim_ms as f64 / 1000.0
    );
    println!("  events processed:        {}", figures.events);
    println!("  invariant checks:        {}", figures.checks);
    println!("  elections started:       {}", figures.elections);
    println!("  leader epochs:           {}", figures.leader_epochs);
    println!("  proposals committed:     {}", figures.committed_proposals);
    println!("  voter changes completed: {}", figures.voter_changes);
    println!("  voter-change answers:    {:?}", figures.voter_rpc_results);
    println!("  snapshots installed:     {}", figures.snapshots_installed);
    println!(
        "  messages delivered/dropped: {}/{}",
        figures.messages_delivered, figures.messages_dropped
    );
    println!("  faults injected:         {:?}", figures.faults);
    println!("  requests delivered:      {:?}", figures.requests);
}
