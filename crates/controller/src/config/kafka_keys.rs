//! What kraft-rs does with each key of a Kafka 4.4 controller's
//! configuration (Kafka's broker `ConfigDef`, as dumped into
//! `handlers/configs/kafka-controller-configs.json`): read and honoured,
//! not applicable (with the reason), not applied yet (a warning at start),
//! or refused at start. `docs/configuration.md` lists every key with its
//! handling; a test fails when Kafka's definition gains a key no rule
//! here classifies.

use std::sync::OnceLock;

use serde_json::Value;

use super::security::REFUSED_PLUGIN_KEYS;
use super::settings::SETTINGS;
use super::transport;

/// Kafka's dump of its config definitions, compiled in.
const FACTS: &str = include_str!("../handlers/configs/kafka-controller-configs.json");

/// What kraft-rs does with one Kafka key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Handling {
    /// Read from the configuration file and honoured; the text says where.
    Read(&'static str),
    /// Has no meaning on a kraft-rs controller; the text says why. Set, it
    /// is logged once at start and otherwise ignored.
    NotApplicable(&'static str),
    /// Has a meaning on a Kafka controller that kraft-rs does not apply
    /// yet; set, a warning at start says so.
    NotApplied(&'static str),
    /// Refused at start when set; the text says why.
    Refused(&'static str),
}

const IN_TABLES: &str = "read and honoured (see the tables above)";
const TOPIC_SYNONYM: &str = "read: the static value of a topic config's broker synonym, used for topics that do not set it (CreateTopics' effective configs, config validation, DescribeConfigs), as on a Kafka controller";
const GROUP_SYNONYM: &str = "read: the static value of a group config's broker synonym, shown by DescribeConfigs for groups that do not set it";
const REFUSED: &str =
    "refused at start when set: a Java plugin (see \"Keys that decide who may do what\")";

const BROKER_LOGS: &str = "a broker's partition logs; a controller keeps only the metadata log (the `metadata.log.*` keys)";
const TRANSACTIONS: &str = "a broker's transaction coordinator";
const GROUP_COORDINATOR: &str = "a broker's group coordinator (GROUP config validation reads the `group.*` bounds listed above)";
const SHARE_COORDINATOR: &str = "a broker's share coordinator";
const REPLICATION: &str = "a broker's replica fetchers and replica management";
const THROTTLES: &str = "a broker's replication throttles (`kafka-reassign-partitions --throttle` sets them on brokers)";
const TIERED: &str =
    "a broker's tiered storage; the controllers read only `remote.log.storage.system.enable`";
const BROKER_REQUESTS: &str =
    "requests only brokers serve (Fetch, Produce, DeleteRecords, share fetches)";
const INTER_BROKER: &str = "broker-to-broker connections; controllers use `controller.listener.names` and `sasl.mechanism.controller.protocol`";
const THREADS: &str = "a thread pool of Kafka's JVM server; kraft-rs runs on an asynchronous runtime with one worker thread per core";
const QUEUE: &str = "Kafka's request queue between its network and I/O threads; kraft-rs has none (a connection's requests are handled in order, `socket.request.max.bytes` bounds each)";
const JMX: &str = "Kafka's JMX metrics and Java reporter plugins; kraft-rs serves Prometheus metrics on `kraft.metrics.listener`";
const OWN_LOGIN: &str = "this node's own OAUTHBEARER or Kerberos login; kraft-rs controllers refuse both as `sasl.mechanism.controller.protocol`";

/// The keys kraft-rs does not read, by rule: an exact key, or a prefix
/// ending in `.`. The first rule that matches applies.
const RULES: &[(&str, Handling)] = &[
    (
        "cordoned.log.dirs",
        Handling::NotApplicable("a broker's own log directories; set at run time for a broker, it is validated as Kafka's controller validates it"),
    ),
    ("log.", Handling::NotApplicable(BROKER_LOGS)),
    ("num.recovery.threads.per.data.dir", Handling::NotApplicable(BROKER_LOGS)),
    ("add.partitions.to.txn.", Handling::NotApplicable(TRANSACTIONS)),
    ("transaction.", Handling::NotApplicable(TRANSACTIONS)),
    ("transactional.id.expiration.ms", Handling::NotApplicable(TRANSACTIONS)),
    ("producer.id.expiration.", Handling::NotApplicable(TRANSACTIONS)),
    ("offsets.", Handling::NotApplicable(GROUP_COORDINATOR)),
    ("offset.metadata.max.bytes", Handling::NotApplicable(GROUP_COORDINATOR)),
    ("group.", Handling::NotApplicable(GROUP_COORDINATOR)),
    ("share.coordinator.", Handling::NotApplicable(SHARE_COORDINATOR)),
    (
        "errors.deadletterqueue.",
        Handling::NotApplicable("a broker's dead-letter queue of share groups"),
    ),
    ("num.replica.", Handling::NotApplicable(REPLICATION)),
    ("replica.", Handling::NotApplicable(REPLICATION)),
    ("alter.log.dirs.replication.quota.", Handling::NotApplicable(THROTTLES)),
    ("replication.quota.", Handling::NotApplicable(THROTTLES)),
    ("leader.replication.throttled.rate", Handling::NotApplicable(THROTTLES)),
    ("follower.replication.throttled.rate", Handling::NotApplicable(THROTTLES)),
    ("remote.", Handling::NotApplicable(TIERED)),
    ("follower.fetch.last.tiered.offset.enable", Handling::NotApplicable(TIERED)),
    ("fetch.max.bytes", Handling::NotApplicable(BROKER_REQUESTS)),
    ("max.incremental.fetch.session.cache.slots", Handling::NotApplicable(BROKER_REQUESTS)),
    ("max.request.partition.size.limit", Handling::NotApplicable(BROKER_REQUESTS)),
    ("fetch.purgatory.purge.interval.requests", Handling::NotApplicable(BROKER_REQUESTS)),
    ("producer.purgatory.purge.interval.requests", Handling::NotApplicable(BROKER_REQUESTS)),
    ("delete.records.purgatory.purge.interval.requests", Handling::NotApplicable(BROKER_REQUESTS)),
    ("share.fetch.purgatory.purge.interval.requests", Handling::NotApplicable(BROKER_REQUESTS)),
    (
        "auto.create.topics.enable",
        Handling::NotApplicable("brokers create topics automatically by sending CreateTopics, which the controllers serve"),
    ),
    (
        "broker.rack",
        Handling::NotApplicable("a broker's rack; the controllers read each broker's rack from its registration"),
    ),
    (
        "controlled.shutdown.enable",
        Handling::NotApplicable("a broker's side of controlled shutdown; the controllers serve it through broker heartbeats"),
    ),
    (
        "initial.broker.registration.timeout.ms",
        Handling::NotApplicable("a broker's wait for its registration"),
    ),
    (
        "server.max.startup.time.ms",
        Handling::NotApplicable("a broker's wait for the metadata to catch up at start"),
    ),
    (
        "controller.socket.timeout.ms",
        Handling::NotApplicable("brokers' connections to the controllers"),
    ),
    (
        "request.timeout.ms",
        Handling::NotApplicable("brokers' client connections; controllers time their own RPCs with `controller.quorum.request.timeout.ms`"),
    ),
    ("inter.broker.listener.name", Handling::NotApplicable(INTER_BROKER)),
    ("security.inter.broker.protocol", Handling::NotApplicable(INTER_BROKER)),
    ("sasl.mechanism.inter.broker.protocol", Handling::NotApplicable(INTER_BROKER)),
    (
        "telemetry.max.bytes",
        Handling::NotApplicable("client telemetry, which clients push to brokers (KIP-714)"),
    ),
    ("num.network.threads", Handling::NotApplicable(THREADS)),
    ("num.io.threads", Handling::NotApplicable(THREADS)),
    ("background.threads", Handling::NotApplicable(THREADS)),
    ("queued.max.requests", Handling::NotApplicable(QUEUE)),
    ("queued.max.request.bytes", Handling::NotApplicable(QUEUE)),
    ("metric.reporters", Handling::NotApplicable(JMX)),
    ("metrics.", Handling::NotApplicable(JMX)),
    ("kafka.metrics.", Handling::NotApplicable(JMX)),
    (
        "internal.metadata.",
        Handling::NotApplicable("internal settings of Kafka's own tests"),
    ),
    (
        "sasl.jaas.config",
        Handling::NotApplicable("a Kafka server takes each listener's JAAS entry from `listener.name.<listener>.<mechanism>.sasl.jaas.config`, as kraft-rs does"),
    ),
    (
        "sasl.kerberos.",
        Handling::NotApplicable("Kerberos (GSSAPI), which kraft-rs refuses at start"),
    ),
    ("sasl.login.", Handling::NotApplicable(OWN_LOGIN)),
    ("sasl.oauthbearer.assertion.", Handling::NotApplicable(OWN_LOGIN)),
    ("sasl.oauthbearer.client.credentials.", Handling::NotApplicable(OWN_LOGIN)),
    ("sasl.oauthbearer.scope", Handling::NotApplicable(OWN_LOGIN)),
    ("sasl.oauthbearer.token.endpoint.url", Handling::NotApplicable(OWN_LOGIN)),
    ("sasl.oauthbearer.jwt.retriever.class", Handling::NotApplicable(OWN_LOGIN)),
    (
        "socket.connection.setup.timeout.",
        Handling::NotApplied("kraft-rs's connections to other controllers time out after `controller.quorum.request.timeout.ms`"),
    ),
];

/// The rule of `key`, if one matches.
fn rule(key: &str) -> Option<&'static (&'static str, Handling)> {
    RULES.iter().find(|(pattern, _)| {
        if pattern.ends_with('.') {
            key.starts_with(pattern)
        } else {
            key == *pattern
        }
    })
}

/// Whether `key` is the broker synonym of a topic config.
fn topic_synonym(key: &str) -> bool {
    crate::topic_config::definitions()
        .iter()
        .any(|d| d.synonyms.iter().any(|(name, _)| *name == key))
}

/// The broker keys Kafka's dump lists, in definition order, and the broker
/// synonyms of its group configs.
struct Facts {
    broker: Vec<String>,
    group_synonyms: Vec<String>,
}

fn facts() -> &'static Facts {
    static FACTS_PARSED: OnceLock<Facts> = OnceLock::new();
    FACTS_PARSED.get_or_init(|| {
        let value: Value = serde_json::from_str(FACTS).unwrap_or(Value::Null);
        let names = |section: &str, field: &str| -> Vec<String> {
            value[section]
                .as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(|c| c[field].as_str().map(str::to_owned))
                        .collect()
                })
                .unwrap_or_default()
        };
        Facts {
            broker: names("broker", "name"),
            group_synonyms: names("group", "brokerSynonym"),
        }
    })
}

/// What kraft-rs does with `key`, a key of Kafka's broker config
/// definition or of kraft-rs's own; `None` for a key neither knows.
pub fn handling(key: &str) -> Option<Handling> {
    if REFUSED_PLUGIN_KEYS.iter().any(|(k, _)| *k == key) {
        return Some(Handling::Refused(REFUSED));
    }
    if SETTINGS.iter().any(|s| s.key() == key)
        || transport::is_transport_key(key)
        || super::connections::ConnectionLimits::is_listener_key(key)
    {
        return Some(Handling::Read(IN_TABLES));
    }
    if topic_synonym(key) {
        return Some(Handling::Read(TOPIC_SYNONYM));
    }
    if facts().group_synonyms.iter().any(|k| k == key) {
        return Some(Handling::Read(GROUP_SYNONYM));
    }
    rule(key).map(|(_, h)| *h)
}

/// The Markdown section listing every key of Kafka's broker definition.
pub fn reference_markdown() -> String {
    let mut keys = facts().broker.clone();
    keys.sort();
    let mut out = String::from(
        "\n## Every key of a Kafka 4.4 controller\n\n\
         Each key of Kafka 4.4's broker configuration (the definition a Kafka controller \
         reads), and what kraft-rs does with it. \"Not applicable\" keys are logged once at \
         start when set; \"not applied\" keys have a meaning on a Kafka controller that \
         kraft-rs does not implement, and a warning at start says so. Every key, read or \
         not, is listed by DescribeConfigs with the value the file gives it.\n\n\
         | key | what kraft-rs does |\n| --- | --- |\n",
    );
    for key in keys {
        let text = match handling(&key) {
            Some(Handling::Read(why)) => why.to_owned(),
            Some(Handling::NotApplicable(why)) => format!("not applicable: {why}"),
            Some(Handling::NotApplied(why)) => format!("**not applied**: {why}"),
            Some(Handling::Refused(why)) => why.to_owned(),
            None => "unclassified".to_owned(),
        };
        out.push_str(&format!("| `{key}` | {text} |\n"));
    }
    out
}

/// The start-up message for a key of the file that kraft-rs does not read,
/// or `None` for a key it reads.
pub fn warning(key: &str) -> Option<String> {
    match handling(key) {
        Some(Handling::Read(_) | Handling::Refused(_)) => None,
        Some(Handling::NotApplicable(why)) => Some(format!(
            "Ignoring configuration {key}: it is not applicable to a kraft-rs controller ({why})."
        )),
        Some(Handling::NotApplied(why)) => {
            Some(format!("Configuration {key} is not applied: {why}."))
        }
        None => Some(format!("Ignoring unknown configuration {key}.")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kafka_key_is_classified_and_every_rule_is_used() {
        let broker = &facts().broker;
        // Kafka 4.4's broker definition, as dumped by Kafka's own classes.
        assert!(broker.len() > 300, "{} keys", broker.len());
        let unclassified: Vec<&String> = broker.iter().filter(|k| handling(k).is_none()).collect();
        assert!(unclassified.is_empty(), "unclassified: {unclassified:?}");
        for (pattern, _) in RULES {
            let used = broker.iter().any(|k| {
                handling(k).is_some()
                    && rule(k).is_some_and(|(p, _)| p == pattern)
                    && matches!(
                        handling(k),
                        Some(Handling::NotApplicable(_) | Handling::NotApplied(_))
                    )
            });
            assert!(
                used,
                "rule {pattern} classifies no key of Kafka's definition"
            );
        }
    }

    #[test]
    fn read_keys_win_over_rules() {
        // Prefix rules do not shadow keys kraft-rs reads.
        assert_eq!(handling("log.dirs"), Some(Handling::Read(IN_TABLES)));
        assert_eq!(
            handling("log.retention.hours"),
            Some(Handling::Read(TOPIC_SYNONYM))
        );
        assert_eq!(
            handling("group.consumer.heartbeat.interval.ms"),
            Some(Handling::Read(IN_TABLES))
        );
        assert_eq!(
            handling("remote.log.storage.system.enable"),
            Some(Handling::Read(IN_TABLES))
        );
        assert_eq!(
            handling("log.cleaner.threads"),
            Some(Handling::NotApplicable(BROKER_LOGS))
        );
        assert_eq!(
            handling("config.providers"),
            Some(Handling::Refused(REFUSED))
        );
        assert_eq!(handling("no.such.key"), None);
    }

    #[test]
    fn warnings_name_the_key_and_the_reason() {
        assert_eq!(warning("log.retention.ms"), None);
        assert_eq!(warning("num.io.threads").as_deref(), Some("Ignoring configuration num.io.threads: it is not applicable to a kraft-rs controller (a thread pool of Kafka's JVM server; kraft-rs runs on an asynchronous runtime with one worker thread per core)."));
        assert_eq!(warning("max.connection.creation.rate"), None);
        assert_eq!(warning("quota.window.num"), None);
        assert_eq!(
            warning("listener.name.controller.max.connection.creation.rate"),
            None
        );
        assert_eq!(warning("max.connections"), None);
        assert_eq!(warning("listener.name.controller.max.connections"), None);
        assert_eq!(
            warning("no.such.key").as_deref(),
            Some("Ignoring unknown configuration no.such.key.")
        );
    }
}
