//! Registered controllers and brokers (Kafka's `ClusterImage` /
//! `ClusterDelta`).

use std::collections::BTreeMap;

use kraft_protocol::messages::register_controller_record::{
    ControllerEndpoint, ControllerFeature, RegisterControllerRecord,
};
use kraft_protocol::messages::unregister_controller_record::UnregisterControllerRecord;
use kraft_protocol::Uuid;

use super::{MetadataRecord, ReplayError, WriteError, WriteOptions};
use crate::features::VersionRange;
use crate::java::uuid_to_text;

/// One endpoint of a controller registration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegistrationEndpoint {
    /// Listener name.
    pub name: String,
    /// Advertised host.
    pub host: String,
    /// Advertised port.
    pub port: u16,
    /// Security protocol id (0 PLAINTEXT, 1 SSL, 2 SASL_PLAINTEXT, 3 SASL_SSL).
    pub security_protocol: i16,
}

/// A controller's registration (from its RegisterControllerRecord).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ControllerRegistration {
    /// Node id.
    pub id: i32,
    /// Random id of the registering process incarnation.
    pub incarnation_id: Uuid,
    /// Always false in Kafka 4.x.
    pub zk_migration_ready: bool,
    /// Advertised controller listeners, in registration order.
    pub endpoints: Vec<RegistrationEndpoint>,
    /// Supported feature ranges, in registration order.
    pub supported_features: Vec<(String, VersionRange)>,
}

impl ControllerRegistration {
    /// The registration a RegisterControllerRecord describes.
    pub fn from_record(r: &RegisterControllerRecord) -> Self {
        ControllerRegistration {
            id: r.controller_id,
            incarnation_id: r.incarnation_id,
            zk_migration_ready: r.zk_migration_ready,
            endpoints: r
                .end_points
                .iter()
                .map(|e| RegistrationEndpoint {
                    name: e.name.to_string(),
                    host: e.host.to_string(),
                    port: e.port,
                    security_protocol: e.security_protocol,
                })
                .collect(),
            supported_features: r
                .features
                .iter()
                .map(|f| {
                    (
                        f.name.to_string(),
                        VersionRange::new(f.min_supported_version, f.max_supported_version),
                    )
                })
                .collect(),
        }
    }

    /// The RegisterControllerRecord (v0) for this registration.
    pub fn to_record(&self) -> RegisterControllerRecord {
        RegisterControllerRecord {
            controller_id: self.id,
            incarnation_id: self.incarnation_id,
            zk_migration_ready: self.zk_migration_ready,
            end_points: self
                .endpoints
                .iter()
                .map(|e| ControllerEndpoint {
                    name: e.name.as_str().into(),
                    host: e.host.as_str().into(),
                    port: e.port,
                    security_protocol: e.security_protocol,
                    ..Default::default()
                })
                .collect(),
            features: self
                .supported_features
                .iter()
                .map(|(name, r)| ControllerFeature {
                    name: name.as_str().into(),
                    min_supported_version: r.min,
                    max_supported_version: r.max,
                    ..Default::default()
                })
                .collect(),
            ..Default::default()
        }
    }

    /// The supported range of `feature`; `0-0` (disabled) when not listed.
    pub fn supported_range(&self, feature: &str) -> VersionRange {
        self.supported_features
            .iter()
            .find(|(n, _)| n == feature)
            .map_or(VersionRange::DISABLED, |(_, r)| *r)
    }

    /// The endpoint on listener `name`.
    pub fn endpoint(&self, name: &str) -> Option<&RegistrationEndpoint> {
        self.endpoints.iter().find(|e| e.name == name)
    }
}

/// The registered controllers and brokers.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ClusterImage {
    controllers: BTreeMap<i32, ControllerRegistration>,
}

impl ClusterImage {
    /// The registration of controller `id`.
    pub fn controller(&self, id: i32) -> Option<&ControllerRegistration> {
        self.controllers.get(&id)
    }

    /// All controller registrations, by id.
    pub fn controllers(&self) -> impl Iterator<Item = &ControllerRegistration> {
        self.controllers.values()
    }

    pub(super) fn replay_register_controller(
        &mut self,
        r: &RegisterControllerRecord,
    ) -> Result<(), ReplayError> {
        let registration = ControllerRegistration::from_record(r);
        match self.controllers.insert(r.controller_id, registration) {
            Some(prev) => tracing::info!(
                controller_id = r.controller_id,
                incarnation_id = %uuid_to_text(&r.incarnation_id),
                previous_incarnation_id = %uuid_to_text(&prev.incarnation_id),
                "replayed RegisterControllerRecord"
            ),
            None => tracing::info!(
                controller_id = r.controller_id,
                incarnation_id = %uuid_to_text(&r.incarnation_id),
                "replayed RegisterControllerRecord"
            ),
        }
        Ok(())
    }

    pub(super) fn replay_unregister_controller(
        &mut self,
        r: &UnregisterControllerRecord,
    ) -> Result<(), ReplayError> {
        if self.controllers.remove(&r.controller_id).is_none() {
            tracing::warn!(
                controller_id = r.controller_id,
                "replayed UnregisterControllerRecord for a controller that is not registered"
            );
        } else {
            tracing::info!(
                controller_id = r.controller_id,
                "replayed UnregisterControllerRecord"
            );
        }
        Ok(())
    }

    /// Kafka's `ClusterImage.write`: the brokers, then the controllers (a
    /// metadata.version without controller registration cannot hold them).
    pub(super) fn write(
        &self,
        options: &WriteOptions,
        out: &mut Vec<MetadataRecord>,
    ) -> Result<(), WriteError> {
        if options
            .metadata_version
            .is_controller_registration_supported()
        {
            for c in self.controllers.values() {
                out.push(MetadataRecord::new(c.to_record(), 0));
            }
        } else if !self.controllers.is_empty() {
            return Err(WriteError::Loss {
                metadata_version: options.metadata_version,
                loss: "controller registration data".into(),
            });
        }
        Ok(())
    }
}
