//! Traits every generated message implements.

use bytes::{BufMut, Bytes};

use crate::{DecodeError, EncodeError};

/// A struct that can be written at a given version.
pub trait Encodable {
    /// Writes `self` at `version`. Fails, writing nothing useful, when a value
    /// cannot be represented in that version (as Kafka's serializer refuses it).
    fn encode<B: BufMut>(&self, buf: &mut B, version: i16) -> Result<(), EncodeError>;
    /// The exact number of bytes [`Encodable::encode`] writes at `version`.
    fn encoded_len(&self, version: i16) -> usize;
}

/// A struct that can be read at a given version.
pub trait Decodable: Sized {
    /// Reads a value at `version`, advancing `buf`.
    fn decode(buf: &mut Bytes, version: i16) -> Result<Self, DecodeError>;

    /// Reads a value at `version` into `self`, overwriting every field (on
    /// failure `self` holds a mix of old and new values). Generated structs
    /// decode their nested structs and single array elements in place
    /// through this, with no copy out of a `Result`.
    fn decode_into(&mut self, buf: &mut Bytes, version: i16) -> Result<(), DecodeError> {
        *self = Self::decode(buf, version)?;
        Ok(())
    }

    /// Reads a value into `self`, which must hold `Self::default()`: fields
    /// absent from `version` are left as they are. `checked`: the bytes
    /// decoded before (elements a [`crate::List`] kept encoded), so nested
    /// arrays are walked to find their end instead of being checked again.
    #[doc(hidden)]
    fn read_default_into(
        &mut self,
        buf: &mut Bytes,
        version: i16,
        checked: bool,
    ) -> Result<(), DecodeError> {
        let _ = checked;
        *self = Self::decode(buf, version)?;
        Ok(())
    }

    /// Advances past one value that decoded before, building nothing.
    fn skip_checked(buf: &mut Bytes, version: i16) -> Result<(), DecodeError> {
        Self::decode(buf, version).map(drop)
    }
}

/// A top-level message of the schema set (request, response, header or record).
pub trait Message: Encodable + Decodable + Default + Clone + PartialEq + std::fmt::Debug {
    /// The schema name, e.g. `VoteRequest`.
    const NAME: &'static str;
    /// Lowest valid version.
    const LOWEST_VERSION: i16;
    /// Highest valid version.
    const HIGHEST_VERSION: i16;
    /// First flexible version, if any.
    const FIRST_FLEXIBLE_VERSION: Option<i16>;

    /// Whether `version` is valid for this message.
    fn is_valid_version(version: i16) -> bool {
        (Self::LOWEST_VERSION..=Self::HIGHEST_VERSION).contains(&version)
    }

    /// Whether `version` uses the flexible (compact, tagged) encoding.
    fn is_flexible(version: i16) -> bool {
        Self::FIRST_FLEXIBLE_VERSION.is_some_and(|f| version >= f)
    }

    /// Encodes into a fresh buffer sized exactly for the message.
    fn encode_to_vec(&self, version: i16) -> Result<Vec<u8>, EncodeError> {
        let mut out = Vec::with_capacity(self.encoded_len(version));
        self.encode(&mut out, version)?;
        Ok(out)
    }

    /// Decodes a whole buffer, failing if bytes are left over.
    fn decode_exact(mut buf: Bytes, version: i16) -> Result<Self, DecodeError> {
        let value = Self::decode(&mut buf, version)?;
        if buf.is_empty() {
            Ok(value)
        } else {
            Err(DecodeError::TrailingBytes(buf.len()))
        }
    }
}

/// A request message.
pub trait Request: Message {
    /// The API this request belongs to.
    const API_KEY: crate::ApiKey;
    /// The matching response type.
    type Response: Message;
}

/// A metadata record with a record type id (`apiKey` in its schema).
pub trait Record: Message {
    /// The record type id.
    const RECORD_TYPE: i16;
}
