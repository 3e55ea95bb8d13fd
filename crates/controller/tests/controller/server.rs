//! The controller server over TCP with raw Kafka frames, backed by the real
//! handlers and a test double of the raft layer (an in-memory log that
//! commits every append at once).

use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use bytes::Bytes;
use kraft_controller::handlers::{
    ApiError, AppendError, Controller, ControllerSettings, PendingCommit, QuorumFacts, RaftQuorum,
};
use kraft_controller::image::{MetadataRecord, SharedImage};
use kraft_controller::server::{
    bind_listener, ControllerServer, ListenerSpec, ServerConfig, SocketOptions,
    AUTHENTICATION_TIMEOUT,
};
use kraft_protocol::header::{decode_response_as, encode_request_frame};
use kraft_protocol::messages::api_versions_request::ApiVersionsRequest;
use kraft_protocol::messages::api_versions_response::ApiVersionsResponse;
use kraft_protocol::messages::describe_cluster_request::DescribeClusterRequest;
use kraft_protocol::messages::describe_cluster_response::DescribeClusterResponse;
use kraft_protocol::messages::register_controller_record::{
    ControllerEndpoint, RegisterControllerRecord,
};
use kraft_protocol::messages::request_header::RequestHeader;
use kraft_protocol::messages::unregister_controller_request::UnregisterControllerRequest;
use kraft_protocol::messages::unregister_controller_response::UnregisterControllerResponse;
use kraft_protocol::{ApiKey, Encodable, Uuid};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// Test double of the raft layer: this node (1) leads epoch 3, every append
/// commits immediately into an in-memory log and is applied to the image.
struct InMemoryQuorum {
    image: SharedImage,
    log: Mutex<Vec<MetadataRecord>>,
}

#[async_trait]
impl RaftQuorum for InMemoryQuorum {
    fn facts(&self) -> QuorumFacts {
        QuorumFacts {
            leader_id: Some(1),
            epoch: 3,
            is_active_controller: true,
            kraft_version: 1,
            ..Default::default()
        }
    }

    async fn append(
        &self,
        epoch: i32,
        _base_offset: Option<i64>,
        records: Vec<MetadataRecord>,
    ) -> Result<PendingCommit, AppendError> {
        if epoch != 3 {
            return Err(AppendError::NotController { leader_id: Some(1) });
        }
        let mut log = self.log.lock().unwrap();
        let base = log.len() as i64;
        for r in records {
            let offset = log.len() as i64;
            self.image
                .apply_committed([(offset, Bytes::from(r.encode().unwrap()))])
                .map_err(|e| AppendError::Failed(e.to_string()))?;
            log.push(r);
        }
        let last = log.len() as i64 - 1;
        Ok(PendingCommit {
            base_offset: base,
            last_offset: last,
            applied: Box::pin(async move { Ok(last) }),
        })
    }

    async fn wait_applied(&self, _offset: i64) -> Result<(), AppendError> {
        Ok(())
    }

    async fn upgrade_kraft_version(
        &self,
        _epoch: i32,
        _version: i16,
        _validate_only: bool,
    ) -> Result<(), ApiError> {
        Ok(())
    }
}

struct Running {
    server: ControllerServer,
    addr: std::net::SocketAddr,
    quorum: Arc<InMemoryQuorum>,
}

async fn start(max_frame_size: usize) -> Running {
    let image = SharedImage::new();
    image.update(|i| {
        i.replay(&MetadataRecord::feature_level("metadata.version", 33))
            .unwrap();
        for id in [1, 5] {
            i.replay(&MetadataRecord::new(
                RegisterControllerRecord {
                    controller_id: id,
                    incarnation_id: Uuid::from_u64_pair(1, id as u64),
                    end_points: vec![ControllerEndpoint {
                        name: "CONTROLLER".into(),
                        host: "127.0.0.1".into(),
                        port: 9093,
                        security_protocol: 0,
                        ..Default::default()
                    }]
                    .into(),
                    ..Default::default()
                },
                0,
            ))
            .unwrap();
        }
        i.set_last_offset(1);
    });
    let quorum = Arc::new(InMemoryQuorum {
        image: image.clone(),
        log: Mutex::new(Vec::new()),
    });
    let controller = Controller::new(
        ControllerSettings {
            node_id: 1,
            cluster_id: "MkU3OEVBNTcwNTJENDM2Qk".to_string(),
            static_voter_ids: vec![],
            unstable_feature_versions: false,
            unstable_api_versions: false,
            broker_session_timeout: std::time::Duration::from_secs(9),
            broker_heartbeat_interval: std::time::Duration::from_secs(2),
            topics: Default::default(),
            authorizer: None,
            delegation_tokens: Default::default(),
            groups: Default::default(),
            static_configs: Default::default(),
            mutation_quota_window: Default::default(),
            performance: Default::default(),
        },
        image,
        quorum.clone(),
    );
    let server = ControllerServer::start(
        ServerConfig {
            listeners: vec![ListenerSpec {
                name: "CONTROLLER".to_string(),
                host: "127.0.0.1".to_string(),
                port: 0,
                early_start: true,
                security: None,
            }],
            max_frame_size,
            credentials: None,
            authentication_timeout: AUTHENTICATION_TIMEOUT,
            sockets: Default::default(),
            connections: Default::default(),
            ip_connection_rates: None,
        },
        Arc::new(controller),
    )
    .await
    .unwrap();
    let addr = server.local_addr("CONTROLLER").unwrap();
    Running {
        server,
        addr,
        quorum,
    }
}

fn request<M: Encodable>(api_key: ApiKey, version: i16, correlation_id: i32, body: &M) -> Vec<u8> {
    let header = RequestHeader {
        request_api_key: api_key.id(),
        request_api_version: version,
        correlation_id,
        client_id: Some("test-client".into()),
        ..Default::default()
    };
    let mut out = Vec::new();
    encode_request_frame(&mut out, &header, body).unwrap();
    out
}

async fn read_frame(stream: &mut TcpStream) -> Option<Vec<u8>> {
    let mut size = [0u8; 4];
    match tokio::time::timeout(Duration::from_secs(10), stream.read_exact(&mut size)).await {
        Ok(Ok(_)) => {}
        Ok(Err(_)) => return None,
        Err(_) => panic!("timed out waiting for a response"),
    }
    let mut payload = vec![0u8; u32::from_be_bytes(size) as usize];
    stream.read_exact(&mut payload).await.ok()?;
    Some(payload)
}

/// Whether the server closed the connection (EOF or reset) within 10 s.
async fn closed(stream: &mut TcpStream) -> bool {
    let mut b = [0u8; 1];
    match tokio::time::timeout(Duration::from_secs(10), stream.read(&mut b)).await {
        Ok(Ok(0)) | Ok(Err(_)) => true,
        Ok(Ok(_)) => false,
        Err(_) => false,
    }
}

fn api_versions_request(version: i16) -> ApiVersionsRequest {
    let mut r = ApiVersionsRequest::default();
    if version >= 3 {
        r.client_software_name = "kraft-rs-test".into();
        r.client_software_version = "0.1.0".into();
    }
    r
}

#[tokio::test]
async fn api_versions_every_version() {
    let r = start(1024 * 1024).await;
    let mut s = TcpStream::connect(r.addr).await.unwrap();
    for version in 0..=5 {
        s.write_all(&request(
            ApiKey::ApiVersions,
            version,
            100 + i32::from(version),
            &api_versions_request(version),
        ))
        .await
        .unwrap();
        let frame = read_frame(&mut s).await.unwrap();
        // Response header v0 (correlation id only) at every version.
        let (corr, resp) = decode_response_as::<ApiVersionsResponse>(
            Bytes::from(frame),
            ApiKey::ApiVersions,
            version,
        )
        .unwrap();
        assert_eq!(corr, 100 + i32::from(version));
        assert_eq!(resp.error_code, 0, "v{version}");
        let keys: Vec<i16> = resp.api_keys.iter().map(|k| k.api_key).collect();
        assert_eq!(
            keys,
            [
                17, 18, 19, 20, 29, 30, 31, 32, 33, 36, 37, 38, 39, 40, 43, 44, 45, 46, 49, 51, 56,
                57, 58, 60, 62, 63, 64, 67, 70, 73, 94
            ],
            "v{version}"
        );
        if version >= 3 {
            assert_eq!(resp.finalized_features_epoch, 1);
            assert!(resp
                .finalized_features
                .iter()
                .any(|f| f.name == "metadata.version" && f.max_version_level == 33));
            let has_kraft = resp
                .supported_features
                .iter()
                .any(|f| f.name == "kraft.version");
            assert_eq!(
                has_kraft,
                version >= 4,
                "kraft.version (min 0) only from v4"
            );
        } else {
            assert!(resp.supported_features.is_empty());
        }
    }
    r.server.shutdown().await;
}

#[tokio::test]
async fn api_versions_too_high_gets_the_v0_shaped_error() {
    let r = start(1024 * 1024).await;
    let mut s = TcpStream::connect(r.addr).await.unwrap();
    // Version 99 with a body the server must not parse.
    let mut frame = Vec::new();
    let header = [
        0x00, 0x12, 0x00, 0x63, 0x00, 0x00, 0x00, 0x2a, 0xff, 0xff, 0x00,
    ];
    frame.extend_from_slice(&((header.len() + 3) as u32).to_be_bytes());
    frame.extend_from_slice(&header);
    frame.extend_from_slice(&[0xde, 0xad, 0x00]);
    s.write_all(&frame).await.unwrap();
    let payload = read_frame(&mut s).await.unwrap();
    assert_eq!(
        payload,
        [
            0x00, 0x00, 0x00, 0x2a, // correlation id, response header v0
            0x00, 0x23, // UNSUPPORTED_VERSION
            0x00, 0x00, 0x00, 0x01, // ApiKeys: one entry (classic array)
            0x00, 0x12, 0x00, 0x00, 0x00, 0x05, // ApiVersions 0-5
        ]
    );
    // the connection stays usable
    s.write_all(&request(
        ApiKey::ApiVersions,
        3,
        43,
        &api_versions_request(3),
    ))
    .await
    .unwrap();
    let (corr, resp) = decode_response_as::<ApiVersionsResponse>(
        Bytes::from(read_frame(&mut s).await.unwrap()),
        ApiKey::ApiVersions,
        3,
    )
    .unwrap();
    assert_eq!((corr, resp.error_code), (43, 0));
    r.server.shutdown().await;
}

#[tokio::test]
async fn pipelined_requests_are_answered_in_order() {
    let r = start(1024 * 1024).await;
    let mut s = TcpStream::connect(r.addr).await.unwrap();
    let mut batch = Vec::new();
    batch.extend(request(ApiKey::ApiVersions, 3, 1, &api_versions_request(3)));
    batch.extend(request(
        ApiKey::UnregisterController,
        0,
        2,
        &UnregisterControllerRequest {
            controller_id: 5,
            ..Default::default()
        },
    ));
    batch.extend(request(
        ApiKey::DescribeCluster,
        1,
        3,
        &DescribeClusterRequest {
            endpoint_type: 2,
            ..Default::default()
        },
    ));
    batch.extend(request(
        ApiKey::UnregisterController,
        0,
        4,
        &UnregisterControllerRequest {
            controller_id: 5,
            ..Default::default()
        },
    ));
    batch.extend(request(ApiKey::ApiVersions, 0, 5, &api_versions_request(0)));
    s.write_all(&batch).await.unwrap();

    let f = read_frame(&mut s).await.unwrap();
    let (corr, _) =
        decode_response_as::<ApiVersionsResponse>(Bytes::from(f), ApiKey::ApiVersions, 3).unwrap();
    assert_eq!(corr, 1);
    let f = read_frame(&mut s).await.unwrap();
    let (corr, u) = decode_response_as::<UnregisterControllerResponse>(
        Bytes::from(f),
        ApiKey::UnregisterController,
        0,
    )
    .unwrap();
    assert_eq!(
        (corr, u.error_code, u.error_message.as_deref()),
        (2, 0, Some(""))
    );
    let f = read_frame(&mut s).await.unwrap();
    let (corr, d) =
        decode_response_as::<DescribeClusterResponse>(Bytes::from(f), ApiKey::DescribeCluster, 1)
            .unwrap();
    assert_eq!(corr, 3);
    // controller 5 is gone (the unregistration committed before this request ran)
    let ids: Vec<i32> = d.brokers.iter().map(|b| b.broker_id).collect();
    assert_eq!(ids, [1]);
    assert_eq!(d.controller_id, 1);
    let f = read_frame(&mut s).await.unwrap();
    let (corr, u) = decode_response_as::<UnregisterControllerResponse>(
        Bytes::from(f),
        ApiKey::UnregisterController,
        0,
    )
    .unwrap();
    assert_eq!(corr, 4);
    assert_eq!(u.error_code, 136);
    assert_eq!(
        u.error_message.as_deref(),
        Some("Controller ID 5 is not currently registered.")
    );
    let f = read_frame(&mut s).await.unwrap();
    let (corr, _) =
        decode_response_as::<ApiVersionsResponse>(Bytes::from(f), ApiKey::ApiVersions, 0).unwrap();
    assert_eq!(corr, 5);
    assert_eq!(r.quorum.log.lock().unwrap().len(), 1);
    r.server.shutdown().await;
}

#[tokio::test]
async fn bad_input_closes_only_that_connection() {
    let r = start(1024).await;
    let mut good = TcpStream::connect(r.addr).await.unwrap();

    // garbage: a frame too short to hold a header
    let mut bad = TcpStream::connect(r.addr).await.unwrap();
    bad.write_all(&[0, 0, 0, 3, 1, 2, 3]).await.unwrap();
    assert!(closed(&mut bad).await, "garbage closes the connection");

    // oversized frame (limit 1024): closed as soon as the size is read
    let mut big = TcpStream::connect(r.addr).await.unwrap();
    big.write_all(&[0, 0, 0x10, 0]).await.unwrap();
    assert!(
        closed(&mut big).await,
        "oversized frame closes the connection"
    );

    // negative size
    let mut neg = TcpStream::connect(r.addr).await.unwrap();
    neg.write_all(&[0xff, 0xff, 0xff, 0xfe]).await.unwrap();
    assert!(closed(&mut neg).await);

    // unknown API key (0 = Produce is not served by a controller)
    let mut unknown = TcpStream::connect(r.addr).await.unwrap();
    unknown
        .write_all(&[0, 0, 0, 10, 0, 0, 0, 9, 0, 0, 0, 1, 0xff, 0xff])
        .await
        .unwrap();
    assert!(closed(&mut unknown).await);

    // a served API at a version it does not serve
    let mut version = TcpStream::connect(r.addr).await.unwrap();
    let mut frame = request(
        ApiKey::UnregisterController,
        0,
        9,
        &UnregisterControllerRequest::default(),
    );
    frame[7] = 1; // version 1
    version.write_all(&frame).await.unwrap();
    assert!(closed(&mut version).await);

    // a body that does not decode
    let mut body = TcpStream::connect(r.addr).await.unwrap();
    let mut frame = request(
        ApiKey::UnregisterController,
        0,
        9,
        &UnregisterControllerRequest::default(),
    );
    frame.truncate(frame.len() - 3);
    let len = (frame.len() - 4) as u32;
    frame[..4].copy_from_slice(&len.to_be_bytes());
    body.write_all(&frame).await.unwrap();
    assert!(closed(&mut body).await);

    // the first connection still works
    good.write_all(&request(
        ApiKey::ApiVersions,
        2,
        7,
        &api_versions_request(2),
    ))
    .await
    .unwrap();
    let (corr, resp) = decode_response_as::<ApiVersionsResponse>(
        Bytes::from(read_frame(&mut good).await.unwrap()),
        ApiKey::ApiVersions,
        2,
    )
    .unwrap();
    assert_eq!((corr, resp.error_code), (7, 0));
    r.server.shutdown().await;
}

#[tokio::test]
async fn frames_split_across_writes() {
    let r = start(1024 * 1024).await;
    let mut s = TcpStream::connect(r.addr).await.unwrap();
    let frame = request(ApiKey::ApiVersions, 4, 11, &api_versions_request(4));
    for chunk in frame.chunks(3) {
        s.write_all(chunk).await.unwrap();
        s.flush().await.unwrap();
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
    let (corr, resp) = decode_response_as::<ApiVersionsResponse>(
        Bytes::from(read_frame(&mut s).await.unwrap()),
        ApiKey::ApiVersions,
        4,
    )
    .unwrap();
    assert_eq!((corr, resp.error_code), (11, 0));
    r.server.shutdown().await;
}

#[tokio::test]
async fn graceful_shutdown_closes_connections_and_stops_accepting() {
    let r = start(1024 * 1024).await;
    let mut s = TcpStream::connect(r.addr).await.unwrap();
    s.write_all(&request(
        ApiKey::ApiVersions,
        3,
        1,
        &api_versions_request(3),
    ))
    .await
    .unwrap();
    assert!(read_frame(&mut s).await.is_some());
    let handle = r.server.shutdown_handle();
    let waiter = tokio::spawn(r.server.wait());
    handle.shutdown();
    tokio::time::timeout(Duration::from_secs(10), waiter)
        .await
        .unwrap()
        .unwrap();
    assert!(closed(&mut s).await);
    assert!(
        TcpStream::connect(r.addr).await.is_err(),
        "listener is closed"
    );
}

/// A listener that is not early-start (`early.start.listeners`) is bound at
/// once but serves nobody until the image, and with it the committed ACLs,
/// is loaded; then the queued connection is answered.
#[tokio::test]
async fn a_late_listener_accepts_once_the_image_is_loaded() {
    let image = SharedImage::unloaded();
    let quorum = Arc::new(InMemoryQuorum {
        image: image.clone(),
        log: Mutex::new(Vec::new()),
    });
    let controller = Controller::new(
        ControllerSettings {
            node_id: 1,
            cluster_id: "MkU3OEVBNTcwNTJENDM2Qk".to_string(),
            static_voter_ids: vec![],
            unstable_feature_versions: false,
            unstable_api_versions: false,
            broker_session_timeout: Duration::from_secs(9),
            broker_heartbeat_interval: Duration::from_secs(2),
            topics: Default::default(),
            authorizer: None,
            delegation_tokens: Default::default(),
            groups: Default::default(),
            static_configs: Default::default(),
            mutation_quota_window: Default::default(),
            performance: Default::default(),
        },
        image.clone(),
        quorum,
    );
    let listener = |name: &str, early_start| ListenerSpec {
        name: name.to_string(),
        host: "127.0.0.1".to_string(),
        port: 0,
        early_start,
        security: None,
    };
    let server = ControllerServer::start(
        ServerConfig {
            listeners: vec![listener("CONTROLLER", true), listener("LATE", false)],
            max_frame_size: 1 << 20,
            credentials: None,
            authentication_timeout: AUTHENTICATION_TIMEOUT,
            sockets: Default::default(),
            connections: Default::default(),
            ip_connection_rates: None,
        },
        Arc::new(controller),
    )
    .await
    .unwrap();
    let ask = |corr| request(ApiKey::ApiVersions, 3, corr, &api_versions_request(3));
    let mut early = TcpStream::connect(server.local_addr("CONTROLLER").unwrap())
        .await
        .unwrap();
    early.write_all(&ask(1)).await.unwrap();
    assert!(
        read_frame(&mut early).await.is_some(),
        "early listener answers"
    );
    let mut late = TcpStream::connect(server.local_addr("LATE").unwrap())
        .await
        .unwrap();
    late.write_all(&ask(2)).await.unwrap();
    let mut b = [0u8; 4];
    let waited = tokio::time::timeout(Duration::from_millis(500), late.read_exact(&mut b)).await;
    assert!(waited.is_err(), "no answer before the image is loaded");
    image.mark_loaded();
    let mut payload = vec![
        0u8;
        u32::from_be_bytes({
            tokio::time::timeout(Duration::from_secs(10), late.read_exact(&mut b))
                .await
                .expect("answered once loaded")
                .unwrap();
            b
        }) as usize
    ];
    late.read_exact(&mut payload).await.unwrap();
    let (corr, resp) =
        decode_response_as::<ApiVersionsResponse>(Bytes::from(payload), ApiKey::ApiVersions, 3)
            .unwrap();
    assert_eq!((corr, resp.error_code), (2, 0));
    server.shutdown().await;
}

/// `socket.send.buffer.bytes` and `socket.receive.buffer.bytes` set on the
/// listening socket reach the connections it accepts (Linux reports twice
/// the value set, its bookkeeping included); -1 leaves the OS default.
#[cfg(target_os = "linux")]
#[tokio::test]
async fn listener_socket_options_reach_accepted_connections() {
    async fn accepted_buffers(options: SocketOptions) -> (u32, u32) {
        let listener = bind_listener("127.0.0.1", 0, &options).await.unwrap();
        let addr = listener.local_addr().unwrap();
        let _client = TcpStream::connect(addr).await.unwrap();
        let (stream, _) = listener.accept().await.unwrap();
        let socket = tokio::net::TcpSocket::from_std_stream(stream.into_std().unwrap());
        (
            socket.send_buffer_size().unwrap(),
            socket.recv_buffer_size().unwrap(),
        )
    }
    let set = SocketOptions {
        send_buffer_bytes: Some(48_000),
        receive_buffer_bytes: Some(56_000),
        listen_backlog: 7,
        failed_authentication_delay: Duration::ZERO,
    };
    assert_eq!(accepted_buffers(set).await, (96_000, 112_000));
    let os = accepted_buffers(SocketOptions {
        send_buffer_bytes: None,
        receive_buffer_bytes: None,
        ..set
    })
    .await;
    assert_ne!(os, (96_000, 112_000), "the OS defaults");
}
