//! `kraft dump-log`: prints a metadata log segment or snapshot exactly as
//! Kafka's `kafka-dump-log.sh --cluster-metadata-decoder` does (class
//! `org.apache.kafka.tools.DumpLogSegments`), line for line.
//!
//! For each file of `--files` (comma-separated) it prints `Dumping <file>`,
//! then `Log starting offset: N` for a segment (`<base offset>.log`) or
//! `Snapshot end offset: N, epoch: E` for a snapshot
//! (`<end offset>-<epoch>.checkpoint`), then one line per batch
//! (`baseOffset: ... isvalid: true`) and, with deep iteration, one
//! `| offset: ...` line per record. Control records are decoded inline
//! (`LeaderChange: {...}`, `SnapshotHeader {...}`, `KRaftVersion {...}`,
//! `KRaftVoters {...}`, ...); data records get `payload: {"type":...,
//! "version":N,"data":{...}}` in the JSON of Kafka's generated converters, or
//! `Error at <offset>, skipping. <reason>` when they cannot be decoded (an
//! unknown record type, say). Bytes after the last whole batch are reported
//! as `Found N invalid bytes at the end of <name>`.
//!
//! The batches are walked with the same rules as Kafka's file reader: a
//! declared batch size below 14 bytes is corruption (the dump stops with an
//! error), a batch that runs past the end of the file ends the walk. Batches
//! are read with [`kraft_protocol::records`]; a batch whose CRC does not hold
//! is printed with `isvalid: false` and its records as they are.
//!
//! Kafka's index, time index, producer snapshot and transaction index dumps
//! are not implemented: such files are skipped with a note on stderr.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::fs::File;
use std::io::{Read, Write};
use std::path::Path;

use bytes::Bytes;
use clap::Args;
use kraft_protocol::json::ToKafkaJson;
use kraft_protocol::messages::{
    k_raft_version_record::KRaftVersionRecord, leader_change_message::LeaderChangeMessage,
    snapshot_footer_record::SnapshotFooterRecord, snapshot_header_record::SnapshotHeaderRecord,
    voters_record::VotersRecord,
};
use kraft_protocol::records::{
    ControlRecordType, MetadataRecordBody, MetadataRecordType, Record, RecordBatch,
    RecordBatchHeader, TimestampType, LOG_OVERHEAD, MAGIC_V2, NO_SEQUENCE, RECORD_BATCH_OVERHEAD,
};
use kraft_protocol::wire::get_uvarint;
use kraft_protocol::Decodable;

use crate::commands::CliError;

/// `kraft dump-log` arguments: the options of Kafka's `kafka-dump-log.sh`
/// that apply to metadata log segments and snapshots.
#[derive(Debug, Args, Clone)]
#[command(after_help = "Examples:
  kraft dump-log --cluster-metadata-decoder --files /var/lib/kraft/__cluster_metadata-0/00000000000000000000.log
  kraft dump-log --cluster-metadata-decoder --skip-record-metadata --files 00000000000000000113-0000000002.checkpoint
  kraft dump-log --deep-iteration --max-bytes 65536 --files 00000000000000000000.log,00000000000000000113-0000000002.checkpoint")]
pub struct DumpLogArgs {
    /// REQUIRED: The comma separated list of data and index log files to be dumped.
    #[arg(long, value_name = "file1, file2, ...", required = true)]
    pub files: String,
    /// If set, log data will be parsed as cluster metadata records.
    #[arg(long)]
    pub cluster_metadata_decoder: bool,
    /// If set, printing the messages content when dumping data logs. Automatically set if any decoder option is specified.
    #[arg(long)]
    pub print_data_log: bool,
    /// If set, uses deep instead of shallow iteration. Automatically set if print-data-log is enabled.
    #[arg(long)]
    pub deep_iteration: bool,
    /// Skip metadata when printing records. This flag also skips control records.
    #[arg(long)]
    pub skip_record_metadata: bool,
    /// Limit the amount of total batches read in bytes avoiding reading the whole .log file(s).
    #[arg(long, value_name = "size", default_value_t = i32::MAX,
          value_parser = clap::value_parser!(i32).range(0..))]
    pub max_bytes: i32,
}

impl DumpLogArgs {
    fn print_data(&self) -> bool {
        self.print_data_log || self.cluster_metadata_decoder
    }

    fn deep(&self) -> bool {
        self.deep_iteration || self.print_data()
    }
}

/// Kafka's `HEADER_SIZE_UP_TO_MAGIC`: a file position this close to the end
/// (or closer) starts no batch.
const HEADER_SIZE_UP_TO_MAGIC: usize = 17;
/// Kafka's `RECORD_OVERHEAD_V0`: the smallest batch size a file may declare.
const MIN_DECLARED_SIZE: i32 = 14;
/// The name Kafka gives the bootstrap snapshot of a metadata directory.
const BOOTSTRAP_CHECKPOINT: &str = "bootstrap.checkpoint";

/// Runs `kraft dump-log`: the dump on `out`, notes (skipped files,
/// non-consecutive offsets) on `err`. A file that cannot be read, a
/// segment or snapshot name that is not Kafka's, or a corrupt batch header
/// ends the dump with an error after what was already printed.
pub fn run(args: &DumpLogArgs, out: &mut dyn Write, err: &mut dyn Write) -> Result<(), CliError> {
    let mut gaps: Vec<(String, BTreeMap<i64, i64>)> = Vec::new();
    // Java's String.split: empty names at the end are dropped.
    let mut files: Vec<&str> = args.files.split(',').collect();
    while files.len() > 1 && files.last() == Some(&"") {
        files.pop();
    }
    for file in files {
        writeln!(out, "Dumping {file}")?;
        let name = file_name(file);
        let Some(dot) = name.rfind('.') else {
            writeln!(err, "Ignoring unknown file {file}")?;
            continue;
        };
        match &name[dot..] {
            ".log" | ".checkpoint" => {
                let mut file_gaps = BTreeMap::new();
                let result = dump_file(file, &name, args, out, &mut file_gaps);
                if !file_gaps.is_empty() {
                    gaps.push((absolute(file), file_gaps));
                }
                result?;
            }
            ".index" | ".timeindex" | ".snapshot" | ".txnindex" => writeln!(
                err,
                "Ignoring {file}: kraft dump-log reads log segments (.log) and snapshots (.checkpoint) only"
            )?,
            _ => writeln!(err, "Ignoring unknown file {file}")?,
        }
    }
    for (file, pairs) in gaps {
        writeln!(err, "Non-consecutive offsets in {file}")?;
        for (before, after) in pairs {
            writeln!(err, "  {before} is followed by {after}")?;
        }
    }
    Ok(())
}

/// The last component of a path, as Java's `File.getName`.
fn file_name(file: &str) -> String {
    Path::new(file)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| file.to_string())
}

fn absolute(file: &str) -> String {
    std::path::absolute(file)
        .map(|p| p.display().to_string())
        .unwrap_or_else(|_| file.to_string())
}

/// `<20-digit end offset>-<10-digit epoch>.checkpoint`, as Kafka names snapshots.
pub(crate) fn parse_snapshot_name(name: &str) -> Option<(i64, i32)> {
    let stem = name.strip_suffix(".checkpoint")?;
    let (offset, epoch) = stem.split_once('-')?;
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if offset.len() != 20 || epoch.len() != 10 || !digits(offset) || !digits(epoch) {
        return None;
    }
    Some((offset.parse().ok()?, epoch.parse().ok()?))
}

fn dump_file(
    file: &str,
    name: &str,
    args: &DumpLogArgs,
    out: &mut dyn Write,
    gaps: &mut BTreeMap<i64, i64>,
) -> Result<(), CliError> {
    if name.ends_with(".log") {
        let stem = name.split('.').next().unwrap_or_default();
        let start: i64 = stem.parse().map_err(|_| {
            CliError::new(format!(
                "{file}: a log segment is named after its base offset (e.g. 00000000000000000000.log)"
            ))
        })?;
        writeln!(out, "Log starting offset: {start}")?;
    } else if name == BOOTSTRAP_CHECKPOINT {
        writeln!(out, "KRaft bootstrap snapshot")?;
    } else {
        let (offset, epoch) = parse_snapshot_name(name).ok_or_else(|| {
            CliError::new(format!(
                "{file}: a snapshot is named <end offset>-<epoch>.checkpoint (e.g. 00000000000000000113-0000000002.checkpoint)"
            ))
        })?;
        writeln!(out, "Snapshot end offset: {offset}, epoch: {epoch}")?;
    }

    let data = read_prefix(file, args.max_bytes)?;
    let end = data.len();
    let mut position = 0usize;
    let mut last_offset = -1i64;
    while let Some((batch, total)) = next_batch(file, &data, position)? {
        write_batch_line(out, &batch, position)?;
        if args.deep() {
            dump_records(out, &batch, args, &mut last_offset, gaps).map_err(|e| match e {
                RecordsError::Io(e) => CliError::from(e),
                RecordsError::Corrupt(msg) => CliError::new(format!(
                    "{file}: the batch at position {position} is corrupt: {msg}"
                )),
            })?;
        }
        position += total;
    }
    if end > position && args.max_bytes == i32::MAX {
        writeln!(
            out,
            "Found {} invalid bytes at the end of {name}",
            end - position
        )?;
    }
    Ok(())
}

/// The batch at `position` of `data` (the contents of `file`) and its size
/// in bytes, read with the rules of Kafka's file reader: `None` when no
/// whole batch starts there (the end, or a torn tail), an error for a
/// declared size below Kafka's minimum, a magic other than 2 or a header
/// that cannot be parsed.
pub(crate) fn next_batch(
    file: &str,
    data: &Bytes,
    position: usize,
) -> Result<Option<(RecordBatch, usize)>, CliError> {
    let end = data.len();
    if end.saturating_sub(position) <= HEADER_SIZE_UP_TO_MAGIC {
        return Ok(None);
    }
    let prefix = &data[position..position + HEADER_SIZE_UP_TO_MAGIC];
    let size = i32::from_be_bytes([prefix[8], prefix[9], prefix[10], prefix[11]]);
    if size < MIN_DECLARED_SIZE {
        return Err(CliError::new(format!(
            "Found record size {size} smaller than minimum record overhead ({MIN_DECLARED_SIZE}) in file {file}."
        )));
    }
    let total = LOG_OVERHEAD + size as usize;
    if total > end - position {
        return Ok(None);
    }
    let magic = prefix[16] as i8;
    if magic != MAGIC_V2 {
        return Err(CliError::new(format!(
            "{file}: the batch at position {position} has magic {magic}; only v2 batches (magic 2), the format of every KRaft log, can be read"
        )));
    }
    let bytes = data.slice(position..position + total);
    let batch = RecordBatch::parse_unverified(bytes).map_err(|e| {
        CliError::new(format!(
            "{file}: the batch at position {position} is corrupt: {e}"
        ))
    })?;
    Ok(Some((batch, total)))
}

/// The first `max_bytes` bytes of `file` (all of it by default).
pub(crate) fn read_prefix(file: &str, max_bytes: i32) -> Result<Bytes, CliError> {
    let cannot = |e: std::io::Error| {
        let reason = match e.kind() {
            std::io::ErrorKind::NotFound => "no such file".to_string(),
            _ => e.to_string(),
        };
        CliError::new(format!("Cannot read {file}: {reason}"))
    };
    let f = File::open(file).map_err(cannot)?;
    if f.metadata().map_err(cannot)?.is_dir() {
        return Err(CliError::new(format!(
            "Cannot read {file}: it is a directory"
        )));
    }
    let mut buf = Vec::new();
    f.take(u64::try_from(max_bytes).unwrap_or(0))
        .read_to_end(&mut buf)
        .map_err(cannot)?;
    Ok(Bytes::from(buf))
}

fn timestamp_type_name(t: TimestampType) -> &'static str {
    match t {
        TimestampType::CreateTime => "CreateTime",
        TimestampType::LogAppendTime => "LogAppendTime",
    }
}

/// Kafka's `DefaultRecordBatch.incrementSequence`: sequences wrap to 0.
fn increment_sequence(sequence: i32, increment: i32) -> i32 {
    if sequence > i32::MAX - increment {
        increment - (i32::MAX - sequence) - 1
    } else {
        sequence + increment
    }
}

fn write_batch_line(
    out: &mut dyn Write,
    batch: &RecordBatch,
    position: usize,
) -> std::io::Result<()> {
    let h: RecordBatchHeader = batch.header();
    let last_sequence = if h.base_sequence == NO_SEQUENCE {
        NO_SEQUENCE
    } else {
        increment_sequence(h.base_sequence, h.last_offset_delta)
    };
    let delete_horizon = if h.attributes.has_delete_horizon() {
        format!("OptionalLong[{}]", h.base_timestamp)
    } else {
        "OptionalLong.empty".to_string()
    };
    writeln!(
        out,
        "baseOffset: {} lastOffset: {} count: {} baseSequence: {} lastSequence: {} producerId: {} \
         producerEpoch: {} partitionLeaderEpoch: {} isTransactional: {} isControl: {} \
         deleteHorizonMs: {} position: {} {}: {} size: {} magic: {} compresscodec: {} crc: {} isvalid: {}",
        h.base_offset,
        h.base_offset.wrapping_add(i64::from(h.last_offset_delta)),
        h.records_count,
        h.base_sequence,
        last_sequence,
        h.producer_id,
        h.producer_epoch,
        h.partition_leader_epoch,
        h.attributes.is_transactional(),
        h.attributes.is_control(),
        delete_horizon,
        position,
        timestamp_type_name(h.attributes.timestamp_type()),
        h.max_timestamp,
        batch.size_in_bytes(),
        h.magic,
        batch.compression().name(),
        h.crc,
        batch.size_in_bytes() >= RECORD_BATCH_OVERHEAD && batch.crc_matches(),
    )
}

enum RecordsError {
    Io(std::io::Error),
    Corrupt(String),
}

impl From<std::io::Error> for RecordsError {
    fn from(e: std::io::Error) -> Self {
        RecordsError::Io(e)
    }
}

fn dump_records(
    out: &mut dyn Write,
    batch: &RecordBatch,
    args: &DumpLogArgs,
    last_offset: &mut i64,
    gaps: &mut BTreeMap<i64, i64>,
) -> Result<(), RecordsError> {
    let records = batch
        .records()
        .map_err(|e| RecordsError::Corrupt(e.to_string()))?;
    let ts_type = timestamp_type_name(batch.timestamp_type());
    let base_sequence = batch.base_sequence();
    for record in records {
        let record = record.map_err(|e| RecordsError::Corrupt(e.to_string()))?;
        if record.offset != last_offset.wrapping_add(1) {
            gaps.insert(*last_offset, record.offset);
        }
        *last_offset = record.offset;
        let mut line = String::new();
        if !args.skip_record_metadata {
            let sequence = if base_sequence == NO_SEQUENCE {
                NO_SEQUENCE
            } else {
                increment_sequence(base_sequence, record.offset_delta)
            };
            let header_keys: Vec<String> = record
                .headers
                .iter()
                .map(|h| String::from_utf8_lossy(&h.key).into_owned())
                .collect();
            let _ = write!(
                line,
                "| offset: {} {ts_type}: {} keySize: {} valueSize: {} sequence: {sequence} headerKeys: [{}]",
                record.offset,
                record.timestamp,
                record.key.as_ref().map_or(-1, |k| k.len() as i64),
                record.value.as_ref().map_or(-1, |v| v.len() as i64),
                header_keys.join(","),
            );
            if batch.is_control() {
                line.push_str(&control_record_text(&record).map_err(RecordsError::Corrupt)?);
            }
        }
        if args.print_data() && !batch.is_control() {
            let mut prefix = if args.skip_record_metadata { "| " } else { " " };
            if args.cluster_metadata_decoder {
                let _ = write!(
                    line,
                    "{prefix}payload: {}",
                    metadata_payload(record.offset, record.value.clone())
                );
            } else {
                if let Some(key) = &record.key {
                    let _ = write!(line, "{prefix}key: {}", String::from_utf8_lossy(key));
                    prefix = " ";
                }
                if let Some(value) = &record.value {
                    let _ = write!(line, "{prefix}payload: {}", String::from_utf8_lossy(value));
                }
            }
        }
        writeln!(out, "{line}")?;
    }
    Ok(())
}

/// What follows the record metadata of a control record: its type and
/// decoded value, as Kafka prints them.
fn control_record_text(record: &Record) -> Result<String, String> {
    let kind = record.control_type().map_err(|e| e.to_string())?;
    let value = || {
        record.value.clone().ok_or_else(|| {
            format!(
                "the {} control record at offset {} has no value",
                kind.name(),
                record.offset
            )
        })
    };
    // Kafka reads every KRaft control record at version 0 and renders it
    // at the version its own `version` field holds.
    fn decoded<M: Decodable>(mut value: Bytes, offset: i64, what: &str) -> Result<M, String> {
        M::decode(&mut value, 0)
            .map_err(|e| format!("the {what} control record at offset {offset}: {e}"))
    }
    let offset = record.offset;
    Ok(match kind {
        ControlRecordType::Abort | ControlRecordType::Commit => {
            let v = value()?;
            if v.len() < 6 {
                return Err(format!(
                    "the end transaction marker at offset {offset} has {} bytes, fewer than 6",
                    v.len()
                ));
            }
            let epoch = i32::from_be_bytes([v[2], v[3], v[4], v[5]]);
            format!(" endTxnMarker: {} coordinatorEpoch: {epoch}", kind.name())
        }
        ControlRecordType::LeaderChange => {
            let m: LeaderChangeMessage = decoded(value()?, offset, "LeaderChange")?;
            format!(" LeaderChange: {}", kafka_json(&m, m.version))
        }
        ControlRecordType::SnapshotHeader => {
            let m: SnapshotHeaderRecord = decoded(value()?, offset, "SnapshotHeader")?;
            format!(" SnapshotHeader {}", kafka_json(&m, m.version))
        }
        ControlRecordType::SnapshotFooter => {
            let m: SnapshotFooterRecord = decoded(value()?, offset, "SnapshotFooter")?;
            format!(" SnapshotFooter {}", kafka_json(&m, m.version))
        }
        ControlRecordType::KRaftVersion => {
            let m: KRaftVersionRecord = decoded(value()?, offset, "KRaftVersion")?;
            format!(" KRaftVersion {}", kafka_json(&m, m.version))
        }
        ControlRecordType::KRaftVoters => {
            let m: VotersRecord = decoded(value()?, offset, "KRaftVoters")?;
            format!(" KRaftVoters {}", kafka_json(&m, m.version))
        }
        ControlRecordType::Unknown(id) => format!(" controlType: UNKNOWN({id})"),
    })
}

fn kafka_json<M: ToKafkaJson>(message: &M, version: i16) -> String {
    let mut s = String::new();
    write_json(&mut s, &message.to_kafka_json(version, true));
    s
}

/// Reads one unsigned varint of the metadata record frame as a short, with
/// the reasons Kafka's `AbstractApiMessageSerde` gives.
fn frame_short(buf: &mut Bytes, entity: &str) -> Result<i16, String> {
    let v = get_uvarint(buf).map_err(|_| format!("Error while reading {entity}"))?;
    i16::try_from(v).map_err(|_| format!("Value for {entity} was too large."))
}

/// The `payload:` text of a metadata record value: Kafka's
/// `{"type":...,"version":N,"data":{...}}`, or `Error at <offset>, skipping.
/// <reason>` when the value cannot be decoded.
fn metadata_payload(offset: i64, value: Option<Bytes>) -> String {
    match decode_metadata(value) {
        Ok(text) => text,
        Err(reason) => format!("Error at {offset}, skipping. {reason}"),
    }
}

fn decode_metadata(value: Option<Bytes>) -> Result<String, String> {
    let mut buf = value.ok_or_else(|| "the record has no value".to_string())?;
    let frame_version = frame_short(&mut buf, "frame version")?;
    if frame_version == 0 {
        return Err("Could not deserialize metadata record with frame version 0. Note that upgrades from the preview release of KRaft in 2.8 to newer versions are not supported.".to_string());
    }
    if frame_version != 1 {
        return Err(format!("Could not deserialize metadata record due to unknown frame version {frame_version}(only frame version 1 is supported)"));
    }
    let api_key = frame_short(&mut buf, "type")?;
    let version = frame_short(&mut buf, "version")?;
    let record_type = MetadataRecordType::from_i16(api_key).ok_or_else(|| {
        format!(
            "org.apache.kafka.common.errors.UnsupportedVersionException: Unknown metadata id {api_key}"
        )
    })?;
    let failed = || format!("Failed to deserialize record with type {api_key}");
    if !record_type.is_valid_version(version) {
        return Err(failed());
    }
    let body =
        MetadataRecordBody::decode_body(record_type, version, &mut buf).map_err(|_| failed())?;
    if !buf.is_empty() {
        return Err(format!(
            "Found {} byte(s) of garbage after {api_key}",
            buf.len()
        ));
    }
    let mut s = String::new();
    let _ = write!(
        s,
        "{{\"type\":\"{}\",\"version\":{version},\"data\":",
        record_type.kafka_name()
    );
    write_json(&mut s, &body.to_kafka_json(version, true));
    s.push('}');
    Ok(s)
}

/// Writes `value` as Jackson writes a `JsonNode`: no spaces, fields in
/// order, floating-point numbers as Java's `Double.toString`, control
/// characters escaped with upper-case hex.
pub fn write_json(out: &mut String, value: &serde_json::Value) {
    use serde_json::Value;
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => match (n.as_i64(), n.as_u64(), n.as_f64()) {
            (Some(i), _, _) => {
                let _ = write!(out, "{i}");
            }
            (None, Some(u), _) => {
                let _ = write!(out, "{u}");
            }
            (None, None, Some(f)) => out.push_str(&java_double(f)),
            _ => out.push_str(&n.to_string()),
        },
        Value::String(s) => write_json_string(out, s),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_json(out, item);
            }
            out.push(']');
        }
        Value::Object(fields) => {
            out.push('{');
            for (i, (key, item)) in fields.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_json_string(out, key);
                out.push(':');
                write_json(out, item);
            }
            out.push('}');
        }
    }
}

fn write_json_string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04X}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// Java's `Double.toString`: plain notation with at least one fractional
/// digit for magnitudes in [10^-3, 10^7), otherwise `d.dddE±n`.
pub fn java_double(d: f64) -> String {
    if d.is_nan() {
        return "NaN".to_string();
    }
    if d.is_infinite() {
        return if d > 0.0 { "Infinity" } else { "-Infinity" }.to_string();
    }
    let magnitude = d.abs();
    if d == 0.0 || (1e-3..1e7).contains(&magnitude) {
        // Debug keeps the ".0" and prints the shortest digits that read back.
        return format!("{d:?}");
    }
    let sci = format!("{d:e}");
    let (mantissa, exponent) = sci.split_once('e').unwrap_or((&sci, "0"));
    if mantissa.contains('.') {
        format!("{mantissa}E{exponent}")
    } else {
        format!("{mantissa}.0E{exponent}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn doubles_print_as_java_does() {
        assert_eq!(java_double(1048576.0), "1048576.0");
        assert_eq!(java_double(10485760.0), "1.048576E7");
        assert_eq!(java_double(1e7), "1.0E7");
        assert_eq!(java_double(0.001), "0.001");
        assert_eq!(java_double(0.0001), "1.0E-4");
        assert_eq!(java_double(-2.5e-5), "-2.5E-5");
        assert_eq!(java_double(0.0), "0.0");
        assert_eq!(java_double(100.0), "100.0");
    }

    #[test]
    fn strings_escape_as_jackson_does() {
        let mut s = String::new();
        write_json_string(&mut s, "a\"b\\c\n\u{1}é/");
        assert_eq!(s, "\"a\\\"b\\\\c\\n\\u0001é/\"");
    }

    #[test]
    fn snapshot_names() {
        assert_eq!(
            parse_snapshot_name("00000000000000000113-0000000002.checkpoint"),
            Some((113, 2))
        );
        assert_eq!(parse_snapshot_name("113-2.checkpoint"), None);
        assert_eq!(parse_snapshot_name("kafka-snapshot.checkpoint"), None);
    }

    #[test]
    fn sequences_wrap() {
        assert_eq!(increment_sequence(5, 3), 8);
        assert_eq!(increment_sequence(i32::MAX, 1), 0);
        assert_eq!(increment_sequence(i32::MAX - 1, 3), 1);
    }
}
