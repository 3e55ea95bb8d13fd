//! Zero-copy reading of v2 record batches.

use bytes::Bytes;

use super::control::ControlRecordType;
use crate::wire::{bounded_capacity, get_i8, get_varint, get_varlong};
use crate::DecodeError;

/// The only batch format this crate reads and writes (`magic` = 2).
pub const MAGIC_V2: i8 = 2;
/// Bytes before the part counted by `batchLength`: baseOffset + batchLength.
pub const LOG_OVERHEAD: usize = 12;
/// Size of the v2 batch header; the first record starts here.
pub const RECORD_BATCH_OVERHEAD: usize = 61;
/// Smallest valid `batchLength` (a header without records).
pub const MIN_BATCH_LENGTH: i32 = (RECORD_BATCH_OVERHEAD - LOG_OVERHEAD) as i32;
/// `producerId` of a batch written without an idempotent producer.
pub const NO_PRODUCER_ID: i64 = -1;
/// `producerEpoch` of a batch written without an idempotent producer.
pub const NO_PRODUCER_EPOCH: i16 = -1;
/// `baseSequence` of a batch written without an idempotent producer.
pub const NO_SEQUENCE: i32 = -1;
/// `partitionLeaderEpoch` when no epoch is known.
pub const NO_PARTITION_LEADER_EPOCH: i32 = -1;

pub(crate) const BASE_OFFSET_OFFSET: usize = 0;
pub(crate) const LENGTH_OFFSET: usize = 8;
pub(crate) const PARTITION_LEADER_EPOCH_OFFSET: usize = 12;
pub(crate) const MAGIC_OFFSET: usize = 16;
pub(crate) const CRC_OFFSET: usize = 17;
pub(crate) const ATTRIBUTES_OFFSET: usize = 21;
pub(crate) const LAST_OFFSET_DELTA_OFFSET: usize = 23;
pub(crate) const BASE_TIMESTAMP_OFFSET: usize = 27;
pub(crate) const MAX_TIMESTAMP_OFFSET: usize = 35;
pub(crate) const PRODUCER_ID_OFFSET: usize = 43;
pub(crate) const PRODUCER_EPOCH_OFFSET: usize = 51;
pub(crate) const BASE_SEQUENCE_OFFSET: usize = 53;
pub(crate) const RECORDS_COUNT_OFFSET: usize = 57;

/// Smallest possible encoded record: length, attributes, timestampDelta,
/// offsetDelta, key length, value length and header count, one byte each.
const MIN_RECORD_SIZE: usize = 7;
/// Smallest possible encoded record header: key length and value length.
const MIN_HEADER_SIZE: usize = 2;

/// Compression codec of a batch (attribute bits 0-2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Compression {
    /// Uncompressed (id 0); the only codec KRaft writes.
    None,
    /// gzip (id 1).
    Gzip,
    /// Snappy (id 2).
    Snappy,
    /// LZ4 (id 3).
    Lz4,
    /// Zstandard (id 4).
    Zstd,
}

impl Compression {
    /// The codec's id in the attribute bits.
    pub const fn id(self) -> u8 {
        match self {
            Compression::None => 0,
            Compression::Gzip => 1,
            Compression::Snappy => 2,
            Compression::Lz4 => 3,
            Compression::Zstd => 4,
        }
    }

    /// The codec with this id, if Kafka defines one.
    pub const fn from_id(id: u8) -> Option<Compression> {
        match id {
            0 => Some(Compression::None),
            1 => Some(Compression::Gzip),
            2 => Some(Compression::Snappy),
            3 => Some(Compression::Lz4),
            4 => Some(Compression::Zstd),
            _ => None,
        }
    }

    /// Kafka's name for the codec (`none`, `gzip`, `snappy`, `lz4`, `zstd`).
    pub const fn name(self) -> &'static str {
        match self {
            Compression::None => "none",
            Compression::Gzip => "gzip",
            Compression::Snappy => "snappy",
            Compression::Lz4 => "lz4",
            Compression::Zstd => "zstd",
        }
    }
}

/// How a batch's timestamps were assigned (attribute bit 3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TimestampType {
    /// Set by the producer (bit clear); what KRaft writes.
    CreateTime,
    /// Set by the broker on append (bit set); every record's timestamp is `maxTimestamp`.
    LogAppendTime,
}

/// The 16-bit `attributes` field of a v2 batch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct BatchAttributes(i16);

impl BatchAttributes {
    const COMPRESSION_MASK: i16 = 0x07;
    const TIMESTAMP_TYPE_MASK: i16 = 0x08;
    const TRANSACTIONAL_MASK: i16 = 0x10;
    const CONTROL_MASK: i16 = 0x20;
    const DELETE_HORIZON_MASK: i16 = 0x40;

    /// Attributes of a KRaft data batch (all bits clear).
    pub const DATA: BatchAttributes = BatchAttributes(0);
    /// Attributes of a KRaft control batch (only the control bit, 0x20).
    pub const CONTROL: BatchAttributes = BatchAttributes(Self::CONTROL_MASK);

    /// Wraps raw attribute bits.
    pub const fn from_bits(bits: i16) -> Self {
        BatchAttributes(bits)
    }

    /// The raw attribute bits.
    pub const fn bits(self) -> i16 {
        self.0
    }

    /// The compression codec id (bits 0-2), which may be undefined (5-7).
    pub const fn compression_id(self) -> u8 {
        (self.0 & Self::COMPRESSION_MASK) as u8
    }

    /// The compression codec, or `None` for an undefined id.
    pub const fn compression(self) -> Option<Compression> {
        Compression::from_id(self.compression_id())
    }

    /// The timestamp type (bit 3).
    pub const fn timestamp_type(self) -> TimestampType {
        if self.0 & Self::TIMESTAMP_TYPE_MASK != 0 {
            TimestampType::LogAppendTime
        } else {
            TimestampType::CreateTime
        }
    }

    /// Whether the batch belongs to a transaction (bit 4).
    pub const fn is_transactional(self) -> bool {
        self.0 & Self::TRANSACTIONAL_MASK != 0
    }

    /// Whether the batch holds control records (bit 5).
    pub const fn is_control(self) -> bool {
        self.0 & Self::CONTROL_MASK != 0
    }

    /// Whether `baseTimestamp` holds a delete horizon (bit 6).
    pub const fn has_delete_horizon(self) -> bool {
        self.0 & Self::DELETE_HORIZON_MASK != 0
    }

    /// These attributes with the control bit set or cleared.
    pub const fn with_control(self, control: bool) -> Self {
        if control {
            BatchAttributes(self.0 | Self::CONTROL_MASK)
        } else {
            BatchAttributes(self.0 & !Self::CONTROL_MASK)
        }
    }

    /// These attributes with the transactional bit set or cleared.
    pub const fn with_transactional(self, transactional: bool) -> Self {
        if transactional {
            BatchAttributes(self.0 | Self::TRANSACTIONAL_MASK)
        } else {
            BatchAttributes(self.0 & !Self::TRANSACTIONAL_MASK)
        }
    }
}

#[inline]
fn be_i16(b: &[u8], at: usize) -> i16 {
    i16::from_be_bytes([b[at], b[at + 1]])
}

#[inline]
fn be_i32(b: &[u8], at: usize) -> i32 {
    i32::from_be_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

#[inline]
fn be_i64(b: &[u8], at: usize) -> i64 {
    let mut a = [0u8; 8];
    a.copy_from_slice(&b[at..at + 8]);
    i64::from_be_bytes(a)
}

/// CRC-32C of a batch's bytes from `attributes` to the end, as stored in its
/// `crc` field. `batch` must be at least [`RECORD_BATCH_OVERHEAD`] bytes.
pub(crate) fn compute_crc(batch: &[u8]) -> u32 {
    crc32c::crc32c(&batch[ATTRIBUTES_OFFSET..])
}

/// Checks the part of a batch header that says how big the batch is.
/// Returns the batch's total size, or `None` if `data` is too short to know.
fn declared_size(data: &[u8]) -> Result<Option<usize>, DecodeError> {
    if data.len() < LOG_OVERHEAD {
        return Ok(None);
    }
    let length = be_i32(data, LENGTH_OFFSET);
    if length < MIN_BATCH_LENGTH {
        return Err(DecodeError::InvalidRecords(format!(
            "batch length {length} is smaller than the minimum {MIN_BATCH_LENGTH}"
        )));
    }
    if data.len() > MAGIC_OFFSET {
        check_magic(data[MAGIC_OFFSET] as i8)?;
    }
    Ok(Some(length as usize + LOG_OVERHEAD))
}

fn check_magic(magic: i8) -> Result<(), DecodeError> {
    if magic == MAGIC_V2 {
        Ok(())
    } else {
        Err(DecodeError::InvalidRecords(format!(
            "unsupported record batch magic {magic} (only v2 is supported)"
        )))
    }
}

/// The fixed 61-byte header of a v2 batch, read without the records (and
/// without checking the CRC, which needs the whole batch). Used to walk a log
/// segment batch by batch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RecordBatchHeader {
    /// `baseOffset`.
    pub base_offset: i64,
    /// `batchLength` (total size − 12).
    pub batch_length: i32,
    /// `partitionLeaderEpoch`.
    pub partition_leader_epoch: i32,
    /// `magic` (always 2).
    pub magic: i8,
    /// `crc` as stored.
    pub crc: u32,
    /// `attributes`.
    pub attributes: BatchAttributes,
    /// `lastOffsetDelta`.
    pub last_offset_delta: i32,
    /// `baseTimestamp`.
    pub base_timestamp: i64,
    /// `maxTimestamp`.
    pub max_timestamp: i64,
    /// `producerId`.
    pub producer_id: i64,
    /// `producerEpoch`.
    pub producer_epoch: i16,
    /// `baseSequence`.
    pub base_sequence: i32,
    /// `recordsCount`.
    pub records_count: i32,
}

impl RecordBatchHeader {
    /// Parses the header from the first [`RECORD_BATCH_OVERHEAD`] bytes of
    /// `data` (more may follow). Checks the length field and the magic.
    pub fn parse(data: &[u8]) -> Result<RecordBatchHeader, DecodeError> {
        if data.len() < RECORD_BATCH_OVERHEAD {
            return Err(DecodeError::UnexpectedEof {
                needed: RECORD_BATCH_OVERHEAD,
                remaining: data.len(),
            });
        }
        declared_size(data)?;
        Ok(RecordBatchHeader {
            base_offset: be_i64(data, BASE_OFFSET_OFFSET),
            batch_length: be_i32(data, LENGTH_OFFSET),
            partition_leader_epoch: be_i32(data, PARTITION_LEADER_EPOCH_OFFSET),
            magic: data[MAGIC_OFFSET] as i8,
            crc: be_i32(data, CRC_OFFSET) as u32,
            attributes: BatchAttributes::from_bits(be_i16(data, ATTRIBUTES_OFFSET)),
            last_offset_delta: be_i32(data, LAST_OFFSET_DELTA_OFFSET),
            base_timestamp: be_i64(data, BASE_TIMESTAMP_OFFSET),
            max_timestamp: be_i64(data, MAX_TIMESTAMP_OFFSET),
            producer_id: be_i64(data, PRODUCER_ID_OFFSET),
            producer_epoch: be_i16(data, PRODUCER_EPOCH_OFFSET),
            base_sequence: be_i32(data, BASE_SEQUENCE_OFFSET),
            records_count: be_i32(data, RECORDS_COUNT_OFFSET),
        })
    }

    /// The declared total size of a batch from its first 12 bytes (the
    /// `batchLength` field + 12), checking it is at least the header size.
    /// `None` if `prefix` is shorter than [`LOG_OVERHEAD`].
    pub fn size_from_prefix(prefix: &[u8]) -> Result<Option<usize>, DecodeError> {
        declared_size(prefix)
    }

    /// Total size of the batch in bytes.
    pub fn size_in_bytes(&self) -> usize {
        self.batch_length as usize + LOG_OVERHEAD
    }

    /// Offset of the last record.
    pub fn last_offset(&self) -> i64 {
        self.base_offset
            .saturating_add(i64::from(self.last_offset_delta))
    }

    /// Offset after the batch.
    pub fn next_offset(&self) -> i64 {
        self.last_offset().saturating_add(1)
    }
}

/// One validated v2 record batch: a zero-copy view over its bytes.
///
/// Construction ([`RecordBatch::parse`] or [`batches`]) checks the size,
/// magic, CRC and compression id; header accessors then read the bytes
/// directly. Records are decoded lazily by [`RecordBatch::records`], and their
/// keys, values and header values are slices of the same buffer.
#[derive(Clone, PartialEq, Eq)]
pub struct RecordBatch {
    data: Bytes,
}

impl std::fmt::Debug for RecordBatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RecordBatch")
            .field("base_offset", &self.base_offset())
            .field("last_offset_delta", &self.last_offset_delta())
            .field("partition_leader_epoch", &self.partition_leader_epoch())
            .field("attributes", &self.attributes())
            .field("records_count", &self.records_count())
            .field("size", &self.size_in_bytes())
            .finish()
    }
}

impl RecordBatch {
    /// Validates `data` as exactly one v2 batch (size, magic, CRC-32C and
    /// compression id). Trailing bytes are an error; use [`batches`] for a
    /// buffer that holds several.
    pub fn parse(data: Bytes) -> Result<RecordBatch, DecodeError> {
        let size = match declared_size(&data)? {
            Some(size) => size,
            None => {
                return Err(DecodeError::UnexpectedEof {
                    needed: LOG_OVERHEAD,
                    remaining: data.len(),
                })
            }
        };
        if data.len() < size {
            return Err(DecodeError::UnexpectedEof {
                needed: size,
                remaining: data.len(),
            });
        }
        if data.len() > size {
            return Err(DecodeError::TrailingBytes(data.len() - size));
        }
        Self::validate_complete(data)
    }

    /// Like [`RecordBatch::parse`] but without the CRC check, for tools that
    /// show a damaged batch as it is (Kafka's `DumpLogSegments` prints its
    /// records and `isvalid: false`); [`RecordBatch::crc_matches`] tells
    /// whether the CRC holds. Size, magic and compression id are checked.
    pub fn parse_unverified(data: Bytes) -> Result<RecordBatch, DecodeError> {
        match declared_size(&data)? {
            Some(size) if size == data.len() => {}
            Some(size) if size > data.len() => {
                return Err(DecodeError::UnexpectedEof {
                    needed: size,
                    remaining: data.len(),
                })
            }
            Some(size) => return Err(DecodeError::TrailingBytes(data.len() - size)),
            None => {
                return Err(DecodeError::UnexpectedEof {
                    needed: LOG_OVERHEAD,
                    remaining: data.len(),
                })
            }
        }
        if data.len() < RECORD_BATCH_OVERHEAD {
            return Err(DecodeError::UnexpectedEof {
                needed: RECORD_BATCH_OVERHEAD,
                remaining: data.len(),
            });
        }
        check_magic(data[MAGIC_OFFSET] as i8)?;
        Self::check_body(RecordBatch { data })
    }

    /// Whether the stored CRC-32C matches the batch's bytes (always true for
    /// a batch from [`RecordBatch::parse`] or [`batches`]).
    pub fn crc_matches(&self) -> bool {
        self.crc() == compute_crc(&self.data)
    }

    /// Validates a buffer already known to be exactly one batch long.
    fn validate_complete(data: Bytes) -> Result<RecordBatch, DecodeError> {
        check_magic(data[MAGIC_OFFSET] as i8)?;
        let stored = be_i32(&data, CRC_OFFSET) as u32;
        let computed = compute_crc(&data);
        if stored != computed {
            return Err(DecodeError::CrcMismatch { stored, computed });
        }
        Self::check_body(RecordBatch { data })
    }

    /// The checks after the CRC: compression id and record count.
    fn check_body(batch: RecordBatch) -> Result<RecordBatch, DecodeError> {
        let attributes = batch.attributes();
        if attributes.compression().is_none() {
            return Err(DecodeError::InvalidRecords(format!(
                "unknown compression type id {}",
                attributes.compression_id()
            )));
        }
        if batch.records_count() < 0 {
            return Err(DecodeError::InvalidRecords(format!(
                "negative record count {}",
                batch.records_count()
            )));
        }
        Ok(batch)
    }

    /// All header fields at once.
    pub fn header(&self) -> RecordBatchHeader {
        RecordBatchHeader {
            base_offset: self.base_offset(),
            batch_length: self.batch_length(),
            partition_leader_epoch: self.partition_leader_epoch(),
            magic: self.magic(),
            crc: self.crc(),
            attributes: self.attributes(),
            last_offset_delta: self.last_offset_delta(),
            base_timestamp: self.base_timestamp(),
            max_timestamp: self.max_timestamp(),
            producer_id: self.producer_id(),
            producer_epoch: self.producer_epoch(),
            base_sequence: self.base_sequence(),
            records_count: self.records_count(),
        }
    }

    /// Offset of the first record (`baseOffset`).
    pub fn base_offset(&self) -> i64 {
        be_i64(&self.data, BASE_OFFSET_OFFSET)
    }

    /// The `batchLength` field: the batch size minus [`LOG_OVERHEAD`].
    pub fn batch_length(&self) -> i32 {
        be_i32(&self.data, LENGTH_OFFSET)
    }

    /// Epoch of the leader that appended the batch (the Raft epoch; for a
    /// snapshot, the snapshot's epoch).
    pub fn partition_leader_epoch(&self) -> i32 {
        be_i32(&self.data, PARTITION_LEADER_EPOCH_OFFSET)
    }

    /// The `magic` byte (always 2 here).
    pub fn magic(&self) -> i8 {
        self.data[MAGIC_OFFSET] as i8
    }

    /// The stored CRC-32C (verified at construction).
    pub fn crc(&self) -> u32 {
        be_i32(&self.data, CRC_OFFSET) as u32
    }

    /// The attribute bits.
    pub fn attributes(&self) -> BatchAttributes {
        BatchAttributes::from_bits(be_i16(&self.data, ATTRIBUTES_OFFSET))
    }

    /// The compression codec (validated at construction).
    pub fn compression(&self) -> Compression {
        self.attributes().compression().unwrap_or(Compression::None)
    }

    /// Whether the batch holds control records.
    pub fn is_control(&self) -> bool {
        self.attributes().is_control()
    }

    /// Whether the batch is transactional.
    pub fn is_transactional(&self) -> bool {
        self.attributes().is_transactional()
    }

    /// The timestamp type.
    pub fn timestamp_type(&self) -> TimestampType {
        self.attributes().timestamp_type()
    }

    /// The `lastOffsetDelta` field.
    pub fn last_offset_delta(&self) -> i32 {
        be_i32(&self.data, LAST_OFFSET_DELTA_OFFSET)
    }

    /// Offset of the last record: `baseOffset + lastOffsetDelta`.
    pub fn last_offset(&self) -> i64 {
        self.base_offset()
            .saturating_add(i64::from(self.last_offset_delta()))
    }

    /// Offset just after the batch: `last_offset() + 1`.
    pub fn next_offset(&self) -> i64 {
        self.last_offset().saturating_add(1)
    }

    /// The `baseTimestamp` field.
    pub fn base_timestamp(&self) -> i64 {
        be_i64(&self.data, BASE_TIMESTAMP_OFFSET)
    }

    /// The `maxTimestamp` field.
    pub fn max_timestamp(&self) -> i64 {
        be_i64(&self.data, MAX_TIMESTAMP_OFFSET)
    }

    /// The `producerId` field (-1 in KRaft).
    pub fn producer_id(&self) -> i64 {
        be_i64(&self.data, PRODUCER_ID_OFFSET)
    }

    /// The `producerEpoch` field (-1 in KRaft).
    pub fn producer_epoch(&self) -> i16 {
        be_i16(&self.data, PRODUCER_EPOCH_OFFSET)
    }

    /// The `baseSequence` field (-1 in KRaft).
    pub fn base_sequence(&self) -> i32 {
        be_i32(&self.data, BASE_SEQUENCE_OFFSET)
    }

    /// The `recordsCount` field (non-negative, checked at construction; not
    /// yet checked against the records themselves).
    pub fn records_count(&self) -> i32 {
        be_i32(&self.data, RECORDS_COUNT_OFFSET)
    }

    /// Total size of the batch in bytes.
    pub fn size_in_bytes(&self) -> usize {
        self.data.len()
    }

    /// The batch's bytes, exactly as read.
    pub fn as_bytes(&self) -> &Bytes {
        &self.data
    }

    /// The batch's bytes, exactly as read.
    pub fn into_bytes(self) -> Bytes {
        self.data
    }

    /// The record bytes after the header (compressed if the batch is).
    pub fn records_payload(&self) -> Bytes {
        self.data.slice(RECORD_BATCH_OVERHEAD..)
    }

    /// An iterator over the records of an uncompressed batch.
    ///
    /// A compressed batch is an error (this crate does not decompress;
    /// KRaft never writes compressed batches). A record count that the
    /// payload cannot possibly hold fails here, before anything is read.
    pub fn records(&self) -> Result<Records, DecodeError> {
        let compression = self.compression();
        if compression != Compression::None {
            return Err(DecodeError::InvalidRecords(format!(
                "batch at offset {} is {}-compressed; compressed batches are not supported",
                self.base_offset(),
                compression.name()
            )));
        }
        let payload = self.records_payload();
        let count = self.records_count() as usize;
        if count > payload.len() / MIN_RECORD_SIZE {
            return Err(DecodeError::InvalidRecords(format!(
                "record count {count} cannot fit in {} bytes of records",
                payload.len()
            )));
        }
        let log_append_time = match self.timestamp_type() {
            TimestampType::LogAppendTime => Some(self.max_timestamp()),
            TimestampType::CreateTime => None,
        };
        Ok(Records {
            buf: payload,
            base_offset: self.base_offset(),
            base_timestamp: self.base_timestamp(),
            log_append_time,
            remaining: count,
            failed: false,
        })
    }

    /// Decodes every record once to check the batch is well formed: record
    /// framing, no bytes after the last record, offset deltas strictly
    /// increasing and none above `lastOffsetDelta`, and control records (with
    /// valid control keys) exactly in control batches.
    pub fn validate_records(&self) -> Result<(), DecodeError> {
        let mut previous: Option<i32> = None;
        let last = self.last_offset_delta();
        let control = self.is_control();
        for record in self.records()? {
            let record = record?;
            let delta = record.offset_delta;
            if previous.is_some_and(|p| delta <= p) || delta < 0 || delta > last {
                return Err(DecodeError::InvalidRecords(format!(
                    "record offset delta {delta} out of order (previous {previous:?}, last {last})"
                )));
            }
            previous = Some(delta);
            if control {
                record.control_type()?;
            }
        }
        Ok(())
    }
}

/// A record header (key and nullable value), zero-copy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordHeader {
    /// The header key (UTF-8 by convention; not checked).
    pub key: Bytes,
    /// The header value (`None` = null).
    pub value: Option<Bytes>,
}

/// One decoded record of a v2 batch; key, value and headers are slices of
/// the batch's buffer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    /// The record's own attributes byte (unused, 0).
    pub attributes: i8,
    /// Absolute offset: batch base offset + `offset_delta`.
    pub offset: i64,
    /// Offset relative to the batch's base offset.
    pub offset_delta: i32,
    /// Absolute timestamp (the batch's `maxTimestamp` under log-append time).
    pub timestamp: i64,
    /// Timestamp relative to the batch's base timestamp, as stored.
    pub timestamp_delta: i64,
    /// The key (`None` = null; KRaft data records have a null key).
    pub key: Option<Bytes>,
    /// The value (`None` = null).
    pub value: Option<Bytes>,
    /// The record headers (empty in KRaft; no allocation when empty).
    pub headers: Vec<RecordHeader>,
}

impl Record {
    /// The control record type read from the key (Kafka's `ControlRecordType.parse` rules). Only
    /// meaningful for records of a control batch.
    pub fn control_type(&self) -> Result<ControlRecordType, DecodeError> {
        match &self.key {
            Some(key) => ControlRecordType::parse_key(key),
            None => Err(DecodeError::InvalidRecords(
                "control record has a null key".to_string(),
            )),
        }
    }
}

/// Iterator over the records of an uncompressed batch (see
/// [`RecordBatch::records`]). After the first error it yields nothing more.
#[derive(Debug, Clone)]
pub struct Records {
    buf: Bytes,
    base_offset: i64,
    base_timestamp: i64,
    log_append_time: Option<i64>,
    remaining: usize,
    failed: bool,
}

fn take(buf: &mut Bytes, len: usize, what: &str) -> Result<Bytes, DecodeError> {
    if len > buf.len() {
        return Err(DecodeError::InvalidRecords(format!(
            "{what} of {len} bytes exceeds the {} bytes left in the record",
            buf.len()
        )));
    }
    Ok(buf.split_to(len))
}

fn nullable(buf: &mut Bytes, what: &str) -> Result<Option<Bytes>, DecodeError> {
    match get_varint(buf)? {
        -1 => Ok(None),
        n if n < 0 => Err(DecodeError::InvalidRecords(format!(
            "invalid {what} length {n}"
        ))),
        n => take(buf, n as usize, what).map(Some),
    }
}

impl Records {
    fn read_one(&mut self) -> Result<Record, DecodeError> {
        let length = get_varint(&mut self.buf)?;
        if length < 0 {
            return Err(DecodeError::InvalidRecords(format!(
                "invalid record length {length}"
            )));
        }
        let mut body = take(&mut self.buf, length as usize, "record")?;
        let attributes = get_i8(&mut body)?;
        let timestamp_delta = get_varlong(&mut body)?;
        let offset_delta = get_varint(&mut body)?;
        let key = nullable(&mut body, "key")?;
        let value = nullable(&mut body, "value")?;
        let header_count = get_varint(&mut body)?;
        if header_count < 0 || header_count as usize > body.len() {
            return Err(DecodeError::InvalidRecords(format!(
                "invalid record header count {header_count}"
            )));
        }
        let header_count = header_count as usize;
        let mut headers =
            Vec::with_capacity(bounded_capacity(header_count, body.len(), MIN_HEADER_SIZE));
        for _ in 0..header_count {
            let key_len = get_varint(&mut body)?;
            if key_len < 0 {
                return Err(DecodeError::InvalidRecords(format!(
                    "invalid header key length {key_len}"
                )));
            }
            let key = take(&mut body, key_len as usize, "header key")?;
            let value = nullable(&mut body, "header value")?;
            headers.push(RecordHeader { key, value });
        }
        if !body.is_empty() {
            return Err(DecodeError::InvalidRecords(format!(
                "record declared {length} bytes but {} were left unread",
                body.len()
            )));
        }
        let offset = self
            .base_offset
            .checked_add(i64::from(offset_delta))
            .ok_or_else(|| DecodeError::InvalidRecords("record offset overflows".to_string()))?;
        let timestamp = match self.log_append_time {
            Some(t) => t,
            None => self.base_timestamp.wrapping_add(timestamp_delta),
        };
        Ok(Record {
            attributes,
            offset,
            offset_delta,
            timestamp,
            timestamp_delta,
            key,
            value,
            headers,
        })
    }
}

impl Iterator for Records {
    type Item = Result<Record, DecodeError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed || self.remaining == 0 {
            return None;
        }
        self.remaining -= 1;
        let result = self.read_one().and_then(|record| {
            if self.remaining == 0 && !self.buf.is_empty() {
                Err(DecodeError::InvalidRecords(format!(
                    "{} bytes remain after the last declared record",
                    self.buf.len()
                )))
            } else {
                Ok(record)
            }
        });
        if result.is_err() {
            self.failed = true;
        }
        Some(result)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        if self.failed {
            (0, Some(0))
        } else {
            (0, Some(self.remaining))
        }
    }
}

impl std::iter::FusedIterator for Records {}

/// A batch cut short at the end of a buffer (a torn log tail, or a Fetch /
/// FetchSnapshot response that ends mid-batch).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PartialBatch {
    /// Where the partial batch starts, relative to the iterated buffer.
    pub position: usize,
    /// How many bytes of it are present.
    pub available: usize,
    /// Its declared total size, if the 12-byte prefix was present.
    pub declared_size: Option<usize>,
}

/// Iterates over the v2 batches in `data` (a log segment, snapshot chunk or
/// Fetch `Records` field).
pub fn batches(data: Bytes) -> Batches {
    Batches {
        buf: data,
        position: 0,
        partial: None,
        failed: false,
    }
}

/// Iterator over the batches of a buffer; see [`batches`].
///
/// Each complete batch is validated (size, magic, CRC) and yielded as
/// `Ok`. Iteration stops:
/// * at the end of the buffer;
/// * at an incomplete trailing batch — the iterator returns `None` and
///   [`Batches::partial_tail`] describes it (Kafka ignores such a tail in a
///   Fetch response; log recovery truncates it);
/// * after the first `Err`, with [`Batches::position`] left at the start of
///   the bad batch.
#[derive(Debug, Clone)]
pub struct Batches {
    buf: Bytes,
    position: usize,
    partial: Option<PartialBatch>,
    failed: bool,
}

impl Batches {
    /// Offset in the original buffer of the first byte not yet consumed: the
    /// end of the last good batch, or the start of a bad or partial one.
    pub fn position(&self) -> usize {
        self.position
    }

    /// The incomplete batch at the end of the buffer, once iteration reached it.
    pub fn partial_tail(&self) -> Option<PartialBatch> {
        self.partial
    }

    /// The bytes not yet consumed.
    pub fn remaining(&self) -> &Bytes {
        &self.buf
    }
}

impl Iterator for Batches {
    type Item = Result<RecordBatch, DecodeError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed || self.partial.is_some() || self.buf.is_empty() {
            return None;
        }
        let available = self.buf.len();
        let size = match declared_size(&self.buf) {
            Err(e) => {
                self.failed = true;
                return Some(Err(e));
            }
            Ok(size) => size,
        };
        match size {
            Some(size) if size <= available => {
                let data = self.buf.split_to(size);
                match RecordBatch::validate_complete(data) {
                    Ok(batch) => {
                        self.position += size;
                        Some(Ok(batch))
                    }
                    Err(e) => {
                        self.failed = true;
                        Some(Err(e))
                    }
                }
            }
            declared_size => {
                self.partial = Some(PartialBatch {
                    position: self.position,
                    available,
                    declared_size,
                });
                None
            }
        }
    }
}

impl std::iter::FusedIterator for Batches {}
