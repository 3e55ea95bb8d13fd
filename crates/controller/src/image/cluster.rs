//! Registered controllers and brokers (Kafka's `ClusterImage` /
//! `ClusterDelta`).

use std::collections::BTreeMap;

use kraft_protocol::messages::broker_registration_change_record::BrokerRegistrationChangeRecord;
use kraft_protocol::messages::fence_broker_record::FenceBrokerRecord;
use kraft_protocol::messages::register_broker_record::{
    BrokerEndpoint, BrokerFeature, RegisterBrokerRecord,
};
use kraft_protocol::messages::register_controller_record::{
    ControllerEndpoint, ControllerFeature, RegisterControllerRecord,
};
use kraft_protocol::messages::unfence_broker_record::UnfenceBrokerRecord;
use kraft_protocol::messages::unregister_broker_record::UnregisterBrokerRecord;
use kraft_protocol::messages::unregister_controller_record::UnregisterControllerRecord;
use kraft_protocol::Uuid;

use super::partition::java_uuid_list;
use super::{MetadataRecord, RecordSink, ReplayError, WriteError, WriteOptions};
use crate::features::VersionRange;
use crate::java::uuid_to_text;

/// One endpoint of a controller registration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegistrationEndpoint {
    /// Listener name.
    pub name: String,
    /// Advertised host.
    pub host: String,
    /// Advertised port.
    pub port: u16,
    /// Security protocol id (0 PLAINTEXT, 1 SSL, 2 SASL_PLAINTEXT, 3 SASL_SSL).
    pub security_protocol: i16,
}

/// A controller's registration (from its RegisterControllerRecord).
/// Listeners and features are keyed by name, as in Kafka's maps: a repeated
/// name keeps its last entry, and equality ignores their order.
#[derive(Debug, Clone, Eq)]
pub struct ControllerRegistration {
    /// Node id.
    pub id: i32,
    /// Random id of the registering process incarnation.
    pub incarnation_id: Uuid,
    /// Always false in Kafka 4.x.
    pub zk_migration_ready: bool,
    /// Advertised controller listeners, in registration order.
    pub endpoints: Vec<RegistrationEndpoint>,
    /// Supported feature ranges, in registration order.
    pub supported_features: Vec<(String, VersionRange)>,
}

impl PartialEq for ControllerRegistration {
    fn eq(&self, other: &Self) -> bool {
        let endpoints = |r: &Self| {
            let mut v: Vec<_> = r
                .endpoints
                .iter()
                .map(|e| (e.name.clone(), e.host.clone(), e.port, e.security_protocol))
                .collect();
            v.sort();
            v
        };
        let features = |r: &Self| {
            let mut v: Vec<_> = r
                .supported_features
                .iter()
                .map(|(n, range)| (n.clone(), range.min, range.max))
                .collect();
            v.sort();
            v
        };
        self.id == other.id
            && self.incarnation_id == other.incarnation_id
            && self.zk_migration_ready == other.zk_migration_ready
            && endpoints(self) == endpoints(other)
            && features(self) == features(other)
    }
}

/// `items` with each key kept once, at its first position, with its last
/// value (what a Java map filled in record order holds).
fn last_per_key<T>(items: impl IntoIterator<Item = T>, key: impl Fn(&T) -> String) -> Vec<T> {
    let mut out: Vec<T> = Vec::new();
    for item in items {
        match out.iter().position(|e| key(e) == key(&item)) {
            Some(i) => out[i] = item,
            None => out.push(item),
        }
    }
    out
}

impl ControllerRegistration {
    /// The registration a RegisterControllerRecord describes.
    pub fn from_record(r: &RegisterControllerRecord) -> Self {
        ControllerRegistration {
            id: r.controller_id,
            incarnation_id: r.incarnation_id,
            zk_migration_ready: r.zk_migration_ready,
            endpoints: last_per_key(
                r.end_points.iter().map(|e| RegistrationEndpoint {
                    name: e.name.to_string(),
                    host: e.host.to_string(),
                    port: e.port,
                    security_protocol: e.security_protocol,
                }),
                |e| e.name.clone(),
            ),
            supported_features: last_per_key(
                r.features.iter().map(|f| {
                    (
                        f.name.to_string(),
                        VersionRange::new(f.min_supported_version, f.max_supported_version),
                    )
                }),
                |(name, _)| name.clone(),
            ),
        }
    }

    /// The RegisterControllerRecord (v0) for this registration.
    pub fn to_record(&self) -> RegisterControllerRecord {
        RegisterControllerRecord {
            controller_id: self.id,
            incarnation_id: self.incarnation_id,
            zk_migration_ready: self.zk_migration_ready,
            end_points: self
                .endpoints
                .iter()
                .map(|e| ControllerEndpoint {
                    name: e.name.as_str().into(),
                    host: e.host.as_str().into(),
                    port: e.port,
                    security_protocol: e.security_protocol,
                    ..Default::default()
                })
                .collect(),
            features: self
                .supported_features
                .iter()
                .map(|(name, r)| ControllerFeature {
                    name: name.as_str().into(),
                    min_supported_version: r.min,
                    max_supported_version: r.max,
                    ..Default::default()
                })
                .collect(),
            ..Default::default()
        }
    }

    /// The supported range of `feature`; `0-0` (disabled) when not listed.
    pub fn supported_range(&self, feature: &str) -> VersionRange {
        self.supported_features
            .iter()
            .find(|(n, _)| n == feature)
            .map_or(VersionRange::DISABLED, |(_, r)| *r)
    }

    /// The endpoint on listener `name`.
    pub fn endpoint(&self, name: &str) -> Option<&RegistrationEndpoint> {
        self.endpoints.iter().find(|e| e.name == name)
    }
}

/// A broker's registration (Kafka's `BrokerRegistration`): what its latest
/// RegisterBrokerRecord said, as changed since by fencing and registration
/// change records.
///
/// Listeners and supported features are maps, as in Kafka (a name listed
/// twice keeps its last entry); they are kept sorted by name, which is also
/// the order [`BrokerRegistration::to_record`] writes them in (Kafka
/// iterates a `HashMap` there). Directories are sorted as Kafka sorts them
/// (`Uuid.compareTo`: signed most, then least significant bits).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BrokerRegistration {
    id: i32,
    epoch: i64,
    incarnation_id: Uuid,
    listeners: BTreeMap<String, RegistrationEndpoint>,
    supported_features: BTreeMap<String, VersionRange>,
    rack: Option<String>,
    fenced: bool,
    in_controlled_shutdown: bool,
    is_migrating_zk_broker: bool,
    directories: Vec<Uuid>,
    cordoned_directories: Option<Vec<Uuid>>,
}

/// Sorts directory ids as Kafka's `Uuid.compareTo` orders them.
fn sort_directories(dirs: &mut [Uuid]) {
    dirs.sort_by_key(|u| {
        let (hi, lo) = u.as_u64_pair();
        (hi as i64, lo as i64)
    });
}

impl BrokerRegistration {
    /// Kafka's `BrokerRegistration.fromRecord`. A listener without a name is
    /// refused, as Kafka's constructor refuses it.
    pub fn from_record(r: &RegisterBrokerRecord) -> Result<Self, ReplayError> {
        let mut listeners = BTreeMap::new();
        for e in r.end_points.iter() {
            if e.name.is_empty() {
                return Err(ReplayError::Invalid(
                    "Broker listeners must be named.".into(),
                ));
            }
            listeners.insert(
                e.name.to_string(),
                RegistrationEndpoint {
                    name: e.name.to_string(),
                    host: e.host.to_string(),
                    port: e.port,
                    security_protocol: e.security_protocol,
                },
            );
        }
        let supported_features = r
            .features
            .iter()
            .map(|f| {
                (
                    f.name.to_string(),
                    VersionRange::new(f.min_supported_version, f.max_supported_version),
                )
            })
            .collect();
        let mut directories = r.log_dirs.clone();
        sort_directories(&mut directories);
        Ok(BrokerRegistration {
            id: r.broker_id,
            epoch: r.broker_epoch,
            incarnation_id: r.incarnation_id,
            listeners,
            supported_features,
            rack: r.rack.as_ref().map(|s| s.to_string()),
            fenced: r.fenced,
            in_controlled_shutdown: r.in_controlled_shutdown,
            is_migrating_zk_broker: r.is_migrating_zk_broker,
            directories,
            cordoned_directories: r.cordoned_log_dirs.clone(),
        })
    }

    /// Kafka's `BrokerRegistration.toRecord(options)`: the RegisterBrokerRecord
    /// at `options.metadata_version.register_broker_record_version()`, or the
    /// loss Kafka reports when that version cannot hold part of it.
    pub fn to_record(&self, options: &WriteOptions) -> Result<MetadataRecord, WriteError> {
        let mv = options.metadata_version;
        let loss = |what: &str| WriteError::Loss {
            metadata_version: mv,
            loss: what.to_string(),
        };
        if self.is_migrating_zk_broker && !mv.is_migration_supported() {
            return Err(loss("the isMigratingZkBroker state of one or more brokers"));
        }
        if !self.directories.is_empty() && !mv.is_directory_assignment_supported() {
            return Err(loss("the online log directories of one or more brokers"));
        }
        if self.cordoned_directories.is_some() && !mv.is_cordoned_log_dirs_supported() {
            return Err(loss("the cordoned log directories of one or more brokers"));
        }
        let record = RegisterBrokerRecord {
            broker_id: self.id,
            is_migrating_zk_broker: self.is_migrating_zk_broker,
            incarnation_id: self.incarnation_id,
            broker_epoch: self.epoch,
            end_points: self
                .listeners
                .iter()
                .map(|(name, e)| BrokerEndpoint {
                    name: name.as_str().into(),
                    host: e.host.as_str().into(),
                    port: e.port,
                    security_protocol: e.security_protocol,
                    ..Default::default()
                })
                .collect(),
            features: self
                .supported_features
                .iter()
                .map(|(name, r)| BrokerFeature {
                    name: name.as_str().into(),
                    min_supported_version: r.min,
                    max_supported_version: r.max,
                    ..Default::default()
                })
                .collect(),
            rack: self.rack.as_deref().map(Into::into),
            fenced: self.fenced,
            in_controlled_shutdown: self.in_controlled_shutdown,
            log_dirs: self.directories.clone(),
            cordoned_log_dirs: self.cordoned_directories.clone(),
            ..Default::default()
        };
        Ok(MetadataRecord::new(
            record,
            mv.register_broker_record_version(),
        ))
    }

    /// Node id.
    pub fn id(&self) -> i32 {
        self.id
    }

    /// Broker epoch (the offset of its RegisterBrokerRecord).
    pub fn epoch(&self) -> i64 {
        self.epoch
    }

    /// Random id of the registering process incarnation.
    pub fn incarnation_id(&self) -> Uuid {
        self.incarnation_id
    }

    /// The advertised listeners, by name.
    pub fn listeners(&self) -> impl Iterator<Item = &RegistrationEndpoint> {
        self.listeners.values()
    }

    /// The endpoint on listener `name`.
    pub fn listener(&self, name: &str) -> Option<&RegistrationEndpoint> {
        self.listeners.get(name)
    }

    /// Supported feature ranges, by feature name.
    pub fn supported_features(&self) -> impl Iterator<Item = (&str, VersionRange)> {
        self.supported_features
            .iter()
            .map(|(n, r)| (n.as_str(), *r))
    }

    /// The supported range of `feature`, if the broker listed it.
    pub fn supported_range(&self, feature: &str) -> Option<VersionRange> {
        self.supported_features.get(feature).copied()
    }

    /// The rack, if the broker has one.
    pub fn rack(&self) -> Option<&str> {
        self.rack.as_deref()
    }

    /// Whether the broker is fenced.
    pub fn fenced(&self) -> bool {
        self.fenced
    }

    /// Whether the broker is in controlled shutdown.
    pub fn in_controlled_shutdown(&self) -> bool {
        self.in_controlled_shutdown
    }

    /// Whether the broker registered as a migrating ZooKeeper broker.
    pub fn is_migrating_zk_broker(&self) -> bool {
        self.is_migrating_zk_broker
    }

    /// The online log directories, sorted.
    pub fn directories(&self) -> &[Uuid] {
        &self.directories
    }

    /// The cordoned log directories; `None` until the broker has sent them.
    pub fn cordoned_directories(&self) -> Option<&[Uuid]> {
        self.cordoned_directories.as_deref()
    }

    /// Kafka's `BrokerRegistration.cloneWith`: each change that is given
    /// replaces its part; the directories stay sorted.
    fn apply_change(
        &mut self,
        fenced: Option<bool>,
        in_controlled_shutdown: Option<bool>,
        directories: Option<&[Uuid]>,
        cordoned_directories: Option<&[Uuid]>,
    ) {
        if let Some(f) = fenced {
            self.fenced = f;
        }
        if let Some(c) = in_controlled_shutdown {
            self.in_controlled_shutdown = c;
        }
        if let Some(d) = directories {
            self.directories = d.to_vec();
            sort_directories(&mut self.directories);
        }
        if let Some(c) = cordoned_directories {
            self.cordoned_directories = Some(c.to_vec());
        }
    }
}

/// Java's generated `BrokerRegistrationChangeRecord.toString()`, which
/// Kafka's replay errors quote.
fn change_record_text(r: &BrokerRegistrationChangeRecord) -> String {
    format!(
        "BrokerRegistrationChangeRecord(brokerId={}, brokerEpoch={}, fenced={}, inControlledShutdown={}, logDirs={}, cordonedLogDirs={})",
        r.broker_id,
        r.broker_epoch,
        r.fenced,
        r.in_controlled_shutdown,
        java_uuid_list(&r.log_dirs),
        r.cordoned_log_dirs
            .as_deref()
            .map_or_else(|| "null".to_string(), java_uuid_list),
    )
}

/// The registered controllers and brokers.
#[derive(Debug, Clone, Default)]
pub struct ClusterImage {
    brokers: BTreeMap<i32, BrokerRegistration>,
    controllers: BTreeMap<i32, ControllerRegistration>,
    /// Where each broker's RegisterBrokerRecord was read (Kafka's
    /// `ClusterControlManager.registerBrokerRecordOffsets`): a broker is
    /// caught up once its metadata offset reaches it. Not part of the
    /// image's value (a snapshot holds none; its records count as read at
    /// its last contained offset).
    registration_offsets: BTreeMap<i32, i64>,
}

impl PartialEq for ClusterImage {
    fn eq(&self, other: &Self) -> bool {
        self.brokers == other.brokers && self.controllers == other.controllers
    }
}

impl Eq for ClusterImage {}

impl ClusterImage {
    /// The offset of broker `id`'s RegisterBrokerRecord, if registered.
    pub fn registration_offset(&self, id: i32) -> Option<i64> {
        self.brokers
            .contains_key(&id)
            .then(|| self.registration_offsets.get(&id).copied().unwrap_or(-1))
    }

    /// Gives every registration read at an unknown offset (-1) `offset`.
    pub(super) fn set_unknown_registration_offsets(&mut self, offset: i64) {
        for id in self.brokers.keys() {
            let entry = self.registration_offsets.entry(*id).or_insert(-1);
            if *entry < 0 {
                *entry = offset;
            }
        }
    }

    /// The registration of broker `id`.
    pub fn broker(&self, id: i32) -> Option<&BrokerRegistration> {
        self.brokers.get(&id)
    }

    /// All broker registrations, by id.
    pub fn brokers(&self) -> impl Iterator<Item = &BrokerRegistration> {
        self.brokers.values()
    }

    /// The epoch of broker `id`, or -1 when it is not registered (Kafka's
    /// `ClusterImage.brokerEpoch`).
    pub fn broker_epoch(&self, id: i32) -> i64 {
        self.brokers.get(&id).map_or(-1, |b| b.epoch)
    }

    pub(super) fn replay_register_broker(
        &mut self,
        r: &RegisterBrokerRecord,
        offset: i64,
    ) -> Result<(), ReplayError> {
        let registration = BrokerRegistration::from_record(r)?;
        tracing::info!(
            broker_id = r.broker_id,
            broker_epoch = r.broker_epoch,
            incarnation_id = %uuid_to_text(&r.incarnation_id),
            "replayed RegisterBrokerRecord"
        );
        self.brokers.insert(r.broker_id, registration);
        self.registration_offsets.insert(r.broker_id, offset);
        Ok(())
    }

    /// Kafka's `ClusterDelta.replay(UnregisterBrokerRecord)` removes the
    /// registration whatever its epoch, and an unknown broker is no error
    /// (Kafka's `ClusterImageTest` replays the same unregistration twice).
    pub(super) fn replay_unregister_broker(
        &mut self,
        r: &UnregisterBrokerRecord,
    ) -> Result<(), ReplayError> {
        self.registration_offsets.remove(&r.broker_id);
        match self.brokers.remove(&r.broker_id) {
            Some(prev) => tracing::info!(
                broker_id = r.broker_id,
                broker_epoch = r.broker_epoch,
                registered_epoch = prev.epoch,
                "replayed UnregisterBrokerRecord"
            ),
            None => tracing::warn!(
                broker_id = r.broker_id,
                broker_epoch = r.broker_epoch,
                "replayed UnregisterBrokerRecord for a broker that is not registered"
            ),
        }
        Ok(())
    }

    /// Kafka's `ClusterDelta.getBrokerOrThrow`.
    fn broker_or_throw(
        &mut self,
        id: i32,
        epoch: i64,
        action: &str,
    ) -> Result<&mut BrokerRegistration, ReplayError> {
        let Some(broker) = self.brokers.get_mut(&id) else {
            return Err(ReplayError::Invalid(format!(
                "Tried to {action} broker {id}, but that broker was not registered."
            )));
        };
        if broker.epoch != epoch {
            return Err(ReplayError::Invalid(format!(
                "Tried to {action} broker {id}, but the given epoch, {epoch}, did not match the current broker epoch, {}",
                broker.epoch
            )));
        }
        Ok(broker)
    }

    pub(super) fn replay_fence_broker(&mut self, r: &FenceBrokerRecord) -> Result<(), ReplayError> {
        self.broker_or_throw(r.id, r.epoch, "fence")?
            .apply_change(Some(true), None, None, None);
        Ok(())
    }

    pub(super) fn replay_unfence_broker(
        &mut self,
        r: &UnfenceBrokerRecord,
    ) -> Result<(), ReplayError> {
        self.broker_or_throw(r.id, r.epoch, "unfence")?
            .apply_change(Some(false), None, None, None);
        Ok(())
    }

    /// Kafka's `ClusterDelta.replay(BrokerRegistrationChangeRecord)`:
    /// `fenced` is 1 (fence), 0 (no change) or -1 (unfence);
    /// `inControlledShutdown` is 0 (no change) or 1; non-empty `logDirs`
    /// replace the directories; present `cordonedLogDirs` replace the
    /// cordoned ones.
    pub(super) fn replay_broker_registration_change(
        &mut self,
        r: &BrokerRegistrationChangeRecord,
    ) -> Result<(), ReplayError> {
        let broker = self.broker_or_throw(r.broker_id, r.broker_epoch, "change")?;
        let fenced = match r.fenced {
            1 => Some(true),
            0 => None,
            -1 => Some(false),
            other => {
                return Err(ReplayError::Invalid(format!(
                    "Unable to replay {}: unknown value for fenced field: {other}",
                    change_record_text(r)
                )))
            }
        };
        let in_controlled_shutdown = match r.in_controlled_shutdown {
            0 => None,
            1 => Some(true),
            other => {
                return Err(ReplayError::Invalid(format!(
                    "Unable to replay {}: unknown value for inControlledShutdown field: {other}",
                    change_record_text(r)
                )))
            }
        };
        let directories = (!r.log_dirs.is_empty()).then_some(r.log_dirs.as_slice());
        broker.apply_change(
            fenced,
            in_controlled_shutdown,
            directories,
            r.cordoned_log_dirs.as_deref(),
        );
        Ok(())
    }

    /// The registration of controller `id`.
    pub fn controller(&self, id: i32) -> Option<&ControllerRegistration> {
        self.controllers.get(&id)
    }

    /// All controller registrations, by id.
    pub fn controllers(&self) -> impl Iterator<Item = &ControllerRegistration> {
        self.controllers.values()
    }

    pub(super) fn replay_register_controller(
        &mut self,
        r: &RegisterControllerRecord,
    ) -> Result<(), ReplayError> {
        let registration = ControllerRegistration::from_record(r);
        match self.controllers.insert(r.controller_id, registration) {
            Some(prev) => tracing::info!(
                controller_id = r.controller_id,
                incarnation_id = %uuid_to_text(&r.incarnation_id),
                previous_incarnation_id = %uuid_to_text(&prev.incarnation_id),
                "replayed RegisterControllerRecord"
            ),
            None => tracing::info!(
                controller_id = r.controller_id,
                incarnation_id = %uuid_to_text(&r.incarnation_id),
                "replayed RegisterControllerRecord"
            ),
        }
        Ok(())
    }

    pub(super) fn replay_unregister_controller(
        &mut self,
        r: &UnregisterControllerRecord,
    ) -> Result<(), ReplayError> {
        if self.controllers.remove(&r.controller_id).is_none() {
            tracing::warn!(
                controller_id = r.controller_id,
                "replayed UnregisterControllerRecord for a controller that is not registered"
            );
        } else {
            tracing::info!(
                controller_id = r.controller_id,
                "replayed UnregisterControllerRecord"
            );
        }
        Ok(())
    }

    /// Kafka's `ClusterImage.write`: the brokers (by id; Kafka iterates a
    /// `HashMap`), then the controllers (a metadata.version without
    /// controller registration cannot hold them).
    pub(super) fn write(
        &self,
        options: &WriteOptions,
        out: &mut impl RecordSink,
    ) -> Result<(), WriteError> {
        for b in self.brokers.values() {
            out.push(b.to_record(options)?);
        }
        if options
            .metadata_version
            .is_controller_registration_supported()
        {
            for c in self.controllers.values() {
                out.push(MetadataRecord::new(c.to_record(), 0));
            }
        } else if !self.controllers.is_empty() {
            return Err(WriteError::Loss {
                metadata_version: options.metadata_version,
                loss: "controller registration data".into(),
            });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use bytes::Bytes;
    use kraft_protocol::messages::register_broker_record::{
        BrokerEndpoint, BrokerFeature, RegisterBrokerRecord,
    };

    use super::*;
    use crate::features::MetadataVersion;
    use crate::image::{MetadataImage, NotUnderstoodReason};
    use crate::java::uuid_from_text;

    fn uuid(text: &str) -> Uuid {
        uuid_from_text(text).expect("a Kafka uuid")
    }

    fn mv(level: i16) -> MetadataVersion {
        MetadataVersion::from_feature_level(level).expect("a known level")
    }

    fn options(level: i16) -> WriteOptions {
        WriteOptions {
            metadata_version: mv(level),
            eligible_leader_replicas_enabled: false,
        }
    }

    fn register(
        id: i32,
        epoch: i64,
        incarnation: &str,
        port: u16,
        features: &[(&str, i16, i16)],
        rack: Option<&str>,
        fenced: bool,
    ) -> RegisterBrokerRecord {
        RegisterBrokerRecord {
            broker_id: id,
            incarnation_id: uuid(incarnation),
            broker_epoch: epoch,
            end_points: [BrokerEndpoint {
                name: "PLAINTEXT".into(),
                host: "localhost".into(),
                port,
                security_protocol: 0,
                ..Default::default()
            }]
            .into(),
            features: features
                .iter()
                .map(|(n, min, max)| BrokerFeature {
                    name: (*n).into(),
                    min_supported_version: *min,
                    max_supported_version: *max,
                    ..Default::default()
                })
                .collect(),
            rack: rack.map(Into::into),
            fenced,
            ..Default::default()
        }
    }

    fn rec(body: impl Into<kraft_protocol::MetadataRecordBody>) -> MetadataRecord {
        MetadataRecord::new(body, 0)
    }

    /// Kafka's `ClusterImageFixtures.IMAGE1`, as records.
    fn image1() -> MetadataImage {
        let records = [
            MetadataRecord::feature_level("metadata.version", 33),
            rec(register(
                0,
                1000,
                "vZKYST0pSA2HO5x_6hoO2Q",
                9092,
                &[("foo", 1, 3)],
                None,
                true,
            )),
            rec(register(
                1,
                1001,
                "U52uRe20RsGI0RvpcTx33Q",
                9093,
                &[("foo", 1, 3)],
                None,
                false,
            )),
            rec(register(
                2,
                123,
                "hr4TVh3YQiu3p16Awkka6w",
                9094,
                &[],
                Some("arack"),
                false,
            )),
        ];
        MetadataImage::from_records(&records).expect("replays")
    }

    /// The broker records of Kafka's `ClusterImageFixtures.DELTA1_RECORDS`.
    fn delta1() -> Vec<MetadataRecord> {
        vec![
            rec(UnfenceBrokerRecord {
                id: 0,
                epoch: 1000,
                ..Default::default()
            }),
            rec(FenceBrokerRecord {
                id: 1,
                epoch: 1001,
                ..Default::default()
            }),
            rec(BrokerRegistrationChangeRecord {
                broker_id: 0,
                broker_epoch: 1000,
                in_controlled_shutdown: 1,
                ..Default::default()
            }),
            rec(UnregisterBrokerRecord {
                broker_id: 2,
                broker_epoch: 123,
                ..Default::default()
            }),
        ]
    }

    fn replay_all(image: &mut MetadataImage, records: &[MetadataRecord]) {
        for r in records {
            image.replay(r).expect("replays");
        }
    }

    fn round_trip(image: &MetadataImage) {
        let records = image.to_records().expect("writes");
        let loaded = MetadataImage::from_records(&records).expect("loads");
        assert_eq!(loaded.cluster(), image.cluster());
        assert_eq!(loaded.to_records().expect("writes"), records);
    }

    #[test]
    fn kafka_cluster_fixture_deltas() {
        let mut image = image1();
        round_trip(&image);
        assert_eq!(image.cluster().broker_epoch(2), 123);
        assert_eq!(image.cluster().broker_epoch(20), -1);
        let b2 = image.cluster().broker(2).expect("registered");
        assert_eq!(b2.rack(), Some("arack"));
        assert_eq!(image.cluster().broker(0).and_then(|b| b.rack()), None);

        // DELTA1 -> IMAGE2: b0 unfenced and in controlled shutdown, b1
        // fenced, b2 unregistered.
        replay_all(&mut image, &delta1());
        let c = image.cluster();
        let b0 = c.broker(0).expect("b0");
        assert!(!b0.fenced() && b0.in_controlled_shutdown());
        let b1 = c.broker(1).expect("b1");
        assert!(b1.fenced() && !b1.in_controlled_shutdown());
        assert!(c.broker(2).is_none());
        assert_eq!(c.brokers().count(), 2);
        round_trip(&image);

        // DELTA2 (DELTA1 again, then more) -> IMAGE3. Unregistering b2 again
        // is no error; the NONE in-controlled-shutdown change leaves b0 in
        // controlled shutdown.
        let mut delta2 = delta1();
        delta2.extend([
            rec(FenceBrokerRecord {
                id: 0,
                epoch: 1000,
                ..Default::default()
            }),
            rec(UnfenceBrokerRecord {
                id: 1,
                epoch: 1001,
                ..Default::default()
            }),
            rec(BrokerRegistrationChangeRecord {
                broker_id: 0,
                broker_epoch: 1000,
                in_controlled_shutdown: 0,
                ..Default::default()
            }),
            MetadataRecord::new(
                RegisterBrokerRecord {
                    is_migrating_zk_broker: true,
                    ..register(
                        2,
                        1002,
                        // Kafka's "Am5Yse7GQxaw0b2alM74bP": Java's decoder
                        // ignores the unused low bits of the last symbol,
                        // ours refuses them.
                        "Am5Yse7GQxaw0b2alM74bA",
                        9094,
                        &[("metadata.version", 7, 12)],
                        Some("rack3"),
                        true,
                    )
                },
                4,
            ),
        ]);
        replay_all(&mut image, &delta2);
        let c = image.cluster();
        let b0 = c.broker(0).expect("b0");
        assert!(b0.fenced() && b0.in_controlled_shutdown());
        let b1 = c.broker(1).expect("b1");
        assert!(!b1.fenced() && !b1.in_controlled_shutdown());
        let b2 = c.broker(2).expect("b2");
        assert_eq!(b2.epoch(), 1002);
        assert_eq!(b2.incarnation_id(), uuid("Am5Yse7GQxaw0b2alM74bA"));
        assert!(b2.fenced() && b2.is_migrating_zk_broker());
        assert_eq!(b2.rack(), Some("rack3"));
        assert_eq!(
            b2.supported_range("metadata.version"),
            Some(VersionRange::new(7, 12))
        );
        assert_eq!(b2.listener("PLAINTEXT").map(|e| e.port), Some(9094));
        round_trip(&image);
    }

    #[test]
    fn unregistration_ignores_the_epoch() {
        // Kafka 4.4's ClusterDelta removes the registration without
        // comparing epochs.
        let mut image = image1();
        image
            .replay(&rec(UnregisterBrokerRecord {
                broker_id: 1,
                broker_epoch: 5,
                ..Default::default()
            }))
            .expect("replays");
        assert!(image.cluster().broker(1).is_none());
    }

    #[test]
    fn fencing_and_change_errors_are_kafkas() {
        let mut image = image1();
        let err = |image: &mut MetadataImage, r: MetadataRecord| {
            image.replay(&r).expect_err("refused").to_string()
        };
        assert_eq!(
            err(
                &mut image,
                rec(FenceBrokerRecord {
                    id: 7,
                    epoch: 1,
                    ..Default::default()
                })
            ),
            "Tried to fence broker 7, but that broker was not registered."
        );
        assert_eq!(
            err(
                &mut image,
                rec(UnfenceBrokerRecord {
                    id: 0,
                    epoch: 999,
                    ..Default::default()
                })
            ),
            "Tried to unfence broker 0, but the given epoch, 999, did not match the current broker epoch, 1000"
        );
        assert_eq!(
            err(
                &mut image,
                rec(BrokerRegistrationChangeRecord {
                    broker_id: 1,
                    broker_epoch: 1000,
                    ..Default::default()
                })
            ),
            "Tried to change broker 1, but the given epoch, 1000, did not match the current broker epoch, 1001"
        );
        assert_eq!(
            err(
                &mut image,
                rec(BrokerRegistrationChangeRecord {
                    broker_id: 0,
                    broker_epoch: 1000,
                    fenced: 2,
                    ..Default::default()
                })
            ),
            "Unable to replay BrokerRegistrationChangeRecord(brokerId=0, brokerEpoch=1000, fenced=2, inControlledShutdown=0, logDirs=[], cordonedLogDirs=null): unknown value for fenced field: 2"
        );
        assert_eq!(
            err(
                &mut image,
                rec(BrokerRegistrationChangeRecord {
                    broker_id: 0,
                    broker_epoch: 1000,
                    in_controlled_shutdown: -1,
                    log_dirs: vec![uuid("3MWIBL9NR4eXhtdfBVA7Bw")],
                    cordoned_log_dirs: Some(vec![]),
                    ..Default::default()
                })
            ),
            "Unable to replay BrokerRegistrationChangeRecord(brokerId=0, brokerEpoch=1000, fenced=0, inControlledShutdown=-1, logDirs=[3MWIBL9NR4eXhtdfBVA7Bw], cordonedLogDirs=[]): unknown value for inControlledShutdown field: -1"
        );
        let mut unnamed = register(5, 1, "vZKYST0pSA2HO5x_6hoO2Q", 1, &[], None, true);
        unnamed.end_points = [BrokerEndpoint::default()].into();
        assert_eq!(
            err(&mut image, rec(unnamed)),
            "Broker listeners must be named."
        );
        // Nothing refused changed the image.
        assert_eq!(image, image1());
    }

    #[test]
    fn directories_are_sorted_as_kafka_sorts_them() {
        // Kafka's BrokerRegistrationTest.testDirectoriesAreSorted.
        let given = [
            "3MWIBL9NR4eXhtdfBVA7Bw",
            "SZQIVeLMQGiNi68StNSNZA",
            "LWZsWPBrQruOMMrnEBj7bw",
            "OpIJIaO6RKaOGvHlNmOEhA",
            "JhYia5HRTLihf2FFJVxopQ",
            "VNetSHnySxSbvjwKrBzpkw",
        ];
        let sorted = [
            "3MWIBL9NR4eXhtdfBVA7Bw",
            "JhYia5HRTLihf2FFJVxopQ",
            "LWZsWPBrQruOMMrnEBj7bw",
            "OpIJIaO6RKaOGvHlNmOEhA",
            "SZQIVeLMQGiNi68StNSNZA",
            "VNetSHnySxSbvjwKrBzpkw",
        ];
        let r = RegisterBrokerRecord {
            log_dirs: given.iter().map(|t| uuid(t)).collect(),
            ..register(
                0,
                0,
                "ik32HZbLTW6ulw1yyrC8jQ",
                9090,
                &[("foo", 1, 2)],
                None,
                false,
            )
        };
        let b = BrokerRegistration::from_record(&r).expect("valid");
        let want: Vec<Uuid> = sorted.iter().map(|t| uuid(t)).collect();
        assert_eq!(b.directories(), want.as_slice());
        // A registration change sorts them too. A uuid with the top bit set
        // sorts first (Java compares signed longs).
        let mut image = image1();
        let high = Uuid::from_u64_pair(0x8000_0000_0000_0000, 5);
        image
            .replay(&rec(BrokerRegistrationChangeRecord {
                broker_id: 0,
                broker_epoch: 1000,
                log_dirs: vec![want[1], high, want[0]],
                ..Default::default()
            }))
            .expect("replays");
        let b0 = image.cluster().broker(0).expect("b0");
        assert_eq!(b0.directories(), &[high, want[0], want[1]]);
        assert_eq!(b0.cordoned_directories(), None);
        // Empty log dirs change nothing; present cordoned dirs replace.
        image
            .replay(&rec(BrokerRegistrationChangeRecord {
                broker_id: 0,
                broker_epoch: 1000,
                fenced: -1,
                cordoned_log_dirs: Some(vec![want[1]]),
                ..Default::default()
            }))
            .expect("replays");
        let b0 = image.cluster().broker(0).expect("b0");
        assert_eq!(b0.directories(), &[high, want[0], want[1]]);
        assert_eq!(b0.cordoned_directories(), Some(&[want[1]][..]));
        assert!(!b0.fenced());
        round_trip(&image);
    }

    #[test]
    fn record_version_follows_the_metadata_version() {
        let b = BrokerRegistration::from_record(&register(
            0,
            1,
            "vZKYST0pSA2HO5x_6hoO2Q",
            9092,
            &[],
            None,
            true,
        ))
        .expect("valid");
        for (level, version) in [(7, 1), (8, 2), (16, 2), (17, 3), (29, 3), (30, 4), (33, 4)] {
            let r = b.to_record(&options(level)).expect("writes");
            assert_eq!(r.version, version, "metadata.version level {level}");
            r.encode().expect("encodes at that version");
        }
    }

    #[test]
    fn unrepresentable_state_is_a_loss() {
        let loss = |r: &RegisterBrokerRecord, level: i16| match BrokerRegistration::from_record(r)
            .expect("valid")
            .to_record(&options(level))
        {
            Err(WriteError::Loss {
                metadata_version,
                loss,
            }) => {
                assert_eq!(metadata_version, mv(level));
                Some(loss)
            }
            Err(e) => panic!("unexpected {e}"),
            Ok(_) => None,
        };
        let base = register(0, 1, "vZKYST0pSA2HO5x_6hoO2Q", 9092, &[], None, true);
        let zk = RegisterBrokerRecord {
            is_migrating_zk_broker: true,
            ..base.clone()
        };
        assert_eq!(
            loss(&zk, 7).as_deref(),
            Some("the isMigratingZkBroker state of one or more brokers")
        );
        assert_eq!(loss(&zk, 8), None);
        let dirs = RegisterBrokerRecord {
            log_dirs: vec![uuid("3MWIBL9NR4eXhtdfBVA7Bw")],
            ..base.clone()
        };
        assert_eq!(
            loss(&dirs, 16).as_deref(),
            Some("the online log directories of one or more brokers")
        );
        assert_eq!(loss(&dirs, 17), None);
        let cordoned = RegisterBrokerRecord {
            cordoned_log_dirs: Some(vec![]),
            ..base
        };
        assert_eq!(
            loss(&cordoned, 29).as_deref(),
            Some("the cordoned log directories of one or more brokers")
        );
        assert_eq!(loss(&cordoned, 30), None);
        // Through the image, with Kafka's message.
        let mut image = MetadataImage::from_records(&[
            MetadataRecord::feature_level("metadata.version", 16),
            MetadataRecord::new(dirs, 4),
        ])
        .expect("replays");
        assert_eq!(
            image.to_records().expect_err("lossy").to_string(),
            "Metadata has been lost because the following could not be represented in metadata.version 3.7-IV1: the online log directories of one or more brokers"
        );
        image
            .replay(&MetadataRecord::feature_level("metadata.version", 17))
            .expect("replays");
        round_trip(&image);
    }

    #[test]
    fn brokers_are_written_before_controllers_at_every_version() {
        let mut image = image1();
        image
            .replay(&rec(RegisterControllerRecord {
                controller_id: 1000,
                incarnation_id: uuid("9ABu6HEgRuS-hjHLgC4cHw"),
                ..Default::default()
            }))
            .expect("replays");
        let records = image.to_records().expect("writes");
        let kinds: Vec<_> = records.iter().map(|r| r.record_type().name()).collect();
        assert_eq!(
            kinds,
            [
                "FeatureLevelRecord",
                "RegisterBrokerRecord",
                "RegisterBrokerRecord",
                "RegisterBrokerRecord",
                "RegisterControllerRecord"
            ]
        );
        round_trip(&image);
        // Every version decodes: a v0 record (no in-controlled-shutdown) and
        // a v4 one with cordoned directories.
        let v4 = MetadataRecord::new(
            RegisterBrokerRecord {
                log_dirs: vec![uuid("3MWIBL9NR4eXhtdfBVA7Bw")],
                cordoned_log_dirs: Some(vec![uuid("3MWIBL9NR4eXhtdfBVA7Bw")]),
                in_controlled_shutdown: true,
                ..register(4, 9, "hr4TVh3YQiu3p16Awkka6w", 1, &[], None, false)
            },
            4,
        );
        let v0 = MetadataRecord::new(
            register(5, 9, "hr4TVh3YQiu3p16Awkka6w", 1, &[], Some("r"), false),
            0,
        );
        for (r, offset) in [(&v4, 10), (&v0, 11)] {
            let value = Bytes::from(r.encode().expect("encodes"));
            image.replay_value(value, offset).expect("replays");
        }
        let b4 = image.cluster().broker(4).expect("b4");
        assert!(b4.in_controlled_shutdown());
        assert_eq!(b4.cordoned_directories().map(<[Uuid]>::len), Some(1));
        assert_eq!(image.cluster().broker(5).and_then(|b| b.rack()), Some("r"));
        round_trip(&image);
    }

    #[test]
    fn an_unknown_version_is_noted_not_applied() {
        let mut image = image1();
        // RegisterBrokerRecord (type 0) at version 5, which 4.4 does not define.
        image
            .replay_value(Bytes::from_static(&[0x01, 0x00, 0x05, 0x00]), 7)
            .expect("noted");
        let noted: Vec<_> = image.not_understood().collect();
        assert_eq!(noted.len(), 1);
        assert_eq!(
            (noted[0].record_type, noted[0].version, noted[0].reason),
            (0, 5, NotUnderstoodReason::UnknownVersion)
        );
        assert_eq!(image.cluster().brokers().count(), 3);
        assert!(matches!(
            image.to_records(),
            Err(WriteError::NotUnderstood(_))
        ));
    }
}
