//! The controller mutation quota (KIP-599) on a real `kraft server`, over
//! raw Kafka frames: a stand-in broker registers, `controller_mutation_rate`
//! is set for the client id with AlterClientQuotas as Kafka's admin client
//! sends it, and a CreateTopics (v7, strict) that asks for more partitions
//! than the bucket holds gets THROTTLING_QUOTA_EXCEEDED for the topic that
//! finds it empty, next to the topic created, with a throttle time.

use std::time::Duration;

use kraft_protocol::messages::*;
use kraft_protocol::{ErrorCode, List, RequestBody, ResponseBody, StrBytes};

use super::reassignments::{call, finalized_features, heartbeat, register};
use super::{format, kraft_ok, wait_for, Cluster, Connection};

/// The client id `call` sends.
const CLIENT_ID: &str = "kraft-sweep";
/// The client id [`Connection`] sends.
const CONNECTION_CLIENT_ID: &str = "bad-input";

fn s(v: &str) -> StrBytes {
    StrBytes::from(v)
}

/// A client quota entity: (entity type, name; `None` for the default).
pub(super) type QuotaEntity<'a> = &'a [(&'a str, Option<&'a str>)];

/// Sets each (entity, key, value) quota with one AlterClientQuotas request,
/// as Kafka's admin client sends it, and checks every entry succeeded.
pub(super) fn set_client_quotas(addr: &str, quotas: &[(QuotaEntity<'_>, &str, f64)]) {
    let entries =
        quotas.iter().map(
            |(entity, key, value)| alter_client_quotas_request::EntryData {
                entity: entity
                    .iter()
                    .map(|(t, n)| alter_client_quotas_request::EntityData {
                        entity_type: s(t),
                        entity_name: n.map(s),
                        ..Default::default()
                    })
                    .collect::<Vec<_>>()
                    .into(),
                ops: List::from([alter_client_quotas_request::OpData {
                    key: s(key),
                    value: *value,
                    remove: false,
                    ..Default::default()
                }]),
                ..Default::default()
            },
        );
    let request = alter_client_quotas_request::AlterClientQuotasRequest {
        entries: entries.collect::<Vec<_>>().into(),
        validate_only: false,
        ..Default::default()
    };
    let ResponseBody::AlterClientQuotas(r) = call(addr, 1, RequestBody::AlterClientQuotas(request))
    else {
        panic!("not an AlterClientQuotas response")
    };
    assert!(
        r.entries.len() == quotas.len() && r.entries.iter().all(|e| e.error_code == 0),
        "{:?}",
        r.entries
    );
}

fn topic(name: &str, partitions: i32) -> create_topics_request::CreatableTopic {
    create_topics_request::CreatableTopic {
        name: s(name),
        num_partitions: partitions,
        replication_factor: 1,
        ..Default::default()
    }
}

/// CreateTopics v7 of `topics`: (name, error code, message) per topic and
/// the throttle time.
fn create(
    addr: &str,
    topics: Vec<create_topics_request::CreatableTopic>,
) -> (Vec<(String, i16, Option<String>)>, i32) {
    let request = create_topics_request::CreateTopicsRequest {
        topics: topics.into(),
        timeout_ms: 10_000,
        ..Default::default()
    };
    let ResponseBody::CreateTopics(r) = call(addr, 7, RequestBody::CreateTopics(request)) else {
        panic!("not a CreateTopics response")
    };
    let mut results: Vec<(String, i16, Option<String>)> = r
        .topics
        .iter()
        .map(|t| {
            (
                t.name.as_str().to_owned(),
                t.error_code,
                t.error_message.as_ref().map(|m| m.as_str().to_owned()),
            )
        })
        .collect();
    results.sort();
    (results, r.throttle_time_ms)
}

#[test]
fn create_topics_beyond_the_controller_mutation_rate_is_throttled() {
    let mut c = Cluster::new("mutation-quota", 3);
    // A burst of rate x 2 windows x 1 s.
    c.write_props_with(1, "controller.quota.window.num=2\n");
    let cluster_id = kraft_ok(&["storage", "random-uuid"]).trim().to_string();
    format(&c, 1, &cluster_id, &["--standalone"]);
    c.server(1).start();
    wait_for("the controller leads", Duration::from_secs(60), || {
        c.status(1)
            .and_then(|s| (s["leaderId"].as_i64() == Some(1)).then_some(()))
    });
    let addr = c.controller(1);
    let addr = addr.as_str();

    let features = finalized_features(addr);
    let epoch = register(addr, &cluster_id, 1001, &features);
    heartbeat(addr, 1001, epoch);
    wait_for("the broker is unfenced", Duration::from_secs(30), || {
        (!heartbeat(addr, 1001, epoch)).then_some(())
    });

    // No quota yet: any number of partitions.
    assert_eq!(
        create(addr, vec![topic("before", 50)]),
        (vec![("before".to_owned(), 0, None)], 0)
    );

    // One partition a second for this client id: a burst of 2.
    // The same for the client id of `Connection` (a bucket of its own).
    set_client_quotas(
        addr,
        &[
            (
                &[("client-id", Some(CLIENT_ID))],
                "controller_mutation_rate",
                1.0,
            ),
            (
                &[("client-id", Some(CONNECTION_CLIENT_ID))],
                "controller_mutation_rate",
                1.0,
            ),
        ],
    );

    // "first" finds the bucket full and takes it below zero; "second" finds
    // it empty and is refused; the client is told to wait about a second.
    let (results, throttle) = create(addr, vec![topic("first", 3), topic("second", 1)]);
    assert_eq!(
        results,
        vec![
            ("first".to_owned(), 0, None),
            (
                "second".to_owned(),
                ErrorCode::ThrottlingQuotaExceeded.code(),
                Some("The throttling quota has been exceeded.".to_owned())
            ),
        ]
    );
    assert_eq!(ErrorCode::ThrottlingQuotaExceeded.code(), 89);
    assert!(
        (1..=1000).contains(&throttle),
        "throttle time {throttle} ms"
    );

    // As Kafka mutes a throttled client's channel, the connection that got
    // a throttle time is not read again until it has passed.
    let mut conn = Connection::open(addr);
    let request = RequestBody::CreateTopics(create_topics_request::CreateTopicsRequest {
        topics: vec![topic("muted-a", 3), topic("muted-b", 1)].into(),
        timeout_ms: 10_000,
        ..Default::default()
    });
    let Some(ResponseBody::CreateTopics(r)) = conn.send(7, &request) else {
        panic!("no CreateTopics answer")
    };
    let throttled = Duration::from_millis(u64::try_from(r.throttle_time_ms).unwrap_or(0));
    assert!(throttled >= Duration::from_millis(100), "{r:?}");
    let asked = std::time::Instant::now();
    let versions = RequestBody::ApiVersions(api_versions_request::ApiVersionsRequest {
        client_software_name: s("kraft-e2e"),
        client_software_version: s("1"),
        ..Default::default()
    });
    assert!(matches!(
        conn.send(3, &versions),
        Some(ResponseBody::ApiVersions(_))
    ));
    // Less a few ms for the time the response took to reach the client.
    assert!(
        asked.elapsed() + Duration::from_millis(50) >= throttled,
        "answered after {:?}, throttled for {throttled:?}",
        asked.elapsed()
    );

    // Once the bucket has refilled, the topic is created.
    std::thread::sleep(Duration::from_millis(1500));
    assert_eq!(
        create(addr, vec![topic("second", 1)]),
        (vec![("second".to_owned(), 0, None)], 0)
    );
}
