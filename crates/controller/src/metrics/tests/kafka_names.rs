//! Kafka's metrics: their semantics (read from images built record by
//! record), the exporter names of both namings, and every name the
//! dashboards' fixture lists.

use std::collections::BTreeSet;

use kraft_protocol::Uuid;
use kraft_raft::{ChannelTotals, RaftMetricsSnapshot};
use serde_json::Value;

use super::*;
use crate::metrics::stats::{Histogram, HistogramValues, StatsValues, PERCENTILES};
use crate::replication::test_support::{partition, ImageBuilder};

fn raft_snapshot() -> RaftMetricsSnapshot {
    RaftMetricsSnapshot {
        current_state: "leader",
        current_leader: 3,
        current_vote: 3,
        current_epoch: 12,
        high_watermark: 4711,
        log_end_offset: 4712,
        log_end_epoch: 12,
        number_unknown_voter_connections: 0,
        number_of_voters: 3,
        number_of_observers: Some(2),
        uncommitted_voter_change: Some(false),
        commit_latency_avg: 2.5,
        commit_latency_max: 7.0,
        election_latency_avg: f64::NAN,
        election_latency_max: f64::NAN,
        fetch_records_rate: 0.0,
        append_records_rate: 1.5,
        poll_idle_ratio_avg: 0.97,
        channel: ChannelTotals {
            request_total: 10,
            response_total: 9,
            outgoing_byte_total: 1000,
            incoming_byte_total: 2000,
        },
    }
}

fn full(naming: MetricNaming) -> ControllerMetrics {
    ControllerMetrics {
        naming,
        now_ms: 10_000,
        raft: Some(raft_snapshot()),
        stats: StatsValues {
            event_queue_time_ms: HistogramValues {
                count: 4,
                percentiles: vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0],
            },
            event_queue_processing_time_ms: HistogramValues {
                count: 4,
                percentiles: vec![1.0; 6],
            },
            last_applied_timestamp: 9_000,
            snapshot_time_ms: 4_000,
            unclean_elections: 2,
            ..StatsValues::default()
        },
        process: Some(ProcessValues {
            cpu_seconds: 1.25,
            resident_memory_bytes: 4096,
            virtual_memory_bytes: 8192,
            start_time_seconds: 1.5e9,
            open_fds: 12,
            max_fds: 1024,
        }),
        image: ImageGauges {
            registrations: vec![(1, REGISTRATION_FENCED), (2, REGISTRATION_ACTIVE)],
            finalized_levels: vec![("metadata.version".into(), 27), ("kraft.version".into(), 1)],
            ..ImageGauges::default()
        },
        ..sample_metrics()
    }
}

fn lines(text: &str) -> BTreeSet<&str> {
    text.lines().filter(|l| !l.starts_with('#')).collect()
}

#[test]
fn active_brokers_include_those_in_controlled_shutdown() {
    let image = four_brokers().build();
    let gauges = ImageGauges::read(&image);
    assert_eq!(
        gauges.kafka_brokers,
        KafkaBrokerCounts {
            active: 3,
            fenced: 1,
            controlled_shutdown: 1
        }
    );
    assert_eq!(
        gauges.registrations,
        [
            (1, REGISTRATION_FENCED),
            (2, REGISTRATION_CONTROLLED_SHUTDOWN),
            (3, REGISTRATION_ACTIVE),
            (4, REGISTRATION_ACTIVE)
        ]
    );
    let text = ControllerMetrics {
        image: gauges,
        ..ControllerMetrics::default()
    }
    .render();
    let lines = lines(&text);
    for line in [
        "kafka_controller_kafkacontroller_activebrokercount 3",
        "kafka_controller_kafkacontroller_fencedbrokercount 1",
        "kafka_controller_kafkacontroller_controlledshutdownbrokercount 1",
        "kafka_controller_kafkacontroller_brokerregistrationstate{broker=\"2\"} 20",
        "kafka_controller_kafkacontroller_brokerregistrationstate{broker=\"1\"} 10",
        // The kraft_ family keeps counting the states apart.
        "kraft_metadata_brokers{state=\"unfenced\"} 2",
    ] {
        assert!(lines.contains(line), "{line} missing from\n{text}");
    }
}

#[test]
fn partition_counts_follow_kafkas_definitions() {
    let image = ImageBuilder::new(21, false)
        .brokers(&[1, 2, 3])
        .topic("a", Uuid::from_u64_pair(1, 1), &[&[1, 2], &[2, 3]])
        // Led by its second replica: not the preferred leader.
        .topic_with(
            "b",
            Uuid::from_u64_pair(1, 2),
            vec![
                partition(&[1, 2], Vec::new(), &[2], 2, 1, 1),
                // Offline: no leader, so not led by its preferred replica.
                partition(&[3], Vec::new(), &[], -1, 1, 1),
            ],
        )
        .build();
    let g = ImageGauges::read(&image);
    assert_eq!((g.topics, g.partitions), (2, 4));
    assert_eq!(g.offline_partitions, 1);
    assert_eq!(g.preferred_replica_imbalance, 2);
    assert_eq!(g.metadata_version, 21);
    assert_eq!(
        g.finalized_levels.first(),
        Some(&("metadata.version".to_owned(), 21))
    );
    let text = ControllerMetrics {
        image: g,
        ..ControllerMetrics::default()
    }
    .render();
    let lines = lines(&text);
    for line in [
        "kafka_controller_kafkacontroller_globaltopiccount 2",
        "kafka_controller_kafkacontroller_globalpartitioncount 4",
        "kafka_controller_kafkacontroller_offlinepartitionscount 1",
        "kafka_controller_kafkacontroller_preferredreplicaimbalancecount 2",
        "kafka_server_metadataloader_currentmetadataversion 21",
        "kafka_server_metadataloader_finalizedlevel{featureName=\"metadata.version\"} 21",
    ] {
        assert!(lines.contains(line), "{line} missing from\n{text}");
    }
}

#[test]
fn strimzi_naming_renders_its_rules_names() {
    let text = full(MetricNaming::Strimzi).render();
    let lines = lines(&text);
    for line in [
        "kafka_controller_kafkacontroller_activecontrollercount 1",
        "kafka_controller_kafkacontroller_lastappliedrecordoffset 4710",
        "kafka_controller_kafkacontroller_lastcommittedrecordoffset 4710",
        "kafka_controller_kafkacontroller_lastappliedrecordtimestamp 9000",
        "kafka_controller_kafkacontroller_lastappliedrecordlagms 1000",
        "kafka_controller_kafkacontroller_metadataerrorcount 0",
        "kafka_controller_controllereventmanager_eventqueuetimems_count 4",
        "kafka_controller_controllereventmanager_eventqueuetimems{quantile=\"0.50\"} 1",
        "kafka_controller_controllereventmanager_eventqueuetimems{quantile=\"0.999\"} 6",
        "kafka_controller_controllereventmanager_eventqueueprocessingtimems_count 4",
        "kafka_controller_controllerstats_uncleanleaderelections_total 2",
        "kafka_server_snapshotemitter_latestsnapshotgeneratedagems 6000",
        "kafka_server_raftmetrics_current_state{current_state=\"leader\"} 1",
        "kafka_server_raftmetrics_current_leader 3",
        "kafka_server_raftmetrics_current_vote 3",
        "kafka_server_raftmetrics_current_epoch 12",
        "kafka_server_raftmetrics_high_watermark 4711",
        "kafka_server_raftmetrics_log_end_offset 4712",
        "kafka_server_raftmetrics_log_end_epoch 12",
        "kafka_server_raftmetrics_number_of_voters 3",
        "kafka_server_raftmetrics_number_of_observers 2",
        "kafka_server_raftmetrics_uncommitted_voter_change 0",
        "kafka_server_raftmetrics_commit_latency_avg 2.5",
        "kafka_server_raftmetrics_commit_latency_max 7",
        "kafka_server_raftmetrics_election_latency_max NaN",
        "kafka_server_raftmetrics_append_records_rate 1.5",
        "kafka_server_raftmetrics_poll_idle_ratio_avg 0.97",
        "kafka_server_raftchannelmetrics_incoming_byte_total 2000",
        "kafka_server_raftchannelmetrics_outgoing_byte_total 1000",
        "kafka_server_raftchannelmetrics_request_total 10",
        "kafka_server_raftchannelmetrics_response_total 9",
        "kafka_server_metadataloader_finalizedlevel{featureName=\"kraft.version\"} 1",
        "process_cpu_seconds_total 1.25",
        "process_open_fds 12",
        "process_max_fds 1024",
        "process_resident_memory_bytes 4096",
        "process_virtual_memory_bytes 8192",
        "process_start_time_seconds 1500000000",
    ] {
        assert!(lines.contains(line), "{line} missing from\n{text}");
    }
    assert!(!text.contains("kafka_server_raft_metrics_"));
}

#[test]
fn confluent_naming_renders_its_rules_names() {
    let text = full(MetricNaming::Confluent).render();
    let lines = lines(&text);
    for line in [
        "kafka_controller_kafkacontroller_activecontrollercount 1",
        "kafka_controller_controllereventmanager_eventqueuetimems 4",
        "kafka_controller_controllereventmanager_eventqueueprocessingtimems 4",
        "kafka_controller_controllerstats_uncleanleaderelectionspersec 2",
        "kafka_server_raft_metrics_current_leader 3",
        "kafka_server_raft_metrics_high_watermark 4711",
        "kafka_server_raft_metrics_commit_latency_avg 2.5",
        "kafka_server_raft_metrics_election_latency_max NaN",
        "kafka_server_metadataloader_finalizedlevel{featurename=\"kraft.version\"} 1",
        "process_cpu_seconds_total 1.25",
    ] {
        assert!(lines.contains(line), "{line} missing from\n{text}");
    }
    // Confluent's rules have no quantiles for these histograms, drop the
    // text-valued current-state and export no raft-channel-metrics.
    for absent in [
        "quantile=",
        "kafka_server_raftmetrics_",
        "current_state",
        "raftchannelmetrics",
        "timems_count",
    ] {
        assert!(!text.contains(absent), "{absent} in\n{text}");
    }
}

#[test]
fn leader_only_raft_metrics_are_absent_on_followers() {
    let mut m = full(MetricNaming::Strimzi);
    if let Some(r) = m.raft.as_mut() {
        r.current_state = "follower";
        r.number_of_observers = None;
        r.uncommitted_voter_change = None;
    }
    let text = m.render();
    assert!(text.contains("kafka_server_raftmetrics_current_state{current_state=\"follower\"} 1\n"));
    assert!(!text.contains("number_of_observers"));
    assert!(!text.contains("uncommitted_voter_change"));
}

#[test]
fn histograms_interpolate_as_yammer_snapshots_do() {
    let mut h = Histogram::default();
    assert_eq!(h.quantile(0.5), 0.0);
    for v in [5, 1, 3, 2, 4] {
        h.update(v);
    }
    assert_eq!(h.count(), 5);
    // pos = q * (n + 1): 0.5 * 6 = 3 -> the third value.
    assert_eq!(h.quantile(0.5), 3.0);
    // 0.75 * 6 = 4.5 -> between the fourth and fifth.
    assert_eq!(h.quantile(0.75), 4.5);
    assert_eq!(h.quantile(0.999), 5.0);
    assert_eq!(h.quantile(0.1), 1.0);
    assert_eq!(PERCENTILES.len(), 6);
}

#[test]
fn process_values_parse_procfs_text() {
    let stat = "4242 (kraft (x) y) S 1 4242 4242 0 -1 4194560 2000 0 0 0 150 75 0 0 20 0 \
                9 0 12345 999999 777 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0";
    let status = "Name:\tkraft\nVmSize:\t  123456 kB\nVmRSS:\t    2048 kB\n";
    let limits = "Limit                     Soft Limit           Hard Limit           Units\n\
                  Max open files            1024                 524288               files\n";
    let boot =
        crate::metrics::process::parse_boot_time("cpu  1 2 3\nbtime 1700000000\nprocesses 5\n");
    assert_eq!(boot, Some(1_700_000_000));
    let v = crate::metrics::process::parse(stat, 1_700_000_000, status, limits, 7).expect("parses");
    assert_eq!(v.cpu_seconds, 2.25);
    assert!((v.start_time_seconds - 1_700_000_123.45).abs() < 1e-3);
    assert_eq!(v.resident_memory_bytes, 2048 * 1024);
    assert_eq!(v.virtual_memory_bytes, 123_456 * 1024);
    assert_eq!((v.open_fds, v.max_fds), (7, 1024));
    assert!(crate::metrics::process::parse("garbage", 0, status, limits, 0).is_none());
    assert!(ProcessValues::read().is_some(), "this test runs on Linux");
}

/// The dashboards' fixture, shared with the end-to-end test.
fn fixture() -> Value {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/dashboard-metrics.json"
    );
    let text = std::fs::read_to_string(path).expect("the fixture exists");
    serde_json::from_str(&text).expect("the fixture is JSON")
}

/// Every name a dashboard or alert selects is rendered under its source's
/// naming (with the exporter-made labels it matches or groups by), except
/// exactly the names the fixture says have no meaning here.
#[test]
fn every_dashboard_metric_is_rendered_except_the_ones_without_meaning() {
    let fixture = fixture();
    let not_applicable: BTreeSet<String> = fixture["not_applicable"]
        .as_object()
        .expect("not_applicable")
        .keys()
        .cloned()
        .collect();
    let mut missing = BTreeSet::new();
    let mut checked = 0;
    for query in fixture["queries"].as_array().expect("queries") {
        let naming =
            MetricNaming::parse(query["naming"].as_str().expect("naming")).expect("a known naming");
        let text = full(naming).render();
        for metric in query["metrics"].as_array().expect("metrics") {
            let name = metric["name"].as_str().expect("name");
            let mut labels: Vec<&str> = metric["grouping_labels"]
                .as_array()
                .map(|a| a.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            for m in metric["matchers"].as_array().expect("matchers") {
                if m["environment"].as_bool() != Some(true) {
                    labels.extend(m["label"].as_str());
                }
            }
            let found = text.lines().any(|l| {
                let (series, _) = l.rsplit_once(' ').unwrap_or((l, ""));
                !l.starts_with('#')
                    && (series == name || series.starts_with(&format!("{name}{{")))
                    && labels.iter().all(|k| series.contains(&format!("{k}=\"")))
            });
            checked += 1;
            if !found {
                missing.insert(name.to_owned());
            }
        }
    }
    assert!(checked > 40, "the fixture lists the dashboards' queries");
    assert_eq!(
        missing, not_applicable,
        "names without a series must be exactly the ones without meaning"
    );
}

#[test]
fn heartbeat_ages_are_served_on_the_active_controller_only() {
    let image = ImageGauges::read(&four_brokers().build());
    let stats = StatsValues {
        broker_contacts: std::collections::BTreeMap::from([(1, 10_000), (3, 19_000)]),
        session_timeout_ms: 9_000,
        ..StatsValues::default()
    };
    let metrics = |active_controller| ControllerMetrics {
        active_controller,
        now_ms: 20_000,
        image: image.clone(),
        stats: stats.clone(),
        ..ControllerMetrics::default()
    };
    let text = metrics(true).render();
    let lines = lines(&text);
    // Broker 1 was heard from 10 s ago (capped at the 9 s session timeout),
    // 3 one second ago; 2 and 4 not since activation: the timeout.
    for (broker, age) in [(1, 9000), (2, 9000), (3, 1000), (4, 9000)] {
        let line = format!(
            "kafka_controller_kafkacontroller_timesincelastheartbeatreceivedms{{broker=\"{broker}\"}} {age}"
        );
        assert!(lines.contains(line.as_str()), "{line} missing from\n{text}");
    }
    assert!(!metrics(false)
        .render()
        .contains("timesincelastheartbeatreceivedms"));
}
