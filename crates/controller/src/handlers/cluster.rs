//! ApiVersions and DescribeCluster on a controller: Kafka's
//! `ControllerApis.handleApiVersionsRequest` (with `ApiVersionManager` and
//! `FinalizedFeatures`) and `ControllerApis.handleDescribeCluster`.

use kraft_protocol::messages::api_versions_request::ApiVersionsRequest;
use kraft_protocol::messages::api_versions_response::{
    ApiVersion, ApiVersionsResponse, FinalizedFeatureKey, SupportedFeatureKey,
};
use kraft_protocol::messages::describe_cluster_request::DescribeClusterRequest;
use kraft_protocol::messages::describe_cluster_response::{
    DescribeClusterBroker, DescribeClusterResponse,
};
use kraft_protocol::ErrorCode;

use super::authz::Access;
use super::Controller;
use crate::features::{MetadataVersion, KRAFT_VERSION, METADATA_VERSION};
use crate::image::MetadataImage;
use crate::java::JavaHashMap;

/// `CLUSTER` operations a request may perform without an authorizer
/// (CREATE, ALTER, DESCRIBE, CLUSTER_ACTION, DESCRIBE_CONFIGS, ALTER_CONFIGS,
/// IDEMPOTENT_WRITE as a bit field).
pub const ALL_CLUSTER_OPERATIONS: i32 =
    (1 << 5) | (1 << 7) | (1 << 8) | (1 << 9) | (1 << 10) | (1 << 11) | (1 << 12);
/// `[a-zA-Z0-9](?:[a-zA-Z0-9\-.]*[a-zA-Z0-9])?`
pub(super) fn valid_software_token(s: &str) -> bool {
    let b = s.as_bytes();
    let alnum = |c: &u8| c.is_ascii_alphanumeric();
    match b {
        [] => false,
        [only] => alnum(only),
        [first, middle @ .., last] => {
            alnum(first)
                && alnum(last)
                && middle.iter().all(|c| alnum(c) || *c == b'-' || *c == b'.')
        }
    }
}
impl Controller {
    /// ApiVersions (any known version; the server answers unknown versions itself).
    pub fn api_versions(&self, version: i16, request: &ApiVersionsRequest) -> ApiVersionsResponse {
        let valid = {
            let v5_ok = version < 5 || (request.cluster_id.is_none() == (request.node_id == -1));
            let v3_ok = version < 3
                || (valid_software_token(&request.client_software_name)
                    && valid_software_token(&request.client_software_version));
            v5_ok && v3_ok
        };
        if !valid {
            return ApiVersionsResponse {
                error_code: ErrorCode::InvalidRequest.code(),
                ..Default::default()
            };
        }
        let api_keys = self
            .served_apis()
            .into_iter()
            .map(|r| ApiVersion {
                api_key: r.api_key.id(),
                min_version: r.min_version,
                max_version: r.max_version,
                ..Default::default()
            })
            .collect();
        // BrokerFeatures.defaultSupportedFeatures: a HashMap filled in declaration order.
        let supported = self.supported_features();
        let order = JavaHashMap::from_keys(supported.iter().map(|(n, _)| n.to_string()));
        let supported_features = order
            .iter()
            .filter_map(|name| supported.iter().find(|(n, _)| *n == name.as_str()))
            .filter(|(_, r)| !(version < 4 && r.min == 0))
            .map(|(n, r)| SupportedFeatureKey {
                name: (*n).into(),
                min_version: r.min,
                max_version: r.max,
                ..Default::default()
            })
            .collect();
        // Read the quorum before taking the image lock (the raft driver may
        // hold its own state while it writes the image).
        let kraft = self.quorum.facts().kraft_version;
        let image = self.image.read();
        // An image that is not loaded yet finalizes nothing (Kafka: the
        // features are unknown until the MetadataLoader publishes).
        let mv = image.metadata_version().filter(|_| self.image.is_loaded());
        let (finalized_features, epoch) = match mv {
            None => (Vec::new(), -1),
            Some(mv) => {
                let levels = finalized_feature_order(&image, mv, kraft);
                let keys = levels
                    .into_iter()
                    .filter(|(_, l)| *l != 0)
                    .map(|(n, l)| FinalizedFeatureKey {
                        name: n.into(),
                        max_version_level: l,
                        min_version_level: l,
                        ..Default::default()
                    })
                    .collect();
                (keys, image.last_offset())
            }
        };
        ApiVersionsResponse {
            error_code: 0,
            api_keys,
            throttle_time_ms: 0,
            supported_features,
            finalized_features_epoch: epoch,
            finalized_features: finalized_features.into(),
            zk_migration_ready: false,
            ..Default::default()
        }
    }

    /// DescribeCluster on a controller listener, for a trusted caller:
    /// every CLUSTER operation is reported authorized (the network path
    /// goes through [`Controller::describe_cluster_with`]).
    pub fn describe_cluster(
        &self,
        version: i16,
        listener_name: &str,
        request: &DescribeClusterRequest,
    ) -> DescribeClusterResponse {
        self.describe_cluster_with(&Access::everything(), version, listener_name, request)
    }

    /// DescribeCluster with `clusterAuthorizedOperations` computed by the
    /// authorizer for the caller (Kafka's `AuthHelper.authorizedOperations`).
    pub(crate) fn describe_cluster_with(
        &self,
        access: &Access<'_>,
        version: i16,
        listener_name: &str,
        request: &DescribeClusterRequest,
    ) -> DescribeClusterResponse {
        let cluster_operations = if request.include_cluster_authorized_operations {
            access.cluster_operations()
        } else {
            i32::MIN
        };
        let leader = self.quorum.facts().leader_id.unwrap_or(-1);
        let image = self.image.read();
        let error = |code: ErrorCode, message: String| DescribeClusterResponse {
            error_code: code.code(),
            error_message: Some(message.into()),
            ..Default::default()
        };
        if !self.image.is_loaded() {
            // A starting controller has not replayed its committed snapshot
            // and log yet: a retriable answer, so that the client asks
            // another controller or again, rather than Kafka's final
            // "no finalized MetadataVersion" below.
            return error(
                ErrorCode::NotController,
                format!(
                    "Controller {} has not loaded the committed metadata yet.",
                    self.settings.node_id
                ),
            );
        }
        match image.metadata_version() {
            None => {
                return error(
                    ErrorCode::UnsupportedVersion,
                    "There is no finalized MetadataVersion, so direct-to-controller communication is not supported."
                        .to_string(),
                )
            }
            Some(mv) if !mv.is_controller_registration_supported() => {
                return error(
                    ErrorCode::UnsupportedVersion,
                    "Direct-to-controller communication is not supported with the current MetadataVersion."
                        .to_string(),
                )
            }
            Some(_) => {}
        }
        match request.endpoint_type {
            1 => {
                return error(
                    if version == 0 {
                        ErrorCode::InvalidRequest
                    } else {
                        ErrorCode::MismatchedEndpointType
                    },
                    "The request was sent to an endpoint of type CONTROLLER, but we wanted an endpoint of type BROKER"
                        .to_string(),
                )
            }
            2 => {}
            other => {
                return error(
                    if version == 0 {
                        ErrorCode::InvalidRequest
                    } else {
                        ErrorCode::UnsupportedEndpointType
                    },
                    format!("Unsupported endpoint type {other}"),
                )
            }
        }
        let order = JavaHashMap::from_keys(image.controllers().map(|c| c.id));
        let brokers: Vec<DescribeClusterBroker> = order
            .iter()
            .filter_map(|id| image.controller(*id))
            .filter_map(|c| {
                c.endpoint(listener_name).map(|e| DescribeClusterBroker {
                    broker_id: c.id,
                    host: e.host.as_str().into(),
                    port: i32::from(e.port),
                    rack: None,
                    ..Default::default()
                })
            })
            .collect();
        let controller_id = if brokers.iter().any(|b| b.broker_id == leader) {
            leader
        } else {
            -1
        };
        DescribeClusterResponse {
            cluster_id: self.settings.cluster_id.as_str().into(),
            controller_id,
            cluster_authorized_operations: cluster_operations,
            brokers: brokers.into(),
            endpoint_type: 2,
            ..Default::default()
        }
    }
}

/// The finalized features in the order Kafka's ApiVersions lists them: the
/// iteration order of the `HashMap` that `FinalizedFeatures` builds from the
/// image's feature map (modelled as filled in one metadata delta, in the
/// order the features were first set), then metadata.version and
/// kraft.version added.
fn finalized_feature_order(
    image: &MetadataImage,
    mv: MetadataVersion,
    kraft_version: i16,
) -> Vec<(String, i16)> {
    let features = image.finalized_features();
    let changes = JavaHashMap::from_keys(features.iter().map(|(n, _)| n.clone()));
    let mut image_map = JavaHashMap::with_capacity(0);
    for n in changes.iter() {
        image_map.put(n.clone());
    }
    let mut map = JavaHashMap::copy_of(&image_map);
    map.put(METADATA_VERSION.to_string());
    if kraft_version != 0 {
        let mut with_kraft = JavaHashMap::copy_of(&map);
        with_kraft.put(KRAFT_VERSION.to_string());
        map = JavaHashMap::copy_of(&with_kraft);
        map.put(METADATA_VERSION.to_string());
    }
    map.iter()
        .map(|n| {
            let level = match n.as_str() {
                METADATA_VERSION => mv.feature_level(),
                KRAFT_VERSION => kraft_version,
                _ => image.feature_level(n),
            };
            (n.clone(), level)
        })
        .collect()
}
