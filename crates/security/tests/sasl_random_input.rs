//! Seeded random and mutated input for the SASL parsers and servers a
//! client reaches before it is authenticated (the CI counterpart of the
//! `sasl_messages` fuzz target): nothing panics, failures are answered with
//! a message, and a parsed message prints back to one that parses the same.

use std::sync::Arc;

use kraft_security::sasl::scram_messages::{
    ClientFinalMessage, ClientFirstMessage, ServerFinalMessage, ServerFirstMessage,
};
use kraft_security::sasl::{
    self, Mechanism, MemoryCredentials, SaslServerConfig, ScramMechanism, ServerStep,
};
use kraft_security::Secret;

/// xorshift64*: a fixed sequence, so a failure reproduces.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        usize::try_from(self.next() % u64::try_from(n).unwrap_or(1)).unwrap_or(0)
    }
}

/// Valid messages to mutate.
const SEEDS: &[&[u8]] = &[
    b"n,,n=user,r=rOprNGfwEbeRWgbNEkqO",
    b"n,a=user,n=user,r=fyko+d2lbbFgONRv9qkxdawL,tokenauth=true",
    b"r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096",
    b"c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=",
    b"v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=",
    b"e=invalid-proof",
    b"\0u\0pw",
    b"u\0u\0pw",
];

fn mutate(rng: &mut Rng, seed: &[u8]) -> Vec<u8> {
    let mut v = seed.to_vec();
    for _ in 0..=rng.below(4) {
        match rng.below(5) {
            0 if !v.is_empty() => {
                let i = rng.below(v.len());
                v[i] = u8::try_from(rng.next() & 0xff).unwrap_or(0);
            }
            1 if !v.is_empty() => {
                let i = rng.below(v.len());
                v.truncate(i);
            }
            2 => {
                let i = rng.below(v.len() + 1);
                v.insert(i, b",=\0r"[rng.below(4)]);
            }
            3 if !v.is_empty() => {
                let i = rng.below(v.len());
                v.remove(i);
            }
            _ => {
                let other = SEEDS[rng.below(SEEDS.len())];
                let n = rng.below(other.len() + 1);
                v.extend_from_slice(&other[..n]);
            }
        }
    }
    v
}

#[test]
fn random_and_mutated_sasl_input_never_panics_and_reparses() {
    let mut credentials = MemoryCredentials::default();
    for m in [ScramMechanism::Sha256, ScramMechanism::Sha512] {
        credentials.scram.insert(
            (m, "user".to_owned()),
            sasl::scram_credential(m, "pencil", b"random-input-salt", m.min_iterations()),
        );
    }
    let config = SaslServerConfig {
        plain_users: [("u".to_owned(), Secret::new("pw"))].into(),
        credentials: Arc::new(credentials),
        now_ms: || 0,
    };
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut parsed = 0usize;
    let mut completed = 0usize;
    for round in 0..20_000 {
        let input = if round % 10 == 0 {
            (0..rng.below(64))
                .map(|_| u8::try_from(rng.next() & 0xff).unwrap_or(0))
                .collect()
        } else {
            let seed = SEEDS[rng.below(SEEDS.len())];
            mutate(&mut rng, seed)
        };
        if let Ok(m) = ClientFirstMessage::parse(&input) {
            parsed += 1;
            let again = ClientFirstMessage::parse(m.to_message().as_bytes()).expect("reparse");
            assert_eq!(again, m, "{input:?}");
        }
        if let Ok(m) = ServerFirstMessage::parse(&input) {
            parsed += 1;
            let again = ServerFirstMessage::parse(m.to_message().as_bytes()).expect("reparse");
            assert_eq!(again.to_message(), m.to_message(), "{input:?}");
        }
        if let Ok(m) = ClientFinalMessage::parse(&input) {
            parsed += 1;
            let again = ClientFinalMessage::parse(m.to_message().as_bytes()).expect("reparse");
            assert_eq!(again.to_message(), m.to_message(), "{input:?}");
        }
        let _ = ServerFinalMessage::parse(&input);
        // PLAIN in one step; SCRAM's first step (cheap for unknown users and
        // malformed input) and, when it gives a challenge, a mutated second.
        for mechanism in [Mechanism::Plain, Mechanism::ScramSha256] {
            let mut server = sasl::new_server(mechanism, &config).expect("a server");
            match server.evaluate(&input) {
                Ok(ServerStep::Complete { .. }) => completed += 1,
                Ok(ServerStep::Challenge(_)) => {
                    let second = mutate(&mut rng, SEEDS[3]);
                    if let Err(f) = server.evaluate(&second) {
                        assert!(!f.message.is_empty());
                    }
                }
                Err(f) => {
                    assert!(
                        !f.message.is_empty(),
                        "a failure without a message: {input:?}"
                    );
                    assert!(!f.message.contains("pencil") && !f.log_detail.contains("pencil"));
                }
            }
        }
    }
    // The generator reaches the parsers' success paths, not only their errors.
    assert!(parsed > 500, "only {parsed} inputs parsed");
    assert!(completed > 0, "no PLAIN login completed from the seeds");
}
