//! IncrementalAlterConfigs through the handler, over a gated in-memory
//! quorum and a real image: the records it writes and Kafka's refusals.

use std::sync::Arc;
use std::time::Duration;

use kraft_protocol::messages::broker_registration_request::Feature;
use kraft_protocol::messages::create_topics_request::{CreatableTopic, CreateTopicsRequest};
use kraft_protocol::messages::incremental_alter_configs_request::{
    AlterConfigsResource, AlterableConfig, IncrementalAlterConfigsRequest,
};
use kraft_protocol::messages::incremental_alter_configs_response::IncrementalAlterConfigsResponse;
use kraft_protocol::{ErrorCode, MetadataRecordBody};

use super::broker_tests::{heartbeat, registration, setup, GatedQuorum};
use super::Controller;
use crate::image::{ConfigResource, MetadataRecord};

const SET: i8 = 0;
const DELETE: i8 = 1;
const APPEND: i8 = 2;
const SUBTRACT: i8 = 3;
const TOPIC: i8 = ConfigResource::TOPIC;
const BROKER: i8 = ConfigResource::BROKER;

/// A controller with brokers 4, 5 and 6 registered and unfenced (and
/// eligible leader replicas on when `elr`); returns their epochs too.
pub(super) async fn cluster(elr: bool) -> (Arc<Controller>, Arc<GatedQuorum>, Vec<(i32, i64)>) {
    let (c, q) = setup(Duration::from_secs(9));
    if elr {
        q.log.lock().unwrap().push(MetadataRecord::feature_level(
            "eligible.leader.replicas.version",
            1,
        ));
        q.release();
    }
    let mut epochs = Vec::new();
    for id in [4, 5, 6] {
        let mut request = registration(id, 1);
        request.features.push(Feature {
            name: "eligible.leader.replicas.version".into(),
            min_supported_version: 0,
            max_supported_version: 1,
            ..Default::default()
        });
        let r = c.broker_registration(4, &request).await;
        assert_eq!(r.error_code, 0, "broker {id}");
        epochs.push((id, r.broker_epoch));
    }
    for (id, epoch) in &epochs {
        let hb = c.broker_heartbeat(&heartbeat(*id, *epoch, 100)).await;
        assert_eq!((hb.error_code, hb.is_fenced), (0, false), "broker {id}");
    }
    (c, q, epochs)
}

/// Creates topic `name` with `partitions` partitions of `replicas` replicas.
pub(super) async fn create_topic(c: &Controller, name: &str, partitions: i32, replicas: i16) {
    let r = c
        .create_topics(&CreateTopicsRequest {
            topics: vec![CreatableTopic {
                name: name.into(),
                num_partitions: partitions,
                replication_factor: replicas,
                ..Default::default()
            }]
            .into(),
            timeout_ms: 5000,
            ..Default::default()
        })
        .await;
    assert_eq!(r.topics.single().map(|t| t.error_code), Some(0), "{r:?}");
}

fn op(name: &str, operation: i8, value: Option<&str>) -> AlterableConfig {
    AlterableConfig {
        name: name.into(),
        config_operation: operation,
        value: value.map(Into::into),
        ..Default::default()
    }
}

fn resource(resource_type: i8, name: &str, configs: Vec<AlterableConfig>) -> AlterConfigsResource {
    AlterConfigsResource {
        resource_type,
        resource_name: name.into(),
        configs: configs.into(),
        ..Default::default()
    }
}

fn request(
    resources: Vec<AlterConfigsResource>,
    validate_only: bool,
) -> IncrementalAlterConfigsRequest {
    IncrementalAlterConfigsRequest {
        resources: resources.into(),
        validate_only,
        ..Default::default()
    }
}

/// (type, name, error code, message) of each answer, in order.
fn answers(r: &IncrementalAlterConfigsResponse) -> Vec<(i8, String, i16, Option<String>)> {
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

fn ok(resource_type: i8, name: &str) -> (i8, String, i16, Option<String>) {
    (resource_type, name.to_owned(), 0, None)
}

fn refused(
    resource_type: i8,
    name: &str,
    code: ErrorCode,
    message: &str,
) -> (i8, String, i16, Option<String>) {
    (
        resource_type,
        name.to_owned(),
        code.code(),
        Some(message.to_owned()),
    )
}

/// A record as (type, resource, name, value), or `ClearElr(topic)`.
#[derive(Debug, PartialEq, Eq)]
enum Rec {
    Config(i8, String, String, Option<String>),
    ClearElr(String),
}

fn config(resource_type: i8, resource: &str, name: &str, value: Option<&str>) -> Rec {
    Rec::Config(
        resource_type,
        resource.to_owned(),
        name.to_owned(),
        value.map(str::to_owned),
    )
}

/// The records appended from `from` on.
fn written(q: &GatedQuorum, from: usize) -> Vec<Rec> {
    q.records()[from..]
        .iter()
        .map(|r| {
            assert_eq!(r.version, 0, "{r:?}");
            match &r.body {
                MetadataRecordBody::Config(c) => Rec::Config(
                    c.resource_type,
                    c.resource_name.as_str().to_owned(),
                    c.name.as_str().to_owned(),
                    c.value.as_ref().map(|v| v.as_str().to_owned()),
                ),
                MetadataRecordBody::ClearElr(c) => Rec::ClearElr(c.topic_name.as_str().to_owned()),
                other => panic!("unexpected record {other:?}"),
            }
        })
        .collect()
}

fn topic_config(c: &Controller, topic: &str, key: &str) -> Option<String> {
    c.image()
        .read()
        .configs()
        .value(&ConfigResource::new(TOPIC, topic), key)
        .map(str::to_owned)
}

#[tokio::test]
async fn set_delete_append_and_subtract_change_a_topics_configs() {
    let (c, q, _) = cluster(false).await;
    create_topic(&c, "t", 1, 3).await;

    let mark = q.records().len();
    let r = c
        .incremental_alter_configs(&request(
            vec![resource(
                TOPIC,
                "t",
                vec![
                    op("retention.ms", SET, Some("1000")),
                    op("cleanup.policy", APPEND, Some("compact")),
                ],
            )],
            false,
        ))
        .await;
    assert_eq!(answers(&r), [ok(TOPIC, "t")]);
    // Kafka's HashMap order of the two names (a JVM iterates
    // {retention.ms, cleanup.policy} as [cleanup.policy, retention.ms]).
    assert_eq!(
        written(&q, mark),
        [
            config(TOPIC, "t", "cleanup.policy", Some("delete,compact")),
            config(TOPIC, "t", "retention.ms", Some("1000")),
        ]
    );
    assert_eq!(
        topic_config(&c, "t", "retention.ms").as_deref(),
        Some("1000")
    );
    assert_eq!(
        topic_config(&c, "t", "cleanup.policy").as_deref(),
        Some("delete,compact")
    );

    // SUBTRACT removes from the current value; a SET to the same value
    // writes nothing for a topic; DELETE writes a null value.
    let mark = q.records().len();
    let r = c
        .incremental_alter_configs(&request(
            vec![resource(
                TOPIC,
                "t",
                vec![
                    op("cleanup.policy", SUBTRACT, Some("delete")),
                    op("retention.ms", SET, Some("1000")),
                ],
            )],
            false,
        ))
        .await;
    assert_eq!(answers(&r), [ok(TOPIC, "t")]);
    assert_eq!(
        written(&q, mark),
        [config(TOPIC, "t", "cleanup.policy", Some("compact"))]
    );
    let mark = q.records().len();
    let r = c
        .incremental_alter_configs(&request(
            vec![resource(TOPIC, "t", vec![op("retention.ms", DELETE, None)])],
            false,
        ))
        .await;
    assert_eq!(answers(&r), [ok(TOPIC, "t")]);
    assert_eq!(
        written(&q, mark),
        [config(TOPIC, "t", "retention.ms", None)]
    );
    assert_eq!(topic_config(&c, "t", "retention.ms"), None);
    assert_eq!(
        topic_config(&c, "t", "cleanup.policy").as_deref(),
        Some("compact")
    );

    // The last change of a name wins.
    let mark = q.records().len();
    let r = c
        .incremental_alter_configs(&request(
            vec![resource(
                TOPIC,
                "t",
                vec![
                    op("segment.ms", SET, Some("1")),
                    op("segment.ms", SET, Some("3600000")),
                ],
            )],
            false,
        ))
        .await;
    assert_eq!(answers(&r), [ok(TOPIC, "t")]);
    assert_eq!(
        written(&q, mark),
        [config(TOPIC, "t", "segment.ms", Some("3600000"))]
    );
}

#[tokio::test]
async fn topic_configs_are_refused_as_kafka_refuses_them() {
    let (c, q, _) = cluster(false).await;
    create_topic(&c, "t", 1, 1).await;
    let mark = q.records().len();
    let r = c
        .incremental_alter_configs(&request(
            vec![
                resource(TOPIC, "t", vec![op("no.such.config", SET, Some("1"))]),
                resource(TOPIC, "missing", vec![op("retention.ms", SET, Some("1"))]),
                resource(TOPIC, "", vec![op("retention.ms", SET, Some("1"))]),
                resource(TOPIC, "a/b", vec![op("retention.ms", SET, Some("1"))]),
            ],
            false,
        ))
        .await;
    assert_eq!(
        answers(&r),
        [
            refused(
                TOPIC,
                "t",
                ErrorCode::InvalidConfig,
                "Unknown topic config name: no.such.config"
            ),
            refused(
                TOPIC,
                "missing",
                ErrorCode::UnknownTopicOrPartition,
                "The topic 'missing' does not exist."
            ),
            refused(
                TOPIC,
                "",
                ErrorCode::InvalidRequest,
                "Default topic resources are not allowed."
            ),
            refused(
                TOPIC,
                "a/b",
                ErrorCode::InvalidTopicException,
                "Topic name is invalid: 'a/b' contains one or more characters other than ASCII alphanumerics, '.', '_' and '-'"
            ),
        ]
    );
    let r = c
        .incremental_alter_configs(&request(
            vec![resource(
                TOPIC,
                "t",
                vec![
                    op("retention.ms", APPEND, Some("5")),
                    op("min.insync.replicas", SET, Some("zero")),
                ],
            )],
            false,
        ))
        .await;
    // The operations are checked before the values.
    assert_eq!(
        answers(&r),
        [refused(
            TOPIC,
            "t",
            ErrorCode::InvalidConfig,
            "Can't APPEND to key retention.ms because its type is not LIST."
        )]
    );
    let r = c
        .incremental_alter_configs(&request(
            vec![resource(
                TOPIC,
                "t",
                vec![op("min.insync.replicas", SET, Some("zero"))],
            )],
            false,
        ))
        .await;
    assert_eq!(
        answers(&r),
        [refused(
            TOPIC,
            "t",
            ErrorCode::InvalidConfig,
            "Invalid value zero for configuration min.insync.replicas: Not a number of type INT"
        )]
    );
    let r = c
        .incremental_alter_configs(&request(
            vec![resource(
                TOPIC,
                "t",
                vec![op("retention.ms", SET, Some(&"9".repeat(32768)))],
            )],
            false,
        ))
        .await;
    assert_eq!(
        answers(&r),
        [refused(
            TOPIC,
            "t",
            ErrorCode::InvalidConfig,
            "The configuration value cannot be added because it exceeds the maximum value size of 32767 bytes."
        )]
    );
    assert_eq!(written(&q, mark), [], "a refused change writes nothing");
}

#[tokio::test]
async fn broker_resources_check_the_name_and_the_node_only() {
    let (c, q, _) = cluster(false).await;
    let mark = q.records().len();
    let r = c
        .incremental_alter_configs(&request(
            vec![
                resource(BROKER, "abc", vec![op("log.retention.ms", SET, Some("1"))]),
                resource(BROKER, "-1", vec![op("log.retention.ms", SET, Some("1"))]),
                resource(BROKER, "9", vec![op("log.retention.ms", SET, Some("1"))]),
                resource(BROKER, "4", vec![op("anything.at.all", SET, Some("x"))]),
                resource(
                    BROKER,
                    "",
                    vec![op("ssl.enabled.protocols", SUBTRACT, Some("TLSv1.2"))],
                ),
                resource(BROKER, "5", vec![op("num.io.threads", APPEND, Some("1"))]),
            ],
            false,
        ))
        .await;
    assert_eq!(
        answers(&r),
        [
            refused(
                BROKER,
                "abc",
                ErrorCode::InvalidRequest,
                "Unable to parse broker name as a base 10 number."
            ),
            refused(
                BROKER,
                "-1",
                ErrorCode::InvalidRequest,
                "Invalid negative broker ID."
            ),
            refused(
                BROKER,
                "9",
                ErrorCode::BrokerIdNotRegistered,
                "No node with id 9 found."
            ),
            ok(BROKER, "4"),
            ok(BROKER, ""),
            refused(
                BROKER,
                "5",
                ErrorCode::InvalidConfig,
                "Can't APPEND to key num.io.threads because its type is not LIST."
            ),
        ]
    );
    assert_eq!(
        written(&q, mark),
        [
            config(BROKER, "4", "anything.at.all", Some("x")),
            config(BROKER, "", "ssl.enabled.protocols", Some("TLSv1.3")),
        ]
    );
    // An unchanged BROKER value is written again (KAFKA-14136).
    let mark = q.records().len();
    let r = c
        .incremental_alter_configs(&request(
            vec![resource(
                BROKER,
                "4",
                vec![op("anything.at.all", SET, Some("x"))],
            )],
            false,
        ))
        .await;
    assert_eq!(answers(&r), [ok(BROKER, "4")]);
    assert_eq!(
        written(&q, mark),
        [config(BROKER, "4", "anything.at.all", Some("x"))]
    );
}

#[tokio::test]
async fn min_insync_replicas_with_elr_clears_the_elr_and_keeps_the_cluster_level() {
    let (c, q, _) = cluster(true).await;
    create_topic(&c, "t", 1, 3).await;
    let mark = q.records().len();
    let r = c
        .incremental_alter_configs(&request(
            vec![
                resource(BROKER, "", vec![op("min.insync.replicas", SET, Some("2"))]),
                resource(TOPIC, "t", vec![op("min.insync.replicas", SET, Some("3"))]),
                resource(BROKER, "4", vec![op("min.insync.replicas", SET, Some("2"))]),
            ],
            false,
        ))
        .await;
    assert_eq!(
        answers(&r),
        [
            ok(BROKER, ""),
            ok(TOPIC, "t"),
            refused(
                BROKER,
                "4",
                ErrorCode::InvalidConfig,
                "Broker-level min.insync.replicas cannot be altered while ELR is enabled."
            ),
        ]
    );
    assert_eq!(
        written(&q, mark),
        [
            config(BROKER, "", "min.insync.replicas", Some("2")),
            config(TOPIC, "t", "min.insync.replicas", Some("3")),
            Rec::ClearElr(String::new()),
            Rec::ClearElr("t".to_owned()),
        ]
    );
    assert_eq!(
        c.image()
            .read()
            .configs()
            .cluster_default("min.insync.replicas"),
        Some("2")
    );
    let r = c
        .incremental_alter_configs(&request(
            vec![resource(
                BROKER,
                "",
                vec![op("min.insync.replicas", DELETE, None)],
            )],
            false,
        ))
        .await;
    assert_eq!(
        answers(&r),
        [refused(
            BROKER,
            "",
            ErrorCode::InvalidConfig,
            "Cluster-level min.insync.replicas cannot be removed while ELR is enabled."
        )]
    );
}

#[tokio::test]
async fn validate_only_answers_without_writing() {
    let (c, q, _) = cluster(true).await;
    create_topic(&c, "t", 1, 1).await;
    let mark = q.records().len();
    let r = c
        .incremental_alter_configs(&request(
            vec![
                resource(TOPIC, "t", vec![op("retention.ms", SET, Some("1000"))]),
                resource(BROKER, "", vec![op("min.insync.replicas", SET, Some("1"))]),
                resource(TOPIC, "t2", vec![op("retention.ms", SET, Some("1000"))]),
            ],
            true,
        ))
        .await;
    assert_eq!(
        answers(&r),
        [
            ok(TOPIC, "t"),
            ok(BROKER, ""),
            refused(
                TOPIC,
                "t2",
                ErrorCode::UnknownTopicOrPartition,
                "The topic 't2' does not exist."
            ),
        ]
    );
    assert_eq!(written(&q, mark), []);
    assert_eq!(topic_config(&c, "t", "retention.ms"), None);
}

#[tokio::test]
async fn request_level_refusals_come_first_and_logger_answers_last() {
    let (c, q, _) = cluster(false).await;
    create_topic(&c, "t", 1, 1).await;
    let mark = q.records().len();
    let r = c
        .incremental_alter_configs(&request(
            vec![
                resource(8, "1", vec![op("root", SET, Some("DEBUG"))]),
                resource(TOPIC, "t", vec![op("retention.ms", SET, Some("1"))]),
                resource(3, "x", vec![]),
                resource(TOPIC, "t", vec![op("retention.ms", SET, Some("2"))]),
                resource(TOPIC, "t", vec![op("retention.ms", SET, Some("3"))]),
                resource(BROKER, "", vec![op("log.retention.ms", SET, Some("5"))]),
                resource(8, "2", vec![op("root", SET, Some("DEBUG"))]),
                resource(8, "1", vec![op("kafka.server", SET, Some("INFO"))]),
                resource(8, "1", vec![op("root", APPEND, Some("INFO"))]),
                resource(8, "1", vec![op("root", SET, Some("LOUD"))]),
            ],
            false,
        ))
        .await;
    assert_eq!(
        answers(&r),
        [
            refused(
                3,
                "x",
                ErrorCode::UnsupportedVersion,
                "Unknown resource type 3."
            ),
            refused(TOPIC, "t", ErrorCode::InvalidRequest, "Duplicate resource."),
            ok(BROKER, ""),
            ok(8, "1"),
            refused(
                8,
                "2",
                ErrorCode::InvalidRequest,
                "Unexpected node id. Expected 1, but received 2"
            ),
            refused(
                8,
                "1",
                ErrorCode::InvalidConfig,
                "Logger kafka.server does not exist!"
            ),
            refused(
                8,
                "1",
                ErrorCode::InvalidRequest,
                "APPEND operation is not allowed for the BROKER_LOGGER resource"
            ),
            refused(
                8,
                "1",
                ErrorCode::InvalidConfig,
                "Cannot set the log level of root to LOUD as it is not a supported log level. Valid log levels are DEBUG, ERROR, FATAL, INFO, TRACE, WARN"
            ),
        ]
    );
    assert_eq!(
        written(&q, mark),
        [config(BROKER, "", "log.retention.ms", Some("5"))],
        "the duplicated topic is not altered"
    );
    // Nothing for the controller: answered without a write.
    let r = c.incremental_alter_configs(&request(vec![], false)).await;
    assert_eq!(answers(&r), []);
}

#[tokio::test]
async fn client_metrics_and_group_configs_are_validated() {
    let (c, q, _) = cluster(false).await;
    let mark = q.records().len();
    const METRICS: i8 = ConfigResource::CLIENT_METRICS;
    const GROUP: i8 = ConfigResource::GROUP;
    let r = c
        .incremental_alter_configs(&request(
            vec![
                resource(
                    METRICS,
                    "sub",
                    vec![
                        op("metrics", SET, Some("org.apache.kafka.producer.")),
                        op("interval.ms", SET, Some("1000")),
                        op("match", SET, Some("client_id=app.*")),
                    ],
                ),
                resource(METRICS, "bad", vec![op("interval.ms", SET, Some("50"))]),
                resource(METRICS, "odd", vec![op("color", SET, Some("red"))]),
                resource(METRICS, "m", vec![op("match", SET, Some("user=x"))]),
                resource(
                    GROUP,
                    "g",
                    vec![op(
                        "share.auto.offset.reset",
                        SET,
                        Some("by_duration:PT1H30M"),
                    )],
                ),
                resource(
                    GROUP,
                    "g2",
                    vec![op(
                        "share.auto.offset.reset",
                        SET,
                        Some("by_duration:-PT1S"),
                    )],
                ),
                resource(
                    GROUP,
                    "g3",
                    vec![op("consumer.session.timeout.ms", SET, Some("1000"))],
                ),
                resource(
                    GROUP,
                    "g4",
                    vec![op("no.such.group.config", SET, Some("1"))],
                ),
                resource(
                    GROUP,
                    "",
                    vec![op("share.isolation.level", SET, Some("read_committed"))],
                ),
            ],
            false,
        ))
        .await;
    assert_eq!(
        answers(&r),
        [
            ok(METRICS, "sub"),
            refused(
                METRICS,
                "bad",
                ErrorCode::InvalidRequest,
                "Invalid value 50 for interval.ms, interval must be between 100 and 3600000 (1 hour)"
            ),
            refused(
                METRICS,
                "odd",
                ErrorCode::InvalidRequest,
                "Unknown client metrics configuration: color"
            ),
            refused(
                METRICS,
                "m",
                ErrorCode::InvalidConfig,
                "Illegal client matching pattern: user=x"
            ),
            ok(GROUP, "g"),
            refused(
                GROUP,
                "g2",
                ErrorCode::InvalidConfig,
                "Invalid value by_duration:-PT1S for configuration share.auto.offset.reset: Invalid value `by_duration:-PT1S` for configuration share.auto.offset.reset. The value must be either 'earliest', 'latest' or of the format 'by_duration:<PnDTnHnMn.nS>'."
            ),
            refused(
                GROUP,
                "g3",
                ErrorCode::InvalidConfig,
                "consumer.session.timeout.ms must be in the range 45000 to 60000 inclusive."
            ),
            refused(
                GROUP,
                "g4",
                ErrorCode::InvalidConfig,
                "Unknown group config name: no.such.group.config"
            ),
            refused(
                GROUP,
                "",
                ErrorCode::InvalidRequest,
                "Default group resources are not allowed."
            ),
        ]
    );
    let accepted = written(&q, mark);
    assert_eq!(accepted.len(), 4, "{accepted:?}");
    assert!(accepted.contains(&config(
        ConfigResource::GROUP,
        "g",
        "share.auto.offset.reset",
        Some("by_duration:PT1H30M")
    )));
}

#[tokio::test]
async fn a_failed_write_answers_every_resource() {
    let (c, _q, _) = cluster(false).await;
    let r = c
        .incremental_alter_configs(&request(
            vec![
                resource(BROKER, "", vec![op("a", 7, Some("1"))]),
                resource(8, "1", vec![]),
            ],
            false,
        ))
        .await;
    assert_eq!(
        answers(&r),
        [
            (
                BROKER,
                String::new(),
                ErrorCode::UnknownServerError.code(),
                None
            ),
            (
                8,
                "1".to_owned(),
                ErrorCode::UnknownServerError.code(),
                None
            ),
        ],
        "an unknown operation fails the whole request"
    );
}

#[tokio::test]
async fn share_offset_reset_values_are_accepted_as_kafka_accepts_them() {
    // What Kafka 4.4.0's ShareGroupAutoOffsetResetStrategy.fromString says
    // of each value.
    let cases = [
        ("latest", true),
        ("earliest", true),
        ("none", false),
        ("LATEST", false),
        ("by_duration", false),
        ("by_duration:", false),
        ("by_duration:PT1H30M", true),
        ("by_duration:-PT1S", false),
        ("by_duration:P1D", true),
        ("by_duration:p1dt2h", true),
        ("by_duration:PT", false),
        ("by_duration:P", false),
        ("by_duration:PT1.5S", true),
        ("by_duration:PT-1S", false),
        ("by_duration:-PT-1S", true),
        ("by_duration:PT1.S", true),
        ("by_duration:PT1.1234567891S", false),
        ("by_duration:P1DT", false),
        ("by_duration:PT5M3H", false),
        ("by_duration:+P1D", true),
        ("by_duration:PT0S", true),
        ("by_duration:P-1DT25H", true),
        ("by_duration:PT-0.5S", false),
        ("by_duration:PT1,5S", true),
        ("by_duration:P1H", false),
    ];
    let (c, _q, _) = cluster(false).await;
    let resources = cases
        .iter()
        .enumerate()
        .map(|(i, (value, _))| {
            resource(
                ConfigResource::GROUP,
                &format!("g{i}"),
                vec![op("share.auto.offset.reset", SET, Some(value))],
            )
        })
        .collect();
    let r = c.incremental_alter_configs(&request(resources, true)).await;
    let got: Vec<(&str, bool)> = answers(&r)
        .iter()
        .zip(cases.iter())
        .map(|(a, (value, _))| (*value, a.2 == 0))
        .collect();
    assert_eq!(got, cases);
}

#[tokio::test]
async fn list_operations_split_values_as_kafka_does() {
    // (config, operation, value, current value, the value Kafka 4.4.0's
    // ConfigurationControlManager writes).
    let cases = [
        (
            "ssl.enabled.protocols",
            APPEND,
            "TLSv1.2",
            None,
            "TLSv1.2,TLSv1.3",
        ),
        (
            "ssl.enabled.protocols",
            APPEND,
            ",x,,y,",
            None,
            "TLSv1.2,TLSv1.3,,x,y",
        ),
        (
            "ssl.enabled.protocols",
            APPEND,
            "",
            None,
            "TLSv1.2,TLSv1.3,",
        ),
        (
            "ssl.enabled.protocols",
            SUBTRACT,
            "TLSv1.3",
            None,
            "TLSv1.2",
        ),
        (
            "ssl.enabled.protocols",
            SUBTRACT,
            ",",
            None,
            "TLSv1.2,TLSv1.3",
        ),
        ("log.dirs", APPEND, "a,b", None, "a,b"),
        ("listeners", SUBTRACT, "PLAINTEXT://:9092", None, ""),
        (
            "sasl.enabled.mechanisms",
            SUBTRACT,
            "A",
            Some("A,A,,B"),
            "A,B",
        ),
    ];
    let (c, q, _) = cluster(false).await;
    for (key, operation, value, current, expected) in cases {
        let mut ops = vec![op(key, DELETE, None)];
        if let Some(current) = current {
            ops = vec![op(key, SET, Some(current))];
        }
        let r = c
            .incremental_alter_configs(&request(vec![resource(BROKER, "", ops)], false))
            .await;
        assert_eq!(answers(&r), [ok(BROKER, "")]);
        let mark = q.records().len();
        let r = c
            .incremental_alter_configs(&request(
                vec![resource(BROKER, "", vec![op(key, operation, Some(value))])],
                false,
            ))
            .await;
        assert_eq!(answers(&r), [ok(BROKER, "")]);
        assert_eq!(
            written(&q, mark),
            [config(BROKER, "", key, Some(expected))],
            "{key} {operation} {value:?}"
        );
    }
}

/// GROUP configs are checked against this controller's own `group.*`
/// settings, as Kafka's `GroupConfig.validate` reads its
/// `GroupCoordinatorConfig` and `ShareGroupConfig`: wider bounds accept
/// what the defaults refuse, and the messages name the configured bounds.
#[tokio::test]
async fn group_configs_are_checked_against_the_controllers_group_settings() {
    let (c, q, _) = cluster(false).await;
    let props = kraft_protocol::text::Properties::parse(
        "group.consumer.max.session.timeout.ms=120000\n\
         group.share.min.delivery.count.limit=3\n\
         group.streams.max.standby.replicas=1\n\
         group.consumer.max.heartbeat.interval.ms=60000\n",
    )
    .expect("properties");
    let mut settings = c.settings().clone();
    settings.groups = crate::config::groups::GroupSettings::read(&props).expect("valid");
    let wide = Controller::new(settings, c.image().clone(), q.clone());
    const GROUP: i8 = ConfigResource::GROUP;
    let alter = |configs: Vec<(&'static str, &'static str)>, name: &'static str| {
        resource(
            GROUP,
            name,
            configs
                .into_iter()
                .map(|(k, v)| op(k, SET, Some(v)))
                .collect(),
        )
    };
    let req = request(
        vec![
            alter(vec![("consumer.session.timeout.ms", "90000")], "a"),
            alter(vec![("share.delivery.count.limit", "2")], "b"),
            alter(vec![("streams.num.standby.replicas", "2")], "c"),
            // In the configured heartbeat range, but not below the
            // default session timeout the group does not set.
            alter(vec![("consumer.heartbeat.interval.ms", "50000")], "d"),
        ],
        true,
    );
    let r = c.incremental_alter_configs(&req).await;
    assert_eq!(
        answers(&r)[0],
        refused(
            GROUP,
            "a",
            ErrorCode::InvalidConfig,
            "consumer.session.timeout.ms must be in the range 45000 to 60000 inclusive."
        )
    );
    let r = wide.incremental_alter_configs(&req).await;
    assert_eq!(
        answers(&r),
        [
            ok(GROUP, "a"),
            refused(
                GROUP,
                "b",
                ErrorCode::InvalidConfig,
                "share.delivery.count.limit must be in the range 3 to 10 inclusive."
            ),
            refused(
                GROUP,
                "c",
                ErrorCode::InvalidConfig,
                "streams.num.standby.replicas must be less than or equal to 1"
            ),
            refused(
                GROUP,
                "d",
                ErrorCode::InvalidConfig,
                "consumer.session.timeout.ms must be greater than consumer.heartbeat.interval.ms"
            ),
        ]
    );
}
