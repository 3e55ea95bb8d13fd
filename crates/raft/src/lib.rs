//! kraft-rs raft layer.

pub mod codec;
pub mod core;
pub mod disk_log;
pub mod storage;
pub mod driver;
pub mod transport;
pub mod wire;
