//! Framing of metadata (data) record values (Kafka's `AbstractApiMessageSerde`).
//!
//! A metadata record value is `uvarint frameVersion (1)`, `uvarint apiKey`,
//! `uvarint version`, then the record body at that version. The bodies come
//! from the generated messages; the helpers below handle the frame, and
//! [`MetadataRecordBody::decode`] / [`MetadataRecordBody::encode`] a whole
//! framed value of any known record type.

use bytes::{BufMut, Bytes};

use crate::generated::metadata_record::{MetadataRecordBody, MetadataRecordType};
use crate::wire::{get_uvarint, put_uvarint, uvarint_len};
use crate::{DecodeError, EncodeError};

/// The only metadata record frame version Kafka writes and accepts.
pub const METADATA_FRAME_VERSION: u32 = 1;

/// The frame in front of a metadata record body.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct MetadataRecordHeader {
    /// The record type (e.g. 12 = FeatureLevelRecord, 29 = UnregisterControllerRecord).
    pub api_key: i16,
    /// The record schema version the body is written in.
    pub version: i16,
}

/// Writes the frame (`1`, `api_key`, `version` as unsigned varints).
/// `api_key` and `version` are non-negative for every Kafka record.
pub fn encode_metadata_record_header<B: BufMut>(buf: &mut B, api_key: i16, version: i16) {
    put_uvarint(buf, METADATA_FRAME_VERSION);
    put_uvarint(buf, u32::from(api_key as u16));
    put_uvarint(buf, u32::from(version as u16));
}

/// Encoded size of the frame written by [`encode_metadata_record_header`].
pub const fn metadata_record_header_len(api_key: i16, version: i16) -> usize {
    uvarint_len(METADATA_FRAME_VERSION)
        + uvarint_len(api_key as u16 as u32)
        + uvarint_len(version as u16 as u32)
}

fn read_short(buf: &mut Bytes, what: &str) -> Result<i16, DecodeError> {
    let v = get_uvarint(buf)?;
    if v > i16::MAX as u32 {
        return Err(DecodeError::InvalidRecords(format!(
            "metadata record {what} {v} is too large"
        )));
    }
    Ok(v as i16)
}

/// Reads the frame and leaves `buf` at the start of the record body.
/// Frame version 0 (the KRaft 2.8 preview format) and any version other than
/// 1 are rejected, as are keys and versions above 32767.
pub fn decode_metadata_record_header(buf: &mut Bytes) -> Result<MetadataRecordHeader, DecodeError> {
    let frame_version = read_short(buf, "frame version")?;
    if frame_version == 0 {
        return Err(DecodeError::InvalidRecords(
            "metadata record frame version 0 (the 2.8 KRaft preview format) is not supported"
                .to_string(),
        ));
    }
    if frame_version as u32 != METADATA_FRAME_VERSION {
        return Err(DecodeError::InvalidRecords(format!(
            "unknown metadata record frame version {frame_version} (only {METADATA_FRAME_VERSION} is supported)"
        )));
    }
    let api_key = read_short(buf, "type")?;
    let version = read_short(buf, "version")?;
    Ok(MetadataRecordHeader { api_key, version })
}

/// Why a framed metadata record value could not be decoded. A record of a
/// type or version this implementation does not know is reported with its
/// frame, never skipped.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MetadataRecordError {
    /// The frame names a record type this implementation does not know.
    #[error("unknown metadata record type {} (version {})", .0.api_key, .0.version)]
    UnknownType(MetadataRecordHeader),
    /// The record type is known but the version is outside its known range.
    #[error(
        "{} (type {}) version {version} is outside the known versions {}-{}",
        .record_type.name(),
        .record_type.id(),
        .record_type.lowest_version(),
        .record_type.highest_version()
    )]
    UnsupportedVersion {
        /// The record type.
        record_type: MetadataRecordType,
        /// The version in the frame.
        version: i16,
    },
    /// The frame or the body is malformed, or bytes follow the body.
    #[error(transparent)]
    Decode(#[from] DecodeError),
}

impl MetadataRecordError {
    /// The frame of a record whose type or version is unknown.
    pub fn header(&self) -> Option<MetadataRecordHeader> {
        match self {
            MetadataRecordError::UnknownType(header) => Some(*header),
            MetadataRecordError::UnsupportedVersion {
                record_type,
                version,
            } => Some(MetadataRecordHeader {
                api_key: record_type.id(),
                version: *version,
            }),
            MetadataRecordError::Decode(_) => None,
        }
    }
}

impl MetadataRecordBody {
    /// Decodes a whole framed metadata record value: the frame, then the body
    /// of the type and version it names, which must end the value (as Kafka's
    /// `MetadataRecordSerde` requires).
    pub fn decode(
        mut value: Bytes,
    ) -> Result<(MetadataRecordHeader, MetadataRecordBody), MetadataRecordError> {
        let header = decode_metadata_record_header(&mut value)?;
        let record_type = MetadataRecordType::from_i16(header.api_key)
            .ok_or(MetadataRecordError::UnknownType(header))?;
        if !record_type.is_valid_version(header.version) {
            return Err(MetadataRecordError::UnsupportedVersion {
                record_type,
                version: header.version,
            });
        }
        let body = MetadataRecordBody::decode_body(record_type, header.version, &mut value)?;
        if !value.is_empty() {
            return Err(DecodeError::TrailingBytes(value.len()).into());
        }
        Ok((header, body))
    }

    /// Writes the framed value (frame, then body) at `version`.
    pub fn encode_into<B: BufMut>(&self, buf: &mut B, version: i16) -> Result<(), EncodeError> {
        let record_type = self.record_type();
        if !record_type.is_valid_version(version) {
            return Err(EncodeError::UnsupportedVersion {
                message: record_type.name(),
                version,
            });
        }
        encode_metadata_record_header(buf, record_type.id(), version);
        self.encode_body(buf, version)
    }

    /// The framed value (frame, then body) at `version`, as written by
    /// Kafka's `MetadataRecordSerde`.
    pub fn encode(&self, version: i16) -> Result<Vec<u8>, EncodeError> {
        let mut out = Vec::with_capacity(self.encoded_len(version));
        self.encode_into(&mut out, version)?;
        Ok(out)
    }

    /// Size of the framed value at `version`.
    pub fn encoded_len(&self, version: i16) -> usize {
        metadata_record_header_len(self.record_type().id(), version) + self.body_len(version)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn unregister_controller_record_frame() {
        // UnregisterControllerRecord (29) v0 for controller 5 (KIP-1312).
        let mut buf = Bytes::from_static(&[0x01, 0x1d, 0x00, 0x00, 0x00, 0x00, 0x05, 0x00]);
        let h = decode_metadata_record_header(&mut buf).unwrap();
        assert_eq!(
            h,
            MetadataRecordHeader {
                api_key: 29,
                version: 0
            }
        );
        assert_eq!(&buf[..], &[0x00, 0x00, 0x00, 0x05, 0x00]);
        let mut out = Vec::new();
        encode_metadata_record_header(&mut out, 29, 0);
        assert_eq!(out, [0x01, 0x1d, 0x00]);
        assert_eq!(metadata_record_header_len(29, 0), 3);
        assert_eq!(metadata_record_header_len(300, 0), 4);
    }

    /// FeatureLevelRecord (12) v0, metadata.version = 33, framed.
    fn feature_level_value() -> Vec<u8> {
        let mut value = vec![0x01, 0x0c, 0x00, 0x11];
        value.extend_from_slice(b"metadata.version");
        value.extend_from_slice(&[0x00, 0x21, 0x00]);
        value
    }

    #[test]
    fn framed_value_decodes_to_its_body_and_back() {
        let value = feature_level_value();
        let (header, body) = MetadataRecordBody::decode(Bytes::from(value.clone())).unwrap();
        assert_eq!(
            header,
            MetadataRecordHeader {
                api_key: 12,
                version: 0
            }
        );
        assert_eq!(body.record_type(), MetadataRecordType::FeatureLevel);
        let MetadataRecordBody::FeatureLevel(record) = &body else {
            panic!("not a FeatureLevelRecord: {body:?}");
        };
        assert_eq!(record.name.as_str(), "metadata.version");
        assert_eq!(record.feature_level, 33);
        assert_eq!(body.encode(0).unwrap(), value);
        assert_eq!(body.encoded_len(0), value.len());
    }

    #[test]
    fn unknown_types_and_versions_are_reported_with_their_frame() {
        // Type 6 (the retired IsrChangeRecord) and type 300 are unknown.
        for (api_key, frame) in [
            (6, &[0x01, 0x06, 0x00, 0x00][..]),
            (300, &[0x01, 0xac, 0x02, 0x03][..]),
        ] {
            let err = MetadataRecordBody::decode(Bytes::copy_from_slice(frame)).unwrap_err();
            let version = frame[frame.len() - 1] as i16;
            let header = MetadataRecordHeader { api_key, version };
            assert_eq!(err, MetadataRecordError::UnknownType(header));
            assert_eq!(err.header(), Some(header));
        }
        // FeatureLevelRecord v1: one above the highest version.
        let mut value = feature_level_value();
        value[2] = 0x01;
        let err = MetadataRecordBody::decode(Bytes::from(value)).unwrap_err();
        assert_eq!(
            err,
            MetadataRecordError::UnsupportedVersion {
                record_type: MetadataRecordType::FeatureLevel,
                version: 1
            }
        );
        assert_eq!(
            err.to_string(),
            "FeatureLevelRecord (type 12) version 1 is outside the known versions 0-0"
        );
        let body = MetadataRecordBody::default_of(MetadataRecordType::FeatureLevel);
        assert!(matches!(
            body.encode(1),
            Err(EncodeError::UnsupportedVersion {
                message: "FeatureLevelRecord",
                version: 1
            })
        ));
    }

    #[test]
    fn bytes_after_the_body_and_bad_frames_are_decode_errors() {
        let mut value = feature_level_value();
        value.push(0x00);
        assert_eq!(
            MetadataRecordBody::decode(Bytes::from(value)).unwrap_err(),
            MetadataRecordError::Decode(DecodeError::TrailingBytes(1))
        );
        let err = MetadataRecordBody::decode(Bytes::from_static(&[0x00, 0x0c, 0x00])).unwrap_err();
        assert!(matches!(
            err,
            MetadataRecordError::Decode(DecodeError::InvalidRecords(_))
        ));
        assert_eq!(err.header(), None);
    }

    #[test]
    fn record_types_match_the_generated_records() {
        use crate::Record;
        assert_eq!(MetadataRecordType::ALL.len(), 27);
        for &t in MetadataRecordType::ALL {
            assert_eq!(MetadataRecordType::from_i16(t.id()), Some(t));
            assert_eq!(MetadataRecordBody::default_of(t).record_type(), t);
        }
        assert_eq!(
            MetadataRecordType::UnregisterController.id(),
            crate::messages::unregister_controller_record::UnregisterControllerRecord::RECORD_TYPE
        );
        assert_eq!(
            MetadataRecordType::ZkMigrationState.kafka_name(),
            "ZK_MIGRATION_STATE_RECORD"
        );
        assert_eq!(MetadataRecordType::RegisterBroker.highest_version(), 4);
        assert_eq!(MetadataRecordType::from_i16(6), None);
    }

    #[test]
    fn rejects_bad_frames() {
        for bad in [
            &[0x00, 0x0c, 0x00][..],
            &[0x02, 0x0c, 0x00][..],
            &[0x01, 0x80, 0x80, 0x02, 0x00][..], // type 32768
            &[0x01, 0x0c][..],
            &[0x01][..],
            &[][..],
        ] {
            let mut buf = Bytes::copy_from_slice(bad);
            assert!(decode_metadata_record_header(&mut buf).is_err(), "{bad:?}");
        }
        let mut out = Vec::new();
        encode_metadata_record_header(&mut out, 300, 2);
        let mut buf = Bytes::from(out);
        assert_eq!(
            decode_metadata_record_header(&mut buf).unwrap(),
            MetadataRecordHeader {
                api_key: 300,
                version: 2
            }
        );
    }
}
