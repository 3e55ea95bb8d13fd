//! UpdateFeatures: Kafka's `FeatureControlManager` (`updateFeatures`,
//! `reasonNotSupported`), reached through `QuorumController.updateFeatures`.

use std::collections::BTreeMap;

use kraft_protocol::messages::update_features_request::UpdateFeaturesRequest;
use kraft_protocol::messages::update_features_response::{
    UpdatableFeatureResult, UpdateFeaturesResponse,
};
use kraft_protocol::{ErrorCode, StrBytes};

use super::{not_controller, ApiError, Controller, QuorumFacts};
use crate::features::{
    validate_feature_dependencies, FeatureSpec, MetadataVersion, VersionRange, KRAFT_VERSION,
    METADATA_VERSION,
};
use crate::image::{MetadataImage, MetadataRecord};
use crate::java::JavaHashMap;

/// UpdateFeatures upgrade types: 1 upgrade, 2 safe downgrade, 3 unsafe downgrade.
const UPGRADE: i8 = 1;
const UNSAFE_DOWNGRADE: i8 = 3;
fn invalid_update_version(feature: &str, version: i16, message: &str) -> ApiError {
    let text = format!("Invalid update version {version} for feature {feature}. {message}");
    tracing::warn!("{text}");
    ApiError::new(ErrorCode::InvalidUpdateVersion, text)
}

fn reason_not_supported(what: &str, range: VersionRange, version: i16) -> Option<String> {
    if range.contains(version) {
        None
    } else if range.max == 0 {
        Some(format!("{what} does not support this feature."))
    } else {
        Some(format!("{what} only supports versions {range}"))
    }
}
impl Controller {
    /// UpdateFeatures (`QuorumController.updateFeatures` +
    /// `FeatureControlManager.updateFeatures`).
    pub async fn update_features(
        &self,
        version: i16,
        request: &UpdateFeaturesRequest,
    ) -> UpdateFeaturesResponse {
        match self.apply_feature_updates(request).await {
            Ok(()) => UpdateFeaturesResponse {
                error_code: 0,
                error_message: None,
                results: if version <= 1 {
                    request
                        .feature_updates
                        .iter()
                        .map(|u| UpdatableFeatureResult {
                            feature: u.feature.clone(),
                            error_code: 0,
                            // Errors.NONE.message() is "NONE" in Kafka.
                            error_message: Some(StrBytes::from_static("NONE")),
                            ..Default::default()
                        })
                        .collect()
                } else {
                    Vec::new().into()
                },
                ..Default::default()
            },
            Err(UpdateFailure::Feature(e)) => UpdateFeaturesResponse {
                error_code: e.code.code(),
                error_message: Some(
                    format!(
                        "The update failed for all features since the following feature had an error: {}",
                        e.message.as_deref().unwrap_or("null")
                    )
                    .into(),
                ),
                ..Default::default()
            },
            // UpdateFeaturesRequest.getErrorResponse: ApiError.fromThrowable keeps
            // the message only if it differs from the default text.
            Err(UpdateFailure::Request(e)) => UpdateFeaturesResponse {
                error_code: e.code.code(),
                error_message: e
                    .message
                    .filter(|m| m != e.code.default_message())
                    .map(StrBytes::from),
                ..Default::default()
            },
        }
    }

    async fn apply_feature_updates(
        &self,
        request: &UpdateFeaturesRequest,
    ) -> Result<(), UpdateFailure> {
        let (mut guard, epoch) = self
            .lock_committed("updateFeatures")
            .await
            .map_err(UpdateFailure::Request)?;
        let facts = self.quorum.facts();
        if facts.epoch != epoch {
            return Err(UpdateFailure::Request(not_controller(facts.leader_id)));
        }
        let image = self.image.snapshot();
        let Some(mv) = image.metadata_version() else {
            return Err(UpdateFailure::Request(ApiError {
                code: ErrorCode::UnknownServerError,
                message: None,
            }));
        };
        // Kafka collects the updates in a HashMap (a later duplicate replaces
        // the level and upgrade type) and processes them in its order.
        let mut updates: BTreeMap<String, (i16, i8)> = BTreeMap::new();
        let mut names: Vec<String> = Vec::new();
        for u in &request.feature_updates {
            let name = u.feature.to_string();
            if !names.contains(&name) {
                names.push(name.clone());
            }
            updates.insert(name, (u.max_version_level, u.upgrade_type));
        }
        let mut proposed: BTreeMap<String, i16> = image
            .finalized_features()
            .iter()
            .map(|(n, l)| (n.clone(), *l))
            .collect();
        proposed.insert(METADATA_VERSION.to_string(), mv.feature_level());
        for (n, (l, _)) in &updates {
            proposed.insert(n.clone(), *l);
        }
        let mut records = Vec::new();
        for name in JavaHashMap::from_keys(names).iter() {
            let Some(&(level, upgrade_type)) = updates.get(name) else {
                continue;
            };
            self.update_feature(
                &image,
                &facts,
                mv,
                name,
                level,
                upgrade_type,
                &proposed,
                request.validate_only,
                &mut records,
            )
            .await
            .map_err(UpdateFailure::Feature)?;
        }
        if request.validate_only || records.is_empty() {
            return Ok(());
        }
        self.append_locked(&mut guard, epoch, records)
            .await
            .map_err(UpdateFailure::Request)?;
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    async fn update_feature(
        &self,
        image: &MetadataImage,
        facts: &QuorumFacts,
        mv: MetadataVersion,
        name: &str,
        level: i16,
        upgrade_type: i8,
        proposed: &BTreeMap<String, i16>,
        validate_only: bool,
        records: &mut Vec<MetadataRecord>,
    ) -> Result<(), ApiError> {
        if !(UPGRADE..=UNSAFE_DOWNGRADE).contains(&upgrade_type) {
            return Err(invalid_update_version(
                name,
                level,
                "The controller does not support the given upgrade type.",
            ));
        }
        let current = match name {
            METADATA_VERSION => mv.feature_level(),
            KRAFT_VERSION => facts.kraft_version,
            _ => image.feature_level(name),
        };
        if level < 0 {
            return Err(invalid_update_version(
                name,
                level,
                "A feature version cannot be less than 0.",
            ));
        }
        if let Some(reason) = self.reason_not_supported(image, facts, mv, name, level) {
            return Err(invalid_update_version(name, level, &reason));
        }
        if level < current {
            if upgrade_type == UPGRADE {
                return Err(invalid_update_version(
                    name,
                    level,
                    "Can't downgrade the version of this feature without setting the upgrade type to either safe or unsafe downgrade.",
                ));
            }
        } else if level > current && upgrade_type != UPGRADE {
            return Err(invalid_update_version(
                name,
                level,
                "Can't downgrade to a newer version.",
            ));
        }
        match name {
            METADATA_VERSION => {
                let Some(new_mv) = MetadataVersion::from_feature_level(level) else {
                    let text = format!(
                        "Invalid metadata.version {level}. Valid versions are from {} to {}.",
                        MetadataVersion::MINIMUM.feature_level(),
                        MetadataVersion::LATEST_TESTING.feature_level()
                    );
                    return Err(ApiError::new(ErrorCode::InvalidUpdateVersion, text));
                };
                if new_mv < mv {
                    if !MetadataVersion::metadata_changed_between(mv, new_mv) {
                        tracing::warn!("Downgrading metadata.version from {mv} to {new_mv}.");
                    } else {
                        let why = if upgrade_type == UNSAFE_DOWNGRADE {
                            "Unsafe metadata downgrade is not supported in this version."
                        } else {
                            "Refusing to perform the requested downgrade because it might delete metadata information."
                        };
                        return Err(ApiError::new(
                            ErrorCode::InvalidUpdateVersion,
                            format!(
                                "Unsupported metadata.version downgrade from {} to {}. {why}",
                                mv.feature_level(),
                                level
                            ),
                        ));
                    }
                } else {
                    tracing::warn!("Upgrading metadata.version from {mv} to {new_mv}.");
                }
                records.push(MetadataRecord::feature_level(METADATA_VERSION, level));
                Ok(())
            }
            KRAFT_VERSION => {
                if upgrade_type == UPGRADE {
                    self.quorum
                        .upgrade_kraft_version(facts.epoch, level, validate_only)
                        .await?;
                    // A record so that there is an offset to wait on.
                    records.push(MetadataRecord::no_op());
                    Ok(())
                } else if level != current {
                    Err(invalid_update_version(
                        name,
                        level,
                        "Can't downgrade the version of this feature.",
                    ))
                } else {
                    Ok(())
                }
            }
            _ => {
                let Some(spec) = FeatureSpec::find(name) else {
                    return Err(invalid_update_version(
                        name,
                        level,
                        &format!("Feature {name} not found."),
                    ));
                };
                let fl = spec
                    .level(level, true)
                    .map_err(|m| invalid_update_version(name, level, &m))?;
                validate_feature_dependencies(name, fl, proposed)
                    .map_err(|m| invalid_update_version(name, level, &m))?;
                records.push(MetadataRecord::feature_level(name, level));
                Ok(())
            }
        }
    }

    /// `FeatureControlManager.reasonNotSupported`: the local controller,
    /// then every registered broker, then every other registered
    /// controller (when metadata.version has
    /// registrations), then every voter must be registered — the static
    /// voters, and (as on Kafka trunk, KAFKA-20865) every id of the latest
    /// voter set.
    fn reason_not_supported(
        &self,
        image: &MetadataImage,
        facts: &QuorumFacts,
        mv: MetadataVersion,
        name: &str,
        level: i16,
    ) -> Option<String> {
        let node = self.settings.node_id;
        if let Some(r) = reason_not_supported(
            &format!("Local controller {node}"),
            self.local_range(name),
            level,
        ) {
            return Some(r);
        }
        // Kafka checks every registered broker, fenced or not, before the
        // other controllers.
        let brokers = JavaHashMap::from_keys(image.cluster().brokers().map(|b| b.id()));
        for id in brokers.iter() {
            let Some(b) = image.cluster().broker(*id) else {
                continue;
            };
            if let Some(r) = reason_not_supported(
                &format!("Broker {id}"),
                b.supported_range(name).unwrap_or(VersionRange::DISABLED),
                level,
            ) {
                return Some(r);
            }
        }
        if mv.is_controller_registration_supported() {
            let order = JavaHashMap::from_keys(image.controllers().map(|c| c.id));
            let mut found = vec![node];
            for id in order.iter() {
                if *id == node {
                    continue;
                }
                let Some(c) = image.controller(*id) else {
                    continue;
                };
                if let Some(r) = reason_not_supported(
                    &format!("Controller {id}"),
                    c.supported_range(name),
                    level,
                ) {
                    return Some(r);
                }
                found.push(*id);
            }
            let voters = facts.voters.iter().map(|v| &v.key.id);
            for id in self.settings.static_voter_ids.iter().chain(voters) {
                if !found.contains(id) {
                    return Some(format!(
                        "controller {id} has not registered, and may not support this feature"
                    ));
                }
            }
        }
        None
    }
}
enum UpdateFailure {
    /// A feature update was refused (wrapped in "The update failed for all features ...").
    Feature(ApiError),
    /// The request as a whole failed (not the controller, ...).
    Request(ApiError),
}
