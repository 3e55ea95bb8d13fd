//! Loading a controller configuration from a file, as an operator writes it.

use std::path::PathBuf;

use kraft_controller::config::{ConfigError, ControllerConfig};
use kraft_controller::server::{ListenerSpec, ServerConfig};

use crate::common::TempDir;

const OPERATOR_FILE: &str = "\
# A controller of a dynamic quorum
process.roles = controller
node.id: 3

controller.listener.names=CONTROLLER
listeners=CONTROLLER://0.0.0.0:9093
advertised.listeners=CONTROLLER://ctl-3.example.com:9093
controller.quorum.bootstrap.servers=ctl-1.example.com:9093,\\
    ctl-2.example.com:9093,\\
    ctl-3.example.com:9093
log.dirs=/var/lib/kraft/meta
num.network.threads=3
socket.request.max.bytes=1048576
";

#[test]
fn loads_an_operator_file() {
    let tmp = TempDir::new("config");
    let path = tmp.path().join("controller.properties");
    std::fs::write(&path, OPERATOR_FILE).unwrap();
    let (config, warnings) = ControllerConfig::load(&path).unwrap();
    assert_eq!(config.node_id, 3);
    assert_eq!(config.quorum.bootstrap_servers.len(), 3);
    assert_eq!(config.quorum.bootstrap_servers[2].host, "ctl-3.example.com");
    assert_eq!(
        config.metadata_log_dir(),
        PathBuf::from("/var/lib/kraft/meta")
    );
    assert_eq!(warnings.len(), 1);
    assert_eq!(warnings[0].key, "num.network.threads");
    let adv = config.effective_advertised_controller_listeners();
    assert_eq!(adv[0].host.as_deref(), Some("ctl-3.example.com"));

    let server = ServerConfig::from_controller_config(&config);
    let [ListenerSpec {
        name,
        host,
        port,
        early_start,
        security,
    }] = server.listeners.as_slice()
    else {
        panic!("one listener expected: {:?}", server.listeners)
    };
    assert_eq!(
        (name.as_str(), host.as_str(), *port, *early_start),
        ("CONTROLLER", "0.0.0.0", 9093, true)
    );
    assert!(
        security.is_none(),
        "a PLAINTEXT listener has no TLS or SASL"
    );
    assert_eq!(server.max_frame_size, 1_048_576);
}

#[test]
fn missing_and_malformed_files() {
    let tmp = TempDir::new("config-bad");
    let missing = tmp.path().join("nope.properties");
    assert!(matches!(
        ControllerConfig::load(&missing),
        Err(ConfigError::Io { .. })
    ));
    let bad = tmp.path().join("bad.properties");
    std::fs::write(&bad, "process.roles=controller\nnode.id=\\u00zz\n").unwrap();
    let err = ControllerConfig::load(&bad).unwrap_err();
    assert!(matches!(err, ConfigError::Syntax { .. }));
    assert!(err.to_string().contains("line 2"), "{err}");
}
