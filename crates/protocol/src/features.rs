//! `metadata.version` levels and the other finalized features, as interface
//! facts of Apache Kafka 4.4.0 shared by the controller and the admin client (`MetadataVersion.java`, `Feature.java` and the
//! `*Version.java` feature enums; values checked against the released
//! `kafka-server-common-4.4.0.jar`).
//!
//! In the released 4.4.0 jars `4.4-IV2` (level 33) is the latest production
//! metadata.version and `4.5-IV0` (34) exists as the one unstable level. (The
//! 4.4 branch snapshot the spec digest was written from still had `4.3-IV0`
//! as latest production; the release moved it.)

use std::collections::BTreeMap;
use std::fmt;

/// The feature name of the metadata version.
pub const METADATA_VERSION: &str = "metadata.version";
/// The feature name of the KRaft protocol version.
pub const KRAFT_VERSION: &str = "kraft.version";

/// One `metadata.version` level (Kafka's `MetadataVersion` enum constant).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct MetadataVersion(i16);

/// (level, release, sub-version, did the metadata format change).
const TABLE: &[(i16, &str, &str, bool)] = &[
    (7, "3.3", "IV3", true),
    (8, "3.4", "IV0", true),
    (9, "3.5", "IV0", false),
    (10, "3.5", "IV1", false),
    (11, "3.5", "IV2", true),
    (12, "3.6", "IV0", false),
    (13, "3.6", "IV1", true),
    (14, "3.6", "IV2", true),
    (15, "3.7", "IV0", true),
    (16, "3.7", "IV1", false),
    (17, "3.7", "IV2", true),
    (18, "3.7", "IV3", false),
    (19, "3.7", "IV4", false),
    (20, "3.8", "IV0", false),
    (21, "3.9", "IV0", false),
    (22, "4.0", "IV0", false),
    (23, "4.0", "IV1", true),
    (24, "4.0", "IV2", false),
    (25, "4.0", "IV3", false),
    (26, "4.1", "IV0", false),
    (27, "4.1", "IV1", false),
    (28, "4.2", "IV0", false),
    (29, "4.2", "IV1", false),
    (30, "4.3", "IV0", true),
    (31, "4.4", "IV0", false),
    (32, "4.4", "IV1", true),
    (33, "4.4", "IV2", true),
    (34, "4.5", "IV0", false),
];

impl MetadataVersion {
    /// `3.3-IV3`, the oldest level KRaft supports (`MINIMUM_VERSION`).
    pub const MINIMUM: MetadataVersion = MetadataVersion(7);
    /// `3.5-IV2`: SCRAM records.
    pub const IBP_3_5_IV2: MetadataVersion = MetadataVersion(11);
    /// `3.7-IV0`: controller registration (KIP-919), direct-to-controller DescribeCluster.
    pub const IBP_3_7_IV0: MetadataVersion = MetadataVersion(15);
    /// `3.9-IV0`: the release of dynamic quorums (KIP-853).
    pub const IBP_3_9_IV0: MetadataVersion = MetadataVersion(21);
    /// `4.4-IV1`: ACL hosts may be CIDR ranges (KIP-1276).
    pub const IBP_4_4_IV1: MetadataVersion = MetadataVersion(32);
    /// `4.4-IV2`: controller unregistration (KIP-1312).
    pub const IBP_4_4_IV2: MetadataVersion = MetadataVersion(33);
    /// The latest production level of Kafka 4.4.0 (`LATEST_PRODUCTION`).
    pub const LATEST_PRODUCTION: MetadataVersion = MetadataVersion(33);
    /// The highest level known, production or not (`latestTesting()`).
    pub const LATEST_TESTING: MetadataVersion = MetadataVersion(34);

    /// Every level, oldest first.
    pub fn all() -> impl Iterator<Item = MetadataVersion> {
        TABLE.iter().map(|e| MetadataVersion(e.0))
    }

    /// The level with feature level `level`, if it exists.
    pub fn from_feature_level(level: i16) -> Option<MetadataVersion> {
        TABLE
            .iter()
            .any(|e| e.0 == level)
            .then_some(MetadataVersion(level))
    }

    /// `MetadataVersion.fromFeatureLevel`'s error text for an unknown level.
    pub fn unknown_level_message(level: i16) -> String {
        format!(
            "No MetadataVersion with feature level {level}. Valid feature levels are from {} to {}.",
            Self::MINIMUM.0,
            Self::LATEST_TESTING.0
        )
    }

    /// Parses a release version as `MetadataVersion.fromVersionString` does:
    /// `3.8-IV0`, or a release `3.8` / `3.8.1` / `3.8.x` meaning the latest
    /// production internal version of that release. Unstable levels are only
    /// accepted when `unstable_enabled`. The error text is Kafka's.
    pub fn from_version_string(s: &str, unstable_enabled: bool) -> Result<MetadataVersion, String> {
        let segments: Vec<&str> = s.split('.').collect();
        let key = if segments.len() <= 2 {
            s.to_string()
        } else {
            segments[..2].join(".")
        };
        let found = TABLE
            .iter()
            .find(|e| format!("{}-{}", e.1, e.2) == key)
            .map(|e| MetadataVersion(e.0))
            .or_else(|| {
                // A bare release maps to its latest *production* internal version.
                TABLE
                    .iter()
                    .filter(|e| e.1 == key && MetadataVersion(e.0).is_production())
                    .map(|e| MetadataVersion(e.0))
                    .max()
            });
        match found {
            Some(mv) if unstable_enabled || mv.is_production() => Ok(mv),
            _ => {
                let last = if unstable_enabled {
                    Self::LATEST_TESTING
                } else {
                    Self::LATEST_PRODUCTION
                };
                let list: Vec<String> = Self::all()
                    .filter(|m| *m <= last)
                    .map(|m| m.to_string())
                    .collect();
                Err(format!(
                    "Unknown metadata.version '{s}'. Supported metadata.version are: {}",
                    list.join(", ")
                ))
            }
        }
    }

    fn entry(self) -> (i16, &'static str, &'static str, bool) {
        TABLE
            .iter()
            .copied()
            .find(|e| e.0 == self.0)
            .unwrap_or((self.0, "?", "?", true))
    }

    /// The feature level.
    pub fn feature_level(self) -> i16 {
        self.0
    }

    /// The release (`3.7`).
    pub fn release(self) -> &'static str {
        self.entry().1
    }

    /// Whether the level is production-ready in Kafka 4.4.0.
    pub fn is_production(self) -> bool {
        self <= Self::LATEST_PRODUCTION
    }

    /// Whether the metadata format changed at this level (Kafka's
    /// `didMetadataChange`): downgrading across such a level may lose data.
    pub fn did_metadata_change(self) -> bool {
        self.entry().3
    }

    /// Whether controllers register themselves at this level (3.7-IV0+).
    pub fn is_controller_registration_supported(self) -> bool {
        self >= Self::IBP_3_7_IV0
    }

    /// Whether UnregisterControllerRecord may be written (4.4-IV2+).
    pub fn is_controller_unregistration_supported(self) -> bool {
        self >= Self::IBP_4_4_IV2
    }

    /// Whether SCRAM records are supported (3.5-IV2+).
    pub fn is_scram_supported(self) -> bool {
        self >= Self::IBP_3_5_IV2
    }

    /// Whether a ZooKeeper migration could be recorded (3.4-IV0+).
    pub fn is_migration_supported(self) -> bool {
        self.0 >= 8
    }

    /// Whether metadata transactions (KIP-866) may be written (3.6-IV1+).
    pub fn is_metadata_transaction_supported(self) -> bool {
        self.0 >= 13
    }

    /// Whether delegation token records are supported (3.6-IV2+).
    pub fn is_delegation_token_supported(self) -> bool {
        self.0 >= 14
    }

    /// Whether replicas are assigned to log directories (KIP-858, 3.7-IV2+).
    pub fn is_directory_assignment_supported(self) -> bool {
        self.0 >= 17
    }

    /// Whether eligible leader replicas can be recorded (KIP-966, 4.0-IV1+).
    pub fn is_elr_supported(self) -> bool {
        self.0 >= 23
    }

    /// Whether brokers may register cordoned log directories (4.3-IV0+).
    pub fn is_cordoned_log_dirs_supported(self) -> bool {
        self.0 >= 30
    }

    /// Whether ACLs may name CIDR host ranges (4.4-IV1+).
    pub fn is_cidr_acl_supported(self) -> bool {
        self >= Self::IBP_4_4_IV1
    }

    /// The RegisterBrokerRecord version written at this level (Kafka's
    /// `registerBrokerRecordVersion`).
    pub fn register_broker_record_version(self) -> i16 {
        if self.is_cordoned_log_dirs_supported() {
            4
        } else if self.is_directory_assignment_supported() {
            3
        } else if self.is_migration_supported() {
            2
        } else {
            1
        }
    }

    /// The PartitionRecord version written at this level (Kafka's
    /// `partitionRecordVersion`).
    pub fn partition_record_version(self) -> i16 {
        if self.is_elr_supported() {
            2
        } else if self.is_directory_assignment_supported() {
            1
        } else {
            0
        }
    }

    /// The PartitionChangeRecord version written at this level (Kafka's
    /// `partitionChangeRecordVersion`).
    pub fn partition_change_record_version(self) -> i16 {
        self.partition_record_version()
    }

    /// `MetadataVersion.checkIfMetadataChanged`: whether any level in
    /// `(low, high]` changed the metadata format.
    pub fn metadata_changed_between(a: MetadataVersion, b: MetadataVersion) -> bool {
        if a == b {
            return false;
        }
        let (high, low) = if a > b { (a, b) } else { (b, a) };
        Self::all()
            .filter(|m| *m > low && *m <= high)
            .any(|m| m.did_metadata_change())
    }
}

impl MetadataVersion {
    /// Renders a level of `feature` as Kafka's tools do: metadata.version
    /// levels as their version string (`UNKNOWN <n>` for unknown levels),
    /// other features as the number.
    pub fn level_to_string(feature: &str, level: i16) -> String {
        if feature != METADATA_VERSION {
            return level.to_string();
        }
        match Self::from_feature_level(level) {
            Some(mv) => mv.to_string(),
            None => format!("UNKNOWN {level}"),
        }
    }
}

impl fmt::Display for MetadataVersion {
    /// `3.7-IV0`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (_, release, sub, _) = self.entry();
        write!(f, "{release}-{sub}")
    }
}

/// An inclusive range of feature levels (Kafka's `VersionRange` /
/// `SupportedVersionRange`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct VersionRange {
    /// Lowest supported level.
    pub min: i16,
    /// Highest supported level.
    pub max: i16,
}

impl VersionRange {
    /// `0-0`: the feature is not supported (`QuorumFeatures.DISABLED`).
    pub const DISABLED: VersionRange = VersionRange { min: 0, max: 0 };

    /// `[min, max]`.
    pub const fn new(min: i16, max: i16) -> Self {
        VersionRange { min, max }
    }

    /// Whether `level` is in the range.
    pub fn contains(self, level: i16) -> bool {
        self.min <= level && level <= self.max
    }
}

impl fmt::Display for VersionRange {
    /// Kafka's `VersionRange.toString`: `5`, `5+` or `5-7`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.min == self.max {
            write!(f, "{}", self.min)
        } else if self.max == i16::MAX {
            write!(f, "{}+", self.min)
        } else {
            write!(f, "{}-{}", self.min, self.max)
        }
    }
}

/// One level of a feature (`FeatureVersion`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FeatureLevel {
    /// The level.
    pub level: i16,
    /// The metadata.version from which this level is the default for new clusters.
    pub bootstrap_metadata_version: i16,
    /// Levels of other features this level requires.
    pub dependencies: &'static [(&'static str, i16)],
}

/// A feature other than metadata.version (Kafka's `Feature` enum, production
/// features only).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FeatureSpec {
    /// The feature name, e.g. `group.version`.
    pub name: &'static str,
    /// Every defined level, lowest first.
    pub levels: &'static [FeatureLevel],
    /// The latest production level.
    pub latest_production: i16,
}

const fn lvl(level: i16, bootstrap_metadata_version: i16) -> FeatureLevel {
    FeatureLevel {
        level,
        bootstrap_metadata_version,
        dependencies: &[],
    }
}

/// `Feature.PRODUCTION_FEATURES` of Kafka 4.4.0, in declaration order.
pub const PRODUCTION_FEATURES: &[FeatureSpec] = &[
    FeatureSpec {
        name: KRAFT_VERSION,
        levels: &[lvl(0, 7), lvl(1, 21)],
        latest_production: 1,
    },
    FeatureSpec {
        name: "transaction.version",
        levels: &[lvl(0, 7), lvl(1, 24), lvl(2, 24)],
        latest_production: 2,
    },
    FeatureSpec {
        name: "group.version",
        levels: &[lvl(0, 7), lvl(1, 22)],
        latest_production: 1,
    },
    FeatureSpec {
        name: "eligible.leader.replicas.version",
        levels: &[
            lvl(0, 7),
            FeatureLevel {
                level: 1,
                bootstrap_metadata_version: 26,
                dependencies: &[(METADATA_VERSION, 23)],
            },
        ],
        latest_production: 1,
    },
    FeatureSpec {
        name: "share.version",
        levels: &[lvl(0, 7), lvl(1, 28), lvl(2, 31)],
        latest_production: 2,
    },
    FeatureSpec {
        name: "streams.version",
        levels: &[lvl(0, 7), lvl(1, 29)],
        latest_production: 1,
    },
];

impl FeatureSpec {
    /// The production feature named `name`.
    pub fn find(name: &str) -> Option<&'static FeatureSpec> {
        PRODUCTION_FEATURES.iter().find(|f| f.name == name)
    }

    /// Lowest defined level.
    pub fn minimum_production(&self) -> i16 {
        self.levels.first().map_or(0, |l| l.level)
    }

    /// Highest defined level (production or not).
    pub fn latest_testing(&self) -> i16 {
        self.levels.last().map_or(0, |l| l.level)
    }

    /// `Feature.defaultLevel(mv)`: the highest level whose bootstrap
    /// metadata.version is at most `mv`.
    pub fn default_level(&self, mv: MetadataVersion) -> i16 {
        let mut level = self.minimum_production();
        for l in self.levels {
            if l.bootstrap_metadata_version <= mv.feature_level() {
                level = l.level;
            } else {
                break;
            }
        }
        level
    }

    /// `Feature.fromFeatureLevel(level, allowUnstable)`; the error is Kafka's text.
    pub fn level(&self, level: i16, allow_unstable: bool) -> Result<&'static FeatureLevel, String> {
        self.levels
            .iter()
            .find(|l| l.level == level && (allow_unstable || level <= self.latest_production))
            .ok_or_else(|| format!("No feature:{} with feature level {level}", self.name))
    }
}

/// The feature levels a release version implies (Kafka's
/// `Feature.defaultLevel` for every production feature, in Kafka's order),
/// `metadata.version` excluded.
pub fn default_feature_levels(mv: MetadataVersion) -> Vec<(&'static str, i16)> {
    PRODUCTION_FEATURES
        .iter()
        .map(|f| (f.name, f.default_level(mv)))
        .collect()
}

/// `Feature.validateVersion`: checks a feature level's dependencies against
/// the full proposed feature map. The error is Kafka's text.
pub fn validate_feature_dependencies(
    name: &str,
    level: &FeatureLevel,
    features: &BTreeMap<String, i16>,
) -> Result<(), String> {
    let mv = features.get(METADATA_VERSION).copied();
    if level.level >= 1 && mv.is_none_or(|mv| mv < MetadataVersion::MINIMUM.feature_level()) {
        return Err(format!(
            "{name} could not be set to {} because it depends on metadata.version={} ({})",
            level.level,
            MetadataVersion::MINIMUM.feature_level(),
            MetadataVersion::MINIMUM
        ));
    }
    for (dep, dep_level) in level.dependencies {
        let have = features.get(*dep).copied();
        if have.is_none_or(|h| h < *dep_level) {
            return Err(format!(
                "{name} could not be set to {} because it depends on {dep} level {dep_level}",
                level.level
            ));
        }
    }
    Ok(())
}

/// The features a 4.4 controller supports (`QuorumFeatures.defaultSupportedFeatureMap`
/// and, identically, `BrokerFeatures.defaultSupportedFeatures`): metadata.version
/// from 3.3-IV3 to the latest production (or testing) level, and every
/// production feature whose maximum is above 0, in Kafka's insertion order.
pub fn supported_features(unstable_enabled: bool) -> Vec<(&'static str, VersionRange)> {
    let mv_max = if unstable_enabled {
        MetadataVersion::LATEST_TESTING
    } else {
        MetadataVersion::LATEST_PRODUCTION
    };
    let mut out = vec![(
        METADATA_VERSION,
        VersionRange::new(
            MetadataVersion::MINIMUM.feature_level(),
            mv_max.feature_level(),
        ),
    )];
    for f in PRODUCTION_FEATURES {
        let max = if unstable_enabled {
            f.latest_testing()
        } else {
            f.latest_production
        };
        if max > 0 {
            out.push((f.name, VersionRange::new(f.minimum_production(), max)));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_strings() {
        let mv = |s| MetadataVersion::from_version_string(s, false);
        assert_eq!(mv("3.7-IV0"), Ok(MetadataVersion(15)));
        assert_eq!(mv("4.4-IV2"), Ok(MetadataVersion(33)));
        assert_eq!(mv("4.4"), Ok(MetadataVersion(33)));
        assert_eq!(mv("3.8.1"), Ok(MetadataVersion(20)));
        assert_eq!(mv("3.7"), Ok(MetadataVersion(19)));
        assert_eq!(mv("3.3"), Ok(MetadataVersion(7)));
        assert!(mv("4.5-IV0").is_err());
        assert_eq!(
            MetadataVersion::from_version_string("4.5-IV0", true),
            Ok(MetadataVersion(34))
        );
        let err = mv("9.9").expect_err("unknown");
        assert!(err.starts_with(
            "Unknown metadata.version '9.9'. Supported metadata.version are: 3.3-IV3, 3.4-IV0,"
        ));
        assert!(err.ends_with("4.4-IV1, 4.4-IV2"));
        assert_eq!(MetadataVersion::IBP_4_4_IV2.to_string(), "4.4-IV2");
        assert_eq!(MetadataVersion::LATEST_TESTING.to_string(), "4.5-IV0");
        assert_eq!(MetadataVersion::all().count(), 28);
    }

    /// `kafka-storage version-mapping` / `Feature.defaultLevel` of 4.4.0.
    #[test]
    fn default_levels_match_kafka() {
        let at = |mv: i16| -> Vec<i16> {
            let mv = MetadataVersion(mv);
            PRODUCTION_FEATURES
                .iter()
                .map(|f| f.default_level(mv))
                .collect()
        };
        // kraft, transaction, group, elr, share, streams
        assert_eq!(at(7), [0, 0, 0, 0, 0, 0]);
        assert_eq!(at(21), [1, 0, 0, 0, 0, 0]);
        assert_eq!(at(22), [1, 0, 1, 0, 0, 0]);
        assert_eq!(at(24), [1, 2, 1, 0, 0, 0]);
        assert_eq!(at(26), [1, 2, 1, 1, 0, 0]);
        assert_eq!(at(28), [1, 2, 1, 1, 1, 0]);
        assert_eq!(at(30), [1, 2, 1, 1, 1, 1]);
        assert_eq!(at(33), [1, 2, 1, 1, 2, 1]);
    }

    #[test]
    fn metadata_changes() {
        // 3.5-IV0 (9) and 3.5-IV1 (10) did not change metadata; 3.4-IV0 (8) did.
        assert!(!MetadataVersion::metadata_changed_between(
            MetadataVersion(10),
            MetadataVersion(8)
        ));
        assert!(MetadataVersion::metadata_changed_between(
            MetadataVersion(11),
            MetadataVersion(10)
        ));
        assert!(MetadataVersion::metadata_changed_between(
            MetadataVersion(33),
            MetadataVersion(32)
        ));
        assert!(!MetadataVersion::metadata_changed_between(
            MetadataVersion(31),
            MetadataVersion(30)
        ));
    }

    #[test]
    fn supported_feature_ranges() {
        let s = supported_features(false);
        assert_eq!(s[0], (METADATA_VERSION, VersionRange::new(7, 33)));
        assert_eq!(s[1], (KRAFT_VERSION, VersionRange::new(0, 1)));
        assert_eq!(s.len(), 7);
        assert_eq!(supported_features(true)[0].1, VersionRange::new(7, 34));
        assert_eq!(VersionRange::new(7, 30).to_string(), "7-30");
        assert_eq!(VersionRange::new(3, 3).to_string(), "3");
    }

    #[test]
    fn dependencies() {
        let elr = FeatureSpec::find("eligible.leader.replicas.version").expect("known");
        let l1 = elr.level(1, false).expect("level 1");
        let mut m = BTreeMap::new();
        m.insert(METADATA_VERSION.to_string(), 22);
        assert_eq!(
            validate_feature_dependencies(elr.name, l1, &m),
            Err("eligible.leader.replicas.version could not be set to 1 because it depends on metadata.version level 23".to_string())
        );
        m.insert(METADATA_VERSION.to_string(), 23);
        assert!(validate_feature_dependencies(elr.name, l1, &m).is_ok());
        assert_eq!(
            elr.level(2, true).map(|l| l.level),
            Err("No feature:eligible.leader.replicas.version with feature level 2".to_string())
        );
    }

    #[test]
    fn levels_render_as_kafka_tools_show_them() {
        let show = MetadataVersion::level_to_string;
        assert_eq!(show("metadata.version", 34), "4.5-IV0");
        assert_eq!(show("metadata.version", 21), "3.9-IV0");
        assert_eq!(show("metadata.version", 99), "UNKNOWN 99");
        assert_eq!(show("kraft.version", 1), "1");
        let levels: Vec<i16> = MetadataVersion::all().map(|m| m.feature_level()).collect();
        assert!(levels.windows(2).all(|w| w[0] + 1 == w[1]), "{levels:?}");
    }

    #[test]
    fn defaults_match_kafka_version_mapping() {
        // `kafka-features version-mapping --release-version X` of Kafka 4.4.0:
        // kraft, transaction, group, eligible.leader.replicas, share, streams.
        let at = |v: &str| {
            let mv = MetadataVersion::from_version_string(v, false).expect("known");
            default_feature_levels(mv)
                .iter()
                .map(|(_, l)| *l)
                .collect::<Vec<_>>()
        };
        assert_eq!(at("3.8-IV0"), [0, 0, 0, 0, 0, 0]);
        assert_eq!(at("3.9-IV0"), [1, 0, 0, 0, 0, 0]);
        assert_eq!(at("4.0-IV2"), [1, 2, 1, 0, 0, 0]);
        assert_eq!(at("4.2-IV0"), [1, 2, 1, 1, 1, 0]);
        assert_eq!(at("4.4-IV2"), [1, 2, 1, 1, 2, 1]);
        let names: Vec<&str> = default_feature_levels(MetadataVersion::LATEST_PRODUCTION)
            .iter()
            .map(|(n, _)| *n)
            .collect();
        assert_eq!(
            names,
            [
                "kraft.version",
                "transaction.version",
                "group.version",
                "eligible.leader.replicas.version",
                "share.version",
                "streams.version"
            ]
        );
    }

    #[test]
    fn record_versions_follow_the_metadata_version() {
        // Boundaries by name, as Kafka's MetadataVersion defines them.
        let at = |s: &str| MetadataVersion::from_version_string(s, true).expect("known");
        for (mv, broker, partition) in [
            ("3.3-IV3", 1, 0),
            ("3.4-IV0", 2, 0),
            ("3.7-IV1", 2, 0),
            ("3.7-IV2", 3, 1),
            ("4.0-IV0", 3, 1),
            ("4.0-IV1", 3, 2),
            ("4.2-IV1", 3, 2),
            ("4.3-IV0", 4, 2),
            ("4.4-IV2", 4, 2),
        ] {
            assert_eq!(at(mv).register_broker_record_version(), broker, "{mv}");
            assert_eq!(at(mv).partition_record_version(), partition, "{mv}");
            assert_eq!(at(mv).partition_change_record_version(), partition, "{mv}");
        }
        assert!(!at("3.6-IV0").is_metadata_transaction_supported());
        assert!(at("3.6-IV1").is_metadata_transaction_supported());
        assert!(!at("3.6-IV1").is_delegation_token_supported());
        assert!(at("3.6-IV2").is_delegation_token_supported());
        assert!(!at("4.4-IV0").is_cidr_acl_supported());
        assert!(at("4.4-IV1").is_cidr_acl_supported());
    }
}
