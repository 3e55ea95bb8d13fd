//! [`StrBytes`]: an immutable UTF-8 string backed by [`Bytes`].

use std::fmt;
use std::ops::Deref;

use bytes::Bytes;

use crate::DecodeError;

/// A UTF-8 string that shares the decoded frame's buffer instead of copying it.
#[derive(Clone, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct StrBytes(Bytes);

impl StrBytes {
    /// The empty string (no allocation).
    pub const fn new() -> Self {
        StrBytes(Bytes::new())
    }

    /// A string from a `'static` literal (no allocation).
    pub const fn from_static(s: &'static str) -> Self {
        StrBytes(Bytes::from_static(s.as_bytes()))
    }

    /// Validates `bytes` as UTF-8 and wraps them without copying.
    #[inline(always)]
    pub fn from_utf8(bytes: Bytes) -> Result<Self, DecodeError> {
        // Names, hosts and ids are ASCII: a word-at-a-time check is cheaper
        // than full UTF-8 validation for short strings.
        if !bytes.is_ascii() {
            std::str::from_utf8(&bytes).map_err(|_| DecodeError::InvalidUtf8)?;
        }
        Ok(StrBytes(bytes))
    }

    /// The string slice.
    #[inline]
    #[allow(unsafe_code)]
    pub fn as_str(&self) -> &str {
        // SAFETY: every constructor establishes that the bytes are UTF-8
        // (`from_utf8` validates; `From<String>`, `From<&str>` and
        // `from_static` start from a `str`), and the bytes are immutable.
        unsafe { std::str::from_utf8_unchecked(&self.0) }
    }

    /// The underlying bytes.
    pub fn as_bytes(&self) -> &Bytes {
        &self.0
    }

    /// Unwraps the underlying bytes.
    pub fn into_bytes(self) -> Bytes {
        self.0
    }
}

impl Deref for StrBytes {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for StrBytes {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl fmt::Debug for StrBytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl fmt::Display for StrBytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl From<String> for StrBytes {
    fn from(s: String) -> Self {
        StrBytes(Bytes::from(s))
    }
}

impl From<&str> for StrBytes {
    fn from(s: &str) -> Self {
        StrBytes(Bytes::copy_from_slice(s.as_bytes()))
    }
}

impl PartialEq<str> for StrBytes {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for StrBytes {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}
