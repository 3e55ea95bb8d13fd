//! The finalized features (Kafka's `FeaturesImage` / `FeaturesDelta`).

use kraft_protocol::messages::feature_level_record::FeatureLevelRecord;

use super::{MetadataRecord, RecordSink, ReplayError, WriteOptions};
use crate::features::{MetadataVersion, KRAFT_VERSION, METADATA_VERSION};

/// metadata.version and the other finalized features. kraft.version is not
/// here: the raft layer carries it in its KRaftVersionRecord. Equality
/// ignores the order features were set in (Kafka's are a map).
#[derive(Debug, Clone, Default, Eq)]
pub struct FeaturesImage {
    metadata_version: Option<MetadataVersion>,
    /// Finalized levels (> 0) of the features other than metadata.version
    /// and kraft.version, in the order they were first set.
    finalized: Vec<(String, i16)>,
}

impl PartialEq for FeaturesImage {
    fn eq(&self, other: &Self) -> bool {
        let sorted = |f: &Self| {
            let mut v = f.finalized.clone();
            v.sort();
            v
        };
        self.metadata_version == other.metadata_version && sorted(self) == sorted(other)
    }
}

impl FeaturesImage {
    /// The finalized metadata.version, once a FeatureLevelRecord set it.
    pub fn metadata_version(&self) -> Option<MetadataVersion> {
        self.metadata_version
    }

    /// Finalized level of `name` other than kraft.version (0 when not set).
    pub fn level(&self, name: &str) -> i16 {
        match name {
            METADATA_VERSION => self
                .metadata_version
                .map_or(0, MetadataVersion::feature_level),
            _ => self
                .finalized
                .iter()
                .find(|(n, _)| n == name)
                .map_or(0, |(_, l)| *l),
        }
    }

    /// Finalized levels (> 0) of the features other than metadata.version
    /// and kraft.version, in the order they were first set.
    pub fn finalized(&self) -> &[(String, i16)] {
        &self.finalized
    }

    pub(super) fn replay(&mut self, r: &FeatureLevelRecord) -> Result<(), ReplayError> {
        let (name, level) = (r.name.as_str(), r.feature_level);
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
                    self.finalized.retain(|(n, _)| n != name);
                } else if let Some(e) = self.finalized.iter_mut().find(|(n, _)| n == name) {
                    e.1 = level;
                } else {
                    self.finalized.push((name.to_string(), level));
                }
                tracing::info!(feature = name, level, "replayed FeatureLevelRecord");
            }
        }
        Ok(())
    }

    /// metadata.version first (Kafka's snapshots start with it), then the
    /// other finalized features.
    pub(super) fn write(&self, options: &WriteOptions, out: &mut impl RecordSink) {
        out.push(MetadataRecord::feature_level(
            METADATA_VERSION,
            options.metadata_version.feature_level(),
        ));
        for (name, level) in &self.finalized {
            out.push(MetadataRecord::feature_level(name, *level));
        }
    }
}
