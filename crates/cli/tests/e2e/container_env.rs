//! `kraft server --from-env`, the container entry point, as the image runs
//! it: configured only by `KAFKA_*` variables and `CLUSTER_ID` in an empty
//! directory, it formats on the first start and serves; a restart keeps the
//! storage (same cluster id, same `meta.properties`, the log kept).

use std::path::Path;
use std::process::Child;

use super::*;

/// The server process, killed if the test fails before it stops it.
struct Proc(Option<Child>);

impl Drop for Proc {
    fn drop(&mut self) {
        if let Some(mut child) = self.0.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

impl Proc {
    fn stop(&mut self) -> Option<i32> {
        let mut child = self.0.take()?;
        let _ = Command::new("kill")
            .args(["-TERM", &child.id().to_string()])
            .status();
        let status = wait_for("kraft server exits", Duration::from_secs(30), || {
            child.try_wait().ok().flatten()
        });
        status.code()
    }
}

fn start(dir: &Path, port: u16, cluster_id: &str, log: &Path) -> Proc {
    let data = dir.join("data");
    let log_file = std::fs::File::create(log).expect("log file");
    let child = Command::new(KRAFT)
        .args(["server", "--from-env"])
        .arg("--default-configs-dir")
        .arg(dir.join("default"))
        .arg("--mounted-configs-dir")
        .arg(dir.join("mounted"))
        .arg("--final-configs-dir")
        .arg(dir.join("config"))
        .arg("--secrets-dir")
        .arg(dir.join("secrets"))
        .env_remove("KRAFT_LOG")
        .env("KAFKA_LOG4J_ROOT_LOGLEVEL", "INFO")
        .env("KAFKA_NODE_ID", "1")
        .env("KAFKA_PROCESS_ROLES", "controller")
        .env("KAFKA_LISTENERS", format!("CONTROLLER://127.0.0.1:{port}"))
        .env("KAFKA_CONTROLLER_LISTENER_NAMES", "CONTROLLER")
        .env(
            "KAFKA_LISTENER_SECURITY_PROTOCOL_MAP",
            "CONTROLLER:PLAINTEXT",
        )
        .env(
            "KAFKA_CONTROLLER_QUORUM_VOTERS",
            format!("1@127.0.0.1:{port}"),
        )
        .env("KAFKA_LOG_DIRS", &data)
        .env("KAFKA_METADATA_LOG_DIR", &data)
        // Not a property kraft-rs uses on a PLAINTEXT listener; its value
        // must not reach the log.
        .env("KAFKA_SSL_KEYSTORE_PASSWORD", "hunter2-not-logged")
        // Excluded: a JVM setting, not a property.
        .env("KAFKA_HEAP_OPTS", "-Xmx1G")
        .env("CLUSTER_ID", cluster_id)
        .stdin(Stdio::null())
        .stdout(log_file.try_clone().expect("log file"))
        .stderr(log_file)
        .spawn()
        .expect("start kraft server --from-env");
    Proc(Some(child))
}

fn status(port: u16) -> Option<Value> {
    let (code, out, _) = kraft(&[
        "metadata-quorum",
        "--bootstrap-controller",
        &format!("127.0.0.1:{port}"),
        "describe",
        "--status",
        "--output",
        "json",
    ]);
    let v: Value = serde_json::from_str(&out).ok()?;
    (code == 0 && v["leaderId"].as_i64() == Some(1)).then_some(v)
}

#[test]
fn container_env_formats_on_first_start_and_keeps_storage_on_restart() {
    let dir = TempDir::new("e2e-container-env");
    let port = free_port();
    let cluster_id = kraft_ok(&["storage", "random-uuid"]).trim().to_string();
    let log = dir.join("server.log");
    let data = dir.join("data");

    let mut server = start(dir.path(), port, &cluster_id, &log);
    let first = wait_for("the controller answers", Duration::from_secs(60), || {
        status(port)
    });
    let text = std::fs::read_to_string(&log).unwrap_or_default();
    assert_eq!(
        first["clusterId"].as_str(),
        Some(cluster_id.as_str()),
        "{first}\n{text}"
    );
    let meta = std::fs::read_to_string(data.join("meta.properties")).expect("formatted");
    assert!(meta.contains(&format!("cluster.id={cluster_id}")), "{meta}");
    let props =
        std::fs::read_to_string(dir.join("config/server.properties")).expect("final config");
    assert!(props.contains("\nnode.id=1"), "{props}");
    assert!(
        props.contains(&format!("controller.quorum.voters=1@127.0.0.1:{port}")),
        "{props}"
    );
    assert!(!props.contains("heap.opts"), "{props}");
    assert_eq!(
        server.stop(),
        Some(0),
        "{}",
        std::fs::read_to_string(&log).unwrap_or_default()
    );
    let text = std::fs::read_to_string(&log).unwrap_or_default();
    assert!(
        !text.contains("hunter2"),
        "a secret reached the log:\n{text}"
    );
    assert!(!text.contains("already formatted"), "{text}");
    let high_watermark = first["highWatermark"].as_i64().expect("high watermark");
    assert!(high_watermark > 0, "{first}");

    // A restart with the same environment: nothing is formatted again.
    let log2 = dir.join("server-2.log");
    let mut server = start(dir.path(), port, &cluster_id, &log2);
    let second = wait_for(
        "the restarted controller answers",
        Duration::from_secs(60),
        || status(port).filter(|v| v["highWatermark"].as_i64() >= Some(high_watermark)),
    );
    let text = std::fs::read_to_string(&log2).unwrap_or_default();
    assert!(text.contains("is already formatted"), "{text}");
    assert_eq!(
        second["clusterId"].as_str(),
        Some(cluster_id.as_str()),
        "{second}"
    );
    assert_eq!(
        std::fs::read_to_string(data.join("meta.properties")).expect("kept"),
        meta,
        "meta.properties rewritten"
    );
    assert_eq!(
        server.stop(),
        Some(0),
        "{}",
        std::fs::read_to_string(&log2).unwrap_or_default()
    );
    assert!(!std::fs::read_to_string(&log2)
        .unwrap_or_default()
        .contains("hunter2"));
}

#[test]
fn container_env_arguments_need_from_env() {
    let (code, _, err) = kraft(&[
        "server",
        "--config",
        "controller.properties",
        "KAFKA_NODE_ID=2",
    ]);
    assert_eq!(code, 1, "{err}");
    assert_eq!(
        err,
        "NAME=VALUE arguments are only taken with --from-env (see --help)\n"
    );
    let (code, _, err) = kraft(&["server", "--config", "c.properties", "--from-env"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("cannot be used with"), "{err}");
}
