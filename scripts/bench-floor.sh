#!/usr/bin/env bash
# Whole-process figures for callint against the parse floor, measured in one
# run on this machine:
#   - lint / parse: the full lint (every rule, JSON output) of a large
#     generated log against a bare serde_json parse of the same lines
#     (examples/parse_floor.rs), the least wall and the least CPU time of
#     five runs each;
#   - scaling: the lint of a 4x larger log against the first;
#   - peak memory (the highest maximum resident set of the five runs)
#     against the file's size;
#   - a room of 5,000 speakers alike against one of 20,000;
#   - with --instructions, also the instruction counts of both on the first
#     log (valgrind's callgrind): the same figure on a busy machine.
# With --matrix, instead a matrix of logs unlike each other (genlog's, and
# examples/benchgen.rs's with 5 and 12 agents whose lines come on most
# turns, each compact and with spaces, one where the server echoes the
# recorder's says back, a talkative agent's in a long call, compact and
# with spaces, and one of many calls in German and English), each
# linted and parsed in the same run: the least wall and the
# least CPU time of five runs each, lint/parse of both, and the highest
# peak memory of the five lints against twice the file plus 30 MB (the
# peak moves by a few MB from run to run with how the rules' threads
# overlap).
# Usage: scripts/bench-floor.sh [--instructions | --matrix] [TURNS]
#   (default 100000 human turns: about 80 MB, and 320 MB for the 4x log)
# With BIN_DIR set, its callint and examples are measured instead of a
# fresh release build. With --matrix and BASE_DIR set too, the callint and
# parse floor in BASE_DIR are measured on each row just before BIN_DIR's
# (the logs are made by BIN_DIR's generators): two builds compared on a
# machine whose speed drifts.
set -euo pipefail
cd "$(dirname "$0")/.."
instructions=
matrix=
if [ "${1:-}" = --instructions ]; then instructions=1; shift; fi
if [ "${1:-}" = --matrix ]; then matrix=1; shift; fi
turns=${1:-100000}
dir=target/bench-floor
mkdir -p "$dir"
if [ -z "${BIN_DIR:-}" ]; then
  cargo build --release --locked --quiet --bin callint --example genlog --example parse_floor --example benchgen
fi
bin=${BIN_DIR:-target/release}

# the least wall seconds, the least CPU seconds (user and system) and
# the highest peak KiB of five runs: the least time is the run the
# machine disturbed least, each measure on its own
run5() {
  local line wall= cpu= most=0 w u s m c
  for _ in 1 2 3 4 5; do
    line=$(/usr/bin/time -f '%e %U %S %M' "$@" 2>&1 >/dev/null | tail -1)
    read -r w u s m <<< "$line"
    c=$(echo "$u+$s" | bc -l)
    if [ -z "$wall" ] || [ "$(echo "$w < $wall" | bc -l)" = 1 ]; then wall=$w; fi
    if [ -z "$cpu" ] || [ "$(echo "$c < $cpu" | bc -l)" = 1 ]; then cpu=$c; fi
    if [ "$m" -gt "$most" ]; then most=$m; fi
  done
  echo "$wall $cpu $most"
}

if [ -n "$matrix" ]; then
  # one line per build: with BASE_DIR set, its build is measured on each
  # row just before this one's, so that both see the machine alike
  row() { # name file
    local size pw pc pm lw lc lm b label
    size=$(stat -c %s "$2")
    for b in ${BASE_DIR:+"$BASE_DIR"} "$bin"; do
      label=$1
      if [ -n "${BASE_DIR:-}" ]; then
        label="$1 ($([ "$b" = "$bin" ] && echo new || echo base))"
      fi
      read -r pw pc pm <<< "$(run5 "$b/examples/parse_floor" "$2")"
      read -r lw lc lm <<< "$(run5 "$b/callint" check --no-cache "$2" --format json --exit-zero)"
      printf '%-29s %7.1f MB  parse %6.2f s (cpu %6.2f)  lint %6.2f s (cpu %6.2f)  lint/parse %5.2f (cpu %5.2f)  peak %6.1f MB (bound %6.1f)\n' \
        "$label" "$(echo "$size/1000000" | bc -l)" "$pw" "$pc" "$lw" "$lc" \
        "$(echo "$lw/$pw" | bc -l)" "$(echo "$lc/$pc" | bc -l)" "$(echo "$lm/1024" | bc -l)" \
        "$(echo "(2*$size)/1048576+30" | bc -l)"
    done
  }
  "$bin/examples/genlog" "$turns" "$dir/genlog.jsonl"
  row "genlog" "$dir/genlog.jsonl"
  for agents in 5 12; do
    for form in compact spaced; do
      flag=; [ "$form" = spaced ] && flag=--spaced
      f="$dir/agents$agents-$form.jsonl"
      "$bin/examples/benchgen" --agents "$agents" --others 90 $flag "$turns" "$f"
      row "$agents agents, $form" "$f"
    done
  done
  # The server echoing the recorder's own says back among the others'.
  f="$dir/echoes.jsonl"
  "$bin/examples/benchgen" --agents 5 --others 90 --echo 100 "$turns" "$f"
  row "5 agents, echoes" "$f"
  # One talkative agent in a long call where four others speak too: it
  # answers about every other human line with says of their own text, and
  # the others' lines come in bunches on a third of the turns. Here the
  # rules cost more than the reading (scripts/bench-rules.sh: each rule's
  # share).
  for form in compact spaced; do
    flag=; [ "$form" = spaced ] && flag=--spaced
    f="$dir/talkative-$form.jsonl"
    "$bin/examples/benchgen" --agents 4 --to-me 36 --says 2 --distinct --boards 10 \
      --decisions 0 --timeouts 30 --others 100 --lines 8 --seed 53 $flag "$turns" "$f"
    row "talkative, $form" "$f"
  done
  f="$dir/many-calls.jsonl"
  "$bin/examples/benchgen" --agents 5 --lang mix --calls 50 "$((turns / 50))" "$f"
  row "50 calls, en+de" "$f"
  exit 0
fi
"$bin/examples/genlog" "$turns" "$dir/small.jsonl"
"$bin/examples/genlog" "$((turns * 4))" "$dir/large.jsonl"

# shellcheck source=scripts/best.sh
. scripts/best.sh
lint() { "$bin/callint" check --no-cache "$1" --format json --exit-zero; }
# instructions executed by a command, counted by callgrind
instr() {
  valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 >/dev/null |
    sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}

declare -A wall cpu
for f in small large; do
  size=$(stat -c %s "$dir/$f.jsonl")
  read -r pw pc pm <<< "$(run5 "$bin/examples/parse_floor" "$dir/$f.jsonl")"
  read -r lw lc lm <<< "$(run5 "$bin/callint" check --no-cache "$dir/$f.jsonl" --format json --exit-zero)"
  printf '%-6s %8.1f MB  parse %6.2f s (cpu %6.2f)  lint %6.2f s (cpu %6.2f)  lint/parse %5.2f (cpu %5.2f)  peak %7.1f MB (2 x file + 30 MB = %.1f; file x %.2f; parse alone %.1f MB)\n' \
    "$f" "$(echo "$size/1000000" | bc -l)" "$pw" "$pc" "$lw" "$lc" "$(echo "$lw/$pw" | bc -l)" "$(echo "$lc/$pc" | bc -l)" \
    "$(echo "$lm/1024" | bc -l)" "$(echo "(2*$size)/1048576+30" | bc -l)" \
    "$(echo "$lm*1024/$size" | bc -l)" "$(echo "$pm/1024" | bc -l)"
  wall[$f]=$lw cpu[$f]=$lc
done
printf 'scaling: 4x the log costs %.2fx the wall time, %.2fx the CPU time\n' \
  "$(echo "${wall[large]}/${wall[small]}" | bc -l)" "$(echo "${cpu[large]}/${cpu[small]}" | bc -l)"
# A room of many speakers alike, and one four times as large: work over
# pairs of participants would show as a ratio far above 4.
"$bin/examples/genlog" --speakers 5000 "$dir/speakers.jsonl"
"$bin/examples/genlog" --speakers 20000 "$dir/speakers4.jsonl"
s1=$(best 3 lint "$dir/speakers.jsonl")
s4=$(best 3 lint "$dir/speakers4.jsonl")
printf 'speakers: 5,000 alike %.3f s, 20,000 alike %.3f s: 4x the speakers costs %.2fx the time\n' \
  "$(echo "$s1/1000000" | bc -l)" "$(echo "$s4/1000000" | bc -l)" "$(echo "$s4/$s1" | bc -l)"
if [ -n "$instructions" ]; then
  pi=$(instr "$bin/examples/parse_floor" "$dir/small.jsonl")
  li=$(instr "$bin/callint" check --no-cache "$dir/small.jsonl" --format json --exit-zero)
  printf 'instructions (small): parse %d  lint %d  lint/parse %.2f\n' "$pi" "$li" "$(echo "$li/$pi" | bc -l)"
fi
