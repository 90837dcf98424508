//! Effects, not spellings (issue 25, item 1): what guards the repository — its git hooks,
//! the git config keys that move them in every scope, the coding agents' hook configs, the
//! accepted config ([`crate::guard_surface`]) — is read before each tool call and again
//! after it. A change loopguard did not make happened during that call, however it was
//! spelled (a Python one-liner, `perl -pi`, `git config CORE.HOOKSPATH`, a Write to
//! `x/../.claude/settings.json`): it is put back where it can be, the agent's version kept
//! aside (nothing is lost), and it is a `constraint` trip naming the file, the call and
//! what was put back.
//!
//! Kept in the sessions' store: `surface/last.json` (the last snapshot: the next one reads
//! again only what its metadata says changed), `surface/<session>/<call>.json` (the
//! snapshot before a call in flight), `kept/<sha256>` (each watched file's content as it
//! was seen, by digest: what is put back) and `aside/` (what the agent's call left, taken
//! out of the way).
//!
//! What loopguard's own hooks change during a call is state, not guard: its store and
//! markers, and `reference-transaction` armed (a copy of `pre-commit`'s shim) or disarmed.
//! An agent's hook config counts by what decides whether loopguard's hooks run (its
//! `hooks`, and any top-level key about hooks, as `disableAllHooks`): a person's or the
//! agent's edit of their permissions is no change to the guard.

use std::io;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::guard_surface::{Change, Place, Seen, Surface, Watched};
use crate::safe_fs::{self, Follow};
use crate::store::branch_key_bytes;

use super::super::Workspace;

/// Most bytes of a stored snapshot read back.
const SNAPSHOT_LIMIT: u64 = 4 << 20;
/// Most bytes of a watched file kept (the surface digests a larger one by its start: it
/// cannot be put back whole).
const KEEP_LIMIT: u64 = 1 << 20;

/// The integrity check of one repository, seen from one worktree.
pub(super) struct Integrity {
    /// The sessions' store.
    dir: PathBuf,
    place: Place,
    /// `surface/last.json` as this hook read it: its file's identity and what it holds.
    last: std::cell::OnceCell<Option<(FileId, Surface)>>,
}

/// A file's identity (device, inode): the same while no rename replaces it.
type FileId = (u64, u64);

fn file_id(path: &Path) -> Option<FileId> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        std::fs::symlink_metadata(path)
            .ok()
            .map(|m| (m.dev(), m.ino()))
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        None
    }
}

impl Integrity {
    pub(super) fn of(ws: &Workspace<'_>, sessions_dir: &Path) -> Integrity {
        Integrity {
            dir: sessions_dir.to_owned(),
            place: Place::of(&ws.repo, &ws.ctx.settings),
            last: std::cell::OnceCell::new(),
        }
    }

    /// The last snapshot a hook kept (`surface/last.json`), read once.
    fn read_last(&self) -> Option<Surface> {
        self.last
            .get_or_init(|| {
                let path = self.last_path();
                let id = file_id(&path)?;
                let surface = read_snapshot(&path)?;
                // Replaced while it was read: no identity to link to.
                (file_id(&path) == Some(id)).then_some((id, surface))
            })
            .as_ref()
            .map(|(_, s)| s.clone())
    }

    fn last_path(&self) -> PathBuf {
        self.dir.join("surface").join("last.json")
    }

    fn call_path(&self, key: &str, call: &str) -> PathBuf {
        self.dir
            .join("surface")
            .join(key)
            .join(format!("{}.json", branch_key_bytes(Some(call.as_bytes()))))
    }

    fn kept_path(&self, sha256: &str) -> PathBuf {
        self.dir.join("kept").join(sha256)
    }

    /// Before a call: the surface now, and what changed on the guard since the last hook
    /// read it ([`Integrity::since_last`]); the reason of the `constraint` trip.
    pub(super) fn between_calls(&self, busy: impl FnOnce() -> bool) -> (Surface, Option<String>) {
        let (now, told) = self.since_last(busy);
        let reason = told.map(|told| {
            format!(
                "between two tool calls (none was running: a program left running, or a person), what guards this repository was changed (not by loopguard): {told}"
            )
        });
        (now, reason)
    }

    /// In a git hook (a commit's): what changed on the guard since the last hook read it
    /// ([`Integrity::since_last`]), put back, kept as the last reading so that it is told
    /// once; `None` when nothing did, or a session's call is running (its result pins the
    /// change to that call).
    pub(super) fn at_git_hook(&self, busy: impl FnOnce() -> bool) -> Option<String> {
        let (now, told) = self.since_last(busy);
        let told = told?;
        self.keep_last(&now);
        Some(told)
    }

    /// The surface now, and what changed on the guard since the last hook read it, when
    /// no call of any session was running then (`busy` says whether one is: that call's
    /// result will pin the change to it) and `init`/`uninstall` do not explain it — put
    /// back where it can be: each change and what was done, for people.
    fn since_last(&self, busy: impl FnOnce() -> bool) -> (Surface, Option<String>) {
        let store = self.place.common_dir.join("loopguard");
        // Before the first call: the surface as `init` left it.
        let last = self
            .read_last()
            .or_else(|| crate::guard_surface::own::last(&store).map(|o| o.surface));
        let now = Surface::snapshot(&self.place, last.as_ref());
        let Some(last) = last else {
            return (now, None);
        };
        let changes: Vec<Change> = now
            .changes_since(&last)
            .into_iter()
            .filter(|c| self.guards(c, &now))
            .collect();
        if changes.is_empty() {
            return (now, None);
        }
        let own = crate::guard_surface::own::last(&store);
        let changes: Vec<&Change> = changes
            .iter()
            .filter(|c| !own.as_ref().is_some_and(|o| o.explains(c)))
            .collect();
        if changes.is_empty() || busy() {
            return (now, None);
        }
        let told: Vec<String> = changes
            .iter()
            .map(|c| format!("{c} ({})", self.restore(c)))
            .collect();
        let now = Surface::snapshot(&self.place, Some(&now));
        (now, Some(told.join("; ")))
    }

    /// Before the call `call` of the session `key` runs: `surface` (the surface now,
    /// [`Integrity::between_calls`]) kept for its result's hook, and each watched file's
    /// content kept by its digest (once).
    ///
    /// Where the last snapshot a hook kept saw the same (the common case: nothing changed
    /// between two calls), it is not written again: the call's snapshot is one more name
    /// for its file (a hard link), checked to be the file that was read. Neither is synced
    /// (see [`Integrity::keep_last`]); a call's snapshot lost with the machine is a call
    /// whose harness is gone too.
    pub(super) fn before_call(&self, key: &str, call: &str, surface: &Surface) -> io::Result<()> {
        self.keep_contents(surface);
        let path = self.call_path(key, call);
        safe_fs::ensure_dir(path.parent().expect("a file path has a parent"))?;
        let kept = self
            .last
            .get()
            .and_then(Option::as_ref)
            .filter(|(_, stored)| !surface.replaces(stored))
            .map(|(id, _)| *id);
        if let Some(id) = kept {
            let _ = std::fs::remove_file(&path);
            if std::fs::hard_link(self.last_path(), &path).is_ok() && file_id(&path) == Some(id) {
                return Ok(());
            }
        }
        let bytes = serde_json::to_vec(surface).map_err(io::Error::other)?;
        safe_fs::write_atomic_unsynced(&path, &bytes, || {})?;
        if kept.is_none() {
            safe_fs::write_atomic_unsynced(&self.last_path(), &bytes, || {})?;
        }
        Ok(())
    }

    /// After the call `call` (`what`: the call, for people) of the session `key`: what
    /// changed on the guard since its before-call snapshot, each put back where it can be;
    /// the reason of the `constraint` trip, `None` when nothing changed (or the call had
    /// no before-call snapshot: it was not announced, which is judged apart).
    pub(super) fn after_call(&self, key: &str, call: &str, what: &str) -> Option<String> {
        let path = self.call_path(key, call);
        let id = file_id(&path);
        let before = read_snapshot(&path)?;
        let _ = std::fs::remove_file(&path);
        let after = Surface::snapshot(&self.place, Some(&before));
        let changes: Vec<Change> = after
            .changes_since(&before)
            .into_iter()
            .filter(|c| self.guards(c, &after))
            .collect();
        if changes.is_empty() {
            // The last snapshot is still the call's (linked to it before the call) and
            // saw the same: nothing to write.
            if after.replaces(&before) || id.is_none() || file_id(&self.last_path()) != id {
                self.keep_last(&after);
            }
            return None;
        }
        let told: Vec<String> = changes
            .iter()
            .map(|c| format!("{c} ({})", self.restore(c)))
            .collect();
        // What the next snapshot compares with: as restored.
        self.keep_last(&Surface::snapshot(&self.place, Some(&after)));
        Some(format!(
            "during the call {what}, what guards this repository was changed (not by loopguard): {}",
            told.join("; ")
        ))
    }

    /// Keeps `surface` as the one the next snapshot starts from and compares with. Not
    /// synced: after a crash of the machine the next hook finds the previous one, or
    /// none, and then compares with an older reading (the surface `init` left, at the
    /// oldest) — it may see more changes than happened since, never fewer.
    fn keep_last(&self, surface: &Surface) {
        if let Ok(bytes) = serde_json::to_vec(surface) {
            let _ = safe_fs::ensure_dir(&self.dir.join("surface"));
            let _ = safe_fs::write_atomic_unsynced(&self.last_path(), &bytes, || {});
        }
    }

    /// Keeps the content of each watched file whose digest is new (a `stat` for the rest).
    pub(super) fn keep_contents(&self, surface: &Surface) {
        for (watched, seen) in surface.items() {
            let Seen::File { sha256, .. } = seen else {
                continue;
            };
            if watched.is_state() {
                continue;
            }
            let kept = self.kept_path(sha256);
            if std::fs::symlink_metadata(&kept).is_ok() {
                continue;
            }
            let Some(path) = self.path_of(watched) else {
                continue;
            };
            if let Ok(Some(bytes)) = safe_fs::read_bounded(&path, KEEP_LIMIT, Follow::No)
                && super::super::content_hash(&bytes) == *sha256
            {
                let _ = safe_fs::ensure_dir(&self.dir.join("kept"));
                let _ = safe_fs::write_atomic_unsynced_rename(&kept, &bytes, || {});
            }
        }
    }

    /// Where `watched` is on disk (a git config file is its own path).
    fn path_of(&self, watched: &Watched) -> Option<PathBuf> {
        match watched {
            Watched::GitConfig { path, .. } => Some(path.clone()),
            Watched::Hook { dir, hook } => Some(dir.join(hook)),
            Watched::AgentConfig { path } => Some(self.place.root.join(path)),
            Watched::Accepted => Some(
                self.place
                    .common_dir
                    .join("loopguard")
                    .join("accepted-config.json"),
            ),
            Watched::Chained { .. }
            | Watched::StoreDir { .. }
            | Watched::Sessions
            | Watched::Markers { .. } => None,
        }
    }

    /// Whether `c` is a change to what guards, rather than loopguard's own work.
    fn guards(&self, c: &Change, after: &Surface) -> bool {
        match &c.watched {
            Watched::StoreDir { .. }
            | Watched::Sessions
            | Watched::Markers { .. }
            | Watched::Chained { .. } => false,
            Watched::Hook { dir, hook } if hook == "reference-transaction" => {
                // Armed (a copy of pre-commit's shim) or disarmed by loopguard's hooks.
                let shim = after.seen(&Watched::Hook {
                    dir: dir.clone(),
                    hook: "pre-commit".to_owned(),
                });
                !(c.after == Seen::Absent || shim == Some(&c.after))
            }
            Watched::AgentConfig { .. } => {
                let part = |seen: &Seen, live: bool| -> Option<serde_json::Value> {
                    let bytes = match seen {
                        Seen::Absent => return None,
                        Seen::File { sha256, .. } if !live => {
                            std::fs::read(self.kept_path(sha256)).ok()?
                        }
                        _ => std::fs::read(self.path_of(&c.watched)?).ok()?,
                    };
                    Some(crate::agents_config::hooks_part(&bytes))
                };
                let before = part(&c.before, false);
                let ours = before
                    .as_ref()
                    .is_some_and(crate::agents_config::names_loopguard);
                ours && part(&c.after, true) != before
            }
            Watched::Hook { .. } | Watched::GitConfig { .. } | Watched::Accepted => true,
        }
    }

    /// Puts back what `c` changed, where it can; what was done, for people.
    fn restore(&self, c: &Change) -> String {
        let Some(path) = self.path_of(&c.watched) else {
            return "not put back".to_owned();
        };
        match (&c.watched, &c.before, &c.after) {
            (
                Watched::GitConfig { .. },
                Seen::Keys { keys: before },
                Seen::Keys { keys: after },
            ) => self.restore_keys(&path, before, after),
            (_, Seen::File { sha256, executable }, _) => {
                match std::fs::read(self.kept_path(sha256)) {
                    Ok(bytes) => match self.put_back(&path, &bytes, *executable) {
                        Ok(aside) => format!("put back{aside}"),
                        Err(e) => format!("could not be put back: {e}"),
                    },
                    Err(_) => "could not be put back: loopguard had no copy of it".to_owned(),
                }
            }
            (_, Seen::Absent, _) => match self.set_aside(&path) {
                Ok(Some(kept)) => format!("removed again, kept at {}", kept.display()),
                Ok(None) => "gone again".to_owned(),
                Err(e) => format!("could not be removed: {e}"),
            },
            (_, before, _) => format!("not put back: it was {}", before.word()),
        }
    }

    /// Writes `bytes` back at `path`, what is there now set aside first; where it went.
    fn put_back(&self, path: &Path, bytes: &[u8], executable: bool) -> io::Result<String> {
        let aside = self.set_aside(path)?;
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        safe_fs::write_atomic(path, bytes, || {})?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = if executable { 0o755 } else { 0o644 };
            std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))?;
        }
        #[cfg(not(unix))]
        let _ = executable;
        Ok(aside.map_or_else(String::new, |p| {
            format!("; the agent's version kept at {}", p.display())
        }))
    }

    /// Moves what is at `path` (file, link or directory) into `aside/`; where, if anything
    /// was there.
    fn set_aside(&self, path: &Path) -> io::Result<Option<PathBuf>> {
        if std::fs::symlink_metadata(path).is_err() {
            return Ok(None);
        }
        let dir = self.dir.join("aside");
        safe_fs::ensure_dir(&dir)?;
        let name = path.file_name().map_or_else(
            || "unnamed".to_owned(),
            |n| branch_key_bytes(Some(n.as_encoded_bytes())),
        );
        let stamp = jiff::Timestamp::now().as_nanosecond();
        let to = dir.join(format!("{stamp}-{name}"));
        if std::fs::rename(path, &to).is_err() {
            // Another file system: a copy (a file's; a directory is left where it is).
            std::fs::copy(path, &to)?;
            std::fs::remove_file(path)?;
        }
        Ok(Some(to))
    }

    /// Sets the keys of the git config file `path` that move hooks back to `before`
    /// (`git config --file`), the file as the agent left it kept aside first. The formats
    /// of refs and objects are not put back this way: the repository itself moved.
    fn restore_keys(
        &self,
        path: &Path,
        before: &[(String, String)],
        after: &[(String, String)],
    ) -> String {
        let mut names: Vec<&String> = before.iter().chain(after).map(|(k, _)| k).collect();
        names.sort();
        names.dedup();
        let values = |keys: &[(String, String)], k: &str| -> Vec<String> {
            keys.iter()
                .filter(|(x, _)| x == k)
                .map(|(_, v)| v.clone())
                .collect()
        };
        let changed: Vec<&String> = names
            .into_iter()
            .filter(|k| values(before, k) != values(after, k))
            .collect();
        let (formats, keys): (Vec<&String>, Vec<&String>) = changed.into_iter().partition(|k| {
            matches!(
                k.as_str(),
                "extensions.refstorage" | "extensions.objectformat"
            )
        });
        let mut said = Vec::new();
        if !keys.is_empty() {
            let kept = std::fs::read(path).ok().and_then(|bytes| {
                let dir = self.dir.join("aside");
                safe_fs::ensure_dir(&dir).ok()?;
                let to = dir.join(format!(
                    "{}-gitconfig",
                    jiff::Timestamp::now().as_nanosecond()
                ));
                std::fs::write(&to, bytes).ok().map(|()| to)
            });
            let mut failed = Vec::new();
            for k in &keys {
                let ok = git_config(path, &["--unset-all", k.as_str()], &[0, 5])
                    && values(before, k)
                        .iter()
                        .all(|v| git_config(path, &["--add", k.as_str(), v.as_str()], &[0]));
                if !ok {
                    failed.push(k.as_str());
                }
            }
            let names: Vec<&str> = keys.iter().map(|k| k.as_str()).collect();
            said.push(if failed.is_empty() {
                format!("{} set back", names.join(", "))
            } else {
                format!("{} could not be set back", failed.join(", "))
            });
            if let Some(kept) = kept {
                said.push(format!("the file as it was kept at {}", kept.display()));
            }
        }
        if !formats.is_empty() {
            let names: Vec<&str> = formats.iter().map(|k| k.as_str()).collect();
            said.push(format!(
                "{} not put back: the repository itself was converted (a person moves it back, e.g. `git refs migrate --ref-format=files`)",
                names.join(", ")
            ));
        }
        said.join("; ")
    }
}

/// `git config --file path args…`; whether it exited with one of `ok`.
fn git_config(path: &Path, args: &[&str], ok: &[i32]) -> bool {
    Command::new("git")
        .arg("config")
        .arg("--file")
        .arg(path)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.code().is_some_and(|c| ok.contains(&c)))
}

fn read_snapshot(path: &Path) -> Option<Surface> {
    let bytes = safe_fs::read_bounded(path, SNAPSHOT_LIMIT, Follow::No).ok()??;
    serde_json::from_slice(&bytes).ok()
}
