//! Conversion between the core's [`Batch`] values and RecordBatch v2 bytes as
//! Kafka writes them to the `__cluster_metadata` log: data batches hold the
//! opaque data records as values with null keys; control batches hold one
//! control record per entry, keyed by the control-record type and valued by
//! the version-0 control message (LeaderChangeMessage, SnapshotHeaderRecord,
//! SnapshotFooterRecord, KRaftVersionRecord, VotersRecord).

use bytes::{Bytes, BytesMut};
use kraft_protocol::java_hash_map::JavaHashMap;
use kraft_protocol::messages::{
    k_raft_version_record::KRaftVersionRecord, leader_change_message,
    snapshot_footer_record::SnapshotFooterRecord, snapshot_header_record::SnapshotHeaderRecord,
    voters_record,
};
use kraft_protocol::records::{
    batches, ControlRecordType, NewRecord, RecordBatch, RecordBatchBuilder,
};
use kraft_protocol::{DecodeError, Message, StrBytes};

use crate::core::record::{Batch, ControlRecord, EncodedBatch, LeaderChangeMessage, Record};
use crate::core::types::{Endpoint, Endpoints, KRaftVersionRange, ReplicaKey};
use crate::core::voters::{VoterNode, VoterSet};

/// Encodes one control record's value (the control message at version 0).
fn control_value(record: &ControlRecord) -> (ControlRecordType, Vec<u8>) {
    let encoded = match record {
        ControlRecord::LeaderChange(l) => (
            ControlRecordType::LeaderChange,
            leader_change_message::LeaderChangeMessage {
                version: 0,
                leader_id: l.leader_id,
                voters: l
                    .voters
                    .iter()
                    .map(|&id| leader_change_message::Voter {
                        voter_id: id,
                        ..Default::default()
                    })
                    .collect(),
                granting_voters: l
                    .granting_voters
                    .iter()
                    .map(|&id| leader_change_message::Voter {
                        voter_id: id,
                        ..Default::default()
                    })
                    .collect(),
                ..Default::default()
            }
            .encode_to_vec(0),
        ),
        ControlRecord::SnapshotHeader {
            last_contained_log_timestamp,
        } => (
            ControlRecordType::SnapshotHeader,
            SnapshotHeaderRecord {
                version: 0,
                last_contained_log_timestamp: *last_contained_log_timestamp,
                ..Default::default()
            }
            .encode_to_vec(0),
        ),
        ControlRecord::SnapshotFooter => (
            ControlRecordType::SnapshotFooter,
            SnapshotFooterRecord {
                version: 0,
                ..Default::default()
            }
            .encode_to_vec(0),
        ),
        ControlRecord::KRaftVersion(level) => (
            ControlRecordType::KRaftVersion,
            KRaftVersionRecord {
                version: 0,
                k_raft_version: *level,
                ..Default::default()
            }
            .encode_to_vec(0),
        ),
        ControlRecord::Voters(set) => (
            ControlRecordType::KRaftVoters,
            voters_record_of(set).encode_to_vec(0),
        ),
    };
    match encoded {
        (kind, Ok(bytes)) => (kind, bytes),
        // Every field above exists at version 0; an encode error is impossible.
        (kind, Err(_)) => (kind, Vec::new()),
    }
}

/// The `VotersRecord` (version 0) of a voter set, its voters in the order
/// Kafka writes a set it built from ids in ascending order
/// (`DynamicVoters.toVoterSet`: a `HashMap` filled from a `TreeMap`, then
/// copied by `VoterSet.fromMap`). Kafka's order after a reconfiguration
/// follows the set's history and can differ for ids that share a hash
/// bucket; the sets are equal.
pub fn voters_record_of(set: &VoterSet) -> voters_record::VotersRecord {
    let filled = JavaHashMap::from_keys(set.nodes().map(|v| v.key.id));
    let order = JavaHashMap::copy_of(&filled);
    voters_record::VotersRecord {
        version: 0,
        voters: order
            .iter()
            .filter_map(|id| set.get(*id))
            .map(|v| voters_record::Voter {
                voter_id: v.key.id,
                voter_directory_id: v.key.directory_id.unwrap_or_default(),
                endpoints: v
                    .endpoints
                    .iter()
                    .map(|e| voters_record::Endpoint {
                        name: StrBytes::from(e.name.as_str()),
                        host: StrBytes::from(e.host.as_str()),
                        port: e.port,
                        ..Default::default()
                    })
                    .collect(),
                k_raft_version_feature: voters_record::KRaftVersionFeature {
                    min_supported_version: v.kraft_version.min,
                    max_supported_version: v.kraft_version.max,
                    ..Default::default()
                },
                ..Default::default()
            })
            .collect(),
        ..Default::default()
    }
}

/// The voter set of a `VotersRecord`.
pub fn voter_set_of(record: &voters_record::VotersRecord) -> VoterSet {
    VoterSet::new(record.voters.iter().map(|v| {
        let key = if v.voter_directory_id.is_nil() {
            ReplicaKey::without_directory(v.voter_id)
        } else {
            ReplicaKey::of(v.voter_id, v.voter_directory_id)
        };
        VoterNode::new(
            key,
            Endpoints::new(
                v.endpoints
                    .iter()
                    .map(|e| Endpoint::new(e.name.as_str(), e.host.as_str(), e.port)),
            ),
            KRaftVersionRange {
                min: v.k_raft_version_feature.min_supported_version,
                max: v.k_raft_version_feature.max_supported_version,
            },
        )
    }))
}

/// Writes `batch` as a RecordBatch v2 onto `out`.
pub fn encode_batch(batch: &Batch, out: &mut BytesMut) {
    if let Some(bytes) = batch.encoded.bytes() {
        out.extend_from_slice(bytes);
        return;
    }
    let controls: Vec<(ControlRecordType, Vec<u8>)> = batch
        .records
        .iter()
        .filter_map(|r| match r {
            Record::Control(c) => Some(control_value(c)),
            Record::Data(_) => None,
        })
        .collect();
    let mut builder = if batch.is_control() {
        RecordBatchBuilder::new_control(batch.base_offset, batch.epoch, batch.append_time)
    } else {
        RecordBatchBuilder::new(batch.base_offset, batch.epoch, batch.append_time)
    };
    builder = builder.with_max_timestamp(batch.append_time);
    let mut control_iter = controls.iter();
    for record in &batch.records {
        match record {
            Record::Data(value) => {
                builder.push(NewRecord::value(value));
            }
            Record::Control(_) => {
                if let Some((kind, value)) = control_iter.next() {
                    builder.push(NewRecord::control(*kind, value));
                }
            }
        }
    }
    builder.write_to(out);
}

/// Encodes batches into one buffer (a Fetch response's `Records`).
pub fn encode_batches(list: &[Batch]) -> Bytes {
    if let [one] = list {
        if let Some(bytes) = one.encoded.bytes() {
            return bytes.clone();
        }
    }
    let mut out = BytesMut::new();
    for b in list {
        encode_batch(b, &mut out);
    }
    out.freeze()
}

fn invalid(msg: impl Into<String>) -> DecodeError {
    DecodeError::InvalidRecords(msg.into())
}

fn decode_control(kind: ControlRecordType, value: Bytes) -> Result<ControlRecord, DecodeError> {
    // Control messages carry their own version in the first field; Kafka
    // reads them at version 0 whatever they claim.
    Ok(match kind {
        ControlRecordType::LeaderChange => {
            let m = leader_change_message::LeaderChangeMessage::decode_exact(value, 0)?;
            ControlRecord::LeaderChange(LeaderChangeMessage {
                leader_id: m.leader_id,
                voters: m.voters.iter().map(|v| v.voter_id).collect(),
                granting_voters: m.granting_voters.iter().map(|v| v.voter_id).collect(),
            })
        }
        ControlRecordType::SnapshotHeader => {
            let m = SnapshotHeaderRecord::decode_exact(value, 0)?;
            ControlRecord::SnapshotHeader {
                last_contained_log_timestamp: m.last_contained_log_timestamp,
            }
        }
        ControlRecordType::SnapshotFooter => {
            SnapshotFooterRecord::decode_exact(value, 0)?;
            ControlRecord::SnapshotFooter
        }
        ControlRecordType::KRaftVersion => {
            let m = KRaftVersionRecord::decode_exact(value, 0)?;
            ControlRecord::KRaftVersion(m.k_raft_version)
        }
        ControlRecordType::KRaftVoters => {
            let m = voters_record::VotersRecord::decode_exact(value, 0)?;
            ControlRecord::Voters(voter_set_of(&m))
        }
        other => {
            return Err(invalid(format!(
                "unsupported control record type {}",
                other.name()
            )))
        }
    })
}

/// Decodes one parsed RecordBatch into a core batch.
pub fn decode_batch(batch: &RecordBatch) -> Result<Batch, DecodeError> {
    let mut records = Vec::with_capacity(batch.records_count().clamp(0, 1024) as usize);
    for record in batch.records()? {
        let record = record?;
        if batch.is_control() {
            let kind = record.control_type()?;
            let value = record
                .value
                .clone()
                .ok_or_else(|| invalid("control record without a value"))?;
            records.push(Record::Control(decode_control(kind, value)?));
        } else {
            records.push(Record::Data(record.value.clone().unwrap_or_default()));
        }
    }
    if records.is_empty() {
        return Err(invalid("empty batch"));
    }
    if records.len() as i64 != i64::from(batch.last_offset_delta()) + 1 {
        return Err(invalid(
            "records count does not match the batch's offset range",
        ));
    }
    Ok(Batch {
        base_offset: batch.base_offset(),
        epoch: batch.partition_leader_epoch(),
        append_time: batch.base_timestamp(),
        records,
        encoded: EncodedBatch::of(batch.as_bytes().clone()),
    })
}

/// Decodes every whole batch in `data` (a trailing partial batch, as a Fetch
/// response may carry, is ignored).
pub fn decode_batches(data: Bytes) -> Result<Vec<Batch>, DecodeError> {
    let mut out = Vec::new();
    for batch in batches(data) {
        out.push(decode_batch(&batch?)?);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn voters() -> VoterSet {
        VoterSet::new([
            VoterNode::new(
                ReplicaKey::of(1, uuid::Uuid::from_u64_pair(1, 1)),
                Endpoints::single("CONTROLLER", "localhost", 9093),
                KRaftVersionRange { min: 0, max: 1 },
            ),
            VoterNode::new(
                ReplicaKey::of(2, uuid::Uuid::from_u64_pair(2, 2)),
                Endpoints::single("CONTROLLER", "localhost", 9094),
                KRaftVersionRange { min: 0, max: 1 },
            ),
        ])
    }

    #[test]
    fn control_and_data_batches_round_trip() {
        let control = Batch {
            base_offset: 0,
            epoch: 3,
            append_time: 1_700_000_000_000,
            records: vec![
                Record::Control(ControlRecord::LeaderChange(LeaderChangeMessage {
                    leader_id: 1,
                    voters: vec![1, 2],
                    granting_voters: vec![1],
                })),
                Record::Control(ControlRecord::KRaftVersion(1)),
                Record::Control(ControlRecord::Voters(voters())),
            ],
            encoded: Default::default(),
        };
        let data = Batch {
            base_offset: 3,
            epoch: 3,
            append_time: 1_700_000_000_001,
            records: vec![
                Record::Data(Bytes::from_static(b"a")),
                Record::Data(Bytes::from_static(b"bc")),
            ],
            encoded: Default::default(),
        };
        let bytes = encode_batches(&[control.clone(), data.clone()]);
        let back = decode_batches(bytes).expect("decodes");
        assert_eq!(back, vec![control, data]);
    }

    /// A KRAFT_VERSION control batch written by Kafka 4.4.0 (KRaftVersionRecord.json,
    /// checked against `MemoryRecords` by the golden-vector driver) decodes.
    #[test]
    fn voters_record_matches_kafka_field_layout() {
        let rec = voters_record_of(&voters());
        let bytes = rec.encode_to_vec(0).expect("encodes");
        // version 0, 2 voters, first voter id 1
        assert_eq!(&bytes[..7], &[0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x01]);
        assert_eq!(voter_set_of(&rec), voters());
    }
}
