//! `--reassign PREFIX:TOPICS:PARTITIONS:FIRST_BROKER:BROKERS`: one
//! AlterPartitionReassignments of every partition of PREFIX0..PREFIX(TOPICS-1)
//! to three of the brokers FIRST_BROKER.. (BROKERS of them, rotating), then a
//! ListPartitionReassignments of everything, then one cancelling call (null
//! targets) for the same partitions; each timed from request written to
//! answer read, straight to the active controller.

use std::time::{Duration, Instant};

use kraft_protocol::messages::alter_partition_reassignments_request::{
    AlterPartitionReassignmentsRequest, ReassignablePartition, ReassignableTopic,
};
use kraft_protocol::messages::alter_partition_reassignments_response::AlterPartitionReassignmentsResponse;
use kraft_protocol::messages::list_partition_reassignments_request::ListPartitionReassignmentsRequest;
use kraft_protocol::messages::list_partition_reassignments_response::ListPartitionReassignmentsResponse;
use kraft_protocol::{ApiKey, ErrorCode, StrBytes};

use crate::args::{Args, ReassignJob};
use crate::conn::Conn;
use crate::Result;

/// AlterPartitionReassignments version Kafka 4.4's clients send.
const ALTER_VERSION: i16 = 1;
/// ListPartitionReassignments version Kafka 4.4's clients send.
const LIST_VERSION: i16 = 0;
/// The controllers' own time limit for one call.
const TIMEOUT_MS: i32 = 60_000;

fn alter_request(job: &ReassignJob, cancel: bool) -> AlterPartitionReassignmentsRequest {
    let brokers = job.brokers.max(1);
    let topics = (0..job.topics)
        .map(|t| ReassignableTopic {
            name: StrBytes::from(format!("{}{t}", job.prefix)),
            partitions: (0..job.partitions)
                .map(|p| {
                    let i = t * job.partitions as usize + p as usize;
                    let replicas = (!cancel).then(|| {
                        (1..=3)
                            .map(|k| job.first_broker + ((i + k) % brokers) as i32)
                            .collect()
                    });
                    ReassignablePartition {
                        partition_index: p,
                        replicas,
                        ..Default::default()
                    }
                })
                .collect::<Vec<_>>()
                .into(),
            ..Default::default()
        })
        .collect::<Vec<_>>();
    AlterPartitionReassignmentsRequest {
        timeout_ms: TIMEOUT_MS,
        allow_replication_factor_change: true,
        topics: topics.into(),
        ..Default::default()
    }
}

/// One AlterPartitionReassignments call: `Ok(None)` when this controller is
/// not the active one, else the partitions refused (first error named).
async fn alter(
    conn: &mut Conn,
    job: &ReassignJob,
    cancel: bool,
) -> Result<Option<(usize, String)>> {
    let (r, _): (AlterPartitionReassignmentsResponse, _) = conn
        .call(
            ApiKey::AlterPartitionReassignments,
            ALTER_VERSION,
            &alter_request(job, cancel),
        )
        .await?;
    if r.error_code == ErrorCode::NotController.code() {
        return Ok(None);
    }
    if r.error_code != 0 {
        return Err(format!(
            "{}: AlterPartitionReassignments failed: {} {:?}",
            conn.address,
            ErrorCode::from_code(r.error_code).name(),
            r.error_message
        ));
    }
    let mut refused = 0;
    let mut first = String::new();
    for t in r.responses.iter() {
        for p in t.partitions.iter() {
            if p.error_code != 0 {
                if refused == 0 {
                    first = format!(
                        "{}-{}: {}",
                        t.name,
                        p.partition_index,
                        ErrorCode::from_code(p.error_code).name()
                    );
                }
                refused += 1;
            }
        }
    }
    Ok(Some((refused, first)))
}

/// `--reassign`: see the module docs. Prints `reassign_batch ...`.
pub(crate) async fn reassign(args: &Args, job: &ReassignJob) -> Result<()> {
    let deadline = Instant::now() + Duration::from_secs(30);
    let (mut conn, alter_time, refused) = 'found: loop {
        for address in &args.bootstrap {
            let mut conn = match Conn::connect(address, "broker-load-admin").await {
                Ok(c) => c,
                Err(e) => {
                    eprintln!("broker_load: {e}");
                    continue;
                }
            };
            let t0 = Instant::now();
            if let Some(refused) = alter(&mut conn, job, false).await? {
                break 'found (conn, t0.elapsed(), refused);
            }
        }
        if Instant::now() > deadline {
            return Err("no controller took AlterPartitionReassignments within 30 s".into());
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    let total = job.topics * job.partitions as usize;
    if refused.0 > 0 {
        return Err(format!(
            "{} of {total} reassignments refused, e.g. {}",
            refused.0, refused.1
        ));
    }
    let t0 = Instant::now();
    let (listed, _): (ListPartitionReassignmentsResponse, _) = conn
        .call(
            ApiKey::ListPartitionReassignments,
            LIST_VERSION,
            &ListPartitionReassignmentsRequest {
                timeout_ms: TIMEOUT_MS,
                topics: None,
                ..Default::default()
            },
        )
        .await?;
    let list_time = t0.elapsed();
    if listed.error_code != 0 {
        return Err(format!(
            "ListPartitionReassignments failed: {}",
            ErrorCode::from_code(listed.error_code).name()
        ));
    }
    let in_progress: usize = listed.topics.iter().map(|t| t.partitions.len()).sum();
    let t0 = Instant::now();
    let cancelled = alter(&mut conn, job, true)
        .await?
        .ok_or_else(|| format!("{} is no longer the active controller", conn.address))?;
    let cancel_time = t0.elapsed();
    if in_progress != total || cancelled.0 > 0 {
        return Err(format!(
            "{in_progress} of {total} reassignments listed in progress, {} cancellations refused (e.g. {}): the targets must be brokers outside every partition's replicas",
            cancelled.0, cancelled.1
        ));
    }
    println!(
        "reassign_batch via=controller client=broker_load partitions={total} alter_s={:.3} listed={in_progress} list_s={:.3} cancel_s={:.3} leader={}",
        alter_time.as_secs_f64(),
        list_time.as_secs_f64(),
        cancel_time.as_secs_f64(),
        conn.address
    );
    Ok(())
}
