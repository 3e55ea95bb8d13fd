//! Access control entries (Kafka's `AclsImage` / `AclsDelta`).

use super::{MetadataRecord, WriteError, WriteOptions};

/// Access control entries (Kafka's `AclsImage` / `AclsDelta`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AclsImage {}

impl AclsImage {
    /// Writes the records that rebuild this part, in Kafka's order.
    pub(super) fn write(
        &self,
        _options: &WriteOptions,
        _out: &mut Vec<MetadataRecord>,
    ) -> Result<(), WriteError> {
        Ok(())
    }
}
