//! `Sample`: random values for property tests. Every field that exists at
//! the version gets a random value (null only where the version allows it,
//! a tagged field sometimes its default); fields absent from the version
//! keep their default.

use super::cond::Cond;
use super::layout::{FieldLayout, StructLayout};
use super::types::default_expr;
use super::writer::CodeWriter;
use crate::model::FieldType;

/// Writes `impl Sample` for the struct.
pub(crate) fn emit(w: &mut CodeWriter, l: &StructLayout<'_>) {
    let body = body(l);
    w.line("#[cfg(feature = \"sample\")]");
    w.block(format!("impl Sample for {} {{", l.name()), |w| {
        w.block(
            format!(
                "fn sample({}: &mut Rng, {}: i16) -> Self {{",
                body.param("rng"),
                body.param("version")
            ),
            |w| w.append(body),
        );
    });
    w.blank();
}

fn body(l: &StructLayout<'_>) -> CodeWriter {
    let mut w = CodeWriter::default();
    if l.fields.is_empty() && !l.has_tagged_section() {
        w.line("Self::default()");
        return w;
    }
    // Fields are sampled in wire order: a seed always yields the same value.
    w.block("Self {", |w| {
        for f in &l.fields {
            let value = field_value(w, l, f);
            w.line(format!("{}: {value},", f.ident));
        }
        if l.has_tagged_section() {
            let flexible = Cond::version_in(l.flexible, l.versions);
            let cond = w.cond(&flexible.and(Cond::call("rng.one_in(4)")));
            w.reads("rng");
            w.line(format!(
                "unknown_tagged_fields: if {cond} {{ rng.raw_tags() }} else {{ RawTaggedFields::new() }},"
            ));
        }
    });
    w
}

/// The value of field `f`: random where the version has it.
fn field_value(w: &mut CodeWriter, l: &StructLayout<'_>, f: &FieldLayout<'_>) -> String {
    let present = Cond::version_in(f.present, l.versions);
    let keep_default = if f.tag.is_some() {
        Cond::call("rng.one_in(3)")
    } else {
        Cond::Const(false)
    };
    let sampled = present.and(keep_default.not());
    if sampled.constant() == Some(false) {
        return default_expr(f.field);
    }
    let mut value = random_value(w, f.ty());
    if f.is_option() {
        let null = Cond::version_in(f.nullable, f.present).and(Cond::call("rng.one_in(4)"));
        if null.constant() != Some(false) {
            let null = w.cond(&null);
            value = format!("if {null} {{ None }} else {{ Some({value}) }}");
        } else {
            value = format!("Some({value})");
        }
    }
    match sampled.constant() {
        Some(true) => value,
        _ => {
            let test = w.cond(&sampled);
            format!(
                "if {test} {{ {value} }} else {{ {} }}",
                default_expr(f.field)
            )
        }
    }
}

/// A random non-null value of `ty`.
fn random_value(w: &mut CodeWriter, ty: &FieldType) -> String {
    w.reads("rng");
    match ty {
        FieldType::Bool => "rng.bool()".into(),
        FieldType::Int8 => "rng.next_u64() as i8".into(),
        FieldType::Int16 => "rng.int() as i16".into(),
        FieldType::Uint16 => "rng.int() as u16".into(),
        FieldType::Int32 => "rng.int() as i32".into(),
        FieldType::Uint32 => "rng.int() as u32".into(),
        FieldType::Int64 => "rng.int()".into(),
        FieldType::Float64 => "rng.float()".into(),
        FieldType::Uuid => "rng.uuid()".into(),
        FieldType::String => "rng.string()".into(),
        FieldType::Bytes | FieldType::Records => "rng.bytes()".into(),
        FieldType::Struct(n) => {
            w.reads("version");
            format!("{n}::sample(rng, version)")
        }
        FieldType::Array(inner) => format!(
            "(0..rng.below(4)).map(|_| {}).collect()",
            random_value(w, inner)
        ),
    }
}
