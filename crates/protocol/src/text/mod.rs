//! Kafka's text formats, one home each: Java `.properties` files
//! ([`properties`]) and the `host:port` / `NAME://host:port` address forms of
//! Kafka's configuration values and tool arguments ([`address`]).
//!
//! These are parsed here once; each caller adds only the error message its
//! Kafka counterpart prints.

pub mod address;
pub mod properties;

pub use address::HostPort;
pub use properties::{LoadError, Properties, PropertiesError};
