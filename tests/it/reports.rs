//! Reports that tell the truth: what a person reads after a run — the report `reset` keeps,
//! `report` on a terminal and in a file, the HTML page in a browser, the failure context of
//! an escalation — read from the real binary's output on real repositories.

use crate::support::{TestRepo, guarded, lg, status};

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
