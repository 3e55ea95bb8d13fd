//! Rendering checked against text written by hand from the Prometheus text
//! format, and the HTTP handling through a real socket.

use std::cell::Cell;

use bytes::Bytes;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use super::*;
use crate::replication::test_support::{ImageBuilder, TestBroker};

fn not_understood(
    record_type: i16,
    version: i16,
    reason: NotUnderstoodReason,
    count: u64,
) -> NotUnderstood {
    NotUnderstood {
        record_type,
        version,
        reason,
        first_offset: 7,
        count,
    }
}

fn sample_metrics() -> ControllerMetrics {
    ControllerMetrics {
        active_controller: true,
        leader_id: Some(3),
        epoch: 12,
        high_watermark: Some(4711),
        last_applied_offset: 4710,
        image_loaded: true,
        snapshots_suspended: true,
        image: ImageGauges {
            brokers: BrokerCounts {
                fenced: 1,
                unfenced: 4,
                controlled_shutdown: 2,
            },
            topics: 5,
            partitions: 60,
            offline_partitions: 3,
            not_understood: vec![
                not_understood(12, 5, NotUnderstoodReason::UnknownVersion, 1),
                not_understood(300, 0, NotUnderstoodReason::UnknownType, 2),
            ],
            ..ImageGauges::default()
        },
        ..ControllerMetrics::default()
    }
}

const SAMPLE_TEXT: &str = "\
# HELP kraft_active_controller_count 1 if this node is the active controller, else 0 (Kafka's ActiveControllerCount).
# TYPE kraft_active_controller_count gauge
kraft_active_controller_count 1
# HELP kraft_raft_leader_id The node id of the raft leader, -1 when none is known.
# TYPE kraft_raft_leader_id gauge
kraft_raft_leader_id 3
# HELP kraft_raft_epoch The raft epoch this node is in.
# TYPE kraft_raft_epoch gauge
kraft_raft_epoch 12
# HELP kraft_raft_high_watermark The high watermark of the metadata log, -1 when unknown.
# TYPE kraft_raft_high_watermark gauge
kraft_raft_high_watermark 4711
# HELP kraft_metadata_last_applied_offset The offset of the last metadata record applied to the image, -1 when none.
# TYPE kraft_metadata_last_applied_offset gauge
kraft_metadata_last_applied_offset 4710
# HELP kraft_metadata_image_loaded 1 once the image holds everything committed when this node started, else 0.
# TYPE kraft_metadata_image_loaded gauge
kraft_metadata_image_loaded 1
# HELP kraft_metadata_brokers Registered brokers by state.
# TYPE kraft_metadata_brokers gauge
kraft_metadata_brokers{state=\"fenced\"} 1
kraft_metadata_brokers{state=\"unfenced\"} 4
kraft_metadata_brokers{state=\"controlled_shutdown\"} 2
# HELP kraft_metadata_topics Topics in the metadata image.
# TYPE kraft_metadata_topics gauge
kraft_metadata_topics 5
# HELP kraft_metadata_partitions Partitions in the metadata image.
# TYPE kraft_metadata_partitions gauge
kraft_metadata_partitions 60
# HELP kraft_metadata_offline_partitions Partitions without a leader (Kafka's OfflinePartitionsCount).
# TYPE kraft_metadata_offline_partitions gauge
kraft_metadata_offline_partitions 3
# HELP kraft_metadata_records_not_understood Metadata records of a type or version this build does not understand, kept in the image.
# TYPE kraft_metadata_records_not_understood gauge
kraft_metadata_records_not_understood{record_type=\"12\",version=\"5\",reason=\"unknown version\"} 1
kraft_metadata_records_not_understood{record_type=\"300\",version=\"0\",reason=\"unknown type\"} 2
# HELP kraft_metadata_snapshots_suspended 1 while this node takes no snapshot and applies no metadata log retention because it holds records it does not understand, else 0.
# TYPE kraft_metadata_snapshots_suspended gauge
kraft_metadata_snapshots_suspended 1
";

#[test]
fn renders_every_gauge_in_the_text_format() {
    let text = sample_metrics().render();
    assert!(
        text.starts_with(SAMPLE_TEXT),
        "the kraft_ families come first, unchanged:\n{text}"
    );
    assert!(text[SAMPLE_TEXT.len()..]
        .starts_with("# HELP kafka_controller_kafkacontroller_activecontrollercount "));
}

#[test]
fn unknown_values_are_minus_one_and_empty_families_keep_their_header() {
    let text = ControllerMetrics {
        last_applied_offset: -1,
        ..ControllerMetrics::default()
    }
    .render();
    for line in [
        "kraft_active_controller_count 0\n",
        "kraft_raft_leader_id -1\n",
        "kraft_raft_high_watermark -1\n",
        "kraft_metadata_last_applied_offset -1\n",
        "kraft_metadata_image_loaded 0\n",
        "kraft_metadata_snapshots_suspended 0\n",
        "# HELP kraft_metadata_records_not_understood Metadata records of a type or version \
         this build does not understand, kept in the image.\n\
         # TYPE kraft_metadata_records_not_understood gauge\n\
         # HELP kraft_metadata_snapshots_suspended ",
    ] {
        assert!(text.contains(line), "{line:?} missing from\n{text}");
    }
    assert!(!text.contains("kraft_metadata_records_not_understood{"));
}

#[test]
fn label_values_and_help_texts_are_escaped() {
    let mut out = Exposition::default();
    out.gauge(
        "kraft_test",
        "A back\\slash and a\nline feed; \"quotes\" stay.",
        &[
            Sample::labelled(&[("path", "C:\\dir"), ("quote", "say \"hi\"")], 1),
            Sample::labelled(&[("line", "one\ntwo")], -2),
        ],
    );
    assert_eq!(
        out.text,
        "# HELP kraft_test A back\\\\slash and a\\nline feed; \"quotes\" stay.\n\
         # TYPE kraft_test gauge\n\
         kraft_test{path=\"C:\\\\dir\",quote=\"say \\\"hi\\\"\"} 1\n\
         kraft_test{line=\"one\\ntwo\"} -2\n"
    );
}

/// Four brokers: 1 fenced, 2 in controlled shutdown, 3 and 4 unfenced.
fn four_brokers() -> ImageBuilder {
    let fenced = TestBroker {
        fenced: true,
        ..TestBroker::new(1)
    };
    let shutting_down = TestBroker {
        in_controlled_shutdown: true,
        ..TestBroker::new(2)
    };
    ImageBuilder::new(21, false)
        .broker(fenced)
        .broker(shutting_down)
        .brokers(&[3, 4])
}

#[test]
fn image_gauges_count_brokers_topics_and_leaderless_partitions() {
    let mut image = four_brokers()
        .topic(
            "a",
            kraft_protocol::Uuid::from_u64_pair(1, 1),
            &[&[3, 4], &[4, 3]],
        )
        .topic("b", kraft_protocol::Uuid::from_u64_pair(1, 2), &[&[], &[3]])
        .build();
    // Type 300 at version 0, twice; FeatureLevelRecord (12) at version 9.
    for offset in [10, 11] {
        image
            .replay_value(Bytes::from_static(&[0x01, 0xac, 0x02, 0x00, 0x00]), offset)
            .expect("noted");
    }
    image
        .replay_value(Bytes::from_static(&[0x01, 0x0c, 0x09, 0x00]), 12)
        .expect("noted");
    let gauges = ImageGauges::read(&image);
    assert_eq!(
        gauges.brokers,
        BrokerCounts {
            fenced: 1,
            unfenced: 2,
            controlled_shutdown: 1
        }
    );
    assert_eq!(
        (gauges.topics, gauges.partitions, gauges.offline_partitions),
        (2, 4, 1)
    );
    assert_eq!(
        gauges.not_understood,
        [
            NotUnderstood {
                first_offset: 12,
                ..not_understood(12, 9, NotUnderstoodReason::UnknownVersion, 1)
            },
            NotUnderstood {
                first_offset: 10,
                ..not_understood(300, 0, NotUnderstoodReason::UnknownType, 2)
            },
        ]
    );
}

fn answer_to(request: &str) -> (Response, bool) {
    let called = Cell::new(false);
    let response = answer(request.as_bytes(), || {
        called.set(true);
        "metrics\n".to_owned()
    });
    (response, called.get())
}

#[test]
fn get_metrics_is_answered_and_everything_else_is_refused() {
    let (ok, called) = answer_to("GET /metrics HTTP/1.1\r\nHost: x\r\nAccept: */*");
    assert!(called);
    assert_eq!(
        String::from_utf8(ok.to_bytes()).expect("utf-8"),
        "HTTP/1.1 200 OK\r\nContent-Type: text/plain; version=0.0.4\r\n\
         Content-Length: 8\r\nConnection: close\r\n\r\nmetrics\n"
    );
    assert_eq!(answer_to("GET /metrics?name[]=x HTTP/1.0").0.status, 200);
    assert_eq!(answer_to("GET /metrics HTTP/1.1\nHost: x").0.status, 200);
    for (request, status) in [
        ("GET / HTTP/1.1", 404),
        ("GET /metrics/ HTTP/1.1", 404),
        ("GET /metricsx HTTP/1.1", 404),
        ("POST /metrics HTTP/1.1", 405),
        ("HEAD /metrics HTTP/1.1", 405),
        ("GET /metrics HTTP/2.0", 505),
        ("GET /metrics", 400),
        ("GET  /metrics HTTP/1.1", 400),
        ("GET /metrics HTTP/1.1 extra", 400),
        ("GET metrics HTTP/1.1", 400),
        ("GET /metrics FTP/1.1", 400),
        ("", 400),
        ("\u{16}\u{3}\u{1}binary", 400),
    ] {
        let (response, called) = answer_to(request);
        assert_eq!(response.status, status, "{request:?}");
        assert!(!called, "{request:?} must not read the metrics");
        assert!(response
            .to_bytes()
            .starts_with(format!("HTTP/1.1 {status} {}\r\n", response.reason).as_bytes()));
    }
    let not_utf8 = answer(b"GET /metr\xff HTTP/1.1", String::new);
    assert_eq!(not_utf8.status, 400);
    let refused = answer_to("DELETE /metrics HTTP/1.1").0;
    assert!(String::from_utf8(refused.to_bytes())
        .expect("utf-8")
        .contains("\r\nAllow: GET\r\n"));
}

#[derive(Debug)]
struct Fixed(ControllerMetrics);

impl MetricsSource for Fixed {
    fn gather(&self) -> ControllerMetrics {
        self.0.clone()
    }
}

fn loopback() -> HostPort {
    HostPort {
        host: "127.0.0.1".into(),
        port: 0,
    }
}

async fn start_server() -> MetricsServer {
    MetricsServer::start(&loopback(), Arc::new(Fixed(sample_metrics())))
        .await
        .expect("binds")
}

/// Sends `request` (then closes the write side if `close`), returns all the
/// server wrote until it closed.
async fn exchange(server: &MetricsServer, request: &[u8], close: bool) -> String {
    let mut stream = TcpStream::connect(server.local_addr())
        .await
        .expect("connects");
    stream.write_all(request).await.expect("sends");
    if close {
        stream.shutdown().await.expect("half-closes");
    }
    let mut answer = Vec::new();
    tokio::time::timeout(Duration::from_secs(10), stream.read_to_end(&mut answer))
        .await
        .expect("the server closes the connection")
        .expect("reads");
    String::from_utf8(answer).expect("utf-8")
}

#[tokio::test]
async fn serves_one_answer_per_connection_over_tcp() {
    let server = start_server().await;
    assert_ne!(
        server.local_addr().port(),
        0,
        "port 0 binds an ephemeral port"
    );
    let ok = exchange(
        &server,
        b"GET /metrics HTTP/1.1\r\nHost: localhost\r\n\r\nGET / HTTP/1.1\r\n\r\n",
        false,
    )
    .await;
    let body = sample_metrics().render();
    let expected = format!(
        "HTTP/1.1 200 OK\r\nContent-Type: text/plain; version=0.0.4\r\nContent-Length: {}\r\n\
         Connection: close\r\n\r\n{body}",
        body.len()
    );
    assert_eq!(ok, expected, "one answer, then the connection is closed");
    let missing = exchange(&server, b"GET /nothing HTTP/1.1\r\n\r\n", false).await;
    assert!(
        missing.starts_with("HTTP/1.1 404 Not Found\r\n"),
        "{missing}"
    );
    let bad = exchange(&server, b"\x00\x00\x00\x10garbage\r\n\r\n", false).await;
    assert!(bad.starts_with("HTTP/1.1 400 Bad Request\r\n"), "{bad}");
    let cut = exchange(&server, b"GET /metrics HTTP/1.1\r\nHost:", true).await;
    assert!(cut.starts_with("HTTP/1.1 400 Bad Request\r\n"), "{cut}");
    assert_eq!(
        exchange(&server, b"", true).await,
        "",
        "nothing sent, nothing answered"
    );
    server.shutdown().await;
}

#[tokio::test]
async fn an_oversized_request_is_refused_and_the_server_keeps_serving() {
    let server = start_server().await;
    let mut request = b"GET /metrics HTTP/1.1\r\nX-Filler: ".to_vec();
    request.resize(MAX_REQUEST_BYTES * 2, b'a');
    let refused = exchange(&server, &request, false).await;
    assert!(
        refused.starts_with("HTTP/1.1 431 Request Header Fields Too Large\r\n"),
        "{refused}"
    );
    // A head of exactly the limit is still read.
    let mut request = b"GET /metrics HTTP/1.1\r\nX-Filler: ".to_vec();
    request.resize(MAX_REQUEST_BYTES - 4, b'a');
    request.extend_from_slice(b"\r\n\r\n");
    let ok = exchange(&server, &request, false).await;
    assert!(ok.starts_with("HTTP/1.1 200 OK\r\n"), "{ok}");
    server.shutdown().await;
}

#[tokio::test]
async fn a_silent_client_is_answered_408_after_the_timeout() {
    let server = MetricsServer::start_with_timeout(
        &loopback(),
        Arc::new(Fixed(sample_metrics())),
        Duration::from_millis(200),
    )
    .await
    .expect("binds");
    let mut stream = TcpStream::connect(server.local_addr())
        .await
        .expect("connects");
    stream.write_all(b"GET /met").await.expect("sends");
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer).await.expect("reads");
    let answer = String::from_utf8(answer).expect("utf-8");
    assert!(
        answer.starts_with("HTTP/1.1 408 Request Timeout\r\n"),
        "{answer}"
    );
    server.shutdown().await;
}

mod kafka_names;
