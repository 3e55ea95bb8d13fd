//! Voter sets and their offset-indexed history (KIP-853).

use std::collections::BTreeMap;
use std::fmt;

use super::types::{Address, Endpoints, KRaftVersionRange, NodeId, ReplicaKey};

/// One voter: its key, its controller listeners and its supported
/// `kraft.version` range (one `VotersRecord.Voter`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct VoterNode {
    /// Id and directory id.
    pub key: ReplicaKey,
    /// All controller listeners of the voter.
    pub endpoints: Endpoints,
    /// Supported `kraft.version` range.
    pub kraft_version: KRaftVersionRange,
}

impl VoterNode {
    /// Convenience constructor.
    pub fn new(key: ReplicaKey, endpoints: Endpoints, kraft_version: KRaftVersionRange) -> Self {
        VoterNode {
            key,
            endpoints,
            kraft_version,
        }
    }

    /// Kafka's `VoterNode.isVoter`: the ids match and, when this node has a
    /// directory id, the directory ids match.
    pub fn is_voter(&self, key: &ReplicaKey) -> bool {
        self.key.matches(key)
    }
}

/// A complete set of voters (the content of one `VotersRecord`, or the static
/// `controller.quorum.voters`). Keyed by node id: at most one voter per id.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct VoterSet {
    voters: BTreeMap<NodeId, VoterNode>,
}

impl VoterSet {
    /// The empty set.
    pub fn empty() -> Self {
        VoterSet::default()
    }

    /// Builds a set; a later voter with an id already present replaces it.
    pub fn new(voters: impl IntoIterator<Item = VoterNode>) -> Self {
        VoterSet {
            voters: voters.into_iter().map(|v| (v.key.id, v)).collect(),
        }
    }

    /// Number of voters.
    pub fn len(&self) -> usize {
        self.voters.len()
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.voters.is_empty()
    }

    /// Voter ids, ascending.
    pub fn ids(&self) -> impl Iterator<Item = NodeId> + '_ {
        self.voters.keys().copied()
    }

    /// Voter keys, ascending by id.
    pub fn keys(&self) -> impl Iterator<Item = ReplicaKey> + '_ {
        self.voters.values().map(|v| v.key)
    }

    /// Voter nodes, ascending by id.
    pub fn nodes(&self) -> impl Iterator<Item = &VoterNode> {
        self.voters.values()
    }

    /// The voter with id `id`.
    pub fn get(&self, id: NodeId) -> Option<&VoterNode> {
        self.voters.get(&id)
    }

    /// True when `id` is a voter id (any directory id).
    pub fn contains_id(&self, id: NodeId) -> bool {
        self.voters.contains_key(&id)
    }

    /// Kafka's `isVoter`: a voter with that id exists and matches the key.
    pub fn is_voter(&self, key: &ReplicaKey) -> bool {
        self.voters.get(&key.id).is_some_and(|v| v.is_voter(key))
    }

    /// True when `key` is the only voter.
    pub fn is_only_voter(&self, key: &ReplicaKey) -> bool {
        self.voters.len() == 1 && self.is_voter(key)
    }

    /// All endpoints of voter `id` (empty when not a voter).
    pub fn listeners(&self, id: NodeId) -> Endpoints {
        self.voters
            .get(&id)
            .map(|v| v.endpoints.clone())
            .unwrap_or_default()
    }

    /// The address of voter `id` on `listener`.
    pub fn address(&self, id: NodeId, listener: &str) -> Option<Address> {
        self.voters
            .get(&id)
            .and_then(|v| v.endpoints.address(listener))
    }

    /// Adds a voter whose id is not yet present.
    pub fn add_voter(&self, voter: VoterNode) -> Option<VoterSet> {
        if self.voters.contains_key(&voter.key.id) {
            return None;
        }
        let mut out = self.clone();
        out.voters.insert(voter.key.id, voter);
        Some(out)
    }

    /// Removes the voter with exactly this key, unless it is the last one.
    pub fn remove_voter(&self, key: &ReplicaKey) -> Option<VoterSet> {
        match self.voters.get(&key.id) {
            Some(old) if old.key == *key && self.voters.len() > 1 => {
                let mut out = self.clone();
                out.voters.remove(&key.id);
                Some(out)
            }
            _ => None,
        }
    }

    /// Replaces a voter that matches `voter.key` (Kafka's `updateVoter`).
    pub fn update_voter(&self, voter: VoterNode) -> Option<VoterSet> {
        match self.voters.get(&voter.key.id) {
            Some(old) if old.is_voter(&voter.key) => {
                let mut out = self.clone();
                out.voters.insert(voter.key.id, voter);
                Some(out)
            }
            _ => None,
        }
    }

    /// Replaces the voter with the same id, ignoring directory ids (used with
    /// `kraft.version` 0).
    pub fn update_voter_ignoring_directory_id(&self, voter: VoterNode) -> Option<VoterSet> {
        if self.voters.contains_key(&voter.key.id) {
            let mut out = self.clone();
            out.voters.insert(voter.key.id, voter);
            Some(out)
        } else {
            None
        }
    }

    /// True when `updated` matches a voter but differs from the stored entry.
    pub fn voter_node_needs_update(&self, updated: &VoterNode) -> bool {
        self.voters
            .get(&updated.key.id)
            .is_some_and(|node| node.is_voter(&updated.key) && node != updated)
    }

    /// True when every voter supports `level`.
    pub fn supports_version(&self, level: i16) -> bool {
        self.voters
            .values()
            .all(|v| v.kraft_version.contains(level))
    }

    /// True when both sets differ by at most one key in each direction, so
    /// any majority of one intersects any majority of the other.
    pub fn has_overlapping_majority(&self, other: &VoterSet) -> bool {
        let a: Vec<ReplicaKey> = self.keys().collect();
        let b: Vec<ReplicaKey> = other.keys().collect();
        let a_minus_b = a.iter().filter(|k| !b.contains(k)).count();
        let b_minus_a = b.iter().filter(|k| !a.contains(k)).count();
        a_minus_b <= 1 && b_minus_a <= 1
    }

    /// Keys formatted like Kafka's `voterKeys()` set.
    pub fn keys_display(&self) -> String {
        let parts: Vec<String> = self.keys().map(|k| k.to_string()).collect();
        format!("[{}]", parts.join(", "))
    }
}

impl fmt::Display for VoterSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.keys_display())
    }
}

/// An offset-indexed history of values (Kafka's `LogHistory`): each entry is
/// the value in effect from its offset on.
#[derive(Clone, Debug, Default)]
pub struct History<T> {
    entries: Vec<(i64, T)>,
}

impl<T: Clone> History<T> {
    /// Empty history.
    pub fn new() -> Self {
        History {
            entries: Vec::new(),
        }
    }

    /// Records `value` at `offset`. Offsets must be increasing; an entry at
    /// an offset that is not greater than the last one replaces the tail.
    pub fn add_at(&mut self, offset: i64, value: T) {
        while self.entries.last().is_some_and(|(o, _)| *o >= offset) {
            self.entries.pop();
        }
        self.entries.push((offset, value));
    }

    /// The newest entry.
    pub fn last_entry(&self) -> Option<(i64, &T)> {
        self.entries.last().map(|(o, v)| (*o, v))
    }

    /// The newest value at or before `offset`.
    pub fn value_at_or_before(&self, offset: i64) -> Option<(i64, &T)> {
        let idx = self.entries.partition_point(|(o, _)| *o <= offset);
        if idx == 0 {
            None
        } else {
            let (o, v) = &self.entries[idx - 1];
            Some((*o, v))
        }
    }

    /// Removes entries at or after `end_offset` (log truncation).
    pub fn truncate_new_entries(&mut self, end_offset: i64) {
        while self.entries.last().is_some_and(|(o, _)| *o >= end_offset) {
            self.entries.pop();
        }
    }

    /// Removes everything.
    pub fn clear(&mut self) {
        self.entries.clear();
    }

    /// All entries, oldest first.
    pub fn entries(&self) -> &[(i64, T)] {
        &self.entries
    }
}

/// The voter-set history of the log plus the static fallback set, and the
/// `kraft.version` history. This is the single source of truth for voters:
/// the latest entry is the current (possibly uncommitted) set, and the entry
/// at `HW - 1` is the committed set.
#[derive(Clone, Debug, Default)]
pub struct ControlState {
    static_voters: VoterSet,
    voters: History<VoterSet>,
    kraft_versions: History<i16>,
}

impl ControlState {
    /// A state with only the static voter set (may be empty).
    pub fn new(static_voters: VoterSet) -> Self {
        ControlState {
            static_voters,
            voters: History::new(),
            kraft_versions: History::new(),
        }
    }

    /// The latest voter set (history, else the static set).
    pub fn last_voter_set(&self) -> &VoterSet {
        self.voters
            .last_entry()
            .map(|(_, v)| v)
            .unwrap_or(&self.static_voters)
    }

    /// The latest voter-set history entry (not the static set).
    pub fn last_voter_set_entry(&self) -> Option<(i64, &VoterSet)> {
        self.voters.last_entry()
    }

    /// Offset of the latest voter-set entry.
    pub fn last_voter_set_offset(&self) -> Option<i64> {
        self.voters.last_entry().map(|(o, _)| o)
    }

    /// The latest `kraft.version` (0 when none was recorded).
    pub fn last_kraft_version(&self) -> i16 {
        self.kraft_versions
            .last_entry()
            .map(|(_, v)| *v)
            .unwrap_or(0)
    }

    /// The voter set in effect at `offset`: the newest history entry at or
    /// before it, else the static set when no history exists at all.
    pub fn voter_set_at(&self, offset: i64) -> Option<&VoterSet> {
        match self.voters.value_at_or_before(offset) {
            Some((_, v)) => Some(v),
            None if self.voters.entries().is_empty() => Some(&self.static_voters),
            None => None,
        }
    }

    /// The `kraft.version` in effect at `offset` (0 when none).
    pub fn kraft_version_at(&self, offset: i64) -> i16 {
        self.kraft_versions
            .value_at_or_before(offset)
            .map(|(_, v)| *v)
            .unwrap_or(0)
    }

    /// The committed voter set for high watermark `hw` (DescribeQuorum v3
    /// `CommittedVoters`): the voter set in effect at `hw - 1`. Before the
    /// first history entry commits — a static quorum whose `kraft.version`
    /// 0 -> 1 upgrade is still uncommitted — that is the static set.
    pub fn committed_voter_set(&self, hw: i64) -> Option<&VoterSet> {
        self.voter_set_at(hw - 1)
            .or_else(|| (!self.static_voters.is_empty()).then_some(&self.static_voters))
    }

    /// Records a voter set at `offset`.
    pub fn add_voters(&mut self, offset: i64, voters: VoterSet) {
        // KRaftControlRecordStateMachine's wording: the voter-change line
        // operators watch.
        tracing::info!(
            offset,
            "Latest set of voters is {voters} at offset {offset}"
        );
        self.voters.add_at(offset, voters);
    }

    /// Records a `kraft.version` at `offset`.
    pub fn add_kraft_version(&mut self, offset: i64, level: i16) {
        tracing::info!(offset, "Latest kraft.version is {level} at offset {offset}");
        self.kraft_versions.add_at(offset, level);
    }

    /// Rolls back entries at or after `end_offset`.
    pub fn truncate_new_entries(&mut self, end_offset: i64) {
        self.voters.truncate_new_entries(end_offset);
        self.kraft_versions.truncate_new_entries(end_offset);
    }

    /// Forgets the log-derived history (before reloading a snapshot).
    pub fn clear(&mut self) {
        self.voters.clear();
        self.kraft_versions.clear();
    }

    /// The static voter set.
    pub fn static_voters(&self) -> &VoterSet {
        &self.static_voters
    }

    /// The voter-set history entries.
    pub fn voter_history(&self) -> &[(i64, VoterSet)] {
        self.voters.entries()
    }
}
