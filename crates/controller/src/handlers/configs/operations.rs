//! What a request's operations make of one resource's configs: SET,
//! DELETE, APPEND and SUBTRACT (Kafka's `AlterConfigOp.OpType`) turned into
//! the resource's ConfigRecords, as `ConfigurationControlManager`'s
//! `incrementalAlterConfigResource` does before its validation.

use std::collections::HashMap;

use kraft_protocol::messages::incremental_alter_configs_request::AlterConfigsResource;
use kraft_protocol::ErrorCode;

use super::invalid_config;
use super::java_text::java_split;
use crate::handlers::{ApiError, Controller};
use crate::image::{ConfigResource, MetadataImage};
use crate::java::JavaHashMap;
use crate::topic_config;

/// The broker configs of Kafka 4.4.0's `KafkaConfig` definition whose type
/// is LIST (the only ones APPEND and SUBTRACT apply to), with their
/// defaults as `ConfigDef.convertToString` renders them (`None`: no
/// default, or a null one).
const BROKER_LIST_CONFIGS: &[(&str, Option<&str>)] = &[
    ("advertised.listeners", None),
    ("config.providers", Some("")),
    ("controller.listener.names", None),
    ("controller.quorum.bootstrap.servers", Some("")),
    ("controller.quorum.voters", Some("")),
    ("cordoned.log.dirs", Some("")),
    ("early.start.listeners", None),
    ("group.consumer.assignors", Some("uniform,range")),
    (
        "group.coordinator.rebalance.protocols",
        Some("classic,consumer,streams"),
    ),
    ("group.share.assignors", Some("simple")),
    ("group.streams.assignors", Some("sticky")),
    ("group.streams.rack.aware.assignment.tags", Some("")),
    ("kafka.metrics.reporters", Some("")),
    ("listeners", Some("PLAINTEXT://:9092")),
    ("log.cleanup.policy", Some("delete")),
    ("log.dir", Some("/tmp/kafka-logs")),
    ("log.dirs", None),
    (
        "metric.reporters",
        Some("org.apache.kafka.common.metrics.JmxReporter"),
    ),
    ("process.roles", None),
    ("sasl.enabled.mechanisms", Some("GSSAPI")),
    ("sasl.kerberos.principal.to.local.rules", Some("DEFAULT")),
    ("sasl.oauthbearer.expected.audience", Some("")),
    ("ssl.cipher.suites", Some("")),
    ("ssl.enabled.protocols", Some("TLSv1.2,TLSv1.3")),
];

/// Kafka's `AlterConfigOp.OpType`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum OpType {
    Set,
    Delete,
    Append,
    Subtract,
}

impl OpType {
    /// `OpType.forId`.
    pub(super) fn of(id: i8) -> Option<Self> {
        match id {
            0 => Some(OpType::Set),
            1 => Some(OpType::Delete),
            2 => Some(OpType::Append),
            3 => Some(OpType::Subtract),
            _ => None,
        }
    }

    pub(super) fn name(self) -> &'static str {
        match self {
            OpType::Set => "SET",
            OpType::Delete => "DELETE",
            OpType::Append => "APPEND",
            OpType::Subtract => "SUBTRACT",
        }
    }
}

/// The change a request makes to one config name (the last one it gives).
#[derive(Debug, Clone)]
struct Alter {
    op: Option<OpType>,
    value: Option<String>,
}

/// One resource's changes: the names in the iteration order of Kafka's
/// `HashMap` of them.
#[derive(Debug, Clone)]
pub(super) struct ResourceChanges {
    pub(super) resource: ConfigResource,
    names: Vec<String>,
    alters: HashMap<String, Alter>,
}

impl ResourceChanges {
    pub(super) fn of(resource: ConfigResource, r: &AlterConfigsResource) -> Self {
        let mut order: JavaHashMap<String> = JavaHashMap::new();
        let mut alters = HashMap::new();
        for c in r.configs.iter() {
            let name = c.name.as_str().to_owned();
            order.put(name.clone());
            alters.insert(
                name,
                Alter {
                    op: OpType::of(c.config_operation),
                    value: c.value.as_ref().map(|v| v.as_str().to_owned()),
                },
            );
        }
        ResourceChanges {
            resource,
            names: order.iter().cloned().collect(),
            alters,
        }
    }
}

/// A resource's ConfigRecords: name and new value (`None` deletes).
type ConfigChanges = Vec<(String, Option<String>)>;

impl Controller {
    /// Kafka's `incrementalAlterConfigResource` up to the validation: the
    /// ConfigRecords (name, new value) of one resource. The outer error
    /// fails the whole request.
    pub(super) fn resource_records(
        &self,
        image: &MetadataImage,
        changes: &ResourceChanges,
    ) -> Result<Result<ConfigChanges, ApiError>, ApiError> {
        let resource = &changes.resource;
        let current = image.configs().config(resource);
        let mut out = Vec::new();
        for key in &changes.names {
            let Some(alter) = changes.alters.get(key) else {
                continue;
            };
            let current_value = current.and_then(|c| c.get(key)).cloned();
            let new_value = match alter.op {
                None => {
                    tracing::error!(
                        "IncrementalAlterConfigs: unknown operation for config {key} of resource {}:{}",
                        resource.resource_type,
                        resource.name
                    );
                    return Err(ApiError {
                        code: ErrorCode::UnknownServerError,
                        message: None,
                    });
                }
                Some(OpType::Set) => alter.value.clone(),
                Some(OpType::Delete) => None,
                Some(op @ (OpType::Append | OpType::Subtract)) => {
                    let Some(default) = list_default(resource.resource_type, key) else {
                        return Ok(Err(invalid_config(format!(
                            "Can't {} to key {key} because its type is not LIST.",
                            op.name()
                        ))));
                    };
                    let base = current_value.as_deref().or(default);
                    let mut parts: Vec<String> = base
                        .map(|v| {
                            v.split(',')
                                .filter(|p| !p.is_empty())
                                .map(str::to_owned)
                                .collect()
                        })
                        .unwrap_or_default();
                    let Some(value) = alter.value.as_deref() else {
                        tracing::error!(
                            "IncrementalAlterConfigs: {} of config {key} without a value",
                            op.name()
                        );
                        return Err(ApiError {
                            code: ErrorCode::UnknownServerError,
                            message: None,
                        });
                    };
                    for v in java_split(value, ',') {
                        if op == OpType::Append {
                            if !parts.iter().any(|p| p == v) {
                                parts.push(v.to_owned());
                            }
                        } else if let Some(at) = parts.iter().position(|p| p == v) {
                            parts.remove(at);
                        }
                    }
                    Some(parts.join(","))
                }
            };
            if current_value != new_value || resource.resource_type == ConfigResource::BROKER {
                out.push((key.clone(), new_value));
            }
        }
        Ok(Ok(out))
    }
}

/// `KafkaConfigSchema.isSplittable` and `getDefault`: for a LIST config
/// of the resource type, its default.
fn list_default(resource_type: i8, key: &str) -> Option<Option<&'static str>> {
    match resource_type {
        ConfigResource::TOPIC => topic_config::definition(key)
            .filter(|d| d.is_list())
            .map(|d| d.default),
        ConfigResource::BROKER => BROKER_LIST_CONFIGS
            .iter()
            .find(|(name, _)| *name == key)
            .map(|(_, default)| *default),
        _ => None,
    }
}
