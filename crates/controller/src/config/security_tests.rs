//! The security keys: authorizer, super users, principal builder,
//! early-start listeners, delegation tokens and refused plugins.

use super::*;

fn parse(text: &str) -> Result<(ControllerConfig, Vec<ConfigWarning>), ConfigError> {
    ControllerConfig::parse(&Properties::parse(text).expect("syntax"))
}

fn err(text: &str) -> String {
    parse(text).expect_err("must be refused").to_string()
}

const MINIMAL: &str = "process.roles=controller\nnode.id=1\ncontroller.listener.names=CONTROLLER\n\
                       listeners=CONTROLLER://:9093\ncontroller.quorum.bootstrap.servers=localhost:9093\n";

#[test]
fn no_authorizer_by_default() {
    let (c, w) = parse(MINIMAL).expect("valid");
    assert!(w.is_empty());
    assert_eq!(c.security.authorizer, None);
    assert!(c.security.early_start_listeners.is_none());
    assert!(c
        .security
        .is_early_start("CONTROLLER", &c.controller_listener_names));
    assert_eq!(c.security.delegation_tokens.secret_key, None);
    assert_eq!(c.security.delegation_tokens.max_lifetime_ms, 604_800_000);
    assert_eq!(c.security.delegation_tokens.expiry_time_ms, 86_400_000);
    assert_eq!(
        c.security.delegation_tokens.expiry_check_interval_ms,
        3_600_000
    );
    // An empty class name is "no authorizer", as in Kafka.
    let (c, _) = parse(&format!("{MINIMAL}authorizer.class.name=\n")).expect("valid");
    assert_eq!(c.security.authorizer, None);
}

#[test]
fn standard_authorizer_reads_its_keys() {
    let (c, w) = parse(&format!(
        "{MINIMAL}authorizer.class.name = org.apache.kafka.metadata.authorizer.StandardAuthorizer \n\
         super.users=User:admin; User:ANONYMOUS;;\nallow.everyone.if.no.acl.found=TRUE\n"
    ))
    .expect("valid");
    assert!(w.is_empty(), "{w:?}");
    let a = c.security.authorizer.expect("authorizer");
    assert_eq!(a.super_users, ["User:admin", "User:ANONYMOUS"]);
    assert!(a.allow_everyone_if_no_acl_found);
}

#[test]
fn another_authorizer_is_refused_naming_the_key() {
    let e = err(&format!(
        "{MINIMAL}authorizer.class.name=kafka.security.authorizer.AclAuthorizer\n"
    ));
    assert!(e.starts_with(
        "Invalid value kafka.security.authorizer.AclAuthorizer for configuration authorizer.class.name: \
         kraft-rs cannot load Java plugins"
    ), "{e}");
}

#[test]
fn a_malformed_super_user_is_refused() {
    let e = err(&format!(
        "{MINIMAL}authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer\n\
         super.users=User:admin;bob\n"
    ));
    assert!(e.contains("for configuration super.users"), "{e}");
    assert!(
        e.ends_with("expected a string in format principalType:principalName but got bob"),
        "{e}"
    );
}

#[test]
fn authorizer_keys_without_an_authorizer_are_warned_about() {
    let (_, w) = parse(&format!(
        "{MINIMAL}super.users=User:admin\nallow.everyone.if.no.acl.found=false\n"
    ))
    .expect("valid");
    let keys: Vec<&str> = w.iter().map(|w| w.key.as_str()).collect();
    assert_eq!(keys, ["super.users", "allow.everyone.if.no.acl.found"]);
    assert!(w[0].message.contains("no request is authorized"));
}

#[test]
fn only_the_default_principal_builder_is_served() {
    let ok = "org.apache.kafka.common.security.authenticator.DefaultKafkaPrincipalBuilder";
    parse(&format!("{MINIMAL}principal.builder.class={ok}\n")).expect("default builder");
    let e = err(&format!(
        "{MINIMAL}principal.builder.class=com.example.Builder\n"
    ));
    assert!(
        e.starts_with(
            "Invalid value com.example.Builder for configuration principal.builder.class"
        ),
        "{e}"
    );
}

#[test]
fn plugin_keys_are_refused_not_ignored() {
    for (key, _) in security::REFUSED_PLUGIN_KEYS {
        let e = err(&format!("{MINIMAL}{key}=com.example.Plugin\n"));
        assert!(
            e.starts_with(&format!(
                "Invalid value com.example.Plugin for configuration {key}:"
            )),
            "{e}"
        );
        assert!(e.contains("kraft-rs cannot load Java plugins"), "{e}");
        // An empty value is "not set".
        parse(&format!("{MINIMAL}{key}=\n")).expect("empty is unset");
    }
    let e = err(&format!(
        "{MINIMAL}listener.name.controller.plain.sasl.server.callback.handler.class=com.example.Cb\n"
    ));
    assert!(
        e.contains(
            "configuration listener.name.controller.plain.sasl.server.callback.handler.class"
        ),
        "{e}"
    );
}

#[test]
fn early_start_listeners_must_be_listeners() {
    let (c, _) = parse(&format!("{MINIMAL}early.start.listeners=\n")).expect("valid");
    assert_eq!(c.security.early_start_listeners, Some(vec![]));
    assert!(!c
        .security
        .is_early_start("CONTROLLER", &c.controller_listener_names));
    let (c, _) = parse(&format!("{MINIMAL}early.start.listeners=controller\n")).expect("valid");
    assert!(c
        .security
        .is_early_start("CONTROLLER", &c.controller_listener_names));
    assert_eq!(
        err(&format!(
            "{MINIMAL}early.start.listeners=CONTROLLER,PLAIN\n"
        )),
        "early.start.listeners contains listener PLAIN, but this is not contained in listeners \
         or controller.listener.names"
    );
}

#[test]
fn the_token_secret_never_reaches_debug_output() {
    let (c, _) = parse(&format!(
        "{MINIMAL}delegation.token.secret.key=s3cr3t-value\ndelegation.token.max.lifetime.ms=1000\n\
         delegation.token.expiry.time.ms=500\ndelegation.token.expiry.check.interval.ms=100\n"
    ))
    .expect("valid");
    let t = &c.security.delegation_tokens;
    assert_eq!(
        t.secret_key.as_ref().map(|s| s.value()),
        Some("s3cr3t-value")
    );
    assert_eq!(
        (
            t.max_lifetime_ms,
            t.expiry_time_ms,
            t.expiry_check_interval_ms
        ),
        (1000, 500, 100)
    );
    let shown = format!("{c:?}");
    assert!(!shown.contains("s3cr3t"), "{shown}");
    assert!(shown.contains("[hidden]"));
    let e = err(&format!("{MINIMAL}delegation.token.max.lifetime.ms=0\n"));
    assert!(e.contains("delegation.token.max.lifetime.ms"), "{e}");
}
