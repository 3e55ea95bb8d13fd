//! Key and trust stores as Kafka configures them: JKS, PKCS12 and PEM files,
//! and PEM given inline in the configuration.
//!
//! A key store yields one private key with its certificate chain; a trust
//! store yields the certificates to trust. Every failure names the file (or
//! the configuration key) and never a password.

use std::fmt;
use std::path::{Path, PathBuf};

use base64::Engine as _;
use pkcs12::cms::content_info::ContentInfo;
use pkcs12::cms::encrypted_data::EncryptedData;
use pkcs12::safe_bag::SafeBag;
use pkcs8::der::asn1::{AnyRef, ObjectIdentifier, OctetString};
use pkcs8::der::{self, Decode, Encode};
use pkcs8::{pkcs5, spki};
use rustls_pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};

use crate::{Secret, SecurityError};

/// The file format of a key or trust store (`ssl.keystore.type`,
/// `ssl.truststore.type`; Kafka's default is JKS).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StoreType {
    /// Java's own key store format.
    Jks,
    /// PKCS#12 (`.p12`, `.pfx`).
    Pkcs12,
    /// PEM text: PKCS#8 keys and X.509 certificates.
    Pem,
}

impl StoreType {
    /// Parses the value of `key` (`JKS`, `PKCS12` or `PEM`, any case).
    pub fn from_config(key: &str, value: &str) -> Result<StoreType, SecurityError> {
        match value.trim().to_ascii_uppercase().as_str() {
            "JKS" => Ok(StoreType::Jks),
            "PKCS12" => Ok(StoreType::Pkcs12),
            "PEM" => Ok(StoreType::Pem),
            _ => Err(SecurityError::config(
                key,
                format!("unknown store type {value:?}; kraft-rs reads JKS, PKCS12 and PEM"),
            )),
        }
    }

    /// The name Kafka uses (`JKS`, `PKCS12`, `PEM`).
    pub fn name(&self) -> &'static str {
        match self {
            StoreType::Jks => "JKS",
            StoreType::Pkcs12 => "PKCS12",
            StoreType::Pem => "PEM",
        }
    }
}

impl fmt::Display for StoreType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Where the server's (or a client's) own key and certificate chain come from.
#[derive(Clone, Debug)]
pub enum KeyStoreConfig {
    /// A file: `ssl.keystore.location` of `ssl.keystore.type`.
    File {
        /// The store's format.
        store_type: StoreType,
        /// `ssl.keystore.location`.
        path: PathBuf,
        /// `ssl.keystore.password` (none for PEM).
        password: Option<Secret>,
        /// `ssl.key.password`: for JKS the key's own password (the store's
        /// when absent); for PEM the password of an encrypted PKCS#8 key.
        key_password: Option<Secret>,
    },
    /// PEM given inline: `ssl.keystore.certificate.chain` and `ssl.keystore.key`.
    Pem {
        /// `ssl.keystore.certificate.chain`.
        certificate_chain: Secret,
        /// `ssl.keystore.key`.
        key: Secret,
        /// `ssl.key.password` for an encrypted key.
        key_password: Option<Secret>,
    },
}

/// Where the certificates to trust come from.
#[derive(Clone, Debug)]
pub enum TrustStoreConfig {
    /// A file: `ssl.truststore.location` of `ssl.truststore.type`.
    File {
        /// The store's format.
        store_type: StoreType,
        /// `ssl.truststore.location`.
        path: PathBuf,
        /// `ssl.truststore.password` (none for PEM).
        password: Option<Secret>,
    },
    /// PEM given inline: `ssl.truststore.certificates`.
    Pem {
        /// `ssl.truststore.certificates`.
        certificates: Secret,
    },
}

/// A private key and its certificate chain (own certificate first).
#[derive(Debug)]
pub struct KeyMaterial {
    /// The certificate chain, own certificate first.
    pub chain: Vec<CertificateDer<'static>>,
    /// The private key.
    pub key: PrivateKeyDer<'static>,
}

impl Clone for KeyMaterial {
    fn clone(&self) -> Self {
        KeyMaterial {
            chain: self.chain.clone(),
            key: self.key.clone_key(),
        }
    }
}

/// One `-----BEGIN <label>-----` section of PEM text.
#[derive(Clone, PartialEq, Eq)]
pub struct PemSection {
    /// The label, e.g. `CERTIFICATE` or `ENCRYPTED PRIVATE KEY`.
    pub label: String,
    /// The decoded contents.
    pub der: Vec<u8>,
}

impl fmt::Debug for PemSection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The contents may be a private key.
        write!(f, "PemSection({}, {} bytes)", self.label, self.der.len())
    }
}

/// The sections of PEM text, as Kafka's parser finds them: text around the
/// sections (such as openssl's "Bag Attributes") is skipped, header lines
/// (`Proc-Type: ...`) are skipped, and line breaks may be missing or be
/// spaces (a value continued over several lines of a properties file).
pub fn pem_sections(text: &str) -> Result<Vec<PemSection>, String> {
    const BEGIN: &str = "-----BEGIN";
    const END: &str = "-----END";
    let mut sections = Vec::new();
    let mut rest = text;
    while let Some(begin) = rest.find(BEGIN) {
        let after_begin = &rest[begin + BEGIN.len()..];
        let label_end = after_begin
            .find("-----")
            .ok_or_else(|| "PEM text with an unterminated BEGIN line".to_string())?;
        let label = after_begin[..label_end].trim().to_string();
        let body_and_rest = after_begin[label_end..].trim_start_matches('-');
        let body_end = body_and_rest
            .find(END)
            .ok_or_else(|| format!("PEM section {label} without an END line"))?;
        let body = &body_and_rest[..body_end];
        let after_end = &body_and_rest[body_end + END.len()..];
        rest = match after_end.find("-----") {
            Some(i) => after_end[i..].trim_start_matches('-'),
            None => return Err(format!("PEM section {label} with an unterminated END line")),
        };
        let mut base64_text = String::with_capacity(body.len());
        for line in body.lines().filter(|line| !line.contains(':')) {
            base64_text.extend(line.chars().filter(|c| !c.is_whitespace()));
        }
        let der = base64::engine::general_purpose::STANDARD
            .decode(base64_text.as_bytes())
            .map_err(|e| format!("PEM section {label} is not valid base64: {e}"))?;
        sections.push(PemSection { label, der });
    }
    Ok(sections)
}

/// Checks that `der` is an X.509 certificate.
fn check_certificate(der: &[u8]) -> Result<(), String> {
    use x509_parser::prelude::{FromDer, X509Certificate};
    X509Certificate::from_der(der)
        .map(|_| ())
        .map_err(|e| format!("invalid X.509 certificate: {e}"))
}

/// The certificates of PEM text (Kafka: at least one).
fn pem_certificates(text: &str) -> Result<Vec<CertificateDer<'static>>, String> {
    let mut certs = Vec::new();
    for section in pem_sections(text)? {
        if section.label == "CERTIFICATE" || section.label.ends_with(" CERTIFICATE") {
            check_certificate(&section.der)?;
            certs.push(CertificateDer::from(section.der));
        }
    }
    if certs.is_empty() {
        return Err("No matching CERTIFICATE entries in PEM file".to_string());
    }
    Ok(certs)
}

/// The private key of PEM text: one PKCS#8 key, encrypted exactly when a key
/// password is given (as Kafka reads it).
fn pem_private_key(
    text: &str,
    key_password: Option<&Secret>,
) -> Result<PrivateKeyDer<'static>, String> {
    let mut keys: Vec<PemSection> = pem_sections(text)?
        .into_iter()
        .filter(|s| s.label.ends_with("PRIVATE KEY"))
        .collect();
    if keys.is_empty() {
        return Err("No matching PRIVATE KEY entries in PEM file".to_string());
    }
    if keys.len() != 1 {
        return Err(format!(
            "Expected one private key, but found {}",
            keys.len()
        ));
    }
    let section = keys.remove(0);
    let pkcs8 = match (section.label.as_str(), key_password) {
        ("PRIVATE KEY", None) => section.der,
        ("ENCRYPTED PRIVATE KEY", Some(password)) => decrypt_pkcs8(&section.der, password)?,
        ("ENCRYPTED PRIVATE KEY", None) => {
            return Err("the private key is encrypted, but ssl.key.password is not set".to_string())
        }
        ("PRIVATE KEY", Some(_)) => {
            return Err(
                "ssl.key.password is set, but the private key is not encrypted \
                 (Kafka reads a key as encrypted exactly when ssl.key.password is set)"
                    .to_string(),
            )
        }
        (label, _) => {
            return Err(format!(
                "the private key is \"{label}\"; Kafka's PEM keys are PKCS#8 (\"PRIVATE KEY\" or \
                 \"ENCRYPTED PRIVATE KEY\"): convert it with `openssl pkcs8 -topk8`"
            ))
        }
    };
    let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(pkcs8));
    rustls::crypto::ring::sign::any_supported_type(&key)
        .map_err(|e| format!("Private key could not be loaded: {e}"))?;
    Ok(key)
}

/// Decrypts an `EncryptedPrivateKeyInfo` (PKCS#8, PBES2) with RustCrypto's
/// `pkcs8`/`pkcs5`.
fn decrypt_pkcs8(der: &[u8], password: &Secret) -> Result<Vec<u8>, String> {
    let info = pkcs8::EncryptedPrivateKeyInfoRef::try_from(der).map_err(|_| {
        "the encrypted private key uses an encryption scheme kraft-rs cannot read \
         (it reads PBES2, e.g. `openssl pkcs8 -topk8 -v2 aes-256-cbc`; legacy PKCS#12 \
         PBE and PBES1 keys are refused)"
            .to_string()
    })?;
    let document = info.decrypt(password.expose().as_bytes()).map_err(|_| {
        "the private key could not be decrypted: wrong ssl.key.password, or an unsupported \
         encryption scheme (kraft-rs reads PBES2: PBKDF2 or scrypt with AES or 3DES)"
            .to_string()
    })?;
    Ok(document.as_bytes().to_vec())
}

/// PKCS#12 content types and bag attributes (RFC 7292, PKCS #9).
const ID_DATA: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.2.840.113549.1.7.1");
const ID_ENCRYPTED_DATA: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.2.840.113549.1.7.6");
const FRIENDLY_NAME: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.2.840.113549.1.9.20");
const LOCAL_KEY_ID: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.2.840.113549.1.9.21");

/// A shrouded key bag: its local key id, friendly name and encrypted key.
type ShroudedKey = (Option<Vec<u8>>, Option<String>, Vec<u8>);

/// The key entry of a PKCS12 store whose private key is decrypted with
/// `key_password`, as Java's `KeyStore.getKey(alias, keyPassword)` does:
/// the store password decrypts the certificates when they are encrypted
/// (PBES2), the key password the shrouded key bag. The caller has checked
/// the store's integrity MAC with the store password. The certificate with
/// the key's local key id comes first, the others follow in file order.
fn pkcs12_with_key_password(
    bytes: &[u8],
    store_password: &Secret,
    key_password: &Secret,
) -> Result<KeyMaterial, String> {
    let unreadable = |e: der::Error| format!("not a readable PKCS12 store ({e})");
    let pfx = pkcs12::pfx::Pfx::from_der(bytes).map_err(unreadable)?;
    if pfx.auth_safe.content_type != ID_DATA {
        return Err("not a password-integrity PKCS12 store (its content is not data)".to_string());
    }
    let safes = OctetString::from_der(&pfx.auth_safe.content.to_der().map_err(unreadable)?)
        .map_err(unreadable)?;
    let safes = Vec::<ContentInfo>::from_der(safes.as_bytes()).map_err(unreadable)?;
    let mut certs: Vec<(Option<Vec<u8>>, Vec<u8>)> = Vec::new();
    let mut keys: Vec<ShroudedKey> = Vec::new();
    for safe in safes {
        let content = safe.content.to_der().map_err(unreadable)?;
        let contents = if safe.content_type == ID_DATA {
            OctetString::from_der(&content)
                .map_err(unreadable)?
                .into_bytes()
                .into_vec()
        } else if safe.content_type == ID_ENCRYPTED_DATA {
            let data = EncryptedData::from_der(&content).map_err(unreadable)?;
            let info = &data.enc_content_info;
            let Some(ciphertext) = &info.encrypted_content else {
                continue;
            };
            decrypt_pbes2(&info.content_enc_alg, ciphertext.as_bytes(), store_password)?
        } else {
            continue;
        };
        for bag in Vec::<SafeBag>::from_der(&contents).map_err(unreadable)? {
            let attribute = |oid: ObjectIdentifier| {
                bag.bag_attributes
                    .as_ref()
                    .and_then(|attrs| attrs.iter().find(|a| a.oid == oid))
                    .and_then(|a| a.values.iter().next())
                    .map(|v| v.value().to_vec())
            };
            // The bag value is `[0] EXPLICIT`: its content is the bag.
            let value = AnyRef::from_der(&bag.bag_value)
                .map_err(unreadable)?
                .value();
            if bag.bag_id == pkcs12::PKCS_12_CERT_BAG_OID {
                let cert = pkcs12::CertBag::from_der(value).map_err(unreadable)?;
                if cert.cert_id == pkcs12::PKCS_12_X509_CERT_OID {
                    certs.push((attribute(LOCAL_KEY_ID), cert.cert_value.as_bytes().to_vec()));
                }
            } else if bag.bag_id == pkcs12::PKCS_12_PKCS8_KEY_BAG_OID {
                // friendlyName is a BMPString: UTF-16 big-endian.
                let name = attribute(FRIENDLY_NAME).map(|utf16| {
                    let units: Vec<u16> = utf16
                        .chunks(2)
                        .map(|c| u16::from_be_bytes([c[0], *c.get(1).unwrap_or(&0)]))
                        .collect();
                    String::from_utf16_lossy(&units)
                });
                keys.push((attribute(LOCAL_KEY_ID), name, value.to_vec()));
            }
        }
    }
    let Some((key_id, name, encrypted)) = keys.into_iter().next() else {
        return Err("no private key entry".to_string());
    };
    let alias = name.unwrap_or_else(|| "of the store".to_string());
    let pkcs8 = decrypt_pkcs8(&encrypted, key_password).map_err(|_| {
        format!(
            "Cannot recover key {alias} (check ssl.key.password, or ssl.keystore.password \
             when ssl.key.password is not set)"
        )
    })?;
    let leaf = certs
        .iter()
        .position(|(id, _)| id.is_some() && *id == key_id)
        .unwrap_or(0);
    if certs.is_empty() {
        return Err("the private key entry has no certificate".to_string());
    }
    let first = certs.remove(leaf);
    let chain = std::iter::once(first)
        .chain(certs)
        .map(|(_, der)| CertificateDer::from(der))
        .collect();
    let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(pkcs8));
    rustls::crypto::ring::sign::any_supported_type(&key)
        .map_err(|e| format!("Private key could not be loaded: {e}"))?;
    Ok(KeyMaterial { chain, key })
}

/// Decrypts PKCS12 encrypted content (the certificates) protected with
/// PBES2 under the store password.
fn decrypt_pbes2(
    algorithm: &spki::AlgorithmIdentifierOwned,
    ciphertext: &[u8],
    password: &Secret,
) -> Result<Vec<u8>, String> {
    if algorithm.oid != pkcs5::pbes2::PBES2_OID {
        return Err(
            "the store's certificates are encrypted with a legacy PKCS#12 scheme; kraft-rs reads \
             PBES2 (openssl 3's and Java's default) when the key has its own password"
                .to_string(),
        );
    }
    let parameters = algorithm
        .parameters
        .as_ref()
        .ok_or_else(|| "the certificates' encryption has no parameters".to_string())?
        .to_der()
        .map_err(|e| format!("not a readable PKCS12 store ({e})"))?;
    let parameters = pkcs5::pbes2::Parameters::from_der(&parameters)
        .map_err(|e| format!("not a readable PKCS12 store ({e})"))?;
    parameters
        .decrypt(password.expose().as_bytes(), ciphertext)
        .map_err(|_| {
            "the certificates could not be decrypted: wrong ssl.keystore.password".to_string()
        })
}

/// The format of a binary store's content. Java reads a PKCS12 file
/// declared JKS and a JKS file declared PKCS12 alike (`keystore.type.compat`),
/// and keytool has written PKCS12 by default since Java 9, whatever the
/// file's name: so the content decides, as in Java.
fn binary_format(declared: StoreType, bytes: &[u8]) -> StoreType {
    match declared {
        StoreType::Pem => StoreType::Pem,
        StoreType::Jks | StoreType::Pkcs12 => {
            if bytes.starts_with(&[0xFE, 0xED, 0xFE, 0xED]) {
                StoreType::Jks
            } else if bytes.first() == Some(&0x30) {
                StoreType::Pkcs12
            } else {
                declared
            }
        }
    }
}

fn read_file(path: &Path, what: &str, key: &str) -> Result<Vec<u8>, SecurityError> {
    std::fs::read(path).map_err(|e| SecurityError::Store {
        what: format!("{what} {}", path.display()),
        reason: format!("{e} ({key})"),
    })
}

fn store_error(
    what: &str,
    path: &Path,
    store_type: StoreType,
    reason: impl Into<String>,
) -> SecurityError {
    SecurityError::Store {
        what: format!("{what} {} of type {store_type}", path.display()),
        reason: reason.into(),
    }
}

fn pkcs12_error(e: p12_keystore::error::Error, password_key: &str) -> String {
    match e {
        p12_keystore::error::Error::MacError(_) => {
            format!("keystore password was incorrect (check {password_key})")
        }
        other => format!("not a readable PKCS12 store ({other}); or a wrong {password_key}"),
    }
}

fn jks_error(e: jks::KeyStoreError, password_key: &str) -> String {
    match e {
        jks::KeyStoreError::InvalidDigest => {
            format!("Keystore was tampered with, or password was incorrect (check {password_key})")
        }
        jks::KeyStoreError::InvalidMagic => "not a JKS store".to_string(),
        other => format!("not a readable JKS store: {other}"),
    }
}

fn require_password<'a>(
    password: Option<&'a Secret>,
    key: &str,
    what: &str,
    path: &Path,
    store_type: StoreType,
) -> Result<&'a Secret, SecurityError> {
    password.ok_or_else(|| {
        store_error(
            what,
            path,
            store_type,
            format!(
                "{key} is not set; kraft-rs reads {store_type} stores only with their password"
            ),
        )
    })
}

impl KeyStoreConfig {
    /// The files this store is read from (none when inline).
    pub fn files(&self) -> Vec<&Path> {
        match self {
            KeyStoreConfig::File { path, .. } => vec![path.as_path()],
            KeyStoreConfig::Pem { .. } => Vec::new(),
        }
    }

    /// Reads the key and its certificate chain.
    pub fn load(&self) -> Result<KeyMaterial, SecurityError> {
        const WHAT: &str = "SSL keystore";
        const LOCATION: &str = "ssl.keystore.location";
        match self {
            KeyStoreConfig::Pem {
                certificate_chain,
                key,
                key_password,
            } => {
                let invalid = |reason: String| SecurityError::Store {
                    what:
                        "the PEM key store of ssl.keystore.certificate.chain and ssl.keystore.key"
                            .to_string(),
                    reason,
                };
                let key = pem_private_key(key.expose(), key_password.as_ref()).map_err(invalid)?;
                let chain = pem_certificates(certificate_chain.expose()).map_err(invalid)?;
                Ok(KeyMaterial { chain, key })
            }
            KeyStoreConfig::File {
                store_type,
                path,
                password,
                key_password,
            } => {
                let bytes = read_file(path, WHAT, LOCATION)?;
                let fail = |reason: String| store_error(WHAT, path, *store_type, reason);
                match binary_format(*store_type, &bytes) {
                    StoreType::Pem => {
                        let text = String::from_utf8(bytes)
                            .map_err(|_| fail("not PEM text".to_string()))?;
                        let key = pem_private_key(&text, key_password.as_ref()).map_err(fail)?;
                        let chain = pem_certificates(&text).map_err(fail)?;
                        Ok(KeyMaterial { chain, key })
                    }
                    StoreType::Pkcs12 => {
                        let password = require_password(
                            password.as_ref(),
                            "ssl.keystore.password",
                            WHAT,
                            path,
                            *store_type,
                        )?;
                        // Java: the store password opens the store, the key
                        // password (`ssl.key.password`, else the store's)
                        // the private key.
                        let key_password = key_password.as_ref().unwrap_or(password);
                        let store = match p12_keystore::KeyStore::from_pkcs12(
                            &bytes,
                            password.expose(),
                            p12_keystore::Pkcs12ImportPolicy::Strict,
                        ) {
                            Ok(store) if key_password.expose() == password.expose() => store,
                            Err(e @ p12_keystore::error::Error::MacError(_)) => {
                                return Err(fail(pkcs12_error(e, "ssl.keystore.password")))
                            }
                            // p12-keystore checks the integrity MAC with the
                            // store password before it decrypts anything, and
                            // decrypts the key with that same password: a key
                            // protected by its own password is read here.
                            _ => {
                                return pkcs12_with_key_password(&bytes, password, key_password)
                                    .map_err(fail)
                            }
                        };
                        let (_, chain) = store
                            .private_key_chain()
                            .ok_or_else(|| fail("no private key entry".to_string()))?;
                        if chain.certs().is_empty() {
                            return Err(fail(
                                "the private key entry has no certificate".to_string(),
                            ));
                        }
                        let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(
                            chain.key().as_der().to_vec(),
                        ));
                        rustls::crypto::ring::sign::any_supported_type(&key)
                            .map_err(|e| fail(format!("Private key could not be loaded: {e}")))?;
                        let chain = chain
                            .certs()
                            .iter()
                            .map(|c| CertificateDer::from(c.as_der().to_vec()))
                            .collect();
                        Ok(KeyMaterial { chain, key })
                    }
                    StoreType::Jks => {
                        let password = require_password(
                            password.as_ref(),
                            "ssl.keystore.password",
                            WHAT,
                            path,
                            *store_type,
                        )?;
                        let mut store = jks::KeyStore::new();
                        store
                            .load(bytes.as_slice(), password.expose().as_bytes())
                            .map_err(|e| fail(jks_error(e, "ssl.keystore.password")))?;
                        let mut aliases = store.aliases();
                        aliases.sort();
                        let alias = aliases
                            .into_iter()
                            .find(|a| store.is_private_key_entry(a))
                            .ok_or_else(|| fail("no private key entry".to_string()))?;
                        let key_password = key_password.as_ref().unwrap_or(password);
                        let entry = store
                            .get_private_key_entry(&alias, key_password.expose().as_bytes())
                            .map_err(|_| {
                                fail(format!(
                                    "Cannot recover key {alias} (check ssl.key.password, \
                                     or ssl.keystore.password when ssl.key.password is not set)"
                                ))
                            })?;
                        if entry.certificate_chain.is_empty() {
                            return Err(fail(
                                "the private key entry has no certificate".to_string(),
                            ));
                        }
                        let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(
                            entry.private_key.clone(),
                        ));
                        rustls::crypto::ring::sign::any_supported_type(&key)
                            .map_err(|e| fail(format!("Private key could not be loaded: {e}")))?;
                        let chain = entry
                            .certificate_chain
                            .iter()
                            .map(|c| CertificateDer::from(c.content.clone()))
                            .collect();
                        Ok(KeyMaterial { chain, key })
                    }
                }
            }
        }
    }
}

impl TrustStoreConfig {
    /// The files this store is read from (none when inline).
    pub fn files(&self) -> Vec<&Path> {
        match self {
            TrustStoreConfig::File { path, .. } => vec![path.as_path()],
            TrustStoreConfig::Pem { .. } => Vec::new(),
        }
    }

    /// Reads the trusted certificates (at least one).
    pub fn load(&self) -> Result<Vec<CertificateDer<'static>>, SecurityError> {
        const WHAT: &str = "SSL truststore";
        const LOCATION: &str = "ssl.truststore.location";
        match self {
            TrustStoreConfig::Pem { certificates } => pem_certificates(certificates.expose())
                .map_err(|reason| SecurityError::Store {
                    what: "the PEM trust store of ssl.truststore.certificates".to_string(),
                    reason,
                }),
            TrustStoreConfig::File {
                store_type,
                path,
                password,
            } => {
                let bytes = read_file(path, WHAT, LOCATION)?;
                let fail = |reason: String| store_error(WHAT, path, *store_type, reason);
                let certs: Vec<CertificateDer<'static>> = match binary_format(*store_type, &bytes) {
                    StoreType::Pem => {
                        let text = String::from_utf8(bytes)
                            .map_err(|_| fail("not PEM text".to_string()))?;
                        pem_certificates(&text).map_err(fail)?
                    }
                    StoreType::Pkcs12 => {
                        let password = require_password(
                            password.as_ref(),
                            "ssl.truststore.password",
                            WHAT,
                            path,
                            *store_type,
                        )?;
                        let store = p12_keystore::KeyStore::from_pkcs12(
                            &bytes,
                            password.expose(),
                            p12_keystore::Pkcs12ImportPolicy::Strict,
                        )
                        .map_err(|e| fail(pkcs12_error(e, "ssl.truststore.password")))?;
                        store
                            .entries()
                            .filter_map(|(_, entry)| match entry {
                                p12_keystore::KeyStoreEntry::Certificate(c) => {
                                    Some(CertificateDer::from(c.as_der().to_vec()))
                                }
                                _ => None,
                            })
                            .collect()
                    }
                    StoreType::Jks => {
                        let mut store = jks::KeyStore::new();
                        match password {
                            Some(password) => store
                                .load(bytes.as_slice(), password.expose().as_bytes())
                                .map_err(|e| fail(jks_error(e, "ssl.truststore.password")))?,
                            // Kafka: "If a password is not set, trust store file configured
                            // will still be used, but integrity checking is disabled." The
                            // entries are all read before the (keyed) digest is checked.
                            None => match store.load(bytes.as_slice(), b"") {
                                Ok(()) | Err(jks::KeyStoreError::InvalidDigest) => {
                                    tracing::warn!(
                                        "{WHAT} {} is used without ssl.truststore.password: its \
                                         integrity is not checked",
                                        path.display()
                                    );
                                }
                                Err(e) => {
                                    return Err(fail(jks_error(e, "ssl.truststore.password")))
                                }
                            },
                        }
                        let mut aliases = store.aliases();
                        aliases.sort();
                        aliases
                            .iter()
                            .filter_map(|a| store.get_trusted_certificate_entry(a).ok())
                            .map(|entry| CertificateDer::from(entry.certificate.content))
                            .collect()
                    }
                };
                if certs.is_empty() {
                    return Err(fail("no trusted certificate entry".to_string()));
                }
                for cert in &certs {
                    check_certificate(cert.as_ref()).map_err(fail)?;
                }
                Ok(certs)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pem_sections_skip_text_and_accept_one_line() {
        let text = "Bag Attributes\n  friendlyName: x\n-----BEGIN CERTIFICATE-----\nAAEC\nAw==\n-----END CERTIFICATE-----\n\
                    junk -----BEGIN PRIVATE KEY----- BAUG -----END PRIVATE KEY-----";
        let sections = pem_sections(text).unwrap();
        assert_eq!(sections.len(), 2);
        assert_eq!(sections[0].label, "CERTIFICATE");
        assert_eq!(sections[0].der, vec![0, 1, 2, 3]);
        assert_eq!(sections[1].label, "PRIVATE KEY");
        assert_eq!(sections[1].der, vec![4, 5, 6]);
    }

    #[test]
    fn pem_headers_are_skipped() {
        let text = "-----BEGIN X-----\r\nProc-Type: 4,ENCRYPTED\r\n\r\nAAEC\r\n-----END X-----\r\n";
        assert_eq!(pem_sections(text).unwrap()[0].der, vec![0, 1, 2]);
    }

    #[test]
    fn store_types_any_case() {
        assert_eq!(
            StoreType::from_config("k", "pkcs12").unwrap(),
            StoreType::Pkcs12
        );
        assert_eq!(StoreType::from_config("k", "Pem").unwrap(), StoreType::Pem);
        assert!(StoreType::from_config("k", "BKS").is_err());
    }
}
