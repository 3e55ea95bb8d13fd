//! The typed schema model and its parser / validator.

use std::collections::{BTreeMap, HashSet};
use std::fmt;

use serde::Deserialize;

use crate::SchemaError;

/// An inclusive range of versions; `hi == i16::MAX` means open-ended (`N+`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Versions {
    /// Lowest version, inclusive.
    pub lo: i16,
    /// Highest version, inclusive.
    pub hi: i16,
}

impl Versions {
    /// The empty range (`none`).
    pub const NONE: Versions = Versions { lo: 0, hi: -1 };
    /// Every version (`0+`).
    pub const ALL: Versions = Versions {
        lo: 0,
        hi: i16::MAX,
    };

    /// Parses Kafka's range grammar: `N`, `N-M`, `N+`, `none`.
    pub fn parse(s: &str) -> Option<Versions> {
        let s = s.trim();
        if s == "none" || s.is_empty() {
            return Some(Versions::NONE);
        }
        if let Some(lo) = s.strip_suffix('+') {
            let lo = lo.trim().parse().ok()?;
            return Some(Versions { lo, hi: i16::MAX });
        }
        if let Some((a, b)) = s.split_once('-') {
            let lo = a.trim().parse().ok()?;
            let hi = b.trim().parse().ok()?;
            return (lo <= hi).then_some(Versions { lo, hi });
        }
        let v = s.parse().ok()?;
        Some(Versions { lo: v, hi: v })
    }

    /// Whether the range is empty.
    pub fn is_empty(&self) -> bool {
        self.lo > self.hi
    }

    /// Whether the range is open-ended (or empty).
    pub fn is_open_ended(&self) -> bool {
        self.is_empty() || self.hi == i16::MAX
    }

    /// Whether `v` lies in the range.
    pub fn contains(&self, v: i16) -> bool {
        self.lo <= v && v <= self.hi
    }

    /// Intersection of two ranges.
    pub fn intersect(&self, other: &Versions) -> Versions {
        let lo = self.lo.max(other.lo);
        let hi = self.hi.min(other.hi);
        if lo > hi {
            Versions::NONE
        } else {
            Versions { lo, hi }
        }
    }

    /// Whether every version of `self` lies in `other`.
    pub fn is_subset_of(&self, other: &Versions) -> bool {
        self.is_empty() || (other.lo <= self.lo && self.hi <= other.hi)
    }

    /// Whether every version in `within` lies in `self`.
    pub fn covers(&self, within: &Versions) -> bool {
        within.is_subset_of(self)
    }
}

impl fmt::Display for Versions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_empty() {
            write!(f, "none")
        } else if self.hi == i16::MAX {
            write!(f, "{}+", self.lo)
        } else if self.lo == self.hi {
            write!(f, "{}", self.lo)
        } else {
            write!(f, "{}-{}", self.lo, self.hi)
        }
    }
}

/// What kind of schema a file holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MessageKind {
    /// A request body.
    Request,
    /// A response body.
    Response,
    /// A request or response header.
    Header,
    /// A plain data struct (control records and the like).
    Data,
    /// A metadata record (`apiKey` is the record type).
    Metadata,
}

/// A primitive or composite field type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FieldType {
    /// `bool`
    Bool,
    /// `int8`
    Int8,
    /// `int16`
    Int16,
    /// `uint16`
    Uint16,
    /// `int32`
    Int32,
    /// `uint32`
    Uint32,
    /// `int64`
    Int64,
    /// `float64`
    Float64,
    /// `uuid`
    Uuid,
    /// `string`
    String,
    /// `bytes`
    Bytes,
    /// `records`
    Records,
    /// A named struct.
    Struct(String),
    /// `[]T`
    Array(Box<FieldType>),
}

impl FieldType {
    fn parse(s: &str) -> Option<FieldType> {
        if let Some(elem) = s.strip_prefix("[]") {
            let inner = FieldType::parse(elem)?;
            if matches!(inner, FieldType::Array(_)) {
                return None;
            }
            return Some(FieldType::Array(Box::new(inner)));
        }
        Some(match s {
            "bool" => FieldType::Bool,
            "int8" => FieldType::Int8,
            "int16" => FieldType::Int16,
            "uint16" => FieldType::Uint16,
            "int32" => FieldType::Int32,
            "uint32" => FieldType::Uint32,
            "int64" => FieldType::Int64,
            "float64" => FieldType::Float64,
            "uuid" => FieldType::Uuid,
            "string" => FieldType::String,
            "bytes" => FieldType::Bytes,
            "records" => FieldType::Records,
            name if is_valid_name(name) && name.starts_with(|c: char| c.is_ascii_uppercase()) => {
                FieldType::Struct(name.to_string())
            }
            _ => return None,
        })
    }

    /// Whether the type may be nullable (strings, bytes, records, arrays, structs).
    pub fn can_be_nullable(&self) -> bool {
        matches!(
            self,
            FieldType::String
                | FieldType::Bytes
                | FieldType::Records
                | FieldType::Array(_)
                | FieldType::Struct(_)
        )
    }

    /// The struct name this type refers to, directly or as array element.
    pub fn struct_name(&self) -> Option<&str> {
        match self {
            FieldType::Struct(n) => Some(n),
            FieldType::Array(inner) => inner.struct_name(),
            _ => None,
        }
    }

    /// Fixed encoded width of a primitive, if fixed.
    pub fn fixed_width(&self) -> Option<usize> {
        Some(match self {
            FieldType::Bool | FieldType::Int8 => 1,
            FieldType::Int16 | FieldType::Uint16 => 2,
            FieldType::Int32 | FieldType::Uint32 => 4,
            FieldType::Int64 | FieldType::Float64 => 8,
            FieldType::Uuid => 16,
            _ => return None,
        })
    }
}

/// A field's default value, parsed and checked against its type.
#[derive(Debug, Clone, PartialEq)]
pub enum Default {
    /// The type's natural default (0, false, "", empty, ZERO uuid, default struct).
    Natural,
    /// `null`.
    Null,
    /// A boolean literal.
    Bool(bool),
    /// An integer literal.
    Int(i64),
    /// A float literal, kept as written.
    Float(String),
    /// A string literal.
    Str(String),
    /// A UUID given in Kafka's base64 text form, as 16 bytes.
    Uuid([u8; 16]),
}

/// A field of a struct.
#[derive(Debug, Clone)]
pub struct Field {
    /// PascalCase name.
    pub name: String,
    /// Type.
    pub ty: FieldType,
    /// Versions in which the field exists.
    pub versions: Versions,
    /// Versions in which the field may be null.
    pub nullable_versions: Versions,
    /// Tag and tagged versions, if the field is tagged.
    pub tag: Option<(u32, Versions)>,
    /// Default value.
    pub default: Default,
    /// Whether a non-default value may be dropped at versions lacking the field.
    pub ignorable: bool,
    /// Whether the field is the key of a keyed collection.
    pub map_key: bool,
    /// Entity type, informational.
    pub entity_type: Option<String>,
    /// Field-level flexible-versions override (strings and bytes only).
    pub flexible_override: Option<Versions>,
    /// Documentation.
    pub about: String,
}

impl Field {
    /// Whether the field is nullable in any version.
    pub fn is_nullable_anywhere(&self) -> bool {
        !self.nullable_versions.is_empty()
    }
}

/// A struct: the message itself, a nested struct or a common struct.
#[derive(Debug, Clone)]
pub struct StructDef {
    /// PascalCase name.
    pub name: String,
    /// Versions in which the struct is used.
    pub versions: Versions,
    /// Fields in wire order.
    pub fields: Vec<Field>,
    /// Documentation.
    pub about: String,
}

/// A parsed and validated schema file.
#[derive(Debug, Clone)]
pub struct MessageSpec {
    /// The file the schema came from (for error messages).
    pub file: String,
    /// The message name, e.g. `VoteRequest`.
    pub name: String,
    /// Kind of schema.
    pub kind: MessageKind,
    /// API key (requests/responses) or record type (metadata records).
    pub api_key: Option<i16>,
    /// Valid versions.
    pub valid_versions: Versions,
    /// Flexible versions.
    pub flexible_versions: Versions,
    /// Listeners (requests only).
    pub listeners: Vec<String>,
    /// Whether the highest version is unstable (requests only).
    pub latest_version_unstable: bool,
    /// The top-level struct (name = message name) first, then every nested
    /// and common struct, each once.
    pub structs: Vec<StructDef>,
}

impl MessageSpec {
    /// The top-level struct.
    pub fn top(&self) -> &StructDef {
        &self.structs[0]
    }

    /// A struct by name.
    pub fn find_struct(&self, name: &str) -> Option<&StructDef> {
        self.structs.iter().find(|s| s.name == name)
    }
}

// ------------------------------------------------------------------ raw JSON

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct RawMessage {
    api_key: Option<i16>,
    #[serde(rename = "type")]
    kind: String,
    name: String,
    valid_versions: String,
    #[serde(default)]
    deprecated_versions: Option<String>,
    flexible_versions: Option<String>,
    #[serde(default)]
    listeners: Vec<String>,
    #[serde(default)]
    latest_version_unstable: bool,
    #[serde(default)]
    fields: Vec<RawField>,
    #[serde(default)]
    common_structs: Vec<RawCommonStruct>,
    #[serde(default)]
    about: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct RawCommonStruct {
    name: String,
    versions: String,
    fields: Vec<RawField>,
    #[serde(default)]
    about: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct RawField {
    name: String,
    #[serde(rename = "type")]
    ty: String,
    versions: Option<String>,
    nullable_versions: Option<String>,
    tag: Option<i64>,
    tagged_versions: Option<String>,
    default: Option<serde_json::Value>,
    #[serde(default)]
    ignorable: bool,
    #[serde(default)]
    map_key: bool,
    entity_type: Option<String>,
    flexible_versions: Option<String>,
    #[serde(default)]
    zero_copy: bool,
    #[serde(default)]
    about: Option<String>,
    fields: Option<Vec<RawField>>,
}

/// Removes `//` line comments (outside string literals) so that the text is JSON.
pub fn strip_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.lines() {
        let mut in_str = false;
        let mut escaped = false;
        let mut cut = line.len();
        let bytes = line.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            let c = bytes[i];
            if in_str {
                if escaped {
                    escaped = false;
                } else if c == b'\\' {
                    escaped = true;
                } else if c == b'"' {
                    in_str = false;
                }
            } else if c == b'"' {
                in_str = true;
            } else if c == b'/' && bytes.get(i + 1) == Some(&b'/') {
                cut = i;
                break;
            }
            i += 1;
        }
        out.push_str(&line[..cut]);
        out.push('\n');
    }
    out
}

fn is_valid_name(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric())
}

const ENTITY_TYPES: &[&str] = &[
    "topicName",
    "brokerId",
    "transactionalId",
    "producerId",
    "groupId",
    "unknown",
];

struct Ctx<'a> {
    file: &'a str,
    flexible: Versions,
    structs: Vec<StructDef>,
    common: BTreeMap<String, (Versions, Vec<RawField>, Option<String>)>,
    seen: HashSet<String>,
}

impl Ctx<'_> {
    fn err(&self, path: &str, msg: impl Into<String>) -> SchemaError {
        SchemaError::Invalid {
            file: self.file.to_string(),
            field: path.to_string(),
            message: msg.into(),
        }
    }

    fn versions(&self, path: &str, key: &str, s: &str) -> Result<Versions, SchemaError> {
        Versions::parse(s).ok_or_else(|| self.err(path, format!("invalid {key} \"{s}\"")))
    }

    fn build_struct(
        &mut self,
        name: &str,
        versions: Versions,
        raw_fields: &[RawField],
        about: Option<&str>,
        path: &str,
    ) -> Result<(), SchemaError> {
        if !self.seen.insert(name.to_string()) {
            return Err(self.err(path, format!("struct {name} is defined more than once")));
        }
        let index = self.structs.len();
        self.structs.push(StructDef {
            name: name.to_string(),
            versions,
            fields: Vec::new(),
            about: about.unwrap_or_default().to_string(),
        });
        let mut fields = Vec::with_capacity(raw_fields.len());
        let mut names = HashSet::new();
        let mut tags = HashSet::new();
        for raw in raw_fields {
            let fpath = format!("{path}.{}", raw.name);
            if !is_valid_name(&raw.name) {
                return Err(self.err(&fpath, "field name must match [A-Za-z][A-Za-z0-9]*"));
            }
            if !names.insert(raw.name.clone()) {
                return Err(self.err(&fpath, "duplicate field name"));
            }
            let field = self.build_field(raw, versions, &fpath)?;
            if let Some((tag, _)) = field.tag {
                if !tags.insert(tag) {
                    return Err(self.err(&fpath, format!("tag {tag} is used twice in {name}")));
                }
            }
            fields.push(field);
        }
        self.structs[index].fields = fields;
        Ok(())
    }

    fn build_field(
        &mut self,
        raw: &RawField,
        parent: Versions,
        path: &str,
    ) -> Result<Field, SchemaError> {
        let ty = FieldType::parse(&raw.ty)
            .ok_or_else(|| self.err(path, format!("unknown type \"{}\"", raw.ty)))?;
        let tagged = match &raw.tagged_versions {
            Some(s) => Some(self.versions(path, "taggedVersions", s)?),
            None => None,
        };
        let versions = match (&raw.versions, tagged) {
            (Some(s), _) => self.versions(path, "versions", s)?,
            (None, Some(t)) => t,
            (None, None) => {
                return Err(self.err(path, "field has neither versions nor taggedVersions"))
            }
        };
        let tag = match (raw.tag, tagged) {
            (Some(t), Some(tv)) => {
                if !(0..=i64::from(i32::MAX)).contains(&t) {
                    return Err(self.err(path, format!("tag {t} is out of range")));
                }
                if !tv.is_open_ended() {
                    return Err(self.err(path, "taggedVersions must be open-ended (N+)"));
                }
                if !tv.is_subset_of(&versions) {
                    return Err(self.err(path, "taggedVersions must be a subset of versions"));
                }
                if !tv.is_subset_of(&self.flexible) {
                    return Err(self.err(path, "taggedVersions must lie in the flexible versions"));
                }
                if raw.map_key {
                    return Err(self.err(path, "a tagged field cannot be a map key"));
                }
                Some((t as u32, tv))
            }
            (None, None) => None,
            (Some(_), None) => return Err(self.err(path, "tag without taggedVersions")),
            (None, Some(_)) => return Err(self.err(path, "taggedVersions without tag")),
        };
        let nullable_versions = match &raw.nullable_versions {
            Some(s) => self.versions(path, "nullableVersions", s)?,
            None => Versions::NONE,
        };
        if !nullable_versions.is_empty() && !ty.can_be_nullable() {
            return Err(self.err(path, format!("type {} cannot be nullable", raw.ty)));
        }
        let flexible_override = match &raw.flexible_versions {
            Some(s) => {
                if !matches!(ty, FieldType::String | FieldType::Bytes) {
                    return Err(self.err(
                        path,
                        "flexibleVersions override is only for string and bytes",
                    ));
                }
                Some(self.versions(path, "flexibleVersions", s)?)
            }
            None => None,
        };
        if raw.zero_copy && !matches!(ty, FieldType::Bytes) {
            return Err(self.err(path, "zeroCopy is only for bytes"));
        }
        if let Some(e) = &raw.entity_type {
            if !ENTITY_TYPES.contains(&e.as_str()) {
                return Err(self.err(path, format!("unknown entityType \"{e}\"")));
            }
        }
        let default = self.parse_default(raw, &ty, &nullable_versions, path)?;
        // Nested or referenced structs.
        let struct_versions = versions.intersect(&parent);
        match (&raw.fields, ty.struct_name()) {
            (Some(sub), Some(sname)) => {
                let sname = sname.to_string();
                if self.common.contains_key(&sname) {
                    return Err(self.err(path, format!("struct {sname} is also a common struct")));
                }
                self.build_struct(&sname, struct_versions, sub, raw.about.as_deref(), path)?;
            }
            (Some(_), None) => return Err(self.err(path, "only struct types may declare fields")),
            (None, Some(sname)) => {
                if !self.seen.contains(sname) {
                    let Some((cv, cf, cabout)) = self.common.get(sname).cloned() else {
                        return Err(self.err(path, format!("unknown struct type {sname}")));
                    };
                    let cpath = format!("commonStructs.{sname}");
                    self.build_struct(sname, cv, &cf, cabout.as_deref(), &cpath)?;
                }
            }
            (None, None) => {}
        }
        Ok(Field {
            name: raw.name.clone(),
            ty,
            versions,
            nullable_versions,
            tag,
            default,
            ignorable: raw.ignorable,
            map_key: raw.map_key,
            entity_type: raw.entity_type.clone(),
            flexible_override,
            about: raw.about.clone().unwrap_or_default(),
        })
    }

    fn parse_default(
        &self,
        raw: &RawField,
        ty: &FieldType,
        nullable: &Versions,
        path: &str,
    ) -> Result<Default, SchemaError> {
        let Some(value) = &raw.default else {
            return Ok(Default::Natural);
        };
        let text = match value {
            serde_json::Value::String(s) => s.clone(),
            serde_json::Value::Bool(b) => b.to_string(),
            serde_json::Value::Number(n) => n.to_string(),
            _ => return Err(self.err(path, "default must be a string")),
        };
        if text == "null" {
            if nullable.is_empty() {
                return Err(self.err(path, "default null on a field that is never nullable"));
            }
            return Ok(Default::Null);
        }
        let bad = || {
            self.err(
                path,
                format!("invalid default \"{text}\" for type {}", raw.ty),
            )
        };
        Ok(match ty {
            FieldType::Bool => match text.as_str() {
                "true" => Default::Bool(true),
                "false" => Default::Bool(false),
                _ => return Err(bad()),
            },
            FieldType::Int8
            | FieldType::Int16
            | FieldType::Uint16
            | FieldType::Int32
            | FieldType::Uint32
            | FieldType::Int64 => {
                let v = parse_int(&text).ok_or_else(bad)?;
                let (lo, hi) = match ty {
                    FieldType::Int8 => (i64::from(i8::MIN), i64::from(i8::MAX)),
                    FieldType::Int16 => (i64::from(i16::MIN), i64::from(i16::MAX)),
                    FieldType::Uint16 => (0, i64::from(u16::MAX)),
                    FieldType::Int32 => (i64::from(i32::MIN), i64::from(i32::MAX)),
                    FieldType::Uint32 => (0, i64::from(u32::MAX)),
                    _ => (i64::MIN, i64::MAX),
                };
                if v < lo || v > hi {
                    return Err(bad());
                }
                Default::Int(v)
            }
            FieldType::Float64 => {
                text.parse::<f64>().map_err(|_| bad())?;
                Default::Float(text)
            }
            FieldType::String => Default::Str(text),
            FieldType::Uuid => {
                use base64::Engine;
                let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
                    .decode(text.as_bytes())
                    .map_err(|_| bad())?;
                Default::Uuid(bytes.try_into().map_err(|_| bad())?)
            }
            _ => return Err(bad()),
        })
    }
}

fn parse_int(s: &str) -> Option<i64> {
    let (neg, body) = match s.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, s),
    };
    let v = if let Some(hex) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
        i64::from_str_radix(hex, 16).ok()?
    } else {
        body.parse::<i64>().ok()?
    };
    Some(if neg { -v } else { v })
}

/// Parses and validates one schema file's text.
pub fn parse_schema(file: &str, text: &str) -> Result<MessageSpec, SchemaError> {
    let json = strip_comments(text);
    let raw: RawMessage = serde_json::from_str(&json).map_err(|e| SchemaError::Invalid {
        file: file.to_string(),
        field: "(file)".to_string(),
        message: e.to_string(),
    })?;
    let top_err = |field: &str, message: String| SchemaError::Invalid {
        file: file.to_string(),
        field: field.to_string(),
        message,
    };
    if !is_valid_name(&raw.name) {
        return Err(top_err(
            "name",
            format!("invalid message name \"{}\"", raw.name),
        ));
    }
    let kind = match raw.kind.as_str() {
        "request" => MessageKind::Request,
        "response" => MessageKind::Response,
        "header" => MessageKind::Header,
        "data" => MessageKind::Data,
        "metadata" => MessageKind::Metadata,
        other => {
            return Err(top_err(
                "type",
                format!("unsupported message type \"{other}\""),
            ))
        }
    };
    let valid_versions = Versions::parse(&raw.valid_versions).ok_or_else(|| {
        top_err(
            "validVersions",
            format!("invalid range \"{}\"", raw.valid_versions),
        )
    })?;
    if valid_versions.hi == i16::MAX {
        return Err(top_err(
            "validVersions",
            "must be a closed range".to_string(),
        ));
    }
    let flex_text = raw
        .flexible_versions
        .as_deref()
        .ok_or_else(|| top_err("flexibleVersions", "is required".to_string()))?;
    let flexible_versions = Versions::parse(flex_text)
        .filter(Versions::is_open_ended)
        .ok_or_else(|| {
            top_err(
                "flexibleVersions",
                format!("must be none or open-ended, got \"{flex_text}\""),
            )
        })?;
    if let Some(d) = &raw.deprecated_versions {
        Versions::parse(d)
            .ok_or_else(|| top_err("deprecatedVersions", format!("invalid range \"{d}\"")))?;
    }
    match kind {
        MessageKind::Request | MessageKind::Response if raw.api_key.is_none() => {
            return Err(top_err(
                "apiKey",
                "requests and responses need an apiKey".to_string(),
            ));
        }
        MessageKind::Metadata if raw.api_key.is_none() => {
            return Err(top_err(
                "apiKey",
                "metadata records need an apiKey".to_string(),
            ));
        }
        _ => {}
    }
    for l in &raw.listeners {
        if !matches!(l.as_str(), "broker" | "controller" | "zkBroker") {
            return Err(top_err("listeners", format!("unknown listener \"{l}\"")));
        }
    }
    if kind != MessageKind::Request && (!raw.listeners.is_empty() || raw.latest_version_unstable) {
        return Err(top_err(
            "listeners",
            "listeners and latestVersionUnstable are for requests only".to_string(),
        ));
    }
    let mut common = BTreeMap::new();
    for c in &raw.common_structs {
        let v = Versions::parse(&c.versions).ok_or_else(|| {
            top_err(
                &format!("commonStructs.{}", c.name),
                format!("invalid versions \"{}\"", c.versions),
            )
        })?;
        if common
            .insert(c.name.clone(), (v, c.fields.clone(), c.about.clone()))
            .is_some()
        {
            return Err(top_err(
                &format!("commonStructs.{}", c.name),
                "defined twice".to_string(),
            ));
        }
    }
    let mut ctx = Ctx {
        file,
        flexible: flexible_versions,
        structs: Vec::new(),
        common,
        seen: HashSet::new(),
    };
    ctx.build_struct(
        &raw.name,
        valid_versions,
        &raw.fields,
        raw.about.as_deref(),
        &raw.name,
    )?;
    // Common structs that no field references are still emitted (and validated).
    let unused: Vec<_> = ctx
        .common
        .iter()
        .filter(|(n, _)| !ctx.seen.contains(*n))
        .map(|(n, v)| (n.clone(), v.clone()))
        .collect();
    for (name, (v, fields, about)) in unused {
        ctx.build_struct(
            &name,
            v,
            &fields,
            about.as_deref(),
            &format!("commonStructs.{name}"),
        )?;
    }
    Ok(MessageSpec {
        file: file.to_string(),
        name: raw.name,
        kind,
        api_key: raw.api_key,
        valid_versions,
        flexible_versions,
        listeners: raw.listeners,
        latest_version_unstable: raw.latest_version_unstable,
        structs: ctx.structs,
    })
}

impl Clone for RawField {
    fn clone(&self) -> Self {
        RawField {
            name: self.name.clone(),
            ty: self.ty.clone(),
            versions: self.versions.clone(),
            nullable_versions: self.nullable_versions.clone(),
            tag: self.tag,
            tagged_versions: self.tagged_versions.clone(),
            default: self.default.clone(),
            ignorable: self.ignorable,
            map_key: self.map_key,
            entity_type: self.entity_type.clone(),
            flexible_versions: self.flexible_versions.clone(),
            zero_copy: self.zero_copy,
            about: self.about.clone(),
            fields: self.fields.clone(),
        }
    }
}
