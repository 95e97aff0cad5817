#!/usr/bin/env bash
# Whole-process figures for callint against the parse floor, measured in one
# run on this machine:
#   - lint / parse: the full lint (every rule, JSON output) of a large
#     generated log against a bare serde_json parse of the same lines
#     (examples/parse_floor.rs), best of three wall-clock runs each;
#   - scaling: the lint of a 4x larger log against the first;
#   - peak memory (maximum resident set) against the file's size;
#   - a room of 5,000 speakers alike against one of 20,000;
#   - with --instructions, also the instruction counts of both on the first
#     log (valgrind's callgrind): the same figure on a busy machine.
# Usage: scripts/bench-floor.sh [--instructions] [TURNS]
#   (default 100000 human turns: about 80 MB, and 320 MB for the 4x log)
set -euo pipefail
cd "$(dirname "$0")/.."
instructions=
if [ "${1:-}" = --instructions ]; then instructions=1; shift; fi
turns=${1:-100000}
dir=target/bench-floor
mkdir -p "$dir"
cargo build --release --locked --quiet --bin callint --example genlog --example parse_floor
bin=target/release
"$bin/examples/genlog" "$turns" "$dir/small.jsonl"
"$bin/examples/genlog" "$((turns * 4))" "$dir/large.jsonl"

# shellcheck source=scripts/best.sh
. scripts/best.sh
lint() { "$bin/callint" check --no-cache "$1" --format json --exit-zero; }
peak() { /usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -1; }
# instructions executed by a command, counted by callgrind
instr() {
  valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 >/dev/null |
    sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}

for f in small large; do
  size=$(stat -c %s "$dir/$f.jsonl")
  p=$(best 3 "$bin/examples/parse_floor" "$dir/$f.jsonl")
  l=$(best 3 lint "$dir/$f.jsonl")
  m=$(peak "$bin/callint" check --no-cache "$dir/$f.jsonl" --format json --exit-zero)
  pm=$(peak "$bin/examples/parse_floor" "$dir/$f.jsonl")
  printf '%-6s %8.1f MB  parse %7.3f s  lint %7.3f s  lint/parse %5.2f  peak %7.1f MB (2 x file + 30 MB = %.1f; file x %.2f; parse alone %.1f MB)\n' \
    "$f" "$(echo "$size/1000000" | bc -l)" "$(echo "$p/1000000" | bc -l)" "$(echo "$l/1000000" | bc -l)" \
    "$(echo "$l/$p" | bc -l)" "$(echo "$m/1024" | bc -l)" "$(echo "(2*$size)/1048576+30" | bc -l)" \
    "$(echo "$m*1024/$size" | bc -l)" "$(echo "$pm/1024" | bc -l)"
  eval "lint_$f=$l"
done
printf 'scaling: 4x the log costs %.2fx the time\n' "$(echo "$lint_large/$lint_small" | bc -l)"
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
