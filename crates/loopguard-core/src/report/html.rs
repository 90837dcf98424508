//! `loopguard report --html`: one self-contained page for a local run — what the markdown
//! report says (the status and the ways out, the failure, the counters with their limits,
//! the iterations, the breaker's events) and the picture of the loop as inline SVG. Inline
//! CSS, no script, no font, image or stylesheet from anywhere: it opens the same from a
//! file, a mail attachment or an artifact. Every text from outside goes through [`escape`].

use std::fmt::Write as _;

use super::picture::{self, Mark, Point, Tests};
use super::{Row, Status, markdown};
use crate::breaker::{EventKind, State};
use crate::iteration::TestEvidence;

/// Text for HTML (element content and double-quoted attributes): `&`, `<`, `>`, `"` and
/// `'` as entities, control characters dropped, bidi overrides and isolates shown
/// (`\u{202e}`) rather than reordering the text around them.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            '\n' | '\t' => out.push(' '),
            '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out
}

const STYLE: &str = "body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;margin:2rem auto;max-width:72rem;padding:0 1rem;color:#1f2328}\
h1{font-size:1.4rem}h2{font-size:1.1rem;margin-top:2rem}\
.state{display:inline-block;padding:.1rem .5rem;border-radius:1rem;color:#fff;font-weight:600}\
.open{background:#cf222e}.half_open{background:#9a6700}.closed{background:#1a7f37}\
dl{display:grid;grid-template-columns:max-content auto;gap:.2rem 1rem}dt{font-weight:600}dd{margin:0}\
table{border-collapse:collapse;width:100%}th,td{border:1px solid #d0d7de;padding:.25rem .5rem;text-align:left;vertical-align:top}\
th{background:#f6f8fa}td.n{text-align:right}code{font:12px ui-monospace,SFMono-Regular,Menlo,monospace}\
tr.trip td{background:#ffebe9}tr.fixed td{background:#dafbe1}\
svg{max-width:100%;height:auto}svg text{font:12px ui-monospace,monospace;fill:#57606a}svg text.mark{font-size:16px}\
.legend span{margin-right:1rem}";

/// The page: what the markdown report says — the facts and the ways out, the failure,
/// the picture of the loop, the counters with their limits, the iterations and the
/// breaker's events — as one page.
pub fn page(s: &Status) -> String {
    let title = match (&s.run, &s.branch) {
        (Some(run), _) => format!("loopguard report — {}", escape(run)),
        (None, Some(b)) => format!("loopguard report — {}", escape(b)),
        _ => "loopguard report".to_owned(),
    };
    let mut h = String::new();
    let _ = write!(
        h,
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\
         <title>{title}</title><style>{STYLE}</style></head>\n<body>\n<h1>{title}</h1>\n"
    );
    h.push_str(&facts(s));
    h.push_str(&failures(s));
    let points = picture::points(s);
    if !points.is_empty() {
        h.push_str("<h2>The loop</h2>\n");
        h.push_str(&svg(&points));
        h.push_str(&legend(&points));
    }
    h.push_str(&counters(s));
    h.push_str(&warnings(s));
    h.push_str(&edges(s));
    h.push_str(&iterations(s, &points));
    h.push_str(&events(s));
    h.push_str("</body></html>\n");
    h
}

/// Loopguard's own sentence with `command` spans, as HTML.
fn with_code(text: &str) -> String {
    escape(text)
        .split('`')
        .enumerate()
        .map(|(i, part)| {
            if i % 2 == 1 {
                format!("<code>{part}</code>")
            } else {
                part.to_owned()
            }
        })
        .collect()
}

fn facts(s: &Status) -> String {
    let mut h = String::from("<dl>\n");
    let state = s.state.as_str();
    let _ = writeln!(
        h,
        "<dt>Breaker</dt><dd><span class=\"state {state}\">{state}</span></dd>"
    );
    let _ = writeln!(h, "<dt>Status</dt><dd>{}</dd>", escape(&s.run_status()));
    if let Some(run) = &s.run {
        let _ = writeln!(h, "<dt>Run</dt><dd><code>{}</code></dd>", escape(run));
    }
    if let Some(b) = &s.branch {
        let _ = writeln!(h, "<dt>Branch</dt><dd><code>{}</code></dd>", escape(b));
    }
    let _ = writeln!(h, "<dt>Profile</dt><dd>{}</dd>", s.profile);
    let _ = writeln!(h, "<dt>{}</dt><dd>{}</dd>", s.unit.heading(), s.iterations);
    if s.trips > 0 {
        let _ = writeln!(h, "<dt>Trips</dt><dd>{}</dd>", s.trips);
    }
    if let Some(m) = &s.next_model {
        let last = if s.last_model {
            " (the last of <code>escalation.models</code>)"
        } else {
            ""
        };
        let _ = writeln!(h, "<dt>Model</dt><dd>{}{last}</dd>", escape(m));
    }
    if let (Some(rule), Some(reason)) = (s.rule, &s.reason) {
        let _ = writeln!(
            h,
            "<dt>Stop reason</dt><dd><code>{rule}</code>: {}</dd>",
            escape(reason)
        );
    }
    let next = s.next();
    if let Some(next) = &next {
        let _ = writeln!(h, "<dt>Now</dt><dd>{}</dd>", with_code(&next.now));
    }
    h.push_str("</dl>\n");
    if let Some(next) = next.filter(|n| !n.ways.is_empty()) {
        h.push_str("<h2>Ways out</h2>\n<ul>\n");
        for way in &next.ways {
            let _ = writeln!(h, "<li>{}</li>", with_code(way));
        }
        h.push_str("</ul>\n");
    }
    h
}

/// The failure that loops (or the newest one), and the last test run.
fn failures(s: &Status) -> String {
    let mut h = String::new();
    let mut section = |heading: &str, t: &TestEvidence| {
        let _ = writeln!(h, "<h2>{heading}</h2>\n<dl>");
        let outcome = if t.passes() { "pass" } else { "fail" };
        let _ = writeln!(h, "<dt>Outcome</dt><dd>{outcome}</dd>");
        if let Some(sig) = &t.signature {
            let _ = writeln!(
                h,
                "<dt>Signature</dt><dd><code>{}</code></dd>",
                escape(sig.short())
            );
        }
        if let Some(e) = &t.first_error {
            let _ = writeln!(h, "<dt>First error</dt><dd><code>{}</code></dd>", escape(e));
        }
        if let Some(f) = t.failures.as_ref().filter(|f| !f.is_empty()) {
            let ids: Vec<String> = f
                .iter()
                .take(10)
                .map(|id| format!("<code>{}</code>", escape(id)))
                .collect();
            let _ = writeln!(h, "<dt>Failing</dt><dd>{}</dd>", ids.join(", "));
        }
        if let Some(c) = &t.command {
            let _ = writeln!(h, "<dt>Command</dt><dd><code>{}</code></dd>", escape(c));
        }
        h.push_str("</dl>\n");
    };
    if let Some(t) = &s.looping_failure {
        section("The looping failure", t);
    }
    if let Some(t) = s
        .last_test
        .as_ref()
        .filter(|t| Some(*t) != s.looping_failure.as_ref())
    {
        section("Last test run", t);
    }
    h
}

/// Geometry of the chart, in pixels: the plot is at least [`MIN_PLOT_W`] wide however few
/// the attempts, each attempt gets a slot of at least [`MIN_SLOT`], a bar at most
/// [`MAX_BAR`] wide.
const MIN_PLOT_W: usize = 560;
const MIN_SLOT: usize = 18;
const MAX_BAR: usize = 36;
const PLOT_H: usize = 160;
const TOP: usize = 34;
const LEFT: usize = 56;
const RIGHT: usize = 16;
const BOTTOM: usize = 44;

/// The chart as inline SVG: a bar per attempt (failing tests), a tick for a pass, every
/// mark of an attempt above its bar (a trip and the resume after it both show), the
/// attempt numbers under the bars and both axes named.
pub fn svg(points: &[Point]) -> String {
    let shown = &points[points.len().saturating_sub(picture::MAX_POINTS)..];
    let max = shown
        .iter()
        .map(|p| match p.tests {
            Tests::Fail(n) => n.unwrap_or(1).max(1),
            Tests::Unknown | Tests::Pass => 0,
        })
        .max()
        .unwrap_or(0)
        .max(1);
    let n = shown.len().max(1);
    let slot = (MIN_PLOT_W / n).max(MIN_SLOT);
    let bar_w = (slot * 2 / 3).clamp(8, MAX_BAR);
    let plot_w = slot * n;
    let width = LEFT + plot_w + RIGHT;
    let height = TOP + PLOT_H + BOTTOM;
    let base = TOP + PLOT_H;
    let mut h = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" viewBox=\"0 0 {width} {height}\" role=\"img\" aria-label=\"failing tests per attempt\">\n"
    );
    // The axes, a grid line at the top value and half way, and their names.
    let mut ticks = vec![(0, base), (max, TOP)];
    if max >= 2 {
        ticks.push((max / 2, base - (max / 2) as usize * PLOT_H / max as usize));
    }
    for (value, y) in ticks {
        let _ = writeln!(
            h,
            "<line x1=\"{LEFT}\" y1=\"{y}\" x2=\"{}\" y2=\"{y}\" stroke=\"{}\"/><text x=\"{}\" y=\"{}\" text-anchor=\"end\">{value}</text>",
            LEFT + plot_w,
            if value == 0 { "#8c959f" } else { "#eaeef2" },
            LEFT - 6,
            y + 4
        );
    }
    let _ = writeln!(
        h,
        "<text x=\"14\" y=\"{}\" text-anchor=\"middle\" transform=\"rotate(-90 14 {})\">failing tests</text>\
         <text x=\"{}\" y=\"{}\" text-anchor=\"middle\">attempt</text>",
        TOP + PLOT_H / 2,
        TOP + PLOT_H / 2,
        LEFT + plot_w / 2,
        height - 6
    );
    // Numbers under every bar while they fit, else every fifth (and the ends).
    let every = if slot >= 24 { 1 } else { 5 };
    for (i, p) in shown.iter().enumerate() {
        let cx = LEFT + i * slot + slot / 2;
        svg_bar(&mut h, p, cx, bar_w, max);
        svg_marks(&mut h, p, cx, slot);
        if every == 1 || p.number % every == 0 || i == 0 || i + 1 == shown.len() {
            let _ = writeln!(
                h,
                "<text x=\"{cx}\" y=\"{}\" text-anchor=\"middle\">{}</text>",
                base + 16,
                p.number
            );
        }
    }
    h.push_str("</svg>\n");
    h
}

/// The bar of attempt `p` centred at `cx` (`max`: the top of the scale), or its mark when
/// it passed or ran no tests.
fn svg_bar(h: &mut String, p: &Point, cx: usize, bar_w: usize, max: u64) {
    let base = TOP + PLOT_H;
    match p.tests {
        Tests::Fail(count) => {
            let count = count.unwrap_or(1).max(1);
            let bh = ((count as usize * PLOT_H) / max as usize).max(3);
            let _ = writeln!(
                h,
                "<rect x=\"{}\" y=\"{}\" width=\"{bar_w}\" height=\"{bh}\" fill=\"#cf222e\"><title>attempt {}: {count} failing</title></rect>",
                cx - bar_w / 2,
                base - bh,
                p.number
            );
        }
        Tests::Pass => {
            let _ = writeln!(
                h,
                "<text x=\"{cx}\" y=\"{}\" text-anchor=\"middle\" class=\"mark\" style=\"fill:#1a7f37\">✓<title>attempt {}: pass</title></text>",
                base - 5,
                p.number
            );
        }
        Tests::Unknown => {
            let _ = writeln!(
                h,
                "<text x=\"{cx}\" y=\"{}\" text-anchor=\"middle\">·<title>attempt {}: no test run</title></text>",
                base - 5,
                p.number
            );
        }
    }
}

/// The marks of attempt `p` above its bar, spread over its slot.
fn svg_marks(h: &mut String, p: &Point, cx: usize, slot: usize) {
    let marks = p.marks();
    let step = (slot / marks.len().max(1)).min(15);
    let first = cx as isize - ((marks.len().saturating_sub(1) * step) / 2) as isize;
    for (k, m) in marks.iter().enumerate() {
        let _ = writeln!(
            h,
            "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" class=\"mark\" style=\"fill:{}\">{}<title>attempt {}: {}</title></text>",
            first + (k * step) as isize,
            TOP - 12,
            color(*m),
            m.symbol(),
            p.number,
            m.meaning()
        );
    }
}

fn color(m: Mark) -> &'static str {
    match m {
        Mark::Trip => "#cf222e",
        Mark::Resume => "#9a6700",
        Mark::Close => "#1a7f37",
        Mark::NewFailure => "#8250df",
        Mark::SameFailure => "#bc4c00",
        Mark::NewCode => "#0969da",
    }
}

fn legend(points: &[Point]) -> String {
    let mut h = String::from("<p class=\"legend\"><span>bars: failing tests</span>");
    if points.iter().any(|p| p.tests == Tests::Pass) {
        h.push_str("<span><b style=\"color:#1a7f37\">✓</b> pass</span>");
    }
    if points.iter().any(|p| p.tests == Tests::Unknown) {
        h.push_str("<span>· no test run</span>");
    }
    for m in Mark::ALL {
        if points.iter().any(|p| p.marks().contains(&m)) {
            let _ = write!(
                h,
                "<span><b style=\"color:{}\">{}</b> {}</span>",
                color(m),
                m.symbol(),
                m.meaning()
            );
        }
    }
    h.push_str("</p>\n");
    h
}

fn counters(s: &Status) -> String {
    let mut h = String::from(
        "<h2>Counters</h2>\n<table><tr><th>rule</th><th>count</th><th>limit</th><th>action</th></tr>\n",
    );
    for (rule, c) in &s.counters {
        let action = s.actions.get(rule).map(|a| a.as_str()).unwrap_or_default();
        // The chart's own trip mark: it renders without an emoji font.
        let flag = if Some(*rule) == s.rule && s.state != State::Closed {
            " <b style=\"color:#cf222e\" title=\"tripped\">✖</b>"
        } else {
            ""
        };
        let _ = writeln!(
            h,
            "<tr><td><code>{rule}</code>{flag}</td><td class=\"n\">{}</td><td>{}</td><td>{action}</td></tr>",
            c.count,
            escape(&markdown::limit(c))
        );
    }
    h.push_str("</table>\n");
    h
}

/// The harness's edges with their latest reasons (see [`super::text::edges`]).
fn edges(s: &Status) -> String {
    let Some(edges) = s.edges.as_deref().filter(|e| !e.is_empty()) else {
        return String::new();
    };
    let mut h = String::from("<h2>Edges</h2>\n<ul>\n");
    for e in edges {
        let _ = write!(
            h,
            "<li><strong>{}</strong>: {} without progress",
            escape(&e.edge),
            super::text::taken(e.count, s.unit)
        );
        if !e.reasons.is_empty() {
            h.push_str("<ul>");
            for r in &e.reasons {
                let _ = write!(h, "<li>{}</li>", escape(r));
            }
            h.push_str("</ul>");
        }
        h.push_str("</li>\n");
    }
    h.push_str("</ul>\n");
    h
}

fn warnings(s: &Status) -> String {
    let near = s.near_warnings();
    if near.is_empty() && s.warnings.is_empty() && s.notes.is_empty() {
        return String::new();
    }
    let mut h = String::from("<h2>Warnings and notes</h2>\n<ul>\n");
    for w in &near {
        let _ = writeln!(
            h,
            "<li><strong>{}</strong>: {}</li>",
            w.rule,
            w.says(escape)
        );
    }
    for w in &s.warnings {
        let _ = writeln!(
            h,
            "<li><strong>{}</strong>: {}</li>",
            w.rule,
            escape(&w.reason)
        );
    }
    for n in &s.notes {
        let _ = writeln!(
            h,
            "<li><strong>{}</strong>: {}</li>",
            n.rule,
            escape(&n.text)
        );
    }
    h.push_str("</ul>\n");
    h
}

fn iterations(s: &Status, points: &[Point]) -> String {
    if s.rows.is_empty() {
        return format!(
            "<h2>{}</h2>\n<p>{}</p>\n",
            s.unit.heading(),
            s.unit.none_yet()
        );
    }
    let mut h = format!(
        "<h2>{}</h2>\n<table><tr><th>#</th><th>{}</th><th>subject</th><th>files</th><th>+/-</th><th>tests</th><th>notes</th><th>breaker</th></tr>\n",
        s.unit.heading(),
        s.unit.id_column()
    );
    for (r, p) in s.rows.iter().zip(points) {
        let class = if p.tripped {
            " class=\"trip\""
        } else if r.fixed {
            " class=\"fixed\""
        } else {
            ""
        };
        let _ = writeln!(
            h,
            "<tr{class}><td class=\"n\">{}</td><td><code>{}</code></td><td>{}</td><td class=\"n\">{}</td><td>+{}/-{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            r.number,
            escape(r.id.short()),
            escape(&r.subject),
            r.files,
            r.added,
            r.deleted,
            tests(r),
            escape(&r.notes.join(", ")),
            breaker(s, r)
        );
    }
    h.push_str("</table>\n");
    h
}

/// What the breaker did at an attempt, in words.
fn breaker(s: &Status, r: &Row) -> String {
    let words: Vec<String> = s
        .transitions
        .iter()
        .filter(|e| s.attempt_of(e) == Some(r.number))
        .map(|e| {
            let what = match e.kind {
                EventKind::Trip | EventKind::Reopen => "opened",
                EventKind::Resume => "resumed",
                EventKind::Cooldown => "half-open (cooldown)",
                EventKind::Close => "closed",
                EventKind::Escalate => "escalated",
                EventKind::Finish => "finished",
                EventKind::Reset => "reset",
                EventKind::Episode => "a new episode (a person's turn)",
                EventKind::Warn | EventKind::ConfigIgnored => "",
            };
            match (e.kind.opens(), e.rule) {
                (true, Some(rule)) => format!("{what} (<code>{rule}</code>)"),
                _ => what.to_owned(),
            }
        })
        .filter(|w| !w.is_empty())
        .collect();
    words.join(", ")
}

/// The breaker's events, oldest first.
fn events(s: &Status) -> String {
    if s.transitions.is_empty() {
        return String::new();
    }
    let mut h = String::from(
        "<h2>Breaker events</h2>\n<table><tr><th>time</th><th>attempt</th><th>event</th><th>from</th><th>to</th><th>rule</th><th>reason</th></tr>\n",
    );
    for e in &s.transitions {
        let _ = writeln!(
            h,
            "<tr><td>{}</td><td class=\"n\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            e.at.strftime("%Y-%m-%d %H:%M:%S"),
            s.attempt_of(e).map(|n| n.to_string()).unwrap_or_default(),
            e.kind.as_str(),
            e.from,
            e.to,
            e.rule
                .map(|r| format!("<code>{r}</code>"))
                .unwrap_or_default(),
            escape(e.reason.as_deref().unwrap_or(""))
        );
    }
    h.push_str("</table>\n");
    h
}

fn tests(r: &Row) -> String {
    match &r.test {
        None => "–".to_owned(),
        Some(t) if t.passes() => "pass".to_owned(),
        Some(t) => {
            let mut out = match t.failing {
                Some(n) => format!("fail ({n})"),
                None => "fail".to_owned(),
            };
            if let Some(sig) = &t.signature {
                let _ = write!(
                    out,
                    " <code>{}</code>",
                    escape(crate::ids::prefix_chars(sig.as_str(), 8))
                );
            }
            out
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(number: usize) -> Point {
        Point {
            number,
            tests: Tests::Fail(Some(1)),
            failure: None,
            new_code: false,
            tripped: false,
            resumed: false,
            closed: false,
        }
    }

    fn width(svg: &str) -> usize {
        let w = svg
            .split("width=\"")
            .nth(1)
            .and_then(|r| r.split('"').next());
        w.and_then(|w| w.parse().ok()).expect("a width")
    }

    #[test]
    fn a_few_attempts_get_a_readable_chart_and_many_get_room() {
        let three: Vec<Point> = (1..=3).map(point).collect();
        assert!(width(&svg(&three)) >= LEFT + MIN_PLOT_W, "{}", svg(&three));
        let sixty: Vec<Point> = (1..=60).map(point).collect();
        assert!(width(&svg(&sixty)) >= LEFT + 60 * MIN_SLOT);
    }

    #[test]
    fn a_trip_and_the_resume_after_it_are_both_marked() {
        let mut p = point(3);
        p.tripped = true;
        p.resumed = true;
        p.failure = Some(super::super::Failure::Same);
        let chart = svg(&[p]);
        for mark in [
            "✖<title>attempt 3: breaker opened",
            "↺<title>attempt 3: resumed",
            "=<title>attempt 3: same failure",
        ] {
            assert!(chart.contains(mark), "{mark}: {chart}");
        }
    }

    #[test]
    fn escaping_leaves_no_markup() {
        assert_eq!(
            escape("<script>alert('x')</script> & \"q\"\u{7}"),
            "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;q&quot;"
        );
        assert_eq!(
            escape("fix-\u{202e}gnp.exe\u{2066}"),
            "fix-\\u{202e}gnp.exe\\u{2066}"
        );
    }
}
