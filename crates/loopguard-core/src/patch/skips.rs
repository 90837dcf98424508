//! Test skips a change adds: `#[ignore]`, `@pytest.mark.skip`, `it.skip(`, `t.Skip(`,
//! `@Disabled`, `[Fact(Skip = ..)]` and their kin.
//!
//! Pure: the caller hands in a file's path and the lines its diff adds and removes. A skip
//! counts only net per file and per kind: a skip whose kind also appears in the removed
//! lines merely moved or was reworded, so it is not added. The language comes from the file
//! extension (a `#[ignore]` in a Markdown file is prose, not a skip), and comment lines are
//! ignored (`// it.skip(` is not a skip).

use crate::iteration::SkipAdded;

/// The longest `line` a [`SkipAdded`] carries, in bytes (cut at a char boundary).
pub const MAX_SKIP_LINE: usize = 200;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Lang {
    Rust,
    Python,
    Js,
    Go,
    Jvm,
    DotNet,
}

/// The kind of a recognised skip; skips of the same kind cancel between added and removed
/// lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum SkipKind {
    RustIgnore,
    PytestMarkSkip,
    PytestSkipCall,
    UnittestSkip,
    JsSkip,
    JsX,
    GoSkip,
    JvmDisabled,
    JvmIgnore,
    DotNetIgnore,
    DotNetSkip,
}

fn lang_of(path: &str) -> Option<Lang> {
    let name = path.rsplit('/').next().unwrap_or(path);
    let ext = name.rsplit_once('.')?.1;
    Some(match ext {
        "rs" => Lang::Rust,
        "py" | "pyi" => Lang::Python,
        "js" | "jsx" | "mjs" | "cjs" | "ts" | "tsx" | "mts" | "cts" | "vue" | "svelte" => Lang::Js,
        "go" => Lang::Go,
        "java" | "kt" | "kts" | "groovy" | "scala" => Lang::Jvm,
        "cs" | "fs" | "vb" => Lang::DotNet,
        _ => return None,
    })
}

/// Whether lines of `path` can hold a skip at all (cheap; lets callers skip collecting
/// lines).
pub fn may_hold_skips(path: &str) -> bool {
    lang_of(path).is_some()
}

fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'$'
}

/// Whether `needle` occurs in `hay` as a token: not preceded by an identifier char or a
/// `.` (so `fixit(` and `obj.xit(` do not match), and, when the needle ends in an
/// identifier char, not followed by one (so `@Ignored` and `skipif` do not match).
fn has_token(hay: &str, needle: &str) -> bool {
    let bytes = hay.as_bytes();
    let tail_is_ident = needle.as_bytes().last().is_some_and(|&b| is_ident(b));
    let head_is_ident = needle.as_bytes().first().is_some_and(|&b| is_ident(b));
    let mut from = 0;
    while let Some(pos) = hay[from..].find(needle) {
        let start = from + pos;
        let end = start + needle.len();
        let before_ok = !head_is_ident
            || start == 0
            || !(is_ident(bytes[start - 1]) || bytes[start - 1] == b'.');
        let after_ok = !tail_is_ident || end == bytes.len() || !is_ident(bytes[end]);
        if before_ok && after_ok {
            return true;
        }
        from = start + 1;
    }
    false
}

fn is_comment(lang: Lang, line: &str) -> bool {
    match lang {
        Lang::Python => line.starts_with('#'),
        // `#[ignore]` starts with `#` but is an attribute, not a comment.
        Lang::Rust | Lang::Js | Lang::Go | Lang::Jvm | Lang::DotNet => {
            line.starts_with("//") || line.starts_with("/*") || line.starts_with('*')
        }
    }
}

fn classify(lang: Lang, line: &str) -> Option<SkipKind> {
    let line = line.trim();
    if line.is_empty() || is_comment(lang, line) {
        return None;
    }
    match lang {
        Lang::Rust => {
            let ignore_attr = line
                .strip_prefix("#[ignore")
                .is_some_and(|rest| !rest.bytes().next().is_some_and(is_ident));
            let cfg_attr_ignore = line.starts_with("#[cfg_attr(") && has_token(line, "ignore");
            (ignore_attr || cfg_attr_ignore).then_some(SkipKind::RustIgnore)
        }
        Lang::Python => {
            if has_token(line, "@pytest.mark.skip") {
                Some(SkipKind::PytestMarkSkip)
            } else if has_token(line, "pytest.skip(") {
                Some(SkipKind::PytestSkipCall)
            } else if has_token(line, "@unittest.skip") {
                Some(SkipKind::UnittestSkip)
            } else {
                None
            }
        }
        Lang::Js => {
            if ["it.skip(", "test.skip(", "describe.skip("]
                .iter()
                .any(|n| has_token(line, n))
            {
                Some(SkipKind::JsSkip)
            } else if ["xit(", "xdescribe(", "xtest("]
                .iter()
                .any(|n| has_token(line, n))
            {
                Some(SkipKind::JsX)
            } else {
                None
            }
        }
        Lang::Go => ["t.Skip(", "t.Skipf(", "t.SkipNow("]
            .iter()
            .any(|n| has_token(line, n))
            .then_some(SkipKind::GoSkip),
        Lang::Jvm => {
            if has_token(line, "@Disabled") {
                Some(SkipKind::JvmDisabled)
            } else if has_token(line, "@Ignore") {
                Some(SkipKind::JvmIgnore)
            } else {
                None
            }
        }
        Lang::DotNet => {
            // Attributes allow free spacing: `[Fact( Skip = "..." )]`.
            let squeezed: String = line.chars().filter(|c| !c.is_whitespace()).collect();
            if squeezed.contains("[Fact(Skip=") || squeezed.contains("[Theory(Skip=") {
                Some(SkipKind::DotNetSkip)
            } else if ["[Ignore]", "[Ignore(", ",Ignore]", ",Ignore("]
                .iter()
                .any(|n| squeezed.contains(n))
            {
                Some(SkipKind::DotNetIgnore)
            } else {
                None
            }
        }
    }
}

/// The skip kind of one line of `path`, if it is one.
pub fn skip_kind(path: &str, line: &str) -> Option<SkipKind> {
    classify(lang_of(path)?, line)
}

/// Cuts `line` (trimmed) to at most [`MAX_SKIP_LINE`] bytes at a char boundary.
pub fn bounded_line(line: &str) -> String {
    let line = line.trim();
    if line.len() <= MAX_SKIP_LINE {
        return line.to_owned();
    }
    let mut end = MAX_SKIP_LINE;
    while !line.is_char_boundary(end) {
        end -= 1;
    }
    line[..end].to_owned()
}

/// The skips that the diff of `path` adds, net of those it removes (per kind).
///
/// Lines are raw bytes (invalid UTF-8 is replaced); the reported lines are the added ones
/// whose text does not also appear among the removed lines, in order.
pub fn skips_added<'a>(
    path: &str,
    added: impl IntoIterator<Item = &'a [u8]>,
    removed: impl IntoIterator<Item = &'a [u8]>,
) -> Vec<SkipAdded> {
    let Some(lang) = lang_of(path) else {
        return Vec::new();
    };
    let found = |lines: &mut dyn Iterator<Item = &'a [u8]>| -> Vec<(SkipKind, String)> {
        lines
            .filter_map(|raw| {
                let text = String::from_utf8_lossy(raw);
                classify(lang, &text).map(|kind| (kind, text.trim().to_owned()))
            })
            .collect()
    };
    let added = found(&mut added.into_iter());
    if added.is_empty() {
        return Vec::new();
    }
    let mut removed = found(&mut removed.into_iter());

    let mut out = Vec::new();
    let mut kinds: Vec<SkipKind> = added.iter().map(|(k, _)| *k).collect();
    kinds.sort();
    kinds.dedup();
    for kind in kinds {
        let mut candidates: Vec<&String> = added
            .iter()
            .filter(|(k, _)| *k == kind)
            .map(|(_, l)| l)
            .collect();
        let removed_of_kind = removed.iter().filter(|(k, _)| *k == kind).count();
        let Some(net) = candidates.len().checked_sub(removed_of_kind) else {
            continue;
        };
        if net == 0 {
            continue;
        }
        // Prefer reporting lines that are genuinely new over ones that merely moved.
        candidates.retain(|line| {
            if let Some(pos) = removed.iter().position(|(k, l)| *k == kind && l == *line) {
                removed.swap_remove(pos);
                false
            } else {
                true
            }
        });
        out.extend(candidates.into_iter().take(net).map(|line| SkipAdded {
            path: path.to_owned(),
            line: bounded_line(line),
        }));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classifies_each_language() {
        let cases: &[(&str, &str, Option<SkipKind>)] = &[
            ("src/lib.rs", "    #[ignore]", Some(SkipKind::RustIgnore)),
            (
                "src/lib.rs",
                "#[ignore = \"flaky\"]",
                Some(SkipKind::RustIgnore),
            ),
            (
                "src/lib.rs",
                "#[cfg_attr(windows, ignore)]",
                Some(SkipKind::RustIgnore),
            ),
            ("src/lib.rs", "#[ignored_thing]", None),
            ("src/lib.rs", "// #[ignore]", None),
            ("src/lib.rs", "let ignore = true;", None),
            ("README.md", "#[ignore]", None),
            (
                "t/test_a.py",
                "@pytest.mark.skip",
                Some(SkipKind::PytestMarkSkip),
            ),
            (
                "t/test_a.py",
                "@pytest.mark.skip(reason='x')",
                Some(SkipKind::PytestMarkSkip),
            ),
            (
                "t/test_a.py",
                "@pytest.mark.skipif(sys.platform == 'win32', reason='x')",
                None,
            ),
            (
                "t/test_a.py",
                "    pytest.skip(\"later\")",
                Some(SkipKind::PytestSkipCall),
            ),
            (
                "t/test_a.py",
                "@unittest.skip(\"broken\")",
                Some(SkipKind::UnittestSkip),
            ),
            ("t/test_a.py", "@unittest.skipIf(True, 'x')", None),
            ("t/test_a.py", "# pytest.skip('x')", None),
            (
                "a.test.ts",
                "it.skip('works', () => {",
                Some(SkipKind::JsSkip),
            ),
            (
                "a.test.ts",
                "  test.skip(\"x\", fn)",
                Some(SkipKind::JsSkip),
            ),
            (
                "a.spec.js",
                "describe.skip('suite', () => {",
                Some(SkipKind::JsSkip),
            ),
            ("a.spec.js", "xit('works', () => {", Some(SkipKind::JsX)),
            (
                "a.spec.js",
                "xdescribe('suite', () => {",
                Some(SkipKind::JsX),
            ),
            ("a.spec.js", "xtest('x', fn)", Some(SkipKind::JsX)),
            ("a.spec.js", "fixit('x')", None),
            ("a.spec.js", "it('works', () => {", None),
            ("a.spec.js", "// it.skip('x')", None),
            ("a_test.go", "\tt.Skip(\"slow\")", Some(SkipKind::GoSkip)),
            ("a_test.go", "t.Skipf(\"%s\", x)", Some(SkipKind::GoSkip)),
            ("a_test.go", "t.SkipNow()", Some(SkipKind::GoSkip)),
            ("a_test.go", "if testing.Short() { return }", None),
            ("A.java", "@Disabled", Some(SkipKind::JvmDisabled)),
            (
                "A.java",
                "@Disabled(\"until fixed\")",
                Some(SkipKind::JvmDisabled),
            ),
            ("A.kt", "@Ignore", Some(SkipKind::JvmIgnore)),
            ("A.java", "@IgnoreForBinary", None),
            ("A.java", "@DisabledOnOs(OS.WINDOWS)", None),
            ("T.cs", "[Ignore]", Some(SkipKind::DotNetIgnore)),
            (
                "T.cs",
                "[Test, Ignore(\"later\")]",
                Some(SkipKind::DotNetIgnore),
            ),
            (
                "T.cs",
                "[Fact(Skip = \"flaky\")]",
                Some(SkipKind::DotNetSkip),
            ),
            ("T.cs", "[Theory( Skip=\"x\" )]", Some(SkipKind::DotNetSkip)),
            ("T.cs", "[Fact]", None),
        ];
        for (path, line, want) in cases {
            assert_eq!(skip_kind(path, line), *want, "{path}: {line}");
        }
    }

    fn run(path: &str, added: &[&str], removed: &[&str]) -> Vec<String> {
        skips_added(
            path,
            added.iter().map(|l| l.as_bytes()),
            removed.iter().map(|l| l.as_bytes()),
        )
        .into_iter()
        .map(|s| s.line)
        .collect()
    }

    #[test]
    fn counts_net_per_file_and_kind() {
        // (path, added lines, removed lines, reported lines)
        type Case<'a> = (&'a str, &'a [&'a str], &'a [&'a str], &'a [&'a str]);
        let cases: &[Case<'_>] = &[
            // A new skip is reported, trimmed.
            (
                "src/lib.rs",
                &["    #[ignore]", "fn t() {}"],
                &[],
                &["#[ignore]"],
            ),
            // A skip that moves is not added.
            ("src/lib.rs", &["#[ignore]"], &["  #[ignore]"], &[]),
            // A reworded skip of the same kind is not added.
            (
                "t/test_x.py",
                &["@pytest.mark.skip(reason='b')"],
                &["@pytest.mark.skip(reason='a')"],
                &[],
            ),
            // Two added, one removed: one net, the one that did not merely move.
            (
                "a.spec.js",
                &["it.skip('one')", "it.skip('two')"],
                &["it.skip('one')"],
                &["it.skip('two')"],
            ),
            // Removing a skip of another kind does not cancel.
            ("a.spec.js", &["xit('a')"], &["it.skip('a')"], &["xit('a')"]),
            // Removed skips only: nothing added.
            ("a_test.go", &[], &["t.Skip()"], &[]),
            // Unknown languages carry no skips.
            ("notes.txt", &["#[ignore]"], &[], &[]),
        ];
        for (path, added, removed, want) in cases {
            assert_eq!(
                run(path, added, removed),
                *want,
                "{path}: +{added:?} -{removed:?}"
            );
        }
    }

    #[test]
    fn bounds_long_lines_at_char_boundaries() {
        let long = format!("#[ignore = \"{}\"]", "é".repeat(300));
        let got = run("src/lib.rs", &[&long], &[]);
        assert_eq!(got.len(), 1);
        assert!(got[0].len() <= MAX_SKIP_LINE);
        assert!(got[0].starts_with("#[ignore = \"é"));
    }
}
