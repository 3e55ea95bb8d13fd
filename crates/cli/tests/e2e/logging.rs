//! `kraft.log.*` through three real `kraft server` processes: JSON lines to
//! a file rotated at a tiny size, with Kafka's wording for the events
//! operators watch (raft transitions, activation, voter sets, snapshots,
//! broker registration, unfencing and fencing of a stand-in broker that
//! stops heartbeating).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use kraft_testkit::wait_for;
use serde_json::Value;

use super::protocol_sweep::sweep::leader_and_follower;
use super::reassignments::{finalized_features, heartbeat, register};
use super::{kraft, start_three, Cluster};

const MAX_BYTES: u64 = 4096;
const MAX_FILES: usize = 3;
const BROKER: i32 = 1001;

/// The log files of `dir`, oldest first (`server.log.2`, `server.log.1`,
/// `server.log`).
fn log_files(dir: &Path) -> Vec<PathBuf> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    names.sort_by_key(|n| {
        std::cmp::Reverse(
            n.strip_prefix("server.log.")
                .and_then(|s| s.parse::<u32>().ok())
                .unwrap_or(0),
        )
    });
    names.iter().map(|n| dir.join(n)).collect()
}

/// A log line's `fields.message`; `None` for a line that is not a JSON
/// object with a timestamp, a level and a target.
fn message(line: &str) -> Option<String> {
    let v: Value = serde_json::from_str(line).ok()?;
    ["timestamp", "level", "target"]
        .iter()
        .all(|k| v[k].is_string())
        .then(|| {
            v["fields"]["message"]
                .as_str()
                .unwrap_or_default()
                .to_owned()
        })
}

/// What the scanner saw while the controllers ran: the phrases some line
/// started with, and the most files one log directory held at once.
#[derive(Default)]
struct Seen {
    phrases: BTreeSet<String>,
    most_files: usize,
}

/// Scans the log directories every 20 ms until `stop` (the files rotate
/// away early lines), noting which `phrases` start a message.
fn scan(dirs: Vec<PathBuf>, phrases: Vec<String>, seen: Arc<Mutex<Seen>>, stop: Arc<AtomicBool>) {
    while !stop.load(Ordering::Relaxed) {
        for dir in &dirs {
            let files = log_files(dir);
            let mut found = Vec::new();
            for file in &files {
                let text = std::fs::read_to_string(file).unwrap_or_default();
                // A line being written may be cut short: skipped here,
                // checked whole once the servers have stopped.
                for m in text.lines().filter_map(message) {
                    found.extend(
                        phrases
                            .iter()
                            .filter(|p| m.starts_with(p.as_str()))
                            .cloned(),
                    );
                }
            }
            let mut seen = seen.lock().expect("not poisoned");
            seen.most_files = seen.most_files.max(files.len());
            seen.phrases.extend(found);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn json_logs_rotate_by_size_and_carry_kafka_wording() {
    let mut c = Cluster::new("logging", 3);
    let dirs: Vec<PathBuf> = (1..=3).map(|id| c.dir.join(format!("logs-{id}"))).collect();
    for dir in &dirs {
        std::fs::create_dir_all(dir).expect("log dir");
    }
    let phrases: Vec<String> = [
        "Completed transition to Leader(",
        "Completed transition to FollowerState(",
        "Becoming the active controller at epoch ",
        "In the new epoch ",
        "Latest set of voters is ",
        "Recorded new KRaft controller, from now on will use node ",
        &format!("No previous registration found for broker {BROKER}."),
        &format!("The request from broker {BROKER} to unfence has been granted"),
        &format!("Fencing broker {BROKER} at epoch "),
        "Creating new KRaft snapshot file ",
        "Successfully wrote snapshot ",
    ]
    .iter()
    .map(|p| (*p).to_owned())
    .collect();
    let seen = Arc::new(Mutex::new(Seen::default()));
    let stop = Arc::new(AtomicBool::new(false));
    let scanner = {
        let (dirs, phrases, seen, stop) =
            (dirs.clone(), phrases.clone(), seen.clone(), stop.clone());
        std::thread::spawn(move || scan(dirs, phrases, seen, stop))
    };

    let extra = format!(
        "kraft.log.format=json\nkraft.log.file={}/logs-{{id}}/server.log\n\
         kraft.log.file.max.bytes={MAX_BYTES}\nkraft.log.file.max.files={MAX_FILES}\n\
         broker.session.timeout.ms=3000\nmetadata.log.max.record.bytes.between.snapshots=2000\n",
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
    wait_for("every phrase is logged", Duration::from_secs(90), || {
        let seen = seen.lock().expect("not poisoned");
        (seen.phrases.len() == phrases.len()).then_some(())
    });
    stop.store(true, Ordering::Relaxed);
    scanner.join().expect("the scanner ran");
    for id in 1..=3 {
        assert_eq!(c.server(id).stop(), Some(0));
    }

    // The tiny size rotated every controller's file and no directory ever
    // held more than MAX_FILES; every line of what is kept is JSON.
    let most = seen.lock().expect("not poisoned").most_files;
    assert!(most <= MAX_FILES, "{most} files at once");
    for dir in &dirs {
        assert!(
            dir.join("server.log.1").exists(),
            "{} rotated",
            dir.display()
        );
        let files = log_files(dir);
        assert!(files.len() <= MAX_FILES, "{files:?}");
        for file in files {
            let text = std::fs::read_to_string(&file).expect("readable");
            assert!(
                text.len() as u64 <= MAX_BYTES + 8192,
                "{file:?}: {} bytes",
                text.len()
            );
            for line in text.lines() {
                assert!(message(line).is_some(), "not a JSON log line: {line}");
            }
        }
    }
}
