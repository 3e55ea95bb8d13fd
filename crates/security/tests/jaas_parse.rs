//! `sasl.jaas.config` parsing: Kafka's `JaasContextTest` cases, and every
//! case of `tests/data/sasl/jaas_cases.txt` against the result Kafka 4.4's
//! own `JaasConfig` gave for it (`tests/data/sasl/kafka_vectors.txt`,
//! written by `run-kafka-vectors.sh`).

#![allow(clippy::unwrap_used)]

use std::collections::BTreeMap;

use kraft_security::jaas::{parse_jaas_config, parse_single, ControlFlag, JaasEntry};
use kraft_security::SecurityError;

mod kafka_vectors;
use kafka_vectors::{escape, unescape, vector};

const CASES: &str = include_str!("data/sasl/jaas_cases.txt");

fn describe(result: &Result<Vec<JaasEntry>, SecurityError>) -> String {
    match result {
        Ok(entries) => {
            let mut out = String::from("OK");
            for e in entries {
                out.push_str(&format!(" [{}|{}", escape(&e.login_module), e.flag));
                for (k, v) in &e.options {
                    out.push_str(&format!("|{}={}", escape(k), escape(v)));
                }
                out.push(']');
            }
            out
        }
        Err(SecurityError::Config { key, reason }) => {
            assert_eq!(key, "sasl.jaas.config");
            // Kafka's IllegalArgumentException without a message.
            let reason = if reason == "Login module name not specified in JAAS config" {
                "null"
            } else {
                reason
            };
            format!("ERR IllegalArgumentException: {reason}")
        }
        Err(other) => panic!("unexpected error kind {other:?}"),
    }
}

#[test]
fn every_case_parses_as_kafka_4_4_parses_it() {
    let mut checked = 0;
    for (i, line) in CASES.lines().enumerate() {
        let text = unescape(line);
        let got = describe(&parse_jaas_config(&text));
        assert_eq!(got, vector(&format!("jaas.{i}")), "case {i}: {line:?}");
        checked += 1;
    }
    assert!(checked >= 70, "only {checked} cases");
}

fn options(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

fn single(text: &str) -> JaasEntry {
    parse_single(text).unwrap_or_else(|e| panic!("{text:?}: {e}"))
}

fn reason(text: &str) -> String {
    match parse_jaas_config(text) {
        Err(SecurityError::Config { key, reason }) => {
            assert_eq!(key, "sasl.jaas.config");
            reason
        }
        other => panic!("{text:?} parsed: {other:?}"),
    }
}

#[test]
fn config_no_options() {
    let e = single("test.testConfigNoOptions required;");
    assert_eq!(e.login_module, "test.testConfigNoOptions");
    assert_eq!(e.flag, ControlFlag::Required);
    assert!(e.options.is_empty());
}

#[test]
fn control_flags() {
    for (text, flag) in [
        ("required", ControlFlag::Required),
        ("REQUISITE", ControlFlag::Requisite),
        ("Sufficient", ControlFlag::Sufficient),
        ("optional", ControlFlag::Optional),
    ] {
        let e = single(&format!("test.testControlFlag {text} propName=propValue;"));
        assert_eq!(e.flag, flag);
        assert_eq!(e.options, options(&[("propName", "propValue")]));
    }
}

#[test]
fn multiple_options() {
    let mut text = String::from("test.testMultipleOptions sufficient");
    for i in 0..10 {
        text.push_str(&format!(" propName{i}=propValue{i}"));
    }
    text.push(';');
    let e = single(&text);
    assert_eq!(e.options.len(), 10);
    assert_eq!(e.option("propName7"), Some("propValue7"));
}

#[test]
fn quoted_values_and_names() {
    let e = single(
        r#"test.testQuotedOptionValue required propName="prop value" propName2="value1 = 1, value2 = 2";"#,
    );
    assert_eq!(
        e.options,
        options(&[
            ("propName", "prop value"),
            ("propName2", "value1 = 1, value2 = 2")
        ])
    );
    let e = single(r#"test.testQuotedOptionName required "prop name"=propValue;"#);
    assert_eq!(e.options, options(&[("prop name", "propValue")]));
    let e = single(r#"test.testNumericOptionWithQuotes required option1="3";"#);
    assert_eq!(e.options, options(&[("option1", "3")]));
}

#[test]
fn quoted_escapes() {
    let e = single(r#"m required a="q\"x\\y\n\t\101";"#);
    assert_eq!(e.option("a"), Some("q\"x\\y\n\tA"));
    assert!(parse_single(r"m required b='it\'s';").is_ok_and(|e| e.option("b") == Some("it's")));
}

#[test]
fn multiple_login_modules() {
    let text = " test.Module0 required index=Index0 module=Module0; test.Module1 required index=Index1 module=Module1; test.Module2 required index=Index2 module=Module2;";
    let entries = parse_jaas_config(text).unwrap();
    assert_eq!(entries.len(), 3);
    for (i, e) in entries.iter().enumerate() {
        assert_eq!(e.login_module, format!("test.Module{i}"));
        assert_eq!(e.flag, ControlFlag::Required);
        assert_eq!(
            e.options,
            options(&[
                ("index", &format!("Index{i}")),
                ("module", &format!("Module{i}"))
            ])
        );
    }
    match parse_single(text) {
        Err(SecurityError::Config { reason, .. }) => assert_eq!(
            reason,
            "JAAS config property contains 3 login modules, should be 1 module"
        ),
        other => panic!("{other:?}"),
    }
}

#[test]
fn invalid_configs() {
    assert_eq!(
        reason("  required option1=value1;"),
        "Invalid login module control flag 'option1' in JAAS config"
    );
    assert_eq!(
        reason("test.loginModule option1=value1;"),
        "Invalid login module control flag 'option1' in JAAS config"
    );
    assert_eq!(
        reason("loginModule required option1;"),
        "Value not specified for key 'option1' in JAAS config"
    );
    assert_eq!(
        reason("test.testMissingSemicolon required option1=value1"),
        "JAAS config entry not terminated by semi-colon"
    );
    assert_eq!(
        reason("test.testNumericOptionWithoutQuotes required option1=3;"),
        "Value not specified for key 'option1' in JAAS config"
    );
    assert_eq!(
        reason("test.testInvalidControlFlag { option1=3;"),
        "Login module control flag is not available in the JAAS config"
    );
    assert_eq!(reason(""), "Login module not specified in JAAS config");
    assert_eq!(
        reason(" // nothing"),
        "Login module not specified in JAAS config"
    );
    assert_eq!(
        reason("m"),
        "Login module control flag not specified in JAAS config"
    );
}

#[test]
fn comments_are_skipped() {
    let e = single("/* a */ m // b\n required /* c */ a=b // d\n ; // e");
    assert_eq!(e.login_module, "m");
    assert_eq!(e.options, options(&[("a", "b")]));
}

#[test]
fn disallowed_login_modules() {
    for module in [
        "com.sun.security.auth.module.JndiLoginModule",
        "com.sun.security.auth.module.LdapLoginModule",
    ] {
        // Parsing alone accepts them (Kafka's JaasConfig does too) ...
        assert!(parse_jaas_config(&format!("{module} required;")).is_ok());
        // ... loading one as the single login module does not.
        match parse_single(&format!("{module} required;")) {
            Err(SecurityError::Config { reason, .. }) => assert_eq!(
                reason,
                format!(
                    "{module} is not allowed. The system property 'org.apache.kafka.disallowed.login.modules' \
                     is deprecated. Use the org.apache.kafka.allowed.login.modules to allow this module. \
                     e.g.,-Dorg.apache.kafka.allowed.login.modules={module}"
                )
            ),
            other => panic!("{other:?}"),
        }
    }
    assert!(parse_single("com.ibm.security.auth.module.Krb5LoginModule required;").is_ok());
}

/// Option values are passwords: no error and no Debug output shows them.
#[test]
fn values_never_reach_errors_or_debug() {
    let secret = "s3cr3t-Value";
    let bad = [
        format!("m required password=\"{secret}\""),
        format!("m required password=\"{secret}\" x;"),
        format!("m required password=\"{secret}\"; n required;"),
        format!("m bogus password=\"{secret}\";"),
        format!("m required password=\"{secret}\" 5=\"{secret}\" z;"),
    ];
    for text in &bad {
        let err = match parse_single(text) {
            Err(e) => e,
            Ok(e) => panic!("{text:?} parsed: {e:?}"),
        };
        assert!(!err.to_string().contains(secret), "{err}");
        assert!(!format!("{err:?}").contains(secret), "{err:?}");
    }
    let e = single(&format!(
        "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"admin\" password=\"{secret}\";"
    ));
    assert_eq!(e.option("password"), Some(secret));
    let debug = format!("{e:?}");
    assert!(!debug.contains(secret), "{debug}");
    assert!(debug.contains("password"), "{debug}");
}
