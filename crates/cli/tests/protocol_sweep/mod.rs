//! A live protocol sweep over raw TCP with Kafka framing.
//!
//! For every API a controller advertises in its ApiVersions response, every
//! version in the advertised range and each request case below, one request
//! is sent on a fresh connection to the leader and to a follower; the answer
//! must be a response frame with the request's correlation id that decodes at
//! that version. Each answer is reduced to its top-level and partition-level
//! error codes, so that two implementations can be compared.
//!
//! The cases never change the quorum: where a body must name cluster-specific
//! values the request carries a wrong cluster id, a leader epoch of 0 (older
//! than any elected leader's), or ids no node has, so that every conforming
//! implementation answers with the same errors whatever its state. The one
//! change they make is to the controller registrations: ControllerRegistration
//! registers controller 1000 (both Kafka 4.4 and kraft-rs accept it) and the
//! UnregisterController case, swept after it, removes it again.
//!
//! Shared by the e2e test (`e2e/protocol_sweep.rs`, a kraft-rs quorum) and
//! `interop_kafka.rs` (kraft-rs compared with Kafka 4.4); each uses a part.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use bytes::Bytes;
use kraft_protocol::header::{decode_response, encode_request_frame};
use kraft_protocol::messages::request_header::RequestHeader;
use kraft_protocol::messages::*;
use kraft_protocol::{ApiKey, List, RequestBody, ResponseBody, StrBytes, Uuid};
use kraft_testkit::wait_for;

/// The metadata topic and its fixed id (`Uuid.ONE_UUID`).
const METADATA_TOPIC: &str = "__cluster_metadata";
const METADATA_TOPIC_ID: Uuid = Uuid::from_u64_pair(0, 1);
/// A cluster id no cluster has (22 characters of base64, like a real one).
const WRONG_CLUSTER_ID: &str = "c3dlZXAtd3JvbmctY2x1cw";
/// A topic no swept quorum has.
const NO_SUCH_TOPIC: &str = "sweep-no-such-topic";
/// A node id no node of the swept quorums has.
const NO_SUCH_NODE: i32 = 1000;
/// A directory id no node has.
const NO_SUCH_DIRECTORY: Uuid = Uuid::from_u64_pair(0x5157_4545_5000_0000, 0x1000);
/// How long one request may take.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(20);

/// A node of the swept quorum.
#[derive(Clone, Debug)]
pub struct Target {
    /// `leader` or `follower`.
    pub role: &'static str,
    /// `host:port`.
    pub addr: String,
}

/// One request case: a name and the body for a version (`None` where the
/// case cannot be expressed at that version, e.g. a cluster id before the
/// version that has one).
pub struct Case {
    /// The API.
    pub api: ApiKey,
    /// Short name printed in the table.
    pub name: &'static str,
    body: fn(i16) -> Option<RequestBody>,
}

/// The reduced answer to one request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Answer {
    /// A well-formed response: its top-level and partition-level error codes.
    Codes { top: i16, partitions: Vec<i16> },
    /// No well-formed response, and why.
    Failed(String),
}

impl std::fmt::Display for Answer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Answer::Codes { top, partitions } if partitions.is_empty() => write!(f, "{top}"),
            Answer::Codes { top, partitions } => {
                let p: Vec<String> = partitions.iter().map(i16::to_string).collect();
                write!(f, "{top} [{}]", p.join(","))
            }
            Answer::Failed(why) => write!(f, "FAILED ({why})"),
        }
    }
}

/// (api key, case, version, role).
pub type Key = (i16, &'static str, i16, &'static str);

/// The outcome of one sweep.
pub struct Sweep {
    /// Who was swept (printed in the table).
    pub name: String,
    /// Advertised ranges per API key, as the leader's ApiVersions lists them.
    pub advertised: BTreeMap<i16, (i16, i16)>,
    /// Every answer.
    pub answers: BTreeMap<Key, Answer>,
}

fn s(v: &str) -> StrBytes {
    StrBytes::from(v)
}

/// Names of the APIs a Kafka 4.4 controller advertises that have no schema
/// here (Appendix B of the protocol digest), for the report.
const OTHER_APIS: &[(i16, &str)] = &[
    (32, "DESCRIBE_CONFIGS"),
    (33, "ALTER_CONFIGS"),
    (45, "ALTER_PARTITION_REASSIGNMENTS"),
    (46, "LIST_PARTITION_REASSIGNMENTS"),
    (58, "ENVELOPE"),
    (62, "BROKER_REGISTRATION"),
    (63, "BROKER_HEARTBEAT"),
    (64, "UNREGISTER_BROKER"),
    (73, "ASSIGN_REPLICAS_TO_DIRS"),
];

fn api_name(key: i16) -> String {
    match ApiKey::from_i16(key) {
        Some(k) => format!("{}({key})", k.kafka_name()),
        None => match OTHER_APIS.iter().find(|(k, _)| *k == key) {
            Some((_, name)) => format!("{name}({key})"),
            None => format!("api {key}"),
        },
    }
}

// ---------------------------------------------------------------------------
// Request bodies.

fn vote(version: i16, cluster_id: Option<&str>) -> RequestBody {
    RequestBody::Vote(vote_request::VoteRequest {
        cluster_id: cluster_id.map(s),
        voter_id: if version >= 1 { 1 } else { -1 },
        topics: vec![vote_request::TopicData {
            topic_name: s(METADATA_TOPIC),
            partitions: List::from([vote_request::PartitionData {
                partition_index: 0,
                replica_epoch: 0,
                replica_id: NO_SUCH_NODE,
                last_offset_epoch: 0,
                last_offset: 0,
                ..Default::default()
            }]),
            ..Default::default()
        }]
        .into(),
        ..Default::default()
    })
}

fn begin_quorum_epoch(cluster_id: Option<&str>) -> RequestBody {
    use begin_quorum_epoch_request as q;
    RequestBody::BeginQuorumEpoch(q::BeginQuorumEpochRequest {
        cluster_id: cluster_id.map(s),
        voter_id: -1,
        topics: vec![q::TopicData {
            topic_name: s(METADATA_TOPIC),
            partitions: List::from([q::PartitionData {
                partition_index: 0,
                leader_id: 1,
                leader_epoch: 0,
                ..Default::default()
            }]),
            ..Default::default()
        }]
        .into(),
        ..Default::default()
    })
}

fn end_quorum_epoch(cluster_id: Option<&str>) -> RequestBody {
    use end_quorum_epoch_request as q;
    RequestBody::EndQuorumEpoch(q::EndQuorumEpochRequest {
        cluster_id: cluster_id.map(s),
        topics: vec![q::TopicData {
            topic_name: s(METADATA_TOPIC),
            partitions: List::from([q::PartitionData {
                partition_index: 0,
                leader_id: 1,
                leader_epoch: 0,
                ..Default::default()
            }]),
            ..Default::default()
        }]
        .into(),
        ..Default::default()
    })
}

fn fetch(version: i16, cluster_id: Option<&str>) -> RequestBody {
    use fetch_request as q;
    RequestBody::Fetch(q::FetchRequest {
        cluster_id: cluster_id.map(s),
        replica_id: if version <= 14 { NO_SUCH_NODE } else { -1 },
        replica_state: q::ReplicaState {
            replica_id: if version >= 15 { NO_SUCH_NODE } else { -1 },
            replica_epoch: -1,
            ..Default::default()
        },
        max_wait_ms: 0,
        min_bytes: 0,
        max_bytes: 1 << 20,
        session_epoch: -1,
        topics: vec![q::FetchTopic {
            topic: if version <= 12 {
                s(METADATA_TOPIC)
            } else {
                StrBytes::default()
            },
            topic_id: if version >= 13 {
                METADATA_TOPIC_ID
            } else {
                Uuid::nil()
            },
            partitions: List::from([q::FetchPartition {
                partition: 0,
                current_leader_epoch: if version >= 9 { 0 } else { -1 },
                fetch_offset: 0,
                last_fetched_epoch: if version >= 12 { 0 } else { -1 },
                log_start_offset: -1,
                partition_max_bytes: 1 << 20,
                ..Default::default()
            }]),
            ..Default::default()
        }]
        .into(),
        ..Default::default()
    })
}

fn fetch_snapshot(cluster_id: Option<&str>) -> RequestBody {
    use fetch_snapshot_request as q;
    RequestBody::FetchSnapshot(q::FetchSnapshotRequest {
        cluster_id: cluster_id.map(s),
        replica_id: NO_SUCH_NODE,
        max_bytes: 1 << 20,
        topics: vec![q::TopicSnapshot {
            name: s(METADATA_TOPIC),
            partitions: List::from([q::PartitionSnapshot {
                partition: 0,
                current_leader_epoch: 0,
                snapshot_id: q::SnapshotId {
                    end_offset: 0,
                    epoch: 0,
                    ..Default::default()
                },
                position: 0,
                ..Default::default()
            }]),
            ..Default::default()
        }]
        .into(),
        ..Default::default()
    })
}

fn describe_quorum(partition: i32) -> RequestBody {
    use describe_quorum_request as q;
    RequestBody::DescribeQuorum(q::DescribeQuorumRequest {
        topics: vec![q::TopicData {
            topic_name: s(METADATA_TOPIC),
            partitions: List::from([q::PartitionData {
                partition_index: partition,
                ..Default::default()
            }]),
            ..Default::default()
        }]
        .into(),
        ..Default::default()
    })
}

fn add_raft_voter(cluster_id: Option<&str>) -> RequestBody {
    use add_raft_voter_request as q;
    RequestBody::AddRaftVoter(q::AddRaftVoterRequest {
        cluster_id: cluster_id.map(s),
        timeout_ms: 5000,
        voter_id: NO_SUCH_NODE,
        voter_directory_id: NO_SUCH_DIRECTORY,
        listeners: List::from([q::Listener {
            name: s("CONTROLLER"),
            host: s("127.0.0.1"),
            port: 1,
            ..Default::default()
        }]),
        ack_when_committed: true,
        ..Default::default()
    })
}

fn remove_raft_voter(cluster_id: Option<&str>) -> RequestBody {
    RequestBody::RemoveRaftVoter(remove_raft_voter_request::RemoveRaftVoterRequest {
        cluster_id: cluster_id.map(s),
        voter_id: NO_SUCH_NODE,
        voter_directory_id: NO_SUCH_DIRECTORY,
        ..Default::default()
    })
}

fn update_raft_voter(cluster_id: Option<&str>) -> RequestBody {
    use update_raft_voter_request as q;
    RequestBody::UpdateRaftVoter(q::UpdateRaftVoterRequest {
        cluster_id: cluster_id.map(s),
        current_leader_epoch: 0,
        voter_id: NO_SUCH_NODE,
        voter_directory_id: NO_SUCH_DIRECTORY,
        listeners: List::from([q::Listener {
            name: s("CONTROLLER"),
            host: s("127.0.0.1"),
            port: 1,
            ..Default::default()
        }]),
        k_raft_version_feature: q::KRaftVersionFeature {
            min_supported_version: 0,
            max_supported_version: 1,
            ..Default::default()
        },
        ..Default::default()
    })
}

/// Every case, in API key order.
pub fn cases() -> Vec<Case> {
    vec![
        Case {
            api: ApiKey::Fetch,
            name: "wrong-cluster",
            body: |v| (v >= 12).then(|| fetch(v, Some(WRONG_CLUSTER_ID))),
        },
        Case {
            api: ApiKey::Fetch,
            name: "epoch-0",
            body: |v| Some(fetch(v, None)),
        },
        Case {
            api: ApiKey::ApiVersions,
            name: "plain",
            body: |v| {
                Some(RequestBody::ApiVersions(
                    api_versions_request::ApiVersionsRequest {
                        client_software_name: if v >= 3 { s("kraft-sweep") } else { s("") },
                        client_software_version: if v >= 3 { s("1.0") } else { s("") },
                        node_id: -1,
                        ..Default::default()
                    },
                ))
            },
        },
        Case {
            api: ApiKey::Vote,
            name: "wrong-cluster",
            body: |v| Some(vote(v, Some(WRONG_CLUSTER_ID))),
        },
        Case {
            api: ApiKey::Vote,
            name: "epoch-0",
            body: |v| Some(vote(v, None)),
        },
        Case {
            api: ApiKey::BeginQuorumEpoch,
            name: "wrong-cluster",
            body: |_| Some(begin_quorum_epoch(Some(WRONG_CLUSTER_ID))),
        },
        Case {
            api: ApiKey::BeginQuorumEpoch,
            name: "epoch-0",
            body: |_| Some(begin_quorum_epoch(None)),
        },
        Case {
            api: ApiKey::EndQuorumEpoch,
            name: "wrong-cluster",
            body: |_| Some(end_quorum_epoch(Some(WRONG_CLUSTER_ID))),
        },
        Case {
            api: ApiKey::EndQuorumEpoch,
            name: "epoch-0",
            body: |_| Some(end_quorum_epoch(None)),
        },
        Case {
            api: ApiKey::DescribeQuorum,
            name: "metadata-0",
            body: |_| Some(describe_quorum(0)),
        },
        Case {
            api: ApiKey::DescribeQuorum,
            name: "partition-1",
            body: |_| Some(describe_quorum(1)),
        },
        Case {
            api: ApiKey::UpdateFeatures,
            name: "empty-validate",
            body: |v| {
                Some(RequestBody::UpdateFeatures(
                    update_features_request::UpdateFeaturesRequest {
                        timeout_ms: 5000,
                        validate_only: v >= 1,
                        ..Default::default()
                    },
                ))
            },
        },
        Case {
            api: ApiKey::FetchSnapshot,
            name: "wrong-cluster",
            body: |_| Some(fetch_snapshot(Some(WRONG_CLUSTER_ID))),
        },
        Case {
            api: ApiKey::FetchSnapshot,
            name: "epoch-0",
            body: |_| Some(fetch_snapshot(None)),
        },
        Case {
            api: ApiKey::DescribeCluster,
            name: "controllers",
            body: |v| {
                Some(RequestBody::DescribeCluster(
                    describe_cluster_request::DescribeClusterRequest {
                        include_cluster_authorized_operations: false,
                        endpoint_type: if v >= 1 { 2 } else { 1 },
                        include_fenced_brokers: false,
                        ..Default::default()
                    },
                ))
            },
        },
        Case {
            api: ApiKey::ControllerRegistration,
            name: "id-1000",
            body: |_| {
                use controller_registration_request as q;
                Some(RequestBody::ControllerRegistration(
                    q::ControllerRegistrationRequest {
                        controller_id: NO_SUCH_NODE,
                        incarnation_id: NO_SUCH_DIRECTORY,
                        zk_migration_ready: false,
                        listeners: List::from([q::Listener {
                            name: s("CONTROLLER"),
                            host: s("127.0.0.1"),
                            port: 1,
                            security_protocol: 0,
                            ..Default::default()
                        }]),
                        // Claims metadata.version 1 (3.0-IV1) only; Kafka
                        // 4.4 does not check it and accepts the registration.
                        features: List::from([q::Feature {
                            name: s("metadata.version"),
                            min_supported_version: 1,
                            max_supported_version: 1,
                            ..Default::default()
                        }]),
                        ..Default::default()
                    },
                ))
            },
        },
        Case {
            api: ApiKey::AddRaftVoter,
            name: "wrong-cluster",
            body: |_| Some(add_raft_voter(Some(WRONG_CLUSTER_ID))),
        },
        Case {
            api: ApiKey::RemoveRaftVoter,
            name: "wrong-cluster",
            body: |_| Some(remove_raft_voter(Some(WRONG_CLUSTER_ID))),
        },
        Case {
            api: ApiKey::RemoveRaftVoter,
            name: "unknown-voter",
            body: |_| Some(remove_raft_voter(None)),
        },
        Case {
            api: ApiKey::UpdateRaftVoter,
            name: "wrong-cluster",
            body: |_| Some(update_raft_voter(Some(WRONG_CLUSTER_ID))),
        },
        Case {
            api: ApiKey::UpdateRaftVoter,
            name: "epoch-0",
            body: |_| Some(update_raft_voter(None)),
        },
        Case {
            api: ApiKey::BrokerRegistration,
            name: "wrong-cluster",
            body: |_| {
                use broker_registration_request as q;
                Some(RequestBody::BrokerRegistration(
                    q::BrokerRegistrationRequest {
                        broker_id: NO_SUCH_NODE,
                        cluster_id: s(WRONG_CLUSTER_ID),
                        incarnation_id: NO_SUCH_DIRECTORY,
                        listeners: List::from([q::Listener {
                            name: s("PLAINTEXT"),
                            host: s("127.0.0.1"),
                            port: 1,
                            security_protocol: 0,
                            ..Default::default()
                        }]),
                        features: List::from([q::Feature {
                            name: s("metadata.version"),
                            min_supported_version: 1,
                            max_supported_version: 33,
                            ..Default::default()
                        }]),
                        log_dirs: vec![NO_SUCH_DIRECTORY],
                        ..Default::default()
                    },
                ))
            },
        },
        Case {
            api: ApiKey::BrokerHeartbeat,
            name: "unregistered",
            body: |_| {
                Some(RequestBody::BrokerHeartbeat(
                    broker_heartbeat_request::BrokerHeartbeatRequest {
                        broker_id: NO_SUCH_NODE,
                        broker_epoch: 0,
                        current_metadata_offset: 0,
                        ..Default::default()
                    },
                ))
            },
        },
        Case {
            api: ApiKey::UnregisterBroker,
            name: "id-1000",
            body: |_| Some(unregister_broker()),
        },
        Case {
            api: ApiKey::Envelope,
            name: "unregister-broker-1000",
            body: |_| {
                let header = RequestHeader {
                    request_api_key: ApiKey::UnregisterBroker.id(),
                    request_api_version: 0,
                    correlation_id: 7,
                    client_id: Some(s("adminclient-1")),
                    ..Default::default()
                };
                let mut inner = Vec::new();
                encode_request_frame(&mut inner, &header, &unregister_broker()).ok()?;
                // DefaultPrincipalData v0 of User:ANONYMOUS, version-prefixed.
                let mut principal = vec![0u8, 0];
                principal.extend([5, b'U', b's', b'e', b'r']);
                principal.push(10);
                principal.extend(b"ANONYMOUS");
                principal.extend([0, 0]);
                Some(RequestBody::Envelope(envelope_request::EnvelopeRequest {
                    // Without the frame's size prefix.
                    request_data: Bytes::from(inner).slice(4..),
                    request_principal: Some(Bytes::from(principal)),
                    client_host_address: Bytes::from_static(&[127, 0, 0, 1]),
                    ..Default::default()
                }))
            },
        },
        Case {
            api: ApiKey::CreateTopics,
            name: "invalid-name",
            body: |_| Some(create_topic("bad name!", false)),
        },
        Case {
            api: ApiKey::CreateTopics,
            name: "metadata-topic",
            body: |_| Some(create_topic(METADATA_TOPIC, false)),
        },
        Case {
            api: ApiKey::CreateTopics,
            name: "validate-only-no-brokers",
            body: |_| Some(create_topic("sweep-topic", true)),
        },
        Case {
            api: ApiKey::DeleteTopics,
            name: "unknown-topic",
            body: |version| {
                use delete_topics_request as q;
                let mut r = q::DeleteTopicsRequest {
                    timeout_ms: 5000,
                    ..Default::default()
                };
                if version >= 6 {
                    r.topics = List::from([q::DeleteTopicState {
                        name: Some(s(NO_SUCH_TOPIC)),
                        ..Default::default()
                    }]);
                } else {
                    r.topic_names = vec![s(NO_SUCH_TOPIC)];
                }
                Some(RequestBody::DeleteTopics(r))
            },
        },
        Case {
            api: ApiKey::CreatePartitions,
            name: "unknown-topic",
            body: |_| {
                use create_partitions_request as q;
                Some(RequestBody::CreatePartitions(q::CreatePartitionsRequest {
                    topics: List::from([q::CreatePartitionsTopic {
                        name: s(NO_SUCH_TOPIC),
                        count: 2,
                        assignments: None,
                        ..Default::default()
                    }]),
                    timeout_ms: 5000,
                    validate_only: true,
                    ..Default::default()
                }))
            },
        },
        Case {
            api: ApiKey::ElectLeaders,
            name: "unknown-partition",
            body: |_| {
                use elect_leaders_request as q;
                Some(RequestBody::ElectLeaders(q::ElectLeadersRequest {
                    election_type: 0,
                    topic_partitions: Some(List::from([q::TopicPartitions {
                        topic: s(NO_SUCH_TOPIC),
                        partitions: vec![0],
                        ..Default::default()
                    }])),
                    timeout_ms: 5000,
                    ..Default::default()
                }))
            },
        },
        Case {
            api: ApiKey::AlterPartitionReassignments,
            name: "unknown-topic",
            body: |_| {
                use alter_partition_reassignments_request as q;
                Some(RequestBody::AlterPartitionReassignments(
                    q::AlterPartitionReassignmentsRequest {
                        timeout_ms: 5000,
                        topics: List::from([q::ReassignableTopic {
                            name: s(NO_SUCH_TOPIC),
                            partitions: List::from([q::ReassignablePartition {
                                partition_index: 0,
                                replicas: Some(vec![NO_SUCH_NODE]),
                                ..Default::default()
                            }]),
                            ..Default::default()
                        }]),
                        ..Default::default()
                    },
                ))
            },
        },
        Case {
            api: ApiKey::ListPartitionReassignments,
            name: "unknown-topic",
            body: |_| {
                use list_partition_reassignments_request as q;
                Some(RequestBody::ListPartitionReassignments(
                    q::ListPartitionReassignmentsRequest {
                        timeout_ms: 5000,
                        topics: Some(List::from([q::ListPartitionReassignmentsTopics {
                            name: s(NO_SUCH_TOPIC),
                            partition_indexes: vec![0],
                            ..Default::default()
                        }])),
                        ..Default::default()
                    },
                ))
            },
        },
        Case {
            api: ApiKey::DescribeConfigs,
            name: "unknown-topic",
            body: |_| {
                use describe_configs_request as q;
                Some(RequestBody::DescribeConfigs(q::DescribeConfigsRequest {
                    resources: List::from([q::DescribeConfigsResource {
                        resource_type: 2,
                        resource_name: s(NO_SUCH_TOPIC),
                        configuration_keys: None,
                        ..Default::default()
                    }]),
                    include_synonyms: true,
                    ..Default::default()
                }))
            },
        },
        Case {
            api: ApiKey::AlterConfigs,
            name: "unknown-topic",
            body: |_| {
                use alter_configs_request as q;
                Some(RequestBody::AlterConfigs(q::AlterConfigsRequest {
                    resources: List::from([q::AlterConfigsResource {
                        resource_type: 2,
                        resource_name: s(NO_SUCH_TOPIC),
                        configs: List::from([q::AlterableConfig {
                            name: s("retention.ms"),
                            value: Some(s("1000")),
                            ..Default::default()
                        }]),
                        ..Default::default()
                    }]),
                    validate_only: true,
                    ..Default::default()
                }))
            },
        },
        Case {
            api: ApiKey::IncrementalAlterConfigs,
            name: "unknown-topic",
            body: |_| {
                use incremental_alter_configs_request as q;
                Some(RequestBody::IncrementalAlterConfigs(
                    q::IncrementalAlterConfigsRequest {
                        resources: List::from([q::AlterConfigsResource {
                            resource_type: 2,
                            resource_name: s(NO_SUCH_TOPIC),
                            configs: List::from([q::AlterableConfig {
                                name: s("retention.ms"),
                                config_operation: 0,
                                value: Some(s("1000")),
                                ..Default::default()
                            }]),
                            ..Default::default()
                        }]),
                        validate_only: true,
                        ..Default::default()
                    },
                ))
            },
        },
        Case {
            api: ApiKey::AlterPartition,
            name: "empty",
            body: |v| Some(alter_partition(v, false)),
        },
        Case {
            api: ApiKey::AlterPartition,
            name: "unregistered",
            body: |v| Some(alter_partition(v, true)),
        },
        Case {
            api: ApiKey::AllocateProducerIds,
            name: "unregistered",
            body: |_| {
                Some(RequestBody::AllocateProducerIds(
                    allocate_producer_ids_request::AllocateProducerIdsRequest {
                        broker_id: NO_SUCH_NODE,
                        broker_epoch: 0,
                        ..Default::default()
                    },
                ))
            },
        },
        Case {
            api: ApiKey::AssignReplicasToDirs,
            name: "unregistered",
            body: |_| {
                use assign_replicas_to_dirs_request as q;
                Some(RequestBody::AssignReplicasToDirs(
                    q::AssignReplicasToDirsRequest {
                        broker_id: NO_SUCH_NODE,
                        broker_epoch: 0,
                        directories: List::from([q::DirectoryData {
                            id: NO_SUCH_DIRECTORY,
                            topics: List::from([q::TopicData {
                                topic_id: METADATA_TOPIC_ID,
                                partitions: List::from([q::PartitionData {
                                    partition_index: 0,
                                    ..Default::default()
                                }]),
                                ..Default::default()
                            }]),
                            ..Default::default()
                        }]),
                        ..Default::default()
                    },
                ))
            },
        },
        Case {
            api: ApiKey::UnregisterController,
            name: "id-1000",
            body: |_| {
                Some(RequestBody::UnregisterController(
                    unregister_controller_request::UnregisterControllerRequest {
                        controller_id: NO_SUCH_NODE,
                        ..Default::default()
                    },
                ))
            },
        },
    ]
    .into_iter()
    .chain(access_control_cases())
    .collect()
}

/// A user no swept quorum has a SCRAM credential for.
const NO_SUCH_USER: &str = "sweep-no-such-user";

/// The access-control and SASL APIs a Kafka 4.4 controller advertises
/// (DescribeClientQuotas is for brokers only). None can change the quorum:
/// the sweep connects over PLAINTEXT, where SASL requests are out of place
/// and delegation token requests are refused; the ACL creation names a
/// principal without a type (refused even with an authorizer), the
/// deletion a topic no quorum has; the quota change only validates; the
/// SCRAM deletion names a user without credentials.
fn access_control_cases() -> Vec<Case> {
    vec![
        Case {
            api: ApiKey::SaslHandshake,
            name: "plaintext",
            body: |_| {
                Some(RequestBody::SaslHandshake(
                    sasl_handshake_request::SaslHandshakeRequest {
                        mechanism: s("PLAIN"),
                    },
                ))
            },
        },
        Case {
            api: ApiKey::DescribeAcls,
            name: "any",
            body: |_| Some(describe_acls()),
        },
        Case {
            api: ApiKey::CreateAcls,
            name: "bad-principal",
            body: |_| {
                use create_acls_request as q;
                Some(RequestBody::CreateAcls(q::CreateAclsRequest {
                    creations: List::from([q::AclCreation {
                        resource_type: 2,
                        resource_name: s(NO_SUCH_TOPIC),
                        resource_pattern_type: 3,
                        principal: s("sweep-no-colon"),
                        host: s("*"),
                        operation: 3,
                        permission_type: 3,
                        ..Default::default()
                    }]),
                    ..Default::default()
                }))
            },
        },
        Case {
            api: ApiKey::DeleteAcls,
            name: "unknown-topic",
            body: |_| {
                use delete_acls_request as q;
                Some(RequestBody::DeleteAcls(q::DeleteAclsRequest {
                    filters: List::from([q::DeleteAclsFilter {
                        resource_type_filter: 2,
                        resource_name_filter: Some(s(NO_SUCH_TOPIC)),
                        pattern_type_filter: 3,
                        principal_filter: None,
                        host_filter: None,
                        operation: 1,
                        permission_type: 1,
                        ..Default::default()
                    }]),
                    ..Default::default()
                }))
            },
        },
        Case {
            api: ApiKey::SaslAuthenticate,
            name: "plaintext",
            body: |_| {
                Some(RequestBody::SaslAuthenticate(
                    sasl_authenticate_request::SaslAuthenticateRequest {
                        auth_bytes: Bytes::from_static(b"\0sweep\0sweep-secret"),
                        ..Default::default()
                    },
                ))
            },
        },
        Case {
            api: ApiKey::CreateDelegationToken,
            name: "plaintext",
            body: |_| {
                use create_delegation_token_request as q;
                Some(RequestBody::CreateDelegationToken(
                    // The owner fields default to "" (the requester), not
                    // null: null cannot be written before v3.
                    q::CreateDelegationTokenRequest {
                        max_lifetime_ms: -1,
                        ..Default::default()
                    },
                ))
            },
        },
        Case {
            api: ApiKey::RenewDelegationToken,
            name: "plaintext",
            body: |_| {
                Some(RequestBody::RenewDelegationToken(
                    renew_delegation_token_request::RenewDelegationTokenRequest {
                        hmac: Bytes::from_static(&[0x5a; 64]),
                        renew_period_ms: 60_000,
                        ..Default::default()
                    },
                ))
            },
        },
        Case {
            api: ApiKey::ExpireDelegationToken,
            name: "plaintext",
            body: |_| {
                Some(RequestBody::ExpireDelegationToken(
                    expire_delegation_token_request::ExpireDelegationTokenRequest {
                        hmac: Bytes::from_static(&[0x5a; 64]),
                        expiry_time_period_ms: -1,
                        ..Default::default()
                    },
                ))
            },
        },
        Case {
            api: ApiKey::DescribeDelegationToken,
            name: "all",
            body: |_| {
                Some(RequestBody::DescribeDelegationToken(
                    describe_delegation_token_request::DescribeDelegationTokenRequest {
                        owners: None,
                        ..Default::default()
                    },
                ))
            },
        },
        Case {
            api: ApiKey::AlterClientQuotas,
            name: "validate-only",
            body: |_| {
                use alter_client_quotas_request as q;
                Some(RequestBody::AlterClientQuotas(
                    q::AlterClientQuotasRequest {
                        entries: List::from([q::EntryData {
                            entity: List::from([q::EntityData {
                                entity_type: s("client-id"),
                                entity_name: Some(s("sweep-client")),
                                ..Default::default()
                            }]),
                            ops: List::from([q::OpData {
                                key: s("producer_byte_rate"),
                                value: 1024.0,
                                remove: false,
                                ..Default::default()
                            }]),
                            ..Default::default()
                        }]),
                        validate_only: true,
                        ..Default::default()
                    },
                ))
            },
        },
        Case {
            api: ApiKey::DescribeUserScramCredentials,
            name: "unknown-user",
            body: |_| {
                use describe_user_scram_credentials_request as q;
                Some(RequestBody::DescribeUserScramCredentials(
                    q::DescribeUserScramCredentialsRequest {
                        users: Some(List::from([q::UserName {
                            name: s(NO_SUCH_USER),
                            ..Default::default()
                        }])),
                        ..Default::default()
                    },
                ))
            },
        },
        Case {
            api: ApiKey::AlterUserScramCredentials,
            name: "delete-unknown",
            body: |_| {
                use alter_user_scram_credentials_request as q;
                Some(RequestBody::AlterUserScramCredentials(
                    q::AlterUserScramCredentialsRequest {
                        deletions: List::from([q::ScramCredentialDeletion {
                            name: s(NO_SUCH_USER),
                            mechanism: 1,
                            ..Default::default()
                        }]),
                        ..Default::default()
                    },
                ))
            },
        },
    ]
}

/// A DescribeAcls matching every ACL.
fn describe_acls() -> RequestBody {
    RequestBody::DescribeAcls(describe_acls_request::DescribeAclsRequest {
        resource_type_filter: 1,
        resource_name_filter: None,
        pattern_type_filter: 1,
        principal_filter: None,
        host_filter: None,
        operation: 1,
        permission_type: 1,
        ..Default::default()
    })
}

/// A CreateTopics of one topic with one partition and one replica: on a
/// quorum without brokers it creates nothing (the name, or the placement,
/// is refused).
fn create_topic(name: &str, validate_only: bool) -> RequestBody {
    use create_topics_request as q;
    RequestBody::CreateTopics(q::CreateTopicsRequest {
        topics: List::from([q::CreatableTopic {
            name: s(name),
            num_partitions: 1,
            replication_factor: 1,
            ..Default::default()
        }]),
        timeout_ms: 5000,
        validate_only,
        ..Default::default()
    })
}

/// An AlterPartition from a broker no quorum has, naming one partition of
/// a topic id no quorum has (or nothing).
fn alter_partition(version: i16, with_partition: bool) -> RequestBody {
    use alter_partition_request as q;
    let mut r = q::AlterPartitionRequest {
        broker_id: NO_SUCH_NODE,
        broker_epoch: 0,
        ..Default::default()
    };
    if with_partition {
        r.topics = List::from([q::TopicData {
            topic_id: NO_SUCH_DIRECTORY,
            partitions: List::from([{
                let mut p = q::PartitionData {
                    partition_index: 0,
                    leader_epoch: 0,
                    partition_epoch: 0,
                    ..Default::default()
                };
                // The ISR is a list of ids until v3, of ids and epochs since.
                if version >= 3 {
                    p.new_isr_with_epochs = List::from([q::BrokerState {
                        broker_id: NO_SUCH_NODE,
                        broker_epoch: 0,
                        ..Default::default()
                    }]);
                } else {
                    p.new_isr = vec![NO_SUCH_NODE];
                }
                p
            }]),
            ..Default::default()
        }]);
    }
    RequestBody::AlterPartition(r)
}

fn unregister_broker() -> RequestBody {
    RequestBody::UnregisterBroker(unregister_broker_request::UnregisterBrokerRequest {
        broker_id: NO_SUCH_NODE,
        ..Default::default()
    })
}

// ---------------------------------------------------------------------------
// Transport: one request per connection, Kafka framing.

/// Sends one request on a fresh connection and reads the answer; an error
/// says why there is no well-formed answer.
pub fn exchange(
    addr: &str,
    api: ApiKey,
    version: i16,
    correlation_id: i32,
    body: &RequestBody,
) -> Result<ResponseBody, String> {
    let header = RequestHeader {
        request_api_key: api.id(),
        request_api_version: version,
        correlation_id,
        client_id: Some(s("kraft-sweep")),
        ..Default::default()
    };
    let mut frame = Vec::new();
    encode_request_frame(&mut frame, &header, body)
        .map_err(|e| format!("the sweep cannot encode its request: {e}"))?;
    let mut stream = TcpStream::connect(addr).map_err(|e| format!("connect: {e}"))?;
    stream
        .set_read_timeout(Some(REQUEST_TIMEOUT))
        .and_then(|()| stream.set_write_timeout(Some(REQUEST_TIMEOUT)))
        .map_err(|e| format!("socket: {e}"))?;
    stream
        .write_all(&frame)
        .map_err(|e| format!("write: {e}"))?;
    let mut size = [0u8; 4];
    read_exact(&mut stream, &mut size, "the response size")?;
    let size = i32::from_be_bytes(size);
    if !(4..=64 << 20).contains(&size) {
        return Err(format!("implausible response size {size}"));
    }
    let mut response = vec![0u8; size as usize];
    read_exact(&mut stream, &mut response, "the response")?;
    let (correlation, body) = decode_response(Bytes::from(response), api, version)
        .map_err(|e| format!("the response does not decode at v{version}: {e}"))?;
    if correlation != correlation_id {
        return Err(format!(
            "correlation id {correlation}, expected {correlation_id}"
        ));
    }
    Ok(body)
}

fn read_exact(stream: &mut TcpStream, buf: &mut [u8], what: &str) -> Result<(), String> {
    stream.read_exact(buf).map_err(|e| match e.kind() {
        std::io::ErrorKind::UnexpectedEof => format!("connection closed before {what}"),
        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut => {
            format!("no answer within {REQUEST_TIMEOUT:?}")
        }
        _ => format!("reading {what}: {e}"),
    })
}

/// The top-level and partition-level error codes of a response.
pub fn codes(body: &ResponseBody) -> Answer {
    fn of<T: Clone>(topics: impl Iterator<Item = T>, parts: impl Fn(&T) -> Vec<i16>) -> Vec<i16> {
        topics.flat_map(|t| parts(&t)).collect()
    }
    let (top, partitions) = match body {
        ResponseBody::Fetch(r) => (
            r.error_code,
            of(r.responses.iter(), |t| {
                t.partitions.iter().map(|p| p.error_code).collect()
            }),
        ),
        ResponseBody::ApiVersions(r) => (r.error_code, Vec::new()),
        ResponseBody::Vote(r) => (
            r.error_code,
            of(r.topics.iter(), |t| {
                t.partitions.iter().map(|p| p.error_code).collect()
            }),
        ),
        ResponseBody::BeginQuorumEpoch(r) => (
            r.error_code,
            of(r.topics.iter(), |t| {
                t.partitions.iter().map(|p| p.error_code).collect()
            }),
        ),
        ResponseBody::EndQuorumEpoch(r) => (
            r.error_code,
            of(r.topics.iter(), |t| {
                t.partitions.iter().map(|p| p.error_code).collect()
            }),
        ),
        ResponseBody::DescribeQuorum(r) => (
            r.error_code,
            of(r.topics.iter(), |t| {
                t.partitions.iter().map(|p| p.error_code).collect()
            }),
        ),
        ResponseBody::UpdateFeatures(r) => (
            r.error_code,
            r.results.iter().map(|p| p.error_code).collect(),
        ),
        ResponseBody::FetchSnapshot(r) => (
            r.error_code,
            of(r.topics.iter(), |t| {
                t.partitions.iter().map(|p| p.error_code).collect()
            }),
        ),
        ResponseBody::DescribeCluster(r) => (r.error_code, Vec::new()),
        ResponseBody::ControllerRegistration(r) => (r.error_code, Vec::new()),
        ResponseBody::AddRaftVoter(r) => (r.error_code, Vec::new()),
        ResponseBody::RemoveRaftVoter(r) => (r.error_code, Vec::new()),
        ResponseBody::UpdateRaftVoter(r) => (r.error_code, Vec::new()),
        ResponseBody::UnregisterController(r) => (r.error_code, Vec::new()),
        ResponseBody::BrokerRegistration(r) => (r.error_code, Vec::new()),
        ResponseBody::BrokerHeartbeat(r) => (r.error_code, Vec::new()),
        ResponseBody::UnregisterBroker(r) => (r.error_code, Vec::new()),
        ResponseBody::CreateTopics(r) => (0, r.topics.iter().map(|t| t.error_code).collect()),
        ResponseBody::AlterPartition(r) => (
            r.error_code,
            of(r.topics.iter(), |t| {
                t.partitions.iter().map(|p| p.error_code).collect()
            }),
        ),
        ResponseBody::AllocateProducerIds(r) => (r.error_code, Vec::new()),
        ResponseBody::AssignReplicasToDirs(r) => (
            r.error_code,
            of(r.directories.iter(), |d| {
                d.topics
                    .iter()
                    .flat_map(|t| {
                        t.partitions
                            .iter()
                            .map(|p| p.error_code)
                            .collect::<Vec<_>>()
                    })
                    .collect()
            }),
        ),
        ResponseBody::DeleteTopics(r) => (0, r.responses.iter().map(|t| t.error_code).collect()),
        ResponseBody::CreatePartitions(r) => (0, r.results.iter().map(|t| t.error_code).collect()),
        ResponseBody::ElectLeaders(r) => (
            r.error_code,
            of(r.replica_election_results.iter(), |t| {
                t.partition_result.iter().map(|p| p.error_code).collect()
            }),
        ),
        ResponseBody::IncrementalAlterConfigs(r) => {
            (0, r.responses.iter().map(|t| t.error_code).collect())
        }
        ResponseBody::DescribeConfigs(r) => (0, r.results.iter().map(|t| t.error_code).collect()),
        ResponseBody::AlterConfigs(r) => (0, r.responses.iter().map(|t| t.error_code).collect()),
        ResponseBody::AlterPartitionReassignments(r) => (
            r.error_code,
            of(r.responses.iter(), |t| {
                t.partitions.iter().map(|p| p.error_code).collect()
            }),
        ),
        ResponseBody::ListPartitionReassignments(r) => (r.error_code, Vec::new()),
        ResponseBody::SaslHandshake(r) => (r.error_code, Vec::new()),
        ResponseBody::SaslAuthenticate(r) => (r.error_code, Vec::new()),
        ResponseBody::DescribeAcls(r) => (r.error_code, Vec::new()),
        ResponseBody::CreateAcls(r) => (0, r.results.iter().map(|c| c.error_code).collect()),
        // Per filter: the filter's code, then those of the ACLs it matched.
        ResponseBody::DeleteAcls(r) => (
            0,
            of(r.filter_results.iter(), |f| {
                std::iter::once(f.error_code)
                    .chain(f.matching_acls.iter().map(|a| a.error_code))
                    .collect()
            }),
        ),
        ResponseBody::CreateDelegationToken(r) => (r.error_code, Vec::new()),
        ResponseBody::RenewDelegationToken(r) => (r.error_code, Vec::new()),
        ResponseBody::ExpireDelegationToken(r) => (r.error_code, Vec::new()),
        ResponseBody::DescribeDelegationToken(r) => (r.error_code, Vec::new()),
        ResponseBody::DescribeClientQuotas(r) => (r.error_code, Vec::new()),
        ResponseBody::AlterClientQuotas(r) => (0, r.entries.iter().map(|e| e.error_code).collect()),
        ResponseBody::DescribeUserScramCredentials(r) => (
            r.error_code,
            r.results.iter().map(|u| u.error_code).collect(),
        ),
        ResponseBody::AlterUserScramCredentials(r) => {
            (0, r.results.iter().map(|u| u.error_code).collect())
        }
        // The envelope's code, then the forwarded answer's (the sweep only
        // forwards UnregisterBroker v0).
        ResponseBody::Envelope(r) => (
            r.error_code,
            r.response_data
                .clone()
                .and_then(|d| decode_response(d, ApiKey::UnregisterBroker, 0).ok())
                .map(|(_, inner)| match inner {
                    ResponseBody::UnregisterBroker(u) => vec![u.error_code],
                    _ => Vec::new(),
                })
                .unwrap_or_default(),
        ),
    };
    Answer::Codes { top, partitions }
}

/// The API version ranges `addr` advertises (ApiVersions v3).
pub fn advertised(addr: &str) -> Result<BTreeMap<i16, (i16, i16)>, String> {
    let request = RequestBody::ApiVersions(api_versions_request::ApiVersionsRequest {
        client_software_name: s("kraft-sweep"),
        client_software_version: s("1.0"),
        ..Default::default()
    });
    match exchange(addr, ApiKey::ApiVersions, 3, 1, &request)? {
        ResponseBody::ApiVersions(r) if r.error_code == 0 => Ok(r
            .api_keys
            .iter()
            .map(|k| (k.api_key, (k.min_version, k.max_version)))
            .collect()),
        ResponseBody::ApiVersions(r) => Err(format!("ApiVersions error {}", r.error_code)),
        other => Err(format!(
            "not an ApiVersions response: {:?}",
            other.api_key()
        )),
    }
}

/// The leader id `addr` reports in DescribeQuorum v2, once one is known.
pub fn leader_id(addr: &str) -> Option<i32> {
    match exchange(addr, ApiKey::DescribeQuorum, 2, 1, &describe_quorum(0)).ok()? {
        ResponseBody::DescribeQuorum(r) => {
            let t = r.topics.first()?;
            let p = t.partitions.first()?;
            (p.leader_id >= 0).then_some(p.leader_id)
        }
        _ => None,
    }
}

/// Waits (bounded) until one of `nodes` (id, address) names a leader that
/// answers DescribeQuorum without error; returns (leader, a follower).
pub fn leader_and_follower(nodes: &[(i32, String)], limit: Duration) -> (Target, Target) {
    wait_for(&format!("a leader among {nodes:?}"), limit, || {
        nodes.iter().find_map(|(_, addr)| {
            let leader = leader_id(addr)?;
            let l = nodes.iter().find(|(n, _)| *n == leader).map(|(_, a)| a)?;
            let (_, f) = nodes.iter().find(|(n, _)| *n != leader)?;
            (leader_id(l) == Some(leader)).then(|| {
                (
                    Target {
                        role: "leader",
                        addr: l.clone(),
                    },
                    Target {
                        role: "follower",
                        addr: f.clone(),
                    },
                )
            })
        })
    })
}

/// Sweeps every case of every API `targets` advertise (the leader's
/// ApiVersions, checked equal on every target), at every advertised version.
/// APIs this implementation has no schema for are listed, not sent.
pub fn run(name: &str, targets: &[Target]) -> Sweep {
    let mut advertised_by = Vec::new();
    for t in targets {
        let a = advertised(&t.addr)
            .unwrap_or_else(|e| panic!("{name}: ApiVersions from the {} failed: {e}", t.role));
        advertised_by.push(a);
    }
    let advertised = advertised_by[0].clone();
    for (t, a) in targets.iter().zip(&advertised_by) {
        assert_eq!(
            a, &advertised,
            "{name}: the {} advertises other API versions than the {}",
            t.role, targets[0].role
        );
    }
    let cases = cases();
    let mut answers = BTreeMap::new();
    let mut correlation = 100;
    for (&key, &(lo, hi)) in &advertised {
        let Some(api) = ApiKey::from_i16(key) else {
            continue;
        };
        let mine: Vec<&Case> = cases.iter().filter(|c| c.api == api).collect();
        assert!(
            !mine.is_empty(),
            "{name} advertises {} but the sweep has no case for it",
            api_name(key)
        );
        for version in lo..=hi {
            for case in &mine {
                let Some(body) = (case.body)(version) else {
                    continue;
                };
                for t in targets {
                    correlation += 1;
                    let answer = if api.is_valid_version(version) {
                        match exchange(&t.addr, api, version, correlation, &body) {
                            Ok(r) => codes(&r),
                            Err(why) => Answer::Failed(why),
                        }
                    } else {
                        Answer::Failed(format!("v{version} is beyond the sweep's schema"))
                    };
                    answers.insert((key, case.name, version, t.role), answer);
                }
            }
        }
    }
    Sweep {
        name: name.to_owned(),
        advertised,
        answers,
    }
}

impl Sweep {
    /// A compact table: one line per (api, case, version), one column per role.
    pub fn table(&self) -> String {
        let mut out = format!(
            "protocol sweep of {}: top-level error [partition errors] per role\n",
            self.name
        );
        let mut rows: BTreeMap<(i16, &str, i16), Vec<String>> = BTreeMap::new();
        for (&(api, case, version, role), answer) in &self.answers {
            rows.entry((api, case, version))
                .or_default()
                .push(format!("{role}: {answer}"));
        }
        for ((api, case, version), cells) in rows {
            let _ = writeln!(
                out,
                "  {:<28} {:<15} v{:<3} {}",
                api_name(api),
                case,
                version,
                cells.join("  ")
            );
        }
        let unswept: Vec<String> = self
            .advertised
            .iter()
            .filter(|(k, _)| ApiKey::from_i16(**k).is_none())
            .map(|(k, (lo, hi))| format!("{} {lo}-{hi}", api_name(*k)))
            .collect();
        if !unswept.is_empty() {
            let _ = writeln!(
                out,
                "  advertised, not swept (no schema here): {}",
                unswept.join(", ")
            );
        }
        out
    }

    /// Every (api, case, version, role) without a well-formed answer.
    pub fn failures(&self) -> Vec<String> {
        self.answers
            .iter()
            .filter_map(|(&(api, case, version, role), a)| match a {
                Answer::Failed(why) => Some(format!(
                    "{} v{version} ({case}) to the {role}: {why}",
                    api_name(api)
                )),
                Answer::Codes { .. } => None,
            })
            .collect()
    }
}

/// Where two sweeps' advertised ranges differ, one line each.
pub fn range_differences(a: &Sweep, b: &Sweep) -> Vec<String> {
    let keys: std::collections::BTreeSet<i16> = a
        .advertised
        .keys()
        .chain(b.advertised.keys())
        .copied()
        .collect();
    keys.into_iter()
        .filter_map(|k| {
            let (x, y) = (a.advertised.get(&k), b.advertised.get(&k));
            (x != y).then(|| {
                let show = |r: Option<&(i16, i16)>| match r {
                    Some((lo, hi)) => format!("{lo}-{hi}"),
                    None => "-".to_owned(),
                };
                format!(
                    "{}: {} {}, {} {}",
                    api_name(k),
                    a.name,
                    show(x),
                    b.name,
                    show(y)
                )
            })
        })
        .collect()
}

/// Every (api, case, version, role) both sweeps sent where the answers'
/// error codes differ (or one side has no well-formed answer).
pub fn code_differences(a: &Sweep, b: &Sweep) -> Vec<(Key, Answer, Answer)> {
    a.answers
        .iter()
        .filter_map(|(k, x)| {
            let y = b.answers.get(k)?;
            (x != y).then(|| (*k, x.clone(), y.clone()))
        })
        .collect()
}

/// Both sweeps side by side for the (api, case, version, role) both sent.
pub fn side_by_side(a: &Sweep, b: &Sweep) -> String {
    let mut out = format!(
        "protocol sweep, {} | {}: top-level error [partition errors]\n",
        a.name, b.name
    );
    for (k @ &(api, case, version, role), x) in &a.answers {
        let Some(y) = b.answers.get(k) else {
            continue;
        };
        let mark = if x == y { "" } else { "   <-- differs" };
        let _ = writeln!(
            out,
            "  {:<28} {:<15} v{:<3} {:<8} {:<22} | {y}{mark}",
            api_name(api),
            case,
            version,
            role,
            x.to_string()
        );
    }
    out
}

/// A key rendered for messages.
pub fn key_text(k: &Key) -> String {
    let (api, case, version, role) = k;
    format!("{} v{version} ({case}) to the {role}", api_name(*api))
}
