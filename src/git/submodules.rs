//! Whether a submodule bump changes anything of the submodule's own: a gitlink moved from
//! one commit to another is progress only when the submodule's tree moved with it.
//!
//! The submodule's objects are read where git keeps them: `<common dir>/modules/<name>`
//! (its name from the `.gitmodules` of the commit that bumps it; by default its path), or
//! the submodule's own `.git` in the working tree. A commit loopguard cannot read there
//! (the submodule not cloned here, an id that exists nowhere) shows no change: a bump
//! that cannot be seen to change anything is no progress (docs/rules.md, "Progress").

use std::collections::HashMap;
use std::path::{Component, Path};

use gix::ObjectId;
use gix::bstr::{BStr, BString, ByteSlice};

/// The submodules opened so far, by path (`None`: not found here).
#[derive(Default)]
pub(super) struct Submodules {
    opened: HashMap<BString, Option<gix::Repository>>,
}

impl Submodules {
    /// Whether the submodule at `path` (in the superproject `repo`, whose commit's tree is
    /// `tree`) changes anything of its own from commit `old` to commit `new`: both read,
    /// and their trees differ.
    pub(super) fn changed(
        &mut self,
        repo: &gix::Repository,
        tree: ObjectId,
        path: &BStr,
        old: ObjectId,
        new: ObjectId,
    ) -> bool {
        let sub = self
            .opened
            .entry(path.to_owned())
            .or_insert_with(|| open(repo, tree, path));
        let Some(sub) = sub else {
            return false;
        };
        let tree_of = |id: ObjectId| -> Option<ObjectId> {
            sub.find_object(id)
                .ok()?
                .try_into_commit()
                .ok()?
                .tree_id()
                .ok()
                .map(gix::Id::detach)
        };
        match (tree_of(old), tree_of(new)) {
            (Some(a), Some(b)) => a != b,
            _ => false,
        }
    }
}

/// The submodule at `path`, where git keeps its objects.
fn open(repo: &gix::Repository, tree: ObjectId, path: &BStr) -> Option<gix::Repository> {
    let name = name_of(repo, tree, path).unwrap_or_else(|| path.to_owned());
    let name = name.to_str().ok()?;
    let safe = |p: &str| {
        Path::new(p)
            .components()
            .all(|c| matches!(c, Component::Normal(_)))
    };
    if !safe(name) || !safe(path.to_str().ok()?) {
        return None;
    }
    let options = super::repo::open_options().into_value_by_level(gix::sec::Trust::Full);
    let mut places = vec![repo.common_dir().join("modules").join(name)];
    if let Some(workdir) = repo.workdir() {
        places.push(workdir.join(path.to_str().ok()?));
    }
    places
        .into_iter()
        .filter(|p| p.exists())
        .find_map(|p| gix::open_opts(p, options.clone()).ok())
}

/// The name `.gitmodules` (in `tree`) gives the submodule at `path`.
fn name_of(repo: &gix::Repository, tree: ObjectId, path: &BStr) -> Option<BString> {
    let tree = repo.find_object(tree).ok()?.try_into_tree().ok()?;
    let entry = tree.lookup_entry_by_path(".gitmodules").ok()??;
    let blob = entry.object().ok()?;
    let meta = gix::config::file::Metadata::from(gix::config::Source::Local);
    let file = gix::config::File::from_bytes_no_includes(
        &blob.data,
        meta,
        gix::config::file::init::Options::default(),
    )
    .ok()?;
    file.sections_by_name("submodule")?.find_map(|section| {
        let at = section.body().value("path")?;
        (at.as_bstr() == path)
            .then(|| section.header().subsection_name().map(ToOwned::to_owned))
            .flatten()
    })
}
