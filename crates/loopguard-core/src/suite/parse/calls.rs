//! Tests as calls with a title: jest, vitest, mocha, jasmine, node:test (`it('…')`,
//! `test('…')`, in `describe` blocks) and `dart test` (`test('…')`, `testWidgets`, `group`).
//!
//! What takes a test out: `.skip`, `x…`, `.todo`, `.fails` / `.failing`, `.skipIf(c)` and
//! `.runIf(c)` (on that condition), a `{ skip: … }` or `skip: true` option, a suite's own
//! `.skip`, `.only` on another test of the file; in the body, `ctx.skip()`, `this.skip()`,
//! `t.skip()`, `pending()`, and a `return` before anything else.

use super::super::lex::Depth;
use super::{
    Lang, Off, Parsed, TakenHow, TestCase, always, args_at, enclosing_opener, has_token, ident,
    literal, never, strip_strings,
};

const TESTS: &[&str] = &["it", "test", "specify", "testWidgets"];
const SUITES: &[&str] = &["describe", "context", "suite", "group"];

/// A call that declares a test or a suite.
struct Call<'a> {
    suite: bool,
    name: String,
    off: Option<Off>,
    focus: bool,
    line: &'a str,
}

pub(super) fn parse(lang: Lang, text: &str) -> Parsed {
    let lines: Vec<&str> = text.lines().collect();
    let mut depth = Depth::new(lang);
    let depths: Vec<(i32, i32)> = lines.iter().map(|l| depth.line(l)).collect();
    let mut out = Parsed::default();
    // Open suites: the depth they opened at, what their modifiers do, whether focused.
    let mut suites: Vec<(i32, Option<Off>, bool)> = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let (start, _) = depths[i];
        suites.retain(|s| s.0 < start);
        let t = lines[i].trim();
        let Some(call) = call(lang, t) else {
            if let Some(name) = definition(t) {
                out.defs.push(name.to_owned());
            }
            i += 1;
            continue;
        };
        if call.focus && out.focus.is_none() {
            out.focus = Some(match condition_of(&lines, &depths, i) {
                Some(c) => Off::when(TakenHow::Focused, call.line, c),
                None => Off::new(TakenHow::Focused, call.line),
            });
        }
        if call.suite {
            suites.push((start, call.off, call.focus));
            i += 1;
            continue;
        }
        let mut end = i + 1;
        while end < lines.len() && depths[end].0 > start {
            end += 1;
        }
        // Dart's `skip:` comes after the body: `}, skip: 'flaky');`.
        let closing = lines[end - 1].trim();
        let trailing = (end > i + 1 && closing.starts_with('}'))
            .then(|| options_off(&[closing], closing))
            .flatten();
        let off = call
            .off
            .or(trailing)
            .or_else(|| body_off(&lines, &depths, i + 1..end))
            .or_else(|| suites.iter().rev().find_map(|s| s.1.clone()));
        out.tests.push(TestCase {
            name: call.name,
            off,
            focused: call.focus || suites.iter().any(|s| s.2),
        });
        i = end.max(i + 1);
    }
    out
}

/// The condition line `i` runs under: an `if` on the line before it (without braces), or
/// the `if` of the block it is in.
fn condition_of<'a>(lines: &[&'a str], depths: &[(i32, i32)], i: usize) -> Option<&'a str> {
    let code = |k: usize| {
        let t = lines[k].trim();
        (!t.is_empty() && !t.starts_with("//")).then_some(t)
    };
    let start = depths[i].0;
    let previous = (0..i).rev().find_map(code)?;
    if previous.starts_with("if ") || previous.starts_with("if(") {
        return Some(previous);
    }
    (0..i)
        .rev()
        .filter(|&k| depths[k].0 < start && depths[k].1 > depths[k].0)
        .find_map(code)
        .filter(|t| t.starts_with("if ") || t.starts_with("if(") || t.starts_with("} else"))
}

/// `it.skip('title', …)`, `xit(…)`, `test.skipIf(cond)('title', …)`, `describe.only(…)`,
/// `test('title', { skip: true }, …)`, `test('title', () {…}, skip: 'why')`.
fn call<'a>(lang: Lang, t: &'a str) -> Option<Call<'a>> {
    let s = t
        .trim_start_matches("await ")
        .trim_start_matches("void ")
        .trim_start_matches("return ");
    let base = ident(s);
    let (x, f, plain) = match base.strip_prefix('x') {
        Some(p) if TESTS.contains(&p) || SUITES.contains(&p) => (true, false, p),
        _ => match base.strip_prefix('f') {
            Some(p) if (TESTS.contains(&p) || SUITES.contains(&p)) && lang == Lang::Js => {
                (false, true, p)
            }
            _ => (false, false, base),
        },
    };
    let suite = SUITES.contains(&plain);
    if !suite && !TESTS.contains(&plain) {
        return None;
    }
    let mut rest = &s[base.len()..];
    let mut off = x.then(|| Off::new(TakenHow::Skipped, t));
    let mut focus = f;
    // Modifiers: `.skip`, `.only`, `.skipIf(cond)`, `.each(table)`, `.concurrent`, …
    while let Some(after) = rest.strip_prefix('.') {
        let m = ident(after);
        if m.is_empty() {
            return None;
        }
        rest = &after[m.len()..];
        let takes_args = matches!(
            m,
            "skipIf" | "runIf" | "each" | "for" | "extend" | "withArgs"
        );
        let mut arg = None;
        if takes_args {
            if rest.starts_with('(') {
                let args = args_at(rest, 0);
                arg = args.first().map(|a| (*a).to_owned());
                let close = matching(rest, 0)?;
                rest = &rest[close..];
            } else if rest.starts_with('`') {
                // `.each` with a tagged template table.
                let close = rest[1..].find('`').map_or(rest.len(), |p| p + 2);
                rest = &rest[close..];
            }
        }
        match m {
            "skip" => off = off.or_else(|| Some(Off::new(TakenHow::Skipped, t))),
            "todo" => off = off.or_else(|| Some(Off::new(TakenHow::Todo, t))),
            "fails" | "failing" => {
                off = off.or_else(|| Some(Off::new(TakenHow::ExpectedFailure, t)));
            }
            "only" => focus = true,
            "skipIf" | "runIf" => {
                let cond = arg.unwrap_or_default();
                let (uncond, void) = if m == "skipIf" {
                    (always(&cond), never(&cond))
                } else {
                    (never(&cond), always(&cond))
                };
                if !void {
                    let cond = if m == "runIf" {
                        format!("unless {cond}")
                    } else {
                        cond
                    };
                    off = off.or_else(|| {
                        Some(if uncond {
                            Off::new(TakenHow::Skipped, t)
                        } else {
                            Off::when(TakenHow::Skipped, t, &cond)
                        })
                    });
                }
            }
            _ => {}
        }
    }
    if !rest.starts_with('(') {
        return None;
    }
    let args = args_at(rest, 0);
    let title = args.first()?;
    let name = literal(title).map_or_else(|| super::bounded(title), str::to_owned);
    off = off.or_else(|| options_off(&args[1..], t));
    Some(Call {
        suite,
        name,
        off,
        focus,
        line: t,
    })
}

/// Options that take a test out: node:test's `{ skip: true }`, `{ todo: … }`; dart's
/// `skip: true` argument.
fn options_off(args: &[&str], line: &str) -> Option<Off> {
    for arg in args {
        for (key, how) in [("skip:", TakenHow::Skipped), ("todo:", TakenHow::Todo)] {
            let Some(at) = arg.find(key) else { continue };
            let value = arg[at + key.len()..]
                .trim()
                .trim_end_matches(['}', ',', ' ', ')', ';'])
                .trim();
            if never(value) || value.is_empty() {
                continue;
            }
            let uncond = always(value) || literal(value).is_some();
            return Some(if uncond {
                Off::new(how, line)
            } else {
                Off::when(how, line, value)
            });
        }
    }
    None
}

/// The index just after the bracket matching the one at `open`.
fn matching(s: &str, open: usize) -> Option<usize> {
    let mut depth = 0;
    let mut quote = None;
    for (i, c) in s.char_indices().skip(open) {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None => match c {
                '"' | '\'' | '`' => quote = Some(c),
                '(' | '[' | '{' => depth += 1,
                ')' | ']' | '}' => {
                    depth -= 1;
                    if depth == 0 {
                        return Some(i + 1);
                    }
                }
                _ => {}
            },
        }
    }
    None
}

/// A function or class this line defines: `function f(`, `const f = (…) =>`, `class C`.
fn definition(t: &str) -> Option<&str> {
    let t = t
        .trim_start_matches("export ")
        .trim_start_matches("default ");
    let t = t.trim_start_matches("async ");
    for kw in ["function ", "function* ", "class "] {
        if let Some(rest) = t.strip_prefix(kw) {
            let name = ident(rest.trim_start());
            return (!name.is_empty()).then_some(name);
        }
    }
    for kw in ["const ", "let ", "var "] {
        if let Some(rest) = t.strip_prefix(kw) {
            let name = ident(rest);
            let after = rest[name.len()..].trim_start();
            let value = after.strip_prefix('=')?.trim_start();
            let value = value.trim_start_matches("async ");
            return (!name.is_empty() && (value.starts_with('(') || value.starts_with("function")))
                .then_some(name);
        }
    }
    None
}

/// What the body does first, or where it skips.
fn body_off(lines: &[&str], depths: &[(i32, i32)], body: std::ops::Range<usize>) -> Option<Off> {
    let statements: Vec<usize> = body
        .filter(|&k| {
            let t = lines[k].trim();
            !t.is_empty() && !t.starts_with("//") && !t.starts_with("/*") && !t.starts_with('*')
        })
        .collect();
    let base = depths[*statements.first()?].0;
    let head = lines[statements[0]].trim();
    if head == "return" || head == "return;" {
        return Some(Off::new(TakenHow::EarlyReturn, head));
    }
    for &k in &statements {
        let t = lines[k].trim();
        let code = strip_strings(t);
        let how = if [
            "ctx.skip(",
            "context.skip(",
            "this.skip(",
            "t.skip(",
            "task.skip(",
        ]
        .iter()
        .any(|n| has_token(&code, n))
        {
            TakenHow::Skipped
        } else if code.starts_with("pending(") {
            TakenHow::ExpectedFailure
        } else if has_token(&code, "t.todo(") {
            TakenHow::Todo
        } else {
            continue;
        };
        let d = depths[k].0;
        if d <= base {
            return Some(Off::new(how, t));
        }
        let opener = enclosing_opener(lines, depths, &statements, k).unwrap_or("a condition");
        return Some(Off::when(how, t, opener));
    }
    None
}
