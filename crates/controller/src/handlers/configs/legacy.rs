//! The legacy AlterConfigs (33, v0-2): each named resource's configs are
//! replaced by the request's set, as Kafka's
//! `ControllerApis.handleLegacyAlterConfigs` and
//! `ConfigurationControlManager.legacyAlterConfigs` do.
//!
//! In request order: an unknown resource type is refused with
//! `UNSUPPORTED_VERSION`, a resource named twice with `INVALID_REQUEST`
//! (`Duplicate resource.`, once; its set is dropped, later repeats are
//! ignored). Then each resource is authorized: ALTER_CONFIGS on the
//! cluster for BROKER and CLIENT_METRICS, on the topic or the group for
//! theirs; any other type (a BROKER_LOGGER) is `INVALID_REQUEST`
//! (`Unexpected resource type BROKER_LOGGER.`). The rest are written in one
//! atomic batch: per resource, a ConfigRecord for each given config whose
//! value changes (every one for a BROKER, KAFKA-14136) and a deletion for
//! each current config the set leaves out, validated as IncrementalAlterConfigs
//! validates its records (the ELR and `cordoned.log.dirs` rules, the value
//! size, the resource type's validator, the resource's existence); then a
//! ClearElrRecord per `min.insync.replicas` record when ELR is on. Nothing
//! is written with ValidateOnly.

use std::collections::{BTreeMap, HashSet};

use kraft_protocol::acl::{AclOperation, ResourceType};
use kraft_protocol::messages::alter_configs_request::AlterConfigsRequest;
use kraft_protocol::messages::alter_configs_response::{
    AlterConfigsResourceResponse, AlterConfigsResponse,
};
use kraft_protocol::{ErrorCode, StrBytes};

use super::validation::resource_type_name;
use super::{
    error, invalid_request, known_resource_type, push_config_records, ResourceResult,
    MAX_RECORDS_PER_USER_OP,
};
use crate::handlers::authz::{Access, Refusal, CLUSTER_NAME};
use crate::handlers::writer::{ActiveState, Generated};
use crate::handlers::{ApiError, Controller};
use crate::image::{ConfigResource, MetadataRecord};
use crate::java::JavaMap;

/// One resource's new set of configs, in Java's `HashMap` order.
type NewConfigs = (ConfigResource, JavaMap<String, Option<String>>);

fn response(
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

/// `AlterConfigsRequest.getErrorResponse`: every resource of the request
/// with the error (its message as `ApiError.fromThrowable` gives it).
pub(crate) fn alter_configs_error_response(
    request: &AlterConfigsRequest,
    e: &ApiError,
) -> AlterConfigsResponse {
    let message = match e.code {
        ErrorCode::UnknownServerError | ErrorCode::Unknown(_) => None,
        code => e
            .message
            .clone()
            .filter(|m| m.as_str() != code.default_message()),
    };
    let failed = Err(ApiError {
        code: e.code,
        message,
    });
    AlterConfigsResponse {
        throttle_time_ms: 0,
        responses: request
            .resources
            .iter()
            .map(|r| response(r.resource_type, r.resource_name.as_str(), &failed))
            .collect(),
        ..Default::default()
    }
}

impl Controller {
    /// The legacy AlterConfigs as a trusted caller sends it directly:
    /// nothing is authorized.
    pub async fn alter_configs(&self, request: &AlterConfigsRequest) -> AlterConfigsResponse {
        self.alter_configs_with(&Access::everything(), request, false)
            .await
    }

    /// The legacy AlterConfigs as `ControllerApis` serves it, `forwarded`
    /// when it came inside an Envelope: see the module docs. Answered once
    /// its records are committed.
    pub(crate) async fn alter_configs_with(
        &self,
        access: &Access<'_>,
        request: &AlterConfigsRequest,
        forwarded: bool,
    ) -> AlterConfigsResponse {
        let mut responses = Vec::new();
        let mut changes: Vec<NewConfigs> = Vec::new();
        let mut duplicates: HashSet<ConfigResource> = HashSet::new();
        for r in request.resources.iter() {
            let name = r.resource_name.as_str();
            if !known_resource_type(r.resource_type) {
                responses.push(response(
                    r.resource_type,
                    name,
                    &Err(error(
                        ErrorCode::UnsupportedVersion,
                        format!("Unknown resource type {}.", r.resource_type),
                    )),
                ));
                continue;
            }
            let resource = ConfigResource::new(r.resource_type, name);
            if duplicates.contains(&resource) {
                continue;
            }
            if let Some(at) = changes.iter().position(|(c, _)| *c == resource) {
                changes.remove(at);
                duplicates.insert(resource);
                responses.push(response(
                    r.resource_type,
                    name,
                    &Err(invalid_request("Duplicate resource.")),
                ));
                continue;
            }
            let mut configs = JavaMap::new();
            for c in r.configs.iter() {
                configs.put(
                    c.name.as_str().to_owned(),
                    c.value.as_ref().map(|v| v.as_str().to_owned()),
                );
            }
            changes.push((resource, configs));
        }
        let mut refused = Vec::new();
        for (resource, _) in &changes {
            let check = match resource.resource_type {
                ConfigResource::BROKER | ConfigResource::CLIENT_METRICS => Some((
                    ResourceType::Cluster,
                    CLUSTER_NAME,
                    ErrorCode::ClusterAuthorizationFailed,
                )),
                ConfigResource::TOPIC => Some((
                    ResourceType::Topic,
                    resource.name.as_str(),
                    ErrorCode::TopicAuthorizationFailed,
                )),
                ConfigResource::GROUP => Some((
                    ResourceType::Group,
                    resource.name.as_str(),
                    ErrorCode::GroupAuthorizationFailed,
                )),
                _ => None,
            };
            let outcome = match check {
                None => Err(invalid_request(format!(
                    "Unexpected resource type {}.",
                    resource_type_name(resource.resource_type)
                ))),
                Some((on, name, denied)) => {
                    match access.allows(AclOperation::AlterConfigs, on, name) {
                        Ok(true) => Ok(()),
                        Ok(false) => Err(ApiError::new(denied, denied.default_message())),
                        Err(e) => {
                            return alter_configs_error_response(
                                request,
                                &Refusal::from(e).api_error(),
                            )
                        }
                    }
                }
            };
            if let Err(e) = outcome {
                refused.push((resource.clone(), e));
            }
        }
        for (resource, e) in refused {
            changes.retain(|(c, _)| *c != resource);
            responses.push(response(resource.resource_type, &resource.name, &Err(e)));
        }
        if !changes.is_empty() {
            let outcome = self
                .write("legacyAlterConfigs", None, |state| {
                    self.generate_legacy_alter_configs(
                        state,
                        &changes,
                        request.validate_only,
                        forwarded,
                    )
                })
                .await;
            match outcome {
                Ok(results) => {
                    for (resource, result) in &results {
                        responses.push(response(resource.resource_type, &resource.name, result));
                    }
                }
                Err(e) => return alter_configs_error_response(request, &e),
            }
        }
        AlterConfigsResponse {
            throttle_time_ms: 0,
            responses: responses.into(),
            ..Default::default()
        }
    }

    /// Kafka's `ConfigurationControlManager.legacyAlterConfigs` over the
    /// writer's state.
    fn generate_legacy_alter_configs(
        &self,
        state: &mut ActiveState,
        changes: &[NewConfigs],
        validate_only: bool,
        forwarded: bool,
    ) -> Result<Generated<Vec<ResourceResult>>, ApiError> {
        let image = &state.image;
        let elr = image.eligible_leader_replicas_enabled();
        let mut records: Vec<MetadataRecord> = Vec::new();
        let mut clear_elr: Vec<MetadataRecord> = Vec::new();
        let mut results = Vec::with_capacity(changes.len());
        let empty = BTreeMap::new();
        for (resource, configs) in changes {
            let current = image.configs().config(resource).unwrap_or(&empty);
            let mut altered: Vec<(String, Option<String>)> = configs
                .iter()
                .filter(|(key, value)| {
                    resource.resource_type == ConfigResource::BROKER
                        || current.get(*key) != value.as_ref()
                })
                .map(|(key, value)| (key.clone(), value.clone()))
                .collect();
            altered.extend(
                current
                    .keys()
                    .filter(|key| !configs.contains_key(*key))
                    .map(|key| (key.clone(), None)),
            );
            match self.validate_alter(image, resource, &altered, forwarded) {
                Ok(()) => {
                    push_config_records(resource, altered, elr, &mut records, &mut clear_elr);
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
        if validate_only {
            return Ok(Generated::new(Vec::new(), results));
        }
        tracing::info!(
            "Replaced the configs of {} resource(s) with the legacy AlterConfigs",
            results.iter().filter(|(_, r)| r.is_ok()).count()
        );
        Ok(Generated::new(records, results))
    }
}
