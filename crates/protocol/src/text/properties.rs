//! Java `.properties` files, read as `java.util.Properties.load` reads them
//! and written as `Properties.store` writes them.
//!
//! Reading follows the Java grammar: `#` / `!` comment lines, blank lines,
//! `key=value`, `key: value` and `key value` separators, backslash line
//! continuations (leading whitespace of the continuation is dropped), and the
//! escapes `\t \n \r \f \uXXXX` (any other escaped character stands for
//! itself). A later duplicate key replaces an earlier one. Unlike Java, which
//! reads files as ISO-8859-1, files are decoded as UTF-8 (falling back to
//! ISO-8859-1 for bytes that are not valid UTF-8).

use std::fmt;
use std::path::{Path, PathBuf};

/// An error in a properties file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {message}")]
pub struct PropertiesError {
    /// 1-based line where the offending logical line starts.
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

/// Why a properties file could not be loaded.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LoadError {
    /// The file could not be read.
    #[error("cannot read {}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// The file is not valid properties syntax.
    #[error("{}: {source}", path.display())]
    Syntax {
        /// The file.
        path: PathBuf,
        /// The syntax error.
        source: PropertiesError,
    },
}

/// The entries of a properties file, in file order (a later duplicate
/// replaces the earlier value but keeps its first position).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Properties {
    entries: Vec<(String, String, usize)>,
}

impl Properties {
    /// No entries.
    pub fn new() -> Self {
        Self::default()
    }

    /// Reads and parses the file at `path`.
    pub fn load(path: &Path) -> Result<Self, LoadError> {
        let bytes = std::fs::read(path).map_err(|source| LoadError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        Self::parse_bytes(&bytes).map_err(|source| LoadError::Syntax {
            path: path.to_path_buf(),
            source,
        })
    }

    /// Decodes file bytes (UTF-8, else ISO-8859-1) and parses them.
    pub fn parse_bytes(bytes: &[u8]) -> Result<Self, PropertiesError> {
        match std::str::from_utf8(bytes) {
            Ok(s) => Self::parse(s),
            Err(_) => {
                let s: String = bytes.iter().map(|&b| char::from(b)).collect();
                Self::parse(&s)
            }
        }
    }

    /// Parses properties text.
    pub fn parse(text: &str) -> Result<Self, PropertiesError> {
        let mut props = Properties::new();
        let lines = split_lines(text);
        let mut i = 0;
        while i < lines.len() {
            let start_line = i + 1;
            let first = skip_ws(lines[i]);
            i += 1;
            if first.is_empty() || first.starts_with('#') || first.starts_with('!') {
                continue;
            }
            // Join continuation lines: a line ending in an odd number of backslashes.
            let mut logical = String::from(first);
            while ends_with_odd_backslashes(&logical) {
                logical.pop();
                if i >= lines.len() {
                    break;
                }
                logical.push_str(skip_ws(lines[i]));
                i += 1;
            }
            let (key, value) = split_key_value(&logical);
            let key = unescape(key).map_err(|message| PropertiesError {
                line: start_line,
                message,
            })?;
            let value = unescape(value).map_err(|message| PropertiesError {
                line: start_line,
                message,
            })?;
            props.set_at(key, value, start_line);
        }
        Ok(props)
    }

    /// Sets `key` to `value` (replacing an existing value in place).
    pub fn set(&mut self, key: impl Into<String>, value: impl Into<String>) {
        self.set_at(key.into(), value.into(), 0);
    }

    fn set_at(&mut self, key: String, value: String, line: usize) {
        if let Some(e) = self.entries.iter_mut().find(|e| e.0 == key) {
            e.1 = value;
            e.2 = line;
        } else {
            self.entries.push((key, value, line));
        }
    }

    /// Removes `key`, returning its value.
    pub fn remove(&mut self, key: &str) -> Option<String> {
        let i = self.entries.iter().position(|e| e.0 == key)?;
        Some(self.entries.remove(i).1)
    }

    /// The value of `key`.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.entries
            .iter()
            .find(|e| e.0 == key)
            .map(|e| e.1.as_str())
    }

    /// The line `key` was (last) read from; 0 for values set in code.
    pub fn line_of(&self, key: &str) -> Option<usize> {
        self.entries.iter().find(|e| e.0 == key).map(|e| e.2)
    }

    /// Whether `key` is present.
    pub fn contains_key(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    /// Entries in file order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.entries.iter().map(|e| (e.0.as_str(), e.1.as_str()))
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether there are no entries.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The file text `Properties.store(writer, comment)` writes with entries
    /// in the given order: `#<comment>`, `#<date>`, then `key=value` lines,
    /// escaped as Java escapes them (no `\uXXXX`: a `Writer` is used).
    pub fn store_text(entries: &[(&str, &str)], comment: &str, date: &str) -> String {
        let mut out = String::new();
        out.push('#');
        out.push_str(comment);
        out.push('\n');
        out.push('#');
        out.push_str(date);
        out.push('\n');
        for (k, v) in entries {
            out.push_str(&escape(k, true));
            out.push('=');
            out.push_str(&escape(v, false));
            out.push('\n');
        }
        out
    }
}

impl fmt::Display for Properties {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (k, v) in self.iter() {
            writeln!(f, "{}={}", escape(k, true), escape(v, false))?;
        }
        Ok(())
    }
}

fn is_ws(c: char) -> bool {
    c == ' ' || c == '\t' || c == '\u{c}'
}

fn skip_ws(s: &str) -> &str {
    s.trim_start_matches(is_ws)
}

/// Splits on `\n`, `\r` and `\r\n`.
fn split_lines(text: &str) -> Vec<&str> {
    let mut lines = Vec::new();
    let bytes = text.as_bytes();
    let mut start = 0;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\n' => {
                lines.push(&text[start..i]);
                start = i + 1;
            }
            b'\r' => {
                lines.push(&text[start..i]);
                if bytes.get(i + 1) == Some(&b'\n') {
                    i += 1;
                }
                start = i + 1;
            }
            _ => {}
        }
        i += 1;
    }
    if start < text.len() {
        lines.push(&text[start..]);
    }
    lines
}

fn ends_with_odd_backslashes(s: &str) -> bool {
    s.chars().rev().take_while(|&c| c == '\\').count() % 2 == 1
}

/// Splits a logical line into raw (still escaped) key and value.
fn split_key_value(line: &str) -> (&str, &str) {
    let mut escaped = false;
    let mut key_end = line.len();
    let mut sep: Option<char> = None;
    for (i, c) in line.char_indices() {
        if escaped {
            escaped = false;
            continue;
        }
        if c == '\\' {
            escaped = true;
        } else if c == '=' || c == ':' || is_ws(c) {
            key_end = i;
            sep = Some(c);
            break;
        }
    }
    let key = &line[..key_end];
    let mut rest = &line[key_end..];
    if let Some(c) = sep {
        rest = &rest[c.len_utf8()..];
        if is_ws(c) {
            rest = skip_ws(rest);
            if let Some(r) = rest.strip_prefix(['=', ':']) {
                rest = r;
            }
        }
        rest = skip_ws(rest);
    }
    (key, rest)
}

fn unescape(s: &str) -> Result<String, String> {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            None => {}
            Some('t') => out.push('\t'),
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            Some('f') => out.push('\u{c}'),
            Some('u') => {
                let hex: String = chars.by_ref().take(4).collect();
                let code = (hex.len() == 4)
                    .then(|| u32::from_str_radix(&hex, 16).ok())
                    .flatten()
                    .ok_or_else(|| "Malformed \\uxxxx encoding.".to_string())?;
                // Lone surrogates cannot be represented; use the replacement character.
                out.push(char::from_u32(code).unwrap_or('\u{fffd}'));
            }
            Some(other) => out.push(other),
        }
    }
    Ok(out)
}

/// `Properties.saveConvert` without Unicode escaping.
fn escape(s: &str, is_key: bool) -> String {
    let mut out = String::with_capacity(s.len());
    for (i, c) in s.chars().enumerate() {
        match c {
            '\\' => out.push_str("\\\\"),
            ' ' if i == 0 || is_key => out.push_str("\\ "),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\u{c}' => out.push_str("\\f"),
            '=' | ':' | '#' | '!' => {
                out.push('\\');
                out.push(c);
            }
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn java_grammar() {
        let text = "# comment\n! also a comment \\\n  key1 = value one\nkey2:value2\nkey3 value3\n\
                    key4\t:  spaced\nmulti = a,\\\n      b,\\\r\n  c\nesc\\ key=x\\=y\\u0041\\q\n\
                    empty=\nbare\n   \nkey1=override\n";
        let p = Properties::parse(text).expect("parses");
        assert_eq!(p.get("key1"), Some("override"));
        assert_eq!(p.get("key2"), Some("value2"));
        assert_eq!(p.get("key3"), Some("value3"));
        assert_eq!(p.get("key4"), Some("spaced"));
        assert_eq!(p.get("multi"), Some("a,b,c"));
        assert_eq!(p.get("esc key"), Some("x=yAq"));
        assert_eq!(p.get("empty"), Some(""));
        assert_eq!(p.get("bare"), Some(""));
        assert_eq!(p.line_of("key2"), Some(4));
        // the comment's trailing backslash does not swallow the next line
        assert!(p.contains_key("key1"));
        let keys: Vec<&str> = p.iter().map(|(k, _)| k).collect();
        assert_eq!(
            keys,
            ["key1", "key2", "key3", "key4", "multi", "esc key", "empty", "bare"]
        );
    }

    #[test]
    fn malformed_unicode_escape_is_an_error() {
        let err = Properties::parse("a\nk=\\u12G4\n").expect_err("bad escape");
        assert_eq!(err.line, 2);
        assert!(err.message.contains("Malformed"));
    }

    #[test]
    fn continuation_at_end_of_file() {
        let p = Properties::parse("k=v\\").expect("parses");
        assert_eq!(p.get("k"), Some("v"));
        let p = Properties::parse("k=v\\\\").expect("parses");
        assert_eq!(p.get("k"), Some("v\\"));
    }

    #[test]
    fn latin1_fallback() {
        let p = Properties::parse_bytes(b"k=caf\xe9\n").expect("parses");
        assert_eq!(p.get("k"), Some("caf\u{e9}"));
    }

    #[test]
    fn store_escapes_like_java() {
        let text = Properties::store_text(
            &[("a key", " lead:x=y#!"), ("b", "c\\d\n")],
            "",
            "Thu Jan 01 00:00:00 UTC 1970",
        );
        assert_eq!(
            text,
            "#\n#Thu Jan 01 00:00:00 UTC 1970\na\\ key=\\ lead\\:x\\=y\\#\\!\nb=c\\\\d\\n\n"
        );
        let back = Properties::parse(&text).expect("parses");
        assert_eq!(back.get("a key"), Some(" lead:x=y#!"));
        assert_eq!(back.get("b"), Some("c\\d\n"));
    }
}
