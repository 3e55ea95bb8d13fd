//! The error codes the KRaft core answers with (Kafka's, from
//! `kraft-protocol`), and the core's own error types.

/// Kafka's error codes, shared with the wire codec.
pub use kraft_protocol::ErrorCode;

/// A refused `kraft.version` upgrade: the error code and message the
/// UpdateFeatures answer carries (Kafka's `LeaderState.maybeAppendUpgradedKRaftVersion`).
#[derive(Debug, Clone, thiserror::Error, PartialEq, Eq)]
#[error("{code}: {message}")]
pub struct UpgradeError {
    /// Error code for the UpdateFeatures result.
    pub code: ErrorCode,
    /// Error message, as Kafka words it.
    pub message: String,
}

impl UpgradeError {
    fn new(code: ErrorCode, message: String) -> Self {
        UpgradeError { code, message }
    }

    pub(crate) fn invalid(message: String) -> Self {
        UpgradeError::new(ErrorCode::InvalidUpdateVersion, message)
    }

    pub(crate) fn not_leader(message: String) -> Self {
        UpgradeError::new(ErrorCode::NotController, message)
    }

    pub(crate) fn internal(message: String) -> Self {
        UpgradeError::new(ErrorCode::UnknownServerError, message)
    }
}

/// Errors returned by the core's local API (never by request handlers, which
/// answer with error codes instead).
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum RaftError {
    /// The local replica is not the leader (or is resigning).
    #[error("not the leader (epoch {epoch}, leader {leader:?})")]
    NotLeader {
        /// Local epoch.
        epoch: i32,
        /// Known leader, if any.
        leader: Option<i32>,
    },
    /// The caller passed an epoch that does not match the local leader epoch.
    #[error("epoch {given} does not match the leader epoch {current}")]
    WrongEpoch {
        /// Epoch passed by the caller.
        given: i32,
        /// Local epoch.
        current: i32,
    },
    /// Invalid configuration or start-up state.
    #[error("invalid configuration: {0}")]
    Config(String),
    /// The log rejected an operation.
    #[error("log error: {0}")]
    Log(#[source] super::log::LogError),
}
