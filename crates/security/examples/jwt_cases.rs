//! Writes the inputs of the golden JWT check: `tests/data/sasl/jwt_jwks.json`
//! (public keys) and `tests/data/sasl/jwt_cases.txt` (one `<name> <token>`
//! per line), signed with the RSA test keys and fresh EC, Ed25519 and HMAC
//! keys. Kafka's own validator then judges them
//! (`tests/data/sasl/run-kafka-jwt-vectors.sh`), and `tests/sasl_jwt_kafka.rs`
//! checks that kraft-rs agrees with every verdict.
//!
//! ```sh
//! cargo run -p kraft-security --example jwt_cases
//! ```
//!
//! Every token's times are far from today (issued 2023, expiring 2100, or
//! expired in 2001, or valid only from 2096), so the verdicts do not
//! depend on when they are computed.

#[path = "../tests/jwt_support/mod.rs"]
mod jwt_support;

use std::fmt::Write as _;

use jwt_support::{good_claims, with, TestKey};
use serde_json::{json, Value};

fn b64(text: &str) -> String {
    use base64::Engine;
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(text)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let rsa1 = TestKey::rsa("rsa-1");
    let rsa2 = TestKey::rsa("rsa-2");
    let p256 = TestKey::ec("P-256");
    let p384 = TestKey::ec("P-384");
    let ed = TestKey::ed25519();
    let mut secret = [0u8; 64];
    ring::rand::SecureRandom::fill(&ring::rand::SystemRandom::new(), &mut secret)
        .map_err(|_| "no random bytes")?;
    let hmac = TestKey::Oct(secret.to_vec());
    let short_hmac = TestKey::Oct(secret[..16].to_vec());
    let jwks = json!({"keys": [
        rsa1.jwk(Some("rsa-1"), json!({"use": "sig"})),
        rsa2.jwk(Some("rsa-2"), json!({"alg": "RS256"})),
        p256.jwk(Some("ec-256"), json!({})),
        p384.jwk(Some("ec-384"), json!({})),
        ed.jwk(Some("ed-1"), json!({})),
        hmac.jwk(Some("hmac-1"), json!({})),
        short_hmac.jwk(Some("hmac-short"), json!({})),
        rsa1.jwk(Some("rsa-enc"), json!({"use": "enc"})),
    ]});
    let h = |alg: &str, kid: &str| json!({"alg": alg, "kid": kid});
    let good = good_claims("alice");
    let bad = |changes: Value| with(good_claims("alice"), changes);
    let mut cases: Vec<(&str, String)> = vec![
        ("rs256", rsa1.sign("RS256", &h("RS256", "rsa-1"), &good)),
        ("rs384", rsa1.sign("RS384", &h("RS384", "rsa-1"), &good)),
        ("rs512", rsa1.sign("RS512", &h("RS512", "rsa-1"), &good)),
        ("ps256", rsa1.sign("PS256", &h("PS256", "rsa-1"), &good)),
        ("ps384", rsa1.sign("PS384", &h("PS384", "rsa-1"), &good)),
        ("ps512", rsa1.sign("PS512", &h("PS512", "rsa-1"), &good)),
        ("es256", p256.sign("ES256", &h("ES256", "ec-256"), &good)),
        ("es384", p384.sign("ES384", &h("ES384", "ec-384"), &good)),
        ("eddsa", ed.sign("EdDSA", &h("EdDSA", "ed-1"), &good)),
        ("hs256", hmac.sign("HS256", &h("HS256", "hmac-1"), &good)),
        ("hs512", hmac.sign("HS512", &h("HS512", "hmac-1"), &good)),
        (
            "hs256_short_key",
            short_hmac.sign("HS256", &h("HS256", "hmac-short"), &good),
        ),
        (
            "no_kid",
            rsa1.sign("RS256", &json!({"alg": "RS256"}), &good),
        ),
        (
            "typ_jwt",
            rsa1.sign(
                "RS256",
                &json!({"alg": "RS256", "kid": "rsa-1", "typ": "JWT"}),
                &good,
            ),
        ),
        (
            "rsa2_pinned_rs256",
            rsa2.sign("RS256", &h("RS256", "rsa-2"), &good),
        ),
        (
            "rsa2_pinned_ps256",
            rsa2.sign("PS256", &h("PS256", "rsa-2"), &good),
        ),
        (
            "use_enc_key",
            rsa1.sign("RS256", &h("RS256", "rsa-enc"), &good),
        ),
        (
            "bad_signature",
            rsa2.sign("RS256", &h("RS256", "rsa-1"), &good),
        ),
        (
            "unknown_kid",
            rsa1.sign("RS256", &h("RS256", "nope"), &good),
        ),
        (
            "es256_under_p384_kid",
            p256.sign("ES256", &h("ES256", "ec-384"), &good),
        ),
        (
            "hs256_under_rsa_kid",
            TestKey::Oct(b"0123456789abcdef0123456789abcdef".to_vec()).sign(
                "HS256",
                &h("HS256", "rsa-1"),
                &good,
            ),
        ),
        (
            "crit",
            rsa1.sign(
                "RS256",
                &json!({"alg": "RS256", "kid": "rsa-1", "crit": ["x"], "x": 1}),
                &good,
            ),
        ),
        (
            "expired",
            rsa1.sign(
                "RS256",
                &h("RS256", "rsa-1"),
                &bad(json!({"exp": 1_000_000_000i64, "iat": 999_000_000i64})),
            ),
        ),
        (
            "not_yet_valid",
            rsa1.sign(
                "RS256",
                &h("RS256", "rsa-1"),
                &bad(json!({"nbf": 4_000_000_000i64})),
            ),
        ),
        (
            "nbf_past",
            rsa1.sign(
                "RS256",
                &h("RS256", "rsa-1"),
                &bad(json!({"nbf": 1_600_000_000i64})),
            ),
        ),
        (
            "iat_future",
            rsa1.sign(
                "RS256",
                &h("RS256", "rsa-1"),
                &bad(json!({"iat": 4_000_000_000i64})),
            ),
        ),
        (
            "exp_before_iat",
            rsa1.sign(
                "RS256",
                &h("RS256", "rsa-1"),
                &bad(json!({"iat": 4_100_000_000i64, "exp": 4_000_000_000i64})),
            ),
        ),
        (
            "exp_before_nbf",
            rsa1.sign(
                "RS256",
                &h("RS256", "rsa-1"),
                &bad(json!({"nbf": 4_100_000_000i64, "exp": 4_000_000_000i64})),
            ),
        ),
        (
            "exp_equals_iat",
            rsa1.sign(
                "RS256",
                &h("RS256", "rsa-1"),
                &bad(json!({"iat": 4_000_000_000i64, "exp": 4_000_000_000i64})),
            ),
        ),
        (
            "no_iat",
            rsa1.sign("RS256", &h("RS256", "rsa-1"), &bad(json!({"iat": null}))),
        ),
        (
            "no_exp",
            rsa1.sign("RS256", &h("RS256", "rsa-1"), &bad(json!({"exp": null}))),
        ),
        (
            "exp_text",
            rsa1.sign(
                "RS256",
                &h("RS256", "rsa-1"),
                &bad(json!({"exp": "4102444800"})),
            ),
        ),
        (
            "exp_fraction",
            rsa1.sign(
                "RS256",
                &h("RS256", "rsa-1"),
                &bad(json!({"exp": 4_102_444_800.75f64})),
            ),
        ),
        (
            "wrong_aud",
            rsa1.sign("RS256", &h("RS256", "rsa-1"), &bad(json!({"aud": "other"}))),
        ),
        (
            "no_aud",
            rsa1.sign("RS256", &h("RS256", "rsa-1"), &bad(json!({"aud": null}))),
        ),
        (
            "aud_list",
            rsa1.sign(
                "RS256",
                &h("RS256", "rsa-1"),
                &bad(json!({"aud": ["other", "kraft-rs-test"]})),
            ),
        ),
        (
            "aud_number",
            rsa1.sign("RS256", &h("RS256", "rsa-1"), &bad(json!({"aud": 7}))),
        ),
        (
            "wrong_iss",
            rsa1.sign(
                "RS256",
                &h("RS256", "rsa-1"),
                &bad(json!({"iss": "https://evil.example"})),
            ),
        ),
        (
            "no_iss",
            rsa1.sign("RS256", &h("RS256", "rsa-1"), &bad(json!({"iss": null}))),
        ),
        (
            "no_sub",
            rsa1.sign("RS256", &h("RS256", "rsa-1"), &bad(json!({"sub": null}))),
        ),
        (
            "empty_sub",
            rsa1.sign("RS256", &h("RS256", "rsa-1"), &bad(json!({"sub": ""}))),
        ),
        (
            "blank_sub",
            rsa1.sign("RS256", &h("RS256", "rsa-1"), &bad(json!({"sub": "   "}))),
        ),
        (
            "padded_sub",
            rsa1.sign(
                "RS256",
                &h("RS256", "rsa-1"),
                &bad(json!({"sub": "  bob  "})),
            ),
        ),
        (
            "number_sub",
            rsa1.sign("RS256", &h("RS256", "rsa-1"), &bad(json!({"sub": 42}))),
        ),
        (
            "scope_text",
            rsa1.sign(
                "RS256",
                &h("RS256", "rsa-1"),
                &bad(json!({"scope": "read write"})),
            ),
        ),
        (
            "scope_list",
            rsa1.sign(
                "RS256",
                &h("RS256", "rsa-1"),
                &bad(json!({"scope": ["read", "write"]})),
            ),
        ),
        (
            "scope_duplicate",
            rsa1.sign(
                "RS256",
                &h("RS256", "rsa-1"),
                &bad(json!({"scope": ["read", "read"]})),
            ),
        ),
        (
            "scope_blank",
            rsa1.sign(
                "RS256",
                &h("RS256", "rsa-1"),
                &bad(json!({"scope": ["read", " "]})),
            ),
        ),
    ];
    // Hand-made malformed tokens from a good one.
    let token = rsa1.sign("RS256", &h("RS256", "rsa-1"), &good);
    let parts: Vec<String> = token.split('.').map(str::to_owned).collect();
    cases.push((
        "alg_none",
        format!("{}.{}.{}", b64(r#"{"alg":"none"}"#), parts[1], parts[2]),
    ));
    cases.push((
        "alg_none_unsigned",
        format!("{}.{}.", b64(r#"{"alg":"none"}"#), parts[1]),
    ));
    cases.push((
        "no_alg",
        format!("{}.{}.{}", b64(r#"{"kid":"rsa-1"}"#), parts[1], parts[2]),
    ));
    cases.push(("two_sections", format!("{}.{}", parts[0], parts[1])));
    cases.push(("four_sections", format!("{token}.{}", parts[2])));
    cases.push((
        "header_not_json",
        format!("{}.{}.{}", b64("not json"), parts[1], parts[2]),
    ));
    cases.push((
        "payload_not_object",
        format!("{}.{}.{}", parts[0], b64("[1,2]"), parts[2]),
    ));
    cases.push((
        "payload_swapped",
        format!(
            "{}.{}.{}",
            parts[0],
            b64(&good_claims("mallory").to_string()),
            parts[2]
        ),
    ));
    let mut text = String::from(
        "# Generated by `cargo run -p kraft-security --example jwt_cases`; judged by Kafka in kafka_jwt_vectors.txt.\n",
    );
    for (name, token) in &cases {
        writeln!(text, "{name} {token}")?;
    }
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/sasl");
    std::fs::write(dir.join("jwt_cases.txt"), text)?;
    std::fs::write(
        dir.join("jwt_jwks.json"),
        serde_json::to_string_pretty(&jwks)? + "\n",
    )?;
    println!("wrote {} cases to {}", cases.len(), dir.display());
    Ok(())
}
