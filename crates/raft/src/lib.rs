//! kraft-rs raft layer.

pub mod core;
