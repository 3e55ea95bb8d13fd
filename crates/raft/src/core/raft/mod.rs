//! [`RaftCore`]: the sans-IO KRaft state machine.
//!
//! This file holds the struct, its constructor, the public accessors, the
//! inputs and the small helpers shared by every concern; the rest of the
//! engine is split by concern, one `impl` block per file:
//!
//! * `transitions`: start-up and the moves between states;
//! * `election`: Vote (pre-vote and real), BeginQuorumEpoch, EndQuorumEpoch;
//! * `replication`: appends, the high watermark, Fetch on both sides;
//! * `snapshot`: FetchSnapshot on both sides;
//! * `polling`: what each state sends, the next wake-up, back-off;
//! * `reconfiguration`: AddRaftVoter, RemoveRaftVoter, UpdateRaftVoter,
//!   auto-join and the `kraft.version` upgrade;
//! * `describe`: DescribeQuorum and the committed voter set.

use std::collections::VecDeque;

use bytes::Bytes;

use super::action::{Action, ElectionState, InboundId};
use super::config::RaftConfig;
use super::error::{ErrorCode, RaftError};
use super::leader::LeaderState;
use super::log::RaftLog;
use super::message::*;
use super::record::{Batch, ControlRecord, Record};
use super::request_manager::RequestManager;
use super::rng::RaftRng;
use super::state::{Role, State, Unattached};
use super::types::*;
use super::voters::{ControlState, VoterNode, VoterSet};

mod describe;
mod election;
mod polling;
mod reconfiguration;
mod replication;
mod snapshot;
mod transitions;

/// Fetches parked by the leader until data arrives, the HW moves or
/// `MaxWaitMs` passes.
#[derive(Clone, Debug)]
struct ParkedFetch {
    inbound: InboundId,
    request: FetchRequest,
    deadline: i64,
    original: FetchResponse,
}

/// Counters exposed for tests and the simulator.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CoreStats {
    /// Elections started (transitions to Candidate).
    pub elections_started: u64,
    /// Times this replica became leader.
    pub became_leader: u64,
    /// Voter changes (add/remove) that completed successfully as leader.
    pub voter_changes_completed: u64,
    /// Snapshots installed from the leader.
    pub snapshots_installed: u64,
}

/// The KRaft consensus core for one replica of `__cluster_metadata`.
///
/// A deterministic state machine: inputs are inbound requests and responses,
/// clock ticks, proposals and flush completions; outputs are [`Action`]s
/// drained with [`RaftCore::take_actions`]. The log is accessed through
/// [`RaftLog`]. Time is passed in (`now`, ms) and randomness comes from an
/// injected [`RaftRng`].
pub struct RaftCore<L: RaftLog> {
    cfg: RaftConfig,
    log: L,
    rng: Box<dyn RaftRng>,
    control: ControlState,
    state: State,
    requests: RequestManager,
    next_correlation: u64,
    flushed_offset: i64,
    /// Outstanding flush requests in request order: (target, cap). The cap
    /// is lowered by truncations that happen after the request.
    flush_queue: VecDeque<(i64, i64)>,
    actions: Vec<Action>,
    listener_next: i64,
    parked: Vec<ParkedFetch>,
    proposals: VecDeque<(i32, i64)>,
    last_leader_notified: Option<LeaderAndEpoch>,
    next_wakeup: i64,
    violations: Vec<String>,
    stats: CoreStats,
    /// The local replica has been in a committed voter set since start.
    was_committed_voter: bool,
    /// Sticky removal: a committed voter set removed the local replica after
    /// it had been a voter, so auto-join stays off until the next restart.
    removed_from_voters: bool,
}

const LISTENER_STARTING: i64 = -1;

impl<L: RaftLog> RaftCore<L> {
    /// Starts a replica from its log and its persisted election state
    /// (`None` when there is no `quorum-state` file yet).
    pub fn new(
        cfg: RaftConfig,
        log: L,
        persisted: Option<ElectionState>,
        rng: Box<dyn RaftRng>,
        now: i64,
    ) -> Result<Self, RaftError> {
        if let Some(id) = cfg.node_id {
            if id < 0 {
                return Err(RaftError::Config(format!("invalid node id {id}")));
            }
        }
        let bootstrap: Vec<(NodeId, Address)> = if !cfg.static_voters.is_empty() {
            cfg.static_voters
                .nodes()
                .filter_map(|v| {
                    v.endpoints
                        .address(&cfg.default_listener)
                        .map(|a| (v.key.id, a))
                })
                .collect()
        } else {
            cfg.bootstrap_servers
                .iter()
                .enumerate()
                .map(|(i, a)| (-2 - i as NodeId, a.clone()))
                .collect()
        };
        if bootstrap.is_empty() {
            return Err(RaftError::Config(
                "Missing kraft bootstrap servers. Must specify a value for controller.quorum.bootstrap.servers."
                    .into(),
            ));
        }
        let requests = RequestManager::new(bootstrap, cfg.retry_backoff_ms, cfg.request_timeout_ms);
        let control = ControlState::new(cfg.static_voters.clone());
        let flushed_offset = log.end_offset();
        let mut core = RaftCore {
            cfg,
            log,
            rng,
            control,
            state: State::Unattached(Unattached {
                epoch: 0,
                leader: None,
                voted: None,
                election_deadline: i64::MAX,
                hw: None,
            }),
            requests,
            next_correlation: 1,
            flushed_offset,
            flush_queue: VecDeque::new(),
            actions: Vec::new(),
            listener_next: LISTENER_STARTING,
            parked: Vec::new(),
            proposals: VecDeque::new(),
            last_leader_notified: None,
            next_wakeup: now,
            violations: Vec::new(),
            stats: CoreStats::default(),
            was_committed_voter: false,
            removed_from_voters: false,
        };
        core.reload_control_state();
        core.initialize(persisted.unwrap_or_else(ElectionState::initial), now);
        core.poll(now);
        Ok(core)
    }

    // ------------------------------------------------------------------
    // Public accessors

    /// Drains the pending actions, in the order they must be executed.
    pub fn take_actions(&mut self) -> Vec<Action> {
        std::mem::take(&mut self.actions)
    }

    /// The time (ms) at which [`RaftCore::tick`] should be called next.
    pub fn next_deadline(&self) -> i64 {
        self.next_wakeup
    }

    /// Current role.
    pub fn role(&self) -> Role {
        self.state.role()
    }

    /// Kafka's `current-state` raft metric (`KafkaRaftMetrics`): leader,
    /// prospective, prospective-voted, candidate, unattached-voted, follower,
    /// observer (a follower outside the voter set) or unattached (also a
    /// resigned leader, as Kafka reports it).
    pub fn state_name(&self) -> &'static str {
        match &self.state {
            State::Leader(_) => "leader",
            State::Prospective(s) if s.voted.is_some() => "prospective-voted",
            State::Prospective(_) => "prospective",
            State::Candidate(_) => "candidate",
            State::Unattached(s) if s.voted.is_some() => "unattached-voted",
            State::Follower(_) if !self.is_voter() => "observer",
            State::Follower(_) => "follower",
            State::Unattached(_) | State::Resigned(_) => "unattached",
        }
    }

    /// Kafka's `current-vote`: this node as leader or candidate, else the
    /// replica voted for in this epoch.
    pub fn current_vote(&self) -> Option<NodeId> {
        match &self.state {
            State::Leader(_) | State::Candidate(_) => self.cfg.node_id,
            _ => self.voted_key().map(|k| k.id),
        }
    }

    /// As the leader: the observers it tracks.
    pub fn observer_count(&self) -> Option<usize> {
        self.leader_state().map(|l| l.observers.len())
    }

    /// As the leader: whether the latest voter set is not committed yet.
    pub fn uncommitted_voter_change(&self) -> Option<bool> {
        self.leader_state()?;
        let hw = self.high_watermark().unwrap_or(0);
        Some(
            self.control
                .last_voter_set_offset()
                .is_some_and(|offset| offset >= hw),
        )
    }

    /// Whether this node leads and was asked to resign ([`Self::resign`]):
    /// it takes no more records.
    pub fn is_resigning(&self) -> bool {
        self.leader_state().is_some_and(|l| l.resign_requested)
    }

    /// Current epoch.
    pub fn epoch(&self) -> i32 {
        self.state.epoch()
    }

    /// The offset the next appended record gets.
    pub fn log_end_offset(&self) -> i64 {
        self.log.end_offset()
    }

    /// The known leader of the current epoch.
    pub fn leader(&self) -> Option<NodeId> {
        self.leader_id()
    }

    /// The local high watermark, if known.
    pub fn high_watermark(&self) -> Option<i64> {
        self.state.high_watermark()
    }

    /// As the leader: the offset of the LeaderChangeMessage that starts its
    /// epoch. Everything below it was written by earlier leaders; a state
    /// machine that has applied up to it may act as the active controller
    /// (Kafka fires `handleLeaderChange` to the leader's listener only then).
    pub fn epoch_start_offset(&self) -> Option<i64> {
        self.leader_state().map(|l| l.epoch_start_offset)
    }

    /// The latest (possibly uncommitted) voter set.
    pub fn voters(&self) -> &VoterSet {
        self.control.last_voter_set()
    }

    /// The voter-set and `kraft.version` history.
    pub fn control_state(&self) -> &ControlState {
        &self.control
    }

    /// The finalized `kraft.version` (latest record).
    pub fn kraft_version(&self) -> i16 {
        self.control.last_kraft_version()
    }

    /// This replica's key.
    pub fn local_key(&self) -> Option<ReplicaKey> {
        self.cfg
            .node_id
            .map(|id| ReplicaKey::of(id, self.cfg.directory_id))
    }

    /// True when a committed voter set removed the local replica after it
    /// had been a voter since this core started: auto-join does not add it
    /// back until the process restarts (or an operator adds it again).
    pub fn removed_from_voters(&self) -> bool {
        self.removed_from_voters
    }

    /// True when the local replica is in the latest voter set.
    pub fn is_voter(&self) -> bool {
        self.local_key()
            .is_some_and(|k| self.control.last_voter_set().is_voter(&k))
    }

    /// The persisted election state corresponding to the current state.
    pub fn election_state(&self) -> ElectionState {
        ElectionState {
            epoch: self.epoch(),
            leader_id: self.leader_id(),
            voted_key: self.voted_key(),
        }
    }

    /// The log.
    pub fn log(&self) -> &L {
        &self.log
    }

    /// Mutable access to the log, for the driver (flushing, snapshots). Do
    /// not append or truncate through it.
    pub fn log_mut(&mut self) -> &mut L {
        &mut self.log
    }

    /// Stops the replica and returns its log (the driver's crash/shutdown path).
    pub fn into_log(self) -> L {
        self.log
    }

    /// The offset up to which the log is known to be durable.
    pub fn flushed_offset(&self) -> i64 {
        self.flushed_offset
    }

    /// Situations Kafka treats as internal errors (inconsistent leaders,
    /// truncation below the high watermark, ...). Empty in a correct cluster.
    pub fn violations(&self) -> &[String] {
        &self.violations
    }

    /// Counters.
    pub fn stats(&self) -> &CoreStats {
        &self.stats
    }

    /// The configuration.
    pub fn config(&self) -> &RaftConfig {
        &self.cfg
    }

    // ------------------------------------------------------------------
    // Inputs

    /// Advances timers.
    pub fn tick(&mut self, now: i64) {
        self.expire_parked_fetches(now);
        self.poll(now);
    }

    /// Reports that the flush requested by an [`Action::Flush`] with this
    /// `up_to` completed. Completions must be reported in request order; a
    /// report matches the oldest outstanding request with this `up_to` and
    /// implies every earlier request completed too (an fsync covers all
    /// earlier appends). Data re-appended after a truncation that followed
    /// the request is not considered covered.
    pub fn flushed(&mut self, up_to: i64, now: i64) {
        let mut durable = None;
        if let Some(pos) = self.flush_queue.iter().position(|(t, _)| *t == up_to) {
            for (target, cap) in self.flush_queue.drain(..=pos) {
                let d = target.min(cap);
                durable = Some(durable.map_or(d, |x: i64| x.max(d)));
            }
        }
        if let Some(d) = durable {
            let d = d.min(self.log.end_offset());
            if d > self.flushed_offset {
                self.flushed_offset = d;
            }
        }
        if matches!(self.state, State::Leader(_)) {
            self.update_leader_end_offset(now);
        }
        self.poll(now);
    }

    /// Appends a data batch as leader. Returns the offset of its last record;
    /// completion is reported with [`Action::ProposalCompleted`].
    pub fn propose(&mut self, records: Vec<Bytes>, now: i64) -> Result<i64, RaftError> {
        let epoch = self.epoch();
        let Some(leader) = self.leader_state() else {
            return Err(RaftError::NotLeader {
                epoch,
                leader: self.leader_id(),
            });
        };
        if leader.resign_requested || records.is_empty() {
            return Err(RaftError::NotLeader {
                epoch,
                leader: self.leader_id(),
            });
        }
        let batch = Batch {
            base_offset: self.log.end_offset(),
            epoch,
            append_time: now,
            records: records.into_iter().map(Record::Data).collect(),
            encoded: Default::default(),
        };
        let last = batch.last_offset();
        self.append_as_leader(batch, now)?;
        self.proposals.push_back((epoch, last));
        self.poll(now);
        Ok(last)
    }

    /// Asks the leader of `epoch` to resign (graceful hand-off): it takes no
    /// more records, waits until another voter has fetched its whole log (at
    /// most an election timeout), then resigns and sends EndQuorumEpoch. The
    /// most up-to-date voter, first among the preferred successors, then
    /// wins the election at once: its log is as long as the resigned
    /// leader's, which grants it the pre-vote.
    pub fn resign(&mut self, epoch: i32, now: i64) -> Result<(), RaftError> {
        let current = self.epoch();
        match &mut self.state {
            State::Leader(l) if l.epoch == epoch => {
                if !l.resign_requested {
                    l.resign_requested = true;
                    l.resign_deadline = Some(now.saturating_add(self.cfg.election_timeout_ms));
                }
                self.poll(now);
                Ok(())
            }
            State::Leader(_) => Err(RaftError::WrongEpoch {
                given: epoch,
                current,
            }),
            _ if epoch < current => Ok(()),
            _ => Err(RaftError::NotLeader {
                epoch: current,
                leader: self.leader_id(),
            }),
        }
    }

    /// Handles an inbound request; the answer is emitted as
    /// [`Action::Respond`] with the same `inbound` token (possibly later).
    pub fn handle_request(&mut self, inbound: InboundId, request: Request, now: i64) {
        let response = match request {
            Request::Vote(r) => Some(Response::Vote(self.handle_vote_request(r, now))),
            Request::BeginQuorumEpoch(r) => Some(Response::BeginQuorumEpoch(
                self.handle_begin_quorum_epoch(r, now),
            )),
            Request::EndQuorumEpoch(r) => Some(Response::EndQuorumEpoch(
                self.handle_end_quorum_epoch(r, now),
            )),
            Request::Fetch(r) => self
                .handle_fetch_request(inbound, r, now)
                .map(Response::Fetch),
            Request::FetchSnapshot(r) => Some(Response::FetchSnapshot(
                self.handle_fetch_snapshot_request(r, now),
            )),
            Request::AddRaftVoter(r) => self
                .handle_add_voter(inbound, r, now)
                .map(Response::AddRaftVoter),
            Request::RemoveRaftVoter(r) => self
                .handle_remove_voter(inbound, r, now)
                .map(Response::RemoveRaftVoter),
            Request::UpdateRaftVoter(r) => {
                Some(Response::UpdateRaftVoter(self.handle_update_voter(r, now)))
            }
            Request::DescribeQuorum => Some(Response::DescribeQuorum(self.describe_quorum(now))),
            Request::ApiVersions => {
                Some(Response::error(Api::ApiVersions, ErrorCode::InvalidRequest))
            }
        };
        if let Some(response) = response {
            self.respond(inbound, response);
        }
        self.poll(now);
    }

    /// Handles the response to a request sent with [`Action::Send`].
    /// Unexpected (stale, duplicated) responses are ignored.
    pub fn handle_response(
        &mut self,
        correlation_id: u64,
        source: NodeId,
        response: Response,
        now: i64,
    ) {
        let Some(api) = self.requests.expected_response(source, correlation_id) else {
            return;
        };
        if api != response.api() {
            self.requests
                .on_response_result(source, correlation_id, false, now);
            self.poll(now);
            return;
        }
        let ok = match response {
            Response::Vote(r) => self.handle_vote_response(source, r, now),
            Response::BeginQuorumEpoch(r) => {
                self.handle_begin_quorum_epoch_response(source, r, now)
            }
            Response::EndQuorumEpoch(r) => self.handle_end_quorum_epoch_response(source, r, now),
            Response::Fetch(r) => self.handle_fetch_response(r, now),
            Response::FetchSnapshot(r) => self.handle_fetch_snapshot_response(r, now),
            Response::ApiVersions(r) => {
                self.handle_api_versions_response(source, correlation_id, r, now)
            }
            Response::AddRaftVoter(r) => self.handle_voter_change_response(r, true, now),
            Response::RemoveRaftVoter(r) => self.handle_voter_change_response(r, false, now),
            Response::UpdateRaftVoter(r) => self.handle_update_voter_response(r, now),
            Response::DescribeQuorum(_) => false,
        };
        if ok && self.must_wait_before_asking_again(api, source, correlation_id) {
            self.requests.back_off(source, correlation_id, now);
        } else {
            self.requests
                .on_response_result(source, correlation_id, ok, now);
        }
        self.poll(now);
    }

    /// Reports that a request sent with [`Action::Send`] failed in transport
    /// (disconnect, timeout, ...), mapped to an error code.
    pub fn handle_send_failure(
        &mut self,
        correlation_id: u64,
        source: NodeId,
        error: ErrorCode,
        now: i64,
    ) {
        if let Some(api) = self.requests.expected_response(source, correlation_id) {
            self.handle_response(correlation_id, source, Response::error(api, error), now);
        }
    }

    // ------------------------------------------------------------------
    // Small helpers

    fn violation(&mut self, msg: String) {
        tracing::error!(node = ?self.cfg.node_id, "{msg}");
        if self.violations.len() < 64 {
            self.violations.push(msg);
        }
    }

    /// The leader's state, when this replica is the leader.
    fn leader_state(&self) -> Option<&LeaderState> {
        match &self.state {
            State::Leader(l) => Some(l),
            _ => None,
        }
    }

    /// Mutable access to the leader's state, when this replica is the leader.
    fn leader_state_mut(&mut self) -> Option<&mut LeaderState> {
        match &mut self.state {
            State::Leader(l) => Some(l),
            _ => None,
        }
    }

    /// Emits the answer to the inbound request `inbound`.
    fn respond(&mut self, inbound: InboundId, response: Response) {
        self.actions.push(Action::Respond { inbound, response });
    }

    fn local_id(&self) -> Option<NodeId> {
        self.cfg.node_id
    }

    fn local_voter_node(&self) -> Option<VoterNode> {
        self.local_key().map(|k| {
            VoterNode::new(
                k,
                self.cfg.listeners.clone(),
                self.cfg.supported_kraft_version,
            )
        })
    }

    fn leader_id(&self) -> Option<NodeId> {
        match &self.state {
            State::Unattached(s) => s.leader,
            State::Prospective(s) => s.leader,
            State::Candidate(_) => None,
            State::Leader(_) | State::Resigned(_) => self.local_id(),
            State::Follower(s) => Some(s.leader),
        }
    }

    fn leader_id_or_nil(&self) -> NodeId {
        self.leader_id().unwrap_or(-1)
    }

    fn voted_key(&self) -> Option<ReplicaKey> {
        match &self.state {
            State::Unattached(s) => s.voted,
            State::Prospective(s) | State::Candidate(s) => s.voted,
            State::Follower(s) => s.voted,
            State::Leader(_) | State::Resigned(_) => None,
        }
    }

    fn leader_endpoints(&self) -> Endpoints {
        match &self.state {
            State::Leader(_) | State::Resigned(_) => self.cfg.listeners.clone(),
            State::Follower(s) => s.leader_endpoints.clone(),
            State::Prospective(s) => s.leader_endpoints.clone(),
            _ => Endpoints::empty(),
        }
    }

    fn leader_node_endpoint(&self) -> Option<NodeEndpoint> {
        let leader = self.leader_id()?;
        self.leader_endpoints()
            .address(&self.cfg.default_listener)
            .map(|address| NodeEndpoint {
                node_id: leader,
                address,
            })
    }

    fn endpoints_from_response(
        &self,
        leader: Option<NodeId>,
        ep: &Option<NodeEndpoint>,
    ) -> Endpoints {
        match (leader, ep) {
            (Some(id), Some(e)) if e.node_id == id => Endpoints::single(
                self.cfg.default_listener.clone(),
                e.address.host.clone(),
                e.address.port,
            ),
            (Some(id), _) => self.control.last_voter_set().listeners(id),
            (None, _) => Endpoints::empty(),
        }
    }

    fn has_valid_cluster_id(&self, id: &Option<String>) -> bool {
        match id {
            None => true,
            Some(id) => *id == self.cfg.cluster_id,
        }
    }

    fn random_election_timeout(&mut self) -> i64 {
        let base = self.cfg.election_timeout_ms;
        if base == 0 {
            return 0;
        }
        base + self.rng.below(base)
    }

    fn end_offset_and_epoch(&self) -> OffsetAndEpoch {
        OffsetAndEpoch::new(self.log.end_offset(), self.log.last_fetched_epoch())
    }

    fn persist(&mut self) {
        let state = self.election_state();
        self.actions.push(Action::PersistElectionState {
            state,
            kraft_version: self.control.last_kraft_version(),
        });
    }

    fn maybe_fire_leader_change(&mut self) {
        let le = LeaderAndEpoch {
            leader_id: self.leader_id(),
            epoch: self.epoch(),
        };
        if self.last_leader_notified != Some(le) {
            self.last_leader_notified = Some(le);
            self.actions.push(Action::LeaderChange(le));
        }
    }

    fn request_flush(&mut self) {
        let end = self.log.end_offset();
        let covered = self
            .flush_queue
            .iter()
            .map(|(t, c)| (*t).min(*c))
            .fold(self.flushed_offset, i64::max);
        if end > covered {
            self.flush_queue.push_back((end, i64::MAX));
            self.actions.push(Action::Flush { up_to: end });
        }
    }

    fn after_truncation(&mut self, new_end: i64) {
        for (_, cap) in self.flush_queue.iter_mut() {
            *cap = (*cap).min(new_end);
        }
        if self.flushed_offset > new_end {
            self.flushed_offset = new_end;
        }
        self.control.truncate_new_entries(new_end);
    }

    fn observe_appended(&mut self, batch: &Batch) {
        for (offset, rec) in batch.control_records() {
            match rec {
                ControlRecord::Voters(v) => self.control.add_voters(offset, v.clone()),
                ControlRecord::KRaftVersion(k) => self.control.add_kraft_version(offset, *k),
                _ => {}
            }
        }
    }

    /// Rebuilds the voter/kraft.version history from the latest snapshot and
    /// the whole log.
    fn reload_control_state(&mut self) {
        self.control.clear();
        if let (Some(info), Some(ctrl)) = (
            self.log.latest_snapshot(),
            self.log.latest_snapshot_control(),
        ) {
            let at = info.id.offset - 1;
            if let Some(k) = ctrl.kraft_version {
                self.control.add_kraft_version(at, k);
            }
            if let Some(v) = ctrl.voters {
                self.control.add_voters(at, v);
            }
        }
        let mut next = self.log.start_offset();
        let end = self.log.end_offset();
        while next < end {
            let batches = self.log.read(next, usize::MAX);
            if batches.is_empty() {
                break;
            }
            for b in &batches {
                self.observe_appended(b);
                next = b.next_offset();
            }
        }
    }
}

// ----------------------------------------------------------------------
// Model-checking support: copying a replica and a canonical dump of its state.

impl<L: RaftLog + Clone> RaftCore<L> {
    /// An independent copy of this replica that draws randomness from `rng`
    /// (a `Box<dyn RaftRng>` cannot be cloned). A model checker branches a
    /// state with it; `rng` should continue the original generator's
    /// sequence for the copy to behave identically.
    pub fn clone_with_rng(&self, rng: Box<dyn RaftRng>) -> Self {
        RaftCore {
            cfg: self.cfg.clone(),
            log: self.log.clone(),
            rng,
            control: self.control.clone(),
            state: self.state.clone(),
            requests: self.requests.clone(),
            next_correlation: self.next_correlation,
            flushed_offset: self.flushed_offset,
            flush_queue: self.flush_queue.clone(),
            actions: self.actions.clone(),
            listener_next: self.listener_next,
            parked: self.parked.clone(),
            proposals: self.proposals.clone(),
            last_leader_notified: self.last_leader_notified,
            next_wakeup: self.next_wakeup,
            violations: self.violations.clone(),
            stats: self.stats.clone(),
            was_committed_voter: self.was_committed_voter,
            removed_from_voters: self.removed_from_voters,
        }
    }
}

/// Dumps every field that influences future behaviour (the random source,
/// the configuration and the counters excepted), so that two replicas with
/// the same dump and the same random state behave identically.
impl<L: RaftLog + std::fmt::Debug> std::fmt::Debug for RaftCore<L> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Destructured without `..` so that a new field cannot be forgotten.
        let RaftCore {
            cfg: _,
            log,
            rng: _,
            control,
            state,
            requests,
            next_correlation,
            flushed_offset,
            flush_queue,
            actions,
            listener_next,
            parked,
            proposals,
            last_leader_notified,
            next_wakeup,
            violations,
            stats: _,
            was_committed_voter,
            removed_from_voters,
        } = self;
        f.debug_struct("RaftCore")
            .field("log", log)
            .field("control", control)
            .field("state", state)
            .field("requests", requests)
            .field("next_correlation", next_correlation)
            .field("flushed_offset", flushed_offset)
            .field("flush_queue", flush_queue)
            .field("actions", actions)
            .field("listener_next", listener_next)
            .field("parked", parked)
            .field("proposals", proposals)
            .field("last_leader_notified", last_leader_notified)
            .field("next_wakeup", next_wakeup)
            .field("violations", violations)
            .field("was_committed_voter", was_committed_voter)
            .field("removed_from_voters", removed_from_voters)
            .finish_non_exhaustive()
    }
}
