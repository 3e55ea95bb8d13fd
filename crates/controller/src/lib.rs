//! The kraft-rs controller layer.
//!
//! * [`activation`]: becoming the active controller (the bootstrap and
//!   transaction-abort records of Kafka's activation) and the idle NoOp
//!   writer.
//! * [`config`]: the controller's configuration, read from a Kafka-style
//!   `.properties` file.
//! * [`mod@format`]: `kraft storage format` / `random-uuid` / `info`, writing
//!   `meta.properties` and the bootstrap checkpoint exactly as Kafka 4.4's
//!   `kafka-storage` does.
//! * [`image`]: the metadata state machine (finalized features and
//!   controller registrations) fed with committed metadata records.
//! * [`features`]: metadata.version levels and feature definitions of
//!   Kafka 4.4.0.
//! * [`handlers`]: request handlers over the image and the [`handlers::RaftQuorum`]
//!   trait the raft driver implements.
//! * [`metrics`]: the `GET /metrics` endpoint (`kraft.metrics.listener`):
//!   the node's gauges in the Prometheus text format.
//! * [`server`]: the controller's TCP server (Kafka framing, in-order
//!   responses, graceful shutdown).
//! * [`snapshots`]: periodic snapshots of the image and the metadata log
//!   retention.
//!
//! Wiring a controller node (what the raft driver and the CLI do):
//!
//! ```text
//! let (config, warnings) = ControllerConfig::load(path)?;
//! let image = SharedImage::new();            // the driver applies committed records:
//!                                            //   image.apply_committed(...) / load_snapshot(...)
//! let quorum: Arc<dyn RaftQuorum> = driver;  // facts, append_and_commit, raft RPCs
//! let controller = Controller::new(ControllerSettings::from_config(&config, cluster_id), image, quorum);
//! let server = ControllerServer::start(ServerConfig::from_controller_config(&config), Arc::new(controller)).await?;
//! // ... server.shutdown().await on exit
//! ```
#![cfg_attr(doctest, doc = include_str!("../README.md"))]

pub mod activation;
mod bridge;
pub mod config;
pub mod features;
pub mod format;
pub mod handlers;
pub mod image;
pub mod java;
mod loader;
pub mod memory;
pub mod metrics;
pub mod node;
mod periodic;
mod registration_manager;
pub(crate) mod replication;
pub mod server;
pub mod snapshots;
pub(crate) mod topic_config;
