#!/usr/bin/env bash
# The audit's benchmark, one run each on this machine:
#   - a folder of about CALLS calls (default 10,000): copies of the corpus's
#     logs, each copy varied (its own call ids, links and day, agents
#     renamed), as scripts/bench-batch.sh writes them;
#   - `callint check DIR --statistics` against `callint audit DIR --html OUT`
#     (the post-mortems of the calls to open first included), both without
#     the cache, all cores; the ratio of the two (the goal: at most 1.5);
#   - the size of the overview page and of the post-mortems.
# The audit's counts must be those of check; the script stops if not.
# Usage: scripts/bench-audit.sh [CALLS]
set -euo pipefail
cd "$(dirname "$0")/.."
calls=${1:-10000}
target=${CARGO_TARGET_DIR:-target}
cargo build --release --locked --quiet --bin callint
bin=$target/release/callint
logs=$target/bench-batch/logs
out=$target/bench-audit

# How many calls ten copies of the corpus hold (a few calls are alike in
# every copy), then as many copies as make CALLS calls.
scripts/bench-batch.sh --folder-only 10
ten=$("$bin" audit "$logs" --no-cache --format json --exit-zero --calls 0 |
  python3 -c 'import json, sys; print(json.load(sys.stdin)["calls"])')
copies=$(((calls * 10 + ten - 1) / ten))
scripts/bench-batch.sh --folder-only "$copies"
files=$(find "$logs" -name '*.jsonl' | wc -l)

now() { date +%s%N; }
t0=$(now)
"$bin" check "$logs" --statistics --no-cache --exit-zero > "$target/bench-audit-statistics.txt"
t1=$(now)
rm -rf "$out"
"$bin" audit "$logs" --html "$out" --no-cache --exit-zero --quiet --format json -o "$target/bench-audit.json"
t2=$(now)

# The same counts, or the timing means nothing.
python3 - "$target/bench-audit-statistics.txt" "$target/bench-audit.json" <<'EOF'
import json, sys
text = open(sys.argv[1], encoding="utf-8").read()
audit = json.load(open(sys.argv[2], encoding="utf-8"))
found = int(text.split("Found ", 1)[1].split(" ", 1)[0]) if "Found " in text else 0
if found != audit["diagnostics"]:
    sys.exit(f"bench-audit: check found {found} findings, the audit {audit['diagnostics']}")
for line in text.splitlines():
    parts = line.split()
    if len(parts) == 4 and parts[0].isdigit() and parts[2] in audit["statistics"]["rules"]:
        if int(parts[0]) != audit["statistics"]["rules"][parts[2]]["diagnostics"]:
            sys.exit(f"bench-audit: {parts[2]}: check {parts[0]}, the audit differs")
EOF

check=$((t1 - t0))
audit=$((t2 - t1))
ncalls=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["calls"])' "$target/bench-audit.json")
pages=$(find "$out/calls" -name '*.html' | wc -l)
index=$(stat -c %s "$out/index.html")
posts=$(du -sb "$out/calls" | cut -f1)
printf '%d calls in %d files, %d cores\n' "$ncalls" "$files" "$(nproc)"
printf 'check --statistics  %7.3f s\n' "$(echo "$check/1000000000" | bc -l)"
printf 'audit --html        %7.3f s  (%.2fx check; %d post-mortems)\n' \
  "$(echo "$audit/1000000000" | bc -l)" "$(echo "$audit/$check" | bc -l)" "$pages"
printf 'index.html          %7.1f kB (%.1f kB gzipped)\n' "$(echo "$index/1000" | bc -l)" \
  "$(echo "$(gzip -c "$out/index.html" | wc -c)/1000" | bc -l)"
printf 'calls/              %7.1f kB\n' "$(echo "$posts/1000" | bc -l)"
