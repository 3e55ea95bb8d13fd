//! Kafka's connection limits on the controller listeners: `max.connections`
//! (all listeners together), `listener.name.<listener>.max.connections`,
//! `max.connections.per.ip` and `max.connections.per.ip.overrides`, and the
//! connection creation rates `max.connection.creation.rate` and
//! `listener.name.<listener>.max.connection.creation.rate` measured over
//! `quota.window.num` windows of `quota.window.size.seconds`, with Kafka
//! 4.4's defaults, bounds and start-up checks. The server applies them as
//! Kafka's `ConnectionQuotas` does (see `server::connection_quotas`).

use std::collections::BTreeMap;
use std::net::{IpAddr, ToSocketAddrs};

use super::settings::{invalid, Int, Text};
use super::{ConfigError, Properties};

/// `max.connections`
pub const MAX_CONNECTIONS: Int = Int {
    key: "max.connections",
    default: i32::MAX,
    min: Some(0),
    max: None,
    doc: "The most connections all controller listeners together keep open; a new connection waits in the listen backlog until one closes. `listener.name.<listener>.max.connections` limits one listener.",
};
/// `max.connections.per.ip`
pub const MAX_CONNECTIONS_PER_IP: Int = Int {
    key: "max.connections.per.ip",
    default: i32::MAX,
    min: Some(0),
    max: None,
    doc: "The most connections one IP address keeps open; a new connection beyond it is closed at once. 0 only with `max.connections.per.ip.overrides`.",
};
/// `max.connections.per.ip.overrides`
pub const MAX_CONNECTIONS_PER_IP_OVERRIDES: Text = Text {
    key: "max.connections.per.ip.overrides",
    list: true,
    default: Some(""),
    required: false,
    doc: "Per-address exceptions to `max.connections.per.ip`: `host:count` pairs, comma-separated (e.g. `hostName:100,127.0.0.1:200`); host names are resolved at start.",
};

/// `max.connection.creation.rate`
pub const MAX_CONNECTION_CREATION_RATE: Int = Int {
    key: "max.connection.creation.rate",
    default: i32::MAX,
    min: Some(0),
    max: None,
    doc: "The most connections per second all controller listeners together accept, measured over `quota.window.num` windows of `quota.window.size.seconds`; above it the acceptor waits (at most one window) before accepting the next. `listener.name.<listener>.max.connection.creation.rate` limits one listener; the `connection_creation_rate` client quota of an `ip` entity limits one address (a connection over it is closed after the throttle time).",
};
/// `quota.window.num`
pub const QUOTA_WINDOW_NUM: Int = Int {
    key: "quota.window.num",
    default: 11,
    min: Some(1),
    max: None,
    doc: "The number of samples the connection creation rates are measured over.",
};
/// `quota.window.size.seconds`
pub const QUOTA_WINDOW_SIZE_SECONDS: Int = Int {
    key: "quota.window.size.seconds",
    default: 1,
    min: Some(1),
    max: None,
    doc: "The time span of each sample of the connection creation rates; also the longest a connection is throttled.",
};

/// The connection limits of a controller's configuration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConnectionLimits {
    /// `max.connections`: all controller listeners together.
    pub max_connections: u32,
    /// `listener.name.<listener>.max.connections`, by upper-case listener
    /// name; a listener not named has no limit of its own.
    pub per_listener: BTreeMap<String, u32>,
    /// `max.connections.per.ip`.
    pub per_ip: u32,
    /// `max.connections.per.ip.overrides`, host names resolved.
    pub per_ip_overrides: BTreeMap<IpAddr, u32>,
    /// `max.connection.creation.rate` (per second): all listeners together.
    pub max_creation_rate: u32,
    /// `listener.name.<listener>.max.connection.creation.rate`, by
    /// upper-case listener name.
    pub per_listener_creation_rate: BTreeMap<String, u32>,
    /// `quota.window.num`.
    pub quota_window_num: u32,
    /// `quota.window.size.seconds`.
    pub quota_window_size_seconds: u32,
}

impl Default for ConnectionLimits {
    /// Kafka's defaults: no limit.
    fn default() -> Self {
        ConnectionLimits {
            max_connections: i32::MAX as u32,
            per_listener: BTreeMap::new(),
            per_ip: i32::MAX as u32,
            per_ip_overrides: BTreeMap::new(),
            max_creation_rate: i32::MAX as u32,
            per_listener_creation_rate: BTreeMap::new(),
            quota_window_num: 11,
            quota_window_size_seconds: 1,
        }
    }
}

impl ConnectionLimits {
    /// Reads the limits for `listeners` (upper-case names) with Kafka's
    /// checks: counts at least 0, `max.connections.per.ip=0` only with
    /// overrides, override hosts of valid characters that resolve.
    pub fn read(props: &Properties, listeners: &[String]) -> Result<ConnectionLimits, ConfigError> {
        let count = |v: i32| u32::try_from(v).unwrap_or(0);
        let per_listener = listener_values(props, listeners, MAX_CONNECTIONS.key)?;
        let per_listener_creation_rate =
            listener_values(props, listeners, MAX_CONNECTION_CREATION_RATE.key)?;
        let per_ip = MAX_CONNECTIONS_PER_IP.read(props)?;
        let overrides_raw = MAX_CONNECTIONS_PER_IP_OVERRIDES.read(props)?.unwrap_or("");
        let overrides = parse_overrides(overrides_raw)?;
        if per_ip == 0 && overrides.is_empty() {
            return Err(ConfigError::Inconsistent(format!(
                "requirement failed: {} can be set to zero only if {} property is set.",
                MAX_CONNECTIONS_PER_IP.key, MAX_CONNECTIONS_PER_IP_OVERRIDES.key
            )));
        }
        let invalid_hosts: Vec<&str> = overrides
            .iter()
            .map(|(h, _)| h.as_str())
            .filter(|h| !valid_host_pattern(h))
            .collect();
        if !invalid_hosts.is_empty() {
            return Err(ConfigError::Inconsistent(format!(
                "{} contains invalid addresses : {}",
                MAX_CONNECTIONS_PER_IP_OVERRIDES.key,
                invalid_hosts.join(",")
            )));
        }
        let mut per_ip_overrides = BTreeMap::new();
        for (host, max) in overrides {
            per_ip_overrides.insert(resolve(&host, overrides_raw)?, max);
        }
        Ok(ConnectionLimits {
            max_connections: count(MAX_CONNECTIONS.read(props)?),
            per_listener,
            per_ip: count(per_ip),
            per_ip_overrides,
            max_creation_rate: count(MAX_CONNECTION_CREATION_RATE.read(props)?),
            per_listener_creation_rate,
            quota_window_num: count(QUOTA_WINDOW_NUM.read(props)?).max(1),
            quota_window_size_seconds: count(QUOTA_WINDOW_SIZE_SECONDS.read(props)?).max(1),
        })
    }

    /// Whether `key` is a listener-prefixed form this module reads.
    pub fn is_listener_key(key: &str) -> bool {
        key.strip_prefix("listener.name.")
            .and_then(|rest| rest.split_once('.'))
            .is_some_and(|(_, suffix)| {
                suffix == MAX_CONNECTIONS.key || suffix == MAX_CONNECTION_CREATION_RATE.key
            })
    }
}

/// The `listener.name.<listener>.<suffix>` values (INT, at least 0) of
/// `listeners` (upper-case names), by listener.
fn listener_values(
    props: &Properties,
    listeners: &[String],
    suffix: &str,
) -> Result<BTreeMap<String, u32>, ConfigError> {
    let mut values = BTreeMap::new();
    for listener in listeners {
        let key = format!("listener.name.{}.{suffix}", listener.to_ascii_lowercase());
        if let Some(raw) = props.get(&key) {
            let v = raw
                .trim()
                .parse::<i32>()
                .map_err(|_| invalid(&key, raw, "Not a number of type INT"))?;
            let v = u32::try_from(v).map_err(|_| invalid(&key, raw, "Value must be at least 0"))?;
            values.insert(listener.clone(), v);
        }
    }
    Ok(values)
}

/// Kafka's `host:count` list: pairs split on commas (with the spaces
/// around them), each at its last colon (so IPv6 addresses keep theirs).
fn parse_overrides(raw: &str) -> Result<Vec<(String, u32)>, ConfigError> {
    let key = MAX_CONNECTIONS_PER_IP_OVERRIDES.key;
    if raw.is_empty() {
        return Ok(Vec::new());
    }
    raw.split(',')
        .map(str::trim)
        .map(|pair| {
            let (host, count) = pair.rsplit_once(':').ok_or_else(|| {
                invalid(key, raw, &format!("`{pair}` is not of the form host:count"))
            })?;
            let count = count.trim();
            let max = count
                .parse::<i32>()
                .ok()
                .and_then(|c| u32::try_from(c).ok())
                .ok_or_else(|| {
                    invalid(
                        key,
                        raw,
                        &format!("For input string: \"{count}\" (a count of connections)"),
                    )
                })?;
            Ok((host.trim().to_owned(), max))
        })
        .collect()
}

/// Kafka's `Utils.validHostPattern`: letters, digits and `-%._:`.
fn valid_host_pattern(host: &str) -> bool {
    host.chars()
        .all(|c| c.is_ascii_alphanumeric() || "-%._:".contains(c))
}

/// The address `host` names: an IP literal as is, a host name's first
/// resolved address.
fn resolve(host: &str, raw: &str) -> Result<IpAddr, ConfigError> {
    if let Ok(ip) = host.parse::<IpAddr>() {
        return Ok(ip);
    }
    (host, 0)
        .to_socket_addrs()
        .ok()
        .and_then(|mut addrs| addrs.next())
        .map(|a| a.ip())
        .ok_or_else(|| {
            invalid(
                MAX_CONNECTIONS_PER_IP_OVERRIDES.key,
                raw,
                &format!("cannot resolve host {host}"),
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn props(text: &str) -> Properties {
        Properties::parse(text).expect("properties")
    }

    fn listeners() -> Vec<String> {
        vec!["CONTROLLER".to_owned(), "RAW".to_owned()]
    }

    #[test]
    fn defaults_are_unlimited() {
        let limits = ConnectionLimits::read(&props(""), &listeners()).expect("read");
        assert_eq!(limits, ConnectionLimits::default());
        assert_eq!(limits.max_connections, 2_147_483_647);
    }

    #[test]
    fn reads_every_limit_and_listener_prefixed_ones() {
        let limits = ConnectionLimits::read(
            &props(
                "max.connections=10\nmax.connections.per.ip=3\n\
                 max.connections.per.ip.overrides=127.0.0.2:5 , ::1:7\n\
                 listener.name.raw.max.connections=2\n\
                 max.connection.creation.rate=30\n\
                 listener.name.controller.max.connection.creation.rate=5\n\
                 quota.window.num=3\nquota.window.size.seconds=2\n",
            ),
            &listeners(),
        )
        .expect("read");
        assert_eq!(limits.max_creation_rate, 30);
        assert_eq!(
            limits.per_listener_creation_rate,
            BTreeMap::from([("CONTROLLER".to_owned(), 5)])
        );
        assert_eq!(
            (limits.quota_window_num, limits.quota_window_size_seconds),
            (3, 2)
        );
        assert_eq!(limits.max_connections, 10);
        assert_eq!(limits.per_ip, 3);
        assert_eq!(limits.per_listener, BTreeMap::from([("RAW".to_owned(), 2)]));
        assert_eq!(
            limits.per_ip_overrides,
            BTreeMap::from([
                ("127.0.0.2".parse::<IpAddr>().expect("ip"), 5),
                ("::1".parse::<IpAddr>().expect("ip"), 7)
            ])
        );
    }

    #[test]
    fn zero_per_ip_needs_overrides_as_in_kafka() {
        let e = ConnectionLimits::read(&props("max.connections.per.ip=0\n"), &listeners())
            .expect_err("refused");
        assert_eq!(
            e.to_string(),
            "requirement failed: max.connections.per.ip can be set to zero only if max.connections.per.ip.overrides property is set."
        );
        let ok = ConnectionLimits::read(
            &props("max.connections.per.ip=0\nmax.connections.per.ip.overrides=localhost:4\n"),
            &listeners(),
        )
        .expect("overrides given");
        assert_eq!(ok.per_ip, 0);
        assert_eq!(
            ok.per_ip_overrides.values().copied().collect::<Vec<_>>(),
            [4]
        );
    }

    #[test]
    fn bad_values_are_refused() {
        for (text, needle) in [
            ("max.connections=-1\n", "Value must be at least 0"),
            (
                "max.connection.creation.rate=-1\n",
                "Value must be at least 0",
            ),
            (
                "listener.name.raw.max.connection.creation.rate=-2\n",
                "Value must be at least 0",
            ),
            ("quota.window.num=0\n", "Value must be at least 1"),
            ("quota.window.size.seconds=0\n", "Value must be at least 1"),
            (
                "listener.name.controller.max.connections=x\n",
                "Not a number",
            ),
            ("max.connections.per.ip.overrides=host1\n", "host:count"),
            (
                "max.connections.per.ip.overrides=127.0.0.1:many\n",
                "For input string",
            ),
            (
                "max.connections.per.ip.overrides=bad/host:3\n",
                "contains invalid addresses : bad/host",
            ),
            (
                "max.connections.per.ip.overrides=no-such-host.invalid:3\n",
                "cannot resolve host no-such-host.invalid",
            ),
        ] {
            let e = ConnectionLimits::read(&props(text), &listeners()).expect_err(text);
            assert!(e.to_string().contains(needle), "{text}: {e}");
        }
    }

    #[test]
    fn host_pattern_follows_kafkas_cases() {
        for ok in [
            "127.0.0.1",
            "mydomain.com",
            "MyDomain.com",
            "My_Domain.com",
            "::1",
            "2001:db8:85a3:8d3:1319:8a2e:370",
        ] {
            assert!(valid_host_pattern(ok), "{ok}");
        }
        assert!(!valid_host_pattern("a b"));
    }

    #[test]
    fn listener_keys_are_recognised() {
        assert!(ConnectionLimits::is_listener_key(
            "listener.name.controller.max.connections"
        ));
        assert!(!ConnectionLimits::is_listener_key("max.connections"));
        assert!(ConnectionLimits::is_listener_key(
            "listener.name.controller.max.connection.creation.rate"
        ));
        assert!(!ConnectionLimits::is_listener_key(
            "listener.name.controller.max.connections.per.ip"
        ));
    }
}
