//! Kafka's metric names, as the dashboards and alerts query them, against
//! three real `kraft server` processes with stand-in brokers registered:
//! every metric name (and exporter-made label) of every controller panel and
//! alert in `crates/controller/tests/fixtures/dashboard-metrics.json`
//! selects a series on at least one controller (the leader for a query
//! filtering on the value), first with Strimzi's naming, then after a
//! restart with Confluent's; the names that select nothing are exactly the
//! ones the fixture lists as without meaning. On the way, a broker in
//! controlled shutdown is counted active, as Kafka counts it.

use std::collections::BTreeSet;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use kraft_protocol::messages::broker_heartbeat_request::BrokerHeartbeatRequest;
use kraft_protocol::messages::create_topics_request;
use kraft_protocol::{List, RequestBody, ResponseBody, StrBytes, Uuid};
use kraft_testkit::{free_port, wait_for};
use serde_json::Value;

use super::protocol_sweep::sweep::leader_and_follower;
use super::reassignments::{call, finalized_features, heartbeat, register_with_dirs};
use super::{format_and_start_three, kraft, wait_for_three_voters, Cluster};

const BROKERS: [i32; 3] = [2001, 2002, 2003];
const PATIENCE: Duration = Duration::from_secs(60);

fn fixture() -> Value {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../controller/tests/fixtures/dashboard-metrics.json"
    );
    let text = std::fs::read_to_string(path).expect("the fixture exists");
    serde_json::from_str(&text).expect("the fixture is JSON")
}

/// `GET /metrics` from `addr`: the body of a `200` answer.
fn scrape(addr: &str) -> Option<String> {
    let mut stream = TcpStream::connect(addr).ok()?;
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .ok()?;
    stream
        .write_all(b"GET /metrics HTTP/1.1\r\nHost: kraft\r\n\r\n")
        .ok()?;
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer).ok()?;
    let answer = String::from_utf8(answer).ok()?;
    let (head, body) = answer.split_once("\r\n\r\n")?;
    head.starts_with("HTTP/1.1 200 OK\r\n")
        .then(|| body.to_owned())
}

/// One sample line: its name, its labels text and its value.
fn samples(text: &str) -> Vec<(String, String, f64)> {
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .filter_map(|l| {
            let (series, value) = l.rsplit_once(' ')?;
            let value = match value {
                "NaN" => f64::NAN,
                "+Inf" => f64::INFINITY,
                "-Inf" => f64::NEG_INFINITY,
                v => v.parse().ok()?,
            };
            let (name, labels) = match series.split_once('{') {
                Some((n, l)) => (n, l.trim_end_matches('}')),
                None => (series, ""),
            };
            Some((name.to_owned(), labels.to_owned(), value))
        })
        .collect()
}

/// The value of the unlabelled sample `name`.
fn value(text: &str, name: &str) -> Option<f64> {
    samples(text)
        .into_iter()
        .find(|(n, l, _)| n == name && l.is_empty())
        .map(|(_, _, v)| v)
}

/// Whether a query's metric selects a series in `scrape`: its name, every
/// exporter-made label it matches or groups by, and its value filter.
fn selects(metric: &Value, scrape: &str) -> bool {
    let name = metric["name"].as_str().unwrap_or_default();
    let mut labels: Vec<&str> = metric["grouping_labels"]
        .as_array()
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    for m in metric["matchers"].as_array().into_iter().flatten() {
        if m["environment"].as_bool() != Some(true) {
            labels.extend(m["label"].as_str());
        }
    }
    let floor = metric["value_filter"]["value"].as_f64();
    samples(scrape).iter().any(|(n, l, v)| {
        n == name
            && labels.iter().all(|k| l.contains(&format!("{k}=\"")))
            && floor.is_none_or(|f| *v > f)
    })
}

/// Checks every query of `naming` against the nodes' scrapes; returns
/// (names checked, names that selected nothing).
fn check(
    fixture: &Value,
    naming: &str,
    scrapes: &[String],
) -> (BTreeSet<String>, BTreeSet<String>) {
    let mut checked = BTreeSet::new();
    let mut missing = BTreeSet::new();
    for query in fixture["queries"].as_array().into_iter().flatten() {
        if query["naming"].as_str() != Some(naming) {
            continue;
        }
        for metric in query["metrics"].as_array().into_iter().flatten() {
            let name = metric["name"].as_str().unwrap_or_default().to_owned();
            checked.insert(name.clone());
            if !scrapes.iter().any(|s| selects(metric, s)) {
                missing.insert(name);
            }
        }
    }
    (checked, missing)
}

/// A heartbeat asking to shut down: the broker enters controlled shutdown.
fn request_shutdown(addr: &str, id: i32, epoch: i64) {
    let request = BrokerHeartbeatRequest {
        broker_id: id,
        broker_epoch: epoch,
        current_metadata_offset: 1 << 40,
        want_shut_down: true,
        ..Default::default()
    };
    let ResponseBody::BrokerHeartbeat(r) = call(addr, 1, RequestBody::BrokerHeartbeat(request))
    else {
        panic!("not a BrokerHeartbeat response")
    };
    assert_eq!(r.error_code, 0, "broker {id} asks to shut down");
}

#[test]
fn every_dashboard_metric_selects_a_series_on_a_real_quorum() {
    let fixture = fixture();
    let not_applicable: BTreeSet<String> = fixture["not_applicable"]
        .as_object()
        .map(|o| o.keys().cloned().collect())
        .unwrap_or_default();
    let mut c = Cluster::new("dashboard-metrics", 3);
    let metrics_ports: Vec<u16> = (0..3).map(|_| free_port()).collect();
    let metrics_addr = |id: usize| format!("127.0.0.1:{}", metrics_ports[id - 1]);
    let props = |id: usize, naming: &str| {
        format!(
            "kraft.metrics.listener=127.0.0.1:{}\nkraft.metrics.naming={naming}\n",
            metrics_ports[id - 1]
        )
    };
    let cluster_id = kraft(&["storage", "random-uuid"]).1.trim().to_string();
    format_and_start_three(
        &mut c,
        &cluster_id,
        |id| props(id, "strimzi"),
        &["--release-version", "4.4-IV2"],
    );
    wait_for_three_voters(&c);
    let leader_of = |c: &Cluster| {
        let nodes: Vec<(i32, String)> = (1..=3).map(|id| (id as i32, c.controller(id))).collect();
        let (leader, _) = leader_and_follower(&nodes, PATIENCE);
        nodes
            .iter()
            .find(|(_, a)| *a == leader.addr)
            .map_or(1, |(id, _)| *id)
    };
    let leader = leader_of(&c);
    let addr = c.controller(leader as usize);

    // Stand-in brokers register and are unfenced; one asks to shut down.
    let features = finalized_features(&addr);
    let epochs: Vec<(i32, i64)> = BROKERS
        .iter()
        .map(|&id| {
            let dirs = vec![Uuid::from_u64_pair(0xda5, id as u64)];
            (
                id,
                register_with_dirs(&addr, &cluster_id, id, &features, dirs),
            )
        })
        .collect();
    for &(id, epoch) in &epochs {
        heartbeat(&addr, id, epoch);
    }
    wait_for("the brokers are unfenced", PATIENCE, || {
        epochs
            .iter()
            .all(|&(id, epoch)| !heartbeat(&addr, id, epoch))
            .then_some(())
    });
    // A partition led by the broker that shuts down: it stays in
    // controlled shutdown (unfenced) until its leadership has moved and it
    // heartbeats again or its session expires.
    let create = create_topics_request::CreateTopicsRequest {
        topics: List::from([create_topics_request::CreatableTopic {
            name: StrBytes::from("dashboards"),
            num_partitions: -1,
            replication_factor: -1,
            assignments: List::from([create_topics_request::CreatableReplicaAssignment {
                partition_index: 0,
                broker_ids: vec![2003, 2001, 2002],
                ..Default::default()
            }]),
            ..Default::default()
        }]),
        timeout_ms: 10_000,
        ..Default::default()
    };
    let ResponseBody::CreateTopics(r) = call(&addr, 7, RequestBody::CreateTopics(create)) else {
        panic!("not a CreateTopics response")
    };
    assert!(
        r.topics.iter().all(|t| t.error_code == 0),
        "the topic is created"
    );
    let (shutting, epoch) = epochs[2];
    request_shutdown(&addr, shutting, epoch);
    wait_for(
        "three active brokers, one in controlled shutdown, on the leader",
        PATIENCE,
        || {
            let text = scrape(&metrics_addr(leader as usize))?;
            (value(&text, "kafka_controller_kafkacontroller_activebrokercount") == Some(3.0)
                && value(
                    &text,
                    "kafka_controller_kafkacontroller_controlledshutdownbrokercount",
                ) == Some(1.0)
                && value(&text, "kafka_controller_kafkacontroller_fencedbrokercount") == Some(0.0))
            .then_some(())
        },
    );

    // Strimzi's naming: the leader is active; every name selects a series.
    let scrapes: Vec<String> = (1..=3)
        .map(|id| wait_for("a scrape", PATIENCE, || scrape(&metrics_addr(id))))
        .collect();
    let leader_text = &scrapes[leader as usize - 1];
    assert_eq!(
        value(
            leader_text,
            "kafka_controller_kafkacontroller_activecontrollercount"
        ),
        Some(1.0),
        "{leader_text}"
    );
    assert!(leader_text
        .contains("kafka_server_raftmetrics_current_state{current_state=\"leader\"} 1\n"));
    // The active controller tells how long ago each broker heartbeated:
    // at most the 9 s session timeout; standbys serve none.
    for &(id, _) in &epochs {
        let age = samples(leader_text)
            .into_iter()
            .find(|(n, l, _)| {
                n == "kafka_controller_kafkacontroller_timesincelastheartbeatreceivedms"
                    && l.contains(&format!("broker=\"{id}\""))
            })
            .map(|(_, _, v)| v);
        assert!(
            age.is_some_and(|a| (0.0..=9000.0).contains(&a)),
            "broker {id}: {age:?}\n{leader_text}"
        );
    }
    assert!(scrapes
        .iter()
        .enumerate()
        .filter(|(i, _)| *i + 1 != leader as usize)
        .all(|(_, s)| !s.contains("timesincelastheartbeatreceivedms")));
    let (strimzi_checked, strimzi_missing) = check(&fixture, "strimzi", &scrapes);
    let strimzi_na: BTreeSet<String> = strimzi_checked
        .intersection(&not_applicable)
        .cloned()
        .collect();
    assert_eq!(
        strimzi_missing, strimzi_na,
        "Strimzi names without a series must be exactly those without meaning\n{leader_text}"
    );

    // Confluent's naming after a restart of every controller.
    for id in 1..=3 {
        c.write_props_with(id, &props(id, "confluent"));
        c.server(id).stop();
        c.server(id).start();
    }
    wait_for_three_voters(&c);
    let leader = leader_of(&c);
    let scrapes: Vec<String> = wait_for("the active controller reports itself", PATIENCE, || {
        let scrapes: Option<Vec<String>> = (1..=3).map(|id| scrape(&metrics_addr(id))).collect();
        let scrapes = scrapes?;
        (value(
            &scrapes[leader as usize - 1],
            "kafka_controller_kafkacontroller_activecontrollercount",
        ) == Some(1.0))
        .then_some(scrapes)
    });
    let (confluent_checked, confluent_missing) = check(&fixture, "confluent", &scrapes);
    let confluent_na: BTreeSet<String> = confluent_checked
        .intersection(&not_applicable)
        .cloned()
        .collect();
    assert_eq!(
        confluent_missing,
        confluent_na,
        "Confluent names without a series must be exactly those without meaning\n{}",
        scrapes[leader as usize - 1]
    );
    assert!(!scrapes[0].contains("kafka_server_raftmetrics_"));
    // Every name the fixture calls meaningless was checked by some source.
    let all: BTreeSet<String> = strimzi_checked.union(&confluent_checked).cloned().collect();
    assert!(not_applicable.is_subset(&all));
    for id in 1..=3 {
        assert_eq!(
            c.server(id).stop(),
            Some(0),
            "controller {id} stops cleanly"
        );
    }
}
