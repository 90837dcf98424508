//! Scenarios that a known loopguard bug breaks today, on the CLIs listed below: what must
//! hold, asserted as it must, kept out of `cargo test` until the bug is fixed (then the
//! scenario moves to `scenarios`). Run them with
//!
//! ```sh
//! cargo test --features agent-known-failures --test it agents_e2e::known_failures
//! ```
//!
//! Each failure is named with what the model was told instead (issues 25 and 26).

use super::scenarios::{FIX, a_grep_loop_trips, assert_has, assert_quiet, tamper_with_config};
use super::{Cli, Session, Step, TEST, shell};

/// The agent writes its own hook config with a Python one-liner (issue 25): refused, the
/// file unchanged. Today the call runs and the config is emptied, on every CLI.
fn writing_the_hook_config_by_python_is_refused(cli: Cli) {
    tamper_with_config(
        cli,
        &format!(
            "python3 -c \"open('{}', 'w').write('{{}}')\"",
            cli.hook_config()
        ),
    );
}

/// The agent forges a person's prompt by piping one into `loopguard agent-hook` between its
/// failing runs (issue 25): the loop must still trip at the third failing run. Today the
/// forged prompt starts a new episode and the loop goes on, on every CLI.
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
    assert_has(&told.after_call(3), "rule: same_error");
    assert!(
        s.repo.read("after-the-forgery").is_none(),
        "the loop went on"
    );
}

/// After a person's prompt the agent reads the file before it edits it (Claude Code
/// requires that): the read is no relapse, the fix goes through. Today the read makes "no
/// progress after resume", the breaker opens again and the fix is refused, on every CLI.
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
    s.prompt(next);
    let told = s.told(first);
    for call in 3..=5 {
        assert_quiet(&told.after_call(call));
    }
    assert_eq!(s.session_status()["state"], "closed");
}

per_cli! {
    claude: [
        writing_the_hook_config_by_python_is_refused,
        a_forged_prompt_does_not_reset_the_loop,
        reading_first_after_a_persons_prompt_is_no_relapse,
    ],
    codex: [
        a_grep_loop_trips,
        writing_the_hook_config_by_python_is_refused,
        a_forged_prompt_does_not_reset_the_loop,
        reading_first_after_a_persons_prompt_is_no_relapse,
    ],
    gemini: [
        a_grep_loop_trips,
        writing_the_hook_config_by_python_is_refused,
        a_forged_prompt_does_not_reset_the_loop,
        reading_first_after_a_persons_prompt_is_no_relapse,
    ],
}
