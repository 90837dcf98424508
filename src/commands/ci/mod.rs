//! `loopguard ci`: the GitHub Actions entry point (README, "GitHub Action"; docs/contract.md).
//!
//! The shell around `crate::ci`: a short sequence of reads, the judgement, and writes. It
//! reads the trigger, the PR, the config at the base commit, the state kept in loopguard's
//! sticky comment and how far to trust it (`read`: sealed with `LOOPGUARD_STATE_KEY`, or
//! else what could relax the breaker derived again from what the agent cannot edit —
//! `derive`), the PR's history (git when the checkout has it, else the API), this run's
//! and the earlier heads' test evidence (`evidence`) and what people did on the PR's
//! timeline (`people`); the core judges the history and decides what to write; `write`
//! writes the step's outputs and summary, then the label, the issue and the comment.

mod derive;
mod evidence;
mod people;
mod read;
mod write;

use anyhow::Result;

use crate::breaker::State;
use crate::ci::cost::LoopCost;
use crate::ci::decide;
use crate::ci::plan::{self, Channels};
use crate::ci::state::CiState;
use crate::ci::trust::Trust;
use crate::cli::CiArgs;
use crate::config::Config;
use crate::error::exit;
use crate::git::Repo;
use crate::github::seal::{Binding, StateKey};
use crate::github::sticky::TrustedAuthors;
use crate::github::timeline::TimelineEvent;
use crate::github::{CiContext, GitHubClient, GitHubClientBuilder, PullRequest, WorkflowRun};
use crate::iteration::CommitId;
use crate::report::Status;
use crate::report::github::Change;
use crate::run::judge_seen;

use super::Ctx;

pub(super) fn ci(ctx: &Ctx, args: CiArgs) -> Result<u8> {
    let mut s = Session::new(ctx, args.dry_run)?;
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
    let mut history = s.history(pr.as_ref(), &config, &pr_state.state)?;
    if let Some(pr) = &pr {
        s.settle_trust(pr, &config, &mut history, &mut pr_state)?;
    }
    if let Some(ev) = s.evidence_of_this_run(&args)? {
        pr_state.state.evidence.insert(head.clone(), ev);
    }

    // Judge: what a force-push took away still counts; evidence, resumes and turns go
    // onto the history.
    let mut history = pr_state.state.with_gone(history);
    let now = ctx.settings.now();
    s.note_when_seen(pr.as_ref(), &mut pr_state, &history, now)?;
    if pr.is_some() {
        s.rebuild_evidence(&config, &history, &mut pr_state);
    }
    let placed = match &pr {
        Some(pr) => s.people(pr, &config, &history, &mut pr_state)?,
        None => Vec::new(),
    };
    pr_state.state.apply_to(&mut history, &placed);
    let seen = &pr_state.state.seen;
    let judgement = judge_seen(&config, history, "ci", now, |id| seen.get(id).copied());
    let status = Status::of_judgement(&config, &judgement).in_pull_request(&config.github.label);
    let before = match &pr_state.trust {
        Trust::Sealed => pr_state.state.last.as_ref().map(|v| v.state),
        // The comment's own verdict is not trusted: what this push changed, from the
        // judgement itself.
        Trust::Derived(_) => Some(state_before(&judgement.events, &head, status.state)),
    };
    let change = Change::between(before, status.state);
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
        if status.state == State::Open {
            s.note_label_removals(&config, pr, &pr_state);
        }
    }
    pr_state.state.last = Some(verdict);

    // Write.
    s.write_local(&status, pr.as_ref(), change, &pr_state)?;
    if let Some(pr) = &pr {
        let to = PrWrites {
            config: &config,
            status: &status,
            pr,
            channels,
            change,
        };
        s.write_github(&to, &mut pr_state, &ids)?;
    }
    if args.dry_run {
        super::print_planned_writes(&s.client, ctx.settings.github.actions)?;
    }
    if !s.tampering.is_empty() {
        s.fail_on_tampering(pr.as_ref());
        return Ok(exit::USAGE);
    }
    Ok(if status.state == State::Open {
        exit::TRIPPED
    } else {
        exit::OK
    })
}

/// The breaker before `head` was judged: where the first transition at it started from
/// (`now` when none happened at it).
fn state_before(events: &[crate::breaker::Event], head: &CommitId, now: State) -> State {
    events
        .iter()
        .find(|e| e.iteration.as_ref() == Some(head))
        .map_or(now, |e| e.from)
}

struct Session<'c> {
    ctx: &'c Ctx,
    repo: Option<Repo>,
    client: GitHubClient,
    trigger: CiContext,
    /// `LOOPGUARD_STATE_KEY`: seals the state written, verifies the state read.
    key: Option<StateKey>,
    /// Shown in the summary and comment; may quote untrusted names.
    notes: Vec<String>,
    /// What was found edited in loopguard's comment (also among the notes): the step
    /// fails when there is any.
    tampering: Vec<String>,
    /// While the breaker is open: what the loop cost in CI.
    loop_cost: Option<LoopCost>,
    /// The workflow runs of the PR's head branch, once listed.
    runs: Option<Vec<WorkflowRun>>,
}

/// What is written to a PR: the verdict, and where it goes.
struct PrWrites<'a> {
    config: &'a Config,
    status: &'a Status,
    pr: &'a PullRequest,
    channels: Channels,
    change: Change,
}

/// What the sticky comment holds, how far it is trusted, and whether it may be written.
struct PrState {
    /// The state this run works with: the comment's when it is trusted, else one whose
    /// decisive fields are derived again.
    state: CiState,
    /// How far the comment's state is trusted.
    trust: Trust,
    /// The comment's state as read, when it is not trusted (its claims are checked and
    /// reported, never taken).
    untrusted: Option<CiState>,
    /// loopguard's sticky comment: id and body.
    sticky: Option<(u64, String)>,
    /// The comment may be written (it is not a newer loopguard's).
    comment_writable: bool,
    trusted: TrustedAuthors,
    /// The PR's timeline (empty without a PR or without comments).
    timeline: Vec<TimelineEvent>,
}

impl<'c> Session<'c> {
    /// The trigger, the key and the client, from the Actions environment.
    fn new(ctx: &'c Ctx, dry_run: bool) -> Result<Session<'c>> {
        let trigger = crate::github::context::ci_context(&ctx.settings.github.vars)?;
        let key = ctx.settings.github.state_key()?.cloned();
        let client = GitHubClientBuilder::from_settings(
            ctx.settings.github.client()?,
            ctx.settings.knobs.github_time_scale,
        )
        .dry_run(dry_run)
        .build()?;
        Ok(Session {
            ctx,
            repo: Repo::discover_with_env(&ctx.dir).ok(),
            client,
            trigger,
            key,
            notes: Vec::new(),
            tampering: Vec::new(),
            loop_cost: None,
            runs: None,
        })
    }

    fn note(&mut self, text: String) {
        self.ctx.ui.warn(&text);
        self.notes.push(text);
    }

    /// Something in loopguard's comment was edited by someone else: said with the notes,
    /// and the step fails once the run is done.
    fn tampered(&mut self, text: String) {
        self.tampering.push(text.clone());
        self.note(text);
    }

    /// The step's error when loopguard's comment was edited: what was found, that nothing
    /// of it was taken, and what a person does about it.
    fn fail_on_tampering(&self, pr: Option<&PullRequest>) {
        let pr = pr.map_or_else(String::new, |p| format!(" on PR #{}", p.number));
        let message = format!(
            "loopguard's comment{pr} was edited by someone other than loopguard ({} finding(s) above): nothing in it was taken — the breaker was judged from GitHub's own record and the comment written again\nhint: see who edited the comment (its edit history on GitHub) and take write access away from that token (an agent's workflow token can edit any comment of the repository); the step fails so that a person looks",
            self.tampering.len()
        );
        crate::commands::output::Ui::error(&anyhow::Error::msg(message));
    }

    /// `owner/name` of the repository, what a seal binds a state to with its PR.
    fn repo_full_name(&self) -> String {
        self.client.repo().to_string()
    }

    /// What the seal binds a state to: the repository `repo` and `pr`.
    fn binding<'a>(&self, repo: &'a str, pr: u64) -> Binding<'a> {
        Binding { repo, pr }
    }
}
