//! CreateTopics (19): Kafka's `ControllerApis.createTopics` (duplicate
//! names, the metadata topic) and `ReplicationControlManager.createTopics`
//! (names, existing topics, configs, partition placement), reached through
//! `QuorumController`.
//!
//! One write computes every topic of a request against the writer's state
//! and appends all their records in one batch, per topic a TopicRecord, its
//! ConfigRecords (and a ClearElrRecord when it sets `min.insync.replicas`
//! with eligible leader replicas on) and its PartitionRecords, in Kafka's
//! order. Replicas are placed by Kafka's striped, rack-aware placer over
//! the registered brokers; the ISR is the replicas that are unfenced and
//! not shutting down, the first of them the leader.

use std::collections::{HashMap, HashSet};

use kraft_protocol::acl::{AclOperation, ResourceType};
use kraft_protocol::messages::clear_elr_record::ClearElrRecord;
use kraft_protocol::messages::config_record::ConfigRecord;
use kraft_protocol::messages::create_topics_request::{CreatableTopic, CreateTopicsRequest};
use kraft_protocol::messages::create_topics_response::{
    CreatableTopicConfigs, CreatableTopicResult, CreateTopicsResponse,
};
use kraft_protocol::messages::partition_record::PartitionRecord;
use kraft_protocol::messages::topic_record::TopicRecord;
use kraft_protocol::{ErrorCode, StrBytes, Uuid};

use super::authz::{Access, Refusal, CLUSTER_NAME};
use super::mutation_quota::{QuotaAttempt, RequestQuota};
use super::writer::{ActiveState, Generated};
use super::{error, ApiError, Controller, MAX_RECORDS_PER_USER_OP};
use crate::image::{MetadataImage, MetadataRecord};
use crate::java::JavaHashMap;
use crate::replication::broker_changes::{is_active, MIN_IN_SYNC_REPLICAS as MIN_INSYNC_REPLICAS};
use crate::replication::placer::{self, PlacementSpec};
use crate::topic_config;

/// The metadata log's topic name, which no request may create.
const CLUSTER_METADATA_TOPIC: &str = "__cluster_metadata";
/// Kafka's `MAX_PARTITIONS_PER_BATCH`.
const MAX_PARTITIONS_PER_BATCH: i64 = 10_000;
/// Kafka's longest topic name.
const MAX_TOPIC_NAME_LENGTH: usize = 249;

/// Kafka's `Topic.validate`: why `name` is not a legal topic name.
pub(crate) fn invalid_topic_name(name: &str) -> Option<String> {
    let reason = if name.is_empty() {
        "the empty string is not allowed".to_owned()
    } else if name == "." {
        "'.' is not allowed".to_owned()
    } else if name == ".." {
        "'..' is not allowed".to_owned()
    } else if name.encode_utf16().count() > MAX_TOPIC_NAME_LENGTH {
        format!(
            "the length of '{name}' is longer than the max allowed length {MAX_TOPIC_NAME_LENGTH}"
        )
    } else if !name
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
    {
        format!("'{name}' contains one or more characters other than ASCII alphanumerics, '.', '_' and '-'")
    } else {
        return None;
    };
    Some(format!("Topic name is invalid: {reason}"))
}

/// Kafka's `Topic.hasCollisionChars`.
fn has_collision_chars(name: &str) -> bool {
    name.contains('.') || name.contains('_')
}

/// Kafka's `Topic.unifyCollisionChars`.
fn unify_collision_chars(name: &str) -> String {
    name.replace('.', "_")
}

/// A topic that passed every check: its records and its result.
struct NewTopic {
    records: Vec<MetadataRecord>,
    result: CreatableTopicResult,
}

impl Controller {
    /// CreateTopics: `INVALID_REQUEST` for a name given twice and for the
    /// metadata topic, then every other topic created (or, with
    /// ValidateOnly, checked) in one write, answered once its records are
    /// committed. Results keep the request's order, followed by the
    /// duplicates and the refused metadata topic as Kafka appends them.
    ///
    /// Called directly, as a trusted caller: nothing is authorized (the
    /// network path goes through [`Controller::create_topics_with`]).
    pub async fn create_topics(&self, request: &CreateTopicsRequest) -> CreateTopicsResponse {
        self.create_topics_with(&Access::everything(), &RequestQuota::unbounded(), request)
            .await
    }

    /// CreateTopics as `ControllerApis.createTopics` authorizes it: CREATE
    /// on the cluster, else on each topic (the others are answered
    /// TOPIC_AUTHORIZATION_FAILED, `Authorization failed.`); a created
    /// topic's configs are returned only with DESCRIBE_CONFIGS on it (else
    /// its TopicConfigErrorCode is TOPIC_AUTHORIZATION_FAILED).
    pub(crate) async fn create_topics_with(
        &self,
        access: &Access<'_>,
        quota: &RequestQuota,
        request: &CreateTopicsRequest,
    ) -> CreateTopicsResponse {
        let requested: Vec<CreatableTopic> = request.topics.to_vec();
        let mut names: JavaHashMap<String> = JavaHashMap::new();
        let mut duplicates: JavaHashMap<String> = JavaHashMap::new();
        for t in &requested {
            let name = t.name.as_str().to_owned();
            if duplicates.iter().any(|d| *d == name) {
                continue;
            }
            if names.iter().any(|n| *n == name) {
                names.remove(&name);
                duplicates.put(name);
            } else {
                names.put(name);
            }
        }
        let allowed: Vec<&str> = names
            .iter()
            .map(String::as_str)
            .filter(|n| *n != CLUSTER_METADATA_TOPIC)
            .collect();
        let checked = access
            .allows(AclOperation::Create, ResourceType::Cluster, CLUSTER_NAME)
            .and_then(|cluster| {
                let authorized: HashSet<String> = if cluster {
                    allowed.iter().map(|n| (*n).to_owned()).collect()
                } else {
                    access.filter(AclOperation::Create, ResourceType::Topic, allowed.clone())?
                };
                let describable = access.filter(
                    AclOperation::DescribeConfigs,
                    ResourceType::Topic,
                    allowed.clone(),
                )?;
                Ok((authorized, describable))
            });
        let (authorized, describable) = match checked {
            Ok(sets) => sets,
            Err(e) => return error_response(request, &Refusal::from(e).api_error()),
        };
        let wanted: Vec<&CreatableTopic> = requested
            .iter()
            .filter(|t| {
                let name = t.name.as_str();
                name != CLUSTER_METADATA_TOPIC
                    && !duplicates.iter().any(|d| d == name)
                    && authorized.contains(name)
            })
            .collect();
        let mut results = Vec::new();
        if !wanted.is_empty() {
            let deadline = (request.timeout_ms > 0).then(|| {
                tokio::time::Instant::now()
                    + std::time::Duration::from_millis(request.timeout_ms as u64)
            });
            let mut attempt = QuotaAttempt::new();
            let outcome = self
                .write("createTopics", deadline, |state| {
                    quota.begin_attempt(&mut attempt);
                    self.generate_topics(state, &wanted, request.validate_only, quota)
                })
                .await;
            match outcome {
                Ok(r) => results = r,
                Err(e) => return error_response(request, &e),
            }
            for r in &mut results {
                if r.error_code == 0 && !describable.contains(r.name.as_str()) {
                    *r = CreatableTopicResult {
                        name: r.name.clone(),
                        topic_id: r.topic_id,
                        error_message: None,
                        topic_config_error_code: ErrorCode::TopicAuthorizationFailed.code(),
                        ..Default::default()
                    };
                }
            }
        }
        for name in duplicates.iter() {
            results.push(refused(
                name,
                ErrorCode::InvalidRequest,
                Some("Duplicate topic name.".to_owned()),
            ));
        }
        for name in names.iter() {
            if name == CLUSTER_METADATA_TOPIC {
                results.push(refused(
                    name,
                    ErrorCode::InvalidRequest,
                    Some(format!(
                        "Creation of internal topic {CLUSTER_METADATA_TOPIC} is prohibited."
                    )),
                ));
            } else if !authorized.contains(name) {
                results.push(refused(
                    name,
                    ErrorCode::TopicAuthorizationFailed,
                    Some("Authorization failed.".to_owned()),
                ));
            }
        }
        CreateTopicsResponse {
            topics: results.into(),
            ..Default::default()
        }
    }

    /// Kafka's `ReplicationControlManager.createTopics` over the writer's
    /// state.
    fn generate_topics(
        &self,
        state: &mut ActiveState,
        topics: &[&CreatableTopic],
        validate_only: bool,
        quota: &RequestQuota,
    ) -> Result<Generated<Vec<CreatableTopicResult>>, ApiError> {
        let defaults = &self.settings.topics;
        let image = &state.image;
        let mut total: i64 = 0;
        for t in topics {
            total += if !t.assignments.is_empty() {
                t.assignments.len() as i64
            } else if t.num_partitions == -1 {
                i64::from(defaults.num_partitions)
            } else {
                i64::from(t.num_partitions.max(0))
            };
            if total > MAX_PARTITIONS_PER_BATCH {
                return Err(error(
                    ErrorCode::PolicyViolation,
                    "Excessively large number of partitions per request.",
                ));
            }
        }
        let mut errors: HashMap<&str, ApiError> = HashMap::new();
        let colliding = colliding_names(image, topics);
        for t in topics {
            let name = t.name.as_str();
            if errors.contains_key(name) {
                continue;
            }
            if let Some(why) = invalid_topic_name(name) {
                errors.insert(name, error(ErrorCode::InvalidTopicException, why));
            }
            if has_collision_chars(name) {
                if let Some(existing) = colliding.get(&unify_collision_chars(name)) {
                    errors.insert(
                        name,
                        error(
                            ErrorCode::InvalidTopicException,
                            format!("Topic '{name}' collides with existing topic: {existing}"),
                        ),
                    );
                }
            }
        }
        for t in topics {
            let name = t.name.as_str();
            if image.topics().topic_by_name(name).is_some() {
                errors.insert(
                    name,
                    error(
                        ErrorCode::TopicAlreadyExists,
                        format!("Topic '{name}' already exists."),
                    ),
                );
            }
        }
        // Kafka's computeConfigChanges: null values refused, the rest set.
        let mut configs: HashMap<&str, Vec<(String, String)>> = HashMap::new();
        for t in topics {
            let name = t.name.as_str();
            if errors.contains_key(name) {
                continue;
            }
            let given: Vec<(String, Option<String>)> = t
                .configs
                .iter()
                .map(|c| {
                    (
                        c.name.as_str().to_owned(),
                        c.value.as_ref().map(|v| v.as_str().to_owned()),
                    )
                })
                .collect();
            if let Err(e) = topic_config::check_creation_nulls(&given) {
                errors.insert(name, error(e.code, e.message));
                continue;
            }
            let mut keys: JavaHashMap<String> = JavaHashMap::new();
            let mut values: HashMap<String, String> = HashMap::new();
            for c in t.configs.to_vec() {
                let key = c.name.as_str().to_owned();
                keys.put(key.clone());
                values.insert(
                    key,
                    c.value
                        .as_ref()
                        .map(|v| v.as_str().to_owned())
                        .unwrap_or_default(),
                );
            }
            let ordered: Vec<(String, String)> = keys
                .iter()
                .map(|k| (k.clone(), values.get(k).cloned().unwrap_or_default()))
                .collect();
            if !ordered.is_empty() {
                configs.insert(name, ordered);
            }
        }
        let mut created: HashMap<&str, NewTopic> = HashMap::new();
        for t in topics {
            let name = t.name.as_str();
            if errors.contains_key(name) {
                continue;
            }
            let topic_configs = configs.get(name).map(Vec::as_slice).unwrap_or(&[]);
            let config_records = match self.topic_config_records(image, name, topic_configs) {
                Ok(r) => r,
                Err(e) => {
                    errors.insert(name, e);
                    continue;
                }
            };
            match self.create_topic(image, t, topic_configs, config_records, quota) {
                Ok(new_topic) => {
                    created.insert(name, new_topic);
                }
                Err(e) => {
                    errors.insert(name, e);
                }
            }
        }
        let mut results = Vec::with_capacity(topics.len());
        let mut records = Vec::new();
        let mut summary = Vec::with_capacity(topics.len());
        for t in topics {
            let name = t.name.as_str();
            if let Some(e) = errors.remove(name) {
                summary.push(format!(
                    "{name}: {} ({})",
                    e.code.name(),
                    e.message.as_deref().unwrap_or("null")
                ));
                results.push(refused(name, e.code, e.message));
            } else if let Some(new_topic) = created.remove(name) {
                summary.push(format!("{name}: SUCCESS"));
                records.extend(new_topic.records);
                results.push(new_topic.result);
            }
        }
        if records.len() > MAX_RECORDS_PER_USER_OP {
            return Err(error(
                ErrorCode::UnknownServerError,
                format!(
                    "Cannot add another element to the list because it would exceed the maximum length of {MAX_RECORDS_PER_USER_OP}"
                ),
            ));
        }
        if validate_only {
            tracing::info!(
                "Validate-only CreateTopics result(s): {}",
                summary.join(", ")
            );
            return Ok(Generated::new(Vec::new(), results));
        }
        tracing::info!("CreateTopics result(s): {}", summary.join(", "));
        Ok(Generated::new(records, results))
    }

    /// The ConfigRecords (and ClearElrRecord) of a new topic's configs,
    /// validated as Kafka's `ConfigurationControlManager` does for a newly
    /// created resource.
    fn topic_config_records(
        &self,
        image: &MetadataImage,
        topic: &str,
        configs: &[(String, String)],
    ) -> Result<Vec<MetadataRecord>, ApiError> {
        if configs.is_empty() {
            return Ok(Vec::new());
        }
        let elr = image.eligible_leader_replicas_enabled();
        topic_config::validate_new_topic(configs, |key| self.server_config(image, key))
            .map_err(|e| error(ErrorCode::InvalidConfig, e.to_string()))?;
        let mut records: Vec<MetadataRecord> = configs
            .iter()
            .map(|(k, v)| {
                MetadataRecord::new(
                    ConfigRecord {
                        resource_type: crate::image::ConfigResource::TOPIC,
                        resource_name: topic.into(),
                        name: k.as_str().into(),
                        value: Some(v.as_str().into()),
                        ..Default::default()
                    },
                    0,
                )
            })
            .collect();
        if elr && configs.iter().any(|(k, _)| k == MIN_INSYNC_REPLICAS) {
            records.push(MetadataRecord::new(
                ClearElrRecord {
                    topic_name: topic.into(),
                    ..Default::default()
                },
                0,
            ));
        }
        Ok(records)
    }

    /// Kafka's `createTopic`: the partitions (manual assignment or placed),
    /// then the records and the result.
    fn create_topic(
        &self,
        image: &MetadataImage,
        topic: &CreatableTopic,
        configs: &[(String, String)],
        config_records: Vec<MetadataRecord>,
        quota: &RequestQuota,
    ) -> Result<NewTopic, ApiError> {
        let defaults = &self.settings.topics;
        let mv = image.metadata_version().ok_or_else(|| {
            error(
                ErrorCode::UnknownServerError,
                "No metadata.version is finalized yet.",
            )
        })?;
        let mut partitions: Vec<Vec<i32>> = Vec::new();
        if !topic.assignments.is_empty() {
            if topic.replication_factor != -1 {
                return Err(error(
                    ErrorCode::InvalidRequest,
                    "A manual partition assignment was specified, but replication factor was not set to -1.",
                ));
            }
            if topic.num_partitions != -1 {
                return Err(error(
                    ErrorCode::InvalidRequest,
                    "A manual partition assignment was specified, but numPartitions was not set to -1.",
                ));
            }
            let mut by_index: HashMap<i32, Vec<i32>> = HashMap::new();
            let mut replication_factor = None;
            for a in topic.assignments.to_vec() {
                if by_index.contains_key(&a.partition_index) {
                    return Err(error(
                        ErrorCode::InvalidReplicaAssignment,
                        format!(
                            "Found multiple manual partition assignments for partition {}",
                            a.partition_index
                        ),
                    ));
                }
                let replicas: Vec<i32> = a.broker_ids.to_vec();
                validate_manual_assignment(image, &replicas, replication_factor)?;
                replication_factor = Some(replicas.len());
                if !replicas.iter().any(|r| is_active(image, *r)) {
                    return Err(error(
                        ErrorCode::InvalidReplicaAssignment,
                        format!(
                            "All brokers specified in the manual partition assignment for partition {} are fenced or in controlled shutdown.",
                            a.partition_index
                        ),
                    ));
                }
                by_index.insert(a.partition_index, replicas);
            }
            for i in 0..by_index.len() as i32 {
                match by_index.remove(&i) {
                    Some(r) => partitions.push(r),
                    None => {
                        return Err(error(
                            ErrorCode::InvalidReplicaAssignment,
                            "partitions should be a consecutive 0-based integer sequence",
                        ))
                    }
                }
            }
        } else if topic.replication_factor < -1 || topic.replication_factor == 0 {
            return Err(error(
                ErrorCode::InvalidReplicationFactor,
                "Replication factor must be larger than 0, or -1 to use the default value.",
            ));
        } else if topic.num_partitions < -1 || topic.num_partitions == 0 {
            return Err(error(
                ErrorCode::InvalidPartitions,
                "Number of partitions was set to an invalid non-positive value.",
            ));
        } else {
            let num_partitions = if topic.num_partitions == -1 {
                defaults.num_partitions
            } else {
                topic.num_partitions
            };
            let replication_factor = if topic.replication_factor == -1 {
                defaults.replication_factor
            } else {
                topic.replication_factor
            };
            let spec = PlacementSpec {
                starting_partition: 0,
                num_partitions,
                replication_factor,
            };
            let brokers = placer::usable_brokers(image);
            let mut random = placer::ThreadRandom::new();
            partitions = placer::place(&spec, &brokers, &mut random).map_err(|e| {
                error(
                    ErrorCode::InvalidReplicationFactor,
                    format!("Unable to replicate the partition {replication_factor} time(s): {e}"),
                )
            })?;
            if partitions
                .iter()
                .any(|replicas| !replicas.iter().any(|r| is_active(image, *r)))
            {
                return Err(error(
                    ErrorCode::InvalidReplicationFactor,
                    format!("Unable to replicate the partition {replication_factor} time(s): All brokers are currently fenced or in controlled shutdown."),
                ));
            }
        }
        // The controller mutation quota, once the topic is known to be valid.
        quota.record(partitions.len())?;
        let topic_id = crate::java::random_uuid();
        let name = topic.name.as_str();
        let mut records = Vec::with_capacity(1 + config_records.len() + partitions.len());
        records.push(MetadataRecord::new(
            TopicRecord {
                name: name.into(),
                topic_id,
                ..Default::default()
            },
            0,
        ));
        records.extend(config_records);
        let directories = mv.is_directory_assignment_supported();
        for (index, replicas) in partitions.iter().enumerate() {
            let isr: Vec<i32> = replicas
                .iter()
                .copied()
                .filter(|r| is_active(image, *r))
                .collect();
            let dirs: Vec<Uuid> = if directories {
                replicas
                    .iter()
                    .map(|r| placer::default_directory(image, *r))
                    .collect()
            } else {
                Vec::new()
            };
            records.push(MetadataRecord::new(
                PartitionRecord {
                    partition_id: index as i32,
                    topic_id,
                    replicas: replicas.clone(),
                    leader: isr.first().copied().unwrap_or(-1),
                    isr,
                    directories: dirs,
                    leader_recovery_state: 0,
                    leader_epoch: 0,
                    partition_epoch: 0,
                    ..Default::default()
                },
                mv.partition_record_version(),
            ));
        }
        let replication_factor = partitions.first().map_or(0, |r| r.len() as i16);
        let node = crate::image::ConfigResource::new(
            crate::image::ConfigResource::BROKER,
            self.settings.node_id.to_string(),
        );
        let effective = topic_config::effective_topic_configs_layered(
            configs,
            |key| image.configs().value(&node, key).map(str::to_owned),
            |key| image.configs().cluster_default(key).map(str::to_owned),
            |key| self.static_topic_config(key),
        );
        let result = CreatableTopicResult {
            name: topic.name.clone(),
            topic_id,
            error_code: 0,
            error_message: None,
            num_partitions: partitions.len() as i32,
            replication_factor,
            topic_config_error_code: 0,
            configs: Some(
                effective
                    .into_iter()
                    .map(|c| CreatableTopicConfigs {
                        name: c.name.into(),
                        value: c.value.map(StrBytes::from),
                        read_only: c.read_only,
                        config_source: c.source,
                        is_sensitive: c.sensitive,
                        ..Default::default()
                    })
                    .collect(),
            ),
            ..Default::default()
        };
        Ok(NewTopic { records, result })
    }

    /// The controller's own static value of a topic config's server
    /// synonym (`min.insync.replicas`, `num.partitions`...).
    fn static_topic_config(&self, key: &str) -> Option<String> {
        match key {
            MIN_INSYNC_REPLICAS => Some(self.settings.topics.min_insync_replicas.to_string()),
            _ => None,
        }
    }
}

/// Existing topic names with collision characters, by their unified form.
fn colliding_names(image: &MetadataImage, topics: &[&CreatableTopic]) -> HashMap<String, String> {
    let mut out = HashMap::new();
    if !topics.iter().any(|t| has_collision_chars(t.name.as_str())) {
        return out;
    }
    for t in image.topics().topics() {
        if has_collision_chars(t.name()) {
            out.entry(unify_collision_chars(t.name()))
                .or_insert_with(|| t.name().to_owned());
        }
    }
    out
}

/// Kafka's `validateManualPartitionAssignment`; `replication_factor` is
/// the count every partition must have, once known.
pub(super) fn validate_manual_assignment(
    image: &MetadataImage,
    replicas: &[i32],
    replication_factor: Option<usize>,
) -> Result<(), ApiError> {
    let refuse = |m: String| Err(error(ErrorCode::InvalidReplicaAssignment, m));
    if replicas.is_empty() {
        return refuse(
            "The manual partition assignment includes an empty replica list.".to_owned(),
        );
    }
    let mut sorted = replicas.to_vec();
    sorted.sort_unstable();
    let mut previous = None;
    for id in &sorted {
        let Some(b) = image.cluster().broker(*id) else {
            return refuse(format!("The manual partition assignment includes broker {id}, but no such broker is registered."));
        };
        let uncordoned = match b.cordoned_directories() {
            None => true,
            Some(_) if b.directories().is_empty() => true,
            Some(cordoned) => b.directories().iter().any(|d| !cordoned.contains(d)),
        };
        if !uncordoned {
            return refuse(format!("The manual partition assignment includes broker {id}, but all its log directories are cordoned."));
        }
        if previous == Some(*id) {
            return refuse(format!(
                "The manual partition assignment includes the broker {id} more than once."
            ));
        }
        previous = Some(*id);
    }
    if let Some(rf) = replication_factor {
        if sorted.len() != rf {
            return refuse(format!("The manual partition assignment includes a partition with {} replica(s), but this is not consistent with previous partitions, which have {rf} replica(s).", sorted.len()));
        }
    }
    Ok(())
}

fn refused(name: &str, code: ErrorCode, message: Option<String>) -> CreatableTopicResult {
    CreatableTopicResult {
        name: name.into(),
        error_code: code.code(),
        error_message: message.map(StrBytes::from),
        ..Default::default()
    }
}

/// Kafka's `CreateTopicsRequest.getErrorResponse`: every topic of the
/// request with the error.
fn error_response(request: &CreateTopicsRequest, e: &ApiError) -> CreateTopicsResponse {
    CreateTopicsResponse {
        topics: request
            .topics
            .iter()
            .map(|t| CreatableTopicResult {
                name: t.name.clone(),
                error_code: e.code.code(),
                error_message: e.message.clone().map(StrBytes::from),
                ..Default::default()
            })
            .collect(),
        ..Default::default()
    }
}
