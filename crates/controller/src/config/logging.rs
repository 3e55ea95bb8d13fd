//! `kraft.log.*`: where a `kraft server` writes its log and in what form
//! (kraft-rs's own keys; Kafka configures logging in a separate log4j
//! file).
//!
//! The keys are declared here and listed in [`super::settings::SETTINGS`]
//! (so `docs/configuration.md` documents them). Unlike other unknown keys,
//! an unknown `kraft.log.*` key refuses to start: a misspelled
//! `kraft.log.fille` would otherwise leave the log somewhere the operator
//! does not look. The level's directive syntax is checked by the `kraft`
//! binary, which owns the `tracing` subscriber.

use std::fmt;
use std::path::PathBuf;

use kraft_protocol::text::Properties;

use super::settings::{invalid, Int, Long, Text};
use super::ConfigError;

/// `kraft.log.level`
pub const KRAFT_LOG_LEVEL: Text = Text {
    key: "kraft.log.level",
    list: false,
    default: None,
    required: false,
    doc: "kraft-rs's own extension: the starting log filter in `tracing_subscriber`'s `EnvFilter` directive syntax (`info`, `warn,kraft_raft=debug`). The `KRAFT_LOG` environment variable, when set, wins over it. Unset: `info`. BROKER_LOGGER changes (`kafka-configs --entity-type broker-loggers`) still change the levels while the process runs.",
};
/// `kraft.log.format`
pub const KRAFT_LOG_FORMAT: Text = Text {
    key: "kraft.log.format",
    list: false,
    default: Some("text"),
    required: false,
    doc: "kraft-rs's own extension: `text` (one human-readable line per event) or `json` (one JSON object per line: `timestamp`, `level`, `target`, `fields` with the `message`, and the spans). The `KRAFT_LOG_FORMAT` environment variable, when set, wins over it.",
};
/// `kraft.log.file`
pub const KRAFT_LOG_FILE: Text = Text {
    key: "kraft.log.file",
    list: false,
    default: None,
    required: false,
    doc: "kraft-rs's own extension: the file the log is written to instead of standard error, rotated by size (`kraft.log.file.max.bytes`, `kraft.log.file.max.files`): `FILE` is the active file, `FILE.1` the newest older one. Its directory must exist. Unset or empty: standard error.",
};
/// `kraft.log.file.max.bytes`
pub const KRAFT_LOG_FILE_MAX_BYTES: Long = Long {
    key: "kraft.log.file.max.bytes",
    default: 100 * 1024 * 1024,
    min: Some(1),
    doc: "kraft-rs's own extension: the size at which the log file is rotated; the line that reaches it is the file's last, so a file holds at most this plus one line.",
};
/// `kraft.log.file.max.files`
pub const KRAFT_LOG_FILE_MAX_FILES: Int = Int {
    key: "kraft.log.file.max.files",
    default: 10,
    min: Some(2),
    max: Some(1000),
    doc: "kraft-rs's own extension: how many log files are kept, the active one included; the oldest is deleted at rotation.",
};

/// The `kraft.log.*` keys.
const KEYS: [&str; 5] = [
    KRAFT_LOG_LEVEL.key,
    KRAFT_LOG_FORMAT.key,
    KRAFT_LOG_FILE.key,
    KRAFT_LOG_FILE_MAX_BYTES.key,
    KRAFT_LOG_FILE_MAX_FILES.key,
];

/// The form of log lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LogFormat {
    /// One human-readable line per event.
    #[default]
    Text,
    /// One JSON object per line.
    Json,
}

impl LogFormat {
    /// `text` or `json` in any case; `None` for anything else.
    pub fn parse(value: &str) -> Option<LogFormat> {
        match value.trim().to_ascii_lowercase().as_str() {
            "text" => Some(LogFormat::Text),
            "json" => Some(LogFormat::Json),
            _ => None,
        }
    }
}

impl fmt::Display for LogFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            LogFormat::Text => "text",
            LogFormat::Json => "json",
        })
    }
}

/// A log file rotated by size.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogFile {
    /// The active file; older ones are `PATH.1` (newest) to `PATH.<n>`.
    pub path: PathBuf,
    /// The size at which the file is rotated.
    pub max_bytes: u64,
    /// How many files are kept, the active one included (at least 2).
    pub max_files: usize,
}

/// The `kraft.log.*` settings.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct LogSettings {
    /// `kraft.log.level`: `EnvFilter` directives, trimmed; `None` if unset
    /// or empty.
    pub level: Option<String>,
    /// `kraft.log.format`.
    pub format: LogFormat,
    /// `kraft.log.file` and its rotation; `None`: standard error.
    pub file: Option<LogFile>,
}

impl LogSettings {
    /// Reads the `kraft.log.*` keys of `props`; an unknown `kraft.log.*`
    /// key or a bad value is an error.
    pub fn parse(props: &Properties) -> Result<LogSettings, ConfigError> {
        if let Some((key, _)) = props
            .iter()
            .find(|(k, _)| k.starts_with("kraft.log.") && !KEYS.contains(k))
        {
            return Err(ConfigError::Inconsistent(format!(
                "Unknown configuration {key}: the logging keys are {}; \
                 a misspelled one is refused rather than ignored",
                KEYS.join(", ")
            )));
        }
        let level = KRAFT_LOG_LEVEL
            .read(props)?
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .map(str::to_owned);
        let raw_format = KRAFT_LOG_FORMAT.read(props)?.unwrap_or("text");
        let format = LogFormat::parse(raw_format).ok_or_else(|| {
            invalid(
                KRAFT_LOG_FORMAT.key,
                raw_format,
                "String must be one of: text, json",
            )
        })?;
        let max_bytes = KRAFT_LOG_FILE_MAX_BYTES.read(props)?;
        let max_files = KRAFT_LOG_FILE_MAX_FILES.read(props)?;
        let file = KRAFT_LOG_FILE
            .read(props)?
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .map(|path| {
                Ok::<_, ConfigError>(LogFile {
                    path: PathBuf::from(path),
                    max_bytes: u64::try_from(max_bytes).map_err(|_| {
                        invalid(
                            KRAFT_LOG_FILE_MAX_BYTES.key,
                            &max_bytes.to_string(),
                            "Value must be at least 1",
                        )
                    })?,
                    max_files: usize::try_from(max_files).map_err(|_| {
                        invalid(
                            KRAFT_LOG_FILE_MAX_FILES.key,
                            &max_files.to_string(),
                            "Value must be at least 2",
                        )
                    })?,
                })
            })
            .transpose()?;
        Ok(LogSettings {
            level,
            format,
            file,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<LogSettings, ConfigError> {
        LogSettings::parse(&Properties::parse(text).expect("valid properties"))
    }

    #[test]
    fn defaults_log_text_to_standard_error() {
        assert_eq!(parse("node.id=1").expect("valid"), LogSettings::default());
        assert_eq!(
            parse("kraft.log.level=  \nkraft.log.file=").expect("valid"),
            LogSettings::default()
        );
    }

    #[test]
    fn reads_every_key() {
        let s = parse(
            "kraft.log.level = warn,kraft_raft=debug \nkraft.log.format=JSON\n\
             kraft.log.file=/var/log/kraft/server.log\nkraft.log.file.max.bytes=4096\n\
             kraft.log.file.max.files=3\n",
        )
        .expect("valid");
        assert_eq!(
            s,
            LogSettings {
                level: Some("warn,kraft_raft=debug".to_owned()),
                format: LogFormat::Json,
                file: Some(LogFile {
                    path: PathBuf::from("/var/log/kraft/server.log"),
                    max_bytes: 4096,
                    max_files: 3,
                }),
            }
        );
        let s = parse("kraft.log.file=kraft.log").expect("valid");
        assert_eq!(
            s.file,
            Some(LogFile {
                path: PathBuf::from("kraft.log"),
                max_bytes: 100 * 1024 * 1024,
                max_files: 10,
            })
        );
    }

    #[test]
    fn bad_values_are_refused_with_the_key() {
        let message = |text: &str| parse(text).expect_err("refused").to_string();
        assert_eq!(
            message("kraft.log.format=xml"),
            "Invalid value xml for configuration kraft.log.format: String must be one of: text, json"
        );
        assert_eq!(
            message("kraft.log.file.max.bytes=0"),
            "Invalid value 0 for configuration kraft.log.file.max.bytes: Value must be at least 1"
        );
        assert_eq!(
            message("kraft.log.file.max.bytes=1MB"),
            "Invalid value 1MB for configuration kraft.log.file.max.bytes: Not a number of type LONG"
        );
        assert_eq!(
            message("kraft.log.file.max.files=1"),
            "Invalid value 1 for configuration kraft.log.file.max.files: Value must be at least 2"
        );
    }

    #[test]
    fn an_unknown_logging_key_refuses_to_start() {
        let e = parse("kraft.log.fille=/tmp/x").expect_err("refused");
        assert_eq!(
            e.to_string(),
            "Unknown configuration kraft.log.fille: the logging keys are kraft.log.level, \
             kraft.log.format, kraft.log.file, kraft.log.file.max.bytes, \
             kraft.log.file.max.files; a misspelled one is refused rather than ignored"
        );
        // Other kraft.* keys are not this module's concern.
        assert!(parse("kraft.logging=1\nkraft.metrics.listener=").is_ok());
    }
}
