//! Kafka's `StandardAuthorizer`: ACL authorization over the ACLs of the
//! metadata image.
//!
//! * [`StandardAuthorizer`] holds the configuration (`super.users`,
//!   `allow.everyone.if.no.acl.found`) and decides; the ACLs are the
//!   image's [`AclIndex`] (`image.acls().index()`), passed in with whether
//!   the image is loaded, so a decision reads one consistent image.
//! * [`AclIndex`]: the ACLs indexed for checks, and the ACLs a DescribeAcls
//!   or DeleteAcls filter selects ([`AclIndex::matching`]).
//! * [`AclBinding`], [`AclBindingFilter`] and their parts: Kafka's binding
//!   and filter types and matching.
//! * [`validate_new_acl`], [`validate_filter`], [`validate_creation`]:
//!   Kafka's checks of CreateAcls and DeleteAcls input.
//!
//! How an action is decided (Kafka's `StandardAuthorizerData.authorize`):
//!
//! 1. A super user is allowed everything, even before the image is loaded.
//! 2. Anyone else gets [`AuthorizerNotReady`] until it is loaded.
//! 3. The ACLs on the resource (see [`AclIndex`] for which apply to a name)
//!    for the principal or `User:*`, whose host matches the client (`*`, the
//!    exact address, or a CIDR range containing it), and whose operation
//!    matches: the same operation, ALL, or for ALLOW ACLs an implying one
//!    (READ, WRITE, DELETE, ALTER imply DESCRIBE; ALTER_CONFIGS implies
//!    DESCRIBE_CONFIGS). DENY ACLs imply nothing.
//! 4. Any such DENY denies (an ACL whose permission code is neither ALLOW
//!    nor DENY counts as a DENY, as in Kafka); else any ALLOW allows; else,
//!    if some ACL names the resource at all, denied; else the default
//!    (`allow.everyone.if.no.acl.found`).
//!
//! Where Kafka throws instead of answering, on ACLs its controller never
//! writes: an ACL whose principal has no colon applies to no one (but still
//! names its resource); an ACL with an ANY or MATCH code matches no
//! DescribeAcls / DeleteAcls filter. A request principal that is itself
//! `User:*` (Kafka throws) is simply that principal. Kafka's audit log is
//! not reproduced.

mod binding;
mod host;
mod index;
mod validation;

#[cfg(test)]
mod binding_tests;
#[cfg(test)]
mod cidr_tests;
#[cfg(test)]
mod index_tests;
#[cfg(test)]
mod operations_tests;
#[cfg(test)]
mod property_tests;
#[cfg(test)]
mod tests;

use std::collections::{BTreeSet, HashSet};
use std::net::IpAddr;

use kraft_protocol::acl::{
    AclOperation, AclPermissionType, KafkaPrincipal, PatternType, ResourceType,
};
use kraft_protocol::ErrorCode;

pub use binding::{
    AccessControlEntry, AccessControlEntryFilter, AclBinding, AclBindingFilter, InvalidBinding,
    ResourcePattern, ResourcePatternFilter, WILDCARD_HOST, WILDCARD_RESOURCE,
};
pub use host::java_host_address;
pub use index::AclIndex;
pub use validation::{
    validate_creation, validate_filter, validate_host_pattern, validate_new_acl, AclError,
    CLUSTER_NAME,
};

use host::client_address;

/// Who is asking: the authenticated principal and the client's address.
#[derive(Debug, Clone, Copy)]
pub struct RequestIdentity<'a> {
    /// The principal.
    pub principal: &'a KafkaPrincipal,
    /// The client's address (an IPv4-mapped IPv6 address counts as IPv4).
    pub host: IpAddr,
}

/// An operation on a resource named literally (Kafka's `Action` on a LITERAL
/// `ResourcePattern`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Action<'a> {
    /// The operation.
    pub operation: AclOperation,
    /// The resource type.
    pub resource_type: ResourceType,
    /// The resource name.
    pub name: &'a str,
}

impl<'a> Action<'a> {
    /// `operation` on the resource `resource_type` named `name`.
    pub fn new(operation: AclOperation, resource_type: ResourceType, name: &'a str) -> Self {
        Action {
            operation,
            resource_type,
            name,
        }
    }
}

/// Kafka's `AuthorizationResult`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AuthorizationResult {
    /// ALLOWED.
    Allowed,
    /// DENIED.
    Denied,
}

/// The ACLs are not loaded yet and the principal is no super user (Kafka's
/// `AuthorizerNotReadyException`). Kafka's exception has no message (the
/// text here is its class name) and no error code of its own: a request
/// failing with it is answered `UNKNOWN_SERVER_ERROR`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("org.apache.kafka.common.errors.AuthorizerNotReadyException")]
pub struct AuthorizerNotReady;

impl AuthorizerNotReady {
    /// The error code Kafka answers a request that fails with it.
    pub const ERROR_CODE: ErrorCode = ErrorCode::UnknownServerError;
}

/// Why [`StandardAuthorizer::authorize_by_resource_type`] gave no answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ByResourceTypeError {
    /// See [`AuthorizerNotReady`].
    #[error(transparent)]
    NotReady(#[from] AuthorizerNotReady),
    /// ANY or UNKNOWN as resource type or operation (Kafka's
    /// `IllegalArgumentException`, with its message).
    #[error("{0}")]
    InvalidArgument(&'static str),
}

/// The authorizer's configuration (Kafka's `super.users` and
/// `allow.everyone.if.no.acl.found`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AuthorizerConfig {
    /// The super users, each `type:name` as configured (trimmed).
    pub super_users: BTreeSet<String>,
    /// Whether a resource no ACL names is open to everyone.
    pub allow_everyone_if_no_acl_found: bool,
}

/// Java's `String.trim()`: strips the characters up to U+0020.
fn java_trim(s: &str) -> &str {
    s.trim_matches(|c: char| c <= ' ')
}

impl AuthorizerConfig {
    /// The `super.users` configuration key.
    pub const SUPER_USERS_CONFIG: &'static str = "super.users";
    /// The `allow.everyone.if.no.acl.found` configuration key.
    pub const ALLOW_EVERYONE_IF_NO_ACL_IS_FOUND_CONFIG: &'static str =
        "allow.everyone.if.no.acl.found";

    /// Reads the two settings as `StandardAuthorizer.configure` does:
    /// `super.users` is split on `;`, each part trimmed, empty parts
    /// skipped, and each must parse as a principal (else Kafka's message);
    /// `allow.everyone.if.no.acl.found` is true only for `true` in any case
    /// (trimmed), and absent means false.
    pub fn from_kafka(
        super_users: Option<&str>,
        allow_everyone: Option<&str>,
    ) -> Result<Self, String> {
        let mut users = BTreeSet::new();
        for part in super_users.unwrap_or("").split(';') {
            let user = java_trim(part);
            if user.is_empty() {
                continue;
            }
            KafkaPrincipal::parse(user).map_err(|e| e.to_string())?;
            users.insert(user.to_owned());
        }
        Ok(AuthorizerConfig {
            super_users: users,
            allow_everyone_if_no_acl_found: allow_everyone
                .is_some_and(|v| java_trim(v).eq_ignore_ascii_case("true")),
        })
    }
}

/// Kafka's `StandardAuthorizer` over the image's ACLs (see the module docs).
#[derive(Debug, Clone, Default)]
pub struct StandardAuthorizer {
    config: AuthorizerConfig,
}

impl StandardAuthorizer {
    /// An authorizer with `config`.
    pub fn new(config: AuthorizerConfig) -> Self {
        StandardAuthorizer { config }
    }

    /// The configuration.
    pub fn config(&self) -> &AuthorizerConfig {
        &self.config
    }

    /// Whether `principal`'s `type:name` is one of the configured super
    /// users.
    pub fn is_super_user(&self, principal: &KafkaPrincipal) -> bool {
        self.config.super_users.iter().any(|u| principal.is_text(u))
    }

    /// Decides `action` for `who` against `acls` (Kafka's `authorize` of one
    /// action). `loaded`: whether the initial ACL load completed (the image
    /// is loaded).
    pub fn authorize(
        &self,
        acls: &AclIndex,
        loaded: bool,
        who: &RequestIdentity<'_>,
        action: &Action<'_>,
    ) -> Result<AuthorizationResult, AuthorizerNotReady> {
        if self.is_super_user(who.principal) {
            return Ok(AuthorizationResult::Allowed);
        }
        if !loaded {
            return Err(AuthorizerNotReady);
        }
        Ok(self.decide(acls, who.principal, client_address(who.host), action))
    }

    /// Decides each of `actions` (Kafka's `authorize` of a list): one result
    /// per action, in order; before the load, [`AuthorizerNotReady`] for the
    /// whole list unless the principal is a super user (or the list empty).
    pub fn authorize_all(
        &self,
        acls: &AclIndex,
        loaded: bool,
        who: &RequestIdentity<'_>,
        actions: &[Action<'_>],
    ) -> Result<Vec<AuthorizationResult>, AuthorizerNotReady> {
        if actions.is_empty() {
            return Ok(Vec::new());
        }
        if self.is_super_user(who.principal) {
            return Ok(vec![AuthorizationResult::Allowed; actions.len()]);
        }
        if !loaded {
            return Err(AuthorizerNotReady);
        }
        let client = client_address(who.host);
        Ok(actions
            .iter()
            .map(|action| self.decide(acls, who.principal, client, action))
            .collect())
    }

    /// The ACL decision for a loaded image and a principal who is no super
    /// user.
    fn decide(
        &self,
        acls: &AclIndex,
        principal: &KafkaPrincipal,
        client: IpAddr,
        action: &Action<'_>,
    ) -> AuthorizationResult {
        let finding = acls.check(
            principal,
            client,
            action.operation,
            action.resource_type,
            action.name,
        );
        if finding.deny {
            AuthorizationResult::Denied
        } else if finding.allow {
            AuthorizationResult::Allowed
        } else if finding.resource_has_acls || !self.config.allow_everyone_if_no_acl_found {
            AuthorizationResult::Denied
        } else {
            AuthorizationResult::Allowed
        }
    }

    /// Kafka's `Authorizer.authorizeByResourceType` (the interface default
    /// `StandardAuthorizer` keeps): whether `who` may do `operation` on at
    /// least one resource of `resource_type`. Allowed if the action on a
    /// resource named `hardcode` is (so super users and the default rule
    /// count); else, among the ACLs of the type for the principal (or the
    /// exact principal `User:*`) and the client's host whose operation is
    /// `operation` or ALL (no implied operations here): denied by a DENY on
    /// the literal `*`; allowed by an ALLOW on the literal `*`; else allowed
    /// by an ALLOW whose name no DENY covers (a literal DENY of the same
    /// name, or a prefixed DENY of a non-empty prefix of it).
    pub fn authorize_by_resource_type(
        &self,
        acls: &AclIndex,
        loaded: bool,
        who: &RequestIdentity<'_>,
        operation: AclOperation,
        resource_type: ResourceType,
    ) -> Result<AuthorizationResult, ByResourceTypeError> {
        check_by_resource_type_args(operation, resource_type)?;
        let hardcoded = Action::new(operation, resource_type, "hardcode");
        if self.authorize(acls, loaded, who, &hardcoded)? == AuthorizationResult::Allowed {
            return Ok(AuthorizationResult::Allowed);
        }
        let client = client_address(who.host);
        let principal = who.principal;
        let mut deny_literal: HashSet<&str> = HashSet::new();
        let mut deny_prefixed: HashSet<&str> = HashSet::new();
        let mut allowed: Vec<(PatternType, &str)> = Vec::new();
        let mut wildcard_allow = false;
        for rule in acls.rules_of_type(resource_type) {
            let everyone = rule.principal_type == "User" && rule.principal_name == "*";
            let own = rule.principal_type == principal.principal_type
                && rule.principal_name == principal.name;
            if !rule.host.matches(client)
                || !(own || everyone)
                || (rule.operation != operation && rule.operation != AclOperation::All)
            {
                continue;
            }
            match (rule.permission, rule.pattern_type) {
                (AclPermissionType::Deny, PatternType::Literal) => {
                    if rule.resource_name == WILDCARD_RESOURCE {
                        return Ok(AuthorizationResult::Denied);
                    }
                    deny_literal.insert(rule.resource_name);
                }
                (AclPermissionType::Deny, PatternType::Prefixed) => {
                    deny_prefixed.insert(rule.resource_name);
                }
                (AclPermissionType::Allow, PatternType::Literal)
                    if rule.resource_name == WILDCARD_RESOURCE =>
                {
                    wildcard_allow = true;
                }
                (
                    AclPermissionType::Allow,
                    pattern @ (PatternType::Literal | PatternType::Prefixed),
                ) => {
                    allowed.push((pattern, rule.resource_name));
                }
                _ => {}
            }
        }
        if wildcard_allow {
            return Ok(AuthorizationResult::Allowed);
        }
        let dominated = |name: &str| {
            name.char_indices()
                .map(|(i, c)| &name[..i + c.len_utf8()])
                .any(|prefix| deny_prefixed.contains(prefix))
        };
        let covered = |pattern: PatternType, name: &str| {
            (pattern == PatternType::Literal && deny_literal.contains(name)) || dominated(name)
        };
        let open = allowed
            .iter()
            .any(|(pattern, name)| !covered(*pattern, name));
        Ok(if open {
            AuthorizationResult::Allowed
        } else {
            AuthorizationResult::Denied
        })
    }
}

/// Kafka's `SecurityUtils.authorizeByResourceTypeCheckArgs`.
fn check_by_resource_type_args(
    operation: AclOperation,
    resource_type: ResourceType,
) -> Result<(), ByResourceTypeError> {
    let message = match (resource_type, operation) {
        (ResourceType::Any, _) => {
            "Must specify a non-filter resource type for authorizeByResourceType"
        }
        (ResourceType::Unknown, _) => "Unknown resource type",
        (_, AclOperation::Any) => {
            "Must specify a non-filter operation type for authorizeByResourceType"
        }
        (_, AclOperation::Unknown) => "Unknown operation type",
        _ => return Ok(()),
    };
    Err(ByResourceTypeError::InvalidArgument(message))
}

/// The operations that apply to a resource type (Kafka's
/// `AclEntry.supportedOperations`); none for ANY and UNKNOWN.
pub fn supported_operations(resource_type: ResourceType) -> &'static [AclOperation] {
    use AclOperation::*;
    match resource_type {
        ResourceType::Topic => &[
            Read,
            Write,
            Create,
            Describe,
            Delete,
            Alter,
            DescribeConfigs,
            AlterConfigs,
        ],
        ResourceType::Group => &[Read, Describe, Delete, DescribeConfigs, AlterConfigs],
        ResourceType::Cluster => &[
            Create,
            ClusterAction,
            DescribeConfigs,
            AlterConfigs,
            IdempotentWrite,
            Alter,
            Describe,
        ],
        ResourceType::TransactionalId => &[Describe, Write, TwoPhaseCommit],
        ResourceType::DelegationToken => &[Describe],
        ResourceType::User => &[CreateTokens, DescribeTokens],
        ResourceType::Any | ResourceType::Unknown => &[],
    }
}

/// The operations of `resource_type` `who` may perform on `name` (Kafka's
/// `AuthHelper.authorizedOperations`, which DescribeCluster uses for
/// `clusterAuthorizedOperations`): bit `1 << code` per allowed operation of
/// [`supported_operations`]. Without an authorizer, every supported
/// operation. Kafka's callers authorize the request first, so the
/// authorizer is ready for `who`; if it is not, no operation is reported.
pub fn authorized_operations(
    authorizer: Option<&StandardAuthorizer>,
    acls: &AclIndex,
    loaded: bool,
    who: &RequestIdentity<'_>,
    resource_type: ResourceType,
    name: &str,
) -> i32 {
    let supported = supported_operations(resource_type);
    let bit = |op: &AclOperation| 1i32 << op.code();
    let Some(authorizer) = authorizer else {
        return supported.iter().fold(0, |bits, op| bits | bit(op));
    };
    let actions: Vec<Action<'_>> = supported
        .iter()
        .map(|op| Action::new(*op, resource_type, name))
        .collect();
    match authorizer.authorize_all(acls, loaded, who, &actions) {
        Ok(results) => supported
            .iter()
            .zip(results)
            .filter(|(_, result)| *result == AuthorizationResult::Allowed)
            .fold(0, |bits, (op, _)| bits | bit(op)),
        Err(AuthorizerNotReady) => 0,
    }
}
