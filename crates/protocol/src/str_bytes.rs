//! [`StrBytes`]: an immutable UTF-8 string backed by [`Bytes`].

use std::fmt;
use std::ops::Deref;

use bytes::Bytes;

use crate::DecodeError;

/// A UTF-8 string that shares the decoded frame's buffer instead of copying it.
///
/// The empty string made by [`StrBytes::new`] (every default) holds no
/// buffer, so replacing or dropping it costs nothing.
#[derive(Clone)]
pub struct StrBytes(Option<Bytes>);

/// What [`StrBytes::as_bytes`] returns for a string without a buffer.
static NO_BYTES: Bytes = Bytes::new();

impl StrBytes {
    /// The empty string (no allocation).
    pub const fn new() -> Self {
        StrBytes(None)
    }

    /// A string from a `'static` literal (no allocation).
    pub const fn from_static(s: &'static str) -> Self {
        StrBytes(Some(Bytes::from_static(s.as_bytes())))
    }

    /// Validates `bytes` as UTF-8 and wraps them without copying.
    #[inline(always)]
    pub fn from_utf8(bytes: Bytes) -> Result<Self, DecodeError> {
        // Names, hosts and ids are ASCII: a word-at-a-time check is cheaper
        // than full UTF-8 validation for short strings.
        if !bytes.is_ascii() {
            std::str::from_utf8(&bytes).map_err(|_| DecodeError::InvalidUtf8)?;
        }
        Ok(StrBytes(Some(bytes)))
    }

    /// The string slice.
    #[inline]
    #[allow(unsafe_code)]
    pub fn as_str(&self) -> &str {
        // SAFETY: every constructor establishes that the bytes are UTF-8
        // (`from_utf8` validates; `From<String>`, `From<&str>` and
        // `from_static` start from a `str`), and the bytes are immutable.
        unsafe { std::str::from_utf8_unchecked(self.as_bytes()) }
    }

    /// The underlying bytes.
    #[inline]
    pub fn as_bytes(&self) -> &Bytes {
        self.0.as_ref().unwrap_or(&NO_BYTES)
    }

    /// Unwraps the underlying bytes.
    pub fn into_bytes(self) -> Bytes {
        self.0.unwrap_or_default()
    }
}

impl Default for StrBytes {
    fn default() -> Self {
        StrBytes::new()
    }
}

impl PartialEq for StrBytes {
    fn eq(&self, other: &Self) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for StrBytes {}

impl PartialOrd for StrBytes {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for StrBytes {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.as_str().cmp(other.as_str())
    }
}

impl std::hash::Hash for StrBytes {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.as_str().hash(state)
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
        StrBytes(Some(Bytes::from(s)))
    }
}

impl From<&str> for StrBytes {
    fn from(s: &str) -> Self {
        StrBytes(Some(Bytes::copy_from_slice(s.as_bytes())))
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
