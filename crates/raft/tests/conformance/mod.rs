//! Ports of Kafka's reconfiguration unit cases (KafkaRaftClientReconfigTest)
//! and other single-node behaviours, written against our core.
