//! An indenting writer for generated Rust source.

use std::collections::BTreeSet;

use super::cond::Cond;

/// The body of one branch, written into the writer it is given.
pub(crate) type Body<'a> = Box<dyn FnOnce(&mut CodeWriter) + 'a>;

/// Builds Rust source line by line, one indentation level per block, and
/// records which function parameters the code reads (an unread parameter is
/// given a `_` prefix by [`CodeWriter::param`]).
#[derive(Debug, Default)]
pub(crate) struct CodeWriter {
    out: String,
    depth: usize,
    reads: BTreeSet<&'static str>,
}

impl CodeWriter {
    /// Writes one line at the current indentation; an empty line stays empty.
    pub(crate) fn line(&mut self, text: impl AsRef<str>) {
        let text = text.as_ref();
        if !text.is_empty() {
            for _ in 0..self.depth {
                self.out.push_str("    ");
            }
            self.out.push_str(text);
        }
        self.out.push('\n');
    }

    /// Writes an empty line.
    pub(crate) fn blank(&mut self) {
        self.out.push('\n');
    }

    /// Writes `text` as `///` lines; nothing when it is blank.
    pub(crate) fn doc(&mut self, text: &str) {
        for line in text.trim().lines().map(str::trim) {
            if line.is_empty() {
                self.line("///");
            } else {
                self.line(format!("/// {line}"));
            }
        }
    }

    /// Writes `head` (ending in `{`), then `body` one level deeper, then `}`.
    pub(crate) fn block(&mut self, head: impl AsRef<str>, body: impl FnOnce(&mut Self)) {
        self.block_ending(head, "}", body);
    }

    /// Writes `head`, then `body` one level deeper, then `end`.
    pub(crate) fn block_ending(
        &mut self,
        head: impl AsRef<str>,
        end: &str,
        body: impl FnOnce(&mut Self),
    ) {
        self.line(head);
        self.depth += 1;
        body(self);
        self.depth -= 1;
        self.line(end);
    }

    /// Writes `body` under `if cond`: inline when `cond` always holds,
    /// not at all when it never does.
    pub(crate) fn when(&mut self, cond: &Cond, body: impl FnOnce(&mut Self)) {
        match cond.constant() {
            Some(true) => body(self),
            Some(false) => {}
            None => {
                let head = format!("if {} {{", self.cond(cond));
                self.block(head, body);
            }
        }
    }

    /// Writes an `if` / `else if` / `else` chain. Arms that never hold are
    /// left out; an arm that always holds ends the chain as its `else` (or
    /// stands alone when it comes first); an empty `else` is left out.
    pub(crate) fn if_chain(&mut self, arms: Vec<(Cond, Body<'_>)>, otherwise: Option<Body<'_>>) {
        let mut opened = false;
        let mut otherwise = otherwise;
        for (cond, body) in arms {
            match cond.constant() {
                Some(false) => continue,
                Some(true) => {
                    otherwise = Some(body);
                    break;
                }
                None => {
                    let test = self.cond(&cond);
                    let head = if opened {
                        format!("}} else if {test} {{")
                    } else {
                        format!("if {test} {{")
                    };
                    self.line(head);
                    self.nested(body);
                    opened = true;
                }
            }
        }
        match (opened, otherwise) {
            (false, Some(body)) => body(self),
            (false, None) => {}
            (true, Some(body)) => {
                let mut inner = CodeWriter::default();
                body(&mut inner);
                if !inner.out.is_empty() {
                    self.line("} else {");
                    self.depth += 1;
                    self.append(inner);
                    self.depth -= 1;
                }
                self.line("}");
            }
            (true, None) => self.line("}"),
        }
    }

    /// Renders a condition, noting the parameters it reads.
    pub(crate) fn cond(&mut self, cond: &Cond) -> String {
        if cond.reads_version() {
            self.reads("version");
        }
        cond.to_string()
    }

    /// Notes that the code reads parameter `name`.
    pub(crate) fn reads(&mut self, name: &'static str) {
        self.reads.insert(name);
    }

    /// `name` if the code reads it, else `_name`.
    pub(crate) fn param(&self, name: &'static str) -> String {
        if self.reads.contains(name) {
            name.to_string()
        } else {
            format!("_{name}")
        }
    }

    /// Appends code written by another writer at the current indentation,
    /// with the parameters it reads.
    pub(crate) fn append(&mut self, other: CodeWriter) {
        for line in other.out.lines() {
            self.line(line);
        }
        self.reads.extend(other.reads);
    }

    /// Writes `#[repr(i16)] pub enum <name>` with one `Variant = id` per
    /// entry `(variant, id)`, each documented as "`Variant` (<what> id).".
    pub(crate) fn id_enum<'v>(
        &mut self,
        name: &str,
        doc: &str,
        what: &str,
        entries: impl IntoIterator<Item = (&'v str, &'v str, i16)>,
    ) {
        self.doc(doc);
        self.line("#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]");
        self.line("#[repr(i16)]");
        self.block(format!("pub enum {name} {{"), |w| {
            for (variant, shown, id) in entries {
                w.doc(&format!("`{shown}` ({what} {id})."));
                w.line(format!("{variant} = {id},"));
            }
        });
        self.blank();
    }

    /// Writes `pub fn <signature>` as a `match self` over `arms`
    /// (`(variant of enum_name, value)`).
    pub(crate) fn match_fn(
        &mut self,
        enum_name: &str,
        doc: &str,
        signature: &str,
        arms: impl IntoIterator<Item = (String, String)>,
    ) {
        self.doc(doc);
        self.block(format!("pub fn {signature} {{"), |w| {
            w.block("match self {", |w| {
                for (variant, value) in arms {
                    w.line(format!("{enum_name}::{variant} => {value},"));
                }
            });
        });
        self.blank();
    }

    /// Appends text verbatim (it must end with a newline).
    pub(crate) fn raw(&mut self, text: &str) {
        self.out.push_str(text);
    }

    /// The source written.
    pub(crate) fn finish(self) -> String {
        self.out
    }

    fn nested(&mut self, body: Body<'_>) {
        let mut inner = CodeWriter::default();
        body(&mut inner);
        self.depth += 1;
        self.append(inner);
        self.depth -= 1;
    }
}
