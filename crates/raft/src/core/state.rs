//! Per-role epoch states (unattached, prospective, candidate, follower,
//! resigned; the leader lives in [`super::leader`]).

use std::collections::{BTreeMap, BTreeSet};

use super::leader::LeaderState;
use super::types::{Endpoints, NodeId, ReplicaKey, SnapshotId};
use super::voters::VoterSet;

/// The role of a replica, as reported by [`super::RaftCore::role`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Role {
    /// No leader known (or known without endpoints), not campaigning.
    Unattached,
    /// Pre-vote phase (KIP-996).
    Prospective,
    /// Campaigning in a new epoch.
    Candidate,
    /// Leader of the epoch.
    Leader,
    /// Replicating from a known leader.
    Follower,
    /// Former leader of the epoch, waiting for a successor.
    Resigned,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum VoteState {
    Unrecorded,
    Granted,
    Rejected,
}

/// Vote tally of one election (Kafka's `EpochElection`).
#[derive(Clone, Debug)]
pub(crate) struct Election {
    pub(crate) votes: BTreeMap<NodeId, (ReplicaKey, VoteState)>,
}

impl Election {
    pub(crate) fn new(voters: &VoterSet) -> Self {
        Election {
            votes: voters
                .keys()
                .map(|k| (k.id, (k, VoteState::Unrecorded)))
                .collect(),
        }
    }

    /// Records a vote; returns false when `id` is not part of the election.
    pub(crate) fn record(&mut self, id: NodeId, granted: bool) -> bool {
        match self.votes.get_mut(&id) {
            Some(v) => {
                v.1 = if granted {
                    VoteState::Granted
                } else {
                    VoteState::Rejected
                };
                true
            }
            None => false,
        }
    }

    fn count(&self, s: VoteState) -> usize {
        self.votes.values().filter(|(_, v)| *v == s).count()
    }

    fn majority(&self) -> usize {
        self.votes.len() / 2 + 1
    }

    pub(crate) fn is_granted(&self) -> bool {
        self.count(VoteState::Granted) >= self.majority()
    }

    pub(crate) fn is_rejected(&self) -> bool {
        self.count(VoteState::Granted) + self.count(VoteState::Unrecorded) < self.majority()
    }

    pub(crate) fn unrecorded(&self) -> Vec<ReplicaKey> {
        self.votes
            .values()
            .filter(|(_, v)| *v == VoteState::Unrecorded)
            .map(|(k, _)| *k)
            .collect()
    }

    pub(crate) fn granting(&self) -> Vec<NodeId> {
        self.votes
            .iter()
            .filter(|(_, (_, v))| *v == VoteState::Granted)
            .map(|(id, _)| *id)
            .collect()
    }
}

#[derive(Clone, Debug)]
pub(crate) struct Unattached {
    pub(crate) epoch: i32,
    pub(crate) leader: Option<NodeId>,
    pub(crate) voted: Option<ReplicaKey>,
    pub(crate) election_deadline: i64,
    pub(crate) hw: Option<i64>,
}

#[derive(Clone, Debug)]
pub(crate) struct Nominee {
    pub(crate) epoch: i32,
    pub(crate) leader: Option<NodeId>,
    pub(crate) leader_endpoints: Endpoints,
    pub(crate) voted: Option<ReplicaKey>,
    pub(crate) election: Election,
    pub(crate) election_deadline: i64,
    pub(crate) hw: Option<i64>,
}

#[derive(Clone, Debug)]
pub(crate) struct Follower {
    pub(crate) epoch: i32,
    pub(crate) leader: NodeId,
    pub(crate) leader_endpoints: Endpoints,
    pub(crate) voted: Option<ReplicaKey>,
    pub(crate) fetch_deadline: i64,
    pub(crate) update_voter_deadline: i64,
    pub(crate) has_fetched: bool,
    pub(crate) has_updated_leader: bool,
    pub(crate) hw: Option<i64>,
    pub(crate) fetching_snapshot: Option<SnapshotId>,
}

#[derive(Clone, Debug)]
pub(crate) struct Resigned {
    pub(crate) epoch: i32,
    pub(crate) unacked: BTreeSet<NodeId>,
    pub(crate) election_deadline: i64,
    pub(crate) preferred_successors: Vec<ReplicaKey>,
}

#[derive(Clone, Debug)]
pub(crate) enum State {
    Unattached(Unattached),
    Prospective(Nominee),
    Candidate(Nominee),
    Leader(Box<LeaderState>),
    Follower(Follower),
    Resigned(Resigned),
}

impl State {
    pub(crate) fn role(&self) -> Role {
        match self {
            State::Unattached(_) => Role::Unattached,
            State::Prospective(_) => Role::Prospective,
            State::Candidate(_) => Role::Candidate,
            State::Leader(_) => Role::Leader,
            State::Follower(_) => Role::Follower,
            State::Resigned(_) => Role::Resigned,
        }
    }

    pub(crate) fn epoch(&self) -> i32 {
        match self {
            State::Unattached(s) => s.epoch,
            State::Prospective(s) | State::Candidate(s) => s.epoch,
            State::Leader(s) => s.epoch,
            State::Follower(s) => s.epoch,
            State::Resigned(s) => s.epoch,
        }
    }

    pub(crate) fn high_watermark(&self) -> Option<i64> {
        match self {
            State::Unattached(s) => s.hw,
            State::Prospective(s) | State::Candidate(s) => s.hw,
            State::Leader(s) => s.high_watermark,
            State::Follower(s) => s.hw,
            State::Resigned(_) => None,
        }
    }
}

/// Kafka's `Optional` rendering of a high watermark.
fn optional_hw(hw: Option<i64>) -> String {
    hw.map_or_else(|| "Optional.empty".to_owned(), |o| format!("Optional[{o}]"))
}

/// Kafka's `Optional` rendering of a node id or replica key.
fn optional<T: std::fmt::Display>(value: Option<T>) -> String {
    value.map_or_else(|| "Optional.empty".to_owned(), |v| format!("Optional[{v}]"))
}

impl State {
    /// The state as Kafka's `EpochState.toString()` names it (`Leader(...)`,
    /// `FollowerState(...)`, `CandidateState(...)`, `ProspectiveState(...)`,
    /// `UnattachedState(...)`, `ResignedState(...)`), so that QuorumState's
    /// "Completed transition to ..." lines read as Kafka's. The fields are
    /// the ones this core keeps.
    pub(crate) fn describe(&self, local_id: Option<NodeId>) -> String {
        let local = optional(local_id);
        match self {
            State::Leader(l) => format!(
                "Leader(localVoterNode={}, epoch={}, epochStartOffset={}, highWatermark={}, voters={:?})",
                l.local.key,
                l.epoch,
                l.epoch_start_offset,
                optional_hw(l.high_watermark),
                l.voters.keys().collect::<Vec<_>>()
            ),
            State::Follower(f) => format!(
                "FollowerState(epoch={}, leader={}, votedKey={}, highWatermark={}, fetchingSnapshot={})",
                f.epoch,
                f.leader,
                optional(f.voted),
                optional_hw(f.hw),
                optional(f.fetching_snapshot.map(|s| format!("{}-{}", s.offset, s.epoch)))
            ),
            State::Candidate(c) => format!(
                "CandidateState(localId={local}, epoch={}, epochElection={:?}, highWatermark={})",
                c.epoch,
                c.election.granting(),
                optional_hw(c.hw)
            ),
            State::Prospective(p) => format!(
                "ProspectiveState(epoch={}, leaderId={}, votedKey={}, epochElection={:?}, highWatermark={})",
                p.epoch,
                optional(p.leader),
                optional(p.voted),
                p.election.granting(),
                optional_hw(p.hw)
            ),
            State::Unattached(u) => format!(
                "UnattachedState(epoch={}, leaderId={}, votedKey={}, highWatermark={})",
                u.epoch,
                optional(u.leader),
                optional(u.voted),
                optional_hw(u.hw)
            ),
            State::Resigned(r) => format!(
                "ResignedState(localId={local}, epoch={}, unackedVoters={:?}, preferredSuccessors={:?})",
                r.epoch,
                r.unacked,
                r.preferred_successors
                    .iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
            ),
        }
    }
}
