//! Snapshot download (KIP-630): the leader serving FetchSnapshot and the
//! follower installing the snapshot it fetches chunk by chunk.
//!
//! Read beside Kafka's `KafkaRaftClient.handleFetchSnapshotRequest` and
//! `handleFetchSnapshotResponse`.

use bytes::Bytes;

use super::RaftCore;
use crate::core::error::ErrorCode;
use crate::core::log::RaftLog;
use crate::core::message::*;
use crate::core::state::State;
use crate::core::types::*;

impl<L: RaftLog> RaftCore<L> {
    fn fetch_snapshot_response(&self, partition_error: ErrorCode) -> FetchSnapshotResponse {
        FetchSnapshotResponse {
            error_code: ErrorCode::None,
            partition_error,
            snapshot_id: OffsetAndEpoch::new(-1, -1),
            leader_id: self.leader_id_or_nil(),
            leader_epoch: self.epoch(),
            size: -1,
            position: -1,
            unaligned_records: Bytes::new(),
            leader_endpoint: self.leader_node_endpoint(),
        }
    }

    pub(super) fn handle_fetch_snapshot_request(
        &mut self,
        r: FetchSnapshotRequest,
        now: i64,
    ) -> FetchSnapshotResponse {
        if !self.has_valid_cluster_id(&r.cluster_id) {
            return match Response::error(Api::FetchSnapshot, ErrorCode::InconsistentClusterId) {
                Response::FetchSnapshot(f) => f,
                _ => self.fetch_snapshot_response(ErrorCode::InconsistentClusterId),
            };
        }
        if let Some(e) = self.validate_leader_only(r.current_leader_epoch) {
            return self.fetch_snapshot_response(e);
        }
        if r.snapshot_id == BOOTSTRAP_SNAPSHOT_ID {
            return self.fetch_snapshot_response(ErrorCode::SnapshotNotFound);
        }
        let max = r.max_bytes.max(0) as usize;
        let Some((_, size)) = self.log.read_snapshot(r.snapshot_id, 0, 0) else {
            return self.fetch_snapshot_response(ErrorCode::SnapshotNotFound);
        };
        if r.position < 0 || r.position as u64 >= size {
            return self.fetch_snapshot_response(ErrorCode::PositionOutOfRange);
        }
        let Some((bytes, size)) = self
            .log
            .read_snapshot(r.snapshot_id, r.position as u64, max)
        else {
            return self.fetch_snapshot_response(ErrorCode::SnapshotNotFound);
        };
        let key = ReplicaKey::of(r.replica_id, r.replica_directory_id);
        if let Some(l) = self.leader_state_mut() {
            l.update_check_quorum(&key, now);
        }
        let mut resp = self.fetch_snapshot_response(ErrorCode::None);
        resp.snapshot_id = r.snapshot_id;
        resp.size = size as i64;
        resp.position = r.position;
        resp.unaligned_records = bytes;
        resp
    }

    pub(super) fn handle_fetch_snapshot_response(
        &mut self,
        r: FetchSnapshotResponse,
        now: i64,
    ) -> bool {
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
        let Some(id) = (match &self.state {
            State::Follower(f) => f.fetching_snapshot,
            _ => return false,
        }) else {
            return false;
        };
        if r.partition_error == ErrorCode::SnapshotNotFound
            || r.snapshot_id.offset < 0
            || r.snapshot_id.epoch < 0
        {
            self.log.abort_snapshot_download(id);
            if let State::Follower(f) = &mut self.state {
                f.fetching_snapshot = None;
                f.fetch_deadline = now + self.cfg.fetch_timeout_ms;
                f.has_fetched = true;
            }
            return true;
        } else if r.partition_error != ErrorCode::None {
            return false;
        }
        let size = self.log.snapshot_download_size(id).unwrap_or(0);
        if r.snapshot_id != id || r.position < 0 || r.position as u64 != size {
            self.violation(format!(
                "unexpected FetchSnapshot response for {:?} at {} (expected {id:?} at {size})",
                r.snapshot_id, r.position
            ));
            return false;
        }
        let new_size = match self.log.append_snapshot_chunk(id, &r.unaligned_records) {
            Ok(s) => s,
            Err(e) => {
                tracing::warn!("snapshot chunk rejected: {e}");
                return false;
            }
        };
        if r.size >= 0 && new_size >= r.size as u64 {
            if let Err(e) = self.log.complete_snapshot_download(id) {
                tracing::warn!("snapshot install failed: {e}");
                if let State::Follower(f) = &mut self.state {
                    f.fetching_snapshot = None;
                }
                return false;
            }
            if let State::Follower(f) = &mut self.state {
                f.fetching_snapshot = None;
            }
            self.stats.snapshots_installed += 1;
            let end = self.log.end_offset();
            for (_, cap) in self.flush_queue.iter_mut() {
                *cap = (*cap).min(end);
            }
            self.flushed_offset = end;
            self.reload_control_state();
            self.update_follower_hw(id.offset);
        }
        if let State::Follower(f) = &mut self.state {
            f.fetch_deadline = now + self.cfg.fetch_timeout_ms;
            f.has_fetched = true;
        }
        true
    }
}
