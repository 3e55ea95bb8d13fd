//! `cargo xtask dist`: the release `kraft` binary packaged with the README
//! and the docs under `target/dist/` (also a step of `release`).

use std::path::PathBuf;

use crate::{root, run, Result};

/// Builds the release `kraft` binary and packages it with the README and the
/// docs as `target/dist/kraft-<version>-<os>-<arch>.tar.gz`, and returns the
/// archive's path.
pub fn dist() -> Result<PathBuf> {
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
