//! The rules: one pure function per rule over the window of attempts, each giving a count
//! against its limit and, when the limit is reached, a one-line reason (docs/rules.md).
//!
//! Every rule lives in its own file and is listed once in [`RULES`], keyed by its name.
//! Adding a rule means: its file (the count, the reason, its table tests), a row in
//! [`RULES`] and a [`RuleName`] variant, its config schema (`config/raw.rs`, `config/mod.rs`)
//! and its row in the profile table (`config/profile.rs`). Nothing else.
//!
//! What every rule sees is a [`Window`]: the facts of each attempt (computed once, see
//! [`facts`]), the attempts since the baseline (set by resumes, by a closing breaker and by
//! escalation), the last `window` of those, and what a harness reported. Only attempts
//! count; context commits only add states.

mod budget;
mod constraint;
mod edge_loop;
mod facts;
mod false_completion;
mod oscillation;
mod repeated_patch;
mod same_error;
mod stagnation;
mod test_only;
#[cfg(test)]
mod tests;

use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

pub use facts::{EarlierState, Facts, FactsLog, attempts};

use crate::agents::AgentFilter;
use crate::config::{Config, RuleAction};
use crate::iteration::Iteration;

/// The rule names of the contract. The order is the order a trip reports them in when
/// several fire at once: the most specific first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RuleName {
    Constraint,
    SameError,
    RepeatedPatch,
    Oscillation,
    FalseCompletion,
    Stagnation,
    EdgeLoop,
    TestOnly,
    Budget,
}

/// One rule: its name, where its action is configured, and its count.
pub struct Rule {
    pub name: RuleName,
    /// `rules.<name>.action` of the config.
    pub action: fn(&Config) -> RuleAction,
    pub count: fn(&Window<'_>) -> Count,
}

/// Every rule, most specific first.
pub const RULES: [Rule; 9] = [
    Rule {
        name: RuleName::Constraint,
        action: |c| c.rules.constraint.action,
        count: constraint::count,
    },
    Rule {
        name: RuleName::SameError,
        action: |c| c.rules.same_error.action,
        count: same_error::count,
    },
    Rule {
        name: RuleName::RepeatedPatch,
        action: |c| c.rules.repeated_patch.action,
        count: repeated_patch::count,
    },
    Rule {
        name: RuleName::Oscillation,
        action: |c| c.rules.oscillation.action,
        count: oscillation::count,
    },
    Rule {
        name: RuleName::FalseCompletion,
        action: |c| c.rules.false_completion.action,
        count: false_completion::count,
    },
    Rule {
        name: RuleName::Stagnation,
        action: |c| c.rules.stagnation.action,
        count: stagnation::count,
    },
    Rule {
        name: RuleName::EdgeLoop,
        action: |c| c.rules.edge_loop.action,
        count: edge_loop::count,
    },
    Rule {
        name: RuleName::TestOnly,
        action: |c| c.rules.test_only.action,
        count: test_only::count,
    },
    Rule {
        name: RuleName::Budget,
        action: |c| c.rules.budget.action,
        count: budget::count,
    },
];

impl RuleName {
    pub const ALL: [RuleName; 9] = {
        let mut all = [RuleName::Constraint; 9];
        let mut i = 0;
        while i < RULES.len() {
            all[i] = RULES[i].name;
            i += 1;
        }
        all
    };

    pub fn as_str(self) -> &'static str {
        match self {
            RuleName::Stagnation => "stagnation",
            RuleName::SameError => "same_error",
            RuleName::Oscillation => "oscillation",
            RuleName::RepeatedPatch => "repeated_patch",
            RuleName::FalseCompletion => "false_completion",
            RuleName::TestOnly => "test_only",
            RuleName::Budget => "budget",
            RuleName::Constraint => "constraint",
            RuleName::EdgeLoop => "edge_loop",
        }
    }

    fn rule(self) -> &'static Rule {
        RULES
            .iter()
            .find(|r| r.name == self)
            .expect("every rule name has a row in RULES")
    }

    /// The configured action of this rule.
    pub fn action(self, config: &Config) -> RuleAction {
        (self.rule().action)(config)
    }
}

impl fmt::Display for RuleName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for RuleName {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        RuleName::ALL
            .into_iter()
            .find(|r| r.as_str() == s)
            .ok_or_else(|| format!("unknown rule `{s}`"))
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
}

impl Counter {
    pub fn at_least(count: u64, threshold: u64) -> Counter {
        Counter {
            count,
            limit: Limit::AtLeast(threshold),
        }
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

    /// `3 / 3`, or `2 of 6 (30% once 3)` for a share.
    pub fn describe(self) -> String {
        match self.limit {
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
        }
    }

    pub fn with_note(mut self, note: Option<String>) -> Count {
        self.note = note;
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
    /// Attempts in the run.
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
        let it = &self.history[index];
        let subject: String = it.subject().chars().take(60).collect();
        if subject.is_empty() {
            it.id.short().to_owned()
        } else {
            format!("{} \"{subject}\"", it.id.short())
        }
    }

    pub fn short(&self, index: usize) -> &str {
        self.history[index].id.short()
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
        attempts: all.len(),
        ..Evaluation::default()
    };
    for rule in &RULES {
        let action = (rule.action)(config);
        if action == RuleAction::Off {
            continue;
        }
        let count = (rule.count)(&w);
        eval.counters.insert(rule.name, count.counter);
        if let Some(note) = count.note {
            eval.notes.push((rule.name, note));
        }
        if count.counter.reached() {
            eval.fired.push(Firing {
                rule: rule.name,
                action,
                reason: count.reason,
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
