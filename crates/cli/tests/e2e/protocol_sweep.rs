//! The live protocol sweep (`protocol_sweep/mod.rs`) against three real
//! `kraft server` processes: every advertised API at every advertised
//! version, to the leader and to a follower, must get a well-formed answer.

use std::time::Duration;

use super::{kraft, start_three, Cluster};

#[path = "../protocol_sweep/mod.rs"]
pub(super) mod sweep;

#[test]
fn every_advertised_api_and_version_gets_a_well_formed_answer() {
    let mut c = Cluster::new("sweep", 3);
    let cluster_id = kraft(&["storage", "random-uuid"]).1.trim().to_string();
    start_three(&mut c, &cluster_id, "", "4.4-IV2");
    let nodes: Vec<(i32, String)> = (1..=3).map(|id| (id as i32, c.controller(id))).collect();
    let (leader, follower) = sweep::leader_and_follower(&nodes, Duration::from_secs(60));
    let result = sweep::run("kraft-rs", &[leader, follower]);
    eprintln!("{}", result.table());
    let failures = result.failures();
    let logs: String = (1..=3)
        .map(|id| {
            let log = c.server_log(id);
            let errors: Vec<&str> = log
                .lines()
                .filter(|l| l.contains("ERROR") || l.contains("cannot encode"))
                .collect();
            format!("controller {id}:\n{}\n", errors.join("\n"))
        })
        .collect();
    drop(c);
    assert!(
        failures.is_empty(),
        "{} request(s) got no well-formed answer:\n  {}\nserver errors:\n{logs}",
        failures.len(),
        failures.join("\n  ")
    );
}
