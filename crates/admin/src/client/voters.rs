//! Changes to the voter set (KIP-853 with KIP-1141's options):
//! AddRaftVoter and RemoveRaftVoter, and the directory id and endpoints
//! this client derives when the active controller cannot.

use std::collections::BTreeSet;
use std::time::Duration;

use kraft_protocol::messages::add_raft_voter_request::{AddRaftVoterRequest, Listener};
use kraft_protocol::messages::remove_raft_voter_request::RemoveRaftVoterRequest;
use kraft_protocol::{ApiKey, ErrorCode, StrBytes};
use uuid::Uuid;

use super::retry::Failure;
use super::Admin;
use crate::error::{AdminError, ApiError, Result};
use crate::kafka_uuid;
use crate::types::{
    AddRaftVoterOptions, AddRaftVoterResult, ClusterDescription, QuorumInfo, RaftVoterEndpoint,
    RemoveRaftVoterOptions, RemoveRaftVoterResult, VoterKeySource,
};

impl Admin {
    /// Adds a voter to the metadata quorum (KIP-853, with KIP-1141's options).
    ///
    /// Directory id and endpoints left empty in `options` are derived:
    /// * by the active controller, when it knows AddRaftVoter v2 (KIP-1141:
    ///   the zero UUID and an empty listener list mean "derive");
    /// * otherwise (a Kafka 4.4 controller knows only v0-v1 and would reject
    ///   such a request) by this client, which then sends a complete request:
    ///   the directory id of the one observer with `voter_id` that
    ///   DescribeQuorum lists, and the endpoint of the voter's controller
    ///   registration that DescribeCluster lists (the endpoint on the
    ///   listener this client is connected through, named after the
    ///   matching listener of the leader). When that is impossible (no or
    ///   several such observers, no registration, bootstrap servers) the call
    ///   fails with [`AdminError::CannotDerive`], which says what to pass.
    ///
    /// `AckWhenCommitted` is left at its default (`true`): the call returns
    /// once the new voter set is committed.
    pub async fn add_raft_voter(
        &self,
        voter_id: i32,
        options: AddRaftVoterOptions,
    ) -> Result<AddRaftVoterResult> {
        let complete = options.voter_directory_id.is_some() && !options.endpoints.is_empty();
        let mut key: Option<(Uuid, Vec<RaftVoterEndpoint>)> = if complete {
            Some((
                options.voter_directory_id.unwrap_or_default(),
                options.endpoints.clone(),
            ))
        } else {
            None
        };
        let mut source = if complete {
            VoterKeySource::Caller
        } else {
            VoterKeySource::Server
        };
        let mut retry = self.retry("addRaftVoter", options.timeout);
        loop {
            let attempt = async {
                let conn = self.target(&retry).await?;
                let version = conn.version_for(ApiKey::AddRaftVoter)?;
                if key.is_none() && version < 2 {
                    tracing::info!(
                        voter_id,
                        version,
                        "the active controller cannot derive the voter's directory id and endpoints (AddRaftVoter < v2); deriving them on the client"
                    );
                    let derived = self
                        .derive_raft_voter_within(voter_id, &options, Some(retry.remaining()))
                        .await
                        .map_err(Failure::fatal)?;
                    key = Some(derived);
                    source = VoterKeySource::Client;
                }
                let (directory_id, endpoints) = match &key {
                    Some((d, e)) => (*d, e.clone()),
                    None => (
                        options.voter_directory_id.unwrap_or_default(),
                        options.endpoints.clone(),
                    ),
                };
                let request = AddRaftVoterRequest {
                    cluster_id: options.cluster_id.as_deref().map(StrBytes::from),
                    timeout_ms: retry.remaining_ms_i32(),
                    voter_id,
                    voter_directory_id: directory_id,
                    listeners: endpoints
                        .iter()
                        .map(|e| Listener {
                            name: StrBytes::from(e.listener.as_str()),
                            host: StrBytes::from(e.host.as_str()),
                            port: e.port,
                            ..Default::default()
                        })
                        .collect(),
                    ..Default::default()
                };
                let response = conn
                    .send(&request, version, retry.request_timeout(&self.inner.config))
                    .await?;
                self.check_code(response.error_code, response.error_message.as_ref(), &[])?;
                Ok(AddRaftVoterResult {
                    voter_directory_id: (!directory_id.is_nil()).then_some(directory_id),
                    endpoints,
                    source,
                    version,
                })
            }
            .await;
            if let Some(done) = self.next_step(&mut retry, attempt).await {
                return done;
            }
        }
    }

    /// The deprecated positional form of [`Admin::add_raft_voter`]: the
    /// positional directory id and endpoints win over those in `options`
    /// (whose cluster id and timeout still apply).
    #[deprecated(note = "use `add_raft_voter(voter_id, AddRaftVoterOptions { .. })` (KIP-1141)")]
    pub async fn add_raft_voter_positional(
        &self,
        voter_id: i32,
        voter_directory_id: Uuid,
        endpoints: Vec<RaftVoterEndpoint>,
        options: AddRaftVoterOptions,
    ) -> Result<AddRaftVoterResult> {
        self.add_raft_voter(
            voter_id,
            AddRaftVoterOptions {
                cluster_id: options.cluster_id,
                voter_directory_id: Some(voter_directory_id),
                endpoints,
                timeout: options.timeout,
            },
        )
        .await
    }

    /// Works out on the client what a KIP-1141 controller would derive for
    /// an AddRaftVoter request of `voter_id`: the values given in `options`
    /// are kept; a missing directory id comes from the single observer with
    /// that id in DescribeQuorum (or the voter's own entry when it already
    /// votes, so the controller can answer `DUPLICATE_VOTER`); missing
    /// endpoints come from the voter's controller registration as
    /// DescribeCluster shows it (bootstrap controllers only). Read-only.
    pub async fn derive_raft_voter(
        &self,
        voter_id: i32,
        options: &AddRaftVoterOptions,
    ) -> Result<(Uuid, Vec<RaftVoterEndpoint>)> {
        self.derive_raft_voter_within(voter_id, options, options.timeout)
            .await
    }

    async fn derive_raft_voter_within(
        &self,
        voter_id: i32,
        options: &AddRaftVoterOptions,
        timeout: Option<Duration>,
    ) -> Result<(Uuid, Vec<RaftVoterEndpoint>)> {
        let quorum = self.describe_metadata_quorum_within(timeout).await?;
        let voter = quorum.voters.iter().find(|v| v.replica_id == voter_id);
        let directory_id = match options.voter_directory_id {
            Some(d) => d,
            None => derive_directory_id(voter_id, &quorum)?,
        };
        if !options.endpoints.is_empty() {
            return Ok((directory_id, options.endpoints.clone()));
        }
        if voter.is_some() {
            if let Some(node) = quorum.nodes.get(&voter_id) {
                if !node.endpoints.is_empty() {
                    return Ok((directory_id, node.endpoints.clone()));
                }
            }
        }
        let cannot = |reason: String| AdminError::CannotDerive {
            voter_id,
            what: "endpoints",
            reason,
        };
        if !self.using_controllers() {
            return Err(cannot(
                "brokers do not report controller registrations; connect with bootstrap controllers or pass the endpoints explicitly".into(),
            ));
        }
        let cluster = self.describe_cluster().await?;
        let Some(node) = cluster.nodes.iter().find(|n| n.id == voter_id) else {
            let ids: Vec<String> = cluster.nodes.iter().map(|n| n.id.to_string()).collect();
            return Err(cannot(format!(
                "it is not a registered controller (registered: [{}]); start it and wait until it registers, or pass the endpoints explicitly",
                ids.join(", ")
            )));
        };
        let port = u16::try_from(node.port)
            .map_err(|_| cannot(format!("its registered port {} is invalid", node.port)))?;
        let listener = listener_of_connection(&cluster, &quorum).ok_or_else(|| {
            cannot("the name of the listener this client is connected through cannot be matched to the leader's endpoints; pass the endpoints explicitly".into())
        })?;
        Ok((
            directory_id,
            vec![RaftVoterEndpoint {
                listener,
                host: node.host.clone(),
                port,
            }],
        ))
    }

    /// Removes a voter from the metadata quorum (KIP-853, with KIP-1141's options).
    ///
    /// Without a directory id the active controller takes it from the
    /// current voter set when it knows RemoveRaftVoter v1 (KIP-1141);
    /// against an older controller (Kafka 4.4 knows only v0, which would
    /// reject the zero UUID) this client reads it from DescribeQuorum's
    /// current voters and sends a complete v0 request. A `voter_id` that is
    /// not a voter then fails with `VOTER_NOT_FOUND`, as the controller would.
    pub async fn remove_raft_voter(
        &self,
        voter_id: i32,
        options: RemoveRaftVoterOptions,
    ) -> Result<RemoveRaftVoterResult> {
        let mut directory = options.voter_directory_id;
        let mut source = if directory.is_some() {
            VoterKeySource::Caller
        } else {
            VoterKeySource::Server
        };
        let mut retry = self.retry("removeRaftVoter", options.timeout);
        loop {
            let attempt = async {
                let conn = self.target(&retry).await?;
                let version = conn.version_for(ApiKey::RemoveRaftVoter)?;
                if directory.is_none() && version < 1 {
                    tracing::info!(
                        voter_id,
                        "the active controller cannot derive the voter's directory id (RemoveRaftVoter v0); reading it from DescribeQuorum"
                    );
                    let quorum = self
                        .describe_metadata_quorum_within(Some(retry.remaining()))
                        .await
                        .map_err(Failure::fatal)?;
                    directory = Some(voter_directory_id(voter_id, &quorum).map_err(Failure::fatal)?);
                    source = VoterKeySource::Client;
                }
                let directory_id = directory.unwrap_or_default();
                let request = RemoveRaftVoterRequest {
                    cluster_id: options.cluster_id.as_deref().map(StrBytes::from),
                    voter_id,
                    voter_directory_id: directory_id,
                    ..Default::default()
                };
                let response = conn
                    .send(&request, version, retry.request_timeout(&self.inner.config))
                    .await?;
                self.check_code(response.error_code, response.error_message.as_ref(), &[])?;
                Ok(RemoveRaftVoterResult {
                    voter_directory_id: (!directory_id.is_nil()).then_some(directory_id),
                    source,
                    version,
                })
            }
            .await;
            if let Some(done) = self.next_step(&mut retry, attempt).await {
                return done;
            }
        }
    }

    /// The deprecated positional form of [`Admin::remove_raft_voter`]: the
    /// positional directory id wins over the one in `options`.
    #[deprecated(
        note = "use `remove_raft_voter(voter_id, RemoveRaftVoterOptions { .. })` (KIP-1141)"
    )]
    pub async fn remove_raft_voter_positional(
        &self,
        voter_id: i32,
        voter_directory_id: Uuid,
        options: RemoveRaftVoterOptions,
    ) -> Result<RemoveRaftVoterResult> {
        self.remove_raft_voter(
            voter_id,
            RemoveRaftVoterOptions {
                cluster_id: options.cluster_id,
                voter_directory_id: Some(voter_directory_id),
                timeout: options.timeout,
            },
        )
        .await
    }
}

/// The directory id a KIP-1141 controller would derive for a new voter:
/// the single observer with `voter_id` and a known directory id. When the
/// id already votes (and no observer has it), the voter's own directory id,
/// so the controller answers DUPLICATE_VOTER as it would for v2.
fn derive_directory_id(voter_id: i32, quorum: &QuorumInfo) -> Result<Uuid> {
    let found: BTreeSet<Uuid> = quorum
        .observers
        .iter()
        .filter(|o| o.replica_id == voter_id && !o.replica_directory_id.is_nil())
        .map(|o| o.replica_directory_id)
        .collect();
    let cannot = |reason: String| AdminError::CannotDerive {
        voter_id,
        what: "directory id",
        reason,
    };
    match found.len() {
        1 => Ok(found.into_iter().next().unwrap_or_default()),
        0 => {
            if let Some(v) = quorum.voters.iter().find(|v| v.replica_id == voter_id) {
                if !v.replica_directory_id.is_nil() {
                    return Ok(v.replica_directory_id);
                }
            }
            let observers: Vec<String> = quorum
                .observers
                .iter()
                .map(|o| o.replica_id.to_string())
                .collect();
            Err(cannot(format!(
                "no observer with node id {voter_id} is replicating from the leader (observers: [{}]); start the controller so that it fetches as an observer, or pass its directory id explicitly",
                observers.join(", ")
            )))
        }
        _ => {
            let ids: Vec<String> = found.iter().map(kafka_uuid::to_string).collect();
            Err(cannot(format!(
                "several observers use node id {voter_id} (directory ids {}); stop the duplicate or pass the directory id of the one to add",
                ids.join(", ")
            )))
        }
    }
}

/// The directory id of voter `voter_id` in the current voter set.
fn voter_directory_id(voter_id: i32, quorum: &QuorumInfo) -> Result<Uuid> {
    match quorum.voters.iter().find(|v| v.replica_id == voter_id) {
        Some(v) if !v.replica_directory_id.is_nil() => Ok(v.replica_directory_id),
        Some(_) => Err(AdminError::CannotDerive {
            voter_id,
            what: "directory id",
            reason: "the voter set does not record its directory id (static quorum?); pass it explicitly".into(),
        }),
        None => {
            let voters: Vec<String> = quorum.voters.iter().map(|v| v.replica_id.to_string()).collect();
            Err(ApiError::new(
                ErrorCode::VoterNotFound,
                Some(format!(
                    "Controller {voter_id} is not in the set of voters [{}]",
                    voters.join(", ")
                )),
            )
            .into())
        }
    }
}

/// The name of the listener a DescribeCluster request arrived on: the
/// leader's endpoint in DescribeQuorum's Nodes that matches the leader's
/// registered endpoint (host and port, else port), else the leader's only
/// endpoint.
fn listener_of_connection(cluster: &ClusterDescription, quorum: &QuorumInfo) -> Option<String> {
    let leader = cluster.controller.clone().or_else(|| {
        cluster
            .nodes
            .iter()
            .find(|n| n.id == quorum.leader_id)
            .cloned()
    })?;
    let endpoints = &quorum.nodes.get(&leader.id)?.endpoints;
    let names = |pred: &dyn Fn(&RaftVoterEndpoint) -> bool| -> BTreeSet<String> {
        endpoints
            .iter()
            .filter(|e| pred(e))
            .map(|e| e.listener.clone())
            .collect()
    };
    let exact = names(&|e| e.host == leader.host && i32::from(e.port) == leader.port);
    if exact.len() == 1 {
        return exact.into_iter().next();
    }
    let by_port = names(&|e| i32::from(e.port) == leader.port);
    if by_port.len() == 1 {
        return by_port.into_iter().next();
    }
    let all = names(&|_| true);
    if all.len() == 1 {
        return all.into_iter().next();
    }
    None
}
