//! Hand-written vectors for the versions kraft-rs speaks before Kafka does
//! (Kafka 4.4 has no class to write them): AddRaftVoter v2, RemoveRaftVoter
//! v1 and DescribeQuorum v3 with `CommittedVoters`. The bytes below were
//! written by hand from the wire rules and KIP-1141 / the DescribeQuorum v3 draft (docs/compatibility.md), not produced by our
//! encoder.

use bytes::Bytes;
use kraft_protocol::messages::*;
use kraft_protocol::{Encodable, Message, Uuid};

fn dir(n: u8) -> Uuid {
    Uuid::from_bytes([n; 16])
}

fn check<M: Message>(bytes: &[u8], version: i16, expected: &M) {
    let decoded = M::decode_exact(Bytes::copy_from_slice(bytes), version)
        .expect("hand-written vector decodes");
    assert_eq!(&decoded, expected);
    assert_eq!(expected.encode_to_vec(version).expect("encodes"), bytes);
}

fn replica_state(bytes: &mut Vec<u8>, id: u8, dir_byte: u8, leo: i64, fetch: i64, caught_up: i64) {
    bytes.extend_from_slice(&[0, 0, 0, id]); // ReplicaId
    bytes.extend_from_slice(&[dir_byte; 16]); // ReplicaDirectoryId (v2+)
    bytes.extend_from_slice(&leo.to_be_bytes()); // LogEndOffset
    bytes.extend_from_slice(&fetch.to_be_bytes()); // LastFetchTimestamp (v1+)
    bytes.extend_from_slice(&caught_up.to_be_bytes()); // LastCaughtUpTimestamp (v1+)
    bytes.push(0x00); // tagged fields
}

#[test]
fn describe_quorum_response_v3_carries_committed_voters_between_current_voters_and_observers() {
    let mut b = vec![
        0x00, 0x00, // ErrorCode
        0x01, // ErrorMessage ""
        0x02, // Topics: 1
        0x13, // TopicName: 18 bytes
    ];
    b.extend_from_slice(b"__cluster_metadata");
    b.extend_from_slice(&[
        0x02, // Partitions: 1
        0x00, 0x00, 0x00, 0x00, // PartitionIndex
        0x00, 0x00, // ErrorCode
        0x01, // ErrorMessage ""
        0x00, 0x00, 0x00, 0x01, // LeaderId
        0x00, 0x00, 0x00, 0x05, // LeaderEpoch
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x64, // HighWatermark 100
        0x02, // CurrentVoters: 1
    ]);
    replica_state(&mut b, 1, 0x11, 100, 1000, 1000);
    b.push(0x03); // CommittedVoters: 2
    replica_state(&mut b, 1, 0x11, 100, 1000, 1000);
    replica_state(&mut b, 2, 0x22, -1, -1, -1); // removed voter: sentinels
    b.push(0x01); // Observers: 0
    b.push(0x00); // partition tagged fields
    b.push(0x00); // topic tagged fields
    b.extend_from_slice(&[0x02, 0x00, 0x00, 0x00, 0x01, 0x02, 0x0b]); // Nodes: 1, NodeId 1, Listeners: 1, Name: 10 bytes
    b.extend_from_slice(b"CONTROLLER");
    b.push(0x0a);
    b.extend_from_slice(b"localhost");
    b.extend_from_slice(&[0x23, 0x85, 0x00, 0x00, 0x00]); // Port 9093, listener tags, node tags, body tags

    use describe_quorum_response::*;
    let leader = ReplicaState {
        replica_id: 1,
        replica_directory_id: dir(0x11),
        log_end_offset: 100,
        last_fetch_timestamp: 1000,
        last_caught_up_timestamp: 1000,
        ..Default::default()
    };
    let removed = ReplicaState {
        replica_id: 2,
        replica_directory_id: dir(0x22),
        log_end_offset: -1,
        last_fetch_timestamp: -1,
        last_caught_up_timestamp: -1,
        ..Default::default()
    };
    let expected = DescribeQuorumResponse {
        error_message: Some("".into()),
        topics: vec![TopicData {
            topic_name: "__cluster_metadata".into(),
            partitions: vec![PartitionData {
                error_message: Some("".into()),
                leader_id: 1,
                leader_epoch: 5,
                high_watermark: 100,
                current_voters: vec![leader.clone()].into(),
                committed_voters: vec![leader, removed].into(),
                ..Default::default()
            }]
            .into(),
            ..Default::default()
        }]
        .into(),
        nodes: vec![Node {
            node_id: 1,
            listeners: vec![Listener {
                name: "CONTROLLER".into(),
                host: "localhost".into(),
                port: 9093,
                ..Default::default()
            }]
            .into(),
            ..Default::default()
        }]
        .into(),
        ..Default::default()
    };
    check(&b, 3, &expected);

    // At v2 (what Kafka 4.4 knows) CommittedVoters is ignorable: silently dropped.
    let v2 = expected
        .encode_to_vec(2)
        .expect("v2 drops the ignorable field");
    let back = DescribeQuorumResponse::decode_exact(Bytes::from(v2), 2).expect("decodes");
    assert!(back
        .topics
        .get(0)
        .expect("element")
        .partitions
        .get(0)
        .expect("element")
        .committed_voters
        .is_empty());
    assert_eq!(
        b.len() - back.encoded_len(2),
        2 * 45 + 1,
        "v3 adds exactly the CommittedVoters array"
    );
}

#[test]
fn add_raft_voter_request_v2_may_leave_directory_id_and_listeners_empty() {
    let mut b = vec![0x00]; // ClusterId null
    b.extend_from_slice(&[0x00, 0x00, 0x75, 0x30]); // TimeoutMs 30000
    b.extend_from_slice(&[0x00, 0x00, 0x00, 0x04]); // VoterId 4
    b.extend_from_slice(&[0u8; 16]); // VoterDirectoryId ZERO: derive
    b.push(0x01); // Listeners: empty: derive
    b.push(0x01); // AckWhenCommitted true
    b.push(0x00); // tagged fields
    let expected = add_raft_voter_request::AddRaftVoterRequest {
        cluster_id: None,
        timeout_ms: 30000,
        voter_id: 4,
        ..Default::default()
    };
    check(&b, 2, &expected);
}

#[test]
fn remove_raft_voter_request_v1_may_leave_directory_id_zero() {
    let mut b = vec![0x17]; // ClusterId: 22 bytes
    b.extend_from_slice(b"J8aAPcfLQt2bqs1JT_rMgQ");
    b.extend_from_slice(&[0x00, 0x00, 0x00, 0x03]); // VoterId 3
    b.extend_from_slice(&[0u8; 16]); // VoterDirectoryId ZERO: derive from the voter set
    b.push(0x00); // tagged fields
    let expected = remove_raft_voter_request::RemoveRaftVoterRequest {
        cluster_id: Some("J8aAPcfLQt2bqs1JT_rMgQ".into()),
        voter_id: 3,
        ..Default::default()
    };
    check(&b, 1, &expected);
}
