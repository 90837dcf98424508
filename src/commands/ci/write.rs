//! The writes of `loopguard ci`: the step's own files (outputs, summary, the log), then
//! the label, the stuck-loop issue and the sticky comment, whose state is sealed with the
//! key when there is one.

use std::io::Write;

use anyhow::Result;

use crate::breaker::State;
use crate::ci::cost::{LoopCost, loop_commits};
use crate::ci::decide;
use crate::ci::plan::{self, CommentAction, IssueAction};
use crate::ci::state::IssueRef;
use crate::config::Config;
use crate::error::GitHubError;
use crate::github::actions_io::{
    ActionsFiles, AnnotationLevel, AnnotationProps, annotation, append_summary, write_outputs,
};
use crate::github::sticky::{
    STICKY_MARKER, TrustedAuthors, find_issue_for_pr, issue_marker, render_issue_body,
};
use crate::github::types::OpenState;
use crate::github::{IssueUpdate, PullRequest, RunFilter};
use crate::iteration::CommitId;
use crate::report::Status;
use crate::report::github::{Change, PrView};

use super::super::content_hash;
use super::{PrState, PrWrites, Session};

/// The re-run attempts of the loop's runs read for its CI cost, at most (one request each).
const MAX_EARLIER_ATTEMPTS: usize = 20;

/// The stuck-loop issue's text, and how it is found and compared.
struct IssueText {
    title: String,
    body: String,
    /// Of the title and the body: the issue is edited only when it changed.
    digest: String,
    /// The hidden marker that finds it.
    marker: String,
}

impl Session<'_> {
    fn view<'a>(
        &'a self,
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
            notes: &self.notes,
            loop_cost: self.loop_cost.as_ref().map(|c| c as _),
        }
    }

    /// What the loop an open breaker stops cost in CI: the workflow runs GitHub lists for
    /// the PR's branch whose commit is one of the loop's, each attempt of each (a re-run's
    /// earlier attempts read one request each, at most [`MAX_EARLIER_ATTEMPTS`]), and their
    /// time. What cannot be read is noted, never fatal.
    pub(super) fn loop_cost(&mut self, pr: &PullRequest, status: &Status) -> Option<LoopCost> {
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
    pub(super) fn write_local(
        &self,
        status: &Status,
        pr: Option<&PullRequest>,
        change: Change,
        pr_state: &PrState,
    ) -> Result<()> {
        let view = self.view(
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
        super::super::print_untrusted(&view.text(), self.ctx.settings.github.actions)?;
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
        if !self.tampering.is_empty() {
            let line = annotation(
                AnnotationLevel::Error,
                &AnnotationProps {
                    title: Some("loopguard: its comment was edited".to_owned()),
                    ..AnnotationProps::default()
                },
                &crate::sanitize::neutralize(&self.tampering.join(" — "))
                    .replace("::", ":\u{200B}:"),
            );
            let mut out = std::io::stdout().lock();
            writeln!(out, "{line}")?;
            out.flush()?;
        }
        Ok(())
    }

    /// The label, the issue and the sticky comment of `pr`, as the plan says.
    pub(super) fn write_github(
        &mut self,
        to: &PrWrites<'_>,
        pr_state: &mut PrState,
        order: &[CommitId],
    ) -> Result<()> {
        let label_on_pr = to.pr.has_label(&to.config.github.label);
        let issue = self.issue_text(to, pr_state);
        // A state that was not trusted does not remember the issue: it is looked for (by
        // its marker and author) whenever there may be one to update or close.
        let look = match pr_state.trust {
            crate::ci::trust::Trust::Sealed => to.status.state == State::Open,
            crate::ci::trust::Trust::Derived(_) => true,
        };
        if to.channels.issue && pr_state.state.issue.is_none() && look {
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
            .view(to.status, Some(to.pr.number), to.change, number)
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
    /// Writes loopguard's sticky comment (its visible text and the state it keeps, sealed
    /// with the key when there is one) when it changed.
    fn write_comment(
        &mut self,
        to: &PrWrites<'_>,
        pr_state: &mut PrState,
        order: &[CommitId],
    ) -> Result<()> {
        let issue_now = pr_state.state.issue.as_ref().map(|i| i.number);
        let visible = self
            .view(to.status, Some(to.pr.number), to.change, issue_now)
            .comment();
        let sticky = |source| GitHubError::Sticky {
            pr: to.pr.number,
            source,
        };
        let repo = self.repo_full_name();
        let binding = self.binding(&repo, to.pr.number);
        let seal_with = self.key.as_ref().map(|k| (k, binding));
        let mut body =
            decide::sticky_body(&mut pr_state.state, &visible, order, seal_with).map_err(sticky)?;
        let existing = pr_state.sticky.as_ref().map(|(id, b)| (*id, b.as_str()));
        if plan::comment_action(to.channels, existing, &body) != CommentAction::Nothing {
            // The comment changes anyway: it names this run as the one that changed it, and
            // when it was written.
            if let Some(last) = pr_state.state.last.as_mut() {
                last.run = self.trigger.run_id;
            }
            pr_state.state.written_at = Some(self.ctx.settings.now());
            body = decide::sticky_body(&mut pr_state.state, &visible, order, seal_with)
                .map_err(sticky)?;
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
