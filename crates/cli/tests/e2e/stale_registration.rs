//! KIP-1312's motivating case with real processes: a controller that was
//! removed from the quorum without `--unregister` leaves its registration
//! behind, and its supported feature range keeps blocking a
//! metadata.version upgrade until `cluster unregister-controller` drops it.

use std::time::Duration;

use super::{format, ids, kraft, kraft_ok, wait_for, Cluster};

/// Controllers 1-3 support metadata.version up to 4.5-IV0 (34).
const UNSTABLE: &str = "unstable.feature.versions.enable=true\n";

#[test]
fn a_stale_registration_blocks_a_feature_upgrade_until_unregistered() {
    let mut c = Cluster::new("stale-registration", 4);
    let cluster_id = kraft(&["storage", "random-uuid"]).1.trim().to_string();
    // With unstable levels enabled the default would be 4.5-IV0.
    super::start_three(&mut c, &cluster_id, UNSTABLE, "4.4-IV2");

    // Controller 4 (4.4-IV2 at most) registers, becomes a voter and is
    // removed again without --unregister, then stopped.
    c.write_props(4);
    format(&c, 4, &cluster_id, &["--no-initial-controllers"]);
    c.server(4).start();
    let registered = |c: &Cluster| {
        c.registered_controllers(1)
            .is_some_and(|ids| ids.contains(&4))
    };
    wait_for("4 is registered", Duration::from_secs(60), || {
        registered(&c).then_some(())
    });
    kraft_ok(&[
        "metadata-quorum",
        "--bootstrap-controller",
        &c.controller(1),
        "add-controller",
        "--controller-id",
        "4",
    ]);
    wait_for("4 is a committed voter", Duration::from_secs(60), || {
        c.status(1)
            .filter(|s| ids(s, "committedVoters") == [1, 2, 3, 4])
    });
    kraft_ok(&[
        "metadata-quorum",
        "--bootstrap-controller",
        &c.controller(1),
        "remove-controller",
        "--controller-id",
        "4",
    ]);
    wait_for("4 is no longer a voter", Duration::from_secs(60), || {
        c.status(1).filter(|s| {
            s["leaderId"].as_i64().is_some_and(|l| (1..=3).contains(&l))
                && ids(s, "committedVoters") == [1, 2, 3]
        })
    });
    assert_eq!(c.server(4).stop(), Some(0));
    assert!(registered(&c), "the registration of 4 stays behind");

    // The upgrade to 4.5-IV0 is refused because of controller 4.
    let upgrade = [
        "features",
        "--bootstrap-controller",
        &c.controller(1),
        "upgrade",
        "--metadata",
        "4.5-IV0",
    ];
    let (code, out, err) = kraft(&upgrade);
    assert_ne!(code, 0, "the upgrade must be refused: {out}{err}");
    let text = format!("{out}{err}");
    eprintln!("e2e: upgrade refused: {}", text.trim());
    assert!(
        text.contains("Could not upgrade metadata.version to 34")
            && text.contains("Controller 4 only supports versions"),
        "{text}"
    );
    let describe = [
        "features",
        "--bootstrap-controller",
        &c.controller(1),
        "describe",
    ];
    let before = kraft_ok(&describe);
    assert!(
        before.contains("FinalizedVersionLevel: 4.4-IV2"),
        "{before}"
    );

    // Unregistering the stale controller unblocks it.
    kraft_ok(&[
        "cluster",
        "unregister-controller",
        "--bootstrap-controller",
        &c.controller(1),
        "--id",
        "4",
    ]);
    // Every voter must be registered for an upgrade (as on Kafka trunk,
    // KAFKA-20865): wait for 1-3, which register on their own schedule.
    wait_for(
        "controllers 1-3 are registered",
        Duration::from_secs(60),
        || {
            c.registered_controllers(1)
                .filter(|ids| [1, 2, 3].iter().all(|id| ids.contains(id)))
                .map(drop)
        },
    );
    let out = kraft_ok(&upgrade);
    assert!(out.contains("metadata.version was upgraded to 34"), "{out}");
    let after = kraft_ok(&describe);
    assert!(after.contains("FinalizedVersionLevel: 4.5-IV0"), "{after}");

    drop(c);
}
