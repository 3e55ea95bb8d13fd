//! The config definitions DescribeConfigs answers from: Kafka 4.4.0's
//! broker, topic, group and client-metrics `ConfigDef`s as
//! `kafka-controller-configs.json` (next to this file) has them. That file
//! is written by Kafka's own classes (`cargo xtask controller-configs`,
//! `tests/interop/controller-configs.sh`); `cargo xtask interop` fails when
//! it is stale.

use std::collections::HashMap;
use std::sync::OnceLock;

use serde_json::Value;

use crate::topic_config::ConfigType;

/// Kafka's dump, compiled in.
const FACTS: &str = include_str!("kafka-controller-configs.json");

/// One config of a `ConfigDef`.
#[derive(Debug, Clone, Default)]
pub(super) struct ConfigDefinition {
    /// The key.
    pub(super) name: String,
    /// Its type; `None` for a type this crate does not know.
    pub(super) config_type: Option<ConfigType>,
    /// Its default as `ConfigDef.convertToString` renders it; `None` for
    /// none or a null one.
    pub(super) default: Option<String>,
    /// An internal config (listed only when set).
    pub(super) internal: bool,
    /// Broker configs: changeable at run time (`ALL_DYNAMIC_CONFIGS`).
    pub(super) dynamic: bool,
    /// Broker configs: dynamic for one node only (`per-broker`).
    pub(super) per_broker: bool,
    /// Broker configs: dynamic only under a listener prefix.
    pub(super) listener_prefix_only: bool,
    /// Broker configs: only a dynamic config (the broker quotas), not one
    /// of the node's configs.
    pub(super) dynamic_only: bool,
    /// Broker configs: the synonyms, highest priority first
    /// (`DynamicBrokerConfig.brokerConfigSynonyms(name, true)`); group
    /// configs: the broker config giving the default.
    pub(super) synonyms: Vec<String>,
    /// The documentation text.
    pub(super) documentation: Option<String>,
}

/// Every definition DescribeConfigs needs.
#[derive(Debug, Default)]
pub(super) struct Definitions {
    /// The broker configs, in definition order.
    pub(super) broker: Vec<ConfigDefinition>,
    broker_index: HashMap<String, usize>,
    /// The documentation of each topic config.
    pub(super) topic_docs: HashMap<String, Option<String>>,
    /// The group configs, in definition order.
    pub(super) group: Vec<ConfigDefinition>,
    /// The group configs' values on a controller without group settings
    /// (`extractGroupConfigMap`).
    pub(super) group_defaults: HashMap<String, Option<String>>,
    /// The client-metrics configs, in definition order.
    pub(super) client_metrics: Vec<ConfigDefinition>,
}

impl Definitions {
    /// The broker config `name`.
    pub(super) fn broker(&self, name: &str) -> Option<&ConfigDefinition> {
        self.broker_index.get(name).map(|&i| &self.broker[i])
    }
}

/// Kafka's `ConfigDef.Type` name as a [`ConfigType`].
pub(super) fn config_type(name: &str) -> Option<ConfigType> {
    Some(match name {
        "BOOLEAN" => ConfigType::Boolean,
        "STRING" => ConfigType::String,
        "INT" => ConfigType::Int,
        "SHORT" => ConfigType::Short,
        "LONG" => ConfigType::Long,
        "DOUBLE" => ConfigType::Double,
        "LIST" => ConfigType::List,
        "CLASS" => ConfigType::Class,
        "PASSWORD" => ConfigType::Password,
        _ => return None,
    })
}

fn text(v: &Value, key: &str) -> Option<String> {
    v.get(key).and_then(Value::as_str).map(str::to_owned)
}

fn flag(v: &Value, key: &str) -> bool {
    v.get(key).and_then(Value::as_bool).unwrap_or(false)
}

fn definition(v: &Value) -> ConfigDefinition {
    let synonyms = match v.get("synonyms") {
        Some(Value::Array(names)) => names
            .iter()
            .filter_map(|n| n.as_str().map(str::to_owned))
            .collect(),
        _ => text(v, "brokerSynonym").into_iter().collect(),
    };
    ConfigDefinition {
        name: text(v, "name").unwrap_or_default(),
        config_type: text(v, "type").as_deref().and_then(config_type),
        default: text(v, "default"),
        internal: flag(v, "internal"),
        dynamic: flag(v, "dynamic"),
        per_broker: text(v, "updateMode").as_deref() == Some("per-broker"),
        listener_prefix_only: flag(v, "listenerPrefixOnly"),
        dynamic_only: flag(v, "dynamicOnly"),
        synonyms,
        documentation: text(v, "documentation"),
    }
}

fn list(facts: &Value, key: &str) -> Vec<ConfigDefinition> {
    facts
        .get(key)
        .and_then(Value::as_array)
        .map(|a| a.iter().map(definition).collect())
        .unwrap_or_default()
}

fn parse(facts: &str) -> Definitions {
    let facts: Value = match serde_json::from_str(facts) {
        Ok(v) => v,
        Err(e) => {
            tracing::error!("the compiled-in config definitions do not parse: {e}");
            Value::Null
        }
    };
    let broker = list(&facts, "broker");
    let broker_index = broker
        .iter()
        .enumerate()
        .map(|(i, d)| (d.name.clone(), i))
        .collect();
    let topic_docs = list(&facts, "topic")
        .into_iter()
        .map(|d| (d.name, d.documentation))
        .collect();
    let group_defaults = facts
        .get("groupDefaults")
        .and_then(Value::as_object)
        .map(|m| {
            m.iter()
                .map(|(k, v)| (k.clone(), v.as_str().map(str::to_owned)))
                .collect()
        })
        .unwrap_or_default();
    Definitions {
        broker,
        broker_index,
        topic_docs,
        group: list(&facts, "group"),
        group_defaults,
        client_metrics: list(&facts, "clientMetrics"),
    }
}

/// The definitions, parsed once.
pub(super) fn definitions() -> &'static Definitions {
    static DEFINITIONS: OnceLock<Definitions> = OnceLock::new();
    DEFINITIONS.get_or_init(|| parse(FACTS))
}

/// `KafkaConfig.configType`: the broker config's type, else the type of
/// its first synonym that has one.
pub(super) fn broker_config_type(name: &str) -> Option<ConfigType> {
    let defs = definitions();
    defs.broker(name).and_then(|d| d.config_type).or_else(|| {
        broker_synonyms(name).iter().find_map(|s| {
            defs.broker(s)
                .filter(|d| !d.dynamic_only)
                .and_then(|d| d.config_type)
        })
    })
}

/// `DynamicBrokerConfig.brokerConfigSynonyms(name, true)` for a name the
/// broker definition may not have (a listener override, say): the
/// definition's synonyms, else the listener-prefix rule, else the name.
pub(super) fn broker_synonyms(name: &str) -> Vec<String> {
    if let Some(def) = definitions().broker(name) {
        if !def.synonyms.is_empty() {
            return def.synonyms.clone();
        }
    }
    if let Some(rest) = name.strip_prefix("listener.name.") {
        if let Some((_listener, base)) = rest.split_once('.') {
            const MECHANISM_CONFIGS: [&str; 5] = [
                "sasl.jaas.config",
                "sasl.login.callback.handler.class",
                "sasl.login.class",
                "sasl.server.callback.handler.class",
                "connections.max.reauth.ms",
            ];
            let base = MECHANISM_CONFIGS
                .iter()
                .find(|m| base.ends_with(*m))
                .map_or(base, |m| *m);
            return vec![name.to_owned(), base.to_owned()];
        }
    }
    vec![name.to_owned()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kafkas_definitions_are_compiled_in() {
        let defs = definitions();
        assert_eq!(defs.broker.len(), defs.broker_index.len());
        let retention = defs.broker("log.retention.ms").expect("log.retention.ms");
        assert_eq!(retention.config_type, Some(ConfigType::Long));
        assert!(retention.dynamic);
        assert_eq!(
            retention.synonyms,
            [
                "log.retention.ms",
                "log.retention.minutes",
                "log.retention.hours"
            ]
        );
        assert!(!defs.broker("node.id").expect("node.id").dynamic);
        assert!(defs.topic_docs.contains_key("retention.ms"));
        assert!(defs
            .group
            .iter()
            .any(|g| g.name == "consumer.session.timeout.ms"));
        assert_eq!(
            defs.client_metrics
                .iter()
                .map(|d| d.name.as_str())
                .collect::<Vec<_>>(),
            ["metrics", "interval.ms", "match"]
        );
    }

    #[test]
    fn listener_overrides_have_their_base_config_as_synonym() {
        assert_eq!(
            broker_synonyms("listener.name.sasl_ssl.plain.sasl.jaas.config"),
            [
                "listener.name.sasl_ssl.plain.sasl.jaas.config",
                "sasl.jaas.config"
            ]
        );
        assert_eq!(
            broker_synonyms("listener.name.ssl.ssl.keystore.location"),
            [
                "listener.name.ssl.ssl.keystore.location",
                "ssl.keystore.location"
            ]
        );
        assert_eq!(broker_synonyms("no.such.config"), ["no.such.config"]);
    }
}
