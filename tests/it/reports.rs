//! Reports that tell the truth: what a person reads after a run — the report `reset` keeps,
//! `report` on a terminal and in a file, the HTML page in a browser, the failure context of
//! an escalation — read from the real binary's output on real repositories.

use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

use crate::support::{Ran, TestRepo, guarded, lg, run_log, run_within, status};

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
    let events: Vec<(&str, &str, &str)> = table_rows(&md, "Breaker events")
        .iter()
        .map(|r| (r[1], r[2], r[5]))
        .collect();
    assert_eq!(
        events,
        [
            ("3", "trip", "stagnation"),
            ("4", "close", "stagnation"),
            ("7", "trip", "stagnation"),
            ("8", "close", "stagnation"),
            ("11", "trip", "stagnation"),
            ("12", "close", "stagnation"),
            ("", "reset", ""),
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
    // One line changed and a new file staged, not committed, and tested (what `git stash`
    // would save: an untracked file would not be part of it).
    repo.write("src/lib.rs", "pub fn answer() -> u32 {\n    51\n}\n");
    repo.write("notes.txt", "tried 51\n");
    repo.git(&["add", "notes.txt"]);
    run_log(&repo, "cargo/assert-count/shifted.log", 101).code(101);

    let md = lg(&repo).args(["report", "--markdown"]).run().ok().stdout;
    let rows = table_rows(&md, "Recent iterations");
    let last = rows.last().expect("a row");
    assert_eq!(
        (last[3], last[4], last[6]),
        ("2", "+2/-1", "new code, same failure"),
        "{md}"
    );
    // Named by its tree, whole: `worktree-` and the tree's first 7 digits (not `worktre`).
    let name = last[1].trim_matches('`');
    assert!(
        name.strip_prefix("worktree-")
            .is_some_and(|t| t.len() == 7 && t.bytes().all(|b| b.is_ascii_hexdigit())),
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

/// A file rewritten at the same size within the second of the commit, then tested a second
/// later: git's stat cache alone would call it unchanged (racy git). The working tree the
/// run reads is the one on disk.
#[test]
fn a_same_size_rewrite_right_after_a_commit_is_a_change() {
    let repo = guarded("");
    repo.write("src/lib.rs", "pub fn answer() -> u32 {\n    50\n}\n");
    repo.commit("Fix the count");
    run_log(&repo, "cargo/assert-count/plain.log", 101).code(101);
    repo.write("src/lib.rs", "pub fn answer() -> u32 {\n    51\n}\n");
    std::thread::sleep(Duration::from_millis(1100));
    run_log(&repo, "cargo/assert-count/shifted.log", 101).code(101);
    let doc = lg(&repo).args(["report", "--json"]).run().ok().json();
    assert_eq!(
        doc["history"][1]["files"],
        serde_json::json!([
            {"path": "src/lib.rs", "added": 1, "deleted": 1, "status": "modified"},
        ]),
        "{doc}"
    );
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
        shown.contains("\nnow:        commits and pushes are refused\n"),
        "{shown}"
    );
    assert!(
        shown.contains("\nways out:\n  - change the code and run the tests with `loopguard run -- <test command>`"),
        "{shown}"
    );
    assert!(
        shown.contains("\n  - a person lets the agent try again: `loopguard resume`"),
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

/// Headless Chromium from the machine's packages (`.ci/run` installs Debian's `chromium`);
/// the test that needs it fails, never skips, without it.
fn chromium() -> PathBuf {
    let path = std::env::var_os("PATH").unwrap_or_default();
    ["chromium", "chromium-browser"]
        .iter()
        .flat_map(|name| std::env::split_paths(&path).map(move |dir| dir.join(name)))
        .find(|p| p.is_file())
        .unwrap_or_else(|| {
            panic!(
                "chromium is not installed, and the HTML report is tested in a real browser; \
                 hint: apt-get install -y chromium (.ci/test-deps.sh installs what the tests need)"
            )
        })
}

/// Chromium, headless, with no network at all: every request goes to a proxy that is not
/// there and every name resolves to nothing.
fn headless(args: &[String]) -> Ran {
    let profile = tempfile::tempdir().unwrap();
    let mut cmd = Command::new(chromium());
    cmd.args([
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--proxy-server=http://127.0.0.1:9",
        "--host-resolver-rules=MAP * ~NOTFOUND",
    ])
    .arg(format!("--user-data-dir={}", profile.path().display()))
    .args(args);
    run_within(cmd, None, Duration::from_secs(120)).finished()
}

/// A JSON array of strings.
fn strings(v: &serde_json::Value) -> Vec<&str> {
    let items = v.as_array().unwrap_or_else(|| panic!("not an array: {v}"));
    items
        .iter()
        .map(|s| s.as_str().expect("a string"))
        .collect()
}

/// What the probe page measures in the report it frames, once it has loaded.
const PROBE: &str = r#"<!doctype html><html><body>
<iframe id="report" src="report.html" style="width:1280px;height:3000px;border:0"></iframe>
<pre id="out">not measured</pre>
<script>
document.getElementById('report').addEventListener('load', () => {
  const d = document.getElementById('report').contentDocument;
  const box = (e) => { const r = e.getBoundingClientRect(); return [Math.round(r.width), Math.round(r.height)]; };
  const own = (e) => e.firstChild ? e.firstChild.nodeValue : '';
  const svg = d.querySelector('svg');
  document.getElementById('out').textContent = JSON.stringify({
    chart: svg ? box(svg) : null,
    bars: [...d.querySelectorAll('svg rect')].map(box),
    marks: [...d.querySelectorAll('svg text.mark')].map(own),
    headings: [...d.querySelectorAll('h2')].map(h => h.textContent),
    ways: [...d.querySelectorAll('li')].map(li => li.textContent),
    facts: Object.fromEntries([...d.querySelectorAll('dt')].map(t => [t.textContent, t.nextElementSibling.textContent])),
    tables: [...d.querySelectorAll('table')].map(t => [...t.rows].map(r => [...r.cells].map(c => c.textContent))),
    fetched: d.defaultView.performance.getEntriesByType('resource').length,
  });
});
</script></body></html>"#;

/// `report --html` in a real browser with no network: it renders whole (the counters with
/// their limits, the iterations, the breaker's events, the ways out), its chart is a
/// readable size for a few attempts, a trip and the resume after it are both marked, and
/// nothing is fetched. The page and a screenshot are kept under target/.
#[test]
fn the_html_report_renders_in_a_browser() {
    let repo = stuck_on_pytest();
    lg(&repo).arg("resume").run().ok();
    // The agent runs the same tests again on the same code: no progress, open again.
    run_log(&repo, "pytest/assert-count/plain.log", 1);
    assert_eq!(status(&repo)["trips"], 2, "it reopened");
    let html = lg(&repo).args(["report", "--html"]).run().ok().stdout;

    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("report-html");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let page = dir.join("report.html");
    std::fs::write(&page, &html).unwrap();
    std::fs::write(dir.join("probe.html"), PROBE).unwrap();

    let dom = headless(&[
        "--allow-file-access-from-files".into(),
        "--virtual-time-budget=10000".into(),
        "--dump-dom".into(),
        format!("file://{}", dir.join("probe.html").display()),
    ]);
    let out = dom
        .stdout
        .split("<pre id=\"out\">")
        .nth(1)
        .and_then(|rest| rest.split("</pre>").next())
        .unwrap_or_else(|| panic!("no measurement in the DOM:\n{}\n{}", dom.stdout, dom.stderr));
    let m: serde_json::Value = serde_json::from_str(
        &out.replace("&amp;", "&")
            .replace("&lt;", "<")
            .replace("&gt;", ">")
            .replace("&quot;", "\""),
    )
    .unwrap_or_else(|e| panic!("{e}: {out}\n{}", dom.stderr));

    assert_eq!(m["fetched"], 0, "the page fetches nothing: {m}");
    let chart = m["chart"]
        .as_array()
        .unwrap_or_else(|| panic!("no chart: {m}"));
    let (w, h) = (chart[0].as_u64().unwrap(), chart[1].as_u64().unwrap());
    assert!(
        w >= 560 && h >= 200,
        "four attempts get a readable chart, not {w}×{h}: {m}"
    );
    let bars = m["bars"].as_array().unwrap();
    assert_eq!(bars.len(), 4, "a bar per failing attempt: {m}");
    for bar in bars {
        assert!(bar[0].as_u64().unwrap() >= 20, "a bar one can see: {m}");
    }
    let marks = strings(&m["marks"]);
    assert_eq!(
        marks,
        ["◆", "=", "✖", "↺", "=", "✖", "="],
        "attempt 3 tripped and was resumed, attempt 4 opened it again: {m}"
    );
    let headings = strings(&m["headings"]);
    assert_eq!(
        headings,
        [
            "Ways out",
            "The looping failure",
            "The loop",
            "Counters",
            "Iterations",
            "Breaker events"
        ],
        "{m}"
    );
    assert_eq!(m["facts"]["Now"], "commits and pushes are refused", "{m}");
    let ways = strings(&m["ways"]);
    assert!(
        ways.len() == 3
            && ways[0].starts_with("change the code and run the tests with loopguard run")
            && ways[1].starts_with("a person lets the agent try again: loopguard resume")
            && ways[2] == "a person starts a new run: loopguard reset",
        "the ways out of a same_error trip: {m}"
    );
    assert_eq!(m["facts"]["Trips"], "2", "{m}");
    let tables = m["tables"].as_array().unwrap();
    assert_eq!(
        tables[0][0],
        serde_json::json!(["rule", "count", "limit", "action"]),
        "{m}"
    );
    let share = &status(&repo)["counters"]["test_only"];
    let limit = format!("30% of {} (once 3)", share["of"]);
    let row = serde_json::json!(["test_only", share["count"].to_string(), limit, "warn"]);
    assert!(
        tables[0].as_array().unwrap().contains(&row),
        "the limit column: {m}"
    );
    let iterations = tables[1].as_array().unwrap();
    assert_eq!(iterations[3][7], "opened (same_error), resumed", "{m}");
    assert_eq!(
        iterations[3][2], "Fix <the> count (try 3)",
        "outside text stays text: {m}"
    );
    let events: Vec<(&str, &str)> = tables[2].as_array().unwrap()[1..]
        .iter()
        .map(|r| (r[1].as_str().unwrap(), r[2].as_str().unwrap()))
        .collect();
    assert_eq!(
        events,
        [("3", "trip"), ("3", "resume"), ("4", "reopen")],
        "{m}"
    );

    let shot = dir.join("report.png");
    headless(&[
        format!("--screenshot={}", shot.display()),
        "--window-size=1280,1500".into(),
        format!("file://{}", page.display()),
    ]);
    let png = std::fs::read(&shot).unwrap_or_else(|e| panic!("{}: {e}", shot.display()));
    assert!(
        png.starts_with(b"\x89PNG\r\n\x1a\n") && png.len() > 20_000,
        "{}",
        shot.display()
    );
    assert_eq!(&png[16..24], &[0, 0, 5, 0, 0, 0, 5, 220], "1280×1500");
    println!(
        "the HTML report: {}\nits screenshot: {}",
        page.display(),
        shot.display()
    );
}

/// The failure context the escalation wrote for the run.
fn failure_context(repo: &TestRepo, run: &str) -> String {
    let path = repo
        .path()
        .join(".git/loopguard/runs")
        .join(run)
        .join("failure-context.md");
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Each escalation's failure context says why *that* model got stuck, and the models
/// before it; once the last model is stuck, nothing speaks of a next model.
#[test]
fn each_escalation_names_its_own_trip_and_the_last_model_is_the_last() {
    let repo =
        guarded("on_trip: {action: escalate}\nescalation: {models: [small, medium, large]}\n");
    // small commits nothing, three times: stagnation.
    for i in 0..3 {
        repo.commit_empty(&format!("small tries nothing {i}"));
    }
    let run = status(&repo)["run"].as_str().unwrap().to_owned();
    let first = failure_context(&repo, &run);
    assert!(first.contains("- Stop rule: stagnation\n"), "{first}");
    assert!(
        first.contains("- You are the next model: medium\n"),
        "{first}"
    );
    // medium changes the code and fails the same way, three times: same_error.
    for i in 0..3 {
        repo.write(
            "src/lib.rs",
            format!("pub fn answer() -> u32 {{ {} }}\n", 60 + i),
        );
        repo.commit(&format!("medium tries {i}"));
        run_log(&repo, "cargo/assert-count/plain.log", 101);
    }
    let s = status(&repo);
    assert_eq!(
        (s["next_model"].as_str(), s["trips"].as_u64()),
        (Some("large"), Some(2)),
        "{s}"
    );
    let second = failure_context(&repo, &run);
    assert!(second.contains("- Stop rule: same_error\n"), "{second}");
    assert!(
        second.contains("- Why: the same failure \\(cargo: counts\\_words\\_in\\_file"),
        "the trip medium made, not small's: {second}"
    );
    assert!(
        !second.lines().any(|l| l.starts_with("- Why: no progress")),
        "{second}"
    );
    assert!(
        second.contains("- You are the next model: large\n"),
        "{second}"
    );
    assert!(second.contains("\n## The models before you\n\n- small got stuck: stagnation: no progress in 3 iterations in a row"), "{second}");
    assert!(
        second.contains("\n- medium got stuck: same_error: the same failure"),
        "{second}"
    );

    // large commits nothing: the last model is stuck, the agent is paused.
    for i in 0..3 {
        let _ = repo.try_git(&["commit", "-q", "--allow-empty", "-m", &format!("large {i}")]);
    }
    let s = status(&repo);
    assert_eq!(
        (s["state"].as_str(), s["trips"].as_u64()),
        (Some("open"), Some(3)),
        "{s}"
    );
    let text = lg(&repo).arg("status").run().ok().stdout;
    assert!(!text.contains("next model"), "{text}");
    assert!(
        text.contains("\nmodel: large (the last of escalation.models)\n"),
        "{text}"
    );
    let report = lg(&repo).args(["report", "--text"]).run().ok().stdout;
    assert!(
        report.contains(
            "\nnow:        the last model of escalation.models is stuck too: commits and pushes are refused\n"
        ),
        "{report}"
    );
    let md = lg(&repo).args(["report", "--markdown"]).run().ok().stdout;
    assert!(
        md.contains("- **Model:** large (the last of `escalation.models`)\n"),
        "{md}"
    );
    assert!(!md.contains("Next model"), "{md}");
    assert_eq!(
        failure_context(&repo, &run),
        second,
        "no escalation: the context stays"
    );
}
