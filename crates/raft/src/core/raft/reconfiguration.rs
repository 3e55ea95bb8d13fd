//! Dynamic voters on the leader and the follower's auto-join: AddRaftVoter,
//! RemoveRaftVoter and UpdateRaftVoter (KIP-853), the observer directory-id
//! derivation (KIP-1141), `AckWhenCommitted` (KIP-1186), and the
//! `kraft.version` 0 → 1 upgrade.
//!
//! Read beside Kafka's `AddVoterHandler`, `RemoveVoterHandler`,
//! `UpdateVoterHandler`, `KRaftVersionUpgrade` and
//! `KafkaRaftClient.upgradeKRaftVersion` / `pollFollowerAsObserver`.

use std::collections::BTreeSet;

use super::RaftCore;
use crate::core::action::InboundId;
use crate::core::error::{ErrorCode, UpgradeError};
use crate::core::leader::PendingChange;
use crate::core::log::RaftLog;
use crate::core::message::*;
use crate::core::record::{Batch, ControlRecord, Record};
use crate::core::state::State;
use crate::core::types::*;
use crate::core::voters::{VoterNode, VoterSet};

impl<L: RaftLog> RaftCore<L> {
    pub(super) fn expire_pending_change(&mut self, now: i64) -> i64 {
        let Some(l) = self.leader_state_mut() else {
            return i64::MAX;
        };
        let Some(p) = &l.pending else {
            return i64::MAX;
        };
        if now < p.deadline() {
            return p.deadline() - now;
        }
        let msg = ErrorCode::RequestTimedOut.default_message();
        let respond = match p {
            PendingChange::Add {
                inbound, responded, ..
            } => (!responded).then(|| {
                (
                    *inbound,
                    Response::AddRaftVoter(VoterChangeResponse::new(
                        ErrorCode::RequestTimedOut,
                        msg,
                    )),
                )
            }),
            PendingChange::Remove { inbound, .. } => Some((
                *inbound,
                Response::RemoveRaftVoter(VoterChangeResponse::new(
                    ErrorCode::RequestTimedOut,
                    msg,
                )),
            )),
        };
        l.pending = None;
        if let Some((inbound, response)) = respond {
            self.respond(inbound, response);
        }
        i64::MAX
    }

    pub(super) fn should_send_add_or_remove_voter(&self, now: i64) -> bool {
        let State::Follower(f) = &self.state else {
            return false;
        };
        // Sticky removal: after an operator removed this replica, auto-join
        // does not add it back (Kafka does, at the next timer). Replacing a
        // stale key of the same id (another directory) still goes ahead.
        let sticky = self.removed_from_voters
            && self
                .cfg
                .node_id
                .is_some_and(|id| !self.control.last_voter_set().contains_id(id));
        self.control.last_kraft_version() >= 1
            && self.cfg.can_become_voter
            && self.cfg.auto_join
            && !sticky
            && now >= f.update_voter_deadline
    }

    /// Follows the local replica's membership in the committed voter set:
    /// in it → remember that it was a voter (and forget an earlier removal,
    /// the operator added it again); out of it after having been in →
    /// removed, which keeps auto-join off until restart.
    pub(super) fn track_own_membership(&mut self) {
        let Some(local) = self.local_key() else {
            return;
        };
        let Some(hw) = self.high_watermark() else {
            return;
        };
        if self.control.last_kraft_version() < 1 {
            return;
        }
        let Some(committed) = self.control.committed_voter_set(hw) else {
            return;
        };
        if committed.is_voter(&local) {
            if self.removed_from_voters {
                tracing::info!("replica {local} is a voter again");
            }
            self.was_committed_voter = true;
            self.removed_from_voters = false;
        } else if self.was_committed_voter && !self.removed_from_voters {
            self.removed_from_voters = true;
            if self.cfg.auto_join {
                tracing::warn!(
                    "replica {local} was removed from the voter set {committed}; it stays an observer and will \
                     not auto-join again until it is restarted (controller.quorum.auto.join.enable)"
                );
            } else {
                tracing::info!("replica {local} was removed from the voter set {committed}; it is now an observer");
            }
        }
    }

    pub(super) fn should_send_update_voter(&self) -> bool {
        let State::Follower(f) = &self.state else {
            return false;
        };
        let Some(local) = self.local_voter_node() else {
            return false;
        };
        if self.control.last_kraft_version() >= 1 {
            self.control
                .last_voter_set()
                .voter_node_needs_update(&local)
        } else {
            !f.has_updated_leader
        }
    }

    pub(super) fn reset_update_voter_timer(&mut self, now: i64) {
        let t = self.cfg.fetch_timeout_ms;
        if let State::Follower(f) = &mut self.state {
            f.update_voter_deadline = now + t;
        }
    }

    pub(super) fn update_voter_request(&self) -> Request {
        let local = self
            .local_key()
            .unwrap_or(ReplicaKey::without_directory(-1));
        Request::UpdateRaftVoter(UpdateRaftVoterRequest {
            cluster_id: Some(self.cfg.cluster_id.clone()),
            current_leader_epoch: self.epoch(),
            voter_id: local.id,
            voter_directory_id: local.wire_directory_id(),
            listeners: self.cfg.listeners.clone(),
            kraft_version_feature: self.cfg.supported_kraft_version,
        })
    }

    fn check_common_voter_change(&mut self, now: i64) -> Option<(ErrorCode, String)> {
        let l = self.leader_state_mut()?;
        if let Some(p) = &l.pending {
            if now >= p.deadline() {
                // Expired operations are failed first.
                self.expire_pending_change(now);
            }
        }
        let l = self.leader_state()?;
        if l.pending.is_some() && !cfg!(kraft_mutant = "skip-one-change-check") {
            return Some((
                ErrorCode::RequestTimedOut,
                "Request timed out waiting for leader to handle previous voter change request"
                    .into(),
            ));
        }
        if l.high_watermark.is_none() {
            return Some((
                ErrorCode::RequestTimedOut,
                "Request timed out waiting for leader to establish HWM and fence previous voter changes".into(),
            ));
        }
        None
    }

    /// Steps 1-2 of AddRaftVoter and RemoveRaftVoter: the cluster id, then
    /// the leader-only check (no epoch in the request: the local one).
    fn check_voter_change_target(
        &self,
        cluster_id: &Option<String>,
    ) -> Option<VoterChangeResponse> {
        if !self.has_valid_cluster_id(cluster_id) {
            return Some(VoterChangeResponse::new(
                ErrorCode::InconsistentClusterId,
                format!(
                    "The given id \"{}\" doesn't match the cluster id \"{}\"",
                    cluster_id.as_deref().unwrap_or_default(),
                    self.cfg.cluster_id
                ),
            ));
        }
        self.validate_leader_only(self.epoch())
            .map(|e| VoterChangeResponse::new(e, ""))
    }

    /// The checks add and remove share after the request's own: no pending
    /// change, a known HW, `kraft.version` >= 1 and a committed latest voter
    /// set, which is returned. `verb` is "adding" or "removing".
    fn committed_voters_for_change(
        &mut self,
        verb: &str,
        now: i64,
    ) -> Result<VoterSet, VoterChangeResponse> {
        if let Some((code, msg)) = self.check_common_voter_change(now) {
            return Err(VoterChangeResponse::new(code, msg));
        }
        let hw = self.high_watermark().unwrap_or(-1);
        let kraft = self.control.last_kraft_version();
        if kraft < 1 && !cfg!(kraft_mutant = "skip-kraft-version-check") {
            return Err(VoterChangeResponse::new(
                ErrorCode::UnsupportedVersion,
                format!("Cluster doesn't support {verb} voter because the kraft.version feature is {kraft}"),
            ));
        }
        let skip = cfg!(kraft_mutant = "skip-one-change-check");
        match self.control.last_voter_set_entry() {
            Some((offset, voters)) if offset < hw || skip => Ok(voters.clone()),
            other => Err(VoterChangeResponse::new(
                ErrorCode::RequestTimedOut,
                format!(
                    "Request timed out waiting for voters to commit the latest voter change at {} with HWM {hw}",
                    match other {
                        Some((o, _)) => format!("Optional[{o}]"),
                        None => "Optional.empty".into(),
                    }
                ),
            )),
        }
    }

    /// KIP-1141: the directory id of the one observer with node id `id`
    /// that the leader currently tracks (the DescribeQuorum observers).
    fn derive_observer_directory_id(
        &mut self,
        id: NodeId,
        now: i64,
    ) -> Result<Uuid, VoterChangeResponse> {
        let Some(l) = self.leader_state_mut() else {
            return Err(VoterChangeResponse::new(ErrorCode::NotLeaderOrFollower, ""));
        };
        l.clear_inactive_observers(now);
        let found: Vec<Uuid> = l
            .observers
            .keys()
            .filter(|k| k.id == id)
            .filter_map(|k| k.directory_id)
            .collect();
        match found.as_slice() {
            [one] => Ok(*one),
            [] => Err(VoterChangeResponse::new(
                ErrorCode::InvalidRequest,
                format!(
                    "Cannot derive the directory id of voter {id}: no observer with node id {id} is replicating \
                     the metadata log. Start the controller first, or give its directory id explicitly."
                ),
            )),
            many => {
                let ids: Vec<String> = many.iter().map(kraft_protocol::kafka_uuid::to_string).collect();
                Err(VoterChangeResponse::new(
                    ErrorCode::InvalidRequest,
                    format!(
                        "Cannot derive the directory id of voter {id}: more than one observer with node id {id} is \
                         replicating the metadata log (directory ids {}). Stop the duplicates or give the directory \
                         id explicitly.",
                        ids.join(", ")
                    ),
                ))
            }
        }
    }

    pub(super) fn handle_add_voter(
        &mut self,
        inbound: InboundId,
        mut r: AddRaftVoterRequest,
        now: i64,
    ) -> Option<VoterChangeResponse> {
        if let Some(refused) = self.check_voter_change_target(&r.cluster_id) {
            return Some(refused);
        }
        let derivation = r.derivation.take();
        // Versions 0-1 need the complete key; v2 derives a zero directory id.
        if r.voter_id < 0 || (derivation.is_none() && r.voter_directory_id.is_nil()) {
            return Some(VoterChangeResponse::new(
                ErrorCode::InvalidRequest,
                "Add voter request didn't include a valid voter",
            ));
        }
        let missing_listener = |r: &AddRaftVoterRequest, default: &str| {
            VoterChangeResponse::new(
                ErrorCode::InvalidRequest,
                format!(
                    "Add voter request didn't include the endpoint ({}) for the default listener {default}",
                    r.listeners
                ),
            )
        };
        if derivation.is_none() && r.listeners.address(&self.cfg.default_listener).is_none() {
            return Some(missing_listener(&r, &self.cfg.default_listener));
        }
        let voters = match self.committed_voters_for_change("adding", now) {
            Ok(voters) => voters,
            Err(refused) => return Some(refused),
        };
        if voters.contains_id(r.voter_id) {
            return Some(VoterChangeResponse::new(
                ErrorCode::DuplicateVoter,
                format!(
                    "The voter id for {} is already part of the set of voters {}.",
                    ReplicaKey::of(r.voter_id, r.voter_directory_id),
                    voters.keys_display()
                ),
            ));
        }
        if let Some(derivation) = derivation {
            if r.voter_directory_id.is_nil() {
                match self.derive_observer_directory_id(r.voter_id, now) {
                    Ok(dir) => r.voter_directory_id = dir,
                    Err(refused) => return Some(refused),
                }
            }
            if r.listeners.is_empty() {
                let id = r.voter_id;
                match derivation.registered_listeners {
                    Some(registered) => r.listeners = registered,
                    None => {
                        return Some(VoterChangeResponse::new(
                            ErrorCode::InvalidRequest,
                            format!(
                                "Cannot derive the endpoints of voter {id}: controller {id} is not registered. \
                                 Give its endpoints explicitly."
                            ),
                        ))
                    }
                }
            }
        }
        let key = ReplicaKey::of(r.voter_id, r.voter_directory_id);
        let Some(address) = r.listeners.address(&self.cfg.default_listener) else {
            return Some(missing_listener(&r, &self.cfg.default_listener));
        };
        let (sent, _) = self.send_request(now, key.id, Some(address), Request::ApiVersions);
        if !sent {
            return Some(VoterChangeResponse::new(
                ErrorCode::RequestTimedOut,
                format!("New voter {key} is not ready to receive requests"),
            ));
        }
        let correlation = self.next_correlation - 1;
        let deadline = now + self.cfg.request_timeout_ms;
        if let Some(l) = self.leader_state_mut() {
            l.pending = Some(PendingChange::Add {
                inbound,
                key,
                endpoints: r.listeners,
                ack_when_committed: r.ack_when_committed,
                deadline,
                probe_correlation: Some(correlation),
                last_offset: None,
                responded: false,
            });
        }
        None
    }

    pub(super) fn handle_api_versions_response(
        &mut self,
        source: NodeId,
        correlation_id: u64,
        r: ApiVersionsResponse,
        now: i64,
    ) -> bool {
        let kraft = self.control.last_kraft_version();
        let Some(l) = self.leader_state_mut() else {
            return true;
        };
        let Some(PendingChange::Add {
            inbound,
            key,
            endpoints,
            ack_when_committed,
            probe_correlation,
            last_offset,
            ..
        }) = &l.pending
        else {
            return true;
        };
        if key.id != source || last_offset.is_some() || *probe_correlation != Some(correlation_id) {
            return true;
        }
        let (inbound, key, endpoints, ack) =
            (*inbound, *key, endpoints.clone(), *ack_when_committed);
        if r.error_code != ErrorCode::None {
            l.pending = None;
            self.respond(
                inbound,
                Response::AddRaftVoter(VoterChangeResponse::new(
                    ErrorCode::RequestTimedOut,
                    format!(
                        "Aborted add voter operation for since API_VERSIONS returned an error {}",
                        r.error_code
                    ),
                )),
            );
            return false;
        }
        let valid = r.kraft_version.is_some_and(|range| range.contains(kraft));
        if !valid {
            l.pending = None;
            let range = match r.kraft_version {
                Some(range) => format!("(min: {}, max: {}", range.min, range.max),
                None => "(min: 0, max: 0)".into(),
            };
            self.respond(
                inbound,
                Response::AddRaftVoter(VoterChangeResponse::new(
                    ErrorCode::InvalidRequest,
                    format!(
                        "Aborted add voter operation for {key} since the kraft.version range {range} doesn't support the finalized version {kraft}"
                    ),
                )),
            );
            return true;
        }
        if !l.is_replica_caught_up(&key, now) {
            l.pending = None;
            self.respond(
                inbound,
                Response::AddRaftVoter(VoterChangeResponse::new(
                    ErrorCode::RequestTimedOut,
                    format!("Aborted add voter operation for {key} since it is lagging behind"),
                )),
            );
            return true;
        }
        let range = r.kraft_version.unwrap_or(KRaftVersionRange::new(0, 0));
        let Some(new_voters) = self
            .control
            .last_voter_set()
            .add_voter(VoterNode::new(key, endpoints, range))
        else {
            if let Some(l) = self.leader_state_mut() {
                l.pending = None;
            }
            self.respond(
                inbound,
                Response::AddRaftVoter(VoterChangeResponse::new(ErrorCode::UnknownServerError, "")),
            );
            return true;
        };
        let offset = match self.append_voters_record(new_voters, now) {
            Some(o) => o,
            None => return true,
        };
        if let Some(l) = self.leader_state_mut() {
            if let Some(PendingChange::Add {
                last_offset,
                responded,
                ..
            }) = &mut l.pending
            {
                *last_offset = Some(offset);
                if !ack {
                    *responded = true;
                }
            }
        }
        if !ack {
            self.respond(
                inbound,
                Response::AddRaftVoter(VoterChangeResponse::code(ErrorCode::None)),
            );
        }
        true
    }

    /// Appends a control batch with a VotersRecord; returns its offset.
    fn append_voters_record(&mut self, voters: VoterSet, now: i64) -> Option<i64> {
        let offset = self.log.end_offset();
        let batch = Batch {
            base_offset: offset,
            epoch: self.epoch(),
            append_time: now,
            records: vec![Record::Control(ControlRecord::Voters(voters))],
            encoded: Default::default(),
        };
        match self.append_as_leader(batch, now) {
            Ok(()) => Some(offset),
            Err(e) => {
                self.violation(format!("failed to append a VotersRecord: {e}"));
                None
            }
        }
    }

    pub(super) fn handle_remove_voter(
        &mut self,
        inbound: InboundId,
        r: RemoveRaftVoterRequest,
        now: i64,
    ) -> Option<VoterChangeResponse> {
        if let Some(refused) = self.check_voter_change_target(&r.cluster_id) {
            return Some(refused);
        }
        // Version 0 needs the complete key; v1 derives a zero directory id.
        if r.voter_id < 0 || (!r.derive_directory_id && r.voter_directory_id.is_nil()) {
            return Some(VoterChangeResponse::new(
                ErrorCode::InvalidRequest,
                "Remove voter request didn't include a valid voter",
            ));
        }
        let voters = match self.committed_voters_for_change("removing", now) {
            Ok(voters) => voters,
            Err(refused) => return Some(refused),
        };
        let asked = ReplicaKey::of(r.voter_id, r.voter_directory_id);
        // KIP-1141: the latest voter set's directory id for that node id.
        let key = if asked.directory_id.is_none() {
            voters
                .get(r.voter_id)
                .map(|v| v.key)
                .filter(|k| k.directory_id.is_some())
        } else {
            Some(asked)
        };
        let Some(new_voters) = key.and_then(|k| voters.remove_voter(&k)) else {
            return Some(VoterChangeResponse::new(
                ErrorCode::VoterNotFound,
                format!(
                    "Cannot remove voter {} from the set of voters {}",
                    key.unwrap_or(asked),
                    voters.keys_display()
                ),
            ));
        };
        let offset = self.append_voters_record(new_voters, now)?;
        let deadline = now + self.cfg.request_timeout_ms;
        if let Some(l) = self.leader_state_mut() {
            l.pending = Some(PendingChange::Remove {
                inbound,
                last_offset: offset,
                deadline,
            });
        }
        None
    }

    fn update_voter_response(&self, error: ErrorCode) -> UpdateRaftVoterResponse {
        UpdateRaftVoterResponse {
            error_code: error,
            leader_id: self.leader_id_or_nil(),
            leader_epoch: self.epoch(),
            leader_address: self.leader_endpoints().address(&self.cfg.default_listener),
        }
    }

    pub(super) fn handle_update_voter(
        &mut self,
        r: UpdateRaftVoterRequest,
        now: i64,
    ) -> UpdateRaftVoterResponse {
        if !self.has_valid_cluster_id(&r.cluster_id) {
            return self.update_voter_response(ErrorCode::InconsistentClusterId);
        }
        if let Some(e) = self.validate_leader_only(r.current_leader_epoch) {
            return self.update_voter_response(e);
        }
        let key = ReplicaKey::of(r.voter_id, r.voter_directory_id);
        if r.voter_id < 0 || key.directory_id.is_none() {
            return self.update_voter_response(ErrorCode::InvalidRequest);
        }
        if r.listeners.address(&self.cfg.default_listener).is_none() {
            return self.update_voter_response(ErrorCode::InvalidRequest);
        }
        let range = r.kraft_version_feature;
        if range.min < 0 || range.max < 0 || range.max < range.min {
            return self.update_voter_response(ErrorCode::InvalidRequest);
        }
        if let Some((code, _)) = self.check_common_voter_change(now) {
            return self.update_voter_response(code);
        }
        let hw = self.high_watermark().unwrap_or(-1);
        let kraft = self.control.last_kraft_version();
        let voters = if kraft >= 1 {
            match self.control.last_voter_set_entry() {
                Some((offset, v)) if offset < hw => v.clone(),
                _ => return self.update_voter_response(ErrorCode::RequestTimedOut),
            }
        } else {
            match &self.state {
                State::Leader(l) => match &l.volatile_voters {
                    Some(v) => v.clone(),
                    None => return self.update_voter_response(ErrorCode::RequestTimedOut),
                },
                _ => return self.update_voter_response(ErrorCode::NotLeaderOrFollower),
            }
        };
        if !range.contains(kraft) {
            return self.update_voter_response(ErrorCode::InvalidRequest);
        }
        let node = VoterNode::new(key, r.listeners.clone(), range);
        let updated = if kraft >= 1 {
            voters.update_voter(node)
        } else {
            voters.update_voter_ignoring_directory_id(node)
        };
        let Some(updated) = updated else {
            return self.update_voter_response(ErrorCode::VoterNotFound);
        };
        if kraft >= 1 {
            if self.append_voters_record(updated, now).is_none() {
                return self.update_voter_response(ErrorCode::UnknownServerError);
            }
        } else if let Some(l) = self.leader_state_mut() {
            l.volatile_voters = Some(updated);
        }
        if let Some(l) = self.leader_state_mut() {
            l.update_check_quorum(&key, now);
        }
        self.update_voter_response(ErrorCode::None)
    }

    pub(super) fn handle_voter_change_response(
        &mut self,
        r: VoterChangeResponse,
        add: bool,
        now: i64,
    ) -> bool {
        let expected = if add {
            ErrorCode::DuplicateVoter
        } else {
            ErrorCode::VoterNotFound
        };
        if r.error_code == ErrorCode::None
            || r.error_code == ErrorCode::RequestTimedOut
            || r.error_code == expected
        {
            self.reset_update_voter_timer(now);
            true
        } else {
            false
        }
    }

    pub(super) fn handle_update_voter_response(
        &mut self,
        r: UpdateRaftVoterResponse,
        now: i64,
    ) -> bool {
        let leader = (r.leader_id >= 0).then_some(r.leader_id);
        let endpoints = match (&leader, &r.leader_address) {
            (Some(_), Some(a)) if !a.host.is_empty() => {
                Endpoints::single(self.cfg.default_listener.clone(), a.host.clone(), a.port)
            }
            _ => Endpoints::empty(),
        };
        if let Some(done) =
            self.handle_common_response(r.error_code, leader, r.leader_epoch, endpoints, now)
        {
            return done;
        }
        if r.error_code == ErrorCode::None || r.error_code == ErrorCode::UnsupportedVersion {
            if let State::Follower(f) = &mut self.state {
                f.has_updated_leader = true;
                f.fetch_deadline = now + self.cfg.fetch_timeout_ms;
                f.has_fetched = true;
            }
            true
        } else {
            false
        }
    }

    /// Upgrades `kraft.version` as the leader of `epoch` (Kafka's
    /// `KafkaRaftClient.upgradeKRaftVersion`): only 0 → 1, only once every
    /// static voter has told this leader its directory id and supported
    /// range with UpdateRaftVoter, and all of them support the new level.
    /// Appends one control batch with a KRaftVersionRecord and, when the
    /// learned voters differ from the persisted ones, a VotersRecord.
    /// Returns `Ok(false)` when `version` is already in effect and
    /// `Ok(true)` when the upgrade was appended (or, with `validate_only`,
    /// would be).
    pub fn upgrade_kraft_version(
        &mut self,
        epoch: i32,
        version: i16,
        validate_only: bool,
        now: i64,
    ) -> Result<bool, UpgradeError> {
        let Some(l) = self.leader_state() else {
            return Err(UpgradeError::not_leader(
                "Upgrade kraft version failed because the replica is not the current leader".into(),
            ));
        };
        if epoch < l.epoch {
            return Err(UpgradeError::not_leader(format!(
                "Upgrade kraft version failed because the given epoch {epoch} is stale. Current leader epoch is {}",
                l.epoch
            )));
        }
        if epoch > l.epoch {
            return Err(UpgradeError::invalid(format!(
                "Attempt to append from epoch {epoch} which is larger than the current epoch of {}",
                l.epoch
            )));
        }
        let persisted = self.control.last_kraft_version();
        let name = |v: i16| format!("KRAFT_VERSION_{v}");
        if persisted == version {
            return Ok(false);
        }
        if persisted > version {
            return Err(UpgradeError::invalid(format!(
                "Invalid upgrade of kraft.version from version {} to {} because the new version is a downgrade",
                name(persisted),
                name(version)
            )));
        }
        // Only 0 -> 1 exists: the learned (in-memory) voters of kraft.version 0.
        let Some(learned) = l.volatile_voters.clone().filter(|_| version == 1) else {
            return Err(UpgradeError::invalid(format!(
                "Invalid upgrade of kraft.version from version {} to {}",
                name(persisted),
                name(version)
            )));
        };
        let persisted_voters = self.control.last_voter_set().clone();
        let learned_ids: BTreeSet<NodeId> = learned.ids().collect();
        let persisted_ids: BTreeSet<NodeId> = persisted_voters.ids().collect();
        if learned_ids != persisted_ids {
            return Err(UpgradeError::internal(format!(
                "Unable to update kraft.version to {} due to missing voters {} compared to {}",
                name(version),
                id_list(&learned_ids),
                id_list(&persisted_ids)
            )));
        }
        if !learned.supports_version(version) {
            tracing::info!(%learned, "not all voters support kraft.version {version}");
            return Err(UpgradeError::invalid(format!(
                "Invalid upgrade of kraft.version to {} because not all of the voters support it",
                name(version)
            )));
        }
        if learned.keys().any(|k| k.directory_id.is_none()) {
            return Err(UpgradeError::internal(format!(
                "Directory id must be known for all of the voters: {learned}"
            )));
        }
        if validate_only {
            return Ok(true);
        }
        if let Some(l) = self.leader_state_mut() {
            // From here on UpdateRaftVoter goes through the voter-set history.
            l.volatile_voters = None;
        }
        let mut records = vec![Record::Control(ControlRecord::KRaftVersion(version))];
        if learned != persisted_voters {
            records.push(Record::Control(ControlRecord::Voters(learned)));
        }
        let batch = Batch {
            base_offset: self.log.end_offset(),
            epoch,
            append_time: now,
            records,
            encoded: Default::default(),
        };
        self.append_as_leader(batch, now).map_err(|e| {
            UpgradeError::internal(format!("cannot append the kraft.version upgrade: {e}"))
        })?;
        tracing::info!("appended kraft.version {version}");
        Ok(true)
    }
}

/// Node ids formatted like a Java set: `[1, 2, 3]`.
fn id_list(ids: &BTreeSet<NodeId>) -> String {
    let ids: Vec<String> = ids.iter().map(|id| id.to_string()).collect();
    format!("[{}]", ids.join(", "))
}
