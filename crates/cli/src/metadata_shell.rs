//! `kraft metadata-shell`: browse a metadata snapshot or log segment as
//! Kafka's `kafka-metadata-shell.sh` (class
//! `org.apache.kafka.shell.MetadataShell`) does, with the same tree, commands
//! and output.
//!
//! `--snapshot FILE` (`-s`) names a snapshot (`.checkpoint`) or a log segment
//! (`.log`); every metadata batch in it is applied, in order, to an empty
//! [`MetadataImage`] (control batches are skipped, as Kafka's
//! `SnapshotFileReader` skips them). `--directory DIR` (`-d`, not in
//! Kafka's tool) reads a metadata log directory instead: its newest
//! snapshot, then the records of its segments after that snapshot.
//!
//! With a command after the options the shell runs it and exits (`ls`,
//! `cat`, `find` and `tree` only, as in Kafka); without one it reads
//! commands from standard input, one a line, printing Kafka's banner and
//! `>> ` prompt: `ls`, `cat`, `cd`, `pwd`, `find`, `tree`, `history`,
//! `help`, `man`, `exit`.
//!
//! The tree is Kafka 4.4's: `/local` (the tool's version: kraft-rs's here)
//! and `/image`
//! (`provenance`, `features`, `cluster/{brokers,controllers}`,
//! `topics/{byName,byId}`, `configs`, `clientQuotas`, `producerIds`,
//! `acls/byId`, `scram`, `delegationToken`), paths with `.`, `..` and globs
//! (`*`, `?`, `{a,b}`). Kafka's failures are kept too: a default client
//! quota entity shows as an empty name, and walking into it (`find`, a
//! glob) ends the shell with `Unexpected error` and exit status 1.
//!
//! Line editing, completion and `!` history expansion (Kafka's JLine) are
//! not provided: lines are read as they come. `ls` lays entries out in
//! columns only when standard input is a terminal (width from `COLUMNS`,
//! else 80), as Kafka's does on a terminal; otherwise one a line.

mod tree;

use std::fmt::Write as _;
use std::io::{BufRead, Write};

use clap::Args;
use kraft_controller::image::MetadataImage;
use kraft_protocol::messages::snapshot_header_record::SnapshotHeaderRecord;
use kraft_protocol::records::ControlRecordType;
use kraft_protocol::Decodable;

use crate::commands::CliError;
use crate::dump_log::{next_batch, parse_snapshot_name, read_prefix};

pub use tree::Provenance;
use tree::{sort_names, Node, Tree};

/// `kraft metadata-shell` arguments: Kafka's `kafka-metadata-shell.sh`.
#[derive(Debug, Args, Clone)]
#[command(after_help = "Examples:
  kraft metadata-shell --snapshot /var/lib/kraft/__cluster_metadata-0/00000000000000000113-0000000002.checkpoint
  kraft metadata-shell -s 00000000000000000000.log ls /image/topics/byName
  kraft metadata-shell -s 00000000000000000000.log tree /image/features
  kraft metadata-shell --bootstrap-controller localhost:9093 cat /image/cluster/brokers/1/registration")]
pub struct MetadataShellArgs {
    /// The metadata snapshot file to read.
    #[arg(
        long,
        short = 's',
        value_name = "SNAPSHOT",
        required_unless_present_any = ["directory", "bootstrap_controller"]
    )]
    pub snapshot: Option<String>,
    /// A metadata log directory to read instead (kraft-rs only): its newest snapshot, then the log segments after it.
    #[arg(long, short = 'd', value_name = "DIR", conflicts_with = "snapshot")]
    pub directory: Option<String>,
    /// Read the committed metadata of a running quorum instead (kraft-rs only): the active controller's latest snapshot and the committed log after it, fetched as an observer fetches them.
    #[arg(
        long,
        value_name = "HOST:PORT[,...]",
        conflicts_with_all = ["snapshot", "directory"]
    )]
    pub bootstrap_controller: Option<String>,
    /// With --bootstrap-controller: a properties file of admin client settings (security.protocol, ssl.*, sasl.*), as Kafka's tools take it.
    #[arg(long, value_name = "FILE", requires = "bootstrap_controller")]
    pub command_config: Option<std::path::PathBuf>,
    /// The command to run.
    #[arg(
        value_name = "COMMAND",
        trailing_var_arg = true,
        allow_hyphen_values = true
    )]
    pub command: Vec<String>,
}

/// Reads `file` (a snapshot or a log segment) into an image: every record
/// of every metadata batch applied in order. A record that cannot be
/// decoded or applied is reported on `err` and skipped, as Kafka's loader
/// logs and skips it.
pub fn load(file: &str, err: &mut dyn Write) -> Result<(MetadataImage, Provenance), CliError> {
    let mut image = MetadataImage::new();
    let mut provenance = Provenance::default();
    apply_file(file, -1, &mut image, &mut provenance, err)?;
    Ok((image, provenance))
}

/// Reads a metadata log directory (`__cluster_metadata-0`) into an image:
/// its newest snapshot, then the records of its segments that follow it.
/// With no snapshot, the segments from their start.
pub fn load_directory(
    dir: &str,
    err: &mut dyn Write,
) -> Result<(MetadataImage, Provenance), CliError> {
    let cannot = |e: std::io::Error| CliError::new(format!("Cannot read {dir}: {e}"));
    let mut snapshots: Vec<(i64, i32, String)> = Vec::new();
    let mut segments: Vec<(i64, String)> = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(cannot)? {
        let entry = entry.map_err(cannot)?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let path = entry.path().display().to_string();
        if let Some((offset, epoch)) = parse_snapshot_name(&name) {
            snapshots.push((offset, epoch, path));
        } else if let Some(base) = name
            .strip_suffix(".log")
            .filter(|s| s.len() == 20 && s.bytes().all(|b| b.is_ascii_digit()))
            .and_then(|s| s.parse::<i64>().ok())
        {
            segments.push((base, path));
        }
    }
    if snapshots.is_empty() && segments.is_empty() {
        return Err(CliError::new(format!(
            "{dir} holds no metadata snapshot (<end offset>-<epoch>.checkpoint) and no log segment (<base offset>.log)"
        )));
    }
    snapshots.sort();
    segments.sort();
    let mut image = MetadataImage::new();
    let mut provenance = Provenance::default();
    let mut next_offset = 0;
    if let Some((end_offset, epoch, path)) = snapshots.pop() {
        apply_file(&path, -1, &mut image, &mut provenance, err)?;
        // Kafka's provenance of a snapshot: its end offset and epoch, and
        // the log time its header records.
        provenance.offset = end_offset - 1;
        provenance.epoch = epoch;
        if let Some(time_ms) = snapshot_header_time(&path)? {
            provenance.time_ms = time_ms;
        }
        next_offset = end_offset;
    }
    for (_, path) in segments {
        apply_file(&path, next_offset, &mut image, &mut provenance, err)?;
    }
    Ok((image, provenance))
}

/// The `lastContainedLogTimestamp` of the snapshot header record that opens
/// the snapshot `file`, if it has one.
fn snapshot_header_time(file: &str) -> Result<Option<i64>, CliError> {
    let data = read_prefix(file, i32::MAX)?;
    let Some((batch, _)) = next_batch(file, &data, 0)? else {
        return Ok(None);
    };
    if !batch.is_control() {
        return Ok(None);
    }
    let Ok(records) = batch.records() else {
        return Ok(None);
    };
    for record in records.flatten() {
        if record.control_type().ok() != Some(ControlRecordType::SnapshotHeader) {
            continue;
        }
        if let Some(mut value) = record.value {
            if let Ok(header) = SnapshotHeaderRecord::decode(&mut value, 0) {
                return Ok(Some(header.last_contained_log_timestamp));
            }
        }
    }
    Ok(None)
}

/// Applies the metadata records of `file` at offsets from `from_offset`
/// on to `image`, `provenance` following the last batch applied outside a
/// transaction.
fn apply_file(
    file: &str,
    from_offset: i64,
    image: &mut MetadataImage,
    provenance: &mut Provenance,
    err: &mut dyn Write,
) -> Result<(), CliError> {
    let data = read_prefix(file, i32::MAX)?;
    let mut position = 0usize;
    while let Some((batch, total)) = next_batch(file, &data, position)? {
        position += total;
        if batch.is_control() || batch.last_offset() < from_offset {
            continue;
        }
        let corrupt = |e: &dyn std::fmt::Display| {
            CliError::new(format!(
                "{file}: the batch at offset {} is corrupt: {e}",
                batch.base_offset()
            ))
        };
        let records = batch.records().map_err(|e| corrupt(&e))?;
        let mut applied = 0i64;
        for record in records {
            let record = record.map_err(|e| corrupt(&e))?;
            if record.offset < from_offset {
                continue;
            }
            let Some(value) = record.value else {
                writeln!(
                    err,
                    "Skipping the record at offset {}: it has no value",
                    record.offset
                )?;
                continue;
            };
            if let Err(e) = image.replay_value(value, record.offset) {
                writeln!(err, "Skipping the record at offset {}: {e}", record.offset)?;
            }
            applied += 1;
        }
        if applied > 0 && image.open_transaction().is_none() {
            *provenance = Provenance {
                offset: batch.base_offset() + applied - 1,
                epoch: batch.partition_leader_epoch(),
                time_ms: batch.max_timestamp(),
            };
        }
    }
    Ok(())
}

/// Runs `kraft metadata-shell`: loads the file, then runs the command of
/// the arguments, or (without one) the commands read from `input`.
/// `terminal_width` is the width of the terminal `input` is, if it is one.
/// Returns the exit status.
pub fn run(
    args: &MetadataShellArgs,
    input: &mut dyn BufRead,
    terminal_width: Option<usize>,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<i32, CliError> {
    let (image, provenance) = match (&args.snapshot, &args.directory) {
        (_, Some(dir)) => load_directory(dir, err)?,
        (Some(file), None) => load(file, err)?,
        (None, None) => {
            return Err(CliError::new(
                "--snapshot, --directory or --bootstrap-controller is required",
            ))
        }
    };
    let tree = Tree {
        image: &image,
        provenance,
    };
    let mut shell = Shell {
        tree,
        working_directory: "/".to_string(),
        history: Vec::new(),
        interactive: args.command.is_empty(),
        screen_width: terminal_width,
    };
    if !shell.interactive {
        let mut text = String::new();
        let result = shell.run_command(&args.command, &mut text);
        out.write_all(text.as_bytes())?;
        out.flush()?;
        return Ok(match result {
            Ok(_) => 0,
            Err(message) => {
                writeln!(err, "Unexpected error: {message}")?;
                1
            }
        });
    }
    write!(out, "Loading...\nStarting...\n[ Kafka Metadata Shell ]\n")?;
    let mut line = String::new();
    loop {
        write!(out, ">> ")?;
        out.flush()?;
        line.clear();
        if input.read_line(&mut line)? == 0 {
            return Ok(0);
        }
        let text = line.strip_suffix('\n').unwrap_or(&line);
        let text = text.strip_suffix('\r').unwrap_or(text);
        shell.remember(text);
        let words = split_words(text);
        let mut output = String::new();
        match shell.run_command(&words, &mut output) {
            Ok(Flow::Continue) => {
                out.write_all(output.as_bytes())?;
            }
            Ok(Flow::Exit) => {
                out.write_all(output.as_bytes())?;
                out.flush()?;
                return Ok(0);
            }
            // Kafka's interactive shell loses the failed command's output.
            Err(message) => {
                out.flush()?;
                writeln!(err, "Unexpected error: {message}")?;
                return Ok(1);
            }
        }
    }
}

/// Whether the shell goes on after a command.
enum Flow {
    Continue,
    Exit,
}

/// How many positional arguments a command takes (argparse's `nargs`).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Nargs {
    /// `?`
    Optional,
    /// `*`
    Any,
    /// `+`
    AtLeastOne,
    /// `1`
    One,
}

/// A command of Kafka's shell: its name, help text, whether it exists only
/// in interactive mode, and its one positional argument, if any.
struct CommandSpec {
    name: &'static str,
    description: &'static str,
    shell_only: bool,
    argument: Option<(&'static str, Nargs, &'static str)>,
}

/// Kafka's commands, sorted by name.
const COMMANDS: [CommandSpec; 10] = [
    CommandSpec {
        name: "cat",
        description: "Show the contents of metadata files.",
        shell_only: false,
        argument: Some((
            "targets",
            Nargs::AtLeastOne,
            "The metadata files to display.",
        )),
    },
    CommandSpec {
        name: "cd",
        description: "Set the current working directory.",
        shell_only: true,
        argument: Some(("target", Nargs::Optional, "The directory to change to.")),
    },
    CommandSpec {
        name: "exit",
        description: "Exit the metadata shell.",
        shell_only: true,
        argument: None,
    },
    CommandSpec {
        name: "find",
        description: "Search for nodes in the directory hierarchy.",
        shell_only: false,
        argument: Some(("paths", Nargs::Any, "The paths to start at.")),
    },
    CommandSpec {
        name: "help",
        description: "Display this help message.",
        shell_only: true,
        argument: None,
    },
    CommandSpec {
        name: "history",
        description: "Print command history.",
        shell_only: true,
        argument: Some((
            "numEntriesToShow",
            Nargs::Optional,
            "The number of entries to show.",
        )),
    },
    CommandSpec {
        name: "ls",
        description: "List metadata nodes.",
        shell_only: false,
        argument: Some(("targets", Nargs::Any, "The metadata node paths to list.")),
    },
    CommandSpec {
        name: "man",
        description: "Show the help text for a specific command.",
        shell_only: true,
        argument: Some(("cmd", Nargs::One, "The command to get help text for.")),
    },
    CommandSpec {
        name: "pwd",
        description: "Print the current working directory.",
        shell_only: true,
        argument: None,
    },
    CommandSpec {
        name: "tree",
        description: "Show the contents of metadata nodes in a tree structure.",
        shell_only: false,
        argument: Some((
            "targets",
            Nargs::AtLeastOne,
            "The metadata nodes to display.",
        )),
    },
];

/// Kafka's `help` text (argparse4j's layout of the command list).
const HELP_TEXT: &str = "Welcome to the Apache Kafka metadata shell.

usage:  {cat,cd,exit,find,help,history,ls,man,pwd,tree} ...

positional arguments:
  {cat,cd,exit,find,help,history,ls,man,pwd,tree}
    cat                  Show the contents of metadata files.
    cd                   Set the current working directory.
    exit                 Exit the metadata shell.
    find                 Search for nodes in the directory hierarchy.
    help                 Display this help message.
    history              Print command history.
    ls                   List metadata nodes.
    man                  Show the help text for a specific command.
    pwd                  Print the current working directory.
    tree                 Show the contents  of  metadata  nodes  in  a tree
                         structure.
";

impl CommandSpec {
    /// The argument part of a usage line: ` targets [targets ...]`.
    fn usage_arguments(&self) -> String {
        match self.argument {
            None => String::new(),
            Some((name, Nargs::Optional, _)) => format!(" [{name}]"),
            Some((name, Nargs::Any, _)) => format!(" [{name} [{name} ...]]"),
            Some((name, Nargs::AtLeastOne, _)) => format!(" {name} [{name} ...]"),
            Some((name, Nargs::One, _)) => format!(" {name}"),
        }
    }

    fn positional_section(&self, text: &mut String) {
        if let Some((name, _, help)) = self.argument {
            let _ = write!(text, "\npositional arguments:\n  {name:<23}{help}\n");
        }
    }

    /// What `man NAME` prints.
    fn manual(&self) -> String {
        let mut text = format!(
            "{}: {}\n\nusage: {}{}\n",
            self.name,
            self.description,
            self.name,
            self.usage_arguments()
        );
        self.positional_section(&mut text);
        text
    }

    /// What `NAME -h` prints.
    fn option_help(&self) -> String {
        let mut text = format!("usage:  {} [-h]{}\n", self.name, self.usage_arguments());
        self.positional_section(&mut text);
        text.push_str(
            "\noptional arguments:\n  -h, --help             show this help message and exit\n",
        );
        text
    }
}

/// A parsed command line.
enum Parsed {
    /// Nothing to do (an empty line, or `-h` already answered).
    NoOp,
    /// A parse error: Kafka prints the message and goes on.
    Error(String),
    Ls(Vec<String>),
    Cat(Vec<String>),
    Tree(Vec<String>),
    Find(Vec<String>),
    Cd(Option<String>),
    Pwd,
    History(i32),
    Help,
    Man(String),
    Exit,
}

/// Whether argparse would take `token` for a negative number rather than an
/// option.
fn looks_negative_number(token: &str) -> bool {
    let Some(rest) = token.strip_prefix('-') else {
        return false;
    };
    let (int, frac) = rest.split_once('.').unwrap_or((rest, ""));
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    !rest.is_empty() && digits(int) && digits(frac) && rest != "."
}

/// Parses one command line as Kafka's argparse4j parser does, with the
/// commands of the mode (`interactive`: all of them) and its messages.
/// The help text of `-h` goes to `out` directly.
fn parse(words: &[String], interactive: bool, out: &mut String) -> Parsed {
    let mut words: Vec<&str> = words.iter().map(String::as_str).collect();
    while words.last() == Some(&"") {
        words.pop();
    }
    let Some((&first, rest)) = words.split_first() else {
        return Parsed::NoOp;
    };
    if first.len() > 1 && first.starts_with('-') && !looks_negative_number(first) {
        return Parsed::Error(format!("unrecognized arguments: '{first}'"));
    }
    let available: Vec<&CommandSpec> = COMMANDS
        .iter()
        .filter(|c| interactive || !c.shell_only)
        .collect();
    let spec = match available.iter().find(|c| c.name == first) {
        Some(spec) => *spec,
        None => {
            let matches: Vec<&str> = available
                .iter()
                .map(|c| c.name)
                .filter(|n| n.starts_with(first))
                .collect();
            return Parsed::Error(match matches.as_slice() {
                [] => {
                    let choices: Vec<String> =
                        available.iter().map(|c| format!("'{}'", c.name)).collect();
                    format!(
                        "invalid choice: '{first}' (choose from {})",
                        choices.join(", ")
                    )
                }
                [one] => format!("invalid choice: '{first}': did you mean '{one}'?"),
                many => format!("ambiguous command: {first} could match {}", many.join(", ")),
            });
        }
    };
    let mut positionals: Vec<String> = Vec::new();
    let mut options_done = false;
    for &token in rest {
        if !options_done && token == "--" {
            options_done = true;
        } else if !options_done
            && token.len() > 1
            && token.starts_with('-')
            && !looks_negative_number(token)
        {
            if token == "-h" || (token.len() > 2 && "--help".starts_with(token)) {
                out.push_str(&spec.option_help());
                return Parsed::NoOp;
            }
            // argparse4j stops at the first option it does not know.
            return Parsed::Error(format!("unrecognized arguments: '{token}'"));
        } else {
            positionals.push(token.to_string());
        }
    }
    let (min, max) = match spec.argument {
        None => (0, 0),
        Some((_, Nargs::Optional, _)) => (0, 1),
        Some((_, Nargs::Any, _)) => (0, usize::MAX),
        Some((_, Nargs::AtLeastOne, _)) => (1, usize::MAX),
        Some((_, Nargs::One, _)) => (1, 1),
    };
    if positionals.len() < min {
        return Parsed::Error("too few arguments".to_string());
    }
    let extra: Vec<String> = positionals.split_off(positionals.len().min(max));
    if !extra.is_empty() {
        return Parsed::Error(format!("unrecognized arguments: '{}'", extra.join(" ")));
    }
    match spec.name {
        "ls" => Parsed::Ls(positionals),
        "cat" => Parsed::Cat(positionals),
        "tree" => Parsed::Tree(positionals),
        "find" => Parsed::Find(positionals),
        "cd" => Parsed::Cd(positionals.pop()),
        "pwd" => Parsed::Pwd,
        "history" => match positionals.pop() {
            None => Parsed::History(i32::MAX),
            Some(n) => match n.parse::<i32>() {
                Ok(n) => Parsed::History(n),
                Err(_) => Parsed::Error(format!(
                    "argument numEntriesToShow: could not convert '{n}' to Integer (For input string: \"{n}\")"
                )),
            },
        },
        "help" => Parsed::Help,
        "man" => Parsed::Man(positionals.pop().unwrap_or_default()),
        _ => Parsed::Exit,
    }
}

/// Splits a line into words as JLine's default parser does: blanks
/// separate words, quotes (`'`, `"`) group, a backslash escapes the next
/// character.
fn split_words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut quote: Option<char> = None;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match (c, quote) {
            ('\\', _) => {
                in_word = true;
                if let Some(next) = chars.next() {
                    word.push(next);
                }
            }
            (c, Some(q)) if c == q => quote = None,
            (c, Some(_)) => word.push(c),
            ('\'' | '"', None) => {
                in_word = true;
                quote = Some(c);
            }
            (c, None) if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            (c, None) => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        words.push(word);
    }
    words
}

/// A node found by a path: its path components and the node.
struct Found<'a> {
    path: Vec<String>,
    node: Node<'a>,
}

impl Found<'_> {
    fn last_component(&self) -> String {
        self.path.last().cloned().unwrap_or_else(|| "/".to_string())
    }

    fn absolute_path(&self) -> String {
        format!("/{}", self.path.join("/"))
    }
}

/// One component of a path glob (Kafka's `GlobComponent`).
#[derive(Debug, Clone, PartialEq, Eq)]
enum GlobToken {
    Char(char),
    AnyChar,
    AnyString,
    Group(Vec<Vec<GlobToken>>),
}

/// The pattern of a glob component, or `None` if it names one node
/// literally (no wildcard, or a malformed group, which Kafka takes
/// literally).
fn glob_pattern(component: &str) -> Option<Vec<GlobToken>> {
    let mut tokens = Vec::new();
    let mut group: Option<Vec<Vec<GlobToken>>> = None;
    let mut literal = true;
    let mut chars = component.chars().peekable();
    while let Some(c) = chars.next() {
        let token = match c {
            '?' => {
                literal = false;
                GlobToken::AnyChar
            }
            '*' => {
                literal = false;
                GlobToken::AnyString
            }
            '\\' => GlobToken::Char(chars.next().unwrap_or('\\')),
            '{' => {
                if group.is_some() {
                    return None;
                }
                literal = false;
                group = Some(vec![Vec::new()]);
                continue;
            }
            ',' if group.is_some() => {
                if let Some(g) = group.as_mut() {
                    g.push(Vec::new());
                }
                continue;
            }
            '}' if group.is_some() => {
                if let Some(g) = group.take() {
                    tokens.push(GlobToken::Group(g));
                }
                continue;
            }
            c => GlobToken::Char(c),
        };
        match group.as_mut().and_then(|g| g.last_mut()) {
            Some(alternative) => alternative.push(token),
            None => tokens.push(token),
        }
    }
    if group.is_some() || literal {
        return None;
    }
    Some(tokens)
}

fn glob_matches(tokens: &[GlobToken], text: &[char]) -> bool {
    match tokens.split_first() {
        None => text.is_empty(),
        Some((GlobToken::Char(c), rest)) => {
            text.first() == Some(c) && glob_matches(rest, &text[1..])
        }
        Some((GlobToken::AnyChar, rest)) => !text.is_empty() && glob_matches(rest, &text[1..]),
        Some((GlobToken::AnyString, rest)) => {
            (0..=text.len()).any(|skip| glob_matches(rest, &text[skip..]))
        }
        Some((GlobToken::Group(alternatives), rest)) => alternatives.iter().any(|alternative| {
            let mut joined = alternative.clone();
            joined.extend_from_slice(rest);
            glob_matches(&joined, text)
        }),
    }
}

/// Path components, `//` and trailing slashes ignored.
fn split_path(path: &str) -> Vec<&str> {
    path.split('/').filter(|c| !c.is_empty()).collect()
}

/// Resolves `.` and `..` (`..` of the root is the root).
fn strip_dots(components: Vec<&str>) -> Vec<&str> {
    let mut out = Vec::new();
    for c in components {
        match c {
            ".." => {
                out.pop();
            }
            "." => {}
            c => out.push(c),
        }
    }
    out
}

/// The paths a command works on: the non-empty ones given, or `.`.
fn effective_paths(paths: &[String]) -> Vec<String> {
    let paths: Vec<String> = paths.iter().filter(|p| !p.is_empty()).cloned().collect();
    if paths.is_empty() {
        vec![".".to_string()]
    } else {
        paths
    }
}

struct Shell<'a> {
    tree: Tree<'a>,
    working_directory: String,
    history: Vec<String>,
    interactive: bool,
    screen_width: Option<usize>,
}

impl<'a> Shell<'a> {
    /// Adds a line to the history as Kafka's JLine keeps it: not a blank
    /// line, not one starting with a space, not the previous line again.
    fn remember(&mut self, line: &str) {
        let line = line.trim_end();
        if line.is_empty() || line.starts_with(' ') {
            return;
        }
        if self.history.last().map(String::as_str) != Some(line) {
            self.history.push(line.to_string());
        }
    }

    /// Every node `glob` matches, in order (children sorted); an error is a
    /// child Kafka's tree lists but cannot produce.
    fn glob(&self, glob: &str) -> Result<Vec<Found<'a>>, String> {
        let full = if glob.starts_with('/') {
            glob.to_string()
        } else {
            format!("{}/{glob}", self.working_directory)
        };
        let components = strip_dots(split_path(&full));
        let mut found = Vec::new();
        self.glob_from(&components, Vec::new(), Node::Root, &mut found)?;
        Ok(found)
    }

    fn glob_from(
        &self,
        components: &[&str],
        path: Vec<String>,
        node: Node<'a>,
        found: &mut Vec<Found<'a>>,
    ) -> Result<(), String> {
        let Some((component, rest)) = components.split_first() else {
            found.push(Found { path, node });
            return Ok(());
        };
        if !self.tree.is_directory(&node) {
            return Ok(());
        }
        match glob_pattern(component) {
            None => {
                if let Some(child) = self.tree.child(&node, component) {
                    let mut path = path;
                    path.push(component.to_string());
                    self.glob_from(rest, path, child, found)?;
                }
            }
            Some(pattern) => {
                let mut names = self.tree.child_names(&node)?;
                sort_names(&mut names);
                for name in names {
                    let chars: Vec<char> = name.chars().collect();
                    if !glob_matches(&pattern, &chars) {
                        continue;
                    }
                    let child = self.tree.child(&node, &name).ok_or_else(|| {
                        format!(
                            "Expected {name} to be a valid child of /{}, but it was not.",
                            path.join("/")
                        )
                    })?;
                    let mut child_path = path.clone();
                    child_path.push(name);
                    self.glob_from(rest, child_path, child, found)?;
                }
            }
        }
        Ok(())
    }

    /// Runs one command line, its output appended to `out`.
    fn run_command(&mut self, words: &[String], out: &mut String) -> Result<Flow, String> {
        match parse(words, self.interactive, out) {
            Parsed::NoOp => {}
            Parsed::Error(message) => {
                out.push_str(&message);
                out.push('\n');
            }
            Parsed::Ls(targets) => self.ls(&targets, out)?,
            Parsed::Cat(targets) => {
                for target in targets {
                    let found = self.glob(&target)?;
                    if found.is_empty() {
                        let _ = writeln!(out, "cat: {target}: No such file or directory.");
                    }
                    for f in found {
                        if self.tree.is_directory(&f.node) {
                            let _ = writeln!(out, "cat: {target}: Is a directory");
                        } else {
                            self.tree.print(&f.node, out)?;
                        }
                    }
                }
            }
            Parsed::Tree(targets) => {
                for target in targets {
                    let found = self.glob(&target)?;
                    if found.is_empty() {
                        let _ = writeln!(out, "tree: {target}: No such file or directory.");
                    }
                    for f in found {
                        self.tree.print(&f.node, out)?;
                    }
                }
            }
            Parsed::Find(paths) => {
                for path in effective_paths(&paths) {
                    let found = self.glob(&path)?;
                    if found.is_empty() {
                        let _ = writeln!(out, "find: {path}: no such file or directory.");
                    }
                    for f in found {
                        self.find(&path, &f.node, out)?;
                    }
                }
            }
            Parsed::Cd(target) => {
                let target = target.unwrap_or_else(|| "/".to_string());
                let found = self.glob(&target)?;
                if found.is_empty() {
                    let _ = writeln!(out, "cd: {target}: no such directory.");
                }
                for f in found {
                    if self.tree.is_directory(&f.node) {
                        self.working_directory = f.absolute_path();
                    } else {
                        let _ = writeln!(out, "cd: {target}: not a directory.");
                    }
                }
            }
            Parsed::Pwd => {
                let _ = writeln!(out, "{}", self.working_directory);
            }
            Parsed::History(count) => {
                let shown = usize::try_from(count).unwrap_or(0).min(self.history.len());
                let first = self.history.len() - shown;
                for (i, line) in self.history.iter().enumerate().skip(first) {
                    let _ = writeln!(out, "{i:5}  {line}");
                }
            }
            Parsed::Help => out.push_str(HELP_TEXT),
            Parsed::Man(command) => match COMMANDS.iter().find(|c| c.name == command) {
                Some(spec) => out.push_str(&spec.manual()),
                None => {
                    let _ = writeln!(
                        out,
                        "man: unknown command {command}. Type help to get a list of commands."
                    );
                }
            },
            Parsed::Exit => return Ok(Flow::Exit),
        }
        Ok(Flow::Continue)
    }

    fn find(&self, path: &str, node: &Node<'a>, out: &mut String) -> Result<(), String> {
        let _ = writeln!(out, "{path}");
        if !self.tree.is_directory(node) {
            return Ok(());
        }
        let mut names = self.tree.child_names(node)?;
        sort_names(&mut names);
        for name in names {
            let next = if path == "/" {
                format!("/{name}")
            } else {
                format!("{path}/{name}")
            };
            let child = self.tree.child(node, &name).ok_or_else(|| {
                format!("Expected {name} to be a valid child of {path}, but it was not.")
            })?;
            self.find(&next, &child, out)?;
        }
        Ok(())
    }

    fn ls(&self, targets: &[String], out: &mut String) -> Result<(), String> {
        let mut files: Vec<String> = Vec::new();
        let mut directories: Vec<(String, Vec<String>)> = Vec::new();
        for target in effective_paths(targets) {
            let found = self.glob(&target)?;
            if found.is_empty() {
                let _ = writeln!(out, "ls: {target}: no such file or directory.");
            }
            for f in found {
                if self.tree.is_directory(&f.node) {
                    let mut children = self.tree.child_names(&f.node)?;
                    sort_names(&mut children);
                    directories.push((f.last_component(), children));
                } else {
                    files.push(f.last_component());
                }
            }
        }
        let width = if self.interactive {
            self.screen_width
        } else {
            None
        };
        print_targets(out, width, &files, &directories);
        Ok(())
    }
}

/// Kafka's `ls` output: the files, then each directory's children, with a
/// `name:` line before each directory when there is more than one thing
/// listed.
fn print_targets(
    out: &mut String,
    width: Option<usize>,
    files: &[String],
    directories: &[(String, Vec<String>)],
) {
    print_entries(out, "", width, files);
    let need_intro = !files.is_empty() || directories.len() > 1;
    let mut first_intro = files.is_empty();
    for (name, children) in directories {
        let mut intro = String::new();
        if need_intro {
            if !first_intro {
                intro.push('\n');
            }
            intro.push_str(name);
            intro.push(':');
            first_intro = false;
        }
        print_entries(out, &intro, width, children);
    }
}

/// Java's `String.length`: UTF-16 code units.
fn java_len(s: &str) -> usize {
    s.encode_utf16().count()
}

/// Kafka's `ls` layout: entries down then across as many columns as fit
/// `width` (one column without a width).
fn print_entries(out: &mut String, intro: &str, width: Option<usize>, entries: &[String]) {
    if entries.is_empty() {
        return;
    }
    if !intro.is_empty() {
        out.push_str(intro);
        out.push('\n');
    }
    let (widths, per_column) = column_layout(width, entries);
    let columns = widths.len();
    let lines = entries.len().div_ceil(columns);
    for line in 0..lines {
        let mut text = String::new();
        for (column, column_width) in widths.iter().enumerate() {
            let Some(entry) = entries.get(line + column * per_column) else {
                continue;
            };
            text.push_str(entry);
            if column + 1 < columns {
                let pad = column_width.saturating_sub(java_len(entry));
                text.extend(std::iter::repeat_n(' ', pad));
            }
        }
        out.push_str(&text);
        out.push('\n');
    }
}

/// The column widths and entries per column Kafka's `ls` picks: the most
/// columns (up to a quarter of the width) whose total width fits.
fn column_layout(width: Option<usize>, entries: &[String]) -> (Vec<usize>, usize) {
    let single = (vec![0], entries.len());
    let Some(width) = width else {
        return single;
    };
    let max_columns = width / 4;
    if max_columns <= 1 {
        return single;
    }
    let layouts: Vec<(Vec<usize>, usize)> = (1..=max_columns)
        .map(|columns| {
            let per_column = entries.len().div_ceil(columns);
            let mut widths = vec![0; columns];
            for (i, entry) in entries.iter().enumerate() {
                let column = i / per_column;
                widths[column] = widths[column].max(java_len(entry) + 2);
            }
            (widths, per_column)
        })
        .collect();
    for layout in layouts.iter().skip(1).rev() {
        let (widths, _) = layout;
        if widths.last().is_some_and(|w| *w != 0) && widths.iter().sum::<usize>() <= width {
            return layout.clone();
        }
    }
    layouts.into_iter().next().unwrap_or(single)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_split_as_jline_does() {
        assert_eq!(
            split_words("ls  /a 'b c' \"d\"e f\\ g"),
            ["ls", "/a", "b c", "de", "f g"]
        );
        assert_eq!(split_words("   "), Vec::<String>::new());
        assert_eq!(split_words("cat ''"), ["cat", ""]);
    }

    #[test]
    fn globs_follow_kafkas_rules() {
        let matches = |glob: &str, name: &str| {
            let pattern = glob_pattern(glob).expect("a pattern");
            glob_matches(&pattern, &name.chars().collect::<Vec<_>>())
        };
        assert!(glob_pattern("byName").is_none());
        assert!(glob_pattern("{a").is_none());
        assert!(glob_pattern("a\\*").is_none());
        assert!(matches("*", ""));
        assert!(matches("by?ame", "byName"));
        assert!(matches("{topics,acls}", "acls"));
        assert!(!matches("{topics,acls}", "topicsacls"));
        assert!(matches("c*s", "clientQuotas"));
        assert!(matches("a{b*,c}d", "abxxd"));
        assert!(matches("\\{*", "{x"));
    }

    #[test]
    fn ls_columns_fit_the_width() {
        let entries: Vec<String> = ["a", "bb", "ccc", "dddd", "e"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let mut out = String::new();
        print_entries(&mut out, "", Some(20), &entries);
        assert_eq!(out, "a   ccc   e\nbb  dddd  \n");
        let mut out = String::new();
        print_entries(&mut out, "x:", None, &entries);
        assert_eq!(out, "x:\na\nbb\nccc\ndddd\ne\n");
    }

    fn strings(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| s.to_string()).collect()
    }

    /// The cases of Kafka's `LsCommandHandlerTest`.
    #[test]
    fn ls_layout_matches_kafkas_cases() {
        assert_eq!(
            column_layout(None, &strings(&["abc", "def", "ghi"])),
            (vec![0], 3)
        );
        assert_eq!(
            column_layout(Some(0), &strings(&["abc", "def"])),
            (vec![0], 2)
        );
        assert_eq!(
            column_layout(Some(80), &strings(&["a", "abcdef", "beta"])),
            (vec![3, 8, 6], 1)
        );
        let greek = strings(&["alphabet", "beta", "gamma", "theta", "zeta"]);
        assert_eq!(column_layout(Some(18), &greek), (vec![10, 7], 3));
        let mut out = String::new();
        print_entries(&mut out, "", Some(18), &greek);
        // Kafka's test trims the output; the last line keeps its padding.
        assert_eq!(out, "alphabet  theta\nbeta      zeta\ngamma     \n");

        let mut out = String::new();
        print_targets(
            &mut out,
            Some(18),
            &strings(&["foo", "foobarbaz", "quux"]),
            &[
                ("/some/dir".to_string(), strings(&["supercalifragalistic"])),
                (
                    "/some/other/dir".to_string(),
                    strings(&["capability", "delegation", "elephant", "fungible", "green"]),
                ),
            ],
        );
        assert_eq!(
            out,
            "foo        quux\nfoobarbaz  \n\n/some/dir:\nsupercalifragalistic\n\n/some/other/dir:\n\
             capability\ndelegation\nelephant\nfungible\ngreen\n"
        );
    }

    /// The cases of Kafka's `GlobComponentTest` and `CommandUtilsTest`.
    #[test]
    fn globs_and_paths_match_kafkas_cases() {
        for literal in ["abc", "", "foobar_123", "$blah+"] {
            assert!(glob_pattern(literal).is_none(), "{literal}");
        }
        let matches = |glob: &str, name: &str| {
            let pattern = glob_pattern(glob).expect("a pattern");
            glob_matches(&pattern, &name.chars().collect::<Vec<_>>())
        };
        assert!(matches("*", "") && matches("*", "anything"));
        assert!(!matches("b?b", "") && matches("b?b", "bob") && matches("b?b", "bib"));
        assert!(!matches("b?b", "bic"));
        for (name, expected) in [
            ("foobar", true),
            ("foobaz", true),
            ("foobah", false),
            ("foo", false),
            ("baz", false),
        ] {
            assert_eq!(matches("foo{bar,baz}", name), expected, "{name}");
        }
        assert_eq!(split_path("/alpha/beta"), ["alpha", "beta"]);
        assert_eq!(split_path("//alpha/beta/"), ["alpha", "beta"]);
        assert_eq!(strip_dots(vec!["..", "keep", "keep2"]), ["keep", "keep2"]);
        assert_eq!(strip_dots(vec![".", ".keep", "keep2"]), [".keep", "keep2"]);
    }

    /// The cases of Kafka's `CommandTest`.
    #[test]
    fn commands_parse_as_kafkas() {
        let parse_line = |line: &str| {
            let mut help = String::new();
            let parsed = parse(&split_words(line), true, &mut help);
            (parsed, help)
        };
        assert!(matches!(parse_line("cat foo").0, Parsed::Cat(t) if t == ["foo"]));
        assert!(matches!(parse_line("cd").0, Parsed::Cd(None)));
        assert!(matches!(parse_line("cd foo").0, Parsed::Cd(Some(t)) if t == "foo"));
        assert!(matches!(parse_line("exit").0, Parsed::Exit));
        assert!(matches!(parse_line("help").0, Parsed::Help));
        assert!(matches!(parse_line("history 3").0, Parsed::History(3)));
        assert!(matches!(parse_line("history").0, Parsed::History(i32::MAX)));
        assert!(matches!(parse_line("ls").0, Parsed::Ls(t) if t.is_empty()));
        assert!(matches!(parse_line("ls abc 123").0, Parsed::Ls(t) if t == ["abc", "123"]));
        assert!(matches!(parse_line("pwd").0, Parsed::Pwd));
        assert!(matches!(
            parse_line("blah").0,
            Parsed::Error(m) if m == "invalid choice: 'blah' (choose from 'cat', 'cd', 'exit', 'find', 'help', 'history', 'ls', 'man', 'pwd', 'tree')"
        ));
        assert!(matches!(
            parse(&["".to_string()], true, &mut String::new()),
            Parsed::NoOp
        ));
        assert!(matches!(parse(&[], true, &mut String::new()), Parsed::NoOp));
        let (parsed, help) = parse_line("pwd -h");
        assert!(matches!(parsed, Parsed::NoOp));
        assert_eq!(
            help,
            "usage:  pwd [-h]\n\noptional arguments:\n  -h, --help             show this help message and exit\n"
        );
    }

    #[test]
    fn option_like_words() {
        assert!(looks_negative_number("-1"));
        assert!(looks_negative_number("-1.5"));
        assert!(!looks_negative_number("-l"));
        assert!(!looks_negative_number("-"));
    }
}
