//! Java's text functions as Kafka's config code applies them, so that
//! values split, trim and parse here exactly as they do in Kafka.

/// `String.trim()`: strips every char up to U+0020 at both ends.
pub(super) fn java_trim(s: &str) -> &str {
    s.trim_matches(|c: char| c <= ' ')
}

/// `\s` of `java.util.regex`.
fn is_regex_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\u{b}' | '\u{c}' | '\r')
}

/// `String.split(String.valueOf(sep))`: the pieces, trailing empty ones
/// dropped; the input itself when it holds no separator.
pub(super) fn java_split(s: &str, sep: char) -> Vec<&str> {
    if !s.contains(sep) {
        return vec![s];
    }
    let mut parts: Vec<&str> = s.split(sep).collect();
    while parts.last() == Some(&"") {
        parts.pop();
    }
    parts
}

/// `Pattern.compile("\\s*,\\s*").split(s, -1)` of an already trimmed
/// string: every piece, empty ones included.
pub(super) fn split_list(trimmed: &str) -> Vec<&str> {
    trimmed
        .split(',')
        .map(|p| p.trim_matches(is_regex_space))
        .collect()
}

/// `Integer.parseInt` (ASCII digits).
pub(super) fn java_parse_int(s: &str) -> Option<i32> {
    java_parse_long(s).and_then(|v| i32::try_from(v).ok())
}

/// `Long.parseLong` (ASCII digits).
pub(super) fn java_parse_long(s: &str) -> Option<i64> {
    let (negative, digits) = match s.as_bytes().first()? {
        b'-' => (true, &s[1..]),
        b'+' => (false, &s[1..]),
        _ => (false, s),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let mut value: i64 = 0;
    for b in digits.bytes() {
        let d = i64::from(b - b'0');
        value = value.checked_mul(10)?;
        value = if negative {
            value.checked_sub(d)?
        } else {
            value.checked_add(d)?
        };
    }
    Some(value)
}
