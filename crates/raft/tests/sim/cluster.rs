//! A simulated KRaft cluster: nodes running [`RaftCore`] over a simulated
//! network and disk, driven by a seeded PRNG, with faults and a workload.

use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap, VecDeque};

use bytes::Bytes;
use kraft_raft::message::{
    AddRaftVoterRequest, ApiVersionsResponse, RemoveRaftVoterRequest, Request, Response,
    VoterChangeResponse,
};
use kraft_raft::*;

use super::oracle::{batch_hash, inv, same_keys, voter_sets_overlap, BatchKey, Oracle};

const LISTENER: &str = "CONTROLLER";
const CLUSTER_ID: &str = "sim-cluster-0000000000";

/// Knobs of one simulation run.
#[derive(Clone, Debug)]
pub struct SimOptions {
    /// The seed; everything else is derived from it.
    pub seed: u64,
    /// Length of the fault phase (simulated ms).
    pub fault_ms: i64,
    /// After healing, a proposal must commit within this bound.
    pub liveness_bound_ms: i64,
}

impl SimOptions {
    /// Defaults for `seed`.
    pub fn new(seed: u64) -> Self {
        let fault_ms = std::env::var("SIM_FAULT_MS")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(20_000);
        SimOptions {
            seed,
            fault_ms,
            liveness_bound_ms: 12_000,
        }
    }
}

/// What one seed did.
#[derive(Clone, Debug, Default)]
pub struct SeedReport {
    /// Simulated time (ms).
    pub sim_ms: i64,
    /// Events processed.
    pub events: u64,
    /// Faults injected by kind.
    pub faults: BTreeMap<&'static str, u64>,
    /// Elections started (candidacies).
    pub elections: u64,
    /// Distinct epochs with a leader.
    pub leader_epochs: u64,
    /// Voter changes completed (add/remove committed on a leader).
    pub voter_changes: u64,
    /// Admin/auto-join outcome counts by error name.
    pub voter_rpc_results: BTreeMap<&'static str, u64>,
    /// Invariant checks evaluated.
    pub checks: u64,
    /// Proposals committed.
    pub committed_proposals: u64,
    /// Batches in the committed prefix.
    pub committed_batches: u64,
    /// Snapshots installed from a leader.
    pub snapshots_installed: u64,
    /// Messages delivered / dropped.
    pub messages_delivered: u64,
    /// Messages dropped.
    pub messages_dropped: u64,
    /// Requests delivered, by API.
    pub requests: BTreeMap<String, u64>,
    /// Number of voters / observers / kraft.version of the run.
    pub shape: (usize, usize, i16),
    /// First failure: (invariant, message).
    pub failure: Option<(&'static str, String)>,
}

#[derive(Clone, Debug)]
enum Msg {
    Request {
        from: NodeId,
        from_life: u32,
        correlation: u64,
        /// The id the sender used for the destination (negative for
        /// bootstrap servers); responses are reported from it.
        alias: NodeId,
        request: Request,
    },
    Response {
        from: NodeId,
        to_life: u32,
        correlation: u64,
        response: Response,
    },
}

#[derive(Clone, Debug)]
enum EventKind {
    Deliver {
        to: NodeId,
        msg: Msg,
    },
    SendFailure {
        to: NodeId,
        to_life: u32,
        correlation: u64,
        dest: NodeId,
    },
    FlushDone {
        node: NodeId,
        life: u32,
        ticket: FlushTicket,
        up_to: i64,
    },
    Tick {
        node: NodeId,
        life: u32,
    },
    Propose,
    Admin,
    Fault,
    Unblock {
        links: Vec<(NodeId, NodeId)>,
    },
    Restart {
        node: NodeId,
    },
    Snapshot,
    Heal,
}

struct Event {
    time: i64,
    seq: u64,
    kind: EventKind,
}

impl PartialEq for Event {
    fn eq(&self, o: &Self) -> bool {
        (self.time, self.seq) == (o.time, o.seq)
    }
}
impl Eq for Event {}
impl PartialOrd for Event {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Event {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        (self.time, self.seq).cmp(&(o.time, o.seq))
    }
}

/// Who sent a request a node is answering: a peer (with the sender's
/// process life, so answers to a crashed process are dropped) or the admin
/// client. Shared with the model checker.
#[derive(Clone, Debug, Hash)]
pub(crate) enum Origin {
    Peer {
        from: NodeId,
        from_life: u32,
        correlation: u64,
        alias: NodeId,
    },
    Admin,
}

struct Node {
    id: NodeId,
    cfg: RaftConfig,
    core: Option<RaftCore<MemoryLog>>,
    down_log: Option<MemoryLog>,
    election: Option<ElectionState>,
    life: u32,
    scheduled_tick: i64,
    inbound: BTreeMap<InboundId, Origin>,
    next_inbound: u64,
    slow_disk_until: i64,
    // Oracle bookkeeping for this node.
    mirror: VecDeque<(i64, i32, u64, i64)>,
    mirror_unchecked: bool,
    max_hw: Option<i64>,
    hw_checked: i64,
    applied_next: i64,
    leader_epochs_seen: i32,
    voter_hist: (usize, Option<i64>),
    stats_acc: CoreStats,
    disk_generation: u32,
    /// Completion time of the last issued flush (flushes complete in order).
    last_flush_done: i64,
}

/// The simulated cluster.
pub struct Sim {
    opts: SimOptions,
    rng: SplitMix64,
    now: i64,
    seq: u64,
    queue: BinaryHeap<Reverse<Event>>,
    nodes: BTreeMap<NodeId, Node>,
    addresses: BTreeMap<Address, NodeId>,
    blocked: BTreeMap<(NodeId, NodeId), u32>,
    drop_p: u64,
    dup_p: u64,
    kraft_version: i16,
    oracle: Oracle,
    healed_at: Option<i64>,
    live_at: Option<i64>,
    proposal_counter: u64,
    proposals: BTreeMap<(NodeId, u32, i32, i64), i64>,
    admin_pending: Option<(NodeId, u32, InboundId, i64, bool)>,
    report: SeedReport,
    trace: Option<(NodeId, i64)>,
}

fn dir_id(id: NodeId, generation: u32) -> Uuid {
    Uuid::from_u128(
        0xD1D0_0000_0000_0000_0000_0000_0000_0000u128
            + ((id as u128) << 16)
            + generation as u128
            + 1,
    )
}

impl Sim {
    /// Builds a cluster for `opts.seed`.
    pub fn new(opts: SimOptions) -> Self {
        let mut rng = SplitMix64::new(opts.seed ^ 0x005E_ED0F_4AF7);
        let voters = 3 + rng.below(3) as usize;
        let observers = rng.below(3) as usize;
        let kraft_version: i16 = if rng.below(6) == 0 { 0 } else { 1 };
        let drop_p = rng.below(40) as u64; // per mille
        let dup_p = rng.below(30) as u64;
        let voter_ids: Vec<NodeId> = (1..=voters as NodeId).collect();
        let observer_ids: Vec<NodeId> =
            (voters as NodeId + 1..=(voters + observers) as NodeId).collect();
        let endpoints =
            |id: NodeId| Endpoints::single(LISTENER, format!("node{id}"), 9000 + id as u16);
        let initial = VoterSet::new(voter_ids.iter().map(|id| {
            let key = if kraft_version >= 1 {
                ReplicaKey::of(*id, dir_id(*id, 0))
            } else {
                ReplicaKey::without_directory(*id)
            };
            VoterNode::new(key, endpoints(*id), KRaftVersionRange::new(0, 1))
        }));
        let mut nodes = BTreeMap::new();
        let mut addresses = BTreeMap::new();
        for id in voter_ids.iter().chain(observer_ids.iter()).copied() {
            let mut cfg = RaftConfig::new(id, dir_id(id, 0), CLUSTER_ID, endpoints(id), LISTENER);
            cfg.election_timeout_ms = 300;
            cfg.fetch_timeout_ms = 600;
            cfg.election_backoff_max_ms = 300;
            cfg.request_timeout_ms = 600;
            cfg.retry_backoff_ms = 20;
            cfg.fetch_max_wait_ms = 150;
            cfg.fetch_max_bytes = 300 + rng.below(600) as i32;
            cfg.fetch_snapshot_max_bytes = 200 + rng.below(2000) as i32;
            cfg.auto_join = kraft_version >= 1 && rng.below(3) != 0;
            let log = if kraft_version >= 1 {
                cfg.bootstrap_servers = voter_ids
                    .iter()
                    .chain(observer_ids.iter())
                    .filter(|v| **v != id)
                    .map(|v| Address::new(format!("node{v}"), 9000 + *v as u16))
                    .collect();
                let voters = voter_ids.contains(&id).then(|| initial.clone());
                MemoryLog::with_bootstrap(SnapshotControl {
                    voters,
                    kraft_version: Some(1),
                })
            } else {
                cfg.static_voters = initial.clone();
                MemoryLog::new()
            };
            addresses.insert(Address::new(format!("node{id}"), 9000 + id as u16), id);
            nodes.insert(
                id,
                Node {
                    id,
                    cfg,
                    core: None,
                    down_log: Some(log),
                    election: None,
                    life: 0,
                    scheduled_tick: i64::MAX,
                    inbound: BTreeMap::new(),
                    next_inbound: 1,
                    slow_disk_until: 0,
                    mirror: VecDeque::new(),
                    mirror_unchecked: false,
                    max_hw: None,
                    hw_checked: 0,
                    applied_next: 0,
                    leader_epochs_seen: -1,
                    voter_hist: (0, None),
                    stats_acc: CoreStats::default(),
                    disk_generation: 0,
                    last_flush_done: 0,
                },
            );
        }
        let report = SeedReport {
            shape: (voters, observers, kraft_version),
            ..Default::default()
        };
        let mut sim = Sim {
            opts,
            rng,
            now: 0,
            seq: 0,
            queue: BinaryHeap::new(),
            nodes,
            addresses,
            blocked: BTreeMap::new(),
            drop_p,
            dup_p,
            kraft_version,
            oracle: Oracle::new(initial),
            healed_at: None,
            live_at: None,
            proposal_counter: 0,
            proposals: BTreeMap::new(),
            admin_pending: None,
            report,
            trace: std::env::var("SIM_TRACE").ok().and_then(|v| {
                let mut it = v.split(',');
                let node = it.next()?.trim().parse().ok()?;
                let from = it.next().and_then(|t| t.trim().parse().ok()).unwrap_or(0);
                Some((node, from))
            }),
        };
        let ids: Vec<NodeId> = sim.nodes.keys().copied().collect();
        for id in ids {
            sim.start_node(id);
        }
        sim.schedule(20, EventKind::Propose);
        sim.schedule(300, EventKind::Fault);
        sim.schedule(500, EventKind::Admin);
        sim.schedule(1000, EventKind::Snapshot);
        let heal = sim.opts.fault_ms;
        sim.schedule(heal, EventKind::Heal);
        sim
    }

    fn schedule(&mut self, delay: i64, kind: EventKind) {
        self.seq += 1;
        self.queue.push(Reverse(Event {
            time: self.now + delay.max(0),
            seq: self.seq,
            kind,
        }));
    }

    fn fault(&mut self, kind: &'static str) {
        *self.report.faults.entry(kind).or_insert(0) += 1;
    }

    /// Runs to completion and returns the report.
    pub fn run(mut self) -> SeedReport {
        let limit = self.opts.fault_ms + self.opts.liveness_bound_ms + 1_000;
        while let Some(Reverse(ev)) = self.queue.pop() {
            if ev.time > limit {
                break;
            }
            self.now = ev.time;
            self.report.events += 1;
            self.handle_event(ev.kind);
            self.check_all();
            if let Some((inv, msg)) = self.oracle.failure.take() {
                self.oracle.failure = Some((inv, format!("at {} ms: {msg}", self.now)));
                break;
            }
            if let Some(live) = self.live_at {
                if self.now >= live + 500 {
                    break;
                }
            }
        }
        if self.oracle.failure.is_none() && self.live_at.is_none() {
            let roles: Vec<String> = self
                .nodes
                .values()
                .map(|n| match &n.core {
                    Some(c) => format!(
                        "{}:{:?}@{} hw={:?} leo={} start={} voters={} history={:?}",
                        n.id,
                        c.role(),
                        c.epoch(),
                        c.high_watermark(),
                        c.log().end_offset(),
                        c.log().start_offset(),
                        c.voters(),
                        c.control_state()
                            .voter_history()
                            .iter()
                            .map(|(o, v)| (*o, v.ids().collect::<Vec<_>>()))
                            .collect::<Vec<_>>()
                    ),
                    None => format!("{}:down", n.id),
                })
                .collect();
            self.oracle.fail(
                inv::LIVENESS,
                format!(
                    "no proposal committed within {} ms after healing at {:?}; nodes: {}",
                    self.opts.liveness_bound_ms,
                    self.healed_at,
                    roles.join(", ")
                ),
            );
        }
        self.finish()
    }

    fn finish(mut self) -> SeedReport {
        self.report.sim_ms = self.now;
        self.report.checks = self.oracle.checks;
        self.report.leader_epochs = self.oracle.leader_epochs() as u64;
        self.report.committed_batches = self.oracle.committed_end as u64;
        for n in self.nodes.values_mut() {
            if let Some(c) = &n.core {
                add_stats(&mut n.stats_acc, c.stats());
            }
            self.report.elections += n.stats_acc.elections_started;
            self.report.voter_changes += n.stats_acc.voter_changes_completed;
            self.report.snapshots_installed += n.stats_acc.snapshots_installed;
        }
        self.report.failure = self.oracle.failure.take();
        self.report
    }

    // ------------------------------------------------------------------
    // Nodes

    fn start_node(&mut self, id: NodeId) {
        let seed = self.opts.seed;
        let now = self.now;
        let Some(node) = self.nodes.get_mut(&id) else {
            return;
        };
        let Some(log) = node.down_log.take() else {
            return;
        };
        node.life += 1;
        let rng = Box::new(SplitMix64::new(
            seed.wrapping_mul(31)
                .wrapping_add((id as u64) << 20)
                .wrapping_add(node.life as u64),
        ));
        match RaftCore::new(node.cfg.clone(), log, node.election.clone(), rng, now) {
            Ok(core) => node.core = Some(core),
            Err(e) => {
                self.oracle.fail(
                    inv::CORE_CONSISTENCY,
                    format!("node {id} failed to start: {e}"),
                );
                return;
            }
        }
        node.max_hw = None;
        node.applied_next = 0;
        node.mirror_unchecked = true;
        node.hw_checked = node
            .core
            .as_ref()
            .map(|c| c.log().start_offset())
            .unwrap_or(0);
        node.scheduled_tick = i64::MAX;
        node.inbound.clear();
        self.after_node_step(id);
    }

    fn crash_node(&mut self, id: NodeId) {
        let Some(node) = self.nodes.get_mut(&id) else {
            return;
        };
        let Some(core) = node.core.take() else {
            return;
        };
        add_stats(&mut node.stats_acc, core.stats());
        let mut log = core.into_log();
        log.crash();
        node.down_log = Some(log);
        node.inbound.clear();
        node.mirror_unchecked = true;
        if self.admin_pending.is_some_and(|(n, ..)| n == id) {
            self.admin_pending = None;
        }
    }

    fn is_up(&self, id: NodeId) -> bool {
        self.nodes.get(&id).is_some_and(|n| n.core.is_some())
    }

    fn life(&self, id: NodeId) -> u32 {
        self.nodes.get(&id).map(|n| n.life).unwrap_or(0)
    }

    fn with_core<R>(
        &mut self,
        id: NodeId,
        f: impl FnOnce(&mut RaftCore<MemoryLog>, i64) -> R,
    ) -> Option<R> {
        let now = self.now;
        let r = self.nodes.get_mut(&id)?.core.as_mut().map(|c| f(c, now));
        if r.is_some() {
            self.after_node_step(id);
        }
        r
    }

    /// Executes the actions of a node and reschedules its timer.
    fn after_node_step(&mut self, id: NodeId) {
        loop {
            let actions = match self.nodes.get_mut(&id).and_then(|n| n.core.as_mut()) {
                Some(c) => c.take_actions(),
                None => return,
            };
            if actions.is_empty() {
                break;
            }
            for a in actions {
                self.execute(id, a);
            }
        }
        let now = self.now;
        let Some(node) = self.nodes.get_mut(&id) else {
            return;
        };
        let Some(core) = &node.core else {
            return;
        };
        let next = core.next_deadline().max(now + 1);
        if next < i64::MAX / 2 && (next < node.scheduled_tick || node.scheduled_tick <= now) {
            node.scheduled_tick = next;
            let life = node.life;
            self.schedule(next - now, EventKind::Tick { node: id, life });
        }
    }

    fn execute(&mut self, id: NodeId, action: Action) {
        match action {
            Action::PersistElectionState { state, .. } => {
                if let Some(n) = self.nodes.get_mut(&id) {
                    n.election = Some(state);
                }
            }
            Action::Send {
                correlation_id,
                destination,
                address,
                request,
            } => {
                let dest = if destination >= 0 {
                    Some(destination)
                } else {
                    address.and_then(|a| self.addresses.get(&a).copied())
                };
                let life = self.life(id);
                let Some(dest) = dest else {
                    self.schedule(
                        5,
                        EventKind::SendFailure {
                            to: id,
                            to_life: life,
                            correlation: correlation_id,
                            dest: destination,
                        },
                    );
                    return;
                };
                if let Request::ApiVersions = request {
                    // The driver answers the probe on behalf of the peer.
                    if !self.is_up(dest) {
                        self.schedule(
                            2,
                            EventKind::SendFailure {
                                to: id,
                                to_life: life,
                                correlation: correlation_id,
                                dest: destination,
                            },
                        );
                        return;
                    }
                    let range = self.nodes.get(&dest).map(|n| n.cfg.supported_kraft_version);
                    let response = Response::ApiVersions(ApiVersionsResponse {
                        error_code: ErrorCode::None,
                        kraft_version: range,
                    });
                    self.send_over_network(
                        dest,
                        id,
                        Msg::Response {
                            from: destination,
                            to_life: life,
                            correlation: correlation_id,
                            response,
                        },
                    );
                    return;
                }
                let msg = Msg::Request {
                    from: id,
                    from_life: life,
                    correlation: correlation_id,
                    alias: destination,
                    request,
                };
                self.send_over_network(id, dest, msg);
            }
            Action::Respond { inbound, response } => {
                let origin = self
                    .nodes
                    .get_mut(&id)
                    .and_then(|n| n.inbound.remove(&inbound));
                match origin {
                    Some(Origin::Peer {
                        from,
                        from_life,
                        correlation,
                        alias,
                    }) => {
                        self.send_over_network(
                            id,
                            from,
                            Msg::Response {
                                from: alias,
                                to_life: from_life,
                                correlation,
                                response,
                            },
                        );
                    }
                    Some(Origin::Admin) => self.admin_response(id, inbound, response),
                    None => {}
                }
            }
            Action::Flush { up_to } => {
                let now = self.now;
                let slow = self.nodes.get(&id).is_some_and(|n| n.slow_disk_until > now);
                let latency = if slow {
                    40 + self.rng.below(300)
                } else {
                    self.rng.below(4)
                };
                let Some(node) = self.nodes.get_mut(&id) else {
                    return;
                };
                let Some(core) = &node.core else {
                    return;
                };
                // A disk completes flushes in the order they were issued.
                let done_at = (now + latency).max(node.last_flush_done);
                node.last_flush_done = done_at;
                let latency = done_at - now;
                let ticket = core.log().issue_flush();
                if self
                    .trace
                    .is_some_and(|(n, from)| (n == id || n == 0) && now >= from)
                {
                    println!(
                        "[{now}] flush issued at {id}: up_to={up_to} {ticket:?} latency={latency}"
                    );
                }
                let life = node.life;
                self.schedule(
                    latency,
                    EventKind::FlushDone {
                        node: id,
                        life,
                        ticket,
                        up_to,
                    },
                );
            }
            Action::LoadSnapshot { id: snap } => self.apply_snapshot(id, snap),
            Action::Committed { batches } => self.apply_committed(id, &batches),
            Action::LeaderChange(_) => {}
            Action::ProposalCompleted {
                epoch,
                last_offset,
                result,
            } => {
                let life = self.life(id);
                if let Some(at) = self.proposals.remove(&(id, life, epoch, last_offset)) {
                    if result == ErrorCode::None {
                        self.report.committed_proposals += 1;
                        if let Some(healed) = self.healed_at {
                            if at >= healed && self.live_at.is_none() {
                                self.live_at = Some(self.now);
                            }
                        }
                    }
                }
            }
        }
    }

    fn send_over_network(&mut self, from: NodeId, to: NodeId, msg: Msg) {
        if self.blocked.get(&(from, to)).is_some_and(|c| *c > 0)
            || (self.rng.below(1000) as u64) < self.drop_p
        {
            self.report.messages_dropped += 1;
            return;
        }
        let delay = 1
            + self.rng.below(6)
            + if self.rng.below(10) == 0 {
                self.rng.below(60)
            } else {
                0
            };
        if (self.rng.below(1000) as u64) < self.dup_p {
            let d2 = 1 + self.rng.below(80);
            self.schedule(
                d2,
                EventKind::Deliver {
                    to,
                    msg: msg.clone(),
                },
            );
        }
        self.schedule(delay, EventKind::Deliver { to, msg });
    }

    // ------------------------------------------------------------------
    // Events

    fn handle_event(&mut self, kind: EventKind) {
        match kind {
            EventKind::Deliver { to, msg } => self.deliver(to, msg),
            EventKind::SendFailure {
                to,
                to_life,
                correlation,
                dest,
            } => {
                if self.life(to) == to_life {
                    self.with_core(to, |c, now| {
                        c.handle_send_failure(correlation, dest, ErrorCode::BrokerNotAvailable, now)
                    });
                }
            }
            EventKind::FlushDone {
                node,
                life,
                ticket,
                up_to,
            } => {
                if self.life(node) == life {
                    if self.traced(node, node) {
                        println!(
                            "[{}] flush done at {node}: up_to={up_to} {ticket:?}",
                            self.now
                        );
                    }
                    self.with_core(node, |c, now| {
                        c.log_mut().complete_flush(ticket);
                        c.flushed(up_to, now);
                    });
                }
            }
            EventKind::Tick { node, life } => {
                let due = self
                    .nodes
                    .get(&node)
                    .is_some_and(|n| n.life == life && n.scheduled_tick == self.now);
                if due {
                    if let Some(n) = self.nodes.get_mut(&node) {
                        n.scheduled_tick = i64::MAX;
                    }
                    self.with_core(node, |c, now| c.tick(now));
                }
            }
            EventKind::Propose => self.propose(),
            EventKind::Admin => self.admin(),
            EventKind::Fault => self.inject_fault(),
            EventKind::Unblock { links } => {
                for l in links {
                    if let Some(c) = self.blocked.get_mut(&l) {
                        *c = c.saturating_sub(1);
                    }
                }
            }
            EventKind::Restart { node } => {
                if self.healed_at.is_none() {
                    self.start_node(node);
                }
            }
            EventKind::Snapshot => self.take_snapshot(),
            EventKind::Heal => self.heal(),
        }
    }

    fn traced(&self, a: NodeId, b: NodeId) -> bool {
        self.trace
            .is_some_and(|(n, from)| (n == a || n == b || n == 0) && self.now >= from)
    }

    fn deliver(&mut self, to: NodeId, msg: Msg) {
        if self.trace.is_some() {
            let from = match &msg {
                Msg::Request { from, .. } | Msg::Response { from, .. } => *from,
            };
            if self.traced(from, to) {
                let mut text = format!("{msg:?}");
                text.truncate(600);
                let state = self
                    .nodes
                    .get(&to)
                    .and_then(|n| n.core.as_ref())
                    .map(|c| {
                        format!(
                            "{:?}@{} leo={} hw={:?}",
                            c.role(),
                            c.epoch(),
                            c.log().end_offset(),
                            c.high_watermark()
                        )
                    })
                    .unwrap_or_else(|| "down".into());
                println!("[{}] {from} -> {to} ({state}): {text}", self.now);
            }
        }
        if !self.is_up(to) {
            if let Msg::Request {
                from,
                from_life,
                correlation,
                alias,
                ..
            } = msg
            {
                // Connection refused.
                let d = 1 + self.rng.below(3);
                self.schedule(
                    d,
                    EventKind::SendFailure {
                        to: from,
                        to_life: from_life,
                        correlation,
                        dest: alias,
                    },
                );
            }
            return;
        }
        self.report.messages_delivered += 1;
        match msg {
            Msg::Request {
                from,
                from_life,
                correlation,
                alias,
                request,
            } => {
                *self
                    .report
                    .requests
                    .entry(format!("{:?}", request.api()))
                    .or_insert(0) += 1;
                let node = match self.nodes.get_mut(&to) {
                    Some(n) => n,
                    None => return,
                };
                let token = node.next_inbound;
                node.next_inbound += 1;
                node.inbound.insert(
                    token,
                    Origin::Peer {
                        from,
                        from_life,
                        correlation,
                        alias,
                    },
                );
                self.with_core(to, |c, now| c.handle_request(token, request, now));
            }
            Msg::Response {
                from,
                to_life,
                correlation,
                response,
            } => {
                if self.life(to) == to_life {
                    self.with_core(to, |c, now| {
                        c.handle_response(correlation, from, response, now)
                    });
                }
            }
        }
    }

    fn current_leader(&self) -> Option<NodeId> {
        self.nodes
            .values()
            .filter_map(|n| {
                n.core
                    .as_ref()
                    .filter(|c| c.role() == Role::Leader)
                    .map(|c| (c.epoch(), n.id))
            })
            .max()
            .map(|(_, id)| id)
    }

    fn propose(&mut self) {
        let next = 15 + self.rng.below(60);
        self.schedule(next, EventKind::Propose);
        let Some(leader) = self.current_leader() else {
            return;
        };
        let n = 1 + self.rng.below(3);
        let mut records = Vec::new();
        for _ in 0..n {
            self.proposal_counter += 1;
            records.push(Bytes::from(format!(
                "p{}-{}",
                self.opts.seed, self.proposal_counter
            )));
        }
        let life = self.life(leader);
        let result = self.with_core(leader, |c, now| {
            c.propose(records, now).map(|o| (c.epoch(), o))
        });
        if let Some(Ok((epoch, last))) = result {
            self.proposals.insert((leader, life, epoch, last), self.now);
        }
    }

    fn admin(&mut self) {
        let next = 300 + self.rng.below(900);
        self.schedule(next, EventKind::Admin);
        if let Some((_, _, _, sent, _)) = self.admin_pending {
            if self.now - sent < 5_000 {
                return;
            }
            self.admin_pending = None;
        }
        let Some(leader) = self.current_leader() else {
            return;
        };
        // Sometimes ask a random node instead of the leader.
        let target = if self.rng.below(8) == 0 {
            let ids: Vec<NodeId> = self.nodes.keys().copied().collect();
            ids[self.rng.below(ids.len() as i64) as usize]
        } else {
            leader
        };
        if !self.is_up(target) {
            return;
        }
        let voters = match self.nodes.get(&leader).and_then(|n| n.core.as_ref()) {
            Some(c) => c.voters().clone(),
            None => return,
        };
        let all: Vec<NodeId> = self.nodes.keys().copied().collect();
        let non_voters: Vec<NodeId> = all
            .iter()
            .copied()
            .filter(|id| !voters.contains_id(*id) && self.is_up(*id))
            .collect();
        let add = !non_voters.is_empty() && (voters.len() <= 2 || self.rng.below(2) == 0);
        let request = if add {
            let id = non_voters[self.rng.below(non_voters.len() as i64) as usize];
            let Some(node) = self.nodes.get(&id) else {
                return;
            };
            Request::AddRaftVoter(AddRaftVoterRequest {
                cluster_id: if self.rng.below(2) == 0 {
                    None
                } else {
                    Some(CLUSTER_ID.into())
                },
                timeout_ms: 5000,
                voter_id: id,
                voter_directory_id: node.cfg.directory_id,
                listeners: node.cfg.listeners.clone(),
                ack_when_committed: self.rng.below(3) != 0,
                derivation: None,
            })
        } else {
            // Never remove a voter while another voter key is stale (its disk
            // was replaced): the remaining set might lose its majority for good.
            let stale = voters.keys().any(|k| {
                self.nodes
                    .get(&k.id)
                    .is_some_and(|n| k.directory_id != Some(n.cfg.directory_id))
            });
            if stale {
                return;
            }
            // Removing a voter from a two-voter set can deadlock the protocol
            // when the uncommitted record survives only on the removed voter:
            // it no longer campaigns, and the other voter needs its vote but
            // has a shorter log. Kafka has the same hazard, so the workload
            // avoids it.
            if voters.len() <= 2 {
                return;
            }
            let keys: Vec<ReplicaKey> = voters.keys().collect();
            let key = keys[self.rng.below(keys.len() as i64) as usize];
            let dir = match key.directory_id {
                Some(d) => d,
                None => self
                    .nodes
                    .get(&key.id)
                    .map(|n| n.cfg.directory_id)
                    .unwrap_or_default(),
            };
            Request::RemoveRaftVoter(RemoveRaftVoterRequest {
                cluster_id: Some(CLUSTER_ID.into()),
                voter_id: key.id,
                voter_directory_id: dir,
                derive_directory_id: false,
            })
        };
        let Some(node) = self.nodes.get_mut(&target) else {
            return;
        };
        let token = node.next_inbound;
        node.next_inbound += 1;
        node.inbound.insert(token, Origin::Admin);
        let life = node.life;
        self.admin_pending = Some((target, life, token, self.now, add));
        self.with_core(target, |c, now| c.handle_request(token, request, now));
    }

    fn admin_response(&mut self, node: NodeId, token: InboundId, response: Response) {
        let (code, add) = match &response {
            Response::AddRaftVoter(VoterChangeResponse { error_code, .. }) => (*error_code, true),
            Response::RemoveRaftVoter(VoterChangeResponse { error_code, .. }) => {
                (*error_code, false)
            }
            _ => return,
        };
        if self
            .admin_pending
            .is_some_and(|(n, _, t, ..)| n == node && t == token)
        {
            self.admin_pending = None;
        }
        *self
            .report
            .voter_rpc_results
            .entry(code.name())
            .or_insert(0) += 1;
        let mut allowed = vec![
            ErrorCode::None,
            ErrorCode::RequestTimedOut,
            ErrorCode::NotLeaderOrFollower,
            ErrorCode::BrokerNotAvailable,
        ];
        if add {
            allowed.push(ErrorCode::DuplicateVoter);
        } else {
            allowed.push(ErrorCode::VoterNotFound);
        }
        let mut ok = allowed.contains(&code);
        if self.kraft_version == 0 {
            // Static quorum: only "not supported", or errors that precede that
            // check (not the leader, HW not established yet).
            let msg = match &response {
                Response::AddRaftVoter(r) | Response::RemoveRaftVoter(r) => {
                    r.error_message.clone().unwrap_or_default()
                }
                _ => String::new(),
            };
            ok = code == ErrorCode::UnsupportedVersion
                || code == ErrorCode::NotLeaderOrFollower
                || (code == ErrorCode::RequestTimedOut
                    && (msg.contains("establish HWM") || msg.contains("previous voter change")));
        }
        if !ok {
            self.oracle.fail(
                inv::RPC_CONTRACT,
                format!("node {node} answered a voter change with unexpected {code}: {response:?}"),
            );
        }
    }

    fn inject_fault(&mut self) {
        if self.healed_at.is_some() {
            return;
        }
        let next = 150 + self.rng.below(700);
        self.schedule(next, EventKind::Fault);
        let ids: Vec<NodeId> = self.nodes.keys().copied().collect();
        let pick = |s: &mut Self| ids[s.rng.below(ids.len() as i64) as usize];
        match self.rng.below(10) {
            0 | 1 => {
                // Isolate one node.
                let n = pick(self);
                let links: Vec<(NodeId, NodeId)> = ids
                    .iter()
                    .filter(|o| **o != n)
                    .flat_map(|o| [(n, *o), (*o, n)])
                    .collect();
                self.block(links, "partition-isolate");
            }
            2 => {
                // Split in two groups.
                let mut a = Vec::new();
                let mut b = Vec::new();
                for id in &ids {
                    if self.rng.below(2) == 0 {
                        a.push(*id)
                    } else {
                        b.push(*id)
                    }
                }
                let links: Vec<(NodeId, NodeId)> = a
                    .iter()
                    .flat_map(|x| b.iter().flat_map(move |y| [(*x, *y), (*y, *x)]))
                    .collect();
                self.block(links, "partition-split");
            }
            3 => {
                // Asymmetric: one direction only.
                let x = pick(self);
                let y = pick(self);
                if x != y {
                    let links = if self.rng.below(2) == 0 {
                        vec![(x, y)]
                    } else {
                        ids.iter().filter(|o| **o != x).map(|o| (x, *o)).collect()
                    };
                    self.block(links, "partition-asymmetric");
                }
            }
            4 | 5 => {
                let n = pick(self);
                if self.is_up(n) {
                    self.fault("crash-restart");
                    self.crash_node(n);
                    let d = 100 + self.rng.below(1500);
                    self.schedule(d, EventKind::Restart { node: n });
                }
            }
            6 => {
                if let Some(l) = self.current_leader() {
                    self.fault("leader-kill");
                    self.crash_node(l);
                    let d = 100 + self.rng.below(1500);
                    self.schedule(d, EventKind::Restart { node: l });
                }
            }
            7 => {
                let n = pick(self);
                let until = self.now + 300 + self.rng.below(2000);
                if let Some(node) = self.nodes.get_mut(&n) {
                    node.slow_disk_until = until;
                }
                self.fault("slow-disk");
            }
            8 => {
                // Graceful resignation of the leader.
                if let Some(l) = self.current_leader() {
                    self.fault("resign");
                    self.with_core(l, |c, now| {
                        let e = c.epoch();
                        let _ = c.resign(e, now);
                    });
                }
            }
            9 if self.rng.below(3) == 0 => self.replace_disk(),
            _ => {
                // Crash and restart a voter with new endpoints (UpdateRaftVoter).
                let n = pick(self);
                if self.kraft_version >= 1 && self.is_up(n) {
                    self.fault("restart-new-endpoint");
                    self.crash_node(n);
                    if let Some(node) = self.nodes.get_mut(&n) {
                        let port = node
                            .cfg
                            .listeners
                            .address(LISTENER)
                            .map(|a| a.port)
                            .unwrap_or(9000)
                            + 100;
                        node.cfg.listeners = Endpoints::single(LISTENER, format!("node{n}"), port);
                        self.addresses
                            .insert(Address::new(format!("node{n}"), port), n);
                    }
                    let d = 50 + self.rng.below(500);
                    self.schedule(d, EventKind::Restart { node: n });
                }
            }
        }
    }

    /// Replaces the disk of an auto-joining node: new directory id, empty
    /// log. Its old key stays in the voter set until the node's auto-join
    /// removes it. At most one stale voter key at a time, and only with at
    /// least three voters, so a majority of durable copies always survives.
    fn replace_disk(&mut self) {
        if self.kraft_version < 1 {
            return;
        }
        let Some(leader) = self.current_leader() else {
            return;
        };
        // Only with a committed voter set (no change in flight): otherwise
        // some replicas may still count the previous set.
        let voters = match self.nodes.get(&leader).and_then(|n| n.core.as_ref()) {
            Some(c)
                if c.high_watermark().is_some_and(|hw| {
                    c.control_state()
                        .last_voter_set_offset()
                        .is_some_and(|o| o < hw)
                }) =>
            {
                c.voters().clone()
            }
            _ => return,
        };
        if voters.len() < 3 {
            return;
        }
        // No voter key may already be stale (belonging to a replaced disk).
        let stale = voters.keys().any(|k| {
            self.nodes
                .get(&k.id)
                .is_some_and(|n| k.directory_id != Some(n.cfg.directory_id))
        });
        if stale {
            return;
        }
        let candidates: Vec<NodeId> = self
            .nodes
            .values()
            .filter(|n| n.cfg.auto_join && n.core.is_some() && n.id != leader)
            .map(|n| n.id)
            .collect();
        if candidates.is_empty() {
            return;
        }
        let id = candidates[self.rng.below(candidates.len() as i64) as usize];
        self.fault("disk-replace");
        self.crash_node(id);
        if let Some(node) = self.nodes.get_mut(&id) {
            node.disk_generation += 1;
            node.cfg.directory_id = dir_id(id, node.disk_generation);
            node.down_log = Some(MemoryLog::with_bootstrap(SnapshotControl {
                voters: None,
                kraft_version: Some(1),
            }));
            node.election = None;
            node.mirror.clear();
        }
        let d = 50 + self.rng.below(500);
        self.schedule(d, EventKind::Restart { node: id });
    }

    fn block(&mut self, links: Vec<(NodeId, NodeId)>, kind: &'static str) {
        if links.is_empty() {
            return;
        }
        self.fault(kind);
        for l in &links {
            *self.blocked.entry(*l).or_insert(0) += 1;
        }
        let d = 200 + self.rng.below(2500);
        self.schedule(d, EventKind::Unblock { links });
    }

    fn heal(&mut self) {
        self.healed_at = Some(self.now);
        self.blocked.clear();
        self.drop_p = 0;
        self.dup_p = 0;
        let ids: Vec<NodeId> = self.nodes.keys().copied().collect();
        for id in ids {
            if let Some(n) = self.nodes.get_mut(&id) {
                n.slow_disk_until = 0;
            }
            if !self.is_up(id) {
                self.start_node(id);
            }
        }
    }

    fn take_snapshot(&mut self) {
        let next = 700 + self.rng.below(1500);
        self.schedule(next, EventKind::Snapshot);
        let ids: Vec<NodeId> = self.nodes.keys().copied().collect();
        let id = ids[self.rng.below(ids.len() as i64) as usize];
        let kraft = self.kraft_version;
        let keep_tail = self.rng.below(4);
        let Some(core) = self.nodes.get_mut(&id).and_then(|n| n.core.as_mut()) else {
            return;
        };
        let Some(hw) = core.high_watermark() else {
            return;
        };
        // The largest batch boundary at or below the HW, keeping a few batches.
        let boundaries: Vec<i64> = core
            .log()
            .batches()
            .iter()
            .map(|b| b.next_offset())
            .filter(|o| *o <= hw)
            .collect();
        if boundaries.len() <= keep_tail as usize {
            return;
        }
        let end = boundaries[boundaries.len() - 1 - keep_tail as usize];
        let control = core.control_state();
        let voters = if control.voter_history().is_empty() {
            None
        } else {
            control.voter_set_at(end - 1).cloned()
        };
        let kraft_version = (kraft >= 1).then(|| control.kraft_version_at(end - 1));
        let log = core.log_mut();
        if log
            .create_snapshot(
                end,
                SnapshotControl {
                    voters,
                    kraft_version,
                },
            )
            .is_some()
        {
            log.delete_before_latest_snapshot();
            self.fault("snapshot+compaction");
        }
    }

    // ------------------------------------------------------------------
    // State machine application checks

    fn apply_snapshot(&mut self, id: NodeId, snap: SnapshotId) {
        let Some(node) = self.nodes.get_mut(&id) else {
            return;
        };
        let Some(core) = &node.core else {
            return;
        };
        node.applied_next = snap.offset;
        let last = core
            .log()
            .snapshots()
            .find(|(sid, _)| *sid == snap)
            .and_then(|(_, s)| s.batches.last().cloned());
        if let Some(b) = last {
            let h = batch_hash(&b);
            self.oracle.commit(id, &b, h);
        }
    }

    fn apply_committed(&mut self, id: NodeId, batches: &[Batch]) {
        let Some(node) = self.nodes.get_mut(&id) else {
            return;
        };
        let mut next = node.applied_next;
        let mut errors = Vec::new();
        let mut commits = Vec::new();
        for b in batches {
            if b.base_offset != next {
                errors.push(format!(
                    "node {id}: applied batch at {} but expected {next}",
                    b.base_offset
                ));
            }
            next = b.next_offset();
            commits.push((b.clone(), batch_hash(b)));
        }
        node.applied_next = next;
        for e in errors {
            self.oracle.fail(inv::COMMITTED_DURABLE, e);
        }
        let leader_voters = self
            .nodes
            .get(&id)
            .and_then(|n| n.core.as_ref())
            .filter(|c| c.role() == Role::Leader)
            .map(|c| c.voters().clone());
        for (b, h) in commits {
            if self.oracle.commit(id, &b, h) {
                if let Some(v) = &leader_voters {
                    self.check_durable_majority(id, v, b.base_offset, b.epoch, b.next_offset());
                }
            }
        }
    }

    // ------------------------------------------------------------------
    // Invariants

    fn check_all(&mut self) {
        // Election safety first: a second leader is the root cause of most
        // other violations.
        for node in self.nodes.values() {
            if let Some(c) = node.core.as_ref().filter(|c| c.role() == Role::Leader) {
                self.oracle.observe_leader(node.id, c.epoch());
            }
        }
        let ids: Vec<NodeId> = self.nodes.keys().copied().collect();
        for id in ids {
            self.check_node(id);
        }
        self.check_committed_voters();
    }

    fn check_node(&mut self, id: NodeId) {
        let Some(node) = self.nodes.get_mut(&id) else {
            return;
        };
        let Some(core) = &node.core else {
            return;
        };
        let oracle = &mut self.oracle;
        let log = core.log();
        let batches = log.batches();
        let start = log.start_offset();
        let end = log.end_offset();
        let crashed = std::mem::replace(&mut node.mirror_unchecked, false);
        let mut new_commits: Vec<(i64, i32, i64)> = Vec::new();

        // 1. Mirror the log: detect truncations, then observe new batches.
        while node.mirror.front().is_some_and(|(b, ..)| *b < start) {
            node.mirror.pop_front();
        }
        while let Some(&(base, epoch, hash, _)) = node.mirror.back() {
            let present = batch_at(batches, base).is_some_and(|b| b.epoch == epoch);
            if present {
                break;
            }
            node.mirror.pop_back();
            oracle.checks += 1;
            if !crashed
                && base < oracle.committed_end
                && oracle.committed_at(base) == Some((epoch, hash))
            {
                oracle.fail(
                    inv::COMMITTED_DURABLE,
                    format!("node {id} truncated committed batch ({base}, {epoch})"),
                );
            }
        }
        let from = node.mirror.back().map(|m| m.3).unwrap_or(start);
        let idx = batches.partition_point(|b| b.base_offset < from);
        let mut prev: Option<BatchKey> = node.mirror.back().map(|m| (m.0, m.1));
        if prev.is_none() && start > 0 {
            prev = log
                .snapshots()
                .filter(|(s, _)| s.offset == start)
                .last()
                .and_then(|(_, s)| s.batches.last().map(|b| (b.base_offset, b.epoch)));
        }
        for b in &batches[idx..] {
            let h = batch_hash(b);
            oracle.observe_batch(id, (b.base_offset, b.epoch), h, prev);
            node.mirror
                .push_back((b.base_offset, b.epoch, h, b.next_offset()));
            prev = Some((b.base_offset, b.epoch));
        }
        if node.hw_checked > end {
            node.hw_checked = end.max(start);
        }
        if node.hw_checked < start {
            node.hw_checked = start;
        }

        // 2. High watermark: monotonic, and everything below it is committed.
        if let Some(hw) = core.high_watermark() {
            oracle.checks += 1;
            if let Some(max) = node.max_hw {
                if hw < max {
                    oracle.fail(
                        inv::HW_MONOTONIC,
                        format!("node {id}: high watermark went from {max} to {hw}"),
                    );
                }
            }
            if node.max_hw != Some(hw)
                && self
                    .trace
                    .is_some_and(|(n, from)| (n == id || n == 0) && self.now >= from)
            {
                println!(
                    "[{}] node {id} HW -> {hw} voters={}",
                    self.now,
                    core.voters()
                );
            }
            node.max_hw = Some(node.max_hw.map_or(hw, |m| m.max(hw)));
            if hw > node.hw_checked {
                let i = batches.partition_point(|b| b.base_offset < node.hw_checked);
                for b in &batches[i..] {
                    if b.next_offset() > hw {
                        break;
                    }
                    if oracle.commit(id, b, batch_hash(b)) && core.role() == Role::Leader {
                        new_commits.push((b.base_offset, b.epoch, b.next_offset()));
                    }
                    node.hw_checked = b.next_offset();
                }
            }
        }

        // 3. Leaders: one per epoch, and a new leader holds every commit.
        if core.role() == Role::Leader {
            let epoch = core.epoch();
            if node.leader_epochs_seen != epoch {
                node.leader_epochs_seen = epoch;
                oracle.checks += 1;
                if let Some((base, e, h)) = oracle.last_committed() {
                    if base >= start {
                        let ok = batch_at(batches, base)
                            .is_some_and(|b| b.epoch == e && batch_hash(b) == h);
                        if !ok {
                            oracle.fail(
                                inv::COMMITTED_DURABLE,
                                format!(
                                    "node {id} became leader of epoch {epoch} without committed batch ({base}, {e}); log end {end}"
                                ),
                            );
                        }
                    }
                }
            }
        }

        // 4. Voter-set history: consecutive sets overlap; one change in flight.
        let history = core.control_state().voter_history();
        let last_offset = history.last().map(|(o, _)| *o);
        if (history.len(), last_offset) != node.voter_hist {
            node.voter_hist = (history.len(), last_offset);
            if history.len() >= 2 {
                oracle.checks += 1;
                let (po, p) = &history[history.len() - 2];
                let (lo, l) = &history[history.len() - 1];
                if !voter_sets_overlap(p, l) {
                    oracle.fail(
                        inv::VOTER_CHANGE,
                        format!("node {id}: voter set at {lo} ({l}) differs by more than one voter from {p} at {po}"),
                    );
                }
                if core.role() == Role::Leader && !same_keys(p, l) {
                    let own = batch_at(batches, *lo).is_some_and(|b| b.epoch == core.epoch());
                    let hw = core.high_watermark().unwrap_or(-1);
                    if own && *po >= hw {
                        oracle.fail(
                            inv::VOTER_CHANGE,
                            format!(
                                "leader {id} appended voter change at {lo} while the previous change at {po} is uncommitted (HW {hw})"
                            ),
                        );
                    }
                }
            }
        }

        // 5. The core's own consistency checks.
        if let Some(v) = core.violations().first() {
            oracle.fail(inv::CORE_CONSISTENCY, format!("node {id}: {v}"));
        }

        // 6. A batch the leader commits is durable on a majority of its voters.
        if !new_commits.is_empty() {
            let voters = core.voters().clone();
            for (base, epoch, next) in new_commits {
                self.check_durable_majority(id, &voters, base, epoch, next);
            }
        }
    }

    fn check_durable_majority(
        &mut self,
        leader: NodeId,
        voters: &VoterSet,
        base: i64,
        epoch: i32,
        next: i64,
    ) {
        self.oracle.checks += 1;
        let mut durable = 0;
        let mut detail = Vec::new();
        for key in voters.keys() {
            let Some(node) = self.nodes.get(&key.id) else {
                continue;
            };
            let log = match (&node.core, &node.down_log) {
                (Some(c), _) => c.log(),
                (None, Some(l)) => l,
                _ => continue,
            };
            if key.directory_id.is_some() && key.directory_id != Some(node.cfg.directory_id) {
                // The voter's disk was replaced after it may have acknowledged:
                // the fault, not the protocol, lost that copy.
                durable += 1;
                continue;
            }
            let in_snapshot = log.start_offset() >= next;
            let in_log = log.durable_end() >= next
                && batch_at(log.batches(), base).is_some_and(|b| b.epoch == epoch);
            detail.push(format!(
                "{}:{}durable_end={} end={} start={}",
                key.id,
                if node.core.is_some() { "" } else { "(down) " },
                log.durable_end(),
                log.end_offset(),
                log.start_offset()
            ));
            if in_snapshot || in_log {
                durable += 1;
            }
        }
        if durable < voters.len() / 2 + 1 {
            self.oracle.fail(
                inv::COMMITTED_DURABLE,
                format!(
                    "leader {leader} committed batch ({base}, {epoch}) durable on only {durable} of {} voters [{}]",
                    voters.len(),
                    detail.join(", ")
                ),
            );
        }
    }

    fn check_committed_voters(&mut self) {
        for node in self.nodes.values() {
            let Some(core) = &node.core else {
                continue;
            };
            if core.role() != Role::Leader {
                continue;
            }
            let Some(hw) = core.high_watermark() else {
                continue;
            };
            self.oracle.checks += 1;
            let expected = self.oracle.voters_at(hw - 1).clone();
            match core.committed_voters() {
                Some(actual) if actual == expected => {}
                other => self.oracle.fail(
                    inv::COMMITTED_VOTERS,
                    format!(
                        "leader {} (HW {hw}) reports committed voters {:?}, oracle says {expected}",
                        node.id,
                        other.map(|v| v.to_string())
                    ),
                ),
            }
        }
    }
}

fn batch_at(batches: &[Batch], base: i64) -> Option<&Batch> {
    batches
        .binary_search_by_key(&base, |b| b.base_offset)
        .ok()
        .map(|i| &batches[i])
}

fn add_stats(acc: &mut CoreStats, s: &CoreStats) {
    acc.elections_started += s.elections_started;
    acc.became_leader += s.became_leader;
    acc.voter_changes_completed += s.voter_changes_completed;
    acc.snapshots_installed += s.snapshots_installed;
}
