//! The status document and its renderers, from histories that read like the scenarios.

use super::github::{Change, PrView};
use super::*;
use crate::run::judge;
use crate::testing::{History, ts};

fn status_of(c: &Config, h: &History) -> Status {
    Status::of_judgement(c, &judge(c, h.its.clone(), "r", ts(100_000)))
}

fn stuck() -> History {
    let mut h = History::new();
    for _ in 0..3 {
        h = h
            .fresh()
            .msg("Fix counting @org/team | fixes #3")
            .fail("9f2c9f2c", 1);
    }
    h
}

#[test]
fn the_document_has_the_contract_fields() {
    let c = Config::default();
    let doc = status_of(&c, &History::new().fresh()).to_json();
    assert_eq!(doc["schema"], 1);
    assert_eq!(doc["state"], "closed");
    assert_eq!(doc["terminal_status"], serde_json::Value::Null);
    assert_eq!(
        (doc["rule"].is_null(), doc["reason"].is_null()),
        (true, true)
    );
    assert_eq!(doc["iterations"], 1);
    assert_eq!(
        doc["counters"]["stagnation"],
        serde_json::json!({"count": 0, "threshold": 3})
    );
    for rule in RuleName::ALL {
        assert!(doc["counters"].get(rule.as_str()).is_some(), "{rule}");
    }
    assert!(doc.get("history").is_none());
    let with = status_of(&c, &History::new().fresh()).with_history(&History::new().fresh().its);
    assert_eq!(with.to_json()["history"][0]["id"], "c00aaaaaaa");
}

#[test]
fn the_rule_shows_only_while_not_closed_and_the_looping_failure_is_the_streak() {
    let c = Config::default();
    let s = status_of(&c, &stuck());
    assert_eq!((s.state, s.rule), (State::Open, Some(RuleName::SameError)));
    let failure = s.looping_failure.as_ref().unwrap();
    assert_eq!(failure.signature.as_ref().unwrap().short(), "9f2c9f2c");
    let recovered = status_of(&c, &stuck().fresh().pass());
    assert_eq!(
        (recovered.state, recovered.rule, recovered.reason.as_ref()),
        (State::Closed, None, None)
    );
    assert_eq!(recovered.looping_failure, None);
    assert_eq!(recovered.trips, 1);
}

#[test]
fn terminal_text_shows_control_characters() {
    let c = Config::default();
    let mut h = History::new().fresh().empty().empty();
    h = h.empty().msg("\u{1b}[2K\r\u{1b}[1Aall good");
    let s = status_of(&c, &h);
    let text = text::status(&s);
    assert!(!text.contains('\u{1b}'), "{text}");
    assert!(text.contains("^[[2K^M^[[1Aall good"), "{text}");
    let refusal = text::refusal(&s, "main\u{1b}[2K", "commit");
    assert!(
        !refusal.contains('\u{1b}') && refusal.contains("main^[[2K"),
        "{refusal}"
    );
}

#[test]
fn markdown_is_inert() {
    let c = Config::default();
    let s = status_of(&c, &stuck());
    let md = markdown::report(&s);
    assert!(md.contains("## Stop reason\n\n**same_error**"), "{md}");
    assert!(!md.contains("@org"), "{md}");
    assert!(
        md.contains("@\u{200B}org/team \\| fixes \\#\u{200B}3"),
        "{md}"
    );
    let entry = markdown::issue_entry(&s);
    assert!(entry.contains("- rule: same_error"), "{entry}");
}

#[test]
fn a_pr_view_shows_reason_counters_failure_and_iterations() {
    let c = Config::default();
    let s = status_of(&c, &stuck()).in_pull_request("loopguard:stuck");
    let head = s.rows.last().unwrap().id.to_string();
    let v = PrView {
        status: &s,
        pr: Some(7),
        head: &head,
        change: Change::Tripped,
        issue: Some(12),
        notes: &[],
        loop_cost: None,
    };
    let md = v.comment();
    assert!(
        md.starts_with("### loopguard: stuck loop — `same_error`"),
        "{md}"
    );
    assert!(
        md.contains("**Stop reason** (`same_error`): the same failure"),
        "{md}"
    );
    assert!(md.contains("| `same_error` ⛔ | 3 | 3 | trip |"), "{md}");
    assert!(md.contains("- **Looping signature:** `9f2c9f2c`"), "{md}");
    assert!(md.contains("Stuck-loop issue: #12"), "{md}");
    let (title, body) = v.issue(7);
    assert_eq!(title, "loopguard: PR #7 is stuck in a loop (same_error)");
    assert_eq!(
        body.matches("\n- `c0").count(),
        3,
        "three commits involved: {body}"
    );
    for md in [v.comment(), v.summary(), body] {
        assert!(!md.contains("@org"), "{md}");
        assert!(!md.contains(" #3"), "{md}");
    }
    let outputs: Vec<_> = v.outputs(None).into_iter().map(|(k, _)| k).collect();
    assert_eq!(
        outputs,
        [
            "state",
            "tripped",
            "rule",
            "reason",
            "terminal-status",
            "signature",
            "next-model"
        ]
    );
}

#[test]
fn change_table() {
    let cases = [
        (None, State::Closed, Change::Quiet),
        (None, State::Open, Change::Tripped),
        (Some(State::Open), State::Open, Change::StillOpen),
        (Some(State::HalfOpen), State::Open, Change::Tripped),
        (Some(State::Open), State::HalfOpen, Change::HalfOpen),
        (Some(State::Open), State::Closed, Change::Recovered),
        (Some(State::HalfOpen), State::Closed, Change::Recovered),
        (Some(State::Closed), State::Closed, Change::Quiet),
    ];
    for (before, now, want) in cases {
        assert_eq!(Change::between(before, now), want, "{before:?} {now:?}");
    }
}

#[test]
fn the_picture_marks_new_and_same_failures_and_the_trip() {
    use super::picture::{Mark, Tests, points, sparkline};
    let c = Config::default();
    let h = History::new()
        .fresh()
        .fail("aaaa1111", 3)
        .fresh()
        .fail("bbbb2222", 1)
        .fresh()
        .fail("bbbb2222", 1)
        .fresh()
        .fail("bbbb2222", 1);
    let s = status_of(&c, &h);
    let p = points(&s);
    let marks: Vec<Option<Mark>> = p.iter().map(picture::Point::mark).collect();
    assert_eq!(
        marks,
        [
            Some(Mark::NewFailure),
            Some(Mark::NewFailure),
            Some(Mark::SameFailure),
            Some(Mark::Trip)
        ]
    );
    assert_eq!(p[0].tests, Tests::Fail(Some(3)));
    let text = sparkline(&p);
    assert!(text.starts_with("tests    █▃▃▃\nevents   ◆◆=✖\n"), "{text}");
    // The comment and the issue carry both pictures.
    let view = PrView {
        status: &s,
        pr: Some(7),
        head: "abc",
        change: Change::Tripped,
        issue: None,
        notes: &[],
        loop_cost: None,
    };
    for md in [view.comment(), view.issue(7).1, view.summary()] {
        assert!(md.contains("```text\ntests    █▃▃▃"), "{md}");
        assert!(md.contains("```mermaid\nxychart-beta\n"), "{md}");
    }
}

/// A new tree that fails exactly as the attempt before it changed the code, not the
/// outcome: the table, the sparkline and the chart say so, and none calls it progress
/// while the report says the run is stuck on that failure.
#[test]
fn new_code_that_fails_the_same_way_is_never_called_progress() {
    use super::picture::{Mark, points};
    let c = Config::default();
    let s = status_of(&c, &stuck());
    assert_eq!(s.rule, Some(RuleName::SameError));
    let notes: Vec<String> = s.rows.iter().map(|r| r.notes.join(", ")).collect();
    assert_eq!(
        notes,
        [
            "new code, new failure",
            "new code, same failure",
            "new code, same failure"
        ]
    );
    let marks: Vec<Option<Mark>> = points(&s).iter().map(picture::Point::mark).collect();
    assert_eq!(
        marks,
        [
            Some(Mark::NewFailure),
            Some(Mark::SameFailure),
            Some(Mark::Trip)
        ]
    );
    let md = markdown::report(&s);
    assert!(!md.contains("↑"), "{md}");
    for row in md
        .lines()
        .filter(|l| l.starts_with("| ") && l.contains("`c0"))
    {
        assert!(!row.contains("progress"), "{row}");
    }
    assert!(md.contains("| 2 | `c01aaaa` |"), "{md}");
    assert!(
        md.contains("| fail (1) `9f2c9f2c` | new code, same failure |"),
        "{md}"
    );
    assert!(md.contains("events   ◆=✖\n"), "{md}");
    assert!(
        md.contains("x-axis \"attempt\" [\"1 ◆\", \"2 =\", \"3 ✖=\"]"),
        "{md}"
    );
    assert!(
        md.contains("◆ new failure · = same failure · ✖ breaker opened"),
        "{md}"
    );

    // Tests that pass again after a failure are "tests fixed"; a new tree with no test run
    // is new code.
    let h = stuck().fresh().pass().fresh();
    let s = status_of(&c, &h);
    let last: Vec<String> = s.rows[3..].iter().map(|r| r.notes.join(", ")).collect();
    assert_eq!(last, ["new code, tests fixed", "new code"]);
    let marks: Vec<Option<Mark>> = points(&s).iter().map(picture::Point::mark).collect();
    assert_eq!(marks[4], Some(Mark::NewCode));
}

#[test]
fn the_guard_shows_only_where_it_applies() {
    let c = Config::default();
    let s = status_of(&c, &stuck());
    assert!(
        s.to_json().get("guarded").is_none(),
        "check and replay say nothing"
    );
    assert!(!text::status(&s).contains("guard"));

    let none = s
        .clone()
        .with_guard(vec!["post-commit".into(), "pre-commit".into()], false);
    assert_eq!(none.to_json()["guarded"], false);
    let shown = text::status(&none);
    assert!(
        shown.contains("not guarded: loopguard's hooks are not installed"),
        "{shown}"
    );
    assert!(shown.contains("loopguard init"), "{shown}");

    let partly = s
        .clone()
        .with_guard(vec!["reference-transaction".into()], true);
    assert_eq!(partly.to_json()["guarded"], false);
    assert!(text::status(&partly).contains("the hooks reference-transaction do not run loopguard"));

    let all = s.with_guard(Vec::new(), true);
    assert_eq!(all.to_json()["guarded"], true);
    assert!(!text::status(&all).contains("guard"));
}

/// CI's comment names the tripping rule's own way out (issue 28 item 3; it told every rule
/// "tests pass, or a different failure closes the breaker"): a loop in the code is left by
/// a push that really changes it, a spent budget only by a maintainer.
#[test]
fn the_comment_names_the_tripping_rules_own_way_out() {
    let comment = |s: &Status| {
        PrView {
            status: s,
            pr: Some(7),
            head: "abc",
            change: Change::Tripped,
            issue: None,
            notes: &[],
            loop_cost: None,
        }
        .comment()
    };
    let ways = |md: &str| -> Vec<String> {
        md.split("**Ways out:**\n\n")
            .nth(1)
            .unwrap_or_else(|| panic!("no ways out:\n{md}"))
            .lines()
            .take_while(|l| l.starts_with("- "))
            .map(str::to_owned)
            .collect()
    };
    let c = Config::default();
    let flips = History::new()
        .to("A", "pa")
        .to("B", "pb")
        .to("A", "-pb")
        .to("B", "pb");
    let s = status_of(&c, &flips).in_pull_request("loopguard:stuck");
    assert_eq!(s.rule, Some(RuleName::Oscillation));
    let md = comment(&s);
    assert!(
        md.contains(
            "**What now:** the agent is stuck: this check fails while the breaker is open.\n"
        ),
        "{md}"
    );
    assert_eq!(
        ways(&md),
        [
            "- a push that really changes the code closes the breaker by itself (not a return to an earlier tree or patch, not whitespace alone; test results do not count)",
            "- a maintainer removes the `loopguard:stuck` label: the next push decides: progress closes the breaker, another round of the same opens it again",
            "- a maintainer takes the task over",
        ]
    );

    let mut c = Config::default();
    c.rules.budget.max_iterations = 3;
    let s =
        status_of(&c, &History::new().fresh().fresh().fresh()).in_pull_request("loopguard:stuck");
    assert_eq!(s.rule, Some(RuleName::Budget));
    let md = comment(&s);
    assert_eq!(
        ways(&md),
        [
            "- a maintainer removes the `loopguard:stuck` label: the next push decides: progress closes the breaker, another round of the same opens it again",
            "- a maintainer takes the task over",
        ]
    );
    assert!(!md.contains("tests pass"), "{md}");
}
