//! Topics and their partitions (Kafka's `TopicsImage` / `TopicsDelta`).
//!
//! Records are applied one at a time, each as a `TopicsDelta` of that one
//! record would apply it.

use std::collections::BTreeMap;

use kraft_protocol::messages::clear_elr_record::ClearElrRecord;
use kraft_protocol::messages::partition_change_record::PartitionChangeRecord;
use kraft_protocol::messages::partition_record::PartitionRecord;
use kraft_protocol::messages::remove_topic_record::RemoveTopicRecord;
use kraft_protocol::messages::topic_record::TopicRecord;
use kraft_protocol::Uuid;

use super::partition::PartitionRegistration;
use super::{MetadataRecord, ReplayError, WriteError, WriteOptions};
use crate::java::uuid_to_text;

/// One topic: its name, id and partitions (Kafka's `TopicImage`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TopicImage {
    name: String,
    id: Uuid,
    partitions: BTreeMap<i32, PartitionRegistration>,
}

impl TopicImage {
    /// The topic name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The topic id.
    pub fn id(&self) -> Uuid {
        self.id
    }

    /// Partition `id`.
    pub fn partition(&self, id: i32) -> Option<&PartitionRegistration> {
        self.partitions.get(&id)
    }

    /// The partitions with their ids, by id.
    pub fn partitions(&self) -> impl Iterator<Item = (i32, &PartitionRegistration)> {
        self.partitions.iter().map(|(id, p)| (*id, p))
    }

    /// How many partitions the topic has.
    pub fn partition_count(&self) -> usize {
        self.partitions.len()
    }

    /// Kafka's `TopicImage.write`: the TopicRecord, then each partition by id.
    fn write(
        &self,
        options: &WriteOptions,
        out: &mut Vec<MetadataRecord>,
    ) -> Result<(), WriteError> {
        out.push(MetadataRecord::new(
            TopicRecord {
                name: self.name.as_str().into(),
                topic_id: self.id,
                ..Default::default()
            },
            0,
        ));
        for (id, p) in &self.partitions {
            out.push(p.to_record(self.id, *id, options)?);
        }
        Ok(())
    }

    /// Kafka's `TopicDelta.replay()` for a ClearElrRecord: every partition
    /// with eligible or last known eligible leader replicas is merged with a
    /// change that empties both (which bumps its partition epoch).
    fn clear_elr(&mut self) -> Result<(), ReplayError> {
        let clear = PartitionChangeRecord {
            topic_id: self.id,
            eligible_leader_replicas: Some(Vec::new()),
            last_known_elr: Some(Vec::new()),
            ..Default::default()
        };
        for (id, p) in self.partitions.iter_mut() {
            if !p.elr.is_empty() || !p.last_known_elr.is_empty() {
                let change = PartitionChangeRecord {
                    partition_id: *id,
                    ..clear.clone()
                };
                *p = p.merge(&change)?;
            }
        }
        Ok(())
    }
}

/// Topics and their partitions (Kafka's `TopicsImage`): by id, and by name.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TopicsImage {
    by_id: BTreeMap<Uuid, TopicImage>,
    by_name: BTreeMap<String, Uuid>,
}

impl TopicsImage {
    /// The topic with id `id`.
    pub fn topic(&self, id: &Uuid) -> Option<&TopicImage> {
        self.by_id.get(id)
    }

    /// The topic named `name`.
    pub fn topic_by_name(&self, name: &str) -> Option<&TopicImage> {
        self.by_name.get(name).and_then(|id| self.by_id.get(id))
    }

    /// The id of the topic named `name`.
    pub fn topic_id(&self, name: &str) -> Option<Uuid> {
        self.by_name.get(name).copied()
    }

    /// All topics, by id.
    pub fn topics(&self) -> impl Iterator<Item = &TopicImage> {
        self.by_id.values()
    }

    /// Partition `partition` of topic `topic_id`.
    pub fn partition(&self, topic_id: &Uuid, partition: i32) -> Option<&PartitionRegistration> {
        self.by_id.get(topic_id)?.partition(partition)
    }

    /// How many topics there are.
    pub fn len(&self) -> usize {
        self.by_id.len()
    }

    /// Whether there are no topics.
    pub fn is_empty(&self) -> bool {
        self.by_id.is_empty()
    }

    /// Kafka's `TopicsDelta.replay(TopicRecord)`: the topic (re)starts
    /// empty under its id, and its name maps to it.
    pub(super) fn replay_topic(&mut self, r: &TopicRecord) -> Result<(), ReplayError> {
        let name = r.name.to_string();
        let topic = TopicImage {
            name: name.clone(),
            id: r.topic_id,
            partitions: BTreeMap::new(),
        };
        if let Some(prev) = self.by_id.insert(r.topic_id, topic) {
            // Kafka would keep the old name mapped to the old topic image;
            // here a renamed id loses its stale name entry.
            if prev.name != name && self.by_name.get(&prev.name) == Some(&r.topic_id) {
                self.by_name.remove(&prev.name);
            }
        }
        self.by_name.insert(name, r.topic_id);
        tracing::debug!(topic = %r.name, topic_id = %uuid_to_text(&r.topic_id), "replayed TopicRecord");
        Ok(())
    }

    /// The topic a partition record names. Kafka's delta fails with a
    /// `NullPointerException` (no message) for a topic it does not have;
    /// this message is ours.
    fn topic_mut(&mut self, id: &Uuid, record: &str) -> Result<&mut TopicImage, ReplayError> {
        self.by_id.get_mut(id).ok_or_else(|| {
            ReplayError::Invalid(format!(
                "Unable to replay {record} for topic id {}: no such topic found.",
                uuid_to_text(id)
            ))
        })
    }

    /// Kafka's `TopicDelta.replay(PartitionRecord)`: the partition is
    /// created or replaced.
    pub(super) fn replay_partition(&mut self, r: &PartitionRecord) -> Result<(), ReplayError> {
        let topic = self.topic_mut(&r.topic_id, "PartitionRecord")?;
        let partition = PartitionRegistration::from_record(r)?;
        topic.partitions.insert(r.partition_id, partition);
        Ok(())
    }

    /// Kafka's `TopicDelta.replay(PartitionChangeRecord)`: the partition
    /// merged with the change ([`PartitionRegistration::merge`]).
    pub(super) fn replay_partition_change(
        &mut self,
        r: &PartitionChangeRecord,
    ) -> Result<(), ReplayError> {
        let topic = self.topic_mut(&r.topic_id, "PartitionChangeRecord")?;
        let Some(prev) = topic.partitions.get_mut(&r.partition_id) else {
            return Err(ReplayError::Invalid(format!(
                "Unable to find partition {}:{}",
                uuid_to_text(&r.topic_id),
                r.partition_id
            )));
        };
        *prev = prev.merge(r)?;
        Ok(())
    }

    /// Kafka's `TopicsDelta.replay(RemoveTopicRecord)`: removes the topic and
    /// returns its name (its configuration goes with it).
    pub(super) fn replay_remove_topic(
        &mut self,
        r: &RemoveTopicRecord,
    ) -> Result<String, ReplayError> {
        let Some(topic) = self.by_id.remove(&r.topic_id) else {
            return Err(ReplayError::Invalid(format!(
                "Unable to delete topic with id {}: no such topic found.",
                uuid_to_text(&r.topic_id)
            )));
        };
        if self.by_name.get(&topic.name) == Some(&r.topic_id) {
            self.by_name.remove(&topic.name);
        }
        tracing::debug!(topic = %topic.name, topic_id = %uuid_to_text(&r.topic_id), "replayed RemoveTopicRecord");
        Ok(topic.name)
    }

    /// Kafka's `TopicsDelta.replay(ClearElrRecord)`: clears the ELR of the
    /// named topic, or of every topic when the name is empty.
    ///
    /// Applied on its own, a record naming a topic removed earlier fails
    /// here; inside one Kafka delta that also removed it, Kafka skips it.
    pub(super) fn replay_clear_elr(&mut self, r: &ClearElrRecord) -> Result<(), ReplayError> {
        if r.topic_name.is_empty() {
            for topic in self.by_id.values_mut() {
                topic.clear_elr()?;
            }
            return Ok(());
        }
        let Some(topic) = self
            .by_name
            .get(r.topic_name.as_str())
            .and_then(|id| self.by_id.get_mut(id))
        else {
            return Err(ReplayError::Invalid(format!(
                "Unable to clear elr for topic with name {}: no such topic found.",
                r.topic_name.as_str()
            )));
        };
        topic.clear_elr()
    }

    /// Kafka's `TopicsImage.write`: each topic's records. Kafka iterates a
    /// hash map of topics; here they go by id.
    pub(super) fn write(
        &self,
        options: &WriteOptions,
        out: &mut Vec<MetadataRecord>,
    ) -> Result<(), WriteError> {
        for topic in self.by_id.values() {
            topic.write(options, out)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use kraft_protocol::MetadataRecordBody;

    use super::*;
    use crate::image::partition::{LeaderRecoveryState, MIGRATING_DIRECTORY};
    use crate::image::MetadataImage;
    use crate::java::uuid_from_text;

    fn uuid(text: &str) -> Uuid {
        uuid_from_text(text).expect("a Kafka uuid")
    }

    // Kafka's TopicsImageFixtures ids. FOO_UUID2 is Kafka's
    // "9d3lha5qv8DoIl93jf8pbX", whose last symbol carries unused bits that
    // Java's decoder ignores and ours refuses: "...pbQ" is the same uuid.
    fn foo() -> Uuid {
        uuid("ThIaNwRnSM2Nt9Mx1v0RvA")
    }
    fn foo2() -> Uuid {
        uuid("9d3lha5qv8DoIl93jf8pbQ")
    }
    fn bar() -> Uuid {
        uuid("f62ptyETTjet8SL5ZeREiw")
    }
    fn baz() -> Uuid {
        uuid("tgHBnRglT5W_RlENnuG5vg")
    }
    fn bam() -> Uuid {
        uuid("b66ybsWIQoygs01vdjH07A")
    }

    fn topic(name: &str, id: Uuid) -> MetadataRecord {
        MetadataRecord::new(
            TopicRecord {
                name: name.into(),
                topic_id: id,
                ..Default::default()
            },
            0,
        )
    }

    #[allow(clippy::too_many_arguments)]
    fn partition(
        id: Uuid,
        partition: i32,
        replicas: &[i32],
        isr: &[i32],
        removing: &[i32],
        adding: &[i32],
        leader: i32,
        epochs: (i32, i32),
    ) -> MetadataRecord {
        MetadataRecord::new(
            PartitionRecord {
                partition_id: partition,
                topic_id: id,
                replicas: replicas.to_vec(),
                isr: isr.to_vec(),
                removing_replicas: removing.to_vec(),
                adding_replicas: adding.to_vec(),
                leader,
                leader_epoch: epochs.0,
                partition_epoch: epochs.1,
                ..Default::default()
            },
            0,
        )
    }

    fn remove(id: Uuid) -> MetadataRecord {
        MetadataRecord::new(
            RemoveTopicRecord {
                topic_id: id,
                ..Default::default()
            },
            0,
        )
    }

    fn change(r: PartitionChangeRecord) -> MetadataRecord {
        MetadataRecord::new(r, 0)
    }

    fn clear_elr(name: &str) -> MetadataRecord {
        MetadataRecord::new(
            ClearElrRecord {
                topic_name: name.into(),
                ..Default::default()
            },
            0,
        )
    }

    fn replay(image: &mut MetadataImage, records: &[MetadataRecord]) {
        for r in records {
            image.replay(r).expect("replays");
        }
    }

    /// Kafka's `TopicsImageFixtures.IMAGE1`, as records, at `level`.
    fn image1(level: i16) -> MetadataImage {
        let mut image = MetadataImage::new();
        replay(
            &mut image,
            &[
                MetadataRecord::feature_level("metadata.version", level),
                topic("foo", foo()),
                partition(foo(), 0, &[2, 3, 4], &[2, 3], &[], &[], 2, (1, 345)),
                partition(foo(), 1, &[3, 4, 5], &[3, 4, 5], &[], &[], 3, (4, 684)),
                partition(foo(), 2, &[2, 4, 5], &[2, 4, 5], &[], &[], 2, (10, 84)),
                topic("bar", bar()),
                partition(
                    bar(),
                    0,
                    &[0, 1, 2, 3, 4],
                    &[0, 1, 2, 3],
                    &[1],
                    &[3, 4],
                    0,
                    (1, 345),
                ),
            ],
        );
        image
    }

    fn round_trip(image: &MetadataImage) -> Vec<MetadataRecord> {
        let records = image.to_records().expect("writes");
        let loaded = MetadataImage::from_records(&records).expect("loads");
        assert_eq!(loaded.topics(), image.topics());
        assert_eq!(loaded.to_records().expect("writes"), records);
        records
    }

    #[test]
    fn kafka_topics_fixture_delta() {
        let mut image = image1(33);
        round_trip(&image);
        let foo_p1 = image.topics().partition(&foo(), 1).expect("foo-1");
        assert_eq!(foo_p1.directories, [MIGRATING_DIRECTORY; 3]);
        // DELTA1_RECORDS.
        replay(
            &mut image,
            &[
                remove(foo()),
                change(PartitionChangeRecord {
                    topic_id: bar(),
                    partition_id: 0,
                    leader: 1,
                    ..Default::default()
                }),
                topic("baz", baz()),
                partition(baz(), 0, &[1, 2, 3, 4], &[3, 4], &[2], &[1], 3, (2, 1)),
                topic("foo", foo2()),
                topic("bam", bam()),
                remove(bam()),
            ],
        );
        // IMAGE2.
        let t = image.topics();
        assert_eq!(t.len(), 3);
        assert!(t.topic(&foo()).is_none() && t.topic(&bam()).is_none());
        assert_eq!(t.topic_id("bam"), None);
        let foo_t = t.topic_by_name("foo").expect("foo");
        assert_eq!((foo_t.id(), foo_t.partition_count()), (foo2(), 0));
        let bar0 = t.partition(&bar(), 0).expect("bar-0");
        assert_eq!(bar0.replicas, [0, 1, 2, 3, 4]);
        assert_eq!(bar0.isr, [0, 1, 2, 3]);
        assert_eq!(bar0.removing_replicas, [1]);
        assert_eq!(bar0.adding_replicas, [3, 4]);
        assert_eq!(
            (bar0.leader, bar0.leader_epoch, bar0.partition_epoch),
            (1, 2, 346)
        );
        assert_eq!(bar0.directories, [MIGRATING_DIRECTORY; 5]);
        let baz0 = t
            .topic_by_name("baz")
            .and_then(|b| b.partition(0))
            .expect("baz-0");
        assert_eq!(baz0.replicas, [1, 2, 3, 4]);
        assert_eq!(baz0.isr, [3, 4]);
        assert_eq!(baz0.removing_replicas, [2]);
        assert_eq!(baz0.adding_replicas, [1]);
        assert_eq!(
            (baz0.leader, baz0.leader_epoch, baz0.partition_epoch),
            (3, 2, 1)
        );
        assert_eq!(baz0.leader_recovery_state, LeaderRecoveryState::Recovered);
        assert_eq!(baz0.directories, [MIGRATING_DIRECTORY; 4]);
        round_trip(&image);
    }

    #[test]
    fn topics_are_written_topic_record_first_partitions_by_id() {
        let mut image = image1(33);
        // Partitions replayed out of order are written by id.
        replay(
            &mut image,
            &[
                topic("late", baz()),
                partition(baz(), 2, &[1], &[1], &[], &[], 1, (0, 0)),
                partition(baz(), 0, &[1], &[1], &[], &[], 1, (0, 0)),
                partition(baz(), 1, &[1], &[1], &[], &[], 1, (0, 0)),
            ],
        );
        let records = round_trip(&image);
        let written: Vec<String> = records
            .iter()
            .filter_map(|r| match &r.body {
                MetadataRecordBody::Topic(t) => Some(format!("topic {}", t.name.as_str())),
                MetadataRecordBody::Partition(p) => Some(format!(
                    "{}-{}",
                    {
                        let t = image.topics().topic(&p.topic_id).expect("known");
                        t.name().to_string()
                    },
                    p.partition_id
                )),
                _ => None,
            })
            .collect();
        // By topic id: bar (f62p...), baz "late" (tgHB...), foo (ThIa...).
        let mut ids = [bar(), baz(), foo()];
        ids.sort();
        let order: Vec<&str> = ids
            .iter()
            .map(|id| image.topics().topic(id).expect("known").name())
            .collect();
        let mut want = Vec::new();
        for name in order {
            want.push(format!("topic {name}"));
            let n = image
                .topics()
                .topic_by_name(name)
                .expect("known")
                .partition_count();
            want.extend((0..n).map(|i| format!("{name}-{i}")));
        }
        assert_eq!(written, want);
        assert!(records
            .iter()
            .filter(|r| matches!(r.body, MetadataRecordBody::Partition(_)))
            .all(|r| r.version == 2));
    }

    #[test]
    fn partition_record_version_follows_the_metadata_version() {
        for (level, version) in [(7, 0), (16, 0), (17, 1), (22, 1), (23, 2), (33, 2)] {
            let image = image1(level);
            let records = round_trip(&image);
            let versions: Vec<i16> = records
                .iter()
                .filter(|r| matches!(r.body, MetadataRecordBody::Partition(_)))
                .map(|r| r.version)
                .collect();
            assert_eq!(versions, [version; 4], "level {level}");
            for r in &records {
                r.encode().expect("encodes");
            }
        }
    }

    #[test]
    fn assigned_directories_are_lost_below_directory_assignment() {
        let mut image = image1(16);
        let dir = uuid("FbRuu7CeQtq5YFreEzg16g");
        replay(
            &mut image,
            &[change(PartitionChangeRecord {
                topic_id: bar(),
                partition_id: 0,
                directories: Some(vec![dir; 5]),
                ..Default::default()
            })],
        );
        assert_eq!(
            image.to_records().expect_err("lossy").to_string(),
            "Metadata has been lost because the following could not be represented in metadata.version 3.7-IV1: the directory assignment state of one or more replicas"
        );
        image
            .replay(&MetadataRecord::feature_level("metadata.version", 17))
            .expect("replays");
        round_trip(&image);
        assert_eq!(
            image
                .topics()
                .partition(&bar(), 0)
                .map(|p| p.directories.clone()),
            Some(vec![dir; 5])
        );
    }

    #[test]
    fn clear_elr_of_one_topic_or_all() {
        // Kafka's TopicsImageTest.testClearElrRecords, with the epochs worked
        // out from PartitionRegistration.merge.
        let foo_id = uuid("0hHJ3X5ZQ-CFfQ5xgpj90w");
        let mut image = MetadataImage::new();
        replay(
            &mut image,
            &[
                MetadataRecord::feature_level("metadata.version", 33),
                MetadataRecord::feature_level("eligible.leader.replicas.version", 1),
                topic("foo", foo_id),
                partition(foo_id, 0, &[0, 1, 2, 3], &[0, 1, 2, 3], &[], &[], 0, (0, 0)),
                change(PartitionChangeRecord {
                    topic_id: foo_id,
                    partition_id: 0,
                    isr: Some(vec![0, 1]),
                    eligible_leader_replicas: Some(vec![2]),
                    last_known_elr: Some(vec![3]),
                    ..Default::default()
                }),
            ],
        );
        let p = image.topics().partition(&foo_id, 0).expect("foo-0");
        assert_eq!(
            (p.elr.as_slice(), p.last_known_elr.as_slice()),
            (&[2][..], &[3][..])
        );
        assert_eq!((p.leader_epoch, p.partition_epoch), (0, 1));
        // ELR survives a snapshot when enabled.
        round_trip(&image);
        replay(
            &mut image,
            &[
                topic("bar", bar()),
                MetadataRecord::new(
                    PartitionRecord {
                        topic_id: bar(),
                        partition_id: 0,
                        leader: 0,
                        isr: vec![1],
                        eligible_leader_replicas: Some(vec![2]),
                        last_known_elr: Some(vec![3]),
                        ..Default::default()
                    },
                    2,
                ),
                clear_elr("bar"),
            ],
        );
        let bar0 = image.topics().partition(&bar(), 0).expect("bar-0");
        assert!(bar0.elr.is_empty() && bar0.last_known_elr.is_empty());
        assert_eq!((bar0.leader_epoch, bar0.partition_epoch), (-1, 0));
        let foo0 = image.topics().partition(&foo_id, 0).expect("foo-0");
        assert_eq!(foo0.elr, [2], "only bar was cleared");
        image.replay(&clear_elr("")).expect("replays");
        let foo0 = image.topics().partition(&foo_id, 0).expect("foo-0");
        assert!(foo0.elr.is_empty() && foo0.last_known_elr.is_empty());
        assert_eq!(
            (foo0.leader, foo0.leader_epoch, foo0.partition_epoch),
            (0, 0, 2)
        );
        // A partition without ELR is left alone (no epoch bump).
        let bar0 = image.topics().partition(&bar(), 0).expect("bar-0");
        assert_eq!(bar0.partition_epoch, 0);
        assert_eq!(
            image
                .replay(&clear_elr("nope"))
                .expect_err("refused")
                .to_string(),
            "Unable to clear elr for topic with name nope: no such topic found."
        );
    }

    #[test]
    fn elr_is_dropped_from_snapshots_when_not_enabled() {
        let mut image = image1(33);
        replay(
            &mut image,
            &[change(PartitionChangeRecord {
                topic_id: bar(),
                partition_id: 0,
                eligible_leader_replicas: Some(vec![2]),
                ..Default::default()
            })],
        );
        let records = image.to_records().expect("writes");
        let loaded = MetadataImage::from_records(&records).expect("loads");
        let p = loaded.topics().partition(&bar(), 0).expect("bar-0");
        assert!(p.elr.is_empty());
        assert_eq!(p.partition_epoch, 346);
    }

    #[test]
    fn replay_errors_are_kafkas() {
        let mut image = image1(33);
        let before = image.clone();
        let err = |image: &mut MetadataImage, r: MetadataRecord| {
            image.replay(&r).expect_err("refused").to_string()
        };
        assert_eq!(
            err(&mut image, remove(baz())),
            "Unable to delete topic with id tgHBnRglT5W_RlENnuG5vg: no such topic found."
        );
        assert_eq!(
            err(
                &mut image,
                change(PartitionChangeRecord {
                    topic_id: bar(),
                    partition_id: 5,
                    leader: 1,
                    ..Default::default()
                })
            ),
            "Unable to find partition f62ptyETTjet8SL5ZeREiw:5"
        );
        assert!(err(
            &mut image,
            change(PartitionChangeRecord {
                topic_id: baz(),
                partition_id: 0,
                ..Default::default()
            })
        )
        .contains("no such topic"));
        assert!(err(
            &mut image,
            partition(baz(), 0, &[1], &[1], &[], &[], 1, (0, 0))
        )
        .contains("no such topic"));
        assert_eq!(
            err(
                &mut image,
                change(PartitionChangeRecord {
                    topic_id: bar(),
                    partition_id: 0,
                    leader_recovery_state: 3,
                    ..Default::default()
                })
            ),
            "Value 3 is not a valid leader recovery state"
        );
        assert_eq!(image, before, "nothing refused changed the image");
    }

    #[test]
    fn a_topic_record_restarts_its_topic() {
        // TopicsDelta.replay(TopicRecord) replaces the topic with an empty
        // one; a RemoveTopicRecord hands back the name.
        let mut image = image1(33);
        image.replay(&topic("foo", foo())).expect("replays");
        assert_eq!(
            image
                .topics()
                .topic(&foo())
                .map(TopicImage::partition_count),
            Some(0)
        );
        let name = image
            .topics
            .replay_remove_topic(&RemoveTopicRecord {
                topic_id: bar(),
                ..Default::default()
            })
            .expect("removes");
        assert_eq!(name, "bar");
        assert!(image.topics().topic_by_name("bar").is_none());
        // A topic re-created under a new id after its removal.
        replay(&mut image, &[remove(foo()), topic("foo", foo2())]);
        assert_eq!(image.topics().topic_id("foo"), Some(foo2()));
        round_trip(&image);
    }
}
