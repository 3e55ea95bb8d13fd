//! `Encodable`: `encode` and `encoded_len`.

use super::cond::Cond;
use super::layout::{FieldLayout, Segment, StructLayout};
use super::types::{is_default, is_list, Value};
use super::writer::{Body, CodeWriter};
use crate::model::{FieldType, Versions};

/// Writes `impl Encodable` for the struct.
pub(crate) fn emit(w: &mut CodeWriter, l: &StructLayout<'_>) {
    let encode = encode_body(l);
    let len = encoded_len_body(l);
    w.block(format!("impl Encodable for {} {{", l.name()), |w| {
        w.block(
            format!(
                "fn encode<B: BufMut>(&self, {}: &mut B, {}: i16) -> Result<(), EncodeError> {{",
                encode.param("buf"),
                encode.param("version")
            ),
            |w| w.append(encode),
        );
        w.blank();
        w.block(
            format!(
                "fn encoded_len(&self, {}: i16) -> usize {{",
                len.param("version")
            ),
            |w| w.append(len),
        );
    });
    w.blank();
}

fn encode_body(l: &StructLayout<'_>) -> CodeWriter {
    let mut w = CodeWriter::default();
    l.declare_flexible(&mut w);
    for segment in &l.segments {
        match segment {
            Segment::FixedRun {
                fields,
                versions,
                width,
            } => encode_run(&mut w, l, &l.fields[fields.clone()], *versions, *width),
            Segment::Field(i) => encode_field(&mut w, l, &l.fields[*i]),
        }
    }
    if l.has_tagged_section() {
        encode_tagged_section(&mut w, l);
    }
    w.line("Ok(())");
    w
}

/// `return Err(NonDefaultField)` for a field that holds a value the version cannot carry.
fn non_default_error(f: &FieldLayout<'_>) -> Body<'static> {
    let field = f.json_name.clone();
    Box::new(move |w: &mut CodeWriter| {
        w.reads("version");
        w.line(format!(
            "return Err(EncodeError::NonDefaultField {{ field: {field:?}, version }});"
        ));
    })
}

/// Writes a run of fixed-width fields as one array of their total width.
fn encode_run(
    w: &mut CodeWriter,
    l: &StructLayout<'_>,
    run: &[FieldLayout<'_>],
    versions: Versions,
    width: usize,
) {
    let write: Body<'_> = Box::new(move |w: &mut CodeWriter| {
        w.reads("buf");
        w.line(format!("let mut b = [0u8; {width}];"));
        let mut at = 0;
        for f in run {
            let id = &f.ident;
            let end = at + f.ty().fixed_width().unwrap_or(0);
            match f.ty() {
                FieldType::Bool => w.line(format!("b[{at}] = u8::from(self.{id});")),
                FieldType::Uuid => w.line(format!(
                    "b[{at}..{end}].copy_from_slice(self.{id}.as_bytes());"
                )),
                _ => w.line(format!(
                    "b[{at}..{end}].copy_from_slice(&self.{id}.to_be_bytes());"
                )),
            }
            at = end;
        }
        w.line("buf.put_slice(&b);");
    });
    let mut arms = vec![(Cond::version_in(versions, l.versions), write)];
    let checked: Vec<&FieldLayout<'_>> = run.iter().filter(|f| !f.field.ignorable).collect();
    let mut otherwise: Option<Body<'_>> = None;
    match checked.as_slice() {
        [] => {}
        [f] => arms.push((is_default(f).not(), non_default_error(f))),
        several => {
            let several = several.to_vec();
            otherwise = Some(Box::new(move |w: &mut CodeWriter| {
                for f in several {
                    w.when(&is_default(f).not(), non_default_error(f));
                }
            }));
        }
    }
    w.if_chain(arms, otherwise);
}

/// Writes one field in place where the version has it; elsewhere it must
/// hold its default unless it is ignorable (or a tagged field).
fn encode_field(w: &mut CodeWriter, l: &StructLayout<'_>, f: &FieldLayout<'_>) {
    let write: Body<'_> = Box::new(move |w: &mut CodeWriter| {
        w.reads("buf");
        let compact = l.compact(f, f.regular);
        let compact = w.cond(&compact);
        let id = &f.ident;
        let name = &f.json_name;
        if matches!(f.ty(), FieldType::String) {
            if f.is_option() {
                w.line(format!(
                    "if let Some(v) = &self.{id} {{ wire::check_string(v, {name:?})?; }}"
                ));
            } else {
                w.line(format!("wire::check_string(&self.{id}, {name:?})?;"));
            }
        }
        write_field(w, f, &compact, f.regular, true);
    });
    let mut arms = vec![(Cond::version_in(f.regular, l.versions), write)];
    if f.tag.is_none() && !f.field.ignorable {
        arms.push((is_default(f).not(), non_default_error(f)));
    }
    w.if_chain(arms, None);
    if f.tag.is_some() && !f.field.ignorable {
        let absent = Cond::version_in(f.present, l.versions).not();
        w.when(&absent.and(is_default(f).not()), non_default_error(f));
    }
}

/// Writes `self.<field>` (compact per `compact`) in code reached at the
/// versions in `known`; `marker`: a nullable struct starts with its
/// presence byte.
fn write_field(
    w: &mut CodeWriter,
    f: &FieldLayout<'_>,
    compact: &str,
    known: Versions,
    marker: bool,
) {
    if !f.is_option() {
        write_value(w, f.ty(), Value::Field(&f.ident), compact);
        return;
    }
    let nullable = Cond::version_in(f.nullable, known);
    w.block(format!("match &self.{} {{", f.ident), |w| {
        w.block("Some(v) => {", |w| {
            if marker && matches!(f.ty(), FieldType::Struct(_)) {
                w.line("buf.put_i8(1);");
            }
            write_value(w, f.ty(), Value::Ref("v"), compact);
        });
        if nullable.constant() != Some(false) {
            let guard = match nullable.constant() {
                Some(true) => String::new(),
                _ => format!(" if {}", w.cond(&nullable)),
            };
            let null = match f.ty() {
                FieldType::String => format!("wire::put_nullable_string(buf, None, {compact})"),
                FieldType::Bytes | FieldType::Records => {
                    format!("wire::put_nullable_bytes(buf, None, {compact})")
                }
                FieldType::Array(_) => format!("wire::put_array_len(buf, None, {compact})"),
                _ => "buf.put_i8(-1)".into(),
            };
            w.line(format!("None{guard} => {null},"));
        }
        if nullable.constant() != Some(true) {
            w.reads("version");
            w.line(format!(
                "None => return Err(EncodeError::NullNotAllowed {{ field: {:?}, version }}),",
                f.json_name
            ));
        }
    });
}

/// Writes a non-null value of `ty`.
fn write_value(w: &mut CodeWriter, ty: &FieldType, v: Value<'_>, compact: &str) {
    match ty {
        FieldType::Bool => w.line(format!("wire::put_bool(buf, {});", v.copied())),
        FieldType::Int8 => w.line(format!("buf.put_i8({});", v.copied())),
        FieldType::Int16 => w.line(format!("buf.put_i16({});", v.copied())),
        FieldType::Uint16 => w.line(format!("buf.put_u16({});", v.copied())),
        FieldType::Int32 => w.line(format!("buf.put_i32({});", v.copied())),
        FieldType::Uint32 => w.line(format!("buf.put_u32({});", v.copied())),
        FieldType::Int64 => w.line(format!("buf.put_i64({});", v.copied())),
        FieldType::Float64 => w.line(format!("buf.put_f64({});", v.copied())),
        FieldType::Uuid => w.line(format!("wire::put_uuid(buf, {});", v.borrowed())),
        FieldType::String => w.line(format!(
            "wire::put_string(buf, {}, {compact});",
            v.borrowed()
        )),
        FieldType::Bytes | FieldType::Records => w.line(format!(
            "wire::put_bytes(buf, {}, {compact});",
            v.borrowed()
        )),
        FieldType::Struct(_) => {
            w.reads("version");
            w.line(format!("{}.encode(buf, version)?;", v.receiver()));
        }
        FieldType::Array(inner) => {
            w.line(format!(
                "wire::put_array_len(buf, Some({}.len()), {compact});",
                v.receiver()
            ));
            if is_list(inner) {
                w.reads("version");
                w.line(format!("{}.encode_elements(buf, version)?;", v.receiver()));
            } else {
                w.block(format!("for e in {} {{", v.borrowed()), |w| {
                    write_value(w, inner, Value::Ref("e"), compact);
                });
            }
        }
    }
}

/// Tagged fields written at some version: the field and when it is written
/// (tagged at this version and not at its default).
fn tagged_writes<'l, 'a>(l: &'l StructLayout<'a>) -> Vec<(&'l FieldLayout<'a>, Cond, Versions)> {
    l.tagged_fields()
        .into_iter()
        .filter_map(|f| {
            let (_, tagged) = f.tag?;
            let tagged = tagged.intersect(&l.flexible);
            let cond = Cond::version_in(tagged, l.flexible).and(is_default(f).not());
            (cond.constant() != Some(false)).then_some((f, cond, tagged))
        })
        .collect()
}

/// Writes the tagged-field section: known tagged fields that differ from
/// their default, merged in tag order with the unknown ones kept verbatim.
fn encode_tagged_section(w: &mut CodeWriter, l: &StructLayout<'_>) {
    let section: Body<'_> = Box::new(move |w: &mut CodeWriter| {
        w.reads("buf");
        let known: Vec<String> = l
            .tagged_fields()
            .iter()
            .filter_map(|f| f.tag.map(|(tag, _)| tag.to_string()))
            .collect();
        w.line(format!(
            "wire::check_raw_tags(&self.unknown_tagged_fields, &[{}])?;",
            known.join(", ")
        ));
        let writes = tagged_writes(l);
        if writes.is_empty() {
            w.line("wire::put_uvarint(buf, self.unknown_tagged_fields.count());");
        } else {
            w.line("let mut count = self.unknown_tagged_fields.count();");
            for (f, cond, _) in &writes {
                let flag = format!("write_{}", f.snake_name());
                let cond = w.cond(cond);
                w.line(format!("let {flag} = {cond};"));
                w.line(format!("count += u32::from({flag});"));
            }
            w.line("wire::put_uvarint(buf, count);");
        }
        w.line("let mut raw_offset = 0;");
        for (f, _, tagged) in &writes {
            let Some((tag, _)) = f.tag else { continue };
            w.block(format!("if write_{} {{", f.snake_name()), |w| {
                w.line(format!(
                    "wire::put_raw_tags(buf, &self.unknown_tagged_fields, {tag}, &mut raw_offset);"
                ));
                let len = sum(&[value_len(w, f, Value::Field(&f.ident), "true")]);
                w.line(format!("wire::put_tag_header(buf, {tag}, {len});"));
                write_field(w, f, "true", *tagged, false);
            });
        }
        w.line("wire::put_raw_tags(buf, &self.unknown_tagged_fields, u32::MAX, &mut raw_offset);");
        w.line("if raw_offset < self.unknown_tagged_fields.as_bytes().len() { return Err(EncodeError::InvalidRawTags(u32::MAX)); }");
    });
    let unsupported: Body<'_> = Box::new(|w: &mut CodeWriter| {
        w.reads("version");
        w.line("return Err(EncodeError::TaggedFieldsUnsupported { version });");
    });
    w.if_chain(
        vec![
            (l.flexible_cond(), section),
            (
                Cond::call("self.unknown_tagged_fields.is_empty()").not(),
                unsupported,
            ),
        ],
        None,
    );
}

/// One addend of an encoded length.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Len {
    /// A constant number of bytes.
    Bytes(usize),
    /// An expression of type `usize`.
    Expr(String),
    /// A `match` expression of type `usize` (never first in a sum, where it
    /// would end a statement).
    Match(String),
}

/// The sum of `terms`: constants folded into one, first; `match`es last.
fn sum(terms: &[Len]) -> String {
    let bytes: usize = terms
        .iter()
        .map(|t| match t {
            Len::Bytes(n) => *n,
            Len::Expr(_) | Len::Match(_) => 0,
        })
        .sum();
    let exprs = terms.iter().filter_map(|t| match t {
        Len::Expr(e) => Some(e.clone()),
        _ => None,
    });
    let matches = terms.iter().filter_map(|t| match t {
        Len::Match(e) => Some(e.clone()),
        _ => None,
    });
    let mut parts: Vec<String> = Vec::new();
    if bytes > 0 || terms.iter().all(|t| matches!(t, Len::Bytes(_))) {
        parts.push(bytes.to_string());
    }
    parts.extend(exprs);
    let leading_match = parts.is_empty();
    parts.extend(matches);
    if leading_match && parts.len() > 1 {
        parts[0] = format!("({})", parts[0]);
    }
    parts.join(" + ")
}

/// The encoded length of field `f`, held in `v`.
fn value_len(w: &mut CodeWriter, f: &FieldLayout<'_>, v: Value<'_>, compact: &str) -> Len {
    if !f.is_option() {
        return len_of(w, f.ty(), v, compact);
    }
    let some = match (len_of(w, f.ty(), Value::Ref("v"), compact), f.ty()) {
        (len, FieldType::Struct(_)) if f.tag.is_none() => sum(&[Len::Bytes(1), len]),
        (len, _) => sum(&[len]),
    };
    let none = match f.ty() {
        FieldType::String => format!("wire::nullable_string_len(None, {compact})"),
        FieldType::Bytes | FieldType::Records | FieldType::Array(_) => {
            format!("wire::array_len_len(None, {compact})")
        }
        _ => "1".into(),
    };
    Len::Match(format!(
        "match &{} {{ Some(v) => {some}, None => {none} }}",
        v.receiver()
    ))
}

/// The encoded length of a non-null value of `ty`.
fn len_of(w: &mut CodeWriter, ty: &FieldType, v: Value<'_>, compact: &str) -> Len {
    if let Some(width) = ty.fixed_width() {
        return Len::Bytes(width);
    }
    Len::Expr(match ty {
        FieldType::String => format!("wire::string_len({}, {compact})", v.borrowed()),
        FieldType::Bytes | FieldType::Records => {
            format!("wire::bytes_len({}, {compact})", v.borrowed())
        }
        FieldType::Struct(_) => {
            w.reads("version");
            format!("{}.encoded_len(version)", v.receiver())
        }
        FieldType::Array(inner) => {
            let at = v.receiver();
            let elements = if is_list(inner) {
                w.reads("version");
                format!("{at}.elements_len(version)")
            } else {
                match inner.fixed_width() {
                    Some(1) => format!("{at}.len()"),
                    Some(width) => format!("{at}.len() * {width}"),
                    None => {
                        let each = sum(&[len_of(w, inner, Value::Ref("e"), compact)]);
                        format!("{at}.iter().map(|e| {each}).sum::<usize>()")
                    }
                }
            };
            format!("wire::array_len_len(Some({at}.len()), {compact}) + {elements}")
        }
        _ => "0".into(),
    })
}

fn encoded_len_body(l: &StructLayout<'_>) -> CodeWriter {
    let mut w = CodeWriter::default();
    l.declare_flexible(&mut w);
    // Addends grouped by the condition under which they count.
    let mut groups: Vec<(Cond, Vec<Len>)> = Vec::new();
    for f in &l.fields {
        let cond = Cond::version_in(f.regular, l.versions);
        if cond.constant() == Some(false) {
            continue;
        }
        let compact = l.compact(f, f.regular);
        let compact = w.cond(&compact);
        let len = value_len(&mut w, f, Value::Field(&f.ident), &compact);
        match groups.iter_mut().find(|(c, _)| *c == cond) {
            Some((_, terms)) => terms.push(len),
            None => groups.push((cond, vec![len])),
        }
    }
    let base = groups
        .iter()
        .position(|(c, _)| c.constant() == Some(true))
        .map(|i| groups.remove(i).1)
        .unwrap_or_default();
    let tags = tagged_lens(&mut w, l);
    let raw_tags = [
        Len::Expr("wire::raw_tags_len(&self.unknown_tagged_fields)".into()),
        Len::Expr("wire::uvarint_len(self.unknown_tagged_fields.count())".into()),
    ];
    let tags_inline = tags.is_empty() && l.flexible_cond().constant() == Some(true);
    if groups.is_empty() && (!l.has_tagged_section() || tags_inline) {
        let mut all = base;
        if tags_inline {
            all.extend(raw_tags);
        }
        w.line(sum(&all));
        return w;
    }
    w.line(format!("let mut len = {};", sum(&base)));
    for (cond, terms) in &groups {
        w.when(cond, |w| w.line(format!("len += {};", sum(terms))));
    }
    if l.has_tagged_section() {
        w.when(&l.flexible_cond(), |w| {
            if tags.is_empty() {
                w.line(format!("len += {};", sum(&raw_tags)));
                return;
            }
            w.line("let mut count = self.unknown_tagged_fields.count();");
            w.line("len += wire::raw_tags_len(&self.unknown_tagged_fields);");
            for (cond, tag, len) in &tags {
                w.when(cond, |w| {
                    w.line("count += 1;");
                    w.line(format!("len += wire::tagged_field_len({tag}, {len});"));
                });
            }
            w.line("len += wire::uvarint_len(count);");
        });
    }
    w.line("len");
    w
}

/// Each tagged field that can be written: when, its tag and its value's length.
fn tagged_lens(w: &mut CodeWriter, l: &StructLayout<'_>) -> Vec<(Cond, u32, String)> {
    tagged_writes(l)
        .into_iter()
        .filter_map(|(f, cond, _)| {
            let (tag, _) = f.tag?;
            let len = sum(&[value_len(w, f, Value::Field(&f.ident), "true")]);
            Some((cond, tag, len))
        })
        .collect()
}
