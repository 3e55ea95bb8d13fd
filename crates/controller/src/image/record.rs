//! [`MetadataRecord`]: one metadata record and the version it is written at.

use bytes::Bytes;
use kraft_protocol::messages::feature_level_record::FeatureLevelRecord;
use kraft_protocol::messages::no_op_record::NoOpRecord;
use kraft_protocol::records::MetadataRecordError;
use kraft_protocol::{EncodeError, MetadataRecordBody, MetadataRecordType};

/// A metadata record (any of Kafka 4.4's record types) and its version:
/// Kafka's `ApiMessageAndVersion`.
#[derive(Debug, Clone, PartialEq)]
pub struct MetadataRecord {
    /// The record.
    pub body: MetadataRecordBody,
    /// The schema version it was read at, or is to be written at.
    pub version: i16,
}

impl MetadataRecord {
    /// A record at `version`.
    pub fn new(body: impl Into<MetadataRecordBody>, version: i16) -> Self {
        MetadataRecord {
            body: body.into(),
            version,
        }
    }

    /// Decodes a framed metadata record value (Kafka's `MetadataRecordSerde`).
    /// A type or version this implementation does not know is an error that
    /// names them ([`MetadataRecordError::header`]).
    pub fn decode(value: Bytes) -> Result<MetadataRecord, MetadataRecordError> {
        let (header, body) = MetadataRecordBody::decode(value)?;
        Ok(MetadataRecord {
            body,
            version: header.version,
        })
    }

    /// The framed value at this record's version.
    pub fn encode(&self) -> Result<Vec<u8>, EncodeError> {
        self.body.encode(self.version)
    }

    /// The record type.
    pub fn record_type(&self) -> MetadataRecordType {
        self.body.record_type()
    }

    /// A `FeatureLevelRecord` (version 0, the only one).
    pub fn feature_level(name: &str, level: i16) -> MetadataRecord {
        MetadataRecord::new(
            FeatureLevelRecord {
                name: name.into(),
                feature_level: level,
                ..Default::default()
            },
            0,
        )
    }

    /// A `NoOpRecord` (version 0).
    pub fn no_op() -> MetadataRecord {
        MetadataRecord::new(NoOpRecord::default(), 0)
    }
}
