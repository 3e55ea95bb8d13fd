//! ACL bindings and the filters DescribeAcls and DeleteAcls send (Kafka's
//! `AclBinding`, `ResourcePattern`, `AccessControlEntry` and their
//! `*Filter`s), and [`StandardAcl`]'s conversions to and from them.
//!
//! Unlike Kafka's constructors these types accept any enum value (a
//! `ResourcePattern` of type `ANY`, an entry of operation `ANY`, ...);
//! [`super::validate_new_acl`] refuses what Kafka's controller refuses.

use std::cmp::Ordering;
use std::fmt;

use kraft_protocol::acl::{
    AclOperation, AclPermissionType, KafkaPrincipal, PatternType, ResourceType,
};

use crate::image::StandardAcl;

/// The resource name of a LITERAL pattern that matches every name
/// (Kafka's `ResourcePattern.WILDCARD_RESOURCE`).
pub const WILDCARD_RESOURCE: &str = "*";

/// The host that matches every client.
pub const WILDCARD_HOST: &str = "*";

/// A resource pattern (Kafka's `ResourcePattern`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ResourcePattern {
    /// The resource type.
    pub resource_type: ResourceType,
    /// The resource name, or prefix.
    pub name: String,
    /// LITERAL or PREFIXED.
    pub pattern_type: PatternType,
}

/// An access control entry (Kafka's `AccessControlEntry`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct AccessControlEntry {
    /// The principal, `type:name`.
    pub principal: String,
    /// The host (`*` for every host).
    pub host: String,
    /// The operation.
    pub operation: AclOperation,
    /// ALLOW or DENY.
    pub permission_type: AclPermissionType,
}

/// An ACL: a resource pattern and an entry (Kafka's `AclBinding`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct AclBinding {
    /// The resources.
    pub pattern: ResourcePattern,
    /// Who may or may not do what, from where.
    pub entry: AccessControlEntry,
}

/// Selects resource patterns (Kafka's `ResourcePatternFilter`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ResourcePatternFilter {
    /// A resource type, or ANY.
    pub resource_type: ResourceType,
    /// A name; `None` matches every name.
    pub name: Option<String>,
    /// A pattern type, ANY (names compared exactly) or MATCH (the patterns
    /// that would apply to the resource `name`).
    pub pattern_type: PatternType,
}

/// Selects access control entries (Kafka's `AccessControlEntryFilter`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct AccessControlEntryFilter {
    /// A principal; `None` matches every principal.
    pub principal: Option<String>,
    /// A host; `None` matches every host.
    pub host: Option<String>,
    /// An operation, or ANY.
    pub operation: AclOperation,
    /// A permission type, or ANY.
    pub permission_type: AclPermissionType,
}

/// Selects ACLs (Kafka's `AclBindingFilter`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct AclBindingFilter {
    /// Which resource patterns.
    pub pattern_filter: ResourcePatternFilter,
    /// Which entries.
    pub entry_filter: AccessControlEntryFilter,
}

/// A stored ACL Kafka cannot turn into an [`AclBinding`]: its message is
/// that of Kafka's `IllegalArgumentException`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct InvalidBinding(pub String);

impl ResourcePattern {
    /// The pattern `resource_type`, `name`, `pattern_type`.
    pub fn new(
        resource_type: ResourceType,
        name: impl Into<String>,
        pattern_type: PatternType,
    ) -> Self {
        ResourcePattern {
            resource_type,
            name: name.into(),
            pattern_type,
        }
    }

    /// Kafka's `isUnknown`: the resource or pattern type is UNKNOWN.
    pub fn is_unknown(&self) -> bool {
        self.resource_type.is_unknown() || self.pattern_type.is_unknown()
    }

    /// The filter that matches exactly this pattern (Kafka's `toFilter`).
    pub fn to_filter(&self) -> ResourcePatternFilter {
        ResourcePatternFilter {
            resource_type: self.resource_type,
            name: Some(self.name.clone()),
            pattern_type: self.pattern_type,
        }
    }
}

impl fmt::Display for ResourcePattern {
    /// Kafka's `toString`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "ResourcePattern(resourceType={}, name={}, patternType={})",
            self.resource_type, self.name, self.pattern_type
        )
    }
}

impl AccessControlEntry {
    /// The entry `principal`, `host`, `operation`, `permission_type`.
    pub fn new(
        principal: impl Into<String>,
        host: impl Into<String>,
        operation: AclOperation,
        permission_type: AclPermissionType,
    ) -> Self {
        AccessControlEntry {
            principal: principal.into(),
            host: host.into(),
            operation,
            permission_type,
        }
    }

    /// Kafka's `isUnknown`: the operation or permission type is UNKNOWN.
    pub fn is_unknown(&self) -> bool {
        self.operation.is_unknown() || self.permission_type.is_unknown()
    }

    /// The filter that matches exactly this entry (Kafka's `toFilter`).
    pub fn to_filter(&self) -> AccessControlEntryFilter {
        AccessControlEntryFilter {
            principal: Some(self.principal.clone()),
            host: Some(self.host.clone()),
            operation: self.operation,
            permission_type: self.permission_type,
        }
    }
}

impl fmt::Display for AccessControlEntry {
    /// Kafka's `toString`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "(principal={}, host={}, operation={}, permissionType={})",
            self.principal, self.host, self.operation, self.permission_type
        )
    }
}

impl AclBinding {
    /// The binding of `pattern` and `entry`.
    pub fn new(pattern: ResourcePattern, entry: AccessControlEntry) -> Self {
        AclBinding { pattern, entry }
    }

    /// Kafka's `isUnknown`: the pattern or the entry is unknown.
    pub fn is_unknown(&self) -> bool {
        self.pattern.is_unknown() || self.entry.is_unknown()
    }

    /// The filter that matches exactly this binding (Kafka's `toFilter`).
    pub fn to_filter(&self) -> AclBindingFilter {
        AclBindingFilter {
            pattern_filter: self.pattern.to_filter(),
            entry_filter: self.entry.to_filter(),
        }
    }
}

impl fmt::Display for AclBinding {
    /// Kafka's `toString`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "(pattern={}, entry={})", self.pattern, self.entry)
    }
}

impl ResourcePatternFilter {
    /// Every resource pattern (Kafka's `ResourcePatternFilter.ANY`).
    pub const ANY: ResourcePatternFilter = ResourcePatternFilter {
        resource_type: ResourceType::Any,
        name: None,
        pattern_type: PatternType::Any,
    };

    /// The filter `resource_type`, `name`, `pattern_type`.
    pub fn new(resource_type: ResourceType, name: Option<&str>, pattern_type: PatternType) -> Self {
        ResourcePatternFilter {
            resource_type,
            name: name.map(str::to_owned),
            pattern_type,
        }
    }

    /// Kafka's `isUnknown`: the resource or pattern type is UNKNOWN.
    pub fn is_unknown(&self) -> bool {
        self.resource_type.is_unknown() || self.pattern_type.is_unknown()
    }

    /// Kafka's `matches`.
    pub fn matches(&self, pattern: &ResourcePattern) -> bool {
        self.matches_parts(pattern.resource_type, &pattern.name, pattern.pattern_type)
    }

    /// Kafka's `matches` on a pattern's parts. With MATCH and a name, a
    /// pattern neither LITERAL nor PREFIXED matches nothing (Kafka throws).
    fn matches_parts(
        &self,
        resource_type: ResourceType,
        name: &str,
        pattern_type: PatternType,
    ) -> bool {
        if self.resource_type != ResourceType::Any && self.resource_type != resource_type {
            return false;
        }
        if !matches!(self.pattern_type, PatternType::Any | PatternType::Match)
            && self.pattern_type != pattern_type
        {
            return false;
        }
        let Some(wanted) = self.name.as_deref() else {
            return true;
        };
        if self.pattern_type == PatternType::Any || self.pattern_type == pattern_type {
            return wanted == name;
        }
        match pattern_type {
            PatternType::Literal => wanted == name || name == WILDCARD_RESOURCE,
            PatternType::Prefixed => wanted.starts_with(name),
            _ => false,
        }
    }
}

impl AccessControlEntryFilter {
    /// Every entry (Kafka's `AccessControlEntryFilter.ANY`).
    pub const ANY: AccessControlEntryFilter = AccessControlEntryFilter {
        principal: None,
        host: None,
        operation: AclOperation::Any,
        permission_type: AclPermissionType::Any,
    };

    /// The filter `principal`, `host`, `operation`, `permission_type`.
    pub fn new(
        principal: Option<&str>,
        host: Option<&str>,
        operation: AclOperation,
        permission_type: AclPermissionType,
    ) -> Self {
        AccessControlEntryFilter {
            principal: principal.map(str::to_owned),
            host: host.map(str::to_owned),
            operation,
            permission_type,
        }
    }

    /// Kafka's `isUnknown`: the operation or permission type is UNKNOWN.
    pub fn is_unknown(&self) -> bool {
        self.operation.is_unknown() || self.permission_type.is_unknown()
    }

    /// Kafka's `matches`.
    pub fn matches(&self, entry: &AccessControlEntry) -> bool {
        self.matches_parts(
            &entry.principal,
            &entry.host,
            entry.operation,
            entry.permission_type,
        )
    }

    fn matches_parts(
        &self,
        principal: &str,
        host: &str,
        operation: AclOperation,
        permission_type: AclPermissionType,
    ) -> bool {
        self.principal.as_deref().is_none_or(|p| p == principal)
            && self.host.as_deref().is_none_or(|h| h == host)
            && (self.operation == AclOperation::Any || self.operation == operation)
            && (self.permission_type == AclPermissionType::Any
                || self.permission_type == permission_type)
    }
}

impl AclBindingFilter {
    /// Every ACL (Kafka's `AclBindingFilter.ANY`).
    pub const ANY: AclBindingFilter = AclBindingFilter {
        pattern_filter: ResourcePatternFilter::ANY,
        entry_filter: AccessControlEntryFilter::ANY,
    };

    /// The filter of `pattern_filter` and `entry_filter`.
    pub fn new(
        pattern_filter: ResourcePatternFilter,
        entry_filter: AccessControlEntryFilter,
    ) -> Self {
        AclBindingFilter {
            pattern_filter,
            entry_filter,
        }
    }

    /// Kafka's `isUnknown`: either part is unknown.
    pub fn is_unknown(&self) -> bool {
        self.pattern_filter.is_unknown() || self.entry_filter.is_unknown()
    }

    /// Kafka's `matches`.
    pub fn matches(&self, binding: &AclBinding) -> bool {
        self.pattern_filter.matches(&binding.pattern) && self.entry_filter.matches(&binding.entry)
    }

    /// Whether the stored ACL matches: Kafka's `matches` on
    /// `acl.toBinding()`. An ACL that has no binding ([`StandardAcl::to_binding`]
    /// fails, which Kafka's controller never writes) matches no filter.
    pub fn matches_acl(&self, acl: &StandardAcl) -> bool {
        let Ok(parts) = AclParts::of(acl) else {
            return false;
        };
        self.pattern_filter.matches_parts(
            parts.resource_type,
            &acl.resource_name,
            parts.pattern_type,
        ) && self.entry_filter.matches_parts(
            &acl.principal,
            &acl.host,
            parts.operation,
            parts.permission_type,
        )
    }
}

/// A stored ACL's codes as Kafka's enums, once checked to form a binding.
struct AclParts {
    resource_type: ResourceType,
    pattern_type: PatternType,
    operation: AclOperation,
    permission_type: AclPermissionType,
}

impl AclParts {
    /// The enums of `acl`'s codes (unknown codes are UNKNOWN), or the
    /// `IllegalArgumentException` Kafka's `toBinding` throws, checked in
    /// Kafka's order.
    fn of(acl: &StandardAcl) -> Result<AclParts, InvalidBinding> {
        let parts = AclParts {
            resource_type: ResourceType::from_code(acl.resource_type),
            pattern_type: PatternType::from_code(acl.pattern_type),
            operation: AclOperation::from_code(acl.operation),
            permission_type: AclPermissionType::from_code(acl.permission_type),
        };
        if parts.resource_type == ResourceType::Any {
            return Err(InvalidBinding("resourceType must not be ANY".into()));
        }
        if matches!(parts.pattern_type, PatternType::Match | PatternType::Any) {
            return Err(InvalidBinding(format!(
                "patternType must not be {}",
                parts.pattern_type
            )));
        }
        if parts.operation == AclOperation::Any {
            return Err(InvalidBinding("operation must not be ANY".into()));
        }
        if parts.permission_type == AclPermissionType::Any {
            return Err(InvalidBinding("permissionType must not be ANY".into()));
        }
        Ok(parts)
    }
}

/// Java's `String.compareTo`: UTF-16 code unit order.
fn java_string_cmp(a: &str, b: &str) -> Ordering {
    if a.is_ascii() && b.is_ascii() {
        a.cmp(b)
    } else {
        a.encode_utf16().cmp(b.encode_utf16())
    }
}

impl StandardAcl {
    /// The ACL a binding describes (Kafka's `StandardAcl.fromAclBinding`).
    pub fn from_binding(binding: &AclBinding) -> Self {
        StandardAcl {
            resource_type: binding.pattern.resource_type.code(),
            resource_name: binding.pattern.name.clone(),
            pattern_type: binding.pattern.pattern_type.code(),
            principal: binding.entry.principal.clone(),
            host: binding.entry.host.clone(),
            operation: binding.entry.operation.code(),
            permission_type: binding.entry.permission_type.code(),
        }
    }

    /// The binding of this ACL (Kafka's `toBinding`): codes Kafka does not
    /// know become UNKNOWN; the ANY and MATCH values, which no binding may
    /// hold, are Kafka's `IllegalArgumentException`.
    pub fn to_binding(&self) -> Result<AclBinding, InvalidBinding> {
        let parts = AclParts::of(self)?;
        Ok(AclBinding {
            pattern: ResourcePattern::new(
                parts.resource_type,
                &self.resource_name,
                parts.pattern_type,
            ),
            entry: AccessControlEntry::new(
                &self.principal,
                &self.host,
                parts.operation,
                parts.permission_type,
            ),
        })
    }

    /// The principal (Kafka's `kafkaPrincipal`): split at the first colon;
    /// without one, Kafka's `IllegalStateException` message.
    pub fn kafka_principal(&self) -> Result<KafkaPrincipal, String> {
        match self.principal.split_once(':') {
            Some((principal_type, name)) => Ok(KafkaPrincipal::new(
                principal_type.to_owned(),
                name.to_owned(),
            )),
            None => Err(no_colon_message(&self.principal)),
        }
    }

    /// Kafka's `StandardAcl.compareTo`, the order DescribeAcls lists ACLs in:
    /// resource type, resource name **reversed**, pattern type, operation,
    /// principal, host, permission type (enums by Kafka's order, unknown
    /// codes as UNKNOWN; strings as Java compares them).
    pub fn kafka_cmp(&self, other: &StandardAcl) -> Ordering {
        let rt = |a: &StandardAcl| ResourceType::from_code(a.resource_type);
        let pt = |a: &StandardAcl| PatternType::from_code(a.pattern_type);
        let op = |a: &StandardAcl| AclOperation::from_code(a.operation);
        let perm = |a: &StandardAcl| AclPermissionType::from_code(a.permission_type);
        rt(self)
            .cmp(&rt(other))
            .then_with(|| java_string_cmp(&other.resource_name, &self.resource_name))
            .then_with(|| pt(self).cmp(&pt(other)))
            .then_with(|| op(self).cmp(&op(other)))
            .then_with(|| java_string_cmp(&self.principal, &other.principal))
            .then_with(|| java_string_cmp(&self.host, &other.host))
            .then_with(|| perm(self).cmp(&perm(other)))
    }
}

/// Kafka's message for a principal without a colon (`StandardAcl.kafkaPrincipal`,
/// `AclControlManager.validateNewAcl`).
pub(crate) fn no_colon_message(principal: &str) -> String {
    format!(
        "Could not parse principal from `{principal}` (no colon is present separating the \
         principal type from the principal name)"
    )
}
