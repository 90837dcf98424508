//! The config in force (see the module docs of `workspace`): the one pinned in the run, the
//! working-tree file compared with it, and the workflows it protects.

use anyhow::Result;

use crate::config::{CONFIG_FILE, Config};
use crate::error::ConfigFileError;
use crate::iteration::CommitId;
use crate::run::{PinSource, PinnedConfig, Run};

use super::super::content_hash;
use super::{Ignored, Workspace};

impl Workspace<'_> {
    /// Says on stderr that the working-tree config is ignored, and why.
    pub fn warn_ignored(&self) {
        if let Some(ig) = &self.ignored {
            self.ctx.ui.warn_hint(
                &self.ignored_message(ig),
                "the config a run started with stays in force: a person changes it with `loopguard reset --accept-config`",
            );
        }
    }

    pub(super) fn ignored_message(&self, ig: &Ignored) -> String {
        let pinned = self.pin.as_ref().map_or_else(String::new, |p| {
            let at = p
                .commit
                .as_ref()
                .map(|c| format!(" at {}", c.short()))
                .unwrap_or_default();
            format!(" (the config in force: {}{at})", p.source.as_str())
        });
        // The reason may quote the file, which anyone could have written.
        format!(
            "{}; the {CONFIG_FILE} in the working tree is ignored{pinned}",
            crate::sanitize::printable(&ig.why)
        )
    }

    /// The working-tree file as a pinned config (`init`, `reset --accept-config`): it must
    /// be a valid config (exit 2 naming the file, line and key otherwise).
    pub fn pin_worktree(&self, source: PinSource) -> Result<PinnedConfig> {
        let path = self.config_path();
        let bytes = crate::config_file::read(&path)?;
        if let Some(b) = &bytes {
            Config::parse_bytes(b, &path)?;
        }
        let text = bytes.map(|b| String::from_utf8(b).expect("a config that parses is UTF-8"));
        Ok(PinnedConfig {
            sha256: text.as_deref().map(|t| content_hash(t.as_bytes())),
            text,
            commit: self.head.id.clone(),
            source,
            at: self.now(),
        })
    }

    /// New runs start with `pin` (a person's act: `init`, `reset --accept-config`).
    pub fn pin_new_runs(&mut self, pin: PinnedConfig) {
        self.pin_next = Some(pin);
    }

    /// The config `pin` holds.
    pub fn parse_pin(&self, pin: &PinnedConfig) -> Result<Config> {
        let Some(text) = &pin.text else {
            return Ok(Config::default());
        };
        let mut config =
            Config::parse(text, &self.config_path()).map_err(|error| ConfigFileError::Pinned {
                source_name: pin.source.as_str(),
                error,
            })?;
        if let Some(guarded) = self.guarded_workflows(&config, pin) {
            config.rules.constraint.guard(guarded);
        }
        Ok(config)
    }

    /// The workflows to protect under `config`: those that run loopguard at the commit `pin`
    /// came from, the tree trusted with the config (as the base is in CI), so an agent that
    /// edits a workflow to drop loopguard trips `constraint` whatever the edited file says.
    pub(super) fn guarded_workflows(
        &self,
        config: &Config,
        pin: &PinnedConfig,
    ) -> Option<Vec<String>> {
        let commit = pin
            .commit
            .as_ref()
            .filter(|_| config.rules.constraint.guard_workflows)?;
        match super::super::guarded_workflows_at(&self.repo, commit.as_str()) {
            Ok(guarded) => Some(guarded),
            Err(e) => {
                self.ctx.ui.warn_hint(
                    &format!(
                        "the commit the config in force came from ({}) cannot be read ({e}): the workflows that run loopguard are not protected, only rules.constraint.protected",
                        commit.short()
                    ),
                    "a person pins the config again with `loopguard reset --accept-config`",
                );
                None
            }
        }
    }

    /// The config a run is judged by: its pinned one (the workspace's when it is the same).
    pub fn config_of(&self, run: &Run) -> Result<Config> {
        match &run.pinned_config {
            Some(pin)
                if self.pin.as_ref().map(|p| (&p.sha256, &p.commit))
                    != Some((&pin.sha256, &pin.commit)) =>
            {
                self.parse_pin(pin)
            }
            _ => Ok(self.config.clone()),
        }
    }

    /// The config committed at `commit` (none there: the defaults).
    pub(super) fn committed_pin(
        &self,
        commit: Option<&CommitId>,
        source: PinSource,
    ) -> PinnedConfig {
        let text = commit
            .and_then(|c| self.repo.blob_at(c.as_str(), CONFIG_FILE).ok().flatten())
            .and_then(|b| String::from_utf8(b).ok())
            .filter(|t| Config::parse(t, &self.config_path()).is_ok());
        PinnedConfig {
            sha256: text.as_deref().map(|t| content_hash(t.as_bytes())),
            text,
            commit: commit.cloned(),
            source,
            at: self.now(),
        }
    }

    /// The config in force when the branch's run says none (its state cannot be read):
    /// the one its start record keeps, else the one last set up or accepted here, else
    /// the file as committed at HEAD.
    pub(super) fn fallback_pin(&self) -> PinnedConfig {
        self.store
            .read_start(&self.key)
            .and_then(|s| s.pinned_config)
            .or_else(|| self.store.accepted_config())
            .unwrap_or_else(|| self.committed_pin(self.head.id.as_ref(), PinSource::Committed))
    }

    /// Whether the working-tree file is the config in force, and why not.
    pub(super) fn compare_worktree(&self, pin: &PinnedConfig) -> Option<Ignored> {
        let path = self.config_path();
        match crate::config_file::read(&path) {
            Err(e) => Some(Ignored {
                what: "unreadable".to_owned(),
                why: e.to_string(),
            }),
            Ok(None) => pin.text.is_some().then(|| Ignored {
                what: "missing".to_owned(),
                why: format!("there is no {CONFIG_FILE} in the working tree"),
            }),
            Ok(Some(bytes)) => {
                let sha = content_hash(&bytes);
                if pin.sha256.as_deref() == Some(sha.as_str()) {
                    return None;
                }
                let why = match Config::parse_bytes(&bytes, &path) {
                    Ok(_) => format!(
                        "{} differs from the config in force",
                        super::super::shown(&path, &self.ctx.dir).display()
                    ),
                    Err(e) => e.to_string(),
                };
                Some(Ignored { what: sha, why })
            }
        }
    }
}
