//! A whole history judged at once (`check`, `replay`, `ci`), through the same calls as the
//! hooks.

use jiff::Timestamp;

use crate::breaker::Event;
use crate::config::Config;
use crate::config::agents::AgentFilter;
use crate::first_parent;
use crate::ids::CommitId;
use crate::iteration::Iteration;
use crate::rules::Evaluation;

use super::Run;

/// A history judged from scratch, one iteration at a time, through the same steps as the
/// hooks: `check`, `replay`, `ci`.
#[derive(Debug, Clone)]
pub struct Judgement {
    pub run: Run,
    /// Every transition, oldest first.
    pub events: Vec<Event>,
    /// The rules now, counting from the breaker's baseline.
    pub evaluation: Evaluation,
}

/// Judges `history` (oldest first, evidence attached) in a run named `run_id`. Each
/// iteration steps at its own time (`now` for those without one), its interventions right
/// after it; the cooldown is applied at `now` at the end.
///
/// Only the branch's own line is judged ([`first_parent::line_of`]): the commits a merge
/// brought in are carried by the merge. Who is the agent is a property of each commit,
/// decided over the whole history before the first step ([`AgentFilter::for_history`]),
/// never by where in the history the first agent commit happens to be.
///
/// A commit arrives as the hooks see it: the commit first, then its test evidence. The
/// verdict on an attempt is made when it is committed, and evidence that comes after is
/// evidence about that commit, never a way out of a trip it caused; judged in one piece,
/// a history would let a commit's own tests undo a trip the hooks already made. An
/// uncommitted iteration (a test run) is its evidence, and arrives with it.
pub fn judge(config: &Config, history: Vec<Iteration>, run_id: &str, now: Timestamp) -> Judgement {
    judge_seen(config, history, run_id, now, |_| None)
}

/// [`judge`], each iteration stepping no earlier than `seen` says it was first seen (CI:
/// the run that first judged the commit). A commit's own time is what its author wrote:
/// backdated, it would put a trip long in the past and a cooldown behind it at once.
pub fn judge_seen(
    config: &Config,
    history: Vec<Iteration>,
    run_id: &str,
    now: Timestamp,
    seen: impl Fn(&CommitId) -> Option<Timestamp>,
) -> Judgement {
    let mut history = first_parent::line_of(history);
    let filter = AgentFilter::for_history(config, &history);
    for it in &mut history {
        if it.kind.is_none() {
            it.kind = Some(filter.kind(config, it));
        }
    }
    let start = history.first().and_then(|it| it.at).unwrap_or(now);
    let mut run = Run::new(run_id, None, start, None);
    let mut events = Vec::new();
    for mut it in history {
        let at = it.at.unwrap_or(now);
        let at = seen(&it.id).map_or(at, |first| first.max(at));
        let interventions = std::mem::take(&mut it.interventions);
        let later = if it.uncommitted { None } else { it.test.take() };
        let id = it.id.clone();
        events.extend(run.record(config, it, at).events);
        if let Some(test) = later {
            events.extend(
                run.attach_test(config, &id, test, at)
                    .map(|o| o.events)
                    .unwrap_or_default(),
            );
        }
        for iv in interventions {
            // One that no longer applies (the history changed under it) is moot.
            if let Ok(e) = run.intervene(config, iv.clone()) {
                events.extend(e);
            } else if let Some(last) = run.iterations.last_mut() {
                last.interventions.push(iv);
            }
        }
    }
    events.extend(run.tick(config, now));
    let evaluation = run.evaluate(config);
    Judgement {
        run,
        events,
        evaluation,
    }
}
