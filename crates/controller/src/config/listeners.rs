//! Listener, address and voter values: `listeners`, `advertised.listeners`,
//! `listener.security.protocol.map`, `controller.quorum.voters` and
//! `controller.quorum.bootstrap.servers`, with Kafka 4.4's syntax and messages.
//! The address forms themselves are split by [`kraft_protocol::text::address`].

use std::collections::BTreeSet;
use std::fmt;

use kraft_protocol::text::address;
pub use kraft_protocol::text::HostPort;

use super::settings::{
    invalid, parse_list, LISTENER_SECURITY_PROTOCOL_MAP, QUORUM_BOOTSTRAP_SERVERS, QUORUM_VOTERS,
};
use super::ConfigError;

/// A listener security protocol (Kafka's `SecurityProtocol`, with its wire id).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SecurityProtocol {
    /// `PLAINTEXT` (0)
    Plaintext,
    /// `SSL` (1)
    Ssl,
    /// `SASL_PLAINTEXT` (2)
    SaslPlaintext,
    /// `SASL_SSL` (3)
    SaslSsl,
}

impl SecurityProtocol {
    /// All protocols in id order.
    pub const ALL: [SecurityProtocol; 4] = [
        SecurityProtocol::Plaintext,
        SecurityProtocol::Ssl,
        SecurityProtocol::SaslPlaintext,
        SecurityProtocol::SaslSsl,
    ];

    /// The wire id (RegisterControllerRecord / ControllerRegistration `SecurityProtocol`).
    pub fn id(self) -> i16 {
        match self {
            SecurityProtocol::Plaintext => 0,
            SecurityProtocol::Ssl => 1,
            SecurityProtocol::SaslPlaintext => 2,
            SecurityProtocol::SaslSsl => 3,
        }
    }

    /// The protocol with wire id `id`.
    pub fn from_id(id: i16) -> Option<SecurityProtocol> {
        Self::ALL.into_iter().find(|p| p.id() == id)
    }

    /// Kafka's name, e.g. `SASL_SSL`.
    pub fn name(self) -> &'static str {
        match self {
            SecurityProtocol::Plaintext => "PLAINTEXT",
            SecurityProtocol::Ssl => "SSL",
            SecurityProtocol::SaslPlaintext => "SASL_PLAINTEXT",
            SecurityProtocol::SaslSsl => "SASL_SSL",
        }
    }

    /// Parses a name, case-insensitively.
    pub fn from_name(name: &str) -> Option<SecurityProtocol> {
        let upper = name.to_ascii_uppercase();
        Self::ALL.into_iter().find(|p| p.name() == upper)
    }
}

impl fmt::Display for SecurityProtocol {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A listener endpoint (`NAME://host:port`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ListenerEndpoint {
    /// The listener name, upper-cased as Kafka normalises it.
    pub name: String,
    /// The host; `None` for an empty host (bind to all interfaces, or
    /// advertise the canonical host name).
    pub host: Option<String>,
    /// The port (0 = pick an ephemeral port when binding).
    pub port: u16,
    /// The listener's security protocol.
    pub security_protocol: SecurityProtocol,
}

impl fmt::Display for ListenerEndpoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let host = self.host.as_deref().unwrap_or("");
        if host.contains(':') {
            write!(f, "{}://[{host}]:{}", self.name, self.port)
        } else {
            write!(f, "{}://{host}:{}", self.name, self.port)
        }
    }
}

/// A voter of a static quorum (`controller.quorum.voters` entry `id@host:port`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct StaticVoter {
    /// The voter's node id.
    pub id: i32,
    /// Its address on the default controller listener.
    pub address: HostPort,
}

pub(super) fn parse_security_map(
    value: &str,
) -> Result<Vec<(String, SecurityProtocol)>, ConfigError> {
    let mut out: Vec<(String, SecurityProtocol)> = Vec::new();
    for entry in parse_list(value) {
        let Some((name, proto)) = entry.split_once(':') else {
            return Err(invalid(
                LISTENER_SECURITY_PROTOCOL_MAP.key,
                value,
                &format!("entry '{entry}' is not of the form LISTENER_NAME:SECURITY_PROTOCOL"),
            ));
        };
        let name = name.trim().to_ascii_uppercase();
        let proto = SecurityProtocol::from_name(proto.trim()).ok_or_else(|| {
            invalid(
                LISTENER_SECURITY_PROTOCOL_MAP.key,
                value,
                &format!(
                    "unknown security protocol '{}' (allowed: PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL)",
                    proto.trim()
                ),
            )
        })?;
        match out.iter_mut().find(|(n, _)| *n == name) {
            Some(e) => e.1 = proto,
            None => out.push((name, proto)),
        }
    }
    Ok(out)
}

/// Parses `NAME://host:port` entries (Kafka's `^(.*)://\[?([0-9a-zA-Z\-%._:]*)\]?:(-?[0-9]+)`).
pub(super) fn parse_listeners(
    key: &str,
    value: &str,
    map: &[(String, SecurityProtocol)],
) -> Result<Vec<ListenerEndpoint>, ConfigError> {
    let mut out: Vec<ListenerEndpoint> = Vec::new();
    for entry in parse_list(value) {
        let bad = || {
            invalid(
                key,
                value,
                &format!("Unable to parse {entry} to a broker endpoint; expected NAME://host:port, e.g. CONTROLLER://localhost:9093"),
            )
        };
        let (name, host, port_str) = address::split_listener(&entry).ok_or_else(bad)?;
        let host_ok = address::is_valid_host(host);
        let port_ok = !port_str.is_empty()
            && port_str
                .trim_start_matches('-')
                .chars()
                .all(|c| c.is_ascii_digit());
        if !host_ok || !port_ok {
            return Err(bad());
        }
        let port: u16 = port_str.parse().map_err(|_| {
            invalid(
                key,
                value,
                &format!("port {port_str} of {entry} is not between 0 and 65535"),
            )
        })?;
        let name = name.to_ascii_uppercase();
        let security_protocol = map
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, p)| *p)
            .ok_or_else(|| {
                invalid(
                    key,
                    value,
                    &format!(
                        "No security protocol defined for listener {name}; add it to {map_key}, e.g. {name}:PLAINTEXT",
                        map_key = LISTENER_SECURITY_PROTOCOL_MAP.key
                    ),
                )
            })?;
        if out.iter().any(|e| e.name == name) {
            return Err(invalid(
                key,
                value,
                &format!("Each listener must have a different name; {name} appears more than once"),
            ));
        }
        out.push(ListenerEndpoint {
            name,
            host: (!host.is_empty()).then(|| host.to_string()),
            port,
            security_protocol,
        });
    }
    Ok(out)
}

pub(super) fn distinct_ports(
    key: &str,
    value: &str,
    listeners: &[ListenerEndpoint],
) -> Result<(), ConfigError> {
    let mut seen = BTreeSet::new();
    for l in listeners.iter().filter(|l| l.port != 0) {
        if !seen.insert(l.port) {
            return Err(invalid(
                key,
                value,
                &format!(
                    "Each listener must have a different port; port {} is used twice",
                    l.port
                ),
            ));
        }
    }
    Ok(())
}

pub(super) fn parse_voters(value: &str) -> Result<Vec<StaticVoter>, ConfigError> {
    let form = "Each entry should be in the form `{id}@{host}:{port}`.";
    let mut out: Vec<StaticVoter> = Vec::new();
    for entry in parse_list(value) {
        let parts: Vec<&str> = entry.split('@').collect();
        if parts.len() != 2 {
            return Err(invalid(QUORUM_VOTERS.key, value, form));
        }
        let id: i32 = parts[0].trim().parse().map_err(|_| {
            invalid(
                QUORUM_VOTERS.key,
                value,
                &format!("Failed to parse voter ID as an integer from {}", parts[0]),
            )
        })?;
        let address = HostPort::parse(parts[1]).ok_or_else(|| {
            invalid(
                QUORUM_VOTERS.key,
                value,
                &format!("Failed to parse host name and port from entry {entry}. {form}"),
            )
        })?;
        if address.host == "0.0.0.0" {
            return Err(invalid(
                QUORUM_VOTERS.key,
                value,
                &format!("Host string ({}) is not routeable", address.host),
            ));
        }
        if out.iter().any(|v| v.id == id) {
            return Err(invalid(
                QUORUM_VOTERS.key,
                value,
                &format!("voter id {id} appears more than once"),
            ));
        }
        out.push(StaticVoter { id, address });
    }
    Ok(out)
}

pub(super) fn parse_bootstrap_servers(value: &str) -> Result<Vec<HostPort>, ConfigError> {
    parse_list(value)
        .into_iter()
        .map(|entry| {
            HostPort::parse(&entry).ok_or_else(|| {
                    invalid(
                        QUORUM_BOOTSTRAP_SERVERS.key,
                        value,
                        &format!(
                            "Failed to parse host name and port from {entry}. Each entry should be in the form \"{{host}}:{{port}}\""
                        ),
                    )
                })
        })
        .collect()
}
