//! `kraft server --from-env`: the container entry point, configured the way
//! the apache/kafka image configures Kafka.
//!
//! The rules are those of Kafka 4.4's image, in its order:
//!
//! 1. `configureDefaults`: `CLUSTER_ID` defaults to [`DEFAULT_CLUSTER_ID`].
//! 2. `configure`: a controller (`KAFKA_PROCESS_ROLES=controller`) refuses
//!    `KAFKA_ADVERTISED_LISTENERS`; otherwise `KAFKA_LISTENERS` defaults to
//!    the advertised listeners on `0.0.0.0`; an `SSL://` advertised listener
//!    turns `KAFKA_SSL_*_FILENAME` into `KAFKA_SSL_*_LOCATION` under the
//!    secrets directory and reads `KAFKA_SSL_*_CREDENTIALS` files into
//!    `KAFKA_SSL_*_PASSWORD`.
//! 3. `KafkaDockerWrapper.prepareServerConfigs`: every `KAFKA_*` variable
//!    but [`EXCLUDED_ENV`] becomes a property (`KAFKA_` dropped, lower case,
//!    `_` -> `.`, `__` -> `_`, `___` -> `-`), appended to the mounted
//!    `server.properties` (so it overrides it); the default file is used only
//!    when the result is blank.
//! 4. `formatStorageCmd`: `kafka-storage format --cluster-id=$CLUSTER_ID -c
//!    server.properties` on every start, without a quorum flag (static
//!    voters); a failure that says "already formatted" is not one.
//!
//! `KAFKA_LOG4J_ROOT_LOGLEVEL`, `KAFKA_LOG4J_LOGGERS` and
//! `KAFKA_TOOLS_LOG4J_LOGLEVEL` set the `tracing` filter instead of log4j's
//! (see [`log_filter`]). Values are never logged: they may be passwords.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use kraft_controller::config::ControllerConfig;
use kraft_controller::format::{self, FormatError, FormatOptions, InitialQuorum};

use crate::commands::CliError;

/// The environment, name to value (variables that are not UTF-8 are left out).
pub type Env = BTreeMap<String, String>;

/// The image's `CLUSTER_ID` when none is set (`configureDefaults`).
pub const DEFAULT_CLUSTER_ID: &str = "5L6g3nShT-eMCtK--X86sw";

/// The name of the properties file in the default, mounted and final
/// directories, as in the image.
pub const SERVER_PROPERTIES: &str = "server.properties";

/// `KAFKA_*` variables that are not properties (`Constants.ExcludeServerPropsEnv`).
pub const EXCLUDED_ENV: [&str; 11] = [
    "KAFKA_VERSION",
    "KAFKA_HEAP_OPTS",
    "KAFKA_LOG4J_OPTS",
    "KAFKA_OPTS",
    "KAFKA_JMX_OPTS",
    "KAFKA_JVM_PERFORMANCE_OPTS",
    "KAFKA_GC_LOG_OPTS",
    "KAFKA_LOG4J_ROOT_LOGLEVEL",
    "KAFKA_LOG4J_LOGGERS",
    "KAFKA_TOOLS_LOG4J_LOGLEVEL",
    "KAFKA_JMX_HOSTNAME",
];

/// kraft-rs's own variables choosing the initial voters of a dynamic quorum
/// (the image always formats for static voters): `KRAFT_STANDALONE=true`,
/// `KRAFT_INITIAL_CONTROLLERS=id@host:port:dir,...` or
/// `KRAFT_NO_INITIAL_CONTROLLERS=true`, as the `storage format` flags.
pub const KRAFT_QUORUM_ENV: [&str; 3] = [
    "KRAFT_STANDALONE",
    "KRAFT_INITIAL_CONTROLLERS",
    "KRAFT_NO_INITIAL_CONTROLLERS",
];

/// The process environment as an [`Env`].
pub fn process_env() -> Env {
    std::env::vars_os()
        .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
        .collect()
}

/// The image's `run` script: each `NAME=VALUE` argument is exported over
/// the environment; an argument without `=` changes nothing.
pub fn apply_overrides(env: &mut Env, args: &[String]) {
    for arg in args {
        if let Some((name, value)) = arg.split_once('=') {
            env.insert(name.to_owned(), value.to_owned());
        }
    }
}

/// The property a `KAFKA_*` variable sets, or `None` for other variables
/// and [`EXCLUDED_ENV`] (`getServerConfigsFromEnv`).
pub fn property_key(env_name: &str) -> Option<String> {
    let rest = env_name.strip_prefix("KAFKA_")?;
    if EXCLUDED_ENV.contains(&env_name) {
        return None;
    }
    // Java's String.replace: left to right, non-overlapping, in this order.
    Some(
        rest.to_lowercase()
            .replace('_', ".")
            .replace("...", "-")
            .replace("..", "_"),
    )
}

/// The `key=value` lines the `KAFKA_*` variables add, in variable name order.
pub fn server_configs_from_env(env: &Env) -> Vec<String> {
    env.iter()
        .filter_map(|(name, value)| Some(format!("{}={value}", property_key(name)?)))
        .filter(|line| !line.trim().is_empty())
        .collect()
}

/// `configureDefaults` and `configure`: fills in `CLUSTER_ID`,
/// `KAFKA_LISTENERS` and the SSL locations and passwords, reading the
/// credentials files in `secrets_dir`. Returns what it did, for the log
/// (names only, never values of secrets).
pub fn configure(env: &mut Env, secrets_dir: &Path) -> Result<Vec<String>, CliError> {
    let mut notes = Vec::new();
    if env.get("CLUSTER_ID").is_none_or(|v| v.is_empty()) {
        notes.push(format!(
            "CLUSTER_ID not set. Setting it to default value: \"{DEFAULT_CLUSTER_ID}\""
        ));
        env.insert("CLUSTER_ID".into(), DEFAULT_CLUSTER_ID.into());
    }
    let roles = env.get("KAFKA_PROCESS_ROLES").cloned();
    if roles.as_deref() == Some("controller") {
        match env.get("KAFKA_ADVERTISED_LISTENERS") {
            Some(v) if !v.is_empty() => {
                return Err(CliError::new(
                    "KAFKA_ADVERTISED_LISTENERS is not supported on a KRaft controller.",
                ))
            }
            Some(_) => {
                env.remove("KAFKA_ADVERTISED_LISTENERS");
            }
            None => {}
        }
    }
    let advertised = env
        .get("KAFKA_ADVERTISED_LISTENERS")
        .filter(|v| !v.is_empty())
        .cloned();
    if let Some(advertised) = &advertised {
        if env.get("KAFKA_LISTENERS").is_none_or(|v| v.is_empty())
            && roles.as_deref() != Some("controller")
        {
            env.insert("KAFKA_LISTENERS".into(), listeners_on_any(advertised));
        }
        if advertised.contains("SSL://") {
            notes.push("SSL is enabled.".into());
            ssl_file(
                env,
                secrets_dir,
                "KAFKA_SSL_KEYSTORE_FILENAME",
                "KAFKA_SSL_KEYSTORE_LOCATION",
            )?;
            ssl_credentials(
                env,
                secrets_dir,
                "KAFKA_SSL_KEY_CREDENTIALS",
                "KAFKA_SSL_KEY_PASSWORD",
            )?;
            ssl_credentials(
                env,
                secrets_dir,
                "KAFKA_SSL_KEYSTORE_CREDENTIALS",
                "KAFKA_SSL_KEYSTORE_PASSWORD",
            )?;
            let client_auth = env
                .get("KAFKA_SSL_CLIENT_AUTH")
                .cloned()
                .unwrap_or_default();
            if client_auth.contains("required") || client_auth.contains("requested") {
                ssl_file(
                    env,
                    secrets_dir,
                    "KAFKA_SSL_TRUSTSTORE_FILENAME",
                    "KAFKA_SSL_TRUSTSTORE_LOCATION",
                )?;
                ssl_credentials(
                    env,
                    secrets_dir,
                    "KAFKA_SSL_TRUSTSTORE_CREDENTIALS",
                    "KAFKA_SSL_TRUSTSTORE_PASSWORD",
                )?;
            }
        }
    }
    Ok(notes)
}

/// `sed -e 's|://[^:]*:|://0.0.0.0:|g'`: every listener's host becomes
/// `0.0.0.0`.
pub fn listeners_on_any(advertised: &str) -> String {
    let mut out = String::new();
    let mut rest = advertised;
    while let Some(at) = rest.find("://") {
        let after = &rest[at + 3..];
        match after.find(':') {
            Some(colon) => {
                out.push_str(&rest[..at]);
                out.push_str("://0.0.0.0:");
                rest = &after[colon + 1..];
            }
            None => break,
        }
    }
    out.push_str(rest);
    out
}

fn ensure<'a>(env: &'a Env, name: &str) -> Result<&'a str, CliError> {
    env.get(name)
        .map(String::as_str)
        .filter(|v| !v.is_empty())
        .ok_or_else(|| CliError::new(format!("{name} environment variable not set")))
}

fn existing(path: PathBuf) -> Result<PathBuf, CliError> {
    if path.exists() {
        Ok(path)
    } else {
        Err(CliError::new(format!(
            "{} file does not exist",
            path.display()
        )))
    }
}

fn ssl_file(env: &mut Env, secrets: &Path, name: &str, location: &str) -> Result<(), CliError> {
    let path = existing(secrets.join(ensure(env, name)?))?;
    env.insert(location.into(), path.display().to_string());
    Ok(())
}

fn ssl_credentials(
    env: &mut Env,
    secrets: &Path,
    name: &str,
    password: &str,
) -> Result<(), CliError> {
    let path = existing(secrets.join(ensure(env, name)?))?;
    let text = std::fs::read_to_string(&path)
        .map_err(|e| CliError::new(format!("{}: {e}", path.display())))?;
    // `$(cat file)` drops the trailing newlines.
    env.insert(password.into(), text.trim_end_matches('\n').to_owned());
    Ok(())
}

/// `prepareServerConfigs`: writes `final_dir/server.properties` from the
/// mounted file (if any) followed by the `KAFKA_*` properties, or the
/// default file when that is blank, and returns its path. The file is
/// readable by its owner only (it may hold passwords).
pub fn prepare_server_config(
    default_dir: &Path,
    mounted_dir: &Path,
    final_dir: &Path,
    env: &Env,
) -> Result<PathBuf, CliError> {
    let io = |path: &Path, e: std::io::Error| CliError::new(format!("{}: {e}", path.display()));
    let lines = server_configs_from_env(env).join("\n");
    let added = if lines.is_empty() {
        String::new()
    } else {
        format!("\n{lines}")
    };
    let mounted = mounted_dir.join(SERVER_PROPERTIES);
    let mut text = if mounted.exists() {
        std::fs::read_to_string(&mounted).map_err(|e| io(&mounted, e))?
    } else {
        String::new()
    };
    text.push_str(&added);
    if text.trim().is_empty() {
        let default = default_dir.join(SERVER_PROPERTIES);
        if default.exists() {
            text = std::fs::read_to_string(&default).map_err(|e| io(&default, e))?;
        }
    }
    std::fs::create_dir_all(final_dir).map_err(|e| io(final_dir, e))?;
    let path = final_dir.join(SERVER_PROPERTIES);
    write_private(&path, &text).map_err(|e| io(&path, e))?;
    Ok(path)
}

fn write_private(path: &Path, text: &str) -> std::io::Result<()> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
        options.mode(0o600);
        // An existing file keeps its mode through open: narrow it first.
        if path.exists() {
            std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))?;
        }
    }
    let mut file = options.open(path)?;
    file.write_all(text.as_bytes())?;
    file.sync_all()
}

/// A log4j level as a `tracing` level (`FATAL` is `error`, `ALL` is `trace`).
fn tracing_level(log4j: &str) -> String {
    match log4j.trim().to_ascii_lowercase().as_str() {
        "fatal" => "error".into(),
        "all" => "trace".into(),
        other => other.into(),
    }
}

/// `KAFKA_LOG4J_LOGGERS` (`name=LEVEL,...`) as `(name, level)` pairs, split
/// as Java's `String.split` does (trailing empty parts dropped); an entry
/// without a level is an error, as it fails the image's setup.
pub fn log4j_loggers(env: &Env) -> Result<Vec<(String, String)>, CliError> {
    let Some(value) = env.get("KAFKA_LOG4J_LOGGERS").filter(|v| !v.is_empty()) else {
        return Ok(Vec::new());
    };
    java_split(value, ',')
        .into_iter()
        .map(|entry| {
            let parts = java_split(entry, '=');
            match parts.as_slice() {
                [name, level, ..] => Ok((name.trim().to_owned(), level.trim().to_owned())),
                _ => Err(CliError::new(format!(
                    "KAFKA_LOG4J_LOGGERS: no level in '{entry}' (expected name=LEVEL,...)"
                ))),
            }
        })
        .collect()
}

fn java_split(s: &str, sep: char) -> Vec<&str> {
    let mut parts: Vec<&str> = s.split(sep).collect();
    while parts.last().is_some_and(|p| p.is_empty()) {
        parts.pop();
    }
    parts
}

/// The `tracing` filter (`KRAFT_LOG` syntax) the image's log variables ask
/// for: for `kraft server --from-env`, `KAFKA_LOG4J_ROOT_LOGLEVEL` (default
/// `info`) and the `KAFKA_LOG4J_LOGGERS` targets; for the other commands,
/// `KAFKA_TOOLS_LOG4J_LOGLEVEL`. `None` when none of them applies. Logger
/// names are `tracing` targets (`kraft_raft=DEBUG`), not Java class names.
pub fn log_filter(args: &[String], env: &Env) -> Option<String> {
    let from_env =
        args.get(1).map(String::as_str) == Some("server") && args.iter().any(|a| a == "--from-env");
    let non_empty = |name: &str| env.get(name).filter(|v| !v.is_empty()).cloned();
    if !from_env {
        return non_empty("KAFKA_TOOLS_LOG4J_LOGLEVEL").map(|l| tracing_level(&l));
    }
    let root = non_empty("KAFKA_LOG4J_ROOT_LOGLEVEL");
    let loggers = log4j_loggers(env).unwrap_or_default();
    if root.is_none() && loggers.is_empty() {
        return None;
    }
    let mut directives = vec![tracing_level(root.as_deref().unwrap_or("INFO"))];
    directives.extend(
        loggers
            .iter()
            .map(|(name, level)| format!("{name}={}", tracing_level(level))),
    );
    Some(directives.join(","))
}

/// [`log_filter`] for this process's arguments and environment.
pub fn process_log_filter() -> Option<String> {
    let args: Vec<String> = std::env::args_os()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    log_filter(&args, &process_env())
}

/// The quorum flag of the first-start format: none (static voters, as the
/// image), or the one a [`KRAFT_QUORUM_ENV`] variable asks for.
pub fn initial_quorum(env: &Env) -> Result<InitialQuorum, CliError> {
    let set = |name: &str| env.get(name).filter(|v| !v.trim().is_empty());
    let flag = |name: &str| -> Result<bool, CliError> {
        match set(name).map(|v| v.trim().to_ascii_lowercase()) {
            None => Ok(false),
            Some(v) if v == "true" => Ok(true),
            Some(v) if v == "false" => Ok(false),
            Some(_) => Err(CliError::new(format!("{name} must be true or false"))),
        }
    };
    let chosen = [
        flag(KRAFT_QUORUM_ENV[0])?.then_some(InitialQuorum::Standalone),
        set(KRAFT_QUORUM_ENV[1]).map(|v| InitialQuorum::InitialControllers(v.trim().to_owned())),
        flag(KRAFT_QUORUM_ENV[2])?.then_some(InitialQuorum::NoInitialControllers),
    ];
    let mut chosen = chosen.into_iter().flatten();
    let first = chosen.next().unwrap_or(InitialQuorum::Unspecified);
    if chosen.next().is_some() {
        return Err(CliError::new(format!(
            "set at most one of {}",
            KRAFT_QUORUM_ENV.join(", ")
        )));
    }
    Ok(first)
}

/// The first-start format (`formatStorageCmd` and the `launch` script):
/// formats the log directories of `config` with `cluster_id` through
/// `kraft storage format`'s code path; directories already formatted make
/// it a no-op, as the image ignores an "already formatted" failure.
/// Returns the format's output lines.
pub fn format_storage(
    config: &ControllerConfig,
    cluster_id: &str,
    initial_quorum: InitialQuorum,
) -> Result<Vec<String>, CliError> {
    let static_voters = initial_quorum == InitialQuorum::Unspecified;
    let result = format::format(&FormatOptions {
        config: config.clone(),
        cluster_id: cluster_id.to_owned(),
        release_version: None,
        features: Vec::new(),
        ignore_formatted: false,
        initial_quorum,
        add_scram: Vec::new(),
        now_ms: None,
    });
    match result {
        Ok(report) => Ok(report.output),
        Err(e) if e.to_string().to_lowercase().contains("already formatted") => {
            Ok(vec![e.to_string()])
        }
        Err(FormatError::Invalid(m)) if static_voters && m.contains("controller.quorum.voters") => {
            Err(CliError::new(format!(
                "To maximize compatibility, the Docker image continues to use static voters, \
                 which are supported in 3.7 and later. Set KAFKA_CONTROLLER_QUORUM_VOTERS, or one of \
                 {} for a dynamic quorum. ({m})",
                KRAFT_QUORUM_ENV.join(", ")
            )))
        }
        Err(e) => Err(CliError::new(e.to_string())),
    }
}

/// Where `kraft server --from-env` reads and writes its configuration.
#[derive(Debug, Clone)]
pub struct ConfigDirs {
    /// The image's defaults (`server.properties`), used when nothing else
    /// configures the node.
    pub default_dir: PathBuf,
    /// A `server.properties` mounted by the operator, overridden by `KAFKA_*`.
    pub mounted_dir: PathBuf,
    /// Where the resulting `server.properties` is written.
    pub final_dir: PathBuf,
    /// Where `KAFKA_SSL_*_FILENAME` and `*_CREDENTIALS` files are.
    pub secrets_dir: PathBuf,
}

/// Steps 1-4 of the module docs: the final properties file, the loaded
/// configuration and the first-start format. Notes go to `err`.
pub fn setup(
    dirs: &ConfigDirs,
    mut env: Env,
    err: &mut dyn Write,
) -> Result<(PathBuf, ControllerConfig), CliError> {
    for note in configure(&mut env, &dirs.secrets_dir)? {
        let _ = writeln!(err, "{note}");
    }
    // Fail before anything is written if the loggers cannot be read.
    log4j_loggers(&env)?;
    let quorum = initial_quorum(&env)?;
    let path = prepare_server_config(&dirs.default_dir, &dirs.mounted_dir, &dirs.final_dir, &env)?;
    let (config, warnings) = ControllerConfig::load(&path)
        .map_err(|e| CliError::new(format!("{}: {e}", path.display())))?;
    for w in warnings {
        let _ = writeln!(err, "WARN {w}");
    }
    let cluster_id = env
        .get("CLUSTER_ID")
        .cloned()
        .unwrap_or_else(|| DEFAULT_CLUSTER_ID.to_owned());
    let _ = writeln!(err, "===> Using provided cluster id {cluster_id} ...");
    for line in format_storage(&config, &cluster_id, quorum)? {
        let _ = writeln!(err, "{line}");
    }
    Ok((path, config))
}

#[cfg(test)]
mod tests;
