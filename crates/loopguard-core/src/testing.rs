//! Builders for tests: histories of iterations that read like what the agent did.
//!
//! ```
//! use loopguard_core::rules::RuleName;
//! use loopguard_core::testing::History;
//!
//! let h = History::new().fresh().empty().empty().empty();
//! assert_eq!(h.first_trip(), Some((4, RuleName::Stagnation)));
//! ```
//!
//! Each commit starts from the tree of the one before; ids are `c00aaaaaaa`, `c01aaaaaaa`,
//! … so their short forms (`c00aaaa`) are easy to read in reasons.
//! Compiled for this crate's tests and, with the `testing` feature, for other crates'.

use jiff::Timestamp;

use crate::config::Config;
use crate::ids::{CommitId, Signature};
use crate::iteration::{
    FileChange, FileStatus, Intervention, InterventionKind, Iteration, IterationKind, Outcome,
    SkipAdded, TestEvidence,
};
use crate::rules::{Evaluation, RuleName, evaluate_history};
use crate::suite::{Doubt, TakenHow, TakenTest};

/// A commit id from a test's text (panics on an invalid one: tests only).
pub fn id(s: &str) -> CommitId {
    CommitId::new(s).expect("a valid id in a test")
}

/// An iteration with only its id.
pub fn it(s: &str) -> Iteration {
    Iteration::new(id(s))
}

/// A signature from a test's text; short hex-ish names are padded to be valid.
pub fn sig(s: &str) -> Signature {
    let hex: String = s
        .chars()
        .map(|c| if c.is_ascii_hexdigit() { c } else { 'f' })
        .collect();
    Signature::new(format!("{hex:0<8}")).expect("a valid signature in a test")
}

/// A fixed time: `secs` after 2027-01-15T08:00:00Z.
pub fn ts(secs: i64) -> Timestamp {
    Timestamp::from_second(1_800_000_000 + secs).expect("in range")
}

/// A history builder.
#[derive(Debug, Clone)]
pub struct History {
    pub its: Vec<Iteration>,
    tree: String,
}

impl Default for History {
    fn default() -> Self {
        History::new()
    }
}

impl History {
    pub fn new() -> History {
        History {
            its: Vec::new(),
            tree: "base".into(),
        }
    }

    fn next_id(&self) -> CommitId {
        id(&format!("c{:02}aaaaaaa", self.its.len()))
    }

    /// A commit to `tree` with patch id `patch`, touching `src/lib.rs`.
    pub fn to(mut self, tree: &str, patch: &str) -> History {
        let n = self.its.len();
        let mut it = Iteration::new(self.next_id());
        it.tree = Some(tree.into());
        it.parent_tree = Some(std::mem::replace(&mut self.tree, tree.into()));
        it.patch_id = Some(patch.into());
        it.files = Some(vec![FileChange {
            path: "src/lib.rs".into(),
            added: Some(1),
            deleted: Some(0),
            status: Some(FileStatus::Modified),
            ..FileChange::default()
        }]);
        it.message = Some(format!("step {n}"));
        it.at = Some(ts(60 * n as i64));
        self.its.push(it);
        self
    }

    /// A new tree with a fresh patch.
    pub fn fresh(self) -> History {
        let n = self.its.len();
        self.to(&format!("t{n}"), &format!("p{n}"))
    }

    /// An empty commit ("Initial plan").
    pub fn empty(mut self) -> History {
        let n = self.its.len();
        let mut it = Iteration::new(self.next_id());
        it.tree = Some(self.tree.clone());
        it.parent_tree = Some(self.tree.clone());
        it.files = Some(vec![]);
        it.message = Some("Initial plan".into());
        it.at = Some(ts(60 * n as i64));
        self.its.push(it);
        self
    }

    /// The tests run again on the same tree, with the same outcome (`loopguard run`
    /// twice): an attempt with no change.
    pub fn rerun(mut self) -> History {
        let last = self.its.last().expect("a commit to re-run").clone();
        let n = self.its.len();
        let mut it = Iteration::new(self.next_id());
        it.tree = last.tree.clone();
        it.parent_tree = last.tree.clone();
        it.files = Some(vec![]);
        it.message = last.message.clone();
        it.test = last.test.clone();
        it.kind = Some(IterationKind::Attempt);
        it.at = Some(ts(60 * n as i64));
        self.its.push(it);
        self
    }

    /// A history of these iterations as they are.
    pub fn of(its: Vec<Iteration>) -> History {
        History {
            its,
            tree: "base".into(),
        }
    }

    pub fn last(&mut self) -> &mut Iteration {
        self.its.last_mut().expect("a commit first")
    }

    pub fn msg(mut self, m: &str) -> History {
        self.last().message = Some(m.into());
        self
    }

    pub fn author(mut self, a: &str) -> History {
        self.last().author = Some(a.into());
        self
    }

    pub fn files(mut self, paths: &[&str]) -> History {
        self.last().files = Some(
            paths
                .iter()
                .map(|p| FileChange {
                    path: (*p).into(),
                    status: Some(FileStatus::Modified),
                    ..FileChange::default()
                })
                .collect(),
        );
        self
    }

    pub fn deleted(mut self, path: &str) -> History {
        self.last().files = Some(vec![FileChange {
            path: path.into(),
            status: Some(FileStatus::Deleted),
            ..FileChange::default()
        }]);
        self
    }

    pub fn skip(mut self, path: &str, line: &str) -> History {
        self.last().skips_added = Some(vec![SkipAdded {
            path: path.into(),
            line: line.into(),
        }]);
        self
    }

    /// The commit takes the test `name` of `path` away, as `how` says.
    pub fn takes(mut self, path: &str, name: &str, how: TakenHow) -> History {
        self.last()
            .tests_taken
            .get_or_insert_with(Vec::new)
            .push(TakenTest {
                path: path.into(),
                name: name.into(),
                how,
                line: None,
                doubt: None,
                because: None,
                replaced: false,
            });
        self
    }

    /// The last test taken away is doubtful: `doubt`, `because`.
    pub fn doubtful(mut self, doubt: Doubt, because: &str) -> History {
        let t = self
            .last()
            .tests_taken
            .as_mut()
            .and_then(|t| t.last_mut())
            .expect("a test taken away first");
        t.doubt = Some(doubt);
        t.because = Some(because.into());
        self
    }

    /// As many new tests came in place of the last test taken away.
    pub fn replaced(mut self) -> History {
        let t = self
            .last()
            .tests_taken
            .as_mut()
            .and_then(|t| t.last_mut())
            .expect("a test taken away first");
        t.replaced = true;
        self
    }

    pub fn whitespace(mut self) -> History {
        self.last().whitespace_only = Some(true);
        self
    }

    /// The last iteration only moves submodules to commits that change nothing.
    pub fn empty_bump(mut self) -> History {
        self.last().empty_bump = Some(true);
        self
    }

    /// The tests fail with signature `s` (see [`sig`]) and `failing` failures.
    pub fn fail(mut self, s: &str, failing: u64) -> History {
        self.last().test = Some(TestEvidence {
            outcome: Outcome::Fail,
            signature: Some(sig(s)),
            failing: Some(failing),
            runner: Some(crate::fingerprint::Runner::Cargo),
            command: None,
            first_error: Some("assertion failed".into()),
            failures: Some(vec!["counts_three_words".into()]),
        });
        self
    }

    pub fn pass(mut self) -> History {
        self.last().test = Some(TestEvidence::new(Outcome::Pass));
        self
    }

    pub fn kind(mut self, k: IterationKind) -> History {
        self.last().kind = Some(k);
        self
    }

    /// The commit happened `secs` after the start.
    pub fn at(mut self, secs: i64) -> History {
        self.last().at = Some(ts(secs));
        self
    }

    /// A person acted on the breaker after the last commit, `secs` after the start.
    pub fn then(mut self, action: InterventionKind, secs: i64) -> History {
        self.last().interventions.push(Intervention {
            action,
            at: ts(secs),
            by: None,
        });
        self
    }

    /// Sets every commit's parents: the first's is `first_parent`, the others the commit
    /// before.
    pub fn with_parents(mut self, first_parent: &str) -> History {
        let mut parent = id(first_parent);
        for it in &mut self.its {
            it.parents = Some(vec![parent.clone()]);
            parent = it.id.clone();
        }
        self
    }

    pub fn eval(&self) -> Evaluation {
        self.eval_with(&Config::default())
    }

    pub fn eval_with(&self, config: &Config) -> Evaluation {
        evaluate_history(config, &self.its, 0)
    }

    pub fn eval_from(&self, config: &Config, baseline: usize) -> Evaluation {
        evaluate_history(config, &self.its, baseline)
    }

    pub fn count(&self, rule: RuleName) -> u64 {
        self.eval().counters[&rule].count
    }

    /// The history length at which a rule first trips (rules only, no breaker), and the
    /// rule.
    pub fn first_trip(&self) -> Option<(usize, RuleName)> {
        self.first_trip_with(&Config::default())
    }

    pub fn first_trip_with(&self, config: &Config) -> Option<(usize, RuleName)> {
        (1..=self.its.len()).find_map(|n| {
            evaluate_history(config, &self.its[..n], 0)
                .trip()
                .map(|f| (n, f.rule))
        })
    }
}
