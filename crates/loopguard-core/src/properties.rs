//! Properties of the pure core over random input (proptest, stable Rust): random histories
//! never panic and keep the breaker's invariants after every step; judging at once and
//! recording one commit at a time agree; the patch id is blind to the order of files; no
//! `replay` line, config, CI event payload or log reaches a panic, and a log fingerprints
//! the same however it is cut into chunks.
//!
//! Each property runs `PROPTEST_CASES` cases, 64 when unset (`cargo test`): the fuzz step of
//! `.ci/run` raises it. Mutations of the real fixtures are in the shell's
//! `tests/it/fuzz.rs`, which reads them.

use jiff::Timestamp;
use proptest::prelude::*;

use crate::breaker::{Breaker, State, TerminalStatus};
use crate::config::{Config, RuleAction, TripAction};
use crate::fingerprint::{Fingerprinter, fingerprint_bytes};
use crate::github::event::{ActionsVars, IssuesEvent, parse_event};
use crate::ids::{CommitId, Signature};
use crate::iteration::{
    FileChange, FileStatus, Intervention, InterventionKind, Iteration, Outcome, TestEvidence,
    parse_record,
};
use crate::patch::patch_id::{FilePatchHasher, PatchIdBuilder};
use crate::report::{Status, markdown, text};
use crate::run::{Run, judge};

fn at(secs: i64) -> Timestamp {
    Timestamp::from_second(1_800_000_000 + secs).expect("in range")
}

/// One random attempt, as indices into small alphabets so that repeats (the loops) are
/// frequent.
#[derive(Debug, Clone)]
struct Step {
    tree: u8,
    patch: Option<u8>,
    files: Vec<u8>,
    test: Option<(bool, u8, u8)>,
    message: u8,
    gap: i64,
    intervention: Option<u8>,
}

fn step() -> impl Strategy<Value = Step> {
    (
        0u8..5,
        proptest::option::of(0u8..4),
        proptest::collection::vec(0u8..6, 0..3),
        proptest::option::of((any::<bool>(), 0u8..3, 1u8..4)),
        0u8..4,
        0i64..7200,
        proptest::option::weighted(0.15, 0u8..4),
    )
        .prop_map(
            |(tree, patch, files, test, message, gap, intervention)| Step {
                tree,
                patch,
                files,
                test,
                message,
                gap,
                intervention,
            },
        )
}

const PATHS: [&str; 6] = [
    "src/lib.rs",
    "src/main.rs",
    "tests/it.rs",
    ".loopguard.yml",
    ".github/workflows/ci.yml",
    "README.md",
];
const MESSAGES: [&str; 4] = ["Fix the parser", "Done", "wip", "All tests pass"];
const SIGNATURES: [&str; 3] = ["aaaa", "bbbb", "cccc"];

fn history(steps: &[Step]) -> Vec<Iteration> {
    let mut previous = "t0".to_owned();
    let mut clock = 0;
    steps
        .iter()
        .enumerate()
        .map(|(i, s)| {
            clock += s.gap;
            let mut it = Iteration::new(CommitId::new(format!("c{i:03}")).expect("valid"));
            let tree = format!("t{}", s.tree);
            it.parent_tree = Some(std::mem::replace(&mut previous, tree.clone()));
            it.tree = Some(tree);
            it.patch_id = s.patch.map(|p| format!("p{p}"));
            it.files = Some(
                s.files
                    .iter()
                    .map(|f| FileChange {
                        path: PATHS[usize::from(*f)].to_owned(),
                        added: Some(1),
                        deleted: Some(0),
                        status: Some(FileStatus::Modified),
                        ..FileChange::default()
                    })
                    .collect(),
            );
            it.message = Some(MESSAGES[usize::from(s.message)].to_owned());
            it.test = s.test.map(|(passes, sig, failing)| {
                if passes {
                    TestEvidence::new(Outcome::Pass)
                } else {
                    let mut t = TestEvidence::new(Outcome::Fail);
                    t.signature = Some(Signature::new(SIGNATURES[usize::from(sig)]).expect("hex"));
                    t.failing = Some(u64::from(failing));
                    t
                }
            });
            it.at = Some(at(clock));
            it.interventions = s
                .intervention
                .map(|k| Intervention {
                    action: [
                        InterventionKind::Resume,
                        InterventionKind::Continue,
                        InterventionKind::Abort,
                        InterventionKind::NextModel,
                    ][usize::from(k)],
                    at: at(clock + 1),
                    by: None,
                })
                .into_iter()
                .collect();
            it
        })
        .collect()
}

fn config() -> impl Strategy<Value = Config> {
    (
        0usize..4,
        1u32..5,
        1u32..5,
        proptest::option::of(1i64..5000),
        any::<bool>(),
    )
        .prop_map(
            |(action, stagnation, same_error, cooldown, warn_oscillation)| {
                let mut c = Config::default();
                c.on_trip.action = [
                    TripAction::Pause,
                    TripAction::Alert,
                    TripAction::Abort,
                    TripAction::Escalate,
                ][action];
                c.rules.stagnation.threshold = stagnation;
                c.rules.same_error.threshold = same_error;
                c.on_trip.cooldown = cooldown.map(jiff::SignedDuration::from_secs);
                if warn_oscillation {
                    c.rules.oscillation.action = RuleAction::Warn;
                }
                c
            },
        )
}

/// What must hold of any breaker, whatever happened before.
fn invariants(b: &Breaker, len: usize, models: usize) -> Result<(), TestCaseError> {
    let (state, terminal, rule) = (b.state(), b.terminal_status(), b.rule());
    match state {
        State::Closed => {
            prop_assert!(rule.is_none(), "closed with a rule");
            prop_assert!(terminal.is_none_or(TerminalStatus::is_done));
        }
        State::Open => {
            prop_assert!(rule.is_some(), "open without a rule");
            prop_assert!(terminal.is_some_and(|t| !t.is_done()));
        }
        State::HalfOpen => {
            prop_assert!(rule.is_some(), "half-open without the trip");
            prop_assert!(terminal.is_none());
        }
    }
    prop_assert!(b.baseline() <= len, "baseline {} past {len}", b.baseline());
    prop_assert!(b.model() < models.max(1), "model {} of {models}", b.model());
    // What is saved is what is read back.
    let json = serde_json::to_string(b).expect("serialises");
    let back: Breaker = serde_json::from_str(&json).expect("reads back");
    prop_assert_eq!(&back, b);
    Ok(())
}

/// A JSON value shaped like a GitHub event payload: its keys from the payloads' vocabulary
/// (so the parsers go deep), its values of any type, nested.
fn payload_value() -> impl Strategy<Value = serde_json::Value> {
    use serde_json::Value;
    const KEYS: &[&str] = &[
        "action",
        "number",
        "pull_request",
        "head",
        "base",
        "sha",
        "ref",
        "repo",
        "full_name",
        "name",
        "owner",
        "login",
        "fork",
        "user",
        "labels",
        "label",
        "sender",
        "repository",
        "workflow_run",
        "id",
        "head_sha",
        "head_branch",
        "head_repository",
        "pull_requests",
        "conclusion",
        "status",
        "event",
        "before",
        "after",
        "created",
        "deleted",
        "head_commit",
        "issue",
        "changes",
        "body",
        "from",
        "title",
        "state",
        "merged_at",
        "closed_at",
        "created_at",
        "updated_at",
        "workflow_id",
        "run_attempt",
        "url",
        "html_url",
    ];
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>().prop_map(Value::from),
        "[0-9a-f]{0,41}".prop_map(Value::from),
        "\\PC{0,30}".prop_map(Value::from),
        proptest::sample::select(vec![
            "octo-org/widgets",
            "a/b/c",
            "/",
            "",
            "refs/heads/main",
            "synchronize",
            "completed",
            "failure",
            "2026-11-25T10:00:00Z",
            "not a date",
        ])
        .prop_map(Value::from),
    ];
    leaf.prop_recursive(6, 96, 8, move |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            proptest::collection::vec((proptest::sample::select(KEYS), inner), 0..8).prop_map(
                |entries| {
                    Value::Object(
                        entries
                            .into_iter()
                            .map(|(k, v)| ((*k).to_owned(), v))
                            .collect(),
                    )
                }
            ),
        ]
    })
}

proptest! {
    // `PROPTEST_CASES` overrides this (proptest reads it over a configured count).
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn random_histories_keep_the_breakers_invariants(
        c in config(),
        steps in proptest::collection::vec(step(), 0..25),
    ) {
        let its = history(&steps);
        let models = c.escalation_models.len();
        let mut run = Run::new("r", None, at(0), None);
        for mut it in its.clone() {
            let now = it.at.expect("timed");
            let ivs = std::mem::take(&mut it.interventions);
            // As the hooks see a commit: committed, then its tests.
            let tests = it.test.take();
            let id = it.id.clone();
            run.record(&c, it, now);
            invariants(run.breaker(), run.iterations().len(), models)?;
            if let Some(t) = tests {
                run.attach_test(&c, &id, t, now);
                invariants(run.breaker(), run.iterations().len(), models)?;
            }
            for iv in ivs {
                let _ = run.intervene(&c, iv);
                invariants(run.breaker(), run.iterations().len(), models)?;
            }
        }
        let end = at(1_000_000);
        run.tick(&c, end);
        invariants(run.breaker(), run.iterations().len(), models)?;

        // Judged at once, the same history ends in the same breaker and counters.
        let judged = judge(&c, its, "r", end);
        prop_assert_eq!(run.breaker(), judged.run.breaker());
        prop_assert_eq!(&run.evaluate(&c).counters, &judged.evaluation.counters);

        // Every renderer takes it.
        let status = Status::of_judgement(&c, &judged);
        let _ = text::verdict(&status);
        let _ = text::status(&status);
        let _ = markdown::report(&status);
        let _ = markdown::issue_entry(&status);
        let _ = status.to_json();
    }

    #[test]
    fn no_way_out_without_a_new_attempt_or_a_person(
        c in config(),
        steps in proptest::collection::vec(step(), 0..25),
        late in proptest::collection::vec((any::<proptest::sample::Index>(), any::<bool>(), 0u8..3), 1..6),
    ) {
        let mut run = Run::new("r", None, at(0), None);
        for mut it in history(&steps) {
            let now = it.at.expect("timed");
            it.interventions.clear();
            let tests = it.test.take();
            let id = it.id.clone();
            run.record(&c, it, now);
            if let Some(t) = tests {
                run.attach_test(&c, &id, t, now);
            }
        }
        let Some(trip) = run.breaker().trip().filter(|_| run.breaker().is_open()).cloned() else {
            return Ok(());
        };
        // Evidence made up for iterations the breaker already judged, and re-runs of the
        // code as it is: whatever they say, the breaker stays as it was (no cooldown: the
        // clock stands still).
        let before = run.breaker().clone();
        let now = run.iterations().last().and_then(|it| it.at).unwrap_or(at(0));
        for (pick, passes, sig) in late {
            let t = if passes {
                TestEvidence::new(Outcome::Pass)
            } else {
                let mut t = TestEvidence::new(Outcome::Fail);
                t.signature = Some(Signature::new(SIGNATURES[usize::from(sig)]).expect("hex"));
                t.failing = Some(1);
                t
            };
            if pick.index(2) == 0 && trip.after > 0 {
                let id = run.iterations()[pick.index(trip.after)].id.clone();
                run.attach_test(&c, &id, t, now);
            } else if let Some(last) = run.iterations().last() {
                let mut rerun = Iteration::new(
                    CommitId::new(format!("{}+run{}", last.id.as_str(), run.iterations().len()))
                        .expect("an id"),
                );
                rerun.tree = last.tree.clone();
                rerun.parent_tree = last.tree.clone();
                rerun.files = Some(Vec::new());
                rerun.kind = Some(crate::iteration::IterationKind::Attempt);
                rerun.uncommitted = true;
                rerun.at = Some(now);
                rerun.test = Some(t);
                run.record(&c, rerun, now);
            }
            prop_assert!(
                run.breaker().is_open(),
                "{:?} was mended by evidence on judged code: {:?}",
                before,
                run.breaker()
            );
        }
    }

    #[test]
    fn the_patch_id_is_blind_to_the_order_of_files(
        files in proptest::collection::vec(
            ("[a-z]{1,8}", proptest::collection::vec("[ -~]{0,20}", 0..5)),
            1..6,
        ),
        seed in any::<u64>(),
    ) {
        let id = |order: &[usize]| {
            let mut b = PatchIdBuilder::default();
            for &i in order {
                let (path, lines) = &files[i];
                let mut f = FilePatchHasher::new(FileStatus::Modified, path.as_bytes(), path.as_bytes());
                for l in lines {
                    f.added(l.as_bytes());
                }
                b.push(f);
            }
            b.finish()
        };
        let forward: Vec<usize> = (0..files.len()).collect();
        let mut shuffled = forward.clone();
        // A deterministic shuffle from the seed.
        let mut x = seed | 1;
        for i in (1..shuffled.len()).rev() {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            shuffled.swap(i, (x % (i as u64 + 1)) as usize);
        }
        prop_assert_eq!(id(&forward), id(&shuffled));
    }

    #[test]
    fn no_replay_line_reaches_a_panic(line in ".{0,300}") {
        let _ = parse_record(&line, "fuzz.jsonl", 1);
    }

    #[test]
    fn no_replay_record_with_odd_values_reaches_a_panic(
        id in "\\PC{0,40}",
        signature in "\\PC{0,40}",
        message in "\\PC{0,80}",
        failing in any::<i64>(),
    ) {
        let line = serde_json::json!({
            "id": id,
            "message": message,
            "test": {"outcome": "fail", "signature": signature, "failing": failing},
        })
        .to_string();
        if let Ok(it) = parse_record(&line, "fuzz.jsonl", 1) {
            // A record that was accepted is judged and shown without a panic.
            let c = Config::default();
            let j = judge(&c, vec![it.clone(), it], "r", at(0));
            let _ = text::verdict(&Status::of_judgement(&c, &j));
        }
    }

    #[test]
    fn no_config_text_reaches_a_panic(text in "\\PC{0,400}") {
        let _ = Config::parse(&text, std::path::Path::new("fuzz.yml"));
    }

    #[test]
    fn no_log_reaches_a_panic(bytes in proptest::collection::vec(any::<u8>(), 0..4096)) {
        let fp = fingerprint_bytes(&bytes);
        prop_assert_eq!(fp.signature.is_none(), fp.failures.is_empty());
    }

    #[test]
    fn a_log_fingerprints_the_same_in_any_chunks(
        lines in proptest::collection::vec(
            prop_oneof![
                "\\PC{0,60}",
                Just("test result: FAILED. 0 passed; 1 failed".to_owned()),
                Just("---- t stdout ----".to_owned()),
                Just("thread 't' panicked at src/lib.rs:1:1:".to_owned()),
                Just("--- FAIL: TestX (0.00s)".to_owned()),
                Just("FAILED tests/test_x.py::test_y - AssertionError".to_owned()),
                Just("error[E0308]: mismatched types".to_owned()),
                Just("<testsuite name=\"x\"><testcase name=\"t\"><failure message=\"m\"/>".to_owned()),
            ],
            0..40,
        ),
        cuts in proptest::collection::vec(any::<usize>(), 0..8),
        crlf in any::<bool>(),
    ) {
        let text = lines.join(if crlf { "\r\n" } else { "\n" });
        let bytes = text.as_bytes();
        let whole = fingerprint_bytes(bytes);
        let mut at: Vec<usize> = cuts.iter().map(|c| c % (bytes.len() + 1)).collect();
        at.sort_unstable();
        let mut fp = Fingerprinter::new();
        let mut from = 0;
        for to in at.into_iter().chain([bytes.len()]) {
            fp.feed(&bytes[from..to]);
            from = to;
        }
        prop_assert_eq!(fp.finish(), whole);
    }

    #[test]
    fn no_event_payload_reaches_a_panic(
        value in payload_value(),
        name in proptest::sample::select(vec![
            "pull_request", "pull_request_target", "workflow_run", "push", "issues",
            "schedule", "",
        ]),
        repository in proptest::option::of(proptest::sample::select(vec![
            "octo-org/widgets", "bad", "a/b/c",
        ])),
        sha in proptest::option::of("[0-9a-f]{0,41}"),
    ) {
        let vars = ActionsVars {
            event_name: name.to_owned(),
            repository: repository.map(str::to_owned),
            sha,
            ..ActionsVars::default()
        };
        let text = value.to_string();
        if let Ok(ctx) = parse_event(&vars, &text) {
            // Whatever was accepted names a repository and a valid head commit.
            prop_assert!(!ctx.repo.owner.is_empty() && !ctx.repo.name.is_empty());
            prop_assert!(!ctx.head_sha.as_str().is_empty());
        }
        let _ = IssuesEvent::parse(&text);
        // Cut short, as a truncated file would be.
        let half = (0..=text.len() / 2)
            .rev()
            .find(|i| text.is_char_boundary(*i))
            .unwrap_or(0);
        let _ = parse_event(&vars, &text[..half]);
    }
}
