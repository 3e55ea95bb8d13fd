//! `cargo xtask codegen [--check]`: regenerate `crates/protocol/src/generated/`
//! from `schemas/*.json` with `kraft-codegen` and rustfmt; with `--check`,
//! fail if the checked-in code is stale.

use std::collections::BTreeMap;
use std::process::Command;

use crate::{root, Result};

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

pub fn codegen(check: bool) -> Result<()> {
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
