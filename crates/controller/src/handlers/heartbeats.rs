//! Broker sessions and control states on the active controller: Kafka's
//! `BrokerHeartbeatTracker` (contact times, read and written outside the
//! writer so a slow commit cannot expire a session) and
//! `BrokerHeartbeatManager` (fenced, metadata offset, controlled shutdown
//! offset, and the next state a heartbeat asks for). Neither is replicated:
//! a new active controller starts them afresh from its image.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use crate::image::ClusterImage;

/// A broker's registration as the session tracker keys it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct BrokerIdAndEpoch {
    /// Broker id.
    pub id: i32,
    /// Broker epoch.
    pub epoch: i64,
}

/// Contact times of broker sessions (Kafka's `BrokerHeartbeatTracker`),
/// for the leader epoch they were started in.
#[derive(Debug)]
pub struct SessionTracker {
    session_timeout: Duration,
    /// The leader epoch these sessions belong to.
    epoch: Option<i32>,
    contacts: HashMap<BrokerIdAndEpoch, Instant>,
}

impl SessionTracker {
    /// An empty tracker with `broker.session.timeout.ms`.
    pub fn new(session_timeout: Duration) -> Self {
        SessionTracker {
            session_timeout,
            epoch: None,
            contacts: HashMap::new(),
        }
    }

    /// Starts the sessions of leader epoch `epoch`: every unfenced broker of
    /// `cluster` gets a session that starts `now` (one timeout of grace, as
    /// Kafka's `ClusterControlManager.activate` gives).
    pub fn activate(&mut self, epoch: i32, cluster: &ClusterImage, now: Instant) {
        self.epoch = Some(epoch);
        self.contacts.clear();
        for b in cluster.brokers().filter(|b| !b.fenced()) {
            self.contacts.insert(
                BrokerIdAndEpoch {
                    id: b.id(),
                    epoch: b.epoch(),
                },
                now,
            );
        }
    }

    /// Records a heartbeat received at `now` for leader epoch `epoch`;
    /// false when the sessions of that epoch have not been started yet (they
    /// start with every unfenced broker fresh, so nothing is lost).
    pub fn track(&mut self, epoch: i32, key: BrokerIdAndEpoch, now: Instant) -> bool {
        if self.epoch != Some(epoch) {
            return false;
        }
        self.contacts.insert(key, now);
        true
    }

    fn is_expired(&self, contact: Instant, now: Instant) -> bool {
        now > contact && now.duration_since(contact) > self.session_timeout
    }

    /// Whether the session `key` exists and has not expired.
    pub fn has_valid_session(&self, key: BrokerIdAndEpoch, now: Instant) -> bool {
        self.contacts
            .get(&key)
            .is_some_and(|c| !self.is_expired(*c, now))
    }

    /// When the first session expires if no heartbeat renews it: the
    /// oldest contact plus the timeout (a session is expired once more than
    /// the timeout has passed). `None` without sessions.
    pub fn next_expiry(&self) -> Option<Instant> {
        self.contacts
            .values()
            .min()
            .map(|oldest| *oldest + self.session_timeout)
    }

    /// Removes and returns one expired session, if any (the one with the
    /// oldest contact; Kafka takes any).
    pub fn remove_expired(&mut self, now: Instant) -> Option<BrokerIdAndEpoch> {
        let key = self
            .contacts
            .iter()
            .filter(|(_, c)| self.is_expired(**c, now))
            .min_by_key(|(k, c)| (**c, k.id))
            .map(|(k, _)| *k)?;
        self.contacts.remove(&key);
        Some(key)
    }
}

/// Where a broker stands, and where a heartbeat takes it (Kafka's
/// `BrokerControlState`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BrokerControlState {
    /// Registered but fenced.
    Fenced,
    /// Unfenced: may lead and follow.
    Unfenced,
    /// Moving its leaderships away before shutting down.
    ControlledShutdown,
    /// May shut down now.
    ShutdownNow,
}

impl BrokerControlState {
    /// Whether a broker in this state is fenced.
    pub fn fenced(self) -> bool {
        matches!(self, Self::Fenced | Self::ShutdownNow)
    }

    /// Whether a broker in this state is in controlled shutdown.
    pub fn in_controlled_shutdown(self) -> bool {
        self == Self::ControlledShutdown
    }

    /// Whether a broker in this state should finish shutting down.
    pub fn should_shut_down(self) -> bool {
        self == Self::ShutdownNow
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct HeartbeatState {
    fenced: bool,
    metadata_offset: i64,
    /// The offset whose commit ends the controlled shutdown; -1 if none.
    controlled_shutdown_offset: i64,
}

impl HeartbeatState {
    fn shutting_down(&self) -> bool {
        self.controlled_shutdown_offset >= 0
    }
}

/// What a heartbeat asks for (the fields of a BrokerHeartbeatRequest that
/// decide the next state).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HeartbeatAsk {
    /// WantFence.
    pub want_fence: bool,
    /// WantShutDown.
    pub want_shut_down: bool,
    /// CurrentMetadataOffset.
    pub current_metadata_offset: i64,
}

/// Per-broker control states of the active controller (Kafka's
/// `BrokerHeartbeatManager` without its tracker).
#[derive(Debug, Clone, Default)]
pub struct BrokerHeartbeats {
    brokers: HashMap<i32, HeartbeatState>,
}

impl BrokerHeartbeats {
    /// The states of every registered broker of `cluster` (Kafka's
    /// `ClusterControlManager.activate`).
    pub fn activate(cluster: &ClusterImage) -> Self {
        let mut out = BrokerHeartbeats::default();
        for b in cluster.brokers() {
            out.register(b.id(), b.fenced());
        }
        out
    }

    /// Forgets broker `id`.
    pub fn remove(&mut self, id: i32) {
        self.brokers.remove(&id);
    }

    /// Marks broker `id` fenced (Kafka's `fence`, after a session expired).
    pub fn fence(&mut self, id: i32) {
        if let Some(b) = self.brokers.get_mut(&id) {
            b.fenced = true;
        }
    }

    /// Kafka's `register`: a new state, or the fencing of an existing one
    /// updated (keeping its metadata offset only when the fencing changes,
    /// as Kafka does).
    pub fn register(&mut self, id: i32, fenced: bool) {
        let offset = match self.brokers.get(&id) {
            None => {
                self.brokers.insert(
                    id,
                    HeartbeatState {
                        fenced,
                        metadata_offset: -1,
                        controlled_shutdown_offset: -1,
                    },
                );
                -1
            }
            Some(b) if b.fenced != fenced => b.metadata_offset,
            Some(_) => -1,
        };
        self.touch(id, fenced, offset);
    }

    /// Kafka's `touch`: the fencing and metadata offset a heartbeat left.
    pub fn touch(&mut self, id: i32, fenced: bool, metadata_offset: i64) {
        if let Some(b) = self.brokers.get_mut(&id) {
            b.fenced = fenced;
            b.metadata_offset = metadata_offset;
            if fenced {
                b.controlled_shutdown_offset = -1;
            }
        }
    }

    /// The lowest metadata offset among unfenced brokers not shutting down
    /// (`i64::MAX` if none).
    pub fn lowest_active_offset(&self) -> i64 {
        self.brokers
            .values()
            .filter(|b| !b.fenced && !b.shutting_down())
            .map(|b| b.metadata_offset)
            .min()
            .unwrap_or(i64::MAX)
    }

    /// Records the offset whose commit ends broker `id`'s controlled
    /// shutdown, unless one is already recorded.
    pub fn maybe_update_controlled_shutdown_offset(&mut self, id: i32, offset: i64) {
        if let Some(b) = self.brokers.get_mut(&id) {
            if !b.fenced && b.controlled_shutdown_offset < 0 {
                b.controlled_shutdown_offset = offset;
            }
        }
    }

    /// Broker `id`'s current state.
    pub fn current_state(&self, id: i32) -> Option<BrokerControlState> {
        let b = self.brokers.get(&id)?;
        Some(if b.shutting_down() {
            BrokerControlState::ControlledShutdown
        } else if b.fenced {
            BrokerControlState::Fenced
        } else {
            BrokerControlState::Unfenced
        })
    }

    /// Kafka's `calculateNextBrokerState`: the current and next state of
    /// broker `id` for a heartbeat, given the offset of its
    /// RegisterBrokerRecord and whether it still leads partitions.
    pub fn next_state(
        &self,
        id: i32,
        ask: HeartbeatAsk,
        registration_offset: i64,
        has_leaderships: impl Fn() -> bool,
    ) -> Option<(BrokerControlState, BrokerControlState)> {
        use BrokerControlState::*;
        let current = self.current_state(id)?;
        let next = match current {
            Fenced if ask.want_shut_down => {
                tracing::info!(
                    "Fenced broker {id} has requested and been granted an immediate shutdown."
                );
                ShutdownNow
            }
            Fenced if !ask.want_fence => {
                if ask.current_metadata_offset >= registration_offset {
                    tracing::info!(
                        "The request from broker {id} to unfence has been granted because it has caught up with the offset of its register broker record {registration_offset}."
                    );
                    Unfenced
                } else {
                    tracing::debug!(
                        "The request from broker {id} to unfence cannot yet be granted because it has not caught up with the offset of its register broker record {registration_offset}. It is still at offset {}.",
                        ask.current_metadata_offset
                    );
                    Fenced
                }
            }
            Fenced => Fenced,
            Unfenced if ask.want_fence => {
                if ask.want_shut_down {
                    tracing::info!(
                        "Unfenced broker {id} has requested and been granted an immediate shutdown."
                    );
                    ShutdownNow
                } else {
                    tracing::info!("Unfenced broker {id} has requested and been granted fencing");
                    Fenced
                }
            }
            Unfenced if ask.want_shut_down => {
                if has_leaderships() {
                    tracing::info!(
                        "Unfenced broker {id} has requested and been granted a controlled shutdown."
                    );
                    ControlledShutdown
                } else {
                    tracing::info!(
                        "Unfenced broker {id} has requested and been granted an immediate shutdown."
                    );
                    ShutdownNow
                }
            }
            Unfenced => Unfenced,
            ControlledShutdown => {
                if has_leaderships() {
                    ControlledShutdown
                } else {
                    let lowest = self.lowest_active_offset();
                    let shutdown_offset = self.brokers[&id].controlled_shutdown_offset;
                    if shutdown_offset <= lowest {
                        tracing::info!(
                            "The request from broker {id} to shut down has been granted since the lowest active offset {lowest} is now greater than the broker's controlled shutdown offset {shutdown_offset}."
                        );
                        ShutdownNow
                    } else {
                        ControlledShutdown
                    }
                }
            }
            ShutdownNow => ShutdownNow,
        };
        Some((current, next))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ASK: HeartbeatAsk = HeartbeatAsk {
        want_fence: false,
        want_shut_down: false,
        current_metadata_offset: 10,
    };

    #[test]
    fn a_fenced_broker_is_unfenced_once_caught_up_with_its_registration() {
        let mut h = BrokerHeartbeats::default();
        h.register(1, true);
        let next = |h: &BrokerHeartbeats, offset| {
            h.next_state(
                1,
                HeartbeatAsk {
                    current_metadata_offset: offset,
                    ..ASK
                },
                10,
                || false,
            )
        };
        use BrokerControlState::*;
        assert_eq!(next(&h, 9), Some((Fenced, Fenced)));
        assert_eq!(next(&h, 10), Some((Fenced, Unfenced)));
        let want_fence = HeartbeatAsk {
            want_fence: true,
            ..ASK
        };
        assert_eq!(
            h.next_state(1, want_fence, 0, || false),
            Some((Fenced, Fenced))
        );
        assert_eq!(h.next_state(2, ASK, 0, || false), None);
    }

    #[test]
    fn controlled_shutdown_waits_for_leaderships_and_the_lowest_active_offset() {
        use BrokerControlState::*;
        let mut h = BrokerHeartbeats::default();
        for id in [1, 2] {
            h.register(id, false);
            h.touch(id, false, 5);
        }
        let shut = HeartbeatAsk {
            want_shut_down: true,
            ..ASK
        };
        assert_eq!(
            h.next_state(1, shut, 0, || true),
            Some((Unfenced, ControlledShutdown))
        );
        assert_eq!(
            h.next_state(1, shut, 0, || false),
            Some((Unfenced, ShutdownNow))
        );
        h.maybe_update_controlled_shutdown_offset(1, 7);
        assert_eq!(h.current_state(1), Some(ControlledShutdown));
        // Broker 2 (active) is at 5 < 7: not yet.
        assert_eq!(
            h.next_state(1, shut, 0, || false),
            Some((ControlledShutdown, ControlledShutdown))
        );
        h.touch(2, false, 7);
        assert_eq!(
            h.next_state(1, shut, 0, || false),
            Some((ControlledShutdown, ShutdownNow))
        );
        // A heartbeat that leaves it fenced ends the controlled shutdown.
        h.touch(1, true, 7);
        assert_eq!(h.current_state(1), Some(Fenced));
    }

    #[test]
    fn the_next_expiry_is_the_oldest_contact_plus_the_timeout() {
        let mut t = SessionTracker::new(Duration::from_millis(100));
        let now = Instant::now();
        assert_eq!(t.next_expiry(), None, "no sessions");
        t.activate(1, &ClusterImage::default(), now);
        let (a, b) = (
            BrokerIdAndEpoch { id: 1, epoch: 5 },
            BrokerIdAndEpoch { id: 2, epoch: 6 },
        );
        assert!(t.track(1, a, now + Duration::from_millis(30)));
        assert!(t.track(1, b, now + Duration::from_millis(10)));
        assert_eq!(t.next_expiry(), Some(now + Duration::from_millis(110)));
        // A heartbeat of the oldest moves the expiry to the next one.
        assert!(t.track(1, b, now + Duration::from_millis(50)));
        assert_eq!(t.next_expiry(), Some(now + Duration::from_millis(130)));
        // Just past it, that session is the expired one.
        assert_eq!(t.remove_expired(now + Duration::from_millis(130)), None);
        assert_eq!(t.remove_expired(now + Duration::from_millis(131)), Some(a));
        assert_eq!(t.next_expiry(), Some(now + Duration::from_millis(150)));
    }

    #[test]
    fn sessions_expire_after_the_timeout_and_only_for_their_epoch() {
        let mut t = SessionTracker::new(Duration::from_millis(100));
        let now = Instant::now();
        let key = BrokerIdAndEpoch { id: 1, epoch: 5 };
        assert!(!t.track(3, key, now), "sessions of epoch 3 not started");
        t.activate(3, &ClusterImage::default(), now);
        assert!(t.track(3, key, now));
        assert!(t.has_valid_session(key, now + Duration::from_millis(100)));
        assert_eq!(t.remove_expired(now + Duration::from_millis(100)), None);
        assert!(!t.has_valid_session(key, now + Duration::from_millis(101)));
        assert_eq!(
            t.remove_expired(now + Duration::from_millis(101)),
            Some(key)
        );
        assert_eq!(t.remove_expired(now + Duration::from_millis(500)), None);
    }
}
