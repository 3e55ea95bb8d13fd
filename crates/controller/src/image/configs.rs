//! Dynamic configurations by resource (Kafka's `ConfigurationsImage` / `ConfigurationsDelta`).

use super::{MetadataRecord, WriteError, WriteOptions};

/// Dynamic configurations by resource (Kafka's `ConfigurationsImage` / `ConfigurationsDelta`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ConfigurationsImage {}

impl ConfigurationsImage {
    /// Drops the configuration of a removed topic (Kafka's
    /// `ConfigurationsDelta.replay(RemoveTopicRecord, topicName)`).
    pub(super) fn remove_topic(&mut self, _topic_name: &str) {}

    /// Writes the records that rebuild this part, in Kafka's order.
    pub(super) fn write(
        &self,
        _options: &WriteOptions,
        _out: &mut Vec<MetadataRecord>,
    ) -> Result<(), WriteError> {
        Ok(())
    }
}
