#!/usr/bin/env bash
# The cost of `loopguard fingerprint` across the shapes a CI log takes, each beside
# `grep -c FAIL` on the same file in the same rounds (close to the memory-bandwidth limit:
# what passing over a line costs). Prints, per shape, the median CPU time (user + system) of
# each, their ratio, loopguard's median wall time and its peak RSS.
#
#   scripts/bench-matrix.sh [SIZE_MIB] [MIXED_MIB]   # default 256 and 1024
#   LG_BENCH_MAX_RATIO=1.2 LG_BENCH_MAX_RSS_MIB=64 scripts/bench-matrix.sh 16 32
#
# What grep is given, and what the ratio means:
# - grep's count goes to a file, never to /dev/null: GNU grep treats output to /dev/null
#   as -q and stops at the first match, so a log with a FAIL near its start (go-fail-dense,
#   mixed) was never read (2 ms for 32 MiB), and those ratios (71, 84, up to 169) measured
#   that, not the log.
# - `grep -c FAIL` looks for one literal whose first byte is rare (a memchr skip loop,
#   about 6 GB/s here); loopguard looks for every runner's triggers (109 literals, 65 once
#   those containing another are dropped) and parses the lines that hold one. `grep -c -F`
#   given those 109 literals, the same question, reads a log of bare `test x ... ok` lines
#   at twice loopguard's CPU time and jest's at 3.7 times: the ratio here is to the cheapest
#   scan there is, not to grep answering loopguard's question.
# - CPU time, not wall time: on a loaded machine (2 cores, load 20) a process waits for a
#   core about ten times as long as it runs, so the wall time of a 30 ms run is the
#   scheduler's, and wall ratios moved 2.5x between two runs of the same binaries.
#
# Shapes (each a generated GitHub Actions log, timestamped, of SIZE_MIB, a real failure of a
# fixture at its end so that the whole log is read to the end):
#   build-noise   cargo/npm/pip build output: Compiling/Downloading/Downloaded ... v1.2.3
#   bare-tests    libtest's `test x ... ok` lines outside a run header (no `running N tests`)
#   cargo-runs    cargo test binaries with their `Running`/`running N tests` headers
#   pytest-v      pytest -v: `tests/x.py::test_y PASSED [ 50%]`
#   jest          jest/vitest: `PASS file`, `  ✓ name (3 ms)`
#   long-line     one line of SIZE_MIB (a minified bundle, a base64 blob)
#   go-fail-dense go test -v with a failing test every third test (RUN, FAIL, the message)
#   mixed         MIXED_MIB of all of the above in turns
# With LG_BENCH_MAX_RATIO and/or LG_BENCH_MAX_RSS_MIB set, exits 1 when a shape is over
# either; LG_BENCH_BOUNDS="shape=ratio ..." sets a shape's own ratio bound (.ci/run runs it
# small that way: a regression fails CI). The target is 1.2 for every shape. LG_BENCH_RUNS rounds
# (default 5); LG_BENCH_SHAPES="a b" measures only those; LG_BENCH_BEFORE=BINARY adds
# another build to compare with. Needs python3 (the generator) and GNU time.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
SIZE_MIB=${1:-256}
MIXED_MIB=${2:-1024}
RUNS=${LG_BENCH_RUNS:-5}
SHAPES=${LG_BENCH_SHAPES:-"build-noise bare-tests cargo-runs pytest-v jest long-line go-fail-dense mixed"}
BEFORE=${LG_BENCH_BEFORE:-}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/lg-matrix.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

cd "$ROOT"
if [[ -n ${LG_BENCH_BIN:-} ]]; then
    LOOPGUARD=$LG_BENCH_BIN
else
    cargo build --release --quiet --bin loopguard
    LOOPGUARD=target/release/loopguard
fi

# gen SHAPE MIB FILE: writes the shape's log.
gen() {
    python3 - "$1" "$2" "$3" "$ROOT/tests/fixtures/logs" <<'PY'
import sys
shape, mib, path, logs = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
state = {"n": 0, "t": 0, "k": 0}

def ts():
    n, t = state["n"], state["t"]
    return "2026-11-25T10:%02d:%02d.%07dZ " % (t // 60 % 60, t % 60, (n * 7919) % 10_000_000)

def tick(lines, text):
    lines.append(ts() + text + "\n")
    state["n"] += 1
    state["t"] += state["n"] % 3 == 0

def block(shape):
    """About 1 MiB of the shape."""
    lines = []
    size = 0
    crates = ["serde", "tokio", "regex", "thiserror", "anyhow", "syn", "quote", "libc", "memchr", "error-chain"]
    while size < (1 << 20):
        n = state["n"]
        before = len(lines)
        if shape == "build-noise":
            c = crates[n % len(crates)]
            kind = n % 3
            if kind == 0:
                tick(lines, "   Compiling %s v1.%d.%d" % (c, n % 40, n % 7))
            elif kind == 1:
                tick(lines, "  Downloaded %s v1.%d.%d" % (c, n % 40, n % 7))
            else:
                tick(lines, "Downloading https://files.example.org/packages/%s-1.%d.%d.tar.gz (%d kB)" % (c, n % 40, n % 7, n % 900))
        elif shape == "bare-tests":
            tick(lines, "test module_%d::handles_case_%04d_with_input_v2 ... ok" % (n % 97, n))
        elif shape == "cargo-runs":
            # Counted by test (k), not by line (n): a header's lines must not skip the next
            # header (they did, and all but the first 500 tests were outside a run).
            k = state["k"]
            state["k"] += 1
            if k % 500 == 0:
                tick(lines, "     Running unittests src/lib.rs (target/debug/deps/app-%016x)" % (k * 2654435761))
                tick(lines, "")
                tick(lines, "running 500 tests")
            tick(lines, "test module_%d::handles_case_%04d_with_input_v2 ... ok" % (k % 97, k))
            if k % 500 == 499:
                tick(lines, "")
                tick(lines, "test result: ok. 500 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.42s")
        elif shape == "pytest-v":
            k = state["k"]
            state["k"] += 1
            if k % 500 == 0:
                tick(lines, "============================= test session starts ==============================")
            tick(lines, "tests/test_module_%d.py::test_handles_case_%04d_with_input_v2 PASSED [%3d%%]" % (k % 97, k, k % 500 // 5))
            if k % 500 == 499:
                tick(lines, "============================== 500 passed in 0.42s ==============================")
        elif shape == "jest":
            if n % 50 == 0:
                tick(lines, "PASS src/module_%d/handles.test.js (%d.%02d s)" % (n % 97, n % 5, n % 100))
            tick(lines, "  \u2713 handles case %04d with input v2 (%d ms)" % (n, n % 40))
        elif shape == "go-fail-dense":
            tick(lines, "=== RUN   TestHandlesCase%04d" % n)
            if n % 3 == 0:
                tick(lines, "    case_test.go:%d: got %d, want %d" % (n % 300, n, n + 1))
                tick(lines, "--- FAIL: TestHandlesCase%04d (0.00s)" % n)
            else:
                tick(lines, "--- PASS: TestHandlesCase%04d (0.00s)" % n)
        size += sum(len(l) for l in lines[before:])
    return "".join(lines).encode()

with open(path, "wb") as out:
    out.write(b"\xef\xbb\xbf")
    if shape == "long-line":
        out.write(ts().encode())
        chunk = b"eyJhbGciOiJIUzI1NiJ9x" * 49932
        for _ in range(mib):
            out.write(chunk[: 1 << 20])
        out.write(b"\n")
    else:
        shapes = ["build-noise", "bare-tests", "cargo-runs", "pytest-v", "jest", "go-fail-dense"]
        blocks = {s: block(s) for s in (shapes if shape == "mixed" else [shape])}
        for i in range(mib):
            out.write(blocks[shapes[i % len(shapes)]] if shape == "mixed" else blocks[shape])
    with open(logs + "/cargo/two-failures/gha.log", "rb") as f:
        data = f.read()
    out.write(data[3:] if data.startswith(b"\xef\xbb\xbf") else data)
PY
}

# measure CMD... -> sets CPU (seconds, user + system), WALL (seconds) and KIB (peak RSS) of
# one run of CMD, its output to a file (see above: not /dev/null). bash's `time` reads the
# CPU time of its children to the microsecond (GNU time's %U and %S are in hundredths, as
# long as grep's whole run); GNU time under it gives the peak RSS and costs about 1 ms.
measure() {
    local times user sys
    times=$( { TIMEFORMAT='%3U %3S %3R'; time /usr/bin/time -f '%M' -o "$WORK/rss" "$@" >"$WORK/out" 2>/dev/null; } 2>&1 )
    read -r user sys WALL <<<"$times"
    CPU=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.4f", u + s }')
    KIB=$(tail -n 1 "$WORK/rss")
}

median() {
    printf '%s\n' "$@" | sort -n | awk '{ a[NR] = $1 } END {
        print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
}

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg); rounds: $RUNS (median CPU and wall, max peak RSS)"
if [[ -n $BEFORE ]]; then
    printf '%-14s %6s %8s %8s %7s %8s %8s %8s %7s\n' shape MiB grep-cpu lg-cpu ratio lg-wall rss-MiB before ratio
else
    printf '%-14s %6s %8s %8s %7s %8s %8s\n' shape MiB grep-cpu lg-cpu ratio lg-wall rss-MiB
fi
FAILED=0
for shape in $SHAPES; do
    mib=$SIZE_MIB
    [[ $shape == mixed ]] && mib=$MIXED_MIB
    log=$WORK/$shape.log
    gen "$shape" "$mib" "$log"
    cat "$log" >/dev/null # from the page cache, for every tool alike
    g=() l=() lw=() b=() rss=0
    for ((i = 0; i < RUNS; i++)); do
        measure grep -c FAIL "$log"
        g+=("$CPU")
        measure "$LOOPGUARD" fingerprint "$log"
        l+=("$CPU")
        lw+=("$WALL")
        ((KIB > rss)) && rss=$KIB
        if [[ -n $BEFORE ]]; then
            measure "$BEFORE" fingerprint "$log"
            b+=("$CPU")
        fi
    done
    gm=$(median "${g[@]}")
    lm=$(median "${l[@]}")
    lwm=$(median "${lw[@]}")
    ratio=$(awk -v l="$lm" -v g="$gm" 'BEGIN { printf "%.2f", l / g }')
    rss_mib=$(awk -v k="$rss" 'BEGIN { printf "%.1f", k / 1024 }')
    size=$(($(stat -c %s "$log") >> 20))
    if [[ -n $BEFORE ]]; then
        bm=$(median "${b[@]}")
        printf '%-14s %6s %8.3f %8.3f %7s %8.3f %8s %8.3f %7.2f\n' "$shape" "$size" \
            "$gm" "$lm" "$ratio" "$lwm" "$rss_mib" "$bm" "$(awk -v b="$bm" -v g="$gm" 'BEGIN { print b / g }')"
    else
        printf '%-14s %6s %8.3f %8.3f %7s %8.3f %8s\n' "$shape" "$size" "$gm" "$lm" "$ratio" "$lwm" "$rss_mib"
    fi
    bound=${LG_BENCH_MAX_RATIO:-}
    for b in ${LG_BENCH_BOUNDS:-}; do
        [[ ${b%%=*} == "$shape" ]] && bound=${b#*=}
    done
    if [[ -n $bound ]] && awk -v r="$ratio" -v m="$bound" 'BEGIN { exit !(r > m) }'; then
        echo "bench-matrix: $shape: loopguard takes ${ratio}x grep -c (bound: $bound)" >&2
        FAILED=1
    fi
    if [[ -n ${LG_BENCH_MAX_RSS_MIB:-} ]] && awk -v r="$rss_mib" -v m="$LG_BENCH_MAX_RSS_MIB" 'BEGIN { exit !(r > m) }'; then
        echo "bench-matrix: $shape: peak RSS ${rss_mib} MiB (bound: $LG_BENCH_MAX_RSS_MIB MiB)" >&2
        FAILED=1
    fi
    rm -f "$log"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
exit "$FAILED"
