//! Kafka's `ssl.*` settings and the rustls configurations built from them.
//!
//! [`SslSettings::from_kafka`] reads a listener's (or a client's) `ssl.*`
//! keys, validates them as Kafka does and refuses what kraft-rs cannot do;
//! [`ServerTls`] is a server's TLS state (reloadable when the key or trust
//! store files change); [`client_config`] is the client side.
//!
//! rustls with its `ring` provider does all the cryptography; the provider
//! is passed explicitly, never taken from a process-wide default.
//!
//! # Where kraft-rs differs from a JVM
//!
//! * Protocols: TLSv1.2 and TLSv1.3 only; cipher suites: those of rustls
//!   (see [`supported_cipher_suites`]). Anything else is refused by name.
//! * `ssl.provider`, a custom `ssl.engine.factory.class` and non-default
//!   `ssl.keymanager.algorithm` / `ssl.trustmanager.algorithm` are refused;
//!   `ssl.secure.random.implementation` is ignored (with a warning).
//! * There is no default trust store (the JVM's `cacerts`): a client and a
//!   server asking for client certificates need `ssl.truststore.*`.
//! * Encrypted PEM keys must use PBES2 (openssl's default for
//!   `openssl pkcs8 -topk8`); legacy PKCS#12-PBE/PBES1 keys are refused.
//! * A PKCS12 key store's key is decrypted with the store password (keytool
//!   and openssl give both the same); a PKCS12 trust store needs its password.
//! * The first private key entry (by alias) of a JKS or PKCS12 key store is used.
//! * Reloading ([`ServerTls::reload_if_changed`]) compares file contents,
//!   where Kafka compares modification times on a dynamic config update; the
//!   subject and subject alternative name checks are Kafka's.

use std::collections::HashSet;
use std::fmt;
use std::path::PathBuf;
use std::sync::{Arc, RwLock};

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::client::WebPkiServerVerifier;
use rustls::crypto::CryptoProvider;
use rustls::server::WebPkiClientVerifier;
use rustls::{
    CertificateError, DigitallySignedStruct, RootCertStore, SignatureScheme,
    SupportedProtocolVersion,
};
use rustls_pki_types::{CertificateDer, ServerName, UnixTime};
use sha2::{Digest, Sha256};

use crate::keystore::{KeyMaterial, KeyStoreConfig, StoreType, TrustStoreConfig};
use crate::principal::{subject_name, SslPrincipalMapper};
use crate::{Secret, SecurityError};

/// `ssl.protocol`
pub const SSL_PROTOCOL: &str = "ssl.protocol";
/// `ssl.provider`
pub const SSL_PROVIDER: &str = "ssl.provider";
/// `ssl.cipher.suites`
pub const SSL_CIPHER_SUITES: &str = "ssl.cipher.suites";
/// `ssl.enabled.protocols`
pub const SSL_ENABLED_PROTOCOLS: &str = "ssl.enabled.protocols";
/// `ssl.keystore.type`
pub const SSL_KEYSTORE_TYPE: &str = "ssl.keystore.type";
/// `ssl.keystore.location`
pub const SSL_KEYSTORE_LOCATION: &str = "ssl.keystore.location";
/// `ssl.keystore.password`
pub const SSL_KEYSTORE_PASSWORD: &str = "ssl.keystore.password";
/// `ssl.key.password`
pub const SSL_KEY_PASSWORD: &str = "ssl.key.password";
/// `ssl.keystore.key`
pub const SSL_KEYSTORE_KEY: &str = "ssl.keystore.key";
/// `ssl.keystore.certificate.chain`
pub const SSL_KEYSTORE_CERTIFICATE_CHAIN: &str = "ssl.keystore.certificate.chain";
/// `ssl.truststore.certificates`
pub const SSL_TRUSTSTORE_CERTIFICATES: &str = "ssl.truststore.certificates";
/// `ssl.truststore.type`
pub const SSL_TRUSTSTORE_TYPE: &str = "ssl.truststore.type";
/// `ssl.truststore.location`
pub const SSL_TRUSTSTORE_LOCATION: &str = "ssl.truststore.location";
/// `ssl.truststore.password`
pub const SSL_TRUSTSTORE_PASSWORD: &str = "ssl.truststore.password";
/// `ssl.keymanager.algorithm`
pub const SSL_KEYMANAGER_ALGORITHM: &str = "ssl.keymanager.algorithm";
/// `ssl.trustmanager.algorithm`
pub const SSL_TRUSTMANAGER_ALGORITHM: &str = "ssl.trustmanager.algorithm";
/// `ssl.endpoint.identification.algorithm`
pub const SSL_ENDPOINT_IDENTIFICATION_ALGORITHM: &str = "ssl.endpoint.identification.algorithm";
/// `ssl.secure.random.implementation`
pub const SSL_SECURE_RANDOM_IMPLEMENTATION: &str = "ssl.secure.random.implementation";
/// `ssl.engine.factory.class`
pub const SSL_ENGINE_FACTORY_CLASS: &str = "ssl.engine.factory.class";
/// `ssl.client.auth` (brokers and controllers)
pub const SSL_CLIENT_AUTH: &str = "ssl.client.auth";
/// `ssl.principal.mapping.rules` (brokers and controllers)
pub const SSL_PRINCIPAL_MAPPING_RULES: &str = crate::principal::SSL_PRINCIPAL_MAPPING_RULES;
/// `ssl.allow.dn.changes` (brokers and controllers)
pub const SSL_ALLOW_DN_CHANGES: &str = "ssl.allow.dn.changes";
/// `ssl.allow.san.changes` (brokers and controllers)
pub const SSL_ALLOW_SAN_CHANGES: &str = "ssl.allow.san.changes";

/// Every `ssl.*` key [`SslSettings::from_kafka`] reads (for config docs and
/// unknown-key checks): Kafka's `SslConfigs` and the SSL keys of
/// `BrokerSecurityConfigs`.
pub const SSL_KEYS: &[&str] = &[
    SSL_PROTOCOL,
    SSL_PROVIDER,
    SSL_CIPHER_SUITES,
    SSL_ENABLED_PROTOCOLS,
    SSL_KEYSTORE_TYPE,
    SSL_KEYSTORE_LOCATION,
    SSL_KEYSTORE_PASSWORD,
    SSL_KEY_PASSWORD,
    SSL_KEYSTORE_KEY,
    SSL_KEYSTORE_CERTIFICATE_CHAIN,
    SSL_TRUSTSTORE_CERTIFICATES,
    SSL_TRUSTSTORE_TYPE,
    SSL_TRUSTSTORE_LOCATION,
    SSL_TRUSTSTORE_PASSWORD,
    SSL_KEYMANAGER_ALGORITHM,
    SSL_TRUSTMANAGER_ALGORITHM,
    SSL_ENDPOINT_IDENTIFICATION_ALGORITHM,
    SSL_SECURE_RANDOM_IMPLEMENTATION,
    SSL_ENGINE_FACTORY_CLASS,
    SSL_CLIENT_AUTH,
    SSL_PRINCIPAL_MAPPING_RULES,
    SSL_ALLOW_DN_CHANGES,
    SSL_ALLOW_SAN_CHANGES,
];

/// Kafka's default `ssl.protocol`.
pub const DEFAULT_SSL_PROTOCOL: &str = "TLSv1.3";
/// Kafka's default `ssl.enabled.protocols`.
pub const DEFAULT_SSL_ENABLED_PROTOCOLS: &str = "TLSv1.2,TLSv1.3";
/// Kafka's default store type (`ssl.keystore.type`, `ssl.truststore.type`).
pub const DEFAULT_SSL_STORE_TYPE: &str = "JKS";
/// Kafka's default `ssl.endpoint.identification.algorithm`.
pub const DEFAULT_SSL_ENDPOINT_IDENTIFICATION_ALGORITHM: &str = "https";
/// The JVM's default `ssl.keymanager.algorithm`, the only one kraft-rs accepts.
pub const DEFAULT_SSL_KEYMANAGER_ALGORITHM: &str = "SunX509";
/// The JVM's default `ssl.trustmanager.algorithm`, the only one kraft-rs accepts.
pub const DEFAULT_SSL_TRUSTMANAGER_ALGORITHM: &str = "PKIX";
/// The one `ssl.engine.factory.class` kraft-rs accepts (Kafka's default).
pub const DEFAULT_SSL_ENGINE_FACTORY_CLASS: &str =
    "org.apache.kafka.common.security.ssl.DefaultSslEngineFactory";

/// TLS protocol versions Kafka names ("TLSv1.2", "TLSv1.3").
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum TlsVersion {
    /// TLSv1.2
    Tls12,
    /// TLSv1.3
    Tls13,
}

impl TlsVersion {
    /// The name Kafka (and Java) use: `TLSv1.2` or `TLSv1.3`.
    pub fn name(&self) -> &'static str {
        match self {
            TlsVersion::Tls12 => "TLSv1.2",
            TlsVersion::Tls13 => "TLSv1.3",
        }
    }

    fn rustls(&self) -> &'static SupportedProtocolVersion {
        match self {
            TlsVersion::Tls12 => &rustls::version::TLS12,
            TlsVersion::Tls13 => &rustls::version::TLS13,
        }
    }

    fn parse(key: &str, value: &str) -> Result<TlsVersion, SecurityError> {
        match value {
            "TLSv1.2" => Ok(TlsVersion::Tls12),
            "TLSv1.3" => Ok(TlsVersion::Tls13),
            _ => Err(SecurityError::config(
                key,
                format!("protocol {value} is not supported by kraft-rs (it speaks TLSv1.2 and TLSv1.3 only)"),
            )),
        }
    }
}

impl fmt::Display for TlsVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// `ssl.client.auth`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum ClientAuth {
    /// No client certificate is asked for (Kafka's default).
    #[default]
    None,
    /// A client certificate is asked for; a client without one is accepted
    /// (as `ANONYMOUS`), one with an untrusted certificate is refused.
    Requested,
    /// A trusted client certificate is required.
    Required,
}

impl ClientAuth {
    /// The value Kafka uses (`none`, `requested`, `required`).
    pub fn name(&self) -> &'static str {
        match self {
            ClientAuth::None => "none",
            ClientAuth::Requested => "requested",
            ClientAuth::Required => "required",
        }
    }
}

/// Kafka's SSL settings of one listener (server side) or one client.
#[derive(Clone, Debug)]
pub struct SslSettings {
    /// `ssl.protocol`: a client set to TLSv1.2 does not offer TLSv1.3
    /// (Kafka's behaviour); `None` for "TLS" (no cap).
    pub protocol: Option<TlsVersion>,
    /// `ssl.enabled.protocols` (empty means Kafka's default, both).
    pub enabled_protocols: Vec<TlsVersion>,
    /// `ssl.cipher.suites` as IANA names (empty: every suite rustls offers).
    pub cipher_suites: Vec<String>,
    /// `ssl.client.auth` (server side).
    pub client_auth: ClientAuth,
    /// `ssl.endpoint.identification.algorithm` (`https`, or empty for off).
    pub endpoint_identification_algorithm: String,
    /// `ssl.principal.mapping.rules`, parsed.
    pub principal_mapper: SslPrincipalMapper,
    /// The key store, if one is configured.
    pub key_store: Option<KeyStoreConfig>,
    /// The trust store, if one is configured.
    pub trust_store: Option<TrustStoreConfig>,
    /// `ssl.allow.dn.changes`: whether a reloaded certificate may have another subject.
    pub allow_dn_changes: bool,
    /// `ssl.allow.san.changes`: whether a reloaded certificate may drop subject alternative names.
    pub allow_san_changes: bool,
}

/// A value that is set and not blank.
fn non_blank(get: &dyn Fn(&str) -> Option<String>, key: &str) -> Option<String> {
    get(key).filter(|v| !v.trim().is_empty())
}

/// Kafka's LIST type: comma separated, trimmed, empty entries dropped, no duplicates.
fn kafka_list(key: &str, value: &str) -> Result<Vec<String>, SecurityError> {
    let items: Vec<String> = value
        .split(',')
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .collect();
    let mut seen = HashSet::new();
    for item in &items {
        if !seen.insert(item.as_str()) {
            return Err(SecurityError::config(
                key,
                format!("Configuration '{key}' values must not be duplicated."),
            ));
        }
    }
    Ok(items)
}

fn kafka_bool(key: &str, value: Option<String>) -> Result<bool, SecurityError> {
    match value.as_deref().map(str::trim) {
        None => Ok(false),
        Some(v) if v.eq_ignore_ascii_case("true") => Ok(true),
        Some(v) if v.eq_ignore_ascii_case("false") => Ok(false),
        Some(_) => Err(SecurityError::config(
            key,
            "Expected value to be either true or false",
        )),
    }
}

/// The IANA name of a rustls suite (rustls calls TLS 1.3 suites `TLS13_*`).
fn iana_name(suite: &rustls::SupportedCipherSuite) -> String {
    let name = suite.suite().as_str().unwrap_or("");
    match name.strip_prefix("TLS13_") {
        Some(rest) => format!("TLS_{rest}"),
        None => name.to_string(),
    }
}

/// rustls's `ring` provider, the one kraft-rs uses. (rustls marks it
/// deprecated for lacking post-quantum key exchange; kraft-rs picks ring on
/// purpose and passes it explicitly.)
#[allow(deprecated)]
pub fn ring_provider() -> CryptoProvider {
    rustls::crypto::ring::default_provider()
}

/// The cipher suites of rustls's ring provider, by IANA name.
pub fn supported_cipher_suites() -> Vec<String> {
    ring_provider()
        .cipher_suites
        .iter()
        .map(iana_name)
        .collect()
}

impl SslSettings {
    /// Reads Kafka's `ssl.*` keys through `get` (the caller resolves the
    /// `listener.name.<l>.` prefix: `get("ssl.keystore.location")` returns the
    /// effective value). Validates as Kafka does and refuses what kraft-rs
    /// cannot do (unknown store type, a cipher suite rustls does not offer, a
    /// protocol other than TLSv1.2/TLSv1.3, `ssl.engine.factory.class`,
    /// `ssl.provider`, a non-default `ssl.keymanager.algorithm` or
    /// `ssl.trustmanager.algorithm`, ...) with [`SecurityError::Config`]
    /// naming the key and the reason. Files are not read here.
    pub fn from_kafka(get: &dyn Fn(&str) -> Option<String>) -> Result<SslSettings, SecurityError> {
        // Things kraft-rs cannot do.
        if let Some(provider) = non_blank(get, SSL_PROVIDER) {
            return Err(SecurityError::config(
                SSL_PROVIDER,
                format!("security provider {provider:?} is a JVM notion; kraft-rs uses rustls (leave it unset)"),
            ));
        }
        if let Some(class) = non_blank(get, SSL_ENGINE_FACTORY_CLASS) {
            if class.trim() != DEFAULT_SSL_ENGINE_FACTORY_CLASS {
                return Err(SecurityError::config(
                    SSL_ENGINE_FACTORY_CLASS,
                    format!("custom SSL engine factory {class} cannot be loaded by kraft-rs (leave it unset)"),
                ));
            }
        }
        for (key, default) in [
            (SSL_KEYMANAGER_ALGORITHM, DEFAULT_SSL_KEYMANAGER_ALGORITHM),
            (
                SSL_TRUSTMANAGER_ALGORITHM,
                DEFAULT_SSL_TRUSTMANAGER_ALGORITHM,
            ),
        ] {
            if let Some(value) = non_blank(get, key) {
                if !value.trim().eq_ignore_ascii_case(default) {
                    return Err(SecurityError::config(
                        key,
                        format!("algorithm {value} is not supported by kraft-rs (only the default, {default})"),
                    ));
                }
            }
        }
        if let Some(random) = non_blank(get, SSL_SECURE_RANDOM_IMPLEMENTATION) {
            tracing::warn!(
                "{SSL_SECURE_RANDOM_IMPLEMENTATION}={random} is ignored: kraft-rs uses the system's \
                 random number generator through rustls/ring"
            );
        }

        // Protocols.
        let protocol_value = get(SSL_PROTOCOL).unwrap_or_else(|| DEFAULT_SSL_PROTOCOL.to_string());
        let protocol = match protocol_value.trim() {
            "TLS" => None,
            other => Some(TlsVersion::parse(SSL_PROTOCOL, other)?),
        };
        let enabled_value =
            get(SSL_ENABLED_PROTOCOLS).unwrap_or_else(|| DEFAULT_SSL_ENABLED_PROTOCOLS.to_string());
        let mut enabled_protocols = Vec::new();
        for name in kafka_list(SSL_ENABLED_PROTOCOLS, &enabled_value)? {
            enabled_protocols.push(TlsVersion::parse(SSL_ENABLED_PROTOCOLS, &name)?);
        }
        if enabled_protocols.is_empty() {
            enabled_protocols = vec![TlsVersion::Tls12, TlsVersion::Tls13];
        }
        enabled_protocols.sort();

        // Cipher suites.
        let cipher_suites = kafka_list(
            SSL_CIPHER_SUITES,
            &get(SSL_CIPHER_SUITES).unwrap_or_default(),
        )?;
        let supported = supported_cipher_suites();
        for suite in &cipher_suites {
            if !supported.iter().any(|s| s == suite) {
                return Err(SecurityError::config(
                    SSL_CIPHER_SUITES,
                    format!(
                        "Unsupported CipherSuite: {suite} (kraft-rs offers {})",
                        supported.join(", ")
                    ),
                ));
            }
        }

        // Client authentication (Kafka: one of required, requested, none).
        let client_auth = match get(SSL_CLIENT_AUTH) {
            None => ClientAuth::None,
            Some(value) => match value.trim().to_ascii_lowercase().as_str() {
                "none" => ClientAuth::None,
                "requested" => ClientAuth::Requested,
                "required" => ClientAuth::Required,
                _ => {
                    return Err(SecurityError::config(
                        SSL_CLIENT_AUTH,
                        format!(
                        "Invalid value {value} : String must be one of: required, requested, none"
                    ),
                    ))
                }
            },
        };

        let endpoint_identification_algorithm = get(SSL_ENDPOINT_IDENTIFICATION_ALGORITHM)
            .unwrap_or_else(|| DEFAULT_SSL_ENDPOINT_IDENTIFICATION_ALGORITHM.to_string())
            .trim()
            .to_string();
        if !endpoint_identification_algorithm.is_empty()
            && !endpoint_identification_algorithm.eq_ignore_ascii_case("https")
        {
            return Err(SecurityError::config(
                SSL_ENDPOINT_IDENTIFICATION_ALGORITHM,
                format!(
                    "algorithm {endpoint_identification_algorithm} is not supported by kraft-rs \
                     (\"https\" checks the host name, an empty value turns the check off)"
                ),
            ));
        }

        let rules = get(SSL_PRINCIPAL_MAPPING_RULES)
            .unwrap_or_else(|| crate::principal::DEFAULT_SSL_PRINCIPAL_MAPPING_RULES.to_string());
        let principal_mapper = SslPrincipalMapper::from_rules(&rules)?;

        let allow_dn_changes = kafka_bool(SSL_ALLOW_DN_CHANGES, get(SSL_ALLOW_DN_CHANGES))?;
        let allow_san_changes = kafka_bool(SSL_ALLOW_SAN_CHANGES, get(SSL_ALLOW_SAN_CHANGES))?;

        let key_store = key_store_config(get)?;
        let trust_store = trust_store_config(get)?;

        let settings = SslSettings {
            protocol,
            enabled_protocols,
            cipher_suites,
            client_auth,
            endpoint_identification_algorithm,
            principal_mapper,
            key_store,
            trust_store,
            allow_dn_changes,
            allow_san_changes,
        };
        // Refuse now a combination of versions and suites that cannot work.
        settings.provider()?;
        settings.server_versions()?;
        Ok(settings)
    }

    /// Whether clients verify the server's host name
    /// (`ssl.endpoint.identification.algorithm`, default "https"; empty = off).
    pub fn endpoint_identification(&self) -> bool {
        !self.endpoint_identification_algorithm.is_empty()
    }

    /// The ring provider limited to `ssl.cipher.suites`.
    fn provider(&self) -> Result<Arc<CryptoProvider>, SecurityError> {
        let mut provider = ring_provider();
        if !self.cipher_suites.is_empty() {
            provider
                .cipher_suites
                .retain(|s| self.cipher_suites.iter().any(|name| *name == iana_name(s)));
        }
        for version in &self.enabled_protocols {
            let usable = provider
                .cipher_suites
                .iter()
                .any(|s| s.version() == version.rustls());
            if !usable && !self.cipher_suites.is_empty() {
                tracing::debug!("no cipher suite of {SSL_CIPHER_SUITES} is usable with {version}");
            }
        }
        if !self.enabled_protocols.iter().any(|v| {
            provider
                .cipher_suites
                .iter()
                .any(|s| s.version() == v.rustls())
        }) {
            return Err(SecurityError::config(
                SSL_CIPHER_SUITES,
                "none of these cipher suites can be used with the enabled protocols",
            ));
        }
        Ok(Arc::new(provider))
    }

    fn server_versions(&self) -> Result<Vec<&'static SupportedProtocolVersion>, SecurityError> {
        Ok(self.enabled_protocols.iter().map(|v| v.rustls()).collect())
    }

    /// The versions a client offers: the enabled ones, without TLSv1.3 when
    /// `ssl.protocol` is TLSv1.2 (as Kafka's clients do).
    fn client_versions(&self) -> Result<Vec<&'static SupportedProtocolVersion>, SecurityError> {
        let versions: Vec<_> = self
            .enabled_protocols
            .iter()
            .filter(|v| self.protocol.is_none_or(|cap| **v <= cap))
            .map(|v| v.rustls())
            .collect();
        if versions.is_empty() {
            return Err(SecurityError::config(
                SSL_PROTOCOL,
                "with this ssl.protocol a client can use none of ssl.enabled.protocols",
            ));
        }
        Ok(versions)
    }
}

fn secret(get: &dyn Fn(&str) -> Option<String>, key: &str) -> Option<Secret> {
    get(key).map(Secret::new)
}

fn store_type(get: &dyn Fn(&str) -> Option<String>, key: &str) -> Result<StoreType, SecurityError> {
    let value = get(key).unwrap_or_else(|| DEFAULT_SSL_STORE_TYPE.to_string());
    StoreType::from_config(key, &value)
}

/// Kafka's `createKeystore` checks, in Kafka's order and with its messages.
fn key_store_config(
    get: &dyn Fn(&str) -> Option<String>,
) -> Result<Option<KeyStoreConfig>, SecurityError> {
    let store_type = store_type(get, SSL_KEYSTORE_TYPE)?;
    let path = non_blank(get, SSL_KEYSTORE_LOCATION);
    let password = secret(get, SSL_KEYSTORE_PASSWORD);
    let key_password = secret(get, SSL_KEY_PASSWORD);
    let key = secret(get, SSL_KEYSTORE_KEY).filter(|s| !s.expose().trim().is_empty());
    let chain =
        secret(get, SSL_KEYSTORE_CERTIFICATE_CHAIN).filter(|s| !s.expose().trim().is_empty());
    if let Some(key) = key {
        if store_type != StoreType::Pem {
            return Err(SecurityError::config(
                SSL_KEYSTORE_KEY,
                format!("SSL private key can be specified only for PEM, but key store type is {store_type}."),
            ));
        }
        let Some(chain) = chain else {
            return Err(SecurityError::config(
                SSL_KEYSTORE_CERTIFICATE_CHAIN,
                "SSL private key is specified, but certificate chain is not specified.",
            ));
        };
        if path.is_some() {
            return Err(SecurityError::config(
                SSL_KEYSTORE_LOCATION,
                "Both SSL key store location and separate private key are specified.",
            ));
        }
        if password.is_some() {
            return Err(SecurityError::config(
                SSL_KEYSTORE_PASSWORD,
                "SSL key store password cannot be specified with PEM format, only key password may be specified.",
            ));
        }
        return Ok(Some(KeyStoreConfig::Pem {
            certificate_chain: chain,
            key,
            key_password,
        }));
    }
    if chain.is_some() {
        return Err(SecurityError::config(
            SSL_KEYSTORE_KEY,
            "SSL certificate chain is specified, but private key is not specified",
        ));
    }
    match (path, password) {
        (Some(path), password) if store_type == StoreType::Pem => {
            if password.is_some() {
                return Err(SecurityError::config(
                    SSL_KEYSTORE_PASSWORD,
                    "SSL key store password cannot be specified with PEM format, only key password may be specified",
                ));
            }
            Ok(Some(KeyStoreConfig::File {
                store_type,
                path: PathBuf::from(path),
                password: None,
                key_password,
            }))
        }
        (None, Some(_)) => Err(SecurityError::config(
            SSL_KEYSTORE_LOCATION,
            "SSL key store is not specified, but key store password is specified.",
        )),
        (Some(_), None) => Err(SecurityError::config(
            SSL_KEYSTORE_PASSWORD,
            "SSL key store is specified, but key store password is not specified.",
        )),
        (Some(path), Some(password)) => Ok(Some(KeyStoreConfig::File {
            store_type,
            path: PathBuf::from(path),
            password: Some(password),
            key_password,
        })),
        (None, None) => Ok(None),
    }
}

/// Kafka's `createTruststore` checks, in Kafka's order and with its messages.
fn trust_store_config(
    get: &dyn Fn(&str) -> Option<String>,
) -> Result<Option<TrustStoreConfig>, SecurityError> {
    let store_type = store_type(get, SSL_TRUSTSTORE_TYPE)?;
    let path = non_blank(get, SSL_TRUSTSTORE_LOCATION);
    let password = secret(get, SSL_TRUSTSTORE_PASSWORD);
    let certificates =
        secret(get, SSL_TRUSTSTORE_CERTIFICATES).filter(|s| !s.expose().trim().is_empty());
    if let Some(certificates) = certificates {
        if store_type != StoreType::Pem {
            return Err(SecurityError::config(
                SSL_TRUSTSTORE_CERTIFICATES,
                format!("SSL trust store certs can be specified only for PEM, but trust store type is {store_type}."),
            ));
        }
        if path.is_some() {
            return Err(SecurityError::config(
                SSL_TRUSTSTORE_LOCATION,
                "Both SSL trust store location and separate trust certificates are specified.",
            ));
        }
        if password.is_some() {
            return Err(SecurityError::config(
                SSL_TRUSTSTORE_PASSWORD,
                "SSL trust store password cannot be specified for PEM format.",
            ));
        }
        return Ok(Some(TrustStoreConfig::Pem { certificates }));
    }
    match (path, password) {
        (Some(path), password) if store_type == StoreType::Pem => {
            if password.is_some() {
                return Err(SecurityError::config(
                    SSL_TRUSTSTORE_PASSWORD,
                    "SSL trust store password cannot be specified for PEM format.",
                ));
            }
            Ok(Some(TrustStoreConfig::File {
                store_type,
                path: PathBuf::from(path),
                password: None,
            }))
        }
        (None, Some(_)) => Err(SecurityError::config(
            SSL_TRUSTSTORE_LOCATION,
            "SSL trust store is not specified, but trust store password is specified.",
        )),
        (Some(path), password) => Ok(Some(TrustStoreConfig::File {
            store_type,
            path: PathBuf::from(path),
            password,
        })),
        (None, None) => Ok(None),
    }
}

fn tls_error(context: &str, e: impl fmt::Display) -> SecurityError {
    SecurityError::Tls(format!("{context}: {e}"))
}

fn root_store(certs: &[CertificateDer<'static>]) -> Result<RootCertStore, SecurityError> {
    let mut roots = RootCertStore::empty();
    for cert in certs {
        roots.add(cert.clone()).map_err(|e| {
            tls_error(
                "a trust store certificate cannot be used as a trust anchor",
                e,
            )
        })?;
    }
    Ok(roots)
}

/// Hashes of the store files, to notice a change of content.
fn fingerprints(settings: &SslSettings) -> Result<Vec<(PathBuf, [u8; 32])>, SecurityError> {
    let mut files: Vec<(&str, &str, PathBuf)> = Vec::new();
    if let Some(k) = &settings.key_store {
        files.extend(
            k.files()
                .into_iter()
                .map(|p| ("SSL keystore", SSL_KEYSTORE_LOCATION, p.to_path_buf())),
        );
    }
    if let Some(t) = &settings.trust_store {
        files.extend(
            t.files()
                .into_iter()
                .map(|p| ("SSL truststore", SSL_TRUSTSTORE_LOCATION, p.to_path_buf())),
        );
    }
    files
        .into_iter()
        .map(|(what, key, path)| {
            let bytes = std::fs::read(&path).map_err(|e| SecurityError::Store {
                what: format!("{what} {}", path.display()),
                reason: format!("{e} ({key})"),
            })?;
            let digest: [u8; 32] = Sha256::digest(&bytes).into();
            Ok((path, digest))
        })
        .collect()
}

/// One loaded configuration of a server.
struct ServerState {
    config: Arc<rustls::ServerConfig>,
    key: KeyMaterial,
    fingerprints: Vec<(PathBuf, [u8; 32])>,
}

fn build_server_state(settings: &SslSettings) -> Result<ServerState, SecurityError> {
    let fingerprints = fingerprints(settings)?;
    let key = settings
        .key_store
        .as_ref()
        .ok_or_else(|| {
            SecurityError::config(
                SSL_KEYSTORE_LOCATION,
                "a TLS server needs a key store: set ssl.keystore.location, or ssl.keystore.key and \
                 ssl.keystore.certificate.chain",
            )
        })?
        .load()?;
    let provider = settings.provider()?;
    let builder = rustls::ServerConfig::builder_with_provider(provider.clone())
        .with_protocol_versions(&settings.server_versions()?)
        .map_err(|e| tls_error("the enabled protocols and cipher suites do not fit", e))?;
    // Kafka loads a configured trust store even when it will not ask for
    // client certificates, so a broken one fails at start-up there too.
    let roots = match &settings.trust_store {
        Some(trust) => Some(Arc::new(root_store(&trust.load()?)?)),
        None => None,
    };
    let verifier = match settings.client_auth {
        ClientAuth::None => WebPkiClientVerifier::no_client_auth(),
        auth => {
            let roots = roots.ok_or_else(|| {
                SecurityError::config(
                    SSL_CLIENT_AUTH,
                    format!(
                        "ssl.client.auth={} needs a trust store to verify client certificates: set \
                         ssl.truststore.location or ssl.truststore.certificates",
                        auth.name()
                    ),
                )
            })?;
            let builder = WebPkiClientVerifier::builder_with_provider(roots, provider);
            let builder = if auth == ClientAuth::Requested {
                builder.allow_unauthenticated()
            } else {
                builder
            };
            builder
                .build()
                .map_err(|e| tls_error("cannot verify client certificates", e))?
        }
    };
    let config = builder
        .with_client_cert_verifier(verifier)
        .with_single_cert(key.chain.clone(), key.key.clone_key())
        .map_err(|e| tls_error("the key store's key and certificate cannot be used", e))?;
    Ok(ServerState {
        config: Arc::new(config),
        key,
        fingerprints,
    })
}

/// The subject alternative names of a certificate, as comparable text.
fn subject_alt_names(cert: &CertificateDer<'_>) -> Result<Vec<String>, SecurityError> {
    use x509_parser::prelude::{FromDer, X509Certificate};
    let (_, parsed) = X509Certificate::from_der(cert.as_ref())
        .map_err(|e| SecurityError::Tls(format!("Invalid certificate: {e}")))?;
    let names = match parsed.subject_alternative_name() {
        Ok(Some(ext)) => ext
            .value
            .general_names
            .iter()
            .map(|n| format!("{n}"))
            .collect(),
        Ok(None) => Vec::new(),
        Err(e) => {
            return Err(SecurityError::Tls(format!(
                "Invalid subject alternative names: {e}"
            )))
        }
    };
    Ok(names)
}

/// Kafka's check of a reloaded key store: the same subject and (at least)
/// the same subject alternative names, unless `ssl.allow.dn.changes` /
/// `ssl.allow.san.changes` allow otherwise.
fn ensure_compatible(
    old: &KeyMaterial,
    new: &KeyMaterial,
    settings: &SslSettings,
) -> Result<(), SecurityError> {
    let (Some(old_cert), Some(new_cert)) = (old.chain.first(), new.chain.first()) else {
        return Ok(());
    };
    if !settings.allow_dn_changes {
        let old_dn = subject_name(old_cert.as_ref())?;
        let new_dn = subject_name(new_cert.as_ref())?;
        if old_dn.to_lowercase() != new_dn.to_lowercase() {
            return Err(SecurityError::config(
                SSL_KEYSTORE_LOCATION,
                format!(
                    "Validation of dynamic config update of SSLFactory failed: Keystore DistinguishedName does \
                     not match:  existing={{DN={old_dn}}}, new={{DN={new_dn}}} (set ssl.allow.dn.changes=true to allow it)"
                ),
            ));
        }
    }
    if !settings.allow_san_changes {
        let old_sans = subject_alt_names(old_cert)?;
        let new_sans = subject_alt_names(new_cert)?;
        if !old_sans.iter().all(|s| new_sans.contains(s)) {
            return Err(SecurityError::config(
                SSL_KEYSTORE_LOCATION,
                format!(
                    "Validation of dynamic config update of SSLFactory failed: Keystore SubjectAltNames do not \
                     match:  existing={{SAN={old_sans:?}}}, new={{SAN={new_sans:?}}} (set ssl.allow.san.changes=true \
                     to allow it)"
                ),
            ));
        }
    }
    Ok(())
}

/// A server's TLS state: the current rustls config, reloadable.
pub struct ServerTls {
    settings: SslSettings,
    state: RwLock<Arc<ServerState>>,
}

impl fmt::Debug for ServerTls {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ServerTls")
            .field("settings", &self.settings)
            .finish_non_exhaustive()
    }
}

impl ServerTls {
    /// Loads the key store (required) and, for `ssl.client.auth` requested
    /// or required, the trust store, and builds the rustls server config.
    pub fn new(settings: &SslSettings) -> Result<ServerTls, SecurityError> {
        let state = build_server_state(settings)?;
        Ok(ServerTls {
            settings: settings.clone(),
            state: RwLock::new(Arc::new(state)),
        })
    }

    fn current(&self) -> Arc<ServerState> {
        match self.state.read() {
            Ok(guard) => guard.clone(),
            Err(poisoned) => poisoned.into_inner().clone(),
        }
    }

    /// The rustls config new connections get now.
    pub fn config(&self) -> Arc<rustls::ServerConfig> {
        self.current().config.clone()
    }

    /// The acceptor for a new connection (always the current certificate).
    pub fn acceptor(&self) -> tokio_rustls::TlsAcceptor {
        tokio_rustls::TlsAcceptor::from(self.config())
    }

    /// The certificate chain served now (own certificate first).
    pub fn certificate_chain(&self) -> Vec<CertificateDer<'static>> {
        self.current().key.chain.clone()
    }

    /// Re-reads the key and trust stores if any of their files changed
    /// (content differs); `Ok(true)` when the new certificate is now served;
    /// on error the old config stays and the error is returned. Connections
    /// already open keep the config they were accepted with.
    pub fn reload_if_changed(&self) -> Result<bool, SecurityError> {
        let current = self.current();
        let now = fingerprints(&self.settings)?;
        if now == current.fingerprints {
            return Ok(false);
        }
        let new_state = build_server_state(&self.settings)?;
        ensure_compatible(&current.key, &new_state.key, &self.settings)?;
        {
            let mut guard = match self.state.write() {
                Ok(guard) => guard,
                Err(poisoned) => poisoned.into_inner(),
            };
            *guard = Arc::new(new_state);
        }
        tracing::info!("reloaded the TLS key and trust stores");
        Ok(true)
    }

    /// The mapper for client certificate subjects (`ssl.principal.mapping.rules`).
    pub fn principal_mapper(&self) -> &SslPrincipalMapper {
        &self.settings.principal_mapper
    }

    /// The settings this server was built from.
    pub fn settings(&self) -> &SslSettings {
        &self.settings
    }
}

/// The server certificate verifier of a Kafka client: webpki checks the
/// chain (trust, validity, usage) and the host name; like Java's `https`
/// endpoint identification, a certificate without any DNS subject
/// alternative name is also accepted for a DNS host name its most specific
/// common name matches; with `ssl.endpoint.identification.algorithm=` the
/// host name is not checked at all (the chain still is).
#[derive(Debug)]
struct KafkaServerVerifier {
    inner: Arc<WebPkiServerVerifier>,
    check_host: bool,
}

/// Java's `HostnameChecker` fallback: a DNS name against the most specific
/// CN of a certificate that has no DNS subject alternative name.
fn common_name_matches(cert: &CertificateDer<'_>, server_name: &ServerName<'_>) -> bool {
    use x509_parser::extensions::GeneralName;
    use x509_parser::prelude::{FromDer, X509Certificate};
    let ServerName::DnsName(name) = server_name else {
        // IP addresses are only ever matched against IP subject alternative names.
        return false;
    };
    let Ok((_, parsed)) = X509Certificate::from_der(cert.as_ref()) else {
        return false;
    };
    match parsed.subject_alternative_name() {
        Ok(Some(san)) => {
            if san
                .value
                .general_names
                .iter()
                .any(|n| matches!(n, GeneralName::DNSName(_)))
            {
                return false;
            }
        }
        Ok(None) => {}
        Err(_) => return false,
    }
    let Some(cn) = parsed
        .subject()
        .iter_common_name()
        .last()
        .and_then(|cn| cn.as_str().ok())
    else {
        return false;
    };
    host_matches(name.as_ref(), cn)
}

/// A host name against a name of a certificate: equal ignoring ASCII case,
/// or a `*.` wildcard standing for exactly one leftmost label.
fn host_matches(host: &str, pattern: &str) -> bool {
    let host = host.trim_end_matches('.');
    let pattern = pattern.trim_end_matches('.');
    if let Some(suffix) = pattern.strip_prefix("*.") {
        match host.split_once('.') {
            Some((label, rest)) => {
                !label.is_empty() && suffix.contains('.') && rest.eq_ignore_ascii_case(suffix)
            }
            None => false,
        }
    } else {
        host.eq_ignore_ascii_case(pattern)
    }
}

impl ServerCertVerifier for KafkaServerVerifier {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp_response: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        match self.inner.verify_server_cert(
            end_entity,
            intermediates,
            server_name,
            ocsp_response,
            now,
        ) {
            // webpki checks the name last, after the chain was found good.
            Err(rustls::Error::InvalidCertificate(
                CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. },
            )) if !self.check_host || common_name_matches(end_entity, server_name) => {
                Ok(ServerCertVerified::assertion())
            }
            other => other,
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.inner.verify_tls12_signature(message, cert, dss)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.inner.verify_tls13_signature(message, cert, dss)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.inner.supported_verify_schemes()
    }
}

/// A client-side rustls config from the same settings (truststore; keystore
/// for mutual TLS; host-name verification unless endpoint identification is
/// off, in which case the chain is still verified).
pub fn client_config(settings: &SslSettings) -> Result<Arc<rustls::ClientConfig>, SecurityError> {
    let trust = settings.trust_store.as_ref().ok_or_else(|| {
        SecurityError::config(
            SSL_TRUSTSTORE_LOCATION,
            "kraft-rs has no default trust store: set ssl.truststore.location or ssl.truststore.certificates",
        )
    })?;
    let roots = Arc::new(root_store(&trust.load()?)?);
    let provider = settings.provider()?;
    let builder = rustls::ClientConfig::builder_with_provider(provider.clone())
        .with_protocol_versions(&settings.client_versions()?)
        .map_err(|e| tls_error("the enabled protocols and cipher suites do not fit", e))?;
    let inner = WebPkiServerVerifier::builder_with_provider(roots, provider)
        .build()
        .map_err(|e| tls_error("cannot verify server certificates", e))?;
    let builder = builder
        .dangerous()
        .with_custom_certificate_verifier(Arc::new(KafkaServerVerifier {
            inner,
            check_host: settings.endpoint_identification(),
        }));
    let config = match &settings.key_store {
        Some(store) => {
            let key = store.load()?;
            builder
                .with_client_auth_cert(key.chain, key.key)
                .map_err(|e| tls_error("the key store's key and certificate cannot be used", e))?
        }
        None => builder.with_no_client_auth(),
    };
    Ok(Arc::new(config))
}

#[cfg(test)]
mod tests {
    use super::host_matches;

    #[test]
    fn host_names_as_java_matches_them() {
        assert!(host_matches("localhost", "LOCALHOST"));
        assert!(host_matches("kafka-1.example.com", "*.example.com"));
        assert!(!host_matches("a.b.example.com", "*.example.com"));
        assert!(!host_matches("example.com", "*.example.com"));
        assert!(!host_matches("x.com", "*.com"));
        assert!(!host_matches("other", "localhost"));
    }
}
