//! Bad input never panics: random requests and responses with arbitrary
//! field values, fed to replicas in every role.

use bytes::Bytes;
use kraft_raft::message::*;
use kraft_raft::*;

use super::harness::*;

struct Gen(SplitMix64);

impl Gen {
    fn int(&mut self) -> i64 {
        match self.0.below(6) {
            0 => -1,
            1 => 0,
            2 => i64::MAX,
            3 => i64::MIN,
            _ => self.0.below(40),
        }
    }
    fn i32(&mut self) -> i32 {
        match self.0.below(6) {
            0 => -1,
            1 => 0,
            2 => i32::MAX,
            3 => i32::MIN,
            _ => self.0.below(12) as i32,
        }
    }
    fn id(&mut self) -> NodeId {
        self.0.below(6) as NodeId - 1
    }
    fn uuid(&mut self) -> Uuid {
        match self.0.below(3) {
            0 => Uuid::nil(),
            1 => dir(self.0.below(5) as NodeId),
            _ => Uuid::from_u128(self.0.next_u64() as u128),
        }
    }
    fn bool(&mut self) -> bool {
        self.0.below(2) == 0
    }
    fn cluster(&mut self) -> Option<String> {
        match self.0.below(3) {
            0 => None,
            1 => Some(CLUSTER.into()),
            _ => Some(String::new()),
        }
    }
    fn endpoints(&mut self) -> Endpoints {
        match self.0.below(3) {
            0 => Endpoints::empty(),
            1 => endpoints(self.id().max(0)),
            _ => Endpoints::single("OTHER", "h", 1),
        }
    }
    fn error(&mut self) -> ErrorCode {
        ErrorCode::from_code(self.0.below(130) as i16 - 1)
    }
    fn oe(&mut self) -> Option<OffsetAndEpoch> {
        self.bool()
            .then(|| OffsetAndEpoch::new(self.int(), self.i32()))
    }
    fn batches(&mut self) -> Vec<Batch> {
        (0..self.0.below(3))
            .map(|_| Batch {
                base_offset: self.int(),
                epoch: self.i32(),
                append_time: 0,
                records: (0..1 + self.0.below(3))
                    .map(|i| {
                        if self.bool() {
                            Record::Data(Bytes::from(vec![i as u8]))
                        } else {
                            Record::Control(ControlRecord::Voters(voter_set(&[
                                1,
                                self.id().max(2),
                            ])))
                        }
                    })
                    .collect(),
                encoded: Default::default(),
            })
            .collect()
    }

    fn request(&mut self) -> Request {
        match self.0.below(9) {
            0 => Request::Vote(VoteRequest {
                cluster_id: self.cluster(),
                voter_id: self.id(),
                voter_directory_id: self.uuid(),
                replica_epoch: self.i32(),
                replica_id: self.id(),
                replica_directory_id: self.uuid(),
                last_offset_epoch: self.i32(),
                last_offset: self.int(),
                pre_vote: self.bool(),
            }),
            1 => Request::BeginQuorumEpoch(BeginQuorumEpochRequest {
                cluster_id: self.cluster(),
                voter_id: self.id(),
                voter_directory_id: self.uuid(),
                leader_id: self.id(),
                leader_epoch: self.i32(),
                leader_endpoints: self.endpoints(),
            }),
            2 => Request::EndQuorumEpoch(EndQuorumEpochRequest {
                cluster_id: self.cluster(),
                leader_id: self.id(),
                leader_epoch: self.i32(),
                preferred_candidates: (0..self.0.below(4))
                    .map(|_| ReplicaKey::of(self.id(), self.uuid()))
                    .collect(),
                leader_endpoints: self.endpoints(),
            }),
            3 => Request::Fetch(FetchRequest {
                cluster_id: self.cluster(),
                replica_id: self.id(),
                replica_directory_id: self.uuid(),
                max_wait_ms: self.i32(),
                max_bytes: self.i32(),
                current_leader_epoch: self.i32(),
                fetch_offset: self.int(),
                last_fetched_epoch: self.i32(),
                high_watermark: self.int(),
            }),
            4 => Request::FetchSnapshot(FetchSnapshotRequest {
                cluster_id: self.cluster(),
                replica_id: self.id(),
                replica_directory_id: self.uuid(),
                max_bytes: self.i32(),
                current_leader_epoch: self.i32(),
                snapshot_id: OffsetAndEpoch::new(self.int(), self.i32()),
                position: self.int(),
            }),
            5 => Request::AddRaftVoter(AddRaftVoterRequest {
                cluster_id: self.cluster(),
                timeout_ms: self.i32(),
                voter_id: self.id(),
                voter_directory_id: self.uuid(),
                listeners: self.endpoints(),
                ack_when_committed: self.bool(),
                derivation: self.bool().then(|| AddVoterDerivation {
                    registered_listeners: self.bool().then(|| self.endpoints()),
                }),
            }),
            6 => Request::RemoveRaftVoter(RemoveRaftVoterRequest {
                cluster_id: self.cluster(),
                voter_id: self.id(),
                voter_directory_id: self.uuid(),
                derive_directory_id: self.bool(),
            }),
            7 => Request::UpdateRaftVoter(UpdateRaftVoterRequest {
                cluster_id: self.cluster(),
                current_leader_epoch: self.i32(),
                voter_id: self.id(),
                voter_directory_id: self.uuid(),
                listeners: self.endpoints(),
                kraft_version_feature: KRaftVersionRange::new(self.i32() as i16, self.i32() as i16),
            }),
            _ => Request::DescribeQuorum,
        }
    }

    fn response(&mut self, api: Api) -> Response {
        let leader_endpoint = self.bool().then(|| NodeEndpoint {
            node_id: self.id(),
            address: Address::new("h", 1),
        });
        match api {
            Api::Vote => Response::Vote(VoteResponse {
                error_code: self.error(),
                partition_error: self.error(),
                leader_id: self.id(),
                leader_epoch: self.i32(),
                vote_granted: self.bool(),
                leader_endpoint,
            }),
            Api::BeginQuorumEpoch | Api::EndQuorumEpoch => {
                let r = QuorumEpochResponse {
                    error_code: self.error(),
                    partition_error: self.error(),
                    leader_id: self.id(),
                    leader_epoch: self.i32(),
                    leader_endpoint,
                };
                if api == Api::BeginQuorumEpoch {
                    Response::BeginQuorumEpoch(r)
                } else {
                    Response::EndQuorumEpoch(r)
                }
            }
            Api::Fetch => Response::Fetch(FetchResponse {
                error_code: if self.0.below(4) == 0 {
                    self.error()
                } else {
                    ErrorCode::None
                },
                partition_error: if self.0.below(4) == 0 {
                    self.error()
                } else {
                    ErrorCode::None
                },
                high_watermark: self.int(),
                log_start_offset: self.int(),
                diverging_epoch: self.oe(),
                leader_id: self.id(),
                leader_epoch: self.i32(),
                snapshot_id: self.oe(),
                records: self.batches(),
                leader_endpoint,
            }),
            Api::FetchSnapshot => Response::FetchSnapshot(FetchSnapshotResponse {
                error_code: self.error(),
                partition_error: self.error(),
                snapshot_id: OffsetAndEpoch::new(self.int(), self.i32()),
                leader_id: self.id(),
                leader_epoch: self.i32(),
                size: self.int(),
                position: self.int(),
                unaligned_records: Bytes::from(vec![1, 2, 3]),
                leader_endpoint,
            }),
            Api::ApiVersions => Response::ApiVersions(ApiVersionsResponse {
                error_code: self.error(),
                kraft_version: self
                    .bool()
                    .then(|| KRaftVersionRange::new(self.i32() as i16, self.i32() as i16)),
            }),
            Api::AddRaftVoter => Response::AddRaftVoter(VoterChangeResponse::code(self.error())),
            Api::RemoveRaftVoter => {
                Response::RemoveRaftVoter(VoterChangeResponse::code(self.error()))
            }
            Api::UpdateRaftVoter => Response::UpdateRaftVoter(UpdateRaftVoterResponse {
                error_code: self.error(),
                leader_id: self.id(),
                leader_epoch: self.i32(),
                leader_address: self.bool().then(|| Address::new("h", 2)),
            }),
            Api::DescribeQuorum => Response::error(Api::DescribeQuorum, ErrorCode::None),
        }
    }
}

#[test]
fn random_inputs_never_panic() {
    let mut answered = 0;
    for seed in 0..400u64 {
        let mut g = Gen(SplitMix64::new(seed));
        let mut ctx = match seed % 4 {
            0 => Builder::dynamic(1, &voter_set(&[1, 2, 3])).build(),
            1 => Builder::dynamic(1, &voter_set(&[1, 2, 3]))
                .election(3, Some(2))
                .build(),
            2 => Builder::static_quorum(1, &[1, 2, 3]).build(),
            _ => {
                let mut c = Builder::dynamic(1, &voter_set(&[1, 2])).build();
                c.become_leader();
                c
            }
        };
        for _ in 0..400 {
            match g.0.below(4) {
                0 => {
                    let r = g.request();
                    ctx.deliver(r);
                }
                1 => {
                    // Answer something that was sent (possibly with nonsense).
                    if let Some((corr, dest, _, req)) = ctx.sent.pop() {
                        let resp = g.response(req.api());
                        ctx.respond(corr, dest, resp);
                    }
                }
                2 => {
                    let ms = g.0.below(700);
                    ctx.advance(ms);
                }
                _ => {
                    let _ = ctx.core.propose(vec![Bytes::from_static(b"x")], ctx.now);
                    ctx.drain();
                }
            }
            ctx.sent.truncate(8);
        }
        answered += ctx.responses.len();
    }
    assert!(
        answered > 10_000,
        "the inputs were processed ({answered} answers)"
    );
}
