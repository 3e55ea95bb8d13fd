//! Deterministic simulation of a KRaft cluster (shared code of the
//! `simulation` test binary).

pub mod cluster;
pub mod oracle;

pub use cluster::{SeedReport, Sim, SimOptions};

/// Totals over many seeds.
#[derive(Debug, Default)]
pub struct Figures {
    /// Seeds run.
    pub seeds: u64,
    /// Simulated time (ms).
    pub sim_ms: i64,
    /// Events processed.
    pub events: u64,
    /// Faults by kind.
    pub faults: std::collections::BTreeMap<&'static str, u64>,
    /// Elections started.
    pub elections: u64,
    /// Distinct leader epochs.
    pub leader_epochs: u64,
    /// Voter changes completed.
    pub voter_changes: u64,
    /// Admin voter-change results by error name.
    pub voter_rpc_results: std::collections::BTreeMap<&'static str, u64>,
    /// Invariant checks evaluated.
    pub checks: u64,
    /// Proposals committed.
    pub committed_proposals: u64,
    /// Snapshots installed by followers.
    pub snapshots_installed: u64,
    /// Messages delivered.
    pub messages_delivered: u64,
    /// Messages dropped.
    pub messages_dropped: u64,
    /// Requests delivered by API.
    pub requests: std::collections::BTreeMap<String, u64>,
    /// Runs with kraft.version 0 (static quorum).
    pub static_quorum_runs: u64,
}

impl Figures {
    /// Adds one seed's report.
    pub fn add(&mut self, r: &SeedReport) {
        self.seeds += 1;
        self.sim_ms += r.sim_ms;
        self.events += r.events;
        for (k, v) in &r.faults {
            *self.faults.entry(k).or_insert(0) += v;
        }
        for (k, v) in &r.requests {
            *self.requests.entry(k.clone()).or_insert(0) += v;
        }
        for (k, v) in &r.voter_rpc_results {
            *self.voter_rpc_results.entry(k).or_insert(0) += v;
        }
        self.elections += r.elections;
        self.leader_epochs += r.leader_epochs;
        self.voter_changes += r.voter_changes;
        self.checks += r.checks;
        self.committed_proposals += r.committed_proposals;
        self.snapshots_installed += r.snapshots_installed;
        self.messages_delivered += r.messages_delivered;
        self.messages_dropped += r.messages_dropped;
        if r.shape.2 == 0 {
            self.static_quorum_runs += 1;
        }
    }
}
