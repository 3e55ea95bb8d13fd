//! The part of Kafka's `ConfigDef` the CLIENT_METRICS and GROUP
//! definitions use: config types, parsing a value, and the checks a
//! definition applies to it.

use super::invalid_config;
use super::java_text::{java_parse_int, java_parse_long, java_trim, split_list};
use crate::handlers::ApiError;

/// Kafka's `ConfigException(name, value, message)` text.
fn config_exception(name: &str, value: impl std::fmt::Display, reason: &str) -> ApiError {
    invalid_config(format!(
        "Invalid value {value} for configuration {name}: {reason}"
    ))
}

/// A parsed config value (`ConfigDef.parseType`).
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Parsed {
    Int(i32),
    Long(i64),
    Bool(bool),
    Text(String),
    List(Vec<String>),
}

/// A config type of the CLIENT_METRICS and GROUP definitions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    Int,
    Long,
    Bool,
    Text,
    List,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Int => "INT",
            Kind::Long => "LONG",
            Kind::Bool => "BOOLEAN",
            Kind::Text => "STRING",
            Kind::List => "LIST",
        }
    }
}

/// The check a definition applies after parsing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Check {
    None,
    /// `Range.atLeast`.
    AtLeast(i64),
    /// `ValidString.in`.
    OneOf(&'static [&'static str]),
    /// `ValidList.anyNonDuplicateValues(true, false)`.
    AnyList,
    /// `ShareGroupAutoOffsetResetStrategy.Validator`.
    ShareOffsetReset,
}

/// `ConfigDef.parseType` then `parseValue`'s checks of one set value.
pub(super) fn parse_checked(
    name: &str,
    kind: Kind,
    check: Check,
    raw: &str,
) -> Result<Parsed, ApiError> {
    let trimmed = java_trim(raw);
    let not_a_number =
        || config_exception(name, raw, &format!("Not a number of type {}", kind.name()));
    let value = match kind {
        Kind::Int => Parsed::Int(java_parse_int(trimmed).ok_or_else(not_a_number)?),
        Kind::Long => Parsed::Long(java_parse_long(trimmed).ok_or_else(not_a_number)?),
        Kind::Bool => {
            if trimmed.eq_ignore_ascii_case("true") {
                Parsed::Bool(true)
            } else if trimmed.eq_ignore_ascii_case("false") {
                Parsed::Bool(false)
            } else {
                return Err(config_exception(
                    name,
                    raw,
                    "Expected value to be either true or false",
                ));
            }
        }
        Kind::Text => Parsed::Text(trimmed.to_owned()),
        Kind::List => {
            let items: Vec<&str> = if trimmed.is_empty() {
                Vec::new()
            } else {
                split_list(trimmed)
            };
            let mut distinct: Vec<String> = Vec::with_capacity(items.len());
            for item in items {
                if !distinct.iter().any(|d| d == item) {
                    distinct.push(item.to_owned());
                }
            }
            Parsed::List(distinct)
        }
    };
    match (check, &value) {
        (Check::AtLeast(min), Parsed::Int(v)) if i64::from(*v) < min => Err(config_exception(
            name,
            v,
            &format!("Value must be at least {min}"),
        )),
        (Check::AtLeast(min), Parsed::Long(v)) if *v < min => Err(config_exception(
            name,
            v,
            &format!("Value must be at least {min}"),
        )),
        (Check::OneOf(valid), Parsed::Text(s)) if !valid.contains(&s.as_str()) => {
            Err(config_exception(
                name,
                s,
                &format!("String must be one of: {}", valid.join(", ")),
            ))
        }
        (Check::AnyList, Parsed::List(items)) if items.iter().any(String::is_empty) => Err(
            invalid_config(format!("Configuration '{name}' values must not be empty.")),
        ),
        (Check::ShareOffsetReset, Parsed::Text(s)) if !is_share_offset_reset(s) => {
            Err(config_exception(
                name,
                s,
                &format!(
                    "Invalid value `{s}` for configuration {name}. The value must be either 'earliest', 'latest' or of the format 'by_duration:<PnDTnHnMn.nS>'."
                ),
            ))
        }
        _ => Ok(value),
    }
}

/// `ShareGroupAutoOffsetResetStrategy.fromString` succeeds: `earliest`,
/// `latest` or `by_duration:` and a non-negative ISO-8601 duration.
fn is_share_offset_reset(s: &str) -> bool {
    match s {
        "earliest" | "latest" => true,
        _ => s
            .strip_prefix("by_duration:")
            .and_then(parse_iso_duration)
            .is_some_and(|(seconds, _)| seconds >= 0),
    }
}

/// `java.time.Duration.parse`: `[-+]P[nD][T[nH][nM][n[.f]S]]`, case
/// insensitive, as whole seconds and a signed nanosecond part (`None` when
/// it does not parse or overflows).
fn parse_iso_duration(text: &str) -> Option<(i64, i64)> {
    let bytes = text.as_bytes();
    let mut i = 0;
    let sign = |b: Option<&u8>| matches!(b, Some(b'-' | b'+'));
    let negative = bytes.first() == Some(&b'-');
    if sign(bytes.first()) {
        i += 1;
    }
    if !matches!(bytes.get(i), Some(b'P' | b'p')) {
        return None;
    }
    i += 1;
    // A signed integer then its unit letter.
    let number = |i: &mut usize| -> Option<(i64, u8)> {
        let start = *i;
        let mut j = *i;
        if sign(bytes.get(j)) {
            j += 1;
        }
        let digits = j;
        while bytes.get(j).is_some_and(u8::is_ascii_digit) {
            j += 1;
        }
        if j == digits {
            return None;
        }
        let value = java_parse_long(&text[start..j])?;
        let unit = bytes.get(j)?.to_ascii_uppercase();
        *i = j + 1;
        Some((value, unit))
    };
    let mut total: i128 = 0;
    let mut nanos: i128 = 0;
    let mut any = false;
    let mut at = i;
    if let Some((days, b'D')) = number(&mut at) {
        total += i128::from(days) * 86_400;
        i = at;
        any = true;
    }
    if matches!(bytes.get(i), Some(b'T' | b't')) {
        i += 1;
        let mut any_time = false;
        for (unit, factor) in [(b'H', 3_600i128), (b'M', 60)] {
            let mut at = i;
            if let Some((v, u)) = number(&mut at) {
                if u == unit {
                    total += i128::from(v) * factor;
                    i = at;
                    any_time = true;
                }
            }
        }
        // Seconds, with an optional fraction of up to nine digits.
        let start = i;
        let mut j = i;
        let seconds_negative = bytes.get(j) == Some(&b'-');
        if sign(bytes.get(j)) {
            j += 1;
        }
        let digits = j;
        while bytes.get(j).is_some_and(u8::is_ascii_digit) {
            j += 1;
        }
        if j > digits {
            let whole = java_parse_long(&text[start..j])?;
            let mut fraction: i128 = 0;
            if matches!(bytes.get(j), Some(b'.' | b',')) {
                j += 1;
                let f = j;
                while bytes.get(j).is_some_and(u8::is_ascii_digit) {
                    j += 1;
                }
                if j - f > 9 {
                    return None;
                }
                let mut padded = text[f..j].to_owned();
                while padded.len() < 9 {
                    padded.push('0');
                }
                fraction = padded.parse::<i128>().ok()?;
            }
            if matches!(bytes.get(j), Some(b'S' | b's')) {
                total += i128::from(whole);
                nanos = if seconds_negative {
                    -fraction
                } else {
                    fraction
                };
                i = j + 1;
                any_time = true;
            }
        }
        if !any_time {
            return None;
        }
        any = true;
    }
    if !any || i != bytes.len() {
        return None;
    }
    if negative {
        total = -total;
        nanos = -nanos;
    }
    // Normalised as Duration keeps it: whole seconds, then 0..1e9 nanos.
    let all = total * 1_000_000_000 + nanos;
    let seconds = all.div_euclid(1_000_000_000);
    let rest = all.rem_euclid(1_000_000_000);
    Some((i64::try_from(seconds).ok()?, i64::try_from(rest).ok()?))
}
