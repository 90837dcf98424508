//! The picture of a loop, snapshot-tested on the local guard's scenarios: real
//! repositories, real commits through the hooks, real runner logs, the real binary. Each
//! scenario's `report` (markdown, with the sparkline and the mermaid chart) and `report
//! --html` are compared with the files under `tests/snapshots/`, run ids redacted.
//!
//! `UPDATE_SNAPSHOTS=1 cargo test --test it pictures::` rewrites the snapshots; review the
//! diff.
//! `.ci/run` parses every mermaid block of the committed snapshots with the real mermaid
//! parser (`scripts/check-mermaid.mjs`).

use crate::support::snapshots::assert_snapshot;
use crate::support::{TestRepo, guarded, lg, run_log};

fn snapshot(repo: &TestRepo, name: &str) -> (String, String) {
    let md = lg(repo).arg("report").run().ok().stdout;
    let html = lg(repo).args(["report", "--html"]).run().ok().stdout;
    assert_snapshot(&format!("{name}.md"), &md);
    assert_snapshot(&format!("{name}.html"), &html);
    (md, html)
}

/// The sparkline's first two rows (bars, marks) of a markdown report.
fn sparkline(md: &str) -> (String, String) {
    let mut lines = md.lines().skip_while(|l| !l.starts_with("tests    "));
    let bars = lines.next().expect("a sparkline").to_owned();
    let marks = lines.next().expect("a row of marks").to_owned();
    (bars, marks)
}

#[test]
fn empty_commits() {
    let repo = guarded("");
    for m in ["Initial plan", "Re-trigger CI", "Try again"] {
        repo.commit_empty(m);
    }
    let (md, html) = snapshot(&repo, "empty-commits");
    let (bars, marks) = sparkline(&md);
    assert_eq!(bars, "tests    ···", "no test ran");
    assert_eq!(marks, "events     ✖", "the third empty commit trips");
    assert!(md.contains("```mermaid\nxychart-beta\n"), "{md}");
    assert!(html.contains("<svg") && !html.contains("<script"), "{html}");
}

#[test]
fn oscillation() {
    let repo = guarded("");
    for (i, v) in ["41", "42", "41", "42"].iter().enumerate() {
        repo.write(
            "src/lib.rs",
            format!("pub fn answer() -> u32 {{\n    {v}\n}}\n"),
        );
        repo.write("notes.txt", if i % 2 == 0 { "A\n" } else { "B\n" });
        repo.commit("Adjust the answer");
    }
    let (md, _) = snapshot(&repo, "oscillation");
    let (_, marks) = sparkline(&md);
    assert_eq!(
        marks, "events   ++ ✖",
        "two new trees (new code), then back and forth"
    );
    assert!(md.contains("stuck on oscillation"), "{md}");
}

#[test]
fn the_same_failure() {
    let repo = guarded("");
    for (i, log) in [
        "cargo/assert-count/plain.log",
        "cargo/assert-count/shifted.log",
        "cargo/assert-count/color.log",
    ]
    .iter()
    .enumerate()
    {
        repo.write(
            "src/lib.rs",
            format!("pub fn answer() -> u32 {{\n    {}\n}}\n", 50 + i),
        );
        repo.commit(&format!("Fix the count, try {}", i + 1));
        let code = run_log(&repo, log, 101).code;
        assert!(matches!(code, Some(101 | 86)), "{code:?}");
    }
    let (md, html) = snapshot(&repo, "same-failure");
    let (bars, marks) = sparkline(&md);
    assert_eq!(bars, "tests    ███", "one failing test each time");
    assert_eq!(
        marks, "events   ◆=✖",
        "a new failure, a new tree with the same failure, the same again"
    );
    // The code changed each time, the failure did not: the table says both and calls none
    // of it progress while the report says the run is stuck on that failure.
    assert!(
        md.contains("| fail (2) `e971335c` | new code, same failure |"),
        "{md}"
    );
    let rows = md
        .lines()
        .filter(|l| l.starts_with("| ") && l.contains("Fix the count"));
    assert!(
        rows.clone().count() == 3 && rows.clone().all(|r| !r.contains("progress")),
        "{md}"
    );
    assert!(!md.contains("↑"), "{md}");
    assert!(
        md.contains("x-axis \"attempt\" [\"1 ◆\", \"2 =\", \"3 ✖=\"]"),
        "{md}"
    );
    assert!(
        html.contains("counts_three_words"),
        "the first error: {html}"
    );
}

#[test]
fn a_recovery() {
    let repo = guarded("");
    for (i, log) in [
        "cargo/two-failures/plain.log",
        "cargo/assert-count/plain.log",
        "cargo/assert-count/shifted.log",
        "cargo/assert-count/color.log",
    ]
    .iter()
    .enumerate()
    {
        repo.write(
            "src/lib.rs",
            format!("pub fn answer() -> u32 {{\n    {}\n}}\n", 50 + i),
        );
        repo.commit(&format!("Fix the count <b>@org/team</b>, try {}", i + 1));
        run_log(&repo, log, 101);
    }
    lg(&repo).arg("resume").run().ok();
    repo.write("src/lib.rs", "pub fn answer() -> u32 {\n    42\n}\n");
    repo.commit("Fix it for real");
    run_log(&repo, "cargo/passing/plain.log", 0).ok();
    let (md, html) = snapshot(&repo, "recovery");
    let (bars, marks) = sparkline(&md);
    assert_eq!(
        bars, "tests    █▆▆▆✓",
        "three failing, then two, then a pass"
    );
    // The resume follows the attempt that tripped (whose mark wins); the next one closes.
    assert_eq!(marks, "events   ◆◆=✖✔", "{md}");
    // The commit subjects are escaped: no markup, no mention.
    assert!(!html.contains("<b>@org"), "{html}");
    assert!(html.contains("&lt;b&gt;@org/team&lt;/b&gt;"), "{html}");
    assert!(!md.contains("<b>"), "{md}");
}

/// Whatever text a chart carries is escaped for mermaid: this snapshot holds a chart whose
/// title is hostile, and `.ci/run` parses it with the real mermaid parser.
#[test]
fn a_hostile_chart_title_stays_a_title() {
    use loopguard::report::Failure;
    use loopguard::report::picture::{Point, Tests, mermaid};
    let points: Vec<Point> = (1..=3)
        .map(|n| Point {
            number: n,
            tests: Tests::Fail(Some(n as u64)),
            failure: (n == 1).then_some(Failure::New),
            new_code: false,
            tripped: n == 3,
            resumed: false,
            closed: false,
        })
        .collect();
    let hostile =
        "x\"]\n  bar [99]\n%%{init: {\"theme\": \"dark\"}}%%\n  title \"pwned #1; <b>&amp;</b> `c`";
    let chart = mermaid(&points, hostile);
    assert_eq!(
        chart
            .lines()
            .filter(|l| l.trim_start().starts_with("bar"))
            .count(),
        1
    );
    assert!(!chart.contains("%%") && !chart.contains("<b>"), "{chart}");
    assert_snapshot("hostile-chart.md", &chart);
}
