#!/usr/bin/env bash
# Write inputs whose names or texts are megabytes long into a folder, for
# scripts/bench-memory.sh (and by hand, to time one of them):
#   - repeat-words.jsonl: a say repeating what another agent said, that
#     agent's `speaker` MB megabytes of words (`repeated-say` quotes it);
#   - speaker-word.jsonl: an `operators_said` speaker of MB megabytes
#     without a space, nothing else wrong;
#   - join-label.jsonl, human.jsonl: a `join` label and `meta.human` of MB
#     megabytes;
#   - board.json: a board whose label is MB megabytes;
#   - prompt.md: a prompt whose `join` label is MB megabytes;
#   - timing.vtt: a WebVTT cue whose timing line is MB megabytes of
#     backslashes.
# Usage: scripts/huge-names.sh DIR [MB]   (default 4)
set -euo pipefail
dir=$1
mb=${2:-4}
mkdir -p "$dir"
n=$((mb * 1048576))
# huge CHARS: n bytes of CHARS repeated.
huge() { yes "$1" | tr -d '\n' | head -c "$n" || true; }

join='{"ts":"2026-10-10T10:00:00.000Z","call":"c1","fn":"join","args":{"call_id":"c1","label":"Kit","greet":true},"result":{"status":"joined","context":{"lang":"en","mode":"normal"}}}'
greet='{"ts":"2026-10-10T10:00:01.000Z","call":"c1","fn":"say","args":{"text":"Hi, this is Kit, I am in and listening."},"result":{"say_id":"s1","say_status":"queued"}}'
status='{"ts":"2026-10-10T10:00:02.000Z","call":"c1","fn":"status","args":{"emoji":"🛠️","doing":"Checking the build","open":[],"done":[]},"result":{}}'
# timeout SPEAKER TEXT SECOND: a timeout event with one line of another agent.
timeout() {
  printf '{"ts":"2026-10-10T10:00:%02d.000Z","call":"c1","fn":"next","result":{"type":"timeout","operators_said":[{"speaker":"' "$3"
  printf '%s' "$1"
  printf '","text":"%s"}]}}\n' "$2"
}
text='The staging build is green and every integration test passes now.'
{
  echo "$join"; echo "$greet"; echo "$status"
  timeout "$(huge 'Bolt Sam ')" "$text" 10
  printf '{"ts":"2026-10-10T10:00:12.000Z","call":"c1","fn":"say","args":{"text":"%s"},"result":{"say_id":"s2","say_status":"queued"}}\n' "$text"
} > "$dir/repeat-words.jsonl"
{
  echo "$join"; echo "$greet"; echo "$status"
  timeout "$(huge b)" "ok" 10
} > "$dir/speaker-word.jsonl"
{
  printf '{"ts":"2026-10-10T10:00:00.000Z","call":"c1","fn":"join","args":{"call_id":"c1","label":"'
  huge k
  printf '","greet":true},"result":{"status":"joined","context":{"lang":"en"}}}\n'
  echo "$greet"; echo "$status"
} > "$dir/join-label.jsonl"
{
  printf '{"meta":{"format":1,"human":"'
  huge h
  printf '"}}\n'
  echo "$join"; echo "$greet"; echo "$status"
} > "$dir/human.jsonl"
{
  printf '{"label":"'
  huge l
  printf '","emoji":"🛠️","doing":"Preparing release 2.4","open":["Tag release 2.4"],"done":[]}\n'
} > "$dir/board.json"
{
  printf '# Joining\n\n```json\n{"call_id": "<from the link>", "label": "'
  huge p
  printf '", "greet": true}\n```\n'
} > "$dir/prompt.md"
{
  printf 'WEBVTT\n\n'
  huge '\'
  printf ' --> 00:00:02.000\n<v Ann>Kit, is the build green?\n'
} > "$dir/timing.vtt"
