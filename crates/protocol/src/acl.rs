//! Kafka's ACL vocabulary: the enums an ACL is made of and the principal it
//! names.
//!
//! * [`AclOperation`], [`AclPermissionType`], [`ResourceType`] and
//!   [`PatternType`] carry Kafka's wire codes and names. A code Kafka does
//!   not know maps to `UNKNOWN` ([`AclOperation::from_code`] and friends),
//!   as Kafka's `fromCode` does; a name Kafka does not know maps to
//!   `UNKNOWN` too ([`AclOperation::from_name`]).
//! * [`KafkaPrincipal`]: `type:name`, parsed with the rules of Kafka's
//!   `SecurityUtils.parseKafkaPrincipal`.
//!
//! The derived ordering of each enum is Kafka's declaration order, which is
//! also the order of the codes.

use std::borrow::Cow;
use std::fmt;
use std::str::FromStr;

/// Defines one of Kafka's ACL enums: variants with their codes and names,
/// `code`, `from_code` (unknown codes to `Unknown`), `name`, `Display` and
/// `VALUES`.
macro_rules! kafka_acl_enum {
    (
        $(#[$doc:meta])*
        $name:ident {
            $($(#[$vdoc:meta])* $variant:ident = $code:literal, $text:literal;)+
        }
    ) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[repr(i8)]
        pub enum $name {
            $($(#[$vdoc])* $variant = $code,)+
        }

        impl $name {
            /// Every value, in Kafka's declaration order (which is code order).
            pub const VALUES: &'static [$name] = &[$($name::$variant,)+];

            /// The wire code.
            pub const fn code(self) -> i8 {
                self as i8
            }

            /// The value with wire code `code`; a code Kafka does not know is
            /// `UNKNOWN`, as Kafka's `fromCode` answers.
            pub const fn from_code(code: i8) -> Self {
                match code {
                    $($code => $name::$variant,)+
                    _ => $name::Unknown,
                }
            }

            /// Kafka's name for the value (its Java `toString`), e.g. `UNKNOWN`.
            pub const fn name(self) -> &'static str {
                match self {
                    $($name::$variant => $text,)+
                }
            }

            /// Whether this is `UNKNOWN` (Kafka's `isUnknown`).
            pub const fn is_unknown(self) -> bool {
                matches!(self, $name::Unknown)
            }

            /// The value named exactly `name`, if any.
            fn from_exact_name(name: &str) -> Option<Self> {
                match name {
                    $($text => Some($name::$variant),)+
                    _ => None,
                }
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.name())
            }
        }
    };
}

kafka_acl_enum! {
    /// An operation an ACL allows or denies (Kafka's `AclOperation`).
    AclOperation {
        /// A code this build does not know.
        Unknown = 0, "UNKNOWN";
        /// In a filter: any operation.
        Any = 1, "ANY";
        /// Every operation.
        All = 2, "ALL";
        /// READ.
        Read = 3, "READ";
        /// WRITE.
        Write = 4, "WRITE";
        /// CREATE.
        Create = 5, "CREATE";
        /// DELETE.
        Delete = 6, "DELETE";
        /// ALTER.
        Alter = 7, "ALTER";
        /// DESCRIBE.
        Describe = 8, "DESCRIBE";
        /// CLUSTER_ACTION.
        ClusterAction = 9, "CLUSTER_ACTION";
        /// DESCRIBE_CONFIGS.
        DescribeConfigs = 10, "DESCRIBE_CONFIGS";
        /// ALTER_CONFIGS.
        AlterConfigs = 11, "ALTER_CONFIGS";
        /// IDEMPOTENT_WRITE.
        IdempotentWrite = 12, "IDEMPOTENT_WRITE";
        /// CREATE_TOKENS.
        CreateTokens = 13, "CREATE_TOKENS";
        /// DESCRIBE_TOKENS.
        DescribeTokens = 14, "DESCRIBE_TOKENS";
        /// TWO_PHASE_COMMIT.
        TwoPhaseCommit = 15, "TWO_PHASE_COMMIT";
    }
}

kafka_acl_enum! {
    /// Whether an ACL allows or denies (Kafka's `AclPermissionType`).
    AclPermissionType {
        /// A code this build does not know.
        Unknown = 0, "UNKNOWN";
        /// In a filter: either permission.
        Any = 1, "ANY";
        /// Denies the operation.
        Deny = 2, "DENY";
        /// Allows the operation.
        Allow = 3, "ALLOW";
    }
}

kafka_acl_enum! {
    /// The kind of resource an ACL applies to (Kafka's `ResourceType`).
    ResourceType {
        /// A code this build does not know.
        Unknown = 0, "UNKNOWN";
        /// In a filter: any resource type.
        Any = 1, "ANY";
        /// A topic.
        Topic = 2, "TOPIC";
        /// A consumer (or share, streams) group.
        Group = 3, "GROUP";
        /// The cluster (its one name is `kafka-cluster`).
        Cluster = 4, "CLUSTER";
        /// A transactional id.
        TransactionalId = 5, "TRANSACTIONAL_ID";
        /// A delegation token.
        DelegationToken = 6, "DELEGATION_TOKEN";
        /// A user (for delegation tokens created on its behalf).
        User = 7, "USER";
    }
}

kafka_acl_enum! {
    /// How an ACL's resource name matches resource names (Kafka's
    /// `PatternType`).
    PatternType {
        /// A code this build does not know.
        Unknown = 0, "UNKNOWN";
        /// In a filter: any pattern type, names compared exactly.
        Any = 1, "ANY";
        /// In a filter: the patterns that would match the named resource.
        Match = 2, "MATCH";
        /// The name is the resource's name (`*` matches every name).
        Literal = 3, "LITERAL";
        /// The name is a prefix of the resource's name.
        Prefixed = 4, "PREFIXED";
    }
}

/// Kafka's `fromString` for the enums whose lookup ignores case: the name
/// upper-cased (Java's `Locale.ROOT` rules; Rust's are Unicode's too).
fn from_name_ignoring_case<T>(name: &str, exact: fn(&str) -> Option<T>, unknown: T) -> T {
    exact(name)
        .or_else(|| exact(&name.to_uppercase()))
        .unwrap_or(unknown)
}

impl AclOperation {
    /// Kafka's `AclOperation.fromString`: the operation named `name`,
    /// ignoring case; `UNKNOWN` for any other name.
    pub fn from_name(name: &str) -> Self {
        from_name_ignoring_case(name, Self::from_exact_name, AclOperation::Unknown)
    }
}

impl AclPermissionType {
    /// Kafka's `AclPermissionType.fromString`: the permission type named
    /// `name`, ignoring case; `UNKNOWN` for any other name.
    pub fn from_name(name: &str) -> Self {
        from_name_ignoring_case(name, Self::from_exact_name, AclPermissionType::Unknown)
    }
}

impl ResourceType {
    /// Kafka's `ResourceType.fromString`: the resource type named `name`,
    /// ignoring case; `UNKNOWN` for any other name.
    pub fn from_name(name: &str) -> Self {
        from_name_ignoring_case(name, Self::from_exact_name, ResourceType::Unknown)
    }
}

impl PatternType {
    /// Kafka's `PatternType.fromString`: the pattern type named exactly
    /// `name` (Kafka's lookup here is case-sensitive); `UNKNOWN` for any
    /// other name.
    pub fn from_name(name: &str) -> Self {
        Self::from_exact_name(name).unwrap_or(PatternType::Unknown)
    }

    /// Kafka's `isSpecific`: neither `UNKNOWN`, `ANY` nor `MATCH`.
    pub const fn is_specific(self) -> bool {
        !matches!(
            self,
            PatternType::Unknown | PatternType::Any | PatternType::Match
        )
    }
}

/// A principal, `type:name` (Kafka's `KafkaPrincipal`, without its
/// token-authenticated flag, which takes no part in its identity).
///
/// The fields are `Cow`s so that [`KafkaPrincipal::ANONYMOUS`] and
/// [`KafkaPrincipal::WILDCARD`] can be constants.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct KafkaPrincipal {
    /// The principal type, e.g. `User`.
    pub principal_type: Cow<'static, str>,
    /// The principal name.
    pub name: Cow<'static, str>,
}

/// The principal string was not `principalType:principalName`
/// (Kafka's `IllegalArgumentException` from `parseKafkaPrincipal`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("expected a string in format principalType:principalName but got {input}")]
pub struct PrincipalParseError {
    /// The string that did not parse.
    pub input: String,
}

impl KafkaPrincipal {
    /// The type of user principals (Kafka's `KafkaPrincipal.USER_TYPE`).
    pub const USER_TYPE: &'static str = "User";

    /// `User:ANONYMOUS`, the principal of unauthenticated connections.
    pub const ANONYMOUS: KafkaPrincipal = KafkaPrincipal {
        principal_type: Cow::Borrowed("User"),
        name: Cow::Borrowed("ANONYMOUS"),
    };

    /// `User:*`: in an ACL, every principal.
    pub const WILDCARD: KafkaPrincipal = KafkaPrincipal {
        principal_type: Cow::Borrowed("User"),
        name: Cow::Borrowed("*"),
    };

    /// The principal `principal_type:name`.
    pub fn new(
        principal_type: impl Into<Cow<'static, str>>,
        name: impl Into<Cow<'static, str>>,
    ) -> Self {
        KafkaPrincipal {
            principal_type: principal_type.into(),
            name: name.into(),
        }
    }

    /// The user principal `User:name`.
    pub fn user(name: impl Into<Cow<'static, str>>) -> Self {
        KafkaPrincipal::new(Self::USER_TYPE, name)
    }

    /// Kafka's `SecurityUtils.parseKafkaPrincipal`: the type is what comes
    /// before the first `:`, the name everything after it (which may hold
    /// more colons, or be empty). An empty string or one without a colon is
    /// an error.
    pub fn parse(text: &str) -> Result<Self, PrincipalParseError> {
        match text.split_once(':') {
            Some((principal_type, name)) => Ok(KafkaPrincipal::new(
                principal_type.to_owned(),
                name.to_owned(),
            )),
            None => Err(PrincipalParseError {
                input: text.to_owned(),
            }),
        }
    }

    /// Whether `text` is this principal's `type:name` string, without
    /// building that string.
    pub fn is_text(&self, text: &str) -> bool {
        text.strip_prefix(&*self.principal_type)
            .and_then(|rest| rest.strip_prefix(':'))
            .is_some_and(|name| name == self.name)
    }
}

impl FromStr for KafkaPrincipal {
    type Err = PrincipalParseError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        KafkaPrincipal::parse(s)
    }
}

impl fmt::Display for KafkaPrincipal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.principal_type, self.name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Kafka's AclOperationTest.INFOS: value, code, lower-case name, unknown.
    const OPERATIONS: &[(AclOperation, i8, &str, bool)] = &[
        (AclOperation::Unknown, 0, "unknown", true),
        (AclOperation::Any, 1, "any", false),
        (AclOperation::All, 2, "all", false),
        (AclOperation::Read, 3, "read", false),
        (AclOperation::Write, 4, "write", false),
        (AclOperation::Create, 5, "create", false),
        (AclOperation::Delete, 6, "delete", false),
        (AclOperation::Alter, 7, "alter", false),
        (AclOperation::Describe, 8, "describe", false),
        (AclOperation::ClusterAction, 9, "cluster_action", false),
        (AclOperation::DescribeConfigs, 10, "describe_configs", false),
        (AclOperation::AlterConfigs, 11, "alter_configs", false),
        (AclOperation::IdempotentWrite, 12, "idempotent_write", false),
        (AclOperation::CreateTokens, 13, "create_tokens", false),
        (AclOperation::DescribeTokens, 14, "describe_tokens", false),
        (AclOperation::TwoPhaseCommit, 15, "two_phase_commit", false),
    ];

    /// Kafka's AclOperationTest: isUnknown, code, fromCode (120 is
    /// UNKNOWN), fromString (lower case; "something" is UNKNOWN) and the
    /// exhaustive declaration order.
    #[test]
    fn acl_operation_matches_kafka() {
        assert_eq!(AclOperation::VALUES.len(), OPERATIONS.len());
        for (i, &(op, code, name, unknown)) in OPERATIONS.iter().enumerate() {
            assert_eq!(AclOperation::VALUES[i], op);
            assert_eq!(op.is_unknown(), unknown, "{op}");
            assert_eq!(op.code(), code, "{op}");
            assert_eq!(AclOperation::from_code(code), op);
            assert_eq!(AclOperation::from_name(name), op, "{name}");
            assert_eq!(op.to_string(), name.to_uppercase());
        }
        assert_eq!(AclOperation::from_code(120), AclOperation::Unknown);
        assert_eq!(AclOperation::from_code(-1), AclOperation::Unknown);
        assert_eq!(AclOperation::from_name("something"), AclOperation::Unknown);
        assert_eq!(
            AclOperation::from_name("Cluster_Action"),
            AclOperation::ClusterAction
        );
    }

    /// Kafka's AclPermissionTypeTest.
    #[test]
    fn acl_permission_type_matches_kafka() {
        let infos = [
            (AclPermissionType::Unknown, 0, "unknown", true),
            (AclPermissionType::Any, 1, "any", false),
            (AclPermissionType::Deny, 2, "deny", false),
            (AclPermissionType::Allow, 3, "allow", false),
        ];
        assert_eq!(AclPermissionType::VALUES.len(), infos.len());
        for (i, &(ty, code, name, unknown)) in infos.iter().enumerate() {
            assert_eq!(AclPermissionType::VALUES[i], ty);
            assert_eq!(ty.is_unknown(), unknown);
            assert_eq!(ty.code(), code);
            assert_eq!(AclPermissionType::from_code(code), ty);
            assert_eq!(AclPermissionType::from_name(name), ty);
            assert_eq!(ty.to_string(), name.to_uppercase());
        }
        assert_eq!(
            AclPermissionType::from_code(120),
            AclPermissionType::Unknown
        );
        assert_eq!(
            AclPermissionType::from_name("something"),
            AclPermissionType::Unknown
        );
    }

    /// Kafka's ResourceTypeTest.
    #[test]
    fn resource_type_matches_kafka() {
        let infos = [
            (ResourceType::Unknown, 0, "unknown", true),
            (ResourceType::Any, 1, "any", false),
            (ResourceType::Topic, 2, "topic", false),
            (ResourceType::Group, 3, "group", false),
            (ResourceType::Cluster, 4, "cluster", false),
            (ResourceType::TransactionalId, 5, "transactional_id", false),
            (ResourceType::DelegationToken, 6, "delegation_token", false),
            (ResourceType::User, 7, "user", false),
        ];
        assert_eq!(ResourceType::VALUES.len(), infos.len());
        for (i, &(ty, code, name, unknown)) in infos.iter().enumerate() {
            assert_eq!(ResourceType::VALUES[i], ty);
            assert_eq!(ty.is_unknown(), unknown);
            assert_eq!(ty.code(), code);
            assert_eq!(ResourceType::from_code(code), ty);
            assert_eq!(ResourceType::from_name(name), ty);
            assert_eq!(ty.to_string(), name.to_uppercase());
        }
        assert_eq!(ResourceType::from_code(120), ResourceType::Unknown);
        assert_eq!(ResourceType::from_name("something"), ResourceType::Unknown);
    }

    /// Kafka's PatternType: codes 0..4, `fromCode` of an unknown code is
    /// UNKNOWN, `fromString` looks the exact (upper-case) name up, and
    /// `isSpecific` is false for UNKNOWN, ANY and MATCH.
    #[test]
    fn pattern_type_matches_kafka() {
        let infos = [
            (PatternType::Unknown, 0, "UNKNOWN", false),
            (PatternType::Any, 1, "ANY", false),
            (PatternType::Match, 2, "MATCH", false),
            (PatternType::Literal, 3, "LITERAL", true),
            (PatternType::Prefixed, 4, "PREFIXED", true),
        ];
        assert_eq!(PatternType::VALUES.len(), infos.len());
        for (i, &(ty, code, name, specific)) in infos.iter().enumerate() {
            assert_eq!(PatternType::VALUES[i], ty);
            assert_eq!(ty.code(), code);
            assert_eq!(PatternType::from_code(code), ty);
            assert_eq!(PatternType::from_name(name), ty);
            assert_eq!(ty.to_string(), name);
            assert_eq!(ty.is_specific(), specific);
        }
        assert_eq!(PatternType::from_code(5), PatternType::Unknown);
        assert_eq!(PatternType::from_name("literal"), PatternType::Unknown);
        assert!(PatternType::Unknown.is_unknown());
    }

    /// Kafka's KafkaPrincipalTest (equality) and SecurityUtilsTest
    /// (the name may hold the separator; a non-User type parses).
    #[test]
    fn principals_parse_like_kafka() {
        assert_eq!(
            KafkaPrincipal::user("KafkaUser"),
            KafkaPrincipal::new("User", "KafkaUser".to_string())
        );
        let p = KafkaPrincipal::parse("User:name:with:separator:in:it").expect("parse");
        assert_eq!(p.principal_type, "User");
        assert_eq!(p.name, "name:with:separator:in:it");
        let p = KafkaPrincipal::parse("Group:foo").expect("parse");
        assert_eq!((&*p.principal_type, &*p.name), ("Group", "foo"));
        assert_eq!(p.to_string(), "Group:foo");
        // Java's split(":", 2) keeps empty parts.
        let p = KafkaPrincipal::parse(":alice").expect("parse");
        assert_eq!((&*p.principal_type, &*p.name), ("", "alice"));
        let p = KafkaPrincipal::parse("User:").expect("parse");
        assert_eq!((&*p.principal_type, &*p.name), ("User", ""));
    }

    /// The message of StandardAuthorizerTest.testGetConfiguredSuperUsers
    /// ("... but got bob"); the empty string fails the same way.
    #[test]
    fn principal_parse_errors_are_kafkas() {
        assert_eq!(
            KafkaPrincipal::parse("bob").map_err(|e| e.to_string()),
            Err("expected a string in format principalType:principalName but got bob".into())
        );
        assert_eq!(
            "".parse::<KafkaPrincipal>().map_err(|e| e.to_string()),
            Err("expected a string in format principalType:principalName but got ".into())
        );
    }

    #[test]
    fn constants_and_text_comparison() {
        assert_eq!(KafkaPrincipal::ANONYMOUS.to_string(), "User:ANONYMOUS");
        assert_eq!(KafkaPrincipal::WILDCARD.to_string(), "User:*");
        assert!(KafkaPrincipal::ANONYMOUS.is_text("User:ANONYMOUS"));
        assert!(!KafkaPrincipal::ANONYMOUS.is_text("User:ANONYMOUSx"));
        assert!(!KafkaPrincipal::ANONYMOUS.is_text("UserANONYMOUS"));
        assert!(!KafkaPrincipal::ANONYMOUS.is_text("User"));
        let odd = KafkaPrincipal::new("a:b", "c");
        assert!(odd.is_text("a:b:c"));
    }
}
