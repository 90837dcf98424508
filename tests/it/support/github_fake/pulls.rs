//! Pull requests and commits: `/pulls`, `/pulls/{n}`, `/pulls/{n}/commits`, `/pulls/{n}/reviews`, `/commits/{sha}` (its files paged) and `/commits/{sha}/pulls`.

use super::*;

pub(super) fn route(
    s: &mut State,
    ctx: &Ctx<'_>,
    method: &str,
    parts: &[&str],
) -> Option<ResponseTemplate> {
    Some(match (method, parts) {
        ("GET", ["pulls"]) => {
            let state = ctx.query("state").unwrap_or_else(|| "open".into());
            let head = ctx.query("head");
            let mut prs: Vec<&PrSpec> = s
                .prs
                .values()
                .filter(|p| state == "all" || p.state == state)
                .filter(|p| {
                    head.as_deref().is_none_or(|h| {
                        let owner = head_owner(p, s);
                        h == format!("{owner}:{}", p.head_ref)
                    })
                })
                .collect();
            // GitHub sorts by `created` (newest first) unless asked otherwise.
            let desc = ctx.query("direction").as_deref() != Some("asc");
            match ctx.query("sort").as_deref() {
                Some("updated") => prs.sort_by(|a, b| a.updated_at.cmp(&b.updated_at)),
                _ => prs.sort_by(|a, b| (&a.created_at, a.number).cmp(&(&b.created_at, b.number))),
            }
            if desc {
                prs.reverse();
            }
            let items = prs.into_iter().map(|p| pr_json(s, p)).collect();
            paged(ctx, items, None)
        }
        ("GET", ["pulls", n]) => match n.parse().ok().and_then(|n: u64| s.prs.get(&n)) {
            Some(pr) => ok(pr_json(s, pr)),
            None => error(404, "Not Found"),
        },
        ("GET", ["pulls", n, "commits"]) => match n.parse().ok().and_then(|n: u64| s.prs.get(&n)) {
            Some(pr) => {
                let items = pr
                    .commits
                    .iter()
                    .take(250)
                    .map(|c| commit_json(s, c, false))
                    .collect();
                paged(ctx, items, None)
            }
            None => error(404, "Not Found"),
        },
        ("GET", ["pulls", n, "reviews"]) => {
            let n: u64 = n.parse().unwrap_or(0);
            let items = s
                .reviews
                .iter()
                .filter(|r| r.0 == n)
                .map(|r| review_json(s, r))
                .collect();
            paged(ctx, items, None)
        }
        ("GET", ["commits", sha]) => match s.commits.get(*sha) {
            Some(c) => commit_page(s, ctx, c),
            None => error(422, "No commit found for SHA: unknown"),
        },
        ("GET", ["commits", sha, "pulls"]) => {
            if !s.commits.contains_key(*sha) {
                return Some(error(422, "No commit found for SHA"));
            }
            // GitHub lists PRs of the base repository whose commits include it; a fork's
            // commit is not found this way, which is why callers fall back to listing.
            let items = s
                .prs
                .values()
                .filter(|p| p.head_repo.is_none() && p.commits.iter().any(|c| c.sha == *sha))
                .map(|p| pr_json(s, p))
                .collect();
            paged(ctx, items, None)
        }
        _ => return None,
    })
}

pub(super) fn commit_page(s: &State, ctx: &Ctx<'_>, c: &CommitSpec) -> ResponseTemplate {
    let page = ctx
        .query("page")
        .and_then(|p| p.parse::<usize>().ok())
        .unwrap_or(1)
        .max(1);
    let mut body = commit_json(s, c, true);
    let files: Vec<Value> = c
        .files
        .iter()
        .skip((page - 1) * FILES_PER_PAGE)
        .take(FILES_PER_PAGE)
        .map(file_json)
        .collect();
    body["files"] = Value::Array(files);
    let last = c.files.len().div_ceil(FILES_PER_PAGE).max(1);
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
