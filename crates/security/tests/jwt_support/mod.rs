//! Test keys and JWT signing for the OAUTHBEARER JWT tests: RSA keys from
//! `tests/data/oauth/*.key` (2048-bit, PKCS#8 PEM), EC and Ed25519 keys
//! made by `ring` in the test (P-521 by RustCrypto's `p521`), tokens
//! signed with them.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use ring::rand::SystemRandom;
use ring::signature::{self, EcdsaKeyPair, Ed25519KeyPair, KeyPair, RsaKeyPair};
use rustls_pki_types::pem::PemObject;
use rustls_pki_types::PrivatePkcs8KeyDer;
use serde_json::{json, Value};

/// The directory of the OAUTHBEARER test data.
pub fn data_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/oauth")
}

/// A signing key and its public JWK.
pub enum TestKey {
    /// RSA (RS*, PS*).
    Rsa(RsaKeyPair),
    /// ECDSA P-256 or P-384 (fixed-size signatures).
    Ec(EcdsaKeyPair, &'static str),
    /// ECDSA P-521 (RustCrypto's p521: ring has no P-521).
    P521(Box<p521::ecdsa::SigningKey>),
    /// Ed25519.
    Ed(Ed25519KeyPair),
    /// A symmetric key.
    Oct(Vec<u8>),
}

fn b64(bytes: &[u8]) -> String {
    URL_SAFE_NO_PAD.encode(bytes)
}

impl TestKey {
    /// `tests/data/oauth/<name>.key`.
    pub fn rsa(name: &str) -> TestKey {
        let path = data_dir().join(format!("{name}.key"));
        let der = PrivatePkcs8KeyDer::from_pem_file(&path).expect("read the RSA test key");
        TestKey::Rsa(RsaKeyPair::from_pkcs8(der.secret_pkcs8_der()).expect("RSA key"))
    }

    /// A fresh P-256 (`"P-256"`) or P-384 (`"P-384"`) key.
    pub fn ec(curve: &'static str) -> TestKey {
        let rng = SystemRandom::new();
        let alg = match curve {
            "P-256" => &signature::ECDSA_P256_SHA256_FIXED_SIGNING,
            _ => &signature::ECDSA_P384_SHA384_FIXED_SIGNING,
        };
        let doc = EcdsaKeyPair::generate_pkcs8(alg, &rng).expect("EC key");
        TestKey::Ec(
            EcdsaKeyPair::from_pkcs8(alg, doc.as_ref(), &rng).expect("EC key"),
            curve,
        )
    }

    /// A P-521 key from a fixed scalar (`seed` repeated).
    pub fn p521(seed: u8) -> TestKey {
        let mut scalar = [seed; 66];
        scalar[0] = 0; // below the group order
        TestKey::P521(Box::new(
            p521::ecdsa::SigningKey::from_slice(&scalar).expect("P-521 key"),
        ))
    }

    /// A fresh Ed25519 key.
    pub fn ed25519() -> TestKey {
        let doc = Ed25519KeyPair::generate_pkcs8(&SystemRandom::new()).expect("Ed25519 key");
        TestKey::Ed(Ed25519KeyPair::from_pkcs8(doc.as_ref()).expect("Ed25519 key"))
    }

    /// The public JWK with `kid` (and `extra` members merged in).
    pub fn jwk(&self, kid: Option<&str>, extra: Value) -> Value {
        let mut jwk = match self {
            TestKey::Rsa(k) => {
                let c: signature::RsaPublicKeyComponents<Vec<u8>> = k.public().into();
                json!({"kty": "RSA", "n": b64(&c.n), "e": b64(&c.e)})
            }
            TestKey::Ec(k, curve) => {
                let point = k.public_key().as_ref();
                let size = (point.len() - 1) / 2;
                json!({"kty": "EC", "crv": curve, "x": b64(&point[1..=size]), "y": b64(&point[1 + size..])})
            }
            TestKey::P521(k) => {
                let point = p521::ecdsa::VerifyingKey::from(k.as_ref()).to_encoded_point(false);
                let bytes = point.as_bytes();
                json!({"kty": "EC", "crv": "P-521", "x": b64(&bytes[1..=66]), "y": b64(&bytes[67..])})
            }
            TestKey::Ed(k) => {
                json!({"kty": "OKP", "crv": "Ed25519", "x": b64(k.public_key().as_ref())})
            }
            TestKey::Oct(k) => json!({"kty": "oct", "k": b64(k)}),
        };
        let object = jwk.as_object_mut().expect("object");
        if let Some(kid) = kid {
            object.insert("kid".into(), kid.into());
        }
        if let Value::Object(extra) = extra {
            object.extend(extra);
        }
        jwk
    }

    /// Signs `header.claims` with `alg` (the key must fit it).
    pub fn sign(&self, alg: &str, header: &Value, claims: &Value) -> String {
        let input = format!(
            "{}.{}",
            b64(header.to_string().as_bytes()),
            b64(claims.to_string().as_bytes())
        );
        let rng = SystemRandom::new();
        let sig = match self {
            TestKey::Rsa(k) => {
                let padding: &dyn signature::RsaEncoding = match alg {
                    "RS256" => &signature::RSA_PKCS1_SHA256,
                    "RS384" => &signature::RSA_PKCS1_SHA384,
                    "RS512" => &signature::RSA_PKCS1_SHA512,
                    "PS256" => &signature::RSA_PSS_SHA256,
                    "PS384" => &signature::RSA_PSS_SHA384,
                    _ => &signature::RSA_PSS_SHA512,
                };
                let mut sig = vec![0u8; k.public().modulus_len()];
                k.sign(padding, &rng, input.as_bytes(), &mut sig)
                    .expect("RSA sign");
                sig
            }
            TestKey::Ec(k, _) => k
                .sign(&rng, input.as_bytes())
                .expect("EC sign")
                .as_ref()
                .to_vec(),
            TestKey::P521(k) => {
                let sig = <p521::ecdsa::SigningKey as p521::ecdsa::signature::Signer<
                    p521::ecdsa::Signature,
                >>::sign(k.as_ref(), input.as_bytes());
                sig.to_bytes().to_vec()
            }
            TestKey::Ed(k) => k.sign(input.as_bytes()).as_ref().to_vec(),
            TestKey::Oct(k) => {
                let hmac = match alg {
                    "HS384" => ring::hmac::HMAC_SHA384,
                    "HS512" => ring::hmac::HMAC_SHA512,
                    _ => ring::hmac::HMAC_SHA256,
                };
                ring::hmac::sign(&ring::hmac::Key::new(hmac, k), input.as_bytes())
                    .as_ref()
                    .to_vec()
            }
        };
        format!("{input}.{}", b64(&sig))
    }
}

/// The audience and issuer the test validators expect.
pub const AUDIENCE: &str = "kraft-rs-test";
/// The issuer the test validators expect.
pub const ISSUER: &str = "https://issuer.example";

/// Claims valid from 2023 to 2100 for `sub`.
pub fn good_claims(sub: &str) -> Value {
    json!({"sub": sub, "iat": 1_700_000_000i64, "exp": 4_102_444_800i64, "aud": AUDIENCE, "iss": ISSUER})
}

/// `claims` with `changes` applied: a `null` value removes the claim.
pub fn with(mut claims: Value, changes: Value) -> Value {
    if let (Some(target), Value::Object(changes)) = (claims.as_object_mut(), changes) {
        for (k, v) in changes {
            if v.is_null() {
                target.remove(&k);
            } else {
                target.insert(k, v);
            }
        }
    }
    claims
}
