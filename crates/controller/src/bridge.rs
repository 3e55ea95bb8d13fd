//! The raft layer as the controller's handlers see it: the
//! [`RaftQuorum`] port over the tokio raft driver.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use bytes::Bytes;
use kraft_protocol::{ApiKey, RequestBody, ResponseBody, Uuid};
use kraft_raft::{
    AppendCondition, ControllerRegistrations, DriverError, Endpoint, Endpoints, LogError,
    RaftError, RaftHandle,
};
use tokio::sync::watch;

use crate::activation::ActiveEpoch;
use crate::handlers::{
    ApiError, AppendError, PendingCommit, QuorumFacts, QuorumVoter, RaftQuorum, ReplicaKey,
    VoterEndpoint,
};
use crate::image::{MetadataRecord, SharedImage};
use crate::server::{ApiRange, CloseConnection, RequestContext};

/// The raft layer as the controller's handlers see it.
pub(crate) struct RaftBridge {
    pub(crate) handle: RaftHandle,
    pub(crate) image: SharedImage,
    pub(crate) applied: watch::Receiver<i64>,
    /// The epoch this node is the active controller of (after activation).
    pub(crate) active: ActiveEpoch,
    pub(crate) facts: Arc<Mutex<QuorumFacts>>,
}

fn quorum_voter(id: i32, dir: Option<Uuid>, eps: &Endpoints) -> QuorumVoter {
    QuorumVoter {
        key: ReplicaKey {
            id,
            directory_id: dir,
        },
        endpoints: eps
            .iter()
            .map(|e| VoterEndpoint {
                name: e.name.clone(),
                host: e.host.clone(),
                port: e.port,
            })
            .collect(),
    }
}

impl RaftBridge {
    /// Keeps the cached facts fresh: on every status change and periodically.
    pub(crate) fn spawn_refresher(&self) {
        let handle = self.handle.clone();
        let facts = self.facts.clone();
        let image = self.image.clone();
        let mut active = self.active.clone();
        tokio::spawn(async move {
            let mut status = handle.watch_status();
            loop {
                let Ok(inspection) = handle.inspect().await else {
                    return;
                };
                let s = &inspection.status;
                let activated = *active.borrow_and_update() == Some(s.leader.epoch);
                let new = QuorumFacts {
                    leader_id: s.leader.leader_id,
                    epoch: s.leader.epoch,
                    // A resigning leader takes no more writes: they are
                    // answered NOT_CONTROLLER without touching the write
                    // state.
                    is_active_controller: s.takes_records() && activated,
                    voters: inspection
                        .voters
                        .iter()
                        .map(|(id, dir, eps)| quorum_voter(*id, *dir, eps))
                        .collect(),
                    kraft_version: s.kraft_version.max(image.read().kraft_version()),
                };
                if let Ok(mut f) = facts.lock() {
                    *f = new;
                }
                tokio::select! {
                    changed = status.changed() => if changed.is_err() { return },
                    changed = active.changed() => if changed.is_err() { return },
                    _ = tokio::time::sleep(Duration::from_millis(200)) => {}
                }
            }
        });
    }
}

#[async_trait]
impl RaftQuorum for RaftBridge {
    fn facts(&self) -> QuorumFacts {
        self.facts.lock().map(|f| f.clone()).unwrap_or_default()
    }

    async fn append(
        &self,
        epoch: i32,
        base_offset: Option<i64>,
        records: Vec<MetadataRecord>,
    ) -> Result<PendingCommit, AppendError> {
        // Whether this node is the active controller is the writer's to
        // know (it appends the activation records itself); the raft layer
        // checks the epoch again when it appends.
        let status = self.handle.status();
        if !status.takes_records() || status.leader.epoch != epoch {
            return Err(AppendError::NotController {
                leader_id: status.leader.leader_id,
            });
        }
        let condition = AppendCondition {
            epoch: Some(epoch),
            base_offset,
        };
        // Resolved once the image has replayed the records.
        append_records(&self.handle, &self.applied, condition, &records).await
    }

    async fn resign(&self, epoch: i32) {
        let status = self.handle.status();
        if !status.is_leader || status.leader.epoch != epoch {
            return;
        }
        if let Err(e) = self.handle.resign().await {
            tracing::warn!(epoch, error = %e, "cannot resign leadership");
        }
    }

    async fn wait_applied(&self, offset: i64) -> Result<(), AppendError> {
        wait_until_applied(&mut self.applied.clone(), offset).await
    }

    async fn latest_voter_ids(&self) -> Vec<i32> {
        match self.handle.inspect().await {
            Ok(inspection) => inspection.voters.iter().map(|(id, _, _)| *id).collect(),
            Err(_) => self.facts().voters.iter().map(|v| v.key.id).collect(),
        }
    }

    async fn upgrade_kraft_version(
        &self,
        epoch: i32,
        version: i16,
        validate_only: bool,
    ) -> Result<(), ApiError> {
        match self
            .handle
            .upgrade_kraft_version(epoch, version, validate_only)
            .await
        {
            Ok(Ok(_)) => Ok(()),
            Ok(Err(e)) => Err(ApiError::new(e.code, e.message)),
            Err(e) => Err(ApiError::new(
                kraft_protocol::ErrorCode::NotController,
                e.to_string(),
            )),
        }
    }

    fn raft_apis(&self) -> Vec<ApiRange> {
        [
            ApiKey::Vote,
            ApiKey::BeginQuorumEpoch,
            ApiKey::EndQuorumEpoch,
            ApiKey::Fetch,
            ApiKey::FetchSnapshot,
            ApiKey::DescribeQuorum,
            ApiKey::AddRaftVoter,
            ApiKey::RemoveRaftVoter,
            ApiKey::UpdateRaftVoter,
        ]
        .into_iter()
        .map(|k| {
            let (lo, hi) = k.versions();
            // Fetch: KRaft replication speaks the versions 4.4 peers use.
            ApiRange {
                api_key: k,
                min_version: lo,
                max_version: hi,
            }
        })
        .collect()
    }

    async fn handle_raft_request(
        &self,
        ctx: &RequestContext,
        request: RequestBody,
    ) -> Result<ResponseBody, CloseConnection> {
        self.handle
            .handle_request(request, ctx.api_version)
            .await
            .map_err(|e| CloseConnection(e.to_string()))
    }
}

impl ControllerRegistrations for SharedImage {
    fn registered_endpoints(&self, id: i32) -> Option<Endpoints> {
        let image = self.read();
        let registration = image.controller(id)?;
        Some(Endpoints::new(registration.endpoints.iter().map(|e| {
            Endpoint::new(e.name.clone(), e.host.clone(), e.port)
        })))
    }
}

/// How long one append may wait to be taken, and then to commit.
const APPEND_TIMEOUT: Duration = Duration::from_secs(30);

/// Appends `records` in one batch if `condition` holds; the returned
/// [`PendingCommit`] resolves once they are committed and applied.
async fn append_records(
    raft: &RaftHandle,
    applied: &watch::Receiver<i64>,
    condition: AppendCondition,
    records: &[MetadataRecord],
) -> Result<PendingCommit, AppendError> {
    let values = records
        .iter()
        .map(|r| r.encode().map(Bytes::from))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| AppendError::Failed(e.to_string()))?;
    let not_controller = || AppendError::NotController {
        leader_id: raft.status().leader.leader_id,
    };
    let pending = match tokio::time::timeout(APPEND_TIMEOUT, raft.append(values, condition)).await {
        Err(_) => return Err(AppendError::Timeout),
        Ok(Err(DriverError::OffsetMismatch { end_offset })) => {
            return Err(AppendError::OffsetMismatch { end_offset })
        }
        Ok(Err(DriverError::Raft(RaftError::Log(LogError::BatchTooLarge { size, max })))) => {
            return Err(AppendError::BatchTooLarge { size, max })
        }
        Ok(Err(
            DriverError::Raft(RaftError::NotLeader { .. } | RaftError::WrongEpoch { .. })
            | DriverError::EpochMismatch { .. },
        )) => return Err(not_controller()),
        Ok(Err(e)) => return Err(AppendError::Log(Arc::new(e))),
        Ok(Ok(pending)) => pending,
    };
    let (base_offset, last_offset) = (pending.base_offset, pending.last_offset);
    let raft = raft.clone();
    let mut applied = applied.clone();
    let wait = async move {
        let committed = tokio::time::timeout(APPEND_TIMEOUT, pending.committed()).await;
        match committed {
            Err(_) => return Err(AppendError::Timeout),
            Ok(Err(
                DriverError::NotCommitted(_)
                | DriverError::Raft(RaftError::NotLeader { .. } | RaftError::WrongEpoch { .. }),
            )) => {
                return Err(AppendError::NotController {
                    leader_id: raft.status().leader.leader_id,
                })
            }
            Ok(Err(e)) => return Err(AppendError::Log(Arc::new(e))),
            Ok(Ok(_)) => {}
        }
        wait_until_applied(&mut applied, last_offset).await?;
        Ok(last_offset)
    };
    Ok(PendingCommit {
        base_offset,
        last_offset,
        applied: Box::pin(wait),
    })
}

/// Waits (up to the append timeout) until the image has applied `offset`.
async fn wait_until_applied(
    applied: &mut watch::Receiver<i64>,
    offset: i64,
) -> Result<(), AppendError> {
    let reached = tokio::time::timeout(APPEND_TIMEOUT, async {
        applied.wait_for(|a| *a >= offset).await.is_ok()
    })
    .await;
    match reached {
        Ok(true) => Ok(()),
        Ok(false) => Err(AppendError::Failed("the raft driver stopped".into())),
        Err(_) => Err(AppendError::Timeout),
    }
}
