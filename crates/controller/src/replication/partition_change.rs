//! Kafka's `PartitionChangeBuilder`: the PartitionChangeRecord that moves
//! one partition from its current state towards the wanted one.
//!
//! A [`PartitionChangeBuilder`] starts from a [`PartitionState`] with every
//! target equal to the current value; the caller sets the targets that
//! change (ISR, replicas, reassignment lists, leader recovery state,
//! directories, the election type, replicas that shut down uncleanly) and
//! [`PartitionChangeBuilder::build`] derives, in Kafka's order:
//!
//! 1. completion of a reassignment whose adding replicas have all joined
//!    the ISR;
//! 2. the eligible leader replicas (KIP-966) when the ISR falls below the
//!    minimum ISR;
//! 3. the leader election (preferred, online or unclean; from the ELR when
//!    the ISR is empty; the last known leader as a last resort);
//! 4. the leader epoch bumps Kafka forces (replicas removed; ISR shrinks
//!    before 3.6-IV0);
//! 5. the ELR, ISR, last known ELR, replicas, directories, reassignment and
//!    leader recovery fields that differ from the current state.
//!
//! The result is `None` when nothing changes, else the record at
//! `metadata.version`'s `partitionChangeRecordVersion`. Leader `-2`
//! ([`NO_LEADER_CHANGE`]) and leader recovery state `-1` mean unchanged,
//! `-1` ([`NO_LEADER`]) means no leader, and absent lists are unchanged, as
//! in Kafka.
//!
//! The sets Kafka builds with `java.util.HashSet` (the new ELR and last
//! known ELR) come out in the same iteration order as on a JVM (JDK 17's
//! `HashSet(Collection)` sizing).

use kraft_protocol::messages::partition_change_record::PartitionChangeRecord;
use kraft_protocol::Uuid;

use kraft_protocol::MetadataRecordBody;

use super::broker_changes::{
    elr_enabled, is_active, leader_acceptor, topic_facts, ReplicationSettings,
};
use super::placer::default_directory;
use super::reassignment::ReassignmentReplicas;
use super::{PartitionState, NO_LEADER, NO_LEADER_CHANGE, NO_LEADER_RECOVERY_STATE_CHANGE};
use crate::features::MetadataVersion;
use crate::image::{LeaderRecoveryState, MetadataImage, MetadataRecord, PartitionRegistration};
use crate::java::JavaHashMap;

/// The first metadata.version (3.6-IV0) at which an ISR shrink no longer
/// needs a leader epoch bump (Kafka's `isLeaderEpochBumpRequiredOnIsrShrink`,
/// KAFKA-15021).
const NO_EPOCH_BUMP_ON_ISR_SHRINK_LEVEL: i16 = 12;

/// How a leader is chosen (Kafka's `PartitionChangeBuilder.Election`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Election {
    /// The preferred replica if it may lead, else as [`Election::Online`].
    Preferred,
    /// A leader from the ISR (or the ELR when the ISR is empty); the
    /// default.
    Online,
    /// As [`Election::Online`], then any acceptable replica, even one
    /// outside the ISR (possible data loss).
    Unclean,
}

/// What Kafka's `PartitionChangeRecord` no-op check looks at: whether a
/// change record changes nothing (Kafka's `changeRecordIsNoOp`).
pub(crate) fn change_record_is_no_op(r: &PartitionChangeRecord) -> bool {
    r.isr.is_none()
        && r.eligible_leader_replicas.is_none()
        && r.last_known_elr.is_none()
        && r.leader == NO_LEADER_CHANGE
        && r.replicas.is_none()
        && r.removing_replicas.is_none()
        && r.adding_replicas.is_none()
        && r.leader_recovery_state == NO_LEADER_RECOVERY_STATE_CHANGE
        && r.directories.is_none()
}

/// What the builder needs besides the partition: the cluster facts Kafka's
/// builder gets in its constructor and `setDefaultDirProvider`.
#[derive(Clone, Copy)]
pub(crate) struct ChangeContext<'a> {
    /// The finalized metadata.version: the record version, directory
    /// support and the ISR-shrink epoch bump follow it.
    pub metadata_version: MetadataVersion,
    /// The topic's effective minimum ISR.
    pub min_isr: i32,
    /// Whether eligible leader replicas are enabled.
    pub elr_enabled: bool,
    /// Whether a broker may lead this partition (Kafka's `isAcceptableLeader`).
    pub is_acceptable_leader: &'a dyn Fn(i32) -> bool,
    /// The directory of a replica the partition did not have (Kafka's
    /// `DefaultDirProvider`).
    pub default_directory: &'a dyn Fn(i32) -> Uuid,
}

/// Kafka's `PartitionChangeBuilder`: see the module docs.
pub(crate) struct PartitionChangeBuilder<'a> {
    partition: &'a PartitionState,
    topic_id: Uuid,
    partition_id: i32,
    context: ChangeContext<'a>,
    /// Replica to directory, from the partition and [`Self::set_directory`].
    target_directories: Vec<(i32, Uuid)>,
    target_isr: Vec<i32>,
    target_replicas: Vec<i32>,
    target_removing: Vec<i32>,
    target_adding: Vec<i32>,
    target_elr: Vec<i32>,
    target_last_known_elr: Vec<i32>,
    unclean_shutdown_replicas: Option<Vec<i32>>,
    election: Election,
    target_leader_recovery_state: LeaderRecoveryState,
    use_last_known_leader_in_balanced_recovery: bool,
}

/// A leader election's outcome (Kafka's `ElectionResult`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct ElectionResult {
    node: i32,
    unclean: bool,
}

impl ElectionResult {
    fn clean(node: i32) -> Self {
        ElectionResult {
            node,
            unclean: false,
        }
    }
}

/// Kafka's `Replicas.contains(List, int[])`: whether `a` holds every entry
/// of `b` (as multisets).
fn contains_all(a: &[i32], b: &[i32]) -> bool {
    let mut a_sorted = a.to_vec();
    a_sorted.sort_unstable();
    let mut b_sorted = b.to_vec();
    b_sorted.sort_unstable();
    let mut i = 0;
    for replica in b_sorted {
        loop {
            let Some(candidate) = a_sorted.get(i) else {
                return false;
            };
            i += 1;
            if *candidate == replica {
                break;
            }
            if *candidate > replica {
                return false;
            }
        }
    }
    true
}

/// A `java.util.HashSet<Integer>` built from `initial` as
/// `new HashSet<>(collection)` builds it (JDK 17 sizing).
fn java_int_set(initial: &[i32]) -> JavaHashMap<i32> {
    let capacity = ((initial.len() as f32 / 0.75) as usize + 1).max(16);
    let mut set = JavaHashMap::with_capacity(capacity);
    for r in initial {
        set.put(*r);
    }
    set
}

impl<'a> PartitionChangeBuilder<'a> {
    /// A builder whose targets are the partition's current state, with an
    /// [`Election::Online`] election and the last known leader kept in the
    /// last known ELR (Kafka's default `useLastKnownLeaderInBalancedRecovery`).
    pub(crate) fn new(
        partition: &'a PartitionState,
        topic_id: Uuid,
        partition_id: i32,
        context: ChangeContext<'a>,
    ) -> Self {
        PartitionChangeBuilder {
            partition,
            topic_id,
            partition_id,
            context,
            target_directories: partition
                .replicas
                .iter()
                .copied()
                .zip(partition.directories.iter().copied())
                .collect(),
            target_isr: partition.isr.clone(),
            target_replicas: partition.replicas.clone(),
            target_removing: partition.removing_replicas.clone(),
            target_adding: partition.adding_replicas.clone(),
            target_elr: partition.elr.clone(),
            target_last_known_elr: partition.last_known_elr.clone(),
            unclean_shutdown_replicas: None,
            election: Election::Online,
            target_leader_recovery_state: partition.leader_recovery_state,
            use_last_known_leader_in_balanced_recovery: true,
        }
    }

    /// The wanted ISR.
    pub(crate) fn set_target_isr(mut self, isr: Vec<i32>) -> Self {
        self.target_isr = isr;
        self
    }

    /// The wanted replicas.
    pub(crate) fn set_target_replicas(mut self, replicas: Vec<i32>) -> Self {
        self.target_replicas = replicas;
        self
    }

    /// Replicas that shut down uncleanly: kept out of the new ELR.
    pub(crate) fn set_unclean_shutdown_replicas(mut self, replicas: Vec<i32>) -> Self {
        self.unclean_shutdown_replicas = Some(replicas);
        self
    }

    /// The election type.
    pub(crate) fn set_election(mut self, election: Election) -> Self {
        self.election = election;
        self
    }

    /// The wanted removing replicas.
    pub(crate) fn set_target_removing(mut self, removing: Vec<i32>) -> Self {
        self.target_removing = removing;
        self
    }

    /// The wanted adding replicas.
    pub(crate) fn set_target_adding(mut self, adding: Vec<i32>) -> Self {
        self.target_adding = adding;
        self
    }

    /// The wanted leader recovery state.
    pub(crate) fn set_target_leader_recovery_state(mut self, state: LeaderRecoveryState) -> Self {
        self.target_leader_recovery_state = state;
        self
    }

    /// Whether a leaderless partition remembers its last leader in the last
    /// known ELR and may elect it back (Kafka's
    /// `setUseLastKnownLeaderInBalancedRecovery`; on by default).
    pub(crate) fn set_use_last_known_leader_in_balanced_recovery(mut self, use_it: bool) -> Self {
        self.use_last_known_leader_in_balanced_recovery = use_it;
        self
    }

    /// The directory of `broker`'s replica.
    pub(crate) fn set_directory(mut self, broker: i32, directory: Uuid) -> Self {
        match self
            .target_directories
            .iter_mut()
            .find(|(b, _)| *b == broker)
        {
            Some(entry) => entry.1 = directory,
            None => self.target_directories.push((broker, directory)),
        }
        self
    }

    #[cfg(test)]
    /// The current target ISR.
    pub(crate) fn target_isr(&self) -> &[i32] {
        &self.target_isr
    }

    fn acceptable(&self, broker: i32) -> bool {
        (self.context.is_acceptable_leader)(broker)
    }

    /// Kafka's `isValidNewLeader`: in the target ISR (or the target ELR when
    /// that ISR is empty) and acceptable.
    fn is_valid_new_leader(&self, replica: i32) -> bool {
        (self.target_isr.contains(&replica)
            || (self.target_isr.is_empty() && self.target_elr.contains(&replica)))
            && self.acceptable(replica)
    }

    /// Kafka's `canElectLastKnownLeader`: ELR enabled and used for the last
    /// leader, target ISR and ELR empty, exactly one last known ELR member,
    /// and it may lead.
    fn can_elect_last_known_leader(&self) -> bool {
        if !self.context.elr_enabled || !self.use_last_known_leader_in_balanced_recovery {
            return false;
        }
        if !self.target_elr.is_empty() || !self.target_isr.is_empty() {
            return false;
        }
        match self.partition.last_known_elr.as_slice() {
            [last] => self.acceptable(*last),
            _ => false,
        }
    }

    /// The last known leader, elected uncleanly, if it may be.
    fn last_known_leader(&self) -> Option<ElectionResult> {
        if !self.can_elect_last_known_leader() {
            return None;
        }
        let node = *self.partition.last_known_elr.first()?;
        Some(ElectionResult {
            node,
            unclean: true,
        })
    }

    /// Kafka's `electLeader`.
    fn elect_leader(&self) -> ElectionResult {
        if self.election == Election::Preferred {
            self.elect_preferred_leader()
        } else {
            self.elect_any_leader()
        }
    }

    fn elect_preferred_leader(&self) -> ElectionResult {
        // Kafka reads the first target replica unconditionally; an empty
        // replica list (never built by the controller) skips to the others.
        if let Some(preferred) = self.target_replicas.first() {
            if self.is_valid_new_leader(*preferred) {
                return ElectionResult::clean(*preferred);
            }
        }
        if self.is_valid_new_leader(self.partition.leader) {
            return ElectionResult::clean(self.partition.leader);
        }
        if let Some(r) = self
            .target_replicas
            .iter()
            .skip(1)
            .find(|r| self.is_valid_new_leader(**r))
        {
            return ElectionResult::clean(*r);
        }
        self.last_known_leader()
            .unwrap_or(ElectionResult::clean(NO_LEADER))
    }

    fn elect_any_leader(&self) -> ElectionResult {
        if self.is_valid_new_leader(self.partition.leader) {
            return ElectionResult::clean(self.partition.leader);
        }
        if let Some(r) = self
            .target_replicas
            .iter()
            .find(|r| self.is_valid_new_leader(**r))
        {
            return ElectionResult::clean(*r);
        }
        if let Some(result) = self.last_known_leader() {
            return result;
        }
        if self.election == Election::Unclean {
            if let Some(r) = self.target_replicas.iter().find(|r| self.acceptable(**r)) {
                return ElectionResult {
                    node: *r,
                    unclean: true,
                };
            }
        }
        ElectionResult::clean(NO_LEADER)
    }

    /// Kafka's `tryElection`: sets the record's leader when the election
    /// changes it; an ELR leader becomes the whole ISR and leaves the ELR;
    /// an unclean one becomes the whole ISR and makes the partition
    /// RECOVERING.
    fn try_election(&mut self, record: &mut PartitionChangeRecord) {
        let result = self.elect_leader();
        if result.node == self.partition.leader {
            tracing::trace!(
                "Failed to find a new leader for partition {} of topic {}",
                self.partition_id,
                crate::java::uuid_to_text(&self.topic_id)
            );
            return;
        }
        let node = result.node;
        if self.target_elr.contains(&node) {
            self.target_isr = vec![node];
            self.target_elr.retain(|r| *r != node);
            tracing::info!(
                "Setting new leader for topicId {}, partition {} to {node} using ELR",
                crate::java::uuid_to_text(&self.topic_id),
                self.partition_id
            );
        } else if result.unclean {
            tracing::info!(
                "Setting new leader for topicId {}, partition {} to {node} using an unclean election",
                crate::java::uuid_to_text(&self.topic_id),
                self.partition_id
            );
        }
        record.leader = node;
        if result.unclean {
            record.isr = Some(vec![node]);
            if self.partition.leader_recovery_state != LeaderRecoveryState::Recovering {
                record.leader_recovery_state = LeaderRecoveryState::Recovering.value();
            }
        }
    }

    /// Kafka's `triggerLeaderEpochBumpForReplicaReassignmentIfNeeded`: a
    /// replica set that drops any current replica bumps the leader epoch.
    fn trigger_leader_epoch_bump_for_replica_reassignment(
        &self,
        record: &mut PartitionChangeRecord,
    ) {
        if record.leader != NO_LEADER_CHANGE {
            return;
        }
        if !contains_all(&self.target_replicas, &self.partition.replicas) {
            record.leader = self.partition.leader;
        }
    }

    /// Kafka's `triggerLeaderEpochBumpForIsrShrinkIfNeeded`: before
    /// 3.6-IV0, an ISR that drops any current member bumps the leader epoch.
    fn trigger_leader_epoch_bump_for_isr_shrink(&self, record: &mut PartitionChangeRecord) {
        if self.context.metadata_version.feature_level() >= NO_EPOCH_BUMP_ON_ISR_SHRINK_LEVEL {
            return;
        }
        if record.leader != NO_LEADER_CHANGE {
            return;
        }
        let Some(isr) = &record.isr else {
            return;
        };
        if !contains_all(isr, &self.partition.isr) {
            record.leader = self.partition.leader;
        }
    }

    /// Kafka's `completeReassignmentIfNeeded`: the target replicas and ISR
    /// of a reassignment the target ISR lets complete
    /// ([`ReassignmentReplicas::maybe_complete`]).
    fn complete_reassignment_if_needed(&mut self) {
        // Most changes move nothing: no copies for them.
        if self.target_removing.is_empty() && self.target_adding.is_empty() {
            return;
        }
        let ongoing = ReassignmentReplicas {
            removing: self.target_removing.clone(),
            adding: self.target_adding.clone(),
            replicas: self.target_replicas.clone(),
        };
        let Some(completed) = ongoing.maybe_complete(&self.target_isr) else {
            return;
        };
        self.target_isr = completed.isr;
        self.target_replicas = completed.replicas;
        self.target_removing = Vec::new();
        self.target_adding = Vec::new();
    }

    /// Kafka's `maybePopulateTargetElr`: with ELR enabled, an ISR at or
    /// above the minimum ISR clears both ELR lists; below it, the ELR gains
    /// the current ISR members leaving it (not the unclean shutdown ones)
    /// and the last known ELR keeps the rest.
    fn maybe_populate_target_elr(&mut self) {
        if !self.context.elr_enabled {
            return;
        }
        if self.target_isr.len() as i64 >= i64::from(self.context.min_isr) {
            self.target_elr = Vec::new();
            self.target_last_known_elr = Vec::new();
            return;
        }
        let mut candidates = java_int_set(&self.target_elr);
        for r in &self.partition.isr {
            candidates.put(*r);
        }
        let target_isr = &self.target_isr;
        let unclean = self.unclean_shutdown_replicas.as_deref().unwrap_or(&[]);
        let elr: Vec<i32> = candidates
            .iter()
            .copied()
            .filter(|r| !target_isr.contains(r) && !unclean.contains(r))
            .collect();
        for r in &self.target_last_known_elr {
            candidates.put(*r);
        }
        self.target_last_known_elr = candidates
            .iter()
            .copied()
            .filter(|r| !target_isr.contains(r) && !elr.contains(r))
            .collect();
        self.target_elr = elr;
    }

    /// Kafka's `maybeUpdateRecordElr`.
    fn maybe_update_record_elr(&mut self, record: &mut PartitionChangeRecord) {
        // An unclean election has already set the ISR.
        let clean_election = record.isr.is_none();
        if !clean_election || !self.context.elr_enabled {
            self.target_elr = Vec::new();
            self.target_last_known_elr = Vec::new();
        }
        if self.target_elr != self.partition.elr {
            record.eligible_leader_replicas = Some(self.target_elr.clone());
        }
        let leaderless = record.leader == NO_LEADER
            || (record.leader == NO_LEADER_CHANGE && self.partition.leader == NO_LEADER);
        if self.use_last_known_leader_in_balanced_recovery
            && self.partition.last_known_elr.len() == 1
            && leaderless
        {
            // The last known ELR holds the last leader: keep it while
            // leaderless.
            self.target_last_known_elr = self.partition.last_known_elr.clone();
        }
        // When it holds the last leader, `maybe_update_last_known_leader`
        // sets it.
        if self.use_last_known_leader_in_balanced_recovery {
            return;
        }
        if self.target_last_known_elr != self.partition.last_known_elr {
            record.last_known_elr = Some(self.target_last_known_elr.clone());
        }
    }

    /// Kafka's `maybeUpdateLastKnownLeader`: the first time a partition
    /// becomes leaderless its last leader is remembered; a partition with a
    /// leader forgets it.
    fn maybe_update_last_known_leader(&self, record: &mut PartitionChangeRecord) {
        if !self.use_last_known_leader_in_balanced_recovery || !self.context.elr_enabled {
            return;
        }
        if record.leader == NO_LEADER && self.partition.last_known_elr.is_empty() {
            record.last_known_elr = Some(vec![self.partition.leader]);
        } else if record.leader >= 0 && !self.partition.last_known_elr.is_empty() {
            record.last_known_elr = Some(Vec::new());
        }
    }

    /// Kafka's `setAssignmentChanges`: replicas and their directories (from
    /// directory assignment on), removing and adding replicas, where they
    /// differ.
    fn set_assignment_changes(&self, record: &mut PartitionChangeRecord) {
        if !self.target_replicas.is_empty() {
            if self
                .context
                .metadata_version
                .is_directory_assignment_supported()
            {
                let directories: Vec<Uuid> = self
                    .target_replicas
                    .iter()
                    .map(|r| {
                        self.target_directories
                            .iter()
                            .find(|(b, _)| b == r)
                            .map_or_else(|| (self.context.default_directory)(*r), |(_, d)| *d)
                    })
                    .collect();
                if directories != self.partition.directories {
                    record.directories = Some(directories);
                }
            }
            if self.target_replicas != self.partition.replicas {
                record.replicas = Some(self.target_replicas.clone());
            }
        }
        if self.target_removing != self.partition.removing_replicas {
            record.removing_replicas = Some(self.target_removing.clone());
        }
        if self.target_adding != self.partition.adding_replicas {
            record.adding_replicas = Some(self.target_adding.clone());
        }
    }

    /// Kafka's `build`: the PartitionChangeRecord at the metadata.version's
    /// `partitionChangeRecordVersion`, or `None` when nothing changes.
    pub(crate) fn build(mut self) -> Option<MetadataRecord> {
        let mut record = PartitionChangeRecord {
            topic_id: self.topic_id,
            partition_id: self.partition_id,
            ..Default::default()
        };
        self.complete_reassignment_if_needed();
        self.maybe_populate_target_elr();
        self.try_election(&mut record);
        self.trigger_leader_epoch_bump_for_replica_reassignment(&mut record);
        self.maybe_update_record_elr(&mut record);
        // With ELR enabled the ISR may become empty.
        if record.isr.is_none()
            && (!self.target_isr.is_empty() || self.context.elr_enabled)
            && self.target_isr != self.partition.isr
        {
            if self.target_isr.is_empty() {
                tracing::debug!(
                    "Partition {} of topic {} will have an empty ISR",
                    self.partition_id,
                    crate::java::uuid_to_text(&self.topic_id)
                );
            }
            record.isr = Some(self.target_isr.clone());
        }
        self.trigger_leader_epoch_bump_for_isr_shrink(&mut record);
        self.maybe_update_last_known_leader(&mut record);
        self.set_assignment_changes(&mut record);
        if self.target_leader_recovery_state != self.partition.leader_recovery_state {
            record.leader_recovery_state = self.target_leader_recovery_state.value();
        }
        if change_record_is_no_op(&record) {
            None
        } else {
            Some(MetadataRecord::new(
                record,
                self.context
                    .metadata_version
                    .partition_change_record_version(),
            ))
        }
    }
}

/// Kafka's `getTopicEffectiveMinIsr` for the topic named `topic`: its
/// `min.insync.replicas` (topic, this controller's BROKER config, cluster
/// default, static), at most the replication factor of its partition 0. An
/// unknown topic gets the static value.
pub(crate) fn min_isr_for_topic(
    image: &MetadataImage,
    topic: &str,
    settings: &ReplicationSettings,
) -> i32 {
    image
        .topics()
        .topic_by_name(topic)
        .map_or(settings.min_insync_replicas, |t| {
            topic_facts(image, t, usize::MAX, settings).min_isr
        })
}

/// Kafka's `uncleanLeaderElectionEnabledForTopic` for the topic named
/// `topic` (topic, this controller's BROKER config, cluster default,
/// static).
pub(crate) fn unclean_election_enabled(
    image: &MetadataImage,
    topic: &str,
    settings: &ReplicationSettings,
) -> bool {
    image
        .topics()
        .topic_by_name(topic)
        .map_or(settings.unclean_leader_election_enable, |t| {
            topic_facts(image, t, usize::MAX, settings).unclean_leader_election
        })
}

/// A [`PartitionChange`]'s result: the record, if anything changes, and
/// the partition's state after it (Kafka merges the record into the
/// registration to answer AlterPartition).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ChangeOutcome {
    /// The PartitionChangeRecord, or `None` when nothing changes.
    pub record: Option<MetadataRecord>,
    /// The state once the record is applied (the current one without it).
    pub after: PartitionState,
}

/// A partition change as the controller's request handlers make it, over
/// the image: Kafka's `PartitionChangeBuilder` with a `LeaderAcceptor` on
/// `ClusterControlManager.isActive` (registered, unfenced, not in
/// controlled shutdown, replica directory online), the image's
/// metadata.version and ELR feature, and the cluster's default directories.
pub(crate) struct PartitionChange<'i> {
    image: &'i MetadataImage,
    topic_id: Uuid,
    partition_id: i32,
    state: PartitionState,
    min_isr: i32,
    election: Election,
    target_isr: Option<Vec<i32>>,
    target_replicas: Option<Vec<i32>>,
    target_removing: Option<Vec<i32>>,
    target_adding: Option<Vec<i32>>,
    target_leader_recovery_state: Option<LeaderRecoveryState>,
    directories: Vec<(i32, Uuid)>,
    use_last_known_leader: bool,
}

impl<'i> PartitionChange<'i> {
    /// A change of `partition` (partition `partition_id` of topic
    /// `topic_id`) whose topic has the effective minimum ISR `min_isr`
    /// ([`min_isr_for_topic`]).
    pub(crate) fn new(
        image: &'i MetadataImage,
        topic_id: Uuid,
        partition_id: i32,
        partition: PartitionRegistration<'_>,
        min_isr: i32,
    ) -> Self {
        PartitionChange {
            image,
            topic_id,
            partition_id,
            state: PartitionState::of(partition),
            min_isr,
            election: Election::Online,
            target_isr: None,
            target_replicas: None,
            target_removing: None,
            target_adding: None,
            target_leader_recovery_state: None,
            directories: Vec::new(),
            use_last_known_leader: true,
        }
    }

    /// An [`Election::Unclean`] election (the topic allows it).
    pub(crate) fn unclean_election(self) -> Self {
        self.election(Election::Unclean)
    }

    /// The election type.
    pub(crate) fn election(mut self, election: Election) -> Self {
        self.election = election;
        self
    }

    /// The wanted ISR.
    pub(crate) fn target_isr(mut self, isr: Vec<i32>) -> Self {
        self.target_isr = Some(isr);
        self
    }

    /// The wanted replicas.
    pub(crate) fn target_replicas(mut self, replicas: Vec<i32>) -> Self {
        self.target_replicas = Some(replicas);
        self
    }

    /// The wanted removing replicas.
    pub(crate) fn target_removing(mut self, removing: Vec<i32>) -> Self {
        self.target_removing = Some(removing);
        self
    }

    /// The wanted adding replicas.
    pub(crate) fn target_adding(mut self, adding: Vec<i32>) -> Self {
        self.target_adding = Some(adding);
        self
    }

    /// The directory of `broker`'s replica (Kafka's `setDirectory`).
    pub(crate) fn directory(mut self, broker: i32, directory: Uuid) -> Self {
        self.directories.push((broker, directory));
        self
    }

    /// The state of the partition being changed.
    pub(crate) fn state(&self) -> &PartitionState {
        &self.state
    }

    /// The wanted leader recovery state.
    pub(crate) fn target_leader_recovery_state(mut self, state: LeaderRecoveryState) -> Self {
        self.target_leader_recovery_state = Some(state);
        self
    }

    /// The record (if anything changes) and the state after it. Without a
    /// metadata.version nothing changes.
    pub(crate) fn build(self) -> ChangeOutcome {
        let image = self.image;
        let Some(metadata_version) = image.metadata_version() else {
            return ChangeOutcome {
                record: None,
                after: self.state,
            };
        };
        let record = {
            let accept = leader_acceptor(image, &self.state, |b| is_active(image, b));
            let default_dir = |b: i32| default_directory(image, b);
            let mut builder = PartitionChangeBuilder::new(
                &self.state,
                self.topic_id,
                self.partition_id,
                ChangeContext {
                    metadata_version,
                    min_isr: self.min_isr,
                    elr_enabled: elr_enabled(image),
                    is_acceptable_leader: &accept,
                    default_directory: &default_dir,
                },
            )
            .set_election(self.election)
            .set_use_last_known_leader_in_balanced_recovery(self.use_last_known_leader);
            if let Some(isr) = self.target_isr {
                builder = builder.set_target_isr(isr);
            }
            if let Some(replicas) = self.target_replicas {
                builder = builder.set_target_replicas(replicas);
            }
            if let Some(removing) = self.target_removing {
                builder = builder.set_target_removing(removing);
            }
            if let Some(adding) = self.target_adding {
                builder = builder.set_target_adding(adding);
            }
            if let Some(state) = self.target_leader_recovery_state {
                builder = builder.set_target_leader_recovery_state(state);
            }
            for (broker, dir) in self.directories {
                builder = builder.set_directory(broker, dir);
            }
            builder.build()
        };
        let after = match record.as_ref().map(|r| &r.body) {
            Some(MetadataRecordBody::PartitionChange(change)) => self.state.merge(change),
            _ => self.state,
        };
        ChangeOutcome { record, after }
    }
}

#[cfg(test)]
#[path = "partition_change_tests.rs"]
mod tests;
