#!/usr/bin/env bash
# shellcheck disable=SC2043 # a runner's one-scenario loops are written like its others
# Regenerates tests/fixtures/logs/** by running the real test runners on the small projects
# under tests/fixtures/projects/<runner>/. Tests read the committed output; they never need
# the runners.
#
#   scripts/gen-fixtures.sh [RUNNER...]     # default: every runner
#   scripts/gen-fixtures.sh RUNNER/SCENARIO[,SCENARIO...]   # only those failure dirs
#
# Layout: tests/fixtures/logs/<runner>/<failure>/<variant>.{log,xml}. Every file in one
# failure directory is the same failure seen through different noise (another temp dir,
# shifted line numbers, extra passing tests, colour, threads, a GitHub Actions raw log), so
# it must give one signature; different failure directories must give different
# signatures; `passing/` must give none.
#
# Volatile parts: some scenarios make a real failure mention what changes from run to run
# (temp dirs, UUIDs, ports, pids, addresses, timestamps, property-test seeds). Their
# variants include `rerun`, the same command run again, so that the volatile part is the
# only difference (the Actions wrapping of every fixture is tested on its own, so they
# have no `gha` variant). Each run gets a random CLOCK_SKEW_DAYS that those tests add to the
# clock, so that dates differ between variants as they do between days. Temp paths of
# macOS (/var/folders/../T) and Windows (C:\Users\..\AppData\Local\Temp) cannot be run
# here: the `macos` and `windows` variants are the `plain` log with its checkout and
# temp-root prefixes rewritten (see os_variant below), nothing else changed.
#
# Needs: cargo + cargo-nextest; python3 (pytest is installed into a venv); go; node + npm
# (jest, vitest@3, mocha, typescript are installed into the project copies); java + mvn for
# the Surefire reports when the Debian maven repository has the plugins.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
PROJECTS=$ROOT/tests/fixtures/projects
LOGS=$ROOT/tests/fixtures/logs
WORK=$(mktemp -d "${TMPDIR:-/tmp}/lg-fixtures.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
export CARGO_TERM_COLOR=never
unset NO_COLOR RUST_BACKTRACE

note() { printf '%s\n' "gen-fixtures: $*" >&2; }

# copy_project RUNNER SCENARIO VARIANT -> prints a fresh copy with the scenario applied.
# Every call lands in a new random directory, so temp paths differ between variants.
copy_project() {
    local runner=$1 scenario=$2 variant=$3 dir
    local project=$runner
    [[ $runner == nextest ]] && project=cargo
    dir=$(mktemp -d "$WORK/run.XXXXXXXX")/$project-proj
    mkdir -p "$dir"
    (cd "$PROJECTS/$project" && tar --exclude=scenarios --exclude=extra --exclude=node_modules \
        --exclude=target -cf - .) | (cd "$dir" && tar -xf -)
    if [[ -f $PROJECTS/$project/package.json ]]; then
        case $project in
        playwright | bun | deno | heldout/playwright | heldout/bun | heldout/deno)
            ln -s "$(js_tools)/node_modules" "$dir/node_modules" ;;
        *) ln -s "$(node_tools)/node_modules" "$dir/node_modules" ;;
        esac
    fi
    (cd "$dir" && bash "$PROJECTS/$project/scenarios/$scenario.sh")
    case $variant in
    shifted*) shift_lines "$dir" ;;
    extra*) (cd "$PROJECTS/$project/extra" && tar -cf - .) | (cd "$dir" && tar -xf -) ;;
    esac
    printf '%s\n' "$dir"
}

# node_tools: prints the directory holding node_modules with every JavaScript tool the
# fixtures run (installed once from the npm registry; vitest 3 because vite 8 needs npm 11).
node_tools() {
    local dir=${LG_FIXTURE_NODE:-$WORK/node}
    if [[ ! -x $dir/node_modules/.bin/jest || ! -d $dir/node_modules/fast-check ]]; then
        mkdir -p "$dir"
        echo '{"name":"lg-fixture-tools","private":true}' >"$dir/package.json"
        (cd "$dir" && npm install -q --no-audit --no-fund jest@29 jest-junit@16 vitest@3 \
            mocha@10 typescript@5 fast-check@3 >&2)
    fi
    printf '%s\n' "$dir"
}

# js_tools: prints the directory holding node_modules with Playwright Test, bun and deno
# (installed once from the npm registry; bun and deno come as npm packages with their
# binaries).
js_tools() {
    local dir=${LG_FIXTURE_JS:-$WORK/js}
    if [[ ! -x $dir/node_modules/.bin/playwright || ! -x $dir/node_modules/.bin/bun ]]; then
        mkdir -p "$dir"
        echo '{"name":"lg-fixture-js","private":true}' >"$dir/package.json"
        (cd "$dir" && npm install -q --no-audit --no-fund @playwright/test@1 bun@1 deno@2 >&2)
    fi
    printf '%s\n' "$dir"
}

# Prepends comment lines to every source file: line numbers move, the failure does not.
shift_lines() {
    local f
    while IFS= read -r -d '' f; do
        case $f in
        *.py) printf '# shifted\n# shifted\n# shifted\n\n# shifted\n' | cat - "$f" >"$f.new" ;;
        *.rs | *.go | *.js | *.ts | *.mjs | *.java | *.cpp | *.cc | *.c | *.h | *.cs)
            printf '// shifted\n// shifted\n// shifted\n\n// shifted\n' | cat - "$f" >"$f.new" ;;
        *.rb | *.ex | *.exs | *.t | *.pm | *.bats | *.sh | CMakeLists.txt)
            printf '# shifted\n# shifted\n# shifted\n\n# shifted\n' | cat - "$f" >"$f.new" ;;
        *.php) # after the opening tag, which must stay first
            { head -n 1 "$f"; printf '// shifted\n// shifted\n// shifted\n\n// shifted\n'; tail -n +2 "$f"; } >"$f.new" ;;
        *) continue ;;
        esac
        mv "$f.new" "$f"
    done < <(find "$1" -path "$1/node_modules" -prune -o -type f -print0)
}

# gha_wrap COMMAND STATUS [crlf] < output > log: the raw log GitHub Actions serves for a
# step that ran COMMAND and exited with STATUS: a BOM, a timestamp on every line, group
# markers, a `\r` progress line, and the runner's own closing error when STATUS is not 0.
gha_wrap() {
    python3 "$WORK/gha_wrap.py" "$@"
}
cat >"$WORK/gha_wrap.py" <<'PY'
import random, sys
cmd = sys.argv[1]
status = int(sys.argv[2])
crlf = len(sys.argv) > 3 and sys.argv[3] == "crlf"
rng = random.Random()
t = rng.randint(0, 3000) * 1.0
def stamp():
    global t
    t += rng.random() * 0.05
    s = int(t)
    return "2026-11-25T%02d:%02d:%02d.%07dZ " % (10 + s // 3600, s // 60 % 60, s % 60, int((t - s) * 1e7))
eol = b"\r\n" if crlf else b"\n"
out = sys.stdout.buffer
out.write(b"\xef\xbb\xbf")
def line(b):
    out.write(stamp().encode() + b + eol)
line(b"##[group]Run actions/checkout@v4")
line(b"Syncing repository: octo/wordcount")
line(b"##[endgroup]")
line(b"Receiving objects:  12% (3/25)\rReceiving objects:  64% (16/25)\rReceiving objects: 100% (25/25), done.")
line(b"##[group]Run " + cmd.encode())
line(cmd.encode())
line(b"shell: /usr/bin/bash -e {0}")
line(b"env:")
line(b"  CARGO_TERM_COLOR: always")
line(b"##[endgroup]")
data = sys.stdin.buffer.read()
for l in data.split(b"\n")[:-1] if data.endswith(b"\n") else data.split(b"\n"):
    line(l)
if status != 0:
    line(b"##[error]Process completed with exit code %d." % status)
line(b"Post job cleanup.")
PY

# save OUTFILE: stores stdin.
save() {
    mkdir -p "$(dirname "$1")"
    cat >"$1"
    note "wrote ${1#"$LOGS"/} ($(wc -c <"$1") bytes)"
}

# run_in DIR COMMAND...: runs COMMAND in DIR with stdout and stderr merged, as a CI log
# shows them; sets STATUS. The runner failing is the point, so its status never stops us.
run_in() {
    local dir=$1 skew=$((RANDOM % 1000))
    shift
    STATUS=0
    (cd "$dir" && CLOCK_SKEW_DAYS=$skew "$@") >"$WORK/out" 2>&1 || STATUS=$?
}

# emit RUNNER SCENARIO VARIANT CMD...: copies the project, runs CMD, saves the output (in
# the failure directory $AS, default SCENARIO), and for `gha*` variants the GitHub Actions
# wrapping of it. Leaves the copy in $DIR for report files the run wrote.
emit() {
    local runner=$1 scenario=$2 variant=$3
    shift 3
    DIR=$(copy_project "$runner" "$scenario" "$variant")
    run_in "$DIR" "$@"
    case $variant in
    gha-crlf*) gha_wrap "$*" "$STATUS" crlf <"$WORK/out" ;;
    gha*) gha_wrap "$*" "$STATUS" <"$WORK/out" ;;
    *) cat "$WORK/out" ;;
    esac | save "$LOGS/$runner/${AS:-$scenario}/$variant.log"
}

# wanted SCENARIO: whether this run generates SCENARIO (all unless RUNNER/SCENARIO args).
wanted() {
    [[ -z $ONLY || $ONLY == *" $1 "* ]]
}

# os_variants RUNNER FAILURE...: adds `macos` and `windows` variants to each failure dir,
# made from its `plain` log (or `plain.xml`) by os_variant.py: the same failure on a macOS
# or Windows runner, where the checkout and the system temp dir live elsewhere.
os_variants() {
    local runner=$1 failure ext os
    shift
    for failure in "$@"; do
        wanted "$failure" || continue
        ext=log
        [[ -f $LOGS/$runner/$failure/plain.log ]] || ext=xml
        for os in macos windows; do
            python3 "$WORK/os_variant.py" "$os" "$runner" "${TMPDIR:-/tmp}" "$(cargo_target)" \
                <"$LOGS/$runner/$failure/plain.$ext" | save "$LOGS/$runner/$failure/$os.$ext"
        done
    done
}
# Rewrites, in a Linux log, the paths a macOS or Windows runner shows differently, and
# nothing else (error texts stay Linux's):
# - the project copy ($WORK/run.X/P-proj) -> the runner's checkout, /Users/runner/work/
#   wordcount/wordcount or D:\a\wordcount\wordcount; the shared cargo target dir
#   (cargo_target) -> its target/;
# - the system temp dir (/tmp, or $TMPDIR) -> $TMPDIR of a macOS runner,
#   /var/folders/<2>/<30>/T (random, as macOS makes them; pytest resolves it to
#   /private/var/...), or %TEMP% of a Windows runner, C:\Users\RUNNER~1\AppData\Local\Temp;
# - pytest-of-root -> pytest-of-runner / pytest-of-runneradmin (the runner's user);
# - on Windows, `/` -> `\` inside those paths, doubled inside a quoted Python repr, and
#   pathlib's PosixPath is a WindowsPath.
cat >"$WORK/os_variant.py" <<'PY'
import random, re, string, sys
os_name, runner, tmp, target = sys.argv[1], sys.argv[2], sys.argv[3].rstrip("/"), sys.argv[4]
rng = random.Random()
alnum = string.ascii_lowercase + string.digits
if os_name == "macos":
    temp = "/var/folders/%s/%s/T" % (
        "".join(rng.choice(alnum) for _ in range(2)),
        "".join(rng.choice(alnum + "_") for _ in range(30)),
    )
    if runner == "pytest":
        temp = "/private" + temp
    checkout, user = "/Users/runner/work/wordcount/wordcount", "runner"
else:
    temp, checkout, user = r"C:\Users\RUNNER~1\AppData\Local\Temp", r"D:\a\wordcount\wordcount", "runneradmin"
work = re.escape(tmp) + r"/lg-fixtures\.\w+"
path = re.compile(
    r"(?<![\w.~/-])(?:(?P<proj>%s/run\.\w+/[\w-]+-proj)|(?P<target>%s)|(?P<tmp>%s))"
    r"(?P<rest>(?:/[^\s'\"`:,;()\[\]{}<>|]*)?)" % (work, re.escape(target), re.escape(tmp))
)
def rewrite(m):
    if m["proj"]:
        head = checkout
    elif m["target"]:
        head = checkout + ("/target" if os_name == "macos" else r"\target")
    else:
        head = temp
    rest = m["rest"].replace("pytest-of-root", "pytest-of-" + user)
    if os_name == "windows":
        sep = "\\"
        if runner.split("/")[-1] in ("pytest", "unittest") and m.start() > 0 and m.string[m.start() - 1] == "'":
            sep, head = "\\\\", head.replace("\\", "\\\\")
        rest = rest.replace("/", sep)
    return head + rest
data = path.sub(rewrite, sys.stdin.buffer.read().decode("utf-8", "surrogateescape"))
if os_name == "windows":
    data = data.replace("PosixPath(", "WindowsPath(")
sys.stdout.buffer.write(data.encode("utf-8", "surrogateescape"))
PY

# cargo_target: the target dir of the scenarios with dev-dependencies, which build once
# (LG_FIXTURE_CARGO_TARGET=DIR keeps it between runs of this script).
cargo_target() {
    printf '%s\n' "${LG_FIXTURE_CARGO_TARGET:-$WORK/cargo-target}"
}

gen_cargo() {
    local s
    for s in passing assert-count panic-count should-panic doctest compile-error missing-file \
        two-failures abort exit-early; do
        wanted "$s" || continue
        emit cargo "$s" plain cargo test --no-fail-fast --color never
        emit cargo "$s" color cargo test --no-fail-fast --color always -- --color always
        RUST_BACKTRACE=1 emit cargo "$s" threads1-backtrace cargo test --no-fail-fast \
            --color never -- --test-threads=1
        emit cargo "$s" shifted cargo test --no-fail-fast --color never
        emit cargo "$s" extra cargo test --no-fail-fast --color never
        emit cargo "$s" gha cargo test --no-fail-fast --color always -- --color always
        emit cargo "$s" quiet cargo test --no-fail-fast --color never -q
    done
    # Volatile parts. Their dev-dependencies build once, in one target dir.
    local -x CARGO_TARGET_DIR
    CARGO_TARGET_DIR=$(cargo_target)
    for s in tempfile volatile-values proptest quickcheck; do
        wanted "$s" || continue
        emit cargo "$s" plain cargo test --no-fail-fast --color never
        emit cargo "$s" rerun cargo test --no-fail-fast --color never
        emit cargo "$s" threads1 cargo test --no-fail-fast --color never -- --test-threads=1
        emit cargo "$s" quiet cargo test --no-fail-fast --color never -q
    done
    os_variants cargo missing-file tempfile
}

gen_nextest() {
    local s
    for s in passing assert-count panic-count should-panic compile-error missing-file \
        two-failures; do
        wanted "$s" || continue
        emit nextest "$s" plain cargo nextest run --color never --no-fail-fast
        emit nextest "$s" color cargo nextest run --color always --no-fail-fast
        emit nextest "$s" threads1 cargo nextest run --color never --no-fail-fast -j 1
        emit nextest "$s" retries cargo nextest run --color never --no-fail-fast --retries 2
        emit nextest "$s" shifted cargo nextest run --color never --no-fail-fast
        emit nextest "$s" extra cargo nextest run --color never --no-fail-fast
        emit nextest "$s" gha cargo nextest run --color always --no-fail-fast
        emit nextest "$s" junit cargo nextest run --color never --profile ci
        if [[ -f $DIR/target/nextest/ci/junit.xml ]]; then
            save "$LOGS/nextest/$s/junit.xml" <"$DIR/target/nextest/ci/junit.xml"
        fi
        rm -f "$LOGS/nextest/$s/junit.log"
    done
    # A test that fails once and passes on the retry is not a failure.
    if wanted passing; then
        FLAKY_RUN=$RANDOM$RANDOM AS=passing emit nextest flaky flaky-retries cargo nextest run --color never --retries 2
        FLAKY_RUN=$RANDOM$RANDOM AS=passing emit nextest flaky gha-flaky-retries cargo nextest run --color always --retries 2
    fi
    local -x CARGO_TARGET_DIR
    CARGO_TARGET_DIR=$(cargo_target)
    for s in tempfile volatile-values proptest quickcheck; do
        wanted "$s" || continue
        emit nextest "$s" plain cargo nextest run --color never --no-fail-fast
        emit nextest "$s" rerun cargo nextest run --color never --no-fail-fast
        emit nextest "$s" threads1 cargo nextest run --color never --no-fail-fast -j 1
        emit nextest "$s" junit cargo nextest run --color never --profile ci
        # nextest's store dir is target/nextest under the workspace, whatever the target dir.
        save "$LOGS/nextest/$s/junit.xml" <"$DIR/target/nextest/ci/junit.xml"
        rm -f "$LOGS/nextest/$s/junit.log"
    done
    os_variants nextest missing-file tempfile
}

gen_pytest() {
    local venv=${LG_FIXTURE_VENV:-$WORK/venv} s
    [[ -x $venv/bin/pytest ]] || python3 -m venv "$venv"
    "$venv/bin/pip" install -q pytest pytest-xdist hypothesis
    local pytest=("$venv/bin/pytest" -p no:cacheprovider)
    for s in passing assert-count type-error fixture-error collection-error import-error \
        missing-file param-failure two-failures; do
        wanted "$s" || continue
        emit pytest "$s" plain "${pytest[@]}"
        emit pytest "$s" verbose "${pytest[@]}" -v
        emit pytest "$s" quiet "${pytest[@]}" -q
        COLUMNS=60 emit pytest "$s" ra-narrow "${pytest[@]}" -ra
        COLUMNS=200 emit pytest "$s" vv-wide "${pytest[@]}" -vv -ra
        emit pytest "$s" color "${pytest[@]}" --color=yes
        emit pytest "$s" shifted "${pytest[@]}"
        emit pytest "$s" extra "${pytest[@]}" -v
        emit pytest "$s" xdist "${pytest[@]}" -n 2
        emit pytest "$s" gha "${pytest[@]}" --color=yes
        emit pytest "$s" junit "${pytest[@]}" --junitxml=report.xml
        save "$LOGS/pytest/$s/junit.xml" <"$DIR/report.xml"
        rm -f "$LOGS/pytest/$s/junit.log"
    done
    # A test that kills the interpreter: no JUnit report is written, and xdist reports the
    # worker's crash as its own failure (a failure too, but another one).
    if wanted segfault; then
        s=segfault
        emit pytest "$s" plain "${pytest[@]}"
        emit pytest "$s" verbose "${pytest[@]}" -v
        emit pytest "$s" quiet "${pytest[@]}" -q
        emit pytest "$s" color "${pytest[@]}" --color=yes
        emit pytest "$s" shifted "${pytest[@]}"
        emit pytest "$s" extra "${pytest[@]}" -v
        emit pytest "$s" gha "${pytest[@]}" --color=yes
    fi
    for s in tempfile-mktemp volatile-values timestamps hypothesis hypothesis-health; do
        wanted "$s" || continue
        emit pytest "$s" plain "${pytest[@]}"
        emit pytest "$s" rerun "${pytest[@]}"
        emit pytest "$s" xdist "${pytest[@]}" -n 2
        emit pytest "$s" junit "${pytest[@]}" --junitxml=report.xml
        save "$LOGS/pytest/$s/junit.xml" <"$DIR/report.xml"
        rm -f "$LOGS/pytest/$s/junit.log"
    done
    os_variants pytest missing-file tempfile-mktemp
}

gen_go() {
    local s
    export GOFLAGS=-count=1 GOPROXY=off GOTOOLCHAIN=local
    for s in passing assert-count panic-count subtest build-error missing-file timeout \
        two-failures exit-early; do
        wanted "$s" || continue
        emit go "$s" plain go test -timeout=5s ./...
        emit go "$s" verbose go test -timeout=5s -v ./...
        emit go "$s" serial go test -timeout=5s -v -p 1 -parallel 1 ./...
        emit go "$s" shuffle go test -timeout=5s -shuffle=on ./...
        emit go "$s" shifted go test -timeout=5s ./...
        emit go "$s" extra go test -timeout=5s -v ./...
        emit go "$s" gha go test -timeout=5s -v ./...
    done
    for s in mkdir-temp volatile-values timestamps quick; do
        wanted "$s" || continue
        emit go "$s" plain go test -timeout=5s ./...
        emit go "$s" rerun go test -timeout=5s ./...
        emit go "$s" verbose go test -timeout=5s -v ./...
        emit go "$s" shuffle go test -timeout=5s -shuffle=on ./...
    done
    os_variants go missing-file mkdir-temp
}

gen_jest() {
    local s jest=(node_modules/.bin/jest --ci)
    for s in passing assert-count type-error syntax-error module-not-found missing-file \
        two-failures; do
        wanted "$s" || continue
        emit jest "$s" plain "${jest[@]}"
        emit jest "$s" verbose "${jest[@]}" --verbose
        emit jest "$s" serial "${jest[@]}" --runInBand
        emit jest "$s" color "${jest[@]}" --colors --maxWorkers=2
        emit jest "$s" shifted "${jest[@]}"
        emit jest "$s" extra "${jest[@]}" --verbose
        emit jest "$s" gha "${jest[@]}" --colors
        JEST_JUNIT_OUTPUT_FILE=junit.xml JEST_JUNIT_REPORT_TEST_SUITE_ERRORS=true \
            emit jest "$s" junit "${jest[@]}" \
            --reporters=default --reporters=jest-junit
        save "$LOGS/jest/$s/junit.xml" <"$DIR/junit.xml"
        rm -f "$LOGS/jest/$s/junit.log"
    done
    for s in volatile-values fast-check; do
        wanted "$s" || continue
        emit jest "$s" plain "${jest[@]}"
        emit jest "$s" rerun "${jest[@]}"
        emit jest "$s" serial "${jest[@]}" --runInBand
        JEST_JUNIT_OUTPUT_FILE=junit.xml emit jest "$s" junit "${jest[@]}" \
            --reporters=default --reporters=jest-junit
        save "$LOGS/jest/$s/junit.xml" <"$DIR/junit.xml"
        rm -f "$LOGS/jest/$s/junit.log"
    done
    os_variants jest missing-file
}

gen_vitest() {
    local s vitest=(node_modules/.bin/vitest run)
    for s in passing assert-count type-error syntax-error module-not-found missing-file \
        two-failures; do
        wanted "$s" || continue
        emit vitest "$s" plain "${vitest[@]}"
        emit vitest "$s" verbose "${vitest[@]}" --reporter=verbose
        emit vitest "$s" serial "${vitest[@]}" --no-file-parallelism
        FORCE_COLOR=1 emit vitest "$s" color "${vitest[@]}"
        emit vitest "$s" shifted "${vitest[@]}"
        emit vitest "$s" extra "${vitest[@]}"
        FORCE_COLOR=1 emit vitest "$s" gha "${vitest[@]}"
        emit vitest "$s" junit "${vitest[@]}" --reporter=default --reporter=junit \
            --outputFile.junit=junit.xml
        save "$LOGS/vitest/$s/junit.xml" <"$DIR/junit.xml"
        rm -f "$LOGS/vitest/$s/junit.log"
    done
    for s in volatile-values fast-check; do
        wanted "$s" || continue
        emit vitest "$s" plain "${vitest[@]}"
        emit vitest "$s" rerun "${vitest[@]}"
        emit vitest "$s" serial "${vitest[@]}" --no-file-parallelism
        emit vitest "$s" junit "${vitest[@]}" --reporter=default --reporter=junit \
            --outputFile.junit=junit.xml
        save "$LOGS/vitest/$s/junit.xml" <"$DIR/junit.xml"
        rm -f "$LOGS/vitest/$s/junit.log"
    done
    os_variants vitest missing-file
}

gen_mocha() {
    local s mocha=(node_modules/.bin/mocha)
    for s in passing assert-count type-error require-error hook-error missing-file \
        two-failures; do
        wanted "$s" || continue
        emit mocha "$s" plain "${mocha[@]}" --no-colors
        emit mocha "$s" dot "${mocha[@]}" --no-colors --reporter dot
        emit mocha "$s" color "${mocha[@]}" --colors
        emit mocha "$s" parallel "${mocha[@]}" --no-colors --parallel --jobs 2
        emit mocha "$s" shifted "${mocha[@]}" --no-colors
        emit mocha "$s" extra "${mocha[@]}" --no-colors
        emit mocha "$s" gha "${mocha[@]}" --colors
    done
    for s in volatile-values fast-check; do
        wanted "$s" || continue
        emit mocha "$s" plain "${mocha[@]}" --no-colors
        emit mocha "$s" rerun "${mocha[@]}" --no-colors
        emit mocha "$s" parallel "${mocha[@]}" --no-colors --parallel --jobs 2
        emit mocha "$s" dot "${mocha[@]}" --no-colors --reporter dot
    done
    os_variants mocha missing-file hook-error
}

gen_tsc() {
    local s tsc=(node_modules/.bin/tsc -p .)
    for s in passing type-mismatch unknown-name two-errors; do
        wanted "$s" || continue
        emit tsc "$s" plain "${tsc[@]}" --pretty false
        emit tsc "$s" pretty "${tsc[@]}" --pretty true
        emit tsc "$s" shifted "${tsc[@]}" --pretty false
        emit tsc "$s" gha "${tsc[@]}" --pretty true
        emit tsc "$s" gha-crlf "${tsc[@]}" --pretty false
    done
}

# Maven Surefire's JUnit XML (runner `junit`): Maven runs offline on the plugins Debian
# packages (apt-get install maven-debian-helper libsurefire-java junit4
# libmaven-resources-plugin-java libmaven-compiler-plugin-java).
gen_junit() {
    local s mvn=(mvn -o -q -B -Dmaven.repo.local=/usr/share/maven-repo)
    local report=target/surefire-reports/TEST-wordcount.WordCountTest.xml
    for s in passing assert-count npe missing-file volatile-values; do
        wanted "$s" || continue
        emit surefire "$s" plain "${mvn[@]}" test
        save "$LOGS/junit/$s/plain.xml" <"$DIR/$report"
        emit surefire "$s" shifted "${mvn[@]}" test
        save "$LOGS/junit/$s/shifted.xml" <"$DIR/$report"
        emit surefire "$s" rerun "${mvn[@]}" -Dsurefire.rerunFailingTestsCount=2 test
        save "$LOGS/junit/$s/rerun.xml" <"$DIR/$report"
        emit surefire "$s" fork2 "${mvn[@]}" -DforkCount=2 -DreuseForks=false test
        save "$LOGS/junit/$s/fork2.xml" <"$DIR/$report"
        emit surefire "$s" fullstack "${mvn[@]}" -DtrimStackTrace=false test
        save "$LOGS/junit/$s/fullstack.xml" <"$DIR/$report"
    done
    # A test that fails once and passes on the rerun is not a failure.
    if wanted passing; then
        FLAKY_RUN=$RANDOM$RANDOM emit surefire flaky flaky-rerun "${mvn[@]}" \
            -Dsurefire.rerunFailingTestsCount=2 test
        save "$LOGS/junit/passing/flaky-rerun.xml" <"$DIR/$report"
    fi
    os_variants junit missing-file
    # The console output is Maven's, not the report's: only the XML is a fixture.
    rm -rf "${LOGS:?}/surefire"
}

# Python's unittest (the interpreter's own; `py39` runs an older Python, whose ids and
# tracebacks look different, when pyenv has one).
gen_unittest() {
    local s py39=${LG_FIXTURE_PY39:-$HOME/.pyenv/versions/3.9.18/bin/python3}
    local ut=(python3 -m unittest)
    for s in passing assert-count type-error key-error missing-file setup-error import-error \
        subtest two-failures; do
        wanted "$s" || continue
        emit unittest "$s" plain "${ut[@]}"
        emit unittest "$s" verbose "${ut[@]}" -v
        emit unittest "$s" discover "${ut[@]}" discover -s tests -t . -v
        emit unittest "$s" buffer "${ut[@]}" -b
        emit unittest "$s" shifted "${ut[@]}"
        emit unittest "$s" extra "${ut[@]}" -v
        emit unittest "$s" gha "${ut[@]}"
        [[ -x $py39 ]] && emit unittest "$s" py39 "$py39" -m unittest
    done
    for s in volatile-values; do
        wanted "$s" || continue
        emit unittest "$s" plain "${ut[@]}"
        emit unittest "$s" rerun "${ut[@]}"
        emit unittest "$s" verbose "${ut[@]}" -v
        emit unittest "$s" discover "${ut[@]}" discover -s tests -t .
    done
    os_variants unittest missing-file
}

# RSpec (Debian's ruby-rspec).
gen_rspec() {
    local s rspec=(rspec)
    for s in passing assert-count no-method missing-file let-error load-error param-failure \
        two-failures; do
        wanted "$s" || continue
        emit rspec "$s" plain "${rspec[@]}"
        emit rspec "$s" documentation "${rspec[@]}" --format documentation
        emit rspec "$s" random "${rspec[@]}" --order random
        emit rspec "$s" color "${rspec[@]}" --force-color
        emit rspec "$s" shifted "${rspec[@]}"
        emit rspec "$s" extra "${rspec[@]}" --format documentation
        emit rspec "$s" gha "${rspec[@]}" --force-color
        emit rspec "$s" backtrace "${rspec[@]}" --backtrace
    done
    for s in volatile-values; do
        wanted "$s" || continue
        emit rspec "$s" plain "${rspec[@]}"
        emit rspec "$s" rerun "${rspec[@]}"
        emit rspec "$s" random "${rspec[@]}" --order random
        emit rspec "$s" documentation "${rspec[@]}" --format documentation
    done
    os_variants rspec missing-file
}

# minitest through rake's test task (Debian's ruby-minitest and rake); minitest orders the
# tests at random by itself, `seed` fixes the seed.
gen_minitest() {
    local s rake=(rake test)
    for s in passing assert-count no-method missing-file setup-error load-error two-failures; do
        wanted "$s" || continue
        emit minitest "$s" plain "${rake[@]}"
        emit minitest "$s" verbose "${rake[@]}" TESTOPTS=-v
        emit minitest "$s" seed "${rake[@]}" TESTOPTS=--seed=4242
        emit minitest "$s" direct ruby -Ilib -Itest -e 'Dir["test/**/*_test.rb"].sort.each { |f| require_relative f }'
        emit minitest "$s" shifted "${rake[@]}"
        emit minitest "$s" extra "${rake[@]}" TESTOPTS=-v
        emit minitest "$s" gha "${rake[@]}"
    done
    for s in volatile-values; do
        wanted "$s" || continue
        emit minitest "$s" plain "${rake[@]}"
        emit minitest "$s" rerun "${rake[@]}"
        emit minitest "$s" verbose "${rake[@]}" TESTOPTS=-v
        emit minitest "$s" seed "${rake[@]}" TESTOPTS=--seed=4242
    done
    os_variants minitest missing-file
}

# PHPUnit (Debian's phpunit, 9.x), default output and --testdox.
gen_phpunit() {
    local s php=(phpunit)
    for s in passing assert-count type-error missing-file setup-error provider-failure \
        two-failures; do
        wanted "$s" || continue
        emit phpunit "$s" plain "${php[@]}"
        emit phpunit "$s" testdox "${php[@]}" --testdox
        emit phpunit "$s" random "${php[@]}" --order-by=random
        emit phpunit "$s" color "${php[@]}" --colors=always
        emit phpunit "$s" testdox-color "${php[@]}" --testdox --colors=always
        emit phpunit "$s" shifted "${php[@]}"
        emit phpunit "$s" extra "${php[@]}" --testdox
        emit phpunit "$s" gha "${php[@]}" --colors=always
    done
    for s in volatile-values; do
        wanted "$s" || continue
        emit phpunit "$s" plain "${php[@]}"
        emit phpunit "$s" rerun "${php[@]}"
        emit phpunit "$s" testdox "${php[@]}" --testdox
        emit phpunit "$s" random "${php[@]}" --order-by=random
    done
    os_variants phpunit missing-file
}

# ExUnit through mix (Debian's elixir); ExUnit orders tests at random by itself, `seed`
# fixes the seed, `serial` runs one case at a time.
gen_exunit() {
    local s mix=(mix test)
    for s in passing assert-count function-clause missing-file setup-error compile-error \
        generated-failure two-failures; do
        wanted "$s" || continue
        emit exunit "$s" plain "${mix[@]}"
        emit exunit "$s" trace "${mix[@]}" --trace
        emit exunit "$s" seed "${mix[@]}" --seed 4242
        emit exunit "$s" serial "${mix[@]}" --max-cases 1
        emit exunit "$s" color "${mix[@]}" --color
        emit exunit "$s" shifted "${mix[@]}"
        emit exunit "$s" extra "${mix[@]}" --trace
        emit exunit "$s" gha "${mix[@]}" --color
    done
    for s in volatile-values; do
        wanted "$s" || continue
        emit exunit "$s" plain "${mix[@]}"
        emit exunit "$s" rerun "${mix[@]}"
        emit exunit "$s" trace "${mix[@]}" --trace
        emit exunit "$s" seed "${mix[@]}" --seed 4242
    done
    os_variants exunit missing-file
}

# ctest on a small CMake project (Debian's cmake and g++); each log has the configure and
# build output before the test run, as a CI step shows it. Without --output-on-failure
# ctest shows no test output: the runs of a test that printed something are their own
# failure directories (`<failure>-summary`), since the output is what tells two failures
# of one test apart; a crash or a timeout that printed nothing fails alike either way.
gen_ctest() {
    local s build='cmake -S . -B build && cmake --build build -j 2 && ctest --test-dir build'
    for s in passing assert-count segfault abort timeout missing-file two-failures; do
        wanted "$s" || continue
        emit ctest "$s" plain sh -c "$build --output-on-failure"
        emit ctest "$s" verbose sh -c "$build -V"
        emit ctest "$s" parallel sh -c "$build -j 2 --output-on-failure"
        emit ctest "$s" random sh -c "$build --schedule-random --output-on-failure"
        CLICOLOR_FORCE=1 emit ctest "$s" color sh -c "$build --output-on-failure"
        emit ctest "$s" shifted sh -c "$build --output-on-failure"
        emit ctest "$s" extra sh -c "$build --output-on-failure"
        CLICOLOR_FORCE=1 emit ctest "$s" gha sh -c "$build --output-on-failure"
        # A test that printed nothing fails alike either way.
        local summary=$s-summary prefix=
        case $s in passing | segfault | timeout) summary=$s prefix=summary- ;; esac
        AS=$summary emit ctest "$s" "${prefix}plain" sh -c "$build"
        AS=$summary emit ctest "$s" "${prefix}parallel" sh -c "$build -j 2"
        AS=$summary emit ctest "$s" "${prefix}shifted" sh -c "$build"
        AS=$summary emit ctest "$s" "${prefix}gha" sh -c "$build"
    done
    for s in volatile-values; do
        wanted "$s" || continue
        emit ctest "$s" plain sh -c "$build --output-on-failure"
        emit ctest "$s" rerun sh -c "$build --output-on-failure"
        emit ctest "$s" verbose sh -c "$build -V"
        emit ctest "$s" parallel sh -c "$build -j 2 --output-on-failure"
    done
    os_variants ctest missing-file
}

# TAP through Perl's prove (Debian's perl): plain, verbose (the TAP itself), parallel,
# shuffled, timed. (`--merge` hides Test::More's diagnostics, names and messages: only
# prove's closing report says what failed, a failure of its own.)
gen_tap() {
    local s
    for s in passing assert-count undef-value missing-file dies compile-error case-failure \
        two-failures subtest-failure; do
        wanted "$s" || continue
        emit tap "$s" plain prove
        emit tap "$s" verbose prove -v
        emit tap "$s" parallel prove -j 2
        emit tap "$s" shuffle prove --shuffle
        emit tap "$s" timer prove --timer
        emit tap "$s" shifted prove
        # A module that does not compile fails every script, an extra one too.
        [[ $s == compile-error ]] || emit tap "$s" extra prove -v
        emit tap "$s" gha prove --color
    done
    for s in volatile-values; do
        wanted "$s" || continue
        emit tap "$s" plain prove
        emit tap "$s" rerun prove
        emit tap "$s" verbose prove -v
        emit tap "$s" parallel prove -j 2
    done
    os_variants tap missing-file
}

# `node --test` (the node on PATH): the spec reporter and TAP, files one at a time or
# two at once.
gen_node() {
    local s nt=(node --test)
    for s in passing assert-count type-error missing-file hook-error module-not-found \
        case-failure two-failures; do
        wanted "$s" || continue
        emit node "$s" plain "${nt[@]}" --test-reporter=spec
        emit node "$s" tap "${nt[@]}" --test-reporter=tap
        emit node "$s" serial "${nt[@]}" --test-reporter=spec --test-concurrency=1
        emit node "$s" tap-serial "${nt[@]}" --test-reporter=tap --test-concurrency=1
        FORCE_COLOR=1 emit node "$s" color "${nt[@]}" --test-reporter=spec
        emit node "$s" shifted "${nt[@]}" --test-reporter=spec
        emit node "$s" extra "${nt[@]}" --test-reporter=tap
        FORCE_COLOR=1 emit node "$s" gha "${nt[@]}" --test-reporter=spec
    done
    for s in volatile-values; do
        wanted "$s" || continue
        emit node "$s" plain "${nt[@]}" --test-reporter=spec
        emit node "$s" rerun "${nt[@]}" --test-reporter=spec
        emit node "$s" tap "${nt[@]}" --test-reporter=tap
        emit node "$s" serial "${nt[@]}" --test-reporter=spec --test-concurrency=1
    done
    os_variants node missing-file
}

# Playwright Test on tests that need no browser: the list, line and dot reporters, one
# worker or two, with retries (a test that passes on its retry is flaky, not failing).
gen_playwright() {
    local s pw=(node_modules/.bin/playwright test)
    for s in passing assert-count type-error missing-file hook-error module-not-found timeout \
        case-failure two-failures; do
        wanted "$s" || continue
        emit playwright "$s" plain "${pw[@]}" --reporter=list
        emit playwright "$s" line "${pw[@]}" --reporter=line
        emit playwright "$s" dot "${pw[@]}" --reporter=dot
        PW_WORKERS=2 PW_PARALLEL=1 emit playwright "$s" parallel "${pw[@]}" --reporter=list
        [[ $s == timeout ]] || PW_RETRIES=1 emit playwright "$s" retries "${pw[@]}" --reporter=list
        FORCE_COLOR=1 emit playwright "$s" color "${pw[@]}" --reporter=list
        emit playwright "$s" shifted "${pw[@]}" --reporter=list
        emit playwright "$s" extra "${pw[@]}" --reporter=line
        FORCE_COLOR=1 emit playwright "$s" gha "${pw[@]}" --reporter=list
    done
    if wanted passing; then
        FLAKY_RUN=$RANDOM$RANDOM PW_RETRIES=1 AS=passing emit playwright flaky flaky-retries \
            "${pw[@]}" --reporter=list
        FLAKY_RUN=$RANDOM$RANDOM PW_RETRIES=1 AS=passing emit playwright flaky gha-flaky \
            "${pw[@]}" --reporter=dot
    fi
    for s in volatile-values; do
        wanted "$s" || continue
        emit playwright "$s" plain "${pw[@]}" --reporter=list
        emit playwright "$s" rerun "${pw[@]}" --reporter=list
        emit playwright "$s" dot "${pw[@]}" --reporter=dot
        PW_WORKERS=2 PW_PARALLEL=1 emit playwright "$s" parallel "${pw[@]}" --reporter=line
    done
    os_variants playwright missing-file
}

# `bun test` (the npm package's binary): plain, in random order, one test at a time,
# coloured (where results are `✓`/`✗`).
gen_bun() {
    local s bun=(node_modules/.bin/bun test)
    for s in passing assert-count type-error missing-file hook-error module-not-found \
        case-failure two-failures; do
        wanted "$s" || continue
        emit bun "$s" plain "${bun[@]}"
        emit bun "$s" random "${bun[@]}" --randomize
        emit bun "$s" serial "${bun[@]}" --max-concurrency=1
        FORCE_COLOR=1 emit bun "$s" color "${bun[@]}"
        emit bun "$s" shifted "${bun[@]}"
        emit bun "$s" extra "${bun[@]}"
        FORCE_COLOR=1 emit bun "$s" gha "${bun[@]}"
    done
    for s in volatile-values; do
        wanted "$s" || continue
        emit bun "$s" plain "${bun[@]}"
        emit bun "$s" rerun "${bun[@]}"
        emit bun "$s" random "${bun[@]}" --randomize
        emit bun "$s" serial "${bun[@]}" --max-concurrency=1
    done
    os_variants bun missing-file
}

# `deno test` (the npm package's binary): the pretty and dot reporters, in parallel,
# shuffled, coloured.
gen_deno() {
    local s deno
    deno="$(js_tools)/node_modules/.bin/deno"
    for s in passing assert-count type-error missing-file module-not-found type-check-error \
        case-failure two-failures; do
        wanted "$s" || continue
        NO_COLOR=1 emit deno "$s" plain "$deno" test -A
        NO_COLOR=1 emit deno "$s" dot "$deno" test -A --reporter=dot
        NO_COLOR=1 emit deno "$s" parallel "$deno" test -A --parallel
        NO_COLOR=1 emit deno "$s" shuffle "$deno" test -A --shuffle
        emit deno "$s" color "$deno" test -A
        NO_COLOR=1 emit deno "$s" shifted "$deno" test -A
        NO_COLOR=1 emit deno "$s" extra "$deno" test -A
        emit deno "$s" gha "$deno" test -A
    done
    for s in volatile-values; do
        wanted "$s" || continue
        NO_COLOR=1 emit deno "$s" plain "$deno" test -A
        NO_COLOR=1 emit deno "$s" rerun "$deno" test -A
        NO_COLOR=1 emit deno "$s" dot "$deno" test -A --reporter=dot
        NO_COLOR=1 emit deno "$s" parallel "$deno" test -A --parallel
    done
    os_variants deno missing-file
}

# .NET: no .NET SDK installs on this machine, so these fixtures are not the output of a
# run: dotnet_fixtures.py writes them from templates of the real formats (the `dotnet test`
# consoles of VSTest and Microsoft.Testing.Platform, TRX, xUnit.net and NUnit XML; where
# each was learned: tests/fixtures/logs/dotnet/README.md), drawing at random, per file,
# what changes between real runs (checkout and temp paths per OS, durations, GUIDs,
# machine names, pids, ports, the order tests finish in, shifted line numbers).
gen_dotnet() {
    find "$LOGS/dotnet" -mindepth 1 -maxdepth 1 -type d -exec rm -rf {} + 2>/dev/null || true
    python3 "$WORK/dotnet_fixtures.py" "$LOGS" dotnet
}
cat >"$WORK/dotnet_fixtures.py" <<'PY'
import random, sys, os, uuid, datetime

# Writes the .NET fixtures: no .NET SDK runs here, so each output is written from a
# template of its real format (tests/fixtures/logs/dotnet/README.md says where each was
# learned), with what changes from run to run drawn at random for every file: paths of
# the checkout and the temp dir per OS, durations, GUIDs, machine names, pids, ports, the
# order parallel tests finish in, line numbers shifted by an edit above the test.
#
#   dotnet_fixtures.py LOGS LAYER     # LAYER: dotnet, or heldout/dotnet
logs, layer = sys.argv[1], sys.argv[2]
rng = random.Random()
HELD = layer.startswith("heldout")


def hexs(n):
    return "".join(rng.choice("0123456789abcdef") for _ in range(n))


class Ctx:
    """Where a run happened: the checkout, the temp dir, the machine, the line offset."""

    def __init__(self, os_name="linux", home=None, shift=0):
        self.os = os_name
        self.shift = shift
        self.machine = "fv-az%d-%d" % (rng.randint(100, 999), rng.randint(100, 999))
        if os_name == "windows":
            self.root = home or r"D:\a\%s\%s" % (PROJ_DIR, PROJ_DIR)
            self.temp = r"C:\Users\runneradmin\AppData\Local\Temp"
            self.sep = "\\"
        elif os_name == "macos":
            self.root = home or "/Users/runner/work/%s/%s" % (PROJ_DIR, PROJ_DIR)
            self.temp = "/var/folders/%s/%s/T" % (hexs(2), hexs(28))
            self.sep = "/"
        else:
            self.root = home or "/home/runner/work/%s/%s" % (PROJ_DIR, PROJ_DIR)
            self.temp = "/tmp"
            self.sep = "/"

    def path(self, *parts):
        return self.root + self.sep + self.sep.join(parts)

    def dll(self, tfm="net8.0"):
        return self.path("tests", TEST_PROJ, "bin", "Debug", tfm, TEST_PROJ + ".dll")

    def tmpfile(self, name):
        return self.temp + self.sep + "%s-%s" % (PREFIX, hexs(8)) + self.sep + name


def ms():
    return rng.randint(1, 60)


# ---------------------------------------------------------------------------------------
# The projects: the dev one (wordcount) and the held-out one (inventory).

if not HELD:
    PROJ_DIR, NS, TEST_PROJ, LIB, PREFIX = "wordcount", "Wc", "Wc.Tests", "Wc", "wc"
else:
    PROJ_DIR, NS, TEST_PROJ, LIB, PREFIX = "inventory", "Stock", "Stock.Tests", "Stock", "stock"


class Failure:
    """One failing test: its framework's display name, its message, its frames."""

    def __init__(self, cls, method, message, frames, display=None, kind="fail", fqn=None):
        self.cls, self.method = cls, method
        self.fqn = fqn or "%s.Tests.%s.%s" % (NS, cls, method)
        self.display = display or self.fqn
        self.message = message  # function ctx -> list of lines
        self.frames = frames  # list of (method, file, line)
        self.kind = kind


def frames_text(ctx, frames, style):
    out = []
    for i, (meth, f, line) in enumerate(frames):
        path = ctx.path(*f.split("/"))
        line += ctx.shift
        if style == "vstest":
            out.append(("     at " if i == 0 else "   at ") + "%s in %s:line %d" % (meth, path, line))
        elif style == "mtp":
            out.append("    at %s in %s:%d" % (meth, path, line))
        else:
            out.append("   at %s in %s:line %d" % (meth, path, line))
    return out


def xunit_equal(exp, act):
    return lambda ctx: ["Assert.Equal() Failure: Values differ", "Expected: %s" % exp, "Actual:   %s" % act]


def xunit_strings(exp, act):
    return lambda ctx: [
        "Assert.Equal() Failure: Strings differ",
        '           ↓ (pos 0)',
        'Expected: "%s"' % exp,
        'Actual:   "%s"' % act,
        '           ↑ (pos 0)',
    ]


def exception(typ, text):
    return lambda ctx: ["%s : %s" % (typ, text(ctx) if callable(text) else text)]


def nunit_equal(expr, exp, act):
    return lambda ctx: ["Assert.That(%s, Is.EqualTo(%s))" % (expr, exp), "  Expected: %s" % exp, "  But was:  %s" % act]


def mstest_equal(exp, act):
    return lambda ctx: ["Assert.AreEqual failed. Expected:<%s>. Actual:<%s>. " % (exp, act)]


def tunit_equal(exp, act):
    return lambda ctx: ["[Test Failure] AssertionException: Expected to be equal to %s" % exp, "but received %s" % act, ""]


# ---------------------------------------------------------------------------------------
# Renderers: one per real format.

def build_preamble(ctx):
    return [
        "  Determining projects to restore...",
        "  All projects are up-to-date for restore.",
        "  %s -> %s" % (LIB, ctx.path("src", LIB, "bin", "Debug", "net8.0", LIB + ".dll")),
        "  %s -> %s" % (TEST_PROJ, ctx.dll()),
    ]


def vstest(ctx, failures, passed, fw, normal=False, adapter_lines=True, preamble=True):
    out = build_preamble(ctx) if preamble else []
    out += [
        "Test run for %s (.NETCoreApp,Version=v8.0)" % ctx.dll(),
        "Microsoft (R) Test Execution Command Line Tool Version 17.%d.%d (x64)" % (rng.randint(8, 12), rng.randint(0, 3)),
        "Copyright (c) Microsoft Corporation.  All rights reserved.",
        "",
        "Starting test execution, please wait...",
        "A total of 1 test files matched the specified pattern.",
    ]
    t = 0.0
    if fw == "xunit" and normal:
        out.append("[xUnit.net 00:00:00.00] xUnit.net VSTest Adapter v2.8.%d+%s (64-bit .NET 8.0.%d)" % (rng.randint(0, 2), hexs(10), rng.randint(4, 11)))
        for step in ("Discovering:", "Discovered: ", "Starting:   "):
            t += rng.random() * 0.2
            out.append("[xUnit.net 00:00:%05.2f]   %s %s" % (t, step, TEST_PROJ))
    if fw == "nunit" and normal:
        out.append("NUnit Adapter 4.6.0.0: Test execution started")
        out.append("Running all tests in %s" % ctx.dll())
        out.append("   NUnit3TestExecutor discovered %d of %d NUnit test cases using Current Discovery mode, Non-Explicit run" % (len(failures) + len(passed), len(failures) + len(passed)))
    events = [("fail", f) for f in failures] + [("pass", p) for p in passed]
    rng.shuffle(events)  # tests finish in any order
    for what, x in events:
        if what == "pass":
            if normal:
                out.append("  Passed %s [%s]" % (x, rng.choice(["< 1 ms", "%d ms" % ms()])))
            continue
        f = x
        t += rng.random() * 0.3
        if fw == "xunit" and adapter_lines:
            out.append("[xUnit.net 00:00:%05.2f]     %s [FAIL]" % (t, f.display))
        out += vstest_failure(ctx, f)
        if normal and rng.random() < 0.5:
            out += ["", "  Standard Output Messages:", " reading %s" % ctx.tmpfile("input.txt")]
        out.append("")
    if fw == "nunit" and normal:
        out.append("NUnit Adapter 4.6.0.0: Test execution complete")
    total = len(failures) + len(passed)
    result = "Failed!" if failures else "Passed!"
    out.append("")
    out.append("%s  - Failed: %5d, Passed: %5d, Skipped: %5d, Total: %5d, Duration: %d ms - %s.dll (net8.0)" % (result, len(failures), len(passed), 0, total, rng.randint(20, 900), TEST_PROJ))
    return out


def vstest_failure(ctx, f):
    """One failed test as VSTest's console shows it: `Failed`, its message, its stack."""
    out = ["  Failed %s [%d ms]" % (f.display, ms())]
    msg = f.message(ctx)
    if msg:
        out.append("  Error Message:")
        out.append("   " + msg[0])
        out += msg[1:]
    out.append("  Stack Trace:")
    out += frames_text(ctx, f.frames, "vstest")
    return out


def vstest_legacy(ctx, failures, passed, fw):
    """VSTest 16's summary: `Test Run Failed.` and the counts on lines of their own."""
    out = build_preamble(ctx) + [
        "Test run for %s(.NETCoreApp,Version=v3.1)" % ctx.dll("netcoreapp3.1"),
        "Microsoft (R) Test Execution Command Line Tool Version 16.%d.0" % rng.randint(5, 11),
        "Copyright (c) Microsoft Corporation.  All rights reserved.",
        "",
        "Starting test execution, please wait...",
        "",
        "A total of 1 test files matched the specified pattern.",
    ]
    for f in failures:
        out += vstest_failure(ctx, f)
        out.append("")
    total = len(failures) + len(passed)
    out += ["", "Test Run %s." % ("Failed" if failures else "Successful"), "Total tests: %d" % total, "     Passed: %d" % len(passed)]
    if failures:
        out.append("     Failed: %d" % len(failures))
    out.append(" Total time: %d.%04d Seconds" % (rng.randint(0, 3), rng.randint(0, 9999)))
    return out


BANNERS = {
    "xunit": lambda: "xUnit.net v3 Microsoft.Testing.Platform Runner v%d.%d.%d+%s (64-bit .NET 8.0.%d)" % (rng.randint(1, 3), rng.randint(0, 2), rng.randint(0, 9), hexs(10), rng.randint(8, 20)),
    "mstest": lambda: "MSTest v3.%d.%d (UTC %02d/%02d/2026) [linux-x64 - .NET 8.0.%d]" % (rng.randint(6, 9), rng.randint(0, 4), rng.randint(1, 12), rng.randint(1, 28), rng.randint(8, 20)),
    "nunit": lambda: "NUnit v5.%d.%d [linux-x64 - .NET 8.0.%d]" % (rng.randint(0, 2), rng.randint(0, 9), rng.randint(8, 20)),
    "tunit": lambda: "TUnit v1.%d.%d.0 | 64-bit | Ubuntu 24.04.2 LTS | linux-x64 | .NET 8.0.%d | Microsoft Testing Platform v2.0.%d" % (rng.randint(0, 20), rng.randint(0, 99), rng.randint(8, 20), rng.randint(0, 3)),
}


def mtp_duration():
    ms_ = rng.randint(1, 2500)
    return "%dms" % ms_ if ms_ < 1000 else "%ds %03dms" % (ms_ // 1000, ms_ % 1000)


def mtp(ctx, failures, passed, fw):
    """A Microsoft.Testing.Platform test app run directly (`dotnet run`, the exe)."""
    out = [BANNERS[fw](), ""]
    fails = list(failures)
    rng.shuffle(fails)
    for f in fails:
        out.append("failed %s (%s)" % (f.display, mtp_duration()))
        out += ["  " + l if l else "" for l in f.message(ctx)]
        out += frames_text(ctx, f.frames, "mtp")
        out.append("")
    total = len(failures) + len(passed)
    out += [
        "Test run summary: %s - %s (net8.0|x64)" % ("Failed!" if failures else "Passed!", ctx.dll()),
        "  total: %d" % total,
        "  failed: %d" % len(failures),
        "  succeeded: %d" % len(passed),
        "  skipped: 0",
        "  duration: %s" % mtp_duration(),
    ]
    return out


def dotnet_test_mtp(ctx, failures, passed, fw, message_first=False):
    """`dotnet test` in Microsoft.Testing.Platform mode (.NET 10 SDK)."""
    dll = ctx.dll("net10.0")
    out = ["Restore complete (%.1fs)" % (rng.random() * 2), "  %s succeeded (%.1fs) → %s" % (TEST_PROJ, rng.random() * 4, dll), ""]
    out.append("Running tests from %s (net10.0|x64)" % dll)
    for f in failures:
        out.append("failed %s (%s)" % (f.display, mtp_duration()))
        body = ["  " + l if l else "" for l in f.message(ctx)]
        frm = ["  from %s (net10.0|x64)" % dll]
        out += (body + frm) if message_first else (frm + body)
        out += frames_text(ctx, f.frames, "mtp")
    verdict = "failed with %d error(s)" % len(failures) if failures else "passed"
    out.append("%s (net10.0|x64) %s (%s)" % (dll, verdict, mtp_duration()))
    out += ["", "Test run summary: %s" % ("Failed!" if failures else "Passed!"), "  %s (net10.0|x64) %s (%s)" % (dll, verdict, mtp_duration()), ""]
    total = len(failures) + len(passed)
    out += ["  total: %d" % total, "  failed: %d" % len(failures), "  succeeded: %d" % len(passed), "  skipped: 0", "  duration: %s" % mtp_duration()]
    if failures:
        out.append("Test run completed with non-success exit code: 2 (see: https://aka.ms/testingplatform/exitcodes)")
    return out


def esc(s):
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


def iso(base, offset):
    t = base + datetime.timedelta(seconds=offset)
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + "%07d+00:00" % rng.randint(0, 9999999)


def trx(ctx, failures, passed, fw, outcome_of=None):
    base = datetime.datetime(2026, 11, rng.randint(1, 28), rng.randint(0, 23), rng.randint(0, 59), rng.randint(0, 59))
    run = str(uuid.uuid4())
    lst = "8c84fa94-04c1-424b-9868-57a2d4851a1d"
    adapter = {"xunit": "executor://xunit/VsTestRunner2/netcoreapp", "nunit": "executor://nunit3testexecutor/", "mstest": "executor://mstestadapter/v2", "tunit": "executor://tunit/"}[fw]
    tests = [(f, True) for f in failures] + [(p, False) for p in passed]
    rng.shuffle(tests)
    results, defs, entries = [], [], []
    for x, failed in tests:
        name = x.display if failed else x
        tid, eid = str(uuid.uuid4()), str(uuid.uuid4())
        outcome = "Passed" if not failed else ("Timeout" if x.kind == "timeout" else "Failed")
        attrs = 'executionId="%s" testId="%s" testName="%s" computerName="%s" duration="00:00:00.%07d" startTime="%s" endTime="%s" testType="13cdc9d9-ddb5-4fa4-a97d-d965ccfc6d4b" outcome="%s" testListId="%s" relativeResultsDirectory="%s"' % (
            eid, tid, esc(name), ctx.machine, rng.randint(0, 9999999), iso(base, 1), iso(base, 2), outcome, lst, eid)
        if failed:
            msg = "&#xD;\n".join(esc(l) for l in x.message(ctx)) if x.message(ctx) else ""
            stack = "&#xD;\n".join(esc(l) for l in frames_text(ctx, x.frames, "trx"))
            results.append('    <UnitTestResult %s>\n      <Output>\n        <ErrorInfo>\n          <Message>%s</Message>\n          <StackTrace>%s</StackTrace>\n        </ErrorInfo>\n      </Output>\n    </UnitTestResult>' % (attrs, msg, stack))
            cls, meth = "%s.Tests.%s" % (NS, x.cls), x.method
        else:
            results.append("    <UnitTestResult %s />" % attrs)
            cls, meth = "%s.Tests.%s" % (NS, name.rsplit(".", 1)[0].split(".")[-1] if "." in name else "Tests"), name.rsplit(".", 1)[-1]
        defs.append('    <UnitTest name="%s" storage="%s" id="%s">\n      <Execution id="%s" />\n      <TestMethod codeBase="%s" adapterTypeName="%s" className="%s" name="%s" />\n    </UnitTest>' % (esc(name), esc(ctx.dll().lower()), tid, eid, esc(ctx.dll()), adapter, cls, esc(meth)))
        entries.append('    <TestEntry testId="%s" executionId="%s" testListId="%s" />' % (tid, eid, lst))
    total, nf = len(tests), len(failures)
    user = "runneradmin" if ctx.os == "windows" else "runner"
    out = ['<?xml version="1.0" encoding="utf-8"?>',
           '<TestRun id="%s" name="%s@%s %s" runUser="%s" xmlns="http://microsoft.com/schemas/VisualStudio/TeamTest/2010">' % (run, user, ctx.machine, base.strftime("%Y-%m-%d %H:%M:%S"), user),
           '  <Times creation="%s" queuing="%s" start="%s" finish="%s" />' % (iso(base, 3), iso(base, 3), iso(base, 0), iso(base, 4)),
           '  <TestSettings name="default" id="%s">' % uuid.uuid4(),
           '    <Deployment runDeploymentRoot="%s_%s_%s" />' % (user, ctx.machine, base.strftime("%Y-%m-%d_%H_%M_%S")),
           '  </TestSettings>', '  <Results>'] + results + ['  </Results>', '  <TestDefinitions>'] + defs + ['  </TestDefinitions>', '  <TestEntries>'] + entries + [
           '  </TestEntries>', '  <TestLists>', '    <TestList name="Results Not in a List" id="%s" />' % lst, '    <TestList name="All Loaded Results" id="19431567-8539-422a-85d7-44ee4e166bda" />', '  </TestLists>',
           '  <ResultSummary outcome="%s">' % ("Failed" if nf else "Completed"),
           '    <Counters total="%d" executed="%d" passed="%d" failed="%d" error="0" timeout="0" aborted="0" inconclusive="0" passedButRunAborted="0" notRunnable="0" notExecuted="0" disconnected="0" warning="0" completed="0" inProgress="0" pending="0" />' % (total, total, total - nf, nf),
           '  </ResultSummary>', '</TestRun>']
    return out


def xunit_xml(ctx, failures, passed, fw):
    base = datetime.datetime(2026, 11, rng.randint(1, 28), rng.randint(0, 23), rng.randint(0, 59), rng.randint(0, 59))
    tests = [(f, True) for f in failures] + [(p, False) for p in passed]
    rng.shuffle(tests)
    by_class = {}
    for x, failed in tests:
        cls = x.cls if failed else x.rsplit(".", 1)[0].split(".")[-1]
        by_class.setdefault(cls, []).append((x, failed))
    cols = []
    for cls, items in by_class.items():
        lines = []
        for x, failed in items:
            name = x.display if failed else x
            meth = x.method if failed else name.rsplit(".", 1)[-1]
            t = "%.7f" % (rng.random() / 20)
            if failed:
                msg = "\n".join(x.message(ctx))
                stack = "\n".join(frames_text(ctx, x.frames, "trx"))
                etype = getattr(x, "etype", "Xunit.Sdk.EqualException")
                lines.append('      <test name="%s" type="%s.Tests.%s" method="%s" time="%s" result="Fail">\n        <failure exception-type="%s">\n          <message><![CDATA[%s]]></message>\n          <stack-trace><![CDATA[%s]]></stack-trace>\n        </failure>\n      </test>' % (esc(name), NS, cls, meth, t, etype, msg, stack))
            else:
                lines.append('      <test name="%s" type="%s.Tests.%s" method="%s" time="%s" result="Pass" />' % (esc(name), NS, cls, meth, t))
        nf = sum(1 for _, f in items if f)
        cols.append('    <collection total="%d" passed="%d" failed="%d" skipped="0" name="Test collection for %s.Tests.%s" time="%.3f">\n%s\n    </collection>' % (len(items), len(items) - nf, nf, NS, cls, rng.random(), "\n".join(lines)))
    nf = len(failures)
    return ['<?xml version="1.0" encoding="utf-8"?>',
            '<assemblies timestamp="%s">' % base.strftime("%m/%d/%Y %H:%M:%S"),
            '  <assembly name="%s" run-date="%s" run-time="%s" total="%d" passed="%d" failed="%d" skipped="0" time="%.3f" errors="0" config-file="%s.config" environment="64-bit .NET 8.0.%d [collection-per-class, parallel (%d threads)]" test-framework="xUnit.net 2.9.%d.0">' % (
                esc(ctx.dll()), base.strftime("%Y-%m-%d"), base.strftime("%H:%M:%S"), len(tests), len(tests) - nf, nf, rng.random(), esc(ctx.dll()), rng.randint(8, 20), rng.choice([2, 4, 8]), rng.randint(0, 3)),
            '    <errors />'] + cols + ['  </assembly>', '</assemblies>']


def nunit_xml(ctx, failures, passed, fw):
    base = datetime.datetime(2026, 11, rng.randint(1, 28), rng.randint(0, 23), rng.randint(0, 59), rng.randint(0, 59))
    cases, n = [], 1000
    tests = [(f, True) for f in failures] + [(p, False) for p in passed]
    rng.shuffle(tests)
    for x, failed in tests:
        n += 1
        name = x.display if failed else x
        full = ("%s.Tests.%s.%s" % (NS, x.cls, name)) if failed else "%s.Tests.Misc.%s" % (NS, name)
        meth = name.split("(")[0]
        head = 'id="0-%d" name="%s" fullname="%s" methodname="%s" classname="%s" runstate="Runnable" seed="%d" result="%s"%s start-time="%s" end-time="%s" duration="%.6f" asserts="1"' % (
            n, esc(name), esc(full), meth, full.rsplit(".", 1)[0], rng.randint(1, 2 ** 31), "Failed" if failed else "Passed",
            ' label="Error"' if failed and getattr(x, "error", False) else "", iso(base, 1)[:-6] + "Z", iso(base, 2)[:-6] + "Z", rng.random() / 50)
        if failed:
            msg = "\n".join(x.message(ctx)) + "\n"
            stack = "\n".join(frames_text(ctx, x.frames, "trx")) + "\n"
            cases.append('          <test-case %s>\n            <failure>\n              <message><![CDATA[%s]]></message>\n              <stack-trace><![CDATA[%s]]></stack-trace>\n            </failure>\n          </test-case>' % (head, msg, stack))
        else:
            cases.append("          <test-case %s />" % head)
    nf, total = len(failures), len(tests)
    res = "Failed" if nf else "Passed"
    stamp = base.strftime("%Y-%m-%d %H:%M:%SZ")
    out = ['<?xml version="1.0" encoding="utf-8" standalone="no"?>',
           '<test-run id="0" runstate="Runnable" testcasecount="%d" result="%s" total="%d" passed="%d" failed="%d" warnings="0" inconclusive="0" skipped="0" asserts="%d" engine-version="3.18.%d.0" clr-version="8.0.%d" start-time="%s" end-time="%s" duration="%.6f">' % (
               total, res, total, total - nf, nf, total, rng.randint(0, 3), rng.randint(8, 20), stamp, stamp, rng.random()),
           '  <command-line><![CDATA[nunit3-console %s --result=TestResult.xml]]></command-line>' % esc(ctx.dll()),
           '  <test-suite type="Assembly" id="0-1000" name="%s.dll" fullname="%s" runstate="Runnable" testcasecount="%d" result="%s" site="Child" total="%d" passed="%d" failed="%d">' % (TEST_PROJ, esc(ctx.dll()), total, res, total, total - nf, nf),
           '    <environment framework-version="4.2.%d.0" clr-version="8.0.%d" os-version="Linux 6.8.0-%d-azure" platform="Unix" cwd="%s" machine-name="%s" user="runner" user-domain="%s" culture="en-US" uiculture="en-US" os-architecture="x64" />' % (rng.randint(0, 2), rng.randint(8, 20), rng.randint(1000, 1100), esc(ctx.root), ctx.machine, ctx.machine),
           '    <properties>', '      <property name="_PID" value="%d" />' % rng.randint(1000, 60000), '    </properties>',
           '    <test-suite type="TestFixture" id="0-1001" name="Tests" fullname="%s.Tests" runstate="Runnable" testcasecount="%d" result="%s" site="Child">' % (NS, total, res)]
    if nf:
        out += ['      <failure>', '        <message><![CDATA[One or more child tests had errors]]></message>', '      </failure>']
    return out + cases + ['    </test-suite>', '  </test-suite>', '</test-run>']


def compile_classic(ctx, errors):
    out = ["  Determining projects to restore...", "  All projects are up-to-date for restore."]
    lines = ["%s(%d,%d): error %s: %s [%s]" % (ctx.path(*f.split("/")), l + ctx.shift, c, code, text, ctx.path("src", LIB, LIB + ".csproj")) for f, l, c, code, text in errors]
    out += lines
    out += ["", "Build FAILED.", ""] + ["    " + l for l in lines] + ["    0 Warning(s)", "    %d Error(s)" % len(errors), "", "Time Elapsed 00:00:%05.2f" % (rng.random() * 20)]
    return out


def compile_terminal(ctx, errors):
    out = ["Restore complete (%.1fs)" % (rng.random() * 2), "  %s failed with %d error(s) (%.1fs)" % (LIB, len(errors), rng.random() * 3)]
    out += ["    %s(%d,%d): error %s: %s" % (ctx.path(*f.split("/")), l + ctx.shift, c, code, text) for f, l, c, code, text in errors]
    out += ["", "Build failed with %d error(s) in %.1fs" % (len(errors), rng.random() * 9)]
    return out


def crash(ctx, reason, passed, fw):
    out = vstest(ctx, [], [], fw)[:-2]
    out += ["The active test run was aborted. Reason: Test host process crashed : %s" % reason,
            "   at %s.Tests.%s.Recurse(Int32 depth) in %s:line %d" % (NS, "DeepTests", ctx.path("tests", TEST_PROJ, "DeepTests.cs"), 12 + ctx.shift)] * 1
    out += ["", "Test Run Aborted."]
    return out


def gha(lines, cmd, status):
    """The raw log GitHub Actions serves for a step (as gen-fixtures.sh's gha_wrap)."""
    t = rng.randint(0, 3000) * 1.0
    out = []

    def stamp():
        nonlocal t
        t += rng.random() * 0.05
        s = int(t)
        return "2026-11-25T%02d:%02d:%02d.%07dZ " % (10 + s // 3600, s // 60 % 60, s % 60, int((t - s) * 1e7))
    out.append(stamp() + "##[group]Run " + cmd)
    out.append(stamp() + cmd)
    out.append(stamp() + "shell: /usr/bin/bash -e {0}")
    out.append(stamp() + "env:")
    out.append(stamp() + "  DOTNET_ROOT: /usr/share/dotnet")
    out.append(stamp() + "##[endgroup]")
    out += [stamp() + l for l in lines]
    if status:
        out.append(stamp() + "##[error]Process completed with exit code %d." % status)
    out.append(stamp() + "Post job cleanup.")
    return "\ufeff" + "\n".join(out) + "\n"


def write(failure, variant, content):
    d = os.path.join(logs, layer, failure)
    os.makedirs(d, exist_ok=True)
    path = os.path.join(d, variant)
    if isinstance(content, list):
        content = "\n".join(content) + "\n"
    crlf = variant.endswith("-windows.log") or variant.endswith("-windows.trx")
    with open(path, "w", newline="\r\n" if crlf else "\n") as f:
        f.write(content)
    print("gen-fixtures: wrote %s/%s/%s (%d bytes)" % (layer, failure, variant, len(content)), file=sys.stderr)


# ---------------------------------------------------------------------------------------
# The failures, per layer, and the outputs each is written in.

def variants(failure, fw, failures, passed, extra, status=1):
    """Every output one failure is written in, for its framework."""
    lin = lambda **k: Ctx("linux", **k)
    if fw in ("xunit", "nunit", "mstest"):
        write(failure, "vstest.log", vstest(lin(), failures, passed, fw))
        write(failure, "vstest-local.log", vstest(Ctx("linux", home="/home/alice/src/%s" % PROJ_DIR), failures, passed, fw, adapter_lines=False))
        write(failure, "vstest-normal.log", vstest(lin(), failures, passed, fw, normal=True))
        write(failure, "vstest-shifted.log", vstest(lin(shift=rng.randint(2, 9)), failures, passed, fw))
        write(failure, "vstest-windows.log", vstest(Ctx("windows"), failures, passed, fw))
        write(failure, "vstest-macos.log", vstest(Ctx("macos"), failures, passed, fw))
        write(failure, "extra.log", vstest(lin(), failures, passed + extra, fw, normal=True))
        write(failure, "gha.log", gha(vstest(lin(), failures, passed, fw), "dotnet test --no-restore", status))
        write(failure, "report.trx", trx(lin(), failures, passed, fw))
        write(failure, "report-windows.trx", trx(Ctx("windows"), failures, passed, fw))
    if fw == "xunit":
        write(failure, "vstest-legacy.log", vstest_legacy(lin(), failures, passed, fw))
        write(failure, "xunit.xml", xunit_xml(lin(), failures, passed, fw))
    if fw == "nunit":
        write(failure, "nunit.xml", nunit_xml(lin(), failures, passed, fw))
    if fw in ("xunit", "mstest", "nunit", "tunit"):
        write(failure, "mtp.log", mtp(lin(), failures, passed, fw))
        write(failure, "mtp-windows.log", mtp(Ctx("windows"), failures, passed, fw))
        write(failure, "dotnet-test-mtp.log", dotnet_test_mtp(lin(), failures, passed, fw, message_first=fw == "tunit"))
        write(failure, "gha-mtp.log", gha(mtp(lin(shift=3), failures, passed, fw), "dotnet run --project tests/%s" % TEST_PROJ, 2 if failures else 0))
    if fw == "tunit":
        write(failure, "mtp-extra.log", mtp(lin(), failures, passed + extra, fw))


def frame(cls, meth, line, args=""):
    return ("%s.Tests.%s.%s(%s)" % (NS, cls, meth, args), "tests/%s/%s.cs" % (TEST_PROJ, cls), line)


def lib_frame(meth, line, args="String text"):
    return ("%s.%s(%s)" % (LIB, meth, args), "src/%s/%s.cs" % (LIB, LIB if not HELD else "Inventory"), line)


if not HELD:
    ALL = ["Wc.Tests.WordCountTests.CountsThreeWords", "Wc.Tests.WordCountTests.CountsNothingInBlankText",
           'Wc.Tests.WordCountTests.CountsPairs(text: "a b", expected: 2)', 'Wc.Tests.WordCountTests.CountsPairs(text: "", expected: 0)',
           'Wc.Tests.WordCountTests.CountsPairs(text: "v2 utf8", expected: 2)', "Wc.Tests.WordCountTests.FirstWord",
           "Wc.Tests.ReadConfigTests.ReadsConfig", "Wc.Tests.ParseTests.FirstOfSentence"]
    EXTRA = ["Wc.Tests.ExtraTests.CountsOneWord", "Wc.Tests.ExtraTests.NoFirstWordInBlankText", "Wc.Tests.ExtraTests.CountsManyWords"]
    SHORT = lambda names: [n.rsplit(".", 1)[-1] if "(" not in n else n.split(".")[-1] for n in names]

    def rest(fails, names=ALL):
        shown = {f.display for f in fails} | {f.fqn for f in fails}
        return [n for n in names if n not in shown]

    count = Failure("WordCountTests", "CountsThreeWords", xunit_equal(3, 4),
                    [frame("WordCountTests", "CountsThreeWords", 14)])
    nre = Failure("WordCountTests", "FirstWord",
                  exception("System.NullReferenceException", "Object reference not set to an instance of an object."),
                  [frame("WordCountTests", "FirstWord", 31)])
    nre.etype = "System.NullReferenceException"
    missing = Failure("ReadConfigTests", "ReadsConfig",
                      exception("System.IO.FileNotFoundException", lambda ctx: "Could not find file '%s'." % ctx.tmpfile("settings.ini")),
                      [("System.IO.FileStream.ValidateFileHandle(SafeFileHandle fileHandle, String path)", "src/Wc/Config.cs", 3),
                       frame("ReadConfigTests", "ReadsConfig", 22)])
    missing.etype = "System.IO.FileNotFoundException"
    theory = Failure("WordCountTests", "CountsPairs", xunit_equal(3, 2), [frame("WordCountTests", "CountsPairs", 25, "String text, Int32 expected")],
                     display='Wc.Tests.WordCountTests.CountsPairs(text: "v2 utf8", expected: 3)')
    first = Failure("ParseTests", "FirstOfSentence", xunit_strings("the", "fox"), [frame("ParseTests", "FirstOfSentence", 11)])
    variants("xunit-assert-count", "xunit", [count], rest([count]), EXTRA)
    variants("xunit-null-reference", "xunit", [nre], rest([nre]), EXTRA)
    variants("xunit-missing-file", "xunit", [missing], rest([missing]), EXTRA)
    variants("xunit-theory-case", "xunit", [theory], rest([theory], ALL[:4] + ALL[5:]), EXTRA)
    variants("xunit-two-failures", "xunit", [count, first], rest([count, first]), EXTRA)

    # NUnit and MSTest name a test by its method (and arguments).
    n_count = Failure("WordCountTests", "CountsThreeWords", nunit_equal('WordCount.Count("one two three")', 3, 4),
                      [frame("WordCountTests", "CountsThreeWords", 16)], display="CountsThreeWords")
    n_exc = Failure("ReadConfigTests", "ReadsConfig",
                    exception("System.InvalidOperationException", "Config section 'retries' is missing"),
                    [lib_frame("ReadConfig", 40, "String path"), frame("ReadConfigTests", "ReadsConfig", 27)], display="ReadsConfig")
    n_exc.error = True
    short = SHORT(ALL)
    variants("nunit-assert-count", "nunit", [n_count], [n for n in short if n != "CountsThreeWords"], SHORT(EXTRA))
    variants("nunit-exception", "nunit", [n_exc], [n for n in short if n != "ReadsConfig"], SHORT(EXTRA))

    m_count = Failure("WordCountTests", "CountsThreeWords", mstest_equal(3, 4), [frame("WordCountTests", "CountsThreeWords", 15)], display="CountsThreeWords")
    m_timeout = Failure("ReadConfigTests", "ReadsSlowly", lambda ctx: ["Test 'ReadsSlowly' exceeded execution timeout period."], [],
                        display="ReadsSlowly", kind="timeout")
    variants("mstest-assert-count", "mstest", [m_count], [n for n in short if n != "CountsThreeWords"], SHORT(EXTRA))
    variants("mstest-timeout", "mstest", [m_timeout], short, SHORT(EXTRA))

    t_count = Failure("WordCountTests", "CountsThreeWords", tunit_equal(3, 4), [frame("WordCountTests", "CountsThreeWords", 13)], display="CountsThreeWords")
    variants("tunit-assert-count", "tunit", [t_count], [n for n in short if n != "CountsThreeWords"], SHORT(EXTRA))

    # The build fails before any test runs.
    errors = [("src/Wc/WordCount.cs", 12, 20, "CS0103", "The name 'offset' does not exist in the current context")]
    write("compile-error", "classic.log", compile_classic(Ctx("linux"), errors))
    write("compile-error", "classic-windows.log", compile_classic(Ctx("windows"), errors))
    write("compile-error", "terminal.log", compile_terminal(Ctx("linux"), errors))
    write("compile-error", "terminal-shifted.log", compile_terminal(Ctx("linux", shift=4), errors))
    write("compile-error", "gha.log", gha(compile_classic(Ctx("linux"), errors), "dotnet test", 1))

    for v in ("vstest", "vstest-local", "vstest-windows"):
        ctx = Ctx("windows") if v.endswith("windows") else Ctx("linux", home="/home/alice/src/wordcount") if v.endswith("local") else Ctx("linux")
        write("crash", v + ".log", crash(ctx, "Stack overflow.", ALL, "xunit"))
    write("crash", "gha.log", gha(crash(Ctx("linux"), "Stack overflow.", ALL, "xunit"), "dotnet test", 1))

    guid = lambda: str(uuid.uuid4())
    vol = Failure("RequestTests", "ReportsTheRequestThatFailed",
                  exception("System.Net.Http.HttpRequestException",
                            lambda ctx: "request %s to 127.0.0.1:%d failed at %s in pid %d after %d ms: connection reset" % (
                                guid(), rng.randint(30000, 60000), datetime.datetime(2026, 11, rng.randint(1, 28), rng.randint(0, 23), 5, 7).isoformat() + "Z", rng.randint(1000, 60000), rng.randint(1, 900))),
                  [frame("RequestTests", "ReportsTheRequestThatFailed", 19)])
    vol.etype = "System.Net.Http.HttpRequestException"
    for v in ("vstest", "vstest-rerun", "vstest-rerun2"):
        write("volatile-values", v + ".log", vstest(Ctx("linux"), [vol], ALL, "xunit"))
    write("volatile-values", "mtp.log", mtp(Ctx("linux"), [vol], ALL, "xunit"))
    write("volatile-values", "report.trx", trx(Ctx("linux"), [vol], ALL, "xunit"))
    write("volatile-values", "xunit.xml", xunit_xml(Ctx("linux"), [vol], ALL, "xunit"))

    # Every way a passing run shows.
    write("passing", "vstest.log", vstest(Ctx("linux"), [], ALL, "xunit"))
    write("passing", "vstest-normal.log", vstest(Ctx("linux"), [], ALL, "xunit", normal=True))
    write("passing", "vstest-nunit.log", vstest(Ctx("windows"), [], short, "nunit", normal=True))
    write("passing", "vstest-legacy.log", vstest_legacy(Ctx("linux"), [], ALL, "xunit"))
    write("passing", "mtp.log", mtp(Ctx("linux"), [], ALL, "xunit"))
    write("passing", "mtp-mstest.log", mtp(Ctx("linux"), [], short, "mstest"))
    write("passing", "mtp-tunit.log", mtp(Ctx("linux"), [], short, "tunit"))
    write("passing", "dotnet-test-mtp.log", dotnet_test_mtp(Ctx("linux"), [], ALL, "xunit"))
    write("passing", "gha.log", gha(vstest(Ctx("linux"), [], ALL, "xunit"), "dotnet test", 0))
    write("passing", "report.trx", trx(Ctx("linux"), [], ALL, "xunit"))
    write("passing", "xunit.xml", xunit_xml(Ctx("linux"), [], ALL, "xunit"))
    write("passing", "nunit.xml", nunit_xml(Ctx("linux"), [], short, "nunit"))
if HELD:
    # Stock: an inventory. Other tests, other frameworks' other messages.
    ALL = ["Stock.Tests.StockTests.TotalsTheStock", "Stock.Tests.StockTests.TakesItems", "Stock.Tests.ReportTests.ReadsTheReportBack",
           'Stock.Tests.ParseTests.ParsesALine(line: "apple, 3")', 'Stock.Tests.ParseTests.ParsesALine(line: "pear,1")', "Stock.Tests.ParseTests.KeepsItemNames"]
    EXTRA = ["Stock.Tests.MoreTests.TotalsNothing", "Stock.Tests.MoreTests.AddsTwice"]
    SHORT = lambda names: [n.split(".")[-1] if "(" not in n else n.split(".", 3)[-1] for n in names]

    def rest(fails, names=ALL):
        shown = {f.display for f in fails} | {f.fqn for f in fails}
        return [n for n in names if n not in shown]

    def sframe(cls, meth, line):
        return ("Stock.Tests.%s.%s()" % (cls, meth), "tests/Stock.Tests/%s.cs" % cls, line)

    wrong = Failure("StockTests", "TotalsTheStock", xunit_equal(12, 11), [sframe("StockTests", "TotalsTheStock", 21)])
    oos = Failure("StockTests", "TakesItems",
                  exception("Stock.OutOfStockException", "cannot take 2 apple: 5 left"),
                  [("Stock.Inventory.Take(String item, Int32 qty)", "src/Stock/Inventory.cs", 18), sframe("StockTests", "TakesItems", 27)])
    oos.etype = "Stock.OutOfStockException"
    keyerr = Failure("ParseTests", "KeepsItemNames",
                     exception("System.Collections.Generic.KeyNotFoundException", "The given key 'pear' was not present in the dictionary."),
                     [sframe("ParseTests", "KeepsItemNames", 30)])
    keyerr.etype = "System.Collections.Generic.KeyNotFoundException"
    report = Failure("ReportTests", "ReadsTheReportBack",
                     exception("System.IO.DirectoryNotFoundException", lambda ctx: "Could not find a part of the path '%s'." % ctx.tmpfile("report.csv")),
                     [sframe("ReportTests", "ReadsTheReportBack", 14)])
    report.etype = "System.IO.DirectoryNotFoundException"
    case = Failure("ParseTests", "ParsesALine", xunit_strings("apple", "APPLE"), [sframe("ParseTests", "ParsesALine", 12)],
                   display='Stock.Tests.ParseTests.ParsesALine(line: "apple, 3")')
    variants("xunit-wrong-total", "xunit", [wrong], rest([wrong]), EXTRA)
    variants("xunit-out-of-stock", "xunit", [oos], rest([oos]), EXTRA)
    variants("xunit-missing-report", "xunit", [report], rest([report]), EXTRA)
    variants("xunit-two-failures", "xunit", [wrong, keyerr], rest([wrong, keyerr]), EXTRA)
    variants("xunit-case", "xunit", [case], rest([case]), EXTRA)

    short = SHORT(ALL)
    n_wrong = Failure("StockTests", "TotalsTheStock", nunit_equal("Inventory.Total(stock)", 12, 11), [sframe("StockTests", "TotalsTheStock", 23)], display="TotalsTheStock")
    n_null = Failure("ParseTests", "KeepsItemNames", exception("System.ArgumentNullException", "Value cannot be null. (Parameter 'line')"),
                     [sframe("ParseTests", "KeepsItemNames", 33)], display="KeepsItemNames")
    variants("nunit-wrong-total", "nunit", [n_wrong], [n for n in short if n != "TotalsTheStock"], SHORT(EXTRA))
    variants("nunit-null-argument", "nunit", [n_null], [n for n in short if n != "KeepsItemNames"], SHORT(EXTRA))

    m_oos = Failure("StockTests", "TakesItems", lambda ctx: ["Test method Stock.Tests.StockTests.TakesItems threw exception: ",
                    "Stock.OutOfStockException: cannot take 2 apple: 5 left"], [sframe("StockTests", "TakesItems", 29)], display="TakesItems")
    m_true = Failure("ReportTests", "ReadsTheReportBack", lambda ctx: ["Assert.IsTrue failed. report.csv was not written"],
                     [sframe("ReportTests", "ReadsTheReportBack", 16)], display="ReadsTheReportBack")
    variants("mstest-out-of-stock", "mstest", [m_oos], [n for n in short if n != "TakesItems"], SHORT(EXTRA))
    variants("mstest-is-true", "mstest", [m_true], [n for n in short if n != "ReadsTheReportBack"], SHORT(EXTRA))

    t_wrong = Failure("StockTests", "TotalsTheStock", tunit_equal(12, 11), [sframe("StockTests", "TotalsTheStock", 19)], display="TotalsTheStock")
    variants("tunit-wrong-total", "tunit", [t_wrong], [n for n in short if n != "TotalsTheStock"], SHORT(EXTRA))

    errors = [("src/Stock/Inventory.cs", 31, 37, "CS1002", "; expected"),
              ("src/Stock/Inventory.cs", 40, 16, "CS0029", "Cannot implicitly convert type 'string' to 'int'")]
    write("compile-errors", "classic.log", compile_classic(Ctx("linux"), errors))
    write("compile-errors", "classic-windows.log", compile_classic(Ctx("windows"), errors))
    write("compile-errors", "terminal.log", compile_terminal(Ctx("linux"), errors))
    write("compile-errors", "gha.log", gha(compile_terminal(Ctx("linux", shift=2), errors), "dotnet build", 1))

    vol = Failure("AuditTests", "AuditIsSigned",
                  exception("System.Security.SecurityException",
                            lambda ctx: "audit %s rejected at %s by worker %d" % (uuid.uuid4(), datetime.datetime(2026, 11, rng.randint(1, 28), rng.randint(0, 23), rng.randint(0, 59), rng.randint(0, 59)).isoformat() + "Z", rng.randint(1000, 60000))),
                  [sframe("AuditTests", "AuditIsSigned", 9)])
    for v in ("vstest", "vstest-rerun", "mtp"):
        write("volatile", v + ".log", vstest(Ctx("linux"), [vol], ALL, "xunit") if v.startswith("vstest") else mtp(Ctx("linux"), [vol], ALL, "xunit"))
    write("volatile", "report.trx", trx(Ctx("linux"), [vol], ALL, "xunit"))

    write("passing", "vstest.log", vstest(Ctx("linux"), [], ALL, "xunit"))
    write("passing", "vstest-mstest.log", vstest(Ctx("windows"), [], short, "mstest", normal=True))
    write("passing", "mtp-nunit.log", mtp(Ctx("linux"), [], short, "nunit"))
    write("passing", "dotnet-test-mtp.log", dotnet_test_mtp(Ctx("macos"), [], ALL, "xunit"))
    write("passing", "report.trx", trx(Ctx("linux"), [], ALL, "xunit"))
    write("passing", "nunit.xml", nunit_xml(Ctx("linux"), [], short, "nunit"))
PY

# The held-out set (`heldout/<runner>`): other projects (tests/fixtures/projects/heldout,
# an inventory) with other failures, through the same runners and the same kinds of noise.
# The parsers are not written against these: tests/fingerprint.rs scores them.
#
#   scripts/gen-fixtures.sh heldout              # every runner's
#   scripts/gen-fixtures.sh heldout/RUNNER[,..]  # some runners'
HELDOUT_RUNNERS="unittest rspec minitest phpunit exunit ctest tap node playwright bun deno dotnet gtest go"
HELDOUT_FAILING=(wrong-total out-of-stock bad-parse missing-report setup-error two-files)

# LG_HELDOUT_FAILURES="a b" makes only those failures (and keeps the others' logs).
gen_heldout() {
    local r f runners=${ONLY:-" $HELDOUT_RUNNERS "}
    for r in $runners; do
        if [[ -n ${LG_HELDOUT_FAILURES:-} ]]; then
            for f in $LG_HELDOUT_FAILURES; do rm -rf "${LOGS:?}/heldout/$r/$f"; done
        else
            rm -rf "${LOGS:?}/heldout/$r"
        fi
        "heldout_$r"
    done
}

# hemit RUNNER SCENARIO VARIANT CMD...: emit for the held-out project of RUNNER, skipping
# scenarios its project does not have.
hemit() {
    local r=$1 s=$2
    shift 2
    [[ -f $PROJECTS/heldout/$r/scenarios/$s.sh ]] || return 0
    emit "heldout/$r" "$s" "$@"
}

heldout_failures() {
    if [[ -n ${LG_HELDOUT_FAILURES:-} ]]; then
        # shellcheck disable=SC2086 # a list of names, a word each
        printf '%s\n' $LG_HELDOUT_FAILURES
    else
        printf '%s\n' passing "${HELDOUT_FAILING[@]}"
    fi
}

heldout_unittest() {
    local s ut=(python3 -m unittest)
    for s in $(heldout_failures); do
        hemit unittest "$s" plain "${ut[@]}"
        hemit unittest "$s" verbose "${ut[@]}" -v
        hemit unittest "$s" discover "${ut[@]}" discover -s tests -t .
        hemit unittest "$s" shifted "${ut[@]}"
        hemit unittest "$s" extra "${ut[@]}" -v
        hemit unittest "$s" gha "${ut[@]}" -b
    done
    for v in plain rerun verbose gha; do hemit unittest volatile "$v" "${ut[@]}" -v; done
}

heldout_rspec() {
    local s
    for s in $(heldout_failures); do
        hemit rspec "$s" plain rspec
        hemit rspec "$s" documentation rspec --format documentation --order random
        hemit rspec "$s" shifted rspec
        hemit rspec "$s" extra rspec
        hemit rspec "$s" gha rspec --force-color
    done
    for v in plain rerun documentation gha; do hemit rspec volatile "$v" rspec --order random; done
}

heldout_minitest() {
    local s
    for s in $(heldout_failures); do
        hemit minitest "$s" plain rake test
        hemit minitest "$s" verbose rake test TESTOPTS=-v
        hemit minitest "$s" shifted rake test
        hemit minitest "$s" extra rake test TESTOPTS=-v
        hemit minitest "$s" gha rake test
    done
    for v in plain rerun verbose gha; do hemit minitest volatile "$v" rake test; done
}

heldout_phpunit() {
    local s
    for s in $(heldout_failures); do
        hemit phpunit "$s" plain phpunit
        hemit phpunit "$s" testdox phpunit --testdox
        hemit phpunit "$s" random phpunit --order-by=random --colors=always
        hemit phpunit "$s" shifted phpunit
        hemit phpunit "$s" extra phpunit --testdox --colors=always
        hemit phpunit "$s" gha phpunit --colors=always
    done
    for v in plain rerun testdox gha; do hemit phpunit volatile "$v" phpunit; done
}

heldout_exunit() {
    local s
    for s in $(heldout_failures); do
        hemit exunit "$s" plain mix test
        hemit exunit "$s" trace mix test --trace
        hemit exunit "$s" shifted mix test
        hemit exunit "$s" extra mix test --color
        hemit exunit "$s" gha mix test --color
    done
    for v in plain rerun trace gha; do hemit exunit volatile "$v" mix test; done
}

heldout_ctest() {
    local s build='cmake -S . -B build && cmake --build build -j 2 && ctest --test-dir build'
    for s in $(heldout_failures) null-deref; do
        hemit ctest "$s" plain sh -c "$build --output-on-failure"
        hemit ctest "$s" verbose sh -c "$build -V"
        hemit ctest "$s" parallel sh -c "$build -j 2 --output-on-failure"
        hemit ctest "$s" shifted sh -c "$build --output-on-failure"
        hemit ctest "$s" extra sh -c "$build --schedule-random --output-on-failure"
        hemit ctest "$s" gha sh -c "$build --output-on-failure"
    done
    for v in plain rerun verbose gha; do hemit ctest volatile "$v" sh -c "$build --output-on-failure"; done
}

heldout_tap() {
    local s
    for s in $(heldout_failures) dies-loading; do
        hemit tap "$s" plain prove
        hemit tap "$s" verbose prove -v
        hemit tap "$s" parallel prove -j 2 --shuffle
        hemit tap "$s" shifted prove
        hemit tap "$s" extra prove -v
        hemit tap "$s" gha prove --timer
    done
    for v in plain rerun verbose gha; do hemit tap volatile "$v" prove; done
}

heldout_node() {
    local s nt=(node --test)
    for s in $(heldout_failures); do
        hemit node "$s" plain "${nt[@]}" --test-reporter=spec
        hemit node "$s" tap "${nt[@]}" --test-reporter=tap
        hemit node "$s" serial "${nt[@]}" --test-reporter=spec --test-concurrency=1
        hemit node "$s" shifted "${nt[@]}" --test-reporter=tap
        hemit node "$s" extra "${nt[@]}" --test-reporter=spec
        FORCE_COLOR=1 hemit node "$s" gha "${nt[@]}" --test-reporter=spec
    done
    for v in plain rerun tap gha; do hemit node volatile "$v" "${nt[@]}" --test-reporter=spec; done
}

heldout_playwright() {
    local s pw=(node_modules/.bin/playwright test)
    for s in $(heldout_failures); do
        hemit playwright "$s" plain "${pw[@]}" --reporter=list
        hemit playwright "$s" line "${pw[@]}" --reporter=line
        PW_WORKERS=2 PW_PARALLEL=1 hemit playwright "$s" parallel "${pw[@]}" --reporter=dot
        PW_RETRIES=1 hemit playwright "$s" retries "${pw[@]}" --reporter=list
        hemit playwright "$s" shifted "${pw[@]}" --reporter=list
        hemit playwright "$s" extra "${pw[@]}" --reporter=line
        FORCE_COLOR=1 hemit playwright "$s" gha "${pw[@]}" --reporter=list
    done
    for v in plain rerun dot gha; do hemit playwright volatile "$v" "${pw[@]}" --reporter=list; done
}

heldout_bun() {
    local s bun=(node_modules/.bin/bun test)
    for s in $(heldout_failures); do
        hemit bun "$s" plain "${bun[@]}"
        hemit bun "$s" random "${bun[@]}" --randomize
        hemit bun "$s" shifted "${bun[@]}"
        hemit bun "$s" extra "${bun[@]}"
        FORCE_COLOR=1 hemit bun "$s" gha "${bun[@]}"
    done
    for v in plain rerun random gha; do hemit bun volatile "$v" "${bun[@]}"; done
}

heldout_deno() {
    local s deno
    deno="$(js_tools)/node_modules/.bin/deno"
    for s in $(heldout_failures) type-check; do
        NO_COLOR=1 hemit deno "$s" plain "$deno" test -A
        NO_COLOR=1 hemit deno "$s" dot "$deno" test -A --reporter=dot
        NO_COLOR=1 hemit deno "$s" parallel "$deno" test -A --parallel --shuffle
        NO_COLOR=1 hemit deno "$s" shifted "$deno" test -A
        NO_COLOR=1 hemit deno "$s" extra "$deno" test -A
        hemit deno "$s" gha "$deno" test -A
    done
    for v in plain rerun dot gha; do NO_COLOR=1 hemit deno volatile "$v" "$deno" test -A; done
}

heldout_dotnet() {
    python3 "$WORK/dotnet_fixtures.py" "$LOGS" heldout/dotnet
}

# Runners of their own files (scripts/fixtures/<runner>.sh: gen_<runner>, heldout_<runner>).
for runner_script in "$(dirname "$0")"/fixtures/*.sh; do
    # shellcheck source=/dev/null
    source "$runner_script"
done

main() {
    local args=("$@")
    [[ ${#args[@]} -gt 0 ]] || args=(cargo nextest pytest go jest vitest mocha tsc junit unittest rspec minitest phpunit exunit ctest tap node playwright bun deno dotnet gtest heldout)
    local arg r s
    for arg in "${args[@]}"; do
        r=${arg%%/*}
        ONLY=""
        if [[ $arg == */* ]]; then
            ONLY=" ${arg#*/} "
            ONLY=${ONLY//,/ }
            # heldout/RUNNER: gen_heldout removes what it makes again.
            [[ $r == heldout ]] || for s in $ONLY; do
                rm -rf "${LOGS:?}/$r/$s" "${LOGS:?}/$r/$s-summary"
            done
        elif [[ $r != dotnet && $r != heldout ]]; then # they keep their READMEs
            rm -rf "${LOGS:?}/$r"
        fi
        "gen_$r"
    done
}

main "$@"
