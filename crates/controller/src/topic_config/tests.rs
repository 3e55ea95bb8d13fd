//! The topic-config facts checked against Kafka 4.4.0 itself:
//! `kafka-topic-configs.json` was written by Kafka's classes
//! (`tests/interop/topic-configs.sh`), and every table entry, validation
//! outcome and effective config computed here must match it.

use std::collections::BTreeMap;

use kraft_protocol::java_hash_map::JavaHashMap;
use kraft_protocol::ErrorCode;

use super::*;

const DUMP: &str = include_str!("kafka-topic-configs.json");

/// A JSON value of the dump (a minimal reader: the dump is ASCII, written
/// by our own Java driver).
#[derive(Debug, Clone, PartialEq)]
enum Json {
    Null,
    Bool(bool),
    Number(i64),
    Text(String),
    Array(Vec<Json>),
    Object(Vec<(String, Json)>),
}

impl Json {
    fn parse(text: &str) -> Json {
        let mut reader = Reader {
            bytes: text.as_bytes(),
            pos: 0,
        };
        let value = reader.value();
        reader.skip_space();
        assert_eq!(reader.pos, text.len(), "trailing data in the dump");
        value
    }

    fn get(&self, key: &str) -> &Json {
        match self {
            Json::Object(fields) => fields
                .iter()
                .find(|(k, _)| k == key)
                .map(|(_, v)| v)
                .unwrap_or_else(|| panic!("no {key} in {self:?}")),
            _ => panic!("{key} of a non-object"),
        }
    }

    fn array(&self) -> &[Json] {
        match self {
            Json::Array(items) => items,
            _ => panic!("not an array: {self:?}"),
        }
    }

    fn fields(&self) -> &[(String, Json)] {
        match self {
            Json::Object(fields) => fields,
            _ => panic!("not an object: {self:?}"),
        }
    }

    fn number(&self) -> i64 {
        match self {
            Json::Number(n) => *n,
            _ => panic!("not a number: {self:?}"),
        }
    }

    fn boolean(&self) -> bool {
        match self {
            Json::Bool(b) => *b,
            _ => panic!("not a boolean: {self:?}"),
        }
    }

    /// A string, a `{"repeat": C, "times": N}` run, or null.
    fn text(&self) -> Option<String> {
        match self {
            Json::Null => None,
            Json::Text(s) => Some(s.clone()),
            Json::Object(_) => {
                let c = self.get("repeat").text().unwrap();
                Some(c.repeat(self.get("times").number() as usize))
            }
            _ => panic!("not a string: {self:?}"),
        }
    }

    fn string(&self) -> String {
        self.text().unwrap()
    }

    /// An object of strings, in file order.
    fn string_map(&self) -> Vec<(String, String)> {
        self.fields()
            .iter()
            .map(|(k, v)| (k.clone(), v.string()))
            .collect()
    }

    /// An array of `[name, value-or-null]` pairs.
    fn pairs(&self) -> Vec<(String, Option<String>)> {
        self.array()
            .iter()
            .map(|p| (p.array()[0].string(), p.array()[1].text()))
            .collect()
    }
}

struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl Reader<'_> {
    fn skip_space(&mut self) {
        while self.pos < self.bytes.len() && self.bytes[self.pos].is_ascii_whitespace() {
            self.pos += 1;
        }
    }

    fn eat(&mut self, b: u8) {
        self.skip_space();
        assert_eq!(self.bytes[self.pos], b, "at {}", self.pos);
        self.pos += 1;
    }

    fn peek(&mut self) -> u8 {
        self.skip_space();
        self.bytes[self.pos]
    }

    fn literal(&mut self, word: &str) {
        assert!(self.bytes[self.pos..].starts_with(word.as_bytes()));
        self.pos += word.len();
    }

    fn value(&mut self) -> Json {
        match self.peek() {
            b'n' => {
                self.literal("null");
                Json::Null
            }
            b't' => {
                self.literal("true");
                Json::Bool(true)
            }
            b'f' => {
                self.literal("false");
                Json::Bool(false)
            }
            b'"' => Json::Text(self.string()),
            b'[' => {
                self.eat(b'[');
                let mut items = Vec::new();
                if self.peek() == b']' {
                    self.eat(b']');
                    return Json::Array(items);
                }
                loop {
                    items.push(self.value());
                    if self.peek() == b',' {
                        self.eat(b',');
                    } else {
                        self.eat(b']');
                        return Json::Array(items);
                    }
                }
            }
            b'{' => {
                self.eat(b'{');
                let mut fields = Vec::new();
                if self.peek() == b'}' {
                    self.eat(b'}');
                    return Json::Object(fields);
                }
                loop {
                    self.skip_space();
                    let key = self.string();
                    self.eat(b':');
                    fields.push((key, self.value()));
                    if self.peek() == b',' {
                        self.eat(b',');
                    } else {
                        self.eat(b'}');
                        return Json::Object(fields);
                    }
                }
            }
            _ => {
                let start = self.pos;
                while self.pos < self.bytes.len()
                    && (self.bytes[self.pos] == b'-' || self.bytes[self.pos].is_ascii_digit())
                {
                    self.pos += 1;
                }
                let text = std::str::from_utf8(&self.bytes[start..self.pos]).unwrap();
                Json::Number(text.parse().unwrap())
            }
        }
    }

    fn string(&mut self) -> String {
        self.eat(b'"');
        let mut units: Vec<u16> = Vec::new();
        loop {
            let b = self.bytes[self.pos];
            self.pos += 1;
            match b {
                b'"' => return String::from_utf16(&units).unwrap(),
                b'\\' => {
                    let e = self.bytes[self.pos];
                    self.pos += 1;
                    match e {
                        b'u' => {
                            let hex = std::str::from_utf8(&self.bytes[self.pos..self.pos + 4]);
                            units.push(u16::from_str_radix(hex.unwrap(), 16).unwrap());
                            self.pos += 4;
                        }
                        b'n' => units.push(u16::from(b'\n')),
                        b't' => units.push(u16::from(b'\t')),
                        other => units.push(u16::from(other)),
                    }
                }
                other => units.push(u16::from(other)),
            }
        }
    }
}

fn dump() -> Json {
    Json::parse(DUMP)
}

fn unit_name(unit: SynonymUnit) -> &'static str {
    match unit {
        SynonymUnit::Same => "same",
        SynonymUnit::Hours => "hours",
        SynonymUnit::Minutes => "minutes",
    }
}

#[test]
fn dump_is_from_kafka_4_4_0() {
    assert_eq!(dump().get("kafkaVersion").string(), "4.4.0");
}

#[test]
fn table_matches_kafka() {
    let dump = dump();
    let kafka = dump.get("configs").array();
    let names: Vec<String> = kafka.iter().map(|c| c.get("name").string()).collect();
    let ours: Vec<&str> = definitions().iter().map(|d| d.name).collect();
    assert_eq!(ours, names, "names, in Kafka's definition order");
    for (def, k) in definitions().iter().zip(kafka) {
        let name = def.name;
        assert_eq!(
            def.config_type.name(),
            k.get("type").string(),
            "{name}: type"
        );
        assert_eq!(
            def.default.map(str::to_owned),
            k.get("default").text(),
            "{name}: default"
        );
        assert_eq!(
            def.validator.describe(),
            k.get("validator").text(),
            "{name}: validator"
        );
        assert_eq!(
            def.internal,
            k.get("internal").boolean(),
            "{name}: internal"
        );
        assert_eq!(
            def.sensitive(),
            k.get("sensitive").boolean(),
            "{name}: sensitive"
        );
        let synonyms: Vec<(String, String)> = k
            .get("synonyms")
            .array()
            .iter()
            .map(|s| (s.get("name").string(), s.get("unit").string()))
            .collect();
        let ours: Vec<(String, String)> = def
            .synonyms
            .iter()
            .map(|(n, u)| ((*n).to_owned(), unit_name(*u).to_owned()))
            .collect();
        assert_eq!(ours, synonyms, "{name}: synonyms");
    }
}

#[test]
fn config_source_ids_match_kafka() {
    let dump = dump();
    let sources = dump.get("configSources");
    for (name, id) in [
        ("UNKNOWN", source::UNKNOWN),
        ("TOPIC_CONFIG", source::TOPIC_CONFIG),
        ("DYNAMIC_BROKER_CONFIG", source::DYNAMIC_BROKER_CONFIG),
        (
            "DYNAMIC_DEFAULT_BROKER_CONFIG",
            source::DYNAMIC_DEFAULT_BROKER_CONFIG,
        ),
        ("STATIC_BROKER_CONFIG", source::STATIC_BROKER_CONFIG),
        ("DEFAULT_CONFIG", source::DEFAULT_CONFIG),
    ] {
        assert_eq!(i64::from(id), sources.get(name).number(), "{name}");
    }
}

/// The changes of a dump case in the order Kafka's harness wrote their
/// records: the iteration order of a `java.util.HashMap` filled in case
/// order (as `computeConfigChanges` fills it for CreateTopics).
fn record_order(changes: &[(String, Option<String>)]) -> Vec<(String, Option<String>)> {
    let keys = JavaHashMap::from_keys(changes.iter().map(|(k, _)| k.clone()));
    keys.iter()
        .map(|k| {
            let value = changes
                .iter()
                .rev()
                .find(|(n, _)| n == k)
                .and_then(|(_, v)| v.clone());
            (k.clone(), value)
        })
        .collect()
}

#[test]
fn validation_matches_kafka() {
    let dump = dump();
    let cases = dump.get("changes").array();
    assert!(cases.len() > 80, "the dump holds the full case list");
    let mut failures = Vec::new();
    for case in cases {
        let id = case.get("id").string();
        let server: BTreeMap<String, String> =
            case.get("server").string_map().into_iter().collect();
        let existing: BTreeMap<String, String> =
            case.get("existing").string_map().into_iter().collect();
        let changes = record_order(&case.get("changes").pairs());
        let got = validate_topic_configs(&case.get("topic").string(), &existing, &changes, |k| {
            server.get(k)
        });
        let want_code = case.get("errorCode").number();
        let want_message = case.get("message").text();
        let (got_code, got_message) = match &got {
            Ok(()) => (0, None),
            Err(e) => (i64::from(e.code.code()), Some(e.message.clone())),
        };
        if (got_code, &got_message) != (want_code, &want_message) {
            failures.push(format!(
                "{id}: kafka {want_code} {want_message:?}, ours {got_code} {got_message:?}"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn creation_nulls_match_kafka() {
    let dump = dump();
    for case in dump.get("creationNulls").array() {
        let configs = case.get("configs").pairs();
        let got = check_creation_nulls(&configs);
        match case.get("message").text() {
            None => assert_eq!(got, Ok(()), "{configs:?}"),
            Some(message) => {
                assert_eq!(
                    got,
                    Err(ConfigError {
                        code: ErrorCode::from_code(case.get("errorCode").number() as i16),
                        message
                    })
                )
            }
        }
    }
}

#[test]
fn effective_configs_match_kafka() {
    let dump = dump();
    for case in dump.get("effective").array() {
        let id = case.get("id").string();
        let creation: Vec<(String, String)> = case
            .get("creation")
            .pairs()
            .into_iter()
            .map(|(k, v)| (k, v.unwrap()))
            .collect();
        let map = |key: &str| -> BTreeMap<String, String> {
            case.get(key).string_map().into_iter().collect()
        };
        let (node, cluster, statics) = (map("node"), map("cluster"), map("static"));
        let got = effective_topic_configs_layered(
            &creation,
            |k| node.get(k),
            |k| cluster.get(k),
            |k| statics.get(k),
        );
        let want: Vec<EffectiveConfig> = case
            .get("entries")
            .array()
            .iter()
            .map(|e| EffectiveConfig {
                name: e.get("name").string(),
                value: e.get("value").text(),
                read_only: e.get("readOnly").boolean(),
                source: e.get("source").number() as i8,
                sensitive: e.get("sensitive").boolean(),
            })
            .collect();
        let got_names: Vec<&str> = got.iter().map(|e| e.name.as_str()).collect();
        let want_names: Vec<&str> = want.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(got_names, want_names, "{id}: names");
        for (g, w) in got.iter().zip(&want) {
            assert_eq!(g, w, "{id}");
        }
        if node.is_empty() {
            let without_node =
                effective_topic_configs(&creation, |k| cluster.get(k), |k| statics.get(k));
            assert_eq!(without_node, want, "{id} (no node layer)");
        }
    }
}

fn set(pairs: &[(&str, &str)]) -> Vec<(String, Option<String>)> {
    pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), Some((*v).to_owned())))
        .collect()
}

fn no_server(_: &str) -> Option<&'static str> {
    None
}

#[test]
fn min_insync_replicas_must_be_at_least_one() {
    let def = definition("min.insync.replicas").unwrap();
    assert_eq!(def.validator, Validator::AtLeast(1));
    assert_eq!(def.default, Some("1"));
    assert_eq!(def.synonyms, &[("min.insync.replicas", SynonymUnit::Same)]);
    let err = validate_topic_configs(
        "t",
        &BTreeMap::new(),
        &set(&[("min.insync.replicas", "0")]),
        no_server,
    )
    .unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidConfig);
    assert_eq!(
        err.to_string(),
        "Invalid value 0 for configuration min.insync.replicas: Value must be at least 1"
    );
    assert!(validate_new_topic(&[("min.insync.replicas".into(), "2".into())], no_server).is_ok());
}

#[test]
fn new_topic_validation_reports_kafka_texts() {
    let err = validate_new_topic(&[("retention.ms".into(), "soon".into())], no_server).unwrap_err();
    assert_eq!(
        err.message,
        "Invalid value soon for configuration retention.ms: Not a number of type LONG"
    );
    let err = validate_new_topic(&[("retention.mins".into(), "5".into())], no_server).unwrap_err();
    assert_eq!(err.message, "Unknown topic config name: retention.mins");
    let err = validate_new_topic(
        &[
            ("min.compaction.lag.ms".into(), "9".into()),
            ("max.compaction.lag.ms".into(), "8".into()),
        ],
        no_server,
    )
    .unwrap_err();
    assert_eq!(
        err.message,
        "conflict topic config setting min.compaction.lag.ms (9) > max.compaction.lag.ms (8)"
    );
    assert!(validate_new_topic(&[], no_server).is_ok());
}

#[test]
fn server_configs_stand_in_for_unset_topic_configs() {
    // log.retention.minutes beats log.retention.hours; the topic's local
    // retention is checked against the result.
    let server = BTreeMap::from([
        ("remote.log.storage.system.enable", "true"),
        ("log.retention.minutes", "1"),
        ("log.retention.hours", "5"),
    ]);
    let changes = set(&[
        ("remote.storage.enable", "true"),
        ("local.retention.ms", "60001"),
    ]);
    let err = validate_topic_configs("t", &BTreeMap::new(), &changes, |k| server.get(k).copied())
        .unwrap_err();
    assert_eq!(
        err.message,
        "Invalid value 60001 for configuration local.retention.ms: Value must not be more than retention.ms property value: 60000"
    );
    // A negative broker retention means unlimited (-1), which disables the check.
    let server = BTreeMap::from([
        ("remote.log.storage.system.enable", "true"),
        ("log.retention.ms", "-7"),
    ]);
    assert!(
        validate_topic_configs("t", &BTreeMap::new(), &changes, |k| server.get(k).copied()).is_ok()
    );
}

#[test]
fn list_configs_and_defaults() {
    let lists: Vec<&str> = definitions()
        .iter()
        .filter(|d| d.is_list())
        .map(|d| d.name)
        .collect();
    assert_eq!(
        lists,
        [
            "cleanup.policy",
            "leader.replication.throttled.replicas",
            "follower.replication.throttled.replicas"
        ]
    );
    assert_eq!(
        definition("cleanup.policy").unwrap().default,
        Some("delete")
    );
    assert_eq!(
        definition("compression.type").unwrap().default,
        Some("producer")
    );
    assert_eq!(
        definition("retention.ms").unwrap().default,
        Some("604800000")
    );
    assert!(definition("retention.minutes").is_none());
    assert!(definitions()
        .iter()
        .all(|d| !d.read_only() && !d.sensitive()));
}

#[test]
fn effective_configs_cover_every_public_config_sorted() {
    let configs = effective_topic_configs(&[], no_server, no_server);
    let names: Vec<&str> = configs.iter().map(|c| c.name.as_str()).collect();
    let mut sorted = names.clone();
    sorted.sort_unstable();
    assert_eq!(names, sorted);
    assert_eq!(
        names.len(),
        definitions().len() - 1,
        "all but the internal config"
    );
    assert!(!names.contains(&"internal.segment.bytes"));
    assert!(configs
        .iter()
        .all(|c| c.source == source::DEFAULT_CONFIG && c.value.is_some()));
    let hours = BTreeMap::from([("log.roll.hours", "2")]);
    let configs = effective_topic_configs(&[], |k| hours.get(k).copied(), no_server);
    let segment_ms = configs.iter().find(|c| c.name == "segment.ms").unwrap();
    assert_eq!(segment_ms.value.as_deref(), Some("7200000"));
    assert_eq!(segment_ms.source, source::DYNAMIC_DEFAULT_BROKER_CONFIG);
}

#[test]
fn config_type_names_and_sensitivity() {
    let all = [
        (ConfigType::Boolean, "BOOLEAN"),
        (ConfigType::String, "STRING"),
        (ConfigType::Int, "INT"),
        (ConfigType::Short, "SHORT"),
        (ConfigType::Long, "LONG"),
        (ConfigType::Double, "DOUBLE"),
        (ConfigType::List, "LIST"),
        (ConfigType::Class, "CLASS"),
        (ConfigType::Password, "PASSWORD"),
    ];
    for (t, name) in all {
        assert_eq!(t.name(), name);
        assert_eq!(t.is_sensitive(), t == ConfigType::Password);
    }
}

#[test]
fn creation_nulls_are_named_in_request_order() {
    let configs = vec![
        ("b".to_owned(), None),
        ("retention.ms".to_owned(), Some("1".to_owned())),
        ("a".to_owned(), None),
    ];
    assert_eq!(
        check_creation_nulls(&configs).unwrap_err().message,
        "Null value not supported for topic configs: b,a"
    );
}
