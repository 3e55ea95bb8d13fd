//! Values the admin calls take and return.

use std::collections::BTreeMap;
use std::fmt;
use std::time::Duration;

use kraft_protocol::text::address;
use uuid::Uuid;

/// An endpoint of a quorum voter: listener name, host and port.
///
/// The text form is `LISTENER://host:port`, IPv6 hosts in brackets
/// (`CONTROLLER://[::1]:9093`), as Kafka's `RaftVoterEndpoint` prints it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RaftVoterEndpoint {
    /// Listener name (upper case, e.g. `CONTROLLER`).
    pub listener: String,
    /// Host name or address.
    pub host: String,
    /// Port.
    pub port: u16,
}

impl RaftVoterEndpoint {
    /// An endpoint; the listener must be non-empty, trimmed and upper case
    /// (Kafka's rule), else an error says which rule is broken.
    pub fn new(listener: &str, host: &str, port: u16) -> Result<Self, String> {
        if listener.trim() != listener {
            return Err("Leading or trailing whitespace is not allowed.".into());
        }
        if listener.is_empty() {
            return Err("Empty string is not allowed.".into());
        }
        if listener.to_uppercase() != listener {
            return Err("String must be UPPERCASE.".into());
        }
        Ok(RaftVoterEndpoint {
            listener: listener.to_owned(),
            host: host.to_owned(),
            port,
        })
    }

    /// Parses `LISTENER://host:port` (IPv6 host in brackets).
    pub fn parse(s: &str) -> Result<Self, String> {
        let bad = || format!("Unable to parse {s} as an endpoint: expected LISTENER://host:port");
        let (listener, host, port) = address::split_listener(s).ok_or_else(bad)?;
        let port: u16 = port
            .parse()
            .map_err(|_| format!("Unable to parse {s} as an endpoint: invalid port {port}"))?;
        RaftVoterEndpoint::new(listener, host, port)
    }
}

impl fmt::Display for RaftVoterEndpoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.host.contains(':') {
            write!(f, "{}://[{}]:{}", self.listener, self.host, self.port)
        } else {
            write!(f, "{}://{}:{}", self.listener, self.host, self.port)
        }
    }
}

/// The replication state of one voter or observer (Kafka's `QuorumInfo.ReplicaState`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplicaState {
    /// Node id.
    pub replica_id: i32,
    /// Metadata log directory id; the zero UUID when unknown (responses below v2).
    pub replica_directory_id: Uuid,
    /// Log end offset (-1 when unknown).
    pub log_end_offset: i64,
    /// Last fetch time (epoch ms), when known.
    pub last_fetch_timestamp: Option<i64>,
    /// Last time the replica was caught up with the leader (epoch ms), when known.
    pub last_caught_up_timestamp: Option<i64>,
}

/// A voter's endpoints as DescribeQuorum reports them (Kafka's `QuorumInfo.Node`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QuorumNode {
    /// Node id.
    pub node_id: i32,
    /// Its endpoints, in response order.
    pub endpoints: Vec<RaftVoterEndpoint>,
}

/// The state of the metadata quorum (Kafka's `QuorumInfo`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QuorumInfo {
    /// Id of the leader.
    pub leader_id: i32,
    /// Epoch of the leader.
    pub leader_epoch: i64,
    /// High watermark (-1 while unknown).
    pub high_watermark: i64,
    /// The latest (possibly uncommitted) voter set, leader included, in response order.
    pub voters: Vec<ReplicaState>,
    /// The committed voter set (DescribeQuorum v3, a kraft-rs extension);
    /// `None` when the node answered an older version, empty while the
    /// leader's high watermark is unknown.
    pub committed_voters: Option<Vec<ReplicaState>>,
    /// Replicas that fetch but do not vote.
    pub observers: Vec<ReplicaState>,
    /// Endpoints of the voters, by node id (empty for responses below v2).
    pub nodes: BTreeMap<i32, QuorumNode>,
}

impl QuorumInfo {
    /// The leader's entry among the voters.
    pub fn leader(&self) -> Option<&ReplicaState> {
        self.voters.iter().find(|v| v.replica_id == self.leader_id)
    }
}

/// Options of [`Admin::add_raft_voter`](crate::Admin::add_raft_voter) (KIP-1141).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AddRaftVoterOptions {
    /// When set, the call fails with `INCONSISTENT_CLUSTER_ID` unless it matches the cluster's id.
    pub cluster_id: Option<String>,
    /// The new voter's metadata directory id; `None` sends the zero UUID and
    /// lets the active controller derive it from its observers.
    pub voter_directory_id: Option<Uuid>,
    /// The new voter's endpoints; empty sends an empty listener list and lets
    /// the active controller derive them from the voter's registration.
    pub endpoints: Vec<RaftVoterEndpoint>,
    /// Deadline of the whole call; `None` uses `default.api.timeout.ms`.
    pub timeout: Option<Duration>,
}

/// Options of [`Admin::remove_raft_voter`](crate::Admin::remove_raft_voter) (KIP-1141).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RemoveRaftVoterOptions {
    /// When set, the call fails with `INCONSISTENT_CLUSTER_ID` unless it matches the cluster's id.
    pub cluster_id: Option<String>,
    /// The voter's directory id; `None` sends the zero UUID and lets the
    /// active controller take it from the current voter set.
    pub voter_directory_id: Option<Uuid>,
    /// Deadline of the whole call; `None` uses `default.api.timeout.ms`.
    pub timeout: Option<Duration>,
}

/// Who supplied the directory id and endpoints of an add or remove request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VoterKeySource {
    /// The caller passed every value.
    Caller,
    /// The active controller derived the missing values (AddRaftVoter v2+ /
    /// RemoveRaftVoter v1+, KIP-1141).
    Server,
    /// The controller was too old to derive them, so the client derived them
    /// (DescribeQuorum for the directory id, DescribeCluster for the
    /// endpoints) and sent a complete request of an older version.
    Client,
}

/// What an [`Admin::add_raft_voter`](crate::Admin::add_raft_voter) call sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AddRaftVoterResult {
    /// The directory id sent (`None` when the server derived it).
    pub voter_directory_id: Option<Uuid>,
    /// The endpoints sent (empty when the server derived them).
    pub endpoints: Vec<RaftVoterEndpoint>,
    /// Where the values came from.
    pub source: VoterKeySource,
    /// The AddRaftVoter version used.
    pub version: i16,
}

/// What an [`Admin::remove_raft_voter`](crate::Admin::remove_raft_voter) call sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RemoveRaftVoterResult {
    /// The directory id sent (`None` when the server derived it).
    pub voter_directory_id: Option<Uuid>,
    /// Where the directory id came from.
    pub source: VoterKeySource,
    /// The RemoveRaftVoter version used.
    pub version: i16,
}

/// Which kind of endpoints a DescribeCluster response lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EndpointType {
    /// Brokers (type 1).
    Broker,
    /// Controllers (type 2).
    Controller,
    /// A type this client does not know.
    Unknown(i8),
}

impl EndpointType {
    /// From the wire value.
    pub fn from_i8(v: i8) -> Self {
        match v {
            1 => EndpointType::Broker,
            2 => EndpointType::Controller,
            other => EndpointType::Unknown(other),
        }
    }
}

/// A node listed by DescribeCluster.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClusterNode {
    /// Node id.
    pub id: i32,
    /// Host of the endpoint on the listener the request arrived on.
    pub host: String,
    /// Port.
    pub port: i32,
    /// Rack, if any.
    pub rack: Option<String>,
    /// Whether the broker is fenced (brokers only).
    pub is_fenced: bool,
}

/// What DescribeCluster reports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClusterDescription {
    /// The cluster id.
    pub cluster_id: String,
    /// The active controller (controllers) or the node the broker calls its
    /// controller, when known and listed.
    pub controller: Option<ClusterNode>,
    /// Registered controllers (bootstrap controllers) or brokers.
    pub nodes: Vec<ClusterNode>,
    /// What `nodes` are.
    pub endpoint_type: EndpointType,
}

/// Options of [`Admin::describe_cluster_with`](crate::Admin::describe_cluster_with).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DescribeClusterOptions {
    /// List fenced brokers too (bootstrap servers only; DescribeCluster v2).
    pub include_fenced_brokers: bool,
    /// Deadline of the whole call; `None` uses `default.api.timeout.ms`.
    pub timeout: Option<Duration>,
}

/// Options of [`Admin::describe_features_with`](crate::Admin::describe_features_with).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DescribeFeaturesOptions {
    /// Ask this node (a controller id with bootstrap controllers, a broker id
    /// with bootstrap servers) instead of the active controller / a broker.
    pub node_id: Option<i32>,
    /// Deadline of the whole call; `None` uses `default.api.timeout.ms`.
    pub timeout: Option<Duration>,
}

/// Options of [`Admin::update_features`](crate::Admin::update_features).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct UpdateFeaturesOptions {
    /// Validate the change without applying it.
    pub validate_only: bool,
    /// Deadline of the whole call; `None` uses `default.api.timeout.ms`.
    pub timeout: Option<Duration>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endpoint_text_form() {
        let e = RaftVoterEndpoint::new("CONTROLLER", "::1", 9093).expect("valid");
        assert_eq!(e.to_string(), "CONTROLLER://[::1]:9093");
        assert_eq!(RaftVoterEndpoint::parse("CONTROLLER://[::1]:9093"), Ok(e));
        assert_eq!(
            RaftVoterEndpoint::parse("CONTROLLER://localhost:9093")
                .expect("valid")
                .to_string(),
            "CONTROLLER://localhost:9093"
        );
        assert!(RaftVoterEndpoint::new("controller", "h", 1).is_err());
        assert!(RaftVoterEndpoint::new(" C", "h", 1).is_err());
        assert!(RaftVoterEndpoint::new("", "h", 1).is_err());
        assert!(RaftVoterEndpoint::parse("CONTROLLER://h").is_err());
        assert!(RaftVoterEndpoint::parse("h:1").is_err());
    }
}
