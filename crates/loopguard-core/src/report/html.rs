//! `loopguard report --html`: one self-contained page for a local run — the status, the
//! picture of the loop as inline SVG, the counters and the iteration table. Inline CSS, no
//! script, no font, image or stylesheet from anywhere: it opens the same from a file, a
//! mail attachment or an artifact. Every text from outside goes through [`escape`].

use std::fmt::Write as _;

use super::picture::{self, Mark, Point, Tests};
use super::{Row, Status};
use crate::breaker::State;

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
svg{max-width:100%;height:auto}svg text{font:11px ui-monospace,monospace;fill:#57606a}\
.legend span{margin-right:1rem}";

/// The page.
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
    let points = picture::points(s);
    if !points.is_empty() {
        h.push_str("<h2>The loop</h2>\n");
        h.push_str(&svg(&points));
        h.push_str(&legend(&points));
    }
    h.push_str(&counters(s));
    h.push_str(&iterations(s, &points));
    h.push_str("</body></html>\n");
    h
}

fn facts(s: &Status) -> String {
    let mut h = String::from("<dl>\n");
    let state = s.state.as_str();
    let _ = writeln!(
        h,
        "<dt>Breaker</dt><dd><span class=\"state {state}\">{state}</span></dd>"
    );
    let _ = writeln!(h, "<dt>Status</dt><dd>{}</dd>", escape(&s.run_status()));
    if let Some(b) = &s.branch {
        let _ = writeln!(h, "<dt>Branch</dt><dd><code>{}</code></dd>", escape(b));
    }
    let _ = writeln!(h, "<dt>Profile</dt><dd>{}</dd>", s.profile);
    let _ = writeln!(h, "<dt>Iterations</dt><dd>{}</dd>", s.iterations);
    if let (Some(rule), Some(reason)) = (s.rule, &s.reason) {
        let _ = writeln!(
            h,
            "<dt>Stop reason</dt><dd><code>{rule}</code>: {}</dd>",
            escape(reason)
        );
    }
    if let Some(t) = s.looping_failure.as_ref().or(s.last_test.as_ref()) {
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
    }
    h.push_str("</dl>\n");
    h
}

/// Geometry of the chart.
const BAR_W: usize = 14;
const GAP: usize = 4;
const PLOT_H: usize = 120;
const TOP: usize = 22;
const LEFT: usize = 40;

/// The chart as inline SVG: a bar per attempt (failing tests), a tick for a pass, the
/// marks above the bars, the attempt numbers under them.
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
    let width = LEFT + shown.len() * (BAR_W + GAP) + GAP;
    let height = TOP + PLOT_H + 34;
    let base = TOP + PLOT_H;
    let mut h = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" viewBox=\"0 0 {width} {height}\" role=\"img\" aria-label=\"failing tests per attempt\">\n"
    );
    let _ = writeln!(
        h,
        "<line x1=\"{LEFT}\" y1=\"{base}\" x2=\"{width}\" y2=\"{base}\" stroke=\"#d0d7de\"/>\
         <text x=\"{}\" y=\"{}\" text-anchor=\"end\">{max}</text><text x=\"{}\" y=\"{base}\" text-anchor=\"end\">0</text>",
        LEFT - 6,
        TOP + 10,
        LEFT - 6
    );
    for (i, p) in shown.iter().enumerate() {
        let x = LEFT + GAP + i * (BAR_W + GAP);
        let cx = x + BAR_W / 2;
        match p.tests {
            Tests::Fail(n) => {
                let n = n.unwrap_or(1).max(1);
                let bh = ((n as usize * PLOT_H) / max as usize).max(3);
                let _ = writeln!(
                    h,
                    "<rect x=\"{x}\" y=\"{}\" width=\"{BAR_W}\" height=\"{bh}\" fill=\"#cf222e\"><title>attempt {}: {n} failing</title></rect>",
                    base - bh,
                    p.number
                );
            }
            Tests::Pass => {
                let _ = writeln!(
                    h,
                    "<text x=\"{cx}\" y=\"{}\" text-anchor=\"middle\" style=\"fill:#1a7f37\">✓<title>attempt {}: pass</title></text>",
                    base - 4,
                    p.number
                );
            }
            Tests::Unknown => {
                let _ = writeln!(
                    h,
                    "<text x=\"{cx}\" y=\"{}\" text-anchor=\"middle\">·<title>attempt {}: no test run</title></text>",
                    base - 4,
                    p.number
                );
            }
        }
        if let Some(m) = p.mark() {
            let color = match m {
                Mark::Trip => "#cf222e",
                Mark::Resume => "#9a6700",
                Mark::Close => "#1a7f37",
                Mark::NewFailure => "#8250df",
                Mark::SameFailure => "#bc4c00",
                Mark::NewCode => "#0969da",
            };
            let _ = writeln!(
                h,
                "<text x=\"{cx}\" y=\"{}\" text-anchor=\"middle\" style=\"fill:{color}\">{}<title>{}</title></text>",
                TOP - 8,
                m.symbol(),
                m.meaning()
            );
        }
        let _ = writeln!(
            h,
            "<text x=\"{cx}\" y=\"{}\" text-anchor=\"middle\">{}</text>",
            base + 16,
            p.number
        );
    }
    h.push_str("</svg>\n");
    h
}

fn legend(points: &[Point]) -> String {
    let mut h = String::from("<p class=\"legend\"><span>bars: failing tests</span>");
    for m in Mark::ALL {
        if points.iter().any(|p| p.mark() == Some(m)) {
            let _ = write!(h, "<span>{} {}</span>", m.symbol(), m.meaning());
        }
    }
    h.push_str("</p>\n");
    h
}

fn counters(s: &Status) -> String {
    let mut h = String::from(
        "<h2>Counters</h2>\n<table><tr><th>rule</th><th>count</th><th>action</th></tr>\n",
    );
    for (rule, c) in &s.counters {
        let action = s.actions.get(rule).map(|a| a.as_str()).unwrap_or_default();
        let flag = if Some(*rule) == s.rule && s.state != State::Closed {
            " ⛔"
        } else {
            ""
        };
        let _ = writeln!(
            h,
            "<tr><td><code>{rule}</code>{flag}</td><td class=\"n\">{}</td><td>{action}</td></tr>",
            c.count
        );
    }
    h.push_str("</table>\n");
    h
}

fn iterations(s: &Status, points: &[Point]) -> String {
    let mut h = String::from(
        "<h2>Iterations</h2>\n<table><tr><th>#</th><th>commit</th><th>subject</th><th>files</th><th>+/-</th><th>tests</th><th>notes</th></tr>\n",
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
            "<tr{class}><td class=\"n\">{}</td><td><code>{}</code></td><td>{}</td><td class=\"n\">{}</td><td>+{}/-{}</td><td>{}</td><td>{}</td></tr>",
            r.number,
            escape(r.id.short()),
            escape(&r.subject),
            r.files,
            r.added,
            r.deleted,
            tests(r),
            escape(&r.notes.join(", "))
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
