//! `same_error`: consecutive failing test runs with the same failure signature, code
//! changes or not. A test run is an attempt's evidence, or a run on an earlier version of
//! it that an amend replaced (`superseded_tests`): an amend loop failing the same way each
//! time is the same error again. Attempts without test evidence neither extend nor break
//! the streak.

use super::{Count, Counter, Window};
use super::{CountRule, Descriptor, Involves, LoopingFailure, Recovery, Warns};
use crate::breaker::TerminalStatus;
use crate::config::Profile;
use crate::iteration::TestEvidence;

pub(crate) const RULE: Descriptor = Descriptor {
    name: "same_error",
    counts: "failing test runs in a row with the same failure",
    recovery: Recovery::TestsChange,
    escalates: true,
    terminal: TerminalStatus::AbortedStuck,
    looping_failure: LoopingFailure::NewestFailing,
    warns: Warns::Repeats { nearer },
    involves: Involves::Latest,
    count,
};

/// One step nearer: the failing runs' limit and the identical calls' (a session's) one lower.
fn nearer(c: &mut crate::config::Config) {
    super::one_lower(&mut c.rules.same_error.threshold);
    super::one_lower(&mut c.session.identical_calls);
}

/// `threshold` by profile.
pub(crate) fn defaults(profile: Profile) -> CountRule {
    CountRule::trip_at(match profile {
        Profile::Strict => 5,
        Profile::Balanced => 3,
        Profile::Yolo => 2,
    })
}

pub(super) fn count(w: &Window<'_>) -> Count {
    let streak = streak(w);
    let threshold = w.config.rules.same_error.threshold.into();
    let tests = Counter::at_least(streak.runs, threshold);
    if let Some(calls) = same_calls(w)
        && ratio(calls.counter) > ratio(tests)
    {
        return Count::new(calls.counter, || calls.reason);
    }
    Count::new(tests, || {
        let runs = if w.config.unit == crate::config::Unit::ToolCall {
            // A session's test runs are some of its calls, with edits between them.
            runs_in_a_row(streak.runs)
        } else if streak.attempts == streak.runs {
            w.attempts(streak.runs as usize).in_a_row()
        } else {
            format!(
                "{} test runs in a row over {}, amended in between",
                streak.runs,
                w.attempts(streak.attempts as usize)
            )
        };
        let newest = streak
            .newest
            .expect("a streak that reached its limit has a run");
        format!("the same failure ({}) in {runs}", describe_failure(newest))
    })
}

/// `3 test runs in a row`; one alone is no row: `1 test run`.
fn runs_in_a_row(n: u64) -> String {
    let runs = crate::config::plural(n, "test run", "test runs");
    if n == 1 {
        runs
    } else {
        format!("{runs} in a row")
    }
}

/// How near a counter is to its limit, comparable across limits.
fn ratio(c: Counter) -> f64 {
    match c.limit {
        super::Limit::AtLeast(t) if t > 0 => c.count as f64 / t as f64,
        super::Limit::AtLeast(_) | super::Limit::Share { .. } => 0.0,
    }
}

/// A tool call repeated with the same outcome by the same agent, at the end of the
/// session: a failing one counts against `threshold` (the same failure again, whether or
/// not it is a test run), a successful one against the session's `identical_calls`.
pub(super) struct SameCalls {
    pub counter: Counter,
    pub reason: String,
}

pub(super) fn same_calls(w: &Window<'_>) -> Option<SameCalls> {
    let last = w.since.last()?;
    let it = &w.history[last.index];
    let call = it.call.as_ref()?;
    // Counting starts again at the baseline (a person's turn, a resume).
    let mine = w
        .since
        .iter()
        .filter(|f| {
            w.history[f.index]
                .call
                .as_ref()
                .is_some_and(|c| c.agent == call.agent)
        })
        .count() as u64;
    let earlier = w
        .usage
        .earlier
        .since
        .calls
        .get(super::earlier::agent_key(call.agent.as_deref()))
        .copied()
        .unwrap_or(0);
    let n = last.same_call.min(mine + earlier);
    let (threshold, what, counts) = if call.failed {
        (
            w.config.rules.same_error.threshold,
            "failed the same way",
            "calls in a row that failed the same way",
        )
    } else {
        (
            w.config.session.identical_calls,
            "came back with the same result",
            "identical calls in a row with the same result",
        )
    };
    let error = call
        .error
        .as_deref()
        .map(|e| format!(": {e}"))
        .unwrap_or_default();
    let reason = match (n, call.failed) {
        (1, true) => format!("the call ({}) failed{error}", it.subject()),
        (1, false) => format!("the call ({}) was made once", it.subject()),
        _ => format!(
            "the same call ({}) {what} {} in a row{error}",
            it.subject(),
            crate::config::times(n)
        ),
    };
    Some(SameCalls {
        counter: Counter::at_least(n, threshold.into()).counting(counts),
        reason,
    })
}

/// The current same-failure streak: its test runs, the attempts they are runs of, and the
/// newest of them.
pub(super) struct FailureStreak<'a> {
    pub runs: u64,
    pub attempts: u64,
    pub newest: Option<&'a TestEvidence>,
}

/// The current same-failure streak, walked from the newest test run back: over the
/// attempts since the baseline, then on into those a session dropped (see
/// [`super::Earlier`]) while it is unbroken.
pub(super) fn streak<'a>(w: &Window<'a>) -> FailureStreak<'a> {
    let mut s = FailureStreak {
        runs: 0,
        attempts: 0,
        newest: None,
    };
    let mut last_attempt = None;
    for f in w.since.iter().rev() {
        for t in w.history[f.index].test_runs() {
            let (true, Some(sig)) = (t.fails(), t.signature.as_ref()) else {
                return s;
            };
            match s.newest {
                None => s.newest = Some(t),
                Some(n) if n.signature.as_ref() != Some(sig) => return s,
                Some(_) => {}
            }
            s.runs += 1;
            s.attempts += u64::from(last_attempt != Some(f.index));
            last_attempt = Some(f.index);
        }
    }
    if let Some(earlier) = &w.usage.earlier.since.streak
        && s.newest
            .is_none_or(|n| n.signature.is_some() && n.signature == earlier.newest.signature)
    {
        s.runs += earlier.runs;
        s.attempts += earlier.attempts;
        s.newest = s.newest.or(Some(&earlier.newest));
    }
    s
}

/// `cargo: tests::counts, assertion failed`: the runner, the first failing test and the
/// first error line (or the signature when there is no error line).
pub fn describe_failure(t: &TestEvidence) -> String {
    let mut parts = Vec::new();
    if let Some(runner) = &t.runner {
        parts.push(format!("{runner}:"));
    }
    if let Some(first) = t.failures.as_ref().and_then(|f| f.first()) {
        parts.push(format!("{first},"));
    }
    match (&t.first_error, &t.signature) {
        (Some(e), _) => parts.push(e.clone()),
        (None, Some(sig)) => parts.push(format!("signature {}", sig.short())),
        (None, None) => parts.push("signature ?".to_owned()),
    }
    parts.join(" ").trim_end_matches(',').to_owned()
}

#[cfg(test)]
mod tests {
    use crate::rules::RuleName::SameError;
    use crate::testing::History;

    #[test]
    fn trips_at_three_with_code_changes_and_gaps_without_evidence() {
        let h = History::new()
            .fresh()
            .fail("a1", 1)
            .fresh()
            .fail("a1", 1)
            .fresh() // no evidence: neither extends nor breaks
            .fresh()
            .fail("a1", 1);
        assert_eq!(h.first_trip(), Some((4, SameError)));
        assert_eq!(
            h.eval().trip().unwrap().reason,
            "the same failure (cargo: counts_three_words, assertion failed) in 3 iterations in a row"
        );
    }

    #[test]
    fn a_different_failure_or_a_pass_breaks_the_streak() {
        let cases = [
            (vec!["a1", "b1", "a1", "pass", "a1"], 1),
            (vec!["a1", "a1", "b1"], 1),
            (vec!["b1", "a1", "a1"], 2),
        ];
        for (outcomes, want) in cases {
            let mut h = History::new();
            for o in &outcomes {
                h = h.fresh();
                h = if *o == "pass" { h.pass() } else { h.fail(o, 1) };
            }
            assert_eq!(h.count(SameError), want, "{outcomes:?}");
        }
    }
}
