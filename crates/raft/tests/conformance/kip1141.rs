//! KIP-1141 (AddRaftVoter v2 / RemoveRaftVoter v1): the leader derives a
//! missing directory id and endpoints only after every 4.4 check, so a v2
//! request that leaves them empty gets the same answer as a complete v1
//! request wherever one of those checks refuses it.

use kraft_raft::message::*;
use kraft_raft::*;

use super::harness::*;

/// Leader 1 of voters {1, 2} with an established high watermark.
fn leader_of_two() -> Ctx {
    let mut ctx = Builder::dynamic(1, &voter_set(&[1, 2])).build();
    ctx.become_leader();
    ctx.fetch_caught_up(key(2));
    assert!(ctx.core.high_watermark().is_some(), "HW established");
    ctx
}

/// What `add-controller --controller-id N` sends: AddRaftVoter v2 with the
/// zero directory id and no listeners; `registered` is what the metadata
/// image holds for N.
fn add_by_id(id: NodeId, registered: Option<Endpoints>) -> AddRaftVoterRequest {
    AddRaftVoterRequest {
        cluster_id: Some(CLUSTER.into()),
        timeout_ms: i32::MAX,
        voter_id: id,
        voter_directory_id: Uuid::nil(),
        listeners: Endpoints::empty(),
        ack_when_committed: true,
        derivation: Some(AddVoterDerivation {
            registered_listeners: registered,
        }),
    }
}

/// What `remove-controller --controller-id N` sends: RemoveRaftVoter v1 with
/// the zero directory id.
fn remove_by_id(id: NodeId) -> RemoveRaftVoterRequest {
    RemoveRaftVoterRequest {
        cluster_id: Some(CLUSTER.into()),
        voter_id: id,
        voter_directory_id: Uuid::nil(),
        derive_directory_id: true,
    }
}

fn answer(ctx: &Ctx, id: InboundId) -> (ErrorCode, String) {
    let (code, message) = ctx.voter_change_code(id).expect("answered");
    (code, message.unwrap_or_default())
}

fn add(ctx: &mut Ctx, r: AddRaftVoterRequest) -> (ErrorCode, String) {
    let id = ctx.deliver(Request::AddRaftVoter(r));
    answer(ctx, id)
}

fn remove(ctx: &mut Ctx, r: RemoveRaftVoterRequest) -> (ErrorCode, String) {
    let id = ctx.deliver(Request::RemoveRaftVoter(r));
    answer(ctx, id)
}

#[test]
fn add_by_id_of_an_existing_voter_is_a_duplicate() {
    let mut ctx = leader_of_two();
    let (code, message) = add(&mut ctx, add_by_id(2, None));
    assert_eq!(code, ErrorCode::DuplicateVoter);
    assert!(
        message.starts_with(
            "The voter id for ReplicaKey(id=2, directoryId=<undefined>) is already part of the set of voters ["
        ),
        "{message}"
    );
}

#[test]
fn add_by_id_to_a_follower_is_not_leader_with_an_empty_message() {
    let mut ctx = Builder::dynamic(1, &voter_set(&[1, 2]))
        .election(3, Some(2))
        .build();
    assert_eq!(
        add(&mut ctx, add_by_id(3, None)),
        (ErrorCode::NotLeaderOrFollower, String::new())
    );
}

#[test]
fn add_by_id_with_a_wrong_cluster_id_is_inconsistent() {
    let mut ctx = leader_of_two();
    let mut r = add_by_id(3, None);
    r.cluster_id = Some("wrong".into());
    assert_eq!(
        add(&mut ctx, r),
        (
            ErrorCode::InconsistentClusterId,
            "The given id \"wrong\" doesn't match the cluster id \"conformance-cluster\"".into()
        )
    );
}

#[test]
fn add_by_id_with_a_negative_id_is_invalid() {
    let mut ctx = leader_of_two();
    assert_eq!(
        add(&mut ctx, add_by_id(-1, None)),
        (
            ErrorCode::InvalidRequest,
            "Add voter request didn't include a valid voter".into()
        )
    );
}

#[test]
fn add_by_id_before_the_high_watermark_is_known_times_out() {
    let mut ctx = Builder::dynamic(1, &voter_set(&[1, 2])).build();
    ctx.become_leader();
    assert_eq!(ctx.core.high_watermark(), None);
    assert_eq!(
        add(&mut ctx, add_by_id(3, None)),
        (
            ErrorCode::RequestTimedOut,
            "Request timed out waiting for leader to establish HWM and fence previous voter changes"
                .into()
        )
    );
}

#[test]
fn add_by_id_while_a_change_is_pending_times_out() {
    let mut ctx = Builder::dynamic(1, &voter_set(&[1, 2, 3])).build();
    ctx.become_leader();
    ctx.fetch_caught_up(key(2));
    let first = ctx.deliver(ctx.remove_voter_request(key(3)));
    assert!(ctx.response(first).is_none(), "pending");
    assert_eq!(
        add(&mut ctx, add_by_id(4, None)),
        (
            ErrorCode::RequestTimedOut,
            "Request timed out waiting for leader to handle previous voter change request".into()
        )
    );
}

#[test]
fn add_by_id_on_a_static_quorum_is_unsupported() {
    let mut ctx = Builder::static_quorum(1, &[1, 2]).build();
    ctx.become_leader();
    ctx.fetch_caught_up(ReplicaKey::without_directory(2));
    assert_eq!(
        add(&mut ctx, add_by_id(3, None)),
        (
            ErrorCode::UnsupportedVersion,
            "Cluster doesn't support adding voter because the kraft.version feature is 0".into()
        )
    );
}

#[test]
fn add_by_id_derives_the_observer_directory_id_and_the_registered_endpoints() {
    let mut ctx = leader_of_two();
    ctx.fetch_caught_up(key(3));
    let id = ctx.deliver(Request::AddRaftVoter(add_by_id(3, Some(endpoints(3)))));
    assert!(
        ctx.response(id).is_none(),
        "waits for the ApiVersions probe"
    );
    let probed = ctx.answer_api_versions(ErrorCode::None, Some(KRaftVersionRange::new(0, 1)));
    assert_eq!(probed, 3);
    let (_, voters) = ctx.last_voters_record().expect("VotersRecord appended");
    assert_eq!(voters, voter_set(&[1, 2, 3]), "key and endpoints derived");
    ctx.fetch_caught_up(key(2));
    assert_eq!(answer(&ctx, id).0, ErrorCode::None);
}

#[test]
fn add_by_id_uses_given_values_as_given() {
    let mut ctx = leader_of_two();
    ctx.fetch_caught_up(key(3));
    let given = Endpoints::single(LISTENER, "given-host", 7000);
    let mut r = add_by_id(3, None);
    r.voter_directory_id = dir(3);
    r.listeners = given.clone();
    let id = ctx.deliver(Request::AddRaftVoter(r));
    let (_, address, _) = ctx
        .take_sent(|r| matches!(r, Request::ApiVersions))
        .into_iter()
        .map(|(_, to, address, r)| (to, address, r))
        .next()
        .expect("probe sent");
    assert_eq!(
        address,
        given.address(LISTENER),
        "probes the given endpoint"
    );
    assert!(ctx.response(id).is_none());
}

#[test]
fn add_by_id_without_an_observer_is_refused() {
    let mut ctx = leader_of_two();
    let (code, message) = add(&mut ctx, add_by_id(3, Some(endpoints(3))));
    assert_eq!(code, ErrorCode::InvalidRequest);
    assert!(
        message.contains("no observer with node id 3 is replicating the metadata log"),
        "{message}"
    );
}

#[test]
fn add_by_id_with_two_observers_of_that_id_names_both() {
    let mut ctx = leader_of_two();
    let other = ReplicaKey::of(3, Uuid::from_u128(77));
    ctx.fetch_caught_up(key(3));
    ctx.fetch_caught_up(other);
    let (code, message) = add(&mut ctx, add_by_id(3, Some(endpoints(3))));
    assert_eq!(code, ErrorCode::InvalidRequest);
    assert!(
        message.contains("more than one observer with node id 3"),
        "{message}"
    );
    for d in [dir(3), Uuid::from_u128(77)] {
        let text = kraft_protocol::kafka_uuid::to_string(&d);
        assert!(message.contains(&text), "{message} names {text}");
    }
}

#[test]
fn add_by_id_of_an_unregistered_controller_is_refused() {
    let mut ctx = leader_of_two();
    ctx.fetch_caught_up(key(3));
    let (code, message) = add(&mut ctx, add_by_id(3, None));
    assert_eq!(code, ErrorCode::InvalidRequest);
    assert!(
        message.contains("controller 3 is not registered"),
        "{message}"
    );
}

#[test]
fn add_by_id_whose_registration_lacks_the_default_listener_is_refused() {
    let mut ctx = leader_of_two();
    ctx.fetch_caught_up(key(3));
    let (code, message) = add(
        &mut ctx,
        add_by_id(3, Some(Endpoints::single("OTHER", "h", 1))),
    );
    assert_eq!(code, ErrorCode::InvalidRequest);
    assert!(
        message.contains("for the default listener CONTROLLER"),
        "{message}"
    );
}

#[test]
fn v1_add_with_zero_directory_id_keeps_the_4_4_answer() {
    let mut ctx = leader_of_two();
    ctx.fetch_caught_up(key(3));
    let mut r = add_by_id(3, Some(endpoints(3)));
    r.derivation = None;
    r.listeners = endpoints(3);
    assert_eq!(
        add(&mut ctx, r),
        (
            ErrorCode::InvalidRequest,
            "Add voter request didn't include a valid voter".into()
        )
    );
}

#[test]
fn remove_by_id_takes_the_directory_id_from_the_latest_voter_set() {
    let mut ctx = Builder::dynamic(1, &voter_set(&[1, 2, 3])).build();
    ctx.become_leader();
    ctx.fetch_caught_up(key(2));
    let id = ctx.deliver(Request::RemoveRaftVoter(remove_by_id(3)));
    assert!(ctx.response(id).is_none(), "pending until committed");
    let (_, voters) = ctx.last_voters_record().expect("VotersRecord appended");
    assert_eq!(voters, voter_set(&[1, 2]));
    ctx.fetch_caught_up(key(2));
    assert_eq!(answer(&ctx, id).0, ErrorCode::None);
}

#[test]
fn remove_by_id_of_a_non_voter_is_not_found() {
    let mut ctx = leader_of_two();
    let (code, message) = remove(&mut ctx, remove_by_id(7));
    assert_eq!(code, ErrorCode::VoterNotFound);
    assert!(
        message.starts_with(
            "Cannot remove voter ReplicaKey(id=7, directoryId=<undefined>) from the set of voters ["
        ),
        "{message}"
    );
}

#[test]
fn remove_by_id_to_a_follower_is_not_leader() {
    let mut ctx = Builder::dynamic(1, &voter_set(&[1, 2]))
        .election(3, Some(2))
        .build();
    assert_eq!(
        remove(&mut ctx, remove_by_id(2)),
        (ErrorCode::NotLeaderOrFollower, String::new())
    );
}

#[test]
fn remove_by_id_with_a_wrong_cluster_id_is_inconsistent() {
    let mut ctx = leader_of_two();
    let mut r = remove_by_id(2);
    r.cluster_id = Some("wrong".into());
    assert_eq!(remove(&mut ctx, r).0, ErrorCode::InconsistentClusterId);
}

#[test]
fn remove_by_id_before_the_high_watermark_is_known_times_out() {
    let mut ctx = Builder::dynamic(1, &voter_set(&[1, 2])).build();
    ctx.become_leader();
    assert_eq!(
        remove(&mut ctx, remove_by_id(2)).0,
        ErrorCode::RequestTimedOut
    );
}

#[test]
fn remove_by_id_of_a_static_voter_is_unsupported() {
    let mut ctx = Builder::static_quorum(1, &[1, 2, 3]).build();
    ctx.become_leader();
    ctx.fetch_caught_up(ReplicaKey::without_directory(2));
    assert_eq!(
        remove(&mut ctx, remove_by_id(3)),
        (
            ErrorCode::UnsupportedVersion,
            "Cluster doesn't support removing voter because the kraft.version feature is 0".into()
        )
    );
}

#[test]
fn remove_by_id_of_the_last_voter_is_not_found() {
    let mut ctx = Builder::dynamic(1, &voter_set(&[1])).build();
    ctx.advance(1);
    assert!(ctx.core.high_watermark().is_some());
    assert_eq!(
        remove(&mut ctx, remove_by_id(1)).0,
        ErrorCode::VoterNotFound
    );
}

#[test]
fn v0_remove_with_zero_directory_id_keeps_the_4_4_answer() {
    let mut ctx = leader_of_two();
    let mut r = remove_by_id(2);
    r.derive_directory_id = false;
    assert_eq!(
        remove(&mut ctx, r),
        (
            ErrorCode::InvalidRequest,
            "Remove voter request didn't include a valid voter".into()
        )
    );
}
