//! Fuzz-like runs: thousands of random and mutated inputs (a fixed-seed
//! generator, so failures reproduce) for the JAAS parser, the SCRAM message
//! parsers, and the PLAIN, SCRAM and OAUTHBEARER servers and clients. Nothing
//! may panic, parsed messages must print back to what parses the same, and
//! server failures may only carry Kafka's fixed texts, never a stored secret.

#![allow(clippy::unwrap_used)]

use std::collections::BTreeMap;
use std::sync::Arc;

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use kraft_security::jaas::parse_jaas_config;
use kraft_security::sasl::oauthbearer::{
    ClientInitialResponse, OAuthBearerServer, UnsecuredJws, UnsecuredValidatorOptions,
};
use kraft_security::sasl::scram::{ScramClient, ScramServer};
use kraft_security::sasl::scram_messages::{
    ClientFinalMessage, ClientFirstMessage, ServerFinalMessage, ServerFirstMessage,
};
use kraft_security::sasl::{
    new_server, scram_credential, Mechanism, MemoryCredentials, SaslClient, SaslFailure,
    SaslFailureKind, SaslServer, SaslServerConfig, ScramMechanism, ServerStep,
};
use kraft_security::Secret;

/// xorshift64*: small, deterministic.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

const INTERESTING: &[u8] =
    b"nacrpvesiomtN,=;\0\x01\"'/*\\ \n\r\t=2C=3D-_.$0123456789+/biwsBearer{}[]:\xc3\xa9\xff";

fn random_bytes(rng: &mut Rng) -> Vec<u8> {
    let len = rng.below(48);
    (0..len)
        .map(|_| INTERESTING[rng.below(INTERESTING.len())])
        .collect()
}

fn mutate(rng: &mut Rng, base: &[u8]) -> Vec<u8> {
    let mut out = base.to_vec();
    for _ in 0..=rng.below(3) {
        let pos = if out.is_empty() {
            0
        } else {
            rng.below(out.len() + 1)
        };
        let byte = INTERESTING[rng.below(INTERESTING.len())];
        match rng.below(4) {
            0 if pos < out.len() => out[pos] = byte,
            1 if pos < out.len() => {
                out.remove(pos);
            }
            2 => out.truncate(pos),
            _ => out.insert(pos, byte),
        }
    }
    out
}

fn input(rng: &mut Rng, seeds: &[&[u8]]) -> Vec<u8> {
    if rng.below(4) == 0 {
        random_bytes(rng)
    } else {
        let seed = seeds[rng.below(seeds.len())];
        mutate(rng, seed)
    }
}

const STORED_PASSWORD: &str = "St0red-Secret-Pw";

fn never() -> i64 {
    0
}

fn check_failure(failure: &SaslFailure, allowed: &[&str], secrets: &[String]) {
    match failure.kind {
        SaslFailureKind::IllegalState => {
            assert!(
                failure
                    .message
                    .starts_with("Unexpected challenge in Sasl server state"),
                "{failure:?}"
            )
        }
        SaslFailureKind::Authentication => {
            assert!(allowed.contains(&failure.message.as_str()), "{failure:?}")
        }
    }
    for s in secrets {
        assert!(
            !failure.message.contains(s.as_str()) && !failure.log_detail.contains(s.as_str()),
            "{failure:?}"
        );
    }
}

#[test]
fn jaas_parser_never_panics() {
    let mut rng = Rng(0x1234_5678_9abc_def1);
    let seeds: &[&[u8]] = &[
        b"org.apache.kafka.common.security.plain.PlainLoginModule required username=\"u\" password=\"p\";",
        b"m required a='x\\\"y' /* c */ b=c; // d\n n optional;",
        b"m required a=\"\\477\\101\\n\";",
    ];
    for _ in 0..20_000 {
        let text = String::from_utf8_lossy(&input(&mut rng, seeds)).into_owned();
        if let Ok(entries) = parse_jaas_config(&text) {
            assert!(!entries.is_empty());
        }
    }
}

#[test]
fn scram_message_parsers_never_panic_and_round_trip() {
    let mut rng = Rng(0x0bad_cafe_f00d_d00d);
    let seeds: &[&[u8]] = &[
        b"n,,n=user,r=rOprNGfwEbeRWgbNEkqO",
        b"n,a=x,m=r,n=u=2C,r=abc,ext=1,tokenauth=true",
        b"r=abc,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096,e=x",
        b"c=biws,r=abc,x=1,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=",
        b"v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=",
        b"e=unknown-user",
    ];
    for _ in 0..20_000 {
        let bytes = input(&mut rng, seeds);
        if let Ok(m) = ClientFirstMessage::parse(&bytes) {
            assert_eq!(
                ClientFirstMessage::parse(m.to_message().as_bytes()).unwrap_or_else(|e| panic!(
                    "{:?} -> {:?}: {e}",
                    String::from_utf8_lossy(&bytes),
                    m.to_message()
                )),
                m
            );
        }
        if let Ok(m) = ServerFirstMessage::parse(&bytes) {
            let again = ServerFirstMessage::new(&m.nonce, "", &m.salt, m.iterations);
            let reparsed = ServerFirstMessage::parse(again.to_message().as_bytes()).unwrap();
            assert_eq!(
                (reparsed.nonce, reparsed.salt, reparsed.iterations),
                (m.nonce, m.salt, m.iterations)
            );
        }
        if let Ok(m) = ClientFinalMessage::parse(&bytes) {
            assert_eq!(
                ClientFinalMessage::parse(m.to_message().as_bytes()).unwrap(),
                m
            );
        }
        if let Ok(m) = ServerFinalMessage::parse(&bytes) {
            assert_eq!(
                ServerFinalMessage::parse(m.to_message().as_bytes()).unwrap(),
                m
            );
        }
    }
}

#[test]
fn plain_server_never_panics_nor_leaks() {
    let mut rng = Rng(0x5eed_0000_0000_0001);
    let mut users = BTreeMap::new();
    users.insert("alice".to_owned(), Secret::new(STORED_PASSWORD));
    let config = SaslServerConfig {
        plain_users: users,
        credentials: Arc::new(MemoryCredentials::default()),
        now_ms: never,
    };
    let valid = format!("\0alice\0{STORED_PASSWORD}");
    let seeds: &[&[u8]] = &[valid.as_bytes(), b"alice\0alice\0x", b"\0\0"];
    let allowed = [
        "Authentication failed: username not specified",
        "Authentication failed: password not specified",
        "Authentication failed: Invalid username or password",
        "Authentication failed: Client requested an authorization id that is different from username",
        "Invalid SASL/PLAIN response: expected 3 tokens, got 1",
        "Invalid SASL/PLAIN response: expected 3 tokens, got 2",
        "Invalid SASL/PLAIN response: expected 3 tokens, got 4",
    ];
    for _ in 0..20_000 {
        let mut server = new_server(Mechanism::Plain, &config).unwrap();
        match server.evaluate(&input(&mut rng, seeds)) {
            Ok(ServerStep::Complete {
                authorization_id, ..
            }) => assert_eq!(authorization_id, "alice"),
            Ok(other) => panic!("{other:?}"),
            Err(f) => check_failure(&f, &allowed, &[STORED_PASSWORD.to_owned()]),
        }
    }
}

#[test]
fn scram_server_and_client_never_panic_nor_leak() {
    let mut rng = Rng(0x5eed_0000_0000_0002);
    let m = ScramMechanism::Sha256;
    let cred = scram_credential(m, STORED_PASSWORD, b"fixed-salt", 4096);
    let secrets = vec![
        STORED_PASSWORD.to_owned(),
        STANDARD.encode(&cred.stored_key),
        STANDARD.encode(&cred.server_key),
    ];
    let mut credentials = MemoryCredentials::default();
    credentials.scram.insert((m, "alice".into()), cred);
    let credentials = Arc::new(credentials);
    let generic = "Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-256";
    let allowed = [
        generic,
        "Authentication failed: Client requested an authorization id that is different from username",
    ];
    let first_seeds: &[&[u8]] = &[
        b"n,,n=alice,r=abc",
        b"n,a=alice,n=alice,r=abc,tokenauth=true",
        b"n,,n=al=3Dice,r=x",
    ];
    for _ in 0..5_000 {
        let mut server = ScramServer::new(m, credentials.clone(), never).with_server_nonce("srv");
        match server.evaluate(&input(&mut rng, first_seeds)) {
            Ok(ServerStep::Challenge(c)) => {
                let s1 = ServerFirstMessage::parse(&c).unwrap();
                let proof = STANDARD.encode([1u8; 32]);
                let good = format!("c=biws,r={},p={proof}", s1.nonce);
                let second = input(&mut rng, &[good.as_bytes()]);
                match server.evaluate(&second) {
                    Ok(step) => panic!("a random proof passed: {step:?}"),
                    Err(f) => check_failure(&f, &allowed, &secrets),
                }
            }
            Ok(other) => panic!("{other:?}"),
            Err(f) => check_failure(&f, &allowed, &secrets),
        }
    }
    // The client against mutated server messages (iterations kept small).
    let s1 = "r=cli-nonce-srv,s=ZmQ=,i=4096";
    for _ in 0..300 {
        let mut client = ScramClient::new(m, "alice", Secret::new(STORED_PASSWORD), false)
            .with_nonce("cli-nonce");
        client.initial_response().unwrap();
        let challenge = input(&mut rng, &[s1.as_bytes()]);
        if ServerFirstMessage::parse(&challenge).is_ok_and(|p| p.iterations > 8192) {
            continue;
        }
        let result = client.evaluate_challenge(&challenge);
        if let Err(f) = &result {
            assert!(
                !f.message.contains(STORED_PASSWORD) && !f.log_detail.contains(STORED_PASSWORD)
            );
        }
        if result.is_ok() {
            let last = input(
                &mut rng,
                &[b"v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=", b"e=bad"],
            );
            assert!(client.evaluate_challenge(&last).is_err());
            assert!(!client.is_complete());
        }
    }
}

#[test]
fn oauthbearer_server_never_panics() {
    let mut rng = Rng(0x5eed_0000_0000_0003);
    let token = format!(
        "{}.{}.",
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(r#"{"alg":"none"}"#),
        base64::engine::general_purpose::URL_SAFE_NO_PAD
            .encode(r#"{"sub":"alice","exp":1e12,"scope":["a"]}"#)
    );
    let valid = ClientInitialResponse {
        token: token.clone(),
        authorization_id: String::new(),
        extensions: BTreeMap::from([("x".to_owned(), "y".to_owned())]),
    }
    .to_bytes();
    let seeds: &[&[u8]] = &[&valid, b"n,a=alice,\x01auth=Bearer a.b.\x01\x01", b"\x01"];
    for _ in 0..10_000 {
        let mut server = OAuthBearerServer::unsecured(UnsecuredValidatorOptions::default(), never);
        let first = input(&mut rng, seeds);
        if let Ok(ServerStep::Challenge(json)) = server.evaluate(&first) {
            assert!(json.starts_with(b"{\"status\":\""), "{json:?}");
            let failure = server.evaluate(&[0x01]).unwrap_err();
            assert_eq!(failure.message.as_bytes(), json.as_slice());
        }
        let t = input(&mut rng, &[token.as_bytes()]);
        let _ = UnsecuredJws::parse(&String::from_utf8_lossy(&t), "sub", "scope");
    }
}

#[test]
fn jwt_and_jwks_parsers_and_the_jwt_server_never_panic() {
    use kraft_security::sasl::jwks::JwtValidator;
    use kraft_security::sasl::jwt::{ClaimRules, CompactJws, JwkSet};
    use kraft_security::sasl::oauthbearer::TokenValidator;
    let mut rng = Rng(0x5eed_0000_0000_0004);
    let b64 = |s: &str| base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(s);
    let hmac_key = b64("0123456789abcdef0123456789abcdef");
    let jwks = format!(
        r#"{{"keys":[{{"kty":"oct","kid":"h","k":"{hmac_key}"}},{{"kty":"EC","crv":"P-256","kid":"e","x":"AA","y":"AQ"}},{{"kty":"RSA","kid":"r","n":"AQAB","e":"AQAB"}},{{"kty":"OKP","crv":"Ed25519","x":"AA"}}]}}"#
    );
    let keys = JwkSet::parse(&jwks).unwrap();
    assert_eq!(keys.keys.len(), 4);
    let validator = Arc::new(JwtValidator::with_keys(keys, ClaimRules::default()));
    let token = format!(
        "{}.{}.{}",
        b64(r#"{"alg":"HS256","kid":"h"}"#),
        b64(r#"{"sub":"alice","exp":4102444800,"iat":1700000000,"scope":["a"]}"#),
        b64("not-a-signature")
    );
    let seeds: &[&[u8]] = &[
        token.as_bytes(),
        jwks.as_bytes(),
        b"a.b.c",
        b"{\"keys\":[]}",
    ];
    for _ in 0..10_000 {
        let data = input(&mut rng, seeds);
        let text = String::from_utf8_lossy(&data);
        if let Ok(jws) = CompactJws::parse(&text) {
            let _ = jws.algorithm();
            let _ = jws.verify(&JwkSet::parse(&jwks).unwrap());
        }
        let _ = JwkSet::parse(&text);
        let mut server = OAuthBearerServer::new(TokenValidator::Jwt(validator.clone()), never);
        let message = ClientInitialResponse {
            token: text.into_owned(),
            authorization_id: String::new(),
            extensions: BTreeMap::new(),
        }
        .to_bytes();
        match server.evaluate(&message) {
            Ok(ServerStep::Challenge(json)) => {
                assert_eq!(json, br#"{"status":"invalid_token"}"#);
                let failure = server.evaluate(&[0x01]).unwrap_err();
                assert_eq!(failure.message.as_bytes(), json.as_slice());
            }
            Ok(ServerStep::Complete { .. }) => panic!("an unsigned token was accepted"),
            Err(f) => check_failure(
                &f,
                &["Authentication failed during authentication due to invalid credentials with SASL mechanism OAUTHBEARER"],
                &[],
            ),
        }
    }
}
