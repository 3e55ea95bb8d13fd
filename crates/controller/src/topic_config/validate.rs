//! Validation of a topic's configs, as Kafka 4.4.0's controller does it when
//! a CreateTopics, IncrementalAlterConfigs or AlterConfigs request changes
//! them.

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;

use kraft_protocol::java_hash_map::JavaHashMap;
use kraft_protocol::ErrorCode;

use super::java_text;
use super::{definitions, ConfigError, ConfigType, SynonymUnit, TopicConfigDef, Validator};

/// Kafka's longest config value in KRaft (`Short.MAX_VALUE` UTF-16 units).
const MAX_VALUE_LENGTH: usize = i16::MAX as usize;
/// Kafka's longest topic name.
const MAX_TOPIC_NAME_LENGTH: usize = 249;
/// The broker config that turns tiered storage on cluster-wide.
const REMOTE_STORAGE_SYSTEM_ENABLE: &str = "remote.log.storage.system.enable";

/// CreateTopics' check that no config of a new topic is null: Kafka's
/// `INVALID_CONFIG` naming the null ones in request order.
pub fn check_creation_nulls(configs: &[(String, Option<String>)]) -> Result<(), ConfigError> {
    let nulls: Vec<&str> = configs
        .iter()
        .filter(|(_, v)| v.is_none())
        .map(|(k, _)| k.as_str())
        .collect();
    if nulls.is_empty() {
        Ok(())
    } else {
        Err(ConfigError::invalid_config(format!(
            "Null value not supported for topic configs: {}",
            nulls.join(",")
        )))
    }
}

/// [`validate_topic_configs`] for the configs of a topic being created
/// (no existing configs; the topic name was checked already), against
/// the controller's broker configs (`server`, as for
/// [`validate_topic_configs`]).
pub fn validate_new_topic<F, V>(configs: &[(String, String)], server: F) -> Result<(), ConfigError>
where
    F: Fn(&str) -> Option<V>,
    V: AsRef<str>,
{
    let changes: Vec<(String, Option<String>)> = configs
        .iter()
        .map(|(k, v)| (k.clone(), Some(v.clone())))
        .collect();
    let server = |name: &str| server(name).map(|v| v.as_ref().to_owned());
    validate_changes(None, &BTreeMap::new(), &changes, &server)
}

/// Whether the config changes of topic `topic` would be accepted, as
/// Kafka's controller decides before writing their ConfigRecords.
///
/// * `existing`: the topic's current configs.
/// * `changes`: the ConfigRecords about to be written, `None` removing a
///   config, in the order Kafka writes them (the iteration order of the
///   request's config map, e.g. a [`JavaHashMap`] of the names in request
///   order for CreateTopics). The order decides which unknown name is
///   reported when there are several.
/// * `server`: the controller's broker config by name (`log.retention.ms`,
///   `remote.log.storage.system.enable`...), whose log settings stand in for
///   the topic configs nobody set: Kafka validates against its
///   `KafkaConfig`'s values (`extractLogConfigMap`), which are the static
///   config updated by the dynamic cluster and node configs. `|_| None`
///   means Kafka's defaults.
///
/// The checks, in Kafka's order: value size; the resource name
/// (`INVALID_REQUEST` for the empty name, `INVALID_TOPIC_EXCEPTION` for an
/// illegal one); unknown names; each value of the resulting configs parsed
/// and validated in definition order; `min.compaction.lag.ms` against
/// `max.compaction.lag.ms`; the tiered-storage rules.
pub fn validate_topic_configs<F, V>(
    topic: &str,
    existing: &BTreeMap<String, String>,
    changes: &[(String, Option<String>)],
    server: F,
) -> Result<(), ConfigError>
where
    F: Fn(&str) -> Option<V>,
    V: AsRef<str>,
{
    let server = |name: &str| server(name).map(|v| v.as_ref().to_owned());
    validate_changes(Some(topic), existing, changes, &server)
}

fn validate_changes(
    topic: Option<&str>,
    existing: &BTreeMap<String, String>,
    changes: &[(String, Option<String>)],
    server: &dyn Fn(&str) -> Option<String>,
) -> Result<(), ConfigError> {
    // ConfigurationControlManager.validateAlterConfig: the resulting
    // configs, refusing over-long values. Their key order is that of a
    // java.util.HashMap filled with the existing configs, then the changes.
    let mut all: HashMap<&str, &str> = existing
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    let mut order = JavaHashMap::copy_of(&JavaHashMap::from_keys(existing.keys().cloned()));
    for (name, value) in changes {
        match value {
            None => {
                all.remove(name.as_str());
                order.remove(name);
            }
            Some(v) if v.encode_utf16().count() > MAX_VALUE_LENGTH => {
                return Err(ConfigError::invalid_config(format!(
                    "The configuration value cannot be added because it exceeds the maximum value size of {MAX_VALUE_LENGTH} bytes."
                )));
            }
            Some(v) => {
                all.insert(name.as_str(), v.as_str());
                order.put(name.clone());
            }
        }
    }
    // ControllerConfigurationValidator: the resource name, then the configs.
    if let Some(topic) = topic {
        validate_topic_name(topic)?;
    }
    // LogConfig.validateNames walks a copy of the map.
    let copied = JavaHashMap::from_keys(order.iter().cloned());
    if let Some(unknown) = copied.iter().find(|k| super::definition(k).is_none()) {
        return Err(ConfigError::invalid_config(format!(
            "Unknown topic config name: {unknown}"
        )));
    }
    let parsed = parse_all(&all, server)?;
    check_compaction_lags(&parsed)?;
    let remote_system_enabled = server(REMOTE_STORAGE_SYSTEM_ENABLE)
        .and_then(|v| java_text::parse_bool(java_text::trim(&v)))
        .unwrap_or(false);
    check_remote_storage(existing, &parsed, remote_system_enabled)
}

/// `ControllerConfigurationValidator.validateTopicName`.
fn validate_topic_name(name: &str) -> Result<(), ConfigError> {
    if name.is_empty() {
        return Err(ConfigError {
            code: ErrorCode::InvalidRequest,
            message: "Default topic resources are not allowed.".to_owned(),
        });
    }
    let reason = if name == "." || name == ".." {
        format!("'{name}' is not allowed")
    } else if name.encode_utf16().count() > MAX_TOPIC_NAME_LENGTH {
        format!(
            "the length of '{name}' is longer than the max allowed length {MAX_TOPIC_NAME_LENGTH}"
        )
    } else if !name
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
    {
        format!(
            "'{name}' contains one or more characters other than ASCII alphanumerics, '.', '_' and '-'"
        )
    } else {
        return Ok(());
    };
    Err(ConfigError {
        code: ErrorCode::InvalidTopicException,
        message: format!("Topic name is invalid: {reason}"),
    })
}

/// A parsed config value (`ConfigDef.parseType`'s result).
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Value {
    Null,
    Bool(bool),
    Int(i32),
    Short(i16),
    Long(i64),
    Double(f64),
    Text(String),
    List(Vec<String>),
}

impl Value {
    fn as_f64(&self) -> Option<f64> {
        match self {
            Value::Int(v) => Some(f64::from(*v)),
            Value::Short(v) => Some(f64::from(*v)),
            Value::Long(v) => Some(*v as f64),
            Value::Double(v) => Some(*v),
            _ => None,
        }
    }

    fn as_i64(&self) -> Option<i64> {
        match self {
            Value::Int(v) => Some(i64::from(*v)),
            Value::Short(v) => Some(i64::from(*v)),
            Value::Long(v) => Some(*v),
            _ => None,
        }
    }
}

/// The value as Java's `toString` prints it in error messages.
impl std::fmt::Display for Value {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Value::Null => f.write_str("null"),
            Value::Bool(v) => write!(f, "{v}"),
            Value::Int(v) => write!(f, "{v}"),
            Value::Short(v) => write!(f, "{v}"),
            Value::Long(v) => write!(f, "{v}"),
            Value::Double(v) => f.write_str(&java_text::double_to_string(*v)),
            Value::Text(v) => f.write_str(v),
            Value::List(items) => {
                f.write_char('[')?;
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    f.write_str(item)?;
                }
                f.write_char(']')
            }
        }
    }
}

/// `ConfigDef.parseType` of a string value.
pub(super) fn parse_value(def: &TopicConfigDef, raw: &str) -> Result<Value, ConfigError> {
    let trimmed = java_text::trim(raw);
    let not_a_number = || {
        ConfigError::invalid_value(
            def.name,
            raw,
            format_args!("Not a number of type {}", def.config_type.name()),
        )
    };
    Ok(match def.config_type {
        ConfigType::Boolean => match java_text::parse_bool(trimmed) {
            Some(b) => Value::Bool(b),
            None => {
                return Err(ConfigError::invalid_value(
                    def.name,
                    raw,
                    "Expected value to be either true or false",
                ))
            }
        },
        ConfigType::String | ConfigType::Password | ConfigType::Class => {
            Value::Text(trimmed.to_owned())
        }
        ConfigType::Int => Value::Int(java_text::parse_int(trimmed).ok_or_else(not_a_number)?),
        ConfigType::Short => Value::Short(trimmed.parse().map_err(|_| not_a_number())?),
        ConfigType::Long => Value::Long(java_text::parse_long(trimmed).ok_or_else(not_a_number)?),
        ConfigType::Double => {
            Value::Double(java_text::parse_double(trimmed).ok_or_else(not_a_number)?)
        }
        ConfigType::List => Value::List(java_text::parse_list(raw)),
    })
}

/// `ConfigDef.parseValue`'s checks after parsing.
fn check_value(def: &TopicConfigDef, value: Value) -> Result<Value, ConfigError> {
    let name = def.name;
    match def.validator {
        Validator::None => {}
        Validator::AtLeast(min) | Validator::Between(min, _) => {
            let Some(n) = value.as_f64() else {
                return Err(ConfigError::invalid_value(
                    name,
                    "null",
                    "Value must be non-null",
                ));
            };
            if n < min as f64 {
                return Err(ConfigError::invalid_value(
                    name,
                    &value,
                    format_args!("Value must be at least {min}"),
                ));
            }
            if let Validator::Between(_, max) = def.validator {
                if n > max as f64 {
                    return Err(ConfigError::invalid_value(
                        name,
                        &value,
                        format_args!("Value must be no more than {max}"),
                    ));
                }
            }
        }
        Validator::LevelOrDefault { min, max, default } => {
            let Some(level) = value.as_i64() else {
                return Err(ConfigError::invalid_value(
                    name,
                    "null",
                    "Value must be non-null",
                ));
            };
            if level > max || (level < min && level != default) {
                return Err(ConfigError::invalid_value(
                    name,
                    &value,
                    format_args!("Value must be between {min} and {max} or equal to {default}"),
                ));
            }
        }
        Validator::OneOf(valid) => {
            if let Value::Text(s) = &value {
                if !valid.contains(&s.as_str()) {
                    return Err(ConfigError::invalid_value(
                        name,
                        s,
                        format_args!("String must be one of: {}", valid.join(", ")),
                    ));
                }
            }
        }
        Validator::ListOf(valid) => {
            let Value::List(items) = value else {
                return Err(ConfigError::invalid_config(format!(
                    "Configuration '{name}' values must not be null."
                )));
            };
            // Duplicates are dropped before the check.
            let mut distinct: Vec<String> = Vec::with_capacity(items.len());
            for item in items {
                if !distinct.contains(&item) {
                    distinct.push(item);
                }
            }
            for item in &distinct {
                if item.is_empty() {
                    return Err(ConfigError::invalid_config(format!(
                        "Configuration '{name}' values must not be empty."
                    )));
                }
                if !valid.contains(&item.as_str()) {
                    return Err(ConfigError::invalid_value(
                        name,
                        item,
                        format_args!("String must be one of: {}", valid.join(", ")),
                    ));
                }
            }
            return Ok(Value::List(distinct));
        }
        Validator::ThrottledReplicas => {
            let Value::List(items) = &value else {
                return Err(ConfigError::invalid_value(
                    name,
                    &value,
                    format_args!("{name} must be a List"),
                ));
            };
            let trimmed: Vec<&str> = items.iter().map(|s| java_text::trim(s)).collect();
            let pairs = trimmed.iter().all(|s| is_replica_pair_or_empty(s));
            if !pairs && trimmed.concat() != "*" {
                return Err(ConfigError::invalid_value(
                    name,
                    &value,
                    format_args!(
                        "{name} must be the literal '*' or a list of replicas in the following format: [partitionId]:[brokerId],[partitionId]:[brokerId],..."
                    ),
                ));
            }
        }
    }
    Ok(value)
}

/// `([0-9]+:[0-9]+)?` on the whole string.
fn is_replica_pair_or_empty(s: &str) -> bool {
    if s.is_empty() {
        return true;
    }
    match s.split_once(':') {
        Some((a, b)) => {
            !a.is_empty()
                && !b.is_empty()
                && a.bytes().all(|c| c.is_ascii_digit())
                && b.bytes().all(|c| c.is_ascii_digit())
        }
        None => false,
    }
}

/// The value the controller's `KafkaConfig` gives a topic config nobody set
/// on the topic: its first broker synonym that is set, converted to the
/// topic config's unit (`log.retention.ms` is clamped to -1 when negative).
fn server_value(def: &TopicConfigDef, server: &dyn Fn(&str) -> Option<String>) -> Option<String> {
    let (synonym, unit) = def
        .synonyms
        .iter()
        .find_map(|(name, unit)| server(name).map(|v| (v, *unit)))?;
    let value = convert_synonym(&synonym, unit);
    if def.name == "retention.ms" {
        if let Some(ms) = java_text::parse_long(java_text::trim(&value)) {
            if ms < 0 {
                return Some("-1".to_owned());
            }
        }
    }
    Some(value)
}

/// A broker synonym's value in the topic config's unit: Kafka's
/// `ConfigSynonym` converters (a blank or unparseable number counts as 0).
pub(super) fn convert_synonym(value: &str, unit: SynonymUnit) -> String {
    let factor: i64 = match unit {
        SynonymUnit::Same => return value.to_owned(),
        SynonymUnit::Hours => 3_600_000,
        SynonymUnit::Minutes => 60_000,
    };
    let n = java_text::parse_int(java_text::trim(value)).unwrap_or(0);
    (i64::from(n) * factor).to_string()
}

/// Topic config values by name, after `ConfigDef.parse`.
struct Parsed(HashMap<&'static str, Value>);

impl Parsed {
    fn get(&self, name: &str) -> &Value {
        self.0.get(name).unwrap_or(&Value::Null)
    }

    fn long(&self, name: &str) -> i64 {
        self.get(name).as_i64().unwrap_or(0)
    }

    fn bool(&self, name: &str) -> bool {
        matches!(self.get(name), Value::Bool(true))
    }
}

/// `ConfigDef.parse` over the topic's configs laid over the server values:
/// every config parsed and validated in definition order.
fn parse_all(
    configs: &HashMap<&str, &str>,
    server: &dyn Fn(&str) -> Option<String>,
) -> Result<Parsed, ConfigError> {
    let mut parsed = HashMap::new();
    for def in definitions() {
        let raw: Option<String> = match configs.get(def.name) {
            Some(v) => Some((*v).to_owned()),
            None => server_value(def, server).or_else(|| def.default.map(str::to_owned)),
        };
        let value = match raw {
            Some(raw) => parse_value(def, &raw)?,
            None => Value::Null,
        };
        parsed.insert(def.name, check_value(def, value)?);
    }
    Ok(Parsed(parsed))
}

/// `LogConfig.validateValues`.
fn check_compaction_lags(parsed: &Parsed) -> Result<(), ConfigError> {
    let min = parsed.long("min.compaction.lag.ms");
    let max = parsed.long("max.compaction.lag.ms");
    if min > max {
        return Err(ConfigError::invalid_config(format!(
            "conflict topic config setting min.compaction.lag.ms ({min}) > max.compaction.lag.ms ({max})"
        )));
    }
    Ok(())
}

/// The tiered-storage checks of `LogConfig.validateTopicLogConfigValues`.
fn check_remote_storage(
    existing: &BTreeMap<String, String>,
    parsed: &Parsed,
    system_enabled: bool,
) -> Result<(), ConfigError> {
    if !parsed.bool("remote.storage.enable") {
        let was_enabled = existing
            .get("remote.storage.enable")
            .is_some_and(|v| java_text::parse_boolean_lenient(v));
        if was_enabled && !parsed.bool("remote.log.delete.on.disable") {
            return Err(ConfigError::invalid_config(
                "It is invalid to disable remote storage without deleting remote data. \
                 If you want to keep the remote data and turn to read only, please set \
                 `remote.storage.enable=true,remote.log.copy.disable=true`. If you want to \
                 disable remote storage and delete all remote data, please set \
                 `remote.storage.enable=false,remote.log.delete.on.disable=true`.",
            ));
        }
        return Ok(());
    }
    if !system_enabled {
        return Err(ConfigError::invalid_config(
            "Tiered Storage functionality is disabled in the broker. Topic cannot be configured with remote log storage.",
        ));
    }
    if let Value::List(policy) = parsed.get("cleanup.policy") {
        if !policy.is_empty() && (policy.len() != 1 || policy[0] != "delete") {
            return Err(ConfigError::invalid_config(
                "Remote log storage only supports topics with cleanup.policy=delete or cleanup.policy being an empty list.",
            ));
        }
    }
    let retention_bytes = parsed.long("retention.bytes");
    let local_bytes = parsed.long("local.retention.bytes");
    if retention_bytes > -1 && local_bytes != -2 {
        if local_bytes == -1 {
            return Err(ConfigError::invalid_value(
                "local.retention.bytes",
                local_bytes,
                format_args!(
                    "Value must not be -1 as retention.bytes value is set as {retention_bytes}."
                ),
            ));
        }
        if local_bytes > retention_bytes {
            return Err(ConfigError::invalid_value(
                "local.retention.bytes",
                local_bytes,
                format_args!(
                    "Value must not be more than retention.bytes property value: {retention_bytes}"
                ),
            ));
        }
    }
    let retention_ms = parsed.long("retention.ms");
    let local_ms = parsed.long("local.retention.ms");
    if retention_ms != -1 && local_ms != -2 {
        if local_ms == -1 {
            return Err(ConfigError::invalid_value(
                "local.retention.ms",
                local_ms,
                format_args!(
                    "Value must not be -1 as retention.ms value is set as {retention_ms}."
                ),
            ));
        }
        if local_ms > retention_ms {
            return Err(ConfigError::invalid_value(
                "local.retention.ms",
                local_ms,
                format_args!(
                    "Value must not be more than retention.ms property value: {retention_ms}"
                ),
            ));
        }
    }
    let lag_bytes = parsed.long("remote.copy.lag.bytes");
    let effective_local_bytes = if local_bytes == -2 {
        retention_bytes
    } else {
        local_bytes
    };
    if lag_bytes > 0 && effective_local_bytes >= 0 && lag_bytes > effective_local_bytes {
        return Err(ConfigError::invalid_value(
            "remote.copy.lag.bytes",
            lag_bytes,
            format_args!(
                "Value must not exceed local.retention.bytes (effective value: {effective_local_bytes})"
            ),
        ));
    }
    let lag_ms = parsed.long("remote.copy.lag.ms");
    let effective_local_ms = if local_ms == -2 {
        retention_ms
    } else {
        local_ms
    };
    if lag_ms > 0 && effective_local_ms >= 0 && lag_ms > effective_local_ms {
        return Err(ConfigError::invalid_value(
            "remote.copy.lag.ms",
            lag_ms,
            format_args!(
                "Value must not exceed local.retention.ms (effective value: {effective_local_ms})"
            ),
        ));
    }
    if parsed.bool("remote.log.copy.disable") {
        if local_bytes != -2 && local_bytes != retention_bytes {
            return Err(ConfigError::invalid_config(
                "When `remote.log.copy.disable` is set to true, the `local.retention.bytes` and \
                 `retention.bytes` must be set to the identical value because there will be no \
                 more logs copied to the remote storage.",
            ));
        }
        if local_ms != -2 && local_ms != retention_ms {
            return Err(ConfigError::invalid_config(
                "When `remote.log.copy.disable` is set to true, the `local.retention.ms` and \
                 `retention.ms` must be set to the identical value because there will be no \
                 more logs copied to the remote storage.",
            ));
        }
    }
    Ok(())
}
