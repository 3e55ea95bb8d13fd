//! The cases of Kafka's `ScramMessagesTest`: which SCRAM messages parse, and
//! to what.

#![allow(clippy::unwrap_used)]

use std::collections::BTreeMap;

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use kraft_security::sasl::scram::{secure_random_string, username};
use kraft_security::sasl::scram_messages::{
    ClientFinalMessage, ClientFirstMessage, ServerFinalMessage, ServerFirstMessage,
};

const VALID_EXTENSIONS: &[&str] = &[
    "ext=val1",
    "anotherext=name1=value1 name2=another test value \"'!$[]()",
    "first=val1,second=name1 = value ,third=123",
];
const INVALID_EXTENSIONS: &[&str] = &[
    "ext1=value",
    "ext",
    "ext=value1,value2",
    "ext=,",
    "ext =value",
];
const VALID_RESERVED: &[&str] = &[
    "m=reserved-value",
    "m=name1=value1 name2=another test value \"'!$[]()",
];
const INVALID_RESERVED: &[&str] = &["m", "m=name,value", "m=,"];

fn nonce() -> String {
    secure_random_string().unwrap()
}

fn random_base64() -> String {
    STANDARD.encode(nonce().as_bytes())
}

fn client_first(text: &str) -> ClientFirstMessage {
    ClientFirstMessage::parse(text.as_bytes()).unwrap_or_else(|e| panic!("{text:?}: {e}"))
}

fn check_client_first(m: &ClientFirstMessage, sasl_name: &str, nonce: &str, authzid: &str) {
    assert_eq!(m.sasl_name, sasl_name);
    assert_eq!(m.nonce, nonce);
    assert_eq!(m.authorization_id, authzid);
}

#[test]
fn valid_client_first_message() {
    let nonce = nonce();
    let m = ClientFirstMessage::new("someuser", &nonce, BTreeMap::new());
    check_client_first(&m, "someuser", &nonce, "");

    let m = client_first(&format!("n,,n=testuser,r={nonce}"));
    check_client_first(&m, "testuser", &nonce, "");
    let m = client_first(&m.to_message());
    check_client_first(&m, "testuser", &nonce, "");

    let m = client_first(&format!("n,,n=test=2Cuser,r={nonce}"));
    check_client_first(&m, "test=2Cuser", &nonce, "");
    assert_eq!(username(&m.sasl_name).unwrap(), "test,user");

    let m = client_first(&format!("n,,n=test=3Duser,r={nonce}"));
    check_client_first(&m, "test=3Duser", &nonce, "");
    assert_eq!(username(&m.sasl_name).unwrap(), "test=user");

    let m = client_first(&format!("n,a=testauthzid,n=testuser,r={nonce}"));
    check_client_first(&m, "testuser", &nonce, "testauthzid");

    for reserved in VALID_RESERVED {
        let m = client_first(&format!("n,,{reserved},n=testuser,r={nonce}"));
        check_client_first(&m, "testuser", &nonce, "");
    }
    for extension in VALID_EXTENSIONS {
        let m = client_first(&format!("n,,n=testuser,r={nonce},{extension}"));
        check_client_first(&m, "testuser", &nonce, "");
        assert!(!m.token_authenticated());
    }
    let m = client_first(&format!("n,,n=testuser,r={nonce},tokenauth=true"));
    assert!(
        m.token_authenticated(),
        "Token authentication not set from extensions"
    );
    let m = client_first(&format!("n,,n=testuser,r={nonce},tokenauth=TRUE"));
    assert!(m.token_authenticated());
    let m = client_first(&format!("n,,n=testuser,r={nonce},tokenauth=yes"));
    assert!(!m.token_authenticated());
}

#[test]
fn invalid_client_first_message() {
    let nonce = nonce();
    let mut invalid = vec![format!("n,x=something,n=testuser,r={nonce}")];
    for reserved in INVALID_RESERVED {
        invalid.push(format!("n,,{reserved},n=testuser,r={nonce}"));
    }
    for extension in INVALID_EXTENSIONS {
        invalid.push(format!("n,,n=testuser,r={nonce},{extension}"));
    }
    // Beyond Kafka's test: the other gs2 flags, bad saslnames, nonces.
    invalid.extend([
        format!("y,,n=testuser,r={nonce}"),
        format!("p=tls-unique,,n=testuser,r={nonce}"),
        format!("n,,n=test=user,r={nonce}"),
        format!("n,,n=test=2cuser,r={nonce}"),
        format!("n,,n=,r={nonce}"),
        "n,,n=testuser,r=".to_owned(),
        "n,,n=testuser,r=a b".to_owned(),
        format!("n,,n=t\u{e9}st,r={nonce}"),
        format!("n,,n=testuser,r={nonce},"),
        format!("n,,r={nonce},n=testuser"),
        format!("n,a=,n=testuser,r={nonce}"),
        format!("n,,n=testuser,r={nonce}\0"),
        "\0user\0password".to_owned(),
    ]);
    for text in &invalid {
        let e = ClientFirstMessage::parse(text.as_bytes()).expect_err(text);
        assert_eq!(e.reason, "Invalid SCRAM client first message format");
    }
}

fn check_server_first(m: &ServerFirstMessage, nonce: &str, salt: &str, iterations: i32) {
    assert_eq!(m.nonce, nonce);
    assert_eq!(m.salt, STANDARD.decode(salt).unwrap());
    assert_eq!(m.iterations, iterations);
}

fn server_first(text: &str) -> ServerFirstMessage {
    ServerFirstMessage::parse(text.as_bytes()).unwrap_or_else(|e| panic!("{text:?}: {e}"))
}

#[test]
fn valid_server_first_message() {
    let client_nonce = nonce();
    let server_nonce = nonce();
    let nonce = format!("{client_nonce}{server_nonce}");
    let salt = random_base64();

    let m = ServerFirstMessage::new(
        &client_nonce,
        &server_nonce,
        &STANDARD.decode(&salt).unwrap(),
        8192,
    );
    check_server_first(&m, &nonce, &salt, 8192);

    let m = server_first(&format!("r={nonce},s={salt},i=4096"));
    check_server_first(&m, &nonce, &salt, 4096);
    let m = server_first(m.to_message());
    check_server_first(&m, &nonce, &salt, 4096);

    for reserved in VALID_RESERVED {
        check_server_first(
            &server_first(&format!("{reserved},r={nonce},s={salt},i=4096")),
            &nonce,
            &salt,
            4096,
        );
    }
    for extension in VALID_EXTENSIONS {
        check_server_first(
            &server_first(&format!("r={nonce},s={salt},i=4096,{extension}")),
            &nonce,
            &salt,
            4096,
        );
    }
}

#[test]
fn invalid_server_first_message() {
    let nonce = nonce();
    let salt = random_base64();
    let mut invalid = vec![
        (
            format!("r={nonce},s={salt},i=0"),
            "Invalid SCRAM server first message format: invalid iterations 0",
        ),
        (
            format!("r={nonce},s==123,i=4096"),
            "Invalid SCRAM server first message format",
        ),
        (
            format!("r={nonce},invalid,s={salt},i=4096"),
            "Invalid SCRAM server first message format",
        ),
        (
            format!("r={nonce},s={salt},i=2147483648"),
            "Invalid SCRAM server first message format: invalid iterations",
        ),
        (
            format!("r={nonce},s={salt},i=-1"),
            "Invalid SCRAM server first message format",
        ),
        (
            format!("r={nonce},s={salt},i="),
            "Invalid SCRAM server first message format",
        ),
    ];
    for reserved in INVALID_RESERVED {
        invalid.push((
            format!("{reserved},r={nonce},s={salt},i=4096"),
            "Invalid SCRAM server first message format",
        ));
    }
    for extension in INVALID_EXTENSIONS {
        invalid.push((
            format!("r={nonce},s={salt},i=4096,{extension}"),
            "Invalid SCRAM server first message format",
        ));
    }
    for (text, reason) in &invalid {
        let e = ServerFirstMessage::parse(text.as_bytes()).expect_err(text);
        assert_eq!(e.reason, *reason, "{text}");
    }
}

fn check_client_final(m: &ClientFinalMessage, channel_binding: &str, nonce: &str, proof: &str) {
    assert_eq!(m.channel_binding, STANDARD.decode(channel_binding).unwrap());
    assert_eq!(m.nonce, nonce);
    assert_eq!(m.proof, STANDARD.decode(proof).unwrap());
}

fn client_final(text: &str) -> ClientFinalMessage {
    ClientFinalMessage::parse(text.as_bytes()).unwrap_or_else(|e| panic!("{text:?}: {e}"))
}

#[test]
fn valid_client_final_message() {
    let nonce = nonce();
    let channel_binding = random_base64();
    let proof = random_base64();

    let m = ClientFinalMessage::new(
        &STANDARD.decode(&channel_binding).unwrap(),
        &nonce,
        STANDARD.decode(&proof).unwrap(),
    );
    check_client_final(&m, &channel_binding, &nonce, &proof);

    let m = client_final(&format!("c={channel_binding},r={nonce},p={proof}"));
    check_client_final(&m, &channel_binding, &nonce, &proof);
    assert_eq!(m.without_proof(), format!("c={channel_binding},r={nonce}"));
    let m = client_final(&m.to_message());
    check_client_final(&m, &channel_binding, &nonce, &proof);

    for extension in VALID_EXTENSIONS {
        let m = client_final(&format!(
            "c={channel_binding},r={nonce},{extension},p={proof}"
        ));
        check_client_final(&m, &channel_binding, &nonce, &proof);
        assert_eq!(
            m.without_proof(),
            format!("c={channel_binding},r={nonce},{extension}")
        );
    }
}

#[test]
fn invalid_client_final_message() {
    let nonce = nonce();
    let channel_binding = random_base64();
    let proof = random_base64();
    let mut invalid = vec![
        format!("c=ab,r={nonce},p={proof}"),
        format!("c={channel_binding},r={nonce},p=123"),
        format!("c={channel_binding},r={nonce}"),
        format!("c={channel_binding},p={proof}"),
        format!("r={nonce},c={channel_binding},p={proof}"),
    ];
    for extension in INVALID_EXTENSIONS {
        invalid.push(format!(
            "c={channel_binding},r={nonce},{extension},p={proof}"
        ));
    }
    for text in &invalid {
        let e = ClientFinalMessage::parse(text.as_bytes()).expect_err(text);
        assert_eq!(e.reason, "Invalid SCRAM client final message format");
    }
    // Kafka's test also feeds the first two to the client *first* parser.
    for text in &invalid[..2] {
        assert!(ClientFirstMessage::parse(text.as_bytes()).is_err());
    }
}

#[test]
fn valid_server_final_message() {
    let signature = random_base64();
    let sig_bytes = STANDARD.decode(&signature).unwrap();

    let m = ServerFinalMessage::Error("unknown-user".into());
    assert_eq!(m.to_message(), "e=unknown-user");
    let m = ServerFinalMessage::Signature(sig_bytes.clone());
    assert_eq!(m.to_message(), format!("v={signature}"));

    let m = ServerFinalMessage::parse(format!("v={signature}").as_bytes()).unwrap();
    assert_eq!(m, ServerFinalMessage::Signature(sig_bytes.clone()));
    assert_eq!(
        ServerFinalMessage::parse(m.to_message().as_bytes()).unwrap(),
        m
    );

    let m = ServerFinalMessage::parse(b"e=other-error").unwrap();
    assert_eq!(m, ServerFinalMessage::Error("other-error".into()));
    assert_eq!(
        ServerFinalMessage::parse(m.to_message().as_bytes()).unwrap(),
        m
    );

    for extension in VALID_EXTENSIONS {
        let m = ServerFinalMessage::parse(format!("v={signature},{extension}").as_bytes()).unwrap();
        assert_eq!(m, ServerFinalMessage::Signature(sig_bytes.clone()));
    }
}

#[test]
fn invalid_server_final_message() {
    let signature = random_base64();
    let mut invalid = vec![
        "e=error1,error2".to_owned(),
        "v=1=23".to_owned(),
        "e=".to_owned(),
        "x=abcd".to_owned(),
    ];
    for extension in INVALID_EXTENSIONS {
        invalid.push(format!("v={signature},{extension}"));
        invalid.push(format!("e=unknown-user,{extension}"));
    }
    for text in &invalid {
        let e = ServerFinalMessage::parse(text.as_bytes()).expect_err(text);
        assert_eq!(e.reason, "Invalid SCRAM server final message format");
    }
}

/// Java's decoder ignores bits after the last whole byte; so does ours.
#[test]
fn base64_is_read_like_java() {
    let m = ServerFinalMessage::parse(b"v=QR==").unwrap();
    assert_eq!(m, ServerFinalMessage::Signature(vec![0x41]));
    let m = ServerFinalMessage::parse(b"v=").unwrap();
    assert_eq!(m, ServerFinalMessage::Signature(vec![]));
}
