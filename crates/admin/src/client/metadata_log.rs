//! A copy of the committed metadata log, read from the active controller
//! as an observer reads it: Fetch (replica id -1) from offset 0; when the
//! leader answers with a snapshot id, FetchSnapshot chunk by chunk, then
//! Fetch again after the snapshot, until the high watermark. The copy is
//! written into a directory in the metadata log's own layout (one
//! `<end offset>-<epoch>.checkpoint` snapshot and one `<base offset>.log`
//! segment), so every tool that reads a metadata log directory reads it.

use std::io::Write;
use std::path::{Path, PathBuf};

use bytes::Bytes;
use kraft_protocol::messages::fetch_request::{
    FetchPartition, FetchRequest, FetchTopic, ReplicaState,
};
use kraft_protocol::messages::fetch_response::FetchResponse;
use kraft_protocol::messages::fetch_snapshot_request::{
    FetchSnapshotRequest, PartitionSnapshot, SnapshotId, TopicSnapshot,
};
use kraft_protocol::messages::fetch_snapshot_response::FetchSnapshotResponse;
use kraft_protocol::records::METADATA_TOPIC_ID;
use kraft_protocol::{ApiKey, ErrorCode, List, StrBytes};

use super::retry::{Attempt, Failure};
use super::{Admin, CLUSTER_METADATA_TOPIC};
use crate::connection::Connection;
use crate::error::{AdminError, ApiError, Result};

/// The most bytes one Fetch or FetchSnapshot asks for.
const MAX_BYTES: i32 = 8 * 1024 * 1024;
/// Record batch header: base offset (8), length (4), then the partition
/// leader epoch at 12, the magic at 16 and the last offset delta at 23.
const BATCH_HEADER: usize = 61;

/// What [`Admin::copy_metadata_log`] wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MetadataLogCopy {
    /// The snapshot copied (`(end offset, epoch)`), if the log starts with
    /// one.
    pub snapshot: Option<(i64, i32)>,
    /// The high watermark the copy ends at: it holds every committed
    /// record before it.
    pub high_watermark: i64,
    /// The segment file written, if any batch followed the snapshot.
    pub segment: Option<PathBuf>,
}

impl Admin {
    /// Copies the committed metadata log of the active controller into
    /// `dir` (which must exist and be empty): its latest snapshot, then
    /// the committed batches after it.
    pub async fn copy_metadata_log(&self, dir: &Path) -> Result<MetadataLogCopy> {
        let mut retry = self.retry("copyMetadataLog", None);
        loop {
            let attempt = async {
                clear(dir)?;
                let conn = self.target(&retry).await?;
                let timeout = retry.request_timeout(&self.inner.config);
                copy_from(&conn, dir, timeout).await
            }
            .await;
            if let Some(done) = self.next_step(&mut retry, attempt).await {
                return done;
            }
        }
    }
}

fn io_error(path: &Path, e: std::io::Error) -> AdminError {
    AdminError::Config(format!("cannot write {}: {e}", path.display()))
}

/// Empties `dir` of what an earlier attempt wrote.
fn clear(dir: &Path) -> Attempt<()> {
    let entries = std::fs::read_dir(dir).map_err(|e| Failure::fatal(io_error(dir, e)))?;
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.ends_with(".checkpoint") || name.ends_with(".log") {
            std::fs::remove_file(entry.path())
                .map_err(|e| Failure::fatal(io_error(&entry.path(), e)))?;
        }
    }
    Ok(())
}

/// An error code of the leader's answer as a failure: retried (after
/// finding the active controller again) when Kafka retries it.
fn check(code: i16, what: &str) -> Attempt<()> {
    if code == 0 {
        return Ok(());
    }
    let error = ApiError::new(
        ErrorCode::from_code(code),
        Some(format!("{what} of {CLUSTER_METADATA_TOPIC}-0 failed")),
    );
    if error.is_retriable() || error.code == ErrorCode::NotLeaderOrFollower {
        Err(Failure::retry(error.into()))
    } else {
        Err(Failure::fatal(error.into()))
    }
}

async fn copy_from(
    conn: &Connection,
    dir: &Path,
    timeout: std::time::Duration,
) -> Attempt<MetadataLogCopy> {
    let fetch_version = conn.version_for(ApiKey::Fetch)?;
    if fetch_version < 13 {
        return Err(Failure::fatal(AdminError::Config(format!(
            "the active controller speaks Fetch up to v{fetch_version}; reading the metadata log needs v13 (topic ids)"
        ))));
    }
    let mut copy = MetadataLogCopy {
        snapshot: None,
        high_watermark: 0,
        segment: None,
    };
    let (mut offset, mut epoch) = (0i64, 0i32);
    // The leader's epoch: a fetch must name it (and may not name a last
    // fetched epoch above it); the first answer tells it.
    let mut leader_epoch = 0i32;
    let mut segment: Option<std::fs::File> = None;
    loop {
        let request = fetch_request(offset, epoch, leader_epoch);
        let response: FetchResponse = conn.send(&request, fetch_version, timeout).await?;
        check(response.error_code, "Fetch")?;
        let partition = response
            .responses
            .first()
            .and_then(|t| t.partitions.first().map(|p| p.into_owned()))
            .ok_or_else(|| Failure::fatal(AdminError::Config("an empty Fetch answer".into())))?;
        let epoch_code = ErrorCode::from_code(partition.error_code);
        if matches!(
            epoch_code,
            ErrorCode::FencedLeaderEpoch | ErrorCode::UnknownLeaderEpoch
        ) && partition.current_leader.leader_epoch > leader_epoch
        {
            leader_epoch = partition.current_leader.leader_epoch;
            continue;
        }
        check(partition.error_code, "Fetch")?;
        if partition.snapshot_id.end_offset >= 0 && copy.snapshot.is_none() && offset == 0 {
            let id = (
                partition.snapshot_id.end_offset,
                partition.snapshot_id.epoch,
            );
            copy_snapshot(conn, dir, id, leader_epoch, timeout).await?;
            copy.snapshot = Some(id);
            (offset, epoch) = id;
            continue;
        }
        if partition.snapshot_id.end_offset >= 0 || partition.diverging_epoch.epoch >= 0 {
            // The log was truncated or cleaned under the copy: start over.
            return Err(Failure::retry(AdminError::Config(
                "the metadata log changed under the copy".into(),
            )));
        }
        copy.high_watermark = partition.high_watermark;
        let records = partition.records.clone().unwrap_or_default();
        let mut taken = 0usize;
        let mut next = None;
        for (start, len, last_offset, batch_epoch) in batches(&records) {
            if last_offset >= partition.high_watermark {
                break;
            }
            taken = start + len;
            next = Some((last_offset + 1, batch_epoch));
        }
        let Some(next) = next else {
            if offset >= partition.high_watermark {
                return Ok(copy);
            }
            // Committed records exist past `offset` but none came back.
            return Err(Failure::retry(AdminError::Config(format!(
                "Fetch at offset {offset} returned no committed batch below the high watermark {}",
                partition.high_watermark
            ))));
        };
        if segment.is_none() {
            let path = dir.join(format!("{offset:020}.log"));
            let file =
                std::fs::File::create(&path).map_err(|e| Failure::fatal(io_error(&path, e)))?;
            copy.segment = Some(path);
            segment = Some(file);
        }
        if let (Some(file), Some(path)) = (segment.as_mut(), copy.segment.as_ref()) {
            file.write_all(&records[..taken])
                .map_err(|e| Failure::fatal(io_error(path, e)))?;
        }
        (offset, epoch) = next;
        if offset >= partition.high_watermark {
            return Ok(copy);
        }
    }
}

/// The whole record batches of a Fetch answer: (start, length, last
/// offset, partition leader epoch) each; a partial batch at the end (the
/// answer was cut at its byte limit) is left out.
fn batches(records: &Bytes) -> Vec<(usize, usize, i64, i32)> {
    let mut out = Vec::new();
    let mut at = 0usize;
    while records.len() >= at + BATCH_HEADER {
        let b = &records[at..];
        let int = |i: usize| i32::from_be_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]);
        let base = i64::from_be_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]);
        let Ok(len) = usize::try_from(int(8)) else {
            break;
        };
        let total = 12 + len;
        if len + 12 < BATCH_HEADER || records.len() < at + total {
            break;
        }
        out.push((at, total, base + i64::from(int(23)), int(12)));
        at += total;
    }
    out
}

fn fetch_request(offset: i64, epoch: i32, leader_epoch: i32) -> FetchRequest {
    FetchRequest {
        cluster_id: None,
        replica_id: -1,
        replica_state: ReplicaState {
            replica_id: -1,
            replica_epoch: -1,
            ..Default::default()
        },
        max_wait_ms: 0,
        min_bytes: 0,
        max_bytes: MAX_BYTES,
        isolation_level: 0,
        // Leaders match the metadata partition by topic id only (Fetch
        // v13+); [`copy_from`] refuses older versions.
        topics: List::from([FetchTopic {
            topic_id: METADATA_TOPIC_ID,
            partitions: List::from([FetchPartition {
                partition: 0,
                current_leader_epoch: leader_epoch,
                fetch_offset: offset,
                last_fetched_epoch: epoch,
                log_start_offset: -1,
                partition_max_bytes: MAX_BYTES,
                ..Default::default()
            }]),
            ..Default::default()
        }]),
        ..Default::default()
    }
}

/// Copies snapshot `id` into `dir` chunk by chunk.
async fn copy_snapshot(
    conn: &Connection,
    dir: &Path,
    (end_offset, epoch): (i64, i32),
    leader_epoch: i32,
    timeout: std::time::Duration,
) -> Attempt<()> {
    let version = conn.version_for(ApiKey::FetchSnapshot)?;
    let path = dir.join(format!("{end_offset:020}-{epoch:010}.checkpoint"));
    let mut file = std::fs::File::create(&path).map_err(|e| Failure::fatal(io_error(&path, e)))?;
    let mut position = 0i64;
    loop {
        let request = FetchSnapshotRequest {
            cluster_id: None,
            replica_id: -1,
            max_bytes: MAX_BYTES,
            topics: List::from([TopicSnapshot {
                name: StrBytes::from_static(CLUSTER_METADATA_TOPIC),
                partitions: List::from([PartitionSnapshot {
                    partition: 0,
                    current_leader_epoch: leader_epoch,
                    snapshot_id: SnapshotId {
                        end_offset,
                        epoch,
                        ..Default::default()
                    },
                    position,
                    ..Default::default()
                }]),
                ..Default::default()
            }]),
            ..Default::default()
        };
        let response: FetchSnapshotResponse = conn.send(&request, version, timeout).await?;
        check(response.error_code, "FetchSnapshot")?;
        let partition = response
            .topics
            .first()
            .and_then(|t| t.partitions.first().map(|p| p.into_owned()))
            .ok_or_else(|| {
                Failure::fatal(AdminError::Config("an empty FetchSnapshot answer".into()))
            })?;
        check(partition.error_code, "FetchSnapshot")?;
        let chunk = &partition.unaligned_records;
        file.write_all(chunk)
            .map_err(|e| Failure::fatal(io_error(&path, e)))?;
        position += chunk.len() as i64;
        if position >= partition.size || chunk.is_empty() {
            return Ok(());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A batch header of `len` bytes after the length field.
    fn batch(base: i64, records: i32, epoch: i32, len: usize) -> Vec<u8> {
        let mut b = vec![0u8; 12 + len];
        b[..8].copy_from_slice(&base.to_be_bytes());
        b[8..12].copy_from_slice(&(len as i32).to_be_bytes());
        b[12..16].copy_from_slice(&epoch.to_be_bytes());
        b[16] = 2;
        b[23..27].copy_from_slice(&(records - 1).to_be_bytes());
        b
    }

    #[test]
    fn whole_batches_are_found_and_a_cut_one_is_left_out() {
        let mut data = batch(0, 3, 1, 70);
        data.extend(batch(3, 1, 2, 60));
        let cut = batch(4, 2, 2, 80);
        data.extend(&cut[..40]);
        assert_eq!(
            batches(&Bytes::from(data)),
            vec![(0, 82, 2, 1), (82, 72, 3, 2)]
        );
        assert!(batches(&Bytes::new()).is_empty());
    }
}
