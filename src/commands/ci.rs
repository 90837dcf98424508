//! `loopguard ci`: the GitHub Actions entry point (README.md, "GitHub Action").
//!
//! The shell around `crate::ci`: it reads the trigger, the PR, the config at the base
//! commit, the PR's history (git when the checkout has it, else the API), this run's test
//! evidence (log files, or the failed jobs of the triggering run) and the state kept in
//! loopguard's sticky comment; `crate::ci` judges and decides; this writes the step's
//! outputs and summary, then the label, the issue and the comment.

use std::collections::HashSet;
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Result;
use globset::GlobBuilder;
use jiff::Timestamp;

use crate::breaker::State;
use crate::ci::evidence::{evidence_from_fingerprint, passed, unread_failure};
use crate::ci::judge::{Judgement, judge};
use crate::ci::plan::{self, Channels, CommentAction, IssueAction};
use crate::ci::records::{iteration_from_commit, iteration_from_listed_commit};
use crate::ci::render::{Change, Report};
use crate::ci::state::{CiState, IssueRef};
use crate::cli::CiArgs;
use crate::config::{CONFIG_FILE, Config};
use crate::error::{Error, exit};
use crate::fingerprint::{Fingerprint, fingerprint_bytes};
use crate::git::Repo;
use crate::github::actions_io::{
    ActionsFiles, AnnotationLevel, AnnotationProps, annotation, append_summary, write_outputs,
    write_untrusted,
};
use crate::github::event::EventKind;
use crate::github::sticky::{
    StickyState, TrustedAuthors, find_issue_for_pr, find_sticky_comment, issue_marker,
    parse_sticky_state, render_issue_body, render_sticky,
};
use crate::github::{
    CiContext, GitHubClient, GitHubClientBuilder, IssueUpdate, JobLog, PullRequest, RunFilter,
    WorkflowRun,
};
use crate::iteration::{Iteration, TestEvidence};
use crate::report::View;

use super::{content_hash, git_err, now, warn};

/// Label colour and description when loopguard creates its label.
const LABEL_COLOR: &str = "b60205";
const LABEL_DESCRIPTION: &str = "loopguard: the agent on this PR is stuck in a loop";
/// Largest state (encoded) the comment carries before old records are shed.
const STATE_BUDGET: usize = 40_000;

pub fn ci(dir: &Path, args: CiArgs) -> Result<u8> {
    let now = now();
    let ctx = crate::github::context::ci_context(|name| std::env::var(name).ok())?;
    let client = GitHubClientBuilder::from_env()?
        .dry_run(args.dry_run)
        .build()?;
    let repo = Repo::discover_with_env(dir).ok();
    let mut s = Session {
        ctx,
        client,
        repo,
        dir: dir.to_owned(),
        notes: Vec::new(),
        now,
    };
    let code = s.run(&args)?;
    if args.dry_run {
        let planned = s.client.planned_writes();
        let mut text = format!(
            "dry run: {} GitHub write(s) planned, none made\n",
            planned.len()
        );
        for w in &planned {
            text.push_str(&format!("  {w}\n"));
        }
        print_untrusted(&text)?;
    }
    Ok(code)
}

struct Session {
    ctx: CiContext,
    client: GitHubClient,
    repo: Option<Repo>,
    dir: PathBuf,
    /// Shown in the summary and comment; may quote untrusted names.
    notes: Vec<String>,
    now: Timestamp,
}

/// Everything read before judging.
struct Inputs {
    pr: Option<PullRequest>,
    config: Config,
    history: Vec<Iteration>,
    /// The history came from the API (so its records are worth keeping).
    from_api: bool,
    state: CiState,
    /// loopguard's sticky comment: id and body.
    sticky: Option<(u64, String)>,
    /// The comment may be written (not one of a newer loopguard's).
    comment_writable: bool,
    /// A state was read from the comment.
    restored: bool,
    trusted: TrustedAuthors,
}

impl Session {
    fn note(&mut self, text: String) {
        warn(&text);
        self.notes.push(text);
    }

    fn run(&mut self, args: &CiArgs) -> Result<u8> {
        let head = self.ctx.head_sha.clone();
        let pr = self.find_pr()?;
        let config = self.load_config(pr.as_ref(), args.config.as_deref())?;
        let pr_writes = match &pr {
            Some(_) if self.ctx.event == EventKind::PullRequest && self.ctx.is_fork => {
                self.note("this PR comes from a fork, whose workflow token is read-only: loopguard reports here only; run it from a `workflow_run` workflow to label, comment and file issues".to_owned());
                false
            }
            Some(pr) if pr.state == "closed" => false,
            Some(_) => true,
            None => false,
        };
        let channels = Channels::from_config(&config, pr_writes);
        let mut inputs = self.read_inputs(pr, config, channels, &head)?;

        // This run's evidence, then the evidence of earlier heads when no state kept it.
        if let Some(ev) = self.evidence_of_this_run(args)? {
            inputs.state.evidence.insert(head.clone(), ev);
        }
        if !inputs.restored && inputs.pr.is_some() {
            self.rebuild_evidence(&inputs.config, &inputs.history, &head, &mut inputs.state)?;
        }

        // A maintainer's resume.
        let label = inputs.config.github.label.clone();
        let label_on_pr = inputs
            .pr
            .as_ref()
            .is_some_and(|p| p.labels.iter().any(|l| l.name == label));
        let unlabeled_now = self.ctx.action.as_deref() == Some("unlabeled")
            && self.ctx.label.as_deref() == Some(label.as_str());
        if let Some(resume) = plan::detect_resume(
            &inputs.state,
            label_on_pr,
            unlabeled_now,
            self.ctx.sender.as_deref(),
            self.now,
        ) && !inputs.state.resumes.iter().any(|r| r.after == resume.after)
        {
            inputs.state.resumes.push(resume);
        }

        for it in &mut inputs.history {
            it.test = inputs.state.evidence.get(&it.id).cloned();
        }
        let judgement = judge(
            &inputs.config,
            &inputs.history,
            &inputs.state.resumes,
            self.now,
        );
        let change = Change::between(inputs.state.last.as_ref(), judgement.breaker.state);

        let ids: Vec<String> = inputs.history.iter().map(|it| it.id.clone()).collect();
        let keep = 2 * inputs.config.window as usize + 1;
        inputs.state.retain_history(&ids, keep);
        if inputs.from_api {
            inputs
                .state
                .remember_records(&inputs.config, &inputs.history);
        }
        inputs.state.last = Some(plan::verdict(&head, &judgement.breaker));

        self.write_local(&inputs, &judgement, change, &head)?;
        if let Some(pr) = inputs.pr.clone() {
            self.write_github(
                &mut inputs,
                &pr,
                channels,
                &judgement,
                change,
                &head,
                label_on_pr,
            )?;
        }
        Ok(if judgement.breaker.state == State::Open {
            exit::TRIPPED
        } else {
            exit::OK
        })
    }

    // ---- reading -----------------------------------------------------------------------

    /// The PR under test: from the payload, or for a `workflow_run` of a fork by its head.
    fn find_pr(&mut self) -> Result<Option<PullRequest>> {
        let number = match self.ctx.event {
            EventKind::PullRequest | EventKind::PullRequestTarget | EventKind::WorkflowRun => {
                self.ctx.pr_number
            }
            _ => return Ok(None),
        };
        if let Some(n) = number {
            return Ok(Some(self.client.pull_request(n)?));
        }
        let hint = match (&self.ctx.head_repo, &self.ctx.head_ref) {
            (Some(repo), Some(branch)) => repo
                .split('/')
                .next()
                .map(|o| (o.to_owned(), branch.clone())),
            _ => None,
        };
        let found = self.client.find_pull_requests_for_head(
            &self.ctx.head_sha,
            hint.as_ref().map(|(o, b)| (o.as_str(), b.as_str())),
        )?;
        match found.into_iter().next() {
            Some(pr) => Ok(Some(pr)),
            None => {
                self.note(format!(
                    "no open pull request has head {}: reporting only",
                    short(&self.ctx.head_sha)
                ));
                Ok(None)
            }
        }
    }

    /// The commit the config is read from: the PR's base, the commit before a push.
    fn base(&self, pr: Option<&PullRequest>) -> Option<String> {
        pr.map(|p| p.base.sha.clone())
            .filter(|s| !s.is_empty())
            .or_else(|| self.ctx.base_sha.clone())
    }

    fn load_config(&mut self, pr: Option<&PullRequest>, explicit: Option<&str>) -> Result<Config> {
        let path = explicit.unwrap_or(CONFIG_FILE);
        let base = self.base(pr);
        let base_ref = pr
            .map(|p| p.base.ref_name.clone())
            .or_else(|| self.ctx.base_ref.clone());
        let (bytes, at) = match &base {
            Some(sha) => {
                let local = self
                    .repo
                    .as_ref()
                    .filter(|r| r.resolve(sha).is_ok())
                    .map(|r| r.blob_at(sha, path).map_err(git_err))
                    .transpose()?;
                match local {
                    Some(b) => (b, short(sha)),
                    None => (self.client.file_at(path, sha)?, short(sha)),
                }
            }
            None => match base_ref {
                Some(r) => (self.client.file_at(path, &r)?, r),
                None => {
                    // A push that created a branch: nothing before it to trust but the
                    // branch itself.
                    self.note(format!(
                        "no base commit: {path} is read at the pushed commit {}",
                        short(&self.ctx.head_sha)
                    ));
                    let sha = self.ctx.head_sha.clone();
                    (self.client.file_at(path, &sha)?, short(&sha))
                }
            },
        };
        let shown = PathBuf::from(format!("{path}@{at}"));
        match bytes {
            Some(b) => Ok(Config::parse_bytes(&b, &shown)?),
            None if explicit.is_some() => Err(Error::input(format!(
                "{path}: no such file in the base commit {at}; hint: the config is read from the PR's base, never its head: commit it to the base branch first"
            ))
            .into()),
            None => Ok(Config::default()),
        }
    }

    fn read_inputs(
        &mut self,
        pr: Option<PullRequest>,
        config: Config,
        channels: Channels,
        head: &str,
    ) -> Result<Inputs> {
        let mut trusted = TrustedAuthors::default();
        let mut state = CiState::new(pr.as_ref().map_or(0, |p| p.number));
        let mut sticky = None;
        let mut restored = false;
        let mut comment_writable = channels.comment;
        if let Some(pr) = &pr
            && channels.comment
        {
            if let Some(login) = self.token_login()? {
                trusted = trusted.with(login);
            }
            let comments = self.client.issue_comments(pr.number)?;
            if let Some(c) = find_sticky_comment(&comments, &trusted) {
                sticky = Some((c.id, c.body.clone()));
                match parse_sticky_state::<CiState>(&c.body) {
                    StickyState::Ok(s) if s.pr == pr.number => {
                        state = s;
                        restored = true;
                    }
                    StickyState::Ok(_) | StickyState::Missing => {}
                    StickyState::Corrupt(why) => {
                        // Rewritten in place with a fresh state.
                        self.note(format!("the state in loopguard's comment could not be read ({why}): rebuilt from the API"));
                    }
                    StickyState::FutureVersion(v) => {
                        self.note(format!("loopguard's comment was written by a newer loopguard (state v{v}): left alone"));
                        comment_writable = false;
                        sticky = None;
                    }
                }
            }
        }
        let (history, from_api) = self.history(pr.as_ref(), &config, head, &state)?;
        Ok(Inputs {
            pr,
            config,
            history,
            from_api,
            state,
            sticky,
            comment_writable,
            restored,
            trusted,
        })
    }

    /// The token's own login, for tokens that have one: comments written with a personal
    /// token are authored by its user. A workflow's installation token (`ghs_`) has none.
    fn token_login(&self) -> Result<Option<String>> {
        let installation =
            std::env::var("GITHUB_TOKEN").is_ok_and(|t| t.trim().starts_with("ghs_"));
        if installation {
            return Ok(None);
        }
        Ok(self.client.authenticated_login()?)
    }

    fn history(
        &mut self,
        pr: Option<&PullRequest>,
        config: &Config,
        head: &str,
        state: &CiState,
    ) -> Result<(Vec<Iteration>, bool)> {
        let base = self.base(pr);
        if let Some(h) = self.history_from_git(base.as_deref(), head)? {
            return Ok((h, false));
        }
        match pr {
            Some(pr) => Ok((self.history_from_api(pr, head, config, state)?, true)),
            None => {
                let commit = self.client.commit(head)?;
                Ok((vec![iteration_from_commit(&commit, None)], true))
            }
        }
    }

    /// `base..head` from the checkout, when it has both and is not shallow.
    fn history_from_git(&self, base: Option<&str>, head: &str) -> Result<Option<Vec<Iteration>>> {
        let (Some(repo), Some(base)) = (&self.repo, base) else {
            return Ok(None);
        };
        if repo.is_shallow() || repo.resolve(head).is_err() || repo.resolve(base).is_err() {
            return Ok(None);
        }
        let ids = repo
            .rev_range(&format!("{base}..{head}"))
            .map_err(git_err)?;
        Ok(Some(repo.iterations(&ids).map_err(git_err)?))
    }

    /// The PR's commits up to `head` from the API: the listing for all, each commit's
    /// files only for those the state has no record of.
    fn history_from_api(
        &mut self,
        pr: &PullRequest,
        head: &str,
        config: &Config,
        state: &CiState,
    ) -> Result<Vec<Iteration>> {
        let mut listed = self.client.pull_request_commits(pr.number)?;
        if let Some(end) = listed.iter().position(|c| c.sha == head) {
            listed.truncate(end + 1);
        }
        // Only commits in the window need their files; older ones are counted, not read.
        let window = config.window as usize;
        let read_from = listed.len().saturating_sub(2 * window);
        let mut trees: std::collections::HashMap<String, String> = Default::default();
        let mut out = Vec::with_capacity(listed.len());
        for (i, c) in listed.iter().enumerate() {
            let parent_tree = c.parents.first().and_then(|p| trees.get(&p.sha)).cloned();
            let it = match state.records.get(&c.sha) {
                Some(r) if r.files.is_some() || i < read_from => Iteration {
                    parent_tree: parent_tree.clone(),
                    ..r.clone()
                },
                _ if i < read_from => iteration_from_listed_commit(c, parent_tree.as_deref()),
                _ => {
                    let full = self.client.commit(&c.sha)?;
                    iteration_from_commit(&full, parent_tree.as_deref())
                }
            };
            if let Some(t) = &it.tree {
                trees.insert(it.id.clone(), t.clone());
            }
            out.push(it);
        }
        Ok(out)
    }

    // ---- evidence ----------------------------------------------------------------------

    fn evidence_of_this_run(&mut self, args: &CiArgs) -> Result<Option<TestEvidence>> {
        if !args.log.is_empty() || !args.junit.is_empty() {
            let mut patterns = args.log.clone();
            patterns.extend(args.junit.iter().cloned());
            let (paths, unmatched) = expand_globs(&patterns, &self.dir)?;
            for p in unmatched {
                self.note(format!("`{p}` matched no file"));
            }
            if paths.is_empty() {
                return Ok(None);
            }
            let ev = evidence_from_files(&paths, &self.dir)?;
            if ev.is_none() {
                self.note("no test results were recognised in the logs given".to_owned());
            }
            return Ok(ev);
        }
        let Some(run) = self.ctx.workflow_run.clone() else {
            self.note("no test evidence for this run: pass `log` or `junit` (or run under `workflow_run`)".to_owned());
            return Ok(None);
        };
        let run = WorkflowRun {
            id: run.id,
            name: run.name.clone(),
            head_sha: run.head_sha.clone(),
            conclusion: run.conclusion.clone(),
            status: Some("completed".to_owned()),
            ..WorkflowRun::default()
        };
        self.evidence_of_run(&run)
    }

    /// The evidence of a completed workflow run: a pass from its conclusion, or the
    /// fingerprint of its failed jobs' logs.
    fn evidence_of_run(&mut self, run: &WorkflowRun) -> Result<Option<TestEvidence>> {
        let name = format!(
            "workflow run {} #{}",
            run.name.as_deref().unwrap_or("?"),
            run.id
        );
        match run.conclusion.as_deref() {
            Some("success") => return Ok(Some(passed(&name))),
            Some("failure" | "timed_out") => {}
            other => {
                self.note(format!(
                    "{name} ended {}: no test evidence from it",
                    other.unwrap_or("without a conclusion")
                ));
                return Ok(None);
            }
        }
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
            name.clone()
        } else {
            format!("{name}: {}", sources.join(", "))
        };
        let combined = Fingerprint::combine(parts);
        Ok(Some(
            evidence_from_fingerprint(&combined, &source)
                .filter(|e| e.signature.is_some())
                .unwrap_or_else(|| unread_failure(&source)),
        ))
    }

    /// Evidence of earlier heads from their workflow runs, when no comment kept it: the
    /// newest attempts of the window, one run listing (and the failed jobs' logs) each.
    /// Best effort: what cannot be read is noted, not fatal.
    fn rebuild_evidence(
        &mut self,
        config: &Config,
        history: &[Iteration],
        head: &str,
        state: &mut CiState,
    ) -> Result<()> {
        let attempts = crate::rules::attempts(config, history);
        let wanted: Vec<String> = attempts
            .iter()
            .rev()
            .map(|f| history[f.index].id.clone())
            .filter(|id| id != head && !state.evidence.contains_key(id))
            .take(config.window as usize)
            .collect();
        if wanted.is_empty() {
            return Ok(());
        }
        if let Err(e) = self.rebuild_from_runs(&wanted, state) {
            self.note(format!(
                "the evidence of earlier iterations could not be rebuilt from their workflow runs: {e:#}"
            ));
        }
        Ok(())
    }

    fn rebuild_from_runs(&mut self, wanted: &[String], state: &mut CiState) -> Result<()> {
        // The workflow whose runs hold the tests: the triggering one, or this one.
        let workflow_id = match &self.ctx.workflow_run {
            Some(run) => run.workflow_id,
            None => match self.ctx.run_id {
                Some(id) => Some(self.client.workflow_run(id)?.workflow_id).filter(|w| *w != 0),
                None => None,
            },
        };
        let current = self.ctx.run_id;
        let triggering = self.ctx.workflow_run.as_ref().map(|r| r.id);
        for sha in wanted {
            let runs = self.client.workflow_runs(&RunFilter {
                head_sha: Some(sha.clone()),
                workflow_id,
                ..RunFilter::default()
            })?;
            let run = runs
                .into_iter()
                .filter(|r| Some(r.id) != current && Some(r.id) != triggering)
                .filter(|r| r.event != "workflow_run" && r.status.as_deref() == Some("completed"))
                .max_by_key(|r| r.id);
            if let Some(run) = run
                && let Some(ev) = self.evidence_of_run(&run)?
            {
                state.evidence.insert(sha.clone(), ev);
            }
        }
        Ok(())
    }

    // ---- writing -----------------------------------------------------------------------

    fn report<'a>(
        &'a self,
        inputs: &'a Inputs,
        judgement: &'a Judgement,
        change: Change,
        head: &'a str,
    ) -> Report<'a> {
        Report {
            config: &inputs.config,
            pr: inputs.pr.as_ref().map(|p| p.number),
            head,
            history: &inputs.history,
            judgement,
            change,
            issue: inputs.state.issue.as_ref().map(|i| i.number),
            notes: &self.notes,
        }
    }

    /// Outputs, summary, annotation and the log: the step's own files, always written.
    fn write_local(
        &self,
        inputs: &Inputs,
        judgement: &Judgement,
        change: Change,
        head: &str,
    ) -> Result<()> {
        let report = self.report(inputs, judgement, change, head);
        let files = ActionsFiles::from_env();
        let b = &judgement.breaker;
        let open = b.state == State::Open;
        let not_closed = b.state != State::Closed;
        // The failure of this run's commit.
        let signature = inputs
            .state
            .evidence
            .get(head)
            .and_then(|t| t.signature.clone())
            .unwrap_or_default();
        let view = View {
            config: &inputs.config,
            run_id: None,
            branch: None,
            breaker: b,
            eval: &judgement.evaluation,
            history: &inputs.history,
            events: &judgement.events,
        };
        let rule = b
            .rule
            .filter(|_| not_closed)
            .map(|r| r.to_string())
            .unwrap_or_default();
        let reason = b.reason.clone().filter(|_| not_closed).unwrap_or_default();
        let terminal = b.terminal_status.map(|t| t.to_string()).unwrap_or_default();
        let next_model = view.next_model().unwrap_or_default().to_owned();
        if let Some(path) = &files.output {
            write_outputs(
                path,
                &[
                    ("state", b.state.as_str()),
                    ("tripped", if open { "true" } else { "false" }),
                    ("rule", &rule),
                    ("reason", &reason),
                    ("terminal-status", &terminal),
                    ("signature", &signature),
                    ("next-model", &next_model),
                ],
            )?;
        }
        if let Some(path) = &files.summary
            && append_summary(path, &report.summary())?
        {
            warn("the step summary was cut to fit GitHub's 1 MiB");
        }
        print_untrusted(&report.text())?;
        if open {
            let line = annotation(
                AnnotationLevel::Error,
                &AnnotationProps {
                    title: Some(format!("loopguard: {rule}")),
                    ..AnnotationProps::default()
                },
                // Inert anywhere on the line, not only at its start.
                &crate::sanitize::neutralize(&reason).replace("::", ":\u{200B}:"),
            );
            let mut out = std::io::stdout().lock();
            writeln!(out, "{line}")?;
            out.flush()?;
        }
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    fn write_github(
        &mut self,
        inputs: &mut Inputs,
        pr: &PullRequest,
        channels: Channels,
        judgement: &Judgement,
        change: Change,
        head: &str,
        label_on_pr: bool,
    ) -> Result<()> {
        let label = inputs.config.github.label.clone();
        let marker = issue_marker(pr.number);
        let (title, issue_md) = self
            .report(inputs, judgement, change, head)
            .issue(pr.number);
        let issue_body = render_issue_body(pr.number, &issue_md);
        let digest = content_hash(format!("{title}\n{issue_body}").as_bytes());
        if channels.issue && inputs.state.issue.is_none() && judgement.breaker.state == State::Open
        {
            inputs.state.issue =
                self.find_issue(&inputs.config, pr.number, &inputs.trusted, &marker)?;
        }
        let p = plan::plan(&plan::Facts {
            channels,
            state: judgement.breaker.state,
            label_on_pr,
            issue: inputs.state.issue.as_ref(),
            issue_digest: &digest,
        });
        if p.add_label {
            self.client
                .ensure_label(&label, LABEL_COLOR, LABEL_DESCRIPTION)?;
            self.client.add_labels(pr.number, &[label.as_str()])?;
        }
        if p.remove_label {
            self.client.remove_label(pr.number, &label)?;
        }
        inputs.state.labelled = channels.label && judgement.breaker.state == State::Open;
        let dry = self.client.is_dry_run();
        match p.issue {
            IssueAction::Nothing => {}
            IssueAction::Create => {
                let issue_label = inputs.config.github.issue_label.clone();
                self.client.ensure_label(
                    &issue_label,
                    "5319e7",
                    "loopguard: stuck-loop reports",
                )?;
                let created = self.client.create_issue(
                    &title,
                    &issue_body,
                    &[issue_label.as_str()],
                    &marker,
                )?;
                if !dry {
                    inputs.state.issue = Some(IssueRef {
                        number: created.number,
                        digest,
                        open: true,
                    });
                }
            }
            IssueAction::Update { number } | IssueAction::Close { number } => {
                let open = !matches!(p.issue, IssueAction::Close { .. });
                self.client.update_issue(
                    number,
                    &IssueUpdate {
                        title: Some(title.clone()),
                        body: Some(issue_body),
                        state: Some(if open { "open" } else { "closed" }.to_owned()),
                        labels: None,
                    },
                )?;
                inputs.state.issue = Some(IssueRef {
                    number,
                    digest,
                    open,
                });
            }
        }
        if !inputs.comment_writable {
            return Ok(());
        }
        let visible = self.report(inputs, judgement, change, head).comment();
        let order: Vec<String> = inputs.history.iter().map(|it| it.id.clone()).collect();
        let body = loop {
            let encoded = serde_json::to_vec(&inputs.state).map_or(0, |v| v.len() * 4 / 3);
            if encoded > STATE_BUDGET && inputs.state.shed(&order) {
                continue;
            }
            match render_sticky(&inputs.state, &visible) {
                Ok(body) => break body,
                Err(_) if inputs.state.shed(&order) => continue,
                Err(e) => return Err(Error::env(e.to_string()).into()),
            }
        };
        let existing = inputs.sticky.as_ref().map(|(id, b)| (*id, b.as_str()));
        match plan::comment_action(channels, existing, &body) {
            CommentAction::Nothing => {}
            CommentAction::Create => {
                self.client.create_comment(
                    pr.number,
                    &body,
                    crate::github::sticky::STICKY_MARKER,
                )?;
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
            open: i.state != "closed",
        }))
    }
}

fn short(sha: &str) -> String {
    sha.chars().take(10).collect()
}

/// Prints text that may quote logs or commit messages to the log, where none of its lines
/// can act as a workflow command.
fn print_untrusted(text: &str) -> std::io::Result<()> {
    let in_actions = std::env::var("GITHUB_ACTIONS").is_ok_and(|v| v == "true");
    let mut out = std::io::stdout().lock();
    write_untrusted(&mut out, text, in_actions)?;
    out.flush()
}

/// The evidence of log and JUnit files, fingerprinted together as one run.
pub fn evidence_from_files(paths: &[PathBuf], base: &Path) -> Result<Option<TestEvidence>> {
    let fp = super::fingerprint_files(paths)?;
    let shown: Vec<String> = paths
        .iter()
        .map(|p| super::shown(p, base).display().to_string())
        .collect();
    Ok(evidence_from_fingerprint(&fp, &shown.join(", ")))
}

fn has_glob(pattern: &str) -> bool {
    pattern.contains(['*', '?', '[', '{'])
}

/// Expands paths and globs (relative to `base`): existing files, sorted, without
/// duplicates; and the globs that matched nothing. A plain path that does not exist is an
/// error. Each pattern may hold several, one per line (the action's inputs).
pub fn expand_globs(patterns: &[String], base: &Path) -> Result<(Vec<PathBuf>, Vec<String>)> {
    let mut files = Vec::new();
    let mut unmatched = Vec::new();
    let mut seen = HashSet::new();
    let lines = patterns
        .iter()
        .flat_map(|p| p.lines())
        .map(str::trim)
        .filter(|l| !l.is_empty());
    for pattern in lines {
        if !has_glob(pattern) {
            let path = base.join(pattern);
            if !path.is_file() {
                return Err(Error::input(format!(
                    "{pattern}: no such file; hint: pass the test log or JUnit report the test step wrote (globs like `reports/*.xml` are fine)"
                ))
                .into());
            }
            if seen.insert(path.clone()) {
                files.push(path);
            }
            continue;
        }
        let glob = GlobBuilder::new(pattern)
            .literal_separator(true)
            .build()
            .map_err(|e| Error::input(format!("{pattern}: invalid glob: {}", e.kind())))?
            .compile_matcher();
        // Walk only below the part of the pattern without wildcards.
        let fixed: PathBuf = Path::new(pattern)
            .components()
            .take_while(|c| !has_glob(&c.as_os_str().to_string_lossy()))
            .collect();
        let root = base.join(&fixed);
        let mut matched: Vec<PathBuf> = Vec::new();
        walk(&root, &mut |path| {
            if let Ok(rel) = path.strip_prefix(base)
                && glob.is_match(rel)
            {
                matched.push(path.to_owned());
            }
        });
        if matched.is_empty() {
            unmatched.push(pattern.to_owned());
        }
        matched.sort();
        for m in matched {
            if seen.insert(m.clone()) {
                files.push(m);
            }
        }
    }
    Ok((files, unmatched))
}

/// Calls `f` for every file below `dir` (symlinked directories are not followed, and
/// `.git` is skipped).
fn walk(dir: &Path, f: &mut dyn FnMut(&Path)) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_dir() {
            if entry.file_name() != ".git" {
                walk(&path, f);
            }
        } else if kind.is_file() || (kind.is_symlink() && path.is_file()) {
            f(&path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_expand_below_their_fixed_part() {
        let dir = tempfile::tempdir().unwrap();
        for f in [
            "reports/a.xml",
            "reports/sub/b.xml",
            "reports/c.txt",
            "test.log",
        ] {
            let p = dir.path().join(f);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, "x").unwrap();
        }
        let rel = |v: Vec<PathBuf>| -> Vec<String> {
            v.iter()
                .map(|p| p.strip_prefix(dir.path()).unwrap().display().to_string())
                .collect()
        };
        let (files, none) = expand_globs(
            &[
                "reports/*.xml\nreports/**/*.xml".into(),
                "test.log".into(),
                "out/*.log".into(),
            ],
            dir.path(),
        )
        .unwrap();
        assert_eq!(
            rel(files),
            ["reports/a.xml", "reports/sub/b.xml", "test.log"]
        );
        assert_eq!(none, ["out/*.log"]);
        let err = expand_globs(&["missing.log".into()], dir.path()).unwrap_err();
        assert_eq!(crate::error::exit_code_of(&err), 2);
        assert!(
            err.to_string().starts_with("missing.log: no such file"),
            "{err}"
        );
    }
}
