//! A fake broker's registration (BrokerRegistration v4 as a Java 4.4 broker
//! fills it) and unregistration, on the active controller.

use std::time::{Duration, Instant};

use kraft_controller::java::{random_directory_id, random_uuid};
use kraft_protocol::features::supported_features;
use kraft_protocol::messages::broker_registration_request::{
    BrokerRegistrationRequest, Feature, Listener,
};
use kraft_protocol::messages::broker_registration_response::BrokerRegistrationResponse;
use kraft_protocol::messages::unregister_broker_request::UnregisterBrokerRequest;
use kraft_protocol::messages::unregister_broker_response::UnregisterBrokerResponse;
use kraft_protocol::{ApiKey, ErrorCode, StrBytes};

use crate::args::Args;
use crate::conn::Conn;
use crate::Result;

/// BrokerRegistration version a Java 4.4 broker sends.
pub(crate) const REGISTRATION_VERSION: i16 = 4;
/// BrokerHeartbeat version a Java 4.4 broker sends.
pub(crate) const HEARTBEAT_VERSION: i16 = 2;
/// UnregisterBroker version Kafka's admin client sends.
pub(crate) const UNREGISTER_VERSION: i16 = 0;

/// What a fake broker registered as.
pub(crate) struct Registered {
    pub(crate) id: i32,
    pub(crate) epoch: i64,
}

/// BrokerRegistration v4 with the fields a Java 4.4 broker fills in.
pub(crate) fn registration(
    args: &Args,
    id: i32,
    index: usize,
    log_dir: kraft_protocol::Uuid,
) -> BrokerRegistrationRequest {
    let features: Vec<Feature> = supported_features(false)
        .into_iter()
        .map(|(name, range)| Feature {
            name: StrBytes::from_static(name),
            min_supported_version: range.min,
            max_supported_version: range.max,
            ..Default::default()
        })
        .collect();
    BrokerRegistrationRequest {
        broker_id: id,
        cluster_id: StrBytes::from(args.cluster_id.as_str()),
        incarnation_id: random_uuid(),
        listeners: vec![Listener {
            name: StrBytes::from_static("PLAINTEXT"),
            host: StrBytes::from_static("127.0.0.1"),
            // Nothing listens there: controllers never connect to brokers.
            port: 40000u16.saturating_add(u16::try_from(index).unwrap_or(u16::MAX - 40000)),
            security_protocol: 0,
            ..Default::default()
        }]
        .into(),
        features: features.into(),
        rack: None,
        is_migrating_zk_broker: false,
        log_dirs: vec![log_dir],
        previous_broker_epoch: -1,
        ..Default::default()
    }
}

/// Registers broker `id` on `conn`; `Ok(None)` when that controller is not
/// the active one.
pub(crate) async fn register(
    conn: &mut Conn,
    args: &Args,
    id: i32,
    index: usize,
) -> Result<Option<Registered>> {
    let request = registration(args, id, index, random_directory_id());
    let (response, _): (BrokerRegistrationResponse, _) = conn
        .call(ApiKey::BrokerRegistration, REGISTRATION_VERSION, &request)
        .await?;
    match ErrorCode::from_code(response.error_code) {
        ErrorCode::None => Ok(Some(Registered {
            id,
            epoch: response.broker_epoch,
        })),
        ErrorCode::NotController => Ok(None),
        other => Err(format!(
            "{}: registration of broker {id} refused: {}",
            conn.address,
            other.name()
        )),
    }
}

/// Finds the active controller by registering broker `id` with each
/// bootstrap server in turn (NOT_CONTROLLER: try the next), for up to 30 s.
pub(crate) async fn first_registration(args: &Args, id: i32) -> Result<(Conn, Registered)> {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        for address in &args.bootstrap {
            let client_id = format!("broker-{id}-heartbeat");
            let mut conn = match Conn::connect(address, &client_id).await {
                Ok(c) => c,
                Err(e) => {
                    eprintln!("broker_load: {e}");
                    continue;
                }
            };
            if let Some(r) = register(&mut conn, args, id, 0).await? {
                return Ok((conn, r));
            }
        }
        if Instant::now() > deadline {
            return Err("no controller accepted a registration within 30 s".into());
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}

pub(crate) async fn unregister(conn: &mut Conn, id: i32) -> Result<()> {
    let request = UnregisterBrokerRequest {
        broker_id: id,
        ..Default::default()
    };
    let (response, _): (UnregisterBrokerResponse, _) = conn
        .call(ApiKey::UnregisterBroker, UNREGISTER_VERSION, &request)
        .await?;
    match ErrorCode::from_code(response.error_code) {
        ErrorCode::None | ErrorCode::BrokerIdNotRegistered => Ok(()),
        other => Err(format!("unregister broker {id}: {}", other.name())),
    }
}

/// Unregisters `ids` through the active controller: the first bootstrap
/// server that does not answer NOT_CONTROLLER, for up to 30 s.
pub(crate) async fn unregister_only(args: &Args) -> Result<()> {
    let Some(&first) = args.unregister.first() else {
        return Ok(());
    };
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        for address in &args.bootstrap {
            let mut conn = match Conn::connect(address, "broker-load-admin").await {
                Ok(c) => c,
                Err(e) => {
                    eprintln!("broker_load: {e}");
                    continue;
                }
            };
            let request = UnregisterBrokerRequest {
                broker_id: first,
                ..Default::default()
            };
            let (response, _): (UnregisterBrokerResponse, _) = conn
                .call(ApiKey::UnregisterBroker, UNREGISTER_VERSION, &request)
                .await?;
            match ErrorCode::from_code(response.error_code) {
                ErrorCode::NotController => continue,
                ErrorCode::None | ErrorCode::BrokerIdNotRegistered => {}
                other => return Err(format!("unregister broker {first}: {}", other.name())),
            }
            for id in &args.unregister[1..] {
                unregister(&mut conn, *id).await?;
            }
            println!(
                "unregistered count={} errors=0 leader={address}",
                args.unregister.len()
            );
            return Ok(());
        }
        if Instant::now() > deadline {
            return Err("no controller took an UnregisterBroker within 30 s".into());
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}
