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

/// Kafka's text form of a UUID (see [`crate::kafka_uuid`]).
pub use crate::kafka_uuid::to_string as uuid_text;

/// Parses Kafka's text form of a UUID, `None` when it is not one.
pub fn parse_uuid_text(s: &str) -> Option<Uuid> {
    crate::kafka_uuid::parse(s).ok()
}

/// Standard padded base64, as Jackson renders a binary node.
pub fn base64(b: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(b)
}
