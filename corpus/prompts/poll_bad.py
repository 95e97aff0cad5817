"""Promo's helper from the seed incident: it looks only at events that are
not timeouts, so opencode's greeting and question, which arrived inside a
timeout event, never reached the agent."""

import json
import subprocess


def next_event():
    out = subprocess.run(["voicehook", "next", "--json"], capture_output=True, text=True)
    return json.loads(out.stdout)


def main():
    while True:
        ev = next_event()
        if ev.get("type") in ("timeout", "waiting_for_human"):
            continue
        for line in ev.get("operators_said", []):
            print(f"{line['speaker']}: {line['text']}")
        if ev["type"] == "user":
            print(f"HUMAN: {ev['text']}")


if __name__ == "__main__":
    main()
