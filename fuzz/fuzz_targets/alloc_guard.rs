// Shared by every fuzz target: a global allocator that tracks the bytes
// allocated while a decoder runs, so that a target can assert that what the
// decoders allocate stays within 8x their input, however the length prefixes
// lie. Decoding keeps arrays of structs in the frame (one element inline, two
// or more as the checked slice they arrived in), strings and unknown tagged
// fields as slices of the input, and refuses a claimed count before reading
// it when the bytes left cannot hold that many of the smallest element; what
// remains on the heap is arrays of integers (no larger than their encoding),
// a struct's unknown tagged fields (a 32-byte handle for at least 3 bytes of
// input; a copy of their bytes when interleaved with known ones). A record
// batch decoder may add the text of an error (its description of what is
// wrong), for which record_batches allows a fixed 128 bytes. Targets make the
// input a shared buffer before measuring, as the frame decoder hands it over:
// the first clone of a `Bytes` made from a `Vec` allocates its shared header.

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

/// Runs `f` and panics if it allocated more than 8x `input_len` (message
/// decoders: their errors carry no text).
#[allow(dead_code)] // each target uses one of the two
pub fn bounded<T>(input_len: usize, f: impl FnOnce() -> T) -> T {
    bounded_plus(input_len, 0, f)
}

/// Runs `f` and panics if it allocated more than 8x `input_len` plus
/// `error_text` bytes (record batch decoders describe what is wrong).
#[allow(dead_code)] // each target uses one of the two
pub fn bounded_plus<T>(input_len: usize, error_text: usize, f: impl FnOnce() -> T) -> T {
    let before = ALLOCATED.load(Ordering::Relaxed);
    let out = f();
    let used = ALLOCATED.load(Ordering::Relaxed) - before;
    let bound = 8 * input_len + error_text;
    assert!(used <= bound, "decoding {input_len} bytes allocated {used} bytes (bound {bound})");
    out
}
