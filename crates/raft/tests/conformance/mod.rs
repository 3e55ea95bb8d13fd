//! Ports of Kafka's reconfiguration unit cases (KafkaRaftClientReconfigTest)
//! and other single-replica behaviours, written against our core.

mod harness;
mod quorum;
mod reconfig;
mod robustness;
