//! `api_key.rs`: the `ApiKey` table and the request / response dispatch enums.

use super::writer::CodeWriter;
use super::{snake_case, GENERATED_HEADER};
use crate::model::{MessageKind, MessageSpec};

/// One API: its name without the `Request` suffix and its request schema.
struct Api<'a> {
    name: &'a str,
    key: i16,
    request: &'a MessageSpec,
}

impl Api<'_> {
    /// The message type of one side, e.g. `VoteRequest`.
    fn message(&self, side: &str) -> String {
        format!("{}{side}", self.name)
    }
}

/// Generates `api_key.rs`: the `ApiKey` enum and request/response dispatch.
pub fn emit_api_keys(specs: &[MessageSpec]) -> String {
    let mut apis: Vec<Api<'_>> = specs
        .iter()
        .filter(|s| s.kind == MessageKind::Request)
        .map(|s| Api {
            name: s.name.strip_suffix("Request").unwrap_or(&s.name),
            key: s.api_key.unwrap_or(-1),
            request: s,
        })
        .collect();
    apis.sort_by_key(|a| a.key);
    let mut w = CodeWriter::default();
    w.raw(GENERATED_HEADER);
    w.line("//! API keys with the version ranges this implementation supports.");
    w.blank();
    w.line("use bytes::{BufMut, Bytes};");
    w.blank();
    let mut modules: Vec<(String, String)> = apis
        .iter()
        .flat_map(|a| ["Request", "Response"].map(|side| a.message(side)))
        .map(|m| (snake_case(&m), m))
        .collect();
    modules.sort();
    for (module, message) in &modules {
        w.line(format!("use super::{module}::{message};"));
    }
    w.blank();
    w.line("use crate::{DecodeError, Encodable, EncodeError, Message};");
    w.blank();
    emit_enum(&mut w, &apis);
    emit_impl(&mut w, &apis);
    for side in ["Request", "Response"] {
        emit_body(&mut w, &apis, side);
    }
    w.doc("Decodes a message of type `M`, refusing a version `M` does not know.");
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
    w.finish()
}

fn emit_enum(w: &mut CodeWriter, apis: &[Api<'_>]) {
    w.id_enum(
        "ApiKey",
        "A Kafka API this implementation speaks.",
        "key",
        apis.iter().map(|a| (a.name, a.name, a.key)),
    );
}

/// Writes `fn <name>(self) -> <ty>` as a `match` over every API.
fn per_api(
    w: &mut CodeWriter,
    apis: &[Api<'_>],
    doc: &str,
    signature: &str,
    value: impl Fn(&Api<'_>) -> String,
) {
    let arms = apis.iter().map(|a| (a.name.to_string(), value(a)));
    w.match_fn("ApiKey", doc, signature, arms);
}

/// Writes `fn <name>(self) -> bool`, true for the APIs `holds` picks.
fn per_api_flag(
    w: &mut CodeWriter,
    apis: &[Api<'_>],
    doc: &str,
    name: &str,
    holds: impl Fn(&Api<'_>) -> bool,
) {
    let chosen: Vec<String> = apis
        .iter()
        .filter(|a| holds(a))
        .map(|a| format!("ApiKey::{}", a.name))
        .collect();
    w.doc(doc);
    w.block(format!("pub fn {name}(self) -> bool {{"), |w| {
        if chosen.is_empty() {
            w.line("false");
        } else if chosen.len() == apis.len() {
            w.line("true");
        } else {
            w.line(format!("matches!(self, {})", chosen.join(" | ")));
        }
    });
    w.blank();
}

fn emit_impl(w: &mut CodeWriter, apis: &[Api<'_>]) {
    w.block("impl ApiKey {", |w| {
        w.doc("Every API key, in key order.");
        let all: Vec<String> = apis.iter().map(|a| format!("ApiKey::{}", a.name)).collect();
        w.line(format!(
            "pub const ALL: &'static [ApiKey] = &[{}];",
            all.join(", ")
        ));
        w.blank();
        w.doc("The key for a numeric id, if known.");
        w.block("pub fn from_i16(key: i16) -> Option<ApiKey> {", |w| {
            w.block("match key {", |w| {
                for a in apis {
                    w.line(format!("{} => Some(ApiKey::{}),", a.key, a.name));
                }
                w.line("_ => None,");
            });
        });
        w.blank();
        w.doc("The numeric id.");
        w.block("pub fn id(self) -> i16 {", |w| w.line("self as i16"));
        w.blank();
        per_api(
            w,
            apis,
            "Kafka's name of the API, e.g. `ADD_RAFT_VOTER`.",
            "kafka_name(self) -> &'static str",
            |a| format!("{:?}", snake_case(a.name).to_ascii_uppercase()),
        );
        per_api(
            w,
            apis,
            "Lowest and highest request version this implementation knows.",
            "versions(self) -> (i16, i16)",
            |a| {
                let v = a.request.valid_versions;
                format!("({}, {})", v.lo, v.hi)
            },
        );
        per_api(
            w,
            apis,
            "First flexible version of the request, if any.",
            "first_flexible_version(self) -> Option<i16>",
            |a| {
                let flexible = a.request.flexible_versions;
                if flexible.is_empty() {
                    "None".into()
                } else {
                    format!("Some({})", flexible.lo)
                }
            },
        );
        per_api_flag(
            w,
            apis,
            "Whether the highest version is unstable (advertised only when unstable versions are enabled).",
            "latest_version_unstable",
            |a| a.request.latest_version_unstable,
        );
        per_api_flag(
            w,
            apis,
            "Whether the API is exposed on controller listeners.",
            "on_controller_listener",
            |a| a.request.listeners.iter().any(|l| l == "controller"),
        );
        per_api_flag(
            w,
            apis,
            "Whether the API is exposed on broker listeners.",
            "on_broker_listener",
            |a| a.request.listeners.iter().any(|l| l == "broker"),
        );
        w.doc("Whether `version` is a known request version.");
        w.block("pub fn is_valid_version(self, version: i16) -> bool {", |w| {
            w.line("let (lo, hi) = self.versions();");
            w.line("lo <= version && version <= hi");
        });
        w.blank();
        w.doc("Request header version for a request of this API at `version`: 2 if flexible, else 1.");
        w.block("pub fn request_header_version(self, version: i16) -> i16 {", |w| {
            w.line("if self.first_flexible_version().is_some_and(|f| version >= f) { 2 } else { 1 }");
        });
        w.blank();
        w.doc("Response header version: 1 if flexible, else 0; ApiVersions responses always use 0.");
        w.block("pub fn response_header_version(self, version: i16) -> i16 {", |w| {
            w.block("if self == ApiKey::ApiVersions {", |w| w.line("return 0;"));
            w.line("if self.first_flexible_version().is_some_and(|f| version >= f) { 1 } else { 0 }");
        });
    });
    w.blank();
}

/// Writes `RequestBody` or `ResponseBody` (`side`: `Request` or `Response`).
fn emit_body(w: &mut CodeWriter, apis: &[Api<'_>], side: &str) {
    let kind = format!("{side}Body");
    w.doc(&format!(
        "Any {} body, tagged by API.",
        side.to_ascii_lowercase()
    ));
    w.line("#[derive(Debug, Clone, PartialEq)]");
    w.block(format!("pub enum {kind} {{"), |w| {
        for a in apis {
            w.doc(&format!("`{}`.", a.message(side)));
            w.line(format!("{}({}),", a.name, a.message(side)));
        }
    });
    w.blank();
    let each = |w: &mut CodeWriter, arm: &dyn Fn(&Api<'_>) -> String| {
        w.block("match self {", |w| {
            for a in apis {
                w.line(arm(a));
            }
        });
    };
    w.block(format!("impl {kind} {{"), |w| {
        w.doc("The API of this body.");
        w.block("pub fn api_key(&self) -> ApiKey {", |w| {
            each(w, &|a| format!("{kind}::{}(_) => ApiKey::{},", a.name, a.name));
        });
        w.blank();
        w.doc("Decodes a body of `api_key` at `version`, checking the version is known.");
        w.block(
            "pub fn decode(api_key: ApiKey, version: i16, buf: &mut Bytes) -> Result<Self, DecodeError> {",
            |w| {
                w.block("match api_key {", |w| {
                    for a in apis {
                        w.line(format!(
                            "ApiKey::{0} => decode_checked(buf, version).map({kind}::{0}),",
                            a.name
                        ));
                    }
                });
            },
        );
        w.blank();
        w.doc("Encodes the body at `version`.");
        w.block(
            "pub fn encode<B: BufMut>(&self, buf: &mut B, version: i16) -> Result<(), EncodeError> {",
            |w| each(w, &|a| format!("{kind}::{}(m) => m.encode(buf, version),", a.name)),
        );
        w.blank();
        w.doc("Encoded size of the body at `version`.");
        w.block("pub fn encoded_len(&self, version: i16) -> usize {", |w| {
            each(w, &|a| format!("{kind}::{}(m) => m.encoded_len(version),", a.name));
        });
    });
    w.blank();
    w.block(format!("impl Encodable for {kind} {{"), |w| {
        w.block(
            "fn encode<B: BufMut>(&self, buf: &mut B, version: i16) -> Result<(), EncodeError> {",
            |w| w.line(format!("{kind}::encode(self, buf, version)")),
        );
        w.blank();
        w.block("fn encoded_len(&self, version: i16) -> usize {", |w| {
            w.line(format!("{kind}::encoded_len(self, version)"));
        });
    });
    w.blank();
}
