//! [`Repo`]: one opened repository and the questions loopguard asks it.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use gix::ObjectId;
use gix::bstr::ByteSlice;

use super::GitError;
use super::evidence::{EvidenceReader, shallow_set};
use super::range::Graph;
use crate::config::TestPaths;
use crate::iteration::{CommitId, Iteration};

/// What `HEAD` is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Head {
    /// The commit `HEAD` points at; `None` on an unborn branch (no commit yet).
    pub id: Option<CommitId>,
    /// The branch `HEAD` is on, short form (`main`), for display: a name that is not UTF-8
    /// is shown lossily; `None` when detached.
    pub branch: Option<String>,
    /// The branch's short name as git has it, every byte (what the store's keys are made
    /// of); `None` when detached.
    pub branch_name: Option<Vec<u8>>,
    pub detached: bool,
}

/// The newest entry of a reflog.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReflogEntry {
    /// The previous commit id (all zeros when the ref was created).
    pub old: CommitId,
    pub new: CommitId,
    /// What git wrote: `commit: ...`, `commit (amend): ...`, `rebase (pick): ...`,
    /// `cherry-pick: ...`, `checkout: ...`.
    pub message: String,
}

/// An opened repository. Cheap to open (a few file reads); not shared across threads (each
/// worker of [`Repo::iterations`] takes its own handle on the same object store).
pub struct Repo {
    repo: gix::Repository,
    git_dir: PathBuf,
    common_dir: PathBuf,
    workdir: Option<PathBuf>,
    shallow: HashSet<ObjectId>,
    /// What a test is, for the tests a commit takes away (`paths.tests`).
    tests: TestPaths,
}

/// Bytes of decoded objects each range reader keeps (see [`tune_for_ranges`]).
const OBJECT_CACHE_BYTES: usize = 4 << 20;
/// Bytes of delta bases each range reader keeps (see [`tune_for_ranges`]).
const PACK_CACHE_BYTES: usize = 64 << 20;
/// Most commits read to tell which ones came after a run's baseline
/// ([`Repo::first_parents_after`]): a merge can bring in many.
const BASELINE_WALK_LIMIT: usize = 100_000;

/// How every repository is opened: its history as it is, never as replace refs
/// (`refs/replace/*`, which `git replace` and `git replace --graft` write) would show it.
/// Whoever can write to the repository can write those, so a replaced commit, tree or
/// config would be work the guard never saw, judged in place of the work that is there.
/// (gix reads no `info/grafts`; the `git` that loopguard runs is told the same by
/// [`plain_history`].)
pub(super) fn open_options() -> gix::sec::trust::Mapping<gix::open::Options> {
    use gix::sec::trust::DefaultForLevel;
    let at = |level| {
        gix::open::Options::default_for_level(level).config_overrides(["core.useReplaceRefs=false"])
    };
    gix::sec::trust::Mapping {
        full: at(gix::sec::Trust::Full),
        reduced: at(gix::sec::Trust::Reduced),
    }
}

/// Tells a `git` that loopguard runs to read history as it is: no replace refs
/// (`GIT_NO_REPLACE_OBJECTS`), no grafts (`GIT_GRAFT_FILE`, empty), as loopguard's own
/// reads ([`open_options`]).
pub fn plain_history(cmd: &mut std::process::Command) -> &mut std::process::Command {
    cmd.env("GIT_NO_REPLACE_OBJECTS", "1")
        .env("GIT_GRAFT_FILE", "/dev/null")
}

/// Why a repository found at `dir` cannot be opened: git's own words when git cannot open
/// it either (`fatal: bad config line 6 in file .git/config` names the file and the line,
/// which gix's error does not), else gix's reasons, outermost first. Asked only on this
/// path.
fn cannot_open_why(dir: &Path, err: &gix::Error) -> String {
    let git = std::process::Command::new("git")
        .args(["rev-parse", "--git-dir"])
        .current_dir(dir)
        .stdin(std::process::Stdio::null())
        .output();
    if let Ok(out) = git
        && !out.status.success()
    {
        let said = String::from_utf8_lossy(&out.stderr);
        let fatal: Vec<&str> = said
            .lines()
            .filter_map(|l| l.strip_prefix("fatal: "))
            .collect();
        if !fatal.is_empty() {
            return format!("git says: {}", fatal.join("; "));
        }
    }
    let reasons: Vec<String> = err.iter_errors().map(ToString::to_string).collect();
    reasons.join(": ")
}

/// `path` made absolute, with `.` and `..` resolved lexically (gix reports a linked
/// worktree's common dir as `<git dir>/../..`).
fn absolute(path: &Path) -> PathBuf {
    use std::path::Component;
    let path = std::path::absolute(path).unwrap_or_else(|_| path.to_owned());
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

impl Repo {
    /// Opens the repository containing `dir` (searching upwards, like git). The
    /// environment (`GIT_DIR`) is not consulted; see [`Repo::discover_with_env`].
    pub fn discover(dir: &Path) -> Result<Repo, GitError> {
        let dir = absolute(dir);
        let repo = gix::ThreadSafeRepository::discover_opts(
            &dir,
            gix::discover::upwards::Options::default(),
            open_options(),
        )
        .map_err(|e| GitError::NotARepository {
            path: dir.clone(),
            reason: e.to_string(),
        })?;
        Ok(Repo::wrap(repo.into()))
    }

    /// Like [`Repo::discover`], but honours `GIT_DIR`, `GIT_WORK_TREE` and their kin as
    /// git does, which is what hooks need: git runs them with `GIT_DIR` set in linked
    /// worktrees and during rebases, and `receive-pack` (a push into this repository)
    /// runs them in the git dir with `GIT_DIR=.`. A relative `GIT_DIR` is taken from
    /// `dir`, as git takes it from its working directory (gix would take `.` for a work
    /// tree and look for `./.git`).
    pub fn discover_with_env(dir: &Path) -> Result<Repo, GitError> {
        let dir = absolute(dir);
        let not_a_repository = |reason: String| GitError::NotARepository {
            path: dir.clone(),
            reason,
        };
        // gix reads the environment itself; so does this, for the one variable it must
        // resolve first.
        let git_dir = std::env::var_os("GIT_DIR").filter(|d| !d.is_empty());
        // Found and not opened (a config gix cannot read): said as such, with gix's whole
        // chain (the file and line), not as "not a git repository".
        let failed = |e: gix::Error, found: Option<PathBuf>| match found {
            Some(git_dir) => GitError::CannotOpen {
                reason: cannot_open_why(&dir, &e),
                git_dir,
            },
            None => not_a_repository(e.to_string()),
        };
        let repo = match git_dir {
            Some(git_dir) => {
                let git_dir = absolute(&dir.join(git_dir));
                let options = open_options().into_value_by_level(gix::sec::Trust::Full);
                gix::ThreadSafeRepository::open_opts(&git_dir, options).map_err(|e| {
                    let found = git_dir.join("HEAD").is_file().then(|| git_dir.clone());
                    failed(e, found)
                })?
            }
            None => gix::ThreadSafeRepository::discover_with_environment_overrides_opts(
                &dir,
                gix::discover::upwards::Options::default(),
                open_options(),
            )
            .map_err(|e| {
                let found = gix::discover::upwards(&dir)
                    .ok()
                    .map(|(path, _)| absolute(&path.into_repository_and_work_tree_directories().0));
                failed(e, found)
            })?,
        };
        Ok(Repo::wrap(repo.into()))
    }

    fn wrap(repo: gix::Repository) -> Repo {
        let git_dir = absolute(repo.git_dir());
        let common_dir = absolute(repo.common_dir());
        let workdir = repo.workdir().map(absolute);
        let shallow = shallow_set(&repo);
        Repo {
            repo,
            git_dir,
            common_dir,
            workdir,
            shallow,
            tests: TestPaths::Discovered,
        }
    }

    /// Reads the tests commits take away with `tests` (the config's `paths.tests`) rather
    /// than each ecosystem's discovery rules.
    pub fn read_tests_as(&mut self, tests: TestPaths) {
        self.tests = tests;
    }

    /// The repository's own git directory (`.git`, or `.git/worktrees/<name>` in a linked
    /// worktree).
    pub fn git_dir(&self) -> &Path {
        &self.git_dir
    }

    /// The directory shared by all worktrees (`git rev-parse --git-common-dir`).
    pub fn common_dir(&self) -> &Path {
        &self.common_dir
    }

    /// The worktree root; `None` in a bare repository.
    pub fn workdir(&self) -> Option<&Path> {
        self.workdir.as_deref()
    }

    /// Refused when the repository keeps its refs in a format loopguard cannot read
    /// (`extensions.refStorage` other than `files`: gix reads loose and packed refs
    /// only, and would find no `HEAD`). Its objects may be SHA-1 or SHA-256.
    pub fn readable(&self) -> Result<(), GitError> {
        let config = self.repo.config_snapshot();
        let format = config
            .string("extensions.refStorage")
            .map(|f| f.to_str_lossy().to_ascii_lowercase());
        match format {
            Some(format) if format != "files" => Err(GitError::RefFormat {
                format,
                config: self.common_dir.join("config"),
            }),
            _ => Ok(()),
        }
    }

    /// Where git runs hooks from: `core.hooksPath` when set (a relative path is taken
    /// from the worktree root, or from the git dir of a bare repository, as git does; `~`
    /// is expanded), else `<common dir>/hooks`.
    pub fn hooks_dir(&self) -> PathBuf {
        let configured = self
            .repo
            .config_snapshot()
            .trusted_path("core.hooksPath")
            .ok()
            .flatten()
            .filter(|p| !p.as_os_str().is_empty());
        match configured {
            Some(path) if path.is_absolute() => absolute(&path),
            Some(path) => absolute(&self.workdir.as_deref().unwrap_or(&self.git_dir).join(path)),
            None => self.common_dir.join("hooks"),
        }
    }

    /// What `HEAD` points at.
    pub fn head(&self) -> Result<Head, GitError> {
        let head = self
            .repo
            .head()
            .map_err(|e| GitError::other("cannot read HEAD", e))?;
        let short = |name: &gix::refs::FullNameRef| -> Vec<u8> {
            let name = name.as_bstr();
            name.strip_prefix(b"refs/heads/").unwrap_or(name).to_vec()
        };
        let on = |id: Option<CommitId>, name: Vec<u8>| Head {
            id,
            branch: Some(name.to_str_lossy().into_owned()),
            branch_name: Some(name),
            detached: false,
        };
        Ok(match head.kind {
            gix::head::Kind::Symbolic(r) => on(
                r.target.try_id().map(|id| cid(&id.to_owned())),
                short(r.name.as_ref()),
            ),
            gix::head::Kind::Unborn(name) => on(None, short(name.as_ref())),
            gix::head::Kind::Detached { target, peeled } => Head {
                id: Some(cid(&peeled.unwrap_or(target))),
                branch: None,
                branch_name: None,
                detached: true,
            },
        })
    }

    /// The commit branch `name` (its bytes after `refs/heads/`, which need not be UTF-8)
    /// points at; `None` when there is no such branch.
    pub fn branch_tip(&self, name: &[u8]) -> Result<Option<CommitId>, GitError> {
        let mut full = b"refs/heads/".to_vec();
        full.extend_from_slice(name);
        let full = gix::bstr::BString::from(full);
        let Ok(partial) = <&gix::refs::PartialNameRef>::try_from(full.as_bstr()) else {
            return Ok(None);
        };
        let found = self
            .repo
            .try_find_reference(partial)
            .map_err(|e| GitError::other("cannot read the branch", e))?;
        let Some(mut reference) = found else {
            return Ok(None);
        };
        let id = reference
            .peel_to_id()
            .map_err(|e| GitError::other("cannot read the branch", e))?;
        Ok(Some(cid(&id.detach())))
    }

    /// Whether history is cut short (a `--depth` clone).
    pub fn is_shallow(&self) -> bool {
        !self.shallow.is_empty()
    }

    /// Whether `hex` names an object this repository has (of any kind).
    pub fn has_object(&self, hex: &str) -> bool {
        ObjectId::from_hex(hex.as_bytes()).is_ok_and(|id| self.repo.has_object(id))
    }

    /// The commit `rev` names (tags peeled), as a full hex id.
    pub fn resolve(&self, rev: &str) -> Result<CommitId, GitError> {
        Ok(cid(&self.commit_id(rev)?))
    }

    pub(crate) fn commit_id(&self, rev: &str) -> Result<ObjectId, GitError> {
        if let Ok(id) = ObjectId::from_hex(rev.as_bytes())
            && self.repo.has_object(id)
        {
            return self.peel_to_commit(rev, id);
        }
        let id = self
            .repo
            .rev_parse_single(rev)
            .map_err(|e| self.rev_error(rev, e))?;
        self.peel_to_commit(rev, id.detach())
    }

    fn rev_error(&self, rev: &str, err: impl std::fmt::Display) -> GitError {
        if matches!(self.head(), Ok(Head { id: None, .. })) {
            return GitError::BadRevision {
                rev: rev.to_owned(),
                reason: "the current branch has no commits yet".to_owned(),
                hint: "make a first commit, then run this again",
            };
        }
        GitError::bad_rev(rev, err)
    }

    fn peel_to_commit(&self, rev: &str, id: ObjectId) -> Result<ObjectId, GitError> {
        let object = self
            .repo
            .find_object(id)
            .map_err(|e| GitError::bad_rev(rev, e))?;
        let commit = object
            .peel_to_commit()
            .map_err(|_| GitError::bad_rev(rev, "it does not name a commit"))?;
        Ok(commit.id)
    }

    /// The commits of a range, oldest first, in the order of `git rev-list --reverse
    /// --topo-order`: `A..B` (reachable from B, not from A), `B` (all of B's history),
    /// `A...B` (reachable from one side only), `B^!` (B alone), `B^@` (B's parents'
    /// history). A shallow boundary ends the range without error.
    pub fn rev_range(&self, spec: &str) -> Result<Vec<CommitId>, GitError> {
        let mut graph = Graph::new(&self.repo, &self.shallow);
        let ids = self.rev_range_ids(&mut graph, spec)?;
        Ok(ids.iter().map(cid).collect())
    }

    /// The commits of a range on its own first-parent line, oldest first: [`Repo::rev_range`]
    /// without the commits a merge brought in (see
    /// [`loopguard_core::first_parent::on_line`]).
    pub fn rev_range_line(&self, spec: &str) -> Result<Vec<CommitId>, GitError> {
        // One graph for the walk and the line: the parents are read once.
        let mut graph = Graph::new(&self.repo, &self.shallow);
        let ids = self.rev_range_ids(&mut graph, spec)?;
        line_of_ids(&mut graph, ids)
    }

    /// The commits of a range, oldest first, walked in `graph` (which keeps them).
    fn rev_range_ids(&self, graph: &mut Graph<'_>, spec: &str) -> Result<Vec<ObjectId>, GitError> {
        use gix::revision::plumbing::Spec;
        let parsed = self
            .repo
            .rev_parse(spec)
            .map_err(|e| self.rev_error(spec, e))?
            .detach();
        let commit = |id: ObjectId| self.peel_to_commit(spec, id);
        let walk_order = match parsed {
            Spec::Include(to) => graph.reachable(&[commit(to)?], &[])?,
            Spec::Exclude(_) => Vec::new(),
            Spec::Range { from, to } => graph.reachable(&[commit(to)?], &[commit(from)?])?,
            Spec::Merge { theirs, ours } => {
                let (a, b) = (commit(theirs)?, commit(ours)?);
                let left = graph.reachable(&[a], &[b])?;
                let right = graph.reachable(&[b], &[a])?;
                graph.merge_by_time(left, right)
            }
            Spec::ExcludeParents(id) => graph.single(commit(id)?)?,
            Spec::IncludeOnlyParents(id) => {
                let id = commit(id)?;
                let parents = graph.parents_of(id)?;
                graph.reachable(&parents, &[])?
            }
        };
        Ok(graph.topo_oldest_first(&walk_order))
    }

    /// The commits of the branch at `tip`: reachable from `tip` and from no other local
    /// branch or remote-tracking ref, oldest first (topological), at most the `limit`
    /// newest.
    ///
    /// "Other" leaves out the refs that are this branch's own line: `refs/heads/<branch>`,
    /// its configured upstream, every `refs/remotes/*/<branch>` (the branch pushed to any
    /// remote), symbolic refs (`origin/HEAD`), and any ref pointing at `tip` itself (a
    /// copy of the branch, which would otherwise hide all of it). A ref pointing at an
    /// ancestor of `tip` (the base branch, not moved since) still bounds the run. With
    /// `branch` `None` (detached HEAD) only the last rule applies.
    pub fn branch_commits(
        &self,
        tip: impl AsRef<str>,
        branch: Option<&str>,
        limit: usize,
    ) -> Result<Vec<CommitId>, GitError> {
        let tip = self.commit_id(tip.as_ref())?;
        let others = self.other_branch_tips(tip, branch)?;
        let mut graph = Graph::new(&self.repo, &self.shallow);
        let walk_order = graph.reachable(&[tip], &others)?;
        let ordered = graph.topo_oldest_first(&walk_order);
        let line = line_of_ids(&mut graph, ordered)?;
        let skip = line.len().saturating_sub(limit);
        Ok(line[skip..].to_vec())
    }

    fn other_branch_tips(
        &self,
        tip: ObjectId,
        branch: Option<&str>,
    ) -> Result<Vec<ObjectId>, GitError> {
        let own = branch.map(|b| format!("refs/heads/{b}"));
        let own_remote_suffix = branch.map(|b| format!("/{b}"));
        let upstream = own.as_deref().and_then(|name| {
            let name: &gix::refs::FullNameRef = name.try_into().ok()?;
            self.repo
                .branch_remote_tracking_ref_name(name, gix::remote::Direction::Fetch)?
                .ok()
                .map(|n| n.as_bstr().to_str_lossy().into_owned())
        });
        let platform = self
            .repo
            .references()
            .map_err(|e| GitError::other("cannot list references", e))?;
        let iter = platform
            .all()
            .map_err(|e| GitError::other("cannot list references", e))?;
        let mut tips = Vec::new();
        for reference in iter {
            let Ok(mut reference) = reference else {
                continue;
            };
            let name = reference.name().as_bstr().to_str_lossy().into_owned();
            let is_remote = name.starts_with("refs/remotes/");
            if !(name.starts_with("refs/heads/") || is_remote) {
                continue;
            }
            if reference.target().try_id().is_none() {
                continue;
            }
            if Some(&name) == own.as_ref() || Some(&name) == upstream.as_ref() {
                continue;
            }
            if is_remote
                && let Some(suffix) = &own_remote_suffix
                && name["refs/remotes/".len()..]
                    .split_once('/')
                    .is_some_and(|(_, rest)| format!("/{rest}") == *suffix)
            {
                continue;
            }
            let Ok(id) = reference.peel_to_id() else {
                continue;
            };
            let id = id.detach();
            if id != tip
                && let Ok(commit) = self.peel_to_commit(&name, id)
            {
                tips.push(commit);
            }
        }
        tips.sort();
        tips.dedup();
        Ok(tips)
    }

    /// Whether `ancestor` is `descendant` or one of its ancestors (`git merge-base
    /// --is-ancestor`).
    pub fn is_ancestor(&self, ancestor: &str, descendant: &str) -> Result<bool, GitError> {
        let (a, d) = (self.commit_id(ancestor)?, self.commit_id(descendant)?);
        if a == d {
            return Ok(true);
        }
        // What `ancestor` reaches and `descendant` does not: nothing when it is an ancestor.
        let mut graph = Graph::new(&self.repo, &self.shallow);
        Ok(graph.reachable(&[a], &[d])?.is_empty())
    }

    /// The commits reachable from `tip` and from none of `known`, each with its parents,
    /// newest first in walk order: what moving a ref to `tip` brings that none of `known`
    /// already has. Ids in `known` that are not in the repository are left out. Reads at
    /// most `limit` commits, else [`GitError::TooManyCommits`]. Whatever the commit dates
    /// say, every commit `tip` reaches past `known` is in the answer: a walk stops only when
    /// nothing it wants is left to read (dates only make it read more).
    pub fn new_commits(
        &self,
        tip: &CommitId,
        known: &[CommitId],
        limit: usize,
    ) -> Result<Vec<(CommitId, Vec<CommitId>)>, GitError> {
        let tip = self.commit_id(tip.as_str())?;
        let known: Vec<ObjectId> = known
            .iter()
            .filter_map(|id| ObjectId::from_hex(id.as_str().as_bytes()).ok())
            .filter(|id| self.repo.has_object(*id))
            .collect();
        let mut graph = Graph::new(&self.repo, &self.shallow).with_limit(limit);
        let found = graph.reachable(&[tip], &known)?;
        found
            .into_iter()
            .map(|id| Ok((cid(&id), graph.parents_of(id)?.iter().map(cid).collect())))
            .collect()
    }

    /// The commits from `from` back along first parents, newest first, up to the first
    /// that `known` knows or that existed at `baseline` (left out), at most `limit`; and
    /// whether the walk ended at one of those (`false`: at the limit, or at the root while
    /// there is a baseline).
    ///
    /// The baseline is what a run started from (`init`, `reset`): it and every commit it
    /// reaches are history, never attempts, whatever leads back to them (a reset past the
    /// start, a branch cut from an older commit). Without one (a run that began before the
    /// first commit) the root ends the walk, reached. What the baseline reaches is told by
    /// one walk of the commits `from` reaches and it does not (dates bound it, as for
    /// `A..B`), read when the first unknown commit is met: a walk that meets a known
    /// commit at once reads nothing. Past [`BASELINE_WALK_LIMIT`] commits (or a baseline
    /// no longer in the repository) the baseline is not told and only `known` and the
    /// limit end the walk.
    pub fn first_parents_after(
        &self,
        baseline: Option<&CommitId>,
        from: Option<CommitId>,
        limit: usize,
        known: impl Fn(&CommitId) -> bool,
    ) -> Result<(Vec<CommitId>, bool), GitError> {
        let mut chain = Vec::new();
        // The commits past the baseline, once needed; `None` inside: not told.
        let mut since: Option<Option<HashSet<CommitId>>> = None;
        let mut next = from;
        let reached = loop {
            let Some(id) = next.take() else {
                break baseline.is_none();
            };
            if known(&id) {
                break true;
            }
            if let Some(base) = baseline {
                if since.is_none() {
                    since = Some(self.commits_past(base, &id)?);
                }
                if let Some(Some(past)) = &since
                    && !past.contains(&id)
                {
                    break true;
                }
            }
            if chain.len() == limit {
                break false;
            }
            // A missing commit or a shallow boundary ends the walk, as in git.
            next = self
                .parents(id.as_str())
                .ok()
                .and_then(|p| p.into_iter().next());
            chain.push(id);
        };
        Ok((chain, reached))
    }

    /// The commits `tip` reaches and `baseline` does not; `None` when `baseline` is not in
    /// the repository or the walk would read more than [`BASELINE_WALK_LIMIT`] commits.
    fn commits_past(
        &self,
        baseline: &CommitId,
        tip: &CommitId,
    ) -> Result<Option<HashSet<CommitId>>, GitError> {
        if !self.has_object(baseline.as_str()) {
            return Ok(None);
        }
        match self.new_commits(tip, std::slice::from_ref(baseline), BASELINE_WALK_LIMIT) {
            Ok(found) => Ok(Some(found.into_iter().map(|(id, _)| id).collect())),
            Err(GitError::TooManyCommits { .. }) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// What commit `rev` says of itself, without reading its change: author, tree,
    /// parents, message (bounded), time. For telling whose a commit is.
    pub fn commit_header(&self, rev: impl AsRef<str>) -> Result<Iteration, GitError> {
        let id = self.commit_id(rev.as_ref())?;
        EvidenceReader::new(&self.repo, &self.shallow, &self.tests).header(id)
    }

    /// The parents of commit `rev`, first parent first (cheap: reads one commit, no diff).
    pub fn parents(&self, rev: impl AsRef<str>) -> Result<Vec<CommitId>, GitError> {
        let id = self.commit_id(rev.as_ref())?;
        let commit = self
            .repo
            .find_commit(id)
            .map_err(|e| GitError::other(format!("cannot read commit {id}"), e))?;
        Ok(commit.parent_ids().map(|p| cid(&p.detach())).collect())
    }

    /// The evidence of commit `id` (any revision) against its first parent.
    pub fn iteration(&self, rev: impl AsRef<str>) -> Result<Iteration, GitError> {
        let id = self.commit_id(rev.as_ref())?;
        EvidenceReader::new(&self.repo, &self.shallow, &self.tests).iteration(id)
    }

    /// The evidence of a change no commit holds, from `it`'s `parent_tree` to its `tree`
    /// (a working-tree state): files and their lines, patch id, added test skips, whether
    /// it is whitespace only — what a commit of that tree would carry.
    pub fn describe_tree_change(&self, it: &mut Iteration) -> Result<(), GitError> {
        EvidenceReader::new(&self.repo, &self.shallow, &self.tests).tree_change(it)
    }

    /// The evidence of many commits, in the given order. Runs on up to four threads when
    /// there are enough commits to pay for them; each thread reads a contiguous slice, so
    /// consecutive commits share its caches.
    pub fn iterations<S: AsRef<str>>(&self, ids: &[S]) -> Result<Vec<Iteration>, GitError> {
        let ids: Vec<ObjectId> = ids
            .iter()
            .map(|id| self.commit_id(id.as_ref()))
            .collect::<Result<_, _>>()?;
        const MIN_PER_THREAD: usize = 32;
        let threads = std::thread::available_parallelism()
            .map_or(1, std::num::NonZero::get)
            .min(4)
            .min(ids.len() / MIN_PER_THREAD)
            .max(1);
        let (shallow, tests) = (&self.shallow, &self.tests);
        let read = |repo: &gix::Repository, ids: &[ObjectId]| {
            let mut reader = EvidenceReader::new(repo, shallow, tests);
            ids.iter()
                .map(|id| reader.iteration(*id))
                .collect::<Result<Vec<_>, _>>()
        };
        if threads == 1 {
            let mut repo = self.repo.clone();
            tune_for_ranges(&mut repo);
            return read(&repo, &ids);
        }
        let chunk = ids.len().div_ceil(threads);
        std::thread::scope(|scope| {
            let workers: Vec<_> = ids
                .chunks(chunk)
                .map(|slice| {
                    let mut repo = self.repo.clone();
                    scope.spawn(move || {
                        tune_for_ranges(&mut repo);
                        read(&repo, slice)
                    })
                })
                .collect();
            let mut out = Vec::with_capacity(ids.len());
            for worker in workers {
                out.extend(worker.join().expect("evidence workers do not panic")?);
            }
            Ok(out)
        })
    }

    /// The content of `path` (slash-separated, from the repository root) at commit `rev`;
    /// `None` when the path does not exist there or is not a file. It reads configs: a blob
    /// larger than a config may be (`MAX_CONFIG_BYTES`) is refused from its header, never
    /// loaded.
    pub fn blob_at(&self, rev: &str, path: &str) -> Result<Option<Vec<u8>>, GitError> {
        let entry = self
            .tree_of(rev)?
            .lookup_entry_by_path(path)
            .map_err(|e| GitError::other(format!("cannot look up {path} at {rev}"), e))?;
        let Some(entry) = entry else {
            return Ok(None);
        };
        if !entry.mode().is_blob() {
            return Ok(None);
        }
        let max = loopguard_core::config::MAX_CONFIG_BYTES as u64;
        let size = self
            .repo
            .find_header(entry.oid())
            .map_err(|e| GitError::other(format!("cannot read {path} at {rev}"), e))?
            .size();
        if size > max {
            return Err(GitError::TooLarge {
                what: format!("{path} at {rev}"),
                size,
                max,
            });
        }
        let object = entry
            .object()
            .map_err(|e| GitError::other(format!("cannot read {path} at {rev}"), e))?;
        Ok(Some(object.detach().data))
    }

    /// The root tree of commit `rev`.
    fn tree_of(&self, rev: &str) -> Result<gix::Tree<'_>, GitError> {
        let id = self.commit_id(rev)?;
        self.repo
            .find_commit(id)
            .and_then(|c| c.tree())
            .map_err(|e| GitError::other(format!("cannot read the tree of {rev}"), e))
    }

    /// The files directly under `dir` at commit `rev` (not in subdirectories), with their
    /// content; files over `max_bytes` are left out. Empty when `dir` does not exist there.
    pub fn files_in(
        &self,
        rev: &str,
        dir: &str,
        max_bytes: u64,
    ) -> Result<Vec<(String, Vec<u8>)>, GitError> {
        let entry = self
            .tree_of(rev)?
            .lookup_entry_by_path(dir)
            .map_err(|e| GitError::other(format!("cannot look up {dir} at {rev}"), e))?;
        let Some(entry) = entry.filter(|e| e.mode().is_tree()) else {
            return Ok(Vec::new());
        };
        let sub = entry
            .object()
            .map_err(|e| GitError::other(format!("cannot read {dir} at {rev}"), e))?
            .into_tree();
        let mut out = Vec::new();
        for e in sub.iter() {
            let e = e.map_err(|e| GitError::other(format!("cannot list {dir} at {rev}"), e))?;
            if !e.mode().is_blob() {
                continue;
            }
            let name = String::from_utf8_lossy(e.filename()).into_owned();
            let header = self.repo.find_header(e.oid()).map_err(|err| {
                GitError::other(format!("cannot read {dir}/{name} at {rev}"), err)
            })?;
            if header.size() > max_bytes {
                continue;
            }
            let blob = self.repo.find_object(e.oid()).map_err(|err| {
                GitError::other(format!("cannot read {dir}/{name} at {rev}"), err)
            })?;
            out.push((format!("{dir}/{name}"), blob.detach().data));
        }
        Ok(out)
    }

    /// The newest entry of `HEAD`'s reflog; `None` when there is none (reflogs disabled,
    /// or nothing happened yet).
    pub fn reflog_head_last(&self) -> Result<Option<ReflogEntry>, GitError> {
        let head = self
            .repo
            .head()
            .map_err(|e| GitError::other("cannot read HEAD", e))?;
        let mut log = head.log_iter();
        let Some(mut lines) = log
            .rev()
            .map_err(|e| GitError::other("cannot read the HEAD reflog", e))?
        else {
            return Ok(None);
        };
        let Some(line) = lines.next() else {
            return Ok(None);
        };
        let line = line.map_err(|e| GitError::other("cannot parse the HEAD reflog", e))?;
        Ok(Some(ReflogEntry {
            old: cid(&line.previous_oid),
            new: cid(&line.new_oid),
            message: line.message.to_str_lossy().into_owned(),
        }))
    }
}

/// A git object id as an iteration's id.
pub(crate) fn cid(id: &ObjectId) -> CommitId {
    CommitId::new(id.to_hex().to_string()).expect("a hex object id is a valid commit id")
}

/// Caches for reading many commits in a row (measured on a 20,000-commit history: a third
/// less CPU than gix's defaults): a 64 MiB delta-base cache, as a hash map rather than the
/// default 64-entry list that is scanned linearly, and a 4 MiB cache of decoded objects
/// (the trees one commit writes are the ones the next commit reads; the evidence reader
/// keeps the previous commit's blobs itself, without copies).
fn tune_for_ranges(repo: &mut gix::Repository) {
    repo.object_cache_size(OBJECT_CACHE_BYTES);
    repo.objects.set_pack_cache(|| {
        Box::new(gix::odb::pack::cache::lru::MemoryCappedHashmap::new(
            PACK_CACHE_BYTES,
        ))
    });
}

/// Of `ids` (oldest first), those on their own first-parent line (see
/// [`loopguard_core::first_parent::on_line`]).
fn line_of_ids(graph: &mut Graph<'_>, ids: Vec<ObjectId>) -> Result<Vec<CommitId>, GitError> {
    let commits = ids
        .iter()
        .map(|id| Ok((cid(id), graph.parents_of(*id)?.iter().map(cid).collect())))
        .collect::<Result<Vec<(CommitId, Vec<CommitId>)>, GitError>>()?;
    let keep = loopguard_core::first_parent::on_line(&commits, |c| &c.0, |c| Some(c.1.as_slice()));
    Ok(commits
        .into_iter()
        .zip(keep)
        .filter_map(|(c, keep)| keep.then_some(c.0))
        .collect())
}
