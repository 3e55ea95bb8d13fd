//! Unit tests of the handlers. Expected codes and messages come from the
//! Kafka 4.4's sources (`ControllerApis`, `ClusterControlManager`, `QuorumController`), KIP-1141 and KIP-1312
//! (`ControllerApis`, `QuorumController`, `ClusterControlManager`,
//! `FeatureControlManager`, `QuorumFeatures`, `AuthHelper`); the
//! ApiVersions feature lists were produced by Kafka 4.4.0's own classes
//! (tests/data/java/ApiVersionsFeatures.java).

#![allow(clippy::unwrap_used)]

use std::sync::Mutex as StdMutex;

use bytes::Bytes;
use kraft_protocol::messages::api_versions_request::ApiVersionsRequest;
use kraft_protocol::messages::api_versions_response::ApiVersionsResponse;
use kraft_protocol::messages::controller_registration_request::{
    ControllerRegistrationRequest, Feature, Listener,
};
use kraft_protocol::messages::describe_cluster_request::DescribeClusterRequest;
use kraft_protocol::messages::describe_cluster_response::DescribeClusterResponse;
use kraft_protocol::messages::register_controller_record::{
    ControllerEndpoint, ControllerFeature, RegisterControllerRecord,
};
use kraft_protocol::messages::unregister_controller_record::UnregisterControllerRecord;
use kraft_protocol::messages::unregister_controller_request::UnregisterControllerRequest;
use kraft_protocol::messages::update_features_request::{FeatureUpdateKey, UpdateFeaturesRequest};
use kraft_protocol::messages::update_features_response::UpdateFeaturesResponse;
use kraft_protocol::{Decodable, Message, MetadataRecordBody, Uuid};

use super::cluster::valid_software_token;
use super::*;
use crate::config::SecurityProtocol;
use crate::image::{MetadataImage, MetadataRecord};

/// A test double of the raft layer: an in-memory log that commits at once.
struct FakeQuorum {
    facts: StdMutex<QuorumFacts>,
    image: SharedImage,
    log: StdMutex<Vec<MetadataRecord>>,
    lose_leadership_on_append: StdMutex<bool>,
    kraft_upgrade: StdMutex<Result<(), ApiError>>,
}

impl FakeQuorum {
    fn new(image: SharedImage) -> Arc<FakeQuorum> {
        Arc::new(FakeQuorum {
            facts: StdMutex::new(QuorumFacts {
                leader_id: Some(1),
                epoch: 5,
                is_active_controller: true,
                kraft_version: 1,
                ..Default::default()
            }),
            image,
            log: StdMutex::new(Vec::new()),
            lose_leadership_on_append: StdMutex::new(false),
            kraft_upgrade: StdMutex::new(Ok(())),
        })
    }

    fn set_inactive(&self, leader: Option<i32>) {
        let mut f = self.facts.lock().unwrap();
        f.is_active_controller = false;
        f.leader_id = leader;
    }

    fn log(&self) -> Vec<MetadataRecord> {
        self.log.lock().unwrap().clone()
    }

    /// Makes `ids` the latest voter set.
    fn set_voters(&self, ids: &[i32]) {
        self.facts.lock().unwrap().voters = ids
            .iter()
            .map(|id| QuorumVoter {
                key: ReplicaKey::of(*id, Uuid::from_u64_pair(7, *id as u64)),
                endpoints: Vec::new(),
            })
            .collect();
    }
}

impl FakeQuorum {
    /// Commits and applies `records` at once (the fake has no pending state).
    fn commit(&self, epoch: i32, records: Vec<MetadataRecord>) -> Result<i64, AppendError> {
        let facts = self.facts();
        if !facts.is_active_controller || facts.epoch != epoch {
            return Err(AppendError::NotController {
                leader_id: facts.leader_id,
            });
        }
        if *self.lose_leadership_on_append.lock().unwrap() {
            self.set_inactive(Some(2));
            return Err(AppendError::NotController { leader_id: Some(2) });
        }
        let mut log = self.log.lock().unwrap();
        for r in records {
            let offset = log.len() as i64;
            self.image
                .apply_committed([(offset, Bytes::from(r.encode().expect("encodes")))])
                .unwrap();
            log.push(r);
        }
        Ok(log.len() as i64 - 1)
    }
}

#[async_trait]
impl RaftQuorum for FakeQuorum {
    fn facts(&self) -> QuorumFacts {
        self.facts.lock().unwrap().clone()
    }

    async fn append(
        &self,
        epoch: i32,
        base_offset: Option<i64>,
        records: Vec<MetadataRecord>,
    ) -> Result<PendingCommit, AppendError> {
        let end = self.log.lock().unwrap().len() as i64;
        if base_offset.is_some_and(|b| b != end) {
            return Err(AppendError::OffsetMismatch { end_offset: end });
        }
        let count = records.len() as i64;
        let last = self.commit(epoch, records)?;
        Ok(PendingCommit {
            base_offset: last - count + 1,
            last_offset: last,
            applied: Box::pin(async move { Ok(last) }),
        })
    }

    async fn wait_applied(&self, _offset: i64) -> Result<(), AppendError> {
        Ok(())
    }

    async fn upgrade_kraft_version(
        &self,
        _epoch: i32,
        version: i16,
        validate_only: bool,
    ) -> Result<(), ApiError> {
        let r = self.kraft_upgrade.lock().unwrap().clone();
        if r.is_ok() && !validate_only {
            self.facts.lock().unwrap().kraft_version = version;
        }
        r
    }
}

fn registration(id: i32, mv_max: i16, listener: &str) -> MetadataRecord {
    MetadataRecord::new(
        RegisterControllerRecord {
            controller_id: id,
            incarnation_id: Uuid::from_u64_pair(7, id as u64),
            end_points: vec![ControllerEndpoint {
                name: listener.into(),
                host: format!("ctl-{id}").into(),
                port: 9093,
                security_protocol: 0,
                ..Default::default()
            }]
            .into(),
            features: vec![
                ControllerFeature {
                    name: "metadata.version".into(),
                    min_supported_version: 7,
                    max_supported_version: mv_max,
                    ..Default::default()
                },
                ControllerFeature {
                    name: "kraft.version".into(),
                    min_supported_version: 0,
                    max_supported_version: 1,
                    ..Default::default()
                },
            ]
            .into(),
            ..Default::default()
        },
        0,
    )
}

struct Setup {
    controller: Controller,
    quorum: Arc<FakeQuorum>,
}

/// Node 1, active, with an image at `mv` and the given registrations.
fn setup(mv: i16, records: &[MetadataRecord]) -> Setup {
    setup_with(mv, records, Vec::new())
}

fn setup_with(mv: i16, records: &[MetadataRecord], static_voters: Vec<i32>) -> Setup {
    let image = SharedImage::new();
    image.update(|i| {
        i.replay(&MetadataRecord::feature_level("metadata.version", mv))
            .unwrap();
        for r in records {
            i.replay(r).unwrap();
        }
    });
    let quorum = FakeQuorum::new(image.clone());
    let controller = Controller::new(
        ControllerSettings {
            node_id: 1,
            cluster_id: "MkU3OEVBNTcwNTJENDM2Qk".to_string(),
            static_voter_ids: static_voters,
            unstable_feature_versions: false,
            unstable_api_versions: false,
            broker_session_timeout: std::time::Duration::from_millis(9000),
            broker_heartbeat_interval: std::time::Duration::from_millis(2000),
            topics: Default::default(),
            authorizer: None,
            delegation_tokens: Default::default(),
            groups: Default::default(),
            static_configs: Default::default(),
            mutation_quota_window: Default::default(),
            performance: Default::default(),
        },
        image,
        quorum.clone(),
    );
    Setup { controller, quorum }
}

fn unregister_req(id: i32) -> UnregisterControllerRequest {
    UnregisterControllerRequest {
        controller_id: id,
        ..Default::default()
    }
}

async fn unregister(s: &Setup, id: i32) -> (i16, Option<String>) {
    let r = s
        .controller
        .unregister_controller(&unregister_req(id))
        .await;
    (r.error_code, r.error_message.map(|m| m.to_string()))
}

// ---- UnregisterController (KIP-1312) ----

#[tokio::test]
async fn unregister_not_controller_comes_first() {
    // Even for its own id, an old metadata.version and an unknown id.
    let s = setup(30, &[]);
    s.quorum.set_inactive(Some(3));
    assert_eq!(
        unregister(&s, 1).await,
        (
            41,
            Some("The active controller appears to be node 3.".to_string())
        )
    );
    s.quorum.set_inactive(None);
    assert_eq!(
        unregister(&s, 9).await,
        (41, Some("No controller appears to be active.".to_string()))
    );
    assert!(s.quorum.log().is_empty());
}

#[tokio::test]
async fn unregister_self_is_invalid_before_version_checks() {
    let s = setup(30, &[]);
    assert_eq!(
        unregister(&s, 1).await,
        (
            42,
            Some("Controller cannot unregister itself while it is active.".to_string())
        )
    );
}

#[tokio::test]
async fn unregister_needs_metadata_version_4_4_iv2() {
    // 4.4-IV1 (32) is one level too old, even for a registered controller.
    let s = setup(32, &[registration(5, 33, "CONTROLLER")]);
    assert_eq!(
        unregister(&s, 5).await,
        (
            35,
            Some(
                "The current MetadataVersion is too old to support controller unregistration."
                    .to_string()
            )
        )
    );
}

#[tokio::test]
async fn unregister_unknown_id() {
    let s = setup(33, &[registration(5, 33, "CONTROLLER")]);
    assert_eq!(
        unregister(&s, 6).await,
        (
            136,
            Some("Controller ID 6 is not currently registered.".to_string())
        )
    );
}

#[tokio::test]
async fn unregister_writes_the_record_and_answers_after_commit() {
    let s = setup(33, &[registration(5, 33, "CONTROLLER")]);
    let r = s.controller.unregister_controller(&unregister_req(5)).await;
    assert_eq!(r.error_code, 0);
    assert_eq!(r.error_message.as_deref(), Some(""));
    assert_eq!(
        s.quorum.log(),
        [MetadataRecord::new(
            UnregisterControllerRecord {
                controller_id: 5,
                ..Default::default()
            },
            0
        )]
    );
    assert!(s.controller.image().read().controller(5).is_none());
    // The success response body (after the header), from UnregisterControllerResponse.json:
    // throttle 0, error 0, ErrorMessage "" (0x01), no tags.
    assert_eq!(r.encode_to_vec(0).unwrap(), [0, 0, 0, 0, 0, 0, 1, 0]);
    // and a second attempt reports the id as not registered
    assert_eq!(unregister(&s, 5).await.0, 136);
}

#[tokio::test]
async fn unregister_error_bytes_match_the_spec_example() {
    let s = setup(33, &[]);
    let r = s.controller.unregister_controller(&unregister_req(5)).await;
    let mut expected = vec![0, 0, 0, 0, 0x00, 0x88, 0x2d];
    expected.extend_from_slice(b"Controller ID 5 is not currently registered.");
    expected.push(0);
    assert_eq!(r.encode_to_vec(0).unwrap(), expected);
}

#[tokio::test]
async fn unregister_fails_when_leadership_is_lost_before_commit() {
    let s = setup(33, &[registration(5, 33, "CONTROLLER")]);
    *s.quorum.lose_leadership_on_append.lock().unwrap() = true;
    assert_eq!(
        unregister(&s, 5).await,
        (
            41,
            Some("The active controller appears to be node 2.".to_string())
        )
    );
    assert!(s.controller.image().read().controller(5).is_some());
}

// ---- ControllerRegistration (KIP-919, `ClusterControlManager.registerController`) ----

fn registration_req(id: i32, protocol: i16) -> ControllerRegistrationRequest {
    ControllerRegistrationRequest {
        controller_id: id,
        incarnation_id: Uuid::from_u64_pair(9, 9),
        listeners: vec![Listener {
            name: "CONTROLLER".into(),
            host: "ctl-4".into(),
            port: 9093,
            security_protocol: protocol,
            ..Default::default()
        }]
        .into(),
        features: vec![Feature {
            name: "metadata.version".into(),
            min_supported_version: 7,
            max_supported_version: 33,
            ..Default::default()
        }]
        .into(),
        ..Default::default()
    }
}

#[tokio::test]
async fn registration_errors_carry_the_default_text() {
    let s = setup(14, &[]);
    s.quorum.set_inactive(Some(2));
    let r = s
        .controller
        .controller_registration(&registration_req(4, 0))
        .await;
    assert_eq!(r.error_code, 41);
    assert_eq!(
        r.error_message.as_deref(),
        Some("This is not the correct controller for this cluster.")
    );

    let s = setup(14, &[]); // 3.6-IV2: before KIP-919
    let r = s
        .controller
        .controller_registration(&registration_req(4, 0))
        .await;
    assert_eq!(r.error_code, 35);
    assert_eq!(
        r.error_message.as_deref(),
        Some("The version of API is not supported.")
    );

    let s = setup(15, &[]);
    let r = s
        .controller
        .controller_registration(&registration_req(4, 9))
        .await;
    assert_eq!(r.error_code, -1);
    assert!(s.quorum.log().is_empty());
}

#[tokio::test]
async fn registration_writes_register_controller_record() {
    let s = setup(15, &[]);
    let r = s
        .controller
        .controller_registration(&registration_req(4, 0))
        .await;
    assert_eq!((r.error_code, r.error_message.as_deref()), (0, Some("")));
    let log = s.quorum.log();
    let MetadataRecordBody::RegisterController(rec) = &log[0].body else {
        panic!("expected a RegisterControllerRecord, got {log:?}")
    };
    assert_eq!(rec.controller_id, 4);
    assert_eq!(rec.incarnation_id, Uuid::from_u64_pair(9, 9));
    assert_eq!(rec.end_points.get(0).expect("element").host, "ctl-4");
    assert_eq!(
        rec.features.get(0).expect("element").max_supported_version,
        33
    );
    assert!(!rec.zk_migration_ready);
    assert_eq!(
        s.controller
            .image()
            .read()
            .controller(4)
            .map(|c| c.supported_range("metadata.version")),
        Some(VersionRange::new(7, 33))
    );
}

#[test]
fn registration_request_advertises_local_features() {
    let s = setup(33, &[]);
    let req = s.controller.registration_request(
        Uuid::from_u64_pair(1, 2),
        &[(
            "CONTROLLER".to_string(),
            "h".to_string(),
            9093,
            SecurityProtocol::Plaintext,
        )],
    );
    assert_eq!(req.controller_id, 1);
    assert_eq!(
        req.features.get(0).expect("element").name,
        "metadata.version"
    );
    assert_eq!(
        (
            req.features.get(0).expect("element").min_supported_version,
            req.features.get(0).expect("element").max_supported_version
        ),
        (7, 33)
    );
    assert_eq!(req.features.get(1).expect("element").name, "kraft.version");
    assert_eq!(req.listeners.get(0).expect("element").security_protocol, 0);
}

// ---- DescribeCluster (KIP-919, `ControllerApis.handleDescribeCluster`) ----

fn describe(
    s: &Setup,
    version: i16,
    endpoint_type: i8,
    include_ops: bool,
) -> DescribeClusterResponse {
    s.controller.describe_cluster(
        version,
        "CONTROLLER",
        &DescribeClusterRequest {
            endpoint_type,
            include_cluster_authorized_operations: include_ops,
            ..Default::default()
        },
    )
}

#[test]
fn describe_cluster_version_gates() {
    let s = setup(15, &[]);
    s.controller.image().update(|i| *i = MetadataImage::new());
    let r = describe(&s, 1, 2, false);
    assert_eq!(r.error_code, 35);
    assert_eq!(
        r.error_message.as_deref(),
        Some("There is no finalized MetadataVersion, so direct-to-controller communication is not supported.")
    );
    let s = setup(14, &[]);
    let r = describe(&s, 1, 2, false);
    assert_eq!(r.error_code, 35);
    assert_eq!(
        r.error_message.as_deref(),
        Some(
            "Direct-to-controller communication is not supported with the current MetadataVersion."
        )
    );
}

#[test]
fn describe_cluster_endpoint_types() {
    let s = setup(33, &[]);
    let r = describe(&s, 0, 1, false);
    assert_eq!(r.error_code, 42);
    assert_eq!(
        r.error_message.as_deref(),
        Some("The request was sent to an endpoint of type CONTROLLER, but we wanted an endpoint of type BROKER")
    );
    assert_eq!(describe(&s, 1, 1, false).error_code, 114);
    let r = describe(&s, 0, 7, false);
    assert_eq!(
        (r.error_code, r.error_message.as_deref()),
        (42, Some("Unsupported endpoint type 7"))
    );
    assert_eq!(describe(&s, 2, 0, false).error_code, 115);
}

#[test]
fn describe_cluster_lists_registered_controllers_on_the_listener() {
    let s = setup(
        33,
        &[
            registration(3, 33, "CONTROLLER"),
            registration(1, 33, "CONTROLLER"),
            registration(2, 33, "OTHER"),
        ],
    );
    let r = describe(&s, 2, 2, false);
    assert_eq!(r.error_code, 0);
    assert_eq!(r.error_message, None);
    assert_eq!(r.endpoint_type, 2);
    assert_eq!(r.cluster_id, "MkU3OEVBNTcwNTJENDM2Qk");
    let ids: Vec<i32> = r.brokers.iter().map(|b| b.broker_id).collect();
    assert_eq!(ids, [1, 3]);
    assert_eq!(r.brokers.get(1).expect("element").host, "ctl-3");
    assert_eq!(r.brokers.get(1).expect("element").port, 9093);
    assert_eq!(r.brokers.get(1).expect("element").rack, None);
    assert_eq!(r.controller_id, 1);
    assert_eq!(r.cluster_authorized_operations, i32::MIN);
    assert_eq!(describe(&s, 2, 2, true).cluster_authorized_operations, 8096);
    // the leader is not registered (on this listener): ControllerId -1
    s.quorum.facts.lock().unwrap().leader_id = Some(2);
    assert_eq!(describe(&s, 2, 2, false).controller_id, -1);
}

// ---- ApiVersions (KIP-511, `ControllerApis.handleApiVersionsRequest`) ----

fn api_versions(s: &Setup, version: i16, req: ApiVersionsRequest) -> ApiVersionsResponse {
    s.controller.api_versions(version, &req)
}

fn java_request() -> ApiVersionsRequest {
    ApiVersionsRequest {
        client_software_name: "apache-kafka-java".into(),
        client_software_version: "4.4.0".into(),
        ..Default::default()
    }
}

/// Bytes Kafka 4.4.0 produced (ApiKeys cleared) for a controller whose
/// image holds the 4.4-IV2 bootstrap features, kraft.version 1, epoch 42.
const JAVA_V3_FULL: &str = "0000010000000003001702116d657461646174612e76657273696f6e00070021000108000000000000002a02a401080e67726f75702e76657273696f6e00010001000e6b726166742e76657273696f6e00010001000e73686172652e76657273696f6e0002000200116d657461646174612e76657273696f6e00210021001073747265616d732e76657273696f6e0001000100147472616e73616374696f6e2e76657273696f6e000200020021656c696769626c652e6c65616465722e7265706c696361732e76657273696f6e0001000100";
const JAVA_V4_FULL: &str = "000001000000000300a401080e67726f75702e76657273696f6e00000001000e6b726166742e76657273696f6e0000000100116d657461646174612e76657273696f6e00070021000e73686172652e76657273696f6e00000002001073747265616d732e76657273696f6e0000000100147472616e73616374696f6e2e76657273696f6e000000020021656c696769626c652e6c65616465722e7265706c696361732e76657273696f6e00000001000108000000000000002a02a401080e67726f75702e76657273696f6e00010001000e6b726166742e76657273696f6e00010001000e73686172652e76657273696f6e0002000200116d657461646174612e76657273696f6e00210021001073747265616d732e76657273696f6e0001000100147472616e73616374696f6e2e76657273696f6e000200020021656c696769626c652e6c65616465722e7265706c696361732e76657273696f6e0001000100";
/// metadata.version 4.3-IV0 (30), kraft.version 0, share.version 1 then group.version 1.
const JAVA_V3_SMALL: &str = "0000010000000003001702116d657461646174612e76657273696f6e00070021000108000000000000002a023d040e67726f75702e76657273696f6e00010001000e73686172652e76657273696f6e0001000100116d657461646174612e76657273696f6e001e001e00";

fn hex(s: &str) -> Bytes {
    Bytes::from(
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect::<Vec<u8>>(),
    )
}

/// (supported name/min/max, finalized name/level, epoch)
type Features = (Vec<(String, i16, i16)>, Vec<(String, i16)>, i64);

fn features_of(r: &ApiVersionsResponse) -> Features {
    (
        r.supported_features
            .iter()
            .map(|f| (f.name.to_string(), f.min_version, f.max_version))
            .collect(),
        r.finalized_features
            .iter()
            .map(|f| (f.name.to_string(), f.max_version_level))
            .collect(),
        r.finalized_features_epoch,
    )
}

#[test]
fn api_versions_features_match_kafka_byte_order() {
    let bootstrap = [
        MetadataRecord::feature_level("eligible.leader.replicas.version", 1),
        MetadataRecord::feature_level("group.version", 1),
        MetadataRecord::feature_level("share.version", 2),
        MetadataRecord::feature_level("streams.version", 1),
        MetadataRecord::feature_level("transaction.version", 2),
    ];
    let s = setup(33, &bootstrap);
    s.controller.image().update(|i| i.set_last_offset(42));
    for (version, golden) in [(3, JAVA_V3_FULL), (4, JAVA_V4_FULL)] {
        let java = ApiVersionsResponse::decode_exact(hex(golden), version).unwrap();
        let mine = api_versions(&s, version, java_request());
        assert_eq!(features_of(&mine), features_of(&java), "v{version}");
        // The whole body is Kafka's once the API list is cleared.
        let mut cleared = mine.clone();
        cleared.api_keys.clear();
        assert_eq!(
            cleared.encode_to_vec(version).unwrap(),
            hex(golden).to_vec(),
            "v{version}"
        );
    }

    let s = setup(
        30,
        &[
            MetadataRecord::feature_level("share.version", 1),
            MetadataRecord::feature_level("group.version", 1),
        ],
    );
    s.quorum.facts.lock().unwrap().kraft_version = 0;
    s.controller.image().update(|i| i.set_last_offset(42));
    let java = ApiVersionsResponse::decode_exact(hex(JAVA_V3_SMALL), 3).unwrap();
    assert_eq!(
        features_of(&api_versions(&s, 3, java_request())),
        features_of(&java)
    );
}

#[test]
fn api_versions_lists_served_apis_and_omits_min_zero_features_below_v4() {
    let s = setup(33, &[]);
    let r = api_versions(&s, 3, java_request());
    assert_eq!(r.error_code, 0);
    let keys: Vec<(i16, i16, i16)> = r
        .api_keys
        .iter()
        .map(|k| (k.api_key, k.min_version, k.max_version))
        .collect();
    assert_eq!(
        keys,
        // Kafka 4.4's controller advertises these ranges (spec, Appendix B).
        [
            (17, 0, 1),
            (18, 0, 5),
            (19, 2, 7),
            (20, 1, 6),
            (29, 1, 3),
            (30, 1, 3),
            (31, 1, 3),
            (32, 1, 4),
            (33, 0, 2),
            (36, 0, 2),
            (37, 0, 3),
            (38, 1, 3),
            (39, 1, 2),
            (40, 1, 2),
            (43, 0, 2),
            (44, 0, 1),
            (45, 0, 1),
            (46, 0, 0),
            (49, 0, 1),
            (51, 0, 0),
            (56, 2, 3),
            (57, 0, 2),
            (58, 0, 0),
            (60, 0, 2),
            (62, 0, 4),
            (63, 0, 2),
            (64, 0, 0),
            (67, 0, 0),
            (70, 0, 0),
            (73, 0, 0),
            (94, 0, 0)
        ]
    );
    assert!(r.supported_features.iter().all(|f| f.min_version != 0));
    assert_eq!(
        r.supported_features.len(),
        1,
        "only metadata.version has a non-zero minimum"
    );
    let r4 = api_versions(&s, 4, java_request());
    assert!(r4
        .supported_features
        .iter()
        .any(|f| f.name == "kraft.version" && f.min_version == 0 && f.max_version == 1));
    assert_eq!(r4.supported_features.len(), 7);
    // kraft.version 1 is finalized (from the raft layer)
    assert!(r4
        .finalized_features
        .iter()
        .any(|f| f.name == "kraft.version" && f.max_version_level == 1));
    // v0 and v1 encode without the flexible parts
    assert!(r.encode_to_vec(0).is_ok());
    // unknown metadata.version: no finalized features, epoch -1
    s.controller.image().update(|i| *i = MetadataImage::new());
    let r = api_versions(&s, 4, java_request());
    assert!(r.finalized_features.is_empty());
    assert_eq!(r.finalized_features_epoch, -1);
}

#[test]
fn api_versions_validation() {
    let s = setup(33, &[]);
    let bad_name = ApiVersionsRequest {
        client_software_name: "-bad".into(),
        ..java_request()
    };
    let r = api_versions(&s, 3, bad_name.clone());
    assert_eq!(r.error_code, 42);
    assert!(r.api_keys.is_empty());
    // below v3 the fields do not exist and are not checked
    assert_eq!(api_versions(&s, 2, bad_name).error_code, 0);
    let half = ApiVersionsRequest {
        cluster_id: Some("abc".into()),
        node_id: -1,
        ..java_request()
    };
    assert_eq!(api_versions(&s, 5, half.clone()).error_code, 42);
    assert_eq!(api_versions(&s, 4, half).error_code, 0);
    let both = ApiVersionsRequest {
        cluster_id: Some("other-cluster".into()),
        node_id: 3,
        ..java_request()
    };
    // controllers do not check that cluster id and node id are their own
    assert_eq!(api_versions(&s, 5, both).error_code, 0);
    assert!(valid_software_token("a"));
    assert!(valid_software_token("apache-kafka-java"));
    assert!(valid_software_token("4.4.0"));
    assert!(!valid_software_token(""));
    assert!(!valid_software_token("a."));
    assert!(!valid_software_token("a b"));
}

// ---- UpdateFeatures (KIP-1312 motivation) ----

fn update(name: &str, level: i16, upgrade_type: i8) -> FeatureUpdateKey {
    FeatureUpdateKey {
        feature: name.into(),
        max_version_level: level,
        upgrade_type,
        ..Default::default()
    }
}

async fn update_features(
    s: &Setup,
    version: i16,
    updates: Vec<FeatureUpdateKey>,
    validate_only: bool,
) -> UpdateFeaturesResponse {
    s.controller
        .update_features(
            version,
            &UpdateFeaturesRequest {
                feature_updates: updates.into(),
                validate_only,
                ..Default::default()
            },
        )
        .await
}

const FAILED: &str =
    "The update failed for all features since the following feature had an error: ";

#[tokio::test]
async fn stale_registration_blocks_upgrade_until_unregistered() {
    // Controller 3 registered while running 4.3 (metadata.version max 30) and is gone.
    let s = setup(
        30,
        &[
            registration(1, 33, "CONTROLLER"),
            registration(3, 30, "CONTROLLER"),
        ],
    );
    let r = update_features(&s, 2, vec![update("metadata.version", 33, 1)], false).await;
    assert_eq!(r.error_code, 95);
    assert_eq!(
        r.error_message.as_deref(),
        Some(
            "The update failed for all features since the following feature had an error: \
             Invalid update version 33 for feature metadata.version. Controller 3 only supports versions 7-30"
        )
    );
    assert!(r.results.is_empty());
    assert!(s.quorum.log().is_empty());
    // cannot unregister yet: 4.3-IV0 is older than 4.4-IV2
    assert_eq!(unregister(&s, 3).await.0, 35);
    // upgrade to 4.4-IV1 (32), which controller 3 does not support either
    let r = update_features(&s, 2, vec![update("metadata.version", 32, 1)], false).await;
    assert_eq!(r.error_code, 95);
    // a controller advertising no range for a feature does not support it
    let r = update_features(&s, 2, vec![update("group.version", 1, 1)], false).await;
    assert_eq!(
        r.error_message.as_deref().map(|m| m.trim_start_matches(FAILED)),
        Some("Invalid update version 1 for feature group.version. Controller 3 does not support this feature.")
    );
}

/// A RegisterBrokerRecord (v4) for broker `id` supporting metadata.version
/// 7-`mv_max` and nothing else.
fn broker(id: i32, mv_max: i16) -> MetadataRecord {
    use kraft_protocol::messages::register_broker_record::{BrokerFeature, RegisterBrokerRecord};
    MetadataRecord::new(
        RegisterBrokerRecord {
            broker_id: id,
            incarnation_id: Uuid::from_u64_pair(9, id as u64),
            broker_epoch: 100 + i64::from(id),
            features: vec![BrokerFeature {
                name: "metadata.version".into(),
                min_supported_version: 7,
                max_supported_version: mv_max,
                ..Default::default()
            }]
            .into(),
            fenced: true,
            ..Default::default()
        },
        4,
    )
}

#[tokio::test]
async fn registered_brokers_are_checked_before_the_other_controllers() {
    // Controller 3 and broker 7 both support only up to 4.3-IV0 (30).
    let s = setup(
        30,
        &[
            registration(1, 33, "CONTROLLER"),
            registration(3, 30, "CONTROLLER"),
            broker(7, 30),
        ],
    );
    let r = update_features(&s, 2, vec![update("metadata.version", 33, 1)], false).await;
    assert_eq!(r.error_code, 95);
    assert_eq!(
        r.error_message.as_deref().map(|m| m.trim_start_matches(FAILED)),
        Some("Invalid update version 33 for feature metadata.version. Broker 7 only supports versions 7-30")
    );
    let r = update_features(&s, 2, vec![update("group.version", 1, 1)], false).await;
    assert_eq!(
        r.error_message.as_deref().map(|m| m.trim_start_matches(FAILED)),
        Some("Invalid update version 1 for feature group.version. Broker 7 does not support this feature.")
    );
    assert!(s.quorum.log().is_empty());
}

#[tokio::test]
async fn upgrade_succeeds_after_the_stale_registration_is_removed() {
    let s = setup(33, &[registration(3, 32, "CONTROLLER")]);
    s.controller.image().update(|i| {
        i.replay(&MetadataRecord::feature_level("metadata.version", 32))
            .unwrap();
    });
    assert_eq!(
        update_features(&s, 2, vec![update("metadata.version", 33, 1)], false)
            .await
            .error_code,
        95
    );
    // metadata.version is 32, so unregistration is still refused...
    assert_eq!(unregister(&s, 3).await.0, 35);
    // ...at 33 it works (as in a cluster already at 4.4-IV2 with a stale 4.4-IV1 controller)
    s.controller.image().update(|i| {
        i.replay(&MetadataRecord::feature_level("metadata.version", 33))
            .unwrap();
    });
    assert_eq!(unregister(&s, 3).await.0, 0);
    let r = update_features(&s, 1, vec![update("metadata.version", 33, 1)], false).await;
    assert_eq!(r.error_code, 0);
    assert_eq!(r.error_message, None);
    assert_eq!(r.results.len(), 1);
    assert_eq!(
        r.results.get(0).expect("element").feature,
        "metadata.version"
    );
    assert_eq!(
        r.results.get(0).expect("element").error_message.as_deref(),
        Some("NONE")
    );
}

#[tokio::test]
async fn every_voter_of_the_latest_set_must_be_registered() {
    // Kafka trunk (KAFKA-20865): dynamic voters count, not only static ones.
    let s = setup(30, &[registration(3, 33, "CONTROLLER")]);
    s.quorum.set_voters(&[1, 3, 4]);
    let r = update_features(&s, 2, vec![update("metadata.version", 33, 1)], false).await;
    assert_eq!(
        r.error_message.as_deref().map(|m| m.trim_start_matches(FAILED)),
        Some(
            "Invalid update version 33 for feature metadata.version. controller 4 has not registered, and may not support this feature"
        )
    );
    s.quorum.set_voters(&[1, 3]);
    let r = update_features(&s, 2, vec![update("metadata.version", 33, 1)], false).await;
    assert_eq!(r.error_code, 0, "{:?}", r.error_message);
}

#[tokio::test]
async fn unregister_refuses_a_voter_of_the_latest_set() {
    let s = setup(33, &[registration(5, 33, "CONTROLLER")]);
    s.quorum.set_voters(&[1, 5]);
    assert_eq!(
        unregister(&s, 5).await,
        (
            42,
            Some("Cannot unregister controller 5 because it is part of the voter set.".to_string())
        )
    );
    assert!(s.quorum.log().is_empty(), "nothing written");
    s.quorum.set_voters(&[1]);
    assert_eq!(unregister(&s, 5).await.0, 0);
}

#[tokio::test]
async fn static_voters_must_be_registered() {
    let s = setup_with(30, &[registration(3, 33, "CONTROLLER")], vec![1, 2, 3]);
    let r = update_features(&s, 2, vec![update("metadata.version", 33, 1)], false).await;
    assert_eq!(
        r.error_message.as_deref().map(|m| m.trim_start_matches(FAILED)),
        Some(
            "Invalid update version 33 for feature metadata.version. controller 2 has not registered, and may not support this feature"
        )
    );
    // below 3.7-IV0 controllers cannot register and are not checked
    let s = setup_with(14, &[], vec![1, 2, 3]);
    assert_eq!(
        update_features(&s, 2, vec![update("metadata.version", 15, 1)], false)
            .await
            .error_code,
        0
    );
    assert_eq!(
        s.quorum.log(),
        [MetadataRecord::feature_level("metadata.version", 15)]
    );
}

#[tokio::test]
async fn feature_update_checks_in_kafkas_order() {
    let s = setup(33, &[]);
    let msg = |r: UpdateFeaturesResponse| {
        assert_eq!(r.error_code, 95);
        r.error_message
            .unwrap()
            .trim_start_matches(FAILED)
            .to_string()
    };
    assert_eq!(
        msg(update_features(&s, 2, vec![update("metadata.version", 20, 0)], false).await),
        "Invalid update version 20 for feature metadata.version. The controller does not support the given upgrade type."
    );
    assert_eq!(
        msg(update_features(&s, 2, vec![update("group.version", -1, 2)], false).await),
        "Invalid update version -1 for feature group.version. A feature version cannot be less than 0."
    );
    assert_eq!(
        msg(update_features(&s, 2, vec![update("metadata.version", 34, 1)], false).await),
        "Invalid update version 34 for feature metadata.version. Local controller 1 only supports versions 7-33"
    );
    assert_eq!(
        msg(update_features(&s, 2, vec![update("foo.version", 1, 1)], false).await),
        "Invalid update version 1 for feature foo.version. Local controller 1 does not support this feature."
    );
    assert_eq!(
        msg(update_features(&s, 2, vec![update("metadata.version", 30, 1)], false).await),
        "Invalid update version 30 for feature metadata.version. Can't downgrade the version of this feature without setting the upgrade type to either safe or unsafe downgrade."
    );
    assert_eq!(
        msg(update_features(&s, 2, vec![update("group.version", 1, 2)], false).await),
        "Invalid update version 1 for feature group.version. Can't downgrade to a newer version."
    );
    // 33 -> 30 crosses levels that changed the metadata format
    assert_eq!(
        msg(update_features(&s, 2, vec![update("metadata.version", 30, 2)], false).await),
        "Unsupported metadata.version downgrade from 33 to 30. Refusing to perform the requested downgrade because it might delete metadata information."
    );
    assert_eq!(
        msg(update_features(&s, 2, vec![update("metadata.version", 30, 3)], false).await),
        "Unsupported metadata.version downgrade from 33 to 30. Unsafe metadata downgrade is not supported in this version."
    );
    assert_eq!(
        msg(update_features(&s, 2, vec![update("kraft.version", 0, 2)], false).await),
        "Invalid update version 0 for feature kraft.version. Can't downgrade the version of this feature."
    );
    assert_eq!(
        msg(update_features(&s, 2, vec![update("foo.version", 0, 2)], false).await),
        "Invalid update version 0 for feature foo.version. Feature foo.version not found."
    );
    assert!(s.quorum.log().is_empty());
}

#[tokio::test]
async fn feature_dependencies_and_safe_downgrades() {
    let s = setup(22, &[]);
    let r = update_features(
        &s,
        2,
        vec![update("eligible.leader.replicas.version", 1, 1)],
        false,
    )
    .await;
    assert_eq!(
        r.error_message.as_deref().map(|m| m.trim_start_matches(FAILED)),
        Some(
            "Invalid update version 1 for feature eligible.leader.replicas.version. eligible.leader.replicas.version could not be set to 1 because it depends on metadata.version level 23"
        )
    );
    // ...but together with metadata.version 23 in the same request it is fine
    let r = update_features(
        &s,
        2,
        vec![
            update("eligible.leader.replicas.version", 1, 1),
            update("metadata.version", 23, 1),
        ],
        false,
    )
    .await;
    assert_eq!(r.error_code, 0, "{:?}", r.error_message);
    assert_eq!(
        s.controller
            .image()
            .read()
            .feature_level("eligible.leader.replicas.version"),
        1
    );
    assert_eq!(
        s.controller
            .image()
            .read()
            .metadata_version()
            .map(|m| m.feature_level()),
        Some(23)
    );
    // 31 -> 30 changes no metadata format: a safe downgrade is allowed
    let s = setup(31, &[]);
    assert_eq!(
        update_features(&s, 2, vec![update("metadata.version", 30, 2)], false)
            .await
            .error_code,
        0
    );
    // removing a feature (level 0) with a safe downgrade
    let s = setup(33, &[MetadataRecord::feature_level("group.version", 1)]);
    assert_eq!(
        update_features(&s, 2, vec![update("group.version", 0, 2)], false)
            .await
            .error_code,
        0
    );
    assert_eq!(
        s.controller.image().read().feature_level("group.version"),
        0
    );
}

#[tokio::test]
async fn validate_only_and_kraft_version() {
    let s = setup(33, &[]);
    s.quorum.facts.lock().unwrap().kraft_version = 0;
    let r = update_features(&s, 2, vec![update("kraft.version", 1, 1)], true).await;
    assert_eq!(r.error_code, 0);
    assert!(s.quorum.log().is_empty(), "validate-only writes nothing");
    assert_eq!(s.quorum.facts().kraft_version, 0);
    let r = update_features(&s, 2, vec![update("kraft.version", 1, 1)], false).await;
    assert_eq!(r.error_code, 0);
    assert_eq!(s.quorum.log(), [MetadataRecord::no_op()]);
    assert_eq!(s.quorum.facts().kraft_version, 1);
    // errors of the raft layer are passed through
    *s.quorum.kraft_upgrade.lock().unwrap() =
        Err(ApiError::new(ErrorCode::InvalidUpdateVersion, "nope"));
    let r = update_features(&s, 2, vec![update("kraft.version", 1, 1)], false).await;
    assert_eq!(
        (r.error_code, r.error_message.as_deref()),
        (95, Some(&*format!("{FAILED}nope")))
    );
}

#[tokio::test]
async fn update_features_not_controller() {
    let s = setup(33, &[]);
    s.quorum.set_inactive(Some(2));
    let r = update_features(&s, 1, vec![update("group.version", 1, 1)], false).await;
    assert_eq!(r.error_code, 41);
    assert_eq!(
        r.error_message.as_deref(),
        Some("The active controller appears to be node 2.")
    );
    assert!(r.results.is_empty());
}

#[test]
fn decoded_requests_dispatch() {
    // The generated decoders are used by the server; a sanity check that the
    // handler types line up with them.
    let body = UnregisterControllerRequest {
        controller_id: 5,
        ..Default::default()
    }
    .encode_to_vec(0)
    .unwrap();
    let mut b = Bytes::from(body);
    let r = UnregisterControllerRequest::decode(&mut b, 0).unwrap();
    assert_eq!(r.controller_id, 5);
}

// ---- A controller whose image is not loaded yet (restarted) ----

/// Node 1, active in the raft layer, with an image holding metadata.version
/// `mv` that is not marked loaded.
fn setup_unloaded(mv: i16) -> Setup {
    let s = setup(mv, &[]);
    let image = SharedImage::unloaded();
    image.update(|i| *i = s.controller.image().snapshot());
    let quorum = FakeQuorum::new(image.clone());
    let controller = Controller::new(s.controller.settings().clone(), image, quorum.clone());
    Setup { controller, quorum }
}

#[tokio::test]
async fn nothing_is_answered_from_an_image_that_is_not_loaded() {
    let s = setup_unloaded(33);
    // DescribeCluster: retriable NOT_CONTROLLER, not the final UNSUPPORTED_VERSION.
    let r = describe(&s, 1, 2, false);
    assert_eq!(r.error_code, ErrorCode::NotController.code());
    assert_eq!(
        r.error_message.as_deref(),
        Some("Controller 1 has not loaded the committed metadata yet.")
    );
    // ApiVersions: no finalized feature, epoch -1 (the APIs are listed).
    let r = api_versions(&s, 3, java_request());
    assert_eq!(r.error_code, 0);
    assert!(r.finalized_features.is_empty());
    assert_eq!(r.finalized_features_epoch, -1);
    assert!(!r.api_keys.is_empty());
    // UpdateFeatures: NOT_CONTROLLER, nothing appended.
    let update = UpdateFeaturesRequest {
        feature_updates: vec![FeatureUpdateKey {
            feature: "group.version".into(),
            max_version_level: 0,
            upgrade_type: 2,
            ..Default::default()
        }]
        .into(),
        ..Default::default()
    };
    let r = s.controller.update_features(1, &update).await;
    assert_eq!(r.error_code, ErrorCode::NotController.code());
    assert!(s.quorum.log().is_empty());

    // Once loaded, the same image answers.
    s.controller.image().mark_loaded();
    let r = describe(&s, 1, 2, false);
    assert_eq!(r.error_code, 0);
    let r = api_versions(&s, 3, java_request());
    assert!(r
        .finalized_features
        .iter()
        .any(|f| f.name.as_str() == "metadata.version" && f.max_version_level == 33));
    let r = s.controller.update_features(1, &update).await;
    assert_eq!(r.error_code, 0, "{:?}", r.error_message);
    assert_eq!(s.quorum.log().len(), 1);
}
