//! OAUTHBEARER with signed JWTs and real processes: one controller whose
//! second listener serves OAUTHBEARER with Kafka's JWT validator over a
//! JWKS file, and the `kraft` CLI logging in with a token file
//! (`OAuthBearerLoginCallbackHandler` with a `file:` token URL). A good
//! token is served; one signed by another key, or expired, is refused
//! with SASL_AUTHENTICATION_FAILED and Kafka's `invalid_token` status.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use kraft_testkit::{free_port, KraftServer, TempDir};
use ring::rand::SystemRandom;
use ring::signature::{EcdsaKeyPair, KeyPair, ECDSA_P256_SHA256_FIXED_SIGNING};
use serde_json::json;

use super::{kraft, wait_for, KRAFT};

const ALLOWED: &str = "org.apache.kafka.sasl.oauthbearer.allowed.urls";

fn ec_key() -> EcdsaKeyPair {
    let rng = SystemRandom::new();
    let doc = EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &rng).expect("key");
    EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, doc.as_ref(), &rng).expect("key")
}

fn jwk(key: &EcdsaKeyPair, kid: &str) -> serde_json::Value {
    let point = key.public_key().as_ref();
    json!({"kty": "EC", "crv": "P-256", "kid": kid,
           "x": URL_SAFE_NO_PAD.encode(&point[1..33]), "y": URL_SAFE_NO_PAD.encode(&point[33..])})
}

/// An ES256 token for `sub` under `kid`, expiring at `exp` (seconds).
fn token(key: &EcdsaKeyPair, kid: &str, sub: &str, exp: i64) -> String {
    let now = exp.min(4_102_444_800) - 7200;
    let header = json!({"alg": "ES256", "kid": kid, "typ": "JWT"});
    let claims = json!({"sub": sub, "iat": now, "exp": exp,
                        "aud": "kraft-rs-test", "iss": "https://issuer.example"});
    let input = format!(
        "{}.{}",
        URL_SAFE_NO_PAD.encode(header.to_string()),
        URL_SAFE_NO_PAD.encode(claims.to_string())
    );
    let sig = key
        .sign(&SystemRandom::new(), input.as_bytes())
        .expect("sign");
    format!("{input}.{}", URL_SAFE_NO_PAD.encode(sig.as_ref()))
}

fn now_s() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}

/// `kraft metadata-quorum describe --status` via `bootstrap` with the
/// token in `token_file`, allowed in `KAFKA_OPTS` as Kafka's tools need it.
fn describe(bootstrap: &str, dir: &Path, token_file: &Path) -> (i32, String, String) {
    let token_url = format!("file:{}", token_file.display());
    let config = dir.join("oauth-client.properties");
    std::fs::write(
        &config,
        format!(
            "default.api.timeout.ms=6000\nrequest.timeout.ms=3000\n\
             security.protocol=SASL_PLAINTEXT\nsasl.mechanism=OAUTHBEARER\n\
             sasl.login.callback.handler.class=org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginCallbackHandler\n\
             sasl.oauthbearer.token.endpoint.url={token_url}\n\
             sasl.jaas.config=org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required;\n"
        ),
    )
    .expect("client config");
    let out = Command::new(KRAFT)
        .args([
            "metadata-quorum",
            "--bootstrap-controller",
            bootstrap,
            "--command-config",
        ])
        .arg(&config)
        .args(["describe", "--status"])
        .env("KAFKA_OPTS", format!("-D{ALLOWED}={token_url}"))
        .stdin(Stdio::null())
        .output()
        .expect("run kraft");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_jwks_file_listener_serves_good_tokens_and_refuses_forged_or_expired_ones() {
    let dir = TempDir::new("e2e-oauth");
    let (port, oauth_port) = (free_port(), free_port());
    let data = dir.join("data-1");
    let issuer_key = ec_key();
    let jwks_path = dir.join("jwks.json");
    std::fs::write(
        &jwks_path,
        json!({"keys": [jwk(&issuer_key, "k1")]}).to_string(),
    )
    .expect("jwks");
    let jwks_url = format!("file:{}", jwks_path.display());
    let mut server = KraftServer::new(
        KRAFT,
        dir.join("controller-1.properties"),
        dir.join("server-1.log"),
    )
    .env("KAFKA_OPTS", &format!("-Xmx1g -D{ALLOWED}={jwks_url}"));
    server.write_config(&format!(
        "node.id=1\nprocess.roles=controller\ncontroller.listener.names=CONTROLLER,OAUTH\n\
         listeners=CONTROLLER://127.0.0.1:{port},OAUTH://127.0.0.1:{oauth_port}\n\
         listener.security.protocol.map=CONTROLLER:PLAINTEXT,OAUTH:SASL_PLAINTEXT\n\
         log.dirs={d}\nmetadata.log.dir={d}\ncontroller.quorum.bootstrap.servers=127.0.0.1:{port}\n\
         listener.name.oauth.sasl.enabled.mechanisms=OAUTHBEARER\n\
         listener.name.oauth.oauthbearer.sasl.jaas.config=org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required;\n\
         listener.name.oauth.oauthbearer.sasl.server.callback.handler.class=org.apache.kafka.common.security.oauthbearer.OAuthBearerValidatorCallbackHandler\n\
         sasl.oauthbearer.jwks.endpoint.url={jwks_url}\n\
         sasl.oauthbearer.expected.audience=kraft-rs-test\n\
         sasl.oauthbearer.expected.issuer=https://issuer.example\n",
        d = data.display()
    ));
    let cluster_id = kraft(&["storage", "random-uuid"]).1.trim().to_string();
    server.format(&cluster_id, &["--standalone"]);
    server.start();
    let bootstrap = format!("127.0.0.1:{oauth_port}");
    let token_file = dir.join("token.jwt");
    let good = token(&issuer_key, "k1", "alice", now_s() + 3600);
    std::fs::write(&token_file, &good).expect("token");
    let out = wait_for(
        "the OAUTHBEARER listener serves a good token",
        Duration::from_secs(30),
        || {
            let (code, out, _) = describe(&bootstrap, dir.path(), &token_file);
            (code == 0 && out.contains("LeaderId:")).then_some(out)
        },
    );
    assert!(out.contains("LeaderId:") && out.contains("1"), "{out}");

    // Signed by a key the JWKS does not hold, under the known kid.
    let forged = token(&ec_key(), "k1", "alice", now_s() + 3600);
    std::fs::write(&token_file, &forged).expect("token");
    let (code, out, err) = describe(&bootstrap, dir.path(), &token_file);
    assert_ne!(code, 0, "a forged token was served: {out}");
    assert!(err.contains(r#"{"status":"invalid_token"}"#), "{err}");
    assert!(!err.contains(&forged), "the token is printed: {err}");

    // Expired an hour ago (well beyond the 30 s clock skew).
    let expired = token(&issuer_key, "k1", "alice", now_s() - 3600);
    std::fs::write(&token_file, &expired).expect("token");
    let (code, out, err) = describe(&bootstrap, dir.path(), &token_file);
    assert_ne!(code, 0, "an expired token was served: {out}");
    assert!(err.contains(r#"{"status":"invalid_token"}"#), "{err}");

    // The server says why in its log, never with the token.
    let log = server.log();
    assert!(log.contains("token refused"), "{log}");
    for t in [&good, &forged, &expired] {
        assert!(!log.contains(t.as_str()), "a token is in the server log");
    }
    assert_eq!(server.stop(), Some(0));
}
