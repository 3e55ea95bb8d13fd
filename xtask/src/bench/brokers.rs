//! `cargo xtask bench-brokers`: a kraft-rs 3-controller quorum against a
//! Java Kafka 4.4 one serving brokers (not in `ci`); writes
//! `docs/benchmarks-brokers.md`.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use super::line::{median, BenchLine};
use crate::{root, run, Result};

const IMPLS: [&str; 2] = ["kraft-rs", "kafka"];

/// One row of the results table:
/// (what, kraft-rs, Kafka, target on kraft-rs/Kafka as (op, bound), decimals).
type Row = (String, f64, f64, Option<(&'static str, f64)>, usize);

/// A kraft-rs 3-controller quorum against a Java Kafka 4.4 3-controller
/// quorum serving brokers, in one run (`tests/interop/bench-brokers.sh`,
/// load generator `crates/controller/examples/broker_load.rs`): real Java
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

    /// Every controller process: role, RSS and threads in each state.
    fn controllers_table(&self) -> String {
        let mut procs = String::from(
            "| implementation | node | role | VmRSS, 3 Java brokers (MiB) | VmRSS, 3 fake (MiB) | VmRSS, 50 fake (MiB) | max VmRSS, 50 fake (MiB) | threads (3 Java / 3 fake / 50 fake) |\n|---|---|---|---:|---:|---:|---:|---|\n",
        );
        for implementation in IMPLS {
            let last_round = self
                .of(implementation, "proc_java_brokers")
                .iter()
                .filter_map(|l| l.get("round"))
                .max()
                .map(str::to_string);
            for node in ["1", "2", "3"] {
                let java = self
                    .of(implementation, "proc_java_brokers")
                    .into_iter()
                    .find(|l| {
                        l.get("name") == Some(node) && l.get("round") == last_round.as_deref()
                    });
                let fake = |brokers: &str| {
                    self.of(implementation, "proc")
                        .into_iter()
                        .find(|l| l.get("name") == Some(node) && l.get("brokers") == Some(brokers))
                };
                let mib = |l: Option<&BenchLine>, key: &str| {
                    l.and_then(|l| l.num(key))
                        .map_or("?".to_string(), |kb| format!("{:.1}", kb / 1024.0))
                };
                let threads = |l: Option<&BenchLine>| {
                    l.and_then(|l| l.get("threads")).unwrap_or("?").to_string()
                };
                let role = if self.leader_of.get(implementation).map(String::as_str) == Some(node) {
                    "active"
                } else {
                    "follower"
                };
                procs.push_str(&format!(
                    "| {implementation} | {node} | {role} | {} | {} | {} | {} | {} / {} / {} |\n",
                    mib(java, "rss_kb"),
                    mib(fake("3"), "rss_kb"),
                    mib(fake("50"), "rss_kb"),
                    mib(fake("50"), "rss_max_kb"),
                    threads(java),
                    threads(fake("3")),
                    threads(fake("50")),
                ));
            }
        }
        procs
    }

    /// The document: the machine, the settings, what each step measured, the
    /// tables and the raw lines.
    fn document(
        &self,
        wall: f64,
        table: &str,
        procs: &str,
        verdict: &str,
        java_heap: &str,
    ) -> String {
        let (cpu, mem_gib, disk) = machine();
        let kafka_jvm = self.of("kafka", "jvm");
        let jvm_flags = kafka_jvm
            .first()
            .and_then(|l| l.get("flags"))
            .unwrap_or("?")
            .replace(',', " ");
        let java = kafka_jvm
            .first()
            .and_then(|l| l.get("java"))
            .unwrap_or("?")
            .to_string();
        let settings = self.of("kraft-rs", "settings");
        let setting = |key: &str| {
            settings
                .first()
                .and_then(|l| l.get(key))
                .unwrap_or("?")
                .to_string()
        };
        let phase_line = |implementation: &str, brokers: &str| {
            self.of(implementation, "phase")
                .into_iter()
                .find(|l| l.get("brokers") == Some(brokers))
        };
        let p3 = phase_line("kraft-rs", "3");
        let pf = |l: Option<&BenchLine>, key: &str| {
            l.and_then(|l| l.get(key)).unwrap_or("?").to_string()
        };
        let samples = |brokers: &str| {
            IMPLS
                .iter()
                .map(|i| {
                    let l = phase_line(i, brokers);
                    format!(
                        "{i} {} samples, {} errors",
                        pf(l, "samples"),
                        pf(l, "errors")
                    )
                })
                .collect::<Vec<_>>()
                .join("; ")
        };
        let quorum_start = |implementation: &str| {
            self.of(implementation, "quorum")
                .first()
                .and_then(|l| l.get("start_s"))
                .unwrap_or("?")
                .to_string()
        };
        let timeouts = |implementation: &str| {
            self.of(implementation, "controller_logs")
                .first()
                .and_then(|l| l.get("heartbeat_timeouts"))
                .unwrap_or("?")
                .to_string()
        };
        let raw: Vec<&str> = self.lines.iter().map(|l| l.raw.as_str()).collect();
        let snapshot_interval = setting("metadata.log.max.snapshot.interval.ms");
        let big_interval = self
            .of("kraft-rs", "big_ready")
            .first()
            .and_then(|l| l.get("interval_ms"))
            .unwrap_or("?")
            .to_string();
        let big_brokers = self
            .of("kraft-rs", "big_ready")
            .first()
            .and_then(|l| l.get("brokers"))
            .unwrap_or("?")
            .to_string();
        format!(
            "# Brokers on kraft-rs controllers against Kafka 4.4's own controllers\n\n\
             Generated by `cargo xtask bench-brokers` (do not edit by hand). One run of \
             `tests/interop/bench-brokers.sh` measured a kraft-rs 3-controller quorum and a Java Kafka 4.4.0 \
             3-controller quorum on the same machine: both quorums run for the whole run, one is measured \
             while the other idles, the rounds of Java brokers take turns in ABBA order (kraft-rs first) and \
             the fake-broker phases run kraft-rs first (wall time {wall:.0} s including the release builds).\n\n\
             Date: {}. Machine: {} CPUs (`nproc`), {cpu}, {mem_gib} GiB RAM, kernel {} (`uname -r`); {disk}; \
             {}; Java {java}. Loopback only. Shared machine: other work may have run at the same time, and \
             repeated runs differ by about ±30%, so every figure is a median or a percentile of one run; \
             read ratios near a target as undecided.\n\n\
             Settings, equal on both sides: `broker.session.timeout.ms={}` and `broker.heartbeat.interval.ms={}` \
             (Kafka's defaults) on every controller and broker; clusters formatted with `--release-version {}`. \
             kraft-rs controllers: `kraft storage format --initial-controllers` + `kraft server` \
             (release build, `KRAFT_LOG=info`); quorum ready {} s after start. Java controllers: \
             `kafka-quorum.sh start` (format, start, wait for a leader and the three controller \
             registrations: {} s), and the Java brokers of both runs, with kafka-quorum.sh's JVM flags \
             `{jvm_flags}`: a 64 MiB initial / 320 MiB maximum heap with the serial collector and C1 only, \
             smaller and quicker to start than `kafka-server-start.sh`'s `-Xmx1G -Xms1G` with G1 (so Kafka's \
             RSS here is lower than a default production start would show).\n\n\
             What is measured:\n\n\
             1. Broker start to unfenced: {} untimed warm-up round(s), then {} rounds, of three unmodified \
             Java 4.4.0 brokers (`kafka-quorum.sh format-broker` afresh, then `kafka-quorum.sh run-node` for \
             the three at once, as `brokers.sh` starts them) on each quorum. The event is the broker's own `BrokerLifecycleManager` line \"The broker has been \
             unfenced. Transitioning from RECOVERY to RUNNING.\" (logged when the heartbeat answer that \
             unfenced it arrives; millisecond timestamps), measured from the moment the script spawned the \
             process; `kafka-cluster list-endpoints --include-fenced-brokers` then confirmed the three \
             unfenced in every round. \"Registration sent\" is \"Incarnation ... is now STARTING.\", logged \
             right after the broker hands its BrokerRegistration to its controller channel (the channel's \
             \"Recorded new KRaft controller\" follows within a millisecond); \"Waiting for the broker to be \
             unfenced\" is logged by `BrokerServer` once it called `setReadyToUnfence`, which sends the \
             heartbeat with `WantFence=false` at once, so that interval is one unfencing heartbeat: request, \
             UNFENCE record committed, answer (or the wait for a heartbeat already in flight; a fast answer can \
             be logged a few ms before the line, a negative interval). Most of spawn -> unfenced is the broker JVM's own start \
             on two cores shared by three brokers; spawn -> first log line involves no controller at all and \
             shows how much two sets of rounds differ without one. CPU per round (spawn to the last unfence): \
             the machine's busy time from `/proc/stat` (both cores), the controllers of both quorums and the \
             brokers from `/proc/PID/stat`; \"everything else\" is the rest (this script, and whatever else \
             ran on the shared machine).\n\
             2. Heartbeat round trips: `crates/controller/examples/broker_load.rs` (tokio, one thread, \
             `kraft_protocol` frames) registers fake brokers with BrokerRegistration v4 as a Java broker \
             fills it (cluster id, fresh incarnation, one PLAINTEXT listener, `BrokerFeatures.createDefault` \
             feature ranges, one log directory, no rack), each on its own connection to the active \
             controller (the one that does not answer NOT_CONTROLLER), and sends BrokerHeartbeat v2 \
             (`WantFence=false`, `CurrentMetadataOffset` ahead of its registration, `CordonedLogDirs=[]` \
             once caught up) every {} ms per broker, faster than the 2 s a Java broker waits, for more \
             samples (the same on both sides), the brokers' send times spread over the interval. A sample \
             is one request write to the last byte of its answer, nothing retried; an error answer would \
             be counted, not timed. 3 brokers for {} s, then 50 (the first 3 still running) for {} s, each \
             after every broker was unfenced and {} s of warm-up: {} with 3 brokers; {} with 50. All fake \
             brokers are unregistered at the end (UnregisterBroker), as the Java brokers 4-6 were before.\n\
             3. Resident sets: `VmRSS` and `Threads` of each controller process from `/proc/PID/status`, \
             sampled twice a second; the figure is the median of the samples taken while a phase was \
             timed (3 and 50 registered fake brokers, heartbeating), plus one reading one second after the \
             last round of Java brokers was unfenced. CPU is utime+stime over the timed window.\n\
             4. Topics (`tests/interop/kafka-quorum/src/main/java/org/kraftrs/interop/TopicBench.java`, \
             Kafka 4.4's `Admin` client bootstrapped on three fresh Java brokers per quorum, after the \
             rounds above): `createTopics(...).all().get()` timed per call, after 5 untimed calls, for \
             one topic of 1 partition RF 3 at a time (the broker forwards each CreateTopics to the active \
             controller; there is no row without a broker: Kafka 4.4's Admin client bootstrapped with \
             `bootstrap.controllers` fails `createTopics` itself with `UnsupportedEndpointTypeException`, \
             \"not yet supported when communicating directly with the controller quorum\", without \
             sending it, on either implementation); then the failover below, the killed broker \
             restarted and unfenced again; then the topics of the batch row in sequential calls, and \
             their deletion (`deleteTopics`, same batches). The failover runs before the batch: in a \
             trial run it ran after it, on brokers still busy with 30,000 fresh replicas on the shared \
             two cores, and on Kafka's quorum the followers had dropped out of the ISR of the victim's \
             partitions, which then had no eligible leader for 120 s. While they exist, 3 s after the \
             last call, each controller's `VmRSS` is read once; for Kafka also the heap used after \
             `jcmd PID GC.run` (`GC.heap_info`, serial collector: young + tenured used): active \
             controller {java_heap} MiB. Failover, repeated (each sample once every one-partition topic \
             has its 3 replicas in its ISR again, the previous victim restarted and unfenced; the row is \
             the median): TopicBench picks the broker leading most of the \
             one-partition topics, SIGKILLs it (`ProcessHandle.destroyForcibly`) and polls \
             `describeTopics` through the Admin client with no pause (retry backoff 10 ms) until every \
             partition it led shows another leader; the controller only learns of the death when the \
             session timeout expires, counted from the broker's last heartbeat, which came up to one \
             heartbeat interval before the kill, so one failover is between the session timeout minus \
             the heartbeat interval and the session timeout, plus the controller's fencing, election \
             and the metadata reaching the surviving broker that answered; the \"minus\" row can be \
             negative, and each sample carries up to a heartbeat interval of chance. kraft-rs checks the \
             sessions just after the first one expires (and at least every eighth of the timeout); Kafka \
             checks every eighth of the timeout, so it fences up to that much later.\n\
             5. Many partitions (last, on each quorum in turn): {big_brokers} fake brokers (`broker_load \
             --hold`: registered, unfenced and heartbeating every {big_interval} ms; Java brokers could not host that \
             many replicas on this machine); first one-topic CreateTopics of 1 partition RF 3, one at a \
             time, straight to the active controller by `broker_load` (each call from its request written \
             to its answer read; the answer comes once the records are committed and applied: the \
             controller's own latency, without a Java broker's forwarding and Admin client in front), \
             deleted again; then the topics of the \"straight to the active controller\" row, \
             created by `broker_load --create-topics` (CreateTopics v7 as Kafka's Admin client fills it, \
             RF 3, sent to the controller that does not answer NOT_CONTROLLER; no Admin client, see 4.); \
             then the script waits \
             until every controller has written a snapshot at or past the high watermark after the \
             creation (`metadata.log.max.snapshot.interval.ms={snapshot_interval}` on every controller of \
             both quorums for the whole run, as Kafka's default of an hour would not snapshot in time and \
             the image stays below the 20 MiB `metadata.log.max.record.bytes.between.snapshots`), reads \
             each controller's `VmRSS` 2 s later (for Kafka also the heap used after `jcmd PID GC.run`) \
             and the size of each controller's newest `*.checkpoint`; then stops one follower (SIGTERM) \
             and, 1.5 s later (the leader may still complete its last long-poll Fetch), starts it again \
             on the same data, polling `kraft metadata-quorum describe --replication` \
             with no pause until the leader reports it a Follower whose LastCaughtUpTimestamp is after the \
             spawn (its log read back and caught up with the leader's); then deletes the topics and \
             unregisters the fake brokers.\n\n\
             {table}\n\
             Targets (issue): a Java broker unfenced no later on kraft-rs than on Kafka (ratio <= 1); \
             heartbeat p99 with 3 brokers at most 0.5x Kafka's; controller RSS at most 0.1x Kafka's, with 3 \
             and with 50 brokers; CreateTopics at least 2x faster (ratio <= 0.5); failover no slower at \
             equal session timeouts (ratio <= 1); controller RSS with many partitions at most 0.2x \
             (against Kafka's RSS and against its heap used after GC); snapshot size and load time \
             without a target. {verdict}\n\n\
             Controllers (active = the one the fake brokers heartbeated to):\n\n\
             {procs}\n\
             Controller log lines \"Timed out heartbeat\" (a heartbeat not processed within half the \
             heartbeat interval): kraft-rs {}, Kafka {}.\n\n\
             Command: `cargo xtask bench-brokers` (environment knobs in `tests/interop/bench-brokers.sh`).\n\n\
             Raw lines (`target/bench-brokers/results.txt`):\n\n```text\n{}\n```\n",
            first_line("date", &["-u", "+%Y-%m-%d %H:%M UTC"]),
            first_line("nproc", &[]),
            first_line("uname", &["-r"]),
            first_line("rustc", &["-V"]),
            setting("broker.session.timeout.ms"),
            setting("broker.heartbeat.interval.ms"),
            setting("release_version"),
            quorum_start("kraft-rs"),
            quorum_start("kafka"),
            self.of("kraft-rs", "broker_warmup").len() / 3,
            self.of("kraft-rs", "broker").len() / 3,
            pf(p3, "interval_ms"),
            pf(p3, "seconds"),
            pf(phase_line("kraft-rs", "50"), "seconds"),
            pf(p3, "warmup_s"),
            samples("3"),
            samples("50"),
            timeouts("kraft-rs"),
            timeouts("kafka"),
            raw.join("\n"),
        )
    }
}

/// The results table, and the rows whose target was missed.
fn results_table(rows: &[Row]) -> (String, Vec<String>) {
    let mut table = String::from(
        "| metric | kraft-rs | Kafka 4.4 | kraft-rs/Kafka | target | met |\n|---|---:|---:|---:|---|---|\n",
    );
    let mut missed = Vec::new();
    for (what, a, b, target, decimals) in rows {
        let ratio = a / b;
        let (t, met) = match target {
            Some((op, t)) => {
                let ok = if *op == "<=" {
                    ratio <= *t
                } else {
                    ratio >= *t
                };
                if !ok {
                    missed.push(what.clone());
                }
                (format!("{op} {t}"), if ok { "yes" } else { "NO" })
            }
            None => ("-".into(), "-"),
        };
        table.push_str(&format!(
            "| {what} | {a:.decimals$} | {b:.decimals$} | {ratio:.3} | {t} | {met} |\n"
        ));
    }
    (table, missed)
}

/// The CPU, the memory and the disk under the data directories, for the
/// document.
fn machine() -> (String, String, String) {
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let cpu = cpuinfo
        .lines()
        .find(|l| l.starts_with("model name"))
        .and_then(|l| l.split_once(':'))
        .map_or("unknown CPU".to_string(), |(_, v)| v.trim().to_string());
    let meminfo = std::fs::read_to_string("/proc/meminfo").unwrap_or_default();
    let mem_gib = meminfo
        .lines()
        .find(|l| l.starts_with("MemTotal:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|kb| kb.parse::<f64>().ok())
        .map_or("?".to_string(), |kb| format!("{:.1}", kb / 1024.0 / 1024.0));
    let tmp = std::env::temp_dir().display().to_string();
    let mount = first_line("findmnt", &["-no", "SOURCE,FSTYPE", "-T", &tmp]);
    let device = mount.split_whitespace().next().unwrap_or("").to_string();
    let name = device.trim_start_matches("/dev/").to_string();
    let size = first_line("lsblk", &["-dno", "SIZE", &device]);
    let rotational = std::fs::read_to_string(format!("/sys/block/{name}/queue/rotational"))
        .map_or("?".to_string(), |s| s.trim().to_string());
    let disk = format!(
        "data directories under `{tmp}` on {mount} ({size}, `/sys/block/{name}/queue/rotational` = {rotational}; a virtual disk, its backing store is not visible from the guest)"
    );
    (cpu, mem_gib, disk)
}

/// The first line of what a command prints (its stdout, then its stderr),
/// trimmed.
fn first_line(program: &str, args: &[&str]) -> String {
    Command::new(program)
        .args(args)
        .output()
        .map(|o| {
            let mut s = String::from_utf8_lossy(&o.stdout).into_owned();
            s.push_str(&String::from_utf8_lossy(&o.stderr));
            s.lines().next().unwrap_or("").trim().to_string()
        })
        .unwrap_or_else(|e| format!("({program}: {e})"))
}
