#!/usr/bin/env bash
# Waits for the human and prints what they say.
set -euo pipefail
while true; do
  voicehook next --json | jq -r 'select(.type == "user") | .text'
done
