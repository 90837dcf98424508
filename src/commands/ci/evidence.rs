//! Test evidence for `loopguard ci`: this run's (log files, test reports, or the failed
//! jobs of the triggering run) and the earlier heads' (their workflow runs' conclusions
//! and failed jobs' logs — what no token of the agent's can edit), read when the state
//! does not hold them.

use anyhow::Result;

use crate::ci::decide::{self, RunVerdict};
use crate::ci::evidence::evidence_from_fingerprint;
use crate::cli::CiArgs;
use crate::config::Config;
use crate::fingerprint::{Fingerprint, fingerprint_bytes};
use crate::github::{JobLog, RunFilter, WorkflowRun};
use crate::iteration::{CommitId, Iteration, TestEvidence};

use super::super::evidence::{evidence_from_files, expand_globs};
use super::{PrState, Session};

impl Session<'_> {
    pub(super) fn evidence_of_this_run(&mut self, args: &CiArgs) -> Result<Option<TestEvidence>> {
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
    pub(super) fn evidence_of_run(&mut self, run: &WorkflowRun) -> Result<Option<TestEvidence>> {
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

    /// Evidence of the earlier heads the rules look back to, from their workflow runs,
    /// when the state does not hold it (a trusted state has it all but what it has not
    /// seen; an untrusted one, none). A head whose runs give none is remembered as such.
    /// Best effort: what cannot be read is noted, not fatal.
    pub(super) fn rebuild_evidence(
        &mut self,
        config: &Config,
        history: &[Iteration],
        pr_state: &mut PrState,
    ) {
        let wanted =
            decide::wanted_evidence(config, history, &self.trigger.head_sha, &pr_state.state);
        if wanted.is_empty() {
            return;
        }
        if let Err(e) = self.rebuild_from_runs(&wanted, pr_state) {
            self.note(format!(
                "the evidence of earlier iterations could not be rebuilt from their workflow runs: {e:#}"
            ));
        }
    }

    fn rebuild_from_runs(&mut self, wanted: &[CommitId], pr_state: &mut PrState) -> Result<()> {
        // The workflow whose runs hold the tests: the triggering one, or this one.
        let workflow_id = match &self.trigger.workflow_run {
            Some(run) => run.workflow_id,
            None => match self.trigger.run_id {
                // Unreadable (a run of another repository's token?): any workflow's runs.
                Some(id) => self
                    .client
                    .workflow_run(id)
                    .ok()
                    .and_then(|r| r.workflow_id)
                    .filter(|w| *w != 0),
                None => None,
            },
        };
        let current = self.trigger.run_id;
        let triggering = self.trigger.workflow_run.as_ref().map(|r| r.id);
        for sha in wanted {
            let runs: Vec<WorkflowRun> = match &self.runs {
                // Listed already (the state is derived again): no request per head.
                Some(listed) => listed
                    .iter()
                    .filter(|r| &r.head_sha == sha)
                    .filter(|r| workflow_id.is_none_or(|w| r.workflow_id == Some(w)))
                    .cloned()
                    .collect(),
                None => self.client.workflow_runs(&RunFilter {
                    head_sha: Some(sha.clone()),
                    workflow_id,
                    ..RunFilter::default()
                })?,
            };
            let found = match decide::run_that_counts(&runs, current, triggering).cloned() {
                Some(run) => self.evidence_of_run(&run)?,
                None => None,
            };
            match found {
                Some(ev) => {
                    pr_state.state.evidence.insert(sha.clone(), ev);
                }
                None => {
                    pr_state.state.without_evidence.insert(sha.clone());
                }
            }
        }
        Ok(())
    }
}
