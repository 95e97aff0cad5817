#!/usr/bin/env bash
# What each rule costs on one log: the user CPU time of linting it with
# that rule alone (`--select RULE --jobs 1`, JSON output, every finding
# listed), less that of the reading and the model (`--select
# label-too-long`, which finds nothing on a generated log), the least of
# RUNS runs each; sorted from the costliest. A regression in one rule
# shows as its row growing.
#   scripts/bench-rules.sh [--instructions] [LOG] [RUNS]
# LOG defaults to the talkative row of `scripts/bench-floor.sh --matrix`
# (generated here when missing). With BIN_DIR set, its callint and
# examples are measured instead of a fresh release build.
# With --instructions, each lint's instructions are counted under
# callgrind instead (one run each, in millions): a figure a busy machine
# does not move, where CPU time on it moves by a tenth of a second. LOG
# then defaults to the same call a tenth as long, as callgrind runs some
# fifty times slower.
set -euo pipefail
cd "$(dirname "$0")/.."
instructions=
if [ "${1:-}" = --instructions ]; then instructions=1; shift; fi
runs=${2:-3}
dir=target/bench-floor
mkdir -p "$dir"
if [ -z "${BIN_DIR:-}" ]; then
  cargo build --release --locked --quiet --bin callint --example benchgen
fi
bin=${BIN_DIR:-target/release}
turns=100000 name=talkative-compact
if [ -n "$instructions" ]; then turns=10000 name=talkative-short runs=1; fi
log=${1:-$dir/$name.jsonl}
if [ ! -e "$log" ]; then
  # the talkative row's flags, as bench-floor.sh --matrix gives them
  "$bin/examples/benchgen" --agents 4 --to-me 36 --says 2 --distinct --boards 10 \
    --decisions 0 --timeouts 30 --others 100 --lines 8 --seed 53 "$turns" "$log"
fi

# the least user CPU seconds of `runs` runs of the lint with these rules,
# or with --instructions the millions of instructions of one
cost() {
  if [ -n "$instructions" ]; then
    valgrind --tool=callgrind --callgrind-out-file=/dev/null "$bin/callint" check --no-cache \
      --max-repeats 0 --format json --exit-zero --jobs 1 --select "$1" "$log" 2>&1 >/dev/null |
      sed -n 's/.*Collected : \([0-9]*\).*/\1/p' | awk '{ printf "%.1f\n", $1 / 1e6 }'
    return
  fi
  local best= u
  for _ in $(seq "$runs"); do
    u=$(/usr/bin/time -f '%U' "$bin/callint" check --no-cache --max-repeats 0 --format json \
      --exit-zero --jobs 1 --select "$1" "$log" 2>&1 >/dev/null | tail -1)
    if [ -z "$best" ] || [ "$(echo "$u < $best" | bc -l)" = 1 ]; then best=$u; fi
  done
  echo "$best"
}
base=$(cost label-too-long)
all=$(cost all)
if [ -n "$instructions" ]; then
  unit='M instr' fmt='%-30s %8.1f %s\n' rfmt='%-30s %+8.1f %s\n'
  printf '%s: %.1f MB; millions of instructions (callgrind), --jobs 1\n' "$log" \
    "$(echo "$(stat -c %s "$log")/1000000" | bc -l)"
else
  unit=s fmt='%-30s %6.2f %s\n' rfmt='%-30s %+6.2f %s\n'
  printf '%s: %.1f MB; user CPU, --jobs 1, least of %d runs\n' "$log" \
    "$(echo "$(stat -c %s "$log")/1000000" | bc -l)" "$runs"
fi
printf "$fmt" "reading and model" "$base" "$unit"
printf "$fmt" "all rules" "$all" "$unit"
# the rules of the registry: the first block of `callint rules`, less the
# notes of the engine, which `--select` runs with any rule
"$bin/callint" rules | awk 'NR > 1 && /^$/ { exit } NR > 1 { print $1 }' |
  grep -vxE 'invalid-record|no-times|unknown-roles|unused-suppression|label-too-long' |
  while read -r rule; do
    printf '%s %s\n' "$rule" "$(echo "$(cost "$rule") - $base" | bc -l)"
  done | sort -k2 -gr | while read -r rule c; do
    printf "$rfmt" "$rule" "$c" "$unit"
  done
