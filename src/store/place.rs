//! Where the coding agents' sessions are kept: under the user's state directory
//! (`$XDG_STATE_HOME/loopguard/repositories/<name>-<digest>/sessions/`, by default under
//! `~/.local/state`), one directory per repository, keyed by its git common directory.
//!
//! Not in the repository: a search the agent runs over it (`grep -r`, `grep -rh`, `find
//! .`, `ls -R`) would read what the hooks write after each call (the calls, their
//! commands, the warnings) and never give the same result twice, so a research loop would
//! never be the same search (issue 25, item 6). Without a state directory (no `HOME`), the
//! sessions stay in `<git common dir>/loopguard/sessions/`, as before.

use std::path::{Path, PathBuf};

/// The sessions' directory of the repository whose git common directory is `common_dir`.
pub fn sessions_dir(state_home: Option<&Path>, common_dir: &Path) -> PathBuf {
    let Some(home) = state_home else {
        return common_dir.join("loopguard").join("sessions");
    };
    let canonical = std::fs::canonicalize(common_dir).unwrap_or_else(|_| common_dir.to_owned());
    home.join("loopguard")
        .join("repositories")
        .join(repository_key(&canonical))
        .join("sessions")
}

/// `<name>-<digest>`: the repository's directory name (the one holding `.git`), readable,
/// and 16 hex digits of the SHA-256 of the common directory's path, unique.
fn repository_key(common: &Path) -> String {
    let named = if common.file_name().is_some_and(|n| n == ".git") {
        common.parent().unwrap_or(common)
    } else {
        common
    };
    let name: String = named
        .file_name()
        .map(|n| n.to_string_lossy())
        .unwrap_or_default()
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '-'
            }
        })
        .take(40)
        .collect();
    use sha2::Digest as _;
    let digest: String = sha2::Sha256::digest(common.as_os_str().as_encoded_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    format!("{}-{}", name.trim_start_matches('.'), &digest[..16])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_repository_has_its_own_directory_out_of_it() {
        let home = Path::new("/home/u/.local/state");
        let a = sessions_dir(Some(home), Path::new("/src/My Project/.git"));
        let b = sessions_dir(Some(home), Path::new("/work/My Project/.git"));
        assert_ne!(a, b);
        assert!(
            a.to_string_lossy()
                .starts_with("/home/u/.local/state/loopguard/repositories/My-Project-"),
            "{}",
            a.display()
        );
        assert!(a.ends_with("sessions"));
        let bare = sessions_dir(Some(home), Path::new("/srv/repo.git"));
        assert!(
            bare.to_string_lossy().contains("/repositories/repo.git-"),
            "{}",
            bare.display()
        );
        assert_eq!(
            sessions_dir(None, Path::new("/r/.git")),
            Path::new("/r/.git/loopguard/sessions")
        );
    }
}
