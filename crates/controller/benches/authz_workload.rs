//! The ACLs and the checks of the authorization benchmarks, shared by the
//! `authorize` bench (one `StandardAuthorizer` check at a time, against
//! Kafka's own class on the same ACLs) and `broker_load --create-acls`
//! (the same ACLs created on a live quorum for `tests/interop/bench.sh`'s
//! `kraft-rs-authz` and `kafka-authz` runs).
//!
//! The set: what the bench client (`User:ANONYMOUS` on a PLAINTEXT
//! listener) needs, and unrelated ACLs of other principals up to the total:
//!
//! * ALLOW `CLUSTER_ACTION`, `ALTER` and `DESCRIBE` on the cluster (fake
//!   brokers' registrations and heartbeats, the controllers' own raft
//!   requests, CreateAcls itself, DescribeQuorum);
//! * ALLOW `CREATE` on each topic prefix the bench writes under (not on
//!   the cluster: a CreateTopics is then refused CREATE on the cluster and
//!   allowed per topic, the longer of Kafka's two paths);
//! * the rest, for `User:app-N` principals: literal topic READ, prefixed
//!   topic WRITE, literal group READ, and one in 16 a DENY of a literal
//!   topic, so the checked resource types hold many ACLs of others.

#![allow(dead_code)]

use kraft_controller::image::StandardAcl;
use kraft_protocol::acl::{AclOperation, AclPermissionType, PatternType, ResourceType};

/// The cluster resource's name (Kafka's `Resource.CLUSTER_NAME`).
pub const CLUSTER: &str = "kafka-cluster";
/// The principal the bench's client connects as.
pub const CLIENT: &str = "User:ANONYMOUS";
/// The topic prefixes of `bench.sh`'s writers (`lat1-0-17`, `tp2-5-3`,
/// `fo...`) and of its fake brokers' topics.
pub const PREFIXES: [&str; 4] = ["lat", "tp", "fo", "big-"];

fn acl(
    resource_type: ResourceType,
    name: &str,
    pattern: PatternType,
    principal: &str,
    operation: AclOperation,
    permission: AclPermissionType,
) -> StandardAcl {
    StandardAcl {
        resource_type: resource_type.code(),
        resource_name: name.to_string(),
        pattern_type: pattern.code(),
        principal: principal.to_string(),
        host: "*".to_string(),
        operation: operation.code(),
        permission_type: permission.code(),
    }
}

/// `total` ACLs: the client's grants (for `principal`, on `prefixes`)
/// first, then unrelated ones up to `total`.
pub fn acls(total: usize, principal: &str, prefixes: &[&str]) -> Vec<StandardAcl> {
    use AclPermissionType::{Allow, Deny};
    use PatternType::{Literal, Prefixed};
    let mut out = Vec::with_capacity(total);
    for op in [
        AclOperation::ClusterAction,
        AclOperation::Alter,
        AclOperation::Describe,
    ] {
        out.push(acl(
            ResourceType::Cluster,
            CLUSTER,
            Literal,
            principal,
            op,
            Allow,
        ));
    }
    for p in prefixes {
        out.push(acl(
            ResourceType::Topic,
            p,
            Prefixed,
            principal,
            AclOperation::Create,
            Allow,
        ));
    }
    let mut i = 0usize;
    while out.len() < total {
        let user = format!("User:app-{}", i % 50);
        out.push(match i % 16 {
            15 => acl(
                ResourceType::Topic,
                &format!("orders-{i}"),
                Literal,
                &user,
                AclOperation::Write,
                Deny,
            ),
            n if n % 4 == 0 || n % 4 == 1 => acl(
                ResourceType::Topic,
                &format!("orders-{i}"),
                Literal,
                &user,
                AclOperation::Read,
                Allow,
            ),
            n if n % 4 == 2 => acl(
                ResourceType::Topic,
                &format!("svc-{i}-"),
                Prefixed,
                &user,
                AclOperation::Write,
                Allow,
            ),
            _ => acl(
                ResourceType::Group,
                &format!("group-{i}"),
                Literal,
                &user,
                AclOperation::Read,
                Allow,
            ),
        });
        i += 1;
    }
    out
}

/// One check of the `authorize` bench: who, what, and the expected answer.
pub struct Check {
    /// The principal, `User:name`.
    pub principal: &'static str,
    /// The operation.
    pub operation: AclOperation,
    /// The resource type.
    pub resource_type: ResourceType,
    /// The resource name.
    pub name: String,
    /// Whether the action is allowed.
    pub allowed: bool,
}

/// The checks a controller makes for the bench's traffic: a heartbeat or
/// a raft request (CLUSTER_ACTION on the cluster), then CreateTopics' three
/// (CREATE on the cluster, refused; CREATE on the topic, allowed by a
/// prefix; DESCRIBE_CONFIGS on the topic, refused), and one of another
/// principal on a topic of its own (allowed by a literal ACL).
pub fn checks() -> Vec<Check> {
    let topic = "lat1-0-17".to_string();
    vec![
        Check {
            principal: CLIENT,
            operation: AclOperation::ClusterAction,
            resource_type: ResourceType::Cluster,
            name: CLUSTER.to_string(),
            allowed: true,
        },
        Check {
            principal: CLIENT,
            operation: AclOperation::Create,
            resource_type: ResourceType::Cluster,
            name: CLUSTER.to_string(),
            allowed: false,
        },
        Check {
            principal: CLIENT,
            operation: AclOperation::Create,
            resource_type: ResourceType::Topic,
            name: topic.clone(),
            allowed: true,
        },
        Check {
            principal: CLIENT,
            operation: AclOperation::DescribeConfigs,
            resource_type: ResourceType::Topic,
            name: topic,
            allowed: false,
        },
        Check {
            principal: "User:app-16",
            operation: AclOperation::Read,
            resource_type: ResourceType::Topic,
            name: "orders-16".to_string(),
            allowed: true,
        },
    ]
}
