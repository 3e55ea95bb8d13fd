//! Dynamic configurations by resource (Kafka's `ConfigurationsImage` /
//! `ConfigurationsDelta`).
//!
//! A `ConfigRecord` sets one key of one resource; a null value deletes the
//! key, and a resource left without keys disappears. Removing a topic drops
//! its configuration.
//!
//! Two deliberate choices: the resource type is kept as the record's raw id
//! (Kafka maps an id it does not know to `UNKNOWN`, 0), so a snapshot writes
//! back what the log held; and every key is kept, as Kafka's
//! `SupportedConfigChecker.TRUE` does (Kafka's broker-side
//! `DefaultSupportedConfigChecker` skips names it does not define; this
//! image keeps them rather than lose them).

use std::collections::BTreeMap;

use kraft_protocol::messages::config_record::ConfigRecord;

use super::{MetadataRecord, RecordSink, ReplayError, WriteError, WriteOptions};

/// A configured resource: its type id (Kafka's `ConfigResource.Type`) and
/// name.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ConfigResource {
    /// The resource type id (see the associated constants).
    pub resource_type: i8,
    /// The resource name (a topic name, a broker id, "" for the cluster
    /// default, ...).
    pub name: String,
}

impl ConfigResource {
    /// `ConfigResource.Type.UNKNOWN`.
    pub const UNKNOWN: i8 = 0;
    /// `ConfigResource.Type.TOPIC`.
    pub const TOPIC: i8 = 2;
    /// `ConfigResource.Type.BROKER`.
    pub const BROKER: i8 = 4;
    /// `ConfigResource.Type.BROKER_LOGGER`.
    pub const BROKER_LOGGER: i8 = 8;
    /// `ConfigResource.Type.CLIENT_METRICS`.
    pub const CLIENT_METRICS: i8 = 16;
    /// `ConfigResource.Type.GROUP`.
    pub const GROUP: i8 = 32;

    /// The resource of type `resource_type` named `name`.
    pub fn new(resource_type: i8, name: impl Into<String>) -> Self {
        ConfigResource {
            resource_type,
            name: name.into(),
        }
    }
}

/// Dynamic configurations by resource (Kafka's `ConfigurationsImage` /
/// `ConfigurationsDelta`). No resource maps to an empty configuration.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ConfigurationsImage {
    data: BTreeMap<ConfigResource, BTreeMap<String, String>>,
}

impl ConfigurationsImage {
    /// Whether no resource has a configuration.
    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    /// The configuration of `resource` (Kafka's `configMapForResource`),
    /// if it has one.
    pub fn config(&self, resource: &ConfigResource) -> Option<&BTreeMap<String, String>> {
        self.data.get(resource)
    }

    /// The value of `key` for `resource`.
    pub fn value(&self, resource: &ConfigResource, key: &str) -> Option<&str> {
        self.data
            .get(resource)
            .and_then(|c| c.get(key))
            .map(String::as_str)
    }

    /// The cluster-wide dynamic value of a server config (the BROKER
    /// resource with the empty name).
    pub fn cluster_default(&self, key: &str) -> Option<&str> {
        self.value(&ConfigResource::new(ConfigResource::BROKER, ""), key)
    }

    /// Every configured resource and its configuration, ordered by type id
    /// and name.
    pub fn resources(&self) -> impl Iterator<Item = (&ConfigResource, &BTreeMap<String, String>)> {
        self.data.iter()
    }

    /// Kafka's `ConfigurationDelta.replay(ConfigRecord)`: sets the key, or
    /// deletes it when the value is null.
    pub(super) fn replay(&mut self, r: &ConfigRecord) -> Result<(), ReplayError> {
        let resource = ConfigResource::new(r.resource_type, r.resource_name.as_str());
        match &r.value {
            Some(value) => {
                self.data
                    .entry(resource)
                    .or_default()
                    .insert(r.name.to_string(), value.to_string());
            }
            None => {
                if let Some(config) = self.data.get_mut(&resource) {
                    config.remove(r.name.as_str());
                    if config.is_empty() {
                        self.data.remove(&resource);
                    }
                }
            }
        }
        Ok(())
    }

    /// Drops the configuration of a removed topic (Kafka's
    /// `ConfigurationsDelta.replay(RemoveTopicRecord, topicName)`).
    pub(super) fn remove_topic(&mut self, topic_name: &str) {
        self.data
            .remove(&ConfigResource::new(ConfigResource::TOPIC, topic_name));
    }

    /// Kafka's `ConfigurationsImage.write`: one ConfigRecord (v0) per key.
    /// Kafka iterates hash maps; this writes by resource, then key.
    pub(super) fn write(
        &self,
        _options: &WriteOptions,
        out: &mut impl RecordSink,
    ) -> Result<(), WriteError> {
        for (resource, config) in &self.data {
            for (key, value) in config {
                out.push(MetadataRecord::new(
                    ConfigRecord {
                        resource_type: resource.resource_type,
                        resource_name: resource.name.as_str().into(),
                        name: key.as_str().into(),
                        value: Some(value.as_str().into()),
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
mod tests {
    use super::*;
    use crate::image::MetadataImage;

    fn config_record(
        resource_type: i8,
        name: &str,
        key: &str,
        value: Option<&str>,
    ) -> ConfigRecord {
        ConfigRecord {
            resource_type,
            resource_name: name.into(),
            name: key.into(),
            value: value.map(Into::into),
            ..Default::default()
        }
    }

    fn config(resource_type: i8, name: &str, key: &str, value: Option<&str>) -> MetadataRecord {
        MetadataRecord::new(config_record(resource_type, name, key, value), 0)
    }

    fn broker(id: &str) -> ConfigResource {
        ConfigResource::new(ConfigResource::BROKER, id)
    }

    fn map(entries: &[(&str, &str)]) -> BTreeMap<String, String> {
        entries
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    /// Kafka's ConfigurationsImageFixtures IMAGE1, as records.
    fn image1_records() -> Vec<MetadataRecord> {
        vec![
            MetadataRecord::feature_level("metadata.version", 33),
            config(ConfigResource::BROKER, "0", "foo", Some("bar")),
            config(ConfigResource::BROKER, "0", "baz", Some("quux")),
            config(ConfigResource::BROKER, "1", "foobar", Some("foobaz")),
        ]
    }

    /// Kafka's ConfigurationsImageFixtures DELTA1_RECORDS.
    fn delta1_records() -> Vec<MetadataRecord> {
        vec![
            config(ConfigResource::BROKER, "0", "foo", None),
            config(ConfigResource::BROKER, "0", "baz", None),
            config(ConfigResource::BROKER, "1", "foobar", None),
            config(ConfigResource::BROKER, "1", "barfoo", Some("bazfoo")),
            config(ConfigResource::BROKER, "2", "foo", Some("bar")),
        ]
    }

    #[test]
    fn kafka_image1_plus_delta1_is_image2_and_round_trips() {
        let mut image = MetadataImage::from_records(&image1_records()).expect("image1");
        assert_eq!(
            image.configs().config(&broker("0")),
            Some(&map(&[("foo", "bar"), ("baz", "quux")]))
        );
        assert_eq!(
            image.configs().value(&broker("1"), "foobar"),
            Some("foobaz")
        );
        for r in &delta1_records() {
            image.replay(r).expect("delta1");
        }
        // Kafka's IMAGE2: broker 0 is gone (all its keys deleted).
        let resources: Vec<_> = image.configs().resources().collect();
        assert_eq!(
            resources,
            vec![
                (&broker("1"), &map(&[("barfoo", "bazfoo")])),
                (&broker("2"), &map(&[("foo", "bar")])),
            ]
        );
        assert_eq!(image.configs().config(&broker("0")), None);
        let records = image.to_records().expect("write");
        assert_eq!(
            MetadataImage::from_records(&records).expect("reload"),
            image
        );
    }

    #[test]
    fn writes_one_v0_record_per_key() {
        let image = MetadataImage::from_records(&image1_records()).expect("image1");
        let records = image.to_records().expect("write");
        let configs: Vec<_> = records.iter().skip(1).cloned().collect();
        assert_eq!(
            configs,
            vec![
                config(ConfigResource::BROKER, "0", "baz", Some("quux")),
                config(ConfigResource::BROKER, "0", "foo", Some("bar")),
                config(ConfigResource::BROKER, "1", "foobar", Some("foobaz")),
            ]
        );
    }

    #[test]
    fn deleting_an_unknown_key_or_resource_changes_nothing() {
        let mut image = ConfigurationsImage::default();
        image
            .replay(&config_record(ConfigResource::TOPIC, "t", "k", None))
            .expect("replay");
        assert!(image.is_empty());
        image
            .replay(&config_record(ConfigResource::TOPIC, "t", "k", Some("v")))
            .expect("replay");
        image
            .replay(&config_record(ConfigResource::TOPIC, "t", "other", None))
            .expect("replay");
        let t = ConfigResource::new(ConfigResource::TOPIC, "t");
        assert_eq!(image.config(&t), Some(&map(&[("k", "v")])));
    }

    #[test]
    fn remove_topic_drops_only_that_topics_config() {
        let mut image = MetadataImage::from_records(&[
            MetadataRecord::feature_level("metadata.version", 33),
            config(ConfigResource::TOPIC, "foo", "retention.ms", Some("1")),
            config(
                ConfigResource::TOPIC,
                "foo",
                "cleanup.policy",
                Some("compact"),
            ),
            config(ConfigResource::TOPIC, "bar", "retention.ms", Some("2")),
            config(ConfigResource::BROKER, "foo", "x", Some("y")),
        ])
        .expect("image");
        image.configs.remove_topic("foo");
        image.configs.remove_topic("absent");
        let left: Vec<_> = image
            .configs()
            .resources()
            .map(|(r, _)| r.clone())
            .collect();
        assert_eq!(
            left,
            vec![
                ConfigResource::new(ConfigResource::TOPIC, "bar"),
                broker("foo")
            ]
        );
    }

    #[test]
    fn a_remove_topic_record_drops_the_topics_config() {
        use kraft_protocol::messages::remove_topic_record::RemoveTopicRecord;
        use kraft_protocol::messages::topic_record::TopicRecord;
        let topic_id = kraft_protocol::Uuid::from_u64_pair(7, 7);
        let mut image = MetadataImage::from_records(&[
            MetadataRecord::feature_level("metadata.version", 33),
            MetadataRecord::new(
                TopicRecord {
                    name: "foo".into(),
                    topic_id,
                    ..Default::default()
                },
                0,
            ),
            config(ConfigResource::TOPIC, "foo", "retention.ms", Some("1")),
            config(ConfigResource::TOPIC, "bar", "retention.ms", Some("2")),
        ])
        .expect("image");
        image
            .replay(&MetadataRecord::new(
                RemoveTopicRecord {
                    topic_id,
                    ..Default::default()
                },
                0,
            ))
            .expect("remove topic");
        let left: Vec<_> = image
            .configs()
            .resources()
            .map(|(r, _)| r.clone())
            .collect();
        assert_eq!(
            left,
            vec![ConfigResource::new(ConfigResource::TOPIC, "bar")]
        );
    }

    #[test]
    fn an_unknown_resource_type_id_is_kept_as_read() {
        let records = vec![
            MetadataRecord::feature_level("metadata.version", 33),
            config(99, "x", "k", Some("v")),
        ];
        let image = MetadataImage::from_records(&records).expect("image");
        assert_eq!(image.not_understood().count(), 0);
        assert_eq!(image.to_records().expect("write"), records);
    }
}
