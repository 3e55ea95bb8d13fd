//! The active controller's one writer, in a real (single node, in-process)
//! controller over its on-disk log and real sockets: activation, the idle
//! NoOpRecord and the handlers' writes all go through it, so every batch
//! starts where the writer predicted; a batch the log refuses for its size
//! reaches the client with Kafka's code.

use std::net::SocketAddr;
use std::path::Path;
use std::time::Duration;

use bytes::Bytes;
use kraft_controller::config::ControllerConfig;
use kraft_controller::format::{format, FormatOptions, InitialQuorum};
use kraft_controller::node::ControllerNode;
use kraft_protocol::header::{decode_response_as, encode_request_frame};
use kraft_protocol::messages::incremental_alter_configs_request::{
    AlterConfigsResource, AlterableConfig, IncrementalAlterConfigsRequest,
};
use kraft_protocol::messages::incremental_alter_configs_response::IncrementalAlterConfigsResponse;
use kraft_protocol::messages::request_header::RequestHeader;
use kraft_protocol::{ApiKey, ErrorCode};
use kraft_testkit::{free_port, wait_for};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::common::TempDir;

const PATIENCE: Duration = Duration::from_secs(30);

/// A standalone controller on `port` with a NoOpRecord every `idle_ms`.
fn config(dir: &Path, port: u16, idle_ms: u64) -> ControllerConfig {
    let text = format!(
        "node.id=1\nprocess.roles=controller\ncontroller.listener.names=CONTROLLER\n\
         listeners=CONTROLLER://127.0.0.1:{port}\nlog.dirs={d}\nmetadata.log.dir={d}\n\
         controller.quorum.bootstrap.servers=127.0.0.1:{port}\n\
         metadata.max.idle.interval.ms={idle_ms}\n",
        d = dir.display()
    );
    ControllerConfig::parse(&kraft_protocol::text::Properties::parse(&text).unwrap())
        .unwrap()
        .0
}

/// Formats and starts a standalone controller; returns once it is active.
async fn start(tmp: &TempDir, idle_ms: u64) -> (ControllerNode, SocketAddr) {
    let dir = tmp.path().join("data");
    let port = free_port();
    format(&FormatOptions {
        config: config(&dir, port, idle_ms),
        cluster_id: "MkU3OEVBNTcwNTJENDM2Qk".to_string(),
        release_version: None,
        features: Vec::new(),
        ignore_formatted: false,
        initial_quorum: InitialQuorum::Standalone,
        add_scram: Vec::new(),
        now_ms: None,
    })
    .unwrap();
    let node = ControllerNode::start(config(&dir, port, idle_ms))
        .await
        .unwrap();
    let addr = node.local_addr("CONTROLLER").unwrap();
    wait_for("the controller is active", PATIENCE, || {
        (node.image().read().controller(1).is_some() && node.write_stats().batches_appended > 0)
            .then_some(())
    });
    (node, addr)
}

/// One IncrementalAlterConfigs v0 round trip on `stream`: sets `name` to
/// `value` in the cluster-wide BROKER config.
async fn alter(
    stream: &mut TcpStream,
    correlation_id: i32,
    name: &str,
    value: String,
) -> IncrementalAlterConfigsResponse {
    alter_many(stream, correlation_id, vec![(name.to_string(), value)]).await
}

/// [`alter`] of several keys in one request.
async fn alter_many(
    stream: &mut TcpStream,
    correlation_id: i32,
    configs: Vec<(String, String)>,
) -> IncrementalAlterConfigsResponse {
    let body = IncrementalAlterConfigsRequest {
        resources: vec![AlterConfigsResource {
            resource_type: 4,
            resource_name: "".into(),
            configs: configs
                .into_iter()
                .map(|(name, value)| AlterableConfig {
                    name: name.as_str().into(),
                    config_operation: 0,
                    value: Some(value.as_str().into()),
                    ..Default::default()
                })
                .collect::<Vec<_>>()
                .into(),
            ..Default::default()
        }]
        .into(),
        ..Default::default()
    };
    let header = RequestHeader {
        request_api_key: ApiKey::IncrementalAlterConfigs.id(),
        request_api_version: 0,
        correlation_id,
        client_id: Some("writer-test".into()),
        ..Default::default()
    };
    let mut frame = Vec::new();
    encode_request_frame(&mut frame, &header, &body).unwrap();
    stream.write_all(&frame).await.unwrap();
    let mut size = [0u8; 4];
    tokio::time::timeout(PATIENCE, stream.read_exact(&mut size))
        .await
        .expect("an answer in time")
        .unwrap();
    let mut payload = vec![0u8; u32::from_be_bytes(size) as usize];
    stream.read_exact(&mut payload).await.unwrap();
    let (id, r) =
        decode_response_as(Bytes::from(payload), ApiKey::IncrementalAlterConfigs, 0).unwrap();
    assert_eq!(id, correlation_id);
    r
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn activation_no_ops_and_handler_writes_go_through_one_writer() {
    let tmp = TempDir::new("writer-one");
    // A NoOpRecord every 2 ms: it races every handler write.
    let (node, addr) = start(&tmp, 2).await;
    let before = node.write_stats();
    assert_eq!(
        before.states_built, 1,
        "one write state, taken on activation"
    );

    let mut clients = Vec::new();
    for client in 0..4 {
        clients.push(tokio::spawn(async move {
            let mut s = TcpStream::connect(addr).await.unwrap();
            for i in 0..25 {
                let r = alter(&mut s, i, &format!("writer.test.{client}"), i.to_string()).await;
                assert_eq!(r.responses.len(), 1);
                let code = r.responses.first().map(|a| a.error_code);
                assert_eq!(code, Some(0), "{r:?}");
            }
        }));
    }
    for c in clients {
        c.await.unwrap();
    }
    let after = node.write_stats();
    let no_ops = after.batches_appended - before.batches_appended - 100;
    assert!(no_ops > 0, "NoOpRecords were appended meanwhile: {after:?}");
    assert_eq!(
        (after.offset_mismatches, after.states_built),
        (0, 1),
        "every batch started where the writer predicted and its state was never taken again: {after:?}"
    );
    let image = node.image().read().clone();
    for client in 0..4 {
        let name = format!("writer.test.{client}");
        assert_eq!(image.configs().cluster_default(&name), Some("24"), "{name}");
    }
    node.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_batch_over_the_log_limit_is_answered_record_list_too_large() {
    let tmp = TempDir::new("writer-too-large");
    let (node, addr) = start(&tmp, 500).await;
    let mut s = TcpStream::connect(addr).await.unwrap();
    // 300 ConfigRecords of 30,000 bytes each, written in one batch: over
    // the 8 MiB batch limit of Kafka's controller (`MAX_BATCH_SIZE_BYTES`).
    let huge = (0..300)
        .map(|i| (format!("huge.value.{i}"), "x".repeat(30_000)))
        .collect();
    let r = alter_many(&mut s, 1, huge).await;
    let answer = r.responses.first().expect("one answer").into_owned();
    assert_eq!(
        answer.error_code,
        i16::from(ErrorCode::RecordListTooLarge),
        "{:?}",
        answer.error_message
    );
    let message = answer.error_message.as_deref().unwrap_or_default();
    assert!(
        message.starts_with("The total record(s) size of ")
            && message.ends_with(" exceeds the maximum allowed batch size of 8388608"),
        "{message}"
    );
    // Nothing was written, and the same connection and writer go on.
    let r = alter(&mut s, 2, "small.value", "1".to_string()).await;
    let code = r.responses.first().map(|a| a.error_code);
    assert_eq!(code, Some(0), "{r:?}");
    let image = node.image().read().clone();
    assert_eq!(image.configs().cluster_default("huge.value.0"), None);
    assert_eq!(image.configs().cluster_default("small.value"), Some("1"));
    assert!(node.raft().status().is_leader, "no failover");
    node.shutdown().await;
}
