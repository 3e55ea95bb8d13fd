//! [`RaftCore`]: the sans-IO KRaft state machine.

use std::collections::{BTreeSet, VecDeque};

use bytes::Bytes;

use super::action::{Action, ElectionState, InboundId};
use super::config::RaftConfig;
use super::error::{ErrorCode, RaftError, UpgradeError};
use super::leader::{LeaderState, PendingChange};
use super::log::{fetch_position, FetchPosition, RaftLog};
use super::message::*;
use super::record::{Batch, ControlRecord, LeaderChangeMessage, Record};
use super::request_manager::RequestManager;
use super::rng::RaftRng;
use super::state::{Election, Follower, Nominee, Resigned, Role, State, Unattached};
use super::types::*;
use super::voters::{ControlState, VoterNode, VoterSet};

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

    /// Current epoch.
    pub fn epoch(&self) -> i32 {
        self.state.epoch()
    }

    /// The known leader of the current epoch.
    pub fn leader(&self) -> Option<NodeId> {
        self.leader_id()
    }

    /// The local high watermark, if known.
    pub fn high_watermark(&self) -> Option<i64> {
        self.state.high_watermark()
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

    /// The committed voter set derived from the voter-set history and the
    /// local high watermark (`None` while the HW is unknown).
    pub fn committed_voters(&self) -> Option<VoterSet> {
        let hw = self.high_watermark()?;
        if cfg!(feature = "mutate-committed-voters-latest") {
            return Some(self.control.last_voter_set().clone());
        }
        self.control.committed_voter_set(hw).cloned()
    }

    /// This replica's key.
    pub fn local_key(&self) -> Option<ReplicaKey> {
        self.cfg
            .node_id
            .map(|id| ReplicaKey::of(id, self.cfg.directory_id))
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
        let State::Leader(leader) = &self.state else {
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
        };
        let last = batch.last_offset();
        self.append_as_leader(batch, now)?;
        self.proposals.push_back((epoch, last));
        self.poll(now);
        Ok(last)
    }

    /// Asks the leader of `epoch` to resign (graceful hand-off).
    pub fn resign(&mut self, epoch: i32, now: i64) -> Result<(), RaftError> {
        let current = self.epoch();
        match &mut self.state {
            State::Leader(l) if l.epoch == epoch => {
                l.resign_requested = true;
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
            self.actions.push(Action::Respond { inbound, response });
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

    /// Whether `source`, whose response to a request of `api` was just
    /// handled, must still wait `retry.backoff.ms` before it is asked again.
    /// In Kafka 4.4 a handled response makes the node ready at once, so a
    /// replica whose bootstrap servers all answer "no leader" (or whose
    /// voters answer INVALID_VOTER_KEY) re-sends as fast as the answers
    /// arrive; here it waits the backoff instead:
    /// * Fetch / FetchSnapshot: unless this replica now follows `source` as
    ///   its leader (a bootstrap server that named the leader is not needed
    ///   again: the next Fetch goes to the leader);
    /// * Vote: when, in the same election, `source`'s vote is still not
    ///   recorded (the request would be sent again).
    fn must_wait_before_asking_again(&self, api: Api, source: NodeId, correlation_id: u64) -> bool {
        match api {
            Api::Fetch | Api::FetchSnapshot => {
                !matches!(&self.state, State::Follower(f) if f.leader == source)
            }
            Api::Vote => {
                self.requests
                    .expected_response(source, correlation_id)
                    .is_some()
                    && match &self.state {
                        State::Prospective(s) | State::Candidate(s) => {
                            s.election.unrecorded().iter().any(|k| k.id == source)
                        }
                        _ => false,
                    }
            }
            _ => false,
        }
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

    // ------------------------------------------------------------------
    // Initialization and transitions

    fn initialize(&mut self, election: ElectionState, now: i64) {
        let log_epoch = self.log.last_fetched_epoch();
        let local = self.local_key();
        let voters = self.control.last_voter_set().clone();
        let timeout = self.random_election_timeout();
        let observer_timeout = if self.is_voter() {
            now + timeout
        } else {
            i64::MAX
        };
        self.state = if election.epoch < log_epoch {
            State::Unattached(Unattached {
                epoch: log_epoch,
                leader: None,
                voted: None,
                election_deadline: observer_timeout,
                hw: None,
            })
        } else if local.is_some() && election.leader_id == self.local_id() {
            State::Resigned(Resigned {
                epoch: election.epoch,
                unacked: voters
                    .ids()
                    .filter(|id| Some(*id) != self.local_id())
                    .collect(),
                election_deadline: now + timeout,
                preferred_successors: Vec::new(),
            })
        } else if election.leader_id.is_none()
            && local.is_some_and(|k| {
                election.voted_key.is_some_and(|v| {
                    v.id == k.id && v.directory_id.is_none_or(|d| Some(d) == k.directory_id)
                })
            })
            && self.is_voter()
        {
            // Voted for itself and no leader known: resume the candidacy.
            // (Kafka checks the vote before the leader: a candidate that lost
            // to a leader of the same epoch and replicated from it restarts as
            // a candidate whose log already holds entries of its own epoch,
            // which makes its vote requests invalid. We follow the leader.)
            let mut election_tally = Election::new(&voters);
            if let Some(id) = self.local_id() {
                election_tally.record(id, true);
            }
            State::Candidate(Nominee {
                epoch: election.epoch,
                leader: None,
                leader_endpoints: Endpoints::empty(),
                voted: local,
                election: election_tally,
                election_deadline: now + timeout,
                hw: None,
            })
        } else if let Some(leader) = election.leader_id {
            let endpoints = voters.listeners(leader);
            if endpoints.is_empty() {
                State::Unattached(Unattached {
                    epoch: election.epoch,
                    leader: Some(leader),
                    voted: election.voted_key,
                    election_deadline: observer_timeout,
                    hw: None,
                })
            } else {
                State::Follower(Follower {
                    epoch: election.epoch,
                    leader,
                    leader_endpoints: endpoints,
                    voted: election.voted_key,
                    fetch_deadline: now + self.cfg.fetch_timeout_ms,
                    update_voter_deadline: now + self.cfg.fetch_timeout_ms,
                    has_fetched: false,
                    has_updated_leader: false,
                    hw: None,
                    fetching_snapshot: None,
                })
            }
        } else {
            State::Unattached(Unattached {
                epoch: election.epoch,
                leader: None,
                voted: election.voted_key,
                election_deadline: observer_timeout,
                hw: None,
            })
        };
        self.persist();
        self.maybe_fire_leader_change();

        let only_voter = local.is_some_and(|k| self.control.last_voter_set().is_only_voter(&k));
        match self.state.role() {
            Role::Unattached | Role::Follower | Role::Resigned if only_voter => {
                self.transition_to_prospective(now);
            }
            Role::Candidate => self.on_become_candidate(now),
            _ => {}
        }
    }

    /// Cleanup when the local replica stops being the leader.
    fn on_leave_leader(&mut self, old: &State, now: i64) {
        if let State::Leader(l) = old {
            if let Some(p) = &l.pending {
                let inbound = match p {
                    PendingChange::Add {
                        inbound, responded, ..
                    } => (!responded).then_some(*inbound),
                    PendingChange::Remove { inbound, .. } => Some(*inbound),
                };
                if let Some(inbound) = inbound {
                    let resp = VoterChangeResponse::new(
                        ErrorCode::NotLeaderOrFollower,
                        ErrorCode::NotLeaderOrFollower.default_message(),
                    );
                    let response = match p {
                        PendingChange::Add { .. } => Response::AddRaftVoter(resp),
                        PendingChange::Remove { .. } => Response::RemoveRaftVoter(resp),
                    };
                    self.actions.push(Action::Respond { inbound, response });
                }
            }
            for (epoch, last_offset) in std::mem::take(&mut self.proposals) {
                self.actions.push(Action::ProposalCompleted {
                    epoch,
                    last_offset,
                    result: ErrorCode::NotLeaderOrFollower,
                });
            }
            self.complete_all_parked(now);
        }
    }

    fn abort_snapshot_download(&mut self, old: &State) {
        if let State::Follower(f) = old {
            if let Some(id) = f.fetching_snapshot {
                self.log.abort_snapshot_download(id);
            }
        }
    }

    fn replace_state(&mut self, new: State, now: i64) {
        let old = std::mem::replace(&mut self.state, new);
        self.abort_snapshot_download(&old);
        self.on_leave_leader(&old, now);
    }

    fn transition_to_unattached(&mut self, epoch: i32, leader: Option<NodeId>, now: i64) {
        let current = self.epoch();
        if epoch < current || (epoch == current && self.role() != Role::Prospective) {
            self.violation(format!(
                "cannot transition to Unattached with epoch {epoch} from {:?} in epoch {current}",
                self.role()
            ));
            return;
        }
        let deadline = if !self.is_voter() {
            i64::MAX
        } else {
            match &self.state {
                State::Candidate(s) => s.election_deadline,
                State::Unattached(s) => s.election_deadline,
                State::Prospective(s) if !s.election.is_rejected() => s.election_deadline,
                State::Resigned(s) => s.election_deadline,
                _ => now + self.random_election_timeout(),
            }
        };
        let voted = if epoch == current {
            self.voted_key()
        } else {
            None
        };
        let hw = self.high_watermark();
        self.replace_state(
            State::Unattached(Unattached {
                epoch,
                leader,
                voted,
                election_deadline: deadline,
                hw,
            }),
            now,
        );
        self.persist();
        self.maybe_fire_leader_change();
        self.requests.reset_all();
    }

    fn transition_to_follower(
        &mut self,
        epoch: i32,
        leader: NodeId,
        endpoints: Endpoints,
        now: i64,
    ) {
        let current = self.epoch();
        if endpoints.is_empty() {
            tracing::warn!(leader, epoch, "leader endpoints unknown; not following");
            if epoch > current {
                self.transition_to_unattached(epoch, Some(leader), now);
            }
            return;
        }
        if Some(leader) == self.local_id() {
            self.violation(format!("asked to follow itself in epoch {epoch}"));
            return;
        }
        if epoch < current {
            self.violation(format!(
                "cannot follow {leader} in older epoch {epoch} (current {current})"
            ));
            return;
        }
        if epoch == current {
            match &self.state {
                State::Follower(f) if f.leader_endpoints.len() >= endpoints.len() => return,
                State::Leader(_) => {
                    self.violation(format!(
                        "leader asked to follow {leader} in its epoch {epoch}"
                    ));
                    return;
                }
                _ => {}
            }
        }
        let voted = if epoch == current {
            self.voted_key()
        } else {
            None
        };
        let hw = self.high_watermark();
        self.replace_state(
            State::Follower(Follower {
                epoch,
                leader,
                leader_endpoints: endpoints,
                voted,
                fetch_deadline: now + self.cfg.fetch_timeout_ms,
                update_voter_deadline: now + self.cfg.fetch_timeout_ms,
                has_fetched: false,
                has_updated_leader: false,
                hw,
                fetching_snapshot: None,
            }),
            now,
        );
        self.persist();
        self.maybe_fire_leader_change();
        self.requests.reset_all();
    }

    fn transition_to_prospective(&mut self, now: i64) {
        if !self.is_voter() || matches!(self.state, State::Leader(_) | State::Prospective(_)) {
            self.violation(format!(
                "invalid transition to Prospective from {:?}",
                self.role()
            ));
            return;
        }
        let voters = self.control.last_voter_set().clone();
        let mut election = Election::new(&voters);
        if let Some(id) = self.local_id() {
            election.record(id, true);
        }
        let timeout = self.random_election_timeout();
        let state = Nominee {
            epoch: self.epoch(),
            leader: self.leader_id(),
            leader_endpoints: self.leader_endpoints(),
            voted: self.voted_key(),
            election,
            election_deadline: now + timeout,
            hw: self.high_watermark(),
        };
        self.replace_state(State::Prospective(state), now);
        let granted = matches!(&self.state, State::Prospective(s) if s.election.is_granted());
        if granted {
            self.transition_to_candidate(now);
        } else {
            self.requests.reset_all();
        }
    }

    fn transition_to_candidate(&mut self, now: i64) {
        if !self.is_voter() || !matches!(self.state, State::Prospective(_)) {
            self.violation(format!(
                "invalid transition to Candidate from {:?}",
                self.role()
            ));
            return;
        }
        let Some(next_epoch) = self.epoch().checked_add(1) else {
            self.violation("the epoch cannot be increased any further".into());
            return;
        };
        let voters = self.control.last_voter_set().clone();
        let mut election = Election::new(&voters);
        if let Some(id) = self.local_id() {
            election.record(id, true);
        }
        let timeout = self.random_election_timeout();
        let state = Nominee {
            epoch: next_epoch,
            leader: None,
            leader_endpoints: Endpoints::empty(),
            voted: self.local_key(),
            election,
            election_deadline: now + timeout,
            hw: self.high_watermark(),
        };
        self.replace_state(State::Candidate(state), now);
        self.stats.elections_started += 1;
        self.persist();
        self.maybe_fire_leader_change();
        self.on_become_candidate(now);
    }

    fn on_become_candidate(&mut self, now: i64) {
        let granted = matches!(&self.state, State::Candidate(s) if s.election.is_granted());
        if granted {
            self.become_leader(now);
        } else {
            self.requests.reset_all();
        }
    }

    fn become_leader(&mut self, now: i64) {
        let (epoch, granting) = match &self.state {
            State::Candidate(s) if s.election.is_granted() => (s.epoch, s.election.granting()),
            _ => {
                self.violation("become leader without a won election".into());
                return;
            }
        };
        let Some(local) = self.local_voter_node() else {
            return;
        };
        let voters = self.control.last_voter_set().clone();
        let end = self.log.end_offset();
        let leader = LeaderState::new(
            local.clone(),
            epoch,
            end,
            &voters,
            self.control.last_kraft_version(),
            self.cfg.fetch_timeout_ms,
            now,
        );
        self.replace_state(State::Leader(Box::new(leader)), now);
        self.stats.became_leader += 1;
        self.persist();
        self.maybe_fire_leader_change();

        // Start-of-epoch control batch.
        let mut records = vec![Record::Control(ControlRecord::LeaderChange(
            LeaderChangeMessage {
                leader_id: local.key.id,
                voters: voters.ids().collect(),
                granting_voters: granting,
            },
        ))];
        let kraft = self.control.last_kraft_version();
        if kraft >= 1 {
            let offset = self.control.last_voter_set_offset();
            if offset.is_none_or(|o| o == -1) || voters.voter_node_needs_update(&local) {
                if let Some(updated) = voters.update_voter(local.clone()) {
                    records.push(Record::Control(ControlRecord::KRaftVersion(kraft)));
                    records.push(Record::Control(ControlRecord::Voters(updated)));
                }
            }
        }
        let batch = Batch {
            base_offset: end,
            epoch,
            append_time: now,
            records,
        };
        if let Err(e) = self.append_as_leader(batch, now) {
            self.violation(format!("failed to append the start-of-epoch batch: {e}"));
        }
        self.requests.reset_all();
    }

    fn transition_to_resigned(&mut self, preferred: Vec<ReplicaKey>, now: i64) {
        let State::Leader(l) = &self.state else {
            return;
        };
        let epoch = l.epoch;
        let unacked: BTreeSet<NodeId> = self
            .control
            .last_voter_set()
            .ids()
            .filter(|id| Some(*id) != self.local_id())
            .collect();
        let timeout = self.random_election_timeout();
        let state = Resigned {
            epoch,
            unacked,
            election_deadline: now + timeout,
            preferred_successors: preferred,
        };
        self.replace_state(State::Resigned(state), now);
        self.requests.reset_all();
    }

    /// Kafka's `maybeTransition` for a leader/epoch learned from a message.
    fn maybe_transition(
        &mut self,
        leader: Option<NodeId>,
        epoch: i32,
        endpoints: Endpoints,
        now: i64,
    ) {
        if leader.is_some() && leader == self.local_id() && !matches!(self.state, State::Leader(_))
        {
            // An epoch led by a previous incarnation of this node id (e.g.
            // before its disk was replaced). Kafka treats this as an internal
            // error; we adopt a newer epoch without a leader instead.
            tracing::warn!(
                epoch,
                "message names this node as the leader of an epoch it does not lead"
            );
            if epoch > self.epoch() {
                self.transition_to_unattached(epoch, None, now);
            }
            return;
        }
        if !self.has_consistent_leader(epoch, leader) {
            self.violation(format!(
                "message with leader {leader:?} and epoch {epoch} is inconsistent with leader {:?} in epoch {}",
                self.leader_id(),
                self.epoch()
            ));
            return;
        }
        if epoch > self.epoch() {
            match leader {
                Some(l) => self.transition_to_follower(epoch, l, endpoints, now),
                None => self.transition_to_unattached(epoch, None, now),
            }
        } else if let Some(l) = leader {
            if self.leader_id().is_none() || endpoints.len() > self.leader_endpoints().len() {
                self.transition_to_follower(epoch, l, endpoints, now);
            }
        }
    }

    fn has_consistent_leader(&self, epoch: i32, leader: Option<NodeId>) -> bool {
        if leader.is_some() && leader == self.local_id() {
            matches!(self.state, State::Leader(_))
        } else {
            epoch != self.epoch()
                || leader.is_none()
                || self.leader_id().is_none()
                || leader == self.leader_id()
        }
    }

    /// Kafka's `maybeHandleCommonResponse`: `Some(result)` when the response
    /// was fully handled here.
    fn handle_common_response(
        &mut self,
        error: ErrorCode,
        leader: Option<NodeId>,
        epoch: i32,
        endpoints: Endpoints,
        now: i64,
    ) -> Option<bool> {
        let endpoints = if endpoints.is_empty() {
            leader
                .map(|l| self.control.last_voter_set().listeners(l))
                .unwrap_or_default()
        } else {
            endpoints
        };
        if epoch < self.epoch() || error == ErrorCode::UnknownLeaderEpoch {
            Some(true)
        } else if epoch > self.epoch()
            || error == ErrorCode::FencedLeaderEpoch
            || error == ErrorCode::NotLeaderOrFollower
        {
            self.maybe_transition(leader, epoch, endpoints, now);
            Some(true)
        } else if epoch == self.epoch() && leader.is_some() && self.leader_id().is_none() {
            if let Some(l) = leader {
                self.transition_to_follower(epoch, l, endpoints, now);
            }
            if error == ErrorCode::None {
                None
            } else {
                Some(true)
            }
        } else if error == ErrorCode::BrokerNotAvailable {
            Some(false)
        } else if error == ErrorCode::InvalidVoterKey {
            Some(true)
        } else if error == ErrorCode::InvalidRequest {
            self.violation("received an INVALID_REQUEST error".into());
            Some(false)
        } else {
            None
        }
    }

    // ------------------------------------------------------------------
    // Log appends and the high watermark

    fn append_as_leader(&mut self, batch: Batch, now: i64) -> Result<(), RaftError> {
        self.observe_appended(&batch);
        if let Err(e) = self.log.append(batch) {
            // Roll back anything recorded from the rejected batch.
            let end = self.log.end_offset();
            self.control.truncate_new_entries(end);
            return Err(RaftError::Log(e.to_string()));
        }
        self.request_flush();
        // A new voter set takes effect at once: refresh the replica states
        // (and the HW) before anything else is counted.
        self.update_leader_end_offset(now);
        // Parked fetches waiting below the new end can complete now.
        let end = self.log.end_offset();
        let ready: Vec<ParkedFetch> = {
            let (ready, keep): (Vec<_>, Vec<_>) = std::mem::take(&mut self.parked)
                .into_iter()
                .partition(|p| p.request.fetch_offset < end);
            self.parked = keep;
            ready
        };
        for p in ready {
            let resp = self.try_complete_fetch(&p.request, now);
            self.actions.push(Action::Respond {
                inbound: p.inbound,
                response: Response::Fetch(resp),
            });
        }
        Ok(())
    }

    fn update_leader_end_offset(&mut self, now: i64) {
        let end = if cfg!(feature = "mutate-ack-before-fsync") {
            self.log.end_offset()
        } else {
            self.flushed_offset
        };
        let voters = self.control.last_voter_set().clone();
        let changed = match &mut self.state {
            State::Leader(l) => l.update_local_state(end, &voters),
            _ => false,
        };
        if changed {
            self.on_leader_hw_update(now);
        }
    }

    fn on_leader_hw_update(&mut self, now: i64) {
        let State::Leader(l) = &mut self.state else {
            return;
        };
        let Some(hw) = l.high_watermark else {
            return;
        };
        // Voter change completion.
        let mut completed = None;
        let mut resign = false;
        match &mut l.pending {
            Some(PendingChange::Add {
                inbound,
                last_offset: Some(offset),
                responded,
                ..
            }) if hw > *offset => {
                completed = (!*responded).then(|| {
                    (
                        *inbound,
                        Response::AddRaftVoter(VoterChangeResponse::code(ErrorCode::None)),
                    )
                });
                l.pending = None;
                self.stats.voter_changes_completed += 1;
            }
            Some(PendingChange::Remove {
                inbound,
                last_offset,
                ..
            }) if hw > *last_offset => {
                completed = Some((
                    *inbound,
                    Response::RemoveRaftVoter(VoterChangeResponse::code(ErrorCode::None)),
                ));
                l.pending = None;
                self.stats.voter_changes_completed += 1;
                resign = !self.control.last_voter_set().is_voter(&l.local.key);
            }
            _ => {}
        }
        if resign {
            l.resign_requested = true;
        }
        if let Some((inbound, response)) = completed {
            self.actions.push(Action::Respond { inbound, response });
        }
        // Proposals.
        while let Some((epoch, last)) = self.proposals.front().copied() {
            if last >= hw {
                break;
            }
            self.proposals.pop_front();
            self.actions.push(Action::ProposalCompleted {
                epoch,
                last_offset: last,
                result: ErrorCode::None,
            });
        }
        self.complete_all_parked(now);
        self.deliver_committed(hw);
    }

    fn update_follower_hw(&mut self, leader_hw: i64) {
        if leader_hw < 0 {
            return;
        }
        let new_hw = leader_hw.min(self.log.end_offset());
        let State::Follower(f) = &mut self.state else {
            return;
        };
        match f.hw {
            Some(hw) if new_hw <= hw => return,
            _ => f.hw = Some(new_hw),
        }
        self.deliver_committed(new_hw);
    }

    /// Emits committed batches below `hw` that were not delivered yet.
    fn deliver_committed(&mut self, hw: i64) {
        let next = self.listener_next;
        if next < hw && (next == LISTENER_STARTING || next < self.log.start_offset()) {
            if let Some(info) = self.log.latest_snapshot() {
                self.actions.push(Action::LoadSnapshot { id: info.id });
                self.listener_next = info.id.offset;
            }
        }
        if self.listener_next == LISTENER_STARTING {
            self.listener_next = 0;
        }
        let mut out = Vec::new();
        loop {
            let next = self.listener_next;
            if next >= hw {
                break;
            }
            let batches = self.log.read(next, 1 << 20);
            if batches.is_empty() {
                break;
            }
            let mut progressed = false;
            for b in batches {
                if b.last_offset() >= hw || b.base_offset < self.listener_next {
                    break;
                }
                self.listener_next = b.next_offset();
                out.push(b);
                progressed = true;
            }
            if !progressed {
                break;
            }
        }
        if !out.is_empty() {
            self.actions.push(Action::Committed { batches: out });
        }
    }

    fn append_as_follower(&mut self, batches: Vec<Batch>) {
        let mut appended = false;
        let epoch = self.epoch();
        for b in batches {
            let end = self.log.end_offset();
            if b.next_offset() <= end {
                continue;
            }
            if b.base_offset != end || b.epoch > epoch {
                tracing::warn!(
                    base = b.base_offset,
                    end,
                    "skipping records that do not fit the log"
                );
                break;
            }
            self.observe_appended(&b);
            if let Err(e) = self.log.append(b) {
                tracing::warn!("follower append failed: {e}");
                let end = self.log.end_offset();
                self.control.truncate_new_entries(end);
                break;
            }
            appended = true;
        }
        if appended {
            self.request_flush();
        }
    }

    // ------------------------------------------------------------------
    // Polling

    fn poll(&mut self, now: i64) {
        let mut timeout = 0;
        for _ in 0..8 {
            timeout = self.poll_current_state(now);
            if timeout > 0 {
                break;
            }
        }
        let parked_deadline = self
            .parked
            .iter()
            .map(|p| p.deadline)
            .min()
            .unwrap_or(i64::MAX);
        let wake = if timeout >= i64::MAX / 2 {
            i64::MAX
        } else {
            now + timeout.max(1)
        };
        self.next_wakeup = wake.min(parked_deadline.max(now + 1));
    }

    fn poll_current_state(&mut self, now: i64) -> i64 {
        match self.state.role() {
            Role::Leader => self.poll_leader(now),
            Role::Candidate => self.poll_candidate(now),
            Role::Prospective => self.poll_prospective(now),
            Role::Follower => self.poll_follower(now),
            Role::Unattached => self.poll_unattached(now),
            Role::Resigned => self.poll_resigned(now),
        }
    }

    fn send_request(
        &mut self,
        now: i64,
        dest: NodeId,
        address: Option<Address>,
        request: Request,
    ) -> (bool, i64) {
        if self.requests.is_backing_off(dest, now) {
            return (false, self.requests.remaining_backoff(dest, now));
        }
        if self.requests.is_ready(dest, now) {
            let correlation_id = self.next_correlation;
            self.next_correlation += 1;
            self.requests
                .on_request_sent(dest, correlation_id, request.api(), now);
            self.actions.push(Action::Send {
                correlation_id,
                destination: dest,
                address,
                request,
            });
            return (true, self.requests.remaining_request_time(dest, now));
        }
        (false, self.requests.remaining_request_time(dest, now))
    }

    fn voter_address(&self, id: NodeId) -> Option<Address> {
        self.control
            .last_voter_set()
            .address(id, &self.cfg.default_listener)
    }

    fn poll_leader(&mut self, now: i64) -> i64 {
        let (resign, cq) = match &self.state {
            State::Leader(l) => (l.resign_requested, l.time_until_check_quorum_expires(now)),
            _ => return i64::MAX,
        };
        if resign || cq == 0 {
            let preferred = match &self.state {
                State::Leader(l) => l.non_leader_voters_by_descending_fetch_offset(),
                _ => Vec::new(),
            };
            self.transition_to_resigned(preferred, now);
            return 0;
        }
        let pending_timeout = self.expire_pending_change(now);
        // BeginQuorumEpoch (re)sends.
        let (due, deadline) = match &self.state {
            State::Leader(l) => (now >= l.begin_quorum_deadline, l.begin_quorum_deadline),
            _ => return i64::MAX,
        };
        let mut begin_timeout = deadline - now;
        if due {
            let targets = match &self.state {
                State::Leader(l) => l.need_begin_quorum_epoch(now),
                _ => Vec::new(),
            };
            let mut min = i64::MAX;
            for key in targets {
                let request = Request::BeginQuorumEpoch(BeginQuorumEpochRequest {
                    cluster_id: Some(self.cfg.cluster_id.clone()),
                    voter_id: key.id,
                    voter_directory_id: key.wire_directory_id(),
                    leader_id: self.local_id().unwrap_or(-1),
                    leader_epoch: self.epoch(),
                    leader_endpoints: self.cfg.listeners.clone(),
                });
                let addr = self.voter_address(key.id);
                let (_, t) = self.send_request(now, key.id, addr, request);
                min = min.min(t);
            }
            if let State::Leader(l) = &mut self.state {
                l.reset_begin_quorum_timer(now);
                begin_timeout = min.min(l.begin_quorum_deadline - now);
            }
        }
        cq.min(pending_timeout).min(begin_timeout.max(1))
    }

    fn expire_pending_change(&mut self, now: i64) -> i64 {
        let State::Leader(l) = &mut self.state else {
            return i64::MAX;
        };
        let Some(p) = &l.pending else {
            return i64::MAX;
        };
        if now < p.deadline() {
            return p.deadline() - now;
        }
        let msg = ErrorCode::RequestTimedOut.default_message();
        let respond = match p {
            PendingChange::Add {
                inbound, responded, ..
            } => (!responded).then(|| {
                (
                    *inbound,
                    Response::AddRaftVoter(VoterChangeResponse::new(
                        ErrorCode::RequestTimedOut,
                        msg,
                    )),
                )
            }),
            PendingChange::Remove { inbound, .. } => Some((
                *inbound,
                Response::RemoveRaftVoter(VoterChangeResponse::new(
                    ErrorCode::RequestTimedOut,
                    msg,
                )),
            )),
        };
        l.pending = None;
        if let Some((inbound, response)) = respond {
            self.actions.push(Action::Respond { inbound, response });
        }
        i64::MAX
    }

    fn vote_request(&self, to: ReplicaKey, pre_vote: bool) -> Request {
        let end = self.end_offset_and_epoch();
        let local = self
            .local_key()
            .unwrap_or(ReplicaKey::without_directory(-1));
        Request::Vote(VoteRequest {
            cluster_id: Some(self.cfg.cluster_id.clone()),
            voter_id: to.id,
            voter_directory_id: to.wire_directory_id(),
            replica_epoch: self.epoch(),
            replica_id: local.id,
            replica_directory_id: local.wire_directory_id(),
            last_offset_epoch: end.epoch,
            last_offset: end.offset,
            pre_vote,
        })
    }

    fn send_vote_requests(&mut self, now: i64) -> i64 {
        let (targets, pre_vote) = match &self.state {
            State::Prospective(s) if !s.election.is_rejected() => (s.election.unrecorded(), true),
            State::Candidate(s) if !s.election.is_rejected() => (s.election.unrecorded(), false),
            _ => return i64::MAX,
        };
        let mut min = i64::MAX;
        for key in targets {
            let req = self.vote_request(key, pre_vote);
            let addr = self.voter_address(key.id);
            let (_, t) = self.send_request(now, key.id, addr, req);
            min = min.min(t);
        }
        min
    }

    fn poll_candidate(&mut self, now: i64) -> i64 {
        let deadline = match &self.state {
            State::Candidate(s) => s.election_deadline,
            _ => return i64::MAX,
        };
        if now >= deadline {
            self.transition_to_prospective(now);
            return 0;
        }
        self.send_vote_requests(now).min(deadline - now)
    }

    fn poll_prospective(&mut self, now: i64) -> i64 {
        let deadline = match &self.state {
            State::Prospective(s) => s.election_deadline,
            _ => return i64::MAX,
        };
        if now >= deadline {
            self.prospective_after_election_loss(now);
            return 0;
        }
        self.send_vote_requests(now).min(deadline - now)
    }

    fn prospective_after_election_loss(&mut self, now: i64) {
        let State::Prospective(s) = &self.state else {
            return;
        };
        let epoch = s.epoch;
        match (s.leader, s.leader_endpoints.is_empty()) {
            (Some(l), false) => {
                let endpoints = s.leader_endpoints.clone();
                self.transition_to_follower(epoch, l, endpoints, now);
            }
            (leader, _) => self.transition_to_unattached(epoch, leader, now),
        }
    }

    fn poll_resigned(&mut self, now: i64) -> i64 {
        let (unacked, deadline, epoch, preferred) = match &self.state {
            State::Resigned(s) => (
                s.unacked.iter().copied().collect::<Vec<_>>(),
                s.election_deadline,
                s.epoch,
                s.preferred_successors.clone(),
            ),
            _ => return i64::MAX,
        };
        let mut min = i64::MAX;
        for id in unacked {
            let Some(addr) = self.voter_address(id) else {
                continue;
            };
            let req = Request::EndQuorumEpoch(EndQuorumEpochRequest {
                cluster_id: Some(self.cfg.cluster_id.clone()),
                leader_id: self.local_id().unwrap_or(-1),
                leader_epoch: epoch,
                preferred_candidates: preferred.clone(),
                leader_endpoints: self.cfg.listeners.clone(),
            });
            let (_, t) = self.send_request(now, id, Some(addr), req);
            min = min.min(t);
        }
        if now >= deadline {
            match epoch.checked_add(1) {
                Some(next) => self.transition_to_unattached(next, None, now),
                None => self.violation("the epoch cannot be increased any further".into()),
            }
            return 0;
        }
        min.min(deadline - now)
    }

    fn poll_unattached(&mut self, now: i64) -> i64 {
        let deadline = match &self.state {
            State::Unattached(s) => s.election_deadline,
            _ => return i64::MAX,
        };
        if self.is_voter() && now >= deadline && !cfg!(feature = "mutate-never-campaign") {
            self.transition_to_prospective(now);
            return 0;
        }
        let backoff = self.send_fetch_to_any_bootstrap(now);
        if deadline == i64::MAX {
            backoff
        } else {
            backoff.min(deadline - now)
        }
    }

    fn send_fetch_to_any_bootstrap(&mut self, now: i64) -> i64 {
        if !self.fetch_allowed() {
            return i64::MAX;
        }
        match self.requests.find_ready_bootstrap(now, self.rng.as_mut()) {
            Some((id, addr)) => {
                let req = self.fetch_request();
                self.send_request(now, id, Some(addr), req).1
            }
            None => self.requests.backoff_before_available_bootstrap(now),
        }
    }

    /// A follower only reports an offset in Fetch once it is durable.
    fn fetch_allowed(&self) -> bool {
        cfg!(feature = "mutate-ack-before-fsync") || self.flushed_offset >= self.log.end_offset()
    }

    fn fetch_request(&self) -> Request {
        Request::Fetch(FetchRequest {
            cluster_id: Some(self.cfg.cluster_id.clone()),
            replica_id: self.local_id().unwrap_or(-1),
            replica_directory_id: self.cfg.directory_id,
            max_wait_ms: self.cfg.fetch_max_wait_ms,
            max_bytes: self.cfg.fetch_max_bytes,
            current_leader_epoch: self.epoch(),
            fetch_offset: self.log.end_offset(),
            last_fetched_epoch: self.log.last_fetched_epoch(),
            high_watermark: self.high_watermark().unwrap_or(-1),
        })
    }

    fn poll_follower(&mut self, now: i64) -> i64 {
        let (fetch_deadline, update_deadline) = match &self.state {
            State::Follower(f) => (f.fetch_deadline, f.update_voter_deadline),
            _ => return i64::MAX,
        };
        if self.is_voter() {
            if now >= fetch_deadline {
                self.transition_to_prospective(now);
                return 0;
            }
            let backoff = if now >= update_deadline {
                if self.should_send_update_voter() {
                    let req = self.update_voter_request();
                    let (sent, t) = self.send_to_leader(now, req);
                    if sent {
                        self.reset_update_voter_timer(now);
                    }
                    t
                } else {
                    self.reset_update_voter_timer(now);
                    self.send_fetch_to_best_node(now)
                }
            } else {
                self.send_fetch_to_best_node(now)
            };
            backoff.min(fetch_deadline - now)
        } else if self.should_send_add_or_remove_voter(now) {
            let local = self.local_key();
            let voters = self.control.last_voter_set().clone();
            let req = match local {
                Some(k) if voters.contains_id(k.id) => {
                    let old = voters.get(k.id).map(|v| v.key).unwrap_or(k);
                    Request::RemoveRaftVoter(RemoveRaftVoterRequest {
                        cluster_id: Some(self.cfg.cluster_id.clone()),
                        voter_id: old.id,
                        voter_directory_id: old.wire_directory_id(),
                        derive_directory_id: false,
                    })
                }
                Some(k) => Request::AddRaftVoter(AddRaftVoterRequest {
                    cluster_id: Some(self.cfg.cluster_id.clone()),
                    timeout_ms: self.cfg.request_timeout_ms as i32,
                    voter_id: k.id,
                    voter_directory_id: k.wire_directory_id(),
                    listeners: self.cfg.listeners.clone(),
                    ack_when_committed: false,
                    derivation: None,
                }),
                None => return self.send_fetch_to_best_node(now),
            };
            let (sent, t) = self.send_to_leader(now, req);
            if sent {
                self.reset_update_voter_timer(now);
            }
            t
        } else {
            self.send_fetch_to_best_node(now)
        }
    }

    fn should_send_add_or_remove_voter(&self, now: i64) -> bool {
        let State::Follower(f) = &self.state else {
            return false;
        };
        self.control.last_kraft_version() >= 1
            && self.cfg.can_become_voter
            && self.cfg.auto_join
            && now >= f.update_voter_deadline
    }

    fn should_send_update_voter(&self) -> bool {
        let State::Follower(f) = &self.state else {
            return false;
        };
        let Some(local) = self.local_voter_node() else {
            return false;
        };
        if self.control.last_kraft_version() >= 1 {
            self.control
                .last_voter_set()
                .voter_node_needs_update(&local)
        } else {
            !f.has_updated_leader
        }
    }

    fn reset_update_voter_timer(&mut self, now: i64) {
        let t = self.cfg.fetch_timeout_ms;
        if let State::Follower(f) = &mut self.state {
            f.update_voter_deadline = now + t;
        }
    }

    fn update_voter_request(&self) -> Request {
        let local = self
            .local_key()
            .unwrap_or(ReplicaKey::without_directory(-1));
        Request::UpdateRaftVoter(UpdateRaftVoterRequest {
            cluster_id: Some(self.cfg.cluster_id.clone()),
            current_leader_epoch: self.epoch(),
            voter_id: local.id,
            voter_directory_id: local.wire_directory_id(),
            listeners: self.cfg.listeners.clone(),
            kraft_version_feature: self.cfg.supported_kraft_version,
        })
    }

    fn leader_address(&self) -> Option<(NodeId, Address)> {
        match &self.state {
            State::Follower(f) => f
                .leader_endpoints
                .address(&self.cfg.default_listener)
                .map(|a| (f.leader, a)),
            _ => None,
        }
    }

    fn send_to_leader(&mut self, now: i64, request: Request) -> (bool, i64) {
        match self.leader_address() {
            Some((id, addr)) => self.send_request(now, id, Some(addr), request),
            None => (false, i64::MAX),
        }
    }

    fn send_fetch_to_best_node(&mut self, now: i64) -> i64 {
        let Some((leader, _)) = self.leader_address() else {
            return self.send_fetch_to_any_bootstrap(now);
        };
        let fetch_deadline = match &self.state {
            State::Follower(f) => f.fetch_deadline,
            _ => i64::MAX,
        };
        let backoff = if self.requests.has_request_timed_out(leader, now) {
            self.requests.reset(leader);
            self.send_fetch_to_any_bootstrap(now)
        } else if self.requests.is_backing_off(leader, now) {
            self.send_fetch_to_any_bootstrap(now)
        } else if !self.requests.has_any_inflight_request(now) {
            self.send_fetch_or_fetch_snapshot(now)
        } else {
            self.requests.backoff_before_available_bootstrap(now)
        };
        backoff.min((fetch_deadline - now).max(0))
    }

    fn send_fetch_or_fetch_snapshot(&mut self, now: i64) -> i64 {
        let snapshot = match &self.state {
            State::Follower(f) => f.fetching_snapshot,
            _ => None,
        };
        let request = match snapshot {
            Some(id) => {
                let position = self.log.snapshot_download_size(id).unwrap_or(0);
                let local = self
                    .local_key()
                    .unwrap_or(ReplicaKey::without_directory(-1));
                Request::FetchSnapshot(FetchSnapshotRequest {
                    cluster_id: Some(self.cfg.cluster_id.clone()),
                    replica_id: local.id,
                    replica_directory_id: self.cfg.directory_id,
                    max_bytes: self.cfg.fetch_snapshot_max_bytes,
                    current_leader_epoch: self.epoch(),
                    snapshot_id: id,
                    position: position as i64,
                })
            }
            None => {
                if !self.fetch_allowed() {
                    return i64::MAX;
                }
                self.fetch_request()
            }
        };
        self.send_to_leader(now, request).1
    }

    // ------------------------------------------------------------------
    // Vote

    fn vote_response(&self, partition_error: ErrorCode, granted: bool) -> VoteResponse {
        VoteResponse {
            error_code: ErrorCode::None,
            partition_error,
            leader_id: self.leader_id_or_nil(),
            leader_epoch: self.epoch(),
            vote_granted: granted,
            leader_endpoint: self.leader_node_endpoint(),
        }
    }

    fn is_valid_voter_key(&self, id: NodeId, dir: Uuid) -> bool {
        if id < 0 {
            return true;
        }
        if Some(id) != self.local_id() {
            return false;
        }
        dir.is_nil() || dir == self.cfg.directory_id
    }

    fn validate_voter_only(&self, remote: NodeId, epoch: i32) -> Option<ErrorCode> {
        if epoch < self.epoch() {
            Some(ErrorCode::FencedLeaderEpoch)
        } else if remote < 0 {
            Some(ErrorCode::InvalidRequest)
        } else {
            None
        }
    }

    fn validate_leader_only(&self, epoch: i32) -> Option<ErrorCode> {
        if epoch < self.epoch() {
            Some(ErrorCode::FencedLeaderEpoch)
        } else if epoch > self.epoch() {
            Some(ErrorCode::UnknownLeaderEpoch)
        } else if !matches!(self.state, State::Leader(_)) {
            Some(ErrorCode::NotLeaderOrFollower)
        } else {
            None
        }
    }

    fn can_grant_vote(&self, candidate: &ReplicaKey, log_up_to_date: bool, pre_vote: bool) -> bool {
        let log_up_to_date = log_up_to_date || cfg!(feature = "mutate-accept-stale-vote");
        match &self.state {
            State::Unattached(Unattached { leader, voted, .. })
            | State::Prospective(Nominee { leader, voted, .. }) => {
                if pre_vote {
                    log_up_to_date
                } else if let Some(v) = voted {
                    if v.id == candidate.id {
                        v.directory_id.is_none() || v.directory_id == candidate.directory_id
                    } else {
                        cfg!(feature = "mutate-vote-twice-per-epoch") && log_up_to_date
                    }
                } else if leader.is_some() {
                    false
                } else {
                    log_up_to_date
                }
            }
            State::Follower(f) => pre_vote && !f.has_fetched && log_up_to_date,
            State::Candidate(_) | State::Resigned(_) => pre_vote && log_up_to_date,
            State::Leader(_) => false,
        }
    }

    fn handle_vote_request(&mut self, r: VoteRequest, now: i64) -> VoteResponse {
        if !self.has_valid_cluster_id(&r.cluster_id) {
            return match Response::error(Api::Vote, ErrorCode::InconsistentClusterId) {
                Response::Vote(v) => v,
                _ => self.vote_response(ErrorCode::InconsistentClusterId, false),
            };
        }
        let illegal_epoch = if r.pre_vote {
            r.last_offset_epoch > r.replica_epoch
        } else {
            r.last_offset_epoch >= r.replica_epoch
        };
        if r.last_offset < 0 || r.last_offset_epoch < 0 || illegal_epoch {
            return self.vote_response(ErrorCode::InvalidRequest, false);
        }
        if let Some(e) = self.validate_voter_only(r.replica_id, r.replica_epoch) {
            return self.vote_response(e, false);
        }
        if r.replica_epoch > self.epoch() {
            self.transition_to_unattached(r.replica_epoch, None, now);
        }
        if !self.is_valid_voter_key(r.voter_id, r.voter_directory_id) {
            return self.vote_response(ErrorCode::InvalidVoterKey, false);
        }
        let candidate = ReplicaKey::of(r.replica_id, r.replica_directory_id);
        let up_to_date =
            OffsetAndEpoch::new(r.last_offset, r.last_offset_epoch) >= self.end_offset_and_epoch();
        let granted = self.can_grant_vote(&candidate, up_to_date, r.pre_vote);
        if !r.pre_vote && granted {
            let epoch = self.epoch();
            let add_vote = match &self.state {
                State::Unattached(s) => s.voted.is_none() && epoch == r.replica_epoch,
                State::Prospective(s) => s.voted.is_none() && epoch == r.replica_epoch,
                _ => false,
            };
            if add_vote && Some(candidate.id) != self.local_id() {
                let timeout = self.random_election_timeout();
                match &mut self.state {
                    State::Unattached(s) => {
                        s.voted = Some(candidate);
                        s.election_deadline = now + timeout;
                    }
                    State::Prospective(s) => {
                        s.voted = Some(candidate);
                        s.election_deadline = now + timeout;
                    }
                    _ => {}
                }
                // The vote must be durable before the response is sent.
                self.persist();
            }
        }
        self.vote_response(ErrorCode::None, granted)
    }

    fn handle_vote_response(&mut self, source: NodeId, r: VoteResponse, now: i64) -> bool {
        if r.error_code == ErrorCode::UnsupportedVersion && self.role() == Role::Prospective {
            self.transition_to_candidate(now);
            return true;
        } else if r.error_code != ErrorCode::None {
            return false;
        }
        let leader = (r.leader_id >= 0).then_some(r.leader_id);
        let endpoints = self.endpoints_from_response(leader, &r.leader_endpoint);
        if let Some(done) =
            self.handle_common_response(r.partition_error, leader, r.leader_epoch, endpoints, now)
        {
            return done;
        }
        if r.partition_error != ErrorCode::None {
            return false;
        }
        match &mut self.state {
            State::Prospective(s) | State::Candidate(s) => {
                s.election.record(source, r.vote_granted);
            }
            _ => return true,
        }
        let (granted, rejected) = match &self.state {
            State::Prospective(s) | State::Candidate(s) => {
                (s.election.is_granted(), s.election.is_rejected())
            }
            _ => (false, false),
        };
        match self.role() {
            Role::Prospective if granted => self.transition_to_candidate(now),
            Role::Prospective if rejected => self.prospective_after_election_loss(now),
            Role::Candidate if granted => self.become_leader(now),
            _ => {}
        }
        true
    }

    // ------------------------------------------------------------------
    // BeginQuorumEpoch / EndQuorumEpoch

    fn quorum_epoch_response(&self, partition_error: ErrorCode) -> QuorumEpochResponse {
        QuorumEpochResponse {
            error_code: ErrorCode::None,
            partition_error,
            leader_id: self.leader_id_or_nil(),
            leader_epoch: self.epoch(),
            leader_endpoint: self.leader_node_endpoint(),
        }
    }

    fn top_level_quorum_epoch_error(error: ErrorCode) -> QuorumEpochResponse {
        QuorumEpochResponse {
            error_code: error,
            partition_error: ErrorCode::None,
            leader_id: -1,
            leader_epoch: -1,
            leader_endpoint: None,
        }
    }

    fn handle_begin_quorum_epoch(
        &mut self,
        r: BeginQuorumEpochRequest,
        now: i64,
    ) -> QuorumEpochResponse {
        if !self.has_valid_cluster_id(&r.cluster_id) {
            return Self::top_level_quorum_epoch_error(ErrorCode::InconsistentClusterId);
        }
        if let Some(e) = self.validate_voter_only(r.leader_id, r.leader_epoch) {
            return self.quorum_epoch_response(e);
        }
        let endpoints = if r.leader_endpoints.is_empty() {
            self.control.last_voter_set().listeners(r.leader_id)
        } else {
            r.leader_endpoints.clone()
        };
        self.maybe_transition(Some(r.leader_id), r.leader_epoch, endpoints, now);
        if !self.is_valid_voter_key(r.voter_id, r.voter_directory_id) {
            return self.quorum_epoch_response(ErrorCode::InvalidVoterKey);
        }
        self.quorum_epoch_response(ErrorCode::None)
    }

    fn handle_begin_quorum_epoch_response(
        &mut self,
        source: NodeId,
        r: QuorumEpochResponse,
        now: i64,
    ) -> bool {
        if r.error_code != ErrorCode::None {
            return false;
        }
        let leader = (r.leader_id >= 0).then_some(r.leader_id);
        let endpoints = self.endpoints_from_response(leader, &r.leader_endpoint);
        if let Some(done) =
            self.handle_common_response(r.partition_error, leader, r.leader_epoch, endpoints, now)
        {
            return done;
        }
        if r.partition_error != ErrorCode::None {
            return false;
        }
        if let State::Leader(l) = &mut self.state {
            if let Some(s) = l.voters.get_mut(&source) {
                s.acked = true;
            }
        }
        true
    }

    fn handle_end_quorum_epoch(
        &mut self,
        r: EndQuorumEpochRequest,
        now: i64,
    ) -> QuorumEpochResponse {
        if !self.has_valid_cluster_id(&r.cluster_id) {
            return Self::top_level_quorum_epoch_error(ErrorCode::InconsistentClusterId);
        }
        if let Some(e) = self.validate_voter_only(r.leader_id, r.leader_epoch) {
            return self.quorum_epoch_response(e);
        }
        let endpoints = if r.leader_endpoints.is_empty() {
            self.control.last_voter_set().listeners(r.leader_id)
        } else {
            r.leader_endpoints.clone()
        };
        self.maybe_transition(Some(r.leader_id), r.leader_epoch, endpoints, now);
        let is_follower_of_leader =
            matches!(&self.state, State::Follower(f) if f.leader == r.leader_id);
        if is_follower_of_leader {
            let backoff = self.end_epoch_election_backoff(&r.preferred_candidates);
            if let State::Follower(f) = &mut self.state {
                f.fetch_deadline = now + backoff;
            }
        }
        self.quorum_epoch_response(ErrorCode::None)
    }

    fn end_epoch_election_backoff(&self, preferred: &[ReplicaKey]) -> i64 {
        let mut position = 0usize;
        for c in preferred {
            if Some(c.id) == self.local_id()
                && (c.directory_id.is_none() || c.directory_id == Some(self.cfg.directory_id))
            {
                break;
            }
            position += 1;
        }
        let max = self.cfg.election_backoff_max_ms;
        let n = preferred.len();
        if position == 0 {
            0
        } else if position >= n {
            max
        } else {
            let base = max >> (n - 1).min(62);
            max.min(base << (position - 1).min(62))
        }
    }

    fn handle_end_quorum_epoch_response(
        &mut self,
        source: NodeId,
        r: QuorumEpochResponse,
        now: i64,
    ) -> bool {
        if r.error_code != ErrorCode::None {
            return false;
        }
        let leader = (r.leader_id >= 0).then_some(r.leader_id);
        let endpoints = self.endpoints_from_response(leader, &r.leader_endpoint);
        if let Some(done) =
            self.handle_common_response(r.partition_error, leader, r.leader_epoch, endpoints, now)
        {
            return done;
        }
        if r.partition_error != ErrorCode::None {
            return false;
        }
        if let State::Resigned(s) = &mut self.state {
            s.unacked.remove(&source);
        }
        true
    }

    // ------------------------------------------------------------------
    // Fetch (leader side)

    fn fetch_response(&self, partition_error: ErrorCode, hw: Option<i64>) -> FetchResponse {
        FetchResponse {
            error_code: ErrorCode::None,
            partition_error,
            high_watermark: hw.unwrap_or(-1),
            log_start_offset: self.log.start_offset(),
            diverging_epoch: None,
            leader_id: self.leader_id_or_nil(),
            leader_epoch: self.epoch(),
            snapshot_id: None,
            records: Vec::new(),
            leader_endpoint: self.leader_node_endpoint(),
        }
    }

    fn handle_fetch_request(
        &mut self,
        inbound: InboundId,
        r: FetchRequest,
        now: i64,
    ) -> Option<FetchResponse> {
        if !self.has_valid_cluster_id(&r.cluster_id) {
            return match Response::error(Api::Fetch, ErrorCode::InconsistentClusterId) {
                Response::Fetch(f) => Some(f),
                _ => None,
            };
        }
        if r.max_wait_ms < 0
            || r.fetch_offset < 0
            || r.last_fetched_epoch < 0
            || r.last_fetched_epoch > r.current_leader_epoch
        {
            return Some(self.fetch_response(ErrorCode::InvalidRequest, None));
        }
        let resp = self.try_complete_fetch(&r, now);
        if resp.partition_error != ErrorCode::None
            || !resp.records.is_empty()
            || r.max_wait_ms == 0
            || resp.diverging_epoch.is_some()
            || resp.snapshot_id.is_some()
            || r.high_watermark < resp.high_watermark
        {
            return Some(resp);
        }
        self.parked.push(ParkedFetch {
            inbound,
            deadline: now + r.max_wait_ms as i64,
            request: r,
            original: resp,
        });
        None
    }

    fn try_complete_fetch(&mut self, r: &FetchRequest, now: i64) -> FetchResponse {
        if let Some(e) = self.validate_leader_only(r.current_leader_epoch) {
            return self.fetch_response(e, None);
        }
        let position = if cfg!(feature = "mutate-skip-divergence-check") {
            match fetch_position(&self.log, r.fetch_offset, r.last_fetched_epoch) {
                FetchPosition::Diverging(_) => FetchPosition::Valid,
                other => other,
            }
        } else {
            fetch_position(&self.log, r.fetch_offset, r.last_fetched_epoch)
        };
        let mut records = Vec::new();
        if position == FetchPosition::Valid {
            records = self.log.read(r.fetch_offset, r.max_bytes.max(0) as usize);
            let key = ReplicaKey::of(r.replica_id, r.replica_directory_id);
            let changed = if Some(key.id) == self.local_id() {
                false
            } else {
                match &mut self.state {
                    State::Leader(l) => l.update_replica_state(&key, now, r.fetch_offset),
                    _ => false,
                }
            };
            if changed {
                self.on_leader_hw_update(now);
            }
        }
        let mut resp = self.fetch_response(ErrorCode::None, self.high_watermark());
        resp.records = records;
        match position {
            FetchPosition::Diverging(d) if cfg!(feature = "mutate-diverge-too-far") => {
                resp.diverging_epoch = Some(OffsetAndEpoch::new((d.offset - 1).max(0), d.epoch))
            }
            FetchPosition::Diverging(d) => resp.diverging_epoch = Some(d),
            FetchPosition::Snapshot(s) => resp.snapshot_id = Some(s),
            FetchPosition::Valid => {}
        }
        resp
    }

    fn complete_all_parked(&mut self, now: i64) {
        for p in std::mem::take(&mut self.parked) {
            let resp = self.try_complete_fetch(&p.request, now);
            self.actions.push(Action::Respond {
                inbound: p.inbound,
                response: Response::Fetch(resp),
            });
        }
    }

    fn expire_parked_fetches(&mut self, now: i64) {
        let (expired, keep): (Vec<_>, Vec<_>) = std::mem::take(&mut self.parked)
            .into_iter()
            .partition(|p| now >= p.deadline);
        self.parked = keep;
        for p in expired {
            self.actions.push(Action::Respond {
                inbound: p.inbound,
                response: Response::Fetch(p.original),
            });
        }
    }

    // ------------------------------------------------------------------
    // Fetch (follower side)

    fn handle_fetch_response(&mut self, r: FetchResponse, now: i64) -> bool {
        if r.error_code != ErrorCode::None {
            return false;
        }
        let leader = (r.leader_id >= 0).then_some(r.leader_id);
        let endpoints = self.endpoints_from_response(leader, &r.leader_endpoint);
        if let Some(done) =
            self.handle_common_response(r.partition_error, leader, r.leader_epoch, endpoints, now)
        {
            return done;
        }
        if !matches!(self.state, State::Follower(_)) {
            return false;
        }
        if r.partition_error != ErrorCode::None {
            return false;
        }
        if let Some(d) = r.diverging_epoch.filter(|d| d.epoch >= 0) {
            let hw = self.high_watermark();
            if hw.is_some_and(|hw| d.offset < hw) {
                self.violation(format!(
                    "leader requested truncation to {} below the high watermark {hw:?}",
                    d.offset
                ));
                return false;
            }
            let target = if d.epoch == 0 {
                d.offset.min(self.log.end_offset())
            } else {
                let local = self.log.end_offset_for_epoch(d.epoch);
                if local.epoch == d.epoch {
                    local.offset.min(d.offset)
                } else {
                    local.offset
                }
            };
            if hw.is_some_and(|hw| target < hw) {
                self.violation(format!(
                    "truncation to {target} would go below the high watermark {hw:?}"
                ));
                return false;
            }
            let new_end = self.log.truncate_to(target);
            self.after_truncation(new_end);
        } else if let Some(s) = r.snapshot_id.filter(|s| s.epoch >= 0 || s.offset >= 0) {
            if s.epoch < 0 || s.offset < 0 {
                return false;
            }
            match self.log.begin_snapshot_download(s) {
                Ok(true) => {
                    if let State::Follower(f) = &mut self.state {
                        f.fetching_snapshot = Some(s);
                    }
                }
                Ok(false) => tracing::info!(?s, "snapshot already stored"),
                Err(e) => {
                    tracing::warn!("cannot start snapshot download: {e}");
                    return false;
                }
            }
        } else {
            self.append_as_follower(r.records);
            self.update_follower_hw(r.high_watermark);
        }
        if let State::Follower(f) = &mut self.state {
            f.fetch_deadline = now + self.cfg.fetch_timeout_ms;
            f.has_fetched = true;
        }
        true
    }

    // ------------------------------------------------------------------
    // FetchSnapshot

    fn fetch_snapshot_response(&self, partition_error: ErrorCode) -> FetchSnapshotResponse {
        FetchSnapshotResponse {
            error_code: ErrorCode::None,
            partition_error,
            snapshot_id: OffsetAndEpoch::new(-1, -1),
            leader_id: self.leader_id_or_nil(),
            leader_epoch: self.epoch(),
            size: -1,
            position: -1,
            unaligned_records: Bytes::new(),
            leader_endpoint: self.leader_node_endpoint(),
        }
    }

    fn handle_fetch_snapshot_request(
        &mut self,
        r: FetchSnapshotRequest,
        now: i64,
    ) -> FetchSnapshotResponse {
        if !self.has_valid_cluster_id(&r.cluster_id) {
            return match Response::error(Api::FetchSnapshot, ErrorCode::InconsistentClusterId) {
                Response::FetchSnapshot(f) => f,
                _ => self.fetch_snapshot_response(ErrorCode::InconsistentClusterId),
            };
        }
        if let Some(e) = self.validate_leader_only(r.current_leader_epoch) {
            return self.fetch_snapshot_response(e);
        }
        if r.snapshot_id == BOOTSTRAP_SNAPSHOT_ID {
            return self.fetch_snapshot_response(ErrorCode::SnapshotNotFound);
        }
        let max = r.max_bytes.max(0) as usize;
        let Some((_, size)) = self.log.read_snapshot(r.snapshot_id, 0, 0) else {
            return self.fetch_snapshot_response(ErrorCode::SnapshotNotFound);
        };
        if r.position < 0 || r.position as u64 >= size {
            return self.fetch_snapshot_response(ErrorCode::PositionOutOfRange);
        }
        let Some((bytes, size)) = self
            .log
            .read_snapshot(r.snapshot_id, r.position as u64, max)
        else {
            return self.fetch_snapshot_response(ErrorCode::SnapshotNotFound);
        };
        let key = ReplicaKey::of(r.replica_id, r.replica_directory_id);
        if let State::Leader(l) = &mut self.state {
            l.update_check_quorum(&key, now);
        }
        let mut resp = self.fetch_snapshot_response(ErrorCode::None);
        resp.snapshot_id = r.snapshot_id;
        resp.size = size as i64;
        resp.position = r.position;
        resp.unaligned_records = bytes;
        resp
    }

    fn handle_fetch_snapshot_response(&mut self, r: FetchSnapshotResponse, now: i64) -> bool {
        if r.error_code != ErrorCode::None {
            return false;
        }
        let leader = (r.leader_id >= 0).then_some(r.leader_id);
        let endpoints = self.endpoints_from_response(leader, &r.leader_endpoint);
        if let Some(done) =
            self.handle_common_response(r.partition_error, leader, r.leader_epoch, endpoints, now)
        {
            return done;
        }
        let Some(id) = (match &self.state {
            State::Follower(f) => f.fetching_snapshot,
            _ => return false,
        }) else {
            return false;
        };
        if r.partition_error == ErrorCode::SnapshotNotFound
            || r.snapshot_id.offset < 0
            || r.snapshot_id.epoch < 0
        {
            self.log.abort_snapshot_download(id);
            if let State::Follower(f) = &mut self.state {
                f.fetching_snapshot = None;
                f.fetch_deadline = now + self.cfg.fetch_timeout_ms;
                f.has_fetched = true;
            }
            return true;
        } else if r.partition_error != ErrorCode::None {
            return false;
        }
        let size = self.log.snapshot_download_size(id).unwrap_or(0);
        if r.snapshot_id != id || r.position < 0 || r.position as u64 != size {
            self.violation(format!(
                "unexpected FetchSnapshot response for {:?} at {} (expected {id:?} at {size})",
                r.snapshot_id, r.position
            ));
            return false;
        }
        let new_size = match self.log.append_snapshot_chunk(id, &r.unaligned_records) {
            Ok(s) => s,
            Err(e) => {
                tracing::warn!("snapshot chunk rejected: {e}");
                return false;
            }
        };
        if r.size >= 0 && new_size >= r.size as u64 {
            if let Err(e) = self.log.complete_snapshot_download(id) {
                tracing::warn!("snapshot install failed: {e}");
                if let State::Follower(f) = &mut self.state {
                    f.fetching_snapshot = None;
                }
                return false;
            }
            if let State::Follower(f) = &mut self.state {
                f.fetching_snapshot = None;
            }
            self.stats.snapshots_installed += 1;
            let end = self.log.end_offset();
            for (_, cap) in self.flush_queue.iter_mut() {
                *cap = (*cap).min(end);
            }
            self.flushed_offset = end;
            self.reload_control_state();
            self.update_follower_hw(id.offset);
        }
        if let State::Follower(f) = &mut self.state {
            f.fetch_deadline = now + self.cfg.fetch_timeout_ms;
            f.has_fetched = true;
        }
        true
    }

    // ------------------------------------------------------------------
    // AddRaftVoter / RemoveRaftVoter / UpdateRaftVoter (leader side)

    fn check_common_voter_change(&mut self, now: i64) -> Option<(ErrorCode, String)> {
        let State::Leader(l) = &mut self.state else {
            return None;
        };
        if let Some(p) = &l.pending {
            if now >= p.deadline() {
                // Expired operations are failed first.
                self.expire_pending_change(now);
            }
        }
        let State::Leader(l) = &self.state else {
            return None;
        };
        if l.pending.is_some() && !cfg!(feature = "mutate-skip-one-change-check") {
            return Some((
                ErrorCode::RequestTimedOut,
                "Request timed out waiting for leader to handle previous voter change request"
                    .into(),
            ));
        }
        if l.high_watermark.is_none() {
            return Some((
                ErrorCode::RequestTimedOut,
                "Request timed out waiting for leader to establish HWM and fence previous voter changes".into(),
            ));
        }
        None
    }

    /// Steps 1-2 of AddRaftVoter and RemoveRaftVoter: the cluster id, then
    /// the leader-only check (no epoch in the request: the local one).
    fn check_voter_change_target(
        &self,
        cluster_id: &Option<String>,
    ) -> Option<VoterChangeResponse> {
        if !self.has_valid_cluster_id(cluster_id) {
            return Some(VoterChangeResponse::new(
                ErrorCode::InconsistentClusterId,
                format!(
                    "The given id \"{}\" doesn't match the cluster id \"{}\"",
                    cluster_id.as_deref().unwrap_or_default(),
                    self.cfg.cluster_id
                ),
            ));
        }
        self.validate_leader_only(self.epoch())
            .map(|e| VoterChangeResponse::new(e, ""))
    }

    /// The checks add and remove share after the request's own: no pending
    /// change, a known HW, `kraft.version` >= 1 and a committed latest voter
    /// set, which is returned. `verb` is "adding" or "removing".
    fn committed_voters_for_change(
        &mut self,
        verb: &str,
        now: i64,
    ) -> Result<VoterSet, VoterChangeResponse> {
        if let Some((code, msg)) = self.check_common_voter_change(now) {
            return Err(VoterChangeResponse::new(code, msg));
        }
        let hw = self.high_watermark().unwrap_or(-1);
        let kraft = self.control.last_kraft_version();
        if kraft < 1 && !cfg!(feature = "mutate-skip-kraft-version-check") {
            return Err(VoterChangeResponse::new(
                ErrorCode::UnsupportedVersion,
                format!("Cluster doesn't support {verb} voter because the kraft.version feature is {kraft}"),
            ));
        }
        let skip = cfg!(feature = "mutate-skip-one-change-check");
        match self.control.last_voter_set_entry() {
            Some((offset, voters)) if offset < hw || skip => Ok(voters.clone()),
            other => Err(VoterChangeResponse::new(
                ErrorCode::RequestTimedOut,
                format!(
                    "Request timed out waiting for voters to commit the latest voter change at {} with HWM {hw}",
                    match other {
                        Some((o, _)) => format!("Optional[{o}]"),
                        None => "Optional.empty".into(),
                    }
                ),
            )),
        }
    }

    /// KIP-1141: the directory id of the one observer with node id `id`
    /// that the leader currently tracks (the DescribeQuorum observers).
    fn derive_observer_directory_id(
        &mut self,
        id: NodeId,
        now: i64,
    ) -> Result<Uuid, VoterChangeResponse> {
        let State::Leader(l) = &mut self.state else {
            return Err(VoterChangeResponse::new(ErrorCode::NotLeaderOrFollower, ""));
        };
        l.clear_inactive_observers(now);
        let found: Vec<Uuid> = l
            .observers
            .keys()
            .filter(|k| k.id == id)
            .filter_map(|k| k.directory_id)
            .collect();
        match found.as_slice() {
            [one] => Ok(*one),
            [] => Err(VoterChangeResponse::new(
                ErrorCode::InvalidRequest,
                format!(
                    "Cannot derive the directory id of voter {id}: no observer with node id {id} is replicating \
                     the metadata log. Start the controller first, or give its directory id explicitly."
                ),
            )),
            many => {
                let ids: Vec<String> = many.iter().map(kraft_protocol::kafka_uuid::to_string).collect();
                Err(VoterChangeResponse::new(
                    ErrorCode::InvalidRequest,
                    format!(
                        "Cannot derive the directory id of voter {id}: more than one observer with node id {id} is \
                         replicating the metadata log (directory ids {}). Stop the duplicates or give the directory \
                         id explicitly.",
                        ids.join(", ")
                    ),
                ))
            }
        }
    }

    fn handle_add_voter(
        &mut self,
        inbound: InboundId,
        mut r: AddRaftVoterRequest,
        now: i64,
    ) -> Option<VoterChangeResponse> {
        if let Some(refused) = self.check_voter_change_target(&r.cluster_id) {
            return Some(refused);
        }
        let derivation = r.derivation.take();
        // Versions 0-1 need the complete key; v2 derives a zero directory id.
        if r.voter_id < 0 || (derivation.is_none() && r.voter_directory_id.is_nil()) {
            return Some(VoterChangeResponse::new(
                ErrorCode::InvalidRequest,
                "Add voter request didn't include a valid voter",
            ));
        }
        let missing_listener = |r: &AddRaftVoterRequest, default: &str| {
            VoterChangeResponse::new(
                ErrorCode::InvalidRequest,
                format!(
                    "Add voter request didn't include the endpoint ({}) for the default listener {default}",
                    r.listeners
                ),
            )
        };
        if derivation.is_none() && r.listeners.address(&self.cfg.default_listener).is_none() {
            return Some(missing_listener(&r, &self.cfg.default_listener));
        }
        let voters = match self.committed_voters_for_change("adding", now) {
            Ok(voters) => voters,
            Err(refused) => return Some(refused),
        };
        if voters.contains_id(r.voter_id) {
            return Some(VoterChangeResponse::new(
                ErrorCode::DuplicateVoter,
                format!(
                    "The voter id for {} is already part of the set of voters {}.",
                    ReplicaKey::of(r.voter_id, r.voter_directory_id),
                    voters.keys_display()
                ),
            ));
        }
        if let Some(derivation) = derivation {
            if r.voter_directory_id.is_nil() {
                match self.derive_observer_directory_id(r.voter_id, now) {
                    Ok(dir) => r.voter_directory_id = dir,
                    Err(refused) => return Some(refused),
                }
            }
            if r.listeners.is_empty() {
                let id = r.voter_id;
                match derivation.registered_listeners {
                    Some(registered) => r.listeners = registered,
                    None => {
                        return Some(VoterChangeResponse::new(
                            ErrorCode::InvalidRequest,
                            format!(
                                "Cannot derive the endpoints of voter {id}: controller {id} is not registered. \
                                 Give its endpoints explicitly."
                            ),
                        ))
                    }
                }
            }
        }
        let key = ReplicaKey::of(r.voter_id, r.voter_directory_id);
        let Some(address) = r.listeners.address(&self.cfg.default_listener) else {
            return Some(missing_listener(&r, &self.cfg.default_listener));
        };
        let (sent, _) = self.send_request(now, key.id, Some(address), Request::ApiVersions);
        if !sent {
            return Some(VoterChangeResponse::new(
                ErrorCode::RequestTimedOut,
                format!("New voter {key} is not ready to receive requests"),
            ));
        }
        let correlation = self.next_correlation - 1;
        let deadline = now + self.cfg.request_timeout_ms;
        if let State::Leader(l) = &mut self.state {
            l.pending = Some(PendingChange::Add {
                inbound,
                key,
                endpoints: r.listeners,
                ack_when_committed: r.ack_when_committed,
                deadline,
                probe_correlation: Some(correlation),
                last_offset: None,
                responded: false,
            });
        }
        None
    }

    fn handle_api_versions_response(
        &mut self,
        source: NodeId,
        correlation_id: u64,
        r: ApiVersionsResponse,
        now: i64,
    ) -> bool {
        let kraft = self.control.last_kraft_version();
        let State::Leader(l) = &mut self.state else {
            return true;
        };
        let Some(PendingChange::Add {
            inbound,
            key,
            endpoints,
            ack_when_committed,
            probe_correlation,
            last_offset,
            ..
        }) = &l.pending
        else {
            return true;
        };
        if key.id != source || last_offset.is_some() || *probe_correlation != Some(correlation_id) {
            return true;
        }
        let (inbound, key, endpoints, ack) =
            (*inbound, *key, endpoints.clone(), *ack_when_committed);
        if r.error_code != ErrorCode::None {
            l.pending = None;
            self.actions.push(Action::Respond {
                inbound,
                response: Response::AddRaftVoter(VoterChangeResponse::new(
                    ErrorCode::RequestTimedOut,
                    format!(
                        "Aborted add voter operation for since API_VERSIONS returned an error {}",
                        r.error_code
                    ),
                )),
            });
            return false;
        }
        let valid = r.kraft_version.is_some_and(|range| range.contains(kraft));
        if !valid {
            l.pending = None;
            let range = match r.kraft_version {
                Some(range) => format!("(min: {}, max: {}", range.min, range.max),
                None => "(min: 0, max: 0)".into(),
            };
            self.actions.push(Action::Respond {
                inbound,
                response: Response::AddRaftVoter(VoterChangeResponse::new(
                    ErrorCode::InvalidRequest,
                    format!(
                        "Aborted add voter operation for {key} since the kraft.version range {range} doesn't support the finalized version {kraft}"
                    ),
                )),
            });
            return true;
        }
        if !l.is_replica_caught_up(&key, now) {
            l.pending = None;
            self.actions.push(Action::Respond {
                inbound,
                response: Response::AddRaftVoter(VoterChangeResponse::new(
                    ErrorCode::RequestTimedOut,
                    format!("Aborted add voter operation for {key} since it is lagging behind"),
                )),
            });
            return true;
        }
        let range = r.kraft_version.unwrap_or(KRaftVersionRange::new(0, 0));
        let Some(new_voters) = self
            .control
            .last_voter_set()
            .add_voter(VoterNode::new(key, endpoints, range))
        else {
            if let State::Leader(l) = &mut self.state {
                l.pending = None;
            }
            self.actions.push(Action::Respond {
                inbound,
                response: Response::AddRaftVoter(VoterChangeResponse::new(
                    ErrorCode::UnknownServerError,
                    "",
                )),
            });
            return true;
        };
        let offset = match self.append_voters_record(new_voters, now) {
            Some(o) => o,
            None => return true,
        };
        if let State::Leader(l) = &mut self.state {
            if let Some(PendingChange::Add {
                last_offset,
                responded,
                ..
            }) = &mut l.pending
            {
                *last_offset = Some(offset);
                if !ack {
                    *responded = true;
                }
            }
        }
        if !ack {
            self.actions.push(Action::Respond {
                inbound,
                response: Response::AddRaftVoter(VoterChangeResponse::code(ErrorCode::None)),
            });
        }
        true
    }

    /// Appends a control batch with a VotersRecord; returns its offset.
    fn append_voters_record(&mut self, voters: VoterSet, now: i64) -> Option<i64> {
        let offset = self.log.end_offset();
        let batch = Batch {
            base_offset: offset,
            epoch: self.epoch(),
            append_time: now,
            records: vec![Record::Control(ControlRecord::Voters(voters))],
        };
        match self.append_as_leader(batch, now) {
            Ok(()) => Some(offset),
            Err(e) => {
                self.violation(format!("failed to append a VotersRecord: {e}"));
                None
            }
        }
    }

    fn handle_remove_voter(
        &mut self,
        inbound: InboundId,
        r: RemoveRaftVoterRequest,
        now: i64,
    ) -> Option<VoterChangeResponse> {
        if let Some(refused) = self.check_voter_change_target(&r.cluster_id) {
            return Some(refused);
        }
        // Version 0 needs the complete key; v1 derives a zero directory id.
        if r.voter_id < 0 || (!r.derive_directory_id && r.voter_directory_id.is_nil()) {
            return Some(VoterChangeResponse::new(
                ErrorCode::InvalidRequest,
                "Remove voter request didn't include a valid voter",
            ));
        }
        let voters = match self.committed_voters_for_change("removing", now) {
            Ok(voters) => voters,
            Err(refused) => return Some(refused),
        };
        let asked = ReplicaKey::of(r.voter_id, r.voter_directory_id);
        // KIP-1141: the latest voter set's directory id for that node id.
        let key = if asked.directory_id.is_none() {
            voters
                .get(r.voter_id)
                .map(|v| v.key)
                .filter(|k| k.directory_id.is_some())
        } else {
            Some(asked)
        };
        let Some(new_voters) = key.and_then(|k| voters.remove_voter(&k)) else {
            return Some(VoterChangeResponse::new(
                ErrorCode::VoterNotFound,
                format!(
                    "Cannot remove voter {} from the set of voters {}",
                    key.unwrap_or(asked),
                    voters.keys_display()
                ),
            ));
        };
        let offset = self.append_voters_record(new_voters, now)?;
        let deadline = now + self.cfg.request_timeout_ms;
        if let State::Leader(l) = &mut self.state {
            l.pending = Some(PendingChange::Remove {
                inbound,
                last_offset: offset,
                deadline,
            });
        }
        None
    }

    fn update_voter_response(&self, error: ErrorCode) -> UpdateRaftVoterResponse {
        UpdateRaftVoterResponse {
            error_code: error,
            leader_id: self.leader_id_or_nil(),
            leader_epoch: self.epoch(),
            leader_address: self.leader_endpoints().address(&self.cfg.default_listener),
        }
    }

    fn handle_update_voter(
        &mut self,
        r: UpdateRaftVoterRequest,
        now: i64,
    ) -> UpdateRaftVoterResponse {
        if !self.has_valid_cluster_id(&r.cluster_id) {
            return self.update_voter_response(ErrorCode::InconsistentClusterId);
        }
        if let Some(e) = self.validate_leader_only(r.current_leader_epoch) {
            return self.update_voter_response(e);
        }
        let key = ReplicaKey::of(r.voter_id, r.voter_directory_id);
        if r.voter_id < 0 || key.directory_id.is_none() {
            return self.update_voter_response(ErrorCode::InvalidRequest);
        }
        if r.listeners.address(&self.cfg.default_listener).is_none() {
            return self.update_voter_response(ErrorCode::InvalidRequest);
        }
        let range = r.kraft_version_feature;
        if range.min < 0 || range.max < 0 || range.max < range.min {
            return self.update_voter_response(ErrorCode::InvalidRequest);
        }
        if let Some((code, _)) = self.check_common_voter_change(now) {
            return self.update_voter_response(code);
        }
        let hw = self.high_watermark().unwrap_or(-1);
        let kraft = self.control.last_kraft_version();
        let voters = if kraft >= 1 {
            match self.control.last_voter_set_entry() {
                Some((offset, v)) if offset < hw => v.clone(),
                _ => return self.update_voter_response(ErrorCode::RequestTimedOut),
            }
        } else {
            match &self.state {
                State::Leader(l) => match &l.volatile_voters {
                    Some(v) => v.clone(),
                    None => return self.update_voter_response(ErrorCode::RequestTimedOut),
                },
                _ => return self.update_voter_response(ErrorCode::NotLeaderOrFollower),
            }
        };
        if !range.contains(kraft) {
            return self.update_voter_response(ErrorCode::InvalidRequest);
        }
        let node = VoterNode::new(key, r.listeners.clone(), range);
        let updated = if kraft >= 1 {
            voters.update_voter(node)
        } else {
            voters.update_voter_ignoring_directory_id(node)
        };
        let Some(updated) = updated else {
            return self.update_voter_response(ErrorCode::VoterNotFound);
        };
        if kraft >= 1 {
            if self.append_voters_record(updated, now).is_none() {
                return self.update_voter_response(ErrorCode::UnknownServerError);
            }
        } else if let State::Leader(l) = &mut self.state {
            l.volatile_voters = Some(updated);
        }
        if let State::Leader(l) = &mut self.state {
            l.update_check_quorum(&key, now);
        }
        self.update_voter_response(ErrorCode::None)
    }

    fn handle_voter_change_response(
        &mut self,
        r: VoterChangeResponse,
        add: bool,
        now: i64,
    ) -> bool {
        let expected = if add {
            ErrorCode::DuplicateVoter
        } else {
            ErrorCode::VoterNotFound
        };
        if r.error_code == ErrorCode::None
            || r.error_code == ErrorCode::RequestTimedOut
            || r.error_code == expected
        {
            self.reset_update_voter_timer(now);
            true
        } else {
            false
        }
    }

    fn handle_update_voter_response(&mut self, r: UpdateRaftVoterResponse, now: i64) -> bool {
        let leader = (r.leader_id >= 0).then_some(r.leader_id);
        let endpoints = match (&leader, &r.leader_address) {
            (Some(_), Some(a)) if !a.host.is_empty() => {
                Endpoints::single(self.cfg.default_listener.clone(), a.host.clone(), a.port)
            }
            _ => Endpoints::empty(),
        };
        if let Some(done) =
            self.handle_common_response(r.error_code, leader, r.leader_epoch, endpoints, now)
        {
            return done;
        }
        if r.error_code == ErrorCode::None || r.error_code == ErrorCode::UnsupportedVersion {
            if let State::Follower(f) = &mut self.state {
                f.has_updated_leader = true;
                f.fetch_deadline = now + self.cfg.fetch_timeout_ms;
                f.has_fetched = true;
            }
            true
        } else {
            false
        }
    }

    // ------------------------------------------------------------------
    // kraft.version upgrade

    /// Upgrades `kraft.version` as the leader of `epoch` (Kafka's
    /// `KafkaRaftClient.upgradeKRaftVersion`): only 0 → 1, only once every
    /// static voter has told this leader its directory id and supported
    /// range with UpdateRaftVoter, and all of them support the new level.
    /// Appends one control batch with a KRaftVersionRecord and, when the
    /// learned voters differ from the persisted ones, a VotersRecord.
    /// Returns `Ok(false)` when `version` is already in effect and
    /// `Ok(true)` when the upgrade was appended (or, with `validate_only`,
    /// would be).
    pub fn upgrade_kraft_version(
        &mut self,
        epoch: i32,
        version: i16,
        validate_only: bool,
        now: i64,
    ) -> Result<bool, UpgradeError> {
        let State::Leader(l) = &self.state else {
            return Err(UpgradeError::not_leader(
                "Upgrade kraft version failed because the replica is not the current leader".into(),
            ));
        };
        if epoch < l.epoch {
            return Err(UpgradeError::not_leader(format!(
                "Upgrade kraft version failed because the given epoch {epoch} is stale. Current leader epoch is {}",
                l.epoch
            )));
        }
        if epoch > l.epoch {
            return Err(UpgradeError::invalid(format!(
                "Attempt to append from epoch {epoch} which is larger than the current epoch of {}",
                l.epoch
            )));
        }
        let persisted = self.control.last_kraft_version();
        let name = |v: i16| format!("KRAFT_VERSION_{v}");
        if persisted == version {
            return Ok(false);
        }
        if persisted > version {
            return Err(UpgradeError::invalid(format!(
                "Invalid upgrade of kraft.version from version {} to {} because the new version is a downgrade",
                name(persisted),
                name(version)
            )));
        }
        // Only 0 -> 1 exists: the learned (in-memory) voters of kraft.version 0.
        let Some(learned) = l.volatile_voters.clone().filter(|_| version == 1) else {
            return Err(UpgradeError::invalid(format!(
                "Invalid upgrade of kraft.version from version {} to {}",
                name(persisted),
                name(version)
            )));
        };
        let persisted_voters = self.control.last_voter_set().clone();
        let learned_ids: BTreeSet<NodeId> = learned.ids().collect();
        let persisted_ids: BTreeSet<NodeId> = persisted_voters.ids().collect();
        if learned_ids != persisted_ids {
            return Err(UpgradeError::internal(format!(
                "Unable to update kraft.version to {} due to missing voters {} compared to {}",
                name(version),
                id_list(&learned_ids),
                id_list(&persisted_ids)
            )));
        }
        if !learned.supports_version(version) {
            tracing::info!(%learned, "not all voters support kraft.version {version}");
            return Err(UpgradeError::invalid(format!(
                "Invalid upgrade of kraft.version to {} because not all of the voters support it",
                name(version)
            )));
        }
        if learned.keys().any(|k| k.directory_id.is_none()) {
            return Err(UpgradeError::internal(format!(
                "Directory id must be known for all of the voters: {learned}"
            )));
        }
        if validate_only {
            return Ok(true);
        }
        if let State::Leader(l) = &mut self.state {
            // From here on UpdateRaftVoter goes through the voter-set history.
            l.volatile_voters = None;
        }
        let mut records = vec![Record::Control(ControlRecord::KRaftVersion(version))];
        if learned != persisted_voters {
            records.push(Record::Control(ControlRecord::Voters(learned)));
        }
        let batch = Batch {
            base_offset: self.log.end_offset(),
            epoch,
            append_time: now,
            records,
        };
        self.append_as_leader(batch, now).map_err(|e| {
            UpgradeError::internal(format!("cannot append the kraft.version upgrade: {e}"))
        })?;
        tracing::info!("appended kraft.version {version}");
        Ok(true)
    }

    // ------------------------------------------------------------------
    // DescribeQuorum

    /// Builds the DescribeQuorum answer (v3 semantics; the adapter drops
    /// fields the negotiated version does not carry).
    pub fn describe_quorum(&mut self, now: i64) -> DescribeQuorumResponse {
        let leader_epoch = self.epoch();
        let log_end = self.log.end_offset();
        let committed = self.committed_voters();
        let State::Leader(l) = &mut self.state else {
            return DescribeQuorumResponse {
                partition_error: ErrorCode::NotLeaderOrFollower,
                error_message: Some(ErrorCode::NotLeaderOrFollower.default_message().into()),
                leader_id: 0,
                leader_epoch: 0,
                high_watermark: 0,
                current_voters: Vec::new(),
                committed_voters: Vec::new(),
                observers: Vec::new(),
                nodes: Vec::new(),
            };
        };
        l.clear_inactive_observers(now);
        let leader_id = l.local.key.id;
        let describe = |s: &super::leader::ReplicaState| {
            let is_leader = s.key.id == leader_id;
            ReplicaDescription {
                replica_id: s.key.id,
                replica_directory_id: s.key.wire_directory_id(),
                log_end_offset: if is_leader {
                    log_end
                } else {
                    s.end_offset.unwrap_or(-1)
                },
                last_fetch_timestamp: if is_leader { now } else { s.last_fetch_ts },
                last_caught_up_timestamp: if is_leader { now } else { s.last_caught_up_ts },
            }
        };
        let current_voters: Vec<ReplicaDescription> = l.voters.values().map(describe).collect();
        let observers: Vec<ReplicaDescription> = l.observers.values().map(describe).collect();
        let committed_voters = match (&committed, l.high_watermark) {
            (Some(set), Some(_)) => set
                .keys()
                .map(|k| {
                    let state = match l.voters.get(&k.id) {
                        Some(s) if s.key == k => Some(s),
                        _ => l.observers.get(&k),
                    };
                    match state {
                        Some(s) => describe(s),
                        None => ReplicaDescription {
                            replica_id: k.id,
                            replica_directory_id: k.wire_directory_id(),
                            log_end_offset: -1,
                            last_fetch_timestamp: -1,
                            last_caught_up_timestamp: -1,
                        },
                    }
                })
                .collect(),
            _ => Vec::new(),
        };
        let nodes = l
            .voters
            .values()
            .map(|s| (s.key.id, s.endpoints.clone()))
            .collect();
        DescribeQuorumResponse {
            partition_error: ErrorCode::None,
            error_message: None,
            leader_id,
            leader_epoch,
            high_watermark: l.high_watermark.unwrap_or(-1),
            current_voters,
            committed_voters,
            observers,
            nodes,
        }
    }
}

/// Node ids formatted like a Java set: `[1, 2, 3]`.
fn id_list(ids: &BTreeSet<NodeId>) -> String {
    let ids: Vec<String> = ids.iter().map(|id| id.to_string()).collect();
    format!("[{}]", ids.join(", "))
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
            .finish_non_exhaustive()
    }
}
