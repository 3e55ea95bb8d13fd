//! Small emulations of Java library behaviour that leaks into Kafka's bytes
//! and output: `java.util.Date.toString()`, random UUIDs as Kafka makes them and
//! the text form of `org.apache.kafka.common.Uuid`, a `java.util.HashMap`
//! with its values (`JavaMap`) and how `InetAddress.getByName` takes a host
//! name (`inet_host`). The `java.util.HashMap` iteration order itself lives
//! in [`kraft_protocol::java_hash_map`].

use std::collections::HashMap;
use std::hash::Hash;

use uuid::Uuid;

pub(crate) use kraft_protocol::java_hash_map::{JavaHash, JavaHashMap};

pub use kraft_protocol::kafka_uuid::{parse as uuid_from_text, to_string as uuid_to_text};

/// A random UUID as `Uuid.randomUuid()` makes them: never the reserved
/// all-zero / `(0, 1)` values and never one whose text contains `-`.
pub fn random_uuid() -> Uuid {
    loop {
        let u = Uuid::new_v4();
        let (hi, lo) = u.as_u64_pair();
        if (hi == 0 && lo <= 1) || uuid_to_text(&u).contains('-') {
            continue;
        }
        return u;
    }
}

/// A random directory id as Kafka's storage tool makes them: not one of the
/// 100 reserved ids `(0, 0..100)` and not starting with `-`.
pub fn random_directory_id() -> Uuid {
    loop {
        let u = Uuid::new_v4();
        let (hi, lo) = u.as_u64_pair();
        if (hi == 0 && lo < 100) || uuid_to_text(&u).starts_with('-') {
            continue;
        }
        return u;
    }
}

/// Whether `uuid` is one of Kafka's reserved directory ids (`DirectoryId.reserved`).
pub fn is_reserved_directory_id(uuid: &Uuid) -> bool {
    let (hi, lo) = uuid.as_u64_pair();
    hi == 0 && lo < 100
}

/// `java.util.Date.toString()` for a UTC instant: `EEE MMM dd HH:mm:ss zzz yyyy`.
pub(crate) fn java_date_string_utc(unix_ms: i64) -> String {
    const DAYS: [&str; 7] = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"];
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let secs = unix_ms.div_euclid(1000);
    let days = secs.div_euclid(86_400);
    let sod = secs.rem_euclid(86_400);
    let (y, m, d) = civil_from_days(days);
    let weekday = DAYS[days.rem_euclid(7) as usize];
    format!(
        "{weekday} {} {d:02} {:02}:{:02}:{:02} UTC {y}",
        MONTHS[(m - 1) as usize],
        sod / 3600,
        (sod / 60) % 60,
        sod % 60
    )
}

/// Days since 1970-01-01 to (year, month 1-12, day 1-31), proleptic Gregorian.
fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (if m <= 2 { y + 1 } else { y }, m, d)
}

/// A `java.util.HashMap` with its values: the keys iterate in Java's order
/// ([`JavaHashMap`]); putting a key already present replaces its value in
/// place.
#[derive(Debug, Clone)]
pub(crate) struct JavaMap<K, V> {
    order: JavaHashMap<K>,
    values: HashMap<K, V>,
}

impl<K: JavaHash + Eq + Hash + Clone, V> JavaMap<K, V> {
    /// `new HashMap<>()`.
    pub(crate) fn new() -> Self {
        JavaMap {
            order: JavaHashMap::new(),
            values: HashMap::new(),
        }
    }

    /// `new HashMap<>(initialCapacity)`.
    pub(crate) fn with_capacity(initial_capacity: usize) -> Self {
        JavaMap {
            order: JavaHashMap::with_capacity(initial_capacity),
            values: HashMap::new(),
        }
    }

    /// `put(key, value)`: the previous value, if any.
    pub(crate) fn put(&mut self, key: K, value: V) -> Option<V> {
        self.order.put(key.clone());
        self.values.insert(key, value)
    }

    /// `remove(key)`: the removed value, if any.
    pub(crate) fn remove(&mut self, key: &K) -> Option<V> {
        let removed = self.values.remove(key);
        if removed.is_some() {
            self.order.remove(key);
        }
        removed
    }

    /// `containsKey(key)`.
    pub(crate) fn contains_key(&self, key: &K) -> bool {
        self.values.contains_key(key)
    }

    /// The entries in Java's iteration order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (&K, &V)> {
        self.order
            .iter()
            .filter_map(|k| self.values.get(k).map(|v| (k, v)))
    }
}

/// How `InetAddress.getByName` takes a host name before any lookup.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum InetHost {
    /// An address literal (or the empty name, the loopback address).
    Literal,
    /// Refused without a lookup (`UnknownHostException`): a bracketed name
    /// that is not an IPv6 literal, an invalid IPv6 literal, or an
    /// ambiguous IPv4 literal (octal or hexadecimal parts).
    Invalid,
    /// A name for the system resolver.
    Lookup,
}

/// Java 17's `InetAddress.getAllByName` up to the lookup: a name in
/// brackets must be an IPv6 literal; a name starting with a hexadecimal
/// digit or `:` is tried as a decimal IPv4 literal
/// (`IPAddressUtil.textToNumericFormatV4`: one to four parts, at most 15
/// characters), refused if only the BSD parser reads it (octal or
/// hexadecimal parts, `validateNumericFormatV4`), then tried as an IPv6
/// literal and refused if it holds a `:`; anything else is looked up.
///
/// IPv6 literals are read by the standard library's parser; a scope
/// (`%...`) is accepted when numeric (Java also resolves an interface
/// name, which is refused here).
pub(crate) fn inet_host(host: &str) -> InetHost {
    if host.is_empty() {
        return InetHost::Literal;
    }
    if let Some(rest) = host.strip_prefix('[') {
        return match rest.strip_suffix(']') {
            Some(inner) if host.len() > 2 && ipv6_literal(inner) => InetHost::Literal,
            _ => InetHost::Invalid,
        };
    }
    let first = host.as_bytes()[0];
    if !(first.is_ascii_hexdigit() || first == b':') {
        return InetHost::Lookup;
    }
    if decimal_ipv4_literal(host) {
        return InetHost::Literal;
    }
    if bsd_ipv4_literal(host) {
        return InetHost::Invalid;
    }
    if ipv6_literal(host) {
        return InetHost::Literal;
    }
    if host.contains(':') {
        InetHost::Invalid
    } else {
        InetHost::Lookup
    }
}

/// `IPAddressUtil.textToNumericFormatV4`: `a`, `a.b`, `a.b.c` or `a.b.c.d`
/// in ASCII decimal, leading parts at most 255, the last filling the rest.
fn decimal_ipv4_literal(s: &str) -> bool {
    if s.is_empty() || s.encode_utf16().count() > 15 {
        return false;
    }
    let parts: Vec<&str> = s.split('.').collect();
    if parts.len() > 4 {
        return false;
    }
    let last = parts.len() - 1;
    parts.iter().enumerate().all(|(i, p)| {
        if p.is_empty() || !p.bytes().all(|b| b.is_ascii_digit()) {
            return false;
        }
        let Ok(v) = p.parse::<u64>() else {
            return false;
        };
        if i < last {
            v <= 0xff
        } else {
            v < 1u64 << ((4 - last) * 8)
        }
    })
}

/// `IPAddressUtil.parseBsdLiteralV4`: one to four parts, each hexadecimal
/// (`0x`), octal (a leading `0`) or decimal, leading parts at most 255, the
/// last filling the rest; the name starts with a decimal digit and ends
/// with a hexadecimal one.
fn bsd_ipv4_literal(s: &str) -> bool {
    let bytes = s.as_bytes();
    let (Some(first), Some(last)) = (bytes.first(), bytes.last()) else {
        return false;
    };
    if !first.is_ascii_digit() || !last.is_ascii_hexdigit() {
        return false;
    }
    let parts: Vec<&str> = s.split('.').collect();
    if parts.len() > 4 {
        return false;
    }
    let last_index = parts.len() - 1;
    parts.iter().enumerate().all(|(i, p)| {
        let (digits, radix) = if let Some(hex) = p.strip_prefix("0x").or(p.strip_prefix("0X")) {
            (hex, 16)
        } else if p.len() >= 2 && p.starts_with('0') {
            (&p[1..], 8)
        } else {
            (*p, 10)
        };
        // A hexadecimal part may be a bare `0x` only as the last part.
        if p.is_empty() || (digits.is_empty() && i < last_index) {
            return false;
        }
        let mut v: u64 = 0;
        for c in digits.chars() {
            let Some(d) = c.to_digit(radix) else {
                return false;
            };
            v = v
                .saturating_mul(u64::from(radix))
                .saturating_add(u64::from(d));
        }
        if i < last_index {
            v <= 0xff
        } else {
            v < 1u64 << ((4 - last_index) * 8)
        }
    })
}

/// An IPv6 literal, with an optional numeric scope.
fn ipv6_literal(s: &str) -> bool {
    let (address, scope) = match s.split_once('%') {
        Some((a, z)) => (a, Some(z)),
        None => (s, None),
    };
    address.parse::<std::net::Ipv6Addr>().is_ok()
        && scope.is_none_or(|z| !z.is_empty() && z.bytes().all(|b| b.is_ascii_digit()))
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn random_ids_avoid_reserved_values() {
        for _ in 0..100 {
            let r = random_uuid();
            assert!(!uuid_to_text(&r).contains('-'));
            assert!(!is_reserved_directory_id(&random_directory_id()));
        }
    }

    #[test]
    fn date_string_matches_java() {
        // Java: new Date(1796010438000L).toString() in UTC.
        assert_eq!(
            java_date_string_utc(1_796_010_438_000),
            "Mon Nov 30 03:47:18 UTC 2026"
        );
        assert_eq!(java_date_string_utc(0), "Thu Jan 01 00:00:00 UTC 1970");
    }

    #[test]
    fn inet_hosts_are_taken_as_a_jvms_inet_address_takes_them() {
        // What OpenJDK 17's InetAddress.getByName did with each name: an
        // address, UnknownHostException without a lookup, or a lookup.
        for literal in [
            "127.0.0.1",
            "127.1",
            "1.2.3",
            "0127.0.0.1",
            "010.1",
            "::1",
            "[::1]",
            "::ffff:1.2.3.4",
            "fe80::1%2",
            "",
        ] {
            assert_eq!(inet_host(literal), InetHost::Literal, "{literal}");
        }
        for refused in [
            "[127.0.0.1]",
            "1:2",
            "abc:1",
            "0x7f.1",
            "0x7f000001",
            "[::1",
            "[]",
            "fe80::1%lo",
        ] {
            assert_eq!(inet_host(refused), InetHost::Invalid, "{refused}");
        }
        for looked_up in [
            "localhost",
            "example.invalid",
            "1.2.3.4.5",
            "256.1.1.1",
            "abc.example",
            "host:80",
            "4294967296",
        ] {
            assert_eq!(inet_host(looked_up), InetHost::Lookup, "{looked_up}");
        }
    }

    #[test]
    fn java_maps_iterate_in_java_order_and_keep_a_replaced_keys_place() {
        let mut m: JavaMap<String, i32> = JavaMap::new();
        for (i, k) in ["alice", "bob", "carol"].iter().enumerate() {
            m.put(k.to_string(), i as i32);
        }
        assert_eq!(m.put("alice".into(), 9), Some(0));
        // A JVM iterates {alice, bob, carol} as [carol, bob, alice].
        let order: Vec<(&str, i32)> = m.iter().map(|(k, v)| (k.as_str(), *v)).collect();
        assert_eq!(order, [("carol", 2), ("bob", 1), ("alice", 9)]);
        assert_eq!(m.remove(&"bob".to_string()), Some(1));
        assert!(!m.contains_key(&"bob".to_string()));
        assert_eq!(m.remove(&"bob".to_string()), None);
    }
}
