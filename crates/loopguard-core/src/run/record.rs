//! What arrives in a run: a commit or tool call (`record`), commits read by their header
//! only (`record_unread`), test evidence (`attach_test`), a rewrite, a tested working tree
//! committed as it was. Each goes through [`Run::step`](super::Run).

use jiff::Timestamp;

use crate::breaker::Event;
use crate::config::Config;
use crate::config::agents::AgentFilter;
use crate::ids::CommitId;
use crate::iteration::{Iteration, IterationKind, TestEvidence};

use super::step::Arrival;
use super::{Outcome, Run};

impl Run {
    /// Records a new iteration; recording the same id again replaces its evidence and is
    /// not a new attempt (hooks may run twice). Who is an agent is decided now, over the
    /// history so far, and kept with the iteration.
    pub fn record(&mut self, config: &Config, mut it: Iteration, now: Timestamp) -> Outcome {
        let arrival = match self.position(&it.id) {
            Some(i) => {
                let old = &self.iterations[i];
                it.test = it.test.or_else(|| old.test.clone());
                if it.superseded_tests.is_empty() {
                    it.superseded_tests = old.superseded_tests.clone();
                }
                it.kind = old.kind.or(it.kind);
                if it.interventions.is_empty() {
                    it.interventions = old.interventions.clone();
                }
                self.record.iterations[i] = it;
                self.forget_from(i);
                Arrival::Context
            }
            None => {
                let before = self.filter(config);
                let filter = before.with(config, &it);
                if filter != before {
                    self.attribute_again(config, filter);
                }
                self.derived.filter = Some(filter);
                if it.kind.is_none() {
                    it.kind = Some(filter.kind(config, &it));
                }
                let turn = self.persons_turn(config, filter, &it);
                self.iterations.push(it);
                let kind = self.iterations.last().and_then(|it| it.kind);
                if kind == Some(IterationKind::Attempt) {
                    Arrival::Attempt
                } else {
                    let mut outcome = self.step(config, now, Arrival::Context);
                    if let Some(by) = turn {
                        outcome.events.extend(self.turn_taken(&by, now));
                    }
                    return outcome;
                }
            }
        };
        self.step(config, now, arrival)
    }

    /// Whether `it`, arriving, is a person's turn: a commit of their own (not a merge, not
    /// the agent's, by someone the run can tell from the agent: `agents` is set or the
    /// agent's identity is known) after an attempt of the agent's in this episode. Who, if
    /// so.
    fn persons_turn(
        &mut self,
        config: &Config,
        filter: AgentFilter,
        it: &Iteration,
    ) -> Option<String> {
        let told_apart = match filter {
            AgentFilter::Configured | AgentFilter::KnownAgents => true,
            AgentFilter::Everyone => false,
        };
        let own_commit = !it.uncommitted
            && it.parents.as_ref().is_none_or(|p| p.len() <= 1)
            && it.kind != Some(IterationKind::Attempt)
            && it.kind != Some(IterationKind::Rewrite)
            && !filter.is_agent(config, it);
        let baseline = self.breaker.baseline();
        let after_an_attempt = self.facts(config).iter().any(|f| f.index >= baseline);
        let author = it.author.as_deref()?;
        (told_apart && own_commit && after_an_attempt).then(|| {
            let name = author.split(" <").next().unwrap_or(author);
            format!("{name}'s commit {}", it.id.short())
        })
    }

    /// A person's turn taken by a commit of theirs: a new episode (see
    /// [`Run::new_episode`]), derived from the commit itself, so a history judged again
    /// takes it at the same point.
    fn turn_taken(&mut self, by: &str, now: Timestamp) -> Option<Event> {
        let at = self.at(now);
        let e = self.record.breaker.new_episode(by, &at).ok()?;
        self.reset_edges();
        Some(e)
    }

    /// The first known agent identity arrived in a run that took every commit for the
    /// agent's: who made each commit is a property of the commit, so the earlier commits
    /// that are not the agent's are context now, as `check` sees them over the whole
    /// history. (Test runs on the working tree stay the agent's attempts.)
    fn attribute_again(&mut self, config: &Config, filter: AgentFilter) {
        let mut first = None;
        for (i, it) in self.record.iterations.iter_mut().enumerate() {
            if it.kind == Some(IterationKind::Attempt)
                && !it.uncommitted
                && !filter.is_agent(config, it)
            {
                it.kind = Some(IterationKind::Context);
                first.get_or_insert(i);
            }
        }
        if let Some(first) = first {
            self.forget_from(first);
        }
    }

    /// Commits read by their header only (no change, no evidence: the oldest of a large
    /// catch-up), appended as attempts or context in one step instead of one each. Without
    /// a change or evidence they are neither progress nor a loop for any rule: they count
    /// (the budget) and nothing else, so one step judges them as well as one each would,
    /// in a time that does not grow with their number squared. Like [`Run::record_local`],
    /// what arrives while the breaker blocks came around the gates.
    pub fn record_unread(
        &mut self,
        config: &Config,
        commits: Vec<Iteration>,
        now: Timestamp,
    ) -> Option<Outcome> {
        if commits.is_empty() {
            return None;
        }
        let around = self
            .effective_breaker(config, now)
            .blocks(config.on_trip.action);
        let mut filter = self.filter(config);
        let mut attempt = false;
        let known: std::collections::HashSet<CommitId> =
            self.iterations.iter().map(|it| it.id.clone()).collect();
        for mut it in commits {
            if known.contains(&it.id) {
                continue;
            }
            it.around_gates |= around;
            filter = filter.with(config, &it);
            if it.kind.is_none() {
                it.kind = Some(filter.kind(config, &it));
            }
            attempt |= it.kind == Some(IterationKind::Attempt);
            self.iterations.push(it);
        }
        self.derived.filter = Some(filter);
        let arrival = if attempt {
            Arrival::Attempt
        } else {
            Arrival::Context
        };
        Some(self.step(config, now, arrival))
    }

    /// [`Run::record`] where gates refuse commits while the breaker blocks (the hooks): a
    /// commit that arrives while it blocks came around them, and is recorded as such
    /// ([`Iteration::around_gates`]): it counts, and mends nothing.
    pub fn record_local(&mut self, config: &Config, mut it: Iteration, now: Timestamp) -> Outcome {
        if !it.uncommitted
            && self
                .effective_breaker(config, now)
                .blocks(config.on_trip.action)
        {
            it.around_gates = true;
        }
        self.record(config, it, now)
    }

    /// Attaches test evidence to the iteration `id`.
    pub fn attach_test(
        &mut self,
        config: &Config,
        id: &CommitId,
        test: TestEvidence,
        now: Timestamp,
    ) -> Option<Outcome> {
        let i = self.position(id)?;
        self.iterations[i].test = Some(test);
        self.derived.facts.truncate(i);
        let latest_attempt = i + 1 == self.iterations.len()
            && self.iterations[i].kind == Some(IterationKind::Attempt);
        let arrival = if latest_attempt {
            Arrival::Evidence
        } else {
            Arrival::Context
        };
        Some(self.step(config, now, arrival))
    }

    /// Replaces rewritten iterations (rebase, amend) by their new commits, keeping their
    /// kind, interventions and place: a rewrite is never a new attempt for the commit
    /// rules. Test evidence follows the tree (see [`Iteration::rewritten_as`]): a rewrite
    /// that changed the tree keeps the evidence of the earlier version as a test run of its
    /// own, so an amend loop that fails the same way each time is the same failure again
    /// for `same_error`; a reword keeps it as it is. Returns the number of iterations
    /// rewritten.
    pub fn rewrite(
        &mut self,
        config: &Config,
        rewritten: Vec<(CommitId, Iteration)>,
        now: Timestamp,
    ) -> (usize, Outcome) {
        let n = self.replace_rewritten(rewritten);
        (n, self.step(config, now, Arrival::Context))
    }

    /// The uncommitted iteration that `commit` commits as it was tested, if it is the
    /// latest: a test run on the working tree (same tree, same parent), now a commit.
    pub fn tested_as(&self, commit: &Iteration) -> Option<CommitId> {
        self.iterations
            .last()
            .filter(|l| {
                l.uncommitted
                    && l.tree.is_some()
                    && l.tree == commit.tree
                    && l.parents.is_some()
                    && l.parents == commit.parents
            })
            .map(|l| l.id.clone())
    }

    /// The tested working tree `tested` committed as `commit` (see [`Run::tested_as`]):
    /// the same attempt, with its evidence, now a commit. It is not a new attempt, but it
    /// may mend a trip that only a new commit mends.
    pub fn commit_tested(
        &mut self,
        config: &Config,
        tested: CommitId,
        commit: Iteration,
        now: Timestamp,
    ) -> Outcome {
        self.replace_rewritten(vec![(tested, commit)]);
        self.step(config, now, Arrival::Committed)
    }

    /// Puts rewritten iterations' new commits in their place; how many were replaced.
    fn replace_rewritten(&mut self, rewritten: Vec<(CommitId, Iteration)>) -> usize {
        let mut n = 0;
        let mut first = self.iterations.len();
        for (old, new) in rewritten {
            if let Some(j) = self.position(&new.id) {
                // Already recorded (post-commit during an amend): drop the stale old one,
                // handing its evidence on.
                if old != new.id
                    && let Some(i) = self.position(&old)
                {
                    let stale = self.iterations.remove(i);
                    let j = if i < j { j - 1 } else { j };
                    stale.hand_evidence_to(&mut self.iterations[j]);
                    first = first.min(i.min(j));
                    n += 1;
                }
                continue;
            }
            if let Some(i) = self.position(&old) {
                self.iterations[i] = self.iterations[i].rewritten_as(new);
                first = first.min(i);
                n += 1;
            }
        }
        self.forget_from(first);
        n
    }
}
