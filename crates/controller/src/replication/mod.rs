//! Partition leadership and replica placement: the parts of Kafka 4.4's
//! `ReplicationControlManager` that turn a change of the cluster into
//! PartitionChangeRecords, and the replica placer that assigns new
//! partitions.
//!
//! * [`partition_change`]: Kafka's `PartitionChangeBuilder` — from one
//!   partition and the wanted ISR, replicas, reassignment state, leader
//!   recovery state and election type, the PartitionChangeRecord (if any)
//!   that Kafka would write, at the version the metadata.version selects.
//! * [`placer`]: Kafka's `StripedReplicaPlacer`, the usable brokers it
//!   places on, and the directory a new replica is assigned to.
//! * [`broker_changes`]: the PartitionChangeRecords of a broker being
//!   fenced, unfenced, entering controlled shutdown, unregistered, coming
//!   back after a shutdown, or losing log directories (Kafka's
//!   `generateLeaderAndIsrUpdates`).
//! * [`reassignment`]: the replica lists of a partition reassignment, its
//!   completion and its cancellation (Kafka's
//!   `PartitionReassignmentReplicas` and `PartitionReassignmentRevert`).
//!
//! Everything here reads a [`MetadataImage`](crate::image::MetadataImage)
//! (the speculative one of the active controller) and returns records; it
//! applies nothing.

pub(crate) mod broker_changes;
pub(crate) mod partition_change;
pub(crate) mod placer;
pub(crate) mod reassignment;
#[cfg(test)]
pub(crate) mod test_support;

use kraft_protocol::messages::partition_change_record::PartitionChangeRecord;
use kraft_protocol::Uuid;

use crate::image::{LeaderRecoveryState, PartitionRegistration};

/// No leader (Kafka's `LeaderConstants.NO_LEADER`); also "no broker" in
/// the broker-change arguments.
pub(crate) const NO_LEADER: i32 = -1;
/// A PartitionChangeRecord's leader when it does not change
/// (`LeaderConstants.NO_LEADER_CHANGE`).
pub(crate) const NO_LEADER_CHANGE: i32 = -2;
/// A PartitionChangeRecord's leader recovery state when it does not change
/// (`LeaderRecoveryState.NO_CHANGE`).
pub(crate) const NO_LEADER_RECOVERY_STATE_CHANGE: i8 = -1;

/// `DirectoryId.MIGRATING`: a replica whose directory predates directory
/// assignment.
pub(crate) const MIGRATING: Uuid = Uuid::from_u64_pair(0, 0);
/// `DirectoryId.UNASSIGNED`: a replica not yet placed in a directory.
pub(crate) const UNASSIGNED: Uuid = Uuid::from_u64_pair(0, 1);
/// `DirectoryId.LOST`: a replica whose directory is offline.
pub(crate) const LOST: Uuid = Uuid::from_u64_pair(0, 2);

/// An owned copy of one partition's state (Kafka's `PartitionRegistration`
/// fields), taken from the image's packed view for the partitions a change
/// touches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PartitionState {
    /// Assigned replicas, preferred leader first.
    pub replicas: Vec<i32>,
    /// The directory of each replica, in replica order.
    pub directories: Vec<Uuid>,
    /// In-sync replicas.
    pub isr: Vec<i32>,
    /// Replicas a reassignment removes.
    pub removing_replicas: Vec<i32>,
    /// Replicas a reassignment adds.
    pub adding_replicas: Vec<i32>,
    /// Eligible leader replicas.
    pub elr: Vec<i32>,
    /// Last known eligible leader replicas.
    pub last_known_elr: Vec<i32>,
    /// The leader, or [`NO_LEADER`].
    pub leader: i32,
    /// Whether the leader is recovering from an unclean election.
    pub leader_recovery_state: LeaderRecoveryState,
    /// The leader epoch.
    pub leader_epoch: i32,
    /// The partition epoch.
    pub partition_epoch: i32,
}

impl PartitionState {
    /// The state of the image's partition `p`.
    pub(crate) fn of(p: PartitionRegistration<'_>) -> Self {
        PartitionState {
            replicas: p.replicas().collect(),
            directories: p.directories().collect(),
            isr: p.isr().collect(),
            removing_replicas: p.removing_replicas().collect(),
            adding_replicas: p.adding_replicas().collect(),
            elr: p.elr().collect(),
            last_known_elr: p.last_known_elr().collect(),
            leader: p.leader(),
            leader_recovery_state: p.leader_recovery_state(),
            leader_epoch: p.leader_epoch(),
            partition_epoch: p.partition_epoch(),
        }
    }

    /// The directory of `replica`, if it is one of the replicas (Kafka's
    /// `PartitionRegistration.directory`, which throws otherwise).
    pub(crate) fn directory(&self, replica: i32) -> Option<Uuid> {
        let at = self.replicas.iter().position(|r| *r == replica)?;
        self.directories.get(at).copied()
    }

    /// Kafka's `PartitionRegistration.merge`: the state after `r` (what the
    /// image's replay gives). Each list the record carries replaces the
    /// partition's; a leader other than [`NO_LEADER_CHANGE`] replaces it
    /// and bumps the leader epoch; the partition epoch always grows by one;
    /// directories that are absent or all MIGRATING become MIGRATING for
    /// every replica. An unknown leader recovery state keeps the current one
    /// (the image refuses such a record).
    pub(crate) fn merge(&self, r: &PartitionChangeRecord) -> PartitionState {
        let replicas = r.replicas.clone().unwrap_or_else(|| self.replicas.clone());
        let directories = r
            .directories
            .clone()
            .unwrap_or_else(|| self.directories.clone());
        let directories = if directories.iter().all(|d| *d == MIGRATING) {
            vec![MIGRATING; replicas.len()]
        } else {
            directories
        };
        let (leader, leader_epoch) = if r.leader == NO_LEADER_CHANGE {
            (self.leader, self.leader_epoch)
        } else {
            (r.leader, self.leader_epoch.wrapping_add(1))
        };
        let leader_recovery_state = if r.leader_recovery_state == NO_LEADER_RECOVERY_STATE_CHANGE {
            self.leader_recovery_state
        } else {
            LeaderRecoveryState::of(r.leader_recovery_state).unwrap_or(self.leader_recovery_state)
        };
        let or =
            |new: &Option<Vec<i32>>, old: &Vec<i32>| new.clone().unwrap_or_else(|| old.clone());
        PartitionState {
            replicas,
            directories,
            isr: or(&r.isr, &self.isr),
            removing_replicas: or(&r.removing_replicas, &self.removing_replicas),
            adding_replicas: or(&r.adding_replicas, &self.adding_replicas),
            elr: or(&r.eligible_leader_replicas, &self.elr),
            last_known_elr: or(&r.last_known_elr, &self.last_known_elr),
            leader,
            leader_recovery_state,
            leader_epoch,
            partition_epoch: self.partition_epoch.wrapping_add(1),
        }
    }
}
