#!/usr/bin/env bash
# Prints the notes of one version from CHANGELOG.md: the body of its `## [X.Y.Z] - DATE`
# section, without the heading. Fails when the section is missing or empty, and with
# --released also when it is not dated (`- unreleased`): the release workflow uses that, so a
# tag cannot ship notes that were never finished.
#
#   scripts/release-notes.sh [--released] VERSION [CHANGELOG.md]
set -euo pipefail

released=false
if [[ "${1:-}" == --released ]]; then
    released=true
    shift
fi
version="${1:?usage: release-notes.sh [--released] VERSION [CHANGELOG.md]}"
changelog="${2:-CHANGELOG.md}"

heading="$(grep -E "^## \[${version//./\\.}\]" "$changelog" || true)"
if [[ -z "$heading" ]]; then
    echo "release-notes: $changelog has no section \"## [$version]\"" >&2
    exit 1
fi
if [[ "$(printf '%s\n' "$heading" | wc -l)" -ne 1 ]]; then
    echo "release-notes: $changelog has more than one section for $version" >&2
    exit 1
fi
if [[ "$released" == true && ! "$heading" =~ \]\ -\ [0-9]{4}-[0-9]{2}-[0-9]{2}$ ]]; then
    echo "release-notes: the $version section is not dated (\"$heading\"): set the release date" >&2
    exit 1
fi

notes="$(awk -v heading="$heading" '
    $0 == heading { inside = 1; next }
    inside && (/^## / || /^\[[^]]+\]: /) { exit }
    inside { print }
' "$changelog" | sed -e '/./,$!d')"
# (sed: drop leading blank lines; $(...) drops the trailing ones.)
if [[ -z "${notes//[[:space:]]/}" ]]; then
    echo "release-notes: the $version section of $changelog is empty" >&2
    exit 1
fi
printf '%s\n' "$notes"
