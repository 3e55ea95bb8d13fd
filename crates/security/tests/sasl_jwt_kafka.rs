//! Agreement with Kafka 4.4's own JWT validator: every token of
//! `data/sasl/jwt_cases.txt` (made by `examples/jwt_cases.rs`) was judged
//! by Kafka's `BrokerJwtValidator` against `data/sasl/jwt_jwks.json`
//! (`data/sasl/run-kafka-jwt-vectors.sh`, output `kafka_jwt_vectors.txt`);
//! kraft-rs must reach the same verdict, principal and lifetime.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use kraft_security::sasl::jwks::JwtValidator;
use kraft_security::sasl::jwt::{ClaimRules, JwkSet};
use kraft_security::sasl::SaslServerConfig;

fn read(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/sasl")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn lines(text: &str) -> impl Iterator<Item = &str> {
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
}

#[test]
fn every_verdict_of_kafkas_validator_is_reached() {
    let keys = JwkSet::parse(&read("jwt_jwks.json")).expect("JWKS");
    // The settings run-kafka-jwt-vectors.sh gives Kafka.
    let validator = JwtValidator::with_keys(
        keys,
        ClaimRules {
            expected_audience: BTreeSet::from(["kraft-rs-test".to_owned()]),
            expected_issuer: Some("https://issuer.example".to_owned()),
            clock_skew_seconds: 30,
            scope_claim_name: "scope".into(),
            sub_claim_name: "sub".into(),
        },
    );
    let cases_text = read("jwt_cases.txt");
    let cases: BTreeMap<&str, &str> = lines(&cases_text)
        .map(|l| l.split_once(' ').unwrap_or((l, "")))
        .collect();
    let verdicts_text = read("kafka_jwt_vectors.txt");
    let now = SaslServerConfig::system_now_ms();
    let mut checked = 0;
    let mut accepted = 0;
    for line in lines(&verdicts_text) {
        let fields: Vec<&str> = line.split(' ').collect();
        let name = fields[0];
        let token = cases
            .get(name)
            .unwrap_or_else(|| panic!("{name}: no such case"));
        let ours = validator.validate(token, now);
        match fields.get(1).copied() {
            Some("ok") => {
                let t =
                    ours.unwrap_or_else(|e| panic!("{name}: Kafka accepts, kraft-rs refuses: {e}"));
                assert_eq!(
                    Some(t.principal_name.as_str()),
                    fields.get(2).copied(),
                    "{name}"
                );
                assert_eq!(
                    Some(t.lifetime_ms.to_string().as_str()),
                    fields.get(3).copied(),
                    "{name}"
                );
                accepted += 1;
            }
            Some("refused") => {
                if let Ok(t) = ours {
                    panic!("{name}: Kafka refuses, kraft-rs accepts {t:?}");
                }
            }
            other => panic!("{name}: unexpected verdict {other:?}"),
        }
        checked += 1;
    }
    assert_eq!(checked, cases.len(), "every case has Kafka's verdict");
    assert!(
        accepted > 5 && accepted < checked,
        "{accepted} of {checked} accepted"
    );
}
