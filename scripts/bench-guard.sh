#!/usr/bin/env bash
# Latency of `callint guard` as Claude Code runs it: one process per pending
# call, the hook input on standard input, on a session of about 10 MB.
# Prints p50, p99 and the slowest of RUNS invocations of the release binary
# (wall clock, process start to exit), for two sessions:
#
#   one-call   the generated call of examples/genlog.rs written as a Claude
#              Code session by scripts/corpus/claude-session.py, with a
#              coding agent's work after every 10th record: one call whose
#              join is on the first lines, so the guard reads the whole file
#              (the worst case);
#   late-call  the same session followed by the seed incident's opencode
#              session: a long working session, then a call, so the guard
#              reads the call only.
#
# Wall clock is what the agent waits; on a machine busy with other work it
# includes waiting for a core, so the CPU time of each run (user + system)
# is printed beside it.
#
# The pending call is a `say` ("Got it.", which the guard denies: the whole
# path, reason and output included, is measured).
# Usage: scripts/bench-guard.sh [TURNS] [RUNS]   (default 1200 turns: ~10 MB; 200 runs)
set -euo pipefail
cd "$(dirname "$0")/.."
turns=${1:-1200}
runs=${2:-200}
dir=target/bench-guard
mkdir -p "$dir"
cargo build --release --locked --quiet --bin callint --example genlog
bin=target/release
"$bin/examples/genlog" "$turns" "$dir/native.jsonl"
python3 scripts/corpus/claude-session.py --noise 10 "$dir/native.jsonl" "$dir/one-call.jsonl"
cat "$dir/one-call.jsonl" corpus/seed-incident-claude/opencode.jsonl > "$dir/late-call.jsonl"

python3 - "$bin/callint" "$dir" "$runs" <<'EOF'
import json, os, resource, subprocess, sys, time

callint, d, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
for name, server in [("one-call", "voicehook"), ("late-call", "vh")]:
    path = os.path.join(d, name + ".jsonl")
    hook = json.dumps({
        "session_id": "bench",
        "transcript_path": path,
        "cwd": d,
        "hook_event_name": "PreToolUse",
        "tool_name": f"mcp__{server}__say",
        "tool_input": {"text": "Got it."},
    }).encode()
    times, cpu = [], []
    for i in range(runs + 3):
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        s = time.perf_counter()
        p = subprocess.run([callint, "guard"], input=hook, capture_output=True)
        t = (time.perf_counter() - s) * 1000
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        c = (r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime) * 1000
        if i == 0:
            decision = json.loads(p.stdout)["hookSpecificOutput"]["permissionDecision"] if p.stdout else "allow"
        if i >= 3:  # warm-up runs left out
            times.append(t)
            cpu.append(c)
    times.sort()
    cpu.sort()
    pct = lambda v, q: v[min(len(v) - 1, int(q * len(v)))]
    size = os.path.getsize(path) / 1e6
    print(f"{name:9} {size:5.1f} MB  {decision:5}  runs {runs}  wall p50 {pct(times, 0.50):6.1f} ms  p99 {pct(times, 0.99):6.1f} ms  max {times[-1]:6.1f} ms"
          f"  | cpu p50 {pct(cpu, 0.50):6.1f} ms  p99 {pct(cpu, 0.99):6.1f} ms")
EOF
