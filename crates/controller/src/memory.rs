//! Giving memory the process no longer uses back to the operating system.
//!
//! The controller frees large amounts at once in a few places (the write
//! state's image taken again from the committed image, a snapshot's encoded
//! records once written). glibc's allocator keeps freed chunks inside its
//! heaps, so the resident set would stay at its high-water mark; on glibc
//! targets [`release_free_memory`] asks it to return the whole free pages.
//! Elsewhere it does nothing.

/// Returns the allocator's free pages to the operating system (glibc's
/// `malloc_trim(0)`); a no-op on other targets. Costs about a millisecond
/// per hundred MiB of heap: call it after large frees, not per request.
pub fn release_free_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    glibc::trim();
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[allow(unsafe_code)]
mod glibc {
    extern "C" {
        /// glibc: releases free memory at the top of the heap and, since
        /// 2.8, every whole free page inside it; returns 1 if any was
        /// released.
        fn malloc_trim(pad: usize) -> std::os::raw::c_int;
    }

    pub(super) fn trim() {
        // SAFETY: malloc_trim takes no pointers, has no preconditions and
        // only changes the allocator's own bookkeeping under its own locks;
        // it is safe to call from any thread at any time.
        unsafe {
            malloc_trim(0);
        }
    }
}
