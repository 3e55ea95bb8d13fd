//! The Java text conversions Kafka's config parsing goes through, so that
//! kraft-rs accepts, refuses and prints values exactly as Kafka does:
//! `String.trim`, `Integer.parseInt` / `Long.parseLong`, `Double.parseDouble`,
//! `equalsIgnoreCase`, the `\s*,\s*` list split and `Double.toString`.

/// `String.trim()`: strips every char up to U+0020 from both ends.
pub(super) fn trim(s: &str) -> &str {
    s.trim_matches(|c: char| c <= ' ')
}

/// `Integer.parseInt` (ASCII digits, optional sign).
pub(super) fn parse_int(s: &str) -> Option<i32> {
    s.parse().ok()
}

/// `Long.parseLong` (ASCII digits, optional sign).
pub(super) fn parse_long(s: &str) -> Option<i64> {
    s.parse().ok()
}

/// Whether `s` equals the ASCII-lowercase `word` ignoring case as Java's
/// `equalsIgnoreCase` does (which also folds U+017F, the long s, to `s`).
pub(super) fn eq_ignore_case(s: &str, word: &str) -> bool {
    let mut a = s.chars();
    let mut b = word.chars();
    loop {
        match (a.next(), b.next()) {
            (None, None) => return true,
            (Some(x), Some(y)) => {
                let folded = match x {
                    '\u{17f}' => 's',
                    c => c.to_ascii_lowercase(),
                };
                if folded != y {
                    return false;
                }
            }
            _ => return false,
        }
    }
}

/// What `ConfigDef` accepts for a BOOLEAN (after trimming).
pub(super) fn parse_bool(s: &str) -> Option<bool> {
    if eq_ignore_case(s, "true") {
        Some(true)
    } else if eq_ignore_case(s, "false") {
        Some(false)
    } else {
        None
    }
}

/// `Boolean.parseBoolean`: `"true"` ignoring case, no trimming.
pub(super) fn parse_boolean_lenient(s: &str) -> bool {
    eq_ignore_case(s, "true")
}

/// The whitespace of Java's regex `\s`.
fn is_regex_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\u{b}' | '\u{c}' | '\r')
}

/// A LIST value as `ConfigDef` parses it: the empty list for a blank value,
/// otherwise a split on commas with the whitespace around them dropped
/// (`split("\\s*,\\s*", -1)`, keeping empty elements).
pub(super) fn parse_list(s: &str) -> Vec<String> {
    let trimmed = trim(s);
    if trimmed.is_empty() {
        return Vec::new();
    }
    trimmed
        .split(',')
        .map(|p| p.trim_matches(is_regex_space).to_owned())
        .collect()
}

/// `Double.parseDouble` on an already trimmed value: decimal or hexadecimal
/// floating point literals with an optional `f`/`F`/`d`/`D` suffix,
/// `NaN` and `Infinity`, each optionally signed.
pub(super) fn parse_double(s: &str) -> Option<f64> {
    let (negative, body) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    let magnitude = match body {
        "NaN" => f64::NAN,
        "Infinity" => f64::INFINITY,
        _ => {
            let unsuffixed = body.strip_suffix(['f', 'F', 'd', 'D']).unwrap_or(body);
            if let Some(hex) = unsuffixed
                .strip_prefix("0x")
                .or_else(|| unsuffixed.strip_prefix("0X"))
            {
                parse_hex_double(hex)?
            } else if is_decimal_literal(unsuffixed) {
                unsuffixed.parse::<f64>().ok()?
            } else {
                return None;
            }
        }
    };
    Some(if negative { -magnitude } else { magnitude })
}

/// `digits [. digits] [e|E [sign] digits]` with at least one mantissa digit.
fn is_decimal_literal(s: &str) -> bool {
    let bytes = s.as_bytes();
    let mut i = 0;
    let mut mantissa_digits = 0;
    while i < bytes.len() && bytes[i].is_ascii_digit() {
        i += 1;
        mantissa_digits += 1;
    }
    if i < bytes.len() && bytes[i] == b'.' {
        i += 1;
        while i < bytes.len() && bytes[i].is_ascii_digit() {
            i += 1;
            mantissa_digits += 1;
        }
    }
    if mantissa_digits == 0 {
        return false;
    }
    if i < bytes.len() && (bytes[i] == b'e' || bytes[i] == b'E') {
        i += 1;
        if i < bytes.len() && (bytes[i] == b'+' || bytes[i] == b'-') {
            i += 1;
        }
        let start = i;
        while i < bytes.len() && bytes[i].is_ascii_digit() {
            i += 1;
        }
        if i == start {
            return false;
        }
    }
    i == bytes.len()
}

/// The part of a hexadecimal literal after `0x`: `hex [. hex] p|P [sign] digits`.
fn parse_hex_double(s: &str) -> Option<f64> {
    let (mantissa, exponent) = s.split_once(['p', 'P'])?;
    let (int_part, frac_part) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    if int_part.len() + frac_part.len() == 0
        || !int_part
            .chars()
            .chain(frac_part.chars())
            .all(|c| c.is_ascii_hexdigit())
    {
        return None;
    }
    let exp_digits = exponent.strip_prefix(['+', '-']).unwrap_or(exponent);
    if exp_digits.is_empty() || !exp_digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let mut exp: i64 = exponent.parse().unwrap_or(if exponent.starts_with('-') {
        i64::MIN / 2
    } else {
        i64::MAX / 2
    });
    // Keep the first 30 significant hex digits (120 bits); later ones only
    // matter for a sticky bit, which a u128 to f64 cast cannot honour anyway.
    let mut value: u128 = 0;
    let mut kept = 0;
    for (i, c) in int_part.chars().chain(frac_part.chars()).enumerate() {
        let d = c.to_digit(16).unwrap_or(0) as u128;
        let fractional = i >= int_part.len();
        if kept < 30 {
            if value != 0 || d != 0 {
                kept += 1;
            }
            value = value * 16 + d;
            if fractional {
                exp = exp.saturating_sub(4);
            }
        } else if !fractional {
            exp = exp.saturating_add(4);
        }
    }
    let exp = exp.clamp(-2000, 2000) as i32;
    let mut result = value as f64;
    // Scale in steps that stay within f64's exponent range.
    let mut e = exp;
    while e > 0 {
        let step = e.min(1000);
        result *= 2f64.powi(step);
        e -= step;
    }
    while e < 0 {
        let step = (-e).min(1000);
        result /= 2f64.powi(step);
        e += step;
    }
    Some(result)
}

/// `Double.toString`: the shortest digits that round-trip, in plain
/// notation for magnitudes in [10^-3, 10^7) and as `d.dddE±n` otherwise.
pub(super) fn double_to_string(v: f64) -> String {
    if v.is_nan() {
        return "NaN".to_owned();
    }
    if v.is_infinite() {
        return if v > 0.0 { "Infinity" } else { "-Infinity" }.to_owned();
    }
    if v == 0.0 {
        return if v.is_sign_negative() { "-0.0" } else { "0.0" }.to_owned();
    }
    let sign = if v < 0.0 { "-" } else { "" };
    // `{:e}` gives the shortest round-trip digits: d[.ddd]e[-]n.
    let sci = format!("{:e}", v.abs());
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    let abs = v.abs();
    if (1e-3..1e7).contains(&abs) {
        let point = exp + 1; // digits before the decimal point
        let (int_part, frac_part) = if point <= 0 {
            let zeros = "0".repeat((-point) as usize);
            ("0".to_owned(), format!("{zeros}{digits}"))
        } else if point as usize >= digits.len() {
            let zeros = "0".repeat(point as usize - digits.len());
            (format!("{digits}{zeros}"), "0".to_owned())
        } else {
            let (a, b) = digits.split_at(point as usize);
            (a.to_owned(), b.to_owned())
        };
        format!("{sign}{int_part}.{frac_part}")
    } else {
        let (first, rest) = digits.split_at(1);
        let rest = if rest.is_empty() { "0" } else { rest };
        format!("{sign}{first}.{rest}E{exp}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trims_like_java() {
        assert_eq!(trim("\u{1} a b \t\n"), "a b");
        assert_eq!(trim("\u{a0}x"), "\u{a0}x");
    }

    #[test]
    fn integers() {
        assert_eq!(parse_int("+5"), Some(5));
        assert_eq!(parse_int("-2147483648"), Some(i32::MIN));
        assert_eq!(parse_int("2147483648"), None);
        assert_eq!(parse_int(""), None);
        assert_eq!(parse_int("+"), None);
        assert_eq!(parse_int("1_000"), None);
        assert_eq!(parse_long("9223372036854775807"), Some(i64::MAX));
        assert_eq!(parse_long("9223372036854775808"), None);
    }

    #[test]
    fn booleans() {
        assert_eq!(parse_bool("TRUE"), Some(true));
        assert_eq!(parse_bool("fal\u{17f}e"), Some(false));
        assert_eq!(parse_bool("yes"), None);
        assert!(parse_boolean_lenient("True"));
        assert!(!parse_boolean_lenient(" true"));
    }

    #[test]
    fn lists() {
        assert_eq!(parse_list("  "), Vec::<String>::new());
        assert_eq!(parse_list("a , b"), vec!["a", "b"]);
        assert_eq!(parse_list("a, ,b,"), vec!["a", "", "b", ""]);
        assert_eq!(parse_list(",a"), vec!["", "a"]);
        assert_eq!(parse_list("a b,c"), vec!["a b", "c"]);
    }

    #[test]
    fn doubles() {
        assert_eq!(parse_double("0.5d"), Some(0.5));
        assert_eq!(parse_double("1."), Some(1.0));
        assert_eq!(parse_double(".5"), Some(0.5));
        assert_eq!(parse_double("-1e3"), Some(-1000.0));
        assert_eq!(parse_double("0x1.8p1"), Some(3.0));
        assert_eq!(parse_double("0x10P-4"), Some(1.0));
        assert_eq!(parse_double("-Infinity"), Some(f64::NEG_INFINITY));
        assert!(parse_double("NaN").is_some_and(f64::is_nan));
        for bad in [
            "inf", "nan", ".", "e5", "1e", "1.5x", "0x1.8", "", "+", "1 ",
        ] {
            assert_eq!(parse_double(bad), None, "{bad}");
        }
    }

    #[test]
    fn double_text() {
        for (v, text) in [
            (1.5, "1.5"),
            (100.0, "100.0"),
            (0.001, "0.001"),
            (1.0e-4, "1.0E-4"),
            (2.0e10, "2.0E10"),
            (1.0e7, "1.0E7"),
            (9_999_999.0, "9999999.0"),
            (-0.25, "-0.25"),
            (0.1 + 0.2, "0.30000000000000004"),
            (1.234_5e-7, "1.2345E-7"),
            (f64::MAX, "1.7976931348623157E308"),
            (-0.0, "-0.0"),
        ] {
            assert_eq!(double_to_string(v), text);
        }
    }
}
