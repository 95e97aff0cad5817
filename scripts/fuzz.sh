#!/usr/bin/env bash
# Fuzz every input reader and the whole `check` path, one target after
# another, each for SECONDS (default 300), at the lowest CPU priority.
#
#   scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]
#
# Needs a nightly toolchain and cargo-fuzz (`cargo install cargo-fuzz`).
# Targets (fuzz/fuzz_targets/): native mcp transcript captions packed board
# prompt claude codex opencode gemini recordings check.
# Seeds are written to target/fuzz-seeds/TARGET from corpus/ (windows of
# six lines, and whole files cut to the length limit) and fuzz/seeds/TARGET
# (small hand-made edge cases); what the fuzzer learns stays in fuzz/corpus/TARGET (not
# committed), crashes land in fuzz/artifacts/TARGET. A crash ends that
# target's run; replay it with
#   cargo +nightly fuzz run TARGET fuzz/artifacts/TARGET/crash-...
# and keep it as a regression in tests/regressions/ (without its first
# byte for the prompt and check targets, which picks the format).
set -euo pipefail

secs=${1:-300}
shift || true
all=(native mcp transcript captions packed board prompt claude codex opencode gemini recordings check)
# The check target's first byte picks the format it forces: its place in
# callint::harness::FORMATS, whose names these are, in order (a test keeps
# the two alike).
check_formats=(native mcp transcript vtt srt board prompt python javascript shell claude-code
    codex opencode unknown claude-desktop mcp-debug inspector tee gemini)
sel() { # format name -> the check target's selector byte, in hex
    local i
    for i in "${!check_formats[@]}"; do
        [ "${check_formats[$i]}" = "$1" ] && { printf '%02x' "$i"; return; }
    done
    echo "no format $1" >&2; exit 1
}
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=("${all[@]}")

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
seeds=target/fuzz-seeds

# One seed file: a selector byte (or none) and the bytes of a file.
seed() { # dir selector-or-empty file [suffix]
    local out="$1/$(basename "$3")${4:-}"
    if [ -n "$2" ]; then
        { printf "\\x$2"; cat "$3"; } > "$out"
    else
        cp "$3" "$out"
    fi
}

# Windows of 6 lines of a file, each a seed (small inputs run fast).
windows() { # dir selector-or-empty file
    local n i=0 tmp
    n=$(wc -l < "$3")
    tmp=$(mktemp)
    while [ "$i" -lt "$n" ]; do
        sed -n "$((i + 1)),$((i + 6))p" "$3" > "$tmp"
        seed "$1" "$2" "$tmp" ".$(basename "$3").$i"
        i=$((i + 6))
    done
    rm -f "$tmp"
}

make_seeds() {
    rm -rf "$seeds"
    for t in "${all[@]}"; do mkdir -p "$seeds/$t"; cp fuzz/seeds/"$t"/* "$seeds/$t/" 2>/dev/null || true; done
    # check target: 08 codex, 09 opencode (forced); past the formats of
    # callint::harness::FORMATS, the names: 0b call.jsonl, 0c trace.ndjson,
    # 0e room.txt, 0f board.json, 10 SKILL.md, 11 poll.py, 12 poll.ts,
    # 13 poll.sh.
    for f in corpus/*/*.jsonl; do
        case "$f" in
            *-mcp/*|*-proxy/*|*-tee/*) seed "$seeds/mcp" "" "$f"; windows "$seeds/mcp" "" "$f"
                     seed "$seeds/check" "$(sel mcp)" "$f" .mcp ;;
            *-claude/*) seed "$seeds/claude" "" "$f"; windows "$seeds/claude" "" "$f"
                     windows "$seeds/check" "$(sel claude-code)" "$f" ;;
            *-codex/*) seed "$seeds/codex" "" "$f"; windows "$seeds/codex" "" "$f"
                     windows "$seeds/check" "$(sel codex)" "$f" ;;
            *-gemini/*) seed "$seeds/gemini" "" "$f"; windows "$seeds/gemini" "" "$f"
                     windows "$seeds/check" "$(sel gemini)" "$f" ;;
            *)       seed "$seeds/native" "" "$f"; windows "$seeds/native" "" "$f"
                     windows "$seeds/check" "$(sel native)" "$f" ;;
        esac
    done
    # recordings target: 00 Claude Desktop, 01 mcp-debug, 02 Inspector, 03 tee.
    for f in corpus/seed-incident-desktop/*.log; do seed "$seeds/recordings" 00 "$f"; windows "$seeds/recordings" 00 "$f"; done
    for f in corpus/seed-incident-mcp-debug/*.jsonl; do seed "$seeds/recordings" 01 "$f"; windows "$seeds/recordings" 01 "$f"; done
    for f in corpus/seed-incident-inspector/*.json; do seed "$seeds/recordings" 02 "$f"; done
    for f in corpus/seed-incident-tee/*.jsonl; do windows "$seeds/recordings" 03 "$f"; done
    for f in corpus/*/*.txt; do
        seed "$seeds/transcript" "" "$f"; windows "$seeds/transcript" "" "$f"
        seed "$seeds/check" "$(sel transcript)" "$f"
    done
    # captions target: 00 WebVTT, 01 SRT.
    for f in corpus/*/*.vtt; do seed "$seeds/captions" 00 "$f"; windows "$seeds/captions" 00 "$f"; seed "$seeds/check" "$(sel vtt)" "$f"; done
    for f in corpus/*/*.srt; do seed "$seeds/captions" 01 "$f"; windows "$seeds/captions" 01 "$f"; seed "$seeds/check" "$(sel srt)" "$f"; done
    for f in corpus/*/*.json; do
        case "$f" in
            *-opencode/*) seed "$seeds/opencode" "" "$f"; seed "$seeds/check" "$(sel opencode)" "$f" ;;
            *-inspector/*) ;;
            *)            seed "$seeds/board" "" "$f"; seed "$seeds/check" "$(sel board)" "$f" ;;
        esac
    done
    # prompt target: 00 markdown, 01 python, 02 javascript, 03 shell.
    for f in corpus/*/*.md; do seed "$seeds/prompt" 00 "$f"; seed "$seeds/check" "$(sel prompt)" "$f"; done
    for f in corpus/*/*.py; do seed "$seeds/prompt" 01 "$f"; seed "$seeds/check" "$(sel python)" "$f"; done
    for f in corpus/*/*.ts corpus/*/*.js; do [ -e "$f" ] || continue; seed "$seeds/prompt" 02 "$f"; seed "$seeds/check" "$(sel javascript)" "$f"; done
    for f in corpus/*/*.sh; do seed "$seeds/prompt" 03 "$f"; seed "$seeds/check" "$(sel shell)" "$f"; done
}

make_seeds
if [ $# -eq 0 ]; then
    cargo +nightly fuzz build --debug-assertions
else
    for t in "${targets[@]}"; do cargo +nightly fuzz build --debug-assertions "$t"; done
fi

printf '%-11s %10s %9s %8s %8s %8s\n' target runs execs/s cov ft crashes
for t in "${targets[@]}"; do
    mkdir -p "fuzz/corpus/$t" "fuzz/artifacts/$t"
    log="target/fuzz-$t.log"
    before=$(find "fuzz/artifacts/$t" -type f | wc -l)
    nice -n 19 cargo +nightly fuzz run --debug-assertions "$t" "fuzz/corpus/$t" "$seeds/$t" -- \
        -max_total_time="$secs" -max_len=4096 -timeout=20 -rss_limit_mb=3072 \
        -dict=fuzz/callint.dict -print_final_stats=1 > "$log" 2>&1 || true
    after=$(find "fuzz/artifacts/$t" -type f | wc -l)
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -n 1 | cut -d' ' -f2)
    ft=$(grep -o 'ft: [0-9]*' "$log" | tail -n 1 | cut -d' ' -f2)
    printf '%-11s %10s %9s %8s %8s %8s\n' "$t" "${runs:-?}" "${rate:-?}" "${cov:-?}" "${ft:-?}" "$((after - before))"
    if [ "$after" -gt "$before" ]; then
        grep -m 3 -E 'panicked|ERROR: libFuzzer|SUMMARY' "$log" | sed 's/^/    /' >&2 || true
    fi
done
