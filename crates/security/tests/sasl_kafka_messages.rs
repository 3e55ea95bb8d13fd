//! Every SCRAM and OAUTHBEARER message of `tests/data/sasl/message_cases.txt`
//! against what Kafka 4.4's own `ScramMessages` and
//! `OAuthBearerClientInitialResponse` made of it
//! (`tests/data/sasl/kafka_vectors.txt`, written by `run-kafka-vectors.sh`).

#![allow(clippy::unwrap_used)]

use std::collections::BTreeMap;

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use kraft_security::sasl::oauthbearer::ClientInitialResponse;
use kraft_security::sasl::scram_messages::{
    ClientFinalMessage, ClientFirstMessage, ServerFinalMessage, ServerFirstMessage,
};

mod kafka_vectors;
use kafka_vectors::{escape, unescape, vector};

const CASES: &str = include_str!("data/sasl/message_cases.txt");

fn sorted(map: &BTreeMap<String, String>) -> String {
    map.iter()
        .map(|(k, v)| format!("{}={}", escape(k), escape(v)))
        .collect::<Vec<_>>()
        .join(";")
}

fn describe(kind: &str, bytes: &[u8]) -> Result<String, String> {
    Ok(match kind {
        "cf" => {
            let m = ClientFirstMessage::parse(bytes).map_err(|e| e.reason)?;
            format!(
                "{}|{}|{}|{}|{}",
                escape(&m.sasl_name),
                escape(&m.nonce),
                escape(&m.authorization_id),
                m.token_authenticated(),
                sorted(&m.extensions)
            )
        }
        "sf" => {
            let m = ServerFirstMessage::parse(bytes).map_err(|e| e.reason)?;
            format!(
                "{}|{}|{}",
                escape(&m.nonce),
                STANDARD.encode(&m.salt),
                m.iterations
            )
        }
        "cfin" => {
            let m = ClientFinalMessage::parse(bytes).map_err(|e| e.reason)?;
            format!(
                "{}|{}|{}",
                STANDARD.encode(&m.channel_binding),
                escape(&m.nonce),
                STANDARD.encode(&m.proof)
            )
        }
        "sfin" => match ServerFinalMessage::parse(bytes).map_err(|e| e.reason)? {
            ServerFinalMessage::Error(e) => format!("e={}", escape(&e)),
            ServerFinalMessage::Signature(s) => format!("v={}", STANDARD.encode(s)),
        },
        "oauth" => {
            let m = ClientInitialResponse::parse(bytes)?;
            format!(
                "{}|{}|{}",
                escape(&m.token),
                escape(&m.authorization_id),
                sorted(&m.extensions)
            )
        }
        other => panic!("unknown kind {other}"),
    })
}

#[test]
fn every_message_parses_as_kafka_4_4_parses_it() {
    let mut checked = 0;
    for (i, line) in CASES.lines().enumerate() {
        let (kind, text) = line.split_once(' ').unwrap();
        let text = unescape(text);
        let expected = vector(&format!("msg.{i}"));
        let got = describe(kind, text.as_bytes());
        match (
            expected.strip_prefix("OK "),
            expected.strip_prefix("ERR SaslException: "),
        ) {
            (Some(fields), _) => assert_eq!(got.as_deref(), Ok(fields), "case {i}: {line:?}"),
            (None, Some(reason)) => assert_eq!(got, Err(reason.to_owned()), "case {i}: {line:?}"),
            // Kafka fails with an unchecked exception here (a bug of its
            // parser); any refusal will do.
            (None, None) => assert!(
                got.is_err(),
                "case {i}: {line:?} gave {got:?}, Kafka {expected}"
            ),
        }
        checked += 1;
    }
    assert!(checked >= 100, "only {checked} cases");
}
