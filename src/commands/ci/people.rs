//! What people did on the PR that relaxes its breaker (`crate::ci::people`): label
//! removals and turns read from the PR's timeline by identity, each by someone with write
//! access (asked once per person), placed after the head pushed before it; and a
//! dashboard's resumes, taken from a trusted state or checked against the dashboard's own
//! workflow run and its log.

use anyhow::Result;

use crate::ci::derive::dashboard_resume;
use crate::ci::people::{self, Act, NotActs, Placed};
use crate::ci::state::{CiState, Resume};
use crate::ci::trust::unbacked_claims;
use crate::config::Config;
use crate::github::{JobLog, PullRequest};
use crate::iteration::{InterventionKind, Iteration};

use super::{PrState, Session};

/// A dashboard's resumes an untrusted state names that are checked, newest first: each
/// costs its run, its jobs and their logs.
const MAX_DASHBOARD_RESUMES: usize = 5;

impl Session<'_> {
    /// The people's acts placed in `history`: the timeline's label removals and turns by
    /// people with write access; and, when the state is not trusted, the dashboard's
    /// resumes it names that their runs back (put into the state: the trusted state keeps
    /// them).
    pub(super) fn people(
        &mut self,
        pr: &PullRequest,
        config: &Config,
        history: &[Iteration],
        pr_state: &mut PrState,
    ) -> Result<Vec<Placed>> {
        let author = pr.user.as_ref().map(|u| u.login.as_str());
        let not = NotActs {
            author,
            own_comment: pr_state.sticky.as_ref().map(|(id, _)| *id),
        };
        let label = config.github.label.as_str();
        let mut acts = people::acts(&pr_state.timeline, label, not);
        // This very run's `unlabeled` event: GitHub's own payload names who did it, even
        // before the timeline lists it.
        let unlabeled_now = self.trigger.action.as_deref() == Some("unlabeled")
            && self.trigger.label.as_deref() == Some(label);
        if let Some(sender) = self.trigger.sender.clone().filter(|_| unlabeled_now)
            && !sender.ends_with("[bot]")
            && !author.is_some_and(|a| a.eq_ignore_ascii_case(&sender))
            && !acts
                .iter()
                .any(|a| a.kind == InterventionKind::Resume && a.by == sender)
        {
            acts.push(Act {
                kind: InterventionKind::Resume,
                by: sender,
                at: self.ctx.settings.now(),
            });
        }
        let mut allowed = Vec::new();
        for act in acts {
            if self.may_write(&act.by, &mut pr_state.state)? {
                allowed.push(act);
            }
        }
        if !pr_state.trust.is_sealed() {
            self.dashboard_resumes(pr, history, pr_state)?;
        }
        let seen = &pr_state.state.seen;
        let placed = people::place(&allowed, history, |id| seen.get(id).copied());
        if let Some(claimed) = &pr_state.untrusted {
            for claim in unbacked_claims(claimed, &placed) {
                self.tampered(claim);
            }
        }
        Ok(placed)
    }

    /// Whether `login` has write access (`admin`, `maintain`, `write`), asked once per
    /// person and remembered.
    fn may_write(&self, login: &str, state: &mut CiState) -> Result<bool> {
        if state.writers.iter().any(|w| w == login) {
            return Ok(true);
        }
        if state.not_writers.iter().any(|w| w == login) {
            return Ok(false);
        }
        let permission = self.client.permission_of(login)?;
        let writes = matches!(permission.as_deref(), Some("admin" | "maintain" | "write"));
        if writes {
            state.writers.push(login.to_owned());
        } else {
            state.not_writers.push(login.to_owned());
        }
        Ok(writes)
    }

    /// The dashboard's resumes an untrusted state names, each checked against the
    /// dashboard's workflow run it names and that run's log (`crate::ci::derive`): the
    /// ones that hold go into the state, placed after the head pushed before that run;
    /// the others are reported and ignored.
    fn dashboard_resumes(
        &mut self,
        pr: &PullRequest,
        history: &[Iteration],
        pr_state: &mut PrState,
    ) -> Result<()> {
        let claimed: Vec<Resume> = pr_state
            .untrusted
            .as_ref()
            .map(|s| s.resumes.clone())
            .unwrap_or_default();
        let author = pr.user.as_ref().map(|u| u.login.clone());
        let with_runs = claimed.iter().rev().filter_map(|r| Some((r, r.run?)));
        for (r, run_id) in with_runs.take(MAX_DASHBOARD_RESUMES) {
            let by = r.by.as_deref().unwrap_or("no one");
            let checked = match self.client.workflow_run(run_id) {
                Ok(run) => {
                    let log = self.run_log(run_id)?;
                    dashboard_resume(r, &run, pr.number, author.as_deref(), &log)
                }
                Err(e) => Err(format!("its workflow run #{run_id} cannot be read ({e})")),
            };
            let at = match checked {
                Ok(at) if self.may_write(by, &mut pr_state.state)? => at,
                Ok(_) => {
                    self.tampered(format!("loopguard's comment claims a dashboard resume by {by}, who has no write access here: ignored"));
                    continue;
                }
                Err(why) => {
                    self.tampered(format!(
                        "loopguard's comment claims a dashboard resume by {by}: {why}; ignored"
                    ));
                    continue;
                }
            };
            let seen = &pr_state.state.seen;
            let Some(after) = history
                .iter()
                .rev()
                .find(|it| seen.get(&it.id).is_some_and(|t| *t <= at))
            else {
                continue;
            };
            pr_state.state.resumes.push(Resume {
                after: after.id.clone(),
                at,
                by: r.by.clone(),
                run: Some(run_id),
            });
        }
        pr_state.state.resumes.sort_by_key(|r| r.at);
        Ok(())
    }

    /// The logs of a workflow run's jobs, one after the other.
    fn run_log(&self, run_id: u64) -> Result<String> {
        let mut text = String::new();
        for job in self.client.run_jobs(run_id)? {
            if let JobLog::Found { text: log, .. } = self.client.job_log(job.id)? {
                text.push_str(&log);
                text.push('\n');
            }
        }
        Ok(text)
    }

    /// While the breaker is open and its label is off the PR: who took it off, when that
    /// was no resume (a bot, the PR's author, someone who may not write). The label goes
    /// back on.
    pub(super) fn note_label_removals(
        &mut self,
        config: &Config,
        pr: &PullRequest,
        pr_state: &PrState,
    ) {
        let label = config.github.label.as_str();
        if pr.has_label(label) {
            return;
        }
        let Some((by, _)) = people::label_removals(&pr_state.timeline, label)
            .into_iter()
            .next_back()
        else {
            return;
        };
        let author = pr.user.as_ref().map(|u| u.login.as_str());
        let why = match by.as_deref() {
            None => "who cannot be told",
            Some(b) if b.ends_with("[bot]") => "a bot, not a person",
            Some(b) if author.is_some_and(|a| a.eq_ignore_ascii_case(b)) => {
                "the PR's own author (the agent's account)"
            }
            Some(b) if pr_state.state.not_writers.iter().any(|w| w == b) => {
                "who has no write access here"
            }
            Some(_) => return,
        };
        self.note(format!(
            "the label {label} was taken off by {}, {why}: that is no resume (only a person with write access who is not the PR's author resumes it); the label goes back on",
            by.as_deref().unwrap_or("someone GitHub does not name")
        ));
    }
}
