// Shared by every fuzz target: a global allocator that tracks the bytes
// allocated while a decoder runs, so that a target can assert the decoders
// never allocate more than 8x their input (plus a small fixed allowance for
// the first element of a collection), however the length prefixes lie.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

pub struct Counting;

static ALLOCATED: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATED.fetch_add(layout.size(), Ordering::Relaxed);
        System.alloc(layout)
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout)
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATED.fetch_add(new_size, Ordering::Relaxed);
        System.realloc(ptr, layout, new_size)
    }
}

/// Runs `f` and panics if it allocated more than the bound for `input_len`.
pub fn bounded<T>(input_len: usize, f: impl FnOnce() -> T) -> T {
    let before = ALLOCATED.load(Ordering::Relaxed);
    let out = f();
    let used = ALLOCATED.load(Ordering::Relaxed) - before;
    let bound = 8 * input_len + 4096;
    assert!(used <= bound, "decoding {input_len} bytes allocated {used} bytes (bound {bound})");
    out
}
