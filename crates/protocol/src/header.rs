//! Request and response headers: version selection and whole-frame helpers.
//!
//! Kafka picks the header version from the API's flexible versions: request
//! header v2 for flexible request versions (v1 otherwise), response header v1
//! for flexible versions (v0 otherwise), except that ApiVersions responses
//! always use response header v0.

use bytes::{Buf, BufMut, Bytes};

use crate::messages::request_header::RequestHeader;
use crate::messages::response_header::ResponseHeader;
use crate::{
    ApiKey, Decodable, DecodeError, Encodable, EncodeError, Message, RequestBody, ResponseBody,
};

/// A decoded request header with the API it names, if known.
#[derive(Debug, Clone, PartialEq)]
pub struct ParsedRequestHeader {
    /// The header as read.
    pub header: RequestHeader,
    /// The header version used to read it.
    pub header_version: i16,
    /// The API, if the key is known.
    pub api_key: Option<ApiKey>,
}

/// Reads a request header from the start of a frame (without the size
/// prefix), choosing the header version from the API key and version as
/// Kafka does. An unknown API key is read with header v1 (no tagged fields),
/// an ApiVersions request of any version from 3 up with header v2.
pub fn decode_request_header(frame: &mut Bytes) -> Result<ParsedRequestHeader, DecodeError> {
    if frame.len() < 4 {
        return Err(DecodeError::UnexpectedEof {
            needed: 4,
            remaining: frame.len(),
        });
    }
    let key = i16::from_be_bytes([frame[0], frame[1]]);
    let version = i16::from_be_bytes([frame[2], frame[3]]);
    let api_key = ApiKey::from_i16(key);
    let header_version = match api_key {
        Some(ApiKey::ApiVersions) if version >= 3 => 2,
        Some(k) => k.request_header_version(version),
        None => 1,
    };
    let header = RequestHeader::decode(frame, header_version)?;
    Ok(ParsedRequestHeader {
        header,
        header_version,
        api_key,
    })
}

/// Reads a response header for a response of `api_key` at `api_version`.
pub fn decode_response_header(
    frame: &mut Bytes,
    api_key: ApiKey,
    api_version: i16,
) -> Result<ResponseHeader, DecodeError> {
    ResponseHeader::decode(frame, api_key.response_header_version(api_version))
}

/// Encoded size of a request frame, including the 4-byte size prefix.
pub fn request_frame_len<M: Encodable>(header: &RequestHeader, body: &M, api_key: ApiKey) -> usize {
    let version = header.request_api_version;
    4 + header.encoded_len(api_key.request_header_version(version)) + body.encoded_len(version)
}

/// Writes a whole request frame: size prefix, header (at the version the API
/// and version select) and body.
pub fn encode_request_frame<B: BufMut, M: Encodable>(
    buf: &mut B,
    header: &RequestHeader,
    body: &M,
) -> Result<(), EncodeError> {
    let version = header.request_api_version;
    let api_key =
        ApiKey::from_i16(header.request_api_key).ok_or(EncodeError::UnsupportedVersion {
            message: "RequestHeader",
            version,
        })?;
    let hv = api_key.request_header_version(version);
    let size = header.encoded_len(hv) + body.encoded_len(version);
    buf.put_i32(size as i32);
    header.encode(buf, hv)?;
    body.encode(buf, version)
}

/// Writes a whole response frame for a response of `api_key` at `api_version`.
pub fn encode_response_frame<B: BufMut, M: Encodable>(
    buf: &mut B,
    api_key: ApiKey,
    api_version: i16,
    correlation_id: i32,
    body: &M,
) -> Result<(), EncodeError> {
    let hv = api_key.response_header_version(api_version);
    let header = ResponseHeader {
        correlation_id,
        ..Default::default()
    };
    let size = header.encoded_len(hv) + body.encoded_len(api_version);
    buf.put_i32(size as i32);
    header.encode(buf, hv)?;
    body.encode(buf, api_version)
}

/// A request frame's header and body, decoded.
#[derive(Debug, Clone, PartialEq)]
pub struct DecodedRequest {
    /// The header.
    pub header: RequestHeader,
    /// The body.
    pub body: RequestBody,
}

/// Decodes a request frame (without size prefix): header and body, checking
/// the body is consumed exactly.
pub fn decode_request(mut frame: Bytes) -> Result<DecodedRequest, DecodeError> {
    let parsed = decode_request_header(&mut frame)?;
    let api_key = parsed
        .api_key
        .ok_or(DecodeError::UnknownApiKey(parsed.header.request_api_key))?;
    let body = RequestBody::decode(api_key, parsed.header.request_api_version, &mut frame)?;
    if frame.has_remaining() {
        return Err(DecodeError::TrailingBytes(frame.remaining()));
    }
    Ok(DecodedRequest {
        header: parsed.header,
        body,
    })
}

/// Decodes a response frame (without size prefix) for a request of `api_key`
/// at `api_version`, returning the correlation id and body.
pub fn decode_response(
    mut frame: Bytes,
    api_key: ApiKey,
    api_version: i16,
) -> Result<(i32, ResponseBody), DecodeError> {
    let header = decode_response_header(&mut frame, api_key, api_version)?;
    let body = ResponseBody::decode(api_key, api_version, &mut frame)?;
    if frame.has_remaining() {
        return Err(DecodeError::TrailingBytes(frame.remaining()));
    }
    Ok((header.correlation_id, body))
}

/// Decodes a single response message type, checking the body is consumed exactly.
pub fn decode_response_as<M: Message>(
    mut frame: Bytes,
    api_key: ApiKey,
    api_version: i16,
) -> Result<(i32, M), DecodeError> {
    let header = decode_response_header(&mut frame, api_key, api_version)?;
    let body = M::decode(&mut frame, api_version)?;
    if frame.has_remaining() {
        return Err(DecodeError::TrailingBytes(frame.remaining()));
    }
    Ok((header.correlation_id, body))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::messages::unregister_controller_request::UnregisterControllerRequest;
    use crate::StrBytes;

    /// UnregisterController v0 (KIP-1312), correlation 7, client id
    /// `adminclient-1`, ControllerId 5 (ClientId keeps the classic int16 length
    /// even in header v2).
    #[test]
    fn unregister_controller_frame_matches_the_worked_example() {
        let header = RequestHeader {
            request_api_key: 94,
            request_api_version: 0,
            correlation_id: 7,
            client_id: Some(StrBytes::from_static("adminclient-1")),
            ..Default::default()
        };
        let body = UnregisterControllerRequest {
            controller_id: 5,
            ..Default::default()
        };
        let mut out = Vec::new();
        encode_request_frame(&mut out, &header, &body).expect("encodes");
        let expected: &[u8] = &[
            0x00, 0x00, 0x00, 0x1d, 0x00, 0x5e, 0x00, 0x00, 0x00, 0x00, 0x00, 0x07, 0x00, 0x0d,
            b'a', b'd', b'm', b'i', b'n', b'c', b'l', b'i', b'e', b'n', b't', b'-', b'1', 0x00,
            0x00, 0x00, 0x00, 0x05, 0x00,
        ];
        assert_eq!(out, expected);
        let decoded = decode_request(Bytes::from(out[4..].to_vec())).expect("decodes");
        assert_eq!(decoded.header, header);
        assert_eq!(decoded.body, RequestBody::UnregisterController(body));
    }

    #[test]
    fn api_versions_response_always_uses_header_v0() {
        assert_eq!(ApiKey::ApiVersions.response_header_version(4), 0);
        assert_eq!(ApiKey::ApiVersions.request_header_version(4), 2);
        assert_eq!(ApiKey::ApiVersions.request_header_version(2), 1);
        assert_eq!(ApiKey::Vote.response_header_version(0), 1);
        assert_eq!(ApiKey::BeginQuorumEpoch.request_header_version(0), 1);
        assert_eq!(ApiKey::Fetch.response_header_version(11), 0);
        assert_eq!(ApiKey::Fetch.response_header_version(12), 1);
    }

    #[test]
    fn unknown_api_versions_version_is_read_with_header_v2() {
        // ApiVersions v99: header v2 is chosen although the version is unknown.
        let mut frame = Bytes::from_static(&[0, 18, 0, 99, 0, 0, 0, 1, 0xff, 0xff, 0x00]);
        let parsed = decode_request_header(&mut frame).expect("header parses");
        assert_eq!(parsed.header_version, 2);
        assert_eq!(parsed.header.client_id, None);
        assert!(frame.is_empty());
    }
}
