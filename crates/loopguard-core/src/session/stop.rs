//! The agent's stop, judged by evidence: a stop while the last run of a test suite failed —
//! no passing run of that suite since, whatever else happened (an edit to the README, a
//! passing run of another suite) — is a false "done" unless the agent's last message says
//! the tests still fail. How the claim is worded does not matter ("All tests passed.",
//! "Finished …", "This fixes the issue." are the same stop).

use jiff::Timestamp;

use super::{LastTest, Step, failure_text, latest_test};
use crate::breaker::{Event, EventKind};
use crate::config::Config;
use crate::rules::RuleName;
use crate::run::Run;

/// The agent wants to stop. Block it once when the last run of a suite failed and its
/// last message (`message`) does not say so (`false_completion`); never when a hook
/// already made it go on (`stop_hook_active`), never twice for the same failing run,
/// never for any other reason: for a loop, stopping is the goal.
pub fn on_stop(
    config: &Config,
    run: &mut Run,
    stop_hook_active: bool,
    message: Option<&str>,
    now: Timestamp,
) -> Step {
    if !config.session.false_completion || stop_hook_active {
        return Step::quiet(Vec::new());
    }
    let Some(message) = message else {
        return Step::quiet(Vec::new());
    };
    let Some(failing) = failing_suite(run) else {
        return Step::quiet(Vec::new());
    };
    if admits_failure(message) {
        return Step::quiet(Vec::new());
    }
    let state = run.session.as_ref();
    if state.and_then(|s| s.stop_blocked_on.as_ref()) == Some(&failing.id) {
        return Step::quiet(Vec::new());
    }
    let reason = block_reason(run, message, &failing);
    let id = failing.id;
    let state = run.session.as_mut().expect("a session's run");
    state.stop_blocked_on = Some(id.clone());
    state.stop_blocks += 1;
    state.block_prompt = match state.harness.descriptor().quirks.stop_block {
        super::StopBlock::AsPrompt => Some(super::files::digest(reason.trim())),
        super::StopBlock::SameTurn | super::StopBlock::Unknown => None,
    };
    let event = Event {
        at: now,
        run: run.id.clone(),
        kind: EventKind::Warn,
        from: run.breaker().state(),
        to: run.breaker().state(),
        rule: Some(RuleName::FalseCompletion),
        reason: Some(reason.clone()),
        iteration: Some(id),
        terminal_status: None,
    };
    Step {
        answer: super::Answer::Block(reason),
        events: vec![event],
    }
}

/// What the model reads at a blocked stop: its words (one line, bounded), the failing run
/// as printed, and what to do.
fn block_reason(run: &Run, message: &str, failing: &LastTest) -> String {
    let command = failing
        .test
        .command
        .as_deref()
        .map(|c| format!(" of `{}`", crate::sanitize::printable(c)))
        .unwrap_or_default();
    let words = message.split_whitespace().collect::<Vec<_>>().join(" ");
    let claim: String = words.chars().take(80).collect();
    // With the breaker open every tool call is refused: the only way on is to tell the truth.
    let what_now = if run.is_open() {
        "Tool calls stay refused while this session's breaker is open: tell the user plainly that the tests still fail, and what you tried."
    } else {
        "Fix it and run the tests again, or tell the user plainly that the tests still fail."
    };
    format!(
        "loopguard (false_completion): you are stopping as if the work were done (\"{}\"), but the last run{command} failed and no run of it passed since: {}. {what_now} loopguard blocks this stop once.",
        crate::sanitize::printable(&claim),
        failure_text(failing)
    )
}

/// The newest suite whose last run failed. Runs an older loopguard wrote know only their
/// latest test run, and whether files were edited after it.
fn failing_suite(run: &Run) -> Option<LastTest> {
    let suites = run.session.as_ref().map(|s| s.suites.as_slice());
    match suites {
        Some(suites) if !suites.is_empty() => suites.iter().rev().find(|s| s.test.fails()).cloned(),
        _ => latest_test(run).filter(|t| t.test.fails() && !t.edited_after),
    }
}

/// Whether the agent's last words say that the tests still fail, or that it could not
/// finish: then the stop is the truth.
pub(super) fn admits_failure(message: &str) -> bool {
    let m = message.to_lowercase().replace('’', "'");
    [
        "fail",
        "not pass",
        "n't pass",
        "not fixed",
        "n't fix",
        "not fix",
        "still broken",
        "still red",
        "could not",
        "cannot",
        "can't",
        "unable",
        "your help",
        "stuck",
    ]
    .iter()
    .any(|w| m.contains(w))
}
