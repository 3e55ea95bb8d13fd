//! SCRAM credentials (Kafka's `ScramImage` / `ScramDelta`).
//!
//! Credentials are keyed by mechanism and user name: a
//! `UserScramCredentialRecord` sets one, a `RemoveUserScramCredentialRecord`
//! removes one (removing a missing one is not an error), and a mechanism
//! left without users disappears. The mechanism is kept as its raw code
//! (Kafka maps a code it does not know to `UNKNOWN`, 0).

use std::collections::BTreeMap;
use std::fmt;

use bytes::Bytes;
use kraft_protocol::messages::remove_user_scram_credential_record::RemoveUserScramCredentialRecord;
use kraft_protocol::messages::user_scram_credential_record::UserScramCredentialRecord;
use kraft_protocol::MetadataRecordBody;

use super::{MetadataRecord, RecordSink, ReplayError, WriteError, WriteOptions};

/// One user's credential for one mechanism (Kafka's
/// `ScramCredentialData`). Its `Debug` output hides every field, as Kafka's
/// `toString` does.
#[derive(Clone, PartialEq, Eq)]
pub struct ScramCredentialData {
    /// The salt.
    pub salt: Bytes,
    /// The stored key.
    pub stored_key: Bytes,
    /// The server key.
    pub server_key: Bytes,
    /// The iteration count.
    pub iterations: i32,
}

impl fmt::Debug for ScramCredentialData {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(
            "ScramCredentialData(salt=[hidden], storedKey=[hidden], serverKey=[hidden], iterations=[hidden])",
        )
    }
}

/// SCRAM credentials by mechanism and user (Kafka's `ScramImage` /
/// `ScramDelta`). No mechanism maps to an empty set of users.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ScramImage {
    mechanisms: BTreeMap<i8, BTreeMap<String, ScramCredentialData>>,
}

impl ScramImage {
    /// The code of `ScramMechanism.SCRAM_SHA_256`.
    pub const SCRAM_SHA_256: i8 = 1;
    /// The code of `ScramMechanism.SCRAM_SHA_512`.
    pub const SCRAM_SHA_512: i8 = 2;

    /// The name Kafka's `ScramMechanism` enum gives the code `mechanism`.
    pub fn mechanism_name(mechanism: i8) -> &'static str {
        match mechanism {
            Self::SCRAM_SHA_256 => "SCRAM_SHA_256",
            Self::SCRAM_SHA_512 => "SCRAM_SHA_512",
            _ => "UNKNOWN",
        }
    }

    /// Whether there are no credentials.
    pub fn is_empty(&self) -> bool {
        self.mechanisms.is_empty()
    }

    /// The credential of `user` for `mechanism`.
    pub fn credential(&self, mechanism: i8, user: &str) -> Option<&ScramCredentialData> {
        self.mechanisms.get(&mechanism).and_then(|u| u.get(user))
    }

    /// The credentials of `mechanism`, by user, if it has any.
    pub fn users(&self, mechanism: i8) -> Option<&BTreeMap<String, ScramCredentialData>> {
        self.mechanisms.get(&mechanism)
    }

    /// Every mechanism with credentials and its users, in mechanism order.
    pub fn mechanisms(&self) -> impl Iterator<Item = (i8, &BTreeMap<String, ScramCredentialData>)> {
        self.mechanisms.iter().map(|(m, u)| (*m, u))
    }

    /// Replays `record` if it is a SCRAM record (set or remove) and ignores
    /// every other record: the credentials alone, as a replay of the whole
    /// image would leave them.
    pub(crate) fn replay_scram_only(&mut self, record: &MetadataRecord) {
        match &record.body {
            MetadataRecordBody::UserScramCredential(r) => {
                let _ = self.replay_set(r);
            }
            MetadataRecordBody::RemoveUserScramCredential(r) => {
                let _ = self.replay_remove(r);
            }
            _ => {}
        }
    }

    /// Kafka's `ScramDelta.replay(UserScramCredentialRecord)`: sets the
    /// user's credential for the mechanism.
    pub(super) fn replay_set(&mut self, r: &UserScramCredentialRecord) -> Result<(), ReplayError> {
        self.mechanisms.entry(r.mechanism).or_default().insert(
            r.name.to_string(),
            ScramCredentialData {
                salt: r.salt.clone(),
                stored_key: r.stored_key.clone(),
                server_key: r.server_key.clone(),
                iterations: r.iterations,
            },
        );
        Ok(())
    }

    /// Kafka's `ScramDelta.replay(RemoveUserScramCredentialRecord)`: removes
    /// the user's credential for the mechanism, if there is one.
    pub(super) fn replay_remove(
        &mut self,
        r: &RemoveUserScramCredentialRecord,
    ) -> Result<(), ReplayError> {
        if let Some(users) = self.mechanisms.get_mut(&r.mechanism) {
            users.remove(r.name.as_str());
            if users.is_empty() {
                self.mechanisms.remove(&r.mechanism);
            }
        }
        Ok(())
    }

    /// Kafka's `ScramImage.write`: one UserScramCredentialRecord (v0) per
    /// mechanism and user when the metadata.version supports SCRAM; below
    /// it, any credential is a loss naming the mechanisms and users. Kafka
    /// iterates hash maps; this goes in mechanism, then user order.
    pub(super) fn write(
        &self,
        options: &WriteOptions,
        out: &mut impl RecordSink,
    ) -> Result<(), WriteError> {
        if options.metadata_version.is_scram_supported() {
            for (mechanism, users) in &self.mechanisms {
                for (name, c) in users {
                    out.push(MetadataRecord::new(
                        UserScramCredentialRecord {
                            name: name.as_str().into(),
                            mechanism: *mechanism,
                            salt: c.salt.clone(),
                            stored_key: c.stored_key.clone(),
                            server_key: c.server_key.clone(),
                            iterations: c.iterations,
                            ..Default::default()
                        },
                        0,
                    ));
                }
            }
            return Ok(());
        }
        if self.mechanisms.values().all(BTreeMap::is_empty) {
            return Ok(());
        }
        // Kafka's text: "ScramImage({" then "MECHANISM:user, user},{" per
        // mechanism with users, then "})".
        let mut loss = String::from("ScramImage({");
        for (mechanism, users) in &self.mechanisms {
            if users.is_empty() {
                continue;
            }
            loss.push_str(Self::mechanism_name(*mechanism));
            loss.push(':');
            let names: Vec<&str> = users.keys().map(String::as_str).collect();
            loss.push_str(&names.join(", "));
            loss.push_str("},{");
        }
        loss.push_str("})");
        Err(WriteError::Loss {
            metadata_version: options.metadata_version,
            loss,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::features::MetadataVersion;
    use crate::image::MetadataImage;

    const SCRAM_SHA_256: i8 = ScramImage::SCRAM_SHA_256;
    const SCRAM_SHA_512: i8 = ScramImage::SCRAM_SHA_512;

    fn credential(seed: u8) -> ScramCredentialData {
        ScramCredentialData {
            salt: Bytes::from(vec![seed; 16]),
            stored_key: Bytes::from(vec![seed.wrapping_add(1); 32]),
            server_key: Bytes::from(vec![seed.wrapping_add(2); 32]),
            iterations: 4096 + i32::from(seed),
        }
    }

    fn set(name: &str, mechanism: i8, c: &ScramCredentialData) -> MetadataRecord {
        MetadataRecord::new(
            UserScramCredentialRecord {
                name: name.into(),
                mechanism,
                salt: c.salt.clone(),
                stored_key: c.stored_key.clone(),
                server_key: c.server_key.clone(),
                iterations: c.iterations,
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

    fn mv(level: i16) -> MetadataRecord {
        MetadataRecord::feature_level("metadata.version", level)
    }

    /// Kafka's ScramImageFixtures IMAGE1.
    fn image1(level: i16) -> MetadataImage {
        MetadataImage::from_records(&[
            mv(level),
            set("alpha", SCRAM_SHA_256, &credential(1)),
            set("beta", SCRAM_SHA_256, &credential(2)),
            set("alpha", SCRAM_SHA_512, &credential(3)),
            set("gamma", SCRAM_SHA_512, &credential(4)),
        ])
        .expect("image1")
    }

    /// Kafka's ScramImageFixtures: IMAGE1 + DELTA1 = IMAGE2.
    #[test]
    fn kafka_image1_plus_delta1_is_image2_and_round_trips() {
        let mut image = image1(33);
        for r in [
            remove("alpha", SCRAM_SHA_512),
            remove("gamma", SCRAM_SHA_512),
            set("alpha", SCRAM_SHA_256, &credential(5)),
            set("alpha", SCRAM_SHA_512, &credential(6)),
        ] {
            image.replay(&r).expect("delta1");
        }
        let scram = image.scram();
        assert_eq!(
            scram.credential(SCRAM_SHA_256, "alpha"),
            Some(&credential(5))
        );
        assert_eq!(
            scram.credential(SCRAM_SHA_256, "beta"),
            Some(&credential(2))
        );
        assert_eq!(
            scram.credential(SCRAM_SHA_512, "alpha"),
            Some(&credential(6))
        );
        assert_eq!(scram.credential(SCRAM_SHA_512, "gamma"), None);
        assert_eq!(scram.users(SCRAM_SHA_512).map(BTreeMap::len), Some(1));
        let records = image.to_records().expect("write");
        assert_eq!(
            records[1..],
            [
                set("alpha", SCRAM_SHA_256, &credential(5)),
                set("beta", SCRAM_SHA_256, &credential(2)),
                set("alpha", SCRAM_SHA_512, &credential(6)),
            ]
        );
        assert_eq!(
            MetadataImage::from_records(&records).expect("reload"),
            image
        );
    }

    #[test]
    fn removing_every_user_drops_the_mechanism_and_a_missing_user_is_no_error() {
        let mut image = image1(33);
        for r in [
            remove("alpha", SCRAM_SHA_512),
            remove("gamma", SCRAM_SHA_512),
            remove("nobody", SCRAM_SHA_512),
            remove("nobody", SCRAM_SHA_256),
        ] {
            image.replay(&r).expect("remove");
        }
        let mechanisms: Vec<i8> = image.scram().mechanisms().map(|(m, _)| m).collect();
        assert_eq!(mechanisms, vec![SCRAM_SHA_256]);
    }

    /// Kafka's ScramImageTest: an empty image writes below 3.5-IV2, IMAGE1
    /// does not.
    #[test]
    fn below_scram_support_credentials_are_a_loss_with_kafkas_text() {
        // 3.4-IV0 is level 8.
        let empty = MetadataImage::from_records(&[mv(8)]).expect("empty");
        assert_eq!(empty.to_records().expect("write"), vec![mv(8)]);
        let err = image1(8).to_records().expect_err("loss");
        assert_eq!(
            err,
            WriteError::Loss {
                metadata_version: MetadataVersion::from_feature_level(8).expect("3.4-IV0"),
                loss: "ScramImage({SCRAM_SHA_256:alpha, beta},{SCRAM_SHA_512:alpha, gamma},{})"
                    .into(),
            }
        );
        assert!(err.to_string().starts_with(
            "Metadata has been lost because the following could not be represented in metadata.version 3.4-IV0: ScramImage({"
        ));
        // 3.5-IV2 (level 11) is the first that writes them.
        assert!(image1(11).to_records().is_ok());
    }

    #[test]
    fn credentials_are_hidden_from_debug_output() {
        let text = format!("{:?}", image1(33).scram());
        assert!(text.contains("salt=[hidden]"));
        assert!(!text.contains("4097"));
    }
}
