#!/usr/bin/env bash
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
        ln -s "$(node_tools)/node_modules" "$dir/node_modules"
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

# Prepends comment lines to every source file: line numbers move, the failure does not.
shift_lines() {
    local f
    while IFS= read -r -d '' f; do
        case $f in
        *.py) printf '# shifted\n# shifted\n# shifted\n\n# shifted\n' | cat - "$f" >"$f.new" ;;
        *.rs | *.go | *.js | *.ts | *.mjs | *.java | *.cpp | *.h | *.cs)
            printf '// shifted\n// shifted\n// shifted\n\n// shifted\n' | cat - "$f" >"$f.new" ;;
        *.rb | *.ex | *.exs | *.t | *.pm | CMakeLists.txt)
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
        two-failures; do
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
        two-failures; do
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
        two-failures; do
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

main() {
    local args=("$@")
    [[ ${#args[@]} -gt 0 ]] || args=(cargo nextest pytest go jest vitest mocha tsc junit unittest rspec minitest phpunit exunit ctest tap)
    local arg r s
    for arg in "${args[@]}"; do
        r=${arg%%/*}
        ONLY=""
        if [[ $arg == */* ]]; then
            ONLY=" ${arg#*/} "
            ONLY=${ONLY//,/ }
            for s in $ONLY; do
                rm -rf "${LOGS:?}/$r/$s" "${LOGS:?}/$r/$s-summary"
            done
        else
            rm -rf "${LOGS:?}/$r"
        fi
        "gen_$r"
    done
}

main "$@"
