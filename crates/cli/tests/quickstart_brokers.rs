//! `kraft quickstart --with-brokers` through the real binary.
//!
//! The round trip needs Java 17+ and Maven (as `kraft` itself finds them:
//! `KRAFT_JAVA`, `JAVA_HOME`, `KRAFT_MVN`, `PATH`) and is skipped, with a
//! note on stderr, where they are missing; CI has both. The first run on a
//! machine downloads the Kafka 4.4.0 jars from Maven Central into `~/.m2`.
//! The tests without Java run everywhere.

use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use kraft_cli::quickstart_brokers::{JavaTools, BROKER_IDS, DEMO_LINES, EXIT_NO_JAVA};
use kraft_testkit::TempDir;

const KRAFT: &str = env!("CARGO_BIN_EXE_kraft");

/// How long the whole quickstart may take (a first run downloads ~60 MB).
const LIMIT: Duration = Duration::from_secs(600);

/// `kill -0 PID` succeeds.
fn alive(pid: &str) -> bool {
    Command::new("kill")
        .args(["-0", pid])
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// The pids the quickstart wrote for its brokers.
fn broker_pids(dir: &Path) -> Vec<String> {
    BROKER_IDS
        .iter()
        .filter_map(|id| std::fs::read_to_string(dir.join(format!("broker-{id}.pid"))).ok())
        .map(|p| p.trim().to_owned())
        .collect()
}

/// Kills brokers a failed run left behind.
struct KillBrokers<'a>(&'a Path);

impl Drop for KillBrokers<'_> {
    fn drop(&mut self) {
        for pid in broker_pids(self.0) {
            if alive(&pid) {
                let _ = Command::new("kill").args(["-9", &pid]).status();
            }
        }
    }
}

/// The lines of the block that follows the first line starting with
/// `command`, up to the next blank line.
fn block_after<'a>(stdout: &'a str, command: &str) -> Vec<&'a str> {
    stdout
        .lines()
        .skip_while(|l| !l.starts_with(command))
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        .collect()
}

#[test]
fn with_brokers_creates_a_topic_and_round_trips_through_java_brokers() {
    if let Err(e) = JavaTools::detect() {
        eprintln!("skipped: Java 17+ or Maven is missing:\n{}", e.message);
        return;
    }
    let tmp = TempDir::new("quickstart-brokers");
    let dir = tmp.join("qs");
    let _cleanup = KillBrokers(&dir);
    let start = Instant::now();
    let mut child = Command::new(KRAFT)
        .args(["quickstart", "--with-brokers", "--exit", "--dir"])
        .arg(&dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run kraft quickstart");
    let mut stdout_pipe = child.stdout.take().expect("stdout");
    let mut stderr_pipe = child.stderr.take().expect("stderr");
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stdout_pipe.read_to_string(&mut s);
        s
    });
    let err_reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stderr_pipe.read_to_string(&mut s);
        s
    });
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break Some(status);
        }
        if start.elapsed() > LIMIT {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    let stdout = reader.join().unwrap_or_default();
    let stderr = err_reader.join().unwrap_or_default();
    let elapsed = start.elapsed();
    eprintln!("kraft quickstart --with-brokers --exit took {elapsed:.1?}");
    let Some(status) = status else {
        panic!("quickstart did not finish within {LIMIT:?}:\n{stdout}\n{stderr}");
    };
    assert!(
        status.success(),
        "quickstart failed ({status}):\n{stdout}\n{stderr}"
    );

    // The plain quickstart still runs first.
    for expected in [
        "add-controller --controller-id 4",
        "Added controller 4",
        "Unregistered KRaft controller",
        "$ mvn -q -B -o -f",
        "dependency:build-classpath",
        "$ kafka-storage.sh format --config",
        "$ kafka-server-start.sh",
        "brokers 11, 12, 13 are registered and unfenced",
        "$ kafka-topics.sh --bootstrap-server 127.0.0.1:",
        "--create --topic quickstart --partitions 3 --replication-factor 3",
        "Created topic quickstart.",
        "PartitionCount: 3\tReplicationFactor: 3",
        "| kafka-console-producer.sh --bootstrap-server 127.0.0.1:",
        "The quorum is serving. Bootstrap controller: 127.0.0.1:",
    ] {
        assert!(
            stdout.contains(expected),
            "output lacks {expected:?}:\n{stdout}"
        );
    }

    // Kraft's list-endpoints through a Java broker: all three unfenced.
    let endpoints = block_after(&stdout, "$ kraft cluster list-endpoints --bootstrap-server");
    for id in BROKER_IDS {
        assert!(
            endpoints.iter().any(|l| {
                let cols: Vec<&str> = l.split_whitespace().collect();
                cols.first() == Some(&id.to_string().as_str())
                    && cols.get(4) == Some(&"unfenced")
                    && cols.get(5) == Some(&"broker")
            }),
            "broker {id} is not listed unfenced: {endpoints:#?}\n{stdout}"
        );
    }
    // The brokers replicate the metadata log as observers.
    let replication = stdout
        .split("are registered and unfenced")
        .nth(1)
        .map(|rest| block_after(rest, "$ kraft metadata-quorum"))
        .unwrap_or_default();
    for id in BROKER_IDS {
        assert!(
            replication
                .iter()
                .any(|l| l.starts_with(&format!("{id} ")) && l.contains("Observer")),
            "broker {id} is not an observer: {replication:#?}"
        );
    }

    // What the console consumer printed is what the producer sent.
    let consumer = block_after(&stdout, "$ kafka-console-consumer.sh");
    let mut consumed: Vec<&str> = consumer
        .iter()
        .copied()
        .take_while(|l| DEMO_LINES.contains(l))
        .collect();
    let mut produced = DEMO_LINES.to_vec();
    consumed.sort_unstable();
    produced.sort_unstable();
    assert_eq!(consumed, produced, "{stdout}");
    assert!(
        consumer
            .iter()
            .any(|l| *l == format!("Processed a total of {} messages", DEMO_LINES.len())),
        "{consumer:#?}"
    );

    // --exit stopped the brokers (before the controllers).
    let stop = stdout
        .find("stopped brokers (")
        .expect("the brokers are stopped");
    let controllers = stdout.find("stopped; data kept in").expect("stopped");
    assert!(stop < controllers, "{stdout}");
    let pids = broker_pids(&dir);
    assert_eq!(
        pids.len(),
        BROKER_IDS.len(),
        "pid files in {}",
        dir.display()
    );
    for pid in &pids {
        assert!(!alive(pid), "broker pid {pid} still runs");
    }
}

/// Runs `kraft quickstart --with-brokers --exit --dir DIR` with `env`
/// changes; returns (code, stdout, stderr).
fn quickstart_with(dir: &Path, env: &[(&str, Option<&str>)]) -> (i32, String, String) {
    let mut cmd = Command::new(KRAFT);
    cmd.args(["quickstart", "--with-brokers", "--exit", "--dir"])
        .arg(dir)
        .stdin(Stdio::null());
    for (key, value) in env {
        match value {
            Some(v) => cmd.env(key, v),
            None => cmd.env_remove(key),
        };
    }
    let out = cmd.output().expect("run kraft");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn with_brokers_without_java_or_maven_says_how_to_get_them_and_starts_nothing() {
    let tmp = TempDir::new("quickstart-no-java");
    let empty = tmp.join("empty-path");
    std::fs::create_dir_all(&empty).expect("mkdir");
    let dir = tmp.join("qs");
    let empty_path = empty.to_str().expect("utf-8 path");
    let (code, stdout, stderr) = quickstart_with(
        &dir,
        &[
            ("PATH", Some(empty_path)),
            ("JAVA_HOME", None),
            ("KRAFT_JAVA", None),
            ("KRAFT_MVN", None),
        ],
    );
    assert_eq!(code, EXIT_NO_JAVA, "{stdout}\n{stderr}");
    for expected in [
        "needs Java 17+ and Maven",
        "java: not found",
        "mvn:  not found",
        "apt-get install openjdk-17-jdk-headless maven",
        "KRAFT_JAVA and KRAFT_MVN",
        "Nothing was started",
    ] {
        assert!(
            stderr.contains(expected),
            "stderr lacks {expected:?}:\n{stderr}"
        );
    }
    assert_eq!(stdout, "", "nothing runs");
    assert!(!dir.exists(), "the data directory is not even created");
}

#[test]
fn with_brokers_names_a_missing_or_too_old_java() {
    let tmp = TempDir::new("quickstart-old-java");
    let (code, _, stderr) = quickstart_with(
        &tmp.join("qs1"),
        &[("KRAFT_JAVA", Some("/nonexistent/bin/java"))],
    );
    assert_eq!(code, EXIT_NO_JAVA, "{stderr}");
    assert!(
        stderr.contains("java: not found (`/nonexistent/bin/java -version`"),
        "{stderr}"
    );

    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let old = tmp.join("java");
        std::fs::write(
            &old,
            "#!/bin/sh\necho 'java version \"1.8.0_301\"' >&2\necho 'Java(TM) SE Runtime' >&2\n",
        )
        .expect("write fake java");
        std::fs::set_permissions(&old, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        let (code, stdout, stderr) = quickstart_with(
            &tmp.join("qs2"),
            &[("KRAFT_JAVA", Some(old.to_str().expect("utf-8")))],
        );
        assert_eq!(code, EXIT_NO_JAVA, "{stdout}\n{stderr}");
        assert!(
            stderr.contains("is Java 8") && stderr.contains("needs Java 17 or newer"),
            "{stderr}"
        );
        assert!(!tmp.join("qs2").exists());
    }
}
