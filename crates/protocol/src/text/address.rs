//! `host:port` and `NAME://host:port` as Kafka writes them in configuration
//! values (`controller.quorum.voters`, `bootstrap.servers`, `listeners`) and
//! tool arguments: IPv6 hosts in brackets (`[::1]:9093`), the port last.
//!
//! The splitting functions return the raw parts so that each caller can
//! apply the check and the message of its Kafka counterpart; [`HostPort`]
//! is the checked form of Kafka's `Utils.getHost` / `Utils.getPort`.

use std::fmt;

/// Splits `host:port` or `[v6]:port` into the host (brackets removed) and
/// the text after the last colon. `None` when there is no colon (or a `[`
/// without its `]:`).
pub fn split_host_port(s: &str) -> Option<(&str, &str)> {
    match s.strip_prefix('[') {
        Some(bracketed) => bracketed.split_once("]:"),
        None => s.rsplit_once(':'),
    }
}

/// Splits `NAME://host:port` into the name, the host (brackets removed) and
/// the port text. `None` without `://` or without a port separator.
pub fn split_listener(s: &str) -> Option<(&str, &str, &str)> {
    let (name, rest) = s.split_once("://")?;
    let (host, port) = split_host_port(rest)?;
    Some((name, host, port))
}

/// Whether `host` uses only the characters Kafka's address patterns accept
/// (`[0-9a-zA-Z\-%._:]`); the empty host passes.
pub fn is_valid_host(host: &str) -> bool {
    host.chars()
        .all(|c| c.is_ascii_alphanumeric() || "-%._:".contains(c))
}

/// A checked `host:port` pair; displays IPv6 hosts in brackets.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct HostPort {
    /// Host name or IP literal (without IPv6 brackets).
    pub host: String,
    /// TCP port.
    pub port: u16,
}

impl HostPort {
    /// Parses `host:port` or `[v6]:port` (surrounding whitespace ignored):
    /// the host must be non-empty and use only Kafka's host characters, the
    /// port must be a number in 0..=65535.
    pub fn parse(s: &str) -> Option<HostPort> {
        let (host, port) = split_host_port(s.trim())?;
        if host.is_empty() || !is_valid_host(host) {
            return None;
        }
        Some(HostPort {
            host: host.to_owned(),
            port: port.parse().ok()?,
        })
    }
}

impl fmt::Display for HostPort {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.host.contains(':') {
            write!(f, "[{}]:{}", self.host, self.port)
        } else {
            write!(f, "{}:{}", self.host, self.port)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_port_forms() {
        assert_eq!(
            split_host_port("localhost:9093"),
            Some(("localhost", "9093"))
        );
        assert_eq!(split_host_port("[::1]:9093"), Some(("::1", "9093")));
        assert_eq!(split_host_port("::1:9093"), Some(("::1", "9093")));
        assert_eq!(split_host_port("[::1]"), None);
        assert_eq!(split_host_port("nohost"), None);
        assert_eq!(split_host_port(":9093"), Some(("", "9093")));
    }

    #[test]
    fn listener_forms() {
        assert_eq!(
            split_listener("CONTROLLER://[fe80::1%eth0]:9093"),
            Some(("CONTROLLER", "fe80::1%eth0", "9093"))
        );
        assert_eq!(
            split_listener("CONTROLLER://:9093"),
            Some(("CONTROLLER", "", "9093"))
        );
        assert_eq!(split_listener("CONTROLLER:9093"), None);
    }

    #[test]
    fn checked_host_port() {
        let v6 = HostPort::parse(" [::1]:9093 ").expect("v6");
        assert_eq!(v6.host, "::1");
        assert_eq!(v6.to_string(), "[::1]:9093");
        assert_eq!(HostPort::parse("h_1.example:0").map(|h| h.port), Some(0));
        assert_eq!(HostPort::parse(":9093"), None);
        assert_eq!(HostPort::parse("h:99999"), None);
        assert_eq!(HostPort::parse("h:-1"), None);
        assert_eq!(HostPort::parse("bad/host:1"), None);
        assert_eq!(HostPort::parse("[a]b]:1"), None);
    }
}
