//! `broker_load`: fake Kafka brokers against a controller quorum, for
//! `cargo xtask bench-brokers` (`tests/interop/bench-brokers.sh`).
//!
//! Each fake broker registers with the active controller on its own TCP
//! connection (ApiVersions first, then BrokerRegistration v4 as a Java 4.4
//! broker sends it: cluster id, a fresh incarnation id, one PLAINTEXT
//! listener, the features of `BrokerFeatures.createDefault(false)`, one log
//! directory, no rack, previous broker epoch -1) and then sends
//! BrokerHeartbeat v2 on that connection every `--interval-ms`
//! (`WantFence=false`, `CurrentMetadataOffset` ahead of its registration
//! record, `CordonedLogDirs` empty once the controller says it caught up,
//! as a Java broker does after its recovery). Every heartbeat's round trip
//! (request written to response frame read) is one sample; nothing is
//! retried inside a sample: an error answer is counted, not timed.
//!
//! The brokers' first heartbeats are spread over the interval (golden
//! ratio offsets), so they do not queue behind each other by construction.
//!
//! Phases (`--phases 3,50`): the number of registered fake brokers grows to
//! each count in turn; after every new broker is unfenced and `--warmup-secs`
//! more, heartbeats are timed for `--seconds` while every broker keeps
//! heartbeating. With `--pids`, the resident set, thread count and CPU time
//! of those processes (the controllers) are sampled from `/proc` twice a
//! second. At the end every fake broker is unregistered (UnregisterBroker).
//! `--phases none` only unregisters the `--unregister` ids (the active
//! controller is the one that does not answer NOT_CONTROLLER).
//!
//! `--hold N` registers N fake brokers (ids `--first-id` on), waits until
//! every one is unfenced, prints `ready ...` and keeps them heartbeating
//! every `--interval-ms`, untimed, until its standard input reaches end of
//! file or it receives SIGTERM or SIGINT; it then unregisters them and
//! prints `unregistered ...`. The script that runs it creates topics on
//! those brokers meanwhile (their replicas need registered, unfenced
//! brokers).
//!
//! `--create-topics PREFIX:COUNT:PARTITIONS:BATCH` sends CreateTopics (RF 3)
//! for PREFIX0..PREFIX(COUNT-1) straight to the active controller, BATCH
//! topics a call, sequentially, and prints `create_batch ...`;
//! `--delete-topics PREFIX:COUNT:BATCH` deletes them the same way
//! (`delete_batch ...`). Kafka's Admin client cannot do that: with
//! `bootstrap.controllers` it fails CreateTopics and DeleteTopics itself
//! (`UnsupportedEndpointTypeException`) without sending them.
//!
//! `--reassign PREFIX:TOPICS:PARTITIONS:FIRST_BROKER:BROKERS` moves every
//! partition of those topics to three of those brokers in one
//! AlterPartitionReassignments call, lists the reassignments, cancels them
//! in one call, and prints `reassign_batch ...` with each call's time.
//!
//! `--writer PREFIX` (for `cargo xtask bench`, `tests/interop/bench.sh`)
//! sends one-topic CreateTopics (1 partition, RF 3) back to back on
//! `--concurrency` connections for `--for-secs` (default 60) or until
//! `--count` topics are committed, following leader changes with no pause,
//! and writes one line per committed call to `--samples-out`; with
//! `--gap-us N` a connection pauses N µs after each committed call (so
//! every call starts on a quorum done with the previous one's fsyncs);
//! `--wait-leader SECONDS` polls DescribeQuorum with no pause until a
//! leader is named and prints the time since `--since-us`. Neither needs
//! `--cluster-id`.
//!
//! `--create-acls COUNT` (for `bench.sh`'s runs with the authorizer on)
//! creates the authorization benchmarks' ACLs (`benches/authz_workload.rs`:
//! what `--acl-principal`, default `User:ANONYMOUS`, needs for the
//! modes above, among unrelated ACLs up to COUNT) in one CreateAcls call to
//! the active controller; no `--cluster-id` needed.
//!
//! `--command-config FILE` (any mode) reads a Kafka client configuration
//! as Kafka's tools do (`security.protocol`, `ssl.*`, `sasl.mechanism`,
//! `sasl.jaas.config`): every connection then opens over TLS and/or
//! authenticates with SASL before its ApiVersions (`bench.sh`'s TLS and
//! SASL_SSL quorums).
//!
//! ```text
//! broker_load --bootstrap 127.0.0.1:9093,127.0.0.1:9094 --cluster-id ID
//!     [--phases 3,50] [--seconds 30,20] [--warmup-secs 5] [--interval-ms 100]
//!     [--first-id 100] [--pids 1=PID,2=PID,3=PID] [--unregister 4,5,6]
//! broker_load --bootstrap ... --cluster-id ID --phases none --unregister 4,5,6
//! broker_load --bootstrap ... --cluster-id ID --hold 3 [--first-id 200] [--interval-ms 2000]
//! broker_load --bootstrap ... --cluster-id ID --create-topics big-:10000:10:100
//! broker_load --bootstrap ... --cluster-id ID --delete-topics big-:10000:100
//! broker_load --bootstrap ... --writer lat- [--concurrency 1] [--count N] [--for-secs 60] [--samples-out FILE] [--gap-us N]
//! broker_load --bootstrap ... --wait-leader 120 [--since-us EPOCH_MICROS]
//! broker_load --bootstrap ... --create-acls 1000 [--acl-principal User:ANONYMOUS]
//! broker_load ... --command-config client.properties
//! ```
//!
//! Prints `key=value` lines: `leader ...`, one `phase ...` per phase (round
//! trip percentiles in microseconds), one `proc ...` per phase and process,
//! and `unregistered ...` (with `--hold`: `leader ...`, `ready ...` and
//! `unregistered ...`). Exits non-zero when a setup step fails.

mod acls;
mod args;
#[path = "../../benches/authz_workload.rs"]
mod authz_workload;
mod broker;
mod conn;
mod fleet;
mod hold;
mod leader;
mod phases;
mod procfs;
mod reassign;
mod topics;
mod writer;

use std::process::ExitCode;

use args::{parse_args, Args};

type Result<T> = std::result::Result<T, String>;

/// Nearest-rank percentile of sorted values.
fn percentile(sorted: &[u64], p: f64) -> u64 {
    if sorted.is_empty() {
        return 0;
    }
    let rank = (p * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

/// Microseconds since the Unix epoch (the clock bash's `$EPOCHREALTIME` reads).
fn epoch_us() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_micros()).unwrap_or(u64::MAX))
}

async fn run(args: Args) -> Result<()> {
    if let Some(limit) = args.wait_leader {
        return leader::wait_leader(&args, limit).await;
    }
    if let Some(count) = args.create_acls {
        return acls::create_acls(&args, count).await;
    }
    if let Some(job) = &args.writer {
        return writer::writer(&args, job).await;
    }
    if let Some(job) = &args.topics {
        return topics::topics_only(&args, job).await;
    }
    if let Some(job) = &args.reassign {
        return reassign::reassign(&args, job).await;
    }
    if let Some(count) = args.hold {
        return hold::hold(&args, count).await;
    }
    if args.phases.is_empty() {
        return broker::unregister_only(&args).await;
    }
    phases::measure(args).await
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("broker_load: {e}");
            return ExitCode::from(2);
        }
    };
    // One thread: the generator shares the machine with the controllers.
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            eprintln!("broker_load: {e}");
            return ExitCode::FAILURE;
        }
    };
    if let Some(path) = &args.command_config {
        if let Err(e) = conn::configure_security(path) {
            eprintln!("broker_load: {e}");
            return ExitCode::from(2);
        }
    }
    match runtime.block_on(run(args)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("broker_load: {e}");
            ExitCode::FAILURE
        }
    }
}
