//! The vectors Kafka 4.4 wrote (`tests/data/sasl/kafka_vectors.txt`, made by
//! `run-kafka-vectors.sh`) and the escapes of the case and vector files,
//! shared by the tests that compare against them.

// Each test file uses the part it needs.
#![allow(dead_code, clippy::unwrap_used)]

const VECTORS: &str = include_str!("../data/sasl/kafka_vectors.txt");

/// The value Kafka wrote for `key` (the line `<key> = <value>`).
pub fn vector(key: &str) -> &'static str {
    VECTORS
        .lines()
        .find_map(|l| l.strip_prefix(key).and_then(|r| r.strip_prefix(" = ")))
        .unwrap_or_else(|| panic!("no vector {key}"))
}

/// The case files' escapes: `\\`, `\n`, `\r`, `\t`, `\uXXXX`; other
/// backslashes stay.
pub fn unescape(s: &str) -> String {
    let chars: Vec<char> = s.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c != '\\' || i + 1 == chars.len() {
            out.push(c);
            i += 1;
            continue;
        }
        let n = chars[i + 1];
        i += 2;
        match n {
            '\\' => out.push('\\'),
            'n' => out.push('\n'),
            'r' => out.push('\r'),
            't' => out.push('\t'),
            'u' => {
                let hex: String = chars[i..i + 4].iter().collect();
                out.push(char::from_u32(u32::from_str_radix(&hex, 16).unwrap()).unwrap());
                i += 4;
            }
            other => {
                out.push('\\');
                out.push(other);
            }
        }
    }
    out
}

/// The vector file's escapes (the Java program's `escape`).
pub fn escape(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
        if c == '\\' {
            out.push_str("\\\\");
        } else if (c as u32) < 0x20 || (c as u32) >= 0x7f {
            out.push_str(&format!("\\u{:04x}", c as u32));
        } else {
            out.push(c);
        }
    }
    out
}
