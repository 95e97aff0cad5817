#!/usr/bin/env bash
# What each rule costs on one log: the user CPU time of linting it with
# that rule alone (`--select RULE --jobs 1`, JSON output, every finding
# listed), less that of the reading and the model (`--select
# label-too-long`, which finds nothing on a generated log), the least of
# RUNS runs each; sorted from the costliest. A regression in one rule
# shows as its row growing.
#   scripts/bench-rules.sh [LOG] [RUNS]
# LOG defaults to the talkative row of `scripts/bench-floor.sh --matrix`
# (generated here when missing). With BIN_DIR set, its callint and
# examples are measured instead of a fresh release build.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${2:-3}
dir=target/bench-floor
mkdir -p "$dir"
if [ -z "${BIN_DIR:-}" ]; then
  cargo build --release --locked --quiet --bin callint --example benchgen
fi
bin=${BIN_DIR:-target/release}
log=${1:-$dir/talkative-compact.jsonl}
if [ ! -e "$log" ]; then
  # the talkative row's flags, as bench-floor.sh --matrix gives them
  "$bin/examples/benchgen" --agents 4 --to-me 36 --says 2 --distinct --boards 10 \
    --decisions 0 --timeouts 30 --others 100 --lines 8 --seed 53 100000 "$log"
fi

# the least user CPU seconds of `runs` runs of the lint with these rules
cpu() {
  local best= u
  for _ in $(seq "$runs"); do
    u=$(/usr/bin/time -f '%U' "$bin/callint" check --no-cache --max-repeats 0 --format json \
      --exit-zero --jobs 1 --select "$1" "$log" 2>&1 >/dev/null | tail -1)
    if [ -z "$best" ] || [ "$(echo "$u < $best" | bc -l)" = 1 ]; then best=$u; fi
  done
  echo "$best"
}
base=$(cpu label-too-long)
all=$(cpu all)
printf '%s: %.1f MB; user CPU, --jobs 1, least of %d runs\n' "$log" \
  "$(echo "$(stat -c %s "$log")/1000000" | bc -l)" "$runs"
printf '%-30s %6.2f s\n' "reading and model" "$base" "all rules" "$all"
"$bin/callint" rules | awk 'NR > 1 && /^$/ { exit } NR > 1 { print $1 }' |
  while read -r rule; do
    printf '%s %s\n' "$rule" "$(echo "$(cpu "$rule") - $base" | bc -l)"
  done | sort -k2 -gr | while read -r rule c; do
    printf '%-30s %+6.2f s\n' "$rule" "$c"
  done
