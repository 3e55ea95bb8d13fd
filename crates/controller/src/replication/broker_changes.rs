//! The PartitionChangeRecords of a broker's state change: Kafka 4.4's
//! `ReplicationControlManager.generateLeaderAndIsrUpdates` and the
//! `handleBroker*` methods that call it.
//!
//! For each affected partition a [`PartitionChangeBuilder`] gets the ISR
//! without the broker being removed (or shut down uncleanly), an unclean
//! election when the topic's `unclean.leader.election.enable` is true, the
//! topic's effective `min.insync.replicas`, and a leader predicate that is
//! Kafka's: never the broker being removed or shut down uncleanly; the
//! broker being added even though the image still shows it fenced; else a
//! registered broker neither fenced nor in controlled shutdown; and in
//! every case only a broker whose replica's directory is online.
//!
//! Kafka walks an index (broker → partitions whose ISR or ELR holds it,
//! and the leaderless partitions); these functions scan the image's
//! partitions instead, topic by id and partition by id, reading each
//! partition in place (a partition that is not affected costs no
//! allocation). The order of the records differs from Kafka's, which
//! follows its index's hash tables; each record concerns one partition, so
//! the order changes nothing once they are applied.
//!
//! Every function reads the image *before* the broker's own record
//! (BrokerRegistrationChangeRecord, UnregisterBrokerRecord) is applied, as
//! Kafka does; the result is the same after it. Only partition records are
//! returned: where Kafka puts the broker's record is said on each function.

use kraft_protocol::Uuid;

use super::partition_change::{ChangeContext, Election, PartitionChangeBuilder};
use super::placer::default_directory;
use super::{PartitionState, LOST, MIGRATING, NO_LEADER, UNASSIGNED};
use crate::image::{
    ConfigResource, MetadataImage, MetadataRecord, PartitionRegistration, TopicImage,
};

/// The topic config that sets the minimum ISR.
/// The config that sets a topic's minimum ISR (and drives ELR).
pub(crate) const MIN_IN_SYNC_REPLICAS: &str = "min.insync.replicas";
/// The topic config that allows unclean leader elections.
const UNCLEAN_LEADER_ELECTION_ENABLE: &str = "unclean.leader.election.enable";
/// The feature whose level 1 enables eligible leader replicas.
const ELIGIBLE_LEADER_REPLICAS_VERSION: &str = "eligible.leader.replicas.version";

/// The controller's static settings that topic configs fall back to
/// (Kafka's `ConfigurationControlManager` static config and node id).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ReplicationSettings {
    /// This controller's node id: its dynamic BROKER config (resource named
    /// by the id) comes before the cluster default.
    pub node_id: i32,
    /// The static `min.insync.replicas` (Kafka's default 1).
    pub min_insync_replicas: i32,
    /// The static `unclean.leader.election.enable` (Kafka's default false).
    pub unclean_leader_election_enable: bool,
}

impl ReplicationSettings {
    /// Settings of node `node_id` with a static `min.insync.replicas` and
    /// unclean leader election off.
    pub(crate) fn new(node_id: i32, min_insync_replicas: i32) -> Self {
        ReplicationSettings {
            node_id,
            min_insync_replicas,
            unclean_leader_election_enable: false,
        }
    }
}

/// Kafka's `KafkaConfigSchema.resolveEffectiveTopicConfig` for a key whose
/// broker synonym has the same name: the topic's dynamic value, then this
/// controller's dynamic BROKER value, then the cluster default (BROKER
/// `""`); `None` leaves the static value.
fn dynamic_topic_config<'i>(
    image: &'i MetadataImage,
    topic: &str,
    key: &str,
    settings: &ReplicationSettings,
) -> Option<&'i str> {
    let configs = image.configs();
    configs
        .value(&ConfigResource::new(ConfigResource::TOPIC, topic), key)
        .or_else(|| {
            configs.value(
                &ConfigResource::new(ConfigResource::BROKER, settings.node_id.to_string()),
                key,
            )
        })
        .or_else(|| configs.value(&ConfigResource::new(ConfigResource::BROKER, ""), key))
}

/// The per-topic facts a partition change needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct TopicFacts {
    /// Kafka's `getTopicEffectiveMinIsr`: the topic's `min.insync.replicas`,
    /// at most the replication factor of its partition 0.
    pub min_isr: i32,
    /// Kafka's `uncleanLeaderElectionEnabledForTopic`.
    pub unclean_leader_election: bool,
}

/// The [`TopicFacts`] of `topic`. A dynamic `min.insync.replicas` that is
/// not an integer (Kafka validates it when set; its parse would fail here)
/// falls back to the static value. A topic without partition 0 (Kafka
/// fails) is capped by `replicas`, the caller's partition's replica count.
pub(crate) fn topic_facts(
    image: &MetadataImage,
    topic: TopicImage<'_>,
    replicas: usize,
    settings: &ReplicationSettings,
) -> TopicFacts {
    let name = topic.name();
    let min_isr = match dynamic_topic_config(image, name, MIN_IN_SYNC_REPLICAS, settings) {
        Some(v) => v.parse::<i32>().unwrap_or_else(|_| {
            tracing::warn!(
                "Topic {name} has an invalid {MIN_IN_SYNC_REPLICAS} {v:?}; using the static {}",
                settings.min_insync_replicas
            );
            settings.min_insync_replicas
        }),
        None => settings.min_insync_replicas,
    };
    let replication_factor = topic.partition(0).map_or(replicas, |p| p.replicas().len());
    let min_isr = i64::from(min_isr).min(replication_factor as i64) as i32;
    let unclean_leader_election =
        match dynamic_topic_config(image, name, UNCLEAN_LEADER_ELECTION_ENABLE, settings) {
            // Java's Boolean.parseBoolean; an empty value is false.
            Some(v) => v.eq_ignore_ascii_case("true"),
            None => settings.unclean_leader_election_enable,
        };
    TopicFacts {
        min_isr,
        unclean_leader_election,
    }
}

/// Whether eligible leader replicas are enabled (Kafka's
/// `FeatureControlManager.isElrFeatureEnabled`).
pub(crate) fn elr_enabled(image: &MetadataImage) -> bool {
    image.feature_level(ELIGIBLE_LEADER_REPLICAS_VERSION) >= 1
}

/// Kafka's `ClusterControlManager.isActive`: registered, not fenced, not in
/// controlled shutdown.
pub(crate) fn is_active(image: &MetadataImage, broker: i32) -> bool {
    image
        .cluster()
        .broker(broker)
        .is_some_and(|b| !b.fenced() && !b.in_controlled_shutdown())
}

/// Kafka's `ClusterControlManager.hasOnlineDir`: the broker is registered
/// and the directory is UNASSIGNED, MIGRATING, one of its online
/// directories, or anything but LOST when it registered none.
pub(crate) fn has_online_dir(image: &MetadataImage, broker: i32, directory: Uuid) -> bool {
    let Some(b) = image.cluster().broker(broker) else {
        return false;
    };
    if directory == UNASSIGNED || directory == MIGRATING {
        return true;
    }
    if directory == LOST {
        return false;
    }
    b.directories().is_empty() || b.directories().contains(&directory)
}

/// Kafka's `LeaderAcceptor`: `accept(broker)`, and the broker's replica of
/// `partition` is in an online directory. A broker that holds no replica
/// is refused (Kafka's `PartitionRegistration.directory` throws).
pub(crate) fn leader_acceptor<'a>(
    image: &'a MetadataImage,
    partition: &'a PartitionState,
    accept: impl Fn(i32) -> bool + 'a,
) -> impl Fn(i32) -> bool + 'a {
    move |broker| {
        accept(broker)
            && partition
                .directory(broker)
                .is_some_and(|d| has_online_dir(image, broker, d))
    }
}

/// The brokers a batch of updates removes, adds or treats as shut down
/// uncleanly ([`NO_LEADER`] for none).
#[derive(Debug, Clone, Copy)]
struct BrokerChange {
    remove: i32,
    add: i32,
    unclean_shutdown: i32,
}

impl BrokerChange {
    fn removing(broker: i32) -> Self {
        BrokerChange {
            remove: broker,
            add: NO_LEADER,
            unclean_shutdown: NO_LEADER,
        }
    }
}

/// Kafka's `generateLeaderAndIsrUpdates` over the partitions `affected`
/// selects (by topic id, partition id and registration), appending the
/// records to `out`.
fn generate_updates(
    image: &MetadataImage,
    context: &str,
    change: BrokerChange,
    affected: impl Fn(Uuid, i32, PartitionRegistration<'_>) -> bool,
    settings: &ReplicationSettings,
    out: &mut Vec<MetadataRecord>,
) {
    let Some(metadata_version) = image.metadata_version() else {
        return;
    };
    let elr = elr_enabled(image);
    let before = out.len();
    let accept = |r: i32| {
        r != change.remove
            && r != change.unclean_shutdown
            && (r == change.add || is_active(image, r))
    };
    let default_dir = |r: i32| default_directory(image, r);
    for topic in image.topics().topics() {
        let mut facts: Option<TopicFacts> = None;
        for (partition_id, p) in topic.partitions() {
            if !affected(topic.id(), partition_id, p) {
                continue;
            }
            let state = PartitionState::of(p);
            let facts = *facts
                .get_or_insert_with(|| topic_facts(image, topic, state.replicas.len(), settings));
            let acceptor = leader_acceptor(image, &state, &accept);
            let target_isr: Vec<i32> = state
                .isr
                .iter()
                .copied()
                .filter(|r| *r != change.remove && *r != change.unclean_shutdown)
                .collect();
            let mut builder = PartitionChangeBuilder::new(
                &state,
                topic.id(),
                partition_id,
                ChangeContext {
                    metadata_version,
                    min_isr: facts.min_isr,
                    elr_enabled: elr,
                    is_acceptable_leader: &acceptor,
                    default_directory: &default_dir,
                },
            );
            if facts.unclean_leader_election {
                builder = builder.set_election(Election::Unclean);
            }
            if change.unclean_shutdown != NO_LEADER {
                builder = builder.set_unclean_shutdown_replicas(vec![change.unclean_shutdown]);
            }
            if let Some(record) = builder.set_target_isr(target_isr).build() {
                out.push(record);
            }
        }
    }
    let changed = out.len() - before;
    if changed > 0 {
        tracing::info!("{context}: changing {changed} partition(s)");
    }
}

fn in_isr(broker: i32) -> impl Fn(Uuid, i32, PartitionRegistration<'_>) -> bool {
    move |_, _, p| p.isr().any(|r| r == broker)
}

fn in_elr(broker: i32) -> impl Fn(Uuid, i32, PartitionRegistration<'_>) -> bool {
    move |_, _, p| p.elr().any(|r| r == broker)
}

/// Kafka's `handleBrokerFenced` (session expiry, a heartbeat asking to be
/// fenced or to shut down at once): `broker` leaves every ISR and its
/// leaderships. Kafka appends the fencing BrokerRegistrationChangeRecord
/// (version 0) after these.
pub(crate) fn fence_broker(
    image: &MetadataImage,
    broker: i32,
    settings: &ReplicationSettings,
) -> Vec<MetadataRecord> {
    let mut out = Vec::new();
    generate_updates(
        image,
        "handleBrokerFenced",
        BrokerChange::removing(broker),
        in_isr(broker),
        settings,
        &mut out,
    );
    out
}

/// Kafka's `handleBrokerUnfenced`: `broker` may lead the leaderless
/// partitions (even though the image still shows it fenced). Kafka puts
/// the unfencing BrokerRegistrationChangeRecord (version 0) before these.
pub(crate) fn unfence_broker(
    image: &MetadataImage,
    broker: i32,
    settings: &ReplicationSettings,
) -> Vec<MetadataRecord> {
    let mut out = Vec::new();
    generate_updates(
        image,
        "handleBrokerUnfenced",
        BrokerChange {
            remove: NO_LEADER,
            add: broker,
            unclean_shutdown: NO_LEADER,
        },
        |_, _, p| p.leader() == NO_LEADER,
        settings,
        &mut out,
    );
    out
}

/// Kafka's `handleBrokerInControlledShutdown`: `broker` leaves every ISR
/// and its leaderships. Kafka puts the in-controlled-shutdown
/// BrokerRegistrationChangeRecord (version 1, only when the registration is
/// not already in controlled shutdown) before these.
pub(crate) fn controlled_shutdown_broker(
    image: &MetadataImage,
    broker: i32,
    settings: &ReplicationSettings,
) -> Vec<MetadataRecord> {
    let mut out = Vec::new();
    generate_updates(
        image,
        &format!("enterControlledShutdown[{broker}]"),
        BrokerChange::removing(broker),
        in_isr(broker),
        settings,
        &mut out,
    );
    out
}

/// Kafka's `handleBrokerUnregistered`: the partitions whose ISR holds
/// `broker`, then (from the same state) those whose ELR holds it. Kafka
/// appends the UnregisterBrokerRecord (version 0) after these.
pub(crate) fn unregister_broker(
    image: &MetadataImage,
    broker: i32,
    settings: &ReplicationSettings,
) -> Vec<MetadataRecord> {
    let mut out = Vec::new();
    let change = BrokerChange::removing(broker);
    let context = "handleBrokerUnregistered";
    generate_updates(image, context, change, in_isr(broker), settings, &mut out);
    generate_updates(image, context, change, in_elr(broker), settings, &mut out);
    out
}

/// Kafka's `handleBrokerShutdown`, run when a broker registers a new
/// incarnation: with ELR enabled and an unclean shutdown, `broker` leaves
/// the ISRs and the ELRs and may not lead (the partitions whose ISR holds
/// it, then those whose ELR does); otherwise it is handled as fenced.
/// Kafka puts these before the new RegisterBrokerRecord.
pub(crate) fn broker_shutdown(
    image: &MetadataImage,
    broker: i32,
    clean: bool,
    settings: &ReplicationSettings,
) -> Vec<MetadataRecord> {
    let mut out = Vec::new();
    if elr_enabled(image) && !clean {
        let change = BrokerChange {
            remove: NO_LEADER,
            add: NO_LEADER,
            unclean_shutdown: broker,
        };
        let context = "handleBrokerUncleanShutdown";
        generate_updates(image, context, change, in_isr(broker), settings, &mut out);
        generate_updates(image, context, change, in_elr(broker), settings, &mut out);
    } else {
        generate_updates(
            image,
            "handleBrokerShutdown",
            BrokerChange::removing(broker),
            in_isr(broker),
            settings,
            &mut out,
        );
    }
    out
}

/// The partition part of Kafka's `handleDirectoriesOffline`: for each of
/// `broker`'s registered directories that `offline` names (in the
/// registration's sorted order), the partitions with a replica in it lose
/// `broker` from their ISR and leadership. Kafka appends the
/// BrokerRegistrationChangeRecord (version 2) with the remaining
/// directories after these, when any directory went offline.
pub(crate) fn directories_offline(
    image: &MetadataImage,
    broker: i32,
    offline: &[Uuid],
    settings: &ReplicationSettings,
) -> Vec<MetadataRecord> {
    let mut out = Vec::new();
    let Some(registration) = image.cluster().broker(broker) else {
        return out;
    };
    for dir in registration
        .directories()
        .iter()
        .filter(|d| offline.contains(d))
    {
        let dir = *dir;
        if crate::java::is_reserved_directory_id(&dir) {
            continue;
        }
        generate_updates(
            image,
            &format!(
                "handleDirectoriesOffline[{broker}:{}]",
                crate::java::uuid_to_text(&dir)
            ),
            BrokerChange::removing(broker),
            move |_, _, p| p.directories().any(|d| d == dir),
            settings,
            &mut out,
        );
    }
    out
}

/// The leadership part of Kafka's `handleAssignReplicasToDirs`: the
/// partitions (topic id, partition id) whose replica on `broker` was just
/// assigned to a directory that is not online lose `broker` from their ISR
/// and leadership, computed from the image before the directory records
/// are applied, as Kafka does ("offline-dir-assignment").
pub(crate) fn offline_directory_assignments(
    image: &MetadataImage,
    broker: i32,
    partitions: &std::collections::BTreeSet<(Uuid, i32)>,
    settings: &ReplicationSettings,
) -> Vec<MetadataRecord> {
    let mut out = Vec::new();
    if partitions.is_empty() {
        return out;
    }
    generate_updates(
        image,
        "offline-dir-assignment",
        BrokerChange::removing(broker),
        |topic, partition, _| partitions.contains(&(topic, partition)),
        settings,
        &mut out,
    );
    out
}

/// Kafka's `BrokersToIsrs.hasLeaderships`: whether `broker` leads a
/// partition whose ISR holds it (what decides whether a controlled shutdown
/// may finish).
pub(crate) fn has_leaderships(image: &MetadataImage, broker: i32) -> bool {
    image.topics().topics().any(|t| {
        t.partitions()
            .any(|(_, p)| p.leader() == broker && p.isr().any(|r| r == broker))
    })
}

#[cfg(test)]
#[path = "broker_changes_tests.rs"]
mod tests;
