//! AlterUserScramCredentials through the handler, over a gated in-memory
//! quorum and a real image: Kafka's `ScramControlManager` rules, the
//! records written and what the image holds afterwards, and the key
//! derivation against RFC 7677's example and Kafka 4.4.0's own records.
//!
//! Kafka 4.4 has no `ScramControlManagerTest`; the cases follow the rules
//! of `ScramControlManager.alterCredentials`, and every expected answer,
//! order and record (keys included) is what Kafka 4.4.0's own
//! `ScramControlManager` gives for the same case, as printed by
//! `tests/interop/src/main/java/org/kraftrs/interop/ScramQuotaFacts.java`.

use std::sync::Arc;
use std::time::Duration;

use base64::engine::general_purpose::STANDARD as BASE64;
use base64::Engine;
use bytes::Bytes;
use hmac::digest::KeyInit;
use hmac::{Hmac, Mac};
use kraft_protocol::messages::alter_user_scram_credentials_request::{
    AlterUserScramCredentialsRequest, ScramCredentialDeletion, ScramCredentialUpsertion,
};
use kraft_protocol::messages::alter_user_scram_credentials_response::AlterUserScramCredentialsResponse;
use kraft_protocol::messages::remove_user_scram_credential_record::RemoveUserScramCredentialRecord;
use kraft_protocol::messages::user_scram_credential_record::UserScramCredentialRecord;
use kraft_protocol::{ApiKey, ErrorCode, RequestBody, ResponseBody};
use sha2::{Digest, Sha256};

use super::broker_tests::{alice, envelope_of, server_context, setup, GatedQuorum};
use super::scram::{derive_keys, ScramMechanism, MAX_ITERATIONS, MIN_ITERATIONS};
use super::Controller;
use crate::image::{MetadataRecord, ScramCredentialData};
use crate::server::RequestHandler;

const SHA_256: i8 = 1;
const SHA_512: i8 = 2;

/// The salted password of every upsertion here: bytes 0..64.
fn salted() -> Vec<u8> {
    (0..64).collect()
}

fn hex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("hex"))
        .collect()
}

/// The stored key and server key Kafka 4.4.0's `ScramControlManager`
/// writes for the salted password [`salted`] (through its
/// `ScramFormatter`: HmacSHA256 / SHA-256, HmacSHA512 / SHA-512).
fn jvm_keys(mechanism: i8) -> (Vec<u8>, Vec<u8>) {
    match mechanism {
        SHA_256 => (
            hex("8c16801f953ad7ef8e40434251711a702f6c4eda2577eb9d3d1c9f4403680636"),
            hex("9e3936e7b8332e572b06155663b9ce79407ac986e33820ae7cb49dd37729b688"),
        ),
        _ => (
            hex(
                "abf12b79129219421947550f0fda721e3e1eabc1ae3f52b16335d9392d7a64ba\
                 d68a3404e85a7c71eba3fd5aeb4d5df8e627d22619ce2f77765d56078638c3bf",
            ),
            hex(
                "ef30dc248639541d2240dd9d46a855d4067c2848ce96b2f1102e7cbff1c8f016\
                 108798744416671f5529170c1c3b9aa79244dee888cc94a8d071564ff15ce344",
            ),
        ),
    }
}

fn salt_of(name: &str) -> Bytes {
    Bytes::from(format!("salt-of-{name}"))
}

fn upsert(name: &str, mechanism: i8, iterations: i32) -> ScramCredentialUpsertion {
    ScramCredentialUpsertion {
        name: name.into(),
        mechanism,
        iterations,
        salt: salt_of(name),
        salted_password: Bytes::from(salted()),
        ..Default::default()
    }
}

fn delete(name: &str, mechanism: i8) -> ScramCredentialDeletion {
    ScramCredentialDeletion {
        name: name.into(),
        mechanism,
        ..Default::default()
    }
}

fn request(
    deletions: Vec<ScramCredentialDeletion>,
    upsertions: Vec<ScramCredentialUpsertion>,
) -> AlterUserScramCredentialsRequest {
    AlterUserScramCredentialsRequest {
        deletions: deletions.into(),
        upsertions: upsertions.into(),
        ..Default::default()
    }
}

type Answer = (String, i16, Option<String>);

fn answers(r: &AlterUserScramCredentialsResponse) -> Vec<Answer> {
    r.results
        .iter()
        .map(|a| {
            (
                a.user.to_string(),
                a.error_code,
                a.error_message.as_ref().map(|m| m.to_string()),
            )
        })
        .collect()
}

fn ok(user: &str) -> Answer {
    (user.to_owned(), 0, None)
}

fn refused(user: &str, code: ErrorCode, message: &str) -> Answer {
    (user.to_owned(), code.code(), Some(message.to_owned()))
}

/// The UserScramCredentialRecord an upsertion of [`upsert`] writes.
fn credential_record(name: &str, mechanism: i8, iterations: i32) -> MetadataRecord {
    let (stored_key, server_key) = jvm_keys(mechanism);
    MetadataRecord::new(
        UserScramCredentialRecord {
            name: name.into(),
            mechanism,
            salt: salt_of(name),
            stored_key: stored_key.into(),
            server_key: server_key.into(),
            iterations,
            ..Default::default()
        },
        0,
    )
}

fn removal_record(name: &str, mechanism: i8) -> MetadataRecord {
    MetadataRecord::new(
        RemoveUserScramCredentialRecord {
            name: name.into(),
            mechanism,
            ..Default::default()
        },
        0,
    )
}

fn stored(c: &Controller, name: &str, mechanism: i8) -> Option<ScramCredentialData> {
    c.image()
        .read()
        .scram()
        .credential(mechanism, name)
        .cloned()
}

/// A controller at metadata.version 4.4-IV2 with credentials for `users`.
async fn with_users(users: &[(&str, i8)]) -> (Arc<Controller>, Arc<GatedQuorum>) {
    let (c, q) = setup(Duration::from_secs(9));
    // One request each: a user may be altered once per request.
    for (name, mechanism) in users {
        let r = c
            .alter_user_scram_credentials(&request(
                Vec::new(),
                vec![upsert(name, *mechanism, MIN_ITERATIONS)],
            ))
            .await;
        assert_eq!(answers(&r), [ok(name)]);
    }
    (c, q)
}

#[test]
fn rfc7677_example_keys_verify_the_client_proof_and_server_signature() {
    // RFC 7677 section 3 (and Kafka's ScramFormatterTest.rfc7677Example).
    let salt = BASE64.decode("W22ZaJ0SNY7soEsUEjb6gQ==").expect("salt");
    let mut salted_password = [0u8; 32];
    pbkdf2::pbkdf2_hmac::<Sha256>(b"pencil", &salt, 4096, &mut salted_password);
    let (stored_key, server_key) =
        derive_keys(ScramMechanism::Sha256, &salted_password).expect("keys");
    let auth_message = "n=user,r=rOprNGfwEbeRWgbNEkqO,\
        r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096,\
        c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0";
    let hmac = |key: &[u8]| {
        let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(key).expect("key");
        mac.update(auth_message.as_bytes());
        mac.finalize().into_bytes().to_vec()
    };
    // ServerSignature = HMAC(ServerKey, AuthMessage): the RFC's v=.
    assert_eq!(
        BASE64.encode(hmac(&server_key)),
        "6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4="
    );
    // ClientKey = ClientProof XOR HMAC(StoredKey, AuthMessage), and
    // StoredKey = H(ClientKey): the RFC's p= checks against the stored key.
    let proof = BASE64
        .decode("dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=")
        .expect("proof");
    let client_key: Vec<u8> = proof
        .iter()
        .zip(hmac(&stored_key))
        .map(|(p, s)| p ^ s)
        .collect();
    assert_eq!(Sha256::digest(&client_key).as_slice(), &stored_key[..]);
}

#[test]
fn keys_match_a_jvms_scram_formatter_for_both_mechanisms() {
    for (mechanism, code) in [
        (ScramMechanism::Sha256, SHA_256),
        (ScramMechanism::Sha512, SHA_512),
    ] {
        let (stored_key, server_key) = derive_keys(mechanism, &salted()).expect("keys");
        assert_eq!((stored_key.to_vec(), server_key.to_vec()), jvm_keys(code));
    }
    // Java's SecretKeySpec refuses an empty key: no message.
    let e = derive_keys(ScramMechanism::Sha512, &[]).expect_err("empty");
    assert_eq!((e.code, e.message), (ErrorCode::UnknownServerError, None));
}

#[tokio::test]
async fn an_upsertion_writes_the_credential_and_the_image_holds_it() {
    let (c, q) = with_users(&[]).await;
    let mark = q.records().len();
    let r = c
        .alter_user_scram_credentials(&request(
            Vec::new(),
            vec![upsert("alice", SHA_256, 8192), upsert("bob", SHA_512, 4096)],
        ))
        .await;
    assert_eq!(answers(&r), [ok("bob"), ok("alice")]);
    assert_eq!(
        q.records()[mark..],
        [
            credential_record("bob", SHA_512, 4096),
            credential_record("alice", SHA_256, 8192),
        ]
    );
    let (stored_key, server_key) = jvm_keys(SHA_256);
    assert_eq!(
        stored(&c, "alice", SHA_256),
        Some(ScramCredentialData {
            salt: salt_of("alice"),
            stored_key: stored_key.into(),
            server_key: server_key.into(),
            iterations: 8192,
        })
    );
    assert_eq!(stored(&c, "alice", SHA_512), None);
    assert!(stored(&c, "bob", SHA_512).is_some());

    // An upsertion replaces the credential.
    let r = c
        .alter_user_scram_credentials(&request(
            Vec::new(),
            vec![upsert("alice", SHA_256, MAX_ITERATIONS)],
        ))
        .await;
    assert_eq!(answers(&r), [ok("alice")]);
    assert_eq!(
        stored(&c, "alice", SHA_256).map(|s| s.iterations),
        Some(MAX_ITERATIONS)
    );
}

#[tokio::test]
async fn a_deletion_removes_the_credential_and_a_missing_one_is_not_found() {
    let (c, q) = with_users(&[("alice", SHA_256), ("alice", SHA_512)]).await;
    // One user per request: two mechanisms of one user in one request are
    // a duplicate.
    let mark = q.records().len();
    let r = c
        .alter_user_scram_credentials(&request(vec![delete("alice", SHA_512)], Vec::new()))
        .await;
    assert_eq!(answers(&r), [ok("alice")]);
    assert_eq!(q.records()[mark..], [removal_record("alice", SHA_512)]);
    assert_eq!(stored(&c, "alice", SHA_512), None);
    assert!(stored(&c, "alice", SHA_256).is_some());

    let mark = q.records().len();
    for d in [delete("alice", SHA_512), delete("nobody", SHA_256)] {
        let name = d.name.to_string();
        let r = c
            .alter_user_scram_credentials(&request(vec![d], Vec::new()))
            .await;
        assert_eq!(
            answers(&r),
            [refused(
                &name,
                ErrorCode::ResourceNotFound,
                "Attempt to delete a user credential that does not exist"
            )]
        );
    }
    assert_eq!(q.records().len(), mark);
}

#[tokio::test]
async fn an_empty_name_and_an_unknown_mechanism_are_refused() {
    let (c, q) = with_users(&[("alice", SHA_256)]).await;
    let mark = q.records().len();
    let unknown = |user: &str| {
        refused(
            user,
            ErrorCode::UnsupportedSaslMechanism,
            "Unknown SCRAM mechanism",
        )
    };
    let empty = refused(
        "",
        ErrorCode::UnacceptableCredential,
        "Username must not be empty",
    );
    for (d, u, expected) in [
        (vec![delete("alice", 0)], vec![], unknown("alice")),
        (vec![delete("alice", 3)], vec![], unknown("alice")),
        (vec![], vec![upsert("bob", 0, 4096)], unknown("bob")),
        (vec![], vec![upsert("bob", -1, 4096)], unknown("bob")),
        // The name is checked before the mechanism.
        (vec![delete("", 0)], vec![], empty.clone()),
        (vec![], vec![upsert("", 9, 4096)], empty),
    ] {
        let r = c.alter_user_scram_credentials(&request(d, u)).await;
        assert_eq!(answers(&r), [expected]);
    }
    assert_eq!(q.records().len(), mark);
    assert!(stored(&c, "alice", SHA_256).is_some());
}

#[tokio::test]
async fn iterations_must_be_within_kafkas_bounds() {
    let (c, q) = with_users(&[]).await;
    let mark = q.records().len();
    let r = c
        .alter_user_scram_credentials(&request(
            Vec::new(),
            vec![
                upsert("alice", SHA_256, MIN_ITERATIONS - 1),
                upsert("bob", SHA_512, MAX_ITERATIONS + 1),
                upsert("carol", SHA_256, MIN_ITERATIONS),
                upsert("dave", SHA_512, MAX_ITERATIONS),
                upsert("eve", SHA_512, i32::MIN),
            ],
        ))
        .await;
    // Upsertions first (carol, dave), then the refusals in the order of
    // Kafka's HashMap of {alice, bob, eve}: bob, eve, alice.
    assert_eq!(
        answers(&r),
        [
            ok("carol"),
            ok("dave"),
            refused(
                "bob",
                ErrorCode::UnacceptableCredential,
                "Too many iterations"
            ),
            refused(
                "eve",
                ErrorCode::UnacceptableCredential,
                "Too few iterations"
            ),
            refused(
                "alice",
                ErrorCode::UnacceptableCredential,
                "Too few iterations"
            ),
        ]
    );
    assert_eq!(
        q.records()[mark..],
        [
            credential_record("carol", SHA_256, 4096),
            credential_record("dave", SHA_512, 16384),
        ]
    );
    assert_eq!((MIN_ITERATIONS, MAX_ITERATIONS), (4096, 16384));
}

#[tokio::test]
async fn a_user_altered_twice_in_one_request_is_a_duplicate() {
    let (c, q) = with_users(&[("alice", SHA_256), ("alice", SHA_512), ("bob", SHA_256)]).await;
    let mark = q.records().len();
    let duplicate = |user: &str| {
        refused(
            user,
            ErrorCode::DuplicateResource,
            "A user credential cannot be altered twice in the same request",
        )
    };
    // Two deletions of one user (even of two mechanisms).
    let r = c
        .alter_user_scram_credentials(&request(
            vec![delete("alice", SHA_256), delete("alice", SHA_512)],
            Vec::new(),
        ))
        .await;
    assert_eq!(answers(&r), [duplicate("alice")]);
    // A deletion and an upsertion, and two upsertions; a third entry for a
    // refused user changes nothing.
    let r = c
        .alter_user_scram_credentials(&request(
            vec![delete("bob", SHA_256)],
            vec![
                upsert("bob", SHA_512, 4096),
                upsert("carol", SHA_256, 4096),
                upsert("carol", SHA_512, 4096),
                upsert("carol", SHA_512, 4096),
            ],
        ))
        .await;
    assert_eq!(answers(&r), [duplicate("carol"), duplicate("bob")]);
    // A user refused first keeps its first refusal.
    let r = c
        .alter_user_scram_credentials(&request(
            vec![delete("dave", SHA_256)],
            vec![upsert("dave", SHA_256, 4096)],
        ))
        .await;
    assert_eq!(
        answers(&r),
        [refused(
            "dave",
            ErrorCode::ResourceNotFound,
            "Attempt to delete a user credential that does not exist"
        )]
    );
    assert_eq!(q.records().len(), mark);
    assert!(stored(&c, "alice", SHA_512).is_some());
    assert!(stored(&c, "bob", SHA_256).is_some());
    assert_eq!(stored(&c, "carol", SHA_256), None);
}

#[tokio::test]
async fn results_are_deletions_then_upsertions_then_refusals_each_in_hash_map_order() {
    let (c, q) = with_users(&[("bob", SHA_256), ("dave", SHA_512), ("grace", SHA_256)]).await;
    let mark = q.records().len();
    let r = c
        .alter_user_scram_credentials(&request(
            vec![
                delete("dave", SHA_512),
                delete("bob", SHA_256),
                delete("carol", SHA_256),
            ],
            vec![
                upsert("eve", SHA_256, 4096),
                upsert("alice", SHA_512, 8192),
                upsert("frank", SHA_256, 100),
                upsert("grace", SHA_512, 4096),
            ],
        ))
        .await;
    // A JVM iterates {dave, bob} as [dave, bob], {eve, alice, grace} as
    // [eve, grace, alice] and {carol, frank} as [frank, carol].
    assert_eq!(
        answers(&r),
        [
            ok("dave"),
            ok("bob"),
            ok("eve"),
            ok("grace"),
            ok("alice"),
            refused(
                "frank",
                ErrorCode::UnacceptableCredential,
                "Too few iterations"
            ),
            refused(
                "carol",
                ErrorCode::ResourceNotFound,
                "Attempt to delete a user credential that does not exist"
            ),
        ]
    );
    assert_eq!(
        q.records()[mark..],
        [
            removal_record("dave", SHA_512),
            removal_record("bob", SHA_256),
            credential_record("eve", SHA_256, 4096),
            credential_record("grace", SHA_512, 4096),
            credential_record("alice", SHA_512, 8192),
        ]
    );
    let image = c.image().read();
    let users: Vec<(i8, Vec<&str>)> = image
        .scram()
        .mechanisms()
        .map(|(m, u)| (m, u.keys().map(String::as_str).collect()))
        .collect();
    assert_eq!(
        users,
        [
            (SHA_256, vec!["eve", "grace"]),
            (SHA_512, vec!["alice", "grace"])
        ]
    );
}

#[tokio::test]
async fn an_empty_salted_password_fails_only_that_user() {
    let (c, q) = with_users(&[]).await;
    let mark = q.records().len();
    let mut empty = upsert("alice", SHA_256, 4096);
    empty.salted_password = Bytes::new();
    let r = c
        .alter_user_scram_credentials(&request(
            Vec::new(),
            vec![empty, upsert("bob", SHA_256, 4096)],
        ))
        .await;
    assert_eq!(
        answers(&r),
        [
            ok("bob"),
            (
                "alice".to_owned(),
                ErrorCode::UnknownServerError.code(),
                None
            )
        ]
    );
    assert_eq!(
        q.records()[mark..],
        [credential_record("bob", SHA_256, 4096)]
    );
}

#[tokio::test]
async fn below_metadata_version_3_5_iv2_every_user_is_unsupported_version() {
    let (c, q) = setup(Duration::from_secs(9));
    // 3.5-IV1 (level 10), the last without SCRAM.
    q.log
        .lock()
        .unwrap()
        .push(MetadataRecord::feature_level("metadata.version", 10));
    q.release();
    let mark = q.records().len();
    let unsupported = |user: &str| {
        refused(
            user,
            ErrorCode::UnsupportedVersion,
            "The current metadata.version does not support SCRAM",
        )
    };
    let r = c
        .alter_user_scram_credentials(&request(
            vec![delete("alice", SHA_256), delete("alice", SHA_512)],
            vec![upsert("bob", SHA_256, 4096), upsert("", 7, 1)],
        ))
        .await;
    // A JVM iterates {alice, bob, ""} as ["", bob, alice].
    assert_eq!(
        answers(&r),
        [unsupported(""), unsupported("bob"), unsupported("alice")]
    );
    assert_eq!(q.records().len(), mark);
}

#[tokio::test]
async fn an_empty_request_writes_nothing() {
    let (c, q) = with_users(&[]).await;
    let mark = q.records().len();
    let r = c
        .alter_user_scram_credentials(&request(Vec::new(), Vec::new()))
        .await;
    assert_eq!(r, AlterUserScramCredentialsResponse::default());
    assert_eq!(q.records().len(), mark);
}

#[tokio::test]
async fn a_failed_write_answers_every_user_once_in_name_order() {
    let (c, q) = with_users(&[]).await;
    q.refuse_appends(true);
    let r = c
        .alter_user_scram_credentials(&request(
            vec![delete("carol", SHA_256)],
            vec![
                upsert("bob", SHA_256, 4096),
                upsert("alice", SHA_256, 4096),
                upsert("bob", SHA_512, 4096),
            ],
        ))
        .await;
    let not_controller = |user: &str| {
        refused(
            user,
            ErrorCode::NotController,
            "The active controller appears to be node 1.",
        )
    };
    assert_eq!(
        answers(&r),
        [
            not_controller("alice"),
            not_controller("bob"),
            not_controller("carol")
        ]
    );
    assert_eq!(stored(&c, "alice", SHA_256), None);
}

#[tokio::test]
async fn the_api_is_served_dispatched_and_forwardable() {
    let (c, q) = with_users(&[]).await;
    assert!(c
        .served_apis()
        .iter()
        .any(|r| r.api_key == ApiKey::AlterUserScramCredentials
            && (r.min_version, r.max_version) == (0, 0)));
    let body = RequestBody::AlterUserScramCredentials(request(
        Vec::new(),
        vec![upsert("alice", SHA_256, 4096)],
    ));
    let mut ctx = server_context();
    ctx.api_key = ApiKey::AlterUserScramCredentials;
    let r = RequestHandler::handle(c.as_ref(), ctx, body.clone()).await;
    let Ok(ResponseBody::AlterUserScramCredentials(r)) = r else {
        panic!("unexpected answer {r:?}");
    };
    assert_eq!(answers(&r), [ok("alice")]);

    // Forwarded by a broker: the answer travels in the envelope; a
    // NOT_CONTROLLER answer fails the envelope instead.
    let forwarded = || {
        envelope_of(
            ApiKey::AlterUserScramCredentials,
            &body,
            Some(alice()),
            &[127, 0, 0, 1],
        )
    };
    let r = c
        .envelope(&super::Access::everything(), &server_context(), forwarded())
        .await;
    assert_eq!(r.error_code, 0);
    let (_, inner) = kraft_protocol::header::decode_response(
        r.response_data.expect("data"),
        ApiKey::AlterUserScramCredentials,
        0,
    )
    .expect("response");
    let ResponseBody::AlterUserScramCredentials(inner) = inner else {
        panic!("{inner:?}")
    };
    assert_eq!(answers(&inner), [ok("alice")]);
    q.refuse_appends(true);
    let r = c
        .envelope(&super::Access::everything(), &server_context(), forwarded())
        .await;
    assert_eq!(
        (r.error_code, r.response_data),
        (ErrorCode::NotController.code(), None)
    );
}
