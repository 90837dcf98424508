//! `loopguard ci`: the GitHub Actions entry point (README, "GitHub Action"; docs/contract.md).
//!
//! The shell around `crate::ci`: a short sequence of reads, the judgement, and writes. It
//! reads the trigger, the PR, the config at the base commit, the state kept in loopguard's
//! sticky comment, the PR's history (git when the checkout has it, else the API) and this
//! run's test evidence (log files, or the failed jobs of the triggering run); the core
//! judges the history and decides what to write; this writes the step's outputs and
//! summary, then the label, the issue and the comment.

use std::io::Write;
use std::path::PathBuf;

use anyhow::Result;

use crate::breaker::State;
use crate::ci::cost::{LoopCost, loop_commits};
use crate::ci::decide::{self, ConfigSource, RunVerdict};
use crate::ci::evidence::evidence_from_fingerprint;
use crate::ci::plan::{self, Channels, CommentAction, IssueAction};
use crate::ci::records::iteration_from_commit;
use crate::ci::state::{CiState, IssueRef};
use crate::cli::CiArgs;
use crate::config::{CONFIG_FILE, Config};
use crate::error::{ConfigFileError, GitHubError, exit};
use crate::fingerprint::{Fingerprint, fingerprint_bytes};
use crate::git::Repo;
use crate::github::actions_io::{
    ActionsFiles, AnnotationLevel, AnnotationProps, annotation, append_summary, write_outputs,
};
use crate::github::sticky::{
    STICKY_MARKER, StickyState, TrustedAuthors, find_issue_for_pr, find_sticky_comment,
    issue_marker, parse_sticky_state, render_issue_body,
};
use crate::github::types::{IssueComment, OpenState};
use crate::github::{
    CiContext, GitHubClient, GitHubClientBuilder, IssueUpdate, JobLog, PullRequest, RunFilter,
    WorkflowRun,
};
use crate::iteration::{CommitId, Iteration, TestEvidence};
use crate::report::Status;
use crate::report::github::{Change, PrView};
use crate::run::judge_seen;

use super::evidence::{evidence_from_files, expand_globs};
use super::{Ctx, content_hash};

pub(super) fn ci(ctx: &Ctx, args: CiArgs) -> Result<u8> {
    let trigger = crate::github::context::ci_context(&ctx.settings.github.vars)?;
    let client = GitHubClientBuilder::from_settings(
        ctx.settings.github.client()?,
        ctx.settings.knobs.github_time_scale,
    )
    .dry_run(args.dry_run)
    .build()?;
    let mut s = Session {
        ctx,
        repo: Repo::discover_with_env(&ctx.dir).ok(),
        client,
        trigger,
        notes: Vec::new(),
        loop_cost: None,
    };
    // Read.
    let pr = s.find_pr()?;
    let mut config = s.load_config(pr.as_ref(), args.config.as_deref())?;
    let (writes, note) = decide::pr_writes(&s.trigger, pr.as_ref());
    s.notes.extend(note);
    let channels = Channels::from_config(&config, writes);
    let mut pr_state = s.read_state(pr.as_ref(), channels)?;
    if config.rules.constraint.guard_workflows {
        let guarded = s.guarded_workflows(pr.as_ref(), &mut pr_state.state)?;
        config.rules.constraint.guard(guarded);
    }
    let head = s.trigger.head_sha.clone();
    let history = s.history(pr.as_ref(), &config, &pr_state.state)?;
    if let Some(ev) = s.evidence_of_this_run(&args)? {
        pr_state.state.evidence.insert(head.clone(), ev);
    }
    if !pr_state.restored && pr.is_some() {
        s.rebuild_evidence(&config, &history, &mut pr_state.state);
    }
    let label_on_pr = pr
        .as_ref()
        .is_some_and(|p| p.has_label(&config.github.label));
    s.detect_resume(&config, pr.as_ref(), &mut pr_state.state, label_on_pr)?;
    if let Some(pr) = &pr {
        s.detect_turns(pr, &mut pr_state, &history)?;
    }

    // Judge: what a force-push took away still counts.
    let mut history = pr_state.state.with_gone(history);
    pr_state.state.apply_to(&mut history);
    let now = ctx.settings.now();
    pr_state.state.mark_seen(&history, now);
    let seen = &pr_state.state.seen;
    let judgement = judge_seen(&config, history, "ci", now, |id| seen.get(id).copied());
    let status = Status::of_judgement(&config, &judgement);
    let change = Change::between(pr_state.state.last.as_ref().map(|v| v.state), status.state);
    let ids: Vec<CommitId> = judgement
        .run
        .iterations()
        .iter()
        .map(|it| it.id.clone())
        .collect();
    pr_state
        .state
        .retain_history(&ids, decide::keep_evidence(&config));
    // Kept with the history from git too: a force-push may take commits the next
    // checkout does not have.
    pr_state
        .state
        .remember_records(&config, judgement.run.iterations());
    // The run that last changed the state; this one, once it changes it (write_github).
    let previous_run = pr_state.state.last.as_ref().and_then(|v| v.run);
    let mut verdict = plan::verdict(&head, &status, previous_run);
    if let Some(pr) = &pr {
        s.loop_cost = s.loop_cost(pr, &status);
        verdict.loop_cost.clone_from(&s.loop_cost);
    }
    pr_state.state.last = Some(verdict);

    // Write.
    s.write_local(&config, &status, pr.as_ref(), change, &pr_state)?;
    if let Some(pr) = &pr {
        let to = PrWrites {
            config: &config,
            status: &status,
            pr,
            channels,
            change,
        };
        s.write_github(&to, label_on_pr, &mut pr_state, &ids)?;
    }
    if args.dry_run {
        super::print_planned_writes(&s.client, ctx.settings.github.actions)?;
    }
    Ok(if status.state == State::Open {
        exit::TRIPPED
    } else {
        exit::OK
    })
}

/// The re-run attempts of the loop's runs read for its CI cost, at most (one request each).
const MAX_EARLIER_ATTEMPTS: usize = 20;

struct Session<'c> {
    ctx: &'c Ctx,
    repo: Option<Repo>,
    client: GitHubClient,
    trigger: CiContext,
    /// Shown in the summary and comment; may quote untrusted names.
    notes: Vec<String>,
    /// While the breaker is open: what the loop cost in CI.
    loop_cost: Option<LoopCost>,
}

/// What is written to a PR: the verdict, and where it goes.
struct PrWrites<'a> {
    config: &'a Config,
    status: &'a Status,
    pr: &'a PullRequest,
    channels: Channels,
    change: Change,
}

/// The stuck-loop issue's text, and how it is found and compared.
struct IssueText {
    title: String,
    body: String,
    /// Of the title and the body: the issue is edited only when it changed.
    digest: String,
    /// The hidden marker that finds it.
    marker: String,
}

/// What the sticky comment holds, and whether it may be written.
struct PrState {
    state: CiState,
    /// loopguard's sticky comment: id and body.
    sticky: Option<(u64, String)>,
    /// The comment may be written (it is not a newer loopguard's).
    comment_writable: bool,
    /// A state was read from the comment.
    restored: bool,
    trusted: TrustedAuthors,
    /// The PR's comments, when they were read (comments are on), loopguard's own left out.
    comments: Option<Vec<IssueComment>>,
}

impl Session<'_> {
    fn note(&mut self, text: String) {
        self.ctx.ui.warn(&text);
        self.notes.push(text);
    }

    // ---- reading -----------------------------------------------------------------------

    /// The PR under test: from the payload, or for a `workflow_run` of a fork by its head.
    fn find_pr(&mut self) -> Result<Option<PullRequest>> {
        use crate::github::EventKind;
        if !matches!(
            self.trigger.event,
            EventKind::PullRequest | EventKind::PullRequestTarget | EventKind::WorkflowRun
        ) {
            return Ok(None);
        }
        if let Some(n) = self.trigger.pr_number {
            return Ok(Some(self.client.pull_request(n)?));
        }
        let hint = decide::head_hint(&self.trigger);
        let found = self.client.find_pull_requests_for_head(
            &self.trigger.head_sha,
            hint.as_ref().map(|(o, b)| (o.as_str(), b.as_str())),
        )?;
        match found.into_iter().next() {
            Some(pr) => Ok(Some(pr)),
            None => {
                self.note(format!(
                    "no open pull request has head {}: reporting only",
                    self.trigger.head_sha.short()
                ));
                Ok(None)
            }
        }
    }

    /// The config at the base: from the checkout when it has the commit, else the API.
    fn load_config(&mut self, pr: Option<&PullRequest>, explicit: Option<&str>) -> Result<Config> {
        let path = explicit.unwrap_or(CONFIG_FILE);
        let (bytes, at) = match decide::config_source(&self.trigger, pr) {
            ConfigSource::Base(sha) => {
                let local = self
                    .repo
                    .as_ref()
                    .filter(|r| r.resolve(sha.as_str()).is_ok())
                    .map(|r| r.blob_at(sha.as_str(), path))
                    .transpose()?;
                let bytes = match local {
                    Some(b) => b,
                    None => self.client.file_at(path, sha.as_str())?,
                };
                (bytes, sha.short().to_owned())
            }
            ConfigSource::BaseBranch(branch) => (self.client.file_at(path, &branch)?, branch),
            ConfigSource::Head(sha) => {
                self.note(format!(
                    "no base commit: {path} is read at the pushed commit {}",
                    sha.short()
                ));
                (
                    self.client.file_at(path, sha.as_str())?,
                    sha.short().to_owned(),
                )
            }
        };
        let shown = PathBuf::from(format!("{path}@{at}"));
        match bytes {
            Some(b) => Ok(Config::parse_bytes(&b, &shown)?),
            None if explicit.is_some() => Err(ConfigFileError::NotInBase {
                path: path.to_owned(),
                at,
            }
            .into()),
            None => Ok(Config::default()),
        }
    }

    /// The workflows that run loopguard at the base (where the config comes from): from
    /// the checkout when it has the base; else from the API, once per base (kept in the
    /// state).
    fn guarded_workflows(
        &mut self,
        pr: Option<&PullRequest>,
        state: &mut CiState,
    ) -> Result<Vec<String>> {
        use super::guarded_workflows_at;
        use crate::config::{WORKFLOWS_DIR, guarded_workflows, is_workflow_file};
        let at = match decide::config_source(&self.trigger, pr) {
            ConfigSource::Base(sha) | ConfigSource::Head(sha) => sha.as_str().to_owned(),
            ConfigSource::BaseBranch(branch) => branch,
        };
        if let Some(repo) = self.repo.as_ref().filter(|r| r.resolve(&at).is_ok()) {
            return guarded_workflows_at(repo, &at);
        }
        if let Some(known) = state.guarded.as_ref().filter(|g| g.at == at) {
            return Ok(known.paths.clone());
        }
        let mut files = Vec::new();
        for path in self.client.files_in_dir(WORKFLOWS_DIR, &at)? {
            if !is_workflow_file(&path) {
                continue;
            }
            if let Some(bytes) = self.client.file_at(&path, &at)? {
                files.push((path, bytes));
            }
        }
        let paths = guarded_workflows(files);
        state.guarded = Some(crate::ci::state::GuardedWorkflows {
            at,
            paths: paths.clone(),
        });
        Ok(paths)
    }

    /// The state in loopguard's sticky comment, when the PR has one and comments are on.
    fn read_state(&mut self, pr: Option<&PullRequest>, channels: Channels) -> Result<PrState> {
        let mut out = PrState {
            state: CiState::new(pr.map_or(0, |p| p.number)),
            sticky: None,
            comment_writable: channels.comment,
            restored: false,
            trusted: TrustedAuthors::default(),
            comments: None,
        };
        let Some(pr) = pr.filter(|_| channels.comment) else {
            return Ok(out);
        };
        if let Some(login) = self.client.own_login()? {
            out.trusted = out.trusted.with(login);
        }
        let mut comments = self.client.issue_comments(pr.number)?;
        if let Some(c) = find_sticky_comment(&comments, &out.trusted) {
            out.sticky = Some((c.id, c.body.clone()));
            match parse_sticky_state::<CiState>(&c.body) {
                StickyState::Ok(s) if s.pr == pr.number => {
                    out.state = s;
                    out.restored = true;
                }
                StickyState::Ok(_) | StickyState::Missing => {}
                StickyState::Corrupt(why) => {
                    // Rewritten in place with a fresh state.
                    self.note(format!("the state in loopguard's comment could not be read ({why}): rebuilt from the API"));
                }
                StickyState::FutureVersion(v) => {
                    self.note(format!("loopguard's comment was written by a newer loopguard (state v{v}): left alone"));
                    out.comment_writable = false;
                    out.sticky = None;
                }
            }
        }
        let sticky = out.sticky.as_ref().map(|(id, _)| *id);
        comments.retain(|c| Some(c.id) != sticky);
        out.comments = Some(comments);
        Ok(out)
    }

    /// A person's turn between two runs (see [`crate::ci::turns`]): the reviews and
    /// comments since the last turn kept, by people with write access (asked once each
    /// per PR), each a new episode after the head they saw. Only where loopguard keeps its
    /// state in its comment, as a maintainer's resume.
    fn detect_turns(
        &mut self,
        pr: &PullRequest,
        pr_state: &mut PrState,
        history: &[Iteration],
    ) -> Result<()> {
        let Some(comments) = &pr_state.comments else {
            return Ok(());
        };
        let reviews = self.client.pull_request_reviews(pr.number)?;
        let author = pr
            .user
            .as_ref()
            .map(|u| u.login.as_str())
            .unwrap_or_default();
        let state = &mut pr_state.state;
        let since = state.turns.last().map(|t| t.at);
        let said: Vec<_> = crate::ci::turns::candidates(comments, &reviews, &[author])
            .into_iter()
            .filter(|s| since.is_none_or(|t| s.at > t))
            .collect();
        let mut writers = Vec::new();
        for s in said {
            if state.not_writers.contains(&s.by) {
                continue;
            }
            if !state.writers.contains(&s.by) {
                let permission = self.client.permission_of(&s.by)?;
                if matches!(permission.as_deref(), Some("admin" | "maintain" | "write")) {
                    state.writers.push(s.by.clone());
                } else {
                    state.not_writers.push(s.by.clone());
                    continue;
                }
            }
            writers.push(s);
        }
        let known: Vec<CommitId> = state.turns.iter().map(|t| t.after.clone()).collect();
        for turn in crate::ci::turns::place(&writers, history) {
            if !known.contains(&turn.after) {
                state.turns.push(turn);
            }
        }
        Ok(())
    }

    /// The PR's history: `base..head` from the checkout when it has both and is not
    /// shallow, else the API.
    fn history(
        &mut self,
        pr: Option<&PullRequest>,
        config: &Config,
        state: &CiState,
    ) -> Result<Vec<Iteration>> {
        let head = self.trigger.head_sha.clone();
        let base = pr
            .map(|p| p.base.sha.clone())
            .or_else(|| self.trigger.base_sha.clone());
        if let Some(repo) = &mut self.repo {
            repo.read_tests_as(config.tests.clone());
        }
        if let (Some(repo), Some(base)) = (&self.repo, &base)
            && !repo.is_shallow()
            && repo.resolve(head.as_str()).is_ok()
            && repo.resolve(base.as_str()).is_ok()
        {
            let ids = repo.rev_range_line(&format!("{base}..{head}"))?;
            return repo.iterations(&ids).map_err(Into::into);
        }
        match pr {
            Some(pr) => {
                let listed = self.client.pull_request_commits(pr.number)?;
                let client = &self.client;
                Ok(decide::api_history(config, listed, &head, state, |sha| {
                    client.commit(sha)
                })?)
            }
            None => {
                let commit = self.client.commit(&head)?;
                Ok(vec![iteration_from_commit(&commit, None, &config.tests)])
            }
        }
    }

    /// A maintainer let the agent try again: loopguard's label is gone from an open PR,
    /// taken off by a person with write access who is not the PR's own author (the agent's
    /// account) — the dashboard's boxes ask the same. Who took it off: the `unlabeled`
    /// event that triggered this run, or else the PR's newest `unlabeled` event for the
    /// label (1 request, only when the label is found gone). Anyone else's removal is no
    /// resume: it is noted, and the label goes back on.
    fn detect_resume(
        &mut self,
        config: &Config,
        pr: Option<&PullRequest>,
        state: &mut CiState,
        label_on_pr: bool,
    ) -> Result<()> {
        let label = config.github.label.as_str();
        let unlabeled_now = self.trigger.action.as_deref() == Some("unlabeled")
            && self.trigger.label.as_deref() == Some(label);
        let (Some(pr), Some(mut resume)) = (
            pr,
            plan::detect_resume(
                state,
                label_on_pr,
                unlabeled_now,
                None,
                self.ctx.settings.now(),
            ),
        ) else {
            return Ok(());
        };
        if state.resumes.iter().any(|r| r.after == resume.after) {
            return Ok(());
        }
        let by = if unlabeled_now {
            self.trigger.sender.clone()
        } else {
            self.client.label_removed_by(pr.number, label)?
        };
        match self.who_resumes(pr, by.as_deref())? {
            Ok(login) => {
                resume.by = Some(login);
                state.resumes.push(resume);
            }
            Err(why) => self.note(format!(
                "the label {label} was taken off by {}, {why}: that is no resume (only a person with write access who is not the PR's author resumes it); the label goes back on",
                by.as_deref().unwrap_or("someone GitHub does not name")
            )),
        }
        Ok(())
    }

    /// `Ok(login)` when `by` may let the agent try again, else why not.
    fn who_resumes(&self, pr: &PullRequest, by: Option<&str>) -> Result<Result<String, String>> {
        let Some(login) = by else {
            return Ok(Err("who cannot be told".to_owned()));
        };
        if login.ends_with("[bot]") {
            return Ok(Err("a bot, not a person".to_owned()));
        }
        if pr.user.as_ref().is_some_and(|u| u.login == login) {
            return Ok(Err("the PR's own author (the agent's account)".to_owned()));
        }
        Ok(match self.client.permission_of(login)?.as_deref() {
            Some("admin" | "maintain" | "write") => Ok(login.to_owned()),
            _ => Err("who has no write access here".to_owned()),
        })
    }

    // ---- evidence ----------------------------------------------------------------------

    fn evidence_of_this_run(&mut self, args: &CiArgs) -> Result<Option<TestEvidence>> {
        if !args.log.is_empty() || !args.junit.is_empty() {
            let mut patterns = args.log.clone();
            patterns.extend(args.junit.iter().cloned());
            let (paths, unmatched) = expand_globs(&patterns, &self.ctx.dir)?;
            for p in unmatched {
                self.note(format!("`{p}` matched no file"));
            }
            if paths.is_empty() {
                return Ok(None);
            }
            let ev = evidence_from_files(&paths, &self.ctx.dir)?;
            if ev.is_none() {
                self.note("no test results were recognised in the logs given".to_owned());
            }
            return Ok(ev);
        }
        let Some(run) = self.trigger.workflow_run.clone() else {
            self.note("no test evidence for this run: pass `log` or `junit` (or run under `workflow_run`)".to_owned());
            return Ok(None);
        };
        self.evidence_of_run(&run)
    }

    /// The evidence of a completed workflow run: a pass from its conclusion, or the
    /// fingerprint of its failed jobs' logs.
    fn evidence_of_run(&mut self, run: &WorkflowRun) -> Result<Option<TestEvidence>> {
        match decide::run_verdict(run) {
            RunVerdict::Passed(ev) => return Ok(Some(ev)),
            RunVerdict::NoEvidence(why) => {
                self.note(why);
                return Ok(None);
            }
            RunVerdict::ReadFailedJobs => {}
        }
        let name = run.describe();
        let jobs = self.client.run_jobs(run.id)?;
        let mut parts = Vec::new();
        let mut sources = Vec::new();
        for job in jobs.iter().filter(|j| j.failed()) {
            match self.client.job_log(job.id)? {
                JobLog::Found { text, .. } => {
                    parts.push(fingerprint_bytes(text.as_bytes()));
                    sources.push(format!("job {}", job.name));
                }
                JobLog::Missing { status } => {
                    let why = if status == 410 { "expired" } else { "missing" };
                    self.note(format!(
                        "the log of job {} ({name}) is {why} ({status})",
                        job.name
                    ));
                }
            }
        }
        let source = if sources.is_empty() {
            name
        } else {
            format!("{name}: {}", sources.join(", "))
        };
        let read = evidence_from_fingerprint(&Fingerprint::combine(parts), &source);
        Ok(Some(decide::failed_run_evidence(read, &source)))
    }

    /// Evidence of earlier heads from their workflow runs, when no comment kept it. Best
    /// effort: what cannot be read is noted, not fatal.
    fn rebuild_evidence(&mut self, config: &Config, history: &[Iteration], state: &mut CiState) {
        let wanted = decide::wanted_evidence(config, history, &self.trigger.head_sha, state);
        if wanted.is_empty() {
            return;
        }
        if let Err(e) = self.rebuild_from_runs(&wanted, state) {
            self.note(format!(
                "the evidence of earlier iterations could not be rebuilt from their workflow runs: {e:#}"
            ));
        }
    }

    fn rebuild_from_runs(&mut self, wanted: &[CommitId], state: &mut CiState) -> Result<()> {
        // The workflow whose runs hold the tests: the triggering one, or this one.
        let workflow_id = match &self.trigger.workflow_run {
            Some(run) => run.workflow_id,
            None => match self.trigger.run_id {
                Some(id) => self
                    .client
                    .workflow_run(id)?
                    .workflow_id
                    .filter(|w| *w != 0),
                None => None,
            },
        };
        let current = self.trigger.run_id;
        let triggering = self.trigger.workflow_run.as_ref().map(|r| r.id);
        for sha in wanted {
            let runs = self.client.workflow_runs(&RunFilter {
                head_sha: Some(sha.clone()),
                workflow_id,
                ..RunFilter::default()
            })?;
            if let Some(run) = decide::run_that_counts(&runs, current, triggering).cloned()
                && let Some(ev) = self.evidence_of_run(&run)?
            {
                state.evidence.insert(sha.clone(), ev);
            }
        }
        Ok(())
    }

    // ---- writing -----------------------------------------------------------------------

    fn view<'a>(
        &'a self,
        config: &'a Config,
        status: &'a Status,
        pr: Option<u64>,
        change: Change,
        issue: Option<u64>,
    ) -> PrView<'a> {
        PrView {
            status,
            pr,
            head: self.trigger.head_sha.as_str(),
            change,
            issue,
            label: &config.github.label,
            notes: &self.notes,
            loop_cost: self.loop_cost.as_ref().map(|c| c as _),
        }
    }

    /// What the loop an open breaker stops cost in CI: the workflow runs GitHub lists for
    /// the PR's branch whose commit is one of the loop's, each attempt of each (a re-run's
    /// earlier attempts read one request each, at most [`MAX_EARLIER_ATTEMPTS`]), and their
    /// time. What cannot be read is noted, never fatal.
    fn loop_cost(&mut self, pr: &PullRequest, status: &Status) -> Option<LoopCost> {
        if status.state != State::Open {
            return None;
        }
        let commits = loop_commits(status)?;
        let listed = self.client.workflow_runs(&RunFilter {
            branch: Some(pr.head.ref_name.clone()).filter(|b| !b.is_empty()),
            ..RunFilter::default()
        });
        let mut runs = match listed {
            Ok(runs) => runs,
            Err(e) => {
                self.note(format!(
                    "what the loop cost in CI could not be read from the workflow runs: {e:#}"
                ));
                return None;
            }
        };
        let earlier = LoopCost::earlier_attempts(&commits, &runs);
        if earlier.len() > MAX_EARLIER_ATTEMPTS {
            self.note(format!(
                "what the loop cost in CI counts {MAX_EARLIER_ATTEMPTS} of the {} re-run attempts of its runs",
                earlier.len()
            ));
        }
        for (id, attempt) in earlier.into_iter().take(MAX_EARLIER_ATTEMPTS) {
            match self.client.workflow_run_attempt(id, attempt) {
                Ok(run) => runs.push(run),
                Err(e) => self.note(format!(
                    "attempt {attempt} of workflow run {id} could not be read; the loop's cost leaves it out: {e:#}"
                )),
            }
        }
        LoopCost::of(&commits, &runs)
    }

    /// Outputs, summary, annotation and the log: the step's own files, always written.
    fn write_local(
        &self,
        config: &Config,
        status: &Status,
        pr: Option<&PullRequest>,
        change: Change,
        pr_state: &PrState,
    ) -> Result<()> {
        let view = self.view(
            config,
            status,
            pr.map(|p| p.number),
            change,
            pr_state.state.issue.as_ref().map(|i| i.number),
        );
        let files = ActionsFiles::from_settings(&self.ctx.settings.github);
        let signature = pr_state
            .state
            .evidence
            .get(&self.trigger.head_sha)
            .and_then(|t| t.signature.as_ref());
        if let Some(path) = &files.output {
            let outputs = view.outputs(signature);
            let pairs: Vec<(&str, &str)> = outputs.iter().map(|(k, v)| (*k, v.as_str())).collect();
            write_outputs(path, &pairs)?;
        }
        if let Some(path) = &files.summary
            && append_summary(path, &view.summary())?
        {
            self.ctx
                .ui
                .warn("the step summary was cut to fit GitHub's 1 MiB");
        }
        super::print_untrusted(&view.text(), self.ctx.settings.github.actions)?;
        if status.state == State::Open {
            let line = annotation(
                AnnotationLevel::Error,
                &AnnotationProps {
                    title: Some(format!(
                        "loopguard: {}",
                        status.rule.map(|r| r.to_string()).unwrap_or_default()
                    )),
                    ..AnnotationProps::default()
                },
                // Inert anywhere on the line, not only at its start.
                &crate::sanitize::neutralize(status.reason.as_deref().unwrap_or(""))
                    .replace("::", ":\u{200B}:"),
            );
            let mut out = std::io::stdout().lock();
            writeln!(out, "{line}")?;
            out.flush()?;
        }
        Ok(())
    }

    /// The label, the issue and the sticky comment of `pr`, as the plan says.
    fn write_github(
        &mut self,
        to: &PrWrites<'_>,
        label_on_pr: bool,
        pr_state: &mut PrState,
        order: &[CommitId],
    ) -> Result<()> {
        let issue = self.issue_text(to, pr_state);
        if to.channels.issue && pr_state.state.issue.is_none() && to.status.state == State::Open {
            pr_state.state.issue =
                self.find_issue(to.config, to.pr.number, &pr_state.trusted, &issue.marker)?;
        }
        let p = plan::plan(&plan::Facts {
            channels: to.channels,
            state: to.status.state,
            label_on_pr,
            issue: pr_state.state.issue.as_ref(),
            issue_digest: &issue.digest,
        });
        let label = &to.config.github.label;
        if p.add_label {
            self.client
                .ensure_label(label, decide::LABEL_COLOR, decide::LABEL_DESCRIPTION)?;
            self.client.add_labels(to.pr.number, &[label.as_str()])?;
        }
        if p.remove_label {
            self.client.remove_label(to.pr.number, label)?;
        }
        pr_state.state.labelled = to.channels.label && to.status.state == State::Open;
        self.write_issue(to.config, p.issue, issue, pr_state)?;
        if pr_state.comment_writable {
            self.write_comment(to, pr_state, order)?;
        }
        Ok(())
    }

    /// The stuck-loop issue of the PR as it would be written now.
    fn issue_text(&self, to: &PrWrites<'_>, pr_state: &PrState) -> IssueText {
        let number = pr_state.state.issue.as_ref().map(|i| i.number);
        let (title, markdown) = self
            .view(to.config, to.status, Some(to.pr.number), to.change, number)
            .issue(to.pr.number);
        let body = render_issue_body(to.pr.number, &markdown);
        IssueText {
            digest: content_hash(format!("{title}\n{body}").as_bytes()),
            title,
            body,
            marker: issue_marker(to.pr.number),
        }
    }

    /// Creates, updates or closes the stuck-loop issue (`action`), and remembers it.
    fn write_issue(
        &mut self,
        config: &Config,
        action: IssueAction,
        issue: IssueText,
        pr_state: &mut PrState,
    ) -> Result<()> {
        match action {
            IssueAction::Nothing => {}
            IssueAction::Create => {
                let issue_label = &config.github.issue_label;
                self.client.ensure_label(
                    issue_label,
                    decide::ISSUE_LABEL_COLOR,
                    decide::ISSUE_LABEL_DESCRIPTION,
                )?;
                let created = self.client.create_issue(
                    &issue.title,
                    &issue.body,
                    &[issue_label.as_str()],
                    &issue.marker,
                )?;
                if !self.client.is_dry_run() {
                    pr_state.state.issue = Some(IssueRef {
                        number: created.number,
                        digest: issue.digest,
                        open: true,
                    });
                }
            }
            IssueAction::Update { number } | IssueAction::Close { number } => {
                let open = !matches!(action, IssueAction::Close { .. });
                self.client.update_issue(
                    number,
                    &IssueUpdate {
                        title: Some(issue.title),
                        body: Some(issue.body),
                        state: Some(if open {
                            OpenState::Open
                        } else {
                            OpenState::Closed
                        }),
                        labels: None,
                    },
                )?;
                pr_state.state.issue = Some(IssueRef {
                    number,
                    digest: issue.digest,
                    open,
                });
            }
        }
        Ok(())
    }

    /// Writes loopguard's sticky comment (its visible text and the state it keeps) when
    /// it changed.
    fn write_comment(
        &mut self,
        to: &PrWrites<'_>,
        pr_state: &mut PrState,
        order: &[CommitId],
    ) -> Result<()> {
        let issue_now = pr_state.state.issue.as_ref().map(|i| i.number);
        let visible = self
            .view(
                to.config,
                to.status,
                Some(to.pr.number),
                to.change,
                issue_now,
            )
            .comment();
        let sticky = |source| GitHubError::Sticky {
            pr: to.pr.number,
            source,
        };
        let mut body = decide::sticky_body(&mut pr_state.state, &visible, order).map_err(sticky)?;
        let existing = pr_state.sticky.as_ref().map(|(id, b)| (*id, b.as_str()));
        let this_run = self.trigger.run_id;
        if plan::comment_action(to.channels, existing, &body) != CommentAction::Nothing
            && let Some(last) = pr_state.state.last.as_mut()
            && last.run != this_run
        {
            // The comment changes anyway: it names this run as the one that changed it.
            last.run = this_run;
            body = decide::sticky_body(&mut pr_state.state, &visible, order).map_err(sticky)?;
        }
        match plan::comment_action(to.channels, existing, &body) {
            CommentAction::Nothing => {}
            CommentAction::Create => {
                self.client
                    .create_comment(to.pr.number, &body, STICKY_MARKER)?;
            }
            CommentAction::Update { id } => {
                self.client.update_comment(id, &body)?;
            }
        }
        Ok(())
    }

    /// loopguard's open issue for the PR, found by its marker and author (when the state
    /// that remembers it was lost).
    fn find_issue(
        &self,
        config: &Config,
        pr: u64,
        trusted: &TrustedAuthors,
        marker: &str,
    ) -> Result<Option<IssueRef>> {
        let issues = self
            .client
            .find_issues_with_marker(marker, Some(&config.github.issue_label))?;
        Ok(find_issue_for_pr(&issues, pr, trusted).map(|i| IssueRef {
            number: i.number,
            // Unknown: written again.
            digest: String::new(),
            open: i.is_open(),
        }))
    }
}
