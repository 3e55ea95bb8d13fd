//! The controller's network server: one tokio TCP listener per configured
//! controller listener, Kafka framing, request header parsing and dispatch
//! to a [`RequestHandler`].
//!
//! Behaviour on a connection, as Kafka's socket server does it:
//!
//! * requests are processed one at a time and answered in request order
//!   (Kafka mutes a connection while a request is in flight); pipelined
//!   requests wait in the read buffer;
//! * a frame whose declared size is negative or above the maximum, a header
//!   that does not parse, an unknown API key, an API or version the handler
//!   does not serve, or a body that does not decode closes **that**
//!   connection only;
//! * ApiVersions at a version the server does not know is answered anyway:
//!   response header v0 and a v0 body with `UNSUPPORTED_VERSION` and a single
//!   `ApiKeys` entry for ApiVersions (KIP-511).
//!
//! Security, per listener (see [`crate::config::transport`]): TLS first
//! (SSL, SASL_SSL), then SASL (SASL_PLAINTEXT, SASL_SSL; see [`sasl`]). A
//! connection that has not completed both within
//! [`ServerConfig::authentication_timeout`] is closed ([`AUTHENTICATION_TIMEOUT`],
//! or `connections.max.idle.ms` when shorter: Kafka closes connections idle
//! that long, authenticated or not; kraft-rs applies it while they
//! authenticate), and so is a re-authentication (KIP-368) not completed
//! within it. The principal is the SASL user, else the mapped subject of the
//! client certificate, else `User:ANONYMOUS`; it is logged per connection at
//! debug level and is what the authorizer sees. Key and trust store files
//! are read again every [`CERTIFICATE_RELOAD_INTERVAL`]: a changed
//! certificate is used for new connections, existing ones keep theirs.
//!
//! [`ControllerServer::shutdown`] stops accepting, lets every connection
//! finish the request it is processing (its response is still written) and
//! closes them.

use std::collections::HashMap;
use std::io;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::Arc;

use async_trait::async_trait;
use bytes::{Bytes, BytesMut};
use kraft_protocol::frame::{encode_frame_with, FrameDecoder};
use kraft_protocol::header::decode_request_header;
use kraft_protocol::messages::api_versions_response::{ApiVersion, ApiVersionsResponse};
use kraft_protocol::messages::request_header::RequestHeader;
use kraft_protocol::messages::response_header::ResponseHeader;
use kraft_protocol::{ApiKey, Encodable, EncodeError, ErrorCode, RequestBody, ResponseBody};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;
use tokio::task::JoinSet;

use crate::config::transport::{ListenerSecurity, OAuthBearerSettings};
use crate::config::{ControllerConfig, SecurityProtocol};
use crate::handlers::Caller;
use kraft_protocol::acl::KafkaPrincipal;
use kraft_security::principal::tls_principal_name;
use kraft_security::sasl::jwks::{AllowedUrls, JwtValidator};
use kraft_security::sasl::oauthbearer::TokenValidator;
use kraft_security::sasl::{CredentialSource, NoCredentials, SaslServerConfig};
use kraft_security::stream::KafkaStream;
use kraft_security::tls::ServerTls;

mod connection_quotas;
pub(crate) mod rate;
pub mod sasl;

use connection_quotas::{ConnectionQuotas, ConnectionSlot, Refused};
use sasl::{SaslListener, SaslSession, Step};

/// The longest a new connection may take to finish its TLS handshake and
/// SASL authentication before it is closed (`connections.max.idle.ms`
/// shortens it).
pub const AUTHENTICATION_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(30);

/// How often key and trust store files are checked for changes.
pub const CERTIFICATE_RELOAD_INTERVAL: std::time::Duration = std::time::Duration::from_secs(5);

/// Who sent a request and how.
#[derive(Debug, Clone, PartialEq)]
pub struct RequestContext {
    /// The request header as read (a null client id is kept as `None`;
    /// Kafka treats it as "").
    pub header: RequestHeader,
    /// The API.
    pub api_key: ApiKey,
    /// The request (and response) version.
    pub api_version: i16,
    /// The listener the request arrived on (e.g. `CONTROLLER`).
    pub listener_name: String,
    /// The client's address.
    pub peer_addr: Option<SocketAddr>,
    /// The authenticated principal: `User:ANONYMOUS` on a PLAINTEXT
    /// listener; for a forwarded request, the client's principal the
    /// envelope carries.
    pub principal: KafkaPrincipal,
    /// Whether the request came inside an Envelope (Kafka's
    /// `request.isForwarded`).
    pub forwarded: bool,
    /// Whether the principal authenticated with a delegation token
    /// (Kafka's `KafkaPrincipal.tokenAuthenticated`; for a forwarded
    /// request, as the envelope's principal says).
    pub token_authenticated: bool,
    /// The listener's security protocol (for a forwarded request, the
    /// envelope's).
    pub security_protocol: SecurityProtocol,
}

impl RequestContext {
    /// The principal and client address the authorizer sees.
    pub fn caller(&self) -> Caller {
        Caller {
            principal: self.principal.clone(),
            host: self
                .peer_addr
                .map_or(IpAddr::V4(Ipv4Addr::UNSPECIFIED), |a| a.ip()),
        }
    }
}

/// A request the handler refuses to answer: the server closes the connection.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct CloseConnection(pub String);

/// An API and the versions a handler serves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ApiRange {
    /// The API.
    pub api_key: ApiKey,
    /// Lowest version served.
    pub min_version: i16,
    /// Highest version served.
    pub max_version: i16,
}

/// What the server dispatches decoded requests to.
#[async_trait]
pub trait RequestHandler: Send + Sync + 'static {
    /// The APIs and versions served (and advertised by ApiVersions).
    /// Requests outside these ranges close the connection, except
    /// ApiVersions, which is answered at any version.
    fn supported_apis(&self) -> Vec<ApiRange>;

    /// Handles one request. The response must be of the request's API; it
    /// is written at the request's version. An error closes the connection.
    async fn handle(
        &self,
        ctx: RequestContext,
        request: RequestBody,
    ) -> Result<ResponseBody, CloseConnection>;

    /// Resolves when listeners that are not early-start may accept
    /// connections (Kafka: once the authorizer has loaded its ACLs). The
    /// default is at once.
    async fn wait_until_ready(&self) {}
}

/// One listener to bind.
#[derive(Debug, Clone)]
pub struct ListenerSpec {
    /// Listener name (as in `controller.listener.names`).
    pub name: String,
    /// Host or IP to bind; empty = all interfaces.
    pub host: String,
    /// Port; 0 = ephemeral.
    pub port: u16,
    /// Whether it accepts connections before the handler is ready
    /// (`early.start.listeners`); otherwise it is bound at once and accepts
    /// once [`RequestHandler::wait_until_ready`] resolves.
    pub early_start: bool,
    /// TLS and SASL of the listener; `None` for PLAINTEXT.
    pub security: Option<ListenerSecurity>,
}

/// Server settings.
#[derive(Clone)]
pub struct ServerConfig {
    /// Listeners to bind.
    pub listeners: Vec<ListenerSpec>,
    /// The largest request frame accepted (`socket.request.max.bytes`).
    pub max_frame_size: usize,
    /// Where SCRAM logins find credentials and delegation tokens (the
    /// metadata image); `None`: no SCRAM credential exists.
    pub credentials: Option<Arc<dyn CredentialSource>>,
    /// How long a connection may take to complete TLS and SASL (and a
    /// re-authentication) before it is closed.
    pub authentication_timeout: std::time::Duration,
    /// Socket options of the listeners and the close delay after a failed
    /// authentication.
    pub sockets: SocketOptions,
    /// `max.connections`, `max.connections.per.ip` and their overrides,
    /// and the connection creation rates.
    pub connections: crate::config::connections::ConnectionLimits,
    /// Where an address's `connection_creation_rate` quota is read (the
    /// metadata image's client quotas); `None`: no address has one.
    pub ip_connection_rates: Option<Arc<dyn Fn(IpAddr) -> Option<u32> + Send + Sync>>,
}

/// Kafka's `socket.*` options of a server socket and
/// `connection.failed.authentication.delay.ms`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SocketOptions {
    /// SO_SNDBUF of accepted connections; `None`: the OS default.
    pub send_buffer_bytes: Option<u32>,
    /// SO_RCVBUF of accepted connections; `None`: the OS default.
    pub receive_buffer_bytes: Option<u32>,
    /// The listen backlog.
    pub listen_backlog: u32,
    /// How long a connection stays open after its SASL authentication
    /// failed (the failure answered first).
    pub failed_authentication_delay: std::time::Duration,
}

impl Default for SocketOptions {
    /// Kafka's defaults.
    fn default() -> Self {
        SocketOptions {
            send_buffer_bytes: Some(102_400),
            receive_buffer_bytes: Some(102_400),
            listen_backlog: 50,
            failed_authentication_delay: std::time::Duration::from_millis(100),
        }
    }
}

impl SocketOptions {
    /// The options a controller's configuration sets (-1 buffers: the OS
    /// default).
    pub fn from_controller_config(config: &ControllerConfig) -> SocketOptions {
        let buffer = |v: i32| u32::try_from(v).ok().filter(|v| *v > 0);
        SocketOptions {
            send_buffer_bytes: buffer(config.socket_send_buffer_bytes),
            receive_buffer_bytes: buffer(config.socket_receive_buffer_bytes),
            listen_backlog: u32::try_from(config.socket_listen_backlog_size).unwrap_or(1),
            failed_authentication_delay: std::time::Duration::from_millis(
                u64::try_from(config.connection_failed_authentication_delay_ms).unwrap_or(0),
            ),
        }
    }
}

/// Binds a listening socket to `host:port` (every address the name
/// resolves to is tried in turn) with the buffer sizes, which accepted
/// connections inherit, keep-alive and the backlog of `options`.
pub async fn bind_listener(
    host: &str,
    port: u16,
    options: &SocketOptions,
) -> io::Result<TcpListener> {
    let mut last = None;
    for addr in tokio::net::lookup_host((host, port)).await? {
        let bound = (|| {
            let socket = if addr.is_ipv4() {
                tokio::net::TcpSocket::new_v4()?
            } else {
                tokio::net::TcpSocket::new_v6()?
            };
            socket.set_reuseaddr(true)?;
            socket.set_keepalive(true)?;
            if let Some(n) = options.send_buffer_bytes {
                socket.set_send_buffer_size(n)?;
            }
            if let Some(n) = options.receive_buffer_bytes {
                socket.set_recv_buffer_size(n)?;
            }
            socket.bind(addr)?;
            socket.listen(options.listen_backlog)
        })();
        match bound {
            Ok(listener) => return Ok(listener),
            Err(e) => last = Some(e),
        }
    }
    Err(last.unwrap_or_else(|| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{host} resolves to no address"),
        )
    }))
}

impl std::fmt::Debug for ServerConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServerConfig")
            .field("listeners", &self.listeners)
            .field("max_frame_size", &self.max_frame_size)
            .field("credentials", &self.credentials.is_some())
            .field("authentication_timeout", &self.authentication_timeout)
            .finish()
    }
}

/// A listener's TLS and SASL state while the server runs.
#[derive(Debug)]
struct ListenerRuntime {
    protocol: SecurityProtocol,
    tls: Option<Arc<ServerTls>>,
    sasl: Option<Arc<SaslListener>>,
}

impl ListenerRuntime {
    fn build(
        spec: &ListenerSpec,
        credentials: &Option<Arc<dyn CredentialSource>>,
    ) -> io::Result<ListenerRuntime> {
        let Some(security) = &spec.security else {
            return Ok(ListenerRuntime {
                protocol: SecurityProtocol::Plaintext,
                tls: None,
                sasl: None,
            });
        };
        let tls = match &security.ssl {
            None => None,
            Some(ssl) => Some(Arc::new(ServerTls::new(ssl).map_err(|e| {
                io::Error::new(
                    io::ErrorKind::InvalidInput,
                    format!("listener {}: {e}", spec.name),
                )
            })?)),
        };
        let sasl = match &security.sasl {
            None => None,
            Some(settings) => {
                let oauthbearer = match &settings.oauthbearer {
                    None => None,
                    Some(OAuthBearerSettings::Unsecured(options)) => {
                        Some(TokenValidator::Unsecured(options.clone()))
                    }
                    Some(OAuthBearerSettings::Jwt { config, jaas }) => {
                        let validator = JwtValidator::start(config, jaas, &AllowedUrls::from_env())
                            .map_err(|e| {
                                io::Error::new(
                                    io::ErrorKind::InvalidInput,
                                    format!("listener {}: {e}", spec.name),
                                )
                            })?;
                        Some(TokenValidator::Jwt(Arc::new(validator)))
                    }
                };
                Some(Arc::new(SaslListener {
                    settings: settings.clone(),
                    server_config: SaslServerConfig {
                        plain_users: settings.plain_users.clone(),
                        credentials: credentials
                            .clone()
                            .unwrap_or_else(|| Arc::new(NoCredentials)),
                        now_ms: crate::format::now_ms,
                    },
                    oauthbearer,
                }))
            }
        };
        Ok(ListenerRuntime {
            protocol: security.protocol,
            tls,
            sasl,
        })
    }
}

impl ServerConfig {
    /// The controller listeners of `config` (`listeners` entries named in
    /// `controller.listener.names`) with their TLS and SASL settings, and
    /// `socket.request.max.bytes`. No SCRAM credentials: see
    /// [`ServerConfig::with_credentials`].
    pub fn from_controller_config(config: &ControllerConfig) -> ServerConfig {
        ServerConfig {
            listeners: config
                .controller_listeners()
                .into_iter()
                .map(|l| ListenerSpec {
                    name: l.name.clone(),
                    host: l.host.clone().unwrap_or_default(),
                    port: l.port,
                    early_start: config
                        .security
                        .is_early_start(&l.name, &config.controller_listener_names),
                    security: config
                        .transport
                        .listener(&l.name)
                        .filter(|s| s.ssl.is_some() || s.sasl.is_some())
                        .cloned(),
                })
                .collect(),
            max_frame_size: usize::try_from(config.socket_request_max_bytes).unwrap_or(usize::MAX),
            credentials: None,
            authentication_timeout: authentication_timeout(config.connections_max_idle_ms),
            sockets: SocketOptions::from_controller_config(config),
            connections: config.connection_limits.clone(),
            ip_connection_rates: None,
        }
    }

    /// The same settings with each address's connection creation rate
    /// quota read from `image` at every new connection.
    pub fn with_ip_connection_rates(mut self, image: crate::image::SharedImage) -> ServerConfig {
        self.ip_connection_rates = Some(Arc::new(move |ip| {
            image.read().client_quotas().ip_connection_creation_rate(ip)
        }));
        self
    }

    /// The same settings with SCRAM logins checked against `credentials`.
    pub fn with_credentials(mut self, credentials: Arc<dyn CredentialSource>) -> ServerConfig {
        self.credentials = Some(credentials);
        self
    }
}

/// [`AUTHENTICATION_TIMEOUT`], or `connections.max.idle.ms` when that is
/// shorter (a negative value is Kafka's "no idle limit").
pub fn authentication_timeout(connections_max_idle_ms: i64) -> std::time::Duration {
    match u64::try_from(connections_max_idle_ms) {
        Ok(ms) => AUTHENTICATION_TIMEOUT.min(std::time::Duration::from_millis(ms)),
        Err(_) => AUTHENTICATION_TIMEOUT,
    }
}

/// A running server.
#[derive(Debug)]
pub struct ControllerServer {
    bound: Vec<(String, SocketAddr)>,
    shutdown: watch::Sender<bool>,
    accept_tasks: JoinSet<()>,
}

/// Triggers a graceful shutdown of a [`ControllerServer`] from anywhere.
#[derive(Debug, Clone)]
pub struct ShutdownHandle(watch::Sender<bool>);

impl ShutdownHandle {
    /// Starts the shutdown (idempotent).
    pub fn shutdown(&self) {
        self.0.send_replace(true);
    }
}

impl ControllerServer {
    /// Binds every listener and starts serving.
    pub async fn start(
        config: ServerConfig,
        handler: Arc<dyn RequestHandler>,
    ) -> io::Result<ControllerServer> {
        let (tx, _) = watch::channel(false);
        let mut bound = Vec::new();
        let mut accept_tasks = JoinSet::new();
        let max_frame = config.max_frame_size;
        let auth_timeout = config.authentication_timeout;
        let sockets = config.sockets;
        let quotas = ConnectionQuotas::new(
            config.connections.clone(),
            config.ip_connection_rates.clone(),
        );
        for spec in &config.listeners {
            let runtime = Arc::new(ListenerRuntime::build(spec, &config.credentials)?);
            let host = if spec.host.is_empty() {
                "0.0.0.0"
            } else {
                spec.host.as_str()
            };
            let listener = bind_listener(host, spec.port, &sockets)
                .await
                .map_err(|e| {
                    io::Error::new(
                        e.kind(),
                        format!(
                            "cannot bind listener {} to {host}:{}: {e}",
                            spec.name, spec.port
                        ),
                    )
                })?;
            let addr = listener.local_addr()?;
            tracing::info!(listener = %spec.name, %addr, "controller listener bound");
            bound.push((spec.name.clone(), addr));
            let handler = handler.clone();
            let name = spec.name.clone();
            let shutdown = tx.subscribe();
            let early_start = spec.early_start;
            let quotas = quotas.clone();
            if let Some(tls) = runtime.tls.clone() {
                accept_tasks.spawn(reload_certificates(tls, spec.name.clone(), tx.subscribe()));
            }
            accept_tasks.spawn(async move {
                let mut gate = shutdown.clone();
                if !early_start {
                    tokio::select! {
                        _ = until_shutdown(&mut gate) => return,
                        () = handler.wait_until_ready() => {}
                    }
                    tracing::info!(listener = %name, "listener accepting: the handler is ready");
                }
                let limits = Limits {
                    max_frame,
                    auth_timeout,
                    failed_auth_delay: sockets.failed_authentication_delay,
                };
                let accepting = Accepting {
                    name,
                    runtime,
                    handler,
                    limits,
                    quotas,
                };
                accept_loop(listener, accepting, shutdown).await;
            });
        }
        Ok(ControllerServer {
            bound,
            shutdown: tx,
            accept_tasks,
        })
    }

    /// The bound address of listener `name`.
    pub fn local_addr(&self, name: &str) -> Option<SocketAddr> {
        self.bound.iter().find(|(n, _)| n == name).map(|(_, a)| *a)
    }

    /// Every listener name with its bound address.
    pub fn local_addrs(&self) -> &[(String, SocketAddr)] {
        &self.bound
    }

    /// A handle that can trigger the shutdown from another task.
    pub fn shutdown_handle(&self) -> ShutdownHandle {
        ShutdownHandle(self.shutdown.clone())
    }

    /// Stops accepting, waits for connections to finish their in-flight
    /// request and closes them.
    pub async fn shutdown(mut self) {
        self.shutdown.send_replace(true);
        while self.accept_tasks.join_next().await.is_some() {}
    }

    /// Waits until a shutdown is triggered (through a [`ShutdownHandle`])
    /// and completed.
    pub async fn wait(mut self) {
        let mut rx = self.shutdown.subscribe();
        until_shutdown(&mut rx).await;
        while self.accept_tasks.join_next().await.is_some() {}
    }
}

/// Kafka's delayed close after a failed authentication: waits `delay`, or
/// less when the server shuts down.
async fn delay_close(delay: std::time::Duration, shutdown: &mut watch::Receiver<bool>) {
    if delay.is_zero() {
        return;
    }
    tokio::select! {
        () = tokio::time::sleep(delay) => {}
        _ = until_shutdown(shutdown) => {}
    }
}

/// Resolves once a shutdown was signalled (or the server is gone).
async fn until_shutdown(rx: &mut watch::Receiver<bool>) {
    let _ = rx.wait_for(|s| *s).await;
}

/// Checks the listener's key and trust store files every
/// [`CERTIFICATE_RELOAD_INTERVAL`] until shutdown.
async fn reload_certificates(
    tls: Arc<ServerTls>,
    listener: String,
    mut shutdown: watch::Receiver<bool>,
) {
    let mut tick = tokio::time::interval(CERTIFICATE_RELOAD_INTERVAL);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            _ = until_shutdown(&mut shutdown) => return,
            _ = tick.tick() => {}
        }
        let tls = tls.clone();
        match tokio::task::spawn_blocking(move || tls.reload_if_changed()).await {
            Ok(Ok(true)) => {
                tracing::info!(listener = %listener, "reloaded the listener's key and trust stores: new connections use them");
            }
            Ok(Ok(false)) => {}
            Ok(Err(e)) => {
                tracing::error!(listener = %listener, error = %e, "cannot reload the listener's key or trust store; keeping the current ones");
            }
            Err(e) => {
                tracing::error!(listener = %listener, error = %e, "certificate reload task failed");
            }
        }
    }
}

/// Per-connection limits of a listener.
#[derive(Debug, Clone, Copy)]
struct Limits {
    /// The largest request frame once authenticated.
    max_frame: usize,
    /// How long TLS and SASL (or a re-authentication) may take.
    auth_timeout: std::time::Duration,
    /// How long a connection stays open after a failed SASL
    /// authentication.
    failed_auth_delay: std::time::Duration,
}

/// What one listener's accept loop serves its connections with.
struct Accepting {
    name: String,
    runtime: Arc<ListenerRuntime>,
    handler: Arc<dyn RequestHandler>,
    limits: Limits,
    quotas: Arc<ConnectionQuotas>,
}

async fn accept_loop(
    listener: TcpListener,
    accepting: Accepting,
    mut shutdown: watch::Receiver<bool>,
) {
    let Accepting {
        name,
        runtime,
        handler,
        limits,
        quotas,
    } = accepting;
    let mut connections = JoinSet::new();
    let for_connections = shutdown.clone();
    loop {
        tokio::select! {
            _ = until_shutdown(&mut shutdown) => break,
            accepted = listener.accept() => match accepted {
                Ok((stream, peer)) => {
                    // As Kafka's acceptor: wait for a listener and server
                    // slot (taking no other connection meanwhile), then
                    // count the connection against its address.
                    let admitted = tokio::select! {
                        _ = until_shutdown(&mut shutdown) => break,
                        admitted = quotas.admit(&name, peer.ip()) => admitted,
                    };
                    let slot = match admitted {
                        Ok(slot) => slot,
                        Err(Refused::TooMany(refused)) => {
                            tracing::info!(listener = %name, %peer, "{refused}");
                            drop(stream);
                            continue;
                        }
                        Err(Refused::Throttled { ip, throttle }) => {
                            // Kafka holds the connection, unread, until
                            // the throttle time has passed, then closes it.
                            tracing::debug!(
                                listener = %name,
                                "Delaying closing of connection from /{ip} for {} ms",
                                throttle.as_millis()
                            );
                            let mut shutdown = for_connections.clone();
                            connections.spawn(async move {
                                tokio::select! {
                                    _ = tokio::time::sleep(throttle) => {}
                                    _ = until_shutdown(&mut shutdown) => {}
                                }
                                drop(stream);
                            });
                            continue;
                        }
                    };
                    let _ = stream.set_nodelay(true);
                    connections.spawn(serve_connection(
                        Accepted { tcp: stream, peer, _slot: slot },
                        name.clone(),
                        runtime.clone(),
                        handler.clone(),
                        limits,
                        for_connections.clone(),
                    ));
                }
                Err(e) => {
                    tracing::warn!(listener = %name, error = %e, "accept failed");
                    tokio::time::sleep(std::time::Duration::from_millis(10)).await;
                }
            },
            Some(_) = connections.join_next(), if !connections.is_empty() => {}
        }
    }
    drop(listener);
    while connections.join_next().await.is_some() {}
}

enum Outcome {
    /// Write the frame; then, for a throttled client, read nothing more
    /// for the duration (Kafka mutes the channel).
    Respond(Vec<u8>, Option<std::time::Duration>),
    Close(String),
}

/// How long a client whose request was answered with `response` must wait:
/// the controller mutation quota's throttle time of CreateTopics,
/// DeleteTopics and CreatePartitions. A forwarded request (an Envelope's
/// answer) is never throttled here: the broker throttles its own client.
fn client_throttle(response: &ResponseBody) -> Option<std::time::Duration> {
    let ms = match response {
        ResponseBody::CreateTopics(r) => r.throttle_time_ms,
        ResponseBody::DeleteTopics(r) => r.throttle_time_ms,
        ResponseBody::CreatePartitions(r) => r.throttle_time_ms,
        _ => 0,
    };
    u64::try_from(ms)
        .ok()
        .filter(|ms| *ms > 0)
        .map(std::time::Duration::from_millis)
}

/// Who is on the other end of a connection.
#[derive(Debug, Clone)]
struct Identity {
    principal: KafkaPrincipal,
    token_authenticated: bool,
}

/// The TLS handshake, when the listener has TLS, and the principal of the
/// client certificate.
async fn establish(
    tcp: TcpStream,
    peer: SocketAddr,
    listener: &str,
    runtime: &ListenerRuntime,
    timeout: std::time::Duration,
) -> Option<(KafkaStream, Identity)> {
    let Some(tls) = &runtime.tls else {
        return Some((
            KafkaStream::Plain(tcp),
            Identity {
                principal: KafkaPrincipal::ANONYMOUS,
                token_authenticated: false,
            },
        ));
    };
    let stream = match tokio::time::timeout(timeout, tls.acceptor().accept(tcp)).await {
        Ok(Ok(s)) => KafkaStream::ServerTls(Box::new(s)),
        Ok(Err(e)) => {
            tracing::info!(%peer, listener = %listener, "Failed authentication with {peer} (SSL handshake failed): {e}");
            return None;
        }
        Err(_) => {
            tracing::info!(%peer, listener = %listener, "Failed authentication with {peer}: the SSL handshake did not complete within {} ms", timeout.as_millis());
            return None;
        }
    };
    let name = match tls_principal_name(stream.peer_certificates(), tls.principal_mapper()) {
        Ok(n) => n,
        Err(e) => {
            tracing::info!(%peer, listener = %listener, "Failed authentication with {peer}: cannot map the client certificate to a principal: {e}");
            return None;
        }
    };
    let principal = if name == "ANONYMOUS" {
        KafkaPrincipal::ANONYMOUS
    } else {
        KafkaPrincipal::user(name)
    };
    Some((
        stream,
        Identity {
            principal,
            token_authenticated: false,
        },
    ))
}

/// An accepted connection and its place in the connection counts, held
/// until it closes.
struct Accepted {
    tcp: TcpStream,
    peer: SocketAddr,
    _slot: ConnectionSlot,
}

async fn serve_connection(
    accepted: Accepted,
    listener: String,
    runtime: Arc<ListenerRuntime>,
    handler: Arc<dyn RequestHandler>,
    limits: Limits,
    mut shutdown: watch::Receiver<bool>,
) {
    let Accepted {
        tcp,
        peer,
        _slot: _held_until_closed,
    } = accepted;
    let started = tokio::time::Instant::now();
    let Some((mut stream, mut identity)) =
        establish(tcp, peer, &listener, &runtime, limits.auth_timeout).await
    else {
        return;
    };
    let max_frame = limits.max_frame;
    let mut session = runtime.sasl.clone().map(SaslSession::new);
    let mut auth_deadline = started + limits.auth_timeout;
    if session.is_none() {
        tracing::debug!(%peer, listener = %listener, principal = %identity.principal, "connection authenticated");
    }
    let frame_limit = |session: &Option<SaslSession>| match session {
        Some(s) if !s.is_complete() => s.max_receive_size(),
        _ => max_frame,
    };
    let mut decoder = FrameDecoder::new(frame_limit(&session));
    let mut buf = BytesMut::with_capacity(4096);
    let apis: HashMap<ApiKey, ApiRange> = handler
        .supported_apis()
        .into_iter()
        .map(|a| (a.api_key, a))
        .collect();
    loop {
        let frame = match decoder.decode(&mut buf) {
            Ok(f) => f,
            Err(e) => {
                let during_sasl = session.as_ref().is_some_and(|s| !s.is_complete());
                if during_sasl {
                    tracing::info!(%peer, listener = %listener, "closing connection: Failing SASL authentication due to invalid receive size ({e})");
                } else {
                    tracing::warn!(%peer, listener = %listener, "closing connection: {e}");
                }
                return;
            }
        };
        if let Some(frame) = frame {
            let mut request_identity = identity.clone();
            if let Some(s) = session.as_mut() {
                let was_complete = s.is_complete();
                if was_complete
                    && s.is_expired(std::time::Instant::now())
                    && !sasl::is_sasl_handshake(&frame)
                {
                    tracing::debug!(%peer, listener = %listener, "closing connection: the SASL session expired and the client did not re-authenticate");
                    return;
                }
                match s.on_frame(&frame) {
                    Step::Request => {}
                    Step::ApiVersions => {
                        request_identity = Identity {
                            principal: KafkaPrincipal::ANONYMOUS,
                            token_authenticated: false,
                        };
                    }
                    Step::Respond(bytes) => {
                        if let Err(e) = stream.write_all(&bytes).await {
                            tracing::debug!(%peer, error = %e, "write failed; closing connection");
                            return;
                        }
                        if !was_complete && s.is_complete() {
                            if let Some(who) = s.authenticated() {
                                identity = Identity {
                                    principal: who.principal.clone(),
                                    token_authenticated: who.token_authenticated,
                                };
                                tracing::debug!(%peer, listener = %listener, principal = %identity.principal, "connection authenticated");
                            }
                            decoder = FrameDecoder::new(max_frame);
                        }
                        if was_complete && !s.is_complete() {
                            // Re-authentication: frames are SASL frames again,
                            // and it has its own time to complete.
                            decoder = FrameDecoder::new(s.max_receive_size());
                            auth_deadline = tokio::time::Instant::now() + limits.auth_timeout;
                        }
                        continue;
                    }
                    Step::RespondAndClose(bytes, reason) => {
                        let _ = stream.write_all(&bytes).await;
                        let _ = stream.flush().await;
                        tracing::info!(%peer, listener = %listener, "Failed authentication with {peer} ({reason})");
                        delay_close(limits.failed_auth_delay, &mut shutdown).await;
                        return;
                    }
                    Step::Close(reason) => {
                        tracing::info!(%peer, listener = %listener, "Failed authentication with {peer} ({reason})");
                        delay_close(limits.failed_auth_delay, &mut shutdown).await;
                        return;
                    }
                }
            }
            match process(
                frame,
                peer,
                &listener,
                &request_identity,
                runtime.protocol,
                &apis,
                handler.as_ref(),
            )
            .await
            {
                Outcome::Respond(bytes, throttle) => {
                    if let Err(e) = stream.write_all(&bytes).await {
                        tracing::debug!(%peer, error = %e, "write failed; closing connection");
                        return;
                    }
                    if let Some(throttle) = throttle {
                        tracing::debug!(%peer, listener = %listener, ms = throttle.as_millis(), "throttling the connection (controller mutation quota)");
                        tokio::select! {
                            _ = until_shutdown(&mut shutdown) => return,
                            () = tokio::time::sleep(throttle) => {}
                        }
                    }
                    continue;
                }
                Outcome::Close(reason) => {
                    tracing::warn!(%peer, listener = %listener, "closing connection: {reason}");
                    return;
                }
            }
        }
        if *shutdown.borrow() {
            return;
        }
        let authenticating = session.as_ref().is_some_and(|s| !s.is_complete());
        let deadline = if authenticating {
            auth_deadline
        } else {
            tokio::time::Instant::now() + std::time::Duration::from_secs(365 * 24 * 3600)
        };
        tokio::select! {
            read = stream.read_buf(&mut buf) => match read {
                Ok(0) => {
                    if decoder.is_mid_frame() || !buf.is_empty() {
                        tracing::debug!(%peer, "connection closed in the middle of a frame");
                    }
                    return;
                }
                Ok(_) => {}
                Err(e) => {
                    tracing::debug!(%peer, error = %e, "read failed; closing connection");
                    return;
                }
            },
            () = tokio::time::sleep_until(deadline), if authenticating => {
                tracing::info!(%peer, listener = %listener, "Failed authentication with {peer}: SASL authentication did not complete within {} ms", limits.auth_timeout.as_millis());
                return;
            }
            _ = until_shutdown(&mut shutdown) => return,
        }
    }
}

/// A complete response frame: header (at the API's response header
/// version) and body.
pub(crate) fn encode_response(
    correlation_id: i32,
    api_key: ApiKey,
    version: i16,
    body: &ResponseBody,
) -> Result<Vec<u8>, String> {
    response_frame(
        correlation_id,
        api_key.response_header_version(version),
        |b| body.encode(b, version),
    )
    .map_err(|e| {
        format!(
            "cannot encode {} v{version} response: {e}",
            api_key.kafka_name()
        )
    })
}

/// The answer to ApiVersions at a version this server does not know.
pub fn unsupported_api_versions_response(max_version: i16) -> ApiVersionsResponse {
    ApiVersionsResponse {
        error_code: ErrorCode::UnsupportedVersion.code(),
        api_keys: vec![ApiVersion {
            api_key: ApiKey::ApiVersions.id(),
            min_version: 0,
            max_version,
            ..Default::default()
        }]
        .into(),
        ..Default::default()
    }
}

fn response_frame<F>(
    correlation_id: i32,
    header_version: i16,
    write_body: F,
) -> Result<Vec<u8>, EncodeError>
where
    F: FnOnce(&mut BytesMut) -> Result<(), EncodeError>,
{
    let mut out = BytesMut::new();
    encode_frame_with(&mut out, |b| {
        ResponseHeader {
            correlation_id,
            ..Default::default()
        }
        .encode(b, header_version)?;
        write_body(b)
    })?;
    Ok(out.to_vec())
}

async fn process(
    frame: Bytes,
    peer: SocketAddr,
    listener: &str,
    identity: &Identity,
    security_protocol: SecurityProtocol,
    apis: &HashMap<ApiKey, ApiRange>,
    handler: &dyn RequestHandler,
) -> Outcome {
    let mut rest = frame;
    let parsed = match decode_request_header(&mut rest) {
        Ok(p) => p,
        Err(e) => return Outcome::Close(format!("invalid request header: {e}")),
    };
    let version = parsed.header.request_api_version;
    let correlation_id = parsed.header.correlation_id;
    let Some(api_key) = parsed.api_key else {
        return Outcome::Close(format!("unknown API key {}", parsed.header.request_api_key));
    };
    let range = apis.get(&api_key);
    let supported = range.is_some_and(|r| r.min_version <= version && version <= r.max_version);
    if !supported {
        if api_key == ApiKey::ApiVersions {
            // KIP-511: answer with a v0 body (header v0), without parsing the body.
            let max = range.map_or(ApiKey::ApiVersions.versions().1, |r| r.max_version);
            let body = unsupported_api_versions_response(max);
            return match response_frame(correlation_id, 0, |b| body.encode(b, 0)) {
                Ok(bytes) => Outcome::Respond(bytes, None),
                Err(e) => Outcome::Close(format!("cannot encode ApiVersions response: {e}")),
            };
        }
        return Outcome::Close(format!(
            "{} version {version} is not supported on listener {listener}",
            api_key.kafka_name()
        ));
    }
    let body = match RequestBody::decode(api_key, version, &mut rest) {
        Ok(b) => b,
        Err(e) => {
            return Outcome::Close(format!(
                "error getting request for apiKey: {}, apiVersion: {version}: {e}",
                api_key.kafka_name()
            ))
        }
    };
    if !rest.is_empty() {
        // Kafka does not check for bytes after the body either.
        tracing::debug!(%peer, api = api_key.kafka_name(), version, trailing = rest.len(), "ignoring trailing bytes after request body");
    }
    let ctx = RequestContext {
        header: parsed.header,
        api_key,
        api_version: version,
        listener_name: listener.to_string(),
        peer_addr: Some(peer),
        principal: identity.principal.clone(),
        forwarded: false,
        token_authenticated: identity.token_authenticated,
        security_protocol,
    };
    let response = match handler.handle(ctx, body).await {
        Ok(r) => r,
        Err(CloseConnection(reason)) => return Outcome::Close(reason),
    };
    if response.api_key() != api_key {
        return Outcome::Close(format!(
            "handler answered a {} request with a {} response",
            api_key.kafka_name(),
            response.api_key().kafka_name()
        ));
    }
    let header_version = api_key.response_header_version(version);
    match response_frame(correlation_id, header_version, |b| {
        response.encode(b, version)
    }) {
        Ok(bytes) => Outcome::Respond(bytes, client_throttle(&response)),
        Err(e) => Outcome::Close(format!(
            "cannot encode {} v{version} response: {e}",
            api_key.kafka_name()
        )),
    }
}
