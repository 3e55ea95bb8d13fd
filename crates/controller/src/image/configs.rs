//! Dynamic configurations by resource (Kafka's `ConfigurationsImage` / `ConfigurationsDelta`).

use super::{MetadataRecord, WriteError, WriteOptions};

/// Dynamic configurations by resource (Kafka's `ConfigurationsImage` / `ConfigurationsDelta`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ConfigurationsImage {}

impl ConfigurationsImage {
    /// Writes the records that rebuild this part, in Kafka's order.
    pub(super) fn write(
        &self,
        _options: &WriteOptions,
        _out: &mut Vec<MetadataRecord>,
    ) -> Result<(), WriteError> {
        Ok(())
    }
}
