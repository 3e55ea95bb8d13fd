//! The server side of SASL on one connection, as Kafka's
//! `SaslServerAuthenticator` and `KafkaChannel` run it:
//!
//! 1. Before authentication only ApiVersions (once, first) and SaslHandshake
//!    are served; anything else closes the connection ("Unexpected Kafka
//!    request of type ... during SASL handshake."), and a first frame that is
//!    not a Kafka request at all is reported as a client speaking the wrong
//!    protocol.
//! 2. SaslHandshake names a mechanism: an enabled one is answered with the
//!    enabled list, any other with UNSUPPORTED_SASL_MECHANISM and a close.
//!    Version 1 carries the tokens in SaslAuthenticate requests; version 0
//!    in raw size-prefixed frames.
//! 3. SaslAuthenticate tokens go to the mechanism until it completes; a
//!    failure is answered with SASL_AUTHENTICATION_FAILED and the
//!    mechanism's message (Kafka's text), then the connection is closed.
//!    Any other request in this phase gets ILLEGAL_SASL_STATE and a close.
//! 4. Once complete, the principal is `User:<authorization id>`. With
//!    `connections.max.reauth.ms` (or a credential that expires) the session
//!    has a lifetime, sent to the client: after it, a request other than
//!    SaslHandshake closes the connection. A SaslHandshake on an
//!    authenticated connection of a client that sent SaslAuthenticate v1+
//!    starts re-authentication (KIP-368): same mechanism, same principal.

use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use kraft_protocol::acl::KafkaPrincipal;
use kraft_protocol::header::decode_request_header;
use kraft_protocol::messages::sasl_authenticate_response::SaslAuthenticateResponse;
use kraft_protocol::messages::sasl_handshake_response::SaslHandshakeResponse;
use kraft_protocol::{ApiKey, ErrorCode, RequestBody, ResponseBody};
use kraft_security::sasl::oauthbearer::{OAuthBearerServer, TokenValidator};
use kraft_security::sasl::{self, Mechanism, SaslServer, SaslServerConfig, ServerStep};

use crate::config::transport::ListenerSasl;

/// SASL settings of a listener, ready to authenticate connections.
pub struct SaslListener {
    /// The listener's settings.
    pub settings: ListenerSasl,
    /// The mechanisms' shared state (PLAIN users, SCRAM credentials).
    pub server_config: SaslServerConfig,
    /// How OAUTHBEARER tokens are checked, when it is enabled.
    pub oauthbearer: Option<TokenValidator>,
}

impl std::fmt::Debug for SaslListener {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SaslListener")
            .field("settings", &self.settings)
            .finish_non_exhaustive()
    }
}

/// Who the connection authenticated as.
#[derive(Debug, Clone, PartialEq)]
pub struct Authenticated {
    /// `User:<authorization id>`.
    pub principal: KafkaPrincipal,
    /// Whether a delegation token was used (SCRAM `tokenauth=true`).
    pub token_authenticated: bool,
}

/// What the connection does with a frame the session looked at.
#[derive(Debug)]
pub enum Step {
    /// Not an authentication frame: process it as a request of the
    /// authenticated principal.
    Request,
    /// An ApiVersions request before authentication: answer it as usual.
    ApiVersions,
    /// Write these bytes (a complete response frame) and go on.
    Respond(Vec<u8>),
    /// Write these bytes, then close the connection for the reason given.
    RespondAndClose(Vec<u8>, String),
    /// Close the connection for the reason given.
    Close(String),
}

enum State {
    /// Nothing received yet.
    Initial,
    /// A valid Kafka request was received; ApiVersions or SaslHandshake next.
    HandshakeOrVersions,
    /// ApiVersions was answered; SaslHandshake next.
    Handshake,
    /// Tokens go to the mechanism.
    Authenticate {
        server: Box<dyn SaslServer>,
        mechanism: Mechanism,
        /// SaslHandshake v0: raw tokens instead of SaslAuthenticate.
        raw: bool,
    },
    /// A re-authentication asked for a different mechanism: the next token
    /// fails with this message.
    ReauthBadMechanism(String),
    /// Authenticated.
    Complete,
}

/// The SASL state of one connection.
pub struct SaslSession {
    listener: Arc<SaslListener>,
    state: State,
    authenticated: Option<Authenticated>,
    /// The mechanism of the completed authentication.
    mechanism: Option<Mechanism>,
    /// When the session ends, if it has a lifetime.
    expires_at: Option<Instant>,
    /// The client sent SaslAuthenticate v1+ (it can re-authenticate).
    supports_reauth: bool,
    /// Re-authenticating: the principal must stay this one.
    previous: Option<Authenticated>,
}

impl SaslSession {
    /// A new connection's session.
    pub fn new(listener: Arc<SaslListener>) -> SaslSession {
        SaslSession {
            listener,
            state: State::Initial,
            authenticated: None,
            mechanism: None,
            expires_at: None,
            supports_reauth: false,
            previous: None,
        }
    }

    /// Whether requests may be processed (authentication completed and not
    /// in the middle of a re-authentication).
    pub fn is_complete(&self) -> bool {
        matches!(self.state, State::Complete)
    }

    /// The largest frame accepted while authenticating.
    pub fn max_receive_size(&self) -> usize {
        self.listener.settings.max_receive_size
    }

    /// Who the connection is, once authenticated.
    pub fn authenticated(&self) -> Option<&Authenticated> {
        self.authenticated.as_ref()
    }

    /// Whether the session's lifetime is over (KIP-368): the connection
    /// must be closed instead of serving another request.
    pub fn is_expired(&self, now: Instant) -> bool {
        self.expires_at.is_some_and(|t| now >= t)
    }

    /// Looks at one complete frame.
    pub fn on_frame(&mut self, frame: &Bytes) -> Step {
        match &self.state {
            State::Initial | State::HandshakeOrVersions | State::Handshake => {
                self.on_handshake_phase(frame)
            }
            State::Authenticate { raw: true, .. } => self.on_raw_token(frame),
            State::Authenticate { raw: false, .. } => self.on_authenticate(frame),
            State::ReauthBadMechanism(message) => Step::Close(message.clone()),
            State::Complete => {
                if is_sasl_handshake(frame) && self.supports_reauth {
                    // KIP-368: the client re-authenticates on this connection.
                    self.previous = self.authenticated.clone();
                    self.state = State::Handshake;
                    self.on_handshake_phase(frame)
                } else {
                    Step::Request
                }
            }
        }
    }

    fn on_handshake_phase(&mut self, frame: &Bytes) -> Step {
        let mut rest = frame.clone();
        let parsed = match decode_request_header(&mut rest) {
            Ok(p) => p,
            Err(e) => {
                return Step::Close(if matches!(self.state, State::Initial) {
                    format!(
                        "Invalid request, potential reasons: kafka client configured with the \
                         wrong security protocol, it does not support KIP-43 or it is not a \
                         kafka client. ({e})"
                    )
                } else {
                    format!("invalid request header during SASL handshake: {e}")
                })
            }
        };
        let api = parsed.api_key;
        if api != Some(ApiKey::ApiVersions) && api != Some(ApiKey::SaslHandshake) {
            let name = api.map_or_else(
                || parsed.header.request_api_key.to_string(),
                |k| k.kafka_name().to_string(),
            );
            let message = format!("Unexpected Kafka request of type {name} during SASL handshake.");
            return Step::Close(if matches!(self.state, State::Initial) {
                format!(
                    "Invalid request, potential reasons: kafka client configured with the wrong \
                     security protocol, it does not support KIP-43 or it is not a kafka client. \
                     ({message})"
                )
            } else {
                message
            });
        }
        if matches!(self.state, State::Initial) {
            self.state = State::HandshakeOrVersions;
        }
        if api == Some(ApiKey::ApiVersions) {
            if !matches!(self.state, State::HandshakeOrVersions) || self.previous.is_some() {
                return Step::Close(
                    "Unexpected ApiVersions request received during SASL authentication"
                        .to_string(),
                );
            }
            self.state = State::Handshake;
            return Step::ApiVersions;
        }
        let version = parsed.header.request_api_version;
        let correlation_id = parsed.header.correlation_id;
        let (lo, hi) = ApiKey::SaslHandshake.versions();
        if version < lo || version > hi {
            return Step::Close(format!(
                "Version {version} is not supported for apiKey SASL_HANDSHAKE"
            ));
        }
        let request = match RequestBody::decode(ApiKey::SaslHandshake, version, &mut rest) {
            Ok(RequestBody::SaslHandshake(r)) => r,
            Ok(_) => return Step::Close("SaslHandshake did not decode as one".to_string()),
            Err(e) => return Step::Close(decode_failure("SASL_HANDSHAKE", version, &e)),
        };
        let enabled: Vec<kraft_protocol::StrBytes> = self
            .listener
            .settings
            .mechanisms
            .iter()
            .map(|m| kraft_protocol::StrBytes::from(m.name()))
            .collect();
        let wanted = request.mechanism.to_string();
        let mechanism = self
            .listener
            .settings
            .mechanisms
            .iter()
            .copied()
            .find(|m| m.name() == wanted);
        let Some(mechanism) = mechanism else {
            let body = ResponseBody::SaslHandshake(SaslHandshakeResponse {
                error_code: ErrorCode::UnsupportedSaslMechanism.code(),
                mechanisms: enabled,
            });
            return match super::encode_response(
                correlation_id,
                ApiKey::SaslHandshake,
                version,
                &body,
            ) {
                Ok(bytes) => {
                    Step::RespondAndClose(bytes, format!("Unsupported SASL mechanism {wanted}"))
                }
                Err(e) => Step::Close(e),
            };
        };
        let body = ResponseBody::SaslHandshake(SaslHandshakeResponse {
            error_code: ErrorCode::None.code(),
            mechanisms: enabled,
        });
        let bytes =
            match super::encode_response(correlation_id, ApiKey::SaslHandshake, version, &body) {
                Ok(b) => b,
                Err(e) => return Step::Close(e),
            };
        if let Some(previous) = self.mechanism.filter(|_| self.previous.is_some()) {
            if previous != mechanism {
                self.state = State::ReauthBadMechanism(format!(
                    "SASL mechanism '{}' requested by client is not supported for \
                     re-authentication of mechanism '{}'",
                    mechanism.name(),
                    previous.name()
                ));
                return Step::Respond(bytes);
            }
        }
        let server = match (mechanism, &self.listener.oauthbearer) {
            (Mechanism::OAuthBearer, Some(validator)) => Some(Box::new(OAuthBearerServer::new(
                validator.clone(),
                self.listener.server_config.now_ms,
            ))
                as Box<dyn SaslServer>),
            _ => sasl::new_server(mechanism, &self.listener.server_config),
        };
        let Some(server) = server else {
            return Step::Close(format!(
                "Kafka Server failed to create a SaslServer to interact with a client during \
                 session authentication with server mechanism {}",
                mechanism.name()
            ));
        };
        tracing::debug!(
            mechanism = mechanism.name(),
            "Using SASL mechanism provided by client"
        );
        self.state = State::Authenticate {
            server,
            mechanism,
            raw: version == 0,
        };
        Step::Respond(bytes)
    }

    fn text(&self) -> &'static str {
        if self.previous.is_some() {
            "re-authentication"
        } else {
            "authentication"
        }
    }

    /// Runs one token through the mechanism: the bytes to send back and
    /// whether it completed, or the failure message for the client.
    fn evaluate(&mut self, token: &[u8]) -> Result<(Vec<u8>, i64), String> {
        let text = self.text();
        let State::Authenticate {
            server, mechanism, ..
        } = &mut self.state
        else {
            return Err(format!("Unexpected SASL token during {text}"));
        };
        let mechanism = *mechanism;
        match server.evaluate(token) {
            Ok(ServerStep::Challenge(challenge)) => Ok((challenge, 0)),
            Ok(ServerStep::Complete {
                final_message,
                authorization_id,
                token_authenticated,
            }) => {
                let who = Authenticated {
                    principal: KafkaPrincipal::user(authorization_id),
                    token_authenticated,
                };
                if let Some(previous) = &self.previous {
                    if previous.principal != who.principal {
                        return Err(format!(
                            "Cannot change principals during re-authentication from {}.{}: {}.{}",
                            previous.principal.principal_type,
                            previous.principal.name,
                            who.principal.principal_type,
                            who.principal.name
                        ));
                    }
                }
                let max_reauth = self
                    .listener
                    .settings
                    .max_reauth_ms
                    .get(mechanism.name())
                    .copied()
                    .unwrap_or(0);
                // Kafka's rule: the smaller of connections.max.reauth.ms (when
                // set) and the time left on the credential (a token's expiry).
                let now_ms = (self.listener.server_config.now_ms)();
                let credential_left = server
                    .credential_expiry_ms()
                    .map(|t| t.saturating_sub(now_ms));
                let lifetime_ms = match (credential_left, max_reauth > 0) {
                    (None, false) => 0,
                    (None, true) => max_reauth,
                    (Some(left), false) => left.max(0),
                    (Some(left), true) => left.min(max_reauth).max(0),
                };
                self.expires_at = (credential_left.is_some() || max_reauth > 0).then(|| {
                    Instant::now() + Duration::from_millis(u64::try_from(lifetime_ms).unwrap_or(0))
                });
                tracing::debug!(
                    principal = %who.principal,
                    mechanism = mechanism.name(),
                    session_lifetime_ms = lifetime_ms,
                    "SASL {text} complete"
                );
                self.authenticated = Some(who);
                self.mechanism = Some(mechanism);
                self.previous = None;
                self.state = State::Complete;
                Ok((final_message, lifetime_ms))
            }
            Err(failure) => {
                let failure = if self.previous.is_some() {
                    failure.for_reauthentication()
                } else {
                    failure
                };
                tracing::info!(
                    mechanism = mechanism.name(),
                    reason = %failure.log_detail,
                    "Failed {text}: {}",
                    failure.message
                );
                Err(failure.message)
            }
        }
    }

    fn on_raw_token(&mut self, frame: &Bytes) -> Step {
        match self.evaluate(frame) {
            Ok((bytes, _)) => {
                let mut out = Vec::with_capacity(4 + bytes.len());
                out.extend_from_slice(&u32::try_from(bytes.len()).unwrap_or(0).to_be_bytes());
                out.extend_from_slice(&bytes);
                Step::Respond(out)
            }
            Err(message) => Step::Close(message),
        }
    }

    fn on_authenticate(&mut self, frame: &Bytes) -> Step {
        let mut rest = frame.clone();
        let parsed = match decode_request_header(&mut rest) {
            Ok(p) => p,
            Err(e) => return Step::Close(format!("invalid request header during SASL: {e}")),
        };
        let version = parsed.header.request_api_version;
        let correlation_id = parsed.header.correlation_id;
        let Some(api) = parsed.api_key else {
            return Step::Close(format!(
                "Unexpected Kafka request of type {} during SASL authentication.",
                parsed.header.request_api_key
            ));
        };
        if api != ApiKey::SaslAuthenticate {
            let message = format!(
                "Unexpected Kafka request of type {} during SASL authentication.",
                api.kafka_name()
            );
            // Kafka answers with the request's own error response, then closes.
            let (lo, hi) = api.versions();
            if version < lo || version > hi {
                return Step::Close(message);
            }
            return match RequestBody::decode(api, version, &mut rest) {
                Ok(request) => match crate::handlers::error_response(
                    &request,
                    version,
                    ErrorCode::IllegalSaslState,
                    Some(&message),
                ) {
                    Some(body) => match super::encode_response(correlation_id, api, version, &body)
                    {
                        Ok(bytes) => Step::RespondAndClose(bytes, message),
                        Err(_) => Step::Close(message),
                    },
                    None => Step::Close(message),
                },
                Err(_) => Step::Close(message),
            };
        }
        let (lo, hi) = ApiKey::SaslAuthenticate.versions();
        if version < lo || version > hi {
            return Step::Close(format!(
                "Version {version} is not supported for apiKey SASL_AUTHENTICATE"
            ));
        }
        let token = match RequestBody::decode(ApiKey::SaslAuthenticate, version, &mut rest) {
            Ok(RequestBody::SaslAuthenticate(r)) => r.auth_bytes,
            Ok(_) => return Step::Close("SaslAuthenticate did not decode as one".to_string()),
            Err(e) => return Step::Close(decode_failure("SASL_AUTHENTICATE", version, &e)),
        };
        if version > 0 {
            self.supports_reauth = true;
        }
        let (body, close) = match self.evaluate(&token) {
            Ok((bytes, lifetime_ms)) => (
                SaslAuthenticateResponse {
                    error_code: ErrorCode::None.code(),
                    error_message: None,
                    auth_bytes: Bytes::from(bytes),
                    session_lifetime_ms: lifetime_ms,
                    ..Default::default()
                },
                None,
            ),
            Err(message) => (
                SaslAuthenticateResponse {
                    error_code: ErrorCode::SaslAuthenticationFailed.code(),
                    error_message: Some(kraft_protocol::StrBytes::from(message.as_str())),
                    ..Default::default()
                },
                Some(message),
            ),
        };
        let body = ResponseBody::SaslAuthenticate(body);
        match super::encode_response(correlation_id, ApiKey::SaslAuthenticate, version, &body) {
            Ok(bytes) => match close {
                None => Step::Respond(bytes),
                Some(reason) => Step::RespondAndClose(bytes, reason),
            },
            Err(e) => Step::Close(e),
        }
    }
}

/// Kafka's text for a request body that does not decode.
fn decode_failure(api: &str, version: i16, e: &kraft_protocol::DecodeError) -> String {
    format!("error getting request for apiKey: {api}, apiVersion: {version}: {e}")
}

/// Whether `frame` is a SaslHandshake request (by its API key alone).
pub(super) fn is_sasl_handshake(frame: &Bytes) -> bool {
    frame.len() >= 2 && i16::from_be_bytes([frame[0], frame[1]]) == ApiKey::SaslHandshake.id()
}
