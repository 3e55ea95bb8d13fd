//! The admin client against scripted fake Kafka nodes.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use kraft_admin::testing::{
    kafka_4_4_controller_versions, kraft_rs_versions, FakeNode, Received, Reply,
};
use kraft_admin::{
    kafka_uuid, AddRaftVoterOptions, Admin, AdminConfig, AdminError, ApiKey,
    DescribeFeaturesOptions, ErrorCode, FeatureUpdate, RaftVoterEndpoint, RemoveRaftVoterOptions,
    UpdateFeaturesOptions, UpgradeType, Uuid, VoterKeySource,
};
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
use kraft_protocol::messages::update_features_response::{
    UpdatableFeatureResult, UpdateFeaturesResponse,
};
use kraft_protocol::{RequestBody, ResponseBody, StrBytes};
use kraft_testkit::free_port;

fn uuid(s: &str) -> Uuid {
    kafka_uuid::parse(s).expect("valid uuid")
}

const DIR1: &str = "J8aAPcfLQt2bqs1JT_rMgQ";
const DIR2: &str = "ILZ5MPTeRWakmJu99uBJCA";
const DIR4: &str = "cHvrFCk5SOqvBRm0q8kGUA";
const DIR4B: &str = "pJ2BJvcXTnyXYpf3RUfvdw";

fn quick(config: AdminConfig) -> AdminConfig {
    AdminConfig {
        request_timeout: Duration::from_millis(500),
        default_api_timeout: Duration::from_millis(3_000),
        retry_backoff: Duration::from_millis(10),
        retry_backoff_max: Duration::from_millis(50),
        ..config
    }
}

fn replica(id: i32, dir: &str, leo: i64) -> ReplicaState {
    ReplicaState {
        replica_id: id,
        replica_directory_id: uuid(dir),
        log_end_offset: leo,
        last_fetch_timestamp: 1_700_000_000_000,
        last_caught_up_timestamp: 1_700_000_000_000,
        ..Default::default()
    }
}

/// A quorum of voters 1 (leader) and 2 on `port`, plus the given observers.
fn quorum(port: u16, observers: Vec<ReplicaState>) -> DescribeQuorumResponse {
    let node = |id: i32| Node {
        node_id: id,
        listeners: vec![Listener {
            name: StrBytes::from("CONTROLLER"),
            host: StrBytes::from("127.0.0.1"),
            port: if id == 1 { port } else { 19_002 },
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
                leader_epoch: 7,
                high_watermark: 120,
                current_voters: vec![replica(1, DIR1, 120), replica(2, DIR2, 118)].into(),
                committed_voters: vec![replica(1, DIR1, 120)].into(),
                observers: observers.into(),
                ..Default::default()
            }]
            .into(),
            ..Default::default()
        }]
        .into(),
        nodes: vec![node(1), node(2)].into(),
        ..Default::default()
    }
}

fn registrations(port: u16, ids: &[i32]) -> DescribeClusterResponse {
    DescribeClusterResponse {
        endpoint_type: 2,
        cluster_id: StrBytes::from("MkU3OEVBNTcwNTJENDM2Qg"),
        controller_id: 1,
        brokers: ids
            .iter()
            .map(|&id| DescribeClusterBroker {
                broker_id: id,
                host: StrBytes::from("127.0.0.1"),
                port: if id == 1 {
                    i32::from(port)
                } else {
                    19_000 + id
                },
                ..Default::default()
            })
            .collect(),
        ..Default::default()
    }
}

/// A fake active controller (id 1) whose DescribeCluster names itself and
/// lists registrations `ids`, with observers `observers`; `extra` handles the rest.
async fn controller(
    versions: Vec<(ApiKey, i16, i16)>,
    ids: &'static [i32],
    observers: Vec<ReplicaState>,
    mut extra: impl FnMut(&Received) -> Reply + Send + 'static,
) -> FakeNode {
    let node = FakeNode::start(versions, |_| Reply::Close).await;
    let port = node.port();
    node.set_handler(move |r| match &r.body {
        RequestBody::DescribeCluster(_) => {
            Reply::Respond(ResponseBody::DescribeCluster(registrations(port, ids)))
        }
        RequestBody::DescribeQuorum(_) => Reply::Respond(ResponseBody::DescribeQuorum(quorum(
            port,
            observers.clone(),
        ))),
        _ => extra(r),
    });
    node
}

async fn admin_for(node: &FakeNode) -> Admin {
    Admin::connect(quick(
        AdminConfig::bootstrap_controllers(&node.address()).expect("config"),
    ))
    .await
    .expect("connects")
}

#[tokio::test]
async fn describe_quorum_through_bootstrap_controllers() {
    let node = controller(
        kafka_4_4_controller_versions(),
        &[1, 2],
        vec![replica(4, DIR4, 100)],
        |_| Reply::Close,
    )
    .await;
    let admin = admin_for(&node).await;
    let q = admin.describe_metadata_quorum().await.expect("describes");
    assert_eq!(q.leader_id, 1);
    assert_eq!(q.leader_epoch, 7);
    assert_eq!(q.high_watermark, 120);
    assert_eq!(q.voters.len(), 2);
    assert_eq!(q.voters[1].replica_directory_id, uuid(DIR2));
    assert_eq!(q.voters[1].last_fetch_timestamp, Some(1_700_000_000_000));
    assert_eq!(q.observers[0].replica_id, 4);
    assert_eq!(q.committed_voters, None, "a 4.4 controller answers v2");
    assert_eq!(
        q.nodes[&1].endpoints[0].to_string(),
        format!("CONTROLLER://127.0.0.1:{}", node.port())
    );
    let dc = node.received_of(ApiKey::DescribeCluster);
    assert_eq!(dc[0].version(), 2);
    match &dc[0].body {
        RequestBody::DescribeCluster(r) => assert_eq!(r.endpoint_type, 2),
        other => panic!("{other:?}"),
    }
    let dq = node.received_of(ApiKey::DescribeQuorum);
    assert_eq!(dq.len(), 1);
    assert_eq!(dq[0].version(), 2);
    assert_eq!(dq[0].header.client_id.as_deref(), Some("kraft-admin"));
    // ApiVersions went out at the highest version both know (5).
    assert_eq!(node.received_of(ApiKey::ApiVersions)[0].version(), 5);
}

#[tokio::test]
async fn describe_quorum_v3_reports_committed_voters() {
    let node = controller(kraft_rs_versions(), &[1, 2], vec![], |_| Reply::Close).await;
    let admin = admin_for(&node).await;
    let q = admin.describe_metadata_quorum().await.expect("describes");
    assert_eq!(node.received_of(ApiKey::DescribeQuorum)[0].version(), 3);
    let committed = q.committed_voters.expect("v3 has committed voters");
    assert_eq!(committed.len(), 1);
    assert_eq!(committed[0].replica_id, 1);
}

#[tokio::test]
async fn api_versions_downgrades_when_the_node_knows_less() {
    let mut versions = kafka_4_4_controller_versions();
    versions[1] = (ApiKey::ApiVersions, 0, 3);
    let node = controller(versions, &[1], vec![], |_| Reply::Close).await;
    let admin = admin_for(&node).await;
    admin.describe_metadata_quorum().await.expect("describes");
    let av: Vec<i16> = node
        .received_of(ApiKey::ApiVersions)
        .iter()
        .map(Received::version)
        .collect();
    assert_eq!(&av[..2], &[5, 3]);
}

#[tokio::test]
async fn not_leader_makes_the_client_rediscover_the_active_controller() {
    // B is the real leader; A first claims to be it, then points at B.
    let b = controller(kafka_4_4_controller_versions(), &[1, 2], vec![], |_| {
        Reply::Close
    })
    .await;
    let b_port = b.port();
    let calls = Arc::new(AtomicUsize::new(0));
    let c = calls.clone();
    let a = FakeNode::start(kafka_4_4_controller_versions(), |_| Reply::Close).await;
    let a_port = a.port();
    a.set_handler(move |r| match &r.body {
        RequestBody::DescribeCluster(_) => {
            let n = c.fetch_add(1, Ordering::SeqCst);
            let mut resp = registrations(if n == 0 { a_port } else { b_port }, &[1, 2]);
            resp.controller_id = 1;
            Reply::Respond(ResponseBody::DescribeCluster(resp))
        }
        RequestBody::DescribeQuorum(_) => {
            let mut q = quorum(a_port, vec![]);
            q.topics.as_mut_slice()[0].partitions.as_mut_slice()[0].error_code =
                ErrorCode::NotLeaderOrFollower.code();
            Reply::Respond(ResponseBody::DescribeQuorum(q))
        }
        _ => Reply::Close,
    });
    let admin = admin_for(&a).await;
    let q = admin
        .describe_metadata_quorum()
        .await
        .expect("describes after rediscovery");
    assert_eq!(q.leader_id, 1);
    assert_eq!(a.received_of(ApiKey::DescribeQuorum).len(), 1);
    assert_eq!(b.received_of(ApiKey::DescribeQuorum).len(), 1);
    assert!(calls.load(Ordering::SeqCst) >= 2);
}

#[tokio::test]
async fn non_retriable_errors_fail_at_once_with_the_servers_message() {
    let node = controller(kafka_4_4_controller_versions(), &[1], vec![], |_| {
        Reply::Close
    })
    .await;
    let port = node.port();
    node.set_handler(move |r| match &r.body {
        RequestBody::DescribeCluster(_) => {
            Reply::Respond(ResponseBody::DescribeCluster(registrations(port, &[1])))
        }
        RequestBody::DescribeQuorum(_) => {
            Reply::Respond(ResponseBody::DescribeQuorum(DescribeQuorumResponse {
                error_code: ErrorCode::ClusterAuthorizationFailed.code(),
                error_message: Some(StrBytes::from("Cluster authorization failed.")),
                ..Default::default()
            }))
        }
        _ => Reply::Close,
    });
    let admin = admin_for(&node).await;
    let err = admin.describe_metadata_quorum().await.expect_err("fails");
    assert_eq!(
        err.error_code(),
        Some(ErrorCode::ClusterAuthorizationFailed)
    );
    assert_eq!(
        err.to_string(),
        "CLUSTER_AUTHORIZATION_FAILED: Cluster authorization failed."
    );
    assert_eq!(node.received_of(ApiKey::DescribeQuorum).len(), 1);
}

#[tokio::test]
async fn add_voter_against_kafka_4_4_derives_on_the_client() {
    let node = controller(
        kafka_4_4_controller_versions(),
        &[1, 2, 4],
        vec![replica(4, DIR4, 100)],
        |r| match r.body {
            RequestBody::AddRaftVoter(_) => {
                Reply::Respond(ResponseBody::AddRaftVoter(AddRaftVoterResponse {
                    error_message: None,
                    ..Default::default()
                }))
            }
            _ => Reply::Close,
        },
    )
    .await;
    let admin = admin_for(&node).await;
    let result = admin
        .add_raft_voter(4, AddRaftVoterOptions::default())
        .await
        .expect("adds");
    assert_eq!(result.source, VoterKeySource::Client);
    assert_eq!(result.version, 1);
    assert_eq!(result.voter_directory_id, Some(uuid(DIR4)));
    assert_eq!(
        result.endpoints,
        vec![RaftVoterEndpoint::parse("CONTROLLER://127.0.0.1:19004").expect("valid")]
    );
    let sent = node.received_of(ApiKey::AddRaftVoter);
    assert_eq!(sent.len(), 1);
    assert_eq!(sent[0].version(), 1);
    let RequestBody::AddRaftVoter(req) = &sent[0].body else {
        panic!()
    };
    assert_eq!(req.voter_id, 4);
    assert_eq!(req.voter_directory_id, uuid(DIR4));
    assert_eq!(req.listeners.len(), 1);
    assert_eq!(
        req.listeners.get(0).expect("element").name.as_str(),
        "CONTROLLER"
    );
    assert_eq!(req.listeners.get(0).expect("element").port, 19004);
    assert_eq!(req.cluster_id, None);
    assert!(req.ack_when_committed);
    assert!(req.timeout_ms > 0);
}

#[tokio::test]
async fn add_voter_against_kraft_rs_lets_the_controller_derive() {
    let node = controller(kraft_rs_versions(), &[1, 2], vec![], |r| match r.body {
        RequestBody::AddRaftVoter(_) => {
            Reply::Respond(ResponseBody::AddRaftVoter(AddRaftVoterResponse::default()))
        }
        _ => Reply::Close,
    })
    .await;
    let admin = admin_for(&node).await;
    let result = admin
        .add_raft_voter(
            4,
            AddRaftVoterOptions {
                cluster_id: Some("abc".into()),
                ..Default::default()
            },
        )
        .await
        .expect("adds");
    assert_eq!(result.source, VoterKeySource::Server);
    assert_eq!(result.voter_directory_id, None);
    let sent = node.received_of(ApiKey::AddRaftVoter);
    assert_eq!(sent[0].version(), 2);
    let RequestBody::AddRaftVoter(req) = &sent[0].body else {
        panic!()
    };
    assert!(req.voter_directory_id.is_nil());
    assert!(req.listeners.is_empty());
    assert_eq!(req.cluster_id.as_deref(), Some("abc"));
    assert!(
        node.received_of(ApiKey::DescribeQuorum).is_empty(),
        "no client-side derivation"
    );
}

#[tokio::test]
async fn add_voter_derivation_failures_send_nothing() {
    // No observer 4.
    let node = controller(
        kafka_4_4_controller_versions(),
        &[1, 2, 4],
        vec![replica(5, DIR4, 1)],
        |_| Reply::Close,
    )
    .await;
    let admin = admin_for(&node).await;
    let err = admin
        .add_raft_voter(4, AddRaftVoterOptions::default())
        .await
        .expect_err("fails");
    match &err {
        AdminError::CannotDerive {
            voter_id: 4,
            what: "directory id",
            reason,
        } => {
            assert!(reason.contains("no observer with node id 4"), "{reason}");
            assert!(reason.contains("observers: [5]"), "{reason}");
        }
        other => panic!("{other:?}"),
    }
    // Two observers share id 4.
    let node2 = controller(
        kafka_4_4_controller_versions(),
        &[1, 2, 4],
        vec![replica(4, DIR4, 1), replica(4, DIR4B, 1)],
        |_| Reply::Close,
    )
    .await;
    let admin2 = admin_for(&node2).await;
    let err2 = admin2
        .add_raft_voter(4, AddRaftVoterOptions::default())
        .await
        .expect_err("fails");
    assert!(
        err2.to_string().contains("several observers use node id 4"),
        "{err2}"
    );
    // Observer present but not registered: endpoints cannot be derived.
    let node3 = controller(
        kafka_4_4_controller_versions(),
        &[1, 2],
        vec![replica(4, DIR4, 1)],
        |_| Reply::Close,
    )
    .await;
    let admin3 = admin_for(&node3).await;
    let err3 = admin3
        .add_raft_voter(4, AddRaftVoterOptions::default())
        .await
        .expect_err("fails");
    assert!(
        matches!(&err3, AdminError::CannotDerive { what: "endpoints", reason, .. } if reason.contains("not a registered controller (registered: [1, 2])")),
        "{err3}"
    );
    for n in [&node, &node2, &node3] {
        assert!(n.received_of(ApiKey::AddRaftVoter).is_empty());
    }
}

#[tokio::test]
async fn add_voter_through_brokers_cannot_derive_endpoints() {
    let node = controller(
        kafka_4_4_controller_versions(),
        &[1],
        vec![replica(4, DIR4, 1)],
        |_| Reply::Close,
    )
    .await;
    let admin = Admin::connect(quick(
        AdminConfig::bootstrap_servers(&node.address()).expect("config"),
    ))
    .await
    .expect("connects");
    let err = admin
        .add_raft_voter(4, AddRaftVoterOptions::default())
        .await
        .expect_err("fails");
    assert!(
        matches!(
            err,
            AdminError::CannotDerive {
                what: "endpoints",
                ..
            }
        ),
        "{err}"
    );
    // With explicit endpoints the directory id is derived and v1 is sent.
    node.set_handler({
        let port = node.port();
        move |r| match &r.body {
            RequestBody::DescribeQuorum(_) => Reply::Respond(ResponseBody::DescribeQuorum(quorum(
                port,
                vec![replica(4, DIR4, 1)],
            ))),
            RequestBody::AddRaftVoter(_) => {
                Reply::Respond(ResponseBody::AddRaftVoter(AddRaftVoterResponse::default()))
            }
            _ => Reply::Close,
        }
    });
    let ep = RaftVoterEndpoint::parse("CONTROLLER://h4:9093").expect("valid");
    let ok = admin
        .add_raft_voter(
            4,
            AddRaftVoterOptions {
                endpoints: vec![ep.clone()],
                ..Default::default()
            },
        )
        .await
        .expect("adds");
    assert_eq!(ok.voter_directory_id, Some(uuid(DIR4)));
    assert_eq!(ok.endpoints, vec![ep]);
}

#[tokio::test]
#[allow(deprecated)]
async fn positional_forms_win_over_options() {
    let node = controller(
        kafka_4_4_controller_versions(),
        &[1, 2],
        vec![],
        |r| match r.body {
            RequestBody::AddRaftVoter(_) => {
                Reply::Respond(ResponseBody::AddRaftVoter(AddRaftVoterResponse::default()))
            }
            RequestBody::RemoveRaftVoter(_) => Reply::Respond(ResponseBody::RemoveRaftVoter(
                RemoveRaftVoterResponse::default(),
            )),
            _ => Reply::Close,
        },
    )
    .await;
    let admin = admin_for(&node).await;
    let ep = RaftVoterEndpoint::parse("CONTROLLER://h:1").expect("valid");
    let r = admin
        .add_raft_voter_positional(
            4,
            uuid(DIR4),
            vec![ep.clone()],
            AddRaftVoterOptions {
                cluster_id: Some("c".into()),
                voter_directory_id: Some(uuid(DIR4B)),
                endpoints: vec![RaftVoterEndpoint::parse("OTHER://x:2").expect("valid")],
                timeout: None,
            },
        )
        .await
        .expect("adds");
    assert_eq!(r.source, VoterKeySource::Caller);
    let RequestBody::AddRaftVoter(req) = &node.received_of(ApiKey::AddRaftVoter)[0].body else {
        panic!()
    };
    assert_eq!(req.voter_directory_id, uuid(DIR4));
    assert_eq!(
        req.listeners.get(0).expect("element").name.as_str(),
        "CONTROLLER"
    );
    assert_eq!(req.cluster_id.as_deref(), Some("c"));
    admin
        .remove_raft_voter_positional(
            2,
            uuid(DIR2),
            RemoveRaftVoterOptions {
                voter_directory_id: Some(uuid(DIR4B)),
                ..Default::default()
            },
        )
        .await
        .expect("removes");
    let RequestBody::RemoveRaftVoter(req) = &node.received_of(ApiKey::RemoveRaftVoter)[0].body
    else {
        panic!()
    };
    assert_eq!(req.voter_directory_id, uuid(DIR2));
}

#[tokio::test]
async fn remove_voter_against_kafka_4_4_reads_the_directory_id() {
    let node = controller(
        kafka_4_4_controller_versions(),
        &[1, 2],
        vec![],
        |r| match r.body {
            RequestBody::RemoveRaftVoter(_) => Reply::Respond(ResponseBody::RemoveRaftVoter(
                RemoveRaftVoterResponse::default(),
            )),
            _ => Reply::Close,
        },
    )
    .await;
    let admin = admin_for(&node).await;
    let r = admin
        .remove_raft_voter(2, RemoveRaftVoterOptions::default())
        .await
        .expect("removes");
    assert_eq!(r.source, VoterKeySource::Client);
    assert_eq!(r.voter_directory_id, Some(uuid(DIR2)));
    let sent = node.received_of(ApiKey::RemoveRaftVoter);
    assert_eq!(sent[0].version(), 0);
    let RequestBody::RemoveRaftVoter(req) = &sent[0].body else {
        panic!()
    };
    assert_eq!(req.voter_directory_id, uuid(DIR2));
    // Not a voter: VOTER_NOT_FOUND, as a KIP-1141 controller would answer; nothing sent.
    let err = admin
        .remove_raft_voter(9, RemoveRaftVoterOptions::default())
        .await
        .expect_err("fails");
    assert_eq!(err.error_code(), Some(ErrorCode::VoterNotFound));
    assert_eq!(
        err.message(),
        "Controller 9 is not in the set of voters [1, 2]"
    );
    assert_eq!(node.received_of(ApiKey::RemoveRaftVoter).len(), 1);
}

#[tokio::test]
async fn remove_voter_against_kraft_rs_sends_v1_with_zero_uuid() {
    let node = controller(kraft_rs_versions(), &[1, 2], vec![], |r| match r.body {
        RequestBody::RemoveRaftVoter(_) => Reply::Respond(ResponseBody::RemoveRaftVoter(RemoveRaftVoterResponse {
            error_code: ErrorCode::VoterNotFound.code(),
            error_message: Some(StrBytes::from("Cannot remove voter ReplicaKey(id=9, directoryId=<undefined>) from the set of voters")),
            ..Default::default()
        })),
        _ => Reply::Close,
    })
    .await;
    let admin = admin_for(&node).await;
    let err = admin
        .remove_raft_voter(9, RemoveRaftVoterOptions::default())
        .await
        .expect_err("fails");
    assert_eq!(err.error_code(), Some(ErrorCode::VoterNotFound));
    assert!(err.message().starts_with("Cannot remove voter"));
    let sent = node.received_of(ApiKey::RemoveRaftVoter);
    assert_eq!(sent.len(), 1, "VOTER_NOT_FOUND is not retried");
    assert_eq!(sent[0].version(), 1);
    let RequestBody::RemoveRaftVoter(req) = &sent[0].body else {
        panic!()
    };
    assert!(req.voter_directory_id.is_nil());
}

#[tokio::test]
async fn unregister_controller_errors_and_retries() {
    let attempts = Arc::new(AtomicUsize::new(0));
    let a = attempts.clone();
    let node = controller(
        kafka_4_4_controller_versions(),
        &[1, 2],
        vec![],
        move |r| match &r.body {
            RequestBody::UnregisterController(req) if req.controller_id == 5 => Reply::Respond(
                ResponseBody::UnregisterController(UnregisterControllerResponse {
                    error_code: ErrorCode::ControllerIdNotRegistered.code(),
                    error_message: Some(StrBytes::from(
                        "Controller ID 5 is not currently registered.",
                    )),
                    ..Default::default()
                }),
            ),
            RequestBody::UnregisterController(_) => {
                let n = a.fetch_add(1, Ordering::SeqCst);
                let code = if n == 0 {
                    ErrorCode::RequestTimedOut.code()
                } else {
                    0
                };
                Reply::Respond(ResponseBody::UnregisterController(
                    UnregisterControllerResponse {
                        error_code: code,
                        error_message: Some(StrBytes::new()),
                        ..Default::default()
                    },
                ))
            }
            _ => Reply::Close,
        },
    )
    .await;
    let admin = admin_for(&node).await;
    let err = admin.unregister_controller(5).await.expect_err("fails");
    assert_eq!(err.error_code(), Some(ErrorCode::ControllerIdNotRegistered));
    assert_eq!(
        err.message(),
        "Controller ID 5 is not currently registered."
    );
    admin
        .unregister_controller(6)
        .await
        .expect("succeeds after a REQUEST_TIMED_OUT");
    assert_eq!(attempts.load(Ordering::SeqCst), 2);

    // A node without the API: UnsupportedVersion, nothing sent.
    let old: Vec<_> = kafka_4_4_controller_versions()
        .into_iter()
        .filter(|(k, _, _)| *k != ApiKey::UnregisterController)
        .collect();
    let node2 = controller(old, &[1], vec![], |_| Reply::Close).await;
    let admin2 = admin_for(&node2).await;
    let err2 = admin2.unregister_controller(6).await.expect_err("fails");
    assert!(err2.is_unsupported_version(), "{err2}");
    assert!(
        err2.to_string()
            .contains("does not support UNREGISTER_CONTROLLER"),
        "{err2}"
    );
    assert!(node2.received_of(ApiKey::UnregisterController).is_empty());
}

/// An UnregisterBroker answer with `code` and `message`.
fn unregister_broker_reply(code: ErrorCode, message: &str) -> Reply {
    Reply::Respond(ResponseBody::UnregisterBroker(UnregisterBrokerResponse {
        error_code: code.code(),
        error_message: Some(StrBytes::from(message.to_owned())),
        ..Default::default()
    }))
}

#[tokio::test]
async fn unregister_broker_errors_and_retries() {
    let attempts = Arc::new(AtomicUsize::new(0));
    let a = attempts.clone();
    let node = controller(
        kafka_4_4_controller_versions(),
        &[1, 2],
        vec![],
        move |r| match &r.body {
            RequestBody::UnregisterBroker(req) if req.broker_id == 42 => unregister_broker_reply(
                ErrorCode::BrokerIdNotRegistered,
                "Broker ID 42 is not currently registered",
            ),
            RequestBody::UnregisterBroker(req) if req.broker_id == 43 => {
                unregister_broker_reply(ErrorCode::InvalidRequest, "no")
            }
            RequestBody::UnregisterBroker(_) => {
                // REQUEST_TIMED_OUT first, then NOT_CONTROLLER (both retried), then done.
                let code = match a.fetch_add(1, Ordering::SeqCst) {
                    0 => ErrorCode::RequestTimedOut,
                    1 => ErrorCode::NotController,
                    _ => ErrorCode::None,
                };
                unregister_broker_reply(code, "")
            }
            _ => Reply::Close,
        },
    )
    .await;
    let admin = admin_for(&node).await;
    let err = admin.unregister_broker(42).await.expect_err("fails");
    assert_eq!(err.error_code(), Some(ErrorCode::BrokerIdNotRegistered));
    assert_eq!(err.message(), "Broker ID 42 is not currently registered");
    assert_eq!(
        err.to_string(),
        "BROKER_ID_NOT_REGISTERED: Broker ID 42 is not currently registered"
    );
    let err = admin.unregister_broker(43).await.expect_err("fails");
    assert_eq!(err.error_code(), Some(ErrorCode::InvalidRequest));
    admin
        .unregister_broker(6)
        .await
        .expect("succeeds after REQUEST_TIMED_OUT and NOT_CONTROLLER");
    assert_eq!(attempts.load(Ordering::SeqCst), 3);
    let sent = node.received_of(ApiKey::UnregisterBroker);
    let ids: Vec<i32> = sent
        .iter()
        .map(|r| match &r.body {
            RequestBody::UnregisterBroker(req) => req.broker_id,
            _ => -1,
        })
        .collect();
    assert_eq!(ids, vec![42, 43, 6, 6, 6], "the errors are not retried");
    assert!(sent.iter().all(|r| r.version() == 0));

    // A node without the API: UnsupportedVersion, nothing sent.
    let old: Vec<_> = kafka_4_4_controller_versions()
        .into_iter()
        .filter(|(k, _, _)| *k != ApiKey::UnregisterBroker)
        .collect();
    let node2 = controller(old, &[1], vec![], |_| Reply::Close).await;
    let admin2 = admin_for(&node2).await;
    let err2 = admin2.unregister_broker(6).await.expect_err("fails");
    assert!(err2.is_unsupported_version(), "{err2}");
    assert!(
        err2.to_string()
            .contains("does not support UNREGISTER_BROKER"),
        "{err2}"
    );
    assert!(node2.received_of(ApiKey::UnregisterBroker).is_empty());
}

#[tokio::test]
async fn unregister_broker_through_brokers_goes_to_the_bootstrap_broker() {
    // A broker answers the request itself (it forwards it to the active
    // controller): no DescribeCluster discovery first.
    let node = FakeNode::start(kafka_4_4_controller_versions(), |r| match &r.body {
        RequestBody::UnregisterBroker(_) => unregister_broker_reply(ErrorCode::None, ""),
        _ => Reply::Close,
    })
    .await;
    let admin = Admin::new(quick(
        AdminConfig::bootstrap_servers(&node.address()).expect("config"),
    ));
    admin.unregister_broker(6).await.expect("unregistered");
    let apis: Vec<ApiKey> = node.received().iter().map(Received::api_key).collect();
    assert_eq!(apis, vec![ApiKey::ApiVersions, ApiKey::UnregisterBroker]);
}

#[tokio::test]
async fn connection_refused_ends_in_a_timeout_naming_the_cause() {
    let port = free_port();
    let mut config =
        quick(AdminConfig::bootstrap_controllers(&format!("127.0.0.1:{port}")).expect("config"));
    config.default_api_timeout = Duration::from_millis(300);
    let started = std::time::Instant::now();
    let err = Admin::connect(config).await.expect_err("fails");
    assert!(started.elapsed() < Duration::from_secs(3));
    assert!(
        matches!(
            err,
            AdminError::Timeout {
                call: "bootstrap",
                ..
            }
        ),
        "{err}"
    );
    assert!(
        matches!(err.root_cause(), AdminError::Connect { .. }),
        "{err}"
    );
    assert!(err.to_string().contains("Connection refused"), "{err}");
}

#[tokio::test]
async fn a_silent_node_times_out_per_request_and_per_call() {
    let node = controller(kafka_4_4_controller_versions(), &[1], vec![], |_| {
        Reply::Close
    })
    .await;
    let port = node.port();
    node.set_handler(move |r| match &r.body {
        RequestBody::DescribeCluster(_) => {
            Reply::Respond(ResponseBody::DescribeCluster(registrations(port, &[1])))
        }
        _ => Reply::Silence,
    });
    let admin = admin_for(&node).await;
    let err = admin.describe_metadata_quorum().await.expect_err("fails");
    assert!(
        matches!(
            err,
            AdminError::Timeout {
                call: "describeMetadataQuorum",
                ..
            }
        ),
        "{err}"
    );
    assert!(
        matches!(err.root_cause(), AdminError::RequestTimeout { .. }),
        "{err}"
    );
    assert!(
        node.received_of(ApiKey::DescribeQuorum).len() >= 2,
        "retried after the request timeout"
    );
}

#[tokio::test]
async fn features_describe_and_update() {
    let node = controller(
        kafka_4_4_controller_versions(),
        &[1],
        vec![],
        |r| match &r.body {
            RequestBody::UpdateFeatures(req) if req.validate_only => Reply::Respond(
                ResponseBody::UpdateFeatures(UpdateFeaturesResponse::default()),
            ),
            // v2 reports errors at the top level only; v0-1 per feature.
            RequestBody::UpdateFeatures(_) if r.version() >= 2 => {
                Reply::Respond(ResponseBody::UpdateFeatures(UpdateFeaturesResponse {
                    error_code: ErrorCode::InvalidUpdateVersion.code(),
                    error_message: Some(StrBytes::from(
                        "Invalid update version 99 for feature metadata.version.",
                    )),
                    ..Default::default()
                }))
            }
            RequestBody::UpdateFeatures(_) => {
                Reply::Respond(ResponseBody::UpdateFeatures(UpdateFeaturesResponse {
                    results: vec![UpdatableFeatureResult {
                        feature: StrBytes::from("metadata.version"),
                        error_code: ErrorCode::InvalidUpdateVersion.code(),
                        error_message: Some(StrBytes::from("per feature")),
                        ..Default::default()
                    }]
                    .into(),
                    ..Default::default()
                }))
            }
            _ => Reply::Close,
        },
    )
    .await;
    node.set_features(
        &[("metadata.version", 7, 33), ("kraft.version", 0, 1)],
        &[("metadata.version", 33), ("kraft.version", 1)],
        42,
    );
    let admin = admin_for(&node).await;
    let f = admin.describe_features().await.expect("describes");
    assert_eq!(f.finalized_features_epoch, Some(42));
    assert_eq!(f.supported_features["metadata.version"].max_version, 33);
    assert_eq!(f.finalized_features["kraft.version"].max_version_level, 1);
    let f1 = admin
        .describe_features_with(DescribeFeaturesOptions {
            node_id: Some(1),
            timeout: None,
        })
        .await
        .expect("describes node 1");
    assert_eq!(f1, f);

    let updates: BTreeMap<String, FeatureUpdate> = [(
        "metadata.version".to_owned(),
        FeatureUpdate {
            max_version_level: 33,
            upgrade_type: UpgradeType::Upgrade,
        },
    )]
    .into();
    let dry = admin
        .update_features(
            &updates,
            UpdateFeaturesOptions {
                validate_only: true,
                timeout: None,
            },
        )
        .await
        .expect("answers");
    assert_eq!(dry["metadata.version"], Ok(()));
    let real = admin
        .update_features(&updates, UpdateFeaturesOptions::default())
        .await
        .expect("answers");
    let e = real["metadata.version"].clone().expect_err("fails");
    assert_eq!(e.code, ErrorCode::InvalidUpdateVersion);
    assert_eq!(
        e.message(),
        "Invalid update version 99 for feature metadata.version."
    );
    let sent = node.received_of(ApiKey::UpdateFeatures);
    assert_eq!(sent[0].version(), 2);
    let RequestBody::UpdateFeatures(req) = &sent[0].body else {
        panic!()
    };
    assert_eq!(req.feature_updates.get(0).expect("element").upgrade_type, 1);
    assert!(req.validate_only);

    // A v1 controller reports per feature.
    let mut v1 = kafka_4_4_controller_versions();
    for entry in &mut v1 {
        if entry.0 == ApiKey::UpdateFeatures {
            entry.2 = 1;
        }
    }
    node.set_versions(v1);
    admin.close().await;
    let per_feature = admin
        .update_features(&updates, UpdateFeaturesOptions::default())
        .await
        .expect("answers");
    assert_eq!(
        per_feature["metadata.version"]
            .clone()
            .expect_err("fails")
            .message(),
        "per feature"
    );
    assert_eq!(
        node.received_of(ApiKey::UpdateFeatures)
            .last()
            .map(Received::version),
        Some(1)
    );
}

#[tokio::test]
async fn describe_cluster_through_brokers_uses_endpoint_type_1() {
    let node = FakeNode::start(kafka_4_4_controller_versions(), |r| match &r.body {
        RequestBody::DescribeCluster(req) => {
            assert_eq!(req.endpoint_type, 1);
            Reply::Respond(ResponseBody::DescribeCluster(DescribeClusterResponse {
                endpoint_type: 1,
                cluster_id: StrBytes::from("abc"),
                controller_id: 7,
                brokers: vec![DescribeClusterBroker {
                    broker_id: 7,
                    host: StrBytes::from("b7"),
                    port: 9092,
                    ..Default::default()
                }]
                .into(),
                ..Default::default()
            }))
        }
        _ => Reply::Close,
    })
    .await;
    let admin = Admin::connect(quick(
        AdminConfig::bootstrap_servers(&node.address()).expect("config"),
    ))
    .await
    .expect("connects");
    let c = admin.describe_cluster().await.expect("describes");
    assert_eq!(c.cluster_id, "abc");
    assert_eq!(c.controller.map(|n| n.id), Some(7));
}
