//! Tests in `do … end` blocks, told by their indentation:
//!
//! - RSpec: `it "…"`, `specify`, `example`, `scenario` (and `xit`, …), `skip:` or `pending:`
//!   metadata, `skip`/`pending` in the body, `xdescribe`/`xcontext` and skipped groups;
//! - minitest and Rails: `def test_x`, `test "…" do`, `skip` in the body;
//! - ExUnit: `test "…" do`, `@tag :skip` (and `skip: "why"`), `@moduletag`, `@describetag`.

use super::{Lang, Off, Parsed, TakenHow, TestCase, ident, indent_of, literal, strip_strings};

const RSPEC_TESTS: &[&str] = &["it", "specify", "example", "scenario", "its"];
const RSPEC_GROUPS: &[&str] = &["describe", "context", "feature", "shared_examples"];

pub(super) fn parse(lang: Lang, text: &str) -> Parsed {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Parsed::default();
    let mut groups: Vec<(usize, Option<Off>)> = Vec::new();
    let mut tags: Vec<String> = Vec::new();
    let mut module_off: Option<Off> = None;
    let mut i = 0;
    while i < lines.len() {
        let raw = lines[i];
        let t = raw.trim();
        if t.is_empty() || t.starts_with('#') {
            i += 1;
            continue;
        }
        let indent = indent_of(raw);
        groups.retain(|g| g.0 < indent);
        if lang == Lang::Elixir && t.starts_with('@') {
            let skip = t.contains(":skip") || t.contains("skip:");
            if t.starts_with("@moduletag") && skip {
                module_off = Some(Off::new(TakenHow::Skipped, t));
            } else if t.starts_with("@describetag") && skip {
                if let Some(g) = groups.last_mut() {
                    g.1 = Some(Off::new(TakenHow::Skipped, t));
                }
            } else if t.starts_with("@tag") {
                tags.push(t.to_owned());
            }
            i += 1;
            continue;
        }
        let word = ident(t);
        let (x, plain) = match word.strip_prefix('x') {
            Some(p) if RSPEC_TESTS.contains(&p) || RSPEC_GROUPS.contains(&p) => (true, p),
            _ => (false, word),
        };
        let after = &t[word.len()..];
        let is_group = RSPEC_GROUPS.contains(&plain);
        let is_test = (lang == Lang::Ruby && RSPEC_TESTS.contains(&plain))
            || plain == "test"
            || (lang == Lang::Ruby && plain == "def" && after.trim_start().starts_with("test_"));
        let mut end = i + 1;
        while end < lines.len() && (lines[end].trim().is_empty() || indent_of(lines[end]) > indent)
        {
            end += 1;
        }
        if is_group {
            groups.push((
                indent,
                (x || skip_metadata(after)).then(|| Off::new(TakenHow::Skipped, t)),
            ));
            tags.clear();
            i += 1;
            continue;
        }
        if !is_test || !(after.starts_with([' ', '(', '{']) || after.is_empty()) {
            if word == "def" || (lang == Lang::Elixir && word == "defp") {
                out.defs.push(ident(after.trim_start()).to_owned());
            }
            tags.clear();
            i += 1;
            continue;
        }
        let name = if plain == "def" {
            ident(after.trim_start()).to_owned()
        } else {
            title(after)
        };
        let metadata = if x || skip_metadata(after) {
            Some(Off::new(TakenHow::Skipped, t))
        } else if after.contains("pending:") || after.contains(":pending") {
            Some(Off::new(TakenHow::ExpectedFailure, t))
        } else {
            None
        };
        let off = metadata
            .or_else(|| {
                tags.iter()
                    .find(|g| g.contains(":skip") || g.contains("skip:"))
                    .map(|g| Off::new(TakenHow::Skipped, g))
            })
            .or_else(|| body_off(&lines[i + 1..end]))
            .or_else(|| groups.iter().rev().find_map(|g| g.1.clone()))
            .or_else(|| module_off.clone());
        out.tests.push(TestCase {
            name,
            off,
            focused: false,
        });
        tags.clear();
        i = end;
    }
    out
}

/// RSpec's `skip: true`, `skip: "why"`, `:skip` metadata.
fn skip_metadata(after: &str) -> bool {
    after.contains("skip:") && !after.contains("skip: false") || after.contains(", :skip")
}

/// The title of `it "…"`, `test("…")`, or the text before ` do`.
fn title(after: &str) -> String {
    let after = after.trim().trim_start_matches('(');
    let first = after.split(',').next().unwrap_or(after);
    let first = first.trim_end_matches(" do").trim_end_matches(')').trim();
    literal(first).map_or_else(|| super::bounded(first), str::to_owned)
}

/// A `skip`, `pending` or `return` in the body: at its top level always; deeper, on the
/// condition of the `if`/`unless` it is in.
fn body_off(body: &[&str]) -> Option<Off> {
    let statements: Vec<&str> = body
        .iter()
        .copied()
        .filter(|l| {
            let t = l.trim();
            !t.is_empty() && !t.starts_with('#') && t != "end"
        })
        .collect();
    let base = indent_of(statements.first()?);
    let head = statements[0].trim();
    if head == "return" {
        return Some(Off::new(TakenHow::EarlyReturn, head));
    }
    for (k, l) in statements.iter().enumerate() {
        let t = l.trim();
        let word = ident(t);
        let t = &strip_strings(t);
        let how = match word {
            "skip" => TakenHow::Skipped,
            "pending" => TakenHow::ExpectedFailure,
            _ => continue,
        };
        // `skip if windows?`: a condition on the same line.
        for kw in [" if ", " unless "] {
            if let Some(at) = t.find(kw) {
                return Some(Off::when(how, t, t[at..].trim()));
            }
        }
        let indent = indent_of(l);
        if indent <= base {
            return Some(Off::new(how, t));
        }
        let opener = statements[..k]
            .iter()
            .rev()
            .find(|o| indent_of(o) < indent)
            .map_or("a condition", |o| o.trim());
        return Some(Off::when(how, t, opener));
    }
    None
}
