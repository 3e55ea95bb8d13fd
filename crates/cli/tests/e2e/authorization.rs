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

#[test]
fn bad_input_gets_kafkas_answers_and_the_connection_stays_usable() {
    use kraft_protocol::messages::alter_user_scram_credentials_request as scram;
    use kraft_protocol::messages::create_acls_request::{AclCreation, CreateAclsRequest};
    use kraft_protocol::messages::describe_acls_request::DescribeAclsRequest;
    use kraft_protocol::messages::envelope_request::EnvelopeRequest;
    use kraft_protocol::{RequestBody, ResponseBody};

    let mut c = standalone(
        "authz-bad-input",
        &format!("{STANDARD}super.users=User:admin;User:ANONYMOUS\n"),
    );
    wait_for("the controller leads", Duration::from_secs(60), || {
        c.status(1)
            .and_then(|s| (s["leaderId"].as_i64() == Some(1)).then_some(()))
    });
    let mut conn = Connection::open(&c.controller(1));
    let acl = |name: &str| AclCreation {
        resource_type: 2,
        resource_name: name.into(),
        resource_pattern_type: 3,
        principal: "User:alice".into(),
        host: "*".into(),
        operation: 3,
        permission_type: 3,
        ..Default::default()
    };

    // A garbled principal in an envelope (the sender, ANONYMOUS, is a super
    // user and so may forward).
    let mut inner = Vec::new();
    kraft_protocol::header::encode_request_frame(
        &mut inner,
        &kraft_protocol::messages::request_header::RequestHeader {
            request_api_key: 29,
            request_api_version: 3,
            correlation_id: 9,
            client_id: Some("adminclient-1".into()),
            ..Default::default()
        },
        &RequestBody::DescribeAcls(DescribeAclsRequest::default()),
    )
    .expect("encode");
    let envelope = RequestBody::Envelope(EnvelopeRequest {
        request_data: bytes::Bytes::from(inner).slice(4..),
        request_principal: Some(bytes::Bytes::from_static(b"\0\0\x09Us")),
        client_host_address: bytes::Bytes::from_static(&[127, 0, 0, 1]),
        ..Default::default()
    });
    let Some(ResponseBody::Envelope(r)) = conn.send(0, &envelope) else {
        panic!("no answer to the envelope:\n{}", c.server_log(1))
    };
    assert_eq!(r.error_code, 97, "PRINCIPAL_DESERIALIZATION_FAILURE");

    // 10,001 new ACLs in one request: POLICY_VIOLATION for each, nothing
    // written.
    let creations: Vec<AclCreation> = (0..10_001).map(|i| acl(&format!("t-{i}"))).collect();
    let request = RequestBody::CreateAcls(CreateAclsRequest {
        creations: creations.into(),
        ..Default::default()
    });
    let Some(ResponseBody::CreateAcls(r)) = conn.send(3, &request) else {
        panic!("no answer to CreateAcls:\n{}", c.server_log(1))
    };
    assert_eq!(r.results.len(), 10_001);
    assert!(r.results.iter().all(|x| x.error_code == 44
        && x.error_message.as_ref().map(|m| m.as_str())
            == Some("Unable to perform excessively large batch operation.")));

    // A SCRAM salt of an unusual size: Kafka does not check it (accepted);
    // too few iterations: UNACCEPTABLE_CREDENTIAL.
    let request = RequestBody::AlterUserScramCredentials(scram::AlterUserScramCredentialsRequest {
        upsertions: vec![
            scram::ScramCredentialUpsertion {
                name: "carol".into(),
                mechanism: 1,
                iterations: 4096,
                salt: bytes::Bytes::from_static(b"s"),
                salted_password: bytes::Bytes::from_static(&[7; 32]),
                ..Default::default()
            },
            scram::ScramCredentialUpsertion {
                name: "dave".into(),
                mechanism: 1,
                iterations: 10,
                salt: bytes::Bytes::from_static(&[1; 64]),
                salted_password: bytes::Bytes::from_static(&[7; 32]),
                ..Default::default()
            },
        ]
        .into(),
        ..Default::default()
    });
    let Some(ResponseBody::AlterUserScramCredentials(r)) = conn.send(0, &request) else {
        panic!(
            "no answer to AlterUserScramCredentials:\n{}",
            c.server_log(1)
        )
    };
    let results: Vec<(String, i16, Option<String>)> = r
        .results
        .iter()
        .map(|x| {
            (
                x.user.to_string(),
                x.error_code,
                x.error_message.as_ref().map(|m| m.to_string()),
            )
        })
        .collect();
    assert!(results.contains(&("carol".into(), 0, None)), "{results:?}");
    assert!(
        results.contains(&("dave".into(), 93, Some("Too few iterations".into()))),
        "{results:?}"
    );

    // The same connection still serves: no ACL was written.
    let Some(ResponseBody::DescribeAcls(r)) = conn.send(
        3,
        &RequestBody::DescribeAcls(DescribeAclsRequest {
            resource_type_filter: 1,
            pattern_type_filter: 1,
            operation: 1,
            permission_type: 1,
            ..Default::default()
        }),
    ) else {
        panic!("no answer to DescribeAcls:\n{}", c.server_log(1))
    };
    assert_eq!((r.error_code, r.resources.len()), (0, 0));
    assert_eq!(c.server(1).stop(), Some(0), "{}", c.server_log(1));
}
