//! `cargo xtask bench-brokers`: a kraft-rs 3-controller quorum against a
//! Java Kafka 4.4 one serving brokers (not in `ci`); writes
//! `docs/benchmarks-brokers.md`.

mod document;

use std::collections::BTreeMap;
use std::path::Path;

use super::line::{median, BenchLine};
use crate::{root, run, Result};
use document::results_table;

const IMPLS: [&str; 2] = ["kraft-rs", "kafka"];

/// One row of the results table:
/// (what, kraft-rs, Kafka, target on kraft-rs/Kafka as (op, bound), decimals).
type Row = (String, f64, f64, Option<(&'static str, f64)>, usize);

/// A kraft-rs 3-controller quorum against a Java Kafka 4.4 3-controller
/// quorum serving brokers, in one run (`tests/interop/bench-brokers.sh`,
/// load generator `crates/controller/examples/broker_load/`): real Java
/// brokers' start to unfenced, heartbeat round trips of fake brokers (3
/// and 50) and the controllers' resident sets. Writes
/// `docs/benchmarks-brokers.md`. Not part of `ci`: it proves nothing about
/// speed on a shared machine.
pub fn bench_brokers() -> Result<()> {
    let root = root();
    build()?;
    let (lines, wall) = measure(&root)?;
    let results = Results::new(&lines)?;
    let mut rows = Rows(Vec::new());
    results.java_brokers(&mut rows)?;
    results.java_broker_cpu(&mut rows)?;
    results.heartbeats(&mut rows)?;
    results.resident_sets(&mut rows)?;
    results.topics(&mut rows)?;
    results.failover(&mut rows)?;
    results.partitions_on_java_brokers(&mut rows)?;
    results.many_partitions(&mut rows)?;
    let java_heap = results
        .partitions_proc("kafka", "heap_used_after_gc_kb", true)
        .map_or("?".to_string(), |m| format!("{m:.1}"));
    let (table, missed) = results_table(&rows.0);
    let procs = results.controllers_table();
    let verdict = if missed.is_empty() {
        "Every target is met in this run.".to_string()
    } else {
        format!("Missed in this run: {}.", missed.join("; "))
    };
    let doc = results.document(wall, &table, &procs, &verdict, &java_heap);
    let path = root.join("docs/benchmarks-brokers.md");
    std::fs::write(&path, doc).map_err(|e| format!("{}: {e}", path.display()))?;
    println!("{table}\n{procs}\n{verdict}");
    eprintln!("bench-brokers: wrote {}", path.display());
    Ok(())
}

/// The release builds the script runs: the `kraft` binary and the
/// `broker_load` example.
fn build() -> Result<()> {
    run("cargo", &["build", "--release", "--bin", "kraft"])?;
    run(
        "cargo",
        &[
            "build",
            "--release",
            "-p",
            "kraft-controller",
            "--example",
            "broker_load",
        ],
    )?;
    Ok(())
}

/// Runs `tests/interop/bench-brokers.sh` into
/// `target/bench-brokers/results.txt` and returns its lines and the wall
/// time (BB_REUSE=1: the lines of an earlier run and its script's own wall
/// time).
fn measure(root: &Path) -> Result<(Vec<BenchLine>, f64)> {
    let dir = root.join("target/bench-brokers");
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let results = dir.join("results.txt");
    let started = std::time::Instant::now();
    // BB_REUSE=1: render the document from the results.txt of an earlier run.
    if std::env::var_os("BB_REUSE").is_none() {
        let _ = std::fs::remove_file(&results);
        run(
            "bash",
            &[
                "tests/interop/bench-brokers.sh",
                "target/release/kraft",
                "target/release/examples/broker_load",
                &results.display().to_string(),
            ],
        )?;
    }
    let mut wall = started.elapsed().as_secs_f64();
    let text =
        std::fs::read_to_string(&results).map_err(|e| format!("{}: {e}", results.display()))?;
    let lines: Vec<BenchLine> = text.lines().filter_map(BenchLine::parse).collect();
    if std::env::var_os("BB_REUSE").is_some() {
        // The script's own wall time (no release builds in it).
        if let Some(s) = lines
            .iter()
            .find(|l| l.implementation == "all" && l.kind == "run")
            .and_then(|l| l.num("seconds"))
        {
            wall = s;
        }
    }
    Ok((lines, wall))
}

/// The rows of the results table, in order.
struct Rows(Vec<Row>);

impl Rows {
    /// A row of `key` on each implementation (kraft-rs first).
    fn add(
        &mut self,
        what: String,
        key: &dyn Fn(&str) -> Result<f64>,
        target: Option<(&'static str, f64)>,
        decimals: usize,
    ) -> Result<()> {
        self.0
            .push((what, key("kraft-rs")?, key("kafka")?, target, decimals));
        Ok(())
    }
}

/// The lines of one run and the node id of each implementation's active
/// controller.
struct Results<'a> {
    lines: &'a [BenchLine],
    /// From the load generator's `leader address=` and the `controller`
    /// lines.
    leader_of: BTreeMap<&'static str, String>,
}

impl<'a> Results<'a> {
    /// The lines of a run, with the active controllers they name.
    fn new(lines: &'a [BenchLine]) -> Result<Results<'a>> {
        let mut results = Results {
            lines,
            leader_of: BTreeMap::new(),
        };
        // A run without the fake-broker phases (BB_STEPS) has none.
        for implementation in IMPLS {
            let Some(address) = results
                .of(implementation, "leader")
                .first()
                .and_then(|l| l.get("address"))
                .map(str::to_string)
            else {
                continue;
            };
            let port = address.rsplit(':').next().unwrap_or_default().to_string();
            let node = results
                .of(implementation, "controller")
                .into_iter()
                .find(|l| l.get("port") == Some(port.as_str()))
                .and_then(|l| l.get("node"))
                .ok_or_else(|| format!("{implementation}: leader {address} is no controller"))?;
            results.leader_of.insert(implementation, node.to_string());
        }
        Ok(results)
    }

    /// `implementation`'s lines of `kind`.
    fn of(&self, implementation: &str, kind: &str) -> Vec<&'a BenchLine> {
        self.lines
            .iter()
            .filter(|l| l.implementation == implementation && l.kind == kind)
            .collect()
    }

    /// A kind both implementations emitted (a run can skip steps: BB_STEPS).
    fn both(&self, kind: &str) -> bool {
        IMPLS.iter().all(|i| !self.of(i, kind).is_empty())
    }

    /// Step 1: rounds of three Java brokers on each quorum, their start to
    /// unfenced.
    fn java_brokers(&self, rows: &mut Rows) -> Result<()> {
        // Medians over every Java broker of every round.
        let broker_median = |implementation: &str, key: &str| -> Result<f64> {
            let mut v: Vec<f64> = self
                .of(implementation, "broker")
                .iter()
                .filter_map(|l| l.num(key))
                .collect();
            median(&mut v).ok_or_else(|| format!("{implementation}: no broker `{key}`"))
        };
        let broker_count = |implementation: &str| self.of(implementation, "broker").len();
        let (nk, nj) = (broker_count("kraft-rs"), broker_count("kafka"));
        if self.both("broker") {
            rows.add(
                format!(
                    "Java broker: process spawn -> unfenced (its log), median of {nk} / {nj} (s)"
                ),
                &|i| broker_median(i, "spawn_to_unfenced_s"),
                Some(("<=", 1.0)),
                2,
            )?;
            rows.add(
                "Java broker: registration sent (\"is now STARTING\") -> unfenced, median (s)"
                    .into(),
                &|i| broker_median(i, "starting_to_unfenced_s"),
                None,
                2,
            )?;
            rows.add(
                "Java broker: registration sent -> \"Successfully registered\", median (ms)".into(),
                &|i| Ok(broker_median(i, "starting_to_registered_s")? * 1000.0),
                None,
                0,
            )?;
            rows.add(
                "Java broker: \"Waiting for the broker to be unfenced\" -> unfenced, median (ms)"
                    .into(),
                &|i| Ok(broker_median(i, "ready_to_unfenced_s")? * 1000.0),
                None,
                0,
            )?;
            rows.add(
                "Java broker: \"Successfully registered\" -> \"The broker has caught up\", median (ms)"
                    .into(),
                &|i| {
                    let mut v: Vec<f64> = self.of(i, "broker")
                        .iter()
                        .filter_map(|l| {
                            Some(l.num("spawn_to_caught_up_s")? - l.num("spawn_to_registered_s")?)
                        })
                        .map(|s| s * 1000.0)
                        .collect();
                    median(&mut v).ok_or_else(|| format!("{i}: no caught-up times"))
                },
                None,
                0,
            )?;
            rows.add(
                "Java broker: process spawn -> registration sent (broker-side startup), median (s)"
                    .into(),
                &|i| broker_median(i, "spawn_to_starting_s"),
                None,
                2,
            )?;
            rows.add(
            "Java broker: process spawn -> its first log line (JVM start, no controller involved yet: a control), median (s)".into(),
            &|i| broker_median(i, "spawn_to_first_log_s"),
            None,
            2,
        )?;
        }
        Ok(())
    }

    /// Step 1: the CPU the machine spent during each round of Java brokers.
    fn java_broker_cpu(&self, rows: &mut Rows) -> Result<()> {
        let round_cpu = |implementation: &str, key: &str| -> Result<f64> {
            let mut v: Vec<f64> = self
                .of(implementation, "round_cpu")
                .iter()
                .filter(|l| l.num("round").is_some_and(|r| r >= 1.0))
                .filter_map(|l| l.num(key))
                .collect();
            median(&mut v).ok_or_else(|| format!("{implementation}: no round_cpu `{key}`"))
        };
        if self.both("round_cpu") {
            rows.add(
                "CPU during a round, spawn -> last unfence: the three brokers, median (s)".into(),
                &|i| round_cpu(i, "brokers_s"),
                None,
                2,
            )?;
            rows.add(
                "CPU during a round: the controllers of both quorums, median (s)".into(),
                &|i| round_cpu(i, "controllers_s"),
                None,
                2,
            )?;
            rows.add(
                "CPU during a round: everything else on the machine, median (s)".into(),
                &|i| round_cpu(i, "other_s"),
                None,
                2,
            )?;
        }
        Ok(())
    }

    /// Step 2: heartbeat round trips of 3 and then 50 fake brokers.
    fn heartbeats(&self, rows: &mut Rows) -> Result<()> {
        let phase = |implementation: &str, brokers: &str, key: &str| -> Result<f64> {
            self.of(implementation, "phase")
                .iter()
                .find(|l| l.get("brokers") == Some(brokers))
                .and_then(|l| l.num(key))
                .ok_or_else(|| format!("{implementation}: no phase brokers={brokers} `{key}`"))
        };
        for brokers in ["3", "50"] {
            if !self.both("phase") {
                break;
            }
            let p99_target = (brokers == "3").then_some(("<=", 0.5));
            rows.add(
                format!("heartbeat round trip p50, {brokers} fake brokers (us)"),
                &|i| phase(i, brokers, "p50_us"),
                None,
                0,
            )?;
            rows.add(
                format!("heartbeat round trip p99, {brokers} fake brokers (us)"),
                &|i| phase(i, brokers, "p99_us"),
                p99_target,
                0,
            )?;
            rows.add(
                format!("heartbeat round trip p99.9, {brokers} fake brokers (us)"),
                &|i| phase(i, brokers, "p999_us"),
                None,
                0,
            )?;
        }
        Ok(())
    }

    /// Step 3: the controllers' resident sets, threads and CPU while the fake
    /// brokers heartbeat.
    fn resident_sets(&self, rows: &mut Rows) -> Result<()> {
        // (active controller, mean of the three) VmRSS in MiB for a phase.
        let rss = |implementation: &str, brokers: &str| -> Result<(f64, f64)> {
            let procs: Vec<&BenchLine> = self
                .of(implementation, "proc")
                .into_iter()
                .filter(|l| l.get("brokers") == Some(brokers))
                .collect();
            let leader = self.leader_of.get(implementation).map(String::as_str);
            let active = procs
                .iter()
                .find(|l| l.get("name") == leader)
                .and_then(|l| l.num("rss_kb"))
                .ok_or_else(|| {
                    format!("{implementation}: no RSS of the leader, {brokers} brokers")
                })?;
            let all: Vec<f64> = procs.iter().filter_map(|l| l.num("rss_kb")).collect();
            if all.len() != 3 {
                return Err(format!(
                    "{implementation}: {} RSS samples with {brokers} brokers, want 3",
                    all.len()
                ));
            }
            Ok((active / 1024.0, all.iter().sum::<f64>() / 3.0 / 1024.0))
        };
        let active_proc = |implementation: &str, brokers: &str, key: &str| -> Result<f64> {
            let leader = self.leader_of.get(implementation).map(String::as_str);
            self.of(implementation, "proc")
                .into_iter()
                .find(|l| l.get("brokers") == Some(brokers) && l.get("name") == leader)
                .and_then(|l| l.num(key))
                .ok_or_else(|| format!("{implementation}: no `{key}` of the leader"))
        };
        for brokers in ["3", "50"] {
            if !self.both("proc") {
                break;
            }
            rows.add(
                format!("VmRSS, active controller, {brokers} registered brokers (MiB)"),
                &|i| Ok(rss(i, brokers)?.0),
                Some(("<=", 0.1)),
                1,
            )?;
            rows.add(
                format!("VmRSS, mean of the 3 controllers, {brokers} registered brokers (MiB)"),
                &|i| Ok(rss(i, brokers)?.1),
                Some(("<=", 0.1)),
                1,
            )?;
            rows.add(
                format!("threads, active controller, {brokers} registered brokers"),
                &|i| active_proc(i, brokers, "threads"),
                None,
                0,
            )?;
            rows.add(
                format!(
                    "CPU of the active controller while timing {brokers} brokers (% of a core)"
                ),
                &|i| active_proc(i, brokers, "cpu_pct"),
                None,
                1,
            )?;
        }
        Ok(())
    }

    /// Step 4 (and step 5's first calls): CreateTopics and DeleteTopics, through
    /// a Java broker's Admin client and straight to the active controller.
    fn topics(&self, rows: &mut Rows) -> Result<()> {
        // Topics through the Admin client (TopicBench.java), when the run had them.
        if self.both("create_single") {
            let n = self.topic_get("create_single", "n");
            rows.add(
                format!("CreateTopics via a broker's Admin client, 1 topic x 1 partition RF 3, p50 of {n} sequential calls (ms)"),
                &|i| self.topic_num(i, "create_single", "p50_ms"),
                Some(("<=", 0.5)),
                1,
            )?;
            rows.add(
                format!("CreateTopics, 1 topic x 1 partition RF 3, p99 of {n} (ms)"),
                &|i| self.topic_num(i, "create_single", "p99_ms"),
                Some(("<=", 0.5)),
                1,
            )?;
        }
        if self.both("create_paced") {
            let (n, pause) = (
                self.topic_get("create_paced", "n"),
                self.topic_get("create_paced", "pause_ms"),
            );
            rows.add(
                format!("CreateTopics via a broker's Admin client, 1 topic x 1 partition RF 3, one call every {pause} ms (the brokers done with the previous replica), p50 of {n} (ms)"),
                &|i| self.topic_num(i, "create_paced", "p50_ms"),
                Some(("<=", 0.5)),
                1,
            )?;
            rows.add(
                format!("CreateTopics via a broker, one call every {pause} ms, p99 of {n} (ms)"),
                &|i| self.topic_num(i, "create_paced", "p99_ms"),
                Some(("<=", 0.5)),
                1,
            )?;
        }
        if self.both("direct_create_batch") {
            let n = self.topic_get("direct_create_batch", "calls");
            rows.add(
                format!("CreateTopics v7 straight to the active controller (broker_load, no broker), 1 topic x 1 partition RF 3, p50 of {n} sequential calls (ms)"),
                &|i| self.topic_num(i, "direct_create_batch", "call_p50_ms"),
                Some(("<=", 0.5)),
                2,
            )?;
            rows.add(
                format!("CreateTopics straight to the active controller, 1 topic x 1 partition RF 3, p99 of {n} (ms)"),
                &|i| self.topic_num(i, "direct_create_batch", "call_p99_ms"),
                Some(("<=", 0.5)),
                2,
            )?;
        }
        if self.both("create_batch") {
            let (t, p, b, c) = (
                self.topic_get("create_batch", "topics"),
                self.topic_get("create_batch", "partitions"),
                self.topic_get("create_batch", "batch"),
                self.topic_get("create_batch", "calls"),
            );
            rows.add(
                format!("CreateTopics via a broker, {t} topics x {p} partitions RF 3 in {c} calls of {b}, total wall time (s)"),
                &|i| self.topic_num(i, "create_batch", "total_s"),
                Some(("<=", 0.5)),
                2,
            )?;
        }
        if self.both("delete_batch") {
            let t = self.topic_get("delete_batch", "topics");
            rows.add(
                format!("DeleteTopics of those {t} topics, total wall time (s)"),
                &|i| self.topic_num(i, "delete_batch", "total_s"),
                None,
                2,
            )?;
        }
        Ok(())
    }

    /// Step 4: a broker holding partitions killed, until its partitions are
    /// led elsewhere.
    fn failover(&self, rows: &mut Rows) -> Result<()> {
        if self.both("failover") {
            let session_s = self.topic_num("kraft-rs", "failover", "session_ms")? / 1000.0;
            // The median over the samples (one per kill -9).
            let failover_median = |implementation: &str, key: &str| -> Result<f64> {
                let mut v: Vec<f64> = self
                    .of(implementation, "failover")
                    .into_iter()
                    .filter_map(|l| l.num(key))
                    .collect();
                median(&mut v).ok_or_else(|| format!("{implementation}: no failover `{key}`"))
            };
            let samples = self.of("kraft-rs", "failover").len();
            rows.add(
                format!("failover: kill -9 of a leading broker -> all its partitions led elsewhere, session timeout ({session_s} s) included, median of {samples} (s)"),
                &|i| failover_median(i, "kill_to_all_s"),
                Some(("<=", 1.0)),
                3,
            )?;
            rows.add(
                "failover: the same, minus the session timeout (s)".into(),
                &|i| Ok(failover_median(i, "kill_to_all_s")? - session_s),
                None,
                3,
            )?;
        }
        Ok(())
    }

    /// Step 4: the controllers' resident sets while the topics exist on the
    /// Java brokers.
    fn partitions_on_java_brokers(&self, rows: &mut Rows) -> Result<()> {
        // The active controller is known from the fake-broker phases.
        if self.both("proc_partitions") && self.leader_of.len() == IMPLS.len() {
            let n = self.topic_get("proc_partitions", "partitions");
            rows.add(
                format!("VmRSS, active controller, {n} partitions RF 3 on 3 Java brokers (MiB)"),
                &|i| self.partitions_proc(i, "rss_kb", true),
                Some(("<=", 0.2)),
                1,
            )?;
            rows.add(
                format!("VmRSS, mean of the 3 controllers, {n} partitions (MiB)"),
                &|i| self.partitions_proc(i, "rss_kb", false),
                Some(("<=", 0.2)),
                1,
            )?;
        }
        Ok(())
    }

    /// Step 5: many partitions on fake brokers, the Admin client on the
    /// controllers (big_* lines; `role` says which controller was active).
    fn many_partitions(&self, rows: &mut Rows) -> Result<()> {
        let big_proc = |implementation: &str, key: &str, active: bool| -> Result<f64> {
            let v: Vec<f64> = self
                .of(implementation, "big_proc")
                .into_iter()
                .filter(|l| !active || l.get("role") == Some("active"))
                .filter_map(|l| l.num(key))
                .collect();
            if v.is_empty() {
                return Err(format!("{implementation}: no big_proc `{key}`"));
            }
            Ok(v.iter().sum::<f64>() / v.len() as f64 / 1024.0)
        };
        let big_num = |implementation: &str, kind: &str, key: &str, active: bool| -> Result<f64> {
            self.of(implementation, kind)
                .into_iter()
                .find(|l| !active || l.get("role") == Some("active"))
                .and_then(|l| l.num(key))
                .ok_or_else(|| format!("{implementation}: no {kind} `{key}`"))
        };
        if self.both("big_create_batch") {
            let (t, p, b, c) = (
                self.topic_get("big_create_batch", "topics"),
                self.topic_get("big_create_batch", "partitions"),
                self.topic_get("big_create_batch", "batch"),
                self.topic_get("big_create_batch", "calls"),
            );
            let brokers = self.topic_get("big_ready", "brokers");
            rows.add(
                format!("CreateTopics v7 straight to the active controller (broker_load, no broker), {t} topics x {p} partitions RF 3 on {brokers} fake brokers in {c} calls of {b}, total wall time (s)"),
                &|i| big_num(i, "big_create_batch", "total_s", false),
                None,
                3,
            )?;
        }
        if self.both("big_proc") {
            let n = self.topic_get("big_proc", "partitions");
            rows.add(
                format!("VmRSS, active controller, {n} partitions RF 3 on fake brokers (MiB)"),
                &|i| big_proc(i, "rss_kb", true),
                Some(("<=", 0.2)),
                1,
            )?;
            rows.add(
                format!("VmRSS, mean of the 3 controllers, {n} partitions (MiB)"),
                &|i| big_proc(i, "rss_kb", false),
                Some(("<=", 0.2)),
                1,
            )?;
            rows.add(
                format!("active controller, {n} partitions: kraft-rs VmRSS against Kafka's heap used after GC (MiB)"),
                &|i| {
                    let key = if i == "kafka" { "heap_used_after_gc_kb" } else { "rss_kb" };
                    big_proc(i, key, true)
                },
                Some(("<=", 0.2)),
                1,
            )?;
        }
        if self.both("big_snapshot") {
            let n = self.topic_get("big_snapshot", "partitions");
            rows.add(
                format!(
                    "newest snapshot of the active controller after creating {n} partitions (MiB)"
                ),
                &|i| Ok(big_num(i, "big_snapshot", "bytes", true)? / 1024.0 / 1024.0),
                None,
                2,
            )?;
        }
        if self.both("big_load") {
            let n = self.topic_get("big_load", "partitions");
            rows.add(
                format!("load time at {n} partitions: follower restarted (SIGTERM, same data), spawn -> caught up with the leader (s)"),
                &|i| big_num(i, "big_load", "spawn_to_caught_up_s", false),
                None,
                3,
            )?;
        }
        if self.both("big_reassign_batch") {
            let n = self.topic_get("big_reassign_batch", "partitions");
            rows.add(
                format!("AlterPartitionReassignments of {n} partitions in one call, straight to the active controller (s)"),
                &|i| big_num(i, "big_reassign_batch", "alter_s", false),
                Some(("<=", 0.5)),
                3,
            )?;
            rows.add(
                format!("ListPartitionReassignments of everything, {n} in progress (s)"),
                &|i| big_num(i, "big_reassign_batch", "list_s", false),
                Some(("<=", 0.5)),
                3,
            )?;
            rows.add(
                format!("cancelling those {n} reassignments in one call (s)"),
                &|i| big_num(i, "big_reassign_batch", "cancel_s", false),
                None,
                3,
            )?;
        }
        if self.both("big_reassign_proc") {
            let n = self.topic_get("big_reassign_proc", "partitions");
            rows.add(
                format!("VmRSS, active controller, after reassigning and cancelling {n} partitions (MiB)"),
                &|i| Ok(big_num(i, "big_reassign_proc", "rss_kb", true)? / 1024.0),
                Some(("<=", 0.2)),
                1,
            )?;
        }
        if self.both("big_delete_batch") {
            let t = self.topic_get("big_delete_batch", "topics");
            rows.add(
                format!("DeleteTopics of those {t} topics, straight to the active controller, total wall time (s)"),
                &|i| big_num(i, "big_delete_batch", "total_s", false),
                None,
                3,
            )?;
        }
        Ok(())
    }

    /// `key` of `implementation`'s first `kind` line.
    fn topic_num(&self, implementation: &str, kind: &str, key: &str) -> Result<f64> {
        self.of(implementation, kind)
            .first()
            .and_then(|l| l.num(key))
            .ok_or_else(|| format!("{implementation}: no {kind} `{key}`"))
    }

    /// `key` of kraft-rs's first `kind` line, "?" when it has none.
    fn topic_get(&self, kind: &str, key: &str) -> String {
        self.of("kraft-rs", kind)
            .first()
            .and_then(|l| l.get(key))
            .unwrap_or("?")
            .to_string()
    }

    /// The mean of `key` (KiB) over the `proc_partitions` lines, in MiB: of the
    /// active controller alone if `active`.
    fn partitions_proc(&self, implementation: &str, key: &str, active: bool) -> Result<f64> {
        let leader = self.leader_of.get(implementation).map(String::as_str);
        let v: Vec<f64> = self
            .of(implementation, "proc_partitions")
            .into_iter()
            .filter(|l| !active || l.get("name") == leader)
            .filter_map(|l| l.num(key))
            .collect();
        if v.is_empty() {
            return Err(format!("{implementation}: no proc_partitions `{key}`"));
        }
        Ok(v.iter().sum::<f64>() / v.len() as f64 / 1024.0)
    }
}
