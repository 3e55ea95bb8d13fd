//! The effective configs of a new topic, as a CreateTopics response lists
//! them (Kafka's `KafkaConfigSchema.resolveEffectiveTopicConfigs`).

use std::collections::HashMap;

use super::validate::convert_synonym;
use super::{definitions, source};

/// A layer of broker configs, by name.
type Lookup<'a> = &'a dyn Fn(&str) -> Option<String>;

/// One effective config of a topic, as a CreateTopics response carries it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EffectiveConfig {
    /// The config name.
    pub name: String,
    /// Its value; `None` for a sensitive config (or a null default).
    pub value: Option<String>,
    /// Always false: Kafka reports no topic config read-only.
    pub read_only: bool,
    /// Where the value comes from, as a DescribeConfigs `ConfigSource` id
    /// (see [`source`](super::source)).
    pub source: i8,
    /// Whether the config is sensitive (a PASSWORD).
    pub sensitive: bool,
}

/// The effective configs of a topic created with `creation` (a later
/// duplicate name wins), sorted by name: for each topic config, the
/// topic's own value (source TOPIC_CONFIG), else its first broker synonym
/// set among the cluster-wide dynamic defaults (the BROKER resource `""`,
/// source DYNAMIC_DEFAULT_BROKER_CONFIG), else among the controller's
/// static configs (STATIC_BROKER_CONFIG), else its default
/// (DEFAULT_CONFIG). Synonyms in hours or minutes are converted to
/// milliseconds. Internal configs appear only when `creation` sets them.
///
/// Kafka also consults the controller's own dynamic node configs (the
/// BROKER resource named after its node id) between the topic and the
/// cluster defaults: see [`effective_topic_configs_layered`].
#[cfg(test)]
pub fn effective_topic_configs<C, CV, S, SV>(
    creation: &[(String, String)],
    cluster_default: C,
    static_controller: S,
) -> Vec<EffectiveConfig>
where
    C: Fn(&str) -> Option<CV>,
    CV: AsRef<str>,
    S: Fn(&str) -> Option<SV>,
    SV: AsRef<str>,
{
    effective_topic_configs_layered(
        creation,
        |_| None::<&str>,
        cluster_default,
        static_controller,
    )
}

/// [`effective_topic_configs`] with the controller's own dynamic node
/// configs (`node`, source DYNAMIC_BROKER_CONFIG) consulted before the
/// cluster defaults, as Kafka does.
pub fn effective_topic_configs_layered<N, NV, C, CV, S, SV>(
    creation: &[(String, String)],
    node: N,
    cluster_default: C,
    static_controller: S,
) -> Vec<EffectiveConfig>
where
    N: Fn(&str) -> Option<NV>,
    NV: AsRef<str>,
    C: Fn(&str) -> Option<CV>,
    CV: AsRef<str>,
    S: Fn(&str) -> Option<SV>,
    SV: AsRef<str>,
{
    let topic: HashMap<&str, &str> = creation
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    let node = |name: &str| node(name).map(|v| v.as_ref().to_owned());
    let cluster = |name: &str| cluster_default(name).map(|v| v.as_ref().to_owned());
    let statics = |name: &str| static_controller(name).map(|v| v.as_ref().to_owned());
    let layers: [(Lookup<'_>, i8); 3] = [
        (&node, source::DYNAMIC_BROKER_CONFIG),
        (&cluster, source::DYNAMIC_DEFAULT_BROKER_CONFIG),
        (&statics, source::STATIC_BROKER_CONFIG),
    ];
    let mut out: Vec<EffectiveConfig> = definitions()
        .iter()
        .filter(|def| !def.internal || topic.contains_key(def.name))
        .map(|def| {
            let (value, source) = match topic.get(def.name) {
                Some(v) => (Some((*v).to_owned()), source::TOPIC_CONFIG),
                None => layers
                    .iter()
                    .find_map(|(lookup, source)| {
                        def.synonyms.iter().find_map(|(name, unit)| {
                            lookup(name).map(|v| (Some(convert_synonym(&v, *unit)), *source))
                        })
                    })
                    .unwrap_or((def.default.map(str::to_owned), source::DEFAULT_CONFIG)),
            };
            EffectiveConfig {
                name: def.name.to_owned(),
                value: if def.sensitive() { None } else { value },
                read_only: def.read_only(),
                source,
                sensitive: def.sensitive(),
            }
        })
        .collect();
    out.sort_by(|a, b| a.name.cmp(&b.name));
    out
}
