//! Real `kraft server` processes, started and stopped by a test.

use std::ffi::OsString;
use std::fs::{File, OpenOptions};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// Linux's "Text file busy" (`ETXTBSY`).
const ETXTBSY: i32 = 26;

/// Runs `run` (a spawn) again while it fails with "Text file busy", up to a
/// second: a binary written a moment ago (a test's fake, a fresh build)
/// stays busy while a process that another thread forked meanwhile still
/// holds its write descriptor, until that process execs.
fn unless_busy<T>(mut run: impl FnMut() -> std::io::Result<T>) -> std::io::Result<T> {
    let mut tries = 0;
    loop {
        match run() {
            Err(e) if e.raw_os_error() == Some(ETXTBSY) && tries < 100 => {
                tries += 1;
                std::thread::sleep(std::time::Duration::from_millis(10));
            }
            done => return done,
        }
    }
}

/// How long [`KraftServer::stop`] waits for an exit after SIGTERM.
const STOP_GRACE: Duration = Duration::from_secs(20);

/// One `kraft server` process of a test: the binary, its properties file and
/// the file its stdout and stderr go to. It can be started and stopped any
/// number of times; dropping it kills a process still running (SIGKILL).
///
/// The binary is the caller's `env!("CARGO_BIN_EXE_kraft")`, which Cargo
/// defines only for the tests of the crate that builds it.
#[derive(Debug)]
pub struct KraftServer {
    kraft: PathBuf,
    config: PathBuf,
    log: PathBuf,
    append_log: bool,
    env: Vec<(OsString, OsString)>,
    child: Option<Child>,
}

impl KraftServer {
    /// A server run as `<kraft> server --config <config>`, logging to `log`;
    /// nothing is written or started yet.
    pub fn new(
        kraft: impl Into<PathBuf>,
        config: impl Into<PathBuf>,
        log: impl Into<PathBuf>,
    ) -> KraftServer {
        KraftServer {
            kraft: kraft.into(),
            config: config.into(),
            log: log.into(),
            append_log: false,
            env: vec![("KRAFT_LOG".into(), "info".into())],
            child: None,
        }
    }

    /// Sets an environment variable of the server process (it has
    /// `KRAFT_LOG=info` unless set here).
    pub fn env(mut self, key: &str, value: &str) -> KraftServer {
        self.env.push((key.into(), value.into()));
        self
    }

    /// Makes every start append to the log file, keeping what earlier runs
    /// logged; by default a start empties it.
    pub fn append_log(mut self) -> KraftServer {
        self.append_log = true;
        self
    }

    /// The properties file.
    pub fn config_path(&self) -> &Path {
        &self.config
    }

    /// Writes the properties file, creating its directory.
    ///
    /// # Panics
    ///
    /// If the file cannot be written.
    pub fn write_config(&self, text: &str) {
        if let Some(dir) = self.config.parent() {
            if let Err(e) = std::fs::create_dir_all(dir) {
                panic!("cannot create {}: {e}", dir.display());
            }
        }
        if let Err(e) = std::fs::write(&self.config, text) {
            panic!("cannot write {}: {e}", self.config.display());
        }
    }

    /// Runs `<kraft> storage format --config <config> --cluster-id
    /// <cluster_id> <extra>...`.
    ///
    /// # Panics
    ///
    /// Unless it exits 0; the message holds its stdout and stderr.
    pub fn format(&self, cluster_id: &str, extra: &[&str]) {
        let mut command = Command::new(&self.kraft);
        command
            .args(["storage", "format", "--config"])
            .arg(&self.config)
            .args(["--cluster-id", cluster_id])
            .args(extra)
            .stdin(Stdio::null());
        let out = unless_busy(|| command.output())
            .unwrap_or_else(|e| panic!("cannot run {}: {e}", self.kraft.display()));
        assert!(
            out.status.success(),
            "kraft storage format --config {} --cluster-id {cluster_id} {} failed ({}):\n{}{}",
            self.config.display(),
            extra.join(" "),
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }

    /// Starts the server, its stdout and stderr going to the log file.
    ///
    /// # Panics
    ///
    /// If it is running already, or the log file cannot be opened or the
    /// process cannot be spawned.
    pub fn start(&mut self) {
        assert!(
            self.child.is_none() || self.try_wait().is_some(),
            "kraft server --config {} is running already",
            self.config.display()
        );
        let log = if self.append_log {
            OpenOptions::new().create(true).append(true).open(&self.log)
        } else {
            File::create(&self.log)
        }
        .unwrap_or_else(|e| panic!("cannot open the log file {}: {e}", self.log.display()));
        let stdout = log
            .try_clone()
            .unwrap_or_else(|e| panic!("cannot share the log file {}: {e}", self.log.display()));
        let mut command = Command::new(&self.kraft);
        command
            .args(["server", "--config"])
            .arg(&self.config)
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::null())
            .stdout(stdout)
            .stderr(log);
        let child = unless_busy(|| command.spawn())
            .unwrap_or_else(|e| panic!("cannot start {} server: {e}", self.kraft.display()));
        self.child = Some(child);
    }

    /// The exit status once the started process has exited, without
    /// waiting; `None` while it runs or when none was started.
    ///
    /// # Panics
    ///
    /// If the process cannot be polled.
    pub fn try_wait(&mut self) -> Option<ExitStatus> {
        let child = self.child.as_mut()?;
        child
            .try_wait()
            .unwrap_or_else(|e| panic!("cannot poll kraft server {}: {e}", child.id()))
    }

    /// Sends SIGTERM and waits for the exit, killing the process after 20 s;
    /// returns its exit code (`None` if it had to be killed, died of a
    /// signal or was not running).
    pub fn stop(&mut self) -> Option<i32> {
        let mut child = self.child.take()?;
        let _ = Command::new("kill")
            .args(["-TERM", &child.id().to_string()])
            .status();
        let deadline = Instant::now() + STOP_GRACE;
        loop {
            if let Ok(Some(status)) = child.try_wait() {
                return status.code();
            }
            if Instant::now() > deadline {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// The process id of the started process, while it is held.
    pub fn pid(&self) -> Option<u32> {
        self.child.as_ref().map(Child::id)
    }

    /// Kills the process (SIGKILL) and reaps it, if one was started.
    pub fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// What the server logged (since its last start, unless
    /// [`append_log`](Self::append_log)); empty before the first start.
    pub fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }
}

impl Drop for KraftServer {
    fn drop(&mut self) {
        self.kill();
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use crate::{wait_until, TempDir};

    /// A stand-in for the `kraft` binary: `storage format` prints its
    /// arguments (exit 3 for cluster id "bad"); `server` writes its pid to
    /// `pid` next to itself, logs its arguments and `$GREETING`, then runs
    /// until SIGTERM, which it logs and exits 0.
    fn fake_kraft(dir: &TempDir) -> PathBuf {
        use std::os::unix::fs::PermissionsExt;
        let path = dir.join("kraft");
        std::fs::write(
            &path,
            "#!/bin/sh\n\
             if [ \"$1\" = storage ]; then\n  echo \"format $*\"\n  [ \"$6\" = bad ] && exit 3\n  exit 0\nfi\n\
             trap 'echo \"stopping\"; exit 0' TERM\n\
             echo $$ > \"$(dirname \"$0\")/pid\"\n\
             echo \"serving $* $GREETING log=$KRAFT_LOG\" >&2\n\
             while :; do sleep 0.05; done\n",
        )
        .expect("write the fake kraft");
        let mut perms = std::fs::metadata(&path).expect("stat").permissions();
        perms.set_mode(0o755);
        std::fs::set_permissions(&path, perms).expect("chmod");
        path
    }

    #[test]
    fn writes_formats_starts_logs_and_stops() {
        let dir = TempDir::new("testkit-server");
        let mut server = KraftServer::new(
            fake_kraft(&dir),
            dir.join("n1/c.properties"),
            dir.join("n1.log"),
        )
        .env("GREETING", "hello");
        server.write_config("node.id=1\n");
        assert_eq!(
            std::fs::read_to_string(server.config_path()).expect("read"),
            "node.id=1\n"
        );
        server.format("abc", &["--standalone"]);
        assert_eq!(server.log(), "");
        assert!(server.try_wait().is_none());

        server.start();
        wait_until("the fake logs", Duration::from_secs(10), || {
            server.log().contains("serving")
        });
        assert!(server.try_wait().is_none());
        let expected = format!(
            "serving server --config {} hello log=info\n",
            dir.join("n1/c.properties").display()
        );
        assert_eq!(server.log(), expected);
        assert_eq!(server.stop(), Some(0));
        assert_eq!(server.log(), format!("{expected}stopping\n"));
        assert_eq!(server.stop(), None, "not running any more");

        // A restart empties the log.
        server.start();
        wait_until("the restarted fake logs", Duration::from_secs(10), || {
            server.log().contains("serving")
        });
        assert_eq!(server.log(), expected);
        server.kill();
        assert!(server.try_wait().is_none(), "killed and reaped");
    }

    #[test]
    fn appends_the_log_when_asked_and_kills_on_drop() {
        let dir = TempDir::new("testkit-server-append");
        let mut server = KraftServer::new(fake_kraft(&dir), dir.join("c"), dir.join("log"))
            .append_log()
            .env("KRAFT_LOG", "debug");
        for _ in 0..2 {
            server.start();
            wait_until("the fake logs", Duration::from_secs(10), || {
                server.log().ends_with("log=debug\n")
            });
            assert_eq!(server.stop(), Some(0));
        }
        assert_eq!(server.log().matches("serving").count(), 2);
        server.start();
        wait_until("the fake logs again", Duration::from_secs(10), || {
            server.log().matches("serving").count() == 3
        });
        let pid = std::fs::read_to_string(dir.join("pid")).expect("the pid");
        let alive = || {
            Command::new("kill")
                .args(["-0", pid.trim()])
                .stderr(Stdio::null())
                .status()
                .is_ok_and(|s| s.success())
        };
        assert!(alive());
        drop(server);
        assert!(!alive(), "dropping the server kills it");
        let log = std::fs::read_to_string(dir.join("log")).expect("the log");
        assert_eq!(log.matches("stopping").count(), 2, "SIGKILL, not SIGTERM");
    }

    #[test]
    fn a_failed_format_panics_with_its_output() {
        // The directory outlives the panic, so it is removed.
        let dir = TempDir::new("testkit-server-format");
        let server = KraftServer::new(fake_kraft(&dir), dir.join("c"), dir.join("log"));
        let panic = std::panic::catch_unwind(|| server.format("bad", &["--standalone"]))
            .expect_err("a failed format panics");
        let message = panic.downcast_ref::<String>().expect("a formatted message");
        assert!(
            message.contains("--cluster-id bad --standalone failed (exit status: 3):\nformat storage format --config"),
            "{message}"
        );
    }
}
