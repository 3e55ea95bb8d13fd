//! The four SCRAM messages of [RFC 5802](https://tools.ietf.org/html/rfc5802),
//! parsed with the grammar Kafka's `ScramMessages` accepts.
//!
//! Kafka matches each message against a regular expression built from these
//! classes; the parsers below accept exactly the same strings:
//!
//! * `saslname`: ASCII `0x01..=0x7F` except `,` and `=`, or `=2C` / `=3D`;
//! * `value`: ASCII `0x01..=0x7F` except `,`;
//! * `printable` (nonces): `0x21..=0x7E` except `,`;
//! * `base64`: standard alphabet with padding, possibly empty;
//! * extensions: `,<letters>=<value>` repeated.
//!
//! Only the gs2 header `n` (no channel binding) is accepted.
//!
//! Each parsed message keeps its exact text, so that the SCRAM `AuthMessage`
//! is built from what the peer actually sent (RFC 5802). Kafka rebuilds it
//! from the parsed fields instead; for the messages Kafka's and other known
//! clients send, the two are the same bytes.

use std::collections::BTreeMap;
use std::fmt;

use base64::engine::general_purpose::{GeneralPurpose, GeneralPurposeConfig};
use base64::engine::DecodePaddingMode;
use base64::Engine;

/// Base64 as `java.util.Base64` reads and writes it: standard alphabet, with
/// padding, and (like Java's decoder) ignoring non-zero bits after the last
/// full byte.
pub(crate) const BASE64: GeneralPurpose = GeneralPurpose::new(
    &base64::alphabet::STANDARD,
    GeneralPurposeConfig::new()
        .with_encode_padding(true)
        .with_decode_padding_mode(DecodePaddingMode::RequireCanonical)
        .with_decode_allow_trailing_bits(true),
);

/// The SCRAM extension that asks for delegation token authentication.
pub const TOKEN_AUTH_EXTENSION: &str = "tokenauth";

/// A message that does not follow the SCRAM grammar.
///
/// Kafka appends the whole message to this text; it is left out here because
/// a misconfigured client can send a password where a SCRAM message belongs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InvalidScramMessage {
    /// What is wrong, e.g. `Invalid SCRAM client first message format`.
    pub reason: String,
}

impl fmt::Display for InvalidScramMessage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.reason)
    }
}

impl std::error::Error for InvalidScramMessage {}

fn invalid(reason: impl Into<String>) -> InvalidScramMessage {
    InvalidScramMessage {
        reason: reason.into(),
    }
}

fn is_value_char(c: u8) -> bool {
    (0x01..=0x7F).contains(&c) && c != b','
}

/// `value`: one or more of `0x01..=0x7F` except `,`.
fn is_value(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(is_value_char)
}

/// `value-safe` (server errors): `value` without `=`.
fn is_value_safe(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|c| is_value_char(c) && c != b'=')
}

/// `printable` (nonces): one or more of `0x21..=0x7E` except `,`.
fn is_printable(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|c| (0x21..=0x7E).contains(&c) && c != b',')
}

/// `saslname`: safe characters, `=2C` and `=3D`; at least one.
pub fn is_sasl_name(s: &str) -> bool {
    let b = s.as_bytes();
    if b.is_empty() {
        return false;
    }
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'=' {
            if b[i..].starts_with(b"=2C") || b[i..].starts_with(b"=3D") {
                i += 3;
            } else {
                return false;
            }
        } else if is_value_char(b[i]) {
            i += 1;
        } else {
            return false;
        }
    }
    true
}

/// `base64` as Kafka's pattern has it: groups of four, the last may end in
/// `=` or `==`; the empty string matches.
fn is_base64(s: &str) -> bool {
    let b = s.as_bytes();
    if !b.chunks_exact(4).remainder().is_empty() {
        return false;
    }
    let alpha = |c: u8| c.is_ascii_alphanumeric() || c == b'/' || c == b'+';
    for (n, group) in b.chunks(4).enumerate() {
        let last = n + 1 == b.len() / 4;
        let ok = match group {
            [a, b, c, d] if alpha(*a) && alpha(*b) && alpha(*c) && alpha(*d) => true,
            [a, b, c, b'='] if last && alpha(*a) && alpha(*b) && alpha(*c) => true,
            [a, b, b'=', b'='] if last && alpha(*a) && alpha(*b) => true,
            _ => false,
        };
        if !ok {
            return false;
        }
    }
    true
}

fn decode_base64(s: &str) -> Option<Vec<u8>> {
    if !is_base64(s) {
        return None;
    }
    BASE64.decode(s).ok()
}

/// An extension `<letters>=<value>`, split.
fn extension(segment: &str) -> Option<(&str, &str)> {
    let (name, value) = segment.split_once('=')?;
    if name.is_empty() || !name.bytes().all(|c| c.is_ascii_alphabetic()) || !is_value(value) {
        return None;
    }
    Some((name, value))
}

fn extensions<'a>(segments: impl Iterator<Item = &'a str>) -> Option<BTreeMap<String, String>> {
    let mut map = BTreeMap::new();
    for segment in segments {
        let (name, value) = extension(segment)?;
        map.insert(name.to_owned(), value.to_owned());
    }
    Some(map)
}

/// The client's first message:
/// `gs2-header [reserved-mext ","] username "," nonce ["," extensions]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClientFirstMessage {
    /// The `a=` authorization id of the gs2 header, empty when absent.
    pub authorization_id: String,
    /// The user name in its `saslname` form (`,` as `=2C`, `=` as `=3D`).
    pub sasl_name: String,
    /// The client nonce.
    pub nonce: String,
    /// The extensions (e.g. `tokenauth=true`).
    pub extensions: BTreeMap<String, String>,
    /// `client-first-message-bare`: the message after the gs2 header.
    bare: String,
}

impl ClientFirstMessage {
    /// A message without authorization id. Extensions are written in name order.
    pub fn new(sasl_name: &str, nonce: &str, extensions: BTreeMap<String, String>) -> Self {
        let mut bare = format!("n={sasl_name},r={nonce}");
        for (name, value) in &extensions {
            bare.push(',');
            bare.push_str(name);
            bare.push('=');
            bare.push_str(value);
        }
        ClientFirstMessage {
            authorization_id: String::new(),
            sasl_name: sasl_name.to_owned(),
            nonce: nonce.to_owned(),
            extensions,
            bare,
        }
    }

    /// Parses a client first message.
    pub fn parse(message: &[u8]) -> Result<Self, InvalidScramMessage> {
        let err = || invalid("Invalid SCRAM client first message format");
        let text = std::str::from_utf8(message).map_err(|_| err())?;
        let rest = text.strip_prefix("n,").ok_or_else(err)?;
        let (authz, bare) = rest.split_once(',').ok_or_else(err)?;
        let authorization_id = if authz.is_empty() {
            String::new()
        } else {
            match authz.strip_prefix("a=") {
                Some(a) if is_sasl_name(a) => a.to_owned(),
                _ => return Err(err()),
            }
        };
        let mut segments = bare.split(',').peekable();
        if let Some(reserved) = segments.peek().and_then(|s| s.strip_prefix("m=")) {
            if !is_value(reserved) {
                return Err(err());
            }
            segments.next();
        }
        let sasl_name = segments
            .next()
            .and_then(|s| s.strip_prefix("n="))
            .filter(|s| is_sasl_name(s))
            .ok_or_else(err)?;
        let nonce = segments
            .next()
            .and_then(|s| s.strip_prefix("r="))
            .filter(|s| is_printable(s))
            .ok_or_else(err)?;
        let extensions = extensions(segments).ok_or_else(err)?;
        Ok(ClientFirstMessage {
            authorization_id,
            sasl_name: sasl_name.to_owned(),
            nonce: nonce.to_owned(),
            extensions,
            bare: bare.to_owned(),
        })
    }

    /// The gs2 header: `n,,`, or `n,a=<authzid>,` with an authorization id.
    pub fn gs2_header(&self) -> String {
        if self.authorization_id.is_empty() {
            "n,,".to_owned()
        } else {
            format!("n,a={},", self.authorization_id)
        }
    }

    /// `client-first-message-bare`, as sent.
    pub fn bare(&self) -> &str {
        &self.bare
    }

    /// Whether the `tokenauth` extension is `true` (any case, as Java's
    /// `Boolean.parseBoolean`).
    pub fn token_authenticated(&self) -> bool {
        self.extensions
            .get(TOKEN_AUTH_EXTENSION)
            .is_some_and(|v| v.eq_ignore_ascii_case("true"))
    }

    /// The whole message.
    pub fn to_message(&self) -> String {
        format!("{}{}", self.gs2_header(), self.bare)
    }
}

/// The server's first message:
/// `[reserved-mext ","] nonce "," salt "," iteration-count ["," extensions]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerFirstMessage {
    /// Client nonce followed by server nonce.
    pub nonce: String,
    /// The salt.
    pub salt: Vec<u8>,
    /// The iteration count (positive).
    pub iterations: i32,
    text: String,
}

impl ServerFirstMessage {
    /// The message a server sends.
    pub fn new(client_nonce: &str, server_nonce: &str, salt: &[u8], iterations: i32) -> Self {
        let nonce = format!("{client_nonce}{server_nonce}");
        let text = format!("r={nonce},s={},i={iterations}", BASE64.encode(salt));
        ServerFirstMessage {
            nonce,
            salt: salt.to_vec(),
            iterations,
            text,
        }
    }

    /// Parses a server first message.
    pub fn parse(message: &[u8]) -> Result<Self, InvalidScramMessage> {
        let err = || invalid("Invalid SCRAM server first message format");
        let text = std::str::from_utf8(message).map_err(|_| err())?;
        let mut segments = text.split(',').peekable();
        if let Some(reserved) = segments.peek().and_then(|s| s.strip_prefix("m=")) {
            if !is_value(reserved) {
                return Err(err());
            }
            segments.next();
        }
        let nonce = segments
            .next()
            .and_then(|s| s.strip_prefix("r="))
            .filter(|s| is_printable(s))
            .ok_or_else(err)?;
        let salt = segments
            .next()
            .and_then(|s| s.strip_prefix("s="))
            .and_then(decode_base64)
            .ok_or_else(err)?;
        let iterations = segments
            .next()
            .and_then(|s| s.strip_prefix("i="))
            .filter(|s| !s.is_empty() && s.bytes().all(|c| c.is_ascii_digit()))
            .ok_or_else(err)?;
        extensions(segments).ok_or_else(err)?;
        let iterations: i32 = iterations.parse().map_err(|_| {
            invalid("Invalid SCRAM server first message format: invalid iterations")
        })?;
        if iterations <= 0 {
            return Err(invalid(format!(
                "Invalid SCRAM server first message format: invalid iterations {iterations}"
            )));
        }
        Ok(ServerFirstMessage {
            nonce: nonce.to_owned(),
            salt,
            iterations,
            text: text.to_owned(),
        })
    }

    /// The message, as sent.
    pub fn to_message(&self) -> &str {
        &self.text
    }
}

/// The client's final message:
/// `channel-binding "," nonce ["," extensions] "," proof`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClientFinalMessage {
    /// The decoded channel binding (`c=`): the gs2 header, as only `n` is supported.
    pub channel_binding: Vec<u8>,
    /// The combined nonce.
    pub nonce: String,
    /// The client proof.
    pub proof: Vec<u8>,
    without_proof: String,
}

impl ClientFinalMessage {
    /// The message a client sends, with its proof.
    pub fn new(channel_binding: &[u8], nonce: &str, proof: Vec<u8>) -> Self {
        ClientFinalMessage {
            channel_binding: channel_binding.to_vec(),
            nonce: nonce.to_owned(),
            proof,
            without_proof: Self::without_proof_for(channel_binding, nonce),
        }
    }

    /// `client-final-message-without-proof` for these values: `c=<base64>,r=<nonce>`.
    pub fn without_proof_for(channel_binding: &[u8], nonce: &str) -> String {
        format!("c={},r={nonce}", BASE64.encode(channel_binding))
    }

    /// Parses a client final message.
    pub fn parse(message: &[u8]) -> Result<Self, InvalidScramMessage> {
        let err = || invalid("Invalid SCRAM client final message format");
        let text = std::str::from_utf8(message).map_err(|_| err())?;
        let (without_proof, proof) = text.rsplit_once(",p=").ok_or_else(err)?;
        let proof = decode_base64(proof).ok_or_else(err)?;
        let mut segments = without_proof.split(',');
        let channel_binding = segments
            .next()
            .and_then(|s| s.strip_prefix("c="))
            .and_then(decode_base64)
            .ok_or_else(err)?;
        let nonce = segments
            .next()
            .and_then(|s| s.strip_prefix("r="))
            .filter(|s| is_printable(s))
            .ok_or_else(err)?;
        extensions(segments).ok_or_else(err)?;
        Ok(ClientFinalMessage {
            channel_binding,
            nonce: nonce.to_owned(),
            proof,
            without_proof: without_proof.to_owned(),
        })
    }

    /// `client-final-message-without-proof`, as sent.
    pub fn without_proof(&self) -> &str {
        &self.without_proof
    }

    /// The whole message.
    pub fn to_message(&self) -> String {
        format!("{},p={}", self.without_proof, BASE64.encode(&self.proof))
    }
}

/// The server's final message: `e=<error>` or `v=<signature> ["," extensions]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ServerFinalMessage {
    /// `e=`: the server refused.
    Error(String),
    /// `v=`: the server signature.
    Signature(Vec<u8>),
}

impl ServerFinalMessage {
    /// Parses a server final message.
    pub fn parse(message: &[u8]) -> Result<Self, InvalidScramMessage> {
        let err = || invalid("Invalid SCRAM server final message format");
        let text = std::str::from_utf8(message).map_err(|_| err())?;
        if let Some(error) = text.strip_prefix("e=") {
            if is_value_safe(error) {
                return Ok(ServerFinalMessage::Error(error.to_owned()));
            }
            return Err(err());
        }
        let mut segments = text.split(',');
        let signature = segments
            .next()
            .and_then(|s| s.strip_prefix("v="))
            .and_then(decode_base64)
            .ok_or_else(err)?;
        extensions(segments).ok_or_else(err)?;
        Ok(ServerFinalMessage::Signature(signature))
    }

    /// The whole message.
    pub fn to_message(&self) -> String {
        match self {
            ServerFinalMessage::Error(e) => format!("e={e}"),
            ServerFinalMessage::Signature(s) => format!("v={}", BASE64.encode(s)),
        }
    }
}
