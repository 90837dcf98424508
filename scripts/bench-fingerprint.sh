#!/usr/bin/env bash
# Benchmarks `loopguard fingerprint` on a generated GitHub Actions-format log (default
# 1 GiB: passing test lines with timestamps, the real failures of a fixture at the end),
# beside the error-signature extraction other loop guards use and beside `grep -c`, which
# is close to the memory-bandwidth limit. Prints wall time and peak memory of each.
#
#   scripts/bench-fingerprint.sh [SIZE_MIB]        # default 1024
#
# Targets (issue 3): faster than the grep|head|sed pipeline, within 3x of `grep -c FAIL`,
# peak memory under 64 MiB.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
SIZE_MIB=${1:-1024}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/lg-bench.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
# LG_BENCH_LOG=FILE keeps the generated log there (and reuses it when it exists).
LOG=${LG_BENCH_LOG:-$WORK/actions.log}

cd "$ROOT"
cargo build --release --quiet --bin loopguard
LOOPGUARD=(target/release/loopguard fingerprint)

[[ -s $LOG ]] || echo "generating a ${SIZE_MIB} MiB GitHub Actions log at $LOG ..." >&2
[[ -s $LOG ]] || python3 - "$LOG" "$SIZE_MIB" "$ROOT/tests/fixtures/logs/cargo/two-failures/gha.log" <<'PY'
import sys
path, size_mib, tail = sys.argv[1], int(sys.argv[2]), sys.argv[3]
# One ~1 MiB block of what a long passing cargo test run looks like in an Actions log.
lines, t, n = [], 0, 0
while sum(map(len, lines)) < (1 << 20):
    ts = "2026-11-25T10:%02d:%02d.%07dZ " % (t // 60 % 60, t % 60, (n * 7919) % 10_000_000)
    if n % 500 == 0:
        lines.append(ts + "     Running unittests src/lib.rs (target/debug/deps/app-%016x)\n" % (n * 2654435761))
        lines.append(ts + "\n")
        lines.append(ts + "running 500 tests\n")
    lines.append(ts + "test module_%d::handles_case_%04d_with_input_v2 ... ok\n" % (n % 97, n))
    if n % 500 == 499:
        lines.append(ts + "\n")
        lines.append(ts + "test result: ok. 500 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.42s\n")
        lines.append(ts + "\n")
    n += 1
    t += n % 3 == 0
block = "".join(lines).encode()
with open(path, "wb") as out:
    out.write(b"\xef\xbb\xbf")
    written = 0
    while written + len(block) <= size_mib << 20:
        out.write(block)
        written += len(block)
    with open(tail, "rb") as f:
        data = f.read()
    out.write(data[3:] if data.startswith(b"\xef\xbb\xbf") else data)
PY
ls -l "$LOG" >&2
cat "$LOG" >/dev/null # warm the page cache: every tool reads from memory

# measure NAME CMD...: best wall time of 3 runs, and the peak RSS.
measure() {
    local name=$1 rss=0 wall kib
    best=""
    shift
    for _ in 1 2 3; do
        /usr/bin/time -f '%e %M' -o "$WORK/time" "$@" >"$WORK/stdout" 2>/dev/null || true
        read -r wall kib <"$WORK/time"
        if [[ -z $best ]] || awk "BEGIN{exit !($wall < $best)}"; then best=$wall; fi
        ((kib > rss)) && rss=$kib
    done
    printf '%-34s %8.2f s %8.1f MiB   %s\n' "$name" "$best" "$(awk "BEGIN{print $rss/1024}")" \
        "$(head -c 90 "$WORK/stdout" | tr '\n' ' ')"
}

printf '%-34s %10s %12s   %s\n' tool wall peak-rss output
measure "loopguard fingerprint" "${LOOPGUARD[@]}" "$LOG"
LG_WALL=$best
measure 'grep -E ...|head -1|sed' sh -c \
    "grep -E '(Error|Exception|Failed|FAIL):' '$LOG' | head -1 | sed 's/:[0-9]*:/:N:/'"
PIPE_WALL=$best
measure "grep -c FAIL" grep -c FAIL "$LOG"
GREP_WALL=$best

awk -v lg="$LG_WALL" -v pipe="$PIPE_WALL" -v grep="$GREP_WALL" 'BEGIN {
    printf "loopguard / grep-pipeline = %.2f (target < 1)\n", lg / pipe
    printf "loopguard / grep -c       = %.2f (target <= 3)\n", lg / grep
}'
