//! The controller state machine: committed metadata records replayed into a
//! [`ClusterImage`] (finalized features and controller registrations).
//!
//! Records arrive as framed metadata record values (Kafka's `MetadataRecordSerde`:
//! `uvarint frameVersion=1, uvarint type, uvarint version, body`).
//! [`MetadataRecord::decode`] understands the records a KRaft-only
//! controller acts on; every other type decodes to
//! [`MetadataRecord::Unknown`], which replay skips with a warning.
//!
//! The image serialises to a list of records ([`ClusterImage::to_records`],
//! in Kafka's snapshot order: metadata.version first, the other features,
//! then one RegisterControllerRecord per controller) and loads back from one
//! ([`ClusterImage::from_records`]), which is what raft snapshots need.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, PoisonError, RwLock, RwLockReadGuard};

use bytes::{Buf, Bytes};
use kraft_protocol::messages::feature_level_record::FeatureLevelRecord;
use kraft_protocol::messages::register_controller_record::{
    ControllerEndpoint, ControllerFeature, RegisterControllerRecord,
};
use kraft_protocol::messages::unregister_controller_record::UnregisterControllerRecord;
use kraft_protocol::records::{decode_metadata_record_header, encode_metadata_record_header};
use kraft_protocol::{DecodeError, Message, Record, Uuid};

use crate::features::{MetadataVersion, VersionRange, KRAFT_VERSION, METADATA_VERSION};
use crate::java::uuid_to_text;

/// Record type id of `NoOpRecord` (no fields; written by the kraft.version
/// upgrade path so there is an offset to wait on).
pub const NO_OP_RECORD_TYPE: i16 = 20;

/// A committed metadata record, decoded.
#[derive(Debug, Clone, PartialEq)]
pub enum MetadataRecord {
    /// `FeatureLevelRecord` (12).
    FeatureLevel(FeatureLevelRecord),
    /// `RegisterControllerRecord` (27).
    RegisterController(RegisterControllerRecord),
    /// `UnregisterControllerRecord` (29).
    UnregisterController(UnregisterControllerRecord),
    /// `NoOpRecord` (20).
    NoOp,
    /// Any other record type (brokers, topics, ACLs, ...): not used by a
    /// KRaft-only controller and skipped on replay.
    Unknown {
        /// The record type id.
        record_type: i16,
        /// The record version.
        version: i16,
    },
}

fn decode_body<M: Message>(mut body: Bytes, version: i16) -> Result<M, DecodeError> {
    if !M::is_valid_version(version) {
        return Err(DecodeError::UnsupportedVersion {
            message: M::NAME,
            version,
        });
    }
    let value = M::decode(&mut body, version)?;
    if body.has_remaining() {
        return Err(DecodeError::TrailingBytes(body.remaining()));
    }
    Ok(value)
}

fn encode_framed<M: Record>(m: &M, out: &mut Vec<u8>) {
    encode_metadata_record_header(out, M::RECORD_TYPE, 0);
    // Version 0 of these records has no fields that can fail to encode
    // (strings are bounded by the decoder or by the handlers).
    if let Err(e) = m.encode(out, 0) {
        tracing::error!(record = M::NAME, error = %e, "metadata record failed to encode");
    }
}

impl MetadataRecord {
    /// Decodes a framed metadata record value. Record types this crate does
    /// not act on decode to [`MetadataRecord::Unknown`]; a known type at an
    /// unknown version, a bad frame or a malformed body is an error.
    pub fn decode(mut value: Bytes) -> Result<MetadataRecord, DecodeError> {
        let header = decode_metadata_record_header(&mut value)?;
        Ok(match header.api_key {
            FeatureLevelRecord::RECORD_TYPE => {
                MetadataRecord::FeatureLevel(decode_body(value, header.version)?)
            }
            RegisterControllerRecord::RECORD_TYPE => {
                MetadataRecord::RegisterController(decode_body(value, header.version)?)
            }
            UnregisterControllerRecord::RECORD_TYPE => {
                MetadataRecord::UnregisterController(decode_body(value, header.version)?)
            }
            NO_OP_RECORD_TYPE => {
                if header.version != 0 {
                    return Err(DecodeError::UnsupportedVersion {
                        message: "NoOpRecord",
                        version: header.version,
                    });
                }
                // An empty flexible struct: just its tagged-field section.
                let count = kraft_protocol::wire::get_tag_count(&mut value)?;
                for _ in 0..count {
                    kraft_protocol::wire::get_tagged_field(&mut value)?;
                }
                if value.has_remaining() {
                    return Err(DecodeError::TrailingBytes(value.remaining()));
                }
                MetadataRecord::NoOp
            }
            other => MetadataRecord::Unknown {
                record_type: other,
                version: header.version,
            },
        })
    }

    /// The framed record value (frame version 1, record version 0).
    /// [`MetadataRecord::Unknown`] has no body and encodes to nothing.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::new();
        match self {
            MetadataRecord::FeatureLevel(r) => encode_framed(r, &mut out),
            MetadataRecord::RegisterController(r) => encode_framed(r, &mut out),
            MetadataRecord::UnregisterController(r) => encode_framed(r, &mut out),
            MetadataRecord::NoOp => {
                encode_metadata_record_header(&mut out, NO_OP_RECORD_TYPE, 0);
                out.push(0);
            }
            MetadataRecord::Unknown { .. } => {}
        }
        out
    }

    /// The record type id.
    pub fn record_type(&self) -> i16 {
        match self {
            MetadataRecord::FeatureLevel(_) => FeatureLevelRecord::RECORD_TYPE,
            MetadataRecord::RegisterController(_) => RegisterControllerRecord::RECORD_TYPE,
            MetadataRecord::UnregisterController(_) => UnregisterControllerRecord::RECORD_TYPE,
            MetadataRecord::NoOp => NO_OP_RECORD_TYPE,
            MetadataRecord::Unknown { record_type, .. } => *record_type,
        }
    }

    /// A `FeatureLevelRecord`.
    pub fn feature_level(name: &str, level: i16) -> MetadataRecord {
        MetadataRecord::FeatureLevel(FeatureLevelRecord {
            name: name.into(),
            feature_level: level,
            ..Default::default()
        })
    }
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
}

/// One endpoint of a controller registration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegistrationEndpoint {
    /// Listener name.
    pub name: String,
    /// Advertised host.
    pub host: String,
    /// Advertised port.
    pub port: u16,
    /// Security protocol id (0 PLAINTEXT, 1 SSL, 2 SASL_PLAINTEXT, 3 SASL_SSL).
    pub security_protocol: i16,
}

/// A controller's registration (from its RegisterControllerRecord).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ControllerRegistration {
    /// Node id.
    pub id: i32,
    /// Random id of the registering process incarnation.
    pub incarnation_id: Uuid,
    /// Always false in Kafka 4.x.
    pub zk_migration_ready: bool,
    /// Advertised controller listeners, in registration order.
    pub endpoints: Vec<RegistrationEndpoint>,
    /// Supported feature ranges, in registration order.
    pub supported_features: Vec<(String, VersionRange)>,
}

impl ControllerRegistration {
    /// The registration a RegisterControllerRecord describes.
    pub fn from_record(r: &RegisterControllerRecord) -> Self {
        ControllerRegistration {
            id: r.controller_id,
            incarnation_id: r.incarnation_id,
            zk_migration_ready: r.zk_migration_ready,
            endpoints: r
                .end_points
                .iter()
                .map(|e| RegistrationEndpoint {
                    name: e.name.to_string(),
                    host: e.host.to_string(),
                    port: e.port,
                    security_protocol: e.security_protocol,
                })
                .collect(),
            supported_features: r
                .features
                .iter()
                .map(|f| {
                    (
                        f.name.to_string(),
                        VersionRange::new(f.min_supported_version, f.max_supported_version),
                    )
                })
                .collect(),
        }
    }

    /// The RegisterControllerRecord (v0) for this registration.
    pub fn to_record(&self) -> RegisterControllerRecord {
        RegisterControllerRecord {
            controller_id: self.id,
            incarnation_id: self.incarnation_id,
            zk_migration_ready: self.zk_migration_ready,
            end_points: self
                .endpoints
                .iter()
                .map(|e| ControllerEndpoint {
                    name: e.name.as_str().into(),
                    host: e.host.as_str().into(),
                    port: e.port,
                    security_protocol: e.security_protocol,
                    ..Default::default()
                })
                .collect(),
            features: self
                .supported_features
                .iter()
                .map(|(name, r)| ControllerFeature {
                    name: name.as_str().into(),
                    min_supported_version: r.min,
                    max_supported_version: r.max,
                    ..Default::default()
                })
                .collect(),
            ..Default::default()
        }
    }

    /// The supported range of `feature`; `0-0` (disabled) when not listed.
    pub fn supported_range(&self, feature: &str) -> VersionRange {
        self.supported_features
            .iter()
            .find(|(n, _)| n == feature)
            .map_or(VersionRange::DISABLED, |(_, r)| *r)
    }

    /// The endpoint on listener `name`.
    pub fn endpoint(&self, name: &str) -> Option<&RegistrationEndpoint> {
        self.endpoints.iter().find(|e| e.name == name)
    }
}

/// The replayed cluster metadata a KRaft controller keeps.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ClusterImage {
    metadata_version: Option<MetadataVersion>,
    /// Finalized levels (> 0) of features other than metadata.version and
    /// kraft.version, in the order they were first set.
    features: Vec<(String, i16)>,
    kraft_version: i16,
    controllers: BTreeMap<i32, ControllerRegistration>,
    last_offset: i64,
}

impl ClusterImage {
    /// An empty image: no metadata.version, no registrations, offset -1.
    pub fn new() -> Self {
        ClusterImage {
            last_offset: -1,
            ..Default::default()
        }
    }

    /// The finalized metadata.version, once a FeatureLevelRecord set it.
    pub fn metadata_version(&self) -> Option<MetadataVersion> {
        self.metadata_version
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
            METADATA_VERSION => self
                .metadata_version
                .map_or(0, MetadataVersion::feature_level),
            KRAFT_VERSION => self.kraft_version,
            _ => self
                .features
                .iter()
                .find(|(n, _)| n == name)
                .map_or(0, |(_, l)| *l),
        }
    }

    /// Finalized levels (> 0) of the features other than metadata.version and
    /// kraft.version, in the order they were first set.
    pub fn finalized_features(&self) -> &[(String, i16)] {
        &self.features
    }

    /// The registration of controller `id`.
    pub fn controller(&self, id: i32) -> Option<&ControllerRegistration> {
        self.controllers.get(&id)
    }

    /// All registrations, by id.
    pub fn controllers(&self) -> impl Iterator<Item = &ControllerRegistration> {
        self.controllers.values()
    }

    /// Offset of the last record applied (-1 if none). Kafka reports it as
    /// the `FinalizedFeaturesEpoch` of ApiVersions responses.
    pub fn last_offset(&self) -> i64 {
        self.last_offset
    }

    /// Sets the offset of the last applied record (after a batch or snapshot).
    pub fn set_last_offset(&mut self, offset: i64) {
        self.last_offset = offset;
    }

    /// Applies one record. Unknown record types are skipped with a warning.
    pub fn replay(&mut self, record: &MetadataRecord) -> Result<(), ReplayError> {
        match record {
            MetadataRecord::FeatureLevel(r) => {
                self.replay_feature_level(r.name.as_str(), r.feature_level)
            }
            MetadataRecord::RegisterController(r) => {
                let registration = ControllerRegistration::from_record(r);
                match self.controllers.insert(r.controller_id, registration) {
                    Some(prev) => tracing::info!(
                        controller_id = r.controller_id,
                        incarnation_id = %uuid_to_text(&r.incarnation_id),
                        previous_incarnation_id = %uuid_to_text(&prev.incarnation_id),
                        "replayed RegisterControllerRecord"
                    ),
                    None => tracing::info!(
                        controller_id = r.controller_id,
                        incarnation_id = %uuid_to_text(&r.incarnation_id),
                        "replayed RegisterControllerRecord"
                    ),
                }
                Ok(())
            }
            MetadataRecord::UnregisterController(r) => {
                if self.controllers.remove(&r.controller_id).is_none() {
                    tracing::warn!(
                        controller_id = r.controller_id,
                        "replayed UnregisterControllerRecord for a controller that is not registered"
                    );
                } else {
                    tracing::info!(
                        controller_id = r.controller_id,
                        "replayed UnregisterControllerRecord"
                    );
                }
                Ok(())
            }
            MetadataRecord::NoOp => Ok(()),
            MetadataRecord::Unknown {
                record_type,
                version,
            } => {
                tracing::warn!(
                    record_type,
                    version,
                    "skipping metadata record of a type a KRaft-only controller does not use"
                );
                Ok(())
            }
        }
    }

    fn replay_feature_level(&mut self, name: &str, level: i16) -> Result<(), ReplayError> {
        match name {
            METADATA_VERSION => {
                let mv = MetadataVersion::from_feature_level(level).ok_or_else(|| {
                    ReplayError::UnsupportedMetadataVersion(MetadataVersion::unknown_level_message(
                        level,
                    ))
                })?;
                self.metadata_version = Some(mv);
                tracing::info!(metadata_version = %mv, "replayed FeatureLevelRecord setting metadata.version");
            }
            // KAFKA-18979: kraft.version lives in KRaftVersionRecord; a
            // FeatureLevelRecord for it is ignored.
            KRAFT_VERSION => {}
            _ => {
                if level == 0 {
                    self.features.retain(|(n, _)| n != name);
                } else if let Some(e) = self.features.iter_mut().find(|(n, _)| n == name) {
                    e.1 = level;
                } else {
                    self.features.push((name.to_string(), level));
                }
                tracing::info!(feature = name, level, "replayed FeatureLevelRecord");
            }
        }
        Ok(())
    }

    /// Decodes and applies one framed record value read at `offset`.
    pub fn replay_value(&mut self, value: Bytes, offset: i64) -> Result<(), ReplayError> {
        let record = MetadataRecord::decode(value)
            .map_err(|source| ReplayError::Decode { offset, source })?;
        self.replay(&record)?;
        if offset > self.last_offset {
            self.last_offset = offset;
        }
        Ok(())
    }

    /// The records that rebuild this image, in Kafka's snapshot order:
    /// the metadata.version FeatureLevelRecord first, then the other
    /// finalized features, then a RegisterControllerRecord per controller
    /// (only when metadata.version supports controller registration).
    pub fn to_records(&self) -> Vec<MetadataRecord> {
        let mut out = Vec::new();
        let Some(mv) = self.metadata_version else {
            return out;
        };
        out.push(MetadataRecord::feature_level(
            METADATA_VERSION,
            mv.feature_level(),
        ));
        for (name, level) in &self.features {
            out.push(MetadataRecord::feature_level(name, *level));
        }
        if mv.is_controller_registration_supported() {
            for c in self.controllers.values() {
                out.push(MetadataRecord::RegisterController(c.to_record()));
            }
        } else if !self.controllers.is_empty() {
            tracing::warn!(
                metadata_version = %mv,
                "controller registrations cannot be written at this metadata.version and are dropped from the snapshot"
            );
        }
        out
    }

    /// Rebuilds an image from snapshot records.
    pub fn from_records<'a, I>(records: I) -> Result<ClusterImage, ReplayError>
    where
        I: IntoIterator<Item = &'a MetadataRecord>,
    {
        let mut image = ClusterImage::new();
        for r in records {
            image.replay(r)?;
        }
        Ok(image)
    }
}

/// The image shared between the raft driver (which applies committed
/// records) and the request handlers (which read it). Cloning shares it.
///
/// It also carries whether the image is **loaded**: a started controller's
/// image is empty until the committed part of its snapshot and log has been
/// replayed (Kafka's `MetadataLoader` has not published yet), and requests
/// answered from the image must not be answered from an image that is not
/// loaded. [`SharedImage::new`] and [`SharedImage::from_image`] are loaded
/// (they hold what they hold); [`SharedImage::unloaded`] is not, until
/// [`SharedImage::mark_loaded`].
#[derive(Debug, Clone)]
pub struct SharedImage {
    image: Arc<RwLock<ClusterImage>>,
    loaded: Arc<AtomicBool>,
}

impl Default for SharedImage {
    fn default() -> Self {
        SharedImage::new()
    }
}

impl SharedImage {
    /// A shared empty image, marked loaded.
    pub fn new() -> Self {
        SharedImage::from_image(ClusterImage::new())
    }

    /// Shares `image`, marked loaded.
    pub fn from_image(image: ClusterImage) -> Self {
        SharedImage {
            image: Arc::new(RwLock::new(image)),
            loaded: Arc::new(AtomicBool::new(true)),
        }
    }

    /// A shared empty image that is not loaded yet: what a controller
    /// starts with before it has replayed its committed snapshot and log.
    pub fn unloaded() -> Self {
        SharedImage {
            image: Arc::new(RwLock::new(ClusterImage::new())),
            loaded: Arc::new(AtomicBool::new(false)),
        }
    }

    /// Whether the image holds the committed state this node knew of when
    /// it started (see [`SharedImage::mark_loaded`]).
    pub fn is_loaded(&self) -> bool {
        self.loaded.load(Ordering::Acquire)
    }

    /// Marks the image loaded: everything committed up to the first high
    /// watermark the raft layer learned since start-up has been applied.
    /// It stays loaded from then on (a follower that trails the leader by a
    /// few records answers from its image, as a Kafka controller does).
    pub fn mark_loaded(&self) {
        self.loaded.store(true, Ordering::Release);
    }

    /// Read access. (A panic while the lock was held cannot leave the image
    /// half-updated in a way that matters more than losing it, so a
    /// poisoned lock is used as is.)
    pub fn read(&self) -> RwLockReadGuard<'_, ClusterImage> {
        self.image.read().unwrap_or_else(PoisonError::into_inner)
    }

    /// A copy of the current image.
    pub fn snapshot(&self) -> ClusterImage {
        self.read().clone()
    }

    /// Runs `f` with write access.
    pub fn update<R>(&self, f: impl FnOnce(&mut ClusterImage) -> R) -> R {
        let mut guard = self.image.write().unwrap_or_else(PoisonError::into_inner);
        f(&mut guard)
    }

    /// Applies committed records: `(offset, framed value)` pairs in log order.
    /// Stops at the first record that cannot be replayed.
    pub fn apply_committed<I>(&self, records: I) -> Result<(), ReplayError>
    where
        I: IntoIterator<Item = (i64, Bytes)>,
    {
        self.update(|image| {
            for (offset, value) in records {
                image.replay_value(value, offset)?;
            }
            Ok(())
        })
    }

    /// Replaces the image with one loaded from snapshot records whose last
    /// contained offset is `last_offset`.
    pub fn load_snapshot(
        &self,
        records: &[MetadataRecord],
        last_offset: i64,
        kraft_version: i16,
    ) -> Result<(), ReplayError> {
        let mut image = ClusterImage::from_records(records)?;
        image.set_last_offset(last_offset);
        image.set_kraft_version(kraft_version);
        self.update(|i| *i = image);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_an_unloaded_image_waits_for_mark_loaded_and_clones_share_it() {
        assert!(SharedImage::new().is_loaded());
        assert!(SharedImage::default().is_loaded());
        assert!(SharedImage::from_image(ClusterImage::new()).is_loaded());
        let image = SharedImage::unloaded();
        let clone = image.clone();
        assert!(!image.is_loaded() && !clone.is_loaded());
        clone.mark_loaded();
        assert!(image.is_loaded());
        clone.mark_loaded();
        assert!(image.is_loaded());
    }

    fn registration(id: i32, mv_max: i16) -> RegisterControllerRecord {
        RegisterControllerRecord {
            controller_id: id,
            incarnation_id: Uuid::from_u64_pair(1, id as u64 + 100),
            end_points: vec![ControllerEndpoint {
                name: "CONTROLLER".into(),
                host: format!("ctl-{id}").into(),
                port: 9093,
                security_protocol: 0,
                ..Default::default()
            }]
            .into(),
            features: vec![
                ControllerFeature {
                    name: "metadata.version".into(),
                    min_supported_version: 7,
                    max_supported_version: mv_max,
                    ..Default::default()
                },
                ControllerFeature {
                    name: "kraft.version".into(),
                    min_supported_version: 0,
                    max_supported_version: 1,
                    ..Default::default()
                },
            ]
            .into(),
            ..Default::default()
        }
    }

    #[test]
    fn unregister_record_bytes_match_the_spec() {
        // UnregisterControllerRecord for controller 5 (KIP-1312).
        let r = MetadataRecord::UnregisterController(UnregisterControllerRecord {
            controller_id: 5,
            ..Default::default()
        });
        assert_eq!(r.encode(), [0x01, 0x1d, 0x00, 0x00, 0x00, 0x00, 0x05, 0x00]);
        assert_eq!(MetadataRecord::decode(Bytes::from(r.encode())), Ok(r));
    }

    #[test]
    fn feature_level_record_bytes() {
        // As written into Kafka's bootstrap checkpoint: 01 0c 00 | 11 "metadata.version" 00 21 | 00
        let r = MetadataRecord::feature_level("metadata.version", 33);
        let mut expected = vec![0x01, 0x0c, 0x00, 0x11];
        expected.extend_from_slice(b"metadata.version");
        expected.extend_from_slice(&[0x00, 0x21, 0x00]);
        assert_eq!(r.encode(), expected);
        assert_eq!(MetadataRecord::NoOp.encode(), [0x01, 0x14, 0x00, 0x00]);
        assert_eq!(
            MetadataRecord::decode(Bytes::from_static(&[0x01, 0x14, 0x00, 0x00])),
            Ok(MetadataRecord::NoOp)
        );
    }

    #[test]
    fn unknown_types_decode_and_are_skipped() {
        // TopicRecord (2) v0 with some body: decoded as Unknown, replay skips it.
        let value = Bytes::from_static(&[0x01, 0x02, 0x00, 0x04, b'a', b'b', b'c', 0x00]);
        let rec = MetadataRecord::decode(value.clone()).expect("frame is fine");
        assert_eq!(
            rec,
            MetadataRecord::Unknown {
                record_type: 2,
                version: 0
            }
        );
        let mut image = ClusterImage::new();
        image.replay_value(value, 7).expect("skipped, not fatal");
        assert_eq!(image.last_offset(), 7);
        // a bad frame or a truncated known record is an error
        assert!(matches!(
            image.replay_value(Bytes::from_static(&[0x00, 0x0c, 0x00]), 8),
            Err(ReplayError::Decode { offset: 8, .. })
        ));
        assert!(MetadataRecord::decode(Bytes::from_static(&[0x01, 0x1d, 0x00, 0x00])).is_err());
        assert!(
            MetadataRecord::decode(Bytes::from_static(&[0x01, 0x1d, 0x01, 0, 0, 0, 5, 0])).is_err()
        );
    }

    #[test]
    fn replay_features_and_registrations() {
        let mut image = ClusterImage::new();
        assert_eq!(image.metadata_version(), None);
        let records = vec![
            MetadataRecord::feature_level("metadata.version", 30),
            MetadataRecord::feature_level("group.version", 1),
            MetadataRecord::feature_level("kraft.version", 1),
            MetadataRecord::feature_level("share.version", 1),
            MetadataRecord::RegisterController(registration(1, 33)),
            MetadataRecord::RegisterController(registration(2, 30)),
        ];
        for r in &records {
            image.replay(r).expect("replays");
        }
        assert_eq!(
            image.metadata_version(),
            Some(MetadataVersion::from_feature_level(30).expect("known"))
        );
        assert_eq!(image.feature_level("group.version"), 1);
        assert_eq!(
            image.feature_level("kraft.version"),
            0,
            "FeatureLevelRecord for kraft.version is ignored"
        );
        assert_eq!(image.controllers().count(), 2);
        assert_eq!(
            image
                .controller(2)
                .map(|c| c.supported_range("metadata.version")),
            Some(VersionRange::new(7, 30))
        );
        assert_eq!(
            image.controller(2).map(|c| c.supported_range("nope")),
            Some(VersionRange::DISABLED)
        );
        // level 0 removes a feature; re-registration replaces
        image
            .replay(&MetadataRecord::feature_level("group.version", 0))
            .expect("ok");
        assert_eq!(image.feature_level("group.version"), 0);
        image
            .replay(&MetadataRecord::RegisterController(registration(2, 33)))
            .expect("ok");
        assert_eq!(
            image
                .controller(2)
                .map(|c| c.supported_range("metadata.version").max),
            Some(33)
        );
        image
            .replay(&MetadataRecord::UnregisterController(
                UnregisterControllerRecord {
                    controller_id: 1,
                    ..Default::default()
                },
            ))
            .expect("ok");
        assert!(image.controller(1).is_none());
        // unregistering an unknown id is recorded as removed, not fatal
        image
            .replay(&MetadataRecord::UnregisterController(
                UnregisterControllerRecord {
                    controller_id: 42,
                    ..Default::default()
                },
            ))
            .expect("ok");
        assert!(matches!(
            image.replay(&MetadataRecord::feature_level("metadata.version", 99)),
            Err(ReplayError::UnsupportedMetadataVersion(m)) if m == "No MetadataVersion with feature level 99. Valid feature levels are from 7 to 34."
        ));
    }

    #[test]
    fn image_round_trips_through_records() {
        let mut image = ClusterImage::new();
        for r in [
            MetadataRecord::feature_level("metadata.version", 33),
            MetadataRecord::feature_level("transaction.version", 2),
            MetadataRecord::feature_level("group.version", 1),
            MetadataRecord::RegisterController(registration(3, 33)),
            MetadataRecord::RegisterController(registration(1, 33)),
        ] {
            image.replay(&r).expect("replays");
        }
        let records = image.to_records();
        assert_eq!(
            records[0],
            MetadataRecord::feature_level("metadata.version", 33)
        );
        assert_eq!(records.len(), 5);
        assert!(
            matches!(&records[3], MetadataRecord::RegisterController(r) if r.controller_id == 1)
        );
        // bytes round trip too
        let decoded: Vec<MetadataRecord> = records
            .iter()
            .map(|r| MetadataRecord::decode(Bytes::from(r.encode())).expect("decodes"))
            .collect();
        let back = ClusterImage::from_records(&decoded).expect("loads");
        assert_eq!(back.to_records(), records);
        assert_eq!(back.controller(3), image.controller(3));
        // registrations are dropped below 3.7-IV0
        let mut old = ClusterImage::new();
        old.replay(&MetadataRecord::feature_level("metadata.version", 14))
            .expect("ok");
        old.replay(&MetadataRecord::RegisterController(registration(1, 33)))
            .expect("ok");
        assert_eq!(old.to_records().len(), 1);
        assert!(ClusterImage::new().to_records().is_empty());
    }
}
