//! A picture of the loop: per attempt, how many tests fail, whether the failure is new or
//! exactly the one before, whether the code changed, and where the breaker opened, was
//! resumed or closed — as a Unicode sparkline
//! (reads anywhere monospace text does: comments, issues, summaries, terminals) and as a
//! mermaid `xychart-beta` chart (GitHub renders mermaid in markdown, no JavaScript on the
//! reader's side and no outside images). Both come from the same [`Point`]s of one
//! [`Status`], and neither carries text from outside: labels are numbers and loopguard's
//! own marks, and whatever text a chart does carry goes through [`mermaid_text`].

use std::fmt::Write as _;

use super::{Failure, Status};
use crate::breaker::EventKind;

/// Attempts a picture shows: the newest ones.
pub const MAX_POINTS: usize = 60;

/// One attempt as the picture shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Point {
    /// 1-based attempt number.
    pub number: usize,
    pub tests: Tests,
    /// How its failure compares with the failure before it.
    pub failure: Option<Failure>,
    /// The code changed (a new tree).
    pub new_code: bool,
    /// The breaker opened here (a trip or a reopen).
    pub tripped: bool,
    /// A person let the agent try again right after it.
    pub resumed: bool,
    /// The breaker closed here (recovery, or progress after a resume).
    pub closed: bool,
}

/// What an attempt's tests said.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tests {
    /// No test evidence.
    Unknown,
    Pass,
    /// Failed; how many tests, when the log said.
    Fail(Option<u64>),
}

impl Point {
    /// Every mark of its column, the most telling first: what the breaker did here (it
    /// opened, a person resumed, it closed), then what the attempt did (a new failure, the
    /// same failure, new code). A trip and the resume right after it are both marks.
    pub fn marks(&self) -> Vec<Mark> {
        let mut marks = Vec::new();
        for (on, mark) in [
            (self.tripped, Mark::Trip),
            (self.resumed, Mark::Resume),
            (self.closed, Mark::Close),
        ] {
            if on {
                marks.push(mark);
            }
        }
        match self.failure {
            Some(Failure::New) => marks.push(Mark::NewFailure),
            Some(Failure::Same) => marks.push(Mark::SameFailure),
            None if self.new_code => marks.push(Mark::NewCode),
            None => {}
        }
        marks
    }

    /// The one mark of its column where only one fits (the sparkline): the most telling.
    pub fn mark(&self) -> Option<Mark> {
        self.marks().first().copied()
    }

    fn failing(&self) -> u64 {
        match self.tests {
            Tests::Fail(Some(n)) => n,
            // A failure whose count the log did not say still shows as one.
            Tests::Fail(None) => 1,
            Tests::Pass | Tests::Unknown => 0,
        }
    }
}

/// The marks under the sparkline (and in the chart's labels).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mark {
    Trip,
    Resume,
    Close,
    NewFailure,
    /// Failed exactly as the attempt before it did, whether the code changed or not.
    SameFailure,
    /// The code changed; the tests said nothing new (no run, or a pass).
    NewCode,
}

impl Mark {
    pub fn symbol(self) -> char {
        match self {
            Mark::Trip => '✖',
            Mark::Resume => '↺',
            Mark::Close => '✔',
            Mark::NewFailure => '◆',
            Mark::SameFailure => '=',
            Mark::NewCode => '+',
        }
    }

    pub fn meaning(self) -> &'static str {
        match self {
            Mark::Trip => "breaker opened",
            Mark::Resume => "resumed",
            Mark::Close => "breaker closed",
            Mark::NewFailure => "new failure",
            Mark::SameFailure => "same failure",
            Mark::NewCode => "new code",
        }
    }

    pub const ALL: [Mark; 6] = [
        Mark::NewFailure,
        Mark::SameFailure,
        Mark::NewCode,
        Mark::Trip,
        Mark::Resume,
        Mark::Close,
    ];
}

/// The attempts of a status as points, oldest first (all of them; renderers show the
/// newest [`MAX_POINTS`]).
pub fn points(s: &Status) -> Vec<Point> {
    s.rows
        .iter()
        .map(|r| {
            let tests = match &r.test {
                None => Tests::Unknown,
                Some(t) if t.passes() => Tests::Pass,
                Some(t) => Tests::Fail(t.failing),
            };
            let at_row = |kinds: &[EventKind]| {
                s.transitions
                    .iter()
                    .any(|e| kinds.contains(&e.kind) && e.iteration.as_ref() == Some(&r.id))
            };
            Point {
                number: r.number,
                tests,
                failure: r.failure,
                new_code: r.new_code,
                tripped: at_row(&[EventKind::Trip, EventKind::Reopen]),
                resumed: at_row(&[EventKind::Resume, EventKind::Cooldown]),
                closed: at_row(&[EventKind::Close]),
            }
        })
        .collect()
}

fn newest(points: &[Point]) -> &[Point] {
    &points[points.len().saturating_sub(MAX_POINTS)..]
}

const BARS: [char; 8] = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];

/// The bar of one attempt: `✓` pass, `·` no evidence, `▁`…`█` failing tests scaled to the
/// most in the picture.
fn bar(p: &Point, max: u64) -> char {
    match p.tests {
        Tests::Unknown => '·',
        Tests::Pass => '✓',
        Tests::Fail(_) => {
            let n = p.failing().max(1);
            let level = (n * BARS.len() as u64).div_ceil(max.max(1)).clamp(1, 8);
            BARS[level as usize - 1]
        }
    }
}

/// The sparkline: a row of bars, a row of marks under them, the attempt numbers at both
/// ends, and a legend of what appears. Plain text for a code block or a terminal; empty
/// when there are no attempts.
pub fn sparkline(points: &[Point]) -> String {
    let shown = newest(points);
    if shown.is_empty() {
        return String::new();
    }
    let max = shown.iter().map(Point::failing).max().unwrap_or(0);
    let cut = if shown.len() < points.len() {
        "…"
    } else {
        ""
    };
    let bars: String = shown.iter().map(|p| bar(p, max)).collect();
    let marks: String = shown
        .iter()
        .map(|p| p.mark().map_or(' ', Mark::symbol))
        .collect();
    let first = shown[0].number.to_string();
    let last = shown[shown.len() - 1].number.to_string();
    let width = shown.len();
    let axis = if shown.len() == 1 {
        first
    } else if first.len() + last.len() < width {
        format!(
            "{first}{}{last}",
            " ".repeat(width - first.len() - last.len())
        )
    } else {
        format!("{first}–{last}")
    };
    let pad = if cut.is_empty() { "" } else { " " };
    let mut out = String::new();
    let _ = writeln!(out, "tests    {cut}{bars}");
    let _ = writeln!(out, "events   {pad}{}", marks.trim_end());
    let _ = writeln!(out, "attempt  {pad}{axis}");
    let _ = writeln!(out, "{}", legend(shown, max));
    out
}

fn legend(shown: &[Point], max: u64) -> String {
    let mut parts = Vec::new();
    if shown.iter().any(|p| matches!(p.tests, Tests::Fail(_))) {
        parts.push(format!("▁…█ failing tests (█ = {max})"));
    }
    if shown.iter().any(|p| p.tests == Tests::Pass) {
        parts.push("✓ pass".to_owned());
    }
    if shown.iter().any(|p| p.tests == Tests::Unknown) {
        parts.push("· no test run".to_owned());
    }
    for m in Mark::ALL {
        if shown.iter().any(|p| p.mark() == Some(m)) {
            parts.push(format!("{} {}", m.symbol(), m.meaning()));
        }
    }
    parts.join(" · ")
}

/// The sparkline as a markdown code block (empty when there are no attempts).
pub fn sparkline_block(points: &[Point]) -> String {
    let text = sparkline(points);
    if text.is_empty() {
        return String::new();
    }
    format!("```text\n{text}```\n")
}

/// Text for a mermaid label or title, in double quotes: nothing in it can end the string,
/// start a comment (`%%`), a directive (`%%{`), an entity or a new statement. Quotes,
/// brackets, braces, `%`, `#`, `;`, `:` `<`, `>`, `&` and backticks are dropped or
/// replaced, and so is every control character and line break; at most `max_chars`.
pub fn mermaid_text(text: &str, max_chars: usize) -> String {
    let mut out = String::new();
    for c in text.chars() {
        if out.chars().count() >= max_chars {
            out.push('…');
            break;
        }
        let c = match c {
            '"' | '`' => '\'',
            '[' | '{' | '<' => '(',
            ']' | '}' | '>' => ')',
            '%' | '#' | ';' | ':' | '&' | '\\' => ' ',
            c if c.is_control() || c == '\u{2028}' || c == '\u{2029}' => ' ',
            c => c,
        };
        if c == ' ' && out.ends_with(' ') {
            continue;
        }
        out.push(c);
    }
    out.trim().to_owned()
}

/// The chart: failing tests per attempt as bars, each attempt's label carrying its mark.
/// A fenced `mermaid` block (empty when there are no attempts).
pub fn mermaid(points: &[Point], title: &str) -> String {
    let shown = newest(points);
    if shown.is_empty() {
        return String::new();
    }
    let labels: Vec<String> = shown
        .iter()
        .map(|p| {
            let marks: String = p.marks().iter().map(|m| m.symbol()).collect();
            if marks.is_empty() {
                format!("\"{}\"", p.number)
            } else {
                format!("\"{} {marks}\"", p.number)
            }
        })
        .collect();
    let values: Vec<String> = shown.iter().map(|p| p.failing().to_string()).collect();
    let max = shown.iter().map(Point::failing).max().unwrap_or(0).max(1);
    let mut out = String::from("```mermaid\nxychart-beta\n");
    let _ = writeln!(out, "  title \"{}\"", mermaid_text(title, 200));
    let _ = writeln!(out, "  x-axis \"attempt\" [{}]", labels.join(", "));
    let _ = writeln!(out, "  y-axis \"failing tests\" 0 --> {max}");
    let _ = writeln!(out, "  bar [{}]", values.join(", "));
    out.push_str("```\n");
    out
}

/// The chart's title for a status: what the marks mean, and the rule when it tripped.
pub fn chart_title(s: &Status) -> String {
    let points = points(s);
    let marks: Vec<String> = Mark::ALL
        .iter()
        .filter(|m| points.iter().any(|p| p.marks().contains(m)))
        .map(|m| format!("{} {}", m.symbol(), m.meaning()))
        .collect();
    let mut title = String::from("Failing tests per attempt");
    if let Some(rule) = s.rule {
        let _ = write!(title, ", stuck on {rule}");
    }
    if !marks.is_empty() {
        let _ = write!(title, " ({})", marks.join(", "));
    }
    title
}

/// Both pictures for markdown: the sparkline, then the chart folded under it. Empty when
/// there are no attempts.
pub fn markdown(s: &Status) -> String {
    let p = points(s);
    if p.is_empty() {
        return String::new();
    }
    format!(
        "{}\n<details><summary>Chart</summary>\n\n{}\n</details>\n",
        sparkline_block(&p),
        mermaid(&p, &chart_title(s))
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(number: usize, tests: Tests) -> Point {
        Point {
            number,
            tests,
            failure: None,
            new_code: false,
            tripped: false,
            resumed: false,
            closed: false,
        }
    }

    #[test]
    fn bars_scale_to_the_most_failing() {
        let cases = [
            (Tests::Fail(Some(8)), 8, '█'),
            (Tests::Fail(Some(1)), 8, '▁'),
            (Tests::Fail(Some(4)), 8, '▄'),
            (Tests::Fail(Some(3)), 3, '█'),
            (Tests::Fail(None), 0, '█'),
            (Tests::Fail(None), 4, '▂'),
            (Tests::Pass, 4, '✓'),
            (Tests::Unknown, 4, '·'),
        ];
        for (tests, max, want) in cases {
            assert_eq!(bar(&p(1, tests), max), want, "{tests:?} of {max}");
        }
    }

    #[test]
    fn one_mark_per_column_the_trip_first() {
        let mut x = p(1, Tests::Fail(Some(1)));
        assert_eq!(x.mark(), None);
        x.new_code = true;
        assert_eq!(x.mark(), Some(Mark::NewCode));
        x.failure = Some(Failure::Same);
        assert_eq!(x.mark(), Some(Mark::SameFailure), "the tests say more");
        x.failure = Some(Failure::New);
        assert_eq!(x.mark(), Some(Mark::NewFailure));
        x.closed = true;
        assert_eq!(x.mark(), Some(Mark::Close));
        x.resumed = true;
        assert_eq!(x.mark(), Some(Mark::Resume));
        x.tripped = true;
        assert_eq!(x.mark(), Some(Mark::Trip));
    }

    #[test]
    fn the_sparkline_lines_up_bars_marks_and_numbers() {
        let mut pts: Vec<Point> = (1..=5).map(|n| p(n, Tests::Fail(Some(2)))).collect();
        pts[0].failure = Some(Failure::New);
        pts[1].failure = Some(Failure::Same);
        pts[2].tripped = true;
        pts[4].tests = Tests::Pass;
        pts[4].closed = true;
        let text = sparkline(&pts);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "tests    ████✓");
        assert_eq!(lines[1], "events   ◆=✖ ✔");
        assert_eq!(lines[2], "attempt  1   5");
        assert_eq!(
            lines[3],
            "▁…█ failing tests (█ = 2) · ✓ pass · ◆ new failure · = same failure · ✖ breaker opened · ✔ breaker closed"
        );
        assert_eq!(sparkline(&[]), "");
    }

    #[test]
    fn long_runs_show_the_newest_attempts() {
        let pts: Vec<Point> = (1..=100).map(|n| p(n, Tests::Unknown)).collect();
        let text = sparkline(&pts);
        let first = text.lines().next().unwrap();
        assert_eq!(first.chars().filter(|c| *c == '·').count(), MAX_POINTS);
        assert!(first.contains('…'));
        assert!(text.lines().nth(2).unwrap().contains("41"), "{text}");
        assert!(text.lines().nth(2).unwrap().ends_with("100"), "{text}");
    }

    #[test]
    fn mermaid_text_cannot_break_out() {
        let cases = [
            ("plain words", "plain words"),
            ("say \"hi\"", "say 'hi'"),
            (
                "%%{init: {\"theme\":\"dark\"}}%%",
                "(init ('theme' 'dark'))",
            ),
            ("a\nbar [9, 9]", "a bar (9, 9)"),
            ("x]; title \"pwned", "x) title 'pwned"),
            ("<img src=x>&amp;", "(img src=x) amp"),
            ("`code` #1", "'code' 1"),
        ];
        for (input, want) in cases {
            assert_eq!(mermaid_text(input, 100), want, "{input:?}");
        }
        assert_eq!(
            mermaid_text(&"x".repeat(50), 10),
            format!("{}…", "x".repeat(10))
        );
    }

    #[test]
    fn the_chart_is_one_bar_per_attempt_with_marks_in_the_labels() {
        let mut pts = vec![
            p(1, Tests::Fail(Some(3))),
            p(2, Tests::Unknown),
            p(3, Tests::Pass),
        ];
        pts[0].failure = Some(Failure::New);
        pts[2].new_code = true;
        let chart = mermaid(&pts, "t \"x\"");
        assert_eq!(
            chart,
            "```mermaid\nxychart-beta\n  title \"t 'x'\"\n  x-axis \"attempt\" [\"1 ◆\", \"2\", \"3 +\"]\n  y-axis \"failing tests\" 0 --> 3\n  bar [3, 0, 0]\n```\n"
        );
        assert_eq!(mermaid(&[], "t"), "");
    }
}
