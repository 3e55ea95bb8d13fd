//! RecordBatch v2 parsing and record iteration on arbitrary bytes.
#![no_main]

#[path = "alloc_guard.rs"]
mod alloc_guard;

use bytes::Bytes;
use kraft_protocol::records::batches;
use libfuzzer_sys::fuzz_target;

#[global_allocator]
static GLOBAL: alloc_guard::Counting = alloc_guard::Counting;

fuzz_target!(|data: &[u8]| {
    let input = Bytes::copy_from_slice(data);
    drop(input.clone()); // shared, as the frame decoder hands frames over
    alloc_guard::bounded_plus(data.len(), 128, || {
        for batch in batches(input.clone()) {
            let Ok(batch) = batch else { break };
            if let Ok(records) = batch.records() {
                for record in records {
                    if record.is_err() {
                        break;
                    }
                }
            }
        }
    });
});
