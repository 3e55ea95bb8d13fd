//! Cost of the consensus core, reported as ratios against a baseline
//! measured in the same run (never as absolute times in tests):
//!
//! * `append_baseline`: appending a one-record batch to a [`MemoryLog`].
//! * `propose_commit`: a leader of three voters proposes one record and both
//!   followers fetch it until it is committed (all in-process, no I/O).
//! * `simulation_seed`: one seed of the deterministic cluster simulator.

#![allow(missing_docs, clippy::unwrap_used)]

#[path = "../tests/sim/mod.rs"]
#[allow(dead_code)]
mod sim;

use std::hint::black_box;
use std::time::{Duration, Instant};

use bytes::Bytes;
use criterion::Criterion;
use kraft_raft::core::message::FetchRequest;
use kraft_raft::core::*;

fn endpoints(id: NodeId) -> Endpoints {
    Endpoints::single("CONTROLLER", "localhost", 9000 + id as u16)
}

fn key(id: NodeId) -> ReplicaKey {
    ReplicaKey::of(id, Uuid::from_u128(0x1000 + id as u128))
}

/// A leader of {1, 2, 3} with an established high watermark, and the time.
fn leader() -> (RaftCore<MemoryLog>, i64) {
    let voters = VoterSet::new(
        (1..=3).map(|id| VoterNode::new(key(id), endpoints(id), KRaftVersionRange::new(0, 1))),
    );
    let mut cfg = RaftConfig::new(
        1,
        key(1).wire_directory_id(),
        "bench",
        endpoints(1),
        "CONTROLLER",
    );
    cfg.bootstrap_servers = vec![Address::new("localhost", 9002)];
    let log = MemoryLog::with_bootstrap(SnapshotControl {
        voters: Some(voters),
        kraft_version: Some(1),
    });
    let mut core = RaftCore::new(cfg, log, None, Box::new(SplitMix64::new(1)), 0).unwrap();
    let mut now = 0;
    while core.role() != Role::Leader {
        now += 1000;
        core.tick(now);
        drive(&mut core, now, true);
    }
    let leo = core.log().end_offset();
    fetch(&mut core, 2, leo, now);
    (core, now)
}

/// Executes actions: flushes complete at once, votes are granted.
fn drive(core: &mut RaftCore<MemoryLog>, now: i64, grant: bool) {
    loop {
        let actions = core.take_actions();
        if actions.is_empty() {
            return;
        }
        for a in actions {
            match a {
                Action::Flush { up_to } => {
                    let t = core.log().issue_flush();
                    core.log_mut().complete_flush(t);
                    core.flushed(up_to, now);
                }
                Action::Send {
                    correlation_id,
                    destination,
                    request: Request::Vote(v),
                    ..
                } if grant => {
                    let resp = message::VoteResponse {
                        error_code: ErrorCode::None,
                        partition_error: ErrorCode::None,
                        leader_id: -1,
                        leader_epoch: v.replica_epoch,
                        vote_granted: true,
                        leader_endpoint: None,
                    };
                    core.handle_response(correlation_id, destination, Response::Vote(resp), now);
                }
                _ => {}
            }
        }
    }
}

fn fetch(core: &mut RaftCore<MemoryLog>, id: NodeId, offset: i64, now: i64) {
    let req = FetchRequest {
        cluster_id: None,
        replica_id: id,
        replica_directory_id: key(id).wire_directory_id(),
        max_wait_ms: 0,
        max_bytes: 1 << 20,
        current_leader_epoch: core.epoch(),
        fetch_offset: offset,
        last_fetched_epoch: core.log().last_fetched_epoch(),
        high_watermark: -1,
    };
    core.handle_request(1, Request::Fetch(req), now);
    drive(core, now, false);
}

fn time<F: FnMut()>(iters: u32, mut f: F) -> Duration {
    let start = Instant::now();
    for _ in 0..iters {
        f();
    }
    start.elapsed() / iters
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    let record = Bytes::from_static(b"0123456789abcdef");

    let mut log = MemoryLog::new();
    let mut base = 0;
    c.bench_function("append_baseline", |b| {
        b.iter(|| {
            let batch = Batch {
                base_offset: base,
                epoch: 1,
                append_time: 0,
                records: vec![Record::Data(record.clone())],
            };
            base += 1;
            log.append(black_box(batch)).unwrap();
        })
    });

    let (mut core, mut now) = leader();
    c.bench_function("propose_commit", |b| {
        b.iter(|| {
            now += 1;
            let last = core.propose(vec![record.clone()], now).unwrap();
            drive(&mut core, now, false);
            fetch(&mut core, 2, last + 1, now);
            fetch(&mut core, 3, last + 1, now);
            black_box(core.high_watermark());
        })
    });

    let mut seed = 1;
    c.bench_function("simulation_seed", |b| {
        b.iter(|| {
            seed += 1;
            let mut opts = sim::SimOptions::new(seed);
            opts.fault_ms = 5_000;
            black_box(sim::Sim::new(opts).run().events)
        })
    });
    c.final_summary();

    // Ratios against the baseline, measured in this run.
    let mut log = MemoryLog::new();
    let mut base = 0;
    let append = time(20_000, || {
        let batch = Batch {
            base_offset: base,
            epoch: 1,
            append_time: 0,
            records: vec![Record::Data(record.clone())],
        };
        base += 1;
        log.append(batch).unwrap();
    });
    let (mut core, mut now) = leader();
    let commit = time(5_000, || {
        now += 1;
        let last = core.propose(vec![record.clone()], now).unwrap();
        drive(&mut core, now, false);
        fetch(&mut core, 2, last + 1, now);
        fetch(&mut core, 3, last + 1, now);
    });
    println!(
        "propose+commit (3 voters) / memory-log append: {:.1}x",
        commit.as_secs_f64() / append.as_secs_f64().max(1e-12)
    );
}
