//! The loader: feeds the metadata image from the raft layer, in log order
//! (Kafka's `QuorumMetaLogListener` and `MetadataLoader`), and stops the
//! node rather than let the image diverge from the log.
//!
//! * Committed batches are applied record by record. A record that decodes
//!   but cannot be applied (it contradicts the image) is fatal, as it is for
//!   Kafka's controller (`Unable to apply ... record at offset ... on standby
//!   controller`): nothing after it is applied, `applied` does not move past
//!   it, no snapshot is taken, and the node reports a [`NodeFailure`]. A
//!   record of a type or version this build does not know is not a failure:
//!   the image notes it and refuses to write snapshots (see
//!   [`crate::image`]).
//! * A snapshot that cannot be read or applied is fatal in the same way; the
//!   bootstrap checkpoint (`0-0`) is not replayed but kept as the bootstrap
//!   metadata the first active controller appends (Kafka's
//!   `handleLoadBootstrap`), and one that cannot be read is fatal too.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use kraft_raft::{
    ControlRecord, FatalError, RaftEvent, RaftHandle, RaftLog, Record, SnapshotId,
    BOOTSTRAP_SNAPSHOT_ID,
};
use tokio::sync::{mpsc, watch};

use crate::activation::{ActiveEpoch, BootstrapMetadata};
use crate::image::{CommittedRecordError, MetadataRecord, ScramImage, SharedImage};
use crate::metrics::ControllerStats;
use crate::snapshots::SnapshotTrigger;

/// Why a running node stopped on its own. The node answers nothing that
/// needs the quorum after one of these; the process should exit non-zero.
#[derive(Debug, thiserror::Error)]
pub enum NodeFailure {
    /// The raft layer stopped on a storage failure (a failed fsync of the
    /// metadata log or write of `quorum-state`).
    #[error("{0}")]
    Storage(#[source] FatalError),
    /// A committed record could not be applied to the image.
    #[error(
        "Unable to apply {record} on {role} controller, from the batch with baseOffset {base_offset}: {}",
        .record.source
    )]
    Apply {
        /// The record, its offset and the reason.
        #[source]
        record: CommittedRecordError,
        /// `active` or `standby`, as Kafka words it.
        role: &'static str,
        /// The first offset of the record's batch.
        base_offset: i64,
    },
    /// A snapshot could not be read or applied.
    #[error("Error while loading snapshot {}: {source}", .path.display())]
    Snapshot {
        /// The snapshot file.
        path: PathBuf,
        /// Why.
        #[source]
        source: LoadError,
    },
    /// The bootstrap checkpoint could not be read.
    #[error("Error while loading bootstrap snapshot {}: {source}", .path.display())]
    Bootstrap {
        /// The checkpoint file.
        path: PathBuf,
        /// Why.
        #[source]
        source: LoadError,
    },
}

/// Why a snapshot file could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The file could not be read.
    #[error("{0}")]
    Read(#[source] std::io::Error),
    /// The file is not a valid snapshot.
    #[error("{0}")]
    Decode(#[source] kraft_protocol::DecodeError),
    /// A record in it is malformed or contradicts the records before it.
    #[error("{0}")]
    Replay(#[source] crate::image::ReplayError),
    /// A record in the bootstrap checkpoint is not a metadata record.
    #[error("{0}")]
    Record(#[source] kraft_protocol::records::MetadataRecordError),
}

/// Where the loader publishes what it did.
pub(crate) struct LoaderOutputs {
    /// The last offset applied to the image (-1 before any).
    pub(crate) applied: watch::Sender<i64>,
    /// The failure that stopped the node, if any.
    pub(crate) failure: watch::Sender<Option<Arc<NodeFailure>>>,
    /// The bootstrap metadata read from the `0-0` checkpoint.
    pub(crate) bootstrap: watch::Sender<Option<Arc<BootstrapMetadata>>>,
    /// Where applied batches, leader changes and elections are counted.
    pub(crate) stats: Arc<ControllerStats>,
}

/// Applies committed records and snapshots to the image, in log order,
/// publishes the last applied offset, triggers periodic snapshots and
/// publishes a [`NodeFailure`] if the raft layer or the image fails; after
/// one it applies nothing more.
pub(crate) fn spawn_loader(
    mut events: mpsc::UnboundedReceiver<RaftEvent>,
    image: SharedImage,
    outputs: LoaderOutputs,
    active: ActiveEpoch,
    log_dir: PathBuf,
    mut snapshots: SnapshotTrigger,
) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        while let Some(event) = events.recv().await {
            let started = std::time::Instant::now();
            let outcome = match event {
                RaftEvent::Committed(batches) => {
                    apply_batches(batches, &image, &outputs, &active, &mut snapshots)
                }
                RaftEvent::LoadSnapshot(id) if id == BOOTSTRAP_SNAPSHOT_ID => {
                    load_bootstrap(&log_dir, &image, &outputs)
                }
                RaftEvent::LoadSnapshot(id) => {
                    load_snapshot(&log_dir, id, &image, &outputs, &mut snapshots)
                }
                RaftEvent::LeaderChange(leader) => {
                    let name = leader
                        .leader_id
                        .map_or_else(|| "(none)".to_owned(), |l| l.to_string());
                    tracing::info!(
                        leader = ?leader.leader_id,
                        epoch = leader.epoch,
                        "In the new epoch {}, the leader is {name}.",
                        leader.epoch
                    );
                    if leader.leader_id.is_some() {
                        outputs.stats.new_active_controller();
                    }
                    Ok(())
                }
                // The driver logged it; the owner of the node decides.
                RaftEvent::Fatal(error) => Err(NodeFailure::Storage(error)),
                // Events this controller does not act on.
                _ => Ok(()),
            };
            outputs
                .stats
                .loader_worked(started.elapsed().as_secs_f64() * 1000.0);
            if let Err(failure) = outcome {
                if !matches!(failure, NodeFailure::Storage(_)) {
                    tracing::error!("{failure}");
                }
                outputs.failure.send_replace(Some(Arc::new(failure)));
                return;
            }
        }
    })
}

fn apply_batches(
    batches: Vec<kraft_raft::Batch>,
    image: &SharedImage,
    outputs: &LoaderOutputs,
    active: &ActiveEpoch,
    snapshots: &mut SnapshotTrigger,
) -> Result<(), NodeFailure> {
    let mut last = None;
    let mut kraft_version = None;
    let mut data = Vec::new();
    let mut bytes = 0u64;
    let mut base_offsets = Vec::with_capacity(batches.len());
    let mut append_time = None;
    for batch in batches {
        bytes += batch.size_estimate() as u64;
        append_time = Some(batch.append_time);
        base_offsets.push(batch.base_offset);
        for (i, record) in batch.records.into_iter().enumerate() {
            let offset = batch.base_offset + i as i64;
            match record {
                Record::Data(bytes) => data.push((offset, bytes)),
                Record::Control(ControlRecord::KRaftVersion(level)) => kraft_version = Some(level),
                Record::Control(_) => {}
            }
            last = Some(offset);
        }
    }
    let elections = match image.apply_committed(data) {
        Ok(elections) => elections,
        Err(record) => {
            let role = if active.borrow().is_some() {
                "active"
            } else {
                "standby"
            };
            let base_offset = base_offsets
                .iter()
                .rev()
                .find(|b| **b <= record.offset)
                .copied()
                .unwrap_or(record.offset);
            return Err(NodeFailure::Apply {
                record,
                role,
                base_offset,
            });
        }
    };
    image.update(|i| {
        if let Some(level) = kraft_version {
            i.set_kraft_version(level);
        }
        if let Some(last) = last {
            i.set_last_offset(last);
        }
    });
    outputs
        .stats
        .elections(elections.unclean, elections.from_elr);
    if let Some(time) = append_time {
        outputs.stats.applied_batch(time);
    }
    if let Some(last) = last {
        outputs.applied.send_replace(last);
        snapshots.on_committed(bytes, last, &image.read());
    }
    Ok(())
}

fn load_bootstrap(
    log_dir: &Path,
    image: &SharedImage,
    outputs: &LoaderOutputs,
) -> Result<(), NodeFailure> {
    let path = snapshot_path(log_dir, BOOTSTRAP_SNAPSHOT_ID);
    let failed = |source| NodeFailure::Bootstrap {
        path: path.clone(),
        source,
    };
    let (values, kraft_version) = read_snapshot(&path).map_err(failed)?;
    let records = values
        .into_iter()
        .map(MetadataRecord::decode)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| failed(LoadError::Record(e)))?;
    tracing::info!(
        records = records.len(),
        "read the bootstrap metadata from the bootstrap checkpoint"
    );
    outputs
        .bootstrap
        .send_replace(Some(Arc::new(BootstrapMetadata::from_checkpoint(records))));
    image.update(|i| i.set_kraft_version(kraft_version));
    outputs.applied.send_replace(-1);
    Ok(())
}

/// The SCRAM credentials of everything this controller holds locally: its
/// newest snapshot (the bootstrap checkpoint `0-0` when it has no other),
/// then every record of its log after it, committed or not, in log order.
/// Read directly at start-up, for SCRAM logins before the image has the
/// cluster's records (see [`crate::credentials`]): a credential deleted or
/// changed in anything this controller has seen is not served from an
/// older copy. Records that do not decode are skipped; a snapshot that
/// cannot be read leaves the log's records alone.
pub(crate) fn read_local_scram<L: RaftLog>(log_dir: &Path, log: &L) -> ScramImage {
    let mut scram = ScramImage::default();
    let snapshot = log
        .latest_snapshot()
        .map_or(BOOTSTRAP_SNAPSHOT_ID, |s| s.id);
    if let Ok((values, _)) = read_snapshot(&snapshot_path(log_dir, snapshot)) {
        for value in values {
            if let Ok(record) = MetadataRecord::decode(value) {
                scram.replay_scram_only(&record);
            }
        }
    }
    let (mut offset, end) = (log.start_offset(), log.end_offset());
    while offset < end {
        let batches = log.read(offset, LOCAL_READ_BYTES);
        let Some(last) = batches.last() else { break };
        let next = last.base_offset + last.records.len() as i64;
        for batch in batches {
            for record in batch.records {
                if let Record::Data(value) = record {
                    if let Ok(record) = MetadataRecord::decode(value) {
                        scram.replay_scram_only(&record);
                    }
                }
            }
        }
        if next <= offset {
            break;
        }
        offset = next;
    }
    scram
}

/// How much of the log [`read_local_scram`] reads at a time.
const LOCAL_READ_BYTES: usize = 1 << 20;

fn load_snapshot(
    log_dir: &Path,
    id: SnapshotId,
    image: &SharedImage,
    outputs: &LoaderOutputs,
    snapshots: &mut SnapshotTrigger,
) -> Result<(), NodeFailure> {
    let path = snapshot_path(log_dir, id);
    let failed = |source| NodeFailure::Snapshot {
        path: path.clone(),
        source,
    };
    let (records, kraft_version) = read_snapshot(&path).map_err(failed)?;
    let count = records.len();
    image
        .load_snapshot(records, id.offset - 1, kraft_version)
        .map_err(|e| failed(LoadError::Replay(e)))?;
    // MetadataLoader's wording ("handleLoadSnapshot(snapshot NAME): ...").
    tracing::info!(
        offset = id.offset,
        epoch = id.epoch,
        records = count,
        "handleLoadSnapshot(snapshot {:020}-{:010}): loaded the image from the snapshot.",
        id.offset,
        id.epoch
    );
    snapshots.on_snapshot_loaded(&image.read());
    outputs.applied.send_replace(id.offset - 1);
    Ok(())
}

fn snapshot_path(log_dir: &Path, id: SnapshotId) -> PathBuf {
    log_dir.join(kraft_raft::storage::snapshot_file_name(id))
}

/// The record values and kraft.version of a snapshot file. Read by name:
/// opening a `SnapshotStore` here would delete the temporary files of
/// snapshots the driver is writing or downloading.
fn read_snapshot(path: &Path) -> Result<(Vec<Bytes>, i16), LoadError> {
    let bytes = std::fs::read(path).map_err(LoadError::Read)?;
    let contents =
        kraft_raft::storage::decode_snapshot(Bytes::from(bytes)).map_err(LoadError::Decode)?;
    Ok((
        contents.records,
        contents.control.kraft_version.unwrap_or(0),
    ))
}

/// Marks the image loaded once it holds everything committed up to the
/// first high watermark the raft layer learns after start-up (from the
/// leader's Fetch response, or as the leader from its own commit): the
/// latest snapshot and the local log below it, as the raft core delivers
/// them. Until then the handlers answer nothing from the image, so a
/// restarted controller never presents an empty or stale image as final.
/// A high watermark of 0 commits nothing (a new replica that has not
/// fetched yet) and is not a target.
pub(crate) fn mark_image_loaded(
    raft: RaftHandle,
    mut applied: watch::Receiver<i64>,
    image: SharedImage,
) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let mut status = raft.watch_status();
        let target = loop {
            let hw = status.borrow_and_update().high_watermark;
            if let Some(hw) = hw.filter(|hw| *hw > 0) {
                break hw;
            }
            tokio::select! {
                changed = status.changed() => if changed.is_err() { return },
                _ = tokio::time::sleep(Duration::from_millis(100)) => {}
            }
        };
        if applied.wait_for(|a| *a + 1 >= target).await.is_err() {
            return;
        }
        image.mark_loaded();
        tracing::info!(
            high_watermark = target,
            "the metadata image is loaded; serving requests that read it"
        );
    })
}
