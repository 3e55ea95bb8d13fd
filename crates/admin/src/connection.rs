//! One TCP connection to a Kafka node: connect, ApiVersions negotiation,
//! request/response exchange with a per-request timeout.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use bytes::BytesMut;
use kraft_protocol::frame::{FrameDecoder, DEFAULT_MAX_FRAME_SIZE};
use kraft_protocol::header::{decode_response_as, encode_request_frame};
use kraft_protocol::messages::api_versions_request::ApiVersionsRequest;
use kraft_protocol::messages::api_versions_response::ApiVersionsResponse;
use kraft_protocol::messages::request_header::RequestHeader;
use kraft_protocol::{ApiKey, ErrorCode, Message, Request, StrBytes};
use kraft_security::client::{self, ClientSecurity};
use kraft_security::stream::KafkaStream;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::sync::Mutex;

use crate::config::HostPort;
use crate::error::{AdminError, ApiError, Result};

/// The name this client reports in ApiVersions (must match Kafka's
/// `[a-zA-Z0-9](?:[a-zA-Z0-9\-.]*[a-zA-Z0-9])?`).
const CLIENT_SOFTWARE_NAME: &str = "kraft-admin";
const CLIENT_SOFTWARE_VERSION: &str = env!("CARGO_PKG_VERSION");

struct State {
    stream: KafkaStream,
    buf: BytesMut,
    decoder: FrameDecoder,
    next_correlation_id: i32,
}

/// A connection whose ApiVersions exchange has completed.
pub(crate) struct Connection {
    addr: HostPort,
    addr_text: String,
    client_id: StrBytes,
    state: Mutex<State>,
    /// The server's advertised range per API key.
    server_versions: HashMap<i16, (i16, i16)>,
    /// The ApiVersions response of the handshake.
    pub(crate) api_versions: ApiVersionsResponse,
    broken: AtomicBool,
    /// When the server ends the SASL session (KIP-368), if it does.
    session_expires: Option<std::time::Instant>,
    /// Whether the connection is plain TCP (no TLS): a TLS record from the
    /// server then means the listener is SSL or SASL_SSL.
    plaintext: bool,
}

/// What a plaintext client is told when the node answers with TLS.
const TLS_ANSWER: &str = "the node answered with a TLS record: its listener uses SSL or SASL_SSL; \
     set security.protocol (and the ssl.* keys) in the client configuration";

/// Whether `buf` starts with a TLS record header (an alert or a handshake).
fn looks_like_tls(buf: &[u8]) -> bool {
    buf.len() >= 3 && (buf[0] == 0x15 || buf[0] == 0x16) && buf[1] == 0x03 && buf[2] <= 0x04
}

impl std::fmt::Debug for Connection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Connection")
            .field("addr", &self.addr_text)
            .finish()
    }
}

impl Connection {
    /// Connects to `addr` and negotiates API versions.
    pub(crate) async fn open(
        addr: &HostPort,
        client_id: &str,
        security: &ClientSecurity,
        connect_timeout: Duration,
        request_timeout: Duration,
    ) -> Result<Connection> {
        let addr_text = addr.to_string();
        let connect = client::connect(addr.host.as_str(), addr.port, security, client_id);
        let (stream, session_expires) = match tokio::time::timeout(connect_timeout, connect).await {
            Ok(Ok(c)) => (c.stream, c.session_expires),
            Ok(Err(client::ConnectError::Io(e))) => {
                return Err(AdminError::Connect {
                    addr: addr_text,
                    reason: io_reason(&e),
                })
            }
            // Kafka's SslAuthenticationException is not retried either.
            Ok(Err(e @ client::ConnectError::Tls(_))) => {
                return Err(AdminError::Authentication {
                    addr: addr_text,
                    message: e.to_string(),
                })
            }
            Ok(Err(client::ConnectError::Authentication(message))) => {
                return Err(AdminError::Authentication {
                    addr: addr_text,
                    message,
                })
            }
            Ok(Err(e)) => {
                return Err(AdminError::Connect {
                    addr: addr_text,
                    reason: e.to_string(),
                })
            }
            Err(_) => {
                return Err(AdminError::Connect {
                    addr: addr_text,
                    reason: format!(
                        "connection setup timed out after {} ms",
                        connect_timeout.as_millis()
                    ),
                })
            }
        };
        let mut conn = Connection {
            addr: addr.clone(),
            addr_text,
            client_id: StrBytes::from(client_id),
            state: Mutex::new(State {
                stream,
                buf: BytesMut::with_capacity(8 * 1024),
                decoder: FrameDecoder::new(DEFAULT_MAX_FRAME_SIZE),
                next_correlation_id: 0,
            }),
            server_versions: HashMap::new(),
            api_versions: ApiVersionsResponse::default(),
            broken: AtomicBool::new(false),
            session_expires,
            plaintext: !security.protocol.uses_tls(),
        };
        let response = conn.negotiate(request_timeout).await?;
        conn.server_versions = response
            .api_keys
            .iter()
            .map(|k| (k.api_key, (k.min_version, k.max_version)))
            .collect();
        conn.api_versions = response;
        tracing::debug!(addr = %conn.addr_text, apis = conn.server_versions.len(), "connected");
        Ok(conn)
    }

    /// Sends ApiVersions at the highest version this client knows; when the
    /// server answers UNSUPPORTED_VERSION (with a v0-shaped body listing its
    /// own ApiVersions range), retries at the highest version both know.
    async fn negotiate(&self, timeout: Duration) -> Result<ApiVersionsResponse> {
        let mut version = ApiVersionsRequest::HIGHEST_VERSION;
        for _ in 0..3 {
            let request = ApiVersionsRequest {
                client_software_name: StrBytes::from_static(CLIENT_SOFTWARE_NAME),
                client_software_version: StrBytes::from_static(CLIENT_SOFTWARE_VERSION),
                ..Default::default()
            };
            let frame = self
                .exchange(ApiKey::ApiVersions, version, &request, timeout)
                .await?;
            let (corr, parsed) = match decode_response_as::<ApiVersionsResponse>(
                frame.1.clone(),
                ApiKey::ApiVersions,
                version,
            ) {
                Ok(r) if r.1.error_code != ErrorCode::UnsupportedVersion.code() => r,
                // An UNSUPPORTED_VERSION answer uses the v0 body whatever version was sent.
                _ => decode_response_as::<ApiVersionsResponse>(frame.1, ApiKey::ApiVersions, 0)
                    .map_err(|e| {
                        self.protocol(format!("cannot decode ApiVersions response: {e}"))
                    })?,
            };
            self.check_correlation(frame.0, corr)?;
            match ErrorCode::from_code(parsed.error_code) {
                ErrorCode::None => return Ok(parsed),
                ErrorCode::UnsupportedVersion => {
                    let theirs = parsed
                        .api_keys
                        .iter()
                        .find(|k| k.api_key == ApiKey::ApiVersions.id())
                        .map(|k| k.max_version)
                        .unwrap_or(0);
                    let next = theirs.min(ApiVersionsRequest::HIGHEST_VERSION);
                    if next >= version || next < 0 {
                        return Err(AdminError::unsupported(
                            ApiKey::ApiVersions,
                            &self.addr_text,
                            format!(" (it knows ApiVersions up to v{theirs})"),
                        ));
                    }
                    tracing::debug!(addr = %self.addr_text, version, next, "downgrading ApiVersions");
                    version = next;
                }
                other => {
                    return Err(AdminError::Api(ApiError::new(other, None)));
                }
            }
        }
        Err(self.protocol("ApiVersions negotiation did not converge".into()))
    }

    /// `host:port` of the node.
    pub(crate) fn addr(&self) -> &HostPort {
        &self.addr
    }

    /// Whether an earlier exchange failed in a way that leaves the stream
    /// unusable (the connection must be dropped).
    pub(crate) fn is_broken(&self) -> bool {
        self.broken.load(Ordering::Relaxed)
            || self
                .session_expires
                .is_some_and(|t| t <= std::time::Instant::now())
    }

    /// The server's highest version of `api`, if it advertises the API.
    pub(crate) fn server_max_version(&self, api: ApiKey) -> Option<i16> {
        self.server_versions.get(&api.id()).map(|r| r.1)
    }

    /// The highest version of `api` both sides know.
    pub(crate) fn version_for(&self, api: ApiKey) -> Result<i16> {
        let (our_min, our_max) = api.versions();
        let Some(&(their_min, their_max)) = self.server_versions.get(&api.id()) else {
            return Err(AdminError::unsupported(
                api,
                &self.addr_text,
                " (the API is not in its ApiVersions response)",
            ));
        };
        let lo = our_min.max(their_min);
        let hi = our_max.min(their_max);
        if lo > hi {
            return Err(AdminError::unsupported(
                api,
                &self.addr_text,
                format!(
                    " in a version this client knows (node: v{their_min}-v{their_max}, client: v{our_min}-v{our_max})"
                ),
            ));
        }
        Ok(hi)
    }

    /// Sends `request` at `version` and waits up to `timeout` for its response.
    pub(crate) async fn send<R: Request>(
        &self,
        request: &R,
        version: i16,
        timeout: Duration,
    ) -> Result<R::Response> {
        let (corr, frame) = self.exchange(R::API_KEY, version, request, timeout).await?;
        let (got, response) = decode_response_as::<R::Response>(frame, R::API_KEY, version)
            .map_err(|e| {
                self.protocol(format!(
                    "cannot decode {} v{version} response: {e}",
                    R::Response::NAME
                ))
            })?;
        self.check_correlation(corr, got)?;
        Ok(response)
    }

    fn check_correlation(&self, expected: i32, got: i32) -> Result<()> {
        if expected == got {
            Ok(())
        } else {
            Err(self.protocol(format!(
                "response correlation id {got} does not match request {expected}"
            )))
        }
    }

    fn protocol(&self, detail: String) -> AdminError {
        self.broken.store(true, Ordering::Relaxed);
        AdminError::Protocol {
            addr: self.addr_text.clone(),
            detail,
        }
    }

    /// Writes one request frame and reads one response frame (one request in
    /// flight per connection, as Kafka processes a connection's requests in order).
    async fn exchange<M: Message>(
        &self,
        api: ApiKey,
        version: i16,
        body: &M,
        timeout: Duration,
    ) -> Result<(i32, bytes::Bytes)> {
        if self.is_broken() {
            return Err(AdminError::Disconnected {
                addr: self.addr_text.clone(),
                reason: "connection closed after an earlier failure".into(),
            });
        }
        let mut guard = self.state.lock().await;
        let state = &mut *guard;
        let correlation_id = state.next_correlation_id;
        state.next_correlation_id = state.next_correlation_id.wrapping_add(1);
        let header = RequestHeader {
            request_api_key: api.id(),
            request_api_version: version,
            correlation_id,
            client_id: Some(self.client_id.clone()),
            ..Default::default()
        };
        let mut out = Vec::new();
        encode_request_frame(&mut out, &header, body).map_err(|e| AdminError::Protocol {
            addr: self.addr_text.clone(),
            detail: format!("cannot encode {} v{version}: {e}", M::NAME),
        })?;
        tracing::trace!(addr = %self.addr_text, api = api.kafka_name(), version, correlation_id, "send");
        let plaintext = self.plaintext;
        let io = async {
            state
                .stream
                .write_all(&out)
                .await
                .map_err(|e| io_reason(&e))?;
            loop {
                if plaintext && looks_like_tls(&state.buf) {
                    return Err(TLS_ANSWER.to_owned());
                }
                match state.decoder.decode(&mut state.buf) {
                    Ok(Some(frame)) => return Ok(frame),
                    Ok(None) => {}
                    Err(e) => return Err(format!("bad frame: {e}")),
                }
                let n = state
                    .stream
                    .read_buf(&mut state.buf)
                    .await
                    .map_err(|e| io_reason(&e))?;
                if n == 0 {
                    return Err("the node closed the connection".to_owned());
                }
            }
        };
        match tokio::time::timeout(timeout, io).await {
            Ok(Ok(frame)) => Ok((correlation_id, frame)),
            Ok(Err(reason)) if reason == TLS_ANSWER => Err(self.protocol(reason)),
            // TLS 1.3 reports a refused client certificate at the first read.
            Ok(Err(reason)) if reason.contains("received fatal alert") => {
                Err(self.protocol(format!("SSL handshake failed: {reason}")))
            }
            Ok(Err(reason)) => {
                self.broken.store(true, Ordering::Relaxed);
                Err(AdminError::Disconnected {
                    addr: self.addr_text.clone(),
                    reason,
                })
            }
            Err(_) => {
                self.broken.store(true, Ordering::Relaxed);
                Err(AdminError::RequestTimeout {
                    api: api.kafka_name(),
                    addr: self.addr_text.clone(),
                    timeout,
                })
            }
        }
    }
}

/// A short description of an I/O error ("Connection refused", ...).
fn io_reason(e: &std::io::Error) -> String {
    let text = e.to_string();
    // Drop the "(os error N)" suffix: the kind says it all.
    match text.find(" (os error") {
        Some(i) => text[..i].to_owned(),
        None => text,
    }
}
