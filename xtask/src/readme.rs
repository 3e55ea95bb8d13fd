//! `cargo xtask readme`: follow README.md's set-up section word for word on
//! a fresh clone, as a newcomer would.
//!
//! The set-up block must hold exactly two commands: the main job
//! (`cargo run --release --bin kraft -- quickstart`) and the test command
//! (`cargo xtask ci`), and `.ci/run` must call the latter. The first is then
//! run, unchanged, in a fresh `git clone` of the committed tree: its output
//! must walk through every step the README promises, the ready-to-paste
//! command it prints must work while it serves, and Ctrl-C must stop it
//! cleanly. (The second command is what CI itself runs on a fresh clone.)

use std::io::{BufRead, BufReader};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use crate::{root, Result};

/// The commands the README's set-up section must show, in order.
const SETUP_COMMANDS: [&str; 2] = [
    "cargo run --release --bin kraft -- quickstart",
    "cargo xtask ci",
];

/// Lines the quickstart must print, in this order, before it serves.
const QUICKSTART_MILESTONES: [&str; 8] = [
    "kraft quickstart: data in ",
    "$ kraft storage format ",
    "started controllers 1, 2, 3 on ",
    "$ kraft metadata-quorum ",
    "add-controller",
    "remove-controller",
    "The quorum is serving. Bootstrap controller: ",
    "Try:  cargo run --release --bin kraft -- metadata-quorum",
];

/// Time allowed for the release build plus the walk-through.
const QUICKSTART_DEADLINE: Duration = Duration::from_secs(40 * 60);

/// The commands of the first fenced block after the `## Set up` heading,
/// without their trailing comments.
pub fn setup_commands(readme: &str) -> Result<Vec<String>> {
    let section = readme
        .split("\n## ")
        .find(|s| s.starts_with("Set up"))
        .ok_or("README.md has no `## Set up` section")?;
    let mut blocks = section.split("```").skip(1);
    let block = blocks
        .next()
        .ok_or("README.md's set-up section has no code block")?;
    Ok(block
        .lines()
        .skip(1) // the fence's language tag
        .map(|l| l.split('#').next().unwrap_or("").trim().to_string())
        .filter(|l| !l.is_empty())
        .collect())
}

/// Checks the README and `.ci/run`, then runs the quickstart in a fresh clone.
pub fn readme() -> Result<()> {
    let root = root();
    let text =
        std::fs::read_to_string(root.join("README.md")).map_err(|e| format!("README.md: {e}"))?;
    let commands = setup_commands(&text)?;
    if commands != SETUP_COMMANDS {
        return Err(format!(
            "README.md's set-up block must be exactly {SETUP_COMMANDS:?}, found {commands:?}"
        ));
    }
    let ci = std::fs::read_to_string(root.join(".ci/run")).map_err(|e| format!(".ci/run: {e}"))?;
    if !ci.lines().any(|l| l.trim() == SETUP_COMMANDS[1]) {
        return Err(format!(".ci/run does not call `{}`", SETUP_COMMANDS[1]));
    }

    let work = std::env::temp_dir().join(format!("kraft-readme-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work).map_err(|e| format!("{}: {e}", work.display()))?;
    let clone = work.join("kraft-rs");
    crate::run(
        "git",
        &[
            "clone",
            "--quiet",
            &root.display().to_string(),
            &clone.display().to_string(),
        ],
    )?;
    let result = quickstart_in(&clone, &root.join("target"));
    let _ = std::fs::remove_dir_all(&work);
    result
}

/// Runs the quickstart command in `clone` and checks its walk-through. The
/// build output goes to `target_dir` so that a second run reuses it.
fn quickstart_in(clone: &Path, target_dir: &Path) -> Result<()> {
    eprintln!("$ (in {}) {}", clone.display(), SETUP_COMMANDS[0]);
    let mut child = command(SETUP_COMMANDS[0])?
        .current_dir(clone)
        .env("CARGO_TARGET_DIR", target_dir)
        .stdout(Stdio::piped())
        .process_group(0)
        .spawn()
        .map_err(|e| format!("cannot start the quickstart: {e}"))?;
    let group = child.id();
    let stdout = child.stdout.take().ok_or("no stdout")?;
    let (tx, rx) = mpsc::channel::<String>();
    let reader = std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(|l| l.ok()) {
            println!("  | {line}");
            if tx.send(line).is_err() {
                break;
            }
        }
    });

    let checked = follow(&rx, clone, target_dir);
    // Ctrl-C, as the quickstart asks, also when a check failed.
    let _ = Command::new("kill")
        .args(["-s", "INT", "--", &format!("-{group}")])
        .status();
    let rest: Vec<String> = wait_rest(&rx, Duration::from_secs(60));
    let status = child.wait().map_err(|e| e.to_string())?;
    let _ = reader.join();
    let data_dir = checked?;

    if !status.success() {
        return Err(format!("the quickstart exited with {status} after Ctrl-C"));
    }
    let stopped = format!("stopped; data kept in {data_dir}");
    if !rest.contains(&stopped) {
        return Err(format!(
            "after Ctrl-C the quickstart did not print `{stopped}`"
        ));
    }
    let _ = std::fs::remove_dir_all(&data_dir);
    eprintln!("readme: the set-up section works as written");
    Ok(())
}

/// Waits for every milestone, then runs the printed `Try:` command while the
/// quorum serves. Returns the data directory the quickstart announced.
fn follow(rx: &mpsc::Receiver<String>, clone: &Path, target_dir: &Path) -> Result<String> {
    let deadline = Instant::now() + QUICKSTART_DEADLINE;
    let mut data_dir = String::new();
    let mut try_line = String::new();
    for milestone in QUICKSTART_MILESTONES {
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let line = rx.recv_timeout(left).map_err(|_| {
                format!("the quickstart ended or stalled before printing `{milestone}`")
            })?;
            if line.contains(milestone) {
                if let Some(d) = line.strip_prefix(QUICKSTART_MILESTONES[0]) {
                    data_dir = d.to_string();
                }
                if let Some(t) = line.strip_prefix("Try:") {
                    try_line = t.trim().to_string();
                }
                break;
            }
        }
    }
    eprintln!("$ (while serving) {try_line}");
    let out = command(&try_line)?
        .current_dir(clone)
        .env("CARGO_TARGET_DIR", target_dir)
        .output()
        .map_err(|e| format!("cannot run `{try_line}`: {e}"))?;
    let text = String::from_utf8_lossy(&out.stdout);
    print!("{text}");
    if !out.status.success() {
        return Err(format!(
            "`{try_line}` failed ({}): {}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    for label in [
        "ClusterId:",
        "LeaderId:",
        "HighWatermark:",
        "CurrentVoters:",
    ] {
        if !text.lines().any(|l| l.starts_with(label)) {
            return Err(format!("`{try_line}` printed no `{label}` line"));
        }
    }
    Ok(data_dir)
}

/// A command line of plain words (the README's commands need no shell).
fn command(line: &str) -> Result<Command> {
    let mut words = line.split_whitespace();
    let program = words.next().ok_or("empty command line")?;
    let mut command = Command::new(program);
    command.args(words);
    Ok(command)
}

fn wait_rest(rx: &mpsc::Receiver<String>, limit: Duration) -> Vec<String> {
    let deadline = Instant::now() + limit;
    let mut lines = Vec::new();
    while let Ok(line) = rx.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
        lines.push(line);
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_setup_commands_without_comments() {
        let readme = "# x\n\n## Set up\n\ntext\n\n```sh\na b   # first\n\nc d # second\n```\n\n## Other\n```sh\ne\n```\n";
        assert_eq!(setup_commands(readme).unwrap(), vec!["a b", "c d"]);
    }

    #[test]
    fn a_readme_without_setup_is_an_error() {
        assert!(setup_commands("# x\n## Usage\n```sh\na\n```\n").is_err());
    }

    #[test]
    fn the_real_readme_has_the_two_commands() {
        let text = std::fs::read_to_string(root().join("README.md")).unwrap();
        assert_eq!(setup_commands(&text).unwrap(), SETUP_COMMANDS);
    }
}
