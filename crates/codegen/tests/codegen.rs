//! Generator tests: snapshots of the generated Rust for small schemas, and
//! the errors an invalid schema gets (naming its file and field).

use kraft_codegen::emit::{emit_message, snake_case};
use kraft_codegen::model::Versions;
use kraft_codegen::parse_schema;

const SMALL_REQUEST: &str = r#"
// A small request exercising the schema features.
{
  "apiKey": 900,
  "type": "request",
  "listeners": ["controller"],
  "name": "SampleRequest",
  "validVersions": "0-2",
  "flexibleVersions": "1+",
  "fields": [
    { "name": "ClusterId", "type": "string", "versions": "0+", "nullableVersions": "0+", "default": "null",
      "about": "The cluster id." },
    { "name": "TimeoutMs", "type": "int32", "versions": "0+", "default": "0x7530", "about": "Timeout." },
    { "name": "Ack", "type": "bool", "versions": "2+", "default": "true", "about": "Not ignorable." },
    { "name": "Hint", "type": "int64", "versions": "1+", "default": "-1", "ignorable": true, "about": "Ignorable." },
    { "name": "Items", "type": "[]Item", "versions": "0+", "about": "Items.", "fields": [
      { "name": "Name", "type": "string", "versions": "0+", "mapKey": true, "about": "Key." },
      { "name": "Port", "type": "uint16", "versions": "0+", "about": "Port." }
    ]},
    { "name": "Leader", "type": "LeaderIdAndEpoch", "versions": "1+", "taggedVersions": "1+", "tag": 0,
      "about": "Tagged struct." },
    { "name": "DirectoryId", "type": "uuid", "versions": "2+", "taggedVersions": "2+", "tag": 1,
      "about": "Tagged uuid." }
  ],
  "commonStructs": [
    { "name": "LeaderIdAndEpoch", "versions": "0+", "fields": [
      { "name": "LeaderId", "type": "int32", "versions": "0+", "default": "-1", "about": "Leader." },
      { "name": "LeaderEpoch", "type": "int32", "versions": "0+", "default": "-1", "about": "Epoch." }
    ]}
  ]
}
"#;

const HEADER: &str = r#"
{
  "type": "header",
  "name": "TinyHeader",
  "validVersions": "1-2",
  "flexibleVersions": "2+",
  "fields": [
    { "name": "CorrelationId", "type": "int32", "versions": "0+", "about": "Correlation." },
    { "name": "ClientId", "type": "string", "versions": "1+", "nullableVersions": "1+",
      "flexibleVersions": "none", "about": "Always a classic string." }
  ]
}
"#;

#[test]
fn small_request_snapshot() {
    let spec = parse_schema("SampleRequest.json", SMALL_REQUEST).expect("valid schema");
    assert_eq!(spec.structs.len(), 3, "top, Item and the common struct");
    insta::assert_snapshot!("small_request", emit_message(&spec));
}

#[test]
fn header_with_classic_string_override_snapshot() {
    let spec = parse_schema("TinyHeader.json", HEADER).expect("valid schema");
    insta::assert_snapshot!("tiny_header", emit_message(&spec));
}

fn error_of(text: &str) -> String {
    parse_schema("Bad.json", text)
        .expect_err("schema must be refused")
        .to_string()
}

fn with_fields(fields: &str) -> String {
    format!(
        r#"{{ "apiKey": 1, "type": "request", "name": "BadRequest", "validVersions": "0-3",
            "flexibleVersions": "2+", "fields": [ {fields} ] }}"#
    )
}

#[test]
fn invalid_schemas_name_file_and_field() {
    let cases: &[(&str, &str)] = &[
        (
            r#"{ "name": "Port", "type": "int99", "versions": "0+" }"#,
            "Bad.json: BadRequest.Port: unknown type \"int99\"",
        ),
        (
            r#"{ "name": "Id", "type": "int32", "versions": "0+", "nullableVersions": "0+" }"#,
            "Bad.json: BadRequest.Id: type int32 cannot be nullable",
        ),
        (
            r#"{ "name": "T", "type": "int32", "versions": "0+", "taggedVersions": "2-3", "tag": 0 }"#,
            "Bad.json: BadRequest.T: taggedVersions must be open-ended (N+)",
        ),
        (
            r#"{ "name": "T", "type": "int32", "versions": "0+", "taggedVersions": "0+", "tag": 0 }"#,
            "Bad.json: BadRequest.T: taggedVersions must lie in the flexible versions",
        ),
        (
            r#"{ "name": "A", "type": "int32", "versions": "2+", "taggedVersions": "2+", "tag": 3 },
               { "name": "B", "type": "int32", "versions": "2+", "taggedVersions": "2+", "tag": 3 }"#,
            "Bad.json: BadRequest.B: tag 3 is used twice in BadRequest",
        ),
        (
            r#"{ "name": "Flag", "type": "bool", "versions": "0+", "default": "maybe" }"#,
            "Bad.json: BadRequest.Flag: invalid default \"maybe\" for type bool",
        ),
        (
            r#"{ "name": "Small", "type": "int8", "versions": "0+", "default": "300" }"#,
            "Bad.json: BadRequest.Small: invalid default \"300\" for type int8",
        ),
        (
            r#"{ "name": "Items", "type": "[]Missing", "versions": "0+" }"#,
            "Bad.json: BadRequest.Items: unknown struct type Missing",
        ),
        (
            r#"{ "name": "1st", "type": "int32", "versions": "0+" }"#,
            "Bad.json: BadRequest.1st: field name must match [A-Za-z][A-Za-z0-9]*",
        ),
        (
            r#"{ "name": "Id", "type": "int32", "versions": "0+" },
               { "name": "Id", "type": "int32", "versions": "1+" }"#,
            "Bad.json: BadRequest.Id: duplicate field name",
        ),
        (
            r#"{ "name": "Host", "type": "string", "versions": "0+", "default": "null" }"#,
            "Bad.json: BadRequest.Host: default null on a field that is never nullable",
        ),
    ];
    for (fields, expected) in cases {
        assert_eq!(
            &error_of(&with_fields(fields)),
            expected,
            "fields: {fields}"
        );
    }
}

#[test]
fn invalid_top_level_keys_are_refused() {
    assert_eq!(
        error_of(
            r#"{ "apiKey": 1, "type": "request", "name": "X", "validVersions": "0-1", "fields": [] }"#
        ),
        "Bad.json: flexibleVersions: is required"
    );
    assert_eq!(
        error_of(
            r#"{ "apiKey": 1, "type": "request", "name": "X", "validVersions": "0-1", "flexibleVersions": "1-2", "fields": [] }"#
        ),
        "Bad.json: flexibleVersions: must be none or open-ended, got \"1-2\""
    );
    assert_eq!(
        error_of(
            r#"{ "type": "response", "name": "X", "validVersions": "0", "flexibleVersions": "0+", "fields": [] }"#
        ),
        "Bad.json: apiKey: requests and responses need an apiKey"
    );
    assert!(
        error_of(r#"{ "type": "request", "name": "X", "bogus": 1 }"#)
            .contains("unknown field `bogus`")
    );
}

#[test]
fn version_ranges_parse_like_kafka() {
    assert_eq!(
        Versions::parse("3+"),
        Some(Versions {
            lo: 3,
            hi: i16::MAX
        })
    );
    assert_eq!(Versions::parse("0-2"), Some(Versions { lo: 0, hi: 2 }));
    assert_eq!(Versions::parse("5"), Some(Versions { lo: 5, hi: 5 }));
    assert!(Versions::parse("none").is_some_and(|v| v.is_empty()));
    assert_eq!(Versions::parse("2-1"), None);
    assert_eq!(Versions::parse("x"), None);
}

#[test]
fn names_convert_to_rust_conventions() {
    assert_eq!(snake_case("ReplicaDirectoryId"), "replica_directory_id");
    assert_eq!(snake_case("KRaftVersionFeature"), "k_raft_version_feature");
    assert_eq!(snake_case("timeoutMs"), "timeout_ms");
    assert_eq!(snake_case("ApiVersionsRequest"), "api_versions_request");
}

#[test]
fn every_project_schema_parses() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../schemas");
    let specs = kraft_codegen::load_dir(&dir).expect("project schemas are valid");
    assert!(specs.len() >= 62, "found {}", specs.len());
}

#[test]
fn metadata_dispatch_lists_metadata_records_only() {
    let record = |name: &str, key: i16, versions: &str| {
        let text = format!(
            r#"{{ "apiKey": {key}, "type": "metadata", "name": "{name}", "validVersions": "{versions}",
                "flexibleVersions": "0+", "fields": [] }}"#
        );
        parse_schema(&format!("{name}.json"), &text).expect("valid schema")
    };
    let control = parse_schema(
        "SnapshotFooterRecord.json",
        r#"{ "type": "data", "name": "SnapshotFooterRecord", "validVersions": "0",
            "flexibleVersions": "0+", "fields": [] }"#,
    )
    .expect("valid schema");
    let specs = [
        record("TopicRecord", 2, "0"),
        control,
        record("RegisterBrokerRecord", 0, "0-4"),
    ];
    let out = kraft_codegen::emit::emit_metadata_records(&specs);
    // Variants in type id order, without the `Record` suffix.
    let broker = out
        .find("RegisterBroker = 0,")
        .expect("RegisterBroker variant");
    let topic = out.find("Topic = 2,").expect("Topic variant");
    assert!(broker < topic);
    assert!(out.contains("RegisterBroker(RegisterBrokerRecord),"));
    assert!(out
        .contains("MetadataRecordType::RegisterBroker => RegisterBrokerRecord::HIGHEST_VERSION,"));
    assert!(out.contains("\"REGISTER_BROKER_RECORD\""));
    assert!(
        !out.contains("SnapshotFooter"),
        "control records are not metadata records"
    );
    let files = kraft_codegen::generate(&specs);
    assert!(files.contains_key("metadata_record.rs"));
    assert!(files["mod.rs"].contains("pub mod metadata_record;"));
}
