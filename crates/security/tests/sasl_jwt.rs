//! OAUTHBEARER with signed JWTs: Kafka's broker JWT validator's rules (keys
//! from a JWKS by `kid`/type/curve, `exp`/`iat` required, `nbf`, clock
//! skew, audience, issuer, subject), its settings and refusals, the JWKS
//! file re-read on change, a JWKS over HTTP refreshed for an unknown `kid`,
//! and the OAUTHBEARER server and client around it.

mod jwt_support;

use std::collections::BTreeSet;
use std::io::{Read, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use jwt_support::{good_claims, with, TestKey, AUDIENCE, ISSUER};
use kraft_security::jaas;
use kraft_security::sasl::jwks::{AllowedUrls, JwtValidator, JwtValidatorConfig};
use kraft_security::sasl::jwt::{ClaimRules, JwkSet};
use kraft_security::sasl::oauthbearer::{
    ClientInitialResponse, OAuthBearerServer, TokenFile, TokenValidator,
};
use kraft_security::sasl::{SaslClient, SaslFailureKind, SaslServer, ServerStep};
use serde_json::{json, Value};

/// 2024-01-01T00:00:00Z in ms.
const NOW_MS: i64 = 1_704_067_200_000;
const NOW_S: i64 = NOW_MS / 1000;

fn rules() -> ClaimRules {
    ClaimRules {
        expected_audience: BTreeSet::from([AUDIENCE.to_owned()]),
        expected_issuer: Some(ISSUER.to_owned()),
        ..ClaimRules::default()
    }
}

struct Keys {
    rsa1: TestKey,
    rsa2: TestKey,
    p256: TestKey,
    p384: TestKey,
    ed: TestKey,
}

fn keys() -> Keys {
    Keys {
        rsa1: TestKey::rsa("rsa-1"),
        rsa2: TestKey::rsa("rsa-2"),
        p256: TestKey::ec("P-256"),
        p384: TestKey::ec("P-384"),
        ed: TestKey::ed25519(),
    }
}

fn jwks(k: &Keys) -> Value {
    json!({"keys": [
        k.rsa1.jwk(Some("rsa-1"), json!({"use": "sig"})),
        k.p256.jwk(Some("ec-256"), json!({})),
        k.p384.jwk(Some("ec-384"), json!({})),
        k.ed.jwk(Some("ed-1"), json!({})),
        {"kty": "unknown-type", "kid": "skipped"}
    ]})
}

fn validator(k: &Keys) -> JwtValidator {
    let set = JwkSet::parse(&jwks(k).to_string()).expect("JWKS");
    assert_eq!(set.keys.len(), 4, "the unknown key type is skipped");
    JwtValidator::with_keys(set, rules())
}

fn header(alg: &str, kid: &str) -> Value {
    json!({"alg": alg, "kid": kid, "typ": "JWT"})
}

#[test]
fn every_supported_algorithm_is_accepted_with_good_claims() {
    let k = keys();
    let v = validator(&k);
    let cases = [
        (&k.rsa1, "RS256", "rsa-1"),
        (&k.rsa1, "RS384", "rsa-1"),
        (&k.rsa1, "RS512", "rsa-1"),
        (&k.rsa1, "PS256", "rsa-1"),
        (&k.rsa1, "PS512", "rsa-1"),
        (&k.p256, "ES256", "ec-256"),
        (&k.p384, "ES384", "ec-384"),
        (&k.ed, "EdDSA", "ed-1"),
    ];
    for (key, alg, kid) in cases {
        let token = key.sign(alg, &header(alg, kid), &good_claims(" alice "));
        let accepted = v
            .validate(&token, NOW_MS)
            .unwrap_or_else(|e| panic!("{alg}: {e}"));
        assert_eq!(
            accepted.principal_name, "alice",
            "{alg}: the subject, trimmed"
        );
        assert_eq!(accepted.lifetime_ms, 4_102_444_800_000, "{alg}");
        assert_eq!(accepted.start_time_ms, Some(1_700_000_000_000), "{alg}");
    }
    // Without a kid, the first key of the token's type is used.
    let token = k
        .rsa1
        .sign("RS256", &json!({"alg": "RS256"}), &good_claims("bob"));
    assert_eq!(
        v.validate(&token, NOW_MS).expect("no kid").principal_name,
        "bob"
    );
}

fn refused(v: &JwtValidator, token: &str, now_ms: i64) -> String {
    match v.validate(token, now_ms) {
        Ok(t) => panic!("accepted a token that must be refused: {t:?}"),
        Err(reason) => reason,
    }
}

#[test]
fn signatures_keys_and_algorithms_are_refused_as_kafka_refuses_them() {
    let k = keys();
    let v = validator(&k);
    let good = good_claims("alice");
    // Signed by another key under the known kid.
    let forged = k.rsa2.sign("RS256", &header("RS256", "rsa-1"), &good);
    assert!(refused(&v, &forged, NOW_MS).contains("signature is invalid"));
    // A kid the set does not have.
    let unknown = k.rsa1.sign("RS256", &header("RS256", "nope"), &good);
    assert!(refused(&v, &unknown, NOW_MS).contains("Unable to find a suitable verification key"));
    // An ES256 token under the P-384 key's kid: the curve must fit.
    let curve = k.p256.sign("ES256", &header("ES256", "ec-384"), &good);
    assert!(refused(&v, &curve, NOW_MS).contains("Unable to find a suitable verification key"));
    // HS256 keyed with the RSA modulus: no oct key, so no key at all.
    let confused = TestKey::Oct(k.rsa1.jwk(None, json!({}))["n"].to_string().into_bytes()).sign(
        "HS256",
        &header("HS256", "rsa-1"),
        &good,
    );
    assert!(refused(&v, &confused, NOW_MS).contains("Unable to find a suitable verification key"));
    // alg none, even with something in the signature section.
    let mut parts: Vec<String> = forged.split('.').map(str::to_owned).collect();
    parts[0] = base64_url(&json!({"alg": "none"}).to_string());
    assert!(refused(&v, &parts.join("."), NOW_MS).contains("'none'"));
    // Kafka's unsecured token (empty signature) is malformed here.
    let unsecured = format!("{}.{}.", parts[0], parts[1]);
    assert_eq!(
        refused(&v, &unsecured, NOW_MS),
        "Malformed JWT provided; expected three sections (header, payload, and signature)"
    );
    // A critical header nobody understands.
    let crit = k.rsa1.sign(
        "RS256",
        &json!({"alg": "RS256", "kid": "rsa-1", "crit": ["exp"], "exp": 1}),
        &good,
    );
    assert!(refused(&v, &crit, NOW_MS).contains("crit"));
    // An algorithm not verified here.
    let es999 = k.rsa1.sign("RS256", &header("ES999", "rsa-1"), &good);
    assert!(refused(&v, &es999, NOW_MS).contains("ES999 is not supported"));
    // A JWK's own `alg` is not looked at (Kafka verifies a PS256 token with
    // a key marked RS256).
    let pinned = JwtValidator::with_keys(
        JwkSet::parse(
            &json!({"keys": [k.rsa1.jwk(Some("rsa-1"), json!({"alg": "RS256"}))]}).to_string(),
        )
        .expect("JWKS"),
        rules(),
    );
    let ps = k.rsa1.sign("PS256", &header("PS256", "rsa-1"), &good);
    assert!(pinned.validate(&ps, NOW_MS).is_ok());
    let rs = k.rsa1.sign("RS256", &header("RS256", "rsa-1"), &good);
    assert!(pinned.validate(&rs, NOW_MS).is_ok());
}

fn base64_url(text: &str) -> String {
    use base64::Engine;
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(text)
}

#[test]
fn malformed_tokens_are_refused_without_echoing_them() {
    let k = keys();
    let v = validator(&k);
    let token = k
        .rsa1
        .sign("RS256", &header("RS256", "rsa-1"), &good_claims("alice"));
    let parts: Vec<&str> = token.split('.').collect();
    let cases = [
        String::new(),
        "   ".to_owned(),
        format!("{}.{}", parts[0], parts[1]),
        format!("{}..{}", parts[0], parts[2]),
        format!("{token}.{}", parts[2]),
        format!("{}.{}.{}", base64_url("not json"), parts[1], parts[2]),
        format!("{}.{}.{}", parts[0], base64_url("[1,2]"), parts[2]),
        format!("{}.{}.!!", parts[0], parts[1]),
        format!("{}.{}.{}", "%%%", parts[1], parts[2]),
    ];
    for case in cases {
        let reason = refused(&v, &case, NOW_MS);
        assert!(
            case.len() < 10 || !reason.contains(&case),
            "the reason repeats the token: {reason}"
        );
    }
}

#[test]
fn time_claims_follow_the_clock_skew() {
    let k = keys();
    let v = validator(&k);
    let sign = |changes: Value| {
        k.rsa1.sign(
            "RS256",
            &header("RS256", "rsa-1"),
            &with(good_claims("alice"), changes),
        )
    };
    // exp: refused from exp + skew on.
    let exp = sign(json!({"exp": NOW_S - 29}));
    assert!(v.validate(&exp, NOW_MS).is_ok(), "within the 30 s skew");
    let exp = sign(json!({"exp": NOW_S - 30}));
    assert!(refused(&v, &exp, NOW_MS).contains("no longer valid"));
    // nbf: refused while now + skew is before it.
    let nbf = sign(json!({"nbf": NOW_S + 30}));
    assert!(v.validate(&nbf, NOW_MS).is_ok(), "within the 30 s skew");
    let nbf = sign(json!({"nbf": NOW_S + 31}));
    assert!(refused(&v, &nbf, NOW_MS).contains("not yet valid"));
    // exp may not be before iat or nbf.
    let backwards = sign(json!({"iat": NOW_S + 100, "exp": NOW_S + 99}));
    assert!(refused(&v, &backwards, NOW_MS).contains("cannot be before the Issued At"));
    let backwards = sign(json!({"nbf": NOW_S + 100, "exp": NOW_S + 99}));
    assert!(refused(&v, &backwards, NOW_MS).contains("cannot be before the Not Before"));
    // exp and iat are required and must be numbers.
    assert!(refused(&v, &sign(json!({"exp": null})), NOW_MS).contains("Expiration Time (exp)"));
    assert!(refused(&v, &sign(json!({"iat": null})), NOW_MS).contains("Issued At (iat)"));
    assert!(refused(&v, &sign(json!({"exp": "4102444800"})), NOW_MS).contains("'exp'"));
    // A larger skew accepts more.
    let lenient = JwtValidator::with_keys(
        JwkSet::parse(&jwks(&k).to_string()).expect("JWKS"),
        ClaimRules {
            clock_skew_seconds: 300,
            ..rules()
        },
    );
    assert!(lenient
        .validate(&sign(json!({"exp": NOW_S - 299})), NOW_MS)
        .is_ok());
    assert!(lenient
        .validate(&sign(json!({"exp": NOW_S - 300})), NOW_MS)
        .is_err());
}

#[test]
fn audience_issuer_subject_and_scope_are_checked() {
    let k = keys();
    let v = validator(&k);
    let sign = |changes: Value| {
        k.rsa1.sign(
            "RS256",
            &header("RS256", "rsa-1"),
            &with(good_claims("alice"), changes),
        )
    };
    assert!(refused(&v, &sign(json!({"aud": "other"})), NOW_MS).contains("Audience"));
    assert!(refused(&v, &sign(json!({"aud": null})), NOW_MS).contains("No Audience"));
    assert!(v
        .validate(&sign(json!({"aud": ["other", AUDIENCE]})), NOW_MS)
        .is_ok());
    assert!(refused(&v, &sign(json!({"iss": "https://evil.example"})), NOW_MS).contains("Issuer"));
    assert!(refused(&v, &sign(json!({"iss": null})), NOW_MS).contains("No Issuer"));
    assert_eq!(
        refused(&v, &sign(json!({"sub": null})), NOW_MS),
        "sub value must be non-null"
    );
    assert_eq!(
        refused(&v, &sign(json!({"sub": ""})), NOW_MS),
        "sub value must be non-empty"
    );
    assert_eq!(
        refused(&v, &sign(json!({"sub": "  "})), NOW_MS),
        "sub value must not contain only whitespace"
    );
    assert!(refused(&v, &sign(json!({"sub": 42})), NOW_MS).contains("'sub'"));
    assert!(refused(&v, &sign(json!({"scope": ["a", "a"]})), NOW_MS).contains("duplicates"));
    let scoped = v
        .validate(&sign(json!({"scope": ["read", "write"]})), NOW_MS)
        .expect("scopes");
    assert_eq!(
        scoped.scope,
        BTreeSet::from(["read".to_owned(), "write".to_owned()])
    );
    // Without expected values (Kafka's allow.unverified.* opt-outs), any
    // or no aud / iss is accepted.
    let open = JwtValidator::with_keys(
        JwkSet::parse(&jwks(&k).to_string()).expect("JWKS"),
        ClaimRules::default(),
    );
    assert!(open
        .validate(&sign(json!({"aud": null, "iss": null})), NOW_MS)
        .is_ok());
    // Other claim names.
    let renamed = JwtValidator::with_keys(
        JwkSet::parse(&jwks(&k).to_string()).expect("JWKS"),
        ClaimRules {
            sub_claim_name: "client_id".into(),
            ..rules()
        },
    );
    let token = sign(json!({"client_id": "svc-1"}));
    assert_eq!(
        renamed
            .validate(&token, NOW_MS)
            .expect("client_id")
            .principal_name,
        "svc-1"
    );
}

fn kafka_settings<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
    move |key: &str| {
        pairs
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, v)| (*v).to_owned())
    }
}

#[test]
fn settings_need_a_jwks_url_an_audience_and_an_issuer_as_kafka_4_4_does() {
    let url = ("sasl.oauthbearer.jwks.endpoint.url", "file:/tmp/jwks.json");
    let aud = ("sasl.oauthbearer.expected.audience", "a, b");
    let iss = ("sasl.oauthbearer.expected.issuer", ISSUER);
    let error = |pairs: &[(&str, &str)]| {
        JwtValidatorConfig::from_kafka(&kafka_settings(pairs))
            .expect_err("refused")
            .to_string()
    };
    assert!(error(&[aud, iss]).contains("requires \"sasl.oauthbearer.jwks.endpoint.url\""));
    assert!(error(&[url, iss]).contains("requires \"sasl.oauthbearer.expected.audience\""));
    assert!(error(&[url, aud]).contains("requires \"sasl.oauthbearer.expected.issuer\""));
    assert!(error(&[url, aud, iss, ("sasl.oauthbearer.clock.skew.seconds", "x")]).contains("INT"));
    assert!(
        error(&[url, ("sasl.oauthbearer.expected.audience", "a,a"), iss]).contains("duplicated")
    );
    assert!(error(&[
        url,
        aud,
        iss,
        ("sasl.oauthbearer.jwt.validator.class", "com.example.V")
    ])
    .contains("sasl.oauthbearer.jwt.validator.class"));
    assert!(
        error(&[url, aud, iss, ("sasl.oauthbearer.sub.claim.name", " ")])
            .contains("sasl.oauthbearer.sub.claim.name value is required")
    );
    let config = JwtValidatorConfig::from_kafka(&kafka_settings(&[url, aud, iss])).expect("valid");
    assert_eq!(config.refresh_ms, 3_600_000);
    assert_eq!(config.retry_backoff_ms, 100);
    assert_eq!(config.retry_backoff_max_ms, 10_000);
    assert_eq!(config.rules.clock_skew_seconds, 30);
    assert_eq!(
        config.rules.expected_audience,
        BTreeSet::from(["a".to_owned(), "b".to_owned()])
    );
    let opted_out = JwtValidatorConfig::from_kafka(&kafka_settings(&[
        url,
        ("sasl.oauthbearer.allow.unverified.audience", "true"),
        ("sasl.oauthbearer.allow.unverified.issuer", "TRUE"),
    ]))
    .expect("opt-outs");
    assert!(opted_out.rules.expected_audience.is_empty());
    assert_eq!(opted_out.rules.expected_issuer, None);
}

#[test]
fn urls_must_be_allowed_like_the_kafka_system_property_says() {
    let opts = "-Xmx1g -Dorg.apache.kafka.sasl.oauthbearer.allowed.urls=file:/a,https://b/keys \
                -Dother=1";
    let allowed = AllowedUrls::from_java_options(opts);
    assert!(allowed.check("k", "file:/a").is_ok());
    assert!(allowed.check("k", "https://b/keys").is_ok());
    assert!(
        allowed.check("k", "https://b/keys/").is_err(),
        "exact text only"
    );
    let e = AllowedUrls::default()
        .check("sasl.oauthbearer.jwks.endpoint.url", "file:/a")
        .expect_err("nothing is allowed by default")
        .to_string();
    assert!(e.contains("The URL cannot be accessed due to restrictions. Update the system property 'org.apache.kafka.sasl.oauthbearer.allowed.urls' to allow the URL to be accessed."), "{e}");
    // The last -D wins, as in a JVM.
    let last = AllowedUrls::from_java_options(
        "-Dorg.apache.kafka.sasl.oauthbearer.allowed.urls=file:/a -Dorg.apache.kafka.sasl.oauthbearer.allowed.urls=file:/b",
    );
    assert!(last.check("k", "file:/a").is_err());
    assert!(last.check("k", "file:/b").is_ok());
}

fn temp_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("kraft-sasl-jwt-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

fn start_config(url: &str) -> JwtValidatorConfig {
    JwtValidatorConfig::from_kafka(&kafka_settings(&[
        ("sasl.oauthbearer.jwks.endpoint.url", url),
        ("sasl.oauthbearer.expected.audience", AUDIENCE),
        ("sasl.oauthbearer.expected.issuer", ISSUER),
        ("sasl.oauthbearer.jwks.endpoint.refresh.ms", "600000"),
    ]))
    .expect("config")
}

fn empty_jaas() -> jaas::JaasEntry {
    jaas::parse_single(
        "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required;",
    )
    .expect("jaas")
}

#[test]
fn a_jwks_file_is_read_again_when_it_changes() {
    let k = keys();
    let dir = temp_dir("file");
    let path = dir.join("jwks.json");
    let one = json!({"keys": [k.rsa1.jwk(Some("one"), json!({}))]});
    std::fs::write(&path, one.to_string()).expect("write");
    let url = format!("file:{}", path.display());
    let config = start_config(&url);
    let e = JwtValidator::start(&config, &empty_jaas(), &AllowedUrls::default())
        .expect_err("not allowed");
    assert!(e
        .to_string()
        .contains("cannot be accessed due to restrictions"));
    let allowed = AllowedUrls::new([url.clone()]);
    let v = JwtValidator::start(&config, &empty_jaas(), &allowed).expect("start");
    let by_one = k
        .rsa1
        .sign("RS256", &header("RS256", "one"), &good_claims("alice"));
    let by_two = k
        .rsa2
        .sign("RS256", &header("RS256", "two"), &good_claims("alice"));
    let now = jwt_now();
    assert!(v.validate(&by_one, now).is_ok());
    assert!(v.validate(&by_two, now).is_err());
    let two = json!({"keys": [k.rsa2.jwk(Some("two"), json!({}))]});
    std::fs::write(&path, two.to_string()).expect("rewrite");
    let file = std::fs::File::options()
        .write(true)
        .open(&path)
        .expect("open");
    file.set_modified(std::time::SystemTime::now() + Duration::from_secs(5))
        .expect("touch");
    assert!(v.validate(&by_two, now).is_ok(), "the new key is used");
    assert!(v.validate(&by_one, now).is_err(), "the old key is gone");
    // A file that does not exist is refused at start.
    let missing = format!("file:{}", dir.join("missing.json").display());
    let e = JwtValidator::start(
        &start_config(&missing),
        &empty_jaas(),
        &AllowedUrls::new([missing.clone()]),
    )
    .expect_err("missing file");
    assert!(e.to_string().contains("doesn't exist"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}

fn jwt_now() -> i64 {
    kraft_security::sasl::SaslServerConfig::system_now_ms()
}

/// A tiny HTTP server answering every GET with the current `body`.
fn serve(body: Arc<Mutex<String>>) -> (String, Arc<Mutex<usize>>) {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("addr").port();
    let hits = Arc::new(Mutex::new(0usize));
    let counter = hits.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut buf = [0u8; 2048];
            let _ = stream.read(&mut buf);
            let text = body.lock().map(|b| b.clone()).unwrap_or_default();
            *counter.lock().expect("count") += 1;
            // Chunked, as many servers answer.
            let reply = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n{:x}\r\n{text}\r\n0\r\n\r\n",
                text.len()
            );
            let _ = stream.write_all(reply.as_bytes());
        }
    });
    (format!("http://127.0.0.1:{port}/keys"), hits)
}

#[test]
fn a_jwks_url_is_fetched_at_start_and_again_for_an_unknown_kid() {
    let k = keys();
    let body = Arc::new(Mutex::new(
        json!({"keys": [k.rsa1.jwk(Some("one"), json!({}))]}).to_string(),
    ));
    let (url, hits) = serve(body.clone());
    let allowed = AllowedUrls::new([url.clone()]);
    let v = JwtValidator::start(&start_config(&url), &empty_jaas(), &allowed).expect("start");
    let now = jwt_now();
    let by_one = k
        .rsa1
        .sign("RS256", &header("RS256", "one"), &good_claims("alice"));
    assert!(v.validate(&by_one, now).is_ok());
    // The provider rotates to key "two": the first token under it is
    // refused (not known yet) and asks for a refresh; once that is done
    // it is accepted.
    *body.lock().expect("body") = json!({"keys": [k.rsa2.jwk(Some("two"), json!({}))]}).to_string();
    let by_two = k
        .rsa2
        .sign("RS256", &header("RS256", "two"), &good_claims("alice"));
    assert!(v.validate(&by_two, now).is_err());
    let deadline = Instant::now() + Duration::from_secs(10);
    while v.validate(&by_two, now).is_err() {
        assert!(Instant::now() < deadline, "no refresh for the unknown kid");
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(*hits.lock().expect("hits") >= 2);
    assert!(v.validate(&by_one, now).is_err(), "the old key is gone");
    // A URL nothing answers on refuses the start.
    let e = JwtValidator::start(
        &start_config("http://127.0.0.1:9/none"),
        &empty_jaas(),
        &AllowedUrls::new(["http://127.0.0.1:9/none"]),
    )
    .expect_err("nothing listens there");
    assert!(e.to_string().contains("Could not refresh JWKS"), "{e}");
}

/// ES512: P-521 keys and signatures (RustCrypto's `p521`), chosen by `kid`
/// and curve like the other EC keys; a P-521 key does not verify ES384 and
/// a P-384 key does not verify ES512; a changed signature is refused.
#[test]
fn es512_tokens_are_verified_with_p521_keys() {
    let k = keys();
    let p521 = TestKey::p521(7);
    let set = JwkSet::parse(
        &json!({"keys": [
            p521.jwk(Some("ec-521"), json!({})),
            k.p384.jwk(Some("ec-384"), json!({})),
        ]})
        .to_string(),
    )
    .expect("jwks");
    let good = good_claims("alice");
    let token = p521.sign("ES512", &header("ES512", "ec-521"), &good);
    let parsed = kraft_security::sasl::jwt::CompactJws::parse(&token).expect("parse");
    assert!(parsed.verify(&set).is_ok(), "ES512 with its P-521 key");
    // Without a kid the curve still picks the key.
    let no_kid = p521.sign("ES512", &json!({"alg": "ES512"}), &good);
    assert!(kraft_security::sasl::jwt::CompactJws::parse(&no_kid)
        .expect("parse")
        .verify(&set)
        .is_ok());
    // The P-384 key's kid on an ES512 token: no key fits.
    let wrong_curve = p521.sign("ES512", &header("ES512", "ec-384"), &good);
    assert!(kraft_security::sasl::jwt::CompactJws::parse(&wrong_curve)
        .expect("parse")
        .verify(&set)
        .is_err());
    let es384_by_521 = p521.sign("ES512", &header("ES384", "ec-521"), &good);
    assert!(kraft_security::sasl::jwt::CompactJws::parse(&es384_by_521)
        .expect("parse")
        .verify(&set)
        .is_err());
    // One flipped bit of the signature.
    let (head, sig) = token.rsplit_once('.').expect("three parts");
    let mut raw = base64::Engine::decode(&base64::engine::general_purpose::URL_SAFE_NO_PAD, sig)
        .expect("b64");
    raw[10] ^= 1;
    let forged = format!(
        "{head}.{}",
        base64::Engine::encode(&base64::engine::general_purpose::URL_SAFE_NO_PAD, raw)
    );
    assert!(kraft_security::sasl::jwt::CompactJws::parse(&forged)
        .expect("parse")
        .verify(&set)
        .is_err());
}

/// The TLS fixtures (`tests/data/tls`, made by `make-fixtures.sh`).
fn tls_fixture(name: &str) -> String {
    std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/tls")
        .join(name)
        .display()
        .to_string()
}

/// An HTTPS server answering every GET with `body`, with the fixture
/// certificate of `localhost` / 127.0.0.1 (issued by `ca.pem`).
fn serve_tls(body: String) -> String {
    let settings = kraft_security::tls::SslSettings::from_kafka(&|key| match key {
        "ssl.keystore.type" => Some("PEM".to_owned()),
        "ssl.keystore.location" => Some(tls_fixture("server-keystore.pem")),
        _ => None,
    })
    .expect("server settings");
    let config = kraft_security::tls::ServerTls::new(&settings)
        .expect("server TLS")
        .config();
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("addr").port();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { continue };
            let Ok(conn) = rustls::ServerConnection::new(config.clone()) else {
                continue;
            };
            let mut tls = rustls::StreamOwned::new(conn, stream);
            let mut buf = [0u8; 2048];
            if tls.read(&mut buf).is_err() {
                continue; // e.g. a client that does not trust the certificate
            }
            let reply = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
            let _ = tls.write_all(reply.as_bytes());
            tls.conn.send_close_notify();
            let _ = tls.flush();
        }
    });
    format!("https://localhost:{port}/keys")
}

#[test]
fn a_jwks_https_url_is_trusted_through_the_jaas_entrys_truststore() {
    let k = keys();
    let url = serve_tls(json!({"keys": [k.rsa1.jwk(Some("one"), json!({}))]}).to_string());
    let allowed = AllowedUrls::new([url.clone()]);
    let jaas = jaas::parse_single(&format!(
        "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required \
         ssl.truststore.type=\"PEM\" ssl.truststore.location=\"{}\";",
        tls_fixture("ca.pem")
    ))
    .expect("jaas");
    let v = JwtValidator::start(&start_config(&url), &jaas, &allowed).expect("start over https");
    let token = k
        .rsa1
        .sign("RS256", &header("RS256", "one"), &good_claims("alice"));
    assert!(v.validate(&token, jwt_now()).is_ok());
    // Without a trust store there is nothing to trust (kraft-rs has no
    // default one): refused at start, naming the key to set.
    let e = JwtValidator::start(&start_config(&url), &empty_jaas(), &allowed)
        .expect_err("no trust store");
    assert!(e.to_string().contains("ssl.truststore.location"), "{e}");
    // A CA that did not issue the server's certificate: the first fetch
    // fails and the start is refused.
    let other = jaas::parse_single(&format!(
        "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required \
         ssl.truststore.type=\"PEM\" ssl.truststore.location=\"{}\";",
        tls_fixture("untrusted-ca.pem")
    ))
    .expect("jaas");
    let e = JwtValidator::start(&start_config(&url), &other, &allowed)
        .expect_err("an untrusted certificate");
    assert!(e.to_string().contains("Could not refresh JWKS"), "{e}");
}

#[test]
fn the_http_response_reader_takes_only_a_200_body() {
    use kraft_security::sasl::jwks::parse_http_response;
    assert_eq!(
        parse_http_response(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}trailing")
            .expect("200"),
        "{}"
    );
    assert!(parse_http_response(b"HTTP/1.1 404 Not Found\r\n\r\n{}")
        .expect_err("404")
        .contains("404"));
    assert!(
        parse_http_response(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n")
            .is_err()
    );
    assert!(parse_http_response(b"garbage").is_err());
}

fn jwt_server(v: JwtValidator) -> OAuthBearerServer {
    OAuthBearerServer::new(TokenValidator::Jwt(Arc::new(v)), || NOW_MS)
}

fn initial(token: &str) -> Vec<u8> {
    ClientInitialResponse {
        token: token.to_owned(),
        authorization_id: String::new(),
        extensions: Default::default(),
    }
    .to_bytes()
}

#[test]
fn the_server_authenticates_the_subject_until_the_token_expires() {
    let k = keys();
    let token = k
        .p256
        .sign("ES256", &header("ES256", "ec-256"), &good_claims("alice"));
    let mut server = jwt_server(validator(&k));
    match server.evaluate(&initial(&token)).expect("accepted") {
        ServerStep::Complete {
            authorization_id,
            token_authenticated,
            final_message,
        } => {
            assert_eq!(authorization_id, "alice");
            assert!(!token_authenticated);
            assert!(final_message.is_empty());
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(server.credential_expiry_ms(), Some(4_102_444_800_000));
}

#[test]
fn the_server_refuses_with_kafkas_invalid_token_exchange() {
    let k = keys();
    let forged = k
        .rsa2
        .sign("RS256", &header("RS256", "rsa-1"), &good_claims("alice"));
    let mut server = jwt_server(validator(&k));
    assert_eq!(
        server.evaluate(&initial(&forged)).expect("challenge"),
        ServerStep::Challenge(br#"{"status":"invalid_token"}"#.to_vec())
    );
    assert_eq!(server.credential_expiry_ms(), None);
    let failure = server.evaluate(&[0x01]).expect_err("then the failure");
    assert_eq!(failure.kind, SaslFailureKind::Authentication);
    assert_eq!(failure.message, r#"{"status":"invalid_token"}"#);
}

#[test]
fn debug_output_shows_no_key_or_token() {
    let secret = vec![0x5a; 32];
    let set = JwkSet::parse(
        &json!({"keys": [TestKey::Oct(secret.clone()).jwk(Some("hmac"), json!({}))]}).to_string(),
    )
    .expect("JWKS");
    let v = JwtValidator::with_keys(set, rules());
    let text = format!("{v:?}");
    assert!(text.contains("hmac"), "{text}");
    let k_b64 = TestKey::Oct(secret).jwk(None, json!({}))["k"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert!(!text.contains(&k_b64), "{text}");
    let k = keys();
    let token = k
        .rsa1
        .sign("RS256", &header("RS256", "rsa-1"), &good_claims("alice"));
    let response = ClientInitialResponse::parse(&initial(&token)).expect("parse");
    assert!(!format!("{response:?}").contains(&token));
}

#[test]
fn a_client_sends_the_token_of_its_token_file() {
    let k = keys();
    let dir = temp_dir("client");
    let path = dir.join("token.jwt");
    let token = k
        .rsa1
        .sign("RS256", &header("RS256", "rsa-1"), &good_claims("alice"));
    std::fs::write(&path, format!("  {token}\n")).expect("write");
    let url = format!("file:{}", path.display());
    let get = |key: &str| (key == "sasl.oauthbearer.token.endpoint.url").then(|| url.clone());
    let jaas = jaas::parse_single(
        "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required extension_traceId=\"t1\";",
    )
    .expect("jaas");
    let e = TokenFile::from_kafka(&get, &jaas, &AllowedUrls::default()).expect_err("not allowed");
    assert!(e.to_string().contains("restrictions"));
    let file = TokenFile::from_kafka(&get, &jaas, &AllowedUrls::new([url.clone()])).expect("file");
    assert!(!format!("{file:?}").contains(&token));
    let mut client = file.client().expect("client");
    let first = client.initial_response().expect("first");
    let parsed = ClientInitialResponse::parse(&first).expect("parse");
    assert_eq!(parsed.token, token, "trimmed as FileJwtRetriever trims it");
    assert_eq!(
        parsed.extensions.get("traceId").map(String::as_str),
        Some("t1")
    );
    // The server side accepts it; the exchange completes.
    let mut server = jwt_server(validator(&k));
    assert!(matches!(
        server.evaluate(&first).expect("server"),
        ServerStep::Complete { .. }
    ));
    assert_eq!(client.evaluate_challenge(&[]).expect("done"), None);
    assert!(client.is_complete());
    // Not a JWT, or no subject: refused before anything is sent.
    std::fs::write(&path, "not-a-jwt").expect("write");
    assert!(TokenFile::from_kafka(&get, &jaas, &AllowedUrls::new([url.clone()])).is_err());
    let no_sub = k.rsa1.sign(
        "RS256",
        &header("RS256", "rsa-1"),
        &with(good_claims("x"), json!({"sub": null})),
    );
    std::fs::write(&path, no_sub).expect("write");
    let e =
        TokenFile::from_kafka(&get, &jaas, &AllowedUrls::new([url.clone()])).expect_err("no sub");
    assert!(e.to_string().contains("sub value must be non-null"), "{e}");
    // An https token endpoint (client credentials) is not supported.
    let https = "https://idp.example/token".to_owned();
    let get = |key: &str| (key == "sasl.oauthbearer.token.endpoint.url").then(|| https.clone());
    let e =
        TokenFile::from_kafka(&get, &jaas, &AllowedUrls::new([https.clone()])).expect_err("https");
    assert!(e.to_string().contains("only from a file: URL"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn client_settings_pick_kafkas_oauthbearer_login() {
    use kraft_security::client::ClientSecurity;
    let module = "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule";
    let from = |pairs: Vec<(&'static str, String)>| {
        ClientSecurity::from_kafka(&move |key: &str| {
            pairs
                .iter()
                .find(|(k, _)| *k == key)
                .map(|(_, v)| v.clone())
        })
    };
    let base = |jaas: String| {
        vec![
            ("security.protocol", "SASL_PLAINTEXT".to_owned()),
            ("sasl.mechanism", "OAUTHBEARER".to_owned()),
            ("sasl.jaas.config", jaas),
        ]
    };
    // No login callback handler: Kafka's unsecured login from the JAAS options.
    let unsecured = from(base(format!(
        "{module} required unsecuredLoginStringClaim_sub=\"alice\";"
    )))
    .expect("unsecured login");
    assert!(unsecured.oauth_token.is_none());
    assert!(
        from(base(format!("{module} required;"))).is_err(),
        "no token at all"
    );
    // OAuthBearerLoginCallbackHandler with a token file that is not allowed.
    let mut file = base(format!("{module} required;"));
    file.push((
        "sasl.login.callback.handler.class",
        "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginCallbackHandler".to_owned(),
    ));
    file.push((
        "sasl.oauthbearer.token.endpoint.url",
        format!("file:/kraft-rs-test-{}/token.jwt", std::process::id()),
    ));
    let e = from(file).expect_err("not allowed").to_string();
    assert!(e.contains("cannot be accessed due to restrictions"), "{e}");
    // Any other handler, or another login module, is refused by name.
    let mut other = base(format!("{module} required;"));
    other.push((
        "sasl.login.callback.handler.class",
        "com.example.Login".to_owned(),
    ));
    let e = from(other).expect_err("other handler").to_string();
    assert!(e.contains("sasl.login.callback.handler.class"), "{e}");
    let e = from(base(
        "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"a\" password=\"b\";"
            .to_owned(),
    ))
    .expect_err("PLAIN module")
    .to_string();
    assert!(e.contains("OAuthBearerLoginModule"), "{e}");
}
