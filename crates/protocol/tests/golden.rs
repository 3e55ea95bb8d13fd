//! Golden vectors: bytes written by real Kafka 4.4 classes (see
//! `tests/golden/README.md`), decoded here to the values Kafka's own JSON
//! converter printed, and re-encoded to the identical bytes.
//!
//! With `KRAFT_GOLDEN_OUT=DIR`, this also writes vectors of our own
//! encodings in the same format, which `cargo xtask golden-verify` hands to
//! real Kafka to decode and compare (the other direction).

use std::path::{Path, PathBuf};

use bytes::Bytes;
use kraft_protocol::json::ToKafkaJson;
use kraft_protocol::messages::*;
use kraft_protocol::sample::{Rng, Sample};
use kraft_protocol::Message;
use serde_json::{json, Value};

fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/golden")
}

fn hex_decode(s: &str) -> Vec<u8> {
    (0..s.len() / 2)
        .map(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).expect("hex"))
        .collect()
}

fn hex_encode(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// Kafka renders records fields as an empty binary node when "serializing"
/// them; Jackson prints an empty binary node as "". Numbers compare by value.
fn normalize(v: &Value) -> Value {
    match v {
        Value::Object(m) => {
            Value::Object(m.iter().map(|(k, v)| (k.clone(), normalize(v))).collect())
        }
        Value::Array(a) => Value::Array(a.iter().map(normalize).collect()),
        Value::Number(n) => n
            .as_i64()
            .map(Value::from)
            .or_else(|| n.as_f64().map(Value::from))
            .unwrap_or(Value::Null),
        other => other.clone(),
    }
}

fn check_vector<M: Message + ToKafkaJson>(
    version: i16,
    case: &str,
    hex: &str,
    expected: &Value,
) -> Result<(), String> {
    let bytes = hex_decode(hex);
    let decoded = M::decode_exact(Bytes::from(bytes.clone()), version)
        .map_err(|e| format!("{} v{version} {case}: decode failed: {e}", M::NAME))?;
    let json = decoded.to_kafka_json(version, true);
    if normalize(&json) != normalize(expected) {
        return Err(format!(
            "{} v{version} {case}: decoded values differ\n  ours:  {json}\n  kafka: {expected}",
            M::NAME
        ));
    }
    let re = decoded
        .encode_to_vec(version)
        .map_err(|e| format!("{} v{version} {case}: re-encode failed: {e}", M::NAME))?;
    if re != bytes {
        return Err(format!(
            "{} v{version} {case}: re-encoding differs\n  ours:  {}\n  kafka: {hex}",
            M::NAME,
            hex_encode(&re)
        ));
    }
    Ok(())
}

fn check_file(path: &Path) -> (usize, Vec<String>) {
    let text = std::fs::read_to_string(path).expect("read golden file");
    let doc: Value = serde_json::from_str(&text).expect("golden file is JSON");
    let name = doc["message"].as_str().expect("message name").to_string();
    let mut ok = 0;
    let mut failures = Vec::new();
    for v in doc["vectors"].as_array().expect("vectors") {
        let version = v["version"].as_i64().expect("version") as i16;
        let case = v["case"].as_str().unwrap_or("?");
        let hex = v["hex"].as_str().expect("hex");
        let expected = &v["json"];
        let mut result = Err(format!("no Rust type for message {name}"));
        macro_rules! dispatch {
            ($module:ident, $ty:ident) => {
                if name == stringify!($ty) {
                    result = check_vector::<$module::$ty>(version, case, hex, expected);
                }
            };
        }
        kraft_protocol::for_each_message!(dispatch);
        match result {
            Ok(()) => ok += 1,
            Err(e) => failures.push(e),
        }
    }
    (ok, failures)
}

#[test]
fn kafka_golden_vectors_decode_and_reencode_identically() {
    let dir = golden_dir();
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("tests/golden exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.extension().is_some_and(|x| x == "json")
                && p.file_name().is_some_and(|n| n != "frames.json")
        })
        .collect();
    files.sort();
    // Every generated message has a file (Kafka knows them all).
    macro_rules! has_file {
        ($module:ident, $ty:ident) => {
            assert!(
                dir.join(concat!(stringify!($ty), ".json")).is_file(),
                "no golden vectors for {}",
                stringify!($ty)
            );
        };
    }
    kraft_protocol::for_each_message!(has_file);
    assert!(
        files.len() >= 121,
        "expected golden files for every message, found {}",
        files.len()
    );
    let mut total = 0;
    let mut failures = Vec::new();
    for f in &files {
        let (ok, mut fails) = check_file(f);
        total += ok;
        failures.append(&mut fails);
    }
    assert!(
        failures.is_empty(),
        "{} of {} vectors failed:\n{}",
        failures.len(),
        total + failures.len(),
        failures.join("\n")
    );
    assert!(total >= 1391, "only {total} vectors");
}

/// Highest version real Kafka 4.4 knows, for messages where kraft-rs goes further.
fn kafka_max_version(name: &str) -> Option<i16> {
    match name {
        "AddRaftVoterRequest" | "AddRaftVoterResponse" => Some(1),
        "RemoveRaftVoterRequest" | "RemoveRaftVoterResponse" => Some(0),
        "DescribeQuorumRequest" | "DescribeQuorumResponse" => Some(2),
        _ => None,
    }
}

fn our_vectors<M: Message + Sample + ToKafkaJson>(out: &Path) {
    let mut vectors = Vec::new();
    let hi = kafka_max_version(M::NAME).unwrap_or(M::HIGHEST_VERSION);
    for version in M::LOWEST_VERSION..=hi {
        for seed in 0..20u64 {
            let mut rng = Rng::new(seed + 1000 * version as u64);
            let mut value = M::sample(&mut rng, version);
            // Kafka's JSON converter does not render unknown tagged fields;
            // keep them in some vectors anyway: Kafka must skip them.
            let bytes = value.encode_to_vec(version).expect("encode");
            let back = M::decode_exact(Bytes::from(bytes.clone()), version).expect("decode");
            assert_eq!(back, value);
            vectors.push(json!({
                "version": version,
                "case": format!("rust-seed-{seed}"),
                "hex": hex_encode(&bytes),
                "json": value.to_kafka_json(version, true),
            }));
            value = M::default();
            let _ = value;
        }
    }
    let doc = json!({"message": M::NAME, "source": "kraft-rs encoder", "vectors": vectors});
    std::fs::write(
        out.join(format!("{}.json", M::NAME)),
        serde_json::to_string_pretty(&doc).expect("json"),
    )
    .expect("write vector file");
}

#[test]
fn write_our_vectors_for_kafka_when_asked() {
    let Ok(out) = std::env::var("KRAFT_GOLDEN_OUT") else {
        // Still exercise the writer so that it cannot rot.
        let tmp = kraft_testkit::TempDir::new("golden");
        our_vectors::<vote_request::VoteRequest>(tmp.path());
        let text = std::fs::read_to_string(tmp.join("VoteRequest.json")).expect("written");
        assert!(text.contains("\"version\": 2"));
        return;
    };
    let out = PathBuf::from(out);
    std::fs::create_dir_all(&out).expect("create output dir");
    macro_rules! write_all {
        ($module:ident, $ty:ident) => {
            our_vectors::<$module::$ty>(&out);
        };
    }
    kraft_protocol::for_each_message!(write_all);
}
