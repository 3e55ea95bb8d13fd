//! Elections, replication and DescribeQuorum on a single replica (after
//! Kafka's KafkaRaftClientTest / PreVote / Fetch / Snapshot cases).

use bytes::Bytes;
use kraft_raft::message::*;
use kraft_raft::*;

use super::harness::*;

fn leader_of(ids: &[NodeId]) -> Ctx {
    let mut ctx = Builder::dynamic(ids[0], &voter_set(ids)).build();
    ctx.become_leader();
    ctx
}

fn vote(
    ctx: &Ctx,
    from: NodeId,
    epoch: i32,
    last_epoch: i32,
    last_offset: i64,
    pre_vote: bool,
) -> Request {
    let _ = ctx;
    Request::Vote(VoteRequest {
        cluster_id: Some(CLUSTER.into()),
        voter_id: 1,
        voter_directory_id: dir(1),
        replica_epoch: epoch,
        replica_id: from,
        replica_directory_id: dir(from),
        last_offset_epoch: last_epoch,
        last_offset,
        pre_vote,
    })
}

fn vote_result(ctx: &Ctx, id: InboundId) -> (ErrorCode, bool, i32) {
    match ctx.response(id) {
        Some(Response::Vote(v)) => (v.partition_error, v.vote_granted, v.leader_epoch),
        other => panic!("unexpected {other:?}"),
    }
}

fn describe(ctx: &mut Ctx) -> DescribeQuorumResponse {
    let id = ctx.deliver(Request::DescribeQuorum);
    match ctx.responses.remove(&id) {
        Some(Response::DescribeQuorum(d)) => d,
        other => panic!("unexpected {other:?}"),
    }
}

fn fetch_response(leader: NodeId, epoch: i32, hw: i64, records: Vec<Batch>) -> FetchResponse {
    FetchResponse {
        error_code: ErrorCode::None,
        partition_error: ErrorCode::None,
        high_watermark: hw,
        log_start_offset: 0,
        diverging_epoch: None,
        leader_id: leader,
        leader_epoch: epoch,
        snapshot_id: None,
        records,
        leader_endpoint: None,
    }
}

fn data_batch(base: i64, epoch: i32, n: usize) -> Batch {
    Batch {
        base_offset: base,
        epoch,
        append_time: 0,
        records: (0..n)
            .map(|i| Record::Data(Bytes::from(format!("d{base}-{i}"))))
            .collect(),
        encoded: Default::default(),
    }
}

/// A follower of leader 2 in epoch 5, voters {1, 2, 3}.
fn follower() -> Ctx {
    let ctx = Builder::dynamic(1, &voter_set(&[1, 2, 3]))
        .election(5, Some(2))
        .build();
    assert_eq!(ctx.core.role(), Role::Follower);
    ctx
}

/// Answers the follower's pending fetch with `resp`.
fn answer_fetch(ctx: &mut Ctx, resp: FetchResponse) -> FetchRequest {
    let sent = ctx.take_sent(|r| matches!(r, Request::Fetch(_)));
    let (corr, dest, _, req) = sent.last().cloned().expect("a fetch is in flight");
    ctx.respond(corr, dest, Response::Fetch(resp));
    match req {
        Request::Fetch(f) => f,
        _ => unreachable!(),
    }
}

#[test]
fn single_voter_becomes_leader_at_startup() {
    let ctx = Builder::dynamic(1, &voter_set(&[1])).build();
    assert_eq!((ctx.core.role(), ctx.epoch()), (Role::Leader, 1));
    assert!(ctx.core.high_watermark().is_some());
}

#[test]
fn prospective_pre_votes_then_candidate_votes() {
    let mut ctx = Builder::dynamic(1, &voter_set(&[1, 2, 3])).build();
    ctx.advance(ELECTION_TIMEOUT * 2);
    assert_eq!(ctx.core.role(), Role::Prospective);
    let pre = ctx.take_sent(|r| matches!(r, Request::Vote(v) if v.pre_vote));
    assert_eq!(pre.len(), 2, "pre-vote to both other voters");
    assert_eq!(ctx.epoch(), 0, "pre-vote keeps the epoch");
    let (corr, dest, _, _) = pre[0].clone();
    ctx.respond(
        corr,
        dest,
        Response::Vote(VoteResponse {
            error_code: ErrorCode::None,
            partition_error: ErrorCode::None,
            leader_id: -1,
            leader_epoch: 0,
            vote_granted: true,
            leader_endpoint: None,
        }),
    );
    assert_eq!((ctx.core.role(), ctx.epoch()), (Role::Candidate, 1));
    assert_eq!(
        ctx.persisted.last().and_then(|e| e.voted_key),
        Some(key(1)),
        "candidate voted for itself durably"
    );
    let votes = ctx.take_sent(|r| matches!(r, Request::Vote(v) if !v.pre_vote));
    assert_eq!(votes.len(), 2);
}

#[test]
fn pre_vote_unsupported_version_makes_candidate() {
    let mut ctx = Builder::dynamic(1, &voter_set(&[1, 2, 3])).build();
    ctx.advance(ELECTION_TIMEOUT * 2);
    let pre = ctx.take_sent(|r| matches!(r, Request::Vote(_)));
    let (corr, dest, _, _) = pre[0].clone();
    ctx.respond(
        corr,
        dest,
        Response::error(Api::Vote, ErrorCode::UnsupportedVersion),
    );
    assert_eq!(ctx.core.role(), Role::Candidate);
}

#[test]
fn vote_is_durable_before_the_response() {
    let mut ctx = Builder::dynamic(1, &voter_set(&[1, 2, 3])).build();
    let id = 99;
    ctx.core
        .handle_request(id, vote(&ctx, 2, 1, 0, 0, false), ctx.now);
    let actions = ctx.core.take_actions();
    let persist = actions
        .iter()
        .position(|a| matches!(a, Action::PersistElectionState { state, .. } if state.voted_key == Some(key(2))));
    let respond = actions
        .iter()
        .position(|a| matches!(a, Action::Respond { inbound, .. } if *inbound == id));
    assert!(persist.expect("vote persisted") < respond.expect("vote answered"));
}

#[test]
fn one_vote_per_epoch() {
    let mut ctx = Builder::dynamic(1, &voter_set(&[1, 2, 3])).build();
    let a = ctx.deliver(vote(&ctx, 2, 1, 0, 0, false));
    assert_eq!(vote_result(&ctx, a), (ErrorCode::None, true, 1));
    let b = ctx.deliver(vote(&ctx, 3, 1, 0, 0, false));
    assert_eq!(
        vote_result(&ctx, b),
        (ErrorCode::None, false, 1),
        "already voted for 2"
    );
    let c = ctx.deliver(vote(&ctx, 2, 1, 0, 0, false));
    assert_eq!(
        vote_result(&ctx, c),
        (ErrorCode::None, true, 1),
        "same candidate again"
    );
    // A pre-vote from 3 is still granted (it does not change the vote).
    let d = ctx.deliver(vote(&ctx, 3, 1, 0, 0, true));
    assert_eq!(vote_result(&ctx, d), (ErrorCode::None, true, 1));
}

#[test]
fn vote_rejected_when_log_not_up_to_date() {
    let mut ctx = leader_of(&[1, 2, 3]);
    ctx.fetch_caught_up(key(2));
    let epoch = ctx.epoch();
    // A candidate in a newer epoch whose log is behind ours.
    let id = ctx.deliver(vote(&ctx, 3, epoch + 1, 0, 0, false));
    assert_eq!(vote_result(&ctx, id), (ErrorCode::None, false, epoch + 1));
    assert_eq!(
        ctx.core.role(),
        Role::Unattached,
        "the higher epoch still demotes the leader"
    );
}

#[test]
fn vote_validation_errors() {
    let mut ctx = Builder::dynamic(1, &voter_set(&[1, 2, 3]))
        .election(4, None)
        .build();
    let stale = ctx.deliver(vote(&ctx, 2, 3, 0, 0, false));
    assert_eq!(vote_result(&ctx, stale).0, ErrorCode::FencedLeaderEpoch);
    let invalid = ctx.deliver(vote(&ctx, 2, 5, 5, 0, false));
    assert_eq!(
        vote_result(&ctx, invalid).0,
        ErrorCode::InvalidRequest,
        "last epoch must be below the vote epoch"
    );
    let mut wrong_key = match vote(&ctx, 2, 5, 0, 0, false) {
        Request::Vote(v) => v,
        _ => unreachable!(),
    };
    wrong_key.voter_directory_id = Uuid::from_u128(12345);
    let id = ctx.deliver(Request::Vote(wrong_key));
    assert_eq!(
        vote_result(&ctx, id),
        (ErrorCode::InvalidVoterKey, false, 5)
    );
    let mut wrong_cluster = match vote(&ctx, 2, 5, 0, 0, false) {
        Request::Vote(v) => v,
        _ => unreachable!(),
    };
    wrong_cluster.cluster_id = Some("x".into());
    let id = ctx.deliver(Request::Vote(wrong_cluster));
    match ctx.response(id) {
        Some(Response::Vote(v)) => assert_eq!(v.error_code, ErrorCode::InconsistentClusterId),
        other => panic!("unexpected {other:?}"),
    }
}

#[test]
fn follower_grants_pre_vote_only_before_fetching() {
    let mut ctx = follower();
    let pre = ctx.deliver(vote(&ctx, 3, 5, 0, 0, true));
    assert_eq!(vote_result(&ctx, pre), (ErrorCode::None, true, 5));
    let real = ctx.deliver(vote(&ctx, 3, 5, 0, 0, false));
    assert!(
        !vote_result(&ctx, real).1,
        "followers never grant real votes"
    );
    answer_fetch(&mut ctx, fetch_response(2, 5, -1, vec![]));
    let pre = ctx.deliver(vote(&ctx, 3, 5, 0, 0, true));
    assert!(!vote_result(&ctx, pre).1, "the leader is alive");
}

#[test]
fn restarted_leader_resigns() {
    let mut ctx = Builder::dynamic(1, &voter_set(&[1, 2, 3]))
        .election(7, Some(1))
        .build();
    assert_eq!((ctx.core.role(), ctx.epoch()), (Role::Resigned, 7));
    let ends = ctx.take_sent(|r| matches!(r, Request::EndQuorumEpoch(_)));
    assert_eq!(ends.len(), 2);
    ctx.advance(ELECTION_TIMEOUT * 2);
    assert_eq!((ctx.core.role(), ctx.epoch()), (Role::Prospective, 8));
}

#[test]
fn check_quorum_makes_leader_resign() {
    let mut ctx = leader_of(&[1, 2, 3]);
    ctx.advance(FETCH_TIMEOUT);
    assert_eq!(ctx.core.role(), Role::Leader);
    ctx.fetch_caught_up(key(2));
    ctx.advance(FETCH_TIMEOUT);
    assert_eq!(
        ctx.core.role(),
        Role::Leader,
        "a fetch from a majority resets check-quorum"
    );
    ctx.advance(FETCH_TIMEOUT * 3 / 2);
    assert_eq!(ctx.core.role(), Role::Resigned);
    let ends = ctx.take_sent(|r| matches!(r, Request::EndQuorumEpoch(_)));
    let Request::EndQuorumEpoch(e) = &ends[0].3 else {
        unreachable!()
    };
    assert_eq!(
        e.preferred_candidates,
        vec![key(2), key(3)],
        "most caught-up first"
    );
}

#[test]
fn single_voter_never_fails_check_quorum() {
    let mut ctx = Builder::dynamic(1, &voter_set(&[1])).build();
    ctx.advance(FETCH_TIMEOUT * 10);
    assert_eq!(ctx.core.role(), Role::Leader);
}

#[test]
fn end_quorum_epoch_backoff_by_position() {
    for (pos, expect_immediate) in [(0usize, true), (1, false)] {
        let mut ctx = follower();
        let mut preferred = vec![key(3), key(1)];
        if pos == 0 {
            preferred.reverse();
        }
        ctx.deliver(Request::EndQuorumEpoch(EndQuorumEpochRequest {
            cluster_id: None,
            leader_id: 2,
            leader_epoch: 5,
            preferred_candidates: preferred,
            leader_endpoints: endpoints(2),
        }));
        ctx.advance(1);
        assert_eq!(
            ctx.core.role() == Role::Prospective,
            expect_immediate,
            "position {pos}"
        );
        if !expect_immediate {
            // max >> (n - 1) << (p - 1) = 1000 >> 1 = 500 ms
            ctx.advance(499);
            assert_eq!(ctx.core.role(), Role::Prospective);
        }
    }
}

#[test]
fn high_watermark_needs_an_entry_of_the_leader_epoch() {
    let mut ctx = leader_of(&[1, 2, 3]);
    let epoch_start = ctx.core.log().batches()[0].base_offset;
    assert_eq!(ctx.core.high_watermark(), None);
    // A follower at the epoch start offset does not commit anything yet.
    ctx.fetch_at(key(2), epoch_start, 0);
    assert_eq!(ctx.core.high_watermark(), None);
    ctx.fetch_caught_up(key(2));
    assert_eq!(ctx.core.high_watermark(), Some(ctx.leo()));
}

#[test]
fn leader_counts_only_its_flushed_offset() {
    let mut ctx = leader_of(&[1, 2, 3]);
    ctx.fetch_caught_up(key(2));
    let hw = ctx.core.high_watermark().unwrap();
    ctx.auto_flush = false;
    ctx.propose("a");
    ctx.fetch_caught_up(key(2));
    assert_eq!(
        ctx.core.high_watermark(),
        Some(hw),
        "follower alone is not a majority"
    );
    ctx.fetch_caught_up(key(3));
    assert!(ctx.core.high_watermark().unwrap() > hw, "two followers are");
    // And with one follower, the leader's flush completes the majority.
    let hw = ctx.core.high_watermark().unwrap();
    ctx.propose("b");
    ctx.fetch_caught_up(key(2));
    assert_eq!(ctx.core.high_watermark(), Some(hw));
    let up_to = ctx.pending_flushes.pop().expect("flush requested");
    let t = ctx.core.log().issue_flush();
    ctx.core.log_mut().complete_flush(t);
    ctx.core.flushed(up_to, ctx.now);
    ctx.drain();
    assert_eq!(ctx.core.high_watermark(), Some(ctx.leo()));
}

#[test]
fn fetch_request_validation() {
    let mut ctx = leader_of(&[1, 2, 3]);
    let epoch = ctx.epoch();
    let mut bad = ctx.fetch_request(key(2), 0, epoch + 1);
    let id = ctx.deliver(Request::Fetch(bad.clone()));
    let Some(Response::Fetch(r)) = ctx.response(id) else {
        panic!()
    };
    assert_eq!(
        (r.partition_error, r.high_watermark),
        (ErrorCode::InvalidRequest, -1)
    );
    bad.last_fetched_epoch = 0;
    bad.current_leader_epoch = epoch - 1;
    let id = ctx.deliver(Request::Fetch(bad.clone()));
    let Some(Response::Fetch(r)) = ctx.response(id) else {
        panic!()
    };
    assert_eq!(r.partition_error, ErrorCode::FencedLeaderEpoch);
    bad.current_leader_epoch = epoch + 1;
    let id = ctx.deliver(Request::Fetch(bad));
    let Some(Response::Fetch(r)) = ctx.response(id) else {
        panic!()
    };
    assert_eq!(r.partition_error, ErrorCode::UnknownLeaderEpoch);
    assert_eq!(
        (r.leader_id, r.leader_epoch),
        (1, epoch),
        "errors still name the leader"
    );
}

#[test]
fn fetch_to_follower_is_not_leader() {
    let mut ctx = follower();
    let mut req = ctx.fetch_request(key(3), 0, 0);
    req.current_leader_epoch = 5;
    let id = ctx.deliver(Request::Fetch(req));
    let Some(Response::Fetch(r)) = ctx.response(id) else {
        panic!()
    };
    assert_eq!(
        (r.partition_error, r.leader_id, r.leader_epoch),
        (ErrorCode::NotLeaderOrFollower, 2, 5)
    );
    assert_eq!(
        r.leader_endpoint.as_ref().map(|e| e.address.clone()),
        Some(Address::new("localhost", 9992))
    );
}

#[test]
fn leader_answers_diverging_epoch() {
    let mut ctx = leader_of(&[1, 2, 3]);
    ctx.fetch_caught_up(key(2));
    let epoch = ctx.epoch();
    let start = ctx.core.log().batches()[0].base_offset;
    // The fetcher claims epoch 0 data up to offset 5; the leader's epoch 0
    // (no data) ends at the start of its epoch.
    let f = ctx.fetch_at(key(3), 5, 0);
    assert_eq!(f.diverging_epoch, Some(OffsetAndEpoch::new(start, 0)));
    assert!(f.records.is_empty());
    let f = ctx.fetch_at(key(3), ctx.leo() + 10, epoch);
    assert_eq!(
        f.diverging_epoch,
        Some(OffsetAndEpoch::new(ctx.leo(), epoch))
    );
}

#[test]
fn follower_truncates_on_diverging_epoch_and_flushes_before_fetching() {
    let mut ctx = follower();
    ctx.auto_flush = false;
    answer_fetch(
        &mut ctx,
        fetch_response(2, 5, -1, vec![data_batch(0, 3, 2), data_batch(2, 4, 2)]),
    );
    assert_eq!(ctx.leo(), 4);
    ctx.advance(1);
    assert!(
        ctx.take_sent(|r| matches!(r, Request::Fetch(_))).is_empty(),
        "no fetch before the flush"
    );
    let up_to = ctx.pending_flushes.pop().expect("flush requested");
    let t = ctx.core.log().issue_flush();
    ctx.core.log_mut().complete_flush(t);
    ctx.core.flushed(up_to, ctx.now);
    ctx.drain();
    ctx.auto_flush = true;
    let mut resp = fetch_response(2, 5, -1, vec![]);
    resp.diverging_epoch = Some(OffsetAndEpoch::new(3, 3));
    let req = answer_fetch(&mut ctx, resp);
    assert_eq!((req.fetch_offset, req.last_fetched_epoch), (4, 4));
    assert_eq!(
        ctx.leo(),
        2,
        "truncated to the end of epoch 3 locally (2), not 3"
    );
    ctx.advance(1);
    let next = ctx.take_sent(|r| matches!(r, Request::Fetch(_)));
    let Request::Fetch(f) = &next.last().expect("fetches again").3 else {
        unreachable!()
    };
    assert_eq!((f.fetch_offset, f.last_fetched_epoch), (2, 3));
}

#[test]
fn follower_high_watermark_is_capped_by_its_log_end() {
    let mut ctx = follower();
    answer_fetch(
        &mut ctx,
        fetch_response(2, 5, 100, vec![data_batch(0, 5, 3)]),
    );
    assert_eq!(ctx.core.high_watermark(), Some(3));
    assert_eq!(ctx.committed.len(), 1);
    ctx.advance(1);
    answer_fetch(&mut ctx, fetch_response(2, 5, -1, vec![]));
    assert_eq!(
        ctx.core.high_watermark(),
        Some(3),
        "an unknown leader HW does not lower it"
    );
}

#[test]
fn leader_parks_fetch_until_data_arrives() {
    let mut ctx = leader_of(&[1, 2, 3]);
    ctx.fetch_caught_up(key(2));
    let hw = ctx.core.high_watermark().unwrap();
    let mut req = ctx.fetch_request(key(2), ctx.leo(), ctx.epoch());
    req.max_wait_ms = 500;
    req.high_watermark = hw;
    let id = ctx.deliver(Request::Fetch(req.clone()));
    assert!(ctx.response(id).is_none(), "parked: {:?}", ctx.response(id));
    ctx.propose("x");
    let Some(Response::Fetch(r)) = ctx.response(id) else {
        panic!("completed by the append")
    };
    assert_eq!(r.records.len(), 1);
    // Parked fetches expire with the original answer.
    req.fetch_offset = ctx.leo();
    req.high_watermark = ctx.leo();
    let id = ctx.deliver(Request::Fetch(req.clone()));
    ctx.advance(499);
    assert!(ctx.response(id).is_none());
    ctx.advance(1);
    assert!(matches!(ctx.response(id), Some(Response::Fetch(r)) if r.records.is_empty()));
    // A fetcher behind on the HW is answered at once (Fetch v18).
    req.high_watermark = -1;
    let id = ctx.deliver(Request::Fetch(req));
    assert!(ctx.response(id).is_some());
}

#[test]
fn snapshot_download_installs_and_truncates() {
    // The leader: a log with a snapshot at 4, prefix deleted.
    let mut leader = leader_of(&[1, 2]);
    leader.fetch_caught_up(key(2));
    leader.propose("a");
    leader.propose("b");
    leader.fetch_caught_up(key(2));
    let hw = leader.core.high_watermark().unwrap();
    let control = SnapshotControl {
        voters: Some(voter_set(&[1, 2])),
        kraft_version: Some(1),
    };
    let id = leader
        .core
        .log_mut()
        .create_snapshot(hw, control)
        .expect("snapshot");
    leader.core.log_mut().delete_before_latest_snapshot();
    // A fetcher below the log start is sent to the snapshot.
    let f = leader.fetch_at(key(2), 1, 1);
    assert_eq!(f.snapshot_id, Some(id));
    // Chunked download through FetchSnapshot.
    let mut follower = Builder::dynamic(2, &voter_set(&[1, 2]))
        .election(leader.epoch(), Some(1))
        .build();
    let sent = follower.take_sent(|r| matches!(r, Request::Fetch(_)));
    let (corr, dest, _, _) = sent[0].clone();
    let mut resp = fetch_response(1, leader.epoch(), -1, vec![]);
    resp.snapshot_id = Some(id);
    follower.respond(corr, dest, Response::Fetch(resp));
    for _ in 0..100 {
        let reqs = follower.take_sent(|r| matches!(r, Request::FetchSnapshot(_)));
        let Some((corr, dest, _, Request::FetchSnapshot(mut req))) = reqs.last().cloned() else {
            break;
        };
        req.max_bytes = 7;
        let rid = leader.deliver(Request::FetchSnapshot(req));
        let Some(resp) = leader.responses.remove(&rid) else {
            panic!()
        };
        follower.respond(corr, dest, resp);
        follower.advance(1);
    }
    assert_eq!(follower.core.log().start_offset(), id.offset);
    assert_eq!(follower.core.high_watermark(), Some(id.offset));
    assert_eq!(follower.core.stats().snapshots_installed, 1);
    assert_eq!(*follower.core.voters(), voter_set(&[1, 2]));
}

#[test]
fn fetch_snapshot_errors() {
    let mut ctx = leader_of(&[1, 2]);
    let req = |id: SnapshotId, pos: i64, epoch: i32| {
        Request::FetchSnapshot(FetchSnapshotRequest {
            cluster_id: None,
            replica_id: 2,
            replica_directory_id: dir(2),
            max_bytes: 100,
            current_leader_epoch: epoch,
            snapshot_id: id,
            position: pos,
        })
    };
    let epoch = ctx.epoch();
    let code = |ctx: &Ctx, id| match ctx.response(id) {
        Some(Response::FetchSnapshot(r)) => r.partition_error,
        other => panic!("unexpected {other:?}"),
    };
    let id = ctx.deliver(req(OffsetAndEpoch::new(10, 1), 0, epoch));
    assert_eq!(code(&ctx, id), ErrorCode::SnapshotNotFound);
    let id = ctx.deliver(req(OffsetAndEpoch::new(10, 1), 0, epoch + 1));
    assert_eq!(code(&ctx, id), ErrorCode::UnknownLeaderEpoch);
    ctx.fetch_caught_up(key(2));
    let hw = ctx.core.high_watermark().unwrap();
    let snap = ctx
        .core
        .log_mut()
        .create_snapshot(hw, SnapshotControl::default())
        .expect("snapshot");
    let id = ctx.deliver(req(snap, 1 << 30, epoch));
    assert_eq!(code(&ctx, id), ErrorCode::PositionOutOfRange);
    let id = ctx.deliver(req(snap, -1, epoch));
    assert_eq!(code(&ctx, id), ErrorCode::PositionOutOfRange);
}

#[test]
fn describe_quorum_on_leader() {
    let mut ctx = leader_of(&[1, 2, 3]);
    ctx.now += 10;
    let t = ctx.now;
    ctx.fetch_caught_up(key(2));
    ctx.fetch_caught_up(key(9)); // an observer
    let d = describe(&mut ctx);
    assert_eq!(
        (d.partition_error, d.leader_id, d.leader_epoch),
        (ErrorCode::None, 1, ctx.epoch())
    );
    assert_eq!(d.high_watermark, ctx.leo());
    let ids: Vec<NodeId> = d.current_voters.iter().map(|r| r.replica_id).collect();
    assert_eq!(ids, vec![1, 2, 3]);
    let leader = &d.current_voters[0];
    assert_eq!(
        (leader.log_end_offset, leader.last_fetch_timestamp),
        (ctx.leo(), ctx.now)
    );
    let v2 = &d.current_voters[1];
    assert_eq!(
        (
            v2.log_end_offset,
            v2.last_fetch_timestamp,
            v2.last_caught_up_timestamp
        ),
        (ctx.leo(), t, t)
    );
    let v3 = &d.current_voters[2];
    assert_eq!(
        (
            v3.log_end_offset,
            v3.last_fetch_timestamp,
            v3.replica_directory_id
        ),
        (-1, -1, dir(3))
    );
    assert_eq!(d.observers.len(), 1);
    assert_eq!(
        (
            d.observers[0].replica_id,
            d.observers[0].replica_directory_id
        ),
        (9, dir(9))
    );
    assert_eq!(d.nodes.len(), 3, "nodes list voters only");
    assert_eq!(d.nodes[1], (2, endpoints(2)));
    // Observers that stop fetching are forgotten after 300 s.
    ctx.now += 300_000;
    let d = describe(&mut ctx);
    assert!(d.observers.is_empty());
}

#[test]
fn describe_quorum_not_leader() {
    let mut ctx = follower();
    let d = describe(&mut ctx);
    assert_eq!(d.partition_error, ErrorCode::NotLeaderOrFollower);
    assert_eq!(
        d.error_message.as_deref(),
        Some(ErrorCode::NotLeaderOrFollower.default_message())
    );
    assert_eq!((d.leader_id, d.leader_epoch, d.high_watermark), (0, 0, 0));
    assert!(d.current_voters.is_empty() && d.nodes.is_empty());
}

#[test]
fn committed_voters_empty_until_high_watermark_known() {
    let mut ctx = leader_of(&[1, 2]);
    assert!(describe(&mut ctx).committed_voters.is_empty());
    ctx.fetch_caught_up(key(2));
    let d = describe(&mut ctx);
    assert_eq!(d.committed_voters, d.current_voters);
}

#[test]
fn committed_voters_lag_an_uncommitted_add() {
    let mut ctx = leader_of(&[1, 2]);
    ctx.fetch_caught_up(key(2));
    ctx.fetch_caught_up(key(3));
    let id = ctx.deliver(ctx.add_voter_request(3, endpoints(3), false));
    ctx.answer_api_versions(ErrorCode::None, Some(KRaftVersionRange::new(0, 1)));
    assert!(ctx.response(id).is_some());
    let d = describe(&mut ctx);
    assert_eq!(d.current_voters.len(), 3);
    let committed: Vec<NodeId> = d.committed_voters.iter().map(|r| r.replica_id).collect();
    assert_eq!(
        committed,
        vec![1, 2],
        "the VotersRecord is not committed yet"
    );
    assert_eq!(d.committed_voters[..], d.current_voters[..2]);
    ctx.fetch_caught_up(key(2));
    let d = describe(&mut ctx);
    assert_eq!(d.committed_voters, d.current_voters);
}

#[test]
fn committed_voters_use_sentinels_for_departed_voters() {
    let mut ctx = leader_of(&[1, 2, 3]);
    ctx.fetch_caught_up(key(2));
    let id = ctx.deliver(ctx.remove_voter_request(key(3)));
    assert!(ctx.response(id).is_none());
    // Removed but not committed: voter 3 is still committed, now an observer
    // entry (it never fetched, so its values are unknown anyway).
    let d = describe(&mut ctx);
    assert_eq!(d.current_voters.len(), 2);
    let c3 = d
        .committed_voters
        .iter()
        .find(|r| r.replica_id == 3)
        .expect("still committed");
    assert_eq!(
        (
            c3.log_end_offset,
            c3.last_fetch_timestamp,
            c3.last_caught_up_timestamp
        ),
        (-1, -1, -1)
    );
    assert_eq!(c3.replica_directory_id, dir(3));
    // After the commit it is gone from the committed voters too.
    ctx.fetch_caught_up(key(2));
    let d = describe(&mut ctx);
    assert!(d.committed_voters.iter().all(|r| r.replica_id != 3));
}

#[test]
fn committed_voters_copy_replica_state_of_departed_voter() {
    let mut ctx = leader_of(&[1, 2, 3]);
    ctx.now += 5;
    let t = ctx.now;
    ctx.fetch_caught_up(key(2));
    ctx.fetch_caught_up(key(3));
    ctx.deliver(ctx.remove_voter_request(key(3)));
    let d = describe(&mut ctx);
    let obs = d
        .observers
        .iter()
        .find(|r| r.replica_id == 3)
        .expect("moved to observers")
        .clone();
    let c3 = d
        .committed_voters
        .iter()
        .find(|r| r.replica_id == 3)
        .expect("still committed")
        .clone();
    assert_eq!(obs, c3);
    assert_eq!(c3.last_fetch_timestamp, t);
}

#[test]
fn proposals_complete_on_commit_or_fail_on_leadership_loss() {
    let mut ctx = leader_of(&[1, 2, 3]);
    ctx.fetch_caught_up(key(2));
    let o = ctx.propose("x");
    let completions = |ctx: &mut Ctx| {
        let mut out = Vec::new();
        for a in ctx.core.take_actions() {
            if let Action::ProposalCompleted {
                last_offset,
                result,
                ..
            } = a
            {
                out.push((last_offset, result));
            }
        }
        out
    };
    let req = ctx.fetch_request(key(2), ctx.leo(), ctx.epoch());
    ctx.core.handle_request(500, Request::Fetch(req), ctx.now);
    assert_eq!(completions(&mut ctx), vec![(o, ErrorCode::None)]);
    ctx.drain();
    let o2 = ctx.propose("y");
    let epoch = ctx.epoch();
    ctx.core.resign(epoch, ctx.now).expect("resigns");
    // No voter holds `y`: the leader waits (an election timeout at most)
    // for one to fetch it, taking no more proposals meanwhile.
    assert!(completions(&mut ctx).is_empty());
    assert_eq!(ctx.core.role(), Role::Leader);
    assert!(ctx.core.propose(vec![Bytes::from("z")], ctx.now).is_err());
    ctx.now += ELECTION_TIMEOUT;
    ctx.core.tick(ctx.now);
    assert_eq!(
        completions(&mut ctx),
        vec![(o2, ErrorCode::NotLeaderOrFollower)]
    );
    assert_eq!(ctx.core.role(), Role::Resigned);
    assert!(ctx.core.propose(vec![Bytes::from("z")], ctx.now).is_err());
}

#[test]
fn a_resigning_leader_waits_until_a_voter_holds_its_log_then_names_it_first() {
    let mut ctx = leader_of(&[1, 2, 3]);
    ctx.fetch_caught_up(key(2));
    ctx.fetch_caught_up(key(3));
    let o = ctx.propose("x");
    let epoch = ctx.epoch();
    ctx.core.resign(epoch, ctx.now).expect("resigns");
    ctx.drain();
    assert_eq!(ctx.core.role(), Role::Leader, "voter 3 does not hold x yet");
    assert!(ctx
        .take_sent(|r| matches!(r, Request::EndQuorumEpoch(_)))
        .is_empty());
    // Voter 3 fetches x: it is committed, and the leader resigns at once
    // with voter 3 as its first preferred successor.
    ctx.fetch_caught_up(key(3));
    assert_eq!(ctx.core.role(), Role::Resigned);
    assert!(
        ctx.committed.iter().any(|b| b.last_offset() >= o),
        "x is committed before the leader resigns"
    );
    let ends = ctx.take_sent(|r| matches!(r, Request::EndQuorumEpoch(_)));
    assert_eq!(ends.len(), 2);
    for (_, _, _, r) in &ends {
        let Request::EndQuorumEpoch(e) = r else {
            unreachable!()
        };
        assert_eq!(e.preferred_candidates.first().map(|k| k.id), Some(3));
    }
    // The resigned leader grants that successor its pre-vote (its log is
    // as long), which with the successor's own is a majority.
    let pre = ctx.deliver(vote(&ctx, 3, epoch, epoch, ctx.leo(), true));
    assert_eq!(vote_result(&ctx, pre), (ErrorCode::None, true, epoch));
}

#[test]
fn observer_learns_leader_from_fetch_response() {
    let mut cfg = RaftConfig::new(5, dir(5), CLUSTER, endpoints(5), LISTENER);
    cfg.bootstrap_servers = vec![Address::new("localhost", 9991)];
    let mut core = RaftCore::new(cfg, MemoryLog::new(), None, Box::new(SplitMix64::new(3)), 0)
        .expect("starts");
    let (corr, dest) = core
        .take_actions()
        .into_iter()
        .find_map(|a| match a {
            Action::Send {
                correlation_id,
                destination,
                request: Request::Fetch(_),
                ..
            } => Some((correlation_id, destination)),
            _ => None,
        })
        .expect("fetch");
    let mut resp = fetch_response(1, 4, 2, vec![data_batch(0, 4, 2)]);
    resp.leader_endpoint = Some(NodeEndpoint {
        node_id: 1,
        address: Address::new("localhost", 9991),
    });
    core.handle_response(corr, dest, Response::Fetch(resp), 1);
    assert_eq!(
        (core.role(), core.leader(), core.epoch()),
        (Role::Follower, Some(1), 4)
    );
    assert!(!core.is_voter());
    // A newer epoch only installs the leader; the records come with the next fetch.
    assert_eq!(core.log().end_offset(), 0);
    let (corr, dest) = core
        .take_actions()
        .into_iter()
        .find_map(|a| match a {
            Action::Send {
                correlation_id,
                destination,
                request: Request::Fetch(_),
                ..
            } => Some((correlation_id, destination)),
            _ => None,
        })
        .expect("fetch to the leader");
    assert_eq!(dest, 1);
    let resp = fetch_response(1, 4, 2, vec![data_batch(0, 4, 2)]);
    core.handle_response(corr, dest, Response::Fetch(resp), 2);
    assert_eq!(core.log().end_offset(), 2);
}

#[test]
fn candidate_that_followed_a_leader_restarts_as_follower() {
    let mut b = Builder::dynamic(1, &voter_set(&[1, 2, 3])).election(6, Some(2));
    if let Some(e) = b.election.as_mut() {
        e.voted_key = Some(key(1));
    }
    let ctx = b.build();
    assert_eq!(
        (ctx.core.role(), ctx.core.leader(), ctx.epoch()),
        (Role::Follower, Some(2), 6)
    );
    assert_eq!(
        ctx.core.election_state().voted_key,
        Some(key(1)),
        "the vote is kept"
    );
}

#[test]
fn candidate_restarts_as_candidate() {
    let mut b = Builder::dynamic(1, &voter_set(&[1, 2, 3])).election(6, None);
    if let Some(e) = b.election.as_mut() {
        e.voted_key = Some(key(1));
    }
    let ctx = b.build();
    assert_eq!((ctx.core.role(), ctx.epoch()), (Role::Candidate, 6));
}
