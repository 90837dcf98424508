//! What comes next, said in one place for every kind of run and every renderer: where an
//! open breaker leaves the agent ("now"), the ways out of it, and the warning one step
//! before a trip.
//!
//! Which ways out there are follows from the tripping rule's descriptor (its
//! [`Recovery`]), `on_trip` and the kind of run ([`RunKind`]: a branch, a coding agent's
//! session, a pull request in CI); the words follow from the kind of run. The text,
//! markdown, HTML and GitHub renderers, the hooks' refusals and the session's answers take
//! their sentences from here and only lay them out: none of them decides by a rule, a
//! harness or a reason's text.

use serde::Serialize;

use super::Status;
use crate::breaker::State;
use crate::config::{Config, TripAction};
use crate::rules::{NearTrip, Recovery, RuleName};
use crate::run::Run;

/// What kind of run a status is about: what its attempts are, what an open breaker stops,
/// and what a person does to let the agent go on.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum RunKind {
    /// A branch: commits through the git hooks, test runs through `loopguard run`.
    #[default]
    Branch,
    /// A coding agent's session: its tool calls, through the harness's hooks.
    Session {
        /// The harness's session id.
        id: String,
    },
    /// A pull request judged by `loopguard ci`: the agent's pushes.
    PullRequest {
        /// The label a maintainer removes to resume (`github.label`).
        label: String,
    },
}

impl RunKind {
    /// The kind of a stored run: a session's when it has session state, else a branch's.
    pub fn of(run: &Run) -> RunKind {
        match &run.session {
            Some(s) => RunKind::Session { id: s.id.clone() },
            None => RunKind::Branch,
        }
    }

    /// One attempt, as "the next … decides" says it.
    fn attempt(&self) -> &'static str {
        match self {
            RunKind::Branch => "attempt",
            RunKind::Session { .. } => "tool call",
            RunKind::PullRequest { .. } => "push",
        }
    }

    /// What an open breaker does to the agent, as a statement (`on_trip.action` other
    /// than `alert`).
    fn refused(&self) -> &'static str {
        match self {
            RunKind::Branch => "commits and pushes are refused",
            RunKind::Session { .. } => "this session's tool calls are refused",
            RunKind::PullRequest { .. } => "this check fails while the breaker is open",
        }
    }

    /// What a trip does to the agent, as a verb phrase.
    fn refuses(&self) -> &'static str {
        match self {
            RunKind::Branch => "refuses commits and pushes",
            RunKind::Session { .. } => "stops this session's tool calls",
            RunKind::PullRequest { .. } => "fails this check",
        }
    }

    /// What a resume lets the agent do again.
    fn again(&self) -> &'static str {
        match self {
            RunKind::Branch => "the agent may commit again",
            RunKind::Session { .. } => "the agent's tool calls go through again",
            RunKind::PullRequest { .. } => "the agent's next push is judged again",
        }
    }

    /// What goes on under `on_trip.action: alert`.
    fn goes_on(&self) -> &'static str {
        match self {
            RunKind::Branch => "commits go on",
            RunKind::Session { .. } => "tool calls go on",
            RunKind::PullRequest { .. } => "the agent goes on, and this check fails",
        }
    }
}

/// A way out of an open breaker: what closes it or lets the agent try again. Which exist
/// depends on the rule that tripped (its [`Recovery`]), on `on_trip`, on whether the run
/// was aborted and on the kind of run; the refusals and the trip message name exactly
/// these, and nothing else.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum WayOut {
    /// New code whose tests pass, or fail differently: `loopguard run -- <tests>` on
    /// changed code (the commit is refused while the breaker blocks; the working tree is
    /// tested), a session's test run where its calls go on, a push in CI.
    TestsChange,
    /// An attempt that really changes the code: a commit where commits go on
    /// (`on_trip.action: alert`), a session's edit where its calls go on, a push in CI.
    NewCommit,
    /// The harness reports progress on its edges (`event --progress`; under `alert`).
    HarnessProgress,
    /// A coding agent's session: the user's next prompt starts a new episode (the breaker
    /// is half-open, the loop counters start again).
    Prompt,
    /// `on_trip.cooldown` passes: the next attempt decides.
    Cooldown,
    /// A person lets the agent try again: `loopguard resume` (in CI, removing the label).
    Resume,
    /// A person starts a new run: `loopguard reset` (in CI, a maintainer takes over).
    Reset,
}

impl WayOut {
    /// The ways out of a breaker in `state` that `rule` opened, for a run of `kind`: what
    /// the agent can do first, then what only a person does.
    pub fn of(
        state: State,
        rule: Option<RuleName>,
        action: TripAction,
        aborted: bool,
        cooldown: bool,
        kind: &RunKind,
    ) -> Vec<WayOut> {
        if aborted {
            return vec![WayOut::Reset];
        }
        let Some(rule) = rule.filter(|_| state == State::Open) else {
            return Vec::new();
        };
        let mut ways: Vec<WayOut> = mends(rule.descriptor().recovery, kind, action)
            .into_iter()
            .collect();
        if matches!(kind, RunKind::Session { .. }) {
            ways.push(WayOut::Prompt);
        }
        if cooldown {
            ways.push(WayOut::Cooldown);
        }
        ways.extend([WayOut::Resume, WayOut::Reset]);
        ways
    }

    /// This way out, in one sentence, in the words of `s`'s kind of run.
    pub fn says(self, s: &Status) -> String {
        let attempt = s.kind.attempt();
        match (self, &s.kind) {
            (WayOut::TestsChange, RunKind::Branch) => "change the code and run the tests with `loopguard run -- <test command>`: a run that passes, or fails differently, closes the breaker (a re-run of the same code does not)".to_owned(),
            (WayOut::TestsChange, RunKind::Session { .. }) => "change the code and run the tests: a run that passes, or fails differently, closes the breaker (a re-run of the same code does not)".to_owned(),
            (WayOut::TestsChange, RunKind::PullRequest { .. }) => "a push of changed code whose tests pass, or fail differently (another failure, fewer failing tests), closes the breaker by itself (a re-run on the same head does not)".to_owned(),
            (WayOut::NewCommit, RunKind::Branch) => "a commit that really changes the code closes the breaker (not a return to an earlier tree or patch, not whitespace alone; test results do not count)".to_owned(),
            (WayOut::NewCommit, RunKind::Session { .. }) => "an edit that really changes the code closes the breaker (not a return to an earlier state or patch, not whitespace alone; test results do not count)".to_owned(),
            (WayOut::NewCommit, RunKind::PullRequest { .. }) => "a push that really changes the code closes the breaker by itself (not a return to an earlier tree or patch, not whitespace alone; test results do not count)".to_owned(),
            (WayOut::HarnessProgress, _) => "the harness reports progress on its edges (`loopguard event --edge NAME --progress`)".to_owned(),
            (WayOut::Prompt, RunKind::Session { .. }) => "the user's next prompt starts a new episode: the loop counters start again and the next tool call decides".to_owned(),
            (WayOut::Prompt, RunKind::Branch | RunKind::PullRequest { .. }) => format!("a person's turn starts a new episode: the loop counters start again and the next {attempt} decides"),
            (WayOut::Cooldown, _) => match s.cooldown {
                Some(c) => format!(
                    "after the cooldown ({}) the next {attempt} decides",
                    crate::config::format_duration(c)
                ),
                None => format!("after the cooldown the next {attempt} decides"),
            },
            (WayOut::Resume, RunKind::Branch) => format!("a person lets the agent try again: `loopguard resume` ({})", s.after_resume(attempt)),
            (WayOut::Resume, RunKind::Session { id }) => format!("a person lets the agent try again: `loopguard resume --session {}` ({})", literal(id, "ID"), s.after_resume(attempt)),
            (WayOut::Resume, RunKind::PullRequest { label }) => format!("a maintainer removes the `{}` label: {}", literal(label, "loopguard"), s.after_resume(attempt)),
            (WayOut::Reset, RunKind::Branch) => "a person starts a new run: `loopguard reset`".to_owned(),
            (WayOut::Reset, RunKind::Session { id }) => format!("a person starts a new run of the session: `loopguard reset --session {}`", literal(id, "ID")),
            (WayOut::Reset, RunKind::PullRequest { .. }) => "a maintainer takes the task over".to_owned(),
        }
    }
}

/// The way out a rule's recovery gives the agent itself, where its attempts can still
/// come: a branch's tests through `loopguard run` (commits are refused, the working tree
/// is not), its commits and harness steps only under `alert`; a session's calls only
/// under `alert`; every push in CI, which refuses none.
fn mends(recovery: Recovery, kind: &RunKind, action: TripAction) -> Option<WayOut> {
    let goes_on = action == TripAction::Alert;
    match (recovery, kind) {
        (Recovery::Person, _) => None,
        (Recovery::TestsChange, RunKind::Branch | RunKind::PullRequest { .. }) => {
            Some(WayOut::TestsChange)
        }
        (Recovery::TestsChange, RunKind::Session { .. }) => goes_on.then_some(WayOut::TestsChange),
        (Recovery::NewCode, RunKind::Branch | RunKind::Session { .. }) => {
            goes_on.then_some(WayOut::NewCommit)
        }
        (Recovery::NewCode, RunKind::PullRequest { .. }) => Some(WayOut::NewCommit),
        (Recovery::HarnessProgress, RunKind::Branch) => goes_on.then_some(WayOut::HarnessProgress),
        // A session's edges are its sub-agents' calls and CI has no harness events: only
        // a person.
        (Recovery::HarnessProgress, RunKind::Session { .. } | RunKind::PullRequest { .. }) => None,
    }
}

/// `text` as loopguard writes it inside a code span, when it is plain (letters, digits,
/// `-_.:/`, at most 100 characters); `fallback` otherwise: it came from outside.
fn literal<'a>(text: &'a str, fallback: &'a str) -> &'a str {
    let plain = !text.is_empty()
        && text.chars().count() <= 100
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_.:/".contains(c));
    if plain { text } else { fallback }
}

/// What decides a half-open breaker tripped by `rule`, in a sentence: the rule's own
/// recovery (`attempt` names an attempt where it is read: "push" in CI, "tool call" in a
/// session). The one wording of it, so that what every surface says the next attempt does
/// is what the breaker does.
pub fn after_resume(rule: Option<RuleName>, attempt: &str) -> String {
    if rule.is_some_and(|r| r.descriptor().recovery == Recovery::TestsChange) {
        format!(
            "the next {attempt} with a test run decides: new code whose tests pass, or fail differently, closes the breaker; the same failure again opens it again"
        )
    } else {
        format!(
            "the next {attempt} decides: progress closes the breaker, another round of the same opens it again"
        )
    }
}

/// What a person reads after resuming a breaker `rule` opened on a run of `kind`: it is
/// half-open, what the agent may do again, and what decides ([`after_resume`]).
pub fn resumed(rule: Option<RuleName>, kind: &RunKind) -> String {
    format!(
        "breaker half-open: {}; {}",
        kind.again(),
        after_resume(rule, kind.attempt())
    )
}

/// What a person reads resuming a breaker that is already half-open.
pub fn already_resumed(rule: Option<RuleName>, kind: &RunKind) -> String {
    format!(
        "breaker already half-open: {}",
        after_resume(rule, kind.attempt())
    )
}

/// What comes next for a run: where the breaker leaves the agent now, and the ways out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Next {
    /// One sentence, without its full stop.
    pub now: String,
    /// One sentence each, in the order of [`Status::ways_out`].
    pub ways: Vec<String>,
}

impl Status {
    /// What decides a half-open breaker, in a sentence ([`after_resume`]).
    pub fn after_resume(&self, attempt: &str) -> String {
        after_resume(self.rule, attempt)
    }

    /// What comes next: where the breaker leaves the agent and the ways out; `None` when
    /// nothing waits (the breaker is closed, or a reset ended the run).
    pub fn next(&self) -> Option<Next> {
        if self.reset().is_some() {
            return None;
        }
        let now = self.now()?;
        Some(Next {
            now,
            ways: self.ways_out.iter().map(|w| w.says(self)).collect(),
        })
    }

    /// Where the breaker leaves the agent, by `on_trip.action` and the kind of run.
    fn now(&self) -> Option<String> {
        let kind = &self.kind;
        if self.aborted {
            return Some(match kind {
                RunKind::PullRequest { .. } => {
                    "the run is aborted (`on_trip.action: abort`): a maintainer takes over"
                        .to_owned()
                }
                RunKind::Branch | RunKind::Session { .. } => {
                    format!("the run is aborted: {}", kind.refused())
                }
            });
        }
        match (self.state, self.action) {
            (State::Open, TripAction::Alert) => Some(format!(
                "on_trip.action is alert: {}, and the breaker stays open",
                kind.goes_on()
            )),
            (State::Open, TripAction::Escalate) if self.rule.is_none_or(|r| r.descriptor().escalates) => {
                Some(format!(
                    "the last model of escalation.models is stuck too: {}",
                    kind.refused()
                ))
            }
            (State::Open, TripAction::Pause | TripAction::Abort | TripAction::Escalate) => {
                Some(match kind {
                    RunKind::PullRequest { .. } => format!("the agent is stuck: {}", kind.refused()),
                    RunKind::Branch | RunKind::Session { .. } => kind.refused().to_owned(),
                })
            }
            (State::HalfOpen, _) => Some(self.after_resume(kind.attempt())),
            // In CI the run that handed the task over says so: the harness reads it.
            (State::Closed, _) if self.escalated() && matches!(kind, RunKind::PullRequest { .. }) => Some(
                "hand the task to the next model (the `next-model` output); it starts with fresh counters. Another trip escalates again, or on the last model stops the agent".to_owned(),
            ),
            (State::Closed, _) => None,
        }
    }

    /// The warnings one step before a trip (see [`NearTrip`]), each laid out by
    /// [`NearWarning`]'s caller.
    pub fn near_warnings(&self) -> Vec<NearWarning<'_>> {
        self.near.iter().map(|n| NearWarning::of(n, self)).collect()
    }
}

/// The warning one step before a rule trips, for every surface that shows one (the git
/// hooks, `run`, a session's hooks, CI's comment and summary): what is coming, in the
/// rule's words (untrusted: it may quote a commit or a log), and what one more does here.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NearWarning<'a> {
    pub rule: RuleName,
    /// What repeats, or what is spent (the rule's words; may quote untrusted text).
    pub what: &'a str,
    /// What one more attempt does, by `on_trip` and the kind of run: `opens the breaker
    /// and refuses commits and pushes`, ….
    pub then: String,
}

impl<'a> NearWarning<'a> {
    /// The warning of `n`, in the words of `s`'s kind of run.
    pub fn of(n: &'a NearTrip, s: &Status) -> NearWarning<'a> {
        NearWarning::new(n, &s.kind, s.action, s.last_model)
    }

    /// The warning of `n` about a stored run, judged by `config` (the commit hooks, a
    /// session's hooks: no status is built there).
    pub fn in_run(n: &'a NearTrip, config: &Config, run: &Run) -> NearWarning<'a> {
        let action = config.on_trip.action;
        let last_model = action == TripAction::Escalate
            && run.breaker().on_last_model(&config.escalation_models);
        NearWarning::new(n, &RunKind::of(run), action, last_model)
    }

    /// The warning of `n` for a run of `kind` whose trips do `action` (`last_model`: the
    /// model in use is the last of `escalation.models`).
    pub fn new(
        n: &'a NearTrip,
        kind: &RunKind,
        action: TripAction,
        last_model: bool,
    ) -> NearWarning<'a> {
        let escalates = n.rule.descriptor().escalates && !last_model;
        let then = match action {
            TripAction::Abort => format!("aborts the run and {} for good", kind.refuses()),
            TripAction::Escalate if escalates => "hands the task to the next model".to_owned(),
            TripAction::Alert => format!(
                "opens the breaker (on_trip.action is alert: {})",
                kind.goes_on()
            ),
            TripAction::Pause | TripAction::Escalate => {
                format!("opens the breaker and {}", kind.refuses())
            }
        };
        NearWarning {
            rule: n.rule,
            what: &n.reason,
            then,
        }
    }

    /// What the warning says: `what; one more …`, with `clean` making the rule's words
    /// safe where they go.
    pub fn says(&self, clean: impl Fn(&str) -> String) -> String {
        format!(
            "{}; one more {} — change approach, or ask the user",
            clean(self.what),
            self.then
        )
    }

    /// The line the agent reads on stderr or in its context: `loopguard: warning (rule):
    /// …`.
    pub fn line(&self, clean: impl Fn(&str) -> String) -> String {
        format!("loopguard: warning ({}): {}", self.rule, self.says(clean))
    }
}
