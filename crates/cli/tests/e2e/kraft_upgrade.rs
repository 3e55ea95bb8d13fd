//! A static quorum (`controller.quorum.voters`, kraft.version 0) of real
//! `kraft server` processes is upgraded to kraft.version 1 with
//! `kraft features upgrade --feature kraft.version=1`, after which voters
//! carry directory ids and can be changed dynamically.

use std::time::Duration;

use super::*;

fn write_static_props(c: &Cluster, id: usize) {
    let data = c.dir.join(format!("data-{id}"));
    let voters = (1..=3)
        .map(|i| format!("{i}@127.0.0.1:{}", c.ports[i - 1]))
        .collect::<Vec<_>>()
        .join(",");
    let text = format!(
        "node.id={id}\nprocess.roles=controller\ncontroller.listener.names=CONTROLLER\n\
         listeners=CONTROLLER://127.0.0.1:{}\nlog.dirs={}\nmetadata.log.dir={}\n\
         controller.quorum.voters={voters}\n",
        c.ports[id - 1],
        data.display(),
        data.display(),
    );
    c.servers[id - 1].write_config(&text);
}

fn features(c: &Cluster, args: &[&str]) -> (i32, String, String) {
    let bc = c.controller(1);
    let mut all = vec!["features", "--bootstrap-controller", &bc];
    all.extend_from_slice(args);
    kraft(&all)
}

/// The finalized level of `name` in `kraft features describe` output.
fn finalized(describe: &str, name: &str) -> Option<i64> {
    let line = describe.lines().find(|l| {
        l.strip_prefix("Feature: ")
            .is_some_and(|r| r.split_whitespace().next() == Some(name))
    })?;
    let after = line.split("FinalizedVersionLevel:").nth(1)?;
    after.split_whitespace().next()?.parse().ok()
}

#[test]
fn static_quorum_upgrades_to_kraft_version_1() {
    let mut c = Cluster::new("kraft-upgrade", 3);
    let cluster_id = kraft(&["storage", "random-uuid"]).1.trim().to_string();
    for id in 1..=3 {
        write_static_props(&c, id);
        format(&c, id, &cluster_id, &[]);
    }
    for id in 1..=3 {
        c.server(id).start();
    }
    let status = wait_for(
        "a leader of the static quorum",
        Duration::from_secs(30),
        || {
            c.status(1)
                .filter(|s| s["leaderId"].as_i64().is_some_and(|l| l > 0))
        },
    );
    assert_eq!(ids(&status, "currentVoters"), vec![1, 2, 3]);
    let (code, out, err) = features(&c, &["describe"]);
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(finalized(&out, "kraft.version"), Some(0), "{out}");

    // A dynamic-quorum operation is refused while kraft.version is 0.
    let (code, _, err) = kraft(&[
        "metadata-quorum",
        "--bootstrap-controller",
        &c.controller(1),
        "remove-controller",
        "--controller-id",
        "3",
        "--controller-directory-id",
        "AAAAAAAAAAAAAAAAAAAAAQ",
    ]);
    assert_ne!(code, 0);
    assert!(err.contains("kraft.version"), "{err}");
    // By id alone (RemoveRaftVoter v1, KIP-1141) the kraft.version check
    // still comes first, and with --unregister the tool does not advise
    // unregistering a running static voter.
    let unsupported =
        "Cluster doesn't support removing voter because the kraft.version feature is 0";
    let leader_addr = c.controller(status["leaderId"].as_i64().unwrap_or(1) as usize);
    let remove_v1 = || {
        super::voter_change_order::ask(
            &leader_addr,
            1,
            super::voter_change_order::remove_by_id(&cluster_id, 3),
        )
    };
    let mut answer = remove_v1();
    // Right after an election the HW may be unknown (REQUEST_TIMED_OUT).
    for _ in 0..40 {
        if answer.0 != kraft_protocol::ErrorCode::RequestTimedOut {
            break;
        }
        std::thread::sleep(Duration::from_millis(250));
        answer = remove_v1();
    }
    assert_eq!(
        answer,
        (
            kraft_protocol::ErrorCode::UnsupportedVersion,
            unsupported.to_string()
        )
    );
    // Adding by id alone (AddRaftVoter v2): kraft.version 0 is reported
    // before the id is found to be a voter already or derivation is tried.
    let add_v2 = super::voter_change_order::ask(
        &leader_addr,
        2,
        super::voter_change_order::add_by_id(&cluster_id, 3),
    );
    assert_eq!(
        add_v2,
        (
            kraft_protocol::ErrorCode::UnsupportedVersion,
            "Cluster doesn't support adding voter because the kraft.version feature is 0"
                .to_string()
        )
    );
    for extra in [&[][..], &["--unregister"][..]] {
        let mut args = vec![
            "metadata-quorum",
            "--bootstrap-controller",
            &leader_addr,
            "remove-controller",
            "--controller-id",
            "3",
        ];
        args.extend_from_slice(extra);
        let (code, out, err) = kraft(&args);
        assert_ne!(code, 0, "{out}");
        assert!(err.contains(unsupported), "{err}");
        assert!(!out.contains("Unregistered"), "{out}");
        if !extra.is_empty() {
            assert!(err.contains("kraft.version=1"), "{err}");
            assert!(!err.contains("unregister-controller --id"), "{err}");
        }
    }

    // Every controller registers first (a feature upgrade is checked
    // against the registrations, as in Kafka).
    wait_for(
        "controllers 1-3 registered",
        Duration::from_secs(30),
        || {
            c.registered_controllers(1)
                .filter(|ids| ids.len() == 3)
                .map(drop)
        },
    );

    // The followers report their directory ids and ranges with
    // UpdateRaftVoter; until then the upgrade is refused, then it succeeds.
    let mut refusals = Vec::new();
    wait_for(
        "kraft.version upgraded to 1",
        Duration::from_secs(30),
        || {
            let (code, out, err) = features(&c, &["upgrade", "--feature", "kraft.version=1"]);
            if code == 0 {
                Some(out)
            } else {
                refusals.push(format!("{out}{err}"));
                None
            }
        },
    );
    for r in &refusals {
        assert!(
            r.contains("not all of the voters support it")
                || r.contains("NOT_CONTROLLER")
                // The active controller's image may trail the one asked above.
                || r.contains("has not registered"),
            "unexpected refusal: {r}"
        );
    }
    let describe = wait_for("kraft.version 1 finalized", Duration::from_secs(10), || {
        let (_, out, _) = features(&c, &["describe"]);
        (finalized(&out, "kraft.version") == Some(1)).then_some(out)
    });
    assert!(describe.contains("Feature: kraft.version"), "{describe}");

    // The voters now carry the directory ids they reported.
    let status = c.status(1).expect("status");
    let voters = status["currentVoters"].as_array().expect("voters").clone();
    assert_eq!(voters.len(), 3);
    for v in &voters {
        let dir = v["directoryId"].as_str().unwrap_or_default();
        assert!(!dir.is_empty() && dir != "AAAAAAAAAAAAAAAAAAAAAA", "{v}");
    }
    // ... and the quorum is dynamic: remove a follower by id alone.
    let leader = status["leaderId"].as_i64().expect("leader");
    let victim = (1..=3).find(|id| *id != leader).expect("a follower");
    let (code, out, err) = kraft(&[
        "metadata-quorum",
        "--bootstrap-controller",
        &c.controller(leader as usize),
        "remove-controller",
        "--controller-id",
        &victim.to_string(),
    ]);
    assert_eq!(code, 0, "{out}{err}");
    wait_for(
        "the follower left the voter set",
        Duration::from_secs(20),
        || {
            c.status(leader as usize)
                .filter(|s| ids(s, "currentVoters").len() == 2)
        },
    );
    for id in 1..=3 {
        assert_eq!(c.server(id).stop(), Some(0), "controller {id} exits 0");
    }
}
