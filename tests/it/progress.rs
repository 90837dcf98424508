//! Progress bars on stderr: shown to a person at a terminal (a real pseudo-terminal from
//! util-linux `script`), never with `--json`, in CI or when stderr is not a terminal. The
//! bar's one-second delay is set to 0 here (`LOOPGUARD_PROGRESS_DELAY_MS`), so no test
//! waits on the clock.

use std::fmt::Write as _;
use std::process::Command;

use crate::support::{bin, fixture};

/// `loopguard ARGS` with stdout and stderr on a terminal; what the terminal showed.
fn in_a_terminal(args: &[&str], env: &[(&str, &str)]) -> String {
    let mut line = format!("'{}'", bin().display());
    for a in args {
        let _ = write!(line, " '{a}'");
    }
    let mut cmd = Command::new("script");
    cmd.args(["-qec", &line, "/dev/null"])
        .env_remove("CI")
        .env_remove("GITHUB_ACTIONS")
        .env_remove("NO_COLOR")
        .env("LOOPGUARD_PROGRESS_DELAY_MS", "0");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("util-linux `script` runs");
    assert!(out.status.success(), "{out:?}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn a_terminal_sees_the_bar_and_nothing_else_does() {
    let log = fixture("cargo/assert-count/plain.log");
    let log = log.to_str().unwrap();
    let shown = in_a_terminal(&["fingerprint", log], &[]);
    assert!(shown.contains("fingerprinting"), "{shown:?}");
    assert!(
        shown.contains("counts_three_words"),
        "the result too: {shown:?}"
    );
    for (what, args, env) in [
        ("--json", vec!["fingerprint", "--json", log], vec![]),
        ("CI", vec!["fingerprint", log], vec![("CI", "true")]),
        (
            "Actions",
            vec!["fingerprint", log],
            vec![("GITHUB_ACTIONS", "true")],
        ),
    ] {
        let shown = in_a_terminal(&args, &env);
        assert!(!shown.contains("fingerprinting"), "{what}: {shown:?}");
    }
    // Not a terminal: a plain pipe.
    let out = Command::new(bin())
        .args(["fingerprint", log])
        .env("LOOPGUARD_PROGRESS_DELAY_MS", "0")
        .env_remove("CI")
        .output()
        .unwrap();
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn no_color_draws_a_plain_bar() {
    let log = fixture("cargo/assert-count/plain.log");
    let coloured = in_a_terminal(&["fingerprint", log.to_str().unwrap()], &[]);
    let plain = in_a_terminal(
        &["fingerprint", log.to_str().unwrap()],
        &[("NO_COLOR", "1")],
    );
    assert!(plain.contains("fingerprinting"), "{plain:?}");
    let sgr = |s: &str| s.contains("\x1b[36m") || s.contains("\x1b[34m");
    assert!(sgr(&coloured), "{coloured:?}");
    assert!(!sgr(&plain), "{plain:?}");
}
