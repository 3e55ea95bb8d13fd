//! Project automation, run as `cargo xtask <command>`.
//!
//! * `codegen [--check]` — regenerate `crates/protocol/src/generated/` from
//!   `schemas/*.json`; with `--check`, fail if the checked-in code is stale.
//! * `ci` — what CI runs: fmt check, clippy `-D warnings`, `codegen --check`,
//!   every test, the release dry run (without `dist`), `readme`, `interop`.
//! * `golden` — regenerate `tests/golden/` with real Kafka 4.4 classes (JDK + Maven).
//! * `golden-verify` — have real Kafka decode frames written by our encoder.
//! * `image-interop` — Kafka 4.4 writes a rich metadata log and snapshot, our
//!   image loads both and writes snapshots, Kafka loads ours and compares.
//! * `bench-image` — the metadata image against Kafka 4.4's own image classes
//!   on the same records (not in `ci`); writes `docs/benchmarks-image.md`.
//! * `interop` — `golden-verify`; `image-interop`; our CLI against a real
//!   Kafka 4.4 quorum; real Kafka 4.4 clients and tools against ours; a
//!   kraft-rs controller in a Java quorum.
//! * `soak --seeds N` — run the raft simulator over N seeds (release build).
//! * `soak-restarts [SECONDS]` — the rolling SIGKILL restart end-to-end test
//!   (real processes, feature changes throughout) for SECONDS (default 120).
//! * `mutants [SEEDS]` — build the raft core with each rule deliberately broken
//!   (`--cfg kraft_mutant="<name>"`) and show which simulator invariant and
//!   which model-check scenario catch it. See [`mutants`].
//! * `modelcheck` — the raft core's bounded model check with the large bound
//!   (release build; `MC_DEPTH`, `MC_STATES`, `MC_SCENARIO` override it).
//! * `bench` — run the criterion benchmarks.
//! * `readme` — follow README.md's set-up section word for word on a fresh
//!   clone (part of `ci`).
//! * `dist` — build the release `kraft` binary and package it under
//!   `target/dist/`.
//! * `release [--dry-run]` — check CHANGELOG.md and the crate versions,
//!   package and verify every publishable crate (`cargo publish --dry-run
//!   --workspace`), run `dist` and write `target/dist/SHA256SUMS`; without
//!   `--dry-run`, publish to crates.io in dependency order (needs
//!   `CARGO_REGISTRY_TOKEN`). See [`release`].

mod mutants;
mod readme;
mod release;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

type Result<T> = std::result::Result<T, String>;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."))
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("codegen") => codegen(args.iter().any(|a| a == "--check")),
        Some("ci") => ci(),
        Some("golden") => golden("generate"),
        Some("golden-verify") => golden_verify(),
        Some("image-interop") => image_interop(),
        Some("bench-image") => bench_image(),
        Some("interop") => interop(),
        Some("soak") => soak(&args[1..]),
        Some("soak-restarts") => soak_restarts(args.get(1).map(String::as_str)),
        Some("mutants") => mutants::mutants(args.get(1).map(String::as_str)),
        Some("modelcheck") => modelcheck(),
        Some("bench") => run("cargo", &["bench", "--workspace"]),
        Some("readme") => readme::readme(),
        Some("dist") => dist().map(|_| ()),
        Some("release") => release::release(&args[1..]),
        _ => Err(
            "usage: cargo xtask <codegen [--check] | ci | golden | golden-verify | image-interop | bench-image | interop | soak --seeds N | soak-restarts [SECONDS] | mutants [SEEDS] | modelcheck | bench | readme | dist | release [--dry-run]>"
                .to_string(),
        ),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("xtask: {e}");
            ExitCode::FAILURE
        }
    }
}

/// [`run`] with extra environment variables.
fn run_with_env(program: &str, args: &[&str], env: &[(&str, &str)]) -> Result<()> {
    eprintln!("$ {program} {}", args.join(" "));
    let status = Command::new(program)
        .args(args)
        .envs(env.iter().copied())
        .current_dir(root())
        .status()
        .map_err(|e| format!("cannot run {program}: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("`{program} {}` failed ({status})", args.join(" ")))
    }
}

fn run(program: &str, args: &[&str]) -> Result<()> {
    run_with_env(program, args, &[])
}

fn rustfmt(files: &BTreeMap<String, String>) -> Result<BTreeMap<String, String>> {
    let tmp = std::env::temp_dir().join(format!("kraft-codegen-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).map_err(|e| e.to_string())?;
    let mut paths = Vec::new();
    for (name, text) in files {
        let p = tmp.join(name);
        std::fs::write(&p, text).map_err(|e| e.to_string())?;
        paths.push(p);
    }
    let status = Command::new("rustfmt")
        .args(["--edition", "2021"])
        .args(&paths)
        .status()
        .map_err(|e| format!("cannot run rustfmt: {e}"))?;
    if !status.success() {
        return Err("rustfmt failed on generated code".into());
    }
    let mut out = BTreeMap::new();
    for (name, path) in files.keys().zip(&paths) {
        out.insert(
            name.clone(),
            std::fs::read_to_string(path).map_err(|e| e.to_string())?,
        );
    }
    let _ = std::fs::remove_dir_all(&tmp);
    Ok(out)
}

fn codegen(check: bool) -> Result<()> {
    let root = root();
    let specs = kraft_codegen::load_dir(&root.join("schemas")).map_err(|e| e.to_string())?;
    let files = rustfmt(&kraft_codegen::generate(&specs))?;
    let dir = root.join("crates/protocol/src/generated");
    let existing: BTreeMap<String, String> = std::fs::read_dir(&dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .filter(|e| e.path().extension().is_some_and(|x| x == "rs"))
                .filter_map(|e| {
                    let name = e.file_name().to_string_lossy().into_owned();
                    std::fs::read_to_string(e.path()).ok().map(|t| (name, t))
                })
                .collect()
        })
        .unwrap_or_default();
    if check {
        if existing == files {
            eprintln!("codegen: {} generated files are up to date", files.len());
            return Ok(());
        }
        let stale: Vec<&String> = files
            .keys()
            .filter(|k| existing.get(*k) != files.get(*k))
            .chain(existing.keys().filter(|k| !files.contains_key(*k)))
            .collect();
        return Err(format!(
            "generated code is stale ({}); run `cargo xtask codegen`",
            stale
                .iter()
                .map(|s| s.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    for name in existing.keys().filter(|k| !files.contains_key(*k)) {
        std::fs::remove_file(dir.join(name)).map_err(|e| e.to_string())?;
    }
    for (name, text) in &files {
        std::fs::write(dir.join(name), text).map_err(|e| e.to_string())?;
    }
    eprintln!(
        "codegen: wrote {} files from {} schemas",
        files.len(),
        specs.len()
    );
    Ok(())
}

fn ci() -> Result<()> {
    run("cargo", &["fmt", "--all", "--", "--check"])?;
    run(
        "cargo",
        &[
            "clippy",
            "--workspace",
            "--all-targets",
            "--",
            "-D",
            "warnings",
        ],
    )?;
    run(
        "cargo",
        &["build", "-p", "kraft-raft", "--no-default-features"],
    )?;
    codegen(true)?;
    run("cargo", &["test", "--workspace"])?;
    // Every publishable crate packaged and built from its package.
    release::ci()?;
    // The README's set-up section, followed word for word on a fresh clone.
    readme::readme()?;
    // Real Kafka 4.4 on the other side of the wire (JDK 17 + Maven).
    interop()?;
    Ok(())
}

fn golden(mode: &str) -> Result<()> {
    run("bash", &["tests/interop/golden.sh", mode, "tests/golden"])
}

fn golden_verify() -> Result<()> {
    let out = root().join("target/golden-rust");
    std::fs::create_dir_all(&out).map_err(|e| e.to_string())?;
    let out_s = out.display().to_string();
    // The Rust side writes its encodings of the decoded golden values.
    run_with_env(
        "cargo",
        &[
            "test",
            "-p",
            "kraft-protocol",
            "--test",
            "protocol",
            "golden::write_our_vectors",
        ],
        &[("KRAFT_GOLDEN_OUT", out_s.as_str())],
    )
    .map_err(|e| format!("rust golden tests failed: {e}"))?;
    run("bash", &["tests/interop/golden.sh", "verify", &out_s])
}

/// The metadata image against Kafka 4.4 (issue 13): Kafka's classes write
/// a rich metadata log and the snapshot of its image into
/// `target/image-interop`, our image loads both (they must agree) and
/// writes `ours-from-{snapshot,log}.checkpoint`, and Kafka loads those and
/// checks its images of them equal its original (and the records match).
/// `tests/interop/image-interop.sh generate crates/controller/tests/data/image`
/// refreshes the committed fixtures the plain `cargo test` run uses.
fn image_interop() -> Result<()> {
    let dir = root().join("target/image-interop");
    if dir.exists() {
        std::fs::remove_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let dir_s = dir.display().to_string();
    run(
        "bash",
        &["tests/interop/image-interop.sh", "generate", &dir_s],
    )?;
    run_with_env(
        "cargo",
        &[
            "test",
            "-p",
            "kraft-controller",
            "--test",
            "image_interop",
            "--",
            "--nocapture",
        ],
        &[("KRAFT_IMAGE_INTEROP_DIR", dir_s.as_str())],
    )
    .map_err(|e| format!("the image interop test failed: {e}"))?;
    run(
        "bash",
        &["tests/interop/image-interop.sh", "compare", &dir_s],
    )
}

/// Interoperability with real Apache Kafka 4.4: Kafka decodes what our
/// encoder writes, and our CLI and admin client drive a real Kafka quorum
/// with output compared to Kafka's own tools.
fn interop() -> Result<()> {
    golden_verify()?;
    image_interop()?;
    run_with_env(
        "cargo",
        &[
            "test",
            "-p",
            "kraft-cli",
            "--test",
            "interop_kafka",
            "--",
            "--nocapture",
        ],
        &[("KRAFT_INTEROP", "1")],
    )
    .map_err(|e| format!("interop tests against real Kafka 4.4 failed: {e}"))?;
    // A kraft-rs controller inside a real Kafka controller quorum.
    run("cargo", &["build", "-p", "kraft-cli"])?;
    let kraft = root().join("target/debug/kraft");
    run(
        "bash",
        &[
            "tests/interop/mixed-quorum.sh",
            &kraft.display().to_string(),
        ],
    )?;
    // ... with a Java broker: kraft-rs's snapshots hold the whole image, a
    // Java controller catches up from one, and a kraft-rs-formatted cluster
    // takes a Java controller and broker.
    run(
        "bash",
        &[
            "tests/interop/mixed-broker.sh",
            &kraft.display().to_string(),
        ],
    )
}

fn modelcheck() -> Result<()> {
    run_with_env(
        "cargo",
        &[
            "test",
            "--release",
            "-p",
            "kraft-raft",
            "--test",
            "simulation",
            "model_check",
            "--",
            "--nocapture",
        ],
        &[("MC_BIG", "1")],
    )
}

fn soak(args: &[String]) -> Result<()> {
    let seeds = args
        .iter()
        .position(|a| a == "--seeds")
        .and_then(|i| args.get(i + 1))
        .cloned()
        .unwrap_or_else(|| "10000".into());
    run_with_env(
        "cargo",
        &[
            "test",
            "--release",
            "-p",
            "kraft-raft",
            "--test",
            "simulation",
        ],
        &[("SIM_SEEDS", seeds.as_str())],
    )
}

/// The rolling-restart end-to-end test (`e2e::rolling_restarts`) with its
/// client loop running for `seconds` (default 120) instead of the CI length.
fn soak_restarts(seconds: Option<&str>) -> Result<()> {
    let seconds = seconds.unwrap_or("120");
    if seconds.parse::<u64>().map_or(true, |s| s == 0) {
        return Err(format!(
            "soak-restarts: SECONDS must be a positive whole number, not {seconds:?}"
        ));
    }
    run_with_env(
        "cargo",
        &[
            "test",
            "-p",
            "kraft-cli",
            "--test",
            "cli",
            "e2e::rolling_restarts",
            "--",
            "--nocapture",
        ],
        &[("KRAFT_ROLLING_RESTARTS_SECS", seconds)],
    )
}

/// Builds the release `kraft` binary and packages it with the README and the
/// docs as `target/dist/kraft-<version>-<os>-<arch>.tar.gz`, and returns the
/// archive's path.
fn dist() -> Result<PathBuf> {
    run(
        "cargo",
        &["build", "--release", "--locked", "--bin", "kraft"],
    )?;
    let version = env!("CARGO_PKG_VERSION");
    let name = format!(
        "kraft-{version}-{}-{}",
        std::env::consts::OS,
        std::env::consts::ARCH
    );
    let root = root();
    let stage = root.join("target/dist").join(&name);
    let _ = std::fs::remove_dir_all(&stage);
    std::fs::create_dir_all(&stage).map_err(|e| format!("{}: {e}", stage.display()))?;
    for (from, to) in [
        ("target/release/kraft", "kraft"),
        ("README.md", "README.md"),
        ("docs/STATUS.md", "STATUS.md"),
        ("docs/compatibility.md", "compatibility.md"),
    ] {
        std::fs::copy(root.join(from), stage.join(to)).map_err(|e| format!("{from}: {e}"))?;
    }
    let archive = format!("target/dist/{name}.tar.gz");
    run("tar", &["-czf", &archive, "-C", "target/dist", &name])?;
    eprintln!("dist: wrote {archive}");
    Ok(root.join(archive))
}

/// The metadata image against Kafka 4.4's own image classes on the same
/// records (issue 13): `benches/image.rs` writes its workload (10 brokers,
/// 10,000 topics x 10 partitions, 1,000 ACLs) to
/// `target/image-bench/records.bin` and its summary line, then
/// `tests/interop/.../ImageBench.java` measures Kafka on that file (JIT
/// warmed, medians). Prints both, the ratios against the targets (replay at
/// least 2x Kafka's records/s, at most 0.25x Kafka's heap per partition) and
/// writes `docs/benchmarks-image.md`. Not part of `ci` (too heavy).
fn bench_image() -> Result<()> {
    let root = root();
    let dir = root.join("target/image-bench");
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let dir_s = dir.display().to_string();
    let _ = std::fs::remove_file(dir.join("kraft-rs.txt"));
    let bench_args = [
        "bench",
        "-p",
        "kraft-controller",
        "--bench",
        "image",
        "--",
        "--warm-up-time",
        "1",
        "--measurement-time",
        "3",
    ];
    run_with_env("cargo", &bench_args, &[("KRAFT_IMAGE_BENCH_DIR", &dir_s)])?;
    let ours = std::fs::read_to_string(dir.join("kraft-rs.txt"))
        .map_err(|e| format!("the Rust bench wrote no summary: {e}"))?;
    let pom = "tests/interop/pom.xml";
    if run("mvn", &["-q", "-B", "-o", "-f", pom, "compile"]).is_err() {
        run("mvn", &["-q", "-B", "-f", pom, "compile"])?;
    }
    let interop = root.join("tests/interop/target");
    let deps = std::fs::read_to_string(interop.join("classpath.txt")).map_err(|e| e.to_string())?;
    let cp = format!("{}:{}", interop.join("classes").display(), deps.trim());
    let jvm_flags = ["-Xmx2g"];
    let records = dir.join("records.bin").display().to_string();
    let mut java_args: Vec<&str> = jvm_flags.to_vec();
    java_args.extend(["-cp", &cp, "org.kraftrs.interop.ImageBench", &records]);
    eprintln!(
        "$ java {} -cp ... org.kraftrs.interop.ImageBench {records}",
        jvm_flags.join(" ")
    );
    let out = Command::new("java")
        .args(&java_args)
        .current_dir(&root)
        .output()
        .map_err(|e| format!("cannot run java: {e}"))?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() {
        return Err(format!(
            "ImageBench failed ({}):\n{stdout}{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let kafka = stdout
        .lines()
        .find(|l| l.starts_with("kafka "))
        .ok_or_else(|| format!("ImageBench printed no `kafka ...` line:\n{stdout}"))?
        .to_string();
    let fields = |line: &str| -> BTreeMap<String, String> {
        line.split_whitespace()
            .filter_map(|kv| kv.split_once('='))
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    };
    let (o, k) = (fields(ours.trim()), fields(&kafka));
    let num = |m: &BTreeMap<String, String>, key: &str| -> Result<f64> {
        m.get(key)
            .and_then(|v| v.parse().ok())
            .ok_or_else(|| format!("no number `{key}` in the summary"))
    };
    // (what, our key, Kafka's key, target on ours/Kafka)
    type Row = (
        &'static str,
        &'static str,
        &'static str,
        Option<(&'static str, f64)>,
    );
    let rows: [Row; 7] = [
        (
            "replay (records/s)",
            "replay_records_per_s",
            "replay_records_per_s",
            Some((">=", 2.0)),
        ),
        ("replay (ms)", "replay_ms", "replay_ms", Some(("<=", 0.5))),
        (
            "snapshot write (ms)",
            "snapshot_write_ms",
            "snapshot_write_ms",
            None,
        ),
        (
            "snapshot load (ms)",
            "snapshot_load_ms",
            "snapshot_load_ms",
            None,
        ),
        (
            "snapshot size (bytes)",
            "snapshot_bytes",
            "snapshot_bytes",
            None,
        ),
        (
            "memory/partition: our heap vs Kafka heap after GC (bytes)",
            "heap_bytes_per_partition",
            "heap_bytes_per_partition",
            Some(("<=", 0.25)),
        ),
        (
            "memory/partition: our RSS growth vs Kafka heap after GC (bytes)",
            "rss_bytes_per_partition",
            "heap_bytes_per_partition",
            Some(("<=", 0.25)),
        ),
    ];
    let mut table = String::from(
        "| metric | kraft-rs | Kafka 4.4 | ours/Kafka | target | met |\n|---|---:|---:|---:|---|---|\n",
    );
    for (what, ok, kk, target) in rows {
        let (a, b) = (num(&o, ok)?, num(&k, kk)?);
        let ratio = a / b;
        let (t, met) = match target {
            Some((">=", t)) => (format!(">= {t}"), if ratio >= t { "yes" } else { "NO" }),
            Some((_, t)) => (format!("<= {t}"), if ratio <= t { "yes" } else { "NO" }),
            None => ("-".into(), "-"),
        };
        let fmt = |x: f64| {
            if x >= 1000.0 || x.fract() == 0.0 {
                format!("{x:.0}")
            } else {
                format!("{x:.2}")
            }
        };
        table.push_str(&format!(
            "| {what} | {} | {} | {ratio:.3} | {t} | {met} |\n",
            fmt(a),
            fmt(b)
        ));
    }
    let sh = |program: &str, args: &[&str]| -> String {
        Command::new(program)
            .args(args)
            .output()
            .map(|o| {
                let mut s = String::from_utf8_lossy(&o.stdout).into_owned();
                s.push_str(&String::from_utf8_lossy(&o.stderr));
                s.lines().next().unwrap_or("").trim().to_string()
            })
            .unwrap_or_else(|e| format!("({program}: {e})"))
    };
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|c| {
            c.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, v)| v.trim().to_string())
        })
        .unwrap_or_else(|| "unknown".into());
    let doc = format!(
        "# The metadata image against Kafka 4.4's own classes\n\n\
         Generated by `cargo xtask bench-image` (do not edit by hand); issue 13.\n\n\
         Workload (`crates/controller/benches/image.rs`, written to `target/image-bench/records.bin` and \
         read by both sides): 10 brokers, 10,000 topics x 10 partitions (RF 3, PartitionRecord v2 with \
         directories and empty ELR), a config on every 10th topic, 1,000 ACLs; {} records, {} partitions.\n\n\
         * kraft-rs: `cargo bench -p kraft-controller --bench image` (release profile), medians of {} runs \
         after one untimed run, each output dropped outside the timing; replay = decode + apply every value into `MetadataImage`; snapshot write = \
         `to_values` + `encode_snapshot` (8 MiB batches, in memory); snapshot load = `decode_snapshot` + \
         `from_snapshot_values`; heap = live bytes held by the image (counting allocator); RSS = growth of \
         the process's resident set over one replay.\n\
         * Kafka: `tests/interop/src/main/java/org/kraftrs/interop/ImageBench.java` on Kafka 4.4.0's jars, \
         JVM flags `{}` (default GC: {}), Java {}; {} warm-up rounds, then the median of {} runs, each after a `System.gc()` (outside the timing) that \
         collects the previous output; replay = \
         `MetadataRecordSerde` + `MetadataDelta.replay` + `apply`; snapshot write = `MetadataImage.write` \
         through `RaftSnapshotWriter` (1,024 records per append) and `RecordsSnapshotWriter` (8 MiB batches) \
         into memory; snapshot load = `RecordsSnapshotReader` (CRC checked) + replay into a fresh delta + \
         `finishSnapshot` + `apply`; heap = used heap after `System.gc()` with the image held minus without.\n\n\
         Date: {}. Machine: {} CPUs (`nproc`), kernel {} (`uname -r`), {cpu}; {}. Shared machine: other \
         work may have run at the same time, so timings are noisy.\n\n\
         {table}\n\
         Targets: replay at least 2x Kafka's records/s (i.e. at most 0.5x its time), at most 0.25x Kafka's \
         memory per partition. Our heap figure counts the bytes the image asked the allocator for (no \
         malloc chunk overhead); the RSS figure includes it (and any allocator slack), closer to what a \
         JVM's heap after GC counts (object headers, padding).\n\n\
         Raw lines:\n\n```text\n{}\n{}\n```\n",
        o.get("records").map_or("?", String::as_str),
        o.get("partitions").map_or("?", String::as_str),
        o.get("runs").map_or("?", String::as_str),
        jvm_flags.join(" "),
        k.get("gc").map_or("?", String::as_str),
        k.get("java").map_or("?", String::as_str),
        k.get("warmup").map_or("?", String::as_str),
        k.get("runs").map_or("?", String::as_str),
        sh("date", &["-u", "+%Y-%m-%d %H:%M UTC"]),
        sh("nproc", &[]),
        sh("uname", &["-r"]),
        sh("rustc", &["-V"]),
        ours.trim(),
        kafka.trim(),
    );
    let path = root.join("docs/benchmarks-image.md");
    std::fs::write(&path, doc).map_err(|e| format!("{}: {e}", path.display()))?;
    println!("{}\n{}\n\n{table}", ours.trim(), kafka.trim());
    eprintln!("bench-image: wrote {}", path.display());
    Ok(())
}
