//! Rolling SIGKILL restarts under a stream of feature changes: a 3-node
//! quorum of real `kraft server` processes loses one node at a time (killed
//! with SIGKILL and started again straight away, one every ~1.8 s) while a
//! client alternates `group.version` between 1 and 0. With one node down at
//! a time a quorum always exists, so no call may fail, and every
//! acknowledged change must survive: afterwards every node reports the last
//! acknowledged level.
//!
//! A restarted controller must not answer from an image that does not hold
//! what its snapshot and log already commit (DescribeCluster used to say
//! "There is no finalized MetadataVersion ..." and the admin client took it
//! as final). The first phase provokes exactly that with the real `kraft`
//! binary: each node is restarted and asked first, at once. The second
//! phase is the loop, through the kraft-admin crate (a fresh client per
//! call, as every CLI invocation is, its bootstrap list starting at a
//! different node each time).
//!
//! `KRAFT_ROLLING_RESTARTS_SECS` sets the length of the loop (default 18 s;
//! `cargo xtask soak-restarts [SECONDS]` runs it longer).

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use kraft_admin::{Admin, AdminConfig, FeatureUpdate, UpdateFeaturesOptions, UpgradeType};

use super::{kraft, start_three, wait_for, Cluster};

const FEATURE: &str = "group.version";
/// Time between two kills.
const KILL_EVERY: Duration = Duration::from_millis(1800);

fn loop_duration() -> Duration {
    let secs = std::env::var("KRAFT_ROLLING_RESTARTS_SECS")
        .ok()
        .and_then(|s| s.parse::<u64>().ok())
        .unwrap_or(18);
    Duration::from_secs(secs.max(1))
}

/// The bootstrap list `host:port,...` of controllers 1-3 starting at `first`.
fn bootstrap_from(c: &Cluster, first: usize) -> String {
    (0..3)
        .map(|i| c.controller((first - 1 + i) % 3 + 1))
        .collect::<Vec<_>>()
        .join(",")
}

fn update_for(level: i16) -> BTreeMap<String, FeatureUpdate> {
    BTreeMap::from([(
        FEATURE.to_string(),
        FeatureUpdate {
            max_version_level: level,
            upgrade_type: if level == 1 {
                UpgradeType::Upgrade
            } else {
                UpgradeType::SafeDowngrade
            },
        },
    )])
}

/// `(finalized group.version, epoch)` as controller `id` itself answers
/// `features describe` (ApiVersions to that node); the epoch is `None`
/// while the node finalizes nothing.
fn level_of(c: &Cluster, id: usize) -> Option<(i64, Option<i64>)> {
    let out = c.own_features(id)?;
    let line = out.lines().find(|l| {
        l.strip_prefix("Feature: ")
            .is_some_and(|r| r.split_whitespace().next() == Some(FEATURE))
    })?;
    let field = |name: &str| line.split(name).nth(1)?.split_whitespace().next();
    let level = field("FinalizedVersionLevel:")?.parse().ok()?;
    Some((level, field("Epoch:")?.parse().ok()))
}

/// What the admin-crate loop measured.
#[derive(Debug, Default)]
struct LoopStats {
    calls: u64,
    failed: u64,
    errors: Vec<String>,
    /// The level of the last acknowledged change.
    last_acked: Option<i16>,
    slowest: Duration,
}

/// Alternates the feature from `start_level` until `stop`, a fresh client
/// per call, bootstrapping from `lists[call % 3]`.
fn run_client_loop(lists: Vec<String>, stop: Arc<AtomicBool>, start_level: i16) -> LoopStats {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime");
    runtime.block_on(async move {
        let mut stats = LoopStats {
            last_acked: Some(start_level),
            ..Default::default()
        };
        let mut level = start_level;
        while !stop.load(Ordering::Relaxed) {
            let target = 1 - level;
            let mut config = AdminConfig::bootstrap_controllers(&lists[stats.calls as usize % 3])
                .expect("bootstrap list");
            config.default_api_timeout = Duration::from_secs(30);
            config.request_timeout = Duration::from_secs(5);
            let admin = Admin::new(config);
            let started = Instant::now();
            let outcome = admin
                .update_features(&update_for(target), UpdateFeaturesOptions::default())
                .await;
            stats.slowest = stats.slowest.max(started.elapsed());
            stats.calls += 1;
            let error = match outcome {
                Ok(results) => match results.get(FEATURE) {
                    Some(Ok(())) => None,
                    Some(Err(e)) => Some(e.to_string()),
                    None => Some("no result for the feature".to_string()),
                },
                Err(e) => Some(e.to_string()),
            };
            match error {
                None => {
                    level = target;
                    stats.last_acked = Some(target);
                }
                Some(e) => {
                    stats.failed += 1;
                    if stats.errors.len() < 10 {
                        stats.errors.push(e);
                    }
                }
            }
            admin.close().await;
        }
        stats
    })
}

#[test]
fn rolling_sigkill_restarts_lose_no_acknowledged_change_and_fail_no_call() {
    let mut c = Cluster::new("rolling-restarts", 3);
    let cluster_id = kraft(&["storage", "random-uuid"]).1.trim().to_string();
    start_three(&mut c, &cluster_id, "", "4.4-IV2");
    wait_for(
        "controllers 1-3 registered",
        Duration::from_secs(60),
        || {
            let (code, out, _) = kraft(&[
                "cluster",
                "list-endpoints",
                "--bootstrap-controller",
                &c.bootstrap(),
            ]);
            let registered = out
                .lines()
                .filter(|l| l.split_whitespace().last() == Some("controller"))
                .count();
            (code == 0 && registered == 3).then_some(())
        },
    );

    // 1. The real binary, asking a node that was restarted a moment ago first.
    let mut binary_failures = Vec::new();
    let mut level: i16 = 1;
    let mut kills = 0u64;
    for id in 1..=3 {
        c.server(id).kill();
        c.server(id).start();
        kills += 1;
        let target = 1 - level;
        let (op, verb) = if target == 1 {
            ("upgrade", "upgraded")
        } else {
            ("downgrade", "downgraded")
        };
        let feature = format!("{FEATURE}={target}");
        let bootstrap = bootstrap_from(&c, id);
        let (code, out, err) = kraft(&[
            "features",
            "--bootstrap-controller",
            &bootstrap,
            op,
            "--feature",
            &feature,
        ]);
        if code == 0 && out.contains(&format!("{FEATURE} was {verb} to {target}.")) {
            level = target;
        } else {
            binary_failures.push(format!("{op} via restarted node {id}: {out}{err}"));
        }
    }

    // 2. The loop, with a node killed and restarted every KILL_EVERY.
    let duration = loop_duration();
    let stop = Arc::new(AtomicBool::new(false));
    let lists: Vec<String> = (1..=3).map(|first| bootstrap_from(&c, first)).collect();
    let client = {
        let stop = stop.clone();
        std::thread::spawn(move || run_client_loop(lists, stop, level))
    };
    let started = Instant::now();
    let mut next = 1;
    while started.elapsed() < duration {
        std::thread::sleep(KILL_EVERY.min(duration.saturating_sub(started.elapsed())));
        if started.elapsed() >= duration {
            break;
        }
        c.server(next).kill();
        c.server(next).start();
        kills += 1;
        next = next % 3 + 1;
    }
    stop.store(true, Ordering::Relaxed);
    let stats = client.join().expect("the client loop");
    let elapsed = started.elapsed();
    eprintln!(
        "e2e: rolling restarts: {} calls ({} by the kraft binary), {} failed, {} kills in {:.1} s, slowest call {} ms",
        stats.calls + 3,
        3,
        stats.failed + binary_failures.len() as u64,
        kills,
        elapsed.as_secs_f64(),
        stats.slowest.as_millis()
    );

    assert!(
        binary_failures.is_empty() && stats.failed == 0,
        "calls failed although a quorum existed: kraft binary {} of 3:\n{}\nadmin loop {} of {}, first errors:\n{}",
        binary_failures.len(),
        binary_failures.join("\n"),
        stats.failed,
        stats.calls,
        stats.errors.join("\n")
    );
    assert!(stats.calls > 10, "the loop made only {} calls", stats.calls);
    assert!(kills >= 5, "only {kills} kills");

    // 3. Every node ends at the last acknowledged level, as it answers itself.
    let last = i64::from(stats.last_acked.unwrap_or(level));
    for id in 1..=3 {
        wait_for(
            &format!("controller {id} reports {FEATURE}={last}"),
            Duration::from_secs(60),
            || level_of(&c, id).filter(|(l, epoch)| *l == last && epoch.is_some()),
        );
    }
    for id in 1..=3 {
        c.server(id).kill();
    }
}
