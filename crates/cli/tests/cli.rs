//! The `kraft` command line end to end against scripted fake controllers
//! (`kraft_admin::testing`), run in-process through `run_main`.

mod e2e;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use kraft_admin::testing::{
    kafka_4_4_controller_versions, kraft_rs_versions, FakeNode, Received, Reply,
};
use kraft_admin::{kafka_uuid, ApiKey, ErrorCode};
use kraft_protocol::messages::add_raft_voter_response::AddRaftVoterResponse;
use kraft_protocol::messages::describe_cluster_response::{
    DescribeClusterBroker, DescribeClusterResponse,
};
use kraft_protocol::messages::describe_quorum_response::{
    DescribeQuorumResponse, Listener, Node, PartitionData, ReplicaState, TopicData,
};
use kraft_protocol::messages::remove_raft_voter_response::RemoveRaftVoterResponse;
use kraft_protocol::messages::unregister_broker_response::UnregisterBrokerResponse;
use kraft_protocol::messages::unregister_controller_response::UnregisterControllerResponse;
use kraft_protocol::messages::update_features_response::UpdateFeaturesResponse;
use kraft_protocol::{RequestBody, ResponseBody, StrBytes};
use kraft_testkit::{free_port, TempDir};

const DIR1: &str = "J8aAPcfLQt2bqs1JT_rMgQ";
const DIR2: &str = "ILZ5MPTeRWakmJu99uBJCA";
const DIR4: &str = "cHvrFCk5SOqvBRm0q8kGUA";

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

fn kraft(args: &[&str]) -> Run {
    let mut out = Vec::new();
    let mut err = Vec::new();
    let mut argv = vec!["kraft"];
    argv.extend_from_slice(args);
    let code = kraft_cli::run_main(argv, &mut out, &mut err);
    Run {
        code,
        stdout: String::from_utf8_lossy(&out).into_owned(),
        stderr: String::from_utf8_lossy(&err).into_owned(),
    }
}

fn replica(id: i32, dir: &str, leo: i64, ts: i64) -> ReplicaState {
    ReplicaState {
        replica_id: id,
        replica_directory_id: kafka_uuid::parse(dir).expect("uuid"),
        log_end_offset: leo,
        last_fetch_timestamp: ts,
        last_caught_up_timestamp: ts,
        ..Default::default()
    }
}

/// The handler answers of a fake active controller 1 on `port`, with voters
/// 1 and 2, observer 4 and registrations 1, 2 and 4.
/// The fake's quorum: voters 1 and 2, observer 4 — or, once an
/// AddRaftVoter was answered (`added`), 4 as a voter with its endpoint.
fn quorum_response(port: u16, added: bool) -> DescribeQuorumResponse {
    let node = |id: i32, p: u16| Node {
        node_id: id,
        listeners: vec![Listener {
            name: StrBytes::from("CONTROLLER"),
            host: StrBytes::from("127.0.0.1"),
            port: p,
            ..Default::default()
        }]
        .into(),
        ..Default::default()
    };
    DescribeQuorumResponse {
        topics: vec![TopicData {
            topic_name: StrBytes::from("__cluster_metadata"),
            partitions: vec![PartitionData {
                partition_index: 0,
                leader_id: 1,
                leader_epoch: 3,
                high_watermark: 90,
                current_voters: [
                    replica(1, DIR1, 95, 1_700_000_000_500),
                    replica(2, DIR2, 90, 1_700_000_000_000),
                ]
                .into_iter()
                .chain(added.then(|| replica(4, DIR4, 95, 1_700_000_000_400)))
                .collect::<Vec<_>>()
                .into(),
                observers: (!added)
                    .then(|| replica(4, DIR4, 95, 1_700_000_000_400))
                    .into_iter()
                    .collect::<Vec<_>>()
                    .into(),
                ..Default::default()
            }]
            .into(),
            ..Default::default()
        }]
        .into(),
        nodes: [node(1, port), node(2, 19_002)]
            .into_iter()
            .chain(added.then(|| node(4, 19_004)))
            .collect::<Vec<_>>()
            .into(),
        ..Default::default()
    }
}

fn cluster_response(port: u16) -> DescribeClusterResponse {
    DescribeClusterResponse {
        endpoint_type: 2,
        cluster_id: StrBytes::from("q1Sh-9_ISia_zwGINzRvyQ"),
        controller_id: 1,
        brokers: [(1, i32::from(port)), (2, 19_002), (4, 19_004)]
            .into_iter()
            .map(|(id, p)| DescribeClusterBroker {
                broker_id: id,
                host: StrBytes::from("127.0.0.1"),
                port: p,
                ..Default::default()
            })
            .collect(),
        ..Default::default()
    }
}

struct Fake {
    _rt: tokio::runtime::Runtime,
    node: FakeNode,
}

impl Fake {
    fn bootstrap(&self) -> String {
        self.node.address()
    }
}

/// A fake active controller; `extra` answers everything but DescribeCluster and DescribeQuorum.
fn fake(
    versions: Vec<(ApiKey, i16, i16)>,
    mut extra: impl FnMut(&Received) -> Reply + Send + 'static,
) -> Fake {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("runtime");
    let node = rt.block_on(FakeNode::start(versions, |_| Reply::Close));
    let port = node.port();
    let mut added = false;
    node.set_handler(move |r| match &r.body {
        RequestBody::DescribeCluster(_) => {
            Reply::Respond(ResponseBody::DescribeCluster(cluster_response(port)))
        }
        RequestBody::DescribeQuorum(_) => {
            Reply::Respond(ResponseBody::DescribeQuorum(quorum_response(port, added)))
        }
        RequestBody::AddRaftVoter(_) => {
            let reply = extra(r);
            added = true;
            reply
        }
        _ => extra(r),
    });
    node.set_features(
        &[("metadata.version", 7, 33), ("kraft.version", 0, 1)],
        &[("metadata.version", 33), ("kraft.version", 1)],
        9,
    );
    Fake { _rt: rt, node }
}

fn ok_everything(r: &Received) -> Reply {
    match r.body {
        RequestBody::AddRaftVoter(_) => {
            Reply::Respond(ResponseBody::AddRaftVoter(AddRaftVoterResponse::default()))
        }
        RequestBody::RemoveRaftVoter(_) => Reply::Respond(ResponseBody::RemoveRaftVoter(
            RemoveRaftVoterResponse::default(),
        )),
        RequestBody::UnregisterController(_) => Reply::Respond(ResponseBody::UnregisterController(
            UnregisterControllerResponse {
                error_message: Some(StrBytes::new()),
                ..Default::default()
            },
        )),
        RequestBody::UpdateFeatures(_) => Reply::Respond(ResponseBody::UpdateFeatures(
            UpdateFeaturesResponse::default(),
        )),
        _ => Reply::Close,
    }
}

/// A command config that gives up quickly, in a directory that lives as long
/// as the returned [`TempDir`].
fn quick_config(name: &str) -> (TempDir, String) {
    let d = TempDir::new(&format!("cli-{name}"));
    let p = d.join("admin.properties");
    std::fs::write(
        &p,
        "request.timeout.ms=400\ndefault.api.timeout.ms=1200\nretry.backoff.ms=20\nretry.backoff.max.ms=100\n",
    )
    .expect("write");
    let path = p.display().to_string();
    (d, path)
}

#[test]
fn describe_status_and_replication() {
    let f = fake(kafka_4_4_controller_versions(), ok_everything);
    let bs = f.bootstrap();
    let status = kraft(&[
        "metadata-quorum",
        "--bootstrap-controller",
        &bs,
        "describe",
        "--status",
    ]);
    assert_eq!(status.code, 0, "{}", status.stderr);
    let expected = format!(
        "ClusterId:              q1Sh-9_ISia_zwGINzRvyQ\n\
         LeaderId:               1\n\
         LeaderEpoch:            3\n\
         HighWatermark:          90\n\
         MaxFollowerLag:         5\n\
         MaxFollowerLagTimeMs:   500\n\
         CurrentVoters:          [{{\"id\": 1, \"directoryId\": \"{DIR1}\", \"endpoints\": [\"CONTROLLER://127.0.0.1:{}\"]}}, {{\"id\": 2, \"directoryId\": \"{DIR2}\", \"endpoints\": [\"CONTROLLER://127.0.0.1:19002\"]}}]\n\
         CurrentObservers:       [{{\"id\": 4, \"directoryId\": \"{DIR4}\"}}]\n",
        f.node.port()
    );
    assert_eq!(status.stdout, expected);

    // Global flags may also follow the subcommand.
    let repl = kraft(&[
        "metadata-quorum",
        "describe",
        "--replication",
        "--bootstrap-controller",
        &bs,
    ]);
    assert_eq!(repl.code, 0, "{}", repl.stderr);
    insta::assert_snapshot!("cli_replication", repl.stdout);

    let json = kraft(&[
        "metadata-quorum",
        "--bootstrap-controller",
        &bs,
        "describe",
        "--status",
        "--output",
        "json",
    ]);
    assert_eq!(json.code, 0, "{}", json.stderr);
    let v: serde_json::Value = serde_json::from_str(&json.stdout).expect("valid json");
    assert_eq!(v["leaderId"], 1);
    assert_eq!(v["currentObservers"][0]["directoryId"], DIR4);
    assert_eq!(v["committedVoters"], serde_json::Value::Null);

    let hr = kraft(&[
        "metadata-quorum",
        "--bootstrap-controller",
        &bs,
        "describe",
        "--replication",
        "--human-readable",
    ]);
    assert_eq!(hr.code, 0, "{}", hr.stderr);
    assert!(hr.stdout.contains(" ms ago"), "{}", hr.stdout);
}

#[test]
fn describe_flag_errors_are_kafkas() {
    let cases: &[(&[&str], &str)] = &[
        (
            &["describe"],
            "One of --status or --replication must be specified with describe sub-command\n",
        ),
        (
            &["describe", "--status", "--replication"],
            "Only one of --status or --replication should be specified with describe sub-command\n",
        ),
        (
            &["describe", "--status", "--human-readable"],
            "The option --human-readable is only supported along with --replication\n",
        ),
    ];
    for (args, message) in cases {
        let mut argv = vec!["metadata-quorum", "--bootstrap-controller", "127.0.0.1:1"];
        argv.extend_from_slice(args);
        let r = kraft(&argv);
        assert_eq!((r.code, r.stderr.as_str()), (1, *message), "{args:?}");
    }
    let both = kraft(&[
        "metadata-quorum",
        "--bootstrap-server",
        "a:1",
        "--bootstrap-controller",
        "b:2",
        "describe",
        "--status",
    ]);
    assert_eq!(
        both.stderr,
        "You cannot specify both --bootstrap-controller and --bootstrap-server.\n"
    );
    let none = kraft(&["metadata-quorum", "describe", "--status"]);
    assert_eq!(
        none.stderr,
        "You must specify either --bootstrap-controller or --bootstrap-server.\n"
    );
    let missing = kraft(&[
        "metadata-quorum",
        "--bootstrap-controller",
        "a:1",
        "--command-config",
        "/nonexistent/x.properties",
        "describe",
        "--status",
    ]);
    assert_eq!(
        missing.stderr,
        "Properties file /nonexistent/x.properties does not exist.\n"
    );
    let bad = kraft(&[
        "metadata-quorum",
        "--bootstrap-controller",
        "nohost",
        "describe",
        "--status",
    ]);
    assert_eq!(bad.stderr, "Invalid url in bootstrap.controllers: nohost\n");
    let unknown = kraft(&[
        "metadata-quorum",
        "--bootstrap-controller",
        "a:1",
        "describe",
        "--stats",
    ]);
    assert_eq!(unknown.code, 1);
    assert_eq!(unknown.stderr.lines().count(), 1, "{}", unknown.stderr);
    assert!(
        unknown
            .stderr
            .starts_with("unexpected argument '--stats' found"),
        "{}",
        unknown.stderr
    );
}

#[test]
fn add_controller_by_id_against_kafka_4_4() {
    let f = fake(kafka_4_4_controller_versions(), ok_everything);
    let bs = f.bootstrap();
    let dry = kraft(&[
        "metadata-quorum",
        "--bootstrap-controller",
        &bs,
        "add-controller",
        "--controller-id",
        "4",
        "--dry-run",
    ]);
    assert_eq!(dry.code, 0, "{}", dry.stderr);
    assert_eq!(dry.stdout, format!("DRY RUN of adding controller 4 with directory id {DIR4} and endpoints: CONTROLLER://127.0.0.1:19004\n(this client derived the directory id and endpoints from DescribeQuorum and DescribeCluster as the active controller would; nothing was sent)\n"));
    assert!(f.node.received_of(ApiKey::AddRaftVoter).is_empty());
    let r = kraft(&[
        "metadata-quorum",
        "--bootstrap-controller",
        &bs,
        "add-controller",
        "-i",
        "4",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(r.stdout, format!("Added controller 4 with directory id {DIR4} and endpoints: CONTROLLER://127.0.0.1:19004\n"));
    let sent = f.node.received_of(ApiKey::AddRaftVoter);
    assert_eq!(sent.len(), 1);
    assert_eq!(sent[0].version(), 1);
}

#[test]
fn add_controller_by_id_against_kraft_rs() {
    let f = fake(kraft_rs_versions(), ok_everything);
    let r = kraft(&[
        "metadata-quorum",
        "--bootstrap-controller",
        &f.bootstrap(),
        "add-controller",
        "--controller-id",
        "4",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        r.stdout,
        format!("Added controller 4 with directory id {DIR4} and endpoints: CONTROLLER://127.0.0.1:19004\n"),
        "the derived key read back from DescribeQuorum"
    );
    assert_eq!(f.node.received_of(ApiKey::AddRaftVoter)[0].version(), 2);
}

#[test]
fn add_controller_errors() {
    let none = kraft(&[
        "metadata-quorum",
        "--bootstrap-controller",
        "a:1",
        "add-controller",
    ]);
    assert_eq!(
        (none.code, none.stderr.as_str()),
        (
            1,
            "You must use --command-config or --controller-id option to add a controller.\n"
        )
    );
    let neg = kraft(&[
        "metadata-quorum",
        "--bootstrap-controller",
        "a:1",
        "add-controller",
        "--controller-id",
        "-3",
    ]);
    assert_eq!(neg.stderr, "Invalid negative --controller-id: -3\n");
    // Observer 7 does not exist: a clear error naming what to pass, nothing sent.
    let f = fake(kafka_4_4_controller_versions(), ok_everything);
    let r = kraft(&[
        "metadata-quorum",
        "--bootstrap-controller",
        &f.bootstrap(),
        "add-controller",
        "--controller-id",
        "7",
    ]);
    assert_eq!(r.code, 1);
    assert_eq!(r.stderr.lines().count(), 1, "{}", r.stderr);
    assert!(r.stderr.starts_with("cannot determine the directory id of controller 7: no observer with node id 7 is replicating from the leader (observers: [4])"), "{}", r.stderr);
    assert!(r.stderr.contains("--command-config"), "{}", r.stderr);
    assert!(f.node.received_of(ApiKey::AddRaftVoter).is_empty());
}

#[test]
fn add_controller_from_its_configuration() {
    let f = fake(kafka_4_4_controller_versions(), ok_everything);
    let d = TempDir::new("cli-add-config");
    let data = d.join("data");
    std::fs::create_dir_all(&data).expect("mkdir");
    std::fs::write(
        data.join("meta.properties"),
        format!("version=1\ncluster.id=q1Sh-9_ISia_zwGINzRvyQ\nnode.id=4\ndirectory.id={DIR4}\n"),
    )
    .expect("write");
    let props = d.join("controller.properties");
    std::fs::write(
        &props,
        format!(
            "process.roles=controller\nnode.id=4\ncontroller.listener.names=CONTROLLER\nlisteners=CONTROLLER://127.0.0.1:19004\nmetadata.log.dir={}\n",
            data.display()
        ),
    )
    .expect("write");
    let r = kraft(&[
        "metadata-quorum",
        "--bootstrap-controller",
        &f.bootstrap(),
        "--command-config",
        &props.display().to_string(),
        "add-controller",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(r.stdout, format!("Added controller 4 with directory id {DIR4} and endpoints: CONTROLLER://127.0.0.1:19004\n"));
    assert!(
        f.node.received_of(ApiKey::DescribeQuorum).is_empty(),
        "nothing derived"
    );
}

#[test]
fn remove_controller_with_unregister() {
    let f = fake(kafka_4_4_controller_versions(), ok_everything);
    let bs = f.bootstrap();
    let r = kraft(&[
        "metadata-quorum",
        "--bootstrap-controller",
        &bs,
        "remove-controller",
        "--controller-id",
        "2",
        "--unregister",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(r.stdout, format!("Removed KRaft controller 2 with directory id {DIR2}\nUnregistered KRaft controller 2\n"));
    let dry = kraft(&[
        "metadata-quorum",
        "--bootstrap-controller",
        &bs,
        "remove-controller",
        "-i",
        "2",
        "-d",
        DIR2,
        "--dry-run",
        "--unregister",
    ]);
    assert_eq!(dry.stdout, format!("DRY RUN of removing KRaft controller 2 with directory id {DIR2}\nDRY RUN of unregistering KRaft controller 2\n"));
    assert_eq!(f.node.received_of(ApiKey::RemoveRaftVoter).len(), 1);
    assert_eq!(f.node.received_of(ApiKey::UnregisterController).len(), 1);
}

#[test]
fn remove_controller_failures_and_guidance() {
    let f = fake(kafka_4_4_controller_versions(), ok_everything);
    let bs = f.bootstrap();
    // Not a voter: with --unregister, KIP-1312's guidance.
    let r = kraft(&[
        "metadata-quorum",
        "--bootstrap-controller",
        &bs,
        "remove-controller",
        "--controller-id",
        "9",
        "--unregister",
    ]);
    assert_eq!(r.code, 1);
    assert_eq!(
        r.stderr,
        "Failed to remove KRaft voter 9: Controller 9 is not in the set of voters [1, 2]. To unregister the controller from the cluster, run `kraft cluster unregister-controller --id 9`.\n"
    );
    // Without --unregister: the plain error.
    let plain = kraft(&[
        "metadata-quorum",
        "--bootstrap-controller",
        &bs,
        "remove-controller",
        "--controller-id",
        "9",
    ]);
    assert_eq!(
        plain.stderr,
        "VOTER_NOT_FOUND: Controller 9 is not in the set of voters [1, 2]\n"
    );
    // Bad arguments.
    let neg = kraft(&[
        "metadata-quorum",
        "--bootstrap-controller",
        &bs,
        "remove-controller",
        "--controller-id",
        "-1",
    ]);
    assert_eq!(neg.stderr, "Invalid negative --controller-id: -1\n");
    let bad = kraft(&[
        "metadata-quorum",
        "--bootstrap-controller",
        &bs,
        "remove-controller",
        "-i",
        "2",
        "-d",
        "nope",
    ]);
    assert!(
        bad.stderr
            .starts_with("Failed to parse --controller-directory-id: "),
        "{}",
        bad.stderr
    );

    // The unregistration step fails: the removal line, then the guidance.
    let old: Vec<_> = kafka_4_4_controller_versions()
        .into_iter()
        .filter(|(k, _, _)| *k != ApiKey::UnregisterController)
        .collect();
    let f2 = fake(old, ok_everything);
    let r2 = kraft(&[
        "metadata-quorum",
        "--bootstrap-controller",
        &f2.bootstrap(),
        "remove-controller",
        "--controller-id",
        "2",
        "--unregister",
    ]);
    assert_eq!(r2.code, 1);
    assert_eq!(
        r2.stdout,
        format!("Removed KRaft controller 2 with directory id {DIR2}\n")
    );
    assert!(
        r2.stderr.starts_with("Failed to unregister controller 2: "),
        "{}",
        r2.stderr
    );
    assert!(
        r2.stderr.contains("does not support UNREGISTER_CONTROLLER"),
        "{}",
        r2.stderr
    );
    assert!(r2.stderr.ends_with("To unregister the controller from the cluster, run `kraft cluster unregister-controller --id 2`.\n"), "{}", r2.stderr);
}

#[test]
fn cluster_unregister_controller() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let s = seen.clone();
    let f = fake(kafka_4_4_controller_versions(), move |r| match &r.body {
        RequestBody::UnregisterController(req) => {
            s.lock().expect("lock").push(req.controller_id);
            let (code, msg) = if req.controller_id == 99 {
                (
                    ErrorCode::ControllerIdNotRegistered.code(),
                    "Controller ID 99 is not currently registered.",
                )
            } else {
                (0, "")
            };
            Reply::Respond(ResponseBody::UnregisterController(
                UnregisterControllerResponse {
                    error_code: code,
                    error_message: Some(StrBytes::from(msg)),
                    ..Default::default()
                },
            ))
        }
        _ => Reply::Close,
    });
    let bs = f.bootstrap();
    for flag in ["--id", "-i", "--controller-id"] {
        let r = kraft(&[
            "cluster",
            "unregister-controller",
            "--bootstrap-controller",
            &bs,
            flag,
            "4",
        ]);
        assert_eq!(
            (r.code, r.stdout.as_str()),
            (0, "Controller 4 is no longer registered.\n"),
            "{flag}: {}",
            r.stderr
        );
    }
    let short = kraft(&["cluster", "unregister-controller", "-C", &bs, "-i", "4"]);
    assert_eq!(short.code, 0, "{}", short.stderr);
    let unknown = kraft(&[
        "cluster",
        "unregister-controller",
        "--bootstrap-controller",
        &bs,
        "--id",
        "99",
    ]);
    assert_eq!(
        (unknown.code, unknown.stderr.as_str()),
        (
            1,
            "CONTROLLER_ID_NOT_REGISTERED: Controller ID 99 is not currently registered.\n"
        )
    );
    assert_eq!(*seen.lock().expect("lock"), vec![4, 4, 4, 4, 99]);

    // No UnregisterController API: Kafka's friendly line and exit code 0.
    let old: Vec<_> = kafka_4_4_controller_versions()
        .into_iter()
        .filter(|(k, _, _)| *k != ApiKey::UnregisterController)
        .collect();
    let f2 = fake(old, ok_everything);
    let r = kraft(&[
        "cluster",
        "unregister-controller",
        "--bootstrap-controller",
        &f2.bootstrap(),
        "--id",
        "4",
    ]);
    assert_eq!(
        (r.code, r.stdout.as_str()),
        (
            0,
            "The target cluster does not support the controller unregistration API.\n"
        )
    );
}

#[test]
fn cluster_unregister_broker() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let s = seen.clone();
    let f = fake(kafka_4_4_controller_versions(), move |r| match &r.body {
        RequestBody::UnregisterBroker(req) => {
            s.lock().expect("lock").push(req.broker_id);
            let (code, msg) = if req.broker_id == 42 {
                (
                    ErrorCode::BrokerIdNotRegistered.code(),
                    "Broker ID 42 is not currently registered",
                )
            } else {
                (0, "")
            };
            Reply::Respond(ResponseBody::UnregisterBroker(UnregisterBrokerResponse {
                error_code: code,
                error_message: Some(StrBytes::from(msg)),
                ..Default::default()
            }))
        }
        _ => Reply::Close,
    });
    let bs = f.bootstrap();
    // Through the active controller and through a "broker" (the same fake,
    // which then gets no DescribeCluster first), long and short flags.
    for (conn, flag) in [
        ("--bootstrap-controller", "--id"),
        ("-C", "-i"),
        ("--bootstrap-server", "--id"),
        ("-b", "-i"),
    ] {
        let r = kraft(&["cluster", "unregister", conn, &bs, flag, "5"]);
        assert_eq!(
            (r.code, r.stdout.as_str(), r.stderr.as_str()),
            (0, "Broker 5 is no longer registered.\n", ""),
            "{conn} {flag}"
        );
    }
    for conn in ["-C", "-b"] {
        let unknown = kraft(&["cluster", "unregister", conn, &bs, "--id", "42"]);
        assert_eq!(
            (
                unknown.code,
                unknown.stdout.as_str(),
                unknown.stderr.as_str()
            ),
            (
                1,
                "",
                "BROKER_ID_NOT_REGISTERED: Broker ID 42 is not currently registered\n"
            ),
            "{conn}"
        );
    }
    assert_eq!(*seen.lock().expect("lock"), vec![5, 5, 5, 5, 42, 42]);
    let describe_clusters = f.node.received_of(ApiKey::DescribeCluster);
    assert!(
        describe_clusters.iter().all(|r| matches!(
            &r.body,
            RequestBody::DescribeCluster(d) if d.endpoint_type == 2
        )),
        "only bootstrap controllers look for the active controller"
    );
    assert_eq!(describe_clusters.len(), 3);
    // --id is required.
    let missing = kraft(&["cluster", "unregister", "-C", &bs]);
    assert_eq!(missing.code, 1);
    assert!(missing.stderr.contains("--id"), "{}", missing.stderr);

    // No UnregisterBroker API: Kafka's friendly line and exit code 0.
    let old: Vec<_> = kafka_4_4_controller_versions()
        .into_iter()
        .filter(|(k, _, _)| *k != ApiKey::UnregisterBroker)
        .collect();
    let f2 = fake(old, ok_everything);
    for conn in ["--bootstrap-controller", "--bootstrap-server"] {
        let r = kraft(&["cluster", "unregister", conn, &f2.bootstrap(), "--id", "5"]);
        assert_eq!(
            (r.code, r.stdout.as_str()),
            (
                0,
                "The target cluster does not support the broker unregistration API.\n"
            ),
            "{conn}"
        );
    }
    assert!(f2.node.received_of(ApiKey::UnregisterBroker).is_empty());
}

#[test]
fn cluster_id_and_endpoints() {
    let f = fake(kafka_4_4_controller_versions(), ok_everything);
    let r = kraft(&[
        "cluster",
        "cluster-id",
        "--bootstrap-controller",
        &f.bootstrap(),
    ]);
    assert_eq!(r.stdout, "Cluster ID: q1Sh-9_ISia_zwGINzRvyQ\n");
    let j = kraft(&[
        "cluster",
        "cluster-id",
        "-C",
        &f.bootstrap(),
        "--output",
        "json",
    ]);
    let v: serde_json::Value = serde_json::from_str(&j.stdout).expect("json");
    assert_eq!(v["clusterId"], "q1Sh-9_ISia_zwGINzRvyQ");
    assert_eq!(v["controllerId"], 1);
    let e = kraft(&[
        "cluster",
        "list-endpoints",
        "--bootstrap-controller",
        &f.bootstrap(),
    ]);
    assert_eq!(e.code, 0, "{}", e.stderr);
    assert!(
        e.stdout
            .starts_with("ID         HOST      PORT       RACK       ENDPOINT_TYPE  \n"),
        "{:?}",
        e.stdout
    );
    assert_eq!(e.stdout.lines().count(), 4);
    let fenced = kraft(&[
        "cluster",
        "list-endpoints",
        "--bootstrap-controller",
        &f.bootstrap(),
        "--include-fenced-brokers",
    ]);
    assert_eq!(
        fenced.stderr,
        "The option --include-fenced-brokers is only supported with --bootstrap-server option\n"
    );
    let both = kraft(&[
        "cluster",
        "cluster-id",
        "-C",
        "a:1",
        "--config",
        "x",
        "--command-config",
        "y",
    ]);
    assert_eq!(
        both.stderr,
        "--config and --command-config cannot be specified together.\n"
    );
}

/// `cluster api-versions` asks every controller DescribeCluster lists, by
/// id; one that answers gets Kafka's `NodeApiVersions` text, one that does
/// not an `ERROR:` line, and the command still succeeds (as Kafka's tool).
#[test]
fn cluster_api_versions() {
    let f = fake(kafka_4_4_controller_versions(), ok_everything);
    let (_dir, cfg) = quick_config("api-versions");
    let r = kraft(&[
        "cluster",
        "api-versions",
        "--bootstrap-controller",
        &f.bootstrap(),
        "--command-config",
        &cfg,
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let lines: Vec<&str> = r.stdout.lines().collect();
    let port = f
        .bootstrap()
        .rsplit(':')
        .next()
        .map(str::to_owned)
        .expect("port");
    assert_eq!(
        lines[0],
        format!("127.0.0.1:{port} (id: 1 rack: null isFenced: false) -> (")
    );
    for line in [
        "\tProduce(0): UNSUPPORTED,",
        "\tDescribeQuorum(55): 0 to 2 [usable: 2],",
        "\tVote(52): 0 to 2 [usable: 2],",
    ] {
        assert!(lines.contains(&line), "{line:?} missing:\n{}", r.stdout);
    }
    let errors: Vec<&&str> = lines.iter().filter(|l| l.contains("-> ERROR: ")).collect();
    assert_eq!(errors.len(), 2, "{}", r.stdout);
    assert!(errors[0].starts_with("127.0.0.1:19002 (id: 2 rack: null isFenced: false) -> ERROR: "));
    assert!(errors[1].starts_with("127.0.0.1:19004 (id: 4 rack: null isFenced: false) -> ERROR: "));
}

#[test]
fn features_commands() {
    let upgrades = Arc::new(AtomicUsize::new(0));
    let u = upgrades.clone();
    let f = fake(kafka_4_4_controller_versions(), move |r| match &r.body {
        RequestBody::UpdateFeatures(req) => {
            u.fetch_add(req.feature_updates.len(), Ordering::SeqCst);
            assert!(req.validate_only);
            Reply::Respond(ResponseBody::UpdateFeatures(
                UpdateFeaturesResponse::default(),
            ))
        }
        _ => Reply::Close,
    });
    let bs = f.bootstrap();
    let d = kraft(&["features", "--bootstrap-controller", &bs, "describe"]);
    assert_eq!(d.code, 0, "{}", d.stderr);
    insta::assert_snapshot!("cli_features_describe", d.stdout);
    let up = kraft(&[
        "features",
        "--bootstrap-controller",
        &bs,
        "upgrade",
        "--release-version",
        "4.4-IV2",
        "--dry-run",
    ]);
    assert_eq!(up.code, 0, "{}", up.stderr);
    insta::assert_snapshot!("cli_features_upgrade_dry_run", up.stdout);
    assert_eq!(upgrades.load(Ordering::SeqCst), 7);
    let conflict = kraft(&[
        "features",
        "--bootstrap-controller",
        &bs,
        "upgrade",
        "--release-version",
        "4.4",
        "--feature",
        "a=1",
    ]);
    assert_eq!(
        conflict.stderr,
        "Can not specify `release-version` with other feature flags.\n"
    );
    let parse = kraft(&[
        "features",
        "--bootstrap-controller",
        &bs,
        "upgrade",
        "--feature",
        "kraft.version",
    ]);
    assert_eq!(
        parse.stderr,
        "Can't parse feature=level string kraft.version: equals sign not found.\n"
    );
    let empty = kraft(&["features", "--bootstrap-controller", &bs, "downgrade"]);
    assert_eq!(
        empty.stderr,
        "You must specify at least one feature to downgrade\n"
    );
    let mapping = kraft(&["features", "version-mapping", "--release-version", "3.9"]);
    assert_eq!(
        mapping.stdout,
        "metadata.version=21 (3.9)\nkraft.version=1\ntransaction.version=0\ngroup.version=0\neligible.leader.replicas.version=0\nshare.version=0\nstreams.version=0\n"
    );
    let unknown = kraft(&["features", "version-mapping", "--release-version", "2.8"]);
    assert!(
        unknown.stderr.starts_with(
            "Unknown metadata.version '2.8'. Supported metadata.version are: 3.3-IV3,"
        ),
        "{}",
        unknown.stderr
    );
}

#[test]
fn connection_refused_is_one_clear_line() {
    let port = free_port();
    let (_dir, cfg) = quick_config("refused");
    let started = std::time::Instant::now();
    let r = kraft(&[
        "metadata-quorum",
        "--bootstrap-controller",
        &format!("127.0.0.1:{port}"),
        "--command-config",
        &cfg,
        "describe",
        "--status",
    ]);
    assert!(started.elapsed() < std::time::Duration::from_secs(10));
    assert_eq!(r.code, 1);
    assert_eq!(
        r.stderr,
        format!("Cannot connect to 127.0.0.1:{port}: Connection refused (gave up after 1200 ms; default.api.timeout.ms in --command-config changes how long to retry)\n")
    );
}

#[test]
fn a_silent_controller_times_out() {
    let f = fake(kafka_4_4_controller_versions(), |_| Reply::Silence);
    let port = f.node.port();
    f.node.set_handler(move |r| match &r.body {
        RequestBody::DescribeCluster(_) => {
            Reply::Respond(ResponseBody::DescribeCluster(cluster_response(port)))
        }
        _ => Reply::Silence,
    });
    let (_dir, cfg) = quick_config("silent");
    let r = kraft(&[
        "cluster",
        "unregister-controller",
        "-C",
        &f.bootstrap(),
        "-c",
        &cfg,
        "--id",
        "4",
    ]);
    assert_eq!(r.code, 1);
    assert_eq!(r.stderr.lines().count(), 1, "{}", r.stderr);
    assert!(
        r.stderr
            .starts_with("unregisterController timed out after 1200 ms ("),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr
            .contains("UNREGISTER_CONTROLLER request to 127.0.0.1:"),
        "{}",
        r.stderr
    );
}

/// `storage format --add-scram` / `-S`: repeatable, the credentials in the
/// bootstrap line; a bad one fails with Kafka's message alone (one line,
/// exit 1), writes nothing and never echoes the password.
#[test]
fn storage_format_add_scram() {
    let d = TempDir::new("cli-format-scram");
    let meta = d.join("meta");
    let props = d.join("controller.properties");
    std::fs::write(
        &props,
        format!(
            "node.id=1\nprocess.roles=controller\ncontroller.listener.names=CONTROLLER\n\
             listeners=CONTROLLER://127.0.0.1:9093\ncontroller.quorum.voters=1@127.0.0.1:9093\n\
             log.dirs={}\n",
            meta.display()
        ),
    )
    .expect("write");
    let props = props.display().to_string();
    let format = |scram: &[&str]| {
        let mut argv = vec!["storage", "format", "-c", props.as_str(), "-t", "abc"];
        argv.extend_from_slice(scram);
        kraft(&argv)
    };
    let r = format(&[
        "--add-scram",
        "SCRAM-SHA-256=[name=a,password=hunter2]",
        "-S",
        "SCRAM-SHA-512=[name=a,password=hunter2,iterations=99999]",
    ]);
    assert_eq!(
        (r.code, r.stderr.as_str(), r.stdout.as_str()),
        (
            1,
            "The 'iterations' value must be <= 16384 for add-scram using SCRAM_SHA_512\n",
            ""
        )
    );
    assert!(!meta.exists());
    let r = format(&["--add-scram"]);
    assert_eq!(r.code, 1);
    assert!(r.stderr.contains("--add-scram"), "{}", r.stderr);

    let r = format(&[
        "--add-scram",
        "SCRAM-SHA-256=[name=a,password=hunter2]",
        "-S",
        "SCRAM-SHA-512=[name=b,salt=N3E=,saltedpassword=YCE=,iterations=8192]",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let bootstrap = r.stdout.lines().next().unwrap_or_default();
    assert!(
        bootstrap.contains("ApiMessageAndVersion(UserScramCredentialRecord(name='a', mechanism=1, salt=[")
            && bootstrap.contains(
                "ApiMessageAndVersion(UserScramCredentialRecord(name='b', mechanism=2, salt=[55, 113], storedKey=["
            )
            && bootstrap.contains("iterations=8192) at version 0)], metadataVersionLevel="),
        "{bootstrap}"
    );
    assert!(!r.stdout.contains("hunter2") && !r.stderr.contains("hunter2"));
    assert!(meta
        .join("__cluster_metadata-0/00000000000000000000-0000000000.checkpoint")
        .exists());
}

#[test]
fn every_subcommand_has_help_with_examples() {
    let commands: &[&[&str]] = &[
        &[],
        &["metadata-quorum"],
        &["metadata-quorum", "describe"],
        &["metadata-quorum", "add-controller"],
        &["metadata-quorum", "remove-controller"],
        &["cluster"],
        &["cluster", "cluster-id"],
        &["cluster", "unregister"],
        &["cluster", "unregister-controller"],
        &["cluster", "list-endpoints"],
        &["cluster", "api-versions"],
        &["features"],
        &["features", "describe"],
        &["features", "upgrade"],
        &["features", "downgrade"],
        &["features", "disable"],
        &["features", "version-mapping"],
        &["features", "feature-dependencies"],
        &["storage"],
        &["storage", "format"],
        &["storage", "info"],
        &["storage", "random-uuid"],
        &["storage", "version-mapping"],
        &["storage", "feature-dependencies"],
        &["server"],
        &["quickstart"],
    ];
    for c in commands {
        let mut argv = c.to_vec();
        argv.push("--help");
        let r = kraft(&argv);
        assert_eq!(r.code, 0, "{c:?}: {}", r.stderr);
        assert!(
            r.stdout.contains("Example"),
            "{c:?} help has no examples:\n{}",
            r.stdout
        );
        assert!(!r.stdout.contains('\u{1b}'), "no ANSI codes");
    }
    // Bad flags are one line and exit 1.
    let r = kraft(&["storage", "format", "--whatever"]);
    assert_eq!(
        (r.code, r.stderr.clone()),
        (
            1,
            "unexpected argument '--whatever' found (see --help)\n".to_string()
        )
    );
}
