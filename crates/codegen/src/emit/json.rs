//! `ToKafkaJson`: the JSON Kafka's generated `JsonConverter`s produce.

use super::cond::Cond;
use super::layout::{FieldLayout, StructLayout};
use super::types::{is_default, Value};
use super::writer::CodeWriter;
use crate::model::FieldType;

/// Writes `impl ToKafkaJson` for the struct.
pub(crate) fn emit(w: &mut CodeWriter, l: &StructLayout<'_>) {
    let body = body(l);
    w.line("#[cfg(feature = \"json\")]");
    w.block(format!("impl ToKafkaJson for {} {{", l.name()), |w| {
        w.block(
            format!(
                "fn to_kafka_json(&self, {}: i16, {}: bool) -> serde_json::Value {{",
                body.param("version"),
                body.param("serialize_records")
            ),
            |w| w.append(body),
        );
    });
    w.blank();
}

fn body(l: &StructLayout<'_>) -> CodeWriter {
    let mut w = CodeWriter::default();
    let fields: Vec<(&FieldLayout<'_>, Cond)> = l
        .fields
        .iter()
        .filter_map(|f| {
            let present = Cond::version_in(f.present, l.versions);
            // A tagged field at its default is left out, as it is on the wire.
            let shown = match f.tag {
                Some((_, tagged)) => Cond::version_in(tagged, f.present)
                    .not()
                    .or(is_default(f).not()),
                None => Cond::Const(true),
            };
            let cond = present.and(shown);
            (cond.constant() != Some(false)).then_some((f, cond))
        })
        .collect();
    if fields.is_empty() {
        w.line("serde_json::Value::Object(serde_json::Map::new())");
        return w;
    }
    w.line("let mut node = serde_json::Map::new();");
    for (f, cond) in fields {
        w.when(&cond, |w| insert_field(w, f));
    }
    w.line("serde_json::Value::Object(node)");
    w
}

/// Inserts field `f` into `node`.
fn insert_field(w: &mut CodeWriter, f: &FieldLayout<'_>) {
    let id = &f.ident;
    let key = &f.json_name;
    if matches!(f.ty(), FieldType::Records) {
        // Records are rendered as their size unless asked for.
        w.reads("serialize_records");
        let size_key = format!("{key}SizeInBytes");
        let insert = |w: &mut CodeWriter, v: &str| {
            let whole =
                format!("node.insert({key:?}.into(), serde_json::Value::String(String::new()));");
            let size =
                format!("node.insert({size_key:?}.into(), serde_json::Value::from({v}.len()));");
            w.if_chain(
                vec![(
                    Cond::call("serialize_records"),
                    Box::new(move |w: &mut CodeWriter| w.line(whole)),
                )],
                Some(Box::new(move |w: &mut CodeWriter| w.line(size))),
            );
        };
        if f.is_option() {
            w.block(format!("match &self.{id} {{"), |w| {
                w.block("Some(v) => {", |w| insert(w, "v"));
                w.block("None => {", |w| {
                    w.line(format!(
                        "node.insert({key:?}.into(), serde_json::Value::Null);"
                    ));
                });
            });
        } else {
            insert(w, &format!("self.{id}"));
        }
        return;
    }
    let value = if f.is_option() {
        let some = json_value(w, f.ty(), Value::Ref("v"));
        format!("match &self.{id} {{ Some(v) => {some}, None => serde_json::Value::Null }}")
    } else {
        json_value(w, f.ty(), Value::Field(id))
    };
    w.line(format!("node.insert({key:?}.into(), {value});"));
}

/// The JSON of a non-null value of `ty`.
fn json_value(w: &mut CodeWriter, ty: &FieldType, v: Value<'_>) -> String {
    match ty {
        FieldType::Bool => format!("serde_json::Value::Bool({})", v.copied()),
        FieldType::Int8
        | FieldType::Int16
        | FieldType::Uint16
        | FieldType::Int32
        | FieldType::Uint32
        | FieldType::Int64
        | FieldType::Float64 => format!("serde_json::Value::from({})", v.copied()),
        FieldType::Uuid => format!(
            "serde_json::Value::String(crate::json::uuid_text({}))",
            v.borrowed()
        ),
        FieldType::String => format!("serde_json::Value::String({}.to_string())", v.receiver()),
        FieldType::Bytes => format!(
            "serde_json::Value::String(crate::json::base64({}))",
            v.borrowed()
        ),
        FieldType::Records => "serde_json::Value::String(String::new())".into(),
        FieldType::Struct(_) => {
            w.reads("version");
            w.reads("serialize_records");
            format!("{}.to_kafka_json(version, serialize_records)", v.receiver())
        }
        FieldType::Array(inner) => {
            let element = json_value(w, inner, Value::Ref("e"));
            format!(
                "serde_json::Value::Array({}.iter().map(|e| {element}).collect())",
                v.receiver()
            )
        }
    }
}
