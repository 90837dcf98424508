//! Sessions judged call by call: each rule at the tool level, the warning one step before a
//! trip, a person's prompt, the stop.

use jiff::Timestamp;
use serde_json::{Value, json};

use super::*;
use crate::rules::RuleName;

const FAIL_LOG: &str = "============================= FAILURES =============================\n\
___________________________ test_count ___________________________\n\n    def test_count():\n\
>       assert count('a b') == 3\nE       assert 2 == 3\n\ntests/test_wc.py:4: AssertionError\n\
=========================== short test summary info ===========================\n\
FAILED tests/test_wc.py::test_count - assert 2 == 3\n\
============================== 1 failed in 0.02s ==============================\n";
const PASS_LOG: &str =
    "============================== 1 passed in 0.01s ==============================\n";

fn t(n: i64) -> Timestamp {
    Timestamp::from_second(1_800_000_000 + n * 10).unwrap()
}

fn call(tool: &str, input: Value, response: Value) -> CallInput {
    CallInput {
        tool: tool.into(),
        input,
        response: Some(response),
        ..CallInput::default()
    }
}

fn bash(cmd: &str, out: &str, code: i32) -> CallInput {
    call(
        "Bash",
        json!({"command": cmd}),
        json!({"stdout": out, "stderr": "", "exit_code": code}),
    )
}

fn edit(path: &str, old: &str, new: &str) -> CallInput {
    call(
        "Edit",
        json!({"file_path": path, "old_string": old, "new_string": new}),
        json!({"filePath": path}),
    )
}

fn read(path: &str) -> CallInput {
    call(
        "Read",
        json!({"file_path": path}),
        json!({"file": {"content": format!("{path} content")}}),
    )
}

struct S {
    config: Config,
    run: Run,
    n: i64,
    answers: Vec<Answer>,
}

impl S {
    fn new() -> S {
        S {
            config: Config::default().for_sessions(),
            run: new_run(Harness::Claude, "s1", Some("main".into()), t(0)),
            n: 0,
            answers: Vec::new(),
        }
    }
    fn pre(&mut self, c: &CallInput) -> Answer {
        on_pre_tool(&self.config, &self.run, c, t(self.n), None, &|_| None)
    }
    fn post(&mut self, c: CallInput) -> Answer {
        self.n += 1;
        let a = on_post_tool(&self.config, &mut self.run, &c, t(self.n), Some(100)).answer;
        self.answers.push(a.clone());
        a
    }
    fn rule(&self) -> Option<RuleName> {
        self.run.breaker().rule().filter(|_| self.run.is_open())
    }
}

fn context(a: &Answer) -> &str {
    let Answer::Context(t) = a else {
        panic!("not context: {a:?}")
    };
    t
}

#[test]
fn the_same_failure_however_spelled_warns_then_trips_and_denies() {
    let mut s = S::new();
    s.post(bash("pytest -q", FAIL_LOG, 1));
    s.post(edit("src/wc.py", "return n", "return n + 1"));
    let warned = s.post(bash("python -m pytest tests/test_wc.py", FAIL_LOG, 1));
    let text = context(&warned);
    assert!(
        text.contains("the same failure in your last 2 test runs (tests/test_wc.py::test_count: ")
            && text.contains("one more opens the breaker"),
        "{text}"
    );
    s.post(edit("src/wc.py", "return n + 1", "return n * 1"));
    assert_eq!(s.rule(), None);
    let tripped = s.post(bash("pytest", FAIL_LOG, 1));
    assert_eq!(s.rule(), Some(RuleName::SameError));
    let text = context(&tripped);
    assert!(
        text.contains("rule: same_error") && text.contains("what the loop cost"),
        "{text}"
    );
    let Answer::Deny(r) = s.pre(&read("src/wc.py")) else {
        panic!("not denied")
    };
    assert!(r.contains("the user's next prompt"), "{r}");
}

#[test]
fn a_persons_prompt_starts_the_counters_again() {
    let mut s = S::new();
    for _ in 0..3 {
        s.post(bash("pytest -q", FAIL_LOG, 1));
    }
    assert_eq!(s.rule(), Some(RuleName::SameError));
    let step = on_prompt(&s.config, &mut s.run, t(50));
    assert!(matches!(step.answer, Answer::Context(_)));
    assert_eq!(
        s.pre(&read("a")),
        Answer::Nothing,
        "half-open: the next call decides"
    );
    s.post(edit("src/wc.py", "return n", "return len(n.split())"));
    s.post(bash("pytest -q", PASS_LOG, 0));
    assert_eq!(s.run.breaker().state(), State::Closed);
    // The budget kept counting.
    assert_eq!(s.run.attempts(&s.config), 5);
}

#[test]
fn a_file_returning_to_earlier_content_and_an_edit_reapplied() {
    let mut s = S::new();
    s.post(edit("src/wc.py", "return n", "return n + 1"));
    s.post(edit("src/wc.py", "return n + 1", "return n"));
    assert_eq!(s.rule(), None, "one revert is allowed");
    s.post(edit("src/wc.py", "return n", "return n + 1"));
    assert_eq!(
        s.rule(),
        Some(RuleName::Oscillation),
        "{:?}",
        s.run.breaker().reason()
    );
}

#[test]
fn identical_calls_and_a_b_a_b_patterns() {
    let mut s = S::new();
    for _ in 0..3 {
        s.post(bash(
            "ssh build make",
            "ssh: connect to host build port 22: Connection refused",
            255,
        ));
    }
    assert_eq!(s.rule(), Some(RuleName::SameError));
    assert!(
        s.run
            .breaker()
            .reason()
            .unwrap()
            .contains("failed the same way 3 times")
    );

    let mut s = S::new();
    for _ in 0..4 {
        s.post(bash("git status", "nothing to commit", 0));
    }
    assert_eq!(
        s.rule(),
        None,
        "four identical successful calls are not yet a loop"
    );
    s.post(bash("git status", "nothing to commit", 0));
    assert_eq!(s.rule(), Some(RuleName::SameError));

    let mut s = S::new();
    for _ in 0..2 {
        s.post(read("src/a.py"));
        s.post(bash("git diff", "", 0));
    }
    assert_eq!(s.rule(), None);
    s.post(read("src/a.py"));
    assert_eq!(s.rule(), Some(RuleName::Oscillation));
}

#[test]
fn an_ordinary_exploring_session_does_not_trip() {
    let mut s = S::new();
    // Read around, run the status three times, search, edit, test, fix, test.
    for i in 0..30 {
        s.post(read(&format!("src/m{i}.py")));
        if i % 10 == 0 {
            s.post(bash("git status", "On branch main", 0));
        }
    }
    s.post(bash("pytest -q", FAIL_LOG, 1));
    s.post(edit("src/wc.py", "return n", "return n + 1"));
    s.post(bash("pytest -q", FAIL_LOG, 1));
    s.post(read("tests/test_wc.py"));
    s.post(edit("src/wc.py", "return n + 1", "return len(n.split())"));
    s.post(bash("pytest -q", PASS_LOG, 0));
    assert_eq!(s.rule(), None, "{:?}", s.run.breaker().reason());
}

#[test]
fn stagnation_and_the_budget_at_the_tool_level() {
    let mut s = S::new();
    s.config.session.stagnation = 6;
    s.config = s.config.for_sessions();
    for i in 0..6 {
        s.post(read(&format!("f{i}")));
    }
    assert_eq!(s.rule(), Some(RuleName::Stagnation));

    let mut s = S::new();
    s.config.session.max_calls = 4;
    s.config = s.config.for_sessions();
    for i in 0..4 {
        s.post(edit("a", &format!("{i}"), &format!("{}", i + 1)));
    }
    assert_eq!(s.rule(), Some(RuleName::Budget));
}

#[test]
fn the_stop_is_blocked_once_on_a_false_completion() {
    let mut s = S::new();
    s.post(edit("src/wc.py", "return n", "return n + 1"));
    s.post(bash("pytest -q", FAIL_LOG, 1));
    let stop = |s: &mut S, active: bool, msg: &str| {
        on_stop(&s.config, &mut s.run, active, Some(msg), t(99)).answer
    };
    assert_eq!(
        stop(&mut s, true, "Done!"),
        Answer::Nothing,
        "stop_hook_active"
    );
    assert_eq!(
        stop(&mut s, false, "I could not make the test pass."),
        Answer::Nothing
    );
    let Answer::Block(r) = stop(&mut s, false, "Done! The word count is fixed.") else {
        panic!("not blocked")
    };
    assert!(r.contains("tests/test_wc.py::test_count"), "{r}");
    assert_eq!(
        stop(&mut s, false, "Done."),
        Answer::Nothing,
        "once per failing run"
    );
    // An edit after the failing run: the code is untested, nothing to say.
    let mut s = S::new();
    s.post(bash("pytest -q", FAIL_LOG, 1));
    s.post(edit("src/wc.py", "return n", "return n + 1"));
    assert_eq!(stop(&mut s, false, "Done"), Answer::Nothing);
}

#[test]
fn sub_agents_are_edges_with_their_reasons() {
    let mut s = S::new();
    let mut c = read("docs/a.md");
    c.agent = Some("Explore".into());
    s.post(c.clone());
    s.post(c);
    let edge = &s.run.usage.edges["subagent:Explore"];
    assert_eq!(edge.count, 2);
    assert_eq!(
        edge.reasons,
        ["Read: docs/a.md -> ok", "Read: docs/a.md -> ok"]
    );
}

#[test]
fn a_skip_written_by_an_edit_is_judged_as_for_commits() {
    let skip = || {
        edit(
            "tests/test_wc.py",
            "def test_count():",
            "@pytest.mark.skip\ndef test_count():",
        )
    };
    // The test was failing in the session's last test run: certain, a trip.
    let mut s = S::new();
    s.post(bash("pytest -q", FAIL_LOG, 1));
    s.post(skip());
    assert_eq!(s.rule(), Some(RuleName::Constraint));
    // No evidence either way: a warning by default, as for a commit.
    let mut s = S::new();
    s.post(skip());
    assert_eq!(s.rule(), None);
    let status = Status::of_run(&s.config, &s.run, &[]);
    assert!(
        status
            .warnings
            .iter()
            .any(|w| w.rule == RuleName::Constraint
                && w.reason
                    .contains("skipped the test test_count in tests/test_wc.py")),
        "{:?}",
        status.warnings
    );
}
