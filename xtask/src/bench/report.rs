//! The document `cargo xtask bench` writes, `docs/benchmarks.md`: every
//! section's text and tables, and the sections without figures.

use std::fmt::Write as _;
use std::path::Path;

use super::chart::{cdf, chart, Chart};
use super::{first_line, fmt, quantile, ratio, Fact, Facts, COLORS, IMPLS};
use crate::Result;

/// Every commit latency sample (µs) of `implementation` in the sample
/// files under `samples` that `facts` name, sorted.
pub(super) fn commit_samples(facts: &Facts, samples: &Path, implementation: &str) -> Vec<f64> {
    let mut all = Vec::new();
    for f in facts.of(implementation, "commit") {
        if let Ok(text) = std::fs::read_to_string(samples.join(f.text("samples"))) {
            all.extend(
                text.lines()
                    .filter_map(|l| l.split_whitespace().nth(1))
                    .filter_map(|v| v.parse::<f64>().ok()),
            );
        }
    }
    all.sort_by(f64::total_cmp);
    all
}

/// One run's facts, sample files and figures, as the document reads them.
pub(super) struct Report<'a> {
    pub(super) facts: &'a Facts,
    pub(super) samples: &'a Path,
    pub(super) rss: &'a Path,
    pub(super) codec: &'a [String],
    pub(super) io: &'a [Vec<String>],
    pub(super) quick: bool,
}

impl Report<'_> {
    fn impls(&self) -> Vec<(&'static str, &'static str)> {
        IMPLS
            .iter()
            .copied()
            .filter(|(i, _)| self.facts.0.iter().any(|f| f.implementation == *i))
            .collect()
    }

    /// Every commit latency sample (µs) of one implementation, sorted.
    fn commit_samples(&self, implementation: &str) -> Vec<f64> {
        commit_samples(self.facts, self.samples, implementation)
    }

    /// fsync + round trip (µs) per floor sample, sorted.
    fn floor_samples(&self) -> Vec<f64> {
        let mut all: Vec<f64> = std::fs::read_to_string(self.samples.join("floor.txt"))
            .unwrap_or_default()
            .lines()
            .filter_map(|l| {
                let mut w = l.split_whitespace().filter_map(|v| v.parse::<f64>().ok());
                Some(w.next()? + w.next()?)
            })
            .collect();
        all.sort_by(f64::total_cmp);
        all
    }

    /// The floor samples pooled in `file`: fsync µs, round trip µs and
    /// majority-of-three fsync µs, each sorted.
    fn floor_parts(&self, file: &str) -> [Vec<f64>; 3] {
        let mut parts = [Vec::new(), Vec::new(), Vec::new()];
        for l in std::fs::read_to_string(self.samples.join(file))
            .unwrap_or_default()
            .lines()
        {
            let w: Vec<f64> = l
                .split_whitespace()
                .filter_map(|v| v.parse().ok())
                .collect();
            for (part, v) in parts.iter_mut().zip(w) {
                part.push(v);
            }
        }
        for p in &mut parts {
            p.sort_by(f64::total_cmp);
        }
        parts
    }

    /// Sections with no figure for some implementation.
    pub(super) fn missing(&self) -> Vec<String> {
        let mut missing = Vec::new();
        let f = self.facts;
        if f.of("machine", "floor").next().is_none() {
            missing.push("floor".to_string());
        }
        for (i, _) in self.impls() {
            for (kind, key) in [
                ("idle", "rss_kb"),
                ("commit", "p50_us"),
                ("throughput", "topics_per_s"),
                ("cold", "spawn_to_leader_ms"),
                ("catchup", "spawn_to_caught_up_s"),
                ("voter", "command_s"),
                ("big_proc", "rss_kb"),
            ] {
                if f.median(i, kind, key).is_none() {
                    missing.push(format!("{kind} ({i})"));
                }
            }
            for sig in ["KILL", "TERM"] {
                if f.median_where(i, "failover", "to_first_commit_ms", |x| {
                    x.text("signal") == sig
                })
                .is_none()
                {
                    missing.push(format!("failover SIG{sig} ({i})"));
                }
            }
        }
        for i in ["kraft-rs", "kafka"] {
            if f.median(i, "tool", "wall_s").is_none() {
                missing.push(format!("tools ({i})"));
            }
        }
        // The quorums over TLS and SASL_SSL the run line names.
        let secured = f
            .of("machine", "run")
            .next()
            .and_then(|r| r.get("tls_impls"))
            .unwrap_or_default()
            .to_string();
        for i in secured.split(',').filter(|i| !i.is_empty()) {
            for (kind, key) in [
                ("idle", "rss_kb"),
                ("commit", "p50_us"),
                ("throughput", "topics_per_s"),
            ] {
                if f.median(i, kind, key).is_none() {
                    missing.push(format!("{kind} ({i})"));
                }
            }
        }
        if !self.quick {
            for (i, _) in self
                .impls()
                .into_iter()
                .filter(|(i, _)| ["kraft-rs", "kafka"].contains(i))
            {
                for kind in ["log", "snapshot"] {
                    if f.median_where(i, "catchup_over", "spawn_to_caught_up_s", |x| {
                        x.text("kind") == kind
                    })
                    .is_none()
                    {
                        missing.push(format!("catchup over the {kind} ({i})"));
                    }
                }
            }
        }
        if !self.quick {
            for (i, _) in self.impls() {
                if f.median(i, "raft", "bytes_per_s").is_none() {
                    missing.push(format!("raft ({i})"));
                }
            }
            if f.median("machine", "disk", "write_3_bytes_per_s").is_none() {
                missing.push("raft (the disk's write ceiling)".into());
            }
        }
        if self.codec.len() < 3 {
            missing.push("codec".into());
        }
        if self.io.len() < 2 {
            missing.push("I/O thread".into());
        }
        missing
    }

    /// The `catchup_over` table: a new observer's catch-up over a large log
    /// and over a snapshot, on quorums of their own.
    fn catchup_over(&self, doc: &mut String, impls: &[(&'static str, &'static str)]) {
        let f = self.facts;
        let ran: Vec<_> = impls
            .iter()
            .filter(|(i, _)| f.of(i, "catchup_over").next().is_some())
            .collect();
        let _ = writeln!(
            doc,
            "### Catch-up of a new observer over a large log and over a snapshot\n"
        );
        if ran.is_empty() {
            doc.push_str(
                "Not run: the `catchup` section of `bench.sh` runs in the full run only \
                 (not `--quick`).\n\n",
            );
            return;
        }
        let target = f
            .of(ran[0].0, "catchup_over")
            .find_map(|x| x.num("target_bytes"));
        let _ = writeln!(
            doc,
            "Each implementation on fresh 3-controller quorums of its own, its log written by itself \
             with the same workload: rounds of 900 topics x 100 partitions (RF 3, on 3 fake brokers \
             held by `broker_load --hold`) created 90 topics a call and deleted in one call, so that \
             the log grows by real PartitionRecords while the image stays small. Over the log: \
             `metadata.max.retention.bytes=-1`, `metadata.max.retention.ms=-1`, no snapshot by \
             bytes or time, grown to {} bytes (`BENCH_CATCHUP_BYTES`). Over a snapshot: 8 MiB \
             segments, a snapshot every 16 MiB of records, 16 MiB retention, rounds until the \
             oldest segment's base offset (the log start) is above 0, then 100 topics x 100 \
             partitions kept (in the tail and the image); where the last snapshot falls (its size, \
             the records after it that the observer fetches as log) is each implementation's own \
             trigger's doing. Then controller 4 formatted with \
             `--no-initial-controllers` and spawned: from its spawn to `describe --replication` \
             showing it an Observer whose LastCaughtUpTimestamp is after the spawn (polled with no \
             pause; Kafka's figure includes its JVM start), and its `VmRSS` then. Grow: the time \
             the implementation took to write that log.\n\n\
             | implementation | over | log bytes | snapshot bytes | log start offset | records after the snapshot | spawn to caught-up, s | MiB/s of log | observer RSS, MiB | grow, s |\n\
             |---|---|---:|---:|---:|---:|---:|---:|---:|---:|",
            fmt(target)
        );
        let get = |i: &str, kind: &str, key: &str| {
            f.median_where(i, "catchup_over", key, |x| x.text("kind") == kind)
        };
        for (i, label) in &ran {
            for kind in ["log", "snapshot"] {
                if f.of(i, "catchup_over").all(|x| x.text("kind") != kind) {
                    continue;
                }
                let _ = writeln!(
                    doc,
                    "| {label} | {kind} | {} | {} | {} | {} | {} | {} | {} | {} |",
                    fmt(get(i, kind, "log_bytes")),
                    fmt(get(i, kind, "snapshot_bytes")),
                    fmt(get(i, kind, "log_start_offset")),
                    fmt(get(i, kind, "tail_records")),
                    fmt(get(i, kind, "spawn_to_caught_up_s")),
                    fmt(get(i, kind, "bytes_per_s").map(|x| x / 1_048_576.0)),
                    fmt(get(i, kind, "rss_kb").map(|x| x / 1024.0)),
                    fmt(get(i, kind, "grow_s")),
                );
            }
        }
        let r =
            |kind: &str, key: &str| fmt(ratio(get("kraft-rs", kind, key), get("kafka", kind, key)));
        let _ = writeln!(
            doc,
            "\nours / Kafka: spawn to caught-up over the log {}, over a snapshot {}; observer RSS \
             over the log {}, over a snapshot {}; time to write the log {}.\n",
            r("log", "spawn_to_caught_up_s"),
            r("snapshot", "spawn_to_caught_up_s"),
            r("log", "rss_kb"),
            r("snapshot", "rss_kb"),
            r("log", "grow_s"),
        );
    }

    /// The `raft` table: the raft layer driven directly, kraft-rs's
    /// `raft_perf` against Kafka's `TestRaftServer`; returns the target
    /// (none when the section did not run).
    fn raft_layer(
        &self,
        doc: &mut String,
        impls: &[(&'static str, &'static str)],
    ) -> Option<(Option<bool>, String)> {
        let f = self.facts;
        let ran: Vec<_> = impls
            .iter()
            .filter(|(i, _)| f.of(i, "raft").next().is_some())
            .collect();
        let _ = writeln!(doc, "### The raft layer driven directly\n");
        if ran.is_empty() {
            doc.push_str(
                "Not run: the `raft` section of `bench.sh` runs in the full run only (not \
                 `--quick`); `commit_latency` below drives the raft layer one record at a time.\n\n",
            );
            return None;
        }
        let first = f.of(ran[0].0, "raft").next();
        let size = first.map_or("?", |x| x.text("record_size"));
        let mut rates: Vec<f64> =
            f.0.iter()
                .filter(|x| x.kind == "raft")
                .filter_map(|x| x.num("target_records_per_s"))
                .collect();
        rates.sort_by(f64::total_cmp);
        rates.dedup();
        let rounds = f
            .of(ran[0].0, "raft")
            .filter(|x| x.num("target_records_per_s") == rates.first().copied())
            .count();
        let _ = writeln!(
            doc,
            "Kafka's own raft benchmark, `kafka.tools.TestRaftServer` (kafka_2.13 4.4.0, \
             kafka-server-start.sh's JVM flags), against kraft-rs's equivalent \
             `crates/raft/examples/raft_perf.rs` (the `kraft-raft` driver with no controller on top, \
             run as `kraft server` runs it: real files fsynced on the I/O thread, TCP on loopback): \
             3 voters, one process each, a static quorum (`controller.quorum.voters`), fresh logs. \
             The leader appends {size}-byte records at a target rate without waiting for commits: \
             Kafka's accumulator gathers them into a batch per linger; raft_perf appends every \
             record due while its previous append call runs as the next batch (at most 1 MiB). Both \
             print TestRaftServer's line every 5 s with Kafka's metric arithmetic; the throughput is \
             the bytes committed from the second line to the last (`tests/interop/bench-raft.sh`); \
             the latency percentiles are the last line's (1 ms buckets capped at 249 ms, over the \
             whole run: the start-up backlog is in them). Elections: leaderships claimed in the run \
             (1 when the leader held). Medians over {rounds} rounds, ABBA. Past its capacity \
             raft_perf's leader appends far ahead of its followers and commits less, and \
             TestRaftServer's workload thread dies once Kafka's accumulator holds 10 batches \
             (\"workload died\": its throughput is then over the lines printed before); the \
             comparison takes each implementation's best rate.\n\n\
             | implementation | target records/s | committed MB/s | records/s | p75 ms | p99 ms | elections | workload died |\n\
             |---|---:|---:|---:|---:|---:|---:|---:|"
        );
        let at = |i: &str, rate: f64, key: &str| {
            f.median_where(i, "raft", key, |x| {
                x.num("target_records_per_s") == Some(rate)
            })
        };
        for (i, label) in &ran {
            for &rate in &rates {
                if at(i, rate, "bytes_per_s").is_none() {
                    continue;
                }
                let _ = writeln!(
                    doc,
                    "| {label} | {rate:.0} | {} | {} | {} | {} | {} | {} |",
                    fmt(at(i, rate, "bytes_per_s").map(|x| x / 1e6)),
                    fmt(at(i, rate, "records_per_s")),
                    fmt(at(i, rate, "p75_ms")),
                    fmt(at(i, rate, "p99_ms")),
                    fmt(at(i, rate, "elections")),
                    f.of(i, "raft")
                        .filter(|x| x.num("target_records_per_s") == Some(rate))
                        .filter(|x| x.text("workload_died") == "1")
                        .count(),
                );
            }
        }
        // Each implementation's best rate.
        let best = |i: &str| {
            rates
                .iter()
                .filter_map(|&rate| at(i, rate, "bytes_per_s"))
                .max_by(f64::total_cmp)
        };
        let _ = writeln!(doc, "\n| implementation | best committed MB/s | records/s | ours / this |\n|---|---:|---:|---:|");
        for (i, label) in &ran {
            let _ = writeln!(
                doc,
                "| {label} | {} | {} | {} |",
                fmt(best(i).map(|x| x / 1e6)),
                fmt(best(i).and_then(|x| size.parse::<f64>().ok().map(|s| x / s))),
                fmt(ratio(best("kraft-rs"), best(i))),
            );
        }
        let r = ratio(best("kraft-rs"), best("kafka"));
        let _ = writeln!(
            doc,
            "\nours / Kafka (defaults), best against best: {}; ours / Kafka (linger 0): {}.\n",
            fmt(r),
            fmt(ratio(best("kraft-rs"), best("kafka-eq"))),
        );
        let disk = |k: &str| f.median("machine", "disk", k);
        if let Some(three) = disk("write_3_bytes_per_s") {
            // kraft-rs's log drops durable pages from the page cache;
            // Kafka's keeps them. Without the dropped figure (older runs)
            // both are held to the kept one.
            let dropped = disk("write_3_dropped_bytes_per_s");
            let ours = dropped.unwrap_or(three);
            let _ = write!(
                doc,
                "The disk's ceiling (`bench_floor --write-bandwidth`, before and after the runs, \
                 median), appending fsynced 1 MiB blocks: one writer {} MB/s; three at once {} MB/s \
                 together keeping the written pages in the page cache, as Kafka's log does",
                fmt(disk("write_1_bytes_per_s").map(|x| x / 1e6)),
                fmt(Some(three / 1e6)),
            );
            if let Some(dropped) = dropped {
                let _ = write!(
                    doc,
                    ", and {} MB/s dropping each block's pages once it is durable, as kraft-rs's \
                     log does ({} x; which is faster depends on whether the kernel has recycled \
                     pages to give: on a virtual machine whose free memory goes back to the host, \
                     a page it has not handed out before costs far more to fill, see \
                     `docs/benchmarks-analysis.md`)",
                    fmt(Some(dropped / 1e6)),
                    fmt(ratio(Some(dropped), Some(three))),
                );
            }
            let _ = writeln!(
                doc,
                ". Every replica writes every committed byte, so three voters on this disk commit \
                 at most {} MB/s (kraft-rs) and {} MB/s (Kafka); the best rates use {} and {} of it.\n",
                fmt(Some(ours / 3e6)),
                fmt(Some(three / 3e6)),
                fmt(ratio(best("kraft-rs"), Some(ours / 3.0))),
                fmt(ratio(best("kafka"), Some(three / 3.0))),
            );
        }
        Some((
            r.map(|r| r >= 2.0),
            format!(
                "throughput of the raft layer at least 2x Kafka's ({} x)",
                fmt(r)
            ),
        ))
    }

    pub(super) fn document(
        &self,
        pictures: &Path,
        link: &str,
        script_s: f64,
        wall_s: f64,
    ) -> Result<String> {
        let f = self.facts;
        let impls = self.impls();
        let floor = f.of("machine", "floor").next();
        let pooled = self.floor_parts("floor.txt");
        let part = |k: usize, q: f64| (!pooled[k].is_empty()).then(|| quantile(&pooled[k], q));
        let fnum = |k: &str| match k {
            "fsync_p50_us" => part(0, 0.5),
            "fsync_p99_us" => part(0, 0.99),
            "rtt_p50_us" => part(1, 0.5),
            "rtt_p99_us" => part(1, 0.99),
            "fsync_majority_p50_us" => part(2, 0.5),
            "fsync_majority_p99_us" => part(2, 0.99),
            _ => f.median("machine", "floor", k),
        };
        let sum = |a: Option<f64>, b: Option<f64>| Some(a? + b?);
        // The commit floor, sampled before each commit round (the pooled
        // start/end floor when the run has none).
        let by_round = self.floor_parts("floor-commit.txt");
        let round_p50 = |k: usize| (!by_round[k].is_empty()).then(|| quantile(&by_round[k], 0.5));
        let floor_commit = sum(round_p50(0), round_p50(1))
            .or_else(|| sum(fnum("fsync_p50_us"), fnum("rtt_p50_us")));
        let floor_shared = sum(round_p50(2), round_p50(1))
            .or_else(|| sum(fnum("fsync_majority_p50_us"), fnum("rtt_p50_us")));
        let mut met = Vec::new();
        let mut missed = Vec::new();
        let mut target = |ok: Option<bool>, what: String| match ok {
            Some(true) => met.push(what),
            Some(false) => missed.push(what),
            None => missed.push(format!("{what} (no figure)")),
        };
        let mut doc = String::new();
        let run = f.of("machine", "run").next();
        let _ = writeln!(
            doc,
            "# Benchmarks: kraft-rs against Kafka 4.4's controllers\n\n\
             Generated by `cargo xtask bench{}` (do not edit by hand). One run of \
             `tests/interop/bench.sh`, `cargo bench -p kraft-protocol --bench codec -- ratios-only` and \
             `cargo bench -p kraft-raft --bench commit_latency`: {:.0} s of measurement, {:.0} s with the builds.\n",
            if self.quick { " --quick" } else { "" },
            script_s,
            wall_s
        );
        if self.quick {
            doc.push_str(
                "**Quick run** (CI): small counts, to prove the harness runs; its figures are not \
                 meant to be read.\n\n",
            );
        }
        let cpu = std::fs::read_to_string("/proc/cpuinfo")
            .ok()
            .and_then(|c| {
                c.lines()
                    .find(|l| l.starts_with("model name"))
                    .and_then(|l| l.split_once(':'))
                    .map(|(_, v)| v.trim().to_string())
            })
            .unwrap_or_else(|| "unknown CPU".into());
        let tmp = std::env::var("TMPDIR").unwrap_or_else(|_| "/tmp".into());
        let device = first_line("findmnt", &["-no", "SOURCE", "-T", &tmp]);
        let name = device.trim_start_matches("/dev/").to_string();
        let rotational = std::fs::read_to_string(format!("/sys/block/{name}/queue/rotational"))
            .map_or("?".to_string(), |s| s.trim().to_string());
        let jvm = f.of("kafka", "jvm").next();
        let _ = writeln!(
            doc,
            "Date: {}. Machine: {} cores (`nproc`), {cpu}, kernel {} (`uname -r`); disk: the work \
             directory under `{tmp}` on {device} (`{} `, `/sys/block/{name}/queue/rotational` = {rotational}); \
             loopback only. Java {} for Kafka. A shared machine: every figure is a median or a \
             percentile of this one run, and the repeated measurements take turns (ABBA) between \
             the implementations.\n",
            first_line("date", &["-u", "+%Y-%m-%d %H:%M UTC"]),
            first_line("nproc", &[]),
            first_line("uname", &["-r"]),
            first_line("lsblk", &["-dno", "SIZE,MODEL", &device]),
            jvm.map_or("?", |j| j.text("java")),
        );
        let _ = writeln!(
            doc,
            "Command: `cargo xtask bench` (`--quick` in CI). Settings of this run: `{}`.\n",
            run.map_or(String::new(), |r| r.raw.clone())
        );
        let _ = writeln!(
            doc,
            "Implementations: **kraft-rs** (`kraft storage format` + `kraft server`, release build, \
             defaults: election timeout 1000 ms and fetch timeout 2000 ms, Kafka's defaults too; it accepts \
             `controller.quorum.append.linger.ms` but never lingers: the leader flushes what was appended as soon as \
             the previous flush completes); **Kafka 4.4 (defaults)**: Kafka 4.4.0's controllers from the \
             interop tests' Maven jars (`tests/interop/kafka-quorum.sh`) with kafka-server-start.sh's JVM flags \
             `{}` and Kafka's default configuration{}. `broker.session.timeout.ms=9000` (Kafka's default) on all.\n",
            jvm.map_or("?".to_string(), |j| j.text("flags").replace(',', " ")),
            if impls.iter().any(|(i, _)| *i == "kafka-eq") {
                "; **Kafka 4.4 (equal linger/timeouts)**: the same JVM with \
                 `controller.quorum.append.linger.ms`, `controller.quorum.election.timeout.ms` and \
                 `controller.quorum.fetch.timeout.ms` set to kraft-rs's effective values (0, 1000, 2000)"
            } else {
                " (the run with equal linger and timeouts is part of the full run only)"
            }
        );

        // ---- floor
        let _ = writeln!(doc, "## Floor\n");
        let _ = writeln!(
            doc,
            "`bench_floor` (`crates/controller/examples/bench_floor.rs`) on the work directory's disk: \
             {} samples at the start of the run and as many at its end, pooled.\n\n| what | p50 | p99 |\n|---|---:|---:|\n\
             | fsync of a 4 KiB append (`write` + `fdatasync`), µs | {} | {} |\n\
             | the same on three files at once, until two are durable (three voters on this one disk), µs | {} | {} |\n\
             | loopback TCP round trip of 64 bytes, µs | {} | {} |\n\
             | process spawn (`/bin/true`, spawn to exit), µs | {} | {} |\n\
             | **commit floor** = fsync p50 + round trip p50 (a follower must receive, fsync and acknowledge), sampled before each commit round, µs | {} | |\n\
             | **shared-disk commit floor** = majority fsync p50 + round trip p50, sampled before each commit round, µs | {} | |\n",
            floor.map_or("?", |x| x.text("samples")),
            fmt(fnum("fsync_p50_us")),
            fmt(fnum("fsync_p99_us")),
            fmt(fnum("fsync_majority_p50_us")),
            fmt(fnum("fsync_majority_p99_us")),
            fmt(fnum("rtt_p50_us")),
            fmt(fnum("rtt_p99_us")),
            fmt(fnum("spawn_p50_us")),
            fmt(fnum("spawn_p99_us")),
            fmt(floor_commit),
            fmt(floor_shared),
        );

        // ---- commit latency
        let _ = writeln!(
            doc,
            "## Commit latency of single metadata writes, 3 voters\n"
        );
        doc.push_str(
            "`broker_load --writer` (`crates/controller/examples/broker_load/`): CreateTopics v7 of one \
             topic of one partition (RF 3, on three fake brokers registered and heartbeating with \
             `broker_load --hold`), one call at a time straight to the active controller; a sample is \
             the request written to the answer read (the answer comes once the records are committed \
             and applied). Rounds alternate between the implementations.\n\n\
             | implementation | calls | p50 ms | p99 ms | max ms | p50 / floor | p50 / shared-disk floor | p50 / kraft-rs p50 |\n|---|---:|---:|---:|---:|---:|---:|---:|\n",
        );
        let ours_lat = self.commit_samples("kraft-rs");
        let ours_p50 = (!ours_lat.is_empty()).then(|| quantile(&ours_lat, 0.5));
        for (i, label) in &impls {
            let s = self.commit_samples(i);
            if s.is_empty() {
                continue;
            }
            let p50 = quantile(&s, 0.5);
            let _ = writeln!(
                doc,
                "| {label} | {} | {} | {} | {} | {} | {} | {} |",
                s.len(),
                fmt(Some(p50 / 1000.0)),
                fmt(Some(quantile(&s, 0.99) / 1000.0)),
                fmt(Some(quantile(&s, 1.0) / 1000.0)),
                fmt(ratio(Some(p50), floor_commit)),
                fmt(ratio(Some(p50), floor_shared)),
                fmt(ratio(Some(p50), ours_p50)),
            );
        }
        let kafka_lat = self.commit_samples("kafka");
        let kafka_p50 = (!kafka_lat.is_empty()).then(|| quantile(&kafka_lat, 0.5));
        let _ = writeln!(
            doc,
            "\nours / Kafka (defaults) p50: {}; ours / floor p50: {} (shared-disk floor: {}). Kafka's leader waits up to \
             `controller.quorum.append.linger.ms` (25 ms) before it appends a batch; kraft-rs appends a \
             proposal at once and lingers only while a flush is in flight.\n",
            fmt(ratio(ours_p50, kafka_p50)),
            fmt(ratio(ours_p50, floor_commit)),
            fmt(ratio(ours_p50, floor_shared)),
        );
        target(
            ratio(ours_p50, floor_commit).map(|r| r <= 2.0),
            format!(
                "commit latency p50 at most 2x the floor (ours {} x; {} x the shared-disk floor)",
                fmt(ratio(ours_p50, floor_commit)),
                fmt(ratio(ours_p50, floor_shared))
            ),
        );
        let mut series = Vec::new();
        for (k, (i, label)) in impls.iter().enumerate() {
            let s = self.commit_samples(i);
            if !s.is_empty() {
                series.push(cdf(label, COLORS[k], &s, 1000.0));
            }
        }
        let fl = self.floor_samples();
        if !fl.is_empty() {
            series.push(cdf("floor (fsync + round trip)", COLORS[3], &fl, 1000.0));
        }
        let svg = chart(&Chart {
            title: "Commit latency of one-topic CreateTopics, 3 voters (CDF)",
            x_label: "latency (ms, log scale)",
            y_label: "fraction of calls",
            x_log: true,
            y_log: false,
            series,
            marks: Vec::new(),
        });
        self.picture(
            &mut doc,
            pictures,
            link,
            "commit-latency.svg",
            &svg,
            "commit latency CDF",
        )?;

        // ---- throughput
        let _ = writeln!(
            doc,
            "## Throughput of committed metadata records, 3 voters\n"
        );
        let tp = |i: &str| f.median(i, "throughput", "topics_per_s");
        let conc = f
            .of("kraft-rs", "throughput")
            .next()
            .map_or("?", |x| x.text("concurrency"));
        let secs = run.map_or("?", |r| r.text("tp_secs"));
        let _ = writeln!(
            doc,
            "`broker_load --writer --concurrency {conc}`: {conc} connections to the active controller, each \
             sending the one-topic CreateTopics above back to back for {secs} s (each topic is 2 records: \
             TopicRecord and PartitionRecord); the median over the rounds.\n\n\
             | implementation | topics/s | records/s | call p50 ms | call p99 ms | ours / this |\n|---|---:|---:|---:|---:|---:|"
        );
        for (i, label) in &impls {
            let _ = writeln!(
                doc,
                "| {label} | {} | {} | {} | {} | {} |",
                fmt(tp(i)),
                fmt(tp(i).map(|x| 2.0 * x)),
                fmt(f.median(i, "throughput", "p50_us").map(|x| x / 1000.0)),
                fmt(f.median(i, "throughput", "p99_us").map(|x| x / 1000.0)),
                fmt(ratio(tp("kraft-rs"), tp(i))),
            );
        }
        doc.push('\n');
        let raft_target = self.raft_layer(&mut doc, &impls);
        target(
            ratio(tp("kraft-rs"), tp("kafka")).map(|r| r >= 2.0),
            format!(
                "throughput at least 2x Kafka's ({} x)",
                fmt(ratio(tp("kraft-rs"), tp("kafka")))
            ),
        );
        if let Some((ok, what)) = raft_target.clone() {
            target(ok, what);
        }

        // ---- the authorizer on and off (the commit section's `-authz` runs)
        if let Some(section) = super::authz::live_section(f, self.samples, "##") {
            doc.push_str(&section);
            doc.push_str(
                "One `authorize` check against Kafka's, ns: [benchmarks-authz.md](benchmarks-authz.md) \
                 (`cargo xtask bench-authz`).\n\n",
            );
        }

        // ---- TLS and SASL (the commit section's `-tls` and `-sasl` runs)
        if let Some(section) = super::tls::live_section(f, self.samples, "##") {
            doc.push_str(&section);
        }

        // ---- failover
        let _ = writeln!(doc, "## Failover\n");
        doc.push_str(
            "While `broker_load --writer` commits one-topic CreateTopics back to back (a connection \
             that fails or answers NOT_CONTROLLER is replaced at once by one to the next controller, \
             no pause), the leader gets SIGKILL, or SIGTERM (a graceful handoff: it resigns with \
             EndQuorumEpoch); the figure runs from the signal to the first commit answered by \
             another controller. Kafka's default timeouts on both (election 1000 ms, fetch 2000 ms). \
             The node is restarted and caught up, and before each sample the machine settles (under \
             30% busy over a second, 60 s at most: a restarted JVM's start-up must not slow the next \
             sample; the wait is `settle_s` in the raw lines); medians.\n\n\
             | implementation | SIGKILL: to first commit, ms | SIGTERM handoff: to first commit, ms | samples |\n|---|---:|---:|---:|\n",
        );
        let fo = |i: &str, sig: &str| {
            f.median_where(i, "failover", "to_first_commit_ms", |x| {
                x.text("signal") == sig
            })
        };
        for (i, label) in &impls {
            let _ = writeln!(
                doc,
                "| {label} | {} | {} | {} |",
                fmt(fo(i, "KILL")),
                fmt(fo(i, "TERM")),
                f.of(i, "failover").count() / 2
            );
        }
        let _ = writeln!(
            doc,
            "\nours / Kafka: SIGKILL {}, SIGTERM {}.\n",
            fmt(ratio(fo("kraft-rs", "KILL"), fo("kafka", "KILL"))),
            fmt(ratio(fo("kraft-rs", "TERM"), fo("kafka", "TERM")))
        );
        target(
            fo("kraft-rs", "TERM").map(|x| x <= 100.0),
            format!(
                "graceful handoff at most 100 ms ({} ms)",
                fmt(fo("kraft-rs", "TERM"))
            ),
        );
        let svg = self.failover_chart(&impls);
        self.picture(
            &mut doc,
            pictures,
            link,
            "failover.svg",
            &svg,
            "failover timeline",
        )?;

        // ---- voter change
        let _ = writeln!(doc, "## Voter change and catch-up\n");
        doc.push_str(
            "Controller 4 formatted with `--no-initial-controllers` and started; catch-up: from its \
             spawn to `describe --replication` showing it an Observer whose LastCaughtUpTimestamp is \
             after the spawn (polled with no pause; Kafka's figure includes its JVM start), over the \
             log written so far. Then `kraft metadata-quorum add-controller --controller-id 4` and \
             `remove-controller --controller-id 4` (the same tool against both): the command's spawn to \
             its exit (it returns once the change is committed), and to `describe --replication` \
             showing the new role.\n\n\
             | implementation | log bytes | spawn to caught-up observer, s | add-controller, ms | to voter, ms | remove-controller, ms | to observer, ms |\n|---|---:|---:|---:|---:|---:|---:|\n",
        );
        for (i, label) in &impls {
            let op = |o: &str, k: &str| {
                f.median_where(i, "voter", k, |x| x.text("op") == o)
                    .map(|secs| secs * 1000.0)
            };
            let _ = writeln!(
                doc,
                "| {label} | {} | {} | {} | {} | {} | {} |",
                fmt(f.median(i, "catchup", "log_bytes")),
                fmt(f.median(i, "catchup", "spawn_to_caught_up_s")),
                fmt(op("add", "command_s")),
                fmt(op("add", "to_voter_s")),
                fmt(op("remove", "command_s")),
                fmt(op("remove", "to_voter_s")),
            );
        }
        doc.push('\n');
        self.catchup_over(&mut doc, &impls);

        // ---- footprint and start
        let _ = writeln!(doc, "## Footprint and start\n");
        let parts = f
            .of("kraft-rs", "big_proc")
            .next()
            .map_or("?", |x| x.text("partitions"));
        let _ = writeln!(
            doc,
            "Idle: `VmRSS` and `Threads` of each controller of the idle 3-voter quorum (median of the \
             three). With partitions: after `broker_load --create-topics` made {parts} partitions (RF 3, \
             100 topics a call), the active controller. Cold start: a standalone controller \
             (`format --standalone`), from the spawn to the first DescribeQuorum answer that names a \
             leader (`broker_load --wait-leader`, no pause between answers, 1 ms after a refused \
             connection), and from its first log line to its own leader-elected line (kraft-rs: \
             `leader change leader=Some(1)`; Kafka: `Completed transition to Leader`).\n\n\
             | implementation | idle RSS MiB | idle threads | RSS with {parts} partitions, MiB | log bytes | spawn to leader, ms | first log line to leader, ms | spawn to first log line, ms |\n|---|---:|---:|---:|---:|---:|---:|---:|"
        );
        let active = |x: &Fact| x.text("role") == "active";
        for (i, label) in &impls {
            let _ = writeln!(
                doc,
                "| {label} | {} | {} | {} | {} | {} | {} | {} |",
                fmt(f.median(i, "idle", "rss_kb").map(|x| x / 1024.0)),
                fmt(f.median(i, "idle", "threads")),
                fmt(f
                    .median_where(i, "big_proc", "rss_kb", active)
                    .map(|x| x / 1024.0)),
                fmt(f.median_where(i, "big_proc", "log_bytes", active)),
                fmt(f.median(i, "cold", "spawn_to_leader_ms")),
                fmt(f.median(i, "cold", "log_first_to_leader_ms")),
                fmt(f.median(i, "cold", "spawn_to_first_log_ms")),
            );
        }
        let idle = |i: &str| f.median(i, "idle", "rss_kb");
        let big = |i: &str| f.median_where(i, "big_proc", "rss_kb", active);
        let _ = writeln!(
            doc,
            "\nours / Kafka: idle RSS {}, RSS with partitions {}, spawn to leader {}.\n",
            fmt(ratio(idle("kraft-rs"), idle("kafka"))),
            fmt(ratio(big("kraft-rs"), big("kafka"))),
            fmt(ratio(
                f.median("kraft-rs", "cold", "spawn_to_leader_ms"),
                f.median("kafka", "cold", "spawn_to_leader_ms")
            )),
        );
        let svg = self.rss_chart(&impls);
        self.picture(
            &mut doc,
            pictures,
            link,
            "rss.svg",
            &svg,
            "RSS over the run",
        )?;

        // ---- tools
        let _ = writeln!(doc, "## Tools\n");
        let against = f
            .of("kafka", "tool")
            .next()
            .map_or("?", |x| x.text("against"));
        let _ = writeln!(
            doc,
            "`kraft metadata-quorum describe --status|--replication` against Kafka's \
             `MetadataQuorumCommand` (the class `kafka-metadata-quorum.sh` runs, with kafka-run-class.sh's \
             default JVM flags `-Xmx256M` + G1), both against the `{against}` quorum: wall time from the \
             spawn of GNU time to its exit (its own spawn is in both figures), peak RSS from GNU time; \
             medians.\n\n\
             | tool | kraft-rs wall ms | Kafka wall ms | ratio | kraft-rs peak RSS MiB | Kafka peak RSS MiB | ratio |\n|---|---:|---:|---:|---:|---:|---:|"
        );
        for what in ["status", "replication"] {
            let m = |i: &str, k: &str| f.median_where(i, "tool", k, |x| x.text("what") == what);
            let _ = writeln!(
                doc,
                "| describe --{what} | {} | {} | {} | {} | {} | {} |",
                fmt(m("kraft-rs", "wall_s").map(|secs| secs * 1000.0)),
                fmt(m("kafka", "wall_s").map(|secs| secs * 1000.0)),
                fmt(ratio(m("kraft-rs", "wall_s"), m("kafka", "wall_s"))),
                fmt(m("kraft-rs", "peak_rss_kb").map(|x| x / 1024.0)),
                fmt(m("kafka", "peak_rss_kb").map(|x| x / 1024.0)),
                fmt(ratio(
                    m("kraft-rs", "peak_rss_kb"),
                    m("kafka", "peak_rss_kb")
                )),
            );
        }
        doc.push('\n');

        // ---- codec
        let _ = writeln!(doc, "## Codec\n");
        doc.push_str(
            "`cargo bench -p kraft-protocol --bench codec -- ratios-only`: kraft-protocol's time over the \
             `kafka-protocol` crate's for the same message (lower is better).\n\n",
        );
        for l in self.codec {
            let _ = writeln!(doc, "{l}");
        }
        doc.push('\n');

        // ---- I/O thread
        let _ = writeln!(
            doc,
            "## Where the time goes: inline fsync or a dedicated I/O thread\n"
        );
        doc.push_str(
            "`cargo bench -p kraft-raft --bench commit_latency`: the raft layer driven directly, three \
             voters on loopback over real files, one writer committing one 100-byte record at a time, a \
             prober sending ApiVersions to the leader back to back; `FlushMode::Inline` against \
             `FlushMode::IoThread` (the default of `kraft server`), rounds alternating. Floor: the fsync \
             of a 4 KiB append sampled during the round plus the loopback round trip.\n\n\
             | mode | commits | p50 µs | p99 µs | p50 / floor | p99 / floor | floor µs | probe p99 µs | probe max µs |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|\n",
        );
        for r in self.io {
            let _ = writeln!(
                doc,
                "| {} | {} | {} | {} | {} | {} | {} | {} | {} |",
                r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[8], r[9]
            );
        }
        let p50 = |mode: &str| {
            self.io
                .iter()
                .find(|r| r[0] == mode)
                .and_then(|r| r[2].parse::<f64>().ok())
        };
        let winner = match (p50("Inline"), p50("IoThread")) {
            (Some(a), Some(b)) if b <= a => "the I/O thread (lower p50)",
            (Some(_), Some(_)) => "inline fsync (lower p50)",
            _ => "undecided (no figure)",
        };
        let _ = writeln!(doc, "\nWinner in this run: {winner}.\n");

        // ---- targets
        let _ = writeln!(doc, "## Targets\n");
        for m in &met {
            let _ = writeln!(doc, "* met: {m}");
        }
        for m in &missed {
            let _ = writeln!(doc, "* **missed**: {m}");
        }
        if raft_target.is_none() {
            let _ = writeln!(
                doc,
                "* not measured in this run: throughput of the raft layer driven directly (the \
                 `raft` section, full run only)."
            );
        }
        doc.push('\n');
        let raw: Vec<&str> = f.0.iter().map(|x| x.raw.as_str()).collect();
        let _ = writeln!(
            doc,
            "## Raw lines\n\n`target/bench{}/results.txt`:\n\n```text\n{}\n```",
            if self.quick { "-quick" } else { "" },
            raw.join("\n")
        );
        Ok(doc)
    }
}

/// A full-run report of `facts` alone (no sample files, codec or I/O
/// figures), for the rendering tests.
#[cfg(test)]
fn report_of(facts: &Facts) -> Report<'_> {
    let none = Path::new("/nonexistent");
    Report {
        facts,
        samples: none,
        rss: none,
        codec: &[],
        io: &[],
        quick: false,
    }
}

#[cfg(test)]
mod catchup_tests {
    use super::*;

    #[test]
    fn catchup_over_renders_rows_and_ratios() {
        let text = "\
kraft-rs catchup_over kind=log log_bytes=1000 target_bytes=1000 grow_s=10 spawn_to_caught_up_s=2.0 rss_kb=20480 bytes_per_s=500
kafka catchup_over kind=log log_bytes=900 target_bytes=1000 grow_s=40 spawn_to_caught_up_s=8.0 rss_kb=409600 bytes_per_s=112
kraft-rs catchup_over kind=snapshot log_bytes=10 snapshot_bytes=300 log_start_offset=50 spawn_to_caught_up_s=1.0 rss_kb=10240
kafka catchup_over kind=snapshot log_bytes=10 snapshot_bytes=200 log_start_offset=60 tail_records=7 spawn_to_caught_up_s=4.0 rss_kb=307200";
        let facts = Facts(text.lines().filter_map(Fact::parse).collect());
        let report = report_of(&facts);
        let mut doc = String::new();
        report.catchup_over(&mut doc, &report.impls());
        assert!(
            doc.contains("| kraft-rs | log | 1000 | - | - | - | 2.00 |"),
            "{doc}"
        );
        assert!(
            doc.contains("| Kafka 4.4 (defaults) | snapshot | 10.0 | 200 | 60.0 | 7.00 | 4.00 |"),
            "{doc}"
        );
        assert!(
            doc.contains("over the log 0.25, over a snapshot 0.25"),
            "{doc}"
        );
        assert!(report
            .missing()
            .iter()
            .all(|m| !m.starts_with("catchup over")));

        let mut empty = String::new();
        let none = Facts(Vec::new());
        Report {
            facts: &none,
            ..report
        }
        .catchup_over(&mut empty, &[]);
        assert!(empty.contains("Not run"), "{empty}");
    }
}

#[cfg(test)]
mod raft_tests {
    use super::*;

    #[test]
    fn raft_layer_renders_rates_best_and_target() {
        let text = "\
kraft-rs raft round=1 record_size=256 target_records_per_s=100000 bytes_per_s=25600000 records_per_s=100000 p75_ms=3.0 p99_ms=9.0 p999_ms=20.0 elections=1
kraft-rs raft round=1 record_size=256 target_records_per_s=200000 bytes_per_s=51200000 records_per_s=200000 p75_ms=5.0 p99_ms=12.0 p999_ms=30.0 elections=1
kafka raft round=1 record_size=256 target_records_per_s=100000 bytes_per_s=12800000 records_per_s=50000 p75_ms=249.0 p99_ms=249.0 p999_ms=249.0 elections=1
kafka raft round=1 record_size=256 target_records_per_s=200000 bytes_per_s=2560000 records_per_s=10000 p75_ms=249.0 p99_ms=249.0 p999_ms=249.0 elections=2 workload_died=1
machine disk write_1_bytes_per_s=200000000 write_3_bytes_per_s=300000000 write_3_dropped_bytes_per_s=1200000000 mib_per_writer=64";
        let facts = Facts(text.lines().filter_map(Fact::parse).collect());
        let report = report_of(&facts);
        let mut doc = String::new();
        let target = report.raft_layer(&mut doc, &report.impls());
        // Three replicas: 1200 MB/s dropping pages (kraft-rs), 300 keeping
        // them (Kafka); 51.2 and 12.8 MB/s used.
        assert!(
            doc.contains("and 1200 MB/s dropping each block's pages once it is durable, as kraft-rs's log does (4.00 x;"),
            "{doc}"
        );
        assert!(
            doc.contains("commit at most 400 MB/s (kraft-rs) and 100 MB/s (Kafka); the best rates use 0.13 and 0.13 of it."),
            "{doc}"
        );
        assert!(
            doc.contains("| kraft-rs | 200000 | 51.2 | 200000 | 5.00 | 12.0 | 1.00 | 0 |"),
            "{doc}"
        );
        assert!(
            doc.contains("| Kafka 4.4 (defaults) | 200000 | 2.56 | 10000 | 249 | 249 | 2.00 | 1 |"),
            "{doc}"
        );
        // Best against best: 51.2 MB/s against 12.8 MB/s.
        assert!(
            doc.contains("| Kafka 4.4 (defaults) | 12.8 | 50000 | 4.00 |"),
            "{doc}"
        );
        let (ok, what) = target.expect("a target");
        assert_eq!(ok, Some(true));
        assert!(what.contains("(4.00 x)"), "{what}");

        let mut empty = String::new();
        let none = Facts(Vec::new());
        let target = Report {
            facts: &none,
            ..report
        }
        .raft_layer(&mut empty, &[]);
        assert!(target.is_none());
        assert!(empty.contains("Not run"), "{empty}");
    }
}
