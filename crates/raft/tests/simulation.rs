//! The deterministic cluster simulator (the crate's only integration test
//! binary). `SIM_SEEDS=N` runs N seeds (default 500), `SIM_SEED=S` replays
//! one seed, `SIM_SEED_BASE=B` shifts the seed range. The conformance
//! cases (ports of Kafka's reconfiguration unit tests) and the bounded
//! model check (`model_check`; `MC_BIG=1` for the large bound, `MC_DEPTH`
//! and `MC_STATES` to override the bounds) live in the same binary.

#![allow(clippy::unwrap_used)]

mod conformance;
mod model;
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

/// The bounded model check (see `model`): elections, elections over a
/// committed entry some voter lacks, and replication with proposals,
/// acknowledgements, the voter change, loss, duplication and a crash, each
/// from an elected leader. `MC_SCENARIO=name` runs one. The large bound
/// (`MC_BIG=1`, `cargo xtask modelcheck`) adds loss, duplication and a third
/// timer to the election scenario and goes deeper elsewhere. Fails with a
/// readable counterexample trace.
#[test]
fn model_check() {
    let big = std::env::var("MC_BIG").is_ok_and(|v| v != "0");
    let only = std::env::var("MC_SCENARIO").ok();
    // Each scenario spends its depth on different faults: the full
    // product does not fit a CI budget at a useful depth.
    let scenarios = [
        // Elections: followers of an elected leader time out, pre-votes and
        // votes race. (A cold start is not explored: leaderless replicas
        // spend the depth bound on bootstrap fetches, one per
        // retry.backoff.ms per node, before anything else can happen.)
        model::ModelOptions {
            name: "election",
            warm: true,
            max_depth: if big { 10 } else { 12 },
            max_states: if big { 8_000_000 } else { 400_000 },
            proposals: 0,
            crashes: 0,
            drops: if big { 1 } else { 0 },
            dups: if big { 1 } else { 0 },
            changes: 0,
            timers: if big { 3 } else { 2 },
        },
        // A committed proposal that not every voter holds, then elections:
        // a voter with a stale log must not win.
        model::ModelOptions {
            name: "stale-election",
            warm: true,
            max_depth: if big { 13 } else { 11 },
            max_states: if big { 8_000_000 } else { 400_000 },
            proposals: 1,
            crashes: 0,
            drops: 0,
            dups: 0,
            changes: 0,
            timers: 2,
        },
        // An elected leader: proposals, acknowledgements, the voter change,
        // message loss and duplication, a crash losing un-flushed writes,
        // and re-elections.
        model::ModelOptions {
            name: "replication",
            warm: true,
            max_depth: if big { 7 } else { 6 },
            max_states: if big { 8_000_000 } else { 400_000 },
            proposals: 2,
            crashes: 1,
            drops: 1,
            dups: 1,
            changes: 1,
            timers: 2,
        },
    ];
    let mut failures = Vec::new();
    for mut opts in scenarios {
        if only.as_deref().is_some_and(|o| o != opts.name) {
            continue;
        }
        if let Some(d) = env_u64("MC_DEPTH") {
            opts.max_depth = d as usize;
        }
        if let Some(s) = env_u64("MC_STATES") {
            opts.max_states = s as usize;
        }
        let r = model::run(&opts);
        println!(
            "model check [{}]: {} states, {} transitions, depth {} ({}), {} checks, warm-up {} steps, {} states with an acknowledged proposal, {} with the voter change done, {:.1}s",
            opts.name,
            r.states,
            r.transitions,
            r.max_depth,
            if r.exhaustive {
                format!("exhaustive to depth {}", r.complete_depth)
            } else {
                format!("state bound hit; complete to depth {}", r.complete_depth)
            },
            r.checks,
            r.warmup_steps,
            r.states_with_ack,
            r.states_with_change,
            r.seconds
        );
        if let Some((inv, msg, trace)) = r.failure {
            println!(
                "MODEL CHECK FAILURE scenario={} invariant={inv}: {msg}",
                opts.name
            );
            println!("counterexample ({} steps):\n{trace}", r.max_depth);
            failures.push(format!("{}: {inv}: {msg}", opts.name));
        }
    }
    assert!(failures.is_empty(), "model check failed: {failures:?}");
}
