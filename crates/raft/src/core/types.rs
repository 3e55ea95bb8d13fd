//! Identities, endpoints and small value types shared by the whole core.

use std::cmp::Ordering;
use std::fmt;

pub use uuid::Uuid;

/// A KRaft node id (`node.id`). Bootstrap servers without a known id use
/// synthetic negative ids (-2, -3, ...), and `-1` means "none".
pub type NodeId = i32;

/// The KRaft feature name reported through ApiVersions.
pub const KRAFT_VERSION_FEATURE: &str = "kraft.version";

/// Identity of one replica: node id plus the directory id of its metadata log
/// directory. `directory_id == None` means unknown (UUID0 on the wire).
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ReplicaKey {
    /// Node id.
    pub id: NodeId,
    /// Directory id, `None` when unknown (static voters).
    pub directory_id: Option<Uuid>,
}

impl ReplicaKey {
    /// Builds a key from a wire directory id, mapping UUID0 to `None`.
    pub fn of(id: NodeId, directory_id: Uuid) -> Self {
        ReplicaKey {
            id,
            directory_id: if directory_id.is_nil() {
                None
            } else {
                Some(directory_id)
            },
        }
    }

    /// A key without a directory id.
    pub fn without_directory(id: NodeId) -> Self {
        ReplicaKey {
            id,
            directory_id: None,
        }
    }

    /// The directory id as written on the wire (UUID0 when unknown).
    pub fn wire_directory_id(&self) -> Uuid {
        self.directory_id.unwrap_or(Uuid::nil())
    }

    /// Kafka's matching rule for a *stored* key (`self`) against a presented
    /// key: ids must be equal; when the stored key has a directory id, the
    /// directory ids must be equal too.
    pub fn matches(&self, presented: &ReplicaKey) -> bool {
        if self.id != presented.id {
            return false;
        }
        match self.directory_id {
            Some(dir) => presented.directory_id == Some(dir),
            None => true,
        }
    }
}

impl fmt::Debug for ReplicaKey {
    /// Kafka's `ReplicaKey.toString`, which error messages quote:
    /// `ReplicaKey(id=1, directoryId=J8aAPcfLQt2bqs1JT_rMgQ)` or
    /// `ReplicaKey(id=1, directoryId=<undefined>)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.directory_id {
            Some(dir) => write!(
                f,
                "ReplicaKey(id={}, directoryId={})",
                self.id,
                kraft_protocol::kafka_uuid::to_string(dir)
            ),
            None => write!(f, "ReplicaKey(id={}, directoryId=<undefined>)", self.id),
        }
    }
}

impl fmt::Display for ReplicaKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self, f)
    }
}

/// A host and port.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Address {
    /// Host name or IP literal.
    pub host: String,
    /// TCP port.
    pub port: u16,
}

impl Address {
    /// Convenience constructor.
    pub fn new(host: impl Into<String>, port: u16) -> Self {
        Address {
            host: host.into(),
            port,
        }
    }
}

impl fmt::Display for Address {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.host, self.port)
    }
}

/// One named listener endpoint (`{Name, Host, Port}` on the wire).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Endpoint {
    /// Listener name, e.g. `CONTROLLER`.
    pub name: String,
    /// Host.
    pub host: String,
    /// Port.
    pub port: u16,
}

impl Endpoint {
    /// Convenience constructor.
    pub fn new(name: impl Into<String>, host: impl Into<String>, port: u16) -> Self {
        Endpoint {
            name: name.into(),
            host: host.into(),
            port,
        }
    }

    /// The address part.
    pub fn address(&self) -> Address {
        Address::new(self.host.clone(), self.port)
    }
}

/// The set of listener endpoints of a node, at most one per listener name,
/// kept sorted by name so equality does not depend on insertion order.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Endpoints(Vec<Endpoint>);

impl Endpoints {
    /// No endpoints.
    pub fn empty() -> Self {
        Endpoints(Vec::new())
    }

    /// Builds the set; a later endpoint with an already present name replaces
    /// the earlier one (the wire arrays are keyed by name).
    pub fn new(endpoints: impl IntoIterator<Item = Endpoint>) -> Self {
        let mut out: Vec<Endpoint> = Vec::new();
        for ep in endpoints {
            if let Some(existing) = out.iter_mut().find(|e| e.name == ep.name) {
                *existing = ep;
            } else {
                out.push(ep);
            }
        }
        out.sort();
        Endpoints(out)
    }

    /// A single endpoint.
    pub fn single(name: impl Into<String>, host: impl Into<String>, port: u16) -> Self {
        Endpoints(vec![Endpoint::new(name, host, port)])
    }

    /// The address of listener `name`, if present.
    pub fn address(&self, name: &str) -> Option<Address> {
        self.0
            .iter()
            .find(|e| e.name == name)
            .map(Endpoint::address)
    }

    /// Number of listeners.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// True when there are no listeners.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Iterates over the endpoints (sorted by listener name).
    pub fn iter(&self) -> impl Iterator<Item = &Endpoint> {
        self.0.iter()
    }
}

impl fmt::Display for Endpoints {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Endpoints(endpoints={{")?;
        for (i, e) in self.0.iter().enumerate() {
            if i > 0 {
                write!(f, ", ")?;
            }
            write!(f, "ListenerName({})={}:{}", e.name, e.host, e.port)?;
        }
        write!(f, "}})")
    }
}

/// A supported range of `kraft.version` feature levels.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct KRaftVersionRange {
    /// Minimum supported level.
    pub min: i16,
    /// Maximum supported level.
    pub max: i16,
}

impl KRaftVersionRange {
    /// Convenience constructor.
    pub fn new(min: i16, max: i16) -> Self {
        KRaftVersionRange { min, max }
    }

    /// True when `level` is inside the range.
    pub fn contains(&self, level: i16) -> bool {
        self.min <= level && level <= self.max
    }
}

/// An (end) offset paired with an epoch. Ordered epoch first, then offset,
/// which is the order Kafka uses to compare logs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct OffsetAndEpoch {
    /// Offset.
    pub offset: i64,
    /// Epoch.
    pub epoch: i32,
}

impl OffsetAndEpoch {
    /// Convenience constructor.
    pub fn new(offset: i64, epoch: i32) -> Self {
        OffsetAndEpoch { offset, epoch }
    }
}

impl PartialOrd for OffsetAndEpoch {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for OffsetAndEpoch {
    fn cmp(&self, other: &Self) -> Ordering {
        self.epoch
            .cmp(&other.epoch)
            .then(self.offset.cmp(&other.offset))
    }
}

/// Snapshot id: the snapshot's end offset (exclusive) and epoch.
pub type SnapshotId = OffsetAndEpoch;

/// The id of the bootstrap checkpoint (`00000000000000000000-0000000000.checkpoint`).
pub const BOOTSTRAP_SNAPSHOT_ID: SnapshotId = OffsetAndEpoch {
    offset: 0,
    epoch: 0,
};

/// The leader (if known) of an epoch.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LeaderAndEpoch {
    /// Leader id, `None` when unknown.
    pub leader_id: Option<NodeId>,
    /// Epoch.
    pub epoch: i32,
}
