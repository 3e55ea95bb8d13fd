//! One partition's state (Kafka's `PartitionRegistration`) and how
//! PartitionRecord and PartitionChangeRecord build and change it.
//!
//! # Layout
//!
//! The image holds a partition as a [`PackedPartition`] of 40 bytes (on
//! 64-bit targets, checked by a test): the leader, the two epochs, the
//! leader recovery state and the seven lists — replicas, their directories,
//! ISR, removing, adding, ELR, last known ELR — packed into one byte string.
//! Each list is a LEB128 count followed by its items as LEB128 `u32`s: a
//! broker id `b` as `b as u32` (one byte below 128, two below 16,384), a
//! directory as its index in the image's [`DirectoryTable`] of distinct
//! directory ids (one byte for the first 127 of them, instead of 16).
//! Strings of up to 22 bytes live inside the partition — three replicas on
//! brokers below 128 with their ISR and directories take 16 (seven counts,
//! nine items) — and longer ones go to one boxed slice of exactly their
//! length. The encoding is canonical, so two lists of broker ids are equal
//! exactly when their bytes are.
//!
//! [`PartitionRegistration`] is a view of one packed partition together
//! with its image's directory table; it reads the lists as iterators.

use std::collections::HashMap;
use std::fmt;

use kraft_protocol::messages::partition_change_record::PartitionChangeRecord;
use kraft_protocol::messages::partition_record::PartitionRecord;
use kraft_protocol::Uuid;

use super::{MetadataRecord, ReplayError, WriteError, WriteOptions};
use crate::java::uuid_to_text;

/// The leader value meaning "no leader" (Kafka's `LeaderConstants.NO_LEADER`).
pub const NO_LEADER: i32 = -1;
/// The PartitionChangeRecord leader value meaning "unchanged"
/// (`LeaderConstants.NO_LEADER_CHANGE`).
pub const NO_LEADER_CHANGE: i32 = -2;
/// The PartitionChangeRecord leader recovery state meaning "unchanged".
pub const NO_LEADER_RECOVERY_STATE_CHANGE: i8 = -1;
/// The directory of a replica not yet assigned to one because its broker
/// predates directory assignment (Kafka's `DirectoryId.MIGRATING`).
pub const MIGRATING_DIRECTORY: Uuid = Uuid::nil();

/// Kafka's `LeaderRecoveryState`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LeaderRecoveryState {
    /// 0: elected from the ISR, or recovered from an unclean election.
    Recovered,
    /// 1: elected uncleanly and still recovering.
    Recovering,
}

impl LeaderRecoveryState {
    /// The wire value.
    pub fn value(self) -> i8 {
        match self {
            LeaderRecoveryState::Recovered => 0,
            LeaderRecoveryState::Recovering => 1,
        }
    }

    /// Kafka's `LeaderRecoveryState.of`, with its message for other values.
    pub fn of(value: i8) -> Result<Self, ReplayError> {
        match value {
            0 => Ok(LeaderRecoveryState::Recovered),
            1 => Ok(LeaderRecoveryState::Recovering),
            _ => Err(ReplayError::Invalid(format!(
                "Value {value} is not a valid leader recovery state"
            ))),
        }
    }

    /// Kafka's `changeTo`: -1 keeps this state, other values are parsed.
    fn change_to(self, value: i8) -> Result<Self, ReplayError> {
        if value == NO_LEADER_RECOVERY_STATE_CHANGE {
            Ok(self)
        } else {
            LeaderRecoveryState::of(value)
        }
    }
}

/// The distinct directory ids an image's partitions name: a packed
/// partition holds each replica's directory as its index here.
///
/// [`MIGRATING_DIRECTORY`] is always index 0 (and only it is), so "all
/// directories migrating" is a list of zeros. Entries are never removed:
/// there is one per distinct directory id named since the image was built
/// (a few per broker; an image loaded from a snapshot holds only those in
/// use).
#[derive(Debug, Clone, Default)]
pub(super) struct DirectoryTable {
    /// The ids of indices 1, 2, ...
    ids: Vec<Uuid>,
    /// Each id of `ids` to its index.
    index: HashMap<Uuid, u32>,
}

impl DirectoryTable {
    /// The index of `id`, added if new.
    fn intern(&mut self, id: Uuid) -> Result<u32, ReplayError> {
        if id == MIGRATING_DIRECTORY {
            return Ok(0);
        }
        if let Some(index) = self.index.get(&id) {
            return Ok(*index);
        }
        let index = u32::try_from(self.ids.len() + 1)
            .map_err(|_| ReplayError::Invalid("too many distinct log directories".into()))?;
        self.ids.push(id);
        self.index.insert(id, index);
        Ok(index)
    }

    /// The id at `index` (one [`DirectoryTable::intern`] returned).
    fn id(&self, index: u32) -> Uuid {
        match index {
            0 => MIGRATING_DIRECTORY,
            // An index in a packed partition comes from `intern` on this
            // table (or the one it was cloned with).
            i => self.ids[i as usize - 1],
        }
    }

    /// How many distinct directories other than MIGRATING it holds.
    #[cfg(test)]
    pub(super) fn len(&self) -> usize {
        self.ids.len()
    }
}

/// How many bytes of packed lists a partition holds inline.
const INLINE: usize = 22;

/// A partition's packed lists (see the module docs): inline when short,
/// else one boxed slice. Bytes of `Inline` past `len` are zero.
#[derive(Debug, Clone)]
enum Lists {
    Inline { len: u8, bytes: [u8; INLINE] },
    Heap(Box<[u8]>),
}

impl Lists {
    fn new(packed: &[u8]) -> Lists {
        if packed.len() <= INLINE {
            let mut bytes = [0; INLINE];
            bytes[..packed.len()].copy_from_slice(packed);
            Lists::Inline {
                len: packed.len() as u8,
                bytes,
            }
        } else {
            Lists::Heap(packed.into())
        }
    }

    fn bytes(&self) -> &[u8] {
        match self {
            Lists::Inline { len, bytes } => &bytes[..usize::from(*len)],
            Lists::Heap(bytes) => bytes,
        }
    }
}

// The lists, in packing order.
const REPLICAS: usize = 0;
const DIRECTORIES: usize = 1;
const ISR: usize = 2;
const REMOVING: usize = 3;
const ADDING: usize = 4;
const ELR: usize = 5;
const LAST_KNOWN_ELR: usize = 6;
const LISTS: usize = 7;

/// The most bytes a LEB128 `u32` takes.
const MAX_VARINT: usize = 5;

fn put_varint(buf: &mut [u8], at: &mut usize, mut value: u32) {
    while value >= 0x80 {
        buf[*at] = (value as u8) | 0x80;
        *at += 1;
        value >>= 7;
    }
    buf[*at] = value as u8;
    *at += 1;
}

/// Reads a LEB128 `u32` that [`put_varint`] wrote.
fn get_varint(bytes: &[u8], at: &mut usize) -> u32 {
    let mut value = 0u32;
    let mut shift = 0;
    loop {
        let b = bytes[*at];
        *at += 1;
        value |= u32::from(b & 0x7f) << shift;
        if b & 0x80 == 0 {
            return value;
        }
        shift += 7;
    }
}

/// The end of the `n` varints starting at `at`.
fn skip_varints(bytes: &[u8], mut at: usize, n: usize) -> usize {
    for _ in 0..n {
        while bytes[at] & 0x80 != 0 {
            at += 1;
        }
        at += 1;
    }
    at
}

/// The end of the list (count and items) starting at `at`.
fn skip_list(bytes: &[u8], at: usize) -> usize {
    let mut items = at;
    let n = get_varint(bytes, &mut items) as usize;
    skip_varints(bytes, items, n)
}

/// Each list of `packed`, with its count.
fn split(packed: &[u8]) -> [&[u8]; LISTS] {
    let mut out = [&packed[..0]; LISTS];
    let mut at = 0;
    for list in &mut out {
        let end = skip_list(packed, at);
        *list = &packed[at..end];
        at = end;
    }
    out
}

/// List `which` of `packed`, with its count.
fn list(packed: &[u8], which: usize) -> &[u8] {
    let mut at = 0;
    for _ in 0..which {
        at = skip_list(packed, at);
    }
    &packed[at..skip_list(packed, at)]
}

/// The number of items of a list.
fn count(list: &[u8]) -> usize {
    get_varint(list, &mut 0) as usize
}

/// Whether a directory list holds only MIGRATING (index 0, byte 0): no
/// other index has a zero byte in its LEB128 form. True when empty.
fn all_migrating_indices(list: &[u8]) -> bool {
    let mut at = 0;
    get_varint(list, &mut at);
    list[at..].iter().all(|b| *b == 0)
}

/// The items of one packed list.
#[derive(Clone)]
struct Items<'a> {
    list: &'a [u8],
    at: usize,
    left: usize,
}

impl<'a> Items<'a> {
    fn of(list: &'a [u8]) -> Self {
        let mut at = 0;
        let left = get_varint(list, &mut at) as usize;
        Items { list, at, left }
    }
}

impl Iterator for Items<'_> {
    type Item = u32;

    fn next(&mut self) -> Option<u32> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        Some(get_varint(self.list, &mut self.at))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left, Some(self.left))
    }
}

impl ExactSizeIterator for Items<'_> {}

/// What one list of a partition being packed is made of.
#[derive(Clone, Copy)]
enum Source<'s> {
    /// Broker ids.
    Ints(&'s [i32]),
    /// Directory ids, to be interned.
    Directories(&'s [Uuid]),
    /// This many MIGRATING directories.
    Migrating(usize),
    /// A list already packed (count and items), kept as is.
    Packed(&'s [u8]),
}

impl Source<'_> {
    /// The most bytes it packs into.
    fn max_len(&self) -> usize {
        match self {
            Source::Ints(v) => MAX_VARINT * (1 + v.len()),
            Source::Directories(v) => MAX_VARINT * (1 + v.len()),
            Source::Migrating(n) => MAX_VARINT + n,
            Source::Packed(list) => list.len(),
        }
    }
}

/// Packs the seven lists, interning new directories into `directories`.
/// Lists are Kafka arrays (at most `i32::MAX` items), so counts fit a `u32`.
fn pack(
    sources: [Source<'_>; LISTS],
    directories: &mut DirectoryTable,
) -> Result<Lists, ReplayError> {
    let bound: usize = sources.iter().map(Source::max_len).sum();
    let mut stack = [0u8; 128];
    let mut heap = Vec::new();
    let buf: &mut [u8] = if bound <= stack.len() {
        &mut stack
    } else {
        heap.resize(bound, 0);
        &mut heap
    };
    let mut at = 0;
    for source in sources {
        match source {
            Source::Ints(v) => {
                put_varint(buf, &mut at, v.len() as u32);
                for b in v {
                    put_varint(buf, &mut at, *b as u32);
                }
            }
            Source::Directories(v) => {
                put_varint(buf, &mut at, v.len() as u32);
                for d in v {
                    let index = directories.intern(*d)?;
                    put_varint(buf, &mut at, index);
                }
            }
            Source::Migrating(n) => {
                put_varint(buf, &mut at, n as u32);
                buf[at..at + n].fill(0);
                at += n;
            }
            Source::Packed(list) => {
                buf[at..at + list.len()].copy_from_slice(list);
                at += list.len();
            }
        }
    }
    Ok(Lists::new(&buf[..at]))
}

/// A partition as the image stores it (see the module docs); read it
/// through a [`PartitionRegistration`].
#[derive(Debug, Clone)]
pub(super) struct PackedPartition {
    lists: Lists,
    leader: i32,
    leader_epoch: i32,
    partition_epoch: i32,
    leader_recovery_state: LeaderRecoveryState,
}

/// Kafka's `migratingDirectories`: no directories, or all of them MIGRATING.
fn all_migrating(directories: &[Uuid]) -> bool {
    directories.iter().all(|d| *d == MIGRATING_DIRECTORY)
}

/// The message of Kafka's `InvalidReplicaDirectoriesException`.
const DIRECTORIES_MISMATCH: &str = "The lengths for replicas and directories do not match: ";

/// An optional list from a change record, or the partition's own.
fn changed<'s>(new: &'s Option<Vec<i32>>, old: &'s [u8]) -> Source<'s> {
    new.as_deref().map_or(Source::Packed(old), Source::Ints)
}

impl PackedPartition {
    /// Kafka's `new PartitionRegistration(PartitionRecord)`; directories
    /// (MIGRATING for every replica when the record has none, Kafka's
    /// `defaultToMigrating`) are interned into `directories`.
    pub(super) fn from_record(
        r: &PartitionRecord,
        directories: &mut DirectoryTable,
    ) -> Result<Self, ReplayError> {
        if !r.directories.is_empty() && r.replicas.len() != r.directories.len() {
            return Err(ReplayError::Invalid(format!(
                "{DIRECTORIES_MISMATCH}{}",
                partition_record_text(r)
            )));
        }
        let leader_recovery_state = LeaderRecoveryState::of(r.leader_recovery_state)?;
        let dirs = if all_migrating(&r.directories) {
            Source::Migrating(r.replicas.len())
        } else {
            Source::Directories(&r.directories)
        };
        let lists = pack(
            [
                Source::Ints(&r.replicas),
                dirs,
                Source::Ints(&r.isr),
                Source::Ints(&r.removing_replicas),
                Source::Ints(&r.adding_replicas),
                Source::Ints(r.eligible_leader_replicas.as_deref().unwrap_or(&[])),
                Source::Ints(r.last_known_elr.as_deref().unwrap_or(&[])),
            ],
            directories,
        )?;
        Ok(PackedPartition {
            lists,
            leader: r.leader,
            leader_epoch: r.leader_epoch,
            partition_epoch: r.partition_epoch,
            leader_recovery_state,
        })
    }

    /// Kafka's `PartitionRegistration.merge`: each field the record carries
    /// (not null, leader not -2, leader recovery state not -1) replaces its
    /// part; the leader epoch grows by one when the record sets a leader
    /// (even the same one), and the partition epoch grows by one always.
    /// New directories are interned into `directories`; a refused record
    /// interns none.
    pub(super) fn merge(
        &self,
        r: &PartitionChangeRecord,
        directories: &mut DirectoryTable,
    ) -> Result<Self, ReplayError> {
        let old = split(self.lists.bytes());
        let replicas = match &r.replicas {
            Some(v) => v.len(),
            None => count(old[REPLICAS]),
        };
        let (dirs, dir_count, migrating) = match &r.directories {
            None => (
                Source::Packed(old[DIRECTORIES]),
                count(old[DIRECTORIES]),
                all_migrating_indices(old[DIRECTORIES]),
            ),
            Some(d) => {
                if let Some(rep) = &r.replicas {
                    if !d.is_empty() && rep.len() != d.len() {
                        return Err(ReplayError::Invalid(format!(
                            "{DIRECTORIES_MISMATCH}{}",
                            partition_change_record_text(r)
                        )));
                    }
                }
                (Source::Directories(d), d.len(), all_migrating(d))
            }
        };
        // Kafka's defaultToMigrating.
        let dirs = if migrating {
            Source::Migrating(replicas)
        } else {
            dirs
        };
        let (leader, leader_epoch) = if r.leader == NO_LEADER_CHANGE {
            (self.leader, self.leader_epoch)
        } else {
            (r.leader, self.leader_epoch.wrapping_add(1))
        };
        let leader_recovery_state = self
            .leader_recovery_state
            .change_to(r.leader_recovery_state)?;
        // Directories not all migrating are not empty.
        if !migrating && dir_count != replicas {
            return Err(ReplayError::Invalid(
                "The lengths for replicas and directories do not match.".into(),
            ));
        }
        let lists = pack(
            [
                changed(&r.replicas, old[REPLICAS]),
                dirs,
                changed(&r.isr, old[ISR]),
                changed(&r.removing_replicas, old[REMOVING]),
                changed(&r.adding_replicas, old[ADDING]),
                changed(&r.eligible_leader_replicas, old[ELR]),
                changed(&r.last_known_elr, old[LAST_KNOWN_ELR]),
            ],
            directories,
        )?;
        Ok(PackedPartition {
            lists,
            leader,
            leader_epoch,
            partition_epoch: self.partition_epoch.wrapping_add(1),
            leader_recovery_state,
        })
    }

    /// Whether it has eligible or last known eligible leader replicas.
    pub(super) fn has_elr(&self) -> bool {
        let lists = split(self.lists.bytes());
        count(lists[ELR]) > 0 || count(lists[LAST_KNOWN_ELR]) > 0
    }
}

/// A partition's replicas, leadership and epochs (Kafka's
/// `PartitionRegistration`), as the image holds it: a view of its packed
/// form (see the module docs) that reads each list as an iterator.
///
/// `directories` has one entry per replica (Kafka fills it with
/// `DirectoryId.MIGRATING`, the nil uuid, when a record carries none); `elr` and
/// `last_known_elr` are empty when not set. Two views are equal when every
/// field is, whichever images they come from.
#[derive(Clone, Copy)]
pub struct PartitionRegistration<'a> {
    packed: &'a PackedPartition,
    directories: &'a DirectoryTable,
}

impl<'a> PartitionRegistration<'a> {
    /// The view of `packed`, whose directories are indices into
    /// `directories`.
    pub(super) fn new(packed: &'a PackedPartition, directories: &'a DirectoryTable) -> Self {
        PartitionRegistration {
            packed,
            directories,
        }
    }

    fn ints(self, which: usize) -> impl ExactSizeIterator<Item = i32> + Clone + 'a {
        Items::of(list(self.packed.lists.bytes(), which)).map(|v| v as i32)
    }

    /// Assigned replicas, preferred leader first.
    pub fn replicas(self) -> impl ExactSizeIterator<Item = i32> + Clone + 'a {
        self.ints(REPLICAS)
    }

    /// The log directory of each replica, in replica order.
    pub fn directories(self) -> impl ExactSizeIterator<Item = Uuid> + Clone + 'a {
        let table = self.directories;
        Items::of(list(self.packed.lists.bytes(), DIRECTORIES)).map(move |i| table.id(i))
    }

    /// In-sync replicas.
    pub fn isr(self) -> impl ExactSizeIterator<Item = i32> + Clone + 'a {
        self.ints(ISR)
    }

    /// Replicas being removed by a reassignment.
    pub fn removing_replicas(self) -> impl ExactSizeIterator<Item = i32> + Clone + 'a {
        self.ints(REMOVING)
    }

    /// Replicas being added by a reassignment.
    pub fn adding_replicas(self) -> impl ExactSizeIterator<Item = i32> + Clone + 'a {
        self.ints(ADDING)
    }

    /// Eligible leader replicas (KIP-966).
    pub fn elr(self) -> impl ExactSizeIterator<Item = i32> + Clone + 'a {
        self.ints(ELR)
    }

    /// Last known eligible leader replicas (KIP-966).
    pub fn last_known_elr(self) -> impl ExactSizeIterator<Item = i32> + Clone + 'a {
        self.ints(LAST_KNOWN_ELR)
    }

    /// The leader, or -1 (`NO_LEADER`).
    pub fn leader(self) -> i32 {
        self.packed.leader
    }

    /// Whether the leader is recovering from an unclean election.
    pub fn leader_recovery_state(self) -> LeaderRecoveryState {
        self.packed.leader_recovery_state
    }

    /// Bumped whenever a change record sets the leader.
    pub fn leader_epoch(self) -> i32 {
        self.packed.leader_epoch
    }

    /// Bumped by every change.
    pub fn partition_epoch(self) -> i32 {
        self.packed.partition_epoch
    }

    /// Whether the partition has a leader.
    pub fn has_leader(self) -> bool {
        self.packed.leader != NO_LEADER
    }

    /// The preferred replica (the first), or -1 (`NO_LEADER`) without
    /// replicas.
    pub fn preferred_replica(self) -> i32 {
        self.replicas().next().unwrap_or(NO_LEADER)
    }

    /// The directory of `replica`, if it is one of the replicas.
    pub fn directory(self, replica: i32) -> Option<Uuid> {
        let at = self.replicas().position(|r| r == replica)?;
        self.directories().nth(at)
    }

    /// Kafka's `PartitionRegistration.toRecord`: the PartitionRecord at
    /// `options.metadata_version.partition_record_version()`. The ELR fields
    /// are written only when eligible leader replicas are enabled and they
    /// are not empty (Kafka drops them otherwise, reporting no loss);
    /// directories other than MIGRATING below directory assignment are a
    /// loss.
    pub fn to_record(
        self,
        topic_id: Uuid,
        partition_id: i32,
        options: &WriteOptions,
    ) -> Result<MetadataRecord, WriteError> {
        let mv = options.metadata_version;
        let lists = split(self.packed.lists.bytes());
        let ints =
            |which: usize| -> Vec<i32> { Items::of(lists[which]).map(|v| v as i32).collect() };
        let mut record = PartitionRecord {
            partition_id,
            topic_id,
            replicas: ints(REPLICAS),
            isr: ints(ISR),
            removing_replicas: ints(REMOVING),
            adding_replicas: ints(ADDING),
            leader: self.packed.leader,
            leader_recovery_state: self.packed.leader_recovery_state.value(),
            leader_epoch: self.packed.leader_epoch,
            partition_epoch: self.packed.partition_epoch,
            ..Default::default()
        };
        if options.eligible_leader_replicas_enabled {
            if count(lists[ELR]) > 0 {
                record.eligible_leader_replicas = Some(ints(ELR));
            }
            if count(lists[LAST_KNOWN_ELR]) > 0 {
                record.last_known_elr = Some(ints(LAST_KNOWN_ELR));
            }
        }
        if mv.is_directory_assignment_supported() {
            record.directories = Items::of(lists[DIRECTORIES])
                .map(|i| self.directories.id(i))
                .collect();
        } else if !all_migrating_indices(lists[DIRECTORIES]) {
            return Err(WriteError::Loss {
                metadata_version: mv,
                loss: "the directory assignment state of one or more replicas".into(),
            });
        }
        Ok(MetadataRecord::new(record, mv.partition_record_version()))
    }
}

impl PartialEq for PartitionRegistration<'_> {
    fn eq(&self, other: &Self) -> bool {
        let (a, b) = (self.packed, other.packed);
        if (
            a.leader,
            a.leader_epoch,
            a.partition_epoch,
            a.leader_recovery_state,
        ) != (
            b.leader,
            b.leader_epoch,
            b.partition_epoch,
            b.leader_recovery_state,
        ) {
            return false;
        }
        if std::ptr::eq(self.directories, other.directories) {
            return a.lists.bytes() == b.lists.bytes();
        }
        // Other lists are canonical bytes; directory indices are the
        // tables' own.
        let (la, lb) = (split(a.lists.bytes()), split(b.lists.bytes()));
        (0..LISTS).all(|i| i == DIRECTORIES || la[i] == lb[i])
            && self.directories().eq(other.directories())
    }
}

impl Eq for PartitionRegistration<'_> {}

impl fmt::Debug for PartitionRegistration<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let directories: Vec<String> = self.directories().map(|d| uuid_to_text(&d)).collect();
        f.debug_struct("PartitionRegistration")
            .field("replicas", &self.replicas().collect::<Vec<_>>())
            .field("directories", &directories)
            .field("isr", &self.isr().collect::<Vec<_>>())
            .field(
                "removing_replicas",
                &self.removing_replicas().collect::<Vec<_>>(),
            )
            .field(
                "adding_replicas",
                &self.adding_replicas().collect::<Vec<_>>(),
            )
            .field("elr", &self.elr().collect::<Vec<_>>())
            .field("last_known_elr", &self.last_known_elr().collect::<Vec<_>>())
            .field("leader", &self.leader())
            .field("leader_recovery_state", &self.leader_recovery_state())
            .field("leader_epoch", &self.leader_epoch())
            .field("partition_epoch", &self.partition_epoch())
            .finish()
    }
}

/// Java's `MessageUtil.deepToString` of a list of Kafka UUIDs.
pub(super) fn java_uuid_list(v: &[Uuid]) -> String {
    let items: Vec<String> = v.iter().map(uuid_to_text).collect();
    format!("[{}]", items.join(", "))
}

/// Java's `MessageUtil.deepToString` of a list of ints.
fn java_int_list(v: &[i32]) -> String {
    let items: Vec<String> = v.iter().map(i32::to_string).collect();
    format!("[{}]", items.join(", "))
}

/// A nullable int list as Java's generated `toString` prints it.
fn java_nullable_ints(v: &Option<Vec<i32>>) -> String {
    v.as_deref()
        .map_or_else(|| "null".to_string(), java_int_list)
}

/// Java's generated `PartitionRecord.toString()`, which Kafka's replay
/// errors quote.
pub(super) fn partition_record_text(r: &PartitionRecord) -> String {
    format!(
        "PartitionRecord(partitionId={}, topicId={}, replicas={}, isr={}, removingReplicas={}, addingReplicas={}, leader={}, leaderRecoveryState={}, leaderEpoch={}, partitionEpoch={}, directories={}, eligibleLeaderReplicas={}, lastKnownElr={})",
        r.partition_id,
        uuid_to_text(&r.topic_id),
        java_int_list(&r.replicas),
        java_int_list(&r.isr),
        java_int_list(&r.removing_replicas),
        java_int_list(&r.adding_replicas),
        r.leader,
        r.leader_recovery_state,
        r.leader_epoch,
        r.partition_epoch,
        java_uuid_list(&r.directories),
        java_nullable_ints(&r.eligible_leader_replicas),
        java_nullable_ints(&r.last_known_elr),
    )
}

/// Java's generated `PartitionChangeRecord.toString()`.
pub(super) fn partition_change_record_text(r: &PartitionChangeRecord) -> String {
    format!(
        "PartitionChangeRecord(partitionId={}, topicId={}, isr={}, leader={}, replicas={}, removingReplicas={}, addingReplicas={}, leaderRecoveryState={}, directories={}, eligibleLeaderReplicas={}, lastKnownElr={})",
        r.partition_id,
        uuid_to_text(&r.topic_id),
        java_nullable_ints(&r.isr),
        r.leader,
        java_nullable_ints(&r.replicas),
        java_nullable_ints(&r.removing_replicas),
        java_nullable_ints(&r.adding_replicas),
        r.leader_recovery_state,
        r.directories
            .as_deref()
            .map_or_else(|| "null".to_string(), java_uuid_list),
        java_nullable_ints(&r.eligible_leader_replicas),
        java_nullable_ints(&r.last_known_elr),
    )
}

#[cfg(test)]
mod tests;
