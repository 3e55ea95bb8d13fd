//! Integration tests of kraft-controller: storage format compatibility with
//! Kafka 4.4.0 and the controller network server.

#![allow(clippy::unwrap_used)]

#[path = "controller/common.rs"]
mod common;
#[path = "controller/config_file.rs"]
mod config_file;
#[path = "controller/format_compat.rs"]
mod format_compat;
#[path = "controller/server.rs"]
mod server;
#[path = "controller/snapshots.rs"]
mod snapshots;
#[path = "controller/writer.rs"]
mod writer;
