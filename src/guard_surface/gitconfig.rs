//! The git config that decides which hooks run: every file git reads, in its scopes
//! (system, global, local, each worktree's `config.worktree`) and the files they include,
//! the keys of each that matter (`core.hooksPath`, `include.path`, `includeIf.*.path`, the
//! `extensions`), and from them where each worktree's hooks are.

use std::path::{Component, Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::seen::Seen;
use crate::settings::GitEnv;

/// How deep includes are followed (git's own limit).
const MAX_INCLUDE_DEPTH: usize = 10;

/// Which of git's config scopes a file belongs to.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(tag = "scope", rename_all = "snake_case")]
pub enum Scope {
    /// The installation's (`/etc/gitconfig`, `<prefix>/etc/gitconfig`, `GIT_CONFIG_SYSTEM`).
    System,
    /// The user's (`~/.gitconfig`, `$XDG_CONFIG_HOME/git/config`, `GIT_CONFIG_GLOBAL`).
    Global,
    /// The repository's (`<common dir>/config`), shared by its worktrees.
    Local,
    /// One worktree's own (`config.worktree`, read with `extensions.worktreeConfig`).
    Worktree { worktree: PathBuf },
}

impl std::fmt::Display for Scope {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Scope::System => f.write_str("system"),
            Scope::Global => f.write_str("global"),
            Scope::Local => f.write_str("local"),
            Scope::Worktree { worktree } => write!(f, "worktree {}", worktree.display()),
        }
    }
}

/// The keys of a config file that decide which hooks run, in order ([`Seen::Keys`]); a
/// file git cannot parse is [`Seen::Unreadable`] (git itself then stops at it).
pub(super) fn keys_of(bytes: &[u8]) -> Seen {
    use gix::bstr::ByteSlice;
    let options = gix::config::file::init::Options {
        lossy: true,
        ..Default::default()
    };
    let meta = gix::config::file::Metadata::from(gix::config::Source::Local);
    let file = match gix::config::File::from_bytes_no_includes(bytes, meta, options) {
        Ok(f) => f,
        Err(e) => {
            return Seen::Unreadable {
                why: format!("not a git config git can read: {e}"),
            };
        }
    };
    let mut keys = Vec::new();
    for section in file.sections() {
        let header = section.header();
        let name = header.name().to_str_lossy().to_ascii_lowercase();
        let sub = header
            .subsection_name()
            .map(|s| s.to_str_lossy().into_owned());
        for (key, value) in section.body() {
            let key = key.to_ascii_lowercase();
            if !matters(&name, sub.as_deref(), &key) {
                continue;
            }
            let full = match &sub {
                Some(sub) => format!("{name}.{sub}.{key}"),
                None => format!("{name}.{key}"),
            };
            keys.push((full, value.to_str_lossy().into_owned()));
        }
    }
    Seen::Keys { keys }
}

/// Whether `section.[sub.]key` (section and key in lower case) changes which hooks run.
fn matters(section: &str, sub: Option<&str>, key: &str) -> bool {
    match (section, sub, key) {
        ("core", None, "hookspath")
        | ("include", None, "path")
        | ("includeif", Some(_), "path") => true,
        ("extensions", None, k) => matches!(k, "worktreeconfig" | "refstorage" | "objectformat"),
        _ => false,
    }
}

/// The values of `key` in a file's keys, in order.
pub(super) fn values<'a>(seen: &'a Seen, key: &'a str) -> impl Iterator<Item = &'a str> + 'a {
    let keys: &[(String, String)] = match seen {
        Seen::Keys { keys } => keys,
        _ => &[],
    };
    keys.iter()
        .filter(move |(k, _)| k == key)
        .map(|(_, v)| v.as_str())
}

/// The config files git reads first in each scope but the worktrees', in its order: the
/// system's (unless `GIT_CONFIG_NOSYSTEM`), the user's.
pub(super) fn outer_files(env: &GitEnv) -> Vec<(Scope, PathBuf)> {
    let mut files = Vec::new();
    if !env.no_system {
        match &env.config_system {
            Some(path) => files.push((Scope::System, path.clone())),
            None => files.extend(system_files(env).into_iter().map(|p| (Scope::System, p))),
        }
    }
    match &env.config_global {
        Some(path) => files.push((Scope::Global, path.clone())),
        None => {
            let xdg = env
                .xdg_config_home
                .clone()
                .or_else(|| env.home.as_ref().map(|h| h.join(".config")));
            if let Some(xdg) = xdg {
                files.push((Scope::Global, xdg.join("git/config")));
            }
            if let Some(home) = &env.home {
                files.push((Scope::Global, home.join(".gitconfig")));
            }
        }
    }
    files
}

/// The system config of every git that may run the hooks: `/etc/gitconfig` (a
/// distribution's git) and `<prefix>/etc/gitconfig` of the first `git` on `PATH` (one
/// installed under `/usr/local`, say), since which of them runs is the caller's choice.
fn system_files(env: &GitEnv) -> Vec<PathBuf> {
    let mut files = vec![PathBuf::from("/etc/gitconfig")];
    let git = env.path.as_deref().and_then(|path| {
        std::env::split_paths(path)
            .map(|dir| dir.join("git"))
            .find(|git| git.is_file())
    });
    if let Some(bin) = git.as_deref().and_then(Path::parent) {
        // `<prefix>/bin/git`, or git's exec dir `<prefix>/libexec/git-core/git`.
        let prefix = if bin.ends_with("libexec/git-core") {
            bin.parent().and_then(Path::parent)
        } else {
            bin.parent()
        };
        if let Some(prefix) = prefix
            && prefix != Path::new("/usr")
            && prefix != Path::new("/")
        {
            let file = prefix.join("etc/gitconfig");
            if !files.contains(&file) {
                files.push(file);
            }
        }
    }
    files
}

/// A file an `include.path` or `includeIf.<condition>.path` names: relative to the file
/// that names it, `~/` from `HOME`. `conditional`: an `includeIf`, whose condition
/// loopguard does not evaluate (it takes the include as applying wherever that matters).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Include {
    pub path: PathBuf,
    pub conditional: bool,
}

/// The includes of a file's keys, in order. An `includeIf` whose condition git does not
/// know never applies and is left out.
pub(super) fn includes(seen: &Seen, file: &Path, env: &GitEnv) -> Vec<Include> {
    let Seen::Keys { keys } = seen else {
        return Vec::new();
    };
    keys.iter()
        .filter_map(|(key, value)| {
            let conditional = if key == "include.path" {
                false
            } else {
                let condition = key.strip_prefix("includeif.")?.strip_suffix(".path")?;
                let known = ["gitdir:", "gitdir/i:", "onbranch:", "hasconfig:"];
                if !known.iter().any(|k| condition.starts_with(k)) {
                    return None;
                }
                true
            };
            let path = resolve(value, file.parent()?, env)?;
            Some(Include { path, conditional })
        })
        .collect()
}

/// A path as git resolves a config value: `~/` from `HOME`, relative from `base`.
pub(super) fn resolve(value: &str, base: &Path, env: &GitEnv) -> Option<PathBuf> {
    if value.is_empty() {
        return None;
    }
    let path = match value.strip_prefix("~/") {
        Some(rest) => env.home.as_ref()?.join(rest),
        None if value == "~" => env.home.clone()?,
        None => PathBuf::from(value),
    };
    Some(lexical(&base.join(path)))
}

/// `path` with `.` and `..` resolved lexically.
pub(super) fn lexical(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// Where `core.hooksPath` was last set, as git reads the files: the value, the file and
/// scope, and whether a conditional include brought it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HooksPathSet {
    pub value: String,
    pub scope: Scope,
    pub file: PathBuf,
    pub conditional: bool,
}

/// Every `core.hooksPath` that may be the one in force, last first: the files of
/// `roots` in order, each with its includes expanded where they stand (to
/// [`MAX_INCLUDE_DEPTH`]), read through `seen`. The last unconditional value ends the
/// list: values before it are overridden. A list that ends with a conditional one may
/// also fall back to git's default (see [`super::HooksDir`]).
pub(super) fn hooks_paths(
    roots: &[(Scope, PathBuf)],
    seen: &dyn Fn(&Scope, &Path) -> Option<Seen>,
    env: &GitEnv,
) -> Vec<HooksPathSet> {
    let mut all = Vec::new();
    for (scope, file) in roots {
        collect(scope, file, false, 0, seen, env, &mut all);
    }
    let mut last = Vec::new();
    for set in all.into_iter().rev() {
        let done = !set.conditional;
        last.push(set);
        if done {
            break;
        }
    }
    last
}

fn collect(
    scope: &Scope,
    file: &Path,
    conditional: bool,
    depth: usize,
    seen: &dyn Fn(&Scope, &Path) -> Option<Seen>,
    env: &GitEnv,
    out: &mut Vec<HooksPathSet>,
) {
    let Some(Seen::Keys { keys }) = seen(scope, file) else {
        return;
    };
    for (key, value) in &keys {
        if key == "core.hookspath" {
            out.push(HooksPathSet {
                value: value.clone(),
                scope: scope.clone(),
                file: file.to_owned(),
                conditional,
            });
        } else if depth < MAX_INCLUDE_DEPTH {
            let one = Seen::Keys {
                keys: vec![(key.clone(), value.clone())],
            };
            for inc in includes(&one, file, env) {
                let cond = conditional || inc.conditional;
                collect(scope, &inc.path, cond, depth + 1, seen, env, out);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(text: &str) -> Vec<(String, String)> {
        match keys_of(text.as_bytes()) {
            Seen::Keys { keys } => keys,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn only_the_keys_that_move_hooks_are_kept_whatever_their_case() {
        let k = keys(
            "[user]\n\tname = A\n[CORE]\n\tHOOKSPATH = /dev/null\n\tbare = false\n\
             [include]\n\tpath = other.inc\n[includeIf \"gitdir:~/w/\"]\n\tpath = ~/w.inc\n\
             [Extensions]\n\tworktreeConfig = true\n\trefStorage = reftable\n[remote \"o\"]\n\turl = x\n",
        );
        assert_eq!(
            k,
            [
                ("core.hookspath", "/dev/null"),
                ("include.path", "other.inc"),
                ("includeif.gitdir:~/w/.path", "~/w.inc"),
                ("extensions.worktreeconfig", "true"),
                ("extensions.refstorage", "reftable"),
            ]
            .map(|(a, b)| (a.to_owned(), b.to_owned()))
        );
        assert!(matches!(keys_of(b"[core\n"), Seen::Unreadable { .. }));
    }

    #[test]
    fn the_last_unconditional_hooks_path_wins_and_conditional_ones_after_it_may() {
        let env = GitEnv {
            home: Some(PathBuf::from("/home/a")),
            ..GitEnv::default()
        };
        let files = |scope: &Scope, path: &Path| -> Option<Seen> {
            let text = match (scope, path.to_str()?) {
                (Scope::Global, "/home/a/.gitconfig") => {
                    "[core]\nhooksPath = ~/hooks\n[includeIf \"onbranch:x\"]\npath = ~/cond.inc\n"
                }
                (Scope::Global, "/home/a/cond.inc") => "[core]\nhooksPath = /dev/null\n",
                (Scope::Local, "/r/.git/config") => "[include]\npath = ../local.inc\n",
                (Scope::Local, "/r/local.inc") => "[core]\nhooksPath = .githooks\n",
                _ => return None,
            };
            Some(keys_of(text.as_bytes()))
        };
        let global = [(Scope::Global, PathBuf::from("/home/a/.gitconfig"))];
        let sets = hooks_paths(&global, &files, &env);
        let shown: Vec<_> = sets
            .iter()
            .map(|s| (s.value.as_str(), s.conditional))
            .collect();
        assert_eq!(shown, [("/dev/null", true), ("~/hooks", false)]);
        let both = [
            global[0].clone(),
            (Scope::Local, PathBuf::from("/r/.git/config")),
        ];
        let sets = hooks_paths(&both, &files, &env);
        assert_eq!(sets.len(), 1);
        assert_eq!(sets[0].value, ".githooks");
        assert_eq!(sets[0].file, Path::new("/r/local.inc"));
    }
}
