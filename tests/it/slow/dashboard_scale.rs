//! The dashboard's GitHub requests over 10, 100 and 1,000 agent PRs: what one run costs,
//! counted against the fake GitHub (slow: a thousand sticky states are made first).

use serde_json::Value;

use crate::dashboard::many_prs;
use crate::support::ci::CiStep;
use crate::support::github_fake::RecordedRequest;

/// The requests of a first run (creating the label and the issue) and of the next run an
/// hour later (the issue found open and edited: its "updated" line changed).
fn dashboard_requests(n: u64) -> (Vec<RecordedRequest>, Vec<RecordedRequest>) {
    let gh = many_prs(n);
    let checkout = crate::support::TestRepo::new();
    let mut runs = Vec::new();
    for now in ["2026-11-25T12:00:00Z", "2026-11-25T13:00:00Z"] {
        gh.clear_requests();
        let out = CiStep::new(&gh, &checkout)
            .event("schedule", "{}")
            .env("LOOPGUARD_NOW", now)
            .args(["dashboard", "--json"])
            .run();
        assert_eq!(out.code, 0, "{out:#?}");
        let doc: Value =
            serde_json::from_str(out.stdout.lines().find(|l| l.starts_with('{')).unwrap()).unwrap();
        let c = &doc["counts"];
        assert_eq!(
            c["stuck"].as_u64().unwrap() + c["healthy"].as_u64().unwrap(),
            n
        );
        assert_eq!(c["closed"], 5);
        assert_eq!(
            doc["requests"].as_u64().unwrap() as usize,
            gh.requests().len()
        );
        runs.push(gh.requests());
    }
    let second = runs.pop().unwrap();
    (runs.pop().unwrap(), second)
}

#[test]
fn requests_for_10_100_and_1000_prs() {
    // The config: 1; open PRs: 1 per 100; closed lately: 1; every comment since the oldest
    // PR: 1 per 100 (3 per PR here); the dashboard: 1 (open, +1 closed while there is
    // none); the label: 2 (first run); the issue: 1 (created, then edited).
    for (n, first, next) in [(10, 9, 6), (100, 12, 9), (1000, 48, 45)] {
        let (a, b) = dashboard_requests(n);
        let shown = |requests: &[RecordedRequest]| -> Vec<String> {
            requests
                .iter()
                .map(|r| {
                    format!(
                        "{} {}?{}",
                        r.method,
                        r.path,
                        r.query.clone().unwrap_or_default()
                    )
                })
                .collect()
        };
        for requests in [&a, &b] {
            let per_pr = requests
                .iter()
                .filter(|r| r.path.ends_with("/comments") && !r.path.ends_with("/issues/comments"))
                .count();
            assert_eq!(per_pr, 0, "no PR read one by one: {:#?}", shown(requests));
        }
        assert_eq!(a.len(), first, "{n} PRs, first run: {:#?}", shown(&a));
        assert_eq!(b.len(), next, "{n} PRs, next run: {:#?}", shown(&b));
        assert_eq!(
            writes_of(&b),
            ["PATCH /repos/octo-org/widgets/issues/".to_owned() + &(n + 6).to_string()],
            "the next run edits the issue in place"
        );
    }
}

fn writes_of(requests: &[RecordedRequest]) -> Vec<String> {
    requests
        .iter()
        .filter(|r| r.is_write())
        .map(|r| format!("{} {}", r.method, r.path))
        .collect()
}
