//! Exhaustive bounded model check of the real consensus core.
//!
//! An explicit-state breadth-first search over a cluster of real
//! [`RaftCore<MemoryLog>`] instances: three voters (1, 2, 3) and one
//! observer (4), bootstrapped with `kraft.version` 1. A state is the four
//! cores (including their logs' durable and un-flushed parts, their random
//! generators and their local clocks), the persisted election states, the
//! in-flight message multiset, the pending flushes and the ghost state the
//! properties need (the oracle's committed history, the leader of every
//! epoch, the acknowledged proposals).
//!
//! Transitions ([`Step`]):
//! * deliver an in-flight message, consuming it or (bounded) keeping a copy
//!   so that it is delivered again later (duplication);
//! * drop an in-flight message (bounded);
//! * fire a node's timer: its clock jumps to the core's next deadline. Each
//!   node has its own clock and time only moves through this step, so time
//!   is abstracted to the sequence of deadlines the core asks for (the core
//!   is deterministic given time and its random generator);
//! * complete the oldest pending flush of a node;
//! * crash-restart a node, losing its un-flushed writes (bounded; enabled
//!   only while the node has un-flushed appends, since a crash that loses
//!   nothing only drops the messages in flight to and from it);
//! * propose a value at a leader (bounded);
//! * start the one voter change at a leader: add the observer, or remove
//!   voter 3.
//!
//! States are deduplicated by a 64-bit fingerprint of a canonical dump of
//! everything above (the cores' `Debug` dump covers every field that steers
//! their behaviour; the random generator's state is hashed separately). The
//! search is bounded by depth and by the number of distinct states. Only the
//! parent link of each state is stored; a level is expanded by walking the
//! tree of links from the initial state and re-applying the steps, which
//! keeps memory at a few dozen bytes per state. A counterexample is the
//! shortest path to a failing state, replayed step by step with a summary
//! of every node after each step.
//!
//! After every transition: election safety (one leader per epoch), log
//! matching (current logs pairwise, and against every batch ever seen), the
//! committed prefix of every node is a prefix of one committed history,
//! every newly committed batch is durable on a majority of the committing
//! leader's voters, a leader holds every batch committed in an earlier
//! epoch and reports
//! the committed voter set of that history, the high
//! watermark never decreases within a process lifetime, no acknowledged
//! proposal is lost or changed, and the acknowledged proposals appear in
//! the committed history once each and in acknowledgement order
//! (linearizability of the committed history).

use std::cell::Cell;
use std::collections::hash_map::DefaultHasher;
use std::collections::{BTreeMap, HashSet, VecDeque};
use std::fmt::Write as _;
use std::hash::{Hash, Hasher};
use std::rc::Rc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

use bytes::Bytes;
use kraft_raft::message::{
    AddRaftVoterRequest, ApiVersionsResponse, RemoveRaftVoterRequest, Request, Response,
};
use kraft_raft::*;

use crate::sim::cluster::Origin;
use crate::sim::oracle::{batch_hash, inv, Oracle};

const LISTENER: &str = "CONTROLLER";
const CLUSTER_ID: &str = "model-check-cluster-00";
const VOTERS: [NodeId; 3] = [1, 2, 3];
const OBSERVER: NodeId = 4;
const NODES: usize = 4;
/// Voter removed by the "remove" variant of the voter change.
const REMOVED: NodeId = 3;

/// Bounds and budgets of one model check.
#[derive(Clone, Debug)]
pub struct ModelOptions {
    /// Scenario name (for the report).
    pub name: &'static str,
    /// Start from an elected, caught-up cluster instead of a cold start.
    pub warm: bool,
    /// Maximum number of transitions from the initial state.
    pub max_depth: usize,
    /// Maximum number of distinct states.
    pub max_states: usize,
    /// Proposals the clients may make.
    pub proposals: u8,
    /// Crash-restarts.
    pub crashes: u8,
    /// Dropped messages.
    pub drops: u8,
    /// Duplicated deliveries.
    pub dups: u8,
    /// Voter changes (0 or 1).
    pub changes: u8,
    /// Timer firings (bounds how far clocks can run).
    pub timers: u8,
}

/// Figures of one model check.
#[derive(Debug, Default)]
pub struct ModelReport {
    /// Distinct states reached.
    pub states: usize,
    /// Transitions taken (including those reaching a known state).
    pub transitions: u64,
    /// Deepest level explored.
    pub max_depth: usize,
    /// True when every state within the depth bound was explored (the state
    /// bound was not hit).
    pub exhaustive: bool,
    /// Invariant checks evaluated.
    pub checks: u64,
    /// Wall time (s).
    pub seconds: f64,
    /// Deepest level at which every state was expanded.
    pub complete_depth: usize,
    /// Length of the deterministic warm-up prefix.
    pub warmup_steps: usize,
    /// States in which some node was leader with a committed proposal.
    pub states_with_ack: usize,
    /// States in which the voter change had completed.
    pub states_with_change: usize,
    /// First failure: invariant, message, readable trace.
    pub failure: Option<(&'static str, String, String)>,
}

/// The random generator handed to a core: SplitMix64 whose state the model
/// can read (for the fingerprint) and copy (when branching).
struct ModelRng(Arc<AtomicU64>);

impl RaftRng for ModelRng {
    fn next_u64(&mut self) -> u64 {
        let s = self.0.load(Ordering::Relaxed);
        self.0
            .store(s.wrapping_add(0x9E37_79B9_7F4A_7C15), Ordering::Relaxed);
        SplitMix64::new(s).next_u64()
    }
}

/// One transition.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// Deliver the message with this fingerprint; `keep` leaves a copy.
    Deliver { msg: u64, keep: bool },
    /// Drop the message with this fingerprint.
    Drop { msg: u64 },
    /// Fire the timer of a node.
    Timer(NodeId),
    /// Complete the oldest pending flush of a node.
    Flush(NodeId),
    /// Crash a node (losing un-flushed writes) and restart it.
    Crash(NodeId),
    /// Propose the next value at this leader.
    Propose(NodeId),
    /// Ask this leader to add the observer as a voter.
    AddVoter(NodeId),
    /// Ask this leader to remove voter [`REMOVED`].
    RemoveVoter(NodeId),
}

#[derive(Clone, Debug)]
enum Msg {
    Request {
        from: NodeId,
        from_life: u32,
        to: NodeId,
        correlation: u64,
        alias: NodeId,
        request: Request,
    },
    Response {
        from: NodeId,
        to: NodeId,
        to_life: u32,
        correlation: u64,
        response: Response,
    },
}

impl Msg {
    fn describe(&self) -> String {
        let mut s = match self {
            Msg::Request {
                from,
                to,
                correlation,
                request,
                ..
            } => format!("{from}->{to} #{correlation} {request:?}"),
            Msg::Response {
                from,
                to,
                correlation,
                response,
                ..
            } => format!("{from}->{to} #{correlation} {response:?}"),
        };
        if s.len() > 400 {
            s.truncate(400);
            s.push_str("...");
        }
        s
    }
}

struct Node {
    id: NodeId,
    core: RaftCore<MemoryLog>,
    rng: Arc<AtomicU64>,
    now: i64,
    election: Option<ElectionState>,
    inbound: BTreeMap<InboundId, Origin>,
    next_inbound: InboundId,
    flushes: VecDeque<(FlushTicket, i64)>,
    life: u32,
    /// Cached fingerprint of this node (cleared whenever it is mutated).
    fp: Cell<Option<u64>>,
}

impl Node {
    fn fingerprint(&self) -> u64 {
        if let Some(f) = self.fp.get() {
            return f;
        }
        let mut h = DefaultHasher::new();
        let _ = write!(HashWriter(&mut h), "{:?}", self.core);
        self.rng.load(Ordering::Relaxed).hash(&mut h);
        self.now.hash(&mut h);
        let _ = write!(HashWriter(&mut h), "{:?}{:?}", self.election, self.flushes);
        self.inbound.hash(&mut h);
        self.next_inbound.hash(&mut h);
        self.life.hash(&mut h);
        let f = h.finish();
        self.fp.set(Some(f));
        f
    }
}

impl Clone for Node {
    fn clone(&self) -> Self {
        let rng = Arc::new(AtomicU64::new(self.rng.load(Ordering::Relaxed)));
        Node {
            id: self.id,
            core: self.core.clone_with_rng(Box::new(ModelRng(rng.clone()))),
            rng,
            now: self.now,
            election: self.election.clone(),
            inbound: self.inbound.clone(),
            next_inbound: self.next_inbound,
            flushes: self.flushes.clone(),
            life: self.life,
            fp: Cell::new(None),
        }
    }
}

/// Feeds formatted text into a hasher without allocating.
struct HashWriter<'a>(&'a mut DefaultHasher);

impl std::fmt::Write for HashWriter<'_> {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        self.0.write(s.as_bytes());
        Ok(())
    }
}

fn msg_hash(m: &Msg) -> u64 {
    let mut h = DefaultHasher::new();
    let _ = write!(HashWriter(&mut h), "{m:?}");
    h.finish()
}

/// The whole model state.
#[derive(Clone)]
struct World {
    /// The nodes, shared between states until a step modifies one.
    nodes: Vec<Rc<Node>>,
    /// Highest high watermark seen per node in its current lifetime.
    max_hw: [Option<i64>; NODES],
    /// In-flight messages, sorted by fingerprint (a canonical multiset).
    net: Vec<(u64, Msg)>,
    proposals_left: u8,
    crashes_left: u8,
    drops_left: u8,
    dups_left: u8,
    changes_left: u8,
    timers_left: u8,
    next_value: u32,
    oracle: Oracle,
    /// Committed batches in order (the committed history), each with the
    /// epoch of the node that first reported it committed.
    committed: Vec<(Batch, i32)>,
    /// Outstanding proposals: (node, life, epoch, last offset) -> value.
    pending: BTreeMap<(NodeId, u32, i32, i64), Bytes>,
    /// Acknowledged proposals in acknowledgement order: (value, offset).
    acked: Vec<(Bytes, i64)>,
    /// Voter-change answers received: error code names.
    admin_results: Vec<&'static str>,
    /// Offsets newly committed by a leader in the last step: (leader, base,
    /// epoch, next offset), checked for durability.
    new_commits: Vec<(NodeId, i64, i32, i64)>,
}

fn dir_id(id: NodeId) -> Uuid {
    Uuid::from_u128(0x4D43_0000_0000_0000_0000_0000_0000_0000u128 + ((id as u128) << 8) + 1)
}

fn endpoints(id: NodeId) -> Endpoints {
    Endpoints::single(LISTENER, format!("node{id}"), 9000 + id as u16)
}

fn address_id(a: &Address) -> Option<NodeId> {
    a.host.strip_prefix("node").and_then(|s| s.parse().ok())
}

fn idx(id: NodeId) -> usize {
    (id - 1) as usize
}

impl World {
    fn new(opts: &ModelOptions) -> Self {
        let initial = VoterSet::new(VOTERS.iter().map(|id| {
            VoterNode::new(
                ReplicaKey::of(*id, dir_id(*id)),
                endpoints(*id),
                KRaftVersionRange::new(0, 1),
            )
        }));
        let mut nodes = Vec::new();
        for id in 1..=NODES as NodeId {
            let mut cfg = RaftConfig::new(id, dir_id(id), CLUSTER_ID, endpoints(id), LISTENER);
            cfg.election_timeout_ms = 300;
            cfg.fetch_timeout_ms = 600;
            cfg.election_backoff_max_ms = 300;
            cfg.request_timeout_ms = 600;
            cfg.retry_backoff_ms = 20;
            cfg.fetch_max_wait_ms = 150;
            cfg.bootstrap_servers = (1..=NODES as NodeId)
                .filter(|v| *v != id)
                .map(|v| Address::new(format!("node{v}"), 9000 + v as u16))
                .collect();
            let log = MemoryLog::with_bootstrap(SnapshotControl {
                voters: VOTERS.contains(&id).then(|| initial.clone()),
                kraft_version: Some(1),
            });
            let rng = Arc::new(AtomicU64::new(0x5EED_0000 + id as u64 * 7919));
            let core = RaftCore::new(cfg, log, None, Box::new(ModelRng(rng.clone())), 0)
                .expect("valid configuration");
            nodes.push(Node {
                id,
                core,
                rng,
                now: 0,
                election: None,
                inbound: BTreeMap::new(),
                next_inbound: 1,
                flushes: VecDeque::new(),
                life: 0,
                fp: Cell::new(None),
            });
        }
        let mut w = World {
            nodes: nodes.into_iter().map(Rc::new).collect(),
            max_hw: [None; NODES],
            net: Vec::new(),
            proposals_left: opts.proposals,
            crashes_left: opts.crashes,
            drops_left: opts.drops,
            dups_left: opts.dups,
            changes_left: opts.changes,
            timers_left: opts.timers,
            next_value: 1,
            oracle: Oracle::new(initial),
            committed: Vec::new(),
            pending: BTreeMap::new(),
            acked: Vec::new(),
            admin_results: Vec::new(),
            new_commits: Vec::new(),
        };
        for id in 1..=NODES as NodeId {
            w.after_step(id);
        }
        w
    }

    /// A node, for modification (copied first if another state shares it).
    fn node(&mut self, id: NodeId) -> &mut Node {
        let n = Rc::make_mut(&mut self.nodes[idx(id)]);
        n.fp.set(None);
        n
    }

    fn push(&mut self, m: Msg) {
        let h = msg_hash(&m);
        let pos = self.net.partition_point(|(x, _)| *x < h);
        self.net.insert(pos, (h, m));
    }

    /// Executes the actions of a node until it has none left.
    fn after_step(&mut self, id: NodeId) {
        loop {
            let actions = self.node(id).core.take_actions();
            if actions.is_empty() {
                return;
            }
            for a in actions {
                self.execute(id, a);
            }
        }
    }

    fn execute(&mut self, id: NodeId, action: Action) {
        let life = self.node(id).life;
        match action {
            Action::PersistElectionState { state, .. } => self.node(id).election = Some(state),
            Action::Send {
                correlation_id,
                destination,
                address,
                request,
            } => {
                let dest = if destination >= 0 {
                    Some(destination)
                } else {
                    address.as_ref().and_then(address_id)
                };
                let Some(dest) = dest.filter(|d| (1..=NODES as NodeId).contains(d)) else {
                    let now = self.node(id).now;
                    self.node(id).core.handle_send_failure(
                        correlation_id,
                        destination,
                        ErrorCode::BrokerNotAvailable,
                        now,
                    );
                    return;
                };
                if let Request::ApiVersions = request {
                    // The driver answers the probe on behalf of the peer.
                    let range = self.nodes[idx(dest)].core.config().supported_kraft_version;
                    self.push(Msg::Response {
                        from: destination,
                        to: id,
                        to_life: life,
                        correlation: correlation_id,
                        response: Response::ApiVersions(ApiVersionsResponse {
                            error_code: ErrorCode::None,
                            kraft_version: Some(range),
                        }),
                    });
                    return;
                }
                self.push(Msg::Request {
                    from: id,
                    from_life: life,
                    to: dest,
                    correlation: correlation_id,
                    alias: destination,
                    request,
                });
            }
            Action::Respond { inbound, response } => match self.node(id).inbound.remove(&inbound) {
                Some(Origin::Peer {
                    from,
                    from_life,
                    correlation,
                    alias,
                }) if self.nodes[idx(from)].life == from_life => {
                    self.push(Msg::Response {
                        from: alias,
                        to: from,
                        to_life: from_life,
                        correlation,
                        response,
                    });
                }
                // A response to a previous incarnation dies with its
                // connection.
                Some(Origin::Peer { .. }) => {}
                Some(Origin::Admin) => {
                    let code = match &response {
                        Response::AddRaftVoter(r) | Response::RemoveRaftVoter(r) => r.error_code,
                        _ => ErrorCode::None,
                    };
                    self.admin_results.push(code.name());
                }
                None => {}
            },
            Action::Flush { up_to } => {
                let n = self.node(id);
                let ticket = n.core.log().issue_flush();
                n.flushes.push_back((ticket, up_to));
            }
            Action::Committed { batches } => {
                let leader = self.node(id).core.role() == Role::Leader;
                for b in &batches {
                    self.commit(id, b, leader);
                }
            }
            Action::ProposalCompleted {
                epoch,
                last_offset,
                result,
            } => {
                if let Some(v) = self.pending.remove(&(id, life, epoch, last_offset)) {
                    if result == ErrorCode::None {
                        self.acked.push((v, last_offset));
                    }
                }
            }
            Action::LoadSnapshot { .. } | Action::LeaderChange(_) => {}
        }
    }

    /// A node reports `b` as committed.
    fn commit(&mut self, id: NodeId, b: &Batch, by_leader: bool) {
        if self.oracle.commit(id, b, batch_hash(b)) {
            let epoch = self.nodes[idx(id)].core.epoch();
            self.committed.push((b.clone(), epoch));
            if by_leader {
                self.new_commits
                    .push((id, b.base_offset, b.epoch, b.next_offset()));
            }
        }
    }

    fn enabled(&self, opts: &ModelOptions) -> Vec<Step> {
        let mut steps = Vec::new();
        let mut last = None;
        for (h, _) in &self.net {
            if last == Some(*h) {
                continue;
            }
            last = Some(*h);
            steps.push(Step::Deliver {
                msg: *h,
                keep: false,
            });
            if self.dups_left > 0 {
                steps.push(Step::Deliver {
                    msg: *h,
                    keep: true,
                });
            }
            if self.drops_left > 0 {
                steps.push(Step::Drop { msg: *h });
            }
        }
        for n in &self.nodes {
            if !n.flushes.is_empty() {
                steps.push(Step::Flush(n.id));
            }
        }
        for n in &self.nodes {
            if self.timers_left > 0 && n.core.next_deadline() < i64::MAX / 2 {
                steps.push(Step::Timer(n.id));
            }
        }
        for n in &self.nodes {
            if n.core.role() != Role::Leader {
                continue;
            }
            if self.proposals_left > 0 {
                steps.push(Step::Propose(n.id));
            }
            if self.changes_left > 0 && opts.changes > 0 {
                steps.push(Step::AddVoter(n.id));
                steps.push(Step::RemoveVoter(n.id));
            }
        }
        if self.crashes_left > 0 {
            // Only a crash that loses something: un-flushed appends. (A
            // crash that loses nothing is equivalent to dropping the
            // messages in flight to and from the node.)
            for n in &self.nodes {
                let log = n.core.log();
                if log.end_offset() > log.durable_end() {
                    steps.push(Step::Crash(n.id));
                }
            }
        }
        steps
    }

    fn take_msg(&mut self, h: u64, keep: bool) -> Option<Msg> {
        let pos = self.net.iter().position(|(x, _)| *x == h)?;
        if keep {
            Some(self.net[pos].1.clone())
        } else {
            Some(self.net.remove(pos).1)
        }
    }

    /// Applies a step; returns a readable description.
    fn apply(&mut self, step: Step) -> String {
        self.new_commits.clear();
        match step {
            Step::Deliver { msg, keep } => {
                if keep {
                    self.dups_left -= 1;
                }
                let Some(m) = self.take_msg(msg, keep) else {
                    return "deliver: no such message".into();
                };
                let text = format!(
                    "deliver{} {}",
                    if keep { " (keeping a duplicate)" } else { "" },
                    m.describe()
                );
                match m {
                    Msg::Request {
                        from,
                        from_life,
                        to,
                        correlation,
                        alias,
                        request,
                    } => {
                        let n = self.node(to);
                        let token = n.next_inbound;
                        n.next_inbound += 1;
                        n.inbound.insert(
                            token,
                            Origin::Peer {
                                from,
                                from_life,
                                correlation,
                                alias,
                            },
                        );
                        let now = n.now;
                        n.core.handle_request(token, request, now);
                        self.after_step(to);
                    }
                    Msg::Response {
                        from,
                        to,
                        to_life,
                        correlation,
                        response,
                    } => {
                        let n = self.node(to);
                        if n.life == to_life {
                            let now = n.now;
                            n.core.handle_response(correlation, from, response, now);
                            self.after_step(to);
                        }
                    }
                }
                text
            }
            Step::Drop { msg } => {
                self.drops_left -= 1;
                let m = self.take_msg(msg, false);
                format!("drop {}", m.map(|m| m.describe()).unwrap_or_default())
            }
            Step::Timer(id) => {
                self.timers_left -= 1;
                let n = self.node(id);
                n.now = n.now.max(n.core.next_deadline());
                let now = n.now;
                n.core.tick(now);
                self.after_step(id);
                format!("timer of node {id} fires at its time {now}")
            }
            Step::Flush(id) => {
                let n = self.node(id);
                let Some((ticket, up_to)) = n.flushes.pop_front() else {
                    return "flush: none pending".into();
                };
                n.core.log_mut().complete_flush(ticket);
                let now = n.now;
                n.core.flushed(up_to, now);
                self.after_step(id);
                format!("node {id} completes flush up to {up_to}")
            }
            Step::Crash(id) => {
                self.crashes_left -= 1;
                let n = self.node(id);
                let mut log = n.core.log().clone();
                log.crash();
                let durable = log.end_offset();
                n.life += 1;
                n.flushes.clear();
                n.inbound.clear();
                let rng = Box::new(ModelRng(n.rng.clone()));
                match RaftCore::new(n.core.config().clone(), log, n.election.clone(), rng, n.now) {
                    Ok(core) => n.core = core,
                    Err(e) => {
                        self.oracle.fail(
                            inv::CORE_CONSISTENCY,
                            format!("node {id} failed to restart: {e}"),
                        );
                        return format!("crash node {id}: restart failed");
                    }
                }
                self.max_hw[idx(id)] = None;
                // Connections to the old incarnation are gone.
                self.net
                    .retain(|(_, m)| !matches!(m, Msg::Response { to, .. } if *to == id));
                self.after_step(id);
                format!("crash-restart node {id} (log kept up to its durable end {durable})")
            }
            Step::Propose(id) => {
                self.proposals_left -= 1;
                let value = Bytes::from(format!("v{}", self.next_value));
                self.next_value += 1;
                let n = self.node(id);
                let (now, life, epoch) = (n.now, n.life, n.core.epoch());
                match n.core.propose(vec![value.clone()], now) {
                    Ok(last) => {
                        self.pending.insert((id, life, epoch, last), value.clone());
                        self.after_step(id);
                        format!(
                            "client proposes {:?} at leader {id} (offset {last})",
                            String::from_utf8_lossy(&value)
                        )
                    }
                    Err(e) => {
                        self.after_step(id);
                        format!("client proposes at node {id}: refused ({e})")
                    }
                }
            }
            Step::AddVoter(id) | Step::RemoveVoter(id) => {
                self.changes_left -= 1;
                let request = if let Step::AddVoter(_) = step {
                    let o = self.nodes[idx(OBSERVER)].core.config();
                    Request::AddRaftVoter(AddRaftVoterRequest {
                        cluster_id: Some(CLUSTER_ID.into()),
                        timeout_ms: 5000,
                        voter_id: OBSERVER,
                        voter_directory_id: o.directory_id,
                        listeners: o.listeners.clone(),
                        ack_when_committed: true,
                        derivation: None,
                    })
                } else {
                    Request::RemoveRaftVoter(RemoveRaftVoterRequest {
                        cluster_id: Some(CLUSTER_ID.into()),
                        voter_id: REMOVED,
                        voter_directory_id: dir_id(REMOVED),
                        derive_directory_id: false,
                    })
                };
                let text = format!("admin asks leader {id}: {:?}", request.api());
                let n = self.node(id);
                let token = n.next_inbound;
                n.next_inbound += 1;
                n.inbound.insert(token, Origin::Admin);
                let now = n.now;
                n.core.handle_request(token, request, now);
                self.after_step(id);
                text
            }
        }
    }

    fn fail(&mut self, invariant: &'static str, msg: String) {
        self.oracle.fail(invariant, msg);
    }

    /// Checks every property; the first failure is kept in the oracle.
    fn check(&mut self) {
        // Election safety.
        for i in 0..NODES {
            let c = &self.nodes[i].core;
            if c.role() == Role::Leader {
                let (id, epoch) = (self.nodes[i].id, c.epoch());
                self.oracle.observe_leader(id, epoch);
            }
        }
        // Log matching against every batch ever seen.
        for i in 0..NODES {
            let (nodes, oracle) = (&self.nodes, &mut self.oracle);
            let id = nodes[i].id;
            let mut prev = None;
            for b in nodes[i].core.log().batches() {
                let key = (b.base_offset, b.epoch);
                oracle.observe_batch(id, key, batch_hash(b), prev);
                prev = Some(key);
            }
        }
        // Log matching between the current logs: the same (base, epoch)
        // implies identical logs up to and including that batch.
        for i in 0..NODES {
            for j in i + 1..NODES {
                self.oracle.checks += 1;
                let a = self.nodes[i].core.log().batches();
                let b = self.nodes[j].core.log().batches();
                let last_common = a
                    .iter()
                    .enumerate()
                    .rev()
                    .find(|(_, x)| {
                        b.iter()
                            .any(|y| y.base_offset == x.base_offset && y.epoch == x.epoch)
                    })
                    .map(|(k, x)| (k, x.base_offset));
                if let Some((k, base)) = last_common {
                    let ka = &a[..=k];
                    let kb_end = b.partition_point(|y| y.base_offset <= base);
                    let kb = &b[..kb_end];
                    if ka != kb {
                        let msg = format!(
                            "nodes {} and {} both hold a batch at ({base}, {}) but their logs differ up to it",
                            i + 1,
                            j + 1,
                            a[k].epoch
                        );
                        self.fail(inv::LOG_MATCHING, msg);
                    }
                }
            }
        }
        // Committed prefixes, high watermarks, core consistency.
        for i in 0..NODES {
            let id = self.nodes[i].id;
            if let Some(v) = self.nodes[i].core.violations().first() {
                let msg = format!("node {id}: {v}");
                self.fail(inv::CORE_CONSISTENCY, msg);
            }
            let Some(hw) = self.nodes[i].core.high_watermark() else {
                continue;
            };
            if let Some(max) = self.max_hw[i] {
                if hw < max {
                    self.fail(
                        inv::HW_MONOTONIC,
                        format!("node {id}: high watermark went from {max} to {hw}"),
                    );
                }
            }
            self.max_hw[i] = Some(self.max_hw[i].map_or(hw, |m| m.max(hw)));
            let n = &self.nodes[i];
            let leader = n.core.role() == Role::Leader;
            let below: Vec<Batch> = n
                .core
                .log()
                .batches()
                .iter()
                .take_while(|b| b.next_offset() <= hw)
                .cloned()
                .collect();
            for b in &below {
                self.commit(id, b, leader);
            }
        }
        // A batch a leader commits is durable on a majority of its voters.
        let commits = std::mem::take(&mut self.new_commits);
        for &(leader, base, epoch, next) in &commits {
            self.oracle.checks += 1;
            let voters = self.nodes[idx(leader)].core.voters().clone();
            let durable = voters
                .ids()
                .filter(|v| {
                    (1..=NODES as NodeId).contains(v) && {
                        let log = self.nodes[idx(*v)].core.log();
                        log.durable_end() >= next
                            && log
                                .batches()
                                .iter()
                                .any(|b| b.base_offset == base && b.epoch == epoch)
                    }
                })
                .count();
            if durable < voters.len() / 2 + 1 {
                self.fail(
                    inv::COMMITTED_DURABLE,
                    format!(
                        "leader {leader} committed batch ({base}, {epoch}) durable on only {durable} of {} voters",
                        voters.len()
                    ),
                );
            }
        }
        self.new_commits = commits;
        // Leader completeness: a leader of epoch E holds every batch
        // committed in an epoch before E.
        for i in 0..NODES {
            let core = &self.nodes[i].core;
            if core.role() != Role::Leader {
                continue;
            }
            self.oracle.checks += 1;
            let log = core.log();
            let missing = self.committed.iter().find(|(c, e)| {
                *e < core.epoch()
                    && c.base_offset >= log.start_offset()
                    && !log.batches().iter().any(|b| b == c)
            });
            if let Some((c, _)) = missing {
                let msg = format!(
                    "leader {} of epoch {} lacks committed batch ({}, {})",
                    i + 1,
                    core.epoch(),
                    c.base_offset,
                    c.epoch
                );
                self.fail(inv::COMMITTED_DURABLE, msg);
            }
        }
        // A leader's committed voter set is the one in effect at HW - 1 in
        // the committed history.
        for i in 0..NODES {
            let core = &self.nodes[i].core;
            if core.role() != Role::Leader {
                continue;
            }
            let Some(hw) = core.high_watermark() else {
                continue;
            };
            self.oracle.checks += 1;
            let expected = self.oracle.voters_at(hw - 1).clone();
            let actual = core.committed_voters();
            if actual.as_ref() != Some(&expected) {
                let msg = format!(
                    "leader {} (HW {hw}) reports committed voters {:?}, the committed history says {expected}",
                    i + 1,
                    actual.map(|v| v.to_string())
                );
                self.fail(inv::COMMITTED_VOTERS, msg);
            }
        }
        // Acknowledged proposals: present once, unchanged, in ack order.
        self.oracle.checks += 1;
        let mut history: Vec<(i64, &Bytes)> = Vec::new();
        for (b, _) in &self.committed {
            for (k, r) in b.records.iter().enumerate() {
                if let Record::Data(d) = r {
                    history.push((b.base_offset + k as i64, d));
                }
            }
        }
        let mut seen = HashSet::new();
        let mut failure = None;
        for (_, v) in &history {
            if !seen.insert(*v) {
                failure = Some(format!(
                    "value {:?} appears twice in the committed history",
                    String::from_utf8_lossy(v)
                ));
            }
        }
        let mut last_pos = None;
        for (v, offset) in &self.acked {
            match history.iter().position(|(o, x)| o == offset && *x == v) {
                None => {
                    failure = Some(format!(
                        "acknowledged {:?} at offset {offset} is not in the committed history (lost or changed)",
                        String::from_utf8_lossy(v)
                    ));
                }
                Some(p) => {
                    if last_pos.is_some_and(|l| p <= l) {
                        failure = Some(format!(
                            "acknowledged {:?} precedes an earlier acknowledgement in the committed history",
                            String::from_utf8_lossy(v)
                        ));
                    }
                    last_pos = Some(p);
                }
            }
        }
        if let Some(f) = failure {
            self.fail(inv::COMMITTED_DURABLE, f);
        }
    }

    fn fingerprint(&self) -> u64 {
        let mut h = DefaultHasher::new();
        for n in &self.nodes {
            n.fingerprint().hash(&mut h);
        }
        self.max_hw.hash(&mut h);
        for (m, _) in &self.net {
            m.hash(&mut h);
        }
        (
            self.proposals_left,
            self.crashes_left,
            self.drops_left,
            self.dups_left,
            self.changes_left,
            self.timers_left,
            self.next_value,
        )
            .hash(&mut h);
        for (b, e) in &self.committed {
            b.hash(&mut h);
            e.hash(&mut h);
        }
        self.oracle.leaders_digest().hash(&mut h);
        self.pending.hash(&mut h);
        self.acked.hash(&mut h);
        self.admin_results.hash(&mut h);
        h.finish()
    }

    fn summary(&self) -> String {
        let mut s = String::new();
        for n in &self.nodes {
            let c = &n.core;
            let _ = writeln!(
                s,
                "  n{} {:?}@{} leader={:?} end={} durable={} hw={:?} voters=[{}] t={}",
                n.id,
                c.role(),
                c.epoch(),
                c.leader(),
                c.log().end_offset(),
                c.log().durable_end(),
                c.high_watermark(),
                c.voters()
                    .ids()
                    .map(|i| i.to_string())
                    .collect::<Vec<_>>()
                    .join(","),
                n.now
            );
        }
        let _ = write!(
            s,
            "  in flight: {}, acked: {:?}",
            self.net.len(),
            self.acked
                .iter()
                .map(|(v, o)| format!("{}@{o}", String::from_utf8_lossy(v)))
                .collect::<Vec<_>>()
        );
        s
    }

    /// True when node `leader` leads, every other node follows it with a
    /// known high watermark and nothing is in flight or pending.
    fn settled(&self) -> bool {
        let Some(l) = self.nodes.iter().find(|n| n.core.role() == Role::Leader) else {
            return false;
        };
        let epoch = l.core.epoch();
        self.net.is_empty()
            && self.nodes.iter().all(|n| n.flushes.is_empty())
            && l.core.high_watermark().is_some()
            && self.nodes.iter().all(|n| {
                n.id == l.id
                    || (n.core.role() == Role::Follower
                        && n.core.epoch() == epoch
                        && n.core.high_watermark() == l.core.high_watermark())
            })
    }
}

/// Runs the check and returns its figures.
pub fn run(opts: &ModelOptions) -> ModelReport {
    let started = Instant::now();
    let mut report = ModelReport::default();
    let mut init = World::new(opts);
    init.check();
    // Warm-up: a deterministic fair schedule (flushes, then the oldest
    // message, then the earliest timer) until a leader is settled.
    let mut prefix: Vec<Step> = Vec::new();
    if opts.warm {
        let saved = (init.timers_left, init.dups_left, init.drops_left);
        init.timers_left = u8::MAX;
        while !init.settled() && prefix.len() < 5_000 {
            // Fetches ping-pong between leaderless replicas without time
            // passing: while there is no leader, timers go first.
            let leader = init.nodes.iter().any(|n| n.core.role() == Role::Leader);
            let urgent = init.net.iter().find(|(_, m)| {
                leader
                    || !matches!(
                        m,
                        Msg::Request {
                            request: Request::Fetch(_),
                            ..
                        } | Msg::Response {
                            response: Response::Fetch(_),
                            ..
                        }
                    )
            });
            let step = if let Some(n) = init.nodes.iter().find(|n| !n.flushes.is_empty()) {
                Step::Flush(n.id)
            } else if let Some((h, _)) = urgent {
                Step::Deliver {
                    msg: *h,
                    keep: false,
                }
            } else {
                let n = init
                    .nodes
                    .iter()
                    .min_by_key(|n| (n.core.next_deadline(), n.id))
                    .map(|n| n.id)
                    .unwrap_or(1);
                init.timers_left = u8::MAX;
                Step::Timer(n)
            };
            init.apply(step);
            init.check();
            prefix.push(step);
        }
        assert!(
            init.settled(),
            "warm-up did not settle after {} steps:\n{}\n{:?}",
            prefix.len(),
            init.summary(),
            init.net
                .iter()
                .map(|(_, m)| m.describe())
                .collect::<Vec<_>>()
        );
        (init.timers_left, init.dups_left, init.drops_left) = saved;
        report.warmup_steps = prefix.len();
    }
    init.check();
    let mut search = Search {
        opts,
        links: vec![(u32::MAX, Step::Timer(0))],
        children: vec![(0, 0)],
        visited: HashSet::new(),
        report,
        stop: false,
        failed_at: None,
        failure_text: ("", String::new()),
    };
    search.visited.insert(init.fingerprint());
    search.report.exhaustive = true;
    let mut depth = 0;
    let mut level_end = 1;
    while depth < opts.max_depth {
        search.walk(&init, 0, 0, depth);
        if let Some(last) = search.failed_at {
            let (inv, msg) = search.failure_text.clone();
            let trace = render_trace(&init, &search.links, last);
            search.report.failure = Some((inv, msg, trace));
            search.report.max_depth = depth + 1;
            break;
        }
        if search.stop {
            search.report.exhaustive = false;
            search.report.max_depth = depth + 1;
            break;
        }
        let new = search.links.len() - level_end;
        level_end = search.links.len();
        depth += 1;
        search.report.max_depth = depth;
        search.report.complete_depth = depth;
        println!(
            "  [{}] depth {depth}: {new} new states, {} total, {} transitions, {:.1}s",
            opts.name,
            search.links.len(),
            search.report.transitions,
            started.elapsed().as_secs_f64()
        );
        if new == 0 {
            break;
        }
    }
    let mut report = search.report;
    report.states = search.links.len();
    report.seconds = started.elapsed().as_secs_f64();
    report
}

/// The breadth-first search. Only the parent links of the states are kept:
/// to expand a level, the tree of parent links is walked depth-first from
/// the initial state, re-applying each step, so that memory holds one world
/// per level instead of a whole frontier of worlds.
struct Search<'a> {
    opts: &'a ModelOptions,
    /// Per state: its parent and the step from it.
    links: Vec<(u32, Step)>,
    /// Per state: the range of its children in `links`.
    children: Vec<(u32, u32)>,
    visited: HashSet<u64>,
    report: ModelReport,
    /// The state bound was hit.
    stop: bool,
    /// The state (index in `links`) where a property failed.
    failed_at: Option<u32>,
    failure_text: (&'static str, String),
}

impl Search<'_> {
    fn walk(&mut self, w: &World, index: u32, level: usize, target: usize) {
        if self.stop || self.failed_at.is_some() {
            return;
        }
        if level == target {
            self.expand(w, index);
            return;
        }
        let (a, b) = self.children[index as usize];
        for c in a..b {
            let mut next = w.clone();
            next.apply(self.links[c as usize].1);
            next.check();
            self.walk(&next, c, level + 1, target);
        }
    }

    fn expand(&mut self, world: &World, index: u32) {
        let first = self.links.len() as u32;
        for step in world.enabled(self.opts) {
            let mut w = world.clone();
            w.apply(step);
            let before = w.oracle.checks;
            w.check();
            self.report.checks += w.oracle.checks - before;
            self.report.transitions += 1;
            if let Some(f) = &w.oracle.failure {
                self.failure_text = f.clone();
                self.links.push((index, step));
                self.failed_at = Some((self.links.len() - 1) as u32);
                return;
            }
            if !self.visited.insert(w.fingerprint()) {
                continue;
            }
            if !w.acked.is_empty() {
                self.report.states_with_ack += 1;
            }
            if w.admin_results.contains(&"NONE") {
                self.report.states_with_change += 1;
            }
            self.links.push((index, step));
            self.children.push((0, 0));
            if self.links.len() >= self.opts.max_states {
                self.stop = true;
                return;
            }
        }
        self.children[index as usize] = (first, self.links.len() as u32);
    }
}

/// Replays the path to state `last` and describes every step.
fn render_trace(init: &World, links: &[(u32, Step)], last: u32) -> String {
    let mut path = Vec::new();
    let mut at = last;
    while at != 0 && at != u32::MAX {
        let (parent, step) = links[at as usize];
        path.push(step);
        at = parent;
    }
    path.reverse();
    let mut w = init.clone();
    let mut out = String::new();
    let _ = writeln!(out, "initial state:\n{}", w.summary());
    for (k, s) in path.iter().enumerate() {
        let text = w.apply(*s);
        w.check();
        let _ = writeln!(out, "step {}: {text}\n{}", k + 1, w.summary());
        if let Some((inv, msg)) = &w.oracle.failure {
            let _ = writeln!(out, "  => {inv} violated: {msg}");
            break;
        }
    }
    out
}
