//! Kafka's controller and raft metrics under the names the Prometheus JMX
//! exporter gives them with the rules the dashboards are built for
//! ([`MetricNaming`]): Strimzi's `kafka-metrics.yaml` or Confluent's
//! jmx-monitoring-stacks `kafka_controller.yml`.
//!
//! How the rules render Kafka's MBeans (`lowercaseOutputName`; characters
//! outside `[a-zA-Z0-9_:]` become `_`):
//!
//! * a Yammer gauge `kafka.controller:type=KafkaController,name=X` is
//!   `kafka_controller_kafkacontroller_x` in both; a tag (`broker`,
//!   `featureName`) becomes a label (Confluent lower-cases label names);
//! * a Yammer histogram is `<name>_count` plus `<name>{quantile="0.50"}` ...
//!   `{quantile="0.999"}` with Strimzi's rules, its bare `<name>` (the
//!   `Count` attribute) with Confluent's;
//! * a Yammer meter `...,name=XPerSec` is `..._x_total` with Strimzi's rules,
//!   `..._xpersec` (the `Count`) with Confluent's;
//! * `kafka.server:type=raft-metrics` attributes are
//!   `kafka_server_raftmetrics_<attr>` (Strimzi; `current-state` as a
//!   `current_state` label on a value of 1) or
//!   `kafka_server_raft_metrics_<attr>` (Confluent, which drops the
//!   text-valued `current-state`); `raft-channel-metrics` only have a
//!   Strimzi rule (`kafka_server_raftchannelmetrics_<attr>`).

use std::fmt::Write as _;

use super::stats::PERCENTILES;
use super::{ControllerMetrics, MetricNaming};

/// One sample: label pairs and a value.
type Labelled = (Vec<(String, String)>, f64);

/// Writes metric families in the text format.
struct Writer<'a> {
    out: &'a mut String,
    naming: MetricNaming,
}

impl Writer<'_> {
    fn family(&mut self, name: &str, kind: &str, help: &str, samples: &[Labelled]) {
        let _ = writeln!(self.out, "# HELP {name} {}", super::escape_help(help));
        let _ = writeln!(self.out, "# TYPE {name} {kind}");
        for (labels, value) in samples {
            self.out.push_str(name);
            if !labels.is_empty() {
                self.out.push('{');
                for (i, (label, v)) in labels.iter().enumerate() {
                    if i > 0 {
                        self.out.push(',');
                    }
                    let _ = write!(self.out, "{label}=\"{}\"", super::escape_label_value(v));
                }
                self.out.push('}');
            }
            let _ = writeln!(self.out, " {}", number(*value));
        }
    }

    fn one(&mut self, name: &str, kind: &str, help: &str, value: f64) {
        self.family(name, kind, help, &[(Vec::new(), value)]);
    }

    /// The family type of a Yammer gauge: Strimzi's rules declare it a
    /// gauge, Confluent's exporter leaves it untyped.
    fn yammer_gauge_type(&self) -> &'static str {
        match self.naming {
            MetricNaming::Strimzi => "gauge",
            MetricNaming::Confluent => "untyped",
        }
    }

    /// A Yammer gauge `kafka.<domain>:type=<kind>,name=<name>`.
    fn yammer_gauge(&mut self, domain: &str, kind: &str, name: &str, help: &str, value: f64) {
        let metric = yammer_name(domain, kind, name);
        self.one(&metric, self.yammer_gauge_type(), help, value);
    }

    /// A Yammer gauge with one tag.
    fn yammer_tagged(
        &mut self,
        domain: &str,
        kind: &str,
        name: &str,
        tag: &str,
        help: &str,
        values: &[(String, f64)],
    ) {
        let metric = yammer_name(domain, kind, name);
        let label = match self.naming {
            MetricNaming::Strimzi => tag.to_owned(),
            MetricNaming::Confluent => tag.to_lowercase(),
        };
        let samples: Vec<Labelled> = values
            .iter()
            .map(|(v, x)| (vec![(label.clone(), v.clone())], *x))
            .collect();
        self.family(&metric, self.yammer_gauge_type(), help, &samples);
    }

    /// A Yammer histogram.
    fn yammer_histogram(
        &mut self,
        kind: &str,
        name: &str,
        help: &str,
        values: &super::stats::HistogramValues,
    ) {
        let metric = yammer_name("controller", kind, name);
        match self.naming {
            MetricNaming::Strimzi => {
                self.one(
                    &format!("{metric}_count"),
                    "counter",
                    &format!("{help} (count)"),
                    values.count as f64,
                );
                let samples: Vec<Labelled> = PERCENTILES
                    .iter()
                    .zip(&values.percentiles)
                    .map(|((digits, _), v)| (vec![("quantile".into(), format!("0.{digits}"))], *v))
                    .collect();
                self.family(&metric, "gauge", help, &samples);
            }
            MetricNaming::Confluent => self.one(
                &metric,
                "untyped",
                &format!("{help} (count)"),
                values.count as f64,
            ),
        }
    }

    /// A Yammer meter `...,name=<name>PerSec`: its count.
    fn yammer_meter(&mut self, kind: &str, name: &str, help: &str, count: u64) {
        let metric = match self.naming {
            MetricNaming::Strimzi => format!("{}_total", yammer_name("controller", kind, name)),
            MetricNaming::Confluent => yammer_name("controller", kind, &format!("{name}PerSec")),
        };
        let kind = match self.naming {
            MetricNaming::Strimzi => "counter",
            MetricNaming::Confluent => "untyped",
        };
        self.one(&metric, kind, help, count as f64);
    }

    /// A `kafka.server:type=raft-metrics` attribute.
    fn raft(&mut self, attribute: &str, help: &str, value: f64) {
        let (prefix, kind) = match self.naming {
            MetricNaming::Strimzi => (
                "kafka_server_raftmetrics_",
                if attribute.ends_with("-total") || attribute.ends_with("-max") {
                    "counter"
                } else {
                    "gauge"
                },
            ),
            MetricNaming::Confluent => ("kafka_server_raft_metrics_", "gauge"),
        };
        let name = format!("{prefix}{}", safe(attribute));
        self.one(&name, kind, help, value);
    }
}

/// `kafka_<domain>_<type>_<name>`, lower case.
fn yammer_name(domain: &str, kind: &str, name: &str) -> String {
    format!("kafka_{domain}_{kind}_{name}").to_lowercase()
}

/// A JMX name part as the exporter makes it safe: `-` and `.` become `_`.
fn safe(part: &str) -> String {
    part.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect()
}

/// A sample value: integers without a fraction, NaN and infinities as the
/// text format spells them.
fn number(value: f64) -> String {
    if value.is_nan() {
        "NaN".into()
    } else if value.is_infinite() {
        if value > 0.0 { "+Inf" } else { "-Inf" }.into()
    } else {
        format!("{value}")
    }
}

/// Renders every Kafka-named family of `m`.
pub(super) fn render(out: &mut String, m: &ControllerMetrics) {
    let mut w = Writer {
        out,
        naming: m.naming,
    };
    let image = &m.image;
    let s = &m.stats;
    let kc = |w: &mut Writer, name: &str, help: &str, value: f64| {
        w.yammer_gauge("controller", "KafkaController", name, help, value)
    };
    // QuorumControllerMetrics.
    kc(
        &mut w,
        "ActiveControllerCount",
        "1 if this node is the active controller, else 0.",
        f64::from(u8::from(m.active_controller)),
    );
    w.yammer_histogram(
        "ControllerEventManager",
        "EventQueueTimeMs",
        "Milliseconds operations waited for the controller's writer.",
        &s.event_queue_time_ms,
    );
    w.yammer_histogram(
        "ControllerEventManager",
        "EventQueueProcessingTimeMs",
        "Milliseconds operations held the controller's writer.",
        &s.event_queue_processing_time_ms,
    );
    w.yammer_gauge(
        "controller",
        "ControllerEventManager",
        "AvgIdleRatio",
        "The share of time the controller's writer was free.",
        s.avg_idle_ratio,
    );
    kc(
        &mut w,
        "LastAppliedRecordOffset",
        "The offset of the last record applied to the controller's image.",
        m.last_applied_offset as f64,
    );
    kc(
        &mut w,
        "LastCommittedRecordOffset",
        "The offset of the last committed record (high watermark - 1).",
        m.high_watermark.map_or(m.last_applied_offset, |hw| hw - 1) as f64,
    );
    kc(
        &mut w,
        "LastAppliedRecordTimestamp",
        "The append time (ms since the epoch) of the last applied batch.",
        s.last_applied_timestamp as f64,
    );
    kc(
        &mut w,
        "LastAppliedRecordLagMs",
        "Milliseconds between now and the append time of the last applied batch.",
        (m.now_ms - s.last_applied_timestamp) as f64,
    );
    kc(
        &mut w,
        "TimedOutBrokerHeartbeatCount",
        "Broker heartbeats that timed out waiting for the controller's writer.",
        s.timed_out_heartbeats as f64,
    );
    kc(
        &mut w,
        "EventQueueOperationsStartedCount",
        "Operations that got the controller's writer.",
        s.operations_started as f64,
    );
    kc(
        &mut w,
        "EventQueueOperationsTimedOutCount",
        "Operations that timed out waiting for the controller's writer.",
        s.operations_timed_out as f64,
    );
    kc(
        &mut w,
        "NewActiveControllersCount",
        "Leader changes naming a leader this node saw.",
        s.new_active_controllers as f64,
    );
    // ControllerMetadataMetrics.
    let b = &image.kafka_brokers;
    kc(
        &mut w,
        "FencedBrokerCount",
        "Fenced registered brokers.",
        b.fenced as f64,
    );
    kc(
        &mut w,
        "ActiveBrokerCount",
        "Unfenced registered brokers, those in controlled shutdown included.",
        b.active as f64,
    );
    kc(
        &mut w,
        "ControlledShutdownBrokerCount",
        "Registered brokers in controlled shutdown.",
        b.controlled_shutdown as f64,
    );
    let registrations: Vec<(String, f64)> = image
        .registrations
        .iter()
        .map(|(id, state)| (id.to_string(), f64::from(*state)))
        .collect();
    if m.active_controller {
        // On the active controller only, one per registered broker: the
        // time since it was last heard from, capped at the session timeout
        // (the timeout for a broker not heard from since activation).
        let ages: Vec<(String, f64)> = image
            .registrations
            .iter()
            .map(|(id, _)| {
                let age = s.broker_contacts.get(id).map_or(s.session_timeout_ms, |t| {
                    (m.now_ms - t).clamp(0, s.session_timeout_ms)
                });
                (id.to_string(), age as f64)
            })
            .collect();
        w.yammer_tagged(
            "controller",
            "KafkaController",
            "TimeSinceLastHeartbeatReceivedMs",
            "broker",
            "Milliseconds since the active controller last heard from a broker, at most broker.session.timeout.ms.",
            &ages,
        );
    }
    w.yammer_tagged(
        "controller",
        "KafkaController",
        "BrokerRegistrationState",
        "broker",
        "A broker's registration: 10 fenced, 20 controlled shutdown, 30 active.",
        &registrations,
    );
    kc(&mut w, "GlobalTopicCount", "Topics.", image.topics as f64);
    kc(
        &mut w,
        "GlobalPartitionCount",
        "Partitions.",
        image.partitions as f64,
    );
    kc(
        &mut w,
        "OfflinePartitionsCount",
        "Partitions without a leader.",
        image.offline_partitions as f64,
    );
    kc(
        &mut w,
        "PreferredReplicaImbalanceCount",
        "Partitions whose leader is not their first replica.",
        image.preferred_replica_imbalance as f64,
    );
    kc(
        &mut w,
        "MetadataErrorCount",
        "Metadata errors this node handled and went on from (it stops on every one, so 0).",
        0.0,
    );
    kc(
        &mut w,
        "IgnoredStaticVoters",
        "1 if controller.quorum.voters is set but ignored (kraft.version 1 or later), else 0.",
        f64::from(u8::from(m.ignored_static_voters)),
    );
    w.yammer_meter(
        "ControllerStats",
        "UncleanLeaderElections",
        "Unclean leader elections applied since the process started.",
        s.unclean_elections,
    );
    w.yammer_meter(
        "ControllerStats",
        "ElectionFromEligibleLeaderReplicas",
        "Leaders elected from the eligible leader replicas since the process started.",
        s.elr_elections,
    );
    // MetadataLoaderMetrics.
    let loader = |w: &mut Writer, name: &str, help: &str, value: f64| {
        w.yammer_gauge("server", "MetadataLoader", name, help, value)
    };
    loader(
        &mut w,
        "CurrentMetadataVersion",
        "The feature level of the finalized metadata.version, 0 before one.",
        f64::from(image.metadata_version),
    );
    loader(
        &mut w,
        "CurrentControllerId",
        "The node id of the active controller, -1 when none is known.",
        f64::from(m.leader_id.unwrap_or(-1)),
    );
    loader(
        &mut w,
        "HandleLoadSnapshotCount",
        "Snapshots loaded into the image.",
        s.snapshots_loaded as f64,
    );
    loader(
        &mut w,
        "AvgIdleRatio",
        "The share of time the loader was not applying records.",
        s.loader_avg_idle_ratio,
    );
    let levels: Vec<(String, f64)> = image
        .finalized_levels
        .iter()
        .map(|(name, level)| (name.clone(), f64::from(*level)))
        .collect();
    w.yammer_tagged(
        "server",
        "MetadataLoader",
        "FinalizedLevel",
        "featureName",
        "The finalized level of a feature.",
        &levels,
    );
    // SnapshotEmitterMetrics.
    w.yammer_gauge(
        "server",
        "SnapshotEmitter",
        "LatestSnapshotGeneratedBytes",
        "The record bytes of the latest snapshot this node wrote, 0 before one.",
        s.snapshot_bytes as f64,
    );
    w.yammer_gauge(
        "server",
        "SnapshotEmitter",
        "LatestSnapshotGeneratedAgeMs",
        "Milliseconds since this node wrote its latest snapshot (or started).",
        (m.now_ms - s.snapshot_time_ms) as f64,
    );
    if let Some(r) = &m.raft {
        render_raft(&mut w, r);
    }
    if let Some(p) = &m.process {
        w.one(
            "process_cpu_seconds_total",
            "counter",
            "Total user and system CPU time spent in seconds.",
            p.cpu_seconds,
        );
        w.one(
            "process_resident_memory_bytes",
            "gauge",
            "Resident memory size in bytes.",
            p.resident_memory_bytes as f64,
        );
        w.one(
            "process_virtual_memory_bytes",
            "gauge",
            "Virtual memory size in bytes.",
            p.virtual_memory_bytes as f64,
        );
        w.one(
            "process_start_time_seconds",
            "gauge",
            "Start time of the process since unix epoch in seconds.",
            p.start_time_seconds,
        );
        w.one(
            "process_open_fds",
            "gauge",
            "Number of open file descriptors.",
            p.open_fds as f64,
        );
        w.one(
            "process_max_fds",
            "gauge",
            "Maximum number of open file descriptors.",
            p.max_fds as f64,
        );
    }
}

fn render_raft(w: &mut Writer, r: &kraft_raft::RaftMetricsSnapshot) {
    if w.naming == MetricNaming::Strimzi {
        w.family(
            "kafka_server_raftmetrics_current_state",
            "untyped",
            "The current state of this member (the current_state label).",
            &[(vec![("current_state".into(), r.current_state.into())], 1.0)],
        );
    }
    w.raft(
        "current-leader",
        "The current quorum leader's id; -1 indicates unknown.",
        f64::from(r.current_leader),
    );
    w.raft(
        "current-vote",
        "The current voted id; -1 indicates not voted for anyone.",
        f64::from(r.current_vote),
    );
    w.raft(
        "current-epoch",
        "The current quorum epoch.",
        f64::from(r.current_epoch),
    );
    w.raft(
        "high-watermark",
        "The high watermark maintained on this member; -1 if it is unknown.",
        r.high_watermark as f64,
    );
    w.raft(
        "log-end-offset",
        "The current raft log end offset.",
        r.log_end_offset as f64,
    );
    w.raft(
        "log-end-epoch",
        "The current raft log end epoch.",
        f64::from(r.log_end_epoch),
    );
    w.raft(
        "number-unknown-voter-connections",
        "Number of unknown voters whose connection information is not cached.",
        r.number_unknown_voter_connections as f64,
    );
    w.raft(
        "number-of-voters",
        "Number of voters for a KRaft topic partition.",
        r.number_of_voters as f64,
    );
    if let Some(n) = r.number_of_observers {
        w.raft(
            "number-of-observers",
            "Number of observers being tracked by the KRaft topic partition leader.",
            n as f64,
        );
    }
    if let Some(c) = r.uncommitted_voter_change {
        w.raft(
            "uncommitted-voter-change",
            "1 if there is a voter change that has not been committed, 0 otherwise.",
            f64::from(u8::from(c)),
        );
    }
    w.raft(
        "commit-latency-avg",
        "The average time in milliseconds to commit an entry in the raft log.",
        r.commit_latency_avg,
    );
    w.raft(
        "commit-latency-max",
        "The maximum time in milliseconds to commit an entry in the raft log.",
        r.commit_latency_max,
    );
    w.raft(
        "election-latency-avg",
        "The average time in milliseconds spent on electing a new leader.",
        r.election_latency_avg,
    );
    w.raft(
        "election-latency-max",
        "The maximum time in milliseconds spent on electing a new leader.",
        r.election_latency_max,
    );
    w.raft(
        "fetch-records-rate",
        "The average number of records fetched from the leader of the raft quorum.",
        r.fetch_records_rate,
    );
    w.raft(
        "append-records-rate",
        "The average number of records appended per sec by the leader of the raft quorum.",
        r.append_records_rate,
    );
    w.raft(
        "poll-idle-ratio-avg",
        "The ratio of time the Raft IO thread is idle as opposed to doing work.",
        r.poll_idle_ratio_avg,
    );
    if w.naming == MetricNaming::Strimzi {
        let c = r.channel;
        for (attribute, help, value) in [
            (
                "incoming-byte-total",
                "The total number of bytes read off all sockets of the raft channel.",
                c.incoming_byte_total,
            ),
            (
                "outgoing-byte-total",
                "The total number of outgoing bytes sent to all servers by the raft channel.",
                c.outgoing_byte_total,
            ),
            (
                "request-total",
                "The total number of requests sent by the raft channel.",
                c.request_total,
            ),
            (
                "response-total",
                "The total number of responses received by the raft channel.",
                c.response_total,
            ),
        ] {
            let name = format!("kafka_server_raftchannelmetrics_{}", safe(attribute));
            w.one(&name, "counter", help, value as f64);
        }
    }
}
