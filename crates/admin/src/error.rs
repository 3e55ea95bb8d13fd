//! Errors of the admin client.
//!
//! A Kafka error code in a response becomes [`AdminError::Api`] holding an
//! [`ApiError`]: the typed [`ErrorCode`] (one variant per Kafka error code,
//! as Kafka's client has one exception class per code) and the message the
//! server sent. Everything that goes wrong on the client side (connecting,
//! version negotiation, deadlines, malformed responses) has its own variant.

use std::fmt;
use std::time::Duration;

use kraft_protocol::{ApiKey, ErrorCode};

/// An error code returned by a Kafka node, with the node's message.
///
/// Kafka's admin client turns a response error into
/// `Errors.forCode(code).exception(message)`; the `code` here plays the role
/// of the exception class.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiError {
    /// The error code.
    pub code: ErrorCode,
    /// The message the server sent (`None` when the field was null or absent).
    pub message: Option<String>,
}

impl ApiError {
    /// An error with the server's message (an empty string is kept as sent).
    pub fn new(code: ErrorCode, message: Option<String>) -> Self {
        ApiError { code, message }
    }

    /// An error from a wire code and an optional wire message.
    pub fn from_wire(code: i16, message: Option<&str>) -> Self {
        ApiError {
            code: ErrorCode::from_code(code),
            message: message.map(str::to_owned),
        }
    }

    /// The text of the error as Kafka's exception would carry it: the
    /// server's message, or the code's default message when the server sent
    /// none (null or empty).
    pub fn message(&self) -> &str {
        match self.message.as_deref() {
            Some(m) if !m.is_empty() => m,
            _ => self.code.default_message(),
        }
    }

    /// Whether Kafka's exception for this code is retriable.
    pub fn is_retriable(&self) -> bool {
        self.code.is_retriable()
    }
}

impl fmt::Display for ApiError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code, self.message())
    }
}

impl std::error::Error for ApiError {}

/// Everything an admin call can fail with.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum AdminError {
    /// The node answered with a Kafka error code.
    #[error("{0}")]
    Api(#[from] ApiError),

    /// A TCP connection could not be opened (refused, unreachable, DNS, setup timeout).
    #[error("cannot connect to {addr}: {reason}")]
    Connect {
        /// `host:port` that was dialled.
        addr: String,
        /// Why (the OS error text).
        reason: String,
    },

    /// The server refused this client's authentication (TLS handshake:
    /// an untrusted certificate, a missing client certificate; SASL: wrong
    /// credentials, a mechanism it does not enable). Not retried.
    #[error("authentication with {addr} failed: {message}")]
    Authentication {
        /// `host:port` that was dialled.
        addr: String,
        /// The server's message (Kafka's SaslAuthenticate error message).
        message: String,
    },

    /// An open connection broke while a request was in flight.
    #[error("connection to {addr} lost: {reason}")]
    Disconnected {
        /// `host:port` of the node.
        addr: String,
        /// What happened.
        reason: String,
    },

    /// One request got no response within the per-request timeout
    /// (`request.timeout.ms`, capped by the call's deadline).
    #[error("{api} request to {addr} got no response within {} ms", timeout.as_millis())]
    RequestTimeout {
        /// Kafka's name of the API.
        api: &'static str,
        /// `host:port` of the node.
        addr: String,
        /// The per-request timeout that expired.
        timeout: Duration,
    },

    /// The call's deadline passed while it was being retried.
    #[error("{call} timed out after {} ms ({attempts} attempt(s)){}", timeout.as_millis(), last_error_suffix(last_error))]
    Timeout {
        /// The admin operation, e.g. `describeMetadataQuorum`.
        call: &'static str,
        /// The call's total timeout.
        timeout: Duration,
        /// How many attempts were made.
        attempts: u32,
        /// The error of the last attempt, if any.
        last_error: Option<Box<AdminError>>,
    },

    /// The node does not support the API, or no version both sides know.
    #[error("{node} does not support {api}{detail}")]
    UnsupportedVersion {
        /// Kafka's name of the API.
        api: &'static str,
        /// The node (`host:port`).
        node: String,
        /// More detail, starting with a separator (may be empty).
        detail: String,
    },

    /// A voter's directory id or endpoints had to be derived on the client
    /// (the active controller is too old to derive them, KIP-1141) and could not be.
    #[error("cannot determine the {what} of controller {voter_id}: {reason}")]
    CannotDerive {
        /// The voter id.
        voter_id: i32,
        /// `directory id` or `endpoints`.
        what: &'static str,
        /// Why, including what to pass instead.
        reason: String,
    },

    /// The configuration is invalid.
    #[error("invalid configuration: {0}")]
    Config(String),

    /// An argument of the call is invalid.
    #[error("{0}")]
    InvalidArgument(String),

    /// A response could not be decoded, or a request could not be encoded.
    #[error("protocol error with {addr}: {detail}")]
    Protocol {
        /// `host:port` of the node.
        addr: String,
        /// What went wrong.
        detail: String,
    },

    /// A response was well-formed but not what the call expects
    /// (Kafka's client raises `UnknownServerException` for these).
    #[error("unexpected response: {0}")]
    UnexpectedResponse(String),

    /// No active controller is known yet (the quorum has no leader, or the
    /// leader has not registered). Retried until the deadline.
    #[error("no active controller is known yet{0}")]
    NoActiveController(String),
}

fn last_error_suffix(last: &Option<Box<AdminError>>) -> String {
    match last {
        Some(e) => format!("; last error: {e}"),
        None => String::new(),
    }
}

impl AdminError {
    /// The Kafka error code, if the node sent one.
    pub fn error_code(&self) -> Option<ErrorCode> {
        match self {
            AdminError::Api(e) => Some(e.code),
            _ => None,
        }
    }

    /// The [`ApiError`], if the node sent one.
    pub fn api_error(&self) -> Option<&ApiError> {
        match self {
            AdminError::Api(e) => Some(e),
            _ => None,
        }
    }

    /// Whether the error is a version mismatch: either the node answered
    /// `UNSUPPORTED_VERSION`, or the client found no usable version of the
    /// API on the node (Kafka raises `UnsupportedVersionException` for both).
    pub fn is_unsupported_version(&self) -> bool {
        match self {
            AdminError::UnsupportedVersion { .. } => true,
            AdminError::Api(e) => e.code == ErrorCode::UnsupportedVersion,
            _ => false,
        }
    }

    /// Whether a retry of the same call may succeed (connection problems,
    /// request timeouts, retriable Kafka codes, no active controller yet).
    pub fn is_retriable(&self) -> bool {
        match self {
            AdminError::Api(e) => e.is_retriable(),
            AdminError::Connect { .. }
            | AdminError::Disconnected { .. }
            | AdminError::RequestTimeout { .. }
            | AdminError::NoActiveController(_) => true,
            _ => false,
        }
    }

    /// The innermost cause: the last attempt's error of a [`AdminError::Timeout`],
    /// or `self`.
    pub fn root_cause(&self) -> &AdminError {
        match self {
            AdminError::Timeout {
                last_error: Some(e),
                ..
            } => e.root_cause(),
            other => other,
        }
    }

    /// The message Kafka's exception would carry: for a node's error its
    /// message (or the code's default text), otherwise this error's text.
    pub fn message(&self) -> String {
        match self {
            AdminError::Api(e) => e.message().to_owned(),
            other => other.to_string(),
        }
    }

    pub(crate) fn unsupported(api: ApiKey, node: &str, detail: impl Into<String>) -> Self {
        AdminError::UnsupportedVersion {
            api: api.kafka_name(),
            node: node.to_owned(),
            detail: detail.into(),
        }
    }
}

/// Result alias of the admin client.
pub type Result<T, E = AdminError> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn api_error_message_falls_back_to_the_default_text() {
        let e = ApiError::from_wire(127, Some(""));
        assert_eq!(e.code, ErrorCode::VoterNotFound);
        assert_eq!(e.message(), "The voter is not part of the set of voters.");
        let e = ApiError::from_wire(136, Some("Controller ID 5 is not currently registered."));
        assert_eq!(
            e.to_string(),
            "CONTROLLER_ID_NOT_REGISTERED: Controller ID 5 is not currently registered."
        );
        let e = ApiError::from_wire(42, None);
        assert!(e.message().starts_with("This most likely occurs"));
    }

    #[test]
    fn classification() {
        let unsupported = AdminError::unsupported(ApiKey::UnregisterController, "h:1", "");
        assert!(unsupported.is_unsupported_version());
        assert!(AdminError::Api(ApiError::from_wire(35, None)).is_unsupported_version());
        assert!(AdminError::Api(ApiError::from_wire(41, None)).is_retriable());
        assert!(!AdminError::Api(ApiError::from_wire(127, None)).is_retriable());
        let timeout = AdminError::Timeout {
            call: "describeMetadataQuorum",
            timeout: Duration::from_millis(500),
            attempts: 3,
            last_error: Some(Box::new(AdminError::Connect {
                addr: "127.0.0.1:1".into(),
                reason: "Connection refused".into(),
            })),
        };
        assert_eq!(
            timeout.to_string(),
            "describeMetadataQuorum timed out after 500 ms (3 attempt(s)); last error: cannot connect to 127.0.0.1:1: Connection refused"
        );
        assert!(matches!(timeout.root_cause(), AdminError::Connect { .. }));
    }
}
