//! The topic configs of Kafka 4.4.0, in the order Kafka defines (and
//! therefore parses) them. Checked against Kafka's own classes by the dump
//! test in `tests.rs`.

use super::{ConfigType, SynonymUnit, TopicConfigDef, Validator};

/// Topic configs that share one shape: name, type, rendered default,
/// validator, broker synonyms.
macro_rules! defs {
    ($( $name:literal: $ty:ident = $default:expr, $validator:expr, [$($syn:literal $unit:ident),*] $(, $internal:ident)?; )*) => {
        &[$(TopicConfigDef {
            name: $name,
            config_type: ConfigType::$ty,
            default: $default,
            validator: $validator,
            synonyms: &[$(($syn, SynonymUnit::$unit)),*],
            internal: defs!(@internal $($internal)?),
        }),*]
    };
    (@internal) => { false };
    (@internal internal) => { true };
}

const I64_MAX: Option<&str> = Some("9223372036854775807");

/// Every topic config of Kafka 4.4.0's `LogConfig`, in definition order.
pub(super) static TOPIC_CONFIGS: &[TopicConfigDef] = defs! {
    "segment.bytes": Int = Some("1073741824"), Validator::AtLeast(1_048_576),
        ["log.segment.bytes" Same];
    "segment.ms": Long = Some("604800000"), Validator::AtLeast(1),
        ["log.roll.ms" Same, "log.roll.hours" Hours];
    "segment.jitter.ms": Long = Some("0"), Validator::AtLeast(0),
        ["log.roll.jitter.ms" Same, "log.roll.jitter.hours" Hours];
    "segment.index.bytes": Int = Some("10485760"), Validator::AtLeast(4),
        ["log.index.size.max.bytes" Same];
    "flush.messages": Long = I64_MAX, Validator::AtLeast(1),
        ["log.flush.interval.messages" Same];
    "flush.ms": Long = I64_MAX, Validator::AtLeast(0),
        ["log.flush.interval.ms" Same, "log.flush.scheduler.interval.ms" Same];
    "retention.bytes": Long = Some("-1"), Validator::None,
        ["log.retention.bytes" Same];
    "retention.ms": Long = Some("604800000"), Validator::AtLeast(-1),
        ["log.retention.ms" Same, "log.retention.minutes" Minutes, "log.retention.hours" Hours];
    "max.message.bytes": Int = Some("1048588"), Validator::AtLeast(0),
        ["message.max.bytes" Same];
    "max.decompressed.message.bytes": Int = Some("2147483639"), Validator::Between(1, 2_147_483_639),
        ["max.decompressed.message.bytes" Same];
    "index.interval.bytes": Int = Some("4096"), Validator::AtLeast(0),
        ["log.index.interval.bytes" Same];
    "delete.retention.ms": Long = Some("86400000"), Validator::AtLeast(0),
        ["log.cleaner.delete.retention.ms" Same];
    "min.compaction.lag.ms": Long = Some("0"), Validator::AtLeast(0),
        ["log.cleaner.min.compaction.lag.ms" Same];
    "max.compaction.lag.ms": Long = I64_MAX, Validator::AtLeast(1),
        ["log.cleaner.max.compaction.lag.ms" Same];
    "file.delete.delay.ms": Long = Some("60000"), Validator::AtLeast(0),
        ["log.segment.delete.delay.ms" Same];
    "min.cleanable.dirty.ratio": Double = Some("0.5"), Validator::Between(0, 1),
        ["log.cleaner.min.cleanable.ratio" Same];
    "cleanup.policy": List = Some("delete"), Validator::ListOf(&["compact", "delete"]),
        ["log.cleanup.policy" Same];
    "unclean.leader.election.enable": Boolean = Some("false"), Validator::None,
        ["unclean.leader.election.enable" Same];
    "min.insync.replicas": Int = Some("1"), Validator::AtLeast(1),
        ["min.insync.replicas" Same];
    "compression.type": String = Some("producer"),
        Validator::OneOf(&["uncompressed", "zstd", "lz4", "snappy", "gzip", "producer"]),
        ["compression.type" Same];
    "compression.gzip.level": Int = Some("-1"), Validator::LevelOrDefault { min: 1, max: 9, default: -1 },
        ["compression.gzip.level" Same];
    "compression.lz4.level": Int = Some("9"), Validator::Between(1, 17),
        ["compression.lz4.level" Same];
    "compression.zstd.level": Int = Some("3"), Validator::Between(-131_072, 22),
        ["compression.zstd.level" Same];
    "preallocate": Boolean = Some("false"), Validator::None,
        ["log.preallocate" Same];
    "message.timestamp.type": String = Some("CreateTime"), Validator::OneOf(&["CreateTime", "LogAppendTime"]),
        ["log.message.timestamp.type" Same];
    "message.timestamp.before.max.ms": Long = I64_MAX, Validator::AtLeast(0),
        ["log.message.timestamp.before.max.ms" Same];
    "message.timestamp.after.max.ms": Long = Some("3600000"), Validator::AtLeast(0),
        ["log.message.timestamp.after.max.ms" Same];
    "leader.replication.throttled.replicas": List = Some(""), Validator::ThrottledReplicas, [];
    "follower.replication.throttled.replicas": List = Some(""), Validator::ThrottledReplicas, [];
    "remote.storage.enable": Boolean = Some("false"), Validator::None, [];
    "local.retention.ms": Long = Some("-2"), Validator::AtLeast(-2),
        ["log.local.retention.ms" Same];
    "local.retention.bytes": Long = Some("-2"), Validator::AtLeast(-2),
        ["log.local.retention.bytes" Same];
    "remote.log.copy.disable": Boolean = Some("false"), Validator::None, [];
    "remote.copy.lag.ms": Long = Some("0"), Validator::AtLeast(-1),
        ["log.remote.copy.lag.ms" Same];
    "remote.copy.lag.bytes": Long = Some("-1"), Validator::AtLeast(-1),
        ["log.remote.copy.lag.bytes" Same];
    "remote.log.delete.on.disable": Boolean = Some("false"), Validator::None, [];
    "errors.deadletterqueue.group.enable": Boolean = Some("false"), Validator::None, [];
    "internal.segment.bytes": Int = None, Validator::None, [], internal;
};
