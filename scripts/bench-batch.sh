#!/usr/bin/env bash
# Whole-folder batch benchmark, measured in one run on this machine:
#   - a folder of COPIES x the corpus's logs (default 100 x 27 files), each
#     copy varied: its own call ids, links and day, agents renamed;
#   - `callint check DIR --format json` with --jobs 1 and with the default
#     (all cores), best of 3 wall-clock runs each;
#   - files per second for both, and the speedup of the default over one job;
#   - then the cache of unchanged files: a cold run (empty cache, filled on
#     the way) against a warm one (every file unchanged), all cores, best
#     of 3 each.
# All runs must print the same bytes; the script stops if they do not.
# Usage: scripts/bench-batch.sh [--folder-only] [COPIES]
#   --folder-only: write the folder ($target/bench-batch/logs) and stop
#   (scripts/bench-python.sh measures on it).
set -euo pipefail
cd "$(dirname "$0")/.."
folder_only=
if [ "${1:-}" = --folder-only ]; then
  folder_only=1
  shift
fi
copies=${1:-100}
target=${CARGO_TARGET_DIR:-target}
dir=$target/bench-batch
cargo build --release --locked --quiet --bin callint
bin=$target/release/callint

# The folder: copy k of corpus/CASE/NAME.jsonl is logs/kKKK/CASE/NAME.jsonl.
rm -rf "$dir"
for k in $(seq 0 $((copies - 1))); do
  for c in corpus/*/; do printf '%s/logs/k%03d/%s\n' "$dir" "$k" "$(basename "$c")"; done
done | xargs mkdir -p
for log in corpus/*/*.jsonl; do
  case_name=$(basename "$(dirname "$log")")
  awk -v copies="$copies" -v root="$dir/logs" -v case_name="$case_name" \
      -v name="$(basename "$log")" '
    { lines[NR] = $0 }
    END {
      for (k = 0; k < copies; k++) {
        d = sprintf("%s/k%03d/%s", root, k, case_name)
        out = d "/" name
        day = sprintf("%02d", 1 + k % 28)
        for (i = 1; i <= NR; i++) {
          l = lines[i]
          # A call of its own: ids, links and the day.
          gsub(/"call":"/, "&k" k "-", l)
          gsub(/"call_id":"/, "&k" k "-", l)
          gsub(/voicehook\.ai\/c\//, "&k" k "-", l)
          gsub(/2026-10-10T/, "2026-10-" day "T", l)
          # Every other copy renames two agents throughout.
          if (k % 2 == 1) { gsub(/Promo/, "Herald", l); gsub(/Claude/, "Sage", l) }
          print l > out
        }
        close(out)
      }
    }' "$log"
done
if [ -n "$folder_only" ]; then
  exit 0
fi
files=$(find "$dir/logs" -name '*.jsonl' | wc -l)
bytes=$(du -sb "$dir/logs" | cut -f1)
cores=$(nproc)

# shellcheck source=scripts/best.sh
. scripts/best.sh
lint() { "$bin" check "$dir/logs" --format json --exit-zero --no-cache "$@"; }
cache=$dir/cache
cached() { "$bin" check "$dir/logs" --format json --exit-zero --cache-dir "$cache"; }
cold() { rm -rf "$cache"; cached; }

if ! cmp -s <(lint --jobs 1) <(lint); then
  echo "bench-batch: --jobs 1 and the default printed different output" >&2
  exit 1
fi
one=$(best 3 lint --jobs 1)
all=$(best 3 lint)
printf '%d files, %.1f MB, %d cores\n' "$files" "$(echo "$bytes/1000000" | bc -l)" "$cores"
printf -- '--jobs 1   %7.3f s  %8.0f files/s\n' "$(echo "$one/1000000" | bc -l)" "$(echo "$files*1000000/$one" | bc -l)"
printf -- 'default    %7.3f s  %8.0f files/s\n' "$(echo "$all/1000000" | bc -l)" "$(echo "$files*1000000/$all" | bc -l)"
printf 'speedup: %.2fx over --jobs 1\n' "$(echo "$one/$all" | bc -l)"

if ! cmp -s <(lint) <(cold) || ! cmp -s <(lint) <(cached); then
  echo "bench-batch: a run from the cache printed different output" >&2
  exit 1
fi
cold_t=$(best 3 cold)
cached > /dev/null
warm_t=$(best 3 cached)
printf -- 'cache cold %7.3f s  %8.0f files/s\n' "$(echo "$cold_t/1000000" | bc -l)" "$(echo "$files*1000000/$cold_t" | bc -l)"
printf -- 'cache warm %7.3f s  %8.0f files/s\n' "$(echo "$warm_t/1000000" | bc -l)" "$(echo "$files*1000000/$warm_t" | bc -l)"
printf 'warm: %.2fx faster than cold\n' "$(echo "$cold_t/$warm_t" | bc -l)"
