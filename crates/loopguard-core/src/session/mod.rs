//! A coding agent's session, judged tool call by tool call: the agent hooks of each
//! harness ([`harness`]: Claude Code, Codex, …; `loopguard agent-hook`), and `replay` of
//! their transcripts, which go through the very same functions.
//!
//! A session is a [`Run`] whose iterations are completed tool calls
//! ([`Iteration::call`]), keyed by the harness's session id. The same rules and breaker
//! judge it, with the session's limits ([`Config::for_sessions`]):
//!
//! - the action is the tool and its normalised input, the outcome the exit status and the
//!   normalised error, or for a test run its failure signature ([`call`]);
//! - an edit moves the session's *tree* (the state of the files it edited, computed from the
//!   edits themselves, [`files`]), so a file returning to earlier content is a return to an
//!   earlier tree (`oscillation`), an edit applied again after it was undone a repeated
//!   patch (`repeated_patch`), and a call that changes no file and brings no new test result
//!   no progress (`stagnation`);
//! - the same failure in a row, however the command is spelled, and the same call with the
//!   same outcome again are `same_error`; an A-B-A-B pattern of calls is `oscillation`;
//! - tool calls, wall time and tokens are the `budget`; each sub-agent is an edge
//!   (`edge_loop`), with the short history of what it did;
//! - a call that would edit loopguard's config, hooks or state, or the harness's own hook
//!   config, or that writes a test skip, is denied before it runs (`constraint`);
//! - at the agent's stop, `false_completion`: a claim of completion while the last test run
//!   after the last edit failed blocks the stop, once.
//!
//! What the model reads — the refusal, the warning one step before a trip, the blocked
//! stop — is written here, once, for every harness (its descriptor renders it).

mod guard;
pub mod provenance;
mod stop;
pub mod transcript;

use std::fmt::Write as _;

use jiff::Timestamp;

use crate::breaker::{Event, EventKind, State};
use crate::config::Config;
use crate::ids::CommitId;
use crate::iteration::{FileChange, FileStatus, Iteration, IterationKind, TestEvidence, ToolCall};
use crate::report::{NearWarning, Status};
use crate::rules::describe_failure;
use crate::run::Run;

pub use crate::agent::{
    LastTest, SessionState, WARNED_KEPT, Warned, call, files, harness, input, protocol,
};
pub use call::{CallInput, Kind};
pub use files::{FileEdit, Files};
pub use guard::protected_reason;
pub use harness::{Descriptor, Harness, HookEvent, Resume, StopBlock};
pub use protocol::{Answer, EventKind as HookKind, Reply};
pub use stop::on_stop;

/// A run for a new session of `harness` with id `id`, on `branch`. It keeps only its
/// latest calls ([`Run::keep_latest`]): the hooks cost the same after 1,000 calls as after
/// 10.
pub fn new_run(harness: Harness, id: &str, branch: Option<String>, now: Timestamp) -> Run {
    let mut run = Run::new(run_id(harness, id), branch, now, None);
    run.session = Some(SessionState::new(harness, id));
    run.keep_latest();
    run
}

/// `session-claude-<id>`: readable, and safe as a file name.
pub fn run_id(harness: Harness, id: &str) -> String {
    let id: String = id
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '.' || c == '_' {
                c
            } else {
                '-'
            }
        })
        .take(80)
        .collect();
    format!("session-{harness}-{id}")
}

/// What one hook did: the answer for the harness and the events for the log.
#[derive(Debug, Clone)]
pub struct Step {
    pub answer: Answer,
    pub events: Vec<Event>,
}

impl Step {
    fn quiet(events: Vec<Event>) -> Step {
        Step {
            answer: Answer::Nothing,
            events,
        }
    }
}

/// The session starts (or resumes): tell the agent when its breaker is open. Where the
/// harness fires its person's prompt hook right after (a resumed session,
/// [`Resume::StartThenPrompt`]) the model reads both in one request, so the start says
/// only what agrees with the prompt's answer: the calls are refused until the user's
/// prompt, which starts a new episode — not "refused, stop calling tools" followed by "a
/// new episode", two orders at once.
pub fn on_start(config: &Config, run: &Run, now: Timestamp) -> Answer {
    let breaker = run.effective_breaker(config, now);
    if !breaker.blocks(config.on_trip.action) {
        return Answer::Nothing;
    }
    let resume = run
        .session
        .as_ref()
        .map(|s| s.harness.descriptor().quirks.resume);
    match resume {
        Some(Resume::StartThenPrompt) if breaker.state() == State::Open => {
            Answer::Context(format!(
                "loopguard: this session's breaker is open{}; its tool calls are refused until the user's next prompt, which starts a new episode.",
                why_open(&breaker, run)
            ))
        }
        Some(Resume::StartThenPrompt | Resume::Unknown) | None => {
            let s = Status::of_run(config, run, &[]);
            Answer::Context(refusal(&s, run, "This session"))
        }
    }
}

/// ` (rule): reason` of an open breaker, as the model reads it.
fn why_open(breaker: &crate::breaker::Breaker, run: &Run) -> String {
    let rule = breaker
        .rule()
        .map_or_else(String::new, |r| format!(" ({r})"));
    let reason = breaker
        .reason()
        .map(|r| format!(": {}", as_printed(r, run)))
        .unwrap_or_default();
    format!("{rule}{reason}")
}

/// A person's prompt: a new episode. The loop counters start again (an open breaker is
/// half-open: the next call decides); the budget keeps counting. `prompt` is its text:
/// when it is the reason of the stop loopguard just blocked, sent back by the harness as
/// a prompt ([`StopBlock::AsPrompt`]), it is loopguard's own words and changes nothing.
pub fn on_prompt(config: &Config, run: &mut Run, prompt: Option<&str>, now: Timestamp) -> Step {
    if let Some(state) = run.session.as_mut()
        && let Some(block) = state.block_prompt.take()
        && prompt.is_some_and(|p| files::digest(p.trim()) == block)
    {
        return Step::quiet(Vec::new());
    }
    let breaker = run.effective_breaker(config, now);
    let was_open = (breaker.state() == State::Open).then(|| why_open(&breaker, run));
    let mut events: Vec<Event> = run.tick(config, now).into_iter().collect();
    match run.new_episode(config, now, Some("the user's prompt".to_owned())) {
        Ok(e) => events.extend(e),
        // Aborted or finished: nothing a prompt changes.
        Err(_) => return Step::quiet(events),
    }
    if let Some(s) = run.session.as_mut() {
        s.near.clear();
    }
    let answer = match was_open {
        Some(why) => {
            let decides = crate::report::after_resume(run.breaker().rule(), "tool call");
            Answer::Context(format!(
                "loopguard: this session's breaker was open{why}. The user's prompt starts a new episode: the breaker is half-open and the loop counters start again; {decides}."
            ))
        }
        None => Answer::Nothing,
    };
    Step { answer, events }
}

/// Before a tool call: deny it while the session's breaker blocks, or when it would edit
/// what guards the session or write a test skip (`constraint`); otherwise say nothing.
/// `root` is the repository's root (tools give absolute paths); `read` reads a file of
/// the working tree as it is now (what a `Write` replaces).
pub fn on_pre_tool(
    config: &Config,
    run: &Run,
    call: &CallInput,
    now: Timestamp,
    root: Option<&str>,
    read: &dyn Fn(&str) -> Option<String>,
) -> Answer {
    let breaker = run.effective_breaker(config, now);
    if breaker.blocks(config.on_trip.action) {
        let mut at_now = run.clone();
        at_now.tick(config, now);
        let s = Status::of_run(config, &at_now, &[]);
        return Answer::Deny(refusal(&s, run, "This tool call"));
    }
    match guard::check(config, call, root, read) {
        Some(why) => Answer::Deny(format!(
            "loopguard refused this tool call (constraint): it {why}. An agent may not switch its guard off or skip tests from inside its session. If the user asked for it, tell them: a person makes this change."
        )),
        None => Answer::Nothing,
    }
}

/// The tool call as an iteration of the session: its action and outcome, its edits (the
/// session's tree before and after), its test result, the test skips it wrote.
pub fn iteration_of(
    run: &mut Run,
    call: &CallInput,
    now: Timestamp,
    tokens: Option<u64>,
) -> Iteration {
    let outcome = call.outcome();
    iteration_with(run, call, &outcome, now, tokens)
}

/// [`iteration_of`] with the call's outcome already read.
fn iteration_with(
    run: &mut Run,
    call: &CallInput,
    outcome: &call::CallOutcome,
    now: Timestamp,
    tokens: Option<u64>,
) -> Iteration {
    let n = run.recorded() + 1;
    let id = CommitId::new(format!("c{n}")).expect("a valid id");
    let edits = call.edits();
    let state = run
        .session
        .as_mut()
        .expect("a session's run: new_run and the hooks' loader give every one its state");
    let before = state.files.tree();
    let mut files = Vec::new();
    let mut patch = crate::patch::patch_id::PatchIdBuilder::default();
    let mut taken = Vec::new();
    for edit in &edits {
        state.files.apply(edit);
        let (removed, added) = edit.lines();
        let mut fh = crate::patch::patch_id::FilePatchHasher::new(
            FileStatus::Modified,
            edit.path().as_bytes(),
            edit.path().as_bytes(),
        );
        for l in &removed {
            fh.removed(l.as_bytes());
        }
        for l in &added {
            fh.added(l.as_bytes());
        }
        patch.push(fh);
        taken.extend(crate::suite::taken_by_edit(
            edit.path(),
            &removed.join("\n"),
            match edit {
                FileEdit::Delete { .. } => None,
                FileEdit::Write { .. } | FileEdit::Replace { .. } => Some(added.join("\n")),
            }
            .as_deref(),
        ));
        files.push(FileChange {
            path: edit.path().to_owned(),
            added: Some(added.len() as u64),
            deleted: Some(removed.len() as u64),
            status: Some(match edit {
                FileEdit::Delete { .. } => FileStatus::Deleted,
                FileEdit::Write { .. } | FileEdit::Replace { .. } => FileStatus::Modified,
            }),
            old_path: None,
            binary: false,
        });
    }
    let after = state.files.tree();
    let mut it = Iteration::new(id);
    it.author = Some(call.agent.clone().unwrap_or_else(|| "agent".to_owned()));
    it.kind = Some(IterationKind::Attempt);
    it.parent_tree = Some(before);
    it.tree = Some(after);
    it.patch_id = if edits.is_empty() {
        None
    } else {
        patch.finish()
    };
    it.files = Some(files);
    it.message = Some(call.summary());
    it.claims_done = Some(false);
    it.at = Some(now);
    let skips = crate::iteration::skips_of(&taken);
    it.skips_added = (!skips.is_empty()).then_some(skips);
    it.tests_taken = Some(taken);
    it.test = outcome.test.clone();
    it.call = Some(ToolCall {
        tool: call.tool.clone(),
        action: files::digest(&call.action()),
        outcome: outcome.digest.clone(),
        failed: outcome.failed,
        agent: call.agent.clone(),
        error: outcome.error.clone(),
        evidence: outcome.evidence.clone(),
        tokens,
        id: call.id.clone(),
    });
    it
}

/// The calls a session's run dropped ([`Run::compact`]), oldest first: read only when a
/// trip says what the loop cost (the hooks' calls log, a replay's memory).
pub type Dropped<'a> = &'a dyn Fn() -> Vec<Iteration>;

/// After a tool call (a success or a failure): record it, and tell the agent when the
/// breaker opened, or when a rule is one step before it would.
pub fn on_post_tool(
    config: &Config,
    run: &mut Run,
    call: &CallInput,
    now: Timestamp,
    tokens: Option<u64>,
    dropped: Dropped<'_>,
) -> Step {
    // A hook that reports the same call twice records it once (looked for among the
    // latest calls, which every run keeps).
    if let Some(id) = &call.id
        && run
            .iterations()
            .iter()
            .rev()
            .take(config.window as usize)
            .any(|it| it.call.as_ref().and_then(|c| c.id.as_ref()) == Some(id))
    {
        return Step::quiet(Vec::new());
    }
    let outcome = call.outcome();
    let it = iteration_with(run, call, &outcome, now, tokens);
    let after = it.id.clone();
    if let Some(state) = run.session.as_mut() {
        state.note_call(&it, outcome.printed);
    }
    run.usage.tokens += tokens.unwrap_or(0);
    if let Some(agent) = &call.agent {
        let edge = run
            .usage
            .edges
            .entry(format!("subagent:{agent}"))
            .or_default();
        edge.count += 1;
        let how = match &it.test {
            Some(t) if t.fails() => format!("tests fail ({})", describe_failure(t)),
            Some(_) => "tests pass".to_owned(),
            None if it.call.as_ref().is_some_and(|c| c.failed) => "failed".to_owned(),
            None => "ok".to_owned(),
        };
        edge.note(&format!("{} -> {how}", it.subject()));
    }
    let outcome = run.record(config, it, now);
    let events = outcome.events;
    if events.iter().any(|e| e.kind.opens()) {
        let s = Status::of_run(config, run, &[]);
        let mut text = refusal(&s, run, "From now on every tool call in this session");
        let calls = all_calls(run, dropped());
        // The looping failure among every call, those a compacted run dropped included (a
        // half-open breaker may wait over many calls for the next test run).
        let whole = status(config, run, &calls, &[]);
        if let Some(cost) = loop_cost(&calls, run.baseline_recorded(), &whole) {
            let _ = write!(text, "\n{cost}");
        }
        if let Some(state) = run.session.as_mut() {
            state.near.clear();
        }
        return Step {
            answer: Answer::Context(text),
            events,
        };
    }
    let near = run.near_trips(config);
    let state = run.session.as_mut().expect("a session's run");
    let fresh: Vec<_> = near
        .iter()
        .filter(|n| !state.near.contains(&n.rule))
        .collect();
    let answer = match fresh.first() {
        Some(n) => {
            if state.warned.len() >= WARNED_KEPT {
                state.warned.remove(0);
            }
            state.warned.push(Warned {
                rule: n.rule,
                after: after.clone(),
            });
            Answer::Context(NearWarning::in_run(n, config, run).line(|r| as_printed(r, run)))
        }
        None => Answer::Nothing,
    };
    let state = run.session.as_mut().expect("a session's run");
    state.near = near.iter().map(|n| n.rule).collect();
    let mut events = events;
    if let Answer::Context(text) = &answer {
        events.push(Event {
            at: now,
            run: run.id.clone(),
            kind: EventKind::Warn,
            from: run.breaker().state(),
            to: run.breaker().state(),
            rule: fresh.first().map(|n| n.rule),
            reason: Some(text.clone()),
            iteration: Some(after),
            terminal_status: None,
        });
    }
    Step { answer, events }
}

/// The session's latest test run, when it failed: the warning's words.
fn failing_test(run: &Run) -> Option<LastTest> {
    latest_test(run).filter(|t| t.test.fails())
}

/// The session's latest test run. Runs an older loopguard wrote know it from their calls.
fn latest_test(run: &Run) -> Option<LastTest> {
    if let Some(t) = run.session.as_ref().and_then(|s| s.last_test.as_ref()) {
        return Some(t.clone());
    }
    let its = run.iterations();
    let tested = its.iter().rposition(|it| it.test.is_some())?;
    let edited = its[tested + 1..]
        .iter()
        .any(|it| it.files.as_ref().is_some_and(|f| !f.is_empty()));
    let it = &its[tested];
    Some(LastTest {
        id: it.id.clone(),
        test: it.test.clone()?,
        edited_after: edited,
        at: it.at,
        suite: it
            .call
            .as_ref()
            .map(|c| c.action.clone())
            .unwrap_or_default(),
        printed: None,
    })
}

/// A failing run as the model reads it: the runner, the first failing test and its
/// failure as printed (else the evidence's normalised line, else the signature).
fn failure_text(t: &LastTest) -> String {
    let test = &t.test;
    match &t.printed {
        Some(printed) => {
            let mut parts = Vec::new();
            if let Some(runner) = &test.runner {
                parts.push(format!("{runner}:"));
            }
            if let Some(first) = test.failures.as_ref().and_then(|f| f.first()) {
                parts.push(format!("{first}:"));
            }
            parts.push(crate::sanitize::printable(printed));
            parts.join(" ")
        }
        None => describe_failure(test),
    }
}

/// A reason as the model reads it: printable, and the session's latest failure in it as
/// the runner printed it instead of normalised (`AssertionError: 3 != 2`, not `<n> != <n>`,
/// which harnesses that show hook text in markup also HTML-escape).
fn as_printed(reason: &str, run: &Run) -> String {
    let reason = match failing_test(run) {
        Some(LastTest {
            printed: Some(printed),
            test:
                TestEvidence {
                    first_error: Some(normalised),
                    ..
                },
            ..
        }) => reason.replace(&normalised, &printed),
        _ => reason.to_owned(),
    };
    crate::sanitize::printable(&reason)
}

/// The words the model reads while the breaker blocks: the rule, the stop reason and the
/// ways out of a session.
fn refusal(s: &Status, run: &Run, what: &str) -> String {
    let rule = s.rule.map_or_else(String::new, |r| r.to_string());
    let reason = as_printed(s.reason.as_deref().unwrap_or(""), run);
    let mut text = format!(
        "loopguard: the breaker of this session is open, so {} is refused.\nrule: {rule}\nreason: {reason}\nStop calling tools. Tell the user what you tried, what keeps happening, and what you would need to go on.\nways out:\n",
        what.to_lowercase()
    );
    for way in s.next().map(|n| n.ways).unwrap_or_default() {
        let _ = writeln!(text, "- {way}");
    }
    text.trim_end().to_owned()
}

/// Every call of a session: `dropped`, those its run no longer keeps (oldest first), then
/// the run's own.
pub fn all_calls(run: &Run, mut dropped: Vec<Iteration>) -> Vec<Iteration> {
    dropped.extend_from_slice(run.iterations());
    dropped
}

/// The status document of a session: its run's breaker and counters, every call it made
/// (`calls`, see [`all_calls`]) in its rows and picture, its events, and the session's ways
/// out.
pub fn status(config: &Config, run: &Run, calls: &[Iteration], events: &[Event]) -> Status {
    let evaluation = run.evaluate(config);
    let facts = crate::rules::attempts(config, calls);
    let own: Vec<Event> = events.iter().filter(|e| e.run == run.id).cloned().collect();
    let mut s = Status::build(&crate::report::Source {
        config,
        history: calls,
        facts: &facts,
        attempts_before: 0,
        breaker: run.breaker(),
        evaluation: &evaluation,
        events: &own,
        run: Some(&run.id),
        branch: run.branch.as_deref(),
        kind: crate::report::RunKind::of(run),
    });
    s.config = run
        .pinned_config
        .as_ref()
        .map(crate::report::ConfigInForce::of);
    s
}

/// What the loop cost, since its first repeated failure: tool calls, wall time, tokens.
/// `its` is every call of the session, `base` where the breaker's counters start in them.
pub fn loop_cost(its: &[Iteration], base: usize, s: &Status) -> Option<String> {
    let last = its.last()?;
    let start = loop_start(its, base, s)?;
    let calls = its.len() - start;
    let minutes = match (its[start].at, last.at) {
        (Some(a), Some(b)) => crate::config::format_duration(b.duration_since(a)),
        _ => "?".to_owned(),
    };
    let tokens: u64 = its[start..]
        .iter()
        .filter_map(|it| it.call.as_ref().and_then(|c| c.tokens))
        .sum();
    let tokens = if tokens > 0 {
        format!(", {tokens} tokens")
    } else {
        String::new()
    };
    Some(format!(
        "what the loop cost since the repeated failure first came ({}): {}, {minutes}{tokens}",
        its[start].id,
        crate::config::Unit::ToolCall.count(calls as u64)
    ))
}

/// Where the loop began: the first test run of the looping failure, the first of the
/// repeated calls, or the first call after the last progress.
fn loop_start(its: &[Iteration], base: usize, s: &Status) -> Option<usize> {
    let base = base.min(its.len().saturating_sub(1));
    if let Some(sig) = s
        .looping_failure
        .as_ref()
        .and_then(|t| t.signature.as_ref())
    {
        return its[base..]
            .iter()
            .position(|it| it.test.as_ref().and_then(|t| t.signature.as_ref()) == Some(sig))
            .map(|p| base + p);
    }
    let last = its.last()?.call.as_ref()?;
    if let Some(p) = its[base..]
        .iter()
        .position(|it| it.call.as_ref().is_some_and(|c| c.same_as(last)))
    {
        return Some(base + p);
    }
    Some(base)
}

#[cfg(test)]
mod tests;
