//! SASL/PLAIN (RFC 4616) as Kafka's `PlainSaslServer` runs it, and the
//! client side (`authzid NUL authcid NUL passwd` with an empty authzid, as
//! the JDK's PLAIN client sends it for Kafka).

use std::collections::BTreeMap;

use subtle::ConstantTimeEq;

use super::{SaslClient, SaslFailure, SaslServer, ServerStep};
use crate::Secret;

/// The PLAIN server: checks the user's password against the listener's
/// `user_<name>` JAAS options.
pub(crate) struct PlainServer {
    users: BTreeMap<String, Secret>,
    complete: bool,
}

impl PlainServer {
    pub(crate) fn new(users: BTreeMap<String, Secret>) -> Self {
        PlainServer {
            users,
            complete: false,
        }
    }

    fn authenticate(&self, username: &str, password: &str) -> bool {
        // Constant time in the password's content (its length may show), as
        // Kafka's `Utils.isEqualConstantTime`.
        self.users.get(username).is_some_and(|expected| {
            bool::from(expected.expose().as_bytes().ct_eq(password.as_bytes()))
        })
    }
}

/// Splits at NUL as Kafka does: at most four pieces, so a fourth NUL shows as
/// "got 4".
fn tokens(message: &str) -> Vec<&str> {
    let mut out = Vec::with_capacity(3);
    let mut rest = message;
    for _ in 0..4 {
        match rest.find('\0') {
            Some(i) => {
                out.push(&rest[..i]);
                rest = &rest[i + 1..];
            }
            None => {
                out.push(rest);
                break;
            }
        }
    }
    out
}

impl SaslServer for PlainServer {
    fn evaluate(&mut self, response: &[u8]) -> Result<ServerStep, SaslFailure> {
        if self.complete {
            return Err(SaslFailure::illegal_state(
                "Unexpected challenge in Sasl server state COMPLETE",
            ));
        }
        let message = String::from_utf8_lossy(response);
        let parts = tokens(&message);
        let [authorization_id, username, password] = parts.as_slice() else {
            return Err(SaslFailure::authentication(format!(
                "Invalid SASL/PLAIN response: expected 3 tokens, got {}",
                parts.len()
            )));
        };
        if username.is_empty() {
            return Err(SaslFailure::authentication(
                "Authentication failed: username not specified",
            ));
        }
        if password.is_empty() {
            return Err(SaslFailure::authentication(
                "Authentication failed: password not specified",
            ));
        }
        if !self.authenticate(username, password) {
            tracing::debug!(mechanism = "PLAIN", "invalid username or password");
            return Err(SaslFailure::authentication(
                "Authentication failed: Invalid username or password",
            ));
        }
        if !authorization_id.is_empty() && authorization_id != username {
            return Err(SaslFailure::authentication(
                "Authentication failed: Client requested an authorization id that is different from username",
            ));
        }
        self.complete = true;
        Ok(ServerStep::Complete {
            final_message: Vec::new(),
            authorization_id: (*username).to_owned(),
            token_authenticated: false,
        })
    }
}

/// The PLAIN client.
pub(crate) struct PlainClient {
    username: String,
    password: Secret,
    complete: bool,
}

impl PlainClient {
    pub(crate) fn new(username: &str, password: Secret) -> Self {
        PlainClient {
            username: username.to_owned(),
            password,
            complete: false,
        }
    }
}

impl SaslClient for PlainClient {
    fn initial_response(&mut self) -> Result<Vec<u8>, SaslFailure> {
        if self.complete {
            return Err(SaslFailure::illegal_state(
                "PLAIN authentication already completed",
            ));
        }
        let mut message =
            Vec::with_capacity(2 + self.username.len() + self.password.expose().len());
        message.push(0);
        message.extend_from_slice(self.username.as_bytes());
        message.push(0);
        message.extend_from_slice(self.password.expose().as_bytes());
        self.complete = true;
        Ok(message)
    }

    fn evaluate_challenge(&mut self, challenge: &[u8]) -> Result<Option<Vec<u8>>, SaslFailure> {
        if !self.complete && challenge.is_empty() {
            return self.initial_response().map(Some);
        }
        if !self.complete {
            return Err(SaslFailure::authentication(
                "Unexpected challenge before the SASL/PLAIN message",
            ));
        }
        if challenge.is_empty() {
            // The server's empty answer to the PLAIN message.
            return Ok(None);
        }
        Err(SaslFailure::illegal_state(
            "PLAIN authentication already completed",
        ))
    }

    fn is_complete(&self) -> bool {
        self.complete
    }
}
