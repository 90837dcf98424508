//! Installing and removing the hook shims (`hooks/loopguard-shim`), never clobbering.
//!
//! A hook that was there before loopguard is moved to `<common dir>/loopguard/chained/`
//! (content, mode and symlinks kept by a rename) and the shim runs it first; `uninstall`
//! moves it back. Installing twice changes nothing.
//!
//! A hooks directory inside the working tree (`core.hooksPath=.githooks`) is never
//! written: its files are, or would be, committed, and the shim holds this machine's path to
//! loopguard. There, each hook calls loopguard by a line the user adds ([`chain_line`]),
//! which finds loopguard on `PATH` and does nothing where it is not installed.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

/// The hooks loopguard installs.
pub const HOOKS: [&str; 5] = [
    "post-commit",
    "post-rewrite",
    "pre-commit",
    "pre-push",
    "reference-transaction",
];

const SHIM_TEMPLATE: &str = include_str!("../hooks/loopguard-shim");
const MARKER: &str = "# loopguard-shim";

/// Installing or removing the hooks failed, or a hook cannot do its work.
#[derive(Debug, thiserror::Error)]
pub enum HookError {
    /// `core.hooksPath` is inside the working tree, where git would commit what loopguard
    /// writes (`why`: a hook there is tracked, or the directory is not ignored). `ours`
    /// lists tracked hooks that are loopguard's own shims from an earlier `init`.
    #[error(
        "core.hooksPath is {}, inside the working tree, and {why}: loopguard does not write its hooks there \
         (it would overwrite the team's hooks, and its own hold this machine's path to loopguard)",
        dir.display()
    )]
    InWorkTree {
        dir: PathBuf,
        why: String,
        ours: Vec<String>,
    },
    #[error("cannot install the hooks in {}", dir.display())]
    Install {
        dir: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error("cannot remove the hooks from {}", dir.display())]
    Uninstall {
        dir: PathBuf,
        #[source]
        source: io::Error,
    },
    /// git's input to the hook (`what`) could not be read.
    #[error("cannot read git's {what}: {why}")]
    InputLost { what: &'static str, why: String },
}

impl HookError {
    /// How to fix it.
    pub fn hint(&self) -> Option<String> {
        match self {
            HookError::InWorkTree { dir, ours, .. } => Some(chain_instead(dir, ours)),
            HookError::Install { .. }
            | HookError::Uninstall { .. }
            | HookError::InputLost { .. } => None,
        }
    }
}

/// What to do instead of installing into a hooks directory in the working tree: the
/// line to put in each of its hooks.
fn chain_instead(dir: &Path, ours: &[String]) -> String {
    use std::fmt::Write as _;
    let mut hint = String::from(
        "call loopguard from those hooks instead. Put this line right after the `#!` line of each \
         (create the missing ones, executable, starting with `#!/bin/sh`); it finds loopguard on PATH, does \
         nothing where loopguard is not installed, and reads git's input, so it goes before anything else \
         that does:\n",
    );
    for hook in HOOKS {
        let _ = write!(
            hint,
            "  # {}\n  {}\n",
            dir.join(hook).display(),
            chain_line(hook)
        );
    }
    hint.push_str(
        "then commit them and run `loopguard init --no-hooks` to start the run. \
         Or, with nothing tracked there, add the directory to .gitignore and run `loopguard init` again.",
    );
    if !ours.is_empty() {
        let _ = write!(
            hint,
            "\nnote: {} {} loopguard's hook shim from an earlier `loopguard init`, with a machine's path \
             in it: replace {} with the line above",
            ours.join(", "),
            if ours.len() == 1 { "is" } else { "are" },
            if ours.len() == 1 { "it" } else { "them" },
        );
    }
    hint
}

/// What happened to one hook.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HookChange {
    /// The shim was written where there was no hook.
    Installed,
    /// An existing hook was kept aside and the shim chains it.
    Chained,
    /// The shim was already there, unchanged.
    Unchanged,
    /// An older loopguard shim was replaced.
    Updated,
    /// The shim was removed; nothing had been there before.
    Removed,
    /// The shim was removed and the earlier hook put back.
    Restored,
    /// Not loopguard's hook: left alone.
    NotOurs,
    /// Nothing to do.
    Absent,
}

impl HookChange {
    pub fn describe(self) -> &'static str {
        match self {
            HookChange::Installed => "installed",
            HookChange::Chained => "installed; the existing hook still runs first",
            HookChange::Unchanged => "already installed",
            HookChange::Updated => "updated",
            HookChange::Removed => "removed",
            HookChange::Restored => "removed; the earlier hook is back",
            HookChange::NotOurs => "not loopguard's hook: left alone",
            HookChange::Absent => "not installed",
        }
    }
}

/// The shim text, pointing at the loopguard binary `exe`; `test_knobs`: a test
/// repository's, whose hooks honour the tests' knobs (`--test-knobs`).
pub fn shim(exe: &Path, test_knobs: bool) -> String {
    SHIM_TEMPLATE
        .replace("@LOOPGUARD@", &sh_quoted(&exe.to_string_lossy()))
        .replace("@TEST_KNOBS@", if test_knobs { "1" } else { "" })
}

/// `text` for inside double quotes in sh: what is special there escaped.
fn sh_quoted(text: &str) -> String {
    let mut quoted = String::new();
    for c in text.chars() {
        if matches!(c, '"' | '\\' | '$' | '`') {
            quoted.push('\\');
        }
        quoted.push(c);
    }
    quoted
}

/// The binary a shim's text points at, when it is a shim as [`shim`] writes it, for the
/// guard (not a test repository's): its text is exactly that shim's.
fn shim_target(text: &str) -> Option<PathBuf> {
    let line = text
        .lines()
        .find_map(|l| l.strip_prefix("loopguard=\""))?
        .strip_suffix('"')?;
    let mut exe = String::new();
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        exe.push(if c == '\\' { chars.next()? } else { c });
    }
    let exe = PathBuf::from(exe);
    (shim(&exe, false) == text).then_some(exe)
}

pub fn is_ours(path: &Path) -> bool {
    fs::read(path)
        .map(|b| b.windows(MARKER.len()).any(|w| w == MARKER.as_bytes()))
        .unwrap_or(false)
}

/// The line that calls loopguard from a hook loopguard does not own (a tracked
/// `.githooks/<hook>`): no machine path (loopguard is found on `PATH`), nothing done where
/// loopguard is not installed, and only its exit 1 (the breaker is open) refuses. It reads
/// git's input on stdin, so it goes first in a hook that reads it too.
pub fn chain_line(hook: &str) -> String {
    format!(
        "if command -v loopguard >/dev/null 2>&1; then loopguard hook {hook} \"$@\" || [ $? -ne 1 ] || exit 1; fi"
    )
}

fn contains(haystack: &[u8], needle: &str) -> bool {
    haystack
        .windows(needle.len())
        .any(|w| w == needle.as_bytes())
}

/// Whether the hook at `path` runs loopguard's `hook`: the shim, a hook calling
/// `loopguard hook <name>` (the [`chain_line`]), or the pre-commit framework's hook when
/// `framework_config` (`.pre-commit-config.yaml`) uses `loopguard-<name>`. `Err`: why it
/// does not guard, though it may look as if it did: git does not run a hook that is not
/// executable; a shim edited, or pointing at a binary that is not there, or honouring the
/// tests' knobs, may let anything through.
fn runs_loopguard(path: &Path, hook: &str, framework_config: Option<&[u8]>) -> Result<(), String> {
    let Ok(text) = fs::read(path) else {
        return Err("not installed".to_owned());
    };
    if contains(&text, MARKER) {
        let Some(exe) = shim_target(&String::from_utf8_lossy(&text)) else {
            return Err(if contains(&text, "test_knobs=\"1\"") {
                "honours the tests' knobs (`loopguard --test-knobs init`, a test repository)"
                    .to_owned()
            } else {
                "is not the shim `loopguard init` writes (edited?): run `loopguard init` again"
                    .to_owned()
            });
        };
        if !is_executable(&exe) {
            return Err(format!("runs {}, which is not there", exe.display()));
        }
    } else if !(contains(&text, &format!("loopguard hook {hook}"))
        || (contains(&text, "File generated by pre-commit")
            && framework_config.is_some_and(|c| contains(c, &format!("loopguard-{hook}")))))
    {
        return Err("does not run loopguard".to_owned());
    }
    if !is_executable(path) {
        return Err("is not executable: git skips it".to_owned());
    }
    Ok(())
}

/// A file git can run.
fn is_executable(path: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    }
    #[cfg(not(unix))]
    {
        path.is_file()
    }
}

fn exists(path: &Path) -> bool {
    path.symlink_metadata().is_ok()
}

/// Moves a file, across file systems too (a `core.hooksPath` may live elsewhere).
fn move_file(from: &Path, to: &Path) -> io::Result<()> {
    if let Some(dir) = to.parent() {
        fs::create_dir_all(dir)?;
    }
    match fs::rename(from, to) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::CrossesDevices => {
            fs::copy(from, to)?;
            fs::remove_file(from)
        }
        Err(e) => Err(e),
    }
}

fn write_executable(path: &Path, text: &str) -> io::Result<()> {
    crate::safe_fs::write_atomic(path, text.as_bytes(), || {})?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(path, fs::Permissions::from_mode(0o755))?;
    }
    Ok(())
}

/// Installs the shims into `hooks_dir`; earlier hooks go to `chained_dir`.
pub fn install(
    hooks_dir: &Path,
    chained_dir: &Path,
    exe: &Path,
    test_knobs: bool,
) -> io::Result<Vec<(&'static str, HookChange)>> {
    fs::create_dir_all(hooks_dir)?;
    let text = shim(exe, test_knobs);
    let mut out = Vec::new();
    for hook in HOOKS {
        let path = hooks_dir.join(hook);
        let change = if !exists(&path) {
            write_executable(&path, &text)?;
            HookChange::Installed
        } else if is_ours(&path) {
            if fs::read_to_string(&path)? == text {
                HookChange::Unchanged
            } else {
                write_executable(&path, &text)?;
                HookChange::Updated
            }
        } else {
            let keep = chained_dir.join(hook);
            if exists(&keep) {
                return Err(io::Error::new(
                    io::ErrorKind::AlreadyExists,
                    format!(
                        "{} holds a hook loopguard kept earlier, and {} is another hook now; \
                         move one of them away, then run `loopguard init` again",
                        keep.display(),
                        path.display()
                    ),
                ));
            }
            move_file(&path, &keep)?;
            write_executable(&path, &text)?;
            HookChange::Chained
        };
        out.push((hook, change));
    }
    Ok(out)
}

/// Removes the shims from `hooks_dir` and puts back what `install` kept aside.
pub fn uninstall(
    hooks_dir: &Path,
    chained_dir: &Path,
) -> io::Result<Vec<(&'static str, HookChange)>> {
    let mut out = Vec::new();
    for hook in HOOKS {
        let path = hooks_dir.join(hook);
        let keep = chained_dir.join(hook);
        let change = if exists(&path) && !is_ours(&path) {
            HookChange::NotOurs
        } else {
            let had_shim = exists(&path);
            if had_shim {
                fs::remove_file(&path)?;
            }
            if exists(&keep) {
                move_file(&keep, &path)?;
                HookChange::Restored
            } else if had_shim {
                HookChange::Removed
            } else {
                HookChange::Absent
            }
        };
        out.push((hook, change));
    }
    Ok(out)
}

/// Which hooks guard in `hooks_dir`: the shim, a hook that calls loopguard, or the
/// pre-commit framework's with loopguard in `root/.pre-commit-config.yaml`; for each that
/// does not, why ([`runs_loopguard`]).
pub fn installed(hooks_dir: &Path, root: &Path) -> Vec<(&'static str, Result<(), String>)> {
    let framework = fs::read(root.join(".pre-commit-config.yaml")).ok();
    HOOKS
        .iter()
        .map(|h| {
            (
                *h,
                runs_loopguard(&hooks_dir.join(h), h, framework.as_deref()),
            )
        })
        .collect()
}

/// [`installed`], with `reference-transaction` waiting disarmed ([`disarmed`]) counted
/// as guarding while no breaker may be open (`none_open`: no marker) and pre-commit's
/// shim guards: it is armed before a breaker can open.
pub fn guarding(
    hooks_dir: &Path,
    root: &Path,
    none_open: bool,
) -> Vec<(&'static str, Result<(), String>)> {
    let mut hooks = installed(hooks_dir, root);
    let pre_commit_guards = hooks.iter().any(|(h, on)| *h == "pre-commit" && on.is_ok());
    for (hook, on) in &mut hooks {
        if *hook == "reference-transaction"
            && on.is_err()
            && none_open
            && pre_commit_guards
            && disarmed(hooks_dir)
        {
            *on = Ok(());
        }
    }
    hooks
}

/// Arms (`true`) or disarms loopguard's `reference-transaction` shim in `hooks_dir`. git
/// runs this hook several times per commit, and it has something to do only while some
/// breaker may be open: disarmed, it is not there at all (git neither starts it nor warns
/// of a hook it skips); armed, it is the shim every other hook is (copied from
/// `pre-commit`'s). Armed before an open run can be read anywhere; disarmed once no marker
/// is left. Never disarmed where another hook runs through it (`chained_dir` holds a hook
/// that was there before loopguard), nor in a hooks directory other than the repository's
/// own (`own_dir`: a `core.hooksPath` may serve other repositories, with breakers of their
/// own). A hook that is not loopguard's shim is left alone.
pub fn arm_reference_transaction(
    hooks_dir: &Path,
    chained_dir: &Path,
    own_dir: bool,
    armed: bool,
) -> io::Result<()> {
    let path = hooks_dir.join("reference-transaction");
    let model = hooks_dir.join("pre-commit");
    if armed || !own_dir || chained_dir.join("reference-transaction").exists() {
        if !exists(&path) && is_ours(&model) {
            write_executable(&path, &fs::read_to_string(&model)?)?;
        }
        return Ok(());
    }
    if is_ours(&path) {
        fs::remove_file(&path)?;
    }
    Ok(())
}

/// Whether `reference-transaction` waits disarmed in `hooks_dir`
/// ([`arm_reference_transaction`]): not there, while the shim it would be a copy of is.
pub fn disarmed(hooks_dir: &Path) -> bool {
    !exists(&hooks_dir.join("reference-transaction")) && is_ours(&hooks_dir.join("pre-commit"))
}

/// The directory for kept-aside hooks inside the store.
pub fn chained_dir(store_dir: &Path) -> PathBuf {
    store_dir.join("chained")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shim_quotes_the_path() {
        let s = shim(Path::new("/opt/my \"tools\"/$x/loopguard"), false);
        assert!(s.contains(r#"loopguard="/opt/my \"tools\"/\$x/loopguard""#));
        assert!(
            !s.contains("LOOPGUARD_BIN"),
            "no variable points the shim elsewhere"
        );
        assert!(s.starts_with("#!/bin/sh\n"));
    }

    #[test]
    fn install_chains_and_uninstall_restores_exactly() {
        let tmp = tempfile::tempdir().unwrap();
        let hooks = tmp.path().join("hooks");
        let chained = tmp.path().join("state/chained");
        fs::create_dir_all(&hooks).unwrap();
        fs::write(hooks.join("pre-commit"), "#!/bin/sh\necho mine\n").unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            fs::set_permissions(hooks.join("pre-commit"), fs::Permissions::from_mode(0o700))
                .unwrap();
            std::os::unix::fs::symlink("/usr/share/hook", hooks.join("pre-push")).unwrap();
        }
        let exe = Path::new("/usr/local/bin/loopguard");
        let first = install(&hooks, &chained, exe, false).unwrap();
        assert_eq!(
            first,
            vec![
                ("post-commit", HookChange::Installed),
                ("post-rewrite", HookChange::Installed),
                ("pre-commit", HookChange::Chained),
                ("pre-push", HookChange::Chained),
                ("reference-transaction", HookChange::Installed),
            ]
        );
        let second = install(&hooks, &chained, exe, false).unwrap();
        assert!(second.iter().all(|(_, c)| *c == HookChange::Unchanged));
        assert_eq!(
            fs::read_to_string(chained.join("pre-commit")).unwrap(),
            "#!/bin/sh\necho mine\n"
        );

        let removed = uninstall(&hooks, &chained).unwrap();
        assert_eq!(
            removed,
            vec![
                ("post-commit", HookChange::Removed),
                ("post-rewrite", HookChange::Removed),
                ("pre-commit", HookChange::Restored),
                ("pre-push", HookChange::Restored),
                ("reference-transaction", HookChange::Removed),
            ]
        );
        assert_eq!(
            fs::read_to_string(hooks.join("pre-commit")).unwrap(),
            "#!/bin/sh\necho mine\n"
        );
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = fs::metadata(hooks.join("pre-commit"))
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o700);
            assert_eq!(
                fs::read_link(hooks.join("pre-push")).unwrap(),
                Path::new("/usr/share/hook")
            );
        }
        assert!(!hooks.join("post-commit").exists());
        let again = uninstall(&hooks, &chained).unwrap();
        assert!(again.iter().all(|(h, c)| *c == HookChange::Absent
            || (*h == "pre-commit" || *h == "pre-push") && *c == HookChange::NotOurs));
    }

    #[test]
    fn a_new_binary_path_updates_the_shim() {
        let tmp = tempfile::tempdir().unwrap();
        let (hooks, chained) = (tmp.path().join("h"), tmp.path().join("c"));
        install(&hooks, &chained, Path::new("/a/loopguard"), false).unwrap();
        let again = install(&hooks, &chained, Path::new("/b/loopguard"), false).unwrap();
        assert!(again.iter().all(|(_, c)| *c == HookChange::Updated));
    }

    #[test]
    fn installed_sees_the_shim_and_the_chain_line() {
        let tmp = tempfile::tempdir().unwrap();
        let (hooks, chained) = (tmp.path().join("h"), tmp.path().join("c"));
        let root = tmp.path();
        let exe = tmp.path().join("bin/loopguard");
        fs::create_dir_all(exe.parent().unwrap()).unwrap();
        write_executable(&exe, "#!/bin/sh\n").unwrap();
        let guards = |hook: &str| -> Result<(), String> {
            let all = installed(&hooks, root);
            all.into_iter().find(|(h, _)| *h == hook).unwrap().1
        };
        assert!(installed(&hooks, root).iter().all(|(_, on)| on.is_err()));
        install(&hooks, &chained, &exe, false).unwrap();
        assert!(installed(&hooks, root).iter().all(|(_, on)| on.is_ok()));
        fs::write(
            hooks.join("pre-push"),
            format!("#!/bin/sh\n{}\nmake lint\n", chain_line("pre-push")),
        )
        .unwrap();
        fs::write(
            hooks.join("pre-commit"),
            "#!/bin/sh\nloopguard hook pre-push\n",
        )
        .unwrap();
        assert_eq!(guards("pre-push"), Ok(()));
        assert!(guards("pre-commit").is_err());

        // The pre-commit framework's hook, with loopguard in its config.
        fs::write(
            hooks.join("pre-commit"),
            "#!/usr/bin/env bash\n# File generated by pre-commit: https://pre-commit.com\n",
        )
        .unwrap();
        assert!(guards("pre-commit").is_err());
        fs::write(
            root.join(".pre-commit-config.yaml"),
            "repos:\n- repo: https://github.com/loopguard/loopguard\n  hooks:\n  - id: loopguard-pre-commit\n",
        )
        .unwrap();
        assert_eq!(guards("pre-commit"), Ok(()));
        assert!(!chain_line("pre-push").contains("/loopguard"));
    }

    #[test]
    fn a_shim_that_cannot_guard_is_not_counted_as_guarding() {
        let tmp = tempfile::tempdir().unwrap();
        let (hooks, chained) = (tmp.path().join("h"), tmp.path().join("c"));
        let exe = tmp.path().join("bin/loopguard");
        fs::create_dir_all(exe.parent().unwrap()).unwrap();
        write_executable(&exe, "#!/bin/sh\n").unwrap();
        let why = |hook: &str| {
            let all = installed(&hooks, tmp.path());
            all.into_iter()
                .find(|(h, _)| *h == hook)
                .unwrap()
                .1
                .unwrap_err()
        };
        install(&hooks, &chained, &exe, false).unwrap();
        // Not executable: git skips it.
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            fs::set_permissions(hooks.join("pre-push"), fs::Permissions::from_mode(0o644)).unwrap();
            assert!(why("pre-push").contains("not executable"));
        }
        // Edited: an early `exit 0` lets everything through.
        let path = hooks.join("pre-commit");
        let text = fs::read_to_string(&path).unwrap();
        fs::write(&path, text.replacen("hook=", "exit 0\nhook=", 1)).unwrap();
        assert!(why("pre-commit").contains("edited"));
        // The tests' knobs, or a binary that is gone.
        install(&hooks, &chained, &exe, true).unwrap();
        assert!(why("post-commit").contains("knobs"));
        install(&hooks, &chained, &tmp.path().join("gone"), false).unwrap();
        assert!(why("post-commit").contains("not there"));
    }
}
