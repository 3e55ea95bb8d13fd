//! The metrics endpoint of a real `kraft server` process
//! (`kraft.metrics.listener`): a healthy standalone controller reports
//! itself active with nothing suspended; after records of types and
//! versions this build does not know are appended to its metadata log
//! (through kraft-raft's log, while it is stopped) and it restarts, the
//! scrape names each type and version with its count and reports snapshots
//! suspended, and the server's log names the type.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use bytes::Bytes;
use kraft_raft::{Batch, DiskLog, LogConfig, RaftLog, Record};
use kraft_testkit::{free_port, wait_for, KraftServer, TempDir};

const KRAFT: &str = env!("CARGO_BIN_EXE_kraft");

/// How long the scrapes wait for what they expect.
const PATIENCE: Duration = Duration::from_secs(60);

/// One standalone controller: its files and, while it runs, its process.
struct Node {
    /// Declared first: dropped (the process killed) before its directory.
    server: KraftServer,
    dir: TempDir,
    port: u16,
}

fn kraft(args: &[&str]) -> (i32, String) {
    let out = Command::new(KRAFT)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("run kraft");
    (
        out.status.code().unwrap_or(-1),
        format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
    )
}

impl Node {
    /// Writes the properties (metrics on an ephemeral port) and formats the
    /// storage as a standalone dynamic quorum.
    fn format() -> Node {
        let dir = TempDir::new("metrics-endpoint");
        let node = Node {
            server: KraftServer::new(
                KRAFT,
                dir.join("controller.properties"),
                dir.join("server.log"),
            )
            .env("NO_COLOR", "1"),
            dir,
            port: free_port(),
        };
        let data = node.dir.join("data");
        let text = format!(
            "node.id=1\nprocess.roles=controller\ncontroller.listener.names=CONTROLLER\n\
             listeners=CONTROLLER://127.0.0.1:{port}\nlog.dirs={data}\nmetadata.log.dir={data}\n\
             controller.quorum.bootstrap.servers=127.0.0.1:{port}\n\
             kraft.metrics.listener=127.0.0.1:0\n",
            port = node.port,
            data = data.display(),
        );
        node.server.write_config(&text);
        let cluster_id = kraft(&["storage", "random-uuid"]).1.trim().to_string();
        node.server.format(&cluster_id, &["--standalone"]);
        node
    }

    /// The metadata partition directory.
    fn metadata_log_dir(&self) -> PathBuf {
        self.dir.join("data").join("__cluster_metadata-0")
    }

    /// The metrics address the server logged it bound (port 0 in the
    /// properties: the log is the only place to learn it).
    fn metrics_addr(&self) -> String {
        wait_for("the metrics listener is bound", PATIENCE, || {
            self.server
                .log()
                .lines()
                .find(|l| l.contains("metrics listener bound"))
                .and_then(logged_address)
        })
    }
}

/// The `127.0.0.1:<port>` in a log line.
fn logged_address(line: &str) -> Option<String> {
    let start = line.find("127.0.0.1:")?;
    let rest = &line[start + "127.0.0.1:".len()..];
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    (!digits.is_empty()).then(|| format!("127.0.0.1:{digits}"))
}

/// Sends `request` over a fresh connection and reads the whole answer (the
/// server closes the connection after it).
fn http(addr: &str, request: &str) -> Option<String> {
    let mut stream = TcpStream::connect(addr).ok()?;
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .ok()?;
    stream.write_all(request.as_bytes()).ok()?;
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer).ok()?;
    String::from_utf8(answer).ok()
}

/// `GET /metrics`: the body of a `200` answer with the Prometheus content
/// type, else `None`.
fn scrape(addr: &str) -> Option<String> {
    let answer = http(addr, "GET /metrics HTTP/1.1\r\nHost: kraft\r\n\r\n")?;
    let (head, body) = answer.split_once("\r\n\r\n")?;
    let mut lines = head.lines();
    assert_eq!(lines.next(), Some("HTTP/1.1 200 OK"), "{answer}");
    assert!(
        lines.any(|l| l == "Content-Type: text/plain; version=0.0.4"),
        "{answer}"
    );
    Some(body.to_string())
}

/// The value of the unlabelled sample `name`.
fn gauge(body: &str, name: &str) -> Option<i64> {
    body.lines()
        .find_map(|l| l.strip_prefix(name)?.strip_prefix(' ')?.parse().ok())
}

/// The sample lines of the family `name` that carry labels.
fn labelled(body: &str, name: &str) -> Vec<String> {
    body.lines()
        .filter(|l| l.starts_with(&format!("{name}{{")))
        .map(str::to_string)
        .collect()
}

/// A framed metadata record value with only a frame (version 1, `record_type`,
/// `version`) and an empty body: enough for a type or version this build
/// does not know, which it keeps without decoding the body.
fn frame_only(record_type: u16, version: u8) -> Bytes {
    let mut value = vec![0x01];
    let mut t = record_type;
    loop {
        let low = (t & 0x7f) as u8;
        t >>= 7;
        if t == 0 {
            value.push(low);
            break;
        }
        value.push(low | 0x80);
    }
    value.extend_from_slice(&[version, 0x00]);
    Bytes::from(value)
}

/// Appends one batch of `values` at the log's end, in its last epoch, and
/// flushes it: what a leader of that epoch would have written.
fn append_to_metadata_log(dir: &Path, values: Vec<Bytes>) -> i64 {
    let (mut log, _) = DiskLog::open(dir, LogConfig::default()).expect("open the metadata log");
    let base_offset = log.end_offset();
    let batch = Batch {
        base_offset,
        epoch: log.last_fetched_epoch(),
        append_time: 0,
        records: values.into_iter().map(Record::Data).collect(),
        encoded: Default::default(),
    };
    log.append(batch).expect("append");
    log.flush().expect("flush");
    base_offset
}

#[test]
fn metrics_report_a_healthy_controller_then_records_not_understood() {
    let mut node = Node::format();
    node.server.start();
    let addr = node.metrics_addr();

    // 1. Healthy and active: nothing not understood, nothing suspended.
    let body = wait_for("the controller is active", PATIENCE, || {
        scrape(&addr).filter(|b| gauge(b, "kraft_active_controller_count") == Some(1))
    });
    assert_eq!(gauge(&body, "kraft_raft_leader_id"), Some(1), "{body}");
    assert!(
        gauge(&body, "kraft_raft_epoch").is_some_and(|e| e >= 1),
        "{body}"
    );
    assert!(
        gauge(&body, "kraft_raft_high_watermark").is_some_and(|hw| hw > 0),
        "{body}"
    );
    assert!(
        gauge(&body, "kraft_metadata_last_applied_offset").is_some_and(|o| o >= 0),
        "{body}"
    );
    assert_eq!(gauge(&body, "kraft_metadata_snapshots_suspended"), Some(0));
    assert_eq!(gauge(&body, "kraft_metadata_topics"), Some(0));
    assert_eq!(gauge(&body, "kraft_metadata_partitions"), Some(0));
    assert_eq!(gauge(&body, "kraft_metadata_offline_partitions"), Some(0));
    assert_eq!(
        labelled(&body, "kraft_metadata_brokers"),
        [
            "kraft_metadata_brokers{state=\"fenced\"} 0",
            "kraft_metadata_brokers{state=\"unfenced\"} 0",
            "kraft_metadata_brokers{state=\"controlled_shutdown\"} 0",
        ]
    );
    assert!(
        labelled(&body, "kraft_metadata_records_not_understood").is_empty(),
        "{body}"
    );
    assert!(body.contains("# TYPE kraft_metadata_records_not_understood gauge\n"));
    // Only GET /metrics is served.
    let other = http(&addr, "GET / HTTP/1.1\r\n\r\n").unwrap_or_default();
    assert!(other.starts_with("HTTP/1.1 404 "), "{other}");
    let post = http(&addr, "POST /metrics HTTP/1.1\r\n\r\n").unwrap_or_default();
    assert!(post.starts_with("HTTP/1.1 405 "), "{post}");
    let image_loaded = wait_for("the image is loaded", PATIENCE, || {
        scrape(&addr).and_then(|b| gauge(&b, "kraft_metadata_image_loaded").filter(|l| *l == 1))
    });
    assert_eq!(image_loaded, 1);
    assert_eq!(node.server.stop(), Some(0), "SIGTERM exits 0");

    // 2. Records a later Kafka might write: type 300 at versions 0 (twice)
    //    and 1, and FeatureLevelRecord (type 12) at version 9.
    let offset = append_to_metadata_log(
        &node.metadata_log_dir(),
        vec![
            frame_only(300, 0),
            frame_only(300, 1),
            frame_only(300, 0),
            frame_only(12, 9),
        ],
    );
    node.server.start();
    let addr = node.metrics_addr();
    let expected = [
        "kraft_metadata_records_not_understood{record_type=\"12\",version=\"9\",reason=\"unknown version\"} 1",
        "kraft_metadata_records_not_understood{record_type=\"300\",version=\"0\",reason=\"unknown type\"} 2",
        "kraft_metadata_records_not_understood{record_type=\"300\",version=\"1\",reason=\"unknown type\"} 1",
    ];
    let deadline = Instant::now() + Duration::from_secs(60);
    let body = loop {
        let body = scrape(&addr).unwrap_or_default();
        if labelled(&body, "kraft_metadata_records_not_understood") == expected
            && gauge(&body, "kraft_metadata_snapshots_suspended") == Some(1)
        {
            break body;
        }
        assert!(
            Instant::now() < deadline,
            "timed out waiting for the records not understood; last scrape:\n{body}"
        );
        std::thread::sleep(Duration::from_millis(200));
    };
    assert_eq!(
        gauge(&body, "kraft_metadata_image_loaded"),
        Some(1),
        "{body}"
    );
    // The node still serves: it is the active controller again.
    wait_for("the restarted controller is active", PATIENCE, || {
        scrape(&addr).filter(|b| gauge(b, "kraft_active_controller_count") == Some(1))
    });

    // 3. The log names each type and version once, with where it was first
    //    seen.
    let log = node.server.log();
    let errors: Vec<&str> = log
        .lines()
        .filter(|l| l.contains("ERROR") && l.contains("this node keeps it in the log"))
        .collect();
    assert_eq!(errors.len(), 3, "one line per type and version:\n{log}");
    assert!(
        errors.iter().any(|l| l.contains("record_type=300")
            && l.contains("version=0")
            && l.contains(&format!(
                "an unknown record type (type 300, version 0, unknown type; 1 record(s), first at offset {offset})"
            ))),
        "{log}"
    );
    assert!(
        errors
            .iter()
            .any(|l| l.contains("FeatureLevelRecord (type 12, version 9, unknown version")),
        "{log}"
    );
    assert!(
        log.contains("snapshots and the metadata log retention are suspended on this node"),
        "{log}"
    );
    assert_eq!(node.server.stop(), Some(0), "SIGTERM exits 0");
}
