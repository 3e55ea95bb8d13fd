//! DescribeConfigs (32), answered by any controller from its own image and
//! settings as Kafka's `ConfigHelper` does on a controller:
//!
//! * authorization first: DESCRIBE_CONFIGS on the cluster for BROKER,
//!   BROKER_LOGGER and CLIENT_METRICS resources, on the topic or the group
//!   for theirs; refused resources are answered after the others with
//!   CLUSTER_ / TOPIC_ / GROUP_AUTHORIZATION_FAILED and the code's text. A
//!   resource of another type fails the whole request (`INVALID_REQUEST`);
//! * TOPIC: the name is checked (`INVALID_TOPIC_EXCEPTION`), an unknown
//!   topic is `UNKNOWN_TOPIC_OR_PARTITION` with an empty message (as a
//!   successful result's); every topic
//!   config with its value, source and synonyms (the topic's own value,
//!   then its broker synonyms as set on this node, as cluster defaults, in
//!   the static configuration and by default);
//! * BROKER: `""` lists the cluster-wide dynamic defaults, this node's id
//!   every config of this node (its static configuration, overridden by the
//!   dynamic configs Kafka's `DynamicBrokerConfig` would accept), another id
//!   is `INVALID_REQUEST`;
//! * BROKER_LOGGER: this node's loggers ([`crate::loggers`]);
//! * CLIENT_METRICS and GROUP: the resource's configs over their defaults
//!   (a group config's default is its broker synonym's value on this node).
//!
//! Sensitive values (PASSWORD, or a broker config of unknown type) are
//! null; types and documentation come from Kafka's own definitions
//! ([`super::definitions`]). Configs are listed in definition order (Kafka:
//! its hash map's order), restricted to the requested keys when any are
//! given.

use std::collections::{BTreeMap, HashMap};

use kraft_protocol::acl::{AclOperation, ResourceType};
use kraft_protocol::messages::describe_configs_request::{
    DescribeConfigsRequest, DescribeConfigsResource,
};
use kraft_protocol::messages::describe_configs_response::{
    DescribeConfigsResourceResult, DescribeConfigsResponse, DescribeConfigsResult,
    DescribeConfigsSynonym,
};
use kraft_protocol::{ErrorCode, StrBytes};

use super::definitions::{broker_config_type, broker_synonyms, definitions, ConfigDefinition};
use super::invalid_request;
use super::java_text::java_parse_int;
use crate::handlers::authz::{Access, Refusal, CLUSTER_NAME};
use crate::handlers::{ApiError, Controller};
use crate::image::{ConfigResource, MetadataImage};
use crate::topic_config::{self, render_value, source, synonym_value, ConfigType};

/// Kafka's longest topic name.
const MAX_TOPIC_NAME_LENGTH: usize = 249;

/// A config's synonym: (name, value, source).
type Synonym = (String, Option<String>, i8);

/// `DescribeConfigsResponse.ConfigType` id of a `ConfigDef.Type`.
fn type_id(config_type: Option<ConfigType>) -> i8 {
    match config_type {
        None => 0,
        Some(ConfigType::Boolean) => 1,
        Some(ConfigType::String) => 2,
        Some(ConfigType::Int) => 3,
        Some(ConfigType::Short) => 4,
        Some(ConfigType::Long) => 5,
        Some(ConfigType::Double) => 6,
        Some(ConfigType::List) => 7,
        Some(ConfigType::Class) => 8,
        Some(ConfigType::Password) => 9,
    }
}

/// `KafkaConfig.maybeSensitive`: a PASSWORD, or a type nobody knows.
fn maybe_sensitive(config_type: Option<ConfigType>) -> bool {
    config_type.is_none_or(ConfigType::is_sensitive)
}

/// `Topic.validate`'s reason, `None` for a valid name.
fn invalid_topic_reason(name: &str) -> Option<String> {
    if name.is_empty() {
        Some("the empty string is not allowed".to_owned())
    } else if name == "." || name == ".." {
        Some(format!("'{name}' is not allowed"))
    } else if name.encode_utf16().count() > MAX_TOPIC_NAME_LENGTH {
        Some(format!(
            "the length of '{name}' is longer than the max allowed length {MAX_TOPIC_NAME_LENGTH}"
        ))
    } else if !name
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
    {
        Some(format!(
            "'{name}' contains one or more characters other than ASCII alphanumerics, '.', '_' and '-'"
        ))
    } else {
        None
    }
}

/// One listed config, before the request's flags shape it.
struct Entry {
    name: String,
    value: Option<String>,
    source: i8,
    sensitive: bool,
    read_only: bool,
    synonyms: Vec<Synonym>,
    config_type: Option<ConfigType>,
    documentation: Option<String>,
    /// A logger: Kafka leaves the documentation at its schema default
    /// (an empty string) whatever was asked.
    logger: bool,
}

impl Entry {
    fn into_result(self, synonyms: bool, documentation: bool) -> DescribeConfigsResourceResult {
        DescribeConfigsResourceResult {
            name: self.name.into(),
            value: self.value.map(StrBytes::from),
            read_only: self.read_only,
            config_source: self.source,
            is_sensitive: self.sensitive,
            synonyms: if synonyms {
                self.synonyms
                    .into_iter()
                    .map(|(name, value, source)| DescribeConfigsSynonym {
                        name: name.into(),
                        value: value.map(StrBytes::from),
                        source,
                        ..Default::default()
                    })
                    .collect()
            } else {
                Default::default()
            },
            config_type: type_id(self.config_type),
            documentation: if self.logger {
                Some(StrBytes::new())
            } else if documentation {
                self.documentation.map(StrBytes::from)
            } else {
                None
            },
            ..Default::default()
        }
    }
}

/// This node's broker configs, layer by layer, as its `DynamicBrokerConfig`
/// holds them.
struct BrokerLayers<'a> {
    /// The dynamic configs of this node's id it accepts.
    node: HashMap<&'a str, &'a str>,
    /// The cluster-wide dynamic defaults it accepts.
    cluster: HashMap<&'a str, &'a str>,
    /// The static configuration (a later duplicate key wins).
    statics: HashMap<&'a str, &'a str>,
}

/// Whether `DynamicBrokerConfig.fromPersistentProps` keeps a dynamic config
/// (`per_node`: of one node, else a cluster default): a config Kafka does
/// not define, or a dynamic one not needing a listener prefix (and, for a
/// cluster default, not a per-broker one).
fn dynamic_kept(name: &str, per_node: bool) -> bool {
    if name.starts_with("listener.name.") {
        return per_node;
    }
    match definitions().broker(name) {
        None => true,
        Some(def) => def.dynamic && !def.listener_prefix_only && (per_node || !def.per_broker),
    }
}

impl<'a> BrokerLayers<'a> {
    fn new(controller: &'a Controller, image: &'a MetadataImage) -> Self {
        let configs = image.configs();
        let layer = |name: String, per_node: bool| -> HashMap<&'a str, &'a str> {
            configs
                .config(&ConfigResource::new(ConfigResource::BROKER, name))
                .map(|m| {
                    m.iter()
                        .filter(|(k, _)| dynamic_kept(k, per_node))
                        .map(|(k, v)| (k.as_str(), v.as_str()))
                        .collect()
                })
                .unwrap_or_default()
        };
        BrokerLayers {
            node: layer(controller.settings.node_id.to_string(), true),
            cluster: layer(String::new(), false),
            statics: controller.settings.static_configs.iter().collect(),
        }
    }

    /// The value this node runs with (dynamic, then cluster default, then
    /// static), `None` when only the default applies.
    fn value(&self, name: &str) -> Option<&'a str> {
        self.node
            .get(name)
            .or_else(|| self.cluster.get(name))
            .or_else(|| self.statics.get(name))
            .copied()
    }

    /// Kafka's `ConfigHelper.configSynonyms`: every layer's value of each
    /// synonym, layer by layer, from the first entry named `name` on.
    fn synonyms(&self, name: &str, synonyms: &[String], sensitive: bool) -> Vec<Synonym> {
        let defs = definitions();
        let mut out: Vec<Synonym> = Vec::new();
        for (layer, source) in [
            (&self.node, source::DYNAMIC_BROKER_CONFIG),
            (&self.cluster, source::DYNAMIC_DEFAULT_BROKER_CONFIG),
            (&self.statics, source::STATIC_BROKER_CONFIG),
        ] {
            for s in synonyms {
                if let Some(v) = layer.get(s.as_str()) {
                    out.push((s.clone(), (!sensitive).then(|| (*v).to_owned()), source));
                }
            }
        }
        for s in synonyms {
            if let Some(default) = defs.broker(s).and_then(|d| d.default.as_ref()) {
                out.push((
                    s.clone(),
                    (!sensitive).then(|| default.clone()),
                    source::DEFAULT_CONFIG,
                ));
            }
        }
        match out.iter().position(|(n, _, _)| n == name) {
            Some(at) => out.split_off(at),
            None => Vec::new(),
        }
    }

    /// The value of a broker config the way this node's `KafkaConfig`
    /// parses it (`None` when unset without a default).
    fn effective(&self, def: &ConfigDefinition) -> Option<String> {
        match self.value(&def.name) {
            Some(v) => Some(render_value(v, def.config_type)),
            None => def.default.clone(),
        }
    }
}

/// Whether `name` is among the requested keys (null or empty: every key).
fn wanted(keys: Option<&Vec<StrBytes>>, name: &str) -> bool {
    match keys {
        None => true,
        Some(keys) => keys.is_empty() || keys.iter().any(|k| k.as_str() == name),
    }
}

fn error_result(resource: &DescribeConfigsResource, e: &ApiError) -> DescribeConfigsResult {
    DescribeConfigsResult {
        error_code: e.code.code(),
        error_message: e.message.clone().map(StrBytes::from),
        resource_type: resource.resource_type,
        resource_name: resource.resource_name.clone(),
        configs: Default::default(),
        ..Default::default()
    }
}

/// `DescribeConfigsRequest.getErrorResponse`: every resource with the code
/// and the code's own text.
pub(crate) fn describe_configs_error_response(
    request: &DescribeConfigsRequest,
    code: ErrorCode,
) -> DescribeConfigsResponse {
    DescribeConfigsResponse {
        throttle_time_ms: 0,
        results: request
            .resources
            .iter()
            .map(|r| DescribeConfigsResult {
                error_code: code.code(),
                error_message: code
                    .is_err()
                    .then(|| StrBytes::from(code.default_message())),
                resource_type: r.resource_type,
                resource_name: r.resource_name.clone(),
                ..Default::default()
            })
            .collect(),
        ..Default::default()
    }
}

impl Controller {
    /// DescribeConfigs as a trusted caller asks it: nothing is authorized.
    pub fn describe_configs(&self, request: &DescribeConfigsRequest) -> DescribeConfigsResponse {
        self.describe_configs_with(&Access::everything(), request)
    }

    /// DescribeConfigs (v1-4) as `ControllerApis` serves it: see the
    /// module docs.
    pub(crate) fn describe_configs_with(
        &self,
        access: &Access<'_>,
        request: &DescribeConfigsRequest,
    ) -> DescribeConfigsResponse {
        let mut authorized = Vec::new();
        let mut refused = Vec::new();
        for r in request.resources.iter() {
            let name = r.resource_name.as_str();
            let (on, denied) = match r.resource_type {
                ConfigResource::BROKER
                | ConfigResource::BROKER_LOGGER
                | ConfigResource::CLIENT_METRICS => (
                    (ResourceType::Cluster, CLUSTER_NAME),
                    ErrorCode::ClusterAuthorizationFailed,
                ),
                ConfigResource::TOPIC => (
                    (ResourceType::Topic, name),
                    ErrorCode::TopicAuthorizationFailed,
                ),
                ConfigResource::GROUP => (
                    (ResourceType::Group, name),
                    ErrorCode::GroupAuthorizationFailed,
                ),
                _ => return describe_configs_error_response(request, ErrorCode::InvalidRequest),
            };
            match access.allows(AclOperation::DescribeConfigs, on.0, on.1) {
                Ok(true) => authorized.push(r.into_owned()),
                Ok(false) => refused.push((r.into_owned(), denied)),
                Err(e) => {
                    return describe_configs_error_response(
                        request,
                        Refusal::from(e).api_error().code,
                    )
                }
            }
        }
        let image = self.image.read();
        let mut results = Vec::with_capacity(request.resources.len());
        for r in &authorized {
            let result = match self.describe_resource(&image, r) {
                // Kafka leaves the message at its schema default, "".
                Ok(entries) => DescribeConfigsResult {
                    error_code: 0,
                    error_message: Some(StrBytes::new()),
                    resource_type: r.resource_type,
                    resource_name: r.resource_name.clone(),
                    configs: entries
                        .into_iter()
                        .filter(|e| wanted(r.configuration_keys.as_ref(), &e.name))
                        .map(|e| {
                            e.into_result(request.include_synonyms, request.include_documentation)
                        })
                        .collect(),
                    ..Default::default()
                },
                Err(e) => {
                    tracing::info!(
                        "Error processing describe configs request for resource {}:{}: {}",
                        r.resource_type,
                        r.resource_name.as_str(),
                        e.message_or_default()
                    );
                    error_result(r, &e)
                }
            };
            results.push(result);
        }
        for (r, denied) in &refused {
            results.push(error_result(
                r,
                &ApiError::new(*denied, denied.default_message()),
            ));
        }
        DescribeConfigsResponse {
            throttle_time_ms: 0,
            results: results.into(),
            ..Default::default()
        }
    }

    /// One authorized resource's configs, or its error.
    fn describe_resource(
        &self,
        image: &MetadataImage,
        resource: &DescribeConfigsResource,
    ) -> Result<Vec<Entry>, ApiError> {
        let name = resource.resource_name.as_str();
        let node_id = self.settings.node_id;
        let broker_id = |name: &str| {
            java_parse_int(name).ok_or_else(|| {
                invalid_request(format!("Broker id must be an integer, but it is: {name}"))
            })
        };
        match resource.resource_type {
            ConfigResource::TOPIC => {
                if let Some(reason) = invalid_topic_reason(name) {
                    return Err(ApiError::new(
                        ErrorCode::InvalidTopicException,
                        format!("Topic name is invalid: {reason}"),
                    ));
                }
                if image.topics().topic_id(name).is_none() {
                    // Kafka answers without setting a message: its schema
                    // default, "".
                    return Err(ApiError {
                        code: ErrorCode::UnknownTopicOrPartition,
                        message: Some(String::new()),
                    });
                }
                Ok(self.topic_entries(image, name))
            }
            ConfigResource::BROKER => {
                if name.is_empty() {
                    Ok(self.broker_default_entries(image))
                } else if broker_id(name)? == node_id {
                    Ok(self.broker_entries(image))
                } else {
                    Err(invalid_request(format!(
                        "Unexpected broker id, expected {node_id} or empty string, but received {name}"
                    )))
                }
            }
            ConfigResource::BROKER_LOGGER => {
                if name.is_empty() {
                    return Err(invalid_request("Broker id must not be empty"));
                }
                if broker_id(name)? != node_id {
                    return Err(invalid_request(format!(
                        "Unexpected broker id, expected {node_id} but received {name}"
                    )));
                }
                Ok(self
                    .loggers
                    .loggers()
                    .into_iter()
                    .map(|(name, level)| Entry {
                        name,
                        value: Some(level),
                        source: source::DYNAMIC_BROKER_LOGGER_CONFIG,
                        sensitive: false,
                        read_only: false,
                        synonyms: Vec::new(),
                        config_type: None,
                        documentation: None,
                        logger: true,
                    })
                    .collect())
            }
            ConfigResource::CLIENT_METRICS => {
                if name.is_empty() {
                    return Err(invalid_request(
                        "Client metrics subscription name must not be empty",
                    ));
                }
                Ok(client_metrics_entries(image, name))
            }
            ConfigResource::GROUP => {
                if name.is_empty() {
                    return Err(invalid_request("Group name must not be empty"));
                }
                Ok(self.group_entries(image, name))
            }
            other => Err(invalid_request(format!(
                "Unsupported resource type: {other}"
            ))),
        }
    }

    /// A topic's configs (`createTopicConfigEntry`).
    fn topic_entries(&self, image: &MetadataImage, topic: &str) -> Vec<Entry> {
        let empty = BTreeMap::new();
        let props = image
            .configs()
            .config(&ConfigResource::new(ConfigResource::TOPIC, topic))
            .unwrap_or(&empty);
        let layers = BrokerLayers::new(self, image);
        let defs = definitions();
        let mut entries = Vec::new();
        // The topic's own keys Kafka does not list among the values first
        // (internal or unknown ones), then every topic config.
        for (key, value) in props {
            if topic_config::definition(key).is_some_and(|d| !d.internal) {
                continue;
            }
            let config_type = topic_config::definition(key).map(|d| d.config_type);
            let sensitive = maybe_sensitive(config_type);
            let value = (!sensitive).then(|| render_value(value, config_type));
            entries.push(Entry {
                name: key.clone(),
                value: value.clone(),
                source: source::TOPIC_CONFIG,
                sensitive,
                read_only: false,
                synonyms: vec![(key.clone(), value, source::TOPIC_CONFIG)],
                config_type,
                documentation: defs.topic_docs.get(key).cloned().flatten(),
                logger: false,
            });
        }
        for def in topic_config::definitions().iter().filter(|d| !d.internal) {
            let config_type = Some(def.config_type);
            let sensitive = maybe_sensitive(config_type);
            let own = props.get(def.name);
            let value = match own {
                Some(v) => Some(render_value(v, config_type)),
                None => def
                    .synonyms
                    .iter()
                    .find_map(|(s, unit)| layers.value(s).map(|v| synonym_value(v, *unit)))
                    .map(|v| render_value(&v, config_type))
                    .or_else(|| {
                        // A synonym's default (log.retention.hours for
                        // retention.ms) when Kafka derives the value from it.
                        def.synonyms.iter().find_map(|(s, unit)| {
                            defs.broker(s)
                                .and_then(|d| d.default.as_deref())
                                .map(|v| synonym_value(v, *unit))
                        })
                    })
                    .or_else(|| def.default.map(str::to_owned)),
            };
            let value = if sensitive { None } else { value };
            let mut synonyms: Vec<Synonym> = Vec::new();
            if own.is_some() {
                synonyms.push((def.name.to_owned(), value.clone(), source::TOPIC_CONFIG));
            }
            if let Some((primary, _)) = def.synonyms.first() {
                synonyms.extend(layers.synonyms(primary, &broker_synonyms(primary), sensitive));
            }
            entries.push(Entry {
                name: def.name.to_owned(),
                value,
                source: synonyms.first().map_or(source::DEFAULT_CONFIG, |s| s.2),
                sensitive,
                read_only: false,
                synonyms,
                config_type,
                documentation: defs.topic_docs.get(def.name).cloned().flatten(),
                logger: false,
            });
        }
        entries
    }

    /// `createBrokerConfigEntry` for one config of this node
    /// (`per_node`) or of the cluster-wide defaults.
    fn broker_entry(
        &self,
        layers: &BrokerLayers<'_>,
        name: &str,
        value: Option<&str>,
        per_node: bool,
    ) -> Entry {
        let defs = definitions();
        let config_type = broker_config_type(name);
        let sensitive = maybe_sensitive(config_type);
        let value = if sensitive {
            None
        } else {
            value.map(str::to_owned)
        };
        let synonyms: Vec<Synonym> = layers
            .synonyms(name, &broker_synonyms(name), sensitive)
            .into_iter()
            .filter(|s| per_node || s.2 == source::DYNAMIC_DEFAULT_BROKER_CONFIG)
            .collect();
        Entry {
            name: name.to_owned(),
            value,
            source: synonyms.first().map_or(source::DEFAULT_CONFIG, |s| s.2),
            sensitive,
            read_only: !defs.broker(name).is_some_and(|d| d.dynamic),
            synonyms,
            config_type,
            documentation: defs.broker(name).and_then(|d| d.documentation.clone()),
            logger: false,
        }
    }

    /// BROKER `""`: the cluster-wide dynamic defaults this node accepts.
    fn broker_default_entries(&self, image: &MetadataImage) -> Vec<Entry> {
        let layers = BrokerLayers::new(self, image);
        let mut names: Vec<&str> = layers.cluster.keys().copied().collect();
        names.sort_unstable();
        names
            .into_iter()
            .map(|name| self.broker_entry(&layers, name, layers.cluster.get(name).copied(), false))
            .collect()
    }

    /// BROKER of this node's id: its static keys Kafka does not define (or
    /// internal ones), then every non-internal config of Kafka's broker
    /// definition.
    fn broker_entries(&self, image: &MetadataImage) -> Vec<Entry> {
        let layers = BrokerLayers::new(self, image);
        let defs = definitions();
        let mut entries = Vec::new();
        let mut extra: Vec<(&str, &str)> = layers
            .statics
            .iter()
            .filter(|(k, _)| defs.broker(k).is_none_or(|d| d.internal || d.dynamic_only))
            .map(|(k, v)| (*k, *v))
            .collect();
        extra.sort_unstable();
        for (name, value) in extra {
            let value = layers.value(name).unwrap_or(value);
            entries.push(self.broker_entry(&layers, name, Some(value), true));
        }
        for def in defs
            .broker
            .iter()
            .filter(|d| !d.internal && !d.dynamic_only)
        {
            let value = layers.effective(def);
            entries.push(self.broker_entry(&layers, &def.name, value.as_deref(), true));
        }
        entries
    }

    /// A group's configs (`createGroupConfigEntry`): the group's own
    /// values, else its broker synonym's value on this node, else the
    /// group config's default.
    fn group_entries(&self, image: &MetadataImage, group: &str) -> Vec<Entry> {
        let empty = BTreeMap::new();
        let props = image
            .configs()
            .config(&ConfigResource::new(ConfigResource::GROUP, group))
            .unwrap_or(&empty);
        let layers = BrokerLayers::new(self, image);
        let defs = definitions();
        let mut entries = Vec::new();
        for def in &defs.group {
            let broker = def.synonyms.first();
            let configured = broker.is_some_and(|b| layers.value(b).is_some());
            if def.internal && !props.contains_key(&def.name) && !configured {
                continue;
            }
            let sensitive = maybe_sensitive(def.config_type);
            let value = match props.get(&def.name) {
                Some(v) => Some(render_value(v, def.config_type)),
                None => match broker.and_then(|b| layers.value(b)) {
                    Some(v) if def.name != "streams.assignor.name" => {
                        Some(render_value(v, def.config_type))
                    }
                    _ => defs
                        .group_defaults
                        .get(&def.name)
                        .cloned()
                        .unwrap_or_else(|| def.default.clone()),
                },
            };
            let value = if sensitive { None } else { value };
            let mut synonyms: Vec<Synonym> = Vec::new();
            if props.contains_key(&def.name) {
                synonyms.push((def.name.clone(), value.clone(), source::GROUP_CONFIG));
            }
            match broker {
                Some(b) => synonyms.extend(layers.synonyms(b, &broker_synonyms(b), sensitive)),
                None => {
                    if let Some(d) = &def.default {
                        synonyms.push((
                            def.name.clone(),
                            (!sensitive).then(|| d.clone()),
                            source::DEFAULT_CONFIG,
                        ));
                    }
                }
            }
            entries.push(Entry {
                name: def.name.clone(),
                value,
                source: synonyms.first().map_or(source::DEFAULT_CONFIG, |s| s.2),
                sensitive,
                read_only: false,
                synonyms,
                config_type: def.config_type,
                documentation: def.documentation.clone(),
                logger: false,
            });
        }
        entries
    }
}

/// A client-metrics subscription's configs
/// (`createClientMetricsConfigEntry`): never sensitive, synonyms only for
/// the subscription's own values.
fn client_metrics_entries(image: &MetadataImage, name: &str) -> Vec<Entry> {
    let empty = BTreeMap::new();
    let props = image
        .configs()
        .config(&ConfigResource::new(ConfigResource::CLIENT_METRICS, name))
        .unwrap_or(&empty);
    definitions()
        .client_metrics
        .iter()
        .map(|def| {
            let own = props.get(&def.name);
            let value = match own {
                Some(v) => Some(render_value(v, def.config_type)),
                None => def.default.clone(),
            };
            let synonyms: Vec<Synonym> = own
                .map(|_| {
                    (
                        def.name.clone(),
                        value.clone(),
                        source::CLIENT_METRICS_CONFIG,
                    )
                })
                .into_iter()
                .collect();
            Entry {
                name: def.name.clone(),
                value,
                source: synonyms.first().map_or(source::DEFAULT_CONFIG, |s| s.2),
                sensitive: false,
                read_only: false,
                synonyms,
                config_type: def.config_type,
                documentation: def.documentation.clone(),
                logger: false,
            }
        })
        .collect()
}
