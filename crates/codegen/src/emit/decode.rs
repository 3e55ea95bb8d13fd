//! `Decodable`: decoding in place (`read_into`) and walking checked bytes
//! (`skip_checked`).

use super::cond::Cond;
use super::layout::{FieldLayout, Segment, StructLayout};
use super::types::{is_list, rust_type};
use super::writer::CodeWriter;
use crate::model::{FieldType, Versions};

/// Writes `impl Decodable` for the struct and its `read_into`.
pub(crate) fn emit(w: &mut CodeWriter, l: &StructLayout<'_>) {
    let skip = skip_body(l);
    let read = read_body(l);
    let name = l.name();
    // A nested struct is decoded where its parent keeps it: inlined there,
    // the value is built in place.
    let nested = !l.is_top();
    w.block(format!("impl Decodable for {name} {{"), |w| {
        w.line("#[inline]");
        w.block(
            "fn decode(buf: &mut Bytes, version: i16) -> Result<Self, DecodeError> {",
            |w| {
                w.line("let mut this = Self::default();");
                w.line("this.read_into(buf, version, false)?;");
                w.line("Ok(this)");
            },
        );
        w.blank();
        if nested {
            w.line("#[inline]");
        }
        w.block(
            "fn decode_into(&mut self, buf: &mut Bytes, version: i16) -> Result<(), DecodeError> {",
            |w| {
                w.line("*self = Self::default();");
                w.line("self.read_into(buf, version, false)");
            },
        );
        w.blank();
        if nested {
            w.line("#[inline]");
        }
        w.block(
            "fn read_default_into(&mut self, buf: &mut Bytes, version: i16, checked: bool) -> Result<(), DecodeError> {",
            |w| w.line("self.read_into(buf, version, checked)"),
        );
        w.blank();
        w.block(
            format!(
                "fn skip_checked({}: &mut Bytes, {}: i16) -> Result<(), DecodeError> {{",
                skip.param("buf"),
                skip.param("version")
            ),
            |w| w.append(skip),
        );
    });
    w.blank();
    w.line(format!("impl crate::list::sealed::Sealed for {name} {{}}"));
    w.blank();
    w.block(format!("impl {name} {{"), |w| {
        w.doc(
            "Reads every field into `self`, which holds the default value (fields\n\
             absent from `version` are left as they are); `checked`: the bytes were\n\
             checked before, so arrays kept encoded are walked, not checked again.",
        );
        w.line("#[inline(always)]");
        w.block(
            format!(
                "fn read_into(&mut self, {}: &mut Bytes, {}: i16, {}: bool) -> Result<(), DecodeError> {{",
                read.param("buf"),
                read.param("version"),
                read.param("checked")
            ),
            |w| w.append(read),
        );
    });
    w.blank();
}

/// The fewest bytes an element of an array of `inner` takes.
fn min_len(inner: &FieldType) -> String {
    match inner {
        FieldType::Struct(n) => format!("{n}::MIN_WIRE_SIZE"),
        other => other.fixed_width().unwrap_or(1).to_string(),
    }
}

fn skip_body(l: &StructLayout<'_>) -> CodeWriter {
    let mut w = CodeWriter::default();
    l.declare_flexible(&mut w);
    for segment in &l.segments {
        match segment {
            // One skip per field: a truncated value fails where a field does.
            Segment::FixedRun {
                fields, versions, ..
            } => w.when(&Cond::version_in(*versions, l.versions), |w| {
                for f in &l.fields[fields.clone()] {
                    skip_value(w, f.ty(), "false", &Cond::Const(false));
                }
            }),
            Segment::Field(i) => {
                let f = &l.fields[*i];
                w.when(&Cond::version_in(f.regular, l.versions), |w| {
                    let compact = l.compact(f, f.regular);
                    let compact = w.cond(&compact);
                    let nullable = if f.is_option() {
                        Cond::version_in(f.nullable, f.regular)
                    } else {
                        Cond::Const(false)
                    };
                    skip_value(w, f.ty(), &compact, &nullable);
                });
            }
        }
    }
    if l.has_tagged_section() {
        w.when(&l.flexible_cond(), |w| {
            w.reads("buf");
            w.block("for _ in 0..wire::get_tag_count(buf)? {", |w| {
                w.line("let (_, hdr, size) = wire::peek_tag_header(buf)?;");
                w.line("wire::skip(buf, hdr + size)?;");
            });
        });
    }
    w.line("Ok(())");
    w
}

/// Advances past one checked value of `ty`; `nullable`: when a struct
/// starts with a null marker.
fn skip_value(w: &mut CodeWriter, ty: &FieldType, compact: &str, nullable: &Cond) {
    w.reads("buf");
    if let Some(width) = ty.fixed_width() {
        w.line(format!("wire::skip(buf, {width})?;"));
        return;
    }
    match ty {
        FieldType::String => w.line(format!("wire::skip_string(buf, {compact})?;")),
        FieldType::Bytes | FieldType::Records => {
            w.line(format!("wire::skip_bytes(buf, {compact})?;"))
        }
        FieldType::Struct(n) => {
            let present = nullable.clone().not().or(Cond::test(
                "wire::get_i8(buf)? >= 0",
                "wire::get_i8(buf)? < 0",
            ));
            w.when(&present, |w| {
                w.reads("version");
                w.line(format!("{n}::skip_checked(buf, version)?;"));
            });
        }
        FieldType::Array(inner) => w.block(
            format!("for _ in 0..wire::get_array_len(buf, {compact})?.unwrap_or(0) {{"),
            |w| skip_value(w, inner, compact, &Cond::Const(false)),
        ),
        _ => {}
    }
}

fn read_body(l: &StructLayout<'_>) -> CodeWriter {
    let mut w = CodeWriter::default();
    l.declare_flexible(&mut w);
    for segment in &l.segments {
        match segment {
            Segment::FixedRun {
                fields,
                versions,
                width,
            } => w.when(&Cond::version_in(*versions, l.versions), |w| {
                read_run(w, &l.fields[fields.clone()], *width);
            }),
            Segment::Field(i) => {
                let f = &l.fields[*i];
                w.when(&Cond::version_in(f.regular, l.versions), |w| {
                    let compact = l.compact(f, f.regular);
                    let compact = w.cond(&compact);
                    read_field(w, f, &compact, f.regular);
                });
            }
        }
    }
    if l.has_tagged_section() {
        w.when(&l.flexible_cond(), |w| read_tagged_section(w, l));
    }
    w.line("Ok(())");
    w
}

/// Reads a run of fixed-width fields from one array of their total width.
fn read_run(w: &mut CodeWriter, run: &[FieldLayout<'_>], width: usize) {
    w.reads("buf");
    w.line(format!("let b = wire::get_fixed::<{width}>(buf)?;"));
    let mut at = 0;
    for f in run {
        let end = at + f.ty().fixed_width().unwrap_or(0);
        let bytes: Vec<String> = (at..end).map(|i| format!("b[{i}]")).collect();
        let bytes = bytes.join(", ");
        let value = match f.ty() {
            FieldType::Bool => format!("b[{at}] != 0"),
            FieldType::Uuid => format!("Uuid::from_bytes([{bytes}])"),
            t => format!("{}::from_be_bytes([{bytes}])", rust_type(t)),
        };
        w.line(format!("self.{} = {value};", f.ident));
        at = end;
    }
}

/// Reads field `f` into `self` in place, in code reached at the versions
/// in `known`: nested structs and arrays of structs are decoded where they
/// live, anything else is assigned.
fn read_field(w: &mut CodeWriter, f: &FieldLayout<'_>, compact: &str, known: Versions) {
    w.reads("buf");
    let id = &f.ident;
    match f.ty() {
        FieldType::Array(inner) if is_list(inner) && f.is_option() => {
            w.reads("version");
            w.reads("checked");
            let nullable = Cond::version_in(f.nullable, known);
            let min = min_len(inner);
            w.block(format!("match wire::get_array_len(buf, {compact})? {{"), |w| {
                w.line(format!(
                    "Some(len) => self.{id}.get_or_insert_with(List::new).decode_elements_into(buf, len, {min}, version, checked)?,"
                ));
                match nullable.constant() {
                    Some(true) => w.line(format!("None => self.{id} = None,")),
                    Some(false) => w.line("None => return Err(DecodeError::UnexpectedNull),"),
                    None => {
                        let guard = w.cond(&nullable);
                        w.line(format!("None if {guard} => self.{id} = None,"));
                        w.line("None => return Err(DecodeError::UnexpectedNull),");
                    }
                }
            });
        }
        FieldType::Struct(_) if !f.is_option() => {
            w.reads("version");
            w.reads("checked");
            w.line(format!("self.{id}.read_into(buf, version, checked)?;"));
        }
        FieldType::Array(inner) if is_list(inner) => {
            w.reads("version");
            w.reads("checked");
            w.line(format!(
                "let len = wire::get_array_len(buf, {compact})?.ok_or(DecodeError::UnexpectedNull)?;"
            ));
            w.line(format!(
                "self.{id}.decode_elements_into(buf, len, {}, version, checked)?;",
                min_len(inner)
            ));
        }
        ty if f.is_option() => {
            let nullable = Cond::version_in(f.nullable, known);
            let value = match nullable.constant() {
                Some(true) => read_nullable(w, ty, compact),
                Some(false) => format!("Some({})", read_value(w, ty, compact)),
                None => {
                    let test = w.cond(&nullable);
                    let null = read_nullable(w, ty, compact);
                    let value = read_value(w, ty, compact);
                    format!("if {test} {{ {null} }} else {{ Some({value}) }}")
                }
            };
            w.line(format!("self.{id} = {value};"));
        }
        ty => {
            let value = read_value(w, ty, compact);
            w.line(format!("self.{id} = {value};"));
        }
    }
}

/// An expression reading a non-null value of `ty`.
fn read_value(w: &mut CodeWriter, ty: &FieldType, compact: &str) -> String {
    match ty {
        FieldType::Bool => "wire::get_bool(buf)?".into(),
        FieldType::Int8 => "wire::get_i8(buf)?".into(),
        FieldType::Int16 => "wire::get_i16(buf)?".into(),
        FieldType::Uint16 => "wire::get_u16(buf)?".into(),
        FieldType::Int32 => "wire::get_i32(buf)?".into(),
        FieldType::Uint32 => "wire::get_u32(buf)?".into(),
        FieldType::Int64 => "wire::get_i64(buf)?".into(),
        FieldType::Float64 => "wire::get_f64(buf)?".into(),
        FieldType::Uuid => "wire::get_uuid(buf)?".into(),
        FieldType::String => format!("wire::get_string(buf, {compact})?"),
        FieldType::Bytes | FieldType::Records => format!("wire::get_bytes(buf, {compact})?"),
        FieldType::Struct(n) => {
            w.reads("version");
            format!("{n}::decode(buf, version)?")
        }
        FieldType::Array(inner) => {
            let len =
                format!("wire::get_array_len(buf, {compact})?.ok_or(DecodeError::UnexpectedNull)?");
            read_array(w, inner, compact, &len)
        }
    }
}

/// An expression reading the `len` elements of an array of `inner`.
fn read_array(w: &mut CodeWriter, inner: &FieldType, compact: &str, len: &str) -> String {
    let min = min_len(inner);
    if is_list(inner) {
        // Never on the heap: see `List::decode_elements`.
        w.reads("version");
        return format!("{{ let len = {len}; List::decode_elements(buf, len, {min}, version)? }}");
    }
    let element = read_value(w, inner, compact);
    format!(
        "{{ let len = wire::check_array_fits({len}, buf.remaining(), {min})?; \
         let mut items = Vec::with_capacity(len); \
         for _ in 0..len {{ items.push({element}); }} \
         items }}"
    )
}

/// An expression reading a nullable value of `ty` (an `Option`).
fn read_nullable(w: &mut CodeWriter, ty: &FieldType, compact: &str) -> String {
    match ty {
        FieldType::String => format!("wire::get_nullable_string(buf, {compact})?"),
        FieldType::Bytes | FieldType::Records => {
            format!("wire::get_nullable_bytes(buf, {compact})?")
        }
        FieldType::Struct(n) => {
            w.reads("version");
            format!(
                "if wire::get_i8(buf)? < 0 {{ None }} else {{ Some({n}::decode(buf, version)?) }}"
            )
        }
        FieldType::Array(inner) => format!(
            "match wire::get_array_len(buf, {compact})? {{ None => None, Some(len) => Some({}) }}",
            read_array(w, inner, compact, "len")
        ),
        other => format!("Some({})", read_value(w, other, compact)),
    }
}

/// Reads the tagged-field section: known tags in place (each checked to
/// take exactly its size), unknown ones kept verbatim.
fn read_tagged_section(w: &mut CodeWriter, l: &StructLayout<'_>) {
    w.reads("buf");
    let tagged = l.tagged_fields();
    // Every tag the schema names: read where the field is tagged at this
    // version, refused elsewhere (as Kafka's generated readers do).
    let arms: Vec<(&FieldLayout<'_>, u32, Cond, Versions)> = tagged
        .iter()
        .filter_map(|f| {
            let (tag, versions) = f.tag?;
            let versions = versions.intersect(&l.flexible);
            let cond = Cond::version_in(versions, l.flexible);
            Some((*f, tag, cond, versions))
        })
        .collect();
    w.line("let count = wire::get_tag_count(buf)?;");
    w.block("if count > 0 {", |w| {
        if tagged.is_empty() {
            // No known tag: the whole section is kept as one slice.
            w.line("self.unknown_tagged_fields = wire::get_raw_tag_section(buf, count)?;");
            return;
        }
        w.line("let mut unknown = wire::RawTagsReader::default();");
        w.block("for _ in 0..count {", |w| {
            if arms.is_empty() {
                w.line("let (_, hdr, size) = wire::peek_tag_header(buf)?;");
                w.line("unknown.push(buf.split_to(hdr + size));");
                return;
            }
            w.line("let (tag, hdr, size) = wire::peek_tag_header(buf)?;");
            w.block("match tag {", |w| {
                for (f, tag, cond, versions) in &arms {
                    let guard = match cond.constant() {
                        Some(true) => String::new(),
                        Some(false) => {
                            w.reads("version");
                            w.line(format!(
                                "{tag} => return Err(DecodeError::TagNotValidForVersion {{ tag: {tag}, version }}),"
                            ));
                            continue;
                        }
                        None => format!(" if {}", w.cond(cond)),
                    };
                    w.block(format!("{tag}{guard} => {{"), |w| {
                        w.line("buf.advance(hdr);");
                        w.line("let end = buf.remaining() - size;");
                        if let FieldType::Struct(n) = f.ty() {
                            if !f.is_option() {
                                // A tag may repeat: the last one wins, whole.
                                w.line(format!("self.{} = {n}::default();", f.ident));
                            }
                        }
                        read_field(w, f, "true", *versions);
                        w.line("wire::expect_end(buf, end, tag)?;");
                    });
                    if cond.constant().is_none() {
                        w.line(format!(
                            "{tag} => return Err(DecodeError::TagNotValidForVersion {{ tag: {tag}, version }}),"
                        ));
                    }
                }
                w.line("_ => unknown.push(buf.split_to(hdr + size)),");
            });
        });
        w.line("self.unknown_tagged_fields = unknown.finish();");
    });
}
