//! SASL sessions on real `kraft server` processes: re-authentication
//! (KIP-368) with a short `connections.max.reauth.ms`, SaslHandshake v0's
//! raw tokens, and a flood of connections that stall in the middle of their
//! TLS or SASL handshake while the quorum keeps its leader and commits.

use std::io::{Read, Write};
use std::time::Instant;

use super::secure::{authenticate, client_file, handshake, send, Pki, PLAIN_MODULE, SCRAM_MODULE};
use super::*;

use kraft_protocol::messages::alter_user_scram_credentials_request::{
    AlterUserScramCredentialsRequest, ScramCredentialUpsertion,
};
use kraft_protocol::messages::describe_cluster_request::DescribeClusterRequest;
use kraft_protocol::{RequestBody, ResponseBody};

/// The session lifetime every listener gives (`connections.max.reauth.ms`).
const LIFETIME_MS: i64 = 3000;
/// `connections.max.idle.ms`: how long a connection may take to authenticate.
const IDLE_MS: u64 = 8000;
/// The close delay after a failed authentication.
const FAILED_AUTH_DELAY_MS: u64 = 400;

/// `describe --status --output json` against controller `via` as `client`.
fn status_with(c: &Cluster, via: usize, client: &str) -> Option<Value> {
    let path = client_file(c, client);
    let (code, out, _) = kraft(&[
        "metadata-quorum",
        "--bootstrap-controller",
        &c.controller(via),
        "--command-config",
        path.to_str().unwrap_or_default(),
        "describe",
        "--status",
        "--output",
        "json",
    ]);
    if code != 0 {
        return None;
    }
    serde_json::from_str(&out).ok()
}

fn describe_cluster() -> RequestBody {
    RequestBody::DescribeCluster(DescribeClusterRequest {
        endpoint_type: 2,
        ..Default::default()
    })
}

/// Whether a request on `conn` is answered.
fn served(conn: &mut Connection) -> bool {
    matches!(
        send(conn, 1, describe_cluster()),
        Some(ResponseBody::DescribeCluster(d)) if d.error_code == 0
    )
}

/// SaslHandshake v1 and SaslAuthenticate v2 with a PLAIN token: the
/// answer's error code, message and session lifetime.
fn plain_login(conn: &mut Connection, user: &str, password: &str) -> (i16, String, i64) {
    let Some(ResponseBody::SaslHandshake(h)) = send(conn, 1, handshake("PLAIN")) else {
        panic!("no answer to SaslHandshake PLAIN")
    };
    assert_eq!(h.error_code, 0);
    let token = format!("\0{user}\0{password}");
    let Some(ResponseBody::SaslAuthenticate(r)) = send(conn, 2, authenticate(token.as_bytes()))
    else {
        panic!("no answer to SaslAuthenticate as {user}")
    };
    (
        r.error_code,
        r.error_message.map(|m| m.to_string()).unwrap_or_default(),
        r.session_lifetime_ms,
    )
}

/// Writes one raw size-prefixed SASL token (SaslHandshake v0) and reads the
/// raw answer; `None` when the server closed the connection instead.
fn raw_token(conn: &mut Connection, token: &[u8]) -> Option<Vec<u8>> {
    let size = i32::try_from(token.len()).expect("small token");
    conn.stream.write_all(&size.to_be_bytes()).ok()?;
    conn.stream.write_all(token).ok()?;
    let mut size = [0u8; 4];
    conn.stream.read_exact(&mut size).ok()?;
    let mut answer = vec![0u8; usize::try_from(i32::from_be_bytes(size)).ok()?];
    conn.stream.read_exact(&mut answer).ok()?;
    Some(answer)
}

/// Whether the server closed `conn` (a read ends without data).
fn closed(conn: &mut Connection) -> bool {
    let mut buf = [0u8; 64];
    matches!(conn.stream.read(&mut buf), Ok(0) | Err(_))
}

/// The controller's resident set size in KiB.
fn rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("proc status");
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmRSS")
}

/// Makes sure process `pid` may open `need` files, raising its soft limit
/// with `prlimit` when it is lower.
fn ensure_open_files(pid: u32, need: u64) {
    let limits = std::fs::read_to_string(format!("/proc/{pid}/limits")).expect("proc limits");
    let line = limits
        .lines()
        .find(|l| l.starts_with("Max open files"))
        .expect("a Max open files line");
    let fields: Vec<&str> = line.split_whitespace().collect();
    let soft = fields
        .get(3)
        .and_then(|v| v.parse::<u64>().ok())
        .unwrap_or(u64::MAX);
    if soft >= need {
        return;
    }
    let hard = fields.get(4).copied().unwrap_or("unlimited");
    let status = Command::new("prlimit")
        .arg(format!("--pid={pid}"))
        .arg(format!("--nofile={need}:{hard}"))
        .status();
    assert!(
        status.is_ok_and(|s| s.success()),
        "process {pid} may open {soft} files, {need} are needed, and prlimit could not raise it"
    );
}

/// One commit through the active controller: an AlterUserScramCredentials
/// upsert (answered once committed) on a fresh authenticated connection;
/// returns how long the request took.
fn commit_latency(addr: &str, n: usize) -> Duration {
    let mut conn = Connection::open(addr);
    let (code, message, _) = plain_login(&mut conn, "admin", "admin-secret");
    assert_eq!(code, 0, "{message}");
    let upsert = RequestBody::AlterUserScramCredentials(AlterUserScramCredentialsRequest {
        upsertions: vec![ScramCredentialUpsertion {
            name: format!("probe-{n}").as_str().into(),
            mechanism: 1,
            iterations: 4096,
            salt: bytes::Bytes::from_static(b"kraft-rs-probe-salt"),
            salted_password: bytes::Bytes::from(vec![7u8; 32]),
            ..Default::default()
        }]
        .into(),
        ..Default::default()
    });
    let started = Instant::now();
    let Some(ResponseBody::AlterUserScramCredentials(r)) = send(&mut conn, 0, upsert) else {
        panic!("no answer to AlterUserScramCredentials")
    };
    let took = started.elapsed();
    assert!(r.results.iter().all(|x| x.error_code == 0), "{r:?}");
    took
}

fn p50(mut samples: Vec<Duration>) -> Duration {
    samples.sort_unstable();
    samples[samples.len() / 2]
}

/// What a stalled client holds open.
enum Stalled {
    /// Connected, sent nothing.
    Tcp(tokio::net::TcpStream),
    /// Sent the first bytes of a TLS ClientHello.
    PartialHello(tokio::net::TcpStream),
    /// Finished TLS, sent SaslHandshake, then nothing.
    AfterHandshake(kraft_security::stream::KafkaStream),
}

#[test]
fn reauthentication_v0_tokens_and_stalled_handshakes_on_a_secured_quorum() {
    let mut c = Cluster::new("sasl-sessions", 3);
    let pki = Pki::new(c.dir.join("pki"));
    let stores: Vec<PathBuf> = (1..=3)
        .map(|id| {
            pki.issue(&format!("controller-{id}"), &format!("controller-{id}"))
                .0
        })
        .collect();
    let raw_ports: Vec<u16> = (0..3).map(|_| free_port()).collect();
    let cluster_id = kraft_ok(&["storage", "random-uuid"]).trim().to_string();
    let initial = initial_controllers(&c);
    for id in 1..=3 {
        // Every session, the controllers' own among them, lasts 3 s.
        let extra = format!(
            "controller.listener.names=CONTROLLER,RAW\n\
             listeners=CONTROLLER://127.0.0.1:{port},RAW://127.0.0.1:{raw}\n\
             listener.security.protocol.map=CONTROLLER:SASL_SSL,RAW:SASL_PLAINTEXT\n\
             ssl.keystore.type=PEM\nssl.keystore.location={store}\n\
             ssl.truststore.type=PEM\nssl.truststore.location={ca}\n\
             connections.max.reauth.ms={LIFETIME_MS}\n\
             connections.max.idle.ms={IDLE_MS}\n\
             connection.failed.authentication.delay.ms={FAILED_AUTH_DELAY_MS}\n\
             sasl.enabled.mechanisms=PLAIN\n\
             sasl.mechanism.controller.protocol=PLAIN\n\
             listener.name.controller.plain.sasl.jaas.config={PLAIN_MODULE} required \
             username=\"controller\" password=\"ctl-secret\" user_controller=\"ctl-secret\" \
             user_admin=\"admin-secret\";\n\
             listener.name.raw.sasl.enabled.mechanisms=PLAIN,SCRAM-SHA-256\n\
             listener.name.raw.plain.sasl.jaas.config={PLAIN_MODULE} required \
             user_admin=\"admin-secret\" user_bob=\"bob-secret\";\n\
             listener.name.raw.scram-sha-256.sasl.jaas.config={SCRAM_MODULE} required;\n",
            port = c.ports[id - 1],
            raw = raw_ports[id - 1],
            store = stores[id - 1].display(),
            ca = pki.ca().display(),
        );
        c.write_props_with(id, &extra);
        format(&c, id, &cluster_id, &["--initial-controllers", &initial]);
        c.server(id).start();
    }
    let admin = format!(
        "security.protocol=SASL_SSL\nssl.truststore.type=PEM\nssl.truststore.location={}\n\
         sasl.mechanism=PLAIN\nsasl.jaas.config={PLAIN_MODULE} required username=\"admin\" \
         password=\"admin-secret\";\n",
        pki.ca().display()
    );
    let first = wait_for(
        "a leader whose controllers' sessions last 3 s",
        Duration::from_secs(90),
        || {
            status_with(&c, 1, &admin).filter(|s| {
                s["leaderId"].as_i64().is_some_and(|l| l > 0)
                    && ids(s, "committedVoters") == [1, 2, 3]
            })
        },
    );
    let watched_since = Instant::now();
    let leader = first["leaderId"].as_i64().unwrap_or(0);
    let epoch = first["leaderEpoch"].as_i64().unwrap_or(-1);
    let leader_index = usize::try_from(leader).expect("a positive leader id");
    let raw = format!("127.0.0.1:{}", raw_ports[0]);

    // 1. KIP-368: the lifetime is announced; re-authenticating on the same
    //    connection keeps it served.
    let mut kept = Connection::open(&raw);
    assert_eq!(
        plain_login(&mut kept, "admin", "admin-secret"),
        (0, String::new(), LIFETIME_MS)
    );
    assert!(served(&mut kept));
    let mut late = Connection::open(&raw);
    assert_eq!(plain_login(&mut late, "admin", "admin-secret").0, 0);
    assert_eq!(
        plain_login(&mut kept, "admin", "admin-secret"),
        (0, String::new(), LIFETIME_MS),
        "re-authentication"
    );
    assert!(served(&mut kept), "served after re-authenticating");

    // A different principal: refused with Kafka's text, then closed.
    let mut other = Connection::open(&raw);
    assert_eq!(plain_login(&mut other, "admin", "admin-secret").0, 0);
    let (code, message, _) = plain_login(&mut other, "bob", "bob-secret");
    assert_eq!(code, 58, "SASL_AUTHENTICATION_FAILED");
    assert_eq!(
        message,
        "Cannot change principals during re-authentication from User.admin: User.bob"
    );
    assert!(!served(&mut other));

    // connection.failed.authentication.delay.ms: a wrong password is
    // answered at once, and the connection closed only after the delay.
    let mut wrong = Connection::open(&raw);
    let (code, _, _) = plain_login(&mut wrong, "admin", "not-the-password");
    let answered = Instant::now();
    assert_eq!(code, 58, "SASL_AUTHENTICATION_FAILED");
    assert!(closed(&mut wrong));
    let held = answered.elapsed();
    assert!(
        held >= Duration::from_millis(FAILED_AUTH_DELAY_MS - 50),
        "closed {held:?} after the failure, before the delay"
    );

    // A different mechanism: the handshake is answered, its first token
    // closes the connection.
    let mut switch = Connection::open(&raw);
    assert_eq!(plain_login(&mut switch, "admin", "admin-secret").0, 0);
    let Some(ResponseBody::SaslHandshake(h)) = send(&mut switch, 1, handshake("SCRAM-SHA-256"))
    else {
        panic!("no answer to a re-authentication with another mechanism")
    };
    assert_eq!(h.error_code, 0);
    assert!(send(&mut switch, 2, authenticate(b"n,,n=admin,r=abcdefgh")).is_none());
    wait_for(
        "the refused mechanism change logged with Kafka's text",
        Duration::from_secs(10),
        || {
            c.server_log(1)
                .contains(
                    "SASL mechanism 'SCRAM-SHA-256' requested by client is not supported for \
                     re-authentication of mechanism 'PLAIN'",
                )
                .then_some(())
        },
    );

    // 2. SaslHandshake v0: raw size-prefixed tokens, no SaslAuthenticate.
    let mut v0 = Connection::open(&raw);
    let Some(ResponseBody::SaslHandshake(h)) = send(&mut v0, 0, handshake("PLAIN")) else {
        panic!("no answer to SaslHandshake v0")
    };
    assert_eq!(h.error_code, 0);
    assert_eq!(
        raw_token(&mut v0, b"\0admin\0admin-secret"),
        Some(Vec::new()),
        "PLAIN's empty final answer, size-prefixed"
    );
    assert!(served(&mut v0), "a request after a v0 login");
    let mut v0 = Connection::open(&raw);
    send(&mut v0, 0, handshake("PLAIN")).expect("SaslHandshake v0");
    assert_eq!(raw_token(&mut v0, b"\0admin\0not-it"), None);
    assert!(closed(&mut v0));

    // 3. After the lifetime: a request closes the connection; a
    //    re-authentication is still accepted.
    std::thread::sleep(Duration::from_millis(LIFETIME_MS as u64 + 500));
    assert!(!served(&mut kept), "a request after the session expired");
    assert_eq!(
        plain_login(&mut late, "admin", "admin-secret"),
        (0, String::new(), LIFETIME_MS)
    );
    assert!(served(&mut late));

    // 4. A thousand connections stall mid-handshake on the leader's
    //    SASL_SSL listener while commits go on.
    let leader_raw = format!("127.0.0.1:{}", raw_ports[leader_index - 1]);
    let before: Vec<Duration> = (0..15).map(|n| commit_latency(&leader_raw, n)).collect();
    let leader_pid = c.servers[leader_index - 1].pid().expect("the leader runs");
    ensure_open_files(std::process::id(), 2500);
    ensure_open_files(leader_pid, 2500);
    let rss_before = rss_kib(leader_pid);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("runtime");
    let port = c.ports[leader_index - 1];
    let tls_client = {
        let text = format!(
            "security.protocol=SSL\nssl.truststore.type=PEM\nssl.truststore.location={}\n",
            pki.ca().display()
        );
        let props = kraft_protocol::text::Properties::parse(&text).expect("client properties");
        let get = |k: &str| props.get(k).map(str::to_string);
        kraft_security::client::ClientSecurity::from_kafka(&get).expect("TLS client")
    };
    let opened_at = Instant::now();
    let mut stalled: Vec<Stalled> = rt.block_on(async {
        use tokio::io::AsyncWriteExt;
        let mut out = Vec::with_capacity(1000);
        for i in 0..1000 {
            let entry = match i % 3 {
                0 => Stalled::Tcp(
                    tokio::net::TcpStream::connect(("127.0.0.1", port))
                        .await
                        .expect("connect"),
                ),
                1 => {
                    let mut s = tokio::net::TcpStream::connect(("127.0.0.1", port))
                        .await
                        .expect("connect");
                    // A handshake record announcing 512 bytes, 6 of them sent.
                    s.write_all(&[
                        0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xfc, 0x03, 0x03,
                    ])
                    .await
                    .expect("partial hello");
                    Stalled::PartialHello(s)
                }
                _ => {
                    let mut conn =
                        kraft_security::client::connect("127.0.0.1", port, &tls_client, "stall")
                            .await
                            .expect("TLS");
                    let mut frame = Vec::new();
                    let header = kraft_protocol::messages::request_header::RequestHeader {
                        request_api_key: kraft_protocol::ApiKey::SaslHandshake.id(),
                        request_api_version: 1,
                        correlation_id: 1,
                        client_id: Some("stall".into()),
                        ..Default::default()
                    };
                    kraft_protocol::header::encode_request_frame(
                        &mut frame,
                        &header,
                        &handshake("PLAIN"),
                    )
                    .expect("encode");
                    conn.stream.write_all(&frame).await.expect("SaslHandshake");
                    Stalled::AfterHandshake(conn.stream)
                }
            };
            out.push(entry);
        }
        out
    });
    let all_open = opened_at.elapsed();
    let during: Vec<Duration> = (15..30).map(|n| commit_latency(&leader_raw, n)).collect();
    let rss_during = rss_kib(leader_pid);
    assert!(
        all_open + Duration::from_secs(1) < Duration::from_millis(IDLE_MS),
        "opening the connections took {all_open:?}: too slow for the check to mean anything"
    );
    let (before_p50, during_p50) = (p50(before), p50(during));
    // Twice the quiet median, with 5 ms for timer and scheduling noise on
    // a loaded 2-core machine.
    assert!(
        during_p50 <= before_p50 * 2 + Duration::from_millis(5),
        "commit latency p50 {before_p50:?} before, {during_p50:?} with 1000 stalled handshakes"
    );

    // The controller closes every stalled connection after the
    // authentication timeout (connections.max.idle.ms here).
    let deadline = tokio::time::Instant::now() + Duration::from_millis(IDLE_MS + 15_000);
    let still_open = rt.block_on(async {
        use tokio::io::AsyncReadExt;
        let mut open = 0;
        for s in &mut stalled {
            let mut buf = [0u8; 256];
            loop {
                let read = match s {
                    Stalled::Tcp(t) | Stalled::PartialHello(t) => {
                        tokio::time::timeout_at(deadline, t.read(&mut buf)).await
                    }
                    Stalled::AfterHandshake(k) => {
                        tokio::time::timeout_at(deadline, k.read(&mut buf)).await
                    }
                };
                match read {
                    // The SaslHandshake answer, or TLS records: read on.
                    Ok(Ok(n)) if n > 0 => continue,
                    Ok(_) => break,
                    Err(_) => {
                        open += 1;
                        break;
                    }
                }
            }
        }
        open
    });
    let closed_after = opened_at.elapsed();
    assert_eq!(still_open, 0, "stalled connections left open");
    assert!(
        closed_after >= Duration::from_millis(IDLE_MS),
        "closed after {closed_after:?}, before the authentication timeout"
    );
    drop(stalled);
    drop(rt);
    std::thread::sleep(Duration::from_millis(500));
    let rss_after = rss_kib(leader_pid);
    // A stalled connection costs the controller a task, a read buffer and
    // at most a TLS session: far less than 128 KiB.
    assert!(
        rss_during.saturating_sub(rss_before) < 1000 * 128,
        "RSS {rss_before} KiB before, {rss_during} KiB with 1000 stalled connections"
    );
    assert!(
        rss_after <= rss_during + 16 * 1024,
        "RSS {rss_during} KiB with the stalled connections, {rss_after} KiB after they closed"
    );
    let log = c.server_log(leader_index);
    assert!(
        log.contains("SASL authentication did not complete within")
            && log.contains("the SSL handshake did not complete within"),
        "the leader logs why it closed the stalled connections"
    );

    // 5. Through all of it the leader stayed, at the same epoch, and commits.
    let elapsed = watched_since.elapsed();
    assert!(
        elapsed > Duration::from_millis(3 * LIFETIME_MS as u64),
        "the quorum was watched for {elapsed:?}, less than three session lifetimes"
    );
    let last = wait_for("a status", Duration::from_secs(30), || {
        status_with(&c, 1, &admin)
    });
    assert_eq!(last["leaderId"].as_i64(), Some(leader), "{last}");
    assert_eq!(last["leaderEpoch"].as_i64(), Some(epoch), "{last}");
    assert!(
        last["highWatermark"].as_i64() > first["highWatermark"].as_i64(),
        "{first}\n{last}"
    );
    for id in 1..=3 {
        assert!(
            !c.server_log(id).contains("ctl-secret") && !c.server_log(id).contains("admin-secret"),
            "a password in controller {id}'s log"
        );
    }
}
