//! Client quotas by entity (Kafka's `ClientQuotasImage` /
//! `ClientQuotasDelta`).
//!
//! A `ClientQuotaRecord` sets (or, with `remove`, deletes) one quota key of
//! one entity; an entity left without quotas disappears.

use std::collections::BTreeMap;

use kraft_protocol::messages::client_quota_record::{ClientQuotaRecord, EntityData};

use super::{MetadataRecord, RecordSink, ReplayError, WriteError, WriteOptions};

/// A quota entity (Kafka's `ClientQuotaEntity`): entity type (`user`,
/// `client-id`, `ip`) → entity name, `None` for the default entity of that
/// type.
#[derive(Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ClientQuotaEntity {
    entries: BTreeMap<String, Option<String>>,
}

impl ClientQuotaEntity {
    /// The `user` entity type.
    pub const USER: &'static str = "user";
    /// The `client-id` entity type.
    pub const CLIENT_ID: &'static str = "client-id";
    /// The `ip` entity type.
    pub const IP: &'static str = "ip";

    /// The entity of these (type, name) parts; a repeated type keeps its
    /// last name, as Kafka's `dataToEntity` does.
    pub fn new<'a, I>(parts: I) -> Self
    where
        I: IntoIterator<Item = (&'a str, Option<&'a str>)>,
    {
        ClientQuotaEntity {
            entries: parts
                .into_iter()
                .map(|(t, n)| (t.to_string(), n.map(str::to_string)))
                .collect(),
        }
    }

    /// Entity type → name (`None`: the default entity), ordered by type.
    pub fn entries(&self) -> &BTreeMap<String, Option<String>> {
        &self.entries
    }

    fn from_data<'a>(data: impl Iterator<Item = std::borrow::Cow<'a, EntityData>>) -> Self {
        let mut entries = BTreeMap::new();
        for d in data {
            entries.insert(
                d.entity_type.to_string(),
                d.entity_name.as_ref().map(|n| n.to_string()),
            );
        }
        ClientQuotaEntity { entries }
    }

    fn to_data(&self) -> Vec<EntityData> {
        self.entries
            .iter()
            .map(|(t, n)| EntityData {
                entity_type: t.as_str().into(),
                entity_name: n.as_deref().map(Into::into),
                ..Default::default()
            })
            .collect()
    }
}

/// Client quotas by entity (Kafka's `ClientQuotasImage` /
/// `ClientQuotasDelta`). No entity maps to an empty set of quotas.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ClientQuotasImage {
    entities: BTreeMap<ClientQuotaEntity, BTreeMap<String, f64>>,
}

impl ClientQuotasImage {
    /// Whether no entity has a quota.
    pub fn is_empty(&self) -> bool {
        self.entities.is_empty()
    }

    /// The quotas (key → value) of `entity`, if it has any.
    pub fn quotas(&self, entity: &ClientQuotaEntity) -> Option<&BTreeMap<String, f64>> {
        self.entities.get(entity)
    }

    /// The `connection_creation_rate` quota of connections from `ip`: its
    /// own `ip` entity's, else the default `ip` entity's; `None` when
    /// neither has one or it is Kafka's "unlimited" (`Integer.MAX_VALUE`).
    /// The value is truncated to an integer, as Kafka's `toInt`.
    pub fn ip_connection_creation_rate(&self, ip: std::net::IpAddr) -> Option<u32> {
        const KEY: &str = "connection_creation_rate";
        let of = |name: Option<&str>| {
            let entity = ClientQuotaEntity::new([(ClientQuotaEntity::IP, name)]);
            self.entities.get(&entity).and_then(|q| q.get(KEY)).copied()
        };
        let own = self
            .entities
            .iter()
            .filter(|(entity, _)| entity.entries.len() == 1)
            .find(|(entity, _)| {
                entity
                    .entries
                    .get(ClientQuotaEntity::IP)
                    .and_then(|name| name.as_deref())
                    .and_then(|name| name.parse::<std::net::IpAddr>().ok())
                    == Some(ip)
            })
            .and_then(|(_, q)| q.get(KEY).copied());
        let rate = own.or_else(|| of(None))?;
        // Java's double-to-int conversion: truncated, saturated, NaN → 0.
        let rate = if rate.is_nan() { 0 } else { rate as i32 };
        if rate == i32::MAX {
            return None;
        }
        Some(u32::try_from(rate).unwrap_or(0))
    }

    /// Every entity with quotas, and its quotas, in entity order.
    pub fn entities(&self) -> impl Iterator<Item = (&ClientQuotaEntity, &BTreeMap<String, f64>)> {
        self.entities.iter()
    }

    /// Kafka's `ClientQuotaDelta.replay`: sets the key to the value, or
    /// deletes it when `remove` is set.
    pub(super) fn replay(&mut self, r: &ClientQuotaRecord) -> Result<(), ReplayError> {
        let entity = ClientQuotaEntity::from_data(r.entity.iter());
        if r.remove {
            if let Some(quotas) = self.entities.get_mut(&entity) {
                quotas.remove(r.key.as_str());
                if quotas.is_empty() {
                    self.entities.remove(&entity);
                }
            }
        } else {
            self.entities
                .entry(entity)
                .or_default()
                .insert(r.key.to_string(), r.value);
        }
        Ok(())
    }

    /// Kafka's `ClientQuotasImage.write`: one ClientQuotaRecord (v0,
    /// `remove` false) per entity and key. Kafka iterates hash maps; this
    /// writes in entity, then key order.
    pub(super) fn write(
        &self,
        _options: &WriteOptions,
        out: &mut impl RecordSink,
    ) -> Result<(), WriteError> {
        for (entity, quotas) in &self.entities {
            for (key, value) in quotas {
                out.push(MetadataRecord::new(
                    ClientQuotaRecord {
                        entity: entity.to_data().into(),
                        key: key.as_str().into(),
                        value: *value,
                        remove: false,
                        ..Default::default()
                    },
                    0,
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::image::MetadataImage;

    const PRODUCER: &str = "producer_byte_rate";
    const CONSUMER: &str = "consumer_byte_rate";

    /// A ClientQuotaRecord setting (or removing) `key` for `entity`.
    pub(crate) fn quota(
        entity: &[(&str, Option<&str>)],
        key: &str,
        value: f64,
        remove: bool,
    ) -> MetadataRecord {
        MetadataRecord::new(
            ClientQuotaRecord {
                entity: entity
                    .iter()
                    .map(|(t, n)| EntityData {
                        entity_type: (*t).into(),
                        entity_name: n.map(Into::into),
                        ..Default::default()
                    })
                    .collect::<Vec<_>>()
                    .into(),
                key: key.into(),
                value,
                remove,
                ..Default::default()
            },
            0,
        )
    }

    fn quotas(entries: &[(&str, f64)]) -> BTreeMap<String, f64> {
        entries.iter().map(|(k, v)| (k.to_string(), *v)).collect()
    }

    const FOO: &[(&str, Option<&str>)] = &[("user", Some("foo"))];
    const BAR_IP: &[(&str, Option<&str>)] = &[("user", Some("bar")), ("ip", Some("127.0.0.1"))];

    /// Kafka's ClientQuotasImageFixtures IMAGE1, then DELTA1_RECORDS.
    #[test]
    fn kafka_image1_plus_delta1_is_image2_and_round_trips() {
        let mut image = MetadataImage::from_records(&[
            MetadataRecord::feature_level("metadata.version", 33),
            quota(FOO, PRODUCER, 123.0, false),
            quota(BAR_IP, CONSUMER, 456.0, false),
        ])
        .expect("image1");
        let bar_ip = ClientQuotaEntity::new([("user", Some("bar")), ("ip", Some("127.0.0.1"))]);
        assert_eq!(
            image.client_quotas().quotas(&bar_ip),
            Some(&quotas(&[(CONSUMER, 456.0)]))
        );
        for r in [
            quota(BAR_IP, CONSUMER, 0.0, true),
            quota(FOO, PRODUCER, 234.0, false),
            quota(FOO, CONSUMER, 999.0, false),
        ] {
            image.replay(&r).expect("delta1");
        }
        let all: Vec<_> = image.client_quotas().entities().collect();
        let foo = ClientQuotaEntity::new([("user", Some("foo"))]);
        assert_eq!(
            all,
            vec![(&foo, &quotas(&[(PRODUCER, 234.0), (CONSUMER, 999.0)]))]
        );
        let records = image.to_records().expect("write");
        assert_eq!(records.len(), 3);
        assert_eq!(records[1], quota(FOO, CONSUMER, 999.0, false));
        assert_eq!(
            MetadataImage::from_records(&records).expect("reload"),
            image
        );
    }

    #[test]
    fn an_address_takes_its_own_connection_rate_else_the_default_one() {
        const RATE: &str = "connection_creation_rate";
        let addr = |s: &str| s.parse::<std::net::IpAddr>().expect("ip");
        let mut image = MetadataImage::from_records(&[
            MetadataRecord::feature_level("metadata.version", 33),
            quota(&[("ip", Some("10.0.0.1"))], RATE, 5.0, false),
            quota(&[("ip", Some("0:0:0:0:0:0:0:1"))], RATE, 2.9, false),
            // A user-and-ip entity is not an address's quota.
            quota(BAR_IP, RATE, 1.0, false),
        ])
        .expect("image");
        let quotas = |image: &MetadataImage, a: &str| {
            image.client_quotas().ip_connection_creation_rate(addr(a))
        };
        assert_eq!(quotas(&image, "10.0.0.1"), Some(5));
        // Any spelling of the address; the value truncated as Java's toInt.
        assert_eq!(quotas(&image, "::1"), Some(2));
        assert_eq!(quotas(&image, "127.0.0.1"), None);
        image
            .replay(&quota(&[("ip", None)], RATE, 3.0, false))
            .expect("default");
        assert_eq!(quotas(&image, "127.0.0.1"), Some(3));
        assert_eq!(quotas(&image, "10.0.0.1"), Some(5));
        // Integer.MAX_VALUE is Kafka's "no quota"; removing an address's
        // own quota falls back to the default.
        image
            .replay(&quota(
                &[("ip", Some("10.0.0.1"))],
                RATE,
                2_147_483_647.0,
                false,
            ))
            .expect("unlimited");
        assert_eq!(quotas(&image, "10.0.0.1"), None);
        image
            .replay(&quota(&[("ip", Some("10.0.0.1"))], RATE, 0.0, true))
            .expect("removed");
        assert_eq!(quotas(&image, "10.0.0.1"), Some(3));
    }

    #[test]
    fn default_entities_and_entity_order_are_kept() {
        let both_default: &[(&str, Option<&str>)] = &[("user", None), ("client-id", None)];
        let mut image = ClientQuotasImage::default();
        for r in [
            quota(both_default, PRODUCER, 1.5, false),
            quota(&[("client-id", Some("c"))], CONSUMER, 2.0, false),
        ] {
            let kraft_protocol::MetadataRecordBody::ClientQuota(q) = &r.body else {
                panic!("not a quota record");
            };
            image.replay(q).expect("replay");
        }
        let entity = ClientQuotaEntity::new([("client-id", None), ("user", None)]);
        assert_eq!(image.quotas(&entity), Some(&quotas(&[(PRODUCER, 1.5)])));
        let mut out = Vec::new();
        let options = WriteOptions {
            metadata_version: crate::features::MetadataVersion::LATEST_PRODUCTION,
            eligible_leader_replicas_enabled: false,
        };
        image.write(&options, &mut out).expect("write");
        // Entity parts are written in type order: client-id before user.
        assert_eq!(
            out,
            vec![
                quota(&[("client-id", None), ("user", None)], PRODUCER, 1.5, false),
                quota(&[("client-id", Some("c"))], CONSUMER, 2.0, false),
            ]
        );
    }

    #[test]
    fn removing_a_missing_quota_changes_nothing_and_the_last_removal_drops_the_entity() {
        let mut image = MetadataImage::from_records(&[
            MetadataRecord::feature_level("metadata.version", 33),
            quota(FOO, PRODUCER, 1.0, true),
        ])
        .expect("image");
        assert!(image.client_quotas().is_empty());
        image
            .replay(&quota(FOO, PRODUCER, 1.0, false))
            .expect("set");
        image
            .replay(&quota(FOO, CONSUMER, 1.0, true))
            .expect("remove other");
        assert!(!image.client_quotas().is_empty());
        image
            .replay(&quota(FOO, PRODUCER, 0.0, true))
            .expect("remove");
        assert!(image.client_quotas().is_empty());
    }
}
