//! Which tests a change takes away: its tests before and after, matched by name across all
//! its files (a test that moves, or a file split in several, keeps its name), and what
//! became of each one that was running.

use std::collections::HashMap;
use std::rc::Rc;

use super::parse::{Parsed, TestCase, may_declare_tests, parse};
use super::{Doubt, Lang, Role, TakenHow, TakenTest, bounded};

/// One file of a change and what is known of its contents: all of both sides from git,
/// the hunks of each side from a patch (context and removed lines, context and added
/// lines), or nothing (binary, too large, not in the clone).
#[derive(Debug, Clone, Copy, Default)]
pub struct ChangedFile<'a> {
    /// `None` for a file the change adds.
    pub old_path: Option<&'a str>,
    /// `None` for a file the change deletes.
    pub new_path: Option<&'a str>,
    pub old: Option<&'a str>,
    pub new: Option<&'a str>,
    /// What names each side's content (git's blob id), when the whole side is given: a
    /// side read before under the same key is not read again ([`Parses`]).
    pub old_key: Option<&'a [u8]>,
    pub new_key: Option<&'a [u8]>,
}

/// The tests of file contents already read, by their key (a blob id), for the changes of a
/// range: the content one change writes is the one a later change reads, and in a range
/// of thousands of commits each is read once instead of twice. At most
/// [`MAX_KEPT_PARSES`] are kept (then the oldest go, all at once).
#[derive(Debug, Default)]
pub struct Parses {
    by_key: HashMap<Vec<u8>, (Lang, Rc<Parsed>)>,
}

/// Most contents a [`Parses`] keeps.
pub const MAX_KEPT_PARSES: usize = 512;

impl Parses {
    /// The tests `text` (keyed `key`) declares, read as `lang`.
    fn of(&mut self, lang: Lang, key: Option<&[u8]>, text: &str) -> Rc<Parsed> {
        let Some(key) = key else {
            return Rc::new(parse(lang, text));
        };
        if let Some((l, parsed)) = self.by_key.get(key)
            && *l == lang
        {
            return Rc::clone(parsed);
        }
        if self.by_key.len() >= MAX_KEPT_PARSES {
            self.by_key.clear();
        }
        let parsed = Rc::new(parse(lang, text));
        self.by_key.insert(key.to_vec(), (lang, Rc::clone(&parsed)));
        parsed
    }
}

/// At most this many taken tests are kept per change (a change that deletes a whole suite
/// says so with the first of them).
pub(crate) const MAX_TAKEN: usize = 100;

/// A side of a file that bears tests, read.
struct Side<'a> {
    file: usize,
    path: &'a str,
    parsed: Rc<Parsed>,
}

/// The tests `files` take away; `role` says what each path is to the tests (the
/// ecosystems' discovery rules, or the configured `paths.tests`).
pub fn taken(files: &[ChangedFile<'_>], role: impl Fn(&str) -> Option<Role>) -> Vec<TakenTest> {
    taken_with(files, role, &mut Parses::default())
}

/// [`taken`], the contents read kept in `parses` for the next change of a range.
pub fn taken_with(
    files: &[ChangedFile<'_>],
    role: impl Fn(&str) -> Option<Role>,
    parses: &mut Parses,
) -> Vec<TakenTest> {
    let bears = |path: &str| -> Option<Lang> {
        match role(path) {
            Some(Role::Tests(lang)) => Some(lang),
            Some(Role::Support) => None,
            // cargo's unit tests live in any source file.
            None => (Lang::of(path) == Some(Lang::Rust)).then_some(Lang::Rust),
        }
    };
    // Nothing that ran before the change for it to take away: no side before it can
    // declare a test (a source file with none of its language's test markers), and no file
    // of unknown contents left. Then nothing is read.
    let nothing_before = files.iter().all(|f| match f.old_path.and_then(&bears) {
        None => true,
        Some(lang) => f.old.is_some_and(|text| !may_declare_tests(lang, text)),
    });
    if nothing_before {
        return Vec::new();
    }
    let (before, after, mut out) = read_sides(files, &bears, parses);
    if before.iter().all(|s| s.parsed.tests.is_empty()) && out.is_empty() {
        return out;
    }
    let (matched, gone) = follow(&before, &after, &mut out);
    if !gone.is_empty() {
        let change = Change {
            files,
            before: &before,
            after: &after,
            bears: &bears,
            role: &role,
        };
        change.judge_gone(&matched, gone, &mut out);
    }
    out.truncate(MAX_TAKEN);
    out
}

/// The sides of `files` that bear tests, read: before the change and after it; a file
/// whose old content is unknown and that leaves the tests is taken away whole (into the
/// third).
fn read_sides<'a>(
    files: &[ChangedFile<'a>],
    bears: &impl Fn(&str) -> Option<Lang>,
    parses: &mut Parses,
) -> (Vec<Side<'a>>, Vec<Side<'a>>, Vec<TakenTest>) {
    let mut out = Vec::new();
    let mut before: Vec<Side<'a>> = Vec::new();
    let mut after: Vec<Side<'a>> = Vec::new();
    for (k, f) in files.iter().enumerate() {
        let old_lang = f.old_path.and_then(|p| bears(p).map(|l| (p, l)));
        let new_lang = f.new_path.and_then(|p| bears(p).map(|l| (p, l)));
        if let Some((path, lang)) = old_lang {
            match f.old {
                Some(text) => before.push(Side {
                    file: k,
                    path,
                    parsed: parses.of(lang, f.old_key, text),
                }),
                // Nothing known of what it held: gone as a whole when it leaves.
                None if new_lang.is_none() => out.push(TakenTest {
                    path: path.to_owned(),
                    name: path.to_owned(),
                    how: if f.new_path.is_some() {
                        TakenHow::MovedOut
                    } else {
                        TakenHow::Deleted
                    },
                    line: None,
                    doubt: None,
                    because: None,
                    replaced: false,
                }),
                None => {}
            }
        }
        if let (Some((path, lang)), Some(text)) = (new_lang, f.new) {
            after.push(Side {
                file: k,
                path,
                parsed: parses.of(lang, f.new_key, text),
            });
        }
    }
    (before, after, out)
}

/// Follows each test that ran before the change to the test of its name after it: one now
/// out of the run goes into `out`. Returns which tests after the change were matched (per
/// side) and the tests whose name is gone.
fn follow<'b>(
    before: &'b [Side<'_>],
    after: &[Side<'_>],
    out: &mut Vec<TakenTest>,
) -> (Vec<Vec<bool>>, Vec<(&'b Side<'b>, &'b TestCase)>) {
    // Each test after the change, by name, not yet matched.
    let mut by_name: HashMap<&str, Vec<(usize, usize)>> = HashMap::new();
    for (s, side) in after.iter().enumerate() {
        for (t, test) in side.parsed.tests.iter().enumerate() {
            by_name.entry(&test.name).or_default().push((s, t));
        }
    }
    let mut matched = vec![Vec::new(); after.len()];
    for (s, side) in after.iter().enumerate() {
        matched[s] = vec![false; side.parsed.tests.len()];
    }
    let mut gone: Vec<(&Side<'_>, &TestCase)> = Vec::new();
    for side in before {
        let focus_now = after
            .iter()
            .find(|a| a.file == side.file)
            .and_then(|a| a.parsed.focus.as_ref())
            .filter(|_| side.parsed.focus.is_none());
        for test in side.parsed.tests.iter().filter(|t| t.off.is_none()) {
            // Of the tests of the same name after the change, the one that is most likely
            // this one: in the same file and still running, then in the same file, then
            // running elsewhere (a move), then any.
            let candidates = by_name.get_mut(test.name.as_str());
            let found = candidates.and_then(|c| {
                let same_file = |&&(s, _): &&(usize, usize)| after[s].file == side.file;
                let running = |&&(s, t): &&(usize, usize)| after[s].parsed.tests[t].off.is_none();
                let at = c
                    .iter()
                    .position(|x| same_file(&x) && running(&x))
                    .or_else(|| c.iter().position(|x| same_file(&x)))
                    .or_else(|| c.iter().position(|x| running(&x)))
                    .or_else(|| (!c.is_empty()).then_some(0))?;
                Some(c.remove(at))
            });
            let Some((s, t)) = found else {
                gone.push((side, test));
                continue;
            };
            matched[s][t] = true;
            let now = &after[s].parsed.tests[t];
            let off = now.off.clone().or_else(|| {
                focus_now
                    .filter(|_| after[s].file == side.file && !now.focused)
                    .cloned()
            });
            if let Some(off) = off {
                let quarantine = issue_link(&off.line);
                let (doubt, because) = match (&off.condition, quarantine) {
                    (Some(c), _) => (Some(Doubt::Conditional), Some(c.clone())),
                    (None, Some(link)) => (Some(Doubt::Quarantined), Some(link)),
                    (None, None) => (None, None),
                };
                out.push(TakenTest {
                    path: after[s].path.to_owned(),
                    name: test.name.clone(),
                    how: off.how,
                    line: Some(off.line),
                    doubt,
                    because,
                    replaced: false,
                });
            }
        }
    }
    (matched, gone)
}

/// A change's files and their test-bearing sides, for judging the tests it took away.
struct Change<'c, 'a, B, R> {
    files: &'c [ChangedFile<'a>],
    before: &'c [Side<'a>],
    after: &'c [Side<'a>],
    bears: &'c B,
    role: &'c R,
}

impl<B, R> Change<'_, '_, B, R>
where
    B: Fn(&str) -> Option<Lang>,
    R: Fn(&str) -> Option<Role>,
{
    /// What became of each test whose name is gone: deleted, emptied out, renamed out of
    /// discovery, moved out (unless a test file of the change imports it), and whether new
    /// tests took its place or the code it tests went with it.
    fn judge_gone(
        &self,
        matched: &[Vec<bool>],
        gone: Vec<(&Side<'_>, &TestCase)>,
        out: &mut Vec<TakenTest>,
    ) {
        let (files, before, after, bears, role) =
            (self.files, self.before, self.after, self.bears, self.role);
        // The definitions the change adds, to tell a test renamed out of discovery (`_test_x`,
        // a function that lost its `#[test]`).
        let defs_before: Vec<String> = before
            .iter()
            .flat_map(|s| s.parsed.defs.iter().map(|d| d.to_lowercase()))
            .collect();
        let defs_after: Vec<String> = after
            .iter()
            .flat_map(|s| s.parsed.defs.iter().map(|d| d.to_lowercase()))
            .filter(|d| !defs_before.contains(d))
            .collect();
        // A file of tests moved where the runner does not look, but imported by a test file of
        // the change (`fixtures/timers.suite.ts` imported by `timers-node.test.ts`): its tests
        // still run.
        let imported = |new_path: &str| {
            let name = new_path.rsplit('/').next().unwrap_or(new_path);
            let stem = name.rsplit_once('.').map_or(name, |(stem, _)| stem);
            stem.len() >= 3
                && files.iter().any(|f| {
                    f.new_path.is_some_and(|p| bears(p).is_some())
                        && f.new.is_some_and(|text| text.contains(stem))
                })
        };
        // New tests that took no earlier test's name: a rewrite under new names.
        let mut new_tests = after
            .iter()
            .enumerate()
            .flat_map(|(s, side)| {
                let matched = &matched[s];
                side.parsed
                    .tests
                    .iter()
                    .enumerate()
                    .filter(move |(t, test)| !matched[*t] && test.off.is_none())
            })
            .count();
        let code = CodeGone::of(files, &bears, &role);
        for (side, test) in gone {
            let f = &files[side.file];
            let after_side = after.iter().find(|a| a.file == side.file);
            let lower = test.name.to_lowercase();
            let how = if f.new_path.is_none() {
                TakenHow::Deleted
            } else if f.new_path.and_then(bears).is_none() {
                if f.new_path.is_some_and(imported) {
                    continue;
                }
                TakenHow::MovedOut
            } else if defs_after.iter().any(|d| d.contains(&lower)) {
                TakenHow::RenamedOut
            } else if after_side.is_some_and(|a| a.parsed.tests.is_empty())
                && matches!(role(side.path), Some(Role::Tests(_)))
            {
                TakenHow::Emptied
            } else {
                TakenHow::Deleted
            };
            let replaced = matches!(how, TakenHow::Deleted | TakenHow::Emptied) && new_tests > 0;
            if replaced {
                new_tests -= 1;
            }
            let with_code = matches!(how, TakenHow::Deleted | TakenHow::Emptied)
                .then(|| code.tested_by(side.path, &test.name, role(side.path).is_none()))
                .flatten();
            out.push(TakenTest {
                path: side.path.to_owned(),
                name: test.name.clone(),
                how,
                line: None,
                doubt: with_code.as_ref().map(|_| Doubt::WithCode),
                because: with_code,
                replaced,
            });
        }
    }
}

/// The code a change deletes: its files that hold no tests, and the definitions gone from
/// them.
struct CodeGone<'a> {
    files: Vec<&'a str>,
    defs: Vec<String>,
}

impl<'a> CodeGone<'a> {
    fn of(
        files: &[ChangedFile<'a>],
        bears: &impl Fn(&str) -> Option<Lang>,
        role: &impl Fn(&str) -> Option<Role>,
    ) -> CodeGone<'a> {
        let is_code = |p: &str| Lang::of(p).is_some() && role(p).is_none();
        let gone_files = files
            .iter()
            .filter(|f| f.new_path.is_none())
            .filter_map(|f| f.old_path)
            .filter(|p| is_code(p))
            .collect();
        let mut before: HashMap<String, usize> = HashMap::new();
        for f in files {
            let (Some(p), Some(text)) = (f.old_path, f.old) else {
                continue;
            };
            if let Some(lang) = Lang::of(p).filter(|_| is_code(p) || bears(p).is_some()) {
                for d in parse(lang, text).defs {
                    *before.entry(d.to_lowercase()).or_default() += 1;
                }
            }
        }
        for f in files {
            let (Some(p), Some(text)) = (f.new_path, f.new) else {
                continue;
            };
            if let Some(lang) = Lang::of(p).filter(|_| is_code(p) || bears(p).is_some()) {
                for d in parse(lang, text).defs {
                    if let Some(n) = before.get_mut(&d.to_lowercase()) {
                        *n = n.saturating_sub(1);
                    }
                }
            }
        }
        CodeGone {
            files: gone_files,
            defs: before
                .into_iter()
                .filter(|(d, n)| *n > 0 && d.len() >= 4)
                .map(|(d, _)| d.replace('_', ""))
                .collect(),
        }
    }

    /// The code a test (its file and name) tested, if the change deleted it: the file it
    /// lived in (a unit test beside its code), a file of the same subject (`test_parser.py`
    /// and `parser.py`), the project it sat in (`examples/app/tests/…` and
    /// `examples/app/…`), or a definition its name mentions.
    fn tested_by(&self, path: &str, name: &str, in_code: bool) -> Option<String> {
        if in_code && self.files.contains(&path) {
            return Some(path.to_owned());
        }
        let subject = subject_of(path);
        let project = project_of(path);
        for f in &self.files {
            let same_subject = subject.len() >= 3 && subject_of(f) == subject;
            let same_project = !project.is_empty() && f.starts_with(&format!("{project}/"));
            if same_subject || same_project {
                return Some((*f).to_owned());
            }
        }
        let name = name.to_lowercase().replace('_', "");
        self.defs
            .iter()
            .find(|d| name.contains(d.as_str()))
            .map(|d| format!("the definition {d}"))
    }
}

/// What a file is about: its name without the test affixes and extensions, lowercase,
/// without `_` and `-` (`test_http_client.py`, `HttpClientTests.cs`, `http-client.spec.ts`
/// → `httpclient`).
fn subject_of(path: &str) -> String {
    let name = path.rsplit('/').next().unwrap_or(path);
    let stem = name.split('.').next().unwrap_or(name);
    let mut s = stem;
    for prefix in ["test_", "Test"] {
        s = s.strip_prefix(prefix).unwrap_or(s);
    }
    for suffix in [
        "_test",
        "_tests",
        "_spec",
        "_unittest",
        "Tests",
        "Test",
        "Spec",
    ] {
        s = s.strip_suffix(suffix).unwrap_or(s);
    }
    s.to_lowercase().replace(['_', '-'], "")
}

/// The project a test file belongs to: its directories before the first test directory
/// (`examples/app/tests/test_x.py` → `examples/app`); empty at the repository's root.
fn project_of(path: &str) -> String {
    let dirs: Vec<&str> = path.split('/').collect();
    let dirs = &dirs[..dirs.len().saturating_sub(1)];
    let cut = dirs
        .iter()
        .position(|d| matches!(*d, "test" | "tests" | "spec" | "__tests__") || d.ends_with("Tests"))
        .unwrap_or(dirs.len());
    if cut == dirs.len() {
        return String::new();
    }
    dirs[..cut].join("/")
}

/// The issue a skip names: a URL to an issue or pull request, `#123`, `JIRA-123`,
/// `issue 123`.
pub(crate) fn issue_link(text: &str) -> Option<String> {
    for word in
        text.split(|c: char| c.is_whitespace() || matches!(c, '"' | '\'' | '(' | ')' | ',' | '`'))
    {
        let w = word.trim_end_matches(['.', ';', ']', '>']);
        if w.starts_with("http")
            && [
                "/issues/",
                "/pull/",
                "/browse/",
                "show_bug",
                "crbug.com/",
                "/bugs/",
                "/-/issues",
            ]
            .iter()
            .any(|p| w.contains(p))
        {
            return Some(bounded(w));
        }
        if let Some(n) = w.strip_prefix('#')
            && n.len() >= 2
            && n.bytes().all(|b| b.is_ascii_digit())
        {
            return Some(w.to_owned());
        }
        if let Some((key, n)) = w.split_once('-')
            && key.len() >= 2
            && key
                .bytes()
                .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit())
            && key.as_bytes()[0].is_ascii_uppercase()
            && !n.is_empty()
            && n.bytes().all(|b| b.is_ascii_digit())
        {
            return Some(w.to_owned());
        }
    }
    let lower = text.to_lowercase();
    for kw in ["issue ", "bug "] {
        if let Some(at) = lower.find(kw) {
            let n: String = lower[at + kw.len()..]
                .chars()
                .take_while(char::is_ascii_digit)
                .collect();
            if n.len() >= 2 {
                return Some(format!("{kw}{n}"));
            }
        }
    }
    None
}

#[cfg(test)]
mod tests;
