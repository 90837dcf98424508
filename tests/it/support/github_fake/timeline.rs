//! A PR's timeline (`/issues/{n}/timeline`: its comments, reviews, label changes and
//! force-pushes, as GitHub's REST docs give each entry) and the comparison of two commits
//! (`/compare/{base}...{head}`: the head's commits since the merge base, oldest first).

use super::*;

pub(super) fn route(
    s: &mut State,
    ctx: &Ctx<'_>,
    method: &str,
    parts: &[&str],
) -> Option<ResponseTemplate> {
    Some(match (method, parts) {
        ("GET", ["issues", n, "timeline"]) => {
            let n: u64 = n.parse().unwrap_or(0);
            if !s.prs.contains_key(&n) && !s.issues.contains_key(&n) {
                return Some(error(404, "Not Found"));
            }
            paged(ctx, timeline(s, n), None)
        }
        ("GET", ["compare", basehead]) => {
            let basehead = decode(basehead);
            let Some((base, head)) = basehead.split_once("...") else {
                return Some(error(404, "Not Found"));
            };
            match compare(s, base, head) {
                Some(commits) => compare_page(s, ctx, base, head, commits),
                None => error(404, "Not Found"),
            }
        }
        _ => return None,
    })
}

/// The timeline's entries of issue or PR `n`, oldest first.
fn timeline(s: &State, n: u64) -> Vec<Value> {
    let full = s.full_name();
    let mut entries: Vec<(String, Value)> = Vec::new();
    for c in s.comments.iter().filter(|c| c.issue == n) {
        let mut v = comment_json(s, c);
        v["event"] = json!("commented");
        v["actor"] = opt_user(c.author.as_deref());
        entries.push((c.created_at.clone(), v));
    }
    for r in s.reviews.iter().filter(|r| r.0 == n) {
        let mut v = review_json(s, r);
        v["event"] = json!("reviewed");
        v["node_id"] = json!(format!("PRR_{}", v["id"]));
        v["pull_request_url"] = json!(format!("https://api.github.com/repos/{full}/pulls/{n}"));
        v["_links"] = json!({"html": {"href": v["html_url"]}, "pull_request": {"href": v["pull_request_url"]}});
        entries.push((r.3.clone(), v));
    }
    for (i, (event, label, actor, at)) in s.label_events.get(&n).into_iter().flatten().enumerate() {
        entries.push((
            at.clone(),
            json!({
                "id": 6_430_000_000u64 + i as u64, "node_id": format!("LE_{n}_{i}"),
                "url": format!("https://api.github.com/repos/{full}/issues/events/{i}"),
                "actor": user_json(actor), "event": event, "commit_id": null, "commit_url": null,
                "created_at": at, "label": {"name": label, "color": "b60205"},
                "performed_via_github_app": null
            }),
        ));
    }
    for (i, (actor, at, head)) in s.force_pushes.get(&n).into_iter().flatten().enumerate() {
        entries.push((
            at.clone(),
            json!({
                "id": 7_430_000_000u64 + i as u64, "node_id": format!("HRFPE_{n}_{i}"),
                "url": format!("https://api.github.com/repos/{full}/issues/events/f{i}"),
                "actor": user_json(actor), "event": "head_ref_force_pushed",
                "commit_id": head,
                "commit_url": format!("https://api.github.com/repos/{full}/commits/{head}"),
                "created_at": at, "performed_via_github_app": null
            }),
        ));
    }
    // By time; a stable sort keeps each kind's own order within a second.
    entries.sort_by(|a, b| a.0.cmp(&b.0));
    entries.into_iter().map(|(_, v)| v).collect()
}

/// The commits of `head` back to `base` (or to a root), oldest first; `None` when GitHub
/// does not have `head`.
fn compare(s: &State, base: &str, head: &str) -> Option<Vec<CommitSpec>> {
    let mut out = Vec::new();
    let mut at = s.commits.get(head)?;
    loop {
        if at.sha == base {
            break;
        }
        out.push(at.clone());
        match at.parents.first().and_then(|p| s.commits.get(p)) {
            Some(parent) => at = parent,
            None => break,
        }
    }
    out.reverse();
    Some(out)
}

/// A page of a comparison: its commits paged as GitHub pages them (`per_page`, `page`).
fn compare_page(
    s: &State,
    ctx: &Ctx<'_>,
    base: &str,
    head: &str,
    commits: Vec<CommitSpec>,
) -> ResponseTemplate {
    let per_page = ctx
        .query("per_page")
        .and_then(|p| p.parse::<usize>().ok())
        .unwrap_or(250)
        .clamp(1, 250);
    let page = ctx
        .query("page")
        .and_then(|p| p.parse::<usize>().ok())
        .unwrap_or(1)
        .max(1);
    let total = commits.len();
    let last = total.div_ceil(per_page).max(1);
    let full = s.full_name();
    let body = json!({
        "url": format!("https://api.github.com/repos/{full}/compare/{base}...{head}"),
        "html_url": format!("https://github.com/{full}/compare/{base}...{head}"),
        "status": if total == 0 { "identical" } else { "ahead" },
        "ahead_by": total, "behind_by": 0, "total_commits": total,
        "commits": commits
            .iter()
            .skip((page - 1) * per_page)
            .take(per_page)
            .map(|c| commit_json(s, c, false))
            .collect::<Vec<_>>(),
        "files": []
    });
    let r = ok(body);
    if page < last {
        r.insert_header(
            "link",
            format!(
                "<{}>; rel=\"next\", <{}>; rel=\"last\"",
                ctx.page_url(page + 1),
                ctx.page_url(last)
            )
            .as_str(),
        )
    } else {
        r
    }
}
