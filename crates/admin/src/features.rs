//! Feature flags: the types of DescribeFeatures and UpdateFeatures, and
//! (from `kraft-protocol`) the `metadata.version` levels and the features a
//! Kafka 4.4 release version implies.

use std::collections::BTreeMap;

pub use kraft_protocol::features::{default_feature_levels, MetadataVersion, METADATA_VERSION};

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
    /// The API versions the node answered with, in the order it sent them
    /// (Kafka's `NodeApiVersions`, which `kafka-cluster api-versions` prints).
    pub api_versions: Vec<ApiVersionRange>,
}

/// One API a node supports (an `ApiVersionsResponse` entry).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ApiVersionRange {
    /// The API key.
    pub api_key: i16,
    /// Lowest supported version.
    pub min_version: i16,
    /// Highest supported version.
    pub max_version: i16,
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
