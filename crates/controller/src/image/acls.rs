//! Access control entries (Kafka's `AclsImage` / `AclsDelta`).
//!
//! ACLs are keyed by their id: an `AccessControlEntryRecord` adds (or
//! replaces) one, a `RemoveAccessControlEntryRecord` removes one and must
//! name an ACL that exists. The enum codes (resource type, pattern type,
//! operation, permission type) are kept as read: Kafka maps a code it does
//! not know to `UNKNOWN` (0), this image writes back what the log held.
//!
//! Kafka's `AclsImage.write` reports no loss at any metadata.version: a CIDR
//! host is refused when an ACL is created below 4.4-IV1
//! (`AclControlManager`), not when the image is written.
//!
//! The ACLs live in an [`AclIndex`], which keeps them by id and indexed for
//! the authorizer, so every image carries the index of its own ACLs.

use kraft_protocol::messages::access_control_entry_record::AccessControlEntryRecord;
use kraft_protocol::messages::remove_access_control_entry_record::RemoveAccessControlEntryRecord;
use kraft_protocol::Uuid;

use super::{MetadataRecord, RecordSink, ReplayError, WriteError, WriteOptions};
use crate::authorizer::AclIndex;
use crate::java::uuid_to_text;

/// One access control entry (Kafka's `StandardAcl`), with its codes as
/// Kafka's `ResourceType`, `PatternType`, `AclOperation` and
/// `AclPermissionType` define them.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct StandardAcl {
    /// `ResourceType` code (2 TOPIC, 3 GROUP, 4 CLUSTER, ...).
    pub resource_type: i8,
    /// The resource name or prefix.
    pub resource_name: String,
    /// `PatternType` code (3 LITERAL, 4 PREFIXED).
    pub pattern_type: i8,
    /// The principal, `type:name` (e.g. `User:alice`, `User:*`).
    pub principal: String,
    /// The host (`*` for any).
    pub host: String,
    /// `AclOperation` code (3 READ, 4 WRITE, 7 ALTER, ...).
    pub operation: i8,
    /// `AclPermissionType` code (2 DENY, 3 ALLOW).
    pub permission_type: i8,
}

impl StandardAcl {
    /// The ACL an AccessControlEntryRecord describes (Kafka's `fromRecord`).
    pub fn from_record(r: &AccessControlEntryRecord) -> Self {
        StandardAcl {
            resource_type: r.resource_type,
            resource_name: r.resource_name.to_string(),
            pattern_type: r.pattern_type,
            principal: r.principal.to_string(),
            host: r.host.to_string(),
            operation: r.operation,
            permission_type: r.permission_type,
        }
    }

    /// The AccessControlEntryRecord (v0) for this ACL with id `id` (Kafka's
    /// `StandardAclWithId.toRecord`).
    pub fn to_record(&self, id: Uuid) -> AccessControlEntryRecord {
        AccessControlEntryRecord {
            id,
            resource_type: self.resource_type,
            resource_name: self.resource_name.as_str().into(),
            pattern_type: self.pattern_type,
            principal: self.principal.as_str().into(),
            host: self.host.as_str().into(),
            operation: self.operation,
            permission_type: self.permission_type,
            ..Default::default()
        }
    }
}

/// Access control entries by id (Kafka's `AclsImage` / `AclsDelta`).
///
/// Equal images hold the same ACLs under the same ids.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AclsImage {
    index: AclIndex,
}

impl AclsImage {
    /// Whether there are no ACLs.
    pub fn is_empty(&self) -> bool {
        self.index.is_empty()
    }

    /// The number of ACLs.
    pub fn len(&self) -> usize {
        self.index.len()
    }

    /// The ACL with id `id`.
    pub fn acl(&self, id: &Uuid) -> Option<&StandardAcl> {
        self.index.get(id)
    }

    /// Every ACL and its id, in id order.
    pub fn acls(&self) -> impl Iterator<Item = (&Uuid, &StandardAcl)> {
        self.index.iter()
    }

    /// The ACLs indexed for authorization and filters.
    pub fn index(&self) -> &AclIndex {
        &self.index
    }

    /// Kafka's `AclsDelta.replay(AccessControlEntryRecord)`: adds or
    /// replaces the ACL with the record's id (a replaced ACL leaves the
    /// index first).
    pub(super) fn replay_add(&mut self, r: &AccessControlEntryRecord) -> Result<(), ReplayError> {
        self.index.add(r.id, StandardAcl::from_record(r));
        Ok(())
    }

    /// Kafka's `AclsDelta.replay(RemoveAccessControlEntryRecord)`: removes
    /// the ACL, which must exist (Kafka's `IllegalStateException`).
    ///
    /// Kafka checks against the image before the current delta and the
    /// delta's changes, so it also accepts a second removal of an ACL of that
    /// image within one delta; this image applies each record at once and
    /// refuses it. Kafka's controller never writes such a pair.
    pub(super) fn replay_remove(
        &mut self,
        r: &RemoveAccessControlEntryRecord,
    ) -> Result<(), ReplayError> {
        if self.index.remove(&r.id).is_none() {
            return Err(ReplayError::Invalid(format!(
                "Failed to find existing ACL with ID {} in either image or changes",
                uuid_to_text(&r.id)
            )));
        }
        Ok(())
    }

    /// Kafka's `AclsImage.write`: one AccessControlEntryRecord (v0) per ACL,
    /// at every metadata.version. Kafka iterates a hash map; this writes in
    /// id order.
    pub(super) fn write(
        &self,
        _options: &WriteOptions,
        out: &mut impl RecordSink,
    ) -> Result<(), WriteError> {
        for (id, acl) in self.index.iter() {
            out.push(MetadataRecord::new(acl.to_record(*id), 0));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::image::MetadataImage;
    use crate::java::uuid_from_text;

    fn id(text: &str) -> Uuid {
        uuid_from_text(text).expect("uuid")
    }

    fn acl(
        resource_type: i8,
        resource_name: &str,
        pattern_type: i8,
        principal: &str,
        operation: i8,
        permission_type: i8,
    ) -> StandardAcl {
        StandardAcl {
            resource_type,
            resource_name: resource_name.into(),
            pattern_type,
            principal: principal.into(),
            host: "*".into(),
            operation,
            permission_type,
        }
    }

    /// Kafka's StandardAclWithIdFixtures.TEST_ACLS (codes: TOPIC 2, GROUP 3,
    /// CLUSTER 4; LITERAL 3, PREFIXED 4; READ 3, ALTER 7; DENY 2, ALLOW 3).
    fn test_acls() -> Vec<(Uuid, StandardAcl)> {
        vec![
            (
                id("QZDDv-R7SyaPgetDPGd0Mw"),
                acl(4, "kafka-cluster", 3, "User:*", 7, 3),
            ),
            (
                id("SdDjEdlbRmy2__WFKe3RMg"),
                acl(2, "foo_", 4, "User:*", 3, 3),
            ),
            (
                id("wQzt5gkSTwuQNXZF5gIw7A"),
                acl(3, "mygroup", 3, "User:foo", 3, 2),
            ),
            (
                id("ab_5xjJXSbS1o5jGfhgQXg"),
                acl(3, "mygroup", 4, "User:foo", 3, 2),
            ),
            (
                id("wP_cCK0LTEGSX9oDRInJHQ"),
                acl(3, "foo", 4, "User:foo", 3, 2),
            ),
        ]
    }

    fn add(id: Uuid, acl: &StandardAcl) -> MetadataRecord {
        MetadataRecord::new(acl.to_record(id), 0)
    }

    fn remove(id: Uuid) -> MetadataRecord {
        MetadataRecord::new(
            RemoveAccessControlEntryRecord {
                id,
                ..Default::default()
            },
            0,
        )
    }

    fn mv() -> MetadataRecord {
        MetadataRecord::feature_level("metadata.version", 33)
    }

    /// Kafka's AclsImageFixtures: IMAGE1 (ACLs 0..4) + DELTA1 = IMAGE2 (1..5).
    #[test]
    fn kafka_image1_plus_delta1_is_image2_and_round_trips() {
        let acls = test_acls();
        let mut records = vec![mv()];
        records.extend(acls[..4].iter().map(|(i, a)| add(*i, a)));
        let mut image = MetadataImage::from_records(&records).expect("image1");
        assert_eq!(image.acls().len(), 4);
        image.replay(&remove(acls[0].0)).expect("remove");
        image.replay(&add(acls[4].0, &acls[4].1)).expect("add");
        let mut expected: Vec<_> = acls[1..].iter().map(|(i, a)| (*i, a.clone())).collect();
        expected.sort_by_key(|(i, _)| *i);
        let got: Vec<_> = image.acls().acls().map(|(i, a)| (*i, a.clone())).collect();
        assert_eq!(got, expected);
        let written = image.to_records().expect("write");
        assert_eq!(written.len(), 5);
        assert!(written[1..].iter().all(|r| r.version == 0));
        assert_eq!(
            MetadataImage::from_records(&written).expect("reload"),
            image
        );
    }

    /// Kafka's AclsDeltaTest: an ACL added then removed leaves nothing.
    #[test]
    fn an_added_acl_can_be_removed() {
        let acl_id = id("iOZpss6VQUmD6blnqzl50g");
        let acl = StandardAcl {
            resource_type: 1,
            resource_name: "foo".into(),
            pattern_type: 1,
            principal: "User:user".into(),
            host: "host".into(),
            operation: 1,
            permission_type: 1,
        };
        let mut image = MetadataImage::from_records(&[mv(), add(acl_id, &acl)]).expect("image");
        assert_eq!(image.acls().acl(&acl_id), Some(&acl));
        image.replay(&remove(acl_id)).expect("remove");
        assert!(image.acls().is_empty());
    }

    /// Kafka's AclsDeltaTest: removing an unknown id is an error, whether
    /// the image is empty or holds other ACLs.
    #[test]
    fn removing_an_unknown_acl_is_kafkas_error() {
        let acl_id = id("iOZpss6VQUmD6blnqzl50g");
        let expected = ReplayError::Invalid(
            "Failed to find existing ACL with ID iOZpss6VQUmD6blnqzl50g in either image or changes"
                .into(),
        );
        let mut image = MetadataImage::from_records(&[mv()]).expect("image");
        assert_eq!(image.replay(&remove(acl_id)), Err(expected.clone()));
        let other = test_acls().remove(1);
        image.replay(&add(other.0, &other.1)).expect("add");
        assert_eq!(image.replay(&remove(acl_id)), Err(expected));
        assert_eq!(image.acls().len(), 1);
    }

    /// The image's index follows replays: a replaced ACL stops applying, a
    /// removed one too. (Everyone is allowed where no ACL names a group.)
    #[test]
    fn the_index_follows_adds_replacements_and_removals() {
        use crate::authorizer::AuthorizationResult::{Allowed, Denied};
        use crate::authorizer::{
            Action, AuthorizationResult, AuthorizerConfig, RequestIdentity, StandardAuthorizer,
        };
        use kraft_protocol::acl::{AclOperation, KafkaPrincipal, ResourceType};

        let config = AuthorizerConfig::from_kafka(None, Some("true")).expect("config");
        let authorizer = StandardAuthorizer::new(config);
        let decide = |image: &MetadataImage, user: &str, group: &str| -> AuthorizationResult {
            let principal = KafkaPrincipal::user(user.to_owned());
            let who = RequestIdentity {
                principal: &principal,
                host: std::net::IpAddr::from([10, 0, 0, 1]),
            };
            let action = Action::new(AclOperation::Read, ResourceType::Group, group);
            authorizer
                .authorize(image.acls().index(), true, &who, &action)
                .expect("loaded")
        };
        // TEST_ACLS[2]: DENY READ on the group mygroup for User:foo.
        let acls = test_acls();
        let (id, deny_mygroup) = &acls[2];
        let mut image =
            MetadataImage::from_records(&[mv(), add(*id, deny_mygroup)]).expect("image");
        assert_eq!(decide(&image, "foo", "mygroup"), Denied);
        assert_eq!(decide(&image, "bar", "other"), Allowed);
        // The same id now holds an ALLOW for User:foo on the group other.
        let mut replacement = deny_mygroup.clone();
        replacement.resource_name = "other".into();
        replacement.permission_type = 3;
        image.replay(&add(*id, &replacement)).expect("replace");
        assert_eq!(image.acls().index().len(), 1);
        assert_eq!(decide(&image, "foo", "mygroup"), Allowed);
        assert_eq!(decide(&image, "foo", "other"), Allowed);
        assert_eq!(decide(&image, "bar", "other"), Denied);
        image.replay(&remove(*id)).expect("remove");
        assert_eq!(decide(&image, "bar", "other"), Allowed);
        let empty = MetadataImage::from_records(&[mv()]).expect("empty");
        assert_eq!(image.acls(), empty.acls());
    }

    #[test]
    fn cidr_hosts_and_unknown_codes_are_written_at_any_metadata_version() {
        let acl = StandardAcl {
            resource_type: 42,
            resource_name: "t".into(),
            pattern_type: 3,
            principal: "User:a".into(),
            host: "10.0.0.0/8".into(),
            operation: 99,
            permission_type: 3,
        };
        let records = vec![
            MetadataRecord::feature_level("metadata.version", 7),
            add(id("iOZpss6VQUmD6blnqzl50g"), &acl),
        ];
        let image = MetadataImage::from_records(&records).expect("image");
        assert_eq!(image.to_records().expect("write"), records);
    }
}
