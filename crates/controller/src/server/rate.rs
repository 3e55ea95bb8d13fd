//! Kafka's `Rate` over a windowed sum, with an upper quota bound: the
//! connection creation rate quotas measure with it. `quota.window.num`
//! samples of `quota.window.size.seconds` each; a rate measured before
//! `window.num - 1` whole windows have passed is divided by that many
//! windows anyway (so a burst at start is not read as a huge rate). Time is
//! given in milliseconds by the caller.

/// One sample: the events of one window.
#[derive(Debug, Clone, Copy)]
struct Sample {
    value: f64,
    start_ms: i64,
    last_event_ms: i64,
}

impl Sample {
    fn new(now_ms: i64) -> Sample {
        Sample {
            value: 0.0,
            start_ms: now_ms,
            last_event_ms: now_ms,
        }
    }
}

/// A rate of events per second over the last `samples` windows of
/// `window_ms`, as Kafka's `Rate` with a `WindowedSum` measures it.
#[derive(Debug, Clone)]
pub(crate) struct Rate {
    samples: Vec<Sample>,
    current: usize,
    window_ms: i64,
    num_samples: usize,
}

impl Rate {
    /// A rate over `num_samples` (at least 1) windows of `window_ms` (at
    /// least 1) each.
    pub(crate) fn new(num_samples: u32, window_ms: i64) -> Rate {
        Rate {
            samples: Vec::new(),
            current: 0,
            window_ms: window_ms.max(1),
            num_samples: num_samples.max(1) as usize,
        }
    }

    /// Adds `value` events at `now_ms` (a negative value takes back events
    /// recorded before).
    pub(crate) fn record(&mut self, value: f64, now_ms: i64) {
        if self.samples.is_empty() {
            self.samples.push(Sample::new(now_ms));
        }
        if now_ms - self.samples[self.current].start_ms >= self.window_ms {
            // One slot more than the samples: the oldest may overlap the
            // measured span.
            self.current = (self.current + 1) % (self.num_samples + 1);
            if self.current >= self.samples.len() {
                self.samples.push(Sample::new(now_ms));
            } else {
                self.samples[self.current] = Sample::new(now_ms);
            }
        }
        let sample = &mut self.samples[self.current];
        sample.value += value;
        sample.last_event_ms = now_ms;
    }

    /// Forgets samples with no event in the last `num_samples` windows.
    fn purge(&mut self, now_ms: i64) {
        let expire_age = self.num_samples as i64 * self.window_ms;
        for sample in &mut self.samples {
            if now_ms - sample.last_event_ms >= expire_age {
                *sample = Sample::new(now_ms);
            }
        }
    }

    /// The span the rate is measured over, in milliseconds: from the
    /// oldest sample's start, at least `num_samples - 1` whole windows.
    pub(crate) fn window_size_ms(&mut self, now_ms: i64) -> i64 {
        self.purge(now_ms);
        if self.samples.is_empty() {
            self.samples.push(Sample::new(now_ms));
        }
        let oldest = self
            .samples
            .iter()
            .map(|s| s.start_ms)
            .min()
            .unwrap_or(now_ms);
        let mut elapsed = now_ms - oldest;
        let full_windows = elapsed / self.window_ms;
        let min_full_windows = self.num_samples as i64 - 1;
        if full_windows < min_full_windows {
            elapsed += (min_full_windows - full_windows) * self.window_ms;
        }
        elapsed.max(1)
    }

    /// Events per second at `now_ms`.
    pub(crate) fn measure(&mut self, now_ms: i64) -> f64 {
        self.purge(now_ms);
        let total: f64 = self.samples.iter().map(|s| s.value).sum();
        total / (self.window_size_ms(now_ms) as f64 / 1000.0)
    }

    /// Records one event and checks the rate against `bound` events per
    /// second: the event stays recorded, and the answer is how long (in
    /// milliseconds, at most `max_throttle_ms`) the caller must wait for
    /// the rate to come back to the bound; 0 within it. Kafka's
    /// `Sensor.record` with quotas and `QuotaUtils.boundedThrottleTime`.
    pub(crate) fn record_and_throttle(
        &mut self,
        bound: u32,
        now_ms: i64,
        max_throttle_ms: i64,
    ) -> i64 {
        self.record(1.0, now_ms);
        let value = self.measure(now_ms);
        let bound = f64::from(bound);
        if value <= bound {
            return 0;
        }
        if bound <= 0.0 {
            return max_throttle_ms;
        }
        let throttle = (value - bound) / bound * self.window_size_ms(now_ms) as f64;
        (throttle.round() as i64).min(max_throttle_ms)
    }

    /// When the last event was recorded, if any was.
    pub(crate) fn last_event_ms(&self) -> Option<i64> {
        self.samples.iter().map(|s| s.last_event_ms).max()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_young_rate_is_measured_over_the_minimum_span() {
        // 11 samples of 1 s: until 10 s have passed, the span is 10 s plus
        // whatever part of the current window has passed.
        let mut rate = Rate::new(11, 1000);
        for _ in 0..50 {
            rate.record(1.0, 0);
        }
        assert_eq!(rate.window_size_ms(0), 10_000);
        assert_eq!(rate.measure(0), 5.0);
        assert_eq!(rate.window_size_ms(500), 10_500);
        // After 12 s with events all along, the span is the oldest kept
        // sample's age.
        let mut rate = Rate::new(11, 1000);
        for t in 0..=12 {
            rate.record(1.0, t * 1000);
        }
        // 13 windows were started in 12 slots (one more than the 11
        // samples), so the window of 0 s was reused at 12 s; the window of
        // 1 s had its last event 11 s (the whole span) ago and is
        // forgotten. Left: 2 s to 12 s, 11 events over 10 s.
        assert_eq!(rate.window_size_ms(12_000), 10_000);
        assert_eq!(rate.measure(12_000), 1.1);
    }

    #[test]
    fn samples_idle_for_the_whole_span_are_forgotten() {
        let mut rate = Rate::new(2, 1000);
        rate.record(5.0, 0);
        assert_eq!(rate.measure(1999), 5.0 / 1.999);
        // 2 windows without an event: the sample is reset.
        assert_eq!(rate.measure(2000), 0.0);
    }

    #[test]
    fn throttle_time_brings_the_rate_back_to_the_bound() {
        // Kafka: (value - bound) / bound * window, rounded, capped.
        let mut rate = Rate::new(11, 1000);
        let mut throttles = Vec::new();
        for _ in 0..12 {
            throttles.push(rate.record_and_throttle(1, 0, 1000));
        }
        // Up to 10 connections in the first 10 s span are within 1/s.
        assert_eq!(&throttles[..10], &[0; 10]);
        // The 11th: 1.1/s over 10 s → 0.1 / 1 * 10000 = 1000 ms.
        assert_eq!(throttles[10], 1000);
        // The 12th: 1.2/s → 2000 ms, capped at the 1000 ms window.
        assert_eq!(throttles[11], 1000);
        let mut rate = Rate::new(2, 1000);
        for _ in 0..20 {
            rate.record_and_throttle(10, 0, 1_000_000);
        }
        // 21 events over a 1 s span against 10/s: 11/10 * 1000 ms.
        assert_eq!(rate.record_and_throttle(10, 0, 1_000_000), 1100);
    }

    #[test]
    fn a_taken_back_event_does_not_count() {
        let mut rate = Rate::new(11, 1000);
        for _ in 0..10 {
            assert_eq!(rate.record_and_throttle(1, 0, 1000), 0);
        }
        assert!(rate.record_and_throttle(1, 0, 1000) > 0);
        rate.record(-1.0, 0);
        assert_eq!(rate.measure(0), 1.0);
    }
}
