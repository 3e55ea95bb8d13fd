//! Letting the kernel drop the page cache of log data that is durable.
//!
//! A segment's bytes are read back from the file only by readers the tail
//! cache of [`DiskLog`](crate::DiskLog) cannot serve (a replica catching up
//! from far behind, a restart). Kept in the page cache, every appended byte
//! would hold a page of memory until the kernel needs it for something
//! else, and every new byte would need a page the kernel has not handed out
//! before: on virtual machines whose free memory goes back to the host,
//! filling such a page costs about ten times a copy into a recycled one
//! (see `docs/benchmarks-analysis.md`). Once a range is durable it is
//! clean, so dropping it loses nothing; the pages come back for the next
//! appends, and a later read of the range reads the disk.

use std::fs::File;

/// Page granularity of the ranges handed to the kernel. The kernel keeps a
/// partial page at either end of a range, so a larger real page size only
/// drops less.
pub const PAGE: u64 = 4096;

/// Asks the kernel to drop the clean cached pages of `file` in
/// `[from, to)` (`posix_fadvise(POSIX_FADV_DONTNEED)`); dirty pages stay.
/// Advisory: a failure changes nothing but memory use and is ignored. A
/// no-op off Linux.
pub fn drop_clean_range(file: &File, from: u64, to: u64) {
    if to <= from {
        return;
    }
    #[cfg(target_os = "linux")]
    linux::dont_need(file, from, to - from);
    #[cfg(not(target_os = "linux"))]
    let _ = file;
}

#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
mod linux {
    use std::fs::File;
    use std::os::fd::AsRawFd;

    /// `POSIX_FADV_DONTNEED` on Linux.
    const POSIX_FADV_DONTNEED: i32 = 4;

    extern "C" {
        /// glibc/musl: advice about a byte range of an open file; returns 0
        /// or an error number, never touches memory of the caller.
        fn posix_fadvise(fd: i32, offset: i64, len: i64, advice: i32) -> i32;
    }

    pub(super) fn dont_need(file: &File, offset: u64, len: u64) {
        let (Ok(offset), Ok(len)) = (i64::try_from(offset), i64::try_from(len)) else {
            return;
        };
        // SAFETY: the descriptor belongs to `file`, borrowed for the whole
        // call, so it is open; posix_fadvise takes no pointers and only
        // changes the kernel's caching of that file.
        unsafe {
            posix_fadvise(file.as_raw_fd(), offset, len, POSIX_FADV_DONTNEED);
        }
    }
}
