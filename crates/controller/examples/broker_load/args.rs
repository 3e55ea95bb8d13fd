//! The command line.

use std::time::Duration;

use crate::Result;

/// The command line.
pub(crate) struct Args {
    pub(crate) bootstrap: Vec<String>,
    pub(crate) cluster_id: String,
    pub(crate) phases: Vec<usize>,
    pub(crate) seconds: Vec<u64>,
    pub(crate) warmup: Duration,
    pub(crate) interval: Duration,
    pub(crate) first_id: i32,
    pub(crate) pids: Vec<(String, u32)>,
    pub(crate) unregister: Vec<i32>,
    /// `--hold N`: register N brokers and keep them until stdin closes.
    pub(crate) hold: Option<usize>,
    /// `--create-topics` / `--delete-topics`.
    pub(crate) topics: Option<TopicsJob>,
    /// `--reassign`.
    pub(crate) reassign: Option<ReassignJob>,
    /// `--writer PREFIX`: one-topic CreateTopics, across leader changes.
    pub(crate) writer: Option<WriterJob>,
    /// `--wait-leader SECONDS`: poll DescribeQuorum until a leader is known.
    pub(crate) wait_leader: Option<Duration>,
    /// `--since-us`: the epoch microsecond `--wait-leader` counts from.
    pub(crate) since_us: Option<u64>,
    /// `--create-acls COUNT`: the authorization benchmarks' ACLs.
    pub(crate) create_acls: Option<usize>,
    /// `--acl-principal`: whom `--create-acls` grants the bench's needs.
    pub(crate) acl_principal: String,
    /// `--command-config FILE`: Kafka client keys (`security.protocol`,
    /// `ssl.*`, `sasl.*`) for every connection.
    pub(crate) command_config: Option<String>,
}

/// `--writer PREFIX [--concurrency C] [--count N] [--for-secs S] [--samples-out FILE] [--gap-us N]`.
pub(crate) struct WriterJob {
    pub(crate) prefix: String,
    pub(crate) concurrency: usize,
    pub(crate) count: Option<usize>,
    pub(crate) limit: Duration,
    pub(crate) samples_out: Option<String>,
    /// Pause on a connection after each committed call before the next.
    pub(crate) gap: Duration,
}

/// `--reassign PREFIX:TOPICS:PARTITIONS:FIRST_BROKER:BROKERS`.
pub(crate) struct ReassignJob {
    pub(crate) prefix: String,
    pub(crate) topics: usize,
    pub(crate) partitions: i32,
    pub(crate) first_broker: i32,
    pub(crate) brokers: usize,
}

fn parse_reassign_job(value: &str) -> Result<ReassignJob> {
    let parts: Vec<&str> = value.split(':').collect();
    let bad =
        || format!("--reassign wants PREFIX:TOPICS:PARTITIONS:FIRST_BROKER:BROKERS, not {value:?}");
    if parts.len() != 5 {
        return Err(bad());
    }
    let num = |s: &str| -> Result<usize> { s.parse().map_err(|_| bad()) };
    Ok(ReassignJob {
        prefix: parts[0].to_string(),
        topics: num(parts[1])?,
        partitions: i32::try_from(num(parts[2])?).map_err(|_| bad())?,
        first_broker: i32::try_from(num(parts[3])?).map_err(|_| bad())?,
        brokers: num(parts[4])?,
    })
}

/// Topics created or deleted by one run.
pub(crate) struct TopicsJob {
    pub(crate) create: bool,
    pub(crate) prefix: String,
    pub(crate) count: usize,
    pub(crate) partitions: i32,
    pub(crate) batch: usize,
}

fn parse_topics_job(flag: &str, value: &str) -> Result<TopicsJob> {
    let create = flag == "--create-topics";
    let parts: Vec<&str> = value.split(':').collect();
    let want = if create { 4 } else { 3 };
    if parts.len() != want {
        return Err(format!(
            "{flag} wants {}, not {value:?}",
            if create {
                "PREFIX:COUNT:PARTITIONS:BATCH"
            } else {
                "PREFIX:COUNT:BATCH"
            }
        ));
    }
    let num =
        |s: &str| -> Result<usize> { s.parse().map_err(|_| format!("{flag}: cannot parse {s:?}")) };
    let job = TopicsJob {
        create,
        prefix: parts[0].to_string(),
        count: num(parts[1])?,
        partitions: if create {
            i32::try_from(num(parts[2])?).map_err(|e| format!("{flag}: {e}"))?
        } else {
            0
        },
        batch: num(parts[want - 1])?,
    };
    if job.batch == 0 || (create && job.partitions == 0) {
        return Err(format!("{flag}: partitions and batch must be positive"));
    }
    Ok(job)
}

fn parse_list<T: std::str::FromStr>(what: &str, s: &str) -> Result<Vec<T>> {
    s.split(',')
        .filter(|p| !p.is_empty())
        .map(|p| {
            p.trim()
                .parse()
                .map_err(|_| format!("{what}: cannot parse {p:?}"))
        })
        .collect()
}

pub(crate) fn parse_args() -> Result<Args> {
    let mut args = Args {
        bootstrap: Vec::new(),
        cluster_id: String::new(),
        phases: vec![3, 50],
        seconds: vec![30, 20],
        warmup: Duration::from_secs(5),
        interval: Duration::from_millis(100),
        first_id: 100,
        pids: Vec::new(),
        unregister: Vec::new(),
        hold: None,
        topics: None,
        reassign: None,
        writer: None,
        wait_leader: None,
        since_us: None,
        create_acls: None,
        acl_principal: "User:ANONYMOUS".to_string(),
        command_config: None,
    };
    let mut writer = WriterJob {
        prefix: String::new(),
        concurrency: 1,
        count: None,
        limit: Duration::from_secs(60),
        samples_out: None,
        gap: Duration::ZERO,
    };
    let mut writing = false;
    let number = |flag: &str, value: &str| -> Result<u64> {
        value
            .parse()
            .map_err(|_| format!("{flag}: cannot parse {value:?}"))
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let value = it.next().ok_or_else(|| format!("{flag} needs a value"))?;
        match flag.as_str() {
            "--bootstrap" => args.bootstrap = parse_list(&flag, &value)?,
            "--cluster-id" => args.cluster_id = value,
            "--phases" if value == "none" => args.phases.clear(),
            "--phases" => args.phases = parse_list(&flag, &value)?,
            "--seconds" => args.seconds = parse_list(&flag, &value)?,
            "--warmup-secs" => {
                args.warmup = Duration::from_secs_f64(
                    value
                        .parse()
                        .map_err(|_| format!("{flag}: cannot parse {value:?}"))?,
                )
            }
            "--interval-ms" => {
                args.interval = Duration::from_millis(
                    value
                        .parse()
                        .map_err(|_| format!("{flag}: cannot parse {value:?}"))?,
                )
            }
            "--first-id" => {
                args.first_id = value
                    .parse()
                    .map_err(|_| format!("{flag}: cannot parse {value:?}"))?
            }
            "--pids" => {
                for part in value.split(',').filter(|p| !p.is_empty()) {
                    let (name, pid) = part
                        .split_once('=')
                        .ok_or_else(|| format!("--pids wants NAME=PID, not {part:?}"))?;
                    let pid = pid
                        .parse()
                        .map_err(|_| format!("--pids: cannot parse {pid:?}"))?;
                    args.pids.push((name.to_string(), pid));
                }
            }
            "--unregister" => args.unregister = parse_list(&flag, &value)?,
            "--hold" => {
                let n: usize = value
                    .parse()
                    .map_err(|_| format!("{flag}: cannot parse {value:?}"))?;
                if n == 0 {
                    return Err("--hold wants a positive broker count".into());
                }
                args.hold = Some(n);
            }
            "--reassign" => args.reassign = Some(parse_reassign_job(&value)?),
            "--create-topics" | "--delete-topics" => {
                args.topics = Some(parse_topics_job(&flag, &value)?)
            }
            "--writer" => {
                writing = true;
                writer.prefix = value;
            }
            "--concurrency" => {
                writer.concurrency =
                    usize::try_from(number(&flag, &value)?.max(1)).map_err(|e| e.to_string())?
            }
            "--count" => {
                writer.count =
                    Some(usize::try_from(number(&flag, &value)?).map_err(|e| e.to_string())?)
            }
            "--for-secs" => writer.limit = Duration::from_secs(number(&flag, &value)?),
            "--samples-out" => writer.samples_out = Some(value),
            "--gap-us" => writer.gap = Duration::from_micros(number(&flag, &value)?),
            "--wait-leader" => args.wait_leader = Some(Duration::from_secs(number(&flag, &value)?)),
            "--since-us" => args.since_us = Some(number(&flag, &value)?),
            "--create-acls" => {
                args.create_acls =
                    Some(usize::try_from(number(&flag, &value)?).map_err(|e| e.to_string())?)
            }
            "--acl-principal" => args.acl_principal = value,
            "--command-config" => args.command_config = Some(value),
            other => return Err(format!("unknown flag {other}")),
        }
    }
    if writing {
        args.writer = Some(writer);
    }
    if args.bootstrap.is_empty()
        || (args.cluster_id.is_empty()
            && args.wait_leader.is_none()
            && args.writer.is_none()
            && args.create_acls.is_none()
            && args.reassign.is_none())
    {
        return Err("--bootstrap and --cluster-id are required".into());
    }
    if !args.phases.is_empty()
        && (args.phases.windows(2).any(|w| w[0] > w[1]) || args.phases[0] == 0)
    {
        return Err("--phases wants growing positive broker counts, e.g. 3,50".into());
    }
    if args.phases.is_empty()
        || args.hold.is_some()
        || args.topics.is_some()
        || args.reassign.is_some()
    {
        args.phases.clear();
        args.seconds.clear();
    }
    if args.seconds.len() != args.phases.len() {
        return Err("--seconds needs one duration per phase".into());
    }
    if args.interval.is_zero() {
        return Err("--interval-ms must be positive".into());
    }
    Ok(args)
}
