//! Validation of a CLIENT_METRICS resource's configs, as Kafka's
//! `ClientMetricsConfigs.validate` does it.

use std::collections::HashMap;

use super::config_def::{parse_checked, Check, Kind, Parsed};
use super::java_text::{java_split, java_trim};
use super::{invalid_config, invalid_request};
use crate::handlers::ApiError;

/// The CLIENT_METRICS definition (`ClientMetricsConfigs`), in order.
const CLIENT_METRICS_CONFIGS: &[(&str, Kind, Check)] = &[
    ("metrics", Kind::List, Check::AnyList),
    ("interval.ms", Kind::Int, Check::None),
    ("match", Kind::List, Check::AnyList),
];

/// `ClientMetricsConfigs` client match parameters.
const CLIENT_MATCH_PARAMS: [&str; 6] = [
    "client_instance_id",
    "client_id",
    "client_software_name",
    "client_software_version",
    "client_source_address",
    "client_source_port",
];

/// `ClientMetricsConfigs.validate`. The value of a match pattern is not
/// compiled as a Java regular expression here.
pub(super) fn validate_client_metrics(
    name: &str,
    names: &[String],
    configs: &HashMap<&str, &str>,
) -> Result<(), ApiError> {
    if name.is_empty() {
        return Err(invalid_request("Subscription name can't be empty"));
    }
    if let Some(unknown) = names.iter().find(|k| {
        !CLIENT_METRICS_CONFIGS
            .iter()
            .any(|(n, _, _)| *n == k.as_str())
    }) {
        return Err(invalid_request(format!(
            "Unknown client metrics configuration: {unknown}"
        )));
    }
    let mut parsed: HashMap<&str, Parsed> = HashMap::new();
    for (key, kind, check) in CLIENT_METRICS_CONFIGS {
        if let Some(raw) = configs.get(key) {
            parsed.insert(key, parse_checked(key, *kind, *check, raw)?);
        }
    }
    if let Some(Parsed::Int(interval)) = parsed.get("interval.ms") {
        if !(100..=3_600_000).contains(interval) {
            return Err(invalid_request(format!(
                "Invalid value {interval} for interval.ms, interval must be between 100 and 3600000 (1 hour)"
            )));
        }
    }
    if let Some(Parsed::List(patterns)) = parsed.get("match") {
        for pattern in patterns {
            let pair = java_split(pattern, '=');
            let valid = pair.len() == 2 && CLIENT_MATCH_PARAMS.contains(&java_trim(pair[0]));
            if !valid {
                return Err(invalid_config(format!(
                    "Illegal client matching pattern: {pattern}"
                )));
            }
        }
    }
    Ok(())
}
