//! Properties of the pure core over random input (proptest, stable Rust): random histories
//! never panic and keep the breaker's invariants after every step; judging at once and
//! recording one commit at a time agree; the patch id is blind to the order of files; no
//! `replay` line, config or log reaches a panic.

use jiff::Timestamp;
use proptest::prelude::*;

use crate::breaker::{Breaker, State, TerminalStatus};
use crate::config::{Config, RuleAction, TripAction};
use crate::fingerprint::fingerprint_bytes;
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

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

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
            run.record(&c, it, now);
            invariants(run.breaker(), run.iterations().len(), models)?;
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
}
