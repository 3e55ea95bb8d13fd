//! Authorization of the controller APIs, as Kafka 4.4's `ControllerApis`
//! and `AuthHelper` do it, over the [`StandardAuthorizer`] and the ACLs of
//! the committed image.
//!
//! Without an authorizer (`authorizer.class.name` empty) every check
//! passes, as in Kafka. With one:
//!
//! * the node-to-node APIs need CLUSTER_ACTION on the cluster, the quorum
//!   and admin APIs ALTER or DESCRIBE on it ([`cluster_operation`]); a
//!   refusal answers the whole request with CLUSTER_AUTHORIZATION_FAILED
//!   (`Request ... needs <OP> permission.`) in the shape of Kafka's
//!   `getErrorResponse` for that request;
//! * CreateTopics, DeleteTopics, CreatePartitions and
//!   IncrementalAlterConfigs check each topic (or group, or the cluster)
//!   and answer the refused entries with TOPIC_ / GROUP_ /
//!   CLUSTER_AUTHORIZATION_FAILED, while the others go on ([`Access`]);
//! * an Envelope needs CLUSTER_ACTION for its sender; the forwarded request
//!   is then authorized as its client: the principal the envelope carries
//!   and the client address;
//! * before the image is loaded, everyone but the super users gets Kafka's
//!   `AuthorizerNotReadyException`: the request fails as a whole with
//!   UNKNOWN_SERVER_ERROR.

use std::collections::HashSet;
use std::fmt;
use std::net::{IpAddr, Ipv4Addr};

use kraft_protocol::acl::{AclOperation, KafkaPrincipal, ResourceType};
use kraft_protocol::{ApiKey, ErrorCode};

use super::{ApiError, Controller};
use crate::authorizer::{
    authorized_operations, Action, AuthorizationResult, AuthorizerNotReady, RequestIdentity,
    StandardAuthorizer,
};

/// The name of the one CLUSTER resource (Kafka's `Resource.CLUSTER_NAME`).
pub const CLUSTER_NAME: &str = "kafka-cluster";

/// Who sent a request: the principal and client address the authorizer
/// sees (Kafka's `RequestContext.principal` and `clientAddress`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Caller {
    /// The authenticated principal (`User:ANONYMOUS` on a PLAINTEXT
    /// listener; for a forwarded request, the client's principal).
    pub principal: KafkaPrincipal,
    /// The client's address.
    pub host: IpAddr,
}

impl Caller {
    /// An unauthenticated client at `host`.
    pub fn anonymous(host: IpAddr) -> Self {
        Caller {
            principal: KafkaPrincipal::ANONYMOUS,
            host,
        }
    }

    fn identity(&self) -> RequestIdentity<'_> {
        RequestIdentity {
            principal: &self.principal,
            host: self.host,
        }
    }
}

impl Default for Caller {
    /// `User:ANONYMOUS` at 127.0.0.1.
    fn default() -> Self {
        Caller::anonymous(IpAddr::V4(Ipv4Addr::LOCALHOST))
    }
}

impl fmt::Display for Caller {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}/{}",
            self.principal.principal_type, self.principal.name, self.host
        )
    }
}

/// The operation on the cluster an API needs before anything else
/// (`AuthHelper.authorizeClusterOperation` at the top of the handler in
/// `ControllerApis`); `None` for the APIs authorized per resource or not at
/// all (ApiVersions, CreateTopics, DeleteTopics, CreatePartitions,
/// IncrementalAlterConfigs, Envelope, whose check answers differently).
pub fn cluster_operation(api: ApiKey) -> Option<AclOperation> {
    use AclOperation::{Alter, ClusterAction, Describe};
    Some(match api {
        ApiKey::Fetch
        | ApiKey::FetchSnapshot
        | ApiKey::Vote
        | ApiKey::BeginQuorumEpoch
        | ApiKey::EndQuorumEpoch
        | ApiKey::AlterPartition
        | ApiKey::BrokerHeartbeat
        | ApiKey::BrokerRegistration
        | ApiKey::ControllerRegistration
        | ApiKey::AllocateProducerIds
        | ApiKey::AssignReplicasToDirs
        | ApiKey::UpdateRaftVoter => ClusterAction,
        ApiKey::DescribeQuorum | ApiKey::DescribeAcls | ApiKey::ListPartitionReassignments => {
            Describe
        }
        ApiKey::AlterClientQuotas => AclOperation::AlterConfigs,
        ApiKey::ElectLeaders
        | ApiKey::AlterPartitionReassignments
        | ApiKey::UnregisterBroker
        | ApiKey::UnregisterController
        | ApiKey::UpdateFeatures
        | ApiKey::AddRaftVoter
        | ApiKey::RemoveRaftVoter
        | ApiKey::CreateAcls
        | ApiKey::DeleteAcls
        | ApiKey::AlterUserScramCredentials
        // Unlike a broker, a controller wants ALTER for DescribeCluster.
        | ApiKey::DescribeCluster => Alter,
        _ => return None,
    })
}

/// What the authorizer decided about a request as a whole.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// The principal lacks the cluster operation: CLUSTER_AUTHORIZATION_FAILED.
    Cluster(ApiError),
    /// The ACLs are not loaded yet: UNKNOWN_SERVER_ERROR, no message.
    NotReady,
}

impl Refusal {
    /// The error the whole request is answered with.
    pub(crate) fn api_error(&self) -> ApiError {
        match self {
            Refusal::Cluster(e) => e.clone(),
            Refusal::NotReady => ApiError {
                code: AuthorizerNotReady::ERROR_CODE,
                message: None,
            },
        }
    }
}

impl From<AuthorizerNotReady> for Refusal {
    fn from(_: AuthorizerNotReady) -> Self {
        Refusal::NotReady
    }
}

/// The authorization view of one request: the authorizer (if any), the
/// caller, and the committed ACLs. Without an authorizer every check
/// passes.
pub struct Access<'a> {
    controller: Option<&'a Controller>,
    caller: Option<&'a Caller>,
}

impl<'a> Access<'a> {
    /// Everything allowed: for requests the controller makes itself and
    /// for handlers called directly (tests, embedding).
    pub fn everything() -> Access<'static> {
        Access {
            controller: None,
            caller: None,
        }
    }

    fn authorizer(&self) -> Option<(&'a StandardAuthorizer, &'a Controller, &'a Caller)> {
        let controller = self.controller?;
        let caller = self.caller?;
        controller
            .authorizer
            .as_ref()
            .map(|a| (a, controller, caller))
    }

    /// Kafka's `AuthHelper.authorize` of one operation on a literal
    /// resource.
    pub(crate) fn allows(
        &self,
        operation: AclOperation,
        resource_type: ResourceType,
        name: &str,
    ) -> Result<bool, AuthorizerNotReady> {
        let Some((authorizer, controller, caller)) = self.authorizer() else {
            return Ok(true);
        };
        let image = controller.image.read();
        let result = authorizer.authorize(
            image.acls().index(),
            controller.image.is_loaded(),
            &caller.identity(),
            &Action::new(operation, resource_type, name),
        )?;
        Ok(result == AuthorizationResult::Allowed)
    }

    /// Kafka's `AuthHelper.filterByAuthorized`: the names of `names` the
    /// caller may `operation`.
    pub(crate) fn filter<'n>(
        &self,
        operation: AclOperation,
        resource_type: ResourceType,
        names: impl IntoIterator<Item = &'n str>,
    ) -> Result<HashSet<String>, AuthorizerNotReady> {
        let names: Vec<&str> = {
            let mut seen = HashSet::new();
            names.into_iter().filter(|n| seen.insert(*n)).collect()
        };
        let Some((authorizer, controller, caller)) = self.authorizer() else {
            return Ok(names.into_iter().map(str::to_owned).collect());
        };
        if names.is_empty() {
            return Ok(HashSet::new());
        }
        let actions: Vec<Action<'_>> = names
            .iter()
            .map(|n| Action::new(operation, resource_type, n))
            .collect();
        let image = controller.image.read();
        let results = authorizer.authorize_all(
            image.acls().index(),
            controller.image.is_loaded(),
            &caller.identity(),
            &actions,
        )?;
        Ok(names
            .into_iter()
            .zip(results)
            .filter(|(_, r)| *r == AuthorizationResult::Allowed)
            .map(|(n, _)| n.to_owned())
            .collect())
    }

    /// Kafka's `AuthHelper.authorizeClusterOperation`: CLUSTER_AUTHORIZATION_FAILED
    /// with `Request ... needs <OP> permission.` unless allowed.
    pub(crate) fn require_cluster(
        &self,
        api: ApiKey,
        operation: AclOperation,
    ) -> Result<(), Refusal> {
        if self.allows(operation, ResourceType::Cluster, CLUSTER_NAME)? {
            return Ok(());
        }
        let who = self
            .caller
            .map_or_else(|| "unknown".to_owned(), Caller::to_string);
        Err(Refusal::Cluster(ApiError::new(
            ErrorCode::ClusterAuthorizationFailed,
            format!(
                "Request {}(principal={who}) needs {} permission.",
                api.kafka_name(),
                operation.name()
            ),
        )))
    }

    /// The CLUSTER operations the caller may perform (DescribeCluster's
    /// `clusterAuthorizedOperations`).
    pub(crate) fn cluster_operations(&self) -> i32 {
        let Some((authorizer, controller, caller)) = self.authorizer() else {
            return authorized_operations(
                None,
                &Default::default(),
                true,
                &Caller::default().identity(),
                ResourceType::Cluster,
                CLUSTER_NAME,
            );
        };
        let image = controller.image.read();
        authorized_operations(
            Some(authorizer),
            image.acls().index(),
            controller.image.is_loaded(),
            &caller.identity(),
            ResourceType::Cluster,
            CLUSTER_NAME,
        )
    }
}

impl Controller {
    /// The authorization view of a request from `caller`.
    pub(crate) fn access<'a>(&'a self, caller: &'a Caller) -> Access<'a> {
        Access {
            controller: Some(self),
            caller: Some(caller),
        }
    }

    /// The whole-request check of `request` (see [`cluster_operation`]).
    pub(crate) fn authorize_request(&self, caller: &Caller, api: ApiKey) -> Result<(), Refusal> {
        match cluster_operation(api) {
            Some(op) => self.access(caller).require_cluster(api, op),
            None => Ok(()),
        }
    }
}
