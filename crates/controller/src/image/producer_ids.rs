//! The next producer id block (Kafka's `ProducerIdsImage` / `ProducerIdsDelta`).

use super::{MetadataRecord, WriteError, WriteOptions};

/// The next producer id block (Kafka's `ProducerIdsImage` / `ProducerIdsDelta`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProducerIdsImage {}

impl ProducerIdsImage {
    /// Writes the records that rebuild this part, in Kafka's order.
    pub(super) fn write(
        &self,
        _options: &WriteOptions,
        _out: &mut Vec<MetadataRecord>,
    ) -> Result<(), WriteError> {
        Ok(())
    }
}
