//! DescribeQuorum (KIP-853 semantics) and the committed voter set of the
//! DescribeQuorum v3 draft.
//!
//! Read beside Kafka's `KafkaRaftClient.handleDescribeQuorumRequest` and
//! `LeaderState.describeQuorum`.

use super::RaftCore;
use crate::core::error::ErrorCode;
use crate::core::log::RaftLog;
use crate::core::message::*;
use crate::core::voters::VoterSet;

impl<L: RaftLog> RaftCore<L> {
    /// The committed voter set derived from the voter-set history and the
    /// local high watermark (`None` while the HW is unknown).
    pub fn committed_voters(&self) -> Option<VoterSet> {
        let hw = self.high_watermark()?;
        if cfg!(kraft_mutant = "committed-voters-latest") {
            return Some(self.control.last_voter_set().clone());
        }
        self.control.committed_voter_set(hw).cloned()
    }

    /// Builds the DescribeQuorum answer (v3 semantics; the adapter drops
    /// fields the negotiated version does not carry).
    pub fn describe_quorum(&mut self, now: i64) -> DescribeQuorumResponse {
        let leader_epoch = self.epoch();
        let log_end = self.log.end_offset();
        let committed = self.committed_voters();
        let Some(l) = self.leader_state_mut() else {
            return DescribeQuorumResponse {
                partition_error: ErrorCode::NotLeaderOrFollower,
                error_message: Some(ErrorCode::NotLeaderOrFollower.default_message().into()),
                leader_id: 0,
                leader_epoch: 0,
                high_watermark: 0,
                current_voters: Vec::new(),
                committed_voters: Vec::new(),
                observers: Vec::new(),
                nodes: Vec::new(),
            };
        };
        l.clear_inactive_observers(now);
        let leader_id = l.local.key.id;
        let describe = |s: &crate::core::leader::ReplicaState| {
            let is_leader = s.key.id == leader_id;
            ReplicaDescription {
                replica_id: s.key.id,
                replica_directory_id: s.key.wire_directory_id(),
                log_end_offset: if is_leader {
                    log_end
                } else {
                    s.end_offset.unwrap_or(-1)
                },
                last_fetch_timestamp: if is_leader { now } else { s.last_fetch_ts },
                last_caught_up_timestamp: if is_leader { now } else { s.last_caught_up_ts },
            }
        };
        let current_voters: Vec<ReplicaDescription> = l.voters.values().map(describe).collect();
        let observers: Vec<ReplicaDescription> = l.observers.values().map(describe).collect();
        let committed_voters = match (&committed, l.high_watermark) {
            (Some(set), Some(_)) => set
                .keys()
                .map(|k| {
                    let state = match l.voters.get(&k.id) {
                        Some(s) if s.key == k => Some(s),
                        _ => l.observers.get(&k),
                    };
                    match state {
                        Some(s) => describe(s),
                        None => ReplicaDescription {
                            replica_id: k.id,
                            replica_directory_id: k.wire_directory_id(),
                            log_end_offset: -1,
                            last_fetch_timestamp: -1,
                            last_caught_up_timestamp: -1,
                        },
                    }
                })
                .collect(),
            _ => Vec::new(),
        };
        let nodes = l
            .voters
            .values()
            .map(|s| (s.key.id, s.endpoints.clone()))
            .collect();
        DescribeQuorumResponse {
            partition_error: ErrorCode::None,
            error_message: None,
            leader_id,
            leader_epoch,
            high_watermark: l.high_watermark.unwrap_or(-1),
            current_voters,
            committed_voters,
            observers,
            nodes,
        }
    }
}
