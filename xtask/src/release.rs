//! `cargo xtask release [--dry-run]`: check, package, verify and (without
//! `--dry-run`) publish every publishable crate of the workspace.
//!
//! 1. `CHANGELOG.md` at the root has a `## <version>` (or `## [<version>]`)
//!    section for the workspace version.
//! 2. Every publishable member (everything but `publish = false` ones, i.e.
//!    xtask) has the workspace version, a `README.md` and a `LICENSE` equal to
//!    the root one (cargo packages only files inside a crate's directory, so
//!    each crate carries its own copy).
//! 3. `cargo publish --dry-run --workspace --locked` packages every crate and
//!    verifies it by building the packaged sources in dependency order. The
//!    crates depend on each other with `path` + `version`; cargo (1.90 and
//!    later) resolves the unpublished siblings from a local registry under
//!    `target/package/tmp-registry`, so the dry run needs nothing published
//!    and no token. It rebuilds every crate from `target/package/`.
//! 4. `cargo xtask dist`'s release binary and tarball, and the `.crate`
//!    files, land in `target/dist/` with a `SHA256SUMS` file.
//! 5. Without `--dry-run`: refuses unless `CARGO_REGISTRY_TOKEN` is set, then
//!    `cargo publish --workspace --locked --no-verify` (step 3 verified the
//!    same tree), which uploads in dependency order
//!    and waits for each crate to be available before publishing the crates
//!    that depend on it. It refuses a working tree with uncommitted changes
//!    (the dry run allows them, so that `cargo xtask ci` works on a dirty
//!    tree).
//!
//! `cargo xtask ci` runs steps 1 to 3 ([`ci`]): the checks and the packaging
//! dry run, without the dist step.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::{root, run, Result};

/// A workspace member that can be published.
struct Crate {
    name: String,
    version: String,
    dir: PathBuf,
}

/// `cargo xtask release [--dry-run]`.
pub fn release(args: &[String]) -> Result<()> {
    let dry_run = args.iter().any(|a| a == "--dry-run");
    if let Some(bad) = args.iter().find(|a| *a != "--dry-run") {
        return Err(format!(
            "release: unknown argument {bad:?}; usage: cargo xtask release [--dry-run]"
        ));
    }
    let token_set = std::env::var("CARGO_REGISTRY_TOKEN").is_ok_and(|t| !t.trim().is_empty());
    if !dry_run && !token_set {
        return Err(
            "release: CARGO_REGISTRY_TOKEN is not set; run `cargo xtask release --dry-run` to check without publishing"
                .into(),
        );
    }
    let crates = check()?;
    package_and_verify(dry_run)?;
    let archive = crate::dist::dist()?;
    checksums(&archive, &crates)?;
    if dry_run {
        eprintln!(
            "release: dry run passed for {} crates; nothing was published",
            crates.len()
        );
        return Ok(());
    }
    // The packages were verified a moment ago by the dry run, from the same tree.
    let mut args = vec!["publish", "--workspace", "--locked", "--no-verify"];
    let excluded = non_publishable()?;
    for name in &excluded {
        args.extend(["--exclude", name.as_str()]);
    }
    run("cargo", &args)?;
    eprintln!("release: published {} crates", crates.len());
    Ok(())
}

/// What `cargo xtask ci` runs: steps 1 to 3, allowing a dirty working tree.
pub fn ci() -> Result<()> {
    check()?;
    package_and_verify(true)
}

/// Steps 1 and 2: the changelog, the versions, the README and LICENSE files.
/// Returns the publishable crates.
fn check() -> Result<Vec<Crate>> {
    let root = root();
    let version = workspace_version(&root)?;
    let changelog = std::fs::read_to_string(root.join("CHANGELOG.md"))
        .map_err(|e| format!("release: CHANGELOG.md: {e}"))?;
    if !has_section(&changelog, &version) {
        return Err(format!(
            "release: CHANGELOG.md has no `## {version}` section for the workspace version"
        ));
    }
    let license = std::fs::read(root.join("LICENSE")).map_err(|e| format!("LICENSE: {e}"))?;
    let crates = publishable()?;
    let mut problems = Vec::new();
    for c in &crates {
        if c.version != version {
            problems.push(format!(
                "{} has version {}, the workspace has {version}",
                c.name, c.version
            ));
        }
        if !c.dir.join("README.md").is_file() {
            problems.push(format!("{} has no README.md", c.name));
        }
        if std::fs::read(c.dir.join("LICENSE")).ok().as_deref() != Some(license.as_slice()) {
            problems.push(format!(
                "{}: {}/LICENSE is missing or differs from the root LICENSE",
                c.name,
                c.dir.display()
            ));
        }
    }
    if !problems.is_empty() {
        return Err(format!("release: {}", problems.join("; ")));
    }
    eprintln!(
        "release: version {version}; crates {}",
        crates
            .iter()
            .map(|c| c.name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    );
    Ok(crates)
}

/// Step 3: package every publishable crate and build it from its package.
fn package_and_verify(allow_dirty: bool) -> Result<()> {
    forget_earlier_packages(&publishable()?);
    let excluded = non_publishable()?;
    let mut args = vec!["publish", "--dry-run", "--workspace", "--locked"];
    if allow_dirty {
        args.push("--allow-dirty");
    }
    for name in &excluded {
        args.extend(["--exclude", name.as_str()]);
    }
    run("cargo", &args)
}

/// Cargo unpacks the packages of the temporary registry the dry run builds
/// from into `$CARGO_HOME/registry/src/-<hash>/<name>-<version>` and never
/// unpacks a name and version again, so a second dry run at the same
/// version would verify a crate against its siblings' earlier contents.
/// Those unpacked copies (never the crates.io ones) are removed first, and
/// so are the build fingerprints of the workspace crates: the dry run
/// builds in the workspace's target directory, where cargo treats a
/// registry package it compiled once as never changing.
fn forget_earlier_packages(crates: &[Crate]) {
    for profile in ["debug", "release"] {
        let fingerprints = root().join("target").join(profile).join(".fingerprint");
        let Ok(entries) = std::fs::read_dir(&fingerprints) else {
            continue;
        };
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if crates
                .iter()
                .any(|c| name.starts_with(&format!("{}-", c.name)))
            {
                let _ = std::fs::remove_dir_all(entry.path());
            }
        }
    }
    let home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")));
    let Some(src) = home.map(|h| h.join("registry").join("src")) else {
        return;
    };
    let Ok(registries) = std::fs::read_dir(&src) else {
        return;
    };
    for registry in registries.flatten() {
        // Local registries have no host name: their directory is `-<hash>`.
        if !registry.file_name().to_string_lossy().starts_with('-') {
            continue;
        }
        for c in crates {
            let unpacked = registry.path().join(format!("{}-{}", c.name, c.version));
            if unpacked.is_dir() {
                let _ = std::fs::remove_dir_all(&unpacked);
            }
        }
    }
}

/// Step 4: copies the `.crate` files next to the tarball and writes
/// `target/dist/SHA256SUMS` for all of them.
fn checksums(archive: &Path, crates: &[Crate]) -> Result<()> {
    let root = root();
    let dist = root.join("target/dist");
    let mut files = vec![archive
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .ok_or_else(|| format!("{}: no file name", archive.display()))?];
    for c in crates {
        let name = format!("{}-{}.crate", c.name, c.version);
        // `cargo package` leaves the file in target/package; a workspace
        // `cargo publish --dry-run` (cargo 1.90+) in its temporary registry.
        let package = root.join("target/package");
        let from = [
            package.join(&name),
            package.join("tmp-registry").join(&name),
        ]
        .into_iter()
        .find(|p| p.is_file())
        .unwrap_or_else(|| package.join(&name));
        std::fs::copy(&from, dist.join(&name)).map_err(|e| format!("{}: {e}", from.display()))?;
        files.push(name);
    }
    let out = Command::new("sha256sum")
        .args(&files)
        .current_dir(&dist)
        .output()
        .or_else(|_| {
            Command::new("shasum")
                .args(["-a", "256"])
                .args(&files)
                .current_dir(&dist)
                .output()
        })
        .map_err(|e| format!("cannot run sha256sum or shasum: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "sha256sum failed: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    std::fs::write(dist.join("SHA256SUMS"), &out.stdout).map_err(|e| e.to_string())?;
    eprintln!("release: wrote target/dist/SHA256SUMS");
    Ok(())
}

/// `version` of `[workspace.package]` in the root Cargo.toml.
fn workspace_version(root: &Path) -> Result<String> {
    let text = std::fs::read_to_string(root.join("Cargo.toml")).map_err(|e| e.to_string())?;
    let mut in_section = false;
    for line in text.lines().map(str::trim) {
        if line.starts_with('[') {
            in_section = line == "[workspace.package]";
        } else if in_section {
            if let Some(v) = line
                .strip_prefix("version")
                .map(str::trim_start)
                .and_then(|r| r.strip_prefix('='))
            {
                return Ok(v.trim().trim_matches('"').to_string());
            }
        }
    }
    Err("Cargo.toml: no version in [workspace.package]".into())
}

/// Whether `changelog` has a second-level heading for `version`.
fn has_section(changelog: &str, version: &str) -> bool {
    changelog.lines().any(|l| {
        l.strip_prefix("## ").is_some_and(|h| {
            let h = h.trim_start();
            let h = h.strip_prefix('[').unwrap_or(h);
            h.strip_prefix(version)
                .is_some_and(|rest| rest.is_empty() || rest.starts_with([']', ' ']))
        })
    })
}

/// Every workspace member, from `cargo metadata`.
fn members() -> Result<Vec<Value>> {
    let out = Command::new("cargo")
        .args(["metadata", "--format-version", "1", "--no-deps", "--locked"])
        .current_dir(root())
        .output()
        .map_err(|e| format!("cannot run cargo metadata: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "cargo metadata failed: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let meta: Value = serde_json::from_slice(&out.stdout).map_err(|e| e.to_string())?;
    Ok(meta["packages"].as_array().cloned().unwrap_or_default())
}

/// `publish = false` means `"publish": []` in the metadata.
fn is_publishable(p: &Value) -> bool {
    p["publish"].as_array().is_none_or(|r| !r.is_empty())
}

fn non_publishable() -> Result<Vec<String>> {
    Ok(members()?
        .iter()
        .filter(|p| !is_publishable(p))
        .filter_map(|p| p["name"].as_str().map(String::from))
        .collect())
}

fn publishable() -> Result<Vec<Crate>> {
    members()?
        .iter()
        .filter(|p| is_publishable(p))
        .map(|p| {
            let field = |k: &str| {
                p[k].as_str()
                    .map(String::from)
                    .ok_or_else(|| format!("cargo metadata: package without {k}"))
            };
            let manifest = PathBuf::from(field("manifest_path")?);
            Ok(Crate {
                name: field("name")?,
                version: field("version")?,
                dir: manifest.parent().map(Path::to_path_buf).unwrap_or_default(),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::has_section;

    #[test]
    fn changelog_sections() {
        assert!(has_section("# Changelog\n\n## 0.1.0\n", "0.1.0"));
        assert!(has_section("## [0.1.0] - 2025-01-01\n", "0.1.0"));
        assert!(!has_section("## 0.1.01\n", "0.1.0"));
        assert!(!has_section("### 0.1.0\n", "0.1.0"));
    }
}
