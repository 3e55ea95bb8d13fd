//! Where each field of a struct sits on the wire, version by version: the
//! model every back end emits from.

use std::ops::Range;

use super::cond::Cond;
use super::writer::CodeWriter;
use super::{camel_case, field_ident, snake_case};
use crate::model::{Field, FieldType, MessageSpec, StructDef, Versions};

/// One struct of a message, with its fields' version ranges resolved.
#[derive(Debug)]
pub(crate) struct StructLayout<'a> {
    /// The message the struct belongs to.
    pub(crate) spec: &'a MessageSpec,
    /// The struct.
    pub(crate) def: &'a StructDef,
    /// Versions at which the struct can appear: every condition in its code
    /// is simplified against them.
    pub(crate) versions: Versions,
    /// Versions at which the struct is flexible (ends with tagged fields).
    pub(crate) flexible: Versions,
    /// The fields, in wire order.
    pub(crate) fields: Vec<FieldLayout<'a>>,
    /// The fields grouped as they are read and written, in wire order.
    pub(crate) segments: Vec<Segment>,
}

/// One field of a struct.
#[derive(Debug)]
pub(crate) struct FieldLayout<'a> {
    /// The field.
    pub(crate) field: &'a Field,
    /// Its Rust identifier.
    pub(crate) ident: String,
    /// Kafka's camelCase name (JSON key, error messages).
    pub(crate) json_name: String,
    /// Versions (of the struct) at which the field exists.
    pub(crate) present: Versions,
    /// Versions at which it is written in place rather than as a tagged field.
    pub(crate) regular: Versions,
    /// Its tag and the versions at which it is a tagged field.
    pub(crate) tag: Option<(u32, Versions)>,
    /// Versions at which it may be null.
    pub(crate) nullable: Versions,
    /// Versions at which its strings, bytes and arrays are compact.
    pub(crate) compact: Versions,
}

/// Fields read and written as a unit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Segment {
    /// One field (an index into [`StructLayout::fields`]).
    Field(usize),
    /// Two or more consecutive fixed-width fields written in place at the
    /// same versions, read and written as one array.
    FixedRun {
        /// Indices of the fields.
        fields: Range<usize>,
        /// Versions at which the fields are written.
        versions: Versions,
        /// Total width in bytes.
        width: usize,
    },
}

impl<'a> StructLayout<'a> {
    /// Resolves the layout of `def`, a struct of `spec`.
    pub(crate) fn new(spec: &'a MessageSpec, def: &'a StructDef) -> Self {
        let versions = def.versions;
        let flexible = spec.flexible_versions.intersect(&versions);
        let fields: Vec<FieldLayout<'a>> = def
            .fields
            .iter()
            .map(|field| {
                let present = field.versions.intersect(&versions);
                let regular = match field.tag {
                    Some((_, tagged)) => Versions {
                        lo: field.versions.lo,
                        hi: field.versions.hi.min(tagged.lo.saturating_sub(1)),
                    }
                    .intersect(&versions),
                    None => present,
                };
                let compact = match field.flexible_override {
                    Some(own) => flexible.intersect(&own),
                    None => flexible,
                };
                FieldLayout {
                    field,
                    ident: field_ident(&field.name),
                    json_name: camel_case(&field.name),
                    present,
                    regular,
                    tag: field
                        .tag
                        .map(|(tag, tagged)| (tag, tagged.intersect(&versions))),
                    nullable: field.nullable_versions,
                    compact,
                }
            })
            .collect();
        let segments = segments(&fields);
        StructLayout {
            spec,
            def,
            versions,
            flexible,
            fields,
            segments,
        }
    }

    /// The struct's Rust name.
    pub(crate) fn name(&self) -> &str {
        &self.def.name
    }

    /// Whether the struct is the message itself rather than a nested struct.
    pub(crate) fn is_top(&self) -> bool {
        self.def.name == self.spec.top().name
    }

    /// Whether the struct ends with tagged fields at some version.
    pub(crate) fn has_tagged_section(&self) -> bool {
        !self.flexible.is_empty()
    }

    /// Whether the struct is flexible at some versions and not at others.
    fn flexible_varies(&self) -> bool {
        Cond::version_in(self.flexible, self.versions)
            .constant()
            .is_none()
    }

    /// Whether the struct is flexible: the `flexible` local, or a constant.
    pub(crate) fn flexible_cond(&self) -> Cond {
        match Cond::version_in(self.flexible, self.versions) {
            Cond::Const(b) => Cond::Const(b),
            _ => Cond::Flexible { negated: false },
        }
    }

    /// Declares the `flexible` local of an encoding or decoding function,
    /// when the struct is flexible at some versions only.
    pub(crate) fn declare_flexible(&self, w: &mut CodeWriter) {
        if self.flexible_varies() {
            let test = w.cond(&Cond::version_in(self.flexible, self.versions));
            w.line(format!("let flexible = {test};"));
        }
    }

    /// Whether `field` is compact, in code reached at the versions in `known`
    /// (the `flexible` local when that is what it amounts to).
    pub(crate) fn compact(&self, field: &FieldLayout<'_>, known: Versions) -> Cond {
        let cond = Cond::version_in(field.compact, known);
        if cond.constant().is_none()
            && self.flexible_varies()
            && field.compact.intersect(&known) == self.flexible.intersect(&known)
        {
            Cond::Flexible { negated: false }
        } else {
            cond
        }
    }

    /// The fields that have a tag, by tag.
    pub(crate) fn tagged_fields(&self) -> Vec<&FieldLayout<'a>> {
        let mut tagged: Vec<_> = self.fields.iter().filter(|f| f.tag.is_some()).collect();
        tagged.sort_by_key(|f| f.tag.map(|(tag, _)| tag));
        tagged
    }

    /// The fewest bytes any encoding of the struct takes, over the versions
    /// it can be written at.
    pub(crate) fn min_wire_size(&self) -> usize {
        let valid = self.spec.valid_versions;
        let range = self.versions.intersect(&valid);
        let (lo, hi) = if range.is_empty() {
            (valid.lo, valid.hi)
        } else {
            (range.lo, range.hi)
        };
        (lo..=hi)
            .map(|v| min_wire_size_at(self.spec, self.def, v, 0))
            .min()
            .unwrap_or(1)
            .max(1)
    }
}

impl FieldLayout<'_> {
    /// The field's type.
    pub(crate) fn ty(&self) -> &FieldType {
        &self.field.ty
    }

    /// Whether the field is an `Option` (nullable at some version).
    pub(crate) fn is_option(&self) -> bool {
        self.field.is_nullable_anywhere()
    }

    /// The field name in snake case, for locals named after it.
    pub(crate) fn snake_name(&self) -> String {
        snake_case(&self.field.name)
    }

    fn fixed_width(&self) -> Option<usize> {
        if self.is_option() || self.field.tag.is_some() || self.regular.is_empty() {
            return None;
        }
        self.ty().fixed_width()
    }
}

/// Groups runs of two or more consecutive fixed-width fields written in
/// place at the same versions.
fn segments(fields: &[FieldLayout<'_>]) -> Vec<Segment> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < fields.len() {
        let Some(width) = fields[i].fixed_width() else {
            out.push(Segment::Field(i));
            i += 1;
            continue;
        };
        let versions = fields[i].regular;
        let mut end = i + 1;
        let mut total = width;
        while let Some(next) = fields.get(end).filter(|f| f.regular == versions) {
            let Some(w) = next.fixed_width() else { break };
            total += w;
            end += 1;
        }
        if end - i > 1 {
            out.push(Segment::FixedRun {
                fields: i..end,
                versions,
                width: total,
            });
        } else {
            out.push(Segment::Field(i));
        }
        i = end;
    }
    out
}

fn min_wire_size_at(spec: &MessageSpec, s: &StructDef, version: i16, depth: usize) -> usize {
    if depth > 8 {
        return 1;
    }
    let flexible = spec.flexible_versions.contains(version);
    let mut size = usize::from(flexible);
    for f in &s.fields {
        if !f.versions.contains(version) || f.tag.is_some_and(|(_, tv)| tv.contains(version)) {
            continue;
        }
        let compact = flexible && f.flexible_override.is_none_or(|o| o.contains(version));
        size += match &f.ty {
            t if t.fixed_width().is_some() => t.fixed_width().unwrap_or(1),
            FieldType::String => {
                if compact {
                    1
                } else {
                    2
                }
            }
            FieldType::Bytes | FieldType::Records | FieldType::Array(_) => {
                if compact {
                    1
                } else {
                    4
                }
            }
            FieldType::Struct(n) => {
                let nullable = f.nullable_versions.contains(version);
                match spec.find_struct(n) {
                    _ if nullable => 1,
                    Some(inner) => min_wire_size_at(spec, inner, version, depth + 1),
                    None => 1,
                }
            }
            _ => 1,
        };
    }
    size
}
