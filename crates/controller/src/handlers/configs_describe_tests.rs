//! DescribeConfigs and the legacy AlterConfigs through the handlers, over a
//! gated in-memory quorum and a real image: Kafka's `ConfigHelper` answers
//! (sources, synonyms, sensitive values, errors) and the legacy
//! replace-the-whole-set writes of `ConfigurationControlManager`.
//!
//! Defaults, types and documentation texts asserted here are Kafka 4.4.0's
//! (its `LogConfig`, `KafkaConfig`, `GroupConfig` and `ClientMetricsConfigs`
//! definitions); error texts are those of `ConfigHelper` and
//! `ControllerApis`.

use std::collections::BTreeMap;
use std::sync::Arc;

use kraft_protocol::messages::alter_configs_request::{self, AlterConfigsRequest};
use kraft_protocol::messages::alter_configs_response::AlterConfigsResponse;
use kraft_protocol::messages::describe_configs_request::{
    DescribeConfigsRequest, DescribeConfigsResource,
};
use kraft_protocol::messages::describe_configs_response::{
    DescribeConfigsResourceResult, DescribeConfigsResponse, DescribeConfigsResult,
};
use kraft_protocol::messages::incremental_alter_configs_request::{
    AlterConfigsResource, AlterableConfig, IncrementalAlterConfigsRequest,
};
use kraft_protocol::{ErrorCode, MetadataRecordBody, StrBytes};

use super::broker_tests::GatedQuorum;
use super::configs_tests::{cluster, create_topic};
use super::Controller;
use crate::image::ConfigResource;
use crate::loggers::Loggers;

const TOPIC: i8 = ConfigResource::TOPIC;
const BROKER: i8 = ConfigResource::BROKER;
const LOGGER: i8 = ConfigResource::BROKER_LOGGER;
const METRICS: i8 = ConfigResource::CLIENT_METRICS;
const GROUP: i8 = ConfigResource::GROUP;

// DescribeConfigsResponse.ConfigSource ids.
const TOPIC_CONFIG: i8 = 1;
const DYNAMIC_BROKER: i8 = 2;
const DYNAMIC_DEFAULT: i8 = 3;
const STATIC: i8 = 4;
const DEFAULT: i8 = 5;
const LOGGER_CONFIG: i8 = 6;
const METRICS_CONFIG: i8 = 7;
const GROUP_CONFIG: i8 = 8;

/// A controller (node 1) over brokers 4-6 with these static configs and
/// its own loggers started from `log_filter`.
async fn controller(
    statics: &[(&str, &str)],
    log_filter: &str,
) -> (Arc<Controller>, Arc<GatedQuorum>) {
    let (c, q, _) = cluster(false).await;
    let mut c = Arc::try_unwrap(c).expect("only the test holds the controller");
    // Node 1 is a static voter: BROKER configs may name it.
    c.settings.static_voter_ids = vec![1];
    c.settings.static_configs = crate::config::StaticProperties(
        statics
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect(),
    );
    let c = c.with_loggers(Arc::new(Loggers::new(log_filter)));
    (Arc::new(c), q)
}

fn set(c: &Controller, resource_type: i8, name: &str, configs: &[(&str, Option<&str>)]) {
    let r = futures_block(
        c.incremental_alter_configs(&IncrementalAlterConfigsRequest {
            resources: vec![AlterConfigsResource {
                resource_type,
                resource_name: name.into(),
                configs: configs
                    .iter()
                    .map(|(k, v)| AlterableConfig {
                        name: (*k).into(),
                        config_operation: if v.is_some() { 0 } else { 1 },
                        value: v.map(Into::into),
                        ..Default::default()
                    })
                    .collect(),
                ..Default::default()
            }]
            .into(),
            ..Default::default()
        }),
    );
    for a in r.responses.iter() {
        assert_eq!(a.error_code, 0, "{a:?}");
    }
}

/// Runs a future to completion from inside a tokio test (the handlers'
/// futures need the test's runtime).
fn futures_block<F: std::future::Future>(f: F) -> F::Output {
    tokio::task::block_in_place(|| tokio::runtime::Handle::current().block_on(f))
}

fn resource(resource_type: i8, name: &str, keys: Option<&[&str]>) -> DescribeConfigsResource {
    DescribeConfigsResource {
        resource_type,
        resource_name: name.into(),
        configuration_keys: keys.map(|k| k.iter().map(|s| StrBytes::from(*s)).collect()),
        ..Default::default()
    }
}

fn describe(
    c: &Controller,
    resources: Vec<DescribeConfigsResource>,
    synonyms: bool,
    documentation: bool,
) -> DescribeConfigsResponse {
    c.describe_configs(&DescribeConfigsRequest {
        resources: resources.into(),
        include_synonyms: synonyms,
        include_documentation: documentation,
        ..Default::default()
    })
}

/// (error code, message) of a result.
fn outcome(r: &DescribeConfigsResult) -> (i16, Option<String>) {
    (
        r.error_code,
        r.error_message.as_ref().map(|m| m.as_str().to_owned()),
    )
}

fn by_name(r: &DescribeConfigsResult) -> BTreeMap<String, DescribeConfigsResourceResult> {
    r.configs
        .iter()
        .map(|e| (e.name.as_str().to_owned(), e.into_owned()))
        .collect()
}

/// (value, source, synonyms as (name, value, source)).
type Shown = (Option<String>, i8, Vec<(String, Option<String>, i8)>);

fn shown(e: &DescribeConfigsResourceResult) -> Shown {
    (
        e.value.as_ref().map(|v| v.as_str().to_owned()),
        e.config_source,
        e.synonyms
            .iter()
            .map(|s| {
                (
                    s.name.as_str().to_owned(),
                    s.value.as_ref().map(|v| v.as_str().to_owned()),
                    s.source,
                )
            })
            .collect(),
    )
}

fn syn(name: &str, value: Option<&str>, source: i8) -> (String, Option<String>, i8) {
    (name.to_owned(), value.map(str::to_owned), source)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_topics_configs_come_with_their_sources_and_synonyms() {
    let (c, _) = controller(&[("log.segment.bytes", "4194304")], "info").await;
    create_topic(&c, "t", 1, 1).await;
    set(&c, TOPIC, "t", &[("retention.ms", Some("1000"))]);
    set(&c, BROKER, "", &[("log.cleanup.policy", Some("compact"))]);
    let r = describe(&c, vec![resource(TOPIC, "t", None)], true, false);
    let result = r.results.single().expect("one result");
    assert_eq!(
        outcome(result),
        (0, Some(String::new())),
        "Kafka's schema default"
    );
    let configs = by_name(result);
    assert_eq!(
        shown(&configs["retention.ms"]),
        (
            Some("1000".into()),
            TOPIC_CONFIG,
            vec![syn("retention.ms", Some("1000"), TOPIC_CONFIG)]
        ),
        "the log.retention.hours default is not a synonym of log.retention.ms"
    );
    assert_eq!(
        shown(&configs["cleanup.policy"]),
        (
            Some("compact".into()),
            DYNAMIC_DEFAULT,
            vec![
                syn("log.cleanup.policy", Some("compact"), DYNAMIC_DEFAULT),
                syn("log.cleanup.policy", Some("delete"), DEFAULT),
            ]
        )
    );
    assert_eq!(
        shown(&configs["segment.bytes"]),
        (
            Some("4194304".into()),
            STATIC,
            vec![
                syn("log.segment.bytes", Some("4194304"), STATIC),
                syn("log.segment.bytes", Some("1073741824"), DEFAULT),
            ]
        )
    );
    assert_eq!(
        shown(&configs["segment.ms"]).0.as_deref(),
        Some("604800000"),
        "168 hours"
    );
    assert!(!configs.contains_key("internal.segment.bytes"));
    let retention = &configs["retention.ms"];
    assert!(!retention.read_only && !retention.is_sensitive);
    assert_eq!(retention.config_type, 5, "LONG");
    assert_eq!(retention.documentation, None, "not asked for");

    // Only the asked keys, no synonyms, the documentation.
    let r = describe(
        &c,
        vec![resource(
            TOPIC,
            "t",
            Some(&["segment.bytes", "retention.ms"]),
        )],
        false,
        true,
    );
    let result = r.results.single().expect("one result");
    let names: Vec<String> = result
        .configs
        .iter()
        .map(|e| e.name.as_str().to_owned())
        .collect();
    assert_eq!(names, ["segment.bytes", "retention.ms"], "definition order");
    assert!(result.configs.iter().all(|e| e.synonyms.is_empty()));
    let doc = by_name(result)["retention.ms"]
        .documentation
        .as_ref()
        .map(|d| d.as_str().to_owned())
        .unwrap_or_default();
    assert!(
        doc.starts_with("This configuration controls the maximum time we will retain a log"),
        "{doc}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn topic_errors_are_kafkas() {
    let (c, _) = controller(&[], "info").await;
    let r = describe(
        &c,
        vec![
            resource(TOPIC, "nope", None),
            resource(TOPIC, "a/b", None),
            resource(TOPIC, "", None),
        ],
        false,
        false,
    );
    let outcomes: Vec<_> = r.results.iter().map(|r| outcome(&r)).collect();
    assert_eq!(
        outcomes,
        [
            (ErrorCode::UnknownTopicOrPartition.code(), Some(String::new())),
            (
                ErrorCode::InvalidTopicException.code(),
                Some("Topic name is invalid: 'a/b' contains one or more characters other than ASCII alphanumerics, '.', '_' and '-'".into())
            ),
            (
                ErrorCode::InvalidTopicException.code(),
                Some("Topic name is invalid: the empty string is not allowed".into())
            ),
        ]
    );
    assert!(r.results.iter().all(|r| r.configs.is_empty()));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_resource_of_another_type_fails_the_whole_request() {
    let (c, _) = controller(&[], "info").await;
    let r = describe(
        &c,
        vec![resource(TOPIC, "t", None), resource(3, "x", None)],
        false,
        false,
    );
    let invalid = (
        ErrorCode::InvalidRequest.code(),
        Some(ErrorCode::InvalidRequest.default_message().to_owned()),
    );
    let outcomes: Vec<_> = r.results.iter().map(|r| outcome(&r)).collect();
    assert_eq!(outcomes, [invalid.clone(), invalid]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn broker_loggers_are_read_back_after_a_change() {
    let (c, _) = controller(&[], "warn,kraft_raft=debug").await;
    let levels = |c: &Controller| -> BTreeMap<String, (Option<String>, i8)> {
        let r = describe(c, vec![resource(LOGGER, "1", None)], true, false);
        let result = r.results.single().expect("one result");
        assert_eq!(
            outcome(result),
            (0, Some(String::new())),
            "Kafka's schema default"
        );
        result
            .configs
            .iter()
            .map(|e| {
                assert!(e.synonyms.is_empty() && !e.read_only && !e.is_sensitive);
                assert_eq!(
                    (e.config_type, e.documentation.as_ref().map(|d| d.as_str())),
                    (0, Some("")),
                    "left at the schema defaults"
                );
                (
                    e.name.as_str().to_owned(),
                    (
                        e.value.as_ref().map(|v| v.as_str().to_owned()),
                        e.config_source,
                    ),
                )
            })
            .collect()
    };
    let before = levels(&c);
    assert_eq!(before["root"], (Some("WARN".into()), LOGGER_CONFIG));
    assert_eq!(before["kraft_raft"], (Some("DEBUG".into()), LOGGER_CONFIG));
    assert_eq!(
        before["kraft_controller"],
        (Some("WARN".into()), LOGGER_CONFIG)
    );
    set(&c, LOGGER, "1", &[("kraft_controller", Some("TRACE"))]);
    set(&c, LOGGER, "1", &[("kraft_raft", None)]);
    let after = levels(&c);
    assert_eq!(after["kraft_controller"].0.as_deref(), Some("TRACE"));
    assert_eq!(after["kraft_raft"].0.as_deref(), Some("WARN"), "the root's");
    assert_eq!(
        c.loggers.directives(),
        "warn,kraft_controller=trace",
        "the filter applied"
    );
    let r = describe(
        &c,
        vec![
            resource(LOGGER, "", None),
            resource(LOGGER, "x", None),
            resource(LOGGER, "2", None),
        ],
        false,
        false,
    );
    let outcomes: Vec<_> = r.results.iter().map(|r| outcome(&r)).collect();
    let invalid = ErrorCode::InvalidRequest.code();
    assert_eq!(
        outcomes,
        [
            (invalid, Some("Broker id must not be empty".into())),
            (
                invalid,
                Some("Broker id must be an integer, but it is: x".into())
            ),
            (
                invalid,
                Some("Unexpected broker id, expected 1 but received 2".into())
            ),
        ]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn this_nodes_broker_configs_layer_static_dynamic_and_defaults() {
    let (c, _) = controller(
        &[
            ("node.id", "1"),
            ("process.roles", "controller"),
            ("ssl.keystore.password", "secret"),
            ("my.own.key", "v"),
            ("log.cleaner.threads", "3"),
        ],
        "info",
    )
    .await;
    set(&c, BROKER, "1", &[("log.cleaner.threads", Some("2"))]);
    set(&c, BROKER, "1", &[("node.id", Some("7"))]);
    let r = describe(&c, vec![resource(BROKER, "1", None)], true, true);
    let result = r.results.single().expect("one result");
    assert_eq!(
        outcome(result),
        (0, Some(String::new())),
        "Kafka's schema default"
    );
    let configs = by_name(result);
    let node_id = &configs["node.id"];
    assert_eq!(
        shown(node_id),
        (
            Some("1".into()),
            STATIC,
            vec![syn("node.id", Some("1"), STATIC)]
        ),
        "node.id is not dynamic: the stored 7 is ignored"
    );
    assert!(node_id.read_only);
    assert_eq!(node_id.config_type, 3, "INT");
    assert!(node_id.documentation.as_ref().is_some_and(|d| d
        .as_str()
        .starts_with("The node ID associated with the roles")));
    let threads = &configs["log.cleaner.threads"];
    assert_eq!(
        shown(threads),
        (
            Some("2".into()),
            DYNAMIC_BROKER,
            vec![
                syn("log.cleaner.threads", Some("2"), DYNAMIC_BROKER),
                syn("log.cleaner.threads", Some("3"), STATIC),
                syn("log.cleaner.threads", Some("1"), DEFAULT),
            ]
        )
    );
    assert!(!threads.read_only);
    let password = &configs["ssl.keystore.password"];
    assert_eq!(
        shown(password),
        (
            None,
            STATIC,
            vec![syn("ssl.keystore.password", None, STATIC)]
        )
    );
    assert!(password.is_sensitive);
    assert_eq!(password.config_type, 9, "PASSWORD");
    let own = &configs["my.own.key"];
    assert_eq!(shown(own).0, None, "a key of unknown type is sensitive");
    assert!(own.is_sensitive && own.read_only);
    assert_eq!(own.config_type, 0);
    assert_eq!(
        shown(&configs["log.retention.ms"]),
        (None, DEFAULT, vec![]),
        "no default of its own; log.retention.hours is not its name"
    );
    assert_eq!(
        shown(&configs["log.retention.hours"]).0.as_deref(),
        Some("168")
    );
    assert!(
        !configs.contains_key("leader.replication.throttled.rate"),
        "a dynamic-only quota is no config of the node"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_cluster_default_lists_the_dynamic_defaults_a_node_accepts() {
    let (c, _) = controller(&[("log.retention.ms", "9")], "info").await;
    set(
        &c,
        BROKER,
        "",
        &[
            ("log.retention.ms", Some("5")),
            ("node.id", Some("3")),
            ("ssl.keystore.password", Some("pw")),
        ],
    );
    let r = describe(
        &c,
        vec![resource(BROKER, "", None), resource(BROKER, "2", None)],
        true,
        false,
    );
    let default = r.results.first().expect("two results");
    assert_eq!(outcome(&default), (0, Some(String::new())));
    let configs = by_name(&default);
    assert_eq!(
        configs.keys().collect::<Vec<_>>(),
        ["log.retention.ms"],
        "node.id is not dynamic; a keystore password needs a listener prefix"
    );
    assert_eq!(
        shown(&configs["log.retention.ms"]),
        (
            Some("5".into()),
            DYNAMIC_DEFAULT,
            vec![syn("log.retention.ms", Some("5"), DYNAMIC_DEFAULT)]
        ),
        "only the cluster-wide synonyms"
    );
    let other = r.results.get(1).expect("two results");
    assert_eq!(
        outcome(&other),
        (
            ErrorCode::InvalidRequest.code(),
            Some("Unexpected broker id, expected 1 or empty string, but received 2".into())
        )
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn client_metrics_and_groups_over_their_defaults() {
    let (c, _) = controller(&[("group.share.session.timeout.ms", "50000")], "info").await;
    set(&c, METRICS, "sub", &[("interval.ms", Some("1000"))]);
    set(
        &c,
        GROUP,
        "g",
        &[("consumer.session.timeout.ms", Some("50000"))],
    );
    let r = describe(
        &c,
        vec![
            resource(METRICS, "sub", None),
            resource(METRICS, "other", None),
            resource(GROUP, "g", None),
            resource(METRICS, "", None),
            resource(GROUP, "", None),
        ],
        true,
        false,
    );
    let results: Vec<DescribeConfigsResult> = r.results.iter().map(|r| r.into_owned()).collect();
    let sub = by_name(&results[0]);
    assert_eq!(
        shown(&sub["interval.ms"]),
        (
            Some("1000".into()),
            METRICS_CONFIG,
            vec![syn("interval.ms", Some("1000"), METRICS_CONFIG)]
        )
    );
    assert_eq!(
        shown(&sub["metrics"]),
        (Some(String::new()), DEFAULT, vec![])
    );
    let other = by_name(&results[1]);
    assert_eq!(
        shown(&other["interval.ms"]),
        (Some("300000".into()), DEFAULT, vec![]),
        "a subscription nobody configured is described too"
    );
    let group = by_name(&results[2]);
    assert_eq!(
        shown(&group["consumer.session.timeout.ms"]),
        (
            Some("50000".into()),
            GROUP_CONFIG,
            vec![
                syn("consumer.session.timeout.ms", Some("50000"), GROUP_CONFIG),
                syn("group.consumer.session.timeout.ms", Some("45000"), DEFAULT),
            ]
        )
    );
    assert_eq!(
        shown(&group["share.session.timeout.ms"]),
        (
            Some("50000".into()),
            STATIC,
            vec![
                syn("group.share.session.timeout.ms", Some("50000"), STATIC),
                syn("group.share.session.timeout.ms", Some("45000"), DEFAULT),
            ]
        )
    );
    assert_eq!(
        shown(&group["share.auto.offset.reset"]),
        (
            Some("latest".into()),
            DEFAULT,
            vec![syn("share.auto.offset.reset", Some("latest"), DEFAULT)]
        ),
        "no broker synonym: the group config's default"
    );
    assert!(
        !group.contains_key("consumer.assignor.offload.enable"),
        "internal, and its broker synonym is not set"
    );
    let invalid = ErrorCode::InvalidRequest.code();
    assert_eq!(
        outcome(&results[3]),
        (
            invalid,
            Some("Client metrics subscription name must not be empty".into())
        )
    );
    assert_eq!(
        outcome(&results[4]),
        (invalid, Some("Group name must not be empty".into()))
    );
}

// ---- the legacy AlterConfigs

/// A resource of a legacy request: (type, name, its whole set of configs).
type LegacyResource<'a> = (i8, &'a str, &'a [(&'a str, Option<&'a str>)]);

fn legacy(resources: &[LegacyResource<'_>], validate_only: bool) -> AlterConfigsRequest {
    AlterConfigsRequest {
        resources: resources
            .iter()
            .map(
                |(t, n, configs)| alter_configs_request::AlterConfigsResource {
                    resource_type: *t,
                    resource_name: (*n).into(),
                    configs: configs
                        .iter()
                        .map(|(k, v)| alter_configs_request::AlterableConfig {
                            name: (*k).into(),
                            value: v.map(Into::into),
                            ..Default::default()
                        })
                        .collect(),
                    ..Default::default()
                },
            )
            .collect(),
        validate_only,
        ..Default::default()
    }
}

fn legacy_answers(r: &AlterConfigsResponse) -> Vec<(i8, String, i16, Option<String>)> {
    r.responses
        .iter()
        .map(|a| {
            (
                a.resource_type,
                a.resource_name.as_str().to_owned(),
                a.error_code,
                a.error_message.as_ref().map(|m| m.as_str().to_owned()),
            )
        })
        .collect()
}

/// The ConfigRecords appended from `from` on: (type, name, key, value).
fn config_records(q: &GatedQuorum, from: usize) -> Vec<(i8, String, String, Option<String>)> {
    q.records()[from..]
        .iter()
        .filter_map(|r| match &r.body {
            MetadataRecordBody::Config(c) => Some((
                c.resource_type,
                c.resource_name.as_str().to_owned(),
                c.name.as_str().to_owned(),
                c.value.as_ref().map(|v| v.as_str().to_owned()),
            )),
            _ => None,
        })
        .collect()
}

fn rec(t: i8, n: &str, k: &str, v: Option<&str>) -> (i8, String, String, Option<String>) {
    (t, n.to_owned(), k.to_owned(), v.map(str::to_owned))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn legacy_alter_configs_replaces_the_whole_set() {
    let (c, q) = controller(&[], "info").await;
    create_topic(&c, "t", 1, 1).await;
    set(
        &c,
        TOPIC,
        "t",
        &[
            ("retention.ms", Some("1000")),
            ("cleanup.policy", Some("compact")),
        ],
    );
    set(&c, BROKER, "", &[("log.retention.ms", Some("5"))]);
    let mark = q.records().len();
    let r = c
        .alter_configs(&legacy(
            &[
                (
                    TOPIC,
                    "t",
                    &[
                        ("retention.ms", Some("2000")),
                        ("cleanup.policy", Some("compact")),
                    ],
                ),
                (BROKER, "", &[("log.retention.ms", Some("5"))]),
            ],
            false,
        ))
        .await;
    assert_eq!(
        legacy_answers(&r),
        [
            (TOPIC, "t".into(), 0, None),
            (BROKER, String::new(), 0, None)
        ]
    );
    assert_eq!(
        config_records(&q, mark),
        [
            rec(TOPIC, "t", "retention.ms", Some("2000")),
            rec(BROKER, "", "log.retention.ms", Some("5")),
        ],
        "an unchanged topic value is not written again, a broker's is (KAFKA-14136)"
    );
    // The set without cleanup.policy deletes it.
    let mark = q.records().len();
    let r = c
        .alter_configs(&legacy(
            &[(TOPIC, "t", &[("retention.ms", Some("2000"))])],
            false,
        ))
        .await;
    assert_eq!(legacy_answers(&r), [(TOPIC, "t".into(), 0, None)]);
    assert_eq!(
        config_records(&q, mark),
        [rec(TOPIC, "t", "cleanup.policy", None)]
    );
    // An empty set deletes everything; validate_only writes nothing.
    let mark = q.records().len();
    let r = c.alter_configs(&legacy(&[(TOPIC, "t", &[])], true)).await;
    assert_eq!(legacy_answers(&r), [(TOPIC, "t".into(), 0, None)]);
    assert_eq!(config_records(&q, mark), []);
    let r = c.alter_configs(&legacy(&[(TOPIC, "t", &[])], false)).await;
    assert_eq!(legacy_answers(&r), [(TOPIC, "t".into(), 0, None)]);
    assert_eq!(
        config_records(&q, mark),
        [rec(TOPIC, "t", "retention.ms", None)]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn legacy_alter_configs_refuses_as_kafka_refuses() {
    let (c, q) = controller(&[], "info").await;
    create_topic(&c, "t", 1, 1).await;
    let mark = q.records().len();
    let r = c
        .alter_configs(&legacy(
            &[
                (3, "x", &[]),
                (TOPIC, "t", &[("retention.ms", Some("1"))]),
                (TOPIC, "t", &[("retention.ms", Some("2"))]),
                (TOPIC, "t", &[("retention.ms", Some("3"))]),
                (LOGGER, "1", &[("root", Some("DEBUG"))]),
                (TOPIC, "u", &[("retention.ms", Some("1"))]),
                (TOPIC, "v", &[]),
                (BROKER, "x", &[]),
            ],
            false,
        ))
        .await;
    let invalid_request = ErrorCode::InvalidRequest.code();
    assert_eq!(
        legacy_answers(&r),
        [
            (
                3,
                "x".into(),
                ErrorCode::UnsupportedVersion.code(),
                Some("Unknown resource type 3.".into())
            ),
            (
                TOPIC,
                "t".into(),
                invalid_request,
                Some("Duplicate resource.".into())
            ),
            (
                LOGGER,
                "1".into(),
                invalid_request,
                Some("Unexpected resource type BROKER_LOGGER.".into())
            ),
            (
                TOPIC,
                "u".into(),
                ErrorCode::UnknownTopicOrPartition.code(),
                Some("The topic 'u' does not exist.".into())
            ),
            (
                TOPIC,
                "v".into(),
                ErrorCode::UnknownTopicOrPartition.code(),
                Some("The topic 'v' does not exist.".into())
            ),
            (
                BROKER,
                "x".into(),
                invalid_request,
                Some("Unable to parse broker name as a base 10 number.".into())
            ),
        ]
    );
    assert_eq!(config_records(&q, mark), []);
    let r = c
        .alter_configs(&legacy(
            &[(TOPIC, "t", &[("retention.ms", Some("abc"))])],
            false,
        ))
        .await;
    assert_eq!(
        legacy_answers(&r),
        [(
            TOPIC,
            "t".into(),
            ErrorCode::InvalidConfig.code(),
            Some(
                "Invalid value abc for configuration retention.ms: Not a number of type LONG"
                    .into()
            )
        )]
    );
    assert_eq!(config_records(&q, mark), []);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_legacy_alter_configs_answers_through_an_envelope() {
    use super::broker_tests::{alice, envelope_at, server_context};
    use kraft_protocol::header::decode_response;
    use kraft_protocol::{ApiKey, RequestBody, ResponseBody};

    let (c, q) = controller(&[], "info").await;
    create_topic(&c, "t", 1, 1).await;
    let mark = q.records().len();
    let body = RequestBody::AlterConfigs(legacy(
        &[(TOPIC, "t", &[("retention.ms", Some("2000"))])],
        false,
    ));
    let r = c
        .envelope(
            &super::Access::everything(),
            &server_context(),
            envelope_at(
                ApiKey::AlterConfigs,
                2,
                &body,
                Some(alice()),
                &[10, 0, 0, 7],
            ),
        )
        .await;
    assert_eq!(r.error_code, 0);
    let (correlation, inner) =
        decode_response(r.response_data.expect("an answer"), ApiKey::AlterConfigs, 2)
            .expect("decodes");
    assert_eq!(correlation, 42);
    let ResponseBody::AlterConfigs(r) = inner else {
        panic!("not an AlterConfigs answer: {inner:?}")
    };
    assert_eq!(legacy_answers(&r), [(TOPIC, "t".into(), 0, None)]);
    assert_eq!(
        config_records(&q, mark),
        [rec(TOPIC, "t", "retention.ms", Some("2000"))]
    );
}
