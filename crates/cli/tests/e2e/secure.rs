//! TLS and SASL with real `kraft server` processes: a quorum whose
//! controller listener is SASL_SSL (the controllers authenticate to each
//! other with PLAIN over TLS), the `kraft` CLI with a secured
//! `--command-config`, SCRAM logins against credentials written in the
//! metadata log, mutual TLS with mapped certificate subjects seen by the
//! authorizer, certificate reloading, and hostile or mistaken clients.

use super::*;

use kraft_protocol::messages::api_versions_request::ApiVersionsRequest;
use kraft_protocol::messages::describe_cluster_request::DescribeClusterRequest;
use kraft_protocol::messages::sasl_authenticate_request::SaslAuthenticateRequest;
use kraft_protocol::messages::sasl_handshake_request::SaslHandshakeRequest;
use kraft_protocol::{RequestBody, ResponseBody};

/// A test CA and certificates signed by it, written as PEM files.
pub(super) struct Pki {
    pub(super) dir: PathBuf,
    ca_cert: rcgen::Certificate,
    ca_key: rcgen::KeyPair,
}

impl Pki {
    pub(super) fn new(dir: PathBuf) -> Pki {
        std::fs::create_dir_all(&dir).expect("pki dir");
        let mut params = rcgen::CertificateParams::new(Vec::<String>::new()).expect("ca params");
        params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
        params
            .distinguished_name
            .push(rcgen::DnType::CommonName, "kraft-rs test CA");
        let ca_key = rcgen::KeyPair::generate().expect("ca key");
        let ca_cert = params.self_signed(&ca_key).expect("ca cert");
        std::fs::write(dir.join("ca.pem"), ca_cert.pem()).expect("write ca");
        Pki {
            dir,
            ca_cert,
            ca_key,
        }
    }

    pub(super) fn ca(&self) -> PathBuf {
        self.dir.join("ca.pem")
    }

    /// Writes `<name>.pem` (PKCS#8 key then certificate, a PEM key store)
    /// and `<name>.crt` / `<name>.key`, for subject `CN=<cn>,O=kraft-rs`
    /// valid for localhost and 127.0.0.1; returns the key store path and
    /// the certificate (DER).
    pub(super) fn issue(&self, name: &str, cn: &str) -> (PathBuf, Vec<u8>) {
        let mut params =
            rcgen::CertificateParams::new(vec!["localhost".to_string(), "127.0.0.1".to_string()])
                .expect("params");
        // rcgen writes these as CN then O; Java's X500Principal.getName()
        // (and so Kafka's principal builder) prints `O=kraft-rs,CN=<cn>`.
        params
            .distinguished_name
            .push(rcgen::DnType::OrganizationName, "kraft-rs");
        params
            .distinguished_name
            .push(rcgen::DnType::CommonName, cn);
        let key = rcgen::KeyPair::generate().expect("key");
        let cert = params
            .signed_by(&key, &self.ca_cert, &self.ca_key)
            .expect("sign");
        std::fs::write(self.dir.join(format!("{name}.crt")), cert.pem()).expect("crt");
        std::fs::write(self.dir.join(format!("{name}.key")), key.serialize_pem()).expect("key");
        let store = self.dir.join(format!("{name}.pem"));
        std::fs::write(&store, format!("{}{}", key.serialize_pem(), cert.pem())).expect("pem");
        (store, cert.der().to_vec())
    }
}

/// A fresh client properties file: `client` plus short timeouts.
pub(super) fn client_file(c: &Cluster, client: &str) -> PathBuf {
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let path = c.dir.join(format!("client-{n}.properties"));
    std::fs::write(
        &path,
        format!("default.api.timeout.ms=8000\nrequest.timeout.ms=3000\n{client}"),
    )
    .expect("client props");
    path
}

/// The kraft CLI against controller `via` with the client properties in
/// `client` (plus short timeouts).
pub(super) fn describe_with(c: &Cluster, via: usize, client: &str) -> (i32, String, String) {
    let path = client_file(c, client);
    kraft(&[
        "metadata-quorum",
        "--bootstrap-controller",
        &c.controller(via),
        "--command-config",
        path.to_str().unwrap_or_default(),
        "describe",
        "--status",
    ])
}

pub(super) const PLAIN_MODULE: &str = "org.apache.kafka.common.security.plain.PlainLoginModule";
pub(super) const SCRAM_MODULE: &str = "org.apache.kafka.common.security.scram.ScramLoginModule";

pub(super) fn sasl_ssl_client(pki: &Pki, mechanism: &str, user: &str, password: &str) -> String {
    let module = if mechanism == "PLAIN" {
        PLAIN_MODULE
    } else {
        SCRAM_MODULE
    };
    format!(
        "security.protocol=SASL_SSL\nssl.truststore.type=PEM\nssl.truststore.location={}\n\
         sasl.mechanism={mechanism}\nsasl.jaas.config={module} required username=\"{user}\" \
         password=\"{password}\";\n",
        pki.ca().display()
    )
}

/// One raw connection's exchange: `(version, request)` answered, or `None`
/// when the server closed the connection.
pub(super) fn send(
    conn: &mut Connection,
    version: i16,
    request: RequestBody,
) -> Option<ResponseBody> {
    conn.send(version, &request)
}

pub(super) fn handshake(mechanism: &str) -> RequestBody {
    RequestBody::SaslHandshake(SaslHandshakeRequest {
        mechanism: mechanism.into(),
    })
}

pub(super) fn authenticate(token: &[u8]) -> RequestBody {
    RequestBody::SaslAuthenticate(SaslAuthenticateRequest {
        auth_bytes: bytes::Bytes::copy_from_slice(token),
        ..Default::default()
    })
}

/// AlterUserScramCredentials upserting `user`'s credential for `mechanism`
/// (1: SCRAM-SHA-256, 2: SCRAM-SHA-512) from `password` and `salt`, 4096
/// iterations, salted as the client does it (RFC 5802 Hi).
pub(super) fn scram_upsert(user: &str, mechanism: i8, password: &str, salt: &[u8]) -> RequestBody {
    use kraft_protocol::messages::alter_user_scram_credentials_request::{
        AlterUserScramCredentialsRequest, ScramCredentialUpsertion,
    };
    let salted = if mechanism == 2 {
        let mut out = [0u8; 64];
        pbkdf2::pbkdf2_hmac::<sha2::Sha512>(password.as_bytes(), salt, 4096, &mut out);
        out.to_vec()
    } else {
        let mut out = [0u8; 32];
        pbkdf2::pbkdf2_hmac::<sha2::Sha256>(password.as_bytes(), salt, 4096, &mut out);
        out.to_vec()
    };
    RequestBody::AlterUserScramCredentials(AlterUserScramCredentialsRequest {
        upsertions: vec![ScramCredentialUpsertion {
            name: user.into(),
            mechanism,
            iterations: 4096,
            salt: bytes::Bytes::copy_from_slice(salt),
            salted_password: bytes::Bytes::from(salted),
            ..Default::default()
        }]
        .into(),
        ..Default::default()
    })
}

#[test]
fn a_sasl_ssl_quorum_serves_the_cli_and_refuses_what_kafka_refuses() {
    let mut c = Cluster::new("secure-sasl-ssl", 3);
    let pki = Pki::new(c.dir.join("pki"));
    let stores: Vec<PathBuf> = (1..=3)
        .map(|id| {
            pki.issue(&format!("controller-{id}"), &format!("controller-{id}"))
                .0
        })
        .collect();
    // A second controller listener, SASL_PLAINTEXT, for raw protocol checks.
    let raw_ports: Vec<u16> = (0..3).map(|_| free_port()).collect();
    let cluster_id = kraft_ok(&["storage", "random-uuid"]).trim().to_string();
    let ports = c.ports.clone();
    let extra = |id: usize| {
        format!(
            "controller.listener.names=CONTROLLER,RAW\n\
             listeners=CONTROLLER://127.0.0.1:{port},RAW://127.0.0.1:{raw}\n\
             listener.security.protocol.map=CONTROLLER:SASL_SSL,RAW:SASL_PLAINTEXT\n\
             ssl.keystore.type=PEM\nssl.keystore.location={store}\n\
             ssl.truststore.type=PEM\nssl.truststore.location={ca}\n\
             sasl.enabled.mechanisms=PLAIN,SCRAM-SHA-256\n\
             sasl.mechanism.controller.protocol=PLAIN\n\
             listener.name.controller.plain.sasl.jaas.config={PLAIN_MODULE} required \
             username=\"controller\" password=\"ctl-secret\" user_controller=\"ctl-secret\" \
             user_admin=\"admin-secret\";\n\
             listener.name.controller.scram-sha-256.sasl.jaas.config={SCRAM_MODULE} required;\n\
             listener.name.raw.sasl.enabled.mechanisms=PLAIN,SCRAM-SHA-256\n\
             listener.name.raw.plain.sasl.jaas.config={PLAIN_MODULE} required \
             user_admin=\"admin-secret\";\n\
             listener.name.raw.scram-sha-256.sasl.jaas.config={SCRAM_MODULE} required;\n",
            port = ports[id - 1],
            raw = raw_ports[id - 1],
            store = stores[id - 1].display(),
            ca = pki.ca().display(),
        )
    };
    format_and_start_three(
        &mut c,
        &cluster_id,
        extra,
        &["--release-version", "4.4-IV2"],
    );
    let admin = sasl_ssl_client(&pki, "PLAIN", "admin", "admin-secret");
    // The controllers reach each other only over TLS with PLAIN: a leader
    // with three voters proves their own connections are secured.
    let leader = wait_for("a leader over SASL_SSL", Duration::from_secs(90), || {
        let (code, out, _) = describe_with(&c, 1, &admin);
        (code == 0 && out.contains("CurrentVoters:") && out.matches("\"id\"").count() >= 3)
            .then(|| {
                out.lines()
                    .find_map(|l| l.strip_prefix("LeaderId:"))
                    .and_then(|v| v.trim().parse::<usize>().ok())
            })
            .flatten()
    });

    // Wrong password, unknown user: refused with Kafka's message, not retried.
    let (code, out, err) = describe_with(&c, 1, &sasl_ssl_client(&pki, "PLAIN", "admin", "wrong"));
    assert_ne!(code, 0, "{out}");
    assert!(err.contains("Authentication failed"), "{err}");
    assert!(
        !err.contains("wrong"),
        "the password must not be echoed: {err}"
    );

    // A plaintext client on the TLS port: a clear message, not a hang.
    let (code, out, err) = describe_with(&c, 1, "");
    assert_ne!(code, 0, "{out}");
    assert!(
        err.contains("security.protocol") || err.contains("SSL"),
        "the CLI should say the listener speaks TLS: {err}"
    );
    // A TLS client on the RAW port, which does not speak TLS.
    let raw_addr = format!("127.0.0.1:{}", raw_ports[0]);
    let (code, out, err) = kraft(&[
        "metadata-quorum",
        "--bootstrap-controller",
        &raw_addr,
        "--command-config",
        client_file(&c, &admin).to_str().unwrap_or_default(),
        "describe",
        "--status",
    ]);
    assert_ne!(code, 0, "{out}");
    assert!(err.contains("SSL"), "{err}");

    // Raw SASL on the SASL_PLAINTEXT listener.
    // A request before authentication closes the connection.
    let mut conn = Connection::open(&raw_addr);
    assert!(
        send(
            &mut conn,
            0,
            RequestBody::DescribeCluster(DescribeClusterRequest::default())
        )
        .is_none(),
        "DescribeCluster before SASL must close the connection"
    );
    // SaslAuthenticate before SaslHandshake: closed.
    let mut conn = Connection::open(&raw_addr);
    assert!(send(&mut conn, 1, authenticate(b"\0admin\0admin-secret")).is_none());
    // An unknown mechanism: UNSUPPORTED_SASL_MECHANISM with the enabled ones, then closed.
    let mut conn = Connection::open(&raw_addr);
    let Some(ResponseBody::SaslHandshake(r)) = send(&mut conn, 1, handshake("GSSAPI")) else {
        panic!("no answer to SaslHandshake GSSAPI")
    };
    assert_eq!(r.error_code, 33);
    let enabled: Vec<String> = r.mechanisms.iter().map(|m| m.to_string()).collect();
    assert_eq!(enabled, ["PLAIN", "SCRAM-SHA-256"]);
    assert!(send(&mut conn, 1, authenticate(b"x")).is_none());
    // ApiVersions first is served; a wrong password is SASL_AUTHENTICATION_FAILED, then closed.
    let mut conn = Connection::open(&raw_addr);
    let versions = ApiVersionsRequest {
        client_software_name: "kraft-e2e".into(),
        client_software_version: "1".into(),
        ..Default::default()
    };
    let Some(ResponseBody::ApiVersions(v)) = send(&mut conn, 3, RequestBody::ApiVersions(versions))
    else {
        panic!("no ApiVersions answer before authentication")
    };
    assert!(v
        .api_keys
        .iter()
        .any(|k| k.api_key == 36 && k.max_version == 2));
    let Some(ResponseBody::SaslHandshake(r)) = send(&mut conn, 1, handshake("PLAIN")) else {
        panic!("no answer to SaslHandshake PLAIN")
    };
    assert_eq!(r.error_code, 0);
    let Some(ResponseBody::SaslAuthenticate(r)) =
        send(&mut conn, 2, authenticate(b"\0admin\0not-it"))
    else {
        panic!("no answer to a wrong password")
    };
    assert_eq!(r.error_code, 58, "SASL_AUTHENTICATION_FAILED");
    let message = r.error_message.map(|m| m.to_string()).unwrap_or_default();
    assert!(message.contains("Authentication failed"), "{message}");
    assert!(!message.contains("not-it"), "{message}");
    assert!(send(
        &mut conn,
        0,
        RequestBody::DescribeCluster(DescribeClusterRequest::default())
    )
    .is_none());
    // A truncated PLAIN token: refused, closed.
    let mut conn = Connection::open(&raw_addr);
    send(&mut conn, 1, handshake("PLAIN")).expect("handshake");
    let Some(ResponseBody::SaslAuthenticate(r)) = send(&mut conn, 2, authenticate(b"\0admin"))
    else {
        panic!("no answer to a truncated token")
    };
    assert_eq!(r.error_code, 58);
    // The right password: requests are served; SaslAuthenticate again is
    // ILLEGAL_SASL_STATE, as Kafka's ControllerApis answers it.
    let mut conn = Connection::open(&raw_addr);
    send(&mut conn, 1, handshake("PLAIN")).expect("handshake");
    let Some(ResponseBody::SaslAuthenticate(r)) =
        send(&mut conn, 2, authenticate(b"\0admin\0admin-secret"))
    else {
        panic!("no answer to the right password")
    };
    assert_eq!(r.error_code, 0, "{:?}", r.error_message);
    let describe = DescribeClusterRequest {
        endpoint_type: 2,
        ..Default::default()
    };
    let Some(ResponseBody::DescribeCluster(d)) =
        send(&mut conn, 1, RequestBody::DescribeCluster(describe))
    else {
        panic!(
            "an authenticated request must be served:\n{}",
            c.server_log(1)
        )
    };
    assert_eq!(d.error_code, 0);
    let Some(ResponseBody::SaslAuthenticate(r)) =
        send(&mut conn, 2, authenticate(b"\0admin\0admin-secret"))
    else {
        panic!("no answer to a second SaslAuthenticate")
    };
    assert_eq!(r.error_code, 34, "ILLEGAL_SASL_STATE");
    // An oversized frame before authentication: closed without reading it.
    {
        use std::io::{Read, Write};
        let mut s = std::net::TcpStream::connect(&raw_addr).expect("connect");
        s.set_read_timeout(Some(Duration::from_secs(10)))
            .expect("timeout");
        s.write_all(&(64 * 1024 * 1024i32).to_be_bytes())
            .expect("write");
        let mut buf = [0u8; 16];
        assert_eq!(
            s.read(&mut buf).unwrap_or(0),
            0,
            "the server must close the connection"
        );
    }

    // SCRAM: a credential written through AlterUserScramCredentials is used
    // at the next login; once deleted, the login fails.
    let upsert = scram_upsert("carol", 1, "carol-secret", b"kraft-rs-e2e-salt");
    let leader_raw = format!("127.0.0.1:{}", raw_ports[leader - 1]);
    let mut conn = Connection::open(&leader_raw);
    send(&mut conn, 1, handshake("PLAIN")).expect("handshake");
    send(&mut conn, 2, authenticate(b"\0admin\0admin-secret")).expect("auth");
    let Some(ResponseBody::AlterUserScramCredentials(r)) = send(&mut conn, 0, upsert) else {
        panic!(
            "no answer to AlterUserScramCredentials:\n{}",
            c.server_log(leader)
        )
    };
    assert!(r.results.iter().all(|x| x.error_code == 0), "{r:?}");
    let carol = sasl_ssl_client(&pki, "SCRAM-SHA-256", "carol", "carol-secret");
    for via in 1..=3 {
        wait_for(
            "carol logs in with SCRAM-SHA-256",
            Duration::from_secs(30),
            || (describe_with(&c, via, &carol).0 == 0).then_some(()),
        );
    }
    let (code, _, err) = describe_with(
        &c,
        1,
        &sasl_ssl_client(&pki, "SCRAM-SHA-256", "carol", "nope"),
    );
    assert_ne!(code, 0);
    assert!(
        err.contains("Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-256"),
        "{err}"
    );
    let delete = RequestBody::AlterUserScramCredentials(
        kraft_protocol::messages::alter_user_scram_credentials_request::AlterUserScramCredentialsRequest {
            deletions: vec![
                kraft_protocol::messages::alter_user_scram_credentials_request::ScramCredentialDeletion {
                    name: "carol".into(),
                    mechanism: 1,
                    ..Default::default()
                },
            ]
            .into(),
            ..Default::default()
        },
    );
    let Some(ResponseBody::AlterUserScramCredentials(r)) = send(&mut conn, 0, delete) else {
        panic!("no answer to the deletion")
    };
    assert!(r.results.iter().all(|x| x.error_code == 0), "{r:?}");
    wait_for(
        "carol's login fails once her credential is deleted",
        Duration::from_secs(30),
        || (describe_with(&c, 1, &carol).0 != 0).then_some(()),
    );

    // A leader killed: the others elect a new one over TLS and SASL.
    c.server(leader).kill();
    let other = if leader == 1 { 2 } else { 1 };
    wait_for(
        "a new leader over SASL_SSL",
        Duration::from_secs(60),
        || {
            let (code, out, _) = describe_with(&c, other, &admin);
            (code == 0
                && out
                    .lines()
                    .find_map(|l| l.strip_prefix("LeaderId:"))
                    .and_then(|v| v.trim().parse::<usize>().ok())
                    .is_some_and(|l| l != leader))
            .then_some(())
        },
    );
    c.server(leader).start();
}

#[test]
fn mutual_tls_maps_the_client_certificate_for_the_authorizer_and_reloads_its_own() {
    let mut c = Cluster::new("secure-mtls", 3);
    let pki = Pki::new(c.dir.join("pki"));
    let (store, _) = pki.issue("controller-1", "controller-1");
    pki.issue("admin", "admin");
    pki.issue("alice", "alice");
    let extra = format!(
        "listener.security.protocol.map=CONTROLLER:SSL\n\
         listener.name.controller.ssl.keystore.type=PEM\n\
         listener.name.controller.ssl.keystore.location={store}\n\
         listener.name.controller.ssl.truststore.type=PEM\n\
         listener.name.controller.ssl.truststore.location={ca}\n\
         listener.name.controller.ssl.client.auth=required\n\
         ssl.principal.mapping.rules=RULE:^O=kraft-rs,CN=(.*?)$/$1/,DEFAULT\n\
         authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer\n\
         super.users=User:admin;User:controller-1\n",
        store = store.display(),
        ca = pki.ca().display()
    );
    c.write_props_with(1, &extra);
    let cluster_id = kraft_ok(&["storage", "random-uuid"]).trim().to_string();
    format(&c, 1, &cluster_id, &["--standalone"]);
    c.server(1).start();
    let client = |name: &str| {
        format!(
            "security.protocol=SSL\nssl.truststore.type=PEM\nssl.truststore.location={ca}\n\
             ssl.keystore.type=PEM\nssl.keystore.location={store}\n",
            ca = pki.ca().display(),
            store = pki.dir.join(format!("{name}.pem")).display()
        )
    };
    // admin (a super user by its mapped certificate subject) is served.
    wait_for("admin is served over mTLS", Duration::from_secs(60), || {
        let (code, out, _) = describe_with(&c, 1, &client("admin"));
        (code == 0 && out.contains("LeaderId:")).then_some(())
    });
    // alice, authenticated by her certificate, is refused by the authorizer
    // under her mapped name.
    let (code, _, err) = describe_with(&c, 1, &client("alice"));
    assert_ne!(code, 0);
    assert!(
        err.contains("CLUSTER_AUTHORIZATION_FAILED") && err.contains("User:alice"),
        "{err}\n{}",
        c.server_log(1)
    );
    // No client certificate: the handshake is refused.
    let no_cert = format!(
        "security.protocol=SSL\nssl.truststore.type=PEM\nssl.truststore.location={}\n",
        pki.ca().display()
    );
    let (code, _, err) = describe_with(&c, 1, &no_cert);
    assert_ne!(code, 0, "a client without a certificate must be refused");
    assert!(
        err.contains("SSL handshake failed") && err.contains("CertificateRequired"),
        "{err}"
    );
    // A server certificate the client does not trust.
    let other = Pki::new(c.dir.join("other-pki"));
    let untrusting = format!(
        "security.protocol=SSL\nssl.truststore.type=PEM\nssl.truststore.location={}\n\
         ssl.keystore.type=PEM\nssl.keystore.location={}\n",
        other.ca().display(),
        pki.dir.join("admin.pem").display()
    );
    let (code, _, err) = describe_with(&c, 1, &untrusting);
    assert_ne!(code, 0);
    assert!(err.to_lowercase().contains("certificate"), "{err}");

    // The key store file replaced by a renewed certificate (same subject, as
    // Kafka requires unless ssl.allow.dn.changes=true): new connections
    // present it within the reload interval; the old one kept serving.
    let (renewed, renewed_der) = pki.issue("controller-1-renewed", "controller-1");
    std::fs::copy(&renewed, &store).expect("rotate");
    let presented = || -> Option<Vec<u8>> {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .ok()?;
        rt.block_on(async {
            let props = kraft_protocol::text::Properties::parse(&client("admin")).ok()?;
            let get = |k: &str| props.get(k).map(str::to_string);
            let security = kraft_security::client::ClientSecurity::from_kafka(&get).ok()?;
            let conn = kraft_security::client::connect("127.0.0.1", c.ports[0], &security, "probe")
                .await
                .ok()?;
            Some(conn.stream.peer_certificates()?.first()?.as_ref().to_vec())
        })
    };
    wait_for(
        "new connections present the renewed certificate",
        Duration::from_secs(30),
        || presented().filter(|der| *der == renewed_der),
    );
    // A certificate for another subject is refused (the renewed one stays).
    let (other_subject, _) = pki.issue("controller-1-other", "someone-else");
    std::fs::copy(&other_subject, &store).expect("replace");
    wait_for(
        "the reload of another subject is refused",
        Duration::from_secs(30),
        || {
            c.server_log(1)
                .contains("Keystore DistinguishedName does not match")
                .then_some(())
        },
    );
    assert_eq!(presented(), Some(renewed_der.clone()));
    assert!(
        c.server_log(1)
            .contains("reloaded the listener's key and trust stores"),
        "{}",
        c.server_log(1)
    );
    let (code, out, err) = describe_with(&c, 1, &client("admin"));
    assert_eq!(code, 0, "{out}{err}");
}
