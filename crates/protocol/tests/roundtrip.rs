//! Every message at every valid version round-trips; writing a value at a
//! version that lacks one of its fields drops it (ignorable or default) or
//! fails (non-default, non-ignorable), as Kafka's serializer does.

use bytes::Bytes;
use kraft_protocol::json::ToKafkaJson;
use kraft_protocol::messages::*;
use kraft_protocol::sample::{Rng, Sample};
use kraft_protocol::{EncodeError, Message, StrBytes, Uuid};

const SEEDS: u64 = 300;

fn roundtrip_one<M: Message + Sample + ToKafkaJson>() -> usize {
    let mut checked = 0;
    for version in M::LOWEST_VERSION..=M::HIGHEST_VERSION {
        for seed in 0..SEEDS {
            let mut rng = Rng::new(seed * 7919 + version as u64);
            let value = M::sample(&mut rng, version);
            let bytes = match value.encode_to_vec(version) {
                Ok(b) => b,
                Err(e) => panic!(
                    "{} v{version} seed {seed}: encode failed: {e}\n{value:?}",
                    M::NAME
                ),
            };
            assert_eq!(
                bytes.len(),
                value.encoded_len(version),
                "{} v{version} seed {seed}: encoded_len disagrees with encode",
                M::NAME
            );
            // Walking the value (as the elements a list keeps encoded are
            // walked) takes exactly its encoding.
            let mut walk = Bytes::from(bytes.clone());
            M::skip_checked(&mut walk, version)
                .unwrap_or_else(|e| panic!("{} v{version} seed {seed}: walk failed: {e}", M::NAME));
            assert!(
                walk.is_empty(),
                "{} v{version} seed {seed}: walk left {} bytes",
                M::NAME,
                walk.len()
            );
            let decoded =
                M::decode_exact(Bytes::from(bytes.clone()), version).unwrap_or_else(|e| {
                    panic!("{} v{version} seed {seed}: decode failed: {e}", M::NAME)
                });
            assert_eq!(
                decoded,
                value,
                "{} v{version} seed {seed}: round trip changed the value",
                M::NAME
            );
            // Every strict prefix must fail to decode, never panic.
            if seed < 5 {
                for cut in 0..bytes.len() {
                    assert!(
                        M::decode_exact(Bytes::copy_from_slice(&bytes[..cut]), version).is_err(),
                        "{} v{version}: a {cut}-byte prefix of a {}-byte message decoded",
                        M::NAME,
                        bytes.len()
                    );
                }
            }
            checked += 1;
        }
    }
    checked
}

/// Values sampled at the highest version and written at every lower version:
/// either the write fails naming a non-default field the version lacks, or
/// what the version has survives (compared through Kafka's JSON rendering,
/// which shows exactly the fields a version has).
fn downgrade_one<M: Message + Sample + ToKafkaJson>() -> (usize, usize) {
    let (mut dropped, mut refused) = (0, 0);
    for seed in 0..SEEDS {
        let mut rng = Rng::new(seed ^ 0xABCD);
        let value = M::sample(&mut rng, M::HIGHEST_VERSION);
        for version in M::LOWEST_VERSION..M::HIGHEST_VERSION {
            match value.encode_to_vec(version) {
                Ok(bytes) => {
                    let decoded = M::decode_exact(Bytes::from(bytes), version)
                        .unwrap_or_else(|e| panic!("{} v{version}: {e}", M::NAME));
                    assert_eq!(
                        decoded.to_kafka_json(version, false),
                        value.to_kafka_json(version, false),
                        "{} v{version} seed {seed}: fields of the version were not kept",
                        M::NAME
                    );
                    dropped += 1;
                }
                Err(EncodeError::NonDefaultField { .. })
                | Err(EncodeError::NullNotAllowed { .. })
                | Err(EncodeError::TaggedFieldsUnsupported { .. }) => refused += 1,
                Err(e) => panic!("{} v{version}: unexpected error {e}", M::NAME),
            }
        }
    }
    (dropped, refused)
}

#[test]
fn every_message_roundtrips_at_every_version() {
    let mut total = 0;
    macro_rules! check {
        ($module:ident, $ty:ident) => {
            total += roundtrip_one::<$module::$ty>();
        };
    }
    kraft_protocol::for_each_message!(check);
    assert!(total > 10_000, "only {total} cases ran");
}

#[test]
fn writing_older_versions_drops_or_refuses_like_kafka() {
    let (mut dropped, mut refused) = (0, 0);
    macro_rules! check {
        ($module:ident, $ty:ident) => {
            let (d, r) = downgrade_one::<$module::$ty>();
            dropped += d;
            refused += r;
        };
    }
    kraft_protocol::for_each_message!(check);
    assert!(
        dropped > 0 && refused > 0,
        "dropped {dropped}, refused {refused}"
    );
}

#[test]
fn ack_when_committed_false_cannot_be_sent_at_v0() {
    let req = add_raft_voter_request::AddRaftVoterRequest {
        ack_when_committed: false,
        ..Default::default()
    };
    assert_eq!(
        req.encode_to_vec(0)
            .expect_err("v0 lacks the field")
            .to_string(),
        "Attempted to write a non-default ackWhenCommitted at version 0"
    );
    // The default (true) is silently absent at v0.
    let ok = add_raft_voter_request::AddRaftVoterRequest::default();
    assert!(ok.encode_to_vec(0).is_ok());
}

#[test]
fn ignorable_field_is_dropped_silently() {
    // VoterId is ignorable and only exists from Vote v1.
    let req = vote_request::VoteRequest {
        voter_id: 3,
        ..Default::default()
    };
    let bytes = req.encode_to_vec(0).expect("ignorable fields are dropped");
    let back = vote_request::VoteRequest::decode_exact(Bytes::from(bytes), 0).expect("decodes");
    assert_eq!(back.voter_id, -1, "absent field reads as its default");
}

#[test]
fn a_tag_is_refused_at_a_version_where_its_field_is_not_tagged() {
    // VoteResponse: NodeEndpoints is tag 0 from v1 on; v0 is flexible too.
    // Kafka's generated reader throws "Tag 0 is not valid for version 0".
    let mut body = vote_response::VoteResponse::default()
        .encode_to_vec(0)
        .expect("encodes");
    assert_eq!(body.pop(), Some(0), "an empty top-level tag section");
    body.extend_from_slice(&[1, 0, 1, 1]); // one tag: 0, size 1, an empty array
    let err = vote_response::VoteResponse::decode_exact(Bytes::from(body.clone()), 0)
        .expect_err("tag 0 is not valid at v0");
    assert_eq!(err.to_string(), "Tag 0 is not valid for version 0");
    // The same bytes are a valid v1 response with no endpoints.
    let ok = vote_response::VoteResponse::decode_exact(Bytes::from(body), 1).expect("v1");
    assert!(ok.node_endpoints.is_empty());
}

#[test]
fn lying_array_length_fails_without_allocating() {
    // A 10-byte VoteRequest v2 body whose Topics array claims 2^31-1 elements
    // (compact length 0x80000000 as an unsigned varint).
    static FRAME: [u8; 10] = [0x00, 0x80, 0x80, 0x80, 0x80, 0x08, 0x00, 0x00, 0x00, 0x00];
    let frame = &FRAME;
    let (result, count, bytes) = crate::alloc_count::measure(|| {
        vote_request::VoteRequest::decode_exact(Bytes::from_static(frame), 2)
    });
    assert!(result.is_err(), "a lying count must be refused");
    assert!(
        bytes <= 8 * frame.len(),
        "allocated {bytes} bytes in {count} allocations for a 10-byte frame"
    );
    // The same for a classic (non-flexible) array: Fetch v4 with 2^31-1 topics.
    let mut fetch = vec![0u8; 4 + 4 + 4 + 4 + 1];
    fetch.extend_from_slice(&i32::MAX.to_be_bytes());
    let (result, _, bytes) = crate::alloc_count::measure(|| {
        fetch_request::FetchRequest::decode_exact(Bytes::from(fetch.clone()), 4)
    });
    assert!(result.is_err());
    assert!(bytes <= 8 * 21 + 64, "allocated {bytes} bytes");
}

#[test]
fn decoding_a_single_partition_vote_request_copies_no_strings() {
    let req = vote_request::VoteRequest {
        cluster_id: Some("J8aAPcfLQt2bqs1JT_rMgQ".into()),
        voter_id: 2,
        topics: vec![vote_request::TopicData {
            topic_name: "__cluster_metadata".into(),
            partitions: vec![vote_request::PartitionData {
                replica_epoch: 5,
                replica_id: 1,
                last_offset_epoch: 4,
                last_offset: 100,
                pre_vote: true,
                ..Default::default()
            }]
            .into(),
            ..Default::default()
        }]
        .into(),
        ..Default::default()
    };
    // As the frame decoder hands frames over: split off a shared read buffer.
    let mut read_buf = bytes::BytesMut::with_capacity(4096);
    read_buf.extend_from_slice(&req.encode_to_vec(2).expect("encodes"));
    let len = read_buf.len();
    let bytes = read_buf.split_to(len).freeze();
    let (decoded, count, _) =
        crate::alloc_count::measure(|| vote_request::VoteRequest::decode_exact(bytes.clone(), 2));
    assert_eq!(decoded.expect("decodes"), req);
    // Single-element arrays are held inline; strings share the frame.
    assert!(count <= 1, "{count} allocations");
}

/// Encodes `m`, hands the bytes over as the frame decoder does (a slice of a
/// shared read buffer) and returns the allocations its decoding made.
fn decode_allocations<M: Message>(m: &M, version: i16) -> usize {
    let mut read_buf = bytes::BytesMut::with_capacity(4096);
    read_buf.extend_from_slice(&m.encode_to_vec(version).expect("encodes"));
    let len = read_buf.len();
    let frame = read_buf.split_to(len).freeze();
    drop(frame.slice(0..0));
    let (decoded, count, _) =
        crate::alloc_count::measure(|| M::decode_exact(frame.clone(), version));
    assert_eq!(&decoded.expect("decodes"), m, "{} v{version}", M::NAME);
    count
}

#[test]
fn kraft_requests_decode_without_allocating() {
    use kraft_protocol::List;
    let topic = || StrBytes::from_static("__cluster_metadata");
    let cluster = || Some(StrBytes::from_static("J8aAPcfLQt2bqs1JT_rMgQ"));
    let listener = |name: &'static str| {
        (
            StrBytes::from_static(name),
            StrBytes::from_static("ctl-1"),
            9093u16,
        )
    };
    let mut counts = Vec::new();

    let vote = vote_request::VoteRequest {
        cluster_id: cluster(),
        voter_id: 2,
        topics: List::One(vote_request::TopicData {
            topic_name: topic(),
            partitions: vec![vote_request::PartitionData {
                replica_epoch: 3,
                replica_id: 1,
                replica_directory_id: Uuid::from_u64_pair(1, 2),
                last_offset: 10,
                ..Default::default()
            }]
            .into(),
            ..Default::default()
        }),
        ..Default::default()
    };
    counts.push(("Vote", decode_allocations(&vote, 2)));

    let (name, host, port) = listener("CONTROLLER");
    let begin = begin_quorum_epoch_request::BeginQuorumEpochRequest {
        cluster_id: cluster(),
        voter_id: 2,
        topics: List::One(begin_quorum_epoch_request::TopicData {
            topic_name: topic(),
            partitions: vec![begin_quorum_epoch_request::PartitionData {
                leader_id: 1,
                leader_epoch: 3,
                ..Default::default()
            }]
            .into(),
            ..Default::default()
        }),
        leader_endpoints: List::One(begin_quorum_epoch_request::LeaderEndpoint {
            name: name.clone(),
            host: host.clone(),
            port,
            ..Default::default()
        }),
        ..Default::default()
    };
    counts.push(("BeginQuorumEpoch", decode_allocations(&begin, 1)));

    let end = end_quorum_epoch_request::EndQuorumEpochRequest {
        cluster_id: cluster(),
        topics: List::One(end_quorum_epoch_request::TopicData {
            topic_name: topic(),
            partitions: vec![end_quorum_epoch_request::PartitionData {
                leader_id: 1,
                leader_epoch: 3,
                preferred_candidates: vec![end_quorum_epoch_request::ReplicaInfo {
                    candidate_id: 2,
                    ..Default::default()
                }]
                .into(),
                ..Default::default()
            }]
            .into(),
            ..Default::default()
        }),
        leader_endpoints: List::One(end_quorum_epoch_request::LeaderEndpoint {
            name: name.clone(),
            host: host.clone(),
            port,
            ..Default::default()
        }),
        ..Default::default()
    };
    counts.push(("EndQuorumEpoch", decode_allocations(&end, 1)));

    let fetch = fetch_request::FetchRequest {
        cluster_id: cluster(),
        replica_state: fetch_request::ReplicaState {
            replica_id: 2,
            replica_epoch: 1,
            ..Default::default()
        },
        max_wait_ms: 500,
        topics: List::One(fetch_request::FetchTopic {
            topic_id: Uuid::from_u64_pair(0, 1),
            partitions: vec![fetch_request::FetchPartition {
                current_leader_epoch: 3,
                fetch_offset: 100,
                last_fetched_epoch: 3,
                replica_directory_id: Uuid::from_u64_pair(5, 6),
                ..Default::default()
            }]
            .into(),
            ..Default::default()
        }),
        ..Default::default()
    };
    counts.push(("Fetch", decode_allocations(&fetch, 17)));

    let snapshot = fetch_snapshot_request::FetchSnapshotRequest {
        cluster_id: cluster(),
        replica_id: 2,
        topics: List::One(fetch_snapshot_request::TopicSnapshot {
            name: topic(),
            partitions: vec![fetch_snapshot_request::PartitionSnapshot {
                current_leader_epoch: 3,
                position: 4096,
                ..Default::default()
            }]
            .into(),
            ..Default::default()
        }),
        ..Default::default()
    };
    counts.push(("FetchSnapshot", decode_allocations(&snapshot, 1)));

    let add = add_raft_voter_request::AddRaftVoterRequest {
        cluster_id: cluster(),
        timeout_ms: 30_000,
        voter_id: 4,
        voter_directory_id: Uuid::from_u64_pair(7, 8),
        listeners: List::One(add_raft_voter_request::Listener {
            name,
            host,
            port,
            ..Default::default()
        }),
        ..Default::default()
    };
    counts.push(("AddRaftVoter", decode_allocations(&add, 0)));

    let describe = describe_quorum_request::DescribeQuorumRequest {
        topics: List::One(describe_quorum_request::TopicData {
            topic_name: topic(),
            partitions: vec![Default::default()].into(),
            ..Default::default()
        }),
        ..Default::default()
    };
    counts.push(("DescribeQuorum", decode_allocations(&describe, 2)));

    // Two or more elements stay in the frame too: EndQuorumEpoch with three
    // preferred candidates and two leader endpoints, AddRaftVoter with two
    // listeners.
    let mut end_many = end.clone();
    end_many.topics.as_mut_slice()[0].partitions.as_mut_slice()[0].preferred_candidates = (2..5)
        .map(|id| end_quorum_epoch_request::ReplicaInfo {
            candidate_id: id,
            candidate_directory_id: Uuid::from_u64_pair(9, id as u64),
            ..Default::default()
        })
        .collect();
    end_many
        .leader_endpoints
        .push(end_many.leader_endpoints.to_vec()[0].clone());
    counts.push((
        "EndQuorumEpoch (3 candidates)",
        decode_allocations(&end_many, 1),
    ));
    let mut add_many = add.clone();
    add_many
        .listeners
        .push(add_many.listeners.to_vec()[0].clone());
    counts.push((
        "AddRaftVoter (2 listeners)",
        decode_allocations(&add_many, 0),
    ));

    for (name, count) in &counts {
        assert_eq!(*count, 0, "{name}: {count} allocations ({counts:?})");
    }

    // Arrays of integers are a `Vec`: EndQuorumEpoch v0's preferred
    // successors are its one allocation.
    let mut end_v0 = end_quorum_epoch_request::EndQuorumEpochRequest {
        cluster_id: cluster(),
        topics: end.topics.clone(),
        ..Default::default()
    };
    {
        let p = &mut end_v0.topics.as_mut_slice()[0].partitions.as_mut_slice()[0];
        p.preferred_candidates = List::new();
        p.preferred_successors = vec![2, 3, 4];
    }
    assert_eq!(decode_allocations(&end_v0, 0), 1);
}
