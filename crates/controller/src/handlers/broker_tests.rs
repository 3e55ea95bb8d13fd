//! BrokerRegistration, BrokerHeartbeat and UnregisterBroker against a quorum
//! whose commits can be held back, so the writer's speculative state is
//! what the second of two concurrent writes sees.

use std::sync::{Arc, Mutex as StdMutex};
use std::time::Duration;

use async_trait::async_trait;
use bytes::Bytes;
use kraft_protocol::messages::broker_heartbeat_request::BrokerHeartbeatRequest;
use kraft_protocol::messages::broker_registration_request::{
    BrokerRegistrationRequest, Feature, Listener,
};
use kraft_protocol::messages::broker_registration_response::BrokerRegistrationResponse;
use kraft_protocol::messages::envelope_request::EnvelopeRequest;
use kraft_protocol::messages::unregister_broker_request::UnregisterBrokerRequest;
use kraft_protocol::{ApiKey, ErrorCode, MetadataRecordBody, RequestBody, ResponseBody, Uuid};
use tokio::sync::watch;

use super::*;
use crate::image::MetadataRecord;

pub(super) const CLUSTER_ID: &str = "MkU3OEVBNTcwNTJENDM2Qk";

/// A leader's log: appends are accepted at once, commits (and the shared
/// image) advance only up to the released offset.
pub(super) struct GatedQuorum {
    image: SharedImage,
    pub(super) log: StdMutex<Vec<MetadataRecord>>,
    /// The number of records of each appended batch, in order.
    pub(super) batches: StdMutex<Vec<usize>>,
    /// Records up to this offset are committed and applied.
    released: watch::Sender<i64>,
    /// Whether appends commit at once.
    open: StdMutex<bool>,
    /// Whether appends are refused NOT_CONTROLLER while the facts still
    /// say active (a leader resigning before its cached facts catch up).
    refuse: StdMutex<bool>,
    /// The epochs the controller asked to resign.
    pub(super) resigned: StdMutex<Vec<i32>>,
}

impl GatedQuorum {
    fn new(image: SharedImage) -> Arc<Self> {
        Arc::new(GatedQuorum {
            image,
            log: StdMutex::new(Vec::new()),
            batches: StdMutex::new(Vec::new()),
            released: watch::channel(-1).0,
            open: StdMutex::new(true),
            refuse: StdMutex::new(false),
            resigned: StdMutex::new(Vec::new()),
        })
    }

    /// Commits and applies everything appended.
    pub(super) fn release(&self) {
        let log = self.log.lock().unwrap();
        let from = *self.released.borrow() + 1;
        for (offset, r) in log.iter().enumerate().skip(from as usize) {
            self.image
                .apply_committed([(offset as i64, Bytes::from(r.encode().unwrap()))])
                .unwrap();
        }
        self.released.send_replace(log.len() as i64 - 1);
    }

    pub(super) fn hold(&self, hold: bool) {
        *self.open.lock().unwrap() = !hold;
        if !hold {
            self.release();
        }
    }

    pub(super) fn refuse_appends(&self, refuse: bool) {
        *self.refuse.lock().unwrap() = refuse;
    }

    pub(super) fn records(&self) -> Vec<MetadataRecord> {
        self.log.lock().unwrap().clone()
    }
}

#[async_trait]
impl RaftQuorum for GatedQuorum {
    fn facts(&self) -> QuorumFacts {
        QuorumFacts {
            leader_id: Some(1),
            epoch: 5,
            is_active_controller: true,
            kraft_version: 1,
            ..Default::default()
        }
    }

    async fn append(
        &self,
        _epoch: i32,
        base_offset: Option<i64>,
        records: Vec<MetadataRecord>,
    ) -> Result<PendingCommit, AppendError> {
        if *self.refuse.lock().unwrap() {
            return Err(AppendError::NotController { leader_id: Some(1) });
        }
        let (base, last) = {
            let mut log = self.log.lock().unwrap();
            let base = log.len() as i64;
            if base_offset.is_some_and(|b| b != base) {
                return Err(AppendError::OffsetMismatch { end_offset: base });
            }
            self.batches.lock().unwrap().push(records.len());
            log.extend(records);
            (base, log.len() as i64 - 1)
        };
        if *self.open.lock().unwrap() {
            self.release();
        }
        let mut released = self.released.subscribe();
        Ok(PendingCommit {
            base_offset: base,
            last_offset: last,
            applied: Box::pin(async move {
                released
                    .wait_for(|r| *r >= last)
                    .await
                    .map_err(|_| AppendError::Timeout)?;
                Ok(last)
            }),
        })
    }

    async fn resign(&self, epoch: i32) {
        self.resigned.lock().unwrap().push(epoch);
    }

    async fn wait_applied(&self, offset: i64) -> Result<(), AppendError> {
        let mut released = self.released.subscribe();
        released
            .wait_for(|r| *r >= offset)
            .await
            .map_err(|_| AppendError::Timeout)?;
        Ok(())
    }

    async fn upgrade_kraft_version(&self, _: i32, _: i16, _: bool) -> Result<(), ApiError> {
        Ok(())
    }
}

pub(super) fn setup(session_timeout: Duration) -> (Arc<Controller>, Arc<GatedQuorum>) {
    setup_authorized(session_timeout, None)
}

/// [`setup`] with an authorizer.
pub(super) fn setup_authorized(
    session_timeout: Duration,
    authorizer: Option<crate::authorizer::AuthorizerConfig>,
) -> (Arc<Controller>, Arc<GatedQuorum>) {
    setup_with(session_timeout, authorizer, Default::default())
}

/// [`setup`] with an authorizer and delegation token settings.
pub(super) fn setup_with(
    session_timeout: Duration,
    authorizer: Option<crate::authorizer::AuthorizerConfig>,
    delegation_tokens: crate::config::security::DelegationTokenSettings,
) -> (Arc<Controller>, Arc<GatedQuorum>) {
    let image = SharedImage::new();
    let quorum = GatedQuorum::new(image.clone());
    let controller = Arc::new(Controller::new(
        ControllerSettings {
            node_id: 1,
            cluster_id: CLUSTER_ID.to_string(),
            static_voter_ids: Vec::new(),
            unstable_feature_versions: false,
            unstable_api_versions: false,
            broker_session_timeout: session_timeout,
            broker_heartbeat_interval: Duration::from_millis(2000),
            topics: Default::default(),
            authorizer,
            delegation_tokens,
            groups: Default::default(),
            static_configs: Default::default(),
            mutation_quota_window: Default::default(),
            performance: Default::default(),
        },
        image,
        quorum.clone(),
    ));
    // metadata.version 4.4-IV2, committed at offset 0.
    let mv = MetadataRecord::feature_level("metadata.version", 33);
    quorum.log.lock().unwrap().push(mv);
    quorum.release();
    (controller, quorum)
}

pub(super) fn registration(id: i32, incarnation: u64) -> BrokerRegistrationRequest {
    BrokerRegistrationRequest {
        broker_id: id,
        cluster_id: CLUSTER_ID.into(),
        incarnation_id: Uuid::from_u64_pair(9, incarnation),
        listeners: vec![Listener {
            name: "PLAINTEXT".into(),
            host: "localhost".into(),
            port: 9092,
            security_protocol: 0,
            ..Default::default()
        }]
        .into(),
        features: vec![
            Feature {
                name: "metadata.version".into(),
                min_supported_version: 7,
                max_supported_version: 33,
                ..Default::default()
            },
            Feature {
                name: "kraft.version".into(),
                min_supported_version: 0,
                max_supported_version: 1,
                ..Default::default()
            },
        ]
        .into(),
        log_dirs: vec![Uuid::from_u64_pair(77, id as u64)],
        ..Default::default()
    }
}

pub(super) fn heartbeat(id: i32, epoch: i64, offset: i64) -> BrokerHeartbeatRequest {
    BrokerHeartbeatRequest {
        broker_id: id,
        broker_epoch: epoch,
        current_metadata_offset: offset,
        ..Default::default()
    }
}

fn change_records(q: &GatedQuorum) -> Vec<(i32, i8, i8)> {
    q.records()
        .iter()
        .filter_map(|r| match &r.body {
            MetadataRecordBody::BrokerRegistrationChange(c) => {
                Some((c.broker_id, c.fenced, c.in_controlled_shutdown))
            }
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn registration_epoch_is_the_record_offset_and_amending_keeps_it() {
    let (c, q) = setup(Duration::from_secs(9));
    let r = c.broker_registration(4, &registration(4, 1)).await;
    assert_eq!((r.error_code, r.broker_epoch), (0, 1));
    let MetadataRecordBody::RegisterBroker(rec) = &q.records()[1].body else {
        panic!("{:?}", q.records());
    };
    assert!(rec.fenced, "a new incarnation starts fenced");
    assert_eq!(
        q.records()[1].version,
        4,
        "RegisterBrokerRecord v4 at 4.4-IV2"
    );
    assert_eq!(rec.log_dirs, [Uuid::from_u64_pair(77, 4)]);
    // The same incarnation amends: same epoch, state kept.
    let hb = c.broker_heartbeat(&heartbeat(4, 1, 1)).await;
    assert_eq!(
        (hb.error_code, hb.is_fenced, hb.is_caught_up),
        (0, false, true)
    );
    let r = c.broker_registration(4, &registration(4, 1)).await;
    assert_eq!((r.error_code, r.broker_epoch), (0, 1));
    let image = c.image().read();
    let b = image.cluster().broker(4).expect("registered");
    assert!(!b.fenced());
    assert_eq!(b.epoch(), 1);
}

#[tokio::test]
async fn registration_checks_in_kafka_order() {
    let (c, _q) = setup(Duration::from_secs(9));
    let code = |r: BrokerRegistrationResponse| (r.error_code, r.broker_epoch);
    let mut bad = registration(4, 1);
    bad.cluster_id = "other".into();
    assert_eq!(
        code(c.broker_registration(4, &bad).await),
        (ErrorCode::InconsistentClusterId.code(), -1)
    );
    let mut bad = registration(4, 1);
    bad.log_dirs.clear();
    assert_eq!(
        code(c.broker_registration(4, &bad).await).0,
        ErrorCode::InvalidRegistration.code()
    );
    let mut bad = registration(4, 1);
    bad.log_dirs = vec![Uuid::from_u64_pair(0, 5)];
    assert_eq!(
        code(c.broker_registration(4, &bad).await).0,
        ErrorCode::InvalidRegistration.code()
    );
    let mut bad = registration(4, 1);
    bad.features = vec![Feature {
        name: "metadata.version".into(),
        min_supported_version: 7,
        max_supported_version: 30,
        ..Default::default()
    }]
    .into();
    assert_eq!(
        code(c.broker_registration(4, &bad).await).0,
        ErrorCode::UnsupportedVersion.code()
    );
    let mut bad = registration(4, 1);
    bad.features = vec![].into();
    assert_eq!(
        code(c.broker_registration(4, &bad).await).0,
        ErrorCode::InvalidRegistration.code(),
        "no metadata.version range"
    );
    // A live session of another incarnation holds the id.
    assert_eq!(
        code(c.broker_registration(4, &registration(4, 1)).await).0,
        0
    );
    let hb = c.broker_heartbeat(&heartbeat(4, 1, 1)).await;
    assert_eq!(hb.error_code, 0);
    assert_eq!(
        code(c.broker_registration(4, &registration(4, 2)).await).0,
        ErrorCode::DuplicateBrokerRegistration.code()
    );
    // Another broker cannot take broker 4's directory.
    let mut bad = registration(5, 3);
    bad.log_dirs = vec![Uuid::from_u64_pair(77, 4)];
    assert_eq!(
        code(c.broker_registration(4, &bad).await).0,
        ErrorCode::InvalidRegistration.code()
    );
}

#[tokio::test]
async fn concurrent_heartbeats_unfence_once_and_answer_after_commit() {
    let (c, q) = setup(Duration::from_secs(9));
    let epoch = c
        .broker_registration(4, &registration(4, 1))
        .await
        .broker_epoch;
    q.hold(true);
    let (c1, c2) = (c.clone(), c.clone());
    let first = tokio::spawn(async move { c1.broker_heartbeat(&heartbeat(4, epoch, epoch)).await });
    let second =
        tokio::spawn(async move { c2.broker_heartbeat(&heartbeat(4, epoch, epoch)).await });
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert!(
        !first.is_finished() && !second.is_finished(),
        "answered before the commit"
    );
    assert!(
        c.image().read().cluster().broker(4).unwrap().fenced(),
        "the committed image is not yet unfenced"
    );
    q.hold(false);
    for h in [first, second] {
        let r = h.await.unwrap();
        assert_eq!((r.error_code, r.is_fenced), (0, false));
    }
    assert_eq!(change_records(&q), [(4, -1, 0)], "one unfencing");
}

#[tokio::test]
async fn heartbeats_with_another_epoch_are_stale() {
    let (c, _q) = setup(Duration::from_secs(9));
    let r = c.broker_heartbeat(&heartbeat(4, 1, 0)).await;
    assert_eq!(r.error_code, ErrorCode::StaleBrokerEpoch.code());
    let epoch = c
        .broker_registration(4, &registration(4, 1))
        .await
        .broker_epoch;
    let r = c.broker_heartbeat(&heartbeat(4, epoch + 1, 5)).await;
    assert_eq!(r.error_code, ErrorCode::StaleBrokerEpoch.code());
    // Not caught up: stays fenced.
    let r = c.broker_heartbeat(&heartbeat(4, epoch, epoch - 1)).await;
    assert_eq!(
        (r.error_code, r.is_fenced, r.is_caught_up),
        (0, true, false)
    );
}

#[tokio::test]
async fn expired_sessions_are_fenced_and_shutdown_is_granted() {
    let (c, q) = setup(Duration::from_millis(200));
    let epoch = c
        .broker_registration(4, &registration(4, 1))
        .await
        .broker_epoch;
    let e5 = c
        .broker_registration(4, &registration(5, 2))
        .await
        .broker_epoch;
    assert!(
        !c.broker_heartbeat(&heartbeat(4, epoch, epoch))
            .await
            .is_fenced
    );
    assert!(!c.broker_heartbeat(&heartbeat(5, e5, e5)).await.is_fenced);
    assert_eq!(c.fence_stale_brokers().await, 0);
    // Broker 5 keeps heartbeating; broker 4 goes silent.
    for _ in 0..3 {
        tokio::time::sleep(Duration::from_millis(100)).await;
        c.broker_heartbeat(&heartbeat(5, e5, e5)).await;
    }
    assert_eq!(c.fence_stale_brokers().await, 1);
    assert!(c.image().read().cluster().broker(4).unwrap().fenced());
    assert!(!c.image().read().cluster().broker(5).unwrap().fenced());
    // Broker 5 leads nothing: its shutdown is granted at once, and fences it.
    let mut shut = heartbeat(5, e5, e5);
    shut.want_shut_down = true;
    let r = c.broker_heartbeat(&shut).await;
    assert_eq!((r.is_fenced, r.should_shut_down), (true, true));
    assert_eq!(
        change_records(&q),
        [(4, -1, 0), (5, -1, 0), (4, 1, 0), (5, 1, 0)]
    );
    // Unregistration removes it.
    let r = c
        .unregister_broker(&UnregisterBrokerRequest {
            broker_id: 5,
            ..Default::default()
        })
        .await;
    assert_eq!(r.error_code, 0);
    assert!(c.image().read().cluster().broker(5).is_none());
    let r = c
        .unregister_broker(&UnregisterBrokerRequest {
            broker_id: 5,
            ..Default::default()
        })
        .await;
    assert_eq!(r.error_code, ErrorCode::BrokerIdNotRegistered.code());
    assert_eq!(
        r.error_message.as_deref(),
        Some("Broker ID 5 is not currently registered")
    );
}

pub(super) fn envelope_of(
    api: ApiKey,
    body: &RequestBody,
    principal: Option<Vec<u8>>,
    addr: &[u8],
) -> EnvelopeRequest {
    envelope_at(api, 0, body, principal, addr)
}

/// [`envelope_of`] with the forwarded request at `version`.
pub(super) fn envelope_at(
    api: ApiKey,
    version: i16,
    body: &RequestBody,
    principal: Option<Vec<u8>>,
    addr: &[u8],
) -> EnvelopeRequest {
    let header = kraft_protocol::messages::request_header::RequestHeader {
        request_api_key: api.id(),
        request_api_version: version,
        correlation_id: 42,
        client_id: Some("adminclient-1".into()),
        ..Default::default()
    };
    let mut frame = Vec::new();
    kraft_protocol::header::encode_request_frame(&mut frame, &header, body).unwrap();
    EnvelopeRequest {
        request_data: Bytes::from(frame).slice(4..),
        request_principal: principal.map(Bytes::from),
        client_host_address: Bytes::copy_from_slice(addr),
        ..Default::default()
    }
}

/// User:alice as Kafka's DefaultKafkaPrincipalBuilder serializes it.
pub(super) fn alice() -> Vec<u8> {
    let mut p = vec![0, 0, 5];
    p.extend(b"User");
    p.push(6);
    p.extend(b"alice");
    p.extend([0, 0]);
    p
}

pub(super) fn server_context() -> crate::server::RequestContext {
    crate::server::RequestContext {
        header: Default::default(),
        api_key: ApiKey::Envelope,
        api_version: 0,
        listener_name: "CONTROLLER".into(),
        peer_addr: None,
        principal: kraft_protocol::acl::KafkaPrincipal::ANONYMOUS,
        forwarded: false,
        token_authenticated: false,
        security_protocol: crate::config::SecurityProtocol::Plaintext,
    }
}

#[tokio::test]
async fn envelopes_carry_forwarded_requests_and_their_answers() {
    let (c, _q) = setup(Duration::from_secs(9));
    c.broker_registration(4, &registration(4, 1)).await;
    let unregister = |id| {
        RequestBody::UnregisterBroker(UnregisterBrokerRequest {
            broker_id: id,
            ..Default::default()
        })
    };
    let ctx = server_context();
    // A forwarded UnregisterBroker of an unknown broker: the envelope
    // succeeds and carries the refusal, with the forwarded correlation id.
    let r = c
        .envelope(
            &super::Access::everything(),
            &ctx,
            envelope_of(
                ApiKey::UnregisterBroker,
                &unregister(9),
                Some(alice()),
                &[10, 0, 0, 7],
            ),
        )
        .await;
    assert_eq!(r.error_code, 0);
    let (corr, inner) = kraft_protocol::header::decode_response(
        r.response_data.clone().expect("data"),
        ApiKey::UnregisterBroker,
        0,
    )
    .unwrap();
    assert_eq!(corr, 42);
    let ResponseBody::UnregisterBroker(inner) = inner else {
        panic!("{inner:?}")
    };
    assert_eq!(inner.error_code, ErrorCode::BrokerIdNotRegistered.code());
    // And of broker 4: it is gone.
    let r = c
        .envelope(
            &super::Access::everything(),
            &ctx,
            envelope_of(
                ApiKey::UnregisterBroker,
                &unregister(4),
                Some(alice()),
                &[0; 16],
            ),
        )
        .await;
    assert_eq!(r.error_code, 0);
    assert!(c.image().read().cluster().broker(4).is_none());
    // Kafka's checks, in its order.
    let bad = |e: EnvelopeRequest| {
        let c = c.clone();
        let ctx = ctx.clone();
        async move {
            let r = c.envelope(&super::Access::everything(), &ctx, e).await;
            assert!(r.response_data.is_none());
            r.error_code
        }
    };
    let body = unregister(9);
    assert_eq!(
        bad(envelope_of(
            ApiKey::UnregisterBroker,
            &body,
            None,
            &[127, 0, 0, 1]
        ))
        .await,
        ErrorCode::PrincipalDeserializationFailure.code()
    );
    assert_eq!(
        bad(envelope_of(
            ApiKey::UnregisterBroker,
            &body,
            Some(alice()),
            &[1, 2, 3]
        ))
        .await,
        ErrorCode::InvalidRequest.code()
    );
    let heartbeat = RequestBody::BrokerHeartbeat(heartbeat(4, 1, 1));
    assert_eq!(
        bad(envelope_of(
            ApiKey::BrokerHeartbeat,
            &heartbeat,
            Some(alice()),
            &[127, 0, 0, 1]
        ))
        .await,
        ErrorCode::InvalidRequest.code(),
        "BrokerHeartbeat is not forwardable"
    );
    let mut garbled = envelope_of(
        ApiKey::UnregisterBroker,
        &body,
        Some(alice()),
        &[127, 0, 0, 1],
    );
    garbled.request_data = garbled.request_data.slice(..garbled.request_data.len() - 3);
    assert_eq!(bad(garbled).await, ErrorCode::UnsupportedVersion.code());
}
