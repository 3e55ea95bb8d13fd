//! `cargo xtask bench [--quick]`: kraft-rs's controller quorum against
//! Kafka 4.4's in one run (issue 15).
//!
//! Builds the release `kraft` binary and the `broker_load` and
//! `bench_floor` examples, runs `tests/interop/bench.sh` (real processes on
//! loopback, real disks, Kafka from the interop tests' Maven jars), the
//! codec ratios (`cargo bench -p kraft-protocol --bench codec --
//! ratios-only`) and the raft layer's inline-fsync / I/O-thread commit
//! latency (`cargo bench -p kraft-raft --bench commit_latency`), then
//! writes `docs/benchmarks.md` and its pictures under `docs/benchmarks/`.
//! `--quick` runs small counts and writes under `target/bench-quick/`
//! instead; it checks that every section produced its figures and asserts
//! nothing about speed.
//!
//! This file runs the measurements; [`report`] writes the document and
//! [`chart`] its pictures. The other two benchmarks have modules of their
//! own: `bench-image` in [`image`], `bench-brokers` in [`brokers`],
//! `bench-authz` in [`authz`] (which also writes this document's section on
//! the authorizer), `bench-tls` in [`tls`] (likewise for TLS and SASL); [`line`]
//! reads the lines all their scripts print.

pub(crate) mod authz;
pub(crate) mod brokers;
mod chart;
pub(crate) mod image;
mod line;
mod report;
pub(crate) mod tls;

use std::path::PathBuf;
use std::process::Command;

use crate::{root, run, Result};
use report::Report;

/// One `IMPL KIND key=value ...` line of the script's output.
type Fact = line::BenchLine;

/// All facts of one run.
pub(crate) struct Facts(Vec<Fact>);

impl Facts {
    fn of<'a>(&'a self, implementation: &'a str, kind: &'a str) -> impl Iterator<Item = &'a Fact> {
        self.0
            .iter()
            .filter(move |f| f.implementation == implementation && f.kind == kind)
    }

    /// The median of `key` over `implementation`'s `kind` facts that pass `keep`.
    fn median_where(
        &self,
        implementation: &str,
        kind: &str,
        key: &str,
        keep: impl Fn(&Fact) -> bool,
    ) -> Option<f64> {
        let values: Vec<f64> = self
            .of(implementation, kind)
            .filter(|f| keep(f))
            .filter_map(|f| f.num(key))
            .collect();
        median(values)
    }

    fn median(&self, implementation: &str, kind: &str, key: &str) -> Option<f64> {
        self.median_where(implementation, kind, key, |_| true)
    }
}

fn median(mut values: Vec<f64>) -> Option<f64> {
    line::median(&mut values)
}

/// The `q` quantile (nearest rank) of sorted values.
fn quantile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let rank = (q * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

fn fmt(x: Option<f64>) -> String {
    match x {
        None => "-".into(),
        Some(x) if x.is_nan() => "-".into(),
        Some(x) if x.abs() >= 100.0 => format!("{x:.0}"),
        Some(x) if x.abs() >= 10.0 => format!("{x:.1}"),
        Some(x) if x == 0.0 || x.abs() >= 0.1 => format!("{x:.2}"),
        // Two significant digits, so a small ratio is not shown as 0.00.
        Some(x) => {
            let decimals = (1.0 - x.abs().log10().floor()).clamp(2.0, 9.0) as usize;
            format!("{x:.decimals$}")
        }
    }
}

fn ratio(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    match (a, b) {
        (Some(a), Some(b)) if b != 0.0 => Some(a / b),
        _ => None,
    }
}

/// The implementations' labels in the document.
const IMPLS: [(&str, &str); 3] = [
    ("kraft-rs", "kraft-rs"),
    ("kafka", "Kafka 4.4 (defaults)"),
    ("kafka-eq", "Kafka 4.4 (equal linger/timeouts)"),
];

const COLORS: [&str; 4] = ["#d6604d", "#4393c3", "#1a9850", "#555555"];

fn first_line(program: &str, args: &[&str]) -> String {
    Command::new(program)
        .args(args)
        .output()
        .map(|o| {
            String::from_utf8_lossy(&o.stdout)
                .lines()
                .next()
                .unwrap_or("")
                .trim()
                .to_string()
        })
        .unwrap_or_else(|e| format!("({program}: {e})"))
}

/// Builds what the commit benchmarks run: `kraft` and the `broker_load`
/// and `bench_floor` examples, release profile.
pub(crate) fn build_binaries() -> Result<()> {
    run(
        "cargo",
        &["build", "--release", "--workspace", "--bin", "kraft"],
    )?;
    run(
        "cargo",
        &[
            "build",
            "--release",
            "--workspace",
            "--example",
            "broker_load",
            "--example",
            "bench_floor",
        ],
    )?;
    Ok(())
}

/// Runs `cargo xtask bench [--quick]`.
pub fn bench(quick: bool) -> Result<()> {
    let root = root();
    let started = std::time::Instant::now();
    build_binaries()?;
    if !quick {
        // The `raft` section (full run only): kraft-rs's TestRaftServer.
        run(
            "cargo",
            &[
                "build",
                "--release",
                "--workspace",
                "--example",
                "raft_perf",
            ],
        )?;
    }
    let out_dir = root.join(if quick {
        "target/bench-quick"
    } else {
        "target/bench"
    });
    std::fs::create_dir_all(&out_dir).map_err(|e| format!("{}: {e}", out_dir.display()))?;
    let results = out_dir.join("results.txt");
    // `--workspace` everywhere: one feature set for every cargo call, so
    // no crate is compiled twice for a different package selection.
    for bench in ["codec", "commit_latency"] {
        run(
            "cargo",
            &["bench", "--no-run", "--workspace", "--bench", bench],
        )?;
    }
    let measured = std::time::Instant::now();
    let kraft = root.join("target/release/kraft").display().to_string();
    let load = root
        .join("target/release/examples/broker_load")
        .display()
        .to_string();
    let floor = root
        .join("target/release/examples/bench_floor")
        .display()
        .to_string();
    let limit = if quick { "900" } else { "10800" };
    let results_s = results.display().to_string();
    let mut script = Command::new("timeout");
    script
        .args(["--kill-after=60", limit, "bash", "tests/interop/bench.sh"])
        .args([&kraft, &load, &floor, &results_s])
        .current_dir(&root);
    if quick {
        script.env("BENCH_QUICK", "1");
    }
    eprintln!("$ bench.sh {kraft} {load} {floor} {results_s}");
    let status = script
        .status()
        .map_err(|e| format!("cannot run bench.sh: {e}"))?;
    if !status.success() {
        return Err(format!("tests/interop/bench.sh failed ({status})"));
    }
    let codec = codec_ratios()?;
    let io = io_thread(quick)?;
    let script_s = measured.elapsed().as_secs_f64();
    let text =
        std::fs::read_to_string(&results).map_err(|e| format!("{}: {e}", results.display()))?;
    let facts = Facts(text.lines().filter_map(Fact::parse).collect());
    let (doc_path, pictures, link) = if quick {
        (
            out_dir.join("benchmarks.md"),
            out_dir.join("benchmarks"),
            "benchmarks",
        )
    } else {
        (
            root.join("docs/benchmarks.md"),
            root.join("docs/benchmarks"),
            "benchmarks",
        )
    };
    std::fs::create_dir_all(&pictures).map_err(|e| format!("{}: {e}", pictures.display()))?;
    let samples_dir = PathBuf::from(format!("{results_s}.d"));
    let report = Report {
        facts: &facts,
        samples: &samples_dir,
        rss: &PathBuf::from(format!("{results_s}.rss")),
        codec: &codec,
        io: &io,
        quick,
    };
    let missing = report.missing();
    let doc = report.document(&pictures, link, script_s, started.elapsed().as_secs_f64())?;
    std::fs::write(&doc_path, doc).map_err(|e| format!("{}: {e}", doc_path.display()))?;
    eprintln!("bench: wrote {} ({:.0} s)", doc_path.display(), script_s);
    if !missing.is_empty() {
        return Err(format!("sections without figures: {}", missing.join(", ")));
    }
    Ok(())
}

/// The codec ratio table printed by `codec -- ratios-only`.
fn codec_ratios() -> Result<Vec<String>> {
    eprintln!("$ cargo bench --workspace --bench codec -- ratios-only");
    let out = Command::new("cargo")
        .args([
            "bench",
            "--workspace",
            "--bench",
            "codec",
            "--",
            "ratios-only",
        ])
        .current_dir(root())
        .output()
        .map_err(|e| format!("cannot run cargo bench: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "codec bench failed: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| l.starts_with('|'))
        .map(str::to_string)
        .collect())
}

/// The pooled rows (`Inline`, `IoThread`) of `commit_latency`: mode, n,
/// p50 µs, p99 µs, p50/floor, p99/floor, floor µs, record fsync µs, probe
/// p99 µs, probe max µs.
fn io_thread(quick: bool) -> Result<Vec<Vec<String>>> {
    eprintln!("$ cargo bench --workspace --bench commit_latency");
    let (commits, rounds) = if quick { ("150", "1") } else { ("2000", "4") };
    let out = Command::new("cargo")
        .args(["bench", "--workspace", "--bench", "commit_latency"])
        .env("KRAFT_BENCH_COMMITS", commits)
        .env("KRAFT_BENCH_ROUNDS", rounds)
        .current_dir(root())
        .output()
        .map_err(|e| format!("cannot run cargo bench: {e}"))?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() {
        return Err(format!(
            "commit_latency failed: {stdout}{}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(stdout
        .lines()
        .skip_while(|l| !l.starts_with("all rounds"))
        .skip(1)
        .map(|l| l.split_whitespace().map(str::to_string).collect::<Vec<_>>())
        .filter(|w| w.len() == 10)
        .collect())
}

/// A `bench.sh` run of some sections only (`bench-authz`, `bench-tls`):
/// its facts, its samples directory and the machine it ran on.
pub(crate) struct SectionRun {
    /// The facts of `results.txt`.
    pub(crate) facts: Facts,
    /// `results.txt.d`, the per-sample files.
    pub(crate) samples: PathBuf,
    /// "kernel; N cores; rustc version".
    pub(crate) machine: String,
}

/// The work directory `target/<name>` (`target/<name>-quick`), created,
/// with the release binaries built.
pub(crate) fn section_dir(name: &str, quick: bool) -> Result<PathBuf> {
    build_binaries()?;
    let dir = root().join(format!(
        "target/{name}{}",
        if quick { "-quick" } else { "" }
    ));
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    Ok(dir)
}

/// Runs `tests/interop/bench.sh` with `BENCH_SECTIONS=sections` into
/// `dir/results.txt`, with `env` set and `defaults` set unless the
/// caller's environment sets them; `BENCH_QUICK=1` when `quick`.
pub(crate) fn run_sections(
    dir: &std::path::Path,
    sections: &str,
    quick: bool,
    env: &[(&str, &str)],
    defaults: &[(&str, &str)],
) -> Result<SectionRun> {
    let root = root();
    let results = dir.join("results.txt");
    let results_s = results.display().to_string();
    let bin = |p: &str| root.join(p).display().to_string();
    let (kraft, load, floor) = (
        bin("target/release/kraft"),
        bin("target/release/examples/broker_load"),
        bin("target/release/examples/bench_floor"),
    );
    let mut script = Command::new("timeout");
    script
        .args(["--kill-after=60", "3600", "bash", "tests/interop/bench.sh"])
        .args([&kraft, &load, &floor, &results_s])
        .current_dir(&root)
        .env("BENCH_SECTIONS", sections);
    for (k, v) in env {
        script.env(k, v);
    }
    if quick {
        script.env("BENCH_QUICK", "1");
    }
    for (k, v) in defaults {
        if std::env::var_os(k).is_none() {
            script.env(k, v);
        }
    }
    eprintln!("$ BENCH_SECTIONS='{sections}' bash tests/interop/bench.sh {kraft} {load} {floor} {results_s}");
    let status = script
        .status()
        .map_err(|e| format!("cannot run bench.sh: {e}"))?;
    if !status.success() {
        return Err(format!("tests/interop/bench.sh failed ({status})"));
    }
    let text =
        std::fs::read_to_string(&results).map_err(|e| format!("{}: {e}", results.display()))?;
    Ok(SectionRun {
        facts: Facts(text.lines().filter_map(Fact::parse).collect()),
        samples: PathBuf::from(format!("{results_s}.d")),
        machine: format!(
            "{}; {} cores; {}",
            first_line("uname", &["-sr"]),
            std::thread::available_parallelism().map_or(0, |n| n.get()),
            first_line("rustc", &["--version"])
        ),
    })
}

impl SectionRun {
    /// The raw lines of the facts of `kinds`, one per line.
    pub(crate) fn raw_lines(&self, kinds: &[&str]) -> String {
        self.facts
            .0
            .iter()
            .filter(|f| kinds.contains(&f.kind.as_str()))
            .map(|f| f.raw.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    }
}

/// Writes a section document: `docs/<file>`, or `dir/<file>` when `quick`.
pub(crate) fn write_section_doc(
    dir: &std::path::Path,
    quick: bool,
    file: &str,
    doc: &str,
) -> Result<()> {
    let path = if quick {
        dir.join(file)
    } else {
        root().join("docs").join(file)
    };
    std::fs::write(&path, doc).map_err(|e| format!("{}: {e}", path.display()))?;
    eprintln!("wrote {}", path.display());
    Ok(())
}

#[cfg(test)]
mod format_tests {
    use super::fmt;

    #[test]
    fn figures_keep_two_significant_digits_below_a_tenth() {
        assert_eq!(fmt(Some(0.0049)), "0.0049");
        assert_eq!(fmt(Some(0.0174)), "0.017");
        assert_eq!(fmt(Some(-0.0174)), "-0.017");
        assert_eq!(fmt(Some(0.54)), "0.54");
        assert_eq!(fmt(Some(0.0)), "0.00");
        assert_eq!(fmt(Some(1.714)), "1.71");
        assert_eq!(fmt(Some(52.46)), "52.5");
        assert_eq!(fmt(Some(2021.4)), "2021");
        assert_eq!(fmt(None), "-");
    }
}
