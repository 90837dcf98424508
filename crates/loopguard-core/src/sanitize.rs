//! Making untrusted text (test logs, commit messages, file names) safe to put in comments,
//! issues and step summaries: it must not notify anyone, link other issues, start a
//! workflow command when echoed to the log, or break the surrounding markdown; and bodies
//! must fit GitHub's limits. Pure functions.

use std::borrow::Cow;
use std::fmt::Write as _;

/// GitHub's limit for a comment or issue body, in characters.
pub const COMMENT_LIMIT: usize = 65_536;
/// GitHub's limit for one step's summary, in bytes.
pub const SUMMARY_LIMIT: usize = 1 << 20;

/// Invisible, and breaks GitHub's mention and reference patterns.
const ZWSP: char = '\u{200B}';

/// Removes ANSI escape sequences and control characters other than `\n` and `\t`, and
/// turns `\r\n` and lone `\r` into `\n`.
pub fn strip_controls(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\u{1b}' => skip_escape(&mut chars),
            '\r' => {
                if chars.peek() != Some(&'\n') {
                    out.push('\n');
                }
            }
            '\n' | '\t' => out.push(c),
            // Bidi overrides can make text read differently than it is (CVE-2021-42574).
            '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' => {}
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out
}

/// Untrusted text for a terminal, on one line: every control character (escape
/// sequences, `\r`, newlines, C1 controls) and bidi override is *shown* (`^[`, `^M`,
/// `\u{202e}`), never executed, so a commit message cannot erase or rewrite what a person
/// reads.
pub fn printable(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\t' => out.push(' '),
            '\u{0}'..='\u{1f}' => {
                out.push('^');
                out.push(char::from(b'@' + c as u8));
            }
            '\u{7f}' => out.push_str("^?"),
            '\u{80}'..='\u{9f}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
            c => out.push(c),
        }
    }
    out
}

/// [`printable`], line by line: newlines are kept, everything else is shown.
pub fn printable_lines(text: &str) -> String {
    text.split('\n')
        .map(printable)
        .collect::<Vec<_>>()
        .join("\n")
}

/// The one neutraliser of everything loopguard writes to stderr (warnings, notes, errors,
/// refusals): every line [`printable`] — control characters and bidi overrides shown,
/// never executed by a terminal — and none starting a workflow command when the stream is
/// a GitHub Actions log. Newlines are kept: a message may have several lines (a `hint:`),
/// but no outside text can make one of them a command.
pub fn terminal(text: &str) -> String {
    defuse_workflow_commands(&printable_lines(text))
}

/// A JSON document for a terminal: the characters JSON allows raw inside strings but a
/// terminal may act on — DEL, the C1 controls (U+0080–U+009F, CSI among them) and the bidi
/// overrides — written as `\uXXXX` escapes. The document means the same.
pub fn json_for_terminal(json: &str) -> Cow<'_, str> {
    let acts = |c: char| matches!(c, '\u{7f}'..='\u{9f}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}');
    if !json.chars().any(acts) {
        return Cow::Borrowed(json);
    }
    let mut out = String::with_capacity(json.len() + 16);
    for c in json.chars() {
        if acts(c) {
            let _ = write!(out, "\\u{:04x}", c as u32);
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// Skips the rest of an escape sequence (CSI `ESC [ … final`, OSC `ESC ] … BEL|ST`, or a
/// two-character escape).
fn skip_escape(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) {
    match chars.peek() {
        Some('[') => {
            chars.next();
            for c in chars.by_ref() {
                if ('\u{40}'..='\u{7e}').contains(&c) {
                    break;
                }
            }
        }
        Some(']') => {
            chars.next();
            while let Some(c) = chars.next() {
                if c == '\u{7}' {
                    break;
                }
                if c == '\u{1b}' && chars.peek() == Some(&'\\') {
                    chars.next();
                    break;
                }
            }
        }
        Some(_) => {
            chars.next();
        }
        None => {}
    }
}

/// `@user` and `@org/team` become `@\u{200B}user`: shown the same, notifying no one. An
/// `@` inside a word (`a@b.com`) is not a mention and is left alone.
pub fn defuse_mentions(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut prev: Option<char> = None;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        out.push(c);
        if c == '@'
            && chars.peek().is_some_and(char::is_ascii_alphanumeric)
            && !prev.is_some_and(|p| p.is_alphanumeric() || p == '_')
        {
            out.push(ZWSP);
        }
        prev = Some(c);
    }
    out
}

/// `#123`, `owner/repo#123` and `GH-123` would link (and notify) other issues: the
/// number is separated from its sign by an invisible space.
pub fn defuse_references(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        out.push(c);
        let next_is_digit = chars.peek().is_some_and(char::is_ascii_digit);
        if next_is_digit && (c == '#' || (c == '-' && out.ends_with("GH-"))) {
            out.push(ZWSP);
        }
    }
    out
}

/// Lines that the Actions runner would read as a command when echoed to the log (`::cmd`
/// after optional whitespace, or the legacy `##[cmd`) get an invisible space after their
/// first character.
pub fn defuse_workflow_commands(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for (i, line) in text.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let body = line.trim_start();
        let indent = &line[..line.len() - body.len()];
        if body.starts_with("::") || body.starts_with("##[") {
            out.push_str(indent);
            let mut rest = body.chars();
            if let Some(first) = rest.next() {
                out.push(first);
            }
            out.push(ZWSP);
            out.push_str(rest.as_str());
        } else {
            out.push_str(line);
        }
    }
    out
}

/// Every neutralisation that keeps the text's meaning: controls, mentions, references and
/// workflow commands. Markdown syntax is left as is (see [`inline`] and [`code_block`]).
pub fn neutralize(text: &str) -> String {
    defuse_workflow_commands(&defuse_references(&defuse_mentions(&strip_controls(text))))
}

/// Text for one line of markdown prose: neutralised, on one line, with markdown and HTML
/// syntax escaped so it renders as the literal text.
pub fn inline(text: &str) -> String {
    let flat: String = neutralize(text)
        .split(['\n', '\t'])
        .filter(|s| !s.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    let mut out = String::with_capacity(flat.len() + 8);
    for c in flat.chars() {
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            // Entities (`&#64;`) would otherwise be decoded into the text they hide.
            '&' => out.push_str("&amp;"),
            '\\' | '`' | '*' | '_' | '[' | ']' | '(' | ')' | '#' | '+' | '-' | '!' | '|' | '~'
            | '{' | '}' => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out
}

/// An issue title (not rendered as markdown): neutralised, on one line, at most
/// `max_chars` characters (GitHub allows 256).
pub fn title(text: &str, max_chars: usize) -> String {
    let flat = neutralize(text).replace(['\n', '\t'], " ");
    let (shown, cut) = first_chars(flat.trim(), max_chars.saturating_sub(1).max(1));
    let mut title = shown.to_owned();
    if cut {
        title.push('…');
    }
    title
}

/// A table cell: [`inline`] (which escapes `|`), at most `max_chars` characters of the
/// original text, with `…` when cut.
pub fn table_cell(text: &str, max_chars: usize) -> String {
    let (shown, cut) = first_chars(text, max_chars);
    let mut cell = inline(shown);
    if cut {
        cell.push('…');
    }
    if cell.is_empty() {
        cell.push(' ');
    }
    cell
}

/// Inline code (`` `x` ``): delimited by a backtick run longer than any inside, on one
/// line. `in_table` also escapes `|`, which GFM splits cells on even inside code.
pub fn code_span(text: &str, in_table: bool) -> String {
    let flat = neutralize(text).replace(['\n', '\t'], " ");
    let fence = "`".repeat(longest_backtick_run(&flat) + 1);
    let pad = if flat.starts_with('`') || flat.ends_with('`') || flat.is_empty() {
        " "
    } else {
        ""
    };
    let content = if in_table {
        flat.replace('|', "\\|")
    } else {
        flat
    };
    format!("{fence}{pad}{content}{pad}{fence}")
}

/// A fenced code block: neutralised text inside a backtick fence longer than any backtick
/// run in it, so nothing inside can close it. `info` is reduced to `[A-Za-z0-9_+-]`.
pub fn code_block(text: &str, info: &str) -> String {
    let body = neutralize(text);
    let body = body.trim_end_matches('\n');
    let fence = "`".repeat((longest_backtick_run(body) + 1).max(3));
    let info: String = info
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '+' | '-'))
        .collect();
    format!("{fence}{info}\n{body}\n{fence}\n")
}

fn longest_backtick_run(text: &str) -> usize {
    let mut longest = 0;
    let mut run = 0;
    for c in text.chars() {
        if c == '`' {
            run += 1;
            longest = longest.max(run);
        } else {
            run = 0;
        }
    }
    longest
}

fn first_chars(text: &str, max_chars: usize) -> (&str, bool) {
    match text.char_indices().nth(max_chars) {
        Some((at, _)) => (&text[..at], true),
        None => (text, false),
    }
}

/// How a limit is counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Measure {
    /// UTF-16 code units: never fewer than the characters GitHub counts, so a body within
    /// this limit is within GitHub's.
    Characters,
    /// UTF-8 bytes (step summaries).
    Bytes,
}

impl Measure {
    pub fn of(self, text: &str) -> usize {
        match self {
            Measure::Characters => text.encode_utf16().count(),
            Measure::Bytes => text.len(),
        }
    }

    fn of_char(self, c: char) -> usize {
        match self {
            Measure::Characters => c.len_utf16(),
            Measure::Bytes => c.len_utf8(),
        }
    }
}

/// Cuts markdown to `limit` (as `measure` counts), on a character boundary — at a line end
/// when one is near — closing a code fence or `<details>` left open, and saying so visibly.
pub fn truncate_markdown(text: &str, limit: usize, measure: Measure) -> Cow<'_, str> {
    if measure.of(text) <= limit {
        return Cow::Borrowed(text);
    }
    let note = "\n\n*(truncated by loopguard to fit GitHub's size limit)*\n";
    let mut budget = limit.saturating_sub(measure.of(note));
    loop {
        let cut = cut_point(text, budget, measure);
        let head = &text[..cut];
        let closers = closers_for(head);
        let total = measure.of(head) + measure.of(&closers) + measure.of(note);
        if total <= limit || cut == 0 {
            let mut out = String::with_capacity(head.len() + closers.len() + note.len());
            out.push_str(head);
            out.push_str(&closers);
            if measure.of(&out) + measure.of(note) <= limit {
                out.push_str(note);
            }
            return Cow::Owned(out);
        }
        budget = budget.saturating_sub(total - limit);
    }
}

/// The byte index to cut at so the head measures at most `budget`, preferring the end of a
/// line within the last 1,000 units.
fn cut_point(text: &str, budget: usize, measure: Measure) -> usize {
    let mut used = 0;
    let mut cut = 0;
    for (i, c) in text.char_indices() {
        let w = measure.of_char(c);
        if used + w > budget {
            break;
        }
        used += w;
        cut = i + c.len_utf8();
    }
    match text[..cut].rfind('\n') {
        Some(nl) if measure.of(&text[nl..cut]) <= 1_000 => nl + 1,
        _ => cut,
    }
}

/// What closes the fence and the `<details>` blocks open at the end of `head`.
fn closers_for(head: &str) -> String {
    let mut fence: Option<(char, usize)> = None;
    let mut details = 0usize;
    for line in head.lines() {
        let trimmed = line.trim_start();
        let indent = line.len() - trimmed.len();
        let marker = trimmed.chars().next().filter(|c| *c == '`' || *c == '~');
        let run = marker.map_or(0, |m| trimmed.chars().take_while(|c| *c == m).count());
        match (fence, marker) {
            (None, Some(m)) if run >= 3 && indent <= 3 => fence = Some((m, run)),
            (Some((open, len)), Some(m))
                if m == open && run >= len && trimmed[run..].trim().is_empty() =>
            {
                fence = None;
            }
            (None, _) => {
                let lower = trimmed.to_ascii_lowercase();
                if lower.starts_with("<details") {
                    details += 1;
                } else if lower.starts_with("</details") {
                    details = details.saturating_sub(1);
                }
            }
            _ => {}
        }
    }
    let mut closers = String::new();
    if let Some((c, len)) = fence {
        if !head.ends_with('\n') {
            closers.push('\n');
        }
        closers.extend(std::iter::repeat_n(c, len));
        closers.push('\n');
    }
    for _ in 0..details {
        closers.push_str("\n</details>\n");
    }
    closers
}

#[cfg(test)]
mod tests {
    use super::*;

    const Z: &str = "\u{200B}";

    #[test]
    fn neutralize_table() {
        let cases: &[(&str, String)] = &[
            ("::add-mask::x", format!(":{Z}:add-mask::x")),
            ("  ::error::boom", format!("  :{Z}:error::boom")),
            (
                "##[set-output name=a]b",
                format!("#{Z}#[set-output name=a]b"),
            ),
            ("ok :: not a command", "ok :: not a command".into()),
            (
                "cc @org/team and @user",
                format!("cc @{Z}org/team and @{Z}user"),
            ),
            ("(@user)", format!("(@{Z}user)")),
            ("mail a@b.com", "mail a@b.com".into()),
            ("@ alone", "@ alone".into()),
            (
                "fixes #12 and o/r#3, GH-9",
                format!("fixes #{Z}12 and o/r#{Z}3, GH-{Z}9"),
            ),
            ("\u{1b}[31mred\u{1b}[0m", "red".into()),
            ("a\r\nb\rc\u{0}d", "a\nb\ncd".into()),
            ("bidi\u{202E}txt", "biditxt".into()),
        ];
        for (input, want) in cases {
            assert_eq!(&neutralize(input), want, "{input:?}");
        }
    }

    #[test]
    fn terminal_text_shows_controls_and_starts_no_command() {
        let hostile = "job\n::error::x\r\u{1b}[2K\u{9b}2J\u{7f} \u{202e}gnp\n  ##[warning]y";
        let safe = terminal(hostile);
        assert_eq!(
            safe,
            format!("job\n:{Z}:error::x^M^[[2K\\u{{9b}}2J^? \\u{{202e}}gnp\n  #{Z}#[warning]y")
        );
        for line in safe.lines() {
            let body = line.trim_start();
            assert!(
                !body.starts_with("::") && !body.starts_with("##["),
                "{line}"
            );
            assert!(!line.chars().any(char::is_control), "{line:?}");
        }
        // Shown once is shown: a second pass changes nothing.
        assert_eq!(terminal(&safe), safe);
    }

    #[test]
    fn json_for_a_terminal_escapes_what_json_allows_raw() {
        let doc = serde_json::json!({"m": "a\u{1b}b\u{9b}c\u{7f}d\u{202e}e\u{2066}f é"});
        let text = doc.to_string();
        let safe = json_for_terminal(&text);
        assert_eq!(safe, r#"{"m":"a\u001bb\u009bc\u007fd\u202ee\u2066f é"}"#);
        let back: serde_json::Value = serde_json::from_str(&safe).unwrap();
        assert_eq!(back, doc, "the same document");
        assert!(matches!(json_for_terminal("{\"a\":1}"), Cow::Borrowed(_)));
    }

    #[test]
    fn inline_escapes_markdown_and_html() {
        let cases = [
            ("a | b", r"a \| b"),
            ("<img src=x onerror=1>", "&lt;img src=x onerror=1&gt;"),
            ("[click](https://evil)", r"\[click\]\(https://evil\)"),
            ("![img](x)", r"\!\[img\]\(x\)"),
            ("**bold** _it_ `code`", r"\*\*bold\*\* \_it\_ \`code\`"),
            ("line1\nline2", "line1 line2"),
            ("&#64;user", "&amp;\\#\u{200B}64;user"),
            ("# heading", r"\# heading"),
            (
                "<!-- loopguard:sticky -->",
                "&lt;\\!\\-\\- loopguard:sticky \\-\\-&gt;",
            ),
        ];
        for (input, want) in cases {
            assert_eq!(inline(input), want, "{input:?}");
        }
        assert_eq!(inline("@octocat"), format!("@{Z}octocat"));
    }

    #[test]
    fn titles_are_plain_and_bounded() {
        assert_eq!(
            title("stuck: @org/team\nfix #3", 256),
            format!("stuck: @{Z}org/team fix #{Z}3")
        );
        assert_eq!(title(&"x".repeat(300), 256).chars().count(), 256);
        assert_eq!(title("a|b *c*", 256), "a|b *c*");
    }

    #[test]
    fn table_cells_stay_in_their_cell() {
        assert_eq!(table_cell("x|y\nz", 80), r"x\|y z");
        assert_eq!(table_cell("abcdef", 3), "abc…");
        assert_eq!(table_cell("", 3), " ");
        assert_eq!(code_span("a|b", true), r"`a\|b`");
        assert_eq!(code_span("has `tick`", false), "`` has `tick` ``");
        assert_eq!(code_span("`x", false), "`` `x ``");
    }

    #[test]
    fn code_fence_outlasts_any_backticks_inside() {
        assert_eq!(code_block("plain", "text"), "```text\nplain\n```\n");
        let nasty = "before\n```\n## injected heading\n```````\nafter\n";
        let block = code_block(nasty, "");
        assert!(block.starts_with("````````\n"), "{block}");
        assert!(block.ends_with("\n````````\n"), "{block}");
        assert_eq!(code_block("x", "rust\n```evil"), "```rustevil\nx\n```\n");
        // Commands and mentions are inert inside too.
        let block = code_block("::add-mask::x\n@org/team", "");
        assert!(!block.contains("\n::add-mask"), "{block}");
        assert!(block.contains(&format!("@{Z}org/team")), "{block}");
    }

    #[test]
    fn truncation_respects_limits_boundaries_and_fences() {
        let short = "small";
        assert!(matches!(
            truncate_markdown(short, 100, Measure::Bytes),
            Cow::Borrowed(_)
        ));

        // Multi-byte characters are never split.
        let text = "é".repeat(1000);
        let cut = truncate_markdown(&text, 500, Measure::Bytes);
        assert!(cut.len() <= 500);
        assert!(cut.contains("truncated by loopguard"));

        // UTF-16 counting is conservative for astral characters.
        let text = "😀".repeat(1000);
        let cut = truncate_markdown(&text, 600, Measure::Characters);
        assert!(Measure::Characters.of(&cut) <= 600);

        // An open fence is closed before the note.
        let body = format!(
            "# title\n\n````\n{}\n````\ntail\n",
            "log line\n".repeat(100)
        );
        let cut = truncate_markdown(&body, 300, Measure::Characters);
        assert!(cut.len() <= 300);
        assert!(cut.contains("\n````\n\n\n*(truncated"), "{cut}");
        let fences = cut.lines().filter(|l| l.starts_with("````")).count();
        assert_eq!(fences, 2, "{cut}");

        // Open <details> are closed.
        let body = format!("<details>\n<summary>x</summary>\n\n{}", "row\n".repeat(200));
        let cut = truncate_markdown(&body, 200, Measure::Bytes);
        assert!(cut.contains("</details>"), "{cut}");

        // The comment limit itself.
        let huge = "x".repeat(COMMENT_LIMIT * 2);
        assert!(
            Measure::Characters.of(&truncate_markdown(
                &huge,
                COMMENT_LIMIT,
                Measure::Characters
            )) <= COMMENT_LIMIT
        );
    }
}
