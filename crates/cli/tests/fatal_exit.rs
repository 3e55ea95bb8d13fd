//! `kraft server` exits non-zero, with the storage error on stderr, when the
//! raft layer cannot make its state durable: here the `quorum-state` write
//! of its first election fails because `quorum-state.tmp` is a directory.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const KRAFT: &str = env!("CARGO_BIN_EXE_kraft");

/// A scratch directory removed on drop.
struct Scratch(PathBuf);

impl Scratch {
    fn new() -> Scratch {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let dir =
            std::env::temp_dir().join(format!("kraft-fatal-exit-{}-{nanos}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("scratch directory");
        Scratch(dir)
    }

    fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn kraft(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(KRAFT)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("run kraft");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_failed_quorum_state_write_makes_the_server_exit_non_zero() {
    let scratch = Scratch::new();
    let data = scratch.path().join("data");
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port");
    let props = scratch.path().join("controller.properties");
    std::fs::write(
        &props,
        format!(
            "node.id=1\nprocess.roles=controller\ncontroller.listener.names=CONTROLLER\n\
             listeners=CONTROLLER://127.0.0.1:{port}\nlog.dirs={dir}\nmetadata.log.dir={dir}\n\
             controller.quorum.bootstrap.servers=127.0.0.1:{port}\n",
            dir = data.display()
        ),
    )
    .expect("write properties");
    let props = props.to_str().expect("utf-8 path");
    let cluster_id = kraft(&["storage", "random-uuid"]).1.trim().to_string();
    let directory_id = kraft(&["storage", "random-uuid"]).1.trim().to_string();
    let initial = format!("1@127.0.0.1:{port}:{directory_id}");
    let (code, out, err) = kraft(&[
        "storage",
        "format",
        "--config",
        props,
        "--cluster-id",
        &cluster_id,
        "--initial-controllers",
        &initial,
    ]);
    assert_eq!(code, 0, "format: {out}{err}");
    std::fs::create_dir(data.join("__cluster_metadata-0/quorum-state.tmp"))
        .expect("block the quorum-state write");

    let started = Instant::now();
    let mut child = Command::new(KRAFT)
        .args(["server", "--config", props])
        .env("KRAFT_LOG", "error")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start kraft server");
    let status = loop {
        if let Some(status) = child.try_wait().expect("poll kraft server") {
            break status;
        }
        if started.elapsed() > Duration::from_secs(30) {
            let _ = child.kill();
            panic!("kraft server kept running after its storage failed");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let output = child.wait_with_output().expect("server output");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("controller 1 stopped: cannot persist the election state")
            && stderr.contains("quorum-state.tmp"),
        "{stderr}"
    );
}
