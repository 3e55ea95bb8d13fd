//! This process's log levels as BROKER_LOGGER resources: what
//! DescribeConfigs lists and IncrementalAlterConfigs changes, in the role
//! Kafka's `LoggingController` plays over log4j.
//!
//! A logger is a `tracing` target: `root` (Kafka's name of the root logger)
//! is the level of every target no other logger names, `kraft_raft` the
//! level of the raft crate and of every target below it
//! (`kraft_raft::driver`...). The loggers that exist are `root`, the crates
//! of the `kraft` binary ([`CRATE_TARGETS`]) and every target the starting
//! filter (`KRAFT_LOG`) names; a logger without its own level reports the
//! level of its nearest ancestor that has one, else the root's, as log4j's
//! loggers do. Levels are Kafka's (`TRACE`, `DEBUG`, `INFO`, `WARN`,
//! `ERROR`, `FATAL`; `FATAL` filters as `tracing`'s `error`) plus the `OFF`
//! a starting filter may give.
//!
//! The process installs its [`Loggers`] once ([`install`]) with the
//! function that applies a new filter (the `kraft` binary reloads its
//! `tracing_subscriber` filter with it); without one, levels are recorded
//! but change nothing.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex, OnceLock};

/// Kafka's name of the root logger (`LoggingController.ROOT_LOGGER`).
pub const ROOT_LOGGER: &str = "root";

/// The `tracing` targets of the `kraft` binary's crates: loggers that
/// always exist.
pub const CRATE_TARGETS: &[&str] = &[
    "kraft",
    "kraft_admin",
    "kraft_cli",
    "kraft_controller",
    "kraft_protocol",
    "kraft_raft",
    "kraft_security",
];

/// Applies a filter, given in `tracing_subscriber`'s `EnvFilter` directive
/// syntax, to the running process.
pub type ApplyFilter = Box<dyn Fn(&str) -> Result<(), String> + Send + Sync>;

#[derive(Debug, Clone)]
struct State {
    /// The root level, in Kafka's upper case.
    root: String,
    /// Loggers with a level of their own.
    levels: BTreeMap<String, String>,
    /// Loggers that exist.
    known: BTreeSet<String>,
    /// Directives of the starting filter that name no plain target (span
    /// or field filters), kept as they are.
    other: Vec<String>,
}

/// The process's loggers and their levels.
pub struct Loggers {
    state: Mutex<State>,
    apply: Option<ApplyFilter>,
}

impl std::fmt::Debug for Loggers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Loggers")
            .field("directives", &self.directives())
            .finish_non_exhaustive()
    }
}

/// A `tracing` level name (any case), or a Kafka one, in Kafka's upper
/// case; `None` for anything else.
fn level_name(text: &str) -> Option<String> {
    let upper = text.to_ascii_uppercase();
    matches!(
        upper.as_str(),
        "TRACE" | "DEBUG" | "INFO" | "WARN" | "ERROR" | "FATAL" | "OFF"
    )
    .then_some(upper)
}

/// A Kafka level as an `EnvFilter` level.
fn filter_level(level: &str) -> String {
    match level {
        "FATAL" => "error".to_owned(),
        other => other.to_ascii_lowercase(),
    }
}

/// Whether `target` is `ancestor` or below it.
fn is_within(target: &str, ancestor: &str) -> bool {
    target == ancestor
        || target
            .strip_prefix(ancestor)
            .is_some_and(|rest| rest.starts_with("::"))
}

impl Loggers {
    /// The loggers of a process started with the filter `directives`
    /// (`EnvFilter` syntax, e.g. `info,kraft_raft=debug`), applying no
    /// change anywhere.
    pub fn new(directives: &str) -> Self {
        let mut state = State {
            root: "ERROR".to_owned(),
            levels: BTreeMap::new(),
            known: CRATE_TARGETS.iter().map(|t| (*t).to_owned()).collect(),
            other: Vec::new(),
        };
        for directive in directives.split(',').map(str::trim) {
            if directive.is_empty() {
                continue;
            }
            let plain = |t: &str| {
                !t.is_empty()
                    && t.chars()
                        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':' || c == '-')
            };
            match directive.split_once('=') {
                None => match level_name(directive) {
                    Some(level) => state.root = level,
                    // A bare target means every level of it.
                    None if plain(directive) => {
                        state.known.insert(directive.to_owned());
                        state
                            .levels
                            .insert(directive.to_owned(), "TRACE".to_owned());
                    }
                    None => state.other.push(directive.to_owned()),
                },
                Some((target, level)) => match level_name(level) {
                    Some(level) if plain(target) => {
                        state.known.insert(target.to_owned());
                        state.levels.insert(target.to_owned(), level);
                    }
                    _ => state.other.push(directive.to_owned()),
                },
            }
        }
        Loggers {
            state: Mutex::new(state),
            apply: None,
        }
    }

    /// [`Loggers::new`] with the function that applies a changed filter.
    pub fn with_apply(directives: &str, apply: ApplyFilter) -> Self {
        Loggers {
            apply: Some(apply),
            ..Loggers::new(directives)
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Every logger with its level (its own, else its nearest ancestor's,
    /// else the root's), the root first and the others by name.
    pub fn loggers(&self) -> Vec<(String, String)> {
        let state = self.lock();
        let mut out = vec![(ROOT_LOGGER.to_owned(), state.root.clone())];
        for target in &state.known {
            out.push((target.clone(), effective(&state, target)));
        }
        out
    }

    /// Kafka's `loggerExists`.
    pub fn exists(&self, name: &str) -> bool {
        name == ROOT_LOGGER || self.lock().known.contains(name)
    }

    /// Sets the level of logger `name` (Kafka's `logLevel`), `level` being
    /// one of Kafka's levels; false when the logger does not exist or the
    /// level is not a level, or the filter could not be applied.
    pub fn set(&self, name: &str, level: &str) -> bool {
        let Some(level) = level_name(level) else {
            return false;
        };
        self.change(|state| {
            if name == ROOT_LOGGER {
                state.root = level;
            } else if state.known.contains(name) {
                state.levels.insert(name.to_owned(), level);
            } else {
                return false;
            }
            true
        })
    }

    /// Removes the level of logger `name`, which then takes its ancestor's
    /// (Kafka's `unsetLogLevel`); false when it does not exist or the
    /// filter could not be applied. The root keeps its level.
    pub fn unset(&self, name: &str) -> bool {
        self.change(|state| {
            if name == ROOT_LOGGER {
                return true;
            }
            if !state.known.contains(name) {
                return false;
            }
            state.levels.remove(name);
            true
        })
    }

    /// The current filter in `EnvFilter` directive syntax.
    pub fn directives(&self) -> String {
        render(&self.lock())
    }

    fn change(&self, f: impl FnOnce(&mut State) -> bool) -> bool {
        let mut state = self.lock();
        let before = state.clone();
        if !f(&mut state) {
            return false;
        }
        if let Some(apply) = &self.apply {
            if let Err(e) = apply(&render(&state)) {
                *state = before;
                drop(state);
                tracing::error!("the log filter could not be changed: {e}");
                return false;
            }
        }
        true
    }
}

fn effective(state: &State, target: &str) -> String {
    state
        .levels
        .iter()
        .filter(|(ancestor, _)| is_within(target, ancestor))
        .max_by_key(|(ancestor, _)| ancestor.len())
        .map_or_else(|| state.root.clone(), |(_, level)| level.clone())
}

fn render(state: &State) -> String {
    let mut parts = vec![filter_level(&state.root)];
    parts.extend(state.other.iter().cloned());
    for (target, level) in &state.levels {
        parts.push(format!("{target}={}", filter_level(level)));
    }
    parts.join(",")
}

static PROCESS: OnceLock<Arc<Loggers>> = OnceLock::new();

/// Installs the process's loggers; false if some were installed already
/// (the first stay).
pub fn install(loggers: Loggers) -> bool {
    PROCESS.set(Arc::new(loggers)).is_ok()
}

/// The process's loggers: those [`install`]ed, else loggers at `info` that
/// change nothing.
pub fn process() -> Arc<Loggers> {
    PROCESS
        .get_or_init(|| Arc::new(Loggers::new("info")))
        .clone()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_starting_filter_gives_the_loggers_and_their_levels() {
        let loggers = Loggers::new("warn,kraft_raft=debug,my_target=info,[span]=trace");
        let all: BTreeMap<String, String> = loggers.loggers().into_iter().collect();
        assert_eq!(all["root"], "WARN");
        assert_eq!(all["kraft_raft"], "DEBUG");
        assert_eq!(all["kraft_controller"], "WARN");
        assert_eq!(all["my_target"], "INFO");
        assert!(!all.contains_key("[span]"));
        assert_eq!(loggers.loggers()[0].0, "root");
        assert!(loggers.exists("root") && loggers.exists("my_target"));
        assert!(!loggers.exists("kafka.controller"));
        assert_eq!(
            loggers.directives(),
            "warn,[span]=trace,kraft_raft=debug,my_target=info"
        );
    }

    #[test]
    fn a_bare_target_is_every_level_and_a_bare_level_the_root() {
        let loggers = Loggers::new("kraft_controller,OFF");
        let all: BTreeMap<String, String> = loggers.loggers().into_iter().collect();
        assert_eq!(all["root"], "OFF");
        assert_eq!(all["kraft_controller"], "TRACE");
        assert_eq!(all["kraft_raft"], "OFF");
    }

    #[test]
    fn set_and_unset_reach_the_applied_filter() {
        let applied = Arc::new(Mutex::new(Vec::<String>::new()));
        let sink = applied.clone();
        let loggers = Loggers::with_apply(
            "info",
            Box::new(move |f| {
                sink.lock().unwrap().push(f.to_owned());
                Ok(())
            }),
        );
        assert!(loggers.set("kraft_raft", "DEBUG"));
        assert!(loggers.set("root", "FATAL"));
        assert!(!loggers.set("kafka.server", "DEBUG"));
        assert!(!loggers.set("kraft_raft", "VERBOSE"));
        let all: BTreeMap<String, String> = loggers.loggers().into_iter().collect();
        assert_eq!(all["root"], "FATAL");
        assert_eq!(all["kraft_raft"], "DEBUG");
        assert!(loggers.unset("kraft_raft"));
        assert!(loggers.unset("root"));
        let all: BTreeMap<String, String> = loggers.loggers().into_iter().collect();
        assert_eq!(all["kraft_raft"], "FATAL");
        assert_eq!(
            *applied.lock().unwrap(),
            vec![
                "info,kraft_raft=debug".to_owned(),
                "error,kraft_raft=debug".to_owned(),
                "error".to_owned(),
                "error".to_owned(),
            ]
        );
    }

    #[test]
    fn a_filter_that_cannot_be_applied_changes_nothing() {
        let loggers = Loggers::with_apply("info", Box::new(|_| Err("no".to_owned())));
        assert!(!loggers.set("kraft_raft", "DEBUG"));
        assert_eq!(loggers.directives(), "info");
    }

    #[test]
    fn a_child_target_takes_its_nearest_ancestor_level() {
        let loggers =
            Loggers::new("info,kraft_raft=warn,kraft_raft::driver=trace,kraft_raftx=debug");
        let all: BTreeMap<String, String> = loggers.loggers().into_iter().collect();
        assert_eq!(all["kraft_raft::driver"], "TRACE");
        assert_eq!(all["kraft_raft"], "WARN");
        assert!(loggers.unset("kraft_raft::driver"));
        let all: BTreeMap<String, String> = loggers.loggers().into_iter().collect();
        assert_eq!(all["kraft_raft::driver"], "WARN");
        assert_eq!(all["kraft_raftx"], "DEBUG");
    }
}
