//! SCRAM credentials (Kafka's `ScramImage` / `ScramDelta`).

use super::{MetadataRecord, WriteError, WriteOptions};

/// SCRAM credentials (Kafka's `ScramImage` / `ScramDelta`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ScramImage {}

impl ScramImage {
    /// Writes the records that rebuild this part, in Kafka's order.
    pub(super) fn write(
        &self,
        _options: &WriteOptions,
        _out: &mut Vec<MetadataRecord>,
    ) -> Result<(), WriteError> {
        Ok(())
    }
}
