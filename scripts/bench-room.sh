#!/usr/bin/env bash
# The room pass, whole process, measured in one run on this machine: COPIES
# copies of one generated log (an agent's view of a call with a human,
# Delta and three other agents, TURNS turns), linted
#   - as one call: every copy keeps the call id, so the room pass joins
#     them all and judges the three agents without a log of their own;
#   - as separate calls: every copy gets its own call id, no room;
# with all cores, best of 3 wall-clock runs each. The ratio is what the
# room costs on top of linting its logs. Then two logs of one call with
# 5,000 speakers alike, none of them with a log of its own, against two with
# 20,000: work over pairs of the room's agents would show.
# Usage: scripts/bench-room.sh [COPIES] [TURNS]   (default 100 x 500)
set -euo pipefail
cd "$(dirname "$0")/.."
copies=${1:-100}
turns=${2:-500}
target=${CARGO_TARGET_DIR:-target}
dir=$target/bench-room
cargo build --release --locked --quiet --bin callint --example genlog
bin=$target/release
rm -rf "$dir"
mkdir -p "$dir/one" "$dir/apart"
"$bin/examples/genlog" "$turns" "$dir/log.jsonl"
id=$(grep -o '"call_id":"[^"]*"' "$dir/log.jsonl" | head -1 | cut -d'"' -f4)
for k in $(seq 1 "$copies"); do
  cp "$dir/log.jsonl" "$dir/one/$k.jsonl"
  sed "s/\"$id\"/\"$id-$k\"/g" "$dir/log.jsonl" > "$dir/apart/$k.jsonl"
done

# shellcheck source=scripts/best.sh
. scripts/best.sh
lint() { "$bin/callint" check "$1" --format json --exit-zero --no-cache "${@:2}"; }
one=$(best 3 lint "$dir/one")
apart=$(best 3 lint "$dir/apart")
alone=$(best 3 lint "$dir/one" --no-merge)
printf '%d logs of %d turns (%.1f MB), %d cores\n' "$copies" "$turns" \
  "$(echo "$(du -sb "$dir/one" | cut -f1)/1000000" | bc -l)" "$(nproc)"
printf 'one call (room)       %7.3f s\n' "$(echo "$one/1000000" | bc -l)"
printf 'one call, --no-merge  %7.3f s\n' "$(echo "$alone/1000000" | bc -l)"
printf 'separate calls        %7.3f s\n' "$(echo "$apart/1000000" | bc -l)"
printf 'room: %.2fx the same logs as separate calls\n' "$(echo "$one/$apart" | bc -l)"

for n in 5000 20000; do
  mkdir -p "$dir/speakers-$n"
  "$bin/examples/genlog" --speakers "$n" "$dir/speakers-$n/a.jsonl"
  cp "$dir/speakers-$n/a.jsonl" "$dir/speakers-$n/b.jsonl"
done
s1=$(best 3 lint "$dir/speakers-5000")
s4=$(best 3 lint "$dir/speakers-20000")
printf 'room of 5,000 speakers %.3f s, of 20,000 %.3f s: 4x the speakers costs %.2fx the time\n' \
  "$(echo "$s1/1000000" | bc -l)" "$(echo "$s4/1000000" | bc -l)" "$(echo "$s4/$s1" | bc -l)"
