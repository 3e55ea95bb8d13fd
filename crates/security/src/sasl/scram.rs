//! SCRAM-SHA-256 and SCRAM-SHA-512 (RFC 5802, RFC 7677) as Kafka runs them:
//! the formulas of Kafka's `ScramFormatter`, the server flow of
//! `ScramSaslServer` (with delegation token authentication) and the client
//! flow of `ScramSaslClient`.
//!
//! HMAC, SHA-2 and PBKDF2 (`Hi`) come from the RustCrypto crates.

use std::sync::Arc;

use base64::Engine;
use hmac::{Hmac, Mac};
use sha2::{Digest, Sha256, Sha512};
use subtle::ConstantTimeEq;

use super::scram_messages::{
    ClientFinalMessage, ClientFirstMessage, ServerFinalMessage, ServerFirstMessage, BASE64,
    TOKEN_AUTH_EXTENSION,
};
use super::{
    CredentialSource, Mechanism, SaslClient, SaslFailure, SaslServer, ScramCredential,
    ScramMechanism, ServerStep,
};
use crate::{Secret, SecurityError};

/// `HMAC(key, data)` with the mechanism's hash.
pub fn hmac(mechanism: ScramMechanism, key: &[u8], data: &[u8]) -> Vec<u8> {
    fn run<M: Mac + hmac::digest::KeyInit>(key: &[u8], data: &[u8]) -> Vec<u8> {
        match <M as hmac::digest::KeyInit>::new_from_slice(key) {
            Ok(mut mac) => {
                mac.update(data);
                mac.finalize().into_bytes().to_vec()
            }
            // HMAC takes keys of any length; this cannot happen.
            Err(_) => Vec::new(),
        }
    }
    match mechanism {
        ScramMechanism::Sha256 => run::<Hmac<Sha256>>(key, data),
        ScramMechanism::Sha512 => run::<Hmac<Sha512>>(key, data),
    }
}

/// `H(data)` with the mechanism's hash.
pub fn hash(mechanism: ScramMechanism, data: &[u8]) -> Vec<u8> {
    match mechanism {
        ScramMechanism::Sha256 => Sha256::digest(data).to_vec(),
        ScramMechanism::Sha512 => Sha512::digest(data).to_vec(),
    }
}

/// `SaltedPassword = Hi(password, salt, i)`: PBKDF2 with HMAC, one block.
/// The password is its UTF-8 bytes (Kafka does no SASLprep). An iteration
/// count below 1 counts as 1, as in Kafka's loop.
pub fn salted_password(
    mechanism: ScramMechanism,
    password: &[u8],
    salt: &[u8],
    iterations: i32,
) -> Vec<u8> {
    let rounds = u32::try_from(iterations.max(1)).unwrap_or(1);
    let mut out = vec![0u8; mechanism.hash_len()];
    match mechanism {
        ScramMechanism::Sha256 => pbkdf2::pbkdf2_hmac::<Sha256>(password, salt, rounds, &mut out),
        ScramMechanism::Sha512 => pbkdf2::pbkdf2_hmac::<Sha512>(password, salt, rounds, &mut out),
    }
    out
}

/// `ClientKey = HMAC(SaltedPassword, "Client Key")`.
pub fn client_key(mechanism: ScramMechanism, salted_password: &[u8]) -> Vec<u8> {
    hmac(mechanism, salted_password, b"Client Key")
}

/// `StoredKey = H(ClientKey)`.
pub fn stored_key(mechanism: ScramMechanism, client_key: &[u8]) -> Vec<u8> {
    hash(mechanism, client_key)
}

/// `ServerKey = HMAC(SaltedPassword, "Server Key")`.
pub fn server_key(mechanism: ScramMechanism, salted_password: &[u8]) -> Vec<u8> {
    hmac(mechanism, salted_password, b"Server Key")
}

/// `AuthMessage = client-first-message-bare + "," + server-first-message + "," + client-final-message-without-proof`.
pub fn auth_message(
    client_first_bare: &str,
    server_first: &str,
    client_final_without_proof: &str,
) -> String {
    format!("{client_first_bare},{server_first},{client_final_without_proof}")
}

/// `ClientProof = ClientKey XOR HMAC(StoredKey, AuthMessage)`.
pub fn client_proof(
    mechanism: ScramMechanism,
    salted_password: &[u8],
    auth_message: &str,
) -> Vec<u8> {
    let client_key = client_key(mechanism, salted_password);
    let stored_key = stored_key(mechanism, &client_key);
    let signature = hmac(mechanism, &stored_key, auth_message.as_bytes());
    xor(&client_key, &signature)
}

/// `ServerSignature = HMAC(ServerKey, AuthMessage)`.
pub fn server_signature(
    mechanism: ScramMechanism,
    server_key: &[u8],
    auth_message: &str,
) -> Vec<u8> {
    hmac(mechanism, server_key, auth_message.as_bytes())
}

fn xor(a: &[u8], b: &[u8]) -> Vec<u8> {
    a.iter().zip(b).map(|(x, y)| x ^ y).collect()
}

/// The credential stored for a salted password (`ScramFormatter.generateCredential`).
pub fn credential_from_salted_password(
    mechanism: ScramMechanism,
    salt: &[u8],
    salted_password: &[u8],
    iterations: i32,
) -> ScramCredential {
    let client_key = client_key(mechanism, salted_password);
    ScramCredential {
        salt: salt.to_vec(),
        stored_key: stored_key(mechanism, &client_key),
        server_key: server_key(mechanism, salted_password),
        iterations,
    }
}

/// The credential Kafka stores for a password (`kafka-storage format
/// --add-scram`, `kafka-configs`, `ScramFormatter`).
///
/// `salt` is used as given; when it is empty a random salt is made as Kafka
/// makes one (the text of a random 130-bit number in base 36). Making a
/// random salt panics only if the operating system's random source fails;
/// [`generate_credential`] returns that as an error instead.
pub fn scram_credential(
    mechanism: ScramMechanism,
    password: &str,
    salt: &[u8],
    iterations: i32,
) -> ScramCredential {
    let random;
    let salt = if salt.is_empty() {
        random = match secure_random_string() {
            Ok(s) => s.into_bytes(),
            Err(e) => panic!("no random salt: the operating system's random source failed: {e}"),
        };
        random.as_slice()
    } else {
        salt
    };
    let salted = salted_password(mechanism, password.as_bytes(), salt, iterations);
    credential_from_salted_password(mechanism, salt, &salted, iterations)
}

/// [`scram_credential`] with a random salt, as Kafka's
/// `ScramFormatter.generateCredential(password, iterations)`.
pub fn generate_credential(
    mechanism: ScramMechanism,
    password: &str,
    iterations: i32,
) -> Result<ScramCredential, SecurityError> {
    let salt = secure_random_string()
        .map_err(|e| SecurityError::Io(std::io::Error::other(e.to_string())))?
        .into_bytes();
    let salted = salted_password(mechanism, password.as_bytes(), &salt, iterations);
    Ok(credential_from_salted_password(
        mechanism, &salt, &salted, iterations,
    ))
}

/// The SCRAM credential of a delegation token, as Kafka's
/// `DelegationTokenManager` makes it: the password is the token HMAC in
/// standard base64, the salt random, the iterations the mechanism's minimum.
pub fn token_credential(
    mechanism: ScramMechanism,
    hmac: &[u8],
) -> Result<ScramCredential, getrandom::Error> {
    let salt = secure_random_string()?.into_bytes();
    let password = BASE64.encode(hmac);
    let iterations = mechanism.min_iterations();
    let salted = salted_password(mechanism, password.as_bytes(), &salt, iterations);
    Ok(credential_from_salted_password(
        mechanism, &salt, &salted, iterations,
    ))
}

/// A user name in `saslname` form: `=` as `=3D`, then `,` as `=2C`.
pub fn sasl_name(username: &str) -> String {
    username.replace('=', "=3D").replace(',', "=2C")
}

/// The user name of a `saslname`, as Kafka's `ScramFormatter.username`:
/// `=2C` becomes `,`, then any `=` not part of `=3D` is an error, then `=3D`
/// becomes `=`. The error text is Kafka's: `Invalid username: <saslname>`.
pub fn username(sasl_name: &str) -> Result<String, String> {
    let name = sasl_name.replace("=2C", ",");
    if name.replace("=3D", "").contains('=') {
        return Err(format!("Invalid username: {sasl_name}"));
    }
    Ok(name.replace("=3D", "="))
}

/// A random string as Kafka's `ScramFormatter.secureRandomString()` makes
/// nonces and salts: a random 130-bit number written in base 36.
pub fn secure_random_string() -> Result<String, getrandom::Error> {
    let mut bytes = [0u8; 17];
    getrandom::fill(&mut bytes)?;
    bytes[0] &= 0x03; // 130 bits: 2 + 16 * 8
    Ok(to_base36(&bytes))
}

/// A big-endian unsigned number in base 36, lower case, no leading zeros.
fn to_base36(number: &[u8]) -> String {
    const DIGITS: &[u8; 36] = b"0123456789abcdefghijklmnopqrstuvwxyz";
    let mut n = number.to_vec();
    let mut out = Vec::new();
    while n.iter().any(|&b| b != 0) {
        let mut rem = 0u32;
        for b in n.iter_mut() {
            let cur = (rem << 8) | u32::from(*b);
            *b = (cur / 36) as u8;
            rem = cur % 36;
        }
        out.push(DIGITS[rem as usize]);
    }
    if out.is_empty() {
        out.push(b'0');
    }
    out.reverse();
    String::from_utf8_lossy(&out).into_owned()
}

/// The authorization id of a token owner: the name part of a principal
/// string `Type:name` (Kafka uses `KafkaPrincipal.getName()`).
fn owner_name(owner: &str) -> &str {
    owner.split_once(':').map_or(owner, |(_, name)| name)
}

enum ServerState {
    ReceiveClientFirst,
    ReceiveClientFinal(Box<ServerExchange>),
    Complete,
    Failed,
}

struct ServerExchange {
    client_first: ClientFirstMessage,
    server_first: ServerFirstMessage,
    credential: ScramCredential,
    authorization_id: String,
    token_expiry_ms: Option<i64>,
}

/// The SCRAM server (Kafka's `ScramSaslServer`).
pub struct ScramServer {
    mechanism: ScramMechanism,
    credentials: Arc<dyn CredentialSource>,
    now_ms: fn() -> i64,
    server_nonce: Option<String>,
    state: ServerState,
    token_expiry_ms: Option<i64>,
}

impl ScramServer {
    /// A server that looks credentials up in `credentials`; `now_ms` decides
    /// token expiry.
    pub fn new(
        mechanism: ScramMechanism,
        credentials: Arc<dyn CredentialSource>,
        now_ms: fn() -> i64,
    ) -> Self {
        ScramServer {
            mechanism,
            credentials,
            now_ms,
            server_nonce: None,
            state: ServerState::ReceiveClientFirst,
            token_expiry_ms: None,
        }
    }

    /// A server with a fixed server nonce instead of a random one: only for
    /// test vectors (RFC 7677's example exchange).
    pub fn with_server_nonce(mut self, nonce: &str) -> Self {
        self.server_nonce = Some(nonce.to_owned());
        self
    }

    fn state_name(&self) -> &'static str {
        match self.state {
            ServerState::ReceiveClientFirst => "RECEIVE_CLIENT_FIRST_MESSAGE",
            ServerState::ReceiveClientFinal(_) => "RECEIVE_CLIENT_FINAL_MESSAGE",
            ServerState::Complete => "COMPLETE",
            ServerState::Failed => "FAILED",
        }
    }

    fn fail(&self, detail: impl Into<String>) -> SaslFailure {
        SaslFailure::invalid_credentials(self.mechanism.mechanism(), detail)
    }

    fn client_first(&mut self, response: &[u8]) -> Result<ServerStep, SaslFailure> {
        let client_first = ClientFirstMessage::parse(response).map_err(|e| self.fail(e.reason))?;
        if client_first
            .extensions
            .keys()
            .any(|k| k != TOKEN_AUTH_EXTENSION)
        {
            tracing::debug!(
                mechanism = self.mechanism.mechanism_name(),
                "Unsupported extensions will be ignored, supported [tokenauth]"
            );
        }
        let server_nonce = match &self.server_nonce {
            Some(n) => n.clone(),
            None => secure_random_string()
                .map_err(|e| self.fail(format!("Authentication failed: no random nonce: {e}")))?,
        };
        let username = username(&client_first.sasl_name).map_err(|e| {
            self.fail(format!(
                "Authentication failed: Credentials could not be obtained ({e})"
            ))
        })?;
        let (credential, authorization_id, token_expiry_ms) = if client_first.token_authenticated()
        {
            let invalid_token =
                || format!("Token Authentication failed: Invalid tokenId : {username}");
            let token = self
                .credentials
                .token(&username)
                .ok_or_else(|| self.fail(invalid_token()))?;
            let now = (self.now_ms)();
            if token.expiry_timestamp_ms < now {
                return Err(self.fail(format!(
                    "{} (expired at {} ms, now {now} ms)",
                    invalid_token(),
                    token.expiry_timestamp_ms
                )));
            }
            let credential = token_credential(self.mechanism, &token.hmac).map_err(|e| {
                self.fail(format!(
                    "Authentication failed: Credentials could not be obtained ({e})"
                ))
            })?;
            (
                credential,
                owner_name(&token.owner).to_owned(),
                Some(token.expiry_timestamp_ms),
            )
        } else {
            let credential = self
                .credentials
                .scram(self.mechanism, &username)
                .ok_or_else(|| self.fail("Authentication failed: Invalid user credentials"))?;
            (credential, username.clone(), None)
        };
        if !client_first.authorization_id.is_empty() && client_first.authorization_id != username {
            return Err(SaslFailure::authentication(
                "Authentication failed: Client requested an authorization id that is different from username",
            ));
        }
        if credential.iterations < self.mechanism.min_iterations() {
            return Err(self.fail(format!(
                "Iterations {} is less than the minimum {} for {}",
                credential.iterations,
                self.mechanism.min_iterations(),
                self.mechanism.enum_name()
            )));
        }
        let server_first = ServerFirstMessage::new(
            &client_first.nonce,
            &server_nonce,
            &credential.salt,
            credential.iterations,
        );
        let challenge = server_first.to_message().as_bytes().to_vec();
        self.state = ServerState::ReceiveClientFinal(Box::new(ServerExchange {
            client_first,
            server_first,
            credential,
            authorization_id,
            token_expiry_ms,
        }));
        Ok(ServerStep::Challenge(challenge))
    }

    fn client_final(
        &mut self,
        exchange: &ServerExchange,
        response: &[u8],
    ) -> Result<ServerStep, SaslFailure> {
        let client_final = ClientFinalMessage::parse(response).map_err(|e| self.fail(e.reason))?;
        if client_final.nonce != exchange.server_first.nonce {
            return Err(self.fail("Invalid client nonce in the final client message."));
        }
        if client_final.channel_binding != exchange.client_first.gs2_header().as_bytes() {
            return Err(self.fail("Invalid channel binding in the final client message."));
        }
        let auth = auth_message(
            exchange.client_first.bare(),
            exchange.server_first.to_message(),
            client_final.without_proof(),
        );
        let stored = &exchange.credential.stored_key;
        let client_signature = hmac(self.mechanism, stored, auth.as_bytes());
        if client_signature.len() != client_final.proof.len() {
            return Err(self.fail("Argument arrays must be of the same length"));
        }
        let computed = hash(self.mechanism, &xor(&client_signature, &client_final.proof));
        if !bool::from(computed.ct_eq(stored)) {
            return Err(self.fail("Invalid client credentials"));
        }
        let signature = server_signature(self.mechanism, &exchange.credential.server_key, &auth);
        Ok(ServerStep::Complete {
            final_message: ServerFinalMessage::Signature(signature)
                .to_message()
                .into_bytes(),
            authorization_id: exchange.authorization_id.clone(),
            token_authenticated: exchange.token_expiry_ms.is_some(),
        })
    }
}

impl SaslServer for ScramServer {
    fn evaluate(&mut self, response: &[u8]) -> Result<ServerStep, SaslFailure> {
        let state = std::mem::replace(&mut self.state, ServerState::Failed);
        let result = match state {
            ServerState::ReceiveClientFirst => self.client_first(response),
            ServerState::ReceiveClientFinal(exchange) => {
                let result = self.client_final(&exchange, response);
                if result.is_ok() {
                    self.token_expiry_ms = exchange.token_expiry_ms;
                    self.state = ServerState::Complete;
                }
                result
            }
            ServerState::Complete | ServerState::Failed => {
                self.state = state;
                return Err(SaslFailure::illegal_state(format!(
                    "Unexpected challenge in Sasl server state {}",
                    self.state_name()
                )));
            }
        };
        if let Err(failure) = &result {
            self.state = ServerState::Failed;
            tracing::debug!(
                mechanism = self.mechanism.mechanism_name(),
                detail = %failure.log_detail,
                "SCRAM authentication failed"
            );
        }
        result
    }

    fn credential_expiry_ms(&self) -> Option<i64> {
        match self.state {
            ServerState::Complete => self.token_expiry_ms,
            _ => None,
        }
    }
}

enum ClientState {
    SendClientFirst,
    ReceiveServerFirst(ClientFirstMessage),
    ReceiveServerFinal {
        salted_password: Vec<u8>,
        auth_message: String,
    },
    Complete,
    Failed,
}

/// The SCRAM client (Kafka's `ScramSaslClient`).
pub struct ScramClient {
    mechanism: ScramMechanism,
    username: String,
    password: Secret,
    token: bool,
    nonce: Option<String>,
    state: ClientState,
}

impl ScramClient {
    /// A client for `username` / `password`; `token` sends `tokenauth=true`
    /// (the user name is then the token id, the password the token HMAC).
    pub fn new(mechanism: ScramMechanism, username: &str, password: Secret, token: bool) -> Self {
        ScramClient {
            mechanism,
            username: username.to_owned(),
            password,
            token,
            nonce: None,
            state: ClientState::SendClientFirst,
        }
    }

    /// A client with a fixed nonce instead of a random one: only for test
    /// vectors (RFC 7677's example exchange).
    pub fn with_nonce(mut self, nonce: &str) -> Self {
        self.nonce = Some(nonce.to_owned());
        self
    }

    fn state_name(&self) -> &'static str {
        match self.state {
            ClientState::SendClientFirst => "SEND_CLIENT_FIRST_MESSAGE",
            ClientState::ReceiveServerFirst(_) => "RECEIVE_SERVER_FIRST_MESSAGE",
            ClientState::ReceiveServerFinal { .. } => "RECEIVE_SERVER_FINAL_MESSAGE",
            ClientState::Complete => "COMPLETE",
            ClientState::Failed => "FAILED",
        }
    }

    fn client_first(&mut self) -> Result<Vec<u8>, SaslFailure> {
        let nonce = match &self.nonce {
            Some(n) => n.clone(),
            None => secure_random_string()
                .map_err(|e| SaslFailure::authentication(format!("No random nonce: {e}")))?,
        };
        let mut extensions = std::collections::BTreeMap::new();
        if self.token {
            extensions.insert(TOKEN_AUTH_EXTENSION.to_owned(), "true".to_owned());
        }
        let message = ClientFirstMessage::new(&sasl_name(&self.username), &nonce, extensions);
        let bytes = message.to_message().into_bytes();
        self.state = ClientState::ReceiveServerFirst(message);
        Ok(bytes)
    }

    fn server_first(
        &mut self,
        client_first: &ClientFirstMessage,
        challenge: &[u8],
    ) -> Result<Vec<u8>, SaslFailure> {
        let server_first = ServerFirstMessage::parse(challenge)
            .map_err(|e| SaslFailure::authentication(e.reason))?;
        if !server_first.nonce.starts_with(&client_first.nonce) {
            return Err(SaslFailure::authentication(
                "Invalid server nonce: does not start with client nonce",
            ));
        }
        if server_first.iterations < self.mechanism.min_iterations() {
            return Err(SaslFailure::authentication(format!(
                "Requested iterations {} is less than the minimum {} for {}",
                server_first.iterations,
                self.mechanism.min_iterations(),
                self.mechanism.enum_name()
            )));
        }
        let salted = salted_password(
            self.mechanism,
            self.password.expose().as_bytes(),
            &server_first.salt,
            server_first.iterations,
        );
        let without_proof = ClientFinalMessage::without_proof_for(
            client_first.gs2_header().as_bytes(),
            &server_first.nonce,
        );
        let auth = auth_message(
            client_first.bare(),
            server_first.to_message(),
            &without_proof,
        );
        let proof = client_proof(self.mechanism, &salted, &auth);
        let message = ClientFinalMessage::new(
            client_first.gs2_header().as_bytes(),
            &server_first.nonce,
            proof,
        );
        self.state = ClientState::ReceiveServerFinal {
            salted_password: salted,
            auth_message: auth,
        };
        Ok(message.to_message().into_bytes())
    }

    fn server_final(&self, salted: &[u8], auth: &str, challenge: &[u8]) -> Result<(), SaslFailure> {
        let signature = match ServerFinalMessage::parse(challenge)
            .map_err(|e| SaslFailure::authentication(e.reason))?
        {
            ServerFinalMessage::Error(error) => {
                return Err(SaslFailure::authentication(format!(
                    "Sasl authentication using {} failed with error: {error}",
                    self.mechanism.enum_name()
                )))
            }
            ServerFinalMessage::Signature(s) => s,
        };
        let expected = server_signature(self.mechanism, &server_key(self.mechanism, salted), auth);
        if !bool::from(expected.ct_eq(&signature)) {
            return Err(SaslFailure::authentication(
                "Invalid server signature in server final message",
            ));
        }
        Ok(())
    }
}

impl SaslClient for ScramClient {
    fn initial_response(&mut self) -> Result<Vec<u8>, SaslFailure> {
        match self.state {
            ClientState::SendClientFirst => self
                .client_first()
                .inspect_err(|_| self.state = ClientState::Failed),
            _ => Err(SaslFailure::illegal_state(format!(
                "Unexpected challenge in Sasl client state {}",
                self.state_name()
            ))),
        }
    }

    fn evaluate_challenge(&mut self, challenge: &[u8]) -> Result<Option<Vec<u8>>, SaslFailure> {
        let state = std::mem::replace(&mut self.state, ClientState::Failed);
        let result = match state {
            ClientState::SendClientFirst => {
                if challenge.is_empty() {
                    self.client_first().map(Some)
                } else {
                    Err(SaslFailure::authentication("Expected empty challenge"))
                }
            }
            ClientState::ReceiveServerFirst(client_first) => {
                self.server_first(&client_first, challenge).map(Some)
            }
            ClientState::ReceiveServerFinal {
                salted_password,
                auth_message,
            } => self
                .server_final(&salted_password, &auth_message, challenge)
                .map(|()| {
                    self.state = ClientState::Complete;
                    None
                }),
            ClientState::Complete | ClientState::Failed => {
                self.state = state;
                return Err(SaslFailure::illegal_state(format!(
                    "Unexpected challenge in Sasl client state {}",
                    self.state_name()
                )));
            }
        };
        if result.is_err() {
            self.state = ClientState::Failed;
        }
        result
    }

    fn is_complete(&self) -> bool {
        matches!(self.state, ClientState::Complete)
    }
}

/// The mechanism of a SCRAM hash (for messages).
impl From<ScramMechanism> for Mechanism {
    fn from(m: ScramMechanism) -> Mechanism {
        m.mechanism()
    }
}

#[cfg(test)]
mod tests {
    use super::to_base36;

    #[test]
    fn base36_is_javas_biginteger_text() {
        assert_eq!(to_base36(&[0]), "0");
        assert_eq!(to_base36(&[35]), "z");
        assert_eq!(to_base36(&[36]), "10");
        assert_eq!(to_base36(&[0x01, 0x00]), "74");
        // 2^130 - 1, the largest 130-bit value: 26 digits.
        let mut max = [0xffu8; 17];
        max[0] = 0x03;
        assert_eq!(to_base36(&max), "1omfro7zwmumr3umxudzyj6scf");
    }
}
