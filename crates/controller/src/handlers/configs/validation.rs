//! Kafka's `validateAlterConfig` for one resource's ConfigRecords: the
//! rules on single records (ELR's `min.insync.replicas`,
//! `cordoned.log.dirs`, the value size), the resource type's validator
//! (`ControllerConfigurationValidator`) and `QuorumController`'s resource
//! existence check.

use std::collections::{BTreeMap, HashMap};

use kraft_protocol::ErrorCode;

use super::client_metrics::validate_client_metrics;
use super::group::validate_group;
use super::java_text::{java_parse_int, java_trim, split_list};
use super::{error, invalid_config, invalid_request, MIN_INSYNC_REPLICAS};
use crate::handlers::{ApiError, Controller};
use crate::image::{ConfigResource, MetadataImage};
use crate::java::JavaHashMap;
use crate::topic_config;

/// Kafka's longest config value in KRaft (`Short.MAX_VALUE`).
const MAX_VALUE_LENGTH: usize = i16::MAX as usize;
/// The broker config naming cordoned log directories.
const CORDONED_LOG_DIRS: &str = "cordoned.log.dirs";
/// A broker config only the static configuration sets.
const REMOTE_STORAGE_SYSTEM_ENABLE: &str = "remote.log.storage.system.enable";

impl Controller {
    /// Kafka's `validateAlterConfig` for an existing resource: the record
    /// checks, the validator, the existence check.
    pub(super) fn validate_alter(
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
            ConfigResource::GROUP => {
                validate_group(&resource.name, &names, &all, &self.settings().groups)
            }
            other => Err(invalid_request(format!(
                "Unknown resource type {}",
                resource_type_name(other)
            ))),
        }
    }

    /// The controller's value of a broker config, as its `KafkaConfig` has
    /// it: this node's dynamic config, the cluster default, then the
    /// static configuration file (Kafka's default when none sets it).
    /// `remote.log.storage.system.enable` is read-only in Kafka: only the
    /// file sets it.
    pub(in crate::handlers) fn server_config(
        &self,
        image: &MetadataImage,
        key: &str,
    ) -> Option<String> {
        let file = || {
            self.settings
                .static_configs
                .iter()
                .find(|(k, _)| *k == key)
                .map(|(_, v)| v.to_owned())
        };
        if key == REMOTE_STORAGE_SYSTEM_ENABLE {
            return file();
        }
        let configs = image.configs();
        configs
            .value(
                &ConfigResource::new(ConfigResource::BROKER, self.settings.node_id.to_string()),
                key,
            )
            .or_else(|| configs.cluster_default(key))
            .map(str::to_owned)
            .or_else(file)
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
}

/// Kafka's `ConfigResource.Type` name of a type id.
pub(super) fn resource_type_name(id: i8) -> &'static str {
    match id {
        ConfigResource::TOPIC => "TOPIC",
        ConfigResource::BROKER => "BROKER",
        ConfigResource::BROKER_LOGGER => "BROKER_LOGGER",
        ConfigResource::CLIENT_METRICS => "CLIENT_METRICS",
        ConfigResource::GROUP => "GROUP",
        _ => "UNKNOWN",
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
