//! Polling: what each state sends when the clock advances or a message was
//! handled, the next wake-up, sending requests through the
//! `RequestManager`, the choice of fetch target (leader, bootstrap servers)
//! and the back-off decisions after a response.
//!
//! Read beside Kafka's `KafkaRaftClient` (`poll`, `pollCurrentState`,
//! `pollLeader`, `pollCandidate`, `pollProspective`, `pollResigned`,
//! `pollUnattached`, `pollFollower`, `maybeSendRequest`,
//! `maybeSendFetchToBestNode`) and `RequestManager`.

use super::RaftCore;
use crate::core::action::Action;
use crate::core::log::RaftLog;
use crate::core::message::*;
use crate::core::state::{Role, State};
use crate::core::types::*;

impl<L: RaftLog> RaftCore<L> {
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
    pub(super) fn must_wait_before_asking_again(
        &self,
        api: Api,
        source: NodeId,
        correlation_id: u64,
    ) -> bool {
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

    pub(super) fn poll(&mut self, now: i64) {
        self.track_own_membership();
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

    pub(super) fn send_request(
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

    pub(super) fn voter_address(&self, id: NodeId) -> Option<Address> {
        self.control
            .last_voter_set()
            .address(id, &self.cfg.default_listener)
    }

    fn poll_leader(&mut self, now: i64) -> i64 {
        let end_offset = self.log.end_offset();
        let (resign, drain_left, cq) = match &self.state {
            State::Leader(l) => {
                let drain_left = match l.resign_deadline {
                    Some(d) if l.resign_requested && !l.successor_holds(end_offset) => {
                        (d - now).max(0)
                    }
                    _ => 0,
                };
                (
                    l.resign_requested,
                    drain_left,
                    l.time_until_check_quorum_expires(now),
                )
            }
            _ => return i64::MAX,
        };
        if (resign && drain_left == 0) || cq == 0 {
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
            if let Some(l) = self.leader_state_mut() {
                l.reset_begin_quorum_timer(now);
                begin_timeout = min.min(l.begin_quorum_deadline - now);
            }
        }
        let timeout = cq.min(pending_timeout).min(begin_timeout.max(1));
        if resign {
            timeout.min(drain_left)
        } else {
            timeout
        }
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
        if self.is_voter() && now >= deadline && !cfg!(kraft_mutant = "never-campaign") {
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
        cfg!(kraft_mutant = "ack-before-fsync") || self.flushed_offset >= self.log.end_offset()
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
}
