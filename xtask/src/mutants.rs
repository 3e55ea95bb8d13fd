//! `cargo xtask mutants [SEEDS]`: proof that the raft simulator's invariants
//! and its bounded model check catch real bugs.
//!
//! kraft-raft carries one-line switches, `cfg!(kraft_mutant = "<name>")`,
//! each breaking one rule of the consensus core. Their names are declared in
//! the workspace's `unexpected_cfgs` check-cfg, so a misspelt one is a
//! warning. For each mutant this builds kraft-raft with
//! `--cfg kraft_mutant="<name>"` added to the caller's `RUSTFLAGS`, in
//! `target/mutants` so that the main build cache stays valid, and runs the
//! simulator over SEEDS seeds (default 300). The simulator must FAIL; the
//! table shows the invariant that caught the mutant and the first failing
//! seed. Some mutants run again with the invariant that caught them switched
//! off (`SIM_DISABLE`) to show that another one catches them too, so every
//! invariant is proven by at least one mutant.
//!
//! The second table does the same for the bounded model check (the
//! `model_check` test at the CI bound): each listed mutant must yield a
//! counterexample in the named scenario. The mutants not listed there
//! survive the CI bound (their counterexamples are longer than its depth) or
//! cannot occur in its topology (`observer-in-majority`: with 3 voters and
//! 1 observer the majority of 4 always holds 2 voters).
//!
//! Any surviving mutant makes the command fail.

use std::process::Command;

use crate::{root, Result};

/// Simulator runs: a mutant and the invariants switched off for the run.
/// Every mutant appears once with none switched off.
const SIMULATION_RUNS: [(&str, &[&str]); 15] = [
    ("skip-one-change-check", &[]),
    ("observer-in-majority", &[]),
    ("accept-stale-vote", &[]),
    ("ack-before-fsync", &[]),
    ("commit-old-epoch-by-count", &[]),
    ("vote-twice-per-epoch", &[]),
    ("skip-divergence-check", &[]),
    ("divergence-offset-only", &[]),
    ("diverge-too-far", &[]),
    ("hw-may-decrease", &[]),
    ("committed-voters-latest", &[]),
    ("skip-kraft-version-check", &[]),
    ("never-campaign", &[]),
    ("vote-twice-per-epoch", &["election-safety"]),
    ("diverge-too-far", &["committed-durable"]),
];

/// Model-check runs: a mutant and the scenario that must find a
/// counterexample for it.
const MODEL_CHECK_RUNS: [(&str, &str); 4] = [
    ("ack-before-fsync", "replication"),
    ("committed-voters-latest", "replication"),
    ("vote-twice-per-epoch", "election"),
    ("accept-stale-vote", "stale-election"),
];

/// Runs both tables with `seeds` simulator seeds per mutant (default 300).
pub fn mutants(seeds: Option<&str>) -> Result<()> {
    let seeds = seeds.unwrap_or("300");
    if seeds.parse::<u64>().map_or(true, |s| s == 0) {
        return Err(format!(
            "mutants: SEEDS must be a positive whole number, not {seeds:?}"
        ));
    }
    let mut survivors = 0;

    println!(
        "{:<36} {:<38} {:<20} first failing seed",
        "mutant", "invariants disabled", "caught by"
    );
    for (mutant, disabled) in SIMULATION_RUNS {
        let disabled = disabled.join(",");
        let output = run_simulation(
            mutant,
            &[],
            &[("SIM_DISABLE", &disabled), ("SIM_SEEDS", seeds)],
        )?;
        let shown_disabled = if disabled.is_empty() { "-" } else { &disabled };
        match output.lines().find(|l| l.contains("SIMULATION FAILURE")) {
            Some(line) => {
                let invariant = word_after(line, "invariant=", is_name_char).unwrap_or(line);
                let seed = word_after(line, "seed=", |c| c.is_ascii_digit()).unwrap_or(line);
                println!("{mutant:<36} {shown_disabled:<38} {invariant:<20} {seed}");
            }
            None => {
                println!("{mutant:<36} {shown_disabled:<38} {:<20} -", "SURVIVED");
                survivors += 1;
            }
        }
    }

    println!();
    println!(
        "{:<36} {:<12} {:<20} counterexample",
        "mutant (model check)", "scenario", "caught by"
    );
    for (mutant, scenario) in MODEL_CHECK_RUNS {
        let output = run_simulation(mutant, &["model_check"], &[("MC_SCENARIO", scenario)])?;
        match output.lines().find(|l| l.contains("MODEL CHECK FAILURE")) {
            Some(line) => {
                let invariant = word_after(line, "invariant=", is_name_char).unwrap_or(line);
                let steps = output
                    .lines()
                    .find(|l| l.starts_with("counterexample"))
                    .map(|l| {
                        word_after(l, "counterexample (", |c| c.is_ascii_digit())
                            .map_or_else(|| l.to_string(), |n| format!("{n} steps"))
                    })
                    .unwrap_or_default();
                println!("{mutant:<36} {scenario:<12} {invariant:<20} {steps}");
            }
            None => {
                println!("{mutant:<36} {scenario:<12} {:<20} -", "SURVIVED");
                survivors += 1;
            }
        }
    }

    if survivors != 0 {
        return Err(format!("{survivors} mutant(s) survived"));
    }
    println!("all mutants caught");
    Ok(())
}

/// Runs kraft-raft's `simulation` test binary (only the tests matching
/// `filter`, if given) built as `mutant`, and returns its stdout and stderr.
fn run_simulation(mutant: &str, filter: &[&str], env: &[(&str, &str)]) -> Result<String> {
    let (flags_var, flags) = rustflags_with_mutant(mutant);
    let output = Command::new("cargo")
        .args(["test", "-q", "--workspace", "--test", "simulation"])
        .args(filter)
        .args(["--", "--nocapture"])
        .env(flags_var, flags)
        .env("CARGO_TARGET_DIR", root().join("target/mutants"))
        .envs(env.iter().copied())
        .current_dir(root())
        .output()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    let marker_found = text.contains("SIMULATION FAILURE") || text.contains("MODEL CHECK FAILURE");
    if !output.status.success() && !marker_found {
        // Most likely a build error: show its end, the table only says SURVIVED.
        let lines: Vec<&str> = text.lines().collect();
        eprintln!(
            "{mutant}: cargo failed ({}) without a failure report:\n{}",
            output.status,
            lines[lines.len().saturating_sub(20)..].join("\n")
        );
    }
    Ok(text)
}

/// The rustc flags variable Cargo reads and its value: the caller's flags
/// plus `--cfg kraft_mutant="<mutant>"`. Cargo prefers
/// `CARGO_ENCODED_RUSTFLAGS` (0x1f-separated) over `RUSTFLAGS` when set.
fn rustflags_with_mutant(mutant: &str) -> (&'static str, String) {
    let cfg = format!("kraft_mutant=\"{mutant}\"");
    if let Ok(encoded) = std::env::var("CARGO_ENCODED_RUSTFLAGS") {
        let mut flags: Vec<&str> = encoded.split('\x1f').filter(|f| !f.is_empty()).collect();
        flags.extend(["--cfg", &cfg]);
        return ("CARGO_ENCODED_RUSTFLAGS", flags.join("\x1f"));
    }
    let existing = std::env::var("RUSTFLAGS").unwrap_or_default();
    let flags = format!("{} --cfg {cfg}", existing.trim());
    ("RUSTFLAGS", flags.trim_start().to_string())
}

/// Characters of an invariant name.
fn is_name_char(c: char) -> bool {
    c.is_ascii_lowercase() || c == '-'
}

/// The non-empty run of `allowed` characters right after the first `key` in
/// `line`.
fn word_after<'a>(line: &'a str, key: &str, allowed: fn(char) -> bool) -> Option<&'a str> {
    let rest = &line[line.find(key)? + key.len()..];
    let end = rest.find(|c| !allowed(c)).unwrap_or(rest.len());
    (end > 0).then(|| &rest[..end])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_exactly_the_mutants_declared_in_check_cfg() {
        let manifest = std::fs::read_to_string(root().join("Cargo.toml")).unwrap();
        let start = manifest.find("cfg(kraft_mutant, values(").unwrap();
        let values = &manifest[start..];
        let values = &values["cfg(kraft_mutant, values(".len()..values.find("))").unwrap()];
        let mut declared: Vec<&str> = values
            .split(',')
            .map(|v| v.trim().trim_matches('"'))
            .collect();
        let mut plain: Vec<&str> = SIMULATION_RUNS
            .iter()
            .filter(|(_, disabled)| disabled.is_empty())
            .map(|(mutant, _)| *mutant)
            .collect();
        declared.sort_unstable();
        plain.sort_unstable();
        assert_eq!(declared, plain);
        for (mutant, _) in MODEL_CHECK_RUNS {
            assert!(declared.contains(&mutant), "{mutant}");
        }
    }

    #[test]
    fn parses_failure_lines() {
        let line = "SIMULATION FAILURE seed=17 invariant=log-matching: offset 3 differs";
        assert_eq!(
            word_after(line, "seed=", |c| c.is_ascii_digit()),
            Some("17")
        );
        assert_eq!(
            word_after(line, "invariant=", is_name_char),
            Some("log-matching")
        );
        assert_eq!(
            word_after("counterexample (12 steps):", "counterexample (", |c| c
                .is_ascii_digit()),
            Some("12")
        );
        assert_eq!(word_after("seed=x", "seed=", |c| c.is_ascii_digit()), None);
    }
}
