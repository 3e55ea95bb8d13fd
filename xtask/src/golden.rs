//! `cargo xtask golden` and `golden-verify`: the golden protocol vectors in
//! `tests/golden/`, written by real Kafka 4.4 classes (JDK + Maven), and
//! real Kafka decoding the frames our encoder writes.

use crate::{root, run, run_with_env, Result};

pub fn golden(mode: &str) -> Result<()> {
    run("bash", &["tests/interop/golden.sh", mode, "tests/golden"])
}

pub fn golden_verify() -> Result<()> {
    let out = root().join("target/golden-rust");
    std::fs::create_dir_all(&out).map_err(|e| e.to_string())?;
    let out_s = out.display().to_string();
    // The Rust side writes its encodings of the decoded golden values.
    run_with_env(
        "cargo",
        &[
            "test",
            "--workspace",
            "--test",
            "protocol",
            "golden::write_our_vectors",
        ],
        &[("KRAFT_GOLDEN_OUT", out_s.as_str())],
    )
    .map_err(|e| format!("rust golden tests failed: {e}"))?;
    run("bash", &["tests/interop/golden.sh", "verify", &out_s])
}
