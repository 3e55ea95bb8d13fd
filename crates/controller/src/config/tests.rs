//! Configuration parsing against Kafka 4.4's defaults, rules and messages.

use super::*;

fn parse(text: &str) -> Result<(ControllerConfig, Vec<ConfigWarning>), ConfigError> {
    ControllerConfig::parse(&Properties::parse(text).expect("syntax"))
}

const MINIMAL: &str = "process.roles=controller\nnode.id=1\ncontroller.listener.names=CONTROLLER\n\
                       listeners=CONTROLLER://:9093\ncontroller.quorum.bootstrap.servers=localhost:9093\n";

#[test]
fn defaults_are_kafkas() {
    let (c, w) = parse(MINIMAL).expect("valid");
    assert!(w.is_empty());
    assert_eq!(c.node_id, 1);
    assert_eq!(c.quorum.election_timeout_ms, 1000);
    assert_eq!(c.quorum.fetch_timeout_ms, 2000);
    assert_eq!(c.quorum.election_backoff_max_ms, 1000);
    assert_eq!(c.quorum.append_linger_ms, 25);
    assert_eq!(c.quorum.request_timeout_ms, 2000);
    assert_eq!(c.quorum.retry_backoff_ms, 20);
    assert!(!c.quorum.auto_join_enable);
    assert_eq!(c.quorum.fetch_max_bytes, 1_048_576);
    assert_eq!(c.quorum.fetch_snapshot_max_bytes, 1_048_576);
    assert_eq!(c.metadata_log.segment_bytes, 1_073_741_824);
    assert_eq!(c.metadata_log.max_retention_bytes, 104_857_600);
    assert_eq!(c.metadata_log.snapshot_max_new_record_bytes, 20_971_520);
    assert_eq!(c.metadata_log.snapshot_max_interval_ms, 3_600_000);
    assert_eq!(c.socket_request_max_bytes, 104_857_600);
    assert_eq!(c.connections_max_idle_ms, 600_000);
    assert_eq!(c.metadata_max_idle_interval_ms, 500);
    assert_eq!(c.min_insync_replicas, 1);
    assert!(!c.unclean_leader_election_enable);
    assert_eq!(c.unclean_leader_election_interval_ms, 300_000);
    assert!(!c.unstable_feature_versions_enable);
    assert_eq!(c.log_dirs, [PathBuf::from("/tmp/kafka-logs")]);
    assert_eq!(c.metadata_log_dir(), Path::new("/tmp/kafka-logs"));
    assert!(c.is_dynamic_quorum());
    assert_eq!(c.default_listener_name(), "CONTROLLER");
    assert_eq!(c.listeners[0].host, None);
    assert_eq!(
        c.listeners[0].security_protocol,
        SecurityProtocol::Plaintext
    );
}

#[test]
fn every_key_is_read() {
    let text = format!(
        "{MINIMAL}controller.quorum.election.timeout.ms=1500\ncontroller.quorum.fetch.timeout.ms = 3000\n\
         controller.quorum.election.backoff.max.ms: 900\ncontroller.quorum.request.timeout.ms=2500\n\
         controller.quorum.retry.backoff.ms=30\ncontroller.quorum.auto.join.enable=TRUE\n\
         metadata.log.segment.bytes=8388608\nmetadata.max.retention.bytes=-1\n\
         metadata.log.max.record.bytes.between.snapshots=1024\nmetadata.log.max.snapshot.interval.ms=0\n\
         unstable.feature.versions.enable=true\nmetadata.log.dir=/m\nlog.dirs=/a, /b\n\
         advertised.listeners=CONTROLLER://ctl-1:9093\nlistener.security.protocol.map=CONTROLLER:PLAINTEXT\n"
    );
    let (c, _) = parse(&text).expect("valid");
    assert_eq!(c.quorum.election_timeout_ms, 1500);
    assert_eq!(c.quorum.fetch_timeout_ms, 3000);
    assert_eq!(c.quorum.election_backoff_max_ms, 900);
    assert_eq!(c.quorum.request_timeout_ms, 2500);
    assert_eq!(c.quorum.retry_backoff_ms, 30);
    assert!(c.quorum.auto_join_enable);
    assert_eq!(c.metadata_log.segment_bytes, 8_388_608);
    assert_eq!(c.metadata_log.max_retention_bytes, -1);
    assert_eq!(c.metadata_log.snapshot_max_new_record_bytes, 1024);
    assert_eq!(c.metadata_log.snapshot_max_interval_ms, 0);
    assert!(c.unstable_feature_versions_enable);
    assert_eq!(c.metadata_log_dir(), Path::new("/m"));
    assert_eq!(
        c.all_log_dirs(),
        [
            PathBuf::from("/a"),
            PathBuf::from("/b"),
            PathBuf::from("/m")
        ]
    );
    let adv = c.effective_advertised_controller_listeners();
    assert_eq!(adv[0].host.as_deref(), Some("ctl-1"));
    assert_eq!(c.quorum.bootstrap_servers[0].to_string(), "localhost:9093");
}

#[test]
fn static_voters_and_advertised_override() {
    let text = "process.roles=controller\nnode.id=2\ncontroller.listener.names=CONTROLLER\n\
                listeners=CONTROLLER://0.0.0.0:9093\n\
                controller.quorum.voters=1@h1:9093,2@h2:9094,3@[::1]:9095\n";
    let (c, _) = parse(text).expect("valid");
    assert!(!c.is_dynamic_quorum());
    assert_eq!(c.static_voter_ids(), [1, 2, 3]);
    assert_eq!(c.quorum.voters[2].address.host, "::1");
    // the default listener has a wildcard host: the voter entry wins
    let adv = c.effective_advertised_controller_listeners();
    assert_eq!(adv[0].host.as_deref(), Some("h2"));
    assert_eq!(adv[0].port, 9094);
}

#[test]
fn unknown_keys_are_warnings() {
    // A Kafka key with no meaning here, a Kafka key kraft-rs does not
    // apply, a topic config's broker synonym (read), an unknown key.
    let (_, w) = parse(&format!(
        "{MINIMAL}num.io.threads=8\nsocket.connection.setup.timeout.ms=10\nlog.retention.hours=5\nfoo.bar=1\n"
    ))
    .expect("valid");
    assert_eq!(w.len(), 3, "{w:?}");
    assert_eq!(w[0].key, "num.io.threads");
    assert!(w[0].message.contains("not applicable"), "{}", w[0].message);
    assert_eq!(w[1].key, "socket.connection.setup.timeout.ms");
    assert!(w[1].message.contains("is not applied"), "{}", w[1].message);
    assert_eq!(w[2].message, "Ignoring unknown configuration foo.bar.");
}

#[test]
fn metrics_listener_is_host_port_and_unset_by_default() {
    let (c, w) = parse(MINIMAL).expect("valid");
    assert_eq!(c.metrics_listener, None);
    assert!(w.is_empty());
    let (c, w) = parse(&format!("{MINIMAL}kraft.metrics.listener=127.0.0.1:0\n")).expect("valid");
    assert!(w.is_empty(), "a known key: {w:?}");
    assert_eq!(
        c.metrics_listener,
        Some(HostPort {
            host: "127.0.0.1".into(),
            port: 0
        })
    );
    let (c, _) = parse(&format!("{MINIMAL}kraft.metrics.listener=[::1]:9308\n")).expect("valid");
    assert_eq!(
        c.metrics_listener.map(|h| h.to_string()),
        Some("[::1]:9308".into())
    );
    let (c, _) = parse(&format!("{MINIMAL}kraft.metrics.listener= \n")).expect("valid");
    assert_eq!(c.metrics_listener, None, "an empty value is not set");
    for bad in ["9308", ":9308", "host:port", "host:70000"] {
        assert_eq!(
            err(&format!("{MINIMAL}kraft.metrics.listener={bad}\n")),
            format!(
                "Invalid value {bad} for configuration kraft.metrics.listener: \
                 Expected HOST:PORT, e.g. 127.0.0.1:9308 (port 0: an ephemeral port)"
            )
        );
    }
}

fn err(text: &str) -> String {
    parse(text).expect_err("invalid").to_string()
}

#[test]
fn broker_role_is_a_clear_error() {
    let e = err(&MINIMAL.replace(
        "process.roles=controller",
        "process.roles=broker,controller",
    ));
    assert!(
        e.starts_with("Invalid value broker,controller for configuration process.roles:"),
        "{e}"
    );
    assert!(e.contains("broker role is not supported"), "{e}");
    let e = err(&MINIMAL.replace("process.roles=controller", "process.roles=observer"));
    assert!(e.contains("Unknown process role 'observer'"), "{e}");
}

#[test]
fn missing_required_keys() {
    assert_eq!(
        err("node.id=1"),
        "Missing required configuration \"process.roles\" which has no default value."
    );
    assert_eq!(
        err("process.roles=controller"),
        "Missing required configuration \"node.id\" which has no default value."
    );
    assert_eq!(
        err("process.roles=controller\nnode.id=1"),
        "Missing required configuration \"controller.listener.names\" which has no default value."
    );
    // broker.id is a synonym
    let (c, _) = parse(&MINIMAL.replace("node.id", "broker.id")).expect("valid");
    assert_eq!(c.node_id, 1);
}

#[test]
fn invalid_values_name_key_and_rule() {
    assert_eq!(
        err(&MINIMAL.replace("node.id=1", "node.id=x")),
        "Invalid value x for configuration node.id: Not a number of type INT"
    );
    assert_eq!(
        err(&MINIMAL.replace("node.id=1", "node.id=-1")),
        "Invalid value -1 for configuration node.id: Value must be at least 0"
    );
    assert_eq!(
        err(&format!("{MINIMAL}controller.quorum.auto.join.enable=yes")),
        "Invalid value yes for configuration controller.quorum.auto.join.enable: Expected value to be either true or false"
    );
    assert_eq!(
        err(&format!("{MINIMAL}metadata.log.segment.bytes=1024")),
        "Invalid value 1024 for configuration metadata.log.segment.bytes: Value must be at least 8388608"
    );
    assert_eq!(
        err(&format!("{MINIMAL}metadata.log.max.snapshot.interval.ms=abc")),
        "Invalid value abc for configuration metadata.log.max.snapshot.interval.ms: Not a number of type LONG"
    );
    assert!(err(&format!("{MINIMAL}controller.quorum.voters=1@host"))
        .contains("controller.quorum.voters"));
    assert!(
        err(&format!("{MINIMAL}controller.quorum.voters=1@0.0.0.0:9093")).contains("not routeable")
    );
    assert!(err(&format!("{MINIMAL}controller.quorum.voters=x@h:1"))
        .contains("Failed to parse voter ID"));
    assert!(err(&MINIMAL.replace("localhost:9093", "localhost"))
        .contains("controller.quorum.bootstrap.servers"));
    assert!(
        err(&MINIMAL.replace("CONTROLLER://:9093", "CONTROLLER//:9093"))
            .contains("Unable to parse")
    );
    assert!(
        err(&MINIMAL.replace("CONTROLLER://:9093", "CONTROLLER://:99999"))
            .contains("between 0 and 65535")
    );
    assert!(err(&format!(
        "{MINIMAL}listener.security.protocol.map=CONTROLLER:TLS"
    ))
    .contains("unknown security protocol"));
}

#[test]
fn cross_key_checks_in_kafkas_order() {
    let no_quorum = MINIMAL.replace("controller.quorum.bootstrap.servers=localhost:9093\n", "");
    assert!(err(&no_quorum)
        .starts_with("If using process.roles, either controller.quorum.bootstrap.servers"));
    let extra_listener =
        MINIMAL.replace("CONTROLLER://:9093", "CONTROLLER://:9093,PLAINTEXT://:9092");
    assert_eq!(
        err(&extra_listener),
        "The listeners config must only contain KRaft controller listeners from controller.listener.names when process.roles=controller"
    );
    let not_a_voter = format!("{MINIMAL}controller.quorum.voters=2@h:9093,3@h:9094");
    assert_eq!(
        err(&not_a_voter),
        "If process.roles contains the 'controller' role, the node id 1 must be included in the set of voters controller.quorum.voters=Set(2, 3)"
    );
    let missing_name = MINIMAL.replace(
        "controller.listener.names=CONTROLLER",
        "controller.listener.names=CONTROLLER,OTHER",
    );
    assert_eq!(
        err(&missing_name),
        "controller.listener.names must only contain values appearing in the 'listeners' configuration when running the KRaft controller role"
    );
    let wildcard = format!("{MINIMAL}advertised.listeners=CONTROLLER://0.0.0.0:9093");
    assert!(err(&wildcard).contains("nonroutable meta-address 0.0.0.0"));
    // TLS and SASL listeners: what cannot work is refused at start.
    let ssl = format!("{MINIMAL}listener.security.protocol.map=CONTROLLER:SSL");
    assert!(err(&ssl).contains("needs a key store"), "{}", err(&ssl));
    let sasl = format!("{MINIMAL}listener.security.protocol.map=CONTROLLER:SASL_PLAINTEXT");
    assert!(
        err(&sasl).contains("includes GSSAPI (Kerberos)"),
        "{}",
        err(&sasl)
    );
    let no_jaas = format!("{sasl}\nsasl.enabled.mechanisms=PLAIN");
    assert!(
        err(&no_jaas).contains("listener.name.controller.plain.sasl.jaas.config is not set"),
        "{}",
        err(&no_jaas)
    );
    let plain = format!(
        "{no_jaas}\nlistener.name.controller.plain.sasl.jaas.config=\
         org.apache.kafka.common.security.plain.PlainLoginModule required \
         username=\"c\" password=\"secret-1\" user_c=\"secret-1\";"
    );
    let wrong_mechanism = format!("{plain}\nsasl.mechanism.controller.protocol=SCRAM-SHA-256");
    let message = err(&wrong_mechanism);
    assert!(
        message.contains(
            "sasl.mechanism.controller.protocol must be included in sasl.enabled.mechanisms"
        ),
        "{message}"
    );
    let oauth = format!("{plain}\nsasl.enabled.mechanisms=PLAIN,OAUTHBEARER");
    assert!(
        err(&oauth).contains("listener.name.controller.oauthbearer.sasl.jaas.config is not set"),
        "{}",
        err(&oauth)
    );
    // A served setup parses, and no secret is in any error above.
    let served = format!("{plain}\nsasl.mechanism.controller.protocol=PLAIN");
    assert!(ControllerConfig::parse(&Properties::parse(&served).expect("props")).is_ok());
    for text in [&no_jaas, &wrong_mechanism, &oauth] {
        assert!(!err(text).contains("secret-1"), "{}", err(text));
    }
    let dup = MINIMAL.replace(
        "CONTROLLER://:9093",
        "CONTROLLER://:9093,CONTROLLER://:9094",
    );
    assert!(err(&dup).contains("different name"));
}

#[test]
fn every_setting_is_declared_once() {
    let keys: BTreeSet<&str> = SETTINGS.iter().map(|s| s.key()).collect();
    assert_eq!(keys.len(), SETTINGS.len(), "a key is declared twice");
}

#[test]
fn out_of_range_values_are_rejected_by_the_table() {
    for s in SETTINGS {
        let (key, below) = match s {
            Setting::Int(Int {
                key, min: Some(m), ..
            })
            | Setting::OptionalInt(OptionalInt {
                key, min: Some(m), ..
            }) => (*key, i64::from(*m) - 1),
            Setting::Long(Long {
                key, min: Some(m), ..
            }) => (*key, *m - 1),
            _ => continue,
        };
        if key == BROKER_ID.key {
            // Only read when node.id is absent; MINIMAL sets node.id.
            continue;
        }
        let text = format!("{MINIMAL}{key}={below}\n");
        let e = err(&text);
        assert!(
            e.contains(key) && e.contains("Value must be at least"),
            "{key}={below}: {e}"
        );
    }
}

#[test]
fn configuration_reference_is_current() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/configuration.md");
    let expected = reference_markdown();
    if std::env::var_os("KRAFT_WRITE_CONFIG_DOC").is_some() {
        std::fs::write(&path, &expected).expect("write docs/configuration.md");
    }
    let actual = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        actual == expected,
        "docs/configuration.md is stale: run KRAFT_WRITE_CONFIG_DOC=1 cargo test -p kraft-controller configuration_reference"
    );
}

/// OAUTHBEARER on a controller listener: Kafka's unsecured validator by
/// default, its JWT validator by class name, everything else refused at
/// start with the key named.
#[test]
fn oauthbearer_listeners_are_served_or_refused_by_name() {
    let base = format!(
        "{MINIMAL}listener.security.protocol.map=CONTROLLER:SASL_PLAINTEXT\n\
         sasl.enabled.mechanisms=PLAIN,OAUTHBEARER\nsasl.mechanism.controller.protocol=PLAIN\n\
         listener.name.controller.plain.sasl.jaas.config=\
         org.apache.kafka.common.security.plain.PlainLoginModule required \
         username=\"c\" password=\"secret-1\" user_c=\"secret-1\";\n\
         listener.name.controller.oauthbearer.sasl.jaas.config=\
         org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required;\n"
    );
    let (config, _) = parse(&base).expect("unsecured OAUTHBEARER is served");
    let listener = config
        .transport
        .listener("CONTROLLER")
        .and_then(|l| l.sasl.clone())
        .expect("a SASL listener");
    assert!(matches!(
        listener.oauthbearer,
        Some(transport::OAuthBearerSettings::Unsecured(_))
    ));
    let bad_skew = base.replace(
        "OAuthBearerLoginModule required;",
        "OAuthBearerLoginModule required unsecuredValidatorAllowableClockSkewMs=\"-1\";",
    );
    assert!(
        err(&bad_skew).contains("Allowable clock skew millis must not be negative"),
        "{}",
        err(&bad_skew)
    );
    let own_logins = base.replace(
        "sasl.mechanism.controller.protocol=PLAIN",
        "sasl.mechanism.controller.protocol=OAUTHBEARER",
    );
    assert!(
        err(&own_logins).contains("do not log in to each other with OAUTHBEARER"),
        "{}",
        err(&own_logins)
    );
    let handler = "listener.name.controller.oauthbearer.sasl.server.callback.handler.class";
    let other = format!("{base}{handler}=com.example.Validator\n");
    assert!(err(&other).contains(handler), "{}", err(&other));
    let jwt = format!(
        "{base}{handler}=org.apache.kafka.common.security.oauthbearer.OAuthBearerValidatorCallbackHandler\n"
    );
    assert!(
        err(&jwt).contains("requires \"sasl.oauthbearer.jwks.endpoint.url\""),
        "{}",
        err(&jwt)
    );
    let url = "file:/nonexistent-kraft-rs-test/jwks.json";
    let with_url = format!("{jwt}sasl.oauthbearer.jwks.endpoint.url={url}\n");
    assert!(
        err(&with_url).contains("requires \"sasl.oauthbearer.expected.audience\""),
        "{}",
        err(&with_url)
    );
    let with_audience = format!("{with_url}sasl.oauthbearer.expected.audience=kraft\n");
    assert!(
        err(&with_audience).contains("requires \"sasl.oauthbearer.expected.issuer\""),
        "{}",
        err(&with_audience)
    );
    // Complete: the listener-prefixed form counts. The URL is opened (and
    // checked against the allowed URLs) only when the server starts.
    let complete = format!(
        "{with_audience}listener.name.controller.sasl.oauthbearer.expected.issuer=https://issuer.example\n"
    );
    let (config, warnings) = parse(&complete).expect("the JWT validator is served");
    assert!(warnings.is_empty(), "{warnings:?}");
    match config
        .transport
        .listener("CONTROLLER")
        .and_then(|l| l.sasl.clone())
        .and_then(|s| s.oauthbearer)
    {
        Some(transport::OAuthBearerSettings::Jwt { config, .. }) => {
            assert_eq!(config.jwks_endpoint_url, url);
            assert_eq!(
                config.rules.expected_issuer.as_deref(),
                Some("https://issuer.example")
            );
        }
        other => panic!("{other:?}"),
    }
    for text in [&bad_skew, &own_logins, &other, &jwt, &with_audience] {
        assert!(!err(text).contains("secret-1"), "{}", err(text));
    }
}

#[test]
fn connections_max_idle_ms_shortens_the_authentication_timeout() {
    use crate::server::authentication_timeout;
    use std::time::Duration;
    // Kafka's default (10 minutes) leaves kraft-rs's 30 s; a shorter idle
    // limit is the limit; a negative one is Kafka's "no idle limit".
    assert_eq!(authentication_timeout(600_000), Duration::from_secs(30));
    assert_eq!(authentication_timeout(5_000), Duration::from_secs(5));
    assert_eq!(authentication_timeout(0), Duration::ZERO);
    assert_eq!(authentication_timeout(-1), Duration::from_secs(30));
}

/// `unclean.leader.election.enable` and `unclean.leader.election.interval.ms`
/// are read, with Kafka's type and bound checks.
#[test]
fn unclean_leader_election_keys_are_read() {
    let (c, _) = parse(&format!(
        "{MINIMAL}unclean.leader.election.enable=true\nunclean.leader.election.interval.ms=1500\n"
    ))
    .expect("valid");
    assert!(c.unclean_leader_election_enable);
    assert_eq!(c.unclean_leader_election_interval_ms, 1500);
    let settings = crate::handlers::ControllerSettings::from_config(&c, "id");
    assert!(settings.topics.unclean_leader_election_enable);
    assert_eq!(
        settings.topics.unclean_leader_election_interval,
        std::time::Duration::from_millis(1500)
    );
    assert!(parse(&format!("{MINIMAL}unclean.leader.election.interval.ms=0\n")).is_err());
    assert!(parse(&format!("{MINIMAL}unclean.leader.election.enable=maybe\n")).is_err());
}

/// The `group.*` settings are checked at start as Kafka's
/// `GroupCoordinatorConfig` and `ShareGroupConfig` check them: each value
/// against its definition, then the bounds against each other, with
/// Kafka's messages.
#[test]
fn group_coordinator_settings_are_checked_at_start() {
    let (c, _) = parse(MINIMAL).expect("valid");
    assert_eq!(c.groups, groups::GroupSettings::default());
    assert_eq!(c.groups.consumer.max_session_timeout_ms, 60_000);
    assert_eq!(c.groups.share_delivery_count_limit, (2, 5, 10));
    assert_eq!(c.groups.streams_assignor_names, ["sticky"]);
    for (extra, message) in [
        (
            "group.share.delivery.count.limit=11",
            "Invalid value 11 for configuration group.share.delivery.count.limit: Value must be no more than 10",
        ),
        (
            "group.share.min.record.lock.duration.ms=999",
            "Invalid value 999 for configuration group.share.min.record.lock.duration.ms: Value must be at least 1000",
        ),
        (
            "group.consumer.min.heartbeat.interval.ms=20000",
            "group.consumer.max.heartbeat.interval.ms must be greater than or equal to group.consumer.min.heartbeat.interval.ms",
        ),
        (
            "group.share.session.timeout.ms=70000",
            "group.share.session.timeout.ms must be less than or equal to group.share.max.session.timeout.ms",
        ),
        (
            "group.streams.heartbeat.interval.ms=15000\ngroup.streams.session.timeout.ms=15000\ngroup.streams.min.session.timeout.ms=1000",
            "group.streams.heartbeat.interval.ms must be less than group.streams.session.timeout.ms",
        ),
        (
            "group.streams.num.standby.replicas=3",
            "group.streams.num.standby.replicas must be less than or equal to group.streams.max.standby.replicas",
        ),
        (
            "group.share.delivery.count.limit=2\ngroup.share.min.delivery.count.limit=3",
            "group.share.delivery.count.limit must be greater than or equal to group.share.min.delivery.count.limit",
        ),
        (
            "group.streams.assignors=com.example.MyAssignor",
            "Invalid value com.example.MyAssignor for configuration group.streams.assignors",
        ),
        (
            "group.streams.assignors=sticky,org.apache.kafka.coordinator.group.streams.assignor.StickyTaskAssignor",
            "Assignor name 'sticky' is already registered by another configured assignor",
        ),
    ] {
        let e = err(&format!("{MINIMAL}{extra}\n"));
        assert!(e.contains(message), "{extra}: {e}");
    }
    let (c, _) = parse(&format!(
        "{MINIMAL}group.streams.assignors=org.apache.kafka.coordinator.group.streams.assignor.StickyTaskAssignor\n\
         group.consumer.max.session.timeout.ms=90000\n"
    ))
    .expect("valid");
    assert_eq!(c.groups.streams_assignor_names, ["sticky"]);
    assert_eq!(c.groups.consumer.max_session_timeout_ms, 90_000);
}

#[test]
fn remote_log_storage_system_enable_is_a_boolean() {
    let (_, w) =
        parse(&format!("{MINIMAL}remote.log.storage.system.enable=true\n")).expect("valid");
    assert!(w.is_empty(), "{w:?}");
    let e = err(&format!(
        "{MINIMAL}remote.log.storage.system.enable=maybe\n"
    ));
    assert!(
        e.contains("remote.log.storage.system.enable") && e.contains("either true or false"),
        "{e}"
    );
}

#[test]
fn metrics_naming_is_strimzi_by_default_or_confluent() {
    use crate::metrics::MetricNaming;
    let (c, _) = parse(MINIMAL).expect("valid");
    assert_eq!(c.metrics_naming, MetricNaming::Strimzi);
    let (c, _) = parse(&format!("{MINIMAL}kraft.metrics.naming=confluent\n")).expect("valid");
    assert_eq!(c.metrics_naming, MetricNaming::Confluent);
    let e = err(&format!("{MINIMAL}kraft.metrics.naming=prometheus\n"));
    assert!(
        e.contains("kraft.metrics.naming") && e.contains("Expected strimzi or confluent"),
        "{e}"
    );
}

/// `controller.quota.window.num` and `controller.quota.window.size.seconds`
/// are read with Kafka's defaults (11 and 1) and lower bound (1), and
/// shape the controller mutation quota's burst.
#[test]
fn controller_quota_window_keys_are_read() {
    use crate::config::kafka_keys::{handling, Handling};
    use crate::handlers::MutationQuotaWindow;
    let (c, _) = parse(MINIMAL).expect("valid");
    assert_eq!(c.controller_quota_window_num, 11);
    assert_eq!(c.controller_quota_window_size_seconds, 1);
    assert_eq!(
        crate::handlers::ControllerSettings::from_config(&c, "id").mutation_quota_window,
        MutationQuotaWindow::default()
    );
    let (c, _) = parse(&format!(
        "{MINIMAL}controller.quota.window.num=5\ncontroller.quota.window.size.seconds=2\n"
    ))
    .expect("valid");
    let window = crate::handlers::ControllerSettings::from_config(&c, "id").mutation_quota_window;
    assert_eq!(
        window,
        MutationQuotaWindow {
            samples: 5,
            size_seconds: 2
        }
    );
    assert_eq!(window.burst(3.0), 30.0);
    assert!(parse(&format!("{MINIMAL}controller.quota.window.num=0\n")).is_err());
    assert!(parse(&format!(
        "{MINIMAL}controller.quota.window.size.seconds=0\n"
    ))
    .is_err());
    for key in [
        "controller.quota.window.num",
        "controller.quota.window.size.seconds",
    ] {
        assert!(matches!(handling(key), Some(Handling::Read(_))), "{key}");
    }
    // The request quota's window, read for the connection creation
    // rates.
    assert!(matches!(
        handling("quota.window.num"),
        Some(Handling::Read(_))
    ));
}
