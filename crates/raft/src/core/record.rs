//! Log entries as the core sees them: batches of data or control records.
//!
//! The wire/disk encoding (RecordBatch v2) lives in `kraft-protocol`; the
//! adapter converts between these values and bytes.

use bytes::Bytes;

use super::types::NodeId;
use super::voters::VoterSet;

/// `LeaderChangeMessage` (always version 0 on disk).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct LeaderChangeMessage {
    /// The new leader.
    pub leader_id: NodeId,
    /// Ids of the voter set at epoch start.
    pub voters: Vec<NodeId>,
    /// Ids that granted the vote.
    pub granting_voters: Vec<NodeId>,
}

/// A control record (`ControlRecordType` 2..=6).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ControlRecord {
    /// LEADER_CHANGE (2).
    LeaderChange(LeaderChangeMessage),
    /// SNAPSHOT_HEADER (3).
    SnapshotHeader {
        /// Append time of the last record contained in the snapshot.
        last_contained_log_timestamp: i64,
    },
    /// SNAPSHOT_FOOTER (4).
    SnapshotFooter,
    /// KRAFT_VERSION (5): the finalized `kraft.version` level.
    KRaftVersion(i16),
    /// KRAFT_VOTERS (6): a complete voter set (`VotersRecord` version 0).
    Voters(VoterSet),
}

/// One record of a batch.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Record {
    /// An opaque data record (a metadata record in the controller).
    Data(Bytes),
    /// A control record.
    Control(ControlRecord),
}

impl Record {
    /// Approximate encoded size in bytes (used for Fetch `MaxBytes`).
    pub fn size_estimate(&self) -> usize {
        match self {
            Record::Data(b) => b.len() + 8,
            Record::Control(ControlRecord::Voters(v)) => 16 + v.len() * 48,
            Record::Control(ControlRecord::LeaderChange(l)) => {
                16 + 4 * (l.voters.len() + l.granting_voters.len())
            }
            Record::Control(_) => 16,
        }
    }
}

/// Size of a RecordBatch v2 header.
pub const BATCH_OVERHEAD: usize = 61;

/// A batch of records appended by one leader in one epoch. Records have
/// consecutive offsets starting at `base_offset`; a batch holds either only
/// data records or only control records.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Batch {
    /// Offset of the first record.
    pub base_offset: i64,
    /// Leader epoch that appended the batch (`partitionLeaderEpoch`).
    pub epoch: i32,
    /// Append time (ms) as set by the leader.
    pub append_time: i64,
    /// The records (never empty).
    pub records: Vec<Record>,
    /// The batch's RecordBatch v2 bytes when they are at hand (it was read
    /// from the wire or a file, or written to a file); a cache that spares
    /// encoding it again. Not part of the batch's value: equality and
    /// hashing ignore it. Whoever sets it must set exactly the encoding of
    /// the fields above.
    pub encoded: EncodedBatch,
}

/// The cached encoding of a [`Batch`] (see [`Batch::encoded`]); empty by
/// default.
#[derive(Clone, Default)]
pub struct EncodedBatch(Option<Bytes>);

impl EncodedBatch {
    /// A cache holding `bytes`, the exact encoding of its batch.
    pub fn of(bytes: Bytes) -> Self {
        EncodedBatch(Some(bytes))
    }

    /// The encoding, if cached.
    pub fn bytes(&self) -> Option<&Bytes> {
        self.0.as_ref()
    }
}

impl PartialEq for EncodedBatch {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl Eq for EncodedBatch {}

impl std::hash::Hash for EncodedBatch {
    fn hash<H: std::hash::Hasher>(&self, _: &mut H) {}
}

impl std::fmt::Debug for EncodedBatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.0 {
            Some(b) => write!(f, "EncodedBatch({} bytes)", b.len()),
            None => f.write_str("EncodedBatch(none)"),
        }
    }
}

impl Batch {
    /// Offset of the last record.
    pub fn last_offset(&self) -> i64 {
        self.next_offset().saturating_sub(1)
    }

    /// The offset after the batch (saturating: offsets come from the wire).
    pub fn next_offset(&self) -> i64 {
        self.base_offset.saturating_add(self.records.len() as i64)
    }

    /// True for a control batch.
    pub fn is_control(&self) -> bool {
        matches!(self.records.first(), Some(Record::Control(_)))
    }

    /// Approximate encoded size.
    pub fn size_estimate(&self) -> usize {
        BATCH_OVERHEAD
            + self
                .records
                .iter()
                .map(Record::size_estimate)
                .sum::<usize>()
    }

    /// The control records with their offsets.
    pub fn control_records(&self) -> impl Iterator<Item = (i64, &ControlRecord)> {
        self.records
            .iter()
            .enumerate()
            .filter_map(move |(i, r)| match r {
                Record::Control(c) => Some((self.base_offset.saturating_add(i as i64), c)),
                Record::Data(_) => None,
            })
    }
}
