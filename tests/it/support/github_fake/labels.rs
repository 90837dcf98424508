//! Labels: the repository's (`/labels`) and an issue's or PR's (`/issues/{n}/labels`).

use super::*;

pub(super) fn route(
    s: &mut State,
    ctx: &Ctx<'_>,
    method: &str,
    parts: &[&str],
) -> Option<ResponseTemplate> {
    Some(match (method, parts) {
        ("GET", ["labels", name]) => {
            let name = decode(name);
            if s.repo_labels.contains_key(&name) {
                ok(s.label_json(&name))
            } else {
                error(404, "Not Found")
            }
        }
        ("POST", ["labels"]) => {
            let body = ctx.body();
            let Some(name) = body["name"].as_str().map(str::to_owned) else {
                return Some(error(422, "Validation Failed"));
            };
            if s.repo_labels.contains_key(&name) {
                return Some(ResponseTemplate::new(422).set_body_json(json!({
                    "message": "Validation Failed",
                    "errors": [{"resource": "Label", "code": "already_exists", "field": "name"}],
                    "documentation_url": "https://docs.github.com/rest/issues/labels#create-a-label",
                    "status": "422"
                })));
            }
            let id = s.next_id();
            let color = body["color"].as_str().unwrap_or("ededed").to_owned();
            let description = body["description"].as_str().map(str::to_owned);
            s.repo_labels.insert(name.clone(), (id, color, description));
            created(s.label_json(&name))
        }
        ("GET", ["issues", n, "labels"]) => {
            let n: u64 = n.parse().unwrap_or(0);
            let names = s.issue_labels.get(&n).cloned().unwrap_or_default();
            let items = names.iter().map(|l| s.label_json(l)).collect();
            paged(ctx, items, None)
        }
        ("POST", ["issues", n, "labels"]) => {
            let n: u64 = n.parse().unwrap_or(0);
            if !s.prs.contains_key(&n) && !s.issues.contains_key(&n) {
                return Some(error(404, "Not Found"));
            }
            let wanted: Vec<String> = ctx.body()["labels"]
                .as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(|v| v.as_str().map(str::to_owned))
                        .collect()
                })
                .unwrap_or_default();
            for name in &wanted {
                // Adding a label the repository lacks creates it, as GitHub does.
                s.ensure_repo_label(name);
            }
            let (actor, at) = (s.acting(ctx.req), s.person_time());
            let before = s.issue_labels.get(&n).cloned().unwrap_or_default();
            let added: Vec<String> = wanted.into_iter().filter(|w| !before.contains(w)).collect();
            for name in &added {
                s.label_events.entry(n).or_default().push((
                    "labeled".into(),
                    name.clone(),
                    actor.clone(),
                    at.clone(),
                ));
            }
            let entry = s.issue_labels.entry(n).or_default();
            entry.extend(added);
            let names = entry.clone();
            ok(Value::Array(
                names.iter().map(|l| s.label_json(l)).collect(),
            ))
        }
        ("DELETE", ["issues", n, "labels", name]) => {
            let n: u64 = n.parse().unwrap_or(0);
            let name = decode(name);
            let (actor, when) = (s.acting(ctx.req), s.person_time());
            let entry = s.issue_labels.entry(n).or_default();
            if let Some(at) = entry.iter().position(|l| *l == name) {
                entry.remove(at);
                let names = entry.clone();
                s.label_events.entry(n).or_default().push((
                    "unlabeled".into(),
                    name.clone(),
                    actor,
                    when,
                ));
                ok(Value::Array(
                    names.iter().map(|l| s.label_json(l)).collect(),
                ))
            } else {
                error(404, "Label does not exist")
            }
        }
        _ => return None,
    })
}
