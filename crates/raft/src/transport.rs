//! Outbound KRaft requests over TCP with Kafka framing.
//!
//! Connections are pooled per address; a new connection first exchanges
//! ApiVersions, and every request is sent at the highest version both sides
//! know (so a peer running real Kafka 4.4 is spoken to in its own versions).
//! One request is in flight per connection, as Kafka servers process them.
//! Connections are secured as the controller listener is (TLS, SASL; see
//! [`kraft_security::client`]); one whose SASL session ends within the next
//! request timeout is not reused, so the server never closes it under a
//! request.

use std::collections::HashMap;
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::{Arc, Mutex};

use crate::metrics::ChannelCounters;
use std::time::Duration;

use bytes::{Bytes, BytesMut};
use kraft_protocol::frame::{FrameDecoder, DEFAULT_MAX_FRAME_SIZE};
use kraft_protocol::header::{decode_response, encode_request_frame};
use kraft_protocol::messages::api_versions_request::ApiVersionsRequest;
use kraft_protocol::messages::api_versions_response::ApiVersionsResponse;
use kraft_protocol::messages::request_header::RequestHeader;
use kraft_protocol::{ApiKey, Decodable, RequestBody, ResponseBody, StrBytes};
use kraft_security::client::{self, ClientSecurity};
use kraft_security::stream::KafkaStream;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::core::error::ErrorCode;
use crate::core::message as m;
use crate::core::types::Address;
use crate::wire;

/// The outcome of one outbound request.
// Message bodies hold their single-element arrays inline.
#[allow(clippy::large_enum_variant)]
#[derive(Debug)]
pub enum TransportResult {
    /// The peer answered.
    Response(ResponseBody),
    /// The request failed before an answer (connection refused, timeout,
    /// no common version, garbled answer).
    Failed(ErrorCode),
}

#[derive(Debug, thiserror::Error)]
enum ConnError {
    #[error("I/O: {0}")]
    Io(#[from] std::io::Error),
    #[error("decode: {0}")]
    Decode(#[from] kraft_protocol::DecodeError),
    #[error("encode: {0}")]
    Encode(#[from] kraft_protocol::EncodeError),
    #[error("connection closed")]
    Closed,
    #[error("correlation id mismatch")]
    Correlation,
    #[error("peer does not support {0:?}")]
    NoCommonVersion(ApiKey),
    #[error("api versions: error {0}")]
    ApiVersions(i16),
    #[error("{0}")]
    Connect(#[from] client::ConnectError),
}

struct Conn {
    stream: KafkaStream,
    session_expires: Option<std::time::Instant>,
    decoder: FrameDecoder,
    read_buf: BytesMut,
    versions: HashMap<i16, (i16, i16)>,
    api_versions: ApiVersionsResponse,
}

struct Inner {
    client_id: String,
    timeout: Duration,
    correlation: AtomicI32,
    pool: Mutex<HashMap<(String, u16), Vec<Conn>>>,
    security: ClientSecurity,
    channel: Arc<ChannelCounters>,
}

/// A pool of connections to KRaft peers.
#[derive(Clone)]
pub struct Transport {
    inner: Arc<Inner>,
}

impl Transport {
    /// A transport whose requests time out after `timeout`.
    pub fn new(client_id: String, timeout: Duration) -> Self {
        Transport {
            inner: Arc::new(Inner {
                client_id,
                timeout,
                correlation: AtomicI32::new(1),
                pool: Mutex::new(HashMap::new()),
                security: ClientSecurity::plaintext(),
                channel: Arc::new(ChannelCounters::default()),
            }),
        }
    }

    /// The same transport with connections secured as `security` says
    /// (before any request is sent).
    pub fn with_security(self, security: ClientSecurity) -> Self {
        let inner = Inner {
            client_id: self.inner.client_id.clone(),
            timeout: self.inner.timeout,
            correlation: AtomicI32::new(1),
            pool: Mutex::new(HashMap::new()),
            security,
            channel: self.inner.channel.clone(),
        };
        Transport {
            inner: Arc::new(inner),
        }
    }

    /// The same transport counting its traffic in `channel` (before any
    /// request is sent).
    pub(crate) fn counting(self, channel: Arc<ChannelCounters>) -> Self {
        let inner = Inner {
            client_id: self.inner.client_id.clone(),
            timeout: self.inner.timeout,
            correlation: AtomicI32::new(1),
            pool: Mutex::new(HashMap::new()),
            security: self.inner.security.clone(),
            channel,
        };
        Transport {
            inner: Arc::new(inner),
        }
    }

    /// Sends `request` to `address` and waits for the answer.
    pub async fn send(
        &self,
        address: &Address,
        api: ApiKey,
        request: &m::Request,
    ) -> TransportResult {
        match tokio::time::timeout(self.inner.timeout, self.send_inner(address, api, request)).await
        {
            Ok(Ok(body)) => TransportResult::Response(body),
            Ok(Err(e)) => {
                tracing::debug!(%address, ?api, error = %e, "request failed");
                TransportResult::Failed(match e {
                    ConnError::NoCommonVersion(_) => ErrorCode::UnsupportedVersion,
                    _ => ErrorCode::BrokerNotAvailable,
                })
            }
            Err(_) => TransportResult::Failed(ErrorCode::RequestTimedOut),
        }
    }

    /// Sends a request of any API, already in wire form, at the highest
    /// version both sides know (`body` builds it for that version), with the
    /// same pool, handshake and timeout as [`Transport::send`]. For the
    /// layer above (e.g. ControllerRegistration to the active controller).
    pub async fn send_wire(
        &self,
        address: &Address,
        api: ApiKey,
        body: impl FnOnce(i16) -> RequestBody,
    ) -> Result<ResponseBody, String> {
        match tokio::time::timeout(self.inner.timeout, self.exchange(address, api, body)).await {
            Ok(result) => result.map_err(|e| e.to_string()),
            Err(_) => Err(format!("{api:?} to {address} timed out")),
        }
    }

    async fn send_inner(
        &self,
        address: &Address,
        api: ApiKey,
        request: &m::Request,
    ) -> Result<ResponseBody, ConnError> {
        self.exchange(address, api, |version| {
            wire::outbound_request(request, version)
        })
        .await
    }

    async fn exchange(
        &self,
        address: &Address,
        api: ApiKey,
        body: impl FnOnce(i16) -> RequestBody,
    ) -> Result<ResponseBody, ConnError> {
        let key = (address.host.clone(), address.port);
        let pooled = self
            .inner
            .pool
            .lock()
            .ok()
            .and_then(|mut p| p.get_mut(&key).and_then(Vec::pop))
            .filter(|c| !self.session_ending(c));
        let mut conn = match pooled {
            Some(c) => c,
            None => self.connect(address).await?,
        };
        if api == ApiKey::ApiVersions {
            // The add-voter probe: the handshake's answer is the answer.
            let body = ResponseBody::ApiVersions(conn.api_versions.clone());
            self.release(key, conn);
            return Ok(body);
        }
        let (lo, hi) = conn
            .versions
            .get(&api.id())
            .copied()
            .ok_or(ConnError::NoCommonVersion(api))?;
        let (our_lo, our_hi) = api.versions();
        let version = hi.min(our_hi);
        if version < lo.max(our_lo) {
            return Err(ConnError::NoCommonVersion(api));
        }
        let response = self
            .roundtrip(&mut conn, api, version, &body(version))
            .await?;
        self.release(key, conn);
        Ok(response)
    }

    /// Whether the connection's SASL session ends before a request sent
    /// now could be answered.
    fn session_ending(&self, conn: &Conn) -> bool {
        conn.session_expires
            .is_some_and(|t| t <= std::time::Instant::now() + self.inner.timeout)
    }

    fn release(&self, key: (String, u16), conn: Conn) {
        if self.session_ending(&conn) {
            // The server would close it mid-request; open a new one next time.
            return;
        }
        if let Ok(mut pool) = self.inner.pool.lock() {
            let list = pool.entry(key).or_default();
            if list.len() < 4 {
                list.push(conn);
            }
        }
    }

    async fn connect(&self, address: &Address) -> Result<Conn, ConnError> {
        let connection = client::connect(
            address.host.as_str(),
            address.port,
            &self.inner.security,
            &self.inner.client_id,
        )
        .await?;
        let mut conn = Conn {
            stream: connection.stream,
            session_expires: connection.session_expires,
            decoder: FrameDecoder::new(DEFAULT_MAX_FRAME_SIZE),
            read_buf: BytesMut::with_capacity(64 * 1024),
            versions: HashMap::new(),
            api_versions: ApiVersionsResponse::default(),
        };
        let (_, ours) = ApiKey::ApiVersions.versions();
        let mut version = ours;
        for _ in 0..2 {
            let request = RequestBody::ApiVersions(ApiVersionsRequest {
                client_software_name: StrBytes::from_static("kraft-rs"),
                client_software_version: StrBytes::from_static(env!("CARGO_PKG_VERSION")),
                ..Default::default()
            });
            let response = self
                .roundtrip(&mut conn, ApiKey::ApiVersions, version, &request)
                .await?;
            let ResponseBody::ApiVersions(r) = response else {
                return Err(ConnError::Closed);
            };
            if r.error_code == ErrorCode::UnsupportedVersion.code() {
                // The peer answered with its own range: retry at its maximum.
                let theirs = r
                    .api_keys
                    .iter()
                    .find(|k| k.api_key == ApiKey::ApiVersions.id());
                version = theirs.map_or(0, |k| k.max_version.min(ours));
                continue;
            }
            if r.error_code != 0 {
                return Err(ConnError::ApiVersions(r.error_code));
            }
            conn.versions = r
                .api_keys
                .iter()
                .map(|k| (k.api_key, (k.min_version, k.max_version)))
                .collect();
            conn.api_versions = r;
            return Ok(conn);
        }
        Err(ConnError::ApiVersions(ErrorCode::UnsupportedVersion.code()))
    }

    async fn roundtrip(
        &self,
        conn: &mut Conn,
        api: ApiKey,
        version: i16,
        body: &RequestBody,
    ) -> Result<ResponseBody, ConnError> {
        let correlation_id = self.inner.correlation.fetch_add(1, Ordering::Relaxed);
        let header = RequestHeader {
            request_api_key: api.id(),
            request_api_version: version,
            correlation_id,
            client_id: Some(StrBytes::from(self.inner.client_id.as_str())),
            ..Default::default()
        };
        let mut out = Vec::with_capacity(64 + body.encoded_len(version));
        encode_request_frame(&mut out, &header, body)?;
        conn.stream.write_all(&out).await?;
        self.inner.channel.sent(out.len());
        let frame = loop {
            if let Some(frame) = conn.decoder.decode(&mut conn.read_buf)? {
                break frame;
            }
            if conn.read_buf.capacity() - conn.read_buf.len() < 4096 {
                conn.read_buf.reserve(64 * 1024);
            }
            if conn.stream.read_buf(&mut conn.read_buf).await? == 0 {
                return Err(ConnError::Closed);
            }
        };
        // The frame and its 4-byte size prefix.
        self.inner.channel.received(frame.len() + 4);
        let (correlation, response) = decode_api_response(frame, api, version)?;
        if correlation != correlation_id {
            return Err(ConnError::Correlation);
        }
        Ok(response)
    }
}

/// Decodes a response; an ApiVersions error answer is read with the v0 body
/// Kafka sends for versions it does not know.
fn decode_api_response(
    frame: Bytes,
    api: ApiKey,
    version: i16,
) -> Result<(i32, ResponseBody), kraft_protocol::DecodeError> {
    if api == ApiKey::ApiVersions {
        if let Ok(ok) = decode_response(frame.clone(), api, version) {
            return Ok(ok);
        }
        // UNSUPPORTED_VERSION answers carry a v0 body after a v0 header.
        let mut buf = frame;
        let header =
            kraft_protocol::messages::response_header::ResponseHeader::decode(&mut buf, 0)?;
        let body = ApiVersionsResponse::decode(&mut buf, 0)?;
        return Ok((header.correlation_id, ResponseBody::ApiVersions(body)));
    }
    decode_response(frame, api, version)
}
