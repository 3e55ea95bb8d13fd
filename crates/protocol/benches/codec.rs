//! Encode and decode cost of kraft-protocol against the `kafka-protocol`
//! crate, on the same bytes, in the same run.
//!
//! Each message is built once with our types and encoded; both libraries then
//! decode those bytes and encode what they decoded (the encodings are checked
//! to be identical before timing). After criterion has run, a table prints
//! the time ratios (ours / theirs: the median of 301 alternating ~1 ms rounds)
//! and the heap allocations per operation, counted by a counting global
//! allocator. "decode+read" decodes and then reads every field a KRaft node
//! uses. A filter that names no benchmark (`-- ratios-only`) skips criterion
//! and prints the table alone.

use std::alloc::{GlobalAlloc, Layout, System};
use std::hint::black_box;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use bytes::{Bytes, BytesMut};
use criterion::Criterion;
use kafka_protocol::protocol::{Decodable as TheirDecodable, Encodable as TheirEncodable};
use kraft_protocol::messages::*;
use kraft_protocol::records::{NewRecord, RecordBatchBuilder};
use kraft_protocol::{Decodable, Encodable, Message, StrBytes, Uuid};

struct Counting;
static ALLOCS: AtomicUsize = AtomicUsize::new(0);

// SAFETY: delegates to the system allocator unchanged.
#[allow(unsafe_code)]
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: same contract as the caller's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn allocs_of<T>(f: impl FnOnce() -> T) -> usize {
    let before = ALLOCS.load(Ordering::Relaxed);
    black_box(f());
    ALLOCS.load(Ordering::Relaxed) - before
}

/// A frame as the network path hands it over: split off a shared read buffer.
fn as_frame(bytes: &[u8]) -> Bytes {
    let mut buf = BytesMut::with_capacity(bytes.len() + 64);
    buf.extend_from_slice(bytes);
    let len = buf.len();
    let frame = buf.split_to(len).freeze();
    // Promote once, as the first split of a frame does.
    drop(frame.slice(0..0));
    frame
}

fn listener(name: &'static str, port: u16) -> describe_quorum_response::Listener {
    describe_quorum_response::Listener {
        name: StrBytes::from_static(name),
        host: StrBytes::from_static("controller-1.example.internal"),
        port,
        ..Default::default()
    }
}

fn replica(id: i32) -> describe_quorum_response::ReplicaState {
    describe_quorum_response::ReplicaState {
        replica_id: id,
        replica_directory_id: Uuid::from_u64_pair(0x1234_5678 + id as u64, 0x9abc_def0),
        log_end_offset: 1_000_000 + i64::from(id),
        last_fetch_timestamp: 1_764_000_000_000,
        last_caught_up_timestamp: 1_764_000_000_000,
        ..Default::default()
    }
}

fn describe_quorum_response() -> describe_quorum_response::DescribeQuorumResponse {
    describe_quorum_response::DescribeQuorumResponse {
        topics: vec![describe_quorum_response::TopicData {
            topic_name: StrBytes::from_static("__cluster_metadata"),
            partitions: vec![describe_quorum_response::PartitionData {
                leader_id: 1,
                leader_epoch: 7,
                high_watermark: 1_000_000,
                current_voters: (1..=5).map(replica).collect(),
                observers: (6..=8).map(replica).collect(),
                ..Default::default()
            }]
            .into(),
            ..Default::default()
        }]
        .into(),
        nodes: (1..=5)
            .map(|id| describe_quorum_response::Node {
                node_id: id,
                listeners: vec![
                    listener("CONTROLLER", 9093),
                    listener("CONTROLLER_SSL", 9094),
                ]
                .into(),
                ..Default::default()
            })
            .collect(),
        ..Default::default()
    }
}

fn add_raft_voter_request() -> add_raft_voter_request::AddRaftVoterRequest {
    add_raft_voter_request::AddRaftVoterRequest {
        cluster_id: Some(StrBytes::from_static("J8aAPcfLQt2bqs1JT_rMgQ")),
        timeout_ms: 30_000,
        voter_id: 4,
        voter_directory_id: Uuid::from_u64_pair(0x27c6_803d_c7cb_42dd, 0x9baa_cd49_4ffa_cc81),
        listeners: vec![add_raft_voter_request::Listener {
            name: StrBytes::from_static("CONTROLLER"),
            host: StrBytes::from_static("ctl-4"),
            port: 9093,
            ..Default::default()
        }]
        .into(),
        ..Default::default()
    }
}

fn vote_request() -> vote_request::VoteRequest {
    vote_request::VoteRequest {
        cluster_id: Some(StrBytes::from_static("J8aAPcfLQt2bqs1JT_rMgQ")),
        voter_id: 2,
        topics: vec![vote_request::TopicData {
            topic_name: StrBytes::from_static("__cluster_metadata"),
            partitions: vec![vote_request::PartitionData {
                replica_epoch: 8,
                replica_id: 1,
                replica_directory_id: Uuid::from_u64_pair(1, 2),
                voter_directory_id: Uuid::from_u64_pair(3, 4),
                last_offset_epoch: 7,
                last_offset: 1_000_000,
                pre_vote: true,
                ..Default::default()
            }]
            .into(),
            ..Default::default()
        }]
        .into(),
        ..Default::default()
    }
}

fn fetch_response() -> fetch_response::FetchResponse {
    // 64 KiB of metadata records in real v2 batches.
    let value = vec![0x5au8; 1000];
    let mut records = Vec::new();
    let mut offset = 0i64;
    while records.len() < 64 * 1024 {
        let mut builder = RecordBatchBuilder::new(offset, 7, 1_764_000_000_000);
        for _ in 0..8 {
            builder.push(NewRecord::value(&value));
        }
        records.extend_from_slice(&builder.build());
        offset += 8;
    }
    fetch_response::FetchResponse {
        responses: vec![fetch_response::FetchableTopicResponse {
            topic_id: Uuid::from_u64_pair(0, 1),
            partitions: vec![fetch_response::PartitionData {
                high_watermark: offset,
                log_start_offset: 0,
                records: Some(Bytes::from(records)),
                current_leader: fetch_response::LeaderIdAndEpoch {
                    leader_id: 1,
                    leader_epoch: 7,
                    ..Default::default()
                },
                ..Default::default()
            }]
            .into(),
            ..Default::default()
        }]
        .into(),
        ..Default::default()
    }
}

/// Reads every field a KRaft node uses from a decoded message and folds them
/// into one number, so that decoding is timed together with reading what it
/// produced (elements kept encoded are decoded again here).
mod read {
    use kafka_protocol::messages as theirs;
    use kraft_protocol::messages as ours;

    fn fold(acc: u64, v: u64) -> u64 {
        acc.rotate_left(5) ^ v
    }

    fn uuid(u: &uuid::Uuid) -> u64 {
        u.as_u64_pair().0 ^ u.as_u64_pair().1
    }

    /// An id field: a plain `i32` here, a newtype in the `kafka-protocol` crate.
    trait Id {
        fn id(&self) -> u64;
    }
    impl Id for i32 {
        fn id(&self) -> u64 {
            *self as u64
        }
    }
    impl Id for theirs::BrokerId {
        fn id(&self) -> u64 {
            self.0 as u64
        }
    }

    /// A name field: `StrBytes` here, a newtype in the `kafka-protocol` crate.
    trait Name {
        fn name_len(&self) -> u64;
    }
    impl Name for kraft_protocol::StrBytes {
        fn name_len(&self) -> u64 {
            self.len() as u64
        }
    }
    impl Name for kafka_protocol::protocol::StrBytes {
        fn name_len(&self) -> u64 {
            self.len() as u64
        }
    }
    impl Name for theirs::TopicName {
        fn name_len(&self) -> u64 {
            self.0.len() as u64
        }
    }

    /// One reader body per message, instantiated for both crates' types
    /// (whose fields have the same names).
    macro_rules! readers {
        ($ours:ident: $o:ty, $theirs:ident: $t:ty, |$m:ident| $body:block) => {
            pub fn $ours($m: &$o) -> u64 $body
            pub fn $theirs($m: &$t) -> u64 $body
        };
    }

    readers!(dq_ours: ours::describe_quorum_response::DescribeQuorumResponse,
             dq_theirs: theirs::DescribeQuorumResponse, |m| {
        let mut acc = m.error_code as u64;
        for t in &m.topics {
            acc = fold(acc, t.topic_name.name_len());
            for p in &t.partitions {
                acc = fold(acc, p.leader_id.id() ^ p.leader_epoch as u64 ^ p.high_watermark as u64);
                for r in p.current_voters.iter().chain(p.observers.iter()) {
                    acc = fold(acc, r.replica_id.id() ^ uuid(&r.replica_directory_id));
                    acc = fold(acc, r.log_end_offset as u64 ^ r.last_fetch_timestamp as u64);
                    acc = fold(acc, r.last_caught_up_timestamp as u64);
                }
            }
        }
        for n in &m.nodes {
            acc = fold(acc, n.node_id.id());
            for l in &n.listeners {
                acc = fold(acc, (l.name.name_len() + l.host.name_len()) ^ u64::from(l.port));
            }
        }
        acc
    });

    readers!(av_ours: ours::add_raft_voter_request::AddRaftVoterRequest,
             av_theirs: theirs::AddRaftVoterRequest, |m| {
        let mut acc = m.cluster_id.as_ref().map_or(0, |c| c.name_len());
        acc = fold(acc, m.timeout_ms as u64 ^ m.voter_id.id() ^ uuid(&m.voter_directory_id));
        for l in &m.listeners {
            acc = fold(acc, (l.name.name_len() + l.host.name_len()) ^ u64::from(l.port));
        }
        acc
    });

    readers!(vote_ours: ours::vote_request::VoteRequest,
             vote_theirs: theirs::VoteRequest, |m| {
        let mut acc = m.cluster_id.as_ref().map_or(0, |c| c.name_len()) ^ m.voter_id.id();
        for t in &m.topics {
            acc = fold(acc, t.topic_name.name_len());
            for p in &t.partitions {
                acc = fold(acc, p.replica_epoch as u64 ^ p.replica_id.id());
                acc = fold(acc, uuid(&p.replica_directory_id) ^ uuid(&p.voter_directory_id));
                acc = fold(acc, p.last_offset_epoch as u64 ^ p.last_offset as u64 ^ u64::from(p.pre_vote));
            }
        }
        acc
    });

    readers!(fetch_ours: ours::fetch_response::FetchResponse,
             fetch_theirs: theirs::FetchResponse, |m| {
        let mut acc = m.error_code as u64;
        for t in &m.responses {
            acc = fold(acc, uuid(&t.topic_id));
            for p in &t.partitions {
                acc = fold(acc, p.partition_index as u64 ^ p.error_code as u64 ^ p.high_watermark as u64);
                acc = fold(acc, p.log_start_offset as u64 ^ p.current_leader.leader_id.id());
                acc = fold(acc, p.current_leader.leader_epoch as u64 ^ p.diverging_epoch.end_offset as u64);
                acc = fold(acc, p.records.as_ref().map_or(0, |r| r.len() as u64));
            }
        }
        acc
    });
}

struct Case {
    name: &'static str,
    frame: Bytes,
    version: i16,
}

macro_rules! compare {
    ($c:expr, $results:expr, $case:expr, $ours:ty, $theirs:ty, $read_ours:path, $read_theirs:path) => {{
        let case: &Case = $case;
        let version = case.version;
        let ours = <$ours>::decode(&mut case.frame.clone(), version).expect("ours decodes");
        let theirs = <$theirs>::decode(&mut case.frame.clone(), version).expect("theirs decodes");
        // Same bytes out of both encoders before anything is timed.
        let mut a = Vec::with_capacity(ours.encoded_len(version));
        ours.encode(&mut a, version).expect("ours encodes");
        let mut b = BytesMut::new();
        theirs.encode(&mut b, version).expect("theirs encodes");
        assert_eq!(&a[..], &b[..], "{}: encoders disagree", case.name);
        assert_eq!(&a[..], &case.frame[..], "{}: not a round trip", case.name);
        assert_eq!(
            $read_ours(&ours),
            $read_theirs(&theirs),
            "{}: readers disagree",
            case.name
        );

        // The same closures feed criterion and the ratio table: decoding
        // includes dropping what was decoded.
        let mut decode_ours = || {
            let m = <$ours>::decode(&mut black_box(case.frame.clone()), version);
            black_box(&m);
        };
        let mut decode_theirs = || {
            let m = <$theirs>::decode(&mut black_box(case.frame.clone()), version);
            black_box(&m);
        };
        let mut read_ours = || {
            let m = <$ours>::decode(&mut black_box(case.frame.clone()), version);
            black_box(m.map(|m| $read_ours(&m)).ok());
        };
        let mut read_theirs = || {
            let m = <$theirs>::decode(&mut black_box(case.frame.clone()), version);
            black_box(m.map(|m| $read_theirs(&m)).ok());
        };
        let mut g = $c.benchmark_group(case.name);
        g.bench_function("decode/kraft-protocol", |bch| bch.iter(&mut decode_ours));
        g.bench_function("decode/kafka-protocol", |bch| bch.iter(&mut decode_theirs));
        g.bench_function("decode+read/kraft-protocol", |bch| bch.iter(&mut read_ours));
        g.bench_function("decode+read/kafka-protocol", |bch| {
            bch.iter(&mut read_theirs)
        });
        // Both encoders write into the same buffer, so that where it lies
        // (the alignment a 64 KiB copy meets) is the same for both.
        let out = std::cell::RefCell::new(Vec::<u8>::with_capacity(a.len()));
        let mut encode_ours = || {
            let mut o = out.borrow_mut();
            o.clear();
            black_box(ours.encode(&mut *o, version).ok());
        };
        let mut encode_theirs = || {
            let mut o = out.borrow_mut();
            o.clear();
            black_box(theirs.encode(&mut *o, version).ok());
        };
        g.bench_function("encode/kraft-protocol", |bch| bch.iter(&mut encode_ours));
        g.bench_function("encode/kafka-protocol", |bch| bch.iter(&mut encode_theirs));
        g.finish();

        let dec = ratio(&mut decode_ours, &mut decode_theirs);
        let dec_read = ratio(&mut read_ours, &mut read_theirs);
        let enc = ratio(&mut encode_ours, &mut encode_theirs);
        let mut o1 = Vec::with_capacity(a.len());
        let mut o2 = BytesMut::with_capacity(a.len());
        let alloc_dec_ours = allocs_of(|| <$ours>::decode(&mut case.frame.clone(), version));
        let alloc_dec_theirs = allocs_of(|| <$theirs>::decode(&mut case.frame.clone(), version));
        let alloc_enc_ours = allocs_of(|| {
            o1.clear();
            ours.encode(&mut o1, version)
        });
        let alloc_enc_theirs = allocs_of(|| {
            o2.clear();
            theirs.encode(&mut o2, version)
        });
        $results.push(format!(
            "| {} v{} | {} B | {:.2} | {:.2} | {:.2} | {} | {} | {} | {} |",
            case.name,
            version,
            case.frame.len(),
            dec,
            dec_read,
            enc,
            alloc_dec_ours,
            alloc_dec_theirs,
            alloc_enc_ours,
            alloc_enc_theirs
        ));
    }};
}

/// Time of `ours` over time of `theirs`: the two alternate in short rounds
/// of ~1 ms each, and the median of the per-round ratios is returned, so
/// that a slow spell of a shared machine falls on both sides alike.
fn ratio(ours: &mut dyn FnMut(), theirs: &mut dyn FnMut()) -> f64 {
    let round = |f: &mut dyn FnMut(), iters: u32| {
        let start = Instant::now();
        for _ in 0..iters {
            f();
        }
        start.elapsed()
    };
    // Warm up, then size a round to ~1 ms of the slower side.
    round(ours, 1000);
    round(theirs, 1000);
    let mut iters = 16u32;
    while round(ours, iters).max(round(theirs, iters)) < Duration::from_millis(1) {
        iters *= 2;
    }
    let mut ratios: Vec<f64> = (0..301)
        .map(|i| {
            // Alternate which side goes first.
            let (a, b) = if i % 2 == 0 {
                let a = round(ours, iters);
                (a, round(theirs, iters))
            } else {
                let b = round(theirs, iters);
                (round(ours, iters), b)
            };
            a.as_secs_f64() / b.as_secs_f64()
        })
        .collect();
    ratios.sort_by(f64::total_cmp);
    ratios[ratios.len() / 2]
}

fn encode_frame<M: Message>(m: &M, version: i16) -> Bytes {
    as_frame(&m.encode_to_vec(version).expect("encode sample"))
}

fn benches(c: &mut Criterion) {
    let mut results = Vec::new();
    let dq = Case {
        name: "DescribeQuorumResponse",
        frame: encode_frame(&describe_quorum_response(), 2),
        version: 2,
    };
    compare!(
        c,
        results,
        &dq,
        describe_quorum_response::DescribeQuorumResponse,
        kafka_protocol::messages::DescribeQuorumResponse,
        read::dq_ours,
        read::dq_theirs
    );
    let av = Case {
        name: "AddRaftVoterRequest",
        // v0: the kafka-protocol crate does not know AddRaftVoter v1.
        frame: encode_frame(&add_raft_voter_request(), 0),
        version: 0,
    };
    compare!(
        c,
        results,
        &av,
        add_raft_voter_request::AddRaftVoterRequest,
        kafka_protocol::messages::AddRaftVoterRequest,
        read::av_ours,
        read::av_theirs
    );
    let vr = Case {
        name: "VoteRequest",
        frame: encode_frame(&vote_request(), 2),
        version: 2,
    };
    compare!(
        c,
        results,
        &vr,
        vote_request::VoteRequest,
        kafka_protocol::messages::VoteRequest,
        read::vote_ours,
        read::vote_theirs
    );
    let fr = Case {
        name: "FetchResponse (64 KiB records)",
        frame: encode_frame(&fetch_response(), 17),
        version: 17,
    };
    compare!(
        c,
        results,
        &fr,
        fetch_response::FetchResponse,
        kafka_protocol::messages::FetchResponse,
        read::fetch_ours,
        read::fetch_theirs
    );
    // Decoding Fetch records copies no record bytes: the records field points into the frame.
    let decoded =
        fetch_response::FetchResponse::decode(&mut fr.frame.clone(), 17).expect("decodes");
    let records = decoded
        .responses
        .get(0)
        .expect("element")
        .partitions
        .get(0)
        .expect("element")
        .records
        .clone()
        .expect("records");
    let frame_range = fr.frame.as_ptr() as usize..fr.frame.as_ptr() as usize + fr.frame.len();
    assert!(
        frame_range.contains(&(records.as_ptr() as usize)),
        "records were copied"
    );

    println!();
    println!("ratios are kraft-protocol time / kafka-protocol time (lower is better)");
    println!("| message | size | decode ratio | decode+read ratio | encode ratio | decode allocs (ours) | decode allocs (theirs) | encode allocs (ours) | encode allocs (theirs) |");
    println!("| --- | --- | --- | --- | --- | --- | --- | --- | --- |");
    for r in &results {
        println!("{r}");
    }
    println!("Fetch records decoded in place (no copy): yes");
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    benches(&mut c);
    c.final_summary();
}
