//! KIP-1141 requests answered in Kafka's check order by real `kraft server`
//! processes: an AddRaftVoter v2 / RemoveRaftVoter v1 that leaves the
//! directory id (and listeners) for the leader to derive gets the answer of
//! the first 4.4 check that refuses it (cluster id, leader, voter id, pending
//! change, high watermark, kraft.version, duplicate), and derivation errors
//! only after all of them. Sent over raw TCP, to the leader and to a follower.

use std::time::Duration;

use kraft_protocol::messages::add_raft_voter_request::AddRaftVoterRequest;
use kraft_protocol::messages::remove_raft_voter_request::RemoveRaftVoterRequest;
use kraft_protocol::{ErrorCode, RequestBody, ResponseBody, StrBytes, Uuid};

use super::protocol_sweep::sweep;
use super::{kraft, start_three, Cluster};

/// Sends one AddRaftVoter / RemoveRaftVoter and returns (code, message).
pub(super) fn ask(addr: &str, version: i16, body: RequestBody) -> (ErrorCode, String) {
    let api = body.api_key();
    let answer = sweep::exchange(addr, api, version, 7, &body)
        .unwrap_or_else(|e| panic!("{api:?} v{version} to {addr}: {e}"));
    let (code, message) = match answer {
        ResponseBody::AddRaftVoter(r) => (r.error_code, r.error_message),
        ResponseBody::RemoveRaftVoter(r) => (r.error_code, r.error_message),
        other => panic!("unexpected answer {other:?}"),
    };
    (
        ErrorCode::from(code),
        message.map(|m| m.to_string()).unwrap_or_default(),
    )
}

/// `add-controller --controller-id id` at `version`: zero directory id, no listeners.
pub(super) fn add_by_id(cluster_id: &str, id: i32) -> RequestBody {
    RequestBody::AddRaftVoter(AddRaftVoterRequest {
        cluster_id: Some(StrBytes::from(cluster_id)),
        timeout_ms: 10_000,
        voter_id: id,
        voter_directory_id: Uuid::nil(),
        ..Default::default()
    })
}

/// `remove-controller --controller-id id`: zero directory id.
pub(super) fn remove_by_id(cluster_id: &str, id: i32) -> RequestBody {
    RequestBody::RemoveRaftVoter(RemoveRaftVoterRequest {
        cluster_id: Some(StrBytes::from(cluster_id)),
        voter_id: id,
        voter_directory_id: Uuid::nil(),
        ..Default::default()
    })
}

#[test]
fn derivation_comes_after_every_4_4_check() {
    let mut c = Cluster::new("kip1141-order", 3);
    let cluster_id = kraft(&["storage", "random-uuid"]).1.trim().to_string();
    start_three(&mut c, &cluster_id, "", "4.4-IV2");
    let nodes: Vec<(i32, String)> = (1..=3).map(|id| (id as i32, c.controller(id))).collect();
    let (leader, follower) = sweep::leader_and_follower(&nodes, Duration::from_secs(60));
    let voter = nodes
        .iter()
        .find(|(_, a)| *a != leader.addr)
        .map(|(id, _)| *id)
        .expect("a follower id");
    let wrong = "d3JvbmctY2x1c3Rlci1pZA";

    for v in [2, 1] {
        // Not the leader: retriable, with an empty message, at every version.
        let (code, message) = ask(&follower.addr, v, add_by_id(&cluster_id, voter));
        assert_eq!(
            (code, message.as_str()),
            (ErrorCode::NotLeaderOrFollower, ""),
            "v{v}"
        );
        let (code, _) = ask(&leader.addr, v, add_by_id(wrong, voter));
        assert_eq!(code, ErrorCode::InconsistentClusterId, "v{v}");
        let (code, message) = ask(&leader.addr, v, add_by_id(&cluster_id, -1));
        assert_eq!(
            (code, message.as_str()),
            (
                ErrorCode::InvalidRequest,
                "Add voter request didn't include a valid voter"
            ),
            "v{v}"
        );
    }
    // An id that already votes is a duplicate, not a derivation error.
    let (code, message) = ask(&leader.addr, 2, add_by_id(&cluster_id, voter));
    assert_eq!(code, ErrorCode::DuplicateVoter, "{message}");
    assert!(
        message.starts_with(&format!(
            "The voter id for ReplicaKey(id={voter}, directoryId=<undefined>) is already part of the set of voters ["
        )),
        "{message}"
    );
    // v1 keeps the 4.4 answer to a zero directory id.
    let (code, message) = ask(&leader.addr, 1, add_by_id(&cluster_id, voter));
    assert_eq!(
        (code, message.as_str()),
        (
            ErrorCode::InvalidRequest,
            "Add voter request didn't include a valid voter"
        )
    );
    // Only once every check passed does derivation refuse: nothing replicates as 9.
    let (code, message) = ask(&leader.addr, 2, add_by_id(&cluster_id, 9));
    assert_eq!(code, ErrorCode::InvalidRequest, "{message}");
    assert!(message.contains("no observer with node id 9"), "{message}");

    // RemoveRaftVoter v1 / v0.
    let (code, message) = ask(&follower.addr, 1, remove_by_id(&cluster_id, voter));
    assert_eq!(
        (code, message.as_str()),
        (ErrorCode::NotLeaderOrFollower, "")
    );
    let (code, _) = ask(&leader.addr, 1, remove_by_id(wrong, voter));
    assert_eq!(code, ErrorCode::InconsistentClusterId);
    let (code, message) = ask(&leader.addr, 1, remove_by_id(&cluster_id, 9));
    assert_eq!(code, ErrorCode::VoterNotFound, "{message}");
    assert!(
        message.starts_with("Cannot remove voter ReplicaKey(id=9, directoryId=<undefined>)"),
        "{message}"
    );
    let (code, message) = ask(&leader.addr, 0, remove_by_id(&cluster_id, voter));
    assert_eq!(
        (code, message.as_str()),
        (
            ErrorCode::InvalidRequest,
            "Remove voter request didn't include a valid voter"
        )
    );
}
