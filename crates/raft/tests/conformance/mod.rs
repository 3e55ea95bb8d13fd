//! Ports of Kafka's reconfiguration unit cases (KafkaRaftClientReconfigTest)
//! and other single-replica behaviours, written against our core.

mod harness;
mod kip1141;
mod leaderless;
mod quorum;
mod reconfig;
mod robustness;
