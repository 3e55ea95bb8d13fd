//! SASL/OAUTHBEARER (RFC 7628) with Kafka's *unsecured* JWS tokens: the
//! client initial response of Kafka's `OAuthBearerClientInitialResponse`,
//! the server flow of `OAuthBearerSaslServer` with the validation of
//! `OAuthBearerUnsecuredValidatorCallbackHandler`, and a client whose token
//! is made as `OAuthBearerUnsecuredLoginCallbackHandler` makes it.
//!
//! Unsecured tokens (`"alg":"none"`) carry no signature: anyone can make one.
//! Kafka ships them for development and tests only; so does this module.
//! Signed JWTs checked against an identity provider's keys (Kafka's
//! `OAuthBearerValidatorCallbackHandler`) are not implemented.
//!
//! On a token it refuses, the server answers with a JSON error challenge
//! (`{"status":"invalid_token"}`); the client acknowledges with `%x01`; the
//! server then fails with that JSON as the message sent to the client.

use std::collections::{BTreeMap, BTreeSet};

use base64::engine::general_purpose::{GeneralPurpose, GeneralPurposeConfig};
use base64::engine::DecodePaddingMode;
use base64::Engine;
use serde_json::Value;

use super::{Mechanism, SaslClient, SaslFailure, SaslServer, ServerStep};
use crate::jaas::{JaasEntry, SASL_JAAS_CONFIG};
use crate::{Secret, SecurityError};

/// Kafka's OAUTHBEARER login module class.
pub const OAUTHBEARER_LOGIN_MODULE: &str =
    "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule";

const SEPARATOR: char = '\u{1}';
const AUTH_KEY: &str = "auth";

/// `java.util.Base64.getUrlDecoder()`: URL-safe alphabet, padding optional.
const BASE64_URL: GeneralPurpose = GeneralPurpose::new(
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

/// The OAUTHBEARER server with Kafka's unsecured token validation.
pub struct OAuthBearerServer {
    options: UnsecuredValidatorOptions,
    now_ms: fn() -> i64,
    error: Option<String>,
    complete: bool,
    lifetime_ms: Option<i64>,
}

impl OAuthBearerServer {
    /// A server accepting unsecured tokens under `options`; `now_ms` is the clock.
    pub fn unsecured(options: UnsecuredValidatorOptions, now_ms: fn() -> i64) -> Self {
        OAuthBearerServer {
            options,
            now_ms,
            error: None,
            complete: false,
            lifetime_ms: None,
        }
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
        let validated = UnsecuredJws::parse(
            &initial.token,
            &self.options.principal_claim_name,
            &self.options.scope_claim_name,
        )
        .map_err(|reason| (reason, None))
        .and_then(|jws| jws.validate(&self.options, (self.now_ms)()).map(|()| jws));
        let jws = match validated {
            Ok(jws) => jws,
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
                tracing::debug!(mechanism = "OAUTHBEARER", %reason, "token refused");
                self.error = Some(json.clone());
                return Ok(ServerStep::Challenge(json.into_bytes()));
            }
        };
        if !initial.authorization_id.is_empty() && initial.authorization_id != jws.principal_name {
            return Err(SaslFailure::authentication(format!(
                "Authentication failed: Client requested an authorization id ({}) that is different from the token's principal name ({})",
                initial.authorization_id, jws.principal_name
            )));
        }
        self.complete = true;
        self.lifetime_ms = Some(jws.lifetime_ms);
        Ok(ServerStep::Complete {
            final_message: Vec::new(),
            authorization_id: jws.principal_name,
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
