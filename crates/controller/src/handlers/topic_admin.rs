//! DeleteTopics (20) and CreatePartitions (37): Kafka 4.4's
//! `ControllerApis.deleteTopics` / `createPartitions` (request shape,
//! duplicates, the order of the answers) and
//! `ReplicationControlManager.deleteTopics` / `createPartitions` (the
//! records), reached through `QuorumController`.
//!
//! **DeleteTopics.** Topics are named (below v6, and at v6 with a null id)
//! or given by id (v6, with a null name). A name or id given twice, an
//! entry with both or neither, and a name that resolves to an id that is
//! also given are refused with INVALID_REQUEST. Names and ids are resolved
//! against the committed image (Kafka reads them at the last stable
//! offset); unknown ones answer UNKNOWN_TOPIC_OR_PARTITION /
//! UNKNOWN_TOPIC_ID with Kafka's default texts. The rest are deleted in one
//! write, against the writer's state: a RemoveTopicRecord (v0) per topic,
//! in `java.util.HashMap` order of the topic ids, which is Kafka's record
//! order. Replaying it removes the topic's partitions and configs; no
//! ConfigRecord is written. As Kafka does, the answers are shuffled so that
//! their positions say nothing. No write happens when nothing is left to
//! delete. With `delete.topic.enable=false` every DeleteTopics is refused
//! before anything is resolved, as Kafka refuses it once the cluster
//! permission is known: TOPIC_DELETION_DISABLED for every topic of the
//! request, INVALID_REQUEST below version 3.
//!
//! **CreatePartitions.** A topic named twice is refused with
//! INVALID_REQUEST ("Duplicate topic name.") and listed first; the others
//! are handled in `java.util.HashSet` order of their names, in one write,
//! each with Kafka's checks in Kafka's order: unknown topic, a count that
//! is not an increase, a manual assignment whose length is not the number
//! of new partitions, then placement: manual assignments are checked as
//! CreateTopics checks them (against the replication factor of the topic's
//! first partition) and must have an active replica; otherwise Kafka's
//! striped placer places the new partitions over the usable brokers. Each
//! new partition's ISR is its active replicas (unfenced, not shutting
//! down), the first of them the leader, at leader and partition epoch 0,
//! and is written as a PartitionRecord at the metadata version's
//! PartitionRecord version, with each replica's default directory from
//! directory assignment (3.7-IV2) on. With ValidateOnly the same checks run
//! and nothing is written.
//!
//! Both answer once their records are committed; when the write itself
//! fails (NOT_CONTROLLER, a timeout) every topic of the request carries the
//! error, as Kafka's `getErrorResponse` builds it.

use std::collections::{HashMap, HashSet};
use std::hash::Hash;

use kraft_protocol::acl::{AclOperation, ResourceType};
use kraft_protocol::java_hash_map::JavaHash;
use kraft_protocol::messages::create_partitions_request::{
    CreatePartitionsRequest, CreatePartitionsTopic,
};
use kraft_protocol::messages::create_partitions_response::{
    CreatePartitionsResponse, CreatePartitionsTopicResult,
};
use kraft_protocol::messages::delete_topics_request::DeleteTopicsRequest;
use kraft_protocol::messages::delete_topics_response::{
    DeletableTopicResult, DeleteTopicsResponse,
};
use kraft_protocol::messages::partition_record::PartitionRecord;
use kraft_protocol::messages::remove_topic_record::RemoveTopicRecord;
use kraft_protocol::{ErrorCode, StrBytes, Uuid};

use super::authz::{Access, Refusal, CLUSTER_NAME};
use super::mutation_quota::{QuotaAttempt, RequestQuota};
use super::writer::{ActiveState, Generated};
use super::{error, not_controller, ApiError, Controller, MAX_RECORDS_PER_USER_OP};
use crate::image::{MetadataImage, MetadataRecord, TopicImage};
use crate::java::{uuid_to_text, JavaHashMap};
use crate::replication::broker_changes::is_active;
use crate::replication::placer::{self, PlacementRandom, PlacementSpec, ThreadRandom};

/// An error with Kafka's default text (`new ApiError(Errors)`).
fn with_default_text(code: ErrorCode) -> ApiError {
    error(code, code.default_message())
}

/// A topic id as a `java.util.HashMap` key (`Uuid.hashCode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct IdKey(Uuid);

impl JavaHash for IdKey {
    fn java_hash(&self) -> i32 {
        let (high, low) = self.0.as_u64_pair();
        let folded = high ^ low;
        ((folded >> 32) as u32 as i32) ^ (folded as u32 as i32)
    }
}

/// A `java.util.HashSet`: membership plus Java's iteration order.
struct JavaSet<K> {
    order: JavaHashMap<K>,
    members: HashSet<K>,
}

impl<K: JavaHash + Eq + Hash + Clone> JavaSet<K> {
    fn new() -> Self {
        JavaSet {
            order: JavaHashMap::new(),
            members: HashSet::new(),
        }
    }

    /// `add`: whether the key was new.
    fn add(&mut self, key: K) -> bool {
        if !self.members.insert(key.clone()) {
            return false;
        }
        self.order.put(key);
        true
    }

    fn remove(&mut self, key: &K) {
        if self.members.remove(key) {
            self.order.remove(key);
        }
    }

    fn contains(&self, key: &K) -> bool {
        self.members.contains(key)
    }

    fn is_empty(&self) -> bool {
        self.members.is_empty()
    }

    fn len(&self) -> usize {
        self.members.len()
    }

    fn iter(&self) -> impl Iterator<Item = &K> {
        self.order.iter()
    }
}

/// Kafka's `addProvidedName`: a name seen again moves to the duplicates.
fn add_provided<K: JavaHash + Eq + Hash + Clone>(
    provided: &mut JavaSet<K>,
    duplicates: &mut JavaSet<K>,
    key: K,
) {
    if duplicates.contains(&key) || !provided.add(key.clone()) {
        provided.remove(&key);
        duplicates.add(key);
    }
}

/// `Collections.shuffle`.
fn shuffle<T>(list: &mut [T], random: &mut dyn PlacementRandom) {
    for i in (1..list.len()).rev() {
        let j = random.next_int(i as i32 + 1) as usize;
        list.swap(i, j);
    }
}

fn deletable(name: Option<&str>, topic_id: Uuid, e: Option<&ApiError>) -> DeletableTopicResult {
    DeletableTopicResult {
        name: name.map(StrBytes::from),
        topic_id,
        error_code: e.map_or(0, |e| e.code.code()),
        error_message: e.and_then(|e| e.message.clone()).map(StrBytes::from),
        ..Default::default()
    }
}

/// The topics to delete, by id, with their names (Kafka's `idToName`, a
/// `java.util.HashMap`).
struct IdToName {
    order: JavaHashMap<IdKey>,
    names: HashMap<Uuid, String>,
}

impl IdToName {
    fn new() -> Self {
        IdToName {
            order: JavaHashMap::new(),
            names: HashMap::new(),
        }
    }

    /// `put`: whether the id was already there.
    fn put(&mut self, id: Uuid, name: String) -> bool {
        self.order.put(IdKey(id));
        self.names.insert(id, name).is_some()
    }

    fn remove(&mut self, id: Uuid) {
        if self.names.remove(&id).is_some() {
            self.order.remove(&IdKey(id));
        }
    }
}

impl Controller {
    /// DeleteTopics at `version` (1-6), answered once the RemoveTopicRecords
    /// are committed.
    ///
    /// Called directly, as a trusted caller: nothing is authorized (the
    /// network path goes through [`Controller::delete_topics_with`]).
    pub async fn delete_topics(
        &self,
        version: i16,
        request: &DeleteTopicsRequest,
    ) -> DeleteTopicsResponse {
        self.delete_topics_with(
            &Access::everything(),
            &RequestQuota::unbounded(),
            version,
            request,
        )
        .await
    }

    /// DeleteTopics as `ControllerApis.deleteTopics` authorizes it: DELETE
    /// on the cluster, else DELETE on each topic; a topic the caller may
    /// not delete is answered TOPIC_AUTHORIZATION_FAILED, with its name only
    /// when the caller may DESCRIBE it (a name the caller may not describe
    /// is refused before its existence is checked).
    pub(crate) async fn delete_topics_with(
        &self,
        access: &Access<'_>,
        quota: &RequestQuota,
        version: i16,
        request: &DeleteTopicsRequest,
    ) -> DeleteTopicsResponse {
        let cluster = match access.allows(AclOperation::Delete, ResourceType::Cluster, CLUSTER_NAME)
        {
            Ok(allowed) => allowed,
            Err(e) => {
                return delete_error_response(version, request, &Refusal::from(e).api_error())
            }
        };
        if !self.settings.topics.delete_enable {
            // Kafka: "This version does not support topic deletion." below
            // v3; the error answer carries the code only.
            let code = if version < 3 {
                ErrorCode::InvalidRequest
            } else {
                ErrorCode::TopicDeletionDisabled
            };
            return delete_error_response(version, request, &ApiError::bare(code));
        }
        if !self.image.is_loaded() {
            let e = not_controller(self.quorum.facts().leader_id);
            return delete_error_response(version, request, &e);
        }
        let mut responses: Vec<DeletableTopicResult> = Vec::new();
        let mut names: JavaSet<String> = JavaSet::new();
        let mut duplicate_names: JavaSet<String> = JavaSet::new();
        let mut ids: JavaSet<IdKey> = JavaSet::new();
        let mut duplicate_ids: JavaSet<IdKey> = JavaSet::new();
        for name in &request.topic_names {
            add_provided(&mut names, &mut duplicate_names, name.as_str().to_owned());
        }
        for topic in request.topics.to_vec() {
            match topic.name.as_ref().map(|n| n.as_str()) {
                None if topic.topic_id.is_nil() => responses.push(deletable(
                    None,
                    Uuid::nil(),
                    Some(&error(
                        ErrorCode::InvalidRequest,
                        "Neither topic name nor id were specified.",
                    )),
                )),
                None => add_provided(&mut ids, &mut duplicate_ids, IdKey(topic.topic_id)),
                Some(name) if topic.topic_id.is_nil() => {
                    add_provided(&mut names, &mut duplicate_names, name.to_owned())
                }
                Some(name) => responses.push(deletable(
                    Some(name),
                    topic.topic_id,
                    Some(&error(
                        ErrorCode::InvalidRequest,
                        "You may not specify both topic name and topic id.",
                    )),
                )),
            }
        }
        let duplicate_name = error(ErrorCode::InvalidRequest, "Duplicate topic name.");
        for name in duplicate_names.iter() {
            responses.push(deletable(Some(name), Uuid::nil(), Some(&duplicate_name)));
        }
        let duplicate_id = error(ErrorCode::InvalidRequest, "Duplicate topic id.");
        for id in duplicate_ids.iter() {
            responses.push(deletable(None, id.0, Some(&duplicate_id)));
        }
        let found_ids = resolve_ids(&self.image.read(), &ids, &mut responses);
        let mut to_check: Vec<&str> = names.iter().map(String::as_str).collect();
        to_check.extend(found_ids.iter().map(|(_, n)| n.as_str()));
        let permitted = if cluster {
            let all: HashSet<String> = to_check.iter().map(|n| (*n).to_owned()).collect();
            Ok(Permitted {
                describable: all.clone(),
                deletable: all,
            })
        } else {
            access
                .filter(
                    AclOperation::Describe,
                    ResourceType::Topic,
                    to_check.clone(),
                )
                .and_then(|describable| {
                    Ok(Permitted {
                        describable,
                        deletable: access.filter(
                            AclOperation::Delete,
                            ResourceType::Topic,
                            to_check.clone(),
                        )?,
                    })
                })
        };
        let permitted = match permitted {
            Ok(p) => p,
            Err(e) => {
                return delete_error_response(version, request, &Refusal::from(e).api_error())
            }
        };
        let id_to_name = resolve_names(
            &self.image.read(),
            found_ids,
            &names,
            &mut duplicate_ids,
            &mut responses,
            &permitted,
        );
        let order: Vec<Uuid> = id_to_name.order.iter().map(|k| k.0).collect();
        if !order.is_empty() {
            let mut attempt = QuotaAttempt::new();
            let outcome = self
                .write("deleteTopics", deadline(request.timeout_ms), |state| {
                    quota.begin_attempt(&mut attempt);
                    Ok(generate_deletions(state, &order, quota))
                })
                .await;
            match outcome {
                Ok(results) => {
                    for (id, e) in results {
                        let name = id_to_name.names.get(&id).map(String::as_str);
                        responses.push(deletable(name, id, e.as_ref()));
                    }
                }
                Err(e) => return delete_error_response(version, request, &e),
            }
        }
        shuffle(&mut responses, &mut ThreadRandom::new());
        DeleteTopicsResponse {
            responses: responses.into(),
            ..Default::default()
        }
    }

    /// CreatePartitions (v0-3), answered once the PartitionRecords are
    /// committed (with ValidateOnly, once everything appended before is).
    ///
    /// Called directly, as a trusted caller: nothing is authorized (the
    /// network path goes through [`Controller::create_partitions_with`]).
    pub async fn create_partitions(
        &self,
        request: &CreatePartitionsRequest,
    ) -> CreatePartitionsResponse {
        self.create_partitions_with(&Access::everything(), &RequestQuota::unbounded(), request)
            .await
    }

    /// CreatePartitions as `ControllerApis.createPartitions` authorizes it:
    /// ALTER on each topic; the others are answered TOPIC_AUTHORIZATION_FAILED
    /// (without a message), after the duplicates and before the results.
    pub(crate) async fn create_partitions_with(
        &self,
        access: &Access<'_>,
        quota: &RequestQuota,
        request: &CreatePartitionsRequest,
    ) -> CreatePartitionsResponse {
        let requested: Vec<CreatePartitionsTopic> = request.topics.to_vec();
        let mut names: JavaSet<String> = JavaSet::new();
        let mut duplicates: JavaSet<String> = JavaSet::new();
        for t in &requested {
            let name = t.name.as_str().to_owned();
            if !names.add(name.clone()) {
                duplicates.add(name);
            }
        }
        let mut results = Vec::new();
        for name in duplicates.iter() {
            results.push(CreatePartitionsTopicResult {
                name: name.as_str().into(),
                error_code: ErrorCode::InvalidRequest.code(),
                error_message: Some("Duplicate topic name.".into()),
                ..Default::default()
            });
            names.remove(name);
        }
        let authorized = match access.filter(
            AclOperation::Alter,
            ResourceType::Topic,
            names.iter().map(String::as_str),
        ) {
            Ok(a) => a,
            Err(e) => {
                return create_partitions_error_response(request, &Refusal::from(e).api_error())
            }
        };
        for name in names.iter().filter(|n| !authorized.contains(*n)) {
            results.push(CreatePartitionsTopicResult {
                name: name.as_str().into(),
                error_code: ErrorCode::TopicAuthorizationFailed.code(),
                error_message: None,
                ..Default::default()
            });
        }
        let topics: Vec<&CreatePartitionsTopic> = names
            .iter()
            .filter(|name| authorized.contains(*name))
            .filter_map(|name| requested.iter().find(|t| t.name.as_str() == name))
            .collect();
        if !topics.is_empty() {
            let mut attempt = QuotaAttempt::new();
            let outcome = self
                .write("createPartitions", deadline(request.timeout_ms), |state| {
                    quota.begin_attempt(&mut attempt);
                    generate_create_partitions(state, &topics, request.validate_only, quota)
                })
                .await;
            match outcome {
                Ok(r) => results.extend(r),
                Err(e) => return create_partitions_error_response(request, &e),
            }
        }
        CreatePartitionsResponse {
            results: results.into(),
            ..Default::default()
        }
    }
}

/// The event deadline of a request's TimeoutMs (as the other writes take
/// it).
fn deadline(timeout_ms: i32) -> Option<tokio::time::Instant> {
    (timeout_ms > 0)
        .then(|| tokio::time::Instant::now() + std::time::Duration::from_millis(timeout_ms as u64))
}

/// The topics named in a DeleteTopics the caller may describe and delete.
struct Permitted {
    describable: HashSet<String>,
    deletable: HashSet<String>,
}

/// Kafka's `findTopicNames` over the committed image: the names of the
/// given ids, in the order of Kafka's result map; answers for the unknown.
fn resolve_ids(
    image: &MetadataImage,
    ids: &JavaSet<IdKey>,
    responses: &mut Vec<DeletableTopicResult>,
) -> Vec<(Uuid, String)> {
    let mut out = Vec::new();
    if ids.is_empty() {
        return out;
    }
    // The results map, sized for the ids, in its own iteration order.
    let mut found: JavaHashMap<IdKey> = JavaHashMap::with_capacity(ids.len());
    for id in ids.iter() {
        found.put(*id);
    }
    for id in found.iter() {
        match image.topics().topic(&id.0) {
            None => responses.push(deletable(
                None,
                id.0,
                Some(&with_default_text(ErrorCode::UnknownTopicId)),
            )),
            Some(topic) => out.push((id.0, topic.name().to_owned())),
        }
    }
    out
}

/// The authorization of the ids' topics, then Kafka's `findTopicIds` over
/// the committed image with the names' authorization: the topics left to
/// delete; answers for the ids and names refused.
fn resolve_names(
    image: &MetadataImage,
    found_ids: Vec<(Uuid, String)>,
    names: &JavaSet<String>,
    duplicate_ids: &mut JavaSet<IdKey>,
    responses: &mut Vec<DeletableTopicResult>,
    permitted: &Permitted,
) -> IdToName {
    let mut id_to_name = IdToName::new();
    for (id, name) in found_ids {
        id_to_name.put(id, name);
    }
    let refused: Vec<(Uuid, String)> = id_to_name
        .order
        .iter()
        .filter_map(|k| {
            let name = id_to_name.names.get(&k.0)?;
            (!permitted.deletable.contains(name)).then(|| (k.0, name.clone()))
        })
        .collect();
    let denied = with_default_text(ErrorCode::TopicAuthorizationFailed);
    for (id, name) in refused {
        let shown = permitted
            .describable
            .contains(&name)
            .then_some(name.as_str());
        responses.push(deletable(shown, id, Some(&denied)));
        id_to_name.remove(id);
    }
    if !names.is_empty() {
        let mut found: JavaHashMap<String> = JavaHashMap::with_capacity(names.len());
        for name in names.iter() {
            found.put(name.clone());
        }
        for name in found.iter() {
            if !permitted.describable.contains(name) {
                responses.push(deletable(Some(name), Uuid::nil(), Some(&denied)));
                continue;
            }
            let Some(id) = image.topics().topic_id(name) else {
                responses.push(deletable(
                    Some(name),
                    Uuid::nil(),
                    Some(&with_default_text(ErrorCode::UnknownTopicOrPartition)),
                ));
                continue;
            };
            if !permitted.deletable.contains(name) {
                responses.push(deletable(Some(name), Uuid::nil(), Some(&denied)));
                continue;
            }
            if duplicate_ids.contains(&IdKey(id)) || id_to_name.put(id, name.clone()) {
                duplicate_ids.add(IdKey(id));
                id_to_name.remove(id);
                responses.push(deletable(
                    Some(name),
                    id,
                    Some(&error(
                        ErrorCode::InvalidRequest,
                        "The provided topic name maps to an ID that was already supplied.",
                    )),
                ));
            }
        }
    }
    id_to_name
}

/// Kafka's `ReplicationControlManager.deleteTopics` over the writer's
/// state: a RemoveTopicRecord per topic still there, in `ids`' order.
fn generate_deletions(
    state: &ActiveState,
    ids: &[Uuid],
    quota: &RequestQuota,
) -> Generated<Vec<(Uuid, Option<ApiError>)>> {
    let image = &state.image;
    let mut records = Vec::new();
    let mut results = Vec::with_capacity(ids.len());
    let mut summary = Vec::with_capacity(ids.len());
    for id in ids {
        let topic = image.topics().topic(id);
        let outcome = match topic {
            None => Some(ApiError::bare(ErrorCode::UnknownTopicId)),
            Some(t) => match quota.record(t.partition_count()) {
                Err(e) => Some(e),
                Ok(()) if records.len() >= MAX_RECORDS_PER_USER_OP => {
                    Some(ApiError::bare(ErrorCode::UnknownServerError))
                }
                Ok(()) => {
                    records.push(MetadataRecord::new(
                        RemoveTopicRecord {
                            topic_id: *id,
                            ..Default::default()
                        },
                        0,
                    ));
                    None
                }
            },
        };
        summary.push(format!(
            "{{id: {}, name: {}, result: {}}}",
            uuid_to_text(id),
            topic.map_or("null", |t| t.name()),
            outcome.as_ref().map_or("SUCCESS", |e| e.code.name())
        ));
        results.push((*id, outcome));
    }
    tracing::info!("DeleteTopics result(s): {}", summary.join(", "));
    Generated::new(records, results)
}

/// Kafka's `ReplicationControlManager.createPartitions` over the writer's
/// state.
fn generate_create_partitions(
    state: &ActiveState,
    topics: &[&CreatePartitionsTopic],
    validate_only: bool,
    quota: &RequestQuota,
) -> Result<Generated<Vec<CreatePartitionsTopicResult>>, ApiError> {
    let image = &state.image;
    let mut random = ThreadRandom::new();
    let mut records = Vec::new();
    let mut results = Vec::with_capacity(topics.len());
    for topic in topics {
        let outcome = add_partitions(image, topic, &mut records, &mut random, quota);
        if results.len() >= MAX_RECORDS_PER_USER_OP {
            return Err(error(
                ErrorCode::PolicyViolation,
                "Unable to perform excessively large batch operation.",
            ));
        }
        let (code, message) = match outcome {
            Ok(()) => (0, None),
            Err(e) => (e.code.code(), e.message.map(StrBytes::from)),
        };
        results.push(CreatePartitionsTopicResult {
            name: topic.name.clone(),
            error_code: code,
            error_message: message,
            ..Default::default()
        });
    }
    let summary: Vec<String> = results
        .iter()
        .map(|r| {
            format!(
                "{}: {} ({})",
                r.name.as_str(),
                ErrorCode::from_code(r.error_code).name(),
                r.error_message.as_ref().map_or("null", |m| m.as_str())
            )
        })
        .collect();
    if validate_only {
        tracing::debug!(
            "Validate-only CreatePartitions result(s): {}",
            summary.join(", ")
        );
        return Ok(Generated::new(Vec::new(), results));
    }
    tracing::debug!("CreatePartitions result(s): {}", summary.join(", "));
    Ok(Generated::new(records, results))
}

/// The partition whose replica count new partitions take: Kafka's first
/// partition in its partition map's iteration order, which is partition 0
/// (slot 0 of its timeline hash table, inserted first); the lowest id when
/// there is no partition 0.
fn first_partition(topic: TopicImage<'_>) -> Option<crate::image::PartitionRegistration<'_>> {
    topic
        .partition(0)
        .or_else(|| topic.partitions().next().map(|(_, p)| p))
}

/// Kafka's per-topic `createPartitions`: appends the topic's new
/// PartitionRecords to `records` (as Kafka does, the records of partitions
/// built before a failing one stay).
fn add_partitions(
    image: &MetadataImage,
    topic: &CreatePartitionsTopic,
    records: &mut Vec<MetadataRecord>,
    random: &mut dyn PlacementRandom,
    quota: &RequestQuota,
) -> Result<(), ApiError> {
    let name = topic.name.as_str();
    let Some(info) = image.topics().topic_by_name(name) else {
        return Err(ApiError::bare(ErrorCode::UnknownTopicOrPartition));
    };
    let current = info.partition_count() as i64;
    let count = i64::from(topic.count);
    if count == current {
        return Err(error(
            ErrorCode::InvalidPartitions,
            format!("Topic already has {current} partition(s)."),
        ));
    } else if count < current {
        return Err(error(
            ErrorCode::InvalidPartitions,
            format!(
                "The topic {name} currently has {current} partition(s); {count} would not be an increase."
            ),
        ));
    }
    let additional = count - current;
    if let Some(assignments) = &topic.assignments {
        if assignments.len() as i64 != additional {
            return Err(error(
                ErrorCode::InvalidReplicaAssignment,
                format!(
                    "Attempted to add {additional} additional partition(s), but only {} assignment(s) were specified.",
                    assignments.len()
                ),
            ));
        }
    }
    // The controller mutation quota, once the request is known to be valid.
    quota.record(additional as usize)?;
    let Some(first) = first_partition(info) else {
        return Err(ApiError::bare(ErrorCode::UnknownServerError));
    };
    let Ok(replication_factor) = i16::try_from(first.replicas().len()) else {
        return Err(ApiError::bare(ErrorCode::UnknownServerError));
    };
    let start = current as i32;
    let (assignments, isrs): (Vec<Vec<i32>>, Vec<Vec<i32>>) = match &topic.assignments {
        Some(manual) => {
            let mut assignments = Vec::with_capacity(manual.len());
            let mut isrs = Vec::with_capacity(manual.len());
            for (i, a) in manual.to_vec().into_iter().enumerate() {
                let replicas = a.broker_ids;
                super::topics::validate_manual_assignment(
                    image,
                    &replicas,
                    Some(replication_factor as usize),
                )?;
                let isr: Vec<i32> = replicas
                    .iter()
                    .copied()
                    .filter(|r| is_active(image, *r))
                    .collect();
                if isr.is_empty() {
                    return Err(error(
                        ErrorCode::InvalidReplicaAssignment,
                        format!(
                            "All brokers specified in the manual partition assignment for partition {} are fenced or in controlled shutdown.",
                            start + i as i32
                        ),
                    ));
                }
                assignments.push(replicas);
                isrs.push(isr);
            }
            (assignments, isrs)
        }
        None => {
            let spec = PlacementSpec {
                starting_partition: start,
                num_partitions: additional as i32,
                replication_factor,
            };
            let placed = placer::place(&spec, &placer::usable_brokers(image), random)
                .map_err(|e| error(ErrorCode::InvalidReplicationFactor, e.0))?;
            (placed.clone(), placed)
        }
    };
    let Some(mv) = image.metadata_version() else {
        return Err(ApiError::bare(ErrorCode::UnknownServerError));
    };
    let directories = mv.is_directory_assignment_supported();
    for (i, (replicas, isr)) in assignments.iter().zip(&isrs).enumerate() {
        let isr: Vec<i32> = isr
            .iter()
            .copied()
            .filter(|r| is_active(image, *r))
            .collect();
        if isr.is_empty() {
            return Err(error(
                ErrorCode::InvalidReplicationFactor,
                format!(
                    "Unable to replicate the partition {replication_factor} time(s): All brokers are currently fenced or in controlled shutdown."
                ),
            ));
        }
        if records.len() >= MAX_RECORDS_PER_USER_OP {
            return Err(ApiError::bare(ErrorCode::UnknownServerError));
        }
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
                partition_id: start + i as i32,
                topic_id: info.id(),
                replicas: replicas.clone(),
                leader: isr[0],
                isr,
                directories: dirs,
                leader_epoch: 0,
                partition_epoch: 0,
                ..Default::default()
            },
            mv.partition_record_version(),
        ));
    }
    Ok(())
}

/// Kafka's `DeleteTopicsRequest.getErrorResponse`: every topic of the
/// request (names below v6) with the error code and no message.
fn delete_error_response(
    version: i16,
    request: &DeleteTopicsRequest,
    e: &ApiError,
) -> DeleteTopicsResponse {
    let code = ApiError::bare(e.code);
    let responses: Vec<DeletableTopicResult> = if version >= 6 {
        request
            .topics
            .iter()
            .map(|t| deletable(t.name.as_ref().map(|n| n.as_str()), t.topic_id, Some(&code)))
            .collect()
    } else {
        request
            .topic_names
            .iter()
            .map(|n| deletable(Some(n.as_str()), Uuid::nil(), Some(&code)))
            .collect()
    };
    DeleteTopicsResponse {
        responses: responses.into(),
        ..Default::default()
    }
}

/// Kafka's `CreatePartitionsRequest.getErrorResponse`: every topic of the
/// request with the error and its message.
fn create_partitions_error_response(
    request: &CreatePartitionsRequest,
    e: &ApiError,
) -> CreatePartitionsResponse {
    CreatePartitionsResponse {
        results: request
            .topics
            .iter()
            .map(|t| CreatePartitionsTopicResult {
                name: t.name.clone(),
                error_code: e.code.code(),
                error_message: e.message.clone().map(StrBytes::from),
                ..Default::default()
            })
            .collect(),
        ..Default::default()
    }
}
