//! Issues: listed (PRs too, as GitHub does), read, created and edited.

use super::*;

pub(super) fn route(
    s: &mut State,
    ctx: &Ctx<'_>,
    method: &str,
    parts: &[&str],
) -> Option<ResponseTemplate> {
    Some(match (method, parts) {
        ("GET", ["issues", n]) => {
            let n: u64 = n.parse().unwrap_or(0);
            if let Some(issue) = s.issues.get(&n) {
                ok(issue_json(s, issue))
            } else if let Some(pr) = s.prs.get(&n) {
                ok(pr_as_issue_json(s, pr))
            } else {
                error(404, "Not Found")
            }
        }
        ("GET", ["issues", n, "events"]) => {
            let n: u64 = n.parse().unwrap_or(0);
            let events: Vec<Value> = s
                .label_events
                .get(&n)
                .into_iter()
                .flatten()
                .map(|(event, label, actor, at)| {
                    json!({"id": 1, "event": event, "actor": user_json(actor),
                           "label": {"name": label, "color": "b60205"},
                           "created_at": at})
                })
                .collect();
            paged(ctx, events, None)
        }
        ("GET", ["issues"]) => {
            let state = ctx.query("state").unwrap_or_else(|| "open".into());
            let labels: Vec<String> = ctx
                .query("labels")
                .map(|l| l.split(',').map(str::to_owned).collect())
                .unwrap_or_default();
            // The issues API lists PRs too (with a `pull_request` key), newest first.
            // Every fake issue counts as updated now, so `since` keeps them all.
            let mut items: Vec<(u64, Value)> = s
                .issues
                .values()
                .filter(|i| state == "all" || i.state == state)
                .filter(|i| labels.iter().all(|l| i.labels.contains(l)))
                .map(|i| (i.number, issue_json(s, i)))
                .collect();
            items.extend(
                s.prs
                    .values()
                    .filter(|p| state == "all" || p.state == state)
                    .filter(|p| {
                        let on = s.issue_labels.get(&p.number).cloned().unwrap_or_default();
                        labels.iter().all(|l| on.contains(l))
                    })
                    .map(|p| (p.number, pr_as_issue_json(s, p))),
            );
            items.sort_by_key(|item| std::cmp::Reverse(item.0));
            paged(ctx, items.into_iter().map(|(_, v)| v).collect(), None)
        }
        ("POST", ["issues"]) => {
            let body = ctx.body();
            let Some(title) = body["title"].as_str().map(str::to_owned) else {
                return Some(error(422, "Validation Failed"));
            };
            let text = body["body"].as_str().unwrap_or_default().to_owned();
            if text.chars().count() > 65_536 {
                return Some(error(422, "Body is too long (maximum is 65536 characters)"));
            }
            let labels: Vec<String> = body["labels"]
                .as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(|v| v.as_str().map(str::to_owned))
                        .collect()
                })
                .unwrap_or_default();
            for l in &labels {
                s.ensure_repo_label(l);
            }
            let number = s.next_number();
            let issue = FakeIssue {
                number,
                title,
                body: text,
                state: "open".into(),
                author: Some(s.bot_login.clone()),
                labels,
            };
            let json = issue_json(s, &issue);
            s.issues.insert(number, issue);
            created(json)
        }
        ("PATCH", ["issues", n]) => {
            let n: u64 = n.parse().unwrap_or(0);
            let body = ctx.body();
            let labels: Option<Vec<String>> = body["labels"].as_array().map(|a| {
                a.iter()
                    .filter_map(|v| v.as_str().map(str::to_owned))
                    .collect()
            });
            if let Some(labels) = &labels {
                for l in labels {
                    s.ensure_repo_label(l);
                }
            }
            let Some(issue) = s.issues.get_mut(&n) else {
                return Some(error(404, "Not Found"));
            };
            if let Some(t) = body["title"].as_str() {
                issue.title = t.into();
            }
            if let Some(b) = body["body"].as_str() {
                issue.body = b.into();
            }
            if let Some(st) = body["state"].as_str() {
                issue.state = st.into();
            }
            if let Some(labels) = labels {
                issue.labels = labels;
            }
            let issue = issue.clone();
            ok(issue_json(s, &issue))
        }
        _ => return None,
    })
}
