//! pytest and unittest: `test*` functions, at the top level or in a `Test*` class (or a
//! `TestCase`), their decorators (`@pytest.mark.skip`, `skipif`, `xfail`,
//! `@unittest.skip…`, `expectedFailure`), a class's and a module's `pytestmark`, and what
//! their bodies do first (`pytest.skip()`, `self.skipTest()`, `return`).

use super::{
    Off, Parsed, TakenHow, TestCase, always, args_at, ident, indent_of, is_keyword_arg, never,
    strip_strings,
};

struct Class {
    indent: usize,
    tests: bool,
    off: Option<Off>,
}

pub(super) fn parse(text: &str) -> Parsed {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Parsed::default();
    let mut decorators: Vec<String> = Vec::new();
    let mut open_parens = 0i32;
    let mut classes: Vec<Class> = Vec::new();
    let mut module_off: Option<Off> = None;
    let mut i = 0;
    while i < lines.len() {
        let raw = lines[i];
        let t = raw.trim();
        if open_parens > 0 {
            // A decorator over several lines.
            if let Some(d) = decorators.last_mut() {
                d.push(' ');
                d.push_str(t);
            }
            open_parens += paren_delta(t);
            i += 1;
            continue;
        }
        if t.is_empty() || t.starts_with('#') {
            i += 1;
            continue;
        }
        let indent = indent_of(raw);
        classes.retain(|c| c.indent < indent);
        if t.starts_with('@') {
            decorators.push(t.to_owned());
            open_parens = paren_delta(t).max(0);
            i += 1;
            continue;
        }
        if let Some(rest) = t.strip_prefix("class ") {
            let name = ident(rest).to_owned();
            let bases = rest[name.len()..].to_owned();
            classes.push(Class {
                indent,
                tests: name.starts_with("Test") || bases.contains("TestCase"),
                off: decorators_off(&decorators),
            });
            out.defs.push(name);
            decorators.clear();
            i += 1;
            continue;
        }
        if let Some(name) = def_name(t) {
            let name = name.to_owned();
            // The signature may go on over several lines.
            let mut end = i;
            let mut depth = paren_delta(t);
            while depth > 0 && end + 1 < lines.len() {
                end += 1;
                depth += paren_delta(lines[end]);
            }
            let mut body_end = end + 1;
            while body_end < lines.len()
                && (lines[body_end].trim().is_empty() || indent_of(lines[body_end]) > indent)
            {
                body_end += 1;
            }
            let class = classes.last();
            let is_test = name.starts_with("test") && class.is_none_or(|c| c.tests);
            if is_test {
                let off = decorators_off(&decorators)
                    .or_else(|| body_off(&lines[end + 1..body_end]))
                    .or_else(|| classes.iter().rev().find_map(|c| c.off.clone()))
                    .or_else(|| module_off.clone());
                out.tests.push(TestCase {
                    name,
                    off,
                    focused: false,
                });
            } else {
                out.defs.push(name);
            }
            decorators.clear();
            // A function's body holds no tests pytest collects.
            i = body_end;
            continue;
        }
        if let Some(rest) = t.strip_prefix("pytestmark") {
            let off = pytestmark(&lines, &mut i, rest);
            match classes.last_mut() {
                Some(c) => c.off = c.off.take().or(off),
                None => module_off = module_off.or(off),
            }
        }
        decorators.clear();
        i += 1;
    }
    out
}

/// What a `pytestmark = …` assignment at line `*i` (`rest` after its name) takes out of
/// the run; `*i` moves to its last line.
fn pytestmark(lines: &[&str], i: &mut usize, rest: &str) -> Option<Off> {
    let mut marker = rest.to_owned();
    let mut depth = paren_delta(lines[*i].trim());
    while depth > 0 && *i + 1 < lines.len() {
        *i += 1;
        marker.push(' ');
        marker.push_str(lines[*i].trim());
        depth += paren_delta(lines[*i]);
    }
    marker_off(&marker)
}

/// `def name(` or `async def name(`: the name.
fn def_name(t: &str) -> Option<&str> {
    let rest = t.strip_prefix("async ").unwrap_or(t).strip_prefix("def ")?;
    let name = ident(rest.trim_start());
    (!name.is_empty()).then_some(name)
}

/// Opening minus closing brackets, outside strings.
fn paren_delta(line: &str) -> i32 {
    let mut depth = 0;
    let mut quote = None;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match quote {
            Some(q) if c == '\\' => {
                let _ = (q, chars.next());
            }
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None => match c {
                '#' => break,
                '"' | '\'' => quote = Some(c),
                '(' | '[' | '{' => depth += 1,
                ')' | ']' | '}' => depth -= 1,
                _ => {}
            },
        }
    }
    depth
}

fn decorators_off(decorators: &[String]) -> Option<Off> {
    decorators.iter().find_map(|d| marker_off(d))
}

/// What a marker or decorator does to a test (`@pytest.mark.skipif(...)`, a
/// `pytestmark = [...]` list).
fn marker_off(text: &str) -> Option<Off> {
    let line = text.trim();
    for (name, unless) in [
        ("skipif(", false),
        ("skipIf(", false),
        ("skipUnless(", true),
    ] {
        if let Some(at) = line.find(name) {
            let args = args_at(line, at + name.len() - 1);
            let cond = args.first().copied().unwrap_or("");
            let (uncond, void) = if unless {
                (never(cond), always(cond))
            } else {
                (always(cond), never(cond))
            };
            return if void {
                None
            } else if uncond || cond.is_empty() {
                Some(Off::new(TakenHow::Skipped, line))
            } else {
                let cond = if unless {
                    format!("unless {cond}")
                } else {
                    cond.to_owned()
                };
                Some(Off::when(TakenHow::Skipped, line, &cond))
            };
        }
    }
    let skip = ["mark.skip", "unittest.skip", "@skip"].iter().any(|n| {
        line.match_indices(n).any(|(i, _)| {
            !line[i + n.len()..]
                .chars()
                .next()
                .is_some_and(|c| c.is_alphanumeric() || c == '_')
        })
    });
    if skip {
        return Some(Off::new(TakenHow::Skipped, line));
    }
    if let Some(at) = line.find("mark.xfail") {
        let rest = &line[at + "mark.xfail".len()..];
        let cond = rest.starts_with('(').then(|| {
            let args = args_at(rest, 0);
            args.iter()
                .find_map(|a| a.strip_prefix("condition=").map(str::trim))
                .or_else(|| args.first().copied().filter(|a| !is_keyword_arg(a)))
                .map(str::to_owned)
        });
        return match cond.flatten() {
            Some(c) if never(&c) => None,
            Some(c) if !always(&c) => Some(Off::when(TakenHow::ExpectedFailure, line, &c)),
            _ => Some(Off::new(TakenHow::ExpectedFailure, line)),
        };
    }
    line.contains("expectedFailure")
        .then(|| Off::new(TakenHow::ExpectedFailure, line))
}

/// What a test's body does first: returns at once, or skips (at its top level: always;
/// inside an `if` or an `except`: on that condition).
fn body_off(body: &[&str]) -> Option<Off> {
    let statements: Vec<&str> = body
        .iter()
        .copied()
        .filter(|l| {
            let t = l.trim();
            !t.is_empty() && !t.starts_with('#')
        })
        .collect();
    let base = indent_of(statements.first()?);
    let mut first = 0;
    // A docstring is no statement.
    if let Some(quote) = ["\"\"\"", "'''", "r\"\"\"", "\"", "'"]
        .iter()
        .find(|q| statements[0].trim().starts_with(**q))
    {
        let close = quote.trim_start_matches('r');
        let opened = statements[0].trim().trim_start_matches('r');
        if opened.len() > close.len() && opened[close.len()..].contains(close) {
            first = 1;
        } else {
            first = statements
                .iter()
                .skip(1)
                .position(|l| l.contains(close))
                .map_or(statements.len(), |p| p + 2);
        }
    }
    let head = statements.get(first)?.trim();
    if head == "return" || head == "return None" {
        return Some(Off::new(TakenHow::EarlyReturn, head));
    }
    for (k, l) in statements.iter().enumerate() {
        let t = l.trim();
        let code = strip_strings(t);
        let how = if ["pytest.skip(", "self.skipTest(", "SkipTest("]
            .iter()
            .any(|n| code.contains(n))
        {
            TakenHow::Skipped
        } else if code.contains("pytest.xfail(") {
            TakenHow::ExpectedFailure
        } else if code.contains("pytest.importorskip(") {
            return Some(Off::when(TakenHow::Skipped, t, "a module is missing"));
        } else {
            continue;
        };
        let indent = indent_of(l);
        if indent <= base {
            return Some(Off::new(how, t));
        }
        let opener = statements[..k]
            .iter()
            .rev()
            .find(|o| indent_of(o) < indent && o.trim_end().ends_with(':'))
            .map_or("a condition", |o| o.trim().trim_end_matches(':'));
        return Some(Off::when(how, t, opener));
    }
    None
}
