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
            add_scram: Vec::new(),
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
        .write("removeTopic", None, |_| {
            Ok(crate::handlers::writer::remove_topic(unknown))
        })
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

/// `kraft storage format --add-scram` with passwords, then a real node:
/// once active it has put the bootstrap credentials in its image, and the
/// SCRAM-SHA-256 one answers RFC 7677's example exchange (user `user`,
/// password `pencil`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_node_formatted_with_scram_credentials_has_them_in_its_image() {
    use base64::engine::general_purpose::STANDARD as BASE64;
    use base64::Engine;
    use hmac::digest::KeyInit;
    use hmac::{Hmac, Mac};
    use sha2::{Digest, Sha256};

    let tmp = TempDir::new("node-scram");
    let ports = [free_port()];
    let dir = tmp.join("data-1");
    let report = format(&FormatOptions {
        config: config(1, &dir, &ports),
        cluster_id: "MkU3OEVBNTcwNTJENDM2Qk".to_string(),
        release_version: None,
        features: Vec::new(),
        ignore_formatted: false,
        initial_quorum: InitialQuorum::Standalone,
        add_scram: vec![
            "SCRAM-SHA-256=[name=user,password=pencil,salt=\"W22ZaJ0SNY7soEsUEjb6gQ==\"]"
                .to_string(),
            "SCRAM-SHA-512=[name=alice,password=alice-secret,iterations=8192]".to_string(),
        ],
        now_ms: None,
    })
    .unwrap();
    assert!(!report.output.iter().any(|l| l.contains("pencil")));
    let nodes = vec![ControllerNode::start(config(1, &dir, &ports))
        .await
        .unwrap()];
    active(&nodes).await;
    until("the image holds the bootstrap credentials", || {
        let image = nodes[0].image().read();
        image.scram().credential(1, "user").is_some()
            && image.scram().credential(2, "alice").is_some()
    })
    .await;
    let (user, alice) = {
        let image = nodes[0].image().read();
        (
            image.scram().credential(1, "user").cloned().unwrap(),
            image.scram().credential(2, "alice").cloned().unwrap(),
        )
    };
    assert_eq!((user.iterations, alice.iterations), (4096, 8192));
    assert_eq!(BASE64.encode(&user.salt), "W22ZaJ0SNY7soEsUEjb6gQ==");
    assert!(!alice.salt.is_empty() && alice.salt.iter().all(u8::is_ascii_alphanumeric));
    assert_eq!((alice.stored_key.len(), alice.server_key.len()), (64, 64));

    // RFC 7677 section 3: the server signature (v=) from the server key,
    // and the client proof (p=) checked against the stored key.
    let auth_message = "n=user,r=rOprNGfwEbeRWgbNEkqO,\
        r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096,\
        c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0";
    let hmac = |key: &[u8]| {
        let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(key).unwrap();
        mac.update(auth_message.as_bytes());
        mac.finalize().into_bytes().to_vec()
    };
    assert_eq!(
        BASE64.encode(hmac(&user.server_key)),
        "6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4="
    );
    let proof = BASE64
        .decode("dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=")
        .unwrap();
    let client_key: Vec<u8> = proof
        .iter()
        .zip(hmac(&user.stored_key))
        .map(|(p, s)| p ^ s)
        .collect();
    assert_eq!(Sha256::digest(&client_key).as_slice(), &user.stored_key[..]);

    for n in nodes {
        n.shutdown().await;
    }
}
