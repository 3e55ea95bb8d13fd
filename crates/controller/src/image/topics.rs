//! Topics and their partitions (Kafka's `TopicsImage` / `TopicsDelta`).

use super::{MetadataRecord, WriteError, WriteOptions};

/// Topics and their partitions (Kafka's `TopicsImage` / `TopicsDelta`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TopicsImage {}

impl TopicsImage {
    /// Writes the records that rebuild this part, in Kafka's order.
    pub(super) fn write(
        &self,
        _options: &WriteOptions,
        _out: &mut Vec<MetadataRecord>,
    ) -> Result<(), WriteError> {
        Ok(())
    }
}
