//! The metadata record dispatch: every record type at every version
//! round-trips as a framed value (`MetadataRecordSerde` layout), and a type
//! or version this implementation does not know is reported, not skipped.

use bytes::Bytes;
use kraft_protocol::records::{
    encode_metadata_record_header, MetadataRecordError, MetadataRecordHeader,
};
use kraft_protocol::sample::Rng;
use kraft_protocol::{Message, MetadataRecordBody, MetadataRecordType};

fn roundtrip(body: &MetadataRecordBody, version: i16) {
    let t = body.record_type();
    let value = body
        .encode(version)
        .unwrap_or_else(|e| panic!("{} v{version}: encode failed: {e}", t.name()));
    assert_eq!(
        value.len(),
        body.encoded_len(version),
        "{} v{version}",
        t.name()
    );
    // The frame, then exactly the body the record's own encoder writes.
    let mut frame = Vec::new();
    encode_metadata_record_header(&mut frame, t.id(), version);
    let mut body_only = Vec::new();
    body.encode_body(&mut body_only, version)
        .expect("body encodes");
    assert_eq!(
        value,
        [frame, body_only].concat(),
        "{} v{version}",
        t.name()
    );
    let (header, back) = MetadataRecordBody::decode(Bytes::from(value))
        .unwrap_or_else(|e| panic!("{} v{version}: decode failed: {e}", t.name()));
    assert_eq!(
        header,
        MetadataRecordHeader {
            api_key: t.id(),
            version
        }
    );
    assert_eq!(
        &back,
        body,
        "{} v{version}: round trip changed the value",
        t.name()
    );
}

#[test]
fn every_record_type_roundtrips_framed_at_every_version() {
    let mut checked = 0;
    for &t in MetadataRecordType::ALL {
        assert!(t.lowest_version() <= t.highest_version());
        for version in t.lowest_version()..=t.highest_version() {
            roundtrip(&MetadataRecordBody::default_of(t), version);
            for seed in 0..50u64 {
                let mut rng = Rng::new(seed * 31 + version as u64);
                roundtrip(
                    &MetadataRecordBody::sample_of(t, &mut rng, version),
                    version,
                );
                checked += 1;
            }
        }
    }
    assert!(checked >= 27 * 50, "only {checked} cases");
}

#[test]
fn record_types_are_the_metadata_schemas_and_nothing_else() {
    let names: Vec<&str> = MetadataRecordType::ALL.iter().map(|t| t.name()).collect();
    assert_eq!(names.len(), 27);
    for control in [
        "SnapshotHeaderRecord",
        "SnapshotFooterRecord",
        "KRaftVersionRecord",
        "VotersRecord",
        "LeaderChangeMessage",
    ] {
        assert!(
            !names.contains(&control),
            "{control} is not a metadata record"
        );
    }
    // Ids ascend and match each record's own RECORD_TYPE and versions.
    assert!(MetadataRecordType::ALL
        .windows(2)
        .all(|w| w[0].id() < w[1].id()));
    use kraft_protocol::messages::*;
    use kraft_protocol::Record;
    assert_eq!(
        MetadataRecordType::PartitionChange.id(),
        partition_change_record::PartitionChangeRecord::RECORD_TYPE
    );
    assert_eq!(
        MetadataRecordType::BrokerRegistrationChange.highest_version(),
        broker_registration_change_record::BrokerRegistrationChangeRecord::HIGHEST_VERSION
    );
    let body: MetadataRecordBody = topic_record::TopicRecord::default().into();
    assert_eq!(body.record_type(), MetadataRecordType::Topic);
}

#[test]
fn unknown_type_ids_are_reported_with_type_and_version() {
    let mut unknown = 0;
    for id in 0..=400i16 {
        let mut value = Vec::new();
        encode_metadata_record_header(&mut value, id, 3);
        value.push(0x00);
        match MetadataRecordType::from_i16(id) {
            Some(t) => assert_eq!(t.id(), id),
            None => {
                let err = MetadataRecordBody::decode(Bytes::from(value)).expect_err("unknown type");
                let header = MetadataRecordHeader {
                    api_key: id,
                    version: 3,
                };
                assert_eq!(err, MetadataRecordError::UnknownType(header));
                assert_eq!(err.header(), Some(header));
                unknown += 1;
            }
        }
    }
    assert_eq!(unknown, 401 - 27);
}

#[test]
fn a_version_above_the_highest_is_reported_for_every_type() {
    for &t in MetadataRecordType::ALL {
        let version = t.highest_version() + 1;
        let body = MetadataRecordBody::default_of(t);
        // A body as the highest version writes it, framed as the next version.
        let mut value = Vec::new();
        encode_metadata_record_header(&mut value, t.id(), version);
        body.encode_body(&mut value, t.highest_version())
            .expect("encodes");
        let err = MetadataRecordBody::decode(Bytes::from(value)).expect_err("unknown version");
        assert_eq!(
            err,
            MetadataRecordError::UnsupportedVersion {
                record_type: t,
                version
            }
        );
        assert_eq!(
            err.header(),
            Some(MetadataRecordHeader {
                api_key: t.id(),
                version
            })
        );
        assert!(
            body.encode(version).is_err(),
            "{} v{version} encoded",
            t.name()
        );
        let mut sink = Vec::new();
        assert!(body.encode_body(&mut sink, version).is_err());
    }
}
