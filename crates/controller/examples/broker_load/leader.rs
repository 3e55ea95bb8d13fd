//! `--wait-leader`: DescribeQuorum polls until the quorum names a leader.

use std::time::{Duration, Instant};

use kraft_protocol::{ApiKey, StrBytes};
use tokio::net::TcpStream;

use crate::args::Args;
use crate::conn::Conn;
use crate::{epoch_us, Result};

/// `--wait-leader`: DescribeQuorum to the bootstrap servers in turn, with
/// no pause between answers, until one names a leader; prints `leader
/// id=N ms=M polls=P` with M counted from `--since-us` (the spawn of the
/// server, taken by the caller) or from this program's start. A refused
/// connection (the server not listening yet) is retried after 1 ms.
pub(crate) async fn wait_leader(args: &Args, limit: Duration) -> Result<()> {
    use kraft_protocol::messages::describe_quorum_request::{
        DescribeQuorumRequest, PartitionData, TopicData,
    };
    use kraft_protocol::messages::describe_quorum_response::DescribeQuorumResponse;
    let since = args.since_us.unwrap_or_else(epoch_us);
    let deadline = Instant::now() + limit;
    let mut polls = 0u64;
    let request = DescribeQuorumRequest {
        topics: vec![TopicData {
            topic_name: StrBytes::from_static("__cluster_metadata"),
            partitions: vec![PartitionData {
                partition_index: 0,
                ..Default::default()
            }]
            .into(),
            ..Default::default()
        }]
        .into(),
        ..Default::default()
    };
    let (_, ours) = ApiKey::DescribeQuorum.versions();
    while Instant::now() < deadline {
        for address in &args.bootstrap {
            let Ok(Ok(stream)) =
                tokio::time::timeout(Duration::from_secs(1), TcpStream::connect(address)).await
            else {
                tokio::time::sleep(Duration::from_millis(1)).await;
                continue;
            };
            drop(stream);
            let mut conn = match Conn::connect_plain(address, "bench-wait-leader").await {
                Ok(c) => c,
                Err(_) => continue,
            };
            let version = conn
                .versions
                .get(&ApiKey::DescribeQuorum.id())
                .map_or(0, |(_, hi)| (*hi).min(ours));
            while Instant::now() < deadline {
                polls += 1;
                let Ok((response, _)) = conn
                    .call::<_, DescribeQuorumResponse>(ApiKey::DescribeQuorum, version, &request)
                    .await
                else {
                    break;
                };
                let mut leader = None;
                for t in response.topics.iter() {
                    for p in t.partitions.iter() {
                        if p.leader_id >= 0 {
                            leader = Some(p.leader_id);
                        }
                    }
                }
                if let Some(id) = leader {
                    let ms = epoch_us().saturating_sub(since) as f64 / 1000.0;
                    println!("leader id={id} ms={ms:.1} polls={polls} address={address}");
                    return Ok(());
                }
                if response.error_code != 0 {
                    break;
                }
            }
        }
    }
    Err(format!(
        "no leader within {} s ({polls} polls)",
        limit.as_secs()
    ))
}
