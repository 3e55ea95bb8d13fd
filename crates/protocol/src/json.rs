//! Rendering of messages as JSON exactly as Kafka's generated
//! `*JsonConverter.write(message, version, serializeRecords)` does it: field
//! names in camelCase, fields absent from the version left out, tagged fields
//! only when they differ from their default, UUIDs in Kafka's base64 text form,
//! bytes as standard base64 and records as `<name>SizeInBytes` (or an empty
//! string when records are "serialized", as Kafka writes them).

use base64::Engine;
use uuid::Uuid;

/// Conversion to Kafka's JSON rendering of a message at a version.
pub trait ToKafkaJson {
    /// The JSON value Kafka's converter produces for this value at `version`.
    fn to_kafka_json(&self, version: i16, serialize_records: bool) -> serde_json::Value;
}

/// Kafka's text form of a UUID: unpadded URL-safe base64 of its 16 bytes.
pub fn uuid_text(u: &Uuid) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(u.as_bytes())
}

/// Parses Kafka's text form of a UUID.
pub fn parse_uuid_text(s: &str) -> Option<Uuid> {
    let b = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(s.as_bytes())
        .ok()?;
    Some(Uuid::from_bytes(b.try_into().ok()?))
}

/// Standard padded base64, as Jackson renders a binary node.
pub fn base64(b: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(b)
}
