//! AlterClientQuotas (49): client quotas (Kafka's
//! `ClientQuotaControlManager.alterClientQuotas`, reached through
//! `QuorumController.alterClientQuotas` and
//! `ControllerApis.handleAlterClientQuotas`).
//!
//! A request with no entry is answered at once with no entry. Otherwise each
//! entry's entity is the map of its parts, as Kafka's
//! `AlterClientQuotasRequest.entries` builds it (a repeated entity type
//! keeps its last name; a null name is the default entity of that type),
//! and its operations set a key (`Remove` false) or remove it (`Remove`
//! true). Entries are taken in request order, against the writer's state
//! before the request:
//!
//! * a key named twice in one entry, or an entity already answered in this
//!   request: `INVALID_REQUEST` "Ignoring duplicate entity
//!   ClientQuotaEntity(entries={...})" (replacing the earlier answer; the
//!   records of an earlier accepted entry for the entity are still
//!   written, as in Kafka);
//! * the entity: "Invalid empty client quota entity" without parts; per
//!   part, "Unhandled client quota entity type: TYPE" for a type other than
//!   `user`, `client-id` and `ip`, "Empty TYPE not supported" for an empty
//!   name; "Invalid quota entity combination, IP entity shouldnot be
//!   combined with User or ClientId" (Kafka's text, without the space);
//!   "NAME is not a valid IP or resolvable host." for an `ip` name that
//!   `InetAddress.getByName` refuses (see [`crate::java::inet_host`]; a
//!   host name goes to the system resolver, before the write);
//! * each set key, in the order of Kafka's `HashMap` of the entry's keys,
//!   until the first refusal: "Invalid configuration key KEY" unless it is
//!   one of [`USER_AND_CLIENT_QUOTAS`] (for `user` / `client-id` entities)
//!   or [`IP_QUOTAS`] (for `ip` entities); "Quota KEY must be greater than
//!   0" for a value `<= 0`; for an integral key (LONG, INT) "Proposed value
//!   for KEY is too large for a LONG." / "... for an INT." above the type's
//!   maximum and "KEY cannot be a fractional value." for a fractional part
//!   above 1e-6. A removed key is not checked.
//!
//! Every refusal is `INVALID_REQUEST`. An accepted entry writes a
//! ClientQuotaRecord (v0) per set key whose value changes and per removed
//! key the entity has (`Remove` true), the entity's parts in the order of
//! Kafka's `HashMap`; nothing with ValidateOnly. The records are appended in
//! one batch, and the answer, once they are committed, has one entry per
//! distinct entity, in the iteration order of Kafka's `HashMap` of
//! entities. More than 10000 records fail the request with
//! `POLICY_VIOLATION` (Kafka's `BoundedList` of `MAX_RECORDS_PER_USER_OP`).
//!
//! When the request fails as a whole (that, not the active controller, a
//! timeout), every entry of the request is answered with the error and its
//! default text (Kafka's `AlterClientQuotasRequest.getErrorResponse`).

use std::collections::HashSet;
use std::fmt;
use std::hash::{Hash, Hasher};

use kraft_protocol::messages::alter_client_quotas_request::{
    AlterClientQuotasRequest, EntryData as RequestEntry,
};
use kraft_protocol::messages::alter_client_quotas_response::{
    AlterClientQuotasResponse, EntityData as ResponseEntity, EntryData as ResponseEntry,
};
use kraft_protocol::messages::client_quota_record::{ClientQuotaRecord, EntityData};
use kraft_protocol::{ErrorCode, StrBytes};

use super::writer::Generated;
use super::{ApiError, Controller, MAX_RECORDS_PER_USER_OP};
use crate::image::{ClientQuotaEntity, MetadataImage, MetadataRecord};
use crate::java::{inet_host, InetHost, JavaHash, JavaMap};

/// How a quota key's value is checked (its `ConfigDef.Type`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QuotaType {
    /// `LONG`: integral, at most `Long.MAX_VALUE`.
    Long,
    /// `INT`: integral, at most `Integer.MAX_VALUE`.
    Int,
    /// `DOUBLE`: any positive value.
    Double,
}

/// The quota keys of `user` and `client-id` entities (Kafka's
/// `QuotaConfig.userAndClientQuotaConfigs`).
pub const USER_AND_CLIENT_QUOTAS: &[(&str, QuotaType)] = &[
    ("producer_byte_rate", QuotaType::Long),
    ("consumer_byte_rate", QuotaType::Long),
    ("request_percentage", QuotaType::Double),
    ("controller_mutation_rate", QuotaType::Double),
];

/// The quota keys of `ip` entities (Kafka's `QuotaConfig.ipConfigs`).
pub const IP_QUOTAS: &[(&str, QuotaType)] = &[("connection_creation_rate", QuotaType::Int)];

fn invalid_request(message: impl Into<String>) -> ApiError {
    ApiError::new(ErrorCode::InvalidRequest, message)
}

/// A quota entity as Kafka's `ClientQuotaEntity` over the request's
/// `HashMap`: its parts (type, name; `None` for the default entity) in that
/// map's iteration order. Equal and hashed as a map.
#[derive(Debug, Clone)]
pub(super) struct Entity {
    parts: Vec<(String, Option<String>)>,
}

impl Entity {
    /// `AlterClientQuotasRequest.entries`: a `HashMap` sized for the parts;
    /// a repeated type keeps its place and takes the last name.
    pub(super) fn of(parts: &[(String, Option<String>)]) -> Self {
        let mut map = JavaMap::with_capacity(parts.len());
        for (t, n) in parts {
            map.put(t.clone(), n.clone());
        }
        Entity {
            parts: map.iter().map(|(t, n)| (t.clone(), n.clone())).collect(),
        }
    }

    fn sorted(&self) -> Vec<&(String, Option<String>)> {
        let mut parts: Vec<_> = self.parts.iter().collect();
        parts.sort();
        parts
    }

    fn get(&self, entity_type: &str) -> Option<Option<&str>> {
        self.parts
            .iter()
            .find(|(t, _)| t == entity_type)
            .map(|(_, n)| n.as_deref())
    }

    fn has(&self, entity_type: &str) -> bool {
        self.get(entity_type).is_some()
    }

    /// The name of a lone non-empty `ip` part: the only entity whose name
    /// Kafka's `isValidIpEntity` looks at.
    fn lone_ip_name(&self) -> Option<&str> {
        match self.parts.as_slice() {
            [(t, Some(name))] if t == ClientQuotaEntity::IP && !name.is_empty() => Some(name),
            _ => None,
        }
    }
}

impl PartialEq for Entity {
    fn eq(&self, other: &Self) -> bool {
        self.sorted() == other.sorted()
    }
}

impl Eq for Entity {}

impl Hash for Entity {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.sorted().hash(state);
    }
}

impl JavaHash for Entity {
    /// `Objects.hash(entries)`: 31 plus the map's hash, the sum of
    /// `type.hashCode() ^ Objects.hashCode(name)`.
    fn java_hash(&self) -> i32 {
        let map = self.parts.iter().fold(0i32, |h, (t, n)| {
            h.wrapping_add(t.java_hash() ^ n.as_deref().map_or(0, str::java_hash))
        });
        31i32.wrapping_add(map)
    }
}

impl fmt::Display for Entity {
    /// `ClientQuotaEntity.toString`: `ClientQuotaEntity(entries={t=n, ...})`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ClientQuotaEntity(entries={")?;
        for (i, (t, n)) in self.parts.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{t}={}", n.as_deref().unwrap_or("null"))?;
        }
        f.write_str("})")
    }
}

/// One request entry as Kafka's `ClientQuotaAlteration`: the entity and
/// its operations in order (`None`: remove).
#[derive(Debug, Clone)]
struct Alteration {
    entity: Entity,
    ops: Vec<(String, Option<f64>)>,
}

impl Alteration {
    fn of(entry: &RequestEntry) -> Self {
        let parts: Vec<(String, Option<String>)> = entry
            .entity
            .iter()
            .map(|p| {
                (
                    p.entity_type.to_string(),
                    p.entity_name.as_ref().map(|n| n.to_string()),
                )
            })
            .collect();
        Alteration {
            entity: Entity::of(&parts),
            ops: entry
                .ops
                .iter()
                .map(|o| (o.key.to_string(), (!o.remove).then_some(o.value)))
                .collect(),
        }
    }
}

/// Kafka's `validateEntity`: the parts, in the entity's order, into the
/// `HashMap` (of 3) the records are written from.
fn validate_entity(entity: &Entity) -> Result<JavaMap<String, Option<String>>, ApiError> {
    if entity.parts.is_empty() {
        return Err(invalid_request("Invalid empty client quota entity"));
    }
    let mut validated = JavaMap::with_capacity(3);
    for (t, n) in &entity.parts {
        if ![
            ClientQuotaEntity::USER,
            ClientQuotaEntity::CLIENT_ID,
            ClientQuotaEntity::IP,
        ]
        .contains(&t.as_str())
        {
            return Err(invalid_request(format!(
                "Unhandled client quota entity type: {t}"
            )));
        }
        validated.put(t.clone(), n.clone());
        if n.as_deref() == Some("") {
            return Err(invalid_request(format!("Empty {t} not supported")));
        }
    }
    Ok(validated)
}

/// Kafka's `configKeysForEntityType`: the allowed combination of types and
/// their quota keys; `resolvable` tells whether an `ip` host name resolves.
fn quota_keys(
    entity: &Entity,
    resolvable: &HashSet<String>,
) -> Result<&'static [(&'static str, QuotaType)], ApiError> {
    let has_user = entity.has(ClientQuotaEntity::USER);
    let has_client_id = entity.has(ClientQuotaEntity::CLIENT_ID);
    match entity.get(ClientQuotaEntity::IP) {
        Some(_) if has_user || has_client_id => Err(invalid_request(
            "Invalid quota entity combination, IP entity shouldnot be combined with User or ClientId",
        )),
        Some(ip) => {
            if is_valid_ip_entity(ip, resolvable) {
                Ok(IP_QUOTAS)
            } else {
                Err(invalid_request(format!(
                    "{} is not a valid IP or resolvable host.",
                    ip.unwrap_or("null")
                )))
            }
        }
        None if has_user || has_client_id => Ok(USER_AND_CLIENT_QUOTAS),
        None => Err(invalid_request("Invalid empty client quota entity")),
    }
}

/// Kafka's `isValidIpEntity`: the default entity, an address literal or a
/// host name the resolver knows.
fn is_valid_ip_entity(ip: Option<&str>, resolvable: &HashSet<String>) -> bool {
    match ip {
        None => true,
        Some(name) => match inet_host(name) {
            InetHost::Literal => true,
            InetHost::Invalid => false,
            InetHost::Lookup => resolvable.contains(name),
        },
    }
}

/// Kafka's `validateQuotaKeyValue`.
fn check_value(keys: &[(&'static str, QuotaType)], key: &str, value: f64) -> Result<(), ApiError> {
    let Some((_, kind)) = keys.iter().find(|(k, _)| *k == key) else {
        return Err(invalid_request(format!("Invalid configuration key {key}")));
    };
    if value <= 0.0 {
        return Err(invalid_request(format!(
            "Quota {key} must be greater than 0"
        )));
    }
    let integral = |value: f64| {
        if (value % 1.0).abs() > 1e-6 {
            Err(invalid_request(format!(
                "{key} cannot be a fractional value."
            )))
        } else {
            Ok(())
        }
    };
    match kind {
        QuotaType::Double => Ok(()),
        QuotaType::Long if value > i64::MAX as f64 => Err(invalid_request(format!(
            "Proposed value for {key} is too large for a LONG."
        ))),
        QuotaType::Int if value > f64::from(i32::MAX) => Err(invalid_request(format!(
            "Proposed value for {key} is too large for an INT."
        ))),
        QuotaType::Long | QuotaType::Int => integral(value),
    }
}

/// Java's `Double.equals`: the same bits, every NaN equal to every NaN.
fn java_double_equals(a: f64, b: f64) -> bool {
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}

/// Kafka's `alterClientQuotaEntity`: the records of one accepted entry.
fn alter_entity(
    entity: &Entity,
    changes: &JavaMap<String, Option<f64>>,
    image: &MetadataImage,
    resolvable: &HashSet<String>,
) -> Result<Vec<MetadataRecord>, ApiError> {
    let validated = validate_entity(entity)?;
    let keys = quota_keys(entity, resolvable)?;
    let record_entity = || -> Vec<EntityData> {
        validated
            .iter()
            .map(|(t, n)| EntityData {
                entity_type: t.as_str().into(),
                entity_name: n.as_deref().map(Into::into),
                ..Default::default()
            })
            .collect()
    };
    let current = image.client_quotas().quotas(&ClientQuotaEntity::new(
        entity.parts.iter().map(|(t, n)| (t.as_str(), n.as_deref())),
    ));
    let current_value = |key: &str| current.and_then(|q| q.get(key)).copied();
    let mut records = Vec::new();
    for (key, value) in changes.iter() {
        match value {
            None => {
                if current_value(key).is_some() {
                    records.push(MetadataRecord::new(
                        ClientQuotaRecord {
                            entity: record_entity().into(),
                            key: key.as_str().into(),
                            remove: true,
                            ..Default::default()
                        },
                        0,
                    ));
                }
            }
            Some(value) => {
                check_value(keys, key, *value)?;
                if !current_value(key).is_some_and(|c| java_double_equals(c, *value)) {
                    records.push(MetadataRecord::new(
                        ClientQuotaRecord {
                            entity: record_entity().into(),
                            key: key.as_str().into(),
                            value: *value,
                            ..Default::default()
                        },
                        0,
                    ));
                }
            }
        }
    }
    Ok(records)
}

/// One entity's outcome.
type EntityResult = (Entity, Result<(), ApiError>);

/// Kafka's `ClientQuotaControlManager.alterClientQuotas` against `image`:
/// the records and one result per distinct entity, in Kafka's order.
fn alter_quotas(
    alterations: &[Alteration],
    image: &MetadataImage,
    resolvable: &HashSet<String>,
) -> Result<Generated<Vec<EntityResult>>, ApiError> {
    let mut records: Vec<MetadataRecord> = Vec::new();
    let mut results: JavaMap<Entity, Result<(), ApiError>> = JavaMap::new();
    for a in alterations {
        let entity = &a.entity;
        let mut changes: JavaMap<String, Option<f64>> = JavaMap::with_capacity(a.ops.len());
        for (key, value) in &a.ops {
            if changes.contains_key(key) {
                results.put(
                    entity.clone(),
                    Err(invalid_request(format!(
                        "Duplicate quota key {key} not updating quota for this entity {entity}"
                    ))),
                );
            } else {
                changes.put(key.clone(), *value);
            }
        }
        if results.contains_key(entity) {
            results.put(
                entity.clone(),
                Err(invalid_request(format!(
                    "Ignoring duplicate entity {entity}"
                ))),
            );
            continue;
        }
        match alter_entity(entity, &changes, image, resolvable) {
            Ok(new) => {
                if records.len() + new.len() > MAX_RECORDS_PER_USER_OP {
                    return Err(ApiError::new(
                        ErrorCode::PolicyViolation,
                        "Unable to perform excessively large batch operation.",
                    ));
                }
                records.extend(new);
                results.put(entity.clone(), Ok(()));
            }
            Err(e) => {
                results.put(entity.clone(), Err(e));
            }
        }
    }
    let results = results
        .iter()
        .map(|(entity, r)| (entity.clone(), r.clone()))
        .collect();
    Ok(Generated::new(records, results))
}

/// Kafka's `AlterClientQuotasRequest.getErrorResponse`: every entry of the
/// request, its entity as sent, with the error and its default text.
fn error_response(request: &AlterClientQuotasRequest, e: &ApiError) -> AlterClientQuotasResponse {
    AlterClientQuotasResponse {
        entries: request
            .entries
            .iter()
            .map(|entry| ResponseEntry {
                error_code: e.code.code(),
                error_message: Some(e.code.default_message().into()),
                entity: entry
                    .entity
                    .iter()
                    .map(|p| ResponseEntity {
                        entity_type: p.entity_type.clone(),
                        entity_name: p.entity_name.clone(),
                        ..Default::default()
                    })
                    .collect(),
                ..Default::default()
            })
            .collect(),
        ..Default::default()
    }
}

/// Whether the system resolver knows `host` (Java's lookup in
/// `InetAddress.getByName`).
async fn resolves(host: &str) -> bool {
    match tokio::net::lookup_host((host, 0)).await {
        Ok(mut addresses) => addresses.next().is_some(),
        Err(e) => {
            tracing::debug!(host, error = %e, "quota entity host name does not resolve");
            false
        }
    }
}

impl Controller {
    /// AlterClientQuotas (v0-1): see the module docs. Answered once its
    /// records are committed.
    pub async fn alter_client_quotas(
        &self,
        request: &AlterClientQuotasRequest,
    ) -> AlterClientQuotasResponse {
        if request.entries.is_empty() {
            return AlterClientQuotasResponse::default();
        }
        let alterations: Vec<Alteration> =
            request.entries.iter().map(|e| Alteration::of(&e)).collect();
        // Host names are resolved before the write, so the writer never
        // waits on the resolver (Kafka resolves them on its event thread).
        let mut looked_up = HashSet::new();
        let mut resolvable = HashSet::new();
        for a in &alterations {
            let Some(host) = a.entity.lone_ip_name() else {
                continue;
            };
            if inet_host(host) == InetHost::Lookup
                && looked_up.insert(host.to_owned())
                && resolves(host).await
            {
                resolvable.insert(host.to_owned());
            }
        }
        let validate_only = request.validate_only;
        let result = self
            .write("alterClientQuotas", None, |state| {
                let mut generated = alter_quotas(&alterations, &state.image, &resolvable)?;
                if validate_only {
                    generated.records.clear();
                }
                Ok(generated)
            })
            .await;
        match result {
            Ok(results) => AlterClientQuotasResponse {
                entries: results
                    .into_iter()
                    .map(|(entity, result)| {
                        let (code, message) = match result {
                            Ok(()) => (ErrorCode::None, None),
                            Err(e) => (e.code, e.message),
                        };
                        ResponseEntry {
                            error_code: code.code(),
                            error_message: message.map(StrBytes::from),
                            entity: entity
                                .parts
                                .iter()
                                .map(|(t, n)| ResponseEntity {
                                    entity_type: t.as_str().into(),
                                    entity_name: n.as_deref().map(Into::into),
                                    ..Default::default()
                                })
                                .collect(),
                            ..Default::default()
                        }
                    })
                    .collect(),
                ..Default::default()
            },
            Err(e) => {
                tracing::debug!(error = %e, "AlterClientQuotas failed");
                error_response(request, &e)
            }
        }
    }
}
