//! `subject_name` against what Java prints for the same certificates
//! (`tests/data/tls/expected-subjects.txt`, made by `make-fixtures.sh` with
//! `SubjectNames.java`), and the SSL cases of Kafka's
//! `DefaultKafkaPrincipalBuilderTest`.

#![allow(clippy::unwrap_used)] // a test fails by panicking

use std::path::PathBuf;

use kraft_security::principal::{subject_name, tls_principal_name, SslPrincipalMapper};
use rustls_pki_types::pem::PemObject;
use rustls_pki_types::CertificateDer;

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/tls")
        .join(name)
}

fn cert(name: &str) -> CertificateDer<'static> {
    CertificateDer::from_pem_file(data(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

#[test]
fn subjects_match_java() {
    let expected = std::fs::read_to_string(data("expected-subjects.txt")).unwrap();
    let mut checked = 0;
    for line in expected.lines().filter(|l| !l.is_empty()) {
        let (file, java) = line.split_once('\t').unwrap();
        let ours = subject_name(cert(file).as_ref()).unwrap();
        assert_eq!(ours, java, "subject of {file}");
        checked += 1;
    }
    // Every fixture listed by make-fixtures.sh was checked.
    assert_eq!(checked, 18);
}

#[test]
fn the_tricky_subjects_are_really_there() {
    // Guards the fixtures themselves: escapes, OIDs, multi-valued RDNs, UTF-8.
    let expected = std::fs::read_to_string(data("expected-subjects.txt")).unwrap();
    for needle in [
        r"O=Acme\, Inc.",
        r"OU=Kafka\+Controllers",
        "1.2.840.113549.1.9.1=#16",
        r"CN=\#hash\=equals\\backslash",
        r"OU=\ padded\ ",
        "CN=multi+UID=u-42",
        "DC=example,DC=org",
        "O=Zoë Ünïcødé",
        "2.5.4.5=#13",
        "STREET=Main Street 1",
    ] {
        assert!(
            expected.contains(needle),
            "{needle} missing from expected-subjects.txt"
        );
    }
}

#[test]
fn garbage_is_not_a_certificate() {
    assert!(subject_name(b"not a certificate").is_err());
}

#[test]
fn anonymous_without_a_certificate() {
    let mapper = SslPrincipalMapper::default();
    assert_eq!(tls_principal_name(None, &mapper).unwrap(), "ANONYMOUS");
    assert_eq!(tls_principal_name(Some(&[]), &mapper).unwrap(), "ANONYMOUS");
}

#[test]
fn default_rules_give_the_subject() {
    let mapper = SslPrincipalMapper::default();
    let chain = [cert("client.pem"), cert("ca.pem")];
    assert_eq!(
        tls_principal_name(Some(&chain), &mapper).unwrap(),
        "CN=client1,OU=clients,O=kraft-rs"
    );
}

/// DefaultKafkaPrincipalBuilderTest.testPrincipalWithSslPrincipalMapper, with
/// real certificates carrying its four subjects.
#[test]
fn principal_with_ssl_principal_mapper() {
    let rules = [
        "RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/L",
        "RULE:^CN=(.*?),OU=(.*?),O=(.*?),L=(.*?),ST=(.*?),C=(.*?)$/$1@$2/L",
        "RULE:^.*[Cc][Nn]=([a-zA-Z0-9.]*).*$/$1/U",
        "DEFAULT",
    ]
    .join(", ");
    let mapper = SslPrincipalMapper::from_rules(&rules).unwrap();
    let name = |file: &str| tls_principal_name(Some(&[cert(file)]), &mapper).unwrap();
    assert_eq!(name("duke1.pem"), "duke");
    assert_eq!(name("duke2.pem"), "duke@sme");
    assert_eq!(name("duke3.pem"), "DUKE");
    assert_eq!(name("duke4.pem"), "OU=JavaSoft,O=Sun Microsystems,C=US");
}

#[test]
fn no_matching_rule_is_an_error() {
    let mapper = SslPrincipalMapper::from_rules("RULE:^CN=nobody$/x/").unwrap();
    let e = tls_principal_name(Some(&[cert("client.pem")]), &mapper)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("Failed to map name for 'CN=client1,OU=clients,O=kraft-rs' based on SSL principal mapping rules")
            && e.contains("No rules apply to CN=client1,OU=clients,O=kraft-rs"),
        "{e}"
    );
}
