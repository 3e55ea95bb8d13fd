//! Leader elections: ElectLeaders (43) and the periodic preferred and
//! unclean elections (Kafka's `ReplicationControlManager.electLeaders`,
//! `maybeBalancePartitionLeaders` and `maybeElectUncleanLeaders`, reached
//! through `QuorumController`).
//!
//! ElectLeaders elects, per requested partition (every partition when the
//! request names none), the preferred replica (type 0) or, for a
//! leaderless partition, any replica even outside the ISR (type 1), with
//! Kafka's partition change builder and its per-partition answers:
//! `UNKNOWN_TOPIC_OR_PARTITION`, `ELECTION_NOT_NEEDED` (the preferred
//! replica already leads / the partition has a leader; left out of the
//! answer when electing for every partition), `PREFERRED_LEADER_NOT_AVAILABLE`
//! and `ELIGIBLE_LEADERS_NOT_AVAILABLE` (no record to write). Every
//! PartitionChangeRecord is computed against the same state and appended
//! in one batch; the answer goes out once they are committed. An unknown
//! election type (`INVALID_REQUEST`), more than 10000 records
//! (`POLICY_VIOLATION`) or a failed write answer every requested partition
//! with the error, and the top-level error from version 1.
//!
//! The periodic tasks, one write per round of at most
//! Kafka's 1000 (`MAX_ELECTIONS_PER_IMBALANCE`) records, report whether that bound was
//! reached (more may remain): Kafka then runs them again after 10 ms, else
//! after their period.

use std::time::Duration;

use kraft_protocol::messages::elect_leaders_request::ElectLeadersRequest;
use kraft_protocol::messages::elect_leaders_response::{
    ElectLeadersResponse, PartitionResult, ReplicaElectionResult,
};
use kraft_protocol::{ErrorCode, StrBytes};

use super::writer::{ActiveState, Generated};
use super::{ApiError, Controller, MAX_RECORDS_PER_USER_OP};
use crate::image::{MetadataImage, MetadataRecord};
use crate::replication::partition_change::{
    min_isr_for_topic, unclean_election_enabled, Election, PartitionChange,
};

/// Kafka's `ReplicationControlManager.MAX_ELECTIONS_PER_IMBALANCE`: the
/// most PartitionChangeRecords one periodic election round writes.
const MAX_ELECTIONS_PER_IMBALANCE: usize = 1_000;
/// How soon Kafka runs a periodic task again when it reported more work
/// (`PeriodicTask`'s immediate period).
const IMMEDIATE_RESCHEDULE: Duration = Duration::from_millis(10);

/// Kafka's `ElectionType`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ElectionType {
    Preferred,
    Unclean,
}

impl ElectionType {
    /// `ElectionType.valueOf(byte)`, `INVALID_REQUEST` for another value.
    fn of(value: i8) -> Result<Self, ApiError> {
        match value {
            0 => Ok(ElectionType::Preferred),
            1 => Ok(ElectionType::Unclean),
            other => Err(ApiError::new(
                ErrorCode::InvalidRequest,
                format!("Unknown election type {other}"),
            )),
        }
    }
}

/// One partition's answer: the error and its message (`None` for success).
type Outcome = (ErrorCode, Option<String>);

fn with_default_message(code: ErrorCode) -> Outcome {
    (code, Some(code.default_message().to_owned()))
}

fn partition_result(partition_id: i32, (code, message): Outcome) -> PartitionResult {
    PartitionResult {
        partition_id,
        error_code: code.code(),
        error_message: message.map(StrBytes::from),
        ..Default::default()
    }
}

/// Kafka's `ElectLeadersRequest.getErrorResponse`: every requested
/// partition with the error, the top-level error from version 1.
fn error_response(
    version: i16,
    request: &ElectLeadersRequest,
    e: &ApiError,
) -> ElectLeadersResponse {
    let results = request
        .topic_partitions
        .as_ref()
        .map(|topics| {
            topics
                .iter()
                .map(|t| ReplicaElectionResult {
                    topic: t.topic.clone(),
                    partition_result: t
                        .partitions
                        .iter()
                        .map(|p| partition_result(*p, (e.code, e.message.clone())))
                        .collect(),
                    ..Default::default()
                })
                .collect()
        })
        .unwrap_or_default();
    ElectLeadersResponse {
        error_code: if version >= 1 { e.code.code() } else { 0 },
        replica_election_results: results,
        ..Default::default()
    }
}

impl Controller {
    /// ElectLeaders (v0-2): see the module docs. Answered once its records
    /// are committed.
    pub async fn elect_leaders(
        &self,
        version: i16,
        request: &ElectLeadersRequest,
    ) -> ElectLeadersResponse {
        if request
            .topic_partitions
            .as_ref()
            .is_some_and(|t| t.is_empty())
        {
            return ElectLeadersResponse::default();
        }
        let deadline = tokio::time::Instant::now()
            + Duration::from_millis(u64::try_from(request.timeout_ms).unwrap_or(0));
        // Version 0 has no election type: preferred.
        let election_type = if version == 0 {
            0
        } else {
            request.election_type
        };
        let outcome = self
            .write("electLeaders", Some(deadline), |state| {
                self.generate_elect_leaders(state, election_type, request)
            })
            .await;
        match outcome {
            Ok(results) => ElectLeadersResponse {
                replica_election_results: results.into(),
                ..Default::default()
            },
            Err(e) => error_response(version, request, &e),
        }
    }

    fn generate_elect_leaders(
        &self,
        state: &mut ActiveState,
        election_type: i8,
        request: &ElectLeadersRequest,
    ) -> Result<Generated<Vec<ReplicaElectionResult>>, ApiError> {
        let election = ElectionType::of(election_type)?;
        let image = &state.image;
        let mut records = Vec::new();
        let mut results = Vec::new();
        match &request.topic_partitions {
            None => {
                let mut names: Vec<&str> = image.topics().topics().map(|t| t.name()).collect();
                names.sort_unstable();
                for name in names {
                    let mut partitions = Vec::new();
                    if let Some(topic) = image.topics().topic_by_name(name) {
                        for (id, _) in topic.partitions() {
                            let outcome =
                                self.elect_leader(image, name, id, election, &mut records)?;
                            // Partitions that already have the wanted
                            // leader are left out.
                            if outcome.0 != ErrorCode::ElectionNotNeeded {
                                partitions.push(partition_result(id, outcome));
                            }
                        }
                    }
                    results.push(ReplicaElectionResult {
                        topic: name.into(),
                        partition_result: partitions.into(),
                        ..Default::default()
                    });
                }
            }
            Some(topics) => {
                for t in topics.iter() {
                    let mut partitions = Vec::with_capacity(t.partitions.len());
                    for id in &t.partitions {
                        let outcome = self.elect_leader(
                            image,
                            t.topic.as_str(),
                            *id,
                            election,
                            &mut records,
                        )?;
                        partitions.push(partition_result(*id, outcome));
                    }
                    results.push(ReplicaElectionResult {
                        topic: t.topic.clone(),
                        partition_result: partitions.into(),
                        ..Default::default()
                    });
                }
            }
        }
        Ok(Generated::new(records, results))
    }

    /// Kafka's `electLeader`: one partition's election, its record added to
    /// `records` (`POLICY_VIOLATION` for the whole request past Kafka's
    /// bound on records).
    fn elect_leader(
        &self,
        image: &MetadataImage,
        topic: &str,
        partition_id: i32,
        election: ElectionType,
        records: &mut Vec<MetadataRecord>,
    ) -> Result<Outcome, ApiError> {
        let Some(t) = image.topics().topic_by_name(topic) else {
            return Ok((
                ErrorCode::UnknownTopicOrPartition,
                Some(format!("No such topic as {topic}")),
            ));
        };
        let Some(partition) = t.partition(partition_id) else {
            return Ok((
                ErrorCode::UnknownTopicOrPartition,
                Some(format!("No such partition as {topic}-{partition_id}")),
            ));
        };
        let not_needed = match election {
            ElectionType::Preferred => partition.leader() == partition.preferred_replica(),
            ElectionType::Unclean => partition.has_leader(),
        };
        if not_needed {
            return Ok(with_default_message(ErrorCode::ElectionNotNeeded));
        }
        let settings = self.replication_settings();
        let outcome = PartitionChange::new(
            image,
            t.id(),
            partition_id,
            partition,
            min_isr_for_topic(image, topic, &settings),
        )
        .election(match election {
            ElectionType::Preferred => Election::Preferred,
            ElectionType::Unclean => Election::Unclean,
        })
        .build();
        let Some(record) = outcome.record else {
            return Ok(with_default_message(match election {
                ElectionType::Preferred => ErrorCode::PreferredLeaderNotAvailable,
                ElectionType::Unclean => ErrorCode::EligibleLeadersNotAvailable,
            }));
        };
        if records.len() >= MAX_RECORDS_PER_USER_OP {
            return Err(ApiError::new(
                ErrorCode::PolicyViolation,
                "Unable to perform excessively large batch operation.",
            ));
        }
        records.push(record);
        Ok((ErrorCode::None, None))
    }

    /// Kafka's `maybeBalancePartitionLeaders` (the `electPreferred` periodic
    /// task): one write electing the preferred replica of up to
    /// 1000 partitions it does not lead. Returns whether that bound was
    /// reached, so more may remain (see
    /// [`Controller::periodic_election_delay`] and
    /// [`Controller::leader_imbalance_check_interval`]). Does nothing
    /// unless this is the active controller.
    pub async fn balance_partition_leaders(&self) -> bool {
        let started = std::time::Instant::now();
        let outcome = self
            .write("electPreferred", None, |state| {
                let records = self.preferred_elections(&state.image, MAX_ELECTIONS_PER_IMBALANCE);
                let more = records.len() >= MAX_ELECTIONS_PER_IMBALANCE;
                tracing::info!(
                    "Periodic task electPreferred generated {} records in {} microseconds.",
                    records.len(),
                    started.elapsed().as_micros()
                );
                Ok(Generated::new(records, more))
            })
            .await;
        outcome.unwrap_or(false)
    }

    /// Kafka's `maybeTriggerLeaderChangeForPartitionsWithoutPreferredLeader`:
    /// a preferred election for each partition whose leader is not its
    /// preferred replica, up to `max` records.
    fn preferred_elections(&self, image: &MetadataImage, max: usize) -> Vec<MetadataRecord> {
        let settings = self.replication_settings();
        let mut records = Vec::new();
        for topic in image.topics().topics() {
            let mut min_isr = None;
            for (id, partition) in topic.partitions() {
                if records.len() >= max {
                    return records;
                }
                if partition.leader() == partition.preferred_replica() {
                    continue;
                }
                let min_isr = *min_isr
                    .get_or_insert_with(|| min_isr_for_topic(image, topic.name(), &settings));
                let outcome = PartitionChange::new(image, topic.id(), id, partition, min_isr)
                    .election(Election::Preferred)
                    .build();
                records.extend(outcome.record);
            }
        }
        records
    }

    /// How often [`Controller::balance_partition_leaders`] runs
    /// (`leader.imbalance.check.interval.seconds`), `None` when
    /// `auto.leader.rebalance.enable` is off.
    pub fn leader_imbalance_check_interval(&self) -> Option<Duration> {
        self.settings.topics.leader_imbalance_check_interval
    }

    /// When to run a periodic election task again after a round that
    /// reported `more_remain` (Kafka's `PeriodicTaskControlManager`): after
    /// 10 ms if so, else after `period`.
    pub fn periodic_election_delay(more_remain: bool, period: Duration) -> Duration {
        if more_remain {
            IMMEDIATE_RESCHEDULE
        } else {
            period
        }
    }

    /// Kafka's `maybeElectUncleanLeaders` (the `electUnclean` periodic
    /// task): one write electing, uncleanly, a leader for up to
    /// 1000 leaderless partitions whose topic
    /// has `unclean.leader.election.enable`. Returns whether that bound was
    /// reached. Does nothing unless this is the active controller.
    pub async fn elect_unclean_leaders(&self) -> bool {
        let started = std::time::Instant::now();
        let outcome = self
            .write("electUnclean", None, |state| {
                let image = &state.image;
                let settings = self.replication_settings();
                let mut records = Vec::new();
                'topics: for topic in image.topics().topics() {
                    for (id, partition) in topic.partitions() {
                        if records.len() >= MAX_ELECTIONS_PER_IMBALANCE {
                            break 'topics;
                        }
                        if partition.has_leader() {
                            continue;
                        }
                        let name = topic.name();
                        if !unclean_election_enabled(image, name, &settings) {
                            tracing::debug!(
                                "Cannot trigger unclean leader election for offline partition {name}-{id} because unclean leader election is disabled for this topic."
                            );
                            continue;
                        }
                        let (code, _) = self.elect_leader(
                            image,
                            name,
                            id,
                            ElectionType::Unclean,
                            &mut records,
                        )?;
                        if code == ErrorCode::None {
                            tracing::info!(
                                "Triggering unclean leader election for offline partition {name}-{id}."
                            );
                        } else {
                            tracing::warn!(
                                "Cannot trigger unclean leader election for offline partition {name}-{id}: {}.",
                                code.name()
                            );
                        }
                    }
                }
                let more = records.len() >= MAX_ELECTIONS_PER_IMBALANCE;
                tracing::info!(
                    "Periodic task electUnclean generated {} records in {} microseconds.",
                    records.len(),
                    started.elapsed().as_micros()
                );
                Ok(Generated::new(records, more))
            })
            .await;
        outcome.unwrap_or(false)
    }

    /// How often [`Controller::elect_unclean_leaders`] runs:
    /// `unclean.leader.election.interval.ms`.
    pub fn unclean_election_check_interval(&self) -> Duration {
        self.settings().topics.unclean_leader_election_interval
    }
}
