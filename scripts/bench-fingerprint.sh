#!/usr/bin/env bash
# Benchmarks `loopguard fingerprint` on a generated GitHub Actions-format log (default
# 1 GiB: passing test lines with timestamps, the real failures of a fixture at the end),
# beside the error-signature extraction other loop guards use and beside `grep -c`, which
# is close to the memory-bandwidth limit. Prints wall time and peak memory of each.
#
#   scripts/bench-fingerprint.sh [SIZE_MIB]        # default 1024
#   LG_BENCH_RUNNER=pytest scripts/bench-fingerprint.sh   # a pytest -v run instead of cargo's
#
# Targets: faster than the grep|head|sed pipeline (issue 3), within 1.2x of `grep -c FAIL`
# (issue 20: more parsers must not slow it), peak memory under 64 MiB and unchanged.
# Each tool runs LG_BENCH_RUNS times (default 7), in rounds; the median wall time is
# reported (the machine may be shared: the load average is printed before and after).
# LG_BENCH_BEFORE=BINARY measures another build beside this one (main's, for a before/after).
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
BENCH_RUNNER=${LG_BENCH_RUNNER:-cargo}
[[ -s $LOG ]] || python3 - "$LOG" "$SIZE_MIB" "$ROOT/tests/fixtures/logs/$BENCH_RUNNER/two-failures/gha.log" "$BENCH_RUNNER" <<'PY'
import sys
path, size_mib, tail, runner = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
# One ~1 MiB block of what a long passing test run looks like in an Actions log.
lines, t, n = [], 0, 0
while sum(map(len, lines)) < (1 << 20):
    ts = "2026-11-25T10:%02d:%02d.%07dZ " % (t // 60 % 60, t % 60, (n * 7919) % 10_000_000)
    if runner == "pytest":
        if n % 500 == 0:
            lines.append(ts + "============================= test session starts ==============================\n")
        lines.append(ts + "tests/test_module_%d.py::test_handles_case_%04d_with_input_v2 PASSED [%3d%%]\n" % (n % 97, n, n % 500 // 5))
        if n % 500 == 499:
            lines.append(ts + "============================== 500 passed in 0.42s ==============================\n")
        n += 1
        t += n % 3 == 0
        continue
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

# The tools. LG_BENCH_BEFORE=BINARY adds another loopguard build (main's, say) to compare
# with, measured in the same rounds.
BEFORE=${LG_BENCH_BEFORE:-}
NAMES=(lg pipe grep)
[[ -z $BEFORE ]] || NAMES=(before lg pipe grep)
declare -A LABEL=([lg]="loopguard fingerprint" [before]="loopguard fingerprint (before)"
    [pipe]="grep -E ...|head -1|sed" [grep]="grep -c FAIL")

# run_tool NAME: runs it once under /usr/bin/time (wall seconds and peak RSS in $WORK/time).
# The wall time is taken from bash's microsecond clock around it: time's own %e counts in
# hundredths of a second, too coarse for a ratio near 1.2 on a run of 0.2 s.
run_tool() {
    local timed=(/usr/bin/time -f '%M' -o "$WORK/time") start=$EPOCHREALTIME
    case $1 in
    lg) "${timed[@]}" "${LOOPGUARD[@]}" "$LOG" ;;
    before) "${timed[@]}" "$BEFORE" fingerprint "$LOG" ;;
    pipe) "${timed[@]}" sh -c "grep -E '(Error|Exception|Failed|FAIL):' '$LOG' | head -1 | sed 's/:[0-9]*:/:N:/'" ;;
    grep) "${timed[@]}" grep -c FAIL "$LOG" ;;
    esac >"$WORK/stdout.$1" 2>/dev/null || true
    local end=$EPOCHREALTIME
    WALL=$(awk -v s="$start" -v e="$end" 'BEGIN { printf "%.4f", e - s }')
}

# LG_BENCH_RUNS rounds (default 7), each tool once per round in turn, so that a change in
# the machine's load falls on all of them alike; per tool the median wall time and the
# largest peak RSS.
RUNS=${LG_BENCH_RUNS:-7}
declare -A WALLS RSS MEDIAN
LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
for ((i = 0; i < RUNS; i++)); do
    for t in "${NAMES[@]}"; do
        run_tool "$t"
        # The last line: time puts "Command exited with non-zero status N" before it.
        read -r kib < <(tail -n 1 "$WORK/time")
        WALLS[$t]+="$WALL "
        ((kib > ${RSS[$t]:-0})) && RSS[$t]=$kib
    done
done

echo "rounds: $RUNS (median wall, max peak RSS); load average before: $LOAD_BEFORE, after: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-34s %10s %12s   %s\n' tool wall peak-rss output
for t in "${NAMES[@]}"; do
    # shellcheck disable=SC2086 # a list of numbers, a word each
    MEDIAN[$t]=$(printf '%s\n' ${WALLS[$t]} | sort -n | awk '{ a[NR] = $1 } END {
        print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }')
    printf '%-34s %8.3f s %8.1f MiB   %s\n' "${LABEL[$t]}" "${MEDIAN[$t]}" \
        "$(awk "BEGIN{print ${RSS[$t]}/1024}")" "$(head -c 90 "$WORK/stdout.$t" | tr '\n' ' ')"
done
awk -v lg="${MEDIAN[lg]}" -v pipe="${MEDIAN[pipe]}" -v grep="${MEDIAN[grep]}" \
    -v before="${MEDIAN[before]:-0}" 'BEGIN {
    printf "loopguard / grep-pipeline = %.2f (target < 1)\n", lg / pipe
    printf "loopguard / grep -c       = %.2f (target <= 1.2)\n", lg / grep
    if (before > 0) printf "before    / grep -c       = %.2f\n", before / grep
}'
