//! The principal of a TLS client: a certificate's subject as Java prints it,
//! and Kafka's `ssl.principal.mapping.rules`.
//!
//! Kafka names a TLS client by the RFC 2253 form of its certificate's subject
//! (`X500Principal.getName()`), rewritten by the first matching rule of
//! `ssl.principal.mapping.rules`. Both steps are reproduced here so that ACLs
//! written for a Kafka cluster name the same principals under kraft-rs.
//!
//! Rule patterns are Java regular expressions in Kafka; kraft-rs compiles them
//! with the `regex` crate, which accepts the same syntax for everything but
//! look-around, back-references and possessive quantifiers (a rule using
//! those is refused when parsed). Its `\w`, `\d`, `\s` and case-insensitive
//! matching are Unicode-aware where Java's are ASCII-only by default; the
//! rule grammar itself, `Matcher.matches`, `replaceAll` and the replacement
//! syntax (`$n`, `${name}`, `\x`) follow Java exactly.

use std::fmt;

use regex::{Captures, Regex};
use rustls_pki_types::CertificateDer;

use crate::SecurityError;

/// The configuration key the rules come from (used in errors).
pub const SSL_PRINCIPAL_MAPPING_RULES: &str = "ssl.principal.mapping.rules";

/// Kafka's default rules: the distinguished name unchanged.
pub const DEFAULT_SSL_PRINCIPAL_MAPPING_RULES: &str = "DEFAULT";

/// The principal name Kafka gives a connection without a client certificate.
pub const ANONYMOUS: &str = "ANONYMOUS";

/// Java's `\s`: ASCII white space only.
const WS: &str = r"[ \t\n\x0B\f\r]";
/// Java's `.`: anything but a line terminator.
const DOT: &str = r"[^\n\r\x{85}\x{2028}\x{2029}]";

/// Kafka's rule grammar: `DEFAULT`, `RULE:pattern/replacement/[LU]`, or
/// anything else (an error when parsed, or an empty rule, which is skipped).
fn rule_pattern() -> String {
    format!(r"(DEFAULT)|RULE:((\\{DOT}|[^\\/])*)/((\\{DOT}|[^\\/])*)/([LU]?){DOT}*?|({DOT}*?)")
}

/// Compiles one of this module's own fixed patterns.
fn fixed_regex(pattern: &str) -> Result<Regex, SecurityError> {
    Regex::new(pattern)
        .map_err(|e| SecurityError::config(SSL_PRINCIPAL_MAPPING_RULES, e.to_string()))
}

/// One mapping rule.
#[derive(Clone, Debug)]
enum Rule {
    /// `DEFAULT`: the distinguished name as it is.
    Default,
    /// `RULE:pattern/replacement/[LU]`.
    Rule {
        /// The pattern as written (for `Display`).
        source: String,
        /// The pattern, unanchored (for replacing every match).
        pattern: Regex,
        /// The pattern anchored at both ends (Java's `Matcher.matches`).
        whole: Regex,
        /// The replacement, in Java's `Matcher.replaceAll` syntax.
        replacement: String,
        to_lower: bool,
        to_upper: bool,
    },
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Rule::Default => f.write_str("DEFAULT"),
            Rule::Rule {
                source,
                replacement,
                to_lower,
                to_upper,
                ..
            } => {
                write!(f, "RULE:{source}/{replacement}")?;
                if *to_lower {
                    f.write_str("/L")
                } else if *to_upper {
                    f.write_str("/U")
                } else {
                    Ok(())
                }
            }
        }
    }
}

impl Rule {
    fn apply(&self, dn: &str) -> Result<Option<String>, SecurityError> {
        let Rule::Rule {
            pattern,
            whole,
            replacement,
            to_lower,
            to_upper,
            ..
        } = self
        else {
            return Ok(Some(dn.to_string()));
        };
        if !whole.is_match(dn) {
            return Ok(None);
        }
        let groups = pattern.captures_len() - 1;
        let replacement = escape_literal_back_references(replacement, groups);
        let mut result = java_replace_all(pattern, dn, &replacement)?;
        if *to_lower {
            result = result.to_lowercase();
        } else if *to_upper {
            result = result.to_uppercase();
        }
        Ok(Some(result))
    }
}

/// Kafka turns a back reference to a group the pattern does not have into
/// literal text: `$4` with three groups becomes `\$4`; `$123` with twelve
/// groups refers to group 12 followed by "3". Positions are taken from the
/// replacement as written, as Kafka does.
fn escape_literal_back_references(unescaped: &str, groups: usize) -> String {
    if groups == 0 {
        return unescaped.to_string();
    }
    let mut value = unescaped.to_string();
    let bytes = unescaped.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'$' {
            i += 1;
            continue;
        }
        let start = i + 1;
        let mut end = start;
        while end < bytes.len() && bytes[end].is_ascii_digit() {
            end += 1;
        }
        if end == start {
            i += 1;
            continue;
        }
        let digits = &unescaped[start..end];
        i = end;
        if digits.starts_with('0') {
            continue;
        }
        // A number too long to parse is far above any group count.
        let mut index = digits.parse::<u128>().unwrap_or(u128::MAX);
        while index > groups as u128 && index >= 10 {
            index /= 10;
        }
        if index > groups as u128 {
            // `start - 1` is the `$` in the original text; Kafka inserts the
            // backslash at that offset of the text as already modified.
            let at = (start - 1).min(value.len());
            if value.is_char_boundary(at) {
                value.insert(at, '\\');
            }
        }
    }
    value
}

/// Java's `Matcher.replaceAll`: every match replaced, an empty match allowed
/// right after a non-empty one, the replacement in Java's syntax (`$n`,
/// `${name}`, `\x` for a literal x).
fn java_replace_all(
    pattern: &Regex,
    input: &str,
    replacement: &str,
) -> Result<String, SecurityError> {
    let mut out = String::with_capacity(input.len());
    let mut last = 0;
    let mut from = 0;
    while from <= input.len() {
        let Some(caps) = pattern.captures_at(input, from) else {
            break;
        };
        let Some(m) = caps.get(0) else { break };
        out.push_str(&input[last..m.start()]);
        expand_java_replacement(pattern, &caps, replacement, &mut out)?;
        last = m.end();
        from = if m.is_empty() {
            match input[m.end()..].chars().next() {
                Some(c) => m.end() + c.len_utf8(),
                None => break,
            }
        } else {
            m.end()
        };
    }
    out.push_str(&input[last..]);
    Ok(out)
}

fn replacement_error(reason: &str) -> SecurityError {
    SecurityError::config(SSL_PRINCIPAL_MAPPING_RULES, reason.to_string())
}

fn expand_java_replacement(
    pattern: &Regex,
    caps: &Captures<'_>,
    replacement: &str,
    out: &mut String,
) -> Result<(), SecurityError> {
    let groups = pattern.captures_len() - 1;
    let chars: Vec<char> = replacement.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        match chars[i] {
            '\\' => {
                i += 1;
                let Some(c) = chars.get(i) else {
                    return Err(replacement_error("character to be escaped is missing"));
                };
                out.push(*c);
                i += 1;
            }
            '$' => {
                i += 1;
                match chars.get(i) {
                    None => {
                        return Err(replacement_error(
                            "Illegal group reference: group index is missing",
                        ))
                    }
                    Some('{') => {
                        i += 1;
                        let start = i;
                        while i < chars.len() && chars[i].is_ascii_alphanumeric() {
                            i += 1;
                        }
                        if i == start {
                            return Err(replacement_error(
                                "named capturing group has 0 length name",
                            ));
                        }
                        if chars.get(i) != Some(&'}') {
                            return Err(replacement_error(
                                "named capturing group is missing trailing '}'",
                            ));
                        }
                        let name: String = chars[start..i].iter().collect();
                        i += 1;
                        if !pattern.capture_names().any(|n| n == Some(name.as_str())) {
                            return Err(replacement_error(&format!(
                                "No group with name {{{name}}}"
                            )));
                        }
                        if let Some(m) = caps.name(&name) {
                            out.push_str(m.as_str());
                        }
                    }
                    Some(c) => {
                        let Some(first) = c.to_digit(10) else {
                            return Err(replacement_error("Illegal group reference"));
                        };
                        let mut number = first as usize;
                        if number > groups {
                            return Err(replacement_error(&format!("No group {number}")));
                        }
                        i += 1;
                        while let Some(d) = chars.get(i).and_then(|c| c.to_digit(10)) {
                            let next = number * 10 + d as usize;
                            if next > groups {
                                break;
                            }
                            number = next;
                            i += 1;
                        }
                        if let Some(m) = caps.get(number) {
                            out.push_str(m.as_str());
                        }
                    }
                }
            }
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
    Ok(())
}

/// Kafka's `ssl.principal.mapping.rules`: turns a client certificate's
/// distinguished name into a principal name.
///
/// `Display` prints it as Kafka's `toString` does:
/// `SslPrincipalMapper(rules = [RULE:^CN=(.*?),.*$/$1/L, DEFAULT])`.
#[derive(Clone, Debug)]
pub struct SslPrincipalMapper {
    rules: Vec<Rule>,
}

impl Default for SslPrincipalMapper {
    /// The mapper of Kafka's default rules (`DEFAULT`).
    fn default() -> Self {
        SslPrincipalMapper {
            rules: vec![Rule::Default],
        }
    }
}

impl fmt::Display for SslPrincipalMapper {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("SslPrincipalMapper(rules = ")?;
        write_rules(f, &self.rules)?;
        f.write_str(")")
    }
}

fn write_rules(f: &mut impl fmt::Write, rules: &[Rule]) -> fmt::Result {
    f.write_str("[")?;
    for (i, rule) in rules.iter().enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        write!(f, "{rule}")?;
    }
    f.write_str("]")
}

impl SslPrincipalMapper {
    /// Parses `ssl.principal.mapping.rules` (Kafka's syntax:
    /// `RULE:pattern/replacement/[LU]`, `DEFAULT`, comma separated; empty
    /// entries are skipped) with Kafka's errors (`Invalid rule: ...`).
    pub fn from_rules(rules: &str) -> Result<SslPrincipalMapper, SecurityError> {
        let rule_pattern = rule_pattern();
        let splitter = fixed_regex(&format!(r"{WS}*({rule_pattern}){WS}*(,{WS}*|$)"))?;
        let parser = fixed_regex(&format!(r"\A(?:{rule_pattern})"))?;
        let trimmed = rules.trim_matches(|c: char| c <= ' ');
        let mut parsed = Vec::new();
        for caps in splitter.captures_iter(trimmed) {
            let rule = caps.get(1).map_or("", |m| m.as_str());
            parsed.extend(parse_rule(&parser, rule)?);
        }
        Ok(SslPrincipalMapper { rules: parsed })
    }

    /// The principal name for a distinguished name, as Kafka's `getName`:
    /// the result of the first rule that matches, or an error
    /// (`No rules apply to <dn>, rules [...]`) when none does.
    pub fn get_name(&self, distinguished_name: &str) -> Result<String, SecurityError> {
        for rule in &self.rules {
            if let Some(name) = rule.apply(distinguished_name)? {
                return Ok(name);
            }
        }
        let mut rules = String::new();
        // Writing to a String cannot fail.
        let _ = write_rules(&mut rules, &self.rules);
        Err(SecurityError::config(
            SSL_PRINCIPAL_MAPPING_RULES,
            format!("No rules apply to {distinguished_name}, rules {rules}"),
        ))
    }
}

fn parse_rule(parser: &Regex, rule: &str) -> Result<Option<Rule>, SecurityError> {
    let invalid = |reason: String| SecurityError::config(SSL_PRINCIPAL_MAPPING_RULES, reason);
    let Some(caps) = parser.captures(rule) else {
        return Err(invalid(format!("Invalid rule: {rule}")));
    };
    let end = caps.get(0).map_or(0, |m| m.end());
    if end != rule.len() {
        return Err(invalid(format!(
            "Invalid rule: `{rule}`, unmatched substring: `{}`",
            &rule[end..]
        )));
    }
    if caps.get(1).is_some() {
        return Ok(Some(Rule::Default));
    }
    let Some(source) = caps.get(2) else {
        // An empty rule: skipped.
        return Ok(None);
    };
    let source = source.as_str().to_string();
    let replacement = caps.get(4).map_or("", |m| m.as_str()).to_string();
    let case = caps.get(6).map_or("", |m| m.as_str());
    let pattern = Regex::new(&source)
        .map_err(|e| invalid(format!("Invalid rule: `{rule}`, invalid pattern: {e}")))?;
    let whole = Regex::new(&format!(r"\A(?:{source})\z"))
        .map_err(|e| invalid(format!("Invalid rule: `{rule}`, invalid pattern: {e}")))?;
    Ok(Some(Rule::Rule {
        source,
        pattern,
        whole,
        replacement,
        to_lower: case == "L",
        to_upper: case == "U",
    }))
}

/// RFC 2253 keywords Java's `X500Principal.getName()` uses; every other
/// attribute type is printed as its dotted OID.
const KEYWORDS: &[(&str, &str)] = &[
    ("2.5.4.3", "CN"),
    ("2.5.4.6", "C"),
    ("2.5.4.7", "L"),
    ("2.5.4.8", "ST"),
    ("2.5.4.10", "O"),
    ("2.5.4.11", "OU"),
    ("2.5.4.9", "STREET"),
    ("0.9.2342.19200300.100.1.25", "DC"),
    ("0.9.2342.19200300.100.1.1", "UID"),
];

/// ASN.1 universal tags of the string types Java prints as text.
const TAG_UTF8: u32 = 12;
const TAG_PRINTABLE: u32 = 19;
const TAG_T61: u32 = 20;
const TAG_IA5: u32 = 22;
const TAG_GENERAL: u32 = 27;
const TAG_BMP: u32 = 30;

fn subject_error(reason: impl Into<String>) -> SecurityError {
    SecurityError::Tls(format!("Invalid certificate subject: {}", reason.into()))
}

/// The subject of a DER certificate as Java's `X500Principal.getName()`
/// prints it (RFC 2253: `CN=kafka,OU=eng,O=acme,C=US`; keywords
/// CN/C/L/ST/O/OU/DC/UID/STREET, other attributes as dotted `OID=#hex-DER`,
/// RFC 2253 escaping, multi-valued RDNs joined with `+`, most specific RDN
/// first).
pub fn subject_name(cert_der: &[u8]) -> Result<String, SecurityError> {
    use x509_parser::prelude::{FromDer, X509Certificate};
    let (_, cert) = X509Certificate::from_der(cert_der)
        .map_err(|e| SecurityError::Tls(format!("Invalid certificate: {e}")))?;
    let mut rdns = Vec::new();
    for rdn in cert.subject().iter() {
        let mut avas = Vec::new();
        for ava in rdn.iter() {
            avas.push(ava_rfc2253(ava)?);
        }
        rdns.push(avas.join("+"));
    }
    rdns.reverse();
    Ok(rdns.join(","))
}

fn ava_rfc2253(
    ava: &x509_parser::x509::AttributeTypeAndValue<'_>,
) -> Result<String, SecurityError> {
    let oid = ava.attr_type().to_id_string();
    let keyword = KEYWORDS.iter().find(|(o, _)| *o == oid).map(|(_, k)| *k);
    let value = ava.attr_value();
    let tag = value.header.tag().0;
    let text = match (keyword, value.header.class(), tag) {
        (
            Some(_),
            x509_parser::der_parser::asn1_rs::Class::Universal,
            TAG_UTF8 | TAG_PRINTABLE | TAG_T61 | TAG_IA5 | TAG_GENERAL | TAG_BMP,
        ) => Some(decode_string(tag, value.data)?),
        _ => None,
    };
    let mut out = String::new();
    out.push_str(keyword.unwrap_or(&oid));
    out.push('=');
    match text {
        Some(text) => out.push_str(&escape_rfc2253(&text)),
        None => {
            out.push('#');
            let tag_bytes = value
                .header
                .raw_tag()
                .ok_or_else(|| subject_error("attribute value without a tag"))?;
            for b in tag_bytes
                .iter()
                .chain(&der_length(value.data.len()))
                .chain(value.data)
            {
                out.push_str(&format!("{b:02x}"));
            }
        }
    }
    Ok(out)
}

fn der_length(len: usize) -> Vec<u8> {
    if len < 0x80 {
        return vec![len as u8];
    }
    let bytes: Vec<u8> = len
        .to_be_bytes()
        .iter()
        .copied()
        .skip_while(|b| *b == 0)
        .collect();
    let mut out = vec![0x80 | bytes.len() as u8];
    out.extend(bytes);
    out
}

fn decode_string(tag: u32, data: &[u8]) -> Result<String, SecurityError> {
    match tag {
        TAG_UTF8 => {
            String::from_utf8(data.to_vec()).map_err(|_| subject_error("invalid UTF8String"))
        }
        TAG_BMP => {
            let pairs = data.chunks_exact(2);
            if !pairs.remainder().is_empty() {
                return Err(subject_error("invalid BMPString"));
            }
            let units: Vec<u16> = pairs.map(|c| u16::from_be_bytes([c[0], c[1]])).collect();
            String::from_utf16(&units).map_err(|_| subject_error("invalid BMPString"))
        }
        // Java reads the other string types byte by byte (ISO 8859-1).
        _ => Ok(data.iter().map(|b| char::from(*b)).collect()),
    }
}

/// Java's `DerValue.isPrintableStringChar`.
fn is_printable_string_char(c: char) -> bool {
    c.is_ascii_alphanumeric()
        || matches!(
            c,
            ' ' | '\'' | '(' | ')' | '+' | ',' | '-' | '.' | '/' | ':' | '=' | '?'
        )
}

/// RFC 2253 escaping as Java's `AVA.toRFC2253String` does it.
fn escape_rfc2253(value: &str) -> String {
    const ESCAPEES: &str = ",=+<>#;\"\\";
    let mut escaped: Vec<char> = Vec::with_capacity(value.len());
    for c in value.chars() {
        if ESCAPEES.contains(c) {
            escaped.push('\\');
            escaped.push(c);
        } else if c == '\0' && !is_printable_string_char(c) {
            escaped.extend(['\\', '0', '0']);
        } else {
            escaped.push(c);
        }
    }
    let blank = |c: &char| *c == ' ' || *c == '\r';
    let lead = escaped.iter().take_while(|c| blank(c)).count();
    let trail = escaped.len() - escaped.iter().rev().take_while(|c| blank(c)).count();
    let mut out = String::with_capacity(escaped.len() + 2);
    for (i, c) in escaped.iter().enumerate() {
        if i < lead || i >= trail {
            out.push('\\');
        }
        out.push(*c);
    }
    out
}

/// The principal name of a TLS connection as Kafka's
/// `DefaultKafkaPrincipalBuilder` gives it: the mapped subject of the peer's
/// first certificate, or `ANONYMOUS` without one.
pub fn tls_principal_name(
    peer_certificates: Option<&[CertificateDer<'static>]>,
    mapper: &SslPrincipalMapper,
) -> Result<String, SecurityError> {
    match peer_certificates.and_then(|certs| certs.first()) {
        None => Ok(ANONYMOUS.to_string()),
        Some(cert) => {
            let dn = subject_name(cert.as_ref())?;
            mapper.get_name(&dn).map_err(|e| {
                let reason = match e {
                    SecurityError::Config { reason, .. } => reason,
                    other => other.to_string(),
                };
                SecurityError::config(
                    SSL_PRINCIPAL_MAPPING_RULES,
                    format!("Failed to map name for '{dn}' based on SSL principal mapping rules: {reason}"),
                )
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_like_java() {
        assert_eq!(escape_rfc2253("a,b"), "a\\,b");
        assert_eq!(escape_rfc2253(" a "), "\\ a\\ ");
        assert_eq!(escape_rfc2253("#x=y"), "\\#x\\=y");
        assert_eq!(escape_rfc2253("a\0b"), "a\\00b");
    }

    #[test]
    fn literal_back_references() {
        assert_eq!(escape_literal_back_references("$1@$4", 3), "$1@\\$4");
        assert_eq!(escape_literal_back_references("$1", 0), "$1");
        assert_eq!(escape_literal_back_references("$123", 12), "$123");
    }

    #[test]
    fn replace_all_allows_an_empty_match_after_a_match() {
        let re = Regex::new(".*").unwrap();
        assert_eq!(java_replace_all(&re, "abc", "X").unwrap(), "XX");
    }
}
