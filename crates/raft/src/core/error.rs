//! Kafka error codes used by the KRaft core, and the core's own error type.
//!
//! This is a small local mirror of the codes the consensus core produces or
//! consumes; the wire adapter maps them 1:1 onto `kraft-protocol`'s
//! `ErrorCode` (same numeric values).

use std::fmt;

/// A Kafka error code (numeric values are Kafka's).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ErrorCode {
    /// -1
    UnknownServerError,
    /// 0
    None,
    /// 3
    UnknownTopicOrPartition,
    /// 6
    NotLeaderOrFollower,
    /// 7
    RequestTimedOut,
    /// 8
    BrokerNotAvailable,
    /// 13
    NetworkException,
    /// 31
    ClusterAuthorizationFailed,
    /// 35
    UnsupportedVersion,
    /// 42
    InvalidRequest,
    /// 74
    FencedLeaderEpoch,
    /// 75
    UnknownLeaderEpoch,
    /// 94
    InconsistentVoterSet,
    /// 95
    InvalidUpdateVersion,
    /// 98
    SnapshotNotFound,
    /// 99
    PositionOutOfRange,
    /// 104
    InconsistentClusterId,
    /// 125
    InvalidVoterKey,
    /// 126
    DuplicateVoter,
    /// 127
    VoterNotFound,
    /// Any other code.
    Other(i16),
}

impl ErrorCode {
    /// The numeric code.
    pub fn code(self) -> i16 {
        match self {
            ErrorCode::UnknownServerError => -1,
            ErrorCode::None => 0,
            ErrorCode::UnknownTopicOrPartition => 3,
            ErrorCode::NotLeaderOrFollower => 6,
            ErrorCode::RequestTimedOut => 7,
            ErrorCode::BrokerNotAvailable => 8,
            ErrorCode::NetworkException => 13,
            ErrorCode::ClusterAuthorizationFailed => 31,
            ErrorCode::UnsupportedVersion => 35,
            ErrorCode::InvalidRequest => 42,
            ErrorCode::FencedLeaderEpoch => 74,
            ErrorCode::UnknownLeaderEpoch => 75,
            ErrorCode::InconsistentVoterSet => 94,
            ErrorCode::InvalidUpdateVersion => 95,
            ErrorCode::SnapshotNotFound => 98,
            ErrorCode::PositionOutOfRange => 99,
            ErrorCode::InconsistentClusterId => 104,
            ErrorCode::InvalidVoterKey => 125,
            ErrorCode::DuplicateVoter => 126,
            ErrorCode::VoterNotFound => 127,
            ErrorCode::Other(c) => c,
        }
    }

    /// Maps a numeric code back to the enum.
    pub fn from_code(code: i16) -> Self {
        match code {
            -1 => ErrorCode::UnknownServerError,
            0 => ErrorCode::None,
            3 => ErrorCode::UnknownTopicOrPartition,
            6 => ErrorCode::NotLeaderOrFollower,
            7 => ErrorCode::RequestTimedOut,
            8 => ErrorCode::BrokerNotAvailable,
            13 => ErrorCode::NetworkException,
            31 => ErrorCode::ClusterAuthorizationFailed,
            35 => ErrorCode::UnsupportedVersion,
            42 => ErrorCode::InvalidRequest,
            74 => ErrorCode::FencedLeaderEpoch,
            75 => ErrorCode::UnknownLeaderEpoch,
            94 => ErrorCode::InconsistentVoterSet,
            95 => ErrorCode::InvalidUpdateVersion,
            98 => ErrorCode::SnapshotNotFound,
            99 => ErrorCode::PositionOutOfRange,
            104 => ErrorCode::InconsistentClusterId,
            125 => ErrorCode::InvalidVoterKey,
            126 => ErrorCode::DuplicateVoter,
            127 => ErrorCode::VoterNotFound,
            other => ErrorCode::Other(other),
        }
    }

    /// Kafka's enum name (`Errors.name()`).
    pub fn name(self) -> &'static str {
        match self {
            ErrorCode::UnknownServerError => "UNKNOWN_SERVER_ERROR",
            ErrorCode::None => "NONE",
            ErrorCode::UnknownTopicOrPartition => "UNKNOWN_TOPIC_OR_PARTITION",
            ErrorCode::NotLeaderOrFollower => "NOT_LEADER_OR_FOLLOWER",
            ErrorCode::RequestTimedOut => "REQUEST_TIMED_OUT",
            ErrorCode::BrokerNotAvailable => "BROKER_NOT_AVAILABLE",
            ErrorCode::NetworkException => "NETWORK_EXCEPTION",
            ErrorCode::ClusterAuthorizationFailed => "CLUSTER_AUTHORIZATION_FAILED",
            ErrorCode::UnsupportedVersion => "UNSUPPORTED_VERSION",
            ErrorCode::InvalidRequest => "INVALID_REQUEST",
            ErrorCode::FencedLeaderEpoch => "FENCED_LEADER_EPOCH",
            ErrorCode::UnknownLeaderEpoch => "UNKNOWN_LEADER_EPOCH",
            ErrorCode::InconsistentVoterSet => "INCONSISTENT_VOTER_SET",
            ErrorCode::InvalidUpdateVersion => "INVALID_UPDATE_VERSION",
            ErrorCode::SnapshotNotFound => "SNAPSHOT_NOT_FOUND",
            ErrorCode::PositionOutOfRange => "POSITION_OUT_OF_RANGE",
            ErrorCode::InconsistentClusterId => "INCONSISTENT_CLUSTER_ID",
            ErrorCode::InvalidVoterKey => "INVALID_VOTER_KEY",
            ErrorCode::DuplicateVoter => "DUPLICATE_VOTER",
            ErrorCode::VoterNotFound => "VOTER_NOT_FOUND",
            ErrorCode::Other(_) => "UNKNOWN",
        }
    }

    /// Kafka's default message (`Errors.message()`); `None` for NONE.
    pub fn default_message(self) -> Option<&'static str> {
        Some(match self {
            ErrorCode::None => return None,
            ErrorCode::UnknownServerError => "The server experienced an unexpected error when processing the request.",
            ErrorCode::UnknownTopicOrPartition => "This server does not host this topic-partition.",
            ErrorCode::NotLeaderOrFollower => "For requests intended only for the leader, this error indicates that the broker is not the current leader. For requests intended for any replica, this error indicates that the broker is not a replica of the topic partition.",
            ErrorCode::RequestTimedOut => "The request timed out.",
            ErrorCode::BrokerNotAvailable => "The broker is not available.",
            ErrorCode::NetworkException => "The server disconnected before a response was received.",
            ErrorCode::ClusterAuthorizationFailed => "Cluster authorization failed.",
            ErrorCode::UnsupportedVersion => "The version of API is not supported.",
            ErrorCode::InvalidRequest => "This most likely occurs because of a request being malformed by the client library or the message was sent to an incompatible broker. See the broker logs for more details.",
            ErrorCode::FencedLeaderEpoch => "The leader epoch in the request is older than the epoch on the broker.",
            ErrorCode::UnknownLeaderEpoch => "The leader epoch in the request is newer than the epoch on the broker.",
            ErrorCode::InconsistentVoterSet => "Indicates that the either the sender or recipient of a voter-only request is not one of the expected voters.",
            ErrorCode::InvalidUpdateVersion => "The given update version was invalid.",
            ErrorCode::SnapshotNotFound => "Requested snapshot was not found.",
            ErrorCode::PositionOutOfRange => "Requested position is not greater than or equal to zero, and less than the size of the snapshot.",
            ErrorCode::InconsistentClusterId => "The clusterId in the request does not match that found on the server.",
            ErrorCode::InvalidVoterKey => "The voter key doesn't match the receiving replica's key.",
            ErrorCode::DuplicateVoter => "The voter is already part of the set of voters.",
            ErrorCode::VoterNotFound => "The voter is not part of the set of voters.",
            ErrorCode::Other(_) => return None,
        })
    }

    /// True for [`ErrorCode::None`].
    pub fn is_none(self) -> bool {
        self == ErrorCode::None
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
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
    Log(String),
}
