//! The `permissions:` entries of a workflow token that each endpoint needs, for the error a
//! 403 "Resource not accessible by integration" turns into.

use std::fmt;

/// One `permissions:` entry of a workflow job.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Permission {
    ContentsRead,
    PullRequestsRead,
    PullRequestsWrite,
    IssuesWrite,
    ActionsRead,
    /// Nothing beyond the token itself (e.g. `GET /user`).
    None,
}

impl Permission {
    /// The `key: level` line as written under `permissions:`.
    pub fn entry(self) -> &'static str {
        match self {
            Permission::ContentsRead => "contents: read",
            Permission::PullRequestsRead => "pull-requests: read",
            Permission::PullRequestsWrite => "pull-requests: write",
            Permission::IssuesWrite => "issues: write",
            Permission::ActionsRead => "actions: read",
            Permission::None => "",
        }
    }
}

impl fmt::Display for Permission {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.entry())
    }
}

/// The `permissions:` block loopguard's CI step needs, as the hint of the error.
pub fn permissions_hint(missing: Permission) -> String {
    let mut hint = String::from("grant the job the permissions loopguard needs:\n");
    hint.push_str("  permissions:\n");
    for p in [
        Permission::ContentsRead,
        Permission::PullRequestsWrite,
        Permission::IssuesWrite,
        Permission::ActionsRead,
    ] {
        hint.push_str("    ");
        hint.push_str(p.entry());
        // pull-requests: write covers the read the PR endpoints need.
        let covers = p == missing
            || (p == Permission::PullRequestsWrite && missing == Permission::PullRequestsRead);
        if covers {
            hint.push_str("   # missing");
        }
        hint.push('\n');
    }
    hint.push_str("  (for a fork PR, run loopguard from a `workflow_run` workflow: `pull_request` tokens of forks are read-only)");
    hint
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hint_marks_the_missing_entry() {
        let hint = permissions_hint(Permission::IssuesWrite);
        assert!(hint.contains("    issues: write   # missing\n"), "{hint}");
        assert!(hint.contains("    actions: read\n"), "{hint}");
        let hint = permissions_hint(Permission::PullRequestsRead);
        assert!(hint.contains("pull-requests: write   # missing"), "{hint}");
    }
}
