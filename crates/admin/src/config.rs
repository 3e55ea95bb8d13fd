//! Admin client configuration, with the same keys and defaults as Kafka's
//! `AdminClientConfig`.

use std::time::Duration;

use crate::error::{AdminError, Result};
pub use kraft_protocol::text::HostPort;
use kraft_protocol::text::Properties;
use kraft_security::client::ClientSecurity;

/// How the client finds the cluster (`bootstrap.servers` or `bootstrap.controllers`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Bootstrap {
    /// Brokers (`bootstrap.servers`): calls go to a broker, which forwards
    /// controller requests to the active controller.
    Servers(Vec<HostPort>),
    /// Controllers (`bootstrap.controllers`): the client learns the active
    /// controller with DescribeCluster (EndpointType 2) and talks to it directly.
    Controllers(Vec<HostPort>),
}

impl Bootstrap {
    /// The addresses to bootstrap from.
    pub fn addresses(&self) -> &[HostPort] {
        match self {
            Bootstrap::Servers(a) | Bootstrap::Controllers(a) => a,
        }
    }

    /// Whether these are controllers.
    pub fn is_controllers(&self) -> bool {
        matches!(self, Bootstrap::Controllers(_))
    }
}

/// Configuration of an [`Admin`](crate::Admin) client.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AdminConfig {
    /// Where to bootstrap from.
    pub bootstrap: Bootstrap,
    /// `client.id` sent in every request header (default `kraft-admin`).
    pub client_id: String,
    /// `request.timeout.ms`: how long one request may wait for its response (default 30 s).
    pub request_timeout: Duration,
    /// `default.api.timeout.ms`: the deadline of a whole call, retries included,
    /// when the call's options set none (default 60 s).
    pub default_api_timeout: Duration,
    /// `retry.backoff.ms`: first backoff between retries (default 100 ms).
    pub retry_backoff: Duration,
    /// `retry.backoff.max.ms`: backoff cap; the backoff doubles per retry up to it (default 1 s).
    pub retry_backoff_max: Duration,
    /// `socket.connection.setup.timeout.ms`: connection setup timeout, TLS
    /// handshake and SASL authentication included (default 10 s).
    pub connect_timeout: Duration,
    /// `security.protocol`, `ssl.*`, `sasl.mechanism`, `sasl.jaas.config`.
    pub security: Security,
}

/// How the client secures its connections, and the keys that said so.
#[derive(Clone)]
pub struct Security {
    keys: std::collections::BTreeMap<String, String>,
    client: ClientSecurity,
}

impl Security {
    /// Plain TCP (Kafka's default `security.protocol=PLAINTEXT`).
    pub fn plaintext() -> Security {
        Security {
            keys: Default::default(),
            client: ClientSecurity::plaintext(),
        }
    }

    /// The settings connections use.
    pub fn client(&self) -> &ClientSecurity {
        &self.client
    }

    /// Reads the security keys of a Kafka client configuration.
    pub fn from_properties(props: &Properties) -> Result<Security> {
        let keys: std::collections::BTreeMap<String, String> = props
            .iter()
            .filter(|(k, _)| {
                k.starts_with("ssl.") || k.starts_with("sasl.") || *k == "security.protocol"
            })
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let get = |k: &str| props.get(k).map(str::to_string);
        let client =
            ClientSecurity::from_kafka(&get).map_err(|e| AdminError::Config(e.to_string()))?;
        Ok(Security { keys, client })
    }
}

impl PartialEq for Security {
    fn eq(&self, other: &Self) -> bool {
        self.keys == other.keys
    }
}

impl Eq for Security {}

impl std::fmt::Debug for Security {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.client.fmt(f)
    }
}

impl AdminConfig {
    fn with_bootstrap(bootstrap: Bootstrap) -> Self {
        AdminConfig {
            bootstrap,
            client_id: "kraft-admin".to_owned(),
            request_timeout: Duration::from_millis(30_000),
            default_api_timeout: Duration::from_millis(60_000),
            retry_backoff: Duration::from_millis(100),
            retry_backoff_max: Duration::from_millis(1_000),
            connect_timeout: Duration::from_millis(10_000),
            security: Security::plaintext(),
        }
    }

    /// A configuration bootstrapping from brokers (`bootstrap.servers`), e.g. `"b1:9092,b2:9092"`.
    pub fn bootstrap_servers(list: &str) -> Result<Self> {
        Ok(Self::with_bootstrap(Bootstrap::Servers(
            parse_address_list(list, "bootstrap.servers")?,
        )))
    }

    /// A configuration bootstrapping from controllers (`bootstrap.controllers`), e.g. `"c1:9093"`.
    pub fn bootstrap_controllers(list: &str) -> Result<Self> {
        Ok(Self::with_bootstrap(Bootstrap::Controllers(
            parse_address_list(list, "bootstrap.controllers")?,
        )))
    }

    /// Builds a configuration from Kafka admin client properties.
    ///
    /// Exactly one of `bootstrap.servers` and `bootstrap.controllers` must be
    /// set. Understood keys: `client.id`, `request.timeout.ms`,
    /// `default.api.timeout.ms`, `retry.backoff.ms`, `retry.backoff.max.ms`,
    /// `socket.connection.setup.timeout.ms`, and the security keys
    /// `security.protocol` (PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL),
    /// `ssl.*`, `sasl.mechanism` (PLAIN, SCRAM-SHA-256, SCRAM-SHA-512,
    /// OAUTHBEARER), `sasl.jaas.config` and, for OAUTHBEARER,
    /// `sasl.login.callback.handler.class`, `sasl.oauthbearer.*`; other keys
    /// are ignored, as Kafka ignores unknown configs.
    pub fn from_properties(props: &Properties) -> Result<Self> {
        let servers = props
            .get("bootstrap.servers")
            .filter(|v| !v.trim().is_empty());
        let controllers = props
            .get("bootstrap.controllers")
            .filter(|v| !v.trim().is_empty());
        let mut config = match (servers, controllers) {
            (Some(_), Some(_)) => {
                return Err(AdminError::Config(
                    "You cannot set both bootstrap.servers and bootstrap.controllers.".into(),
                ))
            }
            (Some(s), None) => Self::bootstrap_servers(s)?,
            (None, Some(c)) => Self::bootstrap_controllers(c)?,
            (None, None) => {
                return Err(AdminError::Config(
                    "You must set either bootstrap.servers or bootstrap.controllers".into(),
                ))
            }
        };
        config.security = Security::from_properties(props)?;
        if let Some(id) = props.get("client.id") {
            config.client_id = id.to_owned();
        }
        let ms = |key: &str| -> Result<Option<Duration>> {
            match props.get(key) {
                None => Ok(None),
                Some(v) => v
                    .trim()
                    .parse::<u64>()
                    .map(|n| Some(Duration::from_millis(n)))
                    .map_err(|_| {
                        AdminError::Config(format!(
                            "Invalid value {v} for configuration {key}: Not a number of type LONG"
                        ))
                    }),
            }
        };
        let request_timeout = ms("request.timeout.ms")?;
        if let Some(d) = request_timeout {
            config.request_timeout = d;
        }
        match ms("default.api.timeout.ms")? {
            Some(d) => {
                if let Some(r) = request_timeout {
                    if d < r {
                        return Err(AdminError::Config(format!(
                            "The specified value of default.api.timeout.ms must be no smaller than the value of request.timeout.ms ({} < {}).",
                            d.as_millis(),
                            r.as_millis()
                        )));
                    }
                }
                config.default_api_timeout = d;
            }
            // Kafka raises the default API timeout to the request timeout when only the latter is set.
            None => {
                config.default_api_timeout = config.default_api_timeout.max(config.request_timeout)
            }
        }
        if let Some(d) = ms("retry.backoff.ms")? {
            config.retry_backoff = d;
        }
        if let Some(d) = ms("retry.backoff.max.ms")? {
            config.retry_backoff_max = d;
        }
        if let Some(d) = ms("socket.connection.setup.timeout.ms")? {
            config.connect_timeout = d;
        }
        Ok(config)
    }
}

/// Parses a comma-separated `host:port` list (Kafka's
/// `ClientUtils.parseAndValidateAddresses`); empty entries are skipped.
fn parse_address_list(list: &str, config_name: &str) -> Result<Vec<HostPort>> {
    let mut out = Vec::new();
    for entry in list.split(',').map(str::trim).filter(|e| !e.is_empty()) {
        match HostPort::parse(entry) {
            Some(hp) => out.push(hp),
            None => {
                return Err(AdminError::Config(format!(
                    "Invalid url in {config_name}: {entry}"
                )))
            }
        }
    }
    if out.is_empty() {
        return Err(AdminError::Config(format!(
            "No resolvable bootstrap urls given in {config_name}"
        )));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Properties {
        Properties::parse(text).expect("valid properties")
    }

    #[test]
    fn host_port_forms() {
        assert_eq!(
            HostPort::parse("localhost:9093"),
            Some(HostPort {
                host: "localhost".into(),
                port: 9093
            })
        );
        let v6 = HostPort::parse("[::1]:9093").expect("v6");
        assert_eq!(v6.host, "::1");
        assert_eq!(v6.to_string(), "[::1]:9093");
        assert_eq!(HostPort::parse("nohost"), None);
        assert_eq!(HostPort::parse(":9093"), None);
        assert_eq!(HostPort::parse("h:99999"), None);
        assert!(parse_address_list(" a:1, b:2 ,", "bootstrap.servers").is_ok());
        let err = parse_address_list("a:1,bad", "bootstrap.servers").expect_err("fails");
        assert_eq!(
            err.to_string(),
            "invalid configuration: Invalid url in bootstrap.servers: bad"
        );
    }

    #[test]
    fn from_properties() {
        let c = AdminConfig::from_properties(&parse(
            "bootstrap.controllers=localhost:9093\nrequest.timeout.ms=2000\nclient.id=x\n",
        ))
        .expect("valid");
        assert!(c.bootstrap.is_controllers());
        assert_eq!(c.request_timeout, Duration::from_secs(2));
        assert_eq!(c.default_api_timeout, Duration::from_secs(60));
        assert_eq!(c.client_id, "x");
        assert!(AdminConfig::from_properties(&parse(
            "bootstrap.servers=a:1\nbootstrap.controllers=b:2"
        ))
        .is_err());
        assert!(AdminConfig::from_properties(&parse("client.id=x")).is_err());
        assert!(AdminConfig::from_properties(&parse(
            "bootstrap.servers=a:1\nsecurity.protocol=SSL"
        ))
        .is_err());
        assert!(AdminConfig::from_properties(&parse(
            "bootstrap.servers=a:1\nrequest.timeout.ms=5000\ndefault.api.timeout.ms=1000"
        ))
        .is_err());
    }
}
