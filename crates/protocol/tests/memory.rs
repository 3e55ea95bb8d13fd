//! What decoding costs in memory: unknown tagged fields share the input, and
//! the heap bytes an input can make the decoders allocate stay proportional
//! to its length.

use bytes::{Bytes, BytesMut};
use kraft_protocol::messages::*;
use kraft_protocol::{wire, List, Message, RawTaggedField, RawTaggedFields};

/// A frame as the frame decoder hands it over: a slice of a shared buffer.
fn shared(bytes: &[u8]) -> Bytes {
    let mut read_buf = BytesMut::with_capacity(bytes.len() + 64);
    read_buf.extend_from_slice(bytes);
    let len = read_buf.len();
    let frame = read_buf.split_to(len).freeze();
    drop(frame.slice(0..0));
    frame
}

#[test]
fn unknown_tagged_fields_share_the_input_and_are_reemitted_verbatim() {
    // VoteRequest v2: null cluster id, voter id, no topics, then 1000 empty
    // unknown tagged fields (tags 1000..2000, two bytes each, size 0).
    let mut input = vec![0x00, 0, 0, 0, 7, 0x01];
    wire::put_uvarint(&mut input, 1000);
    for tag in 1000..2000u32 {
        wire::put_uvarint(&mut input, tag);
        wire::put_uvarint(&mut input, 0);
    }
    let frame = shared(&input);
    let (decoded, count, bytes) =
        crate::alloc_count::measure(|| vote_request::VoteRequest::decode_exact(frame.clone(), 2));
    let decoded = decoded.expect("decodes");
    // However many fields: one small handle on the shared input (structs
    // without unknown fields, nearly all, carry none).
    assert_eq!(
        (count, bytes),
        (1, std::mem::size_of::<Bytes>()),
        "decoding unknown tags copied them"
    );
    assert_eq!(decoded.voter_id, 7);
    let tags: Vec<u32> = decoded
        .unknown_tagged_fields
        .iter()
        .map(|f| f.tag)
        .collect();
    assert_eq!(tags, (1000..2000).collect::<Vec<_>>());
    assert!(decoded
        .unknown_tagged_fields
        .iter()
        .all(|f| f.data.is_empty()));
    assert_eq!(decoded.encode_to_vec(2).expect("encodes"), input);
}

#[test]
fn unknown_tagged_fields_around_a_known_one_are_separated_from_it() {
    let unknown: RawTaggedFields = vec![
        RawTaggedField {
            tag: 3,
            data: Bytes::from_static(&[0xaa]),
        },
        RawTaggedField {
            tag: 9,
            data: Bytes::from_static(&[0xbb, 0xcc]),
        },
    ]
    .into();
    let without = fetch_response::FetchResponse {
        throttle_time_ms: 5,
        unknown_tagged_fields: unknown.clone(),
        ..Default::default()
    };
    let with = fetch_response::FetchResponse {
        node_endpoints: List::One(fetch_response::NodeEndpoint {
            node_id: 1,
            host: "ctl-1".into(),
            port: 9093,
            ..Default::default()
        }),
        ..without.clone()
    };
    let a = without.encode_to_vec(16).expect("encodes");
    let b = with.encode_to_vec(16).expect("encodes");
    // a = prefix, count 2, [03 01 aa], [09 02 bb cc]; b = prefix, count 3,
    // [tag 0 ...], [03 01 aa], [09 02 bb cc].
    let tail = [0x03, 0x01, 0xaa, 0x09, 0x02, 0xbb, 0xcc];
    assert!(a.ends_with(&tail) && b.ends_with(&tail));
    let prefix = &a[..a.len() - tail.len() - 1];
    let known = &b[a.len() - tail.len()..b.len() - tail.len()];
    assert_eq!(known[0], 0, "tag 0 starts the known field");
    // Put one unknown field before the known one, one after.
    let mut reordered = prefix.to_vec();
    reordered.push(3);
    reordered.extend_from_slice(&tail[..3]);
    reordered.extend_from_slice(known);
    reordered.extend_from_slice(&tail[3..]);
    let decoded =
        fetch_response::FetchResponse::decode_exact(shared(&reordered), 16).expect("decodes");
    assert_eq!(decoded, with);
    assert_eq!(decoded.unknown_tagged_fields.len(), 2);
    assert_eq!(decoded.encode_to_vec(16).expect("encodes"), b);

    // A known field whose declared size is one byte more, or one less, than
    // it takes is refused.
    let size = usize::from(known[1]);
    assert!(size < 0x80 && known.len() == 2 + size);
    for (declared, value) in [
        (size + 1, [&known[2..], &[0u8][..]].concat()),
        (size - 1, known[2..2 + size - 1].to_vec()),
    ] {
        let mut bad = prefix.to_vec();
        bad.push(1);
        bad.push(0);
        bad.push(declared as u8);
        bad.extend_from_slice(&value);
        let err = fetch_response::FetchResponse::decode_exact(shared(&bad), 16)
            .expect_err("size mismatch refused");
        if declared > size {
            assert_eq!(err, kraft_protocol::DecodeError::TaggedFieldSize { tag: 0 });
        }
    }
}

#[test]
fn an_unknown_tag_claiming_more_bytes_than_remain_is_refused() {
    // VoteRequest v2 whose single unknown tag claims 100 bytes of 2.
    let input = [0x00, 0, 0, 0, 7, 0x01, 0x01, 0x0a, 100, 1, 2];
    assert!(vote_request::VoteRequest::decode_exact(Bytes::copy_from_slice(&input), 2).is_err());
    // The same with a varint tag that never ends.
    let input = [
        0x00, 0, 0, 0, 7, 0x01, 0x01, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 0x00,
    ];
    assert!(vote_request::VoteRequest::decode_exact(Bytes::copy_from_slice(&input), 2).is_err());
}

/// Decodes `frame` at `version` on a fresh shared buffer and returns the
/// heap bytes decoding allocated.
fn heap_bytes_of<M: Message>(
    frame: &[u8],
    version: i16,
) -> (Result<M, kraft_protocol::DecodeError>, usize) {
    let frame = shared(frame);
    let (out, _, bytes) = crate::alloc_count::measure(|| M::decode_exact(frame.clone(), version));
    (out, bytes)
}

#[test]
fn arrays_of_the_smallest_elements_cost_no_heap_whatever_their_length() {
    // Every struct that can be an array element, at every version its
    // default value encodes at: 10,000 copies of its smallest encoding.
    let mut checked = 0;
    macro_rules! check {
        ($m:ident, $t:ident) => {
            for version in 0..=20i16 {
                let one = match $m::$t::default().encode_to_vec_at(version) {
                    Some(b) => b,
                    None => continue,
                };
                let n = 10_000usize;
                let mut input = Vec::with_capacity(one.len() * n);
                for _ in 0..n {
                    input.extend_from_slice(&one);
                }
                let mut bytes = shared(&input);
                let (list, _, heap) = crate::alloc_count::measure(|| {
                    List::<$m::$t>::decode_elements(&mut bytes, n, $m::$t::MIN_WIRE_SIZE, version)
                });
                let Ok(list) = list else { continue };
                assert_eq!(list.len(), n);
                assert!(bytes.is_empty());
                assert_eq!(
                    heap,
                    0,
                    "{}::{} v{version}: {heap} heap bytes for {} input bytes",
                    stringify!($m),
                    stringify!($t),
                    input.len()
                );
                assert_eq!(list.iter().count(), n);
                checked += 1;
            }
        };
    }
    kraft_protocol::for_each_array_element!(check);
    assert!(
        checked > 100,
        "only {checked} element types and versions checked"
    );
}

/// Encodes a value at `version` when that version can represent it.
trait EncodeAt {
    fn encode_to_vec_at(&self, version: i16) -> Option<Vec<u8>>;
}

impl<T: kraft_protocol::Encodable> EncodeAt for T {
    fn encode_to_vec_at(&self, version: i16) -> Option<Vec<u8>> {
        let mut out = Vec::new();
        self.encode(&mut out, version).ok()?;
        Some(out)
    }
}

#[test]
fn a_long_honest_array_of_empty_topics_allocates_nothing() {
    // VoteRequest v2: 100,000 topics with an empty name and no partitions
    // (3 bytes each); FetchResponse v17: 100,000 topics with no partitions.
    let vote = vote_request::VoteRequest {
        topics: (0..100_000)
            .map(|_| vote_request::TopicData::default())
            .collect(),
        ..Default::default()
    };
    let input = vote.encode_to_vec(2).expect("encodes");
    let (decoded, heap) = heap_bytes_of::<vote_request::VoteRequest>(&input, 2);
    let decoded = decoded.expect("decodes");
    assert_eq!((decoded.topics.len(), heap), (100_000, 0));
    assert_eq!(decoded, vote);
    let fetch = fetch_response::FetchResponse {
        responses: (0..100_000)
            .map(|_| fetch_response::FetchableTopicResponse::default())
            .collect(),
        ..Default::default()
    };
    let input = fetch.encode_to_vec(17).expect("encodes");
    let (decoded, heap) = heap_bytes_of::<fetch_response::FetchResponse>(&input, 17);
    assert_eq!(
        (decoded.expect("decodes").responses.len(), heap),
        (100_000, 0)
    );
}

#[test]
fn lying_counts_at_every_nesting_level_reserve_nothing() {
    // FetchResponse v17 (flexible): throttle, error, session, then two
    // topics (a count that fits what follows); in the first, two partitions;
    // in the first partition, aborted transactions claiming 1,000,000.
    let mut input = vec![0, 0, 0, 0, 0, 0, 0, 0, 0, 0];
    wire::put_uvarint(&mut input, 3);
    input.extend_from_slice(&[0u8; 16]); // topic id
    wire::put_uvarint(&mut input, 3);
    input.extend_from_slice(&[0, 0, 0, 0, 0, 0]); // partition index, error
    input.extend_from_slice(&[0u8; 24]); // high watermark, LSO, log start
    wire::put_uvarint(&mut input, 1_000_001);
    input.extend_from_slice(&[0u8; 64]);
    let err = fetch_response::FetchResponse::decode_exact(shared(&input), 17).expect_err("refused");
    assert!(
        matches!(
            err,
            kraft_protocol::DecodeError::ArrayTooLong {
                count: 1_000_000,
                ..
            }
        ),
        "refused at the innermost count: {err:?}"
    );
    let (decoded, heap) = heap_bytes_of::<fetch_response::FetchResponse>(&input, 17);
    assert!(decoded.is_err());
    assert_eq!(heap, 0, "{heap} heap bytes for {} input bytes", input.len());
    // The 10-byte VoteRequest v0 claiming 2^31-1 topics.
    let input = [0xff, 0xff, 0, 0, 0, 1, 0x7f, 0xff, 0xff, 0xff];
    let (decoded, heap) = heap_bytes_of::<vote_request::VoteRequest>(&input, 0);
    assert!(decoded.is_err());
    assert_eq!(heap, 0);
}

#[test]
fn no_message_at_any_version_allocates_more_than_8x_its_input() {
    let mut worst = (0.0f64, String::new());
    let mut checked = 0;
    macro_rules! check {
        ($m:ident, $t:ident) => {
            let mut rng = kraft_protocol::sample::Rng::new(0x8888);
            for version in $m::$t::LOWEST_VERSION..=$m::$t::HIGHEST_VERSION {
                for _ in 0..50 {
                    let value =
                        <$m::$t as kraft_protocol::sample::Sample>::sample(&mut rng, version);
                    let Ok(input) = value.encode_to_vec(version) else {
                        continue;
                    };
                    let (decoded, heap) = heap_bytes_of::<$m::$t>(&input, version);
                    assert_eq!(decoded.expect("decodes"), value);
                    let ratio = heap as f64 / input.len().max(1) as f64;
                    if ratio > worst.0 {
                        worst = (ratio, format!("{} v{version}", stringify!($t)));
                    }
                    assert!(
                        heap <= 8 * input.len(),
                        "{} v{version}: {heap} heap bytes for {} input bytes",
                        stringify!($t),
                        input.len()
                    );
                    checked += 1;
                }
            }
        };
    }
    kraft_protocol::for_each_message!(check);
    eprintln!(
        "{checked} encodings; most heap per input byte: {:.2} ({})",
        worst.0, worst.1
    );
    assert!(checked > 5_000);
}
