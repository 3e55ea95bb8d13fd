//! The SASL parsers a client reaches before it is authenticated: SCRAM's
//! four messages, OAUTHBEARER's client message, the JWT/JWS and JWKS
//! parsers, and whole PLAIN, SCRAM and OAUTHBEARER (unsecured and JWT)
//! server exchanges. No input may panic, and a message that parses prints
//! back to a message that parses to the same value.
#![no_main]

use std::sync::{Arc, OnceLock};

use kraft_security::sasl::scram_messages::{
    ClientFinalMessage, ClientFirstMessage, ServerFinalMessage, ServerFirstMessage,
};
use kraft_security::sasl::jwks::JwtValidator;
use kraft_security::sasl::jwt::{ClaimRules, CompactJws, JwkSet};
use kraft_security::sasl::oauthbearer::{
    ClientInitialResponse, OAuthBearerServer, TokenValidator, UnsecuredValidatorOptions,
};
use kraft_security::sasl::{
    self, Mechanism, MemoryCredentials, SaslServer, SaslServerConfig, ScramMechanism,
};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(m) = ClientFirstMessage::parse(data) {
        let again = ClientFirstMessage::parse(m.to_message().as_bytes()).expect("reparse");
        assert_eq!(again.nonce, m.nonce);
        assert_eq!(again.sasl_name, m.sasl_name);
    }
    if let Ok(m) = ServerFirstMessage::parse(data) {
        ServerFirstMessage::parse(m.to_message().as_bytes()).expect("reparse");
    }
    if let Ok(m) = ClientFinalMessage::parse(data) {
        ClientFinalMessage::parse(m.to_message().as_bytes()).expect("reparse");
    }
    let _ = ServerFinalMessage::parse(data);
    static CREDENTIALS: OnceLock<Arc<MemoryCredentials>> = OnceLock::new();
    let credentials = CREDENTIALS.get_or_init(|| {
        let mut c = MemoryCredentials::default();
        for m in [ScramMechanism::Sha256, ScramMechanism::Sha512] {
            c.scram.insert(
                (m, "u".to_owned()),
                sasl::scram_credential(m, "pw", b"fuzz-salt", m.min_iterations()),
            );
        }
        Arc::new(c)
    });
    let config = SaslServerConfig {
        plain_users: [("u".to_owned(), kraft_security::Secret::new("pw"))].into(),
        credentials: credentials.clone(),
        now_ms: || 0,
    };
    for mechanism in [Mechanism::Plain, Mechanism::ScramSha256, Mechanism::ScramSha512] {
        if let Some(mut server) = sasl::new_server(mechanism, &config) {
            // The first message, then the same bytes as the second one.
            if server.evaluate(data).is_ok() {
                let _ = server.evaluate(data);
            }
        }
    }
    if let Ok(m) = ClientInitialResponse::parse(data) {
        let again = ClientInitialResponse::parse(&m.to_bytes()).expect("reparse");
        assert_eq!(again, m);
    }
    if let Ok(text) = std::str::from_utf8(data) {
        if let Ok(jws) = CompactJws::parse(text) {
            let _ = jws.algorithm();
            let _ = jws.key_id();
        }
        let _ = JwkSet::parse(text);
    }
    static JWT: OnceLock<Arc<JwtValidator>> = OnceLock::new();
    let jwt = JWT.get_or_init(|| {
        // One key of each type, so every verification path is reachable.
        let keys = JwkSet::parse(
            r#"{"keys":[
                {"kty":"oct","kid":"h","k":"MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY"},
                {"kty":"EC","kid":"e","crv":"P-256","x":"f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU","y":"x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"},
                {"kty":"OKP","kid":"d","crv":"Ed25519","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"},
                {"kty":"RSA","kid":"r","n":"sXchDaQebHnPiGvyDOAT4saGEUetSyo9MKLOoWFsueri23bOdgWp4Dy1WlUzewbgBHod5pcM9H95GQRV3JDXboIRROSBigeC5yjU1hGzHHyXss8UDprecbAYxknTcQkhslANGRUZmdTOQ5qTRsLAt6BTYuyvVRdhS8exSZEy_c4gs_7svlJJQ4H9_NxsiIoLwAEk7-Q3UXERGYw_75IDrGA84-lA_-Ct4eTlXHBIY2EaV7t7LjJaynVJCpkv4LKjTTAumiGUIuQhrNhZLuF_RJLqHpM2kgWFLU7-VTdL1VbC2tejvcI2BlMkEpk1BzBZI0KQB0GaDWFLN-aEAw3vRw","e":"AQAB"}
            ]}"#,
        )
        .expect("fuzz JWKS");
        Arc::new(JwtValidator::with_keys(keys, ClaimRules::default()))
    });
    for validator in [
        TokenValidator::Unsecured(UnsecuredValidatorOptions::default()),
        TokenValidator::Jwt(jwt.clone()),
    ] {
        let mut server = OAuthBearerServer::new(validator, || 0);
        if server.evaluate(data).is_ok() {
            let _ = server.evaluate(&[0x01]);
        }
        // The bytes as the bearer token of a well-formed client message.
        if let Ok(token) = std::str::from_utf8(data) {
            let message = ClientInitialResponse {
                token: token.to_owned(),
                authorization_id: String::new(),
                extensions: Default::default(),
            }
            .to_bytes();
            let _ = server.evaluate(&message);
        }
    }
});
