//! From the file's raw keys to a [`Config`]: each section over the profile's defaults, every
//! value checked where it is read, and an error naming the key, its line and a hint.

use std::path::{Path, PathBuf};

use super::raw;
use super::{
    BudgetRule, Config, ConstraintRule, CountRule, EdgeLoopRule, FalseCompletionRule,
    MAX_NAME_BYTES, MAX_REGEX_BYTES, Rules, TestOnlyRule, at, completion_pattern, not_too_long,
    nowhere, parse_duration, patterns, positive,
};
use crate::error::ConfigError;

pub(super) fn resolve(raw: raw::RawConfig, path: &Path) -> Result<Config, ConfigError> {
    let profile = raw.profile.unwrap_or_default();
    let mut c = Config::for_profile(profile);
    c.window = positive(path, "window", &raw.window, profile.thresholds().window)?;
    if let Some(r) = raw.rules {
        rules(path, r, &mut c.rules)?;
    }
    c.agents = patterns(path, "agents", &raw.agents, &c.agents, true)?;
    if let Some(p) = raw.paths {
        c.tests = patterns(path, "paths.tests", &p.tests, &c.tests, false)?;
    }
    if let Some(raw::Bounded(list)) = raw.completion_patterns {
        c.completion_patterns = list
            .iter()
            .enumerate()
            .map(|(i, p)| completion(path, i, p))
            .collect::<Result<_, _>>()?;
    }
    if let Some(o) = raw.on_trip {
        on_trip(path, o, &mut c)?;
    }
    if let Some(raw::Bounded(models)) = raw.escalation.and_then(|e| e.models) {
        c.escalation_models = escalation_models(path, models)?;
    }
    if let Some(w) = raw.webhook {
        webhook(path, w, &mut c)?;
    }
    if let Some(g) = raw.github {
        github(path, g, &mut c)?;
    }
    if let Some(r) = raw.report {
        c.report.dir = r.dir.map(PathBuf::from);
        c.report.issues_file = r.issues_file.map(PathBuf::from);
    }
    Ok(c)
}

/// `rules.*`: each rule's keys over the profile's.
fn rules(path: &Path, r: raw::RawRules, c: &mut Rules) -> Result<(), ConfigError> {
    let count = |key: &str, raw: Option<raw::RawCountRule>, base: &mut CountRule| {
        if let Some(raw) = raw {
            *base = CountRule {
                action: raw.action.unwrap_or(base.action),
                threshold: positive(path, key, &raw.threshold, base.threshold)?,
            };
        }
        Ok::<_, ConfigError>(())
    };
    count(
        "rules.stagnation.threshold",
        r.stagnation,
        &mut c.stagnation,
    )?;
    count(
        "rules.same_error.threshold",
        r.same_error,
        &mut c.same_error,
    )?;
    count(
        "rules.oscillation.threshold",
        r.oscillation,
        &mut c.oscillation,
    )?;
    count(
        "rules.repeated_patch.threshold",
        r.repeated_patch,
        &mut c.repeated_patch,
    )?;
    if let Some(f) = r.false_completion {
        let base = &c.false_completion;
        c.false_completion = FalseCompletionRule {
            action: f.action.unwrap_or(base.action),
            threshold: positive(
                path,
                "rules.false_completion.threshold",
                &f.threshold,
                base.threshold,
            )?,
            require_evidence: f.require_evidence.unwrap_or(base.require_evidence),
        };
    }
    if let Some(to) = r.test_only {
        c.test_only = test_only(path, to, &c.test_only)?;
    }
    if let Some(b) = r.budget {
        c.budget = budget(path, b, &c.budget)?;
    }
    if let Some(k) = r.constraint {
        c.constraint = constraint(path, k, &c.constraint)?;
    }
    if let Some(e) = r.edge_loop {
        c.edge_loop = edge_loop(path, e, &c.edge_loop)?;
    }
    Ok(())
}

fn test_only(
    path: &Path,
    to: raw::RawTestOnly,
    base: &TestOnlyRule,
) -> Result<TestOnlyRule, ConfigError> {
    if let Some(ratio) = &to.ratio
        && !(ratio.value > 0.0 && ratio.value <= 1.0)
    {
        return Err(at(
            path,
            "rules.test_only.ratio",
            ratio,
            "must be a number in (0, 1], e.g. 0.3",
        ));
    }
    Ok(TestOnlyRule {
        action: to.action.unwrap_or(base.action),
        ratio: to.ratio.map_or(base.ratio, |r| r.value),
        min_iterations: positive(
            path,
            "rules.test_only.min_iterations",
            &to.min_iterations,
            base.min_iterations,
        )?,
    })
}

fn budget(path: &Path, b: raw::RawBudget, base: &BudgetRule) -> Result<BudgetRule, ConfigError> {
    if let Some(cost) = &b.max_cost
        && !(cost.value > 0.0 && cost.value.is_finite())
    {
        return Err(at(
            path,
            "rules.budget.max_cost",
            cost,
            "must be a positive number",
        ));
    }
    Ok(BudgetRule {
        action: b.action.unwrap_or(base.action),
        max_iterations: positive(
            path,
            "rules.budget.max_iterations",
            &b.max_iterations,
            base.max_iterations,
        )?,
        max_tokens: b.max_tokens,
        max_cost: b.max_cost.map(|c| c.value),
    })
}

fn constraint(
    path: &Path,
    k: raw::RawConstraint,
    base: &ConstraintRule,
) -> Result<ConstraintRule, ConfigError> {
    Ok(ConstraintRule {
        action: k.action.unwrap_or(base.action),
        protected: patterns(
            path,
            "rules.constraint.protected",
            &k.protected,
            &base.protected,
            false,
        )?,
        guard_workflows: k.guard_workflows.unwrap_or(base.guard_workflows),
        guarded: Vec::new(),
        forbid_test_skips: k.forbid_test_skips.unwrap_or(base.forbid_test_skips),
        forbid_test_deletions: k
            .forbid_test_deletions
            .unwrap_or(base.forbid_test_deletions),
        ci_paths: base.ci_paths.clone(),
    })
}

fn edge_loop(
    path: &Path,
    e: raw::RawEdgeLoop,
    base: &EdgeLoopRule,
) -> Result<EdgeLoopRule, ConfigError> {
    let mut edges = base.edges.clone();
    if let Some(raw::BoundedMap(raw_edges)) = e.edges {
        for (name, v) in raw_edges {
            if name.len() > MAX_NAME_BYTES {
                return Err(at(
                    path,
                    "rules.edge_loop.edges",
                    &v,
                    format!(
                        "an edge name is {} bytes, more than the {MAX_NAME_BYTES} loopguard reads",
                        name.len()
                    ),
                )
                .with_hint("name edges `from_to`, e.g. planner_to_verifier"));
            }
            let key = format!("rules.edge_loop.edges.{name}");
            edges.insert(name, positive(path, &key, &Some(v), 1)?);
        }
    }
    Ok(EdgeLoopRule {
        action: e.action.unwrap_or(base.action),
        threshold: positive(
            path,
            "rules.edge_loop.threshold",
            &e.threshold,
            base.threshold,
        )?,
        edges,
        max_steps: positive(
            path,
            "rules.edge_loop.max_steps",
            &e.max_steps,
            base.max_steps,
        )?,
    })
}

/// `completion_patterns[i]`: a regex of bounded length, compiled within the size limit.
fn completion(
    path: &Path,
    i: usize,
    p: &serde_saphyr::Spanned<String>,
) -> Result<super::CompletionPattern, ConfigError> {
    let key = format!("completion_patterns[{i}]");
    not_too_long(path, &key, p, "regex", MAX_REGEX_BYTES)?;
    completion_pattern(&p.value, true).map_err(|e| {
        let last = e.detail.lines().last().unwrap_or("invalid regex").trim();
        let hint = if e.too_large {
            "it compiles too large; use fewer or smaller repetitions (`{n}`) and classes"
        } else {
            "quote it with single quotes in YAML"
        };
        at(
            path,
            &key,
            p,
            format!("invalid regex `{}`: {last}", p.value),
        )
        .with_hint(hint)
    })
}

fn on_trip(path: &Path, o: raw::RawOnTrip, c: &mut Config) -> Result<(), ConfigError> {
    c.on_trip.action = o.action.unwrap_or(c.on_trip.action);
    if let Some(raw::Bounded(n)) = o.notify {
        c.on_trip.notify = n;
    }
    if let Some(cd) = o.cooldown {
        c.on_trip.cooldown = Some(parse_duration(&cd.value).map_err(|m| {
            at(path, "on_trip.cooldown", &cd, m).with_hint("write e.g. \"30m\", \"2h\" or \"90s\"")
        })?);
    }
    Ok(())
}

fn escalation_models(
    path: &Path,
    models: Vec<serde_saphyr::Spanned<String>>,
) -> Result<Vec<String>, ConfigError> {
    for (i, m) in models.iter().enumerate() {
        not_too_long(
            path,
            &format!("escalation.models[{i}]"),
            m,
            "model name",
            MAX_NAME_BYTES,
        )?;
    }
    if models.is_empty() {
        return Err(
            nowhere(path, "escalation.models", "must name at least one model")
                .with_hint("name the models to hand out, e.g. [haiku, sonnet, opus]"),
        );
    }
    Ok(models.into_iter().map(|m| m.value).collect())
}

fn webhook(path: &Path, w: raw::RawWebhook, c: &mut Config) -> Result<(), ConfigError> {
    if let Some(url) = w.url {
        let ok = url.value.starts_with("https://") || url.value.starts_with("http://");
        if !ok {
            return Err(at(
                path,
                "webhook.url",
                &url,
                "must be an http:// or https:// URL",
            ));
        }
        c.webhook.url = Some(url.value);
    }
    if let Some(t) = w.timeout {
        c.webhook.timeout = parse_duration(&t.value)
            .map_err(|m| at(path, "webhook.timeout", &t, m).with_hint("write e.g. \"5s\""))?;
    }
    Ok(())
}

fn github(path: &Path, g: raw::RawGitHub, c: &mut Config) -> Result<(), ConfigError> {
    if let Some(l) = g.label {
        c.github.label = l;
    }
    if let Some(l) = g.issue_label {
        c.github.issue_label = l;
    }
    if let Some(t) = g.dashboard_title {
        let title = t.value.trim();
        let problem = if title.is_empty() {
            Some("must not be empty")
        } else if title.chars().count() > 256 {
            Some("is longer than GitHub's 256 characters for a title")
        } else if title.chars().any(char::is_control) {
            Some("must be one line")
        } else {
            None
        };
        if let Some(problem) = problem {
            return Err(at(path, "github.dashboard_title", &t, problem)
                .with_hint("write e.g. \"loopguard dashboard\""));
        }
        c.github.dashboard_title = title.to_owned();
    }
    Ok(())
}
