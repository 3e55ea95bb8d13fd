//! Replication (KIP-595): appends as leader and as follower, the high
//! watermark on both sides, delivery of committed batches, the leader's
//! handling of Fetch (divergence, parked fetches) and the follower's handling
//! of Fetch responses.
//!
//! Read beside Kafka's `KafkaRaftClient` (`appendAsLeader`,
//! `appendAsFollower`, `handleFetchRequest`, `tryCompleteFetchRequest`,
//! `handleFetchResponse`, `onUpdateLeaderHighWatermark`,
//! `updateListenersProgress`), `LeaderState.updateLocalState` /
//! `updateReplicaState` and the `FetchPurgatory`.

use super::{ParkedFetch, RaftCore, LISTENER_STARTING};
use crate::core::action::{Action, InboundId};
use crate::core::error::{ErrorCode, RaftError};
use crate::core::leader::PendingChange;
use crate::core::log::{fetch_position, FetchPosition, RaftLog};
use crate::core::message::*;
use crate::core::record::Batch;
use crate::core::state::State;
use crate::core::types::*;

impl<L: RaftLog> RaftCore<L> {
    pub(super) fn append_as_leader(&mut self, batch: Batch, now: i64) -> Result<(), RaftError> {
        self.observe_appended(&batch);
        if let Err(e) = self.log.append(batch) {
            // Roll back anything recorded from the rejected batch.
            let end = self.log.end_offset();
            self.control.truncate_new_entries(end);
            return Err(RaftError::Log(e));
        }
        self.request_flush();
        // A new voter set takes effect at once: refresh the replica states
        // (and the HW) before anything else is counted.
        self.update_leader_end_offset(now);
        // Parked fetches waiting below the new end can complete now.
        let end = self.log.end_offset();
        let ready: Vec<ParkedFetch> = {
            let (ready, keep): (Vec<_>, Vec<_>) = std::mem::take(&mut self.parked)
                .into_iter()
                .partition(|p| p.request.fetch_offset < end);
            self.parked = keep;
            ready
        };
        for p in ready {
            let resp = self.try_complete_fetch(&p.request, now);
            self.respond(p.inbound, Response::Fetch(resp));
        }
        Ok(())
    }

    pub(super) fn update_leader_end_offset(&mut self, now: i64) {
        let end = if cfg!(kraft_mutant = "ack-before-fsync") {
            self.log.end_offset()
        } else {
            self.flushed_offset
        };
        let voters = self.control.last_voter_set().clone();
        let changed = match &mut self.state {
            State::Leader(l) => l.update_local_state(end, &voters),
            _ => false,
        };
        if changed {
            self.on_leader_hw_update(now);
        }
    }

    fn on_leader_hw_update(&mut self, now: i64) {
        let State::Leader(l) = &mut self.state else {
            return;
        };
        let Some(hw) = l.high_watermark else {
            return;
        };
        // Voter change completion.
        let mut completed = None;
        let mut resign = false;
        match &mut l.pending {
            Some(PendingChange::Add {
                inbound,
                last_offset: Some(offset),
                responded,
                ..
            }) if hw > *offset => {
                completed = (!*responded).then(|| {
                    (
                        *inbound,
                        Response::AddRaftVoter(VoterChangeResponse::code(ErrorCode::None)),
                    )
                });
                l.pending = None;
                self.stats.voter_changes_completed += 1;
            }
            Some(PendingChange::Remove {
                inbound,
                last_offset,
                ..
            }) if hw > *last_offset => {
                completed = Some((
                    *inbound,
                    Response::RemoveRaftVoter(VoterChangeResponse::code(ErrorCode::None)),
                ));
                l.pending = None;
                self.stats.voter_changes_completed += 1;
                resign = !self.control.last_voter_set().is_voter(&l.local.key);
            }
            _ => {}
        }
        if resign {
            l.resign_requested = true;
        }
        if let Some((inbound, response)) = completed {
            self.respond(inbound, response);
        }
        // Proposals.
        while let Some((epoch, last)) = self.proposals.front().copied() {
            if last >= hw {
                break;
            }
            self.proposals.pop_front();
            self.actions.push(Action::ProposalCompleted {
                epoch,
                last_offset: last,
                result: ErrorCode::None,
            });
        }
        self.complete_all_parked(now);
        self.deliver_committed(hw);
    }

    pub(super) fn update_follower_hw(&mut self, leader_hw: i64) {
        if leader_hw < 0 {
            return;
        }
        let new_hw = leader_hw.min(self.log.end_offset());
        let State::Follower(f) = &mut self.state else {
            return;
        };
        match f.hw {
            Some(hw) if new_hw <= hw => return,
            _ => f.hw = Some(new_hw),
        }
        self.deliver_committed(new_hw);
    }

    /// Emits committed batches below `hw` that were not delivered yet.
    fn deliver_committed(&mut self, hw: i64) {
        let next = self.listener_next;
        if next < hw && (next == LISTENER_STARTING || next < self.log.start_offset()) {
            if let Some(info) = self.log.latest_snapshot() {
                self.actions.push(Action::LoadSnapshot { id: info.id });
                self.listener_next = info.id.offset;
            }
        }
        if self.listener_next == LISTENER_STARTING {
            self.listener_next = 0;
        }
        let mut out = Vec::new();
        loop {
            let next = self.listener_next;
            if next >= hw {
                break;
            }
            let batches = self.log.read(next, 1 << 20);
            if batches.is_empty() {
                break;
            }
            let mut progressed = false;
            for b in batches {
                if b.last_offset() >= hw || b.base_offset < self.listener_next {
                    break;
                }
                self.listener_next = b.next_offset();
                out.push(b);
                progressed = true;
            }
            if !progressed {
                break;
            }
        }
        if !out.is_empty() {
            self.actions.push(Action::Committed { batches: out });
        }
        self.release_log_reads();
    }

    /// Tells the log which batches no reader is still expected to need: those
    /// below both the listener's position and, on a leader, the fetch offset
    /// of every other voter that still fetches (one that has not fetched for
    /// a fetch timeout, e.g. a crashed one, pins nothing).
    fn release_log_reads(&mut self) {
        let mut floor = self.listener_next.max(0);
        if let State::Leader(l) = &self.state {
            if let Some(slowest) = l.slowest_voter_fetch_offset(self.cfg.fetch_timeout_ms) {
                floor = floor.min(slowest);
            }
        }
        self.log.release_reads_below(floor);
    }

    fn append_as_follower(&mut self, batches: Vec<Batch>) {
        let mut appended = false;
        let epoch = self.epoch();
        for b in batches {
            let end = self.log.end_offset();
            if b.next_offset() <= end {
                continue;
            }
            if b.base_offset != end || b.epoch > epoch {
                tracing::warn!(
                    base = b.base_offset,
                    end,
                    "skipping records that do not fit the log"
                );
                break;
            }
            self.observe_appended(&b);
            if let Err(e) = self.log.append(b) {
                tracing::warn!("follower append failed: {e}");
                let end = self.log.end_offset();
                self.control.truncate_new_entries(end);
                break;
            }
            appended = true;
        }
        if appended {
            self.request_flush();
        }
    }

    fn fetch_response(&self, partition_error: ErrorCode, hw: Option<i64>) -> FetchResponse {
        FetchResponse {
            error_code: ErrorCode::None,
            partition_error,
            high_watermark: hw.unwrap_or(-1),
            log_start_offset: self.log.start_offset(),
            diverging_epoch: None,
            leader_id: self.leader_id_or_nil(),
            leader_epoch: self.epoch(),
            snapshot_id: None,
            records: Vec::new(),
            leader_endpoint: self.leader_node_endpoint(),
        }
    }

    pub(super) fn handle_fetch_request(
        &mut self,
        inbound: InboundId,
        r: FetchRequest,
        now: i64,
    ) -> Option<FetchResponse> {
        if !self.has_valid_cluster_id(&r.cluster_id) {
            return match Response::error(Api::Fetch, ErrorCode::InconsistentClusterId) {
                Response::Fetch(f) => Some(f),
                _ => None,
            };
        }
        if r.max_wait_ms < 0
            || r.fetch_offset < 0
            || r.last_fetched_epoch < 0
            || r.last_fetched_epoch > r.current_leader_epoch
        {
            return Some(self.fetch_response(ErrorCode::InvalidRequest, None));
        }
        let resp = self.try_complete_fetch(&r, now);
        if resp.partition_error != ErrorCode::None
            || !resp.records.is_empty()
            || r.max_wait_ms == 0
            || resp.diverging_epoch.is_some()
            || resp.snapshot_id.is_some()
            || r.high_watermark < resp.high_watermark
        {
            return Some(resp);
        }
        self.parked.push(ParkedFetch {
            inbound,
            deadline: now + r.max_wait_ms as i64,
            request: r,
            original: resp,
        });
        None
    }

    fn try_complete_fetch(&mut self, r: &FetchRequest, now: i64) -> FetchResponse {
        if let Some(e) = self.validate_leader_only(r.current_leader_epoch) {
            return self.fetch_response(e, None);
        }
        let position = if cfg!(kraft_mutant = "skip-divergence-check") {
            match fetch_position(&self.log, r.fetch_offset, r.last_fetched_epoch) {
                FetchPosition::Diverging(_) => FetchPosition::Valid,
                other => other,
            }
        } else {
            fetch_position(&self.log, r.fetch_offset, r.last_fetched_epoch)
        };
        let mut records = Vec::new();
        if position == FetchPosition::Valid {
            records = self.log.read(r.fetch_offset, r.max_bytes.max(0) as usize);
            let key = ReplicaKey::of(r.replica_id, r.replica_directory_id);
            let changed = if Some(key.id) == self.local_id() {
                false
            } else {
                match &mut self.state {
                    State::Leader(l) => l.update_replica_state(&key, now, r.fetch_offset),
                    _ => false,
                }
            };
            if changed {
                self.on_leader_hw_update(now);
            }
            self.release_log_reads();
        }
        let mut resp = self.fetch_response(ErrorCode::None, self.high_watermark());
        resp.records = records;
        match position {
            FetchPosition::Diverging(d) if cfg!(kraft_mutant = "diverge-too-far") => {
                resp.diverging_epoch = Some(OffsetAndEpoch::new((d.offset - 1).max(0), d.epoch))
            }
            FetchPosition::Diverging(d) => resp.diverging_epoch = Some(d),
            FetchPosition::Snapshot(s) => resp.snapshot_id = Some(s),
            FetchPosition::Valid => {}
        }
        resp
    }

    pub(super) fn complete_all_parked(&mut self, now: i64) {
        for p in std::mem::take(&mut self.parked) {
            let resp = self.try_complete_fetch(&p.request, now);
            self.respond(p.inbound, Response::Fetch(resp));
        }
    }

    pub(super) fn expire_parked_fetches(&mut self, now: i64) {
        let (expired, keep): (Vec<_>, Vec<_>) = std::mem::take(&mut self.parked)
            .into_iter()
            .partition(|p| now >= p.deadline);
        self.parked = keep;
        for p in expired {
            self.respond(p.inbound, Response::Fetch(p.original));
        }
    }

    pub(super) fn handle_fetch_response(&mut self, r: FetchResponse, now: i64) -> bool {
        if r.error_code != ErrorCode::None {
            return false;
        }
        let leader = (r.leader_id >= 0).then_some(r.leader_id);
        let endpoints = self.endpoints_from_response(leader, &r.leader_endpoint);
        if let Some(done) =
            self.handle_common_response(r.partition_error, leader, r.leader_epoch, endpoints, now)
        {
            return done;
        }
        if !matches!(self.state, State::Follower(_)) {
            return false;
        }
        if r.partition_error != ErrorCode::None {
            return false;
        }
        if let Some(d) = r.diverging_epoch.filter(|d| d.epoch >= 0) {
            let hw = self.high_watermark();
            if hw.is_some_and(|hw| d.offset < hw) {
                self.violation(format!(
                    "leader requested truncation to {} below the high watermark {hw:?}",
                    d.offset
                ));
                return false;
            }
            let target = if d.epoch == 0 {
                d.offset.min(self.log.end_offset())
            } else {
                let local = self.log.end_offset_for_epoch(d.epoch);
                if local.epoch == d.epoch {
                    local.offset.min(d.offset)
                } else {
                    local.offset
                }
            };
            if hw.is_some_and(|hw| target < hw) {
                self.violation(format!(
                    "truncation to {target} would go below the high watermark {hw:?}"
                ));
                return false;
            }
            let new_end = self.log.truncate_to(target);
            self.after_truncation(new_end);
        } else if let Some(s) = r.snapshot_id.filter(|s| s.epoch >= 0 || s.offset >= 0) {
            if s.epoch < 0 || s.offset < 0 {
                return false;
            }
            match self.log.begin_snapshot_download(s) {
                Ok(true) => {
                    if let State::Follower(f) = &mut self.state {
                        f.fetching_snapshot = Some(s);
                    }
                }
                Ok(false) => tracing::info!(?s, "snapshot already stored"),
                Err(e) => {
                    tracing::warn!("cannot start snapshot download: {e}");
                    return false;
                }
            }
        } else {
            self.append_as_follower(r.records);
            self.update_follower_hw(r.high_watermark);
        }
        if let State::Follower(f) = &mut self.state {
            f.fetch_deadline = now + self.cfg.fetch_timeout_ms;
            f.has_fetched = true;
        }
        true
    }
}
