//! The SASL parsers a client reaches before it is authenticated: SCRAM's
//! four messages and whole PLAIN and SCRAM server exchanges. No input may
//! panic, and a message that parses prints back to a message that parses
//! to the same value.
#![no_main]

use std::sync::{Arc, OnceLock};

use kraft_security::sasl::scram_messages::{
    ClientFinalMessage, ClientFirstMessage, ServerFinalMessage, ServerFirstMessage,
};
use kraft_security::sasl::{self, Mechanism, MemoryCredentials, SaslServerConfig, ScramMechanism};
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
});
