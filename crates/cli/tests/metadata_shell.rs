//! `kraft metadata-shell` against Kafka's `kafka-metadata-shell.sh` (class
//! `org.apache.kafka.shell.MetadataShell`): every case in
//! `tests/golden/metadata-shell` (NAME.args, one argument a line, paths
//! relative to this crate's directory; NAME.stdin, when present, the lines
//! typed into an interactive session) holds the stdout and exit status
//! Kafka's shell gave for the same arguments and input, run from
//! `crates/cli`.
//!
//! The golden files are written by `tests/interop/metadata-shell.sh record`
//! (from the repository root), which runs Kafka's shell through
//! `tests/interop/kafka-quorum.sh java` and stores its stdout in
//! NAME.stdout and its exit status in NAME.code. The files read are the
//! Kafka-written and kraft-rs-written segments and snapshots of
//! `tests/data/dump-log` (see the README there).

use std::fs;
use std::path::Path;
use std::process::{Command, Stdio};

/// Runs the `kraft` binary in this crate's directory with `args` and
/// `stdin`: (stdout, stderr, exit status).
fn kraft(args: &[String], stdin: Option<&Path>) -> (String, String, i32) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let input = match stdin {
        Some(path) => Stdio::from(fs::File::open(path).expect("stdin file")),
        None => Stdio::null(),
    };
    let output = Command::new(env!("CARGO_BIN_EXE_kraft"))
        .arg("metadata-shell")
        .args(args)
        .current_dir(root)
        .stdin(input)
        .env_remove("KRAFT_LOG")
        .output()
        .expect("run kraft");
    (
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
        output.status.code().unwrap_or(-1),
    )
}

#[test]
fn metadata_shell_prints_what_kafka_prints() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = root.join("tests/golden/metadata-shell");
    let mut entries: Vec<_> = fs::read_dir(&dir)
        .expect("golden directory")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "args"))
        .collect();
    entries.sort();
    let (mut cases, mut sessions) = (0, 0);
    for args_path in entries {
        let read = |ext: &str| {
            fs::read_to_string(args_path.with_extension(ext))
                .unwrap_or_else(|e| panic!("{}: {e}", args_path.display()))
        };
        let name = args_path.display().to_string();
        let args: Vec<String> = read("args").lines().map(str::to_owned).collect();
        let stdin = args_path.with_extension("stdin");
        let stdin = stdin.exists().then_some(stdin);
        if stdin.is_some() {
            sessions += 1;
        }
        let (ours, err, code) = kraft(&args, stdin.as_deref());
        let kafka = read("stdout");
        for (i, (a, b)) in ours.lines().zip(kafka.lines()).enumerate() {
            assert_eq!(a, b, "{name}: stdout line {} (stderr: {err})", i + 1);
        }
        assert_eq!(
            ours.lines().count(),
            kafka.lines().count(),
            "{name}: stdout line count (stderr: {err})"
        );
        assert_eq!(ours, kafka, "{name}: stdout");
        assert_eq!(
            code.to_string(),
            read("code").trim(),
            "{name}: exit status (stderr: {err})"
        );
        cases += 1;
    }
    assert!(cases >= 20, "only {cases} cases");
    assert!(sessions >= 4, "only {sessions} interactive sessions");
}

#[test]
fn a_missing_file_is_a_clear_error() {
    let (out, err, code) = kraft(
        &[
            "--snapshot".into(),
            "tests/data/no-such.checkpoint".into(),
            "ls".into(),
        ],
        None,
    );
    assert_eq!(code, 1);
    assert_eq!(out, "");
    assert!(
        err.contains("Cannot read tests/data/no-such.checkpoint: no such file"),
        "{err}"
    );
}

#[test]
fn a_directory_is_a_clear_error() {
    let (_, err, code) = kraft(&["-s".into(), "tests/data".into(), "ls".into()], None);
    assert_eq!(code, 1);
    assert!(
        err.contains("Cannot read tests/data: it is a directory"),
        "{err}"
    );
}

#[test]
fn a_corrupt_file_is_a_clear_error() {
    let (_, err, code) = kraft(
        &[
            "-s".into(),
            "tests/data/dump-log/crafted-corrupt/00000000000000000000.log".into(),
            "ls".into(),
        ],
        None,
    );
    assert_eq!(code, 1);
    assert!(
        err.contains("smaller than minimum record overhead"),
        "{err}"
    );
}

#[test]
fn the_snapshot_option_is_required() {
    let (_, err, code) = kraft(&["ls".into()], None);
    assert_eq!(code, 1);
    assert!(err.contains("--snapshot"), "{err}");
}

/// `--directory` (a kraft-rs addition: Kafka's shell reads one file) must
/// show the image Kafka's shell shows for the whole log: the newest
/// snapshot plus the records after it hold the same metadata, with the
/// provenance of the last record read.
#[test]
fn a_log_directory_reads_as_its_whole_log() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for (dir, golden) in [
        ("tests/data/dump-log/kraft-rs", "kraft-rs-log-tree"),
        ("tests/data/dump-log/kafka", "log-tree-image"),
    ] {
        let (out, err, code) = kraft(
            &[
                "--directory".into(),
                dir.into(),
                "tree".into(),
                "/image".into(),
            ],
            None,
        );
        let kafka =
            fs::read_to_string(root.join(format!("tests/golden/metadata-shell/{golden}.stdout")))
                .expect("golden");
        assert_eq!(code, 0, "{dir}: {err}");
        assert_eq!(out, kafka, "{dir}");
    }
    let (_, err, code) = kraft(&["-d".into(), "tests/golden".into(), "ls".into()], None);
    assert_eq!(code, 1);
    assert!(err.contains("holds no metadata snapshot"), "{err}");
    let (_, err, code) = kraft(
        &[
            "-d".into(),
            "tests/data".into(),
            "-s".into(),
            "x".into(),
            "ls".into(),
        ],
        None,
    );
    assert_eq!(code, 1);
    assert!(err.contains("cannot be used with"), "{err}");
}
