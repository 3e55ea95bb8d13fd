//! Authorization with real `kraft server` processes: the StandardAuthorizer
//! configured as Kafka configures it, the principal of a PLAINTEXT
//! connection (`User:ANONYMOUS`), and the keys refused at start.

use super::*;

const STANDARD: &str =
    "authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer\n";

/// One standalone controller with `extra` properties, started until its
/// listener answers (a `describe --status` through `kraft`).
fn standalone(name: &str, extra: &str) -> Cluster {
    let mut c = Cluster::new(name, 3);
    c.write_props_with(1, extra);
    let cluster_id = kraft_ok(&["storage", "random-uuid"]).trim().to_string();
    format(&c, 1, &cluster_id, &["--standalone"]);
    c.server(1).start();
    c
}

fn describe_status(c: &Cluster) -> (i32, String, String) {
    kraft(&[
        "metadata-quorum",
        "--bootstrap-controller",
        &c.controller(1),
        "--command-config",
        c.fast_client().to_str().unwrap_or_default(),
        "describe",
        "--status",
    ])
}

#[test]
fn an_anonymous_client_is_refused_without_acls_and_served_as_a_super_user() {
    // No super users, no ACLs: User:ANONYMOUS is refused the DescribeCluster
    // (ALTER on a controller) that `describe` starts with.
    let mut c = standalone("authz-refused", STANDARD);
    let refused = wait_for(
        "the controller answers (and refuses)",
        Duration::from_secs(60),
        || {
            let (code, out, err) = describe_status(&c);
            (code != 0 && err.contains("CLUSTER_AUTHORIZATION_FAILED")).then_some((out, err))
        },
    );
    assert!(
        refused
            .1
            .contains("principal=User:ANONYMOUS/127.0.0.1) needs ALTER permission."),
        "{}\n{}",
        refused.1,
        c.server_log(1)
    );
    assert_eq!(c.server(1).stop(), Some(0), "{}", c.server_log(1));

    // The same controller with User:ANONYMOUS a super user answers.
    let mut c = standalone(
        "authz-super-user",
        &format!("{STANDARD}super.users=User:admin;User:ANONYMOUS\n"),
    );
    wait_for("the controller leads", Duration::from_secs(60), || {
        c.status(1)
            .and_then(|s| (s["leaderId"].as_i64() == Some(1)).then_some(()))
    });
    assert_eq!(c.server(1).stop(), Some(0), "{}", c.server_log(1));
}

#[test]
fn a_plugin_kraft_rs_cannot_load_stops_the_start() {
    for (key, value) in [
        (
            "authorizer.class.name",
            "kafka.security.authorizer.AclAuthorizer",
        ),
        ("create.topic.policy.class.name", "com.example.Policy"),
        ("principal.builder.class", "com.example.Builder"),
    ] {
        let c = Cluster::new("authz-plugin", 3);
        c.write_props_with(1, &format!("{key}={value}\n"));
        let (code, out, err) = kraft(&[
            "server",
            "--config",
            c.props(1).to_str().unwrap_or_default(),
        ]);
        assert_ne!(code, 0, "{key}: {out}{err}");
        assert!(
            err.contains(&format!("Invalid value {value} for configuration {key}")),
            "{key}: {err}"
        );
    }
}
