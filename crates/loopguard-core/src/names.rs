//! Closed sets of names: the runners, the rules, the harnesses. Each is an enum its
//! registry generates (`runners!`, `rules!`, `harnesses!`: one line per member) and each
//! member's name is in its descriptor; [`Named`] says so, and [`named!`] gives the enum
//! its one text form from that: `as_str`, `Display`, `FromStr`, serde as the name. A name
//! that is none of them is an [`UnknownName`], which lists the names and the nearest one
//! when a typo is likely. No list of names is written anywhere else.

use std::fmt;

/// An enum whose members each have a name, listed once by its registry.
pub trait Named: Copy + Eq + 'static {
    /// What one of them is, in an error: `runner`, `rule`, `agent`.
    const WHAT: &'static str;
    /// Every member, in its registry's order.
    const ALL: &'static [Self];
    /// The member's name (its descriptor's).
    fn name(self) -> &'static str;
}

/// The member of `T` named `text`.
pub fn parse<T: Named>(text: &str) -> Result<T, UnknownName> {
    T::ALL
        .iter()
        .copied()
        .find(|m| m.name() == text)
        .ok_or_else(|| UnknownName {
            what: T::WHAT,
            given: text.to_owned(),
            expected: T::ALL.iter().map(|m| m.name()).collect(),
        })
}

/// A name that is none of a set's: `unknown rule "same_eror" (did you mean "same_error"?
/// expected one of constraint, same_error, …)`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownName {
    /// What the set's members are (`rule`).
    pub what: &'static str,
    /// The name given.
    pub given: String,
    /// Every name of the set, in its registry's order.
    pub expected: Vec<&'static str>,
}

impl UnknownName {
    /// The name the given one is likely a misspelling of.
    pub fn nearest(&self) -> Option<&'static str> {
        did_you_mean(&self.given, &self.expected)
    }
}

impl fmt::Display for UnknownName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The given text may come from anywhere: quoted with its escapes, and bounded.
        let given: String = self.given.chars().take(100).collect();
        write!(f, "unknown {} {given:?} (", self.what)?;
        if let Some(near) = self.nearest() {
            write!(f, "did you mean {near:?}? ")?;
        }
        write!(f, "expected one of {})", self.expected.join(", "))
    }
}

impl std::error::Error for UnknownName {}

/// The one of `expected` that `given` is a misspelling of: at most one edit in four
/// characters away (`same_eror`, `threshhold`, `windwo`), the nearest first.
pub fn did_you_mean<'a>(given: &str, expected: &[&'a str]) -> Option<&'a str> {
    let len = given.chars().count();
    let limit = (len / 4).max(1);
    expected
        .iter()
        // At least as many edits as the lengths differ: a long name is compared with none.
        .filter(|e| e.chars().count().abs_diff(len) <= limit)
        .map(|&e| (edits(given, e), e))
        .filter(|&(d, _)| d <= limit)
        .min_by_key(|&(d, _)| d)
        .map(|(_, e)| e)
}

/// The edits (insert, delete, replace, swap two neighbours) that turn `a` into `b`, in
/// three rows of `b`'s length.
fn edits(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    // Row i holds the edits from a[..i] to each b[..j]; a swap looks two rows back.
    let mut before: Vec<usize> = Vec::new();
    let mut up: Vec<usize> = (0..=b.len()).collect();
    for i in 1..=a.len() {
        let mut row = vec![i; b.len() + 1];
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            row[j] = (up[j] + 1).min(row[j - 1] + 1).min(up[j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                row[j] = row[j].min(before[j - 2] + 1);
            }
        }
        before = std::mem::replace(&mut up, row);
    }
    up[b.len()]
}

/// Gives `$ty` — an enum whose registry generated `$ty::ALL` and whose members'
/// descriptors hold their names (`$ty::descriptor(self).name`) — its text form: [`Named`]
/// (an error calls one a `$what`), `as_str`, `Display`, `FromStr` ([`UnknownName`]) and
/// serde as the name.
macro_rules! named {
    ($ty:ident, $what:literal) => {
        impl $crate::names::Named for $ty {
            const WHAT: &'static str = $what;
            const ALL: &'static [Self] = $ty::ALL;
            fn name(self) -> &'static str {
                self.descriptor().name
            }
        }

        impl $ty {
            /// Its name in every document, on the command line and in the config file
            /// (its descriptor's).
            pub fn as_str(self) -> &'static str {
                $crate::names::Named::name(self)
            }
        }

        impl ::std::fmt::Display for $ty {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl ::std::str::FromStr for $ty {
            type Err = $crate::names::UnknownName;
            fn from_str(s: &str) -> Result<Self, Self::Err> {
                $crate::names::parse(s)
            }
        }

        impl ::serde::Serialize for $ty {
            fn serialize<S: ::serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }

        impl<'de> ::serde::Deserialize<'de> for $ty {
            fn deserialize<D: ::serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let s = <String as ::serde::Deserialize>::deserialize(d)?;
                s.parse::<$ty>().map_err(::serde::de::Error::custom)
            }
        }
    };
}

pub(crate) use named;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_typo_is_one_edit_in_four_characters_away() {
        let names = ["same_error", "stagnation", "budget"];
        assert_eq!(did_you_mean("same_eror", &names), Some("same_error"));
        assert_eq!(did_you_mean("stagnaiton", &names), Some("stagnation"));
        assert_eq!(did_you_mean("budget", &names), Some("budget"));
        assert_eq!(did_you_mean("cost", &names), None);
        assert_eq!(did_you_mean("", &names), None);
    }

    #[test]
    fn an_unknown_name_is_quoted_bounded_and_lists_the_set() {
        let e = UnknownName {
            what: "rule",
            given: "same_eror".to_owned(),
            expected: vec!["same_error", "budget"],
        };
        assert_eq!(
            e.to_string(),
            "unknown rule \"same_eror\" (did you mean \"same_error\"? expected one of same_error, budget)"
        );
        let e = UnknownName {
            given: format!("x\n{}", "y".repeat(500)),
            ..e
        };
        let text = e.to_string();
        assert!(text.starts_with("unknown rule \"x\\ny"), "{text}");
        assert!(text.len() < 200, "{text}");
        assert!(!text.contains("did you mean"), "{text}");
    }
}
