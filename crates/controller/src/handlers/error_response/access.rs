//! `getErrorResponse` of the access-control and SASL APIs (Kafka 4.4's
//! request classes): ACLs, delegation tokens, client quotas, SCRAM
//! credentials, SaslHandshake and SaslAuthenticate.

use std::collections::BTreeSet;

use kraft_protocol::messages::alter_client_quotas_response::{self, AlterClientQuotasResponse};
use kraft_protocol::messages::alter_user_scram_credentials_response::{
    AlterUserScramCredentialsResponse, AlterUserScramCredentialsResult,
};
use kraft_protocol::messages::create_acls_response::{AclCreationResult, CreateAclsResponse};
use kraft_protocol::messages::create_delegation_token_response::CreateDelegationTokenResponse;
use kraft_protocol::messages::delete_acls_response::{DeleteAclsFilterResult, DeleteAclsResponse};
use kraft_protocol::messages::describe_acls_response::DescribeAclsResponse;
use kraft_protocol::messages::describe_client_quotas_response::DescribeClientQuotasResponse;
use kraft_protocol::messages::describe_delegation_token_response::DescribeDelegationTokenResponse;
use kraft_protocol::messages::describe_user_scram_credentials_response::{
    DescribeUserScramCredentialsResponse, DescribeUserScramCredentialsResult,
};
use kraft_protocol::messages::expire_delegation_token_response::ExpireDelegationTokenResponse;
use kraft_protocol::messages::renew_delegation_token_response::RenewDelegationTokenResponse;
use kraft_protocol::messages::sasl_authenticate_response::SaslAuthenticateResponse;
use kraft_protocol::messages::sasl_handshake_response::SaslHandshakeResponse;
use kraft_protocol::{RequestBody, ResponseBody};

use super::Failure;

/// The error response of the APIs this module covers; `None` for the
/// others (answered by the caller).
pub(super) fn error_response(
    request: &RequestBody,
    version: i16,
    failure: Failure<'_>,
) -> Option<ResponseBody> {
    let error_code = failure.code.code();
    Some(match request {
        RequestBody::SaslHandshake(_) => ResponseBody::SaslHandshake(SaslHandshakeResponse {
            error_code,
            mechanisms: Vec::new(),
        }),
        RequestBody::SaslAuthenticate(_) => {
            ResponseBody::SaslAuthenticate(SaslAuthenticateResponse {
                error_code,
                error_message: failure.api_error_message(),
                ..Default::default()
            })
        }
        RequestBody::DescribeAcls(_) => ResponseBody::DescribeAcls(DescribeAclsResponse {
            error_code,
            error_message: failure.api_error_message(),
            ..Default::default()
        }),
        RequestBody::CreateAcls(r) => ResponseBody::CreateAcls(CreateAclsResponse {
            results: r
                .creations
                .iter()
                .map(|_| AclCreationResult {
                    error_code,
                    error_message: failure.api_error_message(),
                    ..Default::default()
                })
                .collect(),
            ..Default::default()
        }),
        RequestBody::DeleteAcls(r) => ResponseBody::DeleteAcls(DeleteAclsResponse {
            filter_results: r
                .filters
                .iter()
                .map(|_| DeleteAclsFilterResult {
                    error_code,
                    error_message: failure.api_error_message(),
                    ..Default::default()
                })
                .collect(),
            ..Default::default()
        }),
        // `prepareResponse` with User:ANONYMOUS as owner (and requester,
        // a field from v3), no timestamps, an empty token.
        RequestBody::CreateDelegationToken(_) => {
            let mut response = CreateDelegationTokenResponse {
                error_code,
                principal_type: "User".into(),
                principal_name: "ANONYMOUS".into(),
                issue_timestamp_ms: -1,
                expiry_timestamp_ms: -1,
                max_timestamp_ms: -1,
                ..Default::default()
            };
            if version > 2 {
                response.token_requester_principal_type = "User".into();
                response.token_requester_principal_name = "ANONYMOUS".into();
            }
            ResponseBody::CreateDelegationToken(response)
        }
        RequestBody::RenewDelegationToken(_) => {
            ResponseBody::RenewDelegationToken(RenewDelegationTokenResponse {
                error_code,
                ..Default::default()
            })
        }
        RequestBody::ExpireDelegationToken(_) => {
            ResponseBody::ExpireDelegationToken(ExpireDelegationTokenResponse {
                error_code,
                ..Default::default()
            })
        }
        RequestBody::DescribeDelegationToken(_) => {
            ResponseBody::DescribeDelegationToken(DescribeDelegationTokenResponse {
                error_code,
                ..Default::default()
            })
        }
        RequestBody::DescribeClientQuotas(_) => {
            ResponseBody::DescribeClientQuotas(DescribeClientQuotasResponse {
                error_code,
                error_message: failure.api_error_message(),
                entries: None,
                ..Default::default()
            })
        }
        // Each entry with its entity echoed and the code's default text.
        RequestBody::AlterClientQuotas(r) => {
            ResponseBody::AlterClientQuotas(AlterClientQuotasResponse {
                entries: r
                    .entries
                    .iter()
                    .map(|e| alter_client_quotas_response::EntryData {
                        error_code,
                        error_message: failure.code_text(),
                        entity: e
                            .entity
                            .iter()
                            .map(|d| alter_client_quotas_response::EntityData {
                                entity_type: d.entity_type.clone(),
                                entity_name: d.entity_name.clone(),
                                ..Default::default()
                            })
                            .collect(),
                        ..Default::default()
                    })
                    .collect(),
                ..Default::default()
            })
        }
        // The top-level error, and one result per requested user (with no
        // user name, as Kafka builds them).
        RequestBody::DescribeUserScramCredentials(r) => {
            let users = r.users.as_ref().map_or(0, |u| u.len());
            ResponseBody::DescribeUserScramCredentials(DescribeUserScramCredentialsResponse {
                error_code,
                error_message: failure.api_error_message(),
                results: (0..users)
                    .map(|_| DescribeUserScramCredentialsResult {
                        error_code,
                        error_message: failure.api_error_message(),
                        ..Default::default()
                    })
                    .collect(),
                ..Default::default()
            })
        }
        // One result per user named in a deletion or upsertion, sorted.
        RequestBody::AlterUserScramCredentials(r) => {
            let users: BTreeSet<String> = r
                .deletions
                .iter()
                .map(|d| d.name.as_str().to_owned())
                .chain(r.upsertions.iter().map(|u| u.name.as_str().to_owned()))
                .collect();
            ResponseBody::AlterUserScramCredentials(AlterUserScramCredentialsResponse {
                results: users
                    .into_iter()
                    .map(|user| AlterUserScramCredentialsResult {
                        user: user.into(),
                        error_code,
                        error_message: failure.api_error_message(),
                        ..Default::default()
                    })
                    .collect(),
                ..Default::default()
            })
        }
        _ => return None,
    })
}
