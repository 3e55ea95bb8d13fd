//! ControllerRegistration and UnregisterController: the controller half of
//! Kafka's `ClusterControlManager` (`registerController`,
//! `unregisterController`), reached through `QuorumController`. The broker
//! registrations of `ClusterControlManager` will live here too.

use kraft_protocol::messages::controller_registration_request::ControllerRegistrationRequest;
use kraft_protocol::messages::controller_registration_response::ControllerRegistrationResponse;
use kraft_protocol::messages::register_controller_record::{
    ControllerEndpoint, ControllerFeature, RegisterControllerRecord,
};
use kraft_protocol::messages::unregister_controller_record::UnregisterControllerRecord;
use kraft_protocol::messages::unregister_controller_request::UnregisterControllerRequest;
use kraft_protocol::messages::unregister_controller_response::UnregisterControllerResponse;
use kraft_protocol::{ErrorCode, StrBytes, Uuid};

use super::{put_by_name, ApiError, Controller};
use crate::config::SecurityProtocol;
use crate::features::MetadataVersion;
use crate::image::MetadataRecord;

impl Controller {
    /// The ControllerRegistration a controller sends for itself (what its
    /// registration manager puts in the request).
    pub fn registration_request(
        &self,
        incarnation_id: Uuid,
        endpoints: &[(String, String, u16, SecurityProtocol)],
    ) -> ControllerRegistrationRequest {
        use kraft_protocol::messages::controller_registration_request::{Feature, Listener};
        ControllerRegistrationRequest {
            controller_id: self.settings.node_id,
            incarnation_id,
            zk_migration_ready: false,
            listeners: endpoints
                .iter()
                .map(|(name, host, port, proto)| Listener {
                    name: name.as_str().into(),
                    host: host.as_str().into(),
                    port: *port,
                    security_protocol: proto.id(),
                    ..Default::default()
                })
                .collect(),
            features: self
                .supported_features()
                .into_iter()
                .map(|(n, r)| Feature {
                    name: n.into(),
                    min_supported_version: r.min,
                    max_supported_version: r.max,
                    ..Default::default()
                })
                .collect(),
            ..Default::default()
        }
    }

    /// ControllerRegistration: writes a RegisterControllerRecord and answers
    /// after it commits.
    pub async fn controller_registration(
        &self,
        request: &ControllerRegistrationRequest,
    ) -> ControllerRegistrationResponse {
        match self.register_controller(request).await {
            Ok(()) => ControllerRegistrationResponse::default(),
            // ControllerRegistrationRequest.getErrorResponse uses the error's default text.
            Err(e) => ControllerRegistrationResponse {
                error_code: e.code.code(),
                error_message: Some(e.code.default_message().into()),
                ..Default::default()
            },
        }
    }

    async fn register_controller(
        &self,
        request: &ControllerRegistrationRequest,
    ) -> Result<(), ApiError> {
        let (mut guard, epoch) = self.lock_committed("registerController").await?;
        let mv = self.image.read().metadata_version();
        if !mv.is_some_and(MetadataVersion::is_controller_registration_supported) {
            return Err(ApiError::new(
                ErrorCode::UnsupportedVersion,
                "The current MetadataVersion is too old to support controller registrations.",
            ));
        }
        let mut end_points: Vec<ControllerEndpoint> = Vec::new();
        for l in &request.listeners {
            if SecurityProtocol::from_id(l.security_protocol).is_none() {
                tracing::error!(
                    "Unknown security protocol {} in listener {}",
                    l.security_protocol,
                    l.name
                );
                return Err(ApiError {
                    code: ErrorCode::UnknownServerError,
                    message: None,
                });
            }
            let e = ControllerEndpoint {
                name: l.name.clone(),
                host: l.host.clone(),
                port: l.port,
                security_protocol: l.security_protocol,
                ..Default::default()
            };
            put_by_name(&mut end_points, e, |a, b| a.name == b.name);
        }
        let record = RegisterControllerRecord {
            controller_id: request.controller_id,
            incarnation_id: request.incarnation_id,
            zk_migration_ready: false,
            end_points: end_points.into(),
            features: request
                .features
                .iter()
                .map(|f| ControllerFeature {
                    name: f.name.clone(),
                    min_supported_version: f.min_supported_version,
                    max_supported_version: f.max_supported_version,
                    ..Default::default()
                })
                .collect(),
            ..Default::default()
        };
        self.append_locked(&mut guard, epoch, vec![MetadataRecord::new(record, 0)])
            .await?;
        Ok(())
    }

    /// UnregisterController (KIP-1312), checks in Kafka 4.4's order:
    /// NOT_CONTROLLER, INVALID_REQUEST for the active controller itself,
    /// UNSUPPORTED_VERSION below metadata.version 4.4-IV2,
    /// CONTROLLER_ID_NOT_REGISTERED; then an UnregisterControllerRecord,
    /// answered after it commits.
    pub async fn unregister_controller(
        &self,
        request: &UnregisterControllerRequest,
    ) -> UnregisterControllerResponse {
        match self.unregister(request.controller_id).await {
            Ok(()) => UnregisterControllerResponse::default(),
            // UnregisterControllerRequest.getErrorResponse uses the exception's own message.
            Err(e) => UnregisterControllerResponse {
                error_code: e.code.code(),
                error_message: e.message.map(StrBytes::from),
                ..Default::default()
            },
        }
    }

    async fn unregister(&self, controller_id: i32) -> Result<(), ApiError> {
        let (mut guard, epoch) = self.lock_committed("unregisterController").await?;
        if controller_id == self.settings.node_id {
            return Err(ApiError::new(
                ErrorCode::InvalidRequest,
                "Controller cannot unregister itself while it is active.",
            ));
        }
        // Kafka trunk (KAFKA-20865): a voter of the latest set, committed or
        // not, keeps its registration (it would re-register anyway).
        if self
            .quorum
            .latest_voter_ids()
            .await
            .contains(&controller_id)
        {
            return Err(ApiError::new(
                ErrorCode::InvalidRequest,
                format!("Cannot unregister controller {controller_id} because it is part of the voter set."),
            ));
        }
        {
            let image = self.image.read();
            if !image
                .metadata_version()
                .is_some_and(MetadataVersion::is_controller_unregistration_supported)
            {
                return Err(ApiError::new(
                    ErrorCode::UnsupportedVersion,
                    "The current MetadataVersion is too old to support controller unregistration.",
                ));
            }
            if image.controller(controller_id).is_none() {
                return Err(ApiError::new(
                    ErrorCode::ControllerIdNotRegistered,
                    format!("Controller ID {controller_id} is not currently registered."),
                ));
            }
        }
        let record = UnregisterControllerRecord {
            controller_id,
            ..Default::default()
        };
        self.append_locked(&mut guard, epoch, vec![MetadataRecord::new(record, 0)])
            .await?;
        Ok(())
    }
}
