//! The controller state machine: committed metadata records replayed into a
//! [`MetadataImage`], in the layout of Kafka's `MetadataImage` (features,
//! cluster, topics, configs, client quotas, producer ids, ACLs, SCRAM,
//! delegation tokens).
//!
//! Records arrive as framed metadata record values (Kafka's
//! `MetadataRecordSerde`: `uvarint frameVersion=1, uvarint type, uvarint
//! version, body`). Replay follows Kafka's image deltas, and a record Kafka
//! would refuse is a [`ReplayError`], never a skipped record.
//!
//! **Nothing not understood is dropped.** Every record type of Kafka 4.4 is
//! modelled; a record of a type or version this build cannot decode (one a
//! later Kafka adds) is counted in [`MetadataImage::not_understood`]. From then on
//! the image refuses to write itself ([`MetadataImage::to_records`] fails
//! naming the types), so this node takes no snapshot and cleans no log
//! below one: the records stay in the log, where every other node can read
//! them.
//!
//! **Transactions** (KIP-866): records between a `BeginTransactionRecord`
//! and its `EndTransactionRecord` are held back and applied together at the
//! end, as Kafka's `MetadataBatchLoader` publishes them; an
//! `AbortTransactionRecord` discards them. While a transaction is open the
//! image's [`MetadataImage::last_offset`] stays before its start, so a
//! snapshot never claims the held-back records.
//!
//! The image serialises to records in Kafka's snapshot order
//! ([`MetadataImage::to_records`], each record at the version the finalized
//! metadata.version selects) and loads back from them
//! ([`MetadataImage::from_records`]), which is what raft snapshots need.

mod acls;
mod chunked;
mod client_quotas;
mod cluster;
mod configs;
mod delegation_tokens;
mod elections;
mod features;
mod partition;
mod producer_ids;
mod record;
mod scram;
mod shared;
/// Where the image writes its records, in order: a list
/// ([`MetadataImage::to_records`]) or an encoder
/// ([`MetadataImage::to_values`]).
pub(crate) trait RecordSink {
    /// Takes the next record.
    fn push(&mut self, record: MetadataRecord);
}

impl RecordSink for Vec<MetadataRecord> {
    fn push(&mut self, record: MetadataRecord) {
        Vec::push(self, record);
    }
}

/// The size of the shared buffers [`EncodingSink`] encodes into.
const ENCODING_CHUNK_BYTES: usize = 1 << 20;

/// Encodes each record as it arrives; the values are slices of shared
/// buffers of [`ENCODING_CHUNK_BYTES`] (or one record's size, if larger).
#[derive(Default)]
struct EncodingSink {
    buffer: BytesMut,
    values: Vec<Bytes>,
    error: Option<WriteError>,
}

impl RecordSink for EncodingSink {
    fn push(&mut self, record: MetadataRecord) {
        if self.error.is_some() {
            return;
        }
        match record.encode() {
            Ok(value) => {
                if self.buffer.capacity() < value.len() {
                    // A fresh buffer: the full one stays shared by the
                    // values already split off it.
                    self.buffer = BytesMut::with_capacity(ENCODING_CHUNK_BYTES.max(value.len()));
                }
                self.buffer.extend_from_slice(&value);
                self.values.push(self.buffer.split().freeze());
            }
            Err(e) => self.error = Some(e.into()),
        }
    }
}

impl EncodingSink {
    fn finish(self) -> Result<Vec<Bytes>, WriteError> {
        match self.error {
            Some(e) => Err(e),
            None => Ok(self.values),
        }
    }
}

#[cfg(test)]
mod tests;
mod topics;

use std::collections::BTreeMap;
use std::fmt;

use bytes::{Bytes, BytesMut};
use kraft_protocol::records::{MetadataRecordError, MetadataRecordHeader};
use kraft_protocol::{DecodeError, EncodeError, MetadataRecordBody, MetadataRecordType};

pub use acls::{AclsImage, StandardAcl};
#[cfg(test)]
pub(crate) use client_quotas::tests::quota as client_quota_record;
pub use client_quotas::{ClientQuotaEntity, ClientQuotasImage};
pub use cluster::{BrokerRegistration, ClusterImage, ControllerRegistration, RegistrationEndpoint};
pub use configs::{ConfigResource, ConfigurationsImage};
pub use delegation_tokens::{DelegationTokenData, DelegationTokensImage};
pub use elections::ElectionTally;
pub use features::FeaturesImage;
pub use partition::{LeaderRecoveryState, PartitionRegistration};
pub use producer_ids::ProducerIdsImage;
pub use record::MetadataRecord;
pub use scram::{ScramCredentialData, ScramImage};
pub use shared::SharedImage;

pub use topics::{TopicImage, TopicsImage};

use crate::features::{MetadataVersion, KRAFT_VERSION};

/// The feature whose level 1 turns eligible leader replicas on (KIP-966).
const ELIGIBLE_LEADER_REPLICAS_VERSION: &str = "eligible.leader.replicas.version";

/// How an image writes itself (Kafka's `ImageWriterOptions`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WriteOptions {
    /// The metadata.version that selects each record's version.
    pub metadata_version: MetadataVersion,
    /// Whether `eligible.leader.replicas.version` is at least 1.
    pub eligible_leader_replicas_enabled: bool,
}

/// Why a record could not be replayed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReplayError {
    /// The record value could not be decoded.
    #[error("undecodable metadata record at offset {offset}: {source}")]
    Decode {
        /// Log offset of the record (-1 if unknown).
        offset: i64,
        /// The decoding error.
        source: DecodeError,
    },
    /// A FeatureLevelRecord sets a metadata.version this software does not know.
    #[error("{0}")]
    UnsupportedMetadataVersion(String),
    /// The record contradicts the image (Kafka's delta throws): the message
    /// is Kafka's.
    #[error("{0}")]
    Invalid(String),
}

/// A committed record the image could not apply: where it is, what it is,
/// and why ([`SharedImage::apply_committed`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommittedRecordError {
    /// The record's log offset.
    pub offset: i64,
    /// The record type from its frame (`None` if the frame is unreadable).
    pub api_key: Option<i16>,
    /// The record version from its frame.
    pub version: Option<i16>,
    /// Why it could not be applied.
    pub source: ReplayError,
}

impl CommittedRecordError {
    /// The failure of the record `value` at `offset`.
    pub fn new(value: &Bytes, offset: i64, source: ReplayError) -> Self {
        let header =
            kraft_protocol::records::decode_metadata_record_header(&mut value.clone()).ok();
        CommittedRecordError {
            offset,
            api_key: header.map(|h| h.api_key),
            version: header.map(|h| h.version),
            source,
        }
    }

    /// The record type's name as Kafka's classes are named
    /// (e.g. `RemoveTopicRecord`), or `unknown record type N`.
    pub fn record_name(&self) -> String {
        record_name(self.api_key)
    }
}

impl fmt::Display for CommittedRecordError {
    /// `<Type> record at offset <offset> (version <v>)`: the words Kafka's
    /// controller uses for a record it cannot apply.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} record at offset {}", self.record_name(), self.offset)?;
        match self.version {
            Some(v) => write!(f, " (version {v})"),
            None => Ok(()),
        }
    }
}

impl std::error::Error for CommittedRecordError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.source)
    }
}

fn record_name(api_key: Option<i16>) -> String {
    match api_key {
        Some(key) => MetadataRecordType::from_i16(key)
            .map(|t| t.name().to_string())
            .unwrap_or_else(|| format!("unknown record type {key}")),
        None => "an unframed".to_string(),
    }
}

/// Why the image cannot be written as records.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WriteError {
    /// No metadata.version has been finalized.
    #[error("the image has no metadata.version")]
    NoMetadataVersion,
    /// A metadata transaction is open: its records are not in the image yet.
    #[error("a metadata transaction that began at offset {0} is still open")]
    OpenTransaction(i64),
    /// The image has seen records it does not understand; writing it would
    /// drop them.
    #[error("the image holds metadata it does not understand: {}", NotUnderstoodList(.0))]
    NotUnderstood(Vec<NotUnderstood>),
    /// Part of the image cannot be represented at the metadata.version
    /// (Kafka's `UnwritableMetadataException`).
    #[error("Metadata has been lost because the following could not be represented in metadata.version {metadata_version}: {loss}")]
    Loss {
        /// The metadata.version written at.
        metadata_version: MetadataVersion,
        /// What would be lost.
        loss: String,
    },
    /// A record failed to encode.
    #[error("cannot encode a metadata record: {0}")]
    Encode(#[from] EncodeError),
}

/// Records of one type and version the image did not understand.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotUnderstood {
    /// The record type id.
    pub record_type: i16,
    /// The record version.
    pub version: i16,
    /// Why: the type or the version is unknown to this build.
    pub reason: NotUnderstoodReason,
    /// Offset of the first such record (-1 when read from a snapshot).
    pub first_offset: i64,
    /// How many were seen.
    pub count: u64,
}

/// Why a record was not understood.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NotUnderstoodReason {
    /// The record type id is unknown to this build.
    UnknownType,
    /// The type is known but not at this version.
    UnknownVersion,
}

impl fmt::Display for NotUnderstood {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = MetadataRecordType::from_i16(self.record_type).map_or_else(
            || "an unknown record type".to_string(),
            |t| t.name().to_string(),
        );
        let why = match self.reason {
            NotUnderstoodReason::UnknownType => "unknown type",
            NotUnderstoodReason::UnknownVersion => "unknown version",
        };
        write!(
            f,
            "{name} (type {}, version {}, {why}; {} record(s), first at offset {})",
            self.record_type, self.version, self.count, self.first_offset
        )
    }
}

/// Formats a list of [`NotUnderstood`] entries for an error message.
struct NotUnderstoodList<'a>(&'a [NotUnderstood]);

impl fmt::Display for NotUnderstoodList<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, n) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{n}")?;
        }
        Ok(())
    }
}

/// An open metadata transaction: the records held back since its begin.
#[derive(Debug, Clone, PartialEq)]
struct OpenTransaction {
    begin_offset: i64,
    /// The held-back records and their offsets.
    records: Vec<(MetadataRecord, i64)>,
}

/// The replayed cluster metadata.
#[derive(Debug, Clone, PartialEq)]
pub struct MetadataImage {
    features: FeaturesImage,
    kraft_version: i16,
    cluster: ClusterImage,
    topics: TopicsImage,
    configs: ConfigurationsImage,
    client_quotas: ClientQuotasImage,
    producer_ids: ProducerIdsImage,
    acls: AclsImage,
    scram: ScramImage,
    delegation_tokens: DelegationTokensImage,
    transaction: Option<OpenTransaction>,
    not_understood: BTreeMap<(i16, i16), NotUnderstood>,
    last_offset: i64,
    /// The leader elections applied so far (not metadata: see
    /// [`elections::RunningTally`]).
    elections: elections::RunningTally,
}

impl Default for MetadataImage {
    fn default() -> Self {
        MetadataImage::new()
    }
}

impl MetadataImage {
    /// An empty image: no metadata.version, no registrations, offset -1.
    pub fn new() -> Self {
        MetadataImage {
            features: FeaturesImage::default(),
            kraft_version: 0,
            cluster: ClusterImage::default(),
            topics: TopicsImage::default(),
            configs: ConfigurationsImage::default(),
            client_quotas: ClientQuotasImage::default(),
            producer_ids: ProducerIdsImage::default(),
            acls: AclsImage::default(),
            scram: ScramImage::default(),
            delegation_tokens: DelegationTokensImage::default(),
            transaction: None,
            not_understood: BTreeMap::new(),
            last_offset: -1,
            elections: elections::RunningTally::default(),
        }
    }

    /// The finalized features.
    pub fn features(&self) -> &FeaturesImage {
        &self.features
    }

    /// The registered controllers and brokers.
    pub fn cluster(&self) -> &ClusterImage {
        &self.cluster
    }

    /// Topics and partitions.
    pub fn topics(&self) -> &TopicsImage {
        &self.topics
    }

    /// Dynamic configurations.
    pub fn configs(&self) -> &ConfigurationsImage {
        &self.configs
    }

    /// Client quotas.
    pub fn client_quotas(&self) -> &ClientQuotasImage {
        &self.client_quotas
    }

    /// The next producer id block.
    pub fn producer_ids(&self) -> &ProducerIdsImage {
        &self.producer_ids
    }

    /// Access control entries.
    pub fn acls(&self) -> &AclsImage {
        &self.acls
    }

    /// SCRAM credentials.
    pub fn scram(&self) -> &ScramImage {
        &self.scram
    }

    /// Delegation tokens.
    pub fn delegation_tokens(&self) -> &DelegationTokensImage {
        &self.delegation_tokens
    }

    /// The finalized metadata.version, once a FeatureLevelRecord set it.
    pub fn metadata_version(&self) -> Option<MetadataVersion> {
        self.features.metadata_version()
    }

    /// The finalized kraft.version (from the raft layer's KRaftVersionRecord).
    pub fn kraft_version(&self) -> i16 {
        self.kraft_version
    }

    /// Records the finalized kraft.version. The raft layer calls this when it
    /// reads a KRaftVersionRecord; kraft.version never comes from a
    /// FeatureLevelRecord.
    pub fn set_kraft_version(&mut self, level: i16) {
        self.kraft_version = level;
    }

    /// Finalized level of `name` (0 when not set). `metadata.version` and
    /// `kraft.version` are answered too.
    pub fn feature_level(&self, name: &str) -> i16 {
        match name {
            KRAFT_VERSION => self.kraft_version,
            _ => self.features.level(name),
        }
    }

    /// Finalized levels (> 0) of the features other than metadata.version and
    /// kraft.version, in the order they were first set.
    pub fn finalized_features(&self) -> &[(String, i16)] {
        self.features.finalized()
    }

    /// The registration of controller `id`.
    pub fn controller(&self, id: i32) -> Option<&ControllerRegistration> {
        self.cluster.controller(id)
    }

    /// All controller registrations, by id.
    pub fn controllers(&self) -> impl Iterator<Item = &ControllerRegistration> {
        self.cluster.controllers()
    }

    /// Offset of the last record whose effect is in the image (-1 if none).
    /// Kafka reports it as the `FinalizedFeaturesEpoch` of ApiVersions
    /// responses. While a transaction is open it stays before the
    /// transaction's start.
    pub fn last_offset(&self) -> i64 {
        self.last_offset
    }

    /// Sets the offset of the last applied record (after a batch or
    /// snapshot). Ignored while a transaction is open: the held-back records
    /// are not in the image.
    pub fn set_last_offset(&mut self, offset: i64) {
        if self.transaction.is_none() {
            self.last_offset = offset;
        }
    }

    /// The records of types or versions seen but not understood.
    pub fn not_understood(&self) -> impl Iterator<Item = &NotUnderstood> {
        self.not_understood.values()
    }

    /// The offset of the `BeginTransactionRecord` of an open transaction.
    pub fn open_transaction(&self) -> Option<i64> {
        self.transaction.as_ref().map(|t| t.begin_offset)
    }

    fn note_not_understood(
        &mut self,
        header: MetadataRecordHeader,
        reason: NotUnderstoodReason,
        offset: i64,
    ) {
        let entry = self
            .not_understood
            .entry((header.api_key, header.version))
            .or_insert_with(|| NotUnderstood {
                record_type: header.api_key,
                version: header.version,
                reason,
                first_offset: offset,
                count: 0,
            });
        entry.count += 1;
        if entry.count == 1 {
            // MetadataDelta's wording for an unknown type ("Unknown metadata
            // record type N"), which operators grep for.
            let what = match entry.reason {
                NotUnderstoodReason::UnknownType => {
                    format!("Unknown metadata record type {}", entry.record_type)
                }
                NotUnderstoodReason::UnknownVersion => format!(
                    "Unknown metadata record version {} of record type {}",
                    entry.version, entry.record_type
                ),
            };
            tracing::error!(
                record_type = entry.record_type,
                version = entry.version,
                offset,
                record = %entry,
                "{what}: this node keeps it in the log and takes no snapshot and cleans no log until a build that understands it runs"
            );
        }
    }

    /// Applies one record read at `offset` (-1 when unknown, e.g. in a
    /// snapshot): transaction markers open, end or abort a transaction, any
    /// other record is applied or, inside a transaction, held back.
    fn apply(&mut self, record: &MetadataRecord, offset: i64) -> Result<(), ReplayError> {
        match &record.body {
            MetadataRecordBody::BeginTransaction(_) => {
                if self.transaction.is_some() {
                    return Err(ReplayError::Invalid(
                        "Encountered BeginTransactionRecord while already in a transaction".into(),
                    ));
                }
                self.transaction = Some(OpenTransaction {
                    begin_offset: offset,
                    records: Vec::new(),
                });
                Ok(())
            }
            MetadataRecordBody::EndTransaction(_) => {
                let Some(transaction) = self.transaction.take() else {
                    return Err(ReplayError::Invalid(
                        "Encountered EndTransactionRecord without having seen a BeginTransactionRecord"
                            .into(),
                    ));
                };
                for (held, held_offset) in &transaction.records {
                    self.replay_body(held, *held_offset)?;
                }
                Ok(())
            }
            MetadataRecordBody::AbortTransaction(_) => {
                if self.transaction.take().is_none() {
                    return Err(ReplayError::Invalid(
                        "Encountered AbortTransactionRecord without having seen a BeginTransactionRecord"
                            .into(),
                    ));
                }
                Ok(())
            }
            _ => match self.transaction.as_mut() {
                Some(transaction) => {
                    transaction.records.push((record.clone(), offset));
                    Ok(())
                }
                None => self.replay_body(record, offset),
            },
        }
    }

    /// Kafka's `MetadataDelta.replay`: one record into its part (`offset`:
    /// where it was read, -1 when unknown).
    fn replay_body(&mut self, record: &MetadataRecord, offset: i64) -> Result<(), ReplayError> {
        match &record.body {
            MetadataRecordBody::FeatureLevel(r) => self.features.replay(r),
            MetadataRecordBody::RegisterController(r) => self.cluster.replay_register_controller(r),
            MetadataRecordBody::UnregisterController(r) => {
                self.cluster.replay_unregister_controller(r)
            }
            // NoOpRecord only moves the offset; ZkMigrationStateRecord is
            // ignored since 4.0 (Kafka keeps the case for upgraded clusters).
            MetadataRecordBody::NoOp(_) | MetadataRecordBody::ZkMigrationState(_) => Ok(()),
            MetadataRecordBody::RegisterBroker(r) => self.cluster.replay_register_broker(r, offset),
            MetadataRecordBody::UnregisterBroker(r) => self.cluster.replay_unregister_broker(r),
            MetadataRecordBody::FenceBroker(r) => self.cluster.replay_fence_broker(r),
            MetadataRecordBody::UnfenceBroker(r) => self.cluster.replay_unfence_broker(r),
            MetadataRecordBody::BrokerRegistrationChange(r) => {
                self.cluster.replay_broker_registration_change(r)
            }
            MetadataRecordBody::Topic(r) => self.topics.replay_topic(r),
            MetadataRecordBody::Partition(r) => {
                let before = self.topics.partition(&r.topic_id, r.partition_id);
                (self.elections.0).observe(before, r.leader, r.leader_recovery_state);
                self.topics.replay_partition(r)
            }
            MetadataRecordBody::PartitionChange(r) => {
                let before = self.topics.partition(&r.topic_id, r.partition_id);
                (self.elections.0).observe(before, r.leader, r.leader_recovery_state);
                self.topics.replay_partition_change(r)
            }
            MetadataRecordBody::RemoveTopic(r) => {
                let name = self.topics.replay_remove_topic(r)?;
                self.configs.remove_topic(&name);
                Ok(())
            }
            MetadataRecordBody::ClearElr(r) => self.topics.replay_clear_elr(r),
            MetadataRecordBody::Config(r) => self.configs.replay(r),
            MetadataRecordBody::ClientQuota(r) => self.client_quotas.replay(r),
            MetadataRecordBody::ProducerIds(r) => self.producer_ids.replay(r),
            MetadataRecordBody::AccessControlEntry(r) => self.acls.replay_add(r),
            MetadataRecordBody::RemoveAccessControlEntry(r) => self.acls.replay_remove(r),
            MetadataRecordBody::UserScramCredential(r) => self.scram.replay_set(r),
            MetadataRecordBody::RemoveUserScramCredential(r) => self.scram.replay_remove(r),
            MetadataRecordBody::DelegationToken(r) => self.delegation_tokens.replay_set(r),
            MetadataRecordBody::RemoveDelegationToken(r) => self.delegation_tokens.replay_remove(r),
            // Transaction markers are handled by `apply`.
            MetadataRecordBody::BeginTransaction(_)
            | MetadataRecordBody::EndTransaction(_)
            | MetadataRecordBody::AbortTransaction(_) => Ok(()),
        }
    }

    /// Applies one decoded record (outside the log: tests, bootstrap).
    pub fn replay(&mut self, record: &MetadataRecord) -> Result<(), ReplayError> {
        self.apply(record, -1)
    }

    /// Applies one decoded record that is (or is about to be) at `offset`
    /// of the log: the active controller's own records, applied as it
    /// appends them.
    pub fn replay_at(&mut self, record: &MetadataRecord, offset: i64) -> Result<(), ReplayError> {
        self.apply(record, offset)?;
        if offset > self.last_offset {
            self.set_last_offset(offset);
        }
        Ok(())
    }

    /// Decodes and applies one framed record value read at `offset`. A type
    /// or version this build does not know is noted as not understood (see
    /// the module docs); a malformed value is an error.
    pub fn replay_value(&mut self, value: Bytes, offset: i64) -> Result<(), ReplayError> {
        match MetadataRecord::decode(value) {
            Ok(record) => self.apply(&record, offset)?,
            Err(MetadataRecordError::UnknownType(header)) => {
                self.note_not_understood(header, NotUnderstoodReason::UnknownType, offset)
            }
            Err(e @ MetadataRecordError::UnsupportedVersion { .. }) => {
                if let Some(header) = e.header() {
                    self.note_not_understood(header, NotUnderstoodReason::UnknownVersion, offset)
                }
            }
            Err(MetadataRecordError::Decode(source)) => {
                return Err(ReplayError::Decode { offset, source })
            }
        }
        if offset > self.last_offset {
            self.set_last_offset(offset);
        }
        Ok(())
    }

    /// Why the image cannot be written now, if it cannot: an open
    /// transaction, records not understood, or no metadata.version.
    pub fn unwritable(&self) -> Option<WriteError> {
        if let Some(t) = &self.transaction {
            return Some(WriteError::OpenTransaction(t.begin_offset));
        }
        if !self.not_understood.is_empty() {
            return Some(WriteError::NotUnderstood(
                self.not_understood.values().cloned().collect(),
            ));
        }
        if self.metadata_version().is_none() {
            return Some(WriteError::NoMetadataVersion);
        }
        None
    }

    /// Whether eligible leader replicas are on (Kafka's
    /// `FeatureControlManager.isElrFeatureEnabled`: the
    /// `eligible.leader.replicas.version` feature is at least 1).
    pub fn eligible_leader_replicas_enabled(&self) -> bool {
        self.features.level(ELIGIBLE_LEADER_REPLICAS_VERSION) >= 1
    }

    /// The options the image writes itself with (Kafka's
    /// `ImageWriterOptions.Builder(image)`).
    pub fn write_options(&self) -> Option<WriteOptions> {
        Some(WriteOptions {
            metadata_version: self.metadata_version()?,
            eligible_leader_replicas_enabled: self.eligible_leader_replicas_enabled(),
        })
    }

    /// The records that rebuild this image, in Kafka's snapshot order
    /// (`MetadataImage.write`): features (metadata.version first), cluster,
    /// topics, configs, client quotas, producer ids, ACLs, SCRAM, delegation
    /// tokens; each at the version the metadata.version selects.
    pub fn to_records(&self) -> Result<Vec<MetadataRecord>, WriteError> {
        let mut out = Vec::new();
        self.write_to(&mut out)?;
        Ok(out)
    }

    /// [`MetadataImage::to_records`], framed. Each record is encoded as it
    /// is written, into a few large shared buffers: a snapshot of a big
    /// image never holds its records as structures, nor one allocation per
    /// record, so the memory it needs is about the snapshot's size and goes
    /// back to the allocator in large pieces.
    pub fn to_values(&self) -> Result<Vec<Bytes>, WriteError> {
        let mut sink = EncodingSink::default();
        self.write_to(&mut sink)?;
        sink.finish()
    }

    fn write_to(&self, out: &mut impl RecordSink) -> Result<(), WriteError> {
        if let Some(e) = self.unwritable() {
            return Err(e);
        }
        let options = self.write_options().ok_or(WriteError::NoMetadataVersion)?;
        self.features.write(&options, out);
        self.cluster.write(&options, out)?;
        self.topics.write(&options, out)?;
        self.configs.write(&options, out)?;
        self.client_quotas.write(&options, out)?;
        self.producer_ids.write(&options, out)?;
        self.acls.write(&options, out)?;
        self.scram.write(&options, out)?;
        self.delegation_tokens.write(&options, out)?;
        Ok(())
    }

    /// Rebuilds an image from snapshot records.
    pub fn from_records<'a, I>(records: I) -> Result<MetadataImage, ReplayError>
    where
        I: IntoIterator<Item = &'a MetadataRecord>,
    {
        let mut image = MetadataImage::new();
        for r in records {
            image.replay(r)?;
        }
        Ok(image)
    }

    /// Rebuilds an image from a snapshot's framed record values; records not
    /// understood are noted, as in the log. `last_offset` is the snapshot's
    /// last contained offset.
    pub fn from_snapshot_values(
        values: Vec<Bytes>,
        last_offset: i64,
    ) -> Result<MetadataImage, ReplayError> {
        let mut image = MetadataImage::new();
        for value in values {
            image.replay_value(value, -1)?;
        }
        if image.transaction.is_some() {
            return Err(ReplayError::Invalid(
                "a snapshot ends inside a metadata transaction".into(),
            ));
        }
        image.last_offset = last_offset;
        // Kafka replays a snapshot's records at its last contained offset.
        image.cluster.set_unknown_registration_offsets(last_offset);
        Ok(image)
    }
}
