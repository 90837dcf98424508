//! Reports that tell the truth: what a person reads after a run — the report `reset` keeps,
//! `report` on a terminal and in a file, the HTML page in a browser, the failure context of
//! an escalation — read from the real binary's output on real repositories.

use crate::support::{TestRepo, guarded, lg, run_log, status};

/// The report the store keeps for `run`.
fn stored_report(repo: &TestRepo, run: &str) -> String {
    let path = repo
        .path()
        .join(".git/loopguard/reports")
        .join(format!("{run}.md"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The rows of a markdown section's table (header and rule left out).
fn table_rows<'a>(md: &'a str, heading: &str) -> Vec<Vec<&'a str>> {
    md.split(&format!("\n## {heading}\n"))
        .nth(1)
        .unwrap_or_else(|| panic!("no section {heading:?}:\n{md}"))
        .lines()
        .skip_while(|l| !l.starts_with('|'))
        .take_while(|l| l.starts_with('|'))
        .skip(2)
        .map(|l| l.trim_matches('|').split(" | ").map(str::trim).collect())
        .collect()
}

/// The sparkline's row of marks in a markdown or text report.
fn marks(report: &str) -> String {
    report
        .lines()
        .skip_while(|l| !l.starts_with("tests    "))
        .nth(1)
        .unwrap_or_else(|| panic!("no sparkline:\n{report}"))
        .to_owned()
}

/// Three trips, each mended by the next change (`alert`: the agent goes on), then a
/// person resets: the report of the ended run says it tripped three times and how it
/// ended, and the new run's report says nothing of the old one.
#[test]
fn the_report_a_reset_keeps_shows_the_run_as_it_was() {
    let repo = guarded("on_trip: {action: alert}\n");
    for round in 0..3 {
        for i in 0..3 {
            repo.commit_empty(&format!("round {round}: nothing {i}"));
        }
        repo.write(
            "src/lib.rs",
            format!("pub fn answer() -> u32 {{ {round} }}\n"),
        );
        repo.commit(&format!("round {round}: a real change"));
    }
    let before = status(&repo);
    assert_eq!(
        (before["state"].as_str(), before["trips"].as_u64()),
        (Some("closed"), Some(3)),
        "{before}"
    );
    let run = before["run"].as_str().unwrap().to_owned();
    lg(&repo).arg("reset").run().ok();

    let md = stored_report(&repo, &run);
    assert!(md.contains("- **Status:** ended by a reset\n"), "{md}");
    assert!(md.contains("- **Breaker:** closed\n"), "{md}");
    assert!(md.contains("- **Trips:** 3\n"), "{md}");
    let events: Vec<(&str, &str)> = table_rows(&md, "Breaker events")
        .iter()
        .map(|r| (r[1], r[4]))
        .collect();
    assert_eq!(
        events,
        [
            ("trip", "stagnation"),
            ("close", "stagnation"),
            ("trip", "stagnation"),
            ("close", "stagnation"),
            ("trip", "stagnation"),
            ("close", "stagnation"),
            ("reset", ""),
        ],
        "{md}"
    );
    // Attempts 3, 7 and 11 tripped; the change after each closed the breaker.
    assert_eq!(marks(&md), "events     ✖✔  ✖✔  ✖✔", "{md}");

    // The new run starts clean: none of the old run's events is its own.
    let new = lg(&repo).arg("report").run().ok().stdout;
    assert!(new.contains("- **Status:** running\n"), "{new}");
    assert!(!new.contains("Breaker events"), "{new}");
    let doc = lg(&repo).args(["report", "--json"]).run().ok().json();
    assert_eq!(doc["events"], serde_json::json!([]), "{doc}");
}

/// Tests run on uncommitted changes are a working-tree iteration: its row shows the files
/// and lines it changed, like the commit of that tree will.
#[test]
fn the_working_tree_iteration_shows_what_it_changed() {
    let repo = guarded("");
    repo.write("src/lib.rs", "pub fn answer() -> u32 {\n    50\n}\n");
    repo.commit("Fix the count");
    run_log(&repo, "cargo/assert-count/plain.log", 101).code(101);
    // One line changed, not committed, and tested.
    repo.write("src/lib.rs", "pub fn answer() -> u32 {\n    51\n}\n");
    repo.write("notes.txt", "tried 51\n");
    run_log(&repo, "cargo/assert-count/shifted.log", 101).code(101);

    let md = lg(&repo).args(["report", "--markdown"]).run().ok().stdout;
    let rows = table_rows(&md, "Recent iterations");
    let last = rows.last().expect("a row");
    assert_eq!(
        (last[1], last[3], last[4], last[6]),
        ("`worktre`", "2", "+2/-1", "new code, same failure"),
        "{md}"
    );
    let doc = lg(&repo).args(["report", "--json"]).run().ok().json();
    let it = &doc["history"][1];
    assert_eq!(
        it["files"],
        serde_json::json!([
            {"path": "notes.txt", "added": 1, "deleted": 0, "status": "added"},
            {"path": "src/lib.rs", "added": 1, "deleted": 1, "status": "modified"},
        ]),
        "{it}"
    );

    // Committing exactly that tree is the same attempt, with the same numbers.
    repo.commit("Try 51");
    let md = lg(&repo).args(["report", "--markdown"]).run().ok().stdout;
    let rows = table_rows(&md, "Recent iterations");
    assert_eq!(rows.len(), 2, "{md}");
    assert_eq!((rows[1][3], rows[1][4]), ("2", "+2/-1"), "{md}");
}

/// A same-failure loop whose failure message has what markdown escapes: `(`, `<n>`.
fn stuck_on_pytest() -> TestRepo {
    let repo = guarded("");
    for (i, log) in ["plain.log", "shifted.log", "color.log"].iter().enumerate() {
        repo.write(
            "src/lib.rs",
            format!("pub fn answer() -> u32 {{ {} }}\n", 50 + i),
        );
        repo.commit(&format!("Fix <the> count (try {})", i + 1));
        run_log(&repo, &format!("pytest/assert-count/{log}"), 1);
    }
    assert_eq!(status(&repo)["rule"], "same_error");
    repo
}

/// `report` on a terminal is plain text a person reads; a file or a pipe gets markdown;
/// `--markdown` and `--text` choose either anywhere.
#[test]
fn report_prints_text_to_a_terminal_and_markdown_elsewhere() {
    let repo = stuck_on_pytest();
    let shown = lg(&repo).arg("report").on_a_terminal().run().ok().stdout;
    assert!(
        shown.starts_with("loopguard report\n\nstatus:     aborted_stuck\n"),
        "{shown}"
    );
    assert!(
        shown.contains("stop reason: same_error: the same failure (pytest: "),
        "{shown}"
    );
    assert!(
        shown.contains("AssertionError: assert <n> == <n>"),
        "{shown}"
    );
    assert!(
        shown.contains("next step:  commits and pushes are refused until `loopguard resume`"),
        "{shown}"
    );
    for markup in [
        "\\(",
        "&lt;",
        "**",
        "| --- |",
        "```",
        "<details>",
        "xychart",
    ] {
        assert!(
            !shown.contains(markup),
            "{markup:?} on a terminal:\n{shown}"
        );
    }
    // The picture is the sparkline; the table is aligned text.
    assert!(shown.contains("\n  events   ◆=✖\n"), "{shown}");
    assert!(
        shown.contains("Fix <the> count (try 2)                       1  +1/-1        fail (1)  new code, same failure"),
        "{shown}"
    );

    let piped = lg(&repo).arg("report").run().ok().stdout;
    assert!(piped.starts_with("# loopguard report\n"), "{piped}");
    assert!(
        piped.contains("assert &lt;n&gt; == &lt;n&gt;\\)"),
        "{piped}"
    );
    let asked = lg(&repo)
        .args(["report", "--markdown"])
        .on_a_terminal()
        .run()
        .ok()
        .stdout;
    assert_eq!(
        asked, piped,
        "--markdown on a terminal is the file's markdown"
    );
    let text = lg(&repo).args(["report", "--text"]).run().ok().stdout;
    assert_eq!(text, shown, "--text in a pipe is what the terminal shows");
    let json = lg(&repo)
        .args(["report", "--json"])
        .on_a_terminal()
        .run()
        .ok()
        .json();
    assert_eq!(json["rule"], "same_error", "--json is JSON anywhere");
    lg(&repo)
        .args(["report", "--text", "--markdown"])
        .run()
        .code(2)
        .stderr_has("cannot be used with");
}
