//! Wire primitives of the Kafka protocol.
//!
//! Readers take `&mut Bytes` and advance it; byte and string values are
//! zero-copy slices of the input. Writers take any [`BufMut`]. Every reader
//! checks the remaining length first and returns [`DecodeError`] instead of
//! panicking, whatever the input claims.

use bytes::{Buf, BufMut, Bytes};
use uuid::Uuid;

use crate::{DecodeError, EncodeError, StrBytes};

/// Longest string Kafka accepts (`Short.MAX_VALUE` bytes).
pub const MAX_STRING_LEN: usize = i16::MAX as usize;

/// A tagged field this implementation does not know, kept verbatim so that it
/// is re-emitted on encode.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct RawTaggedField {
    /// The field's tag.
    pub tag: u32,
    /// The field's encoded value.
    pub data: Bytes,
}

/// Reads an unsigned varint from the front of a slice: the value and the
/// bytes it took, or `None` if the slice ends first or it is too long.
#[inline]
fn uvarint_at(b: &[u8]) -> Option<(u32, usize)> {
    let mut value: u32 = 0;
    for (i, &byte) in b.iter().take(5).enumerate() {
        if i == 4 && byte > 0x0f {
            return None;
        }
        value |= u32::from(byte & 0x7f) << (7 * i);
        if byte & 0x80 == 0 {
            return Some((value, i + 1));
        }
    }
    None
}

/// The tag and total length (header and value) of the tagged field at the
/// front of `b`, if a whole one is there.
#[inline(always)]
fn entry_header_at(b: &[u8]) -> Option<(u32, usize, usize)> {
    let (tag, n1) = uvarint_at(b)?;
    let (size, n2) = uvarint_at(&b[n1..])?;
    Some((tag, n1 + n2, size as usize))
}

#[inline]
fn entry_at(b: &[u8]) -> Option<(u32, usize)> {
    let (tag, hdr, size) = entry_header_at(b)?;
    (b.len() - hdr >= size).then_some((tag, hdr + size))
}

/// The tagged fields of a struct that this implementation does not know,
/// kept as their encoding (tag, size and value of each, in the order read)
/// so that they are re-emitted verbatim. Decoding shares the input buffer.
///
/// Every struct carries one, nearly always empty: empty is `None` and the
/// slice of the input is boxed otherwise, so the field takes 8 bytes and
/// costs nothing to make, replace or drop when there is no unknown field
/// (and one small allocation, whatever the number of fields, when there is).
#[derive(Clone, Default, PartialEq, Eq, Hash)]
pub struct RawTaggedFields(Option<Box<Bytes>>);

/// The empty encoding, for [`RawTaggedFields::as_bytes`] of no field.
static NO_BYTES: Bytes = Bytes::new();

impl RawTaggedFields {
    /// No unknown tagged field.
    pub const fn new() -> Self {
        RawTaggedFields(None)
    }

    /// Fields from their encoding (empty: none).
    #[inline]
    fn of(bytes: Bytes) -> Self {
        RawTaggedFields((!bytes.is_empty()).then(|| Box::new(bytes)))
    }

    /// Whether there is none.
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.0.is_none()
    }

    /// Number of fields.
    pub fn len(&self) -> usize {
        self.iter().count()
    }

    /// The fields, in their order.
    pub fn iter(&self) -> impl Iterator<Item = RawTaggedField> + '_ {
        let mut at = 0;
        std::iter::from_fn(move || {
            let bytes = self.as_bytes();
            let (tag, hdr, size) = entry_header_at(&bytes[at..])?;
            let start = at + hdr;
            if bytes.len() - start < size {
                return None;
            }
            at = start + size;
            Some(RawTaggedField {
                tag,
                data: bytes.slice(start..at),
            })
        })
    }

    /// Appends a field; tags must ascend for the message to be encodable.
    pub fn push(&mut self, tag: u32, data: &[u8]) {
        let old = self.as_bytes();
        let mut v = Vec::with_capacity(old.len() + tagged_field_len(tag, data.len()));
        v.extend_from_slice(old);
        put_tag_header(&mut v, tag, data.len());
        v.extend_from_slice(data);
        *self = RawTaggedFields::of(Bytes::from(v));
    }

    /// The fields' encoding, without the count that precedes a tag section.
    pub fn as_bytes(&self) -> &Bytes {
        self.0.as_deref().unwrap_or(&NO_BYTES)
    }

    /// Number of fields, for the tag-section count (0 without parsing when
    /// empty).
    #[inline(always)]
    pub fn count(&self) -> u32 {
        if self.is_empty() {
            0
        } else {
            self.len() as u32
        }
    }
}

impl std::fmt::Debug for RawTaggedFields {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl FromIterator<RawTaggedField> for RawTaggedFields {
    fn from_iter<I: IntoIterator<Item = RawTaggedField>>(iter: I) -> Self {
        let mut v = Vec::new();
        for f in iter {
            put_tag_header(&mut v, f.tag, f.data.len());
            v.extend_from_slice(&f.data);
        }
        RawTaggedFields::of(Bytes::from(v))
    }
}

impl From<Vec<RawTaggedField>> for RawTaggedFields {
    fn from(v: Vec<RawTaggedField>) -> Self {
        v.into_iter().collect()
    }
}

/// Collects the unknown fields of one tag section while it is decoded: the
/// first is kept as a slice of the input; only a second one that is not
/// adjacent to it (a known field between them) is copied.
#[derive(Default)]
pub struct RawTagsReader {
    first: Option<Bytes>,
    more: Option<Vec<u8>>,
}

impl RawTagsReader {
    /// Adds the encoding of one unknown field (header and value).
    #[inline(always)]
    pub fn push(&mut self, entry: Bytes) {
        if let Some(more) = &mut self.more {
            more.extend_from_slice(&entry);
            return;
        }
        match &self.first {
            None => self.first = Some(entry),
            Some(first) => {
                let mut v = Vec::with_capacity(2 * (first.len() + entry.len()));
                v.extend_from_slice(first);
                v.extend_from_slice(&entry);
                self.more = Some(v);
            }
        }
    }

    /// The collected fields.
    #[inline(always)]
    pub fn finish(self) -> RawTaggedFields {
        match (self.more, self.first) {
            (Some(v), _) => RawTaggedFields::of(Bytes::from(v)),
            (None, Some(first)) => RawTaggedFields::of(first),
            (None, None) => RawTaggedFields::new(),
        }
    }
}

/// Reads one tagged field: its tag, the length of its header and its whole
/// encoding (header and value), as one slice of the input.
#[inline]
pub fn get_tagged_entry(buf: &mut Bytes) -> Result<(u32, usize, Bytes), DecodeError> {
    let (tag, hdr, size) = match entry_header_at(buf.chunk()) {
        Some(h) => h,
        None => {
            // Report the precise error the sequential readers would.
            get_uvarint(buf)?;
            get_uvarint(buf)?;
            return Err(DecodeError::VarintTooLong);
        }
    };
    let entry = take(buf, hdr + size)?;
    Ok((tag, hdr, entry))
}

/// Reads the header of the tagged field at the front of `buf` without
/// consuming anything: its tag, the header's length and the value's size,
/// which is checked to be available.
#[inline(always)]
pub fn peek_tag_header(buf: &Bytes) -> Result<(u32, usize, usize), DecodeError> {
    match entry_header_at(buf.chunk()) {
        Some((tag, hdr, size)) if buf.len() - hdr >= size => Ok((tag, hdr, size)),
        Some((_, hdr, size)) => Err(DecodeError::UnexpectedEof {
            needed: size,
            remaining: buf.len() - hdr,
        }),
        None => {
            // Report the precise error the sequential readers would.
            let mut probe = buf.clone();
            get_uvarint(&mut probe)?;
            get_uvarint(&mut probe)?;
            Err(DecodeError::VarintTooLong)
        }
    }
}

/// Fails unless a tagged field read in place ended exactly where its size
/// said, `end` being the bytes that remain after it.
#[inline(always)]
pub fn expect_end(buf: &Bytes, end: usize, tag: u32) -> Result<(), DecodeError> {
    if buf.remaining() == end {
        Ok(())
    } else {
        Err(DecodeError::TaggedFieldSize { tag })
    }
}

/// Reads the `count` fields of a tag section in which no tag is known: the
/// whole section is kept as one slice of the input.
#[inline(always)]
pub fn get_raw_tag_section(buf: &mut Bytes, count: u32) -> Result<RawTaggedFields, DecodeError> {
    let mut at = 0usize;
    for _ in 0..count {
        let rest = &buf.chunk()[at..];
        match entry_header_at(rest) {
            Some((_, hdr, size)) if rest.len() - hdr >= size => at += hdr + size,
            Some((_, hdr, size)) => {
                return Err(DecodeError::UnexpectedEof {
                    needed: size,
                    remaining: rest.len() - hdr,
                })
            }
            None => {
                let mut probe = buf.slice(at..);
                get_uvarint(&mut probe)?;
                get_uvarint(&mut probe)?;
                return Err(DecodeError::VarintTooLong);
            }
        }
    }
    Ok(RawTaggedFields::of(buf.split_to(at)))
}

#[inline(always)]
fn need(buf: &Bytes, n: usize) -> Result<(), DecodeError> {
    if buf.remaining() < n {
        Err(DecodeError::UnexpectedEof {
            needed: n,
            remaining: buf.remaining(),
        })
    } else {
        Ok(())
    }
}

macro_rules! fixed_readers {
    ($($(#[$doc:meta])* $name:ident => $ty:ty;)*) => {$(
        $(#[$doc])*
        #[inline(always)]
        pub fn $name(buf: &mut Bytes) -> Result<$ty, DecodeError> {
            Ok(<$ty>::from_be_bytes(get_fixed::<{ std::mem::size_of::<$ty>() }>(buf)?))
        }
    )*};
}

fixed_readers! {
    /// Reads an `int8`.
    get_i8 => i8;
    /// Reads a big-endian `int16`.
    get_i16 => i16;
    /// Reads a big-endian `uint16`.
    get_u16 => u16;
    /// Reads a big-endian `int32`.
    get_i32 => i32;
    /// Reads a big-endian `uint32`.
    get_u32 => u32;
    /// Reads a big-endian `int64`.
    get_i64 => i64;
    /// Reads a big-endian IEEE-754 `float64`.
    get_f64 => f64;
}

/// Reads a `bool`; any non-zero byte is true, as Kafka's readers treat it.
#[inline(always)]
pub fn get_bool(buf: &mut Bytes) -> Result<bool, DecodeError> {
    Ok(get_i8(buf)? != 0)
}

/// Advances past `n` bytes.
#[inline(always)]
pub fn skip(buf: &mut Bytes, n: usize) -> Result<(), DecodeError> {
    need(buf, n)?;
    buf.advance(n);
    Ok(())
}

/// Advances past a (nullable) string in compact or classic form.
#[inline(always)]
pub fn skip_string(buf: &mut Bytes, compact: bool) -> Result<(), DecodeError> {
    match get_len(buf, compact, true)? {
        Some(n) => skip(buf, n),
        None => Ok(()),
    }
}

/// Advances past (nullable) bytes in compact or classic form.
#[inline(always)]
pub fn skip_bytes(buf: &mut Bytes, compact: bool) -> Result<(), DecodeError> {
    match get_len(buf, compact, false)? {
        Some(n) => skip(buf, n),
        None => Ok(()),
    }
}

/// Takes the next `N` bytes as an array: one bounds check for a run of
/// fixed-width fields.
#[inline(always)]
pub fn get_fixed<const N: usize>(buf: &mut Bytes) -> Result<[u8; N], DecodeError> {
    let Some(head) = buf.first_chunk::<N>() else {
        return Err(DecodeError::UnexpectedEof {
            needed: N,
            remaining: buf.len(),
        });
    };
    let out = *head;
    buf.advance(N);
    Ok(out)
}

/// Reads a 16-byte UUID (most significant half first).
#[inline(always)]
pub fn get_uuid(buf: &mut Bytes) -> Result<Uuid, DecodeError> {
    Ok(Uuid::from_bytes(get_fixed::<16>(buf)?))
}

/// Reads an unsigned base-128 varint of at most 5 bytes.
#[inline(always)]
pub fn get_uvarint(buf: &mut Bytes) -> Result<u32, DecodeError> {
    // Lengths, counts and tags are almost always below 128: one byte.
    if let Some(&b) = buf.first() {
        if b < 0x80 {
            buf.advance(1);
            return Ok(u32::from(b));
        }
    }
    get_uvarint_long(buf)
}

/// The 2-5 byte case of [`get_uvarint`] (record set lengths, large counts).
#[inline(never)]
fn get_uvarint_long(buf: &mut Bytes) -> Result<u32, DecodeError> {
    let mut value: u32 = 0;
    for (i, &b) in buf.iter().take(5).enumerate() {
        if i == 4 && b > 0x0f {
            return Err(DecodeError::VarintTooLong);
        }
        value |= u32::from(b & 0x7f) << (7 * i);
        if b & 0x80 == 0 {
            buf.advance(i + 1);
            return Ok(value);
        }
    }
    if buf.len() < 5 {
        Err(DecodeError::UnexpectedEof {
            needed: 1,
            remaining: 0,
        })
    } else {
        Err(DecodeError::VarintTooLong)
    }
}

/// Reads an unsigned base-128 varlong of at most 10 bytes.
#[inline]
pub fn get_uvarlong(buf: &mut Bytes) -> Result<u64, DecodeError> {
    let mut value: u64 = 0;
    for i in 0..10 {
        need(buf, 1)?;
        let b = buf.get_u8();
        if i == 9 && b > 0x01 {
            return Err(DecodeError::VarintTooLong);
        }
        value |= u64::from(b & 0x7f) << (7 * i);
        if b & 0x80 == 0 {
            return Ok(value);
        }
    }
    Err(DecodeError::VarintTooLong)
}

/// Reads a zig-zag encoded signed varint (used inside records).
#[inline]
pub fn get_varint(buf: &mut Bytes) -> Result<i32, DecodeError> {
    let v = get_uvarint(buf)?;
    Ok(((v >> 1) as i32) ^ -((v & 1) as i32))
}

/// Reads a zig-zag encoded signed varlong (used inside records).
#[inline]
pub fn get_varlong(buf: &mut Bytes) -> Result<i64, DecodeError> {
    let v = get_uvarlong(buf)?;
    Ok(((v >> 1) as i64) ^ -((v & 1) as i64))
}

/// Reads a length prefix: compact (`uvarint` of length + 1, 0 = null) or
/// classic (`int16`/`int32`, -1 = null). Returns `None` for null.
#[inline(always)]
fn get_len(
    buf: &mut Bytes,
    compact: bool,
    classic_i16: bool,
) -> Result<Option<usize>, DecodeError> {
    if compact {
        let n = get_uvarint(buf)?;
        Ok(if n == 0 { None } else { Some((n - 1) as usize) })
    } else {
        let n = if classic_i16 {
            i32::from(get_i16(buf)?)
        } else {
            get_i32(buf)?
        };
        match n {
            -1 => Ok(None),
            n if n < 0 => Err(DecodeError::NegativeLength(n)),
            n => Ok(Some(n as usize)),
        }
    }
}

#[inline(always)]
fn take(buf: &mut Bytes, n: usize) -> Result<Bytes, DecodeError> {
    need(buf, n)?;
    Ok(buf.split_to(n))
}

/// Reads a nullable string in compact or classic form.
#[inline(always)]
pub fn get_nullable_string(
    buf: &mut Bytes,
    compact: bool,
) -> Result<Option<StrBytes>, DecodeError> {
    match get_len(buf, compact, true)? {
        None => Ok(None),
        Some(n) if n > MAX_STRING_LEN => Err(DecodeError::StringTooLong(n)),
        Some(n) => StrBytes::from_utf8(take(buf, n)?).map(Some),
    }
}

/// Reads a non-nullable string; a null on the wire is an error.
#[inline(always)]
pub fn get_string(buf: &mut Bytes, compact: bool) -> Result<StrBytes, DecodeError> {
    get_nullable_string(buf, compact)?.ok_or(DecodeError::UnexpectedNull)
}

/// Reads nullable bytes (also `records`) in compact or classic form.
#[inline(always)]
pub fn get_nullable_bytes(buf: &mut Bytes, compact: bool) -> Result<Option<Bytes>, DecodeError> {
    match get_len(buf, compact, false)? {
        None => Ok(None),
        Some(n) => take(buf, n).map(Some),
    }
}

/// Reads non-nullable bytes; a null on the wire is an error.
#[inline(always)]
pub fn get_bytes(buf: &mut Bytes, compact: bool) -> Result<Bytes, DecodeError> {
    get_nullable_bytes(buf, compact)?.ok_or(DecodeError::UnexpectedNull)
}

/// Reads an array length (`None` = null). A count larger than the bytes that
/// remain is rejected, since every element takes at least one byte.
#[inline(always)]
pub fn get_array_len(buf: &mut Bytes, compact: bool) -> Result<Option<usize>, DecodeError> {
    let n = get_len(buf, compact, false)?;
    if let Some(n) = n {
        if n > buf.remaining() {
            return Err(DecodeError::ArrayTooLong {
                count: n,
                remaining: buf.remaining(),
            });
        }
    }
    Ok(n)
}

/// Capacity to reserve for `count` elements whose encoding takes at least
/// `min_wire_size` bytes each, given `remaining` input bytes: never more than
/// the input could hold, so a lying count cannot force a large allocation.
#[inline]
pub fn bounded_capacity(count: usize, remaining: usize, min_wire_size: usize) -> usize {
    count.min(remaining / min_wire_size.max(1))
}

/// Checks that `count` elements of at least `min_wire_size` bytes each can
/// fit in the `remaining` input, so that a lying count is refused before any
/// allocation; returns the count.
#[inline(always)]
pub fn check_array_fits(
    count: usize,
    remaining: usize,
    min_wire_size: usize,
) -> Result<usize, DecodeError> {
    if count.saturating_mul(min_wire_size.max(1)) > remaining {
        Err(DecodeError::ArrayTooLong { count, remaining })
    } else {
        Ok(count)
    }
}

/// Reads the tagged-field section header: the number of tagged fields.
#[inline(always)]
pub fn get_tag_count(buf: &mut Bytes) -> Result<u32, DecodeError> {
    get_uvarint(buf)
}

/// Reads one tagged field's tag and its value bytes.
#[inline]
pub fn get_tagged_field(buf: &mut Bytes) -> Result<(u32, Bytes), DecodeError> {
    let tag = get_uvarint(buf)?;
    let size = get_uvarint(buf)? as usize;
    Ok((tag, take(buf, size)?))
}

/// Fails unless a tagged field's value was consumed exactly.
#[inline]
pub fn expect_consumed(buf: &Bytes, tag: u32) -> Result<(), DecodeError> {
    if buf.has_remaining() {
        Err(DecodeError::TaggedFieldSize { tag })
    } else {
        Ok(())
    }
}

// ---------------------------------------------------------------- writers

/// Writes a `bool`.
#[inline]
pub fn put_bool<B: BufMut>(buf: &mut B, v: bool) {
    buf.put_u8(u8::from(v));
}

/// Writes a UUID (most significant half first).
#[inline]
pub fn put_uuid<B: BufMut>(buf: &mut B, v: &Uuid) {
    let (hi, lo) = v.as_u64_pair();
    buf.put_u64(hi);
    buf.put_u64(lo);
}

/// Writes an unsigned varint.
#[inline]
pub fn put_uvarint<B: BufMut>(buf: &mut B, mut v: u32) {
    while v >= 0x80 {
        buf.put_u8((v as u8) | 0x80);
        v >>= 7;
    }
    buf.put_u8(v as u8);
}

/// Writes an unsigned varlong.
#[inline]
pub fn put_uvarlong<B: BufMut>(buf: &mut B, mut v: u64) {
    while v >= 0x80 {
        buf.put_u8((v as u8) | 0x80);
        v >>= 7;
    }
    buf.put_u8(v as u8);
}

/// Writes a zig-zag signed varint.
#[inline]
pub fn put_varint<B: BufMut>(buf: &mut B, v: i32) {
    put_uvarint(buf, ((v << 1) ^ (v >> 31)) as u32);
}

/// Writes a zig-zag signed varlong.
#[inline]
pub fn put_varlong<B: BufMut>(buf: &mut B, v: i64) {
    put_uvarlong(buf, ((v << 1) ^ (v >> 63)) as u64);
}

/// Encoded size of an unsigned varint.
#[inline]
pub const fn uvarint_len(v: u32) -> usize {
    match v {
        0..=0x7f => 1,
        0x80..=0x3fff => 2,
        0x4000..=0x1f_ffff => 3,
        0x20_0000..=0xfff_ffff => 4,
        _ => 5,
    }
}

/// Encoded size of an unsigned varlong.
#[inline]
pub const fn uvarlong_len(mut v: u64) -> usize {
    let mut n = 1;
    while v >= 0x80 {
        v >>= 7;
        n += 1;
    }
    n
}

/// Encoded size of a zig-zag signed varint.
#[inline]
pub const fn varint_len(v: i32) -> usize {
    uvarint_len(((v << 1) ^ (v >> 31)) as u32)
}

/// Encoded size of a zig-zag signed varlong.
#[inline]
pub const fn varlong_len(v: i64) -> usize {
    uvarlong_len(((v << 1) ^ (v >> 63)) as u64)
}

/// Writes a length prefix (`None` = null) in compact or classic form.
#[inline]
fn put_len<B: BufMut>(buf: &mut B, len: Option<usize>, compact: bool, classic_i16: bool) {
    match (compact, len) {
        (true, None) => put_uvarint(buf, 0),
        (true, Some(n)) => put_uvarint(buf, n as u32 + 1),
        (false, None) if classic_i16 => buf.put_i16(-1),
        (false, None) => buf.put_i32(-1),
        (false, Some(n)) if classic_i16 => buf.put_i16(n as i16),
        (false, Some(n)) => buf.put_i32(n as i32),
    }
}

#[inline]
fn len_len(len: Option<usize>, compact: bool, classic_i16: bool) -> usize {
    match (compact, len) {
        (true, None) => 1,
        (true, Some(n)) => uvarint_len(n as u32 + 1),
        (false, _) if classic_i16 => 2,
        (false, _) => 4,
    }
}

/// Checks that a string fits Kafka's 32767-byte limit before it is written.
#[inline]
pub fn check_string(s: &str, field: &'static str) -> Result<(), EncodeError> {
    if s.len() > MAX_STRING_LEN {
        Err(EncodeError::StringTooLong {
            field,
            len: s.len(),
        })
    } else {
        Ok(())
    }
}

/// Writes a nullable string.
#[inline]
pub fn put_nullable_string<B: BufMut>(buf: &mut B, v: Option<&str>, compact: bool) {
    put_len(buf, v.map(str::len), compact, true);
    if let Some(s) = v {
        buf.put_slice(s.as_bytes());
    }
}

/// Writes a string.
#[inline]
pub fn put_string<B: BufMut>(buf: &mut B, v: &str, compact: bool) {
    put_nullable_string(buf, Some(v), compact);
}

/// Encoded size of a nullable string.
#[inline]
pub fn nullable_string_len(v: Option<&str>, compact: bool) -> usize {
    len_len(v.map(str::len), compact, true) + v.map_or(0, str::len)
}

/// Encoded size of a string.
#[inline]
pub fn string_len(v: &str, compact: bool) -> usize {
    nullable_string_len(Some(v), compact)
}

/// Writes nullable bytes (also `records`).
#[inline]
pub fn put_nullable_bytes<B: BufMut>(buf: &mut B, v: Option<&[u8]>, compact: bool) {
    put_len(buf, v.map(<[u8]>::len), compact, false);
    if let Some(b) = v {
        buf.put_slice(b);
    }
}

/// Writes bytes.
#[inline]
pub fn put_bytes<B: BufMut>(buf: &mut B, v: &[u8], compact: bool) {
    put_nullable_bytes(buf, Some(v), compact);
}

/// Encoded size of nullable bytes.
#[inline]
pub fn nullable_bytes_len(v: Option<&[u8]>, compact: bool) -> usize {
    len_len(v.map(<[u8]>::len), compact, false) + v.map_or(0, <[u8]>::len)
}

/// Encoded size of bytes.
#[inline]
pub fn bytes_len(v: &[u8], compact: bool) -> usize {
    nullable_bytes_len(Some(v), compact)
}

/// Writes an array length prefix (`None` = null).
#[inline]
pub fn put_array_len<B: BufMut>(buf: &mut B, len: Option<usize>, compact: bool) {
    put_len(buf, len, compact, false);
}

/// Encoded size of an array length prefix.
#[inline]
pub fn array_len_len(len: Option<usize>, compact: bool) -> usize {
    len_len(len, compact, false)
}

/// Writes one tagged field's tag and size header.
#[inline]
pub fn put_tag_header<B: BufMut>(buf: &mut B, tag: u32, size: usize) {
    put_uvarint(buf, tag);
    put_uvarint(buf, size as u32);
}

/// Encoded size of a tagged field whose value takes `size` bytes.
#[inline]
pub fn tagged_field_len(tag: u32, size: usize) -> usize {
    uvarint_len(tag) + uvarint_len(size as u32) + size
}

/// Writes the unknown tagged fields of `raw` whose tags are below `below`,
/// starting at byte offset `from` of its encoding and advancing it (they are
/// merged in ascending tag order with the known ones).
#[inline(always)]
pub fn put_raw_tags<B: BufMut>(buf: &mut B, raw: &RawTaggedFields, below: u32, from: &mut usize) {
    if !raw.is_empty() {
        put_some_raw_tags(buf, raw, below, from);
    }
}

fn put_some_raw_tags<B: BufMut>(buf: &mut B, raw: &RawTaggedFields, below: u32, from: &mut usize) {
    let bytes = raw.as_bytes();
    let start = *from;
    while let Some((tag, len)) = entry_at(&bytes[*from..]) {
        if tag >= below {
            break;
        }
        *from += len;
    }
    buf.put_slice(&bytes[start..*from]);
}

/// Encoded size of a set of unknown tagged fields (without the count).
#[inline]
pub fn raw_tags_len(raw: &RawTaggedFields) -> usize {
    raw.as_bytes().len()
}

/// Checks that unknown tagged fields are in strictly ascending tag order and
/// do not reuse a known tag of this version, so that the encoding is valid.
#[inline(always)]
pub fn check_raw_tags(raw: &RawTaggedFields, known: &[u32]) -> Result<(), EncodeError> {
    if raw.is_empty() {
        Ok(())
    } else {
        check_some_raw_tags(raw, known)
    }
}

fn check_some_raw_tags(raw: &RawTaggedFields, known: &[u32]) -> Result<(), EncodeError> {
    let mut prev: Option<u32> = None;
    for f in raw.iter() {
        if prev.is_some_and(|p| p >= f.tag) || known.contains(&f.tag) {
            return Err(EncodeError::InvalidRawTags(f.tag));
        }
        prev = Some(f.tag);
    }
    Ok(())
}
