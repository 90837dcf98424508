//! The rules: one pure function per rule over the window of attempts, each giving a count
//! against its limit and, when the limit is reached, a one-line reason (docs/rules.md).
//!
//! A rule owns its whole life in its own file: a [`Descriptor`] (its name, what it counts,
//! what closes a breaker it opened, whether it escalates, its terminal status, the failure
//! reports name), its settings (the resolved section `rules.<name>`, the YAML schema of
//! that section, how the section is read, the profile defaults) and its count, with its
//! table tests. `rules!` (below) lists every rule once; the enum, the config's `rules`
//! section and its schema are generated from that list, and every `match` over
//! [`RuleName`] is exhaustive (the core denies wildcard arms), so a new rule cannot fall
//! into a default.
//!
//! What every rule sees is a [`Window`]: the facts of each attempt (computed once, see
//! [`facts`]), the attempts since the baseline (set by resumes, by a closing breaker and by
//! escalation), the last `window` of those, and what a harness reported. Only attempts
//! count; context commits only add states.

mod count_rule;
mod earlier;
mod facts;
mod near;
#[cfg(test)]
mod tests;

use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;

use serde::{Deserialize, Serialize};

pub use count_rule::{CountRule, RawCountRule};
pub use earlier::{Earlier, Since, Streak, Stuck};
pub use facts::{EarlierState, Facts, FactsLog, attempts};
pub use near::{NearTrip, near_trips};
pub use same_error::describe_failure;

use crate::breaker::TerminalStatus;
use crate::config::agents::AgentFilter;
use crate::config::{Config, Counted, Profile, RuleAction};
use crate::error::ConfigError;
use crate::iteration::Iteration;

/// Everything the rest of loopguard knows about one rule, declared in the rule's file.
#[derive(Debug)]
pub struct Descriptor {
    /// Its name in every document, and its config section `rules.<name>`.
    pub name: &'static str,
    /// What its counter counts, in a few words (`status` prints it beside the counter).
    pub counts: &'static str,
    /// What closes a breaker it opened, besides a person.
    pub recovery: Recovery,
    /// Whether a trip is handed to the next model under `on_trip.action: escalate`.
    pub escalates: bool,
    /// The run's terminal status while a trip of this rule stops it.
    pub terminal: TerminalStatus,
    /// The failure reports name as the one that loops, while this rule holds the breaker.
    pub looping_failure: LoopingFailure,
    /// What the warning one step before a trip says (see [`near_trips`]).
    pub warns: Warns,
    /// Which attempts a report lists as involved in a trip.
    pub involves: Involves,
    pub count: fn(&Window<'_>) -> Count,
}

/// Which attempts a report lists as involved in a trip of a rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Involves {
    /// The attempts that broke it.
    Violating,
    /// The newest ones, as many as the rule counted.
    Latest,
}

/// What the warning one step before a rule trips says, if there is one: the agent reads it
/// while it can still get out by itself.
#[derive(Debug, Clone, Copy)]
pub enum Warns {
    /// No step before a trip: one attempt is enough (a limit of 1), or the limit is a
    /// share of the window.
    Never,
    /// What repeats: the rule's own reason at a limit one lower (`nearer` lowers the
    /// rule's limits by one in a config).
    Repeats { nearer: fn(&mut Config) },
    /// How much is spent: nothing repeats, an allowance runs out (`spent` words the count,
    /// in the run's unit, against the limit).
    Spends { spent: fn(Counted, u64) -> String },
}

/// Lowers a limit by one, never below 1 (for [`Warns::Repeats`]).
pub(crate) fn one_lower(n: &mut u32) {
    *n = n.saturating_sub(1).max(1);
}

/// What closes a breaker a rule opened, besides a person (`resume`, `reset`, a maintainer
/// in CI) and the cooldown. Only an attempt that comes after the trip is judged: a test
/// result recorded on the commit that tripped is evidence about that commit, never a way
/// out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Recovery {
    /// Nothing but a person: a protected path stays touched, a spent budget stays spent.
    Person,
    /// A new attempt on changed code whose tests pass, or fail differently (another
    /// failure, or fewer failing tests).
    TestsChange,
    /// A new commit that really changes the code: a tree the window has not seen, not
    /// only whitespace, no return to an earlier tree and no earlier patch again. Tests do
    /// not count: the loop was in the code.
    NewCode,
    /// The harness reports progress on its edges (`event --progress`).
    HarnessProgress,
}

/// Which failure the reports name as the loop's while a rule holds the breaker.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LoopingFailure {
    /// The rule is about code or usage, not a failure.
    None,
    /// The newest failing test evidence with a signature.
    NewestFailing,
}

/// The settings of a rule: its resolved section of `.loopguard.yml`.
pub trait RuleSettings: Sized {
    /// The section as the YAML schema reads it (unknown keys denied, locations kept).
    type Raw: for<'de> Deserialize<'de>;
    /// `rules.<name>.action`.
    fn action(&self) -> RuleAction;
    fn set_action(&mut self, action: RuleAction);
    /// The file's keys over `self`; errors name `rules.<name>.<key>`, the line and a hint.
    fn resolve(&self, raw: Self::Raw, name: &str, path: &Path) -> Result<Self, ConfigError>;
}

/// The list of rules, most specific first: the order a trip reports them in when several
/// fire at once. One line per rule: its variant, its module and the type of its settings.
/// The module declares `RULE` (its [`Descriptor`]) and `defaults(Profile)` (its settings
/// under each profile).
macro_rules! rules {
    ($($variant:ident => $module:ident: $settings:ty,)+) => {
        $(pub mod $module;)+

        /// The rule names of the contract, in the order of `rules!`.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum RuleName {
            $($variant,)+
        }

        impl RuleName {
            pub const ALL: &'static [RuleName] = &[$(RuleName::$variant,)+];

            /// Their names, from the descriptors, in the same order.
            pub const NAMES: &'static [&'static str] = &[$($module::RULE.name,)+];

            /// The rule's descriptor, declared in its file.
            pub fn descriptor(self) -> &'static Descriptor {
                match self {
                    $(RuleName::$variant => &$module::RULE,)+
                }
            }
        }

        /// The `rules` section, resolved: one field per rule, named after its module.
        #[derive(Debug, Clone)]
        pub struct Rules {
            $(pub $module: $settings,)+
        }

        impl Rules {
            /// Every rule's defaults under `profile`.
            pub fn for_profile(profile: Profile) -> Rules {
                Rules {
                    $($module: $module::defaults(profile),)+
                }
            }

            /// The configured action of `rule`.
            pub fn action(&self, rule: RuleName) -> RuleAction {
                match rule {
                    $(RuleName::$variant => self.$module.action(),)+
                }
            }

            /// Sets the action of `rule` (tests, and `--profile` overrides).
            pub fn set_action(&mut self, rule: RuleName, action: RuleAction) {
                match rule {
                    $(RuleName::$variant => self.$module.set_action(action),)+
                }
            }

            /// The file's `rules` section over these settings.
            pub(crate) fn resolve(&self, raw: RawRules, path: &Path) -> Result<Rules, ConfigError> {
                Ok(Rules {
                    $($module: match raw.$module {
                        Some(r) => self.$module.resolve(r, RuleName::$variant.as_str(), path)?,
                        None => self.$module.clone(),
                    },)+
                })
            }
        }

        /// The `rules` section as the YAML schema reads it: a mapping from rule names (from
        /// the descriptors) to each rule's own schema.
        #[derive(Debug, Default)]
        pub(crate) struct RawRules {
            $($module: Option<<$settings as RuleSettings>::Raw>,)+
        }

        impl<'de> Deserialize<'de> for RawRules {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct Sections;
                impl<'de> serde::de::Visitor<'de> for Sections {
                    type Value = RawRules;
                    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                        f.write_str("a mapping from rule names to their settings")
                    }
                    fn visit_map<A: serde::de::MapAccess<'de>>(
                        self,
                        mut map: A,
                    ) -> Result<RawRules, A::Error> {
                        use serde::de::Error as _;
                        let mut raw = RawRules::default();
                        while let Some(key) = map.next_key::<String>()? {
                            let Ok(rule) = key.parse::<RuleName>() else {
                                return Err(A::Error::unknown_field(&key, RuleName::NAMES));
                            };
                            let duplicate =
                                || A::Error::custom(format!("duplicate mapping key `{key}`"));
                            match rule {
                                $(RuleName::$variant => {
                                    if raw.$module.is_some() {
                                        return Err(duplicate());
                                    }
                                    raw.$module = Some(map.next_value()?);
                                })+
                            }
                        }
                        Ok(raw)
                    }
                }
                d.deserialize_map(Sections)
            }
        }
    };
}

rules! {
    Constraint => constraint: constraint::ConstraintRule,
    SameError => same_error: CountRule,
    RepeatedPatch => repeated_patch: CountRule,
    Oscillation => oscillation: CountRule,
    FalseCompletion => false_completion: false_completion::FalseCompletionRule,
    Stagnation => stagnation: CountRule,
    EdgeLoop => edge_loop: edge_loop::EdgeLoopRule,
    TestOnly => test_only: test_only::TestOnlyRule,
    Budget => budget: budget::BudgetRule,
}

crate::names::named!(RuleName, "rule");

impl RuleName {
    /// The configured action of this rule.
    pub fn action(self, config: &Config) -> RuleAction {
        config.rules.action(self)
    }
}

/// What a rule's count is measured against.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Limit {
    /// The count reaches this number.
    AtLeast(u64),
    /// The count is at least `ratio` of `of` attempts, once there are `min` of them.
    Share { ratio: f64, of: u64, min: u64 },
}

/// A rule's count against its limit.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Counter {
    pub count: u64,
    pub limit: Limit,
    /// What it counts, when not what its rule's descriptor says (a rule with two counts
    /// shows the one nearer its limit).
    pub counts: Option<&'static str>,
}

impl Counter {
    pub fn at_least(count: u64, threshold: u64) -> Counter {
        Counter::of(count, Limit::AtLeast(threshold))
    }

    pub fn of(count: u64, limit: Limit) -> Counter {
        Counter {
            count,
            limit,
            counts: None,
        }
    }

    /// The same counter, counting `what` (see [`Counter::counts`]).
    pub fn counting(self, what: &'static str) -> Counter {
        Counter {
            counts: Some(what),
            ..self
        }
    }

    /// What it counts, in a few words: its own, or its rule's.
    pub fn what(self, rule: RuleName) -> &'static str {
        self.counts.unwrap_or(rule.descriptor().counts)
    }

    /// Whether the rule fires.
    pub fn reached(self) -> bool {
        self.count > 0
            && match self.limit {
                Limit::AtLeast(t) => self.count >= t,
                Limit::Share { ratio, of, min } => {
                    of >= min && self.count as f64 >= ratio * of as f64
                }
            }
    }

    /// `2 / 3`, `4 (limit 3)` once past its limit, or `2 of 6 (30% once 3)` for a share.
    pub fn describe(self) -> String {
        match self.limit {
            Limit::AtLeast(t) if self.count > t => format!("{} (limit {t})", self.count),
            Limit::AtLeast(t) => format!("{} / {t}", self.count),
            Limit::Share { ratio, of, min } => {
                format!("{} of {of} ({:.0}% once {min})", self.count, ratio * 100.0)
            }
        }
    }
}

impl Serialize for Counter {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        match self.limit {
            Limit::AtLeast(t) => {
                let mut m = s.serialize_map(Some(2))?;
                m.serialize_entry("count", &self.count)?;
                m.serialize_entry("threshold", &t)?;
                m.end()
            }
            Limit::Share { ratio, of, min } => {
                let mut m = s.serialize_map(Some(4))?;
                m.serialize_entry("count", &self.count)?;
                m.serialize_entry("threshold", &ratio)?;
                m.serialize_entry("of", &of)?;
                m.serialize_entry("min_iterations", &min)?;
                m.end()
            }
        }
    }
}

/// What one rule says about a window.
#[derive(Debug, Clone, PartialEq)]
pub struct Count {
    pub counter: Counter,
    /// Why the rule fires; empty unless `counter.reached()`.
    pub reason: String,
    /// Something the reader should know even when the rule does not fire (e.g. that it
    /// cannot judge).
    pub note: Option<String>,
    /// What the rule warns of without counting it (a test taken away with no evidence
    /// either way): a warning, whatever the rule's action, unless it is off.
    pub warning: Option<String>,
}

impl Count {
    /// The count, with its reason built only when the rule fires.
    pub fn new(counter: Counter, reason: impl FnOnce() -> String) -> Count {
        Count {
            counter,
            reason: if counter.reached() {
                reason()
            } else {
                String::new()
            },
            note: None,
            warning: None,
        }
    }

    pub fn with_note(mut self, note: Option<String>) -> Count {
        self.note = note;
        self
    }

    pub fn with_warning(mut self, warning: Option<String>) -> Count {
        self.warning = warning;
        self
    }
}

/// A rule that reached its limit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Firing {
    pub rule: RuleName,
    pub action: RuleAction,
    pub reason: String,
}

/// Everything the rules say about a history.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Evaluation {
    /// Every enabled rule's counter.
    pub counters: BTreeMap<RuleName, Counter>,
    /// Rules at their limit, most specific first (`trip` and `warn` alike).
    pub fired: Vec<Firing>,
    /// What the rules want the reader to know (a rule that cannot judge, ...).
    pub notes: Vec<(RuleName, String)>,
    /// The facts of the latest attempt, if any.
    pub last: Option<Facts>,
    /// Attempts in the run, those a compacted run dropped included.
    pub attempts: usize,
}

impl Evaluation {
    /// The first rule that trips.
    pub fn trip(&self) -> Option<&Firing> {
        self.fired.iter().find(|f| f.action == RuleAction::Trip)
    }

    /// Rules that only warn.
    pub fn warnings(&self) -> impl Iterator<Item = &Firing> {
        self.fired.iter().filter(|f| f.action == RuleAction::Warn)
    }
}

/// What an agent harness reported (`event`): its usage, its steps, and the edge closest
/// to its threshold.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Usage {
    pub tokens: u64,
    pub cost: f64,
    /// Harness steps in the run (`event` calls).
    pub steps: u64,
    /// The edge whose count is closest to its threshold.
    pub edge: Option<EdgeCount>,
    /// The attempts a compacted run no longer keeps, summed up (a session's; see
    /// [`Earlier`]); empty otherwise.
    pub earlier: Earlier,
}

/// An edge's transitions since its last progress, against its threshold.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EdgeCount {
    pub name: String,
    pub count: u64,
    pub threshold: u64,
}

/// What a rule sees.
pub struct Window<'a> {
    pub config: &'a Config,
    pub history: &'a [Iteration],
    /// Every attempt of the run, oldest first.
    pub all: &'a [Facts],
    /// The attempts since the baseline.
    pub since: &'a [Facts],
    /// The last `window` attempts since the baseline.
    pub recent: &'a [Facts],
    pub usage: &'a Usage,
}

impl Window<'_> {
    /// `abc1234 "subject"` of the iteration at `index`, the subject bounded.
    pub fn label(&self, index: usize) -> String {
        label(&self.history[index])
    }

    pub fn short(&self, index: usize) -> &str {
        self.history[index].id.short()
    }

    /// `n` attempts in the run's unit (`3 iterations`, `3 tool calls`): the one place a
    /// reason names what it counts (see [`crate::config::Unit`]).
    pub fn attempts(&self, n: usize) -> Counted {
        self.config.unit.count(n as u64)
    }
}

/// `abc1234 "subject"`: how a reason names an iteration, the subject bounded.
pub fn label(it: &Iteration) -> String {
    let subject: String = it.subject().chars().take(60).collect();
    if subject.is_empty() {
        it.id.short().to_owned()
    } else {
        format!("{} \"{subject}\"", it.id.short())
    }
}

/// Evaluates every enabled rule over `history` with its facts `all` (those of
/// [`attempts`] over a history of which `history` is a prefix holding every attempt in
/// `all`), counting from `baseline`.
pub fn evaluate(
    config: &Config,
    history: &[Iteration],
    all: &[Facts],
    baseline: usize,
    usage: &Usage,
) -> Evaluation {
    let first = all.partition_point(|f| f.index < baseline);
    let since = &all[first..];
    let recent = &since[since.len().saturating_sub(config.window as usize)..];
    let w = Window {
        config,
        history,
        all,
        since,
        recent,
        usage,
    };
    let mut eval = Evaluation {
        last: all.last().cloned(),
        // A compacted run's dropped attempts are attempts of the run too.
        attempts: all.len() + usage.earlier.attempts as usize,
        ..Evaluation::default()
    };
    for &rule in RuleName::ALL {
        let action = config.rules.action(rule);
        if action == RuleAction::Off {
            continue;
        }
        let count = (rule.descriptor().count)(&w);
        eval.counters.insert(rule, count.counter);
        if let Some(note) = count.note {
            eval.notes.push((rule, note));
        }
        if count.counter.reached() {
            eval.fired.push(Firing {
                rule,
                action,
                reason: count.reason,
            });
        }
        if let Some(reason) = count.warning {
            eval.fired.push(Firing {
                rule,
                action: RuleAction::Warn,
                reason,
            });
        }
    }
    eval
}

/// [`evaluate`] over a whole history (who is an agent decided over all of it), with no
/// harness usage.
pub fn evaluate_history(config: &Config, history: &[Iteration], baseline: usize) -> Evaluation {
    let mut log = FactsLog::default();
    log.extend(config, AgentFilter::for_history(config, history), history);
    evaluate(config, history, log.all(), baseline, &Usage::default())
}
