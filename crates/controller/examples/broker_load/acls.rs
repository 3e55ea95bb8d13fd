//! `--create-acls COUNT`: the authorization benchmarks' ACLs
//! (`benches/authz_workload.rs`) created in one CreateAcls call straight to
//! the active controller.

use std::time::{Duration, Instant};

use kraft_protocol::{ApiKey, ErrorCode, StrBytes};

use crate::args::Args;
use crate::authz_workload::{acls, PREFIXES};
use crate::conn::Conn;
use crate::Result;

/// CreateAcls version Kafka 4.4's clients send.
const CREATE_ACLS_VERSION: i16 = 3;

/// Creates `count` ACLs (the grants of `--acl-principal`, default
/// `User:ANONYMOUS`, among unrelated ones) with one CreateAcls call on the
/// first bootstrap server that does not answer NOT_CONTROLLER (for up to
/// 30 s) and prints `acls created=N principal=P seconds=S leader=ADDRESS`.
/// The call is answered once the records are committed.
pub(crate) async fn create_acls(args: &Args, count: usize) -> Result<()> {
    use kraft_protocol::messages::create_acls_request::{AclCreation, CreateAclsRequest};
    use kraft_protocol::messages::create_acls_response::CreateAclsResponse;
    let set = acls(count, &args.acl_principal, &PREFIXES);
    let request = CreateAclsRequest {
        creations: set
            .iter()
            .map(|a| AclCreation {
                resource_type: a.resource_type,
                resource_name: StrBytes::from(a.resource_name.as_str()),
                resource_pattern_type: a.pattern_type,
                principal: StrBytes::from(a.principal.as_str()),
                host: StrBytes::from(a.host.as_str()),
                operation: a.operation,
                permission_type: a.permission_type,
                ..Default::default()
            })
            .collect::<Vec<_>>()
            .into(),
        ..Default::default()
    };
    let started = Instant::now();
    let deadline = started + Duration::from_secs(30);
    loop {
        for address in &args.bootstrap {
            let mut conn = match Conn::connect_plain(address, "broker-load-acls").await {
                Ok(c) => c,
                Err(e) => {
                    eprintln!("broker_load: {e}");
                    continue;
                }
            };
            let (response, _): (CreateAclsResponse, _) = conn
                .call(ApiKey::CreateAcls, CREATE_ACLS_VERSION, &request)
                .await?;
            let failed: Vec<i16> = response
                .results
                .iter()
                .map(|r| r.error_code)
                .filter(|c| *c != 0)
                .collect();
            if !failed.is_empty() && failed.iter().all(|c| *c == ErrorCode::NotController.code()) {
                continue;
            }
            if let Some(code) = failed.first() {
                return Err(format!(
                    "{address}: {} of {} ACLs failed, e.g. {}",
                    failed.len(),
                    set.len(),
                    ErrorCode::from_code(*code).name()
                ));
            }
            if response.results.len() != set.len() {
                return Err(format!(
                    "{address}: CreateAcls answered {} of {} ACLs",
                    response.results.len(),
                    set.len()
                ));
            }
            println!(
                "acls created={} principal={} seconds={:.3} leader={address}",
                set.len(),
                args.acl_principal,
                started.elapsed().as_secs_f64()
            );
            return Ok(());
        }
        if Instant::now() > deadline {
            return Err("no controller took CreateAcls within 30 s".into());
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}
