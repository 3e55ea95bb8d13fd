//! Periodic image snapshots with real processes: with tiny thresholds every
//! controller writes its own snapshots and deletes the segments below them;
//! a restarted controller loads its snapshot and ends with the same state;
//! a new controller catches up by FetchSnapshot although the leader's log no
//! longer starts at 0, and so does `kraft metadata-shell
//! --bootstrap-controller`, which shows what the log directory shows.

use std::path::Path;
use std::time::Duration;

use super::{format, kraft, kraft_ok, wait_for, Cluster};

/// Snapshot every ~200 bytes of committed batches, 400-byte segments, keep
/// only the latest snapshot.
const TINY_SNAPSHOTS: &str = "metadata.log.max.record.bytes.between.snapshots=200\n\
internal.metadata.log.segment.bytes=400\nmetadata.max.retention.bytes=0\n";

/// `(end offset, size)` of the snapshots in `log_dir`, oldest first.
fn checkpoints(log_dir: &Path) -> Vec<(i64, u64)> {
    let mut out: Vec<(i64, u64)> = std::fs::read_dir(log_dir)
        .map(|d| {
            d.flatten()
                .filter_map(|e| {
                    let name = e.file_name().to_str()?.to_string();
                    let stem = name.strip_suffix(".checkpoint")?;
                    let offset = stem.split_once('-')?.0.parse().ok()?;
                    Some((offset, e.metadata().ok()?.len()))
                })
                .collect()
        })
        .unwrap_or_default();
    out.sort_unstable();
    out
}

/// Base offset of the oldest segment in `log_dir`.
fn first_segment(log_dir: &Path) -> Option<i64> {
    std::fs::read_dir(log_dir)
        .ok()?
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.strip_suffix(".log")?.parse().ok())
        .min()
}

#[test]
fn every_controller_snapshots_and_new_ones_catch_up_from_a_snapshot() {
    let mut c = Cluster::new("snapshots", 4);
    let cluster_id = kraft(&["storage", "random-uuid"]).1.trim().to_string();
    let status = super::start_three(&mut c, &cluster_id, TINY_SNAPSHOTS, "3.9");
    let leader = status["leaderId"].as_i64().unwrap_or(1) as usize;

    // Committed records: the registrations and one FeatureLevelRecord per
    // upgrade.
    for mv in [
        "4.0-IV3", "4.1-IV1", "4.2-IV1", "4.3-IV0", "4.4-IV0", "4.4-IV1", "4.4-IV2",
    ] {
        kraft_ok(&[
            "features",
            "--bootstrap-controller",
            &c.controller(leader),
            "upgrade",
            "--metadata",
            mv,
        ]);
    }

    // 1. Every controller wrote snapshots of its own and the retention (0
    //    bytes) deleted the bootstrap checkpoint and the first segments.
    for id in 1..=3 {
        let log_dir = c.log_dir(id);
        let (snaps, start) = wait_for(
            &format!("controller {id} snapshots and moves its log start"),
            Duration::from_secs(30),
            || {
                let snaps = checkpoints(&log_dir);
                let start = first_segment(&log_dir)?;
                (snaps.len() == 1 && snaps[0].0 > 0 && start > 0).then_some((snaps, start))
            },
        );
        let written = c
            .server_log(id)
            .matches("Successfully wrote snapshot")
            .count();
        eprintln!(
            "e2e: controller {id}: {written} snapshots written, kept {snaps:?} (offset, bytes), first segment {start}"
        );
        assert!(written >= 2, "controller {id} wrote {written} snapshots");
        assert!(start <= snaps[0].0);
    }
    let leader_features = || c.own_features(leader);
    let expected = wait_for(
        "the leader describes its features",
        Duration::from_secs(30),
        leader_features,
    );
    assert!(
        expected.contains("FinalizedVersionLevel: 4.4-IV2"),
        "{expected}"
    );

    // 2. A restarted follower loads its snapshot (its log starts past the
    //    records that set these levels) and ends with the same state.
    let follower = (1..=3).find(|id| *id != leader).unwrap_or(2);
    assert_eq!(c.server(follower).stop(), Some(0));
    c.server(follower).start();
    wait_for(
        "the restarted follower has the leader's state",
        Duration::from_secs(30),
        || {
            let theirs = c.own_features(follower)?;
            (Some(&theirs) == c.own_features(leader).as_ref()).then_some(())
        },
    );
    assert!(
        c.server_log(follower)
            .contains("loaded the image from the snapshot"),
        "{}",
        c.server_log(follower)
    );
    assert!(first_segment(&c.log_dir(follower)).is_some_and(|s| s > 0));

    // 3. A new controller (an observer) cannot fetch from offset 0 any more:
    //    it downloads the leader's snapshot and then follows the log.
    assert!(first_segment(&c.log_dir(leader)).is_some_and(|s| s > 0));
    c.write_props_with(4, TINY_SNAPSHOTS);
    format(&c, 4, &cluster_id, &["--no-initial-controllers"]);
    c.server(4).start();
    wait_for(
        "the new observer has the leader's state",
        Duration::from_secs(30),
        || {
            let theirs = c.own_features(4)?;
            (Some(&theirs) == c.own_features(leader).as_ref()).then_some(())
        },
    );
    let log4 = c.server_log(4);
    assert!(log4.contains("installed snapshot"), "{log4}");
    assert!(
        log4.contains("loaded the image from the snapshot"),
        "{log4}"
    );
    let snaps4 = checkpoints(&c.log_dir(4));
    eprintln!("e2e: controller 4 holds {snaps4:?} (offset, bytes)");
    assert!(snaps4.iter().any(|(o, _)| *o > 0), "{snaps4:?}");

    // 4. The metadata shell over the running quorum (asked through a
    //    follower; it reads from the active controller, whose log starts
    //    with a snapshot) shows what it shows over the leader's directory.
    let follower_addr = c.controller(follower);
    let live = |command: &[&str]| {
        let mut args = vec!["metadata-shell", "--bootstrap-controller", &follower_addr];
        args.extend_from_slice(command);
        kraft_ok(&args)
    };
    let leader_dir = c.log_dir(leader).display().to_string();
    let offline = |command: &[&str]| {
        let mut args = vec!["metadata-shell", "--directory", &leader_dir];
        args.extend_from_slice(command);
        kraft_ok(&args)
    };
    let features = live(&["tree", "/image/features"]);
    assert!(features.contains("Optional[4.4-IV2]"), "{features}");
    assert_eq!(features, offline(&["tree", "/image/features"]));
    let controllers = wait_for(
        "the live shell lists four registered controllers",
        Duration::from_secs(30),
        || {
            let listed = live(&["ls", "/image/cluster/controllers"]);
            (listed.split_whitespace().count() == 4).then_some(listed)
        },
    );
    assert_eq!(controllers, offline(&["ls", "/image/cluster/controllers"]));
    let (code, _, err) = kraft(&[
        "metadata-shell",
        "--bootstrap-controller",
        "127.0.0.1:1",
        "--command-config",
        "/no/such/file",
        "ls",
    ]);
    assert_eq!(code, 1);
    assert!(err.contains("/no/such/file does not exist"), "{err}");

    drop(c);
}
