use super::*;
use crate::features::MetadataVersion;
use crate::java::uuid_from_text;

fn uuid(text: &str) -> Uuid {
    uuid_from_text(text).expect("a Kafka uuid")
}

/// Kafka's `DirectoryId.UNASSIGNED` and `LOST`.
const UNASSIGNED: Uuid = Uuid::from_u64_pair(0, 1);
const LOST: Uuid = Uuid::from_u64_pair(0, 2);

/// A partition's fields as plain values (the old `PartitionRegistration`).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Parts {
    replicas: Vec<i32>,
    directories: Vec<Uuid>,
    isr: Vec<i32>,
    removing_replicas: Vec<i32>,
    adding_replicas: Vec<i32>,
    elr: Vec<i32>,
    last_known_elr: Vec<i32>,
    leader: i32,
    leader_recovery_state: LeaderRecoveryState,
    leader_epoch: i32,
    partition_epoch: i32,
}

fn parts(p: &PackedPartition, table: &DirectoryTable) -> Parts {
    let v = PartitionRegistration::new(p, table);
    Parts {
        replicas: v.replicas().collect(),
        directories: v.directories().collect(),
        isr: v.isr().collect(),
        removing_replicas: v.removing_replicas().collect(),
        adding_replicas: v.adding_replicas().collect(),
        elr: v.elr().collect(),
        last_known_elr: v.last_known_elr().collect(),
        leader: v.leader(),
        leader_recovery_state: v.leader_recovery_state(),
        leader_epoch: v.leader_epoch(),
        partition_epoch: v.partition_epoch(),
    }
}

/// `p` packed (through the PartitionRecord that carries it).
fn pack_parts(p: &Parts, table: &mut DirectoryTable) -> PackedPartition {
    let r = PartitionRecord {
        replicas: p.replicas.clone(),
        directories: p.directories.clone(),
        isr: p.isr.clone(),
        removing_replicas: p.removing_replicas.clone(),
        adding_replicas: p.adding_replicas.clone(),
        eligible_leader_replicas: Some(p.elr.clone()),
        last_known_elr: Some(p.last_known_elr.clone()),
        leader: p.leader,
        leader_recovery_state: p.leader_recovery_state.value(),
        leader_epoch: p.leader_epoch,
        partition_epoch: p.partition_epoch,
        ..Default::default()
    };
    let packed = PackedPartition::from_record(&r, table).expect("valid");
    assert_eq!(&parts(&packed, table), p, "packs and reads back");
    packed
}

fn partition(
    replicas: &[i32],
    directories: Vec<Uuid>,
    isr: &[i32],
    leader: i32,
    leader_epoch: i32,
    partition_epoch: i32,
) -> Parts {
    Parts {
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
#[cfg(target_pointer_width = "64")]
fn a_packed_partition_takes_40_bytes() {
    assert_eq!(std::mem::size_of::<PackedPartition>(), 40);
    assert_eq!(std::mem::size_of::<Option<PackedPartition>>(), 40);
    // Three replicas with their ISR and directories: inline, 16 bytes.
    let mut t = DirectoryTable::default();
    let dirs = (0..3).map(|b| Uuid::from_u64_pair(2, b)).collect();
    let p = pack_parts(&partition(&[0, 1, 2], dirs, &[0, 1, 2], 0, 1, 1), &mut t);
    assert!(matches!(p.lists, Lists::Inline { len: 16, .. }), "{p:?}");
}

#[test]
fn merge_bumps_the_leader_epoch_only_when_the_leader_is_set() {
    // Kafka's PartitionRegistrationTest.testPartitionControlInfoMergeAndDiff.
    let mut t = DirectoryTable::default();
    let a = pack_parts(
        &partition(&[1, 2, 3], vec![UNASSIGNED; 3], &[1, 2], 1, 0, 0),
        &mut t,
    );
    let merge = |p: &PackedPartition, r: PartitionChangeRecord, t: &mut DirectoryTable| {
        p.merge(&r, t).expect("merges")
    };
    let b = merge(
        &a,
        PartitionChangeRecord {
            leader: 3,
            isr: Some(vec![3]),
            ..Default::default()
        },
        &mut t,
    );
    assert_eq!(
        parts(&b, &t),
        partition(&[1, 2, 3], vec![UNASSIGNED; 3], &[3], 3, 1, 1)
    );
    // An ISR change alone moves only the partition epoch.
    let c = merge(
        &a,
        PartitionChangeRecord {
            isr: Some(vec![1]),
            eligible_leader_replicas: Some(vec![2]),
            last_known_elr: Some(vec![3]),
            ..Default::default()
        },
        &mut t,
    );
    let mut want = partition(&[1, 2, 3], vec![UNASSIGNED; 3], &[1], 1, 0, 1);
    want.elr = vec![2];
    want.last_known_elr = vec![3];
    assert_eq!(parts(&c, &t), want);
    assert!(c.has_elr() && !a.has_elr());
    // Setting the same leader again, or no leader, still bumps it.
    let same = merge(
        &a,
        PartitionChangeRecord {
            leader: 1,
            ..Default::default()
        },
        &mut t,
    );
    let v = parts(&same, &t);
    assert_eq!((v.leader, v.leader_epoch, v.partition_epoch), (1, 1, 1));
    let none = merge(
        &same,
        PartitionChangeRecord {
            leader: NO_LEADER,
            ..Default::default()
        },
        &mut t,
    );
    let n = PartitionRegistration::new(&none, &t);
    assert_eq!(
        (n.leader(), n.leader_epoch(), n.partition_epoch()),
        (-1, 2, 2)
    );
    assert!(!n.has_leader() && PartitionRegistration::new(&same, &t).has_leader());
    // Leader recovery state: -1 keeps it, 1 sets it.
    let unclean = merge(
        &a,
        PartitionChangeRecord {
            leader: 2,
            leader_recovery_state: 1,
            ..Default::default()
        },
        &mut t,
    );
    assert_eq!(
        parts(&unclean, &t).leader_recovery_state,
        LeaderRecoveryState::Recovering
    );
    let kept = merge(&unclean, PartitionChangeRecord::default(), &mut t);
    let k = parts(&kept, &t);
    assert_eq!(k.leader_recovery_state, LeaderRecoveryState::Recovering);
    assert_eq!((k.leader_epoch, k.partition_epoch), (1, 2));
    // UNASSIGNED is the only directory interned.
    assert_eq!(t.len(), 1);
}

#[test]
fn merge_with_reassignment_data() {
    // Kafka's testMergePartitionChangeRecordWithReassignmentData.
    let (d1, d2, d3) = (
        uuid("FbRuu7CeQtq5YFreEzg16g"),
        uuid("4rtHTelWSSStAFMODOg3cQ"),
        uuid("Id1WXzHURROilVxZWJNZlw"),
    );
    let mut t = DirectoryTable::default();
    let p0 = pack_parts(
        &partition(&[1, 2, 3], vec![d1, d2, d3], &[1, 2, 3], 1, 100, 200),
        &mut t,
    );
    let p1 = p0
        .merge(
            &PartitionChangeRecord {
                removing_replicas: Some(vec![3]),
                adding_replicas: Some(vec![4]),
                replicas: Some(vec![1, 2, 3, 4]),
                directories: Some(vec![d1, d2, d3, UNASSIGNED]),
                ..Default::default()
            },
            &mut t,
        )
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
    assert_eq!(parts(&p1, &t), want);
    let p2 = p1
        .merge(
            &PartitionChangeRecord {
                isr: Some(vec![1, 2, 4]),
                removing_replicas: Some(vec![]),
                adding_replicas: Some(vec![]),
                replicas: Some(vec![1, 2, 4]),
                directories: Some(vec![d1, d2, UNASSIGNED]),
                ..Default::default()
            },
            &mut t,
        )
        .expect("merges");
    assert_eq!(
        parts(&p2, &t),
        partition(
            &[1, 2, 4],
            vec![d1, d2, UNASSIGNED],
            &[1, 2, 4],
            1,
            100,
            202
        )
    );
    let v = PartitionRegistration::new(&p2, &t);
    assert_eq!(v.directory(2), Some(d2));
    assert_eq!(v.directory(4), Some(UNASSIGNED));
    assert_eq!(v.directory(3), None);
    assert_eq!(v.preferred_replica(), 1);
    assert_eq!(t.len(), 4);
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
    let mut t = DirectoryTable::default();
    let p = PackedPartition::from_record(&r, &mut t).expect("valid");
    assert_eq!(parts(&p, &t).directories, [MIGRATING_DIRECTORY; 2]);
    // New replicas of a migrating partition are migrating too.
    let grown = p
        .merge(
            &PartitionChangeRecord {
                replicas: Some(vec![0, 1, 2]),
                ..Default::default()
            },
            &mut t,
        )
        .expect("merges");
    assert_eq!(parts(&grown, &t).directories, [MIGRATING_DIRECTORY; 3]);
    // So are explicit MIGRATING directories, and an empty list.
    for dirs in [vec![], vec![MIGRATING_DIRECTORY; 2]] {
        let shrunk = grown
            .merge(
                &PartitionChangeRecord {
                    replicas: Some(vec![4, 5]),
                    directories: Some(dirs),
                    ..Default::default()
                },
                &mut t,
            )
            .expect("merges");
        assert_eq!(parts(&shrunk, &t).directories, [MIGRATING_DIRECTORY; 2]);
    }
    assert_eq!(t.len(), 0);
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
    let mut t = DirectoryTable::default();
    assert_eq!(
        PackedPartition::from_record(&r, &mut t).expect_err("refused").to_string(),
        "The lengths for replicas and directories do not match: PartitionRecord(partitionId=3, topicId=ONlQ7DDzQtGESsG499UDQg, replicas=[0, 1], isr=[0], removingReplicas=[], addingReplicas=[], leader=0, leaderRecoveryState=0, leaderEpoch=-1, partitionEpoch=-1, directories=[FbRuu7CeQtq5YFreEzg16g], eligibleLeaderReplicas=null, lastKnownElr=null)"
    );
    let bad_state = PartitionRecord {
        directories: vec![d, d],
        leader_recovery_state: 5,
        ..r.clone()
    };
    assert_eq!(
        PackedPartition::from_record(&bad_state, &mut t)
            .expect_err("refused")
            .to_string(),
        "Value 5 is not a valid leader recovery state"
    );
    // Nothing refused interned its directories.
    assert_eq!(t.len(), 0);
    let p = pack_parts(&partition(&[0, 1], vec![d, d], &[0, 1], 0, 0, 0), &mut t);
    let other = uuid("4rtHTelWSSStAFMODOg3cQ");
    let change = PartitionChangeRecord {
        topic_id: topic,
        partition_id: 3,
        replicas: Some(vec![0, 1, 2]),
        directories: Some(vec![other]),
        ..Default::default()
    };
    assert_eq!(
        p.merge(&change, &mut t).expect_err("refused").to_string(),
        "The lengths for replicas and directories do not match: PartitionChangeRecord(partitionId=3, topicId=ONlQ7DDzQtGESsG499UDQg, isr=null, leader=-2, replicas=[0, 1, 2], removingReplicas=null, addingReplicas=null, leaderRecoveryState=-1, directories=[4rtHTelWSSStAFMODOg3cQ], eligibleLeaderReplicas=null, lastKnownElr=null)"
    );
    // New replicas without directories for assigned ones.
    let grow = PartitionChangeRecord {
        replicas: Some(vec![0, 1, 2]),
        ..Default::default()
    };
    assert_eq!(
        p.merge(&grow, &mut t).expect_err("refused").to_string(),
        "The lengths for replicas and directories do not match."
    );
    // Directories alone, of the wrong length.
    let dirs_only = PartitionChangeRecord {
        directories: Some(vec![other; 3]),
        ..Default::default()
    };
    assert_eq!(
        p.merge(&dirs_only, &mut t)
            .expect_err("refused")
            .to_string(),
        "The lengths for replicas and directories do not match."
    );
    let bad_change = PartitionChangeRecord {
        leader_recovery_state: 2,
        directories: Some(vec![other; 2]),
        ..Default::default()
    };
    assert_eq!(
        p.merge(&bad_change, &mut t)
            .expect_err("refused")
            .to_string(),
        "Value 2 is not a valid leader recovery state"
    );
    assert_eq!(t.len(), 1, "only d was interned");
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
    let mut want_parts = partition(&[0, 1, 2, 3, 4], dirs.clone(), &[0, 1], 0, 0, 0);
    want_parts.elr = vec![2, 3];
    want_parts.last_known_elr = vec![4];
    let mut t = DirectoryTable::default();
    let packed = pack_parts(&want_parts, &mut t);
    let p = PartitionRegistration::new(&packed, &t);
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
    let mut t = DirectoryTable::default();
    let packed = pack_parts(
        &partition(
            &[0, 1, 2, 3, 4],
            vec![MIGRATING_DIRECTORY; 5],
            &[0, 1],
            0,
            0,
            0,
        ),
        &mut t,
    );
    let p = PartitionRegistration::new(&packed, &t);
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

#[test]
fn long_lists_and_any_ids_pack_and_merge() {
    // Past the inline bytes (many replicas, ids of every size, negative
    // ones), then back inline.
    let mut t = DirectoryTable::default();
    let replicas: Vec<i32> = (0..40)
        .map(|i| match i % 5 {
            0 => i,
            1 => 1000 + i,
            2 => 300_000 + i,
            3 => i32::MAX - i,
            _ => -1 - i,
        })
        .collect();
    let dirs: Vec<Uuid> = (0..40u64).map(|i| Uuid::from_u64_pair(7, i % 13)).collect();
    let mut big = partition(
        &replicas,
        dirs,
        &replicas[..20],
        replicas[3],
        i32::MAX,
        i32::MIN,
    );
    big.removing_replicas = vec![i32::MIN];
    big.adding_replicas = vec![5; 3];
    big.elr = vec![-7];
    big.last_known_elr = vec![1 << 20];
    big.leader_recovery_state = LeaderRecoveryState::Recovering;
    let packed = pack_parts(&big, &mut t);
    assert!(matches!(packed.lists, Lists::Heap(_)));
    // Epochs wrap as Java ints do.
    let changed = packed
        .merge(
            &PartitionChangeRecord {
                leader: 9,
                isr: Some(vec![9]),
                ..Default::default()
            },
            &mut t,
        )
        .expect("merges");
    let mut want = big.clone();
    want.leader = 9;
    want.isr = vec![9];
    want.leader_epoch = i32::MIN;
    want.partition_epoch = i32::MIN + 1;
    assert_eq!(parts(&changed, &t), want);
    let small = changed
        .merge(
            &PartitionChangeRecord {
                replicas: Some(vec![9]),
                directories: Some(vec![Uuid::from_u64_pair(7, 3)]),
                removing_replicas: Some(vec![]),
                adding_replicas: Some(vec![]),
                eligible_leader_replicas: Some(vec![]),
                last_known_elr: Some(vec![]),
                ..Default::default()
            },
            &mut t,
        )
        .expect("merges");
    assert!(matches!(small.lists, Lists::Inline { .. }));
    let s = parts(&small, &t);
    assert_eq!(
        (s.replicas, s.directories, s.isr),
        (vec![9], vec![Uuid::from_u64_pair(7, 3)], vec![9])
    );
    assert!(!small.has_elr());
    assert_eq!(t.len(), 13);
}

#[test]
fn views_of_different_tables_compare_by_directory_id() {
    let (d1, d2) = (Uuid::from_u64_pair(1, 1), Uuid::from_u64_pair(1, 2));
    let p = partition(&[1, 2], vec![d1, d2], &[1, 2], 1, 0, 0);
    let (mut ta, mut tb) = (DirectoryTable::default(), DirectoryTable::default());
    // Interned in another order: other indices, same directories.
    tb.intern(d2).expect("interns");
    let (a, b) = (pack_parts(&p, &mut ta), pack_parts(&p, &mut tb));
    assert_ne!(a.lists.bytes(), b.lists.bytes());
    let c = pack_parts(&partition(&[1, 2], vec![d2, d1], &[1, 2], 1, 0, 0), &mut tb);
    let d = pack_parts(&partition(&[1, 2], vec![d1, d2], &[1], 1, 0, 0), &mut ta);
    let va = PartitionRegistration::new(&a, &ta);
    assert_eq!(va, PartitionRegistration::new(&b, &tb));
    assert_ne!(va, PartitionRegistration::new(&c, &tb));
    assert_ne!(va, PartitionRegistration::new(&d, &ta));
    assert!(format!("{va:?}").contains("isr: [1, 2]"));
}
