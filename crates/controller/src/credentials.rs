//! SCRAM credentials and delegation tokens for SASL logins, read from the
//! metadata image at each login: a credential added or deleted is effective
//! on the next authentication, as on a Kafka controller whose credential
//! cache follows the image.
//!
//! Before the cluster's bootstrap records are in this controller's image
//! (no metadata.version yet: a new cluster before its first leader's
//! activation commits, or a controller that has not yet learned what is
//! committed), SCRAM logins are checked against the credentials of the
//! bootstrap checkpoint (`kraft storage format --add-scram`) instead. That
//! is what lets controllers authenticate each other with SCRAM while they
//! elect the first leader, which Kafka cannot do (KAFKA-15513): the
//! credentials they need are only written to the log once a leader exists.
//! Once the image has a metadata.version, only the image counts, so a
//! credential changed or deleted later is never accepted from the
//! bootstrap checkpoint.

use std::sync::Arc;

use kraft_protocol::MetadataRecordBody;
use kraft_security::sasl::{CredentialSource, ScramCredential, ScramMechanism, TokenCredential};
use tokio::sync::watch;

use crate::activation::BootstrapMetadata;
use crate::config::security::Password;
use crate::handlers::tokens::token_hmac;
use crate::image::{ScramImage, SharedImage};

/// The image's SCRAM credentials and delegation tokens.
pub struct ImageCredentials {
    image: SharedImage,
    token_secret: Option<Password>,
    bootstrap: Option<watch::Receiver<Option<Arc<BootstrapMetadata>>>>,
}

impl ImageCredentials {
    /// Credentials from `image`; token logins need `delegation.token.secret.key`.
    pub fn new(image: SharedImage, token_secret: Option<Password>) -> ImageCredentials {
        ImageCredentials {
            image,
            token_secret,
            bootstrap: None,
        }
    }

    /// The same, with the bootstrap checkpoint's SCRAM credentials used
    /// while the image has no metadata.version (see the module docs).
    pub(crate) fn with_bootstrap(
        mut self,
        bootstrap: watch::Receiver<Option<Arc<BootstrapMetadata>>>,
    ) -> ImageCredentials {
        self.bootstrap = Some(bootstrap);
        self
    }

    /// The bootstrap checkpoint's credential of `user` for `mechanism` (the
    /// last record for them, as replaying the records would leave it).
    fn bootstrap_scram(&self, mechanism: i8, user: &str) -> Option<ScramCredential> {
        let bootstrap = self.bootstrap.as_ref()?.borrow().clone()?;
        bootstrap.records.iter().rev().find_map(|r| match &r.body {
            MetadataRecordBody::UserScramCredential(c)
                if c.mechanism == mechanism && c.name.as_str() == user =>
            {
                Some(ScramCredential {
                    salt: c.salt.to_vec(),
                    stored_key: c.stored_key.to_vec(),
                    server_key: c.server_key.to_vec(),
                    iterations: c.iterations,
                })
            }
            _ => None,
        })
    }
}

impl CredentialSource for ImageCredentials {
    fn scram(&self, mechanism: ScramMechanism, user: &str) -> Option<ScramCredential> {
        let id = match mechanism {
            ScramMechanism::Sha256 => ScramImage::SCRAM_SHA_256,
            ScramMechanism::Sha512 => ScramImage::SCRAM_SHA_512,
        };
        {
            let image = self.image.read();
            if image.metadata_version().is_some() {
                return image.scram().credential(id, user).map(|c| ScramCredential {
                    salt: c.salt.to_vec(),
                    stored_key: c.stored_key.to_vec(),
                    server_key: c.server_key.to_vec(),
                    iterations: c.iterations,
                });
            }
        }
        self.bootstrap_scram(id, user)
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

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use crate::image::MetadataRecord;
    use bytes::Bytes;
    use kraft_protocol::messages::user_scram_credential_record::UserScramCredentialRecord;

    fn record(name: &str, mechanism: i8, seed: u8) -> MetadataRecord {
        MetadataRecord::new(
            UserScramCredentialRecord {
                name: name.into(),
                mechanism,
                salt: Bytes::from(vec![seed; 16]),
                stored_key: Bytes::from(vec![seed + 1; 64]),
                server_key: Bytes::from(vec![seed + 2; 64]),
                iterations: 4096,
                ..Default::default()
            },
            0,
        )
    }

    fn with_bootstrap(
        image: &SharedImage,
        records: Vec<MetadataRecord>,
    ) -> (
        ImageCredentials,
        watch::Sender<Option<Arc<BootstrapMetadata>>>,
    ) {
        let (tx, rx) = watch::channel(None);
        tx.send_replace(Some(Arc::new(BootstrapMetadata::from_checkpoint(records))));
        (
            ImageCredentials::new(image.clone(), None).with_bootstrap(rx),
            tx,
        )
    }

    #[test]
    fn the_bootstrap_checkpoint_serves_logins_until_the_image_has_a_metadata_version() {
        let image = SharedImage::unloaded();
        let (credentials, _tx) = with_bootstrap(
            &image,
            vec![
                MetadataRecord::feature_level("metadata.version", 33),
                record("ctl", 2, 1),
                record("ctl", 2, 7),
                record("other", 1, 3),
            ],
        );
        // The last record for the user and mechanism, as a replay leaves it.
        let found = credentials.scram(ScramMechanism::Sha512, "ctl").unwrap();
        assert_eq!(found.salt, vec![7; 16]);
        assert_eq!(found.stored_key, vec![8; 64]);
        assert_eq!(found.server_key, vec![9; 64]);
        assert_eq!(found.iterations, 4096);
        assert!(credentials.scram(ScramMechanism::Sha256, "ctl").is_none());
        assert!(credentials.scram(ScramMechanism::Sha256, "other").is_some());
        assert!(credentials
            .scram(ScramMechanism::Sha512, "nobody")
            .is_none());

        // Once the image has a metadata.version only the image counts: the
        // bootstrap's credential is not used for a user the image lacks.
        image.update(|i| {
            i.replay(&MetadataRecord::feature_level("metadata.version", 33))
                .unwrap();
            i.replay(&record("other", 1, 11)).unwrap();
        });
        assert!(credentials.scram(ScramMechanism::Sha512, "ctl").is_none());
        let other = credentials.scram(ScramMechanism::Sha256, "other").unwrap();
        assert_eq!(other.salt, vec![11; 16]);
    }

    #[test]
    fn without_a_bootstrap_checkpoint_nothing_is_found_before_activation() {
        let image = SharedImage::unloaded();
        let plain = ImageCredentials::new(image.clone(), None);
        assert!(plain.scram(ScramMechanism::Sha512, "ctl").is_none());
        let (tx, rx) = watch::channel(None);
        let waiting = ImageCredentials::new(image, None).with_bootstrap(rx);
        assert!(waiting.scram(ScramMechanism::Sha512, "ctl").is_none());
        drop(tx);
    }
}
