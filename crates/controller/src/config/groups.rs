//! The group coordinator settings a controller reads: the bounds Kafka's
//! GROUP config validation checks a group's configs against
//! (`GroupConfig.validate` with the controller's own
//! `GroupCoordinatorConfig` and `ShareGroupConfig`), with Kafka 4.4's
//! definitions, defaults and start-up checks. A Java controller builds both
//! when it reads its configuration, so a value out of range, or bounds that
//! contradict each other, stop it at start; so they do here.

use super::settings::{parse_list, Int, Text};
use super::{ConfigError, Properties};

macro_rules! int {
    ($name:ident, $key:literal, $default:expr, $min:expr, $max:expr, $doc:literal) => {
        #[doc = concat!("`", $key, "`")]
        pub const $name: Int = Int {
            key: $key,
            default: $default,
            min: $min,
            max: $max,
            doc: $doc,
        };
    };
}

int!(CONSUMER_SESSION_TIMEOUT_MS, "group.consumer.session.timeout.ms", 45_000, Some(1), None,
    "The consumer group session timeout when a group sets none; GROUP configs' `consumer.session.timeout.ms` must stay above the heartbeat interval.");
int!(
    CONSUMER_MIN_SESSION_TIMEOUT_MS,
    "group.consumer.min.session.timeout.ms",
    45_000,
    Some(1),
    None,
    "The smallest `consumer.session.timeout.ms` a GROUP config may set."
);
int!(
    CONSUMER_MAX_SESSION_TIMEOUT_MS,
    "group.consumer.max.session.timeout.ms",
    60_000,
    Some(1),
    None,
    "The largest `consumer.session.timeout.ms` a GROUP config may set."
);
int!(
    CONSUMER_HEARTBEAT_INTERVAL_MS,
    "group.consumer.heartbeat.interval.ms",
    5_000,
    Some(1),
    None,
    "The consumer group heartbeat interval when a group sets none."
);
int!(
    CONSUMER_MIN_HEARTBEAT_INTERVAL_MS,
    "group.consumer.min.heartbeat.interval.ms",
    5_000,
    Some(1),
    None,
    "The smallest `consumer.heartbeat.interval.ms` a GROUP config may set."
);
int!(
    CONSUMER_MAX_HEARTBEAT_INTERVAL_MS,
    "group.consumer.max.heartbeat.interval.ms",
    15_000,
    Some(1),
    None,
    "The largest `consumer.heartbeat.interval.ms` a GROUP config may set."
);
int!(
    CONSUMER_ASSIGNMENT_INTERVAL_MS,
    "group.consumer.assignment.interval.ms",
    1_000,
    Some(0),
    None,
    "The consumer group assignment interval when a group sets none."
);
int!(
    CONSUMER_MIN_ASSIGNMENT_INTERVAL_MS,
    "group.consumer.min.assignment.interval.ms",
    0,
    Some(0),
    None,
    "The smallest `consumer.assignment.interval.ms` a GROUP config may set."
);
int!(
    CONSUMER_MAX_ASSIGNMENT_INTERVAL_MS,
    "group.consumer.max.assignment.interval.ms",
    15_000,
    Some(0),
    None,
    "The largest `consumer.assignment.interval.ms` a GROUP config may set."
);
int!(
    SHARE_SESSION_TIMEOUT_MS,
    "group.share.session.timeout.ms",
    45_000,
    Some(1),
    None,
    "The share group session timeout when a group sets none."
);
int!(
    SHARE_MIN_SESSION_TIMEOUT_MS,
    "group.share.min.session.timeout.ms",
    45_000,
    Some(1),
    None,
    "The smallest `share.session.timeout.ms` a GROUP config may set."
);
int!(
    SHARE_MAX_SESSION_TIMEOUT_MS,
    "group.share.max.session.timeout.ms",
    60_000,
    Some(1),
    None,
    "The largest `share.session.timeout.ms` a GROUP config may set."
);
int!(
    SHARE_HEARTBEAT_INTERVAL_MS,
    "group.share.heartbeat.interval.ms",
    5_000,
    Some(1),
    None,
    "The share group heartbeat interval when a group sets none."
);
int!(
    SHARE_MIN_HEARTBEAT_INTERVAL_MS,
    "group.share.min.heartbeat.interval.ms",
    5_000,
    Some(1),
    None,
    "The smallest `share.heartbeat.interval.ms` a GROUP config may set."
);
int!(
    SHARE_MAX_HEARTBEAT_INTERVAL_MS,
    "group.share.max.heartbeat.interval.ms",
    15_000,
    Some(1),
    None,
    "The largest `share.heartbeat.interval.ms` a GROUP config may set."
);
int!(
    SHARE_ASSIGNMENT_INTERVAL_MS,
    "group.share.assignment.interval.ms",
    1_000,
    Some(0),
    None,
    "The share group assignment interval when a group sets none."
);
int!(
    SHARE_MIN_ASSIGNMENT_INTERVAL_MS,
    "group.share.min.assignment.interval.ms",
    0,
    Some(0),
    None,
    "The smallest `share.assignment.interval.ms` a GROUP config may set."
);
int!(
    SHARE_MAX_ASSIGNMENT_INTERVAL_MS,
    "group.share.max.assignment.interval.ms",
    15_000,
    Some(0),
    None,
    "The largest `share.assignment.interval.ms` a GROUP config may set."
);
int!(
    SHARE_RECORD_LOCK_DURATION_MS,
    "group.share.record.lock.duration.ms",
    30_000,
    Some(1_000),
    Some(3_600_000),
    "The share group record lock duration when a group sets none."
);
int!(
    SHARE_MIN_RECORD_LOCK_DURATION_MS,
    "group.share.min.record.lock.duration.ms",
    15_000,
    Some(1_000),
    Some(30_000),
    "The smallest `share.record.lock.duration.ms` a GROUP config may set."
);
int!(
    SHARE_MAX_RECORD_LOCK_DURATION_MS,
    "group.share.max.record.lock.duration.ms",
    60_000,
    Some(30_000),
    Some(3_600_000),
    "The largest `share.record.lock.duration.ms` a GROUP config may set."
);
int!(
    SHARE_DELIVERY_COUNT_LIMIT,
    "group.share.delivery.count.limit",
    5,
    Some(2),
    Some(10),
    "The share group delivery count limit when a group sets none."
);
int!(
    SHARE_MIN_DELIVERY_COUNT_LIMIT,
    "group.share.min.delivery.count.limit",
    2,
    Some(2),
    Some(5),
    "The smallest `share.delivery.count.limit` a GROUP config may set."
);
int!(
    SHARE_MAX_DELIVERY_COUNT_LIMIT,
    "group.share.max.delivery.count.limit",
    10,
    Some(5),
    Some(25),
    "The largest `share.delivery.count.limit` a GROUP config may set."
);
int!(
    SHARE_PARTITION_MAX_RECORD_LOCKS,
    "group.share.partition.max.record.locks",
    2_000,
    Some(100),
    Some(10_000),
    "The share partition record lock limit when a group sets none."
);
int!(
    SHARE_MIN_PARTITION_MAX_RECORD_LOCKS,
    "group.share.min.partition.max.record.locks",
    100,
    Some(100),
    Some(2_000),
    "The smallest `share.partition.max.record.locks` a GROUP config may set."
);
int!(
    SHARE_MAX_PARTITION_MAX_RECORD_LOCKS,
    "group.share.max.partition.max.record.locks",
    4_000,
    Some(2_000),
    Some(10_000),
    "The largest `share.partition.max.record.locks` a GROUP config may set."
);
int!(
    STREAMS_SESSION_TIMEOUT_MS,
    "group.streams.session.timeout.ms",
    45_000,
    Some(1),
    None,
    "The streams group session timeout when a group sets none."
);
int!(
    STREAMS_MIN_SESSION_TIMEOUT_MS,
    "group.streams.min.session.timeout.ms",
    45_000,
    Some(1),
    None,
    "The smallest `streams.session.timeout.ms` a GROUP config may set."
);
int!(
    STREAMS_MAX_SESSION_TIMEOUT_MS,
    "group.streams.max.session.timeout.ms",
    60_000,
    Some(1),
    None,
    "The largest `streams.session.timeout.ms` a GROUP config may set."
);
int!(
    STREAMS_HEARTBEAT_INTERVAL_MS,
    "group.streams.heartbeat.interval.ms",
    5_000,
    Some(1),
    None,
    "The streams group heartbeat interval when a group sets none."
);
int!(
    STREAMS_MIN_HEARTBEAT_INTERVAL_MS,
    "group.streams.min.heartbeat.interval.ms",
    5_000,
    Some(1),
    None,
    "The smallest `streams.heartbeat.interval.ms` a GROUP config may set."
);
int!(
    STREAMS_MAX_HEARTBEAT_INTERVAL_MS,
    "group.streams.max.heartbeat.interval.ms",
    15_000,
    Some(1),
    None,
    "The largest `streams.heartbeat.interval.ms` a GROUP config may set."
);
int!(
    STREAMS_NUM_STANDBY_REPLICAS,
    "group.streams.num.standby.replicas",
    0,
    Some(0),
    None,
    "The streams group standby replica count when a group sets none."
);
int!(
    STREAMS_MAX_STANDBY_REPLICAS,
    "group.streams.max.standby.replicas",
    2,
    Some(0),
    None,
    "The largest `streams.num.standby.replicas` a GROUP config may set."
);
int!(
    STREAMS_ASSIGNMENT_INTERVAL_MS,
    "group.streams.assignment.interval.ms",
    1_000,
    Some(0),
    None,
    "The streams group assignment interval when a group sets none."
);
int!(
    STREAMS_MIN_ASSIGNMENT_INTERVAL_MS,
    "group.streams.min.assignment.interval.ms",
    0,
    Some(0),
    None,
    "The smallest `streams.assignment.interval.ms` a GROUP config may set."
);
int!(
    STREAMS_MAX_ASSIGNMENT_INTERVAL_MS,
    "group.streams.max.assignment.interval.ms",
    15_000,
    Some(0),
    None,
    "The largest `streams.assignment.interval.ms` a GROUP config may set."
);
int!(
    STREAMS_TASK_OFFSET_INTERVAL_MS,
    "group.streams.task.offset.interval.ms",
    60_000,
    Some(1),
    None,
    "The streams group task offset interval when a group sets none (internal in Kafka)."
);
int!(
    STREAMS_MIN_TASK_OFFSET_INTERVAL_MS,
    "group.streams.min.task.offset.interval.ms",
    15_000,
    Some(1),
    None,
    "The smallest `streams.task.offset.interval.ms` a GROUP config may set (internal in Kafka)."
);
int!(
    STREAMS_NUM_WARMUP_REPLICAS,
    "group.streams.num.warmup.replicas",
    2,
    Some(0),
    None,
    "The streams group warm-up replica count when a group sets none (internal in Kafka)."
);
int!(
    STREAMS_MAX_WARMUP_REPLICAS,
    "group.streams.max.warmup.replicas",
    20,
    Some(0),
    None,
    "The largest `streams.num.warmup.replicas` a GROUP config may set (internal in Kafka)."
);

/// `group.streams.assignors`
pub const STREAMS_ASSIGNORS: Text = Text {
    key: "group.streams.assignors",
    default: Some("sticky"),
    required: false,
    list: true,
    doc: "The streams task assignors, by name or class: the names a GROUP config's `streams.assignor.name` may choose. Only Kafka's built-in `sticky` (`org.apache.kafka.coordinator.group.streams.assignor.StickyTaskAssignor`) is known; any other class is refused at start (kraft-rs cannot load Java plugins).",
};

/// The class of Kafka's one built-in streams task assignor, `sticky`.
const STICKY_TASK_ASSIGNOR_CLASS: &str =
    "org.apache.kafka.coordinator.group.streams.assignor.StickyTaskAssignor";

/// A group type's session, heartbeat and assignment settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GroupTimings {
    /// The default session timeout.
    pub session_timeout_ms: i32,
    /// The smallest session timeout a group may set.
    pub min_session_timeout_ms: i32,
    /// The largest session timeout a group may set.
    pub max_session_timeout_ms: i32,
    /// The default heartbeat interval.
    pub heartbeat_interval_ms: i32,
    /// The smallest heartbeat interval a group may set.
    pub min_heartbeat_interval_ms: i32,
    /// The largest heartbeat interval a group may set.
    pub max_heartbeat_interval_ms: i32,
    /// The default assignment interval.
    pub assignment_interval_ms: i32,
    /// The smallest assignment interval a group may set.
    pub min_assignment_interval_ms: i32,
    /// The largest assignment interval a group may set.
    pub max_assignment_interval_ms: i32,
}

/// The group coordinator settings of a controller (Kafka's
/// `GroupCoordinatorConfig` and `ShareGroupConfig`, the parts GROUP config
/// validation reads).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GroupSettings {
    /// Consumer groups.
    pub consumer: GroupTimings,
    /// Share groups.
    pub share: GroupTimings,
    /// Streams groups.
    pub streams: GroupTimings,
    /// `group.share.{min,,max}.record.lock.duration.ms`: (min, default, max).
    pub share_record_lock_duration_ms: (i32, i32, i32),
    /// `group.share.{min,,max}.delivery.count.limit`: (min, default, max).
    pub share_delivery_count_limit: (i32, i32, i32),
    /// `group.share.{min,,max}.partition.max.record.locks`: (min, default, max).
    pub share_partition_max_record_locks: (i32, i32, i32),
    /// `group.streams.num.standby.replicas` and its maximum.
    pub streams_standby_replicas: (i32, i32),
    /// `group.streams.task.offset.interval.ms` and its minimum.
    pub streams_task_offset_interval_ms: (i32, i32),
    /// `group.streams.num.warmup.replicas` and its maximum.
    pub streams_warmup_replicas: (i32, i32),
    /// The names of the streams task assignors.
    pub streams_assignor_names: Vec<String>,
}

/// Kafka's `Utils.require`: an `IllegalArgumentException` with `message`.
fn require(holds: bool, message: String) -> Result<(), ConfigError> {
    if holds {
        Ok(())
    } else {
        Err(ConfigError::Inconsistent(message))
    }
}

fn at_least(a: &str, b: &str) -> String {
    format!("{a} must be greater than or equal to {b}")
}

fn at_most(a: &str, b: &str) -> String {
    format!("{a} must be less than or equal to {b}")
}

/// The settings of one group type: session timeout, heartbeat interval and
/// assignment interval, each with its bounds, in that order.
fn timings(props: &Properties, keys: [&Int; 9]) -> Result<GroupTimings, ConfigError> {
    let [session, min_session, max_session, heartbeat, min_heartbeat, max_heartbeat, assignment, min_assignment, max_assignment] =
        keys;
    Ok(GroupTimings {
        session_timeout_ms: session.read(props)?,
        min_session_timeout_ms: min_session.read(props)?,
        max_session_timeout_ms: max_session.read(props)?,
        heartbeat_interval_ms: heartbeat.read(props)?,
        min_heartbeat_interval_ms: min_heartbeat.read(props)?,
        max_heartbeat_interval_ms: max_heartbeat.read(props)?,
        assignment_interval_ms: assignment.read(props)?,
        min_assignment_interval_ms: min_assignment.read(props)?,
        max_assignment_interval_ms: max_assignment.read(props)?,
    })
}

/// Kafka's checks of one group type's settings, in Kafka's order
/// (`verify{Consumer,Share,Streams}GroupConfigs`).
fn verify(t: &GroupTimings, keys: [&Int; 9]) -> Result<(), ConfigError> {
    let [session, min_session, max_session, heartbeat, min_heartbeat, max_heartbeat, assignment, min_assignment, max_assignment] =
        keys;
    let checks = [
        (
            t.max_heartbeat_interval_ms >= t.min_heartbeat_interval_ms,
            at_least(max_heartbeat.key, min_heartbeat.key),
        ),
        (
            t.heartbeat_interval_ms >= t.min_heartbeat_interval_ms,
            at_least(heartbeat.key, min_heartbeat.key),
        ),
        (
            t.heartbeat_interval_ms <= t.max_heartbeat_interval_ms,
            at_most(heartbeat.key, max_heartbeat.key),
        ),
        (
            t.max_session_timeout_ms >= t.min_session_timeout_ms,
            at_least(max_session.key, min_session.key),
        ),
        (
            t.session_timeout_ms >= t.min_session_timeout_ms,
            at_least(session.key, min_session.key),
        ),
        (
            t.session_timeout_ms <= t.max_session_timeout_ms,
            at_most(session.key, max_session.key),
        ),
        (
            t.heartbeat_interval_ms < t.session_timeout_ms,
            format!("{} must be less than {}", heartbeat.key, session.key),
        ),
        (
            t.max_assignment_interval_ms >= t.min_assignment_interval_ms,
            at_least(max_assignment.key, min_assignment.key),
        ),
        (
            t.assignment_interval_ms >= t.min_assignment_interval_ms,
            at_least(assignment.key, min_assignment.key),
        ),
        (
            t.assignment_interval_ms <= t.max_assignment_interval_ms,
            at_most(assignment.key, max_assignment.key),
        ),
    ];
    for (holds, message) in checks {
        require(holds, message)?;
    }
    Ok(())
}

const CONSUMER_KEYS: [&Int; 9] = [
    &CONSUMER_SESSION_TIMEOUT_MS,
    &CONSUMER_MIN_SESSION_TIMEOUT_MS,
    &CONSUMER_MAX_SESSION_TIMEOUT_MS,
    &CONSUMER_HEARTBEAT_INTERVAL_MS,
    &CONSUMER_MIN_HEARTBEAT_INTERVAL_MS,
    &CONSUMER_MAX_HEARTBEAT_INTERVAL_MS,
    &CONSUMER_ASSIGNMENT_INTERVAL_MS,
    &CONSUMER_MIN_ASSIGNMENT_INTERVAL_MS,
    &CONSUMER_MAX_ASSIGNMENT_INTERVAL_MS,
];
const SHARE_KEYS: [&Int; 9] = [
    &SHARE_SESSION_TIMEOUT_MS,
    &SHARE_MIN_SESSION_TIMEOUT_MS,
    &SHARE_MAX_SESSION_TIMEOUT_MS,
    &SHARE_HEARTBEAT_INTERVAL_MS,
    &SHARE_MIN_HEARTBEAT_INTERVAL_MS,
    &SHARE_MAX_HEARTBEAT_INTERVAL_MS,
    &SHARE_ASSIGNMENT_INTERVAL_MS,
    &SHARE_MIN_ASSIGNMENT_INTERVAL_MS,
    &SHARE_MAX_ASSIGNMENT_INTERVAL_MS,
];
const STREAMS_KEYS: [&Int; 9] = [
    &STREAMS_SESSION_TIMEOUT_MS,
    &STREAMS_MIN_SESSION_TIMEOUT_MS,
    &STREAMS_MAX_SESSION_TIMEOUT_MS,
    &STREAMS_HEARTBEAT_INTERVAL_MS,
    &STREAMS_MIN_HEARTBEAT_INTERVAL_MS,
    &STREAMS_MAX_HEARTBEAT_INTERVAL_MS,
    &STREAMS_ASSIGNMENT_INTERVAL_MS,
    &STREAMS_MIN_ASSIGNMENT_INTERVAL_MS,
    &STREAMS_MAX_ASSIGNMENT_INTERVAL_MS,
];

fn default_timings(keys: [&Int; 9]) -> GroupTimings {
    let [session, min_session, max_session, heartbeat, min_heartbeat, max_heartbeat, assignment, min_assignment, max_assignment] =
        keys;
    GroupTimings {
        session_timeout_ms: session.default,
        min_session_timeout_ms: min_session.default,
        max_session_timeout_ms: max_session.default,
        heartbeat_interval_ms: heartbeat.default,
        min_heartbeat_interval_ms: min_heartbeat.default,
        max_heartbeat_interval_ms: max_heartbeat.default,
        assignment_interval_ms: assignment.default,
        min_assignment_interval_ms: min_assignment.default,
        max_assignment_interval_ms: max_assignment.default,
    }
}

impl Default for GroupSettings {
    /// Kafka 4.4's defaults.
    fn default() -> Self {
        let d = |i: &Int| i.default;
        GroupSettings {
            consumer: default_timings(CONSUMER_KEYS),
            share: default_timings(SHARE_KEYS),
            streams: default_timings(STREAMS_KEYS),
            share_record_lock_duration_ms: (
                d(&SHARE_MIN_RECORD_LOCK_DURATION_MS),
                d(&SHARE_RECORD_LOCK_DURATION_MS),
                d(&SHARE_MAX_RECORD_LOCK_DURATION_MS),
            ),
            share_delivery_count_limit: (
                d(&SHARE_MIN_DELIVERY_COUNT_LIMIT),
                d(&SHARE_DELIVERY_COUNT_LIMIT),
                d(&SHARE_MAX_DELIVERY_COUNT_LIMIT),
            ),
            share_partition_max_record_locks: (
                d(&SHARE_MIN_PARTITION_MAX_RECORD_LOCKS),
                d(&SHARE_PARTITION_MAX_RECORD_LOCKS),
                d(&SHARE_MAX_PARTITION_MAX_RECORD_LOCKS),
            ),
            streams_standby_replicas: (
                d(&STREAMS_NUM_STANDBY_REPLICAS),
                d(&STREAMS_MAX_STANDBY_REPLICAS),
            ),
            streams_task_offset_interval_ms: (
                d(&STREAMS_TASK_OFFSET_INTERVAL_MS),
                d(&STREAMS_MIN_TASK_OFFSET_INTERVAL_MS),
            ),
            streams_warmup_replicas: (
                d(&STREAMS_NUM_WARMUP_REPLICAS),
                d(&STREAMS_MAX_WARMUP_REPLICAS),
            ),
            streams_assignor_names: vec!["sticky".to_owned()],
        }
    }
}

/// `group.streams.assignors` as assignor names, with Kafka's duplicate check.
fn streams_assignor_names(props: &Properties) -> Result<Vec<String>, ConfigError> {
    let mut names: Vec<String> = Vec::new();
    for entry in STREAMS_ASSIGNORS
        .read(props)?
        .map(parse_list)
        .unwrap_or_default()
    {
        if entry != "sticky" && entry != STICKY_TASK_ASSIGNOR_CLASS {
            return Err(ConfigError::Invalid {
                key: STREAMS_ASSIGNORS.key.to_owned(),
                value: entry,
                reason: "kraft-rs knows only Kafka's built-in streams task assignor (sticky) \
                         and cannot load Java plugins"
                    .to_owned(),
            });
        }
        if names.iter().any(|n| n == "sticky") {
            return Err(ConfigError::Invalid {
                key: STREAMS_ASSIGNORS.key.to_owned(),
                value: entry,
                reason: "Assignor name 'sticky' is already registered by another configured \
                         assignor. Assignor names, whether built-in or custom, must be unique"
                    .to_owned(),
            });
        }
        names.push("sticky".to_owned());
    }
    Ok(names)
}

impl GroupSettings {
    /// Reads the settings and runs Kafka's start-up checks in Kafka's
    /// order: every value against its definition, the streams assignors,
    /// then `GroupCoordinatorConfig`'s checks, then `ShareGroupConfig`'s.
    pub fn read(props: &Properties) -> Result<GroupSettings, ConfigError> {
        let consumer = timings(props, CONSUMER_KEYS)?;
        let share = timings(props, SHARE_KEYS)?;
        let streams = timings(props, STREAMS_KEYS)?;
        let pair = |value: &Int, bound: &Int| -> Result<(i32, i32), ConfigError> {
            Ok((value.read(props)?, bound.read(props)?))
        };
        let standby = pair(&STREAMS_NUM_STANDBY_REPLICAS, &STREAMS_MAX_STANDBY_REPLICAS)?;
        let task_offset = pair(
            &STREAMS_TASK_OFFSET_INTERVAL_MS,
            &STREAMS_MIN_TASK_OFFSET_INTERVAL_MS,
        )?;
        let warmup = pair(&STREAMS_NUM_WARMUP_REPLICAS, &STREAMS_MAX_WARMUP_REPLICAS)?;
        let triple = |min: &Int, value: &Int, max: &Int| -> Result<(i32, i32, i32), ConfigError> {
            Ok((min.read(props)?, value.read(props)?, max.read(props)?))
        };
        let locks = triple(
            &SHARE_MIN_PARTITION_MAX_RECORD_LOCKS,
            &SHARE_PARTITION_MAX_RECORD_LOCKS,
            &SHARE_MAX_PARTITION_MAX_RECORD_LOCKS,
        )?;
        let delivery = triple(
            &SHARE_MIN_DELIVERY_COUNT_LIMIT,
            &SHARE_DELIVERY_COUNT_LIMIT,
            &SHARE_MAX_DELIVERY_COUNT_LIMIT,
        )?;
        let lock_duration = triple(
            &SHARE_MIN_RECORD_LOCK_DURATION_MS,
            &SHARE_RECORD_LOCK_DURATION_MS,
            &SHARE_MAX_RECORD_LOCK_DURATION_MS,
        )?;
        let streams_assignor_names = streams_assignor_names(props)?;

        verify(&consumer, CONSUMER_KEYS)?;
        verify(&share, SHARE_KEYS)?;
        verify(&streams, STREAMS_KEYS)?;
        let checks = [
            (
                standby.0 <= standby.1,
                at_most(
                    STREAMS_NUM_STANDBY_REPLICAS.key,
                    STREAMS_MAX_STANDBY_REPLICAS.key,
                ),
            ),
            (
                task_offset.0 >= task_offset.1,
                at_least(
                    STREAMS_TASK_OFFSET_INTERVAL_MS.key,
                    STREAMS_MIN_TASK_OFFSET_INTERVAL_MS.key,
                ),
            ),
            (
                warmup.0 <= warmup.1,
                at_most(
                    STREAMS_NUM_WARMUP_REPLICAS.key,
                    STREAMS_MAX_WARMUP_REPLICAS.key,
                ),
            ),
            (
                delivery.2 >= delivery.1,
                at_least(
                    SHARE_MAX_DELIVERY_COUNT_LIMIT.key,
                    SHARE_DELIVERY_COUNT_LIMIT.key,
                ),
            ),
            (
                delivery.1 >= delivery.0,
                at_least(
                    SHARE_DELIVERY_COUNT_LIMIT.key,
                    SHARE_MIN_DELIVERY_COUNT_LIMIT.key,
                ),
            ),
            (
                locks.2 >= locks.1,
                at_least(
                    SHARE_MAX_PARTITION_MAX_RECORD_LOCKS.key,
                    SHARE_PARTITION_MAX_RECORD_LOCKS.key,
                ),
            ),
            (
                locks.1 >= locks.0,
                at_least(
                    SHARE_PARTITION_MAX_RECORD_LOCKS.key,
                    SHARE_MIN_PARTITION_MAX_RECORD_LOCKS.key,
                ),
            ),
            (
                lock_duration.1 >= lock_duration.0,
                at_least(
                    SHARE_RECORD_LOCK_DURATION_MS.key,
                    SHARE_MIN_RECORD_LOCK_DURATION_MS.key,
                ),
            ),
            (
                lock_duration.2 >= lock_duration.1,
                at_least(
                    SHARE_MAX_RECORD_LOCK_DURATION_MS.key,
                    SHARE_RECORD_LOCK_DURATION_MS.key,
                ),
            ),
        ];
        for (holds, message) in checks {
            require(holds, message)?;
        }
        Ok(GroupSettings {
            consumer,
            share,
            streams,
            share_record_lock_duration_ms: lock_duration,
            share_delivery_count_limit: delivery,
            share_partition_max_record_locks: locks,
            streams_standby_replicas: standby,
            streams_task_offset_interval_ms: task_offset,
            streams_warmup_replicas: warmup,
            streams_assignor_names,
        })
    }
}
