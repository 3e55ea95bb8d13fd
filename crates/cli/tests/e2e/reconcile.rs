//! `kraft metadata-quorum reconcile` against five real `kraft server`
//! processes: 3 -> 5 voters, then back to 3 with a controller SIGKILLed
//! mid-plan, DescribeQuorum polled all along (a leader at every poll), a
//! topic created first still there at the end; and sticky removal: a
//! controller with auto-join on stays an observer after its removal and
//! joins again only once restarted.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use kraft_testkit::wait_for;

use super::protocol_sweep::sweep::leader_and_follower;
use super::reassignments::{create_assigned_topic, finalized_features, heartbeat, register};
use super::{format, ids, kraft, start_three, Cluster, KRAFT};

const AUTO_JOIN: &str = "controller.quorum.auto.join.enable=true\n";
const TOPIC: &str = "kept";
const PATIENCE: Duration = Duration::from_secs(60);

fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

/// CreateTopics of [`TOPIC`] on brokers 1001-1003; returns the error code.
fn create_topic(addr: &str) -> i16 {
    create_assigned_topic(addr, TOPIC, &[1001, 1002, 1003]).error_code
}

/// Polls `describe --status` through `via` until stopped; counts the
/// answers and those without a leader.
struct Poller {
    stop: Arc<AtomicBool>,
    handle: std::thread::JoinHandle<(usize, Vec<String>)>,
}

impl Poller {
    fn start(via: String, client: String) -> Poller {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let handle = std::thread::spawn(move || {
            let (mut answers, mut leaderless) = (0, Vec::new());
            while !flag.load(Ordering::Relaxed) {
                let (code, out, err) = kraft(&[
                    "metadata-quorum",
                    "--bootstrap-controller",
                    &via,
                    "--command-config",
                    &client,
                    "describe",
                    "--status",
                    "--output",
                    "json",
                ]);
                let leader = serde_json::from_str::<serde_json::Value>(&out)
                    .ok()
                    .and_then(|s| s["leaderId"].as_i64());
                answers += 1;
                if code != 0 || leader.is_none_or(|l| l <= 0) {
                    leaderless.push(format!("{out}{err}"));
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            (answers, leaderless)
        });
        Poller { stop, handle }
    }

    fn finish(self) -> (usize, Vec<String>) {
        self.stop.store(true, Ordering::Relaxed);
        self.handle.join().expect("poller")
    }
}

fn reconcile_args<'a>(c: &'a str, voters: &'a str) -> Vec<&'a str> {
    vec![
        "metadata-quorum",
        "--bootstrap-controller",
        c,
        "reconcile",
        "--voters",
        voters,
        "--timeout-ms",
        "60000",
    ]
}

#[test]
fn reconcile_grows_to_five_and_shrinks_to_three_with_a_node_killed_mid_plan() {
    let mut c = Cluster::new("reconcile", 5);
    let cluster_id = kraft(&["storage", "random-uuid"]).1.trim().to_string();
    start_three(&mut c, &cluster_id, "", "4.4-IV2");
    let bootstrap = c.controller(1);

    // A topic on three stand-in brokers, created before any voter change.
    let nodes: Vec<(i32, String)> = (1..=3).map(|id| (id as i32, c.controller(id))).collect();
    let (leader, _) = leader_and_follower(&nodes, PATIENCE);
    let features = finalized_features(&leader.addr);
    let epochs: Vec<(i32, i64)> = [1001, 1002, 1003]
        .iter()
        .map(|&id| (id, register(&leader.addr, &cluster_id, id, &features)))
        .collect();
    wait_for("the brokers are unfenced", PATIENCE, || {
        epochs
            .iter()
            .all(|&(id, epoch)| !heartbeat(&leader.addr, id, epoch))
            .then_some(())
    });
    assert_eq!(create_topic(&leader.addr), 0, "the topic is created");

    // Controllers 4 and 5 observe (auto-join off).
    for id in 4..=5 {
        c.write_props(id);
        format(&c, id, &cluster_id, &["--no-initial-controllers"]);
        c.server(id).start();
    }
    wait_for("4 and 5 observe and are registered", PATIENCE, || {
        let s = c.status(1)?;
        let observers = ids(&s, "currentObservers");
        let mut registered = c.registered_controllers(1)?;
        registered.sort_unstable();
        (observers.contains(&4) && observers.contains(&5) && registered == [1, 2, 3, 4, 5])
            .then_some(())
    });

    // Refusals: an id nobody runs, an empty set. Nothing changes.
    let (code, out, err) = kraft(&reconcile_args(&bootstrap, "1,2,3,6"));
    assert_eq!(code, 1, "{out}{err}");
    assert!(err.contains("no observer with node id 6"), "{err}");
    let (code, _, err) = kraft(&reconcile_args(&bootstrap, ","));
    assert_eq!(code, 1);
    assert!(err.contains("empty"), "{err}");

    // The dry run prints the steps as commands and changes nothing.
    let mut args = reconcile_args(&bootstrap, "1,2,3,4,5");
    args.push("--dry-run");
    let (code, out, err) = kraft(&args);
    assert_eq!(code, 0, "{out}{err}");
    for expected in [
        format!("kraft metadata-quorum --bootstrap-controller {bootstrap} add-controller --controller-id 4"),
        format!("kraft metadata-quorum --bootstrap-controller {bootstrap} add-controller --controller-id 5"),
        "--command-config <server.properties of controller 4> add-controller".to_string(),
        "DRY RUN: nothing was changed.".to_string(),
    ] {
        assert!(out.contains(&expected), "{expected:?} in {out}");
    }
    assert_eq!(
        ids(&c.status(1).expect("status"), "currentVoters"),
        [1, 2, 3]
    );

    // 3 -> 5, with the quorum polled throughout.
    let poller = Poller::start(
        bootstrap.clone(),
        c.fast_client().to_string_lossy().into_owned(),
    );
    let (code, out, err) = kraft(&reconcile_args(&bootstrap, "1,2,3,4,5"));
    assert_eq!(code, 0, "reconcile to five: {out}{err}");
    assert!(
        out.contains("Added controller 4 with directory id"),
        "{out}"
    );
    assert!(
        out.contains("Added controller 5 with directory id"),
        "{out}"
    );
    assert!(
        out.contains("Reconciled: the voter set is [1, 2, 3, 4, 5]."),
        "{out}"
    );
    let s = c.status(1).expect("status");
    assert_eq!(ids(&s, "committedVoters"), [1, 2, 3, 4, 5]);
    // Already there: nothing to do.
    let (code, out, _) = kraft(&reconcile_args(&bootstrap, "5,4,3,2,1"));
    assert_eq!(code, 0);
    assert!(out.contains("nothing to do"), "{out}");

    // Controller 4 restarts with auto-join on (it stays a voter).
    assert_eq!(c.server(4).stop(), Some(0));
    c.write_props_with(4, AUTO_JOIN);
    let restarted = now_ms();
    c.server(4).start();
    wait_for("4 fetches again", PATIENCE, || {
        let s = c.status(1)?;
        let v = s["currentVoters"].as_array()?;
        let four = v.iter().find(|r| r["id"].as_i64() == Some(4))?;
        (four["lastCaughtUpTimestamp"].as_i64()? > restarted).then_some(())
    });

    // 5 -> 3: SIGKILL the second controller to remove once the first
    // removal committed.
    let mut shrink = reconcile_args(&bootstrap, "1,2,3");
    shrink.extend(["--step-delay-ms", "2000"]);
    let mut child = Command::new(KRAFT)
        .args(shrink)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run reconcile");
    let stdout = child.stdout.take().expect("stdout");
    let (tx, rx) = mpsc::channel::<String>();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let mut lines = Vec::new();
    let mut killed = None;
    let started = Instant::now();
    while let Ok(line) = rx.recv_timeout(Duration::from_secs(120)) {
        if killed.is_none() && line.starts_with("Committed: voters") {
            let victim = if line.contains("[1, 2, 3, 5]") { 5 } else { 4 };
            c.server(victim).kill();
            killed = Some(victim);
        }
        lines.push(line);
        if started.elapsed() > Duration::from_secs(180) {
            break;
        }
    }
    let status = child.wait().expect("reconcile exits");
    let out = lines.join("\n");
    let mut err = String::new();
    if let Some(mut e) = child.stderr.take() {
        let _ = std::io::Read::read_to_string(&mut e, &mut err);
    }
    let (answers, leaderless) = poller.finish();
    assert!(status.success(), "reconcile to three: {out}\n{err}");
    assert_eq!(killed, Some(5), "4 (a running follower) goes first: {out}");
    let kill_at = lines
        .iter()
        .position(|l| l.starts_with("Committed: voters"))
        .unwrap_or(0);
    assert!(
        lines[kill_at..]
            .iter()
            .any(|l| l.starts_with("Step 2: remove controller 5")),
        "5 is removed after it was killed: {out}"
    );
    assert!(
        out.contains("Reconciled: the voter set is [1, 2, 3]."),
        "{out}"
    );
    assert!(
        out.contains("remove-controller --controller-id 4 --controller-directory-id"),
        "{out}"
    );
    assert!(answers >= 2, "polled {answers} times");
    assert!(
        leaderless.is_empty(),
        "{} of {answers} DescribeQuorum polls without a leader: {leaderless:?}",
        leaderless.len()
    );
    let s = c.status(1).expect("status");
    assert_eq!(ids(&s, "committedVoters"), [1, 2, 3]);

    // Sticky removal: 4 (auto-join on) stays an observer.
    let until = Instant::now() + Duration::from_secs(7);
    while Instant::now() < until {
        if let Some(s) = c.status(1) {
            assert_eq!(ids(&s, "currentVoters"), [1, 2, 3], "4 must not rejoin");
        }
        std::thread::sleep(Duration::from_millis(500));
    }
    assert!(
        ids(&c.status(1).expect("status"), "currentObservers").contains(&4),
        "4 still observes"
    );
    assert!(
        c.server_log(4)
            .contains("will not auto-join again until it is restarted"),
        "{}",
        c.server_log(4)
    );

    // The topic is still there.
    let nodes: Vec<(i32, String)> = (1..=3).map(|id| (id as i32, c.controller(id))).collect();
    let (leader, _) = leader_and_follower(&nodes, PATIENCE);
    assert_eq!(
        create_topic(&leader.addr),
        kraft_protocol::ErrorCode::TopicAlreadyExists.code(),
        "the topic survived"
    );

    // After a restart auto-join adds 4 again.
    assert_eq!(c.server(4).stop(), Some(0));
    c.server(4).start();
    wait_for("4 auto-joins after its restart", PATIENCE, || {
        c.status(1)
            .filter(|s| ids(s, "committedVoters") == [1, 2, 3, 4])
    });
    drop(c);
}
