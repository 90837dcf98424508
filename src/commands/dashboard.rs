//! `loopguard dashboard`: keeps one issue listing every agent PR — stuck first, then
//! half-open, then healthy, the closed ones of the last 7 days folded — and resumes the
//! PRs a maintainer ticked on it.
//!
//! The shell around `crate::ci::dashboard`. Reads: the open PRs, the PRs closed lately,
//! each one's sticky comment (the state `loopguard ci` keeps; found by a repository-wide
//! comment scan when that takes fewer requests than reading the PRs one by one), and the
//! dashboard issue (by marker and author). Writes: the resumes ticked (the PR's sticky
//! state and its label, as removing the label does) and the dashboard issue, created once
//! and edited in place. Nothing is judged again.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt::Write as _;
use std::path::PathBuf;

use anyhow::Result;

use crate::ci::dashboard::{
    self, Closed, Context, DASHBOARD_MARKER, Editor, Entry, Tick, resumed_visible, sticky_visible,
};
use crate::ci::decide;
use crate::ci::state::CiState;
use crate::cli::DashboardArgs;
use crate::config::{CONFIG_FILE, Config};
use crate::documents::{DashboardDocument, DashboardRow, Schema};
use crate::error::{ConfigFileError, GitHubError, SettingsError, exit};
use crate::github::event::IssuesEvent;
use crate::github::seal::{Binding, StateKey};
use crate::github::sticky::{
    STICKY_MARKER, SealCheck, StickyState, TrustedAuthors, check_seal, find_sticky_comment,
    parse_sticky_state, render_sticky,
};
use crate::github::types::OpenState;
use crate::github::{
    CommentScan, GitHubClient, GitHubClientBuilder, Issue, IssueComment, IssueUpdate, PullRequest,
};

use super::{Ctx, print_json};

/// One PR's sticky comment, as found.
struct Sticky {
    id: u64,
    body: String,
    state: CiState,
}

/// What the dashboard shows, and what was done to it so far.
struct Board {
    /// The open PRs and those closed lately.
    prs: Vec<PullRequest>,
    /// Their sticky comments, where they have one (the agent PRs).
    stickies: BTreeMap<u64, Sticky>,
    /// One row per agent PR.
    entries: Vec<Entry>,
    /// The ticks looked at already.
    handled: BTreeSet<u64>,
    /// The PRs resumed by a tick, and who ticked each.
    resumed: Vec<(u64, String)>,
}

pub(super) fn dashboard(ctx: &Ctx, args: DashboardArgs) -> Result<u8> {
    let github = ctx.settings.github.client()?;
    if github.repo.is_none() {
        return Err(SettingsError::Unset {
            name: "GITHUB_REPOSITORY",
            fix: "`loopguard dashboard` runs in a GitHub Actions job (examples/workflows/dashboard.yml), or set GITHUB_REPOSITORY=owner/name and GITHUB_TOKEN",
        }
        .into());
    }
    let client = GitHubClientBuilder::from_settings(github, ctx.settings.knobs.github_time_scale)
        .dry_run(args.dry_run)
        .build()?;
    let key = ctx.settings.github.state_key()?.cloned();
    let mut d = Session {
        ctx,
        progress: super::progress::Progress::new(&ctx.settings, args.json),
        client,
        key,
        notes: Vec::new(),
    };
    let config = d.load_config(args.config.as_deref())?;
    let now = ctx.settings.now();
    let trusted = d.trusted()?;
    let mut board = d.read_board(&trusted, now)?;
    // The dashboard issue, and what was ticked on it.
    let issue = d.find_dashboard(&config, &trusted)?;
    let event = d.edit_event(issue.as_ref())?;
    if let Some(issue) = &issue {
        d.apply_ticks(&config, &issue.body, event.as_ref(), &mut board)?;
    }
    dashboard::order(&mut board.entries);
    let number = d.write_dashboard(&config, issue.as_ref(), &mut board, now)?;
    d.progress.finish();
    d.report(&board.entries, number, &board.resumed, now, args.json)?;
    if args.dry_run {
        super::print_planned_writes(&d.client, ctx.settings.github.actions)?;
    }
    Ok(exit::OK)
}

struct Session<'c> {
    ctx: &'c Ctx,
    progress: super::progress::Progress,
    client: GitHubClient,
    /// `LOOPGUARD_STATE_KEY`: a resume is sealed into a PR's state with it.
    key: Option<StateKey>,
    /// Shown on the dashboard; may quote logins.
    notes: Vec<String>,
}

fn closed_at(p: &PullRequest) -> Option<jiff::Timestamp> {
    (p.state == OpenState::Closed)
        .then(|| p.merged_at.or(p.closed_at))
        .flatten()
}

/// GitHub may hand a body back with CRLF and without the final newline.
fn normalise(body: &str) -> String {
    body.replace("\r\n", "\n").trim_end().to_owned()
}

impl Session<'_> {
    fn note(&mut self, text: String) {
        self.ctx.ui.warn(&text);
        self.notes.push(text);
    }

    /// The PRs (open ones, and those closed within the last 7 days), their sticky
    /// comments, and a row for each agent PR.
    fn read_board(&mut self, trusted: &TrustedAuthors, now: jiff::Timestamp) -> Result<Board> {
        let mut prs = self.client.open_pull_requests(None)?;
        let since = now - dashboard::RECENT;
        prs.extend(
            self.client
                .closed_pull_requests_since(since)?
                .into_iter()
                .filter(|p| closed_at(p).is_some_and(|t| t >= since)),
        );
        let stickies = self.stickies(&prs, trusted)?;
        let entries = prs
            .iter()
            .filter_map(|p| {
                let s = stickies.get(&p.number)?;
                Some(Entry {
                    number: p.number,
                    title: p.title.clone(),
                    author: p.user.as_ref().map(|u| u.login.clone()),
                    closed: closed_at(p).map(|at| Closed {
                        merged: p.merged_at.is_some(),
                        at,
                    }),
                    state: s.state.clone(),
                })
            })
            .collect();
        Ok(Board {
            prs,
            stickies,
            entries,
            handled: BTreeSet::new(),
            resumed: Vec::new(),
        })
    }

    /// Writes the dashboard issue: created once, else edited in place when its text
    /// changed (reopened if closed); its number.
    fn write_dashboard(
        &mut self,
        config: &Config,
        issue: Option<&Issue>,
        board: &mut Board,
        now: jiff::Timestamp,
    ) -> Result<Option<u64>> {
        let repo_url = format!(
            "{}/{}",
            self.client.server_url().trim_end_matches('/'),
            self.client.repo()
        );
        let title = config.github.dashboard_title.clone();
        let mut body = self.render(&board.entries, config, &repo_url, now);
        let Some(issue) = issue else {
            self.client.ensure_label(
                &config.github.issue_label,
                decide::ISSUE_LABEL_COLOR,
                decide::ISSUE_LABEL_DESCRIPTION,
            )?;
            let created = self.client.create_issue(
                &title,
                &body,
                &[config.github.issue_label.as_str()],
                DASHBOARD_MARKER,
            )?;
            return Ok(Some(created.number).filter(|n| *n != 0));
        };
        let mut current = issue.clone();
        if normalise(&current.body) == normalise(&body)
            && current.title == title
            && current.is_open()
        {
            return Ok(Some(issue.number));
        }
        // A box ticked since the listing would be lost by the edit: read the issue again
        // right before writing and take those ticks too.
        if !dashboard::ticked(&issue.body).is_empty() || !board.resumed.is_empty() {
            current = self.client.issue(issue.number)?;
            let before = board.resumed.len();
            self.apply_ticks(config, &current.body, None, board)?;
            if board.resumed.len() != before {
                dashboard::order(&mut board.entries);
                body = self.render(&board.entries, config, &repo_url, now);
            }
        }
        self.client.update_issue(
            issue.number,
            &IssueUpdate {
                title: Some(title),
                body: Some(body),
                state: (!current.is_open()).then_some(OpenState::Open),
                labels: None,
            },
        )?;
        Ok(Some(issue.number))
    }

    /// The config: `--config` (in the checkout, else at the commit the workflow runs on),
    /// else `.loopguard.yml` of the checkout, else the one at the commit the workflow runs
    /// on (`GITHUB_SHA`: the default branch for a schedule), else the defaults. Only its
    /// `github:` keys matter here.
    fn load_config(&mut self, explicit: Option<&std::path::Path>) -> Result<Config> {
        let path = explicit.unwrap_or(std::path::Path::new(CONFIG_FILE));
        let local = self.ctx.dir.join(path);
        if local.exists() {
            return Ok(crate::config_file::load(&local)?);
        }
        let shown_path = path.display().to_string();
        if let Some(sha) = self.ctx.settings.github.vars.sha.as_deref()
            && let Some(bytes) = self.client.file_at(&shown_path, sha)?
        {
            let short: String = sha.chars().take(10).collect();
            let shown = PathBuf::from(format!("{shown_path}@{short}"));
            return Ok(Config::parse_bytes(&bytes, &shown)?);
        }
        if explicit.is_some() {
            return Err(ConfigFileError::NowhereToBeFound { path: shown_path }.into());
        }
        Ok(Config::default())
    }

    /// The authors whose comments and issues are loopguard's own (as `ci` decides).
    fn trusted(&self) -> Result<TrustedAuthors> {
        let mut trusted = TrustedAuthors::default();
        if let Some(login) = self.client.own_login()? {
            trusted = trusted.with(login);
        }
        Ok(trusted)
    }

    /// Each PR's sticky comment: from one scan of the repository's comments since the
    /// oldest PR was opened when that takes no more pages than there are PRs, else from
    /// each PR's comments.
    fn stickies(
        &mut self,
        prs: &[PullRequest],
        trusted: &TrustedAuthors,
    ) -> Result<BTreeMap<u64, Sticky>> {
        let mut out = BTreeMap::new();
        if prs.is_empty() {
            return Ok(out);
        }
        let wanted: BTreeSet<u64> = prs.iter().map(|p| p.number).collect();
        let oldest = prs
            .iter()
            .map(|p| p.created_at.unwrap_or(jiff::Timestamp::UNIX_EPOCH))
            .min()
            .unwrap_or(jiff::Timestamp::UNIX_EPOCH);
        let mut by_pr: HashMap<u64, Vec<IssueComment>> = HashMap::new();
        match self.client.repo_comments_since(oldest, prs.len())? {
            CommentScan::Complete(comments) => {
                for c in comments {
                    if let Some(n) = c.issue_number().filter(|n| wanted.contains(n)) {
                        by_pr.entry(n).or_default().push(c);
                    }
                }
            }
            CommentScan::OverBudget { .. } => {
                self.progress.start(prs.len() as u64, "reading PR comments");
                for p in prs {
                    by_pr.insert(p.number, self.client.issue_comments(p.number)?);
                    self.progress.inc();
                }
                self.progress.finish();
            }
        }
        for (n, mut comments) in by_pr {
            // Oldest first, as a PR's own listing has them.
            comments.sort_by_key(|c| c.id);
            let Some(c) = find_sticky_comment(&comments, trusted) else {
                continue;
            };
            match parse_sticky_state::<CiState>(&c.body) {
                StickyState::Ok(state) if state.pr == n => {
                    out.insert(
                        n,
                        Sticky {
                            id: c.id,
                            body: c.body.clone(),
                            state,
                        },
                    );
                }
                StickyState::Ok(_) | StickyState::Missing => {}
                StickyState::Corrupt(why) => {
                    self.note(format!("#{n}: loopguard's comment could not be read ({why}): left out until `ci` mends it"));
                }
                StickyState::FutureVersion(v) => {
                    self.note(format!("#{n}: loopguard's comment was written by a newer loopguard (state v{v}): left out"));
                }
            }
        }
        Ok(out)
    }

    /// loopguard's dashboard issue: an open one carrying the issue label, else a closed
    /// one (reopened when written), found by marker and author.
    fn find_dashboard(&self, config: &Config, trusted: &TrustedAuthors) -> Result<Option<Issue>> {
        let label = &config.github.issue_label;
        let open = self.client.issues_with_label(label, "open")?;
        if let Some(i) = dashboard::find_dashboard(&open, trusted) {
            return Ok(Some(i.clone()));
        }
        let closed = self.client.issues_with_label(label, "closed")?;
        Ok(dashboard::find_dashboard(&closed, trusted).cloned())
    }

    /// The `issues: edited` event of this run, when it is an edit of the dashboard.
    fn edit_event(&self, issue: Option<&Issue>) -> Result<Option<IssuesEvent>> {
        let vars = &self.ctx.settings.github.vars;
        if vars.event_name != "issues" {
            return Ok(None);
        }
        let Some(path) = &vars.event_path else {
            return Ok(None);
        };
        let payload = std::fs::read_to_string(path).map_err(|source| GitHubError::EventFile {
            path: path.clone(),
            source,
        })?;
        let event = IssuesEvent::parse(&payload).map_err(GitHubError::Event)?;
        let ours = issue.is_some_and(|i| i.number == event.issue.number);
        Ok((ours && event.action.as_deref() == Some("edited")).then_some(event))
    }

    /// Resumes the PRs ticked in `body` (those not handled yet): the PR's sticky state
    /// gets the resume and loses the label, as a maintainer removing the label does.
    fn apply_ticks(
        &mut self,
        config: &Config,
        body: &str,
        event: Option<&IssuesEvent>,
        board: &mut Board,
    ) -> Result<()> {
        let ticks: Vec<u64> = dashboard::ticked(body)
            .into_iter()
            .filter(|n| board.handled.insert(*n))
            .collect();
        if ticks.is_empty() {
            return Ok(());
        }
        // Ticks this very edit made are the sender's; older ones are anyone's who could
        // edit the issue (write access).
        let by_sender: BTreeSet<u64> = match event {
            Some(e) => {
                let before = dashboard::ticked(e.body_before().unwrap_or(""));
                dashboard::ticked(&e.issue.body)
                    .difference(&before)
                    .copied()
                    .collect()
            }
            None => BTreeSet::new(),
        };
        let mut permissions: HashMap<String, bool> = HashMap::new();
        let now = self.ctx.settings.now();
        for n in ticks {
            let Some(entry) = board.entries.iter_mut().find(|e| e.number == n) else {
                continue;
            };
            // The comment as it is now: `ci` may have written it since the scan, and a
            // resume written over a stale state would undo that run.
            let Some(sticky) = board.stickies.get(&n) else {
                continue;
            };
            let fresh = self.client.comment(sticky.id)?;
            let body = match parse_sticky_state::<CiState>(&fresh.body) {
                StickyState::Ok(state) if state.pr == n => {
                    entry.state = state;
                    fresh.body
                }
                _ => sticky.body.clone(),
            };
            let editor = match event.and_then(|e| e.sender.as_ref()) {
                Some(sender) if by_sender.contains(&n) => {
                    let login = sender.login.clone();
                    let can_write = match permissions.get(&login) {
                        Some(w) => *w,
                        None => {
                            let p = self.client.permission_of(&login)?;
                            let w = matches!(p.as_deref(), Some("admin" | "write"));
                            permissions.insert(login.clone(), w);
                            w
                        }
                    };
                    Editor::Known { login, can_write }
                }
                _ => Editor::Unknown,
            };
            let run = self.ctx.settings.github.vars.run_id;
            match dashboard::tick(entry, &editor, now, run) {
                Tick::Moot => {}
                Tick::Refused(why) => self.note(why),
                Tick::Resume(resume) => {
                    let mut state = entry.state.clone();
                    state.resumes.push(resume.clone());
                    let visible = resumed_visible(sticky_visible(&body), &resume);
                    let seal_with = self.seal_for(&body, n);
                    let new_body = render_sticky(
                        &state,
                        &visible,
                        seal_with
                            .as_ref()
                            .map(|(k, repo)| (k, Binding { repo, pr: n })),
                    )
                    .map_err(|source| GitHubError::Sticky { pr: n, source })?;
                    debug_assert!(new_body.starts_with(STICKY_MARKER));
                    self.client.update_comment(sticky.id, &new_body)?;
                    let labelled = board
                        .prs
                        .iter()
                        .find(|p| p.number == n)
                        .is_some_and(|p| p.has_label(&config.github.label));
                    if labelled {
                        self.client.remove_label(n, &config.github.label)?;
                    }
                    entry.state = state;
                    board
                        .resumed
                        .push((n, resume.by.clone().unwrap_or_default()));
                }
            }
        }
        Ok(())
    }

    /// The key and the repository to seal a PR's state with, when the key is set up and
    /// the state as it is now carries a seal that verifies: a state that does not is
    /// written back without one (sealing it would vouch for what loopguard did not write),
    /// and `ci` checks the resume against this run instead.
    fn seal_for(&mut self, body: &str, pr: u64) -> Option<(StateKey, String)> {
        let key = self.key.clone()?;
        let repo = self.client.repo().to_string();
        if check_seal(body, &key, Binding { repo: &repo, pr }) == SealCheck::Sealed {
            return Some((key, repo));
        }
        self.note(format!(
            "#{pr}: the state in loopguard's comment carries no seal that verifies: the resume is written without one, and `ci` checks it against this workflow run"
        ));
        None
    }

    fn render(
        &self,
        entries: &[Entry],
        config: &Config,
        repo_url: &str,
        now: jiff::Timestamp,
    ) -> String {
        dashboard::render(
            entries,
            &Context {
                now,
                repo_url,
                label: &config.github.label,
                notes: &self.notes,
            },
        )
    }

    /// What was done: text (untrusted: titles) or the JSON document.
    fn report(
        &self,
        entries: &[Entry],
        issue: Option<u64>,
        resumed: &[(u64, String)],
        now: jiff::Timestamp,
        json: bool,
    ) -> Result<()> {
        let c = dashboard::counts(entries, now);
        if json {
            let doc = DashboardDocument {
                schema: Schema,
                issue,
                counts: c,
                rows: entries.iter().map(DashboardRow::of).collect(),
                resumed: resumed.iter().map(|(n, _)| *n).collect(),
                notes: self.notes.clone(),
                requests: self.client.requests_sent(),
            };
            print_json(&serde_json::to_value(doc)?)?;
            return Ok(());
        }
        let mut text = format!(
            "dashboard: {} stuck, {} half-open, {} healthy, {} closed lately",
            c.stuck, c.half_open, c.healthy, c.closed
        );
        if let Some(n) = issue {
            let _ = write!(text, " (issue #{n})");
        }
        text.push('\n');
        // What `ci` looks for in this run's log when the PR's state is not sealed: that
        // this run resumed this PR, for this person.
        for (n, by) in resumed {
            let _ = writeln!(text, "{}", crate::ci::derive::resumed_line(*n, by));
        }
        let _ = writeln!(text, "{} GitHub request(s)", self.client.requests_sent());
        super::print_untrusted(&text, self.ctx.settings.github.actions)
    }
}
