//! The YAML schema as serde sees it: every key optional, unknown keys denied, values that
//! need checking after parsing kept with their location.

use std::cell::Cell;
use std::collections::BTreeMap;
use std::marker::PhantomData;
use std::path::Path;

use serde::Deserialize;
use serde::de::{self, MapAccess, SeqAccess, Visitor};
use serde_saphyr::Spanned;

use super::{MAX_COMPLETION_PATTERNS, MAX_GLOBS, MAX_LIST_ENTRIES, Notify, Profile, TripAction};
use crate::error::ConfigError;
use crate::names::did_you_mean;

thread_local! {
    /// The limit a bounded list or mapping was refused past while this thread read a
    /// config: serde's own errors carry text only, this carries the fact (for the hint).
    static REFUSED_PAST: Cell<Option<usize>> = const { Cell::new(None) };
}

/// The error of a list or mapping with more than `n` entries.
fn refuse_past<E: de::Error>(n: usize) -> E {
    REFUSED_PAST.with(|r| r.set(Some(n)));
    E::custom(format!("the list has more than {n} entries"))
}

/// A list of at most `N` entries, refused while it is read — before anything is built from
/// it (a 1 MiB file holds 40,000 globs; compiled, they took seconds and gigabytes).
#[derive(Debug)]
pub(crate) struct Bounded<T, const N: usize>(pub Vec<T>);

impl<'de, T: Deserialize<'de>, const N: usize> Deserialize<'de> for Bounded<T, N> {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Entries<T, const N: usize>(PhantomData<T>);
        impl<'de, T: Deserialize<'de>, const N: usize> Visitor<'de> for Entries<T, N> {
            type Value = Bounded<T, N>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(f, "a list of at most {N} entries")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(N));
                while let Some(entry) = seq.next_element()? {
                    if out.len() == N {
                        return Err(refuse_past(N));
                    }
                    out.push(entry);
                }
                Ok(Bounded(out))
            }
        }
        d.deserialize_seq(Entries(PhantomData))
    }
}

/// A mapping of at most `N` entries, refused while it is read.
#[derive(Debug)]
pub(crate) struct BoundedMap<V, const N: usize>(pub BTreeMap<String, V>);

impl<'de, V: Deserialize<'de>, const N: usize> Deserialize<'de> for BoundedMap<V, N> {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Entries<V, const N: usize>(PhantomData<V>);
        impl<'de, V: Deserialize<'de>, const N: usize> Visitor<'de> for Entries<V, N> {
            type Value = BoundedMap<V, N>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(f, "a mapping of at most {N} entries")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut out = BTreeMap::new();
                while let Some((k, v)) = map.next_entry()? {
                    if out.len() == N {
                        return Err(refuse_past(N));
                    }
                    out.insert(k, v);
                }
                Ok(BoundedMap(out))
            }
        }
        d.deserialize_map(Entries(PhantomData))
    }
}

/// A list of globs.
pub(crate) type Globs = Bounded<Spanned<String>, MAX_GLOBS>;
/// A list of names.
pub(super) type List<T> = Bounded<T, MAX_LIST_ENTRIES>;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawConfig {
    pub profile: Option<Profile>,
    pub window: Option<Spanned<u32>>,
    pub rules: Option<crate::rules::RawRules>,
    pub agents: Option<Globs>,
    pub paths: Option<RawPaths>,
    pub completion_patterns: Option<Bounded<Spanned<String>, MAX_COMPLETION_PATTERNS>>,
    pub on_trip: Option<RawOnTrip>,
    pub escalation: Option<RawEscalation>,
    pub webhook: Option<RawWebhook>,
    pub github: Option<RawGitHub>,
    pub report: Option<RawReport>,
    pub session: Option<super::session::RawSession>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawPaths {
    pub tests: Option<Globs>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawOnTrip {
    pub action: Option<TripAction>,
    pub notify: Option<List<Notify>>,
    pub cooldown: Option<Spanned<String>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawEscalation {
    pub models: Option<List<Spanned<String>>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawWebhook {
    pub url: Option<Spanned<String>>,
    pub timeout: Option<Spanned<String>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawGitHub {
    pub label: Option<String>,
    pub issue_label: Option<String>,
    pub dashboard_title: Option<Spanned<String>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawReport {
    pub dir: Option<String>,
    pub issues_file: Option<String>,
}

impl<'de> Deserialize<'de> for Profile {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(de::Error::custom)
    }
}

/// Parses YAML text into the raw schema; errors name file, line, column and key path.
pub(super) fn parse(text: &str, path: &Path) -> Result<RawConfig, ConfigError> {
    // An empty file or one with only comments is an empty mapping, not an error.
    if text
        .lines()
        .all(|l| l.trim().is_empty() || l.trim_start().starts_with('#') || l.trim() == "---")
    {
        return Ok(empty());
    }
    let mut key_path = String::new();
    REFUSED_PAST.with(|r| r.set(None));
    let result = serde_saphyr::with_deserializer_from_str(text, |de| {
        serde_path_to_error::deserialize::<_, Option<RawConfig>>(de).map_err(|e| {
            key_path = e.path().to_string();
            e.into_inner()
        })
    });
    match result {
        Ok(Some(raw)) => Ok(raw),
        Ok(None) => Ok(empty()),
        Err(e) => {
            let (line, column) = e
                .location()
                .map_or((0, 0), |l| (l.line() as u32, l.column() as u32));
            // `Spanned` values show up as a `.value` step in the path.
            let key_path = key_path
                .strip_suffix(".value")
                .unwrap_or(&key_path)
                .replace(".value.", ".");
            let key = if key_path.is_empty() || key_path == "." || key_path == "?" {
                "(top level)".to_owned()
            } else {
                key_path
            };
            let (problem, hint) = match REFUSED_PAST.with(Cell::take) {
                Some(n) => (
                    format!("the list has more than {n} entries"),
                    Some(format!(
                        "loopguard reads at most {n} (docs/contract.md, \"Limits\"): use fewer, broader patterns"
                    )),
                ),
                None => explain(e.without_snippet(), &key),
            };
            Err(ConfigError::Key {
                path: path.to_owned(),
                line,
                column,
                key,
                problem,
                hint,
            })
        }
    }
}

/// What a YAML error says, without its location (the error names it), and how to fix it.
/// (serde-saphyr's error is `non_exhaustive`: the ones with a hint are picked out, every
/// other gets its own message.)
fn explain(e: &serde_saphyr::Error, key: &str) -> (String, Option<String>) {
    use serde_saphyr::{DefaultMessageFormatter, Error as E, MessageFormatter};
    if let E::SerdeUnknownField {
        field, expected, ..
    } = e
    {
        let hint = match did_you_mean(field, expected) {
            Some(near) => format!("did you mean `{near}`? (README.md lists every key)"),
            None => "remove the key or fix its spelling (README.md lists every key)".to_owned(),
        };
        return (
            format!(
                "unknown field `{field}`, expected one of {}",
                expected.join(", ")
            ),
            Some(hint),
        );
    }
    if let E::SerdeUnknownVariant {
        variant, expected, ..
    } = e
    {
        let hint = did_you_mean(variant, expected)
            .map(|near| format!("did you mean `{near}`?"))
            .unwrap_or_else(|| format!("write one of {}", expected.join(", ")));
        return (
            format!(
                "unknown value `{variant}`, expected one of {}",
                expected.join(", ")
            ),
            Some(hint),
        );
    }
    if let E::InvalidScalar {
        ty: ty @ ("u32" | "u64"),
        ..
    } = e
    {
        return (
            format!("invalid {ty}: expected a whole number, e.g. 3"),
            Some(format!(
                "write a whole number in digits, e.g. `{}: 10`",
                last(key)
            )),
        );
    }
    if let E::Unexpected {
        expected: "string scalar",
        ..
    } = e
    {
        // `window: [`: a list or a mapping where one value goes (and, unclosed, never
        // read as far as its syntax error).
        return (
            "expected one value, found the start of a list or a mapping".to_owned(),
            Some(format!(
                "`[` and `{{` open a list and a mapping, and `{}` takes one value: write it alone (quote text that starts with them)",
                last(key)
            )),
        );
    }
    if let E::DuplicateMappingKey { key, .. } = e {
        let problem = match key {
            Some(k) => format!("duplicate mapping key: {k}"),
            None => "duplicate mapping key".to_owned(),
        };
        return (problem, Some("keep one of them".to_owned()));
    }
    let message = DefaultMessageFormatter.format_message(e);
    (message.lines().next().unwrap_or_default().to_owned(), None)
}

/// The last step of a key path (`max_iterations` of `rules.budget.max_iterations`).
fn last(key: &str) -> &str {
    key.rsplit('.').next().unwrap_or(key)
}

fn empty() -> RawConfig {
    RawConfig {
        profile: None,
        window: None,
        rules: None,
        agents: None,
        paths: None,
        completion_patterns: None,
        on_trip: None,
        escalation: None,
        webhook: None,
        github: None,
        report: None,
        session: None,
    }
}
