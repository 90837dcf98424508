//! From the file's raw keys to a [`Config`]: each section over the profile's defaults, every
//! value checked where it is read, and an error naming the key, its line and a hint.

use std::path::{Path, PathBuf};

use super::raw;
use super::{
    Config, GlobKind, MAX_NAME_BYTES, MAX_REGEX_BYTES, PatternSet, TestPaths, at,
    completion_pattern, not_too_long, nowhere, parse_duration, patterns, positive,
};
use crate::error::ConfigError;

pub(super) fn resolve(raw: raw::RawConfig, path: &Path) -> Result<Config, ConfigError> {
    let profile = raw.profile.unwrap_or_default();
    let mut c = Config::for_profile(profile);
    c.window = positive(path, "window", &raw.window, profile.window())?;
    if let Some(r) = raw.rules {
        c.rules = c.rules.resolve(r, path)?;
    }
    c.agents = patterns(path, "agents", &raw.agents, &c.agents, GlobKind::Identity)?;
    if let Some(p) = raw.paths
        && p.tests.is_some()
    {
        let none = PatternSet::builtin(&[], GlobKind::Path);
        c.tests = TestPaths::Globs(patterns(
            path,
            "paths.tests",
            &p.tests,
            &none,
            GlobKind::Path,
        )?);
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
    if let Some(s) = raw.session {
        c.session = super::session::resolve(path, s)?;
    }
    Ok(c)
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
