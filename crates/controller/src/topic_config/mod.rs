//! Topic configs as Kafka 4.4.0's controller knows them: the definition of
//! every topic config, the validation a config change goes through before
//! its ConfigRecords are written, and the effective configs a CreateTopics
//! response lists.
//!
//! * [`definitions`] / [`definition`]: name, type, default (rendered as
//!   Kafka renders it in DescribeConfigs and CreateTopics responses),
//!   validator, sensitivity and broker synonyms of each topic config, in
//!   Kafka's definition order.
//! * [`check_creation_nulls`]: CreateTopics' refusal of null config values
//!   (Kafka's `ReplicationControlManager.computeConfigChanges`).
//! * [`validate_topic_configs`]: what Kafka's `ConfigurationControlManager`
//!   checks for a TOPIC resource (the value size limit) followed by its
//!   `ControllerConfigurationValidator` (the resource name, then
//!   `LogConfig.validate`: names, then every value parsed and validated in
//!   definition order, then the cross-config checks), with Kafka's error
//!   codes and message texts.
//! * [`effective_topic_configs`]: the configs of a new topic resolved over
//!   the creation configs, the controller's own dynamic broker configs, the
//!   cluster defaults, the controller's static configs and the defaults
//!   (Kafka's `KafkaConfigSchema.resolveEffectiveTopicConfigs`), sorted by
//!   name.
//!
//! Every fact here is checked against Kafka's own classes by the unit tests:
//! `kafka-topic-configs.json` next to this file was written by Kafka 4.4.0
//! (its `LogConfig` config definition and synonyms, the outcome of a list of
//! config changes run through its `ConfigurationControlManager` and
//! `ControllerConfigurationValidator`, its CreateTopics null check, and the
//! effective configs it computes). Regenerate it with
//! `tests/interop/topic-configs.sh` (JDK 17+ and Maven).

// The request handlers take this API up piecemeal (CreateTopics first,
// then IncrementalAlterConfigs / AlterConfigs); the tests use all of it.

mod effective;
mod java_text;
mod table;
mod validate;

#[cfg(test)]
mod tests;

use std::fmt;

use kraft_protocol::ErrorCode;

pub use effective::effective_topic_configs_layered;
#[cfg(test)]
pub use effective::{effective_topic_configs, EffectiveConfig};
pub use validate::{check_creation_nulls, validate_new_topic, validate_topic_configs};

/// Kafka's `ConfigDef.Type`.
/// Every type is listed although no 4.4 topic config is SHORT, CLASS or
/// PASSWORD.
#[allow(dead_code)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ConfigType {
    /// `BOOLEAN`.
    Boolean,
    /// `STRING`.
    String,
    /// `INT` (32-bit).
    Int,
    /// `SHORT` (16-bit).
    Short,
    /// `LONG` (64-bit).
    Long,
    /// `DOUBLE`.
    Double,
    /// `LIST` (comma separated).
    List,
    /// `CLASS` (a class name).
    Class,
    /// `PASSWORD` (the only sensitive type).
    Password,
}

impl ConfigType {
    /// Kafka's name of the type (`Type.name()`), as its error messages print it.
    pub const fn name(self) -> &'static str {
        match self {
            ConfigType::Boolean => "BOOLEAN",
            ConfigType::String => "STRING",
            ConfigType::Int => "INT",
            ConfigType::Short => "SHORT",
            ConfigType::Long => "LONG",
            ConfigType::Double => "DOUBLE",
            ConfigType::List => "LIST",
            ConfigType::Class => "CLASS",
            ConfigType::Password => "PASSWORD",
        }
    }

    /// Whether values of this type are sensitive (`Type.isSensitive()`).
    pub const fn is_sensitive(self) -> bool {
        matches!(self, ConfigType::Password)
    }
}

/// The check Kafka applies to a parsed topic config value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Validator {
    /// No check.
    None,
    /// `Range.atLeast(min)`.
    AtLeast(i64),
    /// `Range.between(min, max)`, both inclusive.
    Between(i64, i64),
    /// `ValidString.in(...)`: one of these strings, case-sensitive.
    OneOf(&'static [&'static str]),
    /// `ValidList.in(...)`: a list (possibly empty, duplicates dropped) of
    /// non-empty elements, each one of these strings.
    ListOf(&'static [&'static str]),
    /// The throttled-replicas list: `*` or `partition:broker` pairs.
    ThrottledReplicas,
    /// A compression level in `[min, max]` or exactly `default`.
    LevelOrDefault {
        /// Lowest level.
        min: i64,
        /// Highest level.
        max: i64,
        /// The out-of-range value that means "the codec's default".
        default: i64,
    },
}

impl Validator {
    /// The validator as Kafka's `toString` renders it (its "Valid Values"
    /// documentation column), `None` when there is no validator.
    #[cfg(test)]
    pub fn describe(&self) -> Option<String> {
        Some(match self {
            Validator::None => return None,
            Validator::AtLeast(min) => format!("[{min},...]"),
            Validator::Between(min, max) => format!("[{min},...,{max}]"),
            Validator::OneOf(values) | Validator::ListOf(values) => {
                format!("[{}]", values.join(", "))
            }
            Validator::ThrottledReplicas => {
                "[partitionId]:[brokerId],[partitionId]:[brokerId],...".to_owned()
            }
            Validator::LevelOrDefault { min, max, default } => {
                format!("[{min},...,{max}] or {default}")
            }
        })
    }
}

/// The unit a broker synonym is denominated in; its value is converted to
/// the topic config's milliseconds before use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SynonymUnit {
    /// Same unit as the topic config: used as is.
    Same,
    /// Hours (`log.roll.hours`, `log.retention.hours`...).
    Hours,
    /// Minutes (`log.retention.minutes`).
    Minutes,
}

/// One topic config of Kafka 4.4.0.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TopicConfigDef {
    /// The config name (`retention.ms`).
    pub name: &'static str,
    /// Its type.
    pub config_type: ConfigType,
    /// The default as DescribeConfigs / CreateTopics render it
    /// (`ConfigDef.convertToString`), `None` for a null default.
    pub default: Option<&'static str>,
    /// The check on its values.
    pub validator: Validator,
    /// Broker configs that supply a default for it, highest priority first.
    pub synonyms: &'static [(&'static str, SynonymUnit)],
    /// An internal config: accepted, but listed among a topic's effective
    /// configs only when the topic sets it.
    pub internal: bool,
}

impl TopicConfigDef {
    /// Whether its values are sensitive (never the case for a topic config
    /// of Kafka 4.4.0, none is a PASSWORD).
    pub const fn sensitive(&self) -> bool {
        self.config_type.is_sensitive()
    }

    /// Whether Kafka reports it read-only (it never does for topic configs).
    pub const fn read_only(&self) -> bool {
        false
    }

    /// Whether IncrementalAlterConfigs may APPEND to / SUBTRACT from it.
    pub const fn is_list(&self) -> bool {
        matches!(self.config_type, ConfigType::List)
    }
}

/// Every topic config of Kafka 4.4.0, in Kafka's definition order (the
/// order values are parsed, and so the order errors are found, in).
pub fn definitions() -> &'static [TopicConfigDef] {
    table::TOPIC_CONFIGS
}

/// The topic config named `name`.
pub fn definition(name: &str) -> Option<&'static TopicConfigDef> {
    table::TOPIC_CONFIGS.iter().find(|d| d.name == name)
}

/// Kafka's DescribeConfigs `ConfigSource` ids (`DescribeConfigsResponse.ConfigSource`).
pub mod source {
    /// `UNKNOWN`.
    #[cfg(test)]
    pub const UNKNOWN: i8 = 0;
    /// `TOPIC_CONFIG`: set on the topic.
    pub const TOPIC_CONFIG: i8 = 1;
    /// `DYNAMIC_BROKER_CONFIG`: a dynamic config of this node.
    pub const DYNAMIC_BROKER_CONFIG: i8 = 2;
    /// `DYNAMIC_DEFAULT_BROKER_CONFIG`: a cluster-wide dynamic default.
    pub const DYNAMIC_DEFAULT_BROKER_CONFIG: i8 = 3;
    /// `STATIC_BROKER_CONFIG`: the node's properties file.
    pub const STATIC_BROKER_CONFIG: i8 = 4;
    /// `DEFAULT_CONFIG`: the config's default.
    pub const DEFAULT_CONFIG: i8 = 5;
    /// `DYNAMIC_BROKER_LOGGER_CONFIG`: a logger's level.
    pub const DYNAMIC_BROKER_LOGGER_CONFIG: i8 = 6;
    /// `CLIENT_METRICS_CONFIG`: set on the client-metrics subscription.
    pub const CLIENT_METRICS_CONFIG: i8 = 7;
    /// `GROUP_CONFIG`: set on the group.
    pub const GROUP_CONFIG: i8 = 8;
}

/// A refused config change: the error code and message Kafka answers with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError {
    /// `INVALID_CONFIG` for a bad config; `INVALID_REQUEST` /
    /// `INVALID_TOPIC_EXCEPTION` for a bad resource name.
    pub code: ErrorCode,
    /// Kafka's message text.
    pub message: String,
}

impl ConfigError {
    fn invalid_config(message: impl Into<String>) -> Self {
        ConfigError {
            code: ErrorCode::InvalidConfig,
            message: message.into(),
        }
    }

    /// Kafka's `ConfigException(name, value, message)` text.
    fn invalid_value(name: &str, value: impl fmt::Display, reason: impl fmt::Display) -> Self {
        Self::invalid_config(format!(
            "Invalid value {value} for configuration {name}: {reason}"
        ))
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ConfigError {}

/// A config value as Kafka shows it once parsed with its type
/// (`ConfigDef.parseType` then `ConfigDef.convertToString`): trimmed,
/// numbers and booleans normalised, lists joined with bare commas. A value
/// the type does not parse is shown as given (Kafka would not have it).
pub fn render_value(value: &str, config_type: Option<ConfigType>) -> String {
    let trimmed = java_text::trim(value);
    let parsed = match config_type {
        None | Some(ConfigType::Password) => None,
        Some(ConfigType::Boolean) => java_text::parse_bool(trimmed).map(|b| b.to_string()),
        Some(ConfigType::Int) => java_text::parse_int(trimmed).map(|v| v.to_string()),
        Some(ConfigType::Short) => trimmed.parse::<i16>().ok().map(|v| v.to_string()),
        Some(ConfigType::Long) => java_text::parse_long(trimmed).map(|v| v.to_string()),
        Some(ConfigType::Double) => {
            java_text::parse_double(trimmed).map(java_text::double_to_string)
        }
        Some(ConfigType::List) => Some(java_text::parse_list(value).join(",")),
        Some(ConfigType::String | ConfigType::Class) => Some(trimmed.to_owned()),
    };
    parsed.unwrap_or_else(|| value.to_owned())
}

/// A broker synonym's value in its topic config's unit (hours and minutes
/// become milliseconds), as Kafka's `ConfigSynonym` converters give it.
pub fn synonym_value(value: &str, unit: SynonymUnit) -> String {
    validate::convert_synonym(value, unit)
}
