//! What a test is, per ecosystem, and which tests a change takes away (docs/rules.md,
//! "What a test is" and "Taking a test away").
//!
//! `constraint` asks one question of a change: *did it take away a check?* A check is a
//! test as its ecosystem means it — a function pytest, `go test`, jest, cargo, JUnit,
//! xUnit, RSpec, PHPUnit or ExUnit collects, in a file that runner collects
//! ([`discovery`]) — not a path under `tests/`: fixtures, snapshots and mock data are no
//! tests, and a test that moves (renamed below git's threshold and rewritten, split into
//! several files) is not taken away. So the change is read as its tests before and after
//! ([`parse`]): a test whose name is gone from every file of the change was deleted,
//! emptied out, renamed out of discovery or moved out of the test paths; one that is still
//! there may now be skipped, a `todo`, an expected failure, disabled by a `cfg` that is
//! never true, or return before it checks anything ([`taken`](mod@taken)). What is
//! doubtful is said with it: a skip on a condition (a platform, a missing tool), a
//! quarantine that names its issue, a test deleted together with the code it tests.
//!
//! Pure: the shell hands in the files of a change with what it has of their contents (all
//! of both sides from git, the hunks from GitHub's patches).

pub mod discovery;
mod lex;
pub mod parse;
mod taken;

use serde::{Deserialize, Serialize};

pub use discovery::{Role, role};
pub use taken::{ChangedFile, MAX_KEPT_PARSES, Parses, taken, taken_with};

/// The languages whose tests loopguard reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Lang {
    Python,
    Go,
    /// JavaScript and TypeScript (jest, vitest, mocha, node:test, jasmine).
    Js,
    Rust,
    /// Java, Kotlin, Groovy, Scala (JUnit, TestNG, Spock's annotations).
    Jvm,
    /// C#, F#, Visual Basic (xUnit, NUnit, MSTest).
    DotNet,
    Ruby,
    Php,
    Elixir,
    /// C and C++ (GoogleTest, Catch2).
    Cpp,
    Swift,
    Dart,
}

impl Lang {
    /// The language of a file, by its extension.
    pub fn of(path: &str) -> Option<Lang> {
        let name = path.rsplit('/').next().unwrap_or(path);
        let ext = name.rsplit_once('.')?.1;
        Some(match ext {
            "py" => Lang::Python,
            "go" => Lang::Go,
            "js" | "jsx" | "mjs" | "cjs" | "ts" | "tsx" | "mts" | "cts" => Lang::Js,
            "rs" => Lang::Rust,
            "java" | "kt" | "kts" | "groovy" | "scala" => Lang::Jvm,
            "cs" | "fs" | "vb" => Lang::DotNet,
            "rb" => Lang::Ruby,
            "php" => Lang::Php,
            "ex" | "exs" => Lang::Elixir,
            "c" | "cc" | "cpp" | "cxx" => Lang::Cpp,
            "swift" => Lang::Swift,
            "dart" => Lang::Dart,
            _ => return None,
        })
    }
}

/// How a change took a test away.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TakenHow {
    /// Its definition is gone (its file deleted, or the test removed from it).
    Deleted,
    /// Its file is still there, with no test left in it.
    Emptied,
    /// Its file moved where the runner does not look.
    MovedOut,
    /// It is still defined, under a name (or without the attribute) the runner does not
    /// collect: `_test_x`, `fn x` without `#[test]`.
    RenamedOut,
    /// Skipped: `@pytest.mark.skip`, `#[ignore]`, `it.skip`, `t.Skip()`, `@Disabled`, …
    Skipped,
    /// Turned into a placeholder: `it.todo`, `test.todo`, `markTestIncomplete`.
    Todo,
    /// Expected to fail: `@pytest.mark.xfail`, `test.fails`, `pending`.
    ExpectedFailure,
    /// It returns before it checks anything.
    EarlyReturn,
    /// Compiled out by a condition that is never true: `#[cfg(any())]`, `//go:build ignore`.
    Disabled,
    /// Another test of its file was focused (`it.only`): the others no longer run.
    Focused,
}

impl TakenHow {
    /// The past-tense verb of a message: "deleted the test x".
    pub fn verb(self) -> &'static str {
        match self {
            TakenHow::Deleted => "deleted",
            TakenHow::Emptied => "emptied out",
            TakenHow::MovedOut => "moved out of the test paths",
            TakenHow::RenamedOut => "renamed out of discovery",
            TakenHow::Skipped => "skipped",
            TakenHow::Todo => "made a todo of",
            TakenHow::ExpectedFailure => "marked as expected to fail",
            TakenHow::EarlyReturn => "made return early",
            TakenHow::Disabled => "compiled out",
            TakenHow::Focused => "left out by focusing another test than",
        }
    }

    /// A skip of a test that is still there (the `skips_added` of the record).
    pub fn is_skip(self) -> bool {
        match self {
            TakenHow::Skipped
            | TakenHow::Todo
            | TakenHow::ExpectedFailure
            | TakenHow::EarlyReturn
            | TakenHow::Disabled
            | TakenHow::Focused => true,
            TakenHow::Deleted | TakenHow::Emptied | TakenHow::MovedOut | TakenHow::RenamedOut => {
                false
            }
        }
    }
}

/// Why taking a test away may be fine.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Doubt {
    /// The skip has a condition (a platform, a missing tool, an environment).
    Conditional,
    /// The skip names the issue that tracks it.
    Quarantined,
    /// The code it tests went with it.
    WithCode,
}

/// A test a change takes away: the record's `tests_taken` (docs/contract.md).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TakenTest {
    /// The file it was in.
    pub path: String,
    /// Its name: the function, or the title of an `it(…)`; the file's path when the change
    /// does not show which tests it held.
    pub name: String,
    pub how: TakenHow,
    /// The line that took it away (a skip, a `cfg`), trimmed and bounded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub doubt: Option<Doubt>,
    /// What makes it doubtful: the condition, the issue, the code that went with it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub because: Option<String>,
    /// As many new tests came in its place in the same change: a rewrite under new names,
    /// unless this one was failing.
    #[serde(default, skip_serializing_if = "is_false")]
    pub replaced: bool,
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// The tests one edit of a file takes away, by each ecosystem's discovery rules: `before`
/// and `after` are the file as it was and is, or the text the edit replaced and the text it
/// put in its place (`after` is `None` when the edit deleted the file). For the edits of a
/// coding agent's session, which come as such texts.
pub fn taken_by_edit(path: &str, before: &str, after: Option<&str>) -> Vec<TakenTest> {
    taken(
        &[ChangedFile {
            old_path: Some(path),
            new_path: after.map(|_| path),
            old: Some(before),
            new: after,
            ..ChangedFile::default()
        }],
        role,
    )
}

/// The line of the first test `text` (the file `path`) takes out of the run with no
/// condition and no issue that tracks it: what a file written over an unknown one may have
/// skipped.
pub fn skipped_in(path: &str, text: &str) -> Option<String> {
    let Some(Role::Tests(lang)) = role(path) else {
        return None;
    };
    parse::parse(lang, text)
        .tests
        .into_iter()
        .filter_map(|t| t.off)
        .find(|off| off.condition.is_none() && taken::issue_link(&off.line).is_none())
        .map(|off| off.line)
}

/// The longest text a [`TakenTest`] carries in `line` and `because`, in bytes.
pub const MAX_TEXT: usize = 160;

/// `s` trimmed and cut to [`MAX_TEXT`] bytes at a character boundary.
pub(crate) fn bounded(s: &str) -> String {
    let s = s.trim();
    if s.len() <= MAX_TEXT {
        return s.to_owned();
    }
    let mut end = MAX_TEXT;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &s[..end])
}
