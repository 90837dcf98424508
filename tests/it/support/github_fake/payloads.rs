//! GitHub's payloads as the REST API returns them: users, repositories, PRs (and PRs as
//! issues), commits and their files, workflow runs and jobs, comments, issues.

use super::*;

pub(super) fn enc(value: &str) -> String {
    const UNRESERVED: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
        .remove(b'-')
        .remove(b'.')
        .remove(b'_')
        .remove(b'~');
    percent_encoding::utf8_percent_encode(value, UNRESERVED).to_string()
}

pub(super) fn decode(segment: &str) -> String {
    percent_encoding::percent_decode_str(segment)
        .decode_utf8_lossy()
        .into_owned()
}

pub(super) fn head_owner(pr: &PrSpec, s: &State) -> String {
    match &pr.head_repo {
        Some(full) if !full.is_empty() => full.split('/').next().unwrap_or_default().to_owned(),
        Some(_) => String::new(),
        None => s.owner.clone(),
    }
}

// ---- payloads --------------------------------------------------------------------------

pub(super) fn login_id(login: &str) -> u64 {
    login
        .bytes()
        .fold(7u64, |h, b| h.wrapping_mul(31).wrapping_add(u64::from(b)))
        % 100_000_000
}

pub(super) fn user_json(login: &str) -> Value {
    let id = login_id(login);
    json!({
        "login": login, "id": id, "node_id": format!("U_{id}"),
        "avatar_url": format!("https://avatars.githubusercontent.com/u/{id}?v=4"),
        "gravatar_id": "", "url": format!("https://api.github.com/users/{login}"),
        "html_url": format!("https://github.com/{login}"),
        "type": if login.ends_with("[bot]") { "Bot" } else { "User" },
        "user_view_type": "public", "site_admin": false
    })
}

pub(super) fn opt_user(login: Option<&str>) -> Value {
    login.map_or(Value::Null, user_json)
}

pub(super) fn repo_json(full_name: &str, fork: bool) -> Value {
    let (owner, name) = full_name.split_once('/').unwrap_or(("ghost", full_name));
    let id = login_id(full_name);
    json!({
        "id": id, "node_id": format!("R_{id}"), "name": name, "full_name": full_name,
        "private": false, "owner": user_json(owner),
        "html_url": format!("https://github.com/{full_name}"),
        "description": null, "fork": fork,
        "url": format!("https://api.github.com/repos/{full_name}"),
        "default_branch": "main", "visibility": "public"
    })
}

pub(super) fn pr_json(s: &State, p: &PrSpec) -> Value {
    let full = s.full_name();
    let head_repo = match &p.head_repo {
        None => repo_json(&full, false),
        Some(f) if f.is_empty() => Value::Null,
        Some(f) => repo_json(f, true),
    };
    let head_owner = head_owner(p, s);
    let labels: Vec<Value> = s
        .issue_labels
        .get(&p.number)
        .map(|ls| ls.iter().map(|l| s.label_json(l)).collect())
        .unwrap_or_default();
    json!({
        "url": format!("https://api.github.com/repos/{full}/pulls/{}", p.number),
        "id": 1_000_000 + p.number, "node_id": format!("PR_{}", p.number),
        "html_url": format!("https://github.com/{full}/pull/{}", p.number),
        "number": p.number, "state": p.state, "locked": false, "title": p.title,
        "user": opt_user(p.user.as_deref()), "body": p.body,
        "labels": labels, "milestone": null, "draft": false,
        "created_at": p.created_at, "updated_at": p.updated_at,
        "closed_at": p.closed.as_ref().map(|(_, at)| at.clone()),
        "merged_at": p.closed.as_ref().filter(|(merged, _)| *merged).map(|(_, at)| at.clone()),
        "merge_commit_sha": format!("merge{}", p.head_sha),
        "assignee": null, "assignees": [], "requested_reviewers": [], "requested_teams": [],
        "head": {
            "label": format!("{head_owner}:{}", p.head_ref), "ref": p.head_ref, "sha": p.head_sha,
            "user": if head_owner.is_empty() { Value::Null } else { user_json(&head_owner) },
            "repo": head_repo
        },
        "base": {
            "label": format!("{}:{}", s.owner, p.base_ref), "ref": p.base_ref, "sha": p.base_sha,
            "user": user_json(&s.owner), "repo": repo_json(&full, false)
        },
        "author_association": "CONTRIBUTOR", "auto_merge": null, "active_lock_reason": null,
        "merged": p.closed.as_ref().is_some_and(|(merged, _)| *merged), "mergeable": null, "comments": 0, "review_comments": 0,
        "commits": p.commits.len(), "additions": 0, "deletions": 0, "changed_files": 0
    })
}

pub(super) fn pr_as_issue_json(s: &State, p: &PrSpec) -> Value {
    let full = s.full_name();
    json!({
        "id": 2_000_000 + p.number, "number": p.number, "title": p.title,
        "user": opt_user(p.user.as_deref()), "state": p.state, "body": p.body,
        "labels": s.issue_labels.get(&p.number).map(|ls| ls.iter().map(|l| s.label_json(l)).collect::<Vec<_>>()).unwrap_or_default(),
        "html_url": format!("https://github.com/{full}/pull/{}", p.number),
        "pull_request": {
            "url": format!("https://api.github.com/repos/{full}/pulls/{}", p.number),
            "html_url": format!("https://github.com/{full}/pull/{}", p.number),
            "merged_at": null
        }
    })
}

pub(super) fn commit_json(s: &State, c: &CommitSpec, with_stats: bool) -> Value {
    let full = s.full_name();
    let signature = json!({"name": c.author_name, "email": c.author_email, "date": c.date});
    let mut v = json!({
        "sha": c.sha, "node_id": format!("C_{}", c.sha),
        "commit": {
            "author": signature, "committer": signature, "message": c.message,
            "tree": {"sha": c.tree, "url": format!("https://api.github.com/repos/{full}/git/trees/{}", c.tree)},
            "url": format!("https://api.github.com/repos/{full}/git/commits/{}", c.sha),
            "comment_count": 0,
            "verification": {"verified": false, "reason": "unsigned", "signature": null, "payload": null}
        },
        "url": format!("https://api.github.com/repos/{full}/commits/{}", c.sha),
        "html_url": format!("https://github.com/{full}/commit/{}", c.sha),
        "author": opt_user(c.author_login.as_deref()),
        "committer": user_json("web-flow"),
        "parents": c.parents.iter().map(|p| json!({"sha": p, "url": format!("https://api.github.com/repos/{full}/commits/{p}")})).collect::<Vec<_>>()
    });
    if with_stats {
        let additions: u64 = c.files.iter().map(|f| f.additions).sum();
        let deletions: u64 = c.files.iter().map(|f| f.deletions).sum();
        v["stats"] =
            json!({"total": additions + deletions, "additions": additions, "deletions": deletions});
    }
    v
}

pub(super) fn file_json(f: &FileSpec) -> Value {
    let mut v = json!({
        "sha": format!("blob-{}", f.filename.len()), "filename": f.filename, "status": f.status,
        "additions": f.additions, "deletions": f.deletions, "changes": f.additions + f.deletions,
        "blob_url": "https://github.com/blob", "raw_url": "https://github.com/raw",
        "contents_url": "https://api.github.com/contents"
    });
    if let Some(patch) = &f.patch {
        v["patch"] = json!(patch);
    }
    if let Some(prev) = &f.previous_filename {
        v["previous_filename"] = json!(prev);
    }
    v
}

pub(super) fn run_json(s: &State, r: &RunSpec) -> Value {
    let full = s.full_name();
    let head_full = r.head_repo.clone().unwrap_or_else(|| full.clone());
    let prs: Vec<Value> = r
        .pull_requests
        .iter()
        .filter_map(|n| s.prs.get(n))
        .map(|p| {
            json!({
                "url": format!("https://api.github.com/repos/{full}/pulls/{}", p.number),
                "id": 1_000_000 + p.number, "number": p.number,
                "head": {"ref": p.head_ref, "sha": r.head_sha, "repo": {"id": 1, "url": "", "name": s.name}},
                "base": {"ref": p.base_ref, "sha": p.base_sha, "repo": {"id": 1, "url": "", "name": s.name}}
            })
        })
        .collect();
    json!({
        "id": r.id, "name": r.name, "node_id": format!("WFR_{}", r.id),
        "head_branch": r.head_branch, "head_sha": r.head_sha,
        "path": ".github/workflows/ci.yml", "display_title": "Agent PR",
        "run_number": r.id % 1000, "run_attempt": r.earlier_attempts.len() + 1, "event": r.event,
        "status": r.status, "conclusion": r.conclusion, "workflow_id": r.workflow_id,
        "check_suite_id": r.id + 5, "url": format!("https://api.github.com/repos/{full}/actions/runs/{}", r.id),
        "html_url": format!("https://github.com/{full}/actions/runs/{}", r.id),
        "pull_requests": prs, "created_at": r.created_at,
        "updated_at": r.updated_at.as_ref().unwrap_or(&r.created_at),
        "actor": user_json(&r.actor), "triggering_actor": user_json(&r.actor),
        "run_started_at": r.run_started_at.as_ref().unwrap_or(&r.created_at),
        "jobs_url": format!("https://api.github.com/repos/{full}/actions/runs/{}/jobs", r.id),
        "logs_url": format!("https://api.github.com/repos/{full}/actions/runs/{}/logs", r.id),
        "head_commit": null,
        "repository": repo_json(&full, false),
        "head_repository": repo_json(&head_full, head_full != full)
    })
}

pub(super) fn job_json(s: &State, r: &RunSpec, j: &JobSpec) -> Value {
    let full = s.full_name();
    json!({
        "id": j.id, "run_id": r.id, "workflow_name": r.name, "head_branch": r.head_branch,
        "run_url": format!("https://api.github.com/repos/{full}/actions/runs/{}", r.id),
        "run_attempt": 1, "node_id": format!("CR_{}", j.id), "head_sha": r.head_sha,
        "url": format!("https://api.github.com/repos/{full}/actions/jobs/{}", j.id),
        "html_url": format!("https://github.com/{full}/actions/runs/{}/job/{}", r.id, j.id),
        "status": "completed", "conclusion": j.conclusion,
        "created_at": r.created_at, "started_at": r.created_at, "completed_at": r.created_at,
        "name": j.name,
        "steps": [
            {"name": "Set up job", "status": "completed", "conclusion": "success", "number": 1},
            {"name": "Run tests", "status": "completed", "conclusion": j.conclusion, "number": 2}
        ],
        "labels": ["ubuntu-latest"], "runner_id": null, "runner_name": null
    })
}

pub(super) fn comment_json(s: &State, c: &FakeComment) -> Value {
    let full = s.full_name();
    json!({
        "id": c.id, "node_id": format!("IC_{}", c.id),
        "url": format!("https://api.github.com/repos/{full}/issues/comments/{}", c.id),
        "html_url": format!("https://github.com/{full}/pull/{}#issuecomment-{}", c.issue, c.id),
        "body": c.body, "user": opt_user(c.author.as_deref()),
        "created_at": c.created_at, "updated_at": c.updated_at,
        "issue_url": format!("https://api.github.com/repos/{full}/issues/{}", c.issue),
        "author_association": association(s, c.author.as_deref()),
        "performed_via_github_app": null
    })
}

/// What GitHub says of an author beside a comment or review: a member when they may write
/// (the fake's permissions), else none.
pub(super) fn association(s: &State, login: Option<&str>) -> &'static str {
    let writes = login
        .and_then(|l| s.permissions.get(l))
        .is_some_and(|p| matches!(p.as_str(), "admin" | "maintain" | "write"));
    if writes { "MEMBER" } else { "NONE" }
}

pub(super) fn review_json(
    s: &State,
    (pr, reviewer, state, at): &(u64, String, String, String),
) -> Value {
    let full = s.full_name();
    json!({
        "id": login_id(&format!("{reviewer}{at}")), "user": user_json(reviewer),
        "body": "", "state": state, "submitted_at": at,
        "html_url": format!("https://github.com/{full}/pull/{pr}#pullrequestreview"),
        "author_association": association(s, Some(reviewer)), "commit_id": null
    })
}

pub(super) fn issue_json(s: &State, i: &FakeIssue) -> Value {
    let full = s.full_name();
    json!({
        "id": 3_000_000 + i.number, "node_id": format!("I_{}", i.number),
        "url": format!("https://api.github.com/repos/{full}/issues/{}", i.number),
        "html_url": format!("https://github.com/{full}/issues/{}", i.number),
        "number": i.number, "state": i.state, "title": i.title, "body": i.body,
        "user": opt_user(i.author.as_deref()),
        "labels": i.labels.iter().map(|l| s.label_json(l)).collect::<Vec<_>>(),
        "assignee": null, "assignees": [], "milestone": null, "locked": false,
        "comments": 0, "closed_at": null,
        "created_at": "2026-11-25T10:00:00Z", "updated_at": now_rfc3339(),
        "author_association": "NONE", "state_reason": null
    })
}
