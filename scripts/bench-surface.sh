#!/usr/bin/env bash
# What a guard-surface snapshot costs (src/guard_surface/): the check every agent hook can
# afford only if it stays well inside the before-call hook's budget (5 ms of CPU in all).
#
#   scripts/bench-surface.sh [CALLS] [WORKTREES]     # defaults 2000, 3
#
# Runs examples/bench_surface.rs in release: a repository with loopguard's hooks, linked
# worktrees, an include, an agent's hook config and a store; prints the CPU and wall time
# per snapshot with everything read, with nothing changed (the stat path), with one
# hook rewritten before each call, and of the check post-commit and pre-push make of the other worktrees.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet --example bench_surface
target/release/examples/bench_surface "${1:-2000}" "${2:-3}"
