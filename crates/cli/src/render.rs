//! Rendering of admin results, as text identical to Kafka's tools and as JSON.
//!
//! Every function here is pure (no I/O, the clock is a parameter), so the
//! outputs are snapshot-tested.

use kraft_admin::features::ApiVersionRange;
use kraft_admin::{
    kafka_uuid, ClusterNode, FeatureMetadata, MetadataVersion, QuorumInfo, ReplicaState, Uuid,
};
use kraft_protocol::kafka_api_keys::{KafkaApiKey, KAFKA_API_KEYS};
use serde_json::{json, Value};

/// Why a describe output cannot be rendered.
pub type RenderError = String;

fn leader_index(q: &QuorumInfo) -> Result<usize, RenderError> {
    q.voters
        .iter()
        .position(|v| v.replica_id == q.leader_id)
        .ok_or_else(|| {
            format!(
                "The leader {} is not among the current voters [{}]",
                q.leader_id,
                q.voters
                    .iter()
                    .map(|v| v.replica_id.to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        })
}

/// `MaxFollowerLag` and `MaxFollowerLagTimeMs` as `kafka-metadata-quorum describe --status`
/// computes them: the voter with the smallest log end offset (the first
/// one on ties) against the leader.
pub fn max_follower_lag(q: &QuorumInfo) -> Result<(i64, i64), RenderError> {
    let li = leader_index(q)?;
    let leader = &q.voters[li];
    let mut mi = li;
    for (i, v) in q.voters.iter().enumerate() {
        if v.log_end_offset < q.voters[mi].log_end_offset
            || (v.log_end_offset == q.voters[mi].log_end_offset && i < mi)
        {
            mi = i;
        }
    }
    let laggard = &q.voters[mi];
    let lag = leader.log_end_offset - laggard.log_end_offset;
    let lag_time = if mi == li {
        0
    } else {
        match (
            leader.last_caught_up_timestamp,
            laggard.last_caught_up_timestamp,
        ) {
            (Some(a), Some(b)) => a - b,
            _ => -1,
        }
    };
    Ok((lag, lag_time))
}

fn node_entry(q: &QuorumInfo, r: &ReplicaState) -> String {
    let mut s = format!("{{\"id\": {}", r.replica_id);
    if !r.replica_directory_id.is_nil() {
        s.push_str(&format!(
            ", \"directoryId\": \"{}\"",
            kafka_uuid::to_string(&r.replica_directory_id)
        ));
    }
    if let Some(node) = q.nodes.get(&r.replica_id) {
        if !node.endpoints.is_empty() {
            let eps: Vec<String> = node.endpoints.iter().map(|e| format!("\"{e}\"")).collect();
            s.push_str(&format!(", \"endpoints\": [{}]", eps.join(", ")));
        }
    }
    s.push('}');
    s
}

/// A `CurrentVoters:`/`CurrentObservers:` list: `[{"id": 1, "directoryId": "...", "endpoints": [...]}, ...]`.
pub fn replica_list(q: &QuorumInfo, replicas: &[ReplicaState]) -> String {
    let entries: Vec<String> = replicas.iter().map(|r| node_entry(q, r)).collect();
    format!("[{}]", entries.join(", "))
}

/// `describe --status`, exactly as Kafka 4.4 prints it (8 lines). A
/// `CommittedVoters:` line follows when the controller reported committed
/// voters (DescribeQuorum v3, a kraft-rs extension).
pub fn status_text(cluster_id: &str, q: &QuorumInfo) -> Result<String, RenderError> {
    let (lag, lag_time) = max_follower_lag(q)?;
    let mut out = format!(
        "ClusterId:              {cluster_id}\n\
         LeaderId:               {}\n\
         LeaderEpoch:            {}\n\
         HighWatermark:          {}\n\
         MaxFollowerLag:         {lag}\n\
         MaxFollowerLagTimeMs:   {lag_time}\n\
         CurrentVoters:          {}\n\
         CurrentObservers:       {}\n",
        q.leader_id,
        q.leader_epoch,
        q.high_watermark,
        replica_list(q, &q.voters),
        replica_list(q, &q.observers),
    );
    if let Some(committed) = &q.committed_voters {
        out.push_str(&format!(
            "CommittedVoters:        {}\n",
            replica_list(q, committed)
        ));
    }
    Ok(out)
}

/// `value` with every object's fields in name order: the `--output json`
/// documents list their fields alphabetically, whatever order they are
/// built in (serde_json keeps insertion order in this workspace, which the
/// Kafka-compatible JSON of `kraft_protocol::json` needs).
pub fn sorted_keys(value: Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut fields: Vec<(String, Value)> = map.into_iter().collect();
            fields.sort_by(|a, b| a.0.cmp(&b.0));
            Value::Object(
                fields
                    .into_iter()
                    .map(|(k, v)| (k, sorted_keys(v)))
                    .collect(),
            )
        }
        Value::Array(items) => Value::Array(items.into_iter().map(sorted_keys).collect()),
        other => other,
    }
}

fn uuid_json(id: &Uuid) -> Value {
    if id.is_nil() {
        Value::Null
    } else {
        Value::String(kafka_uuid::to_string(id))
    }
}

fn replica_json(q: &QuorumInfo, r: &ReplicaState) -> Value {
    let endpoints: Vec<String> = q
        .nodes
        .get(&r.replica_id)
        .map(|n| n.endpoints.iter().map(ToString::to_string).collect())
        .unwrap_or_default();
    json!({
        "id": r.replica_id,
        "directoryId": uuid_json(&r.replica_directory_id),
        "endpoints": endpoints,
        "logEndOffset": r.log_end_offset,
        "lastFetchTimestamp": r.last_fetch_timestamp,
        "lastCaughtUpTimestamp": r.last_caught_up_timestamp,
    })
}

/// `describe --status --output json`: the text fields, with each replica's
/// offsets and timestamps (`null` when unknown) and `committedVoters`
/// (`null` when the controller does not report them).
pub fn status_json(cluster_id: &str, q: &QuorumInfo) -> Result<Value, RenderError> {
    let (lag, lag_time) = max_follower_lag(q)?;
    let list = |rs: &[ReplicaState]| Value::Array(rs.iter().map(|r| replica_json(q, r)).collect());
    Ok(sorted_keys(json!({
        "clusterId": cluster_id,
        "leaderId": q.leader_id,
        "leaderEpoch": q.leader_epoch,
        "highWatermark": q.high_watermark,
        "maxFollowerLag": lag,
        "maxFollowerLagTimeMs": lag_time,
        "currentVoters": list(&q.voters),
        "currentObservers": list(&q.observers),
        "committedVoters": q.committed_voters.as_deref().map(list),
    })))
}

fn replication_rows(q: &QuorumInfo) -> Result<Vec<(&ReplicaState, &'static str)>, RenderError> {
    let li = leader_index(q)?;
    let mut rows = vec![(&q.voters[li], "Leader")];
    rows.extend(
        q.voters
            .iter()
            .filter(|v| v.replica_id != q.leader_id)
            .map(|v| (v, "Follower")),
    );
    rows.extend(q.observers.iter().map(|o| (o, "Observer")));
    Ok(rows)
}

/// Kafka's relative time check: the timestamp must lie in (epoch, now].
fn relative_ms(ts: i64, now_ms: i64, what: &str) -> Result<i64, RenderError> {
    if !(ts > 0 && ts <= now_ms) {
        return Err(format!(
            "Error while computing relative time, possible drift in system clock.\nCurrent timestamp is {now_ms}, {what} timestamp is {ts}"
        ));
    }
    Ok(now_ms - ts)
}

/// `describe --replication [--human-readable]`: Kafka's table (each cell
/// left-aligned to its column's width and followed by a tab). With
/// `human_readable_now = Some(now_ms)` timestamps print as `<n> ms ago`.
pub fn replication_text(
    q: &QuorumInfo,
    human_readable_now: Option<i64>,
) -> Result<String, RenderError> {
    let li = leader_index(q)?;
    let leader_leo = q.voters[li].log_end_offset;
    let ts = |t: Option<i64>, what: &str| -> Result<String, RenderError> {
        match (t, human_readable_now) {
            (None, _) => Ok("-1".to_owned()),
            (Some(t), None) => Ok(t.to_string()),
            (Some(t), Some(now)) => Ok(format!("{} ms ago", relative_ms(t, now, what)?)),
        }
    };
    let headers = [
        "NodeId",
        "DirectoryId",
        "LogEndOffset",
        "Lag",
        "LastFetchTimestamp",
        "LastCaughtUpTimestamp",
        "Status",
    ];
    let mut rows: Vec<Vec<String>> = Vec::new();
    for (r, status) in replication_rows(q)? {
        rows.push(vec![
            r.replica_id.to_string(),
            kafka_uuid::to_string(&r.replica_directory_id),
            r.log_end_offset.to_string(),
            (leader_leo - r.log_end_offset).to_string(),
            ts(r.last_fetch_timestamp, "last fetch")?,
            ts(r.last_caught_up_timestamp, "last caught up")?,
            status.to_owned(),
        ]);
    }
    Ok(pretty_table(&headers, &rows))
}

/// `describe --replication --output json`: one object per row of the text
/// table (timestamps as epoch ms, `null` when unknown; `directoryId` as
/// text, the zero UUID included, as in the table).
pub fn replication_json(q: &QuorumInfo) -> Result<Value, RenderError> {
    let li = leader_index(q)?;
    let leader_leo = q.voters[li].log_end_offset;
    let rows: Vec<Value> = replication_rows(q)?
        .into_iter()
        .map(|(r, status)| {
            json!({
                "nodeId": r.replica_id,
                "directoryId": kafka_uuid::to_string(&r.replica_directory_id),
                "logEndOffset": r.log_end_offset,
                "lag": leader_leo - r.log_end_offset,
                "lastFetchTimestamp": r.last_fetch_timestamp,
                "lastCaughtUpTimestamp": r.last_caught_up_timestamp,
                "status": status,
            })
        })
        .collect();
    Ok(sorted_keys(json!({ "replicas": rows })))
}

/// Kafka's `ToolsUtils.prettyPrintTable`.
pub fn pretty_table(headers: &[&str], rows: &[Vec<String>]) -> String {
    let mut widths: Vec<usize> = headers.iter().map(|h| h.chars().count()).collect();
    for row in rows {
        for (i, cell) in row.iter().enumerate().take(widths.len()) {
            widths[i] = widths[i].max(cell.chars().count());
        }
    }
    let mut out = String::new();
    let mut line = |cells: &mut dyn Iterator<Item = &str>| {
        for (i, cell) in cells.enumerate() {
            out.push_str(cell);
            let pad = widths
                .get(i)
                .copied()
                .unwrap_or(0)
                .saturating_sub(cell.chars().count());
            out.extend(std::iter::repeat_n(' ', pad));
            out.push('\t');
        }
        out.push('\n');
    };
    line(&mut headers.iter().copied());
    for row in rows {
        line(&mut row.iter().map(String::as_str));
    }
    out
}

/// `kafka-features describe`: one line per supported feature, sorted by name.
pub fn features_text(f: &FeatureMetadata) -> String {
    let mut out = String::new();
    for (name, range) in &f.supported_features {
        let finalized = f
            .finalized_features
            .get(name)
            .map(|r| r.max_version_level)
            .unwrap_or(0);
        let epoch = f
            .finalized_features_epoch
            .map(|e| e.to_string())
            .unwrap_or_else(|| "-".to_owned());
        out.push_str(&format!(
            "Feature: {:<40}  SupportedMinVersion: {:<15}  SupportedMaxVersion: {:<15}  FinalizedVersionLevel: {:<15}  Epoch: {}\n",
            name,
            MetadataVersion::level_to_string(name, range.min_version),
            MetadataVersion::level_to_string(name, range.max_version),
            MetadataVersion::level_to_string(name, finalized),
            epoch,
        ));
    }
    out
}

/// `features describe --output json`.
pub fn features_json(f: &FeatureMetadata) -> Value {
    let features: Vec<Value> = f
        .supported_features
        .iter()
        .map(|(name, range)| {
            let finalized = f
                .finalized_features
                .get(name)
                .map(|r| r.max_version_level)
                .unwrap_or(0);
            json!({
                "feature": name,
                "supportedMinVersion": range.min_version,
                "supportedMaxVersion": range.max_version,
                "finalizedVersionLevel": finalized,
                "finalizedVersion": MetadataVersion::level_to_string(name, finalized),
            })
        })
        .collect();
    sorted_keys(json!({ "epoch": f.finalized_features_epoch, "features": features }))
}

/// `kafka-cluster list-endpoints`: a `%-10s %-<host>s %-10s %-<rack>s [%-10s ]%-15s` table.
pub fn endpoints_text(nodes: &[ClusterNode], controllers: bool) -> String {
    let host_width = nodes
        .iter()
        .map(|n| n.host.chars().count())
        .max()
        .unwrap_or(100);
    let rack_width = nodes
        .iter()
        .filter_map(|n| n.rack.as_ref())
        .map(|r| r.chars().count())
        .max()
        .unwrap_or(10);
    let mut out = String::new();
    let mut row =
        |id: &str, host: &str, port: &str, rack: &str, state: Option<&str>, kind: &str| {
            out.push_str(&format!(
                "{id:<10} {host:<host_width$} {port:<10} {rack:<rack_width$} "
            ));
            if let Some(state) = state {
                out.push_str(&format!("{state:<10} "));
            }
            out.push_str(&format!("{kind:<15}\n"));
        };
    if controllers {
        row("ID", "HOST", "PORT", "RACK", None, "ENDPOINT_TYPE");
    } else {
        row("ID", "HOST", "PORT", "RACK", Some("STATE"), "ENDPOINT_TYPE");
    }
    for n in nodes {
        let rack = n.rack.clone().unwrap_or_else(|| "null".to_owned());
        if controllers {
            row(
                &n.id.to_string(),
                &n.host,
                &n.port.to_string(),
                &rack,
                None,
                "controller",
            );
        } else {
            let state = if n.is_fenced { "fenced" } else { "unfenced" };
            row(
                &n.id.to_string(),
                &n.host,
                &n.port.to_string(),
                &rack,
                Some(state),
                "broker",
            );
        }
    }
    out
}

/// Kafka's `Node.toString`: `host:port (id: 1 rack: null isFenced: false)`.
pub fn node_text(node: &ClusterNode) -> String {
    format!(
        "{}:{} (id: {} rack: {} isFenced: {})",
        node.host,
        node.port,
        node.id,
        node.rack.as_deref().unwrap_or("null"),
        node.is_fenced
    )
}

/// Kafka's `NodeApiVersions.toString(true)`: every API the node answered
/// with and every client API of Kafka 4.4.0 it did not (`UNSUPPORTED`), in
/// key order, each with the version Kafka 4.4.0's client would use.
pub fn node_api_versions_text(versions: &[ApiVersionRange]) -> String {
    use std::collections::BTreeMap;
    let mut lines: BTreeMap<i16, String> = BTreeMap::new();
    for v in versions {
        let range = if v.min_version == v.max_version {
            v.min_version.to_string()
        } else {
            format!("{} to {}", v.min_version, v.max_version)
        };
        let text = match KafkaApiKey::find(v.api_key) {
            Some(key) => {
                let usable = if key.latest_version < v.min_version {
                    " [unusable: node too new]".to_owned()
                } else if v.max_version < key.oldest_version {
                    " [unusable: node too old]".to_owned()
                } else {
                    format!(" [usable: {}]", key.latest_version.min(v.max_version))
                };
                format!("{}({}): {range}{usable}", key.name, key.id)
            }
            None => format!("UNKNOWN({}): {range}", v.api_key),
        };
        lines.insert(v.api_key, text);
    }
    for key in KAFKA_API_KEYS.iter().filter(|k| k.client_api) {
        lines
            .entry(key.id)
            .or_insert_with(|| format!("{}({}): UNSUPPORTED", key.name, key.id));
    }
    let body: Vec<&str> = lines.values().map(String::as_str).collect();
    format!("(\n\t{}\n)", body.join(",\n\t"))
}
