//! `SslSettings::from_kafka` and the key and trust stores: every store type
//! loads, Kafka's combination checks and messages, and bad configurations
//! fail with an error naming the key or file and never a password.

#![allow(clippy::unwrap_used)] // a test fails by panicking

use std::collections::HashMap;
use std::path::PathBuf;

use kraft_security::keystore::{KeyStoreConfig, StoreType, TrustStoreConfig};
use kraft_security::tls::{
    client_config, ClientAuth, ServerTls, SslSettings, TlsVersion, SSL_KEYS,
};
use kraft_security::SecurityError;
use rustls_pki_types::pem::PemObject;
use rustls_pki_types::CertificateDer;

const STORE_PASS: &str = "store-secret-42";
const KEY_PASS: &str = "key-secret-42";

fn data(name: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/tls")
        .join(name)
        .to_string_lossy()
        .into_owned()
}

fn text(name: &str) -> String {
    std::fs::read_to_string(data(name)).unwrap()
}

fn cert(name: &str) -> CertificateDer<'static> {
    CertificateDer::from_pem_file(data(name)).unwrap()
}

fn settings(pairs: &[(&str, String)]) -> Result<SslSettings, SecurityError> {
    let map: HashMap<String, String> = pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.clone()))
        .collect();
    SslSettings::from_kafka(&|key| map.get(key).cloned())
}

fn ok(pairs: &[(&str, String)]) -> SslSettings {
    settings(pairs).unwrap_or_else(|e| panic!("{pairs:?} refused: {e}"))
}

/// The error of a configuration, checked to name `key` and to show no password.
fn config_error(pairs: &[(&str, String)], key: &str) -> String {
    let e = match settings(pairs) {
        Ok(s) => panic!("{pairs:?} accepted: {s:?}"),
        Err(e) => e,
    };
    match &e {
        SecurityError::Config { key: k, .. } => assert_eq!(k, key, "{e}"),
        other => panic!("not a config error: {other:?}"),
    }
    no_secrets(&e.to_string());
    e.to_string()
}

fn no_secrets(message: &str) {
    for secret in [STORE_PASS, KEY_PASS, "wrong-password-77"] {
        assert!(!message.contains(secret), "a password in {message:?}");
    }
}

fn s(v: &str) -> String {
    v.to_string()
}

/// The `ssl.keystore.*` keys of the store file `name` in `tests/data/tls`:
/// its type when given, its location and the passwords given.
fn key_store(
    kind: Option<&str>,
    name: &str,
    password: Option<&str>,
    key_password: Option<&str>,
) -> Vec<(&'static str, String)> {
    let mut pairs = Vec::new();
    if let Some(kind) = kind {
        pairs.push(("ssl.keystore.type", s(kind)));
    }
    pairs.push(("ssl.keystore.location", data(name)));
    if let Some(password) = password {
        pairs.push(("ssl.keystore.password", s(password)));
    }
    if let Some(key_password) = key_password {
        pairs.push(("ssl.key.password", s(key_password)));
    }
    pairs
}

/// The `ssl.truststore.*` keys of the store file `name` in `tests/data/tls`.
fn trust_store(
    kind: Option<&str>,
    name: &str,
    password: Option<&str>,
) -> Vec<(&'static str, String)> {
    let mut pairs = Vec::new();
    if let Some(kind) = kind {
        pairs.push(("ssl.truststore.type", s(kind)));
    }
    pairs.push(("ssl.truststore.location", data(name)));
    if let Some(password) = password {
        pairs.push(("ssl.truststore.password", s(password)));
    }
    pairs
}

fn pem_server() -> Vec<(&'static str, String)> {
    key_store(Some("PEM"), "server-keystore.pem", None, None)
}

/// A server built from `pairs` serves server.pem.
fn serves_server_pem(pairs: &[(&str, String)]) {
    let server = ServerTls::new(&ok(pairs)).unwrap_or_else(|e| panic!("{pairs:?}: {e}"));
    let chain = server.certificate_chain();
    assert_eq!(chain[0], cert("server.pem"), "{pairs:?}");
    assert_eq!(chain[1], cert("ca.pem"), "{pairs:?}");
}

#[test]
fn ssl_keys_are_kafkas() {
    for key in [
        "ssl.protocol",
        "ssl.provider",
        "ssl.cipher.suites",
        "ssl.enabled.protocols",
        "ssl.keystore.type",
        "ssl.keystore.location",
        "ssl.keystore.password",
        "ssl.key.password",
        "ssl.keystore.key",
        "ssl.keystore.certificate.chain",
        "ssl.truststore.certificates",
        "ssl.truststore.type",
        "ssl.truststore.location",
        "ssl.truststore.password",
        "ssl.keymanager.algorithm",
        "ssl.trustmanager.algorithm",
        "ssl.endpoint.identification.algorithm",
        "ssl.secure.random.implementation",
        "ssl.engine.factory.class",
        "ssl.client.auth",
        "ssl.principal.mapping.rules",
        "ssl.allow.dn.changes",
        "ssl.allow.san.changes",
    ] {
        assert!(SSL_KEYS.contains(&key), "{key}");
    }
    assert_eq!(SSL_KEYS.len(), 23);
}

#[test]
fn kafkas_defaults() {
    let d = ok(&[]);
    assert_eq!(d.protocol, Some(TlsVersion::Tls13));
    assert_eq!(
        d.enabled_protocols,
        vec![TlsVersion::Tls12, TlsVersion::Tls13]
    );
    assert!(d.cipher_suites.is_empty());
    assert_eq!(d.client_auth, ClientAuth::None);
    assert!(d.endpoint_identification());
    assert!(d.key_store.is_none() && d.trust_store.is_none());
    assert!(!d.allow_dn_changes && !d.allow_san_changes);
    assert_eq!(d.principal_mapper.get_name("CN=a").unwrap(), "CN=a");
    // The JVM defaults of the algorithms and Kafka's own factory are accepted.
    ok(&[
        ("ssl.keymanager.algorithm", s_("SunX509")),
        ("ssl.trustmanager.algorithm", s_("PKIX")),
        (
            "ssl.engine.factory.class",
            s_("org.apache.kafka.common.security.ssl.DefaultSslEngineFactory"),
        ),
        ("ssl.endpoint.identification.algorithm", s_("")),
    ]);
}

fn s_(v: &str) -> String {
    v.to_string()
}

#[test]
fn store_type_defaults_to_jks_and_ignores_case() {
    let jks = ok(&key_store(None, "server.jks", Some(STORE_PASS), None));
    assert!(matches!(
        jks.key_store,
        Some(KeyStoreConfig::File {
            store_type: StoreType::Jks,
            ..
        })
    ));
    let p12 = ok(&[
        ("ssl.truststore.type", s("pkcs12")),
        ("ssl.truststore.location", data("truststore.p12")),
    ]);
    assert!(matches!(
        p12.trust_store,
        Some(TrustStoreConfig::File {
            store_type: StoreType::Pkcs12,
            ..
        })
    ));
}

#[test]
fn key_store_pem_file() {
    serves_server_pem(&pem_server());
}

#[test]
fn key_store_pem_file_with_encrypted_key() {
    serves_server_pem(&key_store(
        Some("PEM"),
        "server-keystore-encrypted.pem",
        None,
        Some(KEY_PASS),
    ));
}

#[test]
fn key_store_inline_pem() {
    let chain = format!("{}{}", text("server.pem"), text("ca.pem"));
    serves_server_pem(&[
        ("ssl.keystore.type", s("PEM")),
        ("ssl.keystore.key", text("server.key")),
        ("ssl.keystore.certificate.chain", chain.clone()),
    ]);
    // Encrypted, with CRLF line ends, and with the line breaks a properties
    // file continuation leaves out.
    serves_server_pem(&[
        ("ssl.keystore.type", s("PEM")),
        (
            "ssl.keystore.key",
            text("server.key.enc.pem").replace('\n', "\r\n"),
        ),
        ("ssl.keystore.certificate.chain", chain.replace('\n', " ")),
        ("ssl.key.password", s(KEY_PASS)),
    ]);
}

#[test]
fn key_store_pkcs12() {
    serves_server_pem(&key_store(
        Some("PKCS12"),
        "server.p12",
        Some(STORE_PASS),
        None,
    ));
}

#[test]
fn key_store_jks_with_its_own_key_password() {
    serves_server_pem(&key_store(
        Some("JKS"),
        "server.jks",
        Some(STORE_PASS),
        Some(KEY_PASS),
    ));
    // Without ssl.key.password the store's password is tried, and fails.
    let e = ServerTls::new(&ok(&key_store(None, "server.jks", Some(STORE_PASS), None)))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("server.jks") && e.contains("ssl.key.password"),
        "{e}"
    );
    no_secrets(&e);
}

#[test]
fn key_store_pkcs12_with_its_own_key_password() {
    // The store password checks the store, the key password opens the key,
    // as Java's PKCS12 KeyStore reads it.
    serves_server_pem(&key_store(
        Some("PKCS12"),
        "server-keypass.p12",
        Some(STORE_PASS),
        Some(KEY_PASS),
    ));
    // Without ssl.key.password the store's password is tried on the key.
    let e = load_error(
        &key_store(Some("PKCS12"), "server-keypass.p12", Some(STORE_PASS), None),
        "server-keypass.p12",
    );
    assert!(
        e.contains("Cannot recover key server") && e.contains("ssl.key.password"),
        "{e}"
    );
    // A wrong key password names the file and the key.
    let e = load_error(
        &key_store(
            Some("PKCS12"),
            "server-keypass.p12",
            Some(STORE_PASS),
            Some("wrong-password-77"),
        ),
        "server-keypass.p12",
    );
    assert!(
        e.contains("Cannot recover key server") && e.contains("ssl.key.password"),
        "{e}"
    );
    // The right key password does not make up for a wrong store password.
    let e = load_error(
        &key_store(
            Some("PKCS12"),
            "server-keypass.p12",
            Some("wrong-password-77"),
            Some(KEY_PASS),
        ),
        "server-keypass.p12",
    );
    assert!(
        e.contains("password was incorrect") && e.contains("ssl.keystore.password"),
        "{e}"
    );
    // A store whose key is under the store password, given another key
    // password: refused, as Java's getKey refuses it.
    let e = load_error(
        &key_store(
            Some("PKCS12"),
            "server.p12",
            Some(STORE_PASS),
            Some(KEY_PASS),
        ),
        "server.p12",
    );
    assert!(e.contains("Cannot recover key server"), "{e}");
}

fn trusts_ca(pairs: &[(&str, String)]) {
    let settings = ok(pairs);
    let certs = settings.trust_store.as_ref().unwrap().load().unwrap();
    assert_eq!(certs, vec![cert("ca.pem")], "{pairs:?}");
    client_config(&settings).unwrap();
}

#[test]
fn trust_stores_of_every_type() {
    trusts_ca(&trust_store(Some("PEM"), "ca.pem", None));
    trusts_ca(&[
        ("ssl.truststore.type", s("PEM")),
        ("ssl.truststore.certificates", text("ca.pem")),
    ]);
    trusts_ca(&trust_store(
        Some("PKCS12"),
        "truststore.p12",
        Some(STORE_PASS),
    ));
    trusts_ca(&trust_store(
        Some("JKS"),
        "truststore.jks",
        Some(STORE_PASS),
    ));
}

#[test]
fn client_key_stores() {
    for pairs in [
        key_store(Some("PEM"), "client-keystore.pem", None, None),
        key_store(Some("PKCS12"), "client.p12", Some(STORE_PASS), None),
    ] {
        let mut pairs = pairs;
        pairs.push(("ssl.truststore.type", s("PEM")));
        pairs.push(("ssl.truststore.location", data("ca.pem")));
        let settings = ok(&pairs);
        let loaded = settings.key_store.as_ref().unwrap().load().unwrap();
        assert_eq!(loaded.chain[0], cert("client.pem"));
        assert!(client_config(&settings)
            .unwrap()
            .client_auth_cert_resolver
            .has_certs());
    }
}

/// DefaultSslEngineFactory.createKeystore's checks, with Kafka's messages.
#[test]
fn kafkas_key_store_combination_checks() {
    let key = || ("ssl.keystore.key", text("server.key"));
    let chain = || ("ssl.keystore.certificate.chain", text("server.pem"));
    let e = config_error(&[key(), chain()], "ssl.keystore.key");
    assert!(
        e.contains("SSL private key can be specified only for PEM, but key store type is JKS."),
        "{e}"
    );
    let e = config_error(
        &[("ssl.keystore.type", s("PEM")), key()],
        "ssl.keystore.certificate.chain",
    );
    assert!(
        e.contains("SSL private key is specified, but certificate chain is not specified."),
        "{e}"
    );
    let e = config_error(
        &[
            ("ssl.keystore.type", s("PEM")),
            key(),
            chain(),
            ("ssl.keystore.location", data("server-keystore.pem")),
        ],
        "ssl.keystore.location",
    );
    assert!(
        e.contains("Both SSL key store location and separate private key are specified."),
        "{e}"
    );
    let e = config_error(
        &[
            ("ssl.keystore.type", s("PEM")),
            key(),
            chain(),
            ("ssl.keystore.password", s(STORE_PASS)),
        ],
        "ssl.keystore.password",
    );
    assert!(
        e.contains("SSL key store password cannot be specified with PEM format"),
        "{e}"
    );
    let e = config_error(
        &[("ssl.keystore.type", s("PEM")), chain()],
        "ssl.keystore.key",
    );
    assert!(
        e.contains("SSL certificate chain is specified, but private key is not specified"),
        "{e}"
    );
    let mut pem_with_password = pem_server();
    pem_with_password.push(("ssl.keystore.password", s(STORE_PASS)));
    let e = config_error(&pem_with_password, "ssl.keystore.password");
    assert!(e.contains("only key password may be specified"), "{e}");
    let e = config_error(
        &[("ssl.keystore.password", s(STORE_PASS))],
        "ssl.keystore.location",
    );
    assert!(
        e.contains("SSL key store is not specified, but key store password is specified."),
        "{e}"
    );
    let e = config_error(
        &key_store(None, "server.jks", None, None),
        "ssl.keystore.password",
    );
    assert!(
        e.contains("SSL key store is specified, but key store password is not specified."),
        "{e}"
    );
}

/// DefaultSslEngineFactory.createTruststore's checks, with Kafka's messages.
#[test]
fn kafkas_trust_store_combination_checks() {
    let certs = || ("ssl.truststore.certificates", text("ca.pem"));
    let e = config_error(&[certs()], "ssl.truststore.certificates");
    assert!(
        e.contains(
            "SSL trust store certs can be specified only for PEM, but trust store type is JKS."
        ),
        "{e}"
    );
    let e = config_error(
        &[
            ("ssl.truststore.type", s("PEM")),
            certs(),
            ("ssl.truststore.location", data("ca.pem")),
        ],
        "ssl.truststore.location",
    );
    assert!(
        e.contains("Both SSL trust store location and separate trust certificates are specified."),
        "{e}"
    );
    let e = config_error(
        &[
            ("ssl.truststore.type", s("PEM")),
            certs(),
            ("ssl.truststore.password", s(STORE_PASS)),
        ],
        "ssl.truststore.password",
    );
    assert!(
        e.contains("SSL trust store password cannot be specified for PEM format."),
        "{e}"
    );
    let e = config_error(
        &trust_store(Some("PEM"), "ca.pem", Some(STORE_PASS)),
        "ssl.truststore.password",
    );
    assert!(
        e.contains("SSL trust store password cannot be specified for PEM format."),
        "{e}"
    );
    let e = config_error(
        &[("ssl.truststore.password", s(STORE_PASS))],
        "ssl.truststore.location",
    );
    assert!(
        e.contains("SSL trust store is not specified, but trust store password is specified."),
        "{e}"
    );
}

/// A store that fails to load: a Store error naming the file, no password.
fn load_error(pairs: &[(&str, String)], file: &str) -> String {
    let settings = ok(pairs);
    let e = match ServerTls::new(&settings) {
        Ok(_) => panic!("{pairs:?} loaded"),
        Err(e) => e,
    };
    let message = e.to_string();
    assert!(matches!(e, SecurityError::Store { .. }), "{e:?}");
    assert!(message.contains(file), "{message} does not name {file}");
    no_secrets(&message);
    no_secrets(&format!("{e:?}"));
    message
}

#[test]
fn wrong_passwords_name_the_file_not_the_password() {
    let e = load_error(
        &key_store(
            Some("PKCS12"),
            "server.p12",
            Some("wrong-password-77"),
            None,
        ),
        "server.p12",
    );
    assert!(
        e.contains("password was incorrect") && e.contains("ssl.keystore.password"),
        "{e}"
    );
    let e = load_error(
        &key_store(
            None,
            "server.jks",
            Some("wrong-password-77"),
            Some(KEY_PASS),
        ),
        "server.jks",
    );
    assert!(e.contains("password was incorrect"), "{e}");
    let e = load_error(
        &key_store(
            Some("PEM"),
            "server-keystore-encrypted.pem",
            None,
            Some("wrong-password-77"),
        ),
        "server-keystore-encrypted.pem",
    );
    assert!(e.contains("wrong ssl.key.password"), "{e}");
    // A trust store's wrong password, through the client side.
    let settings = ok(&trust_store(
        Some("PKCS12"),
        "truststore.p12",
        Some("wrong-password-77"),
    ));
    let e = client_config(&settings).unwrap_err().to_string();
    assert!(
        e.contains("truststore.p12") && e.contains("ssl.truststore.password"),
        "{e}"
    );
    no_secrets(&e);
}

#[test]
fn encrypted_key_needs_its_password_and_a_plain_key_refuses_one() {
    let e = load_error(
        &key_store(Some("PEM"), "server-keystore-encrypted.pem", None, None),
        "server-keystore-encrypted.pem",
    );
    assert!(
        e.contains("encrypted, but ssl.key.password is not set"),
        "{e}"
    );
    let mut pairs = pem_server();
    pairs.push(("ssl.key.password", s(KEY_PASS)));
    let e = load_error(&pairs, "server-keystore.pem");
    assert!(e.contains("not encrypted"), "{e}");
}

#[test]
fn legacy_encrypted_key_is_refused_clearly() {
    let chain = format!("{}{}", text("server.pem"), text("ca.pem"));
    let settings = ok(&[
        ("ssl.keystore.type", s("PEM")),
        ("ssl.keystore.key", text("server.key.legacy-enc.pem")),
        ("ssl.keystore.certificate.chain", chain),
        ("ssl.key.password", s(KEY_PASS)),
    ]);
    let e = ServerTls::new(&settings).unwrap_err().to_string();
    assert!(e.contains("PBES2") && e.contains("ssl.keystore.key"), "{e}");
    no_secrets(&e);
}

#[test]
fn pkcs1_keys_are_refused_as_kafka_reads_pkcs8_only() {
    let key = text("server.key");
    // Relabel: Kafka would not read an "RSA PRIVATE KEY" as PKCS#8 either.
    let relabelled = key.replace("PRIVATE KEY", "RSA PRIVATE KEY");
    let settings = ok(&[
        ("ssl.keystore.type", s("PEM")),
        ("ssl.keystore.key", relabelled),
        ("ssl.keystore.certificate.chain", text("server.pem")),
    ]);
    let e = ServerTls::new(&settings).unwrap_err().to_string();
    assert!(e.contains("PKCS#8"), "{e}");
}

#[test]
fn missing_file() {
    let e = load_error(
        &key_store(Some("PEM"), "no-such-keystore.pem", None, None),
        "no-such-keystore.pem",
    );
    assert!(
        e.contains("SSL keystore") && e.contains("ssl.keystore.location"),
        "{e}"
    );
    let settings = ok(&trust_store(Some("PEM"), "no-such-ca.pem", None));
    let e = client_config(&settings).unwrap_err().to_string();
    assert!(
        e.contains("no-such-ca.pem") && e.contains("ssl.truststore.location"),
        "{e}"
    );
}

#[test]
fn a_pem_file_without_certificates_or_key() {
    let e = load_error(&key_store(Some("PEM"), "ca.pem", None, None), "ca.pem");
    assert!(e.contains("No matching PRIVATE KEY entries"), "{e}");
    let e = load_error(
        &key_store(Some("PEM"), "server.key", None, None),
        "server.key",
    );
    assert!(e.contains("No matching CERTIFICATE entries"), "{e}");
}

#[test]
fn unknown_store_type() {
    let e = config_error(&[("ssl.keystore.type", s("BKS"))], "ssl.keystore.type");
    assert!(e.contains("BKS"), "{e}");
    config_error(
        &[("ssl.truststore.type", s("JCEKS"))],
        "ssl.truststore.type",
    );
}

#[test]
fn cipher_suites() {
    let s1 = ok(&[(
        "ssl.cipher.suites",
        s("TLS_AES_128_GCM_SHA256, TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384"),
    )]);
    assert_eq!(
        s1.cipher_suites,
        vec![
            "TLS_AES_128_GCM_SHA256",
            "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384"
        ]
    );
    let e = config_error(
        &[("ssl.cipher.suites", s("TLS_RSA_WITH_AES_128_CBC_SHA"))],
        "ssl.cipher.suites",
    );
    assert!(
        e.contains("Unsupported CipherSuite: TLS_RSA_WITH_AES_128_CBC_SHA"),
        "{e}"
    );
    let e = config_error(
        &[(
            "ssl.cipher.suites",
            s("TLS_AES_128_GCM_SHA256,TLS_AES_128_GCM_SHA256"),
        )],
        "ssl.cipher.suites",
    );
    assert!(e.contains("must not be duplicated"), "{e}");
    // TLS 1.3 suites only, TLS 1.2 only: nothing can be negotiated.
    config_error(
        &[
            ("ssl.cipher.suites", s("TLS_AES_128_GCM_SHA256")),
            ("ssl.enabled.protocols", s("TLSv1.2")),
        ],
        "ssl.cipher.suites",
    );
}

#[test]
fn protocols() {
    let e = config_error(
        &[("ssl.enabled.protocols", s("TLSv1.1,TLSv1.2"))],
        "ssl.enabled.protocols",
    );
    assert!(e.contains("TLSv1.1"), "{e}");
    let e = config_error(&[("ssl.protocol", s("TLSv1.1"))], "ssl.protocol");
    assert!(e.contains("TLSv1.1"), "{e}");
    config_error(&[("ssl.protocol", s("SSLv3"))], "ssl.protocol");
    let e = config_error(
        &[("ssl.enabled.protocols", s("TLSv1.3,TLSv1.3"))],
        "ssl.enabled.protocols",
    );
    assert!(e.contains("must not be duplicated"), "{e}");
    let only13 = ok(&[("ssl.enabled.protocols", s("TLSv1.3"))]);
    assert_eq!(only13.enabled_protocols, vec![TlsVersion::Tls13]);
    // An empty list is Kafka's "the engine's defaults": both.
    let empty = ok(&[("ssl.enabled.protocols", s(""))]);
    assert_eq!(
        empty.enabled_protocols,
        vec![TlsVersion::Tls12, TlsVersion::Tls13]
    );
    let v12 = ok(&[("ssl.protocol", s("TLSv1.2"))]);
    assert_eq!(v12.protocol, Some(TlsVersion::Tls12));
}

#[test]
fn what_kraft_rs_cannot_do_is_refused() {
    config_error(&[("ssl.provider", s("SunJSSE"))], "ssl.provider");
    config_error(
        &[("ssl.engine.factory.class", s("com.example.MyFactory"))],
        "ssl.engine.factory.class",
    );
    config_error(
        &[("ssl.keymanager.algorithm", s("PKIX"))],
        "ssl.keymanager.algorithm",
    );
    config_error(
        &[("ssl.trustmanager.algorithm", s("SunX509"))],
        "ssl.trustmanager.algorithm",
    );
    config_error(
        &[("ssl.endpoint.identification.algorithm", s("LDAPS"))],
        "ssl.endpoint.identification.algorithm",
    );
}

#[test]
fn client_auth_values() {
    assert_eq!(
        ok(&[("ssl.client.auth", s("required"))]).client_auth,
        ClientAuth::Required
    );
    assert_eq!(
        ok(&[("ssl.client.auth", s("REQUESTED"))]).client_auth,
        ClientAuth::Requested
    );
    assert_eq!(
        ok(&[("ssl.client.auth", s("none"))]).client_auth,
        ClientAuth::None
    );
    let e = config_error(&[("ssl.client.auth", s("maybe"))], "ssl.client.auth");
    assert!(
        e.contains("String must be one of: required, requested, none"),
        "{e}"
    );
}

#[test]
fn booleans_and_rules() {
    let s1 = ok(&[
        ("ssl.allow.dn.changes", s("TRUE")),
        ("ssl.allow.san.changes", s("false")),
    ]);
    assert!(s1.allow_dn_changes && !s1.allow_san_changes);
    config_error(
        &[("ssl.allow.dn.changes", s("yes"))],
        "ssl.allow.dn.changes",
    );
    config_error(
        &[("ssl.principal.mapping.rules", s("DEFAULT/L"))],
        "ssl.principal.mapping.rules",
    );
}

#[test]
fn a_server_needs_a_key_store_and_client_auth_a_trust_store() {
    let e = ServerTls::new(&ok(&[])).unwrap_err().to_string();
    assert!(e.contains("ssl.keystore.location"), "{e}");
    let mut pairs = pem_server();
    pairs.push(("ssl.client.auth", s("required")));
    let e = ServerTls::new(&ok(&pairs)).unwrap_err().to_string();
    assert!(
        e.contains("ssl.client.auth") && e.contains("trust store"),
        "{e}"
    );
    let e = client_config(&ok(&[])).unwrap_err().to_string();
    assert!(e.contains("ssl.truststore.location"), "{e}");
}

#[test]
fn no_password_in_debug_output() {
    let settings = ok(&[
        ("ssl.keystore.location", data("server.jks")),
        ("ssl.keystore.password", s(STORE_PASS)),
        ("ssl.key.password", s(KEY_PASS)),
        ("ssl.truststore.location", data("truststore.jks")),
        ("ssl.truststore.password", s(STORE_PASS)),
    ]);
    let debug = format!("{settings:?}");
    no_secrets(&debug);
    assert!(debug.contains("[hidden]"), "{debug}");
    let inline = ok(&[
        ("ssl.keystore.type", s("PEM")),
        ("ssl.keystore.key", text("server.key")),
        ("ssl.keystore.certificate.chain", text("server.pem")),
    ]);
    assert!(!format!("{inline:?}").contains("PRIVATE KEY"));
}

#[test]
fn a_servers_trust_store_is_read_even_without_client_auth() {
    // As in Kafka, a broken trust store stops the listener even when
    // ssl.client.auth=none would never use it.
    let mut pairs = pem_server();
    pairs.push(("ssl.truststore.location", data("truststore.jks")));
    pairs.push(("ssl.truststore.password", s("wrong-password-77")));
    let e = load_error(&pairs, "truststore.jks");
    assert!(e.contains("SSL truststore"), "{e}");
}

#[test]
fn the_content_decides_between_jks_and_pkcs12_as_in_java() {
    // keytool writes PKCS12 by default whatever the file is called, and
    // Java reads either format under either type.
    serves_server_pem(&key_store(
        Some("JKS"),
        "server.p12",
        Some(STORE_PASS),
        None,
    ));
    serves_server_pem(&key_store(
        Some("PKCS12"),
        "server.jks",
        Some(STORE_PASS),
        Some(KEY_PASS),
    ));
    trusts_ca(&trust_store(None, "truststore.p12", Some(STORE_PASS)));
}

#[test]
fn a_jks_trust_store_without_password_is_read_without_integrity_check() {
    trusts_ca(&trust_store(Some("JKS"), "truststore.jks", None));
    // A PKCS12 trust store needs its password (its certificates are encrypted).
    let settings = ok(&trust_store(Some("PKCS12"), "truststore.p12", None));
    let e = client_config(&settings).unwrap_err().to_string();
    assert!(e.contains("ssl.truststore.password is not set"), "{e}");
}

#[test]
fn older_pbes2_keys_with_3des_and_sha1_are_read() {
    let chain = format!("{}{}", text("server.pem"), text("ca.pem"));
    serves_server_pem(&[
        ("ssl.keystore.type", s("PEM")),
        ("ssl.keystore.key", text("server.key.des3-sha1.pem")),
        ("ssl.keystore.certificate.chain", chain),
        ("ssl.key.password", s(KEY_PASS)),
    ]);
}

/// The PEM cases of Kafka's DefaultSslEngineFactoryTest, with our fixtures.
#[test]
fn kafkas_pem_cases() {
    // A trust store of one and of two certificates.
    let one = ok(&[
        ("ssl.truststore.type", s("PEM")),
        ("ssl.truststore.certificates", text("ca.pem")),
    ]);
    assert_eq!(one.trust_store.unwrap().load().unwrap().len(), 1);
    let two = ok(&[
        ("ssl.truststore.type", s("PEM")),
        (
            "ssl.truststore.certificates",
            format!(
                "{}\n{}",
                text("ca.pem").trim(),
                text("untrusted-ca.pem").trim()
            ),
        ),
    ]);
    assert_eq!(
        two.trust_store.unwrap().load().unwrap(),
        vec![cert("ca.pem"), cert("untrusted-ca.pem")]
    );
    // Keys with leading and trailing new lines, and a chain with openssl's
    // "Bag Attributes" around its certificates.
    let chain = format!(
        "Bag Attributes\n    friendlyName: server\nsubject=/CN=localhost\nissuer=/CN=kraft-rs Test CA\n{}\
         Bag Attributes\n    friendlyName: CN=kraft-rs Test CA\n{}",
        text("server.pem"),
        text("ca.pem")
    );
    for key in [
        format!("\n\n{}", text("server.key.enc.pem")),
        format!("{}\n\n", text("server.key.enc.pem")),
        text("server.key.enc.pem").replace('\n', "\r\n"),
    ] {
        serves_server_pem(&[
            ("ssl.keystore.type", s("PEM")),
            ("ssl.keystore.key", key),
            ("ssl.keystore.certificate.chain", chain.clone()),
            ("ssl.key.password", s(KEY_PASS)),
        ]);
    }
    // Two keys where one is expected.
    let e = ServerTls::new(&ok(&[
        ("ssl.keystore.type", s("PEM")),
        (
            "ssl.keystore.key",
            format!("{}{}", text("server.key"), text("client.key")),
        ),
        ("ssl.keystore.certificate.chain", chain),
    ]))
    .unwrap_err()
    .to_string();
    assert!(e.contains("Expected one private key, but found 2"), "{e}");
}

#[test]
fn a_key_that_does_not_belong_to_the_certificate_is_refused() {
    let e = ServerTls::new(&ok(&[
        ("ssl.keystore.type", s("PEM")),
        ("ssl.keystore.key", text("client.key")),
        ("ssl.keystore.certificate.chain", text("server.pem")),
    ]))
    .unwrap_err();
    assert!(matches!(e, SecurityError::Tls(_)), "{e:?}");
    assert!(e.to_string().contains("key store"), "{e}");
}
