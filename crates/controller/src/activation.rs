//! Controller activation, as Kafka's
//! `QuorumController` does them.
//!
//! A controller that wins an election becomes the **active controller**
//! only once its image has applied everything written before its epoch
//! started (Kafka fires `handleLeaderChange` to the leader's listener only
//! then). It then appends the activation records of Kafka's
//! `ActivationRecordsGenerator`:
//!
//! * on a log without metadata.version: the bootstrap records (from the
//!   `0-0` bootstrap checkpoint, which the image never replays itself, as
//!   Kafka's `MetadataLoader` never does), wrapped in Begin/EndTransaction
//!   at a metadata.version with metadata transactions, plus the
//!   cluster-level `min.insync.replicas` ConfigRecord when eligible leader
//!   replicas are enabled; a bootstrap transaction a previous leader left
//!   open is aborted first;
//! * on a log with metadata.version: an AbortTransactionRecord if a
//!   transaction a previous leader began is still open.
//!
//! The records go through the controller's one writer like every other
//! append. Only after they are committed and applied does it answer
//! writes. (The idle NoOpRecord task is in `periodic`.)

use std::sync::Arc;
use std::time::Duration;

use kraft_protocol::messages::abort_transaction_record::AbortTransactionRecord;
use kraft_protocol::messages::begin_transaction_record::BeginTransactionRecord;
use kraft_protocol::messages::config_record::ConfigRecord;
use kraft_protocol::messages::end_transaction_record::EndTransactionRecord;
use kraft_protocol::MetadataRecordBody;
use kraft_raft::RaftHandle;
use tokio::sync::watch;

use crate::features::{MetadataVersion, METADATA_VERSION};
use crate::handlers::Controller;
use crate::image::{MetadataImage, MetadataRecord};

/// Kafka's `ConfigResource.Type.BROKER` id.
const BROKER_RESOURCE_TYPE: i8 = 4;
/// The feature that enables eligible leader replicas (KIP-966).
const ELIGIBLE_LEADER_REPLICAS_VERSION: &str = "eligible.leader.replicas.version";

/// The bootstrap metadata a new cluster starts from (Kafka's
/// `BootstrapMetadata`).
#[derive(Debug, Clone, PartialEq)]
pub struct BootstrapMetadata {
    /// The records, metadata.version's FeatureLevelRecord among them.
    pub records: Vec<MetadataRecord>,
    /// Where they came from, for the log.
    pub source: String,
}

impl BootstrapMetadata {
    /// The records of the `0-0` bootstrap checkpoint (Kafka's
    /// `handleLoadBootstrap`: source `bootstrap`).
    pub fn from_checkpoint(records: Vec<MetadataRecord>) -> Self {
        BootstrapMetadata {
            records,
            source: "bootstrap".into(),
        }
    }

    /// Only metadata.version, at `mv` (Kafka's `BootstrapMetadata.fromVersion`,
    /// used when there is no bootstrap checkpoint).
    pub fn from_version(mv: MetadataVersion, source: &str) -> Self {
        BootstrapMetadata {
            records: vec![MetadataRecord::feature_level(
                METADATA_VERSION,
                mv.feature_level(),
            )],
            source: source.into(),
        }
    }

    /// The finalized level of `feature` among the records (0 if absent).
    pub fn feature_level(&self, feature: &str) -> i16 {
        self.records
            .iter()
            .rev()
            .find_map(|r| match &r.body {
                MetadataRecordBody::FeatureLevel(f) if f.name.as_str() == feature => {
                    Some(f.feature_level)
                }
                _ => None,
            })
            .unwrap_or(0)
    }

    /// The metadata.version among the records.
    pub fn metadata_version(&self) -> Result<MetadataVersion, String> {
        let level = self.feature_level(METADATA_VERSION);
        MetadataVersion::from_feature_level(level).ok_or_else(|| {
            format!(
                "No FeatureLevelRecord for {METADATA_VERSION} was found in the bootstrap metadata from {}",
                self.source
            )
        })
    }
}

/// What a new active controller appends, and the line it logs.
#[derive(Debug, Clone, PartialEq)]
pub struct Activation {
    /// The records (possibly none).
    pub records: Vec<MetadataRecord>,
    /// Kafka's "Performing controller activation. ..." message.
    pub message: String,
}

/// Kafka's `ActivationRecordsGenerator.generate` for this image: the
/// records a controller appends when it becomes active.
pub fn activation_records(
    image: &MetadataImage,
    bootstrap: &BootstrapMetadata,
    default_min_insync_replicas: i32,
) -> Result<Activation, String> {
    let open = image.open_transaction();
    let mut message = String::from("Performing controller activation. ");
    let mut records = Vec::new();
    let abort = || {
        MetadataRecord::new(
            AbortTransactionRecord {
                reason: Some("Controller failover".into()),
                ..Default::default()
            },
            0,
        )
    };
    let begin = || {
        MetadataRecord::new(
            BeginTransactionRecord {
                name: Some("Bootstrap records".into()),
                ..Default::default()
            },
            0,
        )
    };
    let Some(current) = image.metadata_version() else {
        let mv = bootstrap.metadata_version()?;
        let transactional = mv.is_metadata_transaction_supported();
        let count = bootstrap.records.len();
        let source = &bootstrap.source;
        if let Some(start) = open {
            if !transactional {
                return Err(format!(
                    "Detected partial bootstrap records transaction at {start}, but the metadata.version {mv} does not support transactions. Cannot continue."
                ));
            }
            message.push_str(&format!(
                "Aborting partial bootstrap records transaction at offset {start}. Re-appending {count} bootstrap record(s) in new metadata transaction at metadata.version {mv} from bootstrap source '{source}'. "
            ));
            records.push(abort());
            records.push(begin());
        } else {
            message.push_str(&format!(
                "The metadata log appears to be empty. Appending {count} bootstrap record(s) "
            ));
            if transactional {
                records.push(begin());
                message.push_str("in metadata transaction ");
            }
            message.push_str(&format!(
                "at metadata.version {mv} from bootstrap source '{source}'. "
            ));
        }
        records.extend(bootstrap.records.iter().cloned());
        if bootstrap.feature_level(ELIGIBLE_LEADER_REPLICAS_VERSION) > 0 {
            records.push(MetadataRecord::new(
                ConfigRecord {
                    resource_type: BROKER_RESOURCE_TYPE,
                    resource_name: "".into(),
                    name: "min.insync.replicas".into(),
                    value: Some(default_min_insync_replicas.to_string().into()),
                    ..Default::default()
                },
                0,
            ));
        }
        if transactional {
            records.push(MetadataRecord::new(EndTransactionRecord::default(), 0));
        }
        return Ok(Activation {
            records,
            message: message.trim_end().to_string(),
        });
    };
    if let Some(start) = open {
        if !current.is_metadata_transaction_supported() {
            return Err(format!(
                "Detected in-progress transaction at offset {start}, but the metadata.version {current} does not support transactions. Cannot continue."
            ));
        }
        message.push_str(&format!(
            "Aborting in-progress metadata transaction at offset {start}. "
        ));
        records.push(abort());
    }
    Ok(Activation {
        records,
        message: message.trim_end().to_string(),
    })
}

/// How the active controller behaves (`metadata.max.idle.interval.ms`,
/// `min.insync.replicas`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ActivationSettings {
    /// The NoOpRecord interval; `None` disables the writer.
    pub max_idle_interval: Option<Duration>,
    /// The cluster-level `min.insync.replicas` recorded on activation.
    pub default_min_insync_replicas: i32,
}

impl ActivationSettings {
    /// The settings of a controller configuration.
    pub fn from_config(config: &crate::config::ControllerConfig) -> Self {
        ActivationSettings {
            max_idle_interval: u64::try_from(config.metadata_max_idle_interval_ms)
                .ok()
                .filter(|ms| *ms > 0)
                .map(Duration::from_millis),
            default_min_insync_replicas: config.min_insync_replicas,
        }
    }
}

/// The state the activation task shares: the epoch this node is the active
/// controller of, if any.
pub type ActiveEpoch = watch::Receiver<Option<i32>>;

/// Runs activation for every epoch this node leads, and publishes the epoch
/// it is the active controller of (`None` while it is not). The activation
/// records go through the controller's one writer
/// ([`Controller::activate`]).
pub(crate) fn spawn_activation(
    raft: RaftHandle,
    mut applied: watch::Receiver<i64>,
    controller: Arc<Controller>,
    bootstrap: watch::Receiver<Option<Arc<BootstrapMetadata>>>,
    settings: ActivationSettings,
    active: watch::Sender<Option<i32>>,
) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let mut status = raft.watch_status();
        loop {
            let s = status.borrow_and_update().clone();
            let epoch = s.leader.epoch;
            match (s.is_leader, s.epoch_start_offset) {
                (true, Some(start)) if *active.borrow() != Some(epoch) => {
                    active.send_replace(None);
                    // Wait until everything before this epoch is applied.
                    tokio::select! {
                        reached = applied.wait_for(|a| *a >= start) => {
                            if reached.is_err() { return }
                        }
                        changed = status.changed() => {
                            if changed.is_err() { return }
                            continue;
                        }
                    }
                    let boot = bootstrap.borrow().clone().unwrap_or_else(|| {
                        Arc::new(BootstrapMetadata::from_version(
                            MetadataVersion::LATEST_PRODUCTION,
                            "the default bootstrap",
                        ))
                    });
                    let plan = activation_records(
                        &controller.image().read(),
                        &boot,
                        settings.default_min_insync_replicas,
                    );
                    match plan {
                        Ok(plan) => {
                            // QuorumController's wording, which operators grep for.
                            tracing::info!(
                                epoch,
                                "Becoming the active controller at epoch {epoch}, next write offset {start}."
                            );
                            tracing::info!(epoch, "{}", plan.message);
                            if let Err(e) = controller.activate(epoch, plan.records).await {
                                tracing::warn!(epoch, error = %e, "cannot append the activation records; retrying");
                                tokio::time::sleep(Duration::from_millis(100)).await;
                                continue;
                            }
                            let still_leader = {
                                let now = raft.status();
                                now.is_leader && now.leader.epoch == epoch
                            };
                            if still_leader {
                                tracing::info!(
                                    epoch,
                                    "this controller is now the active controller"
                                );
                                active.send_replace(Some(epoch));
                            }
                        }
                        Err(e) => {
                            tracing::error!(epoch, error = %e, "cannot activate the controller");
                            active.send_replace(None);
                        }
                    }
                }
                (true, _) => {}
                (false, _) => {
                    let was = *active.borrow();
                    if let Some(was) = was {
                        let leader = s
                            .leader
                            .leader_id
                            .map_or_else(|| "(none)".to_owned(), |l| l.to_string());
                        tracing::warn!(
                            epoch,
                            "Renouncing the leadership due to a metadata log event. We were the \
                             leader at epoch {was}, but in the new epoch {epoch}, the leader is {leader}."
                        );
                        active.send_replace(None);
                    }
                }
            }
            if status.changed().await.is_err() {
                return;
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use bytes::Bytes;

    use super::*;

    fn bootstrap(mv: i16, elr: i16) -> BootstrapMetadata {
        let mut records = vec![MetadataRecord::feature_level(METADATA_VERSION, mv)];
        if elr > 0 {
            records.push(MetadataRecord::feature_level(
                ELIGIBLE_LEADER_REPLICAS_VERSION,
                elr,
            ));
        }
        BootstrapMetadata::from_checkpoint(records)
    }

    fn kinds(records: &[MetadataRecord]) -> Vec<&'static str> {
        records.iter().map(|r| r.record_type().name()).collect()
    }

    #[test]
    fn an_empty_log_gets_the_bootstrap_records_in_a_transaction() {
        let a = activation_records(&MetadataImage::new(), &bootstrap(33, 1), 2).expect("plan");
        assert_eq!(
            kinds(&a.records),
            [
                "BeginTransactionRecord",
                "FeatureLevelRecord",
                "FeatureLevelRecord",
                "ConfigRecord",
                "EndTransactionRecord"
            ]
        );
        let MetadataRecordBody::Config(c) = &a.records[3].body else {
            panic!("{:?}", a.records[3]);
        };
        assert_eq!(
            (c.resource_type, c.resource_name.as_str(), c.name.as_str()),
            (4, "", "min.insync.replicas")
        );
        assert_eq!(c.value.as_deref(), Some("2"));
        assert_eq!(
            a.message,
            "Performing controller activation. The metadata log appears to be empty. Appending 2 bootstrap record(s) in metadata transaction at metadata.version 4.4-IV2 from bootstrap source 'bootstrap'."
        );
        // Below 3.6-IV1 there are no transactions; without ELR no config.
        let a = activation_records(&MetadataImage::new(), &bootstrap(12, 0), 1).expect("plan");
        assert_eq!(kinds(&a.records), ["FeatureLevelRecord"]);
        assert!(a.message.ends_with(
            "Appending 1 bootstrap record(s) at metadata.version 3.6-IV0 from bootstrap source 'bootstrap'."
        ));
    }

    #[test]
    fn an_open_transaction_is_aborted() {
        let begin = MetadataRecord::new(BeginTransactionRecord::default(), 0);
        // A bootstrap transaction a previous leader left open.
        let mut image = MetadataImage::new();
        image
            .replay_value(Bytes::from(begin.encode().expect("encodes")), 0)
            .expect("begins");
        let a = activation_records(&image, &bootstrap(33, 0), 1).expect("plan");
        assert_eq!(
            kinds(&a.records),
            [
                "AbortTransactionRecord",
                "BeginTransactionRecord",
                "FeatureLevelRecord",
                "EndTransactionRecord"
            ]
        );
        assert!(a.message.contains("Aborting partial bootstrap records transaction at offset 0. Re-appending 1 bootstrap record(s) in new metadata transaction at metadata.version 4.4-IV2 from bootstrap source 'bootstrap'."), "{}", a.message);
        // A log with metadata.version and an open transaction.
        let mut image = MetadataImage::new();
        image
            .replay(&MetadataRecord::feature_level(METADATA_VERSION, 33))
            .expect("replays");
        image
            .replay_value(Bytes::from(begin.encode().expect("encodes")), 7)
            .expect("begins");
        let a = activation_records(&image, &bootstrap(33, 0), 1).expect("plan");
        assert_eq!(kinds(&a.records), ["AbortTransactionRecord"]);
        assert_eq!(
            a.message,
            "Performing controller activation. Aborting in-progress metadata transaction at offset 7."
        );
        let MetadataRecordBody::AbortTransaction(r) = &a.records[0].body else {
            panic!("{:?}", a.records[0]);
        };
        assert_eq!(r.reason.as_deref(), Some("Controller failover"));
        // Nothing to do on a healthy log.
        let mut image = MetadataImage::new();
        image
            .replay(&MetadataRecord::feature_level(METADATA_VERSION, 33))
            .expect("replays");
        let a = activation_records(&image, &bootstrap(33, 0), 1).expect("plan");
        assert!(a.records.is_empty());
        assert_eq!(a.message, "Performing controller activation.");
    }

    #[test]
    fn without_a_checkpoint_the_default_bootstrap_is_latest_production() {
        let b = BootstrapMetadata::from_version(
            MetadataVersion::LATEST_PRODUCTION,
            "the default bootstrap",
        );
        assert_eq!(b.metadata_version(), Ok(MetadataVersion::LATEST_PRODUCTION));
        let none = BootstrapMetadata::from_checkpoint(Vec::new());
        assert!(none.metadata_version().is_err());
    }
}
