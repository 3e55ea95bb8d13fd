//! Helpers shared by the replication tests: partitions, images and replay.

use kraft_protocol::messages::config_record::ConfigRecord;
use kraft_protocol::messages::partition_change_record::PartitionChangeRecord;
use kraft_protocol::messages::partition_record::PartitionRecord;
use kraft_protocol::messages::register_broker_record::{BrokerEndpoint, RegisterBrokerRecord};
use kraft_protocol::messages::topic_record::TopicRecord;
use kraft_protocol::{MetadataRecordBody, Uuid};

use super::{PartitionState, NO_LEADER};
use crate::features::MetadataVersion;
use crate::image::{ConfigResource, LeaderRecoveryState, MetadataImage, MetadataRecord};

/// A Kafka uuid from its text form.
pub(crate) fn uuid(text: &str) -> Uuid {
    crate::java::uuid_from_text(text).expect("a Kafka uuid")
}

/// A metadata.version by feature level.
pub(crate) fn mv(level: i16) -> MetadataVersion {
    MetadataVersion::from_feature_level(level).expect("a known level")
}

/// A metadata.version by its text form.
pub(crate) fn mv_named(name: &str) -> MetadataVersion {
    MetadataVersion::from_version_string(name, true).expect("a known version")
}

/// A partition with no reassignment and no ELR, RECOVERED.
pub(crate) fn partition(
    replicas: &[i32],
    directories: Vec<Uuid>,
    isr: &[i32],
    leader: i32,
    leader_epoch: i32,
    partition_epoch: i32,
) -> PartitionState {
    PartitionState {
        replicas: replicas.to_vec(),
        directories,
        isr: isr.to_vec(),
        removing_replicas: Vec::new(),
        adding_replicas: Vec::new(),
        elr: Vec::new(),
        last_known_elr: Vec::new(),
        leader,
        leader_recovery_state: LeaderRecoveryState::Recovered,
        leader_epoch,
        partition_epoch,
    }
}

/// The PartitionRecord of `p`.
pub(crate) fn partition_record(
    topic_id: Uuid,
    partition_id: i32,
    p: &PartitionState,
) -> MetadataRecord {
    MetadataRecord::new(
        PartitionRecord {
            partition_id,
            topic_id,
            replicas: p.replicas.clone(),
            isr: p.isr.clone(),
            removing_replicas: p.removing_replicas.clone(),
            adding_replicas: p.adding_replicas.clone(),
            leader: p.leader,
            leader_recovery_state: p.leader_recovery_state.value(),
            leader_epoch: p.leader_epoch,
            partition_epoch: p.partition_epoch,
            directories: p.directories.clone(),
            eligible_leader_replicas: (!p.elr.is_empty()).then(|| p.elr.clone()),
            last_known_elr: (!p.last_known_elr.is_empty()).then(|| p.last_known_elr.clone()),
            ..Default::default()
        },
        2,
    )
}

/// The PartitionChangeRecord inside `r`.
pub(crate) fn change(r: &MetadataRecord) -> &PartitionChangeRecord {
    match &r.body {
        MetadataRecordBody::PartitionChange(c) => c,
        other => panic!("not a PartitionChangeRecord: {other:?}"),
    }
}

/// `p` after the image replays `record` on it (Kafka's
/// `PartitionRegistration.merge`, through [`MetadataImage::replay`]),
/// checked against [`PartitionState::merge`].
pub(crate) fn merged(p: &PartitionState, record: &MetadataRecord) -> PartitionState {
    let c = change(record);
    let mut image = ImageBuilder::new(33, true).build();
    image
        .replay(&MetadataRecord::new(
            TopicRecord {
                name: "t".into(),
                topic_id: c.topic_id,
                ..Default::default()
            },
            0,
        ))
        .expect("topic");
    image
        .replay(&partition_record(c.topic_id, c.partition_id, p))
        .expect("partition");
    image.replay(record).expect("replays");
    let replayed = PartitionState::of(
        image
            .topics()
            .partition(&c.topic_id, c.partition_id)
            .expect("the partition"),
    );
    assert_eq!(
        p.merge(c),
        replayed,
        "PartitionState::merge agrees with replay"
    );
    replayed
}

/// One broker of a test image.
#[derive(Debug, Clone)]
pub(crate) struct TestBroker {
    pub id: i32,
    pub fenced: bool,
    pub in_controlled_shutdown: bool,
    pub rack: Option<String>,
    pub directories: Vec<Uuid>,
    pub cordoned: Option<Vec<Uuid>>,
}

impl TestBroker {
    /// An unfenced broker with one log directory, as Kafka's
    /// `ReplicationControlTestContext.registerBrokers` registers it.
    pub(crate) fn new(id: i32) -> Self {
        TestBroker {
            id,
            fenced: false,
            in_controlled_shutdown: false,
            rack: None,
            directories: vec![broker_dir(id)],
            cordoned: None,
        }
    }
}

/// The single directory of test broker `id`.
pub(crate) fn broker_dir(id: i32) -> Uuid {
    Uuid::from_u64_pair(0x7e57, 1000 + id as u64)
}

/// Builds a [`MetadataImage`] from brokers, topics and configs.
pub(crate) struct ImageBuilder {
    level: i16,
    elr: bool,
    brokers: Vec<TestBroker>,
    topics: Vec<(String, Uuid, Vec<PartitionState>)>,
    configs: Vec<(i8, String, String, String)>,
}

impl ImageBuilder {
    /// At metadata.version `level`, with ELR on or off.
    pub(crate) fn new(level: i16, elr: bool) -> Self {
        ImageBuilder {
            level,
            elr,
            brokers: Vec::new(),
            topics: Vec::new(),
            configs: Vec::new(),
        }
    }

    pub(crate) fn broker(mut self, b: TestBroker) -> Self {
        self.brokers.push(b);
        self
    }

    pub(crate) fn brokers(mut self, ids: &[i32]) -> Self {
        for id in ids {
            self.brokers.push(TestBroker::new(*id));
        }
        self
    }

    /// A topic whose partitions have the given replicas, all in the ISR,
    /// led by the first, on the brokers' default directories.
    pub(crate) fn topic(mut self, name: &str, id: Uuid, assignments: &[&[i32]]) -> Self {
        let parts = assignments
            .iter()
            .map(|replicas| {
                let dirs = replicas
                    .iter()
                    .map(|r| {
                        self.brokers
                            .iter()
                            .find(|b| b.id == *r)
                            .and_then(|b| (b.directories.len() == 1).then(|| b.directories[0]))
                            .unwrap_or(super::UNASSIGNED)
                    })
                    .collect();
                partition(
                    replicas,
                    dirs,
                    replicas,
                    replicas.first().copied().unwrap_or(NO_LEADER),
                    0,
                    0,
                )
            })
            .collect();
        self.topics.push((name.to_string(), id, parts));
        self
    }

    /// A topic with the given partitions.
    pub(crate) fn topic_with(mut self, name: &str, id: Uuid, parts: Vec<PartitionState>) -> Self {
        self.topics.push((name.to_string(), id, parts));
        self
    }

    pub(crate) fn config(
        mut self,
        resource_type: i8,
        resource: &str,
        key: &str,
        value: &str,
    ) -> Self {
        self.configs
            .push((resource_type, resource.into(), key.into(), value.into()));
        self
    }

    pub(crate) fn topic_config(self, topic: &str, key: &str, value: &str) -> Self {
        self.config(ConfigResource::TOPIC, topic, key, value)
    }

    pub(crate) fn build(self) -> MetadataImage {
        let mut image = MetadataImage::new();
        let mut replay = |r: MetadataRecord| image.replay(&r).expect("replays");
        replay(MetadataRecord::feature_level(
            "metadata.version",
            self.level,
        ));
        if self.elr {
            replay(MetadataRecord::feature_level(
                "eligible.leader.replicas.version",
                1,
            ));
        }
        for b in &self.brokers {
            replay(MetadataRecord::new(
                RegisterBrokerRecord {
                    broker_id: b.id,
                    incarnation_id: Uuid::from_u64_pair(1, b.id as u64),
                    broker_epoch: 100 + i64::from(b.id),
                    end_points: [BrokerEndpoint {
                        name: "PLAINTEXT".into(),
                        host: "localhost".into(),
                        port: 9092,
                        security_protocol: 0,
                        ..Default::default()
                    }]
                    .into(),
                    rack: b.rack.as_deref().map(Into::into),
                    fenced: b.fenced,
                    in_controlled_shutdown: b.in_controlled_shutdown,
                    log_dirs: b.directories.clone(),
                    cordoned_log_dirs: b.cordoned.clone(),
                    ..Default::default()
                },
                4,
            ));
        }
        for (name, id, parts) in &self.topics {
            replay(MetadataRecord::new(
                TopicRecord {
                    name: name.as_str().into(),
                    topic_id: *id,
                    ..Default::default()
                },
                0,
            ));
            for (i, p) in parts.iter().enumerate() {
                replay(partition_record(*id, i as i32, p));
            }
        }
        for (t, resource, key, value) in &self.configs {
            replay(MetadataRecord::new(
                ConfigRecord {
                    resource_type: *t,
                    resource_name: resource.as_str().into(),
                    name: key.as_str().into(),
                    value: Some(value.as_str().into()),
                    ..Default::default()
                },
                0,
            ));
        }
        image
    }
}
