//! Bracket depth across the lines of a C-like source (Go, Rust, the JVM and .NET languages,
//! JavaScript, PHP, C++, Swift, Dart), outside strings and comments: enough to tell where a
//! test's body ends and whether a line sits at its top level or inside an `if`.

use super::Lang;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Code,
    BlockComment,
    /// A string that may span lines, closed by this delimiter.
    Long(&'static str),
    /// A Rust raw string closed by `"` and this many `#`.
    RawRust(usize),
    /// A C# verbatim string (`@"…"`, `""` inside).
    Verbatim,
    /// A string with escapes that goes on past the end of its line (Rust's strings may;
    /// others' after a `\` at the end of the line).
    Quoted(u8),
}

/// The depth of `(`, `[` and `{` together, line by line.
#[derive(Debug, Clone)]
pub(super) struct Depth {
    lang: Lang,
    depth: i32,
    state: State,
}

impl Depth {
    pub(super) fn new(lang: Lang) -> Depth {
        Depth {
            lang,
            depth: 0,
            state: State::Code,
        }
    }

    /// Reads one line: the depth at its start, and at its end.
    pub(super) fn line(&mut self, line: &str) -> (i32, i32) {
        let start = self.depth;
        let b = line.as_bytes();
        let mut i = 0;
        while i < b.len() {
            match self.state {
                State::BlockComment => match find(b, i, b"*/") {
                    Some(j) => {
                        self.state = State::Code;
                        i = j + 2;
                    }
                    None => break,
                },
                State::Long(close) => match find(b, i, close.as_bytes()) {
                    Some(j) => {
                        self.state = State::Code;
                        i = j + close.len();
                    }
                    None => break,
                },
                State::RawRust(hashes) => {
                    let mut close = vec![b'"'];
                    close.extend(std::iter::repeat_n(b'#', hashes));
                    match find(b, i, &close) {
                        Some(j) => {
                            self.state = State::Code;
                            i = j + close.len();
                        }
                        None => break,
                    }
                }
                State::Verbatim => {
                    // `""` is a quote inside; a lone `"` ends it.
                    let mut j = i;
                    let mut end = None;
                    while j < b.len() {
                        if b[j] == b'"' {
                            if b.get(j + 1) == Some(&b'"') {
                                j += 2;
                                continue;
                            }
                            end = Some(j);
                            break;
                        }
                        j += 1;
                    }
                    match end {
                        Some(j) => {
                            self.state = State::Code;
                            i = j + 1;
                        }
                        None => break,
                    }
                }
                State::Quoted(q) => match close_quoted(b, i, q) {
                    Some(j) => {
                        self.state = State::Code;
                        i = j;
                    }
                    None => break,
                },
                State::Code => i = self.code(b, i),
            }
        }
        (start, self.depth)
    }

    /// Reads code from `i`; returns where to go on (the end of the line after a comment).
    fn code(&mut self, b: &[u8], i: usize) -> usize {
        let c = b[i];
        let next = b.get(i + 1).copied();
        match c {
            b'(' | b'[' | b'{' => {
                self.depth += 1;
                i + 1
            }
            b')' | b']' | b'}' => {
                self.depth -= 1;
                i + 1
            }
            b'/' if next == Some(b'/') => b.len(),
            b'/' if next == Some(b'*') => {
                self.state = State::BlockComment;
                i + 2
            }
            b'#' if self.lang == Lang::Php && next != Some(b'[') => b.len(),
            b'"' if b[i..].starts_with(b"\"\"\"") && self.lang != Lang::Js => {
                self.state = State::Long("\"\"\"");
                i + 3
            }
            b'\'' if b[i..].starts_with(b"'''") && self.lang == Lang::Dart => {
                self.state = State::Long("'''");
                i + 3
            }
            b'@' if next == Some(b'"') && self.lang == Lang::DotNet => {
                self.state = State::Verbatim;
                i + 2
            }
            b'r' if self.lang == Lang::Rust && raw_rust(b, i).is_some() => {
                let (hashes, open) = raw_rust(b, i).unwrap_or_default();
                self.state = State::RawRust(hashes);
                open
            }
            b'`' => match self.lang {
                // Go raw strings and JS templates may span lines.
                Lang::Go | Lang::Js => {
                    self.state = State::Long("`");
                    i + 1
                }
                // Quoted identifiers (Kotlin, F#, Swift): on one line.
                Lang::Python
                | Lang::Rust
                | Lang::Jvm
                | Lang::DotNet
                | Lang::Ruby
                | Lang::Php
                | Lang::Elixir
                | Lang::Cpp
                | Lang::Swift
                | Lang::Dart => find(b, i + 1, b"`").map_or(b.len(), |j| j + 1),
            },
            b'"' => self.quoted(b, i, b'"'),
            b'\'' => match self.lang {
                Lang::Js | Lang::Php | Lang::Dart | Lang::Python | Lang::Ruby | Lang::Elixir => {
                    self.quoted(b, i, b'\'')
                }
                // A character literal (`'x'`, `'\n'`, `'\u{1F600}'`), or a lifetime.
                Lang::Go | Lang::Rust | Lang::Jvm | Lang::DotNet | Lang::Cpp | Lang::Swift => {
                    char_literal(b, i).unwrap_or(i + 1)
                }
            },
            _ => i + 1,
        }
    }
}

impl Depth {
    /// A string from the quote at `i`: where it ends on this line, or the end of the line
    /// when it goes on (a Rust string, or a `\` before the line's end).
    fn quoted(&mut self, b: &[u8], i: usize, quote: u8) -> usize {
        match close_quoted(b, i + 1, quote) {
            Some(j) => j,
            None => {
                if self.lang == Lang::Rust || b.ends_with(b"\\") {
                    self.state = State::Quoted(quote);
                }
                b.len()
            }
        }
    }
}

/// Where a string whose content starts at `from` ends (just after its closing quote).
fn close_quoted(b: &[u8], from: usize, quote: u8) -> Option<usize> {
    let mut j = from;
    while j < b.len() {
        match b[j] {
            b'\\' => j += 2,
            c if c == quote => return Some(j + 1),
            _ => j += 1,
        }
    }
    None
}

fn find(hay: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    hay.get(from..)?
        .windows(needle.len())
        .position(|w| w == needle)
        .map(|p| p + from)
}

/// `'x'`, `'\n'`, `'\u{…}'` from `i`: where it ends; `None` for a lifetime (`'a`).
fn char_literal(b: &[u8], i: usize) -> Option<usize> {
    let rest = &b[i + 1..];
    if rest.first() == Some(&b'\\') {
        return find(b, i + 2, b"'").map(|j| j + 1);
    }
    // One character (maybe several bytes), then the closing quote.
    let text = std::str::from_utf8(rest).ok()?;
    let mut chars = text.char_indices();
    let (_, _) = chars.next()?;
    let (k, c) = chars.next()?;
    (c == '\'').then_some(i + 1 + k + 1)
}

/// A Rust raw string's opening at `i` (`r"`, `r#"`, `br##"`): its `#` count and where its
/// content starts.
fn raw_rust(b: &[u8], i: usize) -> Option<(usize, usize)> {
    if i > 0 && (b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_') && b[i - 1] != b'b' {
        return None;
    }
    let mut j = i + 1;
    let mut hashes = 0;
    while b.get(j) == Some(&b'#') {
        hashes += 1;
        j += 1;
    }
    (b.get(j) == Some(&b'"')).then_some((hashes, j + 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn depths(lang: Lang, text: &str) -> Vec<(i32, i32)> {
        let mut d = Depth::new(lang);
        text.lines().map(|l| d.line(l)).collect()
    }

    #[test]
    fn strings_comments_and_chars_do_not_count() {
        let go =
            "func TestX(t *testing.T) {\n\ts := `{\n}`\n\tif x { // }\n\t\tt.Skip(\"}\")\n\t}\n}\n";
        assert_eq!(
            depths(Lang::Go, go),
            [(0, 1), (1, 1), (1, 1), (1, 2), (2, 2), (2, 1), (1, 0)]
        );
        let rust =
            "fn f<'a>(x: &'a str) {\n    let c = '}';\n    let s = r#\"{\n\"#;\n    /* { */\n}\n";
        assert_eq!(
            depths(Lang::Rust, rust),
            [(0, 1), (1, 1), (1, 1), (1, 1), (1, 1), (1, 0)]
        );
        let js = "it('a {', () => {\n  const t = `${x} {`;\n});\n";
        assert_eq!(depths(Lang::Js, js), [(0, 2), (2, 2), (2, 0)]);
        let cs = "void F() {\n  var s = @\"{\n\"\"}\";\n}\n";
        assert_eq!(depths(Lang::DotNet, cs), [(0, 1), (1, 1), (1, 1), (1, 0)]);
        // A Rust string over two lines.
        let rust = "fn f() {\n    g(\"a\\n\\\n      b)\");\n}\n";
        assert_eq!(depths(Lang::Rust, rust), [(0, 1), (1, 2), (2, 1), (1, 0)]);
    }
}
