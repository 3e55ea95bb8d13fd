//! A scriptable fake Kafka node for tests (feature `test-util`).
//!
//! [`FakeNode`] listens on `127.0.0.1`, answers ApiVersions itself (with the
//! versions and features it is given, including Kafka's UNSUPPORTED_VERSION
//! answer to a too-new ApiVersions request) and hands every other request to
//! a handler closure, which answers, stays silent or closes the connection.
//! Every request is recorded.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use bytes::{Bytes, BytesMut};
use kraft_protocol::frame::{FrameDecoder, DEFAULT_MAX_FRAME_SIZE};
use kraft_protocol::header::decode_request;
use kraft_protocol::messages::api_versions_response::{
    ApiVersion, ApiVersionsResponse, FinalizedFeatureKey, SupportedFeatureKey,
};
use kraft_protocol::messages::request_header::RequestHeader;
use kraft_protocol::messages::response_header::ResponseHeader;
use kraft_protocol::{ApiKey, Encodable, RequestBody, ResponseBody, StrBytes};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinHandle;

/// A request the fake node received.
#[derive(Debug, Clone)]
pub struct Received {
    /// The request header.
    pub header: RequestHeader,
    /// The decoded body.
    pub body: RequestBody,
}

impl Received {
    /// The request's API.
    pub fn api_key(&self) -> ApiKey {
        self.body.api_key()
    }

    /// The request's version.
    pub fn version(&self) -> i16 {
        self.header.request_api_version
    }
}

/// What the handler wants done with a request.
// Message bodies hold their single-element arrays inline.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone)]
pub enum Reply {
    /// Send this response (encoded at the request's version).
    Respond(ResponseBody),
    /// Never answer (the client's request timeout fires).
    Silence,
    /// Close the connection.
    Close,
}

type Handler = Box<dyn FnMut(&Received) -> Reply + Send>;

struct State {
    api_versions: Vec<(i16, i16, i16)>,
    supported_features: Vec<(String, i16, i16)>,
    finalized_features: Vec<(String, i16)>,
    finalized_epoch: i64,
    handler: Handler,
    received: Vec<Received>,
}

/// A fake Kafka node on a loopback port. Dropping it stops it.
pub struct FakeNode {
    addr: SocketAddr,
    state: Arc<Mutex<State>>,
    task: JoinHandle<()>,
}

impl Drop for FakeNode {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// The API ranges a Kafka 4.4 controller advertises, for the APIs this
/// project implements (spec digest appendix B).
pub fn kafka_4_4_controller_versions() -> Vec<(ApiKey, i16, i16)> {
    vec![
        (ApiKey::Fetch, 4, 18),
        (ApiKey::ApiVersions, 0, 5),
        (ApiKey::Vote, 0, 2),
        (ApiKey::BeginQuorumEpoch, 0, 1),
        (ApiKey::EndQuorumEpoch, 0, 1),
        (ApiKey::DescribeQuorum, 0, 2),
        (ApiKey::UpdateFeatures, 0, 2),
        (ApiKey::FetchSnapshot, 0, 1),
        (ApiKey::DescribeCluster, 0, 2),
        (ApiKey::BrokerRegistration, 0, 4),
        (ApiKey::BrokerHeartbeat, 0, 2),
        (ApiKey::UnregisterBroker, 0, 0),
        (ApiKey::ControllerRegistration, 0, 0),
        (ApiKey::AddRaftVoter, 0, 1),
        (ApiKey::RemoveRaftVoter, 0, 0),
        (ApiKey::UpdateRaftVoter, 0, 0),
        (ApiKey::UnregisterController, 0, 0),
    ]
}

/// Every controller-listener API at the full range this project implements
/// (kraft-rs with the KIP-1141 and DescribeQuorum v3 extensions); broker-only
/// APIs such as DescribeClientQuotas are left out, as a controller would.
pub fn kraft_rs_versions() -> Vec<(ApiKey, i16, i16)> {
    ApiKey::ALL
        .iter()
        .filter(|k| k.on_controller_listener())
        .map(|k| {
            let (lo, hi) = k.versions();
            (*k, lo, hi)
        })
        .collect()
}

impl FakeNode {
    /// Starts a node advertising `versions`, answering with `handler`.
    pub async fn start(
        versions: Vec<(ApiKey, i16, i16)>,
        handler: impl FnMut(&Received) -> Reply + Send + 'static,
    ) -> FakeNode {
        let listener = TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind a loopback port");
        let addr = listener.local_addr().expect("local addr");
        let state = Arc::new(Mutex::new(State {
            api_versions: versions
                .iter()
                .map(|(k, lo, hi)| (k.id(), *lo, *hi))
                .collect(),
            supported_features: Vec::new(),
            finalized_features: Vec::new(),
            finalized_epoch: -1,
            handler: Box::new(handler),
            received: Vec::new(),
        }));
        let st = state.clone();
        let task = tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                tokio::spawn(serve(stream, st.clone()));
            }
        });
        FakeNode { addr, state, task }
    }

    /// `127.0.0.1:<port>`.
    pub fn address(&self) -> String {
        self.addr.to_string()
    }

    /// The port.
    pub fn port(&self) -> u16 {
        self.addr.port()
    }

    /// Replaces the handler.
    pub fn set_handler(&self, handler: impl FnMut(&Received) -> Reply + Send + 'static) {
        self.lock().handler = Box::new(handler);
    }

    /// Replaces the advertised API versions.
    pub fn set_versions(&self, versions: Vec<(ApiKey, i16, i16)>) {
        self.lock().api_versions = versions
            .iter()
            .map(|(k, lo, hi)| (k.id(), *lo, *hi))
            .collect();
    }

    /// Sets the features ApiVersions reports: supported `(name, min, max)`,
    /// finalized `(name, level)` and the finalized epoch.
    pub fn set_features(
        &self,
        supported: &[(&str, i16, i16)],
        finalized: &[(&str, i16)],
        epoch: i64,
    ) {
        let mut st = self.lock();
        st.supported_features = supported
            .iter()
            .map(|(n, a, b)| ((*n).to_owned(), *a, *b))
            .collect();
        st.finalized_features = finalized
            .iter()
            .map(|(n, l)| ((*n).to_owned(), *l))
            .collect();
        st.finalized_epoch = epoch;
    }

    /// Every request received so far (ApiVersions included).
    pub fn received(&self) -> Vec<Received> {
        self.lock().received.clone()
    }

    /// The requests of `api` received so far.
    pub fn received_of(&self, api: ApiKey) -> Vec<Received> {
        self.received()
            .into_iter()
            .filter(|r| r.api_key() == api)
            .collect()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }
}

fn api_versions_response(st: &State, version: i16) -> (ApiVersionsResponse, i16) {
    let max = st
        .api_versions
        .iter()
        .find(|(k, _, _)| *k == ApiKey::ApiVersions.id())
        .map(|(_, _, hi)| *hi)
        .unwrap_or(0);
    let keys = |only_self: bool| {
        st.api_versions
            .iter()
            .filter(|(k, _, _)| !only_self || *k == ApiKey::ApiVersions.id())
            .map(|(k, lo, hi)| ApiVersion {
                api_key: *k,
                min_version: *lo,
                max_version: *hi,
                ..Default::default()
            })
            .collect()
    };
    if version > max {
        // Kafka answers a too-new ApiVersions request with a v0 body.
        let r = ApiVersionsResponse {
            error_code: 35,
            api_keys: keys(true),
            ..Default::default()
        };
        return (r, 0);
    }
    let r = ApiVersionsResponse {
        error_code: 0,
        api_keys: keys(false),
        supported_features: st
            .supported_features
            .iter()
            .map(|(n, a, b)| SupportedFeatureKey {
                name: StrBytes::from(n.as_str()),
                min_version: *a,
                max_version: *b,
                ..Default::default()
            })
            .collect(),
        finalized_features_epoch: st.finalized_epoch,
        finalized_features: st
            .finalized_features
            .iter()
            .map(|(n, l)| FinalizedFeatureKey {
                name: StrBytes::from(n.as_str()),
                max_version_level: *l,
                min_version_level: *l,
                ..Default::default()
            })
            .collect(),
        ..Default::default()
    };
    (r, version)
}

async fn serve(mut stream: TcpStream, state: Arc<Mutex<State>>) {
    let mut buf = BytesMut::new();
    let mut decoder = FrameDecoder::new(DEFAULT_MAX_FRAME_SIZE);
    loop {
        let frame = loop {
            match decoder.decode(&mut buf) {
                Ok(Some(f)) => break f,
                Ok(None) => {}
                Err(_) => return,
            }
            match stream.read_buf(&mut buf).await {
                Ok(0) | Err(_) => return,
                Ok(_) => {}
            }
        };
        let Some((header, reply, encode_version)) = handle(frame, &state) else {
            return;
        };
        match reply {
            Reply::Close => return,
            Reply::Silence => continue,
            Reply::Respond(body) => {
                let api = body.api_key();
                let hv = api.response_header_version(header.request_api_version);
                let rh = ResponseHeader {
                    correlation_id: header.correlation_id,
                    ..Default::default()
                };
                let mut payload = Vec::new();
                if rh.encode(&mut payload, hv).is_err()
                    || body.encode(&mut payload, encode_version).is_err()
                {
                    return;
                }
                let mut out = Vec::with_capacity(payload.len() + 4);
                out.extend_from_slice(&(payload.len() as i32).to_be_bytes());
                out.extend_from_slice(&payload);
                if stream.write_all(&out).await.is_err() {
                    return;
                }
            }
        }
    }
}

fn handle(frame: Bytes, state: &Arc<Mutex<State>>) -> Option<(RequestHeader, Reply, i16)> {
    let mut st = state.lock().unwrap_or_else(|p| p.into_inner());
    // ApiVersions of any version is answered even when the body is unknown.
    if frame.len() >= 4 && i16::from_be_bytes([frame[0], frame[1]]) == ApiKey::ApiVersions.id() {
        let version = i16::from_be_bytes([frame[2], frame[3]]);
        let mut f = frame.clone();
        let parsed = kraft_protocol::header::decode_request_header(&mut f).ok()?;
        if let Ok(decoded) = decode_request(frame.clone()) {
            st.received.push(Received {
                header: decoded.header,
                body: decoded.body,
            });
        }
        let (resp, v) = api_versions_response(&st, version);
        return Some((
            parsed.header,
            Reply::Respond(ResponseBody::ApiVersions(resp)),
            v,
        ));
    }
    let decoded = decode_request(frame).ok()?;
    let received = Received {
        header: decoded.header.clone(),
        body: decoded.body,
    };
    st.received.push(received.clone());
    let reply = (st.handler)(&received);
    Some((
        decoded.header.clone(),
        reply,
        decoded.header.request_api_version,
    ))
}
