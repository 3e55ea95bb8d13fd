//! State transitions of [`RaftCore`]: start-up from the persisted election
//! state, the `transition_to_*` moves between Unattached, Prospective,
//! Candidate, Leader, Resigned and Follower, becoming and leaving leader, and
//! the epoch/leader checks every message goes through.
//!
//! Read beside Kafka's `QuorumState` (`initialize`, `transitionTo*`) and
//! `KafkaRaftClient` (`onBecomeLeader`, `onBecomeCandidate`,
//! `maybeTransition`, `maybeHandleCommonResponse`); KIP-595 and KIP-996 for
//! the states themselves.

use std::collections::BTreeSet;

use super::RaftCore;
use crate::core::action::{Action, ElectionState};
use crate::core::error::ErrorCode;
use crate::core::leader::{LeaderState, PendingChange};
use crate::core::log::RaftLog;
use crate::core::message::*;
use crate::core::record::{Batch, ControlRecord, LeaderChangeMessage, Record};
use crate::core::state::{Election, Follower, Nominee, Resigned, Role, State, Unattached};
use crate::core::types::*;

impl<L: RaftLog> RaftCore<L> {
    pub(super) fn initialize(&mut self, election: ElectionState, now: i64) {
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
        tracing::info!(
            "Completed transition to {} from null",
            self.state.describe(self.local_id())
        );
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
                    self.respond(inbound, response);
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

    pub(super) fn abort_snapshot_download(&mut self, old: &State) {
        if let State::Follower(f) = old {
            if let Some(id) = f.fetching_snapshot {
                self.log.abort_snapshot_download(id);
            }
        }
    }

    fn replace_state(&mut self, new: State, now: i64) {
        let old = std::mem::replace(&mut self.state, new);
        // QuorumState's wording, which operators' alert rules look for.
        let local = self.local_id();
        tracing::info!(
            epoch = self.state.epoch(),
            role = ?self.state.role(),
            "Completed transition to {} from {}",
            self.state.describe(local),
            old.describe(local)
        );
        self.abort_snapshot_download(&old);
        self.on_leave_leader(&old, now);
    }

    pub(super) fn transition_to_unattached(
        &mut self,
        epoch: i32,
        leader: Option<NodeId>,
        now: i64,
    ) {
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

    pub(super) fn transition_to_prospective(&mut self, now: i64) {
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

    pub(super) fn transition_to_candidate(&mut self, now: i64) {
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

    pub(super) fn become_leader(&mut self, now: i64) {
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
            encoded: Default::default(),
        };
        if let Err(e) = self.append_as_leader(batch, now) {
            self.violation(format!("failed to append the start-of-epoch batch: {e}"));
        }
        self.requests.reset_all();
    }

    pub(super) fn transition_to_resigned(&mut self, preferred: Vec<ReplicaKey>, now: i64) {
        let Some(l) = self.leader_state() else {
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
    pub(super) fn maybe_transition(
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
    pub(super) fn handle_common_response(
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

    pub(super) fn prospective_after_election_loss(&mut self, now: i64) {
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
}
