//! Issue and PR comments: the repository-wide list (`since`, `sort`), one issue's, and a comment read, created or edited (GitHub's 65,536-character limit).

use super::*;

pub(super) fn route(
    s: &mut State,
    ctx: &Ctx<'_>,
    method: &str,
    parts: &[&str],
) -> Option<ResponseTemplate> {
    Some(match (method, parts) {
        ("GET", ["issues", "comments"]) => {
            let since = ctx
                .query("since")
                .and_then(|t| t.parse::<jiff::Timestamp>().ok());
            let mut items: Vec<&FakeComment> = s
                .comments
                .iter()
                .filter(|c| {
                    since.is_none_or(|t| {
                        c.updated_at
                            .parse::<jiff::Timestamp>()
                            .is_ok_and(|u| u >= t)
                    })
                })
                .collect();
            // By id unless sorted; `direction` only with `sort`.
            if let Some(key) = ctx.query("sort") {
                items.sort_by(|a, b| {
                    let (x, y) = if key == "updated" {
                        (&a.updated_at, &b.updated_at)
                    } else {
                        (&a.created_at, &b.created_at)
                    };
                    (x, a.id).cmp(&(y, b.id))
                });
                if ctx.query("direction").as_deref() == Some("desc") {
                    items.reverse();
                }
            }
            let items = items.into_iter().map(|c| comment_json(s, c)).collect();
            paged(ctx, items, None)
        }
        ("GET", ["issues", n, "comments"]) => {
            let n: u64 = n.parse().unwrap_or(0);
            let since = ctx
                .query("since")
                .and_then(|t| t.parse::<jiff::Timestamp>().ok());
            let items = s
                .comments
                .iter()
                .filter(|c| c.issue == n)
                .filter(|c| {
                    since.is_none_or(|t| {
                        c.updated_at
                            .parse::<jiff::Timestamp>()
                            .is_ok_and(|u| u >= t)
                    })
                })
                .map(|c| comment_json(s, c))
                .collect();
            paged(ctx, items, None)
        }
        ("POST", ["issues", n, "comments"]) => {
            let n: u64 = n.parse().unwrap_or(0);
            if !s.prs.contains_key(&n) && !s.issues.contains_key(&n) {
                return Some(error(404, "Not Found"));
            }
            let Some(body) = ctx.body()["body"].as_str().map(str::to_owned) else {
                return Some(error(422, "Validation Failed"));
            };
            if body.chars().count() > 65_536 {
                return Some(error(422, "Body is too long (maximum is 65536 characters)"));
            }
            let id = s.next_id();
            // GitHub's own clock: a retried create looks for it among the last minutes'.
            let now = now_rfc3339();
            let author = s.acting(ctx.req);
            let comment = FakeComment {
                id,
                issue: n,
                author: Some(author),
                body,
                created_at: now.clone(),
                updated_at: now,
            };
            let json = comment_json(s, &comment);
            s.comments.push(comment);
            created(json)
        }
        ("GET", ["issues", "comments", id]) => {
            let id: u64 = id.parse().unwrap_or(0);
            match s.comments.iter().find(|c| c.id == id) {
                Some(c) => ok(comment_json(s, c)),
                None => error(404, "Not Found"),
            }
        }
        ("PATCH", ["issues", "comments", id]) => {
            let id: u64 = id.parse().unwrap_or(0);
            let Some(body) = ctx.body()["body"].as_str().map(str::to_owned) else {
                return Some(error(422, "Validation Failed"));
            };
            if body.chars().count() > 65_536 {
                return Some(error(422, "Body is too long (maximum is 65536 characters)"));
            }
            let Some(at) = s.comments.iter().position(|c| c.id == id) else {
                return Some(error(404, "Not Found"));
            };
            s.comments[at].body = body;
            s.comments[at].updated_at = now_rfc3339();
            let comment = s.comments[at].clone();
            ok(comment_json(s, &comment))
        }
        _ => return None,
    })
}
