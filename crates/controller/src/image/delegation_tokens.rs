//! Delegation tokens (Kafka's `DelegationTokenImage` /
//! `DelegationTokenDelta`).
//!
//! Tokens are keyed by token id: a `DelegationTokenRecord` adds or replaces
//! one, a `RemoveDelegationTokenRecord` removes one (removing a missing one
//! is not an error). Principals must parse as `type:name`, as Kafka's
//! `SecurityUtils.parseKafkaPrincipal` requires on replay.

use std::collections::BTreeMap;

use kraft_protocol::messages::delegation_token_record::DelegationTokenRecord;
use kraft_protocol::messages::remove_delegation_token_record::RemoveDelegationTokenRecord;

use super::{MetadataRecord, RecordSink, ReplayError, WriteError, WriteOptions};

/// One delegation token (Kafka's `DelegationTokenData` /
/// `TokenInformation`). Principals are `type:name` strings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DelegationTokenData {
    /// The token id.
    pub token_id: String,
    /// The principal that owns the token.
    pub owner: String,
    /// The principal that requested the token.
    pub requester: String,
    /// The principals that may renew the token, in record order.
    pub renewers: Vec<String>,
    /// When the token was issued (ms).
    pub issue_timestamp: i64,
    /// The latest the token may be renewed to (ms).
    pub max_timestamp: i64,
    /// When the token expires (ms).
    pub expiration_timestamp: i64,
}

/// Kafka's `SecurityUtils.parseKafkaPrincipal` check: a non-empty string
/// with a `:` between principal type and name.
fn check_principal(principal: &str) -> Result<(), ReplayError> {
    if principal.contains(':') {
        Ok(())
    } else {
        Err(ReplayError::Invalid(format!(
            "expected a string in format principalType:principalName but got {principal}"
        )))
    }
}

impl DelegationTokenData {
    /// The token a DelegationTokenRecord describes (Kafka's `fromRecord`),
    /// or Kafka's error when a principal does not parse (renewers are
    /// checked first, then the owner, then the requester, as Kafka does).
    pub fn from_record(r: &DelegationTokenRecord) -> Result<Self, ReplayError> {
        for renewer in &r.renewers {
            check_principal(renewer.as_str())?;
        }
        check_principal(r.owner.as_str())?;
        check_principal(r.requester.as_str())?;
        Ok(DelegationTokenData {
            token_id: r.token_id.to_string(),
            owner: r.owner.to_string(),
            requester: r.requester.to_string(),
            renewers: r.renewers.iter().map(|p| p.to_string()).collect(),
            issue_timestamp: r.issue_timestamp,
            max_timestamp: r.max_timestamp,
            expiration_timestamp: r.expiration_timestamp,
        })
    }

    /// The DelegationTokenRecord (v0) for this token (Kafka's `toRecord`).
    pub fn to_record(&self) -> DelegationTokenRecord {
        DelegationTokenRecord {
            owner: self.owner.as_str().into(),
            requester: self.requester.as_str().into(),
            renewers: self.renewers.iter().map(|p| p.as_str().into()).collect(),
            issue_timestamp: self.issue_timestamp,
            max_timestamp: self.max_timestamp,
            expiration_timestamp: self.expiration_timestamp,
            token_id: self.token_id.as_str().into(),
            ..Default::default()
        }
    }
}

/// Delegation tokens by token id (Kafka's `DelegationTokenImage` /
/// `DelegationTokenDelta`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DelegationTokensImage {
    tokens: BTreeMap<String, DelegationTokenData>,
}

impl DelegationTokensImage {
    /// Whether there are no tokens.
    pub fn is_empty(&self) -> bool {
        self.tokens.is_empty()
    }

    /// The token with id `token_id`.
    pub fn token(&self, token_id: &str) -> Option<&DelegationTokenData> {
        self.tokens.get(token_id)
    }

    /// Every token, in token id order.
    pub fn tokens(&self) -> impl Iterator<Item = &DelegationTokenData> {
        self.tokens.values()
    }

    /// Kafka's `DelegationTokenDelta.replay(DelegationTokenRecord)`.
    pub(super) fn replay_set(&mut self, r: &DelegationTokenRecord) -> Result<(), ReplayError> {
        let token = DelegationTokenData::from_record(r)?;
        self.tokens.insert(token.token_id.clone(), token);
        Ok(())
    }

    /// Kafka's `DelegationTokenDelta.replay(RemoveDelegationTokenRecord)`.
    pub(super) fn replay_remove(
        &mut self,
        r: &RemoveDelegationTokenRecord,
    ) -> Result<(), ReplayError> {
        self.tokens.remove(r.token_id.as_str());
        Ok(())
    }

    /// Kafka's `DelegationTokenImage.write`: one DelegationTokenRecord (v0)
    /// per token when the metadata.version supports delegation tokens;
    /// below it, any token is a loss naming the token ids. Kafka iterates a
    /// hash map; this goes in token id order.
    pub(super) fn write(
        &self,
        options: &WriteOptions,
        out: &mut impl RecordSink,
    ) -> Result<(), WriteError> {
        if options.metadata_version.is_delegation_token_supported() {
            for token in self.tokens.values() {
                out.push(MetadataRecord::new(token.to_record(), 0));
            }
            return Ok(());
        }
        if self.tokens.is_empty() {
            return Ok(());
        }
        let ids: Vec<&str> = self.tokens.keys().map(String::as_str).collect();
        Err(WriteError::Loss {
            metadata_version: options.metadata_version,
            loss: format!("DelegationTokenImage({})", ids.join(", ")),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::features::MetadataVersion;
    use crate::image::MetadataImage;

    fn token(token_id: &str, expiration: i64) -> MetadataRecord {
        MetadataRecord::new(
            DelegationTokenRecord {
                owner: "User:fred".into(),
                requester: "User:fred".into(),
                issue_timestamp: 0,
                max_timestamp: 1000,
                expiration_timestamp: expiration,
                token_id: token_id.into(),
                ..Default::default()
            },
            0,
        )
    }

    fn remove(token_id: &str) -> MetadataRecord {
        MetadataRecord::new(
            RemoveDelegationTokenRecord {
                token_id: token_id.into(),
                ..Default::default()
            },
            0,
        )
    }

    fn mv(level: i16) -> MetadataRecord {
        MetadataRecord::feature_level("metadata.version", level)
    }

    /// Kafka's DelegationTokenImageFixtures IMAGE1.
    fn image1(level: i16) -> MetadataImage {
        MetadataImage::from_records(&[
            mv(level),
            token("somerandomuuid1", 100),
            token("somerandomuuid2", 100),
            token("somerandomuuid3", 100),
        ])
        .expect("image1")
    }

    /// Kafka's DelegationTokenImageFixtures: IMAGE1 + DELTA1 = IMAGE2.
    #[test]
    fn kafka_image1_plus_delta1_is_image2_and_round_trips() {
        let mut image = image1(33);
        image.replay(&token("somerandomuuid1", 200)).expect("renew");
        image.replay(&remove("somerandomuuid3")).expect("remove");
        let tokens = image.delegation_tokens();
        let ids: Vec<&str> = tokens.tokens().map(|t| t.token_id.as_str()).collect();
        assert_eq!(ids, vec!["somerandomuuid1", "somerandomuuid2"]);
        let t1 = tokens.token("somerandomuuid1").expect("token 1");
        assert_eq!(
            (t1.owner.as_str(), t1.max_timestamp, t1.expiration_timestamp),
            ("User:fred", 1000, 200)
        );
        assert_eq!(
            tokens
                .token("somerandomuuid2")
                .map(|t| t.expiration_timestamp),
            Some(100)
        );
        let records = image.to_records().expect("write");
        assert_eq!(
            records,
            vec![
                mv(33),
                token("somerandomuuid1", 200),
                token("somerandomuuid2", 100)
            ]
        );
        assert_eq!(
            MetadataImage::from_records(&records).expect("reload"),
            image
        );
        image.replay(&remove("never-issued")).expect("no error");
    }

    #[test]
    fn renewers_round_trip_in_order() {
        let mut record = token("t", 5);
        if let kraft_protocol::MetadataRecordBody::DelegationToken(r) = &mut record.body {
            r.renewers = vec!["User:b".into(), "Group:a".into()];
        }
        let records = vec![mv(33), record];
        let image = MetadataImage::from_records(&records).expect("image");
        assert_eq!(
            image
                .delegation_tokens()
                .token("t")
                .map(|t| t.renewers.clone()),
            Some(vec!["User:b".to_string(), "Group:a".to_string()])
        );
        assert_eq!(image.to_records().expect("write"), records);
    }

    #[test]
    fn a_principal_without_a_colon_is_kafkas_error() {
        let mut image = MetadataImage::from_records(&[mv(33)]).expect("image");
        let mut record = token("t", 5);
        if let kraft_protocol::MetadataRecordBody::DelegationToken(r) = &mut record.body {
            r.owner = "fred".into();
            r.renewers = vec!["".into()];
        }
        // Renewers are parsed before the owner.
        assert_eq!(
            image.replay(&record),
            Err(ReplayError::Invalid(
                "expected a string in format principalType:principalName but got ".into()
            ))
        );
        if let kraft_protocol::MetadataRecordBody::DelegationToken(r) = &mut record.body {
            r.renewers = Vec::new();
        }
        assert_eq!(
            image.replay(&record),
            Err(ReplayError::Invalid(
                "expected a string in format principalType:principalName but got fred".into()
            ))
        );
        assert!(image.delegation_tokens().is_empty());
    }

    /// Below 3.6-IV2 (level 14) tokens are a loss naming their ids.
    #[test]
    fn below_delegation_token_support_tokens_are_a_loss_with_kafkas_text() {
        let empty = MetadataImage::from_records(&[mv(13)]).expect("empty");
        assert_eq!(empty.to_records().expect("write"), vec![mv(13)]);
        assert_eq!(
            image1(13).to_records(),
            Err(WriteError::Loss {
                metadata_version: MetadataVersion::from_feature_level(13).expect("3.6-IV1"),
                loss: "DelegationTokenImage(somerandomuuid1, somerandomuuid2, somerandomuuid3)"
                    .into(),
            })
        );
        assert!(image1(14).to_records().is_ok());
    }
}
