//! Validation of a GROUP resource's configs, as Kafka's
//! `ControllerConfigurationValidator` and `GroupConfig.validate` do it,
//! with the bounds of this controller's group coordinator settings
//! (`group.*`, [`crate::config::groups`]).

use std::collections::{HashMap, HashSet};

use super::config_def::{parse_checked, Check, Kind, Parsed};
use super::java_text::{java_trim, split_list};
use super::{invalid_config, invalid_request};
use crate::config::groups::GroupSettings;
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

/// Range bounds `GroupConfig.validateValues` checks, in Kafka's order,
/// from this controller's group coordinator settings: (config, min, max).
fn group_ranges(g: &GroupSettings) -> [(&'static str, Option<i32>, Option<i32>); 15] {
    let range = |t: (i32, i32)| (Some(t.0), Some(t.1));
    let (c, sh, st) = (&g.consumer, &g.share, &g.streams);
    let rows = [
        (
            "consumer.heartbeat.interval.ms",
            range((c.min_heartbeat_interval_ms, c.max_heartbeat_interval_ms)),
        ),
        (
            "consumer.session.timeout.ms",
            range((c.min_session_timeout_ms, c.max_session_timeout_ms)),
        ),
        (
            "consumer.assignment.interval.ms",
            range((c.min_assignment_interval_ms, c.max_assignment_interval_ms)),
        ),
        (
            "share.heartbeat.interval.ms",
            range((sh.min_heartbeat_interval_ms, sh.max_heartbeat_interval_ms)),
        ),
        (
            "share.session.timeout.ms",
            range((sh.min_session_timeout_ms, sh.max_session_timeout_ms)),
        ),
        (
            "share.record.lock.duration.ms",
            range((
                g.share_record_lock_duration_ms.0,
                g.share_record_lock_duration_ms.2,
            )),
        ),
        (
            "share.delivery.count.limit",
            range((
                g.share_delivery_count_limit.0,
                g.share_delivery_count_limit.2,
            )),
        ),
        (
            "share.partition.max.record.locks",
            range((
                g.share_partition_max_record_locks.0,
                g.share_partition_max_record_locks.2,
            )),
        ),
        (
            "share.assignment.interval.ms",
            range((sh.min_assignment_interval_ms, sh.max_assignment_interval_ms)),
        ),
        (
            "streams.heartbeat.interval.ms",
            range((st.min_heartbeat_interval_ms, st.max_heartbeat_interval_ms)),
        ),
        (
            "streams.session.timeout.ms",
            range((st.min_session_timeout_ms, st.max_session_timeout_ms)),
        ),
        (
            "streams.num.standby.replicas",
            (None, Some(g.streams_standby_replicas.1)),
        ),
        (
            "streams.assignment.interval.ms",
            range((st.min_assignment_interval_ms, st.max_assignment_interval_ms)),
        ),
        (
            "streams.task.offset.interval.ms",
            (Some(g.streams_task_offset_interval_ms.1), None),
        ),
        (
            "streams.num.warmup.replicas",
            (None, Some(g.streams_warmup_replicas.1)),
        ),
    ];
    rows.map(|(key, (min, max))| (key, min, max))
}

/// Session and heartbeat pairs with this controller's defaults.
fn group_sessions(g: &GroupSettings) -> [(&'static str, i32, &'static str, i32); 3] {
    [
        (
            "consumer.session.timeout.ms",
            g.consumer.session_timeout_ms,
            "consumer.heartbeat.interval.ms",
            g.consumer.heartbeat_interval_ms,
        ),
        (
            "share.session.timeout.ms",
            g.share.session_timeout_ms,
            "share.heartbeat.interval.ms",
            g.share.heartbeat_interval_ms,
        ),
        (
            "streams.session.timeout.ms",
            g.streams.session_timeout_ms,
            "streams.heartbeat.interval.ms",
            g.streams.heartbeat_interval_ms,
        ),
    ]
}

/// `ControllerConfigurationValidator`'s GROUP branch: the name, then
/// `GroupConfig.validate` against this controller's group settings.
pub(super) fn validate_group(
    name: &str,
    names: &[String],
    configs: &HashMap<&str, &str>,
    groups: &GroupSettings,
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
    for (key, min, max) in group_ranges(groups) {
        let Some(v) = int(key) else {
            continue;
        };
        match (min, max) {
            (Some(min), Some(max)) if v < min || v > max => {
                return Err(invalid_config(format!(
                    "{key} must be in the range {min} to {max} inclusive."
                )));
            }
            (None, Some(max)) if v > max => {
                return Err(invalid_config(format!(
                    "{key} must be less than or equal to {max}"
                )));
            }
            (Some(min), None) if v < min => {
                return Err(invalid_config(format!(
                    "{key} must be greater than or equal to {min}"
                )));
            }
            _ => {}
        }
    }
    if let Some(Parsed::Text(assignor)) = parsed.get("streams.assignor.name") {
        if !groups.streams_assignor_names.contains(assignor) {
            return Err(invalid_config(format!(
                "streams.assignor.name '{assignor}' is not a registered task assignor. Registered assignors are: [{}].",
                groups.streams_assignor_names.join(", ")
            )));
        }
    }
    for (session_key, session_default, heartbeat_key, heartbeat_default) in group_sessions(groups) {
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
