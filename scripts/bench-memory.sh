#!/usr/bin/env bash
# Peak memory of `callint check` on hostile files, against the bound
# peak <= 2 x input + 30 MB. Each file is checked in the formats users run
# (concise, pretty, JSON) and read from standard input too; the peak is
# the maximum resident set size that /usr/bin/time -v reports.
#   - broken.jsonl: 1,048,576 lines of `{` (2 MB), each a broken record;
#   - zeros.log:    1 GiB of zero bytes without a line end (read as a log);
#   - zeros.bin:    the same bytes under a name that says nothing;
#   - huge/*:       names and texts of 4 MB (scripts/huge-names.sh), against
#                   peak <= 2 x input + 100 MB, and `report` of each too.
# Usage: scripts/bench-memory.sh [ZERO_MB]   (default 1024)
set -euo pipefail
cd "$(dirname "$0")/.."
zero_mb=${1:-1024}
dir=target/bench-memory
mkdir -p "$dir"
cargo build --release --locked --quiet --bin callint
bin=target/release/callint

if [ ! -f "$dir/broken.jsonl" ]; then
  awk 'BEGIN { for (i = 0; i < 1048576; i++) print "{" }' > "$dir/broken.jsonl"
fi
if [ "$(stat -c %s "$dir/zeros.log" 2>/dev/null || echo 0)" -ne $((zero_mb * 1048576)) ]; then
  head -c $((zero_mb * 1048576)) /dev/zero > "$dir/zeros.log"
fi
ln -f "$dir/zeros.log" "$dir/zeros.bin"

# peak FILE ARGS...: the maximum resident set in KiB of one check of FILE.
peak() {
  local file=$1; shift
  local out
  if [ "$file" = - ]; then
    out=$( { /usr/bin/time -v "$bin" check --no-cache - "$@" < "$STDIN" > /dev/null; } 2>&1 || true)
  else
    out=$( { /usr/bin/time -v "$bin" check --no-cache "$file" "$@" > /dev/null; } 2>&1 || true)
  fi
  echo "$out" | sed -n 's/.*Maximum resident set size (kbytes): //p'
}

status=0
printf '%-16s %-8s %-8s %12s %12s %12s  %s\n' FILE INPUT FORMAT 'SIZE KiB' 'PEAK KiB' 'BOUND KiB' OK
for f in broken.jsonl zeros.log zeros.bin; do
  path="$dir/$f"
  size=$(( $(stat -c %s "$path") / 1024 ))
  bound=$(( 2 * size + 30 * 1024 ))
  for input in file stdin; do
    for format in concise pretty json; do
      if [ $input = stdin ]; then
        STDIN=$path
        kib=$(peak - --format "$format")
      else
        kib=$(peak "$path" --format "$format")
      fi
      ok=yes
      if [ "$kib" -gt "$bound" ]; then ok=NO; status=1; fi
      printf '%-16s %-8s %-8s %12s %12s %12s  %s\n' "$f" $input "$format" "$size" "$kib" "$bound" $ok
    done
  done
done
# Names and texts of megabytes (scripts/huge-names.sh), against the bound
# peak <= 2 x input + 100 MB, in every output, and for `report`.
scripts/huge-names.sh "$dir/huge" 4
for path in "$dir"/huge/*; do
  f=$(basename "$path")
  size=$(( $(stat -c %s "$path") / 1024 ))
  bound=$(( 2 * size + 100 * 1024 ))
  for format in concise pretty json report; do
    if [ $format = report ]; then
      kib=$( { /usr/bin/time -v "$bin" report --no-config "$path" > /dev/null; } 2>&1 | sed -n 's/.*Maximum resident set size (kbytes): //p')
    else
      kib=$(peak "$path" --no-config --format "$format")
    fi
    ok=yes
    if [ "$kib" -gt "$bound" ]; then ok=NO; status=1; fi
    printf '%-16s %-8s %-8s %12s %12s %12s  %s\n' "$f" file "$format" "$size" "$kib" "$bound" $ok
  done
done
# What the output of the broken lines costs: one finding per line would
# print hundreds of megabytes.
bytes=$( ("$bin" check --no-cache "$dir/broken.jsonl" --format concise || true) | wc -c)
echo "concise output of broken.jsonl: $bytes bytes"
exit $status
