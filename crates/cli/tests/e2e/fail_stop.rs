//! A controller halts rather than diverge from its log, with real `kraft
//! server` processes: a committed record that decodes but contradicts the
//! image, and a snapshot with a corrupt record (framing and CRC intact),
//! each stop the process with exit status 1 and one line naming what
//! failed, and nothing is applied, snapshotted or deleted after it. Kafka
//! 4.4's QuorumController sends both to its fatal fault handler
//! (`Unable to apply RemoveTopicRecord record at offset N on standby
//! controller, from the batch with baseOffset N`, `Error while loading
//! snapshot ...`), which halts the process.

use std::path::Path;

use bytes::Bytes;
use kraft_protocol::messages::remove_topic_record::RemoveTopicRecord;
use kraft_protocol::{MetadataRecordBody, Uuid};
use kraft_raft::storage::{decode_snapshot, encode_snapshot};
use kraft_raft::{Batch, DiskLog, LogConfig, RaftLog, Record};

use super::*;

/// Snapshot after every ~200 bytes of committed batches.
const TINY_SNAPSHOTS: &str = "metadata.log.max.record.bytes.between.snapshots=200\n";

/// The names of the snapshot files in `log_dir`, sorted.
fn checkpoints(log_dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(log_dir)
        .map(|d| {
            d.flatten()
                .filter_map(|e| e.file_name().to_str().map(str::to_string))
                .filter(|n| n.ends_with(".checkpoint"))
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

/// The names of the segment files in `log_dir`, sorted.
fn segments(log_dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(log_dir)
        .map(|d| {
            d.flatten()
                .filter_map(|e| e.file_name().to_str().map(str::to_string))
                .filter(|n| n.ends_with(".log"))
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

/// One controller, formatted standalone with tiny snapshot thresholds,
/// started until it is the active controller and has written a snapshot of
/// its own, then stopped with SIGTERM.
fn run_once_and_stop(name: &str) -> Cluster {
    // Three ports for the bootstrap list; only controller 1 runs, alone.
    let mut c = Cluster::new(name, 3);
    c.write_props_with(1, TINY_SNAPSHOTS);
    let cluster_id = kraft_ok(&["storage", "random-uuid"]).trim().to_string();
    format(&c, 1, &cluster_id, &["--standalone"]);
    c.server(1).start();
    let log_dir = c.log_dir(1);
    wait_for(
        "controller 1 is active and wrote a snapshot",
        Duration::from_secs(60),
        || {
            let status = c.status(1)?;
            let own = checkpoints(&log_dir)
                .into_iter()
                .any(|n| !n.starts_with("00000000000000000000-0000000000"));
            (status["leaderId"].as_i64() == Some(1) && own).then_some(())
        },
    );
    assert_eq!(c.server(1).stop(), Some(0), "{}", c.server_log(1));
    c
}

/// Waits for the process to exit on its own; its exit code.
fn exit_code(c: &mut Cluster) -> i32 {
    wait_for("kraft server exits", Duration::from_secs(60), || {
        c.server(1).try_wait().map(|s| s.code().unwrap_or(-1))
    })
}

#[test]
fn a_committed_record_the_image_refuses_stops_the_controller() {
    let mut c = run_once_and_stop("fail-stop-record");
    let log_dir = c.log_dir(1);

    // A RemoveTopicRecord for a topic id that never existed, appended as
    // the last leader would have (a valid batch in its epoch): it commits
    // once the restarted controller leads again.
    let topic = Uuid::from_u64_pair(0x0123_4567_89ab_cdef, 0x0fed_cba9_8765_4321);
    let value = MetadataRecordBody::from(RemoveTopicRecord {
        topic_id: topic,
        ..Default::default()
    })
    .encode(0)
    .expect("encodes");
    let (mut log, _) = DiskLog::open(&log_dir, LogConfig::default()).expect("open the log");
    let offset = log.end_offset();
    let batch = Batch {
        base_offset: offset,
        epoch: log.last_fetched_epoch(),
        append_time: 0,
        records: vec![Record::Data(Bytes::from(value))],
        encoded: Default::default(),
    };
    log.append(batch).expect("append");
    log.flush().expect("flush");
    drop(log);
    let snapshots = checkpoints(&log_dir);
    let segment_files = segments(&log_dir);

    c.server(1).start();
    let code = exit_code(&mut c);
    let log = c.server_log(1);
    assert_eq!(code, 1, "{log}");
    let expected = format!(
        "Unable to apply RemoveTopicRecord record at offset {offset} (version 0) on standby controller, from the batch with baseOffset {offset}: Unable to delete topic with id {}: no such topic found.",
        kraft_protocol::kafka_uuid::to_string(&topic)
    );
    let lines: Vec<&str> = log.lines().filter(|l| l.contains("ERROR")).collect();
    assert!(
        lines.first().is_some_and(|l| l.contains(&expected)),
        "the first error line names the record, offset, version and reason: {expected}\n{log}"
    );
    assert!(
        log.contains(&format!("controller 1 stopped: {expected}")),
        "{log}"
    );
    assert!(
        !log.contains("this controller is now the active controller"),
        "{log}"
    );
    assert_eq!(
        checkpoints(&log_dir),
        snapshots,
        "no snapshot after the failure"
    );
    assert_eq!(segments(&log_dir), segment_files, "no segment deleted");
}

#[test]
fn a_snapshot_with_a_corrupt_record_stops_the_controller_before_it_serves() {
    let mut c = run_once_and_stop("fail-stop-snapshot");
    let log_dir = c.log_dir(1);
    let latest = checkpoints(&log_dir)
        .pop()
        .expect("the controller wrote a snapshot");
    let path = log_dir.join(&latest);
    let epoch: i32 = latest
        .trim_end_matches(".checkpoint")
        .split_once('-')
        .and_then(|(_, e)| e.parse().ok())
        .expect("snapshot name");
    // Its records again, the first one's body cut short after its frame:
    // the file's batches and CRCs are valid, one record is not.
    let contents =
        decode_snapshot(Bytes::from(std::fs::read(&path).expect("read"))).expect("decodes");
    let mut records = contents.records.clone();
    assert!(!records.is_empty(), "the snapshot holds records");
    let first = records[0].clone();
    records[0] = first.slice(..first.len().min(4));
    let bytes = encode_snapshot(epoch, 0, &contents.control, records, 8 * 1024 * 1024);
    std::fs::write(&path, bytes).expect("write the snapshot");
    let snapshots = checkpoints(&log_dir);

    c.server(1).start();
    let code = exit_code(&mut c);
    let log = c.server_log(1);
    assert_eq!(code, 1, "{log}");
    assert!(
        log.contains(&format!(
            "Error while loading snapshot {}: ",
            path.display()
        )),
        "the error names the file: {log}"
    );
    assert!(
        !log.contains("loaded the image from the snapshot")
            && !log.contains("the metadata image is loaded"),
        "{log}"
    );
    assert_eq!(checkpoints(&log_dir), snapshots);
}
