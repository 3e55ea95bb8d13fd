//! A global allocator for this test binary that counts, per thread, the
//! allocations and bytes requested, so tests can bound what decoding costs.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

/// Counting wrapper around the system allocator.
pub struct Counting;

thread_local! {
    static COUNT: Cell<usize> = const { Cell::new(0) };
    static BYTES: Cell<usize> = const { Cell::new(0) };
}

fn note(size: usize) {
    // `try_with`: the thread-local may be gone while a thread shuts down.
    let _ = COUNT.try_with(|c| c.set(c.get() + 1));
    let _ = BYTES.try_with(|b| b.set(b.get() + size));
}

// SAFETY: delegates to the system allocator unchanged.
#[allow(unsafe_code)]
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note(layout.size());
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note(new_size);
        // SAFETY: same contract as the caller's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Runs `f` and returns its result with the number of allocations and bytes
/// it made on this thread.
pub fn measure<T>(f: impl FnOnce() -> T) -> (T, usize, usize) {
    let (c0, b0) = (COUNT.with(Cell::get), BYTES.with(Cell::get));
    let out = f();
    let (c1, b1) = (COUNT.with(Cell::get), BYTES.with(Cell::get));
    (out, c1 - c0, b1 - b0)
}
