//! The status document: one typed value built once from a run (or a judged history), which
//! every renderer consumes: `status` and `report` (text, JSON, markdown), the run report
//! file, the `issues_file` entry, the sticky comment, the stuck-loop issue, the step
//! summary and the action outputs.
//!
//! Decided here, once:
//! - the rule and reason are shown only while the breaker is not closed;
//! - which failure is looping: under `same_error`, the evidence of the streak that tripped;
//!   under `false_completion`, the newest failing evidence; otherwise none;
//! - what each attempt's row says (empty, back to which tree, repeats which patch, …).
//!
//! Renderers: [`text`] (terminals), [`markdown`] (the report, the issues-file entry),
//! [`github`] (comment, issue, summary, outputs), [`html`] (`report --html`); [`picture`]
//! draws the run for all of them. All text that came from outside (commit
//! subjects, reasons quoting them, log lines) is passed through [`crate::sanitize`] by the
//! renderer that knows where it goes.

pub mod github;
pub mod html;
pub mod markdown;
pub mod next;
pub mod picture;
pub mod session;
pub mod text;

pub use next::{NearWarning, Next, RunKind, WayOut, after_resume, already_resumed, resumed};

use std::collections::BTreeMap;

use serde::Serialize;

use crate::breaker::{Breaker, Event, EventKind, State, TerminalStatus};
use crate::config::{Config, Profile, RuleAction, TripAction, Unit};
use crate::ids::CommitId;
use crate::iteration::{Iteration, TestEvidence};
use crate::rules::{Counter, Evaluation, Facts, LoopingFailure, NearTrip, RuleName};
use crate::run::{Inherited, Judgement, PinnedConfig, Run};

use session::{BranchBreaker, EdgeRow, HookAnswer, SessionLine, SessionRef};

/// The version of every JSON document (this one and [`crate::documents`]). We add fields
/// within a version, never rename or remove them (README, "Versioning").
pub const SCHEMA: u32 = 1;

/// The `schema` field of a document: it serialises as [`SCHEMA`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Schema;

impl Serialize for Schema {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u32(SCHEMA)
    }
}

/// A rule that warned.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Warning {
    pub rule: RuleName,
    pub reason: String,
}

/// Something a rule wants the reader to know.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Note {
    pub rule: RuleName,
    pub text: String,
}

/// How a failing attempt's failure compares with the failure before it (the newest
/// earlier failing test run with a signature).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Failure {
    /// Another failure than the one before it, or the first.
    New,
    /// Exactly the failure before it: the same signature.
    Same,
}

/// One attempt, as the iteration tables and the picture show it: what happened to the code
/// and to the tests, in facts. "Progress" is the rules' word (a new tree, or better tests:
/// see docs/rules.md); a report says what changed instead, so a new tree that fails exactly
/// as before reads "new code, same failure", never "progress".
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// 1-based attempt number.
    pub number: usize,
    pub id: CommitId,
    /// The first line of the message (untrusted).
    pub subject: String,
    pub files: usize,
    pub added: u64,
    pub deleted: u64,
    pub test: Option<TestEvidence>,
    /// `empty`, `back to the tree of abc1234`, `repeats abc1234`, `new code`, `same
    /// failure`, …
    pub notes: Vec<String>,
    /// The code changed: a tree not seen in the window, not only whitespace.
    pub new_code: bool,
    /// How its failure compares with the one before (failing with a signature only).
    pub failure: Option<Failure>,
    /// Its tests pass where the test run before them failed.
    pub fixed: bool,
    /// The rules' progress (new code, or better tests): what `stagnation` counts and the
    /// dashboard's "last progress" reads; no table or picture marks it as such.
    pub progress: bool,
    pub violates: bool,
    /// Commit time, when known.
    pub at: Option<jiff::Timestamp>,
}

/// The status document (`status --json`, `check --json`, `replay --json`, `finish
/// --json`, and every other view).
#[derive(Debug, Clone, Serialize)]
pub struct Status {
    pub schema: Schema,
    pub state: State,
    pub terminal_status: Option<TerminalStatus>,
    /// The rule that opened the breaker; `null` while closed.
    pub rule: Option<RuleName>,
    /// The stop reason; `null` while closed.
    pub reason: Option<String>,
    /// Attempts in the run.
    pub iterations: usize,
    /// Every enabled rule's counter.
    pub counters: BTreeMap<RuleName, Counter>,
    pub warnings: Vec<Warning>,
    pub notes: Vec<Note>,
    pub profile: Profile,
    pub run: Option<String>,
    pub branch: Option<String>,
    /// The model in use under `on_trip.action: escalate` (the one a harness hands the
    /// task to: after an escalation, the next model).
    pub next_model: Option<String>,
    /// That model is the last of `escalation.models`: a trip on it pauses.
    #[serde(skip)]
    pub last_model: bool,
    /// Times the breaker opened in this run.
    pub trips: u32,
    /// The failure that loops (see the module docs).
    pub looping_failure: Option<TestEvidence>,
    /// The newest test evidence of the run.
    pub last_test: Option<TestEvidence>,
    /// What closes the breaker or lets the agent try again, while it is open (see
    /// [`WayOut`]); empty otherwise.
    pub ways_out: Vec<WayOut>,
    /// What kind of run this is (a branch, a session, a pull request): the words of "now",
    /// of the ways out and of the warnings (see [`next`]).
    #[serde(skip)]
    pub kind: RunKind,
    /// The rules one step before a trip, while the breaker is closed.
    #[serde(skip)]
    pub near: Vec<NearTrip>,
    /// The config the run is judged by (stored runs only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub config: Option<ConfigInForce>,
    /// The run this one continues (a branch started from one of its commits).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub inherited: Option<Inherited>,
    /// The iteration records (`check`, `replay`, `report`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub history: Option<Vec<Iteration>>,
    /// Every transition, oldest first, warnings included (`check`, `replay`, `report`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub events: Option<Vec<Event>>,
    /// Whether hooks guard this repository (`status`): every hook loopguard needs is
    /// installed. `None` where it does not apply (`check`, `replay`, CI).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub guarded: Option<bool>,
    /// Why the repository is not guarded beyond its hooks (`status`): a worktree whose
    /// hooks are off, refs in a format loopguard cannot read; for people.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub not_guarded: Vec<String>,
    /// The coding agents' sessions on the branch (`status`, when there are any).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sessions: Option<Vec<SessionLine>>,
    /// The session this document is about (`status --session`, `report --session`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session: Option<SessionRef>,
    /// The session's edges: each sub-agent, with its latest reasons.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub edges: Option<Vec<EdgeRow>>,
    /// The breaker of the branch the session works on (`status --session`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub branch_breaker: Option<BranchBreaker>,
    /// What the hooks would have answered (`replay --json` of a recorded session).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub answers: Option<Vec<HookAnswer>>,
    /// What one attempt is (iterations of a branch, a session's tool calls): the words
    /// the text, markdown and HTML count in. The JSON keeps its keys (`iterations`).
    #[serde(skip)]
    pub unit: Unit,
    /// The hooks that do not run loopguard, when `guarded` is false.
    #[serde(skip)]
    pub missing_hooks: Vec<String>,
    /// Some of loopguard's hooks are installed (an older install lacks a newer hook).
    #[serde(skip)]
    pub some_hooks: bool,
    /// What a trip does (`on_trip.action`).
    #[serde(skip)]
    pub action: TripAction,
    /// `on_trip.cooldown`.
    #[serde(skip)]
    pub cooldown: Option<jiff::SignedDuration>,
    /// The configured action of every rule with a counter.
    #[serde(skip)]
    pub actions: BTreeMap<RuleName, RuleAction>,
    /// The run was aborted for good.
    #[serde(skip)]
    pub aborted: bool,
    /// The attempts, oldest first.
    #[serde(skip)]
    pub rows: Vec<Row>,
    /// Breaker transitions, oldest first (warnings left out).
    #[serde(skip)]
    pub transitions: Vec<Event>,
}

/// Which config a run is judged by: its digest (`null`: no file, the defaults), the commit
/// it was read from, and how it came to be in force (`init`, `accepted`, `reset`,
/// `inherited`, `repository`, `committed`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ConfigInForce {
    pub sha256: Option<String>,
    pub commit: Option<CommitId>,
    pub source: &'static str,
}

impl ConfigInForce {
    pub fn of(pin: &PinnedConfig) -> ConfigInForce {
        ConfigInForce {
            sha256: pin.sha256.clone(),
            commit: pin.commit.clone(),
            source: pin.source.as_str(),
        }
    }
}

/// What a status is built from.
pub struct Source<'a> {
    pub config: &'a Config,
    pub history: &'a [Iteration],
    /// The facts of the attempts in `history` (see [`crate::rules::attempts`]).
    pub facts: &'a [Facts],
    /// Attempts before the first of `history` (those a compacted run dropped): the rows
    /// are numbered after them.
    pub attempts_before: usize,
    pub breaker: &'a Breaker,
    pub evaluation: &'a Evaluation,
    pub events: &'a [Event],
    pub run: Option<&'a str>,
    pub branch: Option<&'a str>,
    pub kind: RunKind,
}

impl Status {
    /// The document of a stored run, with the events of its log: the branch's log holds
    /// the runs before a reset too, and only this run's own are its story.
    pub fn of_run(config: &Config, run: &Run, events: &[Event]) -> Status {
        let evaluation = run.evaluate(config);
        let facts = run.facts_now(config);
        let own: Vec<Event> = events.iter().filter(|e| e.run == run.id).cloned().collect();
        let mut s = Status::build(&Source {
            config,
            history: run.iterations(),
            facts: facts.all(),
            attempts_before: run.compacted().map_or(0, |c| c.earlier.attempts as usize),
            breaker: run.breaker(),
            evaluation: &evaluation,
            events: &own,
            run: Some(&run.id),
            branch: run.branch.as_deref(),
            kind: RunKind::of(run),
        });
        s.config = run.pinned_config.as_ref().map(ConfigInForce::of);
        s.inherited = run.inherited.clone();
        s.near = near(config, run, facts.all(), &evaluation);
        s.edges = (!run.usage.edges.is_empty()).then(|| EdgeRow::of(run));
        s
    }

    /// The document of a judged history (`check`, `replay`, `ci`).
    pub fn of_judgement(config: &Config, j: &Judgement) -> Status {
        let facts = j.run.facts_now(config);
        let mut s = Status::build(&Source {
            config,
            history: j.run.iterations(),
            facts: facts.all(),
            attempts_before: 0,
            breaker: j.run.breaker(),
            evaluation: &j.evaluation,
            events: &j.events,
            run: None,
            branch: None,
            kind: RunKind::Branch,
        });
        s.near = near(config, &j.run, facts.all(), &j.evaluation);
        s
    }

    /// The same document about a pull request judged in CI, whose maintainers remove
    /// `label` to resume: its ways out and its words are CI's.
    pub fn in_pull_request(mut self, label: &str) -> Status {
        self.kind = RunKind::PullRequest {
            label: label.to_owned(),
        };
        self.ways_out = WayOut::of(
            self.state,
            self.rule,
            self.action,
            self.aborted,
            self.cooldown.is_some(),
            &self.kind,
        );
        self
    }

    pub fn build(s: &Source<'_>) -> Status {
        let b = s.breaker;
        let open = b.state() != State::Closed;
        let facts = s.facts;
        let rule = b.rule().filter(|_| open);
        Status {
            schema: Schema,
            state: b.state(),
            terminal_status: b.terminal_status(),
            rule,
            reason: b.reason().filter(|_| open).map(str::to_owned),
            iterations: s.evaluation.attempts,
            counters: s.evaluation.counters.clone(),
            warnings: s
                .evaluation
                .warnings()
                .map(|w| Warning {
                    rule: w.rule,
                    reason: w.reason.clone(),
                })
                .collect(),
            notes: s
                .evaluation
                .notes
                .iter()
                .map(|(rule, text)| Note {
                    rule: *rule,
                    text: text.clone(),
                })
                .collect(),
            profile: s.config.profile,
            run: s.run.map(str::to_owned),
            branch: s.branch.map(str::to_owned),
            next_model: (s.config.on_trip.action == TripAction::Escalate)
                .then(|| s.config.escalation_models.get(b.model()).cloned())
                .flatten(),
            last_model: s.config.on_trip.action == TripAction::Escalate
                && b.on_last_model(&s.config.escalation_models),
            trips: b.trips(),
            looping_failure: rule.and_then(|r| looping_failure(r, s.history, facts)),
            last_test: s.history.iter().rev().find_map(|it| it.test.clone()),
            ways_out: WayOut::of(
                b.state(),
                b.rule(),
                s.config.on_trip.action,
                b.is_aborted(),
                s.config.on_trip.cooldown.is_some(),
                &s.kind,
            ),
            kind: s.kind.clone(),
            near: Vec::new(),
            config: None,
            inherited: None,
            history: None,
            events: None,
            guarded: None,
            not_guarded: Vec::new(),
            sessions: None,
            session: None,
            edges: None,
            branch_breaker: None,
            answers: None,
            unit: s.config.unit,
            missing_hooks: Vec::new(),
            some_hooks: false,
            action: s.config.on_trip.action,
            cooldown: s.config.on_trip.cooldown,
            actions: s
                .evaluation
                .counters
                .keys()
                .map(|r| (*r, r.action(s.config)))
                .collect(),
            aborted: b.is_aborted(),
            rows: rows(s.history, facts, s.attempts_before),
            transitions: s
                .events
                .iter()
                .filter(|e| !matches!(e.kind, EventKind::Warn | EventKind::ConfigIgnored))
                .cloned()
                .collect(),
        }
    }

    /// The same document saying whether hooks guard the repository: `missing` names the
    /// hooks that do not run loopguard (none: guarded); `some` says whether any does.
    pub fn with_guard(mut self, missing: Vec<String>, some: bool) -> Status {
        self.guarded = Some(missing.is_empty());
        self.missing_hooks = missing;
        self.some_hooks = some;
        self
    }

    /// The same document with more reasons it is not guarded (`reasons`, for people; none:
    /// nothing more to say).
    pub fn with_not_guarded(mut self, reasons: Vec<String>) -> Status {
        if !reasons.is_empty() {
            self.guarded = Some(false);
        }
        self.not_guarded = reasons;
        self
    }

    /// The same document with the iteration records (`check --json`, `replay --json`).
    pub fn with_history(mut self, history: &[Iteration]) -> Status {
        self.history = Some(history.to_vec());
        self
    }

    /// The same document with every event along the way (`check --json`, `replay
    /// --json`, `report --json`): what the guard did, not only where it ended.
    pub fn with_events(mut self, events: &[Event]) -> Status {
        self.events = Some(events.to_vec());
        self
    }

    /// The same document listing the branch's sessions (`status`; none: left out).
    pub fn with_sessions(mut self, sessions: Vec<SessionLine>) -> Status {
        self.sessions = (!sessions.is_empty()).then_some(sessions);
        self
    }

    /// The same document about the session of `run`, with its edges (`status --session`,
    /// `report --session`, `replay` of a transcript).
    pub fn with_session(mut self, run: &Run) -> Status {
        self.session = Some(SessionRef::of(run));
        self.edges = Some(EdgeRow::of(run));
        self
    }

    /// The same document with the breaker of the branch the session works on.
    pub fn with_branch_breaker(mut self, b: BranchBreaker) -> Status {
        self.branch_breaker = Some(b);
        self
    }

    /// The same document with what the hooks would have answered (`replay`).
    pub fn with_answers(mut self, answers: Vec<HookAnswer>) -> Status {
        self.answers = Some(answers);
        self
    }

    /// The JSON document.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::to_value(self).expect("the status serialises")
    }

    /// Whether the last transition handed out a new model.
    pub fn escalated(&self) -> bool {
        self.transitions
            .last()
            .is_some_and(|e| e.kind == EventKind::Escalate)
    }

    /// The first trip: where the breaker first opened.
    pub fn first_trip(&self) -> Option<&Event> {
        self.transitions.iter().find(|e| e.kind.opens())
    }

    /// The attempt (its 1-based number) a transition happened at, when it is one of the
    /// rows.
    pub fn attempt_of(&self, e: &Event) -> Option<usize> {
        let id = e.iteration.as_ref()?;
        self.rows.iter().find(|r| &r.id == id).map(|r| r.number)
    }

    /// The reset that ended the run, when one did.
    pub fn reset(&self) -> Option<&Event> {
        self.transitions.iter().find(|e| e.kind == EventKind::Reset)
    }

    /// Where the run stands, in words: its terminal status (`running` while it has none),
    /// and whether a reset ended it.
    pub fn run_status(&self) -> String {
        match (self.terminal_status, self.reset().is_some()) {
            (Some(t), true) => format!("{t}, ended by a reset"),
            (None, true) => "ended by a reset".to_owned(),
            (Some(t), false) => t.to_string(),
            (None, false) => "running".to_owned(),
        }
    }

    /// The newest failing evidence (whatever tripped).
    pub fn last_failure(&self) -> Option<&TestEvidence> {
        self.rows.iter().rev().find_map(|r| {
            r.test
                .as_ref()
                .filter(|t| t.fails() && t.signature.is_some())
        })
    }
}

/// The rules one step before a trip of `run` (`facts` its attempts', `evaluation` its
/// rules'), while its breaker is closed.
pub fn near(config: &Config, run: &Run, facts: &[Facts], evaluation: &Evaluation) -> Vec<NearTrip> {
    if run.breaker().state() != State::Closed {
        return Vec::new();
    }
    crate::rules::near_trips(
        config,
        run.iterations(),
        facts,
        run.breaker().baseline(),
        &run.harness_usage(config),
        evaluation,
    )
}

/// The failure that loops, for the rules a failure trips.
fn looping_failure(rule: RuleName, history: &[Iteration], facts: &[Facts]) -> Option<TestEvidence> {
    let failing = |f: &&Facts| {
        history[f.index]
            .test
            .as_ref()
            .filter(|t| t.fails() && t.signature.is_some())
    };
    match rule.descriptor().looping_failure {
        LoopingFailure::NewestFailing => facts.iter().rev().find_map(|f| failing(&f)).cloned(),
        LoopingFailure::None => None,
    }
}

fn rows(history: &[Iteration], facts: &[Facts], before: usize) -> Vec<Row> {
    let mut last_failure: Option<&crate::ids::Signature> = None;
    let mut last_outcome = None;
    let mut rows = Vec::with_capacity(facts.len());
    for (n, f) in facts.iter().enumerate() {
        let it = &history[f.index];
        let (added, deleted) = it.lines_changed();
        let test = it.test.as_ref();
        let failure = test
            .filter(|t| t.fails())
            .and_then(|t| t.signature.as_ref())
            .map(|sig| {
                let same = last_failure == Some(sig);
                last_failure = Some(sig);
                if same { Failure::Same } else { Failure::New }
            });
        let fixed = test.is_some_and(TestEvidence::passes)
            && last_outcome == Some(crate::iteration::Outcome::Fail);
        if let Some(t) = test {
            last_outcome = Some(t.outcome);
        }
        let mut notes = notes(f, failure, fixed, it.call.is_some());
        if !it.superseded_tests.is_empty() {
            notes.push(format!(
                "{} earlier test run(s) on amended versions",
                it.superseded_tests.len()
            ));
        }
        rows.push(Row {
            number: before + n + 1,
            id: it.id.clone(),
            subject: it.subject().to_owned(),
            files: it.files.as_ref().map_or(0, Vec::len),
            added,
            deleted,
            test: it.test.clone(),
            notes,
            new_code: f.code_changed,
            failure,
            fixed,
            progress: f.progress,
            violates: !f.violations.is_empty(),
            at: it.at,
        });
    }
    rows
}

/// What happened in one attempt, in words: to the code, then to the tests, then what the
/// rules look at besides. A tool call (`call`) that changes no file is no empty change: most
/// calls (a test run, a search) change none.
fn notes(f: &Facts, failure: Option<Failure>, fixed: bool, call: bool) -> Vec<String> {
    let mut n = Vec::new();
    if f.empty && !call {
        n.push("empty".to_owned());
    }
    if f.whitespace_only {
        n.push("whitespace only".to_owned());
    }
    if f.empty_bump {
        n.push("submodule bump that changes nothing".to_owned());
    }
    if let Some(state) = &f.returns_to {
        n.push(format!("back to {state}"));
    }
    if let Some(id) = &f.repeats {
        n.push(format!("repeats {}", id.short()));
    }
    if f.code_changed {
        n.push("new code".to_owned());
    }
    match failure {
        Some(Failure::New) => n.push("new failure".to_owned()),
        Some(Failure::Same) => n.push("same failure".to_owned()),
        None if fixed => n.push("tests fixed".to_owned()),
        None => {}
    }
    if f.claims_done {
        n.push(
            if f.backed_by_pass {
                "claims done (tests pass)"
            } else {
                "claims done"
            }
            .to_owned(),
        );
    }
    if f.test_only {
        n.push("tests only".to_owned());
    }
    if !f.violations.is_empty() {
        n.push("constraint".to_owned());
    }
    n
}

#[cfg(test)]
mod tests;
