//! Writing v2 record batches.

use bytes::{BufMut, Bytes, BytesMut};

use super::batch::{
    compute_crc, BatchAttributes, ATTRIBUTES_OFFSET, CRC_OFFSET, LOG_OVERHEAD, MAGIC_V2,
    NO_PRODUCER_EPOCH, NO_PRODUCER_ID, NO_SEQUENCE, RECORD_BATCH_OVERHEAD,
};
use super::control::{ControlRecordType, CONTROL_KEY_SIZE};
use crate::wire::{put_varint, put_varlong, varint_len, varlong_len};

/// A header of a record to be written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NewHeader<'a> {
    /// The header key.
    pub key: &'a [u8],
    /// The header value (`None` = null).
    pub value: Option<&'a [u8]>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Key<'a> {
    Bytes(Option<&'a [u8]>),
    Control([u8; CONTROL_KEY_SIZE]),
}

impl Key<'_> {
    fn get(&self) -> Option<&[u8]> {
        match self {
            Key::Bytes(b) => *b,
            Key::Control(k) => Some(k),
        }
    }
}

/// A record to be written by [`RecordBatchBuilder`]; borrows its bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NewRecord<'a> {
    key: Key<'a>,
    value: Option<&'a [u8]>,
    headers: &'a [NewHeader<'a>],
    timestamp_delta: i64,
}

impl<'a> NewRecord<'a> {
    /// A record with the given key and value, no headers, timestamp delta 0.
    pub const fn new(key: Option<&'a [u8]>, value: Option<&'a [u8]>) -> Self {
        NewRecord {
            key: Key::Bytes(key),
            value,
            headers: &[],
            timestamp_delta: 0,
        }
    }

    /// A KRaft data record: null key, `value` = a framed metadata record.
    pub const fn value(value: &'a [u8]) -> Self {
        Self::new(None, Some(value))
    }

    /// A control record: key = version 0 + `kind`, value = the control
    /// message body (version 0, no version prefix).
    pub const fn control(kind: ControlRecordType, value: &'a [u8]) -> Self {
        NewRecord {
            key: Key::Control(kind.key()),
            value: Some(value),
            headers: &[],
            timestamp_delta: 0,
        }
    }

    /// This record with headers.
    pub const fn with_headers(mut self, headers: &'a [NewHeader<'a>]) -> Self {
        self.headers = headers;
        self
    }

    /// This record with a timestamp relative to the batch's base timestamp.
    pub const fn with_timestamp_delta(mut self, delta: i64) -> Self {
        self.timestamp_delta = delta;
        self
    }

    fn body_len(&self, offset_delta: i32) -> usize {
        let nullable = |b: Option<&[u8]>| match b {
            None => varint_len(-1),
            Some(b) => varint_len(len_i32(b.len())) + b.len(),
        };
        let mut n = 1
            + varlong_len(self.timestamp_delta)
            + varint_len(offset_delta)
            + nullable(self.key.get())
            + nullable(self.value)
            + varint_len(len_i32(self.headers.len()));
        for h in self.headers {
            n += varint_len(len_i32(h.key.len())) + h.key.len() + nullable(h.value);
        }
        n
    }

    fn encoded_len(&self, offset_delta: i32) -> usize {
        let body = self.body_len(offset_delta);
        varint_len(len_i32(body)) + body
    }

    fn write<B: BufMut>(&self, buf: &mut B, offset_delta: i32) {
        let nullable = |buf: &mut B, b: Option<&[u8]>| match b {
            None => put_varint(buf, -1),
            Some(b) => {
                put_varint(buf, len_i32(b.len()));
                buf.put_slice(b);
            }
        };
        put_varint(buf, len_i32(self.body_len(offset_delta)));
        buf.put_i8(0);
        put_varlong(buf, self.timestamp_delta);
        put_varint(buf, offset_delta);
        nullable(buf, self.key.get());
        nullable(buf, self.value);
        put_varint(buf, len_i32(self.headers.len()));
        for h in self.headers {
            put_varint(buf, len_i32(h.key.len()));
            buf.put_slice(h.key);
            nullable(buf, h.value);
        }
    }
}

/// Converts a length to the `int32`/varint the format stores.
///
/// # Panics
/// If `len` exceeds `i32::MAX`: no v2 batch can hold such a value.
fn len_i32(len: usize) -> i32 {
    match i32::try_from(len) {
        Ok(n) => n,
        Err(_) => panic!("length {len} does not fit a v2 record batch"),
    }
}

/// Builds one uncompressed v2 batch (data or control), assigning offset
/// deltas 0, 1, 2, ... and computing the CRC-32C.
///
/// Records are borrowed until the batch is written; nothing is copied before
/// [`write_to`](Self::write_to) / [`build`](Self::build), and
/// [`encoded_len`](Self::encoded_len) allocates nothing.
#[derive(Debug, Clone)]
pub struct RecordBatchBuilder<'a> {
    base_offset: i64,
    partition_leader_epoch: i32,
    base_timestamp: i64,
    max_timestamp: Option<i64>,
    attributes: BatchAttributes,
    producer_id: i64,
    producer_epoch: i16,
    base_sequence: i32,
    records: Vec<NewRecord<'a>>,
}

impl<'a> RecordBatchBuilder<'a> {
    /// A data batch (attributes 0) at `base_offset`, written in
    /// `partition_leader_epoch` (the Raft epoch), timestamped `base_timestamp` ms.
    pub fn new(base_offset: i64, partition_leader_epoch: i32, base_timestamp: i64) -> Self {
        RecordBatchBuilder {
            base_offset,
            partition_leader_epoch,
            base_timestamp,
            max_timestamp: None,
            attributes: BatchAttributes::DATA,
            producer_id: NO_PRODUCER_ID,
            producer_epoch: NO_PRODUCER_EPOCH,
            base_sequence: NO_SEQUENCE,
            records: Vec::new(),
        }
    }

    /// A control batch (attributes 0x20); add records with [`NewRecord::control`].
    pub fn new_control(base_offset: i64, partition_leader_epoch: i32, base_timestamp: i64) -> Self {
        let mut b = Self::new(base_offset, partition_leader_epoch, base_timestamp);
        b.attributes = BatchAttributes::CONTROL;
        b
    }

    /// Overrides `maxTimestamp` (default: the largest record timestamp).
    pub fn with_max_timestamp(mut self, max_timestamp: i64) -> Self {
        self.max_timestamp = Some(max_timestamp);
        self
    }

    /// Sets the producer id, epoch and base sequence (default -1, -1, -1).
    pub fn with_producer(
        mut self,
        producer_id: i64,
        producer_epoch: i16,
        base_sequence: i32,
    ) -> Self {
        self.producer_id = producer_id;
        self.producer_epoch = producer_epoch;
        self.base_sequence = base_sequence;
        self
    }

    /// Sets or clears the transactional attribute.
    pub fn with_transactional(mut self, transactional: bool) -> Self {
        self.attributes = self.attributes.with_transactional(transactional);
        self
    }

    /// Appends a record; it gets the next offset delta.
    pub fn push(&mut self, record: NewRecord<'a>) -> &mut Self {
        self.records.push(record);
        self
    }

    /// Number of records added so far.
    pub fn len(&self) -> usize {
        self.records.len()
    }

    /// Whether no record has been added.
    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }

    /// Offset the next batch would start at: base offset + record count.
    pub fn next_offset(&self) -> i64 {
        self.base_offset + self.records.len() as i64
    }

    fn max_timestamp(&self) -> i64 {
        self.max_timestamp.unwrap_or_else(|| {
            self.records
                .iter()
                .map(|r| self.base_timestamp.wrapping_add(r.timestamp_delta))
                .max()
                .unwrap_or(self.base_timestamp)
        })
    }

    /// Size of the encoded batch in bytes (computed without allocating).
    pub fn encoded_len(&self) -> usize {
        RECORD_BATCH_OVERHEAD
            + self
                .records
                .iter()
                .enumerate()
                .map(|(i, r)| r.encoded_len(len_i32(i)))
                .sum::<usize>()
    }

    /// Appends the encoded batch ([`encoded_len`](Self::encoded_len) bytes)
    /// to `buf` and patches in its CRC.
    /// An empty builder writes a header-only batch (`lastOffsetDelta` 0).
    ///
    /// # Panics
    /// If the batch would exceed `i32::MAX` bytes or records.
    pub fn write_to<B: BufMut + AsMut<[u8]>>(&self, buf: &mut B) {
        let len = self.encoded_len();
        let start = buf.as_mut().len();
        let count = len_i32(self.records.len());
        buf.put_i64(self.base_offset);
        buf.put_i32(len_i32(len - LOG_OVERHEAD));
        buf.put_i32(self.partition_leader_epoch);
        buf.put_i8(MAGIC_V2);
        buf.put_u32(0); // CRC, patched below
        buf.put_i16(self.attributes.bits());
        buf.put_i32((count - 1).max(0));
        buf.put_i64(self.base_timestamp);
        buf.put_i64(self.max_timestamp());
        buf.put_i64(self.producer_id);
        buf.put_i16(self.producer_epoch);
        buf.put_i32(self.base_sequence);
        buf.put_i32(count);
        for (i, r) in self.records.iter().enumerate() {
            r.write(buf, len_i32(i));
        }
        let batch = &mut buf.as_mut()[start..];
        debug_assert_eq!(batch.len(), len);
        debug_assert!(batch.len() >= ATTRIBUTES_OFFSET);
        let crc = compute_crc(batch);
        batch[CRC_OFFSET..CRC_OFFSET + 4].copy_from_slice(&crc.to_be_bytes());
    }

    /// The encoded batch in a new buffer of exactly the right size.
    pub fn build(&self) -> Bytes {
        let mut buf = BytesMut::with_capacity(self.encoded_len());
        self.write_to(&mut buf);
        buf.freeze()
    }
}
