//! Test evidence end to end: `run -- CMD`, `ingest`, `fingerprint`, and the rules that use
//! it (`same_error`, `false_completion` with real evidence, progress through tests).

use crate::support::{Ran, TestRepo, fixture, lg as lg_cmd, lg_at, replay_log, status};
use serde_json::Value;

fn lg(repo: &TestRepo, args: &[&str]) -> Ran {
    lg_cmd(repo).args(args).run()
}

/// A repository with a word counter, guarded; its commits are the agent's.
fn guarded() -> TestRepo {
    let repo = TestRepo::new();
    repo.write("src/lib.rs", "pub fn count(s: &str) -> usize { s.len() }\n");
    repo.commit("Initial commit");
    lg(&repo, &["init"]).ok();
    repo
}

fn run(repo: &TestRepo, cmd: &[String]) -> Ran {
    lg_cmd(repo).args(["run", "--"]).args(cmd).run()
}

#[test]
fn the_same_failure_three_times_with_code_changes_trips_same_error() {
    let repo = guarded();
    let log = fixture("cargo/assert-count/plain.log");
    let variants = [
        fixture("cargo/assert-count/plain.log"),
        fixture("cargo/assert-count/shifted.log"),
        fixture("cargo/assert-count/color.log"),
    ];
    for (i, v) in variants.iter().enumerate() {
        repo.append("src/lib.rs", &format!("// attempt {i}\n"));
        let out = run(&repo, &replay_log(v, 101));
        let stdout = out.stdout;
        assert!(
            stdout.contains("test result: ") && stdout.contains("FAILED"),
            "the output is shown live: {stdout}"
        );
        if i < 2 {
            assert_eq!(
                out.code,
                Some(101),
                "the test command's own status passes through"
            );
        } else {
            assert_eq!(out.code, Some(86), "this iteration trips: {}", out.stderr);
        }
    }
    let s = status(&repo);
    assert_eq!(s["rule"], "same_error", "{s}");
    assert!(
        s["reason"]
            .as_str()
            .unwrap()
            .starts_with("the same failure (cargo: "),
        "{s}"
    );
    // The report names the failing test and the normalised first error line.
    let out = lg(&repo, &["report"]);
    let md = out.stdout;
    assert!(md.contains("**First error:**"), "{md}");
    assert!(md.contains("**Failing:** `counts_words_in_file`"), "{md}");
    let _ = log;
}

#[test]
fn a_failure_that_changes_each_time_does_not_trip() {
    let repo = guarded();
    for (i, f) in [
        "cargo/assert-count/plain.log",
        "cargo/panic-count/plain.log",
        "cargo/should-panic/plain.log",
        "cargo/two-failures/plain.log",
    ]
    .iter()
    .enumerate()
    {
        repo.append("src/lib.rs", &format!("// attempt {i}\n"));
        let out = run(&repo, &replay_log(&fixture(f), 101));
        assert_eq!(out.code, Some(101), "{}", out.stderr);
    }
    assert_eq!(status(&repo)["state"], "closed");
}

#[test]
fn rerunning_without_a_code_change_is_no_progress() {
    let repo = guarded();
    repo.write(
        "src/lib.rs",
        "pub fn count(s: &str) -> usize { s.len() + 1 }\n",
    );
    repo.commit("Try a fix");
    let log = fixture("pytest/assert-count/plain.log");
    for _ in 0..3 {
        run(&repo, &replay_log(&log, 1));
    }
    let s = status(&repo);
    assert_eq!(s["state"], "open", "{s}");
    assert_eq!(s["counters"]["stagnation"]["count"], 2, "{s}");
    assert_eq!(s["rule"], "same_error");
}

#[test]
fn tests_on_uncommitted_changes_are_adopted_by_the_commit() {
    let repo = guarded();
    repo.write(
        "src/lib.rs",
        "pub fn count(s: &str) -> usize { s.split(' ').count() }\n",
    );
    let out = run(&repo, &["true".to_owned()]);
    assert_eq!(out.code, Some(0));
    repo.commit("Count words");
    let out = lg(&repo, &["report", "--json"]);
    let doc: Value = serde_json::from_str(&out.stdout).unwrap();
    let history = doc["history"].as_array().unwrap();
    assert_eq!(history.len(), 1, "{doc}");
    assert_eq!(history[0]["id"], repo.head());
    assert_eq!(history[0]["test"]["outcome"], "pass");
}

#[test]
fn done_with_passing_tests_is_not_false_completion() {
    let repo = guarded();
    repo.write("src/a.rs", "pub fn a() {}\n");
    repo.commit("Done with a");
    run(&repo, &["true".to_owned()]);
    repo.write("src/b.rs", "pub fn b() {}\n");
    repo.commit("All tests pass now");
    run(&repo, &["true".to_owned()]);
    assert_eq!(status(&repo)["state"], "closed");

    // Claims while the tests fail do trip.
    let repo = guarded();
    let log = fixture("go/assert-count/plain.log");
    repo.write("a.go", "package a\n");
    repo.commit("Done");
    run(&repo, &replay_log(&log, 1));
    repo.write("b.go", "package a\n");
    repo.commit("Fixed, all tests pass");
    let s = status(&repo);
    assert_eq!(s["rule"], "false_completion", "{s}");
    assert!(
        s["reason"]
            .as_str()
            .unwrap()
            .contains("while the tests fail"),
        "{s}"
    );
}

#[test]
fn ingest_records_ci_evidence_on_any_commit() {
    let repo = guarded();
    repo.write("src/a.rs", "pub fn a() {}\n");
    let first = repo.commit("One");
    repo.write("src/b.rs", "pub fn b() {}\n");
    repo.commit("Two");
    let xml = fixture("pytest/assert-count/junit.xml");
    let out = lg(
        &repo,
        &[
            "ingest",
            "--commit",
            &first,
            "--exit-code",
            "1",
            xml.to_str().unwrap(),
        ],
    );
    assert!(out.success(), "{}", out.stderr);
    assert!(out.stdout.contains("fail"));
    let doc: Value = serde_json::from_str(&lg(&repo, &["report", "--json"]).stdout).unwrap();
    let h = doc["history"].as_array().unwrap();
    assert_eq!(h[0]["id"], first);
    assert_eq!(h[0]["test"]["outcome"], "fail");
    assert!(h[0]["test"]["signature"].is_string());
    assert!(h[1].get("test").is_none());

    let out = lg(&repo, &["ingest", "/nonexistent.log"]);
    assert_eq!(out.code, Some(2));
    assert!(out.stderr.contains("/nonexistent.log"));
}

#[test]
fn fingerprint_prints_the_contract_document() {
    let tmp = tempfile::tempdir().unwrap();
    let doc = lg_at(tmp.path())
        .args(["fingerprint", "--json"])
        .arg(fixture("pytest/assert-count/plain.log"))
        .run()
        .ok()
        .json();
    assert_eq!(doc["schema"], 1);
    assert_eq!(doc["runner"], "pytest");
    assert_eq!(doc["signature"].as_str().unwrap().len(), 64);
    assert_eq!(doc["failures"][0]["kind"], "test");

    let doc = lg_at(tmp.path())
        .args(["fingerprint", "--json", "-"])
        .stdin(std::fs::read(fixture("cargo/passing/plain.log")).unwrap())
        .run()
        .ok()
        .json();
    assert_eq!(doc["signature"], Value::Null);
}

/// A failing run no parser claims still has a signature: what its output says failed,
/// with the kind `generic`; the exit code says it failed.
#[test]
fn a_failing_run_no_parser_claims_has_the_generic_signature() {
    let tmp = tempfile::tempdir().unwrap();
    let log = tmp.path().join("out.log");
    let write = |text: &str| std::fs::write(&log, text).unwrap();
    let fingerprint = |code: &str| {
        lg_at(tmp.path())
            .args(["fingerprint", "--json", "--exit-code", code])
            .arg(&log)
            .run()
            .ok()
            .json()
    };
    write("checking totals\nstock_test.c:12: check failed: total() == 12 (0 ms)\n");
    let doc = fingerprint("1");
    assert_eq!(doc["runner"], "generic", "{doc}");
    assert_eq!(doc["failures"][0]["kind"], "generic", "{doc}");
    let first = doc["signature"].as_str().unwrap().to_owned();
    assert_eq!(fingerprint("0")["signature"], Value::Null);
    write("checking takes\nstock_test.c:30: check failed: take() == 3 (1 ms)\n");
    assert_ne!(fingerprint("1")["signature"].as_str().unwrap(), first);
    write("checking totals\nstock_test.c:14: check failed: total() == 12 (4 ms)\n");
    assert_eq!(fingerprint("1")["signature"].as_str().unwrap(), first);
}

#[test]
fn a_real_cargo_test_failure_is_recorded() {
    let repo = guarded();
    repo.write(
        "Cargo.toml",
        "[package]\nname = \"wc\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n",
    );
    repo.write(
        "src/lib.rs",
        "pub fn count(s: &str) -> usize { s.split(' ').count() + 1 }\n\n#[test]\nfn counts_three_words() {\n    assert_eq!(count(\"a b c\"), 3);\n}\n",
    );
    repo.write(".gitignore", "target/\n");
    repo.commit("Word count");
    lg_cmd(&repo)
        .args(["run", "--", "cargo", "test", "--offline", "-q"])
        .env("CARGO_TARGET_DIR", repo.path().join("target"))
        .run()
        .code(101);
    let doc: Value = serde_json::from_str(&lg(&repo, &["report", "--json"]).stdout).unwrap();
    let t = &doc["history"].as_array().unwrap().last().unwrap()["test"];
    assert_eq!(t["outcome"], "fail");
    assert_eq!(t["runner"], "cargo");
    assert_eq!(t["failures"][0], "counts_three_words");
    assert_eq!(t["command"], "cargo test --offline -q");
}

/// What `loopguard report --json` holds as the test evidence of each iteration.
fn tests_recorded(repo: &TestRepo) -> Vec<Value> {
    let doc: Value = serde_json::from_str(&lg(repo, &["report", "--json"]).stdout).unwrap();
    doc["history"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h.get("test").cloned().unwrap_or(Value::Null))
        .collect()
}

#[test]
fn a_mistyped_test_command_is_no_evidence_and_breaks_no_streak() {
    let repo = guarded();
    let same = [
        fixture("cargo/assert-count/plain.log"),
        fixture("cargo/assert-count/shifted.log"),
        fixture("cargo/assert-count/color.log"),
    ];
    for (i, log) in same[..2].iter().enumerate() {
        repo.append("src/lib.rs", &format!("// attempt {i}\n"));
        run(&repo, &replay_log(log, 101)).code(101);
    }
    // A typo: cargo says so and exits 101. Its status passes through, loopguard says the
    // output held no test result, and nothing is recorded.
    repo.append("src/lib.rs", "// attempt 2\n");
    repo.commit("Attempt 2");
    let typo = lg_cmd(&repo)
        .args(["run", "--", "cargo", "tset"])
        .env("CARGO_TARGET_DIR", repo.path().join("target"))
        .run()
        .code(101);
    assert!(
        typo.stderr.contains("no such command"),
        "cargo's own output is shown: {}",
        typo.stderr
    );
    assert!(
        typo.stderr
            .contains("no test result loopguard recognises: nothing recorded"),
        "{}",
        typo.stderr
    );
    let recorded = tests_recorded(&repo);
    assert!(recorded.last().unwrap().is_null(), "{recorded:?}");
    // So is a command the shell cannot find.
    run(&repo, &["sh".into(), "-c".into(), "pytset -q".into()]).code(127);
    assert!(tests_recorded(&repo).last().unwrap().is_null());
    assert_eq!(status(&repo)["state"], "closed");

    // The same failure a third time: the typos did not break the streak.
    let out = run(&repo, &replay_log(&same[2], 101));
    assert_eq!(out.code, Some(86), "this iteration trips: {}", out.stderr);
    assert_eq!(status(&repo)["rule"], "same_error");
}

#[test]
fn a_passing_command_is_a_pass_when_silent_or_a_runner_says_so() {
    let repo = guarded();
    // Silence is success: `true`, `make -s check`.
    repo.write("src/a.rs", "pub fn a() {}\n");
    repo.commit("Add a");
    run(&repo, &["true".to_owned()]).ok();
    assert_eq!(tests_recorded(&repo).last().unwrap()["outcome"], "pass");
    // A runner's summary: a pass.
    repo.write("src/b.rs", "pub fn b() {}\n");
    repo.commit("Add b");
    run(&repo, &replay_log(&fixture("cargo/passing/plain.log"), 0)).ok();
    let t = tests_recorded(&repo).last().unwrap().clone();
    assert_eq!(
        (t["outcome"].as_str(), t["runner"].as_str()),
        (Some("pass"), Some("cargo"))
    );
    // Output that no runner wrote, with a zero exit: not test evidence, said so.
    repo.write("src/c.rs", "pub fn c() {}\n");
    repo.commit("Add c");
    let out = run(
        &repo,
        &[
            "sh".into(),
            "-c".into(),
            "echo 'npm test: no test specified'".into(),
        ],
    )
    .ok();
    assert!(out.stderr.contains("nothing recorded"), "{}", out.stderr);
    assert!(tests_recorded(&repo).last().unwrap().is_null());
}

#[test]
fn ingest_records_no_evidence_from_files_without_a_test_result() {
    let repo = guarded();
    repo.write("src/a.rs", "pub fn a() {}\n");
    repo.commit("One");
    let dir = tempfile::tempdir().unwrap();
    let typo = dir.path().join("typo.log");
    std::fs::write(&typo, "error: no such command: `tset`\n").unwrap();
    let empty = dir.path().join("empty.log");
    std::fs::write(&empty, "").unwrap();
    for args in [
        vec!["ingest", "--exit-code", "101", typo.to_str().unwrap()],
        vec!["ingest", typo.to_str().unwrap()],
        vec!["ingest", empty.to_str().unwrap()],
    ] {
        let out = lg(&repo, &args).ok();
        assert!(
            out.stderr.contains("nothing recorded"),
            "{args:?}: {}",
            out.stderr
        );
        assert!(
            out.stdout.contains("not recorded"),
            "{args:?}: {}",
            out.stdout
        );
        assert!(tests_recorded(&repo).last().unwrap().is_null(), "{args:?}");
    }
    // An empty log of a command that exited 0 is a pass, as `run -- true` is.
    lg(
        &repo,
        &["ingest", "--exit-code", "0", empty.to_str().unwrap()],
    )
    .ok();
    assert_eq!(tests_recorded(&repo).last().unwrap()["outcome"], "pass");
}

/// TRX, xUnit.net v2 XML and NUnit 3 XML are test reports wherever JUnit XML is —
/// `fingerprint`, `ingest`, the output of `run` — recognised by their content (here under
/// a name that says nothing), and they name a failure as the console of that run does.
#[test]
fn dotnet_reports_are_test_results_wherever_junit_xml_is() {
    let tmp = tempfile::tempdir().unwrap();
    let cases = [
        ("dotnet/xunit-assert-count", "report.trx"),
        ("dotnet/xunit-assert-count", "xunit.xml"),
        ("dotnet/nunit-assert-count", "nunit.xml"),
    ];
    for (dir, report) in cases {
        let console = lg_at(tmp.path())
            .args(["fingerprint", "--json"])
            .arg(fixture(&format!("{dir}/vstest.log")))
            .run()
            .json();
        let copy = tmp.path().join("results.txt");
        std::fs::copy(fixture(&format!("{dir}/{report}")), &copy).unwrap();
        let doc = lg_at(tmp.path())
            .args(["fingerprint", "--json"])
            .arg(&copy)
            .run()
            .json();
        assert_eq!(doc["runner"], "dotnet", "{report}: {doc}");
        assert!(doc["signature"].is_string(), "{report}: {doc}");
        assert_eq!(doc["signature"], console["signature"], "{dir}/{report}");

        let repo = guarded();
        for (i, how) in ["ingest", "run"].iter().enumerate() {
            repo.write(
                "src/lib.rs",
                format!("pub fn count(s: &str) -> usize {{ {i} }}\n"),
            );
            repo.commit(&format!("Fix the total, try {}", i + 1));
            let out = if *how == "ingest" {
                lg(&repo, &["ingest", copy.to_str().unwrap()])
            } else {
                run(&repo, &replay_log(&copy, 1))
            };
            assert_eq!(
                out.code,
                Some(i32::from(*how == "run")),
                "{how} {report}: {}",
                out.stderr
            );
            let test = tests_recorded(&repo).pop().unwrap();
            assert_eq!(test["outcome"], "fail", "{how} {report}: {test}");
            assert_eq!(test["signature"], doc["signature"], "{how} {report}");
        }
    }
    let passing = tmp.path().join("passing.txt");
    std::fs::copy(fixture("dotnet/passing/report.trx"), &passing).unwrap();
    let doc = lg_at(tmp.path())
        .args(["fingerprint", "--json"])
        .arg(&passing)
        .run()
        .json();
    assert_eq!(doc["runner"], "dotnet", "{doc}");
    assert_eq!(doc["signature"], Value::Null, "{doc}");
}
