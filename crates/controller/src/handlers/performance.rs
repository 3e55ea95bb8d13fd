//! Kafka's `EventPerformanceMonitor`: how long the active controller's
//! writes (Kafka's controller events) held the writer. A write that took
//! `controller.performance.always.log.threshold.ms` or more is logged at
//! once as an error; every `controller.performance.sample.period.ms` the
//! active controller logs how many writes finished, their average and the
//! slowest, in Kafka's words.

use std::borrow::Cow;
use std::time::Duration;

/// The writes seen since the last periodic message.
#[derive(Debug)]
pub(crate) struct PerformanceMonitor {
    period: Duration,
    always_log_threshold: Duration,
    slowest: Option<(Cow<'static, str>, Duration)>,
    total: Duration,
    count: u64,
}

impl PerformanceMonitor {
    pub(crate) fn new(period: Duration, always_log_threshold: Duration) -> PerformanceMonitor {
        PerformanceMonitor {
            period,
            always_log_threshold,
            slowest: None,
            total: Duration::ZERO,
            count: 0,
        }
    }

    /// The time between periodic messages.
    pub(crate) fn period(&self) -> Duration {
        self.period
    }

    /// Counts event `name` that took `took`; the error line to log when it
    /// took at least the always-log threshold.
    pub(crate) fn observe(&mut self, name: Cow<'static, str>, took: Duration) -> Option<String> {
        self.total += took;
        self.count += 1;
        let line = (took >= self.always_log_threshold).then(|| {
            format!(
                "Exceptionally slow controller event {name} took {} ms.",
                took.as_millis()
            )
        });
        if self.slowest.as_ref().is_none_or(|(_, t)| *t < took) {
            self.slowest = Some((name, took));
        }
        line
    }

    /// The summary of the writes seen since the last one.
    pub(crate) fn periodic_message(&self) -> String {
        let mut out = format!("In the last {} ms period, ", self.period.as_millis());
        match &self.slowest {
            Some((name, slowest)) if self.count > 0 => {
                let average = self.total / u32::try_from(self.count).unwrap_or(u32::MAX);
                out.push_str(&format!(
                    "{} controller events were completed, which took an average of {} ms each. \
                     The slowest event was {name}, which took {} ms.",
                    self.count,
                    decimal_ms(average),
                    decimal_ms(*slowest)
                ));
            }
            _ => out.push_str("there were no controller events completed."),
        }
        out
    }

    /// [`PerformanceMonitor::periodic_message`], then starts a new period.
    pub(crate) fn take_periodic_message(&mut self) -> String {
        let message = self.periodic_message();
        self.slowest = None;
        self.total = Duration::ZERO;
        self.count = 0;
        message
    }
}

/// Milliseconds with two decimals, as Kafka prints them: whole
/// microseconds divided by 1000 as a double, through
/// `DecimalFormat("#0.00")` (half-even on the double's exact value, which
/// is what Rust's `{:.2}` does too).
fn decimal_ms(d: Duration) -> String {
    format!("{:.2}", d.as_micros() as f64 / 1000.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn monitor() -> PerformanceMonitor {
        // Kafka's defaults.
        PerformanceMonitor::new(Duration::from_secs(60), Duration::from_secs(2))
    }

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    fn observe(m: &mut PerformanceMonitor, name: &'static str, took: Duration) -> Option<String> {
        m.observe(Cow::Borrowed(name), took)
    }

    #[test]
    fn the_slowest_event_is_kept() {
        let mut m = monitor();
        assert!(m.slowest.is_none());
        observe(&mut m, "fastEvent", ms(2));
        observe(&mut m, "slowEvent", ms(100));
        assert_eq!(m.slowest, Some((Cow::Borrowed("slowEvent"), ms(100))));
    }

    #[test]
    fn only_slow_events_are_logged_at_once() {
        let mut m = monitor();
        assert_eq!(
            observe(&mut m, "slowEvent", Duration::from_secs(5)).as_deref(),
            Some("Exceptionally slow controller event slowEvent took 5000 ms.")
        );
        assert_eq!(observe(&mut m, "slowEvent", ms(250)), None);
    }

    #[test]
    fn milliseconds_have_two_decimals() {
        assert_eq!(decimal_ms(Duration::ZERO), "0.00");
        assert_eq!(decimal_ms(ms(100)), "100.00");
        assert_eq!(decimal_ms(Duration::from_nanos(123_456_789)), "123.46");
        // What Java's DecimalFormat("#0.00") prints for these (an exact
        // tie goes to the even neighbour; 10.135 is just below its tie).
        for (micros, java) in [
            (10_125, "10.12"),
            (10_135, "10.13"),
            (10_145, "10.14"),
            (125, "0.12"),
            (135, "0.14"),
        ] {
            assert_eq!(decimal_ms(Duration::from_micros(micros)), java, "{micros}");
        }
    }

    #[test]
    fn periodic_messages_are_kafkas() {
        let mut m = monitor();
        assert_eq!(
            m.periodic_message(),
            "In the last 60000 ms period, there were no controller events completed."
        );
        observe(&mut m, "myEvent", ms(12));
        assert_eq!(
            m.periodic_message(),
            "In the last 60000 ms period, 1 controller events were completed, which took an average of 12.00 ms each. The slowest event was myEvent, which took 12.00 ms."
        );
        observe(&mut m, "myEvent2", ms(19));
        observe(&mut m, "myEvent3", ms(1));
        assert_eq!(
            m.take_periodic_message(),
            "In the last 60000 ms period, 3 controller events were completed, which took an average of 10.67 ms each. The slowest event was myEvent2, which took 19.00 ms."
        );
        // Taking the message starts a new period.
        assert_eq!(
            m.periodic_message(),
            "In the last 60000 ms period, there were no controller events completed."
        );
    }
}
