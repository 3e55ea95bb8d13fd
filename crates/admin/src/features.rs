//! Feature flags: `metadata.version` levels and names, the features a Kafka
//! 4.4 release version implies, and the types of DescribeFeatures and
//! UpdateFeatures.

use std::collections::BTreeMap;

/// The name of the metadata version feature.
pub const METADATA_VERSION: &str = "metadata.version";

/// A `metadata.version` level with its release name (e.g. level 33 = `4.4-IV2`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct MetadataVersion {
    /// The feature level.
    pub level: i16,
    /// The release, e.g. `4.4`.
    pub release: &'static str,
    /// The internal version within the release, e.g. `IV2`.
    pub sub_version: &'static str,
}

macro_rules! mv {
    ($level:literal, $release:literal, $sub:literal) => {
        MetadataVersion {
            level: $level,
            release: $release,
            sub_version: $sub,
        }
    };
}

impl MetadataVersion {
    /// Every level Kafka 4.4 knows, oldest first (the last one, `4.5-IV0`,
    /// is not production-ready).
    pub const ALL: &'static [MetadataVersion] = &[
        mv!(7, "3.3", "IV3"),
        mv!(8, "3.4", "IV0"),
        mv!(9, "3.5", "IV0"),
        mv!(10, "3.5", "IV1"),
        mv!(11, "3.5", "IV2"),
        mv!(12, "3.6", "IV0"),
        mv!(13, "3.6", "IV1"),
        mv!(14, "3.6", "IV2"),
        mv!(15, "3.7", "IV0"),
        mv!(16, "3.7", "IV1"),
        mv!(17, "3.7", "IV2"),
        mv!(18, "3.7", "IV3"),
        mv!(19, "3.7", "IV4"),
        mv!(20, "3.8", "IV0"),
        mv!(21, "3.9", "IV0"),
        mv!(22, "4.0", "IV0"),
        mv!(23, "4.0", "IV1"),
        mv!(24, "4.0", "IV2"),
        mv!(25, "4.0", "IV3"),
        mv!(26, "4.1", "IV0"),
        mv!(27, "4.1", "IV1"),
        mv!(28, "4.2", "IV0"),
        mv!(29, "4.2", "IV1"),
        mv!(30, "4.3", "IV0"),
        mv!(31, "4.4", "IV0"),
        mv!(32, "4.4", "IV1"),
        mv!(33, "4.4", "IV2"),
        mv!(34, "4.5", "IV0"),
    ];

    /// The oldest level (`3.3-IV3`).
    pub const MINIMUM: MetadataVersion = mv!(7, "3.3", "IV3");
    /// The newest production level of the Kafka 4.4.0 release (`4.4-IV2`).
    pub const LATEST_PRODUCTION: MetadataVersion = mv!(33, "4.4", "IV2");
    /// The newest level, not production-ready (`4.5-IV0`): controllers
    /// accept it only with `unstable.feature.versions.enable=true`.
    pub const LATEST_TESTING: MetadataVersion = mv!(34, "4.5", "IV0");
    /// The first level with controller registrations (KIP-919).
    pub const IBP_3_7_IV0: MetadataVersion = mv!(15, "3.7", "IV0");
    /// The first level with controller unregistration (KIP-1312).
    pub const IBP_4_4_IV2: MetadataVersion = mv!(33, "4.4", "IV2");

    /// The version string, e.g. `4.4-IV2`.
    pub fn version(&self) -> String {
        format!("{}-{}", self.release, self.sub_version)
    }

    /// The metadata version with feature level `level`.
    pub fn from_level(level: i16) -> Option<MetadataVersion> {
        Self::ALL.iter().copied().find(|v| v.level == level)
    }

    /// Parses `3.8`, `3.8.x`, `3.8.0` or `3.8-IV0`, as Kafka's
    /// `MetadataVersion.fromVersionString(s, false)`: a bare release selects
    /// its newest internal version; anything after the second dot is
    /// ignored; levels that are not production-ready are refused.
    pub fn from_version_string(s: &str) -> Result<MetadataVersion, String> {
        Self::parse_version_string(s, false)
    }

    /// [`MetadataVersion::from_version_string`] that also accepts levels
    /// that are not production-ready when `unstable` is set (Kafka's
    /// `fromVersionString(s, true)`, which `kafka-features` uses).
    pub fn parse_version_string(s: &str, unstable: bool) -> Result<MetadataVersion, String> {
        let last = if unstable {
            Self::LATEST_TESTING
        } else {
            Self::LATEST_PRODUCTION
        };
        let key = {
            let parts: Vec<&str> = s.split('.').collect();
            if parts.len() <= 2 {
                s.to_owned()
            } else {
                parts[..2].join(".")
            }
        };
        let found = if key.contains('-') {
            Self::ALL.iter().find(|v| v.version() == key)
        } else {
            Self::ALL.iter().rev().find(|v| v.release == key)
        };
        match found {
            Some(v) if *v <= last => Ok(*v),
            _ => Err(format!(
                "Unknown metadata.version '{s}'. Supported metadata.version are: {}",
                Self::ALL
                    .iter()
                    .filter(|v| **v <= last)
                    .map(MetadataVersion::version)
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
        }
    }

    /// Renders a level of `feature` as Kafka's tools do: metadata.version
    /// levels as their version string (`UNKNOWN <n>` for unknown levels),
    /// other features as the number.
    pub fn level_to_string(feature: &str, level: i16) -> String {
        if feature == METADATA_VERSION {
            match Self::from_level(level) {
                Some(v) => v.version(),
                None => format!("UNKNOWN {level}"),
            }
        } else {
            level.to_string()
        }
    }
}

/// The production features of Kafka 4.4 other than `metadata.version`, with
/// the metadata version from which each level is the default:
/// `(feature, [(level, first metadata.version level)])`.
const FEATURE_DEFAULTS: &[(&str, &[(i16, i16)])] = &[
    ("kraft.version", &[(1, 21)]),
    ("transaction.version", &[(2, 24)]),
    ("group.version", &[(1, 22)]),
    ("eligible.leader.replicas.version", &[(1, 26)]),
    ("share.version", &[(1, 28), (2, 31)]),
    ("streams.version", &[(1, 29)]),
];

/// The feature levels a release version implies (Kafka's
/// `Feature.defaultLevel`), in Kafka's order, `metadata.version` excluded.
pub fn default_feature_levels(mv: MetadataVersion) -> Vec<(&'static str, i16)> {
    FEATURE_DEFAULTS
        .iter()
        .map(|(name, levels)| {
            let level = levels
                .iter()
                .filter(|(_, from)| mv.level >= *from)
                .map(|(l, _)| *l)
                .max()
                .unwrap_or(0);
            (*name, level)
        })
        .collect()
}

/// A supported range of a feature (from a node's ApiVersions response).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SupportedVersionRange {
    /// Lowest supported level.
    pub min_version: i16,
    /// Highest supported level.
    pub max_version: i16,
}

/// A finalized feature level (from a node's ApiVersions response).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FinalizedVersionRange {
    /// Lowest finalized level (Kafka sends min = max).
    pub min_version_level: i16,
    /// The finalized level.
    pub max_version_level: i16,
}

/// What DescribeFeatures reports (Kafka's `FeatureMetadata`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct FeatureMetadata {
    /// Finalized features by name (only non-zero levels are listed by Kafka).
    pub finalized_features: BTreeMap<String, FinalizedVersionRange>,
    /// Epoch of the finalized features, if known.
    pub finalized_features_epoch: Option<i64>,
    /// Features the node supports, by name.
    pub supported_features: BTreeMap<String, SupportedVersionRange>,
}

/// How a feature level may change (`FeatureUpdate.UpgradeType`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UpgradeType {
    /// Only upgrades are allowed.
    Upgrade,
    /// Downgrades that lose no metadata.
    SafeDowngrade,
    /// Downgrades that may lose metadata.
    UnsafeDowngrade,
}

impl UpgradeType {
    /// The wire code (1, 2, 3).
    pub fn code(self) -> i8 {
        match self {
            UpgradeType::Upgrade => 1,
            UpgradeType::SafeDowngrade => 2,
            UpgradeType::UnsafeDowngrade => 3,
        }
    }
}

/// One requested feature change.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FeatureUpdate {
    /// The target level (0 disables the feature).
    pub max_version_level: i16,
    /// What kind of change is allowed.
    pub upgrade_type: UpgradeType,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_strings() {
        assert_eq!(
            MetadataVersion::from_version_string("4.4-IV2").map(|v| v.level),
            Ok(33)
        );
        assert_eq!(
            MetadataVersion::from_version_string("3.7").map(|v| v.level),
            Ok(19)
        );
        assert_eq!(
            MetadataVersion::from_version_string("3.9.1").map(|v| v.level),
            Ok(21)
        );
        let err = MetadataVersion::from_version_string("9.9").expect_err("fails");
        assert!(err.starts_with(
            "Unknown metadata.version '9.9'. Supported metadata.version are: 3.3-IV3, 3.4-IV0,"
        ));
        assert!(err.ends_with("4.4-IV1, 4.4-IV2"));
        assert!(MetadataVersion::from_version_string("4.5-IV0").is_err());
        assert_eq!(
            MetadataVersion::parse_version_string("4.5-IV0", true).map(|v| v.level),
            Ok(34)
        );
        let err = MetadataVersion::parse_version_string("9.9", true).expect_err("fails");
        assert!(err.ends_with("4.4-IV2, 4.5-IV0"), "{err}");
        assert_eq!(
            MetadataVersion::level_to_string("metadata.version", 34),
            "4.5-IV0"
        );
        assert_eq!(
            MetadataVersion::level_to_string("metadata.version", 21),
            "3.9-IV0"
        );
        assert_eq!(
            MetadataVersion::level_to_string("metadata.version", 99),
            "UNKNOWN 99"
        );
        assert_eq!(MetadataVersion::level_to_string("kraft.version", 1), "1");
        for w in MetadataVersion::ALL.windows(2) {
            assert_eq!(w[0].level + 1, w[1].level);
        }
    }

    #[test]
    fn defaults_match_kafka_version_mapping() {
        // `kafka-features version-mapping --release-version X` of Kafka 4.4.0.
        let at = |v: &str| {
            default_feature_levels(MetadataVersion::from_version_string(v).expect("known"))
                .iter()
                .map(|(_, l)| *l)
                .collect::<Vec<_>>()
        };
        assert_eq!(at("3.8-IV0"), [0, 0, 0, 0, 0, 0]);
        assert_eq!(at("3.9-IV0"), [1, 0, 0, 0, 0, 0]);
        assert_eq!(at("4.0-IV2"), [1, 2, 1, 0, 0, 0]);
        assert_eq!(at("4.2-IV0"), [1, 2, 1, 1, 1, 0]);
        assert_eq!(at("4.4-IV2"), [1, 2, 1, 1, 2, 1]);
    }
}
