//! The cost of authorization: `cargo xtask bench-authz [--quick]` writes
//! `docs/benchmarks-authz.md`; [`live_section`] is also the section of
//! `docs/benchmarks.md` that `cargo xtask bench` writes from the same
//! `bench.sh` lines.
//!
//! Two measurements, each against Kafka 4.4 in the same run:
//!
//! * live: `tests/interop/bench.sh`'s commit section (commit latency and
//!   throughput of one-topic CreateTopics) on `kraft-rs` and
//!   `kraft-rs-authz` (the same quorum with the StandardAuthorizer and
//!   1,000 ACLs), `kafka` and `kafka-authz`, interleaved ABBA; the figure
//!   is each implementation's ratio on/off (the target: kraft-rs within
//!   10%);
//! * per check: `cargo bench -p kraft-controller --bench authorize`
//!   (`StandardAuthorizer::authorize`, one action, 1,000 ACLs) and
//!   Kafka's own `StandardAuthorizer` on the same ACLs and checks
//!   (`tests/interop/.../AuthzBench.java`), ns per check and the ratio.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;

use super::report::commit_samples;
use super::{fmt, quantile, ratio, Fact, Facts};
use crate::{root, run, run_with_env, Result};

/// Each implementation's plain and authorizer runs, and its label.
const PAIRS: [(&str, &str, &str); 2] = [
    ("kraft-rs", "kraft-rs-authz", "kraft-rs"),
    ("kafka", "kafka-authz", "Kafka 4.4 (defaults)"),
];

/// The issue's bound: with the authorizer on, commit latency at most this
/// many times the latency with it off, throughput at least its inverse.
const BOUND: f64 = 1.10;

/// The checks of `authz_workload::checks`, in order, as the document names
/// them.
const CHECKS: [&str; 5] = [
    "CLUSTER_ACTION on the cluster (heartbeat, raft request): allowed",
    "CREATE on the cluster (CreateTopics' first check): denied",
    "CREATE on topic `lat1-0-17` (prefixed ACL): allowed",
    "DESCRIBE_CONFIGS on topic `lat1-0-17`: denied",
    "READ on topic `orders-16` by `User:app-16` (literal ACL): allowed",
];

/// The median over rounds of `on`'s `key` over `off`'s in the same round
/// (the two ran back to back, ABBA).
fn paired(facts: &Facts, kind: &str, key: &str, off: &str, on: &str) -> Option<f64> {
    let by_round = |i: &str| -> BTreeMap<String, f64> {
        facts
            .of(i, kind)
            .filter_map(|f| Some((f.text("round").to_string(), f.num(key)?)))
            .collect()
    };
    let (a, b) = (by_round(off), by_round(on));
    let ratios: Vec<f64> = a
        .iter()
        .filter_map(|(r, x)| ratio(b.get(r).copied(), Some(*x)))
        .collect();
    super::median(ratios)
}

/// The live tables (commit latency, throughput, on/off) of one `bench.sh`
/// run, and the verdict on kraft-rs; `None` when the run had no
/// implementation with the authorizer on.
pub(super) fn live_section(facts: &Facts, samples: &Path, heading: &str) -> Option<String> {
    let pairs: Vec<_> = PAIRS
        .iter()
        .filter(|(_, on, _)| facts.of(on, "commit").next().is_some())
        .collect();
    if pairs.is_empty() {
        return None;
    }
    let mut doc = String::new();
    let setup: Vec<&Fact> = facts.0.iter().filter(|f| f.kind == "authz").collect();
    let acls = setup.first().map_or("?", |f| f.text("created"));
    let props = setup
        .first()
        .map_or("?".to_string(), |f| f.text("properties").replace(',', ", "));
    let run = facts.of("machine", "run").next();
    let _ = writeln!(
        doc,
        "{heading} The cost of authorization: the authorizer on and off\n\n\
         `tests/interop/bench.sh`'s commit section on each implementation with the authorizer off and \
         on (`-authz`: the same three-controller quorum with `{props}`), {acls} ACLs created with one \
         CreateAcls before anything is timed (`broker_load --create-acls`, \
         `crates/controller/benches/authz_workload.rs`): the client (`User:ANONYMOUS` on the PLAINTEXT \
         controller listener, no super user) is granted CLUSTER_ACTION, ALTER and DESCRIBE on the cluster \
         and CREATE on the bench's topic prefixes, among unrelated ACLs of 50 other principals (literal \
         and prefixed topic ACLs, group ACLs, DENYs). Every resource the bench touches has ACLs, so every \
         check is decided by the ACLs; each CreateTopics is refused CREATE on the cluster and allowed per \
         topic (Kafka's longer path), and the controllers' own raft requests and the fake brokers' \
         heartbeats are authorized too. At setup a CreateTopics outside the prefixes is refused \
         ({}); a run with any refused call fails. The plain and the `-authz` quorum of an \
         implementation run back to back, ABBA over the rounds ({} rounds, {} commits a round; \
         throughput: {} connections for {} s a round).\n",
        setup
            .iter()
            .map(|f| format!("{}: {}", f.implementation, f.text("refused")))
            .collect::<Vec<_>>()
            .join(", "),
        run.map_or("?", |r| r.text("rounds")),
        run.map_or("?", |r| r.text("commits")),
        run.map_or("?", |r| r.text("tp_conc")),
        run.map_or("?", |r| r.text("tp_secs")),
    );
    let _ = writeln!(
        doc,
        "| implementation | commit p50 ms off | on | on / off | commit p99 ms off | on | on / off | p50 on / off, median of rounds |\n\
         |---|---:|---:|---:|---:|---:|---:|---:|"
    );
    let mut verdict = None;
    for (off, on, label) in &pairs {
        let (a, b) = (
            commit_samples(facts, samples, off),
            commit_samples(facts, samples, on),
        );
        let q = |s: &[f64], p: f64| (!s.is_empty()).then(|| quantile(s, p) / 1000.0);
        let (p50a, p50b, p99a, p99b) = (q(&a, 0.5), q(&b, 0.5), q(&a, 0.99), q(&b, 0.99));
        let _ = writeln!(
            doc,
            "| {label} | {} | {} | **{}** | {} | {} | {} | {} |",
            fmt(p50a),
            fmt(p50b),
            fmt(ratio(p50b, p50a)),
            fmt(p99a),
            fmt(p99b),
            fmt(ratio(p99b, p99a)),
            fmt(paired(facts, "commit", "p50_us", off, on)),
        );
        if *off == "kraft-rs" {
            verdict = Some(ratio(p50b, p50a));
        }
    }
    let _ = writeln!(
        doc,
        "\n| implementation | throughput topics/s off | on | on / off | call p99 ms off | on | on / off, median of rounds |\n\
         |---|---:|---:|---:|---:|---:|---:|"
    );
    let mut tp_verdict = None;
    for (off, on, label) in &pairs {
        let tp = |i: &str| facts.median(i, "throughput", "topics_per_s");
        let p99 = |i: &str| facts.median(i, "throughput", "p99_us").map(|x| x / 1000.0);
        let _ = writeln!(
            doc,
            "| {label} | {} | {} | **{}** | {} | {} | {} |",
            fmt(tp(off)),
            fmt(tp(on)),
            fmt(ratio(tp(on), tp(off))),
            fmt(p99(off)),
            fmt(p99(on)),
            fmt(paired(facts, "throughput", "topics_per_s", off, on)),
        );
        if *off == "kraft-rs" {
            tp_verdict = Some(ratio(tp(on), tp(off)));
        }
    }
    let met = |r: Option<Option<f64>>, ok: fn(f64) -> bool| match r.flatten() {
        Some(x) if ok(x) => format!("met ({} x)", fmt(Some(x))),
        Some(x) => format!("**not met** ({} x)", fmt(Some(x))),
        None => "not measured".to_string(),
    };
    let _ = writeln!(
        doc,
        "\nTarget (kraft-rs within 10% with the authorizer on): commit latency p50 on / off at most {BOUND}: {}; \
         throughput on / off at least {:.2}: {}.\n",
        met(verdict, |x| x <= BOUND),
        1.0 / BOUND,
        met(tp_verdict, |x| x >= 1.0 / BOUND),
    );
    Some(doc)
}

/// The `key=value` words of a line.
fn fields(line: &str) -> BTreeMap<String, String> {
    line.split_whitespace()
        .filter_map(|kv| kv.split_once('='))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// The per-check table: kraft-rs's `authorize` bench line against
/// `AuthzBench`'s.
fn per_check_section(ours: &str, kafka: &str) -> String {
    let (o, k) = (fields(ours), fields(kafka));
    let num = |m: &BTreeMap<String, String>, key: &str| -> Option<f64> {
        m.get(key).and_then(|v| v.parse().ok())
    };
    let mut doc = String::new();
    let _ = writeln!(
        doc,
        "## One check: `StandardAuthorizer::authorize` against Kafka's `StandardAuthorizer`\n\n\
         `cargo bench -p kraft-controller --bench authorize`: one action per call from `127.0.0.1`, \
         over an index of {} ACLs (the set above); the median of {} loops of {} calls per check. Then \
         Kafka 4.4's own `StandardAuthorizer` (java {}) on the same ACLs and checks \
         (`tests/interop/src/main/java/org/kraftrs/interop/AuthzBench.java`): configured as a \
         controller configures it (`super.users`, plugin metrics), the ACLs loaded as a snapshot, \
         JIT warmed for 3 s, one single-action list per call, no audit log line asked for \
         (kraft-rs writes none), measured the same way.\n\n\
         | check | kraft-rs ns | Kafka ns | kraft-rs / Kafka |\n|---|---:|---:|---:|",
        o.get("acls").map_or("?", String::as_str),
        o.get("runs").map_or("?", String::as_str),
        o.get("iterations").map_or("?", String::as_str),
        k.get("java").map_or("?", String::as_str),
    );
    for (i, what) in CHECKS.iter().enumerate() {
        let key = format!("ns_{i}");
        let (a, b) = (num(&o, &key), num(&k, &key));
        let _ = writeln!(
            doc,
            "| {what} | {} | {} | {} |",
            fmt(a),
            fmt(b),
            fmt(ratio(a, b))
        );
    }
    let (a, b) = (num(&o, "ns_per_check"), num(&k, "ns_per_check"));
    let _ = writeln!(
        doc,
        "| **mean per check** | **{}** | **{}** | **{}** |\n",
        fmt(a),
        fmt(b),
        fmt(ratio(a, b))
    );
    doc
}

/// kraft-rs's and Kafka's per-check lines: the `authorize` bench (which
/// writes the ACLs and checks to `dir`), then `AuthzBench` on them.
fn per_check(dir: &Path, quick: bool) -> Result<(String, String)> {
    let dir_s = dir.display().to_string();
    let _ = std::fs::remove_file(dir.join("kraft-rs.txt"));
    let time = if quick { "1" } else { "3" };
    run_with_env(
        "cargo",
        &[
            "bench",
            "-p",
            "kraft-controller",
            "--bench",
            "authorize",
            "--",
            "--warm-up-time",
            "1",
            "--measurement-time",
            time,
        ],
        &[("KRAFT_AUTHZ_BENCH_DIR", &dir_s)],
    )?;
    let ours = std::fs::read_to_string(dir.join("kraft-rs.txt"))
        .map_err(|e| format!("the authorize bench wrote no summary: {e}"))?;
    let pom = "tests/interop/pom.xml";
    if run("mvn", &["-q", "-B", "-o", "-f", pom, "compile"]).is_err() {
        run("mvn", &["-q", "-B", "-f", pom, "compile"])?;
    }
    let interop = root().join("tests/interop/target");
    let deps = std::fs::read_to_string(interop.join("classpath.txt")).map_err(|e| e.to_string())?;
    let cp = format!("{}:{}", interop.join("classes").display(), deps.trim());
    eprintln!("$ java -Xmx512m -cp ... org.kraftrs.interop.AuthzBench {dir_s}");
    let out = Command::new("java")
        .args([
            "-Xmx512m",
            "-cp",
            &cp,
            "org.kraftrs.interop.AuthzBench",
            &dir_s,
        ])
        .current_dir(root())
        .output()
        .map_err(|e| format!("cannot run java: {e}"))?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() {
        return Err(format!(
            "AuthzBench failed ({}):\n{stdout}{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let kafka = stdout
        .lines()
        .find(|l| l.starts_with("kafka "))
        .ok_or_else(|| format!("AuthzBench printed no `kafka ...` line:\n{stdout}"))?
        .to_string();
    Ok((ours.trim().to_string(), kafka))
}

/// Runs `cargo xtask bench-authz [--quick]`: the per-check figures, then
/// `bench.sh`'s commit section only (`BENCH_SECTIONS=commit`) on kraft-rs
/// and Kafka with and without the authorizer (quick: kraft-rs only, small
/// counts), and writes `docs/benchmarks-authz.md` (quick: under
/// `target/authz-bench-quick/`). `BENCH_ROUNDS`, `BENCH_COMMITS`,
/// `BENCH_TP_CONC`, `BENCH_TP_SECS`, `BENCH_IMPLS` and `BENCH_AUTHZ_IMPLS`
/// in the environment override the defaults.
pub fn bench_authz(quick: bool) -> Result<()> {
    let started = std::time::Instant::now();
    let dir = super::section_dir("authz-bench", quick)?;
    let (ours, kafka) = per_check(&dir, quick)?;
    eprintln!("{ours}\n{kafka}");
    let defaults: &[(&str, &str)] = if quick {
        &[("BENCH_IMPLS", "kraft-rs")]
    } else {
        &[
            ("BENCH_IMPLS", "kraft-rs kafka"),
            ("BENCH_ROUNDS", "4"),
            ("BENCH_COMMITS", "150"),
            ("BENCH_TP_CONC", "16"),
            ("BENCH_TP_SECS", "5"),
        ]
    };
    let run = super::run_sections(&dir, "commit", quick, &[], defaults)?;
    let live = live_section(&run.facts, &run.samples, "##")
        .ok_or("bench.sh ran no implementation with the authorizer on")?;
    let mut doc = String::new();
    let _ = writeln!(
        doc,
        "# The cost of authorization\n\n\
         <!-- Generated by `cargo xtask bench-authz`{}; do not edit by hand. -->\n\n\
         Kafka's `StandardAuthorizer` in kraft-rs against the same authorizer in Kafka 4.4, in one run \
         on one machine ({}; {:.0} s in all). The target: with the authorizer on and 1,000 \
         ACLs in the image, kraft-rs's commit latency and throughput within 10% of the same run \
         with it off. `cargo xtask bench` measures the same on/off pairs in its commit section \
         ([benchmarks.md](benchmarks.md)); this document is the commit section alone, with \
         moderate counts, and the per-check figures.\n",
        if quick { " --quick" } else { "" },
        run.machine,
        started.elapsed().as_secs_f64()
    );
    doc.push_str(&live);
    doc.push_str(&per_check_section(&ours, &kafka));
    let _ = writeln!(
        doc,
        "Raw lines of this run:\n\n```text\n{ours}\n{kafka}\n{}\n```",
        run.raw_lines(&["authz", "commit", "throughput", "run"])
    );
    super::write_section_doc(&dir, quick, "benchmarks-authz.md", &doc)
}
