//! An in-memory [`RaftLog`] with a model of durability, used by unit tests
//! and the deterministic simulator.
//!
//! Appends are volatile until a flush completes ([`MemoryLog::complete_flush`]);
//! [`MemoryLog::crash`] drops everything that was not durable. Truncations and
//! snapshot installs are durable immediately. Snapshots store their batches in
//! a small private encoding so that FetchSnapshot really transfers them.

use std::collections::BTreeMap;

use bytes::{Buf, BufMut, Bytes, BytesMut};

use super::log::{epoch_cache_lookup, LogError, RaftLog, SnapshotControl, SnapshotInfo};
use super::record::{Batch, ControlRecord, LeaderChangeMessage, Record};
use super::types::{
    Endpoint, Endpoints, KRaftVersionRange, OffsetAndEpoch, ReplicaKey, SnapshotId, Uuid,
};
use super::voters::{VoterNode, VoterSet};

/// A stored snapshot of the memory log.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemSnapshot {
    /// Encoded content.
    pub bytes: Bytes,
    /// Control state at the snapshot's end.
    pub control: SnapshotControl,
    /// The batches the snapshot contains (the log prefix it replaces).
    pub batches: Vec<Batch>,
}

/// A token identifying an issued flush (see [`MemoryLog::issue_flush`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FlushTicket {
    target: i64,
    generation: usize,
}

/// In-memory log plus snapshots.
#[derive(Clone, Debug, Default)]
pub struct MemoryLog {
    start_offset: i64,
    batches: Vec<Batch>,
    epochs: Vec<(i32, i64)>,
    snapshots: BTreeMap<(i64, i32), MemSnapshot>,
    downloading: Option<(SnapshotId, BytesMut)>,
    durable_end: i64,
    truncations: Vec<i64>,
}

impl MemoryLog {
    /// An empty log without snapshots.
    pub fn new() -> Self {
        MemoryLog::default()
    }

    /// An empty log with a bootstrap checkpoint (`0-0`) carrying `control`.
    pub fn with_bootstrap(control: SnapshotControl) -> Self {
        let mut log = MemoryLog::new();
        let bytes = encode_snapshot(&control, &[]);
        log.snapshots.insert(
            (0, 0),
            MemSnapshot {
                bytes,
                control,
                batches: Vec::new(),
            },
        );
        log
    }

    /// All batches currently in the log.
    pub fn batches(&self) -> &[Batch] {
        &self.batches
    }

    /// All stored snapshots.
    pub fn snapshots(&self) -> impl Iterator<Item = (SnapshotId, &MemSnapshot)> {
        self.snapshots
            .iter()
            .map(|((o, e), s)| (OffsetAndEpoch::new(*o, *e), s))
    }

    /// The durable end offset.
    pub fn durable_end(&self) -> i64 {
        self.durable_end
    }

    /// Starts a flush of everything appended so far.
    pub fn issue_flush(&self) -> FlushTicket {
        FlushTicket {
            target: self.end_offset(),
            generation: self.truncations.len(),
        }
    }

    /// Completes a flush: data covered by the ticket becomes durable, except
    /// data re-appended after a truncation that happened since the ticket.
    pub fn complete_flush(&mut self, ticket: FlushTicket) {
        let mut target = ticket.target.min(self.end_offset());
        if let Some(low) = self.truncations[ticket.generation.min(self.truncations.len())..]
            .iter()
            .min()
        {
            target = target.min(*low);
        }
        if target > self.durable_end {
            self.durable_end = target;
        }
    }

    /// Simulates a crash: un-flushed appends and partial downloads are lost.
    pub fn crash(&mut self) {
        let durable = self.durable_end;
        self.truncate_internal(durable);
        self.downloading = None;
        self.truncations.clear();
    }

    /// Creates a snapshot of the log prefix ending at `end_offset` (a batch
    /// boundary with at least one batch below it, at or below the caller's
    /// high watermark). Returns its id.
    pub fn create_snapshot(
        &mut self,
        end_offset: i64,
        control: SnapshotControl,
    ) -> Option<SnapshotId> {
        let last = self
            .batches
            .iter()
            .take_while(|b| b.next_offset() <= end_offset)
            .last()?;
        if last.next_offset() != end_offset {
            return None;
        }
        let id = OffsetAndEpoch::new(end_offset, last.epoch);
        let mut prefix: Vec<Batch> = self
            .latest_real_snapshot()
            .map(|s| s.batches.clone())
            .unwrap_or_default();
        prefix.extend(
            self.batches
                .iter()
                .take_while(|b| b.next_offset() <= end_offset)
                .cloned(),
        );
        let bytes = encode_snapshot(&control, &prefix);
        self.snapshots.insert(
            (id.offset, id.epoch),
            MemSnapshot {
                bytes,
                control,
                batches: prefix,
            },
        );
        Some(id)
    }

    /// Deletes log batches below the latest snapshot (log start moves up).
    pub fn delete_before_latest_snapshot(&mut self) {
        let Some(latest) = self.latest_snapshot() else {
            return;
        };
        let end = latest.id.offset;
        if end <= self.start_offset || end > self.end_offset() {
            return;
        }
        self.batches.retain(|b| b.base_offset >= end);
        self.start_offset = end;
        self.rebuild_epochs();
        // Snapshots older than the one at the log start are forgotten.
        let keep = (latest.id.offset, latest.id.epoch);
        self.snapshots.retain(|k, _| *k >= keep);
    }

    fn latest_real_snapshot(&self) -> Option<&MemSnapshot> {
        self.snapshots
            .iter()
            .rev()
            .find(|((o, _), _)| *o > 0)
            .map(|(_, s)| s)
    }

    fn rebuild_epochs(&mut self) {
        self.epochs.clear();
        for b in &self.batches {
            if self.epochs.last().map(|(e, _)| *e) != Some(b.epoch) {
                self.epochs.push((b.epoch, b.base_offset));
            }
        }
    }

    fn truncate_internal(&mut self, offset: i64) -> i64 {
        while self
            .batches
            .last()
            .is_some_and(|b| b.last_offset() >= offset)
        {
            self.batches.pop();
        }
        let end = self.end_offset();
        self.epochs.retain(|(_, start)| *start < end);
        if self.durable_end > end {
            self.durable_end = end;
        }
        end
    }
}

impl RaftLog for MemoryLog {
    fn start_offset(&self) -> i64 {
        self.start_offset
    }

    fn end_offset(&self) -> i64 {
        self.batches
            .last()
            .map(Batch::next_offset)
            .unwrap_or(self.start_offset)
    }

    fn last_fetched_epoch(&self) -> i32 {
        match self.batches.last() {
            Some(b) => b.epoch,
            None => self
                .snapshots
                .keys()
                .next_back()
                .filter(|(o, _)| *o == self.start_offset)
                .map(|(_, e)| *e)
                .unwrap_or(0),
        }
    }

    fn end_offset_for_epoch(&self, epoch: i32) -> OffsetAndEpoch {
        epoch_cache_lookup(
            &self.epochs,
            epoch,
            self.end_offset(),
            self.last_fetched_epoch(),
            self.earliest_snapshot_id(),
        )
    }

    fn read(&self, start: i64, max_bytes: usize) -> Vec<Batch> {
        let idx = self.batches.partition_point(|b| b.next_offset() <= start);
        let mut out = Vec::new();
        let mut size = 0usize;
        for b in &self.batches[idx..] {
            let s = b.size_estimate();
            if !out.is_empty() && size + s > max_bytes {
                break;
            }
            size += s;
            out.push(b.clone());
        }
        out
    }

    fn append(&mut self, batch: Batch) -> Result<(), LogError> {
        let end = self.end_offset();
        if batch.base_offset != end || batch.records.is_empty() {
            return Err(LogError::OffsetMismatch {
                base: batch.base_offset,
                end,
            });
        }
        let last = self.last_fetched_epoch();
        if batch.epoch < last {
            return Err(LogError::EpochRegression {
                epoch: batch.epoch,
                last,
            });
        }
        if self.epochs.last().map(|(e, _)| *e) != Some(batch.epoch) {
            self.epochs.push((batch.epoch, batch.base_offset));
        }
        self.batches.push(batch);
        Ok(())
    }

    fn truncate_to(&mut self, offset: i64) -> i64 {
        let before = self.end_offset();
        let end = self.truncate_internal(offset);
        if end < before {
            self.truncations.push(end);
        }
        end
    }

    fn latest_snapshot(&self) -> Option<SnapshotInfo> {
        self.snapshots
            .iter()
            .next_back()
            .map(|((o, e), s)| SnapshotInfo {
                id: OffsetAndEpoch::new(*o, *e),
                size: s.bytes.len() as u64,
            })
    }

    fn earliest_snapshot_id(&self) -> Option<SnapshotId> {
        self.snapshots
            .keys()
            .next()
            .map(|(o, e)| OffsetAndEpoch::new(*o, *e))
    }

    fn latest_snapshot_control(&self) -> Option<SnapshotControl> {
        self.snapshots
            .values()
            .next_back()
            .map(|s| s.control.clone())
    }

    fn read_snapshot(
        &self,
        id: SnapshotId,
        position: u64,
        max_bytes: usize,
    ) -> Option<(Bytes, u64)> {
        let snap = self.snapshots.get(&(id.offset, id.epoch))?;
        let size = snap.bytes.len() as u64;
        let start = position.min(size) as usize;
        let end = (start + max_bytes).min(size as usize);
        Some((snap.bytes.slice(start..end), size))
    }

    fn begin_snapshot_download(&mut self, id: SnapshotId) -> Result<bool, LogError> {
        if self.snapshots.contains_key(&(id.offset, id.epoch)) {
            return Ok(false);
        }
        self.downloading = Some((id, BytesMut::new()));
        Ok(true)
    }

    fn snapshot_download_size(&self, id: SnapshotId) -> Option<u64> {
        match &self.downloading {
            Some((d, buf)) if *d == id => Some(buf.len() as u64),
            _ => None,
        }
    }

    fn append_snapshot_chunk(&mut self, id: SnapshotId, bytes: &[u8]) -> Result<u64, LogError> {
        match &mut self.downloading {
            Some((d, buf)) if *d == id => {
                buf.extend_from_slice(bytes);
                Ok(buf.len() as u64)
            }
            _ => Err(LogError::Snapshot(format!(
                "no download of {id:?} in progress"
            ))),
        }
    }

    fn complete_snapshot_download(&mut self, id: SnapshotId) -> Result<(), LogError> {
        let (d, buf) = self
            .downloading
            .take()
            .ok_or_else(|| LogError::Snapshot("no download in progress".into()))?;
        if d != id {
            return Err(LogError::Snapshot(format!("downloading {d:?}, not {id:?}")));
        }
        let bytes = buf.freeze();
        let (control, batches) = decode_snapshot(bytes.clone())
            .ok_or_else(|| LogError::Snapshot("corrupt snapshot".into()))?;
        self.snapshots.insert(
            (id.offset, id.epoch),
            MemSnapshot {
                bytes,
                control,
                batches,
            },
        );
        // Truncate fully and start after the snapshot; forget older snapshots.
        self.batches.clear();
        self.epochs.clear();
        self.start_offset = id.offset;
        self.durable_end = id.offset;
        self.truncations.push(id.offset);
        self.snapshots
            .retain(|(o, e), _| (*o, *e) >= (id.offset, id.epoch));
        Ok(())
    }

    fn abort_snapshot_download(&mut self, id: SnapshotId) {
        if matches!(&self.downloading, Some((d, _)) if *d == id) {
            self.downloading = None;
        }
    }
}

// ---------------------------------------------------------------------------
// A tiny private encoding for memory snapshots.

fn put_str(buf: &mut BytesMut, s: &str) {
    buf.put_u16(s.len() as u16);
    buf.put_slice(s.as_bytes());
}

fn get_str(buf: &mut Bytes) -> Option<String> {
    if buf.remaining() < 2 {
        return None;
    }
    let len = buf.get_u16() as usize;
    if buf.remaining() < len {
        return None;
    }
    let b = buf.split_to(len);
    String::from_utf8(b.to_vec()).ok()
}

fn put_voters(buf: &mut BytesMut, voters: &VoterSet) {
    buf.put_u32(voters.len() as u32);
    for v in voters.nodes() {
        buf.put_i32(v.key.id);
        buf.put_u128(v.key.wire_directory_id().as_u128());
        buf.put_u32(v.endpoints.len() as u32);
        for e in v.endpoints.iter() {
            put_str(buf, &e.name);
            put_str(buf, &e.host);
            buf.put_u16(e.port);
        }
        buf.put_i16(v.kraft_version.min);
        buf.put_i16(v.kraft_version.max);
    }
}

fn get_voters(buf: &mut Bytes) -> Option<VoterSet> {
    if buf.remaining() < 4 {
        return None;
    }
    let n = buf.get_u32();
    let mut nodes = Vec::new();
    for _ in 0..n {
        if buf.remaining() < 24 {
            return None;
        }
        let id = buf.get_i32();
        let dir = Uuid::from_u128(buf.get_u128());
        let ne = buf.get_u32();
        let mut eps = Vec::new();
        for _ in 0..ne {
            let name = get_str(buf)?;
            let host = get_str(buf)?;
            if buf.remaining() < 2 {
                return None;
            }
            eps.push(Endpoint::new(name, host, buf.get_u16()));
        }
        if buf.remaining() < 4 {
            return None;
        }
        let min = buf.get_i16();
        let max = buf.get_i16();
        nodes.push(VoterNode::new(
            ReplicaKey::of(id, dir),
            Endpoints::new(eps),
            KRaftVersionRange::new(min, max),
        ));
    }
    Some(VoterSet::new(nodes))
}

fn put_ids(buf: &mut BytesMut, ids: &[i32]) {
    buf.put_u32(ids.len() as u32);
    for id in ids {
        buf.put_i32(*id);
    }
}

fn get_ids(buf: &mut Bytes) -> Option<Vec<i32>> {
    if buf.remaining() < 4 {
        return None;
    }
    let n = buf.get_u32() as usize;
    if buf.remaining() < n * 4 {
        return None;
    }
    Some((0..n).map(|_| buf.get_i32()).collect())
}

fn encode_snapshot(control: &SnapshotControl, batches: &[Batch]) -> Bytes {
    let mut buf = BytesMut::new();
    match &control.voters {
        Some(v) => {
            buf.put_u8(1);
            put_voters(&mut buf, v);
        }
        None => buf.put_u8(0),
    }
    match control.kraft_version {
        Some(k) => {
            buf.put_u8(1);
            buf.put_i16(k);
        }
        None => buf.put_u8(0),
    }
    buf.put_u32(batches.len() as u32);
    for b in batches {
        buf.put_i64(b.base_offset);
        buf.put_i32(b.epoch);
        buf.put_i64(b.append_time);
        buf.put_u32(b.records.len() as u32);
        for r in &b.records {
            match r {
                Record::Data(d) => {
                    buf.put_u8(0);
                    buf.put_u32(d.len() as u32);
                    buf.put_slice(d);
                }
                Record::Control(ControlRecord::LeaderChange(l)) => {
                    buf.put_u8(1);
                    buf.put_i32(l.leader_id);
                    put_ids(&mut buf, &l.voters);
                    put_ids(&mut buf, &l.granting_voters);
                }
                Record::Control(ControlRecord::SnapshotHeader {
                    last_contained_log_timestamp,
                }) => {
                    buf.put_u8(2);
                    buf.put_i64(*last_contained_log_timestamp);
                }
                Record::Control(ControlRecord::SnapshotFooter) => buf.put_u8(3),
                Record::Control(ControlRecord::KRaftVersion(k)) => {
                    buf.put_u8(4);
                    buf.put_i16(*k);
                }
                Record::Control(ControlRecord::Voters(v)) => {
                    buf.put_u8(5);
                    put_voters(&mut buf, v);
                }
            }
        }
    }
    buf.freeze()
}

/// Decodes a memory snapshot; `None` when malformed.
pub fn decode_snapshot(mut buf: Bytes) -> Option<(SnapshotControl, Vec<Batch>)> {
    let mut control = SnapshotControl::default();
    if buf.remaining() < 1 {
        return None;
    }
    if buf.get_u8() == 1 {
        control.voters = Some(get_voters(&mut buf)?);
    }
    if buf.remaining() < 1 {
        return None;
    }
    if buf.get_u8() == 1 {
        if buf.remaining() < 2 {
            return None;
        }
        control.kraft_version = Some(buf.get_i16());
    }
    if buf.remaining() < 4 {
        return None;
    }
    let nb = buf.get_u32();
    let mut batches = Vec::new();
    for _ in 0..nb {
        if buf.remaining() < 24 {
            return None;
        }
        let base_offset = buf.get_i64();
        let epoch = buf.get_i32();
        let append_time = buf.get_i64();
        let nr = buf.get_u32();
        let mut records = Vec::new();
        for _ in 0..nr {
            if buf.remaining() < 1 {
                return None;
            }
            let rec = match buf.get_u8() {
                0 => {
                    if buf.remaining() < 4 {
                        return None;
                    }
                    let len = buf.get_u32() as usize;
                    if buf.remaining() < len {
                        return None;
                    }
                    Record::Data(buf.split_to(len))
                }
                1 => {
                    if buf.remaining() < 4 {
                        return None;
                    }
                    let leader_id = buf.get_i32();
                    let voters = get_ids(&mut buf)?;
                    let granting_voters = get_ids(&mut buf)?;
                    Record::Control(ControlRecord::LeaderChange(LeaderChangeMessage {
                        leader_id,
                        voters,
                        granting_voters,
                    }))
                }
                2 => {
                    if buf.remaining() < 8 {
                        return None;
                    }
                    Record::Control(ControlRecord::SnapshotHeader {
                        last_contained_log_timestamp: buf.get_i64(),
                    })
                }
                3 => Record::Control(ControlRecord::SnapshotFooter),
                4 => {
                    if buf.remaining() < 2 {
                        return None;
                    }
                    Record::Control(ControlRecord::KRaftVersion(buf.get_i16()))
                }
                5 => Record::Control(ControlRecord::Voters(get_voters(&mut buf)?)),
                _ => return None,
            };
            records.push(rec);
        }
        batches.push(Batch {
            base_offset,
            epoch,
            append_time,
            records,
            encoded: Default::default(),
        });
    }
    Some((control, batches))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn data_batch(base: i64, epoch: i32, n: usize) -> Batch {
        Batch {
            base_offset: base,
            epoch,
            append_time: 0,
            records: (0..n)
                .map(|i| Record::Data(Bytes::from(format!("r{base}-{i}"))))
                .collect(),
            encoded: Default::default(),
        }
    }

    #[test]
    fn epoch_cache_matches_kafka_rules() {
        let mut log = MemoryLog::new();
        log.append(data_batch(0, 1, 2)).unwrap();
        log.append(data_batch(2, 1, 2)).unwrap();
        log.append(data_batch(4, 3, 3)).unwrap();
        log.append(data_batch(7, 5, 1)).unwrap();
        assert_eq!(log.end_offset_for_epoch(5), OffsetAndEpoch::new(8, 5));
        assert_eq!(log.end_offset_for_epoch(4), OffsetAndEpoch::new(7, 3));
        assert_eq!(log.end_offset_for_epoch(3), OffsetAndEpoch::new(7, 3));
        assert_eq!(log.end_offset_for_epoch(2), OffsetAndEpoch::new(4, 1));
        assert_eq!(log.end_offset_for_epoch(0), OffsetAndEpoch::new(0, 0));
        assert_eq!(log.end_offset_for_epoch(9), OffsetAndEpoch::new(8, 5));
        assert_eq!(log.truncate_to(5), 4);
        assert_eq!(log.last_fetched_epoch(), 1);
        assert_eq!(log.end_offset_for_epoch(3), OffsetAndEpoch::new(4, 1));
    }

    #[test]
    fn crash_drops_unflushed_tail() {
        let mut log = MemoryLog::new();
        log.append(data_batch(0, 1, 2)).unwrap();
        let t = log.issue_flush();
        log.append(data_batch(2, 1, 2)).unwrap();
        log.complete_flush(t);
        log.crash();
        assert_eq!(log.end_offset(), 2);
        // A flush issued before a truncation does not cover re-appended data.
        let t = log.issue_flush();
        log.truncate_to(0);
        log.append(data_batch(0, 2, 3)).unwrap();
        log.complete_flush(t);
        log.crash();
        assert_eq!(log.end_offset(), 0);
    }

    #[test]
    fn snapshot_round_trip() {
        let mut log = MemoryLog::new();
        log.append(data_batch(0, 1, 2)).unwrap();
        log.append(data_batch(2, 2, 2)).unwrap();
        let control = SnapshotControl {
            voters: None,
            kraft_version: Some(1),
        };
        let id = log.create_snapshot(4, control.clone()).unwrap();
        assert_eq!(id, OffsetAndEpoch::new(4, 2));
        let (bytes, size) = log.read_snapshot(id, 0, 1 << 20).unwrap();
        assert_eq!(size, bytes.len() as u64);
        let (c, batches) = decode_snapshot(bytes.clone()).unwrap();
        assert_eq!(c, control);
        assert_eq!(batches.len(), 2);
        let mut other = MemoryLog::new();
        assert!(other.begin_snapshot_download(id).unwrap());
        other.append_snapshot_chunk(id, &bytes[..3]).unwrap();
        other.append_snapshot_chunk(id, &bytes[3..]).unwrap();
        other.complete_snapshot_download(id).unwrap();
        assert_eq!(other.start_offset(), 4);
        assert_eq!(other.end_offset(), 4);
        assert_eq!(other.last_fetched_epoch(), 2);
    }
}
