//! AlterUserScramCredentials (51): SCRAM credentials (Kafka's
//! `ScramControlManager.alterCredentials`, reached through
//! `QuorumController.alterUserScramCredentials` and
//! `ControllerApis.handleAlterUserScramCredentials`).
//!
//! A request with neither deletions nor upsertions is answered at once with
//! no result. Otherwise, against the writer's state, each user is taken
//! once, deletions first, then upsertions, in request order:
//!
//! * a user already refused keeps its first refusal (later entries for it
//!   are skipped);
//! * a user already accepted in this request (by a deletion, or by an
//!   upsertion) loses that entry and is refused with `DUPLICATE_RESOURCE`
//!   "A user credential cannot be altered twice in the same request" (also
//!   for two different mechanisms);
//! * below metadata.version 3.5-IV2: `UNSUPPORTED_VERSION` "The current
//!   metadata.version does not support SCRAM";
//! * an empty user name: `UNACCEPTABLE_CREDENTIAL` "Username must not be
//!   empty"; a mechanism other than 1 (SCRAM-SHA-256) or 2 (SCRAM-SHA-512):
//!   `UNSUPPORTED_SASL_MECHANISM` "Unknown SCRAM mechanism";
//! * a deletion of a credential that does not exist: `RESOURCE_NOT_FOUND`
//!   "Attempt to delete a user credential that does not exist";
//! * an upsertion with fewer than [`MIN_ITERATIONS`] iterations:
//!   `UNACCEPTABLE_CREDENTIAL` "Too few iterations"; more than
//!   [`MAX_ITERATIONS`]: "Too many iterations". The salt is not checked.
//!
//! The accepted deletions each write a RemoveUserScramCredentialRecord (v0)
//! and the accepted upsertions a UserScramCredentialRecord (v0) whose
//! stored key and server key are derived from the salted password as
//! Kafka's `ScramFormatter` does ([`derive_keys`]); an empty salted password
//! is no HMAC key (Java's `SecretKeySpec` refuses it) and fails that user
//! with `UNKNOWN_SERVER_ERROR` and no message. The records are appended in
//! one batch and the answer goes out once they are committed: the
//! deletions, then the upsertions, then the refused users, each group in
//! the iteration order of Kafka's `HashMap` keyed by user name.
//!
//! When the write itself fails (not the active controller, a timeout), every
//! user named in the request is answered with that error once, in name
//! order (Kafka's `AlterUserScramCredentialsRequest.getErrorResponse`).

use std::cmp::Ordering;

use bytes::Bytes;
use kraft_protocol::messages::alter_user_scram_credentials_request::{
    AlterUserScramCredentialsRequest, ScramCredentialDeletion, ScramCredentialUpsertion,
};
use kraft_protocol::messages::alter_user_scram_credentials_response::{
    AlterUserScramCredentialsResponse, AlterUserScramCredentialsResult,
};
use kraft_protocol::messages::remove_user_scram_credential_record::RemoveUserScramCredentialRecord;
use kraft_protocol::messages::user_scram_credential_record::UserScramCredentialRecord;
use kraft_protocol::{ErrorCode, StrBytes};
use kraft_security::sasl::scram as formulas;

use super::writer::Generated;
use super::{ApiError, Controller};
use crate::image::{MetadataImage, MetadataRecord, ScramImage};
use crate::java::JavaMap;

/// The fewest iterations an upsertion may have: the `minIterations` of
/// both of Kafka's SCRAM mechanisms (RFC 7677's minimum).
pub const MIN_ITERATIONS: i32 = 4096;

/// The most iterations an upsertion may have (Kafka's
/// `ScramControlManager.MAX_ITERATIONS`).
pub const MAX_ITERATIONS: i32 = 16384;

/// A SCRAM mechanism Kafka knows (`ScramMechanism.fromType` other than
/// `UNKNOWN`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScramMechanism {
    /// SCRAM-SHA-256 (type 1): HMAC-SHA-256 and SHA-256.
    Sha256,
    /// SCRAM-SHA-512 (type 2): HMAC-SHA-512 and SHA-512.
    Sha512,
}

impl ScramMechanism {
    /// The mechanism of a type code, if Kafka knows it.
    pub fn from_type(mechanism: i8) -> Option<Self> {
        match mechanism {
            ScramImage::SCRAM_SHA_256 => Some(ScramMechanism::Sha256),
            ScramImage::SCRAM_SHA_512 => Some(ScramMechanism::Sha512),
            _ => None,
        }
    }

    /// The security crate's name for the same hash.
    fn hash(self) -> kraft_security::sasl::ScramMechanism {
        match self {
            ScramMechanism::Sha256 => kraft_security::sasl::ScramMechanism::Sha256,
            ScramMechanism::Sha512 => kraft_security::sasl::ScramMechanism::Sha512,
        }
    }
}

/// The stored key and server key of a credential (RFC 5802 section 3, as
/// Kafka's `ScramFormatter.storedKey(clientKey(saltedPassword))` and
/// `serverKey(saltedPassword)`): `H(HMAC(salted, "Client Key"))` and
/// `HMAC(salted, "Server Key")`. An empty salted password is refused
/// (`UNKNOWN_SERVER_ERROR`, no message), as Java's `SecretKeySpec` refuses
/// an empty key.
pub fn derive_keys(
    mechanism: ScramMechanism,
    salted_password: &[u8],
) -> Result<(Bytes, Bytes), ApiError> {
    if salted_password.is_empty() {
        return Err(ApiError {
            code: ErrorCode::UnknownServerError,
            message: None,
        });
    }
    let mechanism = mechanism.hash();
    let client_key = formulas::client_key(mechanism, salted_password);
    Ok((
        Bytes::from(formulas::stored_key(mechanism, &client_key)),
        Bytes::from(formulas::server_key(mechanism, salted_password)),
    ))
}

fn duplicate() -> ApiError {
    ApiError::new(
        ErrorCode::DuplicateResource,
        "A user credential cannot be altered twice in the same request",
    )
}

fn scram_unsupported() -> ApiError {
    ApiError::new(
        ErrorCode::UnsupportedVersion,
        "The current metadata.version does not support SCRAM",
    )
}

/// Kafka's `validateScramUsernameAndMechanism`.
fn check_user_and_mechanism(name: &str, mechanism: i8) -> Result<ScramMechanism, ApiError> {
    if name.is_empty() {
        return Err(ApiError::new(
            ErrorCode::UnacceptableCredential,
            "Username must not be empty",
        ));
    }
    ScramMechanism::from_type(mechanism).ok_or_else(|| {
        ApiError::new(
            ErrorCode::UnsupportedSaslMechanism,
            "Unknown SCRAM mechanism",
        )
    })
}

/// Kafka's `validateDeletion`: the credential must exist.
fn check_deletion(d: &ScramCredentialDeletion, image: &MetadataImage) -> Result<(), ApiError> {
    check_user_and_mechanism(d.name.as_str(), d.mechanism)?;
    if image
        .scram()
        .credential(d.mechanism, d.name.as_str())
        .is_none()
    {
        return Err(ApiError::new(
            ErrorCode::ResourceNotFound,
            "Attempt to delete a user credential that does not exist",
        ));
    }
    Ok(())
}

/// Kafka's `validateUpsertion`: the iteration bounds.
fn check_upsertion(u: &ScramCredentialUpsertion) -> Result<(), ApiError> {
    check_user_and_mechanism(u.name.as_str(), u.mechanism)?;
    if u.iterations < MIN_ITERATIONS {
        return Err(ApiError::new(
            ErrorCode::UnacceptableCredential,
            "Too few iterations",
        ));
    }
    if u.iterations > MAX_ITERATIONS {
        return Err(ApiError::new(
            ErrorCode::UnacceptableCredential,
            "Too many iterations",
        ));
    }
    Ok(())
}

/// One user's outcome.
type UserResult = (String, Result<(), ApiError>);

/// Kafka's `ScramControlManager.alterCredentials` against `image`: the
/// records and the per-user results, in Kafka's order.
fn alter_credentials(
    request: &AlterUserScramCredentialsRequest,
    image: &MetadataImage,
) -> Result<Generated<Vec<UserResult>>, ApiError> {
    let mv = image.metadata_version().ok_or_else(|| {
        ApiError::new(
            ErrorCode::UnknownServerError,
            "The metadata.version is not yet known.",
        )
    })?;
    let supported = mv.is_scram_supported();
    let mut deletions: JavaMap<String, ScramCredentialDeletion> = JavaMap::new();
    let mut upsertions: JavaMap<String, ScramCredentialUpsertion> = JavaMap::new();
    let mut errors: JavaMap<String, ApiError> = JavaMap::new();
    for d in request.deletions.iter() {
        let name = d.name.to_string();
        if errors.contains_key(&name) {
            continue;
        }
        let outcome = if deletions.remove(&name).is_some() {
            Err(duplicate())
        } else if !supported {
            Err(scram_unsupported())
        } else {
            check_deletion(&d, image)
        };
        match outcome {
            Ok(()) => {
                deletions.put(name, d.into_owned());
            }
            Err(e) => {
                errors.put(name, e);
            }
        }
    }
    for u in request.upsertions.iter() {
        let name = u.name.to_string();
        if errors.contains_key(&name) {
            continue;
        }
        let outcome = if deletions.remove(&name).is_some() || upsertions.remove(&name).is_some() {
            Err(duplicate())
        } else if !supported {
            Err(scram_unsupported())
        } else {
            check_upsertion(&u)
        };
        match outcome {
            Ok(()) => {
                upsertions.put(name, u.into_owned());
            }
            Err(e) => {
                errors.put(name, e);
            }
        }
    }
    let mut records = Vec::new();
    let mut results: Vec<UserResult> = Vec::new();
    for (name, d) in deletions.iter() {
        results.push((name.clone(), Ok(())));
        records.push(MetadataRecord::new(
            RemoveUserScramCredentialRecord {
                name: d.name.clone(),
                mechanism: d.mechanism,
                ..Default::default()
            },
            0,
        ));
    }
    let mut failed_upsertions = Vec::new();
    for (name, u) in upsertions.iter() {
        let derived = ScramMechanism::from_type(u.mechanism)
            .ok_or(ApiError {
                code: ErrorCode::UnknownServerError,
                message: None,
            })
            .and_then(|m| derive_keys(m, &u.salted_password));
        match derived {
            Ok((stored_key, server_key)) => {
                results.push((name.clone(), Ok(())));
                records.push(MetadataRecord::new(
                    UserScramCredentialRecord {
                        name: u.name.clone(),
                        mechanism: u.mechanism,
                        salt: u.salt.clone(),
                        stored_key,
                        server_key,
                        iterations: u.iterations,
                        ..Default::default()
                    },
                    0,
                ));
            }
            Err(e) => failed_upsertions.push((name.clone(), e)),
        }
    }
    for (name, e) in failed_upsertions {
        errors.put(name, e);
    }
    results.extend(errors.iter().map(|(n, e)| (n.clone(), Err(e.clone()))));
    Ok(Generated::new(records, results))
}

/// Java's `String.compareTo`: by UTF-16 code units.
fn java_string_order(a: &str, b: &str) -> Ordering {
    a.encode_utf16().cmp(b.encode_utf16())
}

/// Kafka's `AlterUserScramCredentialsRequest.getErrorResponse`: each user
/// named in the request once, in name order, with the error as
/// `ApiError.fromThrowable` gives it (no message for
/// `UNKNOWN_SERVER_ERROR` or when it is the error's default text).
fn error_response(
    request: &AlterUserScramCredentialsRequest,
    e: &ApiError,
) -> AlterUserScramCredentialsResponse {
    let mut users: Vec<String> = request
        .deletions
        .iter()
        .map(|d| d.name.to_string())
        .chain(request.upsertions.iter().map(|u| u.name.to_string()))
        .collect();
    users.sort_by(|a, b| java_string_order(a, b));
    users.dedup();
    let message = e
        .message
        .as_deref()
        .filter(|m| e.code != ErrorCode::UnknownServerError && *m != e.code.default_message())
        .map(StrBytes::from);
    AlterUserScramCredentialsResponse {
        results: users
            .into_iter()
            .map(|user| AlterUserScramCredentialsResult {
                user: user.into(),
                error_code: e.code.code(),
                error_message: message.clone(),
                ..Default::default()
            })
            .collect(),
        ..Default::default()
    }
}

impl Controller {
    /// AlterUserScramCredentials (v0): see the module docs. Answered once
    /// its records are committed.
    pub async fn alter_user_scram_credentials(
        &self,
        request: &AlterUserScramCredentialsRequest,
    ) -> AlterUserScramCredentialsResponse {
        if request.deletions.is_empty() && request.upsertions.is_empty() {
            return AlterUserScramCredentialsResponse::default();
        }
        match self
            .write("alterUserScramCredentials", None, |state| {
                alter_credentials(request, &state.image)
            })
            .await
        {
            Ok(results) => AlterUserScramCredentialsResponse {
                results: results
                    .into_iter()
                    .map(|(user, result)| {
                        let (code, message) = match result {
                            Ok(()) => (ErrorCode::None, None),
                            Err(e) => (e.code, e.message),
                        };
                        AlterUserScramCredentialsResult {
                            user: user.into(),
                            error_code: code.code(),
                            error_message: message.map(StrBytes::from),
                            ..Default::default()
                        }
                    })
                    .collect(),
                ..Default::default()
            },
            Err(e) => {
                tracing::debug!(error = %e, "AlterUserScramCredentials failed");
                error_response(request, &e)
            }
        }
    }
}
