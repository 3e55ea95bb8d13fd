//! Kafka's text form of UUIDs (re-exported from `kraft-protocol`):
//! unpadded URL-safe base64 of the 16 bytes (`AAAAAAAAAAAAAAAAAAAAAA` is
//! the zero UUID).

pub use kraft_protocol::kafka_uuid::{parse, to_string};
