//! Commit ranges: `A..B`, `B`, `A...B`, in the order `git rev-list --reverse --topo-order`
//! gives.
//!
//! The walk is git's `limit_list`: a queue by commit time that carries both wanted and
//! excluded commits, marking everything reachable from an excluded one; it stops once
//! nothing wanted is queued and every excluded commit still queued is older than the oldest
//! wanted one (with a day of slack for skewed clocks, and then five commits more, like
//! git), so `main..topic` costs the size of
//! `topic`, not of the whole history. Shallow boundaries and missing parents end the walk
//! quietly, as in git.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap, HashSet};

use gix::ObjectId;
use gix::objs::FindExt;
use gix::objs::commit::ref_iter::Token;

use super::GitError;

/// Clock skew tolerated between parents and children, in seconds.
const SKEW_SLACK: i64 = 24 * 60 * 60;
/// Excluded commits walked past the point where dates say the walk is done (git's
/// `SLOP`), for skew beyond [`SKEW_SLACK`].
const SLOP: u32 = 5;

#[derive(Debug)]
struct Node {
    parents: Vec<ObjectId>,
    time: i64,
    excluded: bool,
    queued: bool,
}

/// The queue of one walk: by time, newest first; among equal times, first queued first.
/// `wanted_queued` counts entries that were not excluded when queued.
#[derive(Default)]
struct Walk {
    queue: BinaryHeap<(i64, Reverse<u64>, ObjectId, bool)>,
    seq: u64,
    wanted_queued: usize,
}

impl Walk {
    fn push(&mut self, graph: &mut Graph<'_>, id: ObjectId) -> Result<(), GitError> {
        if !graph.load(id)? {
            return Ok(());
        }
        let node = graph.nodes.get_mut(&id).expect("loaded just now");
        if node.queued {
            return Ok(());
        }
        node.queued = true;
        let counted = !node.excluded;
        if counted {
            self.wanted_queued += 1;
        }
        self.queue.push((node.time, Reverse(self.seq), id, counted));
        self.seq += 1;
        Ok(())
    }
}

/// The commit graph as far as one walk has read it.
pub(crate) struct Graph<'r> {
    repo: &'r gix::Repository,
    shallow: &'r HashSet<ObjectId>,
    buf: Vec<u8>,
    nodes: HashMap<ObjectId, Node>,
    /// Most commits one graph reads ([`Graph::with_limit`]).
    limit: usize,
}

impl<'r> Graph<'r> {
    pub(crate) fn new(repo: &'r gix::Repository, shallow: &'r HashSet<ObjectId>) -> Self {
        Graph {
            repo,
            shallow,
            buf: Vec::new(),
            nodes: HashMap::new(),
            limit: usize::MAX,
        }
    }

    /// A graph that reads at most `limit` commits: past it, a walk fails with
    /// [`GitError::TooManyCommits`] instead of going on.
    pub(crate) fn with_limit(mut self, limit: usize) -> Self {
        self.limit = limit;
        self
    }

    /// Reads commit `id` into the graph; `false` when it is not in the repository.
    fn load(&mut self, id: ObjectId) -> Result<bool, GitError> {
        if self.nodes.contains_key(&id) {
            return Ok(true);
        }
        if self.nodes.len() >= self.limit {
            return Err(GitError::TooManyCommits {
                what: "the history to judge".to_owned(),
                max: self.limit,
            });
        }
        let iter = match self.repo.objects.find_commit_iter(&id, &mut self.buf) {
            Ok(iter) => iter,
            Err(_) if !self.repo.has_object(id) => return Ok(false),
            Err(e) => return Err(GitError::other(format!("cannot read commit {id}"), e)),
        };
        let mut parents = Vec::new();
        let mut time = 0;
        for token in iter {
            match token {
                Ok(Token::Parent { id }) => parents.push(id),
                Ok(Token::Committer { signature }) => {
                    time = signature.seconds();
                    break;
                }
                Ok(_) => {}
                Err(e) => return Err(GitError::other(format!("cannot parse commit {id}"), e)),
            }
        }
        if self.shallow.contains(&id) {
            parents.clear();
        }
        self.nodes.insert(
            id,
            Node {
                parents,
                time,
                excluded: false,
                queued: false,
            },
        );
        Ok(true)
    }

    /// Marks `id` and every already-read ancestor as excluded.
    fn exclude_ancestry(&mut self, id: ObjectId) {
        let mut stack = vec![id];
        while let Some(id) = stack.pop() {
            if let Some(node) = self.nodes.get_mut(&id)
                && !node.excluded
            {
                node.excluded = true;
                stack.extend(node.parents.iter().copied());
            }
        }
    }

    /// Commits reachable from `include` but from none of `exclude`, newest first in walk
    /// order.
    pub(crate) fn reachable(
        &mut self,
        include: &[ObjectId],
        exclude: &[ObjectId],
    ) -> Result<Vec<ObjectId>, GitError> {
        for node in self.nodes.values_mut() {
            node.excluded = false;
            node.queued = false;
        }
        let mut walk = Walk::default();
        for id in exclude {
            if self.load(*id)? {
                self.exclude_ancestry(*id);
                walk.push(self, *id)?;
            }
        }
        for id in include {
            walk.push(self, *id)?;
        }

        let mut found = Vec::new();
        let mut oldest_found = i64::MAX;
        let mut slop = SLOP;
        while let Some(&(time, ..)) = walk.queue.peek() {
            // Once nothing wanted is queued and what is queued is too old to reach back to
            // anything found, no found commit can still turn out to be excluded, unless
            // dates lie: walk a few excluded commits more, as git does.
            if walk.wanted_queued == 0 && time < oldest_found.saturating_sub(SKEW_SLACK) {
                slop -= 1;
                if slop == 0 {
                    break;
                }
            } else {
                slop = SLOP;
            }
            let (_, _, id, counted) = walk.queue.pop().expect("peeked");
            if counted {
                walk.wanted_queued -= 1;
            }
            let node = &self.nodes[&id];
            let excluded = node.excluded;
            let parents = node.parents.clone();
            if !excluded {
                found.push(id);
                oldest_found = oldest_found.min(time);
            }
            for parent in parents {
                if excluded && self.load(parent)? {
                    self.exclude_ancestry(parent);
                }
                walk.push(self, parent)?;
            }
        }
        found.retain(|id| !self.nodes[id].excluded);
        Ok(found)
    }

    /// The parents of `id` (none beyond a shallow boundary).
    pub(crate) fn parents_of(&mut self, id: ObjectId) -> Result<Vec<ObjectId>, GitError> {
        if !self.load(id)? {
            return Ok(Vec::new());
        }
        Ok(self.nodes[&id].parents.clone())
    }

    /// Just `id` (`id^!`), as a walk order.
    pub(crate) fn single(&mut self, id: ObjectId) -> Result<Vec<ObjectId>, GitError> {
        Ok(if self.load(id)? { vec![id] } else { Vec::new() })
    }

    /// Two walk orders merged into one, newest first.
    pub(crate) fn merge_by_time(&self, a: Vec<ObjectId>, b: Vec<ObjectId>) -> Vec<ObjectId> {
        let mut all = a;
        all.extend(b);
        all.sort_by_key(|id| Reverse(self.nodes[id].time));
        all
    }

    /// Sorts `commits` like `git rev-list --topo-order` (children before parents, one line
    /// of history at a time, the side branch of a merge first), then reverses: oldest
    /// first. `commits` must be in walk order (newest first by time), as `reachable` gives.
    pub(crate) fn topo_oldest_first(&self, commits: &[ObjectId]) -> Vec<ObjectId> {
        let in_set: HashSet<ObjectId> = commits.iter().copied().collect();
        let mut indegree: HashMap<ObjectId, usize> = HashMap::with_capacity(commits.len());
        for id in commits {
            for parent in &self.nodes[id].parents {
                if in_set.contains(parent) {
                    *indegree.entry(*parent).or_default() += 1;
                }
            }
        }
        let mut stack: Vec<ObjectId> = commits
            .iter()
            .rev()
            .filter(|id| !indegree.contains_key(*id))
            .copied()
            .collect();
        let mut out = Vec::with_capacity(commits.len());
        while let Some(id) = stack.pop() {
            for parent in &self.nodes[&id].parents {
                if let Some(d) = indegree.get_mut(parent) {
                    if *d == 0 {
                        continue;
                    }
                    if *d == 1 {
                        stack.push(*parent);
                    }
                    *d -= 1;
                }
            }
            out.push(id);
        }
        out.reverse();
        out
    }
}
