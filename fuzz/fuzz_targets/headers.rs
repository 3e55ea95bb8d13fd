//! Request frames (header and body) on arbitrary bytes, as a server reads them.
#![no_main]

#[path = "alloc_guard.rs"]
mod alloc_guard;

use bytes::Bytes;
use kraft_protocol::header::{decode_request, decode_request_header};
use libfuzzer_sys::fuzz_target;

#[global_allocator]
static GLOBAL: alloc_guard::Counting = alloc_guard::Counting;

fuzz_target!(|data: &[u8]| {
    let frame = Bytes::copy_from_slice(data);
    drop(frame.clone()); // shared, as the frame decoder hands frames over
    alloc_guard::bounded(data.len(), || {
        let _ = decode_request_header(&mut frame.clone());
        let _ = decode_request(frame.clone());
    });
});
