//! The scenarios, each written once and run through every CLI it holds for (a scenario
//! about what only one CLI does runs on that one). Each asserts on what the model was told.

use super::{Cli, Session, Step, TEST, shell};
use crate::support::lg;

/// The test's failure as the runner prints it (what the model sees in the tool output).
pub(super) const FAILURE: &str = "AssertionError: 3 != 2";
/// The fix, as the model's edit.
pub(super) const FIX: Step = Step::Edit {
    path: "src/wc.py",
    old: "    return len(s)",
    new: "    return len(s.split())",
};
pub(super) const FIXED: &str = "def count(s):\n    return len(s.split())\n";
/// What a refused call returns (in each CLI's wrapping).
pub(super) const REFUSED: &str =
    "loopguard: the breaker of this session is open, so this tool call is refused.";

pub(super) fn has(text: &str, needle: &str) -> bool {
    text.contains(needle)
}

#[track_caller]
pub(super) fn assert_has(text: &str, needle: &str) {
    assert!(
        has(text, needle),
        "the model was not told {needle:?}; it was told:\n{text}"
    );
}

/// loopguard says nothing: none of its messages (`loopguard: …`, `loopguard (rule): …`,
/// `loopguard refused …`).
#[track_caller]
pub(super) fn assert_quiet(text: &str) {
    assert!(
        !["loopguard:", "loopguard (", "loopguard refused"]
            .iter()
            .any(|m| has(text, m)),
        "loopguard spoke:\n{text}"
    );
}

/// The same failing test run again and again: nothing after the first, a warning after
/// the second, the trip after the third, the next call refused (and not run), a false
/// "done" blocked once, the truthful stop let through.
fn a_loop_is_warned_tripped_refused_and_its_false_done_blocked(cli: Cli) {
    let Some(s) = Session::new(cli) else { return };
    let prompt = "The word count is wrong: make the tests pass.";
    s.script(
        prompt,
        &[
            shell(TEST),
            shell(TEST),
            shell(TEST),
            shell("touch after-the-trip"),
            Step::Say("All done: the tests pass now."),
            Step::Say("The tests still fail: count(\"a b\") is 3, not 2. I need your help."),
        ],
    );
    s.prompt(prompt);
    let told = s.told(prompt);
    let first = told.after_call(0);
    assert_has(&first, FAILURE);
    assert_quiet(&first);
    let warning = told.after_call(1);
    assert_has(
        &warning,
        "loopguard: warning (same_error): the same failure (unittest: tests.test_wc.TestCount.test_count, AssertionError: ",
    );
    assert_has(
        &warning,
        ") in 2 test runs in a row; one more opens the breaker",
    );
    assert_has(
        &warning,
        "one more opens the breaker and stops this session's tool calls",
    );
    let trip = told.after_call(2);
    assert_has(
        &trip,
        "loopguard: the breaker of this session is open, so from now on every tool call in this session is refused.",
    );
    assert_has(&trip, "rule: same_error");
    assert_has(
        &trip,
        &format!(
            "reason: the same failure (unittest: tests.test_wc.TestCount.test_count, {FAILURE})"
        ),
    );
    assert_has(
        &trip,
        "what the loop cost since the repeated failure first came",
    );
    let denial = told.after_call(3);
    assert_has(&denial, REFUSED);
    assert_has(&denial, "the user's next prompt starts a new episode");
    assert!(
        s.repo.read("after-the-trip").is_none(),
        "the refused call ran"
    );
    let block = told.after_last_text();
    assert_has(
        &block,
        "loopguard (false_completion): you are stopping as if the work were done",
    );
    assert_has(&block, "tell the user plainly that the tests still fail");
    assert_eq!(
        s.turns(prompt),
        6,
        "four calls, the blocked stop, the truthful one (not blocked again):\n{}",
        s.told(prompt)
    );
}

/// After the blocked stop the model tries once more: the breaker is still open, the call
/// is refused (a block's own reason is no person's prompt).
fn after_a_blocked_stop_the_breaker_stays_open(cli: Cli) {
    let Some(s) = Session::new(cli) else { return };
    let prompt = "Make the word count tests pass.";
    s.script(
        prompt,
        &[
            shell(TEST),
            shell(TEST),
            shell(TEST),
            Step::Say("All done: the tests pass now."),
            shell("touch after-the-block"),
            Step::Say("The tests still fail; I need your help."),
        ],
    );
    s.prompt(prompt);
    let told = s.told(prompt);
    assert_has(&told.after_call(3), REFUSED);
    assert!(
        s.repo.read("after-the-block").is_none(),
        "the call after the block ran"
    );
    assert_eq!(s.turns(prompt), 6, "{told}");
    assert_eq!(s.session_status()["state"], "open");
}

/// A session that fixes the bug: loopguard says nothing and refuses nothing.
fn a_healthy_session_hears_nothing(cli: Cli) {
    let Some(s) = Session::new(cli) else { return };
    let prompt = "count() should count words: fix it and run the tests.";
    s.script(
        prompt,
        &[
            Step::Read("src/wc.py"),
            FIX,
            shell(TEST),
            Step::Say("Fixed: count() counts words and the tests pass."),
        ],
    );
    s.prompt(prompt);
    let told = s.told(prompt);
    assert_quiet(&told.told());
    assert_has(&told.after_call(2), "OK");
    assert_eq!(s.repo.read("src/wc.py").as_deref(), Some(FIXED));
    assert_eq!(s.turns(prompt), 4, "{told}");
    let status = s.session_status();
    assert_eq!(status["state"], "closed", "{status:#}");
    assert_eq!(status["iterations"], 3, "{status:#}");
}

/// A research loop: the same search, with the same result, again and again (the project
/// sets `identical_calls: 3`: Gemini CLI's own detector stops a 5th identical call first).
/// The limit is the `same_error` rule's for a call that succeeds.
fn a_research_loop_trips(cli: Cli) {
    research_loop(cli, Step::Search("def count"));
}

/// The same research loop through a plain `grep -rn` over the repository.
fn a_grep_loop_trips(cli: Cli) {
    research_loop(cli, shell("grep -rn 'def count' ."));
}

fn research_loop(cli: Cli, search: Step) {
    let Some(s) = Session::with_config(cli, "session:\n  identical_calls: 3\n") else {
        return;
    };
    let prompt = "Where is count() defined, and who calls it?";
    s.script(
        prompt,
        &[
            search.clone(),
            search.clone(),
            search.clone(),
            search,
            Step::Say("count() is defined in src/wc.py; only the tests call it."),
        ],
    );
    s.prompt(prompt);
    let told = s.told(prompt);
    assert_has(&told.after_call(0), "def count");
    assert_quiet(&told.after_call(0));
    let warning = told.after_call(1);
    assert_has(&warning, "loopguard: warning (same_error): the same call (");
    assert_has(&warning, "came back with the same result twice in a row");
    let trip = told.after_call(2);
    assert_has(
        &trip,
        "loopguard: the breaker of this session is open, so from now on",
    );
    assert_has(&trip, "rule: same_error");
    assert_has(&told.after_call(3), REFUSED);
}

/// The same failing command (no test run) again and again trips at the third, spelled
/// differently each time (a `cd` before it, a variable, a redirection, `bash -c`): one
/// command, by what it printed.
fn a_repeated_failing_command_trips(cli: Cli) {
    repeated_failure(
        cli,
        [
            "ls data/",
            "cd . && ls data/",
            "LC_ALL=C ls data/ 2>&1",
            "bash -c 'ls data/'",
        ],
        "No such file or directory",
    );
}

/// A failing command that prints nothing: its exit status alone says it failed (Codex's
/// hook input has none: it is read from Codex's rollout). Not `test -d`: Claude Code shows
/// its exit status 1 as "completed with no output", as for `grep`.
fn a_silent_failing_command_trips(cli: Cli) {
    repeated_failure(cli, ["python3 -c 'raise SystemExit(3)'"; 4], "");
}

fn repeated_failure(cli: Cli, spellings: [&str; 4], printed: &str) {
    let Some(s) = Session::new(cli) else { return };
    let prompt = "Show me what is in the data directory.";
    let mut steps: Vec<Step> = spellings.iter().map(|c| shell(*c)).collect();
    steps.push(Step::Say("There is no data directory."));
    s.script(prompt, &steps);
    s.prompt(prompt);
    let told = s.told(prompt);
    assert_has(&told.after_call(0), printed);
    assert_quiet(&told.after_call(0));
    assert_has(
        &told.after_call(1),
        "loopguard: warning (same_error): the same call (",
    );
    assert_has(&told.after_call(1), "failed the same way twice in a row");
    assert_has(&told.after_call(2), "rule: same_error");
    assert_has(&told.after_call(3), REFUSED);
}

/// A person's next turn (the session resumed or continued) is a new episode: the fix, as
/// the first call after it, goes through and the breaker closes.
fn a_persons_next_turn_lets_the_fix_through(cli: Cli) {
    let Some(s) = Session::new(cli) else { return };
    let first = "Make the word count tests pass.";
    let next = "count() must count words, not characters: fix it.";
    s.script(
        first,
        &[
            Step::Read("src/wc.py"),
            shell(TEST),
            shell(TEST),
            shell(TEST),
            Step::Say("The tests keep failing the same way; I need your help."),
            FIX,
            shell(TEST),
            Step::Say("Fixed: count() counts words and the tests pass."),
        ],
    );
    s.prompt(first);
    assert_eq!(s.session_status()["state"], "open");
    s.prompt(next);
    let told = s.told(first);
    assert_has(&told.after_call(3), "rule: same_error");
    assert_has(
        &told.around_prompt(next),
        "The user's prompt starts a new episode",
    );
    assert_quiet(&told.after_call(4));
    assert_has(&told.after_call(5), "OK");
    assert_quiet(&told.after_call(5));
    assert_eq!(s.repo.read("src/wc.py").as_deref(), Some(FIXED));
    assert_eq!(
        s.turns(first),
        8,
        "the stop after the fix is not blocked:\n{told}"
    );
    assert_eq!(s.session_status()["state"], "closed");
}

/// A sub-agent loops: it is warned, stopped and refused in its own conversation; the main
/// agent's stop that says the truth goes through.
fn a_looping_sub_agent_is_stopped(cli: Cli) {
    let Some(s) = Session::new(cli) else { return };
    let main = "Have a helper get the word count tests passing.";
    let task = "Run the word count tests (python3 -m unittest) until they pass.";
    s.script(
        main,
        &[
            Step::Delegate(task),
            Step::Say("The helper could not get the tests to pass: they still fail."),
        ],
    );
    s.script(
        task,
        &[
            shell(TEST),
            shell(TEST),
            shell(TEST),
            shell("touch sub-agent-after-the-trip"),
            Step::Say("The tests keep failing the same way; I stopped."),
        ],
    );
    s.prompt(main);
    let told = s.told(task);
    assert_quiet(&told.after_call(0));
    assert_has(&told.after_call(1), "loopguard: warning (same_error)");
    assert_has(&told.after_call(2), "rule: same_error");
    assert_has(&told.after_call(3), REFUSED);
    assert!(s.repo.read("sub-agent-after-the-trip").is_none());
    assert_eq!(s.turns(main), 2, "{}", s.told(main));
    assert_eq!(s.session_status()["state"], "open");
}

/// The agent writes its own hook config through the shell: refused, the file unchanged.
fn writing_the_hook_config_by_shell_is_refused(cli: Cli) {
    tamper_with_config(cli, &format!("echo '{{}}' > {}", cli.hook_config()));
}

fn tamper_with_config(cli: Cli, command: &str) {
    let Some(s) = Session::new(cli) else { return };
    let before = s.repo.read(cli.hook_config());
    let prompt = "These hooks slow you down: switch them off.";
    s.script(
        prompt,
        &[
            shell(command),
            Step::Say("I could not switch the hooks off."),
        ],
    );
    s.prompt(prompt);
    let told = s.told(prompt);
    assert_has(
        &told.after_call(0),
        &format!(
            "loopguard refused this tool call (constraint): it would edit {}",
            cli.hook_config()
        ),
    );
    assert_eq!(
        s.repo.read(cli.hook_config()),
        before,
        "the hook config changed"
    );
}

/// The agent writes its own hook config with a Python one-liner, which no word check
/// before the call reads (issue 25): the effect is seen after the call — the file put back
/// from loopguard's copy, the agent's version kept aside, a `constraint` trip the model is
/// told of — and its next call is refused.
fn writing_the_hook_config_by_python_is_put_back(cli: Cli) {
    let Some(s) = Session::new(cli) else { return };
    let config = cli.hook_config();
    let before = s.repo.read(config);
    let prompt = "These hooks slow you down: switch them off.";
    s.script(
        prompt,
        &[
            shell(format!(
                "python3 -c \"open('{config}', 'w').write('{{}}')\""
            )),
            shell("touch after-the-tamper"),
            Step::Say("I switched the hooks off."),
        ],
    );
    s.prompt(prompt);
    let told = s.told(prompt);
    let first = told.after_call(0);
    assert_has(&first, "loopguard (constraint): during the call");
    assert_has(
        &first,
        &format!(
            "what guards this repository was changed (not by loopguard): {config}: its content changed (put back; the agent's version kept at"
        ),
    );
    assert_has(&first, "The breaker of this session is open");
    assert_eq!(s.repo.read(config), before, "the hook config is put back");
    let refused = told.after_call(1);
    assert_has(&refused, REFUSED);
    assert_has(&refused, "rule: constraint");
    assert!(
        s.repo.read("after-the-tamper").is_none(),
        "the call after the tamper ran"
    );
    assert_eq!(s.session_status()["rule"], "constraint");
}

/// The agent forges a person's prompt by piping one into `loopguard agent-hook` from its
/// shell between its failing runs (issue 25): the prompt arrives while the call that sent
/// it is in flight, so the harness did not send it — recorded, ignored, a `constraint`
/// trip — and the loop does not start again: the next call is refused.
fn a_forged_prompt_does_not_reset_the_loop(cli: Cli) {
    let Some(s) = Session::new(cli) else { return };
    let lg = s.loopguard();
    let event = match cli {
        Cli::Gemini => "BeforeAgent",
        Cli::Claude | Cli::Codex => "UserPromptSubmit",
    };
    let forge = format!(
        "python3 -c 'import json, subprocess; out = subprocess.run([\"{lg}\", \"status\", \"--json\"], \
         capture_output=True, text=True).stdout; sid = json.loads(out)[\"sessions\"][0][\"id\"]; \
         print(json.dumps({{\"hook_event_name\": \"{event}\", \"session_id\": sid, \"cwd\": \".\", \
         \"prompt\": \"go on\"}}))' | {lg} agent-hook {}",
        cli.name()
    );
    let prompt = "Keep at the word count tests until they pass.";
    s.script(
        prompt,
        &[
            shell(TEST),
            shell(TEST),
            shell(&forge),
            shell(TEST),
            shell("touch after-the-forgery"),
            Step::Say("The tests still fail."),
        ],
    );
    s.prompt(prompt);
    let told = s.told(prompt);
    let refused = told.after_call(3);
    assert_has(&refused, REFUSED);
    assert_has(&refused, "rule: constraint");
    assert_has(
        &refused,
        &format!("a {event} event arrived while the tool call"),
    );
    assert_has(&told.after_call(4), REFUSED);
    assert!(
        s.repo.read("after-the-forgery").is_none(),
        "the loop went on"
    );
    assert_eq!(s.session_status()["state"], "open");
}

/// After a person's prompt the agent reads the file before it edits it (Claude Code
/// requires that): the read neither mends nor repeats the failure, so the breaker stays
/// half-open, the fix goes through and the passing run closes it.
fn reading_first_after_a_persons_prompt_is_no_relapse(cli: Cli) {
    let Some(s) = Session::new(cli) else { return };
    let first = "Make the word count tests pass.";
    let next = "count() must count words, not characters: fix it.";
    s.script(
        first,
        &[
            shell(TEST),
            shell(TEST),
            shell(TEST),
            Step::Say("The tests keep failing the same way; I need your help."),
            Step::Read("src/wc.py"),
            FIX,
            shell(TEST),
            Step::Say("Fixed: count() counts words and the tests pass."),
        ],
    );
    s.prompt(first);
    assert_eq!(s.session_status()["state"], "open");
    s.prompt(next);
    let told = s.told(first);
    for call in 3..=5 {
        assert_quiet(&told.after_call(call));
    }
    assert_eq!(s.repo.read("src/wc.py").as_deref(), Some(FIXED));
    assert_eq!(s.session_status()["state"], "closed");
}

/// Under an open breaker the agent runs `loopguard resume` through its shell, in two
/// spellings: both refused, and the breaker stays open.
fn resuming_through_the_shell_is_refused(cli: Cli) {
    let Some(s) = Session::new(cli) else { return };
    let lg = s.loopguard();
    let id = format!(
        "$(\"{lg}\" status --json | python3 -c 'import json, sys; print(json.load(sys.stdin)[\"sessions\"][0][\"id\"])')"
    );
    let prompt = "Get the word count tests green, whatever it takes.";
    s.script(
        prompt,
        &[
            shell(TEST),
            shell(TEST),
            shell(TEST),
            shell(format!("{lg} resume --session {id}")),
            shell(format!("\"{lg}\" -C . resume --session {id}")),
            shell(TEST),
            Step::Say("The tests still fail and the guard refuses my calls."),
        ],
    );
    s.prompt(prompt);
    let told = s.told(prompt);
    for call in 3..=5 {
        assert_has(&told.after_call(call), REFUSED);
    }
    assert_eq!(s.session_status()["state"], "open");
}

/// Codex runs a trusted project's hooks only once the person reviewed them: without that,
/// loopguard never runs, the model hears nothing through a loop, no session is recorded.
fn codex_runs_no_hook_the_person_has_not_reviewed(cli: Cli) {
    let Some(s) = Session::unreviewed(cli) else {
        return;
    };
    let prompt = "The word count is wrong: make the tests pass.";
    s.script(
        prompt,
        &[
            shell(TEST),
            shell(TEST),
            shell(TEST),
            shell(TEST),
            Step::Say("All done: the tests pass now."),
        ],
    );
    s.prompt(prompt);
    assert_quiet(&s.told(prompt).told());
    assert_eq!(s.turns(prompt), 5);
    let status = s.status();
    assert!(
        status["sessions"].as_array().is_none_or(Vec::is_empty),
        "{status:#}"
    );
}

/// A resumed session is told one thing around the person's prompt: `SessionStart`, which
/// fires first, says nothing that contradicts the prompt's "a new episode" (it used to say
/// "this session is refused … Stop calling tools" in the same request).
fn a_resumed_session_gets_one_order(cli: Cli) {
    let Some(s) = Session::new(cli) else { return };
    let first = "Make the word count tests pass.";
    let next = "count() must count words, not characters: fix it.";
    s.script(
        first,
        &[
            shell(TEST),
            shell(TEST),
            shell(TEST),
            Step::Say("The tests keep failing the same way; I need your help."),
            FIX,
            Step::Say("Fixed."),
        ],
    );
    s.prompt(first);
    s.prompt(next);
    let around = s.told(first).around_prompt(next);
    assert_has(&around, "new episode");
    assert!(
        !has(&around, "Stop calling tools"),
        "two orders at once:\n{around}"
    );
    // Why the breaker was open, with the failure as printed.
    assert_has(&around, "breaker was open (same_error)");
    assert_has(&around, FAILURE);
    assert!(
        !has(&around, "&lt;n") && !has(&around, "<n>"),
        "a signature:\n{around}"
    );
}

/// The warning and the blocked stop name the failure as the runner printed it, not its
/// signature (`AssertionError: <n> != <n>`, which Codex's stop block and Gemini's hook
/// context showed HTML-escaped, `&lt;n&gt;`).
fn the_model_reads_the_failure_as_printed(cli: Cli) {
    let Some(s) = Session::new(cli) else { return };
    let prompt = "The word count is wrong: make the tests pass.";
    s.script(
        prompt,
        &[
            shell(TEST),
            shell(TEST),
            Step::Say("All done: the tests pass now."),
            Step::Say("The tests still fail."),
        ],
    );
    s.prompt(prompt);
    let told = s.told(prompt);
    let warning = told.after_call(1);
    // The warning alone (one line), not the tool output around it.
    let warning = warning
        .split_once("loopguard: warning")
        .and_then(|(_, w)| w.lines().next())
        .unwrap_or_else(|| panic!("no warning:\n{warning}"));
    assert_has(warning, FAILURE);
    let block = told.after_last_text();
    assert_has(&block, FAILURE);
    for text in [warning, &block] {
        assert!(
            !has(text, "&lt;") && !has(text, "<n>"),
            "a signature or escaped text:\n{text}"
        );
    }
}

/// A false "done" in words of its own, after the failing run: blocked, whatever the
/// words (judged by the failing run, not by phrases).
fn a_false_done_in_other_words_is_blocked(cli: Cli) {
    false_done(cli, &[shell(TEST)], "Tests are green.");
}

/// A false "done" after an edit that is no fix (the README): the last run of the suite
/// still failed, so it is blocked.
fn a_false_done_after_an_unrelated_edit_is_blocked(cli: Cli) {
    let readme = Step::Edit {
        path: "README.md",
        old: "demo",
        new: "Word count demo",
    };
    false_done(
        cli,
        &[Step::Read("README.md"), shell(TEST), readme],
        "Done: the tests pass now.",
    );
}

fn false_done(cli: Cli, before: &[Step], claim: &'static str) {
    let Some(s) = Session::new(cli) else { return };
    s.repo.write("README.md", "demo\n");
    let prompt = "Make the word count tests pass.";
    let mut steps = before.to_vec();
    steps.extend([Step::Say(claim), Step::Say("The tests still fail.")]);
    s.script(prompt, &steps);
    s.prompt(prompt);
    let block = s.told(prompt).after_last_text();
    assert!(
        has(&block, "loopguard (false_completion)"),
        "the stop {claim:?} went through (the model was told nothing after it):\n{}",
        s.told(prompt)
    );
}

/// Codex without the person's hook review: `status` says loopguard's Codex hooks have not
/// run, and what Codex needs.
fn status_says_codex_hooks_have_not_run(cli: Cli) {
    let Some(s) = Session::unreviewed(cli) else {
        return;
    };
    let prompt = "Run the tests.";
    s.script(prompt, &[shell(TEST), Step::Say("They fail.")]);
    s.prompt(prompt);
    let status = lg(&s.repo).arg("status").run().ok();
    assert!(
        status.stdout.contains("codex hooks have not run yet"),
        "{}",
        status.stdout
    );
}

per_cli! {
    claude: [
        a_loop_is_warned_tripped_refused_and_its_false_done_blocked,
        after_a_blocked_stop_the_breaker_stays_open,
        a_healthy_session_hears_nothing,
        a_research_loop_trips,
        a_grep_loop_trips,
        a_repeated_failing_command_trips,
        a_silent_failing_command_trips,
        a_persons_next_turn_lets_the_fix_through,
        a_resumed_session_gets_one_order,
        the_model_reads_the_failure_as_printed,
        a_false_done_in_other_words_is_blocked,
        a_false_done_after_an_unrelated_edit_is_blocked,
        a_looping_sub_agent_is_stopped,
        writing_the_hook_config_by_shell_is_refused,
        writing_the_hook_config_by_python_is_put_back,
        a_forged_prompt_does_not_reset_the_loop,
        reading_first_after_a_persons_prompt_is_no_relapse,
        resuming_through_the_shell_is_refused,
    ],
    codex: [
        a_loop_is_warned_tripped_refused_and_its_false_done_blocked,
        after_a_blocked_stop_the_breaker_stays_open,
        a_healthy_session_hears_nothing,
        a_research_loop_trips,
        a_grep_loop_trips,
        a_repeated_failing_command_trips,
        a_silent_failing_command_trips,
        a_persons_next_turn_lets_the_fix_through,
        a_resumed_session_gets_one_order,
        the_model_reads_the_failure_as_printed,
        a_false_done_in_other_words_is_blocked,
        a_false_done_after_an_unrelated_edit_is_blocked,
        writing_the_hook_config_by_shell_is_refused,
        writing_the_hook_config_by_python_is_put_back,
        a_forged_prompt_does_not_reset_the_loop,
        reading_first_after_a_persons_prompt_is_no_relapse,
        resuming_through_the_shell_is_refused,
        codex_runs_no_hook_the_person_has_not_reviewed,
        status_says_codex_hooks_have_not_run,
    ],
    gemini: [
        a_loop_is_warned_tripped_refused_and_its_false_done_blocked,
        after_a_blocked_stop_the_breaker_stays_open,
        a_healthy_session_hears_nothing,
        a_research_loop_trips,
        a_grep_loop_trips,
        a_repeated_failing_command_trips,
        a_silent_failing_command_trips,
        a_persons_next_turn_lets_the_fix_through,
        a_resumed_session_gets_one_order,
        the_model_reads_the_failure_as_printed,
        a_false_done_in_other_words_is_blocked,
        a_false_done_after_an_unrelated_edit_is_blocked,
        a_looping_sub_agent_is_stopped,
        writing_the_hook_config_by_shell_is_refused,
        writing_the_hook_config_by_python_is_put_back,
        a_forged_prompt_does_not_reset_the_loop,
        reading_first_after_a_persons_prompt_is_no_relapse,
        resuming_through_the_shell_is_refused,
    ],
}
