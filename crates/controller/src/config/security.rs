//! The keys that decide who may do what: the authorizer and its settings,
//! the principal builder, the early-start listeners, delegation tokens, and
//! the Java plugin keys kraft-rs refuses rather than ignores.
//!
//! The rule is fail-closed: a key that would change authorization,
//! authentication or request validation on a Kafka controller is either
//! served natively with Kafka's semantics or refused at start with an error
//! naming the key. kraft-rs cannot load Java classes, so a plugin class
//! other than the one it implements natively is refused.

use std::fmt;

use kraft_protocol::acl::KafkaPrincipal;
use kraft_protocol::text::Properties;

use super::settings::{invalid, parse_list, Bool, Long, Text};
use super::ConfigError;

/// The authorizer kraft-rs serves natively (Kafka's `StandardAuthorizer`).
pub const STANDARD_AUTHORIZER_CLASS: &str =
    "org.apache.kafka.metadata.authorizer.StandardAuthorizer";
/// Kafka's default principal builder, the only one kraft-rs serves.
pub const DEFAULT_PRINCIPAL_BUILDER_CLASS: &str =
    "org.apache.kafka.common.security.authenticator.DefaultKafkaPrincipalBuilder";

/// `authorizer.class.name`
pub const AUTHORIZER_CLASS_NAME: Text = Text {
    key: "authorizer.class.name",
    list: false,
    default: Some(""),
    required: false,
    doc: "Empty: no authorization (every request is allowed, as in Kafka). `org.apache.kafka.metadata.authorizer.StandardAuthorizer`: Kafka's ACL authorizer, served natively over the ACLs in the metadata log. Any other class is refused at start (kraft-rs cannot load Java plugins).",
};
/// `super.users`
pub const SUPER_USERS: Text = Text {
    key: "super.users",
    list: false,
    default: None,
    required: false,
    doc: "Principals allowed every operation, `;`-separated (e.g. `User:admin;User:ANONYMOUS`); each must be `type:name`. Used by the StandardAuthorizer.",
};
/// `allow.everyone.if.no.acl.found`
pub const ALLOW_EVERYONE_IF_NO_ACL_FOUND: Bool = Bool {
    key: "allow.everyone.if.no.acl.found",
    default: false,
    doc: "Whether the StandardAuthorizer allows an operation on a resource no ACL matches.",
};
/// `early.start.listeners`
pub const EARLY_START_LISTENERS: Text = Text {
    key: "early.start.listeners",
    list: true,
    default: None,
    required: false,
    doc: "Listeners that accept connections before the authorizer has loaded the committed ACLs; each must be in `listeners` or `controller.listener.names`. Default: the controller listeners. The others accept only once the metadata image is loaded.",
};
/// `principal.builder.class`
pub const PRINCIPAL_BUILDER_CLASS: Text = Text {
    key: "principal.builder.class",
    list: false,
    default: Some(DEFAULT_PRINCIPAL_BUILDER_CLASS),
    required: false,
    doc: "Only Kafka's `DefaultKafkaPrincipalBuilder` is served (a PLAINTEXT connection is `User:ANONYMOUS`); any other class is refused at start.",
};
/// `delegation.token.secret.key`
pub const DELEGATION_TOKEN_SECRET_KEY: Text = Text {
    key: "delegation.token.secret.key",
    list: false,
    default: None,
    required: false,
    doc: "The secret that signs delegation tokens; without it delegation tokens are disabled. Never logged.",
};
/// `delegation.token.max.lifetime.ms`
pub const DELEGATION_TOKEN_MAX_LIFETIME_MS: Long = Long {
    key: "delegation.token.max.lifetime.ms",
    default: 7 * 24 * 60 * 60 * 1000,
    min: Some(1),
    doc: "The longest a delegation token may live, renewals included.",
};
/// `delegation.token.expiry.time.ms`
pub const DELEGATION_TOKEN_EXPIRY_TIME_MS: Long = Long {
    key: "delegation.token.expiry.time.ms",
    default: 24 * 60 * 60 * 1000,
    min: Some(1),
    doc: "How long a delegation token lives without a renewal.",
};
/// `delegation.token.expiry.check.interval.ms`
pub const DELEGATION_TOKEN_EXPIRY_CHECK_INTERVAL_MS: Long = Long {
    key: "delegation.token.expiry.check.interval.ms",
    default: 60 * 60 * 1000,
    min: Some(1),
    doc: "How often the active controller removes expired delegation tokens.",
};

/// Java plugin keys that change validation or security on a Kafka
/// controller, with what they do. Set to a non-empty value (directly or in
/// a `listener.name.<listener>.` prefixed form), each is refused at start.
pub const REFUSED_PLUGIN_KEYS: &[(&str, &str)] = &[
    (
        "create.topic.policy.class.name",
        "a CreateTopicPolicy validates topic creation",
    ),
    (
        "alter.config.policy.class.name",
        "an AlterConfigPolicy validates configuration changes",
    ),
    (
        "client.quota.callback.class",
        "a ClientQuotaCallback decides the quotas that apply",
    ),
    (
        "sasl.server.callback.handler.class",
        "a SASL server callback handler authenticates clients",
    ),
    (
        "sasl.login.class",
        "a SASL login module authenticates this node",
    ),
    (
        "sasl.login.callback.handler.class",
        "a SASL login callback handler authenticates this node",
    ),
    (
        "sasl.client.callback.handler.class",
        "a SASL client callback handler authenticates this node",
    ),
    (
        "ssl.engine.factory.class",
        "an SslEngineFactory builds the TLS connections",
    ),
    (
        "security.providers",
        "security providers change the cryptography in use",
    ),
    (
        "config.providers",
        "config providers replace values of the configuration file, secrets among them",
    ),
];

/// A secret setting: its value never reaches logs or `Debug` output (Kafka
/// prints `[hidden]`).
#[derive(Clone, PartialEq, Eq)]
pub struct Password(String);

impl Password {
    /// A secret with value `secret`.
    pub fn new(secret: impl Into<String>) -> Self {
        Password(secret.into())
    }

    /// The secret.
    pub fn value(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Password {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[hidden]")
    }
}

/// The StandardAuthorizer's settings (`authorizer.class.name` names it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuthorizerSettings {
    /// `super.users`: each entry `type:name`, trimmed, in file order.
    pub super_users: Vec<String>,
    /// `allow.everyone.if.no.acl.found`
    pub allow_everyone_if_no_acl_found: bool,
}

/// The delegation token settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DelegationTokenSettings {
    /// `delegation.token.secret.key`; `None` disables delegation tokens.
    pub secret_key: Option<Password>,
    /// `delegation.token.max.lifetime.ms`
    pub max_lifetime_ms: i64,
    /// `delegation.token.expiry.time.ms`
    pub expiry_time_ms: i64,
    /// `delegation.token.expiry.check.interval.ms`
    pub expiry_check_interval_ms: i64,
}

/// Who may do what: the authorizer, early-start listeners and delegation
/// tokens.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SecurityConfig {
    /// The StandardAuthorizer, or `None` when `authorizer.class.name` is
    /// empty (no authorization).
    pub authorizer: Option<AuthorizerSettings>,
    /// `early.start.listeners`, normalised to upper case; `None` means the
    /// default (the controller listeners).
    pub early_start_listeners: Option<Vec<String>>,
    /// Delegation tokens.
    pub delegation_tokens: DelegationTokenSettings,
}

impl Default for DelegationTokenSettings {
    /// Kafka's defaults: no secret (tokens disabled), 7 days, 1 day, 1 hour.
    fn default() -> Self {
        DelegationTokenSettings {
            secret_key: None,
            max_lifetime_ms: DELEGATION_TOKEN_MAX_LIFETIME_MS.default,
            expiry_time_ms: DELEGATION_TOKEN_EXPIRY_TIME_MS.default,
            expiry_check_interval_ms: DELEGATION_TOKEN_EXPIRY_CHECK_INTERVAL_MS.default,
        }
    }
}

/// Kafka's `SecurityUtils.parseKafkaPrincipal` check of one entry.
fn check_principal(key: &str, value: &str, principal: &str) -> Result<(), ConfigError> {
    KafkaPrincipal::parse(principal)
        .map(drop)
        .map_err(|e| invalid(key, value, &e.to_string()))
}

/// The refused plugin key `key` names, if any: the key itself or its
/// `listener.name.<listener>.[<mechanism>.]` prefixed form.
fn refused_plugin(key: &str) -> Option<(&'static str, &'static str)> {
    REFUSED_PLUGIN_KEYS.iter().copied().find(|(k, _)| {
        key == *k || (key.starts_with("listener.name.") && key.ends_with(&format!(".{k}")))
    })
}

/// A plugin setting kraft-rs serves natively although its key is in
/// [`REFUSED_PLUGIN_KEYS`]: Kafka's JWT validator as a listener's
/// OAUTHBEARER server callback handler (see `config::transport`).
fn served_natively(key: &str, value: &str) -> bool {
    key.starts_with("listener.name.")
        && key.ends_with(".oauthbearer.sasl.server.callback.handler.class")
        && value.trim() == super::transport::OAUTHBEARER_VALIDATOR_CALLBACK_HANDLER
}

impl SecurityConfig {
    /// Reads and checks the security keys. `listener_names` are the names in
    /// `listeners` and `controller.listener.names` (for
    /// `early.start.listeners`).
    pub fn parse(props: &Properties, listener_names: &[String]) -> Result<Self, ConfigError> {
        for (key, value) in props.iter() {
            if let Some((_, what)) = refused_plugin(key) {
                if !value.trim().is_empty() && !served_natively(key, value) {
                    return Err(invalid(
                        key,
                        value.trim(),
                        &format!(
                            "{what}; kraft-rs cannot load Java plugins, and a controller that \
                             ignored it would not enforce what the cluster expects. Remove the key \
                             to run on kraft-rs"
                        ),
                    ));
                }
            }
        }
        let builder = PRINCIPAL_BUILDER_CLASS
            .read(props)?
            .map(str::trim)
            .unwrap_or_default();
        if !builder.is_empty() && builder != DEFAULT_PRINCIPAL_BUILDER_CLASS {
            return Err(invalid(
                PRINCIPAL_BUILDER_CLASS.key,
                builder,
                &format!(
                    "kraft-rs serves only Kafka's default principal builder \
                     ({DEFAULT_PRINCIPAL_BUILDER_CLASS}); it cannot load Java plugins"
                ),
            ));
        }
        let class = AUTHORIZER_CLASS_NAME
            .read(props)?
            .map(str::trim)
            .unwrap_or_default();
        let authorizer = match class {
            "" => None,
            STANDARD_AUTHORIZER_CLASS => {
                let raw = SUPER_USERS.read(props)?.unwrap_or_default();
                let mut super_users = Vec::new();
                for entry in raw.split(';').map(str::trim).filter(|e| !e.is_empty()) {
                    check_principal(SUPER_USERS.key, raw, entry)?;
                    super_users.push(entry.to_string());
                }
                Some(AuthorizerSettings {
                    super_users,
                    allow_everyone_if_no_acl_found: ALLOW_EVERYONE_IF_NO_ACL_FOUND.read(props)?,
                })
            }
            other => {
                return Err(invalid(
                    AUTHORIZER_CLASS_NAME.key,
                    other,
                    &format!(
                        "kraft-rs cannot load Java plugins; it serves only \
                         {STANDARD_AUTHORIZER_CLASS} (or no authorizer, when empty)"
                    ),
                ))
            }
        };
        let early_start_listeners = match EARLY_START_LISTENERS.read(props)? {
            None => None,
            Some(raw) => {
                let mut names = Vec::new();
                for name in parse_list(raw) {
                    let name = name.to_ascii_uppercase();
                    if !listener_names.contains(&name) {
                        return Err(ConfigError::Inconsistent(format!(
                            "{} contains listener {name}, but this is not contained in listeners \
                             or controller.listener.names",
                            EARLY_START_LISTENERS.key
                        )));
                    }
                    names.push(name);
                }
                Some(names)
            }
        };
        let secret_key = DELEGATION_TOKEN_SECRET_KEY
            .read(props)?
            .filter(|s| !s.is_empty())
            .map(|s| Password(s.to_string()));
        Ok(SecurityConfig {
            authorizer,
            early_start_listeners,
            delegation_tokens: DelegationTokenSettings {
                secret_key,
                max_lifetime_ms: DELEGATION_TOKEN_MAX_LIFETIME_MS.read(props)?,
                expiry_time_ms: DELEGATION_TOKEN_EXPIRY_TIME_MS.read(props)?,
                expiry_check_interval_ms: DELEGATION_TOKEN_EXPIRY_CHECK_INTERVAL_MS.read(props)?,
            },
        })
    }

    /// Whether `listener` accepts connections before the image is loaded.
    pub fn is_early_start(&self, listener: &str, controller_listener_names: &[String]) -> bool {
        match &self.early_start_listeners {
            None => controller_listener_names.iter().any(|n| n == listener),
            Some(names) => names.iter().any(|n| n == listener),
        }
    }
}

/// Warnings for security keys that have no effect as configured (e.g.
/// `super.users` without an authorizer).
pub fn ineffective_keys(props: &Properties, config: &SecurityConfig) -> Vec<(String, String)> {
    let mut out = Vec::new();
    if config.authorizer.is_none() {
        for key in [SUPER_USERS.key, ALLOW_EVERYONE_IF_NO_ACL_FOUND.key] {
            if props.contains_key(key) {
                out.push((
                    key.to_string(),
                    format!(
                        "Ignoring configuration {key}: authorizer.class.name is empty, so no \
                         request is authorized."
                    ),
                ));
            }
        }
    }
    out
}

/// The security part of `docs/configuration.md`: every key that changes who
/// may do what on a Kafka controller and what kraft-rs does with it.
pub fn reference_markdown() -> String {
    let mut out = String::from(
        "\n## Keys that decide who may do what\n\n\
         Nothing that changes authorization, authentication or request validation is \
         silently ignored: each such key is served with Kafka's semantics or refused at start \
         with an error naming it.\n\n\
         | key | what kraft-rs does |\n| --- | --- |\n",
    );
    let served = [
        (AUTHORIZER_CLASS_NAME.key, "served: empty (no authorization) or `org.apache.kafka.metadata.authorizer.StandardAuthorizer` (native); any other class refused"),
        (SUPER_USERS.key, "served by the StandardAuthorizer; a malformed principal refused; a warning when no authorizer is set"),
        (ALLOW_EVERYONE_IF_NO_ACL_FOUND.key, "served by the StandardAuthorizer; a warning when no authorizer is set"),
        (EARLY_START_LISTENERS.key, "served: the other listeners accept connections once the image (and so the committed ACLs) is loaded"),
        (PRINCIPAL_BUILDER_CLASS.key, "served: Kafka's default builder only; any other class refused"),
        (DELEGATION_TOKEN_SECRET_KEY.key, "served (never logged): the HMAC key of CreateDelegationToken, Renew and Expire; delegation tokens are disabled (DELEGATION_TOKEN_AUTH_DISABLED) without it"),
        ("`listeners` with SSL, SASL_PLAINTEXT or SASL_SSL", "served: TLS and SASL as the next section says; the principal is the SASL user, else the mapped subject of the client certificate, else `User:ANONYMOUS`"),
    ];
    for (key, what) in served {
        let key = if key.starts_with('`') {
            key.to_string()
        } else {
            format!("`{key}`")
        };
        out.push_str(&format!("| {key} | {what} |\n"));
    }
    for (key, what) in REFUSED_PLUGIN_KEYS {
        let except = if *key == "sasl.server.callback.handler.class" {
            format!(
                "; except `listener.name.<listener>.oauthbearer.{key}={}`, Kafka's JWT validator, served natively (see TLS and SASL)",
                super::transport::OAUTHBEARER_VALIDATOR_CALLBACK_HANDLER
            )
        } else {
            String::new()
        };
        out.push_str(&format!(
            "| `{key}` (also `listener.name.<listener>.` prefixed) | refused when set: {what}, and kraft-rs cannot load Java plugins{except} |\n"
        ));
    }
    out
}
