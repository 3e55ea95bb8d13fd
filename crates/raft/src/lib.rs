//! kraft-rs raft layer.

pub mod codec;
pub mod core;
pub mod disk_log;
pub mod driver;
pub mod storage;
pub mod transport;
pub mod wire;
