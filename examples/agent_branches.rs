//! Judges every recorded agent branch (real commit metadata of agents' PR branches: see
//! the data's README) with a config, the way `loopguard replay` does, and checks the
//! verdicts against what is known: the branches known to loop must trip, and few branches
//! whose PR landed may. `.ci/run` runs it as a regression check when the data is there.
//!
//!   cargo run --example agent_branches -- [--data DIR] [--config FILE] [--check] [--show N]
//!
//! DIR holds `<owner>__<repo>.jsonl`, `pr_outcomes.tsv` and `labels.tsv` (default: the
//! `LOOPGUARD_AGENT_BRANCHES` variable). A branch counts as tripped when the breaker opened at
//! any point (under `pause` the agent would have been stopped there), whatever it ended in.
//! `--check` exits 1 when a known loop does not trip or the share of landed branches that
//! trip is above the target.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use loopguard::config::Config;
use loopguard::iteration::parse_record;
use loopguard::run::judge;
use serde_json::{Value, json};

/// Branches known to loop (repository, PR): langgraph's re-applied patches, the SDK's run of
/// empty commits to re-trigger CI.
const KNOWN_LOOPS: [(&str, u64); 2] = [
    ("langchain-ai/langgraph", 5993),
    ("OpenHands/software-agent-sdk", 4513),
];

/// At most this share of the branches whose PR landed may trip.
const MAX_LANDED_SHARE: f64 = 0.003;

struct Args {
    data: PathBuf,
    config: Option<PathBuf>,
    check: bool,
    show: usize,
}

fn args() -> anyhow::Result<Args> {
    let mut out = Args {
        data: std::env::var_os("LOOPGUARD_AGENT_BRANCHES")
            .map(PathBuf::from)
            .unwrap_or_default(),
        config: None,
        check: false,
        show: 20,
    };
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        match a.as_str() {
            "--data" => out.data = it.next().context("--data needs a directory")?.into(),
            "--config" => out.config = Some(it.next().context("--config needs a file")?.into()),
            "--check" => out.check = true,
            "--show" => out.show = it.next().context("--show needs a number")?.parse()?,
            other => bail!("unknown argument {other}"),
        }
    }
    if out.data.as_os_str().is_empty() {
        bail!("no data: pass --data DIR or set LOOPGUARD_AGENT_BRANCHES");
    }
    Ok(out)
}

/// The iteration records of one branch, oldest first (the `replay` format).
fn records(branch: &Value) -> Vec<Value> {
    let mut trees: BTreeMap<&str, &str> = BTreeMap::new();
    let mut out = Vec::new();
    for c in branch["commits"].as_array().into_iter().flatten() {
        let sha = c["sha"].as_str().unwrap_or_default();
        let tree = c["tree"].as_str().unwrap_or_default();
        trees.insert(sha, tree);
        let parent = c["parents"][0].as_str();
        let parent_tree = parent
            .and_then(|p| trees.get(p).copied())
            .or_else(|| (c["tree_equals_parent"] == true).then_some(tree));
        let mut message = c["subject"].as_str().unwrap_or_default().to_owned();
        let mut body: Vec<String> = c["body_head"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|l| l.as_str().map(str::to_owned))
            .collect();
        body.extend(
            c["co_authored_by"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|n| n.as_str().map(|n| format!("Co-authored-by: {n}"))),
        );
        if !body.is_empty() {
            message = format!("{message}\n\n{}", body.join("\n"));
        }
        let mut it = json!({
            "id": sha,
            "author": format!(
                "{} <{}>",
                c["author_name"].as_str().unwrap_or_default(),
                c["author_email"].as_str().unwrap_or_default()
            ),
            "tree": tree,
            "parents": c["parents"],
            "message": message,
            "at": c["committer_date"],
        });
        if let Some(p) = parent_tree {
            it["parent_tree"] = json!(p);
        }
        if let Some(p) = c["patch_id"].as_str() {
            it["patch_id"] = json!(p);
        }
        let numstat = c["numstat_available"].as_bool().unwrap_or(true);
        if numstat
            && c["files_truncated"] != true
            && let Some(files) = c["files"].as_array()
        {
            it["files"] = files
                .iter()
                .map(|f| json!({"path": f["path"], "added": f["added"], "deleted": f["deleted"]}))
                .collect();
        }
        out.push(it);
    }
    out
}

fn tsv(path: &Path) -> anyhow::Result<Vec<BTreeMap<String, String>>> {
    let text = std::fs::read_to_string(path).with_context(|| path.display().to_string())?;
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap_or_default().split('\t').collect();
    Ok(lines
        .map(|l| {
            header
                .iter()
                .zip(l.split('\t'))
                .map(|(k, v)| ((*k).to_owned(), v.to_owned()))
                .collect()
        })
        .collect())
}

struct Trip {
    repo: String,
    branch: String,
    prs: String,
    commits: usize,
    landed: bool,
    label: String,
    rule: String,
    reason: String,
}

fn main() -> anyhow::Result<()> {
    let args = args()?;
    let config = match &args.config {
        Some(p) => Config::parse(&std::fs::read_to_string(p)?, p)?,
        None => Config::default(),
    };
    let mut landed: BTreeSet<(String, String)> = BTreeSet::new();
    for row in tsv(&args.data.join("pr_outcomes.tsv"))? {
        if row["landed_on_default"] == "yes" {
            landed.insert((row["repo"].clone(), row["branch"].clone()));
        }
    }
    let labels: BTreeMap<(String, String), String> = tsv(&args.data.join("labels.tsv"))?
        .into_iter()
        .map(|r| ((r["repo"].clone(), r["branch"].clone()), r["label"].clone()))
        .collect();

    let mut files: Vec<PathBuf> = std::fs::read_dir(&args.data)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    files.sort();
    let now = jiff::Timestamp::now();
    let (mut total, mut landed_total) = (0usize, 0usize);
    let mut trips: Vec<Trip> = Vec::new();
    let mut known_tripped: BTreeMap<(&str, u64), Option<String>> =
        KNOWN_LOOPS.iter().map(|k| (*k, None)).collect();
    let mut known_seen: BTreeSet<(&str, u64)> = BTreeSet::new();
    for file in &files {
        let text = std::fs::read_to_string(file)?;
        for line in text.lines() {
            let branch: Value = serde_json::from_str(line)?;
            total += 1;
            let repo = branch["repo"].as_str().unwrap_or_default().to_owned();
            let name = branch["branch"].as_str().unwrap_or_default().to_owned();
            let key = (repo.clone(), name.clone());
            let is_landed = landed.contains(&key);
            landed_total += usize::from(is_landed);
            let history = records(&branch)
                .iter()
                .enumerate()
                .map(|(i, r)| parse_record(&r.to_string(), &name, i + 1))
                .collect::<Result<Vec<_>, _>>()?;
            let commits = history.len();
            let j = judge(&config, history, "evaluation", now);
            let prs: Vec<u64> = branch["pr_numbers"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_u64)
                .collect();
            let first = j.events.iter().find(|e| e.kind.opens());
            for k in KNOWN_LOOPS {
                if k.0 == repo && prs.contains(&k.1) {
                    known_seen.insert(k);
                    if let Some(e) = first {
                        known_tripped.insert(k, e.rule.map(|r| r.to_string()));
                    }
                }
            }
            if let Some(e) = first {
                trips.push(Trip {
                    repo,
                    branch: name,
                    prs: format!("{prs:?}"),
                    commits,
                    landed: is_landed,
                    label: labels.get(&key).cloned().unwrap_or_default(),
                    rule: e.rule.map(|r| r.to_string()).unwrap_or_default(),
                    reason: e.reason.clone().unwrap_or_default(),
                });
            }
        }
    }

    let landed_trips = trips.iter().filter(|t| t.landed).count();
    let share = landed_trips as f64 / landed_total.max(1) as f64;
    println!(
        "branches: {total}; tripped: {} ({:.2}%); landed: {landed_total}; landed and tripped: {landed_trips} ({:.2}%, target at most {:.1}%)",
        trips.len(),
        100.0 * trips.len() as f64 / total.max(1) as f64,
        100.0 * share,
        100.0 * MAX_LANDED_SHARE
    );
    println!("\n| rule | trips | of which landed |\n|---|---:|---:|");
    let mut by_rule: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    for t in &trips {
        let e = by_rule.entry(t.rule.as_str()).or_default();
        e.0 += 1;
        e.1 += usize::from(t.landed);
    }
    for (rule, (n, l)) in &by_rule {
        println!("| {rule} | {n} | {l} |");
    }
    println!("\nknown loops:");
    for (k, rule) in &known_tripped {
        let seen = known_seen.contains(k);
        println!(
            "  {} PR {}: {}",
            k.0,
            k.1,
            match (seen, rule) {
                (false, _) => "not in the data".to_owned(),
                (true, Some(r)) => format!("trips ({r})"),
                (true, None) => "DOES NOT TRIP".to_owned(),
            }
        );
    }
    println!("\nlanded and tripped (each a possible false trip):");
    for t in trips.iter().filter(|t| t.landed).take(args.show) {
        println!(
            "  {} {} PR {} ({} commits{}): {}: {}",
            t.repo,
            t.branch,
            t.prs,
            t.commits,
            if t.label.is_empty() {
                String::new()
            } else {
                format!(", {}", t.label)
            },
            t.rule,
            t.reason.chars().take(140).collect::<String>()
        );
    }
    println!("\nnot landed and tripped, first {}:", args.show);
    for t in trips.iter().filter(|t| !t.landed).take(args.show) {
        println!(
            "  {} {} PR {} ({} commits): {}: {}",
            t.repo,
            t.branch,
            t.prs,
            t.commits,
            t.rule,
            t.reason.chars().take(140).collect::<String>()
        );
    }

    if args.check {
        let missing: Vec<String> = known_tripped
            .iter()
            .filter(|(k, r)| known_seen.contains(k) && r.is_none())
            .map(|(k, _)| format!("{} PR {}", k.0, k.1))
            .collect();
        if !missing.is_empty() {
            eprintln!(
                "agent branches: a known loop no longer trips: {}",
                missing.join(", ")
            );
            std::process::exit(1);
        }
        if share > MAX_LANDED_SHARE {
            eprintln!(
                "agent branches: {:.2}% of landed branches trip, above the target of {:.1}%",
                100.0 * share,
                100.0 * MAX_LANDED_SHARE
            );
            std::process::exit(1);
        }
        println!(
            "\nagent branches: the known loops trip and {:.2}% of landed branches do (target ≤ {:.1}%)",
            100.0 * share,
            100.0 * MAX_LANDED_SHARE
        );
    }
    Ok(())
}
