//! Integration tests of kraft-protocol: property round trips of every
//! generated message at every version, version-gating rules, the metadata
//! record dispatch, and golden vectors from real Kafka 4.4.

mod alloc_count;
mod extensions;
mod golden;
mod memory;
mod metadata_records;
mod roundtrip;
