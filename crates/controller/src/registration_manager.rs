//! The registration manager: registers this controller with the active
//! controller (ControllerRegistration, Kafka's
//! `ControllerRegistrationManager`), and again whenever its registration
//! disappears from the image (KIP-1312's safety net).

use std::sync::Arc;
use std::time::Duration;

use kraft_protocol::messages::controller_registration_request::ControllerRegistrationRequest;
use kraft_protocol::messages::controller_registration_response::ControllerRegistrationResponse;
use kraft_protocol::{ApiKey, RequestBody, ResponseBody, Uuid};
use kraft_raft::{Address, Transport};

use crate::handlers::{Controller, RaftQuorum};
use crate::image::SharedImage;

/// Registers this controller with the active controller, and again whenever
/// its registration disappears from the image (KIP-1312's safety net).
pub(crate) fn spawn_registration(
    controller: Arc<Controller>,
    quorum: Arc<dyn RaftQuorum>,
    image: SharedImage,
    node_id: i32,
    listener: String,
    endpoints: Vec<(String, String, u16, crate::config::SecurityProtocol)>,
    security: kraft_security::client::ClientSecurity,
) -> tokio::task::JoinHandle<()> {
    let incarnation = Uuid::new_v4();
    let transport = Transport::new("controller-registration".into(), Duration::from_secs(5))
        .with_security(security);
    tokio::spawn(async move {
        let mut backoff = Duration::from_millis(200);
        let mut last_leader = None;
        loop {
            tokio::time::sleep(backoff).await;
            let registered = image
                .read()
                .controller(node_id)
                .is_some_and(|r| r.incarnation_id == incarnation);
            if registered {
                backoff = Duration::from_millis(500);
                continue;
            }
            let facts = quorum.facts();
            let Some(leader) = facts.leader_id else {
                continue;
            };
            let Some(voter) = facts.voters.iter().find(|v| v.key.id == leader) else {
                continue;
            };
            let Some(ep) = voter.endpoints.iter().find(|e| e.name == listener) else {
                continue;
            };
            if last_leader != Some(leader) {
                // NodeToControllerRequestThread's wording.
                tracing::info!(
                    leader,
                    "Recorded new KRaft controller, from now on will use node {}:{} (id: {leader} rack: null)",
                    ep.host,
                    ep.port
                );
                last_leader = Some(leader);
            }
            let request = controller.registration_request(incarnation, &endpoints);
            let address = Address::new(ep.host.as_str(), ep.port);
            match send_registration(&transport, &address, request).await {
                Ok(r) if r.error_code == 0 => {
                    tracing::info!(leader, "registered with the active controller");
                    backoff = Duration::from_millis(500);
                }
                Ok(r) => {
                    tracing::debug!(code = r.error_code, "registration refused; retrying");
                    backoff = Duration::from_millis(1000);
                }
                Err(e) => {
                    tracing::debug!(error = %e, "registration failed; retrying");
                    backoff = Duration::from_millis(1000);
                }
            }
        }
    })
}

async fn send_registration(
    transport: &Transport,
    address: &Address,
    request: ControllerRegistrationRequest,
) -> Result<ControllerRegistrationResponse, String> {
    let response = transport
        .send_wire(address, ApiKey::ControllerRegistration, |_| {
            RequestBody::ControllerRegistration(request)
        })
        .await?;
    match response {
        ResponseBody::ControllerRegistration(r) => Ok(r),
        other => Err(format!("unexpected answer {:?}", other.api_key())),
    }
}
