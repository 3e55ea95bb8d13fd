//! Per-destination connection state for outbound requests (one request in
//! flight per destination, retry backoff, request timeout), as in Kafka's
//! `RequestManager`.

use std::collections::BTreeMap;

use super::message::Api;
use super::rng::RaftRng;
use super::types::{Address, NodeId};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ConnState {
    AwaitingResponse,
    BackingOff,
    Ready,
}

#[derive(Clone, Debug)]
struct Conn {
    state: ConnState,
    last_send: i64,
    last_fail: i64,
    inflight: Option<(u64, Api)>,
}

impl Conn {
    fn is_backoff_complete(&self, now: i64, backoff: i64) -> bool {
        self.state == ConnState::BackingOff && now >= self.last_fail + backoff
    }
    fn has_request_timed_out(&self, now: i64, timeout: i64) -> bool {
        self.state == ConnState::AwaitingResponse && now >= self.last_send + timeout
    }
    fn has_inflight(&self, now: i64, timeout: i64) -> bool {
        self.state == ConnState::AwaitingResponse && !self.has_request_timed_out(now, timeout)
    }
}

/// Connection bookkeeping of one replica.
#[derive(Clone, Debug)]
pub(crate) struct RequestManager {
    conns: BTreeMap<NodeId, Conn>,
    bootstrap: Vec<(NodeId, Address)>,
    retry_backoff_ms: i64,
    request_timeout_ms: i64,
}

impl RequestManager {
    pub(crate) fn new(
        bootstrap: Vec<(NodeId, Address)>,
        retry_backoff_ms: i64,
        request_timeout_ms: i64,
    ) -> Self {
        RequestManager {
            conns: BTreeMap::new(),
            bootstrap,
            retry_backoff_ms,
            request_timeout_ms,
        }
    }

    fn prune(&mut self, now: i64) {
        let (b, t) = (self.retry_backoff_ms, self.request_timeout_ms);
        self.conns
            .retain(|_, c| !(c.has_request_timed_out(now, t) || c.is_backoff_complete(now, b)));
    }

    pub(crate) fn has_any_inflight_request(&mut self, now: i64) -> bool {
        self.prune(now);
        let t = self.request_timeout_ms;
        self.conns.values().any(|c| c.has_inflight(now, t))
    }

    pub(crate) fn find_ready_bootstrap(
        &mut self,
        now: i64,
        rng: &mut dyn RaftRng,
    ) -> Option<(NodeId, Address)> {
        if self.has_any_inflight_request(now) || self.bootstrap.is_empty() {
            return None;
        }
        let n = self.bootstrap.len();
        let start = rng.below(n as i64) as usize;
        for i in 0..n {
            let (id, addr) = self.bootstrap[(start + i) % n].clone();
            if self.is_ready(id, now) {
                return Some((id, addr));
            }
        }
        None
    }

    pub(crate) fn backoff_before_available_bootstrap(&mut self, now: i64) -> i64 {
        self.prune(now);
        let t = self.request_timeout_ms;
        let mut min = self.retry_backoff_ms;
        for c in self.conns.values() {
            if c.has_inflight(now, t) {
                return c.last_send + t - now;
            } else if c.state == ConnState::BackingOff {
                min = min.min(c.last_fail + self.retry_backoff_ms - now);
            }
        }
        let ids: Vec<NodeId> = self.bootstrap.iter().map(|(id, _)| *id).collect();
        for id in ids {
            if self.is_ready(id, now) {
                return 0;
            }
        }
        min.max(0)
    }

    pub(crate) fn has_request_timed_out(&self, id: NodeId, now: i64) -> bool {
        self.conns
            .get(&id)
            .is_some_and(|c| c.has_request_timed_out(now, self.request_timeout_ms))
    }

    pub(crate) fn is_ready(&mut self, id: NodeId, now: i64) -> bool {
        let (b, t) = (self.retry_backoff_ms, self.request_timeout_ms);
        match self.conns.get_mut(&id) {
            None => true,
            Some(c) => {
                if c.is_backoff_complete(now, b) || c.has_request_timed_out(now, t) {
                    c.state = ConnState::Ready;
                }
                let ready = c.state == ConnState::Ready;
                if ready {
                    self.conns.remove(&id);
                }
                ready
            }
        }
    }

    pub(crate) fn is_backing_off(&self, id: NodeId, now: i64) -> bool {
        self.conns.get(&id).is_some_and(|c| {
            c.state == ConnState::BackingOff && !c.is_backoff_complete(now, self.retry_backoff_ms)
        })
    }

    pub(crate) fn remaining_request_time(&self, id: NodeId, now: i64) -> i64 {
        match self.conns.get(&id) {
            Some(c) if c.has_inflight(now, self.request_timeout_ms) => {
                c.last_send + self.request_timeout_ms - now
            }
            _ => 0,
        }
    }

    pub(crate) fn remaining_backoff(&self, id: NodeId, now: i64) -> i64 {
        if self.is_backing_off(id, now) {
            self.conns
                .get(&id)
                .map(|c| c.last_fail + self.retry_backoff_ms - now)
                .unwrap_or(0)
        } else {
            0
        }
    }

    /// The API of the in-flight request with this correlation id, if the
    /// response is still expected.
    pub(crate) fn expected_response(&self, id: NodeId, correlation_id: u64) -> Option<Api> {
        self.conns
            .get(&id)
            .and_then(|c| c.inflight)
            .filter(|(corr, _)| *corr == correlation_id)
            .map(|(_, api)| api)
    }

    pub(crate) fn on_response_result(
        &mut self,
        id: NodeId,
        correlation_id: u64,
        success: bool,
        now: i64,
    ) {
        if self.expected_response(id, correlation_id).is_none() {
            return;
        }
        if success {
            self.conns.remove(&id);
        } else if let Some(c) = self.conns.get_mut(&id) {
            c.last_fail = now;
            c.state = ConnState::BackingOff;
            c.inflight = None;
        }
    }

    /// Puts `id` into backoff after the response to `correlation_id`, even
    /// when that response was handled: used when `id` answered without
    /// leading this replica to a leader, so that asking it again waits
    /// `retry_backoff_ms`. The connection may have been reset by a state
    /// change while the response was handled; it is then backed off anew.
    /// A different request in flight to `id` is left alone.
    pub(crate) fn back_off(&mut self, id: NodeId, correlation_id: u64, now: i64) {
        let c = self.conns.entry(id).or_insert(Conn {
            state: ConnState::Ready,
            last_send: now,
            last_fail: now,
            inflight: None,
        });
        if c.inflight.is_some_and(|(corr, _)| corr != correlation_id) {
            return;
        }
        c.last_fail = now;
        c.state = ConnState::BackingOff;
        c.inflight = None;
    }

    pub(crate) fn on_request_sent(&mut self, id: NodeId, correlation_id: u64, api: Api, now: i64) {
        let c = self.conns.entry(id).or_insert(Conn {
            state: ConnState::Ready,
            last_send: 0,
            last_fail: 0,
            inflight: None,
        });
        c.last_send = now;
        c.inflight = Some((correlation_id, api));
        c.state = ConnState::AwaitingResponse;
    }

    pub(crate) fn reset(&mut self, id: NodeId) {
        self.conns.remove(&id);
    }

    pub(crate) fn reset_all(&mut self) {
        self.conns.clear();
    }
}
