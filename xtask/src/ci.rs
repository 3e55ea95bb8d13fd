//! `cargo xtask ci`: what CI runs, in order: fmt check, clippy
//! `-D warnings`, the raft core without default features, `codegen
//! --check`, every test, `interop`, `bench --quick`, the release dry run
//! (without `dist`), `readme`.

use crate::{bench, codegen, interop, readme, release, run, Result};

pub fn ci() -> Result<()> {
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
    codegen::codegen(true)?;
    run("cargo", &["test", "--workspace"])?;
    // Real Kafka 4.4 on the other side of the wire (JDK 17 + Maven). Right
    // after the tests, whose builds its test runs reuse.
    interop::interop()?;
    // The benchmark harness end to end with small counts (no speed asserted).
    bench::bench(true)?;
    // Every publishable crate packaged and built from its package. After
    // the steps above: it drops the workspace crates' build fingerprints
    // (see `release`), which would make them compile again.
    release::ci()?;
    // The README's set-up section, followed word for word on a fresh clone.
    readme::readme()?;
    Ok(())
}
