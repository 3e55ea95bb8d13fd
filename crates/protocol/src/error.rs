//! Codec errors.

/// Why a frame, header, message or record batch could not be decoded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    /// The input ended early.
    #[error("unexpected end of input: needed {needed} bytes, {remaining} remain")]
    UnexpectedEof {
        /// Bytes the next value needs.
        needed: usize,
        /// Bytes that were left.
        remaining: usize,
    },
    /// A varint ran past its maximum length.
    #[error("varint is too long")]
    VarintTooLong,
    /// A classic length prefix was negative (and not -1).
    #[error("negative length {0}")]
    NegativeLength(i32),
    /// A string was longer than 32767 bytes.
    #[error("string of {0} bytes is longer than 32767")]
    StringTooLong(usize),
    /// A string was not valid UTF-8.
    #[error("string is not valid UTF-8")]
    InvalidUtf8,
    /// An array claimed more elements than the remaining bytes could hold.
    #[error("array of {count} elements cannot fit in the {remaining} remaining bytes")]
    ArrayTooLong {
        /// The claimed element count.
        count: usize,
        /// Bytes that were left.
        remaining: usize,
    },
    /// A null appeared where the version does not allow one.
    #[error("null value in a non-nullable field")]
    UnexpectedNull,
    /// A known tagged field's value did not have the declared size.
    #[error("tagged field {tag} has the wrong size")]
    TaggedFieldSize {
        /// The tag.
        tag: u32,
    },
    /// A tag the schema gives a field appeared at a version where that
    /// field is not tagged (Kafka's readers refuse it too).
    #[error("Tag {tag} is not valid for version {version}")]
    TagNotValidForVersion {
        /// The tag.
        tag: u32,
        /// The version being read.
        version: i16,
    },
    /// The message does not exist at this version.
    #[error("{message} does not support version {version}")]
    UnsupportedVersion {
        /// The message name.
        message: &'static str,
        /// The requested version.
        version: i16,
    },
    /// An API key this implementation does not know.
    #[error("unknown api key {0}")]
    UnknownApiKey(i16),
    /// A frame was larger than the configured maximum.
    #[error("frame of {size} bytes exceeds the maximum of {max}")]
    FrameTooLarge {
        /// The declared frame size.
        size: usize,
        /// The configured maximum.
        max: usize,
    },
    /// Bytes were left over after a complete value.
    #[error("{0} trailing bytes after the message")]
    TrailingBytes(usize),
    /// A record batch or record is malformed.
    #[error("invalid record batch: {0}")]
    InvalidRecords(String),
    /// A CRC check failed.
    #[error("CRC mismatch: stored {stored:#010x}, computed {computed:#010x}")]
    CrcMismatch {
        /// CRC stored in the batch.
        stored: u32,
        /// CRC computed over the batch.
        computed: u32,
    },
}

/// Why a value could not be encoded at the requested version.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum EncodeError {
    /// A non-ignorable field holds a non-default value but the version lacks it.
    #[error("Attempted to write a non-default {field} at version {version}")]
    NonDefaultField {
        /// The field's camelCase name, as Kafka reports it.
        field: &'static str,
        /// The target version.
        version: i16,
    },
    /// A field is null but the version does not allow null.
    #[error("null value for non-nullable field {field} at version {version}")]
    NullNotAllowed {
        /// The field's camelCase name.
        field: &'static str,
        /// The target version.
        version: i16,
    },
    /// Tagged fields were set but the version is not flexible.
    #[error("Tagged fields were set, but version {version} of this message does not support them")]
    TaggedFieldsUnsupported {
        /// The target version.
        version: i16,
    },
    /// The message does not exist at this version.
    #[error("{message} does not support version {version}")]
    UnsupportedVersion {
        /// The message name.
        message: &'static str,
        /// The requested version.
        version: i16,
    },
    /// A string is longer than 32767 bytes.
    #[error("string field {field} is {len} bytes, more than 32767")]
    StringTooLong {
        /// The field's camelCase name.
        field: &'static str,
        /// Its length in bytes.
        len: usize,
    },
    /// Unknown tagged fields are out of order or reuse a known tag.
    #[error("unknown tagged field {0} is out of order or collides with a known tag")]
    InvalidRawTags(u32),
}
