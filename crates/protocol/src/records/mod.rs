//! Record batches (v2, magic 2) as KRaft stores and replicates them.
//!
//! * [`batches`] / [`RecordBatch`]: zero-copy, validating readers. A batch is
//!   a view over a [`bytes::Bytes`]; record keys, values and header values are
//!   slices of it. A partial batch at the end of a buffer is reported by
//!   [`Batches::partial_tail`], distinct from corruption (an `Err`).
//! * [`RecordBatchBuilder`]: writes an uncompressed data or control batch and
//!   its CRC-32C.
//! * [`ControlRecordType`]: control record keys.
//! * [`encode_metadata_record_header`] / [`decode_metadata_record_header`]:
//!   the frame in front of every metadata record value;
//!   [`MetadataRecordBody::decode`] / [`MetadataRecordBody::encode`]: a whole
//!   framed value of any [`MetadataRecordType`].
//!
//! Layout (KIP-98, Kafka's `DefaultRecordBatch` and `DefaultRecord`): a 61-byte header (baseOffset, batchLength,
//! partitionLeaderEpoch, magic, crc, attributes, lastOffsetDelta,
//! baseTimestamp, maxTimestamp, producerId, producerEpoch, baseSequence,
//! recordsCount), then records framed with zig-zag varints. The CRC covers the
//! bytes from `attributes` to the end of the batch.

mod batch;
mod builder;
mod control;
mod metadata;

pub use crate::generated::metadata_record::{MetadataRecordBody, MetadataRecordType};

/// Name of the metadata topic.
pub const METADATA_TOPIC: &str = "__cluster_metadata";
/// Fixed topic id of the metadata topic (`Uuid.ONE_UUID`).
pub const METADATA_TOPIC_ID: crate::Uuid = crate::Uuid::from_u64_pair(0, 1);
pub use batch::{
    batches, BatchAttributes, Batches, Compression, PartialBatch, Record, RecordBatch,
    RecordBatchHeader, RecordHeader, Records, TimestampType, LOG_OVERHEAD, MAGIC_V2,
    MIN_BATCH_LENGTH, NO_PARTITION_LEADER_EPOCH, NO_PRODUCER_EPOCH, NO_PRODUCER_ID, NO_SEQUENCE,
    RECORD_BATCH_OVERHEAD,
};
pub use builder::{NewHeader, NewRecord, RecordBatchBuilder};
pub use control::{ControlRecordType, CONTROL_KEY_SIZE, CONTROL_KEY_VERSION};
pub use metadata::{
    decode_metadata_record_header, encode_metadata_record_header, metadata_record_header_len,
    MetadataRecordError, MetadataRecordHeader, METADATA_FRAME_VERSION,
};

#[cfg(test)]
mod tests;
