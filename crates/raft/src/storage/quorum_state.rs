//! The `quorum-state` file: Kafka's `QuorumStateData` as one line of JSON.

use std::path::{Path, PathBuf};

use base64::engine::general_purpose::{GeneralPurpose, GeneralPurposeConfig};
use base64::engine::DecodePaddingMode;
use base64::{alphabet, Engine};
use serde_json::Value;
use uuid::Uuid;

use super::fs::{io_err, remove_if_exists, replace_atomically};
use super::StorageError;
use crate::core::types::{NodeId, ReplicaKey};
use crate::core::ElectionState;

/// Name of the file inside the partition directory.
pub const QUORUM_STATE_FILE: &str = "quorum-state";
const DATA_VERSION: &str = "data_version";
const NOT_VOTED: i32 = -1;
const UNKNOWN_LEADER: i32 = -1;

const UUID_TEXT: GeneralPurpose = GeneralPurpose::new(
    &alphabet::URL_SAFE,
    GeneralPurposeConfig::new()
        .with_encode_padding(false)
        .with_decode_padding_mode(DecodePaddingMode::Indifferent),
);

/// Contents of `quorum-state` (Kafka's `QuorumStateData` plus the
/// `data_version` field). Version 1 is written for `kraft.version` 1,
/// version 0 for `kraft.version` 0.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QuorumStateData {
    /// `data_version`: 0 or 1.
    pub data_version: i16,
    /// `leaderId` (-1 = unknown).
    pub leader_id: i32,
    /// `leaderEpoch`.
    pub leader_epoch: i32,
    /// `votedId` (-1 = not voted).
    pub voted_id: i32,
    /// `votedDirectoryId` (v1; the nil UUID when unknown).
    pub voted_directory_id: Uuid,
    /// `clusterId` (v0 only; Kafka writes "").
    pub cluster_id: String,
    /// `appliedOffset` (v0 only; Kafka writes 0).
    pub applied_offset: i64,
    /// `currentVoters` (v0 only; null allowed).
    pub current_voters: Option<Vec<i32>>,
}

impl QuorumStateData {
    /// The state for `election` in the file version for `kraft_version`
    /// (0 → v0 with `voters` as `currentVoters`, otherwise v1), as Kafka's
    /// `ElectionState.toQuorumStateData` builds it.
    pub fn from_election_state(
        election: &ElectionState,
        kraft_version: i16,
        voters: &[NodeId],
    ) -> Self {
        let v0 = kraft_version == 0;
        QuorumStateData {
            data_version: if v0 { 0 } else { 1 },
            leader_id: election.leader_id.unwrap_or(UNKNOWN_LEADER),
            leader_epoch: election.epoch,
            voted_id: election.voted_key.map_or(NOT_VOTED, |k| k.id),
            voted_directory_id: if v0 {
                Uuid::nil()
            } else {
                election
                    .voted_key
                    .map_or(Uuid::nil(), |k| k.wire_directory_id())
            },
            cluster_id: String::new(),
            applied_offset: 0,
            current_voters: if v0 { Some(voters.to_vec()) } else { None },
        }
    }

    /// The election state recorded here (Kafka's `ElectionState.fromQuorumStateData`).
    pub fn to_election_state(&self) -> ElectionState {
        ElectionState {
            epoch: self.leader_epoch,
            leader_id: (self.leader_id != UNKNOWN_LEADER).then_some(self.leader_id),
            voted_key: (self.voted_id != NOT_VOTED)
                .then(|| ReplicaKey::of(self.voted_id, self.voted_directory_id)),
        }
    }

    /// The JSON line Kafka writes (Jackson's compact rendering, fields in
    /// schema order, `data_version` last, no trailing newline). Versions
    /// other than 0 are written as version 1.
    pub fn to_json(&self) -> String {
        if self.data_version == 0 {
            let voters = match &self.current_voters {
                None => "null".to_string(),
                Some(v) => {
                    let items: Vec<String> =
                        v.iter().map(|id| format!("{{\"voterId\":{id}}}")).collect();
                    format!("[{}]", items.join(","))
                }
            };
            format!(
                "{{\"clusterId\":{},\"leaderId\":{},\"leaderEpoch\":{},\"votedId\":{},\"appliedOffset\":{},\"currentVoters\":{},\"data_version\":0}}",
                Value::String(self.cluster_id.clone()),
                self.leader_id,
                self.leader_epoch,
                self.voted_id,
                self.applied_offset,
                voters
            )
        } else {
            format!(
                "{{\"leaderId\":{},\"leaderEpoch\":{},\"votedId\":{},\"votedDirectoryId\":\"{}\",\"data_version\":1}}",
                self.leader_id,
                self.leader_epoch,
                self.voted_id,
                UUID_TEXT.encode(self.voted_directory_id.as_bytes())
            )
        }
    }

    /// Parses the first line of a `quorum-state` file. Every field the
    /// version requires must be present with the right type; unknown fields
    /// are ignored (as Kafka does). The error is the reason of the
    /// [`StorageError::QuorumState`] that [`QuorumStateStore::read`] reports.
    pub(crate) fn from_json(text: &str) -> Result<QuorumStateData, String> {
        let line = text.lines().next().ok_or("the file is empty")?;
        let value: Value = serde_json::from_str(line).map_err(|e| format!("invalid JSON: {e}"))?;
        let obj = value
            .as_object()
            .ok_or_else(|| format!("{line} is not a JSON object"))?;
        let version = obj
            .get(DATA_VERSION)
            .ok_or_else(|| format!("no {DATA_VERSION} field"))?
            .as_i64()
            .ok_or_else(|| format!("{DATA_VERSION} is not an integer"))?;
        if !(0..=1).contains(&version) {
            return Err(format!(
                "data_version ({version}) is not within the min (0) and max (1) supported version"
            ));
        }
        let required = |name: &str, in_version: bool| -> Result<Option<&Value>, String> {
            match obj.get(name) {
                None if in_version => Err(format!(
                    "unable to locate field '{name}', which is mandatory in version {version}"
                )),
                v => Ok(v),
            }
        };
        let int32 = |name: &str, in_version: bool, default: i32| -> Result<i32, String> {
            match required(name, in_version)? {
                None => Ok(default),
                Some(v) => v
                    .as_i64()
                    .and_then(|n| i32::try_from(n).ok())
                    .ok_or_else(|| format!("{name} is not an int32: {v}")),
            }
        };
        let v0 = version == 0;
        let leader_id = int32("leaderId", true, UNKNOWN_LEADER)?;
        let leader_epoch = int32("leaderEpoch", true, -1)?;
        let voted_id = int32("votedId", true, NOT_VOTED)?;
        let voted_directory_id = match required("votedDirectoryId", !v0)? {
            None => Uuid::nil(),
            Some(v) => {
                let s = v
                    .as_str()
                    .ok_or_else(|| format!("votedDirectoryId is not a string: {v}"))?;
                let bytes = UUID_TEXT
                    .decode(s)
                    .map_err(|e| format!("votedDirectoryId {s:?} is not base64: {e}"))?;
                let bytes: [u8; 16] = bytes
                    .try_into()
                    .map_err(|_| format!("votedDirectoryId {s:?} is not 16 bytes"))?;
                Uuid::from_bytes(bytes)
            }
        };
        let cluster_id = match required("clusterId", v0)? {
            None => String::new(),
            Some(v) => v
                .as_str()
                .ok_or_else(|| format!("clusterId is not a string: {v}"))?
                .to_string(),
        };
        let applied_offset = match required("appliedOffset", v0)? {
            None => 0,
            Some(v) => v
                .as_i64()
                .ok_or_else(|| format!("appliedOffset is not an int64: {v}"))?,
        };
        let current_voters = match required("currentVoters", v0)? {
            None | Some(Value::Null) => None,
            Some(Value::Array(items)) => Some(
                items
                    .iter()
                    .map(|item| {
                        item.get("voterId")
                            .and_then(Value::as_i64)
                            .and_then(|n| i32::try_from(n).ok())
                            .ok_or_else(|| format!("invalid voter entry {item}"))
                    })
                    .collect::<Result<Vec<i32>, String>>()?,
            ),
            Some(v) => return Err(format!("currentVoters is not an array: {v}")),
        };
        Ok(QuorumStateData {
            data_version: version as i16,
            leader_id,
            leader_epoch,
            voted_id,
            voted_directory_id,
            cluster_id,
            applied_offset,
            current_voters: if v0 { current_voters } else { None },
        })
    }
}

/// The `quorum-state` file of a partition directory.
#[derive(Debug, Clone)]
pub struct QuorumStateStore {
    path: PathBuf,
    tmp_path: PathBuf,
}

impl QuorumStateStore {
    /// The store for `<dir>/quorum-state`.
    pub fn new(dir: &Path) -> Self {
        Self::at_path(dir.join(QUORUM_STATE_FILE))
    }

    /// The store for a file at an explicit path (temporary file: `<path>.tmp`).
    pub fn at_path(path: PathBuf) -> Self {
        let mut tmp = path.clone().into_os_string();
        tmp.push(".tmp");
        QuorumStateStore {
            path,
            tmp_path: PathBuf::from(tmp),
        }
    }

    /// Path of the file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Reads the file: `Ok(None)` if it does not exist; an error if it exists
    /// but cannot be read or parsed (never silently treated as absent).
    pub fn read(&self) -> Result<Option<QuorumStateData>, StorageError> {
        let bytes = match std::fs::read(&self.path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(io_err(&self.path, e)),
        };
        let text = std::str::from_utf8(&bytes).map_err(|_| StorageError::QuorumState {
            path: self.path.clone(),
            reason: "not valid UTF-8".to_string(),
        })?;
        QuorumStateData::from_json(text)
            .map(Some)
            .map_err(|reason| StorageError::QuorumState {
                path: self.path.clone(),
                reason,
            })
    }

    /// Replaces the file atomically: write `quorum-state.tmp`, fsync, rename,
    /// fsync the directory.
    pub fn write(&self, data: &QuorumStateData) -> Result<(), StorageError> {
        replace_atomically(&self.path, &self.tmp_path, data.to_json().as_bytes())
    }

    /// Reads the election state (`Ok(None)` if the file does not exist).
    pub fn read_election_state(&self) -> Result<Option<ElectionState>, StorageError> {
        Ok(self.read()?.map(|d| d.to_election_state()))
    }

    /// Writes the election state in the file version for `kraft_version`;
    /// `voters` fills v0's `currentVoters`.
    pub fn write_election_state(
        &self,
        election: &ElectionState,
        kraft_version: i16,
        voters: &[NodeId],
    ) -> Result<(), StorageError> {
        self.write(&QuorumStateData::from_election_state(
            election,
            kraft_version,
            voters,
        ))
    }

    /// Deletes the file and any leftover temporary file.
    pub fn clear(&self) -> Result<(), StorageError> {
        remove_if_exists(&self.path)?;
        remove_if_exists(&self.tmp_path)?;
        Ok(())
    }
}
