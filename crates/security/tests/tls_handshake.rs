//! TLS over real loopback TCP: `ServerTls::acceptor()` against
//! `client_config`, both through `KafkaStream`, with data echoed.

#![allow(clippy::unwrap_used)] // a test fails by panicking

use std::collections::HashMap;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use kraft_security::principal::tls_principal_name;
use kraft_security::stream::KafkaStream;
use kraft_security::tls::{client_config, ServerTls, SslSettings, TlsVersion};
use rustls_pki_types::pem::PemObject;
use rustls_pki_types::{CertificateDer, ServerName};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;
use tokio::time::timeout;

const STORE_PASS: &str = "store-secret-42";
const LIMIT: Duration = Duration::from_secs(10);

fn data(name: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/tls")
        .join(name)
        .to_string_lossy()
        .into_owned()
}

fn cert(name: &str) -> CertificateDer<'static> {
    CertificateDer::from_pem_file(data(name)).unwrap()
}

fn settings(pairs: &[(&str, &str)]) -> SslSettings {
    let map: HashMap<String, String> = pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    SslSettings::from_kafka(&|key| map.get(key).cloned())
        .unwrap_or_else(|e| panic!("{pairs:?}: {e}"))
}

/// A server of the PEM key store `keystore` (a fixture file name or a path).
fn server(keystore: &str, extra: &[(&str, &str)]) -> Arc<ServerTls> {
    let location = if keystore.starts_with('/') {
        keystore.to_string()
    } else {
        data(keystore)
    };
    let mut pairs = vec![
        ("ssl.keystore.type", "PEM"),
        ("ssl.keystore.location", location.as_str()),
    ];
    pairs.extend_from_slice(extra);
    Arc::new(ServerTls::new(&settings(&pairs)).unwrap())
}

/// What the server saw of one connection.
#[derive(Debug)]
struct Accepted {
    principal: String,
    version: Option<TlsVersion>,
}

/// Accepts connections until the test ends; each is echoed, and its
/// principal (or the handshake error) reported.
async fn serve(
    tls: Arc<ServerTls>,
) -> (
    SocketAddr,
    mpsc::UnboundedReceiver<Result<Accepted, String>>,
) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (tx, rx) = mpsc::unbounded_channel();
    tokio::spawn(async move {
        while let Ok((tcp, _)) = listener.accept().await {
            let acceptor = tls.acceptor();
            let tls = tls.clone();
            let tx = tx.clone();
            tokio::spawn(async move {
                let stream = match acceptor.accept(tcp).await {
                    Ok(s) => KafkaStream::from(s),
                    Err(e) => {
                        let _ = tx.send(Err(e.to_string()));
                        return;
                    }
                };
                assert!(stream.is_tls());
                let principal =
                    tls_principal_name(stream.peer_certificates(), tls.principal_mapper())
                        .unwrap_or_else(|e| format!("error: {e}"));
                let _ = tx.send(Ok(Accepted {
                    principal,
                    version: stream.tls_version(),
                }));
                echo(stream).await;
            });
        }
    });
    (addr, rx)
}

async fn echo(mut stream: KafkaStream) {
    let mut buf = [0u8; 1024];
    loop {
        match stream.read(&mut buf).await {
            Ok(0) | Err(_) => return,
            Ok(n) => {
                if stream.write_all(&buf[..n]).await.is_err() || stream.flush().await.is_err() {
                    return;
                }
            }
        }
    }
}

async fn connect(
    addr: SocketAddr,
    client: &SslSettings,
    name: &str,
) -> std::io::Result<KafkaStream> {
    let config = client_config(client).map_err(std::io::Error::other)?;
    let tcp = TcpStream::connect(addr).await?;
    let name = ServerName::try_from(name.to_string()).map_err(std::io::Error::other)?;
    let tls = timeout(
        LIMIT,
        tokio_rustls::TlsConnector::from(config).connect(name, tcp),
    )
    .await
    .map_err(std::io::Error::other)??;
    Ok(KafkaStream::from(tls))
}

/// Sends `message` and reads it back.
async fn round_trip(stream: &mut KafkaStream, message: &[u8]) -> std::io::Result<()> {
    stream.write_all(message).await?;
    stream.flush().await?;
    let mut back = vec![0u8; message.len()];
    timeout(LIMIT, stream.read_exact(&mut back))
        .await
        .map_err(std::io::Error::other)??;
    assert_eq!(back, message);
    Ok(())
}

fn trusting_client(extra: &[(&str, &str)]) -> SslSettings {
    let ca = data("ca.pem");
    let mut pairs = vec![
        ("ssl.truststore.type", "PEM"),
        ("ssl.truststore.location", ca.as_str()),
    ];
    pairs.extend_from_slice(extra);
    settings(&pairs)
}

async fn next(
    rx: &mut mpsc::UnboundedReceiver<Result<Accepted, String>>,
) -> Result<Accepted, String> {
    timeout(LIMIT, rx.recv())
        .await
        .expect("the server reported nothing")
        .expect("server gone")
}

#[tokio::test]
async fn tls13_handshake_and_echo() {
    let (addr, mut rx) = serve(server("server-keystore.pem", &[])).await;
    let client = trusting_client(&[("ssl.enabled.protocols", "TLSv1.3")]);
    let mut stream = connect(addr, &client, "localhost").await.unwrap();
    assert!(stream.is_tls());
    assert_eq!(stream.tls_version(), Some(TlsVersion::Tls13));
    assert_eq!(stream.peer_addr().unwrap(), addr);
    let chain = stream.peer_certificates().unwrap();
    assert_eq!(chain[0], cert("server.pem"));
    round_trip(&mut stream, b"hello over TLS 1.3")
        .await
        .unwrap();
    round_trip(&mut stream, &[7u8; 100_000][..1000])
        .await
        .unwrap();
    let accepted = next(&mut rx).await.unwrap();
    assert_eq!(accepted.principal, "ANONYMOUS");
    assert_eq!(accepted.version, Some(TlsVersion::Tls13));
}

#[tokio::test]
async fn tls12_handshake_and_echo() {
    let (addr, mut rx) = serve(server("server-keystore.pem", &[])).await;
    // ssl.protocol=TLSv1.2 keeps a Kafka client off TLSv1.3.
    let client = trusting_client(&[
        ("ssl.protocol", "TLSv1.2"),
        ("ssl.cipher.suites", "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384"),
    ]);
    let mut stream = connect(addr, &client, "127.0.0.1").await.unwrap();
    assert_eq!(stream.tls_version(), Some(TlsVersion::Tls12));
    if let KafkaStream::ClientTls(s) = &stream {
        let suite = s.get_ref().1.negotiated_cipher_suite().unwrap();
        assert_eq!(
            suite.suite(),
            rustls::CipherSuite::TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384
        );
    } else {
        panic!("not a client TLS stream");
    }
    round_trip(&mut stream, b"hello over TLS 1.2")
        .await
        .unwrap();
    assert_eq!(
        next(&mut rx).await.unwrap().version,
        Some(TlsVersion::Tls12)
    );
}

#[tokio::test]
async fn a_server_of_tls13_only_refuses_a_tls12_client() {
    let (addr, mut rx) = serve(server(
        "server-keystore.pem",
        &[("ssl.enabled.protocols", "TLSv1.3")],
    ))
    .await;
    let client = trusting_client(&[("ssl.protocol", "TLSv1.2")]);
    assert!(connect(addr, &client, "localhost").await.is_err());
    assert!(next(&mut rx).await.is_err());
}

#[tokio::test]
async fn plain_stream() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        let (tcp, _) = listener.accept().await.unwrap();
        echo(KafkaStream::Plain(tcp)).await;
    });
    let mut stream = KafkaStream::from(TcpStream::connect(addr).await.unwrap());
    assert!(!stream.is_tls());
    assert!(stream.peer_certificates().is_none());
    assert_eq!(stream.tls_version(), None);
    round_trip(&mut stream, b"plain").await.unwrap();
}

fn client_with_cert(extra: &[(&str, &str)]) -> SslSettings {
    let ca = data("ca.pem");
    let p12 = data("client.p12");
    let mut pairs = vec![
        ("ssl.truststore.type", "PEM"),
        ("ssl.truststore.location", ca.as_str()),
        ("ssl.keystore.type", "PKCS12"),
        ("ssl.keystore.location", p12.as_str()),
        ("ssl.keystore.password", STORE_PASS),
    ];
    pairs.extend_from_slice(extra);
    settings(&pairs)
}

fn server_with_client_auth(auth: &str) -> Arc<ServerTls> {
    let truststore = data("truststore.jks");
    server(
        "server-keystore.pem",
        &[
            ("ssl.client.auth", auth),
            ("ssl.truststore.location", truststore.as_str()),
            ("ssl.truststore.password", STORE_PASS),
            (
                "ssl.principal.mapping.rules",
                "RULE:^CN=(.*?),OU=(.*?),.*$/$1@$2/U, DEFAULT",
            ),
        ],
    )
}

#[tokio::test]
async fn mutual_tls_required() {
    let (addr, mut rx) = serve(server_with_client_auth("required")).await;

    // Without a certificate: refused (in TLS 1.3 the client learns it on its
    // first read, after the server checked its (missing) certificate).
    let refused = match connect(addr, &trusting_client(&[]), "localhost").await {
        Err(_) => true,
        Ok(mut stream) => round_trip(&mut stream, b"let me in").await.is_err(),
    };
    assert!(refused, "a client without a certificate got through");
    let e = next(&mut rx).await.unwrap_err();
    assert!(e.to_lowercase().contains("certificate"), "{e}");

    // With one: accepted, and named by the mapping rules.
    let mut stream = connect(addr, &client_with_cert(&[]), "localhost")
        .await
        .unwrap();
    round_trip(&mut stream, b"mutual").await.unwrap();
    assert_eq!(next(&mut rx).await.unwrap().principal, "CLIENT1@CLIENTS");

    // The same over TLS 1.2.
    let mut stream = connect(
        addr,
        &client_with_cert(&[("ssl.protocol", "TLSv1.2")]),
        "localhost",
    )
    .await
    .unwrap();
    round_trip(&mut stream, b"mutual 1.2").await.unwrap();
    let accepted = next(&mut rx).await.unwrap();
    assert_eq!(
        (accepted.principal.as_str(), accepted.version),
        ("CLIENT1@CLIENTS", Some(TlsVersion::Tls12))
    );
}

#[tokio::test]
async fn mutual_tls_required_refuses_an_untrusted_client_certificate() {
    let (addr, mut rx) = serve(server_with_client_auth("required")).await;
    let ca = data("ca.pem");
    let key = data("untrusted-keystore.pem");
    let client = settings(&[
        ("ssl.truststore.type", "PEM"),
        ("ssl.truststore.location", ca.as_str()),
        ("ssl.keystore.type", "PEM"),
        ("ssl.keystore.location", key.as_str()),
    ]);
    let refused = match connect(addr, &client, "localhost").await {
        Err(_) => true,
        Ok(mut stream) => round_trip(&mut stream, b"x").await.is_err(),
    };
    assert!(refused);
    assert!(next(&mut rx).await.is_err());
}

#[tokio::test]
async fn mutual_tls_requested() {
    let (addr, mut rx) = serve(server_with_client_auth("requested")).await;
    let mut stream = connect(addr, &trusting_client(&[]), "localhost")
        .await
        .unwrap();
    round_trip(&mut stream, b"anonymous").await.unwrap();
    assert_eq!(next(&mut rx).await.unwrap().principal, "ANONYMOUS");
    let mut stream = connect(addr, &client_with_cert(&[]), "localhost")
        .await
        .unwrap();
    round_trip(&mut stream, b"named").await.unwrap();
    assert_eq!(next(&mut rx).await.unwrap().principal, "CLIENT1@CLIENTS");
}

/// The client's handshake error against a server of `keystore`.
async fn client_refuses(keystore: &str, client: &SslSettings, name: &str) -> String {
    let (addr, _rx) = serve(server(keystore, &[])).await;
    match connect(addr, client, name).await {
        Ok(_) => panic!("the client accepted the server of {keystore} as {name}"),
        Err(e) => e.to_string(),
    }
}

#[tokio::test]
async fn an_untrusted_server_is_refused() {
    let e = client_refuses("untrusted-keystore.pem", &trusting_client(&[]), "localhost").await;
    assert!(e.contains("UnknownIssuer"), "{e}");
    // Turning host names off does not turn trust off.
    let lax = trusting_client(&[("ssl.endpoint.identification.algorithm", "")]);
    let e = client_refuses("untrusted-keystore.pem", &lax, "localhost").await;
    assert!(e.contains("UnknownIssuer"), "{e}");
}

#[tokio::test]
async fn an_expired_server_certificate_is_refused() {
    let e = client_refuses("expired-keystore.pem", &trusting_client(&[]), "localhost").await;
    assert!(e.contains("certificate expired"), "{e}");
    let lax = trusting_client(&[("ssl.endpoint.identification.algorithm", "")]);
    let e = client_refuses("expired-keystore.pem", &lax, "localhost").await;
    assert!(e.contains("certificate expired"), "{e}");
}

#[tokio::test]
async fn a_wrong_host_is_refused_unless_endpoint_identification_is_off() {
    let e = client_refuses(
        "other-host-keystore.pem",
        &trusting_client(&[]),
        "localhost",
    )
    .await;
    assert!(e.contains("not valid for name \"localhost\""), "{e}");
    let (addr, mut rx) = serve(server("other-host-keystore.pem", &[])).await;
    let lax = trusting_client(&[("ssl.endpoint.identification.algorithm", "")]);
    assert!(!lax.endpoint_identification());
    let mut stream = connect(addr, &lax, "localhost").await.unwrap();
    round_trip(&mut stream, b"any host").await.unwrap();
    assert!(next(&mut rx).await.is_ok());
    // The server's own name still works with the check on.
    let mut stream = connect(addr, &trusting_client(&[]), "other.example.com")
        .await
        .unwrap();
    round_trip(&mut stream, b"right host").await.unwrap();
}

/// A scratch copy of a fixture, replaced atomically by `replace`.
struct Scratch {
    dir: PathBuf,
    file: PathBuf,
}

impl Scratch {
    fn new(tag: &str, fixture: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("kraft-security-{tag}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("keystore.pem");
        std::fs::copy(data(fixture), &file).unwrap();
        Scratch { dir, file }
    }

    fn replace(&self, fixture: &str) {
        let tmp = self.dir.join("keystore.pem.tmp");
        std::fs::copy(data(fixture), &tmp).unwrap();
        std::fs::rename(&tmp, &self.file).unwrap();
    }

    fn path(&self) -> String {
        self.file.to_string_lossy().into_owned()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

async fn served_certificate(addr: SocketAddr) -> CertificateDer<'static> {
    let mut stream = connect(addr, &trusting_client(&[]), "localhost")
        .await
        .unwrap();
    round_trip(&mut stream, b"which certificate?")
        .await
        .unwrap();
    stream.peer_certificates().unwrap()[0].clone()
}

#[tokio::test]
async fn reload_serves_the_new_certificate_and_keeps_old_connections() {
    let scratch = Scratch::new("reload", "server-keystore.pem");
    let tls = server(&scratch.path(), &[]);
    let (addr, _rx) = serve(tls.clone()).await;

    let mut before = connect(addr, &trusting_client(&[]), "localhost")
        .await
        .unwrap();
    round_trip(&mut before, b"before").await.unwrap();
    assert_eq!(before.peer_certificates().unwrap()[0], cert("server.pem"));
    assert!(!tls.reload_if_changed().unwrap(), "nothing changed yet");

    scratch.replace("server2-keystore.pem");
    assert!(tls.reload_if_changed().unwrap());
    assert!(!tls.reload_if_changed().unwrap(), "already reloaded");
    assert_eq!(served_certificate(addr).await, cert("server2.pem"));
    // The connection opened before goes on working.
    round_trip(&mut before, b"still here").await.unwrap();

    // A broken file: an error, and the current certificate stays.
    std::fs::write(scratch.dir.join("keystore.pem.tmp"), "garbage").unwrap();
    std::fs::rename(scratch.dir.join("keystore.pem.tmp"), &scratch.file).unwrap();
    let e = tls.reload_if_changed().unwrap_err().to_string();
    assert!(e.contains("keystore.pem"), "{e}");
    assert_eq!(served_certificate(addr).await, cert("server2.pem"));

    // A missing file: the same.
    std::fs::remove_file(&scratch.file).unwrap();
    assert!(tls.reload_if_changed().is_err());
    assert_eq!(served_certificate(addr).await, cert("server2.pem"));

    // Back to the first certificate.
    scratch.replace("server-keystore.pem");
    assert!(tls.reload_if_changed().unwrap());
    assert_eq!(served_certificate(addr).await, cert("server.pem"));
}

#[tokio::test]
async fn reload_keeps_kafkas_distinguished_name_check() {
    let scratch = Scratch::new("reload-dn", "server-keystore.pem");
    let tls = server(&scratch.path(), &[]);
    scratch.replace("other-host-keystore.pem");
    let e = tls.reload_if_changed().unwrap_err().to_string();
    assert!(
        e.contains("Keystore DistinguishedName does not match"),
        "{e}"
    );
    assert_eq!(tls.certificate_chain()[0], cert("server.pem"));

    // With ssl.allow.dn.changes and ssl.allow.san.changes the change is taken.
    // (`allowing` starts from the other-host store now in the file.)
    let allowing = server(
        &scratch.path(),
        &[
            ("ssl.allow.dn.changes", "true"),
            ("ssl.allow.san.changes", "true"),
        ],
    );
    assert_eq!(allowing.certificate_chain()[0], cert("other-host.pem"));
    scratch.replace("server-keystore.pem");
    assert!(allowing.reload_if_changed().unwrap());
    assert_eq!(allowing.certificate_chain()[0], cert("server.pem"));
}

#[test]
fn server_tls_is_send_and_sync() {
    fn check<T: Send + Sync>() {}
    check::<ServerTls>();
    check::<KafkaStream>();
}

#[tokio::test]
async fn a_certificate_without_alternative_names_matches_its_common_name_as_in_java() {
    let (addr, _rx) = serve(server("cn-only-keystore.pem", &[])).await;
    let mut stream = connect(addr, &trusting_client(&[]), "localhost")
        .await
        .unwrap();
    round_trip(&mut stream, b"cn").await.unwrap();
    // Java never matches an IP address against the CN, nor another name.
    let e = connect(addr, &trusting_client(&[]), "127.0.0.1")
        .await
        .unwrap_err();
    assert!(e.to_string().contains("not valid for name"), "{e}");
    assert!(connect(addr, &trusting_client(&[]), "localhost.example")
        .await
        .is_err());
}

#[tokio::test]
async fn a_certificate_with_alternative_names_does_not_fall_back_to_its_common_name() {
    // cn-and-san.pem: CN=localhost, DNS SAN other.example.com only.
    let (addr, _rx) = serve(server("cn-and-san-keystore.pem", &[])).await;
    let e = connect(addr, &trusting_client(&[]), "localhost")
        .await
        .unwrap_err();
    assert!(e.to_string().contains("not valid for name"), "{e}");
    let mut stream = connect(addr, &trusting_client(&[]), "other.example.com")
        .await
        .unwrap();
    round_trip(&mut stream, b"san").await.unwrap();
}

#[tokio::test]
async fn reload_keeps_kafkas_subject_alternative_names_check() {
    let scratch = Scratch::new("reload-san", "server-keystore.pem");
    let tls = server(&scratch.path(), &[("ssl.allow.dn.changes", "true")]);
    scratch.replace("other-host-keystore.pem");
    let e = tls.reload_if_changed().unwrap_err().to_string();
    assert!(e.contains("Keystore SubjectAltNames do not match"), "{e}");
    assert_eq!(tls.certificate_chain()[0], cert("server.pem"));
}

#[tokio::test]
async fn reload_rereads_the_trust_store() {
    // Client certificates are checked against a trust store file; replacing
    // it with another CA and reloading makes the same client untrusted.
    let dir = std::env::temp_dir().join(format!(
        "kraft-security-reload-trust-{}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let trust = dir.join("truststore.pem");
    std::fs::copy(data("ca.pem"), &trust).unwrap();
    let trust_path = trust.to_string_lossy().into_owned();
    let tls = server(
        "server-keystore.pem",
        &[
            ("ssl.client.auth", "required"),
            ("ssl.truststore.type", "PEM"),
            ("ssl.truststore.location", trust_path.as_str()),
        ],
    );
    let (addr, mut rx) = serve(tls.clone()).await;
    let mut stream = connect(addr, &client_with_cert(&[]), "localhost")
        .await
        .unwrap();
    round_trip(&mut stream, b"trusted").await.unwrap();
    assert!(next(&mut rx).await.is_ok());

    std::fs::copy(data("untrusted-ca.pem"), &trust).unwrap();
    assert!(tls.reload_if_changed().unwrap());
    let refused = match connect(addr, &client_with_cert(&[]), "localhost").await {
        Err(_) => true,
        Ok(mut stream) => round_trip(&mut stream, b"now?").await.is_err(),
    };
    assert!(
        refused,
        "the client is still trusted after the trust store changed"
    );
    assert!(next(&mut rx).await.is_err());
    // The connection made before is untouched.
    round_trip(&mut stream, b"still trusted").await.unwrap();
    let _ = std::fs::remove_dir_all(&dir);
}
