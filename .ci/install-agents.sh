#!/usr/bin/env bash
# The real coding-agent CLIs the session tests drive (tests/it/agents_e2e): Claude Code,
# Codex and Gemini CLI from the npm registry, at pinned versions, under target/ like the
# other CI tools. `.ci/run` calls it before `cargo test`; a developer runs it once before
# `cargo test` (about a minute, 760 MB). A second run with the same versions does nothing.
#
#   .ci/install-agents.sh            # installs into target/agent-clis
#   LOOPGUARD_AGENT_CLIS=DIR .ci/install-agents.sh   # into DIR (the tests read it there too)
#
# Install scripts are not run (no native module is built): the one the tests need is Claude
# Code's, which links its native binary in place of a placeholder, and is run here by hand.
# Gemini CLI falls back to its prebuilt pty and to plain files for credentials.
set -euo pipefail
cd "$(dirname "$0")/.."

dir=${LOOPGUARD_AGENT_CLIS:-target/agent-clis}
# Keep in step with tests/it/agents_e2e/mod.rs (VERSIONS): the tests check what they find.
versions="@anthropic-ai/claude-code@2.1.197 @openai/codex@0.171.0 @google/gemini-cli@0.61.0"
if [[ "$(cat "$dir/versions" 2>/dev/null)" == "$versions" ]]; then
    exit 0
fi
rm -rf "$dir"
mkdir -p "$dir"
# shellcheck disable=SC2086 # one word per package
npm install --prefix "$dir" --save-exact --ignore-scripts --no-audit --no-fund --silent $versions
(cd "$dir/node_modules/@anthropic-ai/claude-code" && node install.cjs >/dev/null)
for cli in claude codex gemini; do
    "$dir/node_modules/.bin/$cli" --version >/dev/null ||
        { echo "install-agents: $cli does not start after the install" >&2; exit 1; }
done
echo "$versions" >"$dir/versions"
echo "agent CLIs: $versions in $dir"
