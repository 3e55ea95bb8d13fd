//! A single [`RaftCore`] driven by hand, in the spirit of Kafka's
//! `RaftClientTestContext` (but our own code).

use std::collections::BTreeMap;

use bytes::Bytes;
use kraft_raft::message::*;
use kraft_raft::*;

pub const LISTENER: &str = "CONTROLLER";
pub const CLUSTER: &str = "conformance-cluster";
pub const ELECTION_TIMEOUT: i64 = 1000;
pub const FETCH_TIMEOUT: i64 = 2000;
pub const REQUEST_TIMEOUT: i64 = 2000;

pub fn dir(id: NodeId) -> Uuid {
    Uuid::from_u128(0xABCD_0000 + id as u128)
}

pub fn key(id: NodeId) -> ReplicaKey {
    ReplicaKey::of(id, dir(id))
}

pub fn endpoints(id: NodeId) -> Endpoints {
    Endpoints::single(LISTENER, "localhost", 9990 + id as u16)
}

pub fn voter(id: NodeId) -> VoterNode {
    VoterNode::new(key(id), endpoints(id), KRaftVersionRange::new(0, 1))
}

pub fn voter_set(ids: &[NodeId]) -> VoterSet {
    VoterSet::new(ids.iter().map(|id| voter(*id)))
}

/// A static (kraft.version 0) voter set: no directory ids, and (as Kafka
/// assumes for `controller.quorum.voters`) support for kraft.version 0 only
/// until each voter says otherwise with UpdateRaftVoter.
pub fn static_voter_set(ids: &[NodeId]) -> VoterSet {
    VoterSet::new(ids.iter().map(|id| {
        VoterNode::new(
            ReplicaKey::without_directory(*id),
            endpoints(*id),
            KRaftVersionRange::new(0, 0),
        )
    }))
}

pub struct Ctx {
    pub core: RaftCore<MemoryLog>,
    pub now: i64,
    next_inbound: u64,
    pub responses: BTreeMap<InboundId, Response>,
    pub sent: Vec<(u64, NodeId, Option<Address>, Request)>,
    pub persisted: Vec<ElectionState>,
    pub committed: Vec<Batch>,
    pub auto_flush: bool,
    pub pending_flushes: Vec<i64>,
}

pub struct Builder {
    pub cfg: RaftConfig,
    pub log: MemoryLog,
    pub election: Option<ElectionState>,
}

impl Builder {
    /// Local node `id` with a bootstrap checkpoint holding `voters` (kraft.version 1).
    pub fn dynamic(id: NodeId, voters: &VoterSet) -> Self {
        let mut cfg = RaftConfig::new(id, dir(id), CLUSTER, endpoints(id), LISTENER);
        cfg.bootstrap_servers = voters
            .ids()
            .filter_map(|v| voters.address(v, LISTENER))
            .collect();
        if cfg.bootstrap_servers.is_empty() {
            cfg.bootstrap_servers = vec![Address::new("localhost", 1234)];
        }
        let log = MemoryLog::with_bootstrap(SnapshotControl {
            voters: Some(voters.clone()),
            kraft_version: Some(1),
        });
        Builder {
            cfg,
            log,
            election: None,
        }
    }

    /// Local node `id` with static voters (kraft.version 0).
    pub fn static_quorum(id: NodeId, voters: &[NodeId]) -> Self {
        let mut cfg = RaftConfig::new(id, dir(id), CLUSTER, endpoints(id), LISTENER);
        cfg.static_voters = static_voter_set(voters);
        Builder {
            cfg,
            log: MemoryLog::new(),
            election: None,
        }
    }

    pub fn election(mut self, epoch: i32, leader: Option<NodeId>) -> Self {
        self.election = Some(ElectionState {
            epoch,
            leader_id: leader,
            voted_key: None,
        });
        self
    }

    pub fn build(self) -> Ctx {
        let core = RaftCore::new(
            self.cfg,
            self.log,
            self.election,
            Box::new(SplitMix64::new(7)),
            0,
        )
        .expect("core starts");
        let mut ctx = Ctx {
            core,
            now: 0,
            next_inbound: 1,
            responses: BTreeMap::new(),
            sent: Vec::new(),
            persisted: Vec::new(),
            committed: Vec::new(),
            auto_flush: true,
            pending_flushes: Vec::new(),
        };
        ctx.drain();
        ctx
    }
}

impl Ctx {
    /// Executes the core's actions: flushes complete immediately (unless
    /// `auto_flush` is off), sends and responses are recorded.
    pub fn drain(&mut self) {
        loop {
            let actions = self.core.take_actions();
            if actions.is_empty() {
                break;
            }
            for a in actions {
                match a {
                    Action::PersistElectionState { state, .. } => self.persisted.push(state),
                    Action::Send {
                        correlation_id,
                        destination,
                        address,
                        request,
                    } => self
                        .sent
                        .push((correlation_id, destination, address, request)),
                    Action::Respond { inbound, response } => {
                        self.responses.insert(inbound, response);
                    }
                    Action::Flush { up_to } => {
                        if self.auto_flush {
                            let t = self.core.log().issue_flush();
                            self.core.log_mut().complete_flush(t);
                            self.core.flushed(up_to, self.now);
                        } else {
                            self.pending_flushes.push(up_to);
                        }
                    }
                    Action::Committed { batches } => self.committed.extend(batches),
                    _ => {}
                }
            }
        }
    }

    pub fn advance(&mut self, ms: i64) {
        self.now += ms;
        self.core.tick(self.now);
        self.drain();
    }

    pub fn deliver(&mut self, request: Request) -> InboundId {
        let id = self.next_inbound;
        self.next_inbound += 1;
        self.core.handle_request(id, request, self.now);
        self.drain();
        id
    }

    pub fn response(&self, id: InboundId) -> Option<&Response> {
        self.responses.get(&id)
    }

    pub fn respond(&mut self, correlation: u64, from: NodeId, response: Response) {
        self.core
            .handle_response(correlation, from, response, self.now);
        self.drain();
    }

    /// Removes and returns the sent requests matching `f`.
    pub fn take_sent(
        &mut self,
        f: impl Fn(&Request) -> bool,
    ) -> Vec<(u64, NodeId, Option<Address>, Request)> {
        let (hit, keep): (Vec<_>, Vec<_>) = std::mem::take(&mut self.sent)
            .into_iter()
            .partition(|(_, _, _, r)| f(r));
        self.sent = keep;
        hit
    }

    /// Drives the local voter to leadership by granting every (pre-)vote.
    pub fn become_leader(&mut self) {
        for _ in 0..50 {
            if self.core.role() == Role::Leader {
                self.sent.clear();
                return;
            }
            let votes = self.take_sent(|r| matches!(r, Request::Vote(_)));
            if votes.is_empty() {
                self.advance(ELECTION_TIMEOUT);
                continue;
            }
            for (corr, dest, _, req) in votes {
                let Request::Vote(v) = req else { continue };
                let resp = VoteResponse {
                    error_code: ErrorCode::None,
                    partition_error: ErrorCode::None,
                    leader_id: -1,
                    leader_epoch: v.replica_epoch,
                    vote_granted: true,
                    leader_endpoint: None,
                };
                self.respond(corr, dest, Response::Vote(resp));
            }
        }
        panic!("did not become leader: {:?}", self.core.role());
    }

    pub fn epoch(&self) -> i32 {
        self.core.epoch()
    }

    pub fn leo(&self) -> i64 {
        self.core.log().end_offset()
    }

    pub fn fetch_request(&self, replica: ReplicaKey, offset: i64, last_epoch: i32) -> FetchRequest {
        FetchRequest {
            cluster_id: Some(CLUSTER.into()),
            replica_id: replica.id,
            replica_directory_id: replica.wire_directory_id(),
            max_wait_ms: 0,
            max_bytes: 1 << 20,
            current_leader_epoch: self.epoch(),
            fetch_offset: offset,
            last_fetched_epoch: last_epoch,
            high_watermark: -1,
        }
    }

    /// A fetch from `replica` at the leader's log end; returns the response.
    pub fn fetch_caught_up(&mut self, replica: ReplicaKey) -> FetchResponse {
        let (offset, epoch) = (self.leo(), self.core.log().last_fetched_epoch());
        self.fetch_at(replica, offset, epoch)
    }

    pub fn fetch_at(&mut self, replica: ReplicaKey, offset: i64, last_epoch: i32) -> FetchResponse {
        let req = self.fetch_request(replica, offset, last_epoch);
        let id = self.deliver(Request::Fetch(req));
        match self.responses.remove(&id) {
            Some(Response::Fetch(f)) => f,
            other => panic!("expected a fetch response, got {other:?}"),
        }
    }

    pub fn propose(&mut self, data: &str) -> i64 {
        let o = self
            .core
            .propose(vec![Bytes::from(data.to_string())], self.now)
            .expect("leader accepts");
        self.drain();
        o
    }

    pub fn add_voter_request(
        &self,
        id: NodeId,
        eps: Endpoints,
        ack_when_committed: bool,
    ) -> Request {
        Request::AddRaftVoter(AddRaftVoterRequest {
            cluster_id: Some(CLUSTER.into()),
            timeout_ms: i32::MAX,
            voter_id: id,
            voter_directory_id: dir(id),
            listeners: eps,
            ack_when_committed,
            derivation: None,
        })
    }

    pub fn remove_voter_request(&self, k: ReplicaKey) -> Request {
        Request::RemoveRaftVoter(RemoveRaftVoterRequest {
            cluster_id: Some(CLUSTER.into()),
            voter_id: k.id,
            voter_directory_id: k.wire_directory_id(),
            derive_directory_id: false,
        })
    }

    pub fn update_voter_request(
        &self,
        k: ReplicaKey,
        epoch: i32,
        eps: Endpoints,
        range: KRaftVersionRange,
    ) -> Request {
        Request::UpdateRaftVoter(UpdateRaftVoterRequest {
            cluster_id: Some(CLUSTER.into()),
            current_leader_epoch: epoch,
            voter_id: k.id,
            voter_directory_id: k.wire_directory_id(),
            listeners: eps,
            kraft_version_feature: range,
        })
    }

    /// Answers the pending ApiVersions probe.
    pub fn answer_api_versions(
        &mut self,
        error: ErrorCode,
        range: Option<KRaftVersionRange>,
    ) -> NodeId {
        let probes = self.take_sent(|r| matches!(r, Request::ApiVersions));
        assert_eq!(probes.len(), 1, "exactly one ApiVersions probe expected");
        let (corr, dest, _, _) = probes[0].clone();
        self.respond(
            corr,
            dest,
            Response::ApiVersions(ApiVersionsResponse {
                error_code: error,
                kraft_version: range,
            }),
        );
        dest
    }

    pub fn voter_change_code(&self, id: InboundId) -> Option<(ErrorCode, Option<String>)> {
        match self.responses.get(&id) {
            Some(Response::AddRaftVoter(r)) | Some(Response::RemoveRaftVoter(r)) => {
                Some((r.error_code, r.error_message.clone()))
            }
            _ => None,
        }
    }

    pub fn update_voter_code(&self, id: InboundId) -> Option<ErrorCode> {
        match self.responses.get(&id) {
            Some(Response::UpdateRaftVoter(r)) => Some(r.error_code),
            _ => None,
        }
    }

    /// The offset of the newest VotersRecord in the log.
    pub fn last_voters_record(&self) -> Option<(i64, VoterSet)> {
        self.core
            .log()
            .batches()
            .iter()
            .flat_map(|b| {
                b.control_records()
                    .map(|(o, c)| (o, c.clone()))
                    .collect::<Vec<_>>()
            })
            .filter_map(|(o, c)| match c {
                ControlRecord::Voters(v) => Some((o, v)),
                _ => None,
            })
            .next_back()
    }
}
