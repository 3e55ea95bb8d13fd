//! `kraft-codegen`: parses Kafka's JSON message schemas into a typed model
//! ([`model`]) and generates the Rust codec of `kraft-protocol` ([`emit`]).
//!
//! Used by `cargo xtask codegen`; never at run time.
#![cfg_attr(doctest, doc = include_str!("../README.md"))]

pub mod emit;
pub mod model;

use std::collections::BTreeMap;
use std::path::Path;

pub use model::{parse_schema, MessageSpec};

/// A schema that cannot be used, or a file that cannot be read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SchemaError {
    /// The schema breaks a rule of the format.
    #[error("{file}: {field}: {message}")]
    Invalid {
        /// The schema file.
        file: String,
        /// The field path (`Message.Struct.Field`) or top-level key.
        field: String,
        /// What is wrong.
        message: String,
    },
    /// Reading the schema directory failed.
    #[error("{path}: {source}")]
    Io {
        /// The path.
        path: String,
        /// The I/O error.
        source: std::io::Error,
    },
}

/// Parses every `*.json` schema in `dir`, sorted by file name.
pub fn load_dir(dir: &Path) -> Result<Vec<MessageSpec>, SchemaError> {
    let io = |path: &Path, source| SchemaError::Io {
        path: path.display().to_string(),
        source,
    };
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .map_err(|e| io(dir, e))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    let mut specs = Vec::with_capacity(files.len());
    for path in files {
        let text = std::fs::read_to_string(&path).map_err(|e| io(&path, e))?;
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        specs.push(parse_schema(&name, &text)?);
    }
    let mut seen = BTreeMap::new();
    for s in &specs {
        if let Some(prev) = seen.insert(s.name.clone(), s.file.clone()) {
            return Err(SchemaError::Invalid {
                file: s.file.clone(),
                field: "name".into(),
                message: format!("message {} is also defined in {prev}", s.name),
            });
        }
    }
    Ok(specs)
}

/// Generates every output file (relative path → contents) for a schema set.
pub fn generate(specs: &[MessageSpec]) -> BTreeMap<String, String> {
    let mut files = BTreeMap::new();
    for s in specs {
        files.insert(
            format!("{}.rs", emit::snake_case(&s.name)),
            emit::emit_message(s),
        );
    }
    files.insert("api_key.rs".into(), emit::emit_api_keys(specs));
    files.insert(
        "metadata_record.rs".into(),
        emit::emit_metadata_records(specs),
    );
    files.insert("mod.rs".into(), emit::emit_mod(specs));
    files
}
