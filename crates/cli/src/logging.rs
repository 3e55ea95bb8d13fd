//! The `kraft` binary's log: a `tracing_subscriber` with a reloadable
//! [`EnvFilter`] (BROKER_LOGGER changes replace it while the process runs),
//! text or JSON lines, to standard error or to a file rotated by size.
//!
//! A `kraft server` takes its settings from its properties file
//! (`kraft.log.*`, [`kraft_controller::config::logging`]); the environment
//! wins over the file: `KRAFT_LOG` over `kraft.log.level`,
//! `KRAFT_LOG_FORMAT` over `kraft.log.format`. The other commands log
//! nothing unless `KRAFT_LOG` asks, to standard error.

use std::sync::Mutex;

use kraft_controller::config::logging::{LogFile, LogFormat, LogSettings};
use kraft_controller::loggers::{self, Loggers};
use rolling_file::{BasicRollingFileAppender, RollingConditionBasic};
use tracing_subscriber::fmt::writer::BoxMakeWriter;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;
use tracing_subscriber::EnvFilter;

/// Whether text lines are coloured: never in a file or when `NO_COLOR`
/// is set (the convention `tracing-subscriber` follows by default), and
/// only when stderr is a terminal.
fn colour(to_file: bool) -> bool {
    use std::io::IsTerminal;
    !to_file
        && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
        && std::io::stderr().is_terminal()
}

/// The environment variable holding the starting filter.
pub const LOG_ENV: &str = "KRAFT_LOG";
/// The environment variable choosing `text` or `json`.
pub const LOG_FORMAT_ENV: &str = "KRAFT_LOG_FORMAT";

/// What a process logs, in what form, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogSetup {
    /// The starting filter, in `EnvFilter` directive syntax (valid).
    pub directives: String,
    /// Text or JSON lines.
    pub format: LogFormat,
    /// The rotated file; `None`: standard error.
    pub file: Option<LogFile>,
}

/// The setup of a `kraft server` with the `kraft.log.*` `settings` and the
/// environment's `KRAFT_LOG` (`env_level`) and `KRAFT_LOG_FORMAT`
/// (`env_format`), which win. A bad filter or format is an error naming
/// where it came from.
pub fn server_setup(
    settings: &LogSettings,
    env_level: Option<&str>,
    env_format: Option<&str>,
) -> Result<LogSetup, String> {
    let directives = match (env_level, settings.level.as_deref()) {
        (Some(env), _) => {
            check_filter(env).map_err(|e| format!("Invalid value {env} for {LOG_ENV}: {e}"))?;
            env.to_owned()
        }
        (None, Some(level)) => {
            check_filter(level).map_err(|e| {
                format!("Invalid value {level} for configuration kraft.log.level: {e}")
            })?;
            level.to_owned()
        }
        (None, None) => "info".to_owned(),
    };
    let format = match env_format {
        Some(env) => LogFormat::parse(env).ok_or_else(|| {
            format!("Invalid value {env} for {LOG_FORMAT_ENV}: String must be one of: text, json")
        })?,
        None => settings.format,
    };
    Ok(LogSetup {
        directives,
        format,
        file: settings.file.clone(),
    })
}

/// The setup of every other command: quiet unless `KRAFT_LOG` asks (a bad
/// filter keeps it quiet), text unless `KRAFT_LOG_FORMAT` is `json`, to
/// standard error.
pub fn tool_setup(env_level: Option<&str>, env_format: Option<&str>) -> LogSetup {
    let directives = env_level
        .filter(|l| check_filter(l).is_ok())
        .unwrap_or("off")
        .to_owned();
    LogSetup {
        directives,
        format: env_format.and_then(LogFormat::parse).unwrap_or_default(),
        file: None,
    }
}

fn check_filter(directives: &str) -> Result<(), String> {
    EnvFilter::try_new(directives)
        .map(drop)
        .map_err(|e| e.to_string())
}

/// A writer of the log file rotated by size: `PATH` is written until it
/// holds `max_bytes`, then renamed `PATH.1` (the older ones shift to
/// `PATH.2`...), and the oldest beyond `max_files - 1` is deleted. Writes
/// are not buffered: each event reaches the file as it is logged.
pub fn rotating_file(file: &LogFile) -> Result<BasicRollingFileAppender, String> {
    if let Some(parent) = file.path.parent().filter(|p| !p.as_os_str().is_empty()) {
        if !parent.is_dir() {
            return Err(format!(
                "cannot open the log file {}: the directory {} does not exist",
                file.path.display(),
                parent.display()
            ));
        }
    }
    BasicRollingFileAppender::new_with_buffer_capacity(
        &file.path,
        RollingConditionBasic::new().max_size(file.max_bytes),
        file.max_files.saturating_sub(1).max(1),
        0,
    )
    .map_err(|e| format!("cannot open the log file {}: {e}", file.path.display()))
}

/// Installs `setup` as the process's subscriber and its [`Loggers`]
/// (BROKER_LOGGER), unless the process already has a subscriber (then
/// nothing changes). Fails when the log file cannot be opened.
pub fn install(setup: &LogSetup) -> Result<(), String> {
    let filter = EnvFilter::try_new(&setup.directives).map_err(|e| e.to_string())?;
    let (writer, to_file) = match &setup.file {
        Some(file) => (BoxMakeWriter::new(Mutex::new(rotating_file(file)?)), true),
        None => (BoxMakeWriter::new(std::io::stderr), false),
    };
    // The filter is reloadable: a server's BROKER_LOGGER changes
    // (IncrementalAlterConfigs) replace it while it runs.
    let (filter, reload) = tracing_subscriber::reload::Layer::new(filter);
    let (text, json) = match setup.format {
        LogFormat::Text => (
            Some(
                tracing_subscriber::fmt::layer()
                    .with_ansi(colour(to_file))
                    .with_writer(writer),
            ),
            None,
        ),
        LogFormat::Json => (
            None,
            Some(
                tracing_subscriber::fmt::layer()
                    .json()
                    .with_ansi(false)
                    .with_writer(writer),
            ),
        ),
    };
    if tracing_subscriber::registry()
        .with(filter)
        .with(text)
        .with(json)
        .try_init()
        .is_err()
    {
        return Ok(());
    }
    loggers::install(Loggers::with_apply(
        &setup.directives,
        Box::new(move |directives| {
            let filter = EnvFilter::try_new(directives).map_err(|e| e.to_string())?;
            reload.reload(filter).map_err(|e| e.to_string())
        }),
    ));
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::io::Write;
    use std::path::{Path, PathBuf};

    use super::*;

    fn settings(level: Option<&str>, format: LogFormat) -> LogSettings {
        LogSettings {
            level: level.map(str::to_owned),
            format,
            file: None,
        }
    }

    #[test]
    fn the_environment_wins_over_the_properties_file() {
        let s = settings(Some("warn"), LogFormat::Json);
        let setup = server_setup(&s, None, None).expect("valid");
        assert_eq!(setup.directives, "warn");
        assert_eq!(setup.format, LogFormat::Json);
        let setup = server_setup(&s, Some("debug,kraft_raft=trace"), Some("TEXT")).expect("valid");
        assert_eq!(setup.directives, "debug,kraft_raft=trace");
        assert_eq!(setup.format, LogFormat::Text);
        let setup = server_setup(&settings(None, LogFormat::Text), None, None).expect("valid");
        assert_eq!(setup.directives, "info");
    }

    #[test]
    fn a_server_refuses_a_bad_filter_or_format_and_says_where_it_came_from() {
        let e = server_setup(
            &settings(Some("kraft_raft=loud"), LogFormat::Text),
            None,
            None,
        )
        .expect_err("refused");
        assert!(
            e.starts_with("Invalid value kraft_raft=loud for configuration kraft.log.level: "),
            "{e}"
        );
        let e =
            server_setup(&settings(None, LogFormat::Text), Some("=["), None).expect_err("refused");
        assert!(e.starts_with("Invalid value =[ for KRAFT_LOG: "), "{e}");
        let e = server_setup(&settings(None, LogFormat::Text), None, Some("yaml"))
            .expect_err("refused");
        assert_eq!(
            e,
            "Invalid value yaml for KRAFT_LOG_FORMAT: String must be one of: text, json"
        );
    }

    #[test]
    fn tools_stay_quiet_unless_asked() {
        assert_eq!(tool_setup(None, None).directives, "off");
        assert_eq!(tool_setup(Some("kraft_raft=loud"), None).directives, "off");
        let setup = tool_setup(Some("debug"), Some("json"));
        assert_eq!(
            (setup.directives.as_str(), setup.format),
            ("debug", LogFormat::Json)
        );
    }

    fn temp_dir(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!(
            "kraft-logging-{name}-{}-{}",
            std::process::id(),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos())
        ));
        std::fs::create_dir_all(&dir).expect("temp dir");
        dir
    }

    fn files_in(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .expect("readable")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn the_file_rotates_by_size_keeping_at_most_max_files_of_whole_lines() {
        let dir = temp_dir("rotate");
        let path = dir.join("server.log");
        let file = LogFile {
            path: path.clone(),
            max_bytes: 100,
            max_files: 3,
        };
        let mut writer = rotating_file(&file).expect("opens");
        let mut written = Vec::new();
        for i in 0..40 {
            let line = format!("line {i:02} of the rotation test\n");
            writer.write_all(line.as_bytes()).expect("written");
            written.push(line);
        }
        writer.flush().expect("flushed");
        assert_eq!(
            files_in(&dir),
            ["server.log", "server.log.1", "server.log.2"]
        );
        // Newest last: .2, .1, the active file hold the last lines in order,
        // each line whole, each file at most max_bytes plus one line.
        let mut kept = String::new();
        for name in ["server.log.2", "server.log.1", "server.log"] {
            let text = std::fs::read_to_string(dir.join(name)).expect("readable");
            assert!(text.len() < 100 + 31, "{name}: {} bytes", text.len());
            assert!(text.ends_with('\n'));
            kept.push_str(&text);
        }
        let all = written.concat();
        assert!(
            all.ends_with(&kept),
            "the kept lines are the newest, in order"
        );
        assert!(kept.len() > 200);

        // Reopening appends to the active file and goes on rotating.
        drop(writer);
        let mut writer = rotating_file(&file).expect("opens again");
        for _ in 0..10 {
            writer.write_all(b"after a restart\n").expect("written");
        }
        assert_eq!(
            files_in(&dir),
            ["server.log", "server.log.1", "server.log.2"]
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_missing_directory_is_an_error_not_a_panic() {
        let file = LogFile {
            path: PathBuf::from("/nonexistent-kraft-dir/server.log"),
            max_bytes: 100,
            max_files: 2,
        };
        let e = rotating_file(&file).expect_err("refused");
        assert_eq!(
            e,
            "cannot open the log file /nonexistent-kraft-dir/server.log: the directory /nonexistent-kraft-dir does not exist"
        );
    }
}
