//! `cargo xtask soak`, `soak-restarts` and `modelcheck`: the long
//! correctness runs kept out of `ci`: the raft simulator over many seeds,
//! the rolling SIGKILL restart end-to-end test for minutes, and the raft
//! core's bounded model check with the large bound.

use crate::{run_with_env, Result};

pub fn modelcheck() -> Result<()> {
    run_with_env(
        "cargo",
        &[
            "test",
            "--release",
            "--workspace",
            "--test",
            "simulation",
            "model_check",
            "--",
            "--nocapture",
        ],
        &[("MC_BIG", "1")],
    )
}

pub fn soak(args: &[String]) -> Result<()> {
    let seeds = args
        .iter()
        .position(|a| a == "--seeds")
        .and_then(|i| args.get(i + 1))
        .cloned()
        .unwrap_or_else(|| "10000".into());
    run_with_env(
        "cargo",
        &["test", "--release", "--workspace", "--test", "simulation"],
        &[("SIM_SEEDS", seeds.as_str())],
    )
}

/// The rolling-restart end-to-end test (`e2e::rolling_restarts`) with its
/// client loop running for `seconds` (default 120) instead of the CI length.
pub fn soak_restarts(seconds: Option<&str>) -> Result<()> {
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
            "--workspace",
            "--test",
            "cli",
            "e2e::rolling_restarts",
            "--",
            "--nocapture",
        ],
        &[("KRAFT_ROLLING_RESTARTS_SECS", seconds)],
    )
}
