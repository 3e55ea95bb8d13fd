//! Connection counting as Kafka's `ConnectionQuotas` does it: an accepted
//! connection first waits until its listener and the whole server have a
//! free slot (`listener.name.<l>.max.connections`, `max.connections`; the
//! acceptor stops taking connections meanwhile, so the rest wait in the
//! listen backlog), then is counted against its IP address and closed at
//! once when that address already has `max.connections.per.ip` (or its
//! override) open.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex, MutexGuard};

use tokio::sync::Notify;

use crate::config::connections::ConnectionLimits;

#[derive(Debug, Default)]
struct Counts {
    total: u32,
    per_listener: HashMap<String, u32>,
    per_ip: HashMap<IpAddr, u32>,
}

/// The open connections of every listener of one server.
#[derive(Debug)]
pub(crate) struct ConnectionQuotas {
    limits: ConnectionLimits,
    counts: Mutex<Counts>,
    freed: Notify,
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
    pub(crate) fn new(limits: ConnectionLimits) -> Arc<ConnectionQuotas> {
        Arc::new(ConnectionQuotas {
            limits,
            counts: Mutex::new(Counts::default()),
            freed: Notify::new(),
        })
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

    /// Counts a connection from `ip` on `listener`, first waiting for a
    /// listener and server slot; refuses it when `ip` is at its maximum.
    pub(crate) async fn admit(
        self: &Arc<Self>,
        listener: &str,
        ip: IpAddr,
    ) -> Result<ConnectionSlot, TooManyConnections> {
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
    ) -> Option<Result<ConnectionSlot, TooManyConnections>> {
        let mut counts = self.counts();
        let on_listener = counts.per_listener.get(listener).copied().unwrap_or(0);
        if on_listener >= self.listener_limit(listener)
            || counts.total >= self.limits.max_connections
        {
            return None;
        }
        let max = self
            .limits
            .per_ip_overrides
            .get(&ip)
            .copied()
            .unwrap_or(self.limits.per_ip);
        let from_ip = counts.per_ip.get(&ip).copied().unwrap_or(0);
        if from_ip >= max {
            return Some(Err(TooManyConnections { ip, max }));
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
    use std::time::Duration;

    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().expect("ip")
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
        let q = ConnectionQuotas::new(ConnectionLimits {
            per_ip_overrides: BTreeMap::from([(ip("10.0.0.9"), 3)]),
            ..limits(100, 2)
        });
        let a = ip("10.0.0.1");
        let s1 = q.admit("CONTROLLER", a).await.expect("first");
        let _s2 = q.admit("CONTROLLER", a).await.expect("second");
        let refused = q.admit("CONTROLLER", a).await.expect_err("third");
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
        let q = ConnectionQuotas::new(ConnectionLimits {
            per_ip_overrides: BTreeMap::from([(ip("127.0.0.1"), 1)]),
            ..limits(100, 0)
        });
        assert!(q.admit("CONTROLLER", ip("127.0.0.2")).await.is_err());
        assert!(q.admit("CONTROLLER", ip("127.0.0.1")).await.is_ok());
    }

    #[tokio::test]
    async fn the_server_limit_makes_new_connections_wait_for_a_free_slot() {
        let q = ConnectionQuotas::new(limits(2, 100));
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
        let q = ConnectionQuotas::new(ConnectionLimits {
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
}
