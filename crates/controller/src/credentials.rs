//! SCRAM credentials and delegation tokens for SASL logins, read from the
//! metadata image at each login: a credential added or deleted is effective
//! on the next authentication, as on a Kafka controller whose credential
//! cache follows the image.
//!
//! Before the cluster's records are in this controller's image (no
//! metadata.version yet: a new cluster before its first leader's activation
//! commits, or a restarted controller that has not yet learned what is
//! committed), SCRAM logins are checked against the credentials of what
//! this controller holds locally instead: its newest snapshot (the bootstrap
//! checkpoint of `kraft storage format --add-scram` when it has no other)
//! and every record of its log after it, read once at start-up
//! ([`crate::loader::read_local_scram`]). That is what lets controllers
//! authenticate each other with SCRAM while they elect a leader, which
//! Kafka cannot do (KAFKA-15513): the credentials they need are only in the
//! log, and a controller only learns what is committed from a leader. A
//! credential deleted or changed in anything the controller has seen is
//! never served from an older copy; one deleted while it was down is served
//! until it learns what is committed. Once the image has a
//! metadata.version, only the image counts.

use kraft_security::sasl::{CredentialSource, ScramCredential, ScramMechanism, TokenCredential};

use crate::config::security::Password;
use crate::handlers::tokens::token_hmac;
use crate::image::{ScramCredentialData, ScramImage, SharedImage};

/// The image's SCRAM credentials and delegation tokens.
pub struct ImageCredentials {
    image: SharedImage,
    token_secret: Option<Password>,
    local: ScramImage,
}

impl ImageCredentials {
    /// Credentials from `image`; token logins need `delegation.token.secret.key`.
    pub fn new(image: SharedImage, token_secret: Option<Password>) -> ImageCredentials {
        ImageCredentials {
            image,
            token_secret,
            local: ScramImage::default(),
        }
    }

    /// The same, with this controller's local SCRAM credentials used while
    /// the image has no metadata.version (see the module docs).
    pub(crate) fn with_local(mut self, local: ScramImage) -> ImageCredentials {
        self.local = local;
        self
    }
}

fn credential(c: &ScramCredentialData) -> ScramCredential {
    ScramCredential {
        salt: c.salt.to_vec(),
        stored_key: c.stored_key.to_vec(),
        server_key: c.server_key.to_vec(),
        iterations: c.iterations,
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
                return image.scram().credential(id, user).map(credential);
            }
        }
        self.local.credential(id, user).map(credential)
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
    use crate::loader::read_local_scram;
    use bytes::Bytes;
    use kraft_protocol::messages::remove_user_scram_credential_record::RemoveUserScramCredentialRecord;
    use kraft_protocol::messages::user_scram_credential_record::UserScramCredentialRecord;
    use kraft_raft::{Batch, DiskLog, EncodedBatch, LogConfig, RaftLog, Record, SnapshotControl};
    use kraft_testkit::TempDir;

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

    fn remove(name: &str, mechanism: i8) -> MetadataRecord {
        MetadataRecord::new(
            RemoveUserScramCredentialRecord {
                name: name.into(),
                mechanism,
                ..Default::default()
            },
            0,
        )
    }

    fn local(records: &[MetadataRecord]) -> ScramImage {
        let mut scram = ScramImage::default();
        for r in records {
            scram.replay_scram_only(r);
        }
        scram
    }

    fn salt(c: &ImageCredentials, mechanism: ScramMechanism, user: &str) -> Option<u8> {
        c.scram(mechanism, user).map(|c| c.salt[0])
    }

    #[test]
    fn local_credentials_serve_logins_until_the_image_has_a_metadata_version() {
        let image = SharedImage::unloaded();
        let credentials = ImageCredentials::new(image.clone(), None).with_local(local(&[
            MetadataRecord::feature_level("metadata.version", 33),
            record("ctl", 2, 1),
            record("ctl", 2, 7),
            record("other", 1, 3),
        ]));
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
        // local credential is not used for a user the image lacks.
        image.update(|i| {
            i.replay(&MetadataRecord::feature_level("metadata.version", 33))
                .unwrap();
            i.replay(&record("other", 1, 11)).unwrap();
        });
        assert!(credentials.scram(ScramMechanism::Sha512, "ctl").is_none());
        assert_eq!(
            salt(&credentials, ScramMechanism::Sha256, "other"),
            Some(11)
        );
    }

    #[test]
    fn without_local_credentials_nothing_is_found_before_activation() {
        let plain = ImageCredentials::new(SharedImage::unloaded(), None);
        assert!(plain.scram(ScramMechanism::Sha512, "ctl").is_none());
    }

    fn data_batch(base_offset: i64, records: &[MetadataRecord]) -> Batch {
        Batch {
            base_offset,
            epoch: 1,
            append_time: 0,
            records: records
                .iter()
                .map(|r| Record::Data(Bytes::from(r.encode().unwrap())))
                .collect(),
            encoded: EncodedBatch::default(),
        }
    }

    /// A formatted log directory whose bootstrap checkpoint holds `records`.
    fn formatted(records: &[MetadataRecord]) -> (TempDir, std::path::PathBuf) {
        let dir = TempDir::new("local-scram");
        let bytes = kraft_raft::storage::encode_snapshot(
            0,
            0,
            &SnapshotControl::default(),
            records.iter().map(|r| Bytes::from(r.encode().unwrap())),
            1 << 20,
        );
        let path = crate::format::write_bootstrap_snapshot(dir.path(), &bytes).unwrap();
        let log_dir = path.parent().unwrap().to_path_buf();
        (dir, log_dir)
    }

    #[test]
    fn a_restarted_controller_does_not_serve_a_credential_its_log_deleted() {
        let (_dir, log_dir) = formatted(&[
            MetadataRecord::feature_level("metadata.version", 33),
            record("admin", 2, 1),
            record("ctl", 2, 4),
        ]);
        let (mut log, _) = DiskLog::open(&log_dir, LogConfig::default()).unwrap();
        // Nothing but the checkpoint: its credentials.
        let scram = read_local_scram(&log_dir, &log);
        assert!(scram.credential(2, "admin").is_some());
        assert_eq!(scram.credential(2, "ctl").unwrap().salt[0], 4);

        // The log deletes admin, changes ctl's credential and adds one.
        log.append(data_batch(
            0,
            &[
                MetadataRecord::feature_level("metadata.version", 33),
                record("admin", 2, 1),
                record("ctl", 2, 4),
            ],
        ))
        .unwrap();
        log.append(data_batch(3, &[remove("admin", 2), record("ctl", 2, 20)]))
            .unwrap();
        log.append(data_batch(5, &[record("broker", 1, 30)]))
            .unwrap();
        let scram = read_local_scram(&log_dir, &log);
        assert!(scram.credential(2, "admin").is_none());
        assert_eq!(scram.credential(2, "ctl").unwrap().salt[0], 20);
        assert_eq!(scram.credential(1, "broker").unwrap().salt[0], 30);

        // A snapshot at offset 5 without admin; the log after it re-adds
        // admin with a new credential. The snapshot replaces the checkpoint.
        log.flush().unwrap();
        log.create_snapshot(
            5,
            &SnapshotControl::default(),
            [
                MetadataRecord::feature_level("metadata.version", 33),
                record("ctl", 2, 20),
            ]
            .iter()
            .map(|r| Bytes::from(r.encode().unwrap())),
        )
        .unwrap()
        .unwrap();
        log.delete_before_latest_snapshot().unwrap();
        log.append(data_batch(6, &[record("admin", 2, 40)]))
            .unwrap();
        let scram = read_local_scram(&log_dir, &log);
        assert_eq!(log.latest_snapshot().unwrap().id.offset, 5);
        assert_eq!(scram.credential(2, "admin").unwrap().salt[0], 40);
        assert_eq!(scram.credential(2, "ctl").unwrap().salt[0], 20);
    }
}
