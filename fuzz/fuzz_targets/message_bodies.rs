//! Every request and response body decoder, at every version, on arbitrary
//! bytes: never panics, never allocates beyond the bound; whatever decodes
//! re-encodes and decodes to the same value.
#![no_main]

#[path = "alloc_guard.rs"]
mod alloc_guard;

use bytes::Bytes;
use kraft_protocol::{ApiKey, RequestBody, ResponseBody};
use libfuzzer_sys::fuzz_target;

#[global_allocator]
static GLOBAL: alloc_guard::Counting = alloc_guard::Counting;

fuzz_target!(|data: &[u8]| {
    if data.len() < 3 {
        return;
    }
    let keys = ApiKey::ALL;
    let key = keys[data[0] as usize % keys.len()];
    let (lo, hi) = key.versions();
    let version = lo + (data[1] as i16 % (hi - lo + 1));
    let response = data[2] & 1 == 1;
    let body = Bytes::copy_from_slice(&data[3..]);
    drop(body.clone()); // shared, as the frame decoder hands frames over
    if response {
        let mut buf = body.clone();
        if let Ok(msg) = alloc_guard::bounded(body.len(), || ResponseBody::decode(key, version, &mut buf)) {
            let mut out = Vec::new();
            if msg.encode(&mut out, version).is_ok() {
                let again = ResponseBody::decode(key, version, &mut Bytes::from(out)).expect("re-decode");
                assert_eq!(again, msg);
            }
        }
    } else {
        let mut buf = body.clone();
        if let Ok(msg) = alloc_guard::bounded(body.len(), || RequestBody::decode(key, version, &mut buf)) {
            let mut out = Vec::new();
            if msg.encode(&mut out, version).is_ok() {
                let again = RequestBody::decode(key, version, &mut Bytes::from(out)).expect("re-decode");
                assert_eq!(again, msg);
            }
        }
    }
});
