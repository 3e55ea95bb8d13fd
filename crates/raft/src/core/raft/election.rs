//! Elections (KIP-595, pre-vote from KIP-996): sending Vote requests as
//! prospective or candidate, granting votes ([`RaftCore`]'s
//! `can_grant_vote`), counting the answers, and BeginQuorumEpoch /
//! EndQuorumEpoch on both sides.
//!
//! Read beside Kafka's `KafkaRaftClient` (`handleVoteRequest`,
//! `handleVoteResponse`, `handleBeginQuorumEpochRequest`,
//! `handleEndQuorumEpochRequest` and their responses), `EpochState.canGrantVote`
//! and `EpochElection`.

use super::RaftCore;
use crate::core::error::ErrorCode;
use crate::core::log::RaftLog;
use crate::core::message::*;
use crate::core::state::{Nominee, Role, State, Unattached};
use crate::core::types::*;

impl<L: RaftLog> RaftCore<L> {
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

    pub(super) fn send_vote_requests(&mut self, now: i64) -> i64 {
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

    pub(super) fn validate_leader_only(&self, epoch: i32) -> Option<ErrorCode> {
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
        let log_up_to_date = log_up_to_date || cfg!(kraft_mutant = "accept-stale-vote");
        match &self.state {
            State::Unattached(Unattached { leader, voted, .. })
            | State::Prospective(Nominee { leader, voted, .. }) => {
                if pre_vote {
                    log_up_to_date
                } else if let Some(v) = voted {
                    if v.id == candidate.id {
                        v.directory_id.is_none() || v.directory_id == candidate.directory_id
                    } else {
                        cfg!(kraft_mutant = "vote-twice-per-epoch") && log_up_to_date
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

    pub(super) fn handle_vote_request(&mut self, r: VoteRequest, now: i64) -> VoteResponse {
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

    pub(super) fn handle_vote_response(
        &mut self,
        source: NodeId,
        r: VoteResponse,
        now: i64,
    ) -> bool {
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

    pub(super) fn handle_begin_quorum_epoch(
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

    pub(super) fn handle_begin_quorum_epoch_response(
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
        if let Some(l) = self.leader_state_mut() {
            if let Some(s) = l.voters.get_mut(&source) {
                s.acked = true;
            }
        }
        true
    }

    pub(super) fn handle_end_quorum_epoch(
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

    pub(super) fn handle_end_quorum_epoch_response(
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
}
