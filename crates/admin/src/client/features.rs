//! Feature flags: DescribeFeatures (an ApiVersions request) and
//! UpdateFeatures.

use std::collections::BTreeMap;

use kraft_protocol::messages::api_versions_request::ApiVersionsRequest;
use kraft_protocol::messages::update_features_request::{FeatureUpdateKey, UpdateFeaturesRequest};
use kraft_protocol::{ApiKey, ErrorCode, StrBytes};

use super::retry::Failure;
use super::Admin;
use crate::config::HostPort;
use crate::error::{AdminError, ApiError, Result};
use crate::features::{
    ApiVersionRange, FeatureMetadata, FeatureUpdate, FinalizedVersionRange, SupportedVersionRange,
    UpgradeType,
};
use crate::types::{DescribeFeaturesOptions, UpdateFeaturesOptions};

impl Admin {
    /// Describes the feature flags the active controller (bootstrap
    /// controllers) or a broker supports, and the finalized levels (an
    /// ApiVersions request, as Kafka's `describeFeatures`).
    pub async fn describe_features(&self) -> Result<FeatureMetadata> {
        self.describe_features_with(DescribeFeaturesOptions::default())
            .await
    }

    /// [`Admin::describe_features`] with options (a specific node, timeout).
    pub async fn describe_features_with(
        &self,
        options: DescribeFeaturesOptions,
    ) -> Result<FeatureMetadata> {
        let target_addr = match options.node_id {
            None => None,
            Some(id) => {
                let cluster = self.describe_cluster().await?;
                let node = cluster.nodes.iter().find(|n| n.id == id).ok_or_else(|| {
                    AdminError::InvalidArgument(format!(
                        "node {id} is not among the {} the cluster reports",
                        if self.using_controllers() {
                            "controllers"
                        } else {
                            "brokers"
                        }
                    ))
                })?;
                let port = u16::try_from(node.port).map_err(|_| {
                    AdminError::UnexpectedResponse(format!(
                        "node {id} has an invalid port {}",
                        node.port
                    ))
                })?;
                Some(HostPort {
                    host: node.host.clone(),
                    port,
                })
            }
        };
        let mut retry = self.retry("describeFeatures", options.timeout);
        loop {
            let attempt = async {
                let conn = match &target_addr {
                    Some(addr) => self.connection(addr, &retry).await?,
                    None => self.target(&retry).await?,
                };
                let version = conn.version_for(ApiKey::ApiVersions)?;
                let request = ApiVersionsRequest {
                    client_software_name: StrBytes::from_static("kraft-admin"),
                    client_software_version: StrBytes::from_static(env!("CARGO_PKG_VERSION")),
                    ..Default::default()
                };
                let response = conn
                    .send(&request, version, retry.request_timeout(&self.inner.config))
                    .await?;
                if response.error_code != 0 {
                    let e: AdminError = ApiError::from_wire(response.error_code, None).into();
                    return Err(e.into());
                }
                Ok(FeatureMetadata {
                    finalized_features: response
                        .finalized_features
                        .iter()
                        .map(|f| {
                            (
                                f.name.to_string(),
                                FinalizedVersionRange {
                                    min_version_level: f.min_version_level,
                                    max_version_level: f.max_version_level,
                                },
                            )
                        })
                        .collect(),
                    finalized_features_epoch: (response.finalized_features_epoch >= 0)
                        .then_some(response.finalized_features_epoch),
                    supported_features: response
                        .supported_features
                        .iter()
                        .map(|f| {
                            (
                                f.name.to_string(),
                                SupportedVersionRange {
                                    min_version: f.min_version,
                                    max_version: f.max_version,
                                },
                            )
                        })
                        .collect(),
                    api_versions: response
                        .api_keys
                        .iter()
                        .map(|k| ApiVersionRange {
                            api_key: k.api_key,
                            min_version: k.min_version,
                            max_version: k.max_version,
                        })
                        .collect(),
                })
            }
            .await;
            if let Some(done) = self.next_step(&mut retry, attempt).await {
                return done;
            }
        }
    }

    /// Changes feature levels (UpdateFeatures). Returns one result per
    /// requested feature; a top-level error other than `NOT_CONTROLLER`
    /// (which is retried) is reported for every feature, as Kafka does.
    pub async fn update_features(
        &self,
        updates: &BTreeMap<String, FeatureUpdate>,
        options: UpdateFeaturesOptions,
    ) -> Result<BTreeMap<String, std::result::Result<(), ApiError>>> {
        if updates.is_empty() {
            return Err(AdminError::InvalidArgument(
                "Feature updates can not be null or empty.".into(),
            ));
        }
        if updates.keys().any(|k| k.trim().is_empty()) {
            return Err(AdminError::InvalidArgument(
                "Provided feature can not be empty.".into(),
            ));
        }
        let mut retry = self.retry("updateFeatures", options.timeout);
        loop {
            let attempt = async {
                let conn = self.target(&retry).await?;
                let version = conn.version_for(ApiKey::UpdateFeatures)?;
                if version < 1 && options.validate_only {
                    return Err(Failure::fatal(AdminError::unsupported(
                        ApiKey::UpdateFeatures,
                        &conn.addr().to_string(),
                        " v1 or later, which validate-only (dry run) needs",
                    )));
                }
                let request_timeout = retry.request_timeout(&self.inner.config);
                let request = UpdateFeaturesRequest {
                    timeout_ms: i32::try_from(request_timeout.as_millis()).unwrap_or(i32::MAX),
                    feature_updates: updates
                        .iter()
                        .map(|(name, u)| FeatureUpdateKey {
                            feature: StrBytes::from(name.as_str()),
                            max_version_level: u.max_version_level,
                            allow_downgrade: version == 0 && u.upgrade_type != UpgradeType::Upgrade,
                            upgrade_type: if version == 0 { 1 } else { u.upgrade_type.code() },
                            ..Default::default()
                        })
                        .collect(),
                    validate_only: options.validate_only,
                    ..Default::default()
                };
                let response = conn.send(&request, version, request_timeout).await?;
                let top = ErrorCode::from_code(response.error_code);
                if top == ErrorCode::NotController {
                    self.check_code(response.error_code, response.error_message.as_ref(), &[])?;
                }
                let mut results = BTreeMap::new();
                if top.is_err() {
                    let e = ApiError::from_wire(response.error_code, response.error_message.as_deref());
                    for name in updates.keys() {
                        results.insert(name.clone(), Err(e.clone()));
                    }
                    return Ok(results);
                }
                if response.results.is_empty() {
                    for name in updates.keys() {
                        results.insert(name.clone(), Ok(()));
                    }
                    return Ok(results);
                }
                for r in &response.results {
                    if !updates.contains_key(r.feature.as_str()) {
                        tracing::warn!(feature = %r.feature, "server response mentioned unknown feature");
                        continue;
                    }
                    let outcome = if r.error_code == 0 {
                        Ok(())
                    } else {
                        Err(ApiError::from_wire(r.error_code, r.error_message.as_deref()))
                    };
                    results.insert(r.feature.to_string(), outcome);
                }
                for name in updates.keys() {
                    results.entry(name.clone()).or_insert_with(|| {
                        Err(ApiError::new(
                            ErrorCode::UnknownServerError,
                            Some(format!(
                                "The controller response did not contain a result for feature {name}"
                            )),
                        ))
                    });
                }
                Ok(results)
            }
            .await;
            if let Some(done) = self.next_step(&mut retry, attempt).await {
                return done;
            }
        }
    }
}
