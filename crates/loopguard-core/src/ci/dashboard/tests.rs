//! The dashboard's pure parts, table-tested: sections and order, counts, the body, ticks
//! read back, and what a tick does.

use super::*;
use crate::ci::state::FailureBrief;
use crate::github::types::User;
use crate::rules::RuleName;
use crate::testing::{id, ts};

const NOW: i64 = 1_000_000;

fn verdict(state: State, tripped: Option<i64>, progress: i64) -> Verdict {
    Verdict {
        head: id("head"),
        state,
        rule: (state != State::Closed).then_some(RuleName::SameError),
        reason: (state != State::Closed).then(|| "the same failure in 3 iterations".to_owned()),
        terminal_status: None,
        iterations: Some(4),
        progress_at: Some(ts(progress)),
        tripped_at: tripped.map(ts),
        failure: Some(FailureBrief {
            signature: "9f2c9f2c1234".into(),
            first_error: Some("assertion `left == right` failed".into()),
        }),
        run: Some(990001),
        loop_cost: None,
    }
}

fn entry(number: u64, v: Option<Verdict>) -> Entry {
    let mut state = CiState::new(number);
    state.last = v;
    Entry {
        number,
        title: format!("Agent PR {number}"),
        author: Some("Copilot".into()),
        closed: None,
        state,
    }
}

fn resumed(mut e: Entry, at: i64) -> Entry {
    e.state.resumes.push(Resume {
        after: id("head"),
        at: ts(at),
        by: Some("maintainer".into()),
        run: Some(7001),
    });
    e
}

fn closed(mut e: Entry, merged: bool, at: i64) -> Entry {
    e.closed = Some(Closed { merged, at: ts(at) });
    e
}

fn ctx<'a>(notes: &'a [String]) -> Context<'a> {
    Context {
        now: ts(NOW),
        repo_url: "https://github.com/octo-org/widgets",
        label: "loopguard:stuck",
        notes,
    }
}

fn sample() -> Vec<Entry> {
    vec![
        entry(1, Some(verdict(State::Closed, None, NOW - 7200))),
        entry(2, Some(verdict(State::Open, Some(NOW - 600), NOW - 900))),
        resumed(
            entry(3, Some(verdict(State::Open, Some(NOW - 5000), NOW - 9000))),
            NOW - 60,
        ),
        entry(
            4,
            Some(verdict(State::Open, Some(NOW - 90_000), NOW - 99_000)),
        ),
        closed(
            entry(5, Some(verdict(State::Closed, Some(NOW - 86_400), NOW))),
            true,
            NOW - 3600,
        ),
        entry(
            6,
            Some(verdict(State::HalfOpen, Some(NOW - 400), NOW - 500)),
        ),
        entry(7, None),
        closed(
            entry(8, Some(verdict(State::Open, Some(NOW - 50), NOW))),
            false,
            NOW - 10,
        ),
        entry(
            9,
            Some(verdict(State::Closed, Some(NOW - 30 * 86_400), NOW - 60)),
        ),
    ]
}

#[test]
fn sections_and_order() {
    let mut e = sample();
    order(&mut e);
    let got: Vec<(u64, Section)> = e.iter().map(|e| (e.number, e.section())).collect();
    assert_eq!(
        got,
        [
            // Stuck longest first.
            (4, Section::Stuck),
            (2, Section::Stuck),
            // Half-open: resumed from the dashboard (3) or judged so by ci (6).
            (3, Section::HalfOpen),
            (6, Section::HalfOpen),
            // Healthy: longest without progress first; no verdict last.
            (1, Section::Healthy),
            (9, Section::Healthy),
            (7, Section::Healthy),
            // Closed: newest first.
            (8, Section::Closed),
            (5, Section::Closed),
        ]
    );
}

#[test]
fn counts_at_the_top() {
    let c = counts(&sample(), ts(NOW));
    assert_eq!(
        c,
        Counts {
            stuck: 2,
            half_open: 2,
            healthy: 3,
            // 2, 3, 6, 5, 8 opened within 7 days; 4 (25 h ago) too; 9 (30 d) not.
            tripped_recently: 6,
            closed: 2,
        }
    );
}

#[test]
fn ages_are_coarse() {
    let cases = [
        (0, "just now"),
        (59, "just now"),
        (60, "1 min"),
        (3599, "59 min"),
        (3600, "1 h"),
        (47 * 3600, "47 h"),
        (48 * 3600, "2 d"),
        (-5, "just now"),
    ];
    for (secs, want) in cases {
        assert_eq!(age(ts(NOW), ts(NOW - secs)), want, "{secs}");
    }
}

#[test]
fn the_body_has_counts_boxes_rows_and_the_closed_folded() {
    let mut e = sample();
    e[1].title = "Fix @org/team | <b>x</b> `y` #3".into();
    // PR 4's loop took 3 runs of 700 s in all.
    e[3].state.last.as_mut().unwrap().loop_cost = Some(crate::ci::cost::LoopCost {
        since: id("head"),
        runs: 3,
        seconds: 700,
    });
    order(&mut e);
    let notes = ["#9: the box was ticked by mallory, who has no write access: ignored".to_owned()];
    let body = render(&e, &ctx(&notes));
    assert!(body.starts_with("<!-- loopguard:dashboard -->\n\n**2 stuck** · 2 half-open · 3 healthy · 6 tripped in the last 7 days · 2 closed or merged lately\n"), "{body}");
    // A box for each stuck PR only, in order.
    let boxes: Vec<&str> = body.lines().filter(|l| l.starts_with("- [ ]")).collect();
    assert_eq!(
        boxes,
        [
            "- [ ] <!-- loopguard:resume pr=4 --> #4: let the agent try again",
            "- [ ] <!-- loopguard:resume pr=2 --> #2: let the agent try again",
        ]
    );
    assert!(
        ticked(&body).is_empty(),
        "loopguard writes every box unticked"
    );
    // Rows: stuck first, with rule, reason, failure, progress and run.
    let rows: Vec<&str> = body.lines().filter(|l| l.starts_with("| ")).collect();
    assert!(rows[1].starts_with("| ⛔ | #4 Agent PR 4 | open for 25 h | `same_error`: the same failure in 3 iterations | 4 | `9f2c9f2c1234` ``assertion `left == right` failed`` | 3 runs, 12 CI min | 27 h ago | [run 990001](https://github.com/octo-org/widgets/actions/runs/990001) |"), "{}", rows[1]);
    assert!(
        rows[3].starts_with("| ↺ | #3 Agent PR 3 | half-open (resumed 1 min ago by maintainer) |"),
        "{}",
        rows[3]
    );
    assert!(
        rows[5].starts_with("| ✅ | #1 Agent PR 1 | closed | – | 4 | – | – | 2 h ago |"),
        "{}",
        rows[5]
    );
    assert!(
        rows[7].starts_with("| ✅ | #7 Agent PR 7 | – | no verdict yet |"),
        "{}",
        rows[7]
    );
    // Untrusted titles are inert.
    assert!(
        !body.contains("@org/team") && !body.contains("<b>"),
        "{body}"
    );
    assert!(body.contains("\\| &lt;b&gt;x&lt;/b&gt;"), "{body}");
    // The closed ones are folded, newest first.
    let details = &body[body.find("<details>").unwrap()..];
    assert!(details.contains("Closed or merged in the last 7 days (2)"));
    let closed_rows: Vec<&str> = details.lines().filter(|l| l.starts_with("| #")).collect();
    assert_eq!(
        closed_rows,
        [
            "| #8 Agent PR 8 | closed | just now | open | – | `same_error` | 4 |",
            "| #5 Agent PR 5 | merged | 1 h ago | closed | – | – | 4 |",
        ]
    );
    assert!(
        body.contains("the box was ticked by mallory, who has no write access"),
        "{body}"
    );
    assert!(
        body.contains("as removing the `loopguard:stuck` label does"),
        "{body}"
    );
}

#[test]
fn a_thousand_prs_fit_in_one_issue() {
    let mut e: Vec<Entry> = (1..=1000)
        .map(|n| {
            let state = if n % 3 == 0 {
                State::Open
            } else {
                State::Closed
            };
            entry(n, Some(verdict(state, Some(NOW - n as i64), NOW - 100)))
        })
        .collect();
    order(&mut e);
    let body = render(&e, &ctx(&[]));
    assert!(body.chars().count() <= COMMENT_LIMIT);
    assert_eq!(
        body.lines().filter(|l| l.starts_with("- [ ]")).count(),
        MAX_BOXES
    );
    assert!(body.contains("… and 133 more\n"), "333 stuck, 200 boxes");
    assert!(body.contains("… and 880 more open PRs not shown"), "{body}");
}

#[test]
fn ticks_are_read_from_loopguards_own_boxes_only() {
    let body = [
        "<!-- loopguard:dashboard -->",
        "- [x] <!-- loopguard:resume pr=4 --> #4: let the agent try again",
        "- [ ] <!-- loopguard:resume pr=2 --> #2: let the agent try again",
        "* [X] <!-- loopguard:resume pr=11 --> #11",
        "- [x] <!-- loopguard:resume pr=x --> not a number",
        "- [x] #5 someone's own list <!-- loopguard:resume pr=5 -->",
        "> - [x] <!-- loopguard:resume pr=6 --> quoted",
        "  - [x] <!-- loopguard:resume pr=7 --> nested",
        "```",
        "- [x] <!-- loopguard:resume pr=8 --> in a code block",
        "```",
        "- [x] <!-- loopguard:resume pr=9 --> after the block\r",
    ]
    .join("\n");
    let body = body.as_str();
    assert_eq!(ticked(body), BTreeSet::from([4, 9, 11]));
}

#[test]
fn the_dashboard_is_found_by_marker_and_author() {
    let issue = |number: u64, login: &str, body: &str, open: bool| Issue {
        number,
        body: body.into(),
        user: Some(User {
            login: login.into(),
            ..User::default()
        }),
        state: if open {
            crate::github::types::OpenState::Open
        } else {
            crate::github::types::OpenState::Closed
        },
        ..Issue::default()
    };
    let ours = format!("{DASHBOARD_MARKER}\n\nbody");
    let trusted = TrustedAuthors::default();
    let issues = vec![
        issue(3, "mallory", &ours, true),
        issue(
            4,
            "github-actions[bot]",
            "quoting <!-- loopguard:dashboard -->",
            true,
        ),
        issue(9, "github-actions[bot]", &ours, false),
        issue(12, "github-actions[bot]", &ours, true),
        issue(15, "github-actions[bot]", &ours, true),
    ];
    assert_eq!(find_dashboard(&issues, &trusted).unwrap().number, 12);
    assert_eq!(
        find_dashboard(&issues[..3], &trusted).unwrap().number,
        9,
        "a closed one is reused"
    );
    assert!(find_dashboard(&issues[..2], &trusted).is_none());
}

#[test]
fn what_a_tick_does() {
    let now = ts(NOW);
    let stuck = entry(2, Some(verdict(State::Open, Some(NOW - 600), NOW - 900)));
    let maintainer = Editor::Known {
        login: "maintainer".into(),
        can_write: true,
    };
    match tick(&stuck, &maintainer, now, Some(7002)) {
        Tick::Resume(r) => {
            assert_eq!(
                (r.after.as_str(), r.by.as_deref(), r.at, r.run),
                ("head", Some("maintainer"), now, Some(7002))
            );
        }
        other @ (Tick::Moot | Tick::Refused(_)) => panic!("{other:?}"),
    }
    // No event says who ticked it: anyone with a token that may edit issues could have.
    assert!(
        matches!(tick(&stuck, &Editor::Unknown, now, None), Tick::Refused(why) if why.contains("no `issues: edited` event says by whom"))
    );
    let reader = Editor::Known {
        login: "mallory".into(),
        can_write: false,
    };
    assert!(
        matches!(tick(&stuck, &reader, now, None), Tick::Refused(why) if why.contains("no write access"))
    );
    let agent = Editor::Known {
        login: "copilot".into(),
        can_write: true,
    };
    assert!(
        matches!(tick(&stuck, &agent, now, None), Tick::Refused(why) if why.contains("own author"))
    );
    // Nothing to resume: healthy, half-open, already resumed, closed.
    for e in [
        entry(1, Some(verdict(State::Closed, None, NOW))),
        entry(6, Some(verdict(State::HalfOpen, Some(NOW), NOW))),
        resumed(stuck.clone(), NOW - 5),
        closed(stuck.clone(), false, NOW),
        entry(7, None),
    ] {
        assert_eq!(
            tick(&e, &maintainer, now, None),
            Tick::Moot,
            "#{}",
            e.number
        );
    }
}

#[test]
fn a_resumed_sticky_says_so_and_keeps_the_rest() {
    let body = "<!-- loopguard:sticky -->\n<!-- loopguard:state v1 e30= -->\n\n### loopguard: stuck loop\n\nmore";
    let visible = sticky_visible(body);
    assert_eq!(visible, "### loopguard: stuck loop\n\nmore");
    assert_eq!(sticky_visible("no header"), "no header");
    let r = Resume {
        after: id("head"),
        at: ts(NOW),
        by: Some("@maintainer".into()),
        run: None,
    };
    let shown = resumed_visible(visible, &r);
    assert!(shown.starts_with("> **Resumed from the loopguard dashboard** by @\u{200B}maintainer at 2027-01-26 21:46 UTC: the breaker is half-open, the next push decides.\n\n### loopguard: stuck loop"), "{shown}");
}
