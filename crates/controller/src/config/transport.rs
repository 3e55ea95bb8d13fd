//! TLS and SASL of the controller listeners and of the controller's own
//! connections (raft peers, the controller registration), from Kafka's keys.
//!
//! Server side, for each controller listener mapped to SSL or SASL_SSL:
//! the `ssl.*` keys, each overridden by its `listener.name.<listener>.`
//! prefixed form; for SASL_PLAINTEXT or SASL_SSL: `sasl.enabled.mechanisms`
//! (same override) and, for each enabled mechanism, the JAAS entry
//! `listener.name.<listener>.<mechanism>.sasl.jaas.config` (lower case
//! listener and mechanism), as Kafka's `JaasContext.loadServerContext` reads
//! it. kraft-rs reads no JAAS file: without the key the start is refused.
//!
//! Client side, the controller's outgoing connections use the first
//! controller listener's security protocol, its `ssl.*` settings and, with
//! SASL, `sasl.mechanism.controller.protocol` with the `username` and
//! `password` of that mechanism's JAAS entry on the same listener (Kafka's
//! `ChannelBuilders.clientChannelBuilder` with the SERVER JAAS context).
//!
//! OAUTHBEARER is served with Kafka's unsecured validator (no
//! `listener.name.<listener>.oauthbearer.sasl.server.callback.handler.class`;
//! the JAAS entry's `unsecuredValidator*` options) or with Kafka's JWT
//! validator (`OAuthBearerValidatorCallbackHandler`; the
//! `sasl.oauthbearer.*` keys, listener-prefixed or not), see
//! [`kraft_security::sasl::jwks`]. The controller's own connections do not
//! log in with OAUTHBEARER.
//!
//! GSSAPI (Kafka's default mechanism), other server callback handlers and
//! OAUTHBEARER for `sasl.mechanism.controller.protocol` are refused at start
//! with a message saying so: nothing is silently dropped.

use std::collections::BTreeMap;
use std::fmt;

use kraft_protocol::text::Properties;
use kraft_security::jaas::{self, JaasEntry};
use kraft_security::sasl::jwks::{self, JwtValidatorConfig};
use kraft_security::sasl::oauthbearer::UnsecuredValidatorOptions;
use kraft_security::sasl::Mechanism;
use kraft_security::tls::{SslSettings, SSL_KEYS};
use kraft_security::Secret;

use super::listeners::{ListenerEndpoint, SecurityProtocol};
use super::ConfigError;

/// `sasl.enabled.mechanisms`
pub const SASL_ENABLED_MECHANISMS: &str = "sasl.enabled.mechanisms";
/// `sasl.mechanism.controller.protocol`
pub const SASL_MECHANISM_CONTROLLER_PROTOCOL: &str = "sasl.mechanism.controller.protocol";
/// `connections.max.reauth.ms`
pub const CONNECTIONS_MAX_REAUTH_MS: &str = "connections.max.reauth.ms";
/// `sasl.server.max.receive.size`
pub const SASL_SERVER_MAX_RECEIVE_SIZE: &str = "sasl.server.max.receive.size";
/// `sasl.jaas.config` (always read with a listener and mechanism prefix).
pub const SASL_JAAS_CONFIG: &str = "sasl.jaas.config";
/// `sasl.server.callback.handler.class` (read with a listener and
/// mechanism prefix).
pub const SASL_SERVER_CALLBACK_HANDLER_CLASS: &str = "sasl.server.callback.handler.class";
/// Kafka's OAUTHBEARER server callback handler that validates signed JWTs.
pub const OAUTHBEARER_VALIDATOR_CALLBACK_HANDLER: &str =
    "org.apache.kafka.common.security.oauthbearer.OAuthBearerValidatorCallbackHandler";

/// Kafka's default of `sasl.enabled.mechanisms` and of
/// `sasl.mechanism.controller.protocol`.
const DEFAULT_MECHANISM: &str = "GSSAPI";
/// Kafka's default `sasl.server.max.receive.size`.
const DEFAULT_MAX_RECEIVE_SIZE: i32 = 524_288;

/// The login module each served mechanism's JAAS entry must name.
fn login_module(mechanism: Mechanism) -> &'static str {
    match mechanism {
        Mechanism::Plain => "org.apache.kafka.common.security.plain.PlainLoginModule",
        Mechanism::ScramSha256 | Mechanism::ScramSha512 => {
            "org.apache.kafka.common.security.scram.ScramLoginModule"
        }
        Mechanism::OAuthBearer => {
            "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule"
        }
        Mechanism::Gssapi => "com.sun.security.auth.module.Krb5LoginModule",
    }
}

/// How a listener checks OAUTHBEARER tokens.
#[derive(Clone, Debug)]
pub enum OAuthBearerSettings {
    /// Kafka's unsecured validator with the JAAS entry's options.
    Unsecured(UnsecuredValidatorOptions),
    /// Kafka's JWT validator; `jaas` is the listener's OAUTHBEARER entry
    /// (its `ssl.*` options secure an `https:` JWKS URL).
    Jwt {
        /// The `sasl.oauthbearer.*` settings.
        config: JwtValidatorConfig,
        /// The JAAS entry.
        jaas: JaasEntry,
    },
}

/// The SASL side of one listener.
#[derive(Clone, Debug)]
pub struct ListenerSasl {
    /// `sasl.enabled.mechanisms`, in the configured order (Kafka's names).
    pub mechanisms: Vec<Mechanism>,
    /// PLAIN users: the `user_<name>` options of the PLAIN JAAS entry.
    pub plain_users: BTreeMap<String, Secret>,
    /// `connections.max.reauth.ms` per mechanism (0: sessions never expire).
    pub max_reauth_ms: BTreeMap<&'static str, i64>,
    /// `sasl.server.max.receive.size`: the largest frame before
    /// authentication completes.
    pub max_receive_size: usize,
    /// The token validation of OAUTHBEARER, when it is enabled.
    pub oauthbearer: Option<OAuthBearerSettings>,
}

/// The security of one controller listener.
#[derive(Clone, Debug)]
pub struct ListenerSecurity {
    /// The listener name (upper case).
    pub name: String,
    /// Its protocol.
    pub protocol: SecurityProtocol,
    /// TLS settings (SSL and SASL_SSL).
    pub ssl: Option<SslSettings>,
    /// SASL settings (SASL_PLAINTEXT and SASL_SSL).
    pub sasl: Option<ListenerSasl>,
}

/// How this controller connects to other controllers.
#[derive(Clone, Debug)]
pub struct ClientSecurity {
    /// The first controller listener's protocol.
    pub protocol: SecurityProtocol,
    /// Its TLS settings (trust store; key store for mutual TLS).
    pub ssl: Option<SslSettings>,
    /// `sasl.mechanism.controller.protocol` and the JAAS entry giving this
    /// node's credentials.
    pub sasl: Option<(Mechanism, JaasEntry)>,
}

impl ClientSecurity {
    /// Plain TCP, no authentication.
    pub fn plaintext() -> ClientSecurity {
        ClientSecurity {
            protocol: SecurityProtocol::Plaintext,
            ssl: None,
            sasl: None,
        }
    }
}

/// TLS and SASL of every controller listener and of the outgoing
/// connections.
#[derive(Clone)]
pub struct TransportSecurity {
    /// Every key this was read from (compared for equality: two configs with
    /// the same keys have the same transport security).
    raw: BTreeMap<String, String>,
    /// One entry per controller listener, in `controller.listener.names`
    /// order.
    pub listeners: Vec<ListenerSecurity>,
    /// The controller's outgoing connections.
    pub client: ClientSecurity,
}

impl TransportSecurity {
    /// True when a controller listener accepts a SCRAM mechanism.
    pub fn serves_scram(&self) -> bool {
        self.listeners.iter().any(|l| {
            l.sasl.as_ref().is_some_and(|s| {
                s.mechanisms
                    .iter()
                    .any(|m| matches!(m, Mechanism::ScramSha256 | Mechanism::ScramSha512))
            })
        })
    }
}

impl PartialEq for TransportSecurity {
    fn eq(&self, other: &Self) -> bool {
        self.raw == other.raw
    }
}

impl Eq for TransportSecurity {}

impl fmt::Debug for TransportSecurity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TransportSecurity")
            .field("listeners", &self.listeners)
            .field("client", &self.client)
            .finish()
    }
}

impl TransportSecurity {
    /// Plaintext everywhere.
    pub fn plaintext() -> TransportSecurity {
        TransportSecurity {
            raw: BTreeMap::new(),
            listeners: Vec::new(),
            client: ClientSecurity::plaintext(),
        }
    }

    /// The security of listener `name`.
    pub fn listener(&self, name: &str) -> Option<&ListenerSecurity> {
        self.listeners.iter().find(|l| l.name == name)
    }

    /// The client settings of this node's connections to other
    /// controllers, ready to connect (the trust store is loaded here).
    pub fn client_security(
        &self,
    ) -> Result<kraft_security::client::ClientSecurity, kraft_security::SecurityError> {
        use kraft_security::client::{ClientSecurity as Client, Protocol};
        let protocol = match self.client.protocol {
            SecurityProtocol::Plaintext => Protocol::Plaintext,
            SecurityProtocol::Ssl => Protocol::Ssl,
            SecurityProtocol::SaslPlaintext => Protocol::SaslPlaintext,
            SecurityProtocol::SaslSsl => Protocol::SaslSsl,
        };
        Client::new(protocol, self.client.ssl.as_ref(), self.client.sasl.clone())
    }

    /// Whether any controller listener uses TLS or SASL.
    pub fn is_secured(&self) -> bool {
        self.listeners
            .iter()
            .any(|l| l.protocol != SecurityProtocol::Plaintext)
    }

    /// Reads the settings of `controller_listeners` (in
    /// `controller.listener.names` order; the first one is also the
    /// protocol of the outgoing connections).
    pub fn parse(
        props: &Properties,
        controller_listeners: &[ListenerEndpoint],
    ) -> Result<TransportSecurity, ConfigError> {
        let raw: BTreeMap<String, String> = props
            .iter()
            .filter(|(k, _)| is_transport_key(k))
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let mut listeners = Vec::new();
        for endpoint in controller_listeners {
            if listeners
                .iter()
                .any(|l: &ListenerSecurity| l.name == endpoint.name)
            {
                continue;
            }
            listeners.push(parse_listener(props, endpoint)?);
        }
        let client = match listeners.first() {
            None => ClientSecurity::plaintext(),
            Some(first) => parse_client(props, first)?,
        };
        Ok(TransportSecurity {
            raw,
            listeners,
            client,
        })
    }
}

/// Whether `key` is one this module reads (directly or listener-prefixed).
pub fn is_transport_key(key: &str) -> bool {
    let bare = |k: &str| {
        SSL_KEYS.contains(&k)
            || jwks::VALIDATOR_KEYS.contains(&k)
            || k == SASL_ENABLED_MECHANISMS
            || k == SASL_MECHANISM_CONTROLLER_PROTOCOL
            || k == CONNECTIONS_MAX_REAUTH_MS
            || k == SASL_SERVER_MAX_RECEIVE_SIZE
    };
    if bare(key) {
        return true;
    }
    let Some(rest) = key.strip_prefix("listener.name.") else {
        return false;
    };
    let Some((_, suffix)) = rest.split_once('.') else {
        return false;
    };
    if bare(suffix) {
        return true;
    }
    // `<mechanism>.sasl.jaas.config`, `<mechanism>.connections.max.reauth.ms`
    suffix.split_once('.').is_some_and(|(mechanism, k)| {
        Mechanism::parse(&mechanism.to_ascii_uppercase()).is_some()
            && (k == SASL_JAAS_CONFIG
                || k == CONNECTIONS_MAX_REAUTH_MS
                || k == SASL_SERVER_CALLBACK_HANDLER_CLASS)
    })
}

/// The value of `key` for `listener`: the prefixed form first.
fn listener_value<'a>(props: &'a Properties, listener: &str, key: &str) -> Option<&'a str> {
    let prefixed = format!("listener.name.{}.{key}", listener.to_ascii_lowercase());
    props.get(&prefixed).or_else(|| props.get(key))
}

fn security_error(e: kraft_security::SecurityError) -> ConfigError {
    ConfigError::Inconsistent(e.to_string())
}

fn parse_ssl(props: &Properties, listener: &str) -> Result<SslSettings, ConfigError> {
    let get = |key: &str| listener_value(props, listener, key).map(str::to_string);
    SslSettings::from_kafka(&get).map_err(security_error)
}

fn parse_listener(
    props: &Properties,
    endpoint: &ListenerEndpoint,
) -> Result<ListenerSecurity, ConfigError> {
    let name = endpoint.name.clone();
    let protocol = endpoint.security_protocol;
    let ssl = match protocol {
        SecurityProtocol::Ssl | SecurityProtocol::SaslSsl => {
            let has_keystore = listener_value(props, &name, "ssl.keystore.location")
                .is_some_and(|v| !v.trim().is_empty())
                || listener_value(props, &name, "ssl.keystore.key")
                    .is_some_and(|v| !v.trim().is_empty());
            if !has_keystore {
                return Err(ConfigError::Inconsistent(format!(
                    "Listener {name} uses {protocol}, which needs a key store for its server \
                     certificate: set ssl.keystore.location (or ssl.keystore.certificate.chain \
                     and ssl.keystore.key), or its listener.name.{}. prefixed form",
                    name.to_ascii_lowercase()
                )));
            }
            Some(parse_ssl(props, &name)?)
        }
        _ => None,
    };
    let sasl = match protocol {
        SecurityProtocol::SaslPlaintext | SecurityProtocol::SaslSsl => {
            Some(parse_listener_sasl(props, &name)?)
        }
        _ => None,
    };
    Ok(ListenerSecurity {
        name,
        protocol,
        ssl,
        sasl,
    })
}

/// A mechanism kraft-rs serves, or the reason it refuses it.
fn served_mechanism(key: &str, name: &str) -> Result<Mechanism, ConfigError> {
    match Mechanism::parse(name) {
        Some(
            m @ (Mechanism::Plain
            | Mechanism::ScramSha256
            | Mechanism::ScramSha512
            | Mechanism::OAuthBearer),
        ) => Ok(m),
        Some(Mechanism::Gssapi) => Err(ConfigError::Inconsistent(format!(
            "{key} includes GSSAPI (Kerberos), which kraft-rs does not serve. GSSAPI is \
             Kafka's default for {key}: set it to the mechanisms in use (PLAIN, SCRAM-SHA-256, \
             SCRAM-SHA-512, OAUTHBEARER)"
        ))),
        None => Err(ConfigError::Inconsistent(format!(
            "{key} includes the unknown SASL mechanism {name}; kraft-rs serves PLAIN, \
             SCRAM-SHA-256, SCRAM-SHA-512 and OAUTHBEARER"
        ))),
    }
}

/// The JAAS entry of `mechanism` on `listener`.
fn jaas_entry(
    props: &Properties,
    listener: &str,
    mechanism: Mechanism,
) -> Result<JaasEntry, ConfigError> {
    let key = format!(
        "listener.name.{}.{}.{SASL_JAAS_CONFIG}",
        listener.to_ascii_lowercase(),
        mechanism.name().to_ascii_lowercase()
    );
    let Some(value) = props.get(&key) else {
        return Err(ConfigError::Inconsistent(format!(
            "Listener {listener} enables SASL mechanism {} but {key} is not set. kraft-rs reads \
             JAAS settings only from that key (never from a JAAS file named by \
             java.security.auth.login.config), as Kafka's {} line, e.g. {key}={} required \
             username=\"admin\" password=\"...\";",
            mechanism.name(),
            login_module(mechanism),
            login_module(mechanism)
        )));
    };
    let entry =
        jaas::parse_single(value).map_err(|e| ConfigError::Inconsistent(format!("{key}: {e}")))?;
    if entry.login_module != login_module(mechanism) {
        return Err(ConfigError::Inconsistent(format!(
            "{key} names login module {}; SASL mechanism {} on kraft-rs needs {}",
            entry.login_module,
            mechanism.name(),
            login_module(mechanism)
        )));
    }
    Ok(entry)
}

fn parse_long(key: &str, value: &str, min: i64) -> Result<i64, ConfigError> {
    let v: i64 = value.trim().parse().map_err(|_| ConfigError::Invalid {
        key: key.to_string(),
        value: value.trim().to_string(),
        reason: "Not a number of type LONG".to_string(),
    })?;
    if v < min {
        return Err(ConfigError::Invalid {
            key: key.to_string(),
            value: v.to_string(),
            reason: format!("Value must be at least {min}"),
        });
    }
    Ok(v)
}

fn parse_listener_sasl(props: &Properties, listener: &str) -> Result<ListenerSasl, ConfigError> {
    let raw = listener_value(props, listener, SASL_ENABLED_MECHANISMS).unwrap_or(DEFAULT_MECHANISM);
    let mut mechanisms = Vec::new();
    for name in raw.split(',').map(str::trim).filter(|n| !n.is_empty()) {
        let m = served_mechanism(SASL_ENABLED_MECHANISMS, name)?;
        if !mechanisms.contains(&m) {
            mechanisms.push(m);
        }
    }
    if mechanisms.is_empty() {
        return Err(ConfigError::Inconsistent(format!(
            "Listener {listener} uses SASL but {SASL_ENABLED_MECHANISMS} is empty: no SASL \
             mechanisms are enabled"
        )));
    }
    let mut plain_users = BTreeMap::new();
    let mut max_reauth_ms = BTreeMap::new();
    let mut oauthbearer = None;
    for &m in &mechanisms {
        let entry = jaas_entry(props, listener, m)?;
        if m == Mechanism::OAuthBearer {
            oauthbearer = Some(parse_oauthbearer(props, listener, &entry)?);
        }
        if m == Mechanism::Plain {
            for (option, value) in &entry.options {
                if let Some(user) = option.strip_prefix("user_") {
                    plain_users.insert(user.to_string(), Secret::new(value.clone()));
                }
            }
        }
        let mech_key = format!(
            "listener.name.{}.{}.{CONNECTIONS_MAX_REAUTH_MS}",
            listener.to_ascii_lowercase(),
            m.name().to_ascii_lowercase()
        );
        let reauth = match props.get(&mech_key) {
            Some(v) => parse_long(&mech_key, v, 0)?,
            None => match listener_value(props, listener, CONNECTIONS_MAX_REAUTH_MS) {
                Some(v) => parse_long(CONNECTIONS_MAX_REAUTH_MS, v, 0)?,
                None => 0,
            },
        };
        max_reauth_ms.insert(m.name(), reauth);
    }
    let max_receive_size = match listener_value(props, listener, SASL_SERVER_MAX_RECEIVE_SIZE) {
        Some(v) => parse_long(SASL_SERVER_MAX_RECEIVE_SIZE, v, 1)?,
        None => i64::from(DEFAULT_MAX_RECEIVE_SIZE),
    };
    Ok(ListenerSasl {
        mechanisms,
        plain_users,
        max_reauth_ms,
        max_receive_size: usize::try_from(max_receive_size).unwrap_or(usize::MAX),
        oauthbearer,
    })
}

/// The OAUTHBEARER validation of `listener`: its
/// `listener.name.<listener>.oauthbearer.sasl.server.callback.handler.class`
/// picks Kafka's unsecured validator (unset) or its JWT validator. The
/// JWKS URL is opened (and checked against the allowed URLs) when the
/// server starts its listeners, as Kafka's validator does when its channel
/// is built; `kraft storage format` reading the same file does not need it.
fn parse_oauthbearer(
    props: &Properties,
    listener: &str,
    entry: &JaasEntry,
) -> Result<OAuthBearerSettings, ConfigError> {
    let key = format!(
        "listener.name.{}.oauthbearer.{SASL_SERVER_CALLBACK_HANDLER_CLASS}",
        listener.to_ascii_lowercase()
    );
    let class = props.get(&key).map(str::trim).filter(|v| !v.is_empty());
    match class {
        None => UnsecuredValidatorOptions::from_jaas(entry)
            .map(OAuthBearerSettings::Unsecured)
            .map_err(|e| {
                ConfigError::Inconsistent(format!("{key} unset (Kafka's unsecured validator): {e}"))
            }),
        Some(OAUTHBEARER_VALIDATOR_CALLBACK_HANDLER) => {
            let get = |k: &str| listener_value(props, listener, k).map(str::to_string);
            let config = JwtValidatorConfig::from_kafka(&get).map_err(security_error)?;
            Ok(OAuthBearerSettings::Jwt {
                config,
                jaas: entry.clone(),
            })
        }
        Some(other) => Err(ConfigError::Inconsistent(format!(
            "{key}={other}: kraft-rs serves OAUTHBEARER with Kafka's unsecured validator (key \
             unset) or {OAUTHBEARER_VALIDATOR_CALLBACK_HANDLER}; other callback handlers are \
             Java classes it cannot load"
        ))),
    }
}

fn parse_client(
    props: &Properties,
    first: &ListenerSecurity,
) -> Result<ClientSecurity, ConfigError> {
    let ssl = match first.protocol {
        SecurityProtocol::Ssl | SecurityProtocol::SaslSsl => Some(parse_ssl(props, &first.name)?),
        _ => None,
    };
    let sasl = match &first.sasl {
        None => None,
        Some(listener_sasl) => {
            let name = props
                .get(SASL_MECHANISM_CONTROLLER_PROTOCOL)
                .map(str::trim)
                .unwrap_or(DEFAULT_MECHANISM);
            let mechanism = served_mechanism(SASL_MECHANISM_CONTROLLER_PROTOCOL, name)?;
            if mechanism == Mechanism::OAuthBearer {
                return Err(ConfigError::Inconsistent(format!(
                    "{SASL_MECHANISM_CONTROLLER_PROTOCOL}=OAUTHBEARER: kraft-rs controllers do \
                     not log in to each other with OAUTHBEARER (they would need a token from an \
                     identity provider); serve OAUTHBEARER to clients and set \
                     {SASL_MECHANISM_CONTROLLER_PROTOCOL} to PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512"
                )));
            }
            if !listener_sasl.mechanisms.contains(&mechanism) {
                return Err(ConfigError::Inconsistent(format!(
                    "{SASL_MECHANISM_CONTROLLER_PROTOCOL} must be included in \
                     {SASL_ENABLED_MECHANISMS} of listener {} when SASL is used for the \
                     controller listener",
                    first.name
                )));
            }
            let entry = jaas_entry(props, &first.name, mechanism)?;
            for option in ["username", "password"] {
                if !entry.options.contains_key(option) {
                    return Err(ConfigError::Inconsistent(format!(
                        "listener.name.{}.{}.{SASL_JAAS_CONFIG} has no {option}: the controller \
                         authenticates its own connections to other controllers with it \
                         ({SASL_MECHANISM_CONTROLLER_PROTOCOL}={})",
                        first.name.to_ascii_lowercase(),
                        mechanism.name().to_ascii_lowercase(),
                        mechanism.name()
                    )));
                }
            }
            Some((mechanism, entry))
        }
    };
    Ok(ClientSecurity {
        protocol: first.protocol,
        ssl,
        sasl,
    })
}

/// The TLS and SASL part of `docs/configuration.md`.
pub fn reference_markdown() -> String {
    let mut out = String::from(
        "\n## TLS and SASL\n\n\
         A controller listener mapped to SSL or SASL_SSL in `listener.security.protocol.map` \
         serves TLS (rustls), one mapped to SASL_PLAINTEXT or SASL_SSL authenticates with SASL. \
         Each key below may also be given as `listener.name.<listener>.<key>` (lower-case \
         listener name), which wins for that listener, as in Kafka. This node's own \
         connections to other controllers (raft, registration) use the first controller \
         listener's protocol and settings. Key and trust store files are read again every \
         5 seconds: a changed certificate is used for new connections while existing ones \
         keep theirs (Kafka 4.4 controllers need a dynamic config change instead).\n\n\
         | key | what kraft-rs does |\n| --- | --- |\n",
    );
    for key in SSL_KEYS {
        out.push_str(&format!(
            "| `{key}` | served with Kafka's meaning and default; a value kraft-rs cannot honour is refused at start |\n"
        ));
    }
    let rows = [
        (SASL_ENABLED_MECHANISMS, "served: PLAIN, SCRAM-SHA-256, SCRAM-SHA-512, OAUTHBEARER; GSSAPI (Kafka's default: set this key) refused at start"),
        ("listener.name.<listener>.<mechanism>.sasl.jaas.config", "required for each enabled mechanism (kraft-rs reads no JAAS file); PLAIN: `user_<name>=\"<password>\"` entries are the users, `username`/`password` this node's own login; SCRAM: credentials come from the metadata log (`kraft storage format --add-scram`, AlterUserScramCredentials), effective at the next login; `tokenauth=true` logins use delegation tokens"),
        (SASL_MECHANISM_CONTROLLER_PROTOCOL, "served: the mechanism of this node's own connections; must be enabled on the first controller listener; OAUTHBEARER refused at start (controllers do not fetch tokens)"),
        ("listener.name.<listener>.oauthbearer.sasl.server.callback.handler.class", "unset: Kafka's unsecured OAUTHBEARER validator (the JAAS entry's `unsecuredValidator*` options; development only); `org.apache.kafka.common.security.oauthbearer.OAuthBearerValidatorCallbackHandler`: signed JWTs checked with the `sasl.oauthbearer.*` keys below; any other class refused at start"),
        (jwks::JWKS_ENDPOINT_URL, "served: `file:` (read again when the file changes) or `http(s):` (fetched at start and refreshed; `https:` trusts the `ssl.truststore.*` options of the OAUTHBEARER JAAS entry). Like Kafka 4.4, refused unless listed in `-Dorg.apache.kafka.sasl.oauthbearer.allowed.urls=<url>,...`, which kraft-rs reads from the `KAFKA_OPTS` environment variable"),
        (jwks::JWKS_ENDPOINT_REFRESH_MS, "served (default 3600000)"),
        (jwks::JWKS_ENDPOINT_RETRY_BACKOFF_MS, "served (default 100)"),
        (jwks::JWKS_ENDPOINT_RETRY_BACKOFF_MAX_MS, "served (default 10000)"),
        (jwks::EXPECTED_AUDIENCE, "served; required unless `sasl.oauthbearer.allow.unverified.audience=true`, as in Kafka 4.4"),
        (jwks::EXPECTED_ISSUER, "served; required unless `sasl.oauthbearer.allow.unverified.issuer=true`, as in Kafka 4.4"),
        (jwks::ALLOW_UNVERIFIED_AUDIENCE, "served (default false)"),
        (jwks::ALLOW_UNVERIFIED_ISSUER, "served (default false)"),
        (jwks::CLOCK_SKEW_SECONDS, "served (default 30): leeway for `exp` and `nbf`"),
        (jwks::SCOPE_CLAIM_NAME, "served (default `scope`)"),
        (jwks::SUB_CLAIM_NAME, "served (default `sub`): the claim whose value is the principal name"),
        (jwks::JWT_VALIDATOR_CLASS, "Kafka's `DefaultJwtValidator` or `BrokerJwtValidator` only; any other class refused at start"),
        (CONNECTIONS_MAX_REAUTH_MS, "served (also per mechanism): the session lifetime sent to clients; after it, a request other than a re-authentication closes the connection (KIP-368)"),
        (SASL_SERVER_MAX_RECEIVE_SIZE, "served: the largest frame before authentication completes"),
    ];
    for (key, what) in rows {
        out.push_str(&format!("| `{key}` | {what} |\n"));
    }
    out
}
