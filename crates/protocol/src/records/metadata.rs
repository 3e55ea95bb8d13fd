//! Framing of metadata (data) record values (Kafka's `AbstractApiMessageSerde`).
//!
//! A metadata record value is `uvarint frameVersion (1)`, `uvarint apiKey`,
//! `uvarint version`, then the record body at that version. The bodies come
//! from the generated messages; these helpers only handle the frame.

use bytes::{BufMut, Bytes};

use crate::wire::{get_uvarint, put_uvarint, uvarint_len};
use crate::DecodeError;

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
