//! BrokerRegistration (62), BrokerHeartbeat (63) and UnregisterBroker (64):
//! the broker half of Kafka's `ClusterControlManager` and the heartbeat
//! part of `ReplicationControlManager`, reached through `QuorumController`,
//! and the periodic fencing of brokers whose session expired.
//!
//! Every one is a write of the [`writer`](super::writer): computed against
//! the committed image plus this leader's records in flight, answered once
//! its records are committed.
//!
//! Fencing, unfencing, controlled shutdown, unregistration, an unclean
//! re-registration and offline directories also move partition leaders and
//! ISR/ELR, in Kafka's order around the broker's own record
//! (`replication::broker_changes`).

use std::collections::HashSet;
use std::time::{Duration, Instant};

use kraft_protocol::messages::broker_heartbeat_request::BrokerHeartbeatRequest;
use kraft_protocol::messages::broker_heartbeat_response::BrokerHeartbeatResponse;
use kraft_protocol::messages::broker_registration_change_record::BrokerRegistrationChangeRecord;
use kraft_protocol::messages::broker_registration_request::{
    BrokerRegistrationRequest, Feature as RequestFeature,
};
use kraft_protocol::messages::broker_registration_response::BrokerRegistrationResponse;
use kraft_protocol::messages::register_broker_record::{
    BrokerEndpoint, BrokerFeature, RegisterBrokerRecord,
};
use kraft_protocol::messages::unregister_broker_record::UnregisterBrokerRecord;
use kraft_protocol::messages::unregister_broker_request::UnregisterBrokerRequest;
use kraft_protocol::messages::unregister_broker_response::UnregisterBrokerResponse;
use kraft_protocol::{ErrorCode, StrBytes, Uuid};

use super::heartbeats::{BrokerControlState, BrokerIdAndEpoch, HeartbeatAsk};
use super::writer::{ActiveState, Generated};
use super::{check_broker_epoch, error, not_controller, put_by_name, ApiError, Controller};
use crate::features::METADATA_VERSION;
use crate::image::{MetadataImage, MetadataRecord};
use crate::replication::broker_changes::{self, ReplicationSettings};

/// `BrokerRegistrationFencingChange.FENCE` / `UNFENCE`.
const FENCE: i8 = 1;
const UNFENCE: i8 = -1;
/// `BrokerRegistrationInControlledShutdownChange.IN_CONTROLLED_SHUTDOWN`.
const IN_CONTROLLED_SHUTDOWN: i8 = 1;
/// The kraft.version feature, finalized by the raft layer.
const KRAFT_VERSION: &str = "kraft.version";

/// Kafka's `handleBrokerFenced`: the broker leaves every ISR and
/// leadership, then its fence record.
fn fence_records(
    image: &MetadataImage,
    id: i32,
    epoch: i64,
    settings: &ReplicationSettings,
) -> Vec<MetadataRecord> {
    let mut records = broker_changes::fence_broker(image, id, settings);
    records.push(MetadataRecord::new(
        BrokerRegistrationChangeRecord {
            broker_id: id,
            broker_epoch: epoch,
            fenced: FENCE,
            ..Default::default()
        },
        0,
    ));
    records
}

/// The finalized features a broker must support: metadata.version, every
/// other finalized feature and kraft.version (Kafka's `registerBroker`
/// adds the raft layer's).
fn finalized_for_registration(image: &MetadataImage, kraft_version: i16) -> Vec<(String, i16)> {
    let mut out: Vec<(String, i16)> = image.finalized_features().to_vec();
    if let Some(mv) = image.metadata_version() {
        out.push((METADATA_VERSION.to_string(), mv.feature_level()));
    }
    out.push((KRAFT_VERSION.to_string(), kraft_version));
    out
}

/// Kafka's `processRegistrationFeature`.
fn check_registration_feature(
    finalized: &[(String, i16)],
    feature: &RequestFeature,
) -> Result<BrokerFeature, ApiError> {
    let name = feature.name.as_str();
    let level = finalized
        .iter()
        .find(|(n, _)| n == name)
        .map_or(0, |(_, l)| *l);
    if level < feature.min_supported_version || level > feature.max_supported_version {
        return Err(error(
            ErrorCode::UnsupportedVersion,
            format!(
                "Unable to register because the broker does not support finalized version {level} of {name}. The broker wants a version between {} and {}, inclusive.",
                feature.min_supported_version, feature.max_supported_version
            ),
        ));
    }
    Ok(BrokerFeature {
        name: feature.name.clone(),
        min_supported_version: feature.min_supported_version,
        max_supported_version: feature.max_supported_version,
        ..Default::default()
    })
}

impl Controller {
    /// BrokerRegistration, checks in Kafka 4.4's order: NOT_CONTROLLER,
    /// INCONSISTENT_CLUSTER_ID, DUPLICATE_BROKER_REGISTRATION (another
    /// incarnation holds a live session), BROKER_ID_NOT_REGISTERED (ZooKeeper
    /// brokers), INVALID_REGISTRATION (log directories), UNSUPPORTED_VERSION
    /// (a finalized feature outside the broker's range), INVALID_REGISTRATION
    /// (no metadata.version range); then a RegisterBrokerRecord whose broker
    /// epoch is its own offset (a new incarnation starts fenced; the same
    /// incarnation amends its registration and keeps its epoch and state).
    pub async fn broker_registration(
        &self,
        version: i16,
        request: &BrokerRegistrationRequest,
    ) -> BrokerRegistrationResponse {
        let kraft_version = self.quorum.facts().kraft_version;
        let clean_shutdown_detection = version >= 3;
        let result = self
            .write("registerBroker", None, |state| {
                self.register_broker(state, request, kraft_version, clean_shutdown_detection)
            })
            .await;
        match result {
            Ok(epoch) => BrokerRegistrationResponse {
                broker_epoch: epoch,
                ..Default::default()
            },
            Err(e) => {
                tracing::info!(broker_id = request.broker_id, error = %e, "broker registration refused");
                BrokerRegistrationResponse {
                    error_code: e.code.code(),
                    ..Default::default()
                }
            }
        }
    }

    fn register_broker(
        &self,
        state: &mut ActiveState,
        request: &BrokerRegistrationRequest,
        kraft_version: i16,
        clean_shutdown_detection: bool,
    ) -> Result<Generated<i64>, ApiError> {
        let cluster_id = &self.settings.cluster_id;
        if request.cluster_id.as_str() != cluster_id {
            return Err(error(
                ErrorCode::InconsistentClusterId,
                format!(
                    "Expected cluster ID {cluster_id}, but got cluster ID {}",
                    request.cluster_id
                ),
            ));
        }
        let id = request.broker_id;
        let image = &state.image;
        let mv = image.metadata_version().ok_or_else(|| {
            error(
                ErrorCode::UnknownServerError,
                "The metadata.version is not yet known.",
            )
        })?;
        let existing = image.cluster().broker(id);
        let previous_incarnation = existing.map(|b| b.incarnation_id());
        // BrokerRegistration.previousBrokerEpoch defaults to -1.
        let stored_epoch = existing.map_or(-2, |b| b.epoch());
        if let Some(b) = existing {
            let key = BrokerIdAndEpoch {
                id,
                epoch: b.epoch(),
            };
            let live = self
                .sessions
                .lock()
                .map(|s| s.has_valid_session(key, Instant::now()))
                .unwrap_or(false);
            if live && request.incarnation_id != b.incarnation_id() {
                return Err(error(
                    ErrorCode::DuplicateBrokerRegistration,
                    "Another broker is registered with that broker id. If the broker was recently restarted this should self-resolve once the heartbeat manager expires the broker's session.",
                ));
            }
        }
        if request.is_migrating_zk_broker {
            return Err(error(
                ErrorCode::BrokerIdNotRegistered,
                "Controller does not support registering ZK brokers.",
            ));
        }
        if mv.is_directory_assignment_supported() {
            if request.log_dirs.is_empty() {
                return Err(error(
                    ErrorCode::InvalidRegistration,
                    "No directories specified in request",
                ));
            }
            if request
                .log_dirs
                .iter()
                .any(crate::java::is_reserved_directory_id)
            {
                return Err(error(
                    ErrorCode::InvalidRegistration,
                    "Reserved directory ID in request",
                ));
            }
            let distinct: HashSet<&Uuid> = request.log_dirs.iter().collect();
            if distinct.len() != request.log_dirs.len() {
                return Err(error(
                    ErrorCode::InvalidRegistration,
                    "Duplicate directory ID in request",
                ));
            }
            for dir in &request.log_dirs {
                if let Some(owner) = image
                    .cluster()
                    .brokers()
                    .find(|b| b.id() != id && b.directories().contains(dir))
                {
                    return Err(error(
                        ErrorCode::InvalidRegistration,
                        format!(
                            "Broker {} is already registered with directory {}",
                            owner.id(),
                            crate::java::uuid_to_text(dir)
                        ),
                    ));
                }
            }
        }
        let mut end_points: Vec<BrokerEndpoint> = Vec::new();
        for l in request.listeners.iter() {
            let e = BrokerEndpoint {
                name: l.name.clone(),
                host: l.host.clone(),
                port: l.port,
                security_protocol: l.security_protocol,
                ..Default::default()
            };
            put_by_name(&mut end_points, e, |a, b| a.name == b.name);
        }
        let finalized = finalized_for_registration(image, kraft_version);
        let mut features = Vec::new();
        for f in request.features.iter() {
            features.push(check_registration_feature(&finalized, &f)?);
        }
        if !request
            .features
            .iter()
            .any(|f| f.name.as_str() == METADATA_VERSION)
        {
            return Err(error(
                ErrorCode::InvalidRegistration,
                format!("Request features do not contain '{METADATA_VERSION}'"),
            ));
        }
        for (name, level) in &finalized {
            if *level != 0 && !request.features.iter().any(|f| f.name.as_str() == name) {
                check_registration_feature(
                    &finalized,
                    &RequestFeature {
                        name: StrBytes::from(name.as_str()),
                        min_supported_version: 0,
                        max_supported_version: 0,
                        ..Default::default()
                    },
                )?;
            }
        }
        let new_incarnation = previous_incarnation != Some(request.incarnation_id);
        let mut record = RegisterBrokerRecord {
            broker_id: id,
            is_migrating_zk_broker: false,
            incarnation_id: request.incarnation_id,
            rack: request.rack.clone(),
            end_points: end_points.into(),
            features: features.into(),
            ..Default::default()
        };
        if mv.is_directory_assignment_supported() {
            record.log_dirs = request.log_dirs.clone();
        }
        let new_epoch = state.next_offset;
        let settings = self.replication_settings();
        let mut records = Vec::new();
        // Logged once appended (a write whose offset moved runs again).
        let message = match existing {
            Some(b) if !new_incarnation => {
                record.fenced = b.fenced();
                record.in_controlled_shutdown = b.in_controlled_shutdown();
                record.broker_epoch = b.epoch();
                format!(
                    "Amending registration of broker {id}, incarnation ID {}. Broker epoch remains {}.",
                    crate::java::uuid_to_text(&request.incarnation_id),
                    b.epoch()
                )
            }
            _ => {
                let clean =
                    clean_shutdown_detection && stored_epoch == request.previous_broker_epoch;
                records = broker_changes::broker_shutdown(image, id, clean, &settings);
                let cleanup = records.len();
                record.broker_epoch = new_epoch;
                if existing.is_none() {
                    self.stats.broker_contact(id);
                }
                match existing {
                    None => format!(
                        "No previous registration found for broker {id}. New incarnation ID is {}. Generated {cleanup} record(s) to clean up previous incarnations. New broker epoch is {new_epoch}.",
                        crate::java::uuid_to_text(&request.incarnation_id)
                    ),
                    Some(b) => format!(
                        "Registering a new incarnation of broker {id}. Previous incarnation ID was {}; new incarnation ID is {}. Generated {cleanup} record(s) to clean up previous incarnations. Broker epoch will become {new_epoch}. (clean shutdown: {clean})",
                        crate::java::uuid_to_text(&b.incarnation_id()),
                        crate::java::uuid_to_text(&request.incarnation_id)
                    ),
                }
            }
        };
        let fenced = record.fenced;
        let epoch = record.broker_epoch;
        records.push(MetadataRecord::new(
            record,
            mv.register_broker_record_version(),
        ));
        if new_incarnation {
            state.heartbeats.remove(id);
        }
        state.heartbeats.register(id, fenced);
        Ok(Generated {
            // The broker epoch is the offset of the record: the writer
            // appends every batch at the state's next offset.
            records,
            result: epoch,
            after_append: Some(Box::new(move |_, _| tracing::info!("{message}"))),
        })
    }

    /// BrokerHeartbeat: the session is touched before the request waits for
    /// the writer (so a slow commit cannot expire it); STALE_BROKER_EPOCH
    /// for an unknown broker or another epoch; the next control state
    /// (fenced, unfenced, controlled shutdown, shut down now) as Kafka's
    /// `BrokerHeartbeatManager` computes it, recorded with
    /// BrokerRegistrationChangeRecords; offline and cordoned log
    /// directories. A heartbeat that waited longer than half the heartbeat
    /// interval for the writer is answered REQUEST_TIMED_OUT.
    pub async fn broker_heartbeat(
        &self,
        request: &BrokerHeartbeatRequest,
    ) -> BrokerHeartbeatResponse {
        let received = Instant::now();
        let facts = self.quorum.facts();
        if !facts.is_active_controller {
            let e = not_controller(facts.leader_id);
            return BrokerHeartbeatResponse {
                error_code: e.code.code(),
                ..Default::default()
            };
        }
        let key = BrokerIdAndEpoch {
            id: request.broker_id,
            epoch: request.broker_epoch,
        };
        if let Ok(mut sessions) = self.sessions.lock() {
            sessions.track(facts.epoch, key, received);
        }
        self.stats.broker_contact(request.broker_id);
        let deadline =
            tokio::time::Instant::from_std(received) + self.settings.heartbeat_deadline();
        let result = self
            .write("processBrokerHeartbeat", Some(deadline), |state| {
                self.process_heartbeat(state, request)
            })
            .await;
        match result {
            Ok(reply) => BrokerHeartbeatResponse {
                is_caught_up: reply.is_caught_up,
                is_fenced: reply.next.fenced(),
                should_shut_down: reply.next.should_shut_down(),
                ..Default::default()
            },
            Err(e) => {
                if e.code == ErrorCode::RequestTimedOut {
                    self.stats.heartbeat_timed_out();
                    tracing::error!(
                        "processExpiredBrokerHeartbeat: controller event queue overloaded. Timed out heartbeat from broker {}.",
                        request.broker_id
                    );
                } else {
                    tracing::debug!(broker_id = request.broker_id, error = %e, "heartbeat refused");
                }
                BrokerHeartbeatResponse {
                    error_code: e.code.code(),
                    ..Default::default()
                }
            }
        }
    }

    fn process_heartbeat(
        &self,
        state: &mut ActiveState,
        request: &BrokerHeartbeatRequest,
    ) -> Result<Generated<HeartbeatReply>, ApiError> {
        let id = request.broker_id;
        let Some(registration_offset) = state.image.cluster().registration_offset(id) else {
            return Err(error(
                ErrorCode::StaleBrokerEpoch,
                format!("Receive a heartbeat from broker {id} before registration"),
            ));
        };
        check_broker_epoch(&state.image, id, request.broker_epoch)?;
        let Some(registration) = state.image.cluster().broker(id) else {
            return Err(error(
                ErrorCode::UnknownServerError,
                format!("Broker {id} is not registered."),
            ));
        };
        let epoch = registration.epoch();
        let in_controlled_shutdown = registration.in_controlled_shutdown();
        let ask = HeartbeatAsk {
            want_fence: request.want_fence,
            want_shut_down: request.want_shut_down,
            current_metadata_offset: request.current_metadata_offset,
        };
        let image = &state.image;
        let Some((current, next)) =
            state
                .heartbeats
                .next_state(id, ask, registration_offset, || {
                    broker_changes::has_leaderships(image, id)
                })
        else {
            return Err(error(
                ErrorCode::UnknownServerError,
                format!("Broker {id} is not registered."),
            ));
        };
        let mut records = Vec::new();
        let settings = self.replication_settings();
        if current != next {
            match next {
                BrokerControlState::Fenced | BrokerControlState::ShutdownNow => {
                    records = fence_records(image, id, epoch, &settings);
                }
                BrokerControlState::Unfenced => {
                    records.push(MetadataRecord::new(
                        BrokerRegistrationChangeRecord {
                            broker_id: id,
                            broker_epoch: epoch,
                            fenced: UNFENCE,
                            ..Default::default()
                        },
                        0,
                    ));
                    records.extend(broker_changes::unfence_broker(image, id, &settings));
                }
                BrokerControlState::ControlledShutdown => {
                    if !in_controlled_shutdown {
                        records.push(MetadataRecord::new(
                            BrokerRegistrationChangeRecord {
                                broker_id: id,
                                broker_epoch: epoch,
                                in_controlled_shutdown: IN_CONTROLLED_SHUTDOWN,
                                ..Default::default()
                            },
                            1,
                        ));
                    }
                    records.extend(broker_changes::controlled_shutdown_broker(
                        image, id, &settings,
                    ));
                }
            }
        }
        state
            .heartbeats
            .touch(id, next.fenced(), request.current_metadata_offset);
        let mv = state.image.metadata_version();
        let registration = state.image.cluster().broker(id);
        if let (Some(mv), Some(registration)) = (mv, registration) {
            if mv.is_directory_assignment_supported() {
                let dirs = registration.directories();
                let offline: Vec<Uuid> = dirs
                    .iter()
                    .filter(|d| request.offline_log_dirs.contains(d))
                    .copied()
                    .collect();
                if !offline.is_empty() {
                    let online: Vec<Uuid> = dirs
                        .iter()
                        .filter(|d| !request.offline_log_dirs.contains(d))
                        .copied()
                        .collect();
                    tracing::warn!(
                        "Directories {offline:?} in broker {id} marked offline, remaining directories: {online:?}"
                    );
                    records.extend(broker_changes::directories_offline(
                        &state.image,
                        id,
                        &offline,
                        &settings,
                    ));
                    records.push(MetadataRecord::new(
                        BrokerRegistrationChangeRecord {
                            broker_id: id,
                            broker_epoch: epoch,
                            log_dirs: online,
                            ..Default::default()
                        },
                        2,
                    ));
                }
            }
            if mv.is_cordoned_log_dirs_supported() {
                if let Some(cordoned) = &request.cordoned_log_dirs {
                    let changed = match registration.cordoned_directories() {
                        None => true,
                        Some(known) => {
                            let a: HashSet<&Uuid> = known.iter().collect();
                            let b: HashSet<&Uuid> = cordoned.iter().collect();
                            a != b
                        }
                    };
                    if changed {
                        records.push(MetadataRecord::new(
                            BrokerRegistrationChangeRecord {
                                broker_id: id,
                                broker_epoch: epoch,
                                cordoned_log_dirs: Some(cordoned.clone()),
                                ..Default::default()
                            },
                            3,
                        ));
                    }
                }
            }
        }
        let reply = HeartbeatReply {
            is_caught_up: request.current_metadata_offset >= registration_offset,
            next,
        };
        let mut generated = Generated::new(records, reply);
        if next.in_controlled_shutdown() {
            generated.after_append = Some(Box::new(move |state: &mut ActiveState, offset| {
                state
                    .heartbeats
                    .maybe_update_controlled_shutdown_offset(id, offset)
            }));
        }
        Ok(generated)
    }

    /// UnregisterBroker: BROKER_ID_NOT_REGISTERED for an unknown broker,
    /// else an UnregisterBrokerRecord, answered after it commits.
    pub async fn unregister_broker(
        &self,
        request: &UnregisterBrokerRequest,
    ) -> UnregisterBrokerResponse {
        let id = request.broker_id;
        let result = self
            .write("unregisterBroker", None, |state| {
                let Some(registration) = state.image.cluster().broker(id) else {
                    return Err(error(
                        ErrorCode::BrokerIdNotRegistered,
                        format!("Broker ID {id} is not currently registered"),
                    ));
                };
                let record = UnregisterBrokerRecord {
                    broker_id: id,
                    broker_epoch: registration.epoch(),
                    ..Default::default()
                };
                let mut records = broker_changes::unregister_broker(
                    &state.image,
                    id,
                    &self.replication_settings(),
                );
                records.push(MetadataRecord::new(record, 0));
                Ok(Generated::new(records, ()))
            })
            .await;
        match result {
            Ok(()) => UnregisterBrokerResponse::default(),
            Err(e) => UnregisterBrokerResponse {
                error_code: e.code.code(),
                error_message: e.message.map(StrBytes::from),
                ..Default::default()
            },
        }
    }

    /// Fences brokers whose session expired, one write each (Kafka's
    /// `maybeFenceOneStaleBroker`, repeated while it finds one). Returns how
    /// many expired sessions it handled; does nothing unless this is the
    /// active controller.
    pub async fn fence_stale_brokers(&self) -> usize {
        let mut fenced = 0;
        loop {
            let result = self
                .write("maybeFenceStaleBroker", None, |state| {
                    let expired = self
                        .sessions
                        .lock()
                        .ok()
                        .and_then(|mut s| s.remove_expired(Instant::now()));
                    let Some(key) = expired else {
                        return Ok(Generated::new(Vec::new(), false));
                    };
                    let Some(registration) = state.image.cluster().broker(key.id) else {
                        tracing::info!(
                            "Removing heartbeat tracker entry for unknown broker {} at epoch {}.",
                            key.id,
                            key.epoch
                        );
                        state.heartbeats.remove(key.id);
                        return Ok(Generated::new(Vec::new(), true));
                    };
                    if registration.epoch() != key.epoch {
                        tracing::info!(
                            "Removing heartbeat tracker entry for broker {} at previous epoch {}. Current epoch is {}",
                            key.id,
                            key.epoch,
                            registration.epoch()
                        );
                        return Ok(Generated::new(Vec::new(), true));
                    }
                    tracing::info!(
                        "Fencing broker {} at epoch {} because its session has timed out.",
                        key.id,
                        key.epoch
                    );
                    state.heartbeats.fence(key.id);
                    let records = fence_records(
                        &state.image,
                        key.id,
                        key.epoch,
                        &self.replication_settings(),
                    );
                    Ok(Generated::new(records, true))
                })
                .await;
            match result {
                Ok(true) => fenced += 1,
                Ok(false) | Err(_) => return fenced,
            }
        }
    }

    /// How often [`Controller::fence_stale_brokers`] runs at least: an
    /// eighth of the session timeout (Kafka's period).
    pub fn session_check_interval(&self) -> Duration {
        self.settings.broker_session_timeout / 8
    }

    /// When [`Controller::fence_stale_brokers`] should run next, checked at
    /// `now`: just after the first session expires, or one
    /// [`Controller::session_check_interval`] from now, whichever comes
    /// first. Kafka checks every eighth of the timeout, so a broker is
    /// fenced up to that long after its session expired; here it is fenced
    /// as soon as it expired.
    pub fn next_session_check(&self, now: Instant) -> Instant {
        let expiry = self.sessions.lock().ok().and_then(|s| s.next_expiry());
        next_session_check(now, expiry, self.session_check_interval())
    }
}

/// The next session check at `now`: [`SESSION_EXPIRY_MARGIN`] after the
/// first session's `expiry`, at most `interval` from now (a session started
/// later expires later, so the wait is never too long), and never in the
/// past.
fn next_session_check(now: Instant, expiry: Option<Instant>, interval: Duration) -> Instant {
    let latest = now + interval;
    match expiry {
        Some(expiry) => (expiry + SESSION_EXPIRY_MARGIN).clamp(now, latest),
        None => latest,
    }
}

/// How long after a session's expiry it is checked: a session expires once
/// strictly more than the timeout has passed.
const SESSION_EXPIRY_MARGIN: Duration = Duration::from_millis(1);

/// A heartbeat's answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct HeartbeatReply {
    is_caught_up: bool,
    next: BrokerControlState,
}

#[cfg(test)]
mod session_check_tests {
    use super::*;

    #[test]
    fn the_check_runs_just_after_the_first_expiry_and_at_least_every_interval() {
        let now = Instant::now();
        let interval = Duration::from_millis(1125);
        let ms = Duration::from_millis;
        assert_eq!(next_session_check(now, None, interval), now + interval);
        // An expiry within the interval: 1 ms after it.
        assert_eq!(
            next_session_check(now, Some(now + ms(300)), interval),
            now + ms(301)
        );
        // One further away: the interval.
        assert_eq!(
            next_session_check(now, Some(now + ms(5000)), interval),
            now + interval
        );
        // One already past (a check that is late): now.
        let later = now + ms(10);
        assert_eq!(next_session_check(later, Some(now), interval), later);
    }
}
