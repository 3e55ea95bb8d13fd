//! Validation of a GROUP resource's configs, as Kafka's
//! `ControllerConfigurationValidator` and `GroupConfig.validate` do it,
//! with the bounds of Kafka's default group coordinator settings.

use std::collections::{HashMap, HashSet};

use super::config_def::{parse_checked, Check, Kind, Parsed};
use super::java_text::{java_trim, split_list};
use super::{invalid_config, invalid_request};
use crate::handlers::ApiError;

/// The GROUP definition (`GroupConfig.CONFIG_DEF`), in order.
const GROUP_CONFIGS: &[(&str, Kind, Check)] = &[
    ("consumer.session.timeout.ms", Kind::Int, Check::AtLeast(1)),
    (
        "consumer.heartbeat.interval.ms",
        Kind::Int,
        Check::AtLeast(1),
    ),
    (
        "consumer.assignment.interval.ms",
        Kind::Int,
        Check::AtLeast(0),
    ),
    ("consumer.assignor.offload.enable", Kind::Bool, Check::None),
    ("share.session.timeout.ms", Kind::Int, Check::AtLeast(1)),
    ("share.heartbeat.interval.ms", Kind::Int, Check::AtLeast(1)),
    (
        "share.record.lock.duration.ms",
        Kind::Int,
        Check::AtLeast(1000),
    ),
    ("share.delivery.count.limit", Kind::Int, Check::AtLeast(2)),
    (
        "share.partition.max.record.locks",
        Kind::Int,
        Check::AtLeast(100),
    ),
    (
        "share.auto.offset.reset",
        Kind::Text,
        Check::ShareOffsetReset,
    ),
    (
        "share.isolation.level",
        Kind::Text,
        Check::OneOf(&["read_committed", "read_uncommitted"]),
    ),
    ("share.renew.acknowledge.enable", Kind::Bool, Check::None),
    ("share.assignment.interval.ms", Kind::Int, Check::AtLeast(0)),
    ("share.assignor.offload.enable", Kind::Bool, Check::None),
    ("streams.session.timeout.ms", Kind::Int, Check::AtLeast(1)),
    (
        "streams.heartbeat.interval.ms",
        Kind::Int,
        Check::AtLeast(1),
    ),
    ("streams.num.standby.replicas", Kind::Int, Check::AtLeast(0)),
    (
        "streams.initial.rebalance.delay.ms",
        Kind::Int,
        Check::AtLeast(0),
    ),
    (
        "streams.assignment.interval.ms",
        Kind::Int,
        Check::AtLeast(0),
    ),
    ("streams.assignor.offload.enable", Kind::Bool, Check::None),
    (
        "streams.task.offset.interval.ms",
        Kind::Int,
        Check::AtLeast(1),
    ),
    ("streams.num.warmup.replicas", Kind::Int, Check::AtLeast(0)),
    (
        "streams.rack.aware.assignment.tags",
        Kind::List,
        Check::AnyList,
    ),
    (
        "streams.acceptable.recovery.lag",
        Kind::Long,
        Check::AtLeast(0),
    ),
    ("streams.assignor.name", Kind::Text, Check::None),
    ("errors.deadletterqueue.topic.name", Kind::Text, Check::None),
    (
        "errors.deadletterqueue.copy.record.enable",
        Kind::Bool,
        Check::None,
    ),
];

/// The group bounds `GroupConfig.validateValues` checks, from Kafka 4.4.0's
/// default group coordinator and share group settings: (config, min, max).
const GROUP_RANGES: &[(&str, Option<i32>, Option<i32>)] = &[
    ("consumer.heartbeat.interval.ms", Some(5_000), Some(15_000)),
    ("consumer.session.timeout.ms", Some(45_000), Some(60_000)),
    ("consumer.assignment.interval.ms", Some(0), Some(15_000)),
    ("share.heartbeat.interval.ms", Some(5_000), Some(15_000)),
    ("share.session.timeout.ms", Some(45_000), Some(60_000)),
    ("share.record.lock.duration.ms", Some(15_000), Some(60_000)),
    ("share.delivery.count.limit", Some(2), Some(10)),
    ("share.partition.max.record.locks", Some(100), Some(4_000)),
    ("share.assignment.interval.ms", Some(0), Some(15_000)),
    ("streams.heartbeat.interval.ms", Some(5_000), Some(15_000)),
    ("streams.session.timeout.ms", Some(45_000), Some(60_000)),
    ("streams.num.standby.replicas", None, Some(2)),
    ("streams.assignment.interval.ms", Some(0), Some(15_000)),
    ("streams.task.offset.interval.ms", Some(15_000), None),
    ("streams.num.warmup.replicas", None, Some(20)),
];

/// Session and heartbeat pairs with their default values.
const GROUP_SESSIONS: [(&str, i32, &str, i32); 3] = [
    (
        "consumer.session.timeout.ms",
        45_000,
        "consumer.heartbeat.interval.ms",
        5_000,
    ),
    (
        "share.session.timeout.ms",
        45_000,
        "share.heartbeat.interval.ms",
        5_000,
    ),
    (
        "streams.session.timeout.ms",
        45_000,
        "streams.heartbeat.interval.ms",
        5_000,
    ),
];

/// The streams task assignors of Kafka 4.4.0's default broker config.
const STREAMS_ASSIGNORS: [&str; 1] = ["sticky"];

/// `ControllerConfigurationValidator`'s GROUP branch: the name, then
/// `GroupConfig.validate`.
pub(super) fn validate_group(
    name: &str,
    names: &[String],
    configs: &HashMap<&str, &str>,
) -> Result<(), ApiError> {
    if name.is_empty() {
        return Err(invalid_request("Default group resources are not allowed."));
    }
    if let Some(unknown) = names
        .iter()
        .find(|k| !GROUP_CONFIGS.iter().any(|(n, _, _)| *n == k.as_str()))
    {
        return Err(invalid_config(format!(
            "Unknown group config name: {unknown}"
        )));
    }
    if let Some(raw) = configs.get("streams.rack.aware.assignment.tags") {
        let trimmed = java_trim(raw);
        let tags: Vec<&str> = if trimmed.is_empty() {
            Vec::new()
        } else {
            split_list(trimmed)
        };
        let distinct: HashSet<&str> = tags.iter().copied().collect();
        if distinct.len() != tags.len() {
            return Err(invalid_config(
                "streams.rack.aware.assignment.tags must not contain duplicate tag keys.",
            ));
        }
    }
    let mut parsed: HashMap<&str, Parsed> = HashMap::new();
    for (key, kind, check) in GROUP_CONFIGS {
        if let Some(raw) = configs.get(key) {
            parsed.insert(key, parse_checked(key, *kind, *check, raw)?);
        }
    }
    let int = |key: &str| match parsed.get(key) {
        Some(Parsed::Int(v)) => Some(*v),
        _ => None,
    };
    for (key, min, max) in GROUP_RANGES {
        let Some(v) = int(key) else {
            continue;
        };
        match (min, max) {
            (Some(min), Some(max)) if v < *min || v > *max => {
                return Err(invalid_config(format!(
                    "{key} must be in the range {min} to {max} inclusive."
                )));
            }
            (None, Some(max)) if v > *max => {
                return Err(invalid_config(format!(
                    "{key} must be less than or equal to {max}"
                )));
            }
            (Some(min), None) if v < *min => {
                return Err(invalid_config(format!(
                    "{key} must be greater than or equal to {min}"
                )));
            }
            _ => {}
        }
    }
    if let Some(Parsed::Text(assignor)) = parsed.get("streams.assignor.name") {
        if !STREAMS_ASSIGNORS.contains(&assignor.as_str()) {
            return Err(invalid_config(format!(
                "streams.assignor.name '{assignor}' is not a registered task assignor. Registered assignors are: [{}].",
                STREAMS_ASSIGNORS.join(", ")
            )));
        }
    }
    for (session_key, session_default, heartbeat_key, heartbeat_default) in GROUP_SESSIONS {
        let (session, heartbeat) = (int(session_key), int(heartbeat_key));
        if session.is_none() && heartbeat.is_none() {
            continue;
        }
        if session.unwrap_or(session_default) <= heartbeat.unwrap_or(heartbeat_default) {
            return Err(invalid_config(format!(
                "{session_key} must be greater than {heartbeat_key}"
            )));
        }
    }
    if let Some(Parsed::Text(dlq)) = parsed.get("errors.deadletterqueue.topic.name") {
        if dlq.starts_with("__") {
            return Err(invalid_config(
                "errors.deadletterqueue.topic.name: DLQ topic name must not start with '__'",
            ));
        }
    }
    Ok(())
}
