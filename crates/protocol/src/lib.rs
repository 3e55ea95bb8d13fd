//! The Kafka wire protocol as the KRaft metadata quorum speaks it.
//!
//! * [`wire`]: primitive readers and writers (ints, varints, compact and
//!   classic strings, bytes and arrays, UUIDs, tagged fields).
//! * [`messages`]: every request, response, header and record, generated from
//!   `schemas/*.json` by `cargo xtask codegen` (never edited by hand).
//! * [`ApiKey`]: API keys with the version ranges this implementation supports.
//! * [`MetadataRecordType`] / [`MetadataRecordBody`]: every metadata record
//!   type, and decoding / encoding of a framed metadata record value
//!   ([`records::MetadataRecordError`] for unknown types and versions).
//! * [`acl`]: Kafka's ACL enums (operation, permission, resource and pattern
//!   types, with their codes and names) and [`acl::KafkaPrincipal`].
#![cfg_attr(doctest, doc = include_str!("../README.md"))]

pub mod acl;
pub mod error;
pub mod error_code;
pub mod features;
pub mod frame;
pub mod header;
pub mod java_hash_map;
#[cfg(feature = "json")]
pub mod json;
pub mod kafka_api_keys;
pub mod kafka_uuid;
pub mod list;
pub mod message;
pub mod records;
#[cfg(feature = "sample")]
pub mod sample;
pub mod str_bytes;
pub mod text;
pub mod wire;

#[rustfmt::skip]
mod generated;

pub use error::{DecodeError, EncodeError};
pub use error_code::ErrorCode;
pub use generated::api_key::{ApiKey, RequestBody, ResponseBody};
pub use generated::metadata_record::{MetadataRecordBody, MetadataRecordType};
pub use list::{Element, List};
pub use message::{Decodable, Encodable, Message, Record, Request};
pub use str_bytes::StrBytes;
pub use uuid::Uuid;
pub use wire::{RawTaggedField, RawTaggedFields};

/// Every generated message, one module per schema file.
pub mod messages {
    pub use crate::generated::*;
}
