//! CreateTopics, DeleteTopics and CreatePartitions under a
//! `controller_mutation_rate` quota, through the request path
//! (`RequestHandler::handle`), with the quota's clock held still.

use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;

use kraft_protocol::acl::KafkaPrincipal;
use kraft_protocol::messages::alter_client_quotas_request::{
    AlterClientQuotasRequest, EntityData, EntryData, OpData,
};
use kraft_protocol::messages::create_partitions_request::{
    CreatePartitionsRequest, CreatePartitionsTopic,
};
use kraft_protocol::messages::create_topics_request::{CreatableTopic, CreateTopicsRequest};
use kraft_protocol::messages::delete_topics_request::DeleteTopicsRequest;
use kraft_protocol::messages::request_header::RequestHeader;
use kraft_protocol::{ApiKey, ErrorCode, RequestBody, ResponseBody};

use super::broker_tests::{alice, envelope_at, server_context, GatedQuorum};
use super::Controller;
use crate::server::{RequestContext, RequestHandler};

const CLIENT: &str = "quota-client";
const THROTTLED: &str = "The throttling quota has been exceeded.";

/// A controller with three unfenced brokers and a clock the test moves.
async fn cluster() -> (Arc<Controller>, Arc<GatedQuorum>, Arc<AtomicI64>) {
    let (c, q, _) = super::configs_tests::cluster(false).await;
    let now = Arc::new(AtomicI64::new(1_700_000_000_000));
    let read = Arc::clone(&now);
    c.set_mutation_quota_clock(Arc::new(move || read.load(Ordering::SeqCst)));
    (c, q, now)
}

/// Sets `controller_mutation_rate` for `entity`.
async fn set_rate(c: &Controller, entity: &[(&str, Option<&str>)], rate: f64) {
    let request = AlterClientQuotasRequest {
        entries: vec![EntryData {
            entity: entity
                .iter()
                .map(|(t, n)| EntityData {
                    entity_type: (*t).into(),
                    entity_name: n.map(Into::into),
                    ..Default::default()
                })
                .collect::<Vec<_>>()
                .into(),
            ops: vec![OpData {
                key: "controller_mutation_rate".into(),
                value: rate,
                remove: false,
                ..Default::default()
            }]
            .into(),
            ..Default::default()
        }]
        .into(),
        ..Default::default()
    };
    let r = c.alter_client_quotas(&request).await;
    let e = r.entries.first().expect("one entry").into_owned();
    assert_eq!(e.error_code, 0, "{:?}", e.error_message);
}

fn context(api: ApiKey, version: i16, principal: &str) -> RequestContext {
    RequestContext {
        header: RequestHeader {
            request_api_key: api.id(),
            request_api_version: version,
            client_id: Some(CLIENT.into()),
            ..Default::default()
        },
        api_key: api,
        api_version: version,
        principal: KafkaPrincipal::new("User".to_owned(), principal.to_owned()),
        ..server_context()
    }
}

type Rows = Vec<(String, i16, Option<String>)>;

fn ok(name: &str) -> (String, i16, Option<String>) {
    (name.to_owned(), 0, None)
}

fn throttled(name: &str) -> (String, i16, Option<String>) {
    (
        name.to_owned(),
        ErrorCode::ThrottlingQuotaExceeded.code(),
        Some(THROTTLED.to_owned()),
    )
}

async fn create_as(
    c: &Controller,
    principal: &str,
    version: i16,
    topics: &[(&str, i32)],
) -> (Rows, i32) {
    let request = CreateTopicsRequest {
        topics: topics
            .iter()
            .map(|(name, partitions)| CreatableTopic {
                name: (*name).into(),
                num_partitions: *partitions,
                replication_factor: 1,
                ..Default::default()
            })
            .collect::<Vec<_>>()
            .into(),
        timeout_ms: 5000,
        ..Default::default()
    };
    let r = c
        .handle(
            context(ApiKey::CreateTopics, version, principal),
            RequestBody::CreateTopics(request),
        )
        .await;
    let Ok(ResponseBody::CreateTopics(r)) = r else {
        panic!("unexpected answer {r:?}")
    };
    let rows = r
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
    (rows, r.throttle_time_ms)
}

async fn create(c: &Controller, version: i16, topics: &[(&str, i32)]) -> (Rows, i32) {
    create_as(c, "ANONYMOUS", version, topics).await
}

async fn delete(c: &Controller, version: i16, names: &[&str]) -> (Rows, i32) {
    let request = DeleteTopicsRequest {
        topic_names: names.iter().map(|n| (*n).into()).collect(),
        timeout_ms: 5000,
        ..Default::default()
    };
    let r = c
        .handle(
            context(ApiKey::DeleteTopics, version, "ANONYMOUS"),
            RequestBody::DeleteTopics(request),
        )
        .await;
    let Ok(ResponseBody::DeleteTopics(r)) = r else {
        panic!("unexpected answer {r:?}")
    };
    let mut rows: Rows = r
        .responses
        .iter()
        .map(|t| {
            (
                t.name
                    .as_ref()
                    .map(|n| n.as_str().to_owned())
                    .unwrap_or_default(),
                t.error_code,
                t.error_message.as_ref().map(|m| m.as_str().to_owned()),
            )
        })
        .collect();
    rows.sort();
    (rows, r.throttle_time_ms)
}

async fn grow(c: &Controller, version: i16, name: &str, count: i32) -> (Rows, i32) {
    let request = CreatePartitionsRequest {
        topics: vec![CreatePartitionsTopic {
            name: name.into(),
            count,
            assignments: None,
            ..Default::default()
        }]
        .into(),
        timeout_ms: 5000,
        ..Default::default()
    };
    let r = c
        .handle(
            context(ApiKey::CreatePartitions, version, "ANONYMOUS"),
            RequestBody::CreatePartitions(request),
        )
        .await;
    let Ok(ResponseBody::CreatePartitions(r)) = r else {
        panic!("unexpected answer {r:?}")
    };
    let rows = r
        .results
        .iter()
        .map(|t| {
            (
                t.name.as_str().to_owned(),
                t.error_code,
                t.error_message.as_ref().map(|m| m.as_str().to_owned()),
            )
        })
        .collect();
    (rows, r.throttle_time_ms)
}

#[tokio::test]
async fn without_a_quota_nothing_is_throttled() {
    let (c, _q, _now) = cluster().await;
    let (rows, throttle) = create(&c, 7, &[("big", 200), ("bigger", 300)]).await;
    assert_eq!((rows, throttle), (vec![ok("big"), ok("bigger")], 0));
}

/// CreateTopics v6+: the topic that finds the bucket empty is refused, the
/// topics before it (one taking the bucket below zero) are created, and
/// the throttle time is the time to refill to zero.
#[tokio::test]
async fn strict_create_topics_refuses_the_topic_that_finds_the_bucket_empty() {
    let (c, _q, now) = cluster().await;
    // 2 partitions a second, a burst of 2 x 11 x 1 = 22.
    set_rate(&c, &[("user", Some("ANONYMOUS"))], 2.0).await;
    let (rows, throttle) = create(&c, 7, &[("a", 20), ("b", 5), ("c", 1)]).await;
    assert_eq!(rows, vec![ok("a"), ok("b"), throttled("c")]);
    // 22 - 25 = -3 tokens at 2 a second.
    assert_eq!(throttle, 1500);
    assert!(c.image().read().topics().topic_by_name("c").is_none());

    // Half a second later the bucket is still below zero.
    now.fetch_add(500, Ordering::SeqCst);
    let (rows, throttle) = create(&c, 6, &[("c", 1)]).await;
    assert_eq!((rows, throttle), (vec![throttled("c")], 1000));
    // Back at zero: accepted (and below zero again, no throttle).
    now.fetch_add(1000, Ordering::SeqCst);
    let (rows, throttle) = create(&c, 6, &[("c", 1)]).await;
    assert_eq!((rows, throttle), (vec![ok("c")], 0));

    // The quota is the user's: another user is not throttled.
    let (rows, throttle) = create_as(&c, "bob", 7, &[("bobs", 100)]).await;
    assert_eq!((rows, throttle), (vec![ok("bobs")], 0));
}

/// CreateTopics below v6: everything is created, the response says how
/// long to wait.
#[tokio::test]
async fn permissive_create_topics_creates_and_throttles() {
    let (c, _q, _now) = cluster().await;
    set_rate(&c, &[("user", None), ("client-id", Some(CLIENT))], 2.0).await;
    let (rows, throttle) = create(&c, 5, &[("a", 20), ("b", 5), ("c", 1)]).await;
    assert_eq!(rows, vec![ok("a"), ok("b"), ok("c")]);
    // 22 - 26 = -4 tokens at 2 a second.
    assert_eq!(throttle, 2000);
    assert!(c.image().read().topics().topic_by_name("c").is_some());
}

/// DeleteTopics v5+: one topic takes the bucket below zero, the other is
/// refused; below v5 both are deleted and throttled.
#[tokio::test]
async fn delete_topics_is_strict_from_v5_and_permissive_below() {
    let (c, _q, now) = cluster().await;
    let (rows, _) = create(&c, 7, &[("t1", 12), ("t2", 12), ("t3", 12), ("t4", 12)]).await;
    assert!(rows.iter().all(|r| r.1 == 0), "{rows:?}");
    // 1 partition a second, a burst of 11.
    set_rate(&c, &[("client-id", Some(CLIENT))], 1.0).await;

    let (rows, throttle) = delete(&c, 5, &["t1", "t2"]).await;
    let refused: Vec<_> = rows.iter().filter(|r| r.1 != 0).cloned().collect();
    assert_eq!(rows.len(), 2);
    assert_eq!(refused.len(), 1, "{rows:?}");
    assert_eq!(refused[0], throttled(&refused[0].0));
    assert_eq!(throttle, 1000);

    // Refilled: a permissive v4 request deletes both, 24 partitions over.
    now.fetch_add(60_000, Ordering::SeqCst);
    let (rows, throttle) = delete(&c, 4, &["t3", "t4"]).await;
    assert_eq!((rows, throttle), (vec![ok("t3"), ok("t4")], 13_000));
    assert!(c.image().read().topics().topic_by_name("t3").is_none());
}

/// CreatePartitions v3+: refused once the bucket is empty; below v3 grown
/// and throttled.
#[tokio::test]
async fn create_partitions_is_strict_from_v3_and_permissive_below() {
    let (c, _q, now) = cluster().await;
    let (rows, _) = create(&c, 7, &[("grow", 1), ("other", 1)]).await;
    assert_eq!(rows, vec![ok("grow"), ok("other")]);
    set_rate(&c, &[("user", Some("ANONYMOUS")), ("client-id", None)], 1.0).await;

    // 12 new partitions: 11 - 12 = -1, accepted.
    assert_eq!(grow(&c, 3, "grow", 13).await, (vec![ok("grow")], 0));
    // Empty: refused, a second to wait.
    assert_eq!(
        grow(&c, 3, "other", 2).await,
        (vec![throttled("other")], 1000)
    );
    // Permissive: grown, 2 seconds to wait.
    assert_eq!(grow(&c, 2, "other", 2).await, (vec![ok("other")], 2000));
    now.fetch_add(500, Ordering::SeqCst);
    assert_eq!(grow(&c, 2, "other", 3).await, (vec![ok("other")], 2500));
    let image = c.image().read();
    assert_eq!(
        image
            .topics()
            .topic_by_name("grow")
            .map(|t| t.partition_count()),
        Some(13)
    );
}

/// A forwarded CreateTopics is charged to the envelope's principal and the
/// inner request's client id, and its answer carries the throttle time.
#[tokio::test]
async fn forwarded_requests_use_the_envelopes_principal_and_client_id() {
    let (c, _q, _now) = cluster().await;
    set_rate(
        &c,
        &[
            ("user", Some("alice")),
            ("client-id", Some("adminclient-1")),
        ],
        1.0,
    )
    .await;
    let body = RequestBody::CreateTopics(CreateTopicsRequest {
        topics: vec![
            CreatableTopic {
                name: "first".into(),
                num_partitions: 12,
                replication_factor: 1,
                ..Default::default()
            },
            CreatableTopic {
                name: "second".into(),
                num_partitions: 1,
                replication_factor: 1,
                ..Default::default()
            },
        ]
        .into(),
        timeout_ms: 5000,
        ..Default::default()
    });
    let envelope = envelope_at(
        ApiKey::CreateTopics,
        7,
        &body,
        Some(alice()),
        &[127, 0, 0, 1],
    );
    let r = c
        .handle(
            RequestContext {
                api_key: ApiKey::Envelope,
                ..server_context()
            },
            RequestBody::Envelope(envelope),
        )
        .await;
    let Ok(ResponseBody::Envelope(r)) = r else {
        panic!("unexpected answer {r:?}")
    };
    assert_eq!(r.error_code, 0);
    let (_, inner) = kraft_protocol::header::decode_response(
        r.response_data.expect("an answer"),
        ApiKey::CreateTopics,
        7,
    )
    .expect("a CreateTopics answer");
    let ResponseBody::CreateTopics(inner) = inner else {
        panic!("{inner:?}")
    };
    let rows: Rows = inner
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
    assert_eq!(rows, vec![ok("first"), throttled("second")]);
    assert_eq!(inner.throttle_time_ms, 1000);

    // The same request sent directly as ANONYMOUS is not throttled.
    let (rows, throttle) = create(&c, 7, &[("third", 12), ("fourth", 1)]).await;
    assert_eq!((rows, throttle), (vec![ok("third"), ok("fourth")], 0));
}
