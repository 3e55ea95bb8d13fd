//! Control record keys (`ControlRecordType`).

use std::fmt;

use crate::DecodeError;

/// Size of a control record key: `int16 version` + `int16 type`.
pub const CONTROL_KEY_SIZE: usize = 4;
/// The control key schema version this crate writes.
pub const CONTROL_KEY_VERSION: i16 = 0;

/// The type of a control record, read from its 4-byte key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ControlRecordType {
    /// Transaction abort marker (0); not used by KRaft.
    Abort,
    /// Transaction commit marker (1); not used by KRaft.
    Commit,
    /// `LeaderChangeMessage` (2): written by a new leader at the start of its epoch.
    LeaderChange,
    /// `SnapshotHeaderRecord` (3): first record of a snapshot.
    SnapshotHeader,
    /// `SnapshotFooterRecord` (4): last record of a snapshot.
    SnapshotFooter,
    /// `KRaftVersionRecord` (5): the `kraft.version` feature level.
    KRaftVersion,
    /// `VotersRecord` (6): a complete voter set.
    KRaftVoters,
    /// Any other type id (kept); Kafka ignores such records.
    Unknown(i16),
}

impl ControlRecordType {
    /// The type id stored in the key.
    pub const fn id(self) -> i16 {
        match self {
            ControlRecordType::Abort => 0,
            ControlRecordType::Commit => 1,
            ControlRecordType::LeaderChange => 2,
            ControlRecordType::SnapshotHeader => 3,
            ControlRecordType::SnapshotFooter => 4,
            ControlRecordType::KRaftVersion => 5,
            ControlRecordType::KRaftVoters => 6,
            ControlRecordType::Unknown(id) => id,
        }
    }

    /// The type for a type id; unrecognised ids become [`ControlRecordType::Unknown`].
    pub const fn from_id(id: i16) -> ControlRecordType {
        match id {
            0 => ControlRecordType::Abort,
            1 => ControlRecordType::Commit,
            2 => ControlRecordType::LeaderChange,
            3 => ControlRecordType::SnapshotHeader,
            4 => ControlRecordType::SnapshotFooter,
            5 => ControlRecordType::KRaftVersion,
            6 => ControlRecordType::KRaftVoters,
            other => ControlRecordType::Unknown(other),
        }
    }

    /// Kafka's constant name (`LEADER_CHANGE`, ..., `UNKNOWN`).
    pub const fn name(self) -> &'static str {
        match self {
            ControlRecordType::Abort => "ABORT",
            ControlRecordType::Commit => "COMMIT",
            ControlRecordType::LeaderChange => "LEADER_CHANGE",
            ControlRecordType::SnapshotHeader => "SNAPSHOT_HEADER",
            ControlRecordType::SnapshotFooter => "SNAPSHOT_FOOTER",
            ControlRecordType::KRaftVersion => "KRAFT_VERSION",
            ControlRecordType::KRaftVoters => "KRAFT_VOTERS",
            ControlRecordType::Unknown(_) => "UNKNOWN",
        }
    }

    /// The 4-byte record key: version 0, then the type id (both big-endian).
    pub const fn key(self) -> [u8; CONTROL_KEY_SIZE] {
        let v = CONTROL_KEY_VERSION.to_be_bytes();
        let t = self.id().to_be_bytes();
        [v[0], v[1], t[0], t[1]]
    }

    /// Parses a control record key as Kafka does: fewer than 4 bytes or a
    /// negative key version is corrupt; a newer key version is read as
    /// version 0; bytes after the type are ignored.
    pub fn parse_key(key: &[u8]) -> Result<ControlRecordType, DecodeError> {
        if key.len() < CONTROL_KEY_SIZE {
            return Err(DecodeError::InvalidRecords(format!(
                "control record key must have at least {CONTROL_KEY_SIZE} bytes, found {}",
                key.len()
            )));
        }
        let version = i16::from_be_bytes([key[0], key[1]]);
        if version < 0 {
            return Err(DecodeError::InvalidRecords(format!(
                "invalid control record key version {version}"
            )));
        }
        Ok(ControlRecordType::from_id(i16::from_be_bytes([
            key[2], key[3],
        ])))
    }
}

impl fmt::Display for ControlRecordType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ControlRecordType::Unknown(id) => write!(f, "UNKNOWN({id})"),
            known => f.write_str(known.name()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_and_keys() {
        assert_eq!(ControlRecordType::LeaderChange.key(), [0, 0, 0, 2]);
        assert_eq!(ControlRecordType::SnapshotHeader.key(), [0, 0, 0, 3]);
        assert_eq!(ControlRecordType::SnapshotFooter.key(), [0, 0, 0, 4]);
        assert_eq!(ControlRecordType::KRaftVersion.key(), [0, 0, 0, 5]);
        assert_eq!(ControlRecordType::KRaftVoters.key(), [0, 0, 0, 6]);
        for id in -3..10 {
            assert_eq!(ControlRecordType::from_id(id).id(), id);
        }
        assert_eq!(ControlRecordType::from_id(7), ControlRecordType::Unknown(7));
    }

    #[test]
    fn key_parsing_rules() {
        assert_eq!(
            ControlRecordType::parse_key(&[0, 0, 0, 6]),
            Ok(ControlRecordType::KRaftVoters)
        );
        // newer key versions parse as version 0, extra bytes ignored
        assert_eq!(
            ControlRecordType::parse_key(&[0, 3, 0, 2, 0xff]),
            Ok(ControlRecordType::LeaderChange)
        );
        assert_eq!(
            ControlRecordType::parse_key(&[0, 0, 0, 42]),
            Ok(ControlRecordType::Unknown(42))
        );
        assert!(ControlRecordType::parse_key(&[0, 0, 0]).is_err());
        assert!(ControlRecordType::parse_key(&[0xff, 0xff, 0, 2]).is_err());
    }
}
