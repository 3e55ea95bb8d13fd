//! Replay, transactions, records not understood and the snapshot order.

use bytes::Bytes;
use kraft_protocol::messages::register_controller_record::{
    ControllerEndpoint, ControllerFeature, RegisterControllerRecord,
};
use kraft_protocol::messages::unregister_controller_record::UnregisterControllerRecord;
use kraft_protocol::Uuid;

use super::*;
use crate::features::VersionRange;

#[test]
fn only_an_unloaded_image_waits_for_mark_loaded_and_clones_share_it() {
    assert!(SharedImage::new().is_loaded());
    assert!(SharedImage::default().is_loaded());
    assert!(SharedImage::from_image(MetadataImage::new()).is_loaded());
    let image = SharedImage::unloaded();
    let clone = image.clone();
    assert!(!image.is_loaded() && !clone.is_loaded());
    clone.mark_loaded();
    assert!(image.is_loaded());
    clone.mark_loaded();
    assert!(image.is_loaded());
}

fn registration(id: i32, mv_max: i16) -> RegisterControllerRecord {
    RegisterControllerRecord {
        controller_id: id,
        incarnation_id: Uuid::from_u64_pair(1, id as u64 + 100),
        end_points: vec![ControllerEndpoint {
            name: "CONTROLLER".into(),
            host: format!("ctl-{id}").into(),
            port: 9093,
            security_protocol: 0,
            ..Default::default()
        }]
        .into(),
        features: vec![
            ControllerFeature {
                name: "metadata.version".into(),
                min_supported_version: 7,
                max_supported_version: mv_max,
                ..Default::default()
            },
            ControllerFeature {
                name: "kraft.version".into(),
                min_supported_version: 0,
                max_supported_version: 1,
                ..Default::default()
            },
        ]
        .into(),
        ..Default::default()
    }
}

fn unregister(id: i32) -> MetadataRecord {
    MetadataRecord::new(
        UnregisterControllerRecord {
            controller_id: id,
            ..Default::default()
        },
        0,
    )
}

#[test]
fn unregister_record_bytes_match_the_spec() {
    // UnregisterControllerRecord for controller 5 (KIP-1312).
    let r = unregister(5);
    let bytes = r.encode().expect("encodes");
    assert_eq!(bytes, [0x01, 0x1d, 0x00, 0x00, 0x00, 0x00, 0x05, 0x00]);
    assert_eq!(MetadataRecord::decode(Bytes::from(bytes)), Ok(r));
}

#[test]
fn feature_level_record_bytes() {
    // As written into Kafka's bootstrap checkpoint: 01 0c 00 | 11 "metadata.version" 00 21 | 00
    let r = MetadataRecord::feature_level("metadata.version", 33);
    let mut expected = vec![0x01, 0x0c, 0x00, 0x11];
    expected.extend_from_slice(b"metadata.version");
    expected.extend_from_slice(&[0x00, 0x21, 0x00]);
    assert_eq!(r.encode(), Ok(expected));
    assert_eq!(
        MetadataRecord::no_op().encode(),
        Ok(vec![0x01, 0x14, 0x00, 0x00])
    );
    assert_eq!(
        MetadataRecord::decode(Bytes::from_static(&[0x01, 0x14, 0x00, 0x00])),
        Ok(MetadataRecord::no_op())
    );
}

/// An image at metadata.version 33 with one controller registered.
fn bootstrapped() -> MetadataImage {
    let mut image = MetadataImage::new();
    image
        .replay_value(
            encoded(&MetadataRecord::feature_level("metadata.version", 33)),
            0,
        )
        .expect("replays");
    image
        .replay_value(encoded(&MetadataRecord::new(registration(1, 33), 0)), 1)
        .expect("replays");
    image
}

fn encoded(r: &MetadataRecord) -> Bytes {
    Bytes::from(r.encode().expect("encodes"))
}

#[test]
fn records_not_understood_are_kept_counted_and_block_writing() {
    let mut image = bootstrapped();
    assert_eq!(image.to_records().map(|r| r.len()), Ok(2));
    // A record type no Kafka release defines (a future one), and a known
    // type one version above what this build knows.
    let future = Bytes::from_static(&[0x01, 0xac, 0x02, 0x00, 0x00]);
    image
        .replay_value(future.clone(), 2)
        .expect("noted, not fatal");
    image.replay_value(future, 3).expect("noted, not fatal");
    image
        .replay_value(Bytes::from_static(&[0x01, 0x1d, 0x01, 0, 0, 0, 5, 0]), 4)
        .expect("noted, not fatal");
    assert_eq!(image.last_offset(), 4);
    let noted: Vec<_> = image.not_understood().cloned().collect();
    assert_eq!(
        noted,
        [
            NotUnderstood {
                record_type: 29,
                version: 1,
                reason: NotUnderstoodReason::UnknownVersion,
                first_offset: 4,
                count: 1,
            },
            NotUnderstood {
                record_type: 300,
                version: 0,
                reason: NotUnderstoodReason::UnknownType,
                first_offset: 2,
                count: 2,
            },
        ]
    );
    let err = image
        .to_records()
        .expect_err("must not write a lossy image");
    let text = err.to_string();
    assert!(
        text.contains("type 300, version 0, unknown type; 2 record(s), first at offset 2")
            && text.contains("UnregisterControllerRecord (type 29, version 1, unknown version"),
        "{text}"
    );
    assert!(image.to_values().is_err());
    // The same from a snapshot.
    let values = vec![
        encoded(&MetadataRecord::feature_level("metadata.version", 33)),
        Bytes::from_static(&[0x01, 0xac, 0x02, 0x00, 0x00]),
    ];
    let loaded = MetadataImage::from_snapshot_values(values, 41).expect("loads");
    assert_eq!(loaded.last_offset(), 41);
    assert!(matches!(loaded.unwritable(), Some(WriteError::NotUnderstood(n)) if n.len() == 1));
    // A malformed body of a known type is an error.
    assert!(matches!(
        image.replay_value(Bytes::from_static(&[0x00, 0x0c, 0x00]), 8),
        Err(ReplayError::Decode { offset: 8, .. })
    ));
    assert!(MetadataRecord::decode(Bytes::from_static(&[0x01, 0x1d, 0x00, 0x00])).is_err());
}

#[test]
fn transactions_hold_records_back_until_their_end() {
    use kraft_protocol::messages::abort_transaction_record::AbortTransactionRecord;
    use kraft_protocol::messages::begin_transaction_record::BeginTransactionRecord;
    use kraft_protocol::messages::end_transaction_record::EndTransactionRecord;
    let begin = MetadataRecord::new(BeginTransactionRecord::default(), 0);
    let end = MetadataRecord::new(EndTransactionRecord::default(), 0);
    let abort = MetadataRecord::new(AbortTransactionRecord::default(), 0);

    let mut image = bootstrapped();
    image.replay_value(encoded(&begin), 2).expect("begins");
    image
        .replay_value(
            encoded(&MetadataRecord::feature_level("group.version", 1)),
            3,
        )
        .expect("held");
    image.set_last_offset(3);
    assert_eq!(image.feature_level("group.version"), 0, "held back");
    assert_eq!(
        image.last_offset(),
        1,
        "the image stays before the transaction"
    );
    assert_eq!(image.open_transaction(), Some(2));
    assert_eq!(image.to_records(), Err(WriteError::OpenTransaction(2)));
    assert!(matches!(
        image.replay_value(encoded(&begin), 4),
        Err(ReplayError::Invalid(m)) if m == "Encountered BeginTransactionRecord while already in a transaction"
    ));
    image.replay_value(encoded(&end), 5).expect("ends");
    assert_eq!(image.feature_level("group.version"), 1);
    assert_eq!(image.last_offset(), 5);
    assert_eq!(image.to_records().map(|r| r.len()), Ok(3));

    image.replay_value(encoded(&begin), 6).expect("begins");
    image
        .replay_value(encoded(&unregister(1)), 7)
        .expect("held");
    image.replay_value(encoded(&abort), 8).expect("aborts");
    assert!(
        image.controller(1).is_some(),
        "aborted records are discarded"
    );
    assert_eq!(image.last_offset(), 8);
    for (marker, name) in [
        (&end, "EndTransactionRecord"),
        (&abort, "AbortTransactionRecord"),
    ] {
        let expected = format!("Encountered {name} without having seen a BeginTransactionRecord");
        assert!(matches!(
            image.replay_value(encoded(marker), 9),
            Err(ReplayError::Invalid(m)) if m == expected
        ));
    }
    assert!(matches!(
        MetadataImage::from_snapshot_values(vec![encoded(&begin)], 0),
        Err(ReplayError::Invalid(_))
    ));
}

#[test]
fn replay_features_and_registrations() {
    let mut image = MetadataImage::new();
    assert_eq!(image.metadata_version(), None);
    let records = vec![
        MetadataRecord::feature_level("metadata.version", 30),
        MetadataRecord::feature_level("group.version", 1),
        MetadataRecord::feature_level("kraft.version", 1),
        MetadataRecord::feature_level("share.version", 1),
        MetadataRecord::new(registration(1, 33), 0),
        MetadataRecord::new(registration(2, 30), 0),
    ];
    for r in &records {
        image.replay(r).expect("replays");
    }
    assert_eq!(
        image.metadata_version(),
        Some(MetadataVersion::from_feature_level(30).expect("known"))
    );
    assert_eq!(image.feature_level("group.version"), 1);
    assert_eq!(
        image.feature_level("kraft.version"),
        0,
        "FeatureLevelRecord for kraft.version is ignored"
    );
    assert_eq!(image.controllers().count(), 2);
    assert_eq!(
        image
            .controller(2)
            .map(|c| c.supported_range("metadata.version")),
        Some(VersionRange::new(7, 30))
    );
    assert_eq!(
        image.controller(2).map(|c| c.supported_range("nope")),
        Some(VersionRange::DISABLED)
    );
    // level 0 removes a feature; re-registration replaces
    image
        .replay(&MetadataRecord::feature_level("group.version", 0))
        .expect("ok");
    assert_eq!(image.feature_level("group.version"), 0);
    image
        .replay(&MetadataRecord::new(registration(2, 33), 0))
        .expect("ok");
    assert_eq!(
        image
            .controller(2)
            .map(|c| c.supported_range("metadata.version").max),
        Some(33)
    );
    image.replay(&unregister(1)).expect("ok");
    assert!(image.controller(1).is_none());
    // unregistering an unknown id is recorded as removed, not fatal
    image.replay(&unregister(42)).expect("ok");
    assert!(matches!(
        image.replay(&MetadataRecord::feature_level("metadata.version", 99)),
        Err(ReplayError::UnsupportedMetadataVersion(m)) if m == "No MetadataVersion with feature level 99. Valid feature levels are from 7 to 34."
    ));
}

#[test]
fn image_round_trips_through_records() {
    let mut image = MetadataImage::new();
    for r in [
        MetadataRecord::feature_level("metadata.version", 33),
        MetadataRecord::feature_level("transaction.version", 2),
        MetadataRecord::feature_level("group.version", 1),
        MetadataRecord::new(registration(3, 33), 0),
        MetadataRecord::new(registration(1, 33), 0),
    ] {
        image.replay(&r).expect("replays");
    }
    let records = image.to_records().expect("writes");
    assert_eq!(
        records[0],
        MetadataRecord::feature_level("metadata.version", 33)
    );
    assert_eq!(records.len(), 5);
    assert!(
        matches!(&records[3].body, MetadataRecordBody::RegisterController(r) if r.controller_id == 1)
    );
    // bytes round trip too
    let decoded: Vec<MetadataRecord> = records
        .iter()
        .map(|r| MetadataRecord::decode(encoded(r)).expect("decodes"))
        .collect();
    let back = MetadataImage::from_records(&decoded).expect("loads");
    assert_eq!(back.to_records(), Ok(records));
    assert_eq!(back.controller(3), image.controller(3));
    // registrations cannot be written below 3.7-IV0: an error, not a loss
    let mut old = MetadataImage::new();
    old.replay(&MetadataRecord::feature_level("metadata.version", 14))
        .expect("ok");
    old.replay(&MetadataRecord::new(registration(1, 33), 0))
        .expect("ok");
    assert_eq!(
        old.to_records().map_err(|e| e.to_string()),
        Err("Metadata has been lost because the following could not be represented in metadata.version 3.6-IV2: controller registration data".to_string())
    );
    assert_eq!(
        MetadataImage::new().to_records(),
        Err(WriteError::NoMetadataVersion)
    );
}

#[test]
fn repeated_names_keep_their_last_entry_and_order_does_not_matter() {
    // Kafka keeps a controller's listeners and features in maps.
    let mut r = registration(4, 33);
    let mut second = r.end_points.get(0).expect("one").into_owned();
    second.host = "ctl-4-b".into();
    second.port = 19093;
    r.end_points.push(second);
    let mut kraft = r.features.get(1).expect("two").into_owned();
    kraft.min_supported_version = 1;
    r.features.push(kraft);
    let c = ControllerRegistration::from_record(&r);
    assert_eq!(c.endpoints.len(), 1);
    assert_eq!(c.endpoint("CONTROLLER").map(|e| e.port), Some(19093));
    assert_eq!(c.supported_range("kraft.version"), VersionRange::new(1, 1));
    let mut reordered = c.clone();
    reordered.supported_features.reverse();
    assert_eq!(reordered, c);

    let features = |names: &[&str]| {
        let mut image = MetadataImage::new();
        image
            .replay(&MetadataRecord::feature_level("metadata.version", 33))
            .expect("replays");
        for n in names {
            image
                .replay(&MetadataRecord::feature_level(n, 1))
                .expect("replays");
        }
        image
    };
    assert_eq!(
        features(&["group.version", "share.version"]),
        features(&["share.version", "group.version"])
    );
    assert_ne!(features(&["group.version"]), features(&["share.version"]));
}

#[test]
fn values_are_the_encoded_records_across_shared_buffers() {
    use crate::replication::test_support::ImageBuilder;
    // About 3.7 MiB of records: the encodings span several shared buffers.
    let mut builder = ImageBuilder::new(33, true).brokers(&[1, 2, 3]);
    for t in 0..10_000u64 {
        let assignments: Vec<&[i32]> = vec![&[1, 2, 3], &[2, 3, 1], &[3, 1, 2]];
        builder = builder.topic(
            &format!("topic-{t}"),
            Uuid::from_u64_pair(7, t + 1),
            &assignments,
        );
    }
    let image = builder.build();
    let records = image.to_records().expect("records");
    let values = image.to_values().expect("values");
    assert_eq!(values.len(), records.len());
    let total: usize = values.iter().map(Bytes::len).sum();
    assert!(
        total > 2 * ENCODING_CHUNK_BYTES,
        "{total} bytes: the test must cross buffers"
    );
    for (i, (value, record)) in values.iter().zip(&records).enumerate() {
        assert_eq!(
            value.as_ref(),
            record.encode().expect("encodes").as_slice(),
            "record {i}"
        );
    }
}
