//! GitHub Actions: workflow runs (of the repository and of a workflow), a run, its jobs, and a job's log (a redirect to the blob host).

use super::*;

pub(super) fn route(
    s: &mut State,
    ctx: &Ctx<'_>,
    method: &str,
    parts: &[&str],
) -> Option<ResponseTemplate> {
    Some(match (method, parts) {
        ("GET", ["actions", "runs"]) => runs_page(s, ctx, None),
        ("GET", ["actions", "workflows", id, "runs"]) => runs_page(s, ctx, id.parse().ok()),
        ("GET", ["actions", "runs", id]) => match s.runs.iter().find(|r| id.parse() == Ok(r.id)) {
            Some(run) => ok(run_json(s, run)),
            None => error(404, "Not Found"),
        },
        ("GET", ["actions", "runs", id, "attempts", n]) => {
            let run = s.runs.iter().find(|r| id.parse() == Ok(r.id));
            match (run, n.parse::<usize>()) {
                (Some(run), Ok(n)) if n >= 1 && n <= run.earlier_attempts.len() => {
                    let (started, updated) = &run.earlier_attempts[n - 1];
                    let mut v = run_json(s, run);
                    v["run_attempt"] = json!(n);
                    v["run_started_at"] = json!(started);
                    v["updated_at"] = json!(updated);
                    ok(v)
                }
                (Some(run), Ok(n)) if n == run.earlier_attempts.len() + 1 => ok(run_json(s, run)),
                _ => error(404, "Not Found"),
            }
        }
        ("GET", ["actions", "runs", id, "jobs"]) => {
            match s.runs.iter().find(|r| id.parse() == Ok(r.id)) {
                Some(run) => {
                    let items = run.jobs.iter().map(|j| job_json(s, run, j)).collect();
                    paged(ctx, items, Some("jobs"))
                }
                None => error(404, "Not Found"),
            }
        }
        ("GET", ["actions", "jobs", id, "logs"]) => {
            let job = s
                .runs
                .iter()
                .flat_map(|r| &r.jobs)
                .find(|j| id.parse() == Ok(j.id));
            match job.map(|j| &j.log) {
                Some(LogSpec::Text(_)) => ResponseTemplate::new(302).insert_header(
                    "location",
                    format!(
                        "{}/logs/{id}?sv=2021-08-06&se=2026-11-25T10%3A10%3A00Z&sig=c2lnbmF0dXJl",
                        s.blob_uri
                    )
                    .as_str(),
                ),
                Some(LogSpec::Expired) => error(410, "Gone"),
                Some(LogSpec::Missing) | None => error(404, "Not Found"),
            }
        }
        _ => return None,
    })
}

pub(super) fn runs_page(s: &State, ctx: &Ctx<'_>, workflow: Option<u64>) -> ResponseTemplate {
    let head_sha = ctx.query("head_sha");
    let branch = ctx.query("branch");
    let event = ctx.query("event");
    let status = ctx.query("status");
    let mut runs: Vec<&RunSpec> = s
        .runs
        .iter()
        .filter(|r| workflow.is_none_or(|w| r.workflow_id == w))
        .filter(|r| head_sha.as_deref().is_none_or(|h| r.head_sha == h))
        .filter(|r| branch.as_deref().is_none_or(|b| r.head_branch == b))
        .filter(|r| event.as_deref().is_none_or(|e| r.event == e))
        .filter(|r| {
            status
                .as_deref()
                .is_none_or(|st| r.status == st || r.conclusion.as_deref() == Some(st))
        })
        .collect();
    // Newest first, as GitHub lists them.
    runs.sort_by_key(|run| std::cmp::Reverse(run.id));
    let items = runs.into_iter().map(|r| run_json(s, r)).collect();
    paged(ctx, items, Some("workflow_runs"))
}
