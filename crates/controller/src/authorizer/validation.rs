//! The checks Kafka makes of ACLs to create and filters to delete with
//! (`AclControlManager.validateNewAcl` / `validateHostPattern` /
//! `validateFilter`, and the checks `AclApis.handleCreateAcls` makes before
//! them), with Kafka's error codes and messages.

use kraft_protocol::acl::{AclOperation, AclPermissionType, PatternType, ResourceType};
use kraft_protocol::features::MetadataVersion;
use kraft_protocol::ErrorCode;

use super::binding::{no_colon_message, AclBinding, AclBindingFilter, WILDCARD_HOST};
use super::host::parse_cidr;

/// The one name of the CLUSTER resource (Kafka's `Resource.CLUSTER_NAME`).
pub const CLUSTER_NAME: &str = "kafka-cluster";

/// An ACL or filter Kafka refuses: the error code and message of Kafka's
/// exception (`InvalidRequestException`, `UnsupportedVersionException`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct AclError {
    /// `INVALID_REQUEST` or `UNSUPPORTED_VERSION`.
    pub code: ErrorCode,
    /// Kafka's message.
    pub message: String,
}

impl AclError {
    fn invalid(message: impl Into<String>) -> Self {
        AclError {
            code: ErrorCode::InvalidRequest,
            message: message.into(),
        }
    }
}

/// Kafka's `AclControlManager.validateNewAcl`: the resource type must be
/// concrete, the pattern LITERAL or PREFIXED, the operation concrete, the
/// permission ALLOW or DENY, the name non-empty, the principal `type:name`,
/// and the host valid ([`validate_host_pattern`]). `cidr_supported`: the
/// metadata.version is at least 4.4-IV1
/// ([`MetadataVersion::is_cidr_acl_supported`]).
pub fn validate_new_acl(binding: &AclBinding, cidr_supported: bool) -> Result<(), AclError> {
    let pattern = &binding.pattern;
    let entry = &binding.entry;
    if matches!(
        pattern.resource_type,
        ResourceType::Unknown | ResourceType::Any
    ) {
        return Err(AclError::invalid(format!(
            "Invalid resourceType {}",
            pattern.resource_type
        )));
    }
    if !matches!(
        pattern.pattern_type,
        PatternType::Literal | PatternType::Prefixed
    ) {
        return Err(AclError::invalid(format!(
            "Invalid patternType {}",
            pattern.pattern_type
        )));
    }
    if matches!(entry.operation, AclOperation::Unknown | AclOperation::Any) {
        return Err(AclError::invalid(format!(
            "Invalid operation {}",
            entry.operation
        )));
    }
    if !matches!(
        entry.permission_type,
        AclPermissionType::Deny | AclPermissionType::Allow
    ) {
        return Err(AclError::invalid(format!(
            "Invalid permissionType {}",
            entry.permission_type
        )));
    }
    if pattern.name.is_empty() {
        return Err(AclError::invalid("Resource name should not be empty"));
    }
    if !entry.principal.contains(':') {
        return Err(AclError::invalid(no_colon_message(&entry.principal)));
    }
    validate_host_pattern(&entry.host, cidr_supported)
}

/// Kafka's `AclControlManager.validateHostPattern`: not empty; `*`, or any
/// host without `/` (addresses and host names alike), or, from
/// metadata.version 4.4-IV1 on, a valid CIDR range.
pub fn validate_host_pattern(host: &str, cidr_supported: bool) -> Result<(), AclError> {
    if host.is_empty() {
        return Err(AclError::invalid("Host pattern cannot be null or empty"));
    }
    if host == WILDCARD_HOST || !host.contains('/') {
        return Ok(());
    }
    if !cidr_supported {
        return Err(AclError {
            code: ErrorCode::UnsupportedVersion,
            message: format!(
                "CIDR-based ACL host patterns require metadata version {} \
                 or higher.",
                MetadataVersion::IBP_4_4_IV1
            ),
        });
    }
    parse_cidr(host)
        .map(|_| ())
        .map_err(|e| AclError::invalid(format!("Invalid CIDR notation '{host}': {e}")))
}

/// Kafka's `AclControlManager.validateFilter` (for DeleteAcls): neither
/// half of the filter may be unknown.
pub fn validate_filter(filter: &AclBindingFilter) -> Result<(), AclError> {
    if filter.pattern_filter.is_unknown() {
        return Err(AclError::invalid("Unknown patternFilter."));
    }
    if filter.entry_filter.is_unknown() {
        return Err(AclError::invalid("Unknown entryFilter."));
    }
    Ok(())
}

/// The checks `AclApis.handleCreateAcls` makes of each creation before the
/// controller's ([`validate_new_acl`]): a CLUSTER ACL must name
/// `kafka-cluster`, and no ACL may have an empty name.
pub fn validate_creation(binding: &AclBinding) -> Result<(), AclError> {
    let pattern = &binding.pattern;
    if pattern.resource_type == ResourceType::Cluster && pattern.name != CLUSTER_NAME {
        return Err(AclError::invalid(format!(
            "The only valid name for the CLUSTER resource is {CLUSTER_NAME}"
        )));
    }
    if pattern.name.is_empty() {
        return Err(AclError::invalid("Invalid empty resource name"));
    }
    Ok(())
}
