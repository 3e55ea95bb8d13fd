//! The global view the invariants are checked against: every batch ever
//! seen (log matching), the committed prefix (durability of commits), the
//! leader of every epoch, and the committed voter-set history.

use std::collections::hash_map::DefaultHasher;
use std::collections::{BTreeMap, HashMap};
use std::hash::{Hash, Hasher};

use kraft_raft::{Batch, ControlRecord, NodeId, ReplicaKey, VoterSet};

/// Key of a batch: (base offset, epoch).
pub type BatchKey = (i64, i32);

/// Content hash of a batch.
pub fn batch_hash(b: &Batch) -> u64 {
    let mut h = DefaultHasher::new();
    b.hash(&mut h);
    h.finish()
}

/// The names of the invariants, used in failure messages and the mutation
/// report.
pub mod inv {
    /// At most one leader per epoch.
    pub const ELECTION_SAFETY: &str = "election-safety";
    /// Same (offset, epoch) implies the same batch and the same prefix.
    pub const LOG_MATCHING: &str = "log-matching";
    /// A committed batch is never truncated, changed or missing on a new leader.
    pub const COMMITTED_DURABLE: &str = "committed-durable";
    /// The high watermark never decreases within one process lifetime.
    pub const HW_MONOTONIC: &str = "hw-monotonic";
    /// Consecutive voter sets differ by at most one voter; one change in flight.
    pub const VOTER_CHANGE: &str = "voter-change";
    /// The leader's committed voter set equals the oracle's.
    pub const COMMITTED_VOTERS: &str = "committed-voters";
    /// The core reported an internal inconsistency.
    pub const CORE_CONSISTENCY: &str = "core-consistency";
    /// After healing, a leader is elected and proposals commit.
    pub const LIVENESS: &str = "liveness";
    /// Voter-change RPCs only answer with the expected error codes.
    pub const RPC_CONTRACT: &str = "rpc-contract";
}

/// Global oracle state of one simulation (cloned by the model checker,
/// which branches the whole cluster state).
#[derive(Clone, Default)]
pub struct Oracle {
    batches: HashMap<BatchKey, (u64, Option<BatchKey>)>,
    /// Committed batches in order: (base, epoch, hash, next offset).
    committed: Vec<(i64, i32, u64, i64)>,
    /// End offset of the committed prefix.
    pub committed_end: i64,
    initial_voters: VoterSet,
    voter_history: Vec<(i64, VoterSet)>,
    leaders: BTreeMap<i32, NodeId>,
    /// Number of individual invariant checks evaluated.
    pub checks: u64,
    /// First failure (invariant name, message).
    pub failure: Option<(&'static str, String)>,
    /// Invariants switched off with `SIM_DISABLE=a,b` (used by the mutation
    /// script to show that a second invariant also catches a mutant).
    disabled: Vec<String>,
}

impl Oracle {
    /// An oracle whose voter set before any log record is `initial`.
    pub fn new(initial: VoterSet) -> Self {
        let disabled = std::env::var("SIM_DISABLE")
            .map(|v| v.split(',').map(|s| s.trim().to_string()).collect())
            .unwrap_or_default();
        Oracle {
            initial_voters: initial,
            disabled,
            ..Default::default()
        }
    }

    /// Records a failure (the first one wins).
    pub fn fail(&mut self, invariant: &'static str, msg: String) {
        if self.disabled.iter().any(|d| d == invariant) {
            return;
        }
        if self.failure.is_none() {
            self.failure = Some((invariant, msg));
        }
    }

    /// Log matching: a batch seen anywhere with key `key` must always have the
    /// same content and the same predecessor.
    pub fn observe_batch(
        &mut self,
        node: NodeId,
        key: BatchKey,
        hash: u64,
        prev: Option<BatchKey>,
    ) {
        self.checks += 1;
        match self.batches.get(&key) {
            None => {
                self.batches.insert(key, (hash, prev));
            }
            Some((h, p)) => {
                if *h != hash {
                    self.fail(
                        inv::LOG_MATCHING,
                        format!("node {node}: batch {key:?} has different content than elsewhere"),
                    );
                } else if *p != prev && prev.is_some() && p.is_some() {
                    self.fail(
                        inv::LOG_MATCHING,
                        format!(
                            "node {node}: batch {key:?} follows {prev:?} here but {p:?} elsewhere"
                        ),
                    );
                }
            }
        }
    }

    fn committed_index(&self, base: i64) -> Option<usize> {
        self.committed
            .binary_search_by_key(&base, |(b, ..)| *b)
            .ok()
    }

    /// The committed batch starting at `base`, if known.
    pub fn committed_at(&self, base: i64) -> Option<(i32, u64)> {
        self.committed_index(base)
            .map(|i| (self.committed[i].1, self.committed[i].2))
    }

    /// The last committed batch.
    pub fn last_committed(&self) -> Option<(i64, i32, u64)> {
        self.committed.last().map(|(b, e, h, _)| (*b, *e, *h))
    }

    /// A node says `batch` is committed: it must match the committed prefix
    /// or extend it contiguously. Returns true when it extended the prefix.
    pub fn commit(&mut self, node: NodeId, batch: &Batch, hash: u64) -> bool {
        self.checks += 1;
        if batch.base_offset < self.committed_end {
            match self.committed_at(batch.base_offset) {
                Some((e, h)) if e == batch.epoch && h == hash => {}
                Some((e, _)) => self.fail(
                    inv::COMMITTED_DURABLE,
                    format!(
                        "node {node}: committed batch at {} is epoch {} here but epoch {e} was committed",
                        batch.base_offset, batch.epoch
                    ),
                ),
                None => self.fail(
                    inv::COMMITTED_DURABLE,
                    format!(
                        "node {node}: committed batch boundary {} does not match the committed prefix",
                        batch.base_offset
                    ),
                ),
            }
        } else if batch.base_offset == self.committed_end {
            self.committed
                .push((batch.base_offset, batch.epoch, hash, batch.next_offset()));
            self.committed_end = batch.next_offset();
            for (offset, rec) in batch.control_records() {
                if let ControlRecord::Voters(v) = rec {
                    self.voter_history.push((offset, v.clone()));
                }
            }
            return true;
        } else {
            self.fail(
                inv::COMMITTED_DURABLE,
                format!(
                    "node {node}: committed batch at {} leaves a gap after the committed end {}",
                    batch.base_offset, self.committed_end
                ),
            );
        }
        false
    }

    /// The voter set in effect at `offset` according to the committed log.
    pub fn voters_at(&self, offset: i64) -> &VoterSet {
        self.voter_history
            .iter()
            .rev()
            .find(|(o, _)| *o <= offset)
            .map(|(_, v)| v)
            .unwrap_or(&self.initial_voters)
    }

    /// Election safety.
    pub fn observe_leader(&mut self, node: NodeId, epoch: i32) {
        self.checks += 1;
        match self.leaders.get(&epoch) {
            None => {
                self.leaders.insert(epoch, node);
            }
            Some(other) if *other != node => self.fail(
                inv::ELECTION_SAFETY,
                format!("two leaders in epoch {epoch}: {other} and {node}"),
            ),
            _ => {}
        }
    }

    /// A hash of the leader of every epoch (part of the model checker's
    /// state fingerprint).
    pub fn leaders_digest(&self) -> u64 {
        let mut h = DefaultHasher::new();
        self.leaders.hash(&mut h);
        h.finish()
    }

    /// Number of distinct epochs that had a leader.
    pub fn leader_epochs(&self) -> usize {
        self.leaders.len()
    }
}

/// Checks two consecutive voter sets: at most one voter added or removed.
pub fn voter_sets_overlap(a: &VoterSet, b: &VoterSet) -> bool {
    let ka: Vec<ReplicaKey> = a.keys().collect();
    let kb: Vec<ReplicaKey> = b.keys().collect();
    let removed = ka.iter().filter(|k| !kb.contains(k)).count();
    let added = kb.iter().filter(|k| !ka.contains(k)).count();
    removed + added <= 1
}

/// True when both sets have the same keys.
pub fn same_keys(a: &VoterSet, b: &VoterSet) -> bool {
    a.keys().eq(b.keys())
}
