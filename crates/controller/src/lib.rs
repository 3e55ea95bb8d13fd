//! The kraft-rs controller layer.
//!
//! Public, for the `kraft` binary and for embedding a controller:
//!
//! * [`node`]: a whole controller node ([`node::ControllerNode`]): start-up,
//!   shutdown, and the [`node::NodeFailure`] that stops it rather than let
//!   its image diverge from its log.
//! * [`config`]: the controller's configuration, read from a Kafka-style
//!   `.properties` file.
//! * [`mod@format`]: `kraft storage format` / `random-uuid` / `info`, writing
//!   `meta.properties` and the bootstrap checkpoint exactly as Kafka 4.4's
//!   `kafka-storage` does.
//! * [`format_scram`]: the `--add-scram` credentials of `kraft storage
//!   format` (Kafka's `ScramParser`).
//! * [`image`]: the metadata state machine fed with committed metadata
//!   records.
//! * [`authorizer`]: Kafka's `StandardAuthorizer` over the image's ACLs,
//!   ACL binding filters, and the checks of CreateAcls / DeleteAcls input.
//! * [`handlers`]: request handlers over the image and the
//!   [`handlers::RaftQuorum`] trait the raft driver implements.
//! * [`server`]: the controller's TCP server (Kafka framing, in-order
//!   responses, graceful shutdown).
//! * [`java`]: Kafka's random UUIDs and directory ids.
//! * [`loggers`]: this process's log levels, as BROKER_LOGGER resources.
//!
//! Inside the crate: `activation` (becoming the active controller),
//! `loader` (the image fed from the raft layer, fail-stop), `bridge` (the
//! raft driver as a [`handlers::RaftQuorum`]), `periodic` (the active
//! controller's periodic tasks), `registration_manager`, `snapshots`
//! (periodic snapshots and log retention), `metrics` (the `GET /metrics`
//! endpoint), `features` (metadata.version levels of Kafka 4.4.0),
//! `memory` and `replication` (Kafka's replication rules).
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

mod activation;
pub mod authorizer;
mod bridge;
pub mod config;
pub mod credentials;
mod features;
pub mod format;
pub mod format_scram;
pub mod handlers;
pub mod image;
pub mod java;
mod loader;
pub mod loggers;
mod memory;
mod metrics;
pub mod node;
mod periodic;
mod registration_manager;
pub(crate) mod replication;
pub mod server;
mod snapshots;
pub(crate) mod topic_config;
