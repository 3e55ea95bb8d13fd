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
fn unknown_tagged_fields_are_kept_without_allocating_and_reemitted_verbatim() {
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
    assert_eq!((count, bytes), (0, 0), "decoding unknown tags allocated");
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

/// Heap bytes that decoding an array of `n` copies of a struct's smallest
/// encoding costs per input byte, for each struct that can be an array
/// element: its in-memory size over its minimal wire size. No input can
/// make the decoders allocate more per byte than the largest of these.
fn element_ratios() -> Vec<(String, usize, usize)> {
    let mut out = Vec::new();
    macro_rules! ratio {
        ($m:ident, $t:ident) => {
            out.push((
                format!("{}::{}", stringify!($m), stringify!($t)),
                std::mem::size_of::<$m::$t>(),
                $m::$t::MIN_WIRE_SIZE,
            ));
        };
    }
    kraft_protocol::for_each_array_element!(ratio);
    out
}

#[test]
fn memory_per_input_byte_is_bounded() {
    let ratios = element_ratios();
    assert!(ratios.len() > 20, "every array element type is listed");
    let (name, size, min) = ratios
        .iter()
        .max_by(|a, b| (a.1 * b.2).cmp(&(b.1 * a.2)))
        .expect("some")
        .clone();
    let worst = size as f64 / min as f64;
    eprintln!("worst element: {name}: {size} bytes in memory for {min} on the wire ({worst:.1}x)");
    for (n, s, m) in &ratios {
        eprintln!("  {n}: {s} / {m} = {:.1}", *s as f64 / *m as f64);
    }
    // Strings and unknown tagged fields take 32 bytes each in memory and as
    // little as one byte on the wire, so no representation of them meets 8x;
    // this is the measured ceiling, which fuzz/fuzz_targets/alloc_guard.rs
    // enforces on whole messages.
    assert!(worst <= 35.0, "{name}: {worst:.1}x");
}
