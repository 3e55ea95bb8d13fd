//! Small file-system helpers: positional I/O, directory fsync, atomic replace.

use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use super::StorageError;

/// Wraps an I/O error with the path it happened on.
pub(crate) fn io_err(path: &Path, source: io::Error) -> StorageError {
    StorageError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Extension to attach a path to `io::Result`s.
pub(crate) trait IoContext<T> {
    fn at(self, path: &Path) -> Result<T, StorageError>;
}

impl<T> IoContext<T> for io::Result<T> {
    fn at(self, path: &Path) -> Result<T, StorageError> {
        self.map_err(|e| io_err(path, e))
    }
}

/// Reads exactly `buf.len()` bytes at `pos` without moving any cursor.
#[cfg(unix)]
pub(crate) fn read_exact_at(file: &File, buf: &mut [u8], pos: u64) -> io::Result<()> {
    use std::os::unix::fs::FileExt;
    file.read_exact_at(buf, pos)
}

/// Reads exactly `buf.len()` bytes at `pos` without moving any cursor.
#[cfg(windows)]
pub(crate) fn read_exact_at(file: &File, mut buf: &mut [u8], mut pos: u64) -> io::Result<()> {
    use std::os::windows::fs::FileExt;
    while !buf.is_empty() {
        match file.seek_read(buf, pos)? {
            0 => return Err(io::ErrorKind::UnexpectedEof.into()),
            n => {
                buf = &mut buf[n..];
                pos += n as u64;
            }
        }
    }
    Ok(())
}

/// Writes all of `buf` at `pos` without moving any cursor.
#[cfg(unix)]
pub(crate) fn write_all_at(file: &File, buf: &[u8], pos: u64) -> io::Result<()> {
    use std::os::unix::fs::FileExt;
    file.write_all_at(buf, pos)
}

/// Writes all of `buf` at `pos` without moving any cursor.
#[cfg(windows)]
pub(crate) fn write_all_at(file: &File, mut buf: &[u8], mut pos: u64) -> io::Result<()> {
    use std::os::windows::fs::FileExt;
    while !buf.is_empty() {
        match file.seek_write(buf, pos)? {
            0 => return Err(io::ErrorKind::WriteZero.into()),
            n => {
                buf = &buf[n..];
                pos += n as u64;
            }
        }
    }
    Ok(())
}

/// Makes the directory's entries (created, renamed, deleted files) durable.
#[cfg(unix)]
pub(crate) fn sync_dir(dir: &Path) -> Result<(), StorageError> {
    File::open(dir).and_then(|d| d.sync_all()).at(dir)
}

/// Directory fsync is not available on this platform; renames are durable
/// once the file itself is.
#[cfg(not(unix))]
pub(crate) fn sync_dir(_dir: &Path) -> Result<(), StorageError> {
    Ok(())
}

/// The directory containing `path` (`.` for a bare file name).
pub(crate) fn parent_dir(path: &Path) -> PathBuf {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// Replaces `path` with `contents` atomically: write `tmp`, fsync it, rename
/// it over `path`, fsync the directory. The temporary file is removed if any
/// step fails.
pub(crate) fn replace_atomically(
    path: &Path,
    tmp: &Path,
    contents: &[u8],
) -> Result<(), StorageError> {
    write_file_atomically(path, tmp, contents, false)
}

/// Writes `contents` to `path` atomically, as Kafka writes `quorum-state`,
/// `meta.properties` and the bootstrap checkpoint: write `tmp` (owner-only
/// permissions when `read_only`), fsync it, make it read-only if asked,
/// rename it over `path`, fsync the directory. The temporary file is removed
/// if any step fails.
pub fn write_file_atomically(
    path: &Path,
    tmp: &Path,
    contents: &[u8],
    read_only: bool,
) -> Result<(), StorageError> {
    let result = (|| {
        let mut open = OpenOptions::new();
        open.write(true).create(true).truncate(true);
        #[cfg(unix)]
        if read_only {
            // Like Files.createTempFile: readable and writable by the owner only.
            use std::os::unix::fs::OpenOptionsExt;
            open.mode(0o600);
        }
        let mut f = open.open(tmp).at(tmp)?;
        f.write_all(contents).at(tmp)?;
        f.sync_all().at(tmp)?;
        drop(f);
        if read_only {
            let mut perms = std::fs::metadata(tmp).at(tmp)?.permissions();
            perms.set_readonly(true);
            std::fs::set_permissions(tmp, perms).at(tmp)?;
        }
        std::fs::rename(tmp, path).at(path)?;
        sync_dir(&parent_dir(path))
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(tmp);
    }
    result
}

/// Removes a file if it exists.
pub(crate) fn remove_if_exists(path: &Path) -> Result<bool, StorageError> {
    match std::fs::remove_file(path) {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(io_err(path, e)),
    }
}
