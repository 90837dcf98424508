//! The reads of `loopguard ci`: the PR, the config at its base, the workflows the base
//! protects, the state in loopguard's comment and how far it is trusted, and the PR's
//! history.

use std::path::PathBuf;

use anyhow::Result;

use crate::ci::decide::{self, ConfigSource};
use crate::ci::plan::Channels;
use crate::ci::state::CiState;
use crate::ci::trust::{Trust, Why};
use crate::config::{CONFIG_FILE, Config};
use crate::error::ConfigFileError;
use crate::github::PullRequest;
use crate::github::sticky::{
    StickyState, TrustedAuthors, check_seal, find_sticky_comment, parse_sticky_state,
};
use crate::iteration::Iteration;

use super::{PrState, Session};
use crate::ci::records::iteration_from_commit;

impl Session<'_> {
    /// The PR under test: from the payload, or for a `workflow_run` of a fork by its head.
    pub(super) fn find_pr(&mut self) -> Result<Option<PullRequest>> {
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
    pub(super) fn load_config(
        &mut self,
        pr: Option<&PullRequest>,
        explicit: Option<&str>,
    ) -> Result<Config> {
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
    pub(super) fn guarded_workflows(
        &mut self,
        pr: Option<&PullRequest>,
        state: &mut CiState,
    ) -> Result<Vec<String>> {
        use crate::commands::guarded_workflows_at;
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
    /// The state in loopguard's sticky comment (when the PR has one and comments are on),
    /// how far it is trusted — sealed with the key, or not (`crate::ci::trust`) — and the
    /// PR's timeline. An untrusted state is kept aside for its claims to be checked; the
    /// run starts from an empty one whose decisive fields are derived again.
    pub(super) fn read_state(
        &mut self,
        pr: Option<&PullRequest>,
        channels: Channels,
    ) -> Result<PrState> {
        let mut out = PrState {
            state: CiState::new(pr.map_or(0, |p| p.number)),
            trust: Trust::Derived(Why::NoState),
            untrusted: None,
            sticky: None,
            comment_writable: channels.comment,
            trusted: TrustedAuthors::default(),
            timeline: Vec::new(),
        };
        let Some(pr) = pr else {
            return Ok(out);
        };
        out.timeline = self.client.timeline(pr.number)?;
        if !channels.comment {
            self.log_trust(&out.trust);
            return Ok(out);
        }
        if let Some(login) = self.client.own_login()? {
            out.trusted = out.trusted.with(login);
        }
        let comments = self.client.issue_comments(pr.number)?;
        let mut read = None;
        if let Some(c) = find_sticky_comment(&comments, &out.trusted) {
            out.sticky = Some((c.id, c.body.clone()));
            match parse_sticky_state::<CiState>(&c.body) {
                StickyState::Ok(s) if s.pr == pr.number => read = Some(s),
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
        let repo = self.repo_full_name();
        let seal = match (&self.key, &out.sticky) {
            (Some(key), Some((_, body))) => {
                Some(check_seal(body, key, self.binding(&repo, pr.number)))
            }
            (Some(_), None) | (None, _) => None,
        };
        out.trust = Trust::of(read.is_some(), seal);
        match (&out.trust, read) {
            (Trust::Sealed, Some(state)) => out.state = state,
            (_, read) => {
                // Of an untrusted state only what nothing relaxes by is kept (the last
                // verdict names the run that wrote it, and when): an unchanged verdict
                // rewrites no comment.
                if let Some(r) = &read {
                    out.state.last.clone_from(&r.last);
                    out.state.written_at = r.written_at;
                }
                out.untrusted = read;
            }
        }
        self.log_trust(&out.trust);
        Ok(out)
    }

    /// Says how far the comment's state is trusted: in the log always, and in the summary
    /// and comment when a key is set up and the state did not hold.
    pub(super) fn log_trust(&mut self, trust: &Trust) {
        let Trust::Derived(why) = trust else {
            return;
        };
        match why.note() {
            Some(note) if why.is_forgery() => self.tampered(note),
            Some(note) => self.note(note),
            None => self.ctx.ui.note(&why.log()),
        }
    }

    /// The PR's history: `base..head` from the checkout when it has both and is not
    /// shallow, else the API.
    pub(super) fn history(
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
}
