//! `kraft-admin`: an async admin client for a KRaft metadata quorum,
//! wire-compatible with Apache Kafka 4.4 controllers and brokers.
//!
//! ```no_run
//! # async fn demo() -> Result<(), kraft_admin::AdminError> {
//! use kraft_admin::{Admin, AdminConfig, RemoveRaftVoterOptions};
//!
//! let admin = Admin::connect(AdminConfig::bootstrap_controllers("localhost:9093")?).await?;
//! let quorum = admin.describe_metadata_quorum().await?;
//! println!("leader {} at epoch {}", quorum.leader_id, quorum.leader_epoch);
//! // KIP-1141: no directory id needed, the controller (or this client) derives it.
//! admin.remove_raft_voter(3, RemoveRaftVoterOptions::default()).await?;
//! # Ok(()) }
//! ```
//!
//! * [`Admin`]: the client (connection handling, version negotiation,
//!   active-controller discovery, retries until a deadline).
//! * [`AdminConfig`]: Kafka's admin client settings (`bootstrap.servers` /
//!   `bootstrap.controllers`, timeouts, backoff), also from a
//!   [`properties`] file.
//! * [`AdminError`] / [`ApiError`]: a Kafka error code becomes
//!   `AdminError::Api(ApiError { code, message })`, the typed
//!   [`ErrorCode`] plus the server's message.
//! * [`features`]: `metadata.version` names and levels, feature types.
//!
//! The library logs with `tracing` and never prints.
#![cfg_attr(doctest, doc = include_str!("../README.md"))]

mod client;
mod config;
mod connection;
mod error;
pub mod features;
pub mod kafka_uuid;

#[cfg(feature = "test-util")]
pub mod testing;
mod types;

pub use client::{Admin, MetadataLogCopy, CLUSTER_METADATA_TOPIC};
pub use config::{AdminConfig, Bootstrap, HostPort};
pub use error::{AdminError, ApiError, Result};
pub use features::{
    FeatureMetadata, FeatureUpdate, FinalizedVersionRange, MetadataVersion, SupportedVersionRange,
    UpgradeType,
};
pub use kraft_protocol::{ApiKey, ErrorCode, Uuid};
pub use types::{
    AddRaftVoterOptions, AddRaftVoterResult, ClusterDescription, ClusterNode,
    DescribeClusterOptions, DescribeFeaturesOptions, EndpointType, QuorumInfo, QuorumNode,
    RaftVoterEndpoint, RemoveRaftVoterOptions, RemoveRaftVoterResult, ReplicaState,
    UpdateFeaturesOptions, VoterKeySource,
};
