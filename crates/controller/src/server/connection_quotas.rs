//! Connection counting as Kafka's `ConnectionQuotas` does it. An accepted
//! connection is first counted against the connection creation rates of
//! the whole server (`max.connection.creation.rate`) and of its listener
//! (`listener.name.<l>.max.connection.creation.rate`): above either, the
//! acceptor waits until the rate is back within it. It then waits until
//! its listener and the whole server have a free slot
//! (`listener.name.<l>.max.connections`, `max.connections`); the acceptor
//! takes no connection meanwhile, so the rest wait in the listen backlog.
//! Then its IP address's creation rate is checked (the
//! `connection_creation_rate` client quota of the `ip` entity, from the
//! metadata image): above it, the connection is closed once the throttle
//! time has passed, and not counted anywhere. Last, it is counted against
//! its address and closed at once when that address already has
//! `max.connections.per.ip` (or its override) open.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use tokio::sync::Notify;

use super::rate::Rate;
use crate::config::connections::ConnectionLimits;

/// The `connection_creation_rate` quota of an address, `None` when it has
/// none (Kafka's default, `Integer.MAX_VALUE`).
pub(crate) type IpConnectionRates = Arc<dyn Fn(IpAddr) -> Option<u32> + Send + Sync>;

/// How long an address's rate is kept after its last connection (Kafka's
/// IP sensor expiration).
const IP_RATE_EXPIRY_MS: i64 = 3_600_000;
/// Addresses tracked before idle ones are dropped.
const IP_RATE_PRUNE_AT: usize = 1024;

#[derive(Debug, Default)]
struct Counts {
    total: u32,
    per_listener: HashMap<String, u32>,
    per_ip: HashMap<IpAddr, u32>,
}

/// A connection creation rate over `limits`' quota windows.
fn new_rate(limits: &ConnectionLimits) -> Rate {
    Rate::new(
        limits.quota_window_num,
        i64::from(limits.quota_window_size_seconds) * 1000,
    )
}

/// The connection creation rates measured so far.
#[derive(Debug)]
struct Rates {
    server: Rate,
    per_listener: HashMap<String, Rate>,
    per_ip: HashMap<IpAddr, Rate>,
}

/// The open connections of every listener of one server.
pub(crate) struct ConnectionQuotas {
    limits: ConnectionLimits,
    counts: Mutex<Counts>,
    freed: Notify,
    rates: Mutex<Rates>,
    ip_rates: Option<IpConnectionRates>,
    started: Instant,
}

impl std::fmt::Debug for ConnectionQuotas {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ConnectionQuotas")
            .field("limits", &self.limits)
            .field("counts", &self.counts)
            .finish_non_exhaustive()
    }
}

/// Why a connection was not admitted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Refused {
    /// Its address already has its maximum of connections open: closed at
    /// once.
    TooMany(TooManyConnections),
    /// Its address is over its connection creation rate: closed after
    /// `throttle`.
    Throttled { ip: IpAddr, throttle: Duration },
}

/// A connection from `ip` refused because the address already has `max`
/// connections open.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct TooManyConnections {
    pub ip: IpAddr,
    pub max: u32,
}

impl std::fmt::Display for TooManyConnections {
    /// Kafka's log line (`/` before the address, as Java prints one).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Rejected connection from /{}, address already has the configured maximum of {} connections.",
            self.ip, self.max
        )
    }
}

/// One counted connection; dropping it frees its slot.
#[derive(Debug)]
pub(crate) struct ConnectionSlot {
    quotas: Arc<ConnectionQuotas>,
    listener: String,
    ip: IpAddr,
}

impl Drop for ConnectionSlot {
    fn drop(&mut self) {
        self.quotas.release(&self.listener, self.ip);
    }
}

impl ConnectionQuotas {
    pub(crate) fn new(
        limits: ConnectionLimits,
        ip_rates: Option<IpConnectionRates>,
    ) -> Arc<ConnectionQuotas> {
        let rates = Rates {
            server: new_rate(&limits),
            per_listener: HashMap::new(),
            per_ip: HashMap::new(),
        };
        Arc::new(ConnectionQuotas {
            limits,
            counts: Mutex::new(Counts::default()),
            freed: Notify::new(),
            rates: Mutex::new(rates),
            ip_rates,
            started: Instant::now(),
        })
    }

    fn rates(&self) -> MutexGuard<'_, Rates> {
        self.rates.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn now_ms(&self) -> i64 {
        i64::try_from(self.started.elapsed().as_millis()).unwrap_or(i64::MAX)
    }

    /// The longest throttle: one quota window.
    fn max_throttle_ms(&self) -> i64 {
        i64::from(self.limits.quota_window_size_seconds) * 1000
    }

    /// Records a connection on the server's and `listener`'s creation
    /// rates; how long the acceptor must wait before it goes on.
    fn record_creation(&self, listener: &str) -> Duration {
        let now = self.now_ms();
        let max = self.max_throttle_ms();
        let mut rates = self.rates();
        let server = rates
            .server
            .record_and_throttle(self.limits.max_creation_rate, now, max);
        let bound = self
            .limits
            .per_listener_creation_rate
            .get(listener)
            .copied()
            .unwrap_or(i32::MAX as u32);
        let on_listener = rates
            .per_listener
            .entry(listener.to_owned())
            .or_insert_with(|| new_rate(&self.limits))
            .record_and_throttle(bound, now, max);
        Duration::from_millis(u64::try_from(server.max(on_listener)).unwrap_or(0))
    }

    /// Records a connection from `ip` on its creation rate, if it has a
    /// quota; over it, takes the connection back from every rate and
    /// answers how long to hold it before closing it.
    fn record_ip_creation(&self, listener: &str, ip: IpAddr) -> Option<Duration> {
        let bound = self.ip_rates.as_ref().and_then(|rates| rates(ip))?;
        let now = self.now_ms();
        let mut rates = self.rates();
        if rates.per_ip.len() >= IP_RATE_PRUNE_AT && !rates.per_ip.contains_key(&ip) {
            rates.per_ip.retain(|_, r| {
                r.last_event_ms()
                    .is_some_and(|t| now - t < IP_RATE_EXPIRY_MS)
            });
        }
        let throttle = rates
            .per_ip
            .entry(ip)
            .or_insert_with(|| new_rate(&self.limits))
            .record_and_throttle(bound, now, self.max_throttle_ms());
        if throttle <= 0 {
            return None;
        }
        tracing::trace!("Throttling /{ip} for {throttle} ms");
        if let Some(r) = rates.per_ip.get_mut(&ip) {
            r.record(-1.0, now);
        }
        rates.server.record(-1.0, now);
        if let Some(r) = rates.per_listener.get_mut(listener) {
            r.record(-1.0, now);
        }
        Some(Duration::from_millis(u64::try_from(throttle).unwrap_or(0)))
    }

    fn counts(&self) -> MutexGuard<'_, Counts> {
        // The counts stay consistent even if a holder panicked: every
        // update is a single assignment.
        self.counts.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn listener_limit(&self, listener: &str) -> u32 {
        self.limits
            .per_listener
            .get(listener)
            .copied()
            .unwrap_or(u32::MAX)
    }

    /// Counts a connection from `ip` on `listener`, first waiting for the
    /// server's and the listener's creation rates and for a listener and
    /// server slot; refuses it when `ip` is over its creation rate or at
    /// its maximum of connections.
    pub(crate) async fn admit(
        self: &Arc<Self>,
        listener: &str,
        ip: IpAddr,
    ) -> Result<ConnectionSlot, Refused> {
        let throttle = self.record_creation(listener);
        if !throttle.is_zero() {
            tracing::debug!(
                listener,
                "the connection creation rate is over its quota: accepting the next connection in {} ms",
                throttle.as_millis()
            );
            tokio::time::sleep(throttle).await;
        }
        loop {
            let freed = self.freed.notified();
            tokio::pin!(freed);
            // Registered before the check, so a release in between wakes it.
            freed.as_mut().enable();
            if let Some(admitted) = self.try_admit(listener, ip) {
                return admitted;
            }
            freed.await;
        }
    }

    /// `None` while the listener or the server has no free slot.
    fn try_admit(
        self: &Arc<Self>,
        listener: &str,
        ip: IpAddr,
    ) -> Option<Result<ConnectionSlot, Refused>> {
        let mut counts = self.counts();
        let on_listener = counts.per_listener.get(listener).copied().unwrap_or(0);
        if on_listener >= self.listener_limit(listener)
            || counts.total >= self.limits.max_connections
        {
            return None;
        }
        if let Some(throttle) = self.record_ip_creation(listener, ip) {
            return Some(Err(Refused::Throttled { ip, throttle }));
        }
        let max = self
            .limits
            .per_ip_overrides
            .get(&ip)
            .copied()
            .unwrap_or(self.limits.per_ip);
        let from_ip = counts.per_ip.get(&ip).copied().unwrap_or(0);
        if from_ip >= max {
            return Some(Err(Refused::TooMany(TooManyConnections { ip, max })));
        }
        counts.total += 1;
        *counts.per_listener.entry(listener.to_owned()).or_insert(0) += 1;
        *counts.per_ip.entry(ip).or_insert(0) += 1;
        Some(Ok(ConnectionSlot {
            quotas: self.clone(),
            listener: listener.to_owned(),
            ip,
        }))
    }

    fn release(&self, listener: &str, ip: IpAddr) {
        {
            let mut counts = self.counts();
            counts.total = counts.total.saturating_sub(1);
            if let Some(n) = counts.per_listener.get_mut(listener) {
                *n = n.saturating_sub(1);
            }
            if let Some(n) = counts.per_ip.get_mut(&ip) {
                *n -= 1;
                if *n == 0 {
                    counts.per_ip.remove(&ip);
                }
            }
        }
        self.freed.notify_waiters();
    }

    /// Open connections in all, on `listener` and from `ip`.
    #[cfg(test)]
    fn open(&self, listener: &str, ip: IpAddr) -> (u32, u32, u32) {
        let counts = self.counts();
        (
            counts.total,
            counts.per_listener.get(listener).copied().unwrap_or(0),
            counts.per_ip.get(&ip).copied().unwrap_or(0),
        )
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().expect("ip")
    }

    fn quotas(limits: ConnectionLimits) -> Arc<ConnectionQuotas> {
        ConnectionQuotas::new(limits, None)
    }

    fn limits(max: u32, per_ip: u32) -> ConnectionLimits {
        ConnectionLimits {
            max_connections: max,
            per_ip,
            ..ConnectionLimits::default()
        }
    }

    #[tokio::test]
    async fn an_address_at_its_maximum_is_refused_and_others_are_not() {
        let q = quotas(ConnectionLimits {
            per_ip_overrides: BTreeMap::from([(ip("10.0.0.9"), 3)]),
            ..limits(100, 2)
        });
        let a = ip("10.0.0.1");
        let s1 = q.admit("CONTROLLER", a).await.expect("first");
        let _s2 = q.admit("CONTROLLER", a).await.expect("second");
        let refused = q.admit("CONTROLLER", a).await.expect_err("third");
        let Refused::TooMany(refused) = refused else {
            panic!("{refused:?}")
        };
        assert_eq!(refused, TooManyConnections { ip: a, max: 2 });
        assert_eq!(
            refused.to_string(),
            "Rejected connection from /10.0.0.1, address already has the configured maximum of 2 connections."
        );
        // A refused connection is not counted.
        assert_eq!(q.open("CONTROLLER", a), (2, 2, 2));
        // The override raises the limit of its address only.
        let b = ip("10.0.0.9");
        let mut held = Vec::new();
        for _ in 0..3 {
            held.push(q.admit("CONTROLLER", b).await.expect("override"));
        }
        assert!(q.admit("CONTROLLER", b).await.is_err());
        // A closed connection frees its address's slot.
        drop(s1);
        assert!(q.admit("CONTROLLER", a).await.is_ok());
    }

    #[tokio::test]
    async fn a_zero_limit_with_an_override_admits_only_the_override() {
        let q = quotas(ConnectionLimits {
            per_ip_overrides: BTreeMap::from([(ip("127.0.0.1"), 1)]),
            ..limits(100, 0)
        });
        assert!(q.admit("CONTROLLER", ip("127.0.0.2")).await.is_err());
        assert!(q.admit("CONTROLLER", ip("127.0.0.1")).await.is_ok());
    }

    #[tokio::test]
    async fn the_server_limit_makes_new_connections_wait_for_a_free_slot() {
        let q = quotas(limits(2, 100));
        let first = q.admit("CONTROLLER", ip("10.0.0.1")).await.expect("1");
        let _second = q.admit("RAW", ip("10.0.0.2")).await.expect("2");
        let waiting = {
            let q = q.clone();
            tokio::spawn(async move { q.admit("CONTROLLER", ip("10.0.0.3")).await })
        };
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert!(!waiting.is_finished(), "admitted past max.connections");
        drop(first);
        let third = tokio::time::timeout(Duration::from_secs(5), waiting)
            .await
            .expect("admitted once a slot is free")
            .expect("task")
            .expect("not refused");
        assert_eq!(q.open("CONTROLLER", ip("10.0.0.3")), (2, 1, 1));
        drop(third);
        assert_eq!(q.open("CONTROLLER", ip("10.0.0.3")), (1, 0, 0));
    }

    #[tokio::test]
    async fn a_listener_limit_holds_back_only_that_listener() {
        let q = quotas(ConnectionLimits {
            per_listener: BTreeMap::from([("RAW".to_owned(), 1)]),
            ..limits(100, 100)
        });
        let raw = q.admit("RAW", ip("10.0.0.1")).await.expect("raw");
        let waiting = {
            let q = q.clone();
            tokio::spawn(async move { q.admit("RAW", ip("10.0.0.1")).await })
        };
        // The other listener is not limited by RAW's count.
        let mut held = Vec::new();
        for _ in 0..5 {
            held.push(q.admit("CONTROLLER", ip("10.0.0.1")).await.expect("ctl"));
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert!(!waiting.is_finished(), "admitted past RAW's limit");
        drop(raw);
        tokio::time::timeout(Duration::from_secs(5), waiting)
            .await
            .expect("admitted once RAW has a slot")
            .expect("task")
            .expect("not refused");
    }

    /// Limits with 2 quota windows of 1 s: a rate is measured over at
    /// least 1 s from the start.
    fn rate_limits(server_rate: u32) -> ConnectionLimits {
        ConnectionLimits {
            max_creation_rate: server_rate,
            quota_window_num: 2,
            quota_window_size_seconds: 1,
            ..ConnectionLimits::default()
        }
    }

    #[tokio::test]
    async fn over_the_server_creation_rate_the_acceptor_waits() {
        let q = quotas(rate_limits(10));
        let started = Instant::now();
        let mut held = Vec::new();
        for _ in 0..10 {
            held.push(q.admit("CONTROLLER", ip("10.0.0.1")).await.expect("within"));
        }
        assert!(started.elapsed() < Duration::from_millis(100));
        // The 11th makes 11 per second against 10: Kafka's throttle is
        // (11 - 10) / 10 x 1000 ms.
        let before = Instant::now();
        held.push(
            q.admit("CONTROLLER", ip("10.0.0.2"))
                .await
                .expect("after a wait"),
        );
        assert!(
            before.elapsed() >= Duration::from_millis(95),
            "{:?}",
            before.elapsed()
        );
        assert_eq!(q.open("CONTROLLER", ip("10.0.0.2")).0, 11);
    }

    #[tokio::test]
    async fn a_listener_creation_rate_holds_back_only_that_listener() {
        let q = quotas(ConnectionLimits {
            per_listener_creation_rate: BTreeMap::from([("RAW".to_owned(), 1)]),
            ..rate_limits(i32::MAX as u32)
        });
        for _ in 0..5 {
            q.admit("CONTROLLER", ip("10.0.0.1"))
                .await
                .expect("unlimited");
        }
        let _first = q.admit("RAW", ip("10.0.0.1")).await.expect("first");
        // 2 per second against 1: (2 - 1) / 1 x 1000 ms, capped at one
        // 1 s window.
        let waiting = {
            let q = q.clone();
            tokio::spawn(async move { q.admit("RAW", ip("10.0.0.1")).await })
        };
        tokio::time::sleep(Duration::from_millis(300)).await;
        assert!(!waiting.is_finished(), "accepted within the throttle time");
        tokio::time::timeout(Duration::from_secs(5), waiting)
            .await
            .expect("accepted after the throttle time")
            .expect("task")
            .expect("not refused");
    }

    #[tokio::test]
    async fn an_address_over_its_creation_rate_is_refused_uncounted() {
        let limited = ip("10.0.0.1");
        let rates: IpConnectionRates = Arc::new(move |a| (a == limited).then_some(2));
        let q = ConnectionQuotas::new(rate_limits(i32::MAX as u32), Some(rates));
        let _a = q.admit("CONTROLLER", limited).await.expect("first");
        let _b = q.admit("CONTROLLER", limited).await.expect("second");
        // 3 per second against 2: (3 - 2) / 2 x 1000 ms.
        let refused = q.admit("CONTROLLER", limited).await.expect_err("third");
        assert_eq!(
            refused,
            Refused::Throttled {
                ip: limited,
                throttle: Duration::from_millis(500)
            }
        );
        // Not counted, and taken back from the server's rate.
        assert_eq!(q.open("CONTROLLER", limited), (2, 2, 2));
        let now = q.now_ms();
        assert_eq!(q.rates().server.measure(now), 2.0);
        // Other addresses have no quota.
        for _ in 0..5 {
            q.admit("CONTROLLER", ip("10.0.0.2"))
                .await
                .expect("unlimited");
        }
    }
}
