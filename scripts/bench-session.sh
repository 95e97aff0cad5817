#!/usr/bin/env bash
# Whole-process figures for reading an agent's session file, measured in one
# run on this machine: the lint (every rule, JSON output) of a large Claude
# Code session against a bare serde_json parse of the same lines
# (examples/parse_floor.rs), best of three wall-clock runs each, and peak
# memory against the file's size.
#
# The session is the generated call of examples/genlog.rs written as a
# Claude Code session by scripts/corpus/claude-session.py, with a coding
# agent's everyday work (file reads of 6 KB, shell commands, progress
# entries) after every 10th record of the call.
# Usage: scripts/bench-session.sh [TURNS]   (default 20000 human turns)
set -euo pipefail
cd "$(dirname "$0")/.."
turns=${1:-20000}
dir=target/bench-session
mkdir -p "$dir"
cargo build --release --locked --quiet --bin callint --example genlog --example parse_floor
bin=target/release
"$bin/examples/genlog" "$turns" "$dir/native.jsonl"
python3 scripts/corpus/claude-session.py --noise 10 "$dir/native.jsonl" "$dir/session.jsonl"

# shellcheck source=scripts/best.sh
. scripts/best.sh
lint() { "$bin/callint" check --no-cache "$1" --format json --exit-zero; }
peak() { /usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -1; }
for f in native session; do
  size=$(stat -c %s "$dir/$f.jsonl")
  p=$(best 3 "$bin/examples/parse_floor" "$dir/$f.jsonl")
  l=$(best 3 lint "$dir/$f.jsonl")
  m=$(peak "$bin/callint" check --no-cache "$dir/$f.jsonl" --format json --exit-zero)
  printf '%-8s %7.1f MB  parse %6.3f s  lint %6.3f s  lint/parse %5.2f  peak %7.1f MB (file x %.2f)\n' \
    "$f" "$(echo "$size/1000000" | bc -l)" "$(echo "$p/1000000" | bc -l)" "$(echo "$l/1000000" | bc -l)" \
    "$(echo "$l/$p" | bc -l)" "$(echo "$m/1024" | bc -l)" "$(echo "$m*1024/$size" | bc -l)"
done
