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
    CallInput::new(tool, input).returned(response)
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

/// A session driven as the hooks drive it: the run compacted after each step (as the
/// hooks' store does), or never (`keep_all`), to show that it changes nothing.
struct S {
    config: Config,
    run: Run,
    n: i64,
    answers: Vec<Answer>,
    events: Vec<Event>,
    /// The calls the run dropped (the hooks' calls log).
    dropped: Vec<Iteration>,
    keep_all: bool,
    /// The warnings, trips and prompts, in order.
    timeline: Vec<Mark>,
}

/// A step of a session's story, for counting how warnings end.
#[derive(Debug, Clone, Copy)]
enum Mark {
    Warning(RuleName),
    /// The breaker opened (on any rule: the session did not get out).
    Trip,
    Prompt,
}

impl S {
    fn new() -> S {
        S {
            config: Config::default().for_sessions(),
            run: new_run(Harness::Claude, "s1", Some("main".into()), t(0)),
            n: 0,
            answers: Vec::new(),
            events: Vec::new(),
            dropped: Vec::new(),
            keep_all: false,
            timeline: Vec::new(),
        }
    }
    fn pre(&mut self, c: &CallInput) -> Answer {
        let a = on_pre_tool(&self.config, &self.run, c, t(self.n), None, &|_| None);
        self.answers.push(a.clone());
        a
    }
    fn post(&mut self, c: CallInput) -> Answer {
        self.n += 1;
        let dropped = self.dropped.clone();
        let step = on_post_tool(
            &self.config,
            &mut self.run,
            &c,
            t(self.n),
            Some(100),
            &|| dropped.clone(),
        );
        self.settle(step)
    }
    fn prompt(&mut self) -> Answer {
        self.n += 1;
        let step = on_prompt(&self.config, &mut self.run, None, t(self.n));
        self.timeline.push(Mark::Prompt);
        self.settle(step)
    }
    fn stop(&mut self, msg: &str) -> Answer {
        let step = on_stop(&self.config, &mut self.run, false, Some(msg), t(self.n));
        self.settle(step)
    }
    /// What the hooks do after each step: keep its answer and events, compact the run.
    fn settle(&mut self, step: Step) -> Answer {
        if !self.keep_all {
            self.dropped.extend(self.run.compact(&self.config));
        }
        for e in &step.events {
            if matches!(e.kind, EventKind::Trip | EventKind::Reopen) {
                self.timeline.push(Mark::Trip);
            }
        }
        if let Answer::Context(text) = &step.answer
            && let Some(rule) = text
                .strip_prefix("loopguard: warning (")
                .and_then(|t| t.split_once(')'))
                .and_then(|(r, _)| r.parse().ok())
        {
            self.timeline.push(Mark::Warning(rule));
        }
        self.events.extend(step.events);
        self.answers.push(step.answer.clone());
        step.answer
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
    assert_eq!(
        text,
        "loopguard: warning (same_error): the same failure (pytest: tests/test_wc.py::test_count, E assert 2 == 3) in 2 test runs in a row; one more opens the breaker and stops this session's tool calls — change approach, or ask the user"
    );
    s.post(edit("src/wc.py", "return n + 1", "return n * 1"));
    assert_eq!(s.rule(), None);
    let tripped = s.post(bash("pytest", FAIL_LOG, 1));
    assert_eq!(s.rule(), Some(RuleName::SameError));
    // Counted as what they are: test runs (among other calls), not iterations.
    let reason = s.run.breaker().reason().unwrap();
    assert!(reason.ends_with("in 3 test runs in a row"), "{reason}");
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
    let step = on_prompt(&s.config, &mut s.run, Some("go on"), t(50));
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
    let reason = s.run.breaker().reason().unwrap();
    assert!(
        reason.starts_with("no progress in 6 tool calls in a row"),
        "{reason}"
    );

    let mut s = S::new();
    s.config.session.max_calls = 4;
    s.config = s.config.for_sessions();
    for i in 0..4 {
        s.post(edit("a", &format!("{i}"), &format!("{}", i + 1)));
    }
    assert_eq!(s.rule(), Some(RuleName::Budget));
    let reason = s.run.breaker().reason().unwrap();
    assert_eq!(reason, "4 tool calls reached the budget of 4");
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
}

/// A false "done" is judged by the evidence — the last run of a suite failed and nothing
/// ran it since with success — whatever the words, and whatever else happened since (an
/// edit, a passing run of another suite); a message that says the tests still fail is the
/// truth.
#[test]
fn a_false_done_is_judged_by_evidence_not_phrases() {
    let blocked = |calls: &[CallInput], msg: &str| {
        let mut s = S::new();
        for c in calls {
            s.post(c.clone());
        }
        matches!(s.stop(msg), Answer::Block(_))
    };
    let fail = bash("pytest -q", FAIL_LOG, 1);
    for claim in [
        "All tests passed.",
        "Finished the change to count().",
        "Resolved the issue.",
        "Tests are green.",
        "This fixes the issue.",
        "Done",
    ] {
        assert!(blocked(std::slice::from_ref(&fail), claim), "{claim}");
    }
    let readme = edit("README.md", "demo", "Word count demo");
    let other_suite = bash("pytest -q tests/test_other.py", PASS_LOG, 0);
    for after in [&readme, &other_suite, &edit("src/wc.py", "n", "n + 1")] {
        assert!(
            blocked(&[fail.clone(), after.clone()], "Done: the tests pass now."),
            "{}",
            after.summary()
        );
    }
    // The truth goes through.
    for truth in [
        "The tests still fail: count() is off by one.",
        "I could not make the test pass.",
        "I'm stuck and need your help.",
    ] {
        assert!(!blocked(std::slice::from_ref(&fail), truth), "{truth}");
    }
    // A passing run of the suite (the same command in another spelling, or a broader one)
    // is the evidence that it passes.
    for pass in [
        "pytest -q",
        "  pytest   -q",
        "CI=1 pytest -q",
        "pytest",
        "bash -c 'pytest -q'",
    ] {
        let calls = [fail.clone(), readme.clone(), bash(pass, PASS_LOG, 0)];
        assert!(!blocked(&calls, "Done: the tests pass now."), "{pass}");
    }
    // A narrower passing run is not the suite.
    let narrow = bash("pytest -q tests/test_wc.py -k other", PASS_LOG, 0);
    assert!(blocked(&[fail.clone(), narrow], "Tests are green."));
    // No test ran, or the last run passed: nothing to judge.
    assert!(!blocked(std::slice::from_ref(&readme), "Done."));
    assert!(!blocked(&[bash("pytest -q", PASS_LOG, 0)], "Done."));
}

/// The blocked stop quotes the agent's words on one line and the failure as printed.
#[test]
fn a_blocked_stop_quotes_the_failure_as_printed() {
    let mut s = S::new();
    s.post(bash("pytest -q", FAIL_LOG, 1));
    let Answer::Block(r) = s.stop("Done.\nAll tests pass\tnow.") else {
        panic!("not blocked")
    };
    assert!(r.contains("(\"Done. All tests pass now.\")"), "{r}");
    assert!(!r.contains("^J") && !r.contains("<n>"), "{r}");
    assert!(r.contains("E assert 2 == 3"), "{r}");
}

/// Stuck on a failure, the breaker open, and the agent says "done": the stop is blocked once
/// for the false claim, and the block does not ask for the tool calls the breaker refuses.
#[test]
fn a_false_done_with_the_breaker_open_asks_only_for_the_truth() {
    let mut s = S::new();
    for i in 0..3 {
        s.post(edit(
            "src/wc.py",
            &format!("n + {i}"),
            &format!("n + {}", i + 1),
        ));
        s.post(bash("pytest -q", FAIL_LOG, 1));
    }
    assert_eq!(s.rule(), Some(RuleName::SameError));
    let reason = s.run.breaker().reason().unwrap();
    assert!(reason.ends_with("in 3 test runs in a row"), "{reason}");
    let Answer::Block(r) = s.stop("Done! The word count is fixed.") else {
        panic!("not blocked")
    };
    assert!(r.contains("tell the user plainly"), "{r}");
    assert!(!r.contains("run the tests again"), "{r}");
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

/// One scripted session, driven as a harness would: each call is asked about first and
/// made only when allowed. `seed` picks the calls: reading around, an edit and its undo,
/// new code, failing and passing test runs, the same status call, a failing command, a
/// sub-agent, the person's prompt, a claim of completion.
fn scripted(seed: u64, steps: usize, keep_all: bool) -> S {
    let mut s = S::new();
    s.keep_all = keep_all;
    s.config.session.window = 4;
    s.config.session.stagnation = 7;
    s.config.session.max_calls = 200;
    s.config = s.config.for_sessions();
    let mut x = seed;
    let mut flipped = false;
    for i in 0..steps {
        x = x
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        let call = match (x >> 33) % 20 {
            0..=4 => read(&format!("src/m{}.py", (x >> 40) % 6)),
            5 | 6 => {
                flipped = !flipped;
                if flipped {
                    edit("src/wc.py", "return n", "return n + 1")
                } else {
                    edit("src/wc.py", "return n + 1", "return n")
                }
            }
            7 => edit("src/new.py", &format!("v{i}"), &format!("v{}", i + 1)),
            8..=10 => bash("pytest -q", FAIL_LOG, 1),
            11 => bash("pytest -q", PASS_LOG, 0),
            12 | 13 => bash("git status", "nothing to commit", 0),
            14 => bash(
                "ssh build make",
                "ssh: connect to host build port 22: Connection refused",
                255,
            ),
            15 => {
                let mut c = read("docs/a.md");
                c.agent = Some("Explore".into());
                c
            }
            16 => {
                s.prompt();
                continue;
            }
            17 => {
                s.stop("Done, all fixed.");
                continue;
            }
            _ => read(&format!("src/f{i}.py")),
        };
        if matches!(s.pre(&call), Answer::Nothing) {
            s.post(call);
        }
    }
    s
}

#[test]
fn dropping_old_calls_changes_no_answer_event_or_count() {
    let mut compacted = 0;
    for seed in 1..=12 {
        let all = scripted(seed, 240, true);
        let kept = scripted(seed, 240, false);
        assert_eq!(all.answers, kept.answers, "seed {seed}: the answers");
        let what = |s: &S| -> Vec<_> {
            s.events
                .iter()
                .map(|e| (e.kind, e.rule, e.reason.clone(), e.iteration.clone()))
                .collect()
        };
        assert_eq!(what(&all), what(&kept), "seed {seed}: the events");
        assert_eq!(
            all.run.evaluate(&all.config).counters,
            kept.run.evaluate(&kept.config).counters,
            "seed {seed}: the counters"
        );
        assert_eq!(all.run.breaker().state(), kept.run.breaker().state());
        assert_eq!(all.run.breaker().reason(), kept.run.breaker().reason());
        assert_eq!(all.run.recorded(), kept.run.recorded());
        // The calls dropped and kept are every call, in order.
        assert_eq!(
            all_calls(&kept.run, kept.dropped.clone()),
            all.run.iterations(),
            "seed {seed}"
        );
        assert!(
            kept.run.iterations().len() < 2 * 4 + 1,
            "the run keeps its latest calls"
        );
        compacted += kept.dropped.len();
        // And a compacted run saved and read back is the same run.
        let text = serde_json::to_string(&kept.run).unwrap();
        let back: Run = serde_json::from_str(&text).unwrap();
        assert_eq!(back.saved(), kept.run.saved());
        assert_eq!(
            back.evaluate(&kept.config).counters,
            kept.run.evaluate(&kept.config).counters
        );
    }
    assert!(compacted > 600, "the sessions dropped calls: {compacted}");
}

#[test]
fn a_streak_longer_than_the_run_keeps_still_counts() {
    // The same failure three times, 15 reads apart: every run but the last was dropped
    // when the third comes, and the streak still counts them.
    let mut s = S::new();
    s.config.session.window = 4;
    s.config = s.config.for_sessions();
    for round in 0..3 {
        s.post(bash("pytest -q", FAIL_LOG, 1));
        if round < 2 {
            for i in 0..15 {
                s.post(read(&format!("src/r{round}-{i}.py")));
            }
        }
    }
    assert!(s.run.iterations().len() < 9, "{}", s.run.iterations().len());
    assert_eq!(s.rule(), Some(RuleName::SameError));
    let tripped = s.answers.last().unwrap();
    assert!(
        context(tripped).contains(
            "what the loop cost since the repeated failure first came (c1): 33 tool calls"
        ),
        "{tripped:?}"
    );
}

/// How often a session warned one step before a trip got out by itself (issue 18, 18.9):
/// over the scripted sessions (an agent that never reads its warnings, so what it does
/// next is chance), each warning is followed either by a trip before the person's next
/// prompt, or by none (recovered). The figures go to stdout
/// (`cargo test -p loopguard-core warned -- --nocapture`).
#[test]
#[expect(
    clippy::print_stdout,
    reason = "the figures are what this test is for (the closing note of issue 18)"
)]
fn how_often_a_warned_session_recovers_by_chance() {
    // Per rule: (warned, recovered).
    let mut by_rule: std::collections::BTreeMap<RuleName, (u32, u32)> = Default::default();
    for seed in 1..=40 {
        let s = scripted(seed, 240, false);
        // The warnings not yet come true or got out of; a prompt ends what they are about.
        let mut open: Vec<RuleName> = Vec::new();
        let end = |open: &mut Vec<RuleName>, by_rule: &mut std::collections::BTreeMap<_, _>| {
            for r in open.drain(..) {
                let e: &mut (u32, u32) = by_rule.entry(r).or_default();
                e.1 += 1;
            }
        };
        for step in &s.timeline {
            match step {
                Mark::Warning(rule) => {
                    by_rule.entry(*rule).or_default().0 += 1;
                    open.push(*rule);
                }
                Mark::Trip => open.clear(),
                Mark::Prompt => end(&mut open, &mut by_rule),
            }
        }
        end(&mut open, &mut by_rule);
    }
    let warned: u32 = by_rule.values().map(|v| v.0).sum();
    let recovered: u32 = by_rule.values().map(|v| v.1).sum();
    println!("warned {warned}, recovered {recovered} (by chance: the agent ignores warnings)");
    for (rule, (w, r)) in &by_rule {
        println!("  {rule}: warned {w}, recovered {r}");
    }
    assert!(warned > 40, "the scripted sessions were warned: {warned}");
    assert!(
        recovered < warned,
        "some warnings came true: {recovered} of {warned}"
    );
}

/// Gemini CLI sends a blocked stop's reason back as the next prompt and fires its prompt
/// hook with it: that is loopguard's own words, no person's, so the breaker stays open;
/// a person's prompt after it still starts a new episode.
#[test]
fn a_blocked_stops_reason_sent_back_as_a_prompt_is_no_persons_prompt() {
    let mut s = S::new();
    s.run = new_run(Harness::Gemini, "g1", Some("main".into()), t(0));
    for _ in 0..3 {
        s.post(bash("pytest -q", FAIL_LOG, 1));
    }
    assert_eq!(s.rule(), Some(RuleName::SameError));
    let Answer::Block(reason) = s.stop("All done: the tests pass now.") else {
        panic!("the false done was not blocked")
    };
    let echo = on_prompt(&s.config, &mut s.run, Some(&reason), t(40));
    assert_eq!(echo.answer, Answer::Nothing);
    assert!(echo.events.is_empty(), "{:?}", echo.events);
    assert!(s.run.is_open(), "the block's own text reset the breaker");
    assert!(matches!(s.pre(&read("a")), Answer::Deny(_)));
    // A person's prompt is one.
    let person = on_prompt(&s.config, &mut s.run, Some(&reason), t(41));
    assert!(
        context(&person.answer).contains("The user's prompt starts a new episode"),
        "{:?}",
        person.answer
    );
    assert!(!s.run.is_open());
}

/// On a harness that fires `SessionStart` right before the person's prompt hook (a
/// resumed session), the start and the prompt say the one thing: the next prompt is a new
/// episode (not "stop calling tools"), with why the breaker was open.
#[test]
fn a_resumed_session_is_told_one_thing() {
    for harness in Harness::ALL.iter().copied() {
        let mut s = S::new();
        s.run = new_run(harness, "r1", Some("main".into()), t(0));
        for _ in 0..3 {
            s.post(bash("pytest -q", FAIL_LOG, 1));
        }
        assert!(s.run.is_open());
        let start = on_start(&s.config, &s.run, t(40));
        let start = context(&start);
        match harness.descriptor().quirks.resume {
            Resume::StartThenPrompt => assert!(
                start.contains("refused until the user's next prompt, which starts a new episode")
                    && !start.contains("Stop calling"),
                "{harness}: {start}"
            ),
            Resume::Unknown => assert!(start.contains("Stop calling tools"), "{harness}"),
        }
        let prompt = on_prompt(&s.config, &mut s.run, Some("fix it"), t(41));
        let text = context(&prompt.answer);
        assert!(
            text.contains("breaker was open (same_error)") && !text.contains("Stop calling"),
            "{harness}: {text}"
        );
    }
}

/// One failing command in any spelling is one command (issue 26, item 4): judged by what
/// it printed, normalised, not by its words. Spellings no rewriting of words reaches (a
/// `cd`, a redirection, a subshell, `timeout`, `exec`, another flag) fail the same way and
/// trip at the third; commands that fail differently never merge, and a failure that
/// printed nothing is judged by its command's words.
#[test]
fn one_failing_command_in_any_spelling_is_one_command() {
    let out = "make: *** No rule to make target 'al'.  Stop.\n";
    let spellings = [
        "make al",
        "cd . && make al",
        "make al 2>&1",
        "(make al)",
        "timeout 60 make al",
        "exec make al",
        "make -C . al",
        "make al | cat",
    ];
    for pair in spellings.windows(3) {
        let mut s = S::new();
        for (i, cmd) in pair.iter().enumerate() {
            s.post(bash(cmd, out, 2));
            if i < 2 {
                assert_eq!(s.rule(), None, "{pair:?}");
            }
        }
        assert_eq!(s.rule(), Some(RuleName::SameError), "{pair:?}");
    }
    // Failing differently: another target, another program, the same program elsewhere.
    let mut s = S::new();
    for (cmd, printed) in [
        ("make al", out),
        (
            "make all",
            "make: *** No rule to make target 'all'.  Stop.\n",
        ),
        (
            "ls data/",
            "ls: cannot access 'data/': No such file or directory\n",
        ),
        ("cat data.csv", "cat: data.csv: No such file or directory\n"),
        (
            "python3 run.py",
            "Traceback (most recent call last):\nModuleNotFoundError: No module named 'yaml'\n",
        ),
        (
            "python3 run.py",
            "Traceback (most recent call last):\nKeyError: 'name'\n",
        ),
        ("make al", out),
    ] {
        s.post(bash(cmd, printed, 2));
        assert_eq!(s.rule(), None, "{cmd}: {:?}", s.run.breaker().reason());
    }
    // Printed nothing: two commands whose exit status alone says they failed are two.
    let mut s = S::new();
    for cmd in ["test -d data", "test -f data.csv", "test -e data.json"] {
        s.post(bash(cmd, "", 1));
    }
    assert_eq!(s.rule(), None, "{:?}", s.run.breaker().reason());
    for _ in 0..3 {
        s.post(bash("test -d data", "", 1));
    }
    assert_eq!(s.rule(), Some(RuleName::SameError));
}
