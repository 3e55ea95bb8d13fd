// Shared by every fuzz target: a global allocator that tracks the bytes
// allocated while a decoder runs, so that a target can assert that what the
// decoders allocate stays proportional to their input, however the length
// prefixes lie. A claimed count is checked against the elements' minimum
// wire size before anything is reserved, and unknown tagged fields are kept
// as a slice of the input, so what remains is the in-memory size of minimal
// array elements: at most 34.7 bytes per wire byte (a topic with an empty
// name and no partitions: 3 bytes on the wire, 104 in memory; see the
// `memory` test of kraft-protocol). A decode that fails after lying counts
// at three nesting levels have each reserved for the same remaining input
// can reach 34.7 + 9.9 + 3.0 = 47.6 (FetchResponse topics, partitions,
// aborted transactions). The bound below covers that; the 8x target is not
// reachable while a string takes 32 bytes in memory for 1 on the wire.

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
    let bound = 48 * input_len + 4096;
    assert!(used <= bound, "decoding {input_len} bytes allocated {used} bytes (bound {bound})");
    out
}
