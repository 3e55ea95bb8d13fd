//! The calls about cluster membership: DescribeCluster (also what
//! discovery asks the bootstrap controllers), UnregisterBroker and
//! UnregisterController.

use kraft_protocol::messages::describe_cluster_request::DescribeClusterRequest;
use kraft_protocol::messages::describe_cluster_response::DescribeClusterResponse;
use kraft_protocol::messages::unregister_broker_request::UnregisterBrokerRequest;
use kraft_protocol::messages::unregister_controller_request::UnregisterControllerRequest;
use kraft_protocol::{ApiKey, ErrorCode, Request, StrBytes};

use super::discovery::not_ready_yet;
use super::retry::{Failure, Retry};
use super::Admin;
use crate::connection::Connection;
use crate::error::{AdminError, ApiError, Result};
use crate::types::{ClusterDescription, ClusterNode, DescribeClusterOptions, EndpointType};

impl Admin {
    /// Describes the cluster: its id, the active controller and the
    /// registered controllers (bootstrap controllers) or the brokers.
    pub async fn describe_cluster(&self) -> Result<ClusterDescription> {
        self.describe_cluster_with(DescribeClusterOptions::default())
            .await
    }

    /// [`Admin::describe_cluster`] with options (fenced brokers, timeout).
    pub async fn describe_cluster_with(
        &self,
        options: DescribeClusterOptions,
    ) -> Result<ClusterDescription> {
        if options.include_fenced_brokers && self.using_controllers() {
            return Err(AdminError::InvalidArgument(
                "Cannot request fenced brokers from controller endpoint".into(),
            ));
        }
        let mut retry = self.retry("listNodes", options.timeout);
        loop {
            let attempt = async {
                let conn = self.target(&retry).await?;
                let response = self
                    .send_describe_cluster(&conn, &retry, options.include_fenced_brokers)
                    .await
                    .map_err(|e| match e {
                        // A controller that cannot answer yet (restarting):
                        // ask the active one again, or another.
                        AdminError::Api(_) if self.using_controllers() && not_ready_yet(&e) => {
                            Failure::retry(e)
                        }
                        // Kafka fails the call on any other error code in the response.
                        AdminError::Api(_) => Failure::fatal(e),
                        other => other.into(),
                    })?;
                let description = cluster_description(&response);
                if self.using_controllers() {
                    self.meta().controllers = description.nodes.clone();
                }
                Ok(description)
            }
            .await;
            if let Some(done) = self.next_step(&mut retry, attempt).await {
                return done;
            }
        }
    }

    pub(super) async fn send_describe_cluster(
        &self,
        conn: &Connection,
        retry: &Retry,
        include_fenced_brokers: bool,
    ) -> Result<DescribeClusterResponse> {
        let version = conn.version_for(ApiKey::DescribeCluster)?;
        let controllers = self.using_controllers();
        if controllers && version < 1 {
            return Err(AdminError::unsupported(
                ApiKey::DescribeCluster,
                &conn.addr().to_string(),
                " v1 or later, which bootstrap controllers need",
            ));
        }
        if include_fenced_brokers && version < 2 {
            return Err(AdminError::unsupported(
                ApiKey::DescribeCluster,
                &conn.addr().to_string(),
                " v2 or later, which listing fenced brokers needs",
            ));
        }
        let request = DescribeClusterRequest {
            endpoint_type: if controllers { 2 } else { 1 },
            include_fenced_brokers,
            ..Default::default()
        };
        let response = conn
            .send(&request, version, retry.request_timeout(&self.inner.config))
            .await?;
        if response.error_code != 0 {
            return Err(ApiError::from_wire(
                response.error_code,
                response.error_message.as_deref(),
            )
            .into());
        }
        Ok(response)
    }

    /// Removes a broker's registration (UnregisterBroker), as Kafka's
    /// `Admin.unregisterBroker`.
    ///
    /// With bootstrap servers the request goes to a bootstrap broker, which
    /// forwards it to the active controller; with bootstrap controllers it
    /// goes to the active controller. `REQUEST_TIMED_OUT` is retried until
    /// the deadline, as in Kafka; `NOT_CONTROLLER` is retried too (after
    /// rediscovering the active controller; a request refused that way was
    /// not applied). Every other error fails the call, e.g.
    /// `BROKER_ID_NOT_REGISTERED` for an id without a registration. A node
    /// without the API fails with [`AdminError::UnsupportedVersion`].
    pub async fn unregister_broker(&self, broker_id: i32) -> Result<()> {
        let request = UnregisterBrokerRequest {
            broker_id,
            ..Default::default()
        };
        self.unregister("unregisterBroker", request, |r| {
            (r.error_code, r.error_message.clone())
        })
        .await
    }

    /// Removes a controller's registration (KIP-1312, UnregisterController).
    ///
    /// `REQUEST_TIMED_OUT` is retried until the deadline, as in Kafka;
    /// `NOT_CONTROLLER` is retried too (after rediscovering the active
    /// controller; a request refused that way was not applied). Every other
    /// error fails the call. A node without the API fails with
    /// [`AdminError::UnsupportedVersion`].
    pub async fn unregister_controller(&self, controller_id: i32) -> Result<()> {
        let request = UnregisterControllerRequest {
            controller_id,
            ..Default::default()
        };
        self.unregister("unregisterController", request, |r| {
            (r.error_code, r.error_message.clone())
        })
        .await
    }

    /// Sends an unregistration to the target until it succeeds, fails for
    /// good or the deadline passes (`REQUEST_TIMED_OUT` and `NOT_CONTROLLER`
    /// are retried).
    async fn unregister<R: Request>(
        &self,
        call: &'static str,
        request: R,
        error_of: impl Fn(&R::Response) -> (i16, Option<StrBytes>),
    ) -> Result<()> {
        let mut retry = self.retry(call, None);
        loop {
            let attempt = async {
                let conn = self.target(&retry).await?;
                let version = conn.version_for(R::API_KEY).map_err(Failure::fatal)?;
                let response = conn
                    .send(&request, version, retry.request_timeout(&self.inner.config))
                    .await?;
                let (code, message) = error_of(&response);
                self.check_code(code, message.as_ref(), &[ErrorCode::RequestTimedOut])
            }
            .await;
            if let Some(done) = self.next_step(&mut retry, attempt).await {
                return done;
            }
        }
    }
}

pub(super) fn cluster_description(response: &DescribeClusterResponse) -> ClusterDescription {
    let nodes: Vec<ClusterNode> = response
        .brokers
        .iter()
        .map(|b| ClusterNode {
            id: b.broker_id,
            host: b.host.to_string(),
            port: b.port,
            rack: b.rack.as_ref().map(|r| r.to_string()),
            is_fenced: b.is_fenced,
        })
        .collect();
    let controller = nodes
        .iter()
        .find(|n| n.id == response.controller_id)
        .cloned();
    ClusterDescription {
        cluster_id: response.cluster_id.to_string(),
        controller,
        nodes,
        endpoint_type: EndpointType::from_i8(response.endpoint_type),
    }
}
