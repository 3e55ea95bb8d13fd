//! The replica lists of a partition reassignment (KIP-455), as Kafka 4.4's
//! `PartitionReassignmentReplicas` and `PartitionReassignmentRevert` work
//! them out.
//!
//! A reassignment from the current replicas to a target list writes the
//! target followed by the replicas it drops as the partition's replicas,
//! with the dropped ones as removing and the new ones as adding replicas
//! (both in ascending order). It completes once every adding replica has
//! joined the ISR (and, when the replication factor shrinks, every
//! remaining replica): the removing replicas then leave the replicas and
//! the ISR. Cancelling puts back the replicas the partition had before:
//! every replica but the adding ones, with the adding ones out of the ISR.

use super::PartitionState;

/// The replica lists of a reassignment (Kafka's
/// `PartitionReassignmentReplicas`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ReassignmentReplicas {
    /// Replicas being removed, ascending when computed by [`Self::between`].
    pub removing: Vec<i32>,
    /// Replicas being added, ascending when computed by [`Self::between`].
    pub adding: Vec<i32>,
    /// The partition's replica list while the reassignment runs.
    pub replicas: Vec<i32>,
}

/// The replica list and ISR of a completed reassignment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct CompletedReassignment {
    /// The replicas without the removed ones.
    pub replicas: Vec<i32>,
    /// The ISR without the removed replicas.
    pub isr: Vec<i32>,
}

/// The ascending, duplicate-free entries of `a` that are not in `b`.
fn sorted_difference(a: &[i32], b: &[i32]) -> Vec<i32> {
    let mut out: Vec<i32> = a.iter().copied().filter(|r| !b.contains(r)).collect();
    out.sort_unstable();
    out.dedup();
    out
}

impl ReassignmentReplicas {
    /// The reassignment of a partition whose replicas are `current` to
    /// `target`.
    pub(crate) fn between(current: &[i32], target: &[i32]) -> Self {
        let removing = sorted_difference(current, target);
        let adding = sorted_difference(target, current);
        let mut replicas = target.to_vec();
        replicas.extend_from_slice(&removing);
        ReassignmentReplicas {
            removing,
            adding,
            replicas,
        }
    }

    /// The reassignment a partition records.
    pub(crate) fn of(partition: &PartitionState) -> Self {
        ReassignmentReplicas {
            removing: partition.removing_replicas.clone(),
            adding: partition.adding_replicas.clone(),
            replicas: partition.replicas.clone(),
        }
    }

    /// Whether anything is being added or removed.
    pub(crate) fn in_progress(&self) -> bool {
        !self.removing.is_empty() || !self.adding.is_empty()
    }

    /// The replicas and ISR once the reassignment completes, if the ISR
    /// `isr` lets it: some replica outside the removing ones stays in the
    /// ISR, every adding replica is in it and, when fewer replicas are
    /// added than removed, every remaining replica too.
    pub(crate) fn maybe_complete(&self, isr: &[i32]) -> Option<CompletedReassignment> {
        if !self.in_progress() {
            return None;
        }
        let mut new_isr = isr.to_vec();
        let mut new_replicas = self.replicas.clone();
        if !self.removing.is_empty() {
            new_isr.retain(|r| !self.removing.contains(r));
            if new_isr.is_empty() {
                return None;
            }
            new_replicas.retain(|r| !self.removing.contains(r));
            if new_replicas.is_empty() {
                return None;
            }
        }
        if !self.adding.iter().all(|r| new_isr.contains(r)) {
            return None;
        }
        // A shrinking replication factor also waits for the replicas it
        // keeps, so that completing never leaves a smaller ISR than not.
        if self.adding.len() < self.removing.len()
            && !new_replicas.iter().all(|r| new_isr.contains(r))
        {
            return None;
        }
        Some(CompletedReassignment {
            replicas: new_replicas,
            isr: new_isr,
        })
    }

    /// The replicas before the reassignment: all but the adding ones.
    pub(crate) fn original_replicas(&self) -> Vec<i32> {
        self.replicas
            .iter()
            .copied()
            .filter(|r| !self.adding.contains(r))
            .collect()
    }
}

/// What cancelling a partition's reassignment leads to (Kafka's
/// `PartitionReassignmentRevert`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ReassignmentRevert {
    /// The original replicas.
    pub replicas: Vec<i32>,
    /// The ISR without the adding replicas; when that leaves nobody, the
    /// first original replica alone.
    pub isr: Vec<i32>,
    /// Whether the ISR had to be made up (an unclean leader election).
    pub unclean: bool,
}

/// Why a reassignment cannot be reverted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RevertError;

impl RevertError {
    /// Kafka's INVALID_REPLICA_ASSIGNMENT text for it.
    pub(crate) const MESSAGE: &'static str =
        "Invalid replica assignment: addingReplicas contains all replicas.";
}

impl ReassignmentRevert {
    /// The revert of `partition`'s reassignment; an error when every
    /// replica is an adding one (nothing to go back to).
    pub(crate) fn of(partition: &PartitionState) -> Result<Self, RevertError> {
        let ongoing = ReassignmentReplicas::of(partition);
        let replicas = ongoing.original_replicas();
        let mut isr: Vec<i32> = partition
            .isr
            .iter()
            .copied()
            .filter(|r| !ongoing.adding.contains(r))
            .collect();
        if !isr.is_empty() {
            return Ok(ReassignmentRevert {
                replicas,
                isr,
                unclean: false,
            });
        }
        let Some(first) = replicas.first() else {
            return Err(RevertError);
        };
        isr.push(*first);
        Ok(ReassignmentRevert {
            replicas,
            isr,
            unclean: true,
        })
    }
}

#[cfg(test)]
#[path = "reassignment_tests.rs"]
mod tests;
