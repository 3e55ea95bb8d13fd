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

use crate::config::ControllerConfig;
use crate::handlers::Caller;
use kraft_protocol::acl::KafkaPrincipal;

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
#[derive(Debug, Clone, PartialEq, Eq)]
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
}

/// Server settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerConfig {
    /// Listeners to bind.
    pub listeners: Vec<ListenerSpec>,
    /// The largest request frame accepted (`socket.request.max.bytes`).
    pub max_frame_size: usize,
}

impl ServerConfig {
    /// The controller listeners of `config` (`listeners` entries named in
    /// `controller.listener.names`), with `socket.request.max.bytes`.
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
                })
                .collect(),
            max_frame_size: usize::try_from(config.socket_request_max_bytes).unwrap_or(usize::MAX),
        }
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
        for spec in &config.listeners {
            let host = if spec.host.is_empty() {
                "0.0.0.0"
            } else {
                spec.host.as_str()
            };
            let listener = TcpListener::bind((host, spec.port)).await.map_err(|e| {
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
            accept_tasks.spawn(async move {
                let mut gate = shutdown.clone();
                if !early_start {
                    tokio::select! {
                        _ = until_shutdown(&mut gate) => return,
                        () = handler.wait_until_ready() => {}
                    }
                    tracing::info!(listener = %name, "listener accepting: the handler is ready");
                }
                accept_loop(listener, name, handler, max_frame, shutdown).await;
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

/// Resolves once a shutdown was signalled (or the server is gone).
async fn until_shutdown(rx: &mut watch::Receiver<bool>) {
    let _ = rx.wait_for(|s| *s).await;
}

async fn accept_loop(
    listener: TcpListener,
    name: String,
    handler: Arc<dyn RequestHandler>,
    max_frame: usize,
    mut shutdown: watch::Receiver<bool>,
) {
    let mut connections = JoinSet::new();
    let for_connections = shutdown.clone();
    loop {
        tokio::select! {
            _ = until_shutdown(&mut shutdown) => break,
            accepted = listener.accept() => match accepted {
                Ok((stream, peer)) => {
                    let _ = stream.set_nodelay(true);
                    connections.spawn(serve_connection(
                        stream,
                        peer,
                        name.clone(),
                        handler.clone(),
                        max_frame,
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
    Respond(Vec<u8>),
    Close(String),
}

async fn serve_connection(
    mut stream: TcpStream,
    peer: SocketAddr,
    listener: String,
    handler: Arc<dyn RequestHandler>,
    max_frame: usize,
    mut shutdown: watch::Receiver<bool>,
) {
    let mut decoder = FrameDecoder::new(max_frame);
    let mut buf = BytesMut::with_capacity(4096);
    let apis: HashMap<ApiKey, ApiRange> = handler
        .supported_apis()
        .into_iter()
        .map(|a| (a.api_key, a))
        .collect();
    loop {
        match decoder.decode(&mut buf) {
            Ok(Some(frame)) => match process(frame, peer, &listener, &apis, handler.as_ref()).await
            {
                Outcome::Respond(bytes) => {
                    if let Err(e) = stream.write_all(&bytes).await {
                        tracing::debug!(%peer, error = %e, "write failed; closing connection");
                        return;
                    }
                    continue;
                }
                Outcome::Close(reason) => {
                    tracing::warn!(%peer, listener = %listener, "closing connection: {reason}");
                    return;
                }
            },
            Ok(None) => {}
            Err(e) => {
                tracing::warn!(%peer, listener = %listener, "closing connection: {e}");
                return;
            }
        }
        if *shutdown.borrow() {
            return;
        }
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
            _ = until_shutdown(&mut shutdown) => return,
        }
    }
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
                Ok(bytes) => Outcome::Respond(bytes),
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
        principal: KafkaPrincipal::ANONYMOUS,
        forwarded: false,
        token_authenticated: false,
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
        Ok(bytes) => Outcome::Respond(bytes),
        Err(e) => Outcome::Close(format!(
            "cannot encode {} v{version} response: {e}",
            api_key.kafka_name()
        )),
    }
}
