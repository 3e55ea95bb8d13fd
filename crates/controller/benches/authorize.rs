//! The cost of one `StandardAuthorizer::authorize` check over an image of
//! 1,000 ACLs (`authz_workload.rs`: the bench client's grants among
//! unrelated ACLs of other principals), one criterion benchmark per check
//! of `authz_workload::checks`.
//!
//! After the criterion groups (only under `cargo bench`, not in the
//! `cargo test` smoke run) it prints one machine-readable line from the
//! median of a few timed loops per check:
//!
//! ```text
//! kraft-rs acls=1000 checks=5 ns_per_check=... ns_0=... ns_1=... ... iterations=... runs=...
//! ```
//!
//! With `KRAFT_AUTHZ_BENCH_DIR` set, it also writes the ACLs
//! (`acls.txt`) and the checks (`checks.txt`), one per line, tab-separated,
//! in Kafka's names, and that line (`kraft-rs.txt`): `cargo xtask
//! bench-authz` has Kafka's own `StandardAuthorizer`
//! (`tests/interop/.../AuthzBench.java`) measure the same checks on the
//! same ACLs.

#![allow(missing_docs, clippy::unwrap_used)]

#[path = "authz_workload.rs"]
mod authz_workload;

use std::hint::black_box;
use std::net::{IpAddr, Ipv4Addr};
use std::time::Instant;

use criterion::Criterion;
use kraft_controller::authorizer::{
    AclIndex, Action, AuthorizationResult, AuthorizerConfig, RequestIdentity, StandardAuthorizer,
};
use kraft_protocol::acl::{
    AclOperation, AclPermissionType, KafkaPrincipal, PatternType, ResourceType,
};
use kraft_protocol::Uuid;

use authz_workload::{acls, checks, Check, CLIENT, PREFIXES};

/// The ACLs in the image.
const ACLS: usize = 1000;
/// Checks per timed loop of the summary.
const ITERATIONS: usize = 200_000;
/// Timed loops per check (the median is reported).
const RUNS: usize = 7;
/// The client's address.
const CLIENT_HOST: IpAddr = IpAddr::V4(Ipv4Addr::LOCALHOST);

fn authorizer() -> StandardAuthorizer {
    let mut config = AuthorizerConfig::default();
    config.super_users.insert("User:admin".to_string());
    StandardAuthorizer::new(config)
}

fn index() -> AclIndex {
    let set = acls(ACLS, CLIENT, &PREFIXES);
    AclIndex::from_acls(
        set.into_iter()
            .enumerate()
            .map(|(i, acl)| (Uuid::from_u64_pair(7, i as u64 + 1), acl)),
    )
}

fn check_once(
    authorizer: &StandardAuthorizer,
    index: &AclIndex,
    principal: &KafkaPrincipal,
    check: &Check,
) -> AuthorizationResult {
    let who = RequestIdentity {
        principal,
        host: CLIENT_HOST,
    };
    let action = Action::new(check.operation, check.resource_type, &check.name);
    authorizer.authorize(index, true, &who, &action).unwrap()
}

/// Median nanoseconds per check of `RUNS` loops of `ITERATIONS` checks.
fn ns_per_check(
    authorizer: &StandardAuthorizer,
    index: &AclIndex,
    principal: &KafkaPrincipal,
    check: &Check,
) -> f64 {
    let mut runs: Vec<f64> = (0..=RUNS)
        .map(|_| {
            let start = Instant::now();
            for _ in 0..ITERATIONS {
                black_box(check_once(
                    authorizer,
                    black_box(index),
                    black_box(principal),
                    check,
                ));
            }
            start.elapsed().as_nanos() as f64 / ITERATIONS as f64
        })
        .collect();
    // The first loop warms the caches and is dropped.
    runs.remove(0);
    runs.sort_by(f64::total_cmp);
    runs[runs.len() / 2]
}

/// One line per ACL: type, pattern, name, principal, host, operation,
/// permission, in Kafka's names.
fn acl_lines(index: &AclIndex) -> String {
    let mut out = String::new();
    let mut all: Vec<_> = index.iter().collect();
    all.sort_by_key(|(id, _)| **id);
    for (_, a) in all {
        out.push_str(&format!(
            "{}\t{}\t{}\t{}\t{}\t{}\t{}\n",
            ResourceType::from_code(a.resource_type).name(),
            PatternType::from_code(a.pattern_type).name(),
            a.resource_name,
            a.principal,
            a.host,
            AclOperation::from_code(a.operation).name(),
            AclPermissionType::from_code(a.permission_type).name(),
        ));
    }
    out
}

/// One line per check: principal, operation, resource type, name, and
/// ALLOWED or DENIED.
fn check_lines(checks: &[Check]) -> String {
    checks
        .iter()
        .map(|c| {
            format!(
                "{}\t{}\t{}\t{}\t{}\n",
                c.principal,
                c.operation.name(),
                c.resource_type.name(),
                c.name,
                if c.allowed { "ALLOWED" } else { "DENIED" }
            )
        })
        .collect()
}

fn benches(c: &mut Criterion) {
    let authorizer = authorizer();
    let index = index();
    let checks = checks();
    let principals: Vec<KafkaPrincipal> = checks
        .iter()
        .map(|c| KafkaPrincipal::parse(c.principal).unwrap())
        .collect();
    for (check, principal) in checks.iter().zip(&principals) {
        let want = if check.allowed {
            AuthorizationResult::Allowed
        } else {
            AuthorizationResult::Denied
        };
        assert_eq!(
            check_once(&authorizer, &index, principal, check),
            want,
            "{} {} {} {}",
            check.principal,
            check.operation,
            check.resource_type,
            check.name
        );
    }
    let dir = std::env::var_os("KRAFT_AUTHZ_BENCH_DIR").map(std::path::PathBuf::from);
    if let Some(dir) = &dir {
        std::fs::create_dir_all(dir).unwrap();
        std::fs::write(dir.join("acls.txt"), acl_lines(&index)).unwrap();
        std::fs::write(dir.join("checks.txt"), check_lines(&checks)).unwrap();
    }

    let mut group = c.benchmark_group("authorize");
    for (i, (check, principal)) in checks.iter().zip(&principals).enumerate() {
        let label = format!(
            "{i}_{}_{}",
            check.operation.name().to_lowercase(),
            check.resource_type.name().to_lowercase()
        );
        group.bench_function(label, |b| {
            b.iter(|| check_once(&authorizer, black_box(&index), principal, check))
        });
    }
    group.finish();

    if std::env::args().any(|a| a == "--bench") {
        let each: Vec<f64> = checks
            .iter()
            .zip(&principals)
            .map(|(check, principal)| ns_per_check(&authorizer, &index, principal, check))
            .collect();
        let mean = each.iter().sum::<f64>() / each.len() as f64;
        let mut line = format!(
            "kraft-rs acls={} checks={} ns_per_check={mean:.1}",
            index.len(),
            each.len()
        );
        for (i, ns) in each.iter().enumerate() {
            line.push_str(&format!(" ns_{i}={ns:.1}"));
        }
        line.push_str(&format!(" iterations={ITERATIONS} runs={RUNS}"));
        println!("{line}");
        if let Some(dir) = &dir {
            std::fs::write(dir.join("kraft-rs.txt"), format!("{line}\n")).unwrap();
        }
    }
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    benches(&mut c);
    c.final_summary();
}
