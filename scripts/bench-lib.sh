# shellcheck shell=bash
# Shared by the bench scripts (sourced, not run).
#
# median_ms RUNS PREPARE COMMAND [WARMUP]: "WALL CPU": the median wall time of COMMAND (run
# by the shell in the current directory) and its mean CPU time (user + system, children
# included; "-" without hyperfine), in milliseconds. PREPARE (may be empty) runs before
# each run, untimed; WARMUP runs (default 1) come first. Exit codes are ignored (`check`
# exits 1 when it trips).
median_ms() {
  local n=$1 prepare=$2 cmd=$3 warmup=${4:-1}
  if command -v hyperfine >/dev/null 2>&1; then
    local json
    json=$(mktemp)
    local args=(--style none --runs "$n" --warmup "$warmup" -i --export-json "$json")
    if [ -n "$prepare" ]; then args+=(--prepare "$prepare"); fi
    hyperfine "${args[@]}" "$cmd" >/dev/null 2>&1
    perl -0777 -ne '
      my ($m) = /"median":\s*([0-9.eE+-]+)/; my ($u) = /"user":\s*([0-9.eE+-]+)/;
      my ($s) = /"system":\s*([0-9.eE+-]+)/;
      printf "%.1f %.1f\n", $m * 1000, ($u + $s) * 1000' "$json"
    rm -f "$json"
  else
    local i t0 t1 times=()
    for ((i = 0; i < n; i++)); do
      if [ -n "$prepare" ]; then sh -c "$prepare" >/dev/null 2>&1; fi
      t0=$(date +%s%N)
      sh -c "$cmd" >/dev/null 2>&1 || true
      t1=$(date +%s%N)
      times+=($(( (t1 - t0) / 1000 )))
    done
    printf '%s\n' "${times[@]}" | sort -n | awk '{ a[NR] = $1 } END {
      m = (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2; printf "%.1f -\n", m / 1000 }'
  fi
}
