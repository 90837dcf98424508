//! The code's own shape, held by tests so that it stays true: no function in `src/` or
//! `crates/` is longer than [`MAX_LINES`] lines, from its `fn` line to its closing brace,
//! and no file longer than [`MAX_FILE_LINES`]; a longer one is split by what its parts
//! are. Each module imports only from the modules below it, as ARCHITECTURE.md draws them
//! ([`layers`]).
//!
//! Functions are found by a small lexer (comments, strings and character literals blanked
//! out, then braces matched): enough for this code base, and tested below on what would
//! fool a plain text search.

mod layers;

use std::path::{Path, PathBuf};

/// The longest a function may be, in lines.
const MAX_LINES: usize = 100;

/// The longest a source file may be, in lines.
const MAX_FILE_LINES: usize = 1000;

/// Files over the limit in code others are changing now, with their length today: each may
/// only shrink, and must leave this list once it is within the limit. (None now: the
/// runners' normalisation is split by what its parts do.)
const KNOWN_LONG_FILES: &[(&str, usize)] = &[];

/// Functions over the limit in code others are changing now, with their length today: each
/// may only shrink, and must leave this list once it is within the limit. (None now: the
/// runners' parsers split `xml.rs`'s `feed`.)
const KNOWN_LONG: &[(&str, &str, usize)] = &[];

/// One function: where it starts, its name and its length in lines.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Function {
    line: usize,
    name: String,
    lines: usize,
}

/// `text` with comments, string literals and character literals replaced by spaces
/// (newlines kept), so that their braces and `fn`s are not code.
fn blank_literals(text: &str) -> Vec<u8> {
    let src = text.as_bytes();
    let mut out = src.to_vec();
    let blank = |out: &mut Vec<u8>, from: usize, to: usize| {
        for b in &mut out[from..to.min(src.len())] {
            if *b != b'\n' {
                *b = b' ';
            }
        }
    };
    let ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let mut i = 0;
    while i < src.len() {
        let rest = &src[i..];
        let end = if rest.starts_with(b"//") {
            rest.iter()
                .position(|&b| b == b'\n')
                .map_or(src.len(), |n| i + n)
        } else if rest.starts_with(b"/*") {
            block_comment_end(src, i)
        } else if let Some(end) = raw_string_end(src, i).filter(|_| i == 0 || !ident(src[i - 1])) {
            end
        } else if rest[0] == b'"' {
            string_end(src, i + 1)
        } else if rest[0] == b'\'' {
            match char_literal_end(src, i) {
                Some(end) => end,
                None => {
                    i += 1; // a lifetime
                    continue;
                }
            }
        } else {
            i += 1;
            continue;
        };
        blank(&mut out, i, end);
        i = end;
    }
    out
}

/// The end of the (nested) block comment starting at `start`.
fn block_comment_end(src: &[u8], start: usize) -> usize {
    let (mut depth, mut i) = (0usize, start);
    while i < src.len() {
        if src[i..].starts_with(b"/*") {
            depth += 1;
            i += 2;
        } else if src[i..].starts_with(b"*/") {
            depth -= 1;
            i += 2;
            if depth == 0 {
                return i;
            }
        } else {
            i += 1;
        }
    }
    src.len()
}

/// The end of a raw string (`r"…"`, `r#"…"#`, `br"…"`) starting at `start`, if one does.
fn raw_string_end(src: &[u8], start: usize) -> Option<usize> {
    let mut i = start;
    if src.get(i) == Some(&b'b') {
        i += 1;
    }
    if src.get(i) != Some(&b'r') {
        return None;
    }
    i += 1;
    let hashes = src[i..].iter().take_while(|&&b| b == b'#').count();
    i += hashes;
    if src.get(i) != Some(&b'"') {
        return None;
    }
    let mut close = vec![b'"'];
    close.extend(std::iter::repeat_n(b'#', hashes));
    let body = i + 1;
    Some(
        src[body..]
            .windows(close.len())
            .position(|w| w == close.as_slice())
            .map_or(src.len(), |n| body + n + close.len()),
    )
}

/// The end of a string whose body starts at `body` (escapes skipped).
fn string_end(src: &[u8], body: usize) -> usize {
    let mut i = body;
    while i < src.len() {
        match src[i] {
            b'\\' => i += 2,
            b'"' => return i + 1,
            _ => i += 1,
        }
    }
    src.len()
}

/// The end of the character literal at `start` (`'x'`, `'\n'`, `'\u{1F600}'`, `'é'`);
/// `None` for a lifetime (`'a`).
fn char_literal_end(src: &[u8], start: usize) -> Option<usize> {
    let next = *src.get(start + 1)?;
    if next == b'\\' {
        // The escaped character may be a quote itself: the closing one comes after it.
        let close = src.get(start + 3..)?.iter().position(|&b| b == b'\'')?;
        return Some(start + 3 + close + 1);
    }
    // One character, however many bytes it takes, then the closing quote.
    let width = match next {
        0x00..=0x7f => 1,
        0xc0..=0xdf => 2,
        0xe0..=0xef => 3,
        _ => 4,
    };
    (src.get(start + 1 + width) == Some(&b'\'')).then_some(start + 2 + width)
}

/// Every function with a body in `text`.
fn functions(text: &str) -> Vec<Function> {
    let code = blank_literals(text);
    let ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let line_of = |at: usize| code[..at].iter().filter(|&&b| b == b'\n').count() + 1;
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(n) = code[i..].windows(3).position(|w| w == b"fn ") {
        let at = i + n;
        i = at + 3;
        if at > 0 && ident(code[at - 1]) {
            continue;
        }
        let name_start = i + code[i..]
            .iter()
            .take_while(|b| b.is_ascii_whitespace())
            .count();
        let name_len = code[name_start..].iter().take_while(|&&b| ident(b)).count();
        if name_len == 0 {
            continue; // `fn(u8) -> u8`, a type
        }
        let name = String::from_utf8_lossy(&code[name_start..name_start + name_len]).into_owned();
        // The body: the first `{` after the signature, unless a `;` ends it first.
        let mut depth = 0i32;
        let mut j = name_start + name_len;
        while j < code.len() {
            match code[j] {
                b'(' | b'[' => depth += 1,
                b')' | b']' => depth -= 1,
                b'{' | b';' if depth == 0 => break,
                _ => {}
            }
            j += 1;
        }
        if j >= code.len() || code[j] == b';' {
            continue;
        }
        let mut braces = 0i32;
        let mut k = j;
        while k < code.len() {
            match code[k] {
                b'{' => braces += 1,
                b'}' => {
                    braces -= 1;
                    if braces == 0 {
                        break;
                    }
                }
                _ => {}
            }
            k += 1;
        }
        let (first, last) = (line_of(at), line_of(k.min(code.len() - 1)));
        out.push(Function {
            line: first,
            name,
            lines: last - first + 1,
        });
    }
    out
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("a source directory") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn no_function_is_longer_than_a_hundred_lines() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut too_long = Vec::new();
    let mut known = Vec::new();
    for (rel, file) in code_files(root) {
        let text = std::fs::read_to_string(&file).expect("a readable source file");
        for f in functions(&text) {
            if f.lines <= MAX_LINES {
                continue;
            }
            match KNOWN_LONG
                .iter()
                .find(|(p, n, _)| *p == rel && *n == f.name)
            {
                Some(&(_, _, was)) if f.lines <= was => known.push((rel.clone(), f.name)),
                Some(&(_, _, was)) => too_long.push(format!(
                    "{rel}:{} {}: {} lines, longer than the {was} it was",
                    f.line, f.name, f.lines
                )),
                None => too_long.push(format!("{rel}:{} {}: {} lines", f.line, f.name, f.lines)),
            }
        }
    }
    assert!(
        too_long.is_empty(),
        "functions over {MAX_LINES} lines (split them into named steps):\n{}",
        too_long.join("\n")
    );
    let stale: Vec<_> = KNOWN_LONG
        .iter()
        .filter(|(p, n, _)| !known.iter().any(|(kp, kn)| kp == p && kn == n))
        .collect();
    assert!(
        stale.is_empty(),
        "within the limit now, or gone: take them off KNOWN_LONG: {stale:?}"
    );
}

/// Every `.rs` file of the code (`src/`, `crates/`), sorted, with its path from the root.
fn code_files(root: &Path) -> Vec<(String, PathBuf)> {
    let mut files = Vec::new();
    rust_files(&root.join("src"), &mut files);
    rust_files(&root.join("crates"), &mut files);
    files.sort();
    files
        .into_iter()
        .map(|f| {
            let rel = f.strip_prefix(root).expect("under the root").display();
            (rel.to_string(), f)
        })
        .collect()
}

#[test]
fn no_source_file_is_longer_than_a_thousand_lines() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut too_long = Vec::new();
    let mut known = Vec::new();
    for (rel, file) in code_files(root) {
        let lines = std::fs::read_to_string(&file)
            .expect("a readable source file")
            .lines()
            .count();
        if lines <= MAX_FILE_LINES {
            continue;
        }
        match KNOWN_LONG_FILES.iter().find(|(p, _)| *p == rel) {
            Some(&(_, was)) if lines <= was => known.push(rel),
            Some(&(_, was)) => too_long.push(format!("{rel}: {lines} lines, more than {was}")),
            None => too_long.push(format!("{rel}: {lines} lines")),
        }
    }
    assert!(
        too_long.is_empty(),
        "files over {MAX_FILE_LINES} lines (split them by what their parts are):\n{}",
        too_long.join("\n")
    );
    let stale: Vec<_> = KNOWN_LONG_FILES
        .iter()
        .filter(|(p, _)| !known.iter().any(|k| k == p))
        .collect();
    assert!(
        stale.is_empty(),
        "within the limit now, or gone: take them off KNOWN_LONG_FILES: {stale:?}"
    );
}

#[test]
fn the_lexer_sees_functions_not_text_that_looks_like_them() {
    let text = r####"
/// fn in_a_comment() { {
fn a() -> u8 {
    let s = "fn in_a_string() { {";
    let r = r#"fn raw() { " { "#;
    let c = '{';
    let e = '\'';
    let u = '\u{7b}';
    let l: &'static str = "}";
    /* fn block() { /* nested { */ */
    let f: fn(u8) -> u8 = |x| x;
    1
}

trait T {
    fn declared(&self);
    fn defaulted(&self) where Self: Sized {
        let _ = b'}';
    }
}
"####;
    let found: Vec<(String, usize, usize)> = functions(text)
        .into_iter()
        .map(|f| (f.name, f.line, f.lines))
        .collect();
    assert_eq!(
        found,
        [("a".to_owned(), 3, 11), ("defaulted".to_owned(), 17, 3)]
    );
}
