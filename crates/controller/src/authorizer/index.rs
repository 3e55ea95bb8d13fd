//! The ACLs of the image, indexed for authorization (the lookup structure
//! of Kafka's `AclCache` / `StandardAuthorizerData`).
//!
//! ACLs are grouped by resource type, then by resource name in a sorted
//! map, then by LITERAL or not, then by principal. A check for a resource
//! name visits only the names that are prefixes of it: it walks the sorted
//! names downwards from the name itself and, on meeting a name that is not
//! a prefix, jumps straight to the longest common prefix (the walk Kafka's
//! `checkSection` does over its reverse-sorted set). Within a name it looks
//! up the principal and `User:*`. So a check costs a few map lookups per
//! character of the name at worst, however many ACLs there are.
//!
//! Which ACLs apply to a resource name `r` (what Kafka's scan amounts to):
//!
//! * a LITERAL ACL named `r`;
//! * a LITERAL ACL named `*`, unless `r` starts with `*` and is longer
//!   (Kafka's scan skips it there);
//! * any other ACL (PREFIXED, or a pattern code Kafka does not know) whose
//!   name is a prefix of `r`.

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::net::IpAddr;
use std::ops::Bound;

use kraft_protocol::acl::{
    AclOperation, AclPermissionType, KafkaPrincipal, PatternType, ResourceType,
};
use kraft_protocol::Uuid;

use super::binding::{AclBindingFilter, WILDCARD_RESOURCE};
use super::host::HostPattern;
use crate::image::StandardAcl;

/// The ACLs by id, with the lookup structure authorization uses.
///
/// Equality is "same ACLs under the same ids"; the lookup structure follows
/// from them.
#[derive(Clone, Default)]
pub struct AclIndex {
    acls: BTreeMap<Uuid, StandardAcl>,
    sections: BTreeMap<ResourceType, BTreeMap<String, NameGroup>>,
}

/// The ACLs of one resource type and name.
#[derive(Clone, Default)]
struct NameGroup {
    literal: Rules,
    prefixed: Rules,
}

/// ACLs by principal type, then principal name.
#[derive(Clone, Default)]
struct Rules {
    /// Every ACL here, including those whose principal has no colon (they
    /// match no one, but they are ACLs on the resource).
    len: usize,
    by_principal: HashMap<String, HashMap<String, Vec<Rule>>>,
}

/// What a check needs of one ACL.
#[derive(Debug, Clone, Copy)]
struct Rule {
    id: Uuid,
    pattern_type: PatternType,
    host: HostPattern,
    operation: AclOperation,
    permission: AclPermissionType,
}

/// What the ACLs say about one action.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Finding {
    /// A DENY (or other non-ALLOW) ACL applies.
    pub(crate) deny: bool,
    /// An ALLOW ACL applies.
    pub(crate) allow: bool,
    /// Some ACL names the resource, whoever it is for.
    pub(crate) resource_has_acls: bool,
    /// Resource names visited (the cost of the check).
    pub(crate) names_visited: usize,
}

/// The operations an ALLOW for `granted` also allows `wanted` for: READ,
/// WRITE, DELETE and ALTER imply DESCRIBE; ALTER_CONFIGS implies
/// DESCRIBE_CONFIGS. DENY ACLs imply nothing.
fn allow_implies(granted: AclOperation, wanted: AclOperation) -> bool {
    use AclOperation::*;
    match wanted {
        Describe => matches!(granted, Describe | Read | Write | Delete | Alter),
        DescribeConfigs => matches!(granted, DescribeConfigs | AlterConfigs),
        _ => granted == wanted,
    }
}

impl Rule {
    /// Kafka's `findResult` for an ACL whose resource and principal match:
    /// `Some(true)` allows, `Some(false)` denies, `None` does not apply.
    fn applies(&self, client: IpAddr, operation: AclOperation) -> Option<bool> {
        if !self.host.matches(client) {
            return None;
        }
        let allow = self.permission == AclPermissionType::Allow;
        if self.operation != AclOperation::All {
            let matched = if allow {
                allow_implies(self.operation, operation)
            } else {
                self.operation == operation
            };
            if !matched {
                return None;
            }
        }
        Some(allow)
    }
}

impl Rules {
    fn rules_of(&self, principal_type: &str, name: &str) -> &[Rule] {
        self.by_principal
            .get(principal_type)
            .and_then(|names| names.get(name))
            .map_or(&[], Vec::as_slice)
    }

    /// Applies the rules for `principal` (and for `User:*`) to `finding`.
    fn check(
        &self,
        principal: &KafkaPrincipal,
        client: IpAddr,
        operation: AclOperation,
        finding: &mut Finding,
    ) {
        if self.len == 0 {
            return;
        }
        finding.resource_has_acls = true;
        let wildcard = &KafkaPrincipal::WILDCARD;
        let own = self.rules_of(&principal.principal_type, &principal.name);
        let everyone = if principal == wildcard {
            &[]
        } else {
            self.rules_of(&wildcard.principal_type, &wildcard.name)
        };
        for rule in own.iter().chain(everyone) {
            match rule.applies(client, operation) {
                Some(true) => finding.allow = true,
                Some(false) => {
                    finding.deny = true;
                    return;
                }
                None => {}
            }
        }
    }

    fn add(&mut self, principal: Option<(&str, &str)>, rule: Rule) {
        self.len += 1;
        if let Some((principal_type, name)) = principal {
            self.by_principal
                .entry(principal_type.to_owned())
                .or_default()
                .entry(name.to_owned())
                .or_default()
                .push(rule);
        }
    }

    fn remove(&mut self, principal: Option<(&str, &str)>, id: &Uuid) {
        self.len = self.len.saturating_sub(1);
        let Some((principal_type, name)) = principal else {
            return;
        };
        let Some(names) = self.by_principal.get_mut(principal_type) else {
            return;
        };
        if let Some(rules) = names.get_mut(name) {
            rules.retain(|r| r.id != *id);
            if rules.is_empty() {
                names.remove(name);
            }
        }
        if names.is_empty() {
            self.by_principal.remove(principal_type);
        }
    }
}

/// Where an ACL sits in the index.
struct Place<'a> {
    resource_type: ResourceType,
    literal: bool,
    principal: Option<(&'a str, &'a str)>,
}

impl<'a> Place<'a> {
    fn of(acl: &'a StandardAcl) -> Self {
        Place {
            resource_type: ResourceType::from_code(acl.resource_type),
            literal: PatternType::from_code(acl.pattern_type) == PatternType::Literal,
            principal: acl.principal.split_once(':'),
        }
    }
}

/// The length of the longest common prefix of `a` and `b` that ends on a
/// character boundary of `a`.
fn common_prefix(a: &str, b: &str) -> usize {
    let mut n = a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count();
    while !a.is_char_boundary(n) {
        n -= 1;
    }
    n
}

impl AclIndex {
    /// No ACLs.
    pub fn new() -> Self {
        AclIndex::default()
    }

    /// The index of all of `acls` (Kafka's `loadSnapshot`).
    pub fn from_acls(acls: impl IntoIterator<Item = (Uuid, StandardAcl)>) -> Self {
        let mut index = AclIndex::new();
        for (id, acl) in acls {
            index.add(id, acl);
        }
        index
    }

    /// The number of ACLs.
    pub fn len(&self) -> usize {
        self.acls.len()
    }

    /// Whether there are no ACLs.
    pub fn is_empty(&self) -> bool {
        self.acls.is_empty()
    }

    /// The ACL with id `id`.
    pub fn get(&self, id: &Uuid) -> Option<&StandardAcl> {
        self.acls.get(id)
    }

    /// Every ACL and its id, in id order.
    pub fn iter(&self) -> impl Iterator<Item = (&Uuid, &StandardAcl)> {
        self.acls.iter()
    }

    /// Adds the ACL `id`, replacing (and first unindexing) any ACL with that
    /// id, which is returned.
    pub fn add(&mut self, id: Uuid, acl: StandardAcl) -> Option<StandardAcl> {
        let previous = self.remove(&id);
        let place = Place::of(&acl);
        let rule = Rule {
            id,
            pattern_type: PatternType::from_code(acl.pattern_type),
            host: HostPattern::parse(&acl.host),
            operation: AclOperation::from_code(acl.operation),
            permission: AclPermissionType::from_code(acl.permission_type),
        };
        let group = self
            .sections
            .entry(place.resource_type)
            .or_default()
            .entry(acl.resource_name.clone())
            .or_default();
        let rules = if place.literal {
            &mut group.literal
        } else {
            &mut group.prefixed
        };
        rules.add(place.principal, rule);
        self.acls.insert(id, acl);
        previous
    }

    /// Removes the ACL `id`, returning it; `None` if there is none.
    pub fn remove(&mut self, id: &Uuid) -> Option<StandardAcl> {
        let acl = self.acls.remove(id)?;
        let place = Place::of(&acl);
        if let Some(section) = self.sections.get_mut(&place.resource_type) {
            if let Some(group) = section.get_mut(acl.resource_name.as_str()) {
                let rules = if place.literal {
                    &mut group.literal
                } else {
                    &mut group.prefixed
                };
                rules.remove(place.principal, id);
                if group.literal.len == 0 && group.prefixed.len == 0 {
                    section.remove(acl.resource_name.as_str());
                }
            }
            if section.is_empty() {
                self.sections.remove(&place.resource_type);
            }
        }
        Some(acl)
    }

    /// The ACLs `filter` matches, with their ids, in the order Kafka's
    /// `StandardAuthorizer.acls(filter)` lists them
    /// ([`StandardAcl::kafka_cmp`], then id). An ACL Kafka could not turn
    /// into a binding matches no filter.
    pub fn matching(&self, filter: &AclBindingFilter) -> Vec<(Uuid, &StandardAcl)> {
        let mut found: Vec<(Uuid, &StandardAcl)> = self
            .acls
            .iter()
            .filter(|(_, acl)| filter.matches_acl(acl))
            .map(|(id, acl)| (*id, acl))
            .collect();
        found.sort_by(|(a_id, a), (b_id, b)| a.kafka_cmp(b).then_with(|| a_id.cmp(b_id)));
        found
    }

    /// What the ACLs say about `principal`, at `client` (already through
    /// `client_address`), doing `operation` on the resource `resource_type`
    /// named `name` (Kafka's `findAclRule`). Stops at the first applying
    /// DENY.
    pub(crate) fn check(
        &self,
        principal: &KafkaPrincipal,
        client: IpAddr,
        operation: AclOperation,
        resource_type: ResourceType,
        name: &str,
    ) -> Finding {
        let mut finding = Finding::default();
        let Some(section) = self.sections.get(&resource_type) else {
            return finding;
        };
        let mut bound = name;
        'walk: loop {
            let below = (Bound::Unbounded, Bound::Included(bound));
            for (key, group) in section.range::<str, _>(below).rev() {
                finding.names_visited += 1;
                if !name.starts_with(key.as_str()) {
                    // Every name between here and the common prefix shares
                    // less than `key` does with `name`: none is a prefix.
                    bound = &name[..common_prefix(name, key)];
                    continue 'walk;
                }
                if key.len() == name.len() {
                    group
                        .literal
                        .check(principal, client, operation, &mut finding);
                }
                group
                    .prefixed
                    .check(principal, client, operation, &mut finding);
                if finding.deny {
                    return finding;
                }
            }
            break;
        }
        if !name.starts_with(WILDCARD_RESOURCE) {
            if let Some(group) = section.get(WILDCARD_RESOURCE) {
                finding.names_visited += 1;
                group
                    .literal
                    .check(principal, client, operation, &mut finding);
            }
        }
        finding
    }

    /// Every ACL of `resource_type` whose principal has a colon, in no
    /// particular order: what Kafka's `authorizeByResourceType` reads.
    pub(crate) fn rules_of_type(
        &self,
        resource_type: ResourceType,
    ) -> impl Iterator<Item = TypeRule<'_>> + '_ {
        self.sections
            .get(&resource_type)
            .into_iter()
            .flat_map(|section| section.iter())
            .flat_map(|(name, group)| {
                [&group.literal, &group.prefixed]
                    .into_iter()
                    .flat_map(move |rules| {
                        rules.by_principal.iter().flat_map(move |(ptype, names)| {
                            names.iter().flat_map(move |(pname, rules)| {
                                rules.iter().map(move |rule| TypeRule {
                                    principal_type: ptype,
                                    principal_name: pname,
                                    resource_name: name,
                                    pattern_type: rule.pattern_type,
                                    host: rule.host,
                                    operation: rule.operation,
                                    permission: rule.permission,
                                })
                            })
                        })
                    })
            })
    }
}

/// One ACL of a resource type, as [`AclIndex::rules_of_type`] yields it.
pub(crate) struct TypeRule<'a> {
    pub(crate) principal_type: &'a str,
    pub(crate) principal_name: &'a str,
    pub(crate) resource_name: &'a str,
    pub(crate) pattern_type: PatternType,
    pub(crate) host: HostPattern,
    pub(crate) operation: AclOperation,
    pub(crate) permission: AclPermissionType,
}

impl PartialEq for AclIndex {
    fn eq(&self, other: &Self) -> bool {
        self.acls == other.acls
    }
}

impl Eq for AclIndex {}

impl fmt::Debug for AclIndex {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.acls.iter()).finish()
    }
}
