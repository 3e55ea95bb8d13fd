//! Counting the leader elections in committed records as Kafka's
//! `TopicDelta` does for `UncleanLeaderElectionsPerSec` and
//! `ElectionFromEligibleLeaderReplicasPerSec`: a partition record (new or
//! changed) whose leader recovery state is RECOVERING was an unclean
//! election; one whose new leader was in the partition's eligible leader
//! replicas before the record was an election from the ELR.

use std::collections::HashMap;

use bytes::Bytes;
use kraft_protocol::records::decode_metadata_record_header;
use kraft_protocol::{MetadataRecordBody, MetadataRecordType, Uuid};

use crate::image::MetadataImage;

/// `LeaderRecoveryState.RECOVERING`: the leader was elected uncleanly.
const RECOVERING: i8 = 1;

/// The elections counted in a run of records, read in log order against
/// the image before them.
#[derive(Debug, Default)]
pub(crate) struct ElectionCounts {
    /// Unclean leader elections.
    pub unclean: u64,
    /// Elections of a leader from the eligible leader replicas.
    pub from_elr: u64,
    /// The ELR of each partition as the records so far left it.
    elr: HashMap<(Uuid, i32), Vec<i32>>,
}

impl ElectionCounts {
    /// Counts `value` (a metadata record) if it is a partition record;
    /// `before` is the image the run of records applies to.
    pub(crate) fn record(&mut self, value: &Bytes, before: &MetadataImage) {
        let mut frame = value.clone();
        let partition_record = match decode_metadata_record_header(&mut frame) {
            Ok(h) if h.api_key == MetadataRecordType::PartitionChange.id() => false,
            Ok(h) if h.api_key == MetadataRecordType::Partition.id() => true,
            _ => return,
        };
        let Ok((_, body)) = MetadataRecordBody::decode(value.clone()) else {
            return;
        };
        let (key, leader, recovery, new_elr) = match body {
            MetadataRecordBody::PartitionChange(r) => (
                (r.topic_id, r.partition_id),
                r.leader,
                r.leader_recovery_state,
                r.eligible_leader_replicas,
            ),
            MetadataRecordBody::Partition(r) => (
                (r.topic_id, r.partition_id),
                r.leader,
                r.leader_recovery_state,
                Some(r.eligible_leader_replicas.unwrap_or_default()),
            ),
            _ => return,
        };
        let previous_elr = match self.elr.get(&key) {
            Some(elr) => Some(elr.clone()),
            None => before
                .topics()
                .partition(&key.0, key.1)
                .map(|p| p.elr().collect()),
        };
        // A partition record for a partition not in the image is a creation,
        // not an election.
        if let Some(previous) = &previous_elr {
            if recovery == RECOVERING {
                self.unclean += 1;
            }
            if leader >= 0 && previous.contains(&leader) {
                self.from_elr += 1;
            }
        } else if !partition_record && recovery == RECOVERING {
            self.unclean += 1;
        }
        let elr = match new_elr {
            Some(elr) => elr,
            None => previous_elr.unwrap_or_default(),
        };
        self.elr.insert(key, elr);
    }
}

#[cfg(test)]
mod tests {
    use kraft_protocol::messages::partition_change_record::PartitionChangeRecord;
    use kraft_protocol::messages::partition_record::PartitionRecord;

    use super::*;
    use crate::image::MetadataRecord;
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

    fn change(leader: i32, recovery: i8, elr: Option<Vec<i32>>) -> Bytes {
        let record = PartitionChangeRecord {
            topic_id: TOPIC,
            partition_id: 0,
            leader,
            leader_recovery_state: recovery,
            eligible_leader_replicas: elr,
            ..Default::default()
        };
        Bytes::from(MetadataRecord::new(record, 2).encode().expect("encode"))
    }

    fn count(records: &[Bytes]) -> (u64, u64) {
        let image = image();
        let mut counts = ElectionCounts::default();
        for r in records {
            counts.record(r, &image);
        }
        (counts.unclean, counts.from_elr)
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
    fn a_new_partition_is_no_election_and_other_records_are_ignored() {
        let created = PartitionRecord {
            topic_id: Uuid::from_u64_pair(8, 8),
            partition_id: 0,
            leader: 1,
            leader_recovery_state: 1,
            replicas: vec![1],
            isr: vec![1],
            ..Default::default()
        };
        let created = Bytes::from(MetadataRecord::new(created, 0).encode().expect("encode"));
        let feature = Bytes::from(
            MetadataRecord::feature_level("metadata.version", 30)
                .encode()
                .expect("encode"),
        );
        assert_eq!(count(&[created, feature]), (0, 0));
    }
}
