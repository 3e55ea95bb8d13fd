//! Snapshot files: `<20-digit end offset>-<10-digit epoch>.checkpoint`.

use std::collections::BTreeMap;
use std::fs::{File, OpenOptions};
use std::io::{BufReader, Read};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use bytes::Bytes;
use kraft_protocol::records::{ControlRecordType, RecordBatch, RecordBatchHeader, LOG_OVERHEAD};
use kraft_protocol::DecodeError;

use super::fs::{read_exact_at, remove_if_exists, sync_dir, write_all_at, IoContext};
use super::{SnapshotId, StorageError};

/// Suffix of a complete snapshot file.
pub const SNAPSHOT_SUFFIX: &str = ".checkpoint";
/// Suffix of a snapshot being written or downloaded.
pub const PARTIAL_SUFFIX: &str = ".checkpoint.part";
/// Suffix of a snapshot marked for deletion.
pub const SNAPSHOT_DELETE_SUFFIX: &str = ".checkpoint.deleted";

/// Largest batch accepted inside a snapshot file when validating it.
const MAX_SNAPSHOT_BATCH: usize = 64 * 1024 * 1024;

/// `<20-digit end offset>-<10-digit epoch>` (Kafka's `filenameFromSnapshotId`).
fn snapshot_stem(id: SnapshotId) -> String {
    format!("{:020}-{:010}", id.offset, id.epoch)
}

/// The file name of a complete snapshot, e.g.
/// `00000000000000000000-0000000000.checkpoint`.
pub fn snapshot_file_name(id: SnapshotId) -> String {
    format!("{}{SNAPSHOT_SUFFIX}", snapshot_stem(id))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SnapshotFileKind {
    Complete,
    Partial,
    Deleted,
}

/// Parses a snapshot-related file name as Kafka's `Snapshots.parse` does
/// (fixed-width offset and epoch, then one of the three suffixes).
fn parse_snapshot_file_name(name: &str) -> Option<(SnapshotId, SnapshotFileKind)> {
    let kind = if name.ends_with(PARTIAL_SUFFIX) {
        SnapshotFileKind::Partial
    } else if name.ends_with(SNAPSHOT_DELETE_SUFFIX) {
        SnapshotFileKind::Deleted
    } else if name.ends_with(SNAPSHOT_SUFFIX) {
        SnapshotFileKind::Complete
    } else {
        return None;
    };
    let b = name.as_bytes();
    if b.len() < 31 || b[20] != b'-' {
        return None;
    }
    let digits = |s: &[u8]| s.iter().all(u8::is_ascii_digit);
    if !digits(&b[..20]) || !digits(&b[21..31]) {
        return None;
    }
    if kind == SnapshotFileKind::Complete && b.len() != 31 + SNAPSHOT_SUFFIX.len() {
        return None;
    }
    let offset: i64 = name[..20].parse().ok()?;
    let epoch: i32 = name[21..31].parse().ok()?;
    Some((SnapshotId::new(offset, epoch), kind))
}

/// Checks a snapshot's structure while streaming it: whole batches with valid
/// CRCs, the first record a SNAPSHOT_HEADER control record, the last a
/// SNAPSHOT_FOOTER. A file that breaks these rules is
/// [`StorageError::Corrupt`].
fn validate_snapshot_file(path: &Path) -> Result<(), StorageError> {
    let corrupt = |reason: String| StorageError::Corrupt {
        path: path.to_path_buf(),
        reason,
    };
    let file = File::open(path).at(path)?;
    let size = file.metadata().at(path)?.len();
    let mut reader = BufReader::with_capacity(256 * 1024, file);
    let mut pos = 0u64;
    let mut first = true;
    let mut last_is_footer = false;
    let mut buf = Vec::new();
    while pos < size {
        let remaining = size - pos;
        if remaining < LOG_OVERHEAD as u64 {
            return Err(corrupt(format!(
                "{remaining} trailing bytes at position {pos}"
            )));
        }
        buf.clear();
        buf.resize(LOG_OVERHEAD, 0);
        reader.read_exact(&mut buf).at(path)?;
        let size_of_batch = match RecordBatchHeader::size_from_prefix(&buf) {
            Ok(Some(n)) if n <= MAX_SNAPSHOT_BATCH && n as u64 <= remaining => n,
            Ok(_) => return Err(corrupt(format!("incomplete batch at position {pos}"))),
            Err(e) => return Err(corrupt(format!("batch at position {pos}: {e}"))),
        };
        buf.resize(size_of_batch, 0);
        reader.read_exact(&mut buf[LOG_OVERHEAD..]).at(path)?;
        let batch = RecordBatch::parse(Bytes::copy_from_slice(&buf))
            .map_err(|e| corrupt(format!("batch at position {pos}: {e}")))?;
        let types =
            control_types(&batch).map_err(|e| corrupt(format!("batch at position {pos}: {e}")))?;
        if first && types.first() != Some(&ControlRecordType::SnapshotHeader) {
            return Err(corrupt(
                "the first record is not a SnapshotHeaderRecord".to_string(),
            ));
        }
        first = false;
        last_is_footer = types.last() == Some(&ControlRecordType::SnapshotFooter);
        pos += size_of_batch as u64;
    }
    if first {
        return Err(corrupt("the snapshot is empty".to_string()));
    }
    if !last_is_footer {
        return Err(corrupt(
            "the last record is not a SnapshotFooterRecord".to_string(),
        ));
    }
    Ok(())
}

/// The control record types of a control batch, in order (none for a data
/// batch).
fn control_types(batch: &RecordBatch) -> Result<Vec<ControlRecordType>, DecodeError> {
    if !batch.is_control() {
        return Ok(Vec::new());
    }
    batch
        .records()?
        .map(|r| r.and_then(|r| r.control_type()))
        .collect()
}

static TEMP_COUNTER: AtomicU64 = AtomicU64::new(0);

/// A snapshot being written (by the local state machine) or downloaded (from
/// the leader with FetchSnapshot), in a `….checkpoint.part` temporary file.
///
/// Bytes are appended as they come (whole batches, or arbitrary chunks of a
/// download). [`SnapshotStore::freeze`] (or [`super::FileLog::freeze_snapshot`])
/// validates, fsyncs and renames it into place. Dropping an unfrozen writer
/// deletes the temporary file.
#[derive(Debug)]
pub struct SnapshotWriter {
    id: SnapshotId,
    tmp_path: PathBuf,
    file: Option<File>,
    size: u64,
}

impl SnapshotWriter {
    /// The snapshot being written.
    pub fn id(&self) -> SnapshotId {
        self.id
    }

    /// Bytes written so far.
    pub fn size(&self) -> u64 {
        self.size
    }

    /// Path of the temporary file.
    pub fn temp_path(&self) -> &Path {
        &self.tmp_path
    }

    /// Appends bytes; returns the new size.
    pub fn append(&mut self, bytes: &[u8]) -> Result<u64, StorageError> {
        let Some(file) = &self.file else {
            return Err(StorageError::snapshot(self.id, "writer already closed"));
        };
        write_all_at(file, bytes, self.size).at(&self.tmp_path)?;
        self.size += bytes.len() as u64;
        Ok(self.size)
    }
}

impl Drop for SnapshotWriter {
    fn drop(&mut self) {
        if self.file.take().is_some() {
            let _ = std::fs::remove_file(&self.tmp_path);
        }
    }
}

/// The complete snapshots of a partition directory, by id, with their sizes.
#[derive(Debug)]
pub struct SnapshotStore {
    dir: PathBuf,
    snapshots: BTreeMap<SnapshotId, u64>,
}

impl SnapshotStore {
    /// Lists the snapshots in `dir`. Leftover partial (`.part`) and
    /// marked-for-deletion (`.deleted`) files are removed; their paths are
    /// returned.
    pub fn open(dir: &Path) -> Result<(SnapshotStore, Vec<PathBuf>), StorageError> {
        let mut snapshots = BTreeMap::new();
        let mut removed = Vec::new();
        for entry in std::fs::read_dir(dir).at(dir)? {
            let entry = entry.at(dir)?;
            let name = entry.file_name();
            let Some(name) = name.to_str() else { continue };
            let Some((id, kind)) = parse_snapshot_file_name(name) else {
                continue;
            };
            let path = entry.path();
            match kind {
                SnapshotFileKind::Complete => {
                    let size = entry.metadata().at(&path)?.len();
                    snapshots.insert(id, size);
                }
                SnapshotFileKind::Partial | SnapshotFileKind::Deleted => {
                    remove_if_exists(&path)?;
                    tracing::info!(path = %path.display(), "deleted leftover snapshot file");
                    removed.push(path);
                }
            }
        }
        if !removed.is_empty() {
            sync_dir(dir)?;
        }
        Ok((
            SnapshotStore {
                dir: dir.to_path_buf(),
                snapshots,
            },
            removed,
        ))
    }

    /// The directory holding the snapshots.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Path of the complete snapshot `id` (whether or not it exists).
    pub fn path(&self, id: SnapshotId) -> PathBuf {
        self.dir.join(snapshot_file_name(id))
    }

    /// Ids of all complete snapshots, oldest first.
    pub fn ids(&self) -> impl Iterator<Item = SnapshotId> + '_ {
        self.snapshots.keys().copied()
    }

    /// Whether snapshot `id` exists.
    pub fn contains(&self, id: SnapshotId) -> bool {
        self.snapshots.contains_key(&id)
    }

    /// Size in bytes of snapshot `id`.
    pub fn size(&self, id: SnapshotId) -> Option<u64> {
        self.snapshots.get(&id).copied()
    }

    /// The newest snapshot id.
    pub fn latest(&self) -> Option<SnapshotId> {
        self.snapshots.keys().next_back().copied()
    }

    /// The oldest snapshot id.
    pub fn earliest(&self) -> Option<SnapshotId> {
        self.snapshots.keys().next().copied()
    }

    /// Starts writing snapshot `id` into a new temporary file. Fails if the
    /// snapshot already exists.
    pub fn create_writer(&self, id: SnapshotId) -> Result<SnapshotWriter, StorageError> {
        if self.contains(id) {
            return Err(StorageError::snapshot(id, "already exists"));
        }
        let unique = format!(
            "{}-{}{}{PARTIAL_SUFFIX}",
            snapshot_stem(id),
            std::process::id(),
            TEMP_COUNTER.fetch_add(1, Ordering::Relaxed)
        );
        let tmp_path = self.dir.join(unique);
        let file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp_path)
            .at(&tmp_path)?;
        Ok(SnapshotWriter {
            id,
            tmp_path,
            file: Some(file),
            size: 0,
        })
    }

    /// Makes a written snapshot durable and visible: checks its structure
    /// (whole CRC-valid batches, header and footer records), fsyncs it,
    /// renames it to its final name and fsyncs the directory. On a failed
    /// check the temporary file is deleted and the error returned.
    pub fn freeze(&mut self, mut writer: SnapshotWriter) -> Result<u64, StorageError> {
        let id = writer.id;
        if self.contains(id) {
            return Err(StorageError::snapshot(id, "already exists"));
        }
        let Some(file) = writer.file.as_ref() else {
            return Err(StorageError::snapshot(id, "writer already closed"));
        };
        file.sync_all().at(&writer.tmp_path)?;
        match validate_snapshot_file(&writer.tmp_path) {
            Ok(()) => {}
            Err(StorageError::Corrupt { reason, .. }) => {
                return Err(StorageError::snapshot(
                    id,
                    format!("invalid snapshot: {reason}"),
                ))
            }
            Err(e) => return Err(e),
        }
        let final_path = self.path(id);
        std::fs::rename(&writer.tmp_path, &final_path).at(&final_path)?;
        writer.file = None; // the temp file is gone; nothing to clean up
        sync_dir(&self.dir)?;
        self.snapshots.insert(id, writer.size);
        Ok(writer.size)
    }

    /// Up to `max_bytes` of snapshot `id` from `position` (a FetchSnapshot
    /// chunk; not aligned to batches). Empty at the end of the snapshot.
    pub fn read_chunk(
        &self,
        id: SnapshotId,
        position: u64,
        max_bytes: usize,
    ) -> Result<Bytes, StorageError> {
        let size = self
            .size(id)
            .ok_or_else(|| StorageError::snapshot(id, "not found"))?;
        if position > size {
            return Err(StorageError::snapshot(
                id,
                format!("position {position} is beyond the snapshot size {size}"),
            ));
        }
        let len = (size - position).min(max_bytes as u64) as usize;
        let path = self.path(id);
        let file = File::open(&path).at(&path)?;
        let mut buf = vec![0u8; len];
        read_exact_at(&file, &mut buf, position).at(&path)?;
        Ok(Bytes::from(buf))
    }

    /// The whole snapshot `id`, after checking its structure (whole
    /// CRC-valid batches, header and footer records).
    pub fn load(&self, id: SnapshotId) -> Result<Bytes, StorageError> {
        if !self.contains(id) {
            return Err(StorageError::snapshot(id, "not found"));
        }
        let path = self.path(id);
        validate_snapshot_file(&path)?;
        let bytes = std::fs::read(&path).at(&path)?;
        Ok(Bytes::from(bytes))
    }

    /// Deletes snapshot `id`: renamed to `….checkpoint.deleted` first (so a
    /// crash never leaves a half-deleted snapshot under its real name), then
    /// removed; the directory is fsynced.
    pub fn delete(&mut self, id: SnapshotId) -> Result<bool, StorageError> {
        if self.snapshots.remove(&id).is_none() {
            return Ok(false);
        }
        let path = self.path(id);
        let deleted = self
            .dir
            .join(format!("{}{SNAPSHOT_DELETE_SUFFIX}", snapshot_stem(id)));
        std::fs::rename(&path, &deleted).at(&path)?;
        sync_dir(&self.dir)?;
        remove_if_exists(&deleted)?;
        tracing::info!(offset = id.offset, epoch = id.epoch, "deleted snapshot");
        Ok(true)
    }

    /// Deletes every snapshot older than `id`; returns their ids.
    pub fn delete_before(&mut self, id: SnapshotId) -> Result<Vec<SnapshotId>, StorageError> {
        let older: Vec<SnapshotId> = self.snapshots.range(..id).map(|(k, _)| *k).collect();
        for old in &older {
            self.delete(*old)?;
        }
        Ok(older)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_names() {
        let id = SnapshotId::new(1234, 7);
        assert_eq!(
            snapshot_file_name(id),
            "00000000000000001234-0000000007.checkpoint"
        );
        assert_eq!(
            parse_snapshot_file_name("00000000000000001234-0000000007.checkpoint"),
            Some((id, SnapshotFileKind::Complete))
        );
        assert_eq!(
            parse_snapshot_file_name("00000000000000001234-0000000007-123.checkpoint.part"),
            Some((id, SnapshotFileKind::Partial))
        );
        assert_eq!(
            parse_snapshot_file_name("00000000000000001234-0000000007.checkpoint.deleted"),
            Some((id, SnapshotFileKind::Deleted))
        );
        assert_eq!(
            parse_snapshot_file_name("00000000000000000000-0000000000.checkpoint"),
            Some((SnapshotId::new(0, 0), SnapshotFileKind::Complete))
        );
        for bad in [
            "00000000000000001234.log",
            "1234-7.checkpoint",
            "0000000000000000123x-0000000007.checkpoint",
            "00000000000000001234-0000000007x.checkpoint",
            "quorum-state",
        ] {
            assert_eq!(parse_snapshot_file_name(bad), None, "{bad}");
        }
    }
}
