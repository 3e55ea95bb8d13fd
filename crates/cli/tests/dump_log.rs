//! `kraft dump-log` against Kafka 4.4.0's `DumpLogSegments`: every case in
//! `tests/golden/dump-log` (NAME.args, one argument a line, paths relative to
//! this crate's directory) holds the stdout and exit code that
//! `kafka-dump-log.sh` (class `org.apache.kafka.tools.DumpLogSegments`)
//! printed for the same arguments, run from `crates/cli`.
//!
//! The golden files are written by `tests/interop/dump-log.sh record` (from
//! the repository root), which runs, for each case,
//! `cd crates/cli && kafka-quorum.sh tool DIR org.apache.kafka.tools.DumpLogSegments $(cat NAME.args)`
//! and stores its stdout in NAME.stdout and its exit status in NAME.code.
//!
//! The files dumped are in `tests/data/dump-log`:
//! * `kafka/`: the Kafka-written metadata log and snapshot of
//!   `crates/controller/tests/data/image` (written by
//!   `tests/interop/image-interop.sh generate`), under the names Kafka gives
//!   a segment and a snapshot;
//! * `kraft-rs/`: a segment, the bootstrap snapshot and a snapshot written
//!   by a single `kraft server` controller (formatted with
//!   `kraft storage format --standalone`, one `kraft features upgrade`);
//! * `crafted/` and `crafted-corrupt/`: built by `crafted_fixtures_are_reproducible`
//!   below, which checks the committed files are what it builds and, with
//!   `KRAFT_WRITE_DUMP_LOG_FIXTURES=1`, writes them
//!   (`KRAFT_WRITE_DUMP_LOG_FIXTURES=1 cargo test -p kraft-cli --test dump_log crafted`):
//!   unknown and malformed metadata records, an unknown control record, a
//!   record with a key and headers, a batch whose CRC does not hold, an
//!   offset gap, a torn tail, and a batch header declaring too small a size.

use std::fs;
use std::path::Path;

use kraft_protocol::messages::feature_level_record::FeatureLevelRecord;
use kraft_protocol::messages::k_raft_version_record::KRaftVersionRecord;
use kraft_protocol::messages::leader_change_message::{LeaderChangeMessage, Voter};
use kraft_protocol::messages::topic_record::TopicRecord;
use kraft_protocol::records::{
    encode_metadata_record_header, ControlRecordType, MetadataRecordBody, NewHeader, NewRecord,
    RecordBatchBuilder,
};
use kraft_protocol::{Message, StrBytes};

#[test]
fn dump_log_prints_what_kafka_prints() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = root.join("tests/golden/dump-log");
    let mut entries: Vec<_> = fs::read_dir(&dir)
        .expect("golden directory")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "args"))
        .collect();
    entries.sort();
    let mut cases = 0;
    for args_path in entries {
        let read = |ext: &str| {
            fs::read_to_string(args_path.with_extension(ext))
                .unwrap_or_else(|e| panic!("{}: {e}", args_path.display()))
        };
        let name = args_path.display().to_string();
        let mut args = vec!["kraft".to_owned(), "dump-log".to_owned()];
        args.extend(read("args").lines().map(str::to_owned));
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let code = kraft_cli::run_main(args, &mut out, &mut err);
        let ours = String::from_utf8_lossy(&out);
        let kafka = read("stdout");
        for (i, (a, b)) in ours.lines().zip(kafka.lines()).enumerate() {
            assert_eq!(a, b, "{name}: stdout line {}", i + 1);
        }
        assert_eq!(
            ours.lines().count(),
            kafka.lines().count(),
            "{name}: stdout line count"
        );
        assert_eq!(ours, kafka, "{name}: stdout");
        assert_eq!(code.to_string(), read("code").trim(), "{name}: exit code");
        cases += 1;
    }
    assert!(cases >= 8, "only {cases} cases");
}

#[test]
fn missing_file_is_a_clear_error() {
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let code = kraft_cli::run_main(
        [
            "kraft",
            "dump-log",
            "--cluster-metadata-decoder",
            "--files",
            "no/such/dir/00000000000000000000.log",
        ],
        &mut out,
        &mut err,
    );
    assert_eq!(code, 1);
    assert_eq!(
        String::from_utf8_lossy(&err),
        "Cannot read no/such/dir/00000000000000000000.log: no such file\n"
    );
}

#[test]
fn files_is_required() {
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let code = kraft_cli::run_main(["kraft", "dump-log"], &mut out, &mut err);
    assert_eq!(code, 1);
    assert!(
        String::from_utf8_lossy(&err).contains("--files"),
        "{}",
        String::from_utf8_lossy(&err)
    );
}

fn framed(body: &MetadataRecordBody, version: i16) -> Vec<u8> {
    body.encode(version).expect("encode")
}

/// A framed metadata value with an arbitrary frame (type, version) and body.
fn raw_frame(frame_version: u32, api_key: i16, version: i16, body: &[u8]) -> Vec<u8> {
    let mut v = Vec::new();
    if frame_version == 1 {
        encode_metadata_record_header(&mut v, api_key, version);
    } else {
        v.push(frame_version as u8);
        v.push(api_key as u8);
        v.push(version as u8);
    }
    v.extend_from_slice(body);
    v
}

/// Builds `tests/data/dump-log/crafted*/` and checks the committed files
/// are exactly that (or writes them when asked); see the module
/// documentation.
#[test]
fn crafted_fixtures_are_reproducible() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/dump-log");
    let ts = 1_767_225_600_000i64;
    let mut log = Vec::new();

    let leader_change = LeaderChangeMessage {
        version: 0,
        leader_id: 2,
        voters: vec![
            Voter {
                voter_id: 1,
                ..Voter::default()
            },
            Voter {
                voter_id: 2,
                ..Voter::default()
            },
        ]
        .into(),
        granting_voters: vec![Voter {
            voter_id: 2,
            ..Voter::default()
        }]
        .into(),
        ..LeaderChangeMessage::default()
    }
    .encode_to_vec(0)
    .expect("encode");
    let kraft_version = KRaftVersionRecord {
        version: 0,
        k_raft_version: 1,
        ..KRaftVersionRecord::default()
    }
    .encode_to_vec(0)
    .expect("encode");
    let mut b = RecordBatchBuilder::new_control(100, 3, ts);
    b.push(NewRecord::control(
        ControlRecordType::LeaderChange,
        &leader_change,
    ));
    b.push(NewRecord::control(
        ControlRecordType::KRaftVersion,
        &kraft_version,
    ));
    // A control type Kafka does not know (9), with an empty value.
    b.push(NewRecord::control(ControlRecordType::Unknown(9), &[]));
    log.extend_from_slice(&b.build());

    let feature = framed(
        &MetadataRecordBody::FeatureLevel(FeatureLevelRecord {
            name: StrBytes::from("metadata.version"),
            feature_level: 33,
            ..FeatureLevelRecord::default()
        }),
        0,
    );
    let topic = framed(
        &MetadataRecordBody::Topic(TopicRecord {
            name: StrBytes::from("t\"\u{1}é"),
            ..TopicRecord::default()
        }),
        0,
    );
    let unknown_type = raw_frame(1, 200, 0, &[0, 0, 0, 1, 0]);
    let unknown_version = raw_frame(1, 12, 9, &[0]);
    let mut garbage = feature.clone();
    garbage.extend_from_slice(&[0xde, 0xad]);
    let frame_zero = raw_frame(0, 12, 0, &[0]);
    let frame_two = raw_frame(2, 12, 0, &[0]);
    let truncated_body = raw_frame(1, 12, 0, &[0x11, b'm']);
    let mut b = RecordBatchBuilder::new(103, 3, ts + 1000);
    for value in [
        &feature,
        &topic,
        &unknown_type,
        &unknown_version,
        &garbage,
        &frame_zero,
        &frame_two,
        &truncated_body,
    ] {
        b.push(NewRecord::value(value));
    }
    log.extend_from_slice(&b.build());

    // A record with a key and headers.
    let headers = [
        NewHeader {
            key: b"h1",
            value: Some(b"v"),
        },
        NewHeader {
            key: b"h2",
            value: None,
        },
    ];
    let mut b = RecordBatchBuilder::new(111, 3, ts + 2000);
    b.push(NewRecord::new(Some(b"key"), Some(&feature)).with_headers(&headers));
    log.extend_from_slice(&b.build());

    // A batch whose stored CRC does not match its bytes.
    let mut b = RecordBatchBuilder::new(112, 3, ts + 3000);
    b.push(NewRecord::value(&feature));
    let mut bad = b.build().to_vec();
    bad[20] ^= 0x01;
    log.extend_from_slice(&bad);

    // An offset gap (113 -> 120), then a torn batch.
    let mut b = RecordBatchBuilder::new(120, 3, ts + 4000);
    b.push(NewRecord::value(&feature));
    log.extend_from_slice(&b.build());
    let mut b = RecordBatchBuilder::new(121, 3, ts + 5000);
    b.push(NewRecord::value(&feature));
    log.extend_from_slice(&b.build()[..40]);

    let crafted = root.join("crafted/00000000000000000100.log");

    // One good batch, then a header declaring a 5-byte batch.
    let mut corrupt = Vec::new();
    let mut b = RecordBatchBuilder::new(0, 1, ts);
    b.push(NewRecord::value(&feature));
    corrupt.extend_from_slice(&b.build());
    let mut header = vec![0u8; 61];
    header[7] = 1;
    header[11] = 5;
    header[16] = 2;
    corrupt.extend_from_slice(&header);
    let crafted_corrupt = root.join("crafted-corrupt/00000000000000000000.log");
    for (path, bytes) in [(crafted, log), (crafted_corrupt, corrupt)] {
        if std::env::var_os("KRAFT_WRITE_DUMP_LOG_FIXTURES").is_some() {
            if let Some(dir) = path.parent() {
                fs::create_dir_all(dir).expect("mkdir");
            }
            fs::write(&path, &bytes).expect("write");
        }
        let committed = fs::read(&path).expect("a committed fixture");
        assert!(
            committed == bytes,
            "{} differs from what this test builds; rebuild it with KRAFT_WRITE_DUMP_LOG_FIXTURES=1",
            path.display()
        );
    }
}
