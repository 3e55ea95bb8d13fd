//! The `kraft` command line: `metadata-quorum`, `cluster` and `features`
//! behave like Kafka's `kafka-metadata-quorum`, `kafka-cluster` and
//! `kafka-features` (same flags, same output), on top of [`kraft_admin`].
//!
//! The binary is a thin wrapper around [`run_main`]; the grammar is in
//! [`cli`], the rendering (snapshot-tested) in [`render`].

pub mod cli;
pub mod commands;
pub mod controller_config;
pub mod docker_env;
pub mod dump_log;
pub mod feature_tools;
pub mod logging;
pub mod metadata_shell;
pub mod node_cmds;
pub mod quickstart_brokers;
pub mod reconcile;
pub mod render;

use std::io::Write;

use clap::error::ErrorKind;
use clap::Parser;

pub use commands::CliError;

/// Collapses a clap error into one line: its message without the usage
/// block, followed by where to find help.
pub fn one_line_clap_error(e: &clap::Error) -> String {
    let rendered = e.render().to_string();
    let body = rendered.split("\n\nUsage:").next().unwrap_or(&rendered);
    let body = body
        .split("\n\nFor more information")
        .next()
        .unwrap_or(body);
    let mut text = body
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("tip:"))
        .collect::<Vec<_>>()
        .join(" ");
    if let Some(rest) = text.strip_prefix("error: ") {
        text = rest.to_owned();
    }
    format!("{text} (see --help)")
}

/// Parses `args` (program name first), runs the command with stdout `out`
/// and stderr `err`, and returns the process exit code.
pub fn run_main<I, T>(args: I, out: &mut dyn Write, err: &mut dyn Write) -> i32
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    let cli = match cli::Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(e) => {
            return match e.kind() {
                ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => {
                    let _ = write!(out, "{}", e.render());
                    0
                }
                ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
                    let _ = write!(err, "{}", e.render());
                    1
                }
                _ => {
                    let _ = writeln!(err, "{}", one_line_clap_error(&e));
                    1
                }
            };
        }
    };
    // An offline tool: no runtime, and its notes go to `err`.
    if let cli::Command::DumpLog(args) = &cli.command {
        return match dump_log::run(args, out, err) {
            Ok(()) => 0,
            Err(e) => {
                let _ = out.flush();
                let _ = writeln!(err, "{}", e.message);
                e.exit_code
            }
        };
    }
    if let cli::Command::MetadataShell(args) = &cli.command {
        use std::io::IsTerminal;
        let mut args = args.clone();
        // A running quorum: its committed log copied first, then read as a
        // directory.
        let copy = match args.bootstrap_controller.take() {
            None => None,
            Some(controllers) => {
                let copied = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .map_err(|e| {
                        commands::CliError::new(format!("cannot start the async runtime: {e}"))
                    })
                    .and_then(|rt| {
                        rt.block_on(commands::copy_live_metadata(
                            &controllers,
                            args.command_config.as_deref(),
                        ))
                    });
                match copied {
                    Ok(dir) => {
                        args.directory = Some(dir.display().to_string());
                        Some(dir)
                    }
                    Err(e) => {
                        let _ = writeln!(err, "{}", e.message);
                        return e.exit_code;
                    }
                }
            }
        };
        let stdin = std::io::stdin();
        let width = stdin.is_terminal().then(|| {
            std::env::var("COLUMNS")
                .ok()
                .and_then(|c| c.parse().ok())
                .unwrap_or(80)
        });
        let status = match metadata_shell::run(&args, &mut stdin.lock(), width, out, err) {
            Ok(code) => code,
            Err(e) => {
                let _ = out.flush();
                let _ = writeln!(err, "{}", e.message);
                e.exit_code
            }
        };
        if let Some(dir) = copy {
            let _ = std::fs::remove_dir_all(dir);
        }
        return status;
    }
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            let _ = writeln!(err, "cannot start the async runtime: {e}");
            return 1;
        }
    };
    match runtime.block_on(commands::run(cli.command, out)) {
        Ok(()) => 0,
        Err(e) => {
            let _ = out.flush();
            let _ = writeln!(err, "{}", e.message);
            e.exit_code
        }
    }
}
