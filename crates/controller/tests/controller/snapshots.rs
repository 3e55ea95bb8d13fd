//! Periodic image snapshots and metadata log retention of a real (single
//! node, in-process) controller over its on-disk log.
//!
//! The waits block the test's own thread; the node runs on the runtime's
//! worker threads.

use std::path::{Path, PathBuf};
use std::time::Duration;

use bytes::Bytes;
use kraft_controller::config::ControllerConfig;
use kraft_controller::format::{format, FormatOptions, InitialQuorum};
use kraft_controller::image::{MetadataImage, MetadataRecord};
use kraft_controller::node::ControllerNode;
use kraft_protocol::text::Properties;
use kraft_raft::storage::decode_snapshot;
use kraft_testkit::{free_port, wait_for};

use crate::common::TempDir;

/// How long each wait for the node may take.
const PATIENCE: Duration = Duration::from_secs(30);

fn config(dir: &Path, port: u16) -> ControllerConfig {
    let text = format!(
        "node.id=1\nprocess.roles=controller\ncontroller.listener.names=CONTROLLER\n\
         listeners=CONTROLLER://127.0.0.1:{port}\nlog.dirs={d}\nmetadata.log.dir={d}\n\
         controller.quorum.bootstrap.servers=127.0.0.1:{port}\n\
         metadata.log.max.record.bytes.between.snapshots=300\n\
         internal.metadata.log.segment.bytes=600\n\
         metadata.max.retention.bytes=0\n",
        d = dir.display()
    );
    ControllerConfig::parse(&Properties::parse(&text).unwrap())
        .unwrap()
        .0
}

/// `(offset, epoch, path)` of the checkpoints in `log_dir`, oldest first.
fn checkpoints(log_dir: &Path) -> Vec<(i64, i32, PathBuf)> {
    let mut out: Vec<(i64, i32, PathBuf)> = std::fs::read_dir(log_dir)
        .unwrap()
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_str()?.to_string();
            let stem = name.strip_suffix(".checkpoint")?;
            let (offset, epoch) = stem.split_once('-')?;
            Some((offset.parse().ok()?, epoch.parse().ok()?, e.path()))
        })
        .collect();
    out.sort();
    out
}

fn segments(log_dir: &Path) -> Vec<i64> {
    let mut out: Vec<i64> = std::fs::read_dir(log_dir)
        .unwrap()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.strip_suffix(".log")?.parse().ok())
        .collect();
    out.sort();
    out
}

/// The image a snapshot file rebuilds, as the apply loop loads it.
fn image_from_snapshot(path: &Path, offset: i64) -> MetadataImage {
    let contents = decode_snapshot(Bytes::from(std::fs::read(path).unwrap())).unwrap();
    assert!(
        contents.control.voters.is_some(),
        "kraft.version 1: the snapshot carries the voter set"
    );
    let records: Vec<MetadataRecord> = contents
        .records
        .into_iter()
        .map(|r| MetadataRecord::decode(r).unwrap())
        .collect();
    let mut image = MetadataImage::from_records(&records).unwrap();
    image.set_last_offset(offset - 1);
    image.set_kraft_version(contents.control.kraft_version.unwrap_or(0));
    image
}

async fn propose(node: &ControllerNode, name: &str, level: i16) {
    let value = Bytes::from(MetadataRecord::feature_level(name, level).encode().unwrap());
    node.raft().propose(vec![value]).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn controller_snapshots_its_image_and_deletes_old_segments() {
    let tmp = TempDir::new("snapshots");
    let dir = tmp.path().join("data");
    let log_dir = dir.join("__cluster_metadata-0");
    let port = free_port();
    let report = format(&FormatOptions {
        config: config(&dir, port),
        cluster_id: "MkU3OEVBNTcwNTJENDM2Qk".to_string(),
        release_version: None,
        features: Vec::new(),
        ignore_formatted: false,
        initial_quorum: InitialQuorum::Standalone,
        add_scram: Vec::new(),
        now_ms: None,
    });
    report.unwrap();
    assert_eq!(checkpoints(&log_dir).len(), 1, "the bootstrap checkpoint");

    let node = ControllerNode::start(config(&dir, port)).await.unwrap();
    wait_for("the node leads and applied the bootstrap", PATIENCE, || {
        let ready = node.raft().status().is_leader
            && node.image().read().metadata_version().is_some()
            && node.image().read().controller(1).is_some();
        ready.then_some(())
    });

    // Enough batches to roll several 600-byte segments and pass the
    // 300-byte snapshot threshold many times.
    for i in 0..60i16 {
        propose(&node, &format!("test.feature.{}", i % 7), i + 1).await;
    }

    // A snapshot at the last applied offset rebuilds exactly the live image.
    // (A trigger is skipped while a snapshot is being written, so keep
    // committing until one lands at the end.)
    let mut extra = 0i16;
    let (snapshot_offset, live) = loop {
        let live = node.image().snapshot();
        let latest = checkpoints(&log_dir).pop().unwrap();
        if latest.0 == live.last_offset() + 1 {
            assert_eq!(image_from_snapshot(&latest.2, latest.0), live);
            break (latest.0, live);
        }
        extra += 1;
        assert!(extra < 100, "no snapshot at the end of the log");
        propose(&node, "test.feature.last", extra).await;
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert_eq!(live.feature_level("test.feature.0"), 57);
    assert_eq!(live.feature_level("test.feature.6"), 56);

    // Retention 0 bytes: only the latest snapshot is kept, the log starts
    // at it and the segments wholly below it are gone.
    let (kept, segs) = wait_for("old snapshots and segments are deleted", PATIENCE, || {
        let kept = checkpoints(&log_dir);
        let segs = segments(&log_dir);
        (kept.len() == 1 && segs.first().is_some_and(|s| *s > 0)).then_some((kept, segs))
    });
    assert!(kept[0].0 >= snapshot_offset);
    assert!(segs[0] <= kept[0].0, "{segs:?} {kept:?}");
    let features_before = live.finalized_features().to_vec();

    // A restart loads the snapshot (the records that set test.feature.0
    // are below the log start now) and ends with the same features.
    node.shutdown().await;
    let node = ControllerNode::start(config(&dir, port)).await.unwrap();
    wait_for("the restarted node rebuilt its image", PATIENCE, || {
        let image = node.image().snapshot();
        (image.last_offset() >= snapshot_offset - 1 && image.controller(1).is_some()).then_some(())
    });
    let image = node.image().snapshot();
    assert!(segments(&log_dir)[0] > 0);
    assert_eq!(image.finalized_features(), features_before.as_slice());
    assert_eq!(image.metadata_version(), live.metadata_version());
    assert_eq!(image.kraft_version(), 1);
    node.shutdown().await;
}
