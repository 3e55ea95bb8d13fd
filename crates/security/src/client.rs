//! Opening a secured connection to a Kafka node, as Kafka's clients do:
//! TCP, then the TLS handshake (SSL, SASL_SSL), then SASL (SASL_PLAINTEXT,
//! SASL_SSL): SaslHandshake v1 naming the mechanism, then SaslAuthenticate
//! requests until the mechanism completes.
//!
//! The settings come from Kafka's client keys ([`ClientSecurity::from_kafka`]:
//! `security.protocol`, `ssl.*`, `sasl.mechanism`, `sasl.jaas.config` and,
//! for OAUTHBEARER, `sasl.login.callback.handler.class` with
//! `sasl.oauthbearer.token.endpoint.url`) or are built by the caller (a
//! controller uses its controller listener's).

use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::BytesMut;
use kraft_protocol::frame::{FrameDecoder, DEFAULT_MAX_FRAME_SIZE};
use kraft_protocol::header::{decode_response, encode_request_frame};
use kraft_protocol::messages::request_header::RequestHeader;
use kraft_protocol::messages::sasl_authenticate_request::SaslAuthenticateRequest;
use kraft_protocol::messages::sasl_handshake_request::SaslHandshakeRequest;
use kraft_protocol::{ApiKey, ErrorCode, RequestBody, ResponseBody, StrBytes};
use rustls_pki_types::ServerName;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::jaas::{self, JaasEntry};
use crate::sasl::jwks::{self, AllowedUrls};
use crate::sasl::oauthbearer::{
    TokenFile, LOGIN_CALLBACK_HANDLER, OAUTHBEARER_LOGIN_MODULE, SASL_LOGIN_CALLBACK_HANDLER_CLASS,
};
use crate::sasl::{self, Mechanism, SaslClient};
use crate::stream::KafkaStream;
use crate::tls::{self, SslSettings};
use crate::SecurityError;

/// Kafka's `security.protocol` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Protocol {
    /// `PLAINTEXT`
    Plaintext,
    /// `SSL`
    Ssl,
    /// `SASL_PLAINTEXT`
    SaslPlaintext,
    /// `SASL_SSL`
    SaslSsl,
}

impl Protocol {
    /// Parses Kafka's name (case-insensitive).
    pub fn parse(name: &str) -> Option<Protocol> {
        match name.trim().to_ascii_uppercase().as_str() {
            "PLAINTEXT" => Some(Protocol::Plaintext),
            "SSL" => Some(Protocol::Ssl),
            "SASL_PLAINTEXT" => Some(Protocol::SaslPlaintext),
            "SASL_SSL" => Some(Protocol::SaslSsl),
            _ => None,
        }
    }

    /// Kafka's name.
    pub fn name(self) -> &'static str {
        match self {
            Protocol::Plaintext => "PLAINTEXT",
            Protocol::Ssl => "SSL",
            Protocol::SaslPlaintext => "SASL_PLAINTEXT",
            Protocol::SaslSsl => "SASL_SSL",
        }
    }

    /// Whether the protocol runs over TLS.
    pub fn uses_tls(self) -> bool {
        matches!(self, Protocol::Ssl | Protocol::SaslSsl)
    }

    /// Whether the protocol authenticates with SASL.
    pub fn uses_sasl(self) -> bool {
        matches!(self, Protocol::SaslPlaintext | Protocol::SaslSsl)
    }
}

/// How a client secures its connections.
#[derive(Clone)]
pub struct ClientSecurity {
    /// The protocol.
    pub protocol: Protocol,
    /// The TLS client configuration (SSL, SASL_SSL).
    pub tls: Option<Arc<rustls::ClientConfig>>,
    /// The SASL mechanism and the login module giving the credentials
    /// (SASL_PLAINTEXT, SASL_SSL).
    pub sasl: Option<(Mechanism, JaasEntry)>,
    /// OAUTHBEARER with `OAuthBearerLoginCallbackHandler`: the token file
    /// (otherwise the JAAS entry's unsecured token is used).
    pub oauth_token: Option<Arc<TokenFile>>,
}

impl std::fmt::Debug for ClientSecurity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientSecurity")
            .field("protocol", &self.protocol)
            .field("tls", &self.tls.is_some())
            .field("sasl", &self.sasl.as_ref().map(|(m, _)| m.name()))
            .finish()
    }
}

/// The client keys [`ClientSecurity::from_kafka`] reads besides `ssl.*`.
pub const CLIENT_KEYS: &[&str] = &[
    "security.protocol",
    "sasl.mechanism",
    "sasl.jaas.config",
    SASL_LOGIN_CALLBACK_HANDLER_CLASS,
    jwks::TOKEN_ENDPOINT_URL,
    jwks::SUB_CLAIM_NAME,
    jwks::SCOPE_CLAIM_NAME,
];

impl ClientSecurity {
    /// Plain TCP.
    pub fn plaintext() -> ClientSecurity {
        ClientSecurity {
            protocol: Protocol::Plaintext,
            tls: None,
            sasl: None,
            oauth_token: None,
        }
    }

    /// Whether connections are plain TCP without authentication.
    pub fn is_plaintext(&self) -> bool {
        self.protocol == Protocol::Plaintext
    }

    /// Builds the settings from parts: `ssl` for SSL and SASL_SSL, `sasl`
    /// for the SASL protocols.
    pub fn new(
        protocol: Protocol,
        ssl: Option<&SslSettings>,
        sasl: Option<(Mechanism, JaasEntry)>,
    ) -> Result<ClientSecurity, SecurityError> {
        ClientSecurity::build(protocol, ssl, sasl, None)
    }

    fn build(
        protocol: Protocol,
        ssl: Option<&SslSettings>,
        sasl: Option<(Mechanism, JaasEntry)>,
        oauth_token: Option<Arc<TokenFile>>,
    ) -> Result<ClientSecurity, SecurityError> {
        let tls = if protocol.uses_tls() {
            let Some(ssl) = ssl else {
                return Err(SecurityError::config(
                    "security.protocol",
                    format!("{} needs TLS settings", protocol.name()),
                ));
            };
            Some(tls::client_config(ssl)?)
        } else {
            None
        };
        let sasl = if protocol.uses_sasl() {
            let Some((mechanism, entry)) = sasl else {
                return Err(SecurityError::config(
                    "sasl.mechanism",
                    format!("{} needs a SASL mechanism and credentials", protocol.name()),
                ));
            };
            // Fail now, not at the first connection.
            if oauth_token.is_none() {
                sasl::new_client(mechanism, &entry)?;
            }
            Some((mechanism, entry))
        } else {
            None
        };
        Ok(ClientSecurity {
            protocol,
            tls,
            sasl,
            oauth_token,
        })
    }

    /// Reads Kafka's client keys through `get`: `security.protocol`
    /// (default PLAINTEXT), the `ssl.*` keys, `sasl.mechanism` (default
    /// GSSAPI, which is refused) and `sasl.jaas.config`. With OAUTHBEARER:
    /// `sasl.login.callback.handler.class` unset means Kafka's unsecured
    /// login (a token made from the JAAS options);
    /// `org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginCallbackHandler`
    /// reads the token from the `file:` URL in
    /// `sasl.oauthbearer.token.endpoint.url`, which must be allowed as
    /// [`AllowedUrls::from_env`] says.
    pub fn from_kafka(
        get: &dyn Fn(&str) -> Option<String>,
    ) -> Result<ClientSecurity, SecurityError> {
        let raw = get("security.protocol").unwrap_or_else(|| "PLAINTEXT".to_string());
        let protocol = Protocol::parse(&raw).ok_or_else(|| {
            SecurityError::config(
                "security.protocol",
                format!(
                    "No enum constant org.apache.kafka.common.security.auth.SecurityProtocol.{}",
                    raw.trim()
                ),
            )
        })?;
        let ssl = if protocol.uses_tls() {
            Some(SslSettings::from_kafka(get)?)
        } else {
            None
        };
        let sasl = if protocol.uses_sasl() {
            let name = get("sasl.mechanism").unwrap_or_else(|| "GSSAPI".to_string());
            let mechanism = match Mechanism::parse(name.trim()) {
                Some(
                    m @ (Mechanism::Plain
                    | Mechanism::ScramSha256
                    | Mechanism::ScramSha512
                    | Mechanism::OAuthBearer),
                ) => m,
                Some(Mechanism::Gssapi) => {
                    return Err(SecurityError::config(
                        "sasl.mechanism",
                        "GSSAPI (Kerberos, Kafka's default) is not supported; set sasl.mechanism to PLAIN, SCRAM-SHA-256, SCRAM-SHA-512 or OAUTHBEARER",
                    ))
                }
                None => {
                    return Err(SecurityError::config(
                        "sasl.mechanism",
                        format!(
                            "{} is not supported; use PLAIN, SCRAM-SHA-256, SCRAM-SHA-512 or OAUTHBEARER",
                            name.trim()
                        ),
                    ))
                }
            };
            let Some(value) = get("sasl.jaas.config") else {
                return Err(SecurityError::config(
                    "sasl.jaas.config",
                    "not set: a SASL client needs its login module line (JAAS files are not read)",
                ));
            };
            Some((mechanism, jaas::parse_single(&value)?))
        } else {
            None
        };
        let oauth_token = match &sasl {
            Some((Mechanism::OAuthBearer, entry)) => oauth_login(get, entry)?,
            _ => None,
        };
        ClientSecurity::build(protocol, ssl.as_ref(), sasl, oauth_token)
    }
}

/// The OAUTHBEARER login of a client configuration: `None` for Kafka's
/// default unsecured login, the token file for
/// `OAuthBearerLoginCallbackHandler`; any other handler is refused.
fn oauth_login(
    get: &dyn Fn(&str) -> Option<String>,
    entry: &JaasEntry,
) -> Result<Option<Arc<TokenFile>>, SecurityError> {
    if entry.login_module != OAUTHBEARER_LOGIN_MODULE {
        return Err(SecurityError::config(
            "sasl.jaas.config",
            format!(
                "names login module {}; SASL mechanism OAUTHBEARER needs {OAUTHBEARER_LOGIN_MODULE}",
                entry.login_module
            ),
        ));
    }
    let handler = get(SASL_LOGIN_CALLBACK_HANDLER_CLASS)
        .map(|v| v.trim().to_owned())
        .filter(|v| !v.is_empty());
    match handler.as_deref() {
        None => Ok(None),
        Some(LOGIN_CALLBACK_HANDLER) => Ok(Some(Arc::new(TokenFile::from_kafka(
            get,
            entry,
            &AllowedUrls::from_env(),
        )?))),
        Some(other) => Err(SecurityError::config(
            SASL_LOGIN_CALLBACK_HANDLER_CLASS,
            format!(
                "{other}: kraft-rs runs Kafka's unsecured OAUTHBEARER login (key unset) or \
                 {LOGIN_CALLBACK_HANDLER} with a file: token URL; other login callback handlers \
                 are Java classes it cannot load"
            ),
        )),
    }
}

/// A connection that failed to open.
#[derive(Debug, thiserror::Error)]
pub enum ConnectError {
    /// TCP or TLS I/O.
    #[error("{0}")]
    Io(#[from] std::io::Error),
    /// The TLS handshake failed (e.g. an untrusted certificate).
    #[error("SSL handshake failed: {0}")]
    Tls(String),
    /// The server refused the authentication.
    #[error("{0}")]
    Authentication(String),
    /// The server does not speak the expected protocol (e.g. a plaintext
    /// port answering a TLS client, or the reverse).
    #[error("{0}")]
    Protocol(String),
}

/// An open connection and, when the server gave the SASL session a
/// lifetime (KIP-368), when it ends.
#[derive(Debug)]
pub struct Connection {
    /// The stream, ready for Kafka requests.
    pub stream: KafkaStream,
    /// When the server will stop serving requests on it unless the client
    /// re-authenticates.
    pub session_expires: Option<Instant>,
}

/// Connects to `host:port` and secures the connection as `security` says.
pub async fn connect(
    host: &str,
    port: u16,
    security: &ClientSecurity,
    client_id: &str,
) -> Result<Connection, ConnectError> {
    let tcp = TcpStream::connect((host, port)).await?;
    tcp.set_nodelay(true)?;
    let mut stream = match &security.tls {
        None => KafkaStream::Plain(tcp),
        Some(config) => {
            let name = ServerName::try_from(host.to_string())
                .map_err(|e| ConnectError::Tls(format!("invalid server name {host}: {e}")))?;
            let connector = tokio_rustls::TlsConnector::from(config.clone());
            match connector.connect(name, tcp).await {
                Ok(s) => KafkaStream::ClientTls(Box::new(s)),
                Err(e) => return Err(describe_tls_failure(e)),
            }
        }
    };
    let mut session_expires = None;
    if let Some((mechanism, entry)) = &security.sasl {
        let client: Box<dyn SaslClient> = match (&security.oauth_token, mechanism) {
            (Some(file), Mechanism::OAuthBearer) => Box::new(
                file.client()
                    .map_err(|e| ConnectError::Authentication(e.to_string()))?,
            ),
            _ => sasl::new_client(*mechanism, entry)
                .map_err(|e| ConnectError::Authentication(e.to_string()))?,
        };
        session_expires = authenticate(&mut stream, *mechanism, client, client_id).await?;
    }
    Ok(Connection {
        stream,
        session_expires,
    })
}

/// Explains a TLS handshake failure; a peer that answers a ClientHello
/// with something that is not TLS is most likely a plaintext listener.
fn describe_tls_failure(e: std::io::Error) -> ConnectError {
    let text = e.to_string();
    if text.contains("InvalidContentType")
        || text.contains("invalid content type")
        || text.contains("corrupt message")
        || e.kind() == std::io::ErrorKind::UnexpectedEof
    {
        ConnectError::Tls(format!(
            "{text} (is the server's listener PLAINTEXT or SASL_PLAINTEXT rather than SSL?)"
        ))
    } else {
        ConnectError::Tls(text)
    }
}

/// Largest frame accepted during authentication.
const MAX_AUTH_FRAME: usize = 1 << 20;

async fn roundtrip(
    stream: &mut KafkaStream,
    api: ApiKey,
    version: i16,
    correlation_id: i32,
    client_id: &str,
    body: &RequestBody,
) -> Result<ResponseBody, ConnectError> {
    let header = RequestHeader {
        request_api_key: api.id(),
        request_api_version: version,
        correlation_id,
        client_id: Some(StrBytes::from(client_id)),
        ..Default::default()
    };
    let mut out = Vec::new();
    encode_request_frame(&mut out, &header, body)
        .map_err(|e| ConnectError::Protocol(format!("cannot encode {api:?}: {e}")))?;
    stream.write_all(&out).await?;
    let mut decoder = FrameDecoder::new(MAX_AUTH_FRAME.min(DEFAULT_MAX_FRAME_SIZE));
    let mut buf = BytesMut::with_capacity(1024);
    let frame = loop {
        match decoder.decode(&mut buf) {
            Ok(Some(frame)) => break frame,
            Ok(None) => {}
            Err(e) => {
                return Err(ConnectError::Protocol(format!(
                    "the server's answer to {} is not a Kafka response ({e}); does the listener use the security protocol configured here?",
                    api.kafka_name()
                )))
            }
        }
        if stream.read_buf(&mut buf).await? == 0 {
            return Err(ConnectError::Protocol(format!(
                "the server closed the connection during {} (is its listener of another security protocol, or is the mechanism not enabled?)",
                api.kafka_name()
            )));
        }
    };
    let (correlation, response) = decode_response(frame, api, version).map_err(|e| {
        ConnectError::Protocol(format!(
            "cannot decode the {} response: {e}",
            api.kafka_name()
        ))
    })?;
    if correlation != correlation_id {
        return Err(ConnectError::Protocol(format!(
            "correlation id {correlation} in the answer to {correlation_id}"
        )));
    }
    Ok(response)
}

async fn authenticate(
    stream: &mut KafkaStream,
    mechanism: Mechanism,
    mut client: Box<dyn SaslClient>,
    client_id: &str,
) -> Result<Option<Instant>, ConnectError> {
    let handshake = RequestBody::SaslHandshake(SaslHandshakeRequest {
        mechanism: StrBytes::from(mechanism.name()),
    });
    let response = roundtrip(stream, ApiKey::SaslHandshake, 1, 0, client_id, &handshake).await?;
    let ResponseBody::SaslHandshake(r) = response else {
        return Err(ConnectError::Protocol(
            "SaslHandshake answered with another API".into(),
        ));
    };
    if r.error_code != ErrorCode::None.code() {
        let enabled: Vec<String> = r.mechanisms.iter().map(|m| m.to_string()).collect();
        return Err(ConnectError::Authentication(
            if r.error_code == ErrorCode::UnsupportedSaslMechanism.code() {
                format!(
                "Client SASL mechanism '{}' not enabled in the server, enabled mechanisms are {enabled:?}",
                mechanism.name()
            )
            } else {
                format!("SaslHandshake failed with error code {}", r.error_code)
            },
        ));
    }
    let mut token = client
        .initial_response()
        .map_err(|f| ConnectError::Authentication(f.message))?;
    let mut correlation = 1;
    loop {
        let request = RequestBody::SaslAuthenticate(SaslAuthenticateRequest {
            auth_bytes: bytes::Bytes::from(token),
            ..Default::default()
        });
        let started = Instant::now();
        let response = roundtrip(
            stream,
            ApiKey::SaslAuthenticate,
            1,
            correlation,
            client_id,
            &request,
        )
        .await?;
        correlation += 1;
        let ResponseBody::SaslAuthenticate(r) = response else {
            return Err(ConnectError::Protocol(
                "SaslAuthenticate answered with another API".into(),
            ));
        };
        if r.error_code != ErrorCode::None.code() {
            let mut message = r.error_message.map(|m| m.to_string()).unwrap_or_else(|| {
                format!("SaslAuthenticate failed with error code {}", r.error_code)
            });
            if mechanism == Mechanism::OAuthBearer && message.starts_with("{\"status\"") {
                // Kafka's text is the RFC 7628 error status alone.
                message.push_str(" (the server refused the OAUTHBEARER token; its log says why)");
            }
            return Err(ConnectError::Authentication(message));
        }
        let next = client
            .evaluate_challenge(&r.auth_bytes)
            .map_err(|f| ConnectError::Authentication(f.message))?;
        if client.is_complete() {
            let expires = (r.session_lifetime_ms > 0).then(|| {
                started + Duration::from_millis(u64::try_from(r.session_lifetime_ms).unwrap_or(0))
            });
            return Ok(expires);
        }
        match next {
            Some(t) => token = t,
            None => {
                return Err(ConnectError::Authentication(
                    "the SASL exchange ended before the mechanism completed".into(),
                ))
            }
        }
    }
}
