//! `--create-topics` / `--delete-topics`: CreateTopics and DeleteTopics
//! straight to the active controller.

use std::time::{Duration, Instant};

use kraft_protocol::{ApiKey, ErrorCode, StrBytes};

use crate::args::{Args, TopicsJob};
use crate::conn::Conn;
use crate::Result;

/// CreateTopics version Kafka 4.4's clients send.
const CREATE_TOPICS_VERSION: i16 = 7;
/// DeleteTopics version Kafka 4.4's clients send.
const DELETE_TOPICS_VERSION: i16 = 6;
/// The controllers' own time limit for one CreateTopics/DeleteTopics call.
const TOPICS_TIMEOUT_MS: i32 = 60_000;

/// One CreateTopics or DeleteTopics call of `names`; `Ok(false)` when this
/// controller is not the active one.
pub(crate) async fn topics_call(
    conn: &mut Conn,
    job: &TopicsJob,
    names: &[String],
) -> Result<bool> {
    use kraft_protocol::messages::create_topics_request::{CreatableTopic, CreateTopicsRequest};
    use kraft_protocol::messages::create_topics_response::CreateTopicsResponse;
    use kraft_protocol::messages::delete_topics_request::{DeleteTopicState, DeleteTopicsRequest};
    use kraft_protocol::messages::delete_topics_response::DeleteTopicsResponse;
    let mut errors: Vec<(String, i16)> = Vec::new();
    if job.create {
        let request = CreateTopicsRequest {
            topics: names
                .iter()
                .map(|n| CreatableTopic {
                    name: StrBytes::from(n.as_str()),
                    num_partitions: job.partitions,
                    replication_factor: 3,
                    ..Default::default()
                })
                .collect::<Vec<_>>()
                .into(),
            timeout_ms: TOPICS_TIMEOUT_MS,
            validate_only: false,
            ..Default::default()
        };
        let (response, _): (CreateTopicsResponse, _) = conn
            .call(ApiKey::CreateTopics, CREATE_TOPICS_VERSION, &request)
            .await?;
        for t in response.topics.iter() {
            if t.error_code != 0 {
                errors.push((t.name.to_string(), t.error_code));
            }
        }
        if response.topics.len() != names.len() && errors.is_empty() {
            return Err(format!(
                "{}: CreateTopics answered {} of {} topics",
                conn.address,
                response.topics.len(),
                names.len()
            ));
        }
    } else {
        let request = DeleteTopicsRequest {
            topics: names
                .iter()
                .map(|n| DeleteTopicState {
                    name: Some(StrBytes::from(n.as_str())),
                    ..Default::default()
                })
                .collect::<Vec<_>>()
                .into(),
            timeout_ms: TOPICS_TIMEOUT_MS,
            ..Default::default()
        };
        let (response, _): (DeleteTopicsResponse, _) = conn
            .call(ApiKey::DeleteTopics, DELETE_TOPICS_VERSION, &request)
            .await?;
        for t in response.responses.iter() {
            if t.error_code != 0 {
                let name = t.name.as_ref().map_or("?".to_string(), |n| n.to_string());
                errors.push((name, t.error_code));
            }
        }
    }
    if !errors.is_empty()
        && errors
            .iter()
            .all(|(_, e)| *e == ErrorCode::NotController.code())
    {
        return Ok(false);
    }
    if let Some((name, code)) = errors.first() {
        return Err(format!(
            "{}: {} of {} topics failed, e.g. {name}: {}",
            conn.address,
            errors.len(),
            names.len(),
            ErrorCode::from_code(*code).name()
        ));
    }
    Ok(true)
}

/// `--create-topics` / `--delete-topics`: sequential calls of `batch`
/// topics to the active controller (the first bootstrap server whose first
/// call does not answer NOT_CONTROLLER, for up to 30 s).
pub(crate) async fn topics_only(args: &Args, job: &TopicsJob) -> Result<()> {
    let names: Vec<String> = (0..job.count)
        .map(|i| format!("{}{i}", job.prefix))
        .collect();
    let mut chunks = names.chunks(job.batch);
    let Some(first) = chunks.next() else {
        return Ok(());
    };
    let deadline = Instant::now() + Duration::from_secs(30);
    let (mut conn, started, first_call) = 'found: loop {
        for address in &args.bootstrap {
            let mut conn = match Conn::connect(address, "broker-load-admin").await {
                Ok(c) => c,
                Err(e) => {
                    eprintln!("broker_load: {e}");
                    continue;
                }
            };
            let started = Instant::now();
            if topics_call(&mut conn, job, first).await? {
                break 'found (conn, started, started.elapsed());
            }
        }
        if Instant::now() > deadline {
            return Err("no controller took a topics request within 30 s".into());
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    // Each call's round trip: request written to answer read, the answer
    // sent once the records are committed and applied.
    let mut call_times = vec![first_call];
    for chunk in chunks {
        let t0 = Instant::now();
        if !topics_call(&mut conn, job, chunk).await? {
            return Err(format!(
                "{} is no longer the active controller",
                conn.address
            ));
        }
        call_times.push(t0.elapsed());
    }
    let calls = call_times.len();
    let total = started.elapsed().as_secs_f64();
    call_times.sort_unstable();
    let call_ms = |q: f64| {
        let i = ((q * calls as f64).ceil() as usize).clamp(1, calls) - 1;
        call_times[i].as_secs_f64() * 1000.0
    };
    let latencies = format!(
        "call_p50_ms={:.2} call_p99_ms={:.2} call_max_ms={:.2}",
        call_ms(0.5),
        call_ms(0.99),
        call_ms(1.0)
    );
    if job.create {
        println!(
            "create_batch via=controller client=broker_load topics={} partitions={} rf=3 batch={} calls={calls} total_s={total:.3} {latencies} leader={}",
            job.count, job.partitions, job.batch, conn.address
        );
    } else {
        println!(
            "delete_batch via=controller client=broker_load topics={} batch={} calls={calls} total_s={total:.3} {latencies} leader={}",
            job.count, job.batch, conn.address
        );
    }
    Ok(())
}
