//! `cargo xtask dist`: the release `kraft` binary packaged with the README
//! and the docs under `target/dist/` (also a step of `release`), and the
//! build context of the container image (`docker/Dockerfile`) beside it.

use std::path::{Path, PathBuf};

use crate::{root, run, Result};

/// Builds the release `kraft` binary and packages it with the README and the
/// docs as `target/dist/kraft-<version>-<os>-<arch>.tar.gz`, stages the
/// image's build context in `target/dist/kraft-<version>-<os>-<arch>-image/`
/// (see [`stage_image`]), and returns the archive's path.
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
        ("config/controller.properties", "controller.properties"),
        ("docs/kraft-controller.service", "kraft-controller.service"),
        ("docs/STATUS.md", "STATUS.md"),
        ("docs/compatibility.md", "compatibility.md"),
    ] {
        std::fs::copy(root.join(from), stage.join(to)).map_err(|e| format!("{from}: {e}"))?;
    }
    let archive = format!("target/dist/{name}.tar.gz");
    run("tar", &["-czf", &archive, "-C", "target/dist", &name])?;
    eprintln!("dist: wrote {archive}");
    let image = root.join("target/dist").join(format!("{name}-image"));
    stage_image(&root, &root.join("target/release/kraft"), &image)?;
    eprintln!(
        "dist: staged the image build context in {0} (docker build -t kraft:{version} {0})",
        image.display()
    );
    Ok(root.join(archive))
}

/// What the image's build context holds: (source in the repository, name in
/// the context). The binary comes first, from wherever it was built.
const IMAGE_FILES: [(&str, &str); 3] = [
    ("docker/Dockerfile", "Dockerfile"),
    ("docker/server.properties", "server.properties"),
    ("config/controller.properties", "controller.properties"),
];

/// Stages the container image's build context in `dest` (emptied first):
/// `binary` as `kraft` (mode 0755), `docker/Dockerfile`, the image's default
/// `server.properties` and the example `controller.properties`. Fails when
/// a `COPY` of the Dockerfile names a file the context does not hold.
pub fn stage_image(root: &Path, binary: &Path, dest: &Path) -> Result<()> {
    let _ = std::fs::remove_dir_all(dest);
    std::fs::create_dir_all(dest).map_err(|e| format!("{}: {e}", dest.display()))?;
    std::fs::copy(binary, dest.join("kraft")).map_err(|e| format!("{}: {e}", binary.display()))?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(dest.join("kraft"), std::fs::Permissions::from_mode(0o755))
            .map_err(|e| format!("{}: {e}", dest.display()))?;
    }
    for (from, to) in IMAGE_FILES {
        std::fs::copy(root.join(from), dest.join(to)).map_err(|e| format!("{from}: {e}"))?;
    }
    let dockerfile =
        std::fs::read_to_string(dest.join("Dockerfile")).map_err(|e| format!("Dockerfile: {e}"))?;
    for source in copy_sources(&dockerfile) {
        if !dest.join(&source).exists() {
            return Err(format!(
                "docker/Dockerfile copies {source}, which the image context {} lacks",
                dest.display()
            ));
        }
    }
    Ok(())
}

/// The context paths the Dockerfile's `COPY` instructions read (flags such
/// as `--chown` skipped, `--from` stages ignored; the last word is the
/// destination).
fn copy_sources(dockerfile: &str) -> Vec<String> {
    let mut sources = Vec::new();
    for line in dockerfile.lines().map(str::trim) {
        let Some(rest) = line.strip_prefix("COPY ") else {
            continue;
        };
        let words: Vec<&str> = rest.split_whitespace().collect();
        if words.iter().any(|w| w.starts_with("--from")) {
            continue;
        }
        let args: Vec<&str> = words.into_iter().filter(|w| !w.starts_with("--")).collect();
        if let Some((_, from)) = args.split_last() {
            sources.extend(from.iter().map(|s| (*s).to_owned()));
        }
    }
    sources
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_image_context_holds_what_the_dockerfile_copies() {
        let tmp = std::env::temp_dir().join(format!("xtask-dist-image-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&tmp);
        std::fs::create_dir_all(&tmp).expect("tmp");
        let fake = tmp.join("fake-kraft");
        std::fs::write(&fake, b"#!/bin/sh\necho fake kraft\n").expect("fake binary");
        let dest = tmp.join("image");
        std::fs::create_dir_all(dest.join("stale")).expect("stale dir");
        stage_image(&root(), &fake, &dest).expect("stage");

        let mut names: Vec<String> = std::fs::read_dir(&dest)
            .expect("read")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(
            names,
            [
                "Dockerfile",
                "controller.properties",
                "kraft",
                "server.properties"
            ]
        );
        assert_eq!(
            std::fs::read(dest.join("kraft")).expect("kraft"),
            std::fs::read(&fake).expect("fake")
        );
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(dest.join("kraft"))
                .expect("stat")
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o755);
        }
        let dockerfile = std::fs::read_to_string(dest.join("Dockerfile")).expect("Dockerfile");
        let mut copied = copy_sources(&dockerfile);
        copied.sort();
        assert_eq!(
            copied,
            ["controller.properties", "kraft", "server.properties"]
        );
        for needed in [
            "USER kraft",
            "VOLUME [\"/var/lib/kraft\"",
            "EXPOSE 9093",
            "ENTRYPOINT [\"/usr/local/bin/kraft\"]",
        ] {
            assert!(dockerfile.contains(needed), "{needed}");
        }
        let _ = std::fs::remove_dir_all(&tmp);
    }

    #[test]
    fn copy_sources_skips_flags_and_stages() {
        let text = "COPY a b /dst/\nCOPY --chown=x:y c /d\nCOPY --from=build e /f\nRUN COPY x y\n";
        assert_eq!(copy_sources(text), ["a", "b", "c"]);
    }
}
