#!/usr/bin/env bash
# How long the largest config within the limits takes to load, and how fast a config far
# past them (1 MiB of globs) is refused (docs/contract.md, "Limits"):
#
#   scripts/bench-config.sh [RUNS]       # default 50
#
# Runs crates/loopguard-core/examples/config_load.rs in release: it builds the configs in
# memory (every list at its limit, every glob, regex and name at its longest and as costly
# to compile as that length allows) and prints the median and slowest `Config::parse`.
# Target: the largest allowed config well under 50 ms.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet -p loopguard-core --example config_load
target/release/examples/config_load "${1:-50}" parts
