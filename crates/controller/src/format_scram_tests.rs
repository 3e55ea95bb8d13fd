//! Kafka 4.4's `ScramParserTest`, case by case, and the edges of its
//! parser (Java's `split`, `trim`, base64 and `parseInt`) and of the
//! record (iteration limits, empty keys, the `toString` text).
//!
//! Expected keys are RFC 5802's `H(HMAC(SaltedPassword, "Client Key"))`
//! and `HMAC(SaltedPassword, "Server Key")`, with `Hi` = PBKDF2, computed
//! independently with Python's `hashlib`/`hmac`.

#![allow(clippy::unwrap_used)]

use base64::engine::general_purpose::STANDARD as BASE64;
use base64::Engine;

use super::*;
use crate::handlers::scram::ScramMechanism::{Sha256, Sha512};

/// `ScramParserTest.TEST_SALT`: base64 `MWx2NHBkbnc0ZndxN25vdGN4bTB5eTFrN3E=`.
const TEST_SALT: [i8; 26] = [
    49, 108, 118, 52, 112, 100, 110, 119, 52, 102, 119, 113, 55, 110, 111, 116, 99, 120, 109, 48,
    121, 121, 49, 107, 55, 113,
];

/// `ScramParserTest.TEST_SALTED_PASSWORD`: base64
/// `mT0yyUUxnlJaC99HXgRTSYlbuqa4FSGtJCJfTMvjYCE=`.
const TEST_SALTED_PASSWORD: [i8; 32] = [
    -103, 61, 50, -55, 69, 49, -98, 82, 90, 11, -33, 71, 94, 4, 83, 73, -119, 91, -70, -90, -72,
    21, 33, -83, 36, 34, 95, 76, -53, -29, 96, 33,
];

const TEST_SALT_B64: &str = "MWx2NHBkbnc0ZndxN25vdGN4bTB5eTFrN3E=";
const TEST_SALTED_PASSWORD_B64: &str = "mT0yyUUxnlJaC99HXgRTSYlbuqa4FSGtJCJfTMvjYCE=";

fn bytes(signed: &[i8]) -> Vec<u8> {
    signed.iter().map(|b| b.to_ne_bytes()[0]).collect()
}

fn salt() -> Vec<u8> {
    bytes(&TEST_SALT)
}

fn salted_password() -> Vec<u8> {
    bytes(&TEST_SALTED_PASSWORD)
}

fn b64(text: &str) -> Vec<u8> {
    BASE64.decode(text).unwrap()
}

fn err<T: fmt::Debug>(r: Result<T, FormatError>) -> String {
    r.unwrap_err().to_string()
}

fn parse(mechanism: ScramMechanism, config: &str) -> Result<ScramArgument, FormatError> {
    ScramArgument::parse(mechanism, config)
}

fn args(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

#[test]
fn split_component_on_name_equals_foo() {
    assert_eq!(split_component("name=foo").unwrap(), ("name", "foo"));
}

#[test]
fn split_component_on_name_equals_quoted_foo() {
    assert_eq!(split_component("name=\"foo\"").unwrap(), ("name", "foo"));
}

#[test]
fn split_component_on_name_equals_empty() {
    assert_eq!(split_component("name=").unwrap(), ("name", ""));
}

#[test]
fn split_component_on_name_equals_quoted_empty() {
    assert_eq!(split_component("name=\"\"").unwrap(), ("name", ""));
}

#[test]
fn split_component_with_no_equals() {
    assert_eq!(
        err(split_component("name")),
        "No equals sign found in SCRAM component: name"
    );
}

#[test]
fn split_component_edges() {
    // At the first `=`; a lone quote stays; nothing is trimmed.
    assert_eq!(split_component("salt=ab==").unwrap(), ("salt", "ab=="));
    assert_eq!(split_component("name=\"").unwrap(), ("name", "\""));
    assert_eq!(split_component(" name = x ").unwrap(), (" name ", " x "));
    assert_eq!(split_component("=x").unwrap(), ("", "x"));
}

#[test]
fn random_salt_differs_each_time_and_is_javas_base36_text() {
    let data = ScramArgument::with_password(Sha256, "bob", None, None, "my pass");
    let a = data.salt().unwrap();
    let b = data.salt().unwrap();
    assert_ne!(a, b);
    for _ in 0..200 {
        let s = random_salt().unwrap();
        assert!(!s.is_empty() && s.len() <= 26, "{s:?}");
        assert!(s
            .iter()
            .all(|c| c.is_ascii_digit() || c.is_ascii_lowercase()));
        assert!(s.len() == 1 || s[0] != b'0', "no leading zero: {s:?}");
    }
}

#[test]
fn configured_salt() {
    let data = ScramArgument::with_password(Sha256, "bob", Some(salt()), None, "my pass");
    assert_eq!(data.salt().unwrap(), salt());
}

#[test]
fn default_iterations() {
    let data = ScramArgument::with_password(Sha256, "bob", None, None, "my pass");
    assert_eq!(data.iterations(), 4096);
}

#[test]
fn configured_iterations() {
    let data = ScramArgument::with_password(Sha256, "bob", None, Some(8192), "my pass");
    assert_eq!(data.iterations(), 8192);
}

#[test]
fn parse_mechanism_argument_ok() {
    assert_eq!(
        parse_mechanism_argument("SCRAM-SHA-512=[name=scram-admin,password=scram-user-secret]")
            .unwrap(),
        (Sha512, "name=scram-admin,password=scram-user-secret")
    );
    // Trimmed as Java trims (control characters too), then split at the first `=`.
    assert_eq!(
        parse_mechanism_argument("\t SCRAM-SHA-256=[name=a=b]\n").unwrap(),
        (Sha256, "name=a=b")
    );
}

#[test]
fn parse_mechanism_argument_without_equals_sign() {
    assert_eq!(
        err(parse_mechanism_argument("SCRAM-SHA-512")),
        "Failed to find equals sign in SCRAM argument 'SCRAM-SHA-512'"
    );
    assert_eq!(
        err(parse_mechanism_argument("  SCRAM-SHA-512 ")),
        "Failed to find equals sign in SCRAM argument 'SCRAM-SHA-512'"
    );
}

#[test]
fn parse_mechanism_argument_with_unsupported_scram_method() {
    assert_eq!(
        err(parse_mechanism_argument(
            "SCRAM-SHA-UNSUPPORTED=[name=scram-admin,password=scram-user-secret]"
        )),
        "The add-scram mechanism SCRAM-SHA-UNSUPPORTED is not supported."
    );
    // Case-sensitive, no trimming inside.
    assert_eq!(
        err(parse_mechanism_argument(
            "scram-sha-256=[name=a,password=b]"
        )),
        "The add-scram mechanism scram-sha-256 is not supported."
    );
    assert_eq!(
        err(parse_mechanism_argument(
            "SCRAM-SHA-256 =[name=a,password=b]"
        )),
        "The add-scram mechanism SCRAM-SHA-256  is not supported."
    );
}

#[test]
fn parse_mechanism_argument_with_config_string_without_braces() {
    assert_eq!(
        err(parse_mechanism_argument(
            "SCRAM-SHA-256=name=scram-admin,password=scram-user-secret"
        )),
        "Expected configuration string to start with ["
    );
}

#[test]
fn parse_mechanism_argument_with_config_string_without_end_brace() {
    assert_eq!(
        err(parse_mechanism_argument(
            "SCRAM-SHA-256=[name=scram-admin,password=scram-user-secret"
        )),
        "Expected configuration string to end with ]"
    );
    assert_eq!(
        err(parse_mechanism_argument("SCRAM-SHA-256=[")),
        "Expected configuration string to end with ]"
    );
}

#[test]
fn parse_per_mechanism_data() {
    assert_eq!(
        parse(Sha256, "name=bob,password=mypass").unwrap(),
        ScramArgument::with_password(Sha256, "bob", None, None, "mypass")
    );
}

#[test]
fn parse_per_mechanism_data_fails_without_name() {
    assert_eq!(
        err(parse(Sha256, "password=mypass")),
        "You must supply 'name' to add-scram"
    );
}

#[test]
fn parse_per_mechanism_data_fails_without_password() {
    assert_eq!(
        err(parse(Sha256, "name=bar")),
        "You must supply one of 'password' or 'saltedpassword' to add-scram"
    );
}

#[test]
fn parse_per_mechanism_data_fails_with_extra_arguments() {
    assert_eq!(
        err(parse(
            Sha256,
            "name=bob,password=mypass,unknown=something,unknown2=somethingelse"
        )),
        "Unknown SCRAM configurations: unknown, unknown2"
    );
    // Sorted by name (Kafka's TreeMap); keys are not trimmed.
    assert_eq!(
        err(parse(Sha256, "zeta=1,name=bob, name=x,password=p,Alpha=2")),
        "Unknown SCRAM configurations:  name, Alpha, zeta"
    );
}

#[test]
fn parse_per_mechanism_data_with_iterations() {
    assert_eq!(
        parse(Sha256, "name=bob,password=my pass,iterations=8192").unwrap(),
        ScramArgument::with_password(Sha256, "bob", None, Some(8192), "my pass")
    );
}

#[test]
fn parse_per_mechanism_data_with_configured_salt() {
    assert_eq!(
        parse(
            Sha512,
            &format!("name=bob,password=my pass,salt=\"{TEST_SALT_B64}\"")
        )
        .unwrap(),
        ScramArgument::with_password(Sha512, "bob", Some(salt()), None, "my pass")
    );
}

#[test]
fn parse_per_mechanism_data_with_iterations_and_configured_salt() {
    assert_eq!(
        parse(
            Sha256,
            &format!("name=bob,password=my pass,iterations=8192,salt=\"{TEST_SALT_B64}\"")
        )
        .unwrap(),
        ScramArgument::with_password(Sha256, "bob", Some(salt()), Some(8192), "my pass")
    );
}

#[test]
fn parse_per_mechanism_data_with_configured_salted_password_fails_without_salt() {
    assert_eq!(
        err(parse(
            Sha256,
            &format!("name=alice,saltedpassword=\"{TEST_SALTED_PASSWORD_B64}\"")
        )),
        "You must supply 'salt' with 'saltedpassword' to add-scram"
    );
}

#[test]
fn parse_per_mechanism_data_with_configured_salted_password() {
    assert_eq!(
        parse(
            Sha256,
            &format!(
                "name=alice,salt=\"{TEST_SALT_B64}\",saltedpassword=\"{TEST_SALTED_PASSWORD_B64}\""
            )
        )
        .unwrap(),
        ScramArgument::with_salted_password(Sha256, "alice", salt(), None, salted_password())
    );
}

#[test]
fn per_mechanism_data_to_record() {
    let record =
        ScramArgument::with_salted_password(Sha512, "alice", salt(), None, salted_password())
            .to_record()
            .unwrap();
    let (stored_key, server_key) = derive_keys(Sha512, &salted_password()).unwrap();
    assert_eq!(
        record,
        UserScramCredentialRecord {
            name: "alice".into(),
            mechanism: 2,
            salt: Bytes::from(salt()),
            stored_key,
            server_key,
            iterations: 4096,
            ..Default::default()
        }
    );
    assert_eq!(
        BASE64.encode(&record.stored_key),
        "OTJaI0xrVVArw2MNM35eGNVvo7ZObfdmB6j25TPoky/3TryBqVyDO+xwZ9ayp2b8vlAyTuh3zIGiJpXG5PlNBQ=="
    );
    assert_eq!(
        BASE64.encode(&record.server_key),
        "SAFtavLze+JBSMhVmVxQOuH5mRkdsrE4CjtIl/LA+59pwoSC4fkJx8n+JnF+LKedPZWTai2bvkCoctFtn9zZxw=="
    );
}

#[test]
fn salted_password_record_for_sha_256() {
    let record =
        ScramArgument::with_salted_password(Sha256, "alice", salt(), None, salted_password())
            .to_record()
            .unwrap();
    assert_eq!(record.mechanism, 1);
    assert_eq!(
        BASE64.encode(&record.stored_key),
        "XTIqoHHo3sscdYxycL07uh8utmHn9fXtjqyDF67CjSU="
    );
    assert_eq!(
        BASE64.encode(&record.server_key),
        "Za53R2yENISN7fHL7WUxriFkV7cfbrO3+CtEptMbTPE="
    );
}

#[test]
fn password_records_use_pbkdf2_of_the_mechanism() {
    // Python: hashlib.pbkdf2_hmac(h, b"alice-secret", TEST_SALT, 8192), then the keys.
    for (mechanism, stored, server) in [
        (
            Sha256,
            "ATCNm0Bdyw4jLyGcNlQa1BNUUpU74NCH241kMWnL/Eg=",
            "aQ6vIVKtNh+OM9aE7oSigBc0I697NTBBRcJ2G/OLsKk=",
        ),
        (
            Sha512,
            "337Ux4ThZRWRPzkLN1PmPplZDnoOhJ0FDPCgSf6ubEe5aSjYDMBKYgRCEBxplE9Nmh/wTszGAN0nOzC6ZYfeMA==",
            "LR7GVL34n4B15FRXwbkh2HMaXJdl6xuLWDW77rd2GMEsyJz51Gc9kbe9PRSNBCNYg5oMWU0P+E7nRKh8EjcvLQ==",
        ),
    ] {
        let r = ScramArgument::with_password(mechanism, "alice", Some(salt()), Some(8192), "alice-secret")
            .to_record()
            .unwrap();
        assert_eq!(BASE64.encode(&r.stored_key), stored);
        assert_eq!(BASE64.encode(&r.server_key), server);
        assert_eq!((r.iterations, &r.salt[..]), (8192, &salt()[..]));
    }
}

#[test]
fn a_random_salt_goes_into_the_record_and_the_keys() {
    let a = ScramArgument::with_password(Sha256, "bob", None, None, "pw")
        .to_record()
        .unwrap();
    let b = ScramArgument::with_password(Sha256, "bob", None, None, "pw")
        .to_record()
        .unwrap();
    assert_ne!(a.salt, b.salt);
    assert_ne!(a.stored_key, b.stored_key);
    assert_eq!(a.iterations, 4096);
}

#[test]
fn iterations_outside_kafkas_limits_are_refused_for_each_mechanism() {
    for (m, name) in [(Sha256, "SCRAM_SHA_256"), (Sha512, "SCRAM_SHA_512")] {
        let with = |n| ScramArgument::with_password(m, "a", None, Some(n), "pw").to_record();
        assert_eq!(
            err(with(4095)),
            format!("The 'iterations' value must be >= 4096 for add-scram using {name}")
        );
        assert_eq!(
            err(with(16385)),
            format!("The 'iterations' value must be <= 16384 for add-scram using {name}")
        );
        assert_eq!(
            err(with(-1)),
            format!("The 'iterations' value must be >= 4096 for add-scram using {name}")
        );
        assert_eq!(with(4096).unwrap().iterations, 4096);
        assert_eq!(with(16384).unwrap().iterations, 16384);
    }
}

#[test]
fn bad_iterations_salt_and_salted_password_quote_kafkas_text() {
    assert_eq!(
        err(parse(Sha256, "name=a,password=p,iterations=lots")),
        "Failed to parse iterations count: lots"
    );
    assert_eq!(
        err(parse(Sha256, "name=a,password=p,iterations=99999999999")),
        "Failed to parse iterations count: 99999999999"
    );
    assert_eq!(
        err(parse(Sha256, "name=a,password=p,iterations= 8192")),
        "Failed to parse iterations count:  8192"
    );
    assert_eq!(
        parse(Sha256, "name=a,password=p,iterations=+8192")
            .unwrap()
            .iterations,
        Some(8192)
    );
    assert_eq!(
        err(parse(Sha256, "name=a,password=p,salt=%%%")),
        "Failed to decode given salt: %%%"
    );
    assert_eq!(
        err(parse(Sha256, "name=a,salt=N3E=,saltedpassword=Y")),
        "Failed to decode given saltedPassword: Y"
    );
    // The salt is decoded before the iterations are parsed.
    assert_eq!(
        err(parse(Sha256, "name=a,iterations=x,salt=%")),
        "Failed to decode given salt: %"
    );
}

#[test]
fn base64_is_javas_basic_decoder() {
    let ok = |s: &str| java_base64_decode(s);
    assert_eq!(ok("N3E="), Some(b"7q".to_vec()));
    assert_eq!(ok("N3E"), Some(b"7q".to_vec()), "padding is optional");
    assert_eq!(ok("YQ=="), Some(b"a".to_vec()));
    assert_eq!(ok("YQ"), Some(b"a".to_vec()));
    assert_eq!(ok("YR=="), Some(b"a".to_vec()), "trailing bits ignored");
    assert_eq!(ok(""), Some(Vec::new()));
    for bad in [
        "YQ=", "Y", "Y===", "=", "N3E=x", "N3E==", "YQ==YQ==", "N3 E", "N3E\n", "_-8=", "YQ=YQ",
    ] {
        assert_eq!(ok(bad), None, "{bad:?}");
    }
}

#[test]
fn components_split_like_javas_string_split() {
    // Trailing empty components are dropped; others are refused.
    assert_eq!(
        parse(Sha256, "name=a,password=p,,").unwrap(),
        ScramArgument::with_password(Sha256, "a", None, None, "p")
    );
    assert_eq!(
        err(parse(Sha256, "name=a,,password=p")),
        "No equals sign found in SCRAM component: "
    );
    assert_eq!(
        err(parse(Sha256, ",name=a,password=p")),
        "No equals sign found in SCRAM component: "
    );
    assert_eq!(
        err(parse(Sha256, "")),
        "No equals sign found in SCRAM component: "
    );
    assert_eq!(
        err(parse(Sha256, ",")),
        "You must supply 'name' to add-scram"
    );
    // A key given twice keeps its last value; the name may be empty.
    assert_eq!(parse(Sha256, "name=a,password=p,name=b").unwrap().name, "b");
    assert_eq!(parse(Sha256, "name=,password=p").unwrap().name, "");
}

#[test]
fn a_password_wins_over_a_salted_password_which_is_then_ignored() {
    assert_eq!(
        parse(Sha256, "name=a,password=p,saltedpassword=%%%").unwrap(),
        ScramArgument::with_password(Sha256, "a", None, None, "p")
    );
}

#[test]
fn empty_keys_fail_like_javas_secret_key_spec() {
    assert_eq!(
        err(parse(Sha256, "name=a,password=").unwrap().to_record()),
        "Empty key"
    );
    assert_eq!(
        err(parse(Sha512, "name=a,salt=N3E=,saltedpassword=\"\"")
            .unwrap()
            .to_record()),
        "Empty key"
    );
    // The iterations are checked first.
    assert_eq!(
        err(parse(Sha256, "name=a,password=,iterations=1")
            .unwrap()
            .to_record()),
        "The 'iterations' value must be >= 4096 for add-scram using SCRAM_SHA_256"
    );
}

#[test]
fn scram_records_take_the_arguments_in_order_and_fail_at_the_first_bad_one() {
    let records = scram_records(&args(&[
        "SCRAM-SHA-512=[name=alice,password=changeit]",
        "SCRAM-SHA-512=[name=bob,password=changeit]",
        &format!("SCRAM-SHA-256=[name=alice,salt=\"{TEST_SALT_B64}\",saltedpassword=\"{TEST_SALTED_PASSWORD_B64}\"]"),
    ]))
    .unwrap();
    let names: Vec<(String, i8, i16)> = records
        .iter()
        .map(|r| match &r.body {
            kraft_protocol::MetadataRecordBody::UserScramCredential(c) => {
                (c.name.to_string(), c.mechanism, r.version)
            }
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(
        names,
        [
            ("alice".to_string(), 2, 0),
            ("bob".to_string(), 2, 0),
            ("alice".to_string(), 1, 0)
        ]
    );
    // The first argument's range check comes before the second's syntax.
    assert_eq!(
        err(scram_records(&args(&[
            "SCRAM-SHA-256=[name=a,password=p,iterations=1]",
            "SCRAM-SHA-256",
        ]))),
        "The 'iterations' value must be >= 4096 for add-scram using SCRAM_SHA_256"
    );
    assert_eq!(scram_records(&[]).unwrap(), Vec::new());
}

#[test]
fn passwords_never_reach_errors_or_debug_output() {
    let secret = "s3cr3t-pa55";
    let data = parse(Sha256, &format!("name=a,password={secret}")).unwrap();
    let debug = format!("{data:?}");
    assert!(!debug.contains(secret), "{debug}");
    assert!(debug.contains("password: Some([hidden])"), "{debug}");
    let salted = parse(
        Sha256,
        &format!("name=a,salt=N3E=,saltedpassword={TEST_SALTED_PASSWORD_B64}"),
    )
    .unwrap();
    assert!(!format!("{salted:?}").contains("153"), "{salted:?}");
    for bad in [
        format!("SCRAM-SHA-256=[name=a,password={secret},iterations=1]"),
        format!("SCRAM-SHA-256=[name=a,password={secret},iterations=x]"),
        format!("SCRAM-SHA-256=[name=a,password={secret},bogus=1]"),
        format!("SCRAM-SHA-256=[name=a,password={secret},salt=%]"),
        format!("SCRAM-SHA-256=[password={secret}]"),
        format!("SCRAM-SHA-256=[name=a,password={secret},,x]"),
        format!("SCRAM-SHA-999=[name=a,password={secret}]"),
        format!("SCRAM-SHA-256=[name=a,password={secret}"),
    ] {
        let e = err(scram_records(std::slice::from_ref(&bad)));
        assert!(!e.contains(secret), "{bad}: {e}");
    }
}

#[test]
fn record_text_is_kafkas_to_string() {
    let r = UserScramCredentialRecord {
        name: "alice".into(),
        mechanism: 2,
        salt: Bytes::from(b64("N3E=")),
        stored_key: Bytes::from_static(&[0, 127, 128, 255]),
        server_key: Bytes::new(),
        iterations: 8192,
        ..Default::default()
    };
    assert_eq!(
        record_text(&r),
        "UserScramCredentialRecord(name='alice', mechanism=2, salt=[55, 113], \
         storedKey=[0, 127, -128, -1], serverKey=[], iterations=8192)"
    );
}
