//! Client quotas by entity (Kafka's `ClientQuotasImage` / `ClientQuotasDelta`).

use super::{MetadataRecord, WriteError, WriteOptions};

/// Client quotas by entity (Kafka's `ClientQuotasImage` / `ClientQuotasDelta`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ClientQuotasImage {}

impl ClientQuotasImage {
    /// Writes the records that rebuild this part, in Kafka's order.
    pub(super) fn write(
        &self,
        _options: &WriteOptions,
        _out: &mut Vec<MetadataRecord>,
    ) -> Result<(), WriteError> {
        Ok(())
    }
}
