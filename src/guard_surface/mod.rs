//! The guard surface: everything that decides whether a repository is guarded, listed
//! cheaply enough to be read on every hook.
//!
//! - the git hooks in each worktree's hooks directory, by content digest and mode, and
//!   the hooks loopguard keeps aside and chains;
//! - every git config file git reads — system (`/etc/gitconfig`, the `<prefix>/etc/gitconfig`
//!   of the `git` on `PATH`, `GIT_CONFIG_SYSTEM`), global (`~/.gitconfig`,
//!   `$XDG_CONFIG_HOME/git/config`, `GIT_CONFIG_GLOBAL`), local, each worktree's
//!   `config.worktree` (with `extensions.worktreeConfig`), and every file an `include.path`
//!   or `includeIf.*.path` of theirs names — by the keys that change which hooks run
//!   (`core.hooksPath`, the includes, `extensions.worktreeConfig`, and the formats git
//!   keeps refs and objects in: `extensions.refStorage`, `extensions.objectFormat`);
//! - the coding agents' hook configs (`agents_config::config_path` of every harness) in
//!   the working tree;
//! - loopguard's own state: the store and its `runs/` directory, the sessions' directory
//!   where it really is (under the user's state directory: [`crate::store::place`]), the
//!   open markers of both (`<store>/open/`, `<sessions>/open/`) by name, and the accepted
//!   config (what new runs are pinned to).
//!
//! [`Surface::snapshot`] reads it; given the previous snapshot it reads again only what
//! changed since (a path whose metadata, `ctime` and inode included, is the same and was
//! already settled when that snapshot was taken is not opened), so a snapshot after the
//! first costs a `stat` per watched path. Two snapshots compare by what they saw, never by
//! metadata; [`Surface::changes_since`] names each change (the file, the config key and
//! its scope, the hook, the marker). [`Surface::worktrees`] says where each worktree's
//! hooks are, and why; `status` asks [`Surface::not_guarded`].
//!
//! # A change loopguard made itself
//!
//! `init` and `uninstall` (and `init --agent`, `uninstall --agent`) change the surface on
//! purpose. Each leaves [`own::record`]: the surface as it left it, with what made it and
//! when (`<store>/surface.json`). A change whose state is the one recorded there
//! ([`own::Own::explains`]) is loopguard's, not the agent's — between an agent's tool
//! calls, where a person runs those commands. The record is a file like any other, so it
//! can vouch for nothing inside a tool call: the commands that write it refuse to run
//! there (issue 25), and a record written during a call is the agent's. What loopguard's
//! own hooks change during a call is state, not guard: a marker appears when a breaker
//! opens and goes when one closes (judge a marker's going by the run it marked), and
//! `reference-transaction` is armed and disarmed (a copy of the shim, or absent).

mod gitconfig;
pub mod own;
mod seen;

use std::collections::BTreeSet;
use std::fmt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

pub use gitconfig::{HooksPathSet, Scope};
use seen::Read;
pub use seen::{Seen, Stat};

use crate::settings::{GitEnv, Settings};

/// The version of [`Surface`]'s stored form.
const SCHEMA: u32 = 2;
/// Seconds before a snapshot within which a path's change makes it be read again next
/// time, whatever its metadata says (file times tick coarsely).
const RACY_SECONDS: i64 = 2;

/// Where the surface of one repository is, seen from one worktree.
#[derive(Debug, Clone)]
pub struct Place {
    /// `git rev-parse --git-common-dir`.
    pub common_dir: PathBuf,
    /// The root of the worktree the caller works in (the agents' configs are read there);
    /// the git dir of a bare repository.
    pub root: PathBuf,
    /// Where git finds its config files.
    pub env: GitEnv,
    /// Where the coding agents' sessions of the repository are kept
    /// ([`crate::store::place::sessions_dir`]: under the user's state directory).
    pub sessions: PathBuf,
}

impl Place {
    /// The place of `repo`, as `settings` find git's config and the user's state
    /// directory.
    pub fn of(repo: &crate::git::Repo, settings: &Settings) -> Place {
        let common_dir = repo.common_dir().to_owned();
        Place {
            sessions: crate::store::place::sessions_dir(
                settings.state_home.as_deref(),
                &common_dir,
            ),
            root: repo.workdir().unwrap_or(repo.git_dir()).to_owned(),
            env: settings.git.clone(),
            common_dir,
        }
    }

    fn store(&self) -> PathBuf {
        self.common_dir.join("loopguard")
    }
}

/// One thing that decides whether the repository is guarded.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(tag = "watched", rename_all = "snake_case")]
pub enum Watched {
    /// A git config file: its keys that change which hooks run.
    GitConfig { scope: Scope, path: PathBuf },
    /// A hook in a hooks directory some worktree's git runs.
    Hook { dir: PathBuf, hook: String },
    /// A hook loopguard kept aside when it installed its own, which its shim runs first.
    Chained { hook: String },
    /// A coding agent's hook config, relative to the worktree root.
    AgentConfig { path: String },
    /// The config new runs are pinned to (`<store>/accepted-config.json`).
    Accepted,
    /// A directory of the store (`""`: the store itself).
    StoreDir { dir: String },
    /// The directory the coding agents' sessions are kept in ([`Place::sessions`]).
    Sessions,
    /// A directory of open markers, by name: the branches' (`<store>/open`) or the
    /// sessions' (`<sessions>/open`).
    Markers { of: MarkersOf },
}

/// Whose open markers a directory holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MarkersOf {
    /// The branches' runs: `<store>/open`.
    Branches,
    /// The coding agents' sessions: `<sessions>/open`.
    Sessions,
}

impl Watched {
    /// What this is, for people.
    fn what(&self) -> String {
        match self {
            Watched::GitConfig { scope, path } => {
                format!("the {scope} git config {}", path.display())
            }
            Watched::Hook { dir, hook } => format!("the {hook} hook in {}", dir.display()),
            Watched::Chained { hook } => format!("the {hook} hook loopguard chains"),
            Watched::AgentConfig { path } => path.clone(),
            Watched::Accepted => "the accepted config (accepted-config.json)".to_owned(),
            Watched::StoreDir { dir } if dir.is_empty() => "loopguard's store".to_owned(),
            Watched::StoreDir { dir } => format!("loopguard's {dir}/ directory"),
            Watched::Sessions => "loopguard's sessions directory".to_owned(),
            Watched::Markers {
                of: MarkersOf::Branches,
            } => "loopguard's markers in open/".to_owned(),
            Watched::Markers {
                of: MarkersOf::Sessions,
            } => "loopguard's markers of the sessions' breakers".to_owned(),
        }
    }

    /// What is there when nothing was seen (an item one snapshot has and the other not).
    fn nothing(&self) -> Seen {
        match self {
            Watched::GitConfig { .. } => Seen::Keys { keys: Vec::new() },
            _ => Seen::Absent,
        }
    }

    /// Loopguard's own state (its hooks change it in the course of their work), rather
    /// than what guards.
    pub fn is_state(&self) -> bool {
        matches!(
            self,
            Watched::StoreDir { .. } | Watched::Sessions | Watched::Markers { .. }
        )
    }
}

/// One watched thing, what was seen there, and the metadata it was seen with.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct Item {
    watched: Watched,
    path: PathBuf,
    seen: Seen,
    stat: Option<Stat>,
}

/// A worktree, and the hooks directories its git may run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WorktreeHooks {
    /// Its root.
    pub root: PathBuf,
    /// Where its hooks are: one directory, or several when a conditional include
    /// (`includeIf`, not evaluated) may set `core.hooksPath`.
    pub dirs: Vec<HooksDir>,
}

/// A hooks directory and what made git run hooks from it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HooksDir {
    pub dir: PathBuf,
    /// The `core.hooksPath` that names it; `None`: git's default (`<common dir>/hooks`).
    pub set: Option<HooksPathSet>,
}

/// What decides whether a repository is guarded, as seen at one moment.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Surface {
    schema: u32,
    /// When it was taken (seconds, nanoseconds since the epoch).
    taken: (i64, i64),
    /// Sorted by what is watched.
    items: Vec<Item>,
    worktrees: Vec<WorktreeHooks>,
}

/// Two surfaces are the same when they saw the same: [`Surface::changes_since`] is empty.
impl PartialEq for Surface {
    fn eq(&self, other: &Surface) -> bool {
        self.changes_since(other).is_empty()
    }
}

/// One watched thing that differs between two snapshots.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    pub watched: Watched,
    pub before: Seen,
    pub after: Seen,
}

/// A reason the repository is not guarded ([`Surface::not_guarded`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NotGuarded {
    /// Its refs are kept in a format loopguard cannot read (`extensions.refStorage`).
    RefFormat { format: String, config: PathBuf },
    /// A worktree's git runs hooks from a directory where loopguard's do not guard.
    HooksOff {
        worktree: PathBuf,
        dir: HooksDir,
        /// Each hook there that does not guard, and why.
        hooks: Vec<(&'static str, String)>,
    },
}

impl Surface {
    /// Reads the surface of `place`. With `previous` (an earlier snapshot of the same
    /// place), a path whose metadata did not change since is not read again.
    pub fn snapshot(place: &Place, previous: Option<&Surface>) -> Surface {
        let taken = now();
        let mut reader = Reader {
            previous,
            items: Vec::new(),
        };
        let local = place.common_dir.join("config");
        let mut roots = gitconfig::outer_files(&place.env);
        roots.push((Scope::Local, local.clone()));
        for (scope, path) in &roots {
            reader.config(place, scope, path, 0);
        }
        let worktree_config = reader.config_seen(&Scope::Local, &local).is_some_and(|s| {
            gitconfig::values(&s, "extensions.worktreeconfig").last() == Some("true")
        });
        let mut worktrees = Vec::new();
        for (root, config) in worktree_list(&place.common_dir) {
            let mut files = roots.clone();
            if worktree_config {
                let scope = Scope::Worktree {
                    worktree: root.clone(),
                };
                reader.config(place, &scope, &config, 0);
                files.push((scope, config));
            }
            let dirs = hooks_dirs(&reader, &files, &root, &place.common_dir, &place.env);
            worktrees.push(WorktreeHooks { root, dirs });
        }
        let dirs: BTreeSet<&PathBuf> = worktrees
            .iter()
            .flat_map(|w| w.dirs.iter().map(|d| &d.dir))
            .collect();
        let store = place.store();
        for dir in dirs {
            for hook in crate::hooks::HOOKS {
                let watched = Watched::Hook {
                    dir: dir.clone(),
                    hook: hook.to_owned(),
                };
                reader.look(watched, dir.join(hook), Read::Digest);
            }
        }
        for hook in crate::hooks::HOOKS {
            let path = crate::hooks::chained_dir(&store).join(hook);
            reader.look(
                Watched::Chained {
                    hook: hook.to_owned(),
                },
                path,
                Read::Digest,
            );
        }
        for harness in crate::session::Harness::ALL {
            let path = crate::agents_config::config_path(*harness);
            let watched = Watched::AgentConfig {
                path: path.to_owned(),
            };
            reader.look(watched, place.root.join(path), Read::Digest);
        }
        reader.look(
            Watched::Accepted,
            store.join("accepted-config.json"),
            Read::Digest,
        );
        for dir in ["", "runs"] {
            let watched = Watched::StoreDir {
                dir: dir.to_owned(),
            };
            reader.look(watched, store.join(dir), Read::Dir);
        }
        reader.look(Watched::Sessions, place.sessions.clone(), Read::Dir);
        let markers = [
            (MarkersOf::Branches, store.join("open")),
            (MarkersOf::Sessions, place.sessions.join("open")),
        ];
        for (of, dir) in markers {
            reader.look(Watched::Markers { of }, dir, Read::Names);
        }
        let mut items = reader.items;
        items.sort_by(|a, b| a.watched.cmp(&b.watched));
        items.dedup_by(|a, b| a.watched == b.watched);
        Surface {
            schema: SCHEMA,
            taken,
            items,
            worktrees,
        }
    }

    /// What differs from `before`, in the order of what is watched: empty when the two
    /// saw the same. Metadata alone is no change.
    pub fn changes_since(&self, before: &Surface) -> Vec<Change> {
        let all: BTreeSet<&Watched> = self
            .items
            .iter()
            .chain(&before.items)
            .map(|i| &i.watched)
            .collect();
        all.into_iter()
            .filter_map(|w| {
                let seen = |s: &Surface| s.seen(w).cloned().unwrap_or_else(|| w.nothing());
                let (before, after) = (seen(before), seen(self));
                (before != after).then(|| Change {
                    watched: w.clone(),
                    before,
                    after,
                })
            })
            .collect()
    }

    /// Whether this snapshot must replace `stored` as the one the next snapshot starts
    /// from: it saw something else, metadata included (else the next would read those
    /// paths again), or `stored` holds paths it cannot vouch for by their metadata (they
    /// changed too close to its time) that this one can. Otherwise `stored` serves the
    /// next snapshot as well as this one would, and writing it again is work for nothing.
    pub fn replaces(&self, stored: &Surface) -> bool {
        let racy =
            |s: &Surface, i: &Item| i.stat.is_some_and(|t| !t.settled(s.taken, RACY_SECONDS));
        self.schema != stored.schema
            || self.items != stored.items
            || self.worktrees != stored.worktrees
            || stored
                .items
                .iter()
                .zip(&self.items)
                .any(|(old, new)| racy(stored, old) && !racy(self, new))
    }

    /// What was seen at `watched`, when it is watched here.
    pub fn seen(&self, watched: &Watched) -> Option<&Seen> {
        self.items
            .binary_search_by(|i| i.watched.cmp(watched))
            .ok()
            .map(|i| &self.items[i].seen)
    }

    /// Everything watched, and what was seen there.
    pub fn items(&self) -> impl Iterator<Item = (&Watched, &Seen)> {
        self.items.iter().map(|i| (&i.watched, &i.seen))
    }

    /// Every worktree (the main one first, when there is one) and where its hooks are.
    pub fn worktrees(&self) -> &[WorktreeHooks] {
        &self.worktrees
    }

    /// The format the repository keeps its refs in (`files` unless the local config's
    /// `extensions.refStorage` says another).
    pub fn ref_format(&self) -> String {
        self.items
            .iter()
            .find(|i| {
                matches!(
                    &i.watched,
                    Watched::GitConfig {
                        scope: Scope::Local,
                        ..
                    }
                )
            })
            .and_then(|i| gitconfig::values(&i.seen, "extensions.refstorage").last())
            .unwrap_or("files")
            .to_ascii_lowercase()
    }

    /// Why the repository is not guarded, if it is not: refs in a format loopguard cannot
    /// read; a worktree whose git runs hooks from a directory where loopguard's hooks do
    /// not guard (as [`crate::hooks::guarding`] judges them; `none_open`: no breaker may be
    /// open, so a disarmed `reference-transaction` still guards).
    pub fn not_guarded(&self, common_dir: &Path, none_open: bool) -> Vec<NotGuarded> {
        let mut out = Vec::new();
        let format = self.ref_format();
        if format != "files" {
            out.push(NotGuarded::RefFormat {
                format,
                config: common_dir.join("config"),
            });
        }
        for wt in &self.worktrees {
            for dir in &wt.dirs {
                let hooks: Vec<_> = crate::hooks::guarding(&dir.dir, &wt.root, none_open)
                    .into_iter()
                    .filter_map(|(h, on)| on.err().map(|why| (h, why)))
                    .collect();
                if !hooks.is_empty() {
                    out.push(NotGuarded::HooksOff {
                        worktree: wt.root.clone(),
                        dir: dir.clone(),
                        hooks,
                    });
                }
            }
        }
        out
    }
}

/// The worktrees other than the one at `here` whose git runs hooks from a directory where
/// loopguard's do not guard (a linked worktree's own `core.hooksPath = /dev/null`): what
/// post-commit and pre-push say, since commits and pushes made there pass no gate at all. One snapshot
/// of the surface (`scripts/bench-surface.sh` measures it).
pub fn unguarded_elsewhere(place: &Place, here: &Path, none_open: bool) -> Vec<NotGuarded> {
    let canonical = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_owned());
    let here = canonical(here);
    Surface::snapshot(place, None)
        .not_guarded(&place.common_dir, none_open)
        .into_iter()
        .filter(
            |n| matches!(n, NotGuarded::HooksOff { worktree, .. } if canonical(worktree) != here),
        )
        .collect()
}

/// Reads the watched paths, reusing what `previous` saw where the metadata says nothing
/// changed.
struct Reader<'p> {
    previous: Option<&'p Surface>,
    items: Vec<Item>,
}

impl Reader<'_> {
    fn look(&mut self, watched: Watched, path: PathBuf, how: Read) -> Seen {
        let stat = seen::stat(&path, how);
        let kept = self.previous.and_then(|p| {
            let i = p.items.binary_search_by(|i| i.watched.cmp(&watched)).ok()?;
            let old = &p.items[i];
            (old.path == path
                && stat.is_some()
                && old.stat == stat
                && stat?.settled(p.taken, RACY_SECONDS))
            .then(|| old.seen.clone())
        });
        let seen = kept.unwrap_or_else(|| seen::read(&path, how));
        self.items.push(Item {
            watched,
            path,
            seen: seen.clone(),
            stat,
        });
        seen
    }

    /// A config file and, where its keys say so, the files it includes.
    fn config(&mut self, place: &Place, scope: &Scope, path: &Path, depth: usize) {
        if self.config_seen(scope, path).is_some() {
            return;
        }
        let watched = Watched::GitConfig {
            scope: scope.clone(),
            path: path.to_owned(),
        };
        let seen = self.look(watched, path.to_owned(), Read::GitConfig);
        if depth < 10 {
            for inc in gitconfig::includes(&seen, path, &place.env) {
                self.config(place, scope, &inc.path, depth + 1);
            }
        }
    }

    fn config_seen(&self, scope: &Scope, path: &Path) -> Option<Seen> {
        self.items
            .iter()
            .find(|i| matches!(&i.watched, Watched::GitConfig { scope: s, path: p } if s == scope && p == path))
            .map(|i| i.seen.clone())
    }
}

/// The hooks directories a worktree at `root` may run, from the config `files` in git's
/// order.
fn hooks_dirs(
    reader: &Reader<'_>,
    files: &[(Scope, PathBuf)],
    root: &Path,
    common_dir: &Path,
    env: &GitEnv,
) -> Vec<HooksDir> {
    let seen = |scope: &Scope, path: &Path| reader.config_seen(scope, path);
    let sets = gitconfig::hooks_paths(files, &seen, env);
    let mut dirs: Vec<HooksDir> = Vec::new();
    let mut push = |dir: PathBuf, set: Option<HooksPathSet>| {
        if !dirs.iter().any(|d| d.dir == dir) {
            dirs.push(HooksDir { dir, set });
        }
    };
    let default = common_dir.join("hooks");
    for set in &sets {
        match gitconfig::resolve(&set.value, root, env) {
            Some(dir) => push(dir, Some(set.clone())),
            None => push(default.clone(), None),
        }
    }
    if sets.last().is_none_or(|s| s.conditional) {
        push(default, None);
    }
    dirs
}

/// The worktrees of the repository whose common dir is `common_dir`: the main one (when
/// the common dir is a `.git` directory), then the linked ones (`worktrees/<id>/gitdir`
/// names each one's `.git` file); each with its `config.worktree`.
fn worktree_list(common_dir: &Path) -> Vec<(PathBuf, PathBuf)> {
    let mut out = Vec::new();
    if common_dir.file_name().is_some_and(|n| n == ".git")
        && let Some(root) = common_dir.parent()
    {
        out.push((root.to_owned(), common_dir.join("config.worktree")));
    }
    let Ok(entries) = std::fs::read_dir(common_dir.join("worktrees")) else {
        return out;
    };
    let mut linked: Vec<(PathBuf, PathBuf)> = entries
        .filter_map(Result::ok)
        .filter_map(|e| {
            let admin = e.path();
            let gitdir = crate::safe_fs::read_bounded(
                &admin.join("gitdir"),
                4096,
                crate::safe_fs::Follow::No,
            )
            .ok()??;
            let gitdir = String::from_utf8_lossy(&gitdir).trim_end().to_owned();
            let root = gitconfig::lexical(&admin.join(gitdir)).parent()?.to_owned();
            Some((root, admin.join("config.worktree")))
        })
        .collect();
    linked.sort();
    out.extend(linked);
    out
}

fn now() -> (i64, i64) {
    let d = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    (d.as_secs() as i64, i64::from(d.subsec_nanos()))
}

impl fmt::Display for Change {
    /// What changed, for people: `core.hookspath in the worktree git config …: unset →
    /// /dev/null`, `the pre-commit hook in …: its content changed`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = self.watched.what();
        match (&self.before, &self.after) {
            (Seen::Keys { keys: a }, Seen::Keys { keys: b }) => {
                let names: BTreeSet<&String> = a.iter().chain(b).map(|(k, _)| k).collect();
                let shown: Vec<String> = names
                    .into_iter()
                    .filter_map(|k| {
                        let of = |keys: &[(String, String)]| -> Vec<String> {
                            keys.iter()
                                .filter(|(x, _)| x == k)
                                .map(|(_, v)| v.clone())
                                .collect()
                        };
                        let (x, y) = (of(a), of(b));
                        (x != y).then(|| format!("{k} {} → {}", values_shown(&x), values_shown(&y)))
                    })
                    .collect();
                write!(f, "{what}: {}", shown.join(", "))
            }
            (Seen::Names { names: a }, Seen::Names { names: b }) => {
                let gone: Vec<&str> = a
                    .iter()
                    .filter(|n| !b.contains(n))
                    .map(String::as_str)
                    .collect();
                let new: Vec<&str> = b
                    .iter()
                    .filter(|n| !a.contains(n))
                    .map(String::as_str)
                    .collect();
                let mut parts = Vec::new();
                if !gone.is_empty() {
                    parts.push(format!("{} gone", gone.join(", ")));
                }
                if !new.is_empty() {
                    parts.push(format!("{} new", new.join(", ")));
                }
                write!(f, "{what}: {}", parts.join("; "))
            }
            (
                Seen::File {
                    sha256: x,
                    executable: ex,
                },
                Seen::File {
                    sha256: y,
                    executable: ey,
                },
            ) => {
                let mut parts = Vec::new();
                if x != y {
                    parts.push("its content changed");
                }
                if ex != ey {
                    parts.push(if *ey {
                        "made executable"
                    } else {
                        "no longer executable"
                    });
                }
                write!(f, "{what}: {}", parts.join(", "))
            }
            (Seen::Absent, after) => write!(f, "{what}: created ({})", after.word()),
            (_, Seen::Absent) => write!(f, "{what}: removed"),
            (before, after) => write!(f, "{what}: {} → {}", before.word(), after.word()),
        }
    }
}

fn values_shown(values: &[String]) -> String {
    match values {
        [] => "unset".to_owned(),
        [one] => one.clone(),
        many => format!("[{}]", many.join(", ")),
    }
}

impl fmt::Display for NotGuarded {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NotGuarded::RefFormat { format, config } => write!(
                f,
                "this repository keeps its refs as {format} (extensions.refStorage in {}), which loopguard cannot read: every gate refuses",
                config.display()
            ),
            NotGuarded::HooksOff {
                worktree,
                dir,
                hooks,
            } => {
                let names: Vec<&str> = hooks.iter().map(|(h, _)| *h).collect();
                write!(
                    f,
                    "the worktree {} runs its hooks from {}",
                    worktree.display(),
                    dir.dir.display()
                )?;
                if let Some(set) = &dir.set {
                    write!(
                        f,
                        " (core.hooksPath = {} in the {} git config {}{})",
                        set.value,
                        set.scope,
                        set.file.display(),
                        if set.conditional {
                            ", by an includeIf loopguard takes as applying"
                        } else {
                            ""
                        }
                    )?;
                }
                write!(
                    f,
                    ", where {} {} not run loopguard",
                    names.join(", "),
                    if names.len() == 1 { "does" } else { "do" }
                )
            }
        }
    }
}

#[cfg(test)]
mod tests;
