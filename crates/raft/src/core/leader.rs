//! Leader-only state: replica progress, the high watermark, check-quorum,
//! observers and the single pending voter change.

use std::collections::{BTreeMap, BTreeSet};

use super::action::InboundId;
use super::types::{Endpoints, NodeId, ReplicaKey};
use super::voters::{VoterNode, VoterSet};

/// Observers that have not fetched for this long are forgotten.
pub(crate) const OBSERVER_SESSION_TIMEOUT_MS: i64 = 300_000;
const CAUGHT_UP_WINDOW_MS: i64 = 3_600_000;

/// Replication progress of one replica as tracked by the leader.
#[derive(Clone, Debug)]
pub(crate) struct ReplicaState {
    pub(crate) key: ReplicaKey,
    pub(crate) endpoints: Endpoints,
    pub(crate) end_offset: Option<i64>,
    pub(crate) last_fetch_ts: i64,
    pub(crate) last_fetch_leader_leo: i64,
    pub(crate) last_caught_up_ts: i64,
    pub(crate) acked: bool,
}

impl ReplicaState {
    fn new(key: ReplicaKey, acked: bool, endpoints: Endpoints) -> Self {
        ReplicaState {
            key,
            endpoints,
            end_offset: None,
            last_fetch_ts: -1,
            last_fetch_leader_leo: -1,
            last_caught_up_ts: -1,
            acked,
        }
    }

    fn matches(&self, key: &ReplicaKey) -> bool {
        self.key.matches(key)
    }

    fn update_follower(&mut self, now: i64, fetch_offset: i64, leader_leo: Option<i64>) {
        if let Some(leo) = leader_leo {
            if fetch_offset >= leo {
                self.last_caught_up_ts = self.last_caught_up_ts.max(now);
            } else if self.last_fetch_leader_leo > 0 && fetch_offset >= self.last_fetch_leader_leo {
                self.last_caught_up_ts = self.last_caught_up_ts.max(self.last_fetch_ts);
            }
            self.last_fetch_leader_leo = leo;
        }
        self.last_fetch_ts = self.last_fetch_ts.max(now);
        self.end_offset = Some(fetch_offset);
        self.acked = true;
    }
}

/// Orders replicas for the high watermark: end offset descending, unknown
/// last, ties by key.
fn hw_order(a: &ReplicaState, b: &ReplicaState) -> std::cmp::Ordering {
    match (a.end_offset, b.end_offset) {
        (Some(x), Some(y)) if x != y => y.cmp(&x),
        (Some(_), None) => std::cmp::Ordering::Less,
        (None, Some(_)) => std::cmp::Ordering::Greater,
        _ => a.key.cmp(&b.key),
    }
}

/// The one voter change a leader may have in flight.
#[derive(Clone, Debug)]
pub(crate) enum PendingChange {
    Add {
        inbound: InboundId,
        key: ReplicaKey,
        endpoints: Endpoints,
        ack_when_committed: bool,
        deadline: i64,
        probe_correlation: Option<u64>,
        last_offset: Option<i64>,
        responded: bool,
    },
    Remove {
        inbound: InboundId,
        last_offset: i64,
        deadline: i64,
    },
}

impl PendingChange {
    pub(crate) fn deadline(&self) -> i64 {
        match self {
            PendingChange::Add { deadline, .. } | PendingChange::Remove { deadline, .. } => {
                *deadline
            }
        }
    }
}

/// State of a leader for one epoch.
#[derive(Clone, Debug)]
pub(crate) struct LeaderState {
    pub(crate) local: VoterNode,
    pub(crate) epoch: i32,
    pub(crate) epoch_start_offset: i64,
    pub(crate) high_watermark: Option<i64>,
    pub(crate) voters: BTreeMap<NodeId, ReplicaState>,
    pub(crate) observers: BTreeMap<ReplicaKey, ReplicaState>,
    fetched_voters: BTreeSet<NodeId>,
    check_quorum_timeout_ms: i64,
    check_quorum_deadline: i64,
    begin_quorum_interval_ms: i64,
    pub(crate) begin_quorum_deadline: i64,
    pub(crate) resign_requested: bool,
    /// For a graceful resignation ([`super::RaftCore::resign`]): the leader
    /// takes no more records and resigns once another voter holds its whole
    /// log, or at this time at the latest, so that its first preferred
    /// successor can win the election at once (the resigned leader grants
    /// pre-votes only to an up-to-date log). `None`: resign at once.
    pub(crate) resign_deadline: Option<i64>,
    pub(crate) pending: Option<PendingChange>,
    /// In-memory voters used by UpdateRaftVoter with `kraft.version` 0.
    pub(crate) volatile_voters: Option<VoterSet>,
}

impl LeaderState {
    pub(crate) fn new(
        local: VoterNode,
        epoch: i32,
        epoch_start_offset: i64,
        voters: &VoterSet,
        kraft_version: i16,
        fetch_timeout_ms: i64,
        now: i64,
    ) -> Self {
        let mut states = BTreeMap::new();
        for v in voters.nodes() {
            let acked = v.is_voter(&local.key);
            states.insert(
                v.key.id,
                ReplicaState::new(v.key, acked, v.endpoints.clone()),
            );
        }
        let check_quorum_timeout_ms = fetch_timeout_ms * 3 / 2;
        let volatile_voters = if kraft_version < 1 {
            voters.update_voter_ignoring_directory_id(local.clone())
        } else {
            None
        };
        LeaderState {
            local,
            epoch,
            epoch_start_offset,
            high_watermark: None,
            voters: states,
            observers: BTreeMap::new(),
            fetched_voters: BTreeSet::new(),
            check_quorum_timeout_ms,
            check_quorum_deadline: now + check_quorum_timeout_ms,
            begin_quorum_interval_ms: fetch_timeout_ms / 2,
            begin_quorum_deadline: now,
            resign_requested: false,
            resign_deadline: None,
            pending: None,
            volatile_voters,
        }
    }

    /// Remaining time until check-quorum fails (`i64::MAX` for one voter).
    pub(crate) fn time_until_check_quorum_expires(&self, now: i64) -> i64 {
        if self.voters.len() == 1 {
            return i64::MAX;
        }
        (self.check_quorum_deadline - now).max(0)
    }

    pub(crate) fn update_check_quorum(&mut self, key: &ReplicaKey, now: i64) {
        if key.id == self.local.key.id {
            return;
        }
        if self.voters.get(&key.id).is_some_and(|s| s.matches(key)) {
            self.fetched_voters.insert(key.id);
        }
        let mut majority = self.voters.len() / 2 + 1;
        if self.voters.contains_key(&self.local.key.id) {
            majority -= 1;
        }
        if self.fetched_voters.len() >= majority {
            self.fetched_voters.clear();
            self.check_quorum_deadline = now + self.check_quorum_timeout_ms;
        }
    }

    /// Voters (other than the leader) that have not fetched within the
    /// BeginQuorumEpoch resend interval.
    pub(crate) fn need_begin_quorum_epoch(&self, now: i64) -> Vec<ReplicaKey> {
        self.voters
            .values()
            .filter(|s| {
                s.key.id != self.local.key.id
                    && now - s.last_fetch_ts >= self.begin_quorum_interval_ms
            })
            .map(|s| s.key)
            .collect()
    }

    pub(crate) fn reset_begin_quorum_timer(&mut self, now: i64) {
        self.begin_quorum_deadline = now + self.begin_quorum_interval_ms;
    }

    fn state_mut(&mut self, key: &ReplicaKey) -> &mut ReplicaState {
        let is_voter = self.voters.get(&key.id).is_some_and(|s| s.matches(key));
        if is_voter {
            // The entry exists: checked just above.
            return self
                .voters
                .entry(key.id)
                .or_insert_with(|| ReplicaState::new(*key, false, Endpoints::empty()));
        }
        self.observers
            .entry(*key)
            .or_insert_with(|| ReplicaState::new(*key, false, Endpoints::empty()))
    }

    /// Finds the state of a replica (voter matching the key, else the exact
    /// observer entry).
    pub(crate) fn replica_state(&self, key: &ReplicaKey) -> Option<&ReplicaState> {
        match self.voters.get(&key.id) {
            Some(s) if s.matches(key) => Some(s),
            _ => self.observers.get(key),
        }
    }

    fn is_voter(&self, key: &ReplicaKey) -> bool {
        self.voters.get(&key.id).is_some_and(|s| s.matches(key))
    }

    /// Records the leader's own durable end offset and refreshes the voter
    /// and observer maps from the latest voter set. Returns true when the
    /// high watermark changed.
    pub(crate) fn update_local_state(&mut self, end_offset: i64, last_voters: &VoterSet) -> bool {
        let key = self.local.key;
        let state = self.state_mut(&key);
        if state.end_offset.is_some_and(|e| e > end_offset) {
            tracing::warn!(from = ?state.end_offset, to = end_offset, "non-monotonic leader end offset");
        }
        state.end_offset = Some(end_offset);
        self.update_voter_and_observer_states(last_voters);
        self.maybe_update_high_watermark()
    }

    /// Records a Fetch from a remote replica at `fetch_offset` (which the
    /// replica has made durable). Returns true when the high watermark changed.
    pub(crate) fn update_replica_state(
        &mut self,
        key: &ReplicaKey,
        now: i64,
        fetch_offset: i64,
    ) -> bool {
        if key.id < 0 || key.id == self.local.key.id {
            return false;
        }
        let leader_leo = self
            .replica_state(&self.local.key.clone())
            .and_then(|s| s.end_offset);
        let state = self.state_mut(key);
        state.update_follower(now, fetch_offset, leader_leo);
        self.update_check_quorum(key, now);
        let counts = self.is_voter(key) || cfg!(kraft_mutant = "observer-in-majority");
        counts && self.maybe_update_high_watermark()
    }

    pub(crate) fn is_replica_caught_up(&self, key: &ReplicaKey, now: i64) -> bool {
        self.observers.get(key).is_some_and(|s| {
            s.last_caught_up_ts > 0
                && s.last_fetch_ts > 0
                && s.last_fetch_ts > now - CAUGHT_UP_WINDOW_MS
        })
    }

    pub(crate) fn clear_inactive_observers(&mut self, now: i64) {
        let local = self.local.key;
        self.observers
            .retain(|k, s| !(now - s.last_fetch_ts >= OBSERVER_SESSION_TIMEOUT_MS && *k != local));
    }

    /// Remote voters sorted by descending fetch offset (preferred successors).
    /// Whether a voter other than this leader has fetched up to `end_offset`
    /// (or there is no other voter).
    pub(crate) fn successor_holds(&self, end_offset: i64) -> bool {
        let mut others = self
            .voters
            .values()
            .filter(|s| !s.matches(&self.local.key))
            .peekable();
        others.peek().is_none() || others.any(|s| s.end_offset.is_some_and(|o| o >= end_offset))
    }

    /// The lowest fetch offset among the other voters that fetched at most
    /// `window_ms` before the latest fetch of any of them (a voter that
    /// stopped fetching, e.g. a crashed one, does not count).
    pub(crate) fn slowest_voter_fetch_offset(&self, window_ms: i64) -> Option<i64> {
        let fetched = || {
            self.voters
                .values()
                .filter(|s| !s.matches(&self.local.key) && s.end_offset.is_some())
        };
        let latest = fetched().map(|s| s.last_fetch_ts).max()?;
        fetched()
            .filter(|s| s.last_fetch_ts >= latest.saturating_sub(window_ms))
            .filter_map(|s| s.end_offset)
            .min()
    }

    pub(crate) fn non_leader_voters_by_descending_fetch_offset(&self) -> Vec<ReplicaKey> {
        let mut v: Vec<&ReplicaState> = self.voters.values().collect();
        v.sort_by(|a, b| hw_order(a, b));
        v.into_iter()
            .filter(|s| !s.matches(&self.local.key))
            .map(|s| s.key)
            .collect()
    }

    fn update_voter_and_observer_states(&mut self, last_voters: &VoterSet) {
        let mut old = std::mem::take(&mut self.voters);
        let mut new = BTreeMap::new();
        for node in last_voters.nodes() {
            let existing = match old.get(&node.key.id) {
                Some(s) if s.matches(&node.key) => old.remove(&node.key.id),
                _ => None,
            };
            let from_observer = self.observers.remove(&node.key);
            let mut state = existing
                .or(from_observer)
                .unwrap_or_else(|| ReplicaState::new(node.key, false, node.endpoints.clone()));
            state.key = node.key;
            state.endpoints = node.endpoints.clone();
            new.insert(node.key.id, state);
        }
        self.voters = new;
        for (_, mut s) in old {
            s.endpoints = Endpoints::empty();
            self.observers.entry(s.key).or_insert(s);
        }
    }

    fn maybe_update_high_watermark(&mut self) -> bool {
        let mut sorted: Vec<&ReplicaState> = self.voters.values().collect();
        if cfg!(kraft_mutant = "observer-in-majority") {
            sorted.extend(self.observers.values());
        }
        if sorted.is_empty() {
            return false;
        }
        sorted.sort_by(|a, b| hw_order(a, b));
        let index = sorted.len() / 2;
        let Some(candidate) = sorted[index].end_offset else {
            return false;
        };
        let epoch_condition =
            candidate > self.epoch_start_offset || cfg!(kraft_mutant = "commit-old-epoch-by-count");
        if !epoch_condition {
            return false;
        }
        match self.high_watermark {
            Some(hw) if candidate < hw && cfg!(kraft_mutant = "hw-may-decrease") => {
                self.high_watermark = Some(candidate);
                true
            }
            Some(hw) if candidate <= hw => {
                if candidate < hw {
                    tracing::info!(
                        candidate,
                        hw,
                        "computed high watermark is below the current one (voter set changed?)"
                    );
                }
                false
            }
            _ => {
                self.high_watermark = Some(candidate);
                true
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::types::{Endpoints, KRaftVersionRange};

    fn node(id: NodeId) -> VoterNode {
        VoterNode::new(
            ReplicaKey::of(id, uuid::Uuid::from_u64_pair(0, id as u64)),
            Endpoints::single("CONTROLLER", "localhost", 9000 + id as u16),
            KRaftVersionRange { min: 0, max: 1 },
        )
    }

    #[test]
    fn a_voter_that_stopped_fetching_does_not_hold_back_the_slowest_fetch_offset() {
        let voters = VoterSet::new([node(1), node(2), node(3)]);
        let mut leader = LeaderState::new(node(1), 1, 0, &voters, 1, 2000, 0);
        assert_eq!(leader.slowest_voter_fetch_offset(2000), None);
        leader.update_replica_state(&node(2).key, 1000, 40);
        leader.update_replica_state(&node(3).key, 1500, 90);
        assert_eq!(leader.slowest_voter_fetch_offset(2000), Some(40));
        // Voter 2 stops fetching; voter 3 goes on.
        leader.update_replica_state(&node(3).key, 3000, 150);
        assert_eq!(leader.slowest_voter_fetch_offset(2000), Some(40));
        leader.update_replica_state(&node(3).key, 3001, 160);
        assert_eq!(leader.slowest_voter_fetch_offset(2000), Some(160));
        // It comes back behind.
        leader.update_replica_state(&node(2).key, 3100, 60);
        assert_eq!(leader.slowest_voter_fetch_offset(2000), Some(60));
    }
}
