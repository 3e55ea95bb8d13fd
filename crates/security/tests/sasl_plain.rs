//! SASL/PLAIN: the cases of Kafka's `PlainSaslServerTest` and whole
//! client/server exchanges.

#![allow(clippy::unwrap_used)]

use std::collections::BTreeMap;
use std::sync::Arc;

use kraft_security::jaas::parse_single;
use kraft_security::sasl::{
    new_client, new_server, Mechanism, NoCredentials, SaslFailureKind, SaslServer,
    SaslServerConfig, ServerStep,
};
use kraft_security::Secret;

const USER_A: &str = "userA";
const PASSWORD_A: &str = "passwordA";
const USER_B: &str = "userB";
const PASSWORD_B: &str = "passwordB";

fn now() -> i64 {
    0
}

fn config() -> SaslServerConfig {
    let entry = parse_single(&format!(
        "org.apache.kafka.common.security.plain.PlainLoginModule required user_{USER_A}=\"{PASSWORD_A}\" user_{USER_B}=\"{PASSWORD_B}\";"
    ))
    .unwrap();
    SaslServerConfig {
        plain_users: SaslServerConfig::plain_users_from_jaas(&entry),
        credentials: Arc::new(NoCredentials),
        now_ms: now,
    }
}

fn server() -> Box<dyn SaslServer> {
    new_server(Mechanism::Plain, &config()).unwrap()
}

fn message(authzid: &str, user: &str, password: &str) -> Vec<u8> {
    format!("{authzid}\0{user}\0{password}").into_bytes()
}

fn complete(step: ServerStep) -> (Vec<u8>, String, bool) {
    match step {
        ServerStep::Complete {
            final_message,
            authorization_id,
            token_authenticated,
        } => (final_message, authorization_id, token_authenticated),
        other => panic!("{other:?}"),
    }
}

#[test]
fn plain_users_come_from_user_options() {
    let users = config().plain_users;
    assert_eq!(users.len(), 2);
    assert_eq!(users[USER_A].expose(), PASSWORD_A);
    assert_eq!(format!("{users:?}").matches("[hidden]").count(), 2);
    assert!(!format!("{users:?}").contains(PASSWORD_A));
}

#[test]
fn no_authorization_id_specified() {
    let (final_message, id, token) =
        complete(server().evaluate(&message("", USER_A, PASSWORD_A)).unwrap());
    assert!(final_message.is_empty());
    assert_eq!(id, USER_A);
    assert!(!token);
}

#[test]
fn authorization_id_equals_authentication_id() {
    let (final_message, id, _) = complete(
        server()
            .evaluate(&message(USER_A, USER_A, PASSWORD_A))
            .unwrap(),
    );
    assert!(final_message.is_empty());
    assert_eq!(id, USER_A);
}

#[test]
fn authorization_id_not_equals_authentication_id() {
    let failure = server()
        .evaluate(&message(USER_B, USER_A, PASSWORD_A))
        .unwrap_err();
    assert_eq!(failure.kind, SaslFailureKind::Authentication);
    assert_eq!(
        failure.message,
        "Authentication failed: Client requested an authorization id that is different from username"
    );
}

#[test]
fn empty_tokens() {
    let cases: [(&[u8], &str); 8] = [
        (
            &message("", "", ""),
            "Authentication failed: username not specified",
        ),
        (
            &message("", "", "p"),
            "Authentication failed: username not specified",
        ),
        (
            &message("", "u", ""),
            "Authentication failed: password not specified",
        ),
        (
            &message("a", "", ""),
            "Authentication failed: username not specified",
        ),
        (
            &message("a", "", "p"),
            "Authentication failed: username not specified",
        ),
        (
            &message("a", "u", ""),
            "Authentication failed: password not specified",
        ),
        (
            b"a\0u\0p\0",
            "Invalid SASL/PLAIN response: expected 3 tokens, got 4",
        ),
        (
            b"\0u",
            "Invalid SASL/PLAIN response: expected 3 tokens, got 2",
        ),
    ];
    for (bytes, expected) in cases {
        let failure = server().evaluate(bytes).unwrap_err();
        assert_eq!(failure.kind, SaslFailureKind::Authentication);
        assert_eq!(failure.message, expected, "{bytes:?}");
    }
    assert_eq!(
        server().evaluate(b"no nul at all").unwrap_err().message,
        "Invalid SASL/PLAIN response: expected 3 tokens, got 1"
    );
    assert_eq!(
        server().evaluate(b"a\0b\0c\0d\0e").unwrap_err().message,
        "Invalid SASL/PLAIN response: expected 3 tokens, got 4"
    );
}

#[test]
fn wrong_password_and_unknown_user() {
    for (user, password) in [
        (USER_A, PASSWORD_B),
        (USER_A, "passwordA "),
        ("nobody", PASSWORD_A),
        (USER_A, "password"),
    ] {
        let failure = server().evaluate(&message("", user, password)).unwrap_err();
        assert_eq!(failure.kind, SaslFailureKind::Authentication);
        assert_eq!(
            failure.message,
            "Authentication failed: Invalid username or password"
        );
    }
}

#[test]
fn after_completion_the_server_takes_nothing_more() {
    let mut server = server();
    complete(server.evaluate(&message("", USER_A, PASSWORD_A)).unwrap());
    assert_eq!(
        server
            .evaluate(&message("", USER_A, PASSWORD_A))
            .unwrap_err()
            .kind,
        SaslFailureKind::IllegalState
    );
}

fn client_jaas(user: &str, password: &str) -> kraft_security::jaas::JaasEntry {
    parse_single(&format!(
        "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"{user}\" password=\"{password}\";"
    ))
    .unwrap()
}

#[test]
fn full_exchanges() {
    for (user, password, ok) in [
        (USER_A, PASSWORD_A, true),
        (USER_B, PASSWORD_B, true),
        (USER_A, PASSWORD_B, false),
        ("nobody", PASSWORD_A, false),
    ] {
        let mut client = new_client(Mechanism::Plain, &client_jaas(user, password)).unwrap();
        let first = client.initial_response().unwrap();
        assert_eq!(first, message("", user, password));
        assert!(client.is_complete());
        let mut server = server();
        match server.evaluate(&first) {
            Ok(step) => {
                assert!(ok);
                let (final_message, id, token) = complete(step);
                assert_eq!(id, user);
                assert!(!token);
                assert_eq!(client.evaluate_challenge(&final_message).unwrap(), None);
            }
            Err(failure) => {
                assert!(!ok);
                assert_eq!(
                    failure.message,
                    "Authentication failed: Invalid username or password"
                );
            }
        }
    }
}

#[test]
fn client_sends_its_message_once() {
    let mut client = new_client(Mechanism::Plain, &client_jaas("u", "p")).unwrap();
    assert_eq!(
        client.evaluate_challenge(b"").unwrap(),
        Some(b"\0u\0p".to_vec())
    );
    assert_eq!(client.evaluate_challenge(b"").unwrap(), None);
    assert_eq!(
        client.evaluate_challenge(b"more").unwrap_err().kind,
        SaslFailureKind::IllegalState
    );
    assert_eq!(
        client.initial_response().unwrap_err().kind,
        SaslFailureKind::IllegalState
    );
}

/// The password never shows in a failure's message or log detail.
#[test]
fn passwords_never_in_failures() {
    let secret = "Pl41n-Secret-Value";
    let mut users = BTreeMap::new();
    users.insert("alice".to_owned(), Secret::new(secret));
    let config = SaslServerConfig {
        plain_users: users,
        credentials: Arc::new(NoCredentials),
        now_ms: now,
    };
    let attempts: Vec<Vec<u8>> = vec![
        message("", "alice", &format!("{secret}x")),
        message("", "alice", &secret[..secret.len() - 1]),
        message("", "bob", secret),
        message("bob", "alice", secret),
        message("", "", secret),
        format!("{secret}\0alice\0{secret}\0{secret}").into_bytes(),
        secret.as_bytes().to_vec(),
    ];
    for attempt in attempts {
        let failure = new_server(Mechanism::Plain, &config)
            .unwrap()
            .evaluate(&attempt)
            .unwrap_err();
        for text in [
            &failure.message,
            &failure.log_detail,
            &format!("{failure:?}"),
            &failure.to_string(),
        ] {
            assert!(!text.contains(secret), "{text}");
            assert!(!text.contains(&secret[..secret.len() - 1]), "{text}");
        }
    }
}
