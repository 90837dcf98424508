#!/usr/bin/env bash
# Installing loopguard as users do, end to end (run by .ci/run after `cargo test`):
#
# 1. The wheel: maturin builds it for this platform and pip installs it into a fresh venv
#    with no index; the installed `loopguard` guards a fresh repository: `init`, three empty
#    commits, and the fourth refused by the pre-commit hook, naming the rule `stagnation`.
# 2. The pre-commit framework: the hook repository of a release (scripts/pre-commit-mirror.sh)
#    installs loopguard from that wheel with no Rust toolchain on PATH; the same scenario.
# 3. The Action's install step against a fake release of the wheel's binary served on
#    127.0.0.1: the step's time, and the time to a verdict (`loopguard check`).
#
# The CI wheel is built with the dev profile: it reuses what `cargo test` compiled, where the
# release profile (fat LTO) or any profile of its own would compile every dependency again
# (minutes on 2 cores). What is tested is the packaging, the install and the installed binary;
# the release workflow builds the shipped wheels with --release.
#
#   .ci/install-e2e.sh TOOLS_VENV
set -euo pipefail
cd "$(dirname "$0")/.."
tools="$(cd "${1:?usage: install-e2e.sh TOOLS_VENV}" && pwd)"
root="$(pwd)"
version="$(awk '/^\[/ { s = $0 } s == "[package]" && /^version *= *"/ { gsub(/^version *= *"|".*$/, ""); print; exit }' Cargo.toml)"
work="$(mktemp -d)"
server_pid=""
cleanup() {
    [[ -n "$server_pid" ]] && kill "$server_pid" 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }'; }

export GIT_AUTHOR_NAME="Agent" GIT_AUTHOR_EMAIL="agent@example.com"
export GIT_COMMITTER_NAME="Agent" GIT_COMMITTER_EMAIL="agent@example.com"
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 NO_COLOR=1
unset LOOPGUARD_BIN

# Three empty commits in a fresh repository, then a fourth that the pre-commit hook must
# refuse, naming the rule. $1: how the hooks got installed (for the messages).
scenario() {
    local how="$1" repo="$2" commits="$3" i out
    for i in 1 2 3; do
        git -C "$repo" commit -q --allow-empty -m "try $i" 2>"$work/commit.err" || {
            cat "$work/commit.err" >&2
            echo "install-e2e ($how): empty commit $i was refused; only the fourth should be" >&2
            exit 1
        }
    done
    if git -C "$repo" commit -q --allow-empty -m "try 4" 2>"$work/commit.err"; then
        cat "$work/commit.err" >&2
        echo "install-e2e ($how): the fourth empty commit went through; the breaker should refuse it" >&2
        exit 1
    fi
    out="$(cat "$work/commit.err")"
    if ! grep -q "stagnation" <<<"$out"; then
        printf '%s\n' "$out" >&2
        echo "install-e2e ($how): the refusal does not name the rule stagnation" >&2
        exit 1
    fi
    [[ "$(git -C "$repo" rev-list --count HEAD)" == "$commits" ]] || {
        echo "install-e2e ($how): expected $commits commits" >&2
        exit 1
    }
    echo "install-e2e ($how): 3 empty commits, the 4th refused: $(grep -m1 'rule:' <<<"$out" | tr -s ' ')"
}

# 1. The wheel.
wheels="$work/wheels"
t0="$(now)"
"$tools/bin/maturin" build --profile dev --locked --quiet --out "$wheels" 2>&1 | grep -v '^\s*\(Compiling\|Finished\)' || true
wheel_time="$(since "$t0")"
built=("$wheels"/loopguard_cli-"$version"-*.whl)
wheel="${built[0]}"
[[ -f "$wheel" && "${#built[@]}" == 1 ]] || { echo "install-e2e: expected one wheel: ${built[*]}" >&2; exit 1; }
"$tools/bin/python" - "$wheel" <<'PY'
import sys, zipfile
names = zipfile.ZipFile(sys.argv[1]).namelist()
bins = [n for n in names if n.endswith(".data/scripts/loopguard")]
assert bins, f"no loopguard executable in the wheel: {names}"
assert any(n.endswith("licenses/LICENSE-MIT") for n in names) and any(n.endswith("licenses/LICENSE-APACHE") for n in names), names
PY
python3 -m venv "$work/venv"
t0="$(now)"
"$work/venv/bin/pip" install --quiet --disable-pip-version-check --no-index --find-links "$wheels" loopguard-cli
pip_time="$(since "$t0")"
installed="$(PATH="$work/venv/bin:$PATH" command -v loopguard)"
[[ "$installed" == "$work/venv/bin/loopguard" ]] || { echo "install-e2e: loopguard resolves to $installed" >&2; exit 1; }
[[ "$("$installed" --version)" == "loopguard $version" ]]
echo "install-e2e: $(basename "$wheel") ($(du -k "$wheel" | cut -f1) KiB) built in ${wheel_time}s, pip-installed in ${pip_time}s"

repo="$work/pip-repo"
git init -q -b main "$repo"
# The installed binary only: PATH has the venv and the system, not target/ or cargo's bin.
(cd "$repo" && PATH="$work/venv/bin:/usr/local/bin:/usr/bin:/bin" loopguard init >/dev/null)
grep -q "$work/venv/bin/loopguard" "$repo/.git/hooks/pre-commit" ||
    { echo "install-e2e: the hook shim does not point at the installed loopguard" >&2; exit 1; }
PATH="/usr/local/bin:/usr/bin:/bin" scenario "pip wheel, loopguard init" "$repo" 3

# 2. The pre-commit framework, through the release's hook repository.
mirror="$work/loopguard-pre-commit"
scripts/pre-commit-mirror.sh "$version" "$mirror"
git -C "$mirror" init -q -b main
git -C "$mirror" add -A
git -C "$mirror" commit -q -m "loopguard $version"
git -C "$mirror" tag "v$version"
# Its build backend, for pip's isolated build of the (code-less) mirror package.
"$tools/bin/pip" download --quiet --disable-pip-version-check --only-binary :all: --dest "$wheels" "setuptools>=77"
repo="$work/pre-commit-repo"
git init -q -b main "$repo"
cat >"$repo/.pre-commit-config.yaml" <<YAML
repos:
  - repo: $mirror
    rev: v$version
    hooks:
      - id: loopguard-post-commit
      - id: loopguard-pre-commit
      - id: loopguard-pre-push
YAML
# No Rust on PATH, no package index: the hooks can only come from the wheel.
export PRE_COMMIT_HOME="$work/pre-commit-home" PIP_NO_INDEX=1 PIP_FIND_LINKS="$wheels"
norust="$tools/bin:/usr/local/bin:/usr/bin:/bin"
(cd "$repo" && PATH="$norust" pre-commit install -t pre-commit -t post-commit -t pre-push >/dev/null)
git -C "$repo" add .pre-commit-config.yaml
t0="$(now)"
(cd "$repo" && PATH="$norust" pre-commit install-hooks >/dev/null)
hooks_time="$(since "$t0")"
hook_bins=("$PRE_COMMIT_HOME"/repo*/py_env-*/bin/loopguard)
hook_bin="${hook_bins[0]}"
[[ "$("$hook_bin" --version)" == "loopguard $version" ]]
echo "install-e2e: pre-commit installed the hooks from the wheel in ${hooks_time}s (no cargo on PATH)"
# The configuration is the first commit (a change: progress), then the empty ones.
(cd "$repo" && PATH="$norust" git commit -q -m "pre-commit config")
PATH="$norust" scenario "pre-commit framework" "$repo" 4
unset PRE_COMMIT_HOME PIP_NO_INDEX PIP_FIND_LINKS

# 3. The Action's install step, against a fake release of the installed binary.
case "$(uname -s)-$(uname -m)" in
    Linux-x86_64) runner_os=Linux runner_arch=X64 target=x86_64-unknown-linux-musl ;;
    Linux-aarch64) runner_os=Linux runner_arch=ARM64 target=aarch64-unknown-linux-musl ;;
    *) echo "install-e2e: no Action simulation on $(uname -sm)"; exit 0 ;;
esac
release="$work/release/octo/loopguard/releases/download/v$version"
scripts/package-release.sh "$target" "$installed" "$release" >/dev/null
python3 -u -m http.server 0 --bind 127.0.0.1 --directory "$work/release" >"$work/http.log" 2>&1 &
server_pid=$!
for _ in $(seq 50); do
    port="$(sed -n 's/.* port \([0-9]*\) .*/\1/p' "$work/http.log")"
    [[ -n "$port" ]] && break
    sleep 0.1
done
[[ -n "$port" ]] || { echo "install-e2e: the fake release server did not start" >&2; exit 1; }
action="$work/runner/_actions/octo/loopguard/v$version"
mkdir -p "$action/scripts" "$work/runner/temp"
cp Cargo.toml "$action/"
cp scripts/action-install.sh "$action/scripts/"
: >"$work/runner/output"
t0="$(now)"
env -i PATH="/usr/local/bin:/usr/bin:/bin" HOME="$work" \
    GITHUB_ACTION_PATH="$action" GITHUB_OUTPUT="$work/runner/output" \
    GITHUB_SERVER_URL="http://127.0.0.1:$port" RUNNER_OS="$runner_os" RUNNER_ARCH="$runner_arch" \
    RUNNER_TEMP="$work/runner/temp" ACTION_REF="v$version" ACTION_REPOSITORY=octo/loopguard \
    bash "$action/scripts/action-install.sh" >"$work/install.log"
install_time="$(since "$t0")"
grep -qx "source=release" "$work/runner/output"
bin="$(sed -n 's/^bin=//p' "$work/runner/output")"
t1="$(now)"
status=0
(cd "$work/pip-repo" && "$bin" check --json >/dev/null) || status=$?
verdict_time="$(since "$t1")"
[[ "$status" == 1 ]] || { echo "install-e2e: the released binary's verdict: exit $status, expected 1 (open)" >&2; exit 1; }
archive_kib="$(du -k "$release/loopguard-$target.tar.gz" | cut -f1)"
echo "install-e2e: the Action's install step took ${install_time}s from 127.0.0.1 (${archive_kib} KiB archive, checksum checked), the verdict ${verdict_time}s more"
cd "$root"
