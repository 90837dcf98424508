//! One judgement, four ways in: the same history played through the hooks (real commits,
//! `loopguard run`, `resume`), then judged again by `check` (the same commits, from
//! scratch), by `replay` (the records `report --json` kept) and by `loopguard ci` (each
//! commit pushed to a PR of the fake GitHub with its test log; a resume is a maintainer
//! removing the label) must end in the same state, rule, counters and terminal status.

use crate::support::ci::{BRANCH, LABEL, commit_spec, payload, run_ci_at};
use crate::support::github_fake::{FakeGitHub, PrSpec};
use crate::support::{TestRepo, fixture, lg};
use serde_json::Value;

/// What happens, in order.
#[derive(Debug, Clone, Copy)]
enum Step {
    /// The agent commits `src/lib.rs` with this body; `None`: an empty commit.
    Commit(Option<&'static str>),
    /// The tests of the last commit ran and printed this runner log, with this status.
    Tests(&'static str, i32),
    /// A person lets the agent try again (`loopguard resume`; in CI, the label removed).
    Resume,
    /// Time passes.
    Wait(i64),
}

use Step::*;

const SAME: &str = "cargo/assert-count/plain.log";
const SAME_2: &str = "cargo/assert-count/shifted.log";
const OTHER: &str = "cargo/two-failures/plain.log";
const PASS: &str = "cargo/passing/plain.log";

struct Scenario {
    name: &'static str,
    /// `.loopguard.yml` but for `on_trip`.
    config: &'static str,
    /// The entries of `on_trip` (CI adds its `notify`).
    on_trip: &'static str,
    steps: &'static [Step],
    /// The state the scenario must end in (so a scenario that stops testing anything is
    /// caught too).
    want: &'static str,
}

fn scenarios() -> Vec<Scenario> {
    vec![
        Scenario {
            name: "empty commits",
            config: "",
            on_trip: "",
            steps: &[Commit(None), Commit(None), Commit(None)],
            want: "open",
        },
        Scenario {
            name: "oscillation",
            config: "",
            on_trip: "",
            steps: &[
                Commit(Some("1")),
                Commit(Some("2")),
                Commit(Some("1")),
                Commit(Some("2")),
            ],
            want: "open",
        },
        Scenario {
            name: "the same failure",
            config: "",
            on_trip: "",
            steps: &[
                Commit(Some("s.len()")),
                Tests(SAME, 101),
                Commit(Some("s.len() + 0")),
                Tests(SAME_2, 101),
                Commit(Some("s.len() + 1 - 1")),
                Tests(SAME, 101),
            ],
            want: "open",
        },
        Scenario {
            name: "different failures",
            config: "",
            on_trip: "",
            steps: &[
                Commit(Some("s.len()")),
                Tests(SAME, 101),
                Commit(Some("s.len() + 0")),
                Tests(OTHER, 101),
                Commit(Some("s.len() + 1 - 1")),
                Tests(SAME, 101),
            ],
            want: "closed",
        },
        Scenario {
            name: "recovery after a trip (alert lets commits through)",
            config: "",
            on_trip: "action: alert",
            steps: &[
                Commit(Some("s.len()")),
                Tests(SAME, 101),
                Commit(Some("s.len() + 0")),
                Tests(SAME_2, 101),
                Commit(Some("s.len() + 1 - 1")),
                Tests(SAME, 101),
                Commit(Some("s.split_whitespace().count()")),
                Tests(PASS, 0),
            ],
            want: "closed",
        },
        Scenario {
            // A commit is judged when it is made, before its tests run: the third empty
            // commit trips stagnation. Tests that pass afterwards are evidence about that
            // commit, never a way out of a loop in the code (only a new commit that
            // changes it, or a person). `check`, `replay` and CI judge a commit the same
            // way: the commit, then its tests.
            name: "an empty commit whose tests now pass",
            config: "",
            on_trip: "",
            steps: &[
                Commit(Some("s.len()")),
                Tests(SAME, 101),
                Commit(None),
                Commit(None),
                Commit(None),
                Tests(PASS, 0),
            ],
            want: "open",
        },
        Scenario {
            name: "cooldown, then progress hours later",
            config: "",
            on_trip: "cooldown: 1m",
            steps: &[
                Commit(None),
                Commit(None),
                Commit(None),
                Wait(5 * 3600),
                Commit(Some("s.split_whitespace().count()")),
            ],
            want: "closed",
        },
        Scenario {
            name: "cooldown, then no progress",
            config: "",
            on_trip: "cooldown: 30m",
            steps: &[
                Commit(None),
                Commit(None),
                Commit(None),
                Wait(3600),
                Commit(None),
            ],
            want: "open",
        },
        Scenario {
            name: "resume, then progress",
            config: "",
            on_trip: "",
            steps: &[
                Commit(None),
                Commit(None),
                Commit(None),
                Resume,
                Commit(Some("s.split_whitespace().count()")),
            ],
            want: "closed",
        },
        Scenario {
            name: "resume, then the same again",
            config: "",
            on_trip: "",
            steps: &[
                Commit(Some("s.len()")),
                Tests(SAME, 101),
                Commit(Some("s.len() + 0")),
                Tests(SAME_2, 101),
                Commit(Some("s.len() + 1 - 1")),
                Tests(SAME, 101),
                Resume,
                Commit(None),
                Tests(SAME, 101),
            ],
            want: "open",
        },
        Scenario {
            name: "escalation hands out the next model",
            config: "escalation: {models: [small, large]}\n",
            on_trip: "action: escalate",
            steps: &[
                Commit(None),
                Commit(None),
                Commit(None),
                Commit(None),
                Commit(None),
            ],
            want: "closed",
        },
        Scenario {
            name: "escalation up to the last model",
            config: "escalation: {models: [small, large]}\n",
            on_trip: "action: escalate",
            steps: &[
                Commit(None),
                Commit(None),
                Commit(None),
                Commit(None),
                Commit(None),
                Commit(None),
            ],
            want: "open",
        },
    ]
}

/// The verdict, as each way in reports it.
#[derive(Debug, Clone, PartialEq)]
struct Verdict {
    state: String,
    rule: Value,
    terminal_status: Value,
    /// Every counter's count (`None` where a way in does not report counters).
    counts: Option<Value>,
}

impl Verdict {
    fn of(doc: &Value) -> Verdict {
        let counts = doc["counters"]
            .as_object()
            .expect("counters")
            .iter()
            .map(|(k, v)| (k.clone(), v["count"].clone()))
            .collect::<serde_json::Map<_, _>>();
        Verdict {
            state: doc["state"].as_str().expect("a state").to_owned(),
            rule: doc["rule"].clone(),
            terminal_status: doc["terminal_status"].clone(),
            counts: Some(Value::Object(counts)),
        }
    }

    fn without_counts(&self) -> Verdict {
        Verdict {
            counts: None,
            ..self.clone()
        }
    }
}

fn rfc3339(seconds: i64) -> String {
    jiff::Timestamp::from_second(seconds).unwrap().to_string()
}

fn lib(body: &str) -> String {
    format!("pub fn count_words(s: &str) -> usize {{\n    {body}\n}}\n")
}

/// Plays `scenario` through the hooks and judges it the four ways.
fn play(scenario: &Scenario) {
    let name = scenario.name;
    let repo = TestRepo::new();
    repo.author("Maintainer", "maintainer@example.com");
    repo.write("src/lib.rs", lib("0"));
    let local_config = match scenario.on_trip {
        "" => scenario.config.to_owned(),
        entries => format!("{}on_trip: {{{entries}}}\n", scenario.config),
    };
    if !local_config.is_empty() {
        repo.write(".loopguard.yml", &local_config);
    }
    let base = repo.commit("Word counter");
    let now = |repo: &TestRepo| rfc3339(repo.now());
    // A test repository's hooks: they honour LOOPGUARD_NOW.
    lg(&repo)
        .args(["--test-knobs", "init"])
        .env("LOOPGUARD_NOW", now(&repo))
        .run()
        .ok();
    repo.as_agent();

    // The hooks, and what CI is given for each push.
    let gh = FakeGitHub::start_blocking();
    let mut heads: Vec<String> = Vec::new();
    // Per head: its test log and status (the last run of its tests).
    let mut logs: Vec<Option<(&str, i32)>> = Vec::new();
    // Per head: whether a maintainer removed the label after it.
    let mut resumed: Vec<bool> = Vec::new();
    // Per head: the time of its CI run (after its tests).
    let mut times: Vec<i64> = Vec::new();
    for step in scenario.steps {
        match *step {
            Commit(body) => {
                repo.tick();
                let mut args = vec!["commit", "-q", "-m"];
                let message = format!("Attempt {}", heads.len() + 1);
                args.push(&message);
                match body {
                    Some(b) => {
                        repo.write("src/lib.rs", lib(b));
                        repo.git(&["add", "-A"]);
                    }
                    None => args.push("--allow-empty"),
                }
                let mut cmd = repo.command("git");
                cmd.args(&args).env("LOOPGUARD_NOW", now(&repo));
                let out = cmd.output().unwrap();
                assert!(
                    out.status.success(),
                    "{name}: the hooks refused a commit the scenario needs: {}",
                    String::from_utf8_lossy(&out.stderr)
                );
                heads.push(repo.head());
                logs.push(None);
                resumed.push(false);
                times.push(repo.now());
            }
            Tests(log, code) => {
                lg(&repo)
                    .args(["run", "--", "sh", "-c"])
                    .arg(format!("cat '{}'; exit {code}", fixture(log).display()))
                    .env("LOOPGUARD_NOW", now(&repo))
                    .run();
                *logs.last_mut().expect("tests follow a commit") = Some((log, code));
            }
            Resume => {
                lg(&repo)
                    .arg("resume")
                    .env("LOOPGUARD_NOW", now(&repo))
                    .run()
                    .ok();
                *resumed.last_mut().expect("a resume follows a commit") = true;
            }
            Wait(seconds) => {
                repo.set_now(repo.now() + seconds);
            }
        }
    }
    let end = now(&repo);

    // 1. The hooks.
    let hooks = lg(&repo)
        .args(["status", "--json"])
        .env("LOOPGUARD_NOW", &end)
        .run()
        .ok()
        .json();
    let hooks = Verdict::of(&hooks);
    assert_eq!(hooks.state, scenario.want, "{name}: hooks: {hooks:?}");

    // 2. check: the same commits from scratch, with the evidence the hooks recorded.
    let check = lg(&repo)
        .args(["check", "--json"])
        .env("LOOPGUARD_NOW", &end)
        .run()
        .json();
    assert_eq!(Verdict::of(&check), hooks, "{name}: check vs hooks");

    // 3. replay: the records the run kept.
    let report = lg(&repo)
        .args(["report", "--json"])
        .env("LOOPGUARD_NOW", &end)
        .run()
        .ok()
        .json();
    let records: String = report["history"]
        .as_array()
        .expect("report --json has the history")
        .iter()
        .map(|r| format!("{r}\n"))
        .collect();
    let replay = lg(&repo)
        .args(["replay", "--json", "-"])
        .stdin(records)
        .env("LOOPGUARD_NOW", &end)
        .run()
        .json();
    assert_eq!(Verdict::of(&replay), hooks, "{name}: replay vs hooks");

    // 4. CI: each head pushed, judged with its tests; the config committed at the base.
    // The label and the sticky comment: a resume is a maintainer removing the label.
    let notify = "notify: [summary, label, comment]";
    let ci_config = match scenario.on_trip {
        "" => format!("{}on_trip: {{{notify}}}\n", scenario.config),
        entries => format!("{}on_trip: {{{entries}, {notify}}}\n", scenario.config),
    };
    // (With the hooks off: this is the CI fixture, made beside a stuck run the hooks
    // guard, whose breaker would refuse new work on a new branch.)
    repo.git(&["-c", "core.hooksPath=/dev/null", "checkout", "-q", &base]);
    repo.author("Maintainer", "maintainer@example.com");
    repo.write(".loopguard.yml", &ci_config);
    let ci_base = repo.commit_hooks_off("CI config");
    let mut ci_heads = Vec::new();
    repo.git(&[
        "-c",
        "core.hooksPath=/dev/null",
        "checkout",
        "-q",
        "-b",
        BRANCH,
    ]);
    for head in &heads {
        // The agent's commits on top of the CI base, same trees as before.
        repo.git(&[
            "-c",
            "core.hooksPath=/dev/null",
            "cherry-pick",
            "--allow-empty",
            "--keep-redundant-commits",
            head,
        ]);
        ci_heads.push(repo.head());
    }
    let mut last = None;
    for (i, head) in ci_heads.iter().enumerate() {
        gh.add_pr(
            PrSpec::new(7, head)
                .base("main", &ci_base)
                .head_ref(BRANCH)
                .commits(
                    ci_heads[..=i]
                        .iter()
                        .map(|s| commit_spec(&repo, s))
                        .collect(),
                ),
        );
        let event = payload(
            "pull_request.synchronize.json",
            &[
                ("{{HEAD_SHA}}", head),
                ("{{BASE_SHA}}", &ci_base),
                ("{{BEFORE}}", &ci_base),
            ],
        );
        let log_path;
        let mut args = Vec::new();
        if let Some((log, _)) = logs[i] {
            log_path = fixture(log).display().to_string();
            args = vec!["--log", log_path.as_str()];
        }
        last = Some(run_ci_at(
            &gh,
            &repo,
            "pull_request",
            &event,
            &args,
            &rfc3339(times[i]),
        ));
        if resumed[i] {
            gh.remove_label(7, LABEL);
        }
    }
    let out = last.expect("at least one head");
    assert!(
        out.outputs.contains_key("state"),
        "{name}: ci printed no verdict: {out:#?}"
    );
    let ci = Verdict {
        state: out.outputs["state"].clone(),
        rule: match out.outputs["rule"].as_str() {
            "" => Value::Null,
            r => Value::String(r.to_owned()),
        },
        terminal_status: match out.outputs["terminal-status"].as_str() {
            "" => Value::Null,
            t => Value::String(t.to_owned()),
        },
        counts: None,
    };
    // A resume after the last head is only seen by the next CI run: scenarios end on a
    // commit, so CI has seen everything the hooks saw.
    assert_eq!(
        ci,
        hooks.without_counts(),
        "{name}: ci vs hooks\n{}",
        out.stderr
    );
}

/// One test per scenario (they run in parallel), by its place in [`scenarios`].
macro_rules! agree {
    ($($test:ident => $index:expr,)*) => {
        $(
            #[test]
            fn $test() {
                play(&scenarios()[$index]);
            }
        )*

        #[test]
        fn every_scenario_has_its_test() {
            assert_eq!(scenarios().len(), [$($index),*].len());
        }
    };
}

agree! {
    empty_commits => 0,
    oscillation => 1,
    the_same_failure => 2,
    different_failures => 3,
    recovery_after_a_trip => 4,
    an_empty_commit_whose_tests_pass => 5,
    cooldown_then_progress => 6,
    cooldown_then_no_progress => 7,
    resume_then_progress => 8,
    resume_then_the_same_again => 9,
    escalation_to_the_next_model => 10,
    escalation_to_the_last_model => 11,
}
