//! A Kafka wire client: one connection to a controller, ApiVersions first,
//! one request in flight at a time; over TLS and SASL when
//! `--command-config` says so.

use std::collections::HashMap;
use std::path::Path;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use bytes::BytesMut;
use kraft_protocol::frame::{FrameDecoder, DEFAULT_MAX_FRAME_SIZE};
use kraft_protocol::header::{decode_response_as, encode_request_frame};
use kraft_protocol::messages::api_versions_request::ApiVersionsRequest;
use kraft_protocol::messages::api_versions_response::ApiVersionsResponse;
use kraft_protocol::messages::request_header::RequestHeader;
use kraft_protocol::messages::response_header::ResponseHeader;
use kraft_protocol::text::properties::Properties;
use kraft_protocol::{ApiKey, Decodable, Encodable, ErrorCode, Message, StrBytes};
use kraft_security::client::{connect, ClientSecurity};
use kraft_security::stream::KafkaStream;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::broker::{HEARTBEAT_VERSION, REGISTRATION_VERSION, UNREGISTER_VERSION};
use crate::Result;

/// How every connection is secured (`--command-config`); PLAINTEXT when
/// never set.
static SECURITY: OnceLock<ClientSecurity> = OnceLock::new();

/// Reads the Kafka client configuration at `path` for every later
/// connection.
pub(crate) fn configure_security(path: &str) -> Result<()> {
    let props = Properties::load(Path::new(path)).map_err(|e| e.to_string())?;
    let get = |k: &str| props.get(k).map(str::to_string);
    let security = ClientSecurity::from_kafka(&get).map_err(|e| format!("{path}: {e}"))?;
    SECURITY
        .set(security)
        .map_err(|_| "the client security is set twice".to_string())
}

/// One connection to a controller, one request in flight at a time.
pub(crate) struct Conn {
    pub(crate) address: String,
    stream: KafkaStream,
    decoder: FrameDecoder,
    read_buf: BytesMut,
    correlation_id: i32,
    client_id: StrBytes,
    pub(crate) versions: HashMap<i16, (i16, i16)>,
}

impl Conn {
    /// Connects and exchanges ApiVersions (at our latest version, or at the
    /// server's latest when it answers UNSUPPORTED_VERSION), as Kafka's
    /// `NetworkClient` does before its first request.
    pub(crate) async fn connect(address: &str, client_id: &str) -> Result<Conn> {
        Self::open(address, client_id, true).await
    }

    /// [`Conn::connect`] without requiring the broker-facing APIs, with a
    /// 1 s limit on the connection and the ApiVersions exchange.
    pub(crate) async fn connect_plain(address: &str, client_id: &str) -> Result<Conn> {
        tokio::time::timeout(
            Duration::from_secs(1),
            Self::open(address, client_id, false),
        )
        .await
        .map_err(|_| format!("{address}: no ApiVersions answer within 1 s"))?
    }

    async fn open(address: &str, client_id: &str, broker_apis: bool) -> Result<Conn> {
        let (host, port) = address
            .rsplit_once(':')
            .and_then(|(h, p)| Some((h, p.parse::<u16>().ok()?)))
            .ok_or_else(|| format!("{address}: not HOST:PORT"))?;
        let plaintext = ClientSecurity::plaintext();
        let security = SECURITY.get().unwrap_or(&plaintext);
        let stream = connect(host, port, security, client_id)
            .await
            .map_err(|e| format!("connect {address}: {e}"))?
            .stream;
        let mut conn = Conn {
            address: address.to_string(),
            stream,
            decoder: FrameDecoder::new(DEFAULT_MAX_FRAME_SIZE),
            read_buf: BytesMut::with_capacity(16 * 1024),
            correlation_id: 0,
            client_id: StrBytes::from(client_id),
            versions: HashMap::new(),
        };
        let (_, ours) = ApiKey::ApiVersions.versions();
        let mut version = ours;
        for _ in 0..2 {
            let request = ApiVersionsRequest {
                client_software_name: StrBytes::from_static("kraft-rs-broker-load"),
                client_software_version: StrBytes::from_static(env!("CARGO_PKG_VERSION")),
                ..Default::default()
            };
            let (frame, _) = conn
                .exchange(ApiKey::ApiVersions, version, &request)
                .await?;
            let response = match decode_response_as::<ApiVersionsResponse>(
                frame.clone(),
                ApiKey::ApiVersions,
                version,
            ) {
                Ok((_, r)) => r,
                Err(_) => {
                    // An UNSUPPORTED_VERSION answer carries a v0 body.
                    let mut buf = frame;
                    ResponseHeader::decode(&mut buf, 0)
                        .and_then(|_| ApiVersionsResponse::decode(&mut buf, 0))
                        .map_err(|e| format!("{address}: bad ApiVersions answer: {e}"))?
                }
            };
            if response.error_code == ErrorCode::UnsupportedVersion.code() {
                version = response
                    .api_keys
                    .iter()
                    .find(|k| k.api_key == ApiKey::ApiVersions.id())
                    .map_or(0, |k| k.max_version.min(ours));
                continue;
            }
            if response.error_code != 0 {
                return Err(format!(
                    "{address}: ApiVersions error {}",
                    ErrorCode::from_code(response.error_code).name()
                ));
            }
            conn.versions = response
                .api_keys
                .iter()
                .map(|k| (k.api_key, (k.min_version, k.max_version)))
                .collect();
            if !broker_apis {
                return Ok(conn);
            }
            for (api, v) in [
                (ApiKey::BrokerRegistration, REGISTRATION_VERSION),
                (ApiKey::BrokerHeartbeat, HEARTBEAT_VERSION),
                (ApiKey::UnregisterBroker, UNREGISTER_VERSION),
            ] {
                match conn.versions.get(&api.id()) {
                    Some((lo, hi)) if (*lo..=*hi).contains(&v) => {}
                    _ => return Err(format!("{address} does not serve {api:?} v{v}")),
                }
            }
            return Ok(conn);
        }
        Err(format!("{address}: no common ApiVersions version"))
    }

    /// Writes one request and reads its response frame; the duration runs
    /// from just before the write to the last byte of the response frame.
    async fn exchange<M: Encodable>(
        &mut self,
        api: ApiKey,
        version: i16,
        body: &M,
    ) -> Result<(bytes::Bytes, Duration)> {
        self.correlation_id = self.correlation_id.wrapping_add(1);
        let header = RequestHeader {
            request_api_key: api.id(),
            request_api_version: version,
            correlation_id: self.correlation_id,
            client_id: Some(self.client_id.clone()),
            ..Default::default()
        };
        let mut out = Vec::with_capacity(64 + body.encoded_len(version));
        encode_request_frame(&mut out, &header, body)
            .map_err(|e| format!("encode {api:?}: {e}"))?;
        let start = Instant::now();
        self.stream
            .write_all(&out)
            .await
            .map_err(|e| format!("{}: write: {e}", self.address))?;
        loop {
            match self.decoder.decode(&mut self.read_buf) {
                Ok(Some(frame)) => return Ok((frame, start.elapsed())),
                Ok(None) => {}
                Err(e) => return Err(format!("{}: bad frame: {e}", self.address)),
            }
            if self.read_buf.capacity() - self.read_buf.len() < 4096 {
                self.read_buf.reserve(16 * 1024);
            }
            match self.stream.read_buf(&mut self.read_buf).await {
                Ok(0) => return Err(format!("{}: connection closed", self.address)),
                Ok(_) => {}
                Err(e) => return Err(format!("{}: read: {e}", self.address)),
            }
        }
    }

    /// [`Conn::exchange`], with the response decoded as `R` and its
    /// correlation id checked.
    pub(crate) async fn call<M: Encodable, R: Message>(
        &mut self,
        api: ApiKey,
        version: i16,
        body: &M,
    ) -> Result<(R, Duration)> {
        let (frame, rtt) = self.exchange(api, version, body).await?;
        let (correlation, response) = decode_response_as::<R>(frame, api, version)
            .map_err(|e| format!("{}: bad {api:?} answer: {e}", self.address))?;
        if correlation != self.correlation_id {
            return Err(format!("{}: correlation id mismatch", self.address));
        }
        Ok((response, rtt))
    }
}
