//! Struct definitions, their `Default` values and the `Message` impls.

use std::fmt::Write as _;

use super::cond::Cond;
use super::layout::{FieldLayout, StructLayout};
use super::snake_case;
use super::writer::CodeWriter;
use crate::model::{Default, Field, FieldType, MessageKind, MessageSpec};

/// How generated code reaches a value.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Value<'a> {
    /// The field `self.<ident>`.
    Field(&'a str),
    /// A binding holding a reference to the value (`Some(v)`, a loop element).
    Ref(&'a str),
}

impl Value<'_> {
    /// The value itself, for `Copy` types: `self.x` or `*v`.
    pub(crate) fn copied(self) -> String {
        match self {
            Value::Field(id) => format!("self.{id}"),
            Value::Ref(v) => format!("*{v}"),
        }
    }

    /// A reference to the value: `&self.x` or `v`.
    pub(crate) fn borrowed(self) -> String {
        match self {
            Value::Field(id) => format!("&self.{id}"),
            Value::Ref(v) => v.to_string(),
        }
    }

    /// The value as a method receiver: `self.x` or `v`.
    pub(crate) fn receiver(self) -> String {
        match self {
            Value::Field(id) => format!("self.{id}"),
            Value::Ref(v) => v.to_string(),
        }
    }
}

/// Whether an array of `inner` is a `List` (arrays of structs) rather than a `Vec`.
pub(crate) fn is_list(inner: &FieldType) -> bool {
    matches!(inner, FieldType::Struct(_))
}

/// The Rust type of a non-null value of `ty`.
pub(crate) fn rust_type(ty: &FieldType) -> String {
    match ty {
        FieldType::Bool => "bool".into(),
        FieldType::Int8 => "i8".into(),
        FieldType::Int16 => "i16".into(),
        FieldType::Uint16 => "u16".into(),
        FieldType::Int32 => "i32".into(),
        FieldType::Uint32 => "u32".into(),
        FieldType::Int64 => "i64".into(),
        FieldType::Float64 => "f64".into(),
        FieldType::Uuid => "Uuid".into(),
        FieldType::String => "StrBytes".into(),
        FieldType::Bytes | FieldType::Records => "Bytes".into(),
        FieldType::Struct(n) => n.clone(),
        FieldType::Array(inner) if is_list(inner) => format!("List<{}>", rust_type(inner)),
        FieldType::Array(inner) => format!("Vec<{}>", rust_type(inner)),
    }
}

fn field_type(f: &Field) -> String {
    if f.is_nullable_anywhere() {
        format!("Option<{}>", rust_type(&f.ty))
    } else {
        rust_type(&f.ty)
    }
}

fn natural_default(ty: &FieldType) -> String {
    match ty {
        FieldType::Bool => "false".into(),
        FieldType::Float64 => "0.0".into(),
        FieldType::Uuid => "Uuid::nil()".into(),
        FieldType::String => "StrBytes::new()".into(),
        FieldType::Bytes | FieldType::Records => "Bytes::new()".into(),
        FieldType::Struct(n) => format!("{n}::default()"),
        FieldType::Array(inner) if is_list(inner) => "List::new()".into(),
        FieldType::Array(_) => "Vec::new()".into(),
        _ => "0".into(),
    }
}

fn uuid_literal(b: &[u8; 16]) -> String {
    let parts: Vec<String> = b.iter().map(|x| format!("{x:#04x}")).collect();
    format!("Uuid::from_bytes([{}])", parts.join(", "))
}

fn float_literal(s: &str) -> String {
    let v: f64 = s.parse().unwrap_or(0.0);
    format!("{v:?}")
}

/// The default value of a field, as an expression of its Rust type.
pub(crate) fn default_expr(f: &Field) -> String {
    let inner = match &f.default {
        Default::Null => return "None".into(),
        Default::Natural => natural_default(&f.ty),
        Default::Bool(b) => b.to_string(),
        Default::Int(v) => v.to_string(),
        Default::Float(s) => float_literal(s),
        Default::Str(s) => format!("StrBytes::from_static({s:?})"),
        Default::Uuid(b) => uuid_literal(b),
    };
    if f.is_nullable_anywhere() {
        format!("Some({inner})")
    } else {
        inner
    }
}

/// Whether the non-null value `v` equals the field's non-null default: the
/// test, and its negation.
fn equals_default(f: &Field, v: Value<'_>) -> (String, String) {
    let compare = |lhs: String, rhs: &str| (format!("{lhs} == {rhs}"), format!("{lhs} != {rhs}"));
    let call = |expr: String| (expr.clone(), format!("!{expr}"));
    let at = v.receiver();
    match (&f.ty, &f.default) {
        (FieldType::String, Default::Str(s)) => {
            compare(format!("{at}.as_str()"), &format!("{s:?}"))
        }
        (FieldType::String | FieldType::Bytes | FieldType::Records | FieldType::Array(_), _) => {
            call(format!("{at}.is_empty()"))
        }
        (FieldType::Uuid, Default::Uuid(b)) => compare(v.copied(), &uuid_literal(b)),
        (FieldType::Uuid, _) => call(format!("{at}.is_nil()")),
        (FieldType::Struct(n), _) => compare(v.copied(), &format!("{n}::default()")),
        (FieldType::Bool, Default::Bool(true)) => (v.copied(), format!("!{}", v.copied())),
        (FieldType::Bool, _) => (format!("!{}", v.copied()), v.copied()),
        (FieldType::Float64, Default::Float(s)) => compare(v.copied(), &float_literal(s)),
        (FieldType::Float64, _) => compare(v.copied(), "0.0"),
        (_, Default::Int(i)) => compare(v.copied(), &i.to_string()),
        _ => compare(v.copied(), "0"),
    }
}

/// Whether `self.<field>` holds the field's default value.
pub(crate) fn is_default(f: &FieldLayout<'_>) -> Cond {
    let id = format!("self.{}", f.ident);
    if !f.is_option() {
        let (test, negation) = equals_default(f.field, Value::Field(&f.ident));
        return Cond::test(test, negation);
    }
    if f.field.default == Default::Null {
        return Cond::test(format!("{id}.is_none()"), format!("{id}.is_some()"));
    }
    let (test, negation) = equals_default(f.field, Value::Ref("v"));
    Cond::test(
        format!("{id}.as_ref().is_some_and(|v| {test})"),
        format!("{id}.as_ref().is_none_or(|v| {negation})"),
    )
}

/// Writes the struct, its `Default` impl and its `MIN_WIRE_SIZE`.
pub(crate) fn emit_struct(w: &mut CodeWriter, l: &StructLayout<'_>) {
    let name = l.name();
    let about = l.def.about.trim();
    if about.is_empty() {
        w.doc(&format!("The `{name}` struct."));
    } else {
        w.doc(about);
    }
    w.line("#[derive(Debug, Clone, PartialEq)]");
    w.block(format!("pub struct {name} {{"), |w| {
        for f in &l.fields {
            w.doc(&field_doc(f.field));
            w.line(format!("pub {}: {},", f.ident, field_type(f.field)));
        }
        if l.has_tagged_section() {
            w.doc("Tagged fields not known to this version of the schema, kept verbatim and re-emitted on encode.");
            w.line("pub unknown_tagged_fields: RawTaggedFields,");
        }
    });
    w.blank();
    if !l.has_tagged_section() {
        // A struct never flexible (SaslHandshake) can have only fields whose
        // defaults are their types' own, which clippy's derivable_impls
        // flags; its defaults stay written out like every other struct's.
        w.line("#[allow(clippy::derivable_impls)]");
    }
    w.block(format!("impl Default for {name} {{"), |w| {
        w.block("fn default() -> Self {", |w| {
            w.block("Self {", |w| {
                for f in &l.fields {
                    w.line(format!("{}: {},", f.ident, default_expr(f.field)));
                }
                if l.has_tagged_section() {
                    w.line("unknown_tagged_fields: RawTaggedFields::new(),");
                }
            });
        });
    });
    w.blank();
    w.block(format!("impl {name} {{"), |w| {
        w.doc("The fewest bytes any encoding of this struct takes, at any version\n(bounds how many elements a claimed array length can hold).");
        w.line(format!(
            "pub const MIN_WIRE_SIZE: usize = {};",
            l.min_wire_size()
        ));
    });
    w.blank();
}

fn field_doc(f: &Field) -> String {
    let mut d = if f.about.trim().is_empty() {
        format!("The `{}` field.", f.name)
    } else {
        f.about.trim().to_string()
    };
    let _ = write!(d, "\n\nVersions: {}", f.versions);
    if !f.nullable_versions.is_empty() {
        let _ = write!(d, "; nullable: {}", f.nullable_versions);
    }
    if let Some((tag, tv)) = f.tag {
        let _ = write!(d, "; tag {tag} in {tv}");
    }
    if f.ignorable {
        d.push_str("; ignorable");
    }
    d.push('.');
    d
}

/// Writes `Message` for the top-level struct, and `Request` or `Record`
/// where the schema is one.
pub(crate) fn emit_message_impls(w: &mut CodeWriter, spec: &MessageSpec) {
    let top = &spec.top().name;
    let first_flexible = if spec.flexible_versions.is_empty() {
        "None".to_string()
    } else {
        format!("Some({})", spec.flexible_versions.lo)
    };
    w.block(format!("impl Message for {top} {{"), |w| {
        w.line(format!("const NAME: &'static str = {:?};", spec.name));
        w.line(format!(
            "const LOWEST_VERSION: i16 = {};",
            spec.valid_versions.lo
        ));
        w.line(format!(
            "const HIGHEST_VERSION: i16 = {};",
            spec.valid_versions.hi
        ));
        w.line(format!(
            "const FIRST_FLEXIBLE_VERSION: Option<i16> = {first_flexible};"
        ));
    });
    w.blank();
    match spec.kind {
        MessageKind::Request => {
            let base = spec.name.strip_suffix("Request").unwrap_or(&spec.name);
            let response = format!("{base}Response");
            w.block(format!("impl crate::Request for {top} {{"), |w| {
                w.line(format!(
                    "const API_KEY: crate::ApiKey = crate::ApiKey::{base};"
                ));
                w.line(format!(
                    "type Response = super::{}::{response};",
                    snake_case(&response)
                ));
            });
            w.blank();
        }
        MessageKind::Metadata => {
            w.block(format!("impl crate::Record for {top} {{"), |w| {
                w.line(format!(
                    "const RECORD_TYPE: i16 = {};",
                    spec.api_key.unwrap_or(-1)
                ));
            });
            w.blank();
        }
        _ => {}
    }
}
