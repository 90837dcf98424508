//! The tests a file declares, and in what state: one scanner per family of languages, line
//! by line, no full parser (a test file is read twice per change, on every commit).
//!
//! - [`python`]: indented blocks (pytest, unittest);
//! - [`braces`]: functions marked by an attribute or a name, in bracketed bodies (`go test`,
//!   cargo, JUnit and TestNG, xUnit/NUnit/MSTest, PHPUnit, GoogleTest and Catch2, XCTest);
//! - [`calls`]: tests as calls with a title (jest, vitest, mocha, node:test, `dart test`);
//! - [`ends`]: `do … end` blocks (RSpec, minitest, ExUnit).
//!
//! Each gives the tests with their names and whether something takes them out of the run
//! (an [`Off`]), and the names of the other definitions (functions, classes), which tell a
//! test renamed out of discovery, or deleted with the code it tests.

mod braces;
mod calls;
mod ends;
mod python;

use super::{Lang, TakenHow, bounded};

/// A test as a file declares it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TestCase {
    /// The function's name, or the title of an `it(…)`.
    pub name: String,
    /// What takes it out of the run, if anything.
    pub off: Option<Off>,
    /// It is focused (`it.only`, or in an `fdescribe`): the others of its file don't run.
    pub focused: bool,
}

/// What takes a test out of the run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Off {
    pub how: TakenHow,
    /// The line that does it, trimmed and bounded.
    pub line: String,
    /// The condition it applies under (`sys.platform == "win32"`, `windows`), when it has
    /// one.
    pub condition: Option<String>,
}

impl Off {
    pub(crate) fn new(how: TakenHow, line: &str) -> Off {
        Off {
            how,
            line: bounded(line),
            condition: None,
        }
    }

    pub(crate) fn when(how: TakenHow, line: &str, condition: &str) -> Off {
        Off {
            how,
            line: bounded(line),
            condition: Some(bounded(condition)),
        }
    }
}

/// What one file declares.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Parsed {
    pub tests: Vec<TestCase>,
    /// The names of the other functions, methods and classes.
    pub defs: Vec<String>,
    /// A focused test or suite (`it.only`, `fdescribe`): the line, and the condition it is
    /// focused under (`if (process.env.CI) test.only(…)`).
    pub focus: Option<Off>,
}

/// The tests `text` declares, read as `lang`.
pub fn parse(lang: Lang, text: &str) -> Parsed {
    match lang {
        Lang::Python => python::parse(text),
        Lang::Js | Lang::Dart => calls::parse(lang, text),
        Lang::Ruby | Lang::Elixir => ends::parse(lang, text),
        Lang::Go | Lang::Rust | Lang::Jvm | Lang::DotNet | Lang::Php | Lang::Cpp | Lang::Swift => {
            braces::parse(lang, text)
        }
    }
}

/// Whether `text`, read as `lang`, can declare a test at all: `false` only when it holds
/// none of the words every declaration of a test in the language holds. For Rust, where
/// any source file may hold unit tests, every test is an attribute or a macro whose name
/// holds `test` (`#[test]`, `#[tokio::test]`, `rstest`, `test_case`, `proptest!`, …) or
/// `#[quickcheck]`. Other languages' test files are always read.
pub fn may_declare_tests(lang: Lang, text: &str) -> bool {
    match lang {
        Lang::Rust => {
            let bytes = text.as_bytes();
            memchr::memmem::find(bytes, b"test").is_some()
                || memchr::memmem::find(bytes, b"quickcheck").is_some()
        }
        Lang::Python
        | Lang::Js
        | Lang::Dart
        | Lang::Ruby
        | Lang::Elixir
        | Lang::Go
        | Lang::Jvm
        | Lang::DotNet
        | Lang::Php
        | Lang::Cpp
        | Lang::Swift => true,
    }
}

/// Leading whitespace, a tab counted as 4.
fn indent_of(line: &str) -> usize {
    line.chars()
        .take_while(|c| c.is_whitespace())
        .map(|c| if c == '\t' { 4 } else { 1 })
        .sum()
}

/// The innermost statement before `k` that opens a block holding it (`depths`: each
/// line's depth at its start and end), without its `{`: what a skip at `k` depends on.
fn enclosing_opener<'a>(
    lines: &[&'a str],
    depths: &[(i32, i32)],
    statements: &[usize],
    k: usize,
) -> Option<&'a str> {
    let d = depths[k].0;
    statements
        .iter()
        .rev()
        .filter(|&&o| o < k && depths[o].0 < d && depths[o].1 > depths[o].0)
        .map(|&o| lines[o].trim().trim_end_matches('{').trim())
        .next()
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The identifier at the start of `s`.
fn ident(s: &str) -> &str {
    let end = s.find(|c: char| !is_ident(c)).unwrap_or(s.len());
    &s[..end]
}

/// Whether `needle` is in `hay` starting a token (not preceded by an identifier character
/// or a `.`, unless the needle itself starts with one of them).
fn has_token(hay: &str, needle: &str) -> bool {
    let head_ident = needle.starts_with(is_ident);
    hay.match_indices(needle).any(|(i, _)| {
        !head_ident
            || hay[..i]
                .chars()
                .next_back()
                .is_none_or(|c| !is_ident(c) && c != '.')
    })
}

/// The arguments between the bracket at `open` (an index of `(`) and its match: the text
/// inside, split at top-level commas, each trimmed. Quotes are respected; an unclosed list
/// ends with the text.
fn args_at(s: &str, open: usize) -> Vec<&str> {
    let b = s.as_bytes();
    let mut depth = 0;
    let mut quote: Option<u8> = None;
    let mut out = Vec::new();
    let mut from = open + 1;
    let mut i = open;
    while i < b.len() {
        let c = b[i];
        if let Some(q) = quote {
            if c == b'\\' {
                i += 1;
            } else if c == q {
                quote = None;
            }
        } else {
            match c {
                b'"' | b'\'' | b'`' => quote = Some(c),
                b'(' | b'[' | b'{' => depth += 1,
                b')' | b']' | b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        out.push(s[from..i].trim());
                        return out.into_iter().filter(|a| !a.is_empty()).collect();
                    }
                }
                b',' if depth == 1 => {
                    out.push(s[from..i].trim());
                    from = i + 1;
                }
                _ => {}
            }
        }
        i += 1;
    }
    out.push(s[from.min(s.len())..].trim());
    out.into_iter().filter(|a| !a.is_empty()).collect()
}

/// `line` with the contents of its string literals blanked (`"pytest.skip("` in an
/// assertion is no skip).
fn strip_strings(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut quote: Option<char> = None;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match quote {
            Some(_) if c == '\\' => {
                out.push(' ');
                if chars.next().is_some() {
                    out.push(' ');
                }
            }
            Some(q) if c == q => {
                quote = None;
                out.push(c);
            }
            Some(_) => out.push(' '),
            None => {
                if matches!(c, '"' | '\'' | '`') {
                    quote = Some(c);
                }
                out.push(c);
            }
        }
    }
    out
}

/// A keyword argument (`name=value` or `name: value`), as opposed to a positional one.
fn is_keyword_arg(arg: &str) -> bool {
    let name = ident(arg);
    if name.is_empty() {
        return false;
    }
    let rest = arg[name.len()..].trim_start();
    (rest.starts_with('=') && !rest.starts_with("==")) || rest.starts_with(':')
}

/// The text of a string literal (`'x'`, `"x"`, `` `x` ``), if `arg` is one.
fn literal(arg: &str) -> Option<&str> {
    let arg = arg.trim();
    let q = arg.chars().next()?;
    if !matches!(q, '"' | '\'' | '`') || arg.len() < 2 || !arg.ends_with(q) {
        return None;
    }
    Some(&arg[1..arg.len() - 1])
}

/// A condition that always holds.
fn always(cond: &str) -> bool {
    matches!(cond.trim(), "True" | "true" | "1" | "!false" | "not False")
}

/// A condition that never holds.
fn never(cond: &str) -> bool {
    matches!(cond.trim(), "False" | "false" | "0" | "!true" | "not True")
}

#[cfg(test)]
mod tests;
