//! SASL/OAUTHBEARER (RFC 7628) as Kafka runs it: the client initial
//! response of Kafka's `OAuthBearerClientInitialResponse` and the server
//! flow of `OAuthBearerSaslServer`, with either of Kafka's two validators
//! ([`TokenValidator`]):
//!
//! * *unsecured* JWS tokens (`"alg":"none"`), checked as
//!   `OAuthBearerUnsecuredValidatorCallbackHandler` checks them. They carry
//!   no signature: anyone can make one. Kafka ships them for development
//!   and tests only, and so does this module;
//! * signed JWTs checked against an identity provider's keys, as
//!   `OAuthBearerValidatorCallbackHandler` checks them ([`super::jwks`]).
//!
//! Client side: a token made as `OAuthBearerUnsecuredLoginCallbackHandler`
//! makes it, or read from a file as `OAuthBearerLoginCallbackHandler` with
//! Kafka's `FileJwtRetriever` reads it ([`TokenFile`]).
//!
//! On a token it refuses, the server answers with a JSON error challenge
//! (`{"status":"invalid_token"}`); the client acknowledges with `%x01`; the
//! server then fails with that JSON as the message sent to the client.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use base64::engine::general_purpose::{GeneralPurpose, GeneralPurposeConfig};
use base64::engine::DecodePaddingMode;
use base64::Engine;
use serde_json::Value;

use super::jwks::{self, AllowedUrls, JwtValidator, OAuthUrl};
use super::{Mechanism, SaslClient, SaslFailure, SaslServer, ServerStep};
use crate::jaas::{JaasEntry, SASL_JAAS_CONFIG};
use crate::{Secret, SecurityError};

/// Kafka's OAUTHBEARER login module class.
pub const OAUTHBEARER_LOGIN_MODULE: &str =
    "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule";

const SEPARATOR: char = '\u{1}';
const AUTH_KEY: &str = "auth";

/// `java.util.Base64.getUrlDecoder()`: URL-safe alphabet, padding optional.
pub(crate) const BASE64_URL: GeneralPurpose = GeneralPurpose::new(
    &base64::alphabet::URL_SAFE,
    GeneralPurposeConfig::new()
        .with_encode_padding(false)
        .with_decode_padding_mode(DecodePaddingMode::Indifferent)
        .with_decode_allow_trailing_bits(true),
);

fn is_key(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|c| c.is_ascii_alphabetic())
}

fn is_value(s: &str) -> bool {
    !s.is_empty()
        && s.bytes()
            .all(|c| (0x21..=0x7E).contains(&c) || matches!(c, b' ' | b'\t' | b'\r' | b'\n'))
}

/// The client's only message: `n,[a=<authzid>],%x01auth=Bearer <token>[%x01<key>=<value>]...%x01%x01`.
///
/// `Debug` hides the token: it is the client's credential.
#[derive(Clone, PartialEq, Eq)]
pub struct ClientInitialResponse {
    /// The bearer token.
    pub token: String,
    /// The requested authorization id; empty when none.
    pub authorization_id: String,
    /// The SASL extensions (everything but `auth`).
    pub extensions: BTreeMap<String, String>,
}

impl std::fmt::Debug for ClientInitialResponse {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientInitialResponse")
            .field("token", &"[hidden]")
            .field("authorization_id", &self.authorization_id)
            .field("extensions", &self.extensions)
            .finish()
    }
}

impl ClientInitialResponse {
    /// Parses the message as Kafka does; the error is Kafka's text (without
    /// the token).
    pub fn parse(message: &[u8]) -> Result<Self, String> {
        let invalid = || "Invalid OAUTHBEARER client first message".to_owned();
        let text = std::str::from_utf8(message).map_err(|_| invalid())?;
        let rest = text.strip_prefix("n,").ok_or_else(invalid)?;
        let (authz, rest) = rest.split_once(',').ok_or_else(invalid)?;
        let authorization_id = if authz.is_empty() {
            String::new()
        } else {
            match authz.strip_prefix("a=") {
                Some(a) if super::scram_messages::is_sasl_name(a) => a.to_owned(),
                _ => return Err(invalid()),
            }
        };
        let pairs = rest
            .strip_prefix(SEPARATOR)
            .and_then(|r| r.strip_suffix(SEPARATOR))
            .ok_or_else(invalid)?;
        let mut map = BTreeMap::new();
        if !pairs.is_empty() {
            let pairs = pairs.strip_suffix(SEPARATOR).ok_or_else(invalid)?;
            for pair in pairs.split(SEPARATOR) {
                let (key, value) = pair.split_once('=').ok_or_else(invalid)?;
                if !is_key(key) || !is_value(value) {
                    return Err(invalid());
                }
                map.insert(key.to_owned(), value.to_owned());
            }
        }
        let auth = map.remove(AUTH_KEY).ok_or_else(|| {
            "Invalid OAUTHBEARER client first message: 'auth' not specified".to_owned()
        })?;
        let token = parse_auth(&auth)?;
        Ok(ClientInitialResponse {
            token,
            authorization_id,
            extensions: map,
        })
    }

    /// The message, as Kafka's client writes it.
    pub fn to_bytes(&self) -> Vec<u8> {
        let authzid = if self.authorization_id.is_empty() {
            String::new()
        } else {
            format!("a={}", self.authorization_id)
        };
        let mut message = format!("n,{authzid},{SEPARATOR}auth=Bearer {}", self.token);
        for (k, v) in &self.extensions {
            message.push(SEPARATOR);
            message.push_str(k);
            message.push('=');
            message.push_str(v);
        }
        message.push(SEPARATOR);
        message.push(SEPARATOR);
        message.into_bytes()
    }
}

/// `auth=<scheme> <token>`: scheme `Bearer` (any case), token of RFC 6750's characters.
fn parse_auth(auth: &str) -> Result<String, String> {
    let invalid = || "Invalid OAUTHBEARER client first message: invalid 'auth' format".to_owned();
    let (scheme, rest) = auth.split_once(' ').ok_or_else(invalid)?;
    let token = rest.trim_start_matches(' ');
    let scheme_ok = !scheme.is_empty()
        && scheme
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || c == b'_');
    let body = token.trim_end_matches('=');
    let token_ok = !body.is_empty()
        && body
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || b"-_~+/.".contains(&c));
    if !scheme_ok || !token_ok {
        return Err(invalid());
    }
    if !scheme.eq_ignore_ascii_case("bearer") {
        return Err("Invalid scheme in OAUTHBEARER client first message".to_owned());
    }
    Ok(token.to_owned())
}

/// The server's options for unsecured tokens: the listener JAAS entry's
/// `unsecuredValidator*` options.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnsecuredValidatorOptions {
    /// `unsecuredValidatorPrincipalClaimName`, default `sub`.
    pub principal_claim_name: String,
    /// `unsecuredValidatorScopeClaimName`, default `scope`.
    pub scope_claim_name: String,
    /// `unsecuredValidatorRequiredScope`: space-separated, default none.
    pub required_scope: Vec<String>,
    /// `unsecuredValidatorAllowableClockSkewMs`, default 0.
    pub allowable_clock_skew_ms: i32,
}

impl Default for UnsecuredValidatorOptions {
    fn default() -> Self {
        UnsecuredValidatorOptions {
            principal_claim_name: "sub".into(),
            scope_claim_name: "scope".into(),
            required_scope: Vec::new(),
            allowable_clock_skew_ms: 0,
        }
    }
}

fn non_blank(value: Option<&str>) -> Option<&str> {
    value.map(str::trim).filter(|v| !v.is_empty())
}

impl UnsecuredValidatorOptions {
    /// Reads the options of a server JAAS entry, with Kafka's defaults and messages.
    pub fn from_jaas(entry: &JaasEntry) -> Result<Self, SecurityError> {
        let config = |reason: String| SecurityError::config(SASL_JAAS_CONFIG, reason);
        let mut options = UnsecuredValidatorOptions::default();
        if let Some(v) = non_blank(entry.option("unsecuredValidatorPrincipalClaimName")) {
            options.principal_claim_name = v.to_owned();
        }
        if let Some(v) = non_blank(entry.option("unsecuredValidatorScopeClaimName")) {
            options.scope_claim_name = v.to_owned();
        }
        if let Some(v) = non_blank(entry.option("unsecuredValidatorRequiredScope")) {
            options.required_scope = parse_scope(v).map_err(config)?;
        }
        if let Some(v) = entry.option("unsecuredValidatorAllowableClockSkewMs") {
            if !v.trim().is_empty() {
                let skew: i32 = v
                    .trim()
                    .parse()
                    .map_err(|_| config(format!("For input string: \"{}\"", v.trim())))?;
                if skew < 0 {
                    return Err(config(format!(
                        "Allowable clock skew millis must not be negative: {v}"
                    )));
                }
                options.allowable_clock_skew_ms = skew;
            }
        }
        Ok(options)
    }
}

/// A space-separated scope (`OAuthBearerScopeUtils.parseScope`).
pub fn parse_scope(space_delimited: &str) -> Result<Vec<String>, String> {
    let valid = |c: u8| c == 0x21 || (0x23..=0x5B).contains(&c) || (0x5D..=0x7E).contains(&c);
    let mut out = Vec::new();
    for item in space_delimited.split(' ').filter(|i| !i.is_empty()) {
        if !item.bytes().all(valid) {
            return Err(format!("Invalid scope value: {item}"));
        }
        out.push(item.to_owned());
    }
    Ok(out)
}

/// A claim value as Kafka keeps it: numbers, lists of texts, or text.
#[derive(Debug, Clone, PartialEq)]
enum Claim {
    Number(f64, &'static str),
    List(Vec<String>),
    Text(String),
}

impl Claim {
    /// Jackson's node-to-value conversion of `OAuthBearerUnsecuredJws`.
    fn from_json(value: &Value) -> Claim {
        match value {
            Value::Array(items) => Claim::List(items.iter().map(as_text).collect()),
            Value::Number(n) => {
                let java_type = match (n.as_i64(), n.as_u64()) {
                    (Some(i), _) if i32::try_from(i).is_ok() => "Integer",
                    (Some(_), _) => "Long",
                    (None, Some(_)) => "BigInteger",
                    _ => "Double",
                };
                Claim::Number(n.as_f64().unwrap_or(f64::NAN), java_type)
            }
            other => Claim::Text(as_text(other)),
        }
    }

    fn java_type(&self) -> &'static str {
        match self {
            Claim::Number(_, t) => t,
            Claim::List(_) => "ArrayList",
            Claim::Text(_) => "String",
        }
    }
}

/// Jackson's `JsonNode.asText()`.
fn as_text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Number(n) => n.to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Null => "null".into(),
        Value::Array(_) | Value::Object(_) => String::new(),
    }
}

/// An unsecured JWS, checked as Kafka's `OAuthBearerUnsecuredJws` checks it.
#[derive(Debug, Clone, PartialEq)]
pub struct UnsecuredJws {
    /// The principal claim's value.
    pub principal_name: String,
    /// `exp`, in ms since the epoch.
    pub lifetime_ms: i64,
    /// `iat`, in ms since the epoch, if present.
    pub start_time_ms: Option<i64>,
    /// The scope claim's items.
    pub scope: BTreeSet<String>,
    exp: f64,
    iat: Option<f64>,
}

fn claim_map(split: &str) -> Result<BTreeMap<String, Claim>, String> {
    let bytes = BASE64_URL
        .decode(split)
        .map_err(|_| "malformed Base64 URL encoded value".to_owned())?;
    let value: Value = serde_json::from_slice(&bytes).map_err(|_| "malformed JSON".to_owned())?;
    Ok(match value {
        Value::Object(map) => map
            .iter()
            .map(|(k, v)| (k.clone(), Claim::from_json(v)))
            .collect(),
        _ => BTreeMap::new(),
    })
}

fn seconds_to_ms(seconds: f64) -> i64 {
    (seconds * 1000.0).round() as i64
}

impl UnsecuredJws {
    /// Parses and checks a compact serialization `<header>.<claims>.` (empty signature).
    pub fn parse(
        token: &str,
        principal_claim_name: &str,
        scope_claim_name: &str,
    ) -> Result<Self, String> {
        if token.contains("..") {
            return Err("Malformed compact serialization contains '..'".into());
        }
        let splits: Vec<&str> = token.split('.').collect();
        if splits.len() != 3 {
            return Err(
                "Unsecured JWS compact serializations must have 3 dot-separated Base64URL-encoded values".into(),
            );
        }
        let header = claim_map(splits[0])?;
        let claims = claim_map(splits[1])?;
        match header.get("alg") {
            None => return Err("JWS header must have an Algorithm value".into()),
            Some(Claim::Text(alg)) if alg == "none" => {}
            Some(_) => return Err("Unsecured JWS must have 'none' for an algorithm".into()),
        }
        if !splits[2].is_empty() {
            return Err("Unsecured JWS must not contain a digital signature".into());
        }
        let not_of_type = |name: &str, wanted: &str, got: &Claim| {
            format!(
                "The '{name}' claim was not of type {wanted}: {}",
                got.java_type()
            )
        };
        let scope = match claims.get(scope_claim_name) {
            None => BTreeSet::new(),
            Some(Claim::Text(s)) if s.trim().is_empty() => BTreeSet::new(),
            Some(Claim::Text(s)) => BTreeSet::from([s.trim().to_owned()]),
            Some(Claim::List(items)) => items
                .iter()
                .map(|s| s.trim())
                .filter(|s| !s.is_empty())
                .map(str::to_owned)
                .collect(),
            Some(other) => return Err(not_of_type(scope_claim_name, "List", other)),
        };
        let number = |name: &str| match claims.get(name) {
            None => Ok(None),
            Some(Claim::Number(n, _)) => Ok(Some(*n)),
            Some(other) => Err(not_of_type(name, "Number", other)),
        };
        let exp = number("exp")?.ok_or_else(|| "No expiration time in JWT".to_owned())?;
        let principal_name = match claims.get(principal_claim_name) {
            None => String::new(),
            Some(Claim::Text(s)) => s.clone(),
            Some(other) => return Err(not_of_type(principal_claim_name, "String", other)),
        };
        if principal_name.trim().is_empty() {
            return Err(format!(
                "No principal name in JWT claim: {principal_claim_name}"
            ));
        }
        let iat = number("iat")?;
        Ok(UnsecuredJws {
            principal_name,
            lifetime_ms: seconds_to_ms(exp),
            start_time_ms: iat.map(seconds_to_ms),
            scope,
            exp,
            iat,
        })
    }

    /// The time and scope checks of Kafka's unsecured validator; the error is
    /// the reason and, for a missing scope, the required scope text.
    fn validate(
        &self,
        options: &UnsecuredValidatorOptions,
        now_ms: i64,
    ) -> Result<(), (String, Option<String>)> {
        let skew = i64::from(options.allowable_clock_skew_ms);
        if let Some(iat) = self.iat {
            if 1000.0 * iat > (now_ms + skew) as f64 {
                return Err((
                    format!(
                        "The Issued At value ({iat:.6} seconds) was after the indicated time ({now_ms} ms) plus allowable clock skew ({skew} ms)"
                    ),
                    None,
                ));
            }
        }
        if (now_ms - skew) as f64 >= 1000.0 * self.exp {
            return Err((
                format!(
                    "The indicated time ({now_ms} ms) minus allowable clock skew ({skew} ms) was on or after the Expiration Time value ({:.6} seconds)",
                    self.exp
                ),
                None,
            ));
        }
        if let Some(iat) = self.iat {
            if self.exp <= iat {
                return Err((
                    format!(
                        "The Expiration Time time ({:.6} seconds) was not after the Issued At time ({iat:.6} seconds)",
                        self.exp
                    ),
                    None,
                ));
            }
        }
        for required in &options.required_scope {
            if !self.scope.contains(required) {
                let scope: Vec<&str> = self.scope.iter().map(String::as_str).collect();
                let required_list = format!("[{}]", options.required_scope.join(", "));
                return Err((
                    format!(
                        "The provided scope ([{}]) was missing a required scope ({required}).  All required scope elements: {required_list}",
                        scope.join(", ")
                    ),
                    Some(required_list),
                ));
            }
        }
        Ok(())
    }
}

/// How an OAUTHBEARER server checks tokens: Kafka's unsecured validator
/// (the JAAS entry's `unsecuredValidator*` options) or its JWT validator.
#[derive(Debug, Clone)]
pub enum TokenValidator {
    /// `OAuthBearerUnsecuredValidatorCallbackHandler` (Kafka's default).
    Unsecured(UnsecuredValidatorOptions),
    /// `OAuthBearerValidatorCallbackHandler`: signed JWTs.
    Jwt(Arc<JwtValidator>),
}

/// A token the validator accepted.
struct Accepted {
    principal_name: String,
    lifetime_ms: i64,
}

impl TokenValidator {
    /// Checks `token` at `now_ms`: the accepted principal and expiry, or
    /// the reason (for the log) and, for a missing scope, the required
    /// scope text.
    fn check(&self, token: &str, now_ms: i64) -> Result<Accepted, (String, Option<String>)> {
        match self {
            TokenValidator::Unsecured(options) => {
                let jws = UnsecuredJws::parse(
                    token,
                    &options.principal_claim_name,
                    &options.scope_claim_name,
                )
                .map_err(|reason| (reason, None))?;
                jws.validate(options, now_ms)?;
                Ok(Accepted {
                    principal_name: jws.principal_name,
                    lifetime_ms: jws.lifetime_ms,
                })
            }
            TokenValidator::Jwt(validator) => {
                let token = validator
                    .validate(token, now_ms)
                    .map_err(|reason| (reason, None))?;
                Ok(Accepted {
                    principal_name: token.principal_name,
                    lifetime_ms: token.lifetime_ms,
                })
            }
        }
    }
}

/// The OAUTHBEARER server (Kafka's `OAuthBearerSaslServer`).
pub struct OAuthBearerServer {
    validator: TokenValidator,
    now_ms: fn() -> i64,
    error: Option<String>,
    complete: bool,
    lifetime_ms: Option<i64>,
}

impl OAuthBearerServer {
    /// A server checking tokens with `validator`; `now_ms` is the clock.
    pub fn new(validator: TokenValidator, now_ms: fn() -> i64) -> Self {
        OAuthBearerServer {
            validator,
            now_ms,
            error: None,
            complete: false,
            lifetime_ms: None,
        }
    }

    /// A server accepting unsecured tokens under `options`; `now_ms` is the clock.
    pub fn unsecured(options: UnsecuredValidatorOptions, now_ms: fn() -> i64) -> Self {
        OAuthBearerServer::new(TokenValidator::Unsecured(options), now_ms)
    }
}

impl SaslServer for OAuthBearerServer {
    fn evaluate(&mut self, response: &[u8]) -> Result<ServerStep, SaslFailure> {
        if self.complete {
            return Err(SaslFailure::illegal_state(
                "Unexpected challenge in Sasl server state COMPLETE",
            ));
        }
        if response == [0x01] {
            if let Some(error) = self.error.take() {
                return Err(SaslFailure::authentication(error));
            }
        }
        self.error = None;
        let initial = ClientInitialResponse::parse(response)
            .map_err(|e| SaslFailure::invalid_credentials(Mechanism::OAuthBearer, e))?;
        let accepted = match self.validator.check(&initial.token, (self.now_ms)()) {
            Ok(accepted) => accepted,
            Err((reason, scope)) => {
                let status = if scope.is_some() {
                    "insufficient_scope"
                } else {
                    "invalid_token"
                };
                let mut json = format!("{{\"status\":\"{status}\"");
                if let Some(scope) = scope {
                    json.push_str(&format!(", \"scope\":\"{scope}\""));
                }
                json.push('}');
                tracing::info!(mechanism = "OAUTHBEARER", %reason, "token refused");
                self.error = Some(json.clone());
                return Ok(ServerStep::Challenge(json.into_bytes()));
            }
        };
        if !initial.authorization_id.is_empty()
            && initial.authorization_id != accepted.principal_name
        {
            return Err(SaslFailure::authentication(format!(
                "Authentication failed: Client requested an authorization id ({}) that is different from the token's principal name ({})",
                initial.authorization_id, accepted.principal_name
            )));
        }
        self.complete = true;
        self.lifetime_ms = Some(accepted.lifetime_ms);
        Ok(ServerStep::Complete {
            final_message: Vec::new(),
            authorization_id: accepted.principal_name,
            token_authenticated: false,
        })
    }

    fn credential_expiry_ms(&self) -> Option<i64> {
        if self.complete {
            self.lifetime_ms
        } else {
            None
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ClientState {
    SendFirst,
    ReceiveServerFirst,
    AfterFailure,
    Complete,
    Failed,
}

/// The OAUTHBEARER client (Kafka's `OAuthBearerSaslClient`).
pub struct OAuthBearerClient {
    token: Secret,
    extensions: BTreeMap<String, String>,
    state: ClientState,
}

impl OAuthBearerClient {
    /// A client sending `token` with `extensions`.
    pub fn new(token: Secret, extensions: BTreeMap<String, String>) -> Self {
        OAuthBearerClient {
            token,
            extensions,
            state: ClientState::SendFirst,
        }
    }

    /// A client whose token is made from its JAAS options as Kafka's
    /// `OAuthBearerUnsecuredLoginCallbackHandler` makes it, at `now_ms`.
    pub fn unsecured(entry: &JaasEntry, now_ms: i64) -> Result<Self, SecurityError> {
        let token = unsecured_token(entry, now_ms)?;
        let prefix = "unsecuredLoginExtension_";
        let mut extensions = BTreeMap::new();
        for (k, v) in &entry.options {
            if let Some(name) = k.strip_prefix(prefix) {
                if name == AUTH_KEY || !is_key(name) {
                    return Err(SecurityError::config(
                        SASL_JAAS_CONFIG,
                        format!("Extension name {name} is invalid"),
                    ));
                }
                if !is_value(v) {
                    return Err(SecurityError::config(
                        SASL_JAAS_CONFIG,
                        format!("Extension value for extension {name} is invalid"),
                    ));
                }
                extensions.insert(name.to_owned(), v.clone());
            }
        }
        Ok(OAuthBearerClient::new(Secret::new(token), extensions))
    }

    fn state_name(&self) -> &'static str {
        match self.state {
            ClientState::SendFirst => "SEND_CLIENT_FIRST_MESSAGE",
            ClientState::ReceiveServerFirst => "RECEIVE_SERVER_FIRST_MESSAGE",
            ClientState::AfterFailure => "RECEIVE_SERVER_MESSAGE_AFTER_FAILURE",
            ClientState::Complete => "COMPLETE",
            ClientState::Failed => "FAILED",
        }
    }
}

impl SaslClient for OAuthBearerClient {
    fn initial_response(&mut self) -> Result<Vec<u8>, SaslFailure> {
        if self.state != ClientState::SendFirst {
            return Err(SaslFailure::illegal_state(format!(
                "Unexpected challenge in Sasl client state {}",
                self.state_name()
            )));
        }
        self.state = ClientState::ReceiveServerFirst;
        Ok(ClientInitialResponse {
            token: self.token.expose().to_owned(),
            authorization_id: String::new(),
            extensions: self.extensions.clone(),
        }
        .to_bytes())
    }

    fn evaluate_challenge(&mut self, challenge: &[u8]) -> Result<Option<Vec<u8>>, SaslFailure> {
        match self.state {
            ClientState::SendFirst if challenge.is_empty() => self.initial_response().map(Some),
            ClientState::SendFirst => {
                self.state = ClientState::Failed;
                Err(SaslFailure::authentication("Expected empty challenge"))
            }
            ClientState::ReceiveServerFirst if !challenge.is_empty() => {
                tracing::debug!(
                    error = %String::from_utf8_lossy(challenge),
                    "Sending %x01 response to server after receiving an error"
                );
                self.state = ClientState::AfterFailure;
                Ok(Some(vec![0x01]))
            }
            ClientState::ReceiveServerFirst => {
                self.state = ClientState::Complete;
                Ok(None)
            }
            _ => Err(SaslFailure::illegal_state(format!(
                "Unexpected challenge in Sasl client state {}",
                self.state_name()
            ))),
        }
    }

    fn is_complete(&self) -> bool {
        self.state == ClientState::Complete
    }
}

/// An unsecured JWS made from `unsecuredLogin*` JAAS options as Kafka's
/// `OAuthBearerUnsecuredLoginCallbackHandler` makes it: header
/// `{"alg":"none"}`, claims `exp` (now + `unsecuredLoginLifetimeSeconds`,
/// default 3600), `iat` (now) and the `unsecuredLoginStringClaim_<name>`,
/// `unsecuredLoginNumberClaim_<name>` and `unsecuredLoginListClaim_<name>`
/// options (a list's first character is its separator).
pub fn unsecured_token(entry: &JaasEntry, now_ms: i64) -> Result<String, SecurityError> {
    let config = |reason: String| SecurityError::config(SASL_JAAS_CONFIG, reason);
    if entry.options.is_empty() {
        return Err(config(
            "Token not provided, this login cannot be used to establish client connections".into(),
        ));
    }
    if entry
        .options
        .keys()
        .all(|k| k.starts_with("unsecuredLoginExtension_"))
    {
        return Err(config(
            "Extensions provided in login context without a token".into(),
        ));
    }
    let principal_claim =
        non_blank(entry.option("unsecuredLoginPrincipalClaimName")).unwrap_or("sub");
    let scope_claim = non_blank(entry.option("unsecuredLoginScopeClaimName")).unwrap_or("scope");
    let lifetime = entry
        .option("unsecuredLoginLifetimeSeconds")
        .unwrap_or("3600");
    let lifetime: i64 = lifetime
        .parse()
        .map_err(|_| config(format!("For input string: \"{lifetime}\"")))?;
    let now = now_ms as f64 / 1000.0;
    let mut claims = serde_json::Map::new();
    claims.insert("exp".into(), Value::from(now + lifetime as f64));
    claims.insert("iat".into(), Value::from(now));
    for (key, value) in &entry.options {
        let (name, claim) = if let Some(name) = key.strip_prefix("unsecuredLoginStringClaim_") {
            (name, Value::from(value.as_str()))
        } else if let Some(name) = key.strip_prefix("unsecuredLoginNumberClaim_") {
            let n: f64 = value
                .trim()
                .parse()
                .map_err(|_| config(format!("For input string: \"{value}\"")))?;
            (name, Value::from(n))
        } else if let Some(name) = key.strip_prefix("unsecuredLoginListClaim_") {
            (name, Value::from(list_claim(value)))
        } else {
            continue;
        };
        if name.is_empty() {
            continue;
        }
        if name == "iat" || name == "exp" {
            return Err(config(format!("Cannot explicitly set the '{name}' claim")));
        }
        claims.insert(name.to_owned(), claim);
    }
    let header = BASE64_URL.encode(br#"{"alg":"none"}"#);
    let body = BASE64_URL.encode(Value::Object(claims).to_string());
    let token = format!("{header}.{body}.");
    UnsecuredJws::parse(&token, principal_claim, scope_claim).map_err(config)?;
    Ok(token)
}

/// Kafka's list claim text: the first character separates the rest; empty
/// items at the end are dropped (Java's `split`), and one empty item is
/// added when the text starts or ends with the separator or holds two in a row.
fn list_claim(value: &str) -> Vec<String> {
    let mut chars = value.chars();
    let Some(separator) = chars.next() else {
        return Vec::new();
    };
    let text = chars.as_str();
    if text.is_empty() {
        return Vec::new();
    }
    let mut items: Vec<String> = text.split(separator).map(str::to_owned).collect();
    while items.last().is_some_and(String::is_empty) {
        items.pop();
    }
    let doubled: String = [separator, separator].iter().collect();
    if text.starts_with(separator) || text.ends_with(separator) || text.contains(&doubled) {
        items.push(String::new());
    }
    items
}

/// `sasl.login.callback.handler.class`
pub const SASL_LOGIN_CALLBACK_HANDLER_CLASS: &str = "sasl.login.callback.handler.class";
/// Kafka's login callback handler that takes its token from
/// `sasl.oauthbearer.token.endpoint.url`.
pub const LOGIN_CALLBACK_HANDLER: &str =
    "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginCallbackHandler";

/// A client token read from a `file:` `sasl.oauthbearer.token.endpoint.url`,
/// as Kafka's `FileJwtRetriever` reads it: the file is read again when its
/// modification time changes; its content, trimmed, must be a serialized
/// JWT with a JSON header and payload whose payload has `exp` and a
/// non-blank subject (Kafka's `ClientJwtValidator`; the signature is the
/// server's business). The `extension_<name>` options of the JAAS entry
/// are sent as SASL extensions.
///
/// `Debug` never shows the token.
pub struct TokenFile {
    path: PathBuf,
    sub_claim_name: String,
    scope_claim_name: String,
    extensions: BTreeMap<String, String>,
    cached: Mutex<Option<(Option<SystemTime>, Secret)>>,
}

impl std::fmt::Debug for TokenFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TokenFile")
            .field("path", &self.path)
            .finish_non_exhaustive()
    }
}

/// Reads and checks a token file's content (the error names no part of it).
fn read_token(path: &Path, sub_claim_name: &str, scope_claim_name: &str) -> Result<Secret, String> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        format!(
            "Error reading the file contents of OAuth resource {} for caching: {e}",
            path.display()
        )
    })?;
    let token = text.trim();
    let [header, payload, _] = super::jwt::split_serialized(token)?;
    let as_map = |section: &str, what: &str| -> Result<serde_json::Map<String, Value>, String> {
        let bytes = BASE64_URL
            .decode(section)
            .map_err(|_| format!("the token's {what} is not base64url"))?;
        match serde_json::from_slice(&bytes) {
            Ok(Value::Object(m)) => Ok(m),
            _ => Err(format!("the token's {what} is not a JSON object")),
        }
    };
    as_map(header, "header")?;
    let claims = as_map(payload, "payload")?;
    match claims.get("exp") {
        Some(Value::Number(_)) => {}
        None | Some(Value::Null) => return Err("exp value must be non-null".into()),
        Some(_) => return Err("the token's 'exp' claim is not a number".into()),
    }
    match claims.get(sub_claim_name) {
        Some(Value::String(s)) if !s.trim().is_empty() => {}
        Some(Value::String(s)) if s.is_empty() => {
            return Err(format!("{sub_claim_name} value must be non-empty"))
        }
        Some(Value::String(_)) => {
            return Err(format!(
                "{sub_claim_name} value must not contain only whitespace"
            ))
        }
        None | Some(Value::Null) => return Err(format!("{sub_claim_name} value must be non-null")),
        Some(_) => return Err(format!("the token's '{sub_claim_name}' claim is not text")),
    }
    if let Some(Value::Array(items)) = claims.get(scope_claim_name) {
        let mut seen = BTreeSet::new();
        for item in items {
            let text = item.as_str().map(str::trim).unwrap_or("");
            if text.is_empty() || !seen.insert(text.to_owned()) {
                return Err(format!(
                    "the token's '{scope_claim_name}' claim is not valid"
                ));
            }
        }
    }
    Ok(Secret::new(token))
}

impl TokenFile {
    /// The token file of a client configuration: `get` reads the client
    /// keys (`sasl.oauthbearer.token.endpoint.url`,
    /// `sasl.oauthbearer.sub.claim.name`, `sasl.oauthbearer.scope.claim.name`),
    /// `jaas` is the `OAuthBearerLoginModule` entry, `allowed` the URLs that
    /// may be used. The file is read and checked now.
    pub fn from_kafka(
        get: &dyn Fn(&str) -> Option<String>,
        jaas: &JaasEntry,
        allowed: &AllowedUrls,
    ) -> Result<TokenFile, SecurityError> {
        let key = jwks::TOKEN_ENDPOINT_URL;
        let value = get(key).unwrap_or_default();
        let path = match jwks::validate_url(key, &value, allowed)? {
            OAuthUrl::File(path) => path,
            OAuthUrl::Http(_) => {
                return Err(SecurityError::config(
                    key,
                    format!(
                        "{}: kraft-rs reads OAUTHBEARER tokens only from a file: URL (Kafka's \
                         FileJwtRetriever); fetching tokens from an identity provider is not \
                         supported",
                        value.trim()
                    ),
                ))
            }
        };
        let claim = |k: &str, default: &str| {
            get(k)
                .map(|v| v.trim().to_owned())
                .filter(|v| !v.is_empty())
                .unwrap_or_else(|| default.to_owned())
        };
        let mut extensions = BTreeMap::new();
        for (k, v) in &jaas.options {
            if let Some(name) = k.strip_prefix("extension_") {
                if name == AUTH_KEY || !is_key(name) {
                    return Err(SecurityError::config(
                        SASL_JAAS_CONFIG,
                        format!("Extension name {name} is invalid"),
                    ));
                }
                if !is_value(v) {
                    return Err(SecurityError::config(
                        SASL_JAAS_CONFIG,
                        format!("Extension value for extension {name} is invalid"),
                    ));
                }
                extensions.insert(name.to_owned(), v.clone());
            }
        }
        let file = TokenFile {
            path,
            sub_claim_name: claim(jwks::SUB_CLAIM_NAME, "sub"),
            scope_claim_name: claim(jwks::SCOPE_CLAIM_NAME, "scope"),
            extensions,
            cached: Mutex::new(None),
        };
        file.token()?;
        Ok(file)
    }

    /// The current token (read again if the file changed).
    pub fn token(&self) -> Result<Secret, SecurityError> {
        let error = |reason: String| {
            SecurityError::config(
                jwks::TOKEN_ENDPOINT_URL,
                format!("{}: {reason}", self.path.display()),
            )
        };
        let modified = std::fs::metadata(&self.path)
            .and_then(|m| m.modified())
            .ok();
        let mut cached = self
            .cached
            .lock()
            .map_err(|_| error("the token cache lock is poisoned".into()))?;
        if let Some((when, token)) = cached.as_ref() {
            if *when == modified {
                return Ok(token.clone());
            }
        }
        let token =
            read_token(&self.path, &self.sub_claim_name, &self.scope_claim_name).map_err(error)?;
        *cached = Some((modified, token.clone()));
        Ok(token)
    }

    /// A client sending the current token.
    pub fn client(&self) -> Result<OAuthBearerClient, SecurityError> {
        Ok(OAuthBearerClient::new(
            self.token()?,
            self.extensions.clone(),
        ))
    }
}
