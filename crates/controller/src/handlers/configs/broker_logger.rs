//! BROKER_LOGGER resources: this node's loggers ([`crate::loggers`]),
//! altered as Kafka's `RuntimeLoggerManager` does, outside the write.

use kraft_protocol::messages::incremental_alter_configs_request::AlterConfigsResource;

use super::java_text::java_parse_int;
use super::operations::OpType;
use super::{invalid_config, invalid_request};
use crate::handlers::{ApiError, Controller};

use crate::loggers::ROOT_LOGGER;
/// Kafka's `LogLevelConfig.VALID_LOG_LEVELS`, sorted as its messages list them.
const VALID_LOG_LEVELS: [&str; 6] = ["DEBUG", "ERROR", "FATAL", "INFO", "TRACE", "WARN"];

impl Controller {
    /// Kafka's `RuntimeLoggerManager.applyChangesForResource` for this
    /// node's loggers: every change is checked (the node id, the logger's
    /// existence, the level), then, unless `validate_only`, applied in
    /// order to the process's log filter. As in Kafka, a change that cannot
    /// be applied is logged and the answer is still a success.
    pub(super) fn alter_broker_logger(
        &self,
        resource: &AlterConfigsResource,
        validate_only: bool,
    ) -> Result<(), ApiError> {
        let name = resource.resource_name.as_str();
        let Some(id) = java_parse_int(name) else {
            return Err(invalid_request(format!(
                "Node id must be an integer, but it is: {name}"
            )));
        };
        if id != self.settings.node_id {
            return Err(invalid_request(format!(
                "Unexpected node id. Expected {}, but received {id}",
                self.settings.node_id
            )));
        }
        let exists = |logger: &str| {
            if self.loggers.exists(logger) {
                Ok(())
            } else {
                Err(invalid_config(format!("Logger {logger} does not exist!")))
            }
        };
        for op in resource.configs.iter() {
            let logger = op.name.as_str();
            match OpType::of(op.config_operation) {
                Some(OpType::Set) => {
                    exists(logger)?;
                    let level = op.value.as_ref().map(|v| v.as_str());
                    if !level.is_some_and(|l| VALID_LOG_LEVELS.contains(&l)) {
                        return Err(invalid_config(format!(
                            "Cannot set the log level of {logger} to {} as it is not a supported log level. Valid log levels are {}",
                            level.unwrap_or("null"),
                            VALID_LOG_LEVELS.join(", ")
                        )));
                    }
                }
                Some(OpType::Delete) => {
                    exists(logger)?;
                    if logger == ROOT_LOGGER {
                        return Err(invalid_request(
                            "Removing the log level of the root logger is not allowed",
                        ));
                    }
                }
                Some(op @ (OpType::Append | OpType::Subtract)) => {
                    return Err(invalid_request(format!(
                        "{} operation is not allowed for the BROKER_LOGGER resource",
                        op.name()
                    )));
                }
                None => {
                    return Err(invalid_request(format!(
                        "Unknown operation type {} is not allowed for the BROKER_LOGGER resource",
                        op.config_operation
                    )));
                }
            }
        }
        if !validate_only {
            for op in resource.configs.iter() {
                let logger = op.name.as_str();
                if op.config_operation == 0 {
                    let level = op.value.as_ref().map_or("null", |v| v.as_str());
                    if self.loggers.set(logger, level) {
                        tracing::warn!("Updated the log level of {logger} to {level}");
                    } else {
                        tracing::error!("Failed to update the log level of {logger} to {level}");
                    }
                } else if self.loggers.unset(logger) {
                    tracing::warn!("Unset the log level of {logger}");
                } else {
                    tracing::error!("Failed to unset the log level of {logger}");
                }
            }
        }
        Ok(())
    }
}
