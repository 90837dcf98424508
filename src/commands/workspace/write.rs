//! The locked read-modify-write of the current branch's run ([`Workspace::with_run`]), and
//! what goes with a write: the `reference-transaction` gate armed while a breaker may be
//! open, the pre-commit shim's hint, the report of a run that ended.

use std::path::Path;

use anyhow::Result;
use jiff::Timestamp;

use crate::breaker::{Event, EventKind};
use crate::error::StoreError;
use crate::report::markdown;
use crate::run::Run;
use crate::store::{Change, Durability, Loaded, Locked, StartRecord};

use super::{Workspace, status_of};

impl Workspace<'_> {
    /// Locks the store, finishes what a writer that died left, loads (or starts, or
    /// rebuilds) the run, lets `f` change it (with the locked store, for what else it
    /// writes), and writes it with the events `f` returns, as one change (see `store`), as
    /// durably as `durability` says. Nothing is written when `f` fails.
    pub fn with_run<T>(
        &self,
        now: Timestamp,
        durability: Durability,
        f: impl FnOnce(&mut Run, &Locked<'_>) -> Result<(T, Vec<Event>)>,
    ) -> Result<T> {
        let waited = self.ctx.settings.lock_timeout;
        match self.with_run_within(now, waited, durability, f)? {
            Some(value) => Ok(value),
            None => Err(StoreError::Locked {
                path: self.store.dir().join("lock"),
                waited,
            }
            .into()),
        }
    }

    /// [`Workspace::with_run`], waiting at most `wait` for the store's lock: `None` when
    /// another holds it that long (nothing was done).
    pub fn with_run_within<T>(
        &self,
        now: Timestamp,
        wait: std::time::Duration,
        durability: Durability,
        f: impl FnOnce(&mut Run, &Locked<'_>) -> Result<(T, Vec<Event>)>,
    ) -> Result<Option<T>> {
        self.opened.take();
        let store = match self.store.lock(wait) {
            Ok(locked) => locked,
            Err(StoreError::Locked { .. }) => return Ok(None),
            Err(e) => return Err(e.into()),
        };
        let tag = crate::store::tag_of(now);
        let recovered = store.recover(&self.key, &tag).map_err(StoreError::io(
            "finish the change a loopguard that stopped left in",
            &self.store.journal_path(&self.key),
        ))?;
        for why in &recovered.set_aside {
            self.warn(why);
        }
        if recovered.applied {
            // A change a writer that died left may have opened a breaker.
            let open = self.store.open_keys().map_or(true, |k| !k.is_empty());
            self.arm_or_say(open);
        }
        let (before, mut run) = self.load_or_start(&store, now, &tag)?;
        if run.pinned_config.is_none() {
            run.pinned_config = self.pin.clone();
        }
        let mut events = Vec::new();
        if let Some(ig) = &self.ignored {
            events.extend(run.config_ignored(&ig.what, self.ignored_message(ig), now));
        }
        let (value, more) = f(&mut run, &store)?;
        events.extend(more);
        if before.as_ref().map(Run::saved) != Some(run.saved()) || !events.is_empty() {
            self.commit(&store, &run, before.as_ref(), &events, durability)?;
        }
        Ok(Some(value))
    }

    /// Tells the pre-commit shim that HEAD is a commit `run` knows (recorded, or where it
    /// started), so the next pre-commit need not start loopguard while no breaker may be
    /// open: `<git dir>/loopguard-recorded` holds `refs/heads/<branch> <commit>`, compared
    /// with HEAD's loose ref (hooks/loopguard-shim). A hint, written in place and never
    /// synced (a commit pays for the store's own syncs, not for this): lost, or read half
    /// written, it only makes the shim start loopguard. Never given for a run whose breaker
    /// is not closed (the hint is taken back): the markers alone then stand between a
    /// commit and pre-commit's gate, and an agent can delete them.
    pub fn mark_recorded(&self, run: &Run) {
        let path = self.repo.git_dir().join("loopguard-recorded");
        if run.is_open() {
            let _ = std::fs::remove_file(&path);
            return;
        }
        let (Some(name), Some(head)) = (&self.head.branch_name, &self.head.id) else {
            return;
        };
        if !run.knows(head) {
            return;
        }
        let mut line = b"refs/heads/".to_vec();
        line.extend_from_slice(name);
        line.push(b' ');
        line.extend_from_slice(head.as_str().as_bytes());
        line.push(b'\n');
        if std::fs::read(&path).ok().as_deref() != Some(line.as_slice()) {
            let _ = crate::safe_fs::write_hint(&path, &line);
        }
    }

    /// The current branch's run as stored, and the run to change: the stored one, else one
    /// started now, else — its file was unusable and set aside — the run rebuilt from git
    /// (its start record says where it started).
    fn load_or_start(
        &self,
        store: &Locked<'_>,
        now: Timestamp,
        tag: &str,
    ) -> Result<(Option<Run>, Run)> {
        let path = store.run_path(&self.key);
        match store
            .load_run(&self.key, tag)
            .map_err(StoreError::io("read", &path))?
        {
            Loaded::Found(run) => Ok((Some((*run).clone()), *run)),
            Loaded::Missing => Ok((None, self.start_run(now)?)),
            Loaded::SetAside { kept, why } => {
                self.warn(&format!(
                    "{why}; it was kept as {} and the run is rebuilt from git history",
                    kept.display()
                ));
                Ok((None, self.rebuild(now)?))
            }
        }
    }

    /// Writes `run` and `events` as one change: with its start record when the run (or
    /// its config) is new, and its report when it ended.
    fn commit(
        &self,
        store: &Locked<'_>,
        run: &Run,
        before: Option<&Run>,
        events: &[Event],
        durability: Durability,
    ) -> Result<()> {
        let start = before
            .is_none_or(|b| b.id != run.id || b.pinned_config != run.pinned_config)
            .then(|| StartRecord::of(run));
        let report = events
            .iter()
            .any(|e| ends_run(e.kind))
            .then(|| self.render_report(run, events))
            .transpose()?;
        let change = Change {
            run,
            events,
            calls: &[],
            start,
            report,
        };
        // The gate of every ref update is armed before an open run can be read.
        if run.is_open() {
            self.arm_or_say(true);
        }
        store
            .commit(&self.key, change, durability)
            .map_err(StoreError::io("write", store.dir()))?;
        // Disarmed when this change closed the run (or started one) and no marker is left: a
        // commit that changes nothing about the breaker pays nothing for it. (Left armed by
        // a crash in between, it only costs time; `init` decides again.)
        if !run.is_open()
            && before.is_none_or(Run::is_open)
            && self.store.open_keys().is_ok_and(|k| k.is_empty())
        {
            self.arm_or_say(false);
        }
        Ok(())
    }

    /// [`Self::arm_reference_transaction`] where a run is written: a hooks directory that
    /// cannot be written never keeps a trip from being recorded (pre-commit and pre-push
    /// still refuse what it blocks, and `status` names the hook that does not guard); an
    /// arming that failed is said, a disarming that failed only costs time.
    fn arm_or_say(&self, armed: bool) {
        if let Err(e) = self.arm_reference_transaction(armed)
            && armed
        {
            self.warn(&format!(
                "{e:#}: reference-transaction is not armed, so ref updates that are not commits are not judged until `loopguard init` arms it"
            ));
        }
    }

    /// Arms or disarms the `reference-transaction` shim
    /// ([`crate::hooks::arm_reference_transaction`]).
    pub fn arm_reference_transaction(&self, armed: bool) -> Result<()> {
        let dir = self.repo.hooks_dir();
        let canonical = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_owned());
        let own_hooks = self.repo.common_dir().join("hooks");
        // The repository's own: `.git/hooks` itself, not a link to a directory other
        // repositories may share.
        let own = canonical(&dir) == canonical(&own_hooks)
            && std::fs::symlink_metadata(&own_hooks).is_ok_and(|m| m.is_dir());
        crate::hooks::arm_reference_transaction(
            &dir,
            &crate::hooks::chained_dir(self.store.dir()),
            own,
            armed,
        )
        .map_err(|source| {
            crate::error::HookError::Install {
                dir: dir.clone(),
                source,
            }
            .into()
        })
    }

    /// The report of `run` after `events` (the log so far and these).
    pub(crate) fn render_report(&self, run: &Run, events: &[Event]) -> Result<(String, String)> {
        let (mut log, _) = self.store.read_events(&self.key).unwrap_or_default();
        log.extend(events.iter().cloned());
        let config = self.config_of(run)?;
        let s = status_of(&config, run, &log, self.now());
        Ok((run.id.clone(), markdown::report(&s)))
    }

    /// A run that `finish` ended is kept in `runs/ended/` and a new one starts: the next
    /// commit or event belongs to a new session.
    pub fn restart_if_finished(
        &self,
        store: &Locked<'_>,
        run: &mut Run,
        now: Timestamp,
    ) -> Result<()> {
        if !run.is_finished() {
            return Ok(());
        }
        store.keep_ended(run)?;
        *run = self.next_run(run, now);
        Ok(())
    }
}

/// Events after which the run's report is written.
fn ends_run(kind: EventKind) -> bool {
    matches!(
        kind,
        EventKind::Trip | EventKind::Reopen | EventKind::Finish | EventKind::Escalate
    )
}
