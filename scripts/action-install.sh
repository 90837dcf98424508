#!/usr/bin/env bash
# The GitHub Action's first step (action.yml): which loopguard binary runs.
#
# At a release ref the Action runs the binary of that release and never compiles: it
# downloads loopguard-<target>.tar.gz (.zip on Windows) for this runner, checks it against
# the .sha256 published beside it, checks its build-provenance attestation where the runner's
# `gh` can (`gh attestation verify`), unpacks it and checks `loopguard --version`. Anything
# that fails is an error: a release ref never falls back to a build. Only a non-release ref
# (a branch, a sha that is no release tag's, a local `uses: ./`) is built from source, by the
# next steps of action.yml (cached under the digest of the source).
#
# Release refs: `vX.Y.Z` (the version in the action's Cargo.toml); the moving tags `vX`
# (X >= 1) and `v0.Y`, which point at the newest vX.Y.Z / v0.Y.Z (its Cargo.toml says which);
# and a full commit sha when the API says tag v<version> is that commit.
#
# Environment (the Actions runner's, and action.yml's):
#   GITHUB_ACTION_PATH    the action's checkout (its Cargo.toml has the version)
#   ACTION_REF            github.action_ref (empty in some composite contexts: then the ref
#   ACTION_REPOSITORY     and the repository are read from .../_actions/OWNER/REPO/REF)
#   RUNNER_OS, RUNNER_ARCH, RUNNER_TEMP, RUNNER_TOOL_CACHE, GITHUB_OUTPUT
#   GITHUB_SERVER_URL     releases are downloaded from $GITHUB_SERVER_URL/OWNER/REPO/releases/download
#   GITHUB_API_URL        for the sha -> tag check
#   GH_TOKEN              for the sha -> tag check and `gh attestation verify`
#   LOOPGUARD_RELEASE_BASE_URL    overrides .../releases/download (a mirror; tests)
#   LOOPGUARD_VERIFY_ATTESTATION  auto (default: when gh can) | always | never
#
# Outputs (GITHUB_OUTPUT): source=release|build, bin (the binary to run), version, and for a
# build, root (the cargo install --root) and key (its cache key).
set -euo pipefail

die() {
    echo "::error title=loopguard install::$*"
    echo "loopguard: $*" >&2
    exit 1
}
note() { echo "loopguard: $*"; }

# Windows runners give Windows paths; Git Bash's tools want its own.
unix_path() { if command -v cygpath >/dev/null; then cygpath -u "$1"; else printf '%s\n' "$1"; fi; }
action_path="$(unix_path "${GITHUB_ACTION_PATH:?GITHUB_ACTION_PATH is not set}")"
output="${GITHUB_OUTPUT:?GITHUB_OUTPUT is not set}"
runner_os="${RUNNER_OS:?RUNNER_OS is not set}"
runner_arch="${RUNNER_ARCH:?RUNNER_ARCH is not set}"
temp="$(unix_path "${RUNNER_TEMP:-${TMPDIR:-/tmp}}")"
ref="${ACTION_REF:-}"
repo="${ACTION_REPOSITORY:-}"
# The runner keeps a downloaded action in <work>/_actions/OWNER/REPO/REF.
if [[ -z "$ref" || -z "$repo" ]] && [[ "$action_path" =~ /_actions/([^/]+)/([^/]+)/([^/]+)/*$ ]]; then
    repo="${repo:-${BASH_REMATCH[1]}/${BASH_REMATCH[2]}}"
    ref="${ref:-${BASH_REMATCH[3]}}"
fi

# The version of the action's source: the [package] version of its Cargo.toml.
version="$(awk '
    /^\[/ { section = $0 }
    section == "[package]" && /^version *= *"/ { gsub(/^version *= *"|".*$/, ""); print; exit }
' "$action_path/Cargo.toml")"
[[ "$version" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || die "cannot read the version from $action_path/Cargo.toml"
tag="v$version"
major="${version%%.*}"
minor="${version#*.}"
minor="${minor%%.*}"

exe=""
ext=tar.gz
case "$runner_os-$runner_arch" in
    Linux-X64) target=x86_64-unknown-linux-musl ;;
    Linux-ARM64) target=aarch64-unknown-linux-musl ;;
    macOS-X64) target=x86_64-apple-darwin ;;
    macOS-ARM64) target=aarch64-apple-darwin ;;
    # Windows on Arm runs the x86_64 binary under emulation.
    Windows-X64 | Windows-ARM64) target=x86_64-pc-windows-msvc exe=.exe ext=zip ;;
    *) target="" ;;
esac
[[ "$runner_os" == Windows ]] && exe=.exe

# Is the action's ref a release?
release=false
if [[ "$ref" =~ ^v[0-9]+\.[0-9]+\.[0-9]+$ ]]; then
    [[ "$ref" == "$tag" ]] || die "the action's ref $ref is a release tag, but its Cargo.toml says version $version"
    release=true
elif [[ ("$major" -ge 1 && "$ref" == "v$major") || ("$major" == 0 && "$ref" == "v0.$minor") ]]; then
    note "$ref is release $tag"
    release=true
elif [[ "$ref" =~ ^[0-9a-f]{40}$ && -n "$repo" ]]; then
    # A pinned sha (what zizmor asks of third-party actions): a release when it is the
    # commit of tag v<version>.
    api="${GITHUB_API_URL:-https://api.github.com}"
    auth=()
    [[ -n "${GH_TOKEN:-}" ]] && auth=(-H "Authorization: Bearer $GH_TOKEN")
    tag_sha="$(curl -fsS --retry 2 --connect-timeout 10 --max-time 30 ${auth[@]+"${auth[@]}"} \
        -H "Accept: application/vnd.github.sha" "$api/repos/$repo/commits/$tag" 2>/dev/null || true)"
    if [[ "$tag_sha" == "$ref" ]]; then
        note "$ref is the commit of release $tag"
        release=true
    else
        note "$ref is not the commit of release $tag"
    fi
fi

write_outputs() { printf '%s\n' "$@" "version=$version" >>"$output"; }

if [[ "$release" != true || -z "$target" ]]; then
    if [[ "$release" == true ]]; then
        note "no release binary is built for $runner_os $runner_arch: building $tag from source"
    else
        note "${ref:-a local checkout} is not a release: building the action's source"
    fi
    sum() { if command -v sha256sum >/dev/null; then sha256sum; else shasum -a 256; fi; }
    digest="$(cd "$action_path" && find Cargo.toml Cargo.lock src crates hooks -type f -print0 |
        LC_ALL=C sort -z | xargs -0 cat | sum | cut -c1-16)"
    root="${RUNNER_TOOL_CACHE:-$temp}/loopguard/$digest"
    write_outputs source=build "root=$root" "bin=$root/bin/loopguard$exe" \
        "key=loopguard-$runner_os-$runner_arch-$digest"
    exit 0
fi

asset="loopguard-$target.$ext"
base="${LOOPGUARD_RELEASE_BASE_URL:-${GITHUB_SERVER_URL:-https://github.com}/$repo/releases/download}"
url="${base%/}/$tag/$asset"
work="$(mktemp -d "$temp/loopguard-$tag-XXXXXX")"

fetch() { # URL FILE: 0, or the HTTP status / curl's failure on stderr and 1
    local code
    code="$(curl -sSL --retry 3 --retry-connrefused --connect-timeout 10 --max-time 120 \
        -o "$2" -w '%{http_code}' "$1")" || { echo "download failed" >&2; return 1; }
    [[ "$code" == 200 ]] || { echo "HTTP $code" >&2; return 1; }
}
err="$(fetch "$url" "$work/$asset" 2>&1)" ||
    die "release $tag has no usable $asset for $runner_os $runner_arch ($url: $err); a release ref never builds from source: pin a release that has it, or a commit sha to build"
err="$(fetch "$url.sha256" "$work/$asset.sha256" 2>&1)" ||
    die "release $tag has no $asset.sha256 ($url.sha256: $err): refusing an unverified binary"

# The checksum, before anything of the archive is read.
read -r expected name <"$work/$asset.sha256" || true
[[ "$expected" =~ ^[0-9a-f]{64}$ && ("${name#\*}" == "$asset" || -z "$name") ]] ||
    die "$asset.sha256 of release $tag is malformed: refusing an unverified binary"
if command -v sha256sum >/dev/null; then
    actual="$(sha256sum "$work/$asset" | cut -d' ' -f1)"
else
    actual="$(shasum -a 256 "$work/$asset" | cut -d' ' -f1)"
fi
if [[ "$actual" != "$expected" ]]; then
    rm -rf "$work"
    die "checksum mismatch for $asset of release $tag: expected $expected, got $actual; refusing to run it"
fi
note "$asset: sha256 $actual matches $asset.sha256"

# The attestation: who built it, from which repository (the release workflow's).
verify="${LOOPGUARD_VERIFY_ATTESTATION:-auto}"
if [[ "$verify" != never ]]; then
    if command -v gh >/dev/null && gh attestation verify --help >/dev/null 2>&1; then
        if ! gh attestation verify "$work/$asset" --repo "$repo" >"$work/attestation.log" 2>&1; then
            cat "$work/attestation.log" >&2
            rm -rf "$work"
            die "the build-provenance attestation of $asset does not verify for $repo; refusing to run it"
        fi
        note "$asset: build-provenance attestation of $repo verified"
    elif [[ "$verify" == always ]]; then
        die "LOOPGUARD_VERIFY_ATTESTATION=always, but this runner's gh cannot verify attestations"
    else
        note "no gh with \`attestation verify\` on this runner: the checksum alone was checked"
    fi
fi

dest="$work/unpacked"
mkdir -p "$dest"
if [[ "$ext" == zip ]]; then
    if command -v unzip >/dev/null; then
        unzip -q "$work/$asset" -d "$dest"
    else
        "$(command -v python3 || command -v python)" -m zipfile -e "$work/$asset" "$dest"
    fi
else
    tar -xzf "$work/$asset" -C "$dest"
fi
bin="$dest/loopguard-$target/loopguard$exe"
[[ -f "$bin" ]] || die "$asset of release $tag has no loopguard-$target/loopguard$exe"
chmod +x "$bin"
said="$("$bin" --version 2>&1 || true)"
[[ "$said" == "loopguard $version" ]] ||
    die "the binary of $asset says \"$said\", not \"loopguard $version\""
note "release $tag: $said ($target)"
write_outputs source=release "bin=$bin"
