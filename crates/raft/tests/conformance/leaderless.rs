//! Replicas with no leader to find do not spin: every node they ask answers
//! at once that it knows no leader, and the replica must still wait
//! `controller.quorum.retry.backoff.ms` before asking that node again.
//! Time only moves when the test advances the clock, so a replica that
//! re-sends straight from the response handler shows up as many requests
//! to one node at the same instant.

use std::collections::BTreeMap;

use kraft_raft::message::*;
use kraft_raft::*;

use super::harness::*;

/// Requests answered within one simulated millisecond before the test
/// gives up on that millisecond (a spinning replica would never stop).
const MAX_ROUNDS_PER_MS: usize = 200;

/// One request as seen by the test.
#[derive(Clone, Copy, Debug)]
struct Sent {
    at: i64,
    api: Api,
    /// Changes whenever the replica's role, epoch or leader changed: a new
    /// state starts with fresh connections, as in Kafka.
    generation: u64,
}

type Answer = dyn Fn(&Request) -> Response;

fn state_key(ctx: &Ctx) -> (Role, i32, Option<NodeId>) {
    (ctx.core.role(), ctx.core.epoch(), ctx.core.leader())
}

/// Runs `ctx` for `ms` simulated milliseconds, answering every request at
/// once with `answer`; returns the requests sent to each destination.
fn run(ctx: &mut Ctx, ms: i64, answer: &Answer) -> BTreeMap<NodeId, Vec<Sent>> {
    let mut sent: BTreeMap<NodeId, Vec<Sent>> = BTreeMap::new();
    let mut generation = 0;
    let mut last_key = state_key(ctx);
    let end = ctx.now + ms;
    while ctx.now < end {
        for _ in 0..MAX_ROUNDS_PER_MS {
            let key = state_key(ctx);
            if key != last_key {
                generation += 1;
                last_key = key;
            }
            let batch = std::mem::take(&mut ctx.sent);
            if batch.is_empty() {
                break;
            }
            for (corr, dest, _, req) in batch {
                sent.entry(dest).or_default().push(Sent {
                    at: ctx.now,
                    api: req.api(),
                    generation,
                });
                let response = answer(&req);
                ctx.respond(corr, dest, response);
            }
        }
        ctx.advance(1);
    }
    sent
}

/// The answer of a replica that knows no leader in the requester's epoch.
fn no_leader(req: &Request) -> Response {
    match req {
        Request::Fetch(f) => {
            let Response::Fetch(mut r) = Response::error(Api::Fetch, ErrorCode::None) else {
                unreachable!("a Fetch error response is a Fetch response")
            };
            r.partition_error = ErrorCode::NotLeaderOrFollower;
            r.leader_id = -1;
            r.leader_epoch = f.current_leader_epoch;
            Response::Fetch(r)
        }
        Request::Vote(v) => {
            let Response::Vote(mut r) = Response::error(Api::Vote, ErrorCode::None) else {
                unreachable!("a Vote error response is a Vote response")
            };
            r.leader_id = -1;
            r.leader_epoch = v.replica_epoch;
            r.vote_granted = false;
            Response::Vote(r)
        }
        other => Response::error(other.api(), ErrorCode::BrokerNotAvailable),
    }
}

/// Asserts that every destination was sent at most one request per
/// `backoff` interval, plus at most one when a new state (with fresh
/// connections) starts: no `backoff`-long window holds more than two
/// requests to one node, and over the run a node gets at most one request
/// per interval plus one per state change. A voter may also start a new
/// election on the same role and epoch (a pre-vote that timed out), at most
/// once per election timeout, which the test cannot see from outside.
/// Also asserts that the replica kept trying (at least one request per
/// interval over all destinations). Returns the number of requests per
/// destination.
fn assert_paced(
    sent: &BTreeMap<NodeId, Vec<Sent>>,
    backoff: i64,
    ms: i64,
    what: &str,
) -> BTreeMap<NodeId, usize> {
    let mut counts = BTreeMap::new();
    for (dest, reqs) in sent {
        for w in reqs.windows(3) {
            assert!(
                w[2].at - w[0].at >= backoff,
                "{what}: {:?}, {:?} and {:?} to {dest} within {} ms (at {} ms; \
                 {} requests to {dest} in {ms} ms)",
                w[0].api,
                w[1].api,
                w[2].api,
                w[2].at - w[0].at,
                w[2].at,
                reqs.len()
            );
        }
        let states = reqs.last().map(|r| r.generation + 1).unwrap_or(0) as i64;
        let bound = ms / backoff + 1 + states + ms / ELECTION_TIMEOUT;
        assert!(
            reqs.len() as i64 <= bound,
            "{what}: {} requests to {dest} in {ms} ms (at most {bound} expected)",
            reqs.len()
        );
        counts.insert(*dest, reqs.len());
    }
    let total: usize = counts.values().sum();
    assert!(
        total as i64 >= ms / backoff,
        "{what}: the replica stopped looking for a leader ({total} requests in {ms} ms)"
    );
    counts
}

#[test]
fn observer_backs_off_bootstrap_servers_that_know_no_leader() {
    let mut ctx = Builder::dynamic(4, &voter_set(&[1, 2, 3])).build();
    assert!(!ctx.core.is_voter());
    let backoff = ctx.core.config().retry_backoff_ms;
    let ms = 2000;
    let sent = run(&mut ctx, ms, &no_leader);
    let counts = assert_paced(&sent, backoff, ms, "observer");
    assert_eq!(
        counts.keys().copied().collect::<Vec<_>>(),
        vec![-4, -3, -2],
        "every bootstrap server is asked"
    );
    assert!(sent.values().flatten().all(|s| s.api == Api::Fetch));
    assert_eq!(ctx.core.role(), Role::Unattached);
    assert_eq!(ctx.core.leader(), None);
}

#[test]
fn observer_backs_off_bootstrap_servers_in_a_newer_leaderless_epoch() {
    // The bootstrap servers are in epoch 7 and know no leader: the first
    // answer moves the observer to epoch 7, every later one repeats it.
    let mut ctx = Builder::dynamic(4, &voter_set(&[1, 2, 3])).build();
    let backoff = ctx.core.config().retry_backoff_ms;
    let ms = 1000;
    let newer = |req: &Request| match (req, no_leader(req)) {
        (Request::Fetch(f), Response::Fetch(mut r)) => {
            r.leader_epoch = 7;
            if f.current_leader_epoch < 7 {
                r.partition_error = ErrorCode::FencedLeaderEpoch;
            }
            Response::Fetch(r)
        }
        (_, other) => other,
    };
    let sent = run(&mut ctx, ms, &newer);
    assert_paced(&sent, backoff, ms, "observer");
    assert_eq!((ctx.core.role(), ctx.core.epoch()), (Role::Unattached, 7));
}

#[test]
fn observer_backs_off_bootstrap_servers_that_cannot_be_reached() {
    let mut ctx = Builder::dynamic(4, &voter_set(&[1, 2, 3])).build();
    let backoff = ctx.core.config().retry_backoff_ms;
    let ms = 1000;
    let mut sent: BTreeMap<NodeId, Vec<Sent>> = BTreeMap::new();
    while ctx.now < ms {
        for _ in 0..MAX_ROUNDS_PER_MS {
            let batch = std::mem::take(&mut ctx.sent);
            if batch.is_empty() {
                break;
            }
            for (corr, dest, _, req) in batch {
                sent.entry(dest).or_default().push(Sent {
                    at: ctx.now,
                    api: req.api(),
                    generation: 0,
                });
                ctx.core
                    .handle_send_failure(corr, dest, ErrorCode::BrokerNotAvailable, ctx.now);
                ctx.drain();
            }
        }
        ctx.advance(1);
    }
    assert_paced(&sent, backoff, ms, "observer");
    assert_eq!(ctx.core.role(), Role::Unattached);
}

#[test]
fn voter_without_a_quorum_backs_off_fetches_and_votes() {
    // Voter 1 of 1, 2, 3: the others answer every Fetch with "no leader" and
    // reject every (pre-)vote, so it alternates between looking for a leader
    // and losing elections for as long as the test runs.
    let mut ctx = Builder::dynamic(1, &voter_set(&[1, 2, 3])).build();
    assert!(ctx.core.is_voter());
    let backoff = ctx.core.config().retry_backoff_ms;
    let ms = 6000;
    let sent = run(&mut ctx, ms, &no_leader);
    assert_paced(&sent, backoff, ms, "voter");
    let votes = sent
        .values()
        .flatten()
        .filter(|s| s.api == Api::Vote)
        .count();
    assert!(votes > 0, "the voter campaigns");
    assert!(ctx.core.leader().is_none());
}

#[test]
fn voter_backs_off_voters_that_reject_its_voter_key() {
    // The other voters answer Vote with INVALID_VOTER_KEY (their directory
    // changed): the vote is neither granted nor rejected, so the replica
    // asks again, but only after the backoff.
    let mut ctx = Builder::dynamic(1, &voter_set(&[1, 2, 3])).build();
    let backoff = ctx.core.config().retry_backoff_ms;
    let ms = 4000;
    let invalid_key = |req: &Request| match (req, no_leader(req)) {
        (Request::Vote(_), Response::Vote(mut r)) => {
            r.partition_error = ErrorCode::InvalidVoterKey;
            Response::Vote(r)
        }
        (_, other) => other,
    };
    let sent = run(&mut ctx, ms, &invalid_key);
    assert_paced(&sent, backoff, ms, "voter");
    let votes = sent
        .values()
        .flatten()
        .filter(|s| s.api == Api::Vote)
        .count();
    assert!(votes > 0, "the voter campaigns");
}
