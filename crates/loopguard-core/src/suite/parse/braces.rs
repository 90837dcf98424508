//! Tests as functions in bracketed bodies, marked by an attribute or by their name:
//!
//! - `go test`: `func TestX(t *testing.T)` (and `Fuzz…`, `Example…`, testify suites'
//!   methods); `t.Skip()`; a `//go:build` line over the file;
//! - cargo: `#[test]`, `#[tokio::test]`, `#[rstest]`, `#[test_case(…)]`; `#[ignore]`,
//!   `#[cfg_attr(c, ignore)]`, `#[cfg(…)]` on the test, its module or the file (`#![cfg]`);
//! - JUnit 4/5 and TestNG: `@Test`, `@ParameterizedTest`, …; `@Disabled`, `@Ignore`,
//!   `@DisabledOnOs`, `@EnabledIf…`; `assume…()`;
//! - xUnit, NUnit, MSTest: `[Fact]`, `[Theory]`, `[Test]`, `[TestMethod]`, …; `Skip =`,
//!   `[Ignore]`, `[Explicit]`, `[ActiveIssue]`, platform conditions; `Assert.Inconclusive`;
//! - PHPUnit: `function testX()`, `#[Test]`, `@test`; `markTestSkipped`,
//!   `markTestIncomplete`, `@requires`;
//! - GoogleTest (`TEST(Suite, Name)`, `DISABLED_`, `GTEST_SKIP()`) and Catch2 (`TEST_CASE`,
//!   hidden tags `[.]`);
//! - XCTest and swift-testing: `func testX()`, `@Test`; `XCTSkip`, `.disabled()`.
//!
//! Class and module attributes reach their members; the body tells an early `return` and a
//! skip at its top level from one inside an `if`.

use super::super::lex::Depth;
use super::{
    Lang, Off, Parsed, TakenHow, TestCase, args_at, enclosing_opener, has_token, ident, is_ident,
    literal, strip_strings,
};

/// A block that passes what its attributes do on to what it holds.
struct Scope {
    depth: i32,
    /// The line its brace is on (the next one, in Allman style).
    brace: usize,
    off: Option<Off>,
}

pub(super) fn parse(lang: Lang, text: &str) -> Parsed {
    let lines: Vec<&str> = text.lines().collect();
    let mut depth = Depth::new(lang);
    let depths: Vec<(i32, i32)> = lines.iter().map(|l| depth.line(l)).collect();
    let mut out = Parsed::default();
    let mut file_off = file_off(lang, &lines);
    let mut attrs: Vec<String> = Vec::new();
    let mut scopes: Vec<Scope> = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let (start, end) = depths[i];
        let t = lines[i].trim();
        scopes.retain(|s| s.depth < start || i <= s.brace);
        if t.is_empty() {
            i += 1;
            continue;
        }
        if is_comment(t) {
            // PHPUnit's annotations live in the doc comment.
            if lang == Lang::Php {
                for tag in ["@test", "@requires"] {
                    if has_token(t, tag) {
                        attrs.push(t.trim_start_matches(['/', '*', ' ']).to_owned());
                    }
                }
            }
            i += 1;
            continue;
        }
        if lang == Lang::Rust && t.starts_with("#![") {
            file_off = file_off.or_else(|| cfg_off(t));
            i += 1;
            continue;
        }
        if let Some(attr) = attribute(lang, t) {
            // An attribute over several lines ends where its bracket closes.
            let rest = after_attributes(lang, t);
            let mut attr = attr.to_owned();
            let mut j = i;
            while rest.is_empty() && depths[j].1 > start && j + 1 < lines.len() {
                j += 1;
                attr.push(' ');
                attr.push_str(lines[j].trim());
            }
            attrs.push(attr);
            if j > i || rest.is_empty() {
                i = j + 1;
                continue;
            }
        }
        let code = after_attributes(lang, t);
        // `rgtest!(` with the test's name on the next line (as rustfmt writes a long one).
        let joined = (lang == Lang::Rust && code.ends_with("!(") && i + 1 < lines.len())
            .then(|| format!("{code}{}", lines[i + 1].trim()));
        if let Some(name) = declares_test(lang, joined.as_deref().unwrap_or(code), &attrs) {
            let body = body_of(&lines, &depths, i);
            let (name, renamed_off) = disabled_by_name(lang, &name, code);
            let off = renamed_off
                .or_else(|| attrs.iter().find_map(|a| attr_off(lang, a)))
                .or_else(|| body_off(lang, &lines, &depths, body.clone()))
                .or_else(|| scopes.iter().rev().find_map(|s| s.off.clone()))
                .or_else(|| file_off.clone());
            out.tests.push(TestCase {
                name,
                off,
                focused: false,
            });
            attrs.clear();
            i = body.end.max(i + 1);
            continue;
        }
        if let Some(name) = function_name(lang, code) {
            out.defs.push(name);
        }
        let next = opens_block_next(&lines, &depths, i);
        if end > start || next {
            // A class, module or impl: its attributes reach its members.
            let off = attrs.iter().find_map(|a| attr_off(lang, a));
            if let Some(name) = type_name(code) {
                out.defs.push(name);
            }
            scopes.push(Scope {
                depth: start,
                brace: if next { i + 1 } else { i },
                off,
            });
        }
        attrs.clear();
        i += 1;
    }
    out
}

fn is_comment(t: &str) -> bool {
    t.starts_with("//") || t.starts_with("/*") || t.starts_with('*')
}

/// The attribute a line starts with: `#[…]`, `@Name…`, `[Name…]`, `[<Name>]`.
fn attribute(lang: Lang, t: &str) -> Option<&str> {
    let is = match lang {
        Lang::Rust => t.starts_with("#[") && !t.starts_with("#!["),
        Lang::Jvm | Lang::Swift => t.starts_with('@') && !t.starts_with("@interface"),
        Lang::DotNet => t.starts_with('[') || t.starts_with("<"),
        Lang::Php => t.starts_with("#["),
        Lang::Go | Lang::Cpp | Lang::Python | Lang::Js | Lang::Ruby | Lang::Elixir | Lang::Dart => {
            false
        }
    };
    is.then_some(t)
}

/// The code after the attributes a line starts with (`[Fact] public void X()`, `@Test
/// fun x()`).
fn after_attributes(lang: Lang, t: &str) -> &str {
    let mut rest = t;
    loop {
        let Some(_) = attribute(lang, rest) else {
            return rest;
        };
        let end = match lang {
            Lang::Jvm | Lang::Swift => {
                // `@Name` or `@Name(…)`.
                let name_end = 1 + rest[1..]
                    .find(|c: char| !(is_ident(c) || c == '.'))
                    .unwrap_or(rest.len() - 1);
                if rest[name_end..].starts_with('(') {
                    close_of(rest, name_end)
                } else {
                    Some(name_end)
                }
            }
            Lang::Rust | Lang::DotNet | Lang::Php => {
                let open = rest.find('[').or_else(|| rest.find('<'));
                open.and_then(|o| close_of(rest, o))
            }
            Lang::Go
            | Lang::Cpp
            | Lang::Python
            | Lang::Js
            | Lang::Ruby
            | Lang::Elixir
            | Lang::Dart => {
                return rest;
            }
        };
        match end {
            Some(e) if e < rest.len() => rest = rest[e..].trim_start(),
            _ => return "",
        }
    }
}

/// The index just after the bracket matching the one at `open`.
fn close_of(s: &str, open: usize) -> Option<usize> {
    let mut depth = 0;
    let mut quote = None;
    for (i, c) in s.char_indices().skip_while(|(i, _)| *i < open) {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None => match c {
                '"' | '\'' => quote = Some(c),
                '(' | '[' | '{' | '<' => depth += 1,
                ')' | ']' | '}' | '>' => {
                    depth -= 1;
                    if depth == 0 {
                        return Some(i + c.len_utf8());
                    }
                }
                _ => {}
            },
        }
    }
    None
}

/// The name a function declaration on this line gives.
fn function_name(lang: Lang, code: &str) -> Option<String> {
    const NOT_DECLARATIONS: &[&str] = &[
        "if", "for", "while", "switch", "catch", "return", "new", "else", "using", "lock",
        "foreach", "match", "when", "throw", "await", "yield", "do", "try", "sizeof", "typeof",
        "nameof", "assert", "let", "var", "const", "val", "case", "defer", "go", "select",
    ];
    match lang {
        Lang::Go => {
            let rest = code.strip_prefix("func ")?.trim_start();
            let rest = if rest.starts_with('(') {
                rest[close_of(rest, 0)?..].trim_start()
            } else {
                rest
            };
            let name = ident(rest);
            (!name.is_empty() && rest[name.len()..].starts_with(['(', '[']))
                .then(|| name.to_owned())
        }
        Lang::Rust => {
            // memmem: a `str::find` builds a searcher for every line of every file.
            let at = memchr::memmem::find(code.as_bytes(), b"fn ")?;
            let before = &code[..at];
            let modifiers = before.split_whitespace().all(|w| {
                w.starts_with("pub")
                    || matches!(
                        w,
                        "async" | "const" | "unsafe" | "extern" | "\"C\"" | "default"
                    )
            });
            let name = ident(code[at + 3..].trim_start());
            (modifiers && !name.is_empty()).then(|| name.to_owned())
        }
        Lang::Php => {
            let at = code.find("function ")?;
            let name = ident(code[at + 9..].trim_start());
            (!name.is_empty()).then(|| name.to_owned())
        }
        Lang::Jvm | Lang::DotNet | Lang::Swift | Lang::Cpp => {
            // F# and Kotlin names in backticks.
            if let Some(at) = code.find("``").or_else(|| code.find('`')) {
                let quote = if code[at..].starts_with("``") {
                    "``"
                } else {
                    "`"
                };
                let rest = &code[at + quote.len()..];
                let end = rest.find(quote)?;
                let before = &code[..at];
                if before.contains("fun ")
                    || before.contains("let ")
                    || before.contains("member ")
                    || before.contains("func ")
                {
                    return Some(rest[..end].to_owned());
                }
            }
            let open = code.find('(')?;
            let before = code[..open].trim_end();
            let name = before
                .rsplit(|c: char| !is_ident(c))
                .next()
                .filter(|n| !n.is_empty())?;
            let head = before[..before.len() - name.len()].trim_end();
            let first = ident(code);
            if NOT_DECLARATIONS.contains(&first)
                || NOT_DECLARATIONS.contains(&name)
                || head.is_empty()
                || head.ends_with(['=', '.', '(', ',', '!', '&', '|', '+', '-', '?', ':'])
                || head.contains(" = ")
            {
                return None;
            }
            Some(name.to_owned())
        }
        Lang::Python | Lang::Js | Lang::Ruby | Lang::Elixir | Lang::Dart => None,
    }
}

/// A class, struct, module or impl this line opens: its name.
fn type_name(code: &str) -> Option<String> {
    for kw in [
        "class ",
        "struct ",
        "mod ",
        "object ",
        "interface ",
        "record ",
    ] {
        if let Some(at) = code.find(kw)
            && (at == 0 || code[..at].ends_with(' '))
        {
            let name = ident(code[at + kw.len()..].trim_start());
            if !name.is_empty() {
                return Some(name.to_owned());
            }
        }
    }
    None
}

/// Whether the block of the declaration on line `i` opens on a later line (Allman style).
fn opens_block_next(lines: &[&str], depths: &[(i32, i32)], i: usize) -> bool {
    // The next line first: a `{` alone on a line is rare, and the declaration's words are
    // looked for only then (this runs for every line of every file a change touches).
    let code = lines[i].trim();
    lines
        .get(i + 1)
        .is_some_and(|n| n.trim() == "{" && depths[i + 1].1 > depths[i + 1].0)
        && !code.ends_with(';')
        && (type_name(code).is_some() || code.contains("fn ") || code.contains('('))
}

/// A test a Rust macro defines: `rgtest!(name, …)`, `proptest! { fn name(…) }` (a macro
/// whose name says test, its first identifier the test's).
fn rust_macro_test(code: &str) -> Option<String> {
    let mac = ident(code);
    let rest = code[mac.len()..].strip_prefix('!')?.trim_start();
    if !mac.contains("test") || !rest.starts_with(['(', '{', '[']) {
        return None;
    }
    let inner = rest[1..].trim_start();
    let inner = inner.strip_prefix("fn ").unwrap_or(inner).trim_start();
    let name = ident(inner);
    (!name.is_empty()).then(|| name.to_owned())
}

/// The name of the test this line declares, given the attributes before it.
fn declares_test(lang: Lang, code: &str, attrs: &[String]) -> Option<String> {
    match lang {
        Lang::Rust if rust_macro_test(code).is_some() => rust_macro_test(code),
        Lang::Cpp => cpp_test(code),
        Lang::Go => {
            let name = function_name(lang, code)?;
            let kind = ["Test", "Fuzz", "Example"]
                .into_iter()
                .find(|k| name.starts_with(k))?;
            let rest = &name[kind.len()..];
            let collected = (rest.is_empty() || !rest.starts_with(|c: char| c.is_lowercase()))
                && (kind == "Example" || code.contains("*testing.") || code.starts_with("func ("));
            collected.then_some(name)
        }
        Lang::Rust => {
            let name = function_name(lang, code)?;
            attrs.iter().any(|a| rust_test_attr(a)).then_some(name)
        }
        Lang::Jvm => {
            let name = function_name(lang, code)?;
            let marked = attrs.iter().any(|a| {
                let n = attr_name(a);
                matches!(
                    n,
                    "Test" | "ParameterizedTest" | "RepeatedTest" | "TestFactory" | "TestTemplate"
                )
            });
            // JUnit 3: `public void testX()`.
            (marked || (name.starts_with("test") && code.contains("void "))).then_some(name)
        }
        Lang::DotNet => {
            let name = function_name(lang, code)?;
            attrs
                .iter()
                .flat_map(|a| dotnet_attrs(a))
                .any(|n| {
                    n.ends_with("Fact")
                        || n.ends_with("Theory")
                        || n.ends_with("TestMethod")
                        || matches!(n, "Test" | "TestCase" | "TestCaseSource")
                })
                .then_some(name)
        }
        Lang::Php => {
            let name = function_name(lang, code)?;
            let marked = attrs
                .iter()
                .any(|a| a.contains("#[Test]") || has_token(a, "@test"));
            (marked || name.starts_with("test")).then_some(name)
        }
        Lang::Swift => {
            let name = function_name(lang, code)?;
            let marked = attrs.iter().any(|a| a.starts_with("@Test"));
            (code.contains("func ") && (marked || name.starts_with("test"))).then_some(name)
        }
        Lang::Python | Lang::Js | Lang::Ruby | Lang::Elixir | Lang::Dart => None,
    }
}

/// `#[test]`, `#[tokio::test]`, `#[rstest]`, `#[test_case(…)]`, …: an attribute whose path
/// ends in `test`, or one of the test-generating ones.
fn rust_test_attr(attr: &str) -> bool {
    let inner = attr.trim_start_matches("#[");
    let path_end = inner
        .find(|c: char| !(is_ident(c) || c == ':'))
        .unwrap_or(inner.len());
    let path = &inner[..path_end];
    let last = path.rsplit("::").next().unwrap_or(path);
    last == "test"
        || matches!(
            last,
            "rstest" | "test_case" | "wasm_bindgen_test" | "quickcheck" | "proptest"
        )
}

/// The name of a JVM or Swift annotation, without its package (`org.junit.Test` → `Test`).
fn attr_name(attr: &str) -> &str {
    let name = ident_path(attr.trim_start_matches('@'));
    name.rsplit('.').next().unwrap_or(name)
}

fn ident_path(s: &str) -> &str {
    let end = s
        .find(|c: char| !(is_ident(c) || c == '.'))
        .unwrap_or(s.len());
    &s[..end]
}

/// The attribute names in a .NET attribute list (`[Test, Ignore("x")]`, `[<Fact>]`),
/// without their `Attribute` suffix and namespace.
fn dotnet_attrs(attr: &str) -> Vec<&str> {
    let inner = attr
        .trim()
        .trim_start_matches("[<")
        .trim_start_matches('[')
        .trim_start_matches('<');
    let mut out = Vec::new();
    let open = inner.find('(').unwrap_or(inner.len());
    let _ = open;
    for part in split_top(inner) {
        let name = ident_path(part.trim());
        let name = name.rsplit('.').next().unwrap_or(name);
        out.push(name.strip_suffix("Attribute").unwrap_or(name));
    }
    out
}

/// `a, b(c, d), e` split at top-level commas.
fn split_top(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut depth = 0;
    let mut quote = None;
    let mut from = 0;
    for (i, c) in s.char_indices() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None => match c {
                '"' => quote = Some(c),
                '(' | '[' => depth += 1,
                ')' | ']' => depth -= 1,
                ',' if depth == 0 => {
                    out.push(&s[from..i]);
                    from = i + 1;
                }
                _ => {}
            },
        }
    }
    out.push(&s[from..]);
    out
}

/// GoogleTest's `TEST(Suite, Name)` (and `TEST_F`, `TEST_P`, `TYPED_TEST`), Catch2's
/// `TEST_CASE("name", "[tags]")` and `SCENARIO`.
fn cpp_test(code: &str) -> Option<String> {
    let macro_name = ident(code);
    let open = macro_name.len();
    if !code[open..].starts_with('(') {
        return None;
    }
    let args = args_at(code, open);
    match macro_name {
        "TEST" | "TEST_F" | "TEST_P" | "TYPED_TEST" | "TYPED_TEST_P" | "FUZZ_TEST" => {
            let (suite, name) = (args.first()?, args.get(1)?);
            Some(format!("{suite}.{name}"))
        }
        "TEST_CASE" | "SCENARIO" => literal(args.first()?).map(str::to_owned),
        "TEST_CASE_METHOD" => literal(args.get(1)?).map(str::to_owned),
        _ => None,
    }
}

/// A test disabled by its own name (GoogleTest's `DISABLED_`, Catch2's hidden tags): its
/// name as it is known enabled, and what disables it.
fn disabled_by_name(lang: Lang, name: &str, code: &str) -> (String, Option<Off>) {
    if lang != Lang::Cpp {
        return (name.to_owned(), None);
    }
    if name.contains("DISABLED_") {
        return (
            name.replace("DISABLED_", ""),
            Some(Off::new(TakenHow::Skipped, code)),
        );
    }
    let args = args_at(code, ident(code).len());
    let hidden = args
        .iter()
        .skip(1)
        .filter_map(|a| literal(a))
        .any(|tags| tags.contains("[.") || tags.contains("[!hide]"));
    (
        name.to_owned(),
        hidden.then(|| Off::new(TakenHow::Skipped, code)),
    )
}

/// What an attribute does to the test, class or module under it.
fn attr_off(lang: Lang, attr: &str) -> Option<Off> {
    match lang {
        Lang::Rust => {
            let inner = attr.trim_start_matches("#[");
            if inner.starts_with("ignore") && !inner[6..].starts_with(is_ident) {
                Some(Off::new(TakenHow::Skipped, attr))
            } else if let Some(rest) = inner.strip_prefix("cfg_attr(") {
                let args = args_at(inner, "cfg_attr".len());
                let ignores = args.iter().skip(1).any(|a| a.starts_with("ignore"));
                let _ = rest;
                ignores.then(|| {
                    Off::when(
                        TakenHow::Skipped,
                        attr,
                        args.first().copied().unwrap_or("a condition"),
                    )
                })
            } else {
                cfg_off(attr)
            }
        }
        Lang::Jvm | Lang::Swift => {
            let name = attr_name(attr);
            if matches!(name, "Disabled" | "Ignore") {
                Some(Off::new(TakenHow::Skipped, attr))
            } else if [
                "DisabledOn",
                "EnabledOn",
                "DisabledIf",
                "EnabledIf",
                "DisabledFor",
                "EnabledFor",
            ]
            .iter()
            .any(|p| name.starts_with(p))
            {
                Some(Off::when(
                    TakenHow::Skipped,
                    attr,
                    attr.trim_start_matches('@'),
                ))
            } else if name == "Test" && attr.replace(' ', "").contains("enabled=false") {
                Some(Off::new(TakenHow::Skipped, attr))
            } else if name == "Test" && attr.contains(".disabled(") {
                if attr.contains(".disabled(if:") || attr.contains(".enabled(if:") {
                    Some(Off::when(TakenHow::Skipped, attr, attr))
                } else {
                    Some(Off::new(TakenHow::Skipped, attr))
                }
            } else if name == "Test" && attr.contains(".enabled(if:") {
                Some(Off::when(TakenHow::Skipped, attr, attr))
            } else {
                None
            }
        }
        Lang::DotNet => {
            let squeezed: String = attr.chars().filter(|c| !c.is_whitespace()).collect();
            let names = dotnet_attrs(attr);
            let skip = squeezed.contains("Skip=")
                && names
                    .iter()
                    .any(|n| n.ends_with("Fact") || n.ends_with("Theory"));
            if skip
                || names
                    .iter()
                    .any(|n| matches!(*n, "Ignore" | "Explicit" | "ActiveIssue"))
            {
                Some(Off::new(TakenHow::Skipped, attr))
            } else if names.iter().any(|n| {
                n.starts_with("Conditional")
                    || n.starts_with("SkipOn")
                    || n.contains("OSCondition")
                    || n.contains("OSSkip")
                    || matches!(*n, "Platform" | "OSCondition")
            }) {
                Some(Off::when(TakenHow::Skipped, attr, attr))
            } else {
                None
            }
        }
        Lang::Php => {
            if attr.contains("@requires") || attr.contains("#[Requires") {
                Some(Off::when(TakenHow::Skipped, attr, attr))
            } else {
                None
            }
        }
        Lang::Go | Lang::Cpp | Lang::Python | Lang::Js | Lang::Ruby | Lang::Elixir | Lang::Dart => {
            None
        }
    }
}

/// `#[cfg(…)]` or `#![cfg(…)]`: never true (`any()`) compiles the item out for good;
/// anything but `test` compiles it under a condition.
fn cfg_off(attr: &str) -> Option<Off> {
    let at = attr.find("cfg(")?;
    if attr[..at].ends_with("_") || attr[..at].ends_with("cfg_attr(") {
        return None;
    }
    let args = args_at(attr, at + 3);
    let cond = args.first().copied().unwrap_or("");
    let squeezed: String = cond.chars().filter(|c| !c.is_whitespace()).collect();
    if matches!(squeezed.as_str(), "any()" | "not(all())" | "all(any())") {
        Some(Off::new(TakenHow::Disabled, attr))
    } else if squeezed == "test" || squeezed.is_empty() {
        None
    } else {
        Some(Off::when(TakenHow::Disabled, attr, cond))
    }
}

/// Over a whole file: Go's build constraints (`//go:build ignore`: never built).
fn file_off(lang: Lang, lines: &[&str]) -> Option<Off> {
    if lang != Lang::Go {
        return None;
    }
    for l in lines {
        let t = l.trim();
        if t.starts_with("package ") {
            break;
        }
        if let Some(expr) = t.strip_prefix("//go:build ") {
            let expr = expr.trim();
            return Some(if expr == "ignore" {
                Off::new(TakenHow::Disabled, t)
            } else {
                Off::when(TakenHow::Disabled, t, expr)
            });
        }
    }
    None
}

/// The lines of the body of the declaration on line `i`: from the line after it while
/// they are deeper than it (the opening brace may be on the next line).
fn body_of(lines: &[&str], depths: &[(i32, i32)], i: usize) -> std::ops::Range<usize> {
    let base = depths[i].0;
    let none = (i + 1)..(i + 1);
    let mut j = i;
    // The signature may go on over several lines, and the brace may be on its own.
    loop {
        let Some(line) = lines.get(j) else {
            return none;
        };
        if depths[j].1 > base {
            break;
        }
        let t = line.trim();
        // A body on one line (`fn x() {}`), or none (`;`, `=> expr;`).
        if t.contains('{') || t.ends_with(';') || j > i + 8 {
            return none;
        }
        j += 1;
    }
    let from = j + 1;
    let mut k = from;
    while k < lines.len() && depths[k].0 > base {
        k += 1;
    }
    from..k
}

/// What the body does first, or where it skips (at its top level: always; deeper: on the
/// condition of the block it is in).
fn body_off(
    lang: Lang,
    lines: &[&str],
    depths: &[(i32, i32)],
    body: std::ops::Range<usize>,
) -> Option<Off> {
    let statements: Vec<usize> = body
        .clone()
        .filter(|&k| {
            let t = lines[k].trim();
            !t.is_empty() && !is_comment(t) && t != "}" && t != "{"
        })
        .collect();
    let base = depths[*statements.first()?].0;
    let head = lines[statements[0]].trim();
    if matches!(
        head,
        "return" | "return;" | "return nil" | "return Ok(());" | "return Ok(())"
    ) {
        return Some(Off::new(TakenHow::EarlyReturn, head));
    }
    for &k in &statements {
        let t = lines[k].trim();
        let Some((how, conditional)) = skip_call(lang, &strip_strings(t)) else {
            continue;
        };
        let d = depths[k].0;
        if d <= base && !conditional {
            return Some(Off::new(how, t));
        }
        let opener = enclosing_opener(lines, depths, &statements, k).unwrap_or(t);
        return Some(Off::when(
            how,
            t,
            if conditional && d <= base { t } else { opener },
        ));
    }
    None
}

/// A call in a test's body that skips it: how, and whether it has a condition of its own
/// (`assumeTrue(c)`, `Skip.If(c)`, `XCTSkipIf(c)`).
fn skip_call(lang: Lang, t: &str) -> Option<(TakenHow, bool)> {
    let any = |names: &[&str]| names.iter().any(|n| t.contains(n));
    match lang {
        Lang::Go => any(&[".Skip(", ".Skipf(", ".SkipNow()"]).then_some((TakenHow::Skipped, false)),
        Lang::Jvm => {
            if any(&[
                "assumeTrue(",
                "assumeFalse(",
                "assumeThat(",
                "Assume.assume",
                "assumingThat(",
            ]) {
                Some((TakenHow::Skipped, true))
            } else if any(&["Assumptions.abort(", "TestAbortedException("]) {
                Some((TakenHow::Skipped, false))
            } else {
                None
            }
        }
        Lang::DotNet => {
            if any(&[
                "Skip.If(",
                "Skip.IfNot(",
                "Assert.SkipWhen(",
                "Assert.SkipUnless(",
                "Assume.",
            ]) {
                Some((TakenHow::Skipped, true))
            } else if any(&[
                "Assert.Inconclusive(",
                "Assert.Skip(",
                "throw new SkipException(",
                "Assert.Ignore(",
            ]) {
                Some((TakenHow::Skipped, false))
            } else {
                None
            }
        }
        Lang::Php => {
            if t.contains("markTestSkipped(") {
                Some((TakenHow::Skipped, false))
            } else if t.contains("markTestIncomplete(") {
                Some((TakenHow::Todo, false))
            } else {
                None
            }
        }
        Lang::Cpp => any(&["GTEST_SKIP(", "SKIP("]).then_some((TakenHow::Skipped, false)),
        Lang::Swift => {
            if any(&["XCTSkipIf(", "XCTSkipUnless("]) {
                Some((TakenHow::Skipped, true))
            } else if t.contains("XCTSkip(") {
                Some((TakenHow::Skipped, false))
            } else {
                None
            }
        }
        Lang::Rust | Lang::Python | Lang::Js | Lang::Ruby | Lang::Elixir | Lang::Dart => None,
    }
}
