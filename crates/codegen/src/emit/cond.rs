//! Conditions of generated code, simplified while they are built: a test
//! that always holds for the versions in reach disappears, one that never
//! does removes its branch.

use std::fmt;

use crate::model::Versions;

/// A comparison of the `version` parameter with constants.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum VersionTest {
    /// `version >= n`
    AtLeast(i16),
    /// `version < n`
    Below(i16),
    /// `version <= n`
    AtMost(i16),
    /// `version > n`
    Above(i16),
    /// `version == n`
    Is(i16),
    /// `version != n`
    IsNot(i16),
    /// `(lo..=hi).contains(&version)`
    Within(i16, i16),
    /// `!(lo..=hi).contains(&version)`
    Outside(i16, i16),
}

impl VersionTest {
    fn negate(self) -> VersionTest {
        match self {
            VersionTest::AtLeast(n) => VersionTest::Below(n),
            VersionTest::Below(n) => VersionTest::AtLeast(n),
            VersionTest::AtMost(n) => VersionTest::Above(n),
            VersionTest::Above(n) => VersionTest::AtMost(n),
            VersionTest::Is(n) => VersionTest::IsNot(n),
            VersionTest::IsNot(n) => VersionTest::Is(n),
            VersionTest::Within(lo, hi) => VersionTest::Outside(lo, hi),
            VersionTest::Outside(lo, hi) => VersionTest::Within(lo, hi),
        }
    }
}

impl fmt::Display for VersionTest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            VersionTest::AtLeast(n) => write!(f, "version >= {n}"),
            VersionTest::Below(n) => write!(f, "version < {n}"),
            VersionTest::AtMost(n) => write!(f, "version <= {n}"),
            VersionTest::Above(n) => write!(f, "version > {n}"),
            VersionTest::Is(n) => write!(f, "version == {n}"),
            VersionTest::IsNot(n) => write!(f, "version != {n}"),
            VersionTest::Within(lo, hi) => write!(f, "({lo}..={hi}).contains(&version)"),
            VersionTest::Outside(lo, hi) => write!(f, "!({lo}..={hi}).contains(&version)"),
        }
    }
}

/// A boolean condition of generated code.
///
/// Combining conditions simplifies them and may drop operands that cannot
/// change the outcome, so only the last operand of [`Cond::and`] or
/// [`Cond::or`] may have side effects.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Cond {
    /// Known when the code is generated.
    Const(bool),
    /// A test of `version`.
    Version(VersionTest),
    /// The `flexible` local of an encoding or decoding function.
    Flexible {
        /// Written `!flexible`.
        negated: bool,
    },
    /// A run-time test and the way its negation is written.
    Test {
        /// The test, e.g. `self.name.is_empty()`.
        text: String,
        /// Its negation, e.g. `!self.name.is_empty()`.
        negation: String,
    },
    /// Every operand holds (two or more, none constant, none an `All`).
    All(Vec<Cond>),
    /// Some operand holds (two or more, none constant, none an `Any`).
    Any(Vec<Cond>),
}

impl Cond {
    /// `version` lies in `range`, for code only reached at the versions in `known`.
    pub(crate) fn version_in(range: Versions, known: Versions) -> Cond {
        let reach = range.intersect(&known);
        if reach.is_empty() {
            return Cond::Const(false);
        }
        let test = match (reach.lo > known.lo, reach.hi < known.hi) {
            (false, false) => return Cond::Const(true),
            (true, false) => VersionTest::AtLeast(reach.lo),
            (false, true) => VersionTest::AtMost(reach.hi),
            (true, true) if reach.lo == reach.hi => VersionTest::Is(reach.lo),
            (true, true) => VersionTest::Within(reach.lo, reach.hi),
        };
        Cond::Version(test)
    }

    /// A method call or other postfix expression, negated with `!`.
    pub(crate) fn call(expr: impl Into<String>) -> Cond {
        let text = expr.into();
        let negation = format!("!{text}");
        Cond::Test { text, negation }
    }

    /// A run-time test whose negation is written differently.
    pub(crate) fn test(text: impl Into<String>, negation: impl Into<String>) -> Cond {
        Cond::Test {
            text: text.into(),
            negation: negation.into(),
        }
    }

    /// The value, when it is known at generation time.
    pub(crate) fn constant(&self) -> Option<bool> {
        match self {
            Cond::Const(b) => Some(*b),
            _ => None,
        }
    }

    /// Whether the rendered condition reads the `version` parameter.
    pub(crate) fn reads_version(&self) -> bool {
        match self {
            Cond::Version(_) => true,
            Cond::All(all) | Cond::Any(all) => all.iter().any(Cond::reads_version),
            Cond::Const(_) | Cond::Flexible { .. } | Cond::Test { .. } => false,
        }
    }

    /// The negation, pushed down to the tests.
    pub(crate) fn not(self) -> Cond {
        match self {
            Cond::Const(b) => Cond::Const(!b),
            Cond::Version(test) => Cond::Version(test.negate()),
            Cond::Flexible { negated } => Cond::Flexible { negated: !negated },
            Cond::Test { text, negation } => Cond::Test {
                text: negation,
                negation: text,
            },
            Cond::All(all) => all
                .into_iter()
                .map(Cond::not)
                .fold(Cond::Const(false), Cond::or),
            Cond::Any(any) => any
                .into_iter()
                .map(Cond::not)
                .fold(Cond::Const(true), Cond::and),
        }
    }

    /// Both hold (`self` is tested first).
    pub(crate) fn and(self, other: Cond) -> Cond {
        match (self, other) {
            (Cond::Const(false), _) | (_, Cond::Const(false)) => Cond::Const(false),
            (Cond::Const(true), c) | (c, Cond::Const(true)) => c,
            (Cond::All(mut a), Cond::All(b)) => {
                a.extend(b);
                Cond::All(a)
            }
            (Cond::All(mut a), c) => {
                a.push(c);
                Cond::All(a)
            }
            (c, Cond::All(mut b)) => {
                b.insert(0, c);
                Cond::All(b)
            }
            (a, b) => Cond::All(vec![a, b]),
        }
    }

    /// Either holds (`self` is tested first).
    pub(crate) fn or(self, other: Cond) -> Cond {
        match (self, other) {
            (Cond::Const(true), _) | (_, Cond::Const(true)) => Cond::Const(true),
            (Cond::Const(false), c) | (c, Cond::Const(false)) => c,
            (Cond::Any(mut a), Cond::Any(b)) => {
                a.extend(b);
                Cond::Any(a)
            }
            (Cond::Any(mut a), c) => {
                a.push(c);
                Cond::Any(a)
            }
            (c, Cond::Any(mut b)) => {
                b.insert(0, c);
                Cond::Any(b)
            }
            (a, b) => Cond::Any(vec![a, b]),
        }
    }
}

impl fmt::Display for Cond {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Cond::Const(b) => write!(f, "{b}"),
            Cond::Version(test) => write!(f, "{test}"),
            Cond::Flexible { negated: false } => f.write_str("flexible"),
            Cond::Flexible { negated: true } => f.write_str("!flexible"),
            Cond::Test { text, .. } => f.write_str(text),
            Cond::All(all) => {
                for (i, c) in all.iter().enumerate() {
                    if i > 0 {
                        f.write_str(" && ")?;
                    }
                    match c {
                        Cond::Any(_) => write!(f, "({c})")?,
                        _ => write!(f, "{c}")?,
                    }
                }
                Ok(())
            }
            Cond::Any(any) => {
                for (i, c) in any.iter().enumerate() {
                    if i > 0 {
                        f.write_str(" || ")?;
                    }
                    write!(f, "{c}")?;
                }
                Ok(())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(lo: i16, hi: i16) -> Versions {
        Versions { lo, hi }
    }

    #[test]
    fn version_tests_simplify_against_the_versions_in_reach() {
        let known = v(0, 5);
        assert_eq!(Cond::version_in(v(0, i16::MAX), known), Cond::Const(true));
        assert_eq!(Cond::version_in(v(6, i16::MAX), known), Cond::Const(false));
        assert_eq!(Cond::version_in(Versions::NONE, known), Cond::Const(false));
        let render = |range| Cond::version_in(range, known).to_string();
        assert_eq!(render(v(2, i16::MAX)), "version >= 2");
        assert_eq!(render(v(0, 3)), "version <= 3");
        assert_eq!(render(v(3, 3)), "version == 3");
        assert_eq!(render(v(1, 3)), "(1..=3).contains(&version)");
        assert_eq!(
            Cond::version_in(v(2, i16::MAX), known).not().to_string(),
            "version < 2"
        );
    }

    #[test]
    fn combinations_fold_constants_and_negate_without_parentheses() {
        let empty = || Cond::call("self.names.is_empty()");
        let at_least_2 = Cond::Version(VersionTest::AtLeast(2));
        assert_eq!(Cond::Const(true).and(empty()), empty());
        assert_eq!(Cond::Const(false).and(empty()), Cond::Const(false));
        assert_eq!(Cond::Const(false).or(empty()), empty());
        let both = at_least_2.clone().and(empty().not());
        assert_eq!(both.to_string(), "version >= 2 && !self.names.is_empty()");
        assert_eq!(
            both.not().to_string(),
            "version < 2 || self.names.is_empty()"
        );
        let mixed = at_least_2.and(Cond::Flexible { negated: true }.or(empty()));
        assert_eq!(
            mixed.to_string(),
            "version >= 2 && (!flexible || self.names.is_empty())"
        );
        assert!(mixed.reads_version());
        assert_eq!(
            Cond::test("self.port == 0", "self.port != 0")
                .not()
                .to_string(),
            "self.port != 0"
        );
    }
}
