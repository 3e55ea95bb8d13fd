//! `kraft storage format --add-scram` (Kafka 4.4's `ScramParser`): SCRAM
//! credentials written with the bootstrap records.
//!
//! Each argument is `MECHANISM=[key=value,...]`, e.g.
//! `SCRAM-SHA-256=[name=alice,password=alice-secret]` or
//! `SCRAM-SHA-512=[name=alice,iterations=8192,salt="N3E=",saltedpassword="YCE="]`:
//!
//! * the argument is trimmed (Java's `String.trim`); the mechanism is the
//!   text before the first `=` and must be `SCRAM-SHA-256` or
//!   `SCRAM-SHA-512`; the rest must be enclosed in `[` `]`;
//! * the inside is split at `,` as Java's `String.split` does (trailing
//!   empty parts dropped); each part is `key=value` split at its first `=`,
//!   keys and values not trimmed, a value of two characters or more
//!   enclosed in `"` loses them; a key given twice keeps its last value;
//! * `name` is required (it may be empty); `salt` and `saltedpassword` are
//!   base64 (Java's basic decoder: no line breaks, padding optional but
//!   complete when present); `iterations` is a Java `int` (default 4096,
//!   4096..=16384 for both mechanisms); one of `password` or
//!   `saltedpassword` is required, `saltedpassword` needs `salt`, and with
//!   both `password` wins and `saltedpassword` is ignored; any other key is
//!   refused.
//!
//! Each argument becomes a `UserScramCredentialRecord` (v0) with the salt
//! (given, or Kafka's random salt: the UTF-8 digits of a random 130-bit
//! number in base 36), the iterations, and the stored and server keys
//! derived from the salted password (given, or PBKDF2-HMAC of the password,
//! Kafka's `Hi`) as the AlterUserScramCredentials handler derives them.
//! The arguments are taken in order, each parsed and turned into its record
//! before the next is looked at, so the first failure is Kafka's.
//!
//! A password never appears in an error message, a log line or `Debug`
//! output. Kafka's messages do quote other parts of a bad argument (the
//! whole argument when it has no `=`, a component without `=`, unknown
//! keys, a salt or salted password that is not base64); so do these. A
//! password cannot hold a `,`: Kafka's parser splits it there, and the
//! piece after the comma becomes such a component or key.
//!
//! Kafka takes `--add-scram` on brokers too (parsed, nothing written:
//! brokers write no bootstrap checkpoint); kraft-rs formats controllers only.

use std::fmt;

use base64::alphabet;
use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
use base64::Engine;
use bytes::Bytes;
use kraft_protocol::messages::user_scram_credential_record::UserScramCredentialRecord;
use sha2::{Sha256, Sha512};

use crate::format::FormatError;
use crate::handlers::scram::{derive_keys, ScramMechanism, MAX_ITERATIONS, MIN_ITERATIONS};
use crate::image::{MetadataRecord, ScramImage};

/// The iterations of a credential that does not give `iterations`
/// (Kafka's `PerMechanismData.iterations`).
pub const DEFAULT_ITERATIONS: i32 = 4096;

fn invalid(msg: impl Into<String>) -> FormatError {
    FormatError::Invalid(msg.into())
}

/// Java's `String.trim`: strips every char up to U+0020 at both ends.
fn java_trim(s: &str) -> &str {
    s.trim_matches(|c: char| c <= ' ')
}

/// Java's `String.split(",")`: no separator gives the whole string (even
/// empty); otherwise the parts, trailing empty ones dropped.
fn java_split_commas(s: &str) -> Vec<&str> {
    let mut parts: Vec<&str> = s.split(',').collect();
    if parts.len() > 1 {
        while parts.last() == Some(&"") {
            parts.pop();
        }
    }
    parts
}

/// The mechanism of a SASL mechanism name (Kafka's
/// `ScramMechanism.forMechanismName`: exact, case-sensitive).
pub fn mechanism_for_name(name: &str) -> Option<ScramMechanism> {
    match name {
        "SCRAM-SHA-256" => Some(ScramMechanism::Sha256),
        "SCRAM-SHA-512" => Some(ScramMechanism::Sha512),
        _ => None,
    }
}

/// The record's mechanism code (Kafka's `ScramMechanism.type`).
fn mechanism_type(mechanism: ScramMechanism) -> i8 {
    match mechanism {
        ScramMechanism::Sha256 => ScramImage::SCRAM_SHA_256,
        ScramMechanism::Sha512 => ScramImage::SCRAM_SHA_512,
    }
}

/// Kafka's `ScramParser.parsePerMechanismArgument`: the mechanism and the
/// text inside the brackets.
pub fn parse_mechanism_argument(input: &str) -> Result<(ScramMechanism, &str), FormatError> {
    let input = java_trim(input);
    let Some(eq) = input.find('=') else {
        return Err(invalid(format!(
            "Failed to find equals sign in SCRAM argument '{input}'"
        )));
    };
    let (name, config) = (&input[..eq], &input[eq + 1..]);
    let mechanism = mechanism_for_name(name)
        .ok_or_else(|| invalid(format!("The add-scram mechanism {name} is not supported.")))?;
    let Some(config) = config.strip_prefix('[') else {
        return Err(invalid("Expected configuration string to start with ["));
    };
    // `[` alone: Java's endsWith("]") fails, as here.
    let Some(config) = config.strip_suffix(']') else {
        return Err(invalid("Expected configuration string to end with ]"));
    };
    Ok((mechanism, config))
}

/// Kafka's `ScramParser.splitTrimmedConfigStringComponent`: `key=value`
/// at the first `=`, a quoted value (two characters or more) unquoted.
/// Despite Kafka's name, nothing is trimmed.
pub fn split_component(input: &str) -> Result<(&str, &str), FormatError> {
    let Some(eq) = input.find('=') else {
        return Err(invalid(format!(
            "No equals sign found in SCRAM component: {input}"
        )));
    };
    let value = &input[eq + 1..];
    let value = if value.len() >= 2 && value.starts_with('"') && value.ends_with('"') {
        &value[1..value.len() - 1]
    } else {
        value
    };
    Ok((&input[..eq], value))
}

/// Java's `Base64.getDecoder().decode`: the standard alphabet, no
/// whitespace, padding either absent or complete, trailing bits ignored.
fn java_base64_decode(text: &str) -> Option<Vec<u8>> {
    let mode = if text.contains('=') {
        DecodePaddingMode::RequireCanonical
    } else {
        DecodePaddingMode::RequireNone
    };
    let config = GeneralPurposeConfig::new()
        .with_decode_allow_trailing_bits(true)
        .with_decode_padding_mode(mode);
    GeneralPurpose::new(&alphabet::STANDARD, config)
        .decode(text)
        .ok()
}

/// One `--add-scram` argument (Kafka's `ScramParser.PerMechanismData`).
/// Its `Debug` output hides the password and the salted password.
#[derive(Clone, PartialEq, Eq)]
pub struct ScramArgument {
    /// The mechanism.
    pub mechanism: ScramMechanism,
    /// `name`.
    pub name: String,
    /// `salt`, decoded.
    pub salt: Option<Vec<u8>>,
    /// `iterations`.
    pub iterations: Option<i32>,
    /// `password`.
    password: Option<String>,
    /// `saltedpassword`, decoded (only when there is no `password`).
    salted_password: Option<Vec<u8>>,
}

impl fmt::Debug for ScramArgument {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let hidden = |present: bool| if present { "Some([hidden])" } else { "None" };
        f.debug_struct("ScramArgument")
            .field("mechanism", &self.mechanism)
            .field("name", &self.name)
            .field("salt", &self.salt)
            .field("iterations", &self.iterations)
            .field(
                "password",
                &format_args!("{}", hidden(self.password.is_some())),
            )
            .field(
                "salted_password",
                &format_args!("{}", hidden(self.salted_password.is_some())),
            )
            .finish()
    }
}

impl ScramArgument {
    /// An argument with a password (for tests and embedders).
    pub fn with_password(
        mechanism: ScramMechanism,
        name: &str,
        salt: Option<Vec<u8>>,
        iterations: Option<i32>,
        password: &str,
    ) -> ScramArgument {
        ScramArgument {
            mechanism,
            name: name.to_string(),
            salt,
            iterations,
            password: Some(password.to_string()),
            salted_password: None,
        }
    }

    /// An argument with a salt and a salted password.
    pub fn with_salted_password(
        mechanism: ScramMechanism,
        name: &str,
        salt: Vec<u8>,
        iterations: Option<i32>,
        salted_password: Vec<u8>,
    ) -> ScramArgument {
        ScramArgument {
            mechanism,
            name: name.to_string(),
            salt: Some(salt),
            iterations,
            password: None,
            salted_password: Some(salted_password),
        }
    }

    /// Parses the text inside the brackets (Kafka's `PerMechanismData`
    /// constructor, with its checks in its order).
    pub fn parse(mechanism: ScramMechanism, config: &str) -> Result<ScramArgument, FormatError> {
        let mut components: Vec<(&str, &str)> = Vec::new();
        for part in java_split_commas(config) {
            let (key, value) = split_component(part)?;
            components.retain(|(k, _)| *k != key);
            components.push((key, value));
        }
        let mut take = |key: &str| {
            let i = components.iter().position(|(k, _)| *k == key)?;
            Some(components.remove(i).1)
        };
        let name = take("name").ok_or_else(|| invalid("You must supply 'name' to add-scram"))?;
        let salt = match take("salt") {
            None => None,
            Some(s) => Some(
                java_base64_decode(s)
                    .ok_or_else(|| invalid(format!("Failed to decode given salt: {s}")))?,
            ),
        };
        let iterations = match take("iterations") {
            None => None,
            Some(s) => Some(
                s.parse::<i32>()
                    .map_err(|_| invalid(format!("Failed to parse iterations count: {s}")))?,
            ),
        };
        let password = take("password");
        let salted = take("saltedpassword");
        let (password, salted_password) = match (password, salted) {
            (Some(p), _) => (Some(p.to_string()), None),
            (None, None) => {
                return Err(invalid(
                    "You must supply one of 'password' or 'saltedpassword' to add-scram",
                ))
            }
            (None, Some(_)) if salt.is_none() => {
                return Err(invalid(
                    "You must supply 'salt' with 'saltedpassword' to add-scram",
                ))
            }
            (None, Some(s)) => (
                None,
                Some(java_base64_decode(s).ok_or_else(|| {
                    invalid(format!("Failed to decode given saltedPassword: {s}"))
                })?),
            ),
        };
        if !components.is_empty() {
            // Kafka's TreeMap<String, _>: Java (UTF-16) string order.
            let mut keys: Vec<&str> = components.iter().map(|(k, _)| *k).collect();
            keys.sort_by(|a, b| a.encode_utf16().cmp(b.encode_utf16()));
            return Err(invalid(format!(
                "Unknown SCRAM configurations: {}",
                keys.join(", ")
            )));
        }
        Ok(ScramArgument {
            mechanism,
            name: name.to_string(),
            salt,
            iterations,
            password,
            salted_password,
        })
    }

    /// The salt: the given one, or a new random one ([`random_salt`]).
    pub fn salt(&self) -> Result<Vec<u8>, FormatError> {
        match &self.salt {
            Some(s) => Ok(s.clone()),
            None => random_salt(),
        }
    }

    /// The iterations: the given count or [`DEFAULT_ITERATIONS`].
    pub fn iterations(&self) -> i32 {
        self.iterations.unwrap_or(DEFAULT_ITERATIONS)
    }

    /// The salted password: the given one, or `Hi(password, salt,
    /// iterations)` (PBKDF2 with the mechanism's HMAC, one block). An empty
    /// password is refused as Java's `SecretKeySpec` refuses an empty key.
    fn salted_password(&self, salt: &[u8], iterations: u32) -> Result<Vec<u8>, FormatError> {
        if let Some(s) = &self.salted_password {
            return Ok(s.clone());
        }
        let password = self.password.as_deref().unwrap_or_default().as_bytes();
        if password.is_empty() {
            return Err(empty_key());
        }
        Ok(match self.mechanism {
            ScramMechanism::Sha256 => {
                let mut out = vec![0u8; 32];
                pbkdf2::pbkdf2_hmac::<Sha256>(password, salt, iterations, &mut out);
                out
            }
            ScramMechanism::Sha512 => {
                let mut out = vec![0u8; 64];
                pbkdf2::pbkdf2_hmac::<Sha512>(password, salt, iterations, &mut out);
                out
            }
        })
    }

    /// The credential record (Kafka's `PerMechanismData.toRecord`).
    pub fn to_record(&self) -> Result<UserScramCredentialRecord, FormatError> {
        let salt = self.salt()?;
        let iterations = self.iterations();
        let using = ScramImage::mechanism_name(mechanism_type(self.mechanism));
        if iterations < MIN_ITERATIONS {
            return Err(invalid(format!(
                "The 'iterations' value must be >= {MIN_ITERATIONS} for add-scram using {using}"
            )));
        }
        if iterations > MAX_ITERATIONS {
            return Err(invalid(format!(
                "The 'iterations' value must be <= {MAX_ITERATIONS} for add-scram using {using}"
            )));
        }
        // In range, so positive.
        let rounds = u32::try_from(iterations).unwrap_or_default();
        let salted = self.salted_password(&salt, rounds)?;
        // derive_keys refuses only an empty salted password.
        let (stored_key, server_key) =
            derive_keys(self.mechanism, &salted).map_err(|_| empty_key())?;
        Ok(UserScramCredentialRecord {
            name: self.name.clone().into(),
            mechanism: mechanism_type(self.mechanism),
            salt: Bytes::from(salt),
            stored_key,
            server_key,
            iterations,
            ..Default::default()
        })
    }
}

/// What Java's `SecretKeySpec` says of an empty HMAC key (Kafka's tool
/// fails with it, uncaught).
fn empty_key() -> FormatError {
    invalid("Empty key")
}

/// Kafka's `ScramFormatter.secureRandomBytes`: the UTF-8 text of a random
/// 130-bit number in base 36 (lower-case digits, no leading zeros, at most
/// 26 characters), as SCRAM nonces are made.
pub fn random_salt() -> Result<Vec<u8>, FormatError> {
    kraft_security::sasl::scram::secure_random_string()
        .map(String::into_bytes)
        .map_err(|e| FormatError::Io(format!("cannot draw a random salt: {e}")))
}

/// Kafka's `ScramParser.parse`: one `UserScramCredentialRecord` (v0) per
/// argument, in order.
pub fn scram_records(arguments: &[String]) -> Result<Vec<MetadataRecord>, FormatError> {
    let mut records = Vec::with_capacity(arguments.len());
    for argument in arguments {
        let (mechanism, config) = parse_mechanism_argument(argument)?;
        let record = ScramArgument::parse(mechanism, config)?.to_record()?;
        records.push(MetadataRecord::new(record, 0));
    }
    Ok(records)
}

/// Java's `Arrays.toString(byte[])`: signed decimal bytes, `[1, -2]`.
fn java_bytes_text(bytes: &[u8]) -> String {
    let parts: Vec<String> = bytes
        .iter()
        .map(|b| i8::from_ne_bytes([*b]).to_string())
        .collect();
    format!("[{}]", parts.join(", "))
}

/// The record as Kafka's generated `UserScramCredentialRecord.toString`
/// prints it (in the `Bootstrap metadata:` line).
pub fn record_text(r: &UserScramCredentialRecord) -> String {
    format!(
        "UserScramCredentialRecord(name='{}', mechanism={}, salt={}, storedKey={}, serverKey={}, iterations={})",
        &*r.name,
        r.mechanism,
        java_bytes_text(&r.salt),
        java_bytes_text(&r.stored_key),
        java_bytes_text(&r.server_key),
        r.iterations
    )
}

#[cfg(test)]
#[path = "format_scram_tests.rs"]
mod tests;
