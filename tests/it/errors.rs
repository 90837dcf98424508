//! What a person sees when loopguard stops on an error: `loopguard: error: …` naming what
//! is wrong, then the fix on a line of its own (`hint: …`), and the exit code of
//! docs/contract.md (2: theirs to fix; 3: the environment failed). One case per area:
//! the config, the environment, git; GitHub's timeout is in `ci_deadlines`.

use crate::support::{TestRepo, guarded, lg, lg_at};

/// The error line and the hint line of `stderr`: the message is one line starting with
/// `loopguard: error: `, and the next line is the hint (never `; hint:` inside the
/// message).
#[track_caller]
pub(crate) fn error_and_hint(stderr: &str) -> (&str, &str) {
    let mut lines = stderr
        .lines()
        .skip_while(|l| !l.starts_with("loopguard: error: "));
    let error = lines
        .next()
        .unwrap_or_else(|| panic!("no error line:\n{stderr}"));
    let hint = lines
        .next()
        .and_then(|l| l.strip_prefix("hint: "))
        .unwrap_or_else(|| panic!("no hint line after the error:\n{stderr}"));
    assert!(
        !error.contains("hint:"),
        "the hint is inside the message:\n{stderr}"
    );
    (error, hint)
}

#[test]
fn a_config_error_names_file_line_and_key_and_hints_on_its_own_line() {
    // Before loopguard was ever set up here, the working-tree file is the config.
    let repo = TestRepo::new();
    repo.write(
        ".loopguard.yml",
        "window: 5\nrules:\n  stagnation: {threshold: 3, bogus: 1}\n",
    );
    repo.commit("Configure");
    let out = lg(&repo).arg("status").run().code(2);
    let (error, hint) = error_and_hint(&out.stderr);
    assert!(
        error.starts_with("loopguard: error: ")
            && error.contains(".loopguard.yml:3:")
            && error.contains("rules.stagnation.bogus: unknown field `bogus`"),
        "{error}"
    );
    assert_eq!(
        hint,
        "remove the key or fix its spelling (README.md lists every key)"
    );

    // A file `--config` names that is not there.
    let out = lg(&repo)
        .args(["check", "--config", "nope.yml"])
        .run()
        .code(2);
    let (error, hint) = error_and_hint(&out.stderr);
    assert!(error.ends_with("nope.yml: no such config file"), "{error}");
    assert_eq!(hint, "pass an existing file to --config");
}

#[test]
fn a_config_error_says_the_next_step() {
    // A new user's first edits of `.loopguard.yml`: each names the file, line, column and
    // key, then what to write (issue 27), exit 2.
    let repo = TestRepo::new();
    repo.commit_empty("Initial commit");
    let file = repo.path().join(".loopguard.yml");
    for (text, want_error, want_hint) in [
        (
            "rules:\n  budget:\n    max_iterations: ten\n",
            ":3:21: rules.budget.max_iterations: invalid u32: expected a whole number, e.g. 3",
            "write a whole number in digits, e.g. `max_iterations: 10`",
        ),
        (
            "rules:\n  same_eror: {threshold: 4}\n",
            ":2:3: rules: unknown field `same_eror`, expected one of constraint, same_error, repeated_patch, oscillation, false_completion, stagnation, edge_loop, test_only, budget",
            "did you mean `same_error`? (README.md lists every key)",
        ),
        (
            "window: [\n",
            ":1:9: window: expected one value, found the start of a list or a mapping",
            "`[` and `{` open a list and a mapping, and `window` takes one value: write it alone (quote text that starts with them)",
        ),
    ] {
        repo.write(".loopguard.yml", text);
        for args in [&["status"][..], &["init"]] {
            let out = lg(&repo).args(args).run().code(2);
            let (error, hint) = error_and_hint(&out.stderr);
            assert_eq!(
                error,
                format!("loopguard: error: {}{want_error}", file.display()),
                "{args:?} {text:?}"
            );
            assert_eq!(hint, want_hint, "{args:?} {text:?}");
        }
    }
    // `init` refused: nothing was set up.
    assert!(!repo.path().join(".git/loopguard").exists());
    assert!(!repo.path().join(".git/hooks/pre-commit").exists());
}

#[test]
fn a_file_that_is_not_there_says_what_to_pass() {
    let repo = TestRepo::new();
    repo.commit_empty("Initial commit");
    for (args, want_error, want_hint) in [
        (
            &["fingerprint", "test.log"][..],
            "test.log: no such file",
            "pass the test log or the test report (JUnit, TRX, xUnit or NUnit XML) the test step wrote (globs like `reports/*.xml` are fine), or `-` for standard input",
        ),
        (
            &["replay", "records.jsonl"],
            "records.jsonl: no such file",
            "pass a file of iteration records (`report --json` keeps a run's), a Claude Code transcript or a Codex rollout, or `-` for standard input",
        ),
        (
            &["ingest", "test.log"],
            "test.log: no such file",
            "pass the test log or the test report (JUnit, TRX, xUnit or NUnit XML) the test step wrote (globs like `reports/*.xml` are fine), or `-` for standard input",
        ),
    ] {
        let out = lg(&repo).args(args).run().code(2);
        let (error, hint) = error_and_hint(&out.stderr);
        // As given (`ingest` names it from the repository's root).
        let named = error.strip_prefix("loopguard: error: ").unwrap_or(error);
        assert!(
            named == want_error || named == format!("{}/{want_error}", repo.path().display()),
            "{args:?}: {error}"
        );
        assert_eq!(hint, want_hint, "{args:?}");
    }
}

#[test]
fn a_bad_environment_value_names_the_variable_and_the_fix() {
    let repo = guarded("");
    for (name, value, problem) in [
        (
            "LOOPGUARD_LOCK_TIMEOUT_MS",
            "abc",
            "is not a whole number of milliseconds",
        ),
        ("LOOPGUARD_NOW", "garbage", "is not an RFC 3339 time"),
        (
            "LOOPGUARD_HOOK_TIMEOUT",
            "soon",
            "is not a whole number of seconds",
        ),
    ] {
        let out = lg(&repo).arg("status").env(name, value).run().code(2);
        let (error, hint) = error_and_hint(&out.stderr);
        assert_eq!(
            error,
            format!("loopguard: error: {name}=`{value}`: {problem}")
        );
        assert!(hint.ends_with(", or unset it"), "{hint}");
    }
    // The GitHub client's variables fail only where GitHub is used.
    lg(&repo)
        .arg("status")
        .env("LOOPGUARD_CI_DEADLINE", "banana")
        .run()
        .ok();
}

#[test]
fn a_bad_environment_value_never_switches_a_gate_off() {
    // A hook that stopped at a bad variable would let git go on (the shim fails open):
    // the hook warns, keeps the default and still refuses past an open breaker.
    let repo = guarded("");
    for i in 0..3 {
        repo.commit_empty(&format!("nothing {i}"));
    }
    let out = lg(&repo)
        .args(["hook", "pre-commit"])
        .env("LOOPGUARD_LOCK_TIMEOUT_MS", "abc")
        .run()
        .code(1);
    assert!(
        out.stderr.contains(
            "loopguard: warning: LOOPGUARD_LOCK_TIMEOUT_MS=`abc`: is not a whole number of milliseconds; the default applies\nhint: "
        ),
        "{}",
        out.stderr
    );
}

#[test]
fn git_failures_hint_on_their_own_line_with_the_code_of_who_can_fix_them() {
    // A revision that does not exist is the user's to fix: 2.
    let repo = guarded("");
    repo.commit_empty("one");
    let out = lg(&repo)
        .args(["check", "--range", "no-such-branch..HEAD"])
        .run()
        .code(2);
    let (error, hint) = error_and_hint(&out.stderr);
    assert!(
        error.contains("bad revision `no-such-branch..HEAD`"),
        "{error}"
    );
    assert!(
        hint.starts_with("give a commit, branch or tag that exists here"),
        "{hint}"
    );

    // No repository at all: the environment, 3.
    let outside = tempfile::tempdir().unwrap();
    let out = lg_at(outside.path()).arg("status").run().code(3);
    let (error, hint) = error_and_hint(&out.stderr);
    assert!(
        error.starts_with("loopguard: error: not a git repository"),
        "{error}"
    );
    assert_eq!(
        hint,
        "run loopguard inside a git repository (`git init` makes one)"
    );
}

#[test]
fn a_closed_stderr_does_not_stop_a_gate() {
    // A hook whose stderr is gone (a pipe whose reader left) loses its messages, but still
    // refuses past an open breaker: a panic on the write would exit with neither 0 nor 1,
    // which the shim takes as "go on".
    let repo = guarded("");
    for i in 0..3 {
        repo.commit_empty(&format!("nothing {i}"));
    }
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let status = repo
        .command(crate::support::bin())
        .args(["hook", "pre-commit"])
        .env("LOOPGUARD_NO_PROMPT", "1")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(writer)
        .status()
        .unwrap();
    assert_eq!(status.code(), Some(1), "{status:?}");
}
