//! Issue 25, item 4: nothing the agent's token can write relaxes CI's breaker. The agent
//! edits loopguard's own sticky comment through the REST API with a token of its own
//! workflow — the comment's author stays `github-actions[bot]` — and forges what used to
//! relax the breaker: a person's turn, a maintainer's resume, emptied evidence. Each forge
//! is tried with `LOOPGUARD_STATE_KEY` (the seal breaks: said so, the step fails) and
//! without it (what could relax the breaker is derived from GitHub's own record; a claim
//! that record does not back is tampering too). In every case the next push with the same
//! failure is refused.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use serde_json::{Value, json};

use crate::support::ci::*;
use crate::support::github_fake::{BOT_LOGIN, FakeGitHub, PrSpec, RunSpec};
use loopguard::github::{GitHubClient, RepoId, Token};

/// A token of the agent's own workflow: the fake GitHub acts as `github-actions[bot]` for
/// a token it does not know, as GitHub does for any workflow's `GITHUB_TOKEN`.
const AGENT_TOKEN: &str = "ghs_agent0own0workflow0token000000000000";

/// The title of the annotation that says the comment was edited.
const TAMPERED: &str = "::error title=loopguard%3A its comment was edited::";

fn agent(gh: &FakeGitHub) -> GitHubClient {
    GitHubClient::builder()
        .api_url(gh.uri())
        .token(Token::new(AGENT_TOKEN).unwrap())
        .repo(RepoId::new("octo-org", "widgets"))
        .time_scale(0.001)
        .build()
        .unwrap()
}

/// The agent rewrites the state in loopguard's comment on `pr` with `edit`, through the
/// REST API with its own token, leaving the rest of the body (a seal line too) as it is.
fn forge(gh: &FakeGitHub, pr: u64, edit: impl FnOnce(&mut Value)) {
    let c = agent(gh);
    let comments = c.issue_comments(pr).unwrap();
    let sticky = comments
        .iter()
        .find(|c| c.body.starts_with("<!-- loopguard:sticky -->"))
        .expect("loopguard's comment");
    let line = sticky
        .body
        .lines()
        .find(|l| l.starts_with("<!-- loopguard:state v1 "))
        .expect("its state line");
    let encoded = &line["<!-- loopguard:state v1 ".len()..line.len() - " -->".len()];
    let mut state: Value = serde_json::from_slice(&STANDARD.decode(encoded).unwrap()).unwrap();
    edit(&mut state);
    let forged = format!(
        "<!-- loopguard:state v1 {} -->",
        STANDARD.encode(serde_json::to_vec(&state).unwrap())
    );
    c.update_comment(sticky.id, &sticky.body.replacen(line, &forged, 1))
        .unwrap();
    let after = gh.comments_on(pr);
    let ours = after.iter().find(|x| x.id == sticky.id).unwrap();
    assert_eq!(
        ours.author.as_deref(),
        Some(BOT_LOGIN),
        "the edit keeps the comment's author"
    );
}

/// The push of `head` and loopguard's step on it, with or without the key; `log` is the
/// test log of the run (none: the run gave no test evidence).
fn push(p: &Project, gh: &FakeGitHub, head: &str, log: Option<&str>, key: bool) -> Outcome {
    match log {
        Some(log) => p.pushed(gh, head, log),
        None => gh.add_run(
            RunSpec::new(gh.next_run_id(), head)
                .head(BRANCH, None)
                .created(&gh.person_time())
                .conclusion(Some("cancelled")),
        ),
    }
    let mut step = CiStep::new(gh, &p.repo)
        .event("pull_request", &p.sync_event(head))
        .arg("ci");
    if let Some(log) = log {
        step = step.args(["--log".to_owned(), log_path(log)]);
    }
    if !key {
        step = step.without_key();
    }
    step.run()
}

/// `n` attempts that fail the same way, each pushed and judged.
fn failing(p: &mut Project, gh: &FakeGitHub, n: usize, key: bool) -> Vec<Outcome> {
    let mut outs = Vec::new();
    for (i, (body, log)) in SAME[..n].iter().enumerate() {
        let head = p.attempt(body, &format!("Try {i}"));
        gh.add_pr(p.pr(7, &head));
        outs.push(push(p, gh, &head, Some(log), key));
    }
    outs
}

/// The step refused the push as loopguard judges it without the forgery: the breaker is
/// open on the same failure.
fn assert_stuck(out: &Outcome, what: &str) {
    assert_eq!(out.outputs["state"], "open", "{what}: {out:#?}");
    assert_eq!(out.outputs["rule"], "same_error", "{what}: {out:#?}");
    assert!(
        out.outputs["reason"].starts_with("the same failure ("),
        "{what}: {out:#?}"
    );
}

/// The step said the comment was edited and failed (exit 2, whatever `fail-on-trip`).
fn assert_tampering(out: &Outcome, what: &str, said: &str) {
    assert_eq!(out.code, 2, "{what}: {out:#?}");
    assert!(
        out.stdout.lines().any(|l| l.starts_with(TAMPERED)),
        "{what}: {}",
        out.stdout
    );
    assert!(out.stderr.contains(said), "{what}: {}", out.stderr);
    assert!(
        out.stderr
            .contains("loopguard: error: loopguard's comment on PR #7 was edited"),
        "{what}: {}",
        out.stderr
    );
}

/// loopguard's comment on PR 7 (the agent's own comments have the same author).
fn sticky(gh: &FakeGitHub) -> String {
    gh.comments_on(7)
        .into_iter()
        .find(|c| c.body.starts_with("<!-- loopguard:sticky -->"))
        .expect("loopguard's comment")
        .body
}

/// loopguard wrote its comment again, with nothing of the forgery (sealed with the key).
fn assert_rewritten(gh: &FakeGitHub, key: bool, forged: &str) {
    let what = format!("key {key}");
    let body = sticky(gh);
    assert_eq!(
        body.contains("<!-- loopguard:seal v1 "),
        key,
        "{what}: {body}"
    );
    let line = body
        .lines()
        .find(|l| l.starts_with("<!-- loopguard:state v1 "))
        .unwrap();
    let encoded = &line["<!-- loopguard:state v1 ".len()..line.len() - " -->".len()];
    let state = String::from_utf8(STANDARD.decode(encoded).unwrap()).unwrap();
    assert!(!state.contains(forged), "{what}: {state}");
}

#[test]
fn a_forged_persons_turn_in_the_comment_starts_no_new_episode() {
    for key in [true, false] {
        let mut p = Project::new(CONFIG);
        let gh = FakeGitHub::start_blocking();
        failing(&mut p, &gh, 2, key);
        let second = p.attempts[1].clone();
        // The turn a maintainer's review used to leave in the state, and a comment of
        // the agent's own (its token comments as the bot): neither is a person's turn.
        forge(&gh, 7, |s| {
            s["turns"] =
                json!([{"after": second, "at": "2026-11-25T12:01:30Z", "by": "maintainer"}]);
        });
        agent(&gh)
            .create_comment(7, "@maintainer took a look: start over", "")
            .unwrap();
        let head = p.attempt(SAME[2].0, "Try 2");
        gh.add_pr(p.pr(7, &head));
        let out = push(&p, &gh, &head, Some(SAME[2].1), key);
        assert_stuck(&out, &format!("key {key}"));
        assert_eq!(gh.labels(7), [LABEL]);
        assert_tampering(
            &out,
            &format!("key {key}"),
            if key {
                "does not match its seal"
            } else {
                "a person's turn by maintainer after"
            },
        );
        assert_rewritten(&gh, key, "turns");
    }
}

#[test]
fn a_forged_resume_and_the_label_taken_off_by_the_agent_leave_the_breaker_open() {
    for key in [true, false] {
        let mut p = Project::new(CONFIG);
        let gh = FakeGitHub::start_blocking();
        let outs = failing(&mut p, &gh, 3, key);
        assert_eq!(outs[2].code, 1, "{:#?}", outs[2]);
        assert_eq!(gh.labels(7), [LABEL]);
        let third = p.attempts[2].clone();
        // A resume as a maintainer's label removal used to leave it, and one as the
        // dashboard leaves it (naming a run that is no dashboard's); the label taken off
        // with the agent's token.
        forge(&gh, 7, |s| {
            s["resumes"] = json!([
                {"after": third, "at": "2026-11-25T12:02:30Z", "by": "maintainer"},
                {"after": third, "at": "2026-11-25T12:02:40Z", "by": "maintainer", "run": 880001}
            ]);
        });
        assert!(agent(&gh).remove_label(7, LABEL).unwrap());
        // The next push runs no tests: after a resume it would wait, half-open, and pass.
        let head = p.attempt(SAME[3].0, "Try 3");
        gh.add_pr(p.pr(7, &head));
        let out = push(&p, &gh, &head, None, key);
        assert_stuck(&out, &format!("key {key}"));
        assert!(!out.summary.contains("half-open"), "{}", out.summary);
        assert_eq!(gh.labels(7), [LABEL], "the label goes back on");
        assert!(
            out.stderr
                .contains("was taken off by github-actions[bot], a bot, not a person"),
            "{}",
            out.stderr
        );
        assert_tampering(
            &out,
            &format!("key {key}"),
            if key {
                "does not match its seal"
            } else {
                "a resume by maintainer"
            },
        );
        assert_rewritten(&gh, key, "resumes");
    }
}

#[test]
fn emptied_evidence_is_read_again_from_the_workflow_runs() {
    for key in [true, false] {
        let mut p = Project::new(CONFIG);
        let gh = FakeGitHub::start_blocking();
        failing(&mut p, &gh, 2, key);
        forge(&gh, 7, |s| {
            let o = s.as_object_mut().unwrap();
            for field in ["evidence", "records", "seen", "judged", "last"] {
                o.remove(field);
            }
        });
        let head = p.attempt(SAME[2].0, "Try 2");
        gh.add_pr(p.pr(7, &head));
        let out = push(&p, &gh, &head, Some(SAME[2].1), key);
        assert_stuck(&out, &format!("key {key}"));
        assert_eq!(gh.labels(7), [LABEL]);
        if key {
            assert_tampering(&out, "key", "does not match its seal");
        } else {
            // Without a key an emptied cache cannot be told from a new one, and changes
            // nothing: the evidence comes from the earlier heads' runs.
            assert_eq!(out.code, 1, "{out:#?}");
        }
    }
}

#[test]
fn a_state_sealed_with_another_key_is_not_trusted() {
    let mut p = Project::new(CONFIG);
    let gh = FakeGitHub::start_blocking();
    failing(&mut p, &gh, 2, true);
    // The agent holds a key of its own (another repository's, one it made up): a state it
    // seals with that key does not verify with the workflow's.
    let head = p.attempt(SAME[2].0, "Try 2");
    gh.add_pr(p.pr(7, &head));
    p.pushed(&gh, &head, SAME[2].1);
    let out = CiStep::new(&gh, &p.repo)
        .event("pull_request", &p.sync_event(&head))
        .arg("ci")
        .args(["--log".to_owned(), log_path(SAME[2].1)])
        .key(&"a".repeat(64))
        .run();
    assert_stuck(&out, "another key");
    assert_tampering(&out, "another key", "does not match its seal");
}

#[test]
fn without_a_key_every_run_derives_what_could_relax_the_breaker() {
    // Ten iterations, failures and passes in turn, each pushed and tested in CI; the
    // history in the checkout. Steady state, without the key and with it.
    for key in [true, false] {
        let mut p = Project::new(CONFIG);
        let gh = FakeGitHub::start_blocking();
        let mut head = String::new();
        for i in 0..10 {
            let (body, log) = if i % 2 == 0 {
                (format!("s.split(' ').count() + {i} - {i}"), OTHER_LOG)
            } else {
                (
                    format!("s.split_whitespace().count() + {i} - {i}"),
                    PASS_LOG,
                )
            };
            head = p.attempt(&body, &format!("Iteration {i}"));
            gh.add_pr(p.pr(7, &head));
            let out = push(&p, &gh, &head, Some(log), key);
            assert_eq!(out.code, 0, "{out:#?}");
        }
        gh.clear_requests();
        let again = push(&p, &gh, &head, Some(PASS_LOG), key);
        assert_eq!(again.code, 0, "{again:#?}");
        assert!(gh.writes().is_empty(), "{:#?}", gh.writes());
        let list: Vec<String> = gh
            .requests()
            .iter()
            .map(|r| format!("{} {}", r.method, r.path))
            .collect();
        println!(
            "steady-state requests, 10 iterations, git history, key {key}: {}",
            list.len()
        );
        if key {
            assert_eq!(list.len(), 3, "pull, timeline, comments: {list:#?}");
        } else {
            // And the branch's runs, this run's (its workflow holds the tests), for each
            // failing earlier head the rules look back to its failed job and that job's
            // log (a redirect and the download), and the stuck-loop issue by its marker
            // (an untrusted state's issue number is not taken).
            assert_eq!(list.len(), 3 + 2 + 3 * 5 + 1, "{list:#?}");
        }
    }
}

#[test]
fn an_older_sealed_state_put_back_after_a_force_push_is_not_trusted() {
    // loopguard's own sealed state after the first push, put back once the agent has
    // squashed its three failing attempts into one: the seal verifies, but the state does
    // not know two heads the PR's workflow runs show.
    let mut p = Project::new(CONFIG);
    let gh = FakeGitHub::start_blocking();
    failing(&mut p, &gh, 1, true);
    let first = sticky(&gh);
    for (i, (body, log)) in SAME[..3].iter().enumerate().skip(1) {
        let head = p.attempt(body, &format!("Try {i}"));
        gh.add_pr(p.pr(7, &head));
        push(&p, &gh, &head, Some(log), true);
    }
    p.repo.git(&["reset", "-q", "--soft", &p.base]);
    p.repo.append("src/lib.rs", "// squashed\n");
    let squash = p.repo.commit("Fix word counting");
    gh.add_pr(
        PrSpec::new(7, &squash)
            .base("main", &p.base)
            .head_ref(BRANCH)
            .commits(vec![commit_spec(&p.repo, &squash)]),
    );
    let id = gh
        .comments_on(7)
        .into_iter()
        .find(|c| c.body.starts_with("<!-- loopguard:sticky -->"))
        .unwrap()
        .id;
    agent(&gh).update_comment(id, &first).unwrap();
    let out = push(&p, &gh, &squash, Some(SAME_LOGS[1]), true);
    assert_stuck(&out, "replayed state");
    assert_tampering(&out, "replayed state", "does not know 2 head(s)");
}
