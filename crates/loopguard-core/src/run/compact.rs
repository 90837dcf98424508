//! A run that keeps only its latest iterations (a coding agent's session): what it drops,
//! summed up so that dropping changes no verdict.

use serde::{Deserialize, Serialize};

use crate::config::Config;
use crate::iteration::Iteration;
use crate::rules::{self, Earlier, Facts};

use super::Run;

/// What a run that keeps only its latest iterations dropped (see [`Run::compact`]).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Compacted {
    /// Iterations dropped from the front.
    #[serde(default)]
    pub dropped: usize,
    /// The attempts dropped, summed up for the rules.
    #[serde(default)]
    pub earlier: Earlier,
    /// Where the breaker's baseline is, counted from the run's first iteration, when it
    /// was among the iterations dropped (the kept ones count from 0 then).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baseline: Option<usize>,
    /// The tree of the iteration the breaker opened at, once it was dropped: what an
    /// attempt that would mend the trip is compared with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tripped_tree: Option<String>,
    /// The facts of the iterations kept, as they were computed when each arrived (the
    /// iterations they were computed against are gone, so they are saved, not computed
    /// again), and the number of iterations they cover. Written from the run's own facts
    /// when it is saved; empty in memory.
    #[serde(default)]
    pub(super) facts: Vec<Facts>,
    #[serde(default)]
    pub(super) facts_cover: usize,
}

impl Run {
    /// Makes this run keep only its latest iterations from now on: a coding agent's
    /// session, whose hooks must cost the same after 1,000 calls as after 10 (see
    /// [`Run::compact`]).
    pub fn keep_latest(&mut self) {
        self.record.compacted.get_or_insert_with(Compacted::default);
    }

    /// Iterations recorded in the run, those a compacted run dropped included.
    pub fn recorded(&self) -> usize {
        self.dropped() + self.iterations.len()
    }

    /// Iterations a compacted run dropped (the first of those it keeps is the next one).
    pub fn dropped(&self) -> usize {
        self.record.compacted.as_ref().map_or(0, |c| c.dropped)
    }

    /// What a compacted run dropped, summed up (see [`Compacted`]).
    pub fn compacted(&self) -> Option<&Compacted> {
        self.record.compacted.as_ref()
    }

    /// Where the rules start counting, as an index into every iteration recorded (those a
    /// compacted run dropped included).
    pub fn baseline_recorded(&self) -> usize {
        match (&self.record.compacted, self.breaker.baseline()) {
            (Some(c), 0) => c.baseline.unwrap_or(c.dropped),
            (_, b) => self.dropped() + b,
        }
    }

    /// In a run that keeps only its latest iterations ([`Run::keep_latest`]), drops those
    /// no rule needs any more, oldest first, and returns them (the caller keeps them
    /// elsewhere: a session's calls log). A new attempt's facts are computed against the
    /// `window` attempts before it, so those are kept, with the facts of each; what the
    /// rules count further back is summed up in [`Earlier`] as the attempts go, and the
    /// breaker's positions move down with the history. Dropping changes no count, reason
    /// or verdict: a run judged with and without it is the same run.
    ///
    /// Iterations are dropped `window` at a time, so that most calls drop none.
    pub fn compact(&mut self, config: &Config) -> Vec<Iteration> {
        if self.record.compacted.is_none() {
            return Vec::new();
        }
        self.refresh_facts(config);
        let window = (config.window as usize).max(1);
        let facts = self.derived.facts.all();
        if facts.len() < 2 * window {
            return Vec::new();
        }
        let k = facts[facts.len() - window].index;
        let baseline = self.breaker.baseline();
        let trip_after = self.breaker.trip().map(|t| t.after);
        let c = self
            .record
            .compacted
            .as_mut()
            .expect("a compacted run, checked above");
        if baseline > 0 {
            // Counting starts among the iterations kept so far: what was summed up of
            // those before counts for the budget only.
            c.earlier.since = rules::Since::default();
        }
        let absolute = if baseline == 0 {
            c.baseline.unwrap_or(c.dropped)
        } else {
            c.dropped + baseline
        };
        if baseline <= k {
            c.baseline = Some(absolute);
        }
        if let Some(after) = trip_after
            && (1..=k).contains(&after)
        {
            c.tripped_tree = self.record.iterations[after - 1].tree.clone();
        }
        for f in facts.iter().take_while(|f| f.index < k) {
            let it = &self.record.iterations[f.index];
            c.earlier
                .fold(it, f, f.index >= baseline, &rules::label(it));
        }
        c.dropped += k;
        let dropped: Vec<Iteration> = self.record.iterations.drain(..k).collect();
        self.derived.facts.forget_before(k);
        self.derived.filter = None;
        self.record.breaker.forget_before(k);
        self.record.usage.progress_mark = self.record.usage.progress_mark.saturating_sub(k);
        dropped
    }
}
