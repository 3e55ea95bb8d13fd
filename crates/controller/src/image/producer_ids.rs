//! The next producer id block (Kafka's `ProducerIdsImage` /
//! `ProducerIdsDelta`).

use kraft_protocol::messages::producer_ids_record::ProducerIdsRecord;

use super::{MetadataRecord, RecordSink, ReplayError, WriteError, WriteOptions};

/// The next producer id to hand out (Kafka's `ProducerIdsImage`): -1 until a
/// ProducerIdsRecord is replayed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProducerIdsImage {
    next_producer_id: i64,
}

impl Default for ProducerIdsImage {
    fn default() -> Self {
        ProducerIdsImage {
            next_producer_id: -1,
        }
    }
}

impl ProducerIdsImage {
    /// The next producer id, or -1 when no producer id has been issued.
    pub fn next_producer_id(&self) -> i64 {
        self.next_producer_id
    }

    /// Whether no producer id has been issued (Kafka's `isEmpty`).
    pub fn is_empty(&self) -> bool {
        self.next_producer_id == -1
    }

    /// Kafka's `ProducerIdsDelta.replay`: the record's next producer id
    /// replaces the image's, unchecked (the broker id and epoch are not kept).
    pub(super) fn replay(&mut self, r: &ProducerIdsRecord) -> Result<(), ReplayError> {
        self.next_producer_id = r.next_producer_id;
        Ok(())
    }

    /// Kafka's `ProducerIdsImage.write`: a ProducerIdsRecord (v0, broker id
    /// and epoch -1) when the next producer id is not negative, else nothing.
    pub(super) fn write(
        &self,
        _options: &WriteOptions,
        out: &mut impl RecordSink,
    ) -> Result<(), WriteError> {
        if self.next_producer_id >= 0 {
            out.push(MetadataRecord::new(
                ProducerIdsRecord {
                    broker_id: -1,
                    broker_epoch: -1,
                    next_producer_id: self.next_producer_id,
                    ..Default::default()
                },
                0,
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::image::MetadataImage;

    fn producer_ids(broker_id: i32, broker_epoch: i64, next_producer_id: i64) -> MetadataRecord {
        MetadataRecord::new(
            ProducerIdsRecord {
                broker_id,
                broker_epoch,
                next_producer_id,
                ..Default::default()
            },
            0,
        )
    }

    fn mv() -> MetadataRecord {
        MetadataRecord::feature_level("metadata.version", 33)
    }

    #[test]
    fn an_empty_image_writes_nothing() {
        let image = MetadataImage::from_records(&[mv()]).expect("image");
        assert!(image.producer_ids().is_empty());
        assert_eq!(image.producer_ids().next_producer_id(), -1);
        assert_eq!(image.to_records().expect("write"), vec![mv()]);
    }

    /// Kafka's ProducerIdsImageFixtures: IMAGE1 (123) + DELTA1 = IMAGE2 (800).
    #[test]
    fn kafka_image1_plus_delta1_is_image2_and_round_trips() {
        let mut image =
            MetadataImage::from_records(&[mv(), producer_ids(-1, -1, 123)]).expect("image1");
        assert_eq!(image.producer_ids().next_producer_id(), 123);
        for r in [
            producer_ids(2, 100, 456),
            producer_ids(3, 100, 780),
            producer_ids(3, 100, 785),
            producer_ids(2, 100, 800),
        ] {
            image.replay(&r).expect("delta1");
        }
        assert_eq!(image.producer_ids().next_producer_id(), 800);
        let records = image.to_records().expect("write");
        assert_eq!(records, vec![mv(), producer_ids(-1, -1, 800)]);
        assert_eq!(
            MetadataImage::from_records(&records).expect("reload"),
            image
        );
    }

    /// Every part of this change in one image, through framed values (each
    /// record encoded at the version written and decoded back).
    #[test]
    fn six_parts_round_trip_through_framed_snapshot_values() {
        use bytes::Bytes;
        use kraft_protocol::messages::access_control_entry_record::AccessControlEntryRecord;
        use kraft_protocol::messages::client_quota_record::{ClientQuotaRecord, EntityData};
        use kraft_protocol::messages::config_record::ConfigRecord;
        use kraft_protocol::messages::delegation_token_record::DelegationTokenRecord;
        use kraft_protocol::messages::user_scram_credential_record::UserScramCredentialRecord;
        let records = vec![
            mv(),
            MetadataRecord::new(
                ConfigRecord {
                    resource_type: 4,
                    resource_name: "".into(),
                    name: "log.retention.ms".into(),
                    value: Some("1000".into()),
                    ..Default::default()
                },
                0,
            ),
            MetadataRecord::new(
                ClientQuotaRecord {
                    entity: vec![EntityData {
                        entity_type: "user".into(),
                        entity_name: None,
                        ..Default::default()
                    }]
                    .into(),
                    key: "request_percentage".into(),
                    value: 12.5,
                    ..Default::default()
                },
                0,
            ),
            producer_ids(-1, -1, 5000),
            MetadataRecord::new(
                AccessControlEntryRecord {
                    id: kraft_protocol::Uuid::from_u64_pair(1, 2),
                    resource_type: 2,
                    resource_name: "t".into(),
                    pattern_type: 3,
                    principal: "User:a".into(),
                    host: "*".into(),
                    operation: 3,
                    permission_type: 3,
                    ..Default::default()
                },
                0,
            ),
            MetadataRecord::new(
                UserScramCredentialRecord {
                    name: "a".into(),
                    mechanism: 2,
                    salt: Bytes::from_static(b"salt"),
                    stored_key: Bytes::from_static(b"stored"),
                    server_key: Bytes::from_static(b"server"),
                    iterations: 8192,
                    ..Default::default()
                },
                0,
            ),
            MetadataRecord::new(
                DelegationTokenRecord {
                    owner: "User:a".into(),
                    requester: "User:b".into(),
                    renewers: vec!["User:c".into()],
                    issue_timestamp: 1,
                    max_timestamp: 3,
                    expiration_timestamp: 2,
                    token_id: "tok".into(),
                    ..Default::default()
                },
                0,
            ),
        ];
        let image = MetadataImage::from_records(&records).expect("image");
        assert_eq!(image.to_records().expect("write"), records);
        let values = image.to_values().expect("frame");
        let reloaded = MetadataImage::from_snapshot_values(values, 41).expect("reload");
        assert_eq!(reloaded.not_understood().count(), 0);
        assert_eq!(reloaded.to_records().expect("rewrite"), records);
    }

    #[test]
    fn a_lower_next_producer_id_is_taken_as_is() {
        let image =
            MetadataImage::from_records(&[mv(), producer_ids(1, 5, 1000), producer_ids(1, 5, 10)])
                .expect("image");
        assert_eq!(image.producer_ids().next_producer_id(), 10);
    }
}
