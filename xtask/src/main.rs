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
            "usage: cargo xtask <codegen [--check] | ci | golden | golden-verify | image-interop | interop | soak --seeds N | soak-restarts [SECONDS] | mutants [SEEDS] | modelcheck | bench | readme | dist | release [--dry-run]>"
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
