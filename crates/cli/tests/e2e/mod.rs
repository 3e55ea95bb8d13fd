//! End to end with real processes: `kraft storage format` and `kraft server`
//! started as separate processes on loopback, driven by the `kraft` CLI.
//!
//! One scenario, in order: three controllers elect a leader; a fourth starts
//! as an observer and is added by id alone (KIP-1141) and the committed voter
//! set catches up; a follower is killed with SIGKILL and restarted and catches
//! up; the leader is removed and another is elected; a stopped controller's
//! registration is dropped with `cluster unregister-controller`; every process
//! stops on SIGTERM with exit 0; after a restart the voter set is unchanged.

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::Duration;

use kraft_testkit::{free_port, wait_for, KraftServer, TempDir};
use serde_json::Value;

mod authorization;
mod connection_limits;
mod container_env;
mod dashboard_metrics;
mod directories;
mod fail_stop;
mod fatal_exit;
mod logging;
mod mutation_quota;
mod oauth;
mod reassignments;
mod rolling_restarts;
mod sasl_sessions;
mod scram_bootstrap;
mod scram_quorum;
mod secure;
mod snapshots;
mod stale_registration;

const KRAFT: &str = env!("CARGO_BIN_EXE_kraft");

struct Cluster {
    /// Controller `id` is `servers[id - 1]`. Declared first: dropped (the
    /// processes killed) before their directory.
    servers: Vec<KraftServer>,
    /// Kept when a test fails, for its logs.
    dir: TempDir,
    ports: Vec<u16>,
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

impl Cluster {
    fn new(name: &str, nodes: usize) -> Cluster {
        let dir = TempDir::new(&format!("e2e-{name}"));
        Cluster {
            servers: (1..=nodes)
                .map(|id| {
                    KraftServer::new(
                        KRAFT,
                        dir.join(format!("controller-{id}.properties")),
                        dir.join(format!("server-{id}.log")),
                    )
                })
                .collect(),
            dir,
            ports: (0..nodes).map(|_| free_port()).collect(),
        }
    }

    /// The `kraft server` process of controller `id`.
    fn server(&mut self, id: usize) -> &mut KraftServer {
        &mut self.servers[id - 1]
    }

    fn data_dir(&self, id: usize) -> PathBuf {
        self.dir.join(format!("data-{id}"))
    }

    /// The metadata partition directory of controller `id`.
    fn log_dir(&self, id: usize) -> PathBuf {
        self.data_dir(id).join("__cluster_metadata-0")
    }

    /// What controller `id` logged since it was last started.
    fn server_log(&self, id: usize) -> String {
        self.servers[id - 1].log()
    }

    fn props(&self, id: usize) -> PathBuf {
        self.servers[id - 1].config_path().to_path_buf()
    }

    fn bootstrap(&self) -> String {
        (0..3)
            .map(|i| format!("127.0.0.1:{}", self.ports[i]))
            .collect::<Vec<_>>()
            .join(",")
    }

    fn write_props(&self, id: usize) {
        self.write_props_with(id, "");
    }

    /// The properties of controller `id` followed by the `extra` lines.
    fn write_props_with(&self, id: usize, extra: &str) {
        let data = self.data_dir(id);
        let text = format!(
            "node.id={id}\nprocess.roles=controller\ncontroller.listener.names=CONTROLLER\n\
             listeners=CONTROLLER://127.0.0.1:{}\nlog.dirs={}\nmetadata.log.dir={}\n\
             controller.quorum.bootstrap.servers={}\n{extra}",
            self.ports[id - 1],
            data.display(),
            data.display(),
            self.bootstrap()
        );
        self.servers[id - 1].write_config(&text);
    }

    /// `features describe` as controller `id` itself answers it (ApiVersions
    /// to that node: its own image's finalized levels and epoch).
    fn own_features(&self, id: usize) -> Option<String> {
        let (code, out, _) = kraft(&[
            "features",
            "--bootstrap-server",
            &self.controller(id),
            "--command-config",
            self.fast_client().to_str().unwrap_or_default(),
            "describe",
        ]);
        (code == 0 && !out.is_empty()).then_some(out)
    }

    /// The ids `cluster list-endpoints` lists as registered controllers,
    /// asked through controller `via`; `None` when it does not answer.
    fn registered_controllers(&self, via: usize) -> Option<Vec<i32>> {
        let (code, out, _) = kraft(&[
            "cluster",
            "list-endpoints",
            "--bootstrap-controller",
            &self.controller(via),
        ]);
        (code == 0).then(|| {
            out.lines()
                .filter(|l| l.split_whitespace().last() == Some("controller"))
                .filter_map(|l| l.split_whitespace().next()?.parse().ok())
                .collect()
        })
    }

    /// The directory id `kraft storage format` wrote for controller `id`.
    fn directory_id(&self, id: usize) -> String {
        let meta = std::fs::read_to_string(self.data_dir(id).join("meta.properties"))
            .expect("meta.properties");
        meta.lines()
            .find_map(|l| l.strip_prefix("directory.id="))
            .expect("a directory.id")
            .trim()
            .to_string()
    }

    fn controller(&self, id: usize) -> String {
        format!("127.0.0.1:{}", self.ports[id - 1])
    }

    /// `describe --status --output json` against controller `via`, if it answers.
    fn status(&self, via: usize) -> Option<Value> {
        let (code, out, _) = kraft(&[
            "metadata-quorum",
            "--bootstrap-controller",
            &self.controller(via),
            "--command-config",
            self.fast_client().to_str().unwrap_or_default(),
            "describe",
            "--status",
            "--output",
            "json",
        ]);
        if code != 0 {
            return None;
        }
        serde_json::from_str(&out).ok()
    }

    fn fast_client(&self) -> PathBuf {
        let p = self.dir.join("client.properties");
        if !p.exists() {
            std::fs::write(&p, "default.api.timeout.ms=5000\nrequest.timeout.ms=3000\n")
                .expect("client props");
        }
        p
    }
}

fn ids(v: &Value, key: &str) -> Vec<i64> {
    let mut ids: Vec<i64> = v[key]
        .as_array()
        .map(|a| a.iter().filter_map(|r| r["id"].as_i64()).collect())
        .unwrap_or_default();
    ids.sort_unstable();
    ids
}

fn format(cluster: &Cluster, id: usize, cluster_id: &str, extra: &[&str]) {
    cluster.servers[id - 1].format(cluster_id, extra);
}

/// Runs `kraft` and fails the test unless it exits 0; returns stdout.
fn kraft_ok(args: &[&str]) -> String {
    let (code, out, err) = kraft(args);
    assert_eq!(code, 0, "kraft {}: {out}{err}", args.join(" "));
    out
}

/// `--initial-controllers` for controllers 1-3 with fresh directory ids.
fn initial_controllers(c: &Cluster) -> String {
    (0..3)
        .map(|i| {
            let dir = kraft(&["storage", "random-uuid"]).1.trim().to_string();
            format!("{}@127.0.0.1:{}:{dir}", i + 1, c.ports[i])
        })
        .collect::<Vec<_>>()
        .join(",")
}

/// Writes controller `id`'s properties with `extra(id)` for each of
/// controllers 1-3, formats it as a voter of a dynamic quorum of the three
/// (`--initial-controllers`, then `format_args`) and starts it.
fn format_and_start_three(
    c: &mut Cluster,
    cluster_id: &str,
    extra: impl Fn(usize) -> String,
    format_args: &[&str],
) {
    let initial = initial_controllers(c);
    let mut args = vec!["--initial-controllers", initial.as_str()];
    args.extend_from_slice(format_args);
    for id in 1..=3 {
        c.write_props_with(id, &extra(id));
        format(c, id, cluster_id, &args);
        c.server(id).start();
    }
}

/// Waits until controller 1 reports a leader and voters 1-3 committed;
/// returns that status.
fn wait_for_three_voters(c: &Cluster) -> Value {
    wait_for(
        "three voters have a leader",
        Duration::from_secs(60),
        || {
            c.status(1).filter(|s| {
                s["leaderId"].as_i64().is_some_and(|l| l > 0)
                    && ids(s, "committedVoters") == [1, 2, 3]
            })
        },
    )
}

/// Formats controllers 1-3 as a dynamic quorum at `release_version` with
/// `extra` properties (`{id}` in them replaced by the node id), starts them and waits for [`wait_for_three_voters`]
/// and for all three controller registrations (a feature update before them
/// is refused: "controller N has not registered").
fn start_three(c: &mut Cluster, cluster_id: &str, extra: &str, release_version: &str) -> Value {
    format_and_start_three(
        c,
        cluster_id,
        |id| extra.replace("{id}", &id.to_string()),
        &["--release-version", release_version],
    );
    let status = wait_for_three_voters(c);
    wait_for(
        "controllers 1-3 registered",
        Duration::from_secs(60),
        || {
            let mut ids = c.registered_controllers(1)?;
            ids.sort_unstable();
            (ids == [1, 2, 3]).then_some(())
        },
    );
    status
}

#[test]
fn real_processes_form_a_quorum_change_voters_and_survive_restarts() {
    let mut c = Cluster::new("quorum", 4);
    let cluster_id = kraft(&["storage", "random-uuid"]).1.trim().to_string();
    let initial = initial_controllers(&c);
    for id in 1..=3 {
        c.write_props(id);
        format(&c, id, &cluster_id, &["--initial-controllers", &initial]);
    }
    // Formatting twice is refused.
    let props1 = c.props(1);
    let (code, _, err) = kraft(&[
        "storage",
        "format",
        "--config",
        props1.to_str().unwrap_or_default(),
        "--cluster-id",
        &cluster_id,
        "--standalone",
    ]);
    assert_eq!(code, 1, "re-format must fail: {err}");
    for id in 1..=3 {
        c.server(id).start();
    }

    // 1. A leader is elected and the three voters are committed.
    let status = wait_for_three_voters(&c);
    assert_eq!(ids(&status, "currentVoters"), [1, 2, 3]);
    assert_eq!(status["clusterId"].as_str(), Some(cluster_id.as_str()));

    // 2. Controller 4 joins as an observer and is added by id alone.
    c.write_props(4);
    format(&c, 4, &cluster_id, &["--no-initial-controllers"]);
    c.server(4).start();
    wait_for("4 is an observer", Duration::from_secs(60), || {
        c.status(1)
            .filter(|s| ids(s, "currentObservers").contains(&4))
    });
    // Its registration reaches the image (the endpoints KIP-1141 derives).
    wait_for("4 is registered", Duration::from_secs(60), || {
        let (code, out, _) = kraft(&[
            "cluster",
            "list-endpoints",
            "--bootstrap-controller",
            &c.controller(1),
        ]);
        (code == 0 && out.lines().any(|l| l.starts_with("4 "))).then_some(())
    });
    let (code, out, err) = kraft(&[
        "metadata-quorum",
        "--bootstrap-controller",
        &c.controller(1),
        "add-controller",
        "--controller-id",
        "4",
    ]);
    assert_eq!(code, 0, "add-controller: {out}{err}");
    // Kafka's format, with what the active controller derived read back.
    assert_eq!(
        out,
        format!(
            "Added controller 4 with directory id {} and endpoints: CONTROLLER://{}\n",
            c.directory_id(4),
            c.controller(4)
        )
    );
    let status = wait_for("4 is a committed voter", Duration::from_secs(60), || {
        c.status(1)
            .filter(|s| ids(s, "committedVoters") == [1, 2, 3, 4])
    });
    assert_eq!(ids(&status, "currentVoters"), [1, 2, 3, 4]);

    // 3. SIGKILL a follower, restart it: it catches up.
    let leader = status["leaderId"].as_i64().unwrap_or(1) as usize;
    let follower = (1..=4).find(|id| *id != leader).unwrap_or(2);
    c.server(follower).kill();
    let restarted_at = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0);
    c.server(follower).start();
    wait_for(
        "the restarted follower fetches and catches up",
        Duration::from_secs(60),
        || {
            let s = c.status(leader)?;
            let voters = s["currentVoters"].as_array()?;
            let entry = |id: usize| {
                voters
                    .iter()
                    .find(|v| v["id"].as_i64() == Some(id as i64))
                    .cloned()
            };
            let f = entry(follower)?;
            let l = entry(leader)?;
            let fetched_since_restart = f["lastFetchTimestamp"].as_i64()? > restarted_at;
            let caught_up = f["lastCaughtUpTimestamp"].as_i64()? > restarted_at;
            (fetched_since_restart && caught_up && f["logEndOffset"] == l["logEndOffset"])
                .then_some(())
        },
    );

    // 4. Remove the leader: it resigns once the change commits and another leads.
    let other = (1..=4).find(|id| *id != leader).unwrap_or(2);
    let (code, out, err) = kraft(&[
        "metadata-quorum",
        "--bootstrap-controller",
        &c.controller(other),
        "remove-controller",
        "--controller-id",
        &leader.to_string(),
    ]);
    assert_eq!(code, 0, "remove-controller: {out}{err}");
    assert_eq!(
        out,
        format!(
            "Removed KRaft controller {leader} with directory id {}\n",
            c.directory_id(leader)
        )
    );
    let status = wait_for(
        "a new leader without the old one",
        Duration::from_secs(60),
        || {
            c.status(other).filter(|s| {
                s["leaderId"]
                    .as_i64()
                    .is_some_and(|l| l > 0 && l != leader as i64)
                    && !ids(s, "committedVoters").contains(&(leader as i64))
            })
        },
    );
    let remaining = ids(&status, "currentVoters");
    assert_eq!(remaining.len(), 3);

    // 5. Stop the removed controller and drop its registration (KIP-1312).
    assert_eq!(c.server(leader).stop(), Some(0), "SIGTERM exits 0");
    let (code, out, err) = kraft(&[
        "cluster",
        "unregister-controller",
        "--bootstrap-controller",
        &c.controller(other),
        "--id",
        &leader.to_string(),
    ]);
    assert_eq!(code, 0, "unregister-controller: {out}{err}");
    let (code, out, _) = kraft(&[
        "cluster",
        "list-endpoints",
        "--bootstrap-controller",
        &c.controller(other),
    ]);
    assert_eq!(code, 0);
    assert!(
        !out.lines().any(|l| l.starts_with(&format!("{leader} "))),
        "{out}"
    );

    // 6. Every process stops on SIGTERM with exit 0; after a restart the
    //    committed voter set is the same.
    let alive: Vec<usize> = (1..=4).filter(|id| *id != leader).collect();
    for id in &alive {
        assert_eq!(
            c.server(*id).stop(),
            Some(0),
            "controller {id} exits 0 on SIGTERM"
        );
    }
    for id in &alive {
        c.server(*id).start();
    }
    let status = wait_for("the quorum comes back", Duration::from_secs(60), || {
        c.status(other).filter(|s| {
            s["leaderId"].as_i64().is_some_and(|l| l > 0) && !ids(s, "committedVoters").is_empty()
        })
    });
    assert_eq!(ids(&status, "committedVoters"), remaining);
    drop(c);
}

#[test]
fn quickstart_walks_through_add_by_id_and_remove_with_unregister() {
    let tmp = TempDir::new("e2e-quickstart");
    let dir = tmp.join("quickstart");
    let out = Command::new(KRAFT)
        .args(["quickstart", "--exit", "--dir"])
        .arg(&dir)
        .stdin(Stdio::null())
        .output()
        .expect("run quickstart");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "quickstart failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for expected in [
        "$ kraft metadata-quorum --bootstrap-controller",
        "LeaderId:",
        "CurrentVoters:",
        "NodeId\tDirectoryId",
        "add-controller --controller-id 4",
        "Added controller 4",
        "--unregister",
        "Unregistered KRaft controller",
        "The quorum is serving. Bootstrap controller: 127.0.0.1:",
    ] {
        assert!(
            stdout.contains(expected),
            "quickstart output lacks {expected:?}:\n{stdout}"
        );
    }
    // Four voters after the add, three after the removal.
    let voters_after_add = stdout
        .split("add-controller --controller-id 4")
        .nth(1)
        .and_then(|rest| rest.split("stopped controller").next())
        .map(|section| {
            section
                .lines()
                .filter(|l| l.contains("Follower") || l.contains("Leader"))
                .count()
        });
    assert_eq!(voters_after_add, Some(4), "{stdout}");
}

mod kraft_upgrade;
mod reconcile;
mod voter_change_order;

/// The live protocol sweep (shared with interop_kafka.rs).
mod protocol_sweep;

/// One connection to `addr` for several requests in turn (Kafka framing).
struct Connection {
    stream: std::net::TcpStream,
    correlation_id: i32,
}

impl Connection {
    fn open(addr: &str) -> Connection {
        let stream = std::net::TcpStream::connect(addr).expect("connect");
        stream
            .set_read_timeout(Some(Duration::from_secs(30)))
            .expect("timeout");
        Connection {
            stream,
            correlation_id: 0,
        }
    }

    /// Sends `body` at `version`; the answer, or `None` when the server
    /// closed the connection.
    fn send(
        &mut self,
        version: i16,
        body: &kraft_protocol::RequestBody,
    ) -> Option<kraft_protocol::ResponseBody> {
        use std::io::{Read, Write};
        self.correlation_id += 1;
        let api = body.api_key();
        let header = kraft_protocol::messages::request_header::RequestHeader {
            request_api_key: api.id(),
            request_api_version: version,
            correlation_id: self.correlation_id,
            client_id: Some("bad-input".into()),
            ..Default::default()
        };
        let mut frame = Vec::new();
        kraft_protocol::header::encode_request_frame(&mut frame, &header, body).expect("encode");
        self.stream.write_all(&frame).ok()?;
        let mut size = [0u8; 4];
        self.stream.read_exact(&mut size).ok()?;
        let mut response = vec![0u8; usize::try_from(i32::from_be_bytes(size)).ok()?];
        self.stream.read_exact(&mut response).ok()?;
        let (correlation, body) =
            kraft_protocol::header::decode_response(bytes::Bytes::from(response), api, version)
                .expect("a well-formed answer");
        assert_eq!(correlation, self.correlation_id);
        Some(body)
    }
}
