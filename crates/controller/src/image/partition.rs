//! One partition's state (Kafka's `PartitionRegistration`) and how
//! PartitionRecord and PartitionChangeRecord build and change it.

use kraft_protocol::messages::partition_change_record::PartitionChangeRecord;
use kraft_protocol::messages::partition_record::PartitionRecord;
use kraft_protocol::Uuid;

use super::{MetadataRecord, ReplayError, WriteError, WriteOptions};
use crate::java::uuid_to_text;

/// The leader value meaning "no leader" (Kafka's `LeaderConstants.NO_LEADER`).
pub const NO_LEADER: i32 = -1;
/// The PartitionChangeRecord leader value meaning "unchanged"
/// (`LeaderConstants.NO_LEADER_CHANGE`).
pub const NO_LEADER_CHANGE: i32 = -2;
/// The PartitionChangeRecord leader recovery state meaning "unchanged".
pub const NO_LEADER_RECOVERY_STATE_CHANGE: i8 = -1;
/// The directory of a replica not yet assigned to one because its broker
/// predates directory assignment (Kafka's `DirectoryId.MIGRATING`).
pub const MIGRATING_DIRECTORY: Uuid = Uuid::nil();

/// Kafka's `LeaderRecoveryState`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LeaderRecoveryState {
    /// 0: elected from the ISR, or recovered from an unclean election.
    Recovered,
    /// 1: elected uncleanly and still recovering.
    Recovering,
}

impl LeaderRecoveryState {
    /// The wire value.
    pub fn value(self) -> i8 {
        match self {
            LeaderRecoveryState::Recovered => 0,
            LeaderRecoveryState::Recovering => 1,
        }
    }

    /// Kafka's `LeaderRecoveryState.of`, with its message for other values.
    pub fn of(value: i8) -> Result<Self, ReplayError> {
        match value {
            0 => Ok(LeaderRecoveryState::Recovered),
            1 => Ok(LeaderRecoveryState::Recovering),
            _ => Err(ReplayError::Invalid(format!(
                "Value {value} is not a valid leader recovery state"
            ))),
        }
    }

    /// Kafka's `changeTo`: -1 keeps this state, other values are parsed.
    fn change_to(self, value: i8) -> Result<Self, ReplayError> {
        if value == NO_LEADER_RECOVERY_STATE_CHANGE {
            Ok(self)
        } else {
            LeaderRecoveryState::of(value)
        }
    }
}

/// A partition's replicas, leadership and epochs (Kafka's
/// `PartitionRegistration`).
///
/// `directories` has one entry per replica (Kafka fills it with
/// [`MIGRATING_DIRECTORY`] when a record carries none); `elr` and
/// `last_known_elr` are empty when not set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartitionRegistration {
    /// Assigned replicas, preferred leader first.
    pub replicas: Vec<i32>,
    /// The log directory of each replica.
    pub directories: Vec<Uuid>,
    /// In-sync replicas.
    pub isr: Vec<i32>,
    /// Replicas being removed by a reassignment.
    pub removing_replicas: Vec<i32>,
    /// Replicas being added by a reassignment.
    pub adding_replicas: Vec<i32>,
    /// Eligible leader replicas (KIP-966).
    pub elr: Vec<i32>,
    /// Last known eligible leader replicas (KIP-966).
    pub last_known_elr: Vec<i32>,
    /// The leader, or [`NO_LEADER`].
    pub leader: i32,
    /// Whether the leader is recovering from an unclean election.
    pub leader_recovery_state: LeaderRecoveryState,
    /// Bumped whenever a change record sets the leader.
    pub leader_epoch: i32,
    /// Bumped by every change.
    pub partition_epoch: i32,
}

/// Kafka's `migratingDirectories`: no directories, or all of them MIGRATING.
fn all_migrating(directories: &[Uuid]) -> bool {
    directories.iter().all(|d| *d == MIGRATING_DIRECTORY)
}

/// Kafka's `defaultToMigrating`.
fn default_to_migrating(directories: Vec<Uuid>, replicas: usize) -> Vec<Uuid> {
    if all_migrating(&directories) {
        vec![MIGRATING_DIRECTORY; replicas]
    } else {
        directories
    }
}

/// The message of Kafka's `InvalidReplicaDirectoriesException`.
const DIRECTORIES_MISMATCH: &str = "The lengths for replicas and directories do not match: ";

impl PartitionRegistration {
    /// Kafka's `new PartitionRegistration(PartitionRecord)`.
    pub fn from_record(r: &PartitionRecord) -> Result<Self, ReplayError> {
        if !r.directories.is_empty() && r.replicas.len() != r.directories.len() {
            return Err(ReplayError::Invalid(format!(
                "{DIRECTORIES_MISMATCH}{}",
                partition_record_text(r)
            )));
        }
        let directories = default_to_migrating(r.directories.clone(), r.replicas.len());
        Ok(PartitionRegistration {
            replicas: r.replicas.clone(),
            directories,
            isr: r.isr.clone(),
            removing_replicas: r.removing_replicas.clone(),
            adding_replicas: r.adding_replicas.clone(),
            elr: r.eligible_leader_replicas.clone().unwrap_or_default(),
            last_known_elr: r.last_known_elr.clone().unwrap_or_default(),
            leader: r.leader,
            leader_recovery_state: LeaderRecoveryState::of(r.leader_recovery_state)?,
            leader_epoch: r.leader_epoch,
            partition_epoch: r.partition_epoch,
        })
    }

    /// Kafka's `PartitionRegistration.merge`: each field the record carries
    /// (not null, leader not -2, leader recovery state not -1) replaces its
    /// part; the leader epoch grows by one when the record sets a leader
    /// (even the same one), and the partition epoch grows by one always.
    pub fn merge(&self, r: &PartitionChangeRecord) -> Result<Self, ReplayError> {
        let replicas = r.replicas.clone().unwrap_or_else(|| self.replicas.clone());
        let directories = match &r.directories {
            None => self.directories.clone(),
            Some(d) => {
                if let Some(rep) = &r.replicas {
                    if !d.is_empty() && rep.len() != d.len() {
                        return Err(ReplayError::Invalid(format!(
                            "{DIRECTORIES_MISMATCH}{}",
                            partition_change_record_text(r)
                        )));
                    }
                }
                d.clone()
            }
        };
        let directories = default_to_migrating(directories, replicas.len());
        let (leader, leader_epoch) = if r.leader == NO_LEADER_CHANGE {
            (self.leader, self.leader_epoch)
        } else {
            (r.leader, self.leader_epoch.wrapping_add(1))
        };
        let leader_recovery_state = self
            .leader_recovery_state
            .change_to(r.leader_recovery_state)?;
        if !directories.is_empty() && directories.len() != replicas.len() {
            return Err(ReplayError::Invalid(
                "The lengths for replicas and directories do not match.".into(),
            ));
        }
        Ok(PartitionRegistration {
            replicas,
            directories,
            isr: r.isr.clone().unwrap_or_else(|| self.isr.clone()),
            removing_replicas: r
                .removing_replicas
                .clone()
                .unwrap_or_else(|| self.removing_replicas.clone()),
            adding_replicas: r
                .adding_replicas
                .clone()
                .unwrap_or_else(|| self.adding_replicas.clone()),
            elr: r
                .eligible_leader_replicas
                .clone()
                .unwrap_or_else(|| self.elr.clone()),
            last_known_elr: r
                .last_known_elr
                .clone()
                .unwrap_or_else(|| self.last_known_elr.clone()),
            leader,
            leader_recovery_state,
            leader_epoch,
            partition_epoch: self.partition_epoch.wrapping_add(1),
        })
    }

    /// Kafka's `PartitionRegistration.toRecord`: the PartitionRecord at
    /// `options.metadata_version.partition_record_version()`. The ELR fields
    /// are written only when eligible leader replicas are enabled and they
    /// are not empty (Kafka drops them otherwise, reporting no loss);
    /// directories other than MIGRATING below directory assignment are a
    /// loss.
    pub fn to_record(
        &self,
        topic_id: Uuid,
        partition_id: i32,
        options: &WriteOptions,
    ) -> Result<MetadataRecord, WriteError> {
        let mv = options.metadata_version;
        let mut record = PartitionRecord {
            partition_id,
            topic_id,
            replicas: self.replicas.clone(),
            isr: self.isr.clone(),
            removing_replicas: self.removing_replicas.clone(),
            adding_replicas: self.adding_replicas.clone(),
            leader: self.leader,
            leader_recovery_state: self.leader_recovery_state.value(),
            leader_epoch: self.leader_epoch,
            partition_epoch: self.partition_epoch,
            ..Default::default()
        };
        if options.eligible_leader_replicas_enabled {
            if !self.elr.is_empty() {
                record.eligible_leader_replicas = Some(self.elr.clone());
            }
            if !self.last_known_elr.is_empty() {
                record.last_known_elr = Some(self.last_known_elr.clone());
            }
        }
        if mv.is_directory_assignment_supported() {
            record.directories = self.directories.clone();
        } else if !all_migrating(&self.directories) {
            return Err(WriteError::Loss {
                metadata_version: mv,
                loss: "the directory assignment state of one or more replicas".into(),
            });
        }
        Ok(MetadataRecord::new(record, mv.partition_record_version()))
    }

    /// Whether the partition has a leader.
    pub fn has_leader(&self) -> bool {
        self.leader != NO_LEADER
    }

    /// The preferred replica (the first), or [`NO_LEADER`] without replicas.
    pub fn preferred_replica(&self) -> i32 {
        self.replicas.first().copied().unwrap_or(NO_LEADER)
    }

    /// The directory of `replica`, if it is one of the replicas.
    pub fn directory(&self, replica: i32) -> Option<Uuid> {
        self.replicas
            .iter()
            .position(|r| *r == replica)
            .and_then(|i| self.directories.get(i).copied())
    }
}

/// Java's `MessageUtil.deepToString` of a list of Kafka UUIDs.
pub(super) fn java_uuid_list(v: &[Uuid]) -> String {
    let items: Vec<String> = v.iter().map(uuid_to_text).collect();
    format!("[{}]", items.join(", "))
}

/// Java's `MessageUtil.deepToString` of a list of ints.
fn java_int_list(v: &[i32]) -> String {
    let items: Vec<String> = v.iter().map(i32::to_string).collect();
    format!("[{}]", items.join(", "))
}

/// A nullable int list as Java's generated `toString` prints it.
fn java_nullable_ints(v: &Option<Vec<i32>>) -> String {
    v.as_deref()
        .map_or_else(|| "null".to_string(), java_int_list)
}

/// Java's generated `PartitionRecord.toString()`, which Kafka's replay
/// errors quote.
pub(super) fn partition_record_text(r: &PartitionRecord) -> String {
    format!(
        "PartitionRecord(partitionId={}, topicId={}, replicas={}, isr={}, removingReplicas={}, addingReplicas={}, leader={}, leaderRecoveryState={}, leaderEpoch={}, partitionEpoch={}, directories={}, eligibleLeaderReplicas={}, lastKnownElr={})",
        r.partition_id,
        uuid_to_text(&r.topic_id),
        java_int_list(&r.replicas),
        java_int_list(&r.isr),
        java_int_list(&r.removing_replicas),
        java_int_list(&r.adding_replicas),
        r.leader,
        r.leader_recovery_state,
        r.leader_epoch,
        r.partition_epoch,
        java_uuid_list(&r.directories),
        java_nullable_ints(&r.eligible_leader_replicas),
        java_nullable_ints(&r.last_known_elr),
    )
}

/// Java's generated `PartitionChangeRecord.toString()`.
pub(super) fn partition_change_record_text(r: &PartitionChangeRecord) -> String {
    format!(
        "PartitionChangeRecord(partitionId={}, topicId={}, isr={}, leader={}, replicas={}, removingReplicas={}, addingReplicas={}, leaderRecoveryState={}, directories={}, eligibleLeaderReplicas={}, lastKnownElr={})",
        r.partition_id,
        uuid_to_text(&r.topic_id),
        java_nullable_ints(&r.isr),
        r.leader,
        java_nullable_ints(&r.replicas),
        java_nullable_ints(&r.removing_replicas),
        java_nullable_ints(&r.adding_replicas),
        r.leader_recovery_state,
        r.directories
            .as_deref()
            .map_or_else(|| "null".to_string(), java_uuid_list),
        java_nullable_ints(&r.eligible_leader_replicas),
        java_nullable_ints(&r.last_known_elr),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::features::MetadataVersion;
    use crate::java::uuid_from_text;

    fn uuid(text: &str) -> Uuid {
        uuid_from_text(text).expect("a Kafka uuid")
    }

    /// Kafka's `DirectoryId.UNASSIGNED` and `LOST`.
    const UNASSIGNED: Uuid = Uuid::from_u64_pair(0, 1);
    const LOST: Uuid = Uuid::from_u64_pair(0, 2);

    fn partition(
        replicas: &[i32],
        directories: Vec<Uuid>,
        isr: &[i32],
        leader: i32,
        leader_epoch: i32,
        partition_epoch: i32,
    ) -> PartitionRegistration {
        PartitionRegistration {
            replicas: replicas.to_vec(),
            directories,
            isr: isr.to_vec(),
            removing_replicas: vec![],
            adding_replicas: vec![],
            elr: vec![],
            last_known_elr: vec![],
            leader,
            leader_recovery_state: LeaderRecoveryState::Recovered,
            leader_epoch,
            partition_epoch,
        }
    }

    fn options(level: i16, elr: bool) -> WriteOptions {
        WriteOptions {
            metadata_version: MetadataVersion::from_feature_level(level).expect("known"),
            eligible_leader_replicas_enabled: elr,
        }
    }

    #[test]
    fn merge_bumps_the_leader_epoch_only_when_the_leader_is_set() {
        // Kafka's PartitionRegistrationTest.testPartitionControlInfoMergeAndDiff.
        let a = partition(&[1, 2, 3], vec![UNASSIGNED; 3], &[1, 2], 1, 0, 0);
        let b = a
            .merge(&PartitionChangeRecord {
                leader: 3,
                isr: Some(vec![3]),
                ..Default::default()
            })
            .expect("merges");
        assert_eq!(b, partition(&[1, 2, 3], vec![UNASSIGNED; 3], &[3], 3, 1, 1));
        // An ISR change alone moves only the partition epoch.
        let c = a
            .merge(&PartitionChangeRecord {
                isr: Some(vec![1]),
                eligible_leader_replicas: Some(vec![2]),
                last_known_elr: Some(vec![3]),
                ..Default::default()
            })
            .expect("merges");
        let mut want = partition(&[1, 2, 3], vec![UNASSIGNED; 3], &[1], 1, 0, 1);
        want.elr = vec![2];
        want.last_known_elr = vec![3];
        assert_eq!(c, want);
        // Setting the same leader again, or no leader, still bumps it.
        let same = a
            .merge(&PartitionChangeRecord {
                leader: 1,
                ..Default::default()
            })
            .expect("merges");
        assert_eq!(
            (same.leader, same.leader_epoch, same.partition_epoch),
            (1, 1, 1)
        );
        let none = same
            .merge(&PartitionChangeRecord {
                leader: NO_LEADER,
                ..Default::default()
            })
            .expect("merges");
        assert_eq!(
            (none.leader, none.leader_epoch, none.partition_epoch),
            (-1, 2, 2)
        );
        assert!(!none.has_leader() && same.has_leader());
        // Leader recovery state: -1 keeps it, 1 sets it.
        let unclean = a
            .merge(&PartitionChangeRecord {
                leader: 2,
                leader_recovery_state: 1,
                ..Default::default()
            })
            .expect("merges");
        assert_eq!(
            unclean.leader_recovery_state,
            LeaderRecoveryState::Recovering
        );
        let kept = unclean
            .merge(&PartitionChangeRecord::default())
            .expect("merges");
        assert_eq!(kept.leader_recovery_state, LeaderRecoveryState::Recovering);
        assert_eq!((kept.leader_epoch, kept.partition_epoch), (1, 2));
    }

    #[test]
    fn merge_with_reassignment_data() {
        // Kafka's testMergePartitionChangeRecordWithReassignmentData.
        let (d1, d2, d3) = (
            uuid("FbRuu7CeQtq5YFreEzg16g"),
            uuid("4rtHTelWSSStAFMODOg3cQ"),
            uuid("Id1WXzHURROilVxZWJNZlw"),
        );
        let p0 = partition(&[1, 2, 3], vec![d1, d2, d3], &[1, 2, 3], 1, 100, 200);
        let p1 = p0
            .merge(&PartitionChangeRecord {
                removing_replicas: Some(vec![3]),
                adding_replicas: Some(vec![4]),
                replicas: Some(vec![1, 2, 3, 4]),
                directories: Some(vec![d1, d2, d3, UNASSIGNED]),
                ..Default::default()
            })
            .expect("merges");
        let mut want = partition(
            &[1, 2, 3, 4],
            vec![d1, d2, d3, UNASSIGNED],
            &[1, 2, 3],
            1,
            100,
            201,
        );
        want.removing_replicas = vec![3];
        want.adding_replicas = vec![4];
        assert_eq!(p1, want);
        let p2 = p1
            .merge(&PartitionChangeRecord {
                isr: Some(vec![1, 2, 4]),
                removing_replicas: Some(vec![]),
                adding_replicas: Some(vec![]),
                replicas: Some(vec![1, 2, 4]),
                directories: Some(vec![d1, d2, UNASSIGNED]),
                ..Default::default()
            })
            .expect("merges");
        assert_eq!(
            p2,
            partition(
                &[1, 2, 4],
                vec![d1, d2, UNASSIGNED],
                &[1, 2, 4],
                1,
                100,
                202
            )
        );
        assert_eq!(p2.directory(2), Some(d2));
        assert_eq!(p2.directory(3), None);
        assert_eq!(p2.preferred_replica(), 1);
    }

    #[test]
    fn records_without_directories_are_migrating() {
        // Kafka's testMigratingRecordDirectories.
        let r = PartitionRecord {
            topic_id: uuid("ONlQ7DDzQtGESsG499UDQg"),
            partition_id: 0,
            replicas: vec![0, 1],
            isr: vec![0, 1],
            leader: 0,
            leader_epoch: 0,
            partition_epoch: 0,
            ..Default::default()
        };
        let p = PartitionRegistration::from_record(&r).expect("valid");
        assert_eq!(p.directories, [MIGRATING_DIRECTORY; 2]);
        // New replicas of a migrating partition are migrating too.
        let grown = p
            .merge(&PartitionChangeRecord {
                replicas: Some(vec![0, 1, 2]),
                ..Default::default()
            })
            .expect("merges");
        assert_eq!(grown.directories, [MIGRATING_DIRECTORY; 3]);
    }

    #[test]
    fn invalid_records_are_refused_with_kafkas_messages() {
        let topic = uuid("ONlQ7DDzQtGESsG499UDQg");
        let d = uuid("FbRuu7CeQtq5YFreEzg16g");
        let r = PartitionRecord {
            topic_id: topic,
            partition_id: 3,
            replicas: vec![0, 1],
            isr: vec![0],
            leader: 0,
            directories: vec![d],
            ..Default::default()
        };
        assert_eq!(
            PartitionRegistration::from_record(&r).expect_err("refused").to_string(),
            "The lengths for replicas and directories do not match: PartitionRecord(partitionId=3, topicId=ONlQ7DDzQtGESsG499UDQg, replicas=[0, 1], isr=[0], removingReplicas=[], addingReplicas=[], leader=0, leaderRecoveryState=0, leaderEpoch=-1, partitionEpoch=-1, directories=[FbRuu7CeQtq5YFreEzg16g], eligibleLeaderReplicas=null, lastKnownElr=null)"
        );
        let bad_state = PartitionRecord {
            directories: vec![],
            leader_recovery_state: 5,
            ..r.clone()
        };
        assert_eq!(
            PartitionRegistration::from_record(&bad_state)
                .expect_err("refused")
                .to_string(),
            "Value 5 is not a valid leader recovery state"
        );
        let p = partition(&[0, 1], vec![d, d], &[0, 1], 0, 0, 0);
        let change = PartitionChangeRecord {
            topic_id: topic,
            partition_id: 3,
            replicas: Some(vec![0, 1, 2]),
            directories: Some(vec![d]),
            ..Default::default()
        };
        assert_eq!(
            p.merge(&change).expect_err("refused").to_string(),
            "The lengths for replicas and directories do not match: PartitionChangeRecord(partitionId=3, topicId=ONlQ7DDzQtGESsG499UDQg, isr=null, leader=-2, replicas=[0, 1, 2], removingReplicas=null, addingReplicas=null, leaderRecoveryState=-1, directories=[FbRuu7CeQtq5YFreEzg16g], eligibleLeaderReplicas=null, lastKnownElr=null)"
        );
        // New replicas without directories for assigned ones.
        let grow = PartitionChangeRecord {
            replicas: Some(vec![0, 1, 2]),
            ..Default::default()
        };
        assert_eq!(
            p.merge(&grow).expect_err("refused").to_string(),
            "The lengths for replicas and directories do not match."
        );
        let bad_change = PartitionChangeRecord {
            leader_recovery_state: 2,
            ..Default::default()
        };
        assert_eq!(
            p.merge(&bad_change).expect_err("refused").to_string(),
            "Value 2 is not a valid leader recovery state"
        );
    }

    #[test]
    fn to_record_follows_the_metadata_version() {
        // Kafka's testPartitionRegistrationToRecord.
        let dirs = vec![
            UNASSIGNED,
            uuid("KBJBm9GVRAG9Ffe25odmmg"),
            LOST,
            uuid("7DZNT5qBS7yFF7VMMHS7kw"),
            uuid("cJGPUZsMSEqbidOLYLOIXg"),
        ];
        let mut p = partition(&[0, 1, 2, 3, 4], dirs.clone(), &[0, 1], 0, 0, 0);
        p.elr = vec![2, 3];
        p.last_known_elr = vec![4];
        let topic = uuid("ONlQ7DDzQtGESsG499UDQg");
        for level in [7, 16, 17, 22, 23, 33] {
            let o = options(level, level >= 23);
            let mv = o.metadata_version;
            let written = p.to_record(topic, 0, &o);
            if !mv.is_directory_assignment_supported() {
                assert_eq!(
                    written,
                    Err(WriteError::Loss {
                        metadata_version: mv,
                        loss: "the directory assignment state of one or more replicas".into()
                    })
                );
                continue;
            }
            let written = written.expect("writes");
            assert_eq!(written.version, mv.partition_record_version());
            let mut want = PartitionRecord {
                topic_id: topic,
                partition_id: 0,
                replicas: vec![0, 1, 2, 3, 4],
                isr: vec![0, 1],
                leader: 0,
                leader_recovery_state: 0,
                leader_epoch: 0,
                partition_epoch: 0,
                directories: dirs.clone(),
                ..Default::default()
            };
            if mv.is_elr_supported() {
                want.eligible_leader_replicas = Some(vec![2, 3]);
                want.last_known_elr = Some(vec![4]);
            }
            assert_eq!(written, MetadataRecord::new(want, written.version));
            written.encode().expect("encodes");
        }
        // ELR disabled: Kafka drops the fields without reporting a loss.
        let dropped = p.to_record(topic, 0, &options(33, false)).expect("writes");
        assert!(matches!(
            &dropped.body,
            kraft_protocol::MetadataRecordBody::Partition(r)
                if r.eligible_leader_replicas.is_none() && r.last_known_elr.is_none()
        ));
    }

    #[test]
    fn empty_elr_is_not_written() {
        // Kafka's testPartitionRegistrationToRecord_ElrShouldBeNullIfEmpty.
        let p = partition(
            &[0, 1, 2, 3, 4],
            vec![MIGRATING_DIRECTORY; 5],
            &[0, 1],
            0,
            0,
            0,
        );
        let topic = uuid("ONlQ7DDzQtGESsG499UDQg");
        let want = PartitionRecord {
            topic_id: topic,
            partition_id: 0,
            replicas: vec![0, 1, 2, 3, 4],
            isr: vec![0, 1],
            leader: 0,
            leader_recovery_state: 0,
            leader_epoch: 0,
            partition_epoch: 0,
            directories: vec![MIGRATING_DIRECTORY; 5],
            ..Default::default()
        };
        for elr in [false, true] {
            assert_eq!(
                p.to_record(topic, 0, &options(23, elr)),
                Ok(MetadataRecord::new(want.clone(), 2))
            );
        }
        // Below directory assignment, migrating directories are no loss and
        // are not written.
        let v0 = p.to_record(topic, 0, &options(16, false)).expect("writes");
        assert_eq!(
            v0,
            MetadataRecord::new(
                PartitionRecord {
                    directories: vec![],
                    ..want
                },
                0
            )
        );
        v0.encode().expect("encodes at v0");
    }
}
