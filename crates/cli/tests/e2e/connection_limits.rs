//! Kafka's connection limits on a real `kraft server`: a connection from an
//! address that already has `max.connections.per.ip` (here its override)
//! open is closed at once with Kafka's log line, and a listener at its
//! `listener.name.<l>.max.connections` serves a new connection only once
//! another one closes. An address over its `connection_creation_rate`
//! client quota (set with AlterClientQuotas) has its connection held
//! unread and closed after the throttle time, as Kafka's acceptor does.
//! The same node logs its writes' times as `controller.performance.*`
//! asks.

use std::net::{SocketAddr, TcpStream};
use std::time::Instant;

use kraft_protocol::messages::api_versions_request::ApiVersionsRequest;
use kraft_protocol::{RequestBody, ResponseBody};

use super::mutation_quota::set_client_quotas;
use super::*;

/// A connection to `addr` from the local address `from`.
fn connect_from(from: &str, addr: &str) -> TcpStream {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .build()
        .expect("runtime");
    let from: SocketAddr = format!("{from}:0").parse().expect("from");
    let to: SocketAddr = addr.parse().expect("to");
    let stream = runtime
        .block_on(async {
            let socket = tokio::net::TcpSocket::new_v4()?;
            socket.bind(from)?;
            socket.connect(to).await
        })
        .expect("connect");
    let stream = stream.into_std().expect("std stream");
    stream.set_nonblocking(false).expect("blocking");
    stream
}

fn connection(stream: TcpStream, read_timeout: Duration) -> Connection {
    stream
        .set_read_timeout(Some(read_timeout))
        .expect("read timeout");
    Connection {
        stream,
        correlation_id: 0,
    }
}

/// Whether an ApiVersions request on `conn` is answered.
fn answered(conn: &mut Connection) -> bool {
    let request = RequestBody::ApiVersions(ApiVersionsRequest {
        client_software_name: "kraft-e2e".into(),
        client_software_version: "1".into(),
        ..Default::default()
    });
    matches!(conn.send(3, &request), Some(ResponseBody::ApiVersions(v)) if v.error_code == 0)
}

#[test]
fn per_address_and_listener_limits_hold_as_in_kafka() {
    let mut c = Cluster::new("connection-limits", 3);
    let raw_port = free_port();
    let raw = format!("127.0.0.1:{raw_port}");
    c.write_props_with(
        1,
        &format!(
            "controller.listener.names=CONTROLLER,RAW\n\
             listeners=CONTROLLER://127.0.0.1:{port},RAW://127.0.0.1:{raw_port}\n\
             listener.security.protocol.map=CONTROLLER:PLAINTEXT,RAW:PLAINTEXT\n\
             max.connections.per.ip.overrides=127.0.0.2:2\n\
             listener.name.raw.max.connections=3\n\
             controller.performance.sample.period.ms=500\n\
             controller.performance.always.log.threshold.ms=0\n",
            port = c.ports[0],
        ),
    );
    let cluster_id = kraft_ok(&["storage", "random-uuid"]).trim().to_string();
    let directory_id = kraft_ok(&["storage", "random-uuid"]).trim().to_string();
    let initial = format!("1@127.0.0.1:{}:{directory_id}", c.ports[0]);
    format(&c, 1, &cluster_id, &["--initial-controllers", &initial]);
    c.server(1).start();

    // 127.0.0.2 may keep two connections open; the third is closed unanswered.
    let patience = Duration::from_secs(30);
    wait_for("the RAW listener is bound", patience, || {
        TcpStream::connect(&raw).ok().map(drop)
    });
    let mut first = connection(connect_from("127.0.0.2", &raw), patience);
    assert!(answered(&mut first), "{}", c.server_log(1));
    let mut second = connection(connect_from("127.0.0.2", &raw), patience);
    assert!(answered(&mut second));
    let mut third = connection(connect_from("127.0.0.2", &raw), patience);
    assert!(
        !answered(&mut third),
        "a third connection from 127.0.0.2 was served"
    );
    let line = "Rejected connection from /127.0.0.2, address already has the configured maximum of 2 connections.";
    wait_for("the rejection is logged", Duration::from_secs(10), || {
        c.server_log(1).contains(line).then_some(())
    });
    // Other addresses are not limited by 127.0.0.2's count: the third and
    // last RAW slot goes to 127.0.0.3.
    let mut other = connection(connect_from("127.0.0.3", &raw), patience);
    assert!(answered(&mut other));

    // RAW is at its three connections: a fourth waits, unanswered ...
    let mut waiting = connection(connect_from("127.0.0.4", &raw), Duration::from_secs(2));
    assert!(
        !answered(&mut waiting),
        "a connection past listener.name.raw.max.connections was served"
    );
    // ... while the CONTROLLER listener keeps serving.
    let mut controller = Connection::open(&c.controller(1));
    assert!(answered(&mut controller));
    // Once one RAW connection closes, the waiting one is served: its
    // request was read after all.
    drop(first);
    waiting
        .stream
        .set_read_timeout(Some(patience))
        .expect("read timeout");
    let mut size = [0u8; 4];
    std::io::Read::read_exact(&mut waiting.stream, &mut size)
        .expect("the waiting connection is answered once a slot is free");
    // And 127.0.0.2 has a free slot again.
    let mut again = connection(connect_from("127.0.0.2", &raw), patience);
    drop(second);
    assert!(answered(&mut again));

    // One connection a second for 127.0.0.5. Measured over Kafka's 11
    // windows of 1 s, at least 10 s: its first 10 connections are served,
    // the next one is throttled (1.1/s against 1: 1000 ms, one window).
    set_client_quotas(
        &c.controller(1),
        &[(
            &[("ip", Some("127.0.0.5"))],
            "connection_creation_rate",
            1.0,
        )],
    );
    // On the CONTROLLER listener: RAW is at its three connections.
    let ctl = c.controller(1);
    let mut served = 0;
    let throttled = loop {
        assert!(served <= 12, "127.0.0.5 was never throttled");
        let mut conn = connection(connect_from("127.0.0.5", &ctl), patience);
        let started = Instant::now();
        if !answered(&mut conn) {
            break started.elapsed();
        }
        served += 1;
    };
    assert!(served >= 8, "throttled after only {served} connections");
    // Held for the throttle time, then closed (not left open until the
    // read times out).
    assert!(
        throttled >= Duration::from_millis(700) && throttled < Duration::from_secs(10),
        "the throttled connection closed after {throttled:?}"
    );
    // Other addresses have no quota.
    let mut unlimited = connection(connect_from("127.0.0.6", &ctl), patience);
    assert!(answered(&mut unlimited));

    // controller.performance.*: at a 0 ms threshold every write is logged
    // at once, and the active controller sums its writes up every 500 ms.
    wait_for("the performance lines are logged", patience, || {
        let log = c.server_log(1);
        (log.contains("Exceptionally slow controller event alterClientQuotas took ")
            && log.contains(" controller events were completed, which took an average of ")
            && log.contains("In the last 500 ms period, "))
        .then_some(())
    });
}
