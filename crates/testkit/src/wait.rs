//! Polling until something a test waits for holds.

use std::time::{Duration, Instant};

/// The first pause between two polls; it doubles up to [`MAX_PAUSE`], so
/// that in-process state is seen quickly and spawned processes are not
/// polled in a tight loop.
const FIRST_PAUSE: Duration = Duration::from_millis(50);
/// The longest pause between two polls.
const MAX_PAUSE: Duration = Duration::from_millis(250);

/// Calls `probe` until it returns `Some`, and returns that value; prints
/// how long it took (`waited N ms until <what>`) on stderr.
///
/// `probe` is called at least once, and again after a pause (50 ms at
/// first, growing to 250 ms) while `timeout` has not passed. It blocks the
/// calling thread: from an async test, call it only where the tasks it
/// waits for run on other threads (a multi-thread runtime).
///
/// # Panics
///
/// When `timeout` passes without an answer: "timed out after
/// `<timeout>` waiting until `<what>`".
pub fn wait_for<T>(what: &str, timeout: Duration, mut probe: impl FnMut() -> Option<T>) -> T {
    let started = Instant::now();
    let mut pause = FIRST_PAUSE;
    loop {
        if let Some(value) = probe() {
            eprintln!("waited {} ms until {what}", started.elapsed().as_millis());
            return value;
        }
        assert!(
            started.elapsed() < timeout,
            "timed out after {timeout:?} waiting until {what}"
        );
        std::thread::sleep(pause);
        pause = (pause * 2).min(MAX_PAUSE);
    }
}

/// [`wait_for`] with a predicate: returns once `check` returns `true`.
///
/// # Panics
///
/// When `timeout` passes first, as [`wait_for`].
pub fn wait_until(what: &str, timeout: Duration, mut check: impl FnMut() -> bool) {
    wait_for(what, timeout, || check().then_some(()));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn returns_the_first_answer() {
        let mut calls = 0;
        let value = wait_for("the third call", Duration::from_secs(5), || {
            calls += 1;
            (calls == 3).then_some(calls * 10)
        });
        assert_eq!(value, 30);
        let mut calls = 0;
        wait_until("the second call", Duration::from_secs(5), || {
            calls += 1;
            calls == 2
        });
        assert_eq!(calls, 2);
    }

    #[test]
    fn asks_once_even_with_no_time_left() {
        assert_eq!(wait_for("now", Duration::ZERO, || Some(7)), 7);
    }

    #[test]
    #[should_panic(expected = "waiting until it never happens")]
    fn panics_naming_what_it_waited_for() {
        wait_until("it never happens", Duration::from_millis(120), || false);
    }
}
