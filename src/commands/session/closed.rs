//! Fail closed while open (issue 25, item 3). When loopguard cannot judge a tool call — an
//! input it cannot read, an internal error, a hook past its deadline — it says so and the
//! call goes through, unless a breaker of that session or of its branch is open: then the
//! call is refused, in the harness's own format, as the git gates refuse a commit they
//! cannot judge while a breaker blocks. A session that cannot be told (no id could be
//! read) counts every open session of the repository.

use std::path::{Path, PathBuf};

use loopguard_core::session::{Answer, Harness, HookKind};

use super::super::Ctx;
use super::key_of;
use crate::store::Store;

/// What a hook answers when it could not judge the event `name`: a refusal before a tool
/// call while a breaker of the session (or, unknown, of any session) or of the branch is
/// open; otherwise `why`, and the call goes through.
pub(super) fn could_not_judge(
    ctx: &Ctx,
    harness: Harness,
    name: &str,
    (session, cwd): (Option<&str>, Option<&str>),
    why: String,
) -> Answer {
    let kind = harness
        .descriptor()
        .event(name)
        .map_or(HookKind::Other, |e| e.kind);
    if kind == HookKind::PreTool && open_somewhere(ctx, session, cwd) {
        return Answer::Deny(format!(
            "loopguard refused this tool call: it could not judge it ({why}), and a breaker of this session or its branch is open, so the call does not go through (loopguard fails closed while a breaker is open). Stop calling tools and tell the user what happened."
        ));
    }
    Answer::Failed(why)
}

/// Whether a breaker of the session `session` (every session's, unknown) or of the branch
/// may be open: their open markers, in the repository of `cwd` (or the hook's directory).
/// What cannot be read counts as nothing open: loopguard failing is no reason to refuse.
pub(super) fn open_somewhere(ctx: &Ctx, session: Option<&str>, cwd: Option<&str>) -> bool {
    let dir = cwd
        .map(PathBuf::from)
        .filter(|d| d.is_dir())
        .unwrap_or_else(|| ctx.dir.clone());
    let Ok(repo) = crate::git::Repo::discover_with_env(&dir) else {
        return false;
    };
    let clock = ctx.settings.clock;
    let sessions = Store::sessions(sessions_dir(ctx, repo.common_dir()), clock);
    let session_open = match session {
        // Its markers checked against its run: deleted markers are no way out.
        Some(id) => match super::state::known(&sessions, &key_of(id), ctx.settings.lock_timeout) {
            Ok(super::state::Known::Run(run)) => run.is_open(),
            Ok(super::state::Known::Tampered(_)) => true,
            Ok(
                super::state::Known::Closed
                | super::state::Known::New
                | super::state::Known::Unusable(_),
            )
            | Err(_) => false,
        },
        None => !sessions.open_keys().unwrap_or_default().is_empty(),
    };
    let branches = Store::new(repo.common_dir(), clock);
    session_open || !branches.open_keys().unwrap_or_default().is_empty()
}

fn sessions_dir(ctx: &Ctx, common: &Path) -> PathBuf {
    crate::store::place::sessions_dir(ctx.settings.state_home.as_deref(), common)
}
