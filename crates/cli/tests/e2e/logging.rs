//! `kraft.log.*` through three real `kraft server` processes: JSON lines to
//! a file rotated at a tiny size, with Kafka's wording for the events
//! operators watch (raft transitions, activation, voter sets, snapshots,
//! broker registration, unfencing and fencing of a stand-in broker that
//! stops heartbeating).

use std::path::Path;
use std::time::Duration;

use kraft_testkit::wait_for;
use serde_json::Value;

use super::protocol_sweep::sweep::leader_and_follower;
use super::reassignments::{finalized_features, heartbeat, register};
use super::{kraft, start_three, Cluster};

const MAX_BYTES: u64 = 4096;
const MAX_FILES: usize = 3;
const BROKER: i32 = 1001;

/// Every line of the log files in `dir`, oldest file first; asserts the
/// rotation kept at most [`MAX_FILES`] files.
fn log_lines(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    assert!(names.len() <= MAX_FILES, "{}: {names:?}", dir.display());
    // server.log.2, server.log.1, server.log: oldest first.
    names.sort_by_key(|n| {
        std::cmp::Reverse(
            n.strip_prefix("server.log.")
                .and_then(|s| s.parse::<u32>().ok())
                .unwrap_or(0),
        )
    });
    names
        .iter()
        .flat_map(|n| {
            std::fs::read_to_string(dir.join(n))
                .unwrap_or_default()
                .lines()
                .map(str::to_owned)
                .collect::<Vec<_>>()
        })
        .collect()
}

/// The `fields.message` of every line, each line checked to be a JSON
/// object with a timestamp, a level and a target.
fn messages(dir: &Path) -> Vec<String> {
    log_lines(dir)
        .iter()
        .map(|line| {
            let v: Value = serde_json::from_str(line)
                .unwrap_or_else(|e| panic!("not a JSON line ({e}): {line}"));
            for key in ["timestamp", "level", "target"] {
                assert!(v[key].is_string(), "no {key}: {line}");
            }
            v["fields"]["message"]
                .as_str()
                .unwrap_or_default()
                .to_owned()
        })
        .collect()
}

fn logged(c: &Cluster, phrase: &str) -> bool {
    (1..=3).any(|id| {
        messages(&c.dir.join(format!("logs-{id}")))
            .iter()
            .any(|m| m.starts_with(phrase))
    })
}

#[test]
fn json_logs_rotate_by_size_and_carry_kafka_wording() {
    let mut c = Cluster::new("logging", 3);
    for id in 1..=3 {
        std::fs::create_dir_all(c.dir.join(format!("logs-{id}"))).expect("log dir");
    }
    let extra = format!(
        "kraft.log.format=json\nkraft.log.file={}/logs-{{id}}/server.log\n\
         kraft.log.file.max.bytes={MAX_BYTES}\nkraft.log.file.max.files={MAX_FILES}\n\
         broker.session.timeout.ms=3000\nmetadata.snapshot.max.new.record.bytes=2000\n",
        c.dir.path().display()
    );
    let cluster_id = kraft(&["storage", "random-uuid"]).1.trim().to_string();
    start_three(&mut c, &cluster_id, &extra, "4.4-IV2");
    let nodes: Vec<(i32, String)> = (1..=3).map(|id| (id as i32, c.controller(id))).collect();
    let (leader, _) = leader_and_follower(&nodes, Duration::from_secs(60));
    let addr = leader.addr.as_str();

    // A stand-in broker registers, is unfenced, then stops heartbeating.
    let epoch = register(addr, &cluster_id, BROKER, &finalized_features(addr));
    heartbeat(addr, BROKER, epoch);
    wait_for("the broker is unfenced", Duration::from_secs(30), || {
        (!heartbeat(addr, BROKER, epoch)).then_some(())
    });
    wait_for("the broker is fenced", Duration::from_secs(60), || {
        logged(&c, &format!("Fencing broker {BROKER} at epoch ")).then_some(())
    });
    wait_for("a snapshot is written", Duration::from_secs(60), || {
        logged(&c, "Successfully wrote snapshot ").then_some(())
    });

    for phrase in [
        "Completed transition to Leader(",
        "Completed transition to FollowerState(",
        "Completed transition to ",
        "Becoming the active controller at epoch ",
        "In the new epoch ",
        "Latest set of voters is ",
        "Recorded new KRaft controller, from now on will use node ",
        &format!("No previous registration found for broker {BROKER}."),
        &format!("The request from broker {BROKER} to unfence has been granted"),
        "Creating new KRaft snapshot file ",
    ] {
        assert!(logged(&c, phrase), "no line starts with {phrase:?}");
    }

    // The tiny size rotated every controller's file, keeping at most
    // MAX_FILES (checked by log_lines), none much past MAX_BYTES.
    for id in 1..=3 {
        let dir = c.dir.join(format!("logs-{id}"));
        assert!(dir.join("server.log.1").exists(), "controller {id} rotated");
        for entry in std::fs::read_dir(&dir)
            .expect("log dir")
            .filter_map(Result::ok)
        {
            let len = entry.metadata().map_or(0, |m| m.len());
            assert!(len <= MAX_BYTES + 8192, "{:?}: {len} bytes", entry.path());
        }
    }
    for id in 1..=3 {
        assert_eq!(c.server(id).stop(), Some(0));
    }
}
