//! Whose commits are attempts (docs/rules.md; README, "Whose commits").
//!
//! With `agents` configured, a commit is the agent's when its author (`Name <email>`) or a
//! `Co-authored-by:` trailer matches one of the globs. With `agents` empty, the known agent
//! identities decide when the history has any of them (a PR or branch where an agent
//! commits beside humans), and otherwise every commit is an attempt (a local clone where the
//! agent commits under the user's name). Merges and rewrites are never attempts.

use super::Config;
use crate::iteration::{Iteration, IterationKind};

/// Identities the coding agents commit under (name or email fragments, lowercase).
pub const KNOWN_AGENTS: &[&str] = &[
    "copilot-swe-agent[bot]",
    "+copilot@users.noreply.github.com",
    "copilot@github.com",
    "copilot <",
    "chatgpt-codex-connector[bot]",
    "codex@openai.com",
    "noreply@anthropic.com",
    "claude@anthropic.com",
    "devin-ai-integration[bot]",
    "openhands@all-hands.dev",
    "google-labs-jules[bot]",
    "cursoragent@cursor.com",
    "open-swe[bot]",
    "open-swe-dev[bot]",
];

/// Whether an identity (`Name <email>`) is one of the known agents.
pub fn is_known_agent(identity: &str) -> bool {
    let lower = identity.to_ascii_lowercase();
    KNOWN_AGENTS.iter().any(|k| lower.contains(k))
}

/// The identities an iteration carries: its author and its co-authors.
fn identities(it: &Iteration) -> impl Iterator<Item = &str> {
    let trailers = it.message.as_deref().into_iter().flat_map(|m| {
        m.lines().filter_map(|l| {
            let l = l.trim();
            let (key, value) = l.split_once(':')?;
            key.eq_ignore_ascii_case("co-authored-by")
                .then(|| value.trim())
        })
    });
    it.author.as_deref().into_iter().chain(trailers)
}

/// How attempts are told apart from context in one history.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AgentFilter {
    /// `agents` globs from the config.
    Configured,
    /// The history has known agent identities: only those commits are attempts.
    KnownAgents,
    /// Every commit is an attempt.
    Everyone,
}

impl AgentFilter {
    /// Picks the filter for a history.
    pub fn for_history(config: &Config, history: &[Iteration]) -> AgentFilter {
        if !config.agents.is_empty() {
            AgentFilter::Configured
        } else if history.iter().any(|it| identities(it).any(is_known_agent)) {
            AgentFilter::KnownAgents
        } else {
            AgentFilter::Everyone
        }
    }

    /// The filter for a history that grows by `it`: known agents, once seen, decide.
    pub fn with(self, config: &Config, it: &Iteration) -> AgentFilter {
        match self {
            AgentFilter::Everyone
                if config.agents.is_empty() && identities(it).any(is_known_agent) =>
            {
                AgentFilter::KnownAgents
            }
            other
            @ (AgentFilter::Everyone | AgentFilter::Configured | AgentFilter::KnownAgents) => other,
        }
    }

    /// Whether the iteration is the agent's (before merge/rewrite checks).
    pub fn is_agent(self, config: &Config, it: &Iteration) -> bool {
        match self {
            AgentFilter::Configured => identities(it).any(|id| config.agents.is_match(id)),
            AgentFilter::KnownAgents => identities(it).any(is_known_agent),
            AgentFilter::Everyone => true,
        }
    }

    /// The kind of an iteration: an explicit `kind` wins; merges are context.
    pub fn kind(self, config: &Config, it: &Iteration) -> IterationKind {
        if let Some(kind) = it.kind {
            return kind;
        }
        if it.parents.as_ref().is_some_and(|p| p.len() > 1) {
            return IterationKind::Context;
        }
        if self.is_agent(config, it) {
            IterationKind::Attempt
        } else {
            IterationKind::Context
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn it(author: &str, message: &str) -> Iteration {
        let mut it = Iteration::new(crate::testing::id("x"));
        it.author = Some(author.into());
        it.message = Some(message.into());
        it
    }

    #[test]
    fn known_agents() {
        for yes in [
            "copilot-swe-agent[bot] <198982749+Copilot@users.noreply.github.com>",
            "Copilot <198982749+Copilot@users.noreply.github.com>",
            "Claude <noreply@anthropic.com>",
            "openhands <openhands@all-hands.dev>",
            "google-labs-jules[bot] <161369871+google-labs-jules[bot]@users.noreply.github.com>",
        ] {
            assert!(is_known_agent(yes), "{yes}");
        }
        for no in [
            "Jane Doe <jane@example.com>",
            "dependabot[bot] <49699333+dependabot[bot]@users.noreply.github.com>",
            "Copilotfan <x@y.z>",
        ] {
            assert!(!is_known_agent(no), "{no}");
        }
    }

    #[test]
    fn known_agents_decide_when_present() {
        let c = Config::default();
        let agent = it(
            "Copilot <198982749+Copilot@users.noreply.github.com>",
            "Fix",
        );
        let human = it("Jane <jane@example.com>", "Review suggestion");
        let coauthored = it(
            "Jane <jane@example.com>",
            "Fix parser\n\nCo-authored-by: Claude <noreply@anthropic.com>",
        );
        let f = AgentFilter::for_history(&c, &[agent.clone(), human.clone()]);
        assert_eq!(f, AgentFilter::KnownAgents);
        assert_eq!(f.kind(&c, &agent), IterationKind::Attempt);
        assert_eq!(f.kind(&c, &human), IterationKind::Context);
        assert_eq!(f.kind(&c, &coauthored), IterationKind::Attempt);

        let f = AgentFilter::for_history(&c, std::slice::from_ref(&human));
        assert_eq!(f, AgentFilter::Everyone);
        assert_eq!(f.kind(&c, &human), IterationKind::Attempt);
    }

    #[test]
    fn merges_are_context_and_explicit_kind_wins() {
        let c = Config::default();
        let mut merge = it("Jane <jane@example.com>", "Merge main");
        merge.parents = Some(vec![crate::testing::id("a"), crate::testing::id("b")]);
        assert_eq!(
            AgentFilter::Everyone.kind(&c, &merge),
            IterationKind::Context
        );
        let mut rewrite = it("Jane <jane@example.com>", "x");
        rewrite.kind = Some(IterationKind::Rewrite);
        assert_eq!(
            AgentFilter::Everyone.kind(&c, &rewrite),
            IterationKind::Rewrite
        );
    }

    #[test]
    fn configured_globs() {
        let c = Config::parse(
            "agents: ['bot <*>']\n",
            std::path::Path::new(".loopguard.yml"),
        )
        .unwrap();
        let f = AgentFilter::for_history(&c, &[]);
        assert_eq!(f, AgentFilter::Configured);
        assert_eq!(f.kind(&c, &it("bot <b@x>", "m")), IterationKind::Attempt);
        assert_eq!(f.kind(&c, &it("Jane <j@x>", "m")), IterationKind::Context);
    }
}
