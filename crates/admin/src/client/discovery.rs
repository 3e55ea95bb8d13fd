//! Discovery of the active controller (bootstrap controllers): ask the
//! bootstrap controllers, and the controllers learned since, with
//! DescribeCluster until one names the active controller, skipping those
//! that cannot answer yet.

use kraft_protocol::ErrorCode;

use super::cluster::cluster_description;
use super::retry::{Attempt, Failure, Retry};
use super::Admin;
use crate::config::HostPort;
use crate::error::AdminError;

impl Admin {
    pub(super) fn forget_active_controller(&self) {
        self.meta().active = None;
    }

    /// Sends DescribeCluster (EndpointType 2) to the bootstrap controllers
    /// (and controllers learned earlier) until one answers, and caches the
    /// active controller it names.
    pub(super) async fn discover_active_controller(
        &self,
        retry: &Retry,
    ) -> Attempt<(i32, HostPort)> {
        let mut candidates: Vec<HostPort> = self.inner.config.bootstrap.addresses().to_vec();
        let (start, known) = {
            let meta = self.meta();
            (meta.next_bootstrap, meta.controllers.clone())
        };
        if !candidates.is_empty() {
            let n = candidates.len();
            candidates.rotate_left(start % n);
        }
        for node in known {
            if let Ok(port) = u16::try_from(node.port) {
                let hp = HostPort {
                    host: node.host.clone(),
                    port,
                };
                if !candidates.contains(&hp) {
                    candidates.push(hp);
                }
            }
        }
        // The last error of a controller that may answer later, and the
        // first final answer: a final answer from one controller does not
        // end the call while another may still name the active controller.
        let mut last: Option<AdminError> = None;
        let mut fatal: Option<AdminError> = None;
        for addr in &candidates {
            let conn = match self.connection(addr, retry).await {
                Ok(c) => c,
                Err(e) if e.is_retriable() => {
                    tracing::debug!(addr = %addr, error = %e, "bootstrap controller unreachable");
                    last = Some(e);
                    continue;
                }
                Err(e) => return Err(e.into()),
            };
            let response = match self.send_describe_cluster(&conn, retry, false).await {
                Ok(r) => r,
                Err(e) if not_ready_yet(&e) => {
                    tracing::debug!(addr = %addr, error = %e, "controller cannot answer yet");
                    last = Some(e);
                    continue;
                }
                Err(e) => {
                    tracing::debug!(addr = %addr, error = %e, "controller refused DescribeCluster");
                    fatal.get_or_insert(e);
                    continue;
                }
            };
            let description = cluster_description(&response);
            let mut meta = self.meta();
            meta.controllers = description.nodes.clone();
            match description.controller {
                Some(c) => {
                    let port = u16::try_from(c.port).map_err(|_| {
                        Failure::fatal(AdminError::UnexpectedResponse(format!(
                            "controller {} has an invalid port {}",
                            c.id, c.port
                        )))
                    })?;
                    let hp = HostPort {
                        host: c.host.clone(),
                        port,
                    };
                    tracing::debug!(id = c.id, addr = %hp, "active controller");
                    meta.active = Some((c.id, hp.clone()));
                    return Ok((c.id, hp));
                }
                None => {
                    last = Some(AdminError::NoActiveController(format!(
                        " ({} reports controller id {})",
                        conn.addr(),
                        response.controller_id
                    )));
                }
            }
        }
        {
            let mut meta = self.meta();
            meta.next_bootstrap = meta.next_bootstrap.wrapping_add(1);
        }
        match (last, fatal) {
            // Every controller that answered refused for good.
            (None, Some(e)) => Err(Failure::fatal(e)),
            // Some controller may answer later: retry within the deadline.
            (Some(e), _) => Err(Failure::retry(e)),
            (None, None) => Err(Failure::fatal(AdminError::Config(
                "no bootstrap controllers".into(),
            ))),
        }
    }
}

/// Whether a DescribeCluster failure from one controller only says that it
/// cannot answer yet, so that another controller (or the same one later)
/// should be asked: any retriable error, and the `UNSUPPORTED_VERSION`
/// "There is no finalized MetadataVersion, ..." a Kafka 4.4 controller
/// answers while its image is not loaded (it restarted moments ago; every
/// KRaft cluster has a finalized metadata.version).
pub(super) fn not_ready_yet(e: &AdminError) -> bool {
    match e {
        AdminError::Api(a) if a.code == ErrorCode::UnsupportedVersion => a
            .message
            .as_deref()
            .is_some_and(|m| m.starts_with("There is no finalized MetadataVersion")),
        other => other.is_retriable(),
    }
}

#[cfg(all(test, feature = "test-util"))]
mod tests {
    use kraft_protocol::messages::describe_cluster_response::DescribeClusterBroker;
    use kraft_protocol::messages::update_features_response::UpdateFeaturesResponse;
    use kraft_protocol::{RequestBody, ResponseBody};

    use std::collections::BTreeMap;
    use std::time::Duration;

    use kraft_protocol::messages::describe_cluster_response::DescribeClusterResponse;
    use kraft_protocol::{ApiKey, StrBytes};

    use super::*;
    use crate::config::AdminConfig;
    use crate::features::{FeatureUpdate, UpgradeType};
    use crate::testing::{kraft_rs_versions, FakeNode, Reply};
    use crate::types::UpdateFeaturesOptions;

    const NO_MV: &str =
        "There is no finalized MetadataVersion, so direct-to-controller communication is not supported.";

    fn refusal(code: ErrorCode, message: &str) -> Reply {
        Reply::Respond(ResponseBody::DescribeCluster(DescribeClusterResponse {
            error_code: code.code(),
            error_message: Some(StrBytes::from(message.to_string())),
            endpoint_type: 2,
            ..Default::default()
        }))
    }

    /// A controller (id 2) that names itself active and accepts UpdateFeatures.
    async fn active() -> FakeNode {
        let node = FakeNode::start(kraft_rs_versions(), |_| Reply::Close).await;
        let port = i32::from(node.port());
        node.set_handler(move |r| match &r.body {
            RequestBody::DescribeCluster(_) => {
                Reply::Respond(ResponseBody::DescribeCluster(DescribeClusterResponse {
                    endpoint_type: 2,
                    cluster_id: StrBytes::from_static("MkU3OEVBNTcwNTJENDM2Qg"),
                    controller_id: 2,
                    brokers: vec![DescribeClusterBroker {
                        broker_id: 2,
                        host: StrBytes::from_static("127.0.0.1"),
                        port,
                        ..Default::default()
                    }]
                    .into(),
                    ..Default::default()
                }))
            }
            RequestBody::UpdateFeatures(_) => Reply::Respond(ResponseBody::UpdateFeatures(
                UpdateFeaturesResponse::default(),
            )),
            _ => Reply::Close,
        });
        node
    }

    fn config(nodes: &[&FakeNode]) -> AdminConfig {
        let list: Vec<String> = nodes.iter().map(|n| n.address()).collect();
        let mut c = AdminConfig::bootstrap_controllers(&list.join(",")).expect("config");
        c.default_api_timeout = Duration::from_secs(5);
        c.retry_backoff = Duration::from_millis(10);
        c.retry_backoff_max = Duration::from_millis(50);
        c
    }

    fn group_version(level: i16) -> BTreeMap<String, FeatureUpdate> {
        BTreeMap::from([(
            "group.version".to_string(),
            FeatureUpdate {
                max_version_level: level,
                upgrade_type: UpgradeType::Upgrade,
            },
        )])
    }

    #[tokio::test]
    async fn a_bootstrap_controller_that_cannot_answer_yet_is_skipped() {
        let good = active().await;
        for (code, message) in [
            (ErrorCode::UnsupportedVersion, NO_MV),
            (ErrorCode::NotController, "not loaded yet"),
        ] {
            let starting = FakeNode::start(kraft_rs_versions(), move |r| match &r.body {
                RequestBody::DescribeCluster(_) => refusal(code, message),
                _ => Reply::Close,
            })
            .await;
            let admin = Admin::new(config(&[&starting, &good]));
            let results = admin
                .update_features(&group_version(1), UpdateFeaturesOptions::default())
                .await
                .expect("the other controller answers");
            assert!(results.values().all(|r| r.is_ok()), "{results:?}");
            assert_eq!(starting.received_of(ApiKey::DescribeCluster).len(), 1);
            // DescribeCluster on the active controller works the same way.
            let admin = Admin::new(config(&[&starting, &good]));
            let d = admin.describe_cluster().await.expect("described");
            assert_eq!(d.controller.map(|c| c.id), Some(2));
        }
    }

    #[tokio::test]
    async fn the_call_waits_while_no_controller_can_answer_yet() {
        let starting = FakeNode::start(kraft_rs_versions(), |r| match &r.body {
            RequestBody::DescribeCluster(_) => refusal(ErrorCode::UnsupportedVersion, NO_MV),
            _ => Reply::Close,
        })
        .await;
        let mut c = config(&[&starting]);
        c.default_api_timeout = Duration::from_millis(400);
        let e = Admin::new(c)
            .update_features(&group_version(1), UpdateFeaturesOptions::default())
            .await
            .expect_err("nobody answers");
        assert!(matches!(e, AdminError::Timeout { .. }), "{e}");
        assert!(starting.received_of(ApiKey::DescribeCluster).len() > 1);
    }

    #[tokio::test]
    async fn a_final_refusal_ends_the_call_once_every_controller_refused() {
        let old =
            "Direct-to-controller communication is not supported with the current MetadataVersion.";
        let a = FakeNode::start(kraft_rs_versions(), move |r| match &r.body {
            RequestBody::DescribeCluster(_) => refusal(ErrorCode::UnsupportedVersion, old),
            _ => Reply::Close,
        })
        .await;
        let b = FakeNode::start(kraft_rs_versions(), move |r| match &r.body {
            RequestBody::DescribeCluster(_) => refusal(ErrorCode::UnsupportedVersion, old),
            _ => Reply::Close,
        })
        .await;
        let e = Admin::new(config(&[&a, &b]))
            .update_features(&group_version(1), UpdateFeaturesOptions::default())
            .await
            .expect_err("refused");
        assert!(
            matches!(&e, AdminError::Api(api) if api.code == ErrorCode::UnsupportedVersion && api.message.as_deref() == Some(old)),
            "{e}"
        );
        assert_eq!(a.received_of(ApiKey::DescribeCluster).len(), 1);
        assert_eq!(b.received_of(ApiKey::DescribeCluster).len(), 1);
    }
}
