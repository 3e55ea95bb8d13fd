//! `kraft-security`: TLS and SASL for Kafka's wire protocol, configured with
//! Kafka's own `ssl.*` and `sasl.*` keys.
//!
//! * [`tls`]: Kafka's SSL settings, key and trust stores ([`keystore`]),
//!   rustls server and client configurations, certificate reloading.
//! * [`principal`]: a client certificate's subject and
//!   `ssl.principal.mapping.rules`.
//! * [`jaas`]: `sasl.jaas.config` strings.
//! * [`sasl`]: the PLAIN and SCRAM mechanisms, server and client side.
//! * [`stream`]: a connection that is plain TCP or TLS.
//! * [`client`]: opening a secured connection to a Kafka node.

pub mod client;
pub mod error;
pub mod jaas;
pub mod keystore;
pub mod principal;
pub mod sasl;
pub mod secret;
pub mod stream;
pub mod tls;

pub use error::SecurityError;
pub use secret::Secret;
