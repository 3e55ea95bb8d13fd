//! Delegation tokens (Kafka's `DelegationTokenImage` / `DelegationTokenDelta`).

use super::{MetadataRecord, WriteError, WriteOptions};

/// Delegation tokens (Kafka's `DelegationTokenImage` / `DelegationTokenDelta`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DelegationTokensImage {}

impl DelegationTokensImage {
    /// Writes the records that rebuild this part, in Kafka's order.
    pub(super) fn write(
        &self,
        _options: &WriteOptions,
        _out: &mut Vec<MetadataRecord>,
    ) -> Result<(), WriteError> {
        Ok(())
    }
}
