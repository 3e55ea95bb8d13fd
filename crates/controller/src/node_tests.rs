//! Three real controller nodes in one process, over loopback sockets and
//! on-disk logs: the active controller's writer is handed a record its
//! state refuses (a test-only generator: no handler generates one). Nothing
//! is appended, the answer carries the reason, the leader resigns, another
//! node leads, and every node's log and image stay intact.

#![allow(clippy::unwrap_used)]

use std::path::Path;
use std::time::Duration;

use kraft_protocol::{ErrorCode, Uuid};
use kraft_testkit::{free_port, TempDir};

use crate::config::ControllerConfig;
use crate::format::{format, FormatOptions, InitialQuorum};
use crate::handlers::ApiError;
use crate::java::random_directory_id;
use crate::node::ControllerNode;

const PATIENCE: Duration = Duration::from_secs(30);

fn config(id: usize, dir: &Path, ports: &[u16]) -> ControllerConfig {
    let bootstrap = ports
        .iter()
        .map(|p| format!("127.0.0.1:{p}"))
        .collect::<Vec<_>>()
        .join(",");
    let text = format!(
        "node.id={id}\nprocess.roles=controller\ncontroller.listener.names=CONTROLLER\n\
         listeners=CONTROLLER://127.0.0.1:{}\nlog.dirs={d}\nmetadata.log.dir={d}\n\
         controller.quorum.bootstrap.servers={bootstrap}\n",
        ports[id - 1],
        d = dir.display()
    );
    ControllerConfig::parse(&kraft_protocol::text::Properties::parse(&text).unwrap())
        .unwrap()
        .0
}

/// Polls `f` every 20 ms until it holds, up to [`PATIENCE`].
async fn until(what: &str, mut f: impl FnMut() -> bool) {
    let deadline = tokio::time::Instant::now() + PATIENCE;
    while !f() {
        assert!(tokio::time::Instant::now() < deadline, "timed out: {what}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// The active controller among `nodes`, once there is one.
async fn active(nodes: &[ControllerNode]) -> usize {
    let mut found = None;
    until("a node is the active controller", || {
        found = nodes
            .iter()
            .position(|n| n.controller.quorum_facts().is_active_controller);
        found.is_some()
    })
    .await;
    found.unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_generated_record_is_not_appended_and_another_node_leads() {
    let tmp = TempDir::new("node-refused-record");
    let ports: Vec<u16> = (0..3).map(|_| free_port()).collect();
    let initial = (1..=3)
        .map(|id| {
            format!(
                "{id}@127.0.0.1:{}:{}",
                ports[id - 1],
                kraft_protocol::kafka_uuid::to_string(&random_directory_id())
            )
        })
        .collect::<Vec<_>>()
        .join(",");
    let mut nodes = Vec::new();
    for id in 1..=3 {
        let dir = tmp.join(format!("data-{id}"));
        format(&FormatOptions {
            config: config(id, &dir, &ports),
            cluster_id: "MkU3OEVBNTcwNTJENDM2Qk".to_string(),
            release_version: None,
            features: Vec::new(),
            ignore_formatted: false,
            initial_quorum: InitialQuorum::InitialControllers(initial.clone()),
            now_ms: None,
        })
        .unwrap();
        nodes.push(
            ControllerNode::start(config(id, &dir, &ports))
                .await
                .unwrap(),
        );
    }
    let old = active(&nodes).await;
    let epoch = nodes[old].raft().status().leader.epoch;
    // Everything so far committed everywhere: the log ends where the
    // image does on every node.
    let end = nodes[old].raft().status().high_watermark.unwrap();
    until("every node applied the activation", || {
        nodes
            .iter()
            .all(|n| n.image().read().last_offset() + 1 >= end)
    })
    .await;
    let stats = nodes[old].write_stats();

    let unknown = Uuid::from_u64_pair(7, 7);
    let answer = nodes[old]
        .controller
        .write(None, |_| Ok(crate::handlers::writer::remove_topic(unknown)))
        .await;
    let Err(ApiError { code, message }) = answer else {
        panic!("the write succeeded: {answer:?}");
    };
    assert_eq!(code, ErrorCode::UnknownServerError);
    let message = message.unwrap_or_default();
    assert!(
        message.contains("Unable to apply RemoveTopicRecord record at offset")
            && message.contains("on active controller"),
        "{message}"
    );
    assert_eq!(
        nodes[old].write_stats().batches_appended,
        stats.batches_appended,
        "nothing was appended"
    );

    // The leader resigned; another node leads a later epoch.
    let mut new = old;
    until("another node is the active controller", || {
        new = nodes
            .iter()
            .position(|n| {
                let s = n.raft().status();
                n.controller.quorum_facts().is_active_controller && s.leader.epoch > epoch
            })
            .unwrap_or(old);
        new != old
    })
    .await;
    // Every node goes on: the new leader's writes commit everywhere, and
    // no node stopped on a record it could not apply.
    let hw = nodes[new].raft().status().high_watermark.unwrap();
    until("every node applied the new leader's activation", || {
        nodes
            .iter()
            .all(|n| n.image().read().last_offset() + 1 >= hw)
    })
    .await;
    for (i, n) in nodes.iter().enumerate() {
        assert!(n.fatal.borrow().is_none(), "node {} failed", i + 1);
        assert!(
            n.image().read().topics().topic(&unknown).is_none(),
            "node {}",
            i + 1
        );
    }
    for n in nodes {
        n.shutdown().await;
    }
}
