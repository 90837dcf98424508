//! What loopguard saw that it did not do itself: a change to what guards a run (its own
//! state, the hooks, an agent's hook config), or an event that did not come from the
//! harness. Each is a `constraint` trip whatever the breaker's phase
//! ([`crate::breaker::Breaker::tampered`]): no such effect relaxes a breaker unrecorded.

use jiff::Timestamp;

use super::Run;
use crate::breaker::Event;
use crate::config::Config;

impl Run {
    /// `reason` (what changed, during which call or commit, and what was put back) as a
    /// `constraint` trip at `now`, after the cooldown's own transition if one was due.
    pub fn tampered(&mut self, config: &Config, reason: String, now: Timestamp) -> Vec<Event> {
        let mut events: Vec<Event> = self.tick(config, now).into_iter().collect();
        let at = self.at(now);
        events.push(
            self.record
                .breaker
                .tampered(reason, config.on_trip.action, &at),
        );
        events
    }
}

#[cfg(test)]
mod tests {
    use jiff::Timestamp;

    use crate::breaker::{EventKind, State};
    use crate::config::{Config, TripAction};
    use crate::rules::RuleName;
    use crate::run::Run;

    fn at(s: i64) -> Timestamp {
        Timestamp::from_second(1_700_000_000 + s).unwrap()
    }

    #[test]
    fn a_tamper_is_a_constraint_trip_in_every_phase() {
        let config = Config::default();
        // Closed: it trips.
        let mut run = Run::new("r".to_owned(), None, at(0), None);
        let e = run.tampered(&config, "the marker was deleted".into(), at(1));
        assert_eq!(
            e.last().map(|e| (e.kind, e.to)),
            Some((EventKind::Trip, State::Open))
        );
        assert_eq!(run.breaker().rule(), Some(RuleName::Constraint));
        // Open: it opens again with the new reason, the first kept.
        let e = run.tampered(&config, "a forged prompt".into(), at(2));
        assert_eq!(e.last().map(|e| e.kind), Some(EventKind::Reopen));
        assert_eq!(run.breaker().reason(), Some("a forged prompt"));
        assert_eq!(run.breaker().trips(), 2);
        // Half-open (a person's turn): open again.
        run.new_episode(&config, at(3), None).unwrap();
        assert_eq!(run.breaker().state(), State::HalfOpen);
        run.tampered(&config, "again".into(), at(4));
        assert_eq!(run.breaker().state(), State::Open);
        // Under abort: aborted, and it stays so; the event records the next one.
        let mut abort = Config::default();
        abort.on_trip.action = TripAction::Abort;
        let mut run = Run::new("r".to_owned(), None, at(0), None);
        run.tampered(&abort, "one".into(), at(1));
        assert!(run.breaker().is_aborted());
        let e = run.tampered(&abort, "two".into(), at(2));
        assert!(run.breaker().is_aborted());
        let last = e.last().unwrap();
        assert_eq!(
            (last.kind, last.rule),
            (EventKind::Warn, Some(RuleName::Constraint))
        );
        assert_eq!(last.reason.as_deref(), Some("two"));
    }
}
