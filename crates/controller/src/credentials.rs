//! SCRAM credentials and delegation tokens for SASL logins, read from the
//! metadata image at each login: a credential added or deleted is effective
//! on the next authentication, as on a Kafka controller whose credential
//! cache follows the image.

use kraft_security::sasl::{CredentialSource, ScramCredential, ScramMechanism, TokenCredential};

use crate::config::security::Password;
use crate::handlers::tokens::token_hmac;
use crate::image::{ScramImage, SharedImage};

/// The image's SCRAM credentials and delegation tokens.
pub struct ImageCredentials {
    image: SharedImage,
    token_secret: Option<Password>,
}

impl ImageCredentials {
    /// Credentials from `image`; token logins need `delegation.token.secret.key`.
    pub fn new(image: SharedImage, token_secret: Option<Password>) -> ImageCredentials {
        ImageCredentials {
            image,
            token_secret,
        }
    }
}

impl CredentialSource for ImageCredentials {
    fn scram(&self, mechanism: ScramMechanism, user: &str) -> Option<ScramCredential> {
        let id = match mechanism {
            ScramMechanism::Sha256 => ScramImage::SCRAM_SHA_256,
            ScramMechanism::Sha512 => ScramImage::SCRAM_SHA_512,
        };
        let image = self.image.read();
        image.scram().credential(id, user).map(|c| ScramCredential {
            salt: c.salt.to_vec(),
            stored_key: c.stored_key.to_vec(),
            server_key: c.server_key.to_vec(),
            iterations: c.iterations,
        })
    }

    fn token(&self, token_id: &str) -> Option<TokenCredential> {
        let secret = self.token_secret.as_ref()?;
        let image = self.image.read();
        let token = image.delegation_tokens().token(token_id)?;
        Some(TokenCredential {
            owner: token.owner.clone(),
            hmac: token_hmac(secret, token_id).to_vec(),
            expiry_timestamp_ms: token.expiration_timestamp,
        })
    }
}
