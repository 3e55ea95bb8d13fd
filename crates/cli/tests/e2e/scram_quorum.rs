//! SCRAM between kraft-rs controllers, which Kafka cannot do (KAFKA-15513):
//! three controllers whose controller listener is SASL_PLAINTEXT with
//! `sasl.mechanism.controller.protocol=SCRAM-SHA-512`, the credential
//! bootstrapped by `kraft storage format --add-scram` with the same salt on
//! every controller. They elect a leader before any credential is committed
//! (each checks logins against the credentials of its local snapshot and
//! log until its image has the cluster's records), commit, and elect
//! another after a SIGKILL. Then the controllers' password is changed
//! through AlterUserScramCredentials and the whole quorum is killed and
//! restarted with the new one: they elect a leader from what their logs
//! hold, where the bootstrap checkpoint still has the old password.

use super::secure::{
    authenticate, client_file, handshake, scram_upsert, send, PLAIN_MODULE, SCRAM_MODULE,
};
use super::*;
use kraft_protocol::ResponseBody;

/// The controllers' properties with the SCRAM password `password`, and an
/// `admin` PLAIN user for raw requests.
fn scram_props(password: &str) -> String {
    format!(
        "listener.security.protocol.map=CONTROLLER:SASL_PLAINTEXT\n\
         sasl.enabled.mechanisms=SCRAM-SHA-512,PLAIN\n\
         sasl.mechanism.controller.protocol=SCRAM-SHA-512\n\
         listener.name.controller.scram-sha-512.sasl.jaas.config={SCRAM_MODULE} required \
         username=\"controller\" password=\"{password}\";\n\
         listener.name.controller.plain.sasl.jaas.config={PLAIN_MODULE} required \
         user_admin=\"admin-secret\";\n"
    )
}

fn scram_client(password: &str) -> String {
    format!(
        "security.protocol=SASL_PLAINTEXT\nsasl.mechanism=SCRAM-SHA-512\n\
         sasl.jaas.config={SCRAM_MODULE} required username=\"controller\" \
         password=\"{password}\";\n"
    )
}

/// `describe --status --output json` against controller `via` as `client`.
fn scram_status(c: &Cluster, via: usize, client: &str) -> Option<Value> {
    let path = client_file(c, client);
    let (code, out, _) = kraft(&[
        "metadata-quorum",
        "--bootstrap-controller",
        &c.controller(via),
        "--command-config",
        path.to_str().unwrap_or_default(),
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

#[test]
fn controllers_authenticate_each_other_with_bootstrapped_scram_credentials() {
    let mut c = Cluster::new("scram-quorum", 3);
    let cluster_id = kraft_ok(&["storage", "random-uuid"]).trim().to_string();
    let extra = scram_props("ctl-scram-secret");
    format_and_start_three(
        &mut c,
        &cluster_id,
        |_| extra.clone(),
        &[
            "--add-scram",
            "SCRAM-SHA-512=[name=controller,password=ctl-scram-secret,salt=\"W22ZaJ0SNY7soEsUEjb6gQ==\"]",
        ],
    );
    let client = scram_client("ctl-scram-secret");
    let first = wait_for(
        "a leader elected over SCRAM-SHA-512",
        Duration::from_secs(60),
        || {
            scram_status(&c, 1, &client).filter(|s| {
                s["leaderId"].as_i64().is_some_and(|l| l > 0)
                    && ids(s, "committedVoters") == [1, 2, 3]
                    && s["highWatermark"].as_i64().is_some_and(|hw| hw > 0)
            })
        },
    );
    let leader = usize::try_from(first["leaderId"].as_i64().unwrap_or(0)).expect("a leader");
    let epoch = first["leaderEpoch"].as_i64().unwrap_or(-1);
    // Commits go on (the active controller's NoOpRecords reach every voter).
    wait_for("commits", Duration::from_secs(30), || {
        scram_status(&c, 1, &client)
            .filter(|s| s["highWatermark"].as_i64() > first["highWatermark"].as_i64())
    });
    // A wrong password is refused.
    let wrong = client.replace("ctl-scram-secret", "not-the-secret");
    assert!(scram_status(&c, 1, &wrong).is_none());

    c.server(leader).kill();
    let other = if leader == 1 { 2 } else { 1 };
    let next = wait_for(
        "a new leader over SCRAM-SHA-512 after a SIGKILL",
        Duration::from_secs(60),
        || {
            scram_status(&c, other, &client).filter(|s| {
                s["leaderId"]
                    .as_i64()
                    .is_some_and(|l| l > 0 && l != leader as i64)
                    && s["leaderEpoch"].as_i64() > Some(epoch)
            })
        },
    );
    // The killed controller comes back, authenticates to the new leader
    // and fetches from it.
    let restarted_at = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0);
    c.server(leader).start();
    wait_for(
        "the restarted controller fetches from the new leader",
        Duration::from_secs(60),
        || {
            let s = scram_status(&c, other, &client)?;
            let voters = s["currentVoters"].as_array()?;
            let restarted = voters
                .iter()
                .find(|v| v["id"].as_i64() == Some(leader as i64))?;
            (s["leaderId"] == next["leaderId"]
                && restarted["lastFetchTimestamp"].as_i64()? > restarted_at)
                .then_some(())
        },
    );

    // The controllers' password is changed in the metadata log.
    let leader_now = usize::try_from(next["leaderId"].as_i64().unwrap_or(0)).expect("a leader");
    let upsert = scram_upsert(
        "controller",
        2,
        "ctl-rotated-secret",
        b"rotated-controller-salt",
    );
    let mut conn = Connection::open(&c.controller(leader_now));
    send(&mut conn, 1, handshake("PLAIN")).expect("handshake");
    send(&mut conn, 2, authenticate(b"\0admin\0admin-secret")).expect("auth");
    let Some(ResponseBody::AlterUserScramCredentials(r)) = send(&mut conn, 0, upsert) else {
        panic!("no answer to AlterUserScramCredentials")
    };
    assert!(r.results.iter().all(|x| x.error_code == 0), "{r:?}");
    let rotated = scram_client("ctl-rotated-secret");
    // Every voter's log holds the change before the quorum goes down.
    let written = wait_for(
        "the new password in effect",
        Duration::from_secs(30),
        || scram_status(&c, leader_now, &rotated),
    );
    let hw = written["highWatermark"].as_i64().unwrap_or(i64::MAX);
    wait_for(
        "every voter's log past the change",
        Duration::from_secs(30),
        || {
            let s = scram_status(&c, leader_now, &rotated)?;
            s["currentVoters"]
                .as_array()?
                .iter()
                .all(|v| v["logEndOffset"].as_i64().is_some_and(|e| e >= hw))
                .then_some(())
        },
    );
    for id in 1..=3 {
        c.server(id).kill();
    }
    let extra = scram_props("ctl-rotated-secret");
    for id in 1..=3 {
        c.write_props_with(id, &extra);
        c.server(id).start();
    }
    wait_for(
        "a leader elected with the rotated password after a full restart",
        Duration::from_secs(60),
        || {
            scram_status(&c, 1, &rotated).filter(|s| {
                s["leaderId"].as_i64().is_some_and(|l| l > 0)
                    && s["highWatermark"].as_i64().is_some_and(|h| h > hw)
            })
        },
    );
    assert!(scram_status(&c, 1, &client).is_none(), "the old password");

    for id in 1..=3 {
        let log = c.server_log(id);
        for secret in ["ctl-scram-secret", "ctl-rotated-secret"] {
            assert!(
                !log.contains(secret),
                "the password in controller {id}'s log"
            );
        }
    }
}
