//! IncrementalAlterConfigs (44): Kafka's
//! `ControllerApis.handleIncrementalAlterConfigs` (resource types,
//! duplicate resources, BROKER_LOGGER), `ConfigurationControlManager`
//! (SET / DELETE / APPEND / SUBTRACT, the eligible-leader-replicas and
//! cordoned-directory rules, the value size, ClearElrRecords),
//! `ControllerConfigurationValidator` and `QuorumController`'s resource
//! existence check.
//!
//! Before the write, in request order: BROKER_LOGGER resources are handled
//! here (this node's loggers), an unknown resource type is refused with
//! `UNSUPPORTED_VERSION`, and a resource named twice is refused once with
//! `INVALID_REQUEST` (its changes are dropped; further repeats are
//! ignored). Every other resource is altered in one write against the
//! writer's state: per resource, its last change of each config name, in
//! the order of Kafka's `HashMap` of names, gives the ConfigRecords (for a
//! TOPIC only those that change the value; for a BROKER every one, as
//! Kafka's KAFKA-14136 does), which are then validated:
//!
//! * per record, in order: a node-level `min.insync.replicas` or the removal
//!   of the cluster-level one while ELR is on, `cordoned.log.dirs` before
//!   metadata.version 4.3-IV0 or, unless forwarded by a broker, not a subset
//!   of the current value, and values longer than 32767 UTF-16 units;
//! * the resource: TOPIC through [`topic_config::validate_topic_configs`]
//!   (name, names, values, cross-config rules) against the topic's current
//!   configs and this controller's configs; BROKER by its name only (an
//!   integer id or `""`, as Kafka's controller does: the forwarding broker
//!   has validated the values); CLIENT_METRICS and GROUP as Kafka's
//!   `ClientMetricsConfigs.validate` and `GroupConfig.validate` do, the
//!   group bounds being Kafka's default group coordinator settings;
//! * existence: the topic must exist (`UNKNOWN_TOPIC_OR_PARTITION`), a
//!   named BROKER must be a registered broker, a static voter or a
//!   registered controller (`BROKER_ID_NOT_REGISTERED`).
//!
//! The accepted resources' records, then a ClearElrRecord for every
//! `min.insync.replicas` record (its topic, or every topic for another
//! resource) when ELR is on, are appended in one batch (nothing with
//! ValidateOnly), and the answer goes out once they are committed: the
//! refusals found before the write, then the altered resources in request
//! order (Kafka's order is that of a hash map keyed by an identity hash),
//! then the BROKER_LOGGER answers. A request whose records exceed Kafka's
//! 10000 per operation, or with an unknown operation or a null APPEND /
//! SUBTRACT value (a `NullPointerException` in Kafka), fails as a whole.

use std::collections::{BTreeMap, HashMap, HashSet};

use kraft_protocol::messages::clear_elr_record::ClearElrRecord;
use kraft_protocol::messages::config_record::ConfigRecord;
use kraft_protocol::messages::incremental_alter_configs_request::{
    AlterConfigsResource, IncrementalAlterConfigsRequest,
};
use kraft_protocol::messages::incremental_alter_configs_response::{
    AlterConfigsResourceResponse, IncrementalAlterConfigsResponse,
};
use kraft_protocol::{ErrorCode, StrBytes};

use super::writer::{ActiveState, Generated};
use super::{ApiError, Controller};
use crate::image::{ConfigResource, MetadataImage, MetadataRecord};
use crate::java::JavaHashMap;
use crate::topic_config;

mod client_metrics;
mod config_def;
mod group;
mod java_text;

use client_metrics::validate_client_metrics;
use group::validate_group;
use java_text::{java_parse_int, java_split, java_trim, split_list};

/// Kafka's `MAX_RECORDS_PER_USER_OP`.
const MAX_RECORDS_PER_USER_OP: usize = 10_000;
/// Kafka's longest config value in KRaft (`Short.MAX_VALUE`).
const MAX_VALUE_LENGTH: usize = i16::MAX as usize;
/// The config that drives the minimum ISR and, with ELR, the ELR.
use crate::replication::broker_changes::MIN_IN_SYNC_REPLICAS as MIN_INSYNC_REPLICAS;
/// The broker config naming cordoned log directories.
const CORDONED_LOG_DIRS: &str = "cordoned.log.dirs";
/// A broker config only the static configuration sets.
const REMOTE_STORAGE_SYSTEM_ENABLE: &str = "remote.log.storage.system.enable";
/// Kafka's `LoggingController.ROOT_LOGGER`.
const ROOT_LOGGER: &str = "root";
/// Kafka's `LogLevelConfig.VALID_LOG_LEVELS`, sorted as its messages list them.
const VALID_LOG_LEVELS: [&str; 6] = ["DEBUG", "ERROR", "FATAL", "INFO", "TRACE", "WARN"];

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
enum OpType {
    Set,
    Delete,
    Append,
    Subtract,
}

impl OpType {
    /// `OpType.forId`.
    fn of(id: i8) -> Option<Self> {
        match id {
            0 => Some(OpType::Set),
            1 => Some(OpType::Delete),
            2 => Some(OpType::Append),
            3 => Some(OpType::Subtract),
            _ => None,
        }
    }

    fn name(self) -> &'static str {
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
struct ResourceChanges {
    resource: ConfigResource,
    names: Vec<String>,
    alters: HashMap<String, Alter>,
}

impl ResourceChanges {
    fn of(resource: ConfigResource, r: &AlterConfigsResource) -> Self {
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

/// A resource's outcome in the write.
type ResourceResult = (ConfigResource, Result<(), ApiError>);

/// A resource's ConfigRecords: name and new value (`None` deletes).
type ConfigChanges = Vec<(String, Option<String>)>;

fn error(code: ErrorCode, message: impl Into<String>) -> ApiError {
    ApiError::new(code, message)
}

fn invalid_config(message: impl Into<String>) -> ApiError {
    error(ErrorCode::InvalidConfig, message)
}

fn invalid_request(message: impl Into<String>) -> ApiError {
    error(ErrorCode::InvalidRequest, message)
}

/// Whether Kafka's `ConfigResource.Type.forId` knows `id` (anything else is
/// `UNKNOWN`).
fn known_resource_type(id: i8) -> bool {
    matches!(
        id,
        ConfigResource::TOPIC
            | ConfigResource::BROKER
            | ConfigResource::BROKER_LOGGER
            | ConfigResource::CLIENT_METRICS
            | ConfigResource::GROUP
    )
}

fn resource_response(
    resource_type: i8,
    resource_name: &str,
    result: &Result<(), ApiError>,
) -> AlterConfigsResourceResponse {
    let (code, message) = match result {
        Ok(()) => (ErrorCode::None, None),
        Err(e) => (e.code, e.message.clone()),
    };
    AlterConfigsResourceResponse {
        error_code: code.code(),
        error_message: message.map(StrBytes::from),
        resource_type,
        resource_name: resource_name.into(),
        ..Default::default()
    }
}

/// Kafka's `IncrementalAlterConfigsRequest.getErrorResponse`: every
/// resource of the request with the error.
fn error_response(
    request: &IncrementalAlterConfigsRequest,
    e: &ApiError,
) -> IncrementalAlterConfigsResponse {
    let failed = Err(e.clone());
    IncrementalAlterConfigsResponse {
        responses: request
            .resources
            .iter()
            .map(|r| resource_response(r.resource_type, r.resource_name.as_str(), &failed))
            .collect(),
        ..Default::default()
    }
}

impl Controller {
    /// IncrementalAlterConfigs (v0-1) as sent to this controller directly:
    /// see the module docs. Answered once its records are committed.
    pub async fn incremental_alter_configs(
        &self,
        request: &IncrementalAlterConfigsRequest,
    ) -> IncrementalAlterConfigsResponse {
        self.incremental_alter_configs_from(request, false).await
    }

    /// IncrementalAlterConfigs, `forwarded` when it came inside an Envelope
    /// from a broker (Kafka's `request.isForwarded`): only then may
    /// `cordoned.log.dirs` gain directories.
    pub async fn incremental_alter_configs_from(
        &self,
        request: &IncrementalAlterConfigsRequest,
        forwarded: bool,
    ) -> IncrementalAlterConfigsResponse {
        let mut responses = Vec::new();
        let mut logger_responses = Vec::new();
        let mut changes: Vec<ResourceChanges> = Vec::new();
        let mut duplicates: HashSet<ConfigResource> = HashSet::new();
        for r in request.resources.iter() {
            let name = r.resource_name.as_str();
            if r.resource_type == ConfigResource::BROKER_LOGGER {
                let result = self.alter_broker_logger(&r, request.validate_only);
                logger_responses.push(resource_response(r.resource_type, name, &result));
            } else if !known_resource_type(r.resource_type) {
                responses.push(resource_response(
                    r.resource_type,
                    name,
                    &Err(error(
                        ErrorCode::UnsupportedVersion,
                        format!("Unknown resource type {}.", r.resource_type),
                    )),
                ));
            } else {
                let resource = ConfigResource::new(r.resource_type, name);
                if duplicates.contains(&resource) {
                    continue;
                }
                if let Some(at) = changes.iter().position(|c| c.resource == resource) {
                    changes.remove(at);
                    duplicates.insert(resource);
                    responses.push(resource_response(
                        r.resource_type,
                        name,
                        &Err(invalid_request("Duplicate resource.")),
                    ));
                } else {
                    changes.push(ResourceChanges::of(resource, &r));
                }
            }
        }
        if !changes.is_empty() {
            let outcome = self
                .write(None, |state| {
                    self.generate_alter_configs(state, &changes, request.validate_only, forwarded)
                })
                .await;
            match outcome {
                Ok(results) => {
                    for (resource, result) in &results {
                        responses.push(resource_response(
                            resource.resource_type,
                            &resource.name,
                            result,
                        ));
                    }
                }
                Err(e) => return error_response(request, &e),
            }
        }
        responses.extend(logger_responses);
        IncrementalAlterConfigsResponse {
            responses: responses.into(),
            ..Default::default()
        }
    }

    /// Kafka's `ConfigurationControlManager.incrementalAlterConfigs` over
    /// the writer's state.
    fn generate_alter_configs(
        &self,
        state: &mut ActiveState,
        changes: &[ResourceChanges],
        validate_only: bool,
        forwarded: bool,
    ) -> Result<Generated<Vec<ResourceResult>>, ApiError> {
        let image = &state.image;
        let mut records: Vec<MetadataRecord> = Vec::new();
        let mut clear_elr: Vec<MetadataRecord> = Vec::new();
        let elr = image.eligible_leader_replicas_enabled();
        let mut results = Vec::with_capacity(changes.len());
        for c in changes {
            let resource = &c.resource;
            let outcome = match self.resource_records(image, c)? {
                Ok(new) => self
                    .validate_alter(image, resource, &new, forwarded)
                    .map(|()| new),
                Err(e) => Err(e),
            };
            match outcome {
                Ok(new) => {
                    for (key, value) in new {
                        if elr && key == MIN_INSYNC_REPLICAS {
                            let topic_name = if resource.resource_type == ConfigResource::TOPIC {
                                resource.name.as_str()
                            } else {
                                ""
                            };
                            clear_elr.push(MetadataRecord::new(
                                ClearElrRecord {
                                    topic_name: topic_name.into(),
                                    ..Default::default()
                                },
                                0,
                            ));
                        }
                        records.push(MetadataRecord::new(
                            ConfigRecord {
                                resource_type: resource.resource_type,
                                resource_name: resource.name.as_str().into(),
                                name: key.into(),
                                value: value.map(StrBytes::from),
                                ..Default::default()
                            },
                            0,
                        ));
                    }
                    results.push((resource.clone(), Ok(())));
                }
                Err(e) => results.push((resource.clone(), Err(e))),
            }
        }
        records.extend(clear_elr);
        if records.len() > MAX_RECORDS_PER_USER_OP {
            return Err(error(
                ErrorCode::PolicyViolation,
                "Unable to perform excessively large batch operation.",
            ));
        }
        let summary: Vec<String> = results
            .iter()
            .map(|(r, result)| {
                format!(
                    "{}:{}: {}",
                    r.resource_type,
                    r.name,
                    match result {
                        Ok(()) => "SUCCESS".to_owned(),
                        Err(e) => format!("{} ({})", e.code.name(), e.message_or_default()),
                    }
                )
            })
            .collect();
        if validate_only {
            tracing::info!(
                "Validate-only IncrementalAlterConfigs result(s): {}",
                summary.join(", ")
            );
            return Ok(Generated::new(Vec::new(), results));
        }
        tracing::info!("IncrementalAlterConfigs result(s): {}", summary.join(", "));
        Ok(Generated::new(records, results))
    }

    /// Kafka's `incrementalAlterConfigResource` up to the validation: the
    /// ConfigRecords (name, new value) of one resource. The outer error
    /// fails the whole request.
    fn resource_records(
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

    /// Kafka's `validateAlterConfig` for an existing resource: the record
    /// checks, the validator, the existence check.
    fn validate_alter(
        &self,
        image: &MetadataImage,
        resource: &ConfigResource,
        records: &[(String, Option<String>)],
        forwarded: bool,
    ) -> Result<(), ApiError> {
        let empty = BTreeMap::new();
        let existing = image.configs().config(resource).unwrap_or(&empty);
        if resource.resource_type == ConfigResource::TOPIC {
            // No record rule but the value size concerns a topic; the topic
            // config validation checks it first.
            topic_config::validate_topic_configs(&resource.name, existing, records, |key| {
                self.server_config(image, key)
            })
            .map_err(|e| ApiError::new(e.code, e.message))?;
            if image.topics().topic_id(&resource.name).is_none() {
                return Err(error(
                    ErrorCode::UnknownTopicOrPartition,
                    format!("The topic '{}' does not exist.", resource.name),
                ));
            }
            return Ok(());
        }
        let elr = image.eligible_leader_replicas_enabled();
        let broker = resource.resource_type == ConfigResource::BROKER;
        let mut all: HashMap<&str, &str> = existing
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        let mut order = JavaHashMap::copy_of(&JavaHashMap::from_keys(existing.keys().cloned()));
        for (key, value) in records {
            if broker && key == MIN_INSYNC_REPLICAS && elr {
                if !resource.name.is_empty() {
                    return Err(invalid_config(
                        "Broker-level min.insync.replicas cannot be altered while ELR is enabled.",
                    ));
                }
                if value.is_none() {
                    return Err(invalid_config(
                        "Cluster-level min.insync.replicas cannot be removed while ELR is enabled.",
                    ));
                }
            }
            if broker && key == CORDONED_LOG_DIRS {
                let supported = image
                    .metadata_version()
                    .is_some_and(|mv| mv.is_cordoned_log_dirs_supported());
                if !supported {
                    return Err(invalid_config(
                        "The cordoned.log.dirs configuration value cannot be set because it requires metadata.version >= 4.3-IV0",
                    ));
                }
                if !forwarded && !cordoned_subset(existing.get(CORDONED_LOG_DIRS), value.as_deref())
                {
                    return Err(invalid_config(
                        "When updating cordoned.log.dirs via controllers,  the new value must be a subset of the current configuration value.",
                    ));
                }
            }
            match value {
                None => {
                    all.remove(key.as_str());
                    order.remove(key);
                }
                Some(v) if v.encode_utf16().count() > MAX_VALUE_LENGTH => {
                    return Err(invalid_config(format!(
                        "The configuration value cannot be added because it exceeds the maximum value size of {MAX_VALUE_LENGTH} bytes."
                    )));
                }
                Some(v) => {
                    all.insert(key.as_str(), v.as_str());
                    order.put(key.clone());
                }
            }
        }
        // The validators read a copy of the resulting configs.
        let names: Vec<String> = JavaHashMap::from_keys(order.iter().cloned())
            .iter()
            .cloned()
            .collect();
        match resource.resource_type {
            ConfigResource::BROKER => {
                validate_broker_name(&resource.name)?;
                self.check_node_exists(image, &resource.name)
            }
            ConfigResource::CLIENT_METRICS => validate_client_metrics(&resource.name, &names, &all),
            ConfigResource::GROUP => validate_group(&resource.name, &names, &all),
            other => Err(invalid_request(format!(
                "Unknown resource type {}",
                resource_type_name(other)
            ))),
        }
    }

    /// The controller's value of a broker config, as its `KafkaConfig` has
    /// it: this node's dynamic config, the cluster default, the static
    /// setting (only `min.insync.replicas` here). Tiered storage is never
    /// enabled on this controller.
    fn server_config(&self, image: &MetadataImage, key: &str) -> Option<String> {
        if key == REMOTE_STORAGE_SYSTEM_ENABLE {
            return None;
        }
        let configs = image.configs();
        configs
            .value(
                &ConfigResource::new(ConfigResource::BROKER, self.settings.node_id.to_string()),
                key,
            )
            .or_else(|| configs.cluster_default(key))
            .map(str::to_owned)
            .or_else(|| {
                (key == MIN_INSYNC_REPLICAS)
                    .then(|| self.settings.topics.min_insync_replicas.to_string())
            })
    }

    /// `QuorumController.ConfigResourceExistenceChecker` for a BROKER
    /// resource: the cluster default, or a registered broker, a static
    /// voter or a registered controller.
    fn check_node_exists(&self, image: &MetadataImage, name: &str) -> Result<(), ApiError> {
        if name.is_empty() {
            return Ok(());
        }
        let Some(id) = java_parse_int(name) else {
            return Err(invalid_request(format!("Invalid broker name {name}")));
        };
        let registered = image.cluster().broker(id).is_some()
            || self.settings.static_voter_ids.contains(&id)
            || image.controller(id).is_some();
        if registered {
            Ok(())
        } else {
            Err(error(
                ErrorCode::BrokerIdNotRegistered,
                format!("No node with id {id} found."),
            ))
        }
    }

    /// Kafka's `RuntimeLoggerManager.applyChangesForResource` for this
    /// node's loggers. This controller has no log4j loggers: only the root
    /// logger exists, and setting its level is accepted but not applied
    /// (Kafka too answers success when an update fails, and logs it).
    fn alter_broker_logger(
        &self,
        resource: &AlterConfigsResource,
        validate_only: bool,
    ) -> Result<(), ApiError> {
        let name = resource.resource_name.as_str();
        let Some(id) = java_parse_int(name) else {
            return Err(invalid_request(format!(
                "Node id must be an integer, but it is: {name}"
            )));
        };
        if id != self.settings.node_id {
            return Err(invalid_request(format!(
                "Unexpected node id. Expected {}, but received {id}",
                self.settings.node_id
            )));
        }
        let exists = |logger: &str| {
            if logger == ROOT_LOGGER {
                Ok(())
            } else {
                Err(invalid_config(format!("Logger {logger} does not exist!")))
            }
        };
        for op in resource.configs.iter() {
            let logger = op.name.as_str();
            match OpType::of(op.config_operation) {
                Some(OpType::Set) => {
                    exists(logger)?;
                    let level = op.value.as_ref().map(|v| v.as_str());
                    if !level.is_some_and(|l| VALID_LOG_LEVELS.contains(&l)) {
                        return Err(invalid_config(format!(
                            "Cannot set the log level of {logger} to {} as it is not a supported log level. Valid log levels are {}",
                            level.unwrap_or("null"),
                            VALID_LOG_LEVELS.join(", ")
                        )));
                    }
                }
                Some(OpType::Delete) => {
                    exists(logger)?;
                    if logger == ROOT_LOGGER {
                        return Err(invalid_request(
                            "Removing the log level of the root logger is not allowed",
                        ));
                    }
                }
                Some(op @ (OpType::Append | OpType::Subtract)) => {
                    return Err(invalid_request(format!(
                        "{} operation is not allowed for the BROKER_LOGGER resource",
                        op.name()
                    )));
                }
                None => {
                    return Err(invalid_request(format!(
                        "Unknown operation type {} is not allowed for the BROKER_LOGGER resource",
                        op.config_operation
                    )));
                }
            }
        }
        if !validate_only {
            for op in resource.configs.iter() {
                tracing::error!(
                    "Failed to update the log level of {} to {}: this controller's log levels are set by its KRAFT_LOG filter",
                    op.name.as_str(),
                    op.value.as_ref().map_or("null", |v| v.as_str())
                );
            }
        }
        Ok(())
    }
}

/// Kafka's `ConfigResource.Type` name of a type id.
fn resource_type_name(id: i8) -> &'static str {
    match id {
        ConfigResource::TOPIC => "TOPIC",
        ConfigResource::BROKER => "BROKER",
        ConfigResource::BROKER_LOGGER => "BROKER_LOGGER",
        ConfigResource::CLIENT_METRICS => "CLIENT_METRICS",
        ConfigResource::GROUP => "GROUP",
        _ => "UNKNOWN",
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

/// `ControllerConfigurationValidator.validateBrokerName`: `""` or a
/// non-negative base-10 integer.
fn validate_broker_name(name: &str) -> Result<(), ApiError> {
    if name.is_empty() {
        return Ok(());
    }
    match java_parse_int(name) {
        None => Err(invalid_request(
            "Unable to parse broker name as a base 10 number.",
        )),
        Some(id) if id < 0 => Err(invalid_request("Invalid negative broker ID.")),
        Some(_) => Ok(()),
    }
}

/// Kafka's `isCordonedLogDirsInvalid`, negated: a new value that is null,
/// blank or only names directories the current value names.
fn cordoned_subset(current: Option<&String>, new: Option<&str>) -> bool {
    let Some(new) = new else {
        return true;
    };
    if java_trim(new).is_empty() {
        return true;
    }
    let current: Vec<&str> = current.map_or_else(Vec::new, |c| split_list(java_trim(c)));
    split_list(java_trim(new))
        .iter()
        .all(|d| current.contains(d))
}
