//! The cases of Kafka 4.4's `KafkaDockerWrapperTest` and the image's
//! `configure` script, as facts about [`super`].

use super::*;
use kraft_testkit::TempDir;

fn env(pairs: &[(&str, &str)]) -> Env {
    pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect()
}

struct Dirs {
    _tmp: TempDir,
    default: PathBuf,
    mounted: PathBuf,
    final_: PathBuf,
}

fn dirs(tag: &str) -> Dirs {
    let tmp = TempDir::new(tag);
    let d = Dirs {
        default: tmp.join("default"),
        mounted: tmp.join("mounted"),
        final_: tmp.join("final"),
        _tmp: tmp,
    };
    for p in [&d.default, &d.mounted, &d.final_] {
        std::fs::create_dir_all(p).expect("mkdir");
    }
    d
}

fn write(dir: &Path, text: &str) {
    std::fs::write(dir.join(SERVER_PROPERTIES), text).expect("write");
}

fn prepare(d: &Dirs, e: &Env) -> String {
    let path = prepare_server_config(&d.default, &d.mounted, &d.final_, e).expect("prepare");
    std::fs::read_to_string(path).expect("read")
}

#[test]
fn get_server_configs_from_env() {
    let e = env(&[
        ("KAFKA_TOOLS_LOG4J_LOGLEVEL", "TRACE"),
        ("KAFKA_VALID_PROPERTY", "Value"),
        ("SOME_VARIABLE", "Some Value"),
        ("KAFKA_VALID___PROPERTY__ALL_CASES", "All Cases Value"),
        ("KAFKA_KAFKA_VALID_PROPERTY", "Value"),
    ]);
    let mut actual = server_configs_from_env(&e);
    actual.sort();
    let mut expected = vec![
        "valid.property=Value",
        "valid-property_all.cases=All Cases Value",
        "kafka.valid.property=Value",
    ];
    expected.sort();
    assert_eq!(actual, expected);
}

#[test]
fn the_image_examples_and_every_exclusion() {
    assert_eq!(property_key("KAFKA_NODE_ID").as_deref(), Some("node.id"));
    assert_eq!(
        property_key("KAFKA_CONTROLLER_QUORUM_BOOTSTRAP_SERVERS").as_deref(),
        Some("controller.quorum.bootstrap.servers")
    );
    assert_eq!(
        property_key("KAFKA_LISTENER_NAME_CONTROLLER_SASL__MECHANISM").as_deref(),
        Some("listener.name.controller.sasl_mechanism")
    );
    assert_eq!(
        property_key("KAFKA_A___B").as_deref(),
        Some("a-b"),
        "___ is -"
    );
    // Four underscores: "...." -> "-." (Java's left-to-right replace).
    assert_eq!(property_key("KAFKA_A____B").as_deref(), Some("a-.b"));
    assert_eq!(property_key("CLUSTER_ID"), None);
    assert_eq!(property_key("XKAFKA_NODE_ID"), None);
    for name in EXCLUDED_ENV {
        assert_eq!(property_key(name), None, "{name}");
    }
    // The value is kept as given, = and all.
    assert_eq!(
        server_configs_from_env(&env(&[("KAFKA_SASL_JAAS_CONFIG", "a=b c")])),
        vec!["sasl.jaas.config=a=b c"]
    );
}

#[test]
fn prepare_server_configs_env_overrides_the_mounted_file() {
    let d = dirs("docker-env-mounted");
    write(&d.default, "default.config=default value");
    write(&d.mounted, "mounted.config=mounted value");
    write(&d.final_, "existing.config=existing value");
    let actual = prepare(&d, &env(&[("KAFKA_ENV_CONFIG", "env value")]));
    assert_eq!(actual, "mounted.config=mounted value\nenv.config=env value");
}

#[test]
fn prepare_server_configs_without_mounted_file() {
    let d = dirs("docker-env-no-mounted");
    write(&d.default, "default.config=default value");
    write(&d.final_, "existing.config=existing value");
    let actual = prepare(&d, &env(&[("KAFKA_ENV_CONFIG", "env value")]));
    assert_eq!(actual, "\nenv.config=env value");
}

#[test]
fn prepare_server_configs_without_env_variables() {
    let d = dirs("docker-env-no-env");
    write(&d.default, "default.config=default value");
    write(&d.mounted, "mounted.config=mounted value");
    write(&d.final_, "existing.config=existing value");
    assert_eq!(prepare(&d, &Env::new()), "mounted.config=mounted value");
}

#[test]
fn prepare_server_configs_without_user_input() {
    let d = dirs("docker-env-defaults");
    write(&d.default, "default.config=default value");
    write(&d.final_, "existing.config=existing value");
    assert_eq!(prepare(&d, &Env::new()), "default.config=default value");
}

#[test]
fn prepare_server_configs_with_empty_mounted_file() {
    let d = dirs("docker-env-empty-mounted");
    write(&d.default, "default.config=default value");
    write(&d.mounted, " \n \n ");
    write(&d.final_, "existing.config=existing value");
    assert_eq!(prepare(&d, &Env::new()), "default.config=default value");
}

#[test]
fn a_later_line_wins_when_the_file_is_parsed() {
    let d = dirs("docker-env-precedence");
    write(&d.mounted, "node.id=1\nlog.dirs=/mounted");
    let text = prepare(&d, &env(&[("KAFKA_NODE_ID", "7")]));
    let props = kraft_protocol::text::Properties::parse(&text).expect("parse");
    assert_eq!(props.get("node.id"), Some("7"));
    assert_eq!(props.get("log.dirs"), Some("/mounted"));
}

#[cfg(unix)]
#[test]
fn the_final_file_is_private() {
    use std::os::unix::fs::PermissionsExt;
    let d = dirs("docker-env-private");
    let path = prepare_server_config(
        &d.default,
        &d.mounted,
        &d.final_,
        &env(&[("KAFKA_SSL_KEY_PASSWORD", "secret")]),
    )
    .expect("prepare");
    let mode = std::fs::metadata(path).expect("stat").permissions().mode();
    assert_eq!(mode & 0o777, 0o600);
}

#[test]
fn cluster_id_defaults_as_in_configure_defaults() {
    let tmp = TempDir::new("docker-env-cluster-id");
    let mut e = Env::new();
    let notes = configure(&mut e, tmp.path()).expect("configure");
    assert_eq!(e["CLUSTER_ID"], DEFAULT_CLUSTER_ID);
    assert_eq!(
        notes,
        vec!["CLUSTER_ID not set. Setting it to default value: \"5L6g3nShT-eMCtK--X86sw\""]
    );
    let mut e = env(&[("CLUSTER_ID", "MYwKGPhXQZidgd0qMv8Mkw")]);
    assert!(configure(&mut e, tmp.path()).expect("configure").is_empty());
    assert_eq!(e["CLUSTER_ID"], "MYwKGPhXQZidgd0qMv8Mkw");
}

#[test]
fn a_controller_refuses_advertised_listeners() {
    let tmp = TempDir::new("docker-env-advertised");
    let mut e = env(&[
        ("KAFKA_PROCESS_ROLES", "controller"),
        ("KAFKA_ADVERTISED_LISTENERS", "CONTROLLER://ctl-1:9093"),
    ]);
    let err = configure(&mut e, tmp.path()).expect_err("refused");
    assert_eq!(
        err.message,
        "KAFKA_ADVERTISED_LISTENERS is not supported on a KRaft controller."
    );
    // Set but empty: dropped, so it does not become `advertised.listeners=`.
    let mut e = env(&[
        ("KAFKA_PROCESS_ROLES", "controller"),
        ("KAFKA_ADVERTISED_LISTENERS", ""),
    ]);
    configure(&mut e, tmp.path()).expect("configure");
    assert!(!e.contains_key("KAFKA_ADVERTISED_LISTENERS"));
}

#[test]
fn listeners_default_to_the_advertised_ones_on_any_address() {
    assert_eq!(
        listeners_on_any("PLAINTEXT://broker-1:9092,CONTROLLER://ctl:9093"),
        "PLAINTEXT://0.0.0.0:9092,CONTROLLER://0.0.0.0:9093"
    );
    assert_eq!(
        listeners_on_any("PLAINTEXT://:9092"),
        "PLAINTEXT://0.0.0.0:9092"
    );
    assert_eq!(listeners_on_any("odd://nohost"), "odd://nohost");
    let tmp = TempDir::new("docker-env-listeners");
    let mut e = env(&[("KAFKA_ADVERTISED_LISTENERS", "PLAINTEXT://b:9092")]);
    configure(&mut e, tmp.path()).expect("configure");
    assert_eq!(e["KAFKA_LISTENERS"], "PLAINTEXT://0.0.0.0:9092");
    let mut e = env(&[
        ("KAFKA_ADVERTISED_LISTENERS", "PLAINTEXT://b:9092"),
        ("KAFKA_LISTENERS", "PLAINTEXT://127.0.0.1:9092"),
    ]);
    configure(&mut e, tmp.path()).expect("configure");
    assert_eq!(e["KAFKA_LISTENERS"], "PLAINTEXT://127.0.0.1:9092");
}

#[test]
fn ssl_filenames_and_credentials_files() {
    let tmp = TempDir::new("docker-env-ssl");
    let secrets = tmp.path();
    std::fs::write(secrets.join("ks.p12"), b"not read").expect("write");
    std::fs::write(secrets.join("key_creds"), "key-secret\n\n").expect("write");
    std::fs::write(secrets.join("ks_creds"), "ks-secret").expect("write");
    let mut e = env(&[
        ("KAFKA_ADVERTISED_LISTENERS", "SSL://b:9094"),
        ("KAFKA_SSL_KEYSTORE_FILENAME", "ks.p12"),
        ("KAFKA_SSL_KEY_CREDENTIALS", "key_creds"),
    ]);
    let err = configure(&mut e.clone(), secrets).expect_err("keystore creds missing");
    assert_eq!(
        err.message,
        "KAFKA_SSL_KEYSTORE_CREDENTIALS environment variable not set"
    );
    e.insert("KAFKA_SSL_KEYSTORE_CREDENTIALS".into(), "ks_creds".into());
    let notes = configure(&mut e, secrets).expect("configure");
    assert_eq!(notes.last().map(String::as_str), Some("SSL is enabled."));
    assert_eq!(
        e["KAFKA_SSL_KEYSTORE_LOCATION"],
        secrets.join("ks.p12").display().to_string()
    );
    assert_eq!(e["KAFKA_SSL_KEY_PASSWORD"], "key-secret");
    assert_eq!(e["KAFKA_SSL_KEYSTORE_PASSWORD"], "ks-secret");
    assert!(!e.contains_key("KAFKA_SSL_TRUSTSTORE_LOCATION"));
    // A truststore only with client authentication.
    e.insert("KAFKA_SSL_CLIENT_AUTH".into(), "required".into());
    e.insert("KAFKA_SSL_TRUSTSTORE_FILENAME".into(), "ts.p12".into());
    let err = configure(&mut e.clone(), secrets).expect_err("no truststore file");
    assert_eq!(
        err.message,
        format!("{} file does not exist", secrets.join("ts.p12").display())
    );
    // The passwords become properties like any KAFKA_ variable.
    let lines = server_configs_from_env(&e);
    assert!(lines.contains(&"ssl.key.password=key-secret".to_owned()));
}

#[test]
fn format_storage_cmd_needs_no_quorum_flag_for_static_voters() {
    assert_eq!(
        initial_quorum(&Env::new()).expect("quorum"),
        InitialQuorum::Unspecified
    );
    assert_eq!(
        initial_quorum(&env(&[("KRAFT_STANDALONE", "true")])).expect("quorum"),
        InitialQuorum::Standalone
    );
    assert_eq!(
        initial_quorum(&env(&[(
            "KRAFT_INITIAL_CONTROLLERS",
            "1@h:9093:J8aAPcfLQt2bqs1JT_rMgQ"
        )]))
        .expect("quorum"),
        InitialQuorum::InitialControllers("1@h:9093:J8aAPcfLQt2bqs1JT_rMgQ".into())
    );
    assert_eq!(
        initial_quorum(&env(&[("KRAFT_NO_INITIAL_CONTROLLERS", "TRUE")])).expect("quorum"),
        InitialQuorum::NoInitialControllers
    );
    assert_eq!(
        initial_quorum(&env(&[("KRAFT_STANDALONE", "false")])).expect("quorum"),
        InitialQuorum::Unspecified
    );
    assert!(initial_quorum(&env(&[("KRAFT_STANDALONE", "yes")])).is_err());
    assert!(initial_quorum(&env(&[
        ("KRAFT_STANDALONE", "true"),
        ("KRAFT_NO_INITIAL_CONTROLLERS", "true")
    ]))
    .is_err());
}

#[test]
fn get_log4j_configs_from_env() {
    let e = env(&[
        (
            "KAFKA_LOG4J_LOGGERS",
            "kafka=INFO,kafka.network.RequestChannel$=WARN,kafka.producer.async.DefaultEventHandler=DEBUG,",
        ),
        ("KAFKA_LOG4J_ROOT_LOGLEVEL", "ERROR"),
        ("SOME_VARIABLE", "Some Value"),
    ]);
    assert_eq!(
        log4j_loggers(&e).expect("loggers"),
        vec![
            ("kafka".to_owned(), "INFO".to_owned()),
            (
                "kafka.network.RequestChannel$".to_owned(),
                "WARN".to_owned()
            ),
            (
                "kafka.producer.async.DefaultEventHandler".to_owned(),
                "DEBUG".to_owned()
            ),
        ]
    );
    assert!(log4j_loggers(&env(&[("SOME_VARIABLE", "Some Value")]))
        .expect("none")
        .is_empty());
    assert!(log4j_loggers(&env(&[("KAFKA_LOG4J_LOGGERS", "")]))
        .expect("empty")
        .is_empty());
    assert!(log4j_loggers(&env(&[("KAFKA_LOG4J_LOGGERS", "kafka")])).is_err());
    assert!(log4j_loggers(&env(&[("KAFKA_LOG4J_LOGGERS", "kafka=")])).is_err());
}

#[test]
fn log_variables_become_a_tracing_filter() {
    let server: Vec<String> = ["kraft", "server", "--from-env"].map(String::from).to_vec();
    let tool: Vec<String> = ["kraft", "metadata-quorum"].map(String::from).to_vec();
    let e = env(&[
        (
            "KAFKA_LOG4J_LOGGERS",
            "kraft_raft=DEBUG,kraft_controller::server=FATAL",
        ),
        ("KAFKA_LOG4J_ROOT_LOGLEVEL", "WARN"),
        ("KAFKA_TOOLS_LOG4J_LOGLEVEL", "TRACE"),
    ]);
    assert_eq!(
        log_filter(&server, &e).as_deref(),
        Some("warn,kraft_raft=debug,kraft_controller::server=error")
    );
    assert_eq!(log_filter(&tool, &e).as_deref(), Some("trace"));
    // Loggers alone keep the image's INFO root.
    let e = env(&[("KAFKA_LOG4J_LOGGERS", "kraft_raft=ALL")]);
    assert_eq!(
        log_filter(&server, &e).as_deref(),
        Some("info,kraft_raft=trace")
    );
    // Empty variables are unset; `server --config` is not the container mode.
    let e = env(&[
        ("KAFKA_LOG4J_ROOT_LOGLEVEL", ""),
        ("KAFKA_TOOLS_LOG4J_LOGLEVEL", ""),
    ]);
    assert_eq!(log_filter(&server, &e), None);
    assert_eq!(log_filter(&tool, &e), None);
    let plain: Vec<String> = ["kraft", "server", "--config", "c"]
        .map(String::from)
        .to_vec();
    assert_eq!(
        log_filter(&plain, &env(&[("KAFKA_LOG4J_ROOT_LOGLEVEL", "DEBUG")])),
        None
    );
}

fn controller_props(data: &Path, port: u16, voters: bool) -> String {
    let quorum = if voters {
        format!("controller.quorum.voters=1@127.0.0.1:{port}")
    } else {
        format!("controller.quorum.bootstrap.servers=127.0.0.1:{port}")
    };
    format!(
        "process.roles=controller\nnode.id=1\n{quorum}\nlisteners=CONTROLLER://127.0.0.1:{port}\n\
         controller.listener.names=CONTROLLER\nlog.dirs={}\n",
        data.display()
    )
}

#[test]
fn setup_formats_once_and_ignores_already_formatted() {
    let d = dirs("docker-env-setup");
    let data = d.final_.join("data");
    let e = env(&[("CLUSTER_ID", "MYwKGPhXQZidgd0qMv8Mkw")]);
    write(&d.mounted, &controller_props(&data, 19093, true));
    let cfg = ConfigDirs {
        default_dir: d.default.clone(),
        mounted_dir: d.mounted.clone(),
        final_dir: d.final_.clone(),
        secrets_dir: d.default.clone(),
    };
    let mut log = Vec::new();
    setup(&cfg, e.clone(), &mut log).expect("first start");
    let meta = std::fs::read_to_string(data.join("meta.properties")).expect("formatted");
    assert!(meta.contains("cluster.id=MYwKGPhXQZidgd0qMv8Mkw"), "{meta}");
    let mut log = Vec::new();
    setup(&cfg, e, &mut log).expect("second start");
    let log = String::from_utf8_lossy(&log);
    assert!(log.contains("is already formatted"), "{log}");
    assert_eq!(
        std::fs::read_to_string(data.join("meta.properties")).expect("kept"),
        meta
    );
}

#[test]
fn a_dynamic_quorum_needs_a_kraft_quorum_variable() {
    let d = dirs("docker-env-dynamic");
    let data = d.final_.join("data");
    write(&d.mounted, &controller_props(&data, 19094, false));
    let cfg = ConfigDirs {
        default_dir: d.default.clone(),
        mounted_dir: d.mounted.clone(),
        final_dir: d.final_.clone(),
        secrets_dir: d.default.clone(),
    };
    let err = setup(&cfg, Env::new(), &mut Vec::new()).expect_err("static voters only");
    assert!(
        err.message.starts_with(
            "To maximize compatibility, the Docker image continues to use static voters"
        ),
        "{}",
        err.message
    );
    assert!(!data.join("meta.properties").exists());
    setup(&cfg, env(&[("KRAFT_STANDALONE", "true")]), &mut Vec::new()).expect("standalone");
    assert!(data.join("meta.properties").exists());
}

/// The repository's example and image configurations, through the parser
/// `kraft server` uses: no error, no ignored key.
#[test]
fn the_shipped_configurations_load() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    for (file, voters) in [
        ("config/controller.properties", false),
        ("docker/server.properties", true),
    ] {
        let (config, warnings) =
            ControllerConfig::load(&root.join(file)).unwrap_or_else(|e| panic!("{file}: {e}"));
        assert!(warnings.is_empty(), "{file}: {warnings:?}");
        assert_eq!(config.node_id, 1, "{file}");
        let text = std::fs::read_to_string(root.join(file)).expect("read");
        let props = kraft_protocol::text::Properties::parse(&text).expect("parse");
        assert_eq!(
            props.contains_key("controller.quorum.voters"),
            voters,
            "{file}"
        );
        assert_eq!(
            props.contains_key("controller.quorum.bootstrap.servers"),
            !voters,
            "{file}"
        );
    }
}

/// The image's defaults alone (no mounted file, no `KAFKA_*`) are the
/// whole configuration, and format for static voters.
#[test]
fn the_image_defaults_format_a_static_quorum_of_one() {
    let d = dirs("docker-env-image-defaults");
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let data = d.final_.join("data");
    let text = std::fs::read_to_string(root.join("docker/server.properties"))
        .expect("read")
        .replace("/var/lib/kraft/data", &data.display().to_string());
    write(&d.default, &text);
    let cfg = ConfigDirs {
        default_dir: d.default.clone(),
        mounted_dir: d.mounted.clone(),
        final_dir: d.final_.clone(),
        secrets_dir: d.default.clone(),
    };
    let (path, config) = setup(&cfg, Env::new(), &mut Vec::new()).expect("setup");
    assert_eq!(std::fs::read_to_string(path).expect("final"), text);
    assert_eq!(config.node_id, 1);
    let meta = std::fs::read_to_string(data.join("meta.properties")).expect("formatted");
    assert!(
        meta.contains(&format!("cluster.id={DEFAULT_CLUSTER_ID}")),
        "{meta}"
    );
}

#[test]
fn run_arguments_override_the_environment() {
    let mut e = env(&[("KAFKA_NODE_ID", "1"), ("CLUSTER_ID", "a")]);
    apply_overrides(
        &mut e,
        &[
            "KAFKA_NODE_ID=2".into(),
            "KAFKA_X=a=b".into(),
            "CLUSTER_ID".into(),
        ],
    );
    assert_eq!(e["KAFKA_NODE_ID"], "2");
    assert_eq!(e["KAFKA_X"], "a=b");
    assert_eq!(e["CLUSTER_ID"], "a");
}
