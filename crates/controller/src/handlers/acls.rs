//! DescribeAcls (29), CreateAcls (30) and DeleteAcls (31): Kafka 4.4's
//! `AclApis` (the checks before the authorizer), `StandardAuthorizer.acls`
//! (describe) and `AclControlManager` (the records).
//!
//! Without an authorizer every one answers SECURITY_DISABLED. The caller
//! needs DESCRIBE (describe) or ALTER (create, delete) on the cluster,
//! checked before the handler runs. A request holding an UNKNOWN resource
//! type, pattern type, operation or permission type is one Kafka refuses
//! to parse: the connection is closed.
//!
//! **CreateAcls.** Each binding: a CLUSTER resource must be named
//! `kafka-cluster` and a name must not be empty (`AclApis`, INVALID_REQUEST),
//! then `AclControlManager.validateNewAcl` (resource, pattern, operation and
//! permission types, principal, host; a CIDR host needs metadata.version
//! 4.4-IV1) against the writer's state. An ACL that exists already, or
//! twice in the request, is answered success and written once: one
//! AccessControlEntryRecord (v0) with a new random id per new ACL, all in
//! one write, answered once committed. More than 10,000 new ACLs in one
//! request write nothing: each binding that passed `AclApis` is answered
//! POLICY_VIOLATION `Unable to perform excessively large batch operation.`
//! (as is any failure of the write, such as NOT_CONTROLLER, with its own
//! code), the others keep their own refusal.
//!
//! **DeleteAcls.** Each filter (an UNKNOWN part answers INVALID_REQUEST)
//! selects the ACLs it matches; each ACL is removed once (one
//! RemoveAccessControlEntryRecord v0), however many filters match it, in
//! one atomic write; more than 10,000 removals refuse the whole request
//! (INVALID_REQUEST, `Cannot remove more than 10000 acls in a single delete
//! operation.`).
//!
//! **DescribeAcls.** The committed ACLs the filter matches, grouped by
//! resource pattern.

use std::collections::{HashMap, HashSet};

use kraft_protocol::acl::{AclOperation, AclPermissionType, PatternType, ResourceType};
use kraft_protocol::messages::create_acls_request::{AclCreation, CreateAclsRequest};
use kraft_protocol::messages::create_acls_response::{AclCreationResult, CreateAclsResponse};
use kraft_protocol::messages::delete_acls_request::{DeleteAclsFilter, DeleteAclsRequest};
use kraft_protocol::messages::delete_acls_response::{
    DeleteAclsFilterResult, DeleteAclsMatchingAcl, DeleteAclsResponse,
};
use kraft_protocol::messages::describe_acls_request::DescribeAclsRequest;
use kraft_protocol::messages::describe_acls_response::{
    AclDescription, DescribeAclsResource, DescribeAclsResponse,
};
use kraft_protocol::messages::remove_access_control_entry_record::RemoveAccessControlEntryRecord;
use kraft_protocol::{ErrorCode, RequestBody, StrBytes, Uuid};

use super::writer::Generated;
use super::{error_response, ApiError, Controller, MAX_RECORDS_PER_USER_OP};
use crate::authorizer::{
    validate_creation, validate_filter, validate_new_acl, AccessControlEntry,
    AccessControlEntryFilter, AclBinding, AclBindingFilter, ResourcePattern, ResourcePatternFilter,
};
use crate::image::{MetadataRecord, StandardAcl};
use crate::server::CloseConnection;

/// Kafka's answer without an authorizer (`SecurityDisabledException`).
const NO_AUTHORIZER: &str = "No Authorizer is configured.";

fn creation_binding(c: &AclCreation) -> AclBinding {
    AclBinding::new(
        ResourcePattern::new(
            ResourceType::from_code(c.resource_type),
            c.resource_name.as_str(),
            PatternType::from_code(c.resource_pattern_type),
        ),
        AccessControlEntry::new(
            c.principal.as_str(),
            c.host.as_str(),
            AclOperation::from_code(c.operation),
            AclPermissionType::from_code(c.permission_type),
        ),
    )
}

#[allow(clippy::too_many_arguments)]
fn filter_of(
    resource_type: i8,
    name: Option<&StrBytes>,
    pattern_type: i8,
    principal: Option<&StrBytes>,
    host: Option<&StrBytes>,
    operation: i8,
    permission_type: i8,
) -> AclBindingFilter {
    AclBindingFilter::new(
        ResourcePatternFilter::new(
            ResourceType::from_code(resource_type),
            name.map(StrBytes::as_str),
            PatternType::from_code(pattern_type),
        ),
        AccessControlEntryFilter::new(
            principal.map(StrBytes::as_str),
            host.map(StrBytes::as_str),
            AclOperation::from_code(operation),
            AclPermissionType::from_code(permission_type),
        ),
    )
}

fn delete_filter(f: &DeleteAclsFilter) -> AclBindingFilter {
    filter_of(
        f.resource_type_filter,
        f.resource_name_filter.as_ref(),
        f.pattern_type_filter,
        f.principal_filter.as_ref(),
        f.host_filter.as_ref(),
        f.operation,
        f.permission_type,
    )
}

/// Whether Kafka's request constructor refuses the codes (an UNKNOWN
/// element: `IllegalArgumentException` while parsing).
fn has_unknown(codes: [i8; 4]) -> bool {
    ResourceType::from_code(codes[0]).is_unknown()
        || PatternType::from_code(codes[1]).is_unknown()
        || AclOperation::from_code(codes[2]).is_unknown()
        || AclPermissionType::from_code(codes[3]).is_unknown()
}

fn unparsable(api: &str) -> CloseConnection {
    CloseConnection(format!("{api} request contains UNKNOWN elements"))
}

impl Controller {
    /// DescribeAcls (v1-3): the committed ACLs the filter matches.
    pub(crate) fn describe_acls(
        &self,
        request: &DescribeAclsRequest,
    ) -> Result<DescribeAclsResponse, CloseConnection> {
        let filter = filter_of(
            request.resource_type_filter,
            request.resource_name_filter.as_ref(),
            request.pattern_type_filter,
            request.principal_filter.as_ref(),
            request.host_filter.as_ref(),
            request.operation,
            request.permission_type,
        );
        if self.authorizer.is_none() {
            return Ok(DescribeAclsResponse {
                error_code: ErrorCode::SecurityDisabled.code(),
                error_message: Some("No Authorizer is configured on the broker".into()),
                ..Default::default()
            });
        }
        if filter.is_unknown() {
            return Err(unparsable("DescribeAcls"));
        }
        let image = self.image.read();
        let mut groups: Vec<(ResourcePattern, Vec<AclDescription>)> = Vec::new();
        let mut at: HashMap<ResourcePattern, usize> = HashMap::new();
        // Kafka groups the entries of a pattern in a set.
        let mut seen: HashSet<(ResourcePattern, AccessControlEntry)> = HashSet::new();
        for (_, acl) in image.acls().index().matching(&filter) {
            let Ok(binding) = acl.to_binding() else {
                continue;
            };
            if !seen.insert((binding.pattern.clone(), binding.entry.clone())) {
                continue;
            }
            let description = AclDescription {
                principal: binding.entry.principal.as_str().into(),
                host: binding.entry.host.as_str().into(),
                operation: binding.entry.operation.code(),
                permission_type: binding.entry.permission_type.code(),
                ..Default::default()
            };
            let i = *at.entry(binding.pattern.clone()).or_insert_with(|| {
                groups.push((binding.pattern.clone(), Vec::new()));
                groups.len() - 1
            });
            groups[i].1.push(description);
        }
        Ok(DescribeAclsResponse {
            resources: groups
                .into_iter()
                .map(|(pattern, acls)| DescribeAclsResource {
                    resource_type: pattern.resource_type.code(),
                    resource_name: pattern.name.into(),
                    pattern_type: pattern.pattern_type.code(),
                    acls: acls.into(),
                    ..Default::default()
                })
                .collect(),
            ..Default::default()
        })
    }

    /// CreateAcls (v1-3), answered once the new ACLs are committed.
    pub(crate) async fn create_acls(
        &self,
        version: i16,
        request: &CreateAclsRequest,
    ) -> Result<CreateAclsResponse, CloseConnection> {
        let whole = |code: ErrorCode, message: Option<&str>| match error_response(
            &RequestBody::CreateAcls(request.clone()),
            version,
            code,
            message,
        ) {
            Some(kraft_protocol::ResponseBody::CreateAcls(r)) => r,
            _ => CreateAclsResponse::default(),
        };
        if self.authorizer.is_none() {
            return Ok(whole(ErrorCode::SecurityDisabled, Some(NO_AUTHORIZER)));
        }
        let creations: Vec<AclCreation> = request.creations.to_vec();
        if creations.iter().any(|c| {
            has_unknown([
                c.resource_type,
                c.resource_pattern_type,
                c.operation,
                c.permission_type,
            ])
        }) {
            return Err(unparsable("CreateAcls"));
        }
        let bindings: Vec<AclBinding> = creations.iter().map(creation_binding).collect();
        // `AclApis`: refusals before the authorizer sees a binding.
        let early: Vec<Option<ApiError>> = bindings
            .iter()
            .map(|b| {
                validate_creation(b)
                    .err()
                    .map(|e| ApiError::new(e.code, e.message))
            })
            .collect();
        let valid: Vec<&AclBinding> = bindings
            .iter()
            .zip(&early)
            .filter(|(_, e)| e.is_none())
            .map(|(b, _)| b)
            .collect();
        let outcome = if valid.is_empty() {
            Ok(Vec::new())
        } else {
            self.write("createAcls", None, |state| {
                generate_creations(&state.image, &valid)
            })
            .await
        };
        // A failed write fails each binding that reached it; those refused
        // before keep their own error (`ClusterMetadataAuthorizer.createAcls`
        // and `AclApis`).
        let (mut created, failed) = match outcome {
            Ok(results) => (results.into_iter(), None),
            Err(e) => (Vec::new().into_iter(), Some(e)),
        };
        let results: Vec<AclCreationResult> = early
            .into_iter()
            .map(|refused| {
                let result = match (refused, &failed) {
                    (Some(e), _) => Some(e),
                    (None, Some(e)) => Some(e.clone()),
                    (None, None) => created.next().flatten(),
                };
                match result {
                    None => AclCreationResult {
                        error_code: 0,
                        error_message: None,
                        ..Default::default()
                    },
                    Some(e) => AclCreationResult {
                        error_code: e.code.code(),
                        error_message: e.message.map(StrBytes::from),
                        ..Default::default()
                    },
                }
            })
            .collect();
        Ok(CreateAclsResponse {
            results: results.into(),
            ..Default::default()
        })
    }

    /// DeleteAcls (v1-3), answered once the removals are committed.
    pub(crate) async fn delete_acls(
        &self,
        version: i16,
        request: &DeleteAclsRequest,
    ) -> Result<DeleteAclsResponse, CloseConnection> {
        let whole = |code: ErrorCode, message: Option<&str>| match error_response(
            &RequestBody::DeleteAcls(request.clone()),
            version,
            code,
            message,
        ) {
            Some(kraft_protocol::ResponseBody::DeleteAcls(r)) => r,
            _ => DeleteAclsResponse::default(),
        };
        if self.authorizer.is_none() {
            return Ok(whole(ErrorCode::SecurityDisabled, Some(NO_AUTHORIZER)));
        }
        let filters: Vec<DeleteAclsFilter> = request.filters.to_vec();
        if filters.iter().any(|f| {
            has_unknown([
                f.resource_type_filter,
                f.pattern_type_filter,
                f.operation,
                f.permission_type,
            ])
        }) {
            return Err(unparsable("DeleteAcls"));
        }
        let filters: Vec<AclBindingFilter> = filters.iter().map(delete_filter).collect();
        let outcome = self
            .write("deleteAcls", None, |state| {
                generate_deletions(&state.image, &filters)
            })
            .await;
        match outcome {
            Ok(results) => Ok(DeleteAclsResponse {
                filter_results: results.into(),
                ..Default::default()
            }),
            Err(e) => Ok(whole(e.code, e.message.as_deref())),
        }
    }
}

/// Kafka's `AclControlManager.createAcls` over the writer's state: one
/// result per binding (`None`: success).
fn generate_creations(
    image: &crate::image::MetadataImage,
    bindings: &[&AclBinding],
) -> Result<Generated<Vec<Option<ApiError>>>, ApiError> {
    let cidr = image
        .metadata_version()
        .is_some_and(|mv| mv.is_cidr_acl_supported());
    let existing: HashSet<&StandardAcl> = image.acls().acls().map(|(_, acl)| acl).collect();
    let mut new_ids: HashSet<Uuid> = HashSet::new();
    let mut new_acls: HashSet<StandardAcl> = HashSet::new();
    let mut records = Vec::new();
    let mut results = Vec::with_capacity(bindings.len());
    for binding in bindings {
        if let Err(e) = validate_new_acl(binding, cidr) {
            results.push(Some(ApiError::new(e.code, e.message)));
            continue;
        }
        let acl = StandardAcl::from_binding(binding);
        if !existing.contains(&acl) && !new_acls.contains(&acl) {
            if records.len() >= MAX_RECORDS_PER_USER_OP {
                // Kafka's BoundedListTooLongException, as the controller's
                // event handler answers it.
                return Err(ApiError::new(
                    ErrorCode::PolicyViolation,
                    "Unable to perform excessively large batch operation.",
                ));
            }
            let id = loop {
                let id = crate::java::random_uuid();
                if image.acls().acl(&id).is_none() && new_ids.insert(id) {
                    break id;
                }
            };
            records.push(MetadataRecord::new(acl.to_record(id), 0));
            tracing::info!(
                "Creating ACL {binding:?} with id {}",
                crate::java::uuid_to_text(&id)
            );
            new_acls.insert(acl);
        }
        results.push(None);
    }
    Ok(Generated::new(records, results))
}

/// Kafka's `AclControlManager.deleteAcls` over the writer's state: one
/// result per filter; every matched ACL removed once, atomically.
fn generate_deletions(
    image: &crate::image::MetadataImage,
    filters: &[AclBindingFilter],
) -> Result<Generated<Vec<DeleteAclsFilterResult>>, ApiError> {
    let mut removed: HashSet<Uuid> = HashSet::new();
    let mut records = Vec::new();
    let mut results = Vec::with_capacity(filters.len());
    for filter in filters {
        if let Err(e) = validate_filter(filter) {
            results.push(DeleteAclsFilterResult {
                error_code: e.code.code(),
                error_message: Some(e.message.into()),
                ..Default::default()
            });
            continue;
        }
        let mut matching = Vec::new();
        for (id, acl) in image.acls().acls() {
            if !filter.matches_acl(acl) {
                continue;
            }
            let Ok(binding) = acl.to_binding() else {
                continue;
            };
            if records.len() >= MAX_RECORDS_PER_USER_OP {
                return Err(ApiError::new(
                    ErrorCode::InvalidRequest,
                    format!(
                        "Cannot remove more than {MAX_RECORDS_PER_USER_OP} acls in a single delete operation."
                    ),
                ));
            }
            matching.push(DeleteAclsMatchingAcl {
                error_code: 0,
                error_message: None,
                resource_type: binding.pattern.resource_type.code(),
                resource_name: binding.pattern.name.as_str().into(),
                pattern_type: binding.pattern.pattern_type.code(),
                principal: binding.entry.principal.as_str().into(),
                host: binding.entry.host.as_str().into(),
                operation: binding.entry.operation.code(),
                permission_type: binding.entry.permission_type.code(),
                ..Default::default()
            });
            if removed.insert(*id) {
                records.push(MetadataRecord::new(
                    RemoveAccessControlEntryRecord {
                        id: *id,
                        ..Default::default()
                    },
                    0,
                ));
            }
        }
        results.push(DeleteAclsFilterResult {
            error_code: 0,
            error_message: None,
            matching_acls: matching.into(),
            ..Default::default()
        });
    }
    Ok(Generated::new(records, results))
}
