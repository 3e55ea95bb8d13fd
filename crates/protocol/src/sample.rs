//! Random message values for property tests (feature `sample`).
//!
//! A small deterministic PRNG so that a failing case is reproduced by its seed.

use bytes::Bytes;
use uuid::Uuid;

use crate::{RawTaggedField, RawTaggedFields, StrBytes};

/// A seeded xorshift64* generator.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// A generator from a seed (0 is remapped).
    pub fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    /// Next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A number in `0..n` (n > 0).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }

    /// True with probability 1/n.
    pub fn one_in(&mut self, n: u64) -> bool {
        self.below(n) == 0
    }

    /// A random bool.
    pub fn bool(&mut self) -> bool {
        self.next_u64() & 1 == 1
    }

    /// An integer biased towards small magnitudes, edges and -1.
    pub fn int(&mut self) -> i64 {
        match self.below(6) {
            0 => 0,
            1 => -1,
            2 => self.below(100) as i64,
            3 => [i64::MIN, i64::MAX, i32::MIN as i64, i32::MAX as i64, 65535]
                [self.below(5) as usize],
            _ => self.next_u64() as i64,
        }
    }

    /// A finite float.
    pub fn float(&mut self) -> f64 {
        (self.int() as f64) / 8.0
    }

    /// A random UUID (sometimes the nil UUID).
    pub fn uuid(&mut self) -> Uuid {
        if self.one_in(4) {
            Uuid::nil()
        } else {
            Uuid::from_u64_pair(self.next_u64(), self.next_u64())
        }
    }

    /// A short string, sometimes with non-ASCII characters.
    pub fn string(&mut self) -> StrBytes {
        const ALPHABET: &[&str] = &["a", "Z", "0", "_", "-", ".", "é", "ß", "控", "🦀", " "];
        let n = self.below(10) as usize;
        let s: String = (0..n)
            .map(|_| ALPHABET[self.below(ALPHABET.len() as u64) as usize])
            .collect();
        StrBytes::from(s)
    }

    /// A few random bytes.
    pub fn bytes(&mut self) -> Bytes {
        let n = self.below(12) as usize;
        Bytes::from((0..n).map(|_| self.next_u64() as u8).collect::<Vec<u8>>())
    }

    /// Unknown tagged fields with ascending tags far above any known tag.
    pub fn raw_tags(&mut self) -> RawTaggedFields {
        let mut tag = 1000 + self.below(50) as u32;
        (0..1 + self.below(2))
            .map(|_| {
                tag += 1 + self.below(5) as u32;
                RawTaggedField {
                    tag,
                    data: self.bytes(),
                }
            })
            .collect()
    }
}

/// Random values of a generated struct at a version.
pub trait Sample: Sized {
    /// A random value valid at `version`.
    fn sample(rng: &mut Rng, version: i16) -> Self;
}
