//! A reader for Java `.properties` files (`--command-config`, `server.properties`,
//! `meta.properties`).
//!
//! Supported: `#`/`!` comments, `key=value`, `key:value` and `key value`
//! separators, leading whitespace, backslash line continuations and the
//! escapes `\t \n \r \f \\ \= \: \# \! \<space>` and `\uXXXX`. Later keys win.

use std::collections::BTreeMap;
use std::path::Path;

/// Parsed properties, sorted by key.
pub type Properties = BTreeMap<String, String>;

/// Parses the text of a properties file.
pub fn parse(text: &str) -> Properties {
    let mut out = Properties::new();
    let mut logical = String::new();
    let mut continuing = false;
    for raw in text.lines() {
        let line = if continuing {
            raw.trim_start()
        } else {
            let trimmed = raw.trim_start();
            if trimmed.is_empty() || trimmed.starts_with('#') || trimmed.starts_with('!') {
                continue;
            }
            trimmed
        };
        // An odd number of trailing backslashes continues the line.
        let trailing = line.chars().rev().take_while(|&c| c == '\\').count();
        if trailing % 2 == 1 {
            logical.push_str(&line[..line.len() - 1]);
            continuing = true;
            continue;
        }
        logical.push_str(line);
        continuing = false;
        let (k, v) = split_entry(&logical);
        out.insert(k, v);
        logical.clear();
    }
    if continuing && !logical.is_empty() {
        let (k, v) = split_entry(&logical);
        out.insert(k, v);
    }
    out
}

/// Reads and parses a properties file.
pub fn load(path: &Path) -> std::io::Result<Properties> {
    Ok(parse(&std::fs::read_to_string(path)?))
}

fn split_entry(line: &str) -> (String, String) {
    let chars: Vec<char> = line.chars().collect();
    let mut i = 0;
    let mut key_end = chars.len();
    while i < chars.len() {
        match chars[i] {
            '\\' => i += 2,
            '=' | ':' | ' ' | '\t' | '\u{c}' => {
                key_end = i;
                break;
            }
            _ => i += 1,
        }
    }
    let key: String = chars[..key_end.min(chars.len())].iter().collect();
    let mut j = key_end;
    // Skip whitespace, then at most one '=' or ':', then whitespace.
    while j < chars.len() && matches!(chars[j], ' ' | '\t' | '\u{c}') {
        j += 1;
    }
    if j < chars.len() && matches!(chars[j], '=' | ':') {
        j += 1;
    }
    while j < chars.len() && matches!(chars[j], ' ' | '\t' | '\u{c}') {
        j += 1;
    }
    let value: String = chars[j.min(chars.len())..].iter().collect();
    (unescape(&key), unescape(&value))
}

fn unescape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('t') => out.push('\t'),
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            Some('f') => out.push('\u{c}'),
            Some('u') => {
                let hex: String = chars.by_ref().take(4).collect();
                match u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32) {
                    Some(ch) => out.push(ch),
                    None => {
                        out.push_str("\\u");
                        out.push_str(&hex);
                    }
                }
            }
            Some(other) => out.push(other),
            None => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_java_format() {
        let text = "# comment\n! other comment\n\n  node.id = 4\nprocess.roles:controller\nlisteners CONTROLLER://:9093\\\n   ,OTHER://h:1\nkey\\=with\\:seps=v\\u0041\\\\\nempty=\nlast=1\nlast=2\n";
        let p = parse(text);
        assert_eq!(p["node.id"], "4");
        assert_eq!(p["process.roles"], "controller");
        assert_eq!(p["listeners"], "CONTROLLER://:9093,OTHER://h:1");
        assert_eq!(p["key=with:seps"], "vA\\");
        assert_eq!(p["empty"], "");
        assert_eq!(p["last"], "2");
        assert_eq!(p.len(), 6);
    }
}
