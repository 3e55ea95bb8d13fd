//! Counting the leader elections the image applies, as Kafka's `TopicDelta`
//! does for `UncleanLeaderElectionsPerSec` and
//! `ElectionFromEligibleLeaderReplicasPerSec`: a partition record (new or
//! changed) for a partition the image already holds is an unclean election
//! when its leader recovery state is RECOVERING, and an election from the
//! ELR when its new leader was in the partition's eligible leader replicas
//! before the record. A partition record for a partition not in the image
//! is a creation, no election.
//!
//! The image counts while it applies each record (it has decoded it and
//! holds the partition anyway); [`super::SharedImage::apply_committed`]
//! reports what a run of committed records added.

use super::PartitionRegistration;

/// `LeaderRecoveryState.RECOVERING`: the leader was elected uncleanly.
const RECOVERING: i8 = 1;

/// Leader elections counted in applied partition records.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ElectionTally {
    /// Unclean leader elections.
    pub unclean: u64,
    /// Elections of a leader from the eligible leader replicas.
    pub from_elr: u64,
}

impl ElectionTally {
    /// Counts a partition record electing `leader` (-1 none, -2 unchanged)
    /// with leader recovery state `recovery` (-1 unchanged) for a partition
    /// that was `before` it.
    pub(super) fn observe(
        &mut self,
        before: Option<PartitionRegistration<'_>>,
        leader: i32,
        recovery: i8,
    ) {
        let Some(before) = before else { return };
        if recovery == RECOVERING {
            self.unclean += 1;
        }
        if leader >= 0 && before.elr().any(|b| b == leader) {
            self.from_elr += 1;
        }
    }

    /// What was counted since `earlier`.
    pub(super) fn since(self, earlier: ElectionTally) -> ElectionTally {
        ElectionTally {
            unclean: self.unclean.wrapping_sub(earlier.unclean),
            from_elr: self.from_elr.wrapping_sub(earlier.from_elr),
        }
    }
}

/// The image's running tally. It counts what was applied, it is not
/// metadata: two images holding the same metadata are equal whatever their
/// tallies.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct RunningTally(pub(super) ElectionTally);

impl PartialEq for RunningTally {
    fn eq(&self, _: &RunningTally) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use bytes::Bytes;
    use kraft_protocol::messages::partition_change_record::PartitionChangeRecord;
    use kraft_protocol::messages::partition_record::PartitionRecord;
    use kraft_protocol::messages::topic_record::TopicRecord;
    use kraft_protocol::Uuid;

    use crate::image::{MetadataImage, MetadataRecord, SharedImage};
    use crate::replication::test_support::{partition, ImageBuilder};

    const TOPIC: Uuid = Uuid::from_u64_pair(7, 7);

    /// Partition 0 led by 1 with ISR [1] and ELR [2, 3].
    fn image() -> MetadataImage {
        let mut p = partition(&[1, 2, 3, 4], Vec::new(), &[1], 1, 5, 9);
        p.elr = vec![2, 3];
        ImageBuilder::new(21, true)
            .brokers(&[1, 2, 3, 4])
            .topic_with("t", TOPIC, vec![p])
            .build()
    }

    fn encoded(record: MetadataRecord) -> Bytes {
        Bytes::from(record.encode().expect("encode"))
    }

    fn change(leader: i32, recovery: i8, elr: Option<Vec<i32>>) -> Bytes {
        let record = PartitionChangeRecord {
            topic_id: TOPIC,
            partition_id: 0,
            leader,
            leader_recovery_state: recovery,
            eligible_leader_replicas: elr,
            ..Default::default()
        };
        encoded(MetadataRecord::new(record, 2))
    }

    /// What applying `records` as committed records counts.
    fn count(records: &[Bytes]) -> (u64, u64) {
        let image = SharedImage::from_image(image());
        let first = image.read().last_offset() + 1;
        let records = records
            .iter()
            .enumerate()
            .map(|(i, r)| (first + i as i64, r.clone()));
        let tally = image.apply_committed(records).expect("applies");
        (tally.unclean, tally.from_elr)
    }

    #[test]
    fn a_leader_from_the_elr_is_an_elr_election() {
        assert_eq!(count(&[change(2, -1, None)]), (0, 1));
        assert_eq!(count(&[change(3, 0, Some(vec![]))]), (0, 1));
    }

    #[test]
    fn other_leaders_and_unchanged_leaders_are_not() {
        // Broker 4 is not in the ELR; -2 is "no change", -1 no leader.
        assert_eq!(count(&[change(4, -1, None)]), (0, 0));
        assert_eq!(count(&[change(-2, -1, None)]), (0, 0));
        assert_eq!(count(&[change(-1, -1, None)]), (0, 0));
    }

    #[test]
    fn a_recovering_leader_is_an_unclean_election() {
        assert_eq!(count(&[change(4, 1, None)]), (1, 0));
    }

    #[test]
    fn earlier_records_of_the_run_set_the_elr_later_ones_see() {
        // The first change empties the ELR: electing 2 after it is not
        // from the ELR; the next one puts 4 in it, and electing 4 is.
        assert_eq!(
            count(&[
                change(-2, -1, Some(vec![])),
                change(2, -1, None),
                change(-2, -1, Some(vec![4])),
                change(4, -1, None),
            ]),
            (0, 1)
        );
    }

    #[test]
    fn a_recreated_partition_with_a_recovering_leader_is_unclean() {
        let again = PartitionRecord {
            topic_id: TOPIC,
            partition_id: 0,
            leader: 2,
            leader_recovery_state: 1,
            replicas: vec![1, 2, 3, 4],
            isr: vec![2],
            ..Default::default()
        };
        // Leader 2 was in the ELR before the record, too.
        assert_eq!(count(&[encoded(MetadataRecord::new(again, 0))]), (1, 1));
    }

    #[test]
    fn a_new_partition_is_no_election_and_other_records_are_ignored() {
        let other = Uuid::from_u64_pair(8, 8);
        let topic = TopicRecord {
            name: "u".into(),
            topic_id: other,
            ..Default::default()
        };
        let created = PartitionRecord {
            topic_id: other,
            partition_id: 0,
            leader: 1,
            leader_recovery_state: 1,
            replicas: vec![1],
            isr: vec![1],
            ..Default::default()
        };
        let feature = MetadataRecord::feature_level("metadata.version", 30);
        assert_eq!(
            count(&[
                encoded(MetadataRecord::new(topic, 0)),
                encoded(MetadataRecord::new(created, 0)),
                encoded(feature),
            ]),
            (0, 0)
        );
    }

    #[test]
    fn transactions_count_only_what_they_apply() {
        // A change held in an aborted transaction is never applied, so
        // never counted; one in a committed transaction is.
        use kraft_protocol::messages::abort_transaction_record::AbortTransactionRecord;
        use kraft_protocol::messages::begin_transaction_record::BeginTransactionRecord;
        use kraft_protocol::messages::end_transaction_record::EndTransactionRecord;
        let begin = || encoded(MetadataRecord::new(BeginTransactionRecord::default(), 0));
        let abort = encoded(MetadataRecord::new(AbortTransactionRecord::default(), 0));
        let end = encoded(MetadataRecord::new(EndTransactionRecord::default(), 0));
        assert_eq!(count(&[begin(), change(2, 1, None), abort]), (0, 0));
        assert_eq!(count(&[begin(), change(2, 1, None), end]), (1, 1));
    }

    #[test]
    fn tallies_do_not_make_images_differ() {
        let mut counted = image();
        counted
            .replay_value(change(2, 1, None), 100)
            .expect("applies");
        let mut direct = image();
        let changed = PartitionChangeRecord {
            topic_id: TOPIC,
            partition_id: 0,
            leader: 2,
            leader_recovery_state: 1,
            ..Default::default()
        };
        direct
            .replay_at(&MetadataRecord::new(changed, 2), 100)
            .expect("applies");
        assert_eq!(counted, direct);
        assert_ne!(counted, image());
    }
}
