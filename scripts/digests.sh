#!/usr/bin/env bash
# The sha256 of what `callint check --format json` prints, one line per
# input: each case of corpus/ (linted as one folder, its logs as a room)
# and each log given on the command line (the bench logs). Run it with the
# build before a change and the build after, and compare the two lists:
# a change meant to make callint faster must print the same bytes.
#   scripts/digests.sh [BIN] [LOG...] > digests.txt
#   BIN: the callint binary (default target/release/callint)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-target/release/callint}
shift || true
sum() { # name, then the check's arguments
  local name=$1
  shift
  printf '%s  %s\n' "$("$bin" check --no-cache --format json --exit-zero "$@" | sha256sum | cut -d' ' -f1)" "$name"
}
for case in corpus/*/; do
  sum "$case" "$case"
done
for log in "$@"; do
  sum "$(basename "$log")" "$log"
  # one job (the rules one after the other, not side by side), and every
  # finding listed
  sum "$(basename "$log") --jobs 1 --max-repeats 0" "$log" --jobs 1 --max-repeats 0
done
