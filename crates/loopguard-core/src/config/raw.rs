//! The YAML schema as serde sees it: every key optional, unknown keys denied, values that
//! need checking after parsing kept with their location.

use std::collections::BTreeMap;
use std::marker::PhantomData;
use std::path::Path;

use serde::Deserialize;
use serde::de::{self, MapAccess, SeqAccess, Visitor};
use serde_saphyr::Spanned;

use super::{MAX_COMPLETION_PATTERNS, MAX_GLOBS, MAX_LIST_ENTRIES, Notify, Profile, TripAction};
use crate::error::Error;

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
                        return Err(de::Error::custom(too_many(N)));
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
                        return Err(de::Error::custom(too_many(N)));
                    }
                    out.insert(k, v);
                }
                Ok(BoundedMap(out))
            }
        }
        d.deserialize_map(Entries(PhantomData))
    }
}

fn too_many(n: usize) -> String {
    format!(
        "the list has more than {n} entries; hint: loopguard reads at most {n} (docs/contract.md, \"Limits\"): use fewer, broader patterns"
    )
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
pub(super) fn parse(text: &str, path: &Path) -> Result<RawConfig, Error> {
    // An empty file or one with only comments is an empty mapping, not an error.
    if text
        .lines()
        .all(|l| l.trim().is_empty() || l.trim_start().starts_with('#') || l.trim() == "---")
    {
        return Ok(empty());
    }
    let mut key_path = String::new();
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
            let message = bare_message(&e.without_snippet().to_string());
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
            Err(Error::Config {
                path: path.to_owned(),
                line,
                column,
                key,
                message: hint_for(&message),
            })
        }
    }
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

/// serde-saphyr prefixes its messages with "error: line N column M: "; we print the
/// location ourselves.
fn bare_message(rendered: &str) -> String {
    let first = rendered.lines().next().unwrap_or(rendered);
    let first = first.strip_prefix("error: ").unwrap_or(first);
    let first = match first.find(": ") {
        Some(i) if first.starts_with("line ") => &first[i + 2..],
        _ => first,
    };
    // ... and sometimes suffixes them with " at line N, column M".
    match first.rfind(" at line ") {
        Some(i) => first[..i].to_owned(),
        None => first.to_owned(),
    }
}

fn hint_for(message: &str) -> String {
    if message.starts_with("unknown field") {
        format!("{message}; hint: remove the key or fix its spelling (README.md lists every key)")
    } else if message.starts_with("invalid u32") || message.starts_with("invalid u64") {
        format!("{message}: expected a whole number, e.g. 3")
    } else if message.starts_with("duplicate mapping key") {
        let m = message.split(", set ").next().unwrap_or(message);
        format!("{m}; hint: keep one of them")
    } else {
        message.to_owned()
    }
}
