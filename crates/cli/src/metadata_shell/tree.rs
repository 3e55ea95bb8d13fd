//! The node tree `kraft metadata-shell` browses: Kafka 4.4's shell tree
//! (`/local` about the tool, `/image` the metadata image as Kafka's
//! `MetadataImageNode` presents it), built on demand from a
//! [`MetadataImage`]. Node names, leaf texts and their quirks are Kafka's:
//! leaves print the `toString` of Kafka's registration, ACL and credential
//! classes, and a default client quota entity shows as an empty name that
//! leads nowhere.

use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::fmt::Write as _;

use kraft_controller::config::SecurityProtocol;
use kraft_controller::image::{
    BrokerRegistration, ClientQuotaEntity, ConfigResource, ControllerRegistration,
    DelegationTokenData, MetadataImage, PartitionRegistration, RegistrationEndpoint,
    ScramCredentialData, StandardAcl, TopicImage,
};
use kraft_protocol::acl::{AclOperation, AclPermissionType, PatternType, ResourceType};
use kraft_protocol::kafka_uuid;

use crate::dump_log::java_double;

/// Where the image's last record came from (Kafka's `MetadataProvenance`):
/// the last offset, leader epoch and append time of the last metadata batch
/// read, or `-1, -1, 0` before any.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Provenance {
    /// Offset of the last record applied.
    pub offset: i64,
    /// Partition leader epoch of its batch.
    pub epoch: i32,
    /// Max timestamp of its batch, in milliseconds since the epoch.
    pub time_ms: i64,
}

impl Default for Provenance {
    fn default() -> Self {
        Provenance {
            offset: -1,
            epoch: -1,
            time_ms: 0,
        }
    }
}

/// What the tree is built from: the image and where it came from.
pub struct Tree<'a> {
    /// The metadata image under `/image`.
    pub image: &'a MetadataImage,
    /// Shown at `/image/provenance`.
    pub provenance: Provenance,
}

/// One node of the tree: a directory (children by name) or a file (a leaf
/// that prints text).
#[derive(Clone)]
pub enum Node<'a> {
    /// `/`.
    Root,
    /// `/local`.
    Local,
    /// `/image`.
    Image,
    /// `/image/provenance` (a file).
    Provenance,
    /// `/image/features`.
    Features,
    /// `/image/cluster`.
    Cluster,
    /// `/image/cluster/brokers`.
    Brokers,
    /// `/image/cluster/controllers`.
    Controllers,
    /// `/image/topics`.
    Topics,
    /// `/image/topics/byName`.
    TopicsByName,
    /// `/image/topics/byId`.
    TopicsById,
    /// One topic.
    Topic(TopicImage<'a>),
    /// `/image/configs`.
    Configs,
    /// One resource's configuration.
    Config(&'a BTreeMap<String, String>),
    /// `/image/clientQuotas`.
    ClientQuotas,
    /// One entity's quotas.
    ClientQuota(&'a BTreeMap<String, f64>),
    /// `/image/producerIds`.
    ProducerIds,
    /// `/image/acls`.
    Acls,
    /// `/image/acls/byId`.
    AclsById,
    /// `/image/scram`.
    Scram,
    /// One mechanism's credentials by user.
    ScramMechanism(Option<&'a BTreeMap<String, ScramCredentialData>>),
    /// `/image/delegationToken`.
    DelegationTokens,
    /// A file.
    Leaf(String),
}

/// Kafka's `String.compareTo`: UTF-16 code unit order.
pub fn java_cmp(a: &str, b: &str) -> Ordering {
    a.encode_utf16().cmp(b.encode_utf16())
}

/// Sorts names as Kafka's shell does before listing them.
pub fn sort_names(names: &mut [String]) {
    names.sort_by(|a, b| java_cmp(a, b));
}

const SCRAM_MECHANISMS: [(&str, i8); 2] = [("SCRAM-SHA-256", 1), ("SCRAM-SHA-512", 2)];

/// `ConfigResource.Type` names in Kafka's declaration order (the order
/// `resourceFromName` tries them in).
const CONFIG_TYPES: [(&str, i8); 6] = [
    ("GROUP", ConfigResource::GROUP),
    ("CLIENT_METRICS", ConfigResource::CLIENT_METRICS),
    ("BROKER_LOGGER", ConfigResource::BROKER_LOGGER),
    ("BROKER", ConfigResource::BROKER),
    ("TOPIC", ConfigResource::TOPIC),
    ("UNKNOWN", ConfigResource::UNKNOWN),
];

fn config_type_name(id: i8) -> &'static str {
    CONFIG_TYPES
        .iter()
        .find(|(_, t)| *t == id)
        .map_or("UNKNOWN", |(n, _)| n)
}

impl<'a> Tree<'a> {
    /// Whether `node` is a directory.
    pub fn is_directory(&self, node: &Node<'a>) -> bool {
        !matches!(node, Node::Provenance | Node::Leaf(_))
    }

    /// The names of `node`'s children, unsorted, as Kafka lists them (a
    /// name may repeat, and may lead nowhere). An error is a child name
    /// Kafka's node itself cannot build.
    pub fn child_names(&self, node: &Node<'a>) -> Result<Vec<String>, String> {
        let image = self.image;
        let names = match node {
            Node::Root => vec!["local".into(), "image".into()],
            Node::Local => vec!["version".into(), "commitId".into()],
            Node::Image => [
                "provenance",
                "features",
                "cluster",
                "topics",
                "configs",
                "clientQuotas",
                "producerIds",
                "acls",
                "scram",
                "delegationToken",
            ]
            .iter()
            .map(|s| s.to_string())
            .collect(),
            Node::Features => std::iter::once("metadataVersion".to_string())
                .chain(
                    image
                        .features()
                        .finalized()
                        .iter()
                        .map(|(n, _)| format!("finalized_{n}")),
                )
                .collect(),
            Node::Cluster => vec!["brokers".into(), "controllers".into()],
            Node::Brokers => image
                .cluster()
                .brokers()
                .map(|b| b.id().to_string())
                .collect(),
            Node::Controllers => image
                .cluster()
                .controllers()
                .map(|c| c.id.to_string())
                .collect(),
            Node::Topics => vec!["byName".into(), "byId".into()],
            Node::TopicsByName => image.topics().topics().map(|t| t.name().into()).collect(),
            Node::TopicsById => image
                .topics()
                .topics()
                .map(|t| kafka_uuid::to_string(&t.id()))
                .collect(),
            Node::Topic(topic) => ["name".to_string(), "id".to_string()]
                .into_iter()
                .chain(topic.partitions().map(|(id, _)| id.to_string()))
                .collect(),
            Node::Configs => image
                .configs()
                .resources()
                .map(|(r, _)| {
                    let type_name = config_type_name(r.resource_type);
                    if r.name.is_empty() {
                        type_name.to_string()
                    } else {
                        format!("{type_name}:{}", r.name)
                    }
                })
                .collect(),
            Node::Config(values) => values.keys().cloned().collect(),
            Node::ClientQuotas => image
                .client_quotas()
                .entities()
                .map(|(e, _)| quota_entity_name(e))
                .collect::<Result<_, _>>()?,
            Node::ClientQuota(quotas) => quotas.keys().cloned().collect(),
            Node::ProducerIds => vec!["nextProducerId".into()],
            Node::Acls => vec!["byId".into()],
            Node::AclsById => image
                .acls()
                .acls()
                .map(|(id, _)| kafka_uuid::to_string(id))
                .collect(),
            Node::Scram => SCRAM_MECHANISMS
                .iter()
                .map(|(n, _)| n.to_string())
                .collect(),
            Node::ScramMechanism(users) => users
                .map(|u| u.keys().cloned().collect())
                .unwrap_or_default(),
            Node::DelegationTokens => image
                .delegation_tokens()
                .tokens()
                .map(|t| t.token_id.clone())
                .collect(),
            Node::Provenance | Node::Leaf(_) => Vec::new(),
        };
        Ok(names)
    }

    /// The child of `node` called `name`, if there is one.
    pub fn child(&self, node: &Node<'a>, name: &str) -> Option<Node<'a>> {
        let image = self.image;
        match node {
            Node::Root => match name {
                "local" => Some(Node::Local),
                "image" => Some(Node::Image),
                _ => None,
            },
            Node::Local => match name {
                "version" => Some(Node::Leaf(env!("CARGO_PKG_VERSION").to_string())),
                "commitId" => Some(Node::Leaf("unknown".to_string())),
                _ => None,
            },
            Node::Image => Some(match name {
                "provenance" => Node::Provenance,
                "features" => Node::Features,
                "cluster" => Node::Cluster,
                "topics" => Node::Topics,
                "configs" => Node::Configs,
                "clientQuotas" => Node::ClientQuotas,
                "producerIds" => Node::ProducerIds,
                "acls" => Node::Acls,
                "scram" => Node::Scram,
                "delegationToken" => Node::DelegationTokens,
                _ => return None,
            }),
            Node::Features => {
                if name == "metadataVersion" {
                    Some(Node::Leaf(match image.features().metadata_version() {
                        Some(mv) => format!("Optional[{mv}]"),
                        None => "Optional.empty".to_string(),
                    }))
                } else {
                    // Any finalized_ name is a file: 0 for a feature not set.
                    let feature = name.strip_prefix("finalized_")?;
                    Some(Node::Leaf(image.features().level(feature).to_string()))
                }
            }
            Node::Cluster => match name {
                "brokers" => Some(Node::Brokers),
                "controllers" => Some(Node::Controllers),
                _ => None,
            },
            Node::Brokers => {
                let id: i32 = name.parse().ok()?;
                image
                    .cluster()
                    .broker(id)
                    .map(|b| Node::Leaf(broker_text(b)))
            }
            Node::Controllers => {
                let id: i32 = name.parse().ok()?;
                image
                    .cluster()
                    .controller(id)
                    .map(|c| Node::Leaf(controller_text(c)))
            }
            Node::Topics => match name {
                "byName" => Some(Node::TopicsByName),
                "byId" => Some(Node::TopicsById),
                _ => None,
            },
            Node::TopicsByName => image.topics().topic_by_name(name).map(Node::Topic),
            Node::TopicsById => {
                let id = kafka_uuid::parse(name).ok()?;
                image.topics().topic(&id).map(Node::Topic)
            }
            Node::Topic(topic) => match name {
                "name" => Some(Node::Leaf(topic.name().to_string())),
                "id" => Some(Node::Leaf(kafka_uuid::to_string(&topic.id()))),
                _ => {
                    let id: i32 = name.parse().ok()?;
                    topic.partition(id).map(|p| Node::Leaf(partition_text(p)))
                }
            },
            Node::Configs => {
                let resource = config_resource_from_name(name)?;
                image.configs().config(&resource).map(Node::Config)
            }
            Node::Config(values) => values.get(name).map(|v| Node::Leaf(v.clone())),
            Node::ClientQuotas => {
                let entity = decode_quota_entity(name)?;
                image.client_quotas().quotas(&entity).map(Node::ClientQuota)
            }
            Node::ClientQuota(quotas) => quotas.get(name).map(|q| Node::Leaf(java_double(*q))),
            Node::ProducerIds => (name == "nextProducerId")
                .then(|| Node::Leaf(image.producer_ids().next_producer_id().to_string())),
            Node::Acls => (name == "byId").then_some(Node::AclsById),
            Node::AclsById => {
                let id = kafka_uuid::parse(name).ok()?;
                image.acls().acl(&id).map(|a| Node::Leaf(acl_text(a)))
            }
            Node::Scram => {
                let (_, code) = SCRAM_MECHANISMS.iter().find(|(n, _)| *n == name)?;
                Some(Node::ScramMechanism(image.scram().users(*code)))
            }
            Node::ScramMechanism(users) => (*users)?.get(name).map(|c| Node::Leaf(scram_text(c))),
            Node::DelegationTokens => image
                .delegation_tokens()
                .token(name)
                .map(|t| Node::Leaf(token_text(t))),
            Node::Provenance | Node::Leaf(_) => None,
        }
    }

    /// Prints `node` as Kafka's `ShellNodePrinter` does: a file's text, or
    /// each child (sorted) as `name:` followed by its contents, indented by
    /// two spaces a level.
    pub fn print(&self, node: &Node<'a>, out: &mut String) -> Result<(), String> {
        self.print_at(node, 0, out)
    }

    fn print_at(&self, node: &Node<'a>, level: usize, out: &mut String) -> Result<(), String> {
        let indent = "  ".repeat(level);
        match node {
            Node::Leaf(text) => {
                let _ = writeln!(out, "{indent}{text}");
            }
            Node::Provenance => {
                let p = self.provenance;
                let _ = writeln!(
                    out,
                    "{indent}offset {}, epoch {}, time {}",
                    p.offset,
                    p.epoch,
                    iso_zoned_utc(p.time_ms)
                );
            }
            _ => {
                let mut names = self.child_names(node)?;
                sort_names(&mut names);
                for name in names {
                    let _ = writeln!(out, "{indent}{name}:");
                    if let Some(child) = self.child(node, &name) {
                        self.print_at(&child, level + 1, out)?;
                    }
                }
            }
        }
        Ok(())
    }
}

/// Kafka's `ClientQuotasImageNode` name of an entity: `clientId(..)`,
/// `ip(..)`, `user(..)` joined by `_`, each value with `\`, `(` and `)`
/// escaped. A default part (no name) is left out, so the default entity is
/// the empty name.
fn quota_entity_name(entity: &ClientQuotaEntity) -> Result<String, String> {
    let (mut client_id, mut ip, mut user) = (None, None, None);
    for (entity_type, name) in entity.entries() {
        match entity_type.as_str() {
            ClientQuotaEntity::CLIENT_ID => client_id = name.as_deref(),
            ClientQuotaEntity::IP => ip = name.as_deref(),
            ClientQuotaEntity::USER => user = name.as_deref(),
            other => return Err(format!("Invalid entity type {other}")),
        }
    }
    let escape = |s: &str| {
        s.replace('\\', "\\\\")
            .replace('(', "\\(")
            .replace(')', "\\)")
    };
    let parts: Vec<String> = [("clientId", client_id), ("ip", ip), ("user", user)]
        .into_iter()
        .filter_map(|(label, value)| value.map(|v| format!("{label}({})", escape(v))))
        .collect();
    Ok(parts.join("_"))
}

/// The entity a `clientQuotas` child name stands for (the inverse of
/// [`quota_entity_name`]), or `None` if the name is not one.
fn decode_quota_entity(input: &str) -> Option<ClientQuotaEntity> {
    let mut parts: Vec<(&str, String)> = Vec::new();
    let mut rest = input;
    loop {
        let (entity_type, after) = [
            ("clientId(", ClientQuotaEntity::CLIENT_ID),
            ("ip(", ClientQuotaEntity::IP),
            ("user(", ClientQuotaEntity::USER),
        ]
        .iter()
        .find_map(|(prefix, t)| rest.strip_prefix(prefix).map(|r| (*t, r)))?;
        let mut value = String::new();
        let mut chars = after.char_indices();
        let end = loop {
            let (i, c) = chars.next()?;
            match c {
                ')' => break i + 1,
                '\\' => value.push(chars.next()?.1),
                c => value.push(c),
            }
        };
        parts.retain(|(t, _)| *t != entity_type);
        parts.push((entity_type, value));
        rest = &after[end..];
        if rest.is_empty() {
            break;
        }
        rest = rest.strip_prefix('_')?;
        if rest.is_empty() {
            return None;
        }
    }
    Some(ClientQuotaEntity::new(
        parts.iter().map(|(t, v)| (*t, Some(v.as_str()))),
    ))
}

/// Kafka's `ConfigurationsImageNode.resourceFromName`: `TYPE` (the type's
/// default resource) or `TYPE:name`.
fn config_resource_from_name(name: &str) -> Option<ConfigResource> {
    let (type_name, id) = CONFIG_TYPES.iter().find(|(n, _)| name.starts_with(n))?;
    let key = &name[type_name.len()..];
    if key.is_empty() {
        Some(ConfigResource::new(*id, ""))
    } else {
        key.strip_prefix(':').map(|k| ConfigResource::new(*id, k))
    }
}

fn uuid_list(ids: impl Iterator<Item = kraft_protocol::Uuid>) -> String {
    let items: Vec<String> = ids.map(|u| kafka_uuid::to_string(&u)).collect();
    format!("[{}]", items.join(", "))
}

fn int_list(ids: impl Iterator<Item = i32>) -> String {
    let items: Vec<String> = ids.map(|i| i.to_string()).collect();
    format!("[{}]", items.join(", "))
}

/// Kafka's `Endpoint.toString`, listeners sorted by name.
fn endpoints_text<'e>(endpoints: impl Iterator<Item = &'e RegistrationEndpoint>) -> String {
    let mut endpoints: Vec<&RegistrationEndpoint> = endpoints.collect();
    endpoints.sort_by(|a, b| java_cmp(&a.name, &b.name));
    let items: Vec<String> = endpoints
        .iter()
        .map(|e| {
            let protocol =
                SecurityProtocol::from_id(e.security_protocol).map_or("null", |p| p.name());
            format!(
                "Endpoint(listenerName='{}', securityProtocol={protocol}, host='{}', port={})",
                e.name, e.host, e.port
            )
        })
        .collect();
    format!("[{}]", items.join(", "))
}

/// Supported features as `{name: range, ...}`, sorted by name.
fn features_text<'f>(
    features: impl Iterator<Item = (&'f str, kraft_protocol::features::VersionRange)>,
) -> String {
    let mut features: Vec<_> = features.collect();
    features.sort_by(|a, b| java_cmp(a.0, b.0));
    let items: Vec<String> = features.iter().map(|(n, r)| format!("{n}: {r}")).collect();
    format!("{{{}}}", items.join(", "))
}

/// Kafka's `BrokerRegistration.toString`.
fn broker_text(b: &BrokerRegistration) -> String {
    let rack = match b.rack() {
        Some(r) => format!("Optional[{r}]"),
        None => "Optional.empty".to_string(),
    };
    let cordoned = match b.cordoned_directories() {
        Some(dirs) => uuid_list(dirs.iter().copied()),
        None => "null".to_string(),
    };
    format!(
        "BrokerRegistration(id={}, epoch={}, incarnationId={}, listeners={}, supportedFeatures={}, \
         rack={rack}, fenced={}, inControlledShutdown={}, isMigratingZkBroker={}, directories={}, \
         cordonedDirectories={cordoned})",
        b.id(),
        b.epoch(),
        kafka_uuid::to_string(&b.incarnation_id()),
        endpoints_text(b.listeners()),
        features_text(b.supported_features()),
        b.fenced(),
        b.in_controlled_shutdown(),
        b.is_migrating_zk_broker(),
        uuid_list(b.directories().iter().copied()),
    )
}

/// Kafka's `ControllerRegistration.toString`.
fn controller_text(c: &ControllerRegistration) -> String {
    format!(
        "ControllerRegistration(id={}, incarnationId={}, zkMigrationReady={}, listeners={}, supportedFeatures={})",
        c.id,
        kafka_uuid::to_string(&c.incarnation_id),
        c.zk_migration_ready,
        endpoints_text(c.endpoints.iter()),
        features_text(c.supported_features.iter().map(|(n, r)| (n.as_str(), *r))),
    )
}

/// Kafka's `PartitionRegistration.toString`.
fn partition_text(p: PartitionRegistration<'_>) -> String {
    let recovery = match p.leader_recovery_state() {
        kraft_controller::image::LeaderRecoveryState::Recovered => "RECOVERED",
        kraft_controller::image::LeaderRecoveryState::Recovering => "RECOVERING",
    };
    format!(
        "PartitionRegistration(replicas={}, directories={}, isr={}, removingReplicas={}, addingReplicas={}, \
         elr={}, lastKnownElr={}, leader={}, leaderRecoveryState={recovery}, leaderEpoch={}, partitionEpoch={})",
        int_list(p.replicas()),
        uuid_list(p.directories()),
        int_list(p.isr()),
        int_list(p.removing_replicas()),
        int_list(p.adding_replicas()),
        int_list(p.elr()),
        int_list(p.last_known_elr()),
        p.leader(),
        p.leader_epoch(),
        p.partition_epoch(),
    )
}

/// Kafka's `StandardAcl.toString` (a Java record).
fn acl_text(a: &StandardAcl) -> String {
    format!(
        "StandardAcl[resourceType={}, resourceName={}, patternType={}, principal={}, host={}, operation={}, permissionType={}]",
        ResourceType::from_code(a.resource_type),
        a.resource_name,
        PatternType::from_code(a.pattern_type),
        a.principal,
        a.host,
        AclOperation::from_code(a.operation),
        AclPermissionType::from_code(a.permission_type),
    )
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Kafka's `ScramCredentialDataNode` text, unredacted as the shell prints it.
fn scram_text(c: &ScramCredentialData) -> String {
    format!(
        "ScramCredentialData(salt={}, storedKey={}, serverKey={}, iterations={})",
        hex(&c.salt),
        hex(&c.stored_key),
        hex(&c.server_key),
        c.iterations
    )
}

/// Kafka's `DelegationTokenDataNode` text, parentheses as Kafka has them.
fn token_text(t: &DelegationTokenData) -> String {
    format!(
        "DelegationTokenDatatokenId={}(owner={}(tokenRequester={}(renewers={}, issueTimestamp={}, maxTimestamp={}), expiryTimestamp={}",
        t.token_id,
        t.owner,
        t.requester,
        t.renewers.join(" "),
        t.issue_timestamp,
        t.max_timestamp,
        t.expiration_timestamp
    )
}

/// Java's `DateTimeFormatter.ISO_ZONED_DATE_TIME` of an instant in UTC:
/// `2026-01-01T00:00:31.5Z[UTC]` (the fraction without trailing zeros,
/// left out when zero).
pub fn iso_zoned_utc(ms: i64) -> String {
    let days = ms.div_euclid(86_400_000);
    let in_day = ms.rem_euclid(86_400_000);
    let (year, month, day) = civil_from_days(days);
    let (h, m, s, milli) = (
        in_day / 3_600_000,
        in_day / 60_000 % 60,
        in_day / 1000 % 60,
        in_day % 1000,
    );
    let mut text = format!("{year:04}-{month:02}-{day:02}T{h:02}:{m:02}:{s:02}");
    if milli != 0 {
        let fraction = format!("{milli:03}");
        text.push('.');
        text.push_str(fraction.trim_end_matches('0'));
    }
    text.push_str("Z[UTC]");
    text
}

/// The proleptic Gregorian (year, month, day) of a day count since
/// 1970-01-01.
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zoned_time_is_javas() {
        assert_eq!(iso_zoned_utc(0), "1970-01-01T00:00:00Z[UTC]");
        assert_eq!(
            iso_zoned_utc(1_767_225_631_500),
            "2026-01-01T00:00:31.5Z[UTC]"
        );
        assert_eq!(
            iso_zoned_utc(1_767_225_631_012),
            "2026-01-01T00:00:31.012Z[UTC]"
        );
        assert_eq!(
            iso_zoned_utc(951_782_400_120),
            "2000-02-29T00:00:00.12Z[UTC]"
        );
    }

    #[test]
    fn quota_entity_names_round_trip() {
        let entity =
            ClientQuotaEntity::new([("user", Some("a(b)\\c")), ("client-id", Some("x_y"))]);
        let name = quota_entity_name(&entity).expect("name");
        assert_eq!(name, "clientId(x_y)_user(a\\(b\\)\\\\c)");
        assert_eq!(decode_quota_entity(&name), Some(entity));
        assert_eq!(decode_quota_entity(""), None);
        assert_eq!(decode_quota_entity("user(a)_"), None);
        assert_eq!(decode_quota_entity("user(a"), None);
        assert_eq!(decode_quota_entity("host(a)"), None);
        let default_user = ClientQuotaEntity::new([("user", None)]);
        assert_eq!(quota_entity_name(&default_user).expect("name"), "");
    }

    #[test]
    fn config_names_follow_kafkas_type_order() {
        assert_eq!(
            config_resource_from_name("BROKER_LOGGER:1"),
            Some(ConfigResource::new(ConfigResource::BROKER_LOGGER, "1"))
        );
        assert_eq!(
            config_resource_from_name("BROKER"),
            Some(ConfigResource::new(ConfigResource::BROKER, ""))
        );
        assert_eq!(config_resource_from_name("BROKERS"), None);
        assert_eq!(
            config_resource_from_name("TOPIC:a:b").map(|r| r.name),
            Some("a:b".into())
        );
    }
}
