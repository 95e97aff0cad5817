#!/usr/bin/env python3
"""Precision and recall of callint's instruction findings on a set of
instruction files it has never seen.

    scripts/instructions-eval.py SET_DIR [CALLINT]

SET_DIR holds one folder per case (NN-name/) and an expected.tsv with one
line per bad instruction: path (relative to SET_DIR), the line where the
sentence starts, the rule, a reason. A finding counts as found when its
file and rule match an expected line within two lines (a sentence may
start on a list marker's line or run over several). Every other finding
is a false alarm; clean files must give none.
"""
import json
import os
import subprocess
import sys


def main() -> int:
    root = sys.argv[1].rstrip("/")
    binary = sys.argv[2] if len(sys.argv) > 2 else "callint"
    expected = set()
    with open(os.path.join(root, "expected.tsv"), encoding="utf-8") as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            path, at, rule = line.rstrip("\n").split("\t")[:3]
            expected.add((path, int(at), rule))
    cases = [os.path.join(root, d) for d in sorted(os.listdir(root)) if d[:2].isdigit()]
    out = subprocess.run(
        [binary, "check", "--no-cache", "--no-config", "--format", "json", "--max-repeats", "0", "--no-ignore", *cases],
        capture_output=True,
        text=True,
    ).stdout
    got = {(d["file"][len(root) + 1 :], d["line"], d["rule"]) for d in json.loads(out)["diagnostics"]}
    found, false = set(), []
    for g in sorted(got):
        match = [e for e in expected if e[0] == g[0] and e[2] == g[2] and abs(e[1] - g[1]) <= 2]
        if match:
            found.add(match[0])
        else:
            false.append(g)
    precision = (len(got) - len(false)) / len(got) if got else 1.0
    recall = len(found) / len(expected) if expected else 1.0
    print(f"expected {len(expected)}, found {len(found)}, false alarms {len(false)}")
    print(f"precision {precision:.3f} recall {recall:.3f}")
    for g in false:
        print("false alarm", *g, sep="\t")
    for e in sorted(expected - found):
        print("missed", *e, sep="\t")
    return 0


if __name__ == "__main__":
    sys.exit(main())
