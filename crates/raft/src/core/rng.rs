//! Injected randomness: election timeouts and bootstrap-server choice.

/// A source of random numbers. Deterministic implementations make the whole
/// core replayable.
pub trait RaftRng: Send {
    /// The next 64 random bits.
    fn next_u64(&mut self) -> u64;

    /// A value uniformly distributed in `0..bound` (`0` when `bound <= 0`).
    fn below(&mut self, bound: i64) -> i64 {
        if bound <= 0 {
            0
        } else {
            (self.next_u64() % bound as u64) as i64
        }
    }
}

/// SplitMix64: a tiny seeded PRNG (Steele, Lea, Flood 2014).
#[derive(Clone, Debug)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    /// A generator seeded with `seed`.
    pub fn new(seed: u64) -> Self {
        SplitMix64 { state: seed }
    }
}

impl RaftRng for SplitMix64 {
    fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}
