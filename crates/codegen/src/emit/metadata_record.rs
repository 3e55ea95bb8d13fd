//! `metadata_record.rs`: the `MetadataRecordType` table and the
//! `MetadataRecordBody` dispatch over every metadata record schema
//! (`type: metadata`; control records are not metadata records).

use super::writer::CodeWriter;
use super::{snake_case, GENERATED_HEADER};
use crate::model::{MessageKind, MessageSpec};

/// One metadata record schema.
struct RecordSchema<'a> {
    /// The variant name: the message name without its `Record` suffix.
    variant: &'a str,
    /// The record type id (the schema's `apiKey`).
    id: i16,
    spec: &'a MessageSpec,
}

impl RecordSchema<'_> {
    fn name(&self) -> &str {
        &self.spec.name
    }
}

/// The metadata record schemas of a schema set, by record type id.
fn records(specs: &[MessageSpec]) -> Vec<RecordSchema<'_>> {
    let mut records: Vec<RecordSchema<'_>> = specs
        .iter()
        .filter(|s| s.kind == MessageKind::Metadata)
        .map(|s| RecordSchema {
            variant: s.name.strip_suffix("Record").unwrap_or(&s.name),
            id: s.api_key.unwrap_or(-1),
            spec: s,
        })
        .collect();
    records.sort_by_key(|r| r.id);
    records
}

/// Generates `metadata_record.rs`: the `MetadataRecordType` enum and the
/// `MetadataRecordBody` dispatch. The frame in front of a body is written
/// and read by hand-written code (`records::metadata`).
pub fn emit_metadata_records(specs: &[MessageSpec]) -> String {
    let records = records(specs);
    let mut w = CodeWriter::default();
    w.raw(GENERATED_HEADER);
    w.line("//! Metadata record types with the version ranges this implementation knows,");
    w.line("//! and a dispatch enum over their bodies.");
    w.blank();
    w.line("use bytes::{BufMut, Bytes};");
    w.blank();
    let mut modules: Vec<(String, &str)> = records
        .iter()
        .map(|r| (snake_case(r.name()), r.name()))
        .collect();
    modules.sort();
    for (module, name) in &modules {
        w.line(format!("use super::{module}::{name};"));
    }
    w.blank();
    w.line("#[cfg(feature = \"json\")]");
    w.line("use crate::json::ToKafkaJson;");
    w.line("#[cfg(feature = \"sample\")]");
    w.line("use crate::sample::{Rng, Sample};");
    w.line("use crate::{DecodeError, Encodable, EncodeError, Message};");
    w.blank();
    emit_type_enum(&mut w, &records);
    emit_type_impl(&mut w, &records);
    emit_body(&mut w, &records);
    w.finish()
}

fn emit_type_enum(w: &mut CodeWriter, records: &[RecordSchema<'_>]) {
    w.id_enum(
        "MetadataRecordType",
        "A metadata record type: the `apiKey` of a metadata record schema, written\nin the frame in front of every metadata record value.",
        "type",
        records.iter().map(|r| (r.variant, r.name(), r.id)),
    );
}

/// Writes `pub fn <signature>` as a `match` over every record type.
fn per_type(
    w: &mut CodeWriter,
    records: &[RecordSchema<'_>],
    doc: &str,
    signature: &str,
    value: impl Fn(&RecordSchema<'_>) -> String,
) {
    let arms = records.iter().map(|r| (r.variant.to_string(), value(r)));
    w.match_fn("MetadataRecordType", doc, signature, arms);
}

fn emit_type_impl(w: &mut CodeWriter, records: &[RecordSchema<'_>]) {
    w.block("impl MetadataRecordType {", |w| {
        w.doc("Every metadata record type, in type id order.");
        let all: Vec<String> = records
            .iter()
            .map(|r| format!("MetadataRecordType::{}", r.variant))
            .collect();
        w.line(format!(
            "pub const ALL: &'static [MetadataRecordType] = &[{}];",
            all.join(", ")
        ));
        w.blank();
        w.doc("The record type for a type id, if known.");
        w.block(
            "pub fn from_i16(id: i16) -> Option<MetadataRecordType> {",
            |w| {
                w.block("match id {", |w| {
                    for r in records {
                        w.line(format!(
                            "{} => Some(MetadataRecordType::{}),",
                            r.id, r.variant
                        ));
                    }
                    w.line("_ => None,");
                });
            },
        );
        w.blank();
        w.doc("The type id.");
        w.block("pub fn id(self) -> i16 {", |w| w.line("self as i16"));
        w.blank();
        per_type(
            w,
            records,
            "The schema name, e.g. `RegisterBrokerRecord`.",
            "name(self) -> &'static str",
            |r| format!("{}::NAME", r.name()),
        );
        per_type(
            w,
            records,
            "Kafka's name of the type, e.g. `REGISTER_BROKER_RECORD`.",
            "kafka_name(self) -> &'static str",
            |r| format!("{:?}", snake_case(r.name()).to_ascii_uppercase()),
        );
        per_type(
            w,
            records,
            "Lowest version of the record this implementation knows.",
            "lowest_version(self) -> i16",
            |r| format!("{}::LOWEST_VERSION", r.name()),
        );
        per_type(
            w,
            records,
            "Highest version of the record this implementation knows.",
            "highest_version(self) -> i16",
            |r| format!("{}::HIGHEST_VERSION", r.name()),
        );
        w.doc("Whether `version` is a known version of the record.");
        w.block(
            "pub fn is_valid_version(self, version: i16) -> bool {",
            |w| {
                w.line("self.lowest_version() <= version && version <= self.highest_version()");
            },
        );
    });
    w.blank();
}

fn emit_body(w: &mut CodeWriter, records: &[RecordSchema<'_>]) {
    w.doc("The body of any metadata record, tagged by record type.");
    w.line("#[derive(Debug, Clone, PartialEq)]");
    w.block("pub enum MetadataRecordBody {", |w| {
        for r in records {
            w.doc(&format!("`{}`.", r.name()));
            w.line(format!("{}({}),", r.variant, r.name()));
        }
    });
    w.blank();
    let each = |w: &mut CodeWriter, arm: &dyn Fn(&RecordSchema<'_>) -> String| {
        w.block("match self {", |w| {
            for r in records {
                w.line(arm(r));
            }
        });
    };
    w.block("impl MetadataRecordBody {", |w| {
        w.doc("The record type of this body.");
        w.block("pub fn record_type(&self) -> MetadataRecordType {", |w| {
            each(w, &|r| {
                format!(
                    "MetadataRecordBody::{0}(_) => MetadataRecordType::{0},",
                    r.variant
                )
            });
        });
        w.blank();
        w.doc("The default body of a record type.");
        w.block(
            "pub fn default_of(record_type: MetadataRecordType) -> Self {",
            |w| {
                w.block("match record_type {", |w| {
                    for r in records {
                        w.line(format!(
                            "MetadataRecordType::{0} => MetadataRecordBody::{0}({1}::default()),",
                            r.variant,
                            r.name()
                        ));
                    }
                });
            },
        );
        w.blank();
        w.doc("Decodes a body (no frame) of `record_type` at `version`, refusing a\nversion the type does not know; bytes after the body are left in `buf`.");
        w.block(
            "pub fn decode_body(record_type: MetadataRecordType, version: i16, buf: &mut Bytes) -> Result<Self, DecodeError> {",
            |w| {
                w.block("match record_type {", |w| {
                    for r in records {
                        w.line(format!(
                            "MetadataRecordType::{0} => decode_checked(buf, version).map(MetadataRecordBody::{0}),",
                            r.variant
                        ));
                    }
                });
            },
        );
        w.blank();
        w.doc("Encodes the body (no frame) at `version`.");
        w.block(
            "pub fn encode_body<B: BufMut>(&self, buf: &mut B, version: i16) -> Result<(), EncodeError> {",
            |w| {
                each(w, &|r| {
                    format!(
                        "MetadataRecordBody::{}(m) => encode_checked(m, buf, version),",
                        r.variant
                    )
                });
            },
        );
        w.blank();
        w.doc("Encoded size of the body (no frame) at `version`.");
        w.block("pub fn body_len(&self, version: i16) -> usize {", |w| {
            each(w, &|r| {
                format!(
                    "MetadataRecordBody::{}(m) => m.encoded_len(version),",
                    r.variant
                )
            });
        });
    });
    w.blank();
    w.line("#[cfg(feature = \"sample\")]");
    w.block("impl MetadataRecordBody {", |w| {
        w.doc("A random body of `record_type` at `version` (see [`Sample`]).");
        w.block(
            "pub fn sample_of(record_type: MetadataRecordType, rng: &mut Rng, version: i16) -> Self {",
            |w| {
                w.block("match record_type {", |w| {
                    for r in records {
                        w.line(format!(
                            "MetadataRecordType::{0} => MetadataRecordBody::{0}({1}::sample(rng, version)),",
                            r.variant,
                            r.name()
                        ));
                    }
                });
            },
        );
    });
    w.blank();
    w.line("#[cfg(feature = \"json\")]");
    w.block("impl ToKafkaJson for MetadataRecordBody {", |w| {
        w.block(
            "fn to_kafka_json(&self, version: i16, serialize_records: bool) -> serde_json::Value {",
            |w| {
                each(w, &|r| {
                    format!(
                        "MetadataRecordBody::{}(m) => m.to_kafka_json(version, serialize_records),",
                        r.variant
                    )
                });
            },
        );
    });
    w.blank();
    for r in records {
        w.block(
            format!("impl From<{}> for MetadataRecordBody {{", r.name()),
            |w| {
                w.block(format!("fn from(record: {}) -> Self {{", r.name()), |w| {
                    w.line(format!("MetadataRecordBody::{}(record)", r.variant));
                });
            },
        );
        w.blank();
    }
    w.doc("Decodes a record of type `M`, refusing a version `M` does not know.");
    w.block(
        "fn decode_checked<M: Message>(buf: &mut Bytes, version: i16) -> Result<M, DecodeError> {",
        |w| {
            w.block("if !M::is_valid_version(version) {", |w| {
                w.line(
                    "return Err(DecodeError::UnsupportedVersion { message: M::NAME, version });",
                );
            });
            w.line("M::decode(buf, version)");
        },
    );
    w.blank();
    w.doc("Encodes a record of type `M`, refusing a version `M` does not know.");
    w.block(
        "fn encode_checked<M: Message, B: BufMut>(m: &M, buf: &mut B, version: i16) -> Result<(), EncodeError> {",
        |w| {
            w.block("if !M::is_valid_version(version) {", |w| {
                w.line(
                    "return Err(EncodeError::UnsupportedVersion { message: M::NAME, version });",
                );
            });
            w.line("m.encode(buf, version)");
        },
    );
}
