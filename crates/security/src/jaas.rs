//! `sasl.jaas.config` values, parsed as Kafka parses them.
//!
//! Kafka reads the value with `java.io.StreamTokenizer` set up for C-style
//! comments, with `-`, `_` and `$` as word characters. The format is
//!
//! ```text
//! <loginModuleClass> <controlFlag> (<optionName>=<optionValue>)*;
//! ```
//!
//! repeated. This module reproduces that tokenizer's rules, including the
//! ones that surprise people:
//!
//! * an unquoted value must start with a letter, `_`, `$` or a character of
//!   U+00A0 and above (`option=3` is rejected: the tokenizer reads a number,
//!   which has no text; write `option="3"`);
//! * quoted values (`"..."` or `'...'`) end at the closing quote or at the end
//!   of the line and know the escapes `\n`, `\t`, `\"`, `\\`, octal `\123`...;
//! * `//` and `/* */` comments are skipped;
//! * every entry ends with `;`.
//!
//! Errors carry Kafka's messages and never an option value: those hold
//! passwords.

use std::collections::BTreeMap;
use std::fmt;

use crate::SecurityError;

/// The configuration key whose value this module parses.
pub const SASL_JAAS_CONFIG: &str = "sasl.jaas.config";

/// Login modules Kafka refuses by default (`JaasUtils.DISALLOWED_LOGIN_MODULES_DEFAULT`):
/// they can be made to load remote code.
pub const DISALLOWED_LOGIN_MODULES: &[&str] = &[
    "com.sun.security.auth.module.JndiLoginModule",
    "com.sun.security.auth.module.LdapLoginModule",
    "com.ibm.security.auth.module.LdapLoginModule",
    "org.eclipse.jetty.jaas.spi.LdapLoginModule",
];

/// Kafka's PLAIN login module class.
pub const PLAIN_LOGIN_MODULE: &str = "org.apache.kafka.common.security.plain.PlainLoginModule";
/// Kafka's SCRAM login module class.
pub const SCRAM_LOGIN_MODULE: &str = "org.apache.kafka.common.security.scram.ScramLoginModule";

/// A JAAS login module control flag (`javax.security.auth.login.AppConfigurationEntry.LoginModuleControlFlag`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ControlFlag {
    /// `required`
    Required,
    /// `requisite`
    Requisite,
    /// `sufficient`
    Sufficient,
    /// `optional`
    Optional,
}

impl ControlFlag {
    /// The flag as written in a JAAS configuration (lower case).
    pub fn name(&self) -> &'static str {
        match self {
            ControlFlag::Required => "required",
            ControlFlag::Requisite => "requisite",
            ControlFlag::Sufficient => "sufficient",
            ControlFlag::Optional => "optional",
        }
    }

    /// Parses a flag, case-insensitively as Kafka does.
    pub fn parse(flag: &str) -> Option<ControlFlag> {
        match flag.to_uppercase().as_str() {
            "REQUIRED" => Some(ControlFlag::Required),
            "REQUISITE" => Some(ControlFlag::Requisite),
            "SUFFICIENT" => Some(ControlFlag::Sufficient),
            "OPTIONAL" => Some(ControlFlag::Optional),
            _ => None,
        }
    }
}

impl fmt::Display for ControlFlag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One login module entry of a JAAS configuration.
///
/// `Debug` shows the option names but not their values (they hold passwords).
#[derive(Clone, PartialEq, Eq)]
pub struct JaasEntry {
    /// The login module class name, e.g. [`PLAIN_LOGIN_MODULE`].
    pub login_module: String,
    /// The control flag.
    pub flag: ControlFlag,
    /// The options; when a name is given twice the last value wins, as in Kafka.
    pub options: BTreeMap<String, String>,
}

impl JaasEntry {
    /// The value of option `name`, if set.
    pub fn option(&self, name: &str) -> Option<&str> {
        self.options.get(name).map(String::as_str)
    }
}

impl fmt::Debug for JaasEntry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        struct Hidden<'a>(&'a BTreeMap<String, String>);
        impl fmt::Debug for Hidden<'_> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.debug_map()
                    .entries(self.0.keys().map(|k| (k, "[hidden]")))
                    .finish()
            }
        }
        f.debug_struct("JaasEntry")
            .field("login_module", &self.login_module)
            .field("flag", &self.flag)
            .field("options", &Hidden(&self.options))
            .finish()
    }
}

fn config_error(reason: impl Into<String>) -> SecurityError {
    SecurityError::config(SASL_JAAS_CONFIG, reason)
}

/// Parses a `sasl.jaas.config` value as Kafka's `JaasConfig` does (quoted and
/// unquoted values, comments, `;` terminators), with Kafka's error messages.
///
/// Errors are [`SecurityError::Config`] with key `sasl.jaas.config`; they
/// never include option values (they hold passwords).
///
/// One difference: where Kafka fails with an `IllegalArgumentException`
/// without a message (the entry starts with something that is not a name,
/// e.g. `; required;`, or the name is `""`), the reason here is
/// `Login module name not specified in JAAS config`.
pub fn parse_jaas_config(value: &str) -> Result<Vec<JaasEntry>, SecurityError> {
    let mut tokenizer = Tokenizer::new(value);
    let mut entries = Vec::new();
    loop {
        let first = tokenizer.next_token();
        if first == Token::Eof {
            break;
        }
        entries.push(parse_entry(&mut tokenizer, first)?);
    }
    if entries.is_empty() {
        return Err(config_error("Login module not specified in JAAS config"));
    }
    Ok(entries)
}

/// Parses a `sasl.jaas.config` value that must hold exactly one login module,
/// as Kafka requires (`JaasContext.load`), and refuses the login modules
/// Kafka refuses by default ([`DISALLOWED_LOGIN_MODULES`]).
pub fn parse_single(value: &str) -> Result<JaasEntry, SecurityError> {
    let mut entries = parse_jaas_config(value)?;
    if entries.len() != 1 {
        return Err(config_error(format!(
            "JAAS config property contains {} login modules, should be 1 module",
            entries.len()
        )));
    }
    let entry = entries.remove(0);
    check_login_module_allowed(&entry.login_module)?;
    Ok(entry)
}

/// Refuses the login modules that Kafka disallows by default, with Kafka's message.
pub fn check_login_module_allowed(login_module: &str) -> Result<(), SecurityError> {
    let name = login_module.trim();
    if DISALLOWED_LOGIN_MODULES.contains(&name) {
        return Err(config_error(format!(
            "{name} is not allowed. The system property 'org.apache.kafka.disallowed.login.modules' \
             is deprecated. Use the org.apache.kafka.allowed.login.modules to allow this module. \
             e.g.,-Dorg.apache.kafka.allowed.login.modules={name}"
        )));
    }
    Ok(())
}

fn parse_entry(tokenizer: &mut Tokenizer, first: Token) -> Result<JaasEntry, SecurityError> {
    let login_module = first.text().map(str::to_owned);
    let flag_token = tokenizer.next_token();
    if flag_token == Token::Eof {
        return Err(config_error(
            "Login module control flag not specified in JAAS config",
        ));
    }
    let flag = match flag_token.text() {
        None => {
            return Err(config_error(
                "Login module control flag is not available in the JAAS config",
            ))
        }
        Some(text) => ControlFlag::parse(text).ok_or_else(|| {
            config_error(format!(
                "Invalid login module control flag '{text}' in JAAS config"
            ))
        })?,
    };
    let mut options = BTreeMap::new();
    let mut token = tokenizer.next_token();
    while token != Token::Eof && token != Token::Ordinary(';' as i32) {
        let key = token.text().map(str::to_owned);
        let missing_value = || {
            config_error(format!(
                "Value not specified for key '{}' in JAAS config",
                key.as_deref().unwrap_or("null")
            ))
        };
        if tokenizer.next_token() != Token::Ordinary('=' as i32) {
            return Err(missing_value());
        }
        let value_token = tokenizer.next_token();
        let value = match value_token.text() {
            Some(v) if value_token != Token::Eof => v.to_owned(),
            _ => return Err(missing_value()),
        };
        // Kafka's options map is a HashMap whose keys are strings; a key token
        // without text (a number, a lone character) becomes the key `null`.
        options.insert(key.clone().unwrap_or_else(|| "null".to_owned()), value);
        token = tokenizer.next_token();
    }
    if token != Token::Ordinary(';' as i32) {
        return Err(config_error(
            "JAAS config entry not terminated by semi-colon",
        ));
    }
    match login_module {
        Some(name) if !name.is_empty() => Ok(JaasEntry {
            login_module: name,
            flag,
            options,
        }),
        _ => Err(config_error(
            "Login module name not specified in JAAS config",
        )),
    }
}

/// A token of `java.io.StreamTokenizer`.
#[derive(Debug, PartialEq)]
enum Token {
    Eof,
    /// A word: its text.
    Word(String),
    /// A number: StreamTokenizer keeps no text for it.
    Number,
    /// A quoted string (the quote character is the token type).
    Quoted(String),
    /// Any other single character (its code, or -1 for a lone `\` at the end).
    Ordinary(i32),
}

impl Token {
    /// StreamTokenizer's `sval`.
    fn text(&self) -> Option<&str> {
        match self {
            Token::Word(s) | Token::Quoted(s) => Some(s),
            _ => None,
        }
    }
}

const CT_WHITESPACE: u8 = 1;
const CT_DIGIT: u8 = 2;
const CT_ALPHA: u8 = 4;
const CT_QUOTE: u8 = 8;
const CT_COMMENT: u8 = 16;
const EOF: i32 = -1;

/// The character classes of Kafka's tokenizer: StreamTokenizer's defaults
/// plus `wordChars('-')`, `wordChars('_')`, `wordChars('$')`.
fn char_type(c: i32) -> u8 {
    if c < 0 {
        return CT_WHITESPACE;
    }
    if c >= 256 {
        return CT_ALPHA;
    }
    let b = c as u8;
    match b {
        0..=b' ' => CT_WHITESPACE,
        b'a'..=b'z' | b'A'..=b'Z' | 160..=255 | b'_' | b'$' => CT_ALPHA,
        b'0'..=b'9' | b'.' => CT_DIGIT,
        b'-' => CT_DIGIT | CT_ALPHA,
        b'"' | b'\'' => CT_QUOTE,
        b'/' => CT_COMMENT,
        _ => 0,
    }
}

/// `java.io.StreamTokenizer` over a string with `slashSlashComments(true)`
/// and `slashStarComments(true)`; end-of-line is not significant.
struct Tokenizer {
    chars: Vec<char>,
    pos: usize,
    /// A character read ahead (StreamTokenizer's `peekc`); `None` means
    /// "read the next one".
    peek: Option<i32>,
}

impl Tokenizer {
    fn new(text: &str) -> Self {
        Tokenizer {
            chars: text.chars().collect(),
            pos: 0,
            peek: None,
        }
    }

    fn read(&mut self) -> i32 {
        match self.chars.get(self.pos) {
            Some(&c) => {
                self.pos += 1;
                c as i32
            }
            None => EOF,
        }
    }

    fn next_token(&mut self) -> Token {
        // Comments restart the scan; a loop instead of StreamTokenizer's recursion.
        loop {
            let mut c = match self.peek.take() {
                Some(c) if c >= 0 => c,
                _ => self.read(),
            };
            if c < 0 {
                return Token::Eof;
            }
            let mut ctype = char_type(c);
            while ctype & CT_WHITESPACE != 0 {
                if c == '\r' as i32 {
                    c = self.read();
                    if c == '\n' as i32 {
                        c = self.read();
                    }
                } else {
                    c = self.read();
                }
                if c < 0 {
                    return Token::Eof;
                }
                ctype = char_type(c);
            }

            if ctype & CT_DIGIT != 0 {
                if c == '-' as i32 {
                    c = self.read();
                    if c != '.' as i32 && !(('0' as i32)..=('9' as i32)).contains(&c) {
                        self.peek = Some(c);
                        return Token::Ordinary('-' as i32);
                    }
                }
                let mut seen_dot = false;
                loop {
                    if c == '.' as i32 && !seen_dot {
                        seen_dot = true;
                    } else if !(('0' as i32)..=('9' as i32)).contains(&c) {
                        break;
                    }
                    c = self.read();
                }
                self.peek = Some(c);
                return Token::Number;
            }

            if ctype & CT_ALPHA != 0 {
                let mut word = String::new();
                loop {
                    push_code(&mut word, c);
                    c = self.read();
                    if char_type(c) & (CT_ALPHA | CT_DIGIT) == 0 || c < 0 {
                        break;
                    }
                }
                self.peek = Some(c);
                return Token::Word(word);
            }

            if ctype & CT_QUOTE != 0 {
                let quote = c;
                let mut text = String::new();
                let mut d = self.read();
                while d >= 0 && d != quote && d != '\n' as i32 && d != '\r' as i32 {
                    if d == '\\' as i32 {
                        c = self.read();
                        let first = c;
                        if (('0' as i32)..=('7' as i32)).contains(&c) {
                            c -= '0' as i32;
                            let mut c2 = self.read();
                            if (('0' as i32)..=('7' as i32)).contains(&c2) {
                                c = (c << 3) + (c2 - '0' as i32);
                                c2 = self.read();
                                if (('0' as i32)..=('7' as i32)).contains(&c2)
                                    && first <= '3' as i32
                                {
                                    c = (c << 3) + (c2 - '0' as i32);
                                    d = self.read();
                                } else {
                                    d = c2;
                                }
                            } else {
                                d = c2;
                            }
                        } else {
                            c = match u8::try_from(c).unwrap_or(0) {
                                b'a' => 0x7,
                                b'b' => 0x8,
                                b'f' => 0xC,
                                b'n' => '\n' as i32,
                                b'r' => '\r' as i32,
                                b't' => '\t' as i32,
                                b'v' => 0xB,
                                _ => c,
                            };
                            d = self.read();
                        }
                    } else {
                        c = d;
                        d = self.read();
                    }
                    push_code(&mut text, c);
                }
                self.peek = if d == quote { None } else { Some(d) };
                return Token::Quoted(text);
            }

            if c == '/' as i32 {
                c = self.read();
                if c == '*' as i32 {
                    let mut prev = 0;
                    loop {
                        c = self.read();
                        if c == '/' as i32 && prev == '*' as i32 {
                            break;
                        }
                        if c == '\r' as i32 {
                            c = self.read();
                            if c == '\n' as i32 {
                                c = self.read();
                            }
                        } else if c == '\n' as i32 {
                            c = self.read();
                        }
                        if c < 0 {
                            return Token::Eof;
                        }
                        prev = c;
                    }
                    continue;
                }
                // `//`, or a lone `/` (itself a comment character): the rest
                // of the line is skipped. As in StreamTokenizer, the character
                // after the `/` is dropped unread, even a line end.
                loop {
                    c = self.read();
                    if c < 0 || c == '\n' as i32 || c == '\r' as i32 {
                        break;
                    }
                }
                self.peek = Some(c);
                continue;
            }

            if ctype & CT_COMMENT != 0 {
                // Only `/` is a comment character, handled above.
                continue;
            }

            return Token::Ordinary(c);
        }
    }
}

/// Appends a character code as Java's `(char) c` would store it.
fn push_code(s: &mut String, c: i32) {
    let c = if c < 0 { 0xFFFF } else { c as u32 };
    s.push(char::from_u32(c).unwrap_or(char::REPLACEMENT_CHARACTER));
}
