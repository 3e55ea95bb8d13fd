//! Snapshots of every output format, from hand-built admin results.

use std::collections::BTreeMap;

use kraft_admin::{
    kafka_uuid, ClusterNode, FeatureMetadata, FinalizedVersionRange, QuorumInfo, QuorumNode,
    RaftVoterEndpoint, ReplicaState, SupportedVersionRange, Uuid,
};
use kraft_cli::render;

const NOW: i64 = 1_730_000_010_000;

fn uuid(s: &str) -> Uuid {
    kafka_uuid::parse(s).expect("valid uuid")
}

fn replica(
    id: i32,
    dir: &str,
    leo: i64,
    fetch: Option<i64>,
    caught_up: Option<i64>,
) -> ReplicaState {
    ReplicaState {
        replica_id: id,
        replica_directory_id: uuid(dir),
        log_end_offset: leo,
        last_fetch_timestamp: fetch,
        last_caught_up_timestamp: caught_up,
    }
}

fn node(id: i32, endpoints: &[&str]) -> (i32, QuorumNode) {
    (
        id,
        QuorumNode {
            node_id: id,
            endpoints: endpoints
                .iter()
                .map(|e| RaftVoterEndpoint::parse(e).expect("valid endpoint"))
                .collect(),
        },
    )
}

/// A Kafka 4.4 answer (DescribeQuorum v2): three voters, one observer.
fn quorum() -> QuorumInfo {
    QuorumInfo {
        leader_id: 3000,
        leader_epoch: 5,
        high_watermark: 1_234,
        voters: vec![
            replica(
                3000,
                "ILZ5MPTeRWakmJu99uBJCA",
                1_240,
                Some(NOW - 10),
                Some(NOW - 10),
            ),
            replica(
                3001,
                "b-fWZ7Tv7ZlAQrrYiiyDxA",
                1_240,
                Some(NOW - 120),
                Some(NOW - 120),
            ),
            replica(
                3002,
                "g42deArWBTRM5A1yuVpMCg",
                1_100,
                Some(NOW - 2_400),
                Some(NOW - 5_000),
            ),
        ],
        committed_voters: None,
        observers: vec![replica(
            3003,
            "cHvrFCk5SOqvBRm0q8kGUA",
            1_239,
            Some(NOW - 300),
            Some(NOW - 900),
        )],
        nodes: BTreeMap::from([
            node(3000, &["CONTROLLER://localhost:9093"]),
            node(
                3001,
                &[
                    "CONTROLLER://localhost:9094",
                    "CONTROLLER_SSL://localhost:9194",
                ],
            ),
            node(3002, &["CONTROLLER://::1:9095"]),
        ]),
    }
}

#[test]
fn status_text() {
    insta::assert_snapshot!(
        render::status_text("MkU3OEVBNTcwNTJENDM2Qg", &quorum()).expect("renders")
    );
}

#[test]
fn status_text_with_committed_voters() {
    let mut q = quorum();
    q.committed_voters = Some(vec![
        q.voters[0].clone(),
        replica(3004, "pJ2BJvcXTnyXYpf3RUfvdw", -1, None, None),
    ]);
    insta::assert_snapshot!(render::status_text("MkU3OEVBNTcwNTJENDM2Qg", &q).expect("renders"));
}

#[test]
fn status_text_of_an_old_response() {
    // DescribeQuorum v0: no directory ids, no timestamps, no endpoints;
    // the leader has the smallest offset, so MaxFollowerLagTimeMs is 0.
    let q = QuorumInfo {
        leader_id: 1,
        leader_epoch: 2,
        high_watermark: -1,
        voters: vec![
            replica(2, "AAAAAAAAAAAAAAAAAAAAAA", 10, None, None),
            replica(1, "AAAAAAAAAAAAAAAAAAAAAA", 10, None, None),
        ],
        committed_voters: None,
        observers: vec![],
        nodes: BTreeMap::new(),
    };
    let text = render::status_text("abc", &q).expect("renders");
    assert!(
        text.contains("MaxFollowerLagTimeMs:   -1\n"),
        "the first minimum (node 2) is not the leader: {text}"
    );
    insta::assert_snapshot!(text);
    let mut leader_first = q.clone();
    leader_first.voters.swap(0, 1);
    assert!(render::status_text("abc", &leader_first)
        .expect("renders")
        .contains("MaxFollowerLagTimeMs:   0\n"));
}

#[test]
fn status_json() {
    let mut q = quorum();
    q.committed_voters = Some(vec![q.voters[0].clone()]);
    let v = render::status_json("MkU3OEVBNTcwNTJENDM2Qg", &q).expect("renders");
    insta::assert_snapshot!(serde_json::to_string_pretty(&v).expect("json"));
}

#[test]
fn replication_text() {
    let text = render::replication_text(&quorum(), None).expect("renders");
    // Every cell, the last included, is followed by a tab (snapshots trim
    // the final one away).
    assert!(text.lines().all(|l| l.ends_with('\t')), "{text:?}");
    assert!(text.ends_with("Observer\t\n"));
    insta::assert_snapshot!(text);
}

#[test]
fn replication_text_human_readable() {
    let mut q = quorum();
    q.observers
        .push(replica(3005, "AAAAAAAAAAAAAAAAAAAAAA", 0, None, None));
    insta::assert_snapshot!(render::replication_text(&q, Some(NOW)).expect("renders"));
}

#[test]
fn replication_text_clock_drift() {
    let mut q = quorum();
    q.voters[1].last_fetch_timestamp = Some(NOW + 5);
    insta::assert_snapshot!(render::replication_text(&q, Some(NOW)).expect_err("fails"));
}

#[test]
fn replication_json() {
    insta::assert_snapshot!(serde_json::to_string_pretty(
        &render::replication_json(&quorum()).expect("renders")
    )
    .expect("json"));
}

#[test]
fn leader_missing_from_voters_is_an_error() {
    let mut q = quorum();
    q.leader_id = 7;
    assert_eq!(
        render::status_text("x", &q).expect_err("fails"),
        "The leader 7 is not among the current voters [3000, 3001, 3002]"
    );
    assert!(render::replication_text(&q, None).is_err());
}

fn features() -> FeatureMetadata {
    let supported = |a, b| SupportedVersionRange {
        min_version: a,
        max_version: b,
    };
    let finalized = |l| FinalizedVersionRange {
        min_version_level: l,
        max_version_level: l,
    };
    FeatureMetadata {
        finalized_features: BTreeMap::from([
            ("metadata.version".to_owned(), finalized(33)),
            ("kraft.version".to_owned(), finalized(1)),
            ("group.version".to_owned(), finalized(1)),
        ]),
        finalized_features_epoch: Some(11),
        supported_features: BTreeMap::from([
            ("metadata.version".to_owned(), supported(7, 33)),
            ("kraft.version".to_owned(), supported(0, 1)),
            ("group.version".to_owned(), supported(0, 1)),
            ("share.version".to_owned(), supported(0, 2)),
        ]),
        api_versions: Vec::new(),
    }
}

#[test]
fn features_text() {
    insta::assert_snapshot!(render::features_text(&features()));
}

#[test]
fn features_text_without_epoch() {
    let mut f = features();
    f.finalized_features_epoch = None;
    f.supported_features.insert(
        "metadata.version".to_owned(),
        SupportedVersionRange {
            min_version: 7,
            max_version: 40,
        },
    );
    insta::assert_snapshot!(render::features_text(&f));
}

#[test]
fn features_json() {
    insta::assert_snapshot!(
        serde_json::to_string_pretty(&render::features_json(&features())).expect("json")
    );
}

#[test]
fn endpoints_text() {
    let nodes = vec![
        ClusterNode {
            id: 1,
            host: "127.0.0.1".into(),
            port: 9093,
            rack: None,
            is_fenced: false,
        },
        ClusterNode {
            id: 2,
            host: "controller-2.example.com".into(),
            port: 9093,
            rack: None,
            is_fenced: false,
        },
    ];
    insta::assert_snapshot!(
        "endpoints_controllers",
        render::endpoints_text(&nodes, true)
    );
    let mut brokers = nodes.clone();
    brokers[1].rack = Some("rack-b".into());
    brokers[1].is_fenced = true;
    insta::assert_snapshot!("endpoints_brokers", render::endpoints_text(&brokers, false));
}

#[test]
fn pretty_table_matches_kafka_tools_utils() {
    let t = render::pretty_table(
        &["A", "Long header"],
        &[vec!["wide cell".into(), "x".into()]],
    );
    assert_eq!(t, "A        \tLong header\t\nwide cell\tx          \t\n");
}

/// `kafka-cluster api-versions` lines: the golden text is what Kafka
/// 4.4.0's `Node.toString` and `NodeApiVersions.toString(true)` print for
/// the same answers (tests/golden/api-versions/NodeText.java).
#[test]
fn api_versions_text_matches_kafka() {
    use kraft_admin::features::ApiVersionRange;
    let golden = include_str!("golden/api-versions/node-api-versions.txt");
    let v = |api_key, min_version, max_version| ApiVersionRange {
        api_key,
        min_version,
        max_version,
    };
    let answer = [
        v(55, 0, 2),
        v(18, 0, 4),
        v(4, 0, 7),
        v(0, 0, 2),
        v(999, 1, 1),
        v(1, 4, 20),
        v(80, 0, 1),
        v(57, 0, 0),
    ];
    let controller = ClusterNode {
        id: 3,
        host: "127.0.0.1".to_owned(),
        port: 9093,
        rack: None,
        is_fenced: false,
    };
    let broker = ClusterNode {
        id: 4,
        host: "broker-4.example".to_owned(),
        port: 9092,
        rack: Some("rack-a".to_owned()),
        is_fenced: true,
    };
    let ours = format!(
        "{} -> {}\n{} -> {}\n",
        render::node_text(&controller),
        render::node_api_versions_text(&answer),
        render::node_text(&broker),
        render::node_api_versions_text(&[]),
    );
    assert_eq!(ours, golden);
}
