#![allow(clippy::unwrap_used)]

use bytes::{Bytes, BytesMut};

use super::*;
use crate::DecodeError;

const T: i64 = 1_700_000_000_000;

/// Parses hex digits, ignoring whitespace and `//` comments to the end of a line.
fn hex(s: &str) -> Bytes {
    let s: String = s
        .lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .flat_map(str::chars)
        .filter(|c| c.is_ascii_hexdigit())
        .collect();
    let bytes: Vec<u8> = (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect();
    Bytes::from(bytes)
}

/// The vectors Kafka 4.4.0 produced (see the file's header for how).
fn kafka_vector(name: &str) -> Bytes {
    let text = include_str!("../../tests/data/kafka-4.4.0-record-batches.txt");
    let line = text
        .lines()
        .filter(|l| !l.starts_with('#'))
        .find_map(|l| l.strip_prefix(name).and_then(|r| r.strip_prefix(' ')))
        .unwrap();
    hex(line)
}

/// A data batch written out field by field from the RecordBatch v2 layout (KIP-98, Kafka's `DefaultRecordBatch`); the CRC was
/// computed with an independent bitwise CRC-32C.
fn hand_batch() -> Bytes {
    hex("
        00 00 00 00 00 00 00 05   // baseOffset 5
        00 00 00 46               // batchLength 70
        00 00 00 03               // partitionLeaderEpoch 3
        02                        // magic
        03 32 18 92               // crc
        00 00                     // attributes
        00 00 00 01               // lastOffsetDelta
        00 00 01 8b cf e5 68 00   // baseTimestamp
        00 00 01 8b cf e5 68 05   // maxTimestamp
        ff ff ff ff ff ff ff ff   // producerId
        ff ff                     // producerEpoch
        ff ff ff ff               // baseSequence
        00 00 00 02               // recordsCount
        10 00 00 00 01 04 61 62 00              // record 0: length 8, null key, value 'ab'
        16 00 0a 02 02 6b 01 02 02 68 02 78     // record 1: length 11, ts+5, key 'k', null value, header h=x
    ")
}

#[test]
fn decodes_hand_written_batch() {
    let batch = RecordBatch::parse(hand_batch()).unwrap();
    assert_eq!(batch.base_offset(), 5);
    assert_eq!(batch.batch_length(), 70);
    assert_eq!(batch.size_in_bytes(), 82);
    assert_eq!(batch.partition_leader_epoch(), 3);
    assert_eq!(batch.magic(), 2);
    assert_eq!(batch.crc(), 0x03321892);
    assert_eq!(batch.attributes(), BatchAttributes::DATA);
    assert_eq!(batch.compression(), Compression::None);
    assert_eq!(batch.timestamp_type(), TimestampType::CreateTime);
    assert!(!batch.is_control() && !batch.is_transactional());
    assert_eq!(batch.last_offset_delta(), 1);
    assert_eq!(batch.last_offset(), 6);
    assert_eq!(batch.next_offset(), 7);
    assert_eq!(batch.base_timestamp(), T);
    assert_eq!(batch.max_timestamp(), T + 5);
    assert_eq!(batch.producer_id(), -1);
    assert_eq!(batch.producer_epoch(), -1);
    assert_eq!(batch.base_sequence(), -1);
    assert_eq!(batch.records_count(), 2);
    batch.validate_records().unwrap();

    let records: Vec<Record> = batch.records().unwrap().map(Result::unwrap).collect();
    assert_eq!(records.len(), 2);
    assert_eq!(records[0].offset, 5);
    assert_eq!(records[0].timestamp, T);
    assert_eq!(records[0].key, None);
    assert_eq!(records[0].value.as_deref(), Some(&b"ab"[..]));
    assert!(records[0].headers.is_empty());
    assert_eq!(records[1].offset, 6);
    assert_eq!(records[1].offset_delta, 1);
    assert_eq!(records[1].timestamp_delta, 5);
    assert_eq!(records[1].timestamp, T + 5);
    assert_eq!(records[1].key.as_deref(), Some(&b"k"[..]));
    assert_eq!(records[1].value, None);
    assert_eq!(
        records[1].headers,
        vec![RecordHeader {
            key: Bytes::from_static(b"h"),
            value: Some(Bytes::from_static(b"x")),
        }]
    );
}

#[test]
fn values_are_zero_copy_slices() {
    let data = hand_batch();
    let range = data.as_ptr() as usize..data.as_ptr() as usize + data.len();
    let batch = RecordBatch::parse(data.clone()).unwrap();
    for r in batch.records().unwrap() {
        let r = r.unwrap();
        for b in r.key.iter().chain(r.value.iter()) {
            assert!(range.contains(&(b.as_ptr() as usize)));
        }
    }
}

#[test]
fn builder_reproduces_hand_written_batch() {
    let headers = [NewHeader {
        key: b"h",
        value: Some(b"x"),
    }];
    let mut b = RecordBatchBuilder::new(5, 3, T);
    b.push(NewRecord::value(b"ab"));
    b.push(
        NewRecord::new(Some(b"k"), None)
            .with_headers(&headers)
            .with_timestamp_delta(5),
    );
    assert_eq!(b.encoded_len(), 82);
    assert_eq!(b.build(), hand_batch());
}

#[test]
fn spec_kraft_version_vector() {
    // A KRaftVersionRecord control batch, identical to what Kafka 4.4.0 writes.
    let spec = hex("
        00 00 00 00 00 00 00 00  00 00 00 41  00 00 00 00  02  a8 9c 55 86
        00 20  00 00 00 00  00 00 01 8b cf e5 68 00  00 00 01 8b cf e5 68 00
        ff ff ff ff ff ff ff ff  ff ff  ff ff ff ff  00 00 00 01
        1e 00 00 00 08 00 00 00 05 0a 00 00 00 01 00 00
    ");
    assert_eq!(spec, kafka_vector("kraft_version"));
    let batch = RecordBatch::parse(spec.clone()).unwrap();
    assert!(batch.is_control());
    let records: Vec<Record> = batch.records().unwrap().map(Result::unwrap).collect();
    assert_eq!(records.len(), 1);
    assert_eq!(
        records[0].control_type().unwrap(),
        ControlRecordType::KRaftVersion
    );
    assert_eq!(records[0].value.as_deref(), Some(&[0, 0, 0, 1, 0][..]));

    let mut b = RecordBatchBuilder::new_control(0, 0, T);
    b.push(NewRecord::control(
        ControlRecordType::KRaftVersion,
        &[0, 0, 0, 1, 0],
    ));
    assert_eq!(b.build(), spec);
}

/// Every Kafka-produced vector decodes, validates, and is reproduced
/// byte-for-byte by the builder from its decoded records.
#[test]
fn kafka_vectors_round_trip() {
    let expected_types = [
        ("leader_change", ControlRecordType::LeaderChange),
        ("kraft_version", ControlRecordType::KRaftVersion),
        ("voters", ControlRecordType::KRaftVoters),
        ("snapshot_header", ControlRecordType::SnapshotHeader),
        ("snapshot_footer", ControlRecordType::SnapshotFooter),
    ];
    for name in [
        "data_generic",
        "kraft_data",
        "leader_change",
        "kraft_version",
        "voters",
        "snapshot_header",
        "snapshot_footer",
    ] {
        let data = kafka_vector(name);
        let batch = RecordBatch::parse(data.clone()).unwrap_or_else(|e| panic!("{name}: {e}"));
        batch.validate_records().unwrap();
        let records: Vec<Record> = batch.records().unwrap().map(Result::unwrap).collect();
        assert_eq!(records.len() as i32, batch.records_count());
        if let Some((_, ty)) = expected_types.iter().find(|(n, _)| *n == name) {
            assert!(batch.is_control(), "{name}");
            assert_eq!(records[0].control_type().unwrap(), *ty, "{name}");
        } else {
            assert!(!batch.is_control(), "{name}");
        }

        let header_storage: Vec<Vec<NewHeader<'_>>> = records
            .iter()
            .map(|r| {
                r.headers
                    .iter()
                    .map(|h| NewHeader {
                        key: &h.key,
                        value: h.value.as_deref(),
                    })
                    .collect()
            })
            .collect();
        let mut b = if batch.is_control() {
            RecordBatchBuilder::new_control(
                batch.base_offset(),
                batch.partition_leader_epoch(),
                batch.base_timestamp(),
            )
        } else {
            RecordBatchBuilder::new(
                batch.base_offset(),
                batch.partition_leader_epoch(),
                batch.base_timestamp(),
            )
        };
        for (r, hs) in records.iter().zip(&header_storage) {
            b.push(
                NewRecord::new(r.key.as_deref(), r.value.as_deref())
                    .with_headers(hs)
                    .with_timestamp_delta(r.timestamp_delta),
            );
        }
        assert_eq!(b.encoded_len(), data.len(), "{name}");
        assert_eq!(b.build(), data, "{name}");
    }
}

#[test]
fn kafka_kraft_data_batch_contents() {
    let batch = RecordBatch::parse(kafka_vector("kraft_data")).unwrap();
    assert_eq!(batch.base_offset(), 42);
    assert_eq!(batch.partition_leader_epoch(), 7);
    assert_eq!(batch.attributes().bits(), 0);
    let records: Vec<Record> = batch.records().unwrap().map(Result::unwrap).collect();
    let mut value = records[1].value.clone().unwrap();
    assert_eq!(records[1].key, None);
    let header = decode_metadata_record_header(&mut value).unwrap();
    assert_eq!(
        header,
        MetadataRecordHeader {
            api_key: 29,
            version: 0
        }
    );
    assert_eq!(&value[..], &[0, 0, 0, 5, 0]);
    let mut value = records[0].value.clone().unwrap();
    assert_eq!(
        decode_metadata_record_header(&mut value).unwrap().api_key,
        12
    );
}

#[test]
fn crc_corruption_is_detected_at_every_byte() {
    let good = hand_batch();
    for i in 0..good.len() {
        let mut bad = BytesMut::from(&good[..]);
        bad[i] ^= 0x01;
        let result = RecordBatch::parse(bad.freeze());
        match i {
            // baseOffset and partitionLeaderEpoch are outside the CRC
            0..=7 | 12..=15 => assert!(result.is_ok(), "byte {i}"),
            // a changed length makes the buffer the wrong size
            8..=11 => assert!(result.is_err(), "byte {i}"),
            16 => assert!(
                matches!(result, Err(DecodeError::InvalidRecords(_))),
                "byte {i}"
            ),
            _ => assert!(
                matches!(result, Err(DecodeError::CrcMismatch { .. })),
                "byte {i}: {result:?}"
            ),
        }
    }
}

#[test]
fn truncation_at_every_length() {
    let one = hand_batch();
    let two = kafka_vector("leader_change");
    let mut both = BytesMut::from(&one[..]);
    both.extend_from_slice(&two);
    let both = both.freeze();
    for len in 0..=both.len() {
        let prefix = both.slice(..len);
        let mut it = batches(prefix.clone());
        let got: Vec<_> = it.by_ref().collect();
        let complete = usize::from(len >= one.len()) + usize::from(len == both.len());
        assert_eq!(got.len(), complete, "len {len}");
        assert!(got.iter().all(Result::is_ok), "len {len}");
        let expected_pos = if len >= one.len() { one.len() } else { 0 };
        if len == both.len() {
            assert_eq!(it.partial_tail(), None);
            assert_eq!(it.position(), both.len());
        } else if len == one.len() || len == 0 {
            assert_eq!(it.partial_tail(), None, "len {len}");
            assert_eq!(it.position(), len);
        } else {
            let tail = it.partial_tail().unwrap();
            assert_eq!(tail.position, expected_pos, "len {len}");
            assert_eq!(tail.available, len - expected_pos);
            assert_eq!(it.position(), expected_pos);
            let declared = if tail.available >= LOG_OVERHEAD {
                Some(if expected_pos == 0 {
                    one.len()
                } else {
                    two.len()
                })
            } else {
                None
            };
            assert_eq!(tail.declared_size, declared, "len {len}");
        }
        // a single-batch parse of any strict prefix fails cleanly
        if len < one.len() {
            assert!(RecordBatch::parse(prefix).is_err());
        }
    }
}

#[test]
fn corrupt_batch_stops_iteration_at_its_position() {
    let one = hand_batch();
    let mut data = BytesMut::from(&one[..]);
    data.extend_from_slice(&one);
    data.extend_from_slice(&one);
    let n = one.len();
    data[n + 40] ^= 0xff; // inside the second batch's CRC range
    let mut it = batches(data.freeze());
    assert!(it.next().unwrap().is_ok());
    assert!(matches!(
        it.next(),
        Some(Err(DecodeError::CrcMismatch { .. }))
    ));
    assert_eq!(it.position(), n);
    assert!(it.next().is_none());
    assert_eq!(it.partial_tail(), None);
}

#[test]
fn bad_lengths_and_magic() {
    // a zero-filled tail (e.g. preallocated file space) is corruption
    let mut it = batches(Bytes::from(vec![0u8; 100]));
    assert!(matches!(
        it.next(),
        Some(Err(DecodeError::InvalidRecords(_)))
    ));
    // negative batch length
    let mut b = BytesMut::from(&hand_batch()[..]);
    b[8..12].copy_from_slice(&(-5i32).to_be_bytes());
    assert!(RecordBatch::parse(b.freeze()).is_err());
    // magic 1 is rejected even when the batch is incomplete
    let mut b = BytesMut::from(&hand_batch()[..20]);
    b[16] = 1;
    let mut it = batches(b.freeze());
    assert!(matches!(
        it.next(),
        Some(Err(DecodeError::InvalidRecords(_)))
    ));
    // trailing bytes after a single batch
    let mut b = BytesMut::from(&hand_batch()[..]);
    b.extend_from_slice(&[0]);
    assert_eq!(
        RecordBatch::parse(b.freeze()),
        Err(DecodeError::TrailingBytes(1))
    );
    // a huge declared length is a partial tail, never an allocation
    let mut b = BytesMut::from(&hand_batch()[..]);
    b[8..12].copy_from_slice(&i32::MAX.to_be_bytes());
    let mut it = batches(b.freeze());
    assert!(it.next().is_none());
    assert_eq!(
        it.partial_tail().unwrap().declared_size,
        Some(i32::MAX as usize + 12)
    );
}

/// Rewrites header bytes of a valid batch and fixes up its CRC.
fn patch(data: &Bytes, at: usize, bytes: &[u8]) -> Bytes {
    let mut b = BytesMut::from(&data[..]);
    b[at..at + bytes.len()].copy_from_slice(bytes);
    let crc = crc32c::crc32c(&b[21..]);
    b[17..21].copy_from_slice(&crc.to_be_bytes());
    b.freeze()
}

#[test]
fn lying_record_count_fails_fast() {
    let data = patch(&hand_batch(), 57, &i32::MAX.to_be_bytes());
    let batch = RecordBatch::parse(data).unwrap();
    assert!(matches!(
        batch.records(),
        Err(DecodeError::InvalidRecords(_))
    ));
    // fewer records than declared
    let data = patch(&hand_batch(), 57, &3i32.to_be_bytes());
    let batch = RecordBatch::parse(data).unwrap();
    let results: Vec<_> = batch.records().unwrap().collect();
    assert_eq!(results.len(), 3);
    assert!(results[2].is_err());
    // more records than declared
    let data = patch(&hand_batch(), 57, &1i32.to_be_bytes());
    let batch = RecordBatch::parse(data).unwrap();
    let results: Vec<_> = batch.records().unwrap().collect();
    assert_eq!(results.len(), 1);
    assert!(results[0].is_err());
    assert!(batch.validate_records().is_err());
    // negative count
    let data = patch(&hand_batch(), 57, &(-1i32).to_be_bytes());
    assert!(RecordBatch::parse(data).is_err());
}

#[test]
fn compressed_batches_are_reported_not_misread() {
    let data = patch(&hand_batch(), 21, &[0x00, 0x01]);
    let batch = RecordBatch::parse(data).unwrap();
    assert_eq!(batch.compression(), Compression::Gzip);
    assert!(batch.records().is_err());
    let data = patch(&hand_batch(), 21, &[0x00, 0x04]);
    assert_eq!(
        RecordBatch::parse(data).unwrap().compression(),
        Compression::Zstd
    );
    // undefined codec id 5
    let data = patch(&hand_batch(), 21, &[0x00, 0x05]);
    assert!(RecordBatch::parse(data).is_err());
}

#[test]
fn log_append_time_uses_max_timestamp() {
    let data = patch(&hand_batch(), 21, &[0x00, 0x08]);
    let batch = RecordBatch::parse(data).unwrap();
    assert_eq!(batch.timestamp_type(), TimestampType::LogAppendTime);
    for r in batch.records().unwrap() {
        assert_eq!(r.unwrap().timestamp, T + 5);
    }
}

#[test]
fn control_batch_detection() {
    let mut b = RecordBatchBuilder::new_control(10, 3, T);
    b.push(NewRecord::control(ControlRecordType::LeaderChange, &[0; 3]));
    let batch = RecordBatch::parse(b.build()).unwrap();
    assert!(batch.is_control());
    assert_eq!(batch.attributes(), BatchAttributes::CONTROL);
    batch.validate_records().unwrap();
    let data = RecordBatch::parse(kafka_vector("kraft_data")).unwrap();
    assert!(!data.is_control());
    // a control batch whose record key is too short fails validation
    let mut b = RecordBatchBuilder::new_control(0, 0, T);
    b.push(NewRecord::new(Some(&[0, 0]), Some(b"x")));
    assert!(RecordBatch::parse(b.build())
        .unwrap()
        .validate_records()
        .is_err());
}

#[test]
fn empty_builder_and_write_to_appends() {
    let b = RecordBatchBuilder::new(7, 1, T);
    assert!(b.is_empty());
    let batch = RecordBatch::parse(b.build()).unwrap();
    assert_eq!(batch.records_count(), 0);
    assert_eq!(batch.size_in_bytes(), RECORD_BATCH_OVERHEAD);
    assert_eq!(batch.records().unwrap().count(), 0);

    let mut out = vec![0xaa, 0xbb];
    let mut b = RecordBatchBuilder::new(0, 1, T);
    b.push(NewRecord::value(b"one"))
        .push(NewRecord::value(b"two"));
    assert_eq!(b.next_offset(), 2);
    b.write_to(&mut out);
    b.write_to(&mut out);
    let mut it = batches(Bytes::from(out).slice(2..));
    assert_eq!(it.next().unwrap().unwrap().records_count(), 2);
    assert_eq!(it.next().unwrap().unwrap().last_offset(), 1);
    assert!(it.next().is_none());
}

/// A small deterministic PRNG (xorshift64*) for randomized tests.
struct Rng(u64);

impl Rng {
    fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }

    fn bytes(&mut self, max_len: u64) -> Vec<u8> {
        let len = self.below(max_len + 1) as usize;
        (0..len).map(|_| self.next_u64() as u8).collect()
    }

    fn nullable(&mut self, max_len: u64) -> Option<Vec<u8>> {
        if self.below(4) == 0 {
            None
        } else {
            Some(self.bytes(max_len))
        }
    }
}

type TestRecord = (
    Option<Vec<u8>>,
    Option<Vec<u8>>,
    i64,
    Vec<(Vec<u8>, Option<Vec<u8>>)>,
);

#[test]
fn randomized_round_trip() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for _ in 0..500 {
        let base_offset = (rng.next_u64() >> 2) as i64;
        let epoch = rng.next_u64() as i32;
        let ts = rng.next_u64() as i64;
        let control = rng.below(2) == 0;
        let records: Vec<TestRecord> = (0..rng.below(8))
            .map(|_| {
                let headers = (0..rng.below(3))
                    .map(|_| (rng.bytes(8), rng.nullable(8)))
                    .collect();
                (
                    rng.nullable(40),
                    rng.nullable(300),
                    rng.next_u64() as i64,
                    headers,
                )
            })
            .collect();
        let headers: Vec<Vec<NewHeader<'_>>> = records
            .iter()
            .map(|r| {
                r.3.iter()
                    .map(|(k, v)| NewHeader {
                        key: k,
                        value: v.as_deref(),
                    })
                    .collect()
            })
            .collect();
        let mut b = if control {
            RecordBatchBuilder::new_control(base_offset, epoch, ts)
        } else {
            RecordBatchBuilder::new(base_offset, epoch, ts)
        };
        for (r, hs) in records.iter().zip(&headers) {
            b.push(
                NewRecord::new(r.0.as_deref(), r.1.as_deref())
                    .with_headers(hs)
                    .with_timestamp_delta(r.2),
            );
        }
        let data = b.build();
        assert_eq!(data.len(), b.encoded_len());
        let batch = RecordBatch::parse(data).unwrap();
        assert_eq!(batch.base_offset(), base_offset);
        assert_eq!(batch.partition_leader_epoch(), epoch);
        assert_eq!(batch.is_control(), control);
        assert_eq!(batch.records_count() as usize, records.len());
        let decoded: Vec<Record> = batch.records().unwrap().map(Result::unwrap).collect();
        assert_eq!(decoded.len(), records.len());
        for (i, (d, r)) in decoded.iter().zip(&records).enumerate() {
            assert_eq!(d.offset, base_offset + i as i64);
            assert_eq!(d.key.as_deref(), r.0.as_deref());
            assert_eq!(d.value.as_deref(), r.1.as_deref());
            assert_eq!(d.timestamp_delta, r.2);
            assert_eq!(d.headers.len(), r.3.len());
            for (dh, (k, v)) in d.headers.iter().zip(&r.3) {
                assert_eq!(&dh.key[..], &k[..]);
                assert_eq!(dh.value.as_deref(), v.as_deref());
            }
        }
    }
}

/// Arbitrary bytes never panic, whatever they claim.
#[test]
fn garbage_never_panics() {
    let mut rng = Rng(42);
    let valid = hand_batch();
    for i in 0..5000 {
        let data = if i % 2 == 0 {
            Bytes::from(rng.bytes(200))
        } else {
            // a valid header prefix followed by garbage
            let mut v = valid[..LOG_OVERHEAD + 5].to_vec();
            v.extend(rng.bytes(100));
            Bytes::from(v)
        };
        for batch in batches(data.clone()).flatten() {
            if let Ok(records) = batch.records() {
                for _ in records {}
            }
        }
        let _ = RecordBatch::parse(data);
    }
}

/// Every single-byte mutation of the record area, with the CRC fixed up,
/// decodes or fails cleanly.
#[test]
fn mutated_records_never_panic() {
    let valid = hand_batch();
    for at in RECORD_BATCH_OVERHEAD..valid.len() {
        for value in 0..=255u8 {
            let data = patch(&valid, at, &[value]);
            let batch = RecordBatch::parse(data).unwrap();
            let _ = batch.validate_records();
            for _ in batch.records().unwrap() {}
        }
    }
}

#[test]
fn header_only_parse() {
    let data = kafka_vector("kraft_data");
    let h = RecordBatchHeader::parse(&data[..RECORD_BATCH_OVERHEAD]).unwrap();
    let batch = RecordBatch::parse(data.clone()).unwrap();
    assert_eq!(h, batch.header());
    assert_eq!(h.base_offset, 42);
    assert_eq!(h.partition_leader_epoch, 7);
    assert_eq!(h.size_in_bytes(), data.len());
    assert_eq!(h.next_offset(), 44);
    assert_eq!(
        RecordBatchHeader::size_from_prefix(&data[..12]),
        Ok(Some(data.len()))
    );
    assert_eq!(RecordBatchHeader::size_from_prefix(&data[..11]), Ok(None));
    assert!(RecordBatchHeader::parse(&data[..60]).is_err());
    let mut bad = data.to_vec();
    bad[16] = 0;
    assert!(RecordBatchHeader::parse(&bad).is_err());
}
