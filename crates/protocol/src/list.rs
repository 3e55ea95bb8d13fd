//! [`List`]: the collection generated messages use for arrays of structs.
//!
//! Decoding never puts array elements on the heap. A decoded array of one
//! element keeps it inline; an array of two or more is checked element by
//! element when the message is decoded and then kept as the slice of the
//! frame it arrived in, each element decoded again, on the stack, when it
//! is read. Decoding a message therefore allocates nothing for its arrays,
//! however many elements it carries and however small they are, and
//! re-encoding it at the version it arrived in copies the slice verbatim.
//!
//! Lists built in code hold their elements directly (`Empty`, `One`, `Many`).
//! Reading goes through [`List::iter`], which yields [`Cow`]s: borrowed for
//! elements held in memory, owned for elements decoded from the frame.

use std::borrow::Cow;
use std::fmt;

use bytes::{BufMut, Bytes};

use crate::{wire, Decodable, DecodeError, Encodable, EncodeError};

/// A struct that can be an element of a [`List`]: every generated struct,
/// and nothing else.
///
/// Checking a decoded list reads its elements from a borrowed view of the
/// frame (see `check_elements`), which is sound only because the element's
/// decoder is generated code that keeps nothing of its input beyond the
/// value it builds and drops. The trait is therefore sealed: a type of
/// another crate cannot be an element, even with working `Decodable` and
/// `Encodable` impls.
///
/// ```compile_fail
/// use bytes::{BufMut, Bytes};
/// use kraft_protocol::{Decodable, DecodeError, Encodable, EncodeError, List};
///
/// #[derive(Clone, Default)]
/// struct Foreign;
///
/// impl Decodable for Foreign {
///     fn decode(_: &mut Bytes, _: i16) -> Result<Self, DecodeError> {
///         Ok(Foreign)
///     }
/// }
///
/// impl Encodable for Foreign {
///     fn encode<B: BufMut>(&self, _: &mut B, _: i16) -> Result<(), EncodeError> {
///         Ok(())
///     }
///     fn encoded_len(&self, _: i16) -> usize {
///         0
///     }
/// }
///
/// // error: `Foreign` does not implement the sealed supertrait of `Element`.
/// let mut frame = Bytes::from_static(&[0, 0]);
/// let _ = List::<Foreign>::decode_elements(&mut frame, 2, 0, 0);
/// ```
///
/// The same call with a generated struct compiles (and refuses the two
/// bytes, which hold no topic):
///
/// ```
/// use bytes::Bytes;
/// use kraft_protocol::List;
/// use kraft_protocol::messages::vote_request::TopicData;
///
/// let mut frame = Bytes::from_static(&[0, 0]);
/// assert!(List::<TopicData>::decode_elements(&mut frame, 2, 0, 0).is_err());
/// ```
pub trait Element: sealed::Sealed + Decodable + Encodable + Clone + Default {}

impl<T: sealed::Sealed + Decodable + Encodable + Clone + Default> Element for T {}

pub(crate) mod sealed {
    /// Implemented by every generated struct and by no other type: the
    /// module is private, so the trait cannot be named outside this crate.
    pub trait Sealed {}
}

/// A sequence of structs: zero, one or many held in memory, or two or more
/// still in their wire encoding (see the [module documentation](self)).
/// Equality compares the elements, whatever the representation.
#[derive(Clone)]
pub enum List<T> {
    /// No element.
    Empty,
    /// Exactly one element, stored inline.
    One(T),
    /// Any number of elements on the heap.
    Many(Vec<T>),
    /// Two or more elements as they arrived, already checked to decode.
    Encoded(EncodedElements),
}

/// The wire encoding of two or more array elements, checked to decode at
/// `version`. Only the decoder makes one.
#[derive(Clone)]
pub struct EncodedElements {
    bytes: Bytes,
    count: u32,
    version: i16,
}

impl EncodedElements {
    /// The encoded elements, back to back.
    pub fn as_bytes(&self) -> &Bytes {
        &self.bytes
    }

    /// The version they are encoded at.
    pub fn version(&self) -> i16 {
        self.version
    }
}

impl<T> List<T> {
    /// An empty list (no allocation).
    pub const fn new() -> Self {
        List::Empty
    }

    /// A list with heap space reserved for `n` elements when `n` is two or more.
    pub fn with_capacity(n: usize) -> Self {
        if n < 2 {
            List::Empty
        } else {
            List::Many(Vec::with_capacity(n))
        }
    }

    /// The number of elements.
    #[inline]
    pub fn len(&self) -> usize {
        match self {
            List::Empty => 0,
            List::One(_) => 1,
            List::Many(v) => v.len(),
            List::Encoded(e) => e.count as usize,
        }
    }

    /// Whether the list has no element.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl<T: Element> List<T> {
    /// Reads `count` elements at `version` (`count` as the array's length
    /// prefix claims it, checked against the bytes left first). One element
    /// is decoded inline; two or more are each decoded once to check them
    /// and kept as the slice of `buf` they occupy.
    #[inline]
    pub fn decode_elements(
        buf: &mut Bytes,
        count: usize,
        min_wire_size: usize,
        version: i16,
    ) -> Result<Self, DecodeError> {
        let mut list = List::Empty;
        list.decode_elements_into(buf, count, min_wire_size, version, false)?;
        Ok(list)
    }

    /// [`List::decode_elements`] into `self`, reusing an inline element's
    /// place (on failure `self` holds whatever was read so far). `checked`:
    /// the bytes decoded before, so two or more elements are only walked.
    #[inline(always)]
    pub fn decode_elements_into(
        &mut self,
        buf: &mut Bytes,
        count: usize,
        min_wire_size: usize,
        version: i16,
        checked: bool,
    ) -> Result<(), DecodeError> {
        let n = wire::check_array_fits(count, buf.len(), min_wire_size)?;
        match n {
            0 => *self = List::Empty,
            1 => {
                *self = List::One(T::default());
                if let List::One(v) = self {
                    v.read_default_into(buf, version, checked)?;
                }
            }
            _ => *self = Self::decode_encoded(buf, n, version, checked)?,
        }
        Ok(())
    }

    /// Checks (or, `checked`, walks) `n` (two or more) elements and keeps
    /// their slice.
    #[inline(never)]
    fn decode_encoded(
        buf: &mut Bytes,
        n: usize,
        version: i16,
        checked: bool,
    ) -> Result<Self, DecodeError> {
        let count = u32::try_from(n).map_err(|_| DecodeError::ArrayTooLong {
            count: n,
            remaining: buf.len(),
        })?;
        let used = if checked {
            let mut walk = buf.clone();
            for _ in 0..n {
                T::skip_checked(&mut walk, version)?;
            }
            buf.len() - walk.len()
        } else {
            check_elements::<T>(buf, n, version)?
        };
        Ok(List::Encoded(EncodedElements {
            bytes: buf.split_to(used),
            count,
            version,
        }))
    }

    /// Writes the elements at `version` (the array's length prefix is the
    /// caller's). Elements still encoded at `version` are copied verbatim.
    #[inline]
    pub fn encode_elements<B: BufMut>(&self, buf: &mut B, version: i16) -> Result<(), EncodeError> {
        match self {
            List::Empty => Ok(()),
            List::One(v) => v.encode(buf, version),
            List::Many(v) => v.iter().try_for_each(|e| e.encode(buf, version)),
            List::Encoded(e) if e.version == version => {
                buf.put_slice(&e.bytes);
                Ok(())
            }
            List::Encoded(_) => self.iter().try_for_each(|e| e.encode(buf, version)),
        }
    }

    /// The bytes [`List::encode_elements`] writes at `version`.
    #[inline]
    pub fn elements_len(&self, version: i16) -> usize {
        match self {
            List::Empty => 0,
            List::One(v) => v.encoded_len(version),
            List::Many(v) => v.iter().map(|e| e.encoded_len(version)).sum(),
            List::Encoded(e) if e.version == version => e.bytes.len(),
            List::Encoded(_) => self.iter().map(|e| e.encoded_len(version)).sum(),
        }
    }

    /// The elements in order: borrowed when held in memory, decoded when
    /// still encoded.
    #[inline]
    pub fn iter(&self) -> Iter<'_, T> {
        Iter(match self {
            List::Empty => IterRepr::Memory([].iter()),
            List::One(v) => IterRepr::Memory(std::slice::from_ref(v).iter()),
            List::Many(v) => IterRepr::Memory(v.iter()),
            List::Encoded(e) => IterRepr::Encoded(Decoding::new(e)),
        })
    }

    /// The element at `index`, if there is one.
    pub fn get(&self, index: usize) -> Option<Cow<'_, T>> {
        match self {
            List::Empty => None,
            List::One(v) => (index == 0).then_some(Cow::Borrowed(v)),
            List::Many(v) => v.get(index).map(Cow::Borrowed),
            List::Encoded(_) => self.iter().nth(index),
        }
    }

    /// The first element, if any.
    pub fn first(&self) -> Option<Cow<'_, T>> {
        self.get(0)
    }

    /// The element of a list of exactly one, by reference (a decoded list
    /// of one always holds it inline).
    pub fn single(&self) -> Option<&T> {
        match self {
            List::One(v) => Some(v),
            List::Many(v) if v.len() == 1 => v.first(),
            _ => None,
        }
    }

    /// The elements in a `Vec` (allocates).
    pub fn to_vec(&self) -> Vec<T> {
        self.iter().map(Cow::into_owned).collect()
    }

    /// The elements in a `Vec` (allocates unless the list is already one).
    pub fn into_vec(self) -> Vec<T> {
        match self {
            List::Empty => Vec::new(),
            List::One(v) => vec![v],
            List::Many(v) => v,
            List::Encoded(_) => self.to_vec(),
        }
    }

    /// Decodes elements still encoded into memory, so that they can be
    /// changed; then returns them as a mutable slice.
    pub fn as_mut_slice(&mut self) -> &mut [T] {
        if let List::Encoded(_) = self {
            *self = List::Many(self.to_vec());
        }
        match self {
            List::Empty | List::Encoded(_) => &mut [],
            List::One(v) => std::slice::from_mut(v),
            List::Many(v) => v,
        }
    }

    /// Mutable references to the elements (decodes encoded ones first).
    pub fn iter_mut(&mut self) -> std::slice::IterMut<'_, T> {
        self.as_mut_slice().iter_mut()
    }

    /// Appends an element; the second one moves both to the heap.
    pub fn push(&mut self, value: T) {
        match self {
            List::Empty => *self = List::One(value),
            List::Many(v) => v.push(value),
            List::One(_) | List::Encoded(_) => {
                let mut all = std::mem::take(self).into_vec();
                all.push(value);
                *self = List::Many(all);
            }
        }
    }

    /// Removes and returns the last element.
    pub fn pop(&mut self) -> Option<T> {
        match self {
            List::Empty => None,
            List::Many(v) => v.pop(),
            List::One(_) | List::Encoded(_) => {
                let mut all = std::mem::take(self).into_vec();
                let last = all.pop();
                *self = List::from(all);
                last
            }
        }
    }

    /// Removes every element.
    pub fn clear(&mut self) {
        match self {
            List::Many(v) => v.clear(),
            _ => *self = List::Empty,
        }
    }

    /// Keeps the elements for which `keep` returns true.
    pub fn retain(&mut self, mut keep: impl FnMut(&T) -> bool) {
        let mut all = std::mem::take(self).into_vec();
        all.retain(|v| keep(v));
        *self = List::from(all);
    }
}

// Written out so that it needs no `T: Default`.
#[allow(clippy::derivable_impls)]
impl<T> Default for List<T> {
    fn default() -> Self {
        List::Empty
    }
}

impl<T: Element + fmt::Debug> fmt::Debug for List<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<T: Element + PartialEq> PartialEq for List<T> {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

impl<T: Element + Eq> Eq for List<T> {}

impl<T: Element + PartialEq> PartialEq<Vec<T>> for List<T> {
    fn eq(&self, other: &Vec<T>) -> bool {
        self == other.as_slice()
    }
}

impl<T: Element + PartialEq> PartialEq<[T]> for List<T> {
    fn eq(&self, other: &[T]) -> bool {
        self.len() == other.len() && self.iter().zip(other).all(|(a, b)| *a == *b)
    }
}

impl<T> From<Vec<T>> for List<T> {
    fn from(mut v: Vec<T>) -> Self {
        match v.len() {
            0 => List::Empty,
            1 => v.pop().map_or(List::Empty, List::One),
            _ => List::Many(v),
        }
    }
}

impl<T, const N: usize> From<[T; N]> for List<T> {
    fn from(a: [T; N]) -> Self {
        a.into_iter().collect()
    }
}

impl<T: Element> From<List<T>> for Vec<T> {
    fn from(l: List<T>) -> Self {
        l.into_vec()
    }
}

impl<T> FromIterator<T> for List<T> {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        let mut iter = iter.into_iter();
        let Some(first) = iter.next() else {
            return List::Empty;
        };
        let Some(second) = iter.next() else {
            return List::One(first);
        };
        let mut v = Vec::with_capacity(2 + iter.size_hint().0);
        v.push(first);
        v.push(second);
        v.extend(iter);
        List::Many(v)
    }
}

impl<T: Element> Extend<T> for List<T> {
    fn extend<I: IntoIterator<Item = T>>(&mut self, iter: I) {
        for v in iter {
            self.push(v);
        }
    }
}

/// Decodes `n` elements at the front of `buf` into one scratch value and
/// returns the bytes they take, leaving `buf` where it was.
///
/// The check reads a borrowed view of `buf` instead of `buf` itself, so that
/// the strings and nested slices it makes and drops on the way take no
/// reference count on the frame: the check costs no atomic operation.
fn check_elements<T: Element>(buf: &Bytes, n: usize, version: i16) -> Result<usize, DecodeError> {
    let bytes: &[u8] = buf;
    // SAFETY: `view` and everything decoded from it (each `scratch`, dropped
    // at the end of its iteration) live only in this function, while
    // `buf` keeps the bytes alive; a static `Bytes` never frees its memory,
    // and `DecodeError` holds no part of the input.
    #[allow(unsafe_code)]
    let mut view =
        Bytes::from_static(unsafe { std::mem::transmute::<&[u8], &'static [u8]>(bytes) });
    for _ in 0..n {
        let mut scratch = T::default();
        scratch.read_default_into(&mut view, version, false)?;
    }
    Ok(bytes.len() - view.len())
}

/// Decodes, one at a time, elements that were checked when their message
/// was decoded.
struct Decoding {
    rest: Bytes,
    left: u32,
    version: i16,
}

impl Decoding {
    fn new(e: &EncodedElements) -> Self {
        Decoding {
            rest: e.bytes.clone(),
            left: e.count,
            version: e.version,
        }
    }

    #[inline]
    fn next<T: Decodable + Default>(&mut self) -> Option<T> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        let mut v = T::default();
        match v.read_default_into(&mut self.rest, self.version, true) {
            Ok(()) => Some(v),
            Err(e) => {
                // Unreachable: every element decoded when the list was made.
                debug_assert!(false, "a checked list element failed to decode: {e}");
                self.left = 0;
                None
            }
        }
    }
}

/// Iterator over a [`List`]'s elements (see [`List::iter`]).
pub struct Iter<'a, T>(IterRepr<'a, T>);

enum IterRepr<'a, T> {
    Memory(std::slice::Iter<'a, T>),
    Encoded(Decoding),
}

impl<'a, T: Element> Iterator for Iter<'a, T> {
    type Item = Cow<'a, T>;

    #[inline]
    fn next(&mut self) -> Option<Cow<'a, T>> {
        match &mut self.0 {
            IterRepr::Memory(it) => it.next().map(Cow::Borrowed),
            IterRepr::Encoded(d) => d.next().map(Cow::Owned),
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = match &self.0 {
            IterRepr::Memory(it) => it.len(),
            IterRepr::Encoded(d) => d.left as usize,
        };
        (n, Some(n))
    }
}

impl<T: Element> ExactSizeIterator for Iter<'_, T> {}

/// Owning iterator over a [`List`].
pub struct IntoIter<T>(IntoIterRepr<T>);

enum IntoIterRepr<T> {
    Inline(Option<T>),
    Heap(std::vec::IntoIter<T>),
    Encoded(Decoding),
}

impl<T: Element> Iterator for IntoIter<T> {
    type Item = T;
    #[inline]
    fn next(&mut self) -> Option<T> {
        match &mut self.0 {
            IntoIterRepr::Inline(v) => v.take(),
            IntoIterRepr::Heap(v) => v.next(),
            IntoIterRepr::Encoded(d) => d.next(),
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = match &self.0 {
            IntoIterRepr::Inline(v) => usize::from(v.is_some()),
            IntoIterRepr::Heap(v) => v.len(),
            IntoIterRepr::Encoded(d) => d.left as usize,
        };
        (n, Some(n))
    }
}

impl<T: Element> ExactSizeIterator for IntoIter<T> {}

impl<T: Element> IntoIterator for List<T> {
    type Item = T;
    type IntoIter = IntoIter<T>;
    fn into_iter(self) -> IntoIter<T> {
        IntoIter(match self {
            List::Empty => IntoIterRepr::Inline(None),
            List::One(v) => IntoIterRepr::Inline(Some(v)),
            List::Many(v) => IntoIterRepr::Heap(v.into_iter()),
            List::Encoded(e) => IntoIterRepr::Encoded(Decoding::new(&e)),
        })
    }
}

impl<'a, T: Element> IntoIterator for &'a List<T> {
    type Item = Cow<'a, T>;
    type IntoIter = Iter<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl<'a, T: Element> IntoIterator for &'a mut List<T> {
    type Item = &'a mut T;
    type IntoIter = std::slice::IterMut<'a, T>;
    /// Decodes elements still encoded first (see [`List::as_mut_slice`]).
    fn into_iter(self) -> Self::IntoIter {
        self.iter_mut()
    }
}

#[cfg(test)]
mod tests {
    use bytes::Bytes;

    use super::List;
    use crate::messages::describe_quorum_response::Listener;
    use crate::{Decodable, Encodable, StrBytes};

    fn listener(port: u16) -> Listener {
        Listener {
            name: StrBytes::from_static("CONTROLLER"),
            host: StrBytes::from_static("ctl"),
            port,
            ..Default::default()
        }
    }

    /// `n` listeners as a decoded list (flexible version 2).
    fn decoded(n: u16) -> List<Listener> {
        let built: List<Listener> = (0..n).map(listener).collect();
        let mut buf = Vec::new();
        built.encode_elements(&mut buf, 2).expect("encodes");
        let mut bytes = Bytes::from(buf);
        let list = List::decode_elements(&mut bytes, n.into(), 1, 2).expect("decodes");
        assert!(bytes.is_empty());
        list
    }

    #[test]
    fn push_moves_to_the_heap_on_the_second_element() {
        let mut l = List::new();
        assert!(l.is_empty());
        l.push(listener(1));
        assert!(matches!(l, List::One(_)));
        l.push(listener(2));
        l.push(listener(3));
        assert!(matches!(&l, List::Many(v) if v.len() == 3));
        assert_eq!(l.pop().map(|v| v.port), Some(3));
        assert_eq!(l, vec![listener(1), listener(2)]);
    }

    #[test]
    fn decoding_keeps_one_element_inline_and_more_encoded() {
        assert!(matches!(decoded(0), List::Empty));
        assert!(matches!(decoded(1), List::One(ref v) if v.port == 0));
        let three = decoded(3);
        assert!(matches!(three, List::Encoded(_)));
        assert_eq!(three.len(), 3);
        let ports: Vec<u16> = three.iter().map(|l| l.port).collect();
        assert_eq!(ports, vec![0, 1, 2]);
        assert_eq!(three.get(2).map(|l| l.port), Some(2));
        assert!(three.get(3).is_none());
        assert_eq!(three.clone().into_iter().count(), 3);
    }

    #[test]
    fn equality_ignores_the_representation() {
        let built: List<Listener> = (0..3).map(listener).collect();
        assert_eq!(decoded(3), built);
        assert_ne!(decoded(2), built);
        assert_eq!(List::One(listener(0)), List::Many(vec![listener(0)]));
        assert_eq!(List::<Listener>::Empty, List::Many(vec![]));
        assert!(matches!(List::from(vec![listener(7)]), List::One(_)));
    }

    #[test]
    fn encoded_elements_are_copied_verbatim_at_their_version_and_reencoded_at_another() {
        let list = decoded(3);
        let built: List<Listener> = (0..3).map(listener).collect();
        for version in [0, 1, 2] {
            let (mut a, mut b) = (Vec::new(), Vec::new());
            list.encode_elements(&mut a, version).expect("encodes");
            built.encode_elements(&mut b, version).expect("encodes");
            assert_eq!(a, b, "version {version}");
            assert_eq!(list.elements_len(version), a.len());
        }
        // Version 0 is not flexible: the compact strings of version 2 differ.
        let mut v0 = Vec::new();
        list.encode_elements(&mut v0, 0).expect("encodes");
        assert_eq!(v0.len(), 3 * listener(0).encoded_len(0));
    }

    #[test]
    fn changing_a_decoded_list_decodes_it_first() {
        let mut list = decoded(3);
        for l in list.iter_mut() {
            l.port += 10;
        }
        assert!(matches!(list, List::Many(_)));
        list.retain(|l| l.port != 11);
        let ports: Vec<u16> = list.iter().map(|l| l.port).collect();
        assert_eq!(ports, vec![10, 12]);
        let mut list = decoded(2);
        list.push(listener(5));
        assert_eq!(list.len(), 3);
        list.clear();
        assert!(list.is_empty());
    }

    #[test]
    fn a_list_whose_elements_do_not_decode_is_refused() {
        let mut buf = Vec::new();
        List::from(vec![listener(1), listener(2)])
            .encode_elements(&mut buf, 2)
            .expect("encodes");
        buf.truncate(buf.len() - 1);
        let mut bytes = Bytes::from(buf);
        assert!(List::<Listener>::decode_elements(&mut bytes, 2, 1, 2).is_err());
        let _ = Listener::decode(&mut Bytes::new(), 2).expect_err("empty input");
    }
}
