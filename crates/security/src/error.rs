//! Errors of this crate.

/// Why a security setting, store or handshake failed.
#[derive(Debug, thiserror::Error)]
pub enum SecurityError {
    /// A Kafka configuration key has a value that cannot be used.
    #[error("Invalid value for configuration {key}: {reason}")]
    Config {
        /// The key (e.g. `ssl.keystore.type`).
        key: String,
        /// What is wrong, without any secret.
        reason: String,
    },
    /// A key or trust store could not be read or decoded.
    #[error("Failed to load {what}: {reason}")]
    Store {
        /// Which store or file (never its password).
        what: String,
        /// What is wrong.
        reason: String,
    },
    /// A TLS failure.
    #[error("TLS: {0}")]
    Tls(String),
    /// An I/O failure.
    #[error("I/O: {0}")]
    Io(#[from] std::io::Error),
}

impl SecurityError {
    /// A [`SecurityError::Config`] for `key`.
    pub fn config(key: impl Into<String>, reason: impl Into<String>) -> Self {
        SecurityError::Config {
            key: key.into(),
            reason: reason.into(),
        }
    }
}
