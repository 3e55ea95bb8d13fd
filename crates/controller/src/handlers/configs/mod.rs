//! The config APIs. IncrementalAlterConfigs (44): Kafka's
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
//!
//! The request handling and the write are here; the rest is split by
//! concern:
//!
//! * `operations`: SET / DELETE / APPEND / SUBTRACT into ConfigRecords;
//! * `validation`: the record rules, the resource type's validator and the
//!   existence check;
//! * `client_metrics`, `group`: the CLIENT_METRICS and GROUP validators,
//!   over `config_def` (Kafka's `ConfigDef` parsing and checks) and
//!   `java_text` (Java's text functions);
//! * `broker_logger`: BROKER_LOGGER resources.
//!
//! Beside it, the other config APIs: `describe` (DescribeConfigs, from
//! Kafka's own definitions in `definitions`) and `legacy` (the legacy
//! AlterConfigs, which replaces a resource's whole set).
//!
//! [`topic_config::validate_topic_configs`]: crate::topic_config::validate_topic_configs

use std::collections::HashSet;

use kraft_protocol::acl::{AclOperation, ResourceType};
use kraft_protocol::messages::clear_elr_record::ClearElrRecord;
use kraft_protocol::messages::config_record::ConfigRecord;
use kraft_protocol::messages::incremental_alter_configs_request::IncrementalAlterConfigsRequest;
use kraft_protocol::messages::incremental_alter_configs_response::{
    AlterConfigsResourceResponse, IncrementalAlterConfigsResponse,
};
use kraft_protocol::{ErrorCode, StrBytes};

use super::authz::{Access, Refusal, CLUSTER_NAME};
use super::writer::{ActiveState, Generated};
use super::{error, ApiError, Controller, MAX_RECORDS_PER_USER_OP};
use crate::image::{ConfigResource, MetadataRecord};
use operations::ResourceChanges;

mod broker_logger;
mod client_metrics;
mod config_def;
mod definitions;
mod describe;
mod group;
mod java_text;
mod legacy;
mod operations;
mod validation;

pub(crate) use describe::describe_configs_error_response;
pub(crate) use legacy::alter_configs_error_response;

/// The config that drives the minimum ISR and, with ELR, the ELR.
use crate::replication::broker_changes::MIN_IN_SYNC_REPLICAS as MIN_INSYNC_REPLICAS;

/// A resource's outcome in the write.
type ResourceResult = (ConfigResource, Result<(), ApiError>);

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
    ///
    /// Called directly, as a trusted caller: nothing is authorized (the
    /// network path goes through
    /// [`Controller::incremental_alter_configs_with`]).
    pub async fn incremental_alter_configs_from(
        &self,
        request: &IncrementalAlterConfigsRequest,
        forwarded: bool,
    ) -> IncrementalAlterConfigsResponse {
        self.incremental_alter_configs_with(&Access::everything(), request, forwarded)
            .await
    }

    /// IncrementalAlterConfigs as `ControllerApis` authorizes it:
    /// ALTER_CONFIGS on the cluster for a broker or client-metrics
    /// resource, on the topic or the group for theirs (refused ones are
    /// answered CLUSTER_ / TOPIC_ / GROUP_AUTHORIZATION_FAILED with Kafka's
    /// default text, after the duplicates); CLUSTER_ACTION on the cluster
    /// for a broker logger.
    pub(crate) async fn incremental_alter_configs_with(
        &self,
        access: &Access<'_>,
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
                let result = match access.allows(
                    AclOperation::ClusterAction,
                    ResourceType::Cluster,
                    CLUSTER_NAME,
                ) {
                    Ok(true) => self.alter_broker_logger(&r, request.validate_only),
                    Ok(false) => Err(ApiError::new(
                        ErrorCode::ClusterAuthorizationFailed,
                        ErrorCode::ClusterAuthorizationFailed.default_message(),
                    )),
                    Err(e) => Err(Refusal::from(e).api_error()),
                };
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
        let mut refused = Vec::new();
        for change in &changes {
            let resource = &change.resource;
            let (operation_on, denied) = match resource.resource_type {
                ConfigResource::BROKER | ConfigResource::CLIENT_METRICS => (
                    (ResourceType::Cluster, CLUSTER_NAME),
                    ErrorCode::ClusterAuthorizationFailed,
                ),
                ConfigResource::TOPIC => (
                    (ResourceType::Topic, resource.name.as_str()),
                    ErrorCode::TopicAuthorizationFailed,
                ),
                _ => (
                    (ResourceType::Group, resource.name.as_str()),
                    ErrorCode::GroupAuthorizationFailed,
                ),
            };
            match access.allows(AclOperation::AlterConfigs, operation_on.0, operation_on.1) {
                Ok(true) => {}
                Ok(false) => refused.push((resource.clone(), denied)),
                Err(e) => return error_response(request, &Refusal::from(e).api_error()),
            }
        }
        for (resource, denied) in refused {
            changes.retain(|c| c.resource != resource);
            responses.push(resource_response(
                resource.resource_type,
                &resource.name,
                &Err(ApiError::new(denied, denied.default_message())),
            ));
        }
        if !changes.is_empty() {
            let outcome = self
                .write("incrementalAlterConfigs", None, |state| {
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
                    push_config_records(resource, new, elr, &mut records, &mut clear_elr);
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
}

/// The ConfigRecords of `resource`'s `changes` (`None`: deleted) onto
/// `records`, and, with ELR on, a ClearElrRecord onto `clear_elr` for each
/// change of `min.insync.replicas` (the topic's, or every topic's for a
/// broker-level change), as `ConfigurationControlManager` writes them.
fn push_config_records(
    resource: &ConfigResource,
    changes: impl IntoIterator<Item = (String, Option<String>)>,
    elr: bool,
    records: &mut Vec<MetadataRecord>,
    clear_elr: &mut Vec<MetadataRecord>,
) {
    for (key, value) in changes {
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
}
