//! The controller mutation quota's behaviour, as Kafka 4.4's
//! `TokenBucketTest`, `ControllerMutationQuotaManagerTest` and
//! `ClientQuotaManagerTest` state it.

use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;

use kraft_protocol::ErrorCode;

use super::*;
use crate::image::{client_quota_record, MetadataImage};

/// A clock the test moves.
struct ManualClock(Arc<AtomicI64>);

impl ManualClock {
    /// A clock at a wall-clock-like time.
    fn new() -> (ManualClock, MillisClock) {
        let now = Arc::new(AtomicI64::new(1_700_000_000_000));
        let read = Arc::clone(&now);
        (
            ManualClock(now),
            Arc::new(move || read.load(Ordering::SeqCst)),
        )
    }

    fn sleep(&self, ms: i64) {
        self.0.fetch_add(ms, Ordering::SeqCst);
    }

    fn now(&self) -> i64 {
        self.0.load(Ordering::SeqCst)
    }
}

type Entity<'a> = &'a [(&'a str, Option<&'a str>)];

/// An image with these `controller_mutation_rate` quotas.
fn image(quotas: &[(Entity<'_>, f64)]) -> MetadataImage {
    let mut image = MetadataImage::new();
    for (entity, rate) in quotas {
        image
            .replay(&client_quota_record(
                entity,
                CONTROLLER_MUTATION_RATE,
                *rate,
                false,
            ))
            .expect("a client quota record replays");
    }
    image
}

const USER: &str = "ANONYMOUS";
const CLIENT: &str = "test-client";

fn window(samples: u32, size_seconds: u32) -> MutationQuotaWindow {
    MutationQuotaWindow {
        samples,
        size_seconds,
    }
}

#[test]
fn kafka_defaults_are_eleven_windows_of_one_second() {
    assert_eq!(MutationQuotaWindow::default(), window(11, 1));
    assert_eq!(MutationQuotaWindow::default().burst(5.0), 55.0);
}

/// `TokenBucketTest.testRecord`: rate 5/s, 10 windows of 2 s (burst 100).
#[test]
fn token_bucket_records() {
    let w = window(10, 2);
    let mut now = 1_700_000_000_000_i64;
    let mut tk = TokenBucket::new();
    assert!((tk.measure(5.0, w, now) - 100.0).abs() < 0.1);
    tk.record(5.0, w, 60.0, now);
    assert!((tk.measure(5.0, w, now) - 40.0).abs() < 0.1);
    now += 2000;
    tk.record(5.0, w, 5.0, now);
    assert!((tk.measure(5.0, w, now) - 45.0).abs() < 0.1);
    now += 2000;
    tk.record(5.0, w, 60.0, now);
    assert!((tk.measure(5.0, w, now) + 5.0).abs() < 0.1);
}

/// `TokenBucketTest.testUnrecord`: negative values give credits back, never
/// above the burst.
#[test]
fn token_bucket_unrecords_up_to_the_burst() {
    let w = window(10, 2);
    let mut now = 1_700_000_000_000_i64;
    let mut tk = TokenBucket::new();
    assert!((tk.measure(5.0, w, now) - 100.0).abs() < 0.1);
    tk.record(5.0, w, -60.0, now);
    assert!((tk.measure(5.0, w, now) - 100.0).abs() < 0.1);
    now += 2000;
    tk.record(5.0, w, 60.0, now);
    assert!((tk.measure(5.0, w, now) - 40.0).abs() < 0.1);
    now += 2000;
    tk.record(5.0, w, -60.0, now);
    assert!((tk.measure(5.0, w, now) - 100.0).abs() < 0.1);
}

/// `ControllerMutationQuotaManagerTest.testThrottleTime`.
#[test]
fn throttle_time_is_the_time_to_refill_to_zero() {
    assert_eq!(throttle_time_ms(0.0, 10.0), 0);
    assert_eq!(throttle_time_ms(-5.0, 10.0), 500);
    assert_eq!(throttle_time_ms(-10.0, 10.0), 1000);
}

fn quotas(w: MutationQuotaWindow) -> (ManualClock, Arc<MutationQuotas>) {
    let (clock, read) = ManualClock::new();
    (clock, Arc::new(MutationQuotas::with_clock(w, read)))
}

fn user_client_quota(rate: f64) -> MetadataImage {
    image(&[(&[("user", Some(USER)), ("client-id", Some(CLIENT))], rate)])
}

/// `testStrictControllerMutationQuotaViolation`: rate 10, 10 windows of
/// 1 s.
#[test]
fn strict_quota_accepts_until_the_bucket_is_below_zero_then_refuses() {
    let (clock, q) = quotas(window(10, 1));
    let img = user_client_quota(10.0);
    let quota = q.quota_for(img.client_quotas(), USER, CLIENT, QuotaMode::Strict);
    assert_eq!(quota.mode(), Some(QuotaMode::Strict));
    assert!(!quota.is_exceeded());
    // 100 - 90 = 10: accepted.
    assert!(quota.record(90).is_ok());
    assert!(!quota.is_exceeded());
    assert_eq!(quota.throttle_time_ms(), 0);
    // 10 - 90 = -80: accepted, the bucket had tokens.
    assert!(quota.record(90).is_ok());
    assert!(!quota.is_exceeded());
    assert_eq!(quota.throttle_time_ms(), 0);
    // Refused: no tokens.
    let e = quota.record(90).expect_err("the bucket is below zero");
    assert_eq!(e.code, ErrorCode::ThrottlingQuotaExceeded);
    assert_eq!(e.code.code(), 89);
    assert_eq!(
        e.message.as_deref(),
        Some("The throttling quota has been exceeded.")
    );
    assert!(quota.is_exceeded());
    assert_eq!(quota.throttle_time_ms(), 8000);
    clock.sleep(5000);
    assert_eq!(quota.throttle_time_ms(), 3000);
    clock.sleep(5000);
    assert_eq!(quota.throttle_time_ms(), 0);
}

/// `testPermissiveControllerMutationQuotaViolation`.
#[test]
fn permissive_quota_accepts_everything_and_throttles_below_zero() {
    let (clock, q) = quotas(window(10, 1));
    let img = user_client_quota(10.0);
    let quota = q.quota_for(img.client_quotas(), USER, CLIENT, QuotaMode::Permissive);
    assert!(quota.record(90).is_ok());
    assert!(!quota.is_exceeded());
    assert_eq!(quota.throttle_time_ms(), 0);
    assert!(quota.record(90).is_ok());
    assert!(!quota.is_exceeded());
    assert_eq!(quota.throttle_time_ms(), 8000);
    assert!(quota.record(90).is_ok());
    assert!(!quota.is_exceeded());
    assert_eq!(quota.throttle_time_ms(), 17000);
    clock.sleep(5000);
    assert_eq!(quota.throttle_time_ms(), 12000);
}

/// `testControllerMutationQuotaViolation`: the bucket is shared by the
/// requests of one user and client id, and refills with time.
#[test]
fn requests_share_the_entity_bucket_and_it_refills() {
    let (clock, q) = quotas(window(10, 1));
    let img = user_client_quota(10.0);
    let next = || q.quota_for(img.client_quotas(), USER, CLIENT, QuotaMode::Strict);
    for _ in 0..10 {
        let quota = next();
        assert!(quota.record(10).is_ok());
        assert_eq!(quota.throttle_time_ms(), 0);
        clock.sleep(1000);
    }
    // A spike of 110 while 100 tokens are left: accepted.
    let quota = next();
    assert!(quota.record(110).is_ok());
    assert_eq!(quota.throttle_time_ms(), 0);
    // Another: refused, 1 s to wait for the 10 missing tokens.
    let quota = next();
    assert!(quota.record(110).is_err());
    assert_eq!(quota.throttle_time_ms(), 1000);
    clock.sleep(1000);
    let quota = next();
    assert!(quota.record(110).is_ok());
    assert_eq!(quota.throttle_time_ms(), 0);
}

/// `testNewStrictQuotaForReturnsUnboundedQuotaWhenQuotaIsDisabled` and its
/// permissive twin.
#[test]
fn no_quota_configured_is_unbounded() {
    let (_clock, q) = quotas(MutationQuotaWindow::default());
    let empty = MetadataImage::new();
    for mode in [QuotaMode::Strict, QuotaMode::Permissive] {
        let quota = q.quota_for(empty.client_quotas(), USER, CLIENT, mode);
        assert!(!quota.is_bounded());
        assert!(quota.record(1_000_000).is_ok());
        assert_eq!(quota.throttle_time_ms(), 0);
    }
    // Another quota key does not enable the mutation quota.
    let mut other = MetadataImage::new();
    other
        .replay(&client_quota_record(
            &[("user", Some(USER))],
            "producer_byte_rate",
            1.0,
            false,
        ))
        .expect("a client quota record replays");
    let quota = q.quota_for(other.client_quotas(), USER, CLIENT, QuotaMode::Strict);
    assert!(!quota.is_bounded());
    assert!(q.buckets.lock().unwrap().is_empty());
}

#[test]
fn strict_mode_from_kafkas_versions() {
    assert_eq!(QuotaMode::for_version(6, 6), QuotaMode::Strict);
    assert_eq!(QuotaMode::for_version(7, 6), QuotaMode::Strict);
    assert_eq!(QuotaMode::for_version(5, 6), QuotaMode::Permissive);
    assert_eq!(QuotaMode::for_version(4, 5), QuotaMode::Permissive);
    assert_eq!(QuotaMode::for_version(3, 3), QuotaMode::Strict);
}

/// The rate and bucket a user and client id get.
fn resolved(
    quotas: &[(Entity<'_>, f64)],
    user: &str,
    client: &str,
) -> Option<(f64, (String, String))> {
    let img = image(quotas);
    let q = Quotas::from_image(img.client_quotas());
    let tags = q.tags(user, client);
    q.rate(&tags).map(|r| (r, tags))
}

fn tags(user: &str, client: &str) -> (String, String) {
    (user.to_owned(), client.to_owned())
}

/// `ClientQuotaManagerTest.testQuotaConfigPrecedence`'s order:
/// user+client, user+default client, user, default user+client, default
/// user+default client, default user, client, default client.
#[test]
fn quota_precedence_is_kafkas() {
    let all: Vec<(Entity<'_>, f64)> = vec![
        (
            &[("user", Some("userA")), ("client-id", Some("client1"))],
            1.0,
        ),
        (&[("user", Some("userA")), ("client-id", None)], 2.0),
        (&[("user", Some("userA"))], 3.0),
        (&[("user", None), ("client-id", Some("client1"))], 4.0),
        (&[("user", None), ("client-id", None)], 5.0),
        (&[("user", None)], 6.0),
        (&[("client-id", Some("client1"))], 7.0),
        (&[("client-id", None)], 8.0),
    ];
    let mut left = all.clone();
    let expected = [
        (1.0, tags("userA", "client1")),
        (2.0, tags("userA", "client1")),
        (3.0, tags("userA", "")),
        (4.0, tags("userA", "client1")),
        (5.0, tags("userA", "client1")),
        (6.0, tags("userA", "")),
        (7.0, tags("", "client1")),
        (8.0, tags("", "client1")),
    ];
    for want in expected {
        assert_eq!(resolved(&left, "userA", "client1"), Some(want));
        left.remove(0);
    }
    assert_eq!(resolved(&left, "userA", "client1"), None);
}

/// With one shape of quota only, the bucket is keyed on that shape alone.
#[test]
fn single_level_quotas_key_the_bucket_on_their_parts() {
    // Users only: every client of a user shares a bucket.
    let users = [(&[("user", None)][..], 5.0)];
    assert_eq!(resolved(&users, "u", "c"), Some((5.0, tags("u", ""))));
    // Client ids only: every user of a client id shares a bucket.
    let clients = [(&[("client-id", Some("c"))][..], 5.0)];
    assert_eq!(resolved(&clients, "u", "c"), Some((5.0, tags("", "c"))));
    assert_eq!(resolved(&clients, "u", "other"), None);
    // Users and client ids together only: by both.
    let both = [(&[("user", Some("u")), ("client-id", None)][..], 5.0)];
    assert_eq!(resolved(&both, "u", "c"), Some((5.0, tags("u", "c"))));
    assert_eq!(resolved(&both, "v", "c"), None);
}

/// A quota on a user is shared by that user's clients; another user has
/// its own bucket.
#[test]
fn buckets_are_per_entity() {
    let (_clock, q) = quotas(window(1, 1));
    let img = image(&[(&[("user", None)], 2.0)]);
    let a1 = q.quota_for(img.client_quotas(), "alice", "one", QuotaMode::Strict);
    assert!(a1.record(3).is_ok());
    let a2 = q.quota_for(img.client_quotas(), "alice", "two", QuotaMode::Strict);
    assert!(a2.record(1).is_err());
    assert_eq!(a2.throttle_time_ms(), 500);
    let b = q.quota_for(img.client_quotas(), "bob", "one", QuotaMode::Strict);
    assert!(b.record(1).is_ok());
}

/// A write attempt that is retried charges the request once.
#[test]
fn a_retried_attempt_is_charged_once() {
    let (clock, q) = quotas(window(10, 1));
    let img = user_client_quota(10.0);
    let quota = q.quota_for(img.client_quotas(), USER, CLIENT, QuotaMode::Strict);
    let mut attempt = QuotaAttempt::new();
    quota.begin_attempt(&mut attempt);
    assert!(quota.record(60).is_ok());
    quota.begin_attempt(&mut attempt);
    assert!(quota.record(60).is_ok());
    assert!(quota.record(60).is_ok());
    assert!(quota.record(60).is_err());
    assert_eq!(quota.throttle_time_ms(), 2000);
    assert!(clock.now() > 0);
}
