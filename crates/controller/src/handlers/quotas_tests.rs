//! AlterClientQuotas through the handler, over a gated in-memory quorum
//! and a real image: the cases of Kafka 4.4's
//! `ClientQuotaControlManagerTest`, the records written and what the image
//! holds afterwards, and the request-level rules around them (duplicates,
//! ValidateOnly, the record bound, a failed write, forwarding).
//!
//! Every expected answer, order and record is what Kafka 4.4.0's own
//! `ClientQuotaControlManager` (with `AlterClientQuotasRequest.entries` and
//! `AlterClientQuotasResponse.fromQuotaEntities`) gives for the same case,
//! as printed by
//! `tests/interop/src/main/java/org/kraftrs/interop/ScramQuotaFacts.java`;
//! the orders are those of Kafka's `HashMap`s (`new HashMap<>(n)` for an
//! entity's parts and an entry's keys, `new HashMap<>(3)` for a record's
//! entity, a default `HashMap` of entities for the answers).

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use kraft_protocol::messages::alter_client_quotas_request::{
    AlterClientQuotasRequest, EntityData, EntryData, OpData,
};
use kraft_protocol::messages::alter_client_quotas_response::AlterClientQuotasResponse;
use kraft_protocol::messages::client_quota_record::{self, ClientQuotaRecord};
use kraft_protocol::{ApiKey, ErrorCode, RequestBody, ResponseBody};

use super::broker_tests::{alice, envelope_of, server_context, setup, GatedQuorum};
use super::quotas::Entity;
use super::Controller;
use crate::image::{ClientQuotaEntity, MetadataRecord};
use crate::java::JavaHash;
use crate::server::RequestHandler;

type Parts<'a> = &'a [(&'a str, Option<&'a str>)];

const PRODUCER: &str = "producer_byte_rate";
const CONSUMER: &str = "consumer_byte_rate";
const REQUEST_PERCENTAGE: &str = "request_percentage";
const MUTATION_RATE: &str = "controller_mutation_rate";
const CONNECTION_RATE: &str = "connection_creation_rate";

fn entry(parts: Parts<'_>, ops: &[(&str, Option<f64>)]) -> EntryData {
    EntryData {
        entity: parts
            .iter()
            .map(|(t, n)| EntityData {
                entity_type: (*t).into(),
                entity_name: n.map(Into::into),
                ..Default::default()
            })
            .collect(),
        ops: ops
            .iter()
            .map(|(k, v)| OpData {
                key: (*k).into(),
                value: v.unwrap_or(0.0),
                remove: v.is_none(),
                ..Default::default()
            })
            .collect(),
        ..Default::default()
    }
}

fn request(entries: Vec<EntryData>, validate_only: bool) -> AlterClientQuotasRequest {
    AlterClientQuotasRequest {
        entries: entries.into(),
        validate_only,
        ..Default::default()
    }
}

/// An answer: the entity's parts as answered, the code, the message.
type Answer = (Vec<(String, Option<String>)>, i16, Option<String>);

fn answers(r: &AlterClientQuotasResponse) -> Vec<Answer> {
    r.entries
        .iter()
        .map(|e| {
            (
                e.entity
                    .iter()
                    .map(|p| {
                        (
                            p.entity_type.to_string(),
                            p.entity_name.as_ref().map(|n| n.to_string()),
                        )
                    })
                    .collect(),
                e.error_code,
                e.error_message.as_ref().map(|m| m.to_string()),
            )
        })
        .collect()
}

fn owned(parts: Parts<'_>) -> Vec<(String, Option<String>)> {
    parts
        .iter()
        .map(|(t, n)| (t.to_string(), n.map(str::to_owned)))
        .collect()
}

fn ok(parts: Parts<'_>) -> Answer {
    (owned(parts), 0, None)
}

fn invalid(parts: Parts<'_>, message: &str) -> Answer {
    (
        owned(parts),
        ErrorCode::InvalidRequest.code(),
        Some(message.to_owned()),
    )
}

/// A ClientQuotaRecord (v0) setting `key` (or removing it, `None`).
fn record(parts: Parts<'_>, key: &str, value: Option<f64>) -> MetadataRecord {
    MetadataRecord::new(
        ClientQuotaRecord {
            entity: parts
                .iter()
                .map(|(t, n)| client_quota_record::EntityData {
                    entity_type: (*t).into(),
                    entity_name: n.map(Into::into),
                    ..Default::default()
                })
                .collect(),
            key: key.into(),
            value: value.unwrap_or(0.0),
            remove: value.is_none(),
            ..Default::default()
        },
        0,
    )
}

fn quotas(c: &Controller, parts: Parts<'_>) -> Option<BTreeMap<String, f64>> {
    c.image()
        .read()
        .client_quotas()
        .quotas(&ClientQuotaEntity::new(parts.iter().copied()))
        .cloned()
}

fn values(entries: &[(&str, f64)]) -> BTreeMap<String, f64> {
    entries.iter().map(|(k, v)| (k.to_string(), *v)).collect()
}

fn written(q: &GatedQuorum, from: usize) -> Vec<MetadataRecord> {
    q.records()[from..].to_vec()
}

fn controller() -> (Arc<Controller>, Arc<GatedQuorum>) {
    setup(Duration::from_secs(9))
}

/// Alters with one entry and returns its single answer; asserts nothing was
/// written when it is a refusal.
async fn alter_one(
    c: &Controller,
    q: &GatedQuorum,
    parts: Parts<'_>,
    ops: &[(&str, Option<f64>)],
) -> Answer {
    let mark = q.records().len();
    let r = c
        .alter_client_quotas(&request(vec![entry(parts, ops)], false))
        .await;
    let mut a = answers(&r);
    assert_eq!(a.len(), 1, "{r:?}");
    let a = a.remove(0);
    if a.1 != 0 {
        assert_eq!(q.records().len(), mark, "a refusal wrote records");
    }
    a
}

/// Kafka's testInvalidEntityTypes (a null type cannot be sent: the wire's
/// EntityType is not nullable).
#[tokio::test]
async fn invalid_entity_types_and_combinations_are_refused() {
    let (c, q) = controller();
    let unhandled_foo = "Unhandled client quota entity type: foo";
    let combination =
        "Invalid quota entity combination, IP entity shouldnot be combined with User or ClientId";
    // (entity as sent, entity as answered, message)
    let cases: &[(Parts<'_>, Parts<'_>, &str)] = &[
        (
            &[("foo", Some("bar"))],
            &[("foo", Some("bar"))],
            unhandled_foo,
        ),
        (
            &[("user", Some("user-1")), ("foo", Some("bar"))],
            &[("user", Some("user-1")), ("foo", Some("bar"))],
            unhandled_foo,
        ),
        (
            &[("foo", Some("bar")), ("ip", Some("1.2.3.4"))],
            &[("foo", Some("bar")), ("ip", Some("1.2.3.4"))],
            unhandled_foo,
        ),
        (
            &[("user", Some("user-1")), ("ip", Some("1.2.3.4"))],
            &[("user", Some("user-1")), ("ip", Some("1.2.3.4"))],
            combination,
        ),
        (
            &[("client-id", Some("user-1")), ("ip", Some("1.2.3.4"))],
            &[("client-id", Some("user-1")), ("ip", Some("1.2.3.4"))],
            combination,
        ),
        (&[], &[], "Invalid empty client quota entity"),
    ];
    for (sent, answered, message) in cases {
        assert_eq!(
            alter_one(&c, &q, sent, &[(PRODUCER, Some(10000.0))]).await,
            invalid(answered, message),
            "{sent:?}"
        );
    }
}

#[tokio::test]
async fn empty_names_are_refused_in_the_entitys_order() {
    let (c, q) = controller();
    for t in ["user", "client-id", "ip"] {
        assert_eq!(
            alter_one(&c, &q, &[(t, Some(""))], &[(PRODUCER, Some(1.0))]).await,
            invalid(&[(t, Some(""))], &format!("Empty {t} not supported"))
        );
    }
    // A JVM iterates {user, foo} as [user, foo]: the empty user is found
    // before the unknown type; {user, client-id} as [client-id, user].
    assert_eq!(
        alter_one(
            &c,
            &q,
            &[("foo", Some("bar")), ("user", Some(""))],
            &[(PRODUCER, Some(1.0))]
        )
        .await,
        invalid(
            &[("user", Some("")), ("foo", Some("bar"))],
            "Empty user not supported"
        )
    );
    assert_eq!(
        alter_one(
            &c,
            &q,
            &[("user", Some("")), ("client-id", Some("c"))],
            &[(PRODUCER, Some(1.0))]
        )
        .await,
        invalid(
            &[("client-id", Some("c")), ("user", Some(""))],
            "Empty user not supported"
        )
    );
}

/// Kafka's testInvalidQuotaKeys and the key sets of
/// testConfigKeysForEntityType*.
#[tokio::test]
async fn quota_keys_depend_on_the_entity_types() {
    let (c, q) = controller();
    let user: Parts<'_> = &[("user", Some("user-1"))];
    let not_a_key = "Invalid configuration key not.a.quota.key";
    for ops in [
        [
            ("not.a.quota.key", Some(0.0)),
            (REQUEST_PERCENTAGE, Some(99.9)),
        ],
        [
            (REQUEST_PERCENTAGE, Some(99.9)),
            ("not.a.quota.key", Some(0.0)),
        ],
    ] {
        assert_eq!(
            alter_one(&c, &q, user, &ops).await,
            invalid(user, not_a_key)
        );
    }
    let user_keys = [PRODUCER, CONSUMER, MUTATION_RATE, REQUEST_PERCENTAGE];
    let both: Parts<'_> = &[("user", Some("foo")), ("client-id", Some("foo"))];
    for parts in [user, &[("client-id", Some("foo"))][..], both] {
        for key in user_keys {
            assert_eq!(alter_one(&c, &q, parts, &[(key, Some(5.0))]).await.1, 0);
        }
        assert_eq!(
            alter_one(&c, &q, parts, &[(CONNECTION_RATE, Some(5.0))])
                .await
                .2
                .as_deref(),
            Some("Invalid configuration key connection_creation_rate")
        );
    }
    let ip: Parts<'_> = &[("ip", Some("127.0.0.1"))];
    assert_eq!(
        alter_one(&c, &q, ip, &[(CONNECTION_RATE, Some(5.0))]).await,
        ok(ip)
    );
    for key in user_keys {
        assert_eq!(
            alter_one(&c, &q, ip, &[(key, Some(5.0))]).await,
            invalid(ip, &format!("Invalid configuration key {key}"))
        );
    }
    assert_eq!(
        quotas(&c, both),
        Some(values(&[
            (PRODUCER, 5.0),
            (CONSUMER, 5.0),
            (MUTATION_RATE, 5.0),
            (REQUEST_PERCENTAGE, 5.0)
        ]))
    );
    assert_eq!(
        quotas(&c, &[("ip", Some("127.0.0.1"))]),
        Some(values(&[(CONNECTION_RATE, 5.0)]))
    );
}

/// Kafka's testValidateQuotaKeyValue* (on a client-id entity), and the
/// same checks for the INT-typed IP key.
#[tokio::test]
async fn quota_values_are_checked_by_the_keys_type() {
    let (c, q) = controller();
    let client: Parts<'_> = &[("client-id", Some("client-1"))];
    let cases: &[(&str, f64, Option<&str>)] = &[
        ("foobar", 1.0, Some("Invalid configuration key foobar")),
        (
            PRODUCER,
            0.0,
            Some("Quota producer_byte_rate must be greater than 0"),
        ),
        (
            CONSUMER,
            -2.0,
            Some("Quota consumer_byte_rate must be greater than 0"),
        ),
        (CONSUMER, 1234.0, None),
        (
            CONSUMER,
            36893488147419103232.4,
            Some("Proposed value for consumer_byte_rate is too large for a LONG."),
        ),
        (
            CONSUMER,
            2.245,
            Some("consumer_byte_rate cannot be a fractional value."),
        ),
        (CONSUMER, 1235.0000001, None),
        (REQUEST_PERCENTAGE, 56.62367, None),
    ];
    for (key, value, message) in cases {
        let a = alter_one(&c, &q, client, &[(key, Some(*value))]).await;
        match message {
            Some(m) => assert_eq!(a, invalid(client, m), "{key}={value}"),
            None => assert_eq!(a, ok(client), "{key}={value}"),
        }
    }
    assert_eq!(
        quotas(&c, client),
        Some(values(&[
            (CONSUMER, 1235.0000001),
            (REQUEST_PERCENTAGE, 56.62367)
        ]))
    );
    let ip: Parts<'_> = &[("ip", Some("10.1.2.3"))];
    for (value, message) in [
        (
            2147483648.0,
            Some("Proposed value for connection_creation_rate is too large for an INT."),
        ),
        (
            1.5,
            Some("connection_creation_rate cannot be a fractional value."),
        ),
        (2147483647.0, None),
    ] {
        let a = alter_one(&c, &q, ip, &[(CONNECTION_RATE, Some(value))]).await;
        match message {
            Some(m) => assert_eq!(a, invalid(ip, m), "{value}"),
            None => assert_eq!(a, ok(ip), "{value}"),
        }
    }
}

/// Kafka's testAlterAndRemove, with the records each step writes.
#[tokio::test]
async fn quotas_are_set_replaced_and_removed() {
    let (c, q) = controller();
    let user: Parts<'_> = &[("user", Some("user-1"))];
    let step = |ops: Vec<(&'static str, Option<f64>)>| {
        let c = c.clone();
        let q = q.clone();
        async move {
            let mark = q.records().len();
            let r = c
                .alter_client_quotas(&request(vec![entry(user, &ops)], false))
                .await;
            assert_eq!(answers(&r), [ok(user)]);
            written(&q, mark)
        }
    };
    // Add one quota.
    assert_eq!(
        step(vec![(PRODUCER, Some(10000.0))]).await,
        [record(user, PRODUCER, Some(10000.0))]
    );
    assert_eq!(quotas(&c, user), Some(values(&[(PRODUCER, 10000.0)])));
    // Replace it and add another: a JVM iterates the keys as [consumer,
    // producer].
    assert_eq!(
        step(vec![(PRODUCER, Some(10001.0)), (CONSUMER, Some(20000.0))]).await,
        [
            record(user, CONSUMER, Some(20000.0)),
            record(user, PRODUCER, Some(10001.0)),
        ]
    );
    assert_eq!(
        quotas(&c, user),
        Some(values(&[(PRODUCER, 10001.0), (CONSUMER, 20000.0)]))
    );
    // Remove one of the quotas, the other remains.
    assert_eq!(
        step(vec![(PRODUCER, None)]).await,
        [record(user, PRODUCER, None)]
    );
    assert_eq!(quotas(&c, user), Some(values(&[(CONSUMER, 20000.0)])));
    // Remove a quota the entity does not have: no change.
    assert_eq!(step(vec![(REQUEST_PERCENTAGE, None)]).await, []);
    assert_eq!(quotas(&c, user), Some(values(&[(CONSUMER, 20000.0)])));
    // All quotas removed: the entity is gone.
    assert_eq!(
        step(vec![(CONSUMER, None)]).await,
        [record(user, CONSUMER, None)]
    );
    assert_eq!(quotas(&c, user), None);
    // Remove again: no change.
    assert_eq!(step(vec![(CONSUMER, None)]).await, []);
    assert_eq!(quotas(&c, user), None);
    // Mixed update: a JVM iterates the four keys as [producer, consumer,
    // controller_mutation_rate, request_percentage]; the removal of an
    // absent key writes nothing.
    assert_eq!(
        step(vec![
            (REQUEST_PERCENTAGE, Some(99.0)),
            (MUTATION_RATE, None),
            (PRODUCER, Some(10002.0)),
            (CONSUMER, Some(20001.0)),
        ])
        .await,
        [
            record(user, PRODUCER, Some(10002.0)),
            record(user, CONSUMER, Some(20001.0)),
            record(user, REQUEST_PERCENTAGE, Some(99.0)),
        ]
    );
    assert_eq!(
        quotas(&c, user),
        Some(values(&[
            (CONSUMER, 20001.0),
            (PRODUCER, 10002.0),
            (REQUEST_PERCENTAGE, 99.0)
        ]))
    );
    // Setting a value a quota already has writes nothing.
    assert_eq!(step(vec![(PRODUCER, Some(10002.0))]).await, []);
}

/// Kafka's testEntityTypes: every combination of user and client-id,
/// default entities included, in one request.
#[tokio::test]
async fn every_user_and_client_id_combination_is_written() {
    let (c, q) = controller();
    let both = |user, client| [("user", user), ("client-id", client)];
    let e1 = both(Some("user-1"), Some("client-id-1"));
    let e2 = both(Some("user-2"), Some("client-id-1"));
    let e3 = both(Some("user-3"), Some("client-id-2"));
    let e4 = both(None, Some("client-id-1"));
    let e5 = both(Some("user-1"), None);
    let e6 = both(Some("user-3"), None);
    let e7 = [("user", Some("user-1"))];
    let e8 = [("user", Some("user-2"))];
    let e9 = [("user", Some("user-3"))];
    let e10 = [("user", None)];
    let e11 = [("client-id", Some("client-id-2"))];
    let cases: [(Parts<'_>, f64); 11] = [
        (&e1, 50.50),
        (&e2, 51.51),
        (&e3, 52.52),
        (&e4, 53.53),
        (&e5, 54.54),
        (&e6, 55.55),
        (&e7, 56.56),
        (&e8, 57.57),
        (&e9, 58.58),
        (&e10, 59.59),
        (&e11, 60.60),
    ];
    let mark = q.records().len();
    let r = c
        .alter_client_quotas(&request(
            cases
                .iter()
                .map(|(parts, v)| entry(parts, &[(REQUEST_PERCENTAGE, Some(*v))]))
                .collect(),
            false,
        ))
        .await;
    // A record's entity is a HashMap(3): a JVM iterates it as [client-id,
    // user]; so does the answer's entity (a HashMap(2)).
    fn swapped<'a>(p: Parts<'a>) -> Vec<(&'a str, Option<&'a str>)> {
        p.iter().rev().copied().collect()
    }
    assert_eq!(
        written(&q, mark),
        cases
            .iter()
            .map(|(parts, v)| record(&swapped(parts), REQUEST_PERCENTAGE, Some(*v)))
            .collect::<Vec<_>>()
    );
    // The answers in the order a JVM iterates the HashMap of the eleven
    // ClientQuotaEntity keys.
    let order = [&e1[..], &e9, &e3, &e8, &e2, &e6, &e10, &e4, &e5, &e7, &e11];
    assert_eq!(
        answers(&r),
        order.iter().map(|p| ok(&swapped(p))).collect::<Vec<_>>()
    );
    for (parts, v) in cases {
        assert_eq!(
            quotas(&c, parts),
            Some(values(&[(REQUEST_PERCENTAGE, v)])),
            "{parts:?}"
        );
    }
}

/// Kafka's testIsValidIpEntity* and testConfigKeysForUnresolvableIpEntity,
/// plus literals a JVM's `InetAddress.getByName` takes or refuses.
#[tokio::test]
async fn ip_entities_must_be_addresses_or_resolvable_hosts() {
    let (c, q) = controller();
    for name in [
        None,
        Some("127.0.0.1"),
        Some("127.1"),
        Some("::1"),
        Some("[::1]"),
        Some("localhost"),
    ] {
        let parts = [("ip", name)];
        assert_eq!(
            alter_one(&c, &q, &parts, &[(CONNECTION_RATE, Some(10.0))]).await,
            ok(&parts),
            "{name:?}"
        );
    }
    for name in [
        "example.invalid",
        "1:2",
        "[127.0.0.1]",
        "0x7f.1",
        "256.1.1.1",
    ] {
        let parts = [("ip", Some(name))];
        assert_eq!(
            alter_one(&c, &q, &parts, &[(CONNECTION_RATE, Some(10.0))]).await,
            invalid(
                &parts,
                &format!("{name} is not a valid IP or resolvable host.")
            ),
        );
    }
    assert_eq!(
        quotas(&c, &[("ip", None)]),
        Some(values(&[(CONNECTION_RATE, 10.0)]))
    );
}

#[tokio::test]
async fn a_repeated_key_or_entity_is_ignored_as_a_duplicate_entity() {
    let (c, q) = controller();
    let user: Parts<'_> = &[("user", Some("user-1"))];
    let duplicate = "Ignoring duplicate entity ClientQuotaEntity(entries={user=user-1})";
    // A key twice: Kafka's "Duplicate quota key" answer is replaced by the
    // duplicate entity answer at once.
    assert_eq!(
        alter_one(
            &c,
            &q,
            user,
            &[(PRODUCER, Some(1.0)), (PRODUCER, Some(2.0))]
        )
        .await,
        invalid(user, duplicate)
    );
    // An entity twice (its parts in another order): one answer, the
    // duplicate's; the first entry's records are still written.
    let mark = q.records().len();
    let r = c
        .alter_client_quotas(&request(
            vec![
                entry(
                    &[("user", Some("u")), ("client-id", Some("c"))],
                    &[(PRODUCER, Some(1.0))],
                ),
                entry(&[("client-id", Some("c2"))], &[(PRODUCER, Some(3.0))]),
                entry(
                    &[("client-id", Some("c")), ("user", Some("u"))],
                    &[(CONSUMER, Some(2.0))],
                ),
            ],
            false,
        ))
        .await;
    assert_eq!(
        answers(&r),
        [
            ok(&[("client-id", Some("c2"))]),
            invalid(
                &[("client-id", Some("c")), ("user", Some("u"))],
                "Ignoring duplicate entity ClientQuotaEntity(entries={client-id=c, user=u})"
            ),
        ]
    );
    let both: Parts<'_> = &[("client-id", Some("c")), ("user", Some("u"))];
    assert_eq!(
        written(&q, mark),
        [
            record(both, PRODUCER, Some(1.0)),
            record(&[("client-id", Some("c2"))], PRODUCER, Some(3.0)),
        ]
    );
    assert_eq!(quotas(&c, both), Some(values(&[(PRODUCER, 1.0)])));
    // A type named twice in one entity keeps its last name.
    let a = alter_one(
        &c,
        &q,
        &[("user", Some("a")), ("user", Some("b"))],
        &[(PRODUCER, Some(7.0))],
    )
    .await;
    assert_eq!(a, ok(&[("user", Some("b"))]));
    assert_eq!(
        quotas(&c, &[("user", Some("b"))]),
        Some(values(&[(PRODUCER, 7.0)]))
    );
}

#[tokio::test]
async fn validate_only_answers_the_same_and_writes_nothing() {
    let (c, q) = controller();
    let user: Parts<'_> = &[("user", Some("user-1"))];
    let entries = || {
        vec![
            entry(user, &[(PRODUCER, Some(10.0))]),
            entry(&[("user", Some("user-2"))], &[(PRODUCER, Some(0.5))]),
        ]
    };
    let mark = q.records().len();
    let checked = c.alter_client_quotas(&request(entries(), true)).await;
    assert_eq!(q.records().len(), mark);
    assert_eq!(quotas(&c, user), None);
    let done = c.alter_client_quotas(&request(entries(), false)).await;
    assert_eq!(answers(&checked), answers(&done));
    assert_eq!(
        answers(&done)[0],
        invalid(
            &[("user", Some("user-2"))],
            "producer_byte_rate cannot be a fractional value."
        )
    );
    assert_eq!(written(&q, mark), [record(user, PRODUCER, Some(10.0))]);
}

#[tokio::test]
async fn an_empty_request_writes_nothing() {
    let (c, q) = controller();
    let mark = q.records().len();
    let r = c.alter_client_quotas(&request(Vec::new(), false)).await;
    assert_eq!(r, AlterClientQuotasResponse::default());
    assert_eq!(q.records().len(), mark);
}

#[tokio::test]
async fn more_than_ten_thousand_records_fail_the_request() {
    let (c, q) = controller();
    let names: Vec<String> = (0..2501).map(|i| format!("user-{i}")).collect();
    let entries = |n: usize| -> Vec<EntryData> {
        names[..n]
            .iter()
            .map(|u| {
                entry(
                    &[("user", Some(u.as_str()))],
                    &[
                        (PRODUCER, Some(1.0)),
                        (CONSUMER, Some(1.0)),
                        (REQUEST_PERCENTAGE, Some(1.0)),
                        (MUTATION_RATE, Some(1.0)),
                    ],
                )
            })
            .collect()
    };
    let mark = q.records().len();
    for validate_only in [true, false] {
        let r = c
            .alter_client_quotas(&request(entries(2501), validate_only))
            .await;
        assert_eq!(r.entries.len(), 2501);
        assert!(r
            .entries
            .iter()
            .all(|e| e.error_code == ErrorCode::PolicyViolation.code()
                && e.error_message.as_deref()
                    == Some("Request parameters do not satisfy the configured policy.")));
    }
    assert_eq!(q.records().len(), mark);
    // Exactly 10000 is allowed.
    let r = c.alter_client_quotas(&request(entries(2500), false)).await;
    assert!(r.entries.iter().all(|e| e.error_code == 0));
    assert_eq!(q.records().len(), mark + 10_000);
}

#[tokio::test]
async fn a_failed_write_answers_every_entry_as_sent_with_the_default_text() {
    let (c, q) = controller();
    q.refuse_appends(true);
    let sent: Parts<'_> = &[("user", Some("u")), ("client-id", None)];
    let r = c
        .alter_client_quotas(&request(
            vec![
                entry(sent, &[(PRODUCER, Some(1.0))]),
                entry(&[("foo", Some("bar"))], &[]),
                entry(sent, &[(PRODUCER, Some(1.0))]),
            ],
            false,
        ))
        .await;
    let failed = |parts: Parts<'_>| {
        (
            owned(parts),
            ErrorCode::NotController.code(),
            Some("This is not the correct controller for this cluster.".to_owned()),
        )
    };
    assert_eq!(
        answers(&r),
        [failed(sent), failed(&[("foo", Some("bar"))]), failed(sent)]
    );
    assert_eq!(
        quotas(&c, &[("user", Some("u")), ("client-id", None)]),
        None
    );
}

#[tokio::test]
async fn the_api_is_served_dispatched_and_forwardable() {
    let (c, q) = controller();
    assert!(c.served_apis().iter().any(
        |r| r.api_key == ApiKey::AlterClientQuotas && (r.min_version, r.max_version) == (0, 1)
    ));
    let user: Parts<'_> = &[("user", Some("user-1"))];
    let body = RequestBody::AlterClientQuotas(request(
        vec![entry(user, &[(PRODUCER, Some(1024.0))])],
        false,
    ));
    let mut ctx = server_context();
    ctx.api_key = ApiKey::AlterClientQuotas;
    let r = RequestHandler::handle(c.as_ref(), ctx, body.clone()).await;
    let Ok(ResponseBody::AlterClientQuotas(r)) = r else {
        panic!("unexpected answer {r:?}");
    };
    assert_eq!(answers(&r), [ok(user)]);

    let forwarded = || envelope_of(ApiKey::AlterClientQuotas, &body, Some(alice()), &[0; 16]);
    let r = c
        .envelope(&super::Access::everything(), &server_context(), forwarded())
        .await;
    assert_eq!(r.error_code, 0);
    let (_, inner) = kraft_protocol::header::decode_response(
        r.response_data.expect("data"),
        ApiKey::AlterClientQuotas,
        0,
    )
    .expect("response");
    let ResponseBody::AlterClientQuotas(inner) = inner else {
        panic!("{inner:?}")
    };
    assert_eq!(answers(&inner), [ok(user)]);
    // The same value again writes nothing, so only a new value reaches the
    // refusing log.
    q.refuse_appends(true);
    let changed = RequestBody::AlterClientQuotas(request(
        vec![entry(user, &[(PRODUCER, Some(2048.0))])],
        false,
    ));
    let r = c
        .envelope(
            &super::Access::everything(),
            &server_context(),
            envelope_of(ApiKey::AlterClientQuotas, &changed, Some(alice()), &[0; 16]),
        )
        .await;
    assert_eq!(
        (r.error_code, r.response_data),
        (ErrorCode::NotController.code(), None)
    );
}

#[test]
fn entities_hash_and_print_as_kafkas_client_quota_entity() {
    let entity = |parts: Parts<'_>| Entity::of(&owned(parts));
    // Objects.hash(entries) and toString() as a JVM prints them.
    let foo = entity(&[("user", Some("foo"))]);
    assert_eq!(foo.java_hash(), 3_630_892);
    assert_eq!(foo.to_string(), "ClientQuotaEntity(entries={user=foo})");
    let default_user = entity(&[("user", None), ("client-id", Some("c"))]);
    assert_eq!(default_user.java_hash(), -1_900_538_328);
    assert_eq!(
        default_user.to_string(),
        "ClientQuotaEntity(entries={client-id=c, user=null})"
    );
    assert_eq!(
        entity(&[("ip", Some("1.2.3.4"))]).java_hash(),
        1_902_544_070
    );
    assert_eq!(
        entity(&[("user", Some("user-1")), ("client-id", Some("client-id-1"))]).java_hash(),
        1_249_830_943
    );
    // Equal as maps, whatever the order of the parts.
    assert_eq!(
        entity(&[("client-id", Some("c")), ("user", None)]),
        default_user
    );
}
