#!/usr/bin/env bash
# `callint server`: the time from a change to its diagnostics, and memory.
#   - a skill of 2,000 lines (corpus/prompts/bad-prompt.md over and over),
#     one line edited per change (goal: p99 <= 30 ms);
#   - a 10 MB call log (examples/genlog) open in the editor, one line
#     appended on disk per change (goal: p99 <= 50 ms);
#   - the server's peak resident set with a 50 MB log open.
# Usage: scripts/bench-server.sh [RUNS]   (default 200)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-200}
target=${CARGO_TARGET_DIR:-target}
dir="$target/bench-server"
mkdir -p "$dir"
cargo build --release --locked --quiet --bin callint --example genlog
bin="$target/release/callint"

if [ ! -f "$dir/skill.md" ]; then
  : > "$dir/skill.md"
  while [ "$(wc -l < "$dir/skill.md")" -lt 2000 ]; do
    cat corpus/prompts/bad-prompt.md >> "$dir/skill.md"
  done
  head -n 2000 "$dir/skill.md" > "$dir/skill.tmp" && mv "$dir/skill.tmp" "$dir/skill.md"
fi
# About 800 bytes a turn.
[ -f "$dir/log10.jsonl" ] || "$target/release/examples/genlog" 12500 "$dir/log10.jsonl"
[ -f "$dir/log50.jsonl" ] || "$target/release/examples/genlog" 62500 "$dir/log50.jsonl"

python3 scripts/bench_server.py "$bin" "$dir/skill.md" "$dir/log10.jsonl" "$dir/log50.jsonl" "$runs"
