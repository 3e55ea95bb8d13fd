//! Envelope (58): a request a broker forwards on behalf of a client
//! (Kafka's `EnvelopeUtils.handleEnvelopeRequest` and the envelope branch
//! of `Request.buildResponseSend`).
//!
//! Checks in Kafka's order: the client principal must deserialize
//! (PRINCIPAL_DESERIALIZATION_FAILURE), the client address must be an IPv4
//! or IPv6 address (INVALID_REQUEST), the forwarded header must parse
//! (UNSUPPORTED_VERSION), its API must be forwardable (INVALID_REQUEST) and
//! its body must parse (UNSUPPORTED_VERSION; also for an API or version
//! this controller does not serve). The forwarded request is then handled
//! as if the client had sent it, from the client's address, and its
//! response (header and body) travels back inside the envelope response;
//! a NOT_CONTROLLER answer becomes the envelope's own error instead, so the
//! broker rediscovers the active controller and forwards again.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

use bytes::{Bytes, BytesMut};
use kraft_protocol::acl::{AclOperation, KafkaPrincipal};
use kraft_protocol::header::decode_request_header;
use kraft_protocol::messages::default_principal_data::DefaultPrincipalData;
use kraft_protocol::messages::envelope_request::EnvelopeRequest;
use kraft_protocol::messages::envelope_response::EnvelopeResponse;
use kraft_protocol::messages::response_header::ResponseHeader;
use kraft_protocol::{ApiKey, Decodable, Encodable, ErrorCode, Message, RequestBody, ResponseBody};

use super::authz::Access;
use super::Controller;
use crate::server::{RequestContext, RequestHandler};

/// The keys of the APIs Kafka 4.4 lets a broker forward
/// (`ApiKeys.forwardable`): CreateTopics, DeleteTopics, CreateAcls,
/// DeleteAcls, AlterConfigs, CreatePartitions, the delegation token writes,
/// ElectLeaders, IncrementalAlterConfigs, the partition reassignments,
/// AlterClientQuotas, AlterUserScramCredentials, DescribeQuorum,
/// UpdateFeatures, UnregisterBroker, AllocateProducerIds, AddRaftVoter,
/// RemoveRaftVoter and UnregisterController.
pub const FORWARDABLE_API_KEYS: &[i16] = &[
    19, 20, 30, 31, 33, 37, 38, 39, 40, 43, 44, 45, 46, 49, 51, 55, 57, 64, 67, 80, 81, 94,
];

fn envelope_error(code: ErrorCode, why: &str) -> EnvelopeResponse {
    tracing::debug!(code = code.name(), "envelope refused: {why}");
    EnvelopeResponse {
        error_code: code.code(),
        response_data: None,
        ..Default::default()
    }
}

/// Kafka's `DefaultKafkaPrincipalBuilder.deserialize`: a 16-bit version,
/// then DefaultPrincipalData at that version.
fn parse_principal(bytes: Option<&Bytes>) -> Result<DefaultPrincipalData, String> {
    let bytes = bytes.ok_or("no principal")?;
    if bytes.len() < 2 {
        return Err("truncated principal".into());
    }
    let version = i16::from_be_bytes([bytes[0], bytes[1]]);
    if !DefaultPrincipalData::is_valid_version(version) {
        return Err(format!("Invalid principal data version {version}"));
    }
    DefaultPrincipalData::decode(&mut bytes.slice(2..), version).map_err(|e| e.to_string())
}

/// Kafka's `InetAddress.getByAddress`.
fn parse_address(bytes: &[u8]) -> Option<IpAddr> {
    match bytes.len() {
        4 => Some(IpAddr::V4(Ipv4Addr::new(
            bytes[0], bytes[1], bytes[2], bytes[3],
        ))),
        16 => {
            let mut octets = [0u8; 16];
            octets.copy_from_slice(bytes);
            Some(IpAddr::V6(Ipv6Addr::from(octets)))
        }
        _ => None,
    }
}

/// Whether a forwarded API's response carries NOT_CONTROLLER anywhere
/// (Kafka looks it up in the response's error counts).
fn says_not_controller(response: &ResponseBody) -> bool {
    let code = ErrorCode::NotController.code();
    match response {
        ResponseBody::DescribeQuorum(r) => r.error_code == code,
        ResponseBody::UpdateFeatures(r) => r.error_code == code,
        ResponseBody::UnregisterBroker(r) => r.error_code == code,
        ResponseBody::AddRaftVoter(r) => r.error_code == code,
        ResponseBody::RemoveRaftVoter(r) => r.error_code == code,
        ResponseBody::UnregisterController(r) => r.error_code == code,
        ResponseBody::AllocateProducerIds(r) => r.error_code == code,
        ResponseBody::CreateDelegationToken(r) => r.error_code == code,
        ResponseBody::RenewDelegationToken(r) => r.error_code == code,
        ResponseBody::ExpireDelegationToken(r) => r.error_code == code,
        ResponseBody::CreateTopics(r) => r.topics.iter().any(|t| t.error_code == code),
        ResponseBody::CreateAcls(r) => r.results.iter().any(|t| t.error_code == code),
        ResponseBody::DeleteAcls(r) => r.filter_results.iter().any(|t| t.error_code == code),
        ResponseBody::DeleteTopics(r) => r.responses.iter().any(|t| t.error_code == code),
        ResponseBody::CreatePartitions(r) => r.results.iter().any(|t| t.error_code == code),
        ResponseBody::IncrementalAlterConfigs(r) => {
            r.responses.iter().any(|t| t.error_code == code)
        }
        ResponseBody::AlterConfigs(r) => r.responses.iter().any(|t| t.error_code == code),
        ResponseBody::AlterClientQuotas(r) => r.entries.iter().any(|e| e.error_code == code),
        ResponseBody::AlterUserScramCredentials(r) => {
            r.results.iter().any(|u| u.error_code == code)
        }
        ResponseBody::AlterPartitionReassignments(r) => {
            r.error_code == code
                || r.responses
                    .iter()
                    .any(|t| t.partitions.iter().any(|p| p.error_code == code))
        }
        ResponseBody::ListPartitionReassignments(r) => r.error_code == code,
        ResponseBody::ElectLeaders(r) => {
            r.error_code == code
                || r.replica_election_results
                    .iter()
                    .any(|t| t.partition_result.iter().any(|p| p.error_code == code))
        }
        _ => false,
    }
}

impl Controller {
    /// Envelope: unwraps, handles and wraps a forwarded request.
    ///
    /// The sender needs CLUSTER_ACTION on the cluster (else the envelope is
    /// answered CLUSTER_AUTHORIZATION_FAILED); the forwarded request is then
    /// authorized as the client the envelope names.
    pub(crate) async fn envelope(
        &self,
        access: &Access<'_>,
        ctx: &RequestContext,
        request: EnvelopeRequest,
    ) -> EnvelopeResponse {
        if let Err(refusal) = access.require_cluster(ApiKey::Envelope, AclOperation::ClusterAction)
        {
            let e = refusal.api_error();
            return envelope_error(
                e.code,
                &format!(
                    "Principal {}:{} does not have required CLUSTER_ACTION for envelope",
                    ctx.principal.principal_type, ctx.principal.name
                ),
            );
        }
        let started = std::time::Instant::now();
        let response = self.envelope_inner(ctx, request).await;
        tracing::debug!(
            error_code = response.error_code,
            micros = started.elapsed().as_micros() as u64,
            "envelope answered"
        );
        response
    }

    async fn envelope_inner(
        &self,
        ctx: &RequestContext,
        request: EnvelopeRequest,
    ) -> EnvelopeResponse {
        let principal = match parse_principal(request.request_principal.as_ref()) {
            Ok(p) => p,
            Err(e) => {
                return envelope_error(
                    ErrorCode::PrincipalDeserializationFailure,
                    &format!("Failed to deserialize client principal from envelope: {e}"),
                )
            }
        };
        let Some(client) = parse_address(&request.client_host_address) else {
            return envelope_error(
                ErrorCode::InvalidRequest,
                "Failed to parse client address from envelope",
            );
        };
        let mut data = request.request_data.clone();
        let Ok(parsed) = decode_request_header(&mut data) else {
            return envelope_error(
                ErrorCode::UnsupportedVersion,
                "Failed to parse request header from envelope",
            );
        };
        let Some(api_key) = parsed.api_key else {
            return envelope_error(
                ErrorCode::UnsupportedVersion,
                "Failed to parse request header from envelope",
            );
        };
        if !FORWARDABLE_API_KEYS.contains(&api_key.id()) {
            return envelope_error(
                ErrorCode::InvalidRequest,
                &format!(
                    "API {} is not enabled or is not eligible for forwarding",
                    api_key.kafka_name()
                ),
            );
        }
        let version = parsed.header.request_api_version;
        let served = self
            .served_apis()
            .iter()
            .any(|r| r.api_key == api_key && r.min_version <= version && version <= r.max_version);
        let body = match RequestBody::decode(api_key, version, &mut data) {
            Ok(body) if served => body,
            _ => {
                return envelope_error(
                    ErrorCode::UnsupportedVersion,
                    &format!(
                        "Failed to parse forwarded request with header {:?}",
                        parsed.header
                    ),
                )
            }
        };
        tracing::debug!(
            api = api_key.kafka_name(),
            version,
            principal = %format!("{}:{}", principal.r#type, principal.name),
            %client,
            "forwarded request"
        );
        let correlation_id = parsed.header.correlation_id;
        let inner = RequestContext {
            header: parsed.header,
            api_key,
            api_version: version,
            listener_name: ctx.listener_name.clone(),
            peer_addr: Some(SocketAddr::new(client, 0)),
            principal: KafkaPrincipal::new(
                principal.r#type.as_str().to_owned(),
                principal.name.as_str().to_owned(),
            ),
            // A forwarded IncrementalAlterConfigs may add cordoned log
            // directories (Kafka checks whether the request was forwarded).
            forwarded: true,
            token_authenticated: principal.token_authenticated,
            security_protocol: ctx.security_protocol,
        };
        let handled = self.handle(inner, body).await;
        let response = match handled {
            Ok(r) if r.api_key() == api_key => r,
            _ => {
                return envelope_error(
                    ErrorCode::UnknownServerError,
                    "the forwarded request was not answered",
                )
            }
        };
        if says_not_controller(&response) {
            return envelope_error(ErrorCode::NotController, "not the active controller");
        }
        let mut out = BytesMut::new();
        let header = ResponseHeader {
            correlation_id,
            ..Default::default()
        };
        let encoded = header
            .encode(&mut out, api_key.response_header_version(version))
            .and_then(|()| response.encode(&mut out, version));
        if let Err(e) = encoded {
            tracing::error!(error = %e, "cannot encode a forwarded response");
            return envelope_error(ErrorCode::UnknownServerError, "cannot encode the response");
        }
        EnvelopeResponse {
            response_data: Some(out.freeze()),
            error_code: 0,
            ..Default::default()
        }
    }
}
