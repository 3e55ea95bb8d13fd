//! Reconfiguration cases after Kafka 4.4's `KafkaRaftClientReconfigTest`:
//! same scenarios, same outcome and error codes, our own code.

use kraft_raft::message::*;
use kraft_raft::*;

use super::harness::*;

/// Leader 1 of voters {1, 2} with an established high watermark.
fn leader_of_two() -> Ctx {
    let mut ctx = Builder::dynamic(1, &voter_set(&[1, 2])).build();
    ctx.become_leader();
    let f = ctx.fetch_caught_up(key(2));
    assert_eq!(f.partition_error, ErrorCode::None);
    assert!(ctx.core.high_watermark().is_some(), "HW established");
    ctx
}

fn code(ctx: &Ctx, id: InboundId) -> ErrorCode {
    ctx.voter_change_code(id).map(|(c, _)| c).expect("answered")
}

fn message(ctx: &Ctx, id: InboundId) -> Option<String> {
    ctx.voter_change_code(id).and_then(|(_, m)| m)
}

/// Starts adding voter 3 (caught up as an observer) and answers the probe.
fn add_voter_3(ctx: &mut Ctx, ack_when_committed: bool) -> InboundId {
    ctx.fetch_caught_up(key(3));
    let req = ctx.add_voter_request(3, endpoints(3), ack_when_committed);
    let id = ctx.deliver(req);
    assert!(
        ctx.response(id).is_none(),
        "waits for the ApiVersions probe"
    );
    let dest = ctx.answer_api_versions(ErrorCode::None, Some(KRaftVersionRange::new(0, 1)));
    assert_eq!(dest, 3);
    id
}

#[test]
fn leader_writes_bootstrap_records() {
    let mut ctx = Builder::dynamic(1, &voter_set(&[1, 2])).build();
    ctx.become_leader();
    let first = &ctx.core.log().batches()[0];
    assert!(matches!(
        first.records[0],
        Record::Control(ControlRecord::LeaderChange(_))
    ));
    assert!(matches!(
        first.records[1],
        Record::Control(ControlRecord::KRaftVersion(1))
    ));
    match &first.records[2] {
        Record::Control(ControlRecord::Voters(v)) => assert_eq!(*v, voter_set(&[1, 2])),
        other => panic!("expected a VotersRecord, got {other:?}"),
    }
}

#[test]
fn leader_does_not_bootstrap_records_with_kraft_version_0() {
    let mut ctx = Builder::static_quorum(1, &[1, 2]).build();
    ctx.become_leader();
    let first = &ctx.core.log().batches()[0];
    assert_eq!(first.records.len(), 1);
    assert!(matches!(
        first.records[0],
        Record::Control(ControlRecord::LeaderChange(_))
    ));
}

#[test]
fn bootstrap_checkpoint_is_not_returned_on_fetch() {
    let mut ctx = leader_of_two();
    let f = ctx.fetch_at(key(2), 0, 0);
    assert_eq!(f.snapshot_id, None);
    let req = FetchSnapshotRequest {
        cluster_id: None,
        replica_id: 2,
        replica_directory_id: dir(2),
        max_bytes: 1000,
        current_leader_epoch: ctx.epoch(),
        snapshot_id: BOOTSTRAP_SNAPSHOT_ID,
        position: 0,
    };
    let id = ctx.deliver(Request::FetchSnapshot(req));
    match ctx.response(id) {
        Some(Response::FetchSnapshot(r)) => {
            assert_eq!(r.partition_error, ErrorCode::SnapshotNotFound)
        }
        other => panic!("unexpected {other:?}"),
    }
}

#[test]
fn add_voter() {
    let mut ctx = leader_of_two();
    let id = add_voter_3(&mut ctx, true);
    let (offset, voters) = ctx.last_voters_record().expect("VotersRecord appended");
    assert_eq!(voters, voter_set(&[1, 2, 3]));
    assert!(
        ctx.core.voters().is_voter(&key(3)),
        "the new voter counts immediately"
    );
    assert!(ctx.response(id).is_none(), "answered only once committed");
    // Majority of {1,2,3}: the follower alone commits it with the leader.
    ctx.fetch_caught_up(key(2));
    assert!(ctx.core.high_watermark().unwrap() > offset);
    assert_eq!(code(&ctx, id), ErrorCode::None);
    assert_eq!(message(&ctx, id), None, "success carries a null message");
}

#[test]
fn add_voter_completes_early_with_ack_when_committed_false() {
    let mut ctx = leader_of_two();
    let id = add_voter_3(&mut ctx, false);
    assert_eq!(code(&ctx, id), ErrorCode::None, "answered once appended");
    // The change is still pending: a second change times out.
    let second = ctx.deliver(ctx.remove_voter_request(key(2)));
    assert_eq!(code(&ctx, second), ErrorCode::RequestTimedOut);
    assert_eq!(
        message(&ctx, second).as_deref(),
        Some("Request timed out waiting for leader to handle previous voter change request")
    );
    // Once committed, the slot is free again (no second answer to the first).
    ctx.fetch_caught_up(key(2));
    ctx.fetch_caught_up(key(3));
    let third = ctx.deliver(ctx.remove_voter_request(key(3)));
    assert!(ctx.response(third).is_none(), "accepted and pending");
}

#[test]
fn add_voter_invalid_cluster_id() {
    let mut ctx = leader_of_two();
    let mut req = match ctx.add_voter_request(3, endpoints(3), true) {
        Request::AddRaftVoter(r) => r,
        _ => unreachable!(),
    };
    req.cluster_id = Some("wrong".into());
    let id = ctx.deliver(Request::AddRaftVoter(req));
    assert_eq!(code(&ctx, id), ErrorCode::InconsistentClusterId);
    assert_eq!(
        message(&ctx, id).as_deref(),
        Some("The given id \"wrong\" doesn't match the cluster id \"conformance-cluster\"")
    );
}

#[test]
fn add_voter_to_not_leader() {
    let mut ctx = Builder::dynamic(1, &voter_set(&[1, 2]))
        .election(3, Some(2))
        .build();
    let id = ctx.deliver(ctx.add_voter_request(3, endpoints(3), true));
    assert_eq!(code(&ctx, id), ErrorCode::NotLeaderOrFollower);
    assert_eq!(message(&ctx, id).as_deref(), Some(""));
}

#[test]
fn add_voter_with_missing_default_listener() {
    let mut ctx = leader_of_two();
    let id =
        ctx.deliver(ctx.add_voter_request(3, Endpoints::single("OTHER", "localhost", 1), true));
    assert_eq!(code(&ctx, id), ErrorCode::InvalidRequest);
    assert!(message(&ctx, id)
        .unwrap_or_default()
        .contains("for the default listener CONTROLLER"));
}

#[test]
fn add_voter_with_missing_directory_id() {
    let mut ctx = leader_of_two();
    let req = Request::AddRaftVoter(AddRaftVoterRequest {
        cluster_id: None,
        timeout_ms: 1000,
        voter_id: 3,
        voter_directory_id: Uuid::nil(),
        listeners: endpoints(3),
        ack_when_committed: true,
        derivation: None,
    });
    let id = ctx.deliver(req);
    assert_eq!(code(&ctx, id), ErrorCode::InvalidRequest);
    assert_eq!(
        message(&ctx, id).as_deref(),
        Some("Add voter request didn't include a valid voter")
    );
}

#[test]
fn add_voter_with_pending_add_voter() {
    let mut ctx = leader_of_two();
    ctx.fetch_caught_up(key(3));
    let first = ctx.deliver(ctx.add_voter_request(3, endpoints(3), true));
    assert!(ctx.response(first).is_none());
    let second = ctx.deliver(ctx.add_voter_request(4, endpoints(4), true));
    assert_eq!(code(&ctx, second), ErrorCode::RequestTimedOut);
}

#[test]
fn add_voter_without_fenced_previous_leaders() {
    let mut ctx = Builder::dynamic(1, &voter_set(&[1, 2])).build();
    ctx.become_leader();
    assert_eq!(ctx.core.high_watermark(), None);
    let id = ctx.deliver(ctx.add_voter_request(3, endpoints(3), true));
    assert_eq!(code(&ctx, id), ErrorCode::RequestTimedOut);
    assert_eq!(
        message(&ctx, id).as_deref(),
        Some("Request timed out waiting for leader to establish HWM and fence previous voter changes")
    );
}

#[test]
fn add_voter_with_kraft_version_0() {
    let mut ctx = Builder::static_quorum(1, &[1, 2]).build();
    ctx.become_leader();
    ctx.fetch_caught_up(ReplicaKey::without_directory(2));
    let id = ctx.deliver(ctx.add_voter_request(3, endpoints(3), true));
    assert_eq!(code(&ctx, id), ErrorCode::UnsupportedVersion);
    assert_eq!(
        message(&ctx, id).as_deref(),
        Some("Cluster doesn't support adding voter because the kraft.version feature is 0")
    );
}

#[test]
fn add_voter_with_existing_voter() {
    let mut ctx = leader_of_two();
    let id = ctx.deliver(ctx.add_voter_request(2, endpoints(2), true));
    assert_eq!(code(&ctx, id), ErrorCode::DuplicateVoter);
    assert!(message(&ctx, id)
        .unwrap_or_default()
        .starts_with("The voter id for ReplicaKey(id=2"));
}

#[test]
fn add_voter_timeout() {
    let mut ctx = leader_of_two();
    ctx.fetch_caught_up(key(3));
    let id = ctx.deliver(ctx.add_voter_request(3, endpoints(3), true));
    assert!(ctx.response(id).is_none());
    ctx.advance(REQUEST_TIMEOUT);
    assert_eq!(code(&ctx, id), ErrorCode::RequestTimedOut);
    assert_eq!(message(&ctx, id).as_deref(), Some("The request timed out."));
    // A late probe answer is ignored.
    let probes = ctx.take_sent(|r| matches!(r, Request::ApiVersions));
    if let Some((corr, dest, _, _)) = probes.first().cloned() {
        ctx.respond(
            corr,
            dest,
            Response::ApiVersions(ApiVersionsResponse {
                error_code: ErrorCode::None,
                kraft_version: Some(KRaftVersionRange::new(0, 1)),
            }),
        );
    }
    assert!(ctx
        .last_voters_record()
        .is_some_and(|(_, v)| v == voter_set(&[1, 2])));
}

#[test]
fn add_voter_with_api_versions_error() {
    let mut ctx = leader_of_two();
    ctx.fetch_caught_up(key(3));
    let id = ctx.deliver(ctx.add_voter_request(3, endpoints(3), true));
    let probe = ctx.take_sent(|r| matches!(r, Request::ApiVersions));
    let (corr, dest, addr, _) = probe[0].clone();
    assert_eq!((dest, addr), (3, Some(Address::new("localhost", 9993))));
    ctx.respond(
        corr,
        dest,
        Response::ApiVersions(ApiVersionsResponse {
            error_code: ErrorCode::InvalidRequest,
            kraft_version: None,
        }),
    );
    assert_eq!(code(&ctx, id), ErrorCode::RequestTimedOut);
    assert_eq!(
        message(&ctx, id).as_deref(),
        Some(
            "Aborted add voter operation for since API_VERSIONS returned an error INVALID_REQUEST"
        )
    );
}

#[test]
fn add_voter_ignores_api_versions_from_another_node() {
    let mut ctx = leader_of_two();
    ctx.fetch_caught_up(key(3));
    let id = ctx.deliver(ctx.add_voter_request(3, endpoints(3), true));
    let probe = ctx.take_sent(|r| matches!(r, Request::ApiVersions));
    let (corr, _, _, _) = probe[0].clone();
    // The same correlation id reported from the wrong node is not expected.
    ctx.respond(
        corr,
        4,
        Response::ApiVersions(ApiVersionsResponse {
            error_code: ErrorCode::None,
            kraft_version: Some(KRaftVersionRange::new(0, 1)),
        }),
    );
    assert!(ctx.response(id).is_none());
    assert_eq!(
        ctx.last_voters_record().map(|(_, v)| v),
        Some(voter_set(&[1, 2]))
    );
}

#[test]
fn add_voter_invalid_feature_version() {
    let mut ctx = leader_of_two();
    ctx.fetch_caught_up(key(3));
    let id = ctx.deliver(ctx.add_voter_request(3, endpoints(3), true));
    ctx.answer_api_versions(ErrorCode::None, Some(KRaftVersionRange::new(0, 0)));
    assert_eq!(code(&ctx, id), ErrorCode::InvalidRequest);
    let msg = message(&ctx, id).unwrap_or_default();
    assert!(
        msg.contains("kraft.version range (min: 0, max: 0 doesn't support the finalized version 1"),
        "{msg}"
    );
    // No range at all.
    let id = ctx.deliver(ctx.add_voter_request(3, endpoints(3), true));
    ctx.answer_api_versions(ErrorCode::None, None);
    assert_eq!(code(&ctx, id), ErrorCode::InvalidRequest);
}

#[test]
fn add_voter_with_lagging_new_voter() {
    let mut ctx = leader_of_two();
    // Voter 3 never fetched: it is not a caught-up observer.
    let id = ctx.deliver(ctx.add_voter_request(3, endpoints(3), true));
    ctx.answer_api_versions(ErrorCode::None, Some(KRaftVersionRange::new(0, 1)));
    assert_eq!(code(&ctx, id), ErrorCode::RequestTimedOut);
    assert!(message(&ctx, id)
        .unwrap_or_default()
        .ends_with("since it is lagging behind"));
    // Fetching below the leader's end offset is not caught up either.
    ctx.propose("x");
    ctx.fetch_at(key(3), 0, 0);
    let id = ctx.deliver(ctx.add_voter_request(3, endpoints(3), true));
    ctx.answer_api_versions(ErrorCode::None, Some(KRaftVersionRange::new(0, 1)));
    assert_eq!(code(&ctx, id), ErrorCode::RequestTimedOut);
}

#[test]
fn add_voter_fails_when_losing_leadership() {
    let mut ctx = leader_of_two();
    ctx.fetch_caught_up(key(3));
    let id = ctx.deliver(ctx.add_voter_request(3, endpoints(3), true));
    let epoch = ctx.epoch();
    ctx.core.resign(epoch, ctx.now).expect("leader resigns");
    ctx.drain();
    assert_eq!(code(&ctx, id), ErrorCode::NotLeaderOrFollower);
    assert_eq!(ctx.core.role(), Role::Resigned);
}

#[test]
fn remove_voter() {
    let mut ctx = Builder::dynamic(1, &voter_set(&[1, 2, 3])).build();
    ctx.become_leader();
    ctx.fetch_caught_up(key(2));
    let id = ctx.deliver(ctx.remove_voter_request(key(3)));
    assert!(ctx.response(id).is_none());
    let (offset, voters) = ctx.last_voters_record().expect("appended");
    assert_eq!(voters, voter_set(&[1, 2]));
    ctx.fetch_caught_up(key(2));
    assert!(ctx.core.high_watermark().unwrap() > offset);
    assert_eq!(code(&ctx, id), ErrorCode::None);
}

#[test]
fn remove_voter_is_leader() {
    let mut ctx = Builder::dynamic(1, &voter_set(&[1, 2, 3])).build();
    ctx.become_leader();
    ctx.fetch_caught_up(key(2));
    let id = ctx.deliver(ctx.remove_voter_request(key(1)));
    // The leader keeps leading but no longer counts for the majority.
    assert_eq!(ctx.core.role(), Role::Leader);
    ctx.fetch_caught_up(key(2));
    assert!(
        ctx.response(id).is_none(),
        "one of {{2,3}} is not a majority of {{2,3}}"
    );
    ctx.fetch_caught_up(key(3));
    assert_eq!(code(&ctx, id), ErrorCode::None);
    ctx.advance(1);
    assert_eq!(
        ctx.core.role(),
        Role::Resigned,
        "resigns once the removal commits"
    );
    let ends = ctx.take_sent(|r| matches!(r, Request::EndQuorumEpoch(_)));
    assert_eq!(ends.len(), 2, "EndQuorumEpoch to the remaining voters");
}

#[test]
fn remove_voter_invalid_cluster_id() {
    let mut ctx = leader_of_two();
    let id = ctx.deliver(Request::RemoveRaftVoter(RemoveRaftVoterRequest {
        cluster_id: Some("".into()),
        voter_id: 2,
        voter_directory_id: dir(2),
        derive_directory_id: false,
    }));
    assert_eq!(code(&ctx, id), ErrorCode::InconsistentClusterId);
}

#[test]
fn remove_voter_to_not_leader() {
    let mut ctx = Builder::dynamic(1, &voter_set(&[1, 2]))
        .election(3, Some(2))
        .build();
    let id = ctx.deliver(ctx.remove_voter_request(key(2)));
    assert_eq!(code(&ctx, id), ErrorCode::NotLeaderOrFollower);
}

#[test]
fn remove_voter_with_pending_remove_voter() {
    let mut ctx = Builder::dynamic(1, &voter_set(&[1, 2, 3, 4])).build();
    ctx.become_leader();
    ctx.fetch_caught_up(key(2));
    ctx.fetch_caught_up(key(3));
    let first = ctx.deliver(ctx.remove_voter_request(key(4)));
    assert!(ctx.response(first).is_none());
    let second = ctx.deliver(ctx.remove_voter_request(key(3)));
    assert_eq!(code(&ctx, second), ErrorCode::RequestTimedOut);
}

#[test]
fn remove_voter_without_fenced_previous_leaders() {
    let mut ctx = Builder::dynamic(1, &voter_set(&[1, 2])).build();
    ctx.become_leader();
    let id = ctx.deliver(ctx.remove_voter_request(key(2)));
    assert_eq!(code(&ctx, id), ErrorCode::RequestTimedOut);
}

#[test]
fn remove_voter_with_kraft_version_0() {
    let mut ctx = Builder::static_quorum(1, &[1, 2]).build();
    ctx.become_leader();
    ctx.fetch_caught_up(ReplicaKey::without_directory(2));
    let id = ctx.deliver(ctx.remove_voter_request(key(2)));
    assert_eq!(code(&ctx, id), ErrorCode::UnsupportedVersion);
    assert_eq!(
        message(&ctx, id).as_deref(),
        Some("Cluster doesn't support removing voter because the kraft.version feature is 0")
    );
}

#[test]
fn remove_voter_with_none_voter() {
    let mut ctx = leader_of_two();
    // Right id, wrong directory id.
    let id = ctx.deliver(ctx.remove_voter_request(ReplicaKey::of(2, Uuid::from_u128(99))));
    assert_eq!(code(&ctx, id), ErrorCode::VoterNotFound);
    assert!(message(&ctx, id)
        .unwrap_or_default()
        // Kafka's ReplicaKey.toString: the directory id in Kafka's base64 text.
        .starts_with(
            "Cannot remove voter ReplicaKey(id=2, directoryId=AAAAAAAAAAAAAAAAAAAAYw) from the set of voters"
        ));
    // Unknown id.
    let id = ctx.deliver(ctx.remove_voter_request(key(7)));
    assert_eq!(code(&ctx, id), ErrorCode::VoterNotFound);
}

#[test]
fn remove_voter_with_missing_directory_id() {
    let mut ctx = leader_of_two();
    let id = ctx.deliver(ctx.remove_voter_request(ReplicaKey::without_directory(2)));
    assert_eq!(code(&ctx, id), ErrorCode::InvalidRequest);
    assert_eq!(
        message(&ctx, id).as_deref(),
        Some("Remove voter request didn't include a valid voter")
    );
}

#[test]
fn remove_voter_to_empty_voter_set() {
    let mut ctx = Builder::dynamic(1, &voter_set(&[1])).build();
    assert_eq!(
        ctx.core.role(),
        Role::Leader,
        "a single voter leads at once"
    );
    ctx.advance(1);
    assert!(ctx.core.high_watermark().is_some());
    let id = ctx.deliver(ctx.remove_voter_request(key(1)));
    assert_eq!(code(&ctx, id), ErrorCode::VoterNotFound);
}

#[test]
fn remove_voter_timed_out() {
    let mut ctx = Builder::dynamic(1, &voter_set(&[1, 2, 3])).build();
    ctx.become_leader();
    ctx.fetch_caught_up(key(2));
    let id = ctx.deliver(ctx.remove_voter_request(key(3)));
    ctx.advance(REQUEST_TIMEOUT);
    assert_eq!(code(&ctx, id), ErrorCode::RequestTimedOut);
}

#[test]
fn remove_voter_fails_when_losing_leadership() {
    let mut ctx = Builder::dynamic(1, &voter_set(&[1, 2, 3])).build();
    ctx.become_leader();
    ctx.fetch_caught_up(key(2));
    let id = ctx.deliver(ctx.remove_voter_request(key(3)));
    // A higher epoch from a candidate makes the leader step down.
    let vote = VoteRequest {
        cluster_id: None,
        voter_id: 1,
        voter_directory_id: dir(1),
        replica_epoch: ctx.epoch() + 1,
        replica_id: 2,
        replica_directory_id: dir(2),
        last_offset_epoch: ctx.epoch(),
        last_offset: ctx.leo(),
        pre_vote: false,
    };
    ctx.deliver(Request::Vote(vote));
    assert_eq!(code(&ctx, id), ErrorCode::NotLeaderOrFollower);
}

#[test]
fn add_voter_with_pending_remove_voter() {
    let mut ctx = Builder::dynamic(1, &voter_set(&[1, 2, 3])).build();
    ctx.become_leader();
    ctx.fetch_caught_up(key(2));
    let first = ctx.deliver(ctx.remove_voter_request(key(3)));
    assert!(ctx.response(first).is_none());
    let second = ctx.deliver(ctx.add_voter_request(4, endpoints(4), true));
    assert_eq!(code(&ctx, second), ErrorCode::RequestTimedOut);
}

#[test]
fn remove_voter_with_pending_add_voter() {
    let mut ctx = leader_of_two();
    ctx.fetch_caught_up(key(3));
    let first = ctx.deliver(ctx.add_voter_request(3, endpoints(3), true));
    assert!(ctx.response(first).is_none());
    let second = ctx.deliver(ctx.remove_voter_request(key(2)));
    assert_eq!(code(&ctx, second), ErrorCode::RequestTimedOut);
}

#[test]
fn uncommitted_voter_change_blocks_the_next_one() {
    let mut ctx = Builder::dynamic(1, &voter_set(&[1, 2, 3])).build();
    ctx.become_leader();
    ctx.fetch_caught_up(key(2));
    let first = ctx.deliver(ctx.remove_voter_request(key(3)));
    ctx.advance(REQUEST_TIMEOUT); // the operation times out, the record stays uncommitted
    assert_eq!(code(&ctx, first), ErrorCode::RequestTimedOut);
    let second = ctx.deliver(ctx.remove_voter_request(key(2)));
    assert_eq!(code(&ctx, second), ErrorCode::RequestTimedOut);
    assert!(message(&ctx, second).unwrap_or_default().starts_with(
        "Request timed out waiting for voters to commit the latest voter change at Optional["
    ));
}

#[test]
fn update_voter() {
    let mut ctx = leader_of_two();
    let new_eps = Endpoints::single(LISTENER, "otherhost", 9000);
    let epoch = ctx.epoch();
    let id = ctx.deliver(ctx.update_voter_request(
        key(2),
        epoch,
        new_eps.clone(),
        KRaftVersionRange::new(0, 1),
    ));
    assert_eq!(
        ctx.update_voter_code(id),
        Some(ErrorCode::None),
        "answered without waiting for commit"
    );
    let (_, voters) = ctx.last_voters_record().expect("appended");
    assert_eq!(voters.listeners(2), new_eps);
    match ctx.response(id) {
        Some(Response::UpdateRaftVoter(r)) => {
            assert_eq!((r.leader_id, r.leader_epoch), (1, epoch));
            assert_eq!(r.leader_address, Some(Address::new("localhost", 9991)));
        }
        other => panic!("unexpected {other:?}"),
    }
}

#[test]
fn update_voter_invalid_cluster_id() {
    let mut ctx = leader_of_two();
    let mut req = match ctx.update_voter_request(
        key(2),
        ctx.epoch(),
        endpoints(2),
        KRaftVersionRange::new(0, 1),
    ) {
        Request::UpdateRaftVoter(r) => r,
        _ => unreachable!(),
    };
    req.cluster_id = Some("other".into());
    let id = ctx.deliver(Request::UpdateRaftVoter(req));
    assert_eq!(
        ctx.update_voter_code(id),
        Some(ErrorCode::InconsistentClusterId)
    );
}

#[test]
fn invalid_update_voter() {
    let mut ctx = leader_of_two();
    let epoch = ctx.epoch();
    let cases = [
        ctx.update_voter_request(
            ReplicaKey::without_directory(2),
            epoch,
            endpoints(2),
            KRaftVersionRange::new(0, 1),
        ),
        ctx.update_voter_request(
            key(2),
            epoch,
            Endpoints::single("OTHER", "h", 1),
            KRaftVersionRange::new(0, 1),
        ),
        ctx.update_voter_request(key(2), epoch, endpoints(2), KRaftVersionRange::new(1, 0)),
        ctx.update_voter_request(key(2), epoch, endpoints(2), KRaftVersionRange::new(-1, 1)),
        ctx.update_voter_request(key(2), epoch, endpoints(2), KRaftVersionRange::new(0, 0)),
    ];
    for req in cases {
        let id = ctx.deliver(req);
        assert_eq!(ctx.update_voter_code(id), Some(ErrorCode::InvalidRequest));
    }
}

#[test]
fn update_voter_old_epoch() {
    let mut ctx = leader_of_two();
    let id = ctx.deliver(ctx.update_voter_request(
        key(2),
        ctx.epoch() - 1,
        endpoints(2),
        KRaftVersionRange::new(0, 1),
    ));
    assert_eq!(
        ctx.update_voter_code(id),
        Some(ErrorCode::FencedLeaderEpoch)
    );
}

#[test]
fn update_voter_new_epoch() {
    let mut ctx = leader_of_two();
    let id = ctx.deliver(ctx.update_voter_request(
        key(2),
        ctx.epoch() + 1,
        endpoints(2),
        KRaftVersionRange::new(0, 1),
    ));
    assert_eq!(
        ctx.update_voter_code(id),
        Some(ErrorCode::UnknownLeaderEpoch)
    );
}

#[test]
fn update_voter_to_not_leader() {
    let mut ctx = Builder::dynamic(1, &voter_set(&[1, 2]))
        .election(3, Some(2))
        .build();
    let id = ctx.deliver(ctx.update_voter_request(
        key(1),
        3,
        endpoints(1),
        KRaftVersionRange::new(0, 1),
    ));
    assert_eq!(
        ctx.update_voter_code(id),
        Some(ErrorCode::NotLeaderOrFollower)
    );
}

#[test]
fn update_voter_without_fenced_previous_leaders() {
    let mut ctx = Builder::dynamic(1, &voter_set(&[1, 2])).build();
    ctx.become_leader();
    let id = ctx.deliver(ctx.update_voter_request(
        key(2),
        ctx.epoch(),
        endpoints(2),
        KRaftVersionRange::new(0, 1),
    ));
    assert_eq!(ctx.update_voter_code(id), Some(ErrorCode::RequestTimedOut));
}

#[test]
fn update_voter_with_kraft_version_0() {
    let mut ctx = Builder::static_quorum(1, &[1, 2]).build();
    ctx.become_leader();
    ctx.fetch_caught_up(ReplicaKey::without_directory(2));
    let before = ctx.leo();
    let id = ctx.deliver(ctx.update_voter_request(
        key(2),
        ctx.epoch(),
        endpoints(2),
        KRaftVersionRange::new(0, 1),
    ));
    assert_eq!(
        ctx.update_voter_code(id),
        Some(ErrorCode::None),
        "in-memory update"
    );
    assert_eq!(ctx.leo(), before, "nothing written with kraft.version 0");
}

#[test]
fn update_voter_with_none_voter() {
    let mut ctx = leader_of_two();
    let id = ctx.deliver(ctx.update_voter_request(
        ReplicaKey::of(2, Uuid::from_u128(5)),
        ctx.epoch(),
        endpoints(2),
        KRaftVersionRange::new(0, 1),
    ));
    assert_eq!(ctx.update_voter_code(id), Some(ErrorCode::VoterNotFound));
    let id = ctx.deliver(ctx.update_voter_request(
        key(9),
        ctx.epoch(),
        endpoints(9),
        KRaftVersionRange::new(0, 1),
    ));
    assert_eq!(ctx.update_voter_code(id), Some(ErrorCode::VoterNotFound));
}

#[test]
fn update_voter_with_pending_add_voter() {
    let mut ctx = leader_of_two();
    ctx.fetch_caught_up(key(3));
    ctx.deliver(ctx.add_voter_request(3, endpoints(3), true));
    let id = ctx.deliver(ctx.update_voter_request(
        key(2),
        ctx.epoch(),
        endpoints(2),
        KRaftVersionRange::new(0, 1),
    ));
    assert_eq!(ctx.update_voter_code(id), Some(ErrorCode::RequestTimedOut));
}

#[test]
fn follower_sends_update_voter_when_different() {
    // Voter 1's entry in the voter set has other endpoints than it listens on.
    let mut voters = voter_set(&[1, 2]);
    voters = voters
        .update_voter(VoterNode::new(
            key(1),
            Endpoints::single(LISTENER, "old", 1),
            KRaftVersionRange::new(0, 1),
        ))
        .expect("voter 1 exists");
    let mut ctx = Builder::dynamic(1, &voters).election(2, Some(2)).build();
    assert_eq!(ctx.core.role(), Role::Follower);
    // Fetches succeed for a while, then the update-voter timer fires.
    for _ in 0..4 {
        let fetches = ctx.take_sent(|r| matches!(r, Request::Fetch(_)));
        for (corr, dest, _, _) in fetches {
            let resp = FetchResponse {
                error_code: ErrorCode::None,
                partition_error: ErrorCode::None,
                high_watermark: -1,
                log_start_offset: 0,
                diverging_epoch: None,
                leader_id: 2,
                leader_epoch: 2,
                snapshot_id: None,
                records: Vec::new(),
                leader_endpoint: None,
            };
            ctx.respond(corr, dest, Response::Fetch(resp));
        }
        ctx.advance(FETCH_TIMEOUT / 2);
    }
    let updates = ctx.take_sent(|r| matches!(r, Request::UpdateRaftVoter(_)));
    assert_eq!(updates.len(), 1);
    match &updates[0].3 {
        Request::UpdateRaftVoter(u) => {
            assert_eq!(
                (u.voter_id, u.voter_directory_id, u.current_leader_epoch),
                (1, dir(1), 2)
            );
            assert_eq!(u.listeners, endpoints(1));
        }
        _ => unreachable!(),
    }
}

#[test]
fn observer_discovers_leader_with_unknown_voters() {
    let mut cfg = RaftConfig::new(5, dir(5), CLUSTER, endpoints(5), LISTENER);
    cfg.bootstrap_servers = vec![Address::new("localhost", 1234)];
    let log = MemoryLog::new();
    let election = ElectionState {
        epoch: 3,
        leader_id: None,
        voted_key: None,
    };
    let mut core =
        RaftCore::new(cfg, log, Some(election), Box::new(SplitMix64::new(1)), 0).expect("starts");
    let fetch = core.take_actions().into_iter().find_map(|a| match a {
        Action::Send {
            destination,
            request: Request::Fetch(f),
            ..
        } => Some((destination, f)),
        _ => None,
    });
    let (dest, f) = fetch.expect("fetch to a bootstrap server");
    assert_eq!(dest, -2);
    assert_eq!(
        (f.current_leader_epoch, f.fetch_offset, f.last_fetched_epoch),
        (3, 0, 0)
    );
}

#[test]
fn handle_begin_quorum_request_more_endpoints() {
    let mut ctx = Builder::dynamic(1, &voter_set(&[1, 2]))
        .election(3, Some(2))
        .build();
    let more = Endpoints::new([
        Endpoint::new(LISTENER, "localhost", 9992),
        Endpoint::new("ANOTHER_LISTENER", "localhost", 8992),
    ]);
    let id = ctx.deliver(Request::BeginQuorumEpoch(BeginQuorumEpochRequest {
        cluster_id: Some(CLUSTER.into()),
        voter_id: 1,
        voter_directory_id: dir(1),
        leader_id: 2,
        leader_epoch: 3,
        leader_endpoints: more,
    }));
    match ctx.response(id) {
        Some(Response::BeginQuorumEpoch(r)) => {
            assert_eq!(
                (r.partition_error, r.leader_id, r.leader_epoch),
                (ErrorCode::None, 2, 3)
            );
        }
        other => panic!("unexpected {other:?}"),
    }
    assert_eq!(
        (ctx.core.role(), ctx.core.leader()),
        (Role::Follower, Some(2))
    );
}

#[test]
fn auto_join_sends_add_voter_without_ack_when_committed() {
    let mut b = Builder::dynamic(3, &voter_set(&[1, 2]));
    b.cfg.auto_join = true;
    b.log = MemoryLog::with_bootstrap(SnapshotControl {
        voters: Some(voter_set(&[1, 2])),
        kraft_version: Some(1),
    });
    let mut ctx = b.election(4, Some(1)).build();
    assert_eq!(ctx.core.role(), Role::Follower);
    assert!(!ctx.core.is_voter());
    ctx.advance(FETCH_TIMEOUT);
    let adds = ctx.take_sent(|r| matches!(r, Request::AddRaftVoter(_)));
    assert_eq!(adds.len(), 1);
    match &adds[0].3 {
        Request::AddRaftVoter(a) => {
            assert_eq!((a.voter_id, a.voter_directory_id), (3, dir(3)));
            assert!(!a.ack_when_committed);
            assert_eq!(a.listeners, endpoints(3));
            assert_eq!(a.timeout_ms, REQUEST_TIMEOUT as i32);
        }
        _ => unreachable!(),
    }
    assert_eq!(adds[0].1, 1, "sent to the leader");
}

#[test]
fn auto_join_removes_stale_key_first() {
    // The voter set holds id 3 with another directory id (replaced disk).
    let stale = VoterNode::new(
        ReplicaKey::of(3, Uuid::from_u128(77)),
        endpoints(3),
        KRaftVersionRange::new(0, 1),
    );
    let voters = voter_set(&[1, 2]).add_voter(stale).expect("added");
    let mut b = Builder::dynamic(3, &voters);
    b.cfg.auto_join = true;
    let mut ctx = b.election(4, Some(1)).build();
    assert!(!ctx.core.is_voter());
    ctx.advance(FETCH_TIMEOUT);
    let removes = ctx.take_sent(|r| matches!(r, Request::RemoveRaftVoter(_)));
    assert_eq!(removes.len(), 1);
    match &removes[0].3 {
        Request::RemoveRaftVoter(r) => {
            assert_eq!((r.voter_id, r.voter_directory_id), (3, Uuid::from_u128(77)))
        }
        _ => unreachable!(),
    }
}

// ----------------------------------------------------------------------
// kraft.version 0 -> 1 upgrade (KafkaRaftClient.upgradeKRaftVersion)

/// A leader of the static quorum {1, 2} whose follower has fetched.
fn static_leader_of_two() -> Ctx {
    let mut ctx = Builder::static_quorum(1, &[1, 2]).build();
    ctx.become_leader();
    ctx.fetch_caught_up(ReplicaKey::without_directory(2));
    ctx
}

#[test]
fn kraft_upgrade_waits_until_every_voter_reports_its_range() {
    let mut ctx = static_leader_of_two();
    let (epoch, now, before) = (ctx.epoch(), ctx.now, ctx.leo());
    let e = ctx
        .core
        .upgrade_kraft_version(epoch, 1, false, now)
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidUpdateVersion);
    assert_eq!(
        e.message,
        "Invalid upgrade of kraft.version to KRAFT_VERSION_1 because not all of the voters support it"
    );
    assert_eq!(ctx.leo(), before, "nothing appended");
    assert_eq!(ctx.core.kraft_version(), 0);
}

#[test]
fn kraft_upgrade_appends_version_and_learned_voters() {
    let mut ctx = static_leader_of_two();
    let id = ctx.deliver(ctx.update_voter_request(
        key(2),
        ctx.epoch(),
        endpoints(2),
        KRaftVersionRange::new(0, 1),
    ));
    assert_eq!(ctx.update_voter_code(id), Some(ErrorCode::None));
    let (epoch, now, before) = (ctx.epoch(), ctx.now, ctx.leo());

    // Validation only: the answer, nothing written.
    assert_eq!(
        ctx.core.upgrade_kraft_version(epoch, 1, true, now),
        Ok(true)
    );
    assert_eq!(ctx.leo(), before);

    assert_eq!(
        ctx.core.upgrade_kraft_version(epoch, 1, false, now),
        Ok(true)
    );
    ctx.drain();
    let batch = ctx.core.log().batches().last().unwrap().clone();
    assert_eq!(batch.base_offset, before);
    assert_eq!(
        batch.records.len(),
        2,
        "one control batch: version + voters"
    );
    assert!(matches!(
        batch.records[0],
        Record::Control(ControlRecord::KRaftVersion(1))
    ));
    let Record::Control(ControlRecord::Voters(voters)) = &batch.records[1] else {
        panic!("expected a VotersRecord, got {:?}", batch.records[1]);
    };
    let keys: Vec<ReplicaKey> = voters.keys().collect();
    assert_eq!(keys, vec![key(1), key(2)], "directory ids learned");
    assert_eq!(ctx.core.kraft_version(), 1);
    // While the upgrade's VotersRecord is uncommitted the committed voters
    // are the static ones (ids without directory ids), not an empty list.
    let committed = |ctx: &mut Ctx| -> Vec<(i32, Uuid)> {
        let now = ctx.now;
        ctx.core
            .describe_quorum(now)
            .committed_voters
            .iter()
            .map(|r| (r.replica_id, r.replica_directory_id))
            .collect()
    };
    assert_eq!(
        committed(&mut ctx),
        vec![(1, Uuid::nil()), (2, Uuid::nil())]
    );

    // Asking again is a no-op; a downgrade is refused.
    assert_eq!(
        ctx.core.upgrade_kraft_version(epoch, 1, false, now),
        Ok(false)
    );
    let e = ctx
        .core
        .upgrade_kraft_version(epoch, 0, false, now)
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidUpdateVersion);
    assert_eq!(
        e.message,
        "Invalid upgrade of kraft.version from version KRAFT_VERSION_1 to KRAFT_VERSION_0 because the new version is a downgrade"
    );

    // Once committed, the quorum is dynamic: voter changes are accepted.
    let end = ctx.leo();
    ctx.fetch_at(key(2), end, epoch);
    assert!(ctx.core.high_watermark().is_some_and(|hw| hw >= end));
    let learned: Vec<(i32, Uuid)> = [key(1), key(2)]
        .iter()
        .map(|k| (k.id, k.directory_id.unwrap_or_default()))
        .collect();
    assert_eq!(
        committed(&mut ctx),
        learned,
        "the learned set once committed"
    );
    let id = ctx.deliver(ctx.remove_voter_request(key(2)));
    ctx.drain();
    assert_ne!(
        ctx.voter_change_code(id).map(|(c, _)| c),
        Some(ErrorCode::UnsupportedVersion),
        "kraft.version 1 in effect"
    );
}

#[test]
fn kraft_upgrade_only_at_the_leader_of_the_given_epoch() {
    let mut ctx = static_leader_of_two();
    let (epoch, now) = (ctx.epoch(), ctx.now);
    let e = ctx
        .core
        .upgrade_kraft_version(epoch - 1, 1, false, now)
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::NotController);
    assert_eq!(
        e.message,
        format!("Upgrade kraft version failed because the given epoch {} is stale. Current leader epoch is {epoch}", epoch - 1)
    );
    let e = ctx
        .core
        .upgrade_kraft_version(epoch + 1, 1, false, now)
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidUpdateVersion);

    let mut follower = Builder::static_quorum(2, &[1, 2]).build();
    let e = follower
        .core
        .upgrade_kraft_version(follower.epoch(), 1, false, follower.now)
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::NotController);
}

// ----------------------------------------------------------------------
// Sticky removal: a running controller removed from the voter set does not
// auto-join again until it restarts (Kafka re-adds it at the next timer).

/// A fetch answer from leader 1 in epoch 4.
fn leader_fetch_answer(hw: i64, records: Vec<Batch>) -> FetchResponse {
    FetchResponse {
        error_code: ErrorCode::None,
        partition_error: ErrorCode::None,
        high_watermark: hw,
        log_start_offset: 0,
        diverging_epoch: None,
        leader_id: 1,
        leader_epoch: 4,
        snapshot_id: None,
        records,
        leader_endpoint: None,
    }
}

/// A control batch at `base` holding the VotersRecord `voters`.
fn voters_batch(base: i64, voters: VoterSet) -> Batch {
    Batch {
        base_offset: base,
        epoch: 4,
        append_time: 0,
        records: vec![Record::Control(ControlRecord::Voters(voters))],
        encoded: Default::default(),
    }
}

/// Answers the pending fetch (if any) with `records`, committing them.
fn answer_pending_fetch(ctx: &mut Ctx, records: Vec<Batch>) {
    let end = records
        .last()
        .map(|b| b.base_offset + b.records.len() as i64)
        .unwrap_or(ctx.leo());
    for (corr, dest, _, _) in ctx.take_sent(|r| matches!(r, Request::Fetch(_))) {
        ctx.respond(
            corr,
            dest,
            Response::Fetch(leader_fetch_answer(end, records.clone())),
        );
    }
}

/// Keeps answering fetches for `rounds` half fetch timeouts; returns the
/// AddRaftVoter requests sent meanwhile.
fn follow_for(ctx: &mut Ctx, rounds: usize) -> usize {
    let mut adds = 0;
    for _ in 0..rounds {
        answer_pending_fetch(ctx, Vec::new());
        ctx.advance(FETCH_TIMEOUT / 2);
        adds += ctx
            .take_sent(|r| matches!(r, Request::AddRaftVoter(_)))
            .len();
    }
    adds
}

/// Voter 3 of {1, 2, 3} following leader 1 with auto-join on.
fn auto_joining_voter_three() -> Ctx {
    let mut b = Builder::dynamic(3, &voter_set(&[1, 2, 3]));
    b.cfg.auto_join = true;
    let mut ctx = b.election(4, Some(1)).build();
    assert_eq!(ctx.core.role(), Role::Follower);
    assert!(ctx.core.is_voter());
    // A first fetch answer establishes the HW: the bootstrap set commits.
    answer_pending_fetch(&mut ctx, Vec::new());
    assert!(!ctx.core.removed_from_voters());
    ctx
}

#[test]
fn removed_voter_does_not_auto_join_until_restart() {
    let mut ctx = auto_joining_voter_three();
    let at = ctx.leo();
    answer_pending_fetch(&mut ctx, vec![voters_batch(at, voter_set(&[1, 2]))]);
    assert_eq!(ctx.core.high_watermark(), Some(at + 1), "removal committed");
    assert!(!ctx.core.is_voter());
    assert!(ctx.core.removed_from_voters());
    assert_eq!(ctx.core.state_name(), "observer");
    // Many auto-join periods pass: it stays an observer.
    assert_eq!(follow_for(&mut ctx, 12), 0, "no AddRaftVoter after removal");

    // A restart (same log, new process) forgets the removal: auto-join again.
    let log = ctx.core.log().clone();
    let mut b = Builder::dynamic(3, &voter_set(&[1, 2, 3]));
    b.cfg.auto_join = true;
    b.log = log;
    let mut restarted = b.election(4, Some(1)).build();
    assert!(!restarted.core.is_voter());
    assert!(!restarted.core.removed_from_voters());
    assert!(
        follow_for(&mut restarted, 4) >= 1,
        "auto-joins after restart"
    );
}

#[test]
fn voter_added_back_by_operator_is_sticky_only_after_its_next_removal() {
    let mut ctx = auto_joining_voter_three();
    let at = ctx.leo();
    answer_pending_fetch(&mut ctx, vec![voters_batch(at, voter_set(&[1, 2]))]);
    assert!(ctx.core.removed_from_voters());
    // The operator adds it back (add-controller): no longer removed.
    let at = ctx.leo();
    answer_pending_fetch(&mut ctx, vec![voters_batch(at, voter_set(&[1, 2, 3]))]);
    assert!(ctx.core.is_voter());
    assert!(!ctx.core.removed_from_voters());
    // An uncommitted removal does not count; its commit does.
    let at = ctx.leo();
    for (corr, dest, _, _) in ctx.take_sent(|r| matches!(r, Request::Fetch(_))) {
        ctx.respond(
            corr,
            dest,
            Response::Fetch(leader_fetch_answer(
                at,
                vec![voters_batch(at, voter_set(&[1, 2]))],
            )),
        );
    }
    assert!(!ctx.core.removed_from_voters(), "removal not committed yet");
    answer_pending_fetch(&mut ctx, Vec::new());
    assert_eq!(ctx.core.high_watermark(), Some(at + 1));
    assert!(ctx.core.removed_from_voters());
    assert_eq!(follow_for(&mut ctx, 8), 0);
}

#[test]
fn observer_that_never_was_a_voter_keeps_auto_joining() {
    // Kafka's behaviour is kept for a controller that never was a voter:
    // a failed or timed-out add is retried every fetch timeout.
    let mut b = Builder::dynamic(3, &voter_set(&[1, 2]));
    b.cfg.auto_join = true;
    let mut ctx = b.election(4, Some(1)).build();
    answer_pending_fetch(&mut ctx, Vec::new());
    assert!(!ctx.core.removed_from_voters());
    assert!(follow_for(&mut ctx, 8) >= 2, "retries on its timer");
}
