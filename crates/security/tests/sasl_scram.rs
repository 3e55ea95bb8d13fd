//! SCRAM: RFC 7677's example exchange byte for byte, the vectors Kafka 4.4's
//! own `ScramFormatter` / `ScramMessages` produced
//! (`tests/data/sasl/kafka_vectors.txt`), the cases of Kafka's
//! `ScramFormatterTest` and `ScramSaslServerTest`, and whole client/server
//! exchanges with users and delegation tokens.

#![allow(clippy::unwrap_used)]

use std::collections::BTreeMap;
use std::sync::Arc;

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use kraft_security::jaas::{parse_single, JaasEntry};
use kraft_security::sasl::scram::{
    self, client_proof, salted_password, sasl_name, secure_random_string, server_key,
    server_signature, username, ScramClient, ScramServer,
};
use kraft_security::sasl::scram_messages::{ClientFirstMessage, ServerFirstMessage};
use kraft_security::sasl::{
    new_client, new_server, scram_credential, CredentialSource, Mechanism, MemoryCredentials,
    SaslClient, SaslFailure, SaslFailureKind, SaslServer, SaslServerConfig, ScramCredential,
    ScramMechanism, ServerStep, TokenCredential,
};
use kraft_security::Secret;

mod kafka_vectors;
use kafka_vectors::vector;

fn b64(s: &str) -> Vec<u8> {
    STANDARD.decode(s).unwrap()
}

// RFC 7677 section 3.
const RFC_C1: &str = "n,,n=user,r=rOprNGfwEbeRWgbNEkqO";
const RFC_S1: &str =
    "r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096";
const RFC_C2: &str =
    "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=";
const RFC_S2: &str = "v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=";

fn never() -> i64 {
    1_000_000
}

fn config(credentials: MemoryCredentials) -> SaslServerConfig {
    SaslServerConfig {
        plain_users: BTreeMap::new(),
        credentials: Arc::new(credentials),
        now_ms: never,
    }
}

fn users(mechanism: ScramMechanism, list: &[(&str, &str)]) -> MemoryCredentials {
    let mut c = MemoryCredentials::default();
    for (user, password) in list {
        c.scram.insert(
            (mechanism, user.to_string()),
            scram_credential(mechanism, password, b"", 4096),
        );
    }
    c
}

fn challenge(step: ServerStep) -> Vec<u8> {
    match step {
        ServerStep::Challenge(c) => c,
        other => panic!("expected a challenge, got {other:?}"),
    }
}

/// RFC 7677's example: formulas, then our client and server exchanging
/// exactly its four messages.
#[test]
fn rfc7677_example_formulas() {
    let m = ScramMechanism::Sha256;
    let c1 = ClientFirstMessage::parse(RFC_C1.as_bytes()).unwrap();
    let s1 = ServerFirstMessage::parse(RFC_S1.as_bytes()).unwrap();
    assert_eq!(c1.sasl_name, "user");
    assert_eq!(c1.nonce, "rOprNGfwEbeRWgbNEkqO");
    assert_eq!(
        &s1.nonce[c1.nonce.len()..],
        "%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0"
    );
    assert_eq!(s1.salt, b64("W22ZaJ0SNY7soEsUEjb6gQ=="));
    assert_eq!(s1.iterations, 4096);
    let salted = salted_password(m, b"pencil", &s1.salt, 4096);
    let auth = scram::auth_message(
        c1.bare(),
        RFC_S1,
        "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0",
    );
    assert_eq!(
        client_proof(m, &salted, &auth),
        b64("dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=")
    );
    assert_eq!(
        server_signature(m, &server_key(m, &salted), &auth),
        b64("6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=")
    );
    assert_eq!(m.min_iterations(), 4096);
}

#[test]
fn rfc7677_example_exchange_byte_for_byte() {
    let m = ScramMechanism::Sha256;
    let salt = b64("W22ZaJ0SNY7soEsUEjb6gQ==");
    let mut credentials = MemoryCredentials::default();
    credentials.scram.insert(
        (m, "user".into()),
        scram_credential(m, "pencil", &salt, 4096),
    );
    let mut server = ScramServer::new(m, Arc::new(credentials), never)
        .with_server_nonce("%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0");
    let mut client = ScramClient::new(m, "user", Secret::new("pencil"), false)
        .with_nonce("rOprNGfwEbeRWgbNEkqO");

    let c1 = client.initial_response().unwrap();
    assert_eq!(String::from_utf8(c1.clone()).unwrap(), RFC_C1);
    let s1 = challenge(server.evaluate(&c1).unwrap());
    assert_eq!(String::from_utf8(s1.clone()).unwrap(), RFC_S1);
    let c2 = client.evaluate_challenge(&s1).unwrap().unwrap();
    assert_eq!(String::from_utf8(c2.clone()).unwrap(), RFC_C2);
    assert!(!client.is_complete());
    match server.evaluate(&c2).unwrap() {
        ServerStep::Complete {
            final_message,
            authorization_id,
            token_authenticated,
        } => {
            assert_eq!(String::from_utf8(final_message.clone()).unwrap(), RFC_S2);
            assert_eq!(authorization_id, "user");
            assert!(!token_authenticated);
            assert_eq!(client.evaluate_challenge(&final_message).unwrap(), None);
        }
        other => panic!("{other:?}"),
    }
    assert!(client.is_complete());
    assert_eq!(server.credential_expiry_ms(), None);
}

/// The client must refuse a server that does not know the password.
#[test]
fn rfc7677_client_refuses_a_wrong_server_signature() {
    let mut client = ScramClient::new(ScramMechanism::Sha256, "user", Secret::new("pencil"), false)
        .with_nonce("rOprNGfwEbeRWgbNEkqO");
    client.initial_response().unwrap();
    client.evaluate_challenge(RFC_S1.as_bytes()).unwrap();
    let failure = client
        .evaluate_challenge(b"v=7rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=")
        .unwrap_err();
    assert_eq!(
        failure.message,
        "Invalid server signature in server final message"
    );
    assert!(!client.is_complete());
    assert_eq!(
        client
            .evaluate_challenge(RFC_S2.as_bytes())
            .unwrap_err()
            .kind,
        SaslFailureKind::IllegalState
    );
}

#[test]
fn client_refuses_bad_server_first_messages() {
    let cases = [
        (
            "r=someoneElsesNonce,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096".to_owned(),
            "Invalid server nonce: does not start with client nonce",
        ),
        (
            "r=rOprNGfwEbeRWgbNEkqOxyz,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4095".to_owned(),
            "Requested iterations 4095 is less than the minimum 4096 for SCRAM_SHA_256",
        ),
        (
            "garbage".to_owned(),
            "Invalid SCRAM server first message format",
        ),
    ];
    for (s1, message) in cases {
        let mut client =
            ScramClient::new(ScramMechanism::Sha256, "user", Secret::new("pencil"), false)
                .with_nonce("rOprNGfwEbeRWgbNEkqO");
        client.initial_response().unwrap();
        let failure = client.evaluate_challenge(s1.as_bytes()).unwrap_err();
        assert_eq!(failure.message, message);
        assert_eq!(failure.kind, SaslFailureKind::Authentication);
    }
    let mut client = ScramClient::new(ScramMechanism::Sha256, "user", Secret::new("pencil"), false);
    client.initial_response().unwrap();
    client.evaluate_challenge(RFC_S1.as_bytes()).unwrap_err();
    let mut client = ScramClient::new(ScramMechanism::Sha256, "user", Secret::new("pencil"), false)
        .with_nonce("rOprNGfwEbeRWgbNEkqO");
    client.initial_response().unwrap();
    client.evaluate_challenge(RFC_S1.as_bytes()).unwrap();
    assert_eq!(
        client
            .evaluate_challenge(b"e=unknown-user")
            .unwrap_err()
            .message,
        "Sasl authentication using SCRAM_SHA_256 failed with error: unknown-user"
    );
}

#[test]
fn client_first_through_evaluate_challenge() {
    let mut client =
        ScramClient::new(ScramMechanism::Sha512, "u", Secret::new("p"), false).with_nonce("abc");
    assert_eq!(
        client.evaluate_challenge(b"").unwrap().unwrap(),
        b"n,,n=u,r=abc".to_vec()
    );
    let mut client = ScramClient::new(ScramMechanism::Sha512, "u", Secret::new("p"), false);
    assert_eq!(
        client.evaluate_challenge(b"x").unwrap_err().message,
        "Expected empty challenge"
    );
}

/// Credentials as Kafka 4.4's `ScramFormatter` computed them.
#[test]
fn credentials_match_kafka() {
    let salt = b"kraft-rs-fixed-salt";
    for m in ScramMechanism::ALL {
        for iterations in [4096, 8192] {
            for (kind, password) in [
                ("plain", "kraft-rs-password"),
                ("utf8", "p\u{e4},ss=w\u{f6}rd"),
            ] {
                let key = format!("credential.{}.{iterations}.{kind}", m.mechanism_name());
                let c = scram_credential(m, password, salt, iterations);
                assert_eq!(c.salt, b64(vector(&format!("{key}.salt"))), "{key}");
                assert_eq!(
                    c.stored_key,
                    b64(vector(&format!("{key}.stored_key"))),
                    "{key}"
                );
                assert_eq!(
                    c.server_key,
                    b64(vector(&format!("{key}.server_key"))),
                    "{key}"
                );
                assert_eq!(c.iterations, iterations);
            }
        }
    }
}

fn jaas(user: &str, password: &str, token: bool) -> JaasEntry {
    let token = if token { " tokenauth=\"true\"" } else { "" };
    parse_single(&format!(
        "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"{user}\" password=\"{password}\"{token};"
    ))
    .unwrap()
}

/// Whole exchanges as Kafka 4.4's `ScramMessages` and `ScramFormatter` wrote
/// them: our client sends the same bytes, our server answers with the same
/// bytes.
#[test]
fn exchanges_match_kafka() {
    for m in ScramMechanism::ALL {
        for kind in ["user", "token"] {
            let key = |k: &str| vector(&format!("exchange.{}.{kind}.{k}", m.mechanism_name()));
            let salt = b64(key("salt"));
            let token = kind == "token";
            let mut client = ScramClient::new(m, key("user"), Secret::new(key("password")), token)
                .with_nonce(key("client_nonce"));
            let c1 = client.initial_response().unwrap();
            assert_eq!(String::from_utf8(c1.clone()).unwrap(), key("client_first"));
            let c2 = client
                .evaluate_challenge(key("server_first").as_bytes())
                .unwrap()
                .unwrap();
            assert_eq!(String::from_utf8(c2.clone()).unwrap(), key("client_final"));
            assert_eq!(
                client
                    .evaluate_challenge(key("server_final").as_bytes())
                    .unwrap(),
                None
            );
            assert!(client.is_complete());

            let credential = scram_credential(m, key("password"), &salt, 4096);
            assert_eq!(credential.stored_key, b64(key("stored_key")));
            assert_eq!(credential.server_key, b64(key("server_key")));
            if !token {
                let mut credentials = MemoryCredentials::default();
                credentials.scram.insert((m, "al,ice=x".into()), credential);
                let mut server = ScramServer::new(m, Arc::new(credentials), never)
                    .with_server_nonce(key("server_nonce"));
                let s1 = challenge(server.evaluate(&c1).unwrap());
                assert_eq!(String::from_utf8(s1).unwrap(), key("server_first"));
                match server.evaluate(&c2).unwrap() {
                    ServerStep::Complete {
                        final_message,
                        authorization_id,
                        ..
                    } => {
                        assert_eq!(
                            String::from_utf8(final_message).unwrap(),
                            key("server_final")
                        );
                        assert_eq!(authorization_id, "al,ice=x");
                    }
                    other => panic!("{other:?}"),
                }
            }
        }
    }
}

#[test]
fn sasl_names() {
    for name in [
        "user1", "123", "1,2", "user=A", "user==B", "user,1", "user 1", ",", "=", ",=", "==",
    ] {
        let s = sasl_name(name);
        assert!(!s.contains(','), "{s}");
        assert!(
            !s.replace("=2C", "").replace("=3D", "").contains('='),
            "{s}"
        );
        assert_eq!(username(&s).unwrap(), name);
    }
    assert_eq!(username("a=b").unwrap_err(), "Invalid username: a=b");
    assert_eq!(username("a=3Db=2Cc").unwrap(), "a=b,c");
}

#[test]
fn random_strings_look_like_kafkas() {
    let a = secure_random_string().unwrap();
    let b = secure_random_string().unwrap();
    assert_ne!(a, b);
    for s in [&a, &b] {
        // 130 bits in base 36: at most 26 digits.
        assert!(!s.is_empty() && s.len() <= 26, "{s}");
        assert!(
            s.bytes()
                .all(|c| c.is_ascii_digit() || c.is_ascii_lowercase()),
            "{s}"
        );
    }
    // An empty salt asks for a random one.
    let c1 = scram_credential(ScramMechanism::Sha256, "p", b"", 4096);
    let c2 = scram_credential(ScramMechanism::Sha256, "p", b"", 4096);
    assert_ne!(c1.salt, c2.salt);
    assert_ne!(c1.stored_key, c2.stored_key);
}

// ---- ScramSaslServerTest ----

fn server_a() -> Box<dyn SaslServer> {
    let c = users(
        ScramMechanism::Sha256,
        &[("userA", "passwordA"), ("userB", "passwordB")],
    );
    new_server(Mechanism::ScramSha256, &config(c)).unwrap()
}

fn client_first_message(user: &str, authzid: Option<&str>) -> (String, Vec<u8>) {
    let nonce = secure_random_string().unwrap();
    let a = authzid.map(|a| format!("a={a}")).unwrap_or_default();
    (
        nonce.clone(),
        format!("n,{a},n={user},r={nonce}").into_bytes(),
    )
}

fn generic(m: Mechanism) -> String {
    format!("Authentication failed during authentication due to invalid credentials with SASL mechanism {m}")
}

#[test]
fn no_authorization_id_specified() {
    let mut server = server_a();
    let c = challenge(
        server
            .evaluate(&client_first_message("userA", None).1)
            .unwrap(),
    );
    assert!(!c.is_empty());
}

#[test]
fn authorization_id_equals_authentication_id() {
    let mut server = server_a();
    let c = challenge(
        server
            .evaluate(&client_first_message("userA", Some("userA")).1)
            .unwrap(),
    );
    assert!(!c.is_empty());
}

#[test]
fn authorization_id_not_equals_authentication_id() {
    let mut server = server_a();
    let failure = server
        .evaluate(&client_first_message("userA", Some("userB")).1)
        .unwrap_err();
    assert_eq!(failure.kind, SaslFailureKind::Authentication);
    assert_eq!(
        failure.message,
        "Authentication failed: Client requested an authorization id that is different from username"
    );
}

/// A client that sends an authorization id (Kafka's client never does) must
/// bind its gs2 header `n,a=<authzid>,` in `c=`; then it authenticates.
#[test]
fn authorization_id_in_a_whole_exchange() {
    let m = ScramMechanism::Sha256;
    for (c, ok) in [("n,a=userA,", true), ("n,,", false)] {
        let mut server = server_a();
        let first = "n,a=userA,n=userA,r=fixedNonce";
        let s1 = challenge(server.evaluate(first.as_bytes()).unwrap());
        let s1 = ServerFirstMessage::parse(&s1).unwrap();
        let salted = salted_password(m, b"passwordA", &s1.salt, s1.iterations);
        let without_proof = format!("c={},r={}", STANDARD.encode(c), s1.nonce);
        let auth = scram::auth_message("n=userA,r=fixedNonce", s1.to_message(), &without_proof);
        let proof = STANDARD.encode(client_proof(m, &salted, &auth));
        let result = server.evaluate(format!("{without_proof},p={proof}").as_bytes());
        match result {
            Ok(ServerStep::Complete {
                authorization_id,
                final_message,
                ..
            }) => {
                assert!(ok);
                assert_eq!(authorization_id, "userA");
                let expected = server_signature(m, &server_key(m, &salted), &auth);
                assert_eq!(
                    final_message,
                    format!("v={}", STANDARD.encode(expected)).into_bytes()
                );
            }
            Ok(other) => panic!("{other:?}"),
            Err(failure) => {
                assert!(!ok);
                assert_eq!(
                    failure.log_detail,
                    "Invalid channel binding in the final client message."
                );
            }
        }
    }
}

#[test]
fn nonce_exchange() {
    // The server's nonce starts with the client's; a final message with any
    // other nonce is refused (also the client nonce prepended twice).
    for bad in [false, true] {
        let mut server = server_a();
        let (client_nonce, first) = client_first_message("userA", Some("userA"));
        let s1 = challenge(server.evaluate(&first).unwrap());
        let s1 = ServerFirstMessage::parse(&s1).unwrap();
        assert!(s1.nonce.starts_with(&client_nonce));
        let nonce = if bad {
            format!("{client_nonce}{}", s1.nonce)
        } else {
            secure_random_string().unwrap()
        };
        let proof = STANDARD.encode(secure_random_string().unwrap());
        let failure = server
            .evaluate(format!("c=biws,r={nonce},p={proof}").as_bytes())
            .unwrap_err();
        assert_eq!(failure.message, generic(Mechanism::ScramSha256));
        assert_eq!(
            failure.log_detail,
            "Invalid client nonce in the final client message."
        );
    }
}

#[test]
fn server_refuses_wrong_channel_binding_and_bad_proofs() {
    for (c, p) in [("eSws", None), ("biws", Some("AAAA")), ("biws", Some(""))] {
        let mut server = server_a();
        let (_, first) = client_first_message("userA", None);
        let s1 = ServerFirstMessage::parse(&challenge(server.evaluate(&first).unwrap())).unwrap();
        let proof = p
            .map(str::to_owned)
            .unwrap_or_else(|| STANDARD.encode([7u8; 32]));
        let failure = server
            .evaluate(format!("c={c},r={},p={proof}", s1.nonce).as_bytes())
            .unwrap_err();
        assert_eq!(failure.message, generic(Mechanism::ScramSha256));
        assert_eq!(failure.kind, SaslFailureKind::Authentication);
        // Once failed, the exchange is over.
        let again = server.evaluate(b"anything").unwrap_err();
        assert_eq!(again.kind, SaslFailureKind::IllegalState);
        assert_eq!(
            again.message,
            "Unexpected challenge in Sasl server state FAILED"
        );
    }
}

#[test]
fn server_refuses_low_iterations_and_bad_names() {
    let m = ScramMechanism::Sha512;
    let mut c = MemoryCredentials::default();
    c.scram
        .insert((m, "low".into()), scram_credential(m, "pw", b"salt", 4095));
    let mut server = new_server(Mechanism::ScramSha512, &config(c)).unwrap();
    let failure = server.evaluate(b"n,,n=low,r=abc").unwrap_err();
    assert_eq!(failure.message, generic(Mechanism::ScramSha512));
    assert_eq!(
        failure.log_detail,
        "Iterations 4095 is less than the minimum 4096 for SCRAM_SHA_512"
    );

    let mut server = server_a();
    let failure = server.evaluate(b"n,,n=bad=3D=2C=3d,r=abc").unwrap_err();
    assert_eq!(failure.message, generic(Mechanism::ScramSha256));

    let mut server = server_a();
    let failure = server.evaluate(b"not scram").unwrap_err();
    assert_eq!(failure.message, generic(Mechanism::ScramSha256));
    assert_eq!(
        failure.log_detail,
        "Invalid SCRAM client first message format"
    );
}

// ---- whole exchanges ----

fn run(
    client: &mut dyn SaslClient,
    server: &mut dyn SaslServer,
) -> Result<(String, bool), SaslFailure> {
    let mut message = client.initial_response()?;
    loop {
        match server.evaluate(&message)? {
            ServerStep::Challenge(c) => {
                message = client
                    .evaluate_challenge(&c)?
                    .expect("client has an answer");
            }
            ServerStep::Complete {
                final_message,
                authorization_id,
                token_authenticated,
            } => {
                assert_eq!(client.evaluate_challenge(&final_message)?, None);
                assert!(client.is_complete());
                return Ok((authorization_id, token_authenticated));
            }
        }
    }
}

#[test]
fn full_exchanges_with_users() {
    for mechanism in [Mechanism::ScramSha256, Mechanism::ScramSha512] {
        let m = mechanism.scram().unwrap();
        let c = users(
            m,
            &[("alice", "alice-secret"), ("b,o=b", "p\u{e4}ss w\u{f6}rd")],
        );
        let config = config(c);
        for (user, password) in [("alice", "alice-secret"), ("b,o=b", "p\u{e4}ss w\u{f6}rd")] {
            let mut client = new_client(mechanism, &jaas(user, password, false)).unwrap();
            let mut server = new_server(mechanism, &config).unwrap();
            assert_eq!(
                run(client.as_mut(), server.as_mut()).unwrap(),
                (user.to_owned(), false)
            );
        }
        // Wrong password and unknown user: the same text for the client.
        for (user, password) in [("alice", "wrong-secret"), ("mallory", "alice-secret")] {
            let mut client = new_client(mechanism, &jaas(user, password, false)).unwrap();
            let mut server = new_server(mechanism, &config).unwrap();
            let failure = run(client.as_mut(), server.as_mut()).unwrap_err();
            assert_eq!(failure.kind, SaslFailureKind::Authentication);
            assert_eq!(failure.message, generic(mechanism));
            assert!(!client.is_complete());
        }
        // A SHA-256 credential does not serve SHA-512 and the other way round.
        let other = if m == ScramMechanism::Sha256 {
            ScramMechanism::Sha512
        } else {
            ScramMechanism::Sha256
        };
        let mut client =
            new_client(other.mechanism(), &jaas("alice", "alice-secret", false)).unwrap();
        let mut server = new_server(other.mechanism(), &config).unwrap();
        assert!(run(client.as_mut(), server.as_mut()).is_err());
    }
}

#[test]
fn wrong_password_and_unknown_user_look_the_same() {
    let c = users(ScramMechanism::Sha256, &[("alice", "alice-secret")]);
    let config = config(c);
    let mut messages = Vec::new();
    for (user, password) in [("alice", "nope"), ("nobody", "nope")] {
        let mut client = new_client(Mechanism::ScramSha256, &jaas(user, password, false)).unwrap();
        let mut server = new_server(Mechanism::ScramSha256, &config).unwrap();
        let failure = run(client.as_mut(), server.as_mut()).unwrap_err();
        messages.push((failure.kind, failure.message));
    }
    assert_eq!(messages[0], messages[1]);
}

const HMAC: [u8; 32] = [
    3, 10, 17, 24, 31, 38, 45, 52, 59, 66, 73, 80, 87, 94, 101, 108, 115, 122, 129, 136, 143, 150,
    157, 164, 171, 178, 185, 192, 199, 206, 213, 220,
];

fn tokens(expiry: i64) -> MemoryCredentials {
    let mut c = users(ScramMechanism::Sha256, &[("alice", "alice-secret")]);
    c.tokens.insert(
        "token-id-123".into(),
        TokenCredential {
            owner: "User:bob".into(),
            hmac: HMAC.to_vec(),
            expiry_timestamp_ms: expiry,
        },
    );
    c
}

#[test]
fn token_authentication() {
    let hmac_b64 = STANDARD.encode(HMAC);
    assert_eq!(hmac_b64, vector("exchange.SCRAM-SHA-256.token.password"));
    for mechanism in [Mechanism::ScramSha256, Mechanism::ScramSha512] {
        let config = config(tokens(1_000_000));
        // Right HMAC: authenticated as the owner, flagged as a token.
        let mut client = new_client(mechanism, &jaas("token-id-123", &hmac_b64, true)).unwrap();
        let mut server = new_server(mechanism, &config).unwrap();
        assert_eq!(
            run(client.as_mut(), server.as_mut()).unwrap(),
            ("bob".to_owned(), true)
        );
        assert_eq!(server.credential_expiry_ms(), Some(1_000_000));

        // Wrong HMAC.
        let wrong = STANDARD.encode([0u8; 32]);
        let mut client = new_client(mechanism, &jaas("token-id-123", &wrong, true)).unwrap();
        let mut server = new_server(mechanism, &config).unwrap();
        let failure = run(client.as_mut(), server.as_mut()).unwrap_err();
        assert_eq!(failure.message, generic(mechanism));
        assert_eq!(failure.log_detail, "Invalid client credentials");

        // Unknown token id.
        let mut client = new_client(mechanism, &jaas("token-id-999", &hmac_b64, true)).unwrap();
        let mut server = new_server(mechanism, &config).unwrap();
        let failure = run(client.as_mut(), server.as_mut()).unwrap_err();
        assert_eq!(failure.message, generic(mechanism));
        assert_eq!(
            failure.log_detail,
            "Token Authentication failed: Invalid tokenId : token-id-999"
        );

        // The token id without tokenauth is a user name, which does not exist.
        let mut client = new_client(mechanism, &jaas("token-id-123", &hmac_b64, false)).unwrap();
        let mut server = new_server(mechanism, &config).unwrap();
        assert_eq!(
            run(client.as_mut(), server.as_mut())
                .unwrap_err()
                .log_detail,
            "Authentication failed: Invalid user credentials"
        );

        // A user's password does not work as a token.
        let mut client = new_client(mechanism, &jaas("alice", "alice-secret", true)).unwrap();
        let mut server = new_server(mechanism, &config).unwrap();
        assert!(run(client.as_mut(), server.as_mut()).is_err());
    }
}

#[test]
fn expired_token_is_refused() {
    // now_ms() is 1_000_000: a token expiring at that very ms still works,
    // one that expired a ms before does not.
    for (expiry, ok) in [(1_000_000, true), (999_999, false)] {
        let config = config(tokens(expiry));
        let hmac_b64 = STANDARD.encode(HMAC);
        let mut client = new_client(
            Mechanism::ScramSha256,
            &jaas("token-id-123", &hmac_b64, true),
        )
        .unwrap();
        let mut server = new_server(Mechanism::ScramSha256, &config).unwrap();
        let result = run(client.as_mut(), server.as_mut());
        assert_eq!(result.is_ok(), ok, "{result:?}");
        if let Err(failure) = result {
            assert_eq!(failure.message, generic(Mechanism::ScramSha256));
            assert!(failure
                .log_detail
                .starts_with("Token Authentication failed: Invalid tokenId : token-id-123"));
        }
    }
}

/// The password, the HMAC, the salted password and the keys never show in a
/// failure, whatever goes wrong.
#[test]
fn secrets_never_in_failures() {
    let password = "Sup3r-Secret-pw";
    let m = ScramMechanism::Sha256;
    let cred = scram_credential(m, password, b"salt-salt", 4096);
    let forbidden: Vec<String> = vec![
        password.to_owned(),
        STANDARD.encode(HMAC),
        STANDARD.encode(&cred.stored_key),
        STANDARD.encode(&cred.server_key),
        STANDARD.encode(salted_password(m, password.as_bytes(), b"salt-salt", 4096)),
    ];
    let mut c = tokens(0);
    c.scram.insert((m, "alice".into()), cred.clone());
    let config = config(c);
    let mut failures = Vec::new();
    // A wrong password, a token past expiry, a PLAIN message sent to SCRAM.
    for (user, pw, token) in [
        ("alice", "Sup3r-Secret-pX", false),
        ("token-id-123", &*STANDARD.encode(HMAC), true),
    ] {
        let mut client = new_client(Mechanism::ScramSha256, &jaas(user, pw, token)).unwrap();
        let mut server = new_server(Mechanism::ScramSha256, &config).unwrap();
        failures.push(run(client.as_mut(), server.as_mut()).unwrap_err());
    }
    let mut server = new_server(Mechanism::ScramSha256, &config).unwrap();
    failures.push(
        server
            .evaluate(format!("\0alice\0{password}").as_bytes())
            .unwrap_err(),
    );
    let mut server = new_server(Mechanism::ScramSha256, &config).unwrap();
    failures.push(
        server
            .evaluate(format!("n,,n=alice,r={password} ").as_bytes())
            .unwrap_err(),
    );
    assert_eq!(failures.len(), 4);
    for f in &failures {
        for secret in &forbidden {
            assert!(!f.message.contains(secret.as_str()), "{f:?}");
            assert!(!f.log_detail.contains(secret.as_str()), "{f:?}");
            assert!(!format!("{f:?} {f}").contains(secret.as_str()), "{f:?}");
        }
    }
    // Debug of the stored types hides the keys.
    let debug = format!("{cred:?} {:?}", tokens(0).tokens);
    for secret in &forbidden {
        assert!(!debug.contains(secret.as_str()), "{debug}");
    }
    assert!(!format!("{:?}", HMAC.to_vec()).is_empty());
    assert!(!debug.contains(&format!("{:?}", HMAC.to_vec())), "{debug}");
}

#[test]
fn client_options() {
    let err = |text: &str| {
        new_client(Mechanism::ScramSha256, &parse_single(text).unwrap())
            .err()
            .unwrap()
            .to_string()
    };
    assert!(err("m required password=\"x\";").contains("'username'"));
    assert!(err("m required username=\"x\";").contains("'password'"));
    assert!(err("m required username=\"x\" password=\"\";").contains("'password'"));
    assert!(new_client(Mechanism::OAuthBearer, &jaas("a", "b", false)).is_err());
    assert!(new_client(Mechanism::Gssapi, &jaas("a", "b", false)).is_err());
    // tokenauth is case-insensitive, as in ScramLoginModule.
    let mut client = new_client(
        Mechanism::ScramSha256,
        &parse_single("m required username=\"t\" password=\"p\" tokenauth=\"TRUE\";").unwrap(),
    )
    .unwrap();
    let first = String::from_utf8(client.initial_response().unwrap()).unwrap();
    assert!(
        first.starts_with("n,,n=t,r=") && first.ends_with(",tokenauth=true"),
        "{first}"
    );
}

#[test]
fn mechanisms() {
    for (m, name) in [
        (Mechanism::Plain, "PLAIN"),
        (Mechanism::ScramSha256, "SCRAM-SHA-256"),
        (Mechanism::ScramSha512, "SCRAM-SHA-512"),
        (Mechanism::OAuthBearer, "OAUTHBEARER"),
        (Mechanism::Gssapi, "GSSAPI"),
    ] {
        assert_eq!(m.name(), name);
        assert_eq!(Mechanism::parse(name), Some(m));
    }
    assert_eq!(Mechanism::parse("scram-sha-256"), None);
    assert_eq!(ScramMechanism::Sha256.mechanism_name(), "SCRAM-SHA-256");
    assert_eq!(ScramMechanism::Sha512.mechanism_name(), "SCRAM-SHA-512");
    assert_eq!(ScramMechanism::Sha512.min_iterations(), 4096);
    assert_eq!(ScramMechanism::Sha512.max_iterations(), 16384);
    assert_eq!(
        ScramMechanism::from_type_id(1),
        Some(ScramMechanism::Sha256)
    );
    assert_eq!(
        ScramMechanism::from_type_id(2),
        Some(ScramMechanism::Sha512)
    );
    let config = config(MemoryCredentials::default());
    assert!(new_server(Mechanism::OAuthBearer, &config).is_none());
    assert!(new_server(Mechanism::Gssapi, &config).is_none());
}

#[test]
fn reauthentication_text() {
    let f = SaslFailure::invalid_credentials(Mechanism::ScramSha256, "x").for_reauthentication();
    assert_eq!(
        f.message,
        "Authentication failed during re-authentication due to invalid credentials with SASL mechanism SCRAM-SHA-256"
    );
}

#[allow(dead_code)]
fn credential_source_is_object_safe(_: &dyn CredentialSource, _: ScramCredential) {}
