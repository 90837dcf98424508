//! `loopguard dashboard`: one issue that shows every agent PR at a glance — which are stuck,
//! on what, since when, which are healthy — and lets a maintainer act from it. Pure: the
//! shell lists the PRs and reads each one's sticky comment (the state `loopguard ci` keeps,
//! [`super::state::CiState`]); this orders them into rows, renders the body, reads the
//! ticked boxes back, and says what a tick does. Nothing here judges a PR again: the rows
//! are the verdicts `ci` wrote ([`super::state::Verdict`], made from the status document).
//!
//! Body layout (the marker first, so a quote of it further down cannot pass for it):
//!
//! ```text
//! <!-- loopguard:dashboard -->
//! **2 stuck** · 1 half-open · 5 healthy · 3 tripped in the last 7 days
//! ### Let an agent try again
//! - [ ] <!-- loopguard:resume pr=12 --> #12: let the agent try again
//! ### Open agent PRs
//! | | PR | breaker | rule and stop reason | … |
//! <details><summary>Closed or merged in the last 7 days (2)</summary> … </details>
//! ```

use std::collections::BTreeSet;
use std::fmt::Write as _;

use jiff::{SignedDuration, Timestamp};

use super::state::{CiState, Resume, Verdict};
use crate::breaker::State;
use crate::github::sticky::TrustedAuthors;
use crate::github::types::Issue;
use crate::sanitize::{COMMENT_LIMIT, Measure, code_span, inline, table_cell, truncate_markdown};

/// First line of the dashboard issue's body.
pub const DASHBOARD_MARKER: &str = "<!-- loopguard:dashboard -->";
/// How far back closed and merged PRs are shown, and trips counted.
pub const RECENT: SignedDuration = SignedDuration::from_hours(7 * 24);
/// Rows in the tables (the body holds 65,536 characters); the ticks are never cut.
pub const MAX_ROWS: usize = 120;
/// Boxes to tick.
pub const MAX_BOXES: usize = 200;

const RESUME_PREFIX: &str = "<!-- loopguard:resume pr=";

/// A PR that has a sticky comment, as the shell found it.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    pub number: u64,
    /// The PR's title (untrusted).
    pub title: String,
    /// The PR's author (the agent's account, usually).
    pub author: Option<String>,
    /// `None` while open.
    pub closed: Option<Closed>,
    /// The state in its sticky comment.
    pub state: CiState,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Closed {
    pub merged: bool,
    pub at: Timestamp,
}

/// Where a PR goes on the dashboard, in this order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Section {
    /// The breaker is open: the agent is stopped.
    Stuck,
    /// A maintainer let the agent try again; the next push decides.
    HalfOpen,
    /// The breaker is closed.
    Healthy,
    /// Closed or merged lately.
    Closed,
}

impl Entry {
    /// The newest verdict, if `ci` wrote one.
    pub fn verdict(&self) -> Option<&Verdict> {
        self.state.last.as_ref()
    }

    /// A resume was recorded after the verdict's head (from the dashboard, or a label
    /// removal `ci` has not judged yet): the breaker is half-open now.
    pub fn resumed(&self) -> Option<&Resume> {
        let head = &self.verdict()?.head;
        self.state.resumes.iter().rev().find(|r| &r.after == head)
    }

    pub fn section(&self) -> Section {
        if self.closed.is_some() {
            return Section::Closed;
        }
        match self.verdict().map(|v| v.state) {
            Some(State::Open) if self.resumed().is_none() => Section::Stuck,
            Some(State::Open | State::HalfOpen) => Section::HalfOpen,
            _ => Section::Healthy,
        }
    }
}

/// The PRs in the dashboard's order: stuck (longest stuck first), half-open, healthy
/// (longest without progress first), closed (newest first); by number within a tie.
pub fn order(entries: &mut [Entry]) {
    entries.sort_by_key(|e| {
        let v = e.verdict();
        let when = match e.section() {
            Section::Stuck | Section::HalfOpen => v.and_then(|v| v.tripped_at),
            Section::Healthy => v.and_then(|v| v.progress_at),
            Section::Closed => e.closed.map(|c| c.at),
        }
        .map(Timestamp::as_second);
        let when = match e.section() {
            // Newest first.
            Section::Closed => when.map_or(i64::MAX, |t| -t),
            Section::Stuck | Section::HalfOpen | Section::Healthy => when.unwrap_or(i64::MAX),
        };
        (e.section(), when, e.number)
    });
}

/// The counts at the top.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct Counts {
    pub stuck: usize,
    pub half_open: usize,
    pub healthy: usize,
    /// PRs (open or closed lately) whose breaker opened within [`RECENT`].
    pub tripped_recently: usize,
    pub closed: usize,
}

pub fn counts(entries: &[Entry], now: Timestamp) -> Counts {
    let mut c = Counts::default();
    for e in entries {
        match e.section() {
            Section::Stuck => c.stuck += 1,
            Section::HalfOpen => c.half_open += 1,
            Section::Healthy => c.healthy += 1,
            Section::Closed => c.closed += 1,
        }
        if e.verdict()
            .and_then(|v| v.tripped_at)
            .is_some_and(|t| now.duration_since(t) <= RECENT)
        {
            c.tripped_recently += 1;
        }
    }
    c
}

/// `5 min`, `3 h`, `2 d`: how long ago, coarsely.
pub fn age(now: Timestamp, then: Timestamp) -> String {
    let secs = now.duration_since(then).as_secs().max(0);
    match secs {
        s if s < 60 => "just now".to_owned(),
        s if s < 3600 => format!("{} min", s / 60),
        s if s < 48 * 3600 => format!("{} h", s / 3600),
        s => format!("{} d", s / 86_400),
    }
}

/// `5 min ago`, `just now`.
pub fn ago(now: Timestamp, then: Timestamp) -> String {
    match age(now, then) {
        a if a == "just now" => a,
        a => format!("{a} ago"),
    }
}

/// What the body needs besides the PRs.
pub struct Context<'a> {
    pub now: Timestamp,
    /// `https://github.com/owner/repo`: for the runs' links.
    pub repo_url: &'a str,
    /// The label `ci` puts on a stuck PR (removing it resumes the same way).
    pub label: &'a str,
    /// Things the reader should know (ticks that were not honoured, …); untrusted.
    pub notes: &'a [String],
}

/// The dashboard's body: marker, counts, the boxes to tick, the table of open PRs, the
/// closed ones folded. `entries` in [`order`]. Within GitHub's limit.
pub fn render(entries: &[Entry], ctx: &Context<'_>) -> String {
    let c = counts(entries, ctx.now);
    let mut md = format!("{DASHBOARD_MARKER}\n\n");
    let _ = writeln!(
        md,
        "**{} stuck** · {} half-open · {} healthy · {} tripped in the last 7 days · {} closed or merged lately\n",
        c.stuck, c.half_open, c.healthy, c.tripped_recently, c.closed
    );
    let _ = writeln!(
        md,
        "loopguard keeps this issue current from the state it keeps in each PR's comment; it judges nothing here. Updated {}.\n",
        ctx.now.strftime("%Y-%m-%d %H:%M UTC")
    );
    for n in ctx.notes {
        let _ = writeln!(md, "> {}\n", inline(n));
    }
    let stuck: Vec<&Entry> = entries
        .iter()
        .filter(|e| e.section() == Section::Stuck)
        .collect();
    if !stuck.is_empty() {
        md.push_str("### Let an agent try again\n\n");
        let _ = writeln!(
            md,
            "Tick a box and the next dashboard run resumes that PR as removing the {} label does: half-open, the next push decides. Only people with write access to this repository can tick.\n",
            code_span(ctx.label, false)
        );
        for e in stuck.iter().take(MAX_BOXES) {
            let _ = writeln!(
                md,
                "- [ ] {RESUME_PREFIX}{} --> #{}: let the agent try again",
                e.number, e.number
            );
        }
        if stuck.len() > MAX_BOXES {
            let _ = writeln!(md, "- … and {} more", stuck.len() - MAX_BOXES);
        }
        md.push('\n');
    }
    let open: Vec<&Entry> = entries
        .iter()
        .filter(|e| e.section() != Section::Closed)
        .collect();
    md.push_str("### Open agent PRs\n\n");
    if open.is_empty() {
        md.push_str("No open PR has a loopguard comment.\n");
    } else {
        md.push_str(
            "| | PR | breaker | rule and stop reason | iterations | looping failure | loop cost | last progress | last run |\n|---|---|---|---|---:|---|---|---|---|\n",
        );
        for e in open.iter().take(MAX_ROWS) {
            md.push_str(&row(e, ctx));
        }
        if open.len() > MAX_ROWS {
            let _ = writeln!(
                md,
                "\n… and {} more open PRs not shown (the issue holds 65,536 characters).",
                open.len() - MAX_ROWS
            );
        }
    }
    let closed: Vec<&Entry> = entries
        .iter()
        .filter(|e| e.section() == Section::Closed)
        .collect();
    if !closed.is_empty() {
        let _ = write!(
            md,
            "\n<details><summary>Closed or merged in the last 7 days ({})</summary>\n\n| PR | | when | breaker | terminal status | rule | iterations |\n|---|---|---|---|---|---|---:|\n",
            closed.len()
        );
        for e in closed.iter().take(MAX_ROWS / 2) {
            md.push_str(&closed_row(e, ctx));
        }
        if closed.len() > MAX_ROWS / 2 {
            let _ = writeln!(md, "\n… and {} more", closed.len() - MAX_ROWS / 2);
        }
        md.push_str("\n</details>\n");
    }
    truncate_markdown(&md, COMMENT_LIMIT, Measure::Characters).into_owned()
}

fn icon(section: Section) -> &'static str {
    match section {
        Section::Stuck => "⛔",
        Section::HalfOpen => "↺",
        Section::Healthy => "✅",
        Section::Closed => "",
    }
}

fn pr_cell(e: &Entry) -> String {
    format!("#{} {}", e.number, table_cell(&e.title, 60))
}

fn row(e: &Entry, ctx: &Context<'_>) -> String {
    let section = e.section();
    let dash = || "–".to_owned();
    let Some(v) = e.verdict() else {
        return format!(
            "| {} | {} | – | no verdict yet | – | – | – | – | – |\n",
            icon(section),
            pr_cell(e)
        );
    };
    let breaker = match section {
        Section::Stuck => match v.tripped_at {
            Some(t) => format!("open for {}", age(ctx.now, t)),
            None => "open".to_owned(),
        },
        Section::HalfOpen => match e.resumed() {
            Some(r) => format!(
                "half-open (resumed {}{})",
                ago(ctx.now, r.at),
                r.by.as_deref()
                    .map(|b| format!(" by {}", table_cell(b, 40)))
                    .unwrap_or_default()
            ),
            None => "half-open".to_owned(),
        },
        Section::Healthy | Section::Closed => "closed".to_owned(),
    };
    let rule = match (v.rule, &v.reason) {
        (Some(rule), Some(reason)) if section != Section::Healthy => {
            format!("`{rule}`: {}", table_cell(reason, 120))
        }
        (Some(rule), None) if section != Section::Healthy => format!("`{rule}`"),
        _ => dash(),
    };
    // A healthy PR's last failure is not looping: only stuck and half-open rows show one.
    let looping = v.failure.as_ref().filter(|_| section != Section::Healthy);
    let failure = looping.map_or_else(dash, |f| {
        let mut cell = format!("`{}`", table_cell(&f.signature, 16));
        if let Some(err) = &f.first_error {
            let short: String = err.chars().take(80).collect();
            let _ = write!(cell, " {}", code_span(&short, true));
        }
        cell
    });
    let progress = v.progress_at.map_or_else(dash, |t| ago(ctx.now, t));
    let run = v.run.map_or_else(dash, |id| {
        format!("[run {id}]({}/actions/runs/{id})", ctx.repo_url)
    });
    let iterations = v.iterations.map_or_else(dash, |n| n.to_string());
    // What the loop cost in CI, while it is stopped.
    let cost = v
        .loop_cost
        .as_ref()
        .filter(|_| section == Section::Stuck)
        .map_or_else(dash, |c| format!("{} runs, {} CI min", c.runs, c.minutes()));
    format!(
        "| {} | {} | {breaker} | {rule} | {iterations} | {failure} | {cost} | {progress} | {run} |\n",
        icon(section),
        pr_cell(e)
    )
}

fn closed_row(e: &Entry, ctx: &Context<'_>) -> String {
    let (how, when) = match e.closed {
        Some(c) => (
            if c.merged { "merged" } else { "closed" },
            ago(ctx.now, c.at),
        ),
        None => ("open", String::new()),
    };
    let v = e.verdict();
    let state = v.map_or("–", |v| v.state.as_str());
    let terminal = v
        .and_then(|v| v.terminal_status)
        .map_or_else(|| "–".to_owned(), |t| format!("`{t}`"));
    let rule = v
        .and_then(|v| v.rule)
        .map_or_else(|| "–".to_owned(), |r| format!("`{r}`"));
    let iterations = v
        .and_then(|v| v.iterations)
        .map_or_else(|| "–".to_owned(), |n| n.to_string());
    format!(
        "| {} | {how} | {when} | {state} | {terminal} | {rule} | {iterations} |\n",
        pr_cell(e)
    )
}

/// The PRs whose box is ticked in a dashboard body: task-list items (`- [x]`, `* [X]`)
/// that start with loopguard's resume marker. A tick anywhere else (a quote, a code
/// block, someone's own list) does not count.
pub fn ticked(body: &str) -> BTreeSet<u64> {
    let mut out = BTreeSet::new();
    let mut fence: Option<String> = None;
    for line in body.lines() {
        let t = line.trim_start();
        if t.starts_with("```") || t.starts_with("~~~") {
            let mark: String = t.chars().take_while(|c| *c == '`' || *c == '~').collect();
            match &fence {
                Some(open) if mark.starts_with(open.as_str()) => fence = None,
                None => fence = Some(mark),
                Some(_) => {}
            }
            continue;
        }
        if fence.is_some() || line.starts_with(' ') || line.starts_with('\t') {
            continue;
        }
        let Some(rest) = t
            .strip_prefix("- [x] ")
            .or_else(|| t.strip_prefix("- [X] "))
            .or_else(|| t.strip_prefix("* [x] "))
            .or_else(|| t.strip_prefix("* [X] "))
        else {
            continue;
        };
        if let Some(n) = rest
            .strip_prefix(RESUME_PREFIX)
            .and_then(|r| r.split_once(" -->"))
            .and_then(|(n, _)| n.parse().ok())
        {
            out.insert(n);
        }
    }
    out
}

/// loopguard's dashboard among issues: the oldest whose first line is the marker and whose
/// author is trusted (a marker alone can be typed by anyone). Open ones first.
pub fn find_dashboard<'a>(issues: &'a [Issue], trusted: &TrustedAuthors) -> Option<&'a Issue> {
    let ours = |i: &&Issue| {
        !i.is_pull_request()
            && i.body.lines().map(str::trim).find(|l| !l.is_empty()) == Some(DASHBOARD_MARKER)
            && trusted.contains(i.author_login())
    };
    let oldest = |a: &&Issue, b: &&Issue| a.number.cmp(&b.number);
    issues
        .iter()
        .filter(ours)
        .filter(|i| i.is_open())
        .min_by(oldest)
        .or_else(|| issues.iter().filter(ours).min_by(oldest))
}

/// Whether a tick may resume a PR, and why not.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Tick {
    /// Resume: record this in the PR's state.
    Resume(Resume),
    /// Not (any more) stuck, closed, or already resumed: nothing to do.
    Moot,
    /// The editor may not resume it; the reason is shown on the dashboard.
    Refused(String),
}

/// Who ticked a box, as far as the shell can tell.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Editor {
    /// Not known (a scheduled run, or a box ticked while the dashboard was being written):
    /// no event names the editor.
    Unknown,
    /// The sender of the `issues: edited` event that ticked it, and whether they have
    /// write access (`GET …/collaborators/{user}/permission`: `admin` or `write`).
    Known { login: String, can_write: bool },
}

/// What a tick on `entry`'s box does: the same resume as removing the label — right
/// after the head the last verdict judged — for a stuck PR, by someone with write access
/// who is not the PR's own author (the agent cannot let itself go on), recorded with the
/// dashboard's workflow run `run` (what `ci` checks it against when the PR's state is not
/// sealed). A tick whose editor no event names is refused: only the edit's own event says
/// who made it (a token with `issues: write` can edit the dashboard too).
pub fn tick(entry: &Entry, editor: &Editor, now: Timestamp, run: Option<u64>) -> Tick {
    if entry.section() != Section::Stuck {
        return Tick::Moot;
    }
    let by = match editor {
        Editor::Unknown => {
            return Tick::Refused(format!(
                "#{}: the box was ticked, but no `issues: edited` event says by whom (a scheduled run, or an edit while the dashboard was being written): ignored; tick it again",
                entry.number
            ));
        }
        Editor::Known { login, can_write } => {
            if !can_write {
                return Tick::Refused(format!(
                    "#{}: the box was ticked by {login}, who has no write access: ignored",
                    entry.number
                ));
            }
            if entry
                .author
                .as_deref()
                .is_some_and(|a| a.eq_ignore_ascii_case(login))
            {
                return Tick::Refused(format!(
                    "#{}: the box was ticked by the PR's own author ({login}): ignored",
                    entry.number
                ));
            }
            login.as_str()
        }
    };
    match entry.verdict() {
        Some(last) if last.state == State::Open => Tick::Resume(Resume {
            after: last.head.clone(),
            at: now,
            by: Some(by.to_owned()),
            run,
        }),
        Some(_) | None => Tick::Moot,
    }
}

/// The sticky comment's visible part after a resume from the dashboard: the note first,
/// then what `ci` last wrote (which the next `ci` run replaces).
pub fn resumed_visible(visible: &str, resume: &Resume) -> String {
    let by = resume
        .by
        .as_deref()
        .map(|b| format!(" by {}", inline(b)))
        .unwrap_or_default();
    format!(
        "> **Resumed from the loopguard dashboard**{by} at {}: the breaker is half-open, the next push decides.\n\n{}",
        resume.at.strftime("%Y-%m-%d %H:%M UTC"),
        visible.trim_start()
    )
}

/// The visible part of a sticky comment body (what follows the header lines).
pub fn sticky_visible(body: &str) -> &str {
    let mut rest = body;
    loop {
        let trimmed = rest.trim_start_matches(['\r', '\n']);
        match trimmed.split_once('\n') {
            Some((line, tail)) if line.trim().starts_with("<!-- loopguard:") => rest = tail,
            _ => return trimmed,
        }
    }
}

#[cfg(test)]
mod tests;
