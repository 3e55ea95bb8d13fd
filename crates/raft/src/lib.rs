//! kraft-rs raft layer.

pub mod codec;
pub mod core;
pub mod storage;
pub mod wire;
