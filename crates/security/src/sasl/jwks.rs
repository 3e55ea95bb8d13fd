//! Kafka's OAUTHBEARER JWT validator as a listener runs it
//! (`OAuthBearerValidatorCallbackHandler` with `BrokerJwtValidator`): its
//! `sasl.oauthbearer.*` settings ([`JwtValidatorConfig`]), the keys from
//! `sasl.oauthbearer.jwks.endpoint.url` ([`JwtValidator::start`]) and the
//! allow-list of URLs Kafka requires ([`AllowedUrls`]).
//!
//! * A `file:` URL is read at start and read again whenever the file's
//!   modification time changes (Kafka's `JwksFileVerificationKeyResolver`).
//! * An `http:`/`https:` URL is fetched at start (a failure refuses the
//!   start), then again every `sasl.oauthbearer.jwks.endpoint.refresh.ms`,
//!   each refresh retried with exponential backoff from
//!   `sasl.oauthbearer.jwks.endpoint.retry.backoff.ms` for at most
//!   `sasl.oauthbearer.jwks.endpoint.retry.backoff.max.ms`; a token whose
//!   `kid` is not known asks for an early refresh, at most once a minute
//!   per key id (Kafka's `RefreshingHttpsJwks`). HTTPS trusts the
//!   `ssl.truststore.*` options of the listener's OAUTHBEARER JAAS entry,
//!   as Kafka's `JaasOptionsUtils` reads them; kraft-rs has no default
//!   trust store.
//!
//! Kafka 4.4 refuses every OAUTHBEARER URL not listed in the JVM system
//! property `org.apache.kafka.sasl.oauthbearer.allowed.urls` (empty by
//! default, so nothing is allowed). kraft-rs has no JVM: it reads the same
//! `-D` setting from the `KAFKA_OPTS` environment variable, where Kafka's
//! scripts take it from, and is closed the same way when it is absent.

use std::collections::{BTreeSet, HashMap};
use std::io::{Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex, RwLock, Weak};
use std::time::{Duration, Instant, SystemTime};

use super::jwt::{ClaimRules, CompactJws, JwkSet, ValidatedToken, VerifyError};
use crate::jaas::JaasEntry;
use crate::tls::{self, SslSettings};
use crate::SecurityError;

/// `sasl.oauthbearer.jwks.endpoint.url`
pub const JWKS_ENDPOINT_URL: &str = "sasl.oauthbearer.jwks.endpoint.url";
/// `sasl.oauthbearer.jwks.endpoint.refresh.ms`
pub const JWKS_ENDPOINT_REFRESH_MS: &str = "sasl.oauthbearer.jwks.endpoint.refresh.ms";
/// `sasl.oauthbearer.jwks.endpoint.retry.backoff.ms`
pub const JWKS_ENDPOINT_RETRY_BACKOFF_MS: &str = "sasl.oauthbearer.jwks.endpoint.retry.backoff.ms";
/// `sasl.oauthbearer.jwks.endpoint.retry.backoff.max.ms`
pub const JWKS_ENDPOINT_RETRY_BACKOFF_MAX_MS: &str =
    "sasl.oauthbearer.jwks.endpoint.retry.backoff.max.ms";
/// `sasl.oauthbearer.clock.skew.seconds`
pub const CLOCK_SKEW_SECONDS: &str = "sasl.oauthbearer.clock.skew.seconds";
/// `sasl.oauthbearer.expected.audience`
pub const EXPECTED_AUDIENCE: &str = "sasl.oauthbearer.expected.audience";
/// `sasl.oauthbearer.expected.issuer`
pub const EXPECTED_ISSUER: &str = "sasl.oauthbearer.expected.issuer";
/// `sasl.oauthbearer.allow.unverified.audience`
pub const ALLOW_UNVERIFIED_AUDIENCE: &str = "sasl.oauthbearer.allow.unverified.audience";
/// `sasl.oauthbearer.allow.unverified.issuer`
pub const ALLOW_UNVERIFIED_ISSUER: &str = "sasl.oauthbearer.allow.unverified.issuer";
/// `sasl.oauthbearer.scope.claim.name`
pub const SCOPE_CLAIM_NAME: &str = "sasl.oauthbearer.scope.claim.name";
/// `sasl.oauthbearer.sub.claim.name`
pub const SUB_CLAIM_NAME: &str = "sasl.oauthbearer.sub.claim.name";
/// `sasl.oauthbearer.jwt.validator.class`
pub const JWT_VALIDATOR_CLASS: &str = "sasl.oauthbearer.jwt.validator.class";
/// `sasl.oauthbearer.token.endpoint.url`
pub const TOKEN_ENDPOINT_URL: &str = "sasl.oauthbearer.token.endpoint.url";

/// Every server-side key [`JwtValidatorConfig::from_kafka`] reads.
pub const VALIDATOR_KEYS: &[&str] = &[
    JWKS_ENDPOINT_URL,
    JWKS_ENDPOINT_REFRESH_MS,
    JWKS_ENDPOINT_RETRY_BACKOFF_MS,
    JWKS_ENDPOINT_RETRY_BACKOFF_MAX_MS,
    CLOCK_SKEW_SECONDS,
    EXPECTED_AUDIENCE,
    EXPECTED_ISSUER,
    ALLOW_UNVERIFIED_AUDIENCE,
    ALLOW_UNVERIFIED_ISSUER,
    SCOPE_CLAIM_NAME,
    SUB_CLAIM_NAME,
    JWT_VALIDATOR_CLASS,
];

/// The validator classes that mean "this validator": Kafka's default,
/// which picks `BrokerJwtValidator` when a JWKS URL is set, and that class.
const VALIDATOR_CLASSES: [&str; 2] = [
    "org.apache.kafka.common.security.oauthbearer.DefaultJwtValidator",
    "org.apache.kafka.common.security.oauthbearer.BrokerJwtValidator",
];

/// The JVM system property naming the URLs OAUTHBEARER may use.
pub const ALLOWED_URLS_PROPERTY: &str = "org.apache.kafka.sasl.oauthbearer.allowed.urls";
/// The environment variable kraft-rs reads [`ALLOWED_URLS_PROPERTY`] from
/// (as `-Dorg.apache.kafka.sasl.oauthbearer.allowed.urls=<url>,<url>`).
pub const ALLOWED_URLS_ENV: &str = "KAFKA_OPTS";

/// The URLs OAUTHBEARER settings may name (Kafka's
/// `org.apache.kafka.sasl.oauthbearer.allowed.urls`): compared as exact
/// text; empty allows none.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AllowedUrls(BTreeSet<String>);

impl AllowedUrls {
    /// Exactly these URLs.
    pub fn new<I: IntoIterator<Item = S>, S: Into<String>>(urls: I) -> AllowedUrls {
        AllowedUrls(urls.into_iter().map(Into::into).collect())
    }

    /// The list a JVM given `options` (e.g. `KAFKA_OPTS`) would see: the
    /// last `-Dorg.apache.kafka.sasl.oauthbearer.allowed.urls=` word, split
    /// at commas and trimmed.
    pub fn from_java_options(options: &str) -> AllowedUrls {
        let prefix = format!("-D{ALLOWED_URLS_PROPERTY}=");
        let value = options
            .split_whitespace()
            .filter_map(|w| w.strip_prefix(prefix.as_str()))
            .next_back()
            .unwrap_or("");
        AllowedUrls::new(
            value
                .split(',')
                .map(str::trim)
                .filter(|u| !u.is_empty())
                .map(str::to_owned),
        )
    }

    /// The list from the `KAFKA_OPTS` environment variable (none when unset).
    pub fn from_env() -> AllowedUrls {
        AllowedUrls::from_java_options(&std::env::var(ALLOWED_URLS_ENV).unwrap_or_default())
    }

    /// Kafka's check: `url` (the trimmed value of `key`) must be listed.
    pub fn check(&self, key: &str, url: &str) -> Result<(), SecurityError> {
        if self.0.contains(url) {
            return Ok(());
        }
        Err(SecurityError::config(
            key,
            format!(
                "{url}: The URL cannot be accessed due to restrictions. Update the system \
                 property '{ALLOWED_URLS_PROPERTY}' to allow the URL to be accessed. (kraft-rs \
                 reads it from -D{ALLOWED_URLS_PROPERTY}=<urls> in the {ALLOWED_URLS_ENV} \
                 environment variable)"
            ),
        ))
    }
}

/// A URL an OAUTHBEARER setting names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OAuthUrl {
    /// `file:`: the file's absolute path.
    File(PathBuf),
    /// `http:` or `https:`.
    Http(HttpUrl),
}

/// An `http:` or `https:` URL, split for a GET.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpUrl {
    /// `https` rather than `http`.
    pub tls: bool,
    /// The host (without IPv6 brackets).
    pub host: String,
    /// The port (default 443 or 80).
    pub port: u16,
    /// Path and query, at least `/`.
    pub path: String,
}

/// Parses the URL of `key` as Kafka's `ConfigurationUtils.validateUrl`
/// does (protocol `http`, `https` or `file`), then checks `allowed`; for
/// `file:` also that the file exists, is readable and is not a directory.
pub fn validate_url(
    key: &str,
    value: &str,
    allowed: &AllowedUrls,
) -> Result<OAuthUrl, SecurityError> {
    let value = value.trim();
    let err = |reason: String| SecurityError::config(key, reason);
    if value.is_empty() {
        return Err(err(format!(
            "The OAuth configuration option {key} value is required"
        )));
    }
    let Some((scheme, rest)) = value.split_once(':') else {
        return Err(err(format!(
            "The OAuth configuration option {key} contains a URL ({value}) that is malformed: no protocol: {value}"
        )));
    };
    let protocol = scheme.to_ascii_lowercase();
    if !matches!(protocol.as_str(), "http" | "https" | "file") {
        return Err(err(format!(
            "The OAuth configuration option {key} contains a URL ({value}) that contains an \
             invalid protocol ({protocol}); only \"http\", \"https\", and \"file\" protocol are \
             supported"
        )));
    }
    allowed.check(key, value)?;
    if protocol == "file" {
        let path = match rest.strip_prefix("//") {
            Some(authority_and_path) => match authority_and_path.find('/') {
                Some(i) => &authority_and_path[i..],
                None => "",
            },
            None => rest,
        };
        let path = path.split(['?', '#']).next().unwrap_or("");
        if path.is_empty() {
            return Err(err(format!(
                "The OAuth configuration option {key} contains a URL ({value}) that is malformed: no path"
            )));
        }
        let file = std::path::absolute(path).unwrap_or_else(|_| PathBuf::from(path));
        let display = file.display();
        let meta = std::fs::metadata(&file).map_err(|_| {
            err(format!(
                "The OAuth configuration option {key} contains a file ({display}) that doesn't exist"
            ))
        })?;
        if meta.is_dir() {
            return Err(err(format!(
                "The OAuth configuration option {key} references a directory ({display}), not a file"
            )));
        }
        if std::fs::File::open(&file).is_err() {
            return Err(err(format!(
                "The OAuth configuration option {key} contains a file ({display}) that doesn't have read permission"
            )));
        }
        return Ok(OAuthUrl::File(file));
    }
    let malformed = |why: &str| {
        err(format!(
            "The OAuth configuration option {key} contains a URL ({value}) that is malformed: {why}"
        ))
    };
    let rest = rest
        .strip_prefix("//")
        .ok_or_else(|| malformed("no host"))?;
    let (authority, path) = match rest.find(['/', '?', '#']) {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, "/"),
    };
    let authority = authority.rsplit('@').next().unwrap_or(authority);
    let tls = protocol == "https";
    let default_port = if tls { 443 } else { 80 };
    let (host, port) = if let Some(v6) = authority.strip_prefix('[') {
        let (h, after) = v6
            .split_once(']')
            .ok_or_else(|| malformed("bad IPv6 host"))?;
        let port = match after.strip_prefix(':') {
            Some(p) => p.parse().map_err(|_| malformed("bad port"))?,
            None => default_port,
        };
        (h.to_owned(), port)
    } else {
        match authority.rsplit_once(':') {
            Some((h, p)) => (
                h.to_owned(),
                if p.is_empty() {
                    default_port
                } else {
                    p.parse().map_err(|_| malformed("bad port"))?
                },
            ),
            None => (authority.to_owned(), default_port),
        }
    };
    if host.is_empty() {
        return Err(malformed("no host"));
    }
    let path = path.split('#').next().unwrap_or("/");
    let path = if path.starts_with('/') {
        path.to_owned()
    } else {
        format!("/{path}")
    };
    Ok(OAuthUrl::Http(HttpUrl {
        tls,
        host,
        port,
        path,
    }))
}

/// The server-side settings of Kafka's JWT validator.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JwtValidatorConfig {
    /// `sasl.oauthbearer.jwks.endpoint.url`, trimmed.
    pub jwks_endpoint_url: String,
    /// `sasl.oauthbearer.jwks.endpoint.refresh.ms` (default 3600000).
    pub refresh_ms: i64,
    /// `sasl.oauthbearer.jwks.endpoint.retry.backoff.ms` (default 100).
    pub retry_backoff_ms: i64,
    /// `sasl.oauthbearer.jwks.endpoint.retry.backoff.max.ms` (default 10000).
    pub retry_backoff_max_ms: i64,
    /// How claims are checked.
    pub rules: ClaimRules,
}

fn parse_number<T: std::str::FromStr>(
    key: &str,
    value: &str,
    kind: &str,
) -> Result<T, SecurityError> {
    value.trim().parse().map_err(|_| {
        SecurityError::config(
            key,
            format!("{}: Not a number of type {kind}", value.trim()),
        )
    })
}

fn parse_bool(key: &str, value: &str) -> Result<bool, SecurityError> {
    match value.trim().to_ascii_lowercase().as_str() {
        "true" => Ok(true),
        "false" => Ok(false),
        _ => Err(SecurityError::config(
            key,
            format!(
                "{}: Expected value to be either true or false",
                value.trim()
            ),
        )),
    }
}

impl JwtValidatorConfig {
    /// Reads Kafka's keys through `get` with Kafka's defaults and refusals:
    /// a JWKS URL is required, and so are an expected audience and issuer
    /// unless `sasl.oauthbearer.allow.unverified.audience` /
    /// `...issuer` are `true`. The URL is only parsed here; see
    /// [`JwtValidator::start`].
    pub fn from_kafka(
        get: &dyn Fn(&str) -> Option<String>,
    ) -> Result<JwtValidatorConfig, SecurityError> {
        let non_blank = |key: &str| {
            get(key)
                .map(|v| v.trim().to_owned())
                .filter(|v| !v.is_empty())
        };
        if let Some(class) = non_blank(JWT_VALIDATOR_CLASS) {
            if !VALIDATOR_CLASSES.contains(&class.as_str()) {
                return Err(SecurityError::config(
                    JWT_VALIDATOR_CLASS,
                    format!(
                        "{class}: kraft-rs runs only Kafka's own JWT validator ({})",
                        VALIDATOR_CLASSES.join(" or ")
                    ),
                ));
            }
        }
        let Some(jwks_endpoint_url) = non_blank(JWKS_ENDPOINT_URL) else {
            return Err(SecurityError::config(
                JWKS_ENDPOINT_URL,
                format!(
                    "The OAuth validator for the broker requires \"{JWKS_ENDPOINT_URL}\" to be \
                     configured so that JWT signatures can be verified, but it was not set. Set \
                     \"{JWKS_ENDPOINT_URL}\" to the OAuth/OIDC provider's JWKS endpoint URL for \
                     this listener, or configure a signature-verifying \"{JWT_VALIDATOR_CLASS}\"."
                ),
            ));
        };
        let long = |key: &str, default: i64| -> Result<i64, SecurityError> {
            match non_blank(key) {
                Some(v) => parse_number(key, &v, "LONG"),
                None => Ok(default),
            }
        };
        let refresh_ms = long(JWKS_ENDPOINT_REFRESH_MS, 3_600_000)?;
        if refresh_ms <= 0 {
            return Err(SecurityError::config(
                JWKS_ENDPOINT_REFRESH_MS,
                format!("{refresh_ms}: the JWKS refresh interval must be positive"),
            ));
        }
        let retry_backoff_ms = long(JWKS_ENDPOINT_RETRY_BACKOFF_MS, 100)?;
        let retry_backoff_max_ms = long(JWKS_ENDPOINT_RETRY_BACKOFF_MAX_MS, 10_000)?;
        if retry_backoff_ms < 0 || retry_backoff_max_ms < retry_backoff_ms {
            return Err(SecurityError::config(
                JWKS_ENDPOINT_RETRY_BACKOFF_MAX_MS,
                format!(
                    "retryBackoffMaxMs value ({retry_backoff_max_ms}) is less than \
                     retryBackoffMs value ({retry_backoff_ms}) or one is negative"
                ),
            ));
        }
        let clock_skew_seconds: i32 = match non_blank(CLOCK_SKEW_SECONDS) {
            Some(v) => parse_number(CLOCK_SKEW_SECONDS, &v, "INT")?,
            None => 30,
        };
        let mut expected_audience = BTreeSet::new();
        if let Some(list) = non_blank(EXPECTED_AUDIENCE) {
            for item in list.split(',').map(str::trim) {
                if !expected_audience.insert(item.to_owned()) {
                    return Err(SecurityError::config(
                        EXPECTED_AUDIENCE,
                        format!("{list}: Values must not be duplicated."),
                    ));
                }
            }
        }
        let expected_issuer = non_blank(EXPECTED_ISSUER);
        let allow_audience = match non_blank(ALLOW_UNVERIFIED_AUDIENCE) {
            Some(v) => parse_bool(ALLOW_UNVERIFIED_AUDIENCE, &v)?,
            None => false,
        };
        let allow_issuer = match non_blank(ALLOW_UNVERIFIED_ISSUER) {
            Some(v) => parse_bool(ALLOW_UNVERIFIED_ISSUER, &v)?,
            None => false,
        };
        if expected_audience.is_empty() && !allow_audience {
            return Err(SecurityError::config(
                EXPECTED_AUDIENCE,
                format!(
                    "The OAuth validator for the broker requires \"{EXPECTED_AUDIENCE}\" to be \
                     configured so that the token's audience (\"aud\") claim can be verified, but \
                     it was not set. Set \"{EXPECTED_AUDIENCE}\" to the audience(s) that identify \
                     this cluster, or set \"{ALLOW_UNVERIFIED_AUDIENCE}\" to true to accept \
                     tokens regardless of their audience."
                ),
            ));
        }
        if expected_issuer.is_none() && !allow_issuer {
            return Err(SecurityError::config(
                EXPECTED_ISSUER,
                format!(
                    "The OAuth validator for the broker requires \"{EXPECTED_ISSUER}\" to be \
                     configured so that the token's issuer (\"iss\") claim can be verified, but \
                     it was not set. Set \"{EXPECTED_ISSUER}\" to the issuer URL of the \
                     OAuth/OIDC provider that signs the tokens, or set \
                     \"{ALLOW_UNVERIFIED_ISSUER}\" to true to accept tokens regardless of their \
                     issuer."
                ),
            ));
        }
        let claim_name = |key: &str, default: &str| -> Result<String, SecurityError> {
            match get(key) {
                None => Ok(default.to_owned()),
                Some(v) if v.trim().is_empty() => Err(SecurityError::config(
                    key,
                    format!("The OAuth configuration option {key} value is required"),
                )),
                Some(v) => Ok(v.trim().to_owned()),
            }
        };
        Ok(JwtValidatorConfig {
            jwks_endpoint_url,
            refresh_ms,
            retry_backoff_ms,
            retry_backoff_max_ms,
            rules: ClaimRules {
                expected_audience,
                expected_issuer,
                clock_skew_seconds: i64::from(clock_skew_seconds),
                scope_claim_name: claim_name(SCOPE_CLAIM_NAME, "scope")?,
                sub_claim_name: claim_name(SUB_CLAIM_NAME, "sub")?,
            },
        })
    }
}

/// Kafka's JWT validator with its key source.
#[derive(Debug)]
pub struct JwtValidator {
    rules: ClaimRules,
    keys: KeySource,
}

#[derive(Debug)]
enum KeySource {
    Fixed(JwkSet),
    File(FileKeys),
    Http(Arc<HttpKeys>),
}

/// A JWKS file, read again when its modification time changes.
#[derive(Debug)]
struct FileKeys {
    path: PathBuf,
    cached: Mutex<(Option<SystemTime>, Arc<JwkSet>)>,
}

fn read_jwks_file(path: &Path) -> Result<(Option<SystemTime>, JwkSet), String> {
    let modified = std::fs::metadata(path).and_then(|m| m.modified()).ok();
    let text = std::fs::read_to_string(path).map_err(|e| {
        format!(
            "Error reading the file contents of OAuth resource {} for caching: {e}",
            path.display()
        )
    })?;
    let set = JwkSet::parse(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok((modified, set))
}

impl FileKeys {
    fn current(&self) -> Result<Arc<JwkSet>, String> {
        let modified = std::fs::metadata(&self.path)
            .and_then(|m| m.modified())
            .ok();
        let mut cached = self
            .cached
            .lock()
            .map_err(|_| "the JWKS cache lock is poisoned".to_owned())?;
        if modified != cached.0 {
            let (modified, set) = read_jwks_file(&self.path)?;
            tracing::info!(file = %self.path.display(), keys = set.keys.len(), "read the JWKS file again");
            *cached = (modified, Arc::new(set));
        }
        Ok(cached.1.clone())
    }
}

/// How long an unknown key id waits before it may trigger another refresh.
const MISSING_KEY_ID_WAIT: Duration = Duration::from_millis(60_000);
/// Unknown key ids remembered at most.
const MISSING_KEY_ID_MAX_ENTRIES: usize = 16;
/// Longer key ids never trigger a refresh.
const MISSING_KEY_ID_MAX_LENGTH: usize = 1000;
/// The largest JWKS document accepted.
const MAX_JWKS_BYTES: u64 = 1 << 20;
/// Connect, read and write timeout of one JWKS GET.
const HTTP_TIMEOUT: Duration = Duration::from_secs(10);

/// Keys fetched over HTTP(S) and refreshed by a background thread.
struct HttpKeys {
    url: HttpUrl,
    location: String,
    tls: Option<Arc<rustls::ClientConfig>>,
    keys: RwLock<Arc<JwkSet>>,
    missing: Mutex<HashMap<String, Instant>>,
    refresh_ms: u64,
    retry_backoff_ms: u64,
    retry_backoff_max_ms: u64,
    wake: Arc<(Mutex<bool>, Condvar)>,
}

impl std::fmt::Debug for HttpKeys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpKeys")
            .field("location", &self.location)
            .finish_non_exhaustive()
    }
}

impl HttpKeys {
    fn fetch(&self) -> Result<JwkSet, String> {
        let body = http_get(&self.url, self.tls.as_ref())?;
        JwkSet::parse(&body)
    }

    /// One refresh, retried as Kafka's `Retry` does.
    fn refresh(&self) {
        let deadline = Instant::now() + Duration::from_millis(self.retry_backoff_max_ms);
        let mut attempt: u32 = 0;
        loop {
            attempt += 1;
            match self.fetch() {
                Ok(set) => {
                    if let Ok(mut missing) = self.missing.lock() {
                        for key in &set.keys {
                            if let Some(kid) = &key.kid {
                                missing.remove(kid);
                            }
                        }
                    }
                    tracing::info!(url = %self.location, keys = set.keys.len(), "OAuth JWKS refresh complete");
                    if let Ok(mut keys) = self.keys.write() {
                        *keys = Arc::new(set);
                    }
                    return;
                }
                Err(reason) => {
                    let wait = self
                        .retry_backoff_ms
                        .saturating_mul(1u64 << (attempt - 1).min(32));
                    let left = deadline.saturating_duration_since(Instant::now());
                    let wait = Duration::from_millis(wait).min(left);
                    if wait.is_zero() {
                        tracing::warn!(url = %self.location, %reason, "OAuth JWKS refresh failed; keeping the keys held");
                        return;
                    }
                    tracing::warn!(url = %self.location, attempt, %reason, "OAuth JWKS refresh attempt failed; retrying");
                    std::thread::sleep(wait);
                }
            }
        }
    }

    /// Asks the refresh thread for an early refresh for `kid`, at most
    /// once a minute per key id.
    fn maybe_expedite(&self, kid: &str) {
        if kid.len() > MISSING_KEY_ID_MAX_LENGTH {
            return;
        }
        let Ok(mut missing) = self.missing.lock() else {
            return;
        };
        let now = Instant::now();
        if missing.get(kid).is_some_and(|t| *t > now) {
            return;
        }
        if missing.len() >= MISSING_KEY_ID_MAX_ENTRIES && !missing.contains_key(kid) {
            if let Some(oldest) = missing
                .iter()
                .min_by_key(|(_, t)| **t)
                .map(|(k, _)| k.clone())
            {
                missing.remove(&oldest);
            }
        }
        missing.insert(kid.to_owned(), now + MISSING_KEY_ID_WAIT);
        let (lock, cvar) = &*self.wake;
        if let Ok(mut flag) = lock.lock() {
            *flag = true;
            cvar.notify_one();
        }
    }

    fn spawn_refresher(this: &Arc<HttpKeys>) -> Result<(), SecurityError> {
        let weak: Weak<HttpKeys> = Arc::downgrade(this);
        let wake = this.wake.clone();
        let every = Duration::from_millis(this.refresh_ms);
        std::thread::Builder::new()
            .name("kraft-jwks-refresh".into())
            .spawn(move || {
                let mut next = Instant::now() + every;
                loop {
                    let (lock, cvar) = &*wake;
                    let Ok(mut flag) = lock.lock() else { return };
                    // Wake at least once a second to notice the validator is gone.
                    while !*flag && Instant::now() < next {
                        let left = next
                            .saturating_duration_since(Instant::now())
                            .min(Duration::from_secs(1));
                        flag = match cvar.wait_timeout(flag, left) {
                            Ok((f, _)) => f,
                            Err(_) => return,
                        };
                        if weak.strong_count() == 0 {
                            return;
                        }
                    }
                    *flag = false;
                    drop(flag);
                    let Some(keys) = weak.upgrade() else { return };
                    keys.refresh();
                    next = Instant::now() + every;
                }
            })
            .map(|_| ())
            .map_err(SecurityError::Io)
    }
}

/// Reads one HTTP/1.1 response of a `Connection: close` GET: the body of a
/// 200 answer (plain, `Content-Length` or chunked).
fn http_get(url: &HttpUrl, tls: Option<&Arc<rustls::ClientConfig>>) -> Result<String, String> {
    let addrs: Vec<_> = (url.host.as_str(), url.port)
        .to_socket_addrs()
        .map_err(|e| format!("cannot resolve {}: {e}", url.host))?
        .collect();
    let mut last = format!("no address for {}", url.host);
    let mut tcp = None;
    for addr in addrs {
        match TcpStream::connect_timeout(&addr, HTTP_TIMEOUT) {
            Ok(s) => {
                tcp = Some(s);
                break;
            }
            Err(e) => last = format!("cannot connect to {addr}: {e}"),
        }
    }
    let tcp = tcp.ok_or(last)?;
    tcp.set_read_timeout(Some(HTTP_TIMEOUT))
        .and_then(|()| tcp.set_write_timeout(Some(HTTP_TIMEOUT)))
        .map_err(|e| e.to_string())?;
    let host_header = if (url.tls && url.port == 443) || (!url.tls && url.port == 80) {
        url.host.clone()
    } else if url.host.contains(':') {
        format!("[{}]:{}", url.host, url.port)
    } else {
        format!("{}:{}", url.host, url.port)
    };
    let request = format!(
        "GET {} HTTP/1.1\r\nHost: {host_header}\r\nAccept: application/json\r\nUser-Agent: kraft-rs\r\nConnection: close\r\n\r\n",
        url.path
    );
    let raw = match tls {
        None => {
            let mut tcp = tcp;
            exchange(&mut tcp, request.as_bytes())?
        }
        Some(config) => {
            let name = rustls_pki_types::ServerName::try_from(url.host.clone())
                .map_err(|e| format!("invalid server name {}: {e}", url.host))?;
            let conn = rustls::ClientConnection::new(config.clone(), name)
                .map_err(|e| format!("TLS: {e}"))?;
            let mut stream = rustls::StreamOwned::new(conn, tcp);
            exchange(&mut stream, request.as_bytes())?
        }
    };
    parse_http_response(&raw)
}

trait ReadWrite: Read + Write {}
impl<T: Read + Write> ReadWrite for T {}

/// Sends `request` and reads the answer until the server closes (at most
/// a little more than the largest JWKS accepted).
fn exchange(stream: &mut dyn ReadWrite, request: &[u8]) -> Result<Vec<u8>, String> {
    stream
        .write_all(request)
        .map_err(|e| format!("cannot send the request: {e}"))?;
    let mut raw = Vec::new();
    let mut limited = Read::take(&mut *stream, MAX_JWKS_BYTES + 64 * 1024);
    match limited.read_to_end(&mut raw) {
        Ok(_) => Ok(raw),
        // A TLS server closing without close_notify: keep what arrived.
        Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof && !raw.is_empty() => Ok(raw),
        Err(e) => Err(format!("cannot read the response: {e}")),
    }
}

/// The body of a 200 response, else the status as an error.
pub fn parse_http_response(raw: &[u8]) -> Result<String, String> {
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .ok_or("the HTTP response has no end of headers")?;
    let head = std::str::from_utf8(&raw[..split]).map_err(|_| "the HTTP headers are not text")?;
    let body = &raw[split + 4..];
    let mut lines = head.split("\r\n");
    let status_line = lines.next().unwrap_or("");
    let status = status_line
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse::<u16>().ok())
        .ok_or_else(|| format!("bad HTTP status line {status_line:?}"))?;
    if status != 200 {
        return Err(format!("Non 200 status code ({status}) returned"));
    }
    let mut chunked = false;
    let mut length = None;
    for line in lines {
        if let Some((name, value)) = line.split_once(':') {
            let value = value.trim();
            if name.trim().eq_ignore_ascii_case("transfer-encoding")
                && value.to_ascii_lowercase().contains("chunked")
            {
                chunked = true;
            } else if name.trim().eq_ignore_ascii_case("content-length") {
                length = value.parse::<usize>().ok();
            }
        }
    }
    let body = if chunked {
        dechunk(body)?
    } else if let Some(n) = length {
        body.get(..n)
            .ok_or("the HTTP body is shorter than its Content-Length")?
            .to_vec()
    } else {
        body.to_vec()
    };
    if body.len() as u64 > MAX_JWKS_BYTES {
        return Err(format!("the JWKS is larger than {MAX_JWKS_BYTES} bytes"));
    }
    String::from_utf8(body).map_err(|_| "the JWKS is not UTF-8".to_owned())
}

fn dechunk(mut body: &[u8]) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    loop {
        let line_end = body
            .windows(2)
            .position(|w| w == b"\r\n")
            .ok_or("a chunk has no size line")?;
        let size_text = std::str::from_utf8(&body[..line_end]).map_err(|_| "bad chunk size")?;
        let size_text = size_text.split(';').next().unwrap_or("").trim();
        let size = usize::from_str_radix(size_text, 16).map_err(|_| "bad chunk size")?;
        body = &body[line_end + 2..];
        if size == 0 {
            return Ok(out);
        }
        let chunk = body.get(..size).ok_or("a chunk is cut short")?;
        out.extend_from_slice(chunk);
        if out.len() as u64 > MAX_JWKS_BYTES {
            return Err(format!("the JWKS is larger than {MAX_JWKS_BYTES} bytes"));
        }
        body = body.get(size + 2..).ok_or("a chunk is cut short")?;
    }
}

impl JwtValidator {
    /// A validator with fixed keys (tools, tests, embedding).
    pub fn with_keys(keys: JwkSet, rules: ClaimRules) -> JwtValidator {
        JwtValidator {
            rules,
            keys: KeySource::Fixed(keys),
        }
    }

    /// Starts the validator `config` describes: checks the JWKS URL
    /// against `allowed`, reads the file or fetches the URL once (any
    /// failure refuses the start), and for HTTP(S) starts the refresh
    /// thread. `jaas` is the listener's OAUTHBEARER JAAS entry (its
    /// `ssl.truststore.*` options secure an `https:` URL).
    pub fn start(
        config: &JwtValidatorConfig,
        jaas: &JaasEntry,
        allowed: &AllowedUrls,
    ) -> Result<JwtValidator, SecurityError> {
        let url = validate_url(JWKS_ENDPOINT_URL, &config.jwks_endpoint_url, allowed)?;
        let keys = match url {
            OAuthUrl::File(path) => {
                let (modified, set) = read_jwks_file(&path)
                    .map_err(|e| SecurityError::config(JWKS_ENDPOINT_URL, e))?;
                KeySource::File(FileKeys {
                    path,
                    cached: Mutex::new((modified, Arc::new(set))),
                })
            }
            OAuthUrl::Http(http) => {
                let tls = if http.tls {
                    let get = |k: &str| jaas.option(k).map(str::to_owned);
                    let settings = SslSettings::from_kafka(&get)?;
                    Some(tls::client_config(&settings)?)
                } else {
                    None
                };
                let non_negative = |v: i64| u64::try_from(v).unwrap_or(0);
                let keys = Arc::new(HttpKeys {
                    location: config.jwks_endpoint_url.clone(),
                    url: http,
                    tls,
                    keys: RwLock::new(Arc::new(JwkSet::default())),
                    missing: Mutex::new(HashMap::new()),
                    refresh_ms: non_negative(config.refresh_ms).max(1),
                    retry_backoff_ms: non_negative(config.retry_backoff_ms),
                    retry_backoff_max_ms: non_negative(config.retry_backoff_max_ms),
                    wake: Arc::new((Mutex::new(false), Condvar::new())),
                });
                let set = keys.fetch().map_err(|e| {
                    SecurityError::config(
                        JWKS_ENDPOINT_URL,
                        format!("{}: Could not refresh JWKS: {e}", config.jwks_endpoint_url),
                    )
                })?;
                if let Ok(mut held) = keys.keys.write() {
                    *held = Arc::new(set);
                }
                HttpKeys::spawn_refresher(&keys)?;
                KeySource::Http(keys)
            }
        };
        Ok(JwtValidator {
            rules: config.rules.clone(),
            keys,
        })
    }

    /// The claim rules.
    pub fn rules(&self) -> &ClaimRules {
        &self.rules
    }

    /// Validates `token` at `now_ms` as Kafka's `BrokerJwtValidator`:
    /// the reason for a refusal is for the server log only.
    pub fn validate(&self, token: &str, now_ms: i64) -> Result<ValidatedToken, String> {
        let jws = CompactJws::parse(token)?;
        let keys = match &self.keys {
            KeySource::Fixed(set) => Arc::new(set.clone()),
            KeySource::File(file) => file.current()?,
            KeySource::Http(http) => http
                .keys
                .read()
                .map(|k| k.clone())
                .map_err(|_| "the JWKS cache lock is poisoned".to_owned())?,
        };
        match jws.verify(&keys) {
            Ok(()) => {}
            Err(VerifyError::NoKey(reason)) => {
                if let KeySource::Http(http) = &self.keys {
                    if let Some(kid) = jws.key_id() {
                        http.maybe_expedite(kid);
                    }
                }
                return Err(format!("Could not validate the access token: {reason}"));
            }
            Err(VerifyError::Invalid(reason)) => {
                return Err(format!("Could not validate the access token: {reason}"))
            }
        }
        self.rules.check(&jws.claims, now_ms)
    }
}
