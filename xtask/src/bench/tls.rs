//! The cost of TLS and SASL: `cargo xtask bench-tls [--quick]` writes
//! `docs/benchmarks-tls.md`; [`live_section`] is also the section of
//! `docs/benchmarks.md` that `cargo xtask bench` writes from the same
//! `bench.sh` lines.
//!
//! `tests/interop/bench.sh` runs each implementation's quorum three times
//! over: PLAINTEXT, mutual TLS (`-tls`) and SASL_SSL with PLAIN (`-sasl`),
//! interleaved ABBA in its commit section; the figures are each secured
//! quorum against its plain one (the target: TLS adds at most 10% to
//! kraft-rs's commit p50) and kraft-rs against Kafka over the same protocol
//! (the target: at least 5x ahead over TLS), the controllers' idle RSS, and
//! `describe --status` over mutual TLS, kraft's against Kafka's tool.

use std::fmt::Write as _;
use std::path::Path;

use super::report::commit_samples;
use super::{fmt, quantile, ratio, Facts};
use crate::Result;

/// The protocols of the section: the variant's suffix and its label.
const PROTOCOLS: [(&str, &str); 3] = [
    ("", "PLAINTEXT"),
    ("-tls", "SSL (mutual TLS)"),
    ("-sasl", "SASL_SSL (PLAIN)"),
];

/// TLS may add at most this factor to kraft-rs's commit p50.
const TLS_BOUND: f64 = 1.10;

/// Over TLS, kraft-rs at least this many times ahead of Kafka.
const AHEAD: f64 = 5.0;

/// Commit p50 and p99 (ms) of an implementation's samples.
fn commit_quantiles(facts: &Facts, samples: &Path, implementation: &str) -> [Option<f64>; 2] {
    let s = commit_samples(facts, samples, implementation);
    let q = |p: f64| (!s.is_empty()).then(|| quantile(&s, p) / 1000.0);
    [q(0.5), q(0.99)]
}

/// The live tables of one `bench.sh` run and the verdicts; `None` when it
/// ran no secured quorum.
pub(super) fn live_section(facts: &Facts, samples: &Path, heading: &str) -> Option<String> {
    let secured = |i: &str| facts.of(i, "commit").next().is_some();
    let ran: Vec<&str> = ["kraft-rs-tls", "kraft-rs-sasl", "kafka-tls", "kafka-sasl"]
        .into_iter()
        .filter(|i| secured(i))
        .collect();
    if ran.is_empty() {
        return None;
    }
    let run = facts.of("machine", "run").next();
    let mut doc = String::new();
    let _ = writeln!(
        doc,
        "{heading} The cost of TLS and SASL\n\n\
         `tests/interop/bench.sh`'s commit section on each implementation's quorum over PLAINTEXT, over \
         mutual TLS (`-tls`: `listener.security.protocol.map=CONTROLLER:SSL`, \
         `ssl.client.auth=required`) and over SASL_SSL (`-sasl`: PLAIN, the controllers among themselves \
         and the bench's client as one user), with Kafka's keys, PKCS12 key and trust stores (one CA, \
         one controller certificate, RSA 2048; `tests/interop/certs.sh`); the controllers' own raft \
         connections are secured the same way. Each quorum's connections are opened before anything \
         is timed (`broker_load` keeps them), so the figures are the cost of encryption on a warm \
         connection; the handshake is in the tool figures below. The quorums of an implementation run \
         back to back, ABBA over the rounds ({} rounds, {} commits a round; throughput: {} connections \
         for {} s a round). Ran: {}.\n",
        run.map_or("?", |r| r.text("rounds")),
        run.map_or("?", |r| r.text("commits")),
        run.map_or("?", |r| r.text("tp_conc")),
        run.map_or("?", |r| r.text("tp_secs")),
        ran.join(", "),
    );
    let _ = writeln!(
        doc,
        "| implementation | protocol | commit p50 ms | / PLAINTEXT | commit p99 ms | / PLAINTEXT | throughput topics/s | / PLAINTEXT | idle RSS MiB, median controller |\n\
         |---|---|---:|---:|---:|---:|---:|---:|---:|"
    );
    let tp = |i: &str| facts.median(i, "throughput", "topics_per_s");
    let rss = |i: &str| facts.median(i, "idle", "rss_kb").map(|kb| kb / 1024.0);
    for (base, label) in [("kraft-rs", "kraft-rs"), ("kafka", "Kafka 4.4 (defaults)")] {
        if !secured(base) {
            continue;
        }
        let [p50_plain, p99_plain] = commit_quantiles(facts, samples, base);
        for (suffix, protocol) in PROTOCOLS {
            let i = format!("{base}{suffix}");
            if !suffix.is_empty() && !secured(&i) {
                continue;
            }
            let [p50, p99] = commit_quantiles(facts, samples, &i);
            let _ = writeln!(
                doc,
                "| {label} | {protocol} | {} | {} | {} | {} | {} | {} | {} |",
                fmt(p50),
                fmt(ratio(p50, p50_plain)),
                fmt(p99),
                fmt(ratio(p99, p99_plain)),
                fmt(tp(&i)),
                fmt(ratio(tp(&i), tp(base))),
                fmt(rss(&i)),
            );
        }
    }
    let _ = writeln!(
        doc,
        "\nkraft-rs against Kafka over the same protocol:\n\n\
         | protocol | commit p50, Kafka / kraft-rs | throughput, kraft-rs / Kafka | idle RSS, Kafka / kraft-rs |\n\
         |---|---:|---:|---:|"
    );
    for (suffix, protocol) in PROTOCOLS {
        let (ours, theirs) = (format!("kraft-rs{suffix}"), format!("kafka{suffix}"));
        if !secured(&ours) || !secured(&theirs) {
            continue;
        }
        let ([p50_ours, _], [p50_theirs, _]) = (
            commit_quantiles(facts, samples, &ours),
            commit_quantiles(facts, samples, &theirs),
        );
        let _ = writeln!(
            doc,
            "| {protocol} | {} | {} | {} |",
            fmt(ratio(p50_theirs, p50_ours)),
            fmt(ratio(tp(&ours), tp(&theirs))),
            fmt(ratio(rss(&theirs), rss(&ours))),
        );
    }

    // describe --status over mutual TLS.
    let m =
        |i: &str, k: &str| facts.median_where(i, "tool", k, |x| x.text("what") == "status-mtls");
    if m("kraft-rs", "wall_s").is_some() {
        let against = facts
            .of("kraft-rs", "tool")
            .find(|x| x.text("what") == "status-mtls")
            .map_or("?", |x| x.text("against"));
        let _ = writeln!(
            doc,
            "\n`describe --status` over mutual TLS against the `{against}` quorum, both tools with the same \
             `--command-config` (PKCS12 client certificate): each run opens its connections, so the TLS \
             handshakes are in its wall time (from the spawn of GNU time to its exit); peak RSS from GNU \
             time; medians.\n\n\
             | tool | kraft-rs wall ms | Kafka wall ms | ratio | kraft-rs peak RSS MiB | Kafka peak RSS MiB | ratio |\n\
             |---|---:|---:|---:|---:|---:|---:|\n\
             | describe --status, mTLS | {} | {} | {} | {} | {} | {} |",
            fmt(m("kraft-rs", "wall_s").map(|s| s * 1000.0)),
            fmt(m("kafka", "wall_s").map(|s| s * 1000.0)),
            fmt(ratio(m("kraft-rs", "wall_s"), m("kafka", "wall_s"))),
            fmt(m("kraft-rs", "peak_rss_kb").map(|x| x / 1024.0)),
            fmt(m("kafka", "peak_rss_kb").map(|x| x / 1024.0)),
            fmt(ratio(
                m("kraft-rs", "peak_rss_kb"),
                m("kafka", "peak_rss_kb")
            )),
        );
    }

    let [p50_plain, _] = commit_quantiles(facts, samples, "kraft-rs");
    let [p50_tls, _] = commit_quantiles(facts, samples, "kraft-rs-tls");
    let [p50_kafka_tls, _] = commit_quantiles(facts, samples, "kafka-tls");
    let verdict = |r: Option<f64>, ok: bool| match r {
        Some(x) if ok => format!("met ({} x)", fmt(Some(x))),
        Some(x) => format!("**not met** ({} x)", fmt(Some(x))),
        None => "not measured".to_string(),
    };
    let added = ratio(p50_tls, p50_plain);
    let ahead_p50 = ratio(p50_kafka_tls, p50_tls);
    let ahead_tp = ratio(tp("kraft-rs-tls"), tp("kafka-tls"));
    let _ = writeln!(
        doc,
        "\nTargets: TLS adds at most 10% to kraft-rs's commit p50 (TLS / PLAINTEXT at most {TLS_BOUND}): {}; \
         over TLS kraft-rs stays at least {AHEAD:.0}x ahead of Kafka: commit p50 {}, throughput {}.\n",
        verdict(added, added.is_some_and(|x| x <= TLS_BOUND)),
        verdict(ahead_p50, ahead_p50.is_some_and(|x| x >= AHEAD)),
        verdict(ahead_tp, ahead_tp.is_some_and(|x| x >= AHEAD)),
    );
    Some(doc)
}

/// Runs `cargo xtask bench-tls [--quick]`: `bench.sh`'s idle, commit and
/// tools sections (`BENCH_SECTIONS`) on kraft-rs and Kafka over PLAINTEXT,
/// mutual TLS and SASL_SSL (quick: kraft-rs only, small counts), and writes
/// `docs/benchmarks-tls.md` (quick: under `target/tls-bench-quick/`).
/// `BENCH_ROUNDS`, `BENCH_COMMITS`, `BENCH_TP_CONC`, `BENCH_TP_SECS`,
/// `BENCH_TOOL_RUNS`, `BENCH_IMPLS` and `BENCH_TLS_IMPLS` in the
/// environment override the defaults.
pub fn bench_tls(quick: bool) -> Result<()> {
    let started = std::time::Instant::now();
    let dir = super::section_dir("tls-bench", quick)?;
    let defaults: &[(&str, &str)] = if quick {
        &[
            ("BENCH_IMPLS", "kraft-rs"),
            ("BENCH_TLS_IMPLS", "kraft-rs-tls kraft-rs-sasl"),
        ]
    } else {
        &[
            ("BENCH_IMPLS", "kraft-rs kafka"),
            ("BENCH_ROUNDS", "4"),
            ("BENCH_COMMITS", "250"),
            ("BENCH_TP_CONC", "32"),
            ("BENCH_TP_SECS", "10"),
        ]
    };
    let run = super::run_sections(
        &dir,
        "idle commit tools",
        quick,
        &[("BENCH_AUTHZ_IMPLS", "")],
        defaults,
    )?;
    let live = live_section(&run.facts, &run.samples, "##")
        .ok_or("bench.sh ran no quorum over TLS or SASL_SSL")?;
    let mut doc = String::new();
    let _ = writeln!(
        doc,
        "# The cost of TLS and SASL\n\n\
         <!-- Generated by `cargo xtask bench-tls`{}; do not edit by hand. -->\n\n\
         kraft-rs's and Kafka 4.4's controller quorums over PLAINTEXT, mutual TLS and SASL_SSL, in one \
         run on one machine ({}; {:.0} s in all). The targets: TLS adds at most 10% to kraft-rs's \
         commit latency p50, and over TLS kraft-rs stays at least 5x ahead of Kafka. `cargo xtask bench` \
         measures the same in its commit section ([benchmarks.md](benchmarks.md)); this document is \
         that section alone.\n",
        if quick { " --quick" } else { "" },
        run.machine,
        started.elapsed().as_secs_f64()
    );
    doc.push_str(&live);
    let _ = writeln!(
        doc,
        "Raw lines of this run:\n\n```text\n{}\n```",
        run.raw_lines(&["secured", "commit", "throughput", "idle", "tool", "run"])
    );
    super::write_section_doc(&dir, quick, "benchmarks-tls.md", &doc)
}
