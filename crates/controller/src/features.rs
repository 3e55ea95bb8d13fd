//! Feature flags: the `metadata.version` levels and production features of
//! Kafka 4.4.0, shared with the admin client (see [`kraft_protocol::features`]).

pub use kraft_protocol::features::*;
