//! Project automation, run as `cargo xtask <command>`.
//!
//! * `codegen [--check]` — regenerate `crates/protocol/src/generated/` from
//!   `schemas/*.json`; with `--check`, fail if the checked-in code is stale.
//! * `ci` — what CI runs: fmt check, clippy `-D warnings`, `codegen --check`,
//!   every test, the release dry run (without `dist`), `readme`, `interop`,
//!   `bench --quick`.
//! * `golden` — regenerate `tests/golden/` with real Kafka 4.4 classes (JDK + Maven).
//! * `golden-verify` — have real Kafka decode frames written by our encoder.
//! * `image-interop` — Kafka 4.4 writes a rich metadata log and snapshot, our
//!   image loads both and writes snapshots, Kafka loads ours and compares.
//! * `topic-configs` — regenerate the topic config facts
//!   (`crates/controller/src/topic_config/kafka-topic-configs.json`) with
//!   Kafka 4.4's own `LogConfig` and `ConfigurationControlManager`.
//! * `controller-configs` — regenerate the config definitions DescribeConfigs
//!   answers from (`crates/controller/src/handlers/configs/kafka-controller-configs.json`)
//!   with Kafka 4.4's own broker, topic, group and client-metrics `ConfigDef`s.
//! * `bench-image` — the metadata image against Kafka 4.4's own image classes
//!   on the same records (not in `ci`); writes `docs/benchmarks-image.md`.
//! * `bench-brokers` — a kraft-rs 3-controller quorum against a Java Kafka
//!   4.4 one serving brokers: Java brokers' start to unfenced, heartbeat
//!   round trips, controller RSS (not in `ci`); writes
//!   `docs/benchmarks-brokers.md`.
//! * `bench-authz [--quick]` — the cost of authorization: commit latency and
//!   throughput with the StandardAuthorizer and 1,000 ACLs on and off, on
//!   kraft-rs and Kafka 4.4, and one `authorize` check against Kafka's
//!   (not in `ci`); writes `docs/benchmarks-authz.md`.
//! * `bench-tls [--quick]` — the cost of TLS and SASL: commit latency,
//!   throughput and idle RSS over PLAINTEXT, mutual TLS and SASL_SSL on
//!   kraft-rs and Kafka 4.4, and `describe --status` over mutual TLS
//!   against Kafka's tool (not in `ci`); writes `docs/benchmarks-tls.md`.
//! * `interop` — `golden-verify`; `image-interop`; our CLI against a real
//!   Kafka 4.4 quorum; real Kafka 4.4 clients and tools against ours; a
//!   kraft-rs controller in a Java quorum; Java brokers on kraft-rs
//!   controllers (`brokers.sh`), and topics produced and consumed through
//!   failures (`topics.sh`).
//! * `topics-long [RECORDS]` — `topics.sh` (kraft and mixed scenarios) with
//!   RECORDS produced records (default 100000) instead of CI's 20000.
//! * `soak --seeds N` — run the raft simulator over N seeds (release build).
//! * `soak-restarts [SECONDS]` — the rolling SIGKILL restart end-to-end test
//!   (real processes, feature changes throughout) for SECONDS (default 120).
//! * `mutants [SEEDS]` — build the raft core with each rule deliberately broken
//!   (`--cfg kraft_mutant="<name>"`) and show which simulator invariant and
//!   which model-check scenario catch it. See [`mutants`].
//! * `modelcheck` — the raft core's bounded model check with the large bound
//!   (release build; `MC_DEPTH`, `MC_STATES`, `MC_SCENARIO` override it).
//! * `bench [--quick]` — kraft-rs's controller quorum against Kafka 4.4's in
//!   one run (`tests/interop/bench.sh`, the codec ratios, inline fsync
//!   against the I/O thread); writes `docs/benchmarks.md` and its pictures
//!   under `docs/benchmarks/` (`--quick`: small counts, under
//!   `target/bench-quick/`, part of `ci`). See [`bench`].
//! * `readme` — follow README.md's set-up section word for word on a fresh
//!   clone (part of `ci`).
//! * `dist` — build the release `kraft` binary and package it under
//!   `target/dist/`.
//! * `release [--dry-run]` — check CHANGELOG.md and the crate versions,
//!   package and verify every publishable crate (`cargo publish --dry-run
//!   --workspace`), run `dist` and write `target/dist/SHA256SUMS`; without
//!   `--dry-run`, publish to crates.io in dependency order (needs
//!   `CARGO_REGISTRY_TOKEN`). See [`release`].

mod bench;
mod ci;
mod codegen;
mod dist;
mod golden;
mod interop;
mod mutants;
mod readme;
mod release;
mod soak;

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
        Some("codegen") => codegen::codegen(args.iter().any(|a| a == "--check")),
        Some("ci") => ci::ci(),
        Some("golden") => golden::golden("generate"),
        Some("golden-verify") => golden::golden_verify(),
        Some("image-interop") => interop::image_interop(),
        Some("topic-configs") => interop::topic_configs(),
        Some("controller-configs") => interop::controller_configs(),
        Some("bench-image") => bench::image::bench_image(),
        Some("bench-brokers") => bench::brokers::bench_brokers(),
        Some("bench-authz") => bench::authz::bench_authz(args.iter().any(|a| a == "--quick")),
        Some("bench-tls") => bench::tls::bench_tls(args.iter().any(|a| a == "--quick")),
        Some("interop") => interop::interop(),
        Some("topics-long") => interop::topics_long(args.get(1).map(String::as_str)),
        Some("soak") => soak::soak(&args[1..]),
        Some("soak-restarts") => soak::soak_restarts(args.get(1).map(String::as_str)),
        Some("mutants") => mutants::mutants(args.get(1).map(String::as_str)),
        Some("modelcheck") => soak::modelcheck(),
        Some("bench") => bench::bench(args.iter().any(|a| a == "--quick")),
        Some("readme") => readme::readme(),
        Some("dist") => dist::dist().map(|_| ()),
        Some("release") => release::release(&args[1..]),
        _ => Err(
            "usage: cargo xtask <codegen [--check] | ci | golden | golden-verify | image-interop | topic-configs | controller-configs | bench-image | bench-brokers | bench-authz [--quick] | bench-tls [--quick] | interop | topics-long [RECORDS] | soak --seeds N | soak-restarts [SECONDS] | mutants [SEEDS] | modelcheck | bench [--quick] | readme | dist | release [--dry-run]>"
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
