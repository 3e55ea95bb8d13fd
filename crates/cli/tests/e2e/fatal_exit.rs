//! `kraft server` exits non-zero, with the storage error on stderr, when the
//! raft layer cannot make its state durable: here the `quorum-state` write
//! of its first election fails because `quorum-state.tmp` is a directory.

use super::*;

#[test]
fn a_failed_quorum_state_write_makes_the_server_exit_non_zero() {
    // Three ports for the bootstrap list; only controller 1 runs, alone.
    let mut c = Cluster::new("fatal-exit", 3);
    c.write_props(1);
    let cluster_id = kraft_ok(&["storage", "random-uuid"]).trim().to_string();
    let directory_id = kraft_ok(&["storage", "random-uuid"]).trim().to_string();
    let initial = format!("1@127.0.0.1:{}:{directory_id}", c.ports[0]);
    format(&c, 1, &cluster_id, &["--initial-controllers", &initial]);
    std::fs::create_dir(c.log_dir(1).join("quorum-state.tmp"))
        .expect("block the quorum-state write");

    c.server(1).start();
    let code = wait_for("kraft server exits", Duration::from_secs(30), || {
        c.server(1).try_wait()?.code()
    });
    let log = c.server_log(1);
    assert_eq!(code, 1, "{log}");
    assert!(
        log.contains("controller 1 stopped: cannot persist the election state")
            && log.contains("quorum-state.tmp"),
        "{log}"
    );
}
