//! Topics and their partitions (Kafka's `TopicsImage` / `TopicsDelta`).
//!
//! Records are applied one at a time, each as a `TopicsDelta` of that one
//! record would apply it.
//!
//! A topic holds its partitions in a dense vector indexed by partition id
//! (ids are `0..n` in practice), grown exactly while small and by an eighth
//! when large; an id that is negative or far past the end goes to a sparse
//! map instead. Each partition is a 40-byte [`PackedPartition`] whose
//! directories index the image's one [`DirectoryTable`]; a topic's name is
//! one shared string for both the topic and the by-name index. Readers get
//! views ([`TopicImage`], [`PartitionRegistration`]) that pair the stored
//! data with that table.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

use kraft_protocol::messages::clear_elr_record::ClearElrRecord;
use kraft_protocol::messages::partition_change_record::PartitionChangeRecord;
use kraft_protocol::messages::partition_record::PartitionRecord;
use kraft_protocol::messages::remove_topic_record::RemoveTopicRecord;
use kraft_protocol::messages::topic_record::TopicRecord;
use kraft_protocol::Uuid;

use super::chunked::ChunkedMap;
use super::partition::{DirectoryTable, PackedPartition, PartitionRegistration};
use super::{MetadataRecord, RecordSink, ReplayError, WriteError, WriteOptions};
use crate::java::uuid_to_text;

/// How far past the end of a topic's dense partitions a new partition id
/// may be (at least; up to the dense length when that is larger) and still
/// extend them, with gaps, rather than go to the sparse map.
const MAX_GAP: usize = 16;

/// Whether dense partitions may grow to hold id `i` (not yet held): at
/// most [`MAX_GAP`], or as many as there are, past the end.
fn reaches(dense: &[Option<PackedPartition>], i: usize) -> bool {
    i >= dense.len() && i - dense.len() <= dense.len().max(MAX_GAP)
}

/// Grows dense partitions to hold id `i` (past the end): `partition`, and
/// gaps before it.
fn extend(dense: &mut Vec<Option<PackedPartition>>, i: usize, partition: PackedPartition) {
    if dense.capacity() <= i {
        // Exact while small, an eighth more when large: little slack, and
        // amortised copying.
        let len = dense.len();
        dense.reserve_exact((i + 1 - len).max(len / 8));
    }
    dense.resize_with(i, || None);
    dense.push(Some(partition));
}

/// A topic's partitions by id.
///
/// Invariant: no key of `sparse` is in `0..dense.len()`.
#[derive(Clone, Default)]
struct Partitions {
    /// Partitions `0..dense.len()`; `None` for an id not created.
    dense: Vec<Option<PackedPartition>>,
    /// Partitions with a negative id or one too far past `dense`: boxed,
    /// so that the (usual) topic without any costs 8 bytes, not 24.
    #[allow(clippy::box_collection)]
    sparse: Option<Box<BTreeMap<i32, PackedPartition>>>,
}

impl Partitions {
    fn get(&self, id: i32) -> Option<&PackedPartition> {
        match usize::try_from(id) {
            Ok(i) if i < self.dense.len() => self.dense[i].as_ref(),
            _ => self.sparse.as_ref()?.get(&id),
        }
    }

    fn get_mut(&mut self, id: i32) -> Option<&mut PackedPartition> {
        match usize::try_from(id) {
            Ok(i) if i < self.dense.len() => self.dense[i].as_mut(),
            _ => self.sparse.as_mut()?.get_mut(&id),
        }
    }

    /// Creates or replaces partition `id`.
    fn insert(&mut self, id: i32, partition: PackedPartition) {
        match usize::try_from(id) {
            Ok(i) if i < self.dense.len() => self.dense[i] = Some(partition),
            Ok(i) if reaches(&self.dense, i) => {
                extend(&mut self.dense, i, partition);
                self.absorb_sparse(id);
            }
            _ => {
                self.sparse
                    .get_or_insert_with(Default::default)
                    .insert(id, partition);
            }
        }
    }

    /// After `dense` grew to hold `new_id`: drops a sparse `new_id` (just
    /// replaced), and moves into `dense` the sparse partitions it now
    /// reaches — those within its new length, and then, one by one, each
    /// next one within the gap it may be extended by.
    fn absorb_sparse(&mut self, new_id: i32) {
        let Some(sparse) = self.sparse.as_mut() else {
            return;
        };
        sparse.remove(&new_id);
        while let Some(id) = sparse.range(0..).next().map(|(id, _)| *id) {
            // Not negative, so it fits a usize.
            let i = id as usize;
            if i >= self.dense.len() && !reaches(&self.dense, i) {
                break;
            }
            let Some(p) = sparse.remove(&id) else {
                break;
            };
            if i < self.dense.len() {
                self.dense[i] = Some(p);
            } else {
                extend(&mut self.dense, i, p);
            }
        }
        if sparse.is_empty() {
            self.sparse = None;
        }
    }

    /// The partitions by id.
    fn iter(&self) -> impl Iterator<Item = (i32, &PackedPartition)> {
        let sparse = self.sparse.as_deref();
        let below = sparse.into_iter().flat_map(|s| s.range(..0));
        let above = sparse.into_iter().flat_map(|s| s.range(0..));
        let dense = self
            .dense
            .iter()
            .enumerate()
            .filter_map(|(i, p)| Some((i as i32, p.as_ref()?)));
        below
            .map(|(id, p)| (*id, p))
            .chain(dense)
            .chain(above.map(|(id, p)| (*id, p)))
    }

    /// Every partition, mutably, by id.
    fn iter_mut(&mut self) -> impl Iterator<Item = (i32, &mut PackedPartition)> {
        let (below, above): (Vec<_>, Vec<_>) = self
            .sparse
            .as_deref_mut()
            .into_iter()
            .flat_map(|s| s.iter_mut())
            .map(|(id, p)| (*id, p))
            .partition(|(id, _)| *id < 0);
        let dense = self
            .dense
            .iter_mut()
            .enumerate()
            .filter_map(|(i, p)| Some((i as i32, p.as_mut()?)));
        below.into_iter().chain(dense).chain(above)
    }

    fn len(&self) -> usize {
        self.dense.iter().filter(|p| p.is_some()).count()
            + self.sparse.as_ref().map_or(0, |s| s.len())
    }
}

/// A topic as [`TopicsImage`] stores it (its id is the key).
#[derive(Clone)]
struct StoredTopic {
    /// Shared with the by-name index.
    name: Arc<str>,
    partitions: Partitions,
}

/// One topic: its name, id and partitions (Kafka's `TopicImage`), as a
/// view of the image.
#[derive(Clone, Copy)]
pub struct TopicImage<'a> {
    id: Uuid,
    topic: &'a StoredTopic,
    directories: &'a DirectoryTable,
}

impl<'a> TopicImage<'a> {
    /// The topic name.
    pub fn name(self) -> &'a str {
        &self.topic.name
    }

    /// The topic id.
    pub fn id(self) -> Uuid {
        self.id
    }

    /// Partition `id`.
    pub fn partition(self, id: i32) -> Option<PartitionRegistration<'a>> {
        let p = self.topic.partitions.get(id)?;
        Some(PartitionRegistration::new(p, self.directories))
    }

    /// The partitions with their ids, by id.
    pub fn partitions(self) -> impl Iterator<Item = (i32, PartitionRegistration<'a>)> + 'a {
        let directories = self.directories;
        self.topic
            .partitions
            .iter()
            .map(move |(id, p)| (id, PartitionRegistration::new(p, directories)))
    }

    /// How many partitions the topic has.
    pub fn partition_count(self) -> usize {
        self.topic.partitions.len()
    }

    /// Kafka's `TopicImage.write`: the TopicRecord, then each partition by id.
    fn write(self, options: &WriteOptions, out: &mut impl RecordSink) -> Result<(), WriteError> {
        out.push(MetadataRecord::new(
            TopicRecord {
                name: self.name().into(),
                topic_id: self.id,
                ..Default::default()
            },
            0,
        ));
        for (id, p) in self.partitions() {
            out.push(p.to_record(self.id, id, options)?);
        }
        Ok(())
    }
}

impl PartialEq for TopicImage<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.id == other.id
            && self.topic.name == other.topic.name
            && self.partition_count() == other.partition_count()
            && self.partitions().eq(other.partitions())
    }
}

impl Eq for TopicImage<'_> {}

impl fmt::Debug for TopicImage<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        struct Partitions<'p>(TopicImage<'p>);
        impl fmt::Debug for Partitions<'_> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.debug_map().entries(self.0.partitions()).finish()
            }
        }
        f.debug_struct("TopicImage")
            .field("name", &self.name())
            .field("id", &uuid_to_text(&self.id))
            .field("partitions", &Partitions(*self))
            .finish()
    }
}

/// Kafka's `TopicDelta.replay()` for a ClearElrRecord: every partition
/// with eligible or last known eligible leader replicas is merged with a
/// change that empties both (which bumps its partition epoch).
fn clear_elr(
    id: Uuid,
    topic: &mut StoredTopic,
    directories: &mut DirectoryTable,
) -> Result<(), ReplayError> {
    let clear = PartitionChangeRecord {
        topic_id: id,
        eligible_leader_replicas: Some(Vec::new()),
        last_known_elr: Some(Vec::new()),
        ..Default::default()
    };
    for (partition_id, p) in topic.partitions.iter_mut() {
        if p.has_elr() {
            let change = PartitionChangeRecord {
                partition_id,
                ..clear.clone()
            };
            *p = p.merge(&change, directories)?;
        }
    }
    Ok(())
}

/// Topics and their partitions (Kafka's `TopicsImage`): by id, and by name.
///
/// Two images are equal when they hold the same topics, names and
/// partitions (however their directory tables number the directories).
#[derive(Clone, Default)]
pub struct TopicsImage {
    /// Shared with the images this one was cloned from or into until one
    /// of them changes the topic (copy on write): the active controller's
    /// write state and the committed image hold one copy of every topic
    /// neither has changed since the write state was last taken from the
    /// committed image. Sharing is sound because the directory table is
    /// append-only: a shared topic names only indices both tables had when
    /// they were cloned. The maps themselves clone in constant time
    /// ([`ChunkedMap`]).
    by_id: ChunkedMap<Uuid, Arc<StoredTopic>>,
    by_name: ChunkedMap<Arc<str>, Uuid>,
    directories: DirectoryTable,
}

/// The topic a partition record names. Kafka's delta fails with a
/// `NullPointerException` (no message) for a topic it does not have; this
/// message is ours.
fn topic_mut<'t>(
    by_id: &'t mut ChunkedMap<Uuid, Arc<StoredTopic>>,
    id: &Uuid,
    record: &str,
) -> Result<&'t mut StoredTopic, ReplayError> {
    by_id.get_mut(id).map(Arc::make_mut).ok_or_else(|| {
        ReplayError::Invalid(format!(
            "Unable to replay {record} for topic id {}: no such topic found.",
            uuid_to_text(id)
        ))
    })
}

impl TopicsImage {
    fn view<'a>(&'a self, id: &Uuid, topic: &'a StoredTopic) -> TopicImage<'a> {
        TopicImage {
            id: *id,
            topic,
            directories: &self.directories,
        }
    }

    /// The topic with id `id`.
    pub fn topic(&self, id: &Uuid) -> Option<TopicImage<'_>> {
        Some(self.view(id, self.by_id.get(id)?))
    }

    /// The topic named `name`.
    pub fn topic_by_name(&self, name: &str) -> Option<TopicImage<'_>> {
        self.topic(self.by_name.get(name)?)
    }

    /// The id of the topic named `name`.
    pub fn topic_id(&self, name: &str) -> Option<Uuid> {
        self.by_name.get(name).copied()
    }

    /// All topics, by id.
    pub fn topics(&self) -> impl Iterator<Item = TopicImage<'_>> {
        self.by_id.iter().map(|(id, t)| self.view(id, t))
    }

    /// Partition `partition` of topic `topic_id`.
    pub fn partition(&self, topic_id: &Uuid, partition: i32) -> Option<PartitionRegistration<'_>> {
        self.topic(topic_id)?.partition(partition)
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
        let name: Arc<str> = match self.by_name.get_key_value(r.name.as_str()) {
            Some((name, _)) => Arc::clone(name),
            None => Arc::from(r.name.as_str()),
        };
        let topic = StoredTopic {
            name: Arc::clone(&name),
            partitions: Partitions::default(),
        };
        if let Some(prev) = self.by_id.insert(r.topic_id, Arc::new(topic)) {
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

    /// Kafka's `TopicDelta.replay(PartitionRecord)`: the partition is
    /// created or replaced.
    pub(super) fn replay_partition(&mut self, r: &PartitionRecord) -> Result<(), ReplayError> {
        let topic = topic_mut(&mut self.by_id, &r.topic_id, "PartitionRecord")?;
        let partition = PackedPartition::from_record(r, &mut self.directories)?;
        topic.partitions.insert(r.partition_id, partition);
        Ok(())
    }

    /// Kafka's `TopicDelta.replay(PartitionChangeRecord)`: the partition
    /// merged with the change ([`PackedPartition::merge`]).
    pub(super) fn replay_partition_change(
        &mut self,
        r: &PartitionChangeRecord,
    ) -> Result<(), ReplayError> {
        let topic = topic_mut(&mut self.by_id, &r.topic_id, "PartitionChangeRecord")?;
        let Some(prev) = topic.partitions.get_mut(r.partition_id) else {
            return Err(ReplayError::Invalid(format!(
                "Unable to find partition {}:{}",
                uuid_to_text(&r.topic_id),
                r.partition_id
            )));
        };
        *prev = prev.merge(r, &mut self.directories)?;
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
        Ok(topic.name.to_string())
    }

    /// Kafka's `TopicsDelta.replay(ClearElrRecord)`: clears the ELR of the
    /// named topic, or of every topic when the name is empty.
    ///
    /// Applied on its own, a record naming a topic removed earlier fails
    /// here; inside one Kafka delta that also removed it, Kafka skips it.
    pub(super) fn replay_clear_elr(&mut self, r: &ClearElrRecord) -> Result<(), ReplayError> {
        if r.topic_name.is_empty() {
            // A topic without ELR stays shared.
            let directories = &mut self.directories;
            return self.by_id.update_where(
                |_, topic| topic.partitions.iter().any(|(_, p)| p.has_elr()),
                |id, topic| clear_elr(*id, Arc::make_mut(topic), directories),
            );
        }
        let Some((id, topic)) = self
            .by_name
            .get(r.topic_name.as_str())
            .copied()
            .and_then(|id| Some((id, Arc::make_mut(self.by_id.get_mut(&id)?))))
        else {
            return Err(ReplayError::Invalid(format!(
                "Unable to clear elr for topic with name {}: no such topic found.",
                r.topic_name.as_str()
            )));
        };
        clear_elr(id, topic, &mut self.directories)
    }

    /// How many topics this image shares with `other` (the same stored
    /// copy, not merely equal).
    #[cfg(test)]
    pub(crate) fn shared_with(&self, other: &TopicsImage) -> usize {
        self.by_id
            .iter()
            .filter(|(id, t)| other.by_id.get(*id).is_some_and(|o| Arc::ptr_eq(t, o)))
            .count()
    }

    /// Kafka's `TopicsImage.write`: each topic's records. Kafka iterates a
    /// hash map of topics; here they go by id.
    pub(super) fn write(
        &self,
        options: &WriteOptions,
        out: &mut impl RecordSink,
    ) -> Result<(), WriteError> {
        for topic in self.topics() {
            topic.write(options, out)?;
        }
        Ok(())
    }
}

impl PartialEq for TopicsImage {
    fn eq(&self, other: &Self) -> bool {
        self.by_name == other.by_name
            && self.by_id.len() == other.by_id.len()
            && self.topics().eq(other.topics())
    }
}

impl Eq for TopicsImage {}

impl fmt::Debug for TopicsImage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.topics()).finish()
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

    fn ints(v: impl Iterator<Item = i32>) -> Vec<i32> {
        v.collect()
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
        assert_eq!(
            foo_p1.directories().collect::<Vec<_>>(),
            [MIGRATING_DIRECTORY; 3]
        );
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
        assert_eq!(ints(bar0.replicas()), [0, 1, 2, 3, 4]);
        assert_eq!(ints(bar0.isr()), [0, 1, 2, 3]);
        assert_eq!(ints(bar0.removing_replicas()), [1]);
        assert_eq!(ints(bar0.adding_replicas()), [3, 4]);
        assert_eq!(
            (bar0.leader(), bar0.leader_epoch(), bar0.partition_epoch()),
            (1, 2, 346)
        );
        assert_eq!(
            bar0.directories().collect::<Vec<_>>(),
            [MIGRATING_DIRECTORY; 5]
        );
        let baz0 = t
            .topic_by_name("baz")
            .and_then(|b| b.partition(0))
            .expect("baz-0");
        assert_eq!(ints(baz0.replicas()), [1, 2, 3, 4]);
        assert_eq!(ints(baz0.isr()), [3, 4]);
        assert_eq!(ints(baz0.removing_replicas()), [2]);
        assert_eq!(ints(baz0.adding_replicas()), [1]);
        assert_eq!(
            (baz0.leader(), baz0.leader_epoch(), baz0.partition_epoch()),
            (3, 2, 1)
        );
        assert_eq!(baz0.leader_recovery_state(), LeaderRecoveryState::Recovered);
        assert_eq!(
            baz0.directories().collect::<Vec<_>>(),
            [MIGRATING_DIRECTORY; 4]
        );
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
                .map(|p| p.directories().collect::<Vec<_>>()),
            Some(vec![dir; 5])
        );
    }

    #[test]
    fn a_cloned_image_shares_topics_until_either_changes_one() {
        let mut original = image1(17);
        let mut copy = original.clone();
        assert_eq!(copy.topics().shared_with(original.topics()), 2);
        let before = original.clone();
        let (dir_a, dir_b) = (
            uuid("FbRuu7CeQtq5YFreEzg16g"),
            uuid("tgHBnRglT5W_RlENnuG5vg"),
        );
        // Each side assigns a directory the other never saw, so their
        // directory tables number different ids alike from here on.
        replay(
            &mut copy,
            &[change(PartitionChangeRecord {
                topic_id: foo(),
                partition_id: 1,
                leader: 4,
                directories: Some(vec![dir_a; 3]),
                ..Default::default()
            })],
        );
        replay(
            &mut original,
            &[change(PartitionChangeRecord {
                topic_id: bar(),
                partition_id: 0,
                directories: Some(vec![dir_b; 5]),
                ..Default::default()
            })],
        );
        assert_eq!(copy.topics().shared_with(original.topics()), 0);
        let leader = |i: &MetadataImage, t, p| i.topics().partition(&t, p).map(|p| p.leader());
        let dirs = |i: &MetadataImage, t, p| {
            i.topics()
                .partition(&t, p)
                .map(|p| p.directories().collect::<Vec<_>>())
        };
        assert_eq!(leader(&copy, foo(), 1), Some(4));
        assert_eq!(
            leader(&original, foo(), 1),
            Some(3),
            "the change stays in the copy"
        );
        assert_eq!(dirs(&copy, foo(), 1), Some(vec![dir_a; 3]));
        assert_eq!(dirs(&original, bar(), 0), Some(vec![dir_b; 5]));
        assert_eq!(dirs(&copy, bar(), 0), dirs(&before, bar(), 0));
        assert_eq!(copy.topics().topic(&bar()), before.topics().topic(&bar()));
        assert_eq!(
            original.topics().topic(&foo()),
            before.topics().topic(&foo())
        );
        // A ClearElrRecord for every topic copies only those with ELR.
        let shared = original.clone();
        replay(&mut original, &[clear_elr("")]);
        assert_eq!(original.topics().shared_with(shared.topics()), 2);
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
            (ints(p.elr()), ints(p.last_known_elr())),
            (vec![2], vec![3])
        );
        assert_eq!((p.leader_epoch(), p.partition_epoch()), (0, 1));
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
        assert!(bar0.elr().len() == 0 && bar0.last_known_elr().len() == 0);
        assert_eq!((bar0.leader_epoch(), bar0.partition_epoch()), (-1, 0));
        let foo0 = image.topics().partition(&foo_id, 0).expect("foo-0");
        assert_eq!(ints(foo0.elr()), [2], "only bar was cleared");
        image.replay(&clear_elr("")).expect("replays");
        let foo0 = image.topics().partition(&foo_id, 0).expect("foo-0");
        assert!(foo0.elr().len() == 0 && foo0.last_known_elr().len() == 0);
        assert_eq!(
            (foo0.leader(), foo0.leader_epoch(), foo0.partition_epoch()),
            (0, 0, 2)
        );
        // A partition without ELR is left alone (no epoch bump).
        let bar0 = image.topics().partition(&bar(), 0).expect("bar-0");
        assert_eq!(bar0.partition_epoch(), 0);
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
        assert_eq!(p.elr().len(), 0);
        assert_eq!(p.partition_epoch(), 346);
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

    #[test]
    fn partition_ids_with_gaps_negative_and_far_ones() {
        // Dense ids, gaps, a negative id, ids far past the end (sparse)
        // that later become dense, and replacements of each kind.
        let mut image = image1(33);
        let ids = [
            0,
            3,
            1,
            -5,
            i32::MIN,
            1000,
            40,
            i32::MAX,
            2,
            20,
            17,
            18,
            19,
            36,
            1000,
            -5,
            21,
        ];
        let mut records = vec![topic("gappy", baz())];
        for (epoch, id) in ids.iter().enumerate() {
            records.push(partition(
                baz(),
                *id,
                &[1, 2],
                &[1],
                &[],
                &[],
                1,
                (0, epoch as i32),
            ));
        }
        replay(&mut image, &records);
        let mut want: Vec<i32> = ids.to_vec();
        want.sort();
        want.dedup();
        let t = image.topics().topic(&baz()).expect("gappy");
        assert_eq!(t.partition_count(), want.len());
        let got: Vec<i32> = t.partitions().map(|(id, _)| id).collect();
        assert_eq!(got, want, "by id");
        // The last record of each id is the one kept.
        for id in &want {
            let last = ids.iter().rposition(|i| i == id).expect("replayed") as i32;
            let p = t.partition(*id).expect("present");
            assert_eq!(p.partition_epoch(), last, "partition {id}");
        }
        for missing in [4, 16, 22, 35, 999, 1001, -1, -6] {
            assert!(t.partition(missing).is_none(), "partition {missing}");
        }
        // Changes reach sparse and dense partitions alike.
        for id in [i32::MIN, 1000, 36, 0] {
            image
                .replay(&change(PartitionChangeRecord {
                    topic_id: baz(),
                    partition_id: id,
                    leader: 2,
                    ..Default::default()
                }))
                .expect("replays");
        }
        let t = image.topics().topic(&baz()).expect("gappy");
        for id in [i32::MIN, 1000, 36, 0] {
            assert_eq!(t.partition(id).map(|p| p.leader()), Some(2));
        }
        let records = round_trip(&image);
        let written: Vec<i32> = records
            .iter()
            .filter_map(|r| match &r.body {
                MetadataRecordBody::Partition(p) if p.topic_id == baz() => Some(p.partition_id),
                _ => None,
            })
            .collect();
        assert_eq!(written, want);
        // Partitions created in reverse still come out by id.
        let mut reverse = MetadataImage::new();
        let mut records = vec![
            MetadataRecord::feature_level("metadata.version", 33),
            topic("rev", foo()),
        ];
        records.extend(
            (0..50)
                .rev()
                .map(|id| partition(foo(), id, &[1], &[1], &[], &[], 1, (0, 0))),
        );
        replay(&mut reverse, &records);
        let t = reverse.topics().topic(&foo()).expect("rev");
        assert_eq!(
            t.partitions().map(|(id, _)| id).collect::<Vec<_>>(),
            (0..50).collect::<Vec<_>>()
        );
        // Once the low ids arrived, the far ones moved into the dense part.
        let stored = reverse.topics.by_id.get(&foo()).expect("rev");
        assert_eq!(stored.partitions.dense.len(), 50);
        assert!(stored.partitions.sparse.is_none());
        round_trip(&reverse);
    }

    #[test]
    fn clear_elr_reaches_sparse_partitions() {
        let mut image = MetadataImage::new();
        let mut records = vec![
            MetadataRecord::feature_level("metadata.version", 33),
            MetadataRecord::feature_level("eligible.leader.replicas.version", 1),
            topic("foo", foo()),
        ];
        for id in [-1, 0, 5000] {
            records.push(MetadataRecord::new(
                PartitionRecord {
                    topic_id: foo(),
                    partition_id: id,
                    leader: 0,
                    replicas: vec![0, 1],
                    isr: vec![0],
                    eligible_leader_replicas: Some(vec![1]),
                    ..Default::default()
                },
                2,
            ));
        }
        records.push(clear_elr("foo"));
        replay(&mut image, &records);
        let t = image.topics().topic(&foo()).expect("foo");
        for (id, p) in t.partitions() {
            assert_eq!(p.elr().len(), 0, "partition {id}");
            assert_eq!(p.partition_epoch(), 0, "partition {id}");
        }
        assert_eq!(t.partition_count(), 3);
    }

    #[test]
    fn images_compare_equal_whatever_their_directory_numbering() {
        let dir = |n| Uuid::from_u64_pair(9, n);
        let records = |order: [u64; 2]| {
            vec![
                MetadataRecord::feature_level("metadata.version", 33),
                topic("foo", foo()),
                MetadataRecord::new(
                    PartitionRecord {
                        topic_id: foo(),
                        partition_id: 0,
                        replicas: vec![0, 1],
                        directories: vec![dir(order[0]), dir(order[1])],
                        ..Default::default()
                    },
                    2,
                ),
                MetadataRecord::new(
                    PartitionRecord {
                        topic_id: foo(),
                        partition_id: 0,
                        replicas: vec![0, 1],
                        directories: vec![dir(1), dir(2)],
                        ..Default::default()
                    },
                    2,
                ),
            ]
        };
        let a = MetadataImage::from_records(&records([1, 2])).expect("replays");
        let b = MetadataImage::from_records(&records([2, 1])).expect("replays");
        assert_eq!(a.topics(), b.topics());
        assert_eq!(a, b);
        let p = a.topics().partition(&foo(), 0).expect("foo-0");
        assert_eq!(p.directory(1), Some(dir(2)));
        assert!(format!("{:?}", a.topics()).contains("TopicImage { name: \"foo\""));
    }
}
