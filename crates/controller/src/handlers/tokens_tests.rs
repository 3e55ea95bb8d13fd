//! CreateDelegationToken, RenewDelegationToken, ExpireDelegationToken and
//! the periodic expiry through `RequestHandler::handle`, over a gated
//! in-memory quorum and a real image. The cases are those of Kafka 4.4's
//! `DelegationTokenRequestsTest`, `DelegationTokenRequestsOnPlainTextTest`
//! and `DelegationTokenRequestsWithDisableTokenFeatureTest`, with the codes
//! and timestamps `ControllerApis` and `DelegationTokenControlManager`
//! answer.

#![allow(clippy::unwrap_used)]

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use kraft_protocol::acl::{AclOperation, KafkaPrincipal, PatternType, ResourceType};
use kraft_protocol::messages::access_control_entry_record::AccessControlEntryRecord;
use kraft_protocol::messages::create_delegation_token_request::{
    CreatableRenewers, CreateDelegationTokenRequest,
};
use kraft_protocol::messages::create_delegation_token_response::CreateDelegationTokenResponse;
use kraft_protocol::messages::envelope_request::EnvelopeRequest;
use kraft_protocol::messages::expire_delegation_token_request::ExpireDelegationTokenRequest;
use kraft_protocol::messages::expire_delegation_token_response::ExpireDelegationTokenResponse;
use kraft_protocol::messages::renew_delegation_token_request::RenewDelegationTokenRequest;
use kraft_protocol::messages::renew_delegation_token_response::RenewDelegationTokenResponse;
use kraft_protocol::{ApiKey, ErrorCode, RequestBody, ResponseBody, Uuid};

use super::broker_tests::{envelope_at, server_context, setup_with, GatedQuorum};
use super::tokens::token_hmac;
use super::Controller;
use crate::authorizer::AuthorizerConfig;
use crate::config::security::{DelegationTokenSettings, Password};
use crate::image::MetadataRecord;
use crate::server::{RequestContext, RequestHandler};

const SECRET: &str = "the-token-secret";
const DAY: i64 = 24 * 60 * 60 * 1000;
const WEEK: i64 = 7 * DAY;

fn enabled() -> DelegationTokenSettings {
    DelegationTokenSettings {
        secret_key: Some(Password::new(SECRET)),
        ..Default::default()
    }
}

fn controller(
    tokens: DelegationTokenSettings,
    authorizer: Option<AuthorizerConfig>,
) -> (Arc<Controller>, Arc<GatedQuorum>) {
    setup_with(Duration::from_secs(9), authorizer, tokens)
}

fn now_ms() -> i64 {
    i64::try_from(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_millis(),
    )
    .unwrap()
}

/// A request from `principal`, forwarded by a broker (the way Java brokers
/// bring token requests from their SASL listeners) or straight.
fn context(api: ApiKey, version: i16, principal: &str, forwarded: bool) -> RequestContext {
    RequestContext {
        header: Default::default(),
        api_key: api,
        api_version: version,
        listener_name: "CONTROLLER".into(),
        peer_addr: Some(SocketAddr::new(
            IpAddr::V4(Ipv4Addr::new(10, 0, 0, 7)),
            5000,
        )),
        principal: KafkaPrincipal::parse(principal).unwrap(),
        forwarded,
        token_authenticated: false,
        security_protocol: crate::config::SecurityProtocol::Plaintext,
    }
}

async fn send(c: &Controller, ctx: RequestContext, body: RequestBody) -> ResponseBody {
    c.handle(ctx, body).await.expect("answered")
}

async fn create_as(
    c: &Controller,
    principal: &str,
    version: i16,
    request: CreateDelegationTokenRequest,
) -> CreateDelegationTokenResponse {
    let ctx = context(ApiKey::CreateDelegationToken, version, principal, true);
    match send(c, ctx, RequestBody::CreateDelegationToken(request)).await {
        ResponseBody::CreateDelegationToken(r) => r,
        other => panic!("{other:?}"),
    }
}

async fn renew_as(
    c: &Controller,
    principal: &str,
    hmac: Bytes,
    period: i64,
) -> RenewDelegationTokenResponse {
    let ctx = context(ApiKey::RenewDelegationToken, 2, principal, true);
    let body = RequestBody::RenewDelegationToken(RenewDelegationTokenRequest {
        hmac,
        renew_period_ms: period,
        ..Default::default()
    });
    match send(c, ctx, body).await {
        ResponseBody::RenewDelegationToken(r) => r,
        other => panic!("{other:?}"),
    }
}

async fn expire_as(
    c: &Controller,
    principal: &str,
    hmac: Bytes,
    period: i64,
) -> ExpireDelegationTokenResponse {
    let ctx = context(ApiKey::ExpireDelegationToken, 2, principal, true);
    let body = RequestBody::ExpireDelegationToken(ExpireDelegationTokenRequest {
        hmac,
        expiry_time_period_ms: period,
        ..Default::default()
    });
    match send(c, ctx, body).await {
        ResponseBody::ExpireDelegationToken(r) => r,
        other => panic!("{other:?}"),
    }
}

fn renewers(names: &[(&str, &str)]) -> CreateDelegationTokenRequest {
    CreateDelegationTokenRequest {
        renewers: names
            .iter()
            .map(|(t, n)| CreatableRenewers {
                principal_type: (*t).into(),
                principal_name: (*n).into(),
                ..Default::default()
            })
            .collect(),
        max_lifetime_ms: -1,
        ..Default::default()
    }
}

fn token_ids(c: &Controller) -> Vec<String> {
    c.image()
        .read()
        .delegation_tokens()
        .tokens()
        .map(|t| t.token_id.clone())
        .collect()
}

#[test]
fn the_hmac_is_hmac_sha512_keyed_with_the_secret() {
    // RFC 4231, test case 2: key "Jefe", data "what do ya want for nothing?".
    let mac = token_hmac(&Password::new("Jefe"), "what do ya want for nothing?");
    let hex: String = mac.iter().map(|b| format!("{b:02x}")).collect();
    assert_eq!(
        hex,
        "164b7a7bfcf819e2e395fbe73b56e0a387bd64222e831fd610270cd7ea250554\
         9758bf75c05a994a6d034f65f8f0e6fdcaeab1a34d4a6b4b636e070a38bce737"
    );
}

#[tokio::test]
async fn straight_over_plaintext_every_token_request_is_not_allowed() {
    // DelegationTokenRequestsOnPlainTextTest: PLAINTEXT is never allowed.
    let (c, _q) = controller(enabled(), None);
    let mut ctx = context(ApiKey::CreateDelegationToken, 3, "User:ANONYMOUS", false);
    let r = send(
        &c,
        ctx.clone(),
        RequestBody::CreateDelegationToken(renewers(&[])),
    )
    .await;
    let ResponseBody::CreateDelegationToken(r) = r else {
        panic!("{r:?}")
    };
    assert_eq!(
        r,
        CreateDelegationTokenResponse {
            error_code: ErrorCode::DelegationTokenRequestNotAllowed.code(),
            principal_type: "User".into(),
            principal_name: "ANONYMOUS".into(),
            token_requester_principal_type: "User".into(),
            token_requester_principal_name: "ANONYMOUS".into(),
            issue_timestamp_ms: -1,
            expiry_timestamp_ms: -1,
            max_timestamp_ms: -1,
            ..Default::default()
        }
    );
    ctx.api_key = ApiKey::RenewDelegationToken;
    let body = RequestBody::RenewDelegationToken(RenewDelegationTokenRequest {
        hmac: Bytes::from_static(&[1; 64]),
        renew_period_ms: 1000,
        ..Default::default()
    });
    let ResponseBody::RenewDelegationToken(r) = send(&c, ctx.clone(), body).await else {
        panic!()
    };
    assert_eq!(
        (r.error_code, r.expiry_timestamp_ms),
        (ErrorCode::DelegationTokenRequestNotAllowed.code(), -1)
    );
    ctx.api_key = ApiKey::ExpireDelegationToken;
    let body = RequestBody::ExpireDelegationToken(ExpireDelegationTokenRequest {
        hmac: Bytes::from_static(&[1; 64]),
        expiry_time_period_ms: -1,
        ..Default::default()
    });
    let ResponseBody::ExpireDelegationToken(r) = send(&c, ctx, body).await else {
        panic!()
    };
    assert_eq!(
        (r.error_code, r.expiry_timestamp_ms),
        (ErrorCode::DelegationTokenRequestNotAllowed.code(), -1)
    );
    assert!(token_ids(&c).is_empty());
}

/// DefaultKafkaPrincipalBuilder's serde of `User:<name>` with the
/// token-authenticated flag.
fn principal_data(name: &str, token_authenticated: bool) -> Vec<u8> {
    let mut p = vec![0, 0, 5];
    p.extend(b"User");
    p.push(u8::try_from(name.len() + 1).unwrap());
    p.extend(name.as_bytes());
    p.extend([u8::from(token_authenticated), 0]);
    p
}

fn envelope(body: &RequestBody, version: i16, principal: Vec<u8>) -> EnvelopeRequest {
    envelope_at(
        body.api_key(),
        version,
        body,
        Some(principal),
        &[10, 0, 0, 9],
    )
}

async fn through_envelope(
    c: &Controller,
    body: &RequestBody,
    version: i16,
    principal: Vec<u8>,
) -> ResponseBody {
    let r = send(
        c,
        server_context(),
        RequestBody::Envelope(envelope(body, version, principal)),
    )
    .await;
    let ResponseBody::Envelope(r) = r else {
        panic!("{r:?}")
    };
    assert_eq!(r.error_code, 0, "{r:?}");
    let mut data = r.response_data.expect("a response");
    kraft_protocol::header::decode_response_header(&mut data, body.api_key(), version).unwrap();
    ResponseBody::decode(body.api_key(), version, &mut data).unwrap()
}

#[tokio::test]
async fn forwarded_requests_are_allowed_unless_the_principal_used_a_token() {
    let (c, _q) = controller(enabled(), None);
    let body = RequestBody::CreateDelegationToken(renewers(&[]));
    let r = through_envelope(&c, &body, 3, principal_data("alice", false)).await;
    let ResponseBody::CreateDelegationToken(r) = r else {
        panic!("{r:?}")
    };
    assert_eq!(r.error_code, 0);
    assert_eq!(
        (
            r.principal_name.as_str(),
            r.token_requester_principal_name.as_str()
        ),
        ("alice", "alice")
    );
    assert_eq!(token_ids(&c), vec![r.token_id.to_string()]);
    // A principal that authenticated with a token may not make another.
    let r = through_envelope(&c, &body, 3, principal_data("alice", true)).await;
    let ResponseBody::CreateDelegationToken(r) = r else {
        panic!("{r:?}")
    };
    assert_eq!(
        (r.error_code, r.issue_timestamp_ms),
        (ErrorCode::DelegationTokenRequestNotAllowed.code(), -1)
    );
    assert_eq!(token_ids(&c).len(), 1);
}

#[tokio::test]
async fn without_a_secret_key_tokens_are_disabled() {
    // DelegationTokenRequestsWithDisableTokenFeatureTest.
    let (c, _q) = controller(DelegationTokenSettings::default(), None);
    let r = create_as(&c, "User:alice", 3, renewers(&[])).await;
    assert_eq!(
        r,
        CreateDelegationTokenResponse {
            error_code: ErrorCode::DelegationTokenAuthDisabled.code(),
            principal_type: "User".into(),
            principal_name: "alice".into(),
            token_requester_principal_type: "User".into(),
            token_requester_principal_name: "alice".into(),
            ..Default::default()
        }
    );
    let r = renew_as(&c, "User:alice", Bytes::from_static(&[1; 64]), -1).await;
    assert_eq!(
        (r.error_code, r.expiry_timestamp_ms),
        (ErrorCode::DelegationTokenAuthDisabled.code(), 0)
    );
    let r = expire_as(&c, "User:alice", Bytes::from_static(&[1; 64]), -1).await;
    assert_eq!(
        (r.error_code, r.expiry_timestamp_ms),
        (ErrorCode::DelegationTokenAuthDisabled.code(), 0)
    );
    assert!(token_ids(&c).is_empty());
}

#[tokio::test]
async fn create_renew_expire_as_kafka_does() {
    // DelegationTokenRequestsTest.testDelegationTokenRequests.
    let (c, _q) = controller(enabled(), None);
    let before = now_ms();
    let t1 = create_as(&c, "User:owner", 3, renewers(&[("User", "renewer1")])).await;
    let after = now_ms();
    assert_eq!(t1.error_code, 0);
    assert!(before <= t1.issue_timestamp_ms && t1.issue_timestamp_ms <= after);
    // Kafka's defaults: a day to expiry, a week at most.
    assert_eq!(t1.expiry_timestamp_ms, t1.issue_timestamp_ms + DAY);
    assert_eq!(t1.max_timestamp_ms, t1.issue_timestamp_ms + WEEK);
    assert_eq!(
        t1.token_id.len(),
        22,
        "Kafka's Uuid text: {:?}",
        t1.token_id
    );
    assert_eq!(
        t1.hmac,
        token_hmac(&Password::new(SECRET), t1.token_id.as_str())
    );
    {
        let image = c.image().read();
        let stored = image
            .delegation_tokens()
            .token(t1.token_id.as_str())
            .unwrap();
        assert_eq!(stored.owner, "User:owner");
        assert_eq!(stored.requester, "User:owner");
        assert_eq!(stored.renewers, vec!["User:renewer1".to_string()]);
        assert_eq!(
            (
                stored.issue_timestamp,
                stored.expiration_timestamp,
                stored.max_timestamp
            ),
            (
                t1.issue_timestamp_ms,
                t1.expiry_timestamp_ms,
                t1.max_timestamp_ms
            )
        );
    }
    let t2 = create_as(&c, "User:owner", 3, renewers(&[("User", "renewer2")])).await;
    assert_eq!(t2.error_code, 0);
    assert_ne!(t1.token_id, t2.token_id);
    assert_eq!(token_ids(&c).len(), 2);

    // Renewal by a renewer: now + the smaller period, capped at the max.
    let before = now_ms();
    let r = renew_as(&c, "User:renewer1", t1.hmac.clone(), 60_000).await;
    assert_eq!(r.error_code, 0);
    assert!(before + 60_000 <= r.expiry_timestamp_ms && r.expiry_timestamp_ms <= now_ms() + 60_000);
    assert_eq!(
        c.image()
            .read()
            .delegation_tokens()
            .token(t1.token_id.as_str())
            .unwrap()
            .expiration_timestamp,
        r.expiry_timestamp_ms
    );
    // By the owner, with a period past the default: the default (a day).
    let r = renew_as(&c, "User:owner", t1.hmac.clone(), 30 * DAY).await;
    assert_eq!(r.error_code, 0);
    assert!(r.expiry_timestamp_ms <= now_ms() + DAY && r.expiry_timestamp_ms >= before + DAY);
    // Not the owner nor a renewer; renewer2 may not renew token 1.
    let r = renew_as(&c, "User:renewer2", t1.hmac.clone(), 1000).await;
    assert_eq!(r.error_code, ErrorCode::DelegationTokenOwnerMismatch.code());
    let r = expire_as(&c, "User:mallory", t1.hmac.clone(), -1).await;
    assert_eq!(r.error_code, ErrorCode::DelegationTokenOwnerMismatch.code());
    // An unknown HMAC (the HMAC under another secret).
    let forged = token_hmac(&Password::new("another"), t1.token_id.as_str());
    let r = renew_as(&c, "User:owner", forged.clone(), 1000).await;
    assert_eq!(r.error_code, ErrorCode::DelegationTokenNotFound.code());
    let r = expire_as(&c, "User:owner", forged, -1).await;
    assert_eq!(r.error_code, ErrorCode::DelegationTokenNotFound.code());

    // Expiry with a period moves the expiry; with a negative one removes it.
    let before = now_ms();
    let r = expire_as(&c, "User:renewer2", t2.hmac.clone(), 5_000).await;
    assert_eq!(r.error_code, 0);
    assert!(before + 5_000 <= r.expiry_timestamp_ms && r.expiry_timestamp_ms <= now_ms() + 5_000);
    let r = expire_as(&c, "User:owner", t1.hmac.clone(), -1).await;
    assert_eq!(r.error_code, 0);
    assert!(before <= r.expiry_timestamp_ms && r.expiry_timestamp_ms <= now_ms());
    assert_eq!(token_ids(&c), vec![t2.token_id.to_string()]);
    // Renewing or expiring a removed token: not found.
    let r = renew_as(&c, "User:owner", t1.hmac.clone(), 1000).await;
    assert_eq!(r.error_code, ErrorCode::DelegationTokenNotFound.code());

    // A renewer that is not a User.
    let r = create_as(
        &c,
        "User:owner",
        3,
        renewers(&[("User", "ok"), ("Group", "Renewer4")]),
    )
    .await;
    assert_eq!(r.error_code, ErrorCode::InvalidPrincipalType.code());
    assert_eq!((r.issue_timestamp_ms, r.token_id.as_str()), (0, ""));
    assert_eq!(token_ids(&c).len(), 1);
}

#[tokio::test]
async fn lifetimes_are_the_smaller_of_the_request_and_the_settings() {
    let settings = DelegationTokenSettings {
        max_lifetime_ms: 10 * DAY,
        expiry_time_ms: 2 * DAY,
        ..enabled()
    };
    let (c, _q) = controller(settings, None);
    let mut request = renewers(&[]);
    request.max_lifetime_ms = DAY;
    let t = create_as(&c, "User:owner", 3, request).await;
    // The max lifetime asked for is below both: it caps the expiry too.
    assert_eq!(t.max_timestamp_ms, t.issue_timestamp_ms + DAY);
    assert_eq!(t.expiry_timestamp_ms, t.issue_timestamp_ms + DAY);
    let mut request = renewers(&[]);
    request.max_lifetime_ms = 20 * DAY;
    let t = create_as(&c, "User:owner", 3, request).await;
    assert_eq!(t.max_timestamp_ms, t.issue_timestamp_ms + 10 * DAY);
    assert_eq!(t.expiry_timestamp_ms, t.issue_timestamp_ms + 2 * DAY);
    // A renewal never passes the max timestamp.
    let mut request = renewers(&[]);
    request.max_lifetime_ms = 3_000;
    let t = create_as(&c, "User:owner", 3, request).await;
    let r = renew_as(&c, "User:owner", t.hmac.clone(), -1).await;
    assert_eq!(
        (r.error_code, r.expiry_timestamp_ms),
        (0, t.max_timestamp_ms)
    );
    let r = expire_as(&c, "User:owner", t.hmac.clone(), DAY).await;
    assert_eq!(
        (r.error_code, r.expiry_timestamp_ms),
        (0, t.max_timestamp_ms)
    );
}

#[tokio::test]
async fn before_v3_the_answer_names_no_requester() {
    let (c, _q) = controller(enabled(), None);
    let r = create_as(&c, "User:owner", 2, renewers(&[])).await;
    assert_eq!(r.error_code, 0);
    assert_eq!(r.principal_name.as_str(), "owner");
    assert_eq!(
        (
            r.token_requester_principal_type.as_str(),
            r.token_requester_principal_name.as_str()
        ),
        ("", "")
    );
    // The record still names the requester.
    let image = c.image().read();
    let stored = image
        .delegation_tokens()
        .token(r.token_id.as_str())
        .unwrap();
    assert_eq!(stored.requester, "User:owner");
}

fn acl(q: &GatedQuorum, id: u64, user: &str, principal: &str, operation: AclOperation) {
    let record = AccessControlEntryRecord {
        id: Uuid::from_u64_pair(0x70c, id),
        resource_type: ResourceType::User.code(),
        resource_name: user.into(),
        pattern_type: PatternType::Literal.code(),
        principal: principal.into(),
        host: "*".into(),
        operation: operation.code(),
        permission_type: 3,
        ..Default::default()
    };
    q.log.lock().unwrap().push(MetadataRecord::new(record, 0));
    q.release();
}

#[tokio::test]
async fn a_token_for_another_owner_needs_create_tokens_on_that_user() {
    // DelegationTokenEndToEndAuthorizationWithOwnerTest.
    let authorizer = AuthorizerConfig::from_kafka(Some("User:admin"), None).unwrap();
    let (c, q) = controller(enabled(), Some(authorizer));
    let mut request = renewers(&[]);
    request.owner_principal_type = Some("User".into());
    request.owner_principal_name = Some("bob".into());
    let r = create_as(&c, "User:alice", 3, request.clone()).await;
    assert_eq!(
        r,
        CreateDelegationTokenResponse {
            error_code: ErrorCode::DelegationTokenAuthorizationFailed.code(),
            principal_type: "User".into(),
            principal_name: "bob".into(),
            token_requester_principal_type: "User".into(),
            token_requester_principal_name: "alice".into(),
            issue_timestamp_ms: -1,
            expiry_timestamp_ms: -1,
            max_timestamp_ms: -1,
            ..Default::default()
        }
    );
    assert!(token_ids(&c).is_empty());
    // CREATE_TOKENS on another user is not enough.
    acl(
        &q,
        1,
        "User:carol",
        "User:alice",
        AclOperation::CreateTokens,
    );
    let r = create_as(&c, "User:alice", 3, request.clone()).await;
    assert_eq!(
        r.error_code,
        ErrorCode::DelegationTokenAuthorizationFailed.code()
    );
    acl(&q, 2, "User:bob", "User:alice", AclOperation::CreateTokens);
    let r = create_as(&c, "User:alice", 3, request.clone()).await;
    assert_eq!(r.error_code, 0, "{r:?}");
    assert_eq!(
        (
            r.principal_name.as_str(),
            r.token_requester_principal_name.as_str()
        ),
        ("bob", "alice")
    );
    {
        let image = c.image().read();
        let stored = image
            .delegation_tokens()
            .token(r.token_id.as_str())
            .unwrap();
        assert_eq!(
            (stored.owner.as_str(), stored.requester.as_str()),
            ("User:bob", "User:alice")
        );
    }
    // A token for oneself needs no ACL; an empty owner name is oneself.
    request.owner_principal_name = Some("".into());
    let r = create_as(&c, "User:dave", 3, request).await;
    assert_eq!((r.error_code, r.principal_name.as_str()), (0, "dave"));
    // The owner (bob) may renew the token alice made for him; alice may not.
    let r2 = renew_as(
        &c,
        "User:alice",
        token_hmac(&Password::new(SECRET), stored_id(&c, "User:bob").as_str()),
        1000,
    )
    .await;
    assert_eq!(
        r2.error_code,
        ErrorCode::DelegationTokenOwnerMismatch.code()
    );
    let r2 = renew_as(
        &c,
        "User:bob",
        token_hmac(&Password::new(SECRET), stored_id(&c, "User:bob").as_str()),
        1000,
    )
    .await;
    assert_eq!(r2.error_code, 0);
}

fn stored_id(c: &Controller, owner: &str) -> String {
    c.image()
        .read()
        .delegation_tokens()
        .tokens()
        .find(|t| t.owner == owner)
        .map(|t| t.token_id.clone())
        .unwrap()
}

#[tokio::test]
async fn expired_tokens_are_refused_and_removed_by_the_periodic_task() {
    let settings = DelegationTokenSettings {
        expiry_time_ms: 1,
        ..enabled()
    };
    let (c, _q) = controller(settings, None);
    let keep = create_as(&c, "User:owner", 3, renewers(&[])).await;
    // Renewed to a day from now (the renewal may not pass the setting,
    // so expire with a period instead, which only the max caps).
    let r = expire_as(&c, "User:owner", keep.hmac.clone(), DAY).await;
    assert_eq!(r.error_code, 0);
    let gone = create_as(&c, "User:owner", 3, renewers(&[])).await;
    tokio::time::sleep(Duration::from_millis(20)).await;
    let r = renew_as(&c, "User:owner", gone.hmac.clone(), 1000).await;
    assert_eq!(r.error_code, ErrorCode::DelegationTokenExpired.code());
    let r = expire_as(&c, "User:owner", gone.hmac.clone(), 1000).await;
    assert_eq!(r.error_code, ErrorCode::DelegationTokenExpired.code());
    assert_eq!(token_ids(&c).len(), 2);
    assert!(
        !c.expire_delegation_tokens().await,
        "fewer than 1000: no more"
    );
    assert_eq!(token_ids(&c), vec![keep.token_id.to_string()]);
    // Nothing more to remove: no write.
    assert!(!c.expire_delegation_tokens().await);
    assert_eq!(token_ids(&c), vec![keep.token_id.to_string()]);
}

#[tokio::test]
async fn a_forwarded_token_request_to_a_non_leader_fails_the_envelope_not_controller() {
    // Kafka answers NOT_CONTROLLER on the envelope itself when the inner
    // response carries it, so the broker finds the new controller and sends
    // again instead of handing the error to its client.
    let (c, q) = controller(enabled(), None);
    let t = create_as(&c, "User:alice", 3, renewers(&[])).await;
    assert_eq!(t.error_code, 0);
    q.refuse_appends(true);
    for body in [
        RequestBody::CreateDelegationToken(renewers(&[])),
        RequestBody::RenewDelegationToken(RenewDelegationTokenRequest {
            hmac: t.hmac.clone(),
            renew_period_ms: 1000,
            ..Default::default()
        }),
        RequestBody::ExpireDelegationToken(ExpireDelegationTokenRequest {
            hmac: t.hmac.clone(),
            expiry_time_period_ms: -1,
            ..Default::default()
        }),
    ] {
        let r = send(
            &c,
            server_context(),
            RequestBody::Envelope(envelope(&body, 2, principal_data("alice", false))),
        )
        .await;
        let ResponseBody::Envelope(r) = r else {
            panic!("{r:?}")
        };
        assert_eq!(
            r.error_code,
            ErrorCode::NotController.code(),
            "{:?}",
            body.api_key()
        );
        assert!(r.response_data.is_none());
    }
    assert_eq!(token_ids(&c), vec![t.token_id.to_string()]);
}
