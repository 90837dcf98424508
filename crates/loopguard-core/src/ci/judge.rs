//! Judging a PR: the same rules and breaker as the local guard, stepped over the PR's
//! iterations one at a time, with two things only CI has.
//!
//! - **Resumes** by a maintainer (removing the label): the breaker goes half-open after the
//!   commit that was the head then, and the next attempt decides, as after `loopguard
//!   resume`.
//! - **Recovery**: nobody's hooks stop an agent from pushing to a PR, so while the breaker
//!   is open each new attempt is looked at: when it mends what tripped the breaker — tests
//!   pass, the failure changed, or real progress after a loop — the breaker closes by
//!   itself and the label comes off. `constraint` and `budget` trips, and runs under
//!   `on_trip.action: abort`, wait for a maintainer.

use jiff::Timestamp;

use crate::breaker::{Breaker, Event, State, Step};
use crate::config::Config;
use crate::iteration::{Iteration, Outcome};
use crate::rules::{self, Evaluation, Facts, RuleName, Usage};

use super::state::Resume;

/// The id of a CI run of the breaker, in its events.
const RUN_ID: &str = "ci";

/// The breaker after a PR's history, and how it got there.
#[derive(Debug, Clone)]
pub struct Judgement {
    pub breaker: Breaker,
    /// Every transition, oldest first.
    pub events: Vec<Event>,
    /// The rules over the whole history, counting from the breaker's baseline.
    pub evaluation: Evaluation,
}

/// Judges `history` (oldest first, evidence attached) from a closed breaker; `resumes`
/// apply after their commit. `now` stands in for iterations without a time, and applies
/// the cooldown at the end.
pub fn judge(
    config: &Config,
    history: &[Iteration],
    resumes: &[Resume],
    now: Timestamp,
) -> Judgement {
    let facts = rules::attempts(config, history);
    let mut breaker = Breaker::default();
    let mut events = Vec::new();
    let mut seen = 0;
    for k in 1..=history.len() {
        let before = seen;
        while seen < facts.len() && facts[seen].index < k {
            seen += 1;
        }
        let it = &history[k - 1];
        let at = it.at.unwrap_or(now);
        let new_attempt = seen > before;
        events.extend(breaker.apply_cooldown(config, k - 1, at, RUN_ID));
        let recovered = new_attempt
            && breaker.state == State::Open
            && try_recovery(
                config,
                history,
                &facts[..seen],
                k,
                at,
                &mut breaker,
                &mut events,
            );
        if !recovered {
            let evaluation = rules::evaluate_facts(
                config,
                &history[..k],
                &facts[..seen],
                breaker.baseline,
                &Usage::default(),
            );
            events.extend(breaker.step(&Step {
                config,
                eval: &evaluation,
                len: k,
                iteration: Some(&it.id),
                new_attempt,
                now: at,
                run: RUN_ID,
            }));
        }
        for resume in resumes.iter().filter(|r| r.after == it.id) {
            // A resume of a breaker that is not open (the history changed under it) is moot.
            if let Ok(mut e) = breaker.resume(k, resume.at, RUN_ID) {
                e.iteration = Some(it.id.clone());
                events.push(e);
            }
        }
    }
    events.extend(breaker.apply_cooldown(config, history.len(), now, RUN_ID));
    let evaluation =
        rules::evaluate_facts(config, history, &facts, breaker.baseline, &Usage::default());
    Judgement {
        breaker,
        events,
        evaluation,
    }
}

/// Whether the newest attempt `facts.last()` (at history length `k`) mends what opened
/// the breaker; if so the breaker closes, as a half-open breaker does on progress.
fn try_recovery(
    config: &Config,
    history: &[Iteration],
    facts: &[Facts],
    k: usize,
    at: Timestamp,
    breaker: &mut Breaker,
    events: &mut Vec<Event>,
) -> bool {
    if breaker.aborted {
        return false;
    }
    let Some(last) = facts.last() else {
        return false;
    };
    if !mends(breaker.rule, last, &history[last.index]) {
        return false;
    }
    // Judged on its own, as the attempt after a resume is.
    let mut trial = breaker.clone();
    if trial.resume(k - 1, at, RUN_ID).is_err() {
        return false;
    }
    let evaluation = rules::evaluate_facts(
        config,
        &history[..k],
        facts,
        trial.baseline,
        &Usage::default(),
    );
    let stepped = trial.step(&Step {
        config,
        eval: &evaluation,
        len: k,
        iteration: Some(&history[k - 1].id),
        new_attempt: true,
        now: at,
        run: RUN_ID,
    });
    if trial.state != State::Closed {
        return false;
    }
    *breaker = trial;
    events.extend(stepped);
    true
}

/// Whether an attempt mends the trip of `rule`.
pub fn mends(rule: Option<RuleName>, facts: &Facts, it: &Iteration) -> bool {
    let passes = it.test.as_ref().is_some_and(|t| t.outcome == Outcome::Pass);
    match rule {
        Some(RuleName::Constraint | RuleName::Budget) => false,
        Some(RuleName::SameError | RuleName::FalseCompletion) => passes || facts.test_improved,
        _ => {
            passes
                || facts.test_improved
                || (facts.progress && facts.repeats.is_none() && facts.returns_to.is_none())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::breaker::{EventKind, TerminalStatus};
    use crate::iteration::{FileChange, TestEvidence};

    fn ts(s: i64) -> Timestamp {
        Timestamp::from_second(1_800_000_000 + s).unwrap()
    }

    /// An attempt changing `file` to a new tree `tree`, with a test outcome.
    fn it(id: &str, tree: &str, parent: &str, test: Option<(Outcome, &str)>) -> Iteration {
        Iteration {
            id: id.into(),
            tree: Some(tree.into()),
            parent_tree: Some(parent.into()),
            files: Some(vec![FileChange {
                path: "src/lib.rs".into(),
                added: Some(1),
                deleted: Some(1),
                ..FileChange::default()
            }]),
            message: Some(format!("attempt {id}")),
            test: test.map(|(outcome, sig)| TestEvidence {
                outcome,
                signature: (!sig.is_empty()).then(|| sig.to_owned()),
                failing: (outcome == Outcome::Fail).then_some(1),
                ..TestEvidence::default()
            }),
            ..Iteration::default()
        }
    }

    fn chain(tests: &[Option<(Outcome, &str)>]) -> Vec<Iteration> {
        let mut parent = "t0".to_owned();
        tests
            .iter()
            .enumerate()
            .map(|(i, t)| {
                let tree = format!("t{}", i + 1);
                let x = it(&format!("c{}", i + 1), &tree, &parent, *t);
                parent = tree;
                x
            })
            .collect()
    }

    const FAIL_A: Option<(Outcome, &str)> = Some((Outcome::Fail, "aaaa"));
    const FAIL_B: Option<(Outcome, &str)> = Some((Outcome::Fail, "bbbb"));
    const PASS: Option<(Outcome, &str)> = Some((Outcome::Pass, ""));

    #[test]
    fn three_same_failures_trip_and_match_simulate() {
        let c = Config::default();
        let h = chain(&[FAIL_A, FAIL_A, FAIL_A]);
        let j = judge(&c, &h, &[], ts(0));
        assert_eq!(j.breaker.state, State::Open);
        assert_eq!(j.breaker.rule, Some(RuleName::SameError));
        assert_eq!(
            j.breaker.terminal_status,
            Some(TerminalStatus::AbortedStuck)
        );
        let sim = crate::run::simulate(&c, h, ts(0));
        assert_eq!(
            sim.run.breaker, j.breaker,
            "no resumes: the same as `check`"
        );
        assert_eq!(sim.evaluation.counters, j.evaluation.counters);
    }

    #[test]
    fn recovery_table() {
        let c = Config::default();
        type Case<'a> = (&'a [Option<(Outcome, &'a str)>], State);
        let cases: &[Case<'_>] = &[
            // Still the same failure after the trip: stays open.
            (&[FAIL_A, FAIL_A, FAIL_A, FAIL_A], State::Open),
            // Tests pass: closed.
            (&[FAIL_A, FAIL_A, FAIL_A, PASS], State::Closed),
            // A different failure: the failure changed, closed.
            (&[FAIL_A, FAIL_A, FAIL_A, FAIL_B], State::Closed),
            // No evidence yet for the newest push: a code change alone does not mend a
            // same-error trip.
            (&[FAIL_A, FAIL_A, FAIL_A, None], State::Open),
            // Closed again, then the same failure three times more: open again.
            (
                &[FAIL_A, FAIL_A, FAIL_A, PASS, FAIL_A, FAIL_A, FAIL_A],
                State::Open,
            ),
        ];
        for (tests, want) in cases {
            let j = judge(&c, &chain(tests), &[], ts(0));
            assert_eq!(j.breaker.state, *want, "{tests:?}");
        }
        let j = judge(&c, &chain(&[FAIL_A, FAIL_A, FAIL_A, PASS]), &[], ts(0));
        let kinds: Vec<EventKind> = j.events.iter().map(|e| e.kind).collect();
        assert_eq!(kinds, [EventKind::Trip, EventKind::Close]);
        assert_eq!(j.breaker.baseline, 4);
    }

    #[test]
    fn stagnation_recovers_on_real_progress_only() {
        let c = Config::default();
        let mut h = chain(&[None]);
        for i in 2..=4 {
            let mut e = it(&format!("c{i}"), "t1", "t1", None);
            e.files = Some(vec![]);
            h.push(e);
        }
        let j = judge(&c, &h, &[], ts(0));
        assert_eq!(j.breaker.rule, Some(RuleName::Stagnation));
        assert_eq!(j.breaker.state, State::Open);
        let mut more = h.clone();
        more.push(it("c5", "t9", "t1", None));
        assert_eq!(judge(&c, &more, &[], ts(0)).breaker.state, State::Closed);
        // Going back to an earlier tree is no progress.
        let mut back = h.clone();
        back.push(it("c5", "t0", "t1", None));
        assert_eq!(judge(&c, &back, &[], ts(0)).breaker.state, State::Open);
    }

    #[test]
    fn constraint_waits_for_a_maintainer() {
        let c = Config::default();
        let mut h = chain(&[None]);
        h[0].files.as_mut().unwrap()[0].path = ".loopguard.yml".into();
        h.extend(chain(&[PASS]).into_iter().map(|mut x| {
            x.id = "c2".into();
            x.tree = Some("t7".into());
            x.parent_tree = Some("t1".into());
            x
        }));
        let j = judge(&c, &h, &[], ts(0));
        assert_eq!(j.breaker.state, State::Open);
        assert_eq!(j.breaker.rule, Some(RuleName::Constraint));
        assert_eq!(
            j.breaker.terminal_status,
            Some(TerminalStatus::AbortedConstraint)
        );
    }

    #[test]
    fn a_resume_half_opens_and_the_next_attempt_decides() {
        let c = Config::default();
        let h = chain(&[FAIL_A, FAIL_A, FAIL_A]);
        let resume = Resume {
            after: "c3".into(),
            at: ts(100),
            by: Some("maintainer".into()),
        };
        let j = judge(&c, &h, std::slice::from_ref(&resume), ts(200));
        assert_eq!(j.breaker.state, State::HalfOpen);
        assert_eq!(j.breaker.terminal_status, None);
        assert_eq!(j.events.last().unwrap().kind, EventKind::Resume);

        // Half-open: a new attempt without progress opens it again.
        let mut h2 = h.clone();
        let mut same = it("c4", "t3", "t3", FAIL_A);
        same.files = Some(vec![]);
        h2.push(same);
        let j = judge(&c, &h2, std::slice::from_ref(&resume), ts(200));
        assert_eq!(j.breaker.state, State::Open);
        assert_eq!(j.events.last().unwrap().kind, EventKind::Reopen);

        // A resume after a commit that is gone (force-push) changes nothing.
        let gone = Resume {
            after: "nope".into(),
            ..resume
        };
        assert_eq!(judge(&c, &h, &[gone], ts(200)).breaker.state, State::Open);
    }

    #[test]
    fn abort_never_recovers_by_itself() {
        let mut c = Config::default();
        c.on_trip.action = crate::config::TripAction::Abort;
        let j = judge(&c, &chain(&[FAIL_A, FAIL_A, FAIL_A, PASS]), &[], ts(0));
        assert_eq!(j.breaker.state, State::Open);
        assert!(j.breaker.aborted);
    }
}
