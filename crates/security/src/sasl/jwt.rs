//! Signed JWTs (RFC 7519) in JWS compact form (RFC 7515), checked the way
//! Kafka's broker-side validator (`BrokerJwtValidator`, built on jose4j)
//! checks them: a JSON Web Key from a key set (RFC 7517) is chosen by the
//! token's `kid`, key type and curve, the signature is verified with `ring`
//! (with RustCrypto's `p521` for ES512, which `ring` does not do),
//! then the claims: `exp` and `iat` required, `nbf` honoured, all three
//! with the configured clock skew; `aud` and `iss` against the expected
//! values; the subject and scope claims under their configured names.
//!
//! Algorithms: RS256/384/512, PS256/384/512, ES256, ES384, ES512, EdDSA
//! (Ed25519) and HS256/384/512 with an `oct` key of at least the hash
//! length. `none` is refused, as is any token with a `crit` header.
//!
//! No error text ever contains the token or a key.

use std::collections::BTreeSet;
use std::fmt;

use base64::Engine;
use ring::signature::{self, UnparsedPublicKey};
use serde_json::{Map, Value};

use super::oauthbearer::BASE64_URL;

/// The text of Kafka's `SerializedJwt` for a token that is not three
/// non-empty dot-separated sections.
pub const MALFORMED_JWT: &str =
    "Malformed JWT provided; expected three sections (header, payload, and signature)";

/// A JWS signature algorithm this validator verifies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Algorithm {
    /// RSASSA-PKCS1-v1_5 with SHA-256.
    Rs256,
    /// RSASSA-PKCS1-v1_5 with SHA-384.
    Rs384,
    /// RSASSA-PKCS1-v1_5 with SHA-512.
    Rs512,
    /// RSASSA-PSS with SHA-256.
    Ps256,
    /// RSASSA-PSS with SHA-384.
    Ps384,
    /// RSASSA-PSS with SHA-512.
    Ps512,
    /// ECDSA on P-256 with SHA-256.
    Es256,
    /// ECDSA on P-384 with SHA-384.
    Es384,
    /// ECDSA on P-521 with SHA-512.
    Es512,
    /// Ed25519.
    EdDsa,
    /// HMAC with SHA-256.
    Hs256,
    /// HMAC with SHA-384.
    Hs384,
    /// HMAC with SHA-512.
    Hs512,
}

impl Algorithm {
    /// Every algorithm verified here.
    pub const ALL: [Algorithm; 13] = [
        Algorithm::Rs256,
        Algorithm::Rs384,
        Algorithm::Rs512,
        Algorithm::Ps256,
        Algorithm::Ps384,
        Algorithm::Ps512,
        Algorithm::Es256,
        Algorithm::Es384,
        Algorithm::Es512,
        Algorithm::EdDsa,
        Algorithm::Hs256,
        Algorithm::Hs384,
        Algorithm::Hs512,
    ];

    /// The JWA name (`RS256`, ...).
    pub fn name(&self) -> &'static str {
        match self {
            Algorithm::Rs256 => "RS256",
            Algorithm::Rs384 => "RS384",
            Algorithm::Rs512 => "RS512",
            Algorithm::Ps256 => "PS256",
            Algorithm::Ps384 => "PS384",
            Algorithm::Ps512 => "PS512",
            Algorithm::Es256 => "ES256",
            Algorithm::Es384 => "ES384",
            Algorithm::Es512 => "ES512",
            Algorithm::EdDsa => "EdDSA",
            Algorithm::Hs256 => "HS256",
            Algorithm::Hs384 => "HS384",
            Algorithm::Hs512 => "HS512",
        }
    }

    /// The algorithm named `name` (case-sensitive, as JWA names are).
    pub fn parse(name: &str) -> Option<Algorithm> {
        Algorithm::ALL.into_iter().find(|a| a.name() == name)
    }

    /// The JWK `kty` of the keys that verify it.
    fn key_type(&self) -> &'static str {
        match self {
            Algorithm::Rs256
            | Algorithm::Rs384
            | Algorithm::Rs512
            | Algorithm::Ps256
            | Algorithm::Ps384
            | Algorithm::Ps512 => "RSA",
            Algorithm::Es256 | Algorithm::Es384 | Algorithm::Es512 => "EC",
            Algorithm::EdDsa => "OKP",
            Algorithm::Hs256 | Algorithm::Hs384 | Algorithm::Hs512 => "oct",
        }
    }
}

impl fmt::Display for Algorithm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The key material of a [`Jwk`].
#[derive(Clone, PartialEq, Eq)]
enum KeyMaterial {
    /// Modulus and exponent, big-endian without leading zeros.
    Rsa { n: Vec<u8>, e: Vec<u8> },
    /// A NIST curve point, uncompressed (`04 || x || y`).
    Ec { curve: &'static str, point: Vec<u8> },
    /// An Ed25519 public key.
    Ed25519(Vec<u8>),
    /// A symmetric (HMAC) key: a secret.
    Oct(Vec<u8>),
}

/// One verification key of a JSON Web Key Set.
///
/// `Debug` shows the key id and type only: a symmetric key is a secret.
#[derive(Clone, PartialEq, Eq)]
pub struct Jwk {
    /// `kid`
    pub kid: Option<String>,
    /// `alg`, when the key names the one algorithm it is for.
    pub alg: Option<String>,
    /// `use`
    pub usage: Option<String>,
    /// `key_ops`
    pub key_ops: Option<Vec<String>>,
    material: KeyMaterial,
}

impl fmt::Debug for Jwk {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Jwk")
            .field("kid", &self.kid)
            .field("kty", &self.key_type())
            .field("alg", &self.alg)
            .finish_non_exhaustive()
    }
}

fn b64_field(object: &Map<String, Value>, name: &str) -> Result<Vec<u8>, String> {
    let text = object
        .get(name)
        .and_then(Value::as_str)
        .ok_or_else(|| format!("missing or non-text '{name}'"))?;
    BASE64_URL
        .decode(text)
        .map_err(|_| format!("'{name}' is not base64url"))
}

fn strip_leading_zeros(mut bytes: Vec<u8>) -> Vec<u8> {
    let zeros = bytes.iter().take_while(|b| **b == 0).count();
    bytes.drain(..zeros.min(bytes.len().saturating_sub(1)));
    bytes
}

/// Left-pads a curve coordinate to the field size; longer is an error.
fn coordinate(mut bytes: Vec<u8>, size: usize, name: &str) -> Result<Vec<u8>, String> {
    let bytes = {
        let zeros = bytes.iter().take_while(|b| **b == 0).count();
        if bytes.len() > size {
            bytes.drain(..zeros.min(bytes.len() - size));
        }
        bytes
    };
    if bytes.len() > size {
        return Err(format!("'{name}' is longer than the curve's field"));
    }
    let mut out = vec![0u8; size - bytes.len()];
    out.extend_from_slice(&bytes);
    Ok(out)
}

impl Jwk {
    /// Reads one key of a key set (RFC 7517 section 4, RFC 7518 section 6).
    pub fn from_json(value: &Value) -> Result<Jwk, String> {
        let object = value.as_object().ok_or("a key is not a JSON object")?;
        let text = |name: &str| object.get(name).and_then(Value::as_str).map(str::to_owned);
        let kty = text("kty").ok_or("missing or non-text 'kty'")?;
        let material = match kty.as_str() {
            "RSA" => KeyMaterial::Rsa {
                n: strip_leading_zeros(b64_field(object, "n")?),
                e: strip_leading_zeros(b64_field(object, "e")?),
            },
            "EC" => {
                let crv = text("crv").ok_or("missing or non-text 'crv'")?;
                let (curve, size) = match crv.as_str() {
                    "P-256" => ("P-256", 32),
                    "P-384" => ("P-384", 48),
                    "P-521" => ("P-521", 66),
                    other => return Err(format!("unknown curve {other}")),
                };
                let mut point = vec![4u8];
                point.extend(coordinate(b64_field(object, "x")?, size, "x")?);
                point.extend(coordinate(b64_field(object, "y")?, size, "y")?);
                KeyMaterial::Ec { curve, point }
            }
            "OKP" => match text("crv").as_deref() {
                Some("Ed25519") => KeyMaterial::Ed25519(b64_field(object, "x")?),
                Some(other) => return Err(format!("unsupported OKP curve {other}")),
                None => return Err("missing or non-text 'crv'".into()),
            },
            "oct" => KeyMaterial::Oct(b64_field(object, "k")?),
            other => return Err(format!("unsupported key type {other}")),
        };
        let key_ops = match object.get("key_ops") {
            None => None,
            Some(Value::Array(items)) => Some(
                items
                    .iter()
                    .map(|i| {
                        i.as_str()
                            .map(str::to_owned)
                            .ok_or("non-text 'key_ops' item")
                    })
                    .collect::<Result<Vec<_>, _>>()?,
            ),
            Some(_) => return Err("'key_ops' is not an array".into()),
        };
        Ok(Jwk {
            kid: text("kid"),
            alg: text("alg"),
            usage: text("use"),
            key_ops,
            material,
        })
    }

    /// The JWK `kty`.
    pub fn key_type(&self) -> &'static str {
        match self.material {
            KeyMaterial::Rsa { .. } => "RSA",
            KeyMaterial::Ec { .. } => "EC",
            KeyMaterial::Ed25519(_) => "OKP",
            KeyMaterial::Oct(_) => "oct",
        }
    }

    /// Whether this key may verify a token signed with `alg` under `kid`.
    fn fits(&self, alg: Algorithm, kid: Option<&str>) -> bool {
        if let Some(kid) = kid {
            if self.kid.as_deref() != Some(kid) {
                return false;
            }
        }
        if self.key_type() != alg.key_type() {
            return false;
        }
        if let KeyMaterial::Ec { curve, .. } = &self.material {
            let wanted = match alg {
                Algorithm::Es256 => "P-256",
                Algorithm::Es384 => "P-384",
                Algorithm::Es512 => "P-521",
                _ => return false,
            };
            if *curve != wanted {
                return false;
            }
        }
        if self.usage.as_deref().is_some_and(|u| u != "sig") {
            return false;
        }
        if let Some(ops) = &self.key_ops {
            if !ops.iter().any(|o| o == "verify") {
                return false;
            }
        }
        // The key's own `alg` is not looked at: Kafka's validator (jose4j)
        // verifies a PS256 token with a key marked RS256.
        true
    }

    /// Verifies `signature` over `message` with this key under `alg`.
    fn verify(&self, alg: Algorithm, message: &[u8], sig: &[u8]) -> Result<(), String> {
        let bad = || "JWS signature is invalid".to_owned();
        match (&self.material, alg) {
            (KeyMaterial::Rsa { n, e }, _) => {
                let params: &signature::RsaParameters = match alg {
                    Algorithm::Rs256 => &signature::RSA_PKCS1_2048_8192_SHA256,
                    Algorithm::Rs384 => &signature::RSA_PKCS1_2048_8192_SHA384,
                    Algorithm::Rs512 => &signature::RSA_PKCS1_2048_8192_SHA512,
                    Algorithm::Ps256 => &signature::RSA_PSS_2048_8192_SHA256,
                    Algorithm::Ps384 => &signature::RSA_PSS_2048_8192_SHA384,
                    Algorithm::Ps512 => &signature::RSA_PSS_2048_8192_SHA512,
                    _ => return Err(bad()),
                };
                signature::RsaPublicKeyComponents { n, e }
                    .verify(params, message, sig)
                    .map_err(|_| bad())
            }
            (KeyMaterial::Ec { point, .. }, Algorithm::Es256) => {
                UnparsedPublicKey::new(&signature::ECDSA_P256_SHA256_FIXED, point)
                    .verify(message, sig)
                    .map_err(|_| bad())
            }
            (KeyMaterial::Ec { point, .. }, Algorithm::Es384) => {
                UnparsedPublicKey::new(&signature::ECDSA_P384_SHA384_FIXED, point)
                    .verify(message, sig)
                    .map_err(|_| bad())
            }
            (KeyMaterial::Ec { point, .. }, Algorithm::Es512) => {
                // RustCrypto's p521 (ring has no P-521): SHA-512 over the
                // message, the signature r || s of 66 bytes each.
                use p521::ecdsa::signature::Verifier;
                let key = p521::ecdsa::VerifyingKey::from_sec1_bytes(point).map_err(|_| bad())?;
                let sig = p521::ecdsa::Signature::from_slice(sig).map_err(|_| bad())?;
                key.verify(message, &sig).map_err(|_| bad())
            }
            (KeyMaterial::Ed25519(x), Algorithm::EdDsa) => {
                UnparsedPublicKey::new(&signature::ED25519, x)
                    .verify(message, sig)
                    .map_err(|_| bad())
            }
            (KeyMaterial::Oct(k), _) => {
                let (hmac_alg, min_len) = match alg {
                    Algorithm::Hs256 => (ring::hmac::HMAC_SHA256, 32),
                    Algorithm::Hs384 => (ring::hmac::HMAC_SHA384, 48),
                    Algorithm::Hs512 => (ring::hmac::HMAC_SHA512, 64),
                    _ => return Err(bad()),
                };
                if k.len() < min_len {
                    return Err(format!(
                        "a key of at least {} bits is needed for {alg}",
                        min_len * 8
                    ));
                }
                ring::hmac::verify(&ring::hmac::Key::new(hmac_alg, k), message, sig)
                    .map_err(|_| bad())
            }
            _ => Err(bad()),
        }
    }
}

/// A JSON Web Key Set: the keys that could be read. A key that cannot be
/// used (unknown type, bad encoding) is skipped, as jose4j skips it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct JwkSet {
    /// The keys, in the set's order.
    pub keys: Vec<Jwk>,
}

impl JwkSet {
    /// Parses a JWKS document (`{"keys":[...]}`).
    pub fn parse(text: &str) -> Result<JwkSet, String> {
        let value: Value =
            serde_json::from_str(text).map_err(|e| format!("the JWKS is not JSON: {e}"))?;
        let keys = value
            .as_object()
            .and_then(|o| o.get("keys"))
            .and_then(Value::as_array)
            .ok_or("The JSON JWKS content does not include the keys member.")?;
        let mut out = Vec::new();
        for key in keys {
            match Jwk::from_json(key) {
                Ok(k) => out.push(k),
                Err(reason) => tracing::debug!(%reason, "ignoring a JWK of the JWKS"),
            }
        }
        Ok(JwkSet { keys: out })
    }

    /// The key for a token signed with `alg` under `kid`: the first that fits.
    pub fn select(&self, alg: Algorithm, kid: Option<&str>) -> Option<&Jwk> {
        self.keys.iter().find(|k| k.fits(alg, kid))
    }

    /// The key ids, for messages.
    pub fn describe(&self) -> String {
        let ids: Vec<String> = self
            .keys
            .iter()
            .map(|k| format!("{}:{}", k.key_type(), k.kid.as_deref().unwrap_or("-")))
            .collect();
        format!("[{}]", ids.join(", "))
    }
}

/// A JWS in compact form, split and decoded but not yet verified.
#[derive(Clone)]
pub struct CompactJws {
    /// The JOSE header.
    pub header: Map<String, Value>,
    /// The claims (the payload as a JSON object).
    pub claims: Map<String, Value>,
    signing_input: String,
    signature: Vec<u8>,
}

impl fmt::Debug for CompactJws {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CompactJws")
            .field("header", &self.header)
            .finish_non_exhaustive()
    }
}

fn json_object(section: &str, what: &str) -> Result<Map<String, Value>, String> {
    let bytes = BASE64_URL
        .decode(section)
        .map_err(|_| format!("the JWT {what} is not base64url"))?;
    match serde_json::from_slice(&bytes) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(_) => Err(format!("the JWT {what} is not a JSON object")),
        Err(_) => Err(format!("the JWT {what} is not JSON")),
    }
}

/// The three sections of a serialized JWT as Kafka's `SerializedJwt`
/// splits them (trimmed, each non-empty), or [`MALFORMED_JWT`].
pub fn split_serialized(token: &str) -> Result<[&str; 3], String> {
    let token = token.trim();
    let parts: Vec<&str> = token.split('.').collect();
    let [h, p, s] = parts.as_slice() else {
        return Err(MALFORMED_JWT.into());
    };
    let sections = [*h, *p, *s];
    if sections.iter().any(|x| x.trim().is_empty()) {
        return Err(MALFORMED_JWT.into());
    }
    Ok(sections)
}

impl CompactJws {
    /// Splits and decodes `token`; refuses anything but three sections
    /// with a JSON header and payload.
    pub fn parse(token: &str) -> Result<CompactJws, String> {
        let [header, payload, signature] = split_serialized(token)?;
        let header_map = json_object(header, "header")?;
        let claims = json_object(payload, "payload")?;
        let signature = BASE64_URL
            .decode(signature)
            .map_err(|_| "the JWT signature is not base64url".to_owned())?;
        Ok(CompactJws {
            header: header_map,
            claims,
            signing_input: format!("{header}.{payload}"),
            signature,
        })
    }

    /// The header's `alg`, refused when absent, `none` or not verified here.
    pub fn algorithm(&self) -> Result<Algorithm, String> {
        match self.header.get("alg") {
            None => Err("the JWS header has no 'alg'".into()),
            Some(Value::String(a)) if a == "none" => {
                Err("'none' is not a permitted algorithm for a signed JWT".into())
            }
            Some(Value::String(a)) => {
                Algorithm::parse(a).ok_or_else(|| format!("JWS algorithm {a} is not supported"))
            }
            Some(_) => Err("the JWS header's 'alg' is not text".into()),
        }
    }

    /// The header's `kid`.
    pub fn key_id(&self) -> Option<&str> {
        self.header.get("kid").and_then(Value::as_str)
    }

    /// Verifies the signature with the key `keys` gives for it.
    pub fn verify(&self, keys: &JwkSet) -> Result<(), VerifyError> {
        let alg = self.algorithm().map_err(VerifyError::Invalid)?;
        if self.header.contains_key("crit") {
            return Err(VerifyError::Invalid(
                "the JWS header marks headers as critical ('crit'); none are understood".into(),
            ));
        }
        let Some(key) = keys.select(alg, self.key_id()) else {
            return Err(VerifyError::NoKey(format!(
                "Unable to find a suitable verification key for JWS w/ header {} from JWKs {}",
                Value::Object(self.header.clone()),
                keys.describe()
            )));
        };
        key.verify(alg, self.signing_input.as_bytes(), &self.signature)
            .map_err(VerifyError::Invalid)
    }
}

/// Why a signature was not accepted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum VerifyError {
    /// No key of the set fits the token (its `kid`, type or curve).
    NoKey(String),
    /// The token or its signature is not acceptable.
    Invalid(String),
}

impl fmt::Display for VerifyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            VerifyError::NoKey(m) | VerifyError::Invalid(m) => f.write_str(m),
        }
    }
}

/// How claims are checked: Kafka's `sasl.oauthbearer.*` settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClaimRules {
    /// `sasl.oauthbearer.expected.audience`; empty: `aud` is not checked
    /// (only with `sasl.oauthbearer.allow.unverified.audience=true`).
    pub expected_audience: BTreeSet<String>,
    /// `sasl.oauthbearer.expected.issuer`; `None`: `iss` is not checked.
    pub expected_issuer: Option<String>,
    /// `sasl.oauthbearer.clock.skew.seconds` (default 30).
    pub clock_skew_seconds: i64,
    /// `sasl.oauthbearer.scope.claim.name` (default `scope`).
    pub scope_claim_name: String,
    /// `sasl.oauthbearer.sub.claim.name` (default `sub`).
    pub sub_claim_name: String,
}

impl Default for ClaimRules {
    fn default() -> Self {
        ClaimRules {
            expected_audience: BTreeSet::new(),
            expected_issuer: None,
            clock_skew_seconds: 30,
            scope_claim_name: "scope".into(),
            sub_claim_name: "sub".into(),
        }
    }
}

/// An accepted token (Kafka's `BasicOAuthBearerToken`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ValidatedToken {
    /// The subject claim, trimmed: the principal name.
    pub principal_name: String,
    /// `exp` in ms since the epoch.
    pub lifetime_ms: i64,
    /// `iat` in ms since the epoch.
    pub start_time_ms: Option<i64>,
    /// The scope claim's items.
    pub scope: BTreeSet<String>,
}

/// A NumericDate claim in whole seconds (fractions dropped, as jose4j
/// does); `Err` when it is not a number.
fn numeric_date(claims: &Map<String, Value>, name: &str) -> Result<Option<i64>, String> {
    match claims.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Number(n)) => Ok(Some(match n.as_i64() {
            Some(i) => i,
            None => n.as_f64().map(|f| f as i64).unwrap_or(i64::MAX),
        })),
        Some(_) => Err(format!(
            "The value of the '{name}' claim is not the expected type"
        )),
    }
}

fn check_string(name: &str, value: &str) -> Result<String, String> {
    if value.is_empty() {
        return Err(format!("{name} value must be non-empty"));
    }
    let trimmed = value.trim();
    if trimmed.is_empty() {
        return Err(format!("{name} value must not contain only whitespace"));
    }
    Ok(trimmed.to_owned())
}

impl ClaimRules {
    /// Checks the claims of a verified token at `now_ms`.
    pub fn check(
        &self,
        claims: &Map<String, Value>,
        now_ms: i64,
    ) -> Result<ValidatedToken, String> {
        let now = now_ms.div_euclid(1000);
        let skew = self.clock_skew_seconds;
        let exp = numeric_date(claims, "exp")?;
        let iat = numeric_date(claims, "iat")?;
        let nbf = numeric_date(claims, "nbf")?;
        let Some(exp) = exp else {
            return Err("No Expiration Time (exp) claim present.".into());
        };
        let Some(iat) = iat else {
            return Err("No Issued At (iat) claim present.".into());
        };
        if now.saturating_sub(skew) >= exp {
            return Err(format!(
                "The JWT is no longer valid - the evaluation time {now} is on or after the \
                 Expiration Time (exp={exp}) claim value (even when providing {skew} seconds of \
                 leeway to account for clock skew)."
            ));
        }
        if exp < iat {
            return Err(format!(
                "The Expiration Time (exp={exp}) claim value cannot be before the Issued At \
                 (iat={iat}) claim value."
            ));
        }
        if let Some(nbf) = nbf.filter(|nbf| exp < *nbf) {
            return Err(format!(
                "The Expiration Time (exp={exp}) claim value cannot be before the Not Before \
                 (nbf={nbf}) claim value."
            ));
        }
        if let Some(nbf) = nbf {
            if now.saturating_add(skew) < nbf {
                return Err(format!(
                    "The JWT is not yet valid as the evaluation time {now} is before the Not \
                     Before (nbf={nbf}) claim time (even when providing {skew} seconds of leeway \
                     to account for clock skew)."
                ));
            }
        }
        if !self.expected_audience.is_empty() {
            let audiences: Vec<&str> = match claims.get("aud") {
                None | Some(Value::Null) => return Err("No Audience (aud) claim present.".into()),
                Some(Value::String(a)) => vec![a.as_str()],
                Some(Value::Array(items)) => items
                    .iter()
                    .map(|i| {
                        i.as_str().ok_or_else(|| {
                            "The value of the 'aud' claim is not the expected type".to_owned()
                        })
                    })
                    .collect::<Result<_, _>>()?,
                Some(_) => {
                    return Err("The value of the 'aud' claim is not the expected type".into())
                }
            };
            if !audiences
                .iter()
                .any(|a| self.expected_audience.contains(*a))
            {
                return Err(format!(
                    "Audience (aud) claim {audiences:?} doesn't contain an acceptable identifier. \
                     Expected one of {:?} as an aud value.",
                    self.expected_audience
                ));
            }
        }
        if let Some(expected) = &self.expected_issuer {
            match claims.get("iss") {
                None | Some(Value::Null) => return Err("No Issuer (iss) claim present.".into()),
                Some(Value::String(iss)) if iss == expected => {}
                Some(Value::String(iss)) => {
                    let reason = format!("Issuer (iss) claim value ({iss}) doesn't match");
                    return Err(format!("{reason} expected value of {expected}"));
                }
                Some(_) => {
                    return Err("The value of the 'iss' claim is not the expected type".into())
                }
            }
        }
        let scope_name = &self.scope_claim_name;
        let raw_scope: Vec<&Value> = match claims.get(scope_name) {
            Some(Value::String(_)) => claims.get(scope_name).into_iter().collect(),
            Some(Value::Array(items)) => items.iter().collect(),
            _ => Vec::new(),
        };
        let mut scope = BTreeSet::new();
        for item in raw_scope {
            let Some(text) = item.as_str() else {
                return Err(format!("{scope_name} value must hold only text"));
            };
            let text = check_string(scope_name, text)?;
            if !scope.insert(text.clone()) {
                return Err(format!(
                    "{scope_name} value must not contain duplicates - {text} already present"
                ));
            }
        }
        let sub_name = &self.sub_claim_name;
        let principal_name = match claims.get(sub_name) {
            None | Some(Value::Null) => return Err(format!("{sub_name} value must be non-null")),
            Some(Value::String(s)) => check_string(sub_name, s)?,
            Some(_) => {
                return Err(format!(
                    "Could not extract the '{sub_name}' claim from the access token"
                ))
            }
        };
        if exp < 0 {
            return Err(format!(
                "exp value must be non-negative; value given was \"{}\"",
                exp.saturating_mul(1000)
            ));
        }
        if iat < 0 {
            return Err(format!(
                "iat value must be null or non-negative; value given was \"{}\"",
                iat.saturating_mul(1000)
            ));
        }
        Ok(ValidatedToken {
            principal_name,
            lifetime_ms: exp.saturating_mul(1000),
            start_time_ms: Some(iat.saturating_mul(1000)),
            scope,
        })
    }
}
