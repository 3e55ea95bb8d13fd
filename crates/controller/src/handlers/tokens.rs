//! CreateDelegationToken (38), RenewDelegationToken (39) and
//! ExpireDelegationToken (40), and the periodic expiry of tokens (Kafka's
//! `ControllerApis.handle*DelegationTokenRequest`, `allowTokenRequests` and
//! `DelegationTokenControlManager`).
//!
//! Before anything else, a token request is refused with
//! `DELEGATION_TOKEN_REQUEST_NOT_ALLOWED` (timestamps -1) when its principal
//! authenticated with a delegation token, or when it came straight (not in
//! an Envelope) over a PLAINTEXT listener or over one-way TLS (no client
//! certificate). Java brokers forward these requests from their SASL and TLS
//! listeners, and the principal the Envelope carries is the one checked.
//!
//! CreateDelegationToken: a requester may create a token for itself; one
//! for another owner needs `CREATE_TOKENS` on the owner's USER resource
//! (`DELEGATION_TOKEN_AUTHORIZATION_FAILED` otherwise). Then, in Kafka's
//! order: `DELEGATION_TOKEN_AUTH_DISABLED` without
//! `delegation.token.secret.key`, `UNSUPPORTED_VERSION` below
//! metadata.version 3.6-IV2, `INVALID_PRINCIPAL_TYPE` for a renewer that is
//! not a `User`. A new token gets a random id, an HMAC-SHA512 of the id
//! keyed with the secret, a max timestamp of now plus the smaller of the
//! request's positive max lifetime and `delegation.token.max.lifetime.ms`,
//! and an expiry of now plus `delegation.token.expiry.time.ms`, capped at the
//! max; it is written as a DelegationTokenRecord (v0).
//!
//! Renew and Expire find the token by its HMAC (`DELEGATION_TOKEN_NOT_FOUND`);
//! only its owner or a renewer may act on it
//! (`DELEGATION_TOKEN_OWNER_MISMATCH`). A renewal of an expired token is
//! `DELEGATION_TOKEN_EXPIRED`; otherwise the expiry becomes now plus the
//! smaller of the positive renew period and `delegation.token.expiry.time.ms`,
//! capped at the max. An expiry with a negative period removes the token at
//! once (RemoveDelegationTokenRecord); with a period, an expired token is
//! `DELEGATION_TOKEN_EXPIRED`, else its expiry becomes now plus the period,
//! capped at the max.
//!
//! Every `delegation.token.expiry.check.interval.ms` the active controller
//! removes tokens past their expiry or max timestamp, at most 1000 per
//! write (again at once while more remain).

use bytes::Bytes;
use hmac::digest::KeyInit;
use hmac::{Hmac, Mac};
use kraft_protocol::acl::{AclOperation, KafkaPrincipal, ResourceType};
use kraft_protocol::messages::create_delegation_token_request::CreateDelegationTokenRequest;
use kraft_protocol::messages::create_delegation_token_response::CreateDelegationTokenResponse;
use kraft_protocol::messages::expire_delegation_token_request::ExpireDelegationTokenRequest;
use kraft_protocol::messages::expire_delegation_token_response::ExpireDelegationTokenResponse;
use kraft_protocol::messages::remove_delegation_token_record::RemoveDelegationTokenRecord;
use kraft_protocol::messages::renew_delegation_token_request::RenewDelegationTokenRequest;
use kraft_protocol::messages::renew_delegation_token_response::RenewDelegationTokenResponse;
use kraft_protocol::{ErrorCode, RequestBody, ResponseBody};
use sha2::Sha512;

use super::writer::Generated;
use super::{error_response, Access, ApiError, Controller};
use crate::config::security::{DelegationTokenSettings, Password};
use crate::format::{now_ms, random_uuid_text};
use crate::image::{DelegationTokenData, MetadataImage, MetadataRecord};
use crate::server::RequestContext;

/// The most RemoveDelegationTokenRecords one expiry pass writes (Kafka's
/// `MAX_RECORDS_PER_EXPIRATION`).
pub const MAX_RECORDS_PER_EXPIRATION: usize = 1000;

/// Kafka's `DelegationTokenManager.ERROR_TIMESTAMP`.
const ERROR_TIMESTAMP: i64 = -1;

/// `now + duration`, saturating at `i64::MAX` (Kafka's `sum`).
fn saturating_sum(now: i64, duration: i64) -> i64 {
    if now > i64::MAX - duration {
        i64::MAX
    } else {
        now + duration
    }
}

/// The HMAC of a token: HMAC-SHA512 of its id, keyed with
/// `delegation.token.secret.key` (both as UTF-8).
pub fn token_hmac(secret: &Password, token_id: &str) -> Bytes {
    let mut mac = <Hmac<Sha512> as KeyInit>::new_from_slice(secret.value().as_bytes())
        .expect("HMAC takes a key of any length");
    mac.update(token_id.as_bytes());
    Bytes::copy_from_slice(&mac.finalize().into_bytes())
}

/// The token whose HMAC is `hmac` (compared in constant time), if any.
fn token_by_hmac<'a>(
    image: &'a MetadataImage,
    secret: &Password,
    hmac: &[u8],
) -> Option<&'a DelegationTokenData> {
    image.delegation_tokens().tokens().find(|t| {
        let mut mac = <Hmac<Sha512> as KeyInit>::new_from_slice(secret.value().as_bytes())
            .expect("HMAC takes a key of any length");
        mac.update(t.token_id.as_bytes());
        mac.verify_slice(hmac).is_ok()
    })
}

/// `type:name`, as Kafka's `KafkaPrincipal.toString`.
fn principal_text(p: &KafkaPrincipal) -> String {
    format!("{}:{}", p.principal_type, p.name)
}

/// Kafka's `allowedToRenew`: the owner or one of the renewers.
fn allowed_to_renew(token: &DelegationTokenData, principal: &KafkaPrincipal) -> bool {
    let who = principal_text(principal);
    token.owner == who || token.renewers.contains(&who)
}

fn is_expired(token: &DelegationTokenData, now: i64) -> bool {
    token.max_timestamp < now || token.expiration_timestamp < now
}

/// Kafka's `ControllerApis.allowTokenRequests`: never for a principal that
/// authenticated with a token; not straight over PLAINTEXT, nor straight
/// over SSL without a client certificate (one-way TLS: `User:ANONYMOUS`);
/// forwarded requests and SASL connections are allowed.
fn allow_token_requests(ctx: &RequestContext) -> bool {
    use crate::config::SecurityProtocol;
    if ctx.token_authenticated {
        return false;
    }
    if ctx.forwarded {
        return true;
    }
    match ctx.security_protocol {
        SecurityProtocol::Plaintext => false,
        SecurityProtocol::Ssl => ctx.principal != KafkaPrincipal::ANONYMOUS,
        SecurityProtocol::SaslPlaintext | SecurityProtocol::SaslSsl => true,
    }
}

/// What the token writes need from the settings, or the error that
/// answers when they cannot run.
fn enabled<'a>(
    settings: &'a DelegationTokenSettings,
    image: &MetadataImage,
) -> Result<&'a Password, ErrorCode> {
    let Some(secret) = settings.secret_key.as_ref() else {
        return Err(ErrorCode::DelegationTokenAuthDisabled);
    };
    match image.metadata_version() {
        Some(mv) if mv.is_delegation_token_supported() => Ok(secret),
        _ => Err(ErrorCode::UnsupportedVersion),
    }
}

/// The outcome of Kafka's `createDelegationToken` against `image`.
fn create_token(
    settings: &DelegationTokenSettings,
    image: &MetadataImage,
    requester: &KafkaPrincipal,
    owner: &KafkaPrincipal,
    request: &CreateDelegationTokenRequest,
    now: i64,
) -> Generated<CreateDelegationTokenResponse> {
    let mut response = CreateDelegationTokenResponse {
        principal_type: owner.principal_type.as_ref().into(),
        principal_name: owner.name.as_ref().into(),
        token_requester_principal_type: requester.principal_type.as_ref().into(),
        token_requester_principal_name: requester.name.as_ref().into(),
        ..Default::default()
    };
    let secret = match enabled(settings, image) {
        Ok(secret) => secret,
        Err(code) => {
            response.error_code = code.code();
            return Generated::new(Vec::new(), response);
        }
    };
    let mut max_lifetime = settings.max_lifetime_ms;
    if request.max_lifetime_ms > 0 {
        max_lifetime = max_lifetime.min(request.max_lifetime_ms);
    }
    let max_timestamp = saturating_sum(now, max_lifetime);
    let expiry_timestamp = max_timestamp.min(saturating_sum(now, settings.expiry_time_ms));
    let mut renewers = Vec::with_capacity(request.renewers.len());
    for renewer in &request.renewers {
        if renewer.principal_type.as_str() != "User" {
            response.error_code = ErrorCode::InvalidPrincipalType.code();
            return Generated::new(Vec::new(), response);
        }
        renewers.push(format!("User:{}", renewer.principal_name.as_str()));
    }
    let token_id = random_uuid_text();
    let token = DelegationTokenData {
        token_id: token_id.clone(),
        owner: principal_text(owner),
        requester: principal_text(requester),
        renewers,
        issue_timestamp: now,
        max_timestamp,
        expiration_timestamp: expiry_timestamp,
    };
    response.issue_timestamp_ms = now;
    response.expiry_timestamp_ms = expiry_timestamp;
    response.max_timestamp_ms = max_timestamp;
    response.hmac = token_hmac(secret, &token_id);
    response.token_id = token_id.into();
    Generated::new(vec![MetadataRecord::new(token.to_record(), 0)], response)
}

/// The outcome of Kafka's `renewDelegationToken` against `image`.
fn renew_token(
    settings: &DelegationTokenSettings,
    image: &MetadataImage,
    principal: &KafkaPrincipal,
    request: &RenewDelegationTokenRequest,
    now: i64,
) -> Generated<RenewDelegationTokenResponse> {
    let refuse = |code: ErrorCode| {
        Generated::new(
            Vec::new(),
            RenewDelegationTokenResponse {
                error_code: code.code(),
                ..Default::default()
            },
        )
    };
    let secret = match enabled(settings, image) {
        Ok(secret) => secret,
        Err(code) => return refuse(code),
    };
    let Some(token) = token_by_hmac(image, secret, &request.hmac) else {
        return refuse(ErrorCode::DelegationTokenNotFound);
    };
    if is_expired(token, now) {
        return refuse(ErrorCode::DelegationTokenExpired);
    }
    if !allowed_to_renew(token, principal) {
        return refuse(ErrorCode::DelegationTokenOwnerMismatch);
    }
    let mut renew_lifetime = settings.expiry_time_ms;
    if request.renew_period_ms > 0 {
        renew_lifetime = renew_lifetime.min(request.renew_period_ms);
    }
    let expiry_timestamp = token.max_timestamp.min(now.saturating_add(renew_lifetime));
    let mut record = token.to_record();
    record.expiration_timestamp = expiry_timestamp;
    Generated::new(
        vec![MetadataRecord::new(record, 0)],
        RenewDelegationTokenResponse {
            expiry_timestamp_ms: expiry_timestamp,
            ..Default::default()
        },
    )
}

/// The outcome of Kafka's `expireDelegationToken` against `image`.
fn expire_token(
    settings: &DelegationTokenSettings,
    image: &MetadataImage,
    principal: &KafkaPrincipal,
    request: &ExpireDelegationTokenRequest,
    now: i64,
) -> Generated<ExpireDelegationTokenResponse> {
    let answer = |code: ErrorCode, expiry: i64, records: Vec<MetadataRecord>| {
        Generated::new(
            records,
            ExpireDelegationTokenResponse {
                error_code: code.code(),
                expiry_timestamp_ms: expiry,
                ..Default::default()
            },
        )
    };
    let secret = match enabled(settings, image) {
        Ok(secret) => secret,
        Err(code) => return answer(code, 0, Vec::new()),
    };
    let Some(token) = token_by_hmac(image, secret, &request.hmac) else {
        return answer(ErrorCode::DelegationTokenNotFound, 0, Vec::new());
    };
    if !allowed_to_renew(token, principal) {
        return answer(ErrorCode::DelegationTokenOwnerMismatch, 0, Vec::new());
    }
    if request.expiry_time_period_ms < 0 {
        let remove = RemoveDelegationTokenRecord {
            token_id: token.token_id.as_str().into(),
            ..Default::default()
        };
        return answer(ErrorCode::None, now, vec![MetadataRecord::new(remove, 0)]);
    }
    if is_expired(token, now) {
        return answer(ErrorCode::DelegationTokenExpired, 0, Vec::new());
    }
    let expiry_timestamp = token
        .max_timestamp
        .min(saturating_sum(now, request.expiry_time_period_ms));
    let mut record = token.to_record();
    record.expiration_timestamp = expiry_timestamp;
    answer(
        ErrorCode::None,
        expiry_timestamp,
        vec![MetadataRecord::new(record, 0)],
    )
}

/// Kafka's `sweepExpiredDelegationTokens`: a RemoveDelegationTokenRecord for
/// each token past its expiry or max timestamp, at most
/// [`MAX_RECORDS_PER_EXPIRATION`]; and whether that bound was reached.
pub(crate) fn expired_tokens(image: &MetadataImage, now: i64) -> (Vec<MetadataRecord>, bool) {
    let mut records = Vec::new();
    for token in image.delegation_tokens().tokens() {
        if !is_expired(token, now) {
            continue;
        }
        tracing::info!(
            "Delegation token expired for token: {} for owner: {}",
            token.token_id,
            token.owner
        );
        let remove = RemoveDelegationTokenRecord {
            token_id: token.token_id.as_str().into(),
            ..Default::default()
        };
        records.push(MetadataRecord::new(remove, 0));
        if records.len() >= MAX_RECORDS_PER_EXPIRATION {
            return (records, true);
        }
    }
    (records, false)
}

/// The owner a CreateDelegationToken names: the requester when the owner
/// name is null or empty; `None` for a name without a type (Java's
/// `KafkaPrincipal` refuses a null type).
fn owner_of(
    request: &CreateDelegationTokenRequest,
    requester: &KafkaPrincipal,
) -> Option<KafkaPrincipal> {
    match request.owner_principal_name.as_ref().map(|n| n.as_str()) {
        None | Some("") => Some(requester.clone()),
        Some(name) => request
            .owner_principal_type
            .as_ref()
            .map(|t| KafkaPrincipal::new(t.as_str().to_owned(), name.to_owned())),
    }
}

/// A whole-request failure of a token API (Kafka's `getErrorResponse`),
/// as the response type `extract` takes out.
fn whole_failure<R: Default>(
    request: RequestBody,
    version: i16,
    e: &ApiError,
    extract: impl FnOnce(ResponseBody) -> Option<R>,
) -> R {
    tracing::debug!(api = request.api_key().kafka_name(), error = %e, "token request failed");
    error_response(&request, version, e.code, e.message.as_deref())
        .and_then(extract)
        .unwrap_or_default()
}

fn create_response(r: ResponseBody) -> Option<CreateDelegationTokenResponse> {
    match r {
        ResponseBody::CreateDelegationToken(r) => Some(r),
        _ => None,
    }
}

impl Controller {
    /// CreateDelegationToken (v1-3): see the module docs. Answered once the
    /// token's record is committed.
    pub async fn create_delegation_token(
        &self,
        access: &Access<'_>,
        ctx: &RequestContext,
        request: &CreateDelegationTokenRequest,
    ) -> CreateDelegationTokenResponse {
        let v = ctx.api_version;
        let requester = &ctx.principal;
        let Some(owner) = owner_of(request, requester) else {
            let e = ApiError {
                code: ErrorCode::UnknownServerError,
                message: None,
            };
            return whole_failure(
                RequestBody::CreateDelegationToken(request.clone()),
                v,
                &e,
                create_response,
            );
        };
        let refused = |code: ErrorCode| {
            let mut r = CreateDelegationTokenResponse {
                error_code: code.code(),
                principal_type: owner.principal_type.as_ref().into(),
                principal_name: owner.name.as_ref().into(),
                issue_timestamp_ms: ERROR_TIMESTAMP,
                expiry_timestamp_ms: ERROR_TIMESTAMP,
                max_timestamp_ms: ERROR_TIMESTAMP,
                ..Default::default()
            };
            if v > 2 {
                r.token_requester_principal_type = requester.principal_type.as_ref().into();
                r.token_requester_principal_name = requester.name.as_ref().into();
            }
            r
        };
        if !allow_token_requests(ctx) {
            return refused(ErrorCode::DelegationTokenRequestNotAllowed);
        }
        if owner != *requester {
            match access.allows(
                AclOperation::CreateTokens,
                ResourceType::User,
                &principal_text(&owner),
            ) {
                Ok(true) => {}
                Ok(false) => return refused(ErrorCode::DelegationTokenAuthorizationFailed),
                Err(_) => {
                    let e = ApiError {
                        code: ErrorCode::UnknownServerError,
                        message: None,
                    };
                    return whole_failure(
                        RequestBody::CreateDelegationToken(request.clone()),
                        v,
                        &e,
                        create_response,
                    );
                }
            }
        }
        let settings = &self.settings.delegation_tokens;
        let outcome = self
            .write("createDelegationToken", None, |state| {
                Ok(create_token(
                    settings,
                    &state.image,
                    requester,
                    &owner,
                    request,
                    now_ms(),
                ))
            })
            .await;
        match outcome {
            Ok(mut r) => {
                // `prepareResponse` sets the requester only from v3.
                if v <= 2 {
                    r.token_requester_principal_type = Default::default();
                    r.token_requester_principal_name = Default::default();
                }
                r
            }
            Err(e) => whole_failure(
                RequestBody::CreateDelegationToken(request.clone()),
                v,
                &e,
                create_response,
            ),
        }
    }

    /// RenewDelegationToken (v1-2): see the module docs.
    pub async fn renew_delegation_token(
        &self,
        ctx: &RequestContext,
        request: &RenewDelegationTokenRequest,
    ) -> RenewDelegationTokenResponse {
        let outcome = self
            .token_write("renewDelegationToken", ctx, |settings, image, now| {
                renew_token(settings, image, &ctx.principal, request, now)
            })
            .await;
        match outcome {
            Some(Ok(r)) => r,
            None => RenewDelegationTokenResponse {
                error_code: ErrorCode::DelegationTokenRequestNotAllowed.code(),
                expiry_timestamp_ms: ERROR_TIMESTAMP,
                ..Default::default()
            },
            Some(Err(e)) => whole_failure(
                RequestBody::RenewDelegationToken(request.clone()),
                ctx.api_version,
                &e,
                |r| match r {
                    ResponseBody::RenewDelegationToken(r) => Some(r),
                    _ => None,
                },
            ),
        }
    }

    /// ExpireDelegationToken (v1-2): see the module docs.
    pub async fn expire_delegation_token(
        &self,
        ctx: &RequestContext,
        request: &ExpireDelegationTokenRequest,
    ) -> ExpireDelegationTokenResponse {
        let outcome = self
            .token_write("expireDelegationToken", ctx, |settings, image, now| {
                expire_token(settings, image, &ctx.principal, request, now)
            })
            .await;
        match outcome {
            Some(Ok(r)) => r,
            None => ExpireDelegationTokenResponse {
                error_code: ErrorCode::DelegationTokenRequestNotAllowed.code(),
                expiry_timestamp_ms: ERROR_TIMESTAMP,
                ..Default::default()
            },
            Some(Err(e)) => whole_failure(
                RequestBody::ExpireDelegationToken(request.clone()),
                ctx.api_version,
                &e,
                |r| match r {
                    ResponseBody::ExpireDelegationToken(r) => Some(r),
                    _ => None,
                },
            ),
        }
    }

    /// One token write for a Renew or Expire request: `None` when
    /// `allowTokenRequests` refuses it, else the outcome of `op` against
    /// the writer's image at the current time.
    async fn token_write<R: Send>(
        &self,
        name: &'static str,
        ctx: &RequestContext,
        op: impl Fn(&DelegationTokenSettings, &MetadataImage, i64) -> Generated<R> + Send + Sync,
    ) -> Option<Result<R, ApiError>> {
        if !allow_token_requests(ctx) {
            return None;
        }
        let settings = &self.settings.delegation_tokens;
        Some(
            self.write(name, None, |state| Ok(op(settings, &state.image, now_ms())))
                .await,
        )
    }

    /// The `expireDelegationTokens` periodic task: one write removing up to
    /// [`MAX_RECORDS_PER_EXPIRATION`] expired tokens. Returns whether more
    /// may remain. Does nothing unless this is the active controller, and
    /// takes no write lock while no token has expired.
    pub async fn expire_delegation_tokens(&self) -> bool {
        let now = now_ms();
        let any = self
            .image
            .read()
            .delegation_tokens()
            .tokens()
            .any(|t| is_expired(t, now));
        if !any {
            return false;
        }
        let started = std::time::Instant::now();
        self.write("expireDelegationTokens", None, |state| {
            let (records, more) = expired_tokens(&state.image, now_ms());
            tracing::info!(
                "Periodic task expireDelegationTokens generated {} records in {} microseconds.",
                records.len(),
                started.elapsed().as_micros()
            );
            Ok(Generated::new(records, more))
        })
        .await
        .unwrap_or(false)
    }

    /// How often [`Controller::expire_delegation_tokens`] runs
    /// (`delegation.token.expiry.check.interval.ms`).
    pub fn token_expiry_check_interval(&self) -> std::time::Duration {
        std::time::Duration::from_millis(
            u64::try_from(self.settings.delegation_tokens.expiry_check_interval_ms).unwrap_or(1),
        )
        .max(std::time::Duration::from_millis(1))
    }
}
