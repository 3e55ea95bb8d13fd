//! [`List`]: the collection generated messages use for arrays of structs.
//!
//! KRaft requests almost always carry exactly one topic with one partition.
//! A `List` keeps zero or one element inline and only spills to a `Vec` for
//! two or more, so decoding such a request allocates nothing for its arrays.

use std::fmt;
use std::ops::{Deref, DerefMut};

/// A sequence that stores zero or one element inline and two or more in a
/// `Vec`. It derefs to a slice; equality compares the elements, whatever
/// the representation.
#[derive(Clone)]
pub enum List<T> {
    /// No element.
    Empty,
    /// Exactly one element, stored inline.
    One(T),
    /// Any number of elements on the heap.
    Many(Vec<T>),
}

impl<T> List<T> {
    /// An empty list (no allocation).
    pub const fn new() -> Self {
        List::Empty
    }

    /// A list of capacity for `n` elements: heap space is reserved only for
    /// two or more.
    pub fn with_capacity(n: usize) -> Self {
        if n < 2 {
            List::Empty
        } else {
            List::Many(Vec::with_capacity(n))
        }
    }

    /// The elements as a slice.
    #[inline]
    pub fn as_slice(&self) -> &[T] {
        match self {
            List::Empty => &[],
            List::One(v) => std::slice::from_ref(v),
            List::Many(v) => v,
        }
    }

    /// The elements as a mutable slice.
    #[inline]
    pub fn as_mut_slice(&mut self) -> &mut [T] {
        match self {
            List::Empty => &mut [],
            List::One(v) => std::slice::from_mut(v),
            List::Many(v) => v,
        }
    }

    /// Appends an element; the second one moves both to the heap.
    pub fn push(&mut self, value: T) {
        match self {
            List::Empty => *self = List::One(value),
            List::Many(v) => v.push(value),
            List::One(_) => {
                if let List::One(first) = std::mem::replace(self, List::Empty) {
                    *self = List::Many(vec![first, value]);
                }
            }
        }
    }

    /// Removes and returns the last element.
    pub fn pop(&mut self) -> Option<T> {
        match self {
            List::Empty => None,
            List::Many(v) => v.pop(),
            List::One(_) => match std::mem::replace(self, List::Empty) {
                List::One(v) => Some(v),
                _ => None,
            },
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
        match self {
            List::Empty => {}
            List::One(v) => {
                if !keep(v) {
                    *self = List::Empty;
                }
            }
            List::Many(v) => v.retain(keep),
        }
    }

    /// The elements as a `Vec` (allocates unless the list is already one).
    pub fn into_vec(self) -> Vec<T> {
        match self {
            List::Empty => Vec::new(),
            List::One(v) => vec![v],
            List::Many(v) => v,
        }
    }
}

// Written out so that it needs no `T: Default`.
#[allow(clippy::derivable_impls)]
impl<T> Default for List<T> {
    fn default() -> Self {
        List::Empty
    }
}

impl<T> Deref for List<T> {
    type Target = [T];
    #[inline]
    fn deref(&self) -> &[T] {
        self.as_slice()
    }
}

impl<T> DerefMut for List<T> {
    #[inline]
    fn deref_mut(&mut self) -> &mut [T] {
        self.as_mut_slice()
    }
}

impl<T> AsRef<[T]> for List<T> {
    fn as_ref(&self) -> &[T] {
        self.as_slice()
    }
}

impl<T: fmt::Debug> fmt::Debug for List<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<T: PartialEq> PartialEq for List<T> {
    fn eq(&self, other: &Self) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl<T: Eq> Eq for List<T> {}

impl<T: PartialEq> PartialEq<Vec<T>> for List<T> {
    fn eq(&self, other: &Vec<T>) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl<T: PartialEq> PartialEq<[T]> for List<T> {
    fn eq(&self, other: &[T]) -> bool {
        self.as_slice() == other
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

impl<T> From<List<T>> for Vec<T> {
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

impl<T> Extend<T> for List<T> {
    fn extend<I: IntoIterator<Item = T>>(&mut self, iter: I) {
        for v in iter {
            self.push(v);
        }
    }
}

/// Owning iterator over a [`List`].
pub struct IntoIter<T>(IntoIterRepr<T>);

enum IntoIterRepr<T> {
    Inline(Option<T>),
    Heap(std::vec::IntoIter<T>),
}

impl<T> Iterator for IntoIter<T> {
    type Item = T;
    #[inline]
    fn next(&mut self) -> Option<T> {
        match &mut self.0 {
            IntoIterRepr::Inline(v) => v.take(),
            IntoIterRepr::Heap(v) => v.next(),
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        match &self.0 {
            IntoIterRepr::Inline(v) => {
                let n = usize::from(v.is_some());
                (n, Some(n))
            }
            IntoIterRepr::Heap(v) => v.size_hint(),
        }
    }
}

impl<T> DoubleEndedIterator for IntoIter<T> {
    fn next_back(&mut self) -> Option<T> {
        match &mut self.0 {
            IntoIterRepr::Inline(v) => v.take(),
            IntoIterRepr::Heap(v) => v.next_back(),
        }
    }
}

impl<T> ExactSizeIterator for IntoIter<T> {}

impl<T> IntoIterator for List<T> {
    type Item = T;
    type IntoIter = IntoIter<T>;
    fn into_iter(self) -> IntoIter<T> {
        IntoIter(match self {
            List::Empty => IntoIterRepr::Inline(None),
            List::One(v) => IntoIterRepr::Inline(Some(v)),
            List::Many(v) => IntoIterRepr::Heap(v.into_iter()),
        })
    }
}

impl<'a, T> IntoIterator for &'a List<T> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.as_slice().iter()
    }
}

impl<'a, T> IntoIterator for &'a mut List<T> {
    type Item = &'a mut T;
    type IntoIter = std::slice::IterMut<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.as_mut_slice().iter_mut()
    }
}

#[cfg(test)]
mod tests {
    use super::List;

    #[test]
    fn push_moves_to_the_heap_on_the_second_element() {
        let mut l = List::new();
        assert!(l.is_empty());
        l.push(1);
        assert!(matches!(l, List::One(1)));
        l.push(2);
        l.push(3);
        assert!(matches!(&l, List::Many(v) if v == &[1, 2, 3]));
        assert_eq!(l.len(), 3);
        assert_eq!(l.pop(), Some(3));
        assert_eq!(&l[..], &[1, 2]);
    }

    #[test]
    fn equality_ignores_the_representation() {
        assert_eq!(List::One(7), List::Many(vec![7]));
        assert_eq!(List::<u8>::Empty, List::Many(vec![]));
        assert_ne!(List::One(7), List::Many(vec![7, 7]));
        assert_eq!(List::from(vec![7]), List::One(7));
        assert!(matches!(List::from(vec![7]), List::One(7)));
        assert!(matches!(List::<u8>::from(vec![]), List::Empty));
    }

    #[test]
    fn iterates_in_order() {
        let l: List<u32> = (1..=4).collect();
        assert_eq!(l.iter().copied().collect::<Vec<_>>(), vec![1, 2, 3, 4]);
        assert_eq!(
            l.clone().into_iter().rev().collect::<Vec<_>>(),
            vec![4, 3, 2, 1]
        );
        let one: List<u32> = std::iter::once(9).collect();
        assert!(matches!(one, List::One(9)));
        assert_eq!(one.into_iter().collect::<Vec<_>>(), vec![9]);
        let mut m = List::from([1, 2, 3]);
        for v in &mut m {
            *v *= 10;
        }
        m.retain(|v| *v != 20);
        assert_eq!(m, vec![10, 30]);
        m.clear();
        assert!(m.is_empty());
    }
}
