//! SASL mechanisms as Kafka runs them: PLAIN and SCRAM-SHA-256/512 (with
//! delegation token authentication), server and client side, and
//! OAUTHBEARER ([`oauthbearer`]) with Kafka's unsecured (development)
//! tokens or signed JWTs checked against a JWKS ([`jwt`], [`jwks`]).
//!
//! * [`new_server`] / [`new_client`]: a mechanism's server or client.
//! * [`scram_credential`]: the credential Kafka stores for a SCRAM password.
//! * [`scram`] and [`scram_messages`]: the SCRAM formulas and messages, for
//!   tools and tests.
//!
//! The server side returns failures that carry the exact text Kafka's
//! `SaslServerAuthenticator` sends in `SaslAuthenticateResponse.errorMessage`
//! ([`SaslFailure::message`]) and a separate detail for the server log
//! ([`SaslFailure::log_detail`]); neither ever holds a password, a token HMAC
//! or a derived key.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

use crate::jaas::JaasEntry;
use crate::{Secret, SecurityError};

pub mod jwks;
pub mod jwt;
pub mod oauthbearer;
mod plain;
pub mod scram;
pub mod scram_messages;

pub use scram::scram_credential;

/// A SASL mechanism name as Kafka spells it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Mechanism {
    /// `PLAIN` (RFC 4616).
    Plain,
    /// `SCRAM-SHA-256` (RFC 7677).
    ScramSha256,
    /// `SCRAM-SHA-512`.
    ScramSha512,
    /// `OAUTHBEARER` (RFC 7628), see [`oauthbearer`].
    OAuthBearer,
    /// `GSSAPI` (Kerberos); no server or client here.
    Gssapi,
}

impl Mechanism {
    /// All mechanisms.
    pub const ALL: [Mechanism; 5] = [
        Mechanism::Plain,
        Mechanism::ScramSha256,
        Mechanism::ScramSha512,
        Mechanism::OAuthBearer,
        Mechanism::Gssapi,
    ];

    /// The name, e.g. `SCRAM-SHA-256`.
    pub fn name(&self) -> &'static str {
        match self {
            Mechanism::Plain => "PLAIN",
            Mechanism::ScramSha256 => "SCRAM-SHA-256",
            Mechanism::ScramSha512 => "SCRAM-SHA-512",
            Mechanism::OAuthBearer => "OAUTHBEARER",
            Mechanism::Gssapi => "GSSAPI",
        }
    }

    /// The mechanism named `name` (case-sensitive, as Kafka compares them).
    pub fn parse(name: &str) -> Option<Mechanism> {
        Mechanism::ALL.into_iter().find(|m| m.name() == name)
    }

    /// The SCRAM hash of a SCRAM mechanism.
    pub fn scram(&self) -> Option<ScramMechanism> {
        match self {
            Mechanism::ScramSha256 => Some(ScramMechanism::Sha256),
            Mechanism::ScramSha512 => Some(ScramMechanism::Sha512),
            _ => None,
        }
    }
}

impl fmt::Display for Mechanism {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A SCRAM hash (Kafka's `ScramMechanism`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ScramMechanism {
    /// SHA-256, `SCRAM-SHA-256`.
    Sha256,
    /// SHA-512, `SCRAM-SHA-512`.
    Sha512,
}

impl ScramMechanism {
    /// Both.
    pub const ALL: [ScramMechanism; 2] = [ScramMechanism::Sha256, ScramMechanism::Sha512];

    /// The SASL mechanism name: `SCRAM-SHA-256` or `SCRAM-SHA-512`.
    pub fn mechanism_name(&self) -> &'static str {
        self.mechanism().name()
    }

    /// The SASL mechanism.
    pub fn mechanism(&self) -> Mechanism {
        match self {
            ScramMechanism::Sha256 => Mechanism::ScramSha256,
            ScramMechanism::Sha512 => Mechanism::ScramSha512,
        }
    }

    /// The SCRAM mechanism named `name` (`SCRAM-SHA-256`, `SCRAM-SHA-512`).
    pub fn from_mechanism_name(name: &str) -> Option<ScramMechanism> {
        Mechanism::parse(name).and_then(|m| m.scram())
    }

    /// The Java enum constant name (`SCRAM_SHA_256`), which Kafka prints in
    /// some messages.
    pub fn enum_name(&self) -> &'static str {
        match self {
            ScramMechanism::Sha256 => "SCRAM_SHA_256",
            ScramMechanism::Sha512 => "SCRAM_SHA_512",
        }
    }

    /// The type byte of `UserScramCredentialRecord.mechanism` and of the
    /// admin API: 1 for SHA-256, 2 for SHA-512.
    pub fn type_id(&self) -> i8 {
        match self {
            ScramMechanism::Sha256 => 1,
            ScramMechanism::Sha512 => 2,
        }
    }

    /// The mechanism with type byte `id`.
    pub fn from_type_id(id: i8) -> Option<ScramMechanism> {
        ScramMechanism::ALL.into_iter().find(|m| m.type_id() == id)
    }

    /// The fewest iterations Kafka accepts: 4096.
    pub fn min_iterations(&self) -> i32 {
        4096
    }

    /// The most iterations Kafka accepts when credentials are altered: 16384.
    pub fn max_iterations(&self) -> i32 {
        16384
    }

    /// The hash output length in bytes (32 or 64).
    pub fn hash_len(&self) -> usize {
        match self {
            ScramMechanism::Sha256 => 32,
            ScramMechanism::Sha512 => 64,
        }
    }
}

impl fmt::Display for ScramMechanism {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.mechanism_name())
    }
}

/// A stored SCRAM credential (the metadata image's `UserScramCredentialRecord`).
///
/// `Debug` shows only the iteration count: the keys let anyone who has them
/// impersonate the server.
#[derive(Clone, PartialEq, Eq)]
pub struct ScramCredential {
    /// The salt.
    pub salt: Vec<u8>,
    /// `H(HMAC(SaltedPassword, "Client Key"))`.
    pub stored_key: Vec<u8>,
    /// `HMAC(SaltedPassword, "Server Key")`.
    pub server_key: Vec<u8>,
    /// The PBKDF2 iteration count.
    pub iterations: i32,
}

impl fmt::Debug for ScramCredential {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ScramCredential")
            .field("salt", &"[hidden]")
            .field("stored_key", &"[hidden]")
            .field("server_key", &"[hidden]")
            .field("iterations", &self.iterations)
            .finish()
    }
}

/// A delegation token as SCRAM token authentication needs it.
///
/// `Debug` hides the HMAC: it is the token's password.
#[derive(Clone, PartialEq, Eq)]
pub struct TokenCredential {
    /// The owner as a principal string, `User:name`.
    pub owner: String,
    /// The token HMAC; its standard base64 text is the SCRAM password.
    pub hmac: Vec<u8>,
    /// When the token expires (ms since the epoch); it is refused after that.
    pub expiry_timestamp_ms: i64,
}

impl fmt::Debug for TokenCredential {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TokenCredential")
            .field("owner", &self.owner)
            .field("hmac", &"[hidden]")
            .field("expiry_timestamp_ms", &self.expiry_timestamp_ms)
            .finish()
    }
}

/// Where the server side finds credentials (implemented over the metadata
/// image by the controller).
pub trait CredentialSource: Send + Sync {
    /// The SCRAM credential of `user` for `mechanism`, if any.
    fn scram(&self, mechanism: ScramMechanism, user: &str) -> Option<ScramCredential>;
    /// The delegation token with id `token_id`, if any.
    fn token(&self, token_id: &str) -> Option<TokenCredential>;
}

/// A [`CredentialSource`] with no credentials at all.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoCredentials;

impl CredentialSource for NoCredentials {
    fn scram(&self, _: ScramMechanism, _: &str) -> Option<ScramCredential> {
        None
    }
    fn token(&self, _: &str) -> Option<TokenCredential> {
        None
    }
}

/// A [`CredentialSource`] held in memory (tests, tools, static setups).
#[derive(Debug, Clone, Default)]
pub struct MemoryCredentials {
    /// SCRAM credentials by mechanism and user name.
    pub scram: BTreeMap<(ScramMechanism, String), ScramCredential>,
    /// Tokens by token id.
    pub tokens: BTreeMap<String, TokenCredential>,
}

impl CredentialSource for MemoryCredentials {
    fn scram(&self, mechanism: ScramMechanism, user: &str) -> Option<ScramCredential> {
        self.scram.get(&(mechanism, user.to_owned())).cloned()
    }
    fn token(&self, token_id: &str) -> Option<TokenCredential> {
        self.tokens.get(token_id).cloned()
    }
}

/// Server-side settings for one listener.
#[derive(Clone)]
pub struct SaslServerConfig {
    /// PLAIN users from the listener's JAAS `user_<name>="<password>"` options.
    pub plain_users: BTreeMap<String, Secret>,
    /// SCRAM and token credentials.
    pub credentials: Arc<dyn CredentialSource>,
    /// Current time in ms (for token expiry); a fn so tests control it.
    pub now_ms: fn() -> i64,
}

impl SaslServerConfig {
    /// The PLAIN users of a server JAAS entry: its `user_<name>` options, as
    /// Kafka's `PlainServerCallbackHandler` reads them.
    pub fn plain_users_from_jaas(entry: &JaasEntry) -> BTreeMap<String, Secret> {
        entry
            .options
            .iter()
            .filter_map(|(k, v)| {
                k.strip_prefix("user_")
                    .map(|user| (user.to_owned(), Secret::new(v.clone())))
            })
            .collect()
    }

    /// The system clock in ms since the epoch, for [`SaslServerConfig::now_ms`].
    pub fn system_now_ms() -> i64 {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
            .unwrap_or(0)
    }
}

impl fmt::Debug for SaslServerConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SaslServerConfig")
            .field("plain_users", &self.plain_users)
            .finish_non_exhaustive()
    }
}

/// One server-side step.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ServerStep {
    /// Send this challenge and wait for the next response.
    Challenge(Vec<u8>),
    /// Authentication is complete; send `final_message` (may be empty).
    Complete {
        /// The last message for the client (SCRAM's `v=`; empty for PLAIN).
        final_message: Vec<u8>,
        /// The authenticated name: the user, or a token's owner name.
        authorization_id: String,
        /// Whether a delegation token was used.
        token_authenticated: bool,
    },
}

/// Kind of SASL failure, as Kafka's exceptions map to error codes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SaslFailureKind {
    /// `SaslAuthenticationException`: `SASL_AUTHENTICATION_FAILED`.
    Authentication,
    /// `IllegalSaslStateException`: `ILLEGAL_SASL_STATE`.
    IllegalState,
}

/// A failed step.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SaslFailure {
    /// The kind.
    pub kind: SaslFailureKind,
    /// Exactly the text Kafka's server sends back in
    /// `SaslAuthenticateResponse.errorMessage` for this failure (on the
    /// client side: the text Kafka's client reports).
    pub message: String,
    /// Detail for the server log (Kafka's internal exception text); never a secret.
    pub log_detail: String,
}

impl SaslFailure {
    /// A failure whose message is the client's own text (Kafka's
    /// `SaslAuthenticationException`, e.g. PLAIN's failures).
    pub fn authentication(message: impl Into<String>) -> Self {
        let message = message.into();
        SaslFailure {
            kind: SaslFailureKind::Authentication,
            log_detail: message.clone(),
            message,
        }
    }

    /// A failure that Kafka reports to the client with its generic text
    /// (any other `SaslException`): `Authentication failed during
    /// authentication due to invalid credentials with SASL mechanism <m>`;
    /// `log_detail` keeps the real reason.
    pub fn invalid_credentials(mechanism: Mechanism, log_detail: impl Into<String>) -> Self {
        SaslFailure {
            kind: SaslFailureKind::Authentication,
            message: format!(
                "Authentication failed during authentication due to invalid credentials with SASL mechanism {}",
                mechanism.name()
            ),
            log_detail: log_detail.into(),
        }
    }

    /// An `IllegalSaslStateException`. (Kafka's server closes the connection
    /// without a response for these; `message` is the exception text.)
    pub fn illegal_state(message: impl Into<String>) -> Self {
        let message = message.into();
        SaslFailure {
            kind: SaslFailureKind::IllegalState,
            log_detail: message.clone(),
            message,
        }
    }

    /// The same failure during re-authentication: Kafka's generic text then
    /// says `during re-authentication`.
    pub fn for_reauthentication(mut self) -> Self {
        if let Some(rest) = self
            .message
            .strip_prefix("Authentication failed during authentication ")
        {
            self.message = format!("Authentication failed during re-authentication {rest}");
        }
        self
    }
}

impl fmt::Display for SaslFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for SaslFailure {}

/// The server side of one SASL exchange.
pub trait SaslServer: Send {
    /// Evaluates the client's next message.
    fn evaluate(&mut self, response: &[u8]) -> Result<ServerStep, SaslFailure>;

    /// When the credential used expires (ms since the epoch), once complete:
    /// a delegation token's expiry; `None` otherwise. Kafka bounds the
    /// session lifetime with it.
    fn credential_expiry_ms(&self) -> Option<i64> {
        None
    }
}

/// A server for `mechanism` (PLAIN, SCRAM-SHA-256, SCRAM-SHA-512; others: `None`).
///
/// OAUTHBEARER's server needs the listener's token validator, which
/// [`SaslServerConfig`] does not carry: make it with
/// [`oauthbearer::OAuthBearerServer::new`].
pub fn new_server(mechanism: Mechanism, config: &SaslServerConfig) -> Option<Box<dyn SaslServer>> {
    match mechanism {
        Mechanism::Plain => Some(Box::new(plain::PlainServer::new(
            config.plain_users.clone(),
        ))),
        Mechanism::ScramSha256 | Mechanism::ScramSha512 => {
            let scram = mechanism.scram()?;
            Some(Box::new(scram::ScramServer::new(
                scram,
                config.credentials.clone(),
                config.now_ms,
            )))
        }
        Mechanism::OAuthBearer | Mechanism::Gssapi => None,
    }
}

/// The client side of one SASL exchange.
pub trait SaslClient: Send {
    /// The first message (PLAIN's whole message, SCRAM's client-first).
    fn initial_response(&mut self) -> Result<Vec<u8>, SaslFailure>;
    /// Answers a server challenge; `Ok(None)` when nothing more is to be sent.
    fn evaluate_challenge(&mut self, challenge: &[u8]) -> Result<Option<Vec<u8>>, SaslFailure>;
    /// Whether the exchange is complete (and, for SCRAM, the server verified).
    fn is_complete(&self) -> bool;
}

/// A client for `mechanism` with the login module options of `jaas`
/// (`PlainLoginModule` / `ScramLoginModule`: `username`, `password`,
/// `tokenauth="true"`; `OAuthBearerLoginModule`: an unsecured token made
/// from its `unsecuredLogin*` options, as Kafka's default login does, see
/// [`oauthbearer::unsecured_token`]).
///
/// Errors ([`SecurityError::Config`] for `sasl.jaas.config`) when the
/// mechanism has no client here or an option is missing.
pub fn new_client(
    mechanism: Mechanism,
    jaas: &JaasEntry,
) -> Result<Box<dyn SaslClient>, SecurityError> {
    let config_error =
        |reason: String| SecurityError::config(crate::jaas::SASL_JAAS_CONFIG, reason);
    if mechanism == Mechanism::OAuthBearer {
        let now = SaslServerConfig::system_now_ms();
        return Ok(Box::new(oauthbearer::OAuthBearerClient::unsecured(
            jaas, now,
        )?));
    }
    if mechanism == Mechanism::Gssapi {
        return Err(SecurityError::config(
            "sasl.mechanism",
            format!("SASL mechanism {mechanism} is not supported by this client"),
        ));
    }
    let option = |name: &str| {
        jaas.option(name).ok_or_else(|| {
            config_error(format!(
                "Login module option '{name}' not specified for SASL mechanism {mechanism}"
            ))
        })
    };
    let username = option("username")?;
    let password = option("password")?;
    match mechanism.scram() {
        None => Ok(Box::new(plain::PlainClient::new(
            username,
            Secret::new(password),
        ))),
        Some(scram) => {
            if password.is_empty() {
                return Err(config_error(format!(
                    "Login module option 'password' is empty; SASL mechanism {mechanism} needs a password"
                )));
            }
            let token = jaas
                .option(scram_messages::TOKEN_AUTH_EXTENSION)
                .is_some_and(|v| v.eq_ignore_ascii_case("true"));
            Ok(Box::new(scram::ScramClient::new(
                scram,
                username,
                Secret::new(password),
                token,
            )))
        }
    }
}
