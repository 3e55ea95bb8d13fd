//! One log segment: `<base>.log` plus its sparse offset index `<base>.index`.

use std::fs::{File, OpenOptions};
use std::io::{BufReader, Read};
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use bytes::Bytes;
use kraft_protocol::records::{
    RecordBatch, RecordBatchHeader, LOG_OVERHEAD, RECORD_BATCH_OVERHEAD,
};

use super::fs::{io_err, read_exact_at, remove_if_exists, write_all_at, IoContext};
use super::page_cache::{drop_clean_range, PAGE};
use super::StorageError;

/// Suffix of segment data files.
pub(crate) const LOG_SUFFIX: &str = ".log";
/// Suffix of segment offset index files.
pub(crate) const INDEX_SUFFIX: &str = ".index";
/// An append of at most a quarter of this size that passes the end of the
/// file writes zeros after its data, up to the next multiple of this size
/// (the segment's zero tail, which starts with [`ZERO_TAIL_MARK`]). The
/// appends that follow overwrite it instead of growing the file, so the
/// fsync that makes them durable writes data pages only: a growing file's
/// fsync also writes its new size (a journal commit, or on ext4 without a
/// journal the inode's block), a second disk write that queues behind the
/// other replicas' on a shared disk (two staggered fsyncs of growing files
/// on one disk: ~600 µs each; of files written ahead: ~400 µs). Large
/// appends (a busy log) are written as they are. Recovery drops the zero
/// tail of the last segment; a segment loses it when a newer one is rolled
/// and when the log is closed.
pub(crate) const ZERO_TAIL_CHUNK: u64 = 64 * 1024;

/// Written right after the data when a zero tail follows it: a batch prefix
/// (base offset -1, length `i32::MAX`) that declares more bytes than any
/// file holds, so a reader of the live segment that walks its batches, such
/// as Kafka's `DumpLogSegments`, takes what follows for an incomplete batch
/// ("invalid bytes at the end") instead of failing on a length of 0.
pub(crate) const ZERO_TAIL_MARK: [u8; 12] = [
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f, 0xff, 0xff, 0xff,
];
/// Size of one index entry: relative offset (int32) + position (int32).
const INDEX_ENTRY_SIZE: usize = 8;

/// `<20-digit base offset><suffix>`.
pub(crate) fn segment_file_name(base_offset: i64, suffix: &str) -> String {
    format!("{base_offset:020}{suffix}")
}

/// Parses a segment data file name (`<20 digits>.log`).
pub(crate) fn parse_segment_file_name(name: &str) -> Option<i64> {
    let digits = name.strip_suffix(LOG_SUFFIX)?;
    if digits.len() != 20 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// A batch header seen while scanning a segment, with its position.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ScannedBatch {
    pub header: RecordBatchHeader,
    pub position: u64,
}

/// Why a scan of the segment stopped before its end.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ScanStop {
    /// The file ends inside a batch.
    Torn {
        available: u64,
        declared: Option<u64>,
    },
    /// A batch is malformed (bad length, magic, CRC, size limit).
    Corrupt(String),
}

/// The outcome of a scan: the valid prefix and why the scan stopped early.
pub(crate) struct ScanEnd {
    pub valid_bytes: u64,
    pub stop: Option<(u64, ScanStop)>,
    /// Bytes after the valid prefix that are a zero tail written ahead of
    /// the data (see [`ZERO_TAIL_CHUNK`]), not damage: all zeros, or
    /// [`ZERO_TAIL_MARK`] and zeros. `stop` is then `None`.
    pub zero_tail: u64,
}

pub(crate) struct Segment {
    base_offset: i64,
    log_path: PathBuf,
    index_path: PathBuf,
    /// The data file, shared with the detached fsyncs running on another
    /// thread (see [`Segment::detach_sync`]).
    file: Arc<File>,
    /// Size of the valid data in bytes.
    size: u64,
    /// Length of the file: the data, then the zero tail (see
    /// [`ZERO_TAIL_CHUNK`]).
    file_len: u64,
    /// Offset after the last batch (= base offset when empty).
    next_offset: i64,
    /// Sparse index: (last offset of a batch − base offset, batch position).
    index: Vec<(u32, u32)>,
    index_file: File,
    bytes_since_index: u64,
    /// Appends since the segment was opened.
    writes: u64,
    /// How many of those appends are known to be durable.
    synced_writes: u64,
    /// The data below this position is durable and its clean pages were
    /// handed back to the kernel (see [`super::page_cache`]).
    page_cache_dropped_below: u64,
}

/// A detached fsync of a segment: a shared handle of its data file (see
/// [`Segment::detach_sync`]).
#[derive(Debug)]
pub(crate) struct DetachedSync {
    log: Arc<File>,
    path: PathBuf,
    /// The range whose pages are clean once the fsync succeeds.
    durable_pages: (u64, u64),
}

impl DetachedSync {
    /// fsyncs the data file, then lets the kernel drop the pages it made
    /// clean; may run on any thread.
    pub(crate) fn run(self) -> Result<(), StorageError> {
        self.log.sync_data().at(&self.path)?;
        drop_clean_range(&self.log, self.durable_pages.0, self.durable_pages.1);
        Ok(())
    }
}

impl Segment {
    /// Creates a new, empty segment (replacing stale files of that name).
    pub(crate) fn create(dir: &Path, base_offset: i64) -> Result<Segment, StorageError> {
        let log_path = dir.join(segment_file_name(base_offset, LOG_SUFFIX));
        let index_path = dir.join(segment_file_name(base_offset, INDEX_SUFFIX));
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(true)
            .open(&log_path)
            .at(&log_path)?;
        let index_file = File::create(&index_path).at(&index_path)?;
        Ok(Segment {
            base_offset,
            log_path,
            index_path,
            file: Arc::new(file),
            size: 0,
            file_len: 0,
            next_offset: base_offset,
            index: Vec::new(),
            index_file,
            bytes_since_index: 0,
            writes: 0,
            synced_writes: 0,
            page_cache_dropped_below: 0,
        })
    }

    /// Opens an existing segment; call [`Segment::scan`] next to learn its
    /// contents.
    pub(crate) fn open(dir: &Path, base_offset: i64) -> Result<Segment, StorageError> {
        let log_path = dir.join(segment_file_name(base_offset, LOG_SUFFIX));
        let index_path = dir.join(segment_file_name(base_offset, INDEX_SUFFIX));
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .open(&log_path)
            .at(&log_path)?;
        let size = file.metadata().at(&log_path)?.len();
        let index_file = OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(false)
            .open(&index_path)
            .at(&index_path)?;
        Ok(Segment {
            base_offset,
            log_path,
            index_path,
            file: Arc::new(file),
            size,
            file_len: size,
            next_offset: base_offset,
            index: Vec::new(),
            index_file,
            bytes_since_index: 0,
            writes: 0,
            synced_writes: 0,
            page_cache_dropped_below: 0,
        })
    }

    pub(crate) fn base_offset(&self) -> i64 {
        self.base_offset
    }

    pub(crate) fn next_offset(&self) -> i64 {
        self.next_offset
    }

    pub(crate) fn size(&self) -> u64 {
        self.size
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.size == 0
    }

    pub(crate) fn log_path(&self) -> &Path {
        &self.log_path
    }

    /// Walks the file batch by batch from the start, calling `on_batch` for
    /// each good one, and rebuilds the in-memory index. With `verify_crc`
    /// every batch is read whole and CRC-checked; otherwise only headers are
    /// read. Stops at the first torn or malformed batch (or when `on_batch`
    /// rejects one, breaking with the reason) and returns the valid prefix;
    /// nothing is modified.
    pub(crate) fn scan(
        &mut self,
        verify_crc: bool,
        max_batch_size: usize,
        index_interval: u64,
        mut on_batch: impl FnMut(&ScannedBatch) -> ControlFlow<String>,
    ) -> Result<ScanEnd, StorageError> {
        let file_size = self.file.metadata().at(&self.log_path)?.len();
        let reader_file = File::open(&self.log_path).at(&self.log_path)?;
        let mut reader = BufReader::with_capacity(256 * 1024, reader_file);
        self.index.clear();
        self.bytes_since_index = 0;
        self.next_offset = self.base_offset;
        let mut pos: u64 = 0;
        let mut header_buf = [0u8; RECORD_BATCH_OVERHEAD];
        let mut batch_buf: Vec<u8> = Vec::new();
        let stop = loop {
            let remaining = file_size - pos;
            if remaining == 0 {
                break None;
            }
            if remaining < LOG_OVERHEAD as u64 {
                break Some(ScanStop::Torn {
                    available: remaining,
                    declared: None,
                });
            }
            reader
                .read_exact(&mut header_buf[..LOG_OVERHEAD])
                .at(&self.log_path)?;
            let size = match RecordBatchHeader::size_from_prefix(&header_buf[..LOG_OVERHEAD]) {
                Ok(Some(size)) => size,
                Ok(None) => {
                    break Some(ScanStop::Torn {
                        available: remaining,
                        declared: None,
                    })
                }
                Err(e) => break Some(ScanStop::Corrupt(e.to_string())),
            };
            if size > max_batch_size {
                break Some(ScanStop::Corrupt(format!(
                    "batch of {size} bytes exceeds the maximum batch size {max_batch_size}"
                )));
            }
            if (size as u64) > remaining {
                break Some(ScanStop::Torn {
                    available: remaining,
                    declared: Some(size as u64),
                });
            }
            let header = if verify_crc {
                batch_buf.clear();
                batch_buf.extend_from_slice(&header_buf[..LOG_OVERHEAD]);
                batch_buf.resize(size, 0);
                reader
                    .read_exact(&mut batch_buf[LOG_OVERHEAD..])
                    .at(&self.log_path)?;
                match RecordBatch::parse(Bytes::copy_from_slice(&batch_buf)) {
                    Ok(batch) => batch.header(),
                    Err(e) => break Some(ScanStop::Corrupt(e.to_string())),
                }
            } else {
                reader
                    .read_exact(&mut header_buf[LOG_OVERHEAD..])
                    .at(&self.log_path)?;
                let header = match RecordBatchHeader::parse(&header_buf) {
                    Ok(h) => h,
                    Err(e) => break Some(ScanStop::Corrupt(e.to_string())),
                };
                reader
                    .seek_relative((size - RECORD_BATCH_OVERHEAD) as i64)
                    .at(&self.log_path)?;
                header
            };
            let scanned = ScannedBatch {
                header,
                position: pos,
            };
            if let ControlFlow::Break(reason) = on_batch(&scanned) {
                break Some(ScanStop::Corrupt(reason));
            }
            self.note_batch(&header, pos, index_interval);
            pos += size as u64;
        };
        let zero_tail = match stop {
            Some(_) if self.is_zero_tail(pos, file_size)? => file_size - pos,
            _ => 0,
        };
        Ok(ScanEnd {
            valid_bytes: pos,
            stop: stop.filter(|_| zero_tail == 0).map(|s| (pos, s)),
            zero_tail,
        })
    }

    /// Whether the bytes of the file from `from` to `to` are a zero tail:
    /// zeros, optionally after [`ZERO_TAIL_MARK`].
    fn is_zero_tail(&self, from: u64, to: u64) -> Result<bool, StorageError> {
        let mut buf = vec![0u8; ZERO_TAIL_CHUNK as usize];
        let mut pos = from;
        while pos < to {
            let n = (to - pos).min(buf.len() as u64) as usize;
            read_exact_at(&self.file, &mut buf[..n], pos).at(&self.log_path)?;
            let mut rest = &buf[..n];
            if pos == from {
                rest = rest.strip_prefix(&ZERO_TAIL_MARK[..]).unwrap_or(rest);
            }
            if rest.iter().any(|&b| b != 0) {
                return Ok(false);
            }
            pos += n as u64;
        }
        Ok(true)
    }

    /// Adds a batch to the in-memory index bookkeeping.
    fn note_batch(
        &mut self,
        header: &RecordBatchHeader,
        position: u64,
        index_interval: u64,
    ) -> Option<(u32, u32)> {
        let size = header.size_in_bytes() as u64;
        let mut entry = None;
        if self.index.is_empty() || self.bytes_since_index >= index_interval {
            let rel = (header.last_offset() - self.base_offset) as u32;
            let e = (rel, position as u32);
            self.index.push(e);
            self.bytes_since_index = 0;
            entry = Some(e);
        }
        self.bytes_since_index += size;
        self.next_offset = header.next_offset();
        self.size = position + size;
        entry
    }

    /// Makes the file end after the scanned prefix and rewrites the index
    /// file if it differs from the rebuilt index.
    pub(crate) fn finish_scan(&mut self, valid_bytes: u64) -> Result<(), StorageError> {
        let file_size = self.file.metadata().at(&self.log_path)?.len();
        if file_size != valid_bytes {
            self.file.set_len(valid_bytes).at(&self.log_path)?;
            self.file.sync_all().at(&self.log_path)?;
        }
        self.size = valid_bytes;
        self.file_len = valid_bytes;
        let wanted = self.index_bytes();
        let current = match std::fs::read(&self.index_path) {
            Ok(b) => Some(b),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(e) => return Err(io_err(&self.index_path, e)),
        };
        if current.as_deref() != Some(&wanted[..]) {
            self.rewrite_index(&wanted)?;
        }
        Ok(())
    }

    fn rewrite_index(&self, bytes: &[u8]) -> Result<(), StorageError> {
        self.index_file.set_len(0).at(&self.index_path)?;
        write_all_at(&self.index_file, bytes, 0).at(&self.index_path)
    }

    fn index_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.index.len() * INDEX_ENTRY_SIZE);
        for &(rel, pos) in &self.index {
            out.extend_from_slice(&rel.to_be_bytes());
            out.extend_from_slice(&pos.to_be_bytes());
        }
        out
    }

    /// Appends a validated batch at the end of the file (not yet durable),
    /// writing a zero tail after it if it passes the end of the file (see
    /// [`ZERO_TAIL_CHUNK`]; the file stays within `segment_bytes` unless
    /// the data alone passes it). On a failed write the file is cut back
    /// to its previous size.
    pub(crate) fn append(
        &mut self,
        batch: &RecordBatch,
        index_interval: u64,
        segment_bytes: u64,
    ) -> Result<(), StorageError> {
        let data = batch.as_bytes();
        let position = self.size;
        let end = position + data.len() as u64;
        let file_len = if end > self.file_len && data.len() as u64 <= ZERO_TAIL_CHUNK / 4 {
            (end.div_ceil(ZERO_TAIL_CHUNK) * ZERO_TAIL_CHUNK)
                .min(segment_bytes)
                .max(end)
        } else {
            end.max(self.file_len)
        };
        let mark = if file_len - end >= ZERO_TAIL_MARK.len() as u64 {
            &ZERO_TAIL_MARK[..]
        } else {
            &[]
        };
        // One write: the data, then the mark, then zeros up to a new end of
        // the file (over an existing zero tail the mark only moves).
        let write_end = if file_len > self.file_len {
            file_len
        } else {
            end + mark.len() as u64
        };
        let written = if write_end == end {
            write_all_at(&self.file, data, position)
        } else {
            let mut buf = Vec::with_capacity((write_end - position) as usize);
            buf.extend_from_slice(data);
            buf.extend_from_slice(mark);
            buf.resize((write_end - position) as usize, 0);
            write_all_at(&self.file, &buf, position)
        }
        .map(|()| file_len);
        match written {
            Ok(len) => self.file_len = len,
            Err(e) => {
                let _ = self.file.set_len(position);
                self.file_len = position;
                return Err(io_err(&self.log_path, e));
            }
        }
        self.writes += 1;
        let header = batch.header();
        if let Some((rel, pos)) = self.note_batch(&header, position, index_interval) {
            let mut entry = [0u8; INDEX_ENTRY_SIZE];
            entry[..4].copy_from_slice(&rel.to_be_bytes());
            entry[4..].copy_from_slice(&pos.to_be_bytes());
            let offset = ((self.index.len() - 1) * INDEX_ENTRY_SIZE) as u64;
            write_all_at(&self.index_file, &entry, offset).at(&self.index_path)?;
        }
        Ok(())
    }

    /// Cuts the zero tail off the file and makes the new length durable
    /// (before a newer segment is rolled, and when the log is closed).
    pub(crate) fn trim_zero_tail(&mut self) -> Result<(), StorageError> {
        if self.file_len > self.size {
            self.file.set_len(self.size).at(&self.log_path)?;
            self.file.sync_all().at(&self.log_path)?;
            self.file_len = self.size;
        }
        Ok(())
    }

    /// Whether appends that are not known to be durable exist.
    pub(crate) fn is_dirty(&self) -> bool {
        self.synced_writes < self.writes
    }

    /// fsyncs the data file if anything was written. The index file is
    /// not synced: opening a log scans every segment and rewrites an index
    /// file that differs from the one rebuilt from the data, so only the
    /// data must be durable (one fsync per flush, not two).
    pub(crate) fn sync(&mut self) -> Result<(), StorageError> {
        if self.is_dirty() {
            self.file.sync_data().at(&self.log_path)?;
            self.synced_writes = self.writes;
            let (from, to) = self.take_durable_pages();
            drop_clean_range(&self.file, from, to);
        }
        Ok(())
    }

    /// The whole pages written since the last call, up to the page holding
    /// the end of the data (the next append writes into that one): the
    /// range an fsync of everything written so far makes clean.
    fn take_durable_pages(&mut self) -> (u64, u64) {
        let from = self.page_cache_dropped_below;
        let to = (self.size / PAGE * PAGE).max(from);
        self.page_cache_dropped_below = to;
        (from, to)
    }

    /// An fsync of the appends so far (the first [`Segment::writes`]) that
    /// can run on another thread, or `None` when they are durable already.
    /// Report its success with [`Segment::synced`]; until then the appends
    /// still count as dirty.
    pub(crate) fn detach_sync(&mut self) -> Option<DetachedSync> {
        if !self.is_dirty() {
            return None;
        }
        Some(DetachedSync {
            log: Arc::clone(&self.file),
            path: self.log_path.clone(),
            durable_pages: self.take_durable_pages(),
        })
    }

    /// Appends since the segment was opened.
    pub(crate) fn writes(&self) -> u64 {
        self.writes
    }

    /// Records that the first `writes` appends are durable.
    pub(crate) fn synced(&mut self, writes: u64) {
        self.synced_writes = self.synced_writes.max(writes.min(self.writes));
    }

    /// Reads the header of the batch at `position`.
    pub(crate) fn header_at(&self, position: u64) -> Result<RecordBatchHeader, StorageError> {
        let mut buf = [0u8; RECORD_BATCH_OVERHEAD];
        read_exact_at(&self.file, &mut buf, position).at(&self.log_path)?;
        RecordBatchHeader::parse(&buf).map_err(|e| StorageError::Corrupt {
            path: self.log_path.clone(),
            reason: format!("batch at position {position}: {e}"),
        })
    }

    /// Position and header of the first batch whose last offset is
    /// `>= offset`, or `None` if every batch ends below `offset`.
    pub(crate) fn find(
        &self,
        offset: i64,
    ) -> Result<Option<(u64, RecordBatchHeader)>, StorageError> {
        if offset >= self.next_offset {
            return Ok(None);
        }
        let rel = (offset - self.base_offset).max(0);
        // Largest index entry whose batch ends at or below `offset`.
        let i = self.index.partition_point(|&(r, _)| i64::from(r) <= rel);
        let mut position = if i == 0 {
            0
        } else {
            u64::from(self.index[i - 1].1)
        };
        while position < self.size {
            let header = self.header_at(position)?;
            if header.last_offset() >= offset {
                return Ok(Some((position, header)));
            }
            position += header.size_in_bytes() as u64;
        }
        Ok(None)
    }

    /// Reads `len` bytes at `position`.
    pub(crate) fn read(&self, position: u64, len: usize) -> Result<Vec<u8>, StorageError> {
        let mut buf = vec![0u8; len];
        read_exact_at(&self.file, &mut buf, position).at(&self.log_path)?;
        Ok(buf)
    }

    /// Cuts the segment at `position` (a batch boundary); `next_offset`
    /// becomes the base offset of the batch that started there.
    pub(crate) fn truncate_at(
        &mut self,
        position: u64,
        next_offset: i64,
    ) -> Result<(), StorageError> {
        self.file.set_len(position).at(&self.log_path)?;
        self.file.sync_all().at(&self.log_path)?;
        self.size = position;
        self.file_len = position;
        self.page_cache_dropped_below = self.page_cache_dropped_below.min(position / PAGE * PAGE);
        self.next_offset = next_offset;
        self.index.retain(|&(_, p)| u64::from(p) < position);
        self.bytes_since_index = match self.index.last() {
            Some(&(_, p)) => position - u64::from(p),
            None => 0,
        };
        let bytes = self.index_bytes();
        self.rewrite_index(&bytes)?;
        self.synced_writes = self.writes;
        Ok(())
    }

    /// Deletes the segment's files (the caller fsyncs the directory).
    pub(crate) fn delete(self) -> Result<(), StorageError> {
        let Segment {
            file,
            index_file,
            log_path,
            index_path,
            ..
        } = self;
        drop(file);
        drop(index_file);
        remove_if_exists(&log_path)?;
        remove_if_exists(&index_path)?;
        Ok(())
    }
}
